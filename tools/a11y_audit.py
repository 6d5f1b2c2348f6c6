"""Audit a built book for accessibility, page by page, and print what axe-core finds as tables.

    .venv/bin/python tools/a11y_audit.py                      # _build/html
    .venv/bin/python tools/a11y_audit.py /tmp/x/_build/html --mode dark --json findings.json

Every HTML page of the folder (except ``_static/`` and redirect pages such as ``index.html``) is served on
127.0.0.1 and opened in headless Chromium (tests/browser_support.py); once MathJax has typeset it, axe-core runs
with the WCAG 2.0/2.1 A and AA rules and axe's best practices (tests/site/a11y.py, the same audit as the site
test's). The output has one table per impact level (violating nodes, pages), one per rule, and the images whose
alternative text is missing, a file name or a path. ``--mode dark`` audits the pages in the theme's dark mode.
``--verbose`` prints every violation of every page with an example element.

The site test fails on critical and serious violations only; this tool shows all of them, so an author can see
the moderate and minor ones too. The exit status is 1 when a critical or serious violation or an image without
alternative text is found, else 0.
"""

from __future__ import annotations

import argparse
import functools
import http.server
import json
import sys
import threading
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tests"), str(ROOT / "tests" / "site")]
import a11y  # noqa: E402
from browser_support import missing_browser, start_chrome  # noqa: E402


def book_pages(html: Path) -> list[str]:
    """The pages of a built book, as paths relative to its folder; redirects and _static/ left out."""
    pages = []
    for path in sorted(html.rglob("*.html")):
        rel = path.relative_to(html).as_posix()
        if rel.startswith("_static/") or 'http-equiv="Refresh"' in path.read_text(encoding="utf-8")[:2000]:
            continue
        pages.append(rel)
    return pages


def serve(html: Path):
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Quiet, directory=str(html)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    return httpd, f"http://127.0.0.1:{httpd.server_address[1]}/"


def set_mode(driver, base: str, mode: str) -> None:
    """Make the theme (pydata-sphinx-theme) show every following page in ``mode`` (light or dark)."""
    driver.get(base + "search.html")
    driver.execute_script("localStorage.setItem('mode', arguments[0]); localStorage.setItem('theme', arguments[0]);",
                          mode)


def audit(html: Path, pages: list[str], mode: str | None = None) -> dict[str, dict]:
    """{page: {"violations": [...], "images": [...]}} for each page."""
    httpd, base = serve(html)
    driver = start_chrome()
    try:
        if mode:
            set_mode(driver, base, mode)
        found = {}
        for page in pages:
            driver.get(base + page)
            driver.execute_async_script(a11y.WAIT_FOR_MATHJAX)
            if mode:
                shown = driver.execute_script("return document.documentElement.dataset.theme")
                if shown != mode:
                    raise SystemExit(f"{page}: the theme shows {shown!r}, not {mode!r}")
            found[page] = {"violations": a11y.axe_violations(driver), "images": a11y.image_alt_problems(driver)}
        return found
    finally:
        driver.quit()
        httpd.shutdown()


def table(header: list[str], rows: list[list]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows, strict=False)]
    line = lambda r: "  ".join(str(x).ljust(w) for x, w in zip(r, widths, strict=True))  # noqa: E731
    return "\n".join([line(header), line(["-" * w for w in widths])] + [line(r) for r in rows])


def summarize(found: dict[str, dict], verbose: bool = False) -> str:
    by_rule = defaultdict(lambda: {"impact": None, "nodes": 0, "pages": set()})
    by_impact = {i: {"nodes": 0, "pages": set()} for i in a11y.IMPACTS}
    for page, result in found.items():
        for v in result["violations"]:
            rule = by_rule[v["id"]]
            rule["impact"] = v["impact"]
            rule["nodes"] += len(v["nodes"])
            rule["pages"].add(page)
            by_impact[v["impact"]]["nodes"] += len(v["nodes"])
            by_impact[v["impact"]]["pages"].add(page)
    out = [f"axe-core {a11y.AXE_VERSION} {a11y.AXE_TAGS} on {len(found)} pages", ""]
    out.append(table(["impact", "nodes", "pages"],
                     [[i, by_impact[i]["nodes"], len(by_impact[i]["pages"])] for i in a11y.IMPACTS]))
    out.append("")
    rows = sorted(by_rule.items(), key=lambda kv: (a11y.IMPACTS.index(kv[1]["impact"]), kv[0]))
    out.append(table(["rule", "impact", "nodes", "pages"],
                     [[r, d["impact"], d["nodes"], len(d["pages"])] for r, d in rows]) if rows else "no violations")
    images = {page: r["images"] for page, r in found.items() if r["images"]}
    out.append("")
    out.append(f"images without alternative text: {sum(map(len, images.values()))} on {len(images)} pages")
    for page, problems in images.items():
        out.append(f"  {page}: {len(problems)}, e.g. {problems[0]}")
    if verbose:
        for page, result in found.items():
            for line in a11y.describe(result["violations"]):
                out.append(f"{page}: {line}")
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("html", nargs="?", type=Path, default=ROOT / "_build" / "html", help="the built book")
    parser.add_argument("--pages", nargs="*", help="only these pages (paths relative to the folder)")
    parser.add_argument("--mode", choices=["light", "dark"], help="the theme's colour mode (default: the book's)")
    parser.add_argument("--json", type=Path, help="also write every page's violations here")
    parser.add_argument("--verbose", action="store_true", help="every violation of every page")
    args = parser.parse_args(argv)
    if not (args.html / "index.html").exists():
        parser.error(f"{args.html} holds no built book (index.html): build it first (make book)")
    if missing_browser():
        parser.error(missing_browser())
    found = audit(args.html, args.pages or book_pages(args.html), args.mode)
    print(summarize(found, args.verbose))
    if args.json:
        args.json.write_text(json.dumps(found, indent=1), encoding="utf-8")
    failing = any(a11y.blocking(r["violations"]) or r["images"] for r in found.values())
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
