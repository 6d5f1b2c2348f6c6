"""The notebooks as a reader sees them in JupyterLab: every chapter opened in a real client, in headless Chromium.

``make lab`` is one of the book's three uses, so the test starts JupyterLab from the venv (with the jupyterlab-myst
extension that requirements.txt pins), opens every chapter of ``_toc.yml`` and reads what its markdown cells
render to. It fails on MyST that was left raw (a label line ``(x)=``, a role such as ``{cite}``, a directive fence
or option, TeX outside the typeset formulas, a ``~module.name`` target), on a reference or citation the client
could not resolve, on a formula KaTeX could not typeset, on a taught listing (a ``show_source`` cell) that
shows no code, on an equation number or a figure number and caption (tools/lab_extension) that differs from the
book's. JupyterLab serves the repository as ``make lab`` does, with a student copy made for the test; chapter 9 is
opened from notebooks/ and from student/, and from each it follows one link of every kind (a figure, an equation
and a section of the chapter, another chapter, a citation, the API reference, another page of the book) and
checks that the target is in the window. Screenshots go to ``_build/screenshots/lab-*.png``: each chapter's first
screen, and for chapter 1 the listing of ``add_bias`` and its first exercise.

It runs in ``make test`` beside the site test and under the same rule: without Chromium it is skipped with a
one-line reason, except under CI, where that is a failure (tests/browser_support.py).
"""

import json
import os
import secrets
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from browser_support import require_browser, start_chrome  # noqa: E402

sys.path.insert(0, str(ROOT / "tools"))
from equations_index import LABEL, equations  # noqa: E402

BOOK_NUMBER = {label: f"({chapter}.{k})" for chapter, k, label, _, _ in equations()}

SCREENSHOTS = ROOT / "_build" / "screenshots"


def _toc_notebooks():
    import yaml

    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    files = [ch["file"] for part in toc["parts"] for ch in part["chapters"]]
    return [ROOT / f"{f}.ipynb" for f in files if (ROOT / f"{f}.ipynb").exists()]


NOTEBOOKS = _toc_notebooks()
# What the test opens: every chapter, and two chapters as a student copy (solutions removed, in student/).
OPENED = [f"notebooks/{p.name}" for p in NOTEBOOKS] + [f"student/{p.name}" for p in NOTEBOOKS
                                                     if p.name.startswith(("05_", "09_"))]
require_browser("JupyterLab test")

# JupyterLab's user settings for the test: render every cell, not only those on screen (windowing would leave
# the others unrendered), and no news or update pop-up over the notebook.
LAB_SETTINGS = {
    "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    "@jupyterlab/apputils-extension/notification.jupyterlab-settings": {"fetchNews": "false",
                                                                        "checkForUpdates": False},
}


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _served_tree(home):
    """What ``make lab`` and ``make lab-student`` serve: the repository, with a fresh student copy in student/.

    The repository's own entries are linked, not copied, and the student copies are made by tools/make_student.py
    into the served folder, so the test never writes into the repository (where a reader's student/ may be).
    """
    tree = home / "repository"
    tree.mkdir()
    for entry in ROOT.iterdir():
        if entry.name not in ("student", ".git"):
            (tree / entry.name).symlink_to(entry)
    subprocess.run([sys.executable, str(ROOT / "tools" / "make_student.py"), str(ROOT / "notebooks"),
                    str(tree / "student")], check=True, capture_output=True)
    return tree


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """JupyterLab from the venv, serving the repository (with a student copy) on 127.0.0.1; yields (URL, token)."""
    home = tmp_path_factory.mktemp("lab")
    tree = _served_tree(home)
    for name, values in LAB_SETTINGS.items():
        path = home / "settings" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(values), encoding="utf-8")
    port, token = _free_port(), secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env.update(JUPYTERLAB_SETTINGS_DIR=str(home / "settings"), JUPYTER_CONFIG_DIR=str(home / "config"),
               OPENBLAS_NUM_THREADS="1")
    command = [str(Path(sys.executable).parent / "jupyter-lab"), "--no-browser", f"--port={port}",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={tree}"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")
    log = (home / "lab.log").open("w")
    server = subprocess.Popen(command, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
            break
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                server.kill()
                pytest.fail(f"JupyterLab did not start: {(home / 'lab.log').read_text()[-2000:]}", pytrace=False)
            time.sleep(0.5)
    yield base, token, tree
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
    log.close()


@pytest.fixture(scope="module")
def browser():
    driver = start_chrome(window_size="1400,1800")
    driver.set_script_timeout(90)  # FOLLOW gives up after 60 s; the driver's own read timeout is 120 s
    yield driver
    driver.quit()


# How far JupyterLab has got with the notebook: its markdown cells, those rendered by jupyterlab-myst, and the figure
# captions that tools/lab_extension has numbered.
LAB_PROGRESS = """
const cells = document.querySelectorAll('.jp-Notebook .jp-MarkdownCell');
const rendered = document.querySelectorAll('.jp-Notebook .jp-MarkdownCell .myst');
const captioned = Array.from(document.querySelectorAll('.jp-Notebook .mlfs-figure-caption'))
  .filter(f => f.textContent.trim().startsWith('Fig. ')).length;
return [cells.length, rendered.length, captioned];
"""


def wait_for_notebook(browser, expected, figures):
    """[markdown cells, rendered ones] once JupyterLab shows the whole notebook, or what it shows when it stalls.

    JupyterLab renders a long notebook's cells a few at a time while the page is idle, so on a loaded machine the count
    may still be rising after a minute and a half (37 of 66 seen under CI with other jobs running): give up when the
    count has stood still for 60 s, or after 6 minutes in all. The figure captions come after the cells (seen under
    CI: the first caption numbered and six still empty 1.5 s after the last cell), so wait for those too. The polling
    runs here, one short script at a time: a single asynchronous script that waits minutes outlives the driver's
    120-second read timeout (seen under CI on chapter 7).
    """
    start = time.monotonic()
    last, since = None, start
    while True:
        cells, rendered, captioned = browser.execute_script(LAB_PROGRESS)
        now = time.monotonic()
        if (cells, rendered, captioned) != last:
            last, since = (cells, rendered, captioned), now
        if (cells == expected and rendered == expected and captioned == figures) or now - since > 60 \
                or now - start > 360:
            break
        time.sleep(0.25)
    time.sleep(1.5)  # let KaTeX and references settle
    return [cells, rendered]


# What a reader sees: each markdown cell's rendered text outside formulas and code, and each code cell's input and
# output text.
LAB_FACTS = """
function prose(el) {
  const copy = el.cloneNode(true);
  copy.querySelectorAll('.katex, pre, code').forEach(e => e.remove());
  return copy.innerText;
}
const markdown = Array.from(document.querySelectorAll('.jp-Notebook .jp-MarkdownCell .myst'));
const displays = markdown.flatMap(m => Array.from(m.querySelectorAll('.katex-display')));
return {
  // [id, number shown beside it or ''] for every display equation
  equations: displays.map(k => {
    const box = k.closest('div.group');
    const number = box ? box.querySelector(':scope > div.select-none a') : null;
    return [box ? box.id : '', number ? number.innerText.trim() : ''];
  }),
  prose: markdown.map(prose),
  unresolved: markdown.flatMap(m => Array.from(m.querySelectorAll('.text-yellow-600'))).map(e => e.innerText),
  katexErrors: markdown.flatMap(m => Array.from(m.querySelectorAll('.katex-error'))).map(e => e.textContent),
  // [id, text] of the figure captions that tools/lab_extension adds below the figures' cells
  figures: Array.from(document.querySelectorAll('.jp-Notebook .mlfs-figure-caption'))
    .map(f => [f.id, f.textContent.trim().split(/\\s+/).slice(0, 2).join(' ')]),  // "Fig. 8.2" (whole characters:
  // a slice of the caption could cut a mathematical letter in two, which the driver cannot pass back)
  // every link of the prose: [href as written by the renderer, text]
  links: markdown.flatMap(m => Array.from(m.querySelectorAll('a[href]')))
    .map(a => [a.getAttribute('href'), a.innerText.trim()]),
  code: Array.from(document.querySelectorAll('.jp-Notebook .jp-CodeCell')).map(c => ({
    input: (c.querySelector('.cm-content') || {}).innerText || '',
    output: (c.querySelector('.jp-OutputArea') || {}).innerText || '',
  })),
};
"""

RAW_MYST = {
    "a label line (x)=": r"(?m)^\s*\([\w-]+\)=\s*$",
    "a role such as {cite} or {eq}": r"\{[a-z][\w:-]*\}",
    "a directive fence": r"```|:::",
    "a directive option such as :label:": r"(?m)^\s*:[a-z][\w-]*:",
    "TeX outside a formula": r"\\[A-Za-z]+|\$[^$\s][^$]*\$",  # a command, or $...$ (a lone $ is a currency)
    "a ~module.name target": r"~[A-Za-z_]+\.",
}


def _raw_myst(texts):
    import re

    found = []
    for number, text in enumerate(texts):
        for what, pattern in RAW_MYST.items():
            match = re.search(pattern, text)
            if match:
                start = max(match.start() - 40, 0)
                found.append(f"markdown cell {number}: {what}: ...{text[start:match.end() + 40]!r}")
    return found


# Click the first link of the visible notebook to the file arguments[0] ('' for the notebook itself) and the anchor
# arguments[1] ('' for none), then wait until the document in
# front shows the element of arguments[1] (an anchor, or '' for a page without one) inside the window; returns
# [title of the tab in front, top of the target or null, seconds].
FOLLOW = """
const [name, anchor, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
const notebook = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden)');
const link = Array.from(notebook.querySelectorAll('.jp-MarkdownCell .myst a[href]')).find(a => {
  const href = a.getAttribute('href');
  return href.split('#')[0].split('?')[0].endsWith(name) && (!anchor || href.endsWith('#' + anchor));
});
if (!link) { done(['no link', null, 0]); return; }
link.scrollIntoView({block: 'center'});
link.click();
const start = Date.now();
(function poll() {
  const front = document.querySelector('.lm-DockPanel-widget:not(.lm-mod-hidden)');
  const tab = (document.querySelector('.lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current') || {}).innerText || '';
  const made = anchor.toLowerCase().replace(/[^a-z0-9-]+/g, '-');
  const element = anchor && front && (front.querySelector(`[id="${CSS.escape(anchor)}"]`) ||
                                      front.querySelector(`[id="${CSS.escape(made)}"]`));
  const top = element ? element.getBoundingClientRect().top : null;
  const landed = anchor ? (top !== null && top >= 0 && top < window.innerHeight) : tab.length > 0;
  if ((landed && Date.now() - start > 2500) || Date.now() - start > 60000) {  // under the script timeout of 90 s
    done([tab.trim(), top, (Date.now() - start) / 1000]);
  } else { setTimeout(poll, 250); }
})();
"""

# The kinds of link a chapter has, each followed once: (kind, pattern of the href as JupyterLab writes it).
LINK_KINDS = [
    ("a figure of the chapter", r"^#fig-"),
    ("an equation of the chapter", r"^#eq-"),
    ("a section of the chapter", r"^#sec-"),
    ("another chapter", r"\.ipynb\?.*#"),
    ("a citation", r"bibliography\.md\?.*#"),
    ("the API reference", r"api\.md\?.*#"),
    ("another page of the book", r"book/(?!bibliography|api)\w+\.md"),
]


def _to_front(browser, name):
    from selenium.webdriver.common.by import By

    for tab in browser.find_elements(By.CSS_SELECTOR, ".lm-DockPanel-tabBar .lm-TabBar-tab"):
        if tab.text.strip() == name:
            tab.click()
            break
    time.sleep(1)
    front = browser.execute_script(
        "return (document.querySelector('.lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current') || {}).innerText")
    assert front and front.strip() == name, f"could not bring {name} to the front (in front: {front!r})"
    time.sleep(1)


def _follow_each_kind_of_link(browser, notebook_name, links):
    """Follow the first link of each kind from the chapter's tab; [problem] for each that went nowhere."""
    import re

    problems = []
    for kind, pattern in LINK_KINDS:
        href = next((h for h, _ in links if re.search(pattern, h)), None)
        if href is None:
            continue
        path, _, anchor = href.partition("#")
        _to_front(browser, notebook_name)  # the chapter stays open and rendered in its tab
        name = path.split("?")[0].rsplit("/", 1)[-1]
        tab, top, seconds = browser.execute_async_script(FOLLOW, name, anchor)
        print(f"followed {kind}: {name}#{anchor} -> tab {tab!r}, target at {top} px after {seconds} s")
        if anchor and (top is None or top < 0):
            problems.append(f"{kind}: the link to {name}#{anchor} did not land on its target (tab {tab!r})")
        elif name and name not in tab:
            problems.append(f"{kind}: the link to {name} opened {tab!r}")
    return problems


def _scroll_to(browser, text):
    browser.execute_script("""
        const cell = Array.from(document.querySelectorAll('.jp-Notebook .jp-Cell'))
          .find(c => c.innerText.includes(arguments[0]));
        if (cell) cell.scrollIntoView({block: 'start'});""", text)
    time.sleep(0.5)


@pytest.mark.parametrize("opened", OPENED, ids=lambda p: p.removesuffix(".ipynb"))
def test_notebook_reads_right_in_jupyterlab(opened, lab, browser):
    base, token, tree = lab
    notebook = tree / opened
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    markdown_sources = ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "markdown"]
    figure_names = [c["metadata"]["mystnb"]["figure"]["name"] for c in nb["cells"]
                    if c["cell_type"] == "code" and "name" in c["metadata"].get("mystnb", {}).get("figure", {})]

    # ?reset: a fresh workspace, so the chapters opened before this one are not open in hidden tabs
    url = f"{base}/lab/tree/{opened}?reset&token={token}"
    browser.get(url)
    counts = wait_for_notebook(browser, len(markdown_sources), len(figure_names))
    if counts != [len(markdown_sources)] * 2:
        # Seen once in about a hundred loads under a full `make test`: 58 of 61 cells rendered and then no more, and the
        # same notebook rendered completely on the next load. Reload once and say so; a second shortfall fails.
        print(f"{notebook.name}: {counts[1]} of {counts[0]} markdown cells rendered on the first load; reloading")
        browser.get(url)
        counts = wait_for_notebook(browser, len(markdown_sources), len(figure_names))
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shot = f"lab-{notebook.stem}" + ("-student" if opened.startswith("student/") else "")
    browser.save_screenshot(str(SCREENSHOTS / f"{shot}.png"))  # before any assertion
    assert counts == [len(markdown_sources)] * 2, (
        f"{notebook.name}: {counts[1]} of {counts[0]} markdown cells rendered by jupyterlab-myst, "
        f"{len(markdown_sources)} expected (is jupyterlab-myst installed?)")
    facts = browser.execute_script(LAB_FACTS)

    problems = _raw_myst(facts["prose"])
    problems += [f"a reference JupyterLab cannot resolve: {text!r}" for text in facts["unresolved"]]
    problems += [f"a formula that did not typeset: {text[:80]!r}" for text in facts["katexErrors"]]
    problems += [f"a literalinclude, which shows nothing in JupyterLab: {s[s.index('{literalinclude}'):][:80]!r}"
                 for s in markdown_sources if "{literalinclude}" in s]
    listings = [c for c in facts["code"] if "show_source(" in c["input"]]
    if not listings:
        problems.append("no taught function is shown from its source (a show_source cell)")
    problems += [f"a taught listing that shows no code: {c['input']!r}" for c in listings
                 if not any(line.startswith(("def ", "class ", "@")) for line in c["output"].splitlines())]
    labels = [m.group(1) for source in markdown_sources for m in LABEL.finditer(source)]
    shown = [(label, number) for label, number in facts["equations"] if number]
    expected = [(label, BOOK_NUMBER[label]) for label in labels]
    if shown != expected:
        problems.append(f"equation numbers differ from the book's: JupyterLab shows {shown}, the book {expected}")
    chapter = notebook.name.split("_")[0].lstrip("0")
    expected_figures = [(name, f"Fig. {chapter}.{k}") for k, name in enumerate(figure_names, start=1)]
    shown_figures = [tuple(figure) for figure in facts["figures"]]
    if shown_figures != expected_figures:
        problems.append(f"figure numbers differ from the book's: JupyterLab shows {shown_figures}, "
                        f"the book {expected_figures}")
    if notebook.name.startswith("09_"):  # every kind of link once, from the chapter and from its student copy
        problems += _follow_each_kind_of_link(browser, notebook.name, facts["links"])
    assert not problems, f"{opened} in JupyterLab:\n" + "\n".join(problems)

    if opened.startswith("notebooks/01_"):  # the closing note's pictures: a listing and an exercise
        _scroll_to(browser, "def add_bias")
        browser.save_screenshot(str(SCREENSHOTS / "lab-01-add_bias.png"))
        _scroll_to(browser, "The averaged gradient")
        browser.save_screenshot(str(SCREENSHOTS / "lab-01-exercise.png"))
