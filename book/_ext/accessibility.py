"""Make the built book accessible: what axe-core finds in the HTML that the toolchain writes, fixed at the source.

The site test (tests/site/) runs axe-core on every page and fails on any critical or serious violation;
``tools/a11y_audit.py`` prints every finding. This extension fixes what the toolchain gets wrong, as far as
possible in the document tree and the HTML writer, before anything reaches the browser:

* **Code toggles** (MyST-NB's ``hide-input``/``hide-output``/``hide-cell`` cells): MyST-NB names every one
  "Toggle hidden content" (``aria-label``) while it shows "Show code cell source". The summary loses the
  ``aria-label``, so its name is what it shows, and says what it hides: "Show code" / "Hide code" ("Show
  output", "Show code and output"). A cell's own ``code_prompt_show``/``code_prompt_hide`` metadata is kept.
* **Bibliography**: docutils writes each entry as ``role="doc-biblioentry"``, a role that ARIA 1.2 deprecates
  and that is not allowed on a ``div``, inside a ``role="list"`` that then holds no list items. Entries
  become ``role="listitem"``.
* **Tables**: a header cell with nothing in it heads nothing, so it is written as a data cell: the blank
  top-left corner of a pandas DataFrame (and the blanks of its index-name row) and of a Markdown table whose
  first header is empty. Such a Markdown table has its row labels in the first column, which become row
  headers (``<th scope="row">``), so that every cell has a header.
* **Landmarks**: the book's title link at the top of the sidebar (the theme's ``navbar-logo.html``) is
  placed in a ``<nav aria-label="Book">``, so that nothing on the page is outside a landmark.
* **Contrast** (``a11y_assets/static/accessibility.css``): inside exercise, solution and proof boxes, whose
  tinted background lowers the contrast of the theme's link colour below 4.5:1, links get a darker (light mode)
  or lighter (dark mode) colour, hover included; the letter rows of Sphinx's index tables lose their light grey
  shade under the dark mode's light text.
* **Widgets the theme renders in JavaScript** (``a11y_assets/static/accessibility.js``, the one place where
  no build-time fix reaches): the search buttons are named by all they show, "Search Ctrl + K" with the keyboard
  hint, not "Search"; the colour-mode button by its purpose and the mode its icon shows ("Color mode: Dark"),
  following the mode (WCAG 2.5.3, label in name: axe-core 4.14.1 counts a hidden hint or an icon's title as part
  of the visible label); the solution dropdowns' buttons say "Show solution" / "Hide solution", and Sphinx's index
  tables (``py-modindex``, the proof index) are marked as layout tables.

Everything is served from the book (``_static/``); nothing is loaded from elsewhere.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import re
from pathlib import Path

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.config import Config

ASSETS = Path(__file__).parent / "a11y_assets"
#: The sidebar template that wraps the theme's navbar-logo.html in a navigation landmark.
LOGO_IN_LANDMARK = "a11y-navbar-logo.html"

# --- code-cell toggles ------------------------------------------------------------------------------------------

#: What a MyST-NB toggle hides, by the notebook elements it wraps: (source?, output?) -> noun.
_HIDDEN = {(True, False): "code", (True, True): "code and output", (False, True): "output"}
#: The {type} MyST-NB fills into its default prompts ("Show code cell {type}").
_PROMPT_TYPES = ("content", "source", "output", "outputs")


def _default_prompts(config: Config) -> set[str]:
    return {template.replace("{type}", kind)
            for template in (config.nb_code_prompt_show, config.nb_code_prompt_hide) for kind in _PROMPT_TYPES}


def name_code_toggles(doctree: nodes.document, config: Config) -> None:
    """Give MyST-NB's toggles prompts that say what they hide, unless the cell set its own."""
    from myst_nb.sphinx_ import HideCodeCellNode

    defaults = _default_prompts(config)
    for toggle in doctree.findall(HideCodeCellNode):
        if toggle["prompt_show"] not in defaults or toggle["prompt_hide"] not in defaults:
            continue  # the cell's metadata chose its own words
        kinds = {child.get("nb_element") for child in toggle.findall(nodes.Element)}
        noun = _HIDDEN.get(("cell_code_source" in kinds, "cell_code_output" in kinds), "code cell")
        toggle["prompt_show"], toggle["prompt_hide"] = f"Show {noun}", f"Hide {noun}"


def visit_code_toggle(self, node) -> None:
    """MyST-NB's summary without its aria-label: the name is the visible prompt, which says show or hide."""
    from html import escape

    classes = " ".join(node["classes"])
    self.body.append(f'<details class="admonition hide {classes}">\n<summary>\n')
    self.body.append(f'<p class="collapsed admonition-title">{escape(node["prompt_show"])}</p>\n')
    self.body.append(f'<p class="expanded admonition-title">{escape(node["prompt_hide"])}</p>\n')
    self.body.append("</summary>\n")


def depart_code_toggle(self, node) -> None:
    self.body.append("</details>\n")


# --- bibliography -----------------------------------------------------------------------------------------------


def visit_citation(self, node) -> None:
    """docutils' own citation markup, with role="listitem" for the deprecated role="doc-biblioentry"."""
    if not isinstance(node.previous_sibling(), type(node)):
        self.body.append('<div role="list" class="citation-list">\n')
    self.body.append(self.starttag(node, "div", classes=[node.tagname], role="listitem"))


def depart_citation(self, node) -> None:
    type(self).depart_citation(self, node)  # closes the entry, and the list after its last entry


# --- tables -----------------------------------------------------------------------------------------------------

#: An empty header cell in HTML (pandas writes <th></th>, its Styler <th class="blank">&nbsp;</th>).
_EMPTY_TH = re.compile(r"<th(\s[^>]*)?>(?:\s|&nbsp;|&#160;)*</th>", re.IGNORECASE)


def _is_empty(entry: nodes.entry) -> bool:
    return not entry.astext().strip() and not list(entry.findall(nodes.image))


def mark_table_headers(doctree: nodes.document) -> None:
    """Empty header cells become data cells; a table with a blank corner gets row headers in its first column."""
    for tgroup in doctree.findall(nodes.tgroup):
        thead = next((c for c in tgroup.children if isinstance(c, nodes.thead)), None)
        if thead is None:
            continue
        corner = None
        for row in thead.findall(nodes.row):
            for index, entry in enumerate(row.children):
                if _is_empty(entry):
                    entry["a11y_cell"] = "empty"
                    if index == 0 and corner is None:
                        corner = entry
        if corner is not None:  # the first column labels the rows
            colspecs = [c for c in tgroup.children if isinstance(c, nodes.colspec)]
            if colspecs:
                colspecs[0]["stub"] = 1  # docutils writes a stub column's body cells as <th class="stub">
    for raw in doctree.findall(nodes.raw):
        if "html" in raw.get("format", "").split() and "<th" in raw.astext():
            text = _EMPTY_TH.sub(lambda m: f"<td{m.group(1) or ''}></td>", raw.astext())
            if text != raw.astext():
                raw.clear()
                raw += nodes.Text(text)


def visit_entry(self, node) -> None:
    """The writer's own table cell, except: an empty header cell is a <td>; a stub (row header) has scope="row"."""
    if node.get("a11y_cell") == "empty":
        node.parent.column += 1 + node.get("morecols", 0)
        atts = {"classes": ["head"]}
        if "morerows" in node:
            atts["rowspan"] = node["morerows"] + 1
        if "morecols" in node:
            atts["colspan"] = node["morecols"] + 1
        self.body.append(self.starttag(node, "td", "", **atts))
        self.context.append("</td>\n")
        return
    is_stub = bool(node.parent.parent.parent.stubs[node.parent.column])
    type(self).visit_entry(self, node)
    if is_stub and not isinstance(node.parent.parent, nodes.thead) and self.body[-1].startswith("<th "):
        self.body[-1] = '<th scope="row" ' + self.body[-1][len("<th "):]


def depart_entry(self, node) -> None:
    self.body.append(self.context.pop())


# --- events -----------------------------------------------------------------------------------------------------


def fix_doctree(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """After every post-transform (MyST-NB's toggles and chosen outputs are in place), before writing."""
    if app.builder.format != "html":
        return
    name_code_toggles(doctree, app.config)
    mark_table_headers(doctree)


def logo_in_landmark(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    sidebars = context.get("sidebars")
    if sidebars and "navbar-logo.html" in sidebars:
        context["sidebars"] = [LOGO_IN_LANDMARK if s == "navbar-logo.html" else s for s in sidebars]


def add_paths(app: Sphinx, config: Config) -> None:
    config.html_static_path.append(str(ASSETS / "static"))
    config.templates_path.append(str(ASSETS / "templates"))


def setup(app: Sphinx) -> dict:
    from myst_nb.sphinx_ import HideCodeCellNode

    app.connect("config-inited", add_paths)
    app.connect("doctree-resolved", fix_doctree)
    app.connect("html-page-context", logo_in_landmark)
    # Replace the HTML visitors of these nodes (for every HTML translator, whatever class the theme uses).
    app.add_node(HideCodeCellNode, override=True, html=(visit_code_toggle, depart_code_toggle))
    app.add_node(nodes.citation, override=True, html=(visit_citation, depart_citation))
    app.add_node(nodes.entry, override=True, html=(visit_entry, depart_entry))
    app.add_css_file("accessibility.css")
    app.add_js_file("accessibility.js", priority=600)  # after togglebutton.js (500), whose buttons it names
    return {"parallel_read_safe": True, "parallel_write_safe": True}
