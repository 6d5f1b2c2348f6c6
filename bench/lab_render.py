"""How long JupyterLab takes to render a chapter's markdown cells in headless Chromium, with and without the
jupyterlab-myst extension (nothing is asserted; the JupyterLab test's time is mostly this).

Usage: python bench/lab_render.py [notebooks/01_linear_regression.ipynb ...] [--repeats N]

For each notebook, in each of the two set-ups, JupyterLab opens it on a fresh page and the script counts, every
quarter of a second, the markdown cells and those already rendered; the time is from the page request to the moment
all are rendered. "with jupyterlab-myst" is how the book's JupyterLab test and a reader see the chapters (MyST
rendering: numbered equations, figure captions, cross-references); "without" disables that extension (and the book's
own, which needs it), so the cells get JupyterLab's plain Markdown renderer. Both render every cell
(``windowingMode: none``), as the test does. The set-ups alternate notebook by notebook, so a slow spell of the
machine falls on both. Needs Chromium and chromium-driver.
"""

import argparse
import json
import os
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))
from browser_support import start_chrome  # noqa: E402

SETUPS = {"with jupyterlab-myst": ({}, ".myst"),
          "without": ({"jupyterlab-myst": True, "mlfs-lab": True}, ".jp-RenderedMarkdown")}
COUNT = "return [document.querySelectorAll('.jp-Notebook .jp-MarkdownCell').length, " \
        "document.querySelectorAll('.jp-Notebook .jp-MarkdownCell {}').length];"


def _start_lab(disabled):
    """JupyterLab from the venv on 127.0.0.1, serving the repository, with ``disabled`` extensions; (server, URL)."""
    home = Path(tempfile.mkdtemp(prefix="lab-render-"))
    settings = home / "settings" / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings"
    settings.parent.mkdir(parents=True)
    settings.write_text(json.dumps({"windowingMode": "none"}))
    (home / "config" / "labconfig").mkdir(parents=True)
    (home / "config" / "labconfig" / "page_config.json").write_text(json.dumps({"disabledExtensions": disabled}))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    token = secrets.token_hex(16)
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    env.update(JUPYTERLAB_SETTINGS_DIR=str(home / "settings"), JUPYTER_CONFIG_DIR=str(home / "config"))
    command = [str(Path(sys.executable).parent / "jupyter-lab"), "--no-browser", f"--port={port}",
               "--ServerApp.ip=127.0.0.1", f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={ROOT}"]
    if hasattr(os, "getuid") and os.getuid() == 0:
        command.append("--allow-root")
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    for _ in range(180):
        try:
            urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=5)
            return server, base, token
        except OSError:
            time.sleep(0.5)
    server.kill()
    raise RuntimeError("JupyterLab did not start within 90 s")


def render_seconds(browser, base, token, notebook, rendered_selector, limit=300):
    """Seconds from requesting ``notebook`` to every markdown cell rendered (None after ``limit`` seconds)."""
    start = time.monotonic()
    browser.get(f"{base}/lab/tree/notebooks/{notebook}?reset&token={token}")
    while time.monotonic() - start < limit:
        cells, rendered = browser.execute_script(COUNT.format(rendered_selector))
        if cells and rendered == cells:
            return time.monotonic() - start
        time.sleep(0.25)
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", default=["01_linear_regression.ipynb",
                                                         "05_convolutional_networks.ipynb"])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    labs = {name: _start_lab(disabled) for name, (disabled, _) in SETUPS.items()}
    browser = start_chrome(window_size="1400,1800")
    try:
        for notebook in (Path(n).name for n in args.notebooks):
            for _ in range(args.repeats):
                for name, (_, selector) in SETUPS.items():
                    _, base, token = labs[name]
                    seconds = render_seconds(browser, base, token, notebook, selector)
                    shown = "over 300 s" if seconds is None else f"{seconds:.1f} s"
                    print(f"{notebook}, {name}: every markdown cell rendered after {shown}", flush=True)
    finally:
        browser.quit()
        for server, _, _ in labs.values():
            server.terminate()


if __name__ == "__main__":
    main()
