"""The rendered book as a reader sees it: every page in headless Chromium, served from 127.0.0.1.

Run after the book is built (``make test`` does: ``pytest tests/site`` follows the book build). For every
page of the table of contents it checks that the page loads with no console error, that MathJax typeset every
formula (no raw TeX left), that every image loaded, that every internal link and anchor resolves, and that
nothing was fetched from anywhere but the local server (the book works offline). The search page must find
"gradient descent". A screenshot of each chapter's first screen goes to ``_build/screenshots/``. Chapter 1 is also
opened in light and in dark mode (screenshots ``01_linear_regression-light.png`` / ``-dark.png``): every figure must
show one image, on the page's own background, with text and axes at 4.5:1 or more against it
(book/_ext/figure_dark_mode.py).

Every page is also audited for accessibility once MathJax has typeset it (tests/site/a11y.py): axe-core, the version
pinned in tests/site/package.json that make install puts into the venv (nothing is downloaded while testing), with
the WCAG 2.0/2.1 A and AA rules and axe's best practices, must find no critical or serious violation; and every
image in the page's content must have an alternative text that describes it, not an empty one, a file name or a path
(a notebook figure gets it from its cell's ``mystnb.image.alt`` metadata). ``tools/a11y_audit.py`` prints all
findings, minor ones included.

The built book tested is ``_build/html``, or the folder named by the environment variable ``BOOK_HTML``.

Chromium and its driver come from Debian (``chromium``, ``chromium-driver``); tests/browser_support.py starts it.
Without them the module is skipped with a one-line reason, unless the environment variable ``CI`` is set: in CI a
missing browser is a failure.
"""

import base64
import contextlib
import functools
import http.server
import os
import re
import sys
import threading
import urllib.parse
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "site")]
import a11y  # noqa: E402
from browser_support import require_browser, start_chrome  # noqa: E402

HTML = Path(os.environ.get("BOOK_HTML") or ROOT / "_build" / "html").resolve()
SCREENSHOTS = HTML.parent / "screenshots"  # _build/screenshots for the default build


def _toc_pages():
    """Every page of _toc.yml (root and chapters), as paths of the built HTML."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [toc["root"]] + [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    return [f"{f}.html" for f in files]


PAGES = _toc_pages()
# The pages Sphinx generates besides the chapters (indices, search): audited for accessibility too.
GENERATED_PAGES = [p for p in ("genindex.html", "py-modindex.html", "prf-prf.html", "search.html")
                   if (HTML / p).exists()]
require_browser("site test")


@contextlib.contextmanager
def _serve(directory):
    """``directory`` on http://127.0.0.1:<free port>/ while the block runs."""
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(directory)))
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    finally:
        httpd.shutdown()


@pytest.fixture(scope="module")
def server():
    """The built book on http://127.0.0.1:<free port>/, for the duration of the module."""
    if not (HTML / "index.html").exists():
        pytest.fail(f"{HTML} has no index.html: build the book first (make book).", pytrace=False)
    with _serve(HTML) as url:
        yield url


@pytest.fixture(scope="module")
def browser():
    driver = start_chrome()
    yield driver
    driver.quit()


WAIT_FOR_MATHJAX = a11y.WAIT_FOR_MATHJAX

PAGE_FACTS = """
const origin = location.origin;
const TEX = /\\\\[A-Za-z]+|\\$\\$/;  // a TeX command or $$ in prose: MathJax should have typeset it
function proseText() {  // text nodes outside code, scripts and typeset formulas: where raw TeX must not appear
  const skip = "pre, code, script, style, mjx-container, .highlight, dt.sig";  // dt.sig: API signatures
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const texts = [];
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const parent = node.parentElement;
    if (parent && !parent.closest(skip) && node.textContent.trim()) texts.push(node.textContent);
  }
  return texts;
}
const math = Array.from(document.querySelectorAll(".math"));
return {
  math: math.length,
  untypeset: math.filter(m => !m.querySelector("mjx-container")).map(m => m.textContent.slice(0, 60)),
  rawTex: proseText().filter(t => TEX.test(t)).map(t => t.slice(0, 80)),
  brokenImages: Array.from(document.images).filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.src),
  images: document.images.length,
  foreign: performance.getEntriesByType("resource").map(r => r.name).filter(n => !n.startsWith(origin)),
  links: Array.from(document.querySelectorAll("a[href]")).map(a => a.href).filter(h => h.startsWith(origin)),
};
"""


@functools.cache
def _ids(path):
    """The element ids of a built page (anchors that links may point to)."""
    return set(re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8")))


def _check_link(href, origin):
    parts = urllib.parse.urlsplit(href[len(origin):])
    target = HTML / urllib.parse.unquote(parts.path.lstrip("/"))
    if target.is_dir():
        target = target / "index.html"
    if not target.is_file():
        return f"{href}: no file {target.relative_to(HTML)}"
    fragment = urllib.parse.unquote(parts.fragment)
    if fragment and target.suffix == ".html" and fragment not in _ids(target):
        return f"{href}: no element with id {fragment!r}"
    return None


def load_page(browser, url):
    """Open ``url`` and wait for MathJax; its state ("typeset", "no MathJax" or "error: ...").

    In two of several hundred loads in this suite (different pages, never twice in a row, none in 40 loads of
    the same pages outside it) headless Chromium finished loading a page without ever running its deferred MathJax
    script, leaving only the configuration object, with no console error. Such a load is reported and retried
    once; a MathJax that is really missing or broken fails on the retry as well.
    """
    browser.get(url)
    state = browser.execute_async_script(WAIT_FOR_MATHJAX)
    loads_mathjax = browser.execute_script("return document.querySelector(\"script[src*='mathjax']\") !== null")
    if state == "no MathJax" and loads_mathjax:
        found = browser.execute_script(a11y.MATHJAX_RESOURCES)
        print(f"{url}: MathJax's script did not run ({found}); reloading once")
        browser.refresh()
        state = browser.execute_async_script(WAIT_FOR_MATHJAX)
    return state


@pytest.mark.parametrize("page", PAGES)
def test_page_renders_offline_with_math_images_and_links(page, server, browser):
    state = load_page(browser, server + page)
    assert browser.execute_script("return document.querySelector('main h1') !== null"), (
        f"{page}: no page heading (not a page of the book: {browser.title!r})")
    if page.startswith("notebooks/"):  # saved before any assertion, so a failing chapter has one too
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        browser.save_screenshot(str(SCREENSHOTS / f"{Path(page).stem}.png"))
    browser.execute_async_script("setTimeout(arguments[arguments.length - 1], 300)")  # let late errors arrive
    facts = browser.execute_script(PAGE_FACTS)
    errors = [e["message"] for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    _AUDITS[page] = _audit(browser)  # the page is open and typeset: test_page_is_accessible reads the result
    assert not errors, f"{page}: console errors {errors}"
    if facts["math"]:
        assert state == "typeset", f"{page}: MathJax {state}"
    assert not facts["untypeset"], f"{page}: formulas left untypeset: {facts['untypeset'][:5]}"
    assert not facts["rawTex"], f"{page}: raw TeX visible in the text: {facts['rawTex'][:5]}"
    assert not facts["brokenImages"], f"{page}: images that did not load: {facts['brokenImages']}"
    assert not facts["foreign"], f"{page}: fetched from outside the book: {facts['foreign']}"
    origin = server.rstrip("/")
    broken = [msg for msg in (_check_link(h, origin) for h in set(facts["links"])) if msg]
    assert not broken, f"{page}: broken internal links: {broken}"
    if page.startswith("notebooks/"):
        assert facts["math"] > 20 and facts["images"] > 3, f"{page}: suspiciously little content {facts}"


# --- accessibility ------------------------------------------------------------------------------------------------

_AUDITS = {}  # page -> what _audit found, filled by the test above, which has the page open already


def _audit(browser):
    """axe's critical and serious violations, and the images without a real alternative text, on the open page."""
    return {"axe": a11y.describe(a11y.blocking(a11y.axe_violations(browser))),
            "images": a11y.image_alt_problems(browser)}


def _audit_report(page, found):
    lines = [f"{page}: accessibility problems"]
    if found["axe"]:
        lines.append("  axe-core, critical or serious (run tools/a11y_audit.py for the full table):")
        lines += [f"    {line}" for line in found["axe"]]
    if found["images"]:
        lines.append(f"  {len(found['images'])} image(s) without an alternative text that describes them "
                     "(a notebook figure takes it from its cell's metadata mystnb.image.alt):")
        lines += [f"    {line}" for line in found["images"]]
    return "\n".join(lines)


@pytest.mark.parametrize("page", PAGES + GENERATED_PAGES)
def test_page_is_accessible(page, server, browser):
    """No critical or serious axe-core violation, and a described image everywhere, once MathJax has typeset."""
    found = _AUDITS.get(page)
    if found is None:  # a generated page, or this test run on its own
        load_page(browser, server + page)
        found = _audit(browser)
    assert not (found["axe"] or found["images"]), _audit_report(page, found)


# A page with what the audit must catch: a link of low contrast (#8ab4f8 on white, 2.1:1), an image without an
# alt attribute and one whose alt is its file's path, a button named "Search" that shows "Search Ctrl+K" (the
# theme's search button before book/_ext/a11y_assets/static/accessibility.js names it: axe-core 4.9.1 let the hidden
# hint pass, the pinned 4.14.1 does not); and a described image, a well-contrasted link and a button named by all
# it shows, which it must pass.
PLANTED = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Planted problems</title></head>
<body><main>
  <h1>Planted problems</h1>
  <p>Read <a href="#faint" id="faint" style="color: #8ab4f8">this faint link</a> and
     <a href="#clear" id="clear" style="color: #1259c3">this clear one</a>.</p>
  <img id="no-alt" src="dot.png" width="20" height="20">
  <img id="path-alt" src="dot.png" alt="../_images/3c0486666ba4.png" width="20" height="20">
  <img id="described" src="dot.png" alt="A single blue dot." width="20" height="20">
  <button id="short-name" aria-label="Search"><span>Search</span> <kbd aria-hidden="true">Ctrl+K</kbd></button>
  <button id="full-name"><span>Find</span> <kbd>Ctrl+F</kbd></button>
</main></body></html>
"""
DOT_PNG = base64.b64decode(  # a 1x1 PNG
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==")


def test_audit_catches_planted_problems(browser, tmp_path):
    (tmp_path / "index.html").write_text(PLANTED, encoding="utf-8")
    (tmp_path / "dot.png").write_bytes(DOT_PNG)
    with _serve(tmp_path) as url:  # served, not file://, as the book is: axe measures colours on a real page
        browser.get(url + "index.html")
        violations = a11y.axe_violations(browser)
        images = a11y.image_alt_problems(browser)
    by_rule = {v["id"]: v for v in violations}
    assert "color-contrast" in by_rule and by_rule["color-contrast"]["impact"] == "serious", violations
    contrast_targets = [t for n in by_rule["color-contrast"]["nodes"] for t in n["target"]]
    assert contrast_targets == ["#faint"], contrast_targets
    assert "image-alt" in by_rule, "axe must report the image without alt"
    assert "label-content-name-mismatch" in by_rule, "axe must report the button whose name leaves out its hint"
    mismatched = [t for n in by_rule["label-content-name-mismatch"]["nodes"] for t in n["target"]]
    assert mismatched == ["#short-name"], mismatched
    blocking = {v["id"] for v in a11y.blocking(violations)}
    assert blocking >= {"color-contrast", "image-alt", "label-content-name-mismatch"}, blocking
    assert len(images) == 2, images
    assert "no alt attribute" in images[0] and "is a path" in images[1], images
    report = _audit_report("index.html", {"axe": a11y.describe(a11y.blocking(violations)), "images": images})
    assert "color-contrast (serious, 1 node(s)), e.g. #faint" in report, report


def test_audit_runs_the_pinned_axe_core(browser, tmp_path, monkeypatch):
    """The page runs the axe-core version pinned in tests/site/package.json (tests/test_environment.py checks its
    lock); a copy of any other version (one left from an older pin) stops the audit instead of passing with older
    rules."""
    # Never back to a release before 4.14.1, which reads a hidden keyboard hint as part of a button's visible label
    # (4.9.1, the copy that selenium-axe-python bundles, let it pass).
    assert tuple(map(int, a11y.AXE_VERSION.split("."))) >= (4, 14, 1), a11y.AXE_VERSION
    (tmp_path / "index.html").write_text(PLANTED, encoding="utf-8")
    with _serve(tmp_path) as url:
        browser.get(url + "index.html")
        a11y.axe_violations(browser)
        assert browser.execute_script("return axe.version") == a11y.AXE_VERSION
        stale = tmp_path / "axe.min.js"
        stale.write_text('window.axe = {version: "4.9.1", run: () => Promise.resolve({violations: []})};')
        monkeypatch.setenv("AXE_CORE_JS", str(stale))
        browser.get(url + "index.html")
        with pytest.raises(RuntimeError, match="runs axe-core 4.9.1, not the pinned"):
            a11y.axe_violations(browser)


# The colour mode, the title of the icon the colour-mode button shows, and the button's aria-label.
COLOUR_MODE = """
const mode = document.documentElement.dataset.mode;
const button = document.querySelector(".theme-switch-button");
const icon = button.querySelector(`.theme-switch[data-mode="${mode}"]`);
return {mode: mode, icon: icon && ((icon.querySelector("title") || {}).textContent || icon.getAttribute("title")),
        label: button.getAttribute("aria-label")};
"""
# The elements that axe's label-content-name-mismatch finds on the page.
MISMATCHES = """
const done = arguments[arguments.length - 1];
axe.run({runOnly: {type: "rule", values: ["label-content-name-mismatch"]}, resultTypes: ["violations"]})
  .then(r => done(r.violations.flatMap(v => v.nodes.map(n => n.target.join(" ")))));
"""


def test_theme_buttons_are_named_by_what_they_show(server, browser):
    """The search buttons are named by all they show, keyboard hint included ("Search Ctrl + K"); the colour-mode
    button by its purpose and the title of the icon it shows ("Color mode: Dark"), in each mode it cycles through
    (book/_ext/a11y_assets/static/accessibility.js). axe's label-content-name-mismatch finds nothing in any mode."""
    squeeze = lambda text: re.sub(r"\s+", "", text).lower()  # noqa: E731
    load_page(browser, server + "book/intro.html")
    a11y.axe_violations(browser)  # injects axe
    search = [b for b in browser.find_elements("css selector", ".search-button__button") if b.is_displayed()]
    assert search, "no search button is shown"
    for button in search:
        assert "Search" in button.text and "K" in button.text, button.text  # "Search Ctrl+K" ("⌘+K" on a Mac)
        assert squeeze(button.accessible_name) == squeeze(button.text), (button.accessible_name, button.text)
        assert button.get_attribute("aria-keyshortcuts") == "Control+K Meta+K"
    seen = set()
    for _ in range(3):
        found = browser.execute_script(COLOUR_MODE)
        assert found["icon"] and found["label"] == f"Color mode: {found['icon']}", found
        assert not browser.execute_async_script(MISMATCHES), found
        seen.add(found["mode"])
        browser.find_element("css selector", ".theme-switch-button").click()
    assert seen == {"light", "dark", "auto"}, seen


@pytest.mark.parametrize("alt, problem", [
    (None, "no alt attribute"), ("", "empty"), ("   ", "empty"),
    ("../_images/6a6d17eecd163d1bc1d3e84b1fddaf6e.png", "path"), ("figures/loss.svg", "path"),
    ("fig_loss.png", "file name"), ("Loss Curve.JPG", "file name"),
    ("The figure in images/fig_cost.png shows the cost falling", "file name"),
    ("Training and validation loss against the epoch; the validation loss turns up after epoch 40.", None),
    ("Cross-entropy against w for y = 0/1: two convex curves.", None),
])
def test_alt_text_rule(alt, problem):
    found = a11y.alt_problem(alt)
    assert (found is None) if problem is None else (problem in found), (alt, found)


# --- figures in both colour modes ---------------------------------------------------------------------------------

# The chapter whose figures are checked in light and dark mode: line plots, scatter plots, a heatmap-free page.
MODES_PAGE = "notebooks/01_linear_regression.html"
# A figure's background must be the page's: the contrast ratio of the figure's most common colour against the page
# background below 1.3 (1.0 = the same colour; the theme's white box in dark mode is about 14:1).
SAME_BACKGROUND = 1.3
# Its text and axes (the strongest grey ink of the figure) must read against the figure's background as text does:
# WCAG 1.4.3's 4.5:1, stricter than the 3:1 that WCAG 1.4.11 asks of graphics.
TEXT_CONTRAST = 4.5

# The reader's choice as the theme stores it (pydata-sphinx-theme: localStorage "mode" and "theme", read by the
# page's head on every load), and as the theme applies it (the data-mode and data-theme attributes of <html>).
SET_MODE = """
localStorage.setItem("mode", arguments[0]);
localStorage.setItem("theme", arguments[0]);
document.documentElement.dataset.mode = arguments[0];
document.documentElement.dataset.theme = arguments[0];
"""
# Every figure image the reader sees on the page, with the background colour behind it (the first ancestor that
# paints one) and whether any other image of the same figure is shown.
VISIBLE_FIGURES = """
function background(element) {
  for (let e = element; e; e = e.parentElement) {
    const colour = getComputedStyle(e).backgroundColor;
    const alpha = colour.match(/rgba\\([^)]*,\\s*([\\d.]+)\\)/);
    if (colour !== "transparent" && !(alpha && parseFloat(alpha[1]) === 0)) return colour;
  }
  return getComputedStyle(document.documentElement).backgroundColor;
}
const shown = img => img.checkVisibility() && img.getBoundingClientRect().width > 0;
const figures = Array.from(document.querySelectorAll("main .cell_output"));
return {
  theme: document.documentElement.dataset.theme,
  page: background(document.querySelector("main")),
  figures: figures.map(output => {
    const images = Array.from(output.querySelectorAll("img"));
    const visible = images.filter(shown);
    return {count: images.length, shown: visible.length, alts: new Set(images.map(i => i.alt)).size,
            background: visible.length ? background(visible[0]) : null};
  }).filter(f => f.count > 0),
};
"""


def _rgb(css):
    """'rgb(20, 24, 30)' or 'rgba(...)' -> (20, 24, 30)."""
    return tuple(int(float(v)) for v in re.findall(r"[\d.]+", css)[:3])


def _luminance(rgb):
    """WCAG relative luminance of sRGB colours (..., 3) in 0..255."""
    import numpy as np

    c = np.asarray(rgb, float) / 255.0
    c = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


def _contrast(first, second):
    import numpy as np

    l1, l2 = _luminance(first), _luminance(second)
    return (np.maximum(l1, l2) + 0.05) / (np.minimum(l1, l2) + 0.05)


def figure_contrast(pixels):
    """(most common colour, its contrast with the strongest grey ink) of a figure's screenshot (H, W, 3).

    The grey ink is the figure's text, axes and ticks (chroma below 24 of 255, which leaves out the coloured data);
    its strongest 1 % are the cores of the strokes, which antialiasing and downscaling have not blended.
    """
    import numpy as np

    flat = pixels.reshape(-1, 3).astype(int)
    colours, counts = np.unique(flat, axis=0, return_counts=True)
    modal = tuple(int(v) for v in colours[counts.argmax()])
    grey = flat[(flat.max(axis=1) - flat.min(axis=1)) < 24]
    against = _contrast(grey, modal)
    ink = against[against > 1.5]
    return modal, (float(np.percentile(ink, 99)) if ink.size else 1.0)


def test_figure_contrast_measures():
    """The measure the mode test uses: a black-on-white and a light-on-dark figure pass, a white box does not."""
    import numpy as np

    light = np.full((40, 60, 3), 255, np.uint8)
    light[10:12, 5:55] = 0  # an axis
    modal, text = figure_contrast(light)
    assert modal == (255, 255, 255) and text == pytest.approx(21.0)
    dark = np.full((40, 60, 3), (20, 24, 30), np.uint8)
    dark[10:12, 5:55] = (206, 214, 221)
    modal, text = figure_contrast(dark)
    assert modal == (20, 24, 30) and 11 < text < 13
    assert _contrast((255, 255, 255), (20, 24, 30)) > 15 > SAME_BACKGROUND  # the white box on the dark page
    faint = np.full((40, 60, 3), (20, 24, 30), np.uint8)
    faint[10:12, 5:55] = (70, 74, 80)  # grey text too dark for the dark page
    assert figure_contrast(faint)[1] < TEXT_CONTRAST


@pytest.mark.parametrize("mode", ["light", "dark"])
def test_figures_read_in_both_colour_modes(mode, server, browser):
    """In light and in dark mode every figure of a chapter shows one image, on the page's own background, with
    text and axes of text contrast against it (book/_ext/figure_dark_mode.py). Screenshots of the chapter in each
    mode go to _build/screenshots/."""
    import io

    import numpy as np
    from PIL import Image

    browser.get(server + MODES_PAGE)
    browser.execute_script(SET_MODE, mode)
    load_page(browser, server + MODES_PAGE)  # loaded again: the page starts in the stored mode
    browser.execute_script(SET_MODE, mode)  # and stays there whatever a script of the page did meanwhile
    facts = browser.execute_script(VISIBLE_FIGURES)
    assert facts["theme"] == mode, f"the page did not switch to {mode} mode: data-theme={facts['theme']!r}"
    page = _rgb(facts["page"])
    figures = facts["figures"]
    assert len(figures) > 3, f"{MODES_PAGE}: only {len(figures)} figures"
    problems = [f"figure {i + 1}: {f['shown']} of its {f['count']} images shown" for i, f in enumerate(figures)
                if f["shown"] != 1]
    problems += [f"figure {i + 1}: its images have different alternative texts" for i, f in enumerate(figures)
                 if f["alts"] != 1]
    images = browser.execute_script(
        "return Array.from(document.querySelectorAll('main .cell_output img')).filter(i => i.checkVisibility())")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for index, image in enumerate(images):
        browser.execute_script("arguments[0].scrollIntoView({block: 'center'})", image)
        if index == 1:  # the chapter's second figure, mid-screen, as a reader sees it
            browser.save_screenshot(str(SCREENSHOTS / f"{Path(MODES_PAGE).stem}-{mode}.png"))
        pixels = np.asarray(Image.open(io.BytesIO(image.screenshot_as_png)).convert("RGB"))
        modal, text = figure_contrast(pixels)
        if _contrast(modal, page) >= SAME_BACKGROUND:
            problems.append(f"figure {index + 1}: background {modal} on the page's {page}: "
                            f"contrast {_contrast(modal, page):.2f}:1, not below {SAME_BACKGROUND}")
        if text < TEXT_CONTRAST:
            problems.append(f"figure {index + 1}: text and axes at {text:.2f}:1 against the figure's background "
                            f"{modal}, below {TEXT_CONTRAST}:1")
    assert not problems, f"{MODES_PAGE} in {mode} mode:\n  " + "\n  ".join(problems)


def test_index_leads_to_the_introduction(server, browser):
    from selenium.webdriver.support.ui import WebDriverWait

    browser.get(server + "index.html")
    WebDriverWait(browser, 20).until(lambda d: d.current_url.endswith("book/intro.html"))
    assert "Machine Learning" in browser.title


def test_search_finds_gradient_descent(server, browser):
    browser.get(server + "search.html?q=gradient+descent")
    found = browser.execute_async_script("""
        const done = arguments[arguments.length - 1];
        const start = Date.now();
        (function poll() {  // Sphinx adds results one by one, then reports "Search finished"
          const status = (document.querySelector("#search-results .search-summary") || {}).textContent || "";
          const finished = /found|did not match/.test(status);
          if (finished || Date.now() - start > 30000) {
            done(Array.from(document.querySelectorAll("#search-results li a")).map(a => a.href));
          } else { setTimeout(poll, 200); }
        })();
    """)
    assert found, "search for 'gradient descent' returned no results"
    assert any("01_linear_regression" in href for href in found), f"chapter 1 not among the results: {found}"


def _configured_repository_url():
    import yaml

    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    return str((config.get("repository") or {}).get("url") or "").strip()


def test_header_links_to_a_repository_only_when_one_is_configured(server, browser):
    """No invented address: the repository and issue buttons exist exactly when repository.url is set."""
    browser.get(server + "book/intro.html")
    hrefs = browser.execute_script("""
        return Array.from(document.querySelectorAll(
            '.header-article a, .bd-header-article a, .article-header-buttons a'))
          .map(a => a.href).filter(h => /^https?:/.test(h) && !h.startsWith(location.origin));""")
    url = _configured_repository_url()
    if not url:
        assert not hrefs, f"the header links to {hrefs} although repository.url in _config.yml is empty"
    else:
        assert any(h.startswith(url) for h in hrefs), f"repository.url is {url} but the header links to {hrefs}"


def test_the_appendix_is_lettered_not_numbered():
    """book/_ext/appendix_numbering.py: the appendix, last in a numbered part, is "A" everywhere, never the number
    after the last chapter's."""
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    chapters = [c for part in toc["parts"] if part.get("numbered") for c in part["chapters"]]
    would_be = len(chapters)  # the appendix is the last numbered page: without the extension it is chapter N
    page = (HTML / "notebooks" / "A_preliminaries.html").read_text(encoding="utf-8")
    intro = (HTML / "book" / "intro.html").read_text(encoding="utf-8")
    assert "A. </span>Mathematical preliminaries" in page  # the heading
    assert ">A. Mathematical preliminaries<" in intro  # the sidebar
    assert "(A.1)" in page and "Fig. A.1" in page  # equations and figures
    assert not re.search(rf"\({would_be}\.\d+\)|Fig\. {would_be}\.\d", page)
