"""The accessibility audit of a page open in Selenium: axe-core and the alternative text of its images.

Used by the site test (tests/site/test_site.py), which fails on any critical or serious axe violation and on any
image without a real alternative text, and by ``tools/a11y_audit.py``, which prints every finding of a built book
as a table.

axe-core is the version pinned in ``tests/site/package.json`` (with its integrity hash in ``package-lock.json``),
which ``make install`` puts into the venv with npm (``.venv/share/axe-core/node_modules/axe-core/axe.min.js``); the
environment variable ``AXE_CORE_JS`` names another copy of that file. The script is read from disk and injected into
the page, so nothing is downloaded, and the page must report the pinned version (``axe.version``): a copy left from
an older pin stops the audit instead of passing it with older rules. The rules are those of WCAG 2.0/2.1 levels A
and AA plus axe's best practices. Run it after MathJax has typeset the page, or it audits raw TeX instead of the
formulas a reader meets.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

#: The axe-core version of the site test: the exact pin of tests/site/package.json.
PACKAGE_JSON = Path(__file__).with_name("package.json")
AXE_VERSION = json.loads(PACKAGE_JSON.read_text(encoding="utf-8"))["dependencies"]["axe-core"]


def axe_script() -> Path:
    """The axe-core script to inject: $AXE_CORE_JS, or the copy that make install put into the venv."""
    default = Path(sys.prefix) / "share" / "axe-core" / "node_modules" / "axe-core" / "axe.min.js"
    path = Path(os.environ.get("AXE_CORE_JS") or default)
    if not path.is_file():
        raise FileNotFoundError(f"axe-core {AXE_VERSION} is not installed at {path}: run make install (it needs npm)")
    return path


#: axe-core's rule tags: WCAG 2.0 and 2.1, levels A and AA, and axe's best practices.
AXE_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]
#: Only the violations are needed: passes and incomplete checks are not returned (a smaller, faster answer).
#: No preloading: axe would fetch every style sheet again to parse it, resolve the theme's @import "../basic.css"
#: against the wrong folder and log a 404 on the page; only css-orientation-lock needs it (below).
AXE_OPTIONS = {"runOnly": {"type": "tag", "values": AXE_TAGS}, "resultTypes": ["violations"], "preload": False}
#: axe runs a rule it marks "experimental" only when asked by name. Those that test a WCAG 2.x A/AA criterion are
#: part of the audit (in axe 4.14.1: p-as-heading, table-fake-caption, td-has-header; in older versions such as 4.9.1
#: also label-content-name-mismatch, WCAG 2.5.3, a rule of its own since), except css-orientation-lock, which needs
#: the preloaded style sheets (the book locks no orientation). Experimental best practices are not.
WCAG_TAGS = [t for t in AXE_TAGS if t.startswith("wcag")]
EXPERIMENTAL_WCAG_RULES = """
return axe.getRules().filter(r => r.tags.includes("experimental") && r.tags.some(t => arguments[0].includes(t)))
  .map(r => r.ruleId).filter(id => id !== "css-orientation-lock");
"""
#: axe's impact levels, most severe first; the site test fails on the first two.
IMPACTS = ("critical", "serious", "moderate", "minor")
BLOCKING = ("critical", "serious")


# Resolves once MathJax has typeset the page ("typeset"), at once on a page without a MathJax script ("no MathJax").
# On a page that loads MathJax the script is waited for, up to 5 s, before it is declared missing; see
# test_site.load_page for the rare load on which Chromium never runs it.
WAIT_FOR_MATHJAX = """
const done = arguments[arguments.length - 1];
const loadsMathJax = document.querySelector("script[src*='mathjax']") !== null;
const start = Date.now();
(function wait() {
  if (window.MathJax && MathJax.startup && MathJax.startup.promise) {
    MathJax.startup.promise.then(() => done("typeset"), (e) => done("error: " + e));
  } else if (!loadsMathJax || Date.now() - start > 5000) {
    done("no MathJax");
  } else {
    setTimeout(wait, 50);
  }
})();
"""

# What the page fetched of MathJax, for the message when its script never ran.
MATHJAX_RESOURCES = """
return {readyState: document.readyState, MathJax: window.MathJax ? Object.keys(window.MathJax) : null,
        fetched: performance.getEntriesByType("resource").filter(r => r.name.includes("mathjax"))
                   .map(r => [r.name.split("/").pop(), Math.round(r.duration), r.transferSize])};
"""


def axe_violations(driver) -> list[dict]:
    """Run axe-core on the page open in ``driver``; its violations (axe's result objects)."""
    from selenium_axe_python import Axe

    axe = Axe(driver, script_url=str(axe_script()))  # the pinned copy in the venv, read from disk: no download
    if not driver.execute_script("return typeof window.axe !== 'undefined'"):
        axe.inject()
    version = driver.execute_script("return axe.version")
    if version != AXE_VERSION:
        raise RuntimeError(f"the page runs axe-core {version}, not the pinned {AXE_VERSION} (tests/site/package.json): "
                           f"{axe.script_url} is stale; run make install")
    experimental = driver.execute_script(EXPERIMENTAL_WCAG_RULES, WCAG_TAGS)
    options = {**AXE_OPTIONS, "rules": {rule: {"enabled": True} for rule in experimental}}
    # Axe.run pastes its options into the script as text, so give it JSON.
    return axe.run(options=json.dumps(options))["violations"]


def blocking(violations: list[dict]) -> list[dict]:
    """The violations that fail the site test: critical and serious."""
    return [v for v in violations if v.get("impact") in BLOCKING]


def describe(violations: list[dict]) -> list[str]:
    """One readable line per violation: rule, impact, number of nodes, an example target, axe's help."""
    lines = []
    for v in sorted(violations, key=lambda v: (IMPACTS.index(v["impact"]) if v["impact"] in IMPACTS else 9, v["id"])):
        target = v["nodes"][0]["target"] if v["nodes"] else []
        example = " ".join(str(t) for t in target)
        lines.append(f"{v['id']} ({v['impact']}, {len(v['nodes'])} node(s)), e.g. {example}: {v['help']}")
    return lines


# Every image of the page's main content (figures, notebook outputs), with its alt attribute (null if absent).
IMAGES_IN_MAIN = """
const root = document.querySelector("main") || document.body;
return Array.from(root.querySelectorAll("img"))
  .map(img => ({src: img.getAttribute("src"), alt: img.getAttribute("alt")}));
"""

_FILE_NAME = re.compile(r"\w\.(png|svg|jpe?g|gif|webp|bmp|tiff?|pdf)\b", re.IGNORECASE)


def alt_problem(alt: str | None) -> str | None:
    """Why ``alt`` is no alternative text for a figure, or None when it is one.

    Missing or empty, a path (``../_images/3c04….png``: what MyST-NB writes when a cell's metadata has no
    ``mystnb.image.alt``) or a file name (``fig.png``), the same rule as tests/test_figure_alt_text.py applies to
    the notebooks. Prose may contain a slash ("∂h_T/∂h_t", "2/L"), so a path is a single word holding ``/`` or
    ``\\``, or any text naming ``_images``.
    """
    if alt is None:
        return "no alt attribute"
    text = alt.strip()
    if not text:
        return "empty alt text"
    if "_images" in text or (len(text.split()) == 1 and re.search(r"[/\\]", text)):
        return f"alt text is a path: {text[:80]!r}"
    if _FILE_NAME.search(text):
        return f"alt text is a file name: {text[:80]!r}"
    return None


def image_alt_problems(driver) -> list[str]:
    """One line per image in the page's main content whose alternative text is missing or not a description."""
    problems = []
    for image in driver.execute_script(IMAGES_IN_MAIN):
        why = alt_problem(image["alt"])
        if why:
            problems.append(f"{image['src']}: {why}")
    return problems
