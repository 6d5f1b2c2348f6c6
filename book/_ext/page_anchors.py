"""Resolve Markdown links to an anchor on another page: ``[text](page.md#anchor)``, checked like a cross-reference.

The chapters are read in JupyterLab as well as in the book, and JupyterLab's MyST renderer cannot resolve a
reference to another file (``{ref}``, ``{eq}``, ``{cite}``, ``{py:func}`` there show a warning icon or the raw
target). So a chapter refers to another page with a plain Markdown link, which JupyterLab opens and the book
turns into a link to the anchor (book/contributing.md, "Writing a chapter"):

* ``[(1.11)](01_linear_regression.ipynb#eq-gradient)``: an equation, by its label;
* ``[Gradient descent and the LMS rule](01_linear_regression.ipynb#sec-gradient-descent)``: any ``(label)=``;
* [`predict()`](../book/api.md#implementations.linear.regression.predict): an API entry, by its full dotted name;
* ``[Bishop, 2006](../book/bibliography.md#bishop2006pattern)``: a bibliography entry, by its bibtex key.

myst-parser only resolves the part after ``#`` when it is a heading slug, and warns otherwise. This post-transform
runs first: it resolves an anchor that names a label, an equation, a Python object or a citation on the target
page, and leaves any other link to myst-parser, which still warns about an anchor that exists nowhere. A link to
an equation must show the number the book gives it: a text that does not contain "(1.11)" is a warning (an error
under ``-W``), so such a link cannot go stale when an equation is added above its target.

Figures follow the same rule. JupyterLab cannot resolve ``{numref}`` to a figure that a code cell draws (its name
and caption live in the cell's metadata ``mystnb.figure``), so a chapter links to it, on its own page or on another:

* ``[Figure 1.9](#fig-polynomial-fits)`` or ``[Figure 1.9](01_linear_regression.ipynb#fig-polynomial-fits)``.

myst-parser resolves the same-page form to the figure itself; the other form resolves here, through the figure's
label. Either way the text must show the number the book gives the figure (1.9, not 1.10 nor 1.91), or it is a
warning; the same holds for a link to any other numbered element (a table, an exercise, a proof).

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import re

from docutils import nodes
from docutils.nodes import make_id
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.transforms.post_transforms import SphinxPostTransform
from sphinx.util import logging
from sphinx.util.nodes import make_refnode

logger = logging.getLogger(__name__)

def page_anchors(env) -> dict[tuple[str, str], tuple[str, str]]:
    """{(docname, anchor): (HTML id, kind)} for every label, equation, Python object and bibliography entry."""
    anchors = {}
    for name, (docname, labelid, _title) in env.get_domain("std").labels.items():
        anchors[docname, name] = (labelid, "label")
    for label, (docname, _number) in env.get_domain("math").equations.items():
        anchors[docname, label] = (make_id(f"equation-{label}"), "equation")
    for name, entry in env.get_domain("py").objects.items():
        if not entry.aliased:
            anchors[entry.docname, name] = (entry.node_id, "object")
    for key, bibliography in env.get_domain("cite").bibliographies.items():
        for citation_key, citation in bibliography.citation_nodes.items():
            if citation["ids"]:
                anchors[key.docname, citation_key] = (citation["ids"][0], "citation")
    return anchors


class ResolvePageAnchors(SphinxPostTransform):
    """Turn ``[text](page#anchor)`` into a link to the element the anchor names on that page."""

    default_priority = 8  # before myst-parser's MystReferenceResolver (9), which warns about non-heading anchors

    def run(self, **kwargs) -> None:
        anchors = None
        for node in list(self.document.findall(addnodes.pending_xref)):
            if node.get("reftype") != "myst" or node.get("refdomain") != "doc" or not node.get("reftargetid"):
                continue
            docname, anchor = node["reftarget"], node["reftargetid"]
            if anchors is None:
                anchors = page_anchors(self.env)
            if anchor in self.env.metadata.get(docname, {}).get("myst_slugs", {}) or (docname, anchor) not in anchors:
                continue  # a heading slug, or nothing we know: myst-parser resolves it or warns
            target_id, kind = anchors[docname, anchor]
            if kind == "equation":
                number = self.equation_number(node, docname, anchor)
            elif kind == "label" and self.numbered(docname, target_id):
                number = self.element_number(node, docname, anchor, target_id)
            else:
                number = None
            if node.get("refexplicit"):
                inner = nodes.inline(node.astext(), "", classes=["std", "std-ref"])
                inner.extend(child.deepcopy() for child in node[0].children)
            else:  # <page#anchor>: no text of its own
                inner = nodes.inline("", number or anchor, classes=["std", "std-ref"])
            fromdocname = node.get("refdoc", self.env.docname)
            node.replace_self(make_refnode(self.app.builder, fromdocname, docname, target_id, inner))
        # [Figure 1.9](#fig-polynomial-fits): myst-parser's ResolveAnchorIds already pointed it at the figure
        for node in self.document.findall(nodes.reference):
            if node.get("id_link") and node.get("refid") and self.numbered(self.env.docname, node["refid"]):
                self.element_number(node, self.env.docname, node["refid"], node["refid"])

    def numbered(self, docname: str, target_id: str) -> tuple[str, str] | None:
        """(type, number) of the figure, table, exercise, ... with this HTML id, as the book numbers it: ("figure",
        "1.9"); None for an element without a number."""
        for figtype, numbers in self.env.toc_fignumbers.get(docname, {}).items():
            if target_id in numbers:
                return figtype, ".".join(map(str, numbers[target_id]))
        return None

    def element_number(self, node, docname: str, anchor: str, target_id: str) -> str:
        """The text the book gives a numbered element, "Fig. 1.9"; warns when the link's text shows another number
        (1.9 must stand alone: "1.91" or "11.9" is another number)."""
        figtype, number = self.numbered(docname, target_id)
        text = node.astext()
        if node.get("refexplicit", True) and not re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", text):
            logger.warning(f"the link to {figtype} {anchor!r} reads {text!r}, which does not show its number {number}",
                           location=node, type="page_anchors", subtype="figure_number")
        return self.config.numfig_format.get(figtype, "%s") % number

    def equation_number(self, node, docname: str, label: str) -> str:
        """The equation's number as the book prints it, "(1.12)"; warns when the link's text shows another."""
        resolved = self.env.get_domain("math").resolve_xref(self.env, docname, self.app.builder, "eq", label, node,
                                                        nodes.inline())
        number = resolved.astext()
        text = node.astext()
        if node.get("refexplicit") and number not in text:
            logger.warning(f"the link to equation {label!r} reads {text!r}, which does not show its number {number}",
                           location=node, type="page_anchors", subtype="equation_number")
        return number


def setup(app: Sphinx) -> dict:
    app.add_post_transform(ResolvePageAnchors)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
