"""Remove the JupyterLab reading of a page from the book: the block that tools/lab_pages.py writes.

``book/bibliography.md`` and ``book/api.md`` are built by Sphinx directives that JupyterLab cannot run, so each also
carries their content as plain MyST for readers who open them from a notebook in JupyterLab, between two HTML
comments. In the book the directives show the full entries; the block would repeat them and clash with their
targets, so it is dropped before the page is parsed (``source-read``).

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import re

from sphinx.application import Sphinx

BEGIN = "<!-- jupyterlab: the book's build removes this block; tools/lab_pages.py writes it -->"
END = "<!-- /jupyterlab -->"
BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n?", re.S)


def drop_lab_block(app: Sphinx, docname: str, source: list[str]) -> None:
    if BEGIN in source[0]:
        source[0] = BLOCK.sub("", source[0])


def setup(app: Sphinx) -> dict:
    app.connect("source-read", drop_lab_block)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
