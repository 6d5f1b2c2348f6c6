"""Number an appendix with a letter: "A. Mathematical preliminaries", equations (A.1), figures A.1.

Sphinx numbers chapters with integers only. An appendix placed last in a numbered part of ``_toc.yml`` gets the
next integer (with ``use_multitoc_numbering``, chapter numbers continue across parts), so the chapters before it
keep their numbers. Once Sphinx has numbered sections and figures (``env-get-updated``), this extension replaces
that integer with the appendix's letter everywhere it was stored: the section numbers of the page (its heading and
the entries of the sidebar), and the numbers of its equations, figures and exercises. Links and ``{eq}``
references then print (A.1), and ``lab_numbering`` expects the notebook's JupyterLab enumerator ``A.%s``.

Configured in ``_config.yml`` under ``sphinx.config``::

    appendix_letters:
      notebooks/A_preliminaries: A

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)


def _lettered(number, letter):
    """``(6, 2)`` -> ``("A", 2)``: the chapter's integer replaced by its letter."""
    return (letter, *number[1:]) if number else number


def letter_appendices(app: Sphinx, env) -> list[str]:
    """Replace each appendix's chapter number by its letter; returns the documents to write again."""
    changed = []
    for docname, letter in app.config.appendix_letters.items():
        if docname not in env.found_docs:
            logger.warning(f"appendix_letters names {docname!r}, which is not a page of the book",
                           type="appendix_numbering", subtype="missing")
            continue
        secnumbers = env.toc_secnumbers.get(docname)
        if not secnumbers:
            logger.warning(f"{docname} is lettered {letter!r} in appendix_letters but is not in a numbered part "
                           "of _toc.yml: put it last in a numbered part", location=docname,
                           type="appendix_numbering", subtype="unnumbered")
            continue
        if all(number and number[0] == letter for number in secnumbers.values()):
            continue  # already lettered in this build
        env.toc_secnumbers[docname] = {anchor: _lettered(number, letter) for anchor, number in secnumbers.items()}
        for figtype, numbers in env.toc_fignumbers.get(docname, {}).items():
            env.toc_fignumbers[docname][figtype] = {
                node_id: _lettered(number, letter) for node_id, number in numbers.items()}
        for reference in env.tocs[docname].findall(nodes.reference):
            if reference.get("secnumber"):
                reference["secnumber"] = _lettered(reference["secnumber"], letter)
        changed.append(docname)
    return changed


def setup(app: Sphinx) -> dict:
    app.add_config_value("appendix_letters", {}, "env", [dict])
    # After Sphinx's own TocTreeCollector (priority 500) has assigned the numbers.
    app.connect("env-get-updated", letter_appendices, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
