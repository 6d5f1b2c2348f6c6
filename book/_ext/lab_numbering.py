"""Read a chapter's JupyterLab numbering block: keep it off the page, and check it against the book's numbering.

In JupyterLab (jupyterlab-myst) equations, figures and exercises are numbered 1, 2, 3 within a notebook, while the
book numbers them (1.1), (1.2) by chapter, and the prose and the code comments quote the book's numbers. A YAML
block at the top of the notebook's first Markdown cell makes JupyterLab number like the book::

    ---
    numbering:
      enumerator: 1.%s
    ---

JupyterLab reads it as the page's front matter and hides it. myst-nb, which builds the book, does not read front
matter in a notebook's cells: it would print the block as a rule and a heading. This extension removes the block
from the notebook before myst-nb parses it (``source-read``), and once the book has numbered its chapters it
checks every enumerator of the block against the chapter's number: a chapter moved in ``_toc.yml`` without its
block updated is a warning (an error under ``-W``) instead of equation numbers that silently disagree.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import json
import re

import yaml
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?\n)---[ \t]*(?:\n|\Z)", re.S)
METADATA_KEY = "lab_numbering"


def enumerators(numbering, path=("numbering",)):
    """[(where, template)] for every ``enumerator`` in the ``numbering`` mapping, at any depth."""
    found = []
    if isinstance(numbering, dict):
        for key, value in numbering.items():
            if key == "enumerator" and isinstance(value, str):
                found.append((".".join((*path, key)), value))
            else:
                found += enumerators(value, (*path, str(key)))
    return found


def strip_front_matter(app: Sphinx, docname: str, source: list[str]) -> None:
    """Remove the YAML block from the first cell of a notebook, if it is Markdown; remember its enumerators."""
    if not str(app.env.doc2path(docname)).endswith(".ipynb"):
        return
    nb = json.loads(source[0])
    if not nb.get("cells") or nb["cells"][0].get("cell_type") != "markdown":
        return
    cell = nb["cells"][0]
    text = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
    match = FRONT_MATTER.match(text)
    if match is None:
        return
    try:
        data = yaml.safe_load(match.group(1))
    except yaml.YAMLError as error:
        logger.warning(f"the front matter of the first cell is not valid YAML: {error}", location=docname,
                       type="lab_numbering", subtype="yaml")
        return
    if not isinstance(data, dict) or set(data) != {"numbering"}:
        logger.warning("the front matter of the first cell should hold only 'numbering' (JupyterLab's chapter "
                       f"numbering); found {data!r}", location=docname, type="lab_numbering", subtype="keys")
        return
    cell["source"] = text[match.end():]
    source[0] = json.dumps(nb)
    app.env.metadata[docname][METADATA_KEY] = enumerators(data["numbering"])


def check_enumerators(app: Sphinx, env) -> None:
    """Warn when a notebook's JupyterLab enumerator is not the chapter number the book gives it."""
    for docname in sorted(env.found_docs):
        found = env.metadata.get(docname, {}).get(METADATA_KEY)
        if not found:
            continue
        chapter = env.toc_secnumbers.get(docname, {}).get("")
        expected = ".".join(map(str, chapter)) + ".%s" if chapter else None
        for where, template in found:
            if template != expected:
                logger.warning(f"{where} is {template!r} but the book numbers this chapter's items as "
                               f"{expected!r}: JupyterLab and the book would show different numbers",
                               location=docname, type="lab_numbering", subtype="enumerator")


def setup(app: Sphinx) -> dict:
    app.connect("source-read", strip_front_matter)
    app.connect("env-check-consistency", check_enumerators)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
