"""Serve MathJax 3 from the book itself so that the HTML works offline.

Sphinx loads MathJax from a CDN by default. This extension copies the part
of MathJax that the book needs from the ``mathjax`` package installed by
django-static-mathjax (a wheel on PyPI holding the MathJax 3 ``es5`` tree)
into ``<outdir>/_static/mathjax/`` and points ``mathjax_path`` at it.

Only what a page can request is copied, not the whole 24 MB tree:

* the single combined component named by ``mathjax_path`` (``tex-chtml.js``:
  TeX input, CommonHTML output, the context menu and the assistive MathML);
* ``output/chtml/fonts/woff-v2/``, the web fonts the CommonHTML output loads;
* ``input/tex/extensions/``, the TeX packages that ``\\require`` or the
  autoload extension may fetch on demand.

The accessibility explorer of the MathJax menu (``a11y/`` and the 4 MB speech
rule engine ``sre/``) is left out; everything else works without a network.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from sphinx.application import Sphinx
from sphinx.config import Config
from sphinx.errors import ExtensionError
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: Where the files go, relative to the HTML ``_static`` directory.
STATIC_SUBDIR = "mathjax"
#: The combined MathJax component used when ``mathjax_path`` is not a local file.
DEFAULT_COMPONENT = "tex-chtml.js"


def mathjax_source() -> Path:
    """Return the ``es5`` directory of the installed MathJax package."""
    try:
        import mathjax
    except ImportError as err:
        raise ExtensionError(
            "offline_mathjax needs the `mathjax` package: pip install django-static-mathjax"
        ) from err
    source = Path(mathjax.__file__).parent / "static" / "mathjax" / "es5"
    if not source.is_dir():
        raise ExtensionError(f"offline_mathjax: no MathJax es5 tree at {source}")
    return source


def component_name(config: Config) -> str:
    """Return the file name of the MathJax component the pages load."""
    path = config.mathjax_path or ""
    if "://" in path or path.startswith("//"):
        logger.warning(
            "offline_mathjax: mathjax_path %r is an external URL; using the local copy "
            "_static/%s/%s instead",
            path,
            STATIC_SUBDIR,
            DEFAULT_COMPONENT,
            type="offline_mathjax",
        )
        return DEFAULT_COMPONENT
    if path and not path.startswith(f"{STATIC_SUBDIR}/"):
        raise ExtensionError(
            f"offline_mathjax: mathjax_path must be '{STATIC_SUBDIR}/<component>.js' "
            f"(relative to _static), got {path!r}"
        )
    return Path(path).name if path else DEFAULT_COMPONENT


def set_mathjax_path(app: Sphinx, config: Config) -> None:
    """Make every page load MathJax from ``_static/mathjax/``."""
    name = component_name(config)
    if not (mathjax_source() / name).is_file():
        raise ExtensionError(f"offline_mathjax: MathJax has no component {name!r}")
    # A path without a scheme is taken by Sphinx as relative to _static/.
    config.mathjax_path = f"{STATIC_SUBDIR}/{name}"


def files_to_copy(component: str) -> list[str]:
    """Return the paths, relative to the es5 tree, that ``component`` may load."""
    paths = [component]
    if "chtml" in component:
        paths.append("output/chtml/fonts/woff-v2")
    if component.startswith("tex"):
        paths.append("input/tex/extensions")
    return paths


def copy_mathjax(app: Sphinx, exception: Exception | None) -> None:
    """Copy the needed part of MathJax into ``<outdir>/_static/mathjax/``."""
    if exception is not None or app.builder.format != "html":
        return
    source = mathjax_source()
    target = Path(app.outdir) / "_static" / STATIC_SUBDIR
    component = Path(app.config.mathjax_path).name
    for relative in files_to_copy(component):
        src, dst = source / relative, target / relative
        dst.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dst, dirs_exist_ok=True)
        else:
            shutil.copy2(src, dst)
    logger.info("offline_mathjax: copied MathJax (%s) to %s", component, target)


def setup(app: Sphinx) -> dict:
    app.setup_extension("sphinx.ext.mathjax")
    app.connect("config-inited", set_mathjax_path)
    app.connect("build-finished", copy_mathjax)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
