"""Resolve Markdown links to an anchor on another page: ``[text](page.md#anchor)``, checked like a cross-reference.

The chapters are read in JupyterLab as well as in the book, and JupyterLab's MyST renderer cannot resolve a
reference to another file (``{ref}``, ``{eq}``, ``{cite}``, ``{py:func}`` there show a warning icon or the raw
target). So a chapter refers to another page with a plain Markdown link, which JupyterLab opens and the book
turns into a link to the anchor (book/setup.md, "Writing a chapter"):

* ``[(1.11)](01_linear_regression.ipynb#eq-gradient)``: an equation, by its label;
* ``[Gradient descent and the LMS rule](01_linear_regression.ipynb#sec-gradient-descent)``: any ``(label)=``;
* [`predict()`](../book/api.md#implementations.regression.predict): an API entry, by its full dotted name;
* ``[Bishop, 2006](../book/bibliography.md#bishop2006pattern)``: a bibliography entry, by its bibtex key.

myst-parser only resolves the part after ``#`` when it is a heading slug, and warns otherwise. This post-transform
runs first: it resolves an anchor that names a label, an equation, a Python object or a citation on the target
page, and leaves any other link to myst-parser, which still warns about an anchor that exists nowhere. A link to
an equation must show the number the book gives it: a text that does not contain "(1.11)" is a warning (an error
under ``-W``), so such a link cannot go stale when an equation is added above its target.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

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
            number = self.equation_number(node, docname, anchor) if kind == "equation" else None
            if node.get("refexplicit"):
                inner = nodes.inline(node.astext(), "", classes=["std", "std-ref"])
                inner.extend(child.deepcopy() for child in node[0].children)
            else:  # <page#anchor>: no text of its own
                inner = nodes.inline("", number or anchor, classes=["std", "std-ref"])
            fromdocname = node.get("refdoc", self.env.docname)
            node.replace_self(make_refnode(self.app.builder, fromdocname, docname, target_id, inner))

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
