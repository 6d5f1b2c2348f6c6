"""Show the header's repository and issue buttons only when the book's repository URL is configured.

The one place to configure it is ``repository.url`` in ``_config.yml``. Empty (the default here), the header
shows no link to a repository: a made-up address would send readers to somebody else's page. Set, both
buttons appear and point at it (the issue button at its ``/issues``).

jupyter-book refuses ``html.use_repository_button: true`` without a URL, and would otherwise fall back to
its own repository's address; so ``_config.yml`` leaves the ``use_*_button`` keys out and this extension sets
them from the URL when Sphinx reads its configuration.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

from sphinx.application import Sphinx
from sphinx.config import Config


def set_buttons(app: Sphinx, config: Config) -> None:
    options = dict(config.html_theme_options or {})
    url = str(options.get("repository_url") or "").strip()
    options["repository_url"] = url
    options["use_repository_button"] = bool(url)
    options["use_issues_button"] = bool(url)
    options["use_edit_page_button"] = False
    config.html_theme_options = options


def setup(app: Sphinx) -> dict:
    app.connect("config-inited", set_buttons)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
