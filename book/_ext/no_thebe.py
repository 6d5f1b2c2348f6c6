"""Drop scripts the pages do not use: sphinx-thebe's, and saved ipywidgets state.

jupyter-book always loads the sphinx-thebe extension, even with ``launch_buttons: thebe: false``. Its
scripts do nothing here, and its inline configuration script is added twice per page (once each time the
extension's ``env-before-read-docs`` handler runs), so the browser reports "Identifier 'THEBE_JS_URL' has
already been declared" on every page. It also names a CDN (unpkg.com) in every page. This extension removes
both the inline configuration and ``sphinx-thebe.js`` from the pages' scripts.

It also drops the ipywidgets state that myst-nb embeds when a notebook stores it (chapter 1's sliders): the
cell holding the widgets is removed from the page (``remove-cell``), no widget JavaScript is loaded
(``nb_ipywidgets_js: {}``), so the tens of kilobytes of state would only be dead weight.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

from sphinx.application import Sphinx


def _is_thebe(script) -> bool:
    name = str(getattr(script, "filename", script) or "")
    body = getattr(script, "attributes", {}).get("body", "")
    return "sphinx-thebe" in name or "thebe" in name.split("/")[-1] or "THEBE_JS_URL" in body


def _is_widget_state(script) -> bool:
    return getattr(script, "attributes", {}).get("type") == "application/vnd.jupyter.widget-state+json"


def drop_thebe(app: Sphinx, pagename: str, templatename: str, context: dict, doctree) -> None:
    if "script_files" in context:
        context["script_files"] = [s for s in context["script_files"]
                                   if not (_is_thebe(s) or _is_widget_state(s))]


def setup(app: Sphinx) -> dict:
    app.connect("html-page-context", drop_thebe, priority=900)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
