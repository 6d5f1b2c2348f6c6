"""The PDF edition read back: ``make pdf`` must have written a book, not a dump of the HTML pages.

Run after ``make pdf`` (``make test`` builds the PDF, with Sphinx warnings as errors, then runs this module). It reads
the PDF with poppler's ``pdftotext`` and checks that

* the title page, the contents and the parts are there, and every chapter and appendix of ``_toc.yml`` opens on its
  own page under its number ("CHAPTER ONE", "APPENDIX A") with its title, in the book's order;
* nothing is unresolved: no "??" in the text, and XeLaTeX's log reports no undefined reference or citation and no
  character missing from a font;
* equations and figures are numbered as in the HTML book: each chapter's equation tags run up to its last labelled
  equation, (1.31) or (A.17), with its own number or letter, and so do its figure captions;
* solutions are in their appendix, each linked from its exercise, and not printed under the exercises;
* figures print at 200 pixels per inch or more (``pdfimages``), and no line runs more than 10 pt into the margin;
* the page count is plausible for the book's chapters.

``pdftoppm`` renders the first page of every chapter to ``_build/pdf-pages/`` (one PNG each, to look at), and each
must show something. The PDF tested is ``_build/latex/machine-learning-from-scratch.pdf``, or the file named by the
environment variable ``BOOK_PDF``; its LaTeX log is the ``.log`` beside it.

The poppler tools come from Debian's ``poppler-utils`` (tools/tex-packages.txt). Without them the module is skipped
with a one-line reason, unless the environment variable ``CI`` is set: in CI they are installed, and missing ones
are a failure.
"""

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
from browser_support import under_ci  # noqa: E402

PDF = Path(os.environ.get("BOOK_PDF") or ROOT / "_build" / "latex" / "machine-learning-from-scratch.pdf").resolve()
LOG = PDF.with_suffix(".log")
RENDERED = ROOT / "_build" / "pdf-pages"
POPPLER = ("pdftotext", "pdftoppm", "pdfimages", "pdfinfo")
NUMBER_WORDS = ("ZERO", "ONE", "TWO", "THREE", "FOUR", "FIVE", "SIX", "SEVEN", "EIGHT", "NINE", "TEN", "ELEVEN",
                "TWELVE")

_missing = [tool for tool in POPPLER if shutil.which(tool) is None]
if _missing:
    _reason = f"{', '.join(_missing)} not found (apt-get install poppler-utils)"
    if under_ci():
        pytest.fail(f"PDF test cannot run under CI: {_reason}", pytrace=False)
    pytest.skip(f"PDF test skipped: {_reason}", allow_module_level=True)

_spec = importlib.util.spec_from_file_location("equations_index", ROOT / "tools" / "equations_index.py")
equations_index = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(equations_index)


def _chapters():
    """[(number as printed, title, heading)] of every chapter and appendix, from the notebooks, in book order."""
    chapters = {}
    for chapter, _, _, title, _ in equations_index.equations():
        chapters.setdefault(chapter, title)
    return [(number, title, f"CHAPTER {NUMBER_WORDS[int(number)]}" if number.isdigit() else f"APPENDIX {number}")
            for number, title in chapters.items()]


CHAPTERS = _chapters()


def _flat(text):
    return re.sub(r"\s+", " ", text).strip()


@pytest.fixture(scope="module")
def pages():
    """The text of every page, as pdftotext lays it out."""
    if not PDF.exists():
        pytest.fail(f"{PDF} does not exist: build the PDF first (make pdf).", pytrace=False)
    text = subprocess.run(["pdftotext", "-layout", str(PDF), "-"], capture_output=True, text=True, check=True).stdout
    return text.split("\f")[:-1]  # pdftotext ends every page with a form feed


@pytest.fixture(scope="module")
def log():
    if not LOG.exists():
        pytest.fail(f"{LOG} does not exist: build the PDF first (make pdf).", pytrace=False)
    return LOG.read_text(encoding="utf-8", errors="replace")


def _opening_page(pages, heading, title):
    """The index of the page that opens a chapter: its heading and title at the top."""
    wanted = _flat(f"{heading} {title}").upper()
    hits = [i for i, page in enumerate(pages) if _flat(page[:600]).upper().startswith(wanted)]
    assert len(hits) == 1, f"expected one page opening with {wanted!r}, found {len(hits)}: pages {hits}"
    return hits[0]


def test_title_page_contents_and_parts(pages):
    assert _flat(pages[0]).startswith("Machine Learning from scratch Santiago Toro and contributors")
    contents = next(i for i, page in enumerate(pages) if _flat(page).upper().startswith("CONTENTS"))
    toc = "\n".join(pages[contents:contents + 8])
    for number, title, _ in CHAPTERS:
        assert re.search(rf"^\s*{number}\s+{re.escape(title)}\s+\d+\s*$", toc, re.M), (
            f"the contents do not list {number} {title!r} with a page number")
    for part in ("I Supervised learning", "II Unsupervised learning", "III Appendix"):
        assert any(_flat(page).startswith(f"Part {part}") for page in pages), f"no part page {part!r}"
    for unnumbered in ("Preface", "Setup", "Notation", "Bibliography"):
        assert re.search(rf"^{unnumbered}\s+\d+\s*$", toc, re.M), f"the contents do not list {unnumbered!r}"


def test_every_chapter_opens_under_its_number_in_book_order(pages):
    openings = [_opening_page(pages, heading, title) for _, title, heading in CHAPTERS]
    solutions = _opening_page(pages, "APPENDIX B", "Solutions to the exercises")
    bibliography = max(i for i, page in enumerate(pages) if _flat(page[:200]).upper().startswith("BIBLIOGRAPHY"))
    assert openings == sorted(openings) and openings[-1] < solutions < bibliography
    assert "Aronszajn" in "".join(pages[bibliography:]), "the bibliography has no entries"


def test_nothing_is_unresolved_or_missing_from_a_font(pages, log):
    unresolved = [i + 1 for i, page in enumerate(pages) if "??" in page]
    assert not unresolved, f"'??' (an unresolved reference) on pages {unresolved}"
    flat = log.replace("\n", "")
    undefined = sorted(set(re.findall(r"(?:Reference|Citation|Hyper reference) `([^']+)' on page \d+ undefined", flat)))
    assert not undefined, f"XeLaTeX found undefined references: {undefined[:10]}"
    missing = sorted(set(re.findall(r"Missing character: There is no (\S+) \(U\+([0-9A-F]+)\)", log)))
    assert not missing, (f"characters missing from the fonts: {missing}; add them to FALLBACK_GLYPHS in "
                         "book/_ext/pdf_edition.py with a font that has them")


def _chapter_pages(pages):
    """{chapter: its pages}, from its opening page to the next chapter's (the last one to the solutions)."""
    starts = [_opening_page(pages, heading, title) for _, title, heading in CHAPTERS]
    starts.append(_opening_page(pages, "APPENDIX B", "Solutions to the exercises"))
    return {number: pages[start:end] for (number, _, _), start, end in zip(CHAPTERS, starts, starts[1:], strict=False)}


def test_equations_and_figures_are_numbered_as_in_the_html_book(pages):
    """Each chapter's equation tags, (1.1) ... (1.31) or (A.1) ... (A.17), and figure captions carry its number."""
    last = {}
    for chapter, number, *_ in equations_index.equations():
        last[chapter] = number
    for chapter, chapter_pages in _chapter_pages(pages).items():
        lines = [line for page in chapter_pages for line in page.splitlines()]
        # An equation's tag ends its line, far to the right of the formula.
        tags = {(m[1], int(m[2])) for line in lines if (m := re.search(r"\s{6,}\(([0-9A-Z]+)\.(\d+)\)\s*$", line))}
        expected = {(chapter, k) for k in range(1, last[chapter] + 1)}
        assert tags <= expected, (f"chapter {chapter} prints equation numbers the HTML book does not have: "
                                  f"{sorted(tags - expected)[:5]}")
        assert (chapter, last[chapter]) in tags and len(tags) >= 0.75 * len(expected), (
            f"chapter {chapter}: found the tags of only {len(tags)} of its {len(expected)} equations")
        captions = {m[1] for line in lines for m in re.finditer(r"Fig\. ([0-9A-Z]+)\.\d+:", line)}
        assert captions == {chapter}, f"figure captions in chapter {chapter} are numbered {sorted(captions)}"


def test_solutions_are_in_their_appendix_and_linked_from_each_exercise(pages):
    start = _opening_page(pages, "APPENDIX B", "Solutions to the exercises")
    before = [i + 1 for i, page in enumerate(pages[:start]) if "Solution to Exercise" in page]
    assert not before, f"a solution is printed under its exercise on pages {before}"
    solutions = sum(page.count("Solution to Exercise") for page in pages[start:])
    links = sum(page.count("Solution on page") for page in pages[:start])
    exercises = sum(len(re.findall(r"^\s*Exercise [\dA-Z]+\.\d+ \(", page, re.M)) for page in pages[:start])
    assert solutions >= 30, f"only {solutions} solutions in the appendix of solutions"
    assert links == solutions, f"{links} exercises link to a solution, but the appendix has {solutions}"
    assert exercises >= solutions, f"{exercises} exercise boxes for {solutions} solutions"
    # The check cells' reminder before an attempt (implementations/notebook/exercises.py) is left out of the PDF.
    stubs = [i + 1 for i, page in enumerate(pages) if "is not implemented yet" in page]
    assert not stubs, f"an exercise stub's 'not implemented yet' reminder is printed on pages {stubs}"


def test_figures_print_at_200_pixels_per_inch_or_more():
    listing = subprocess.run(["pdfimages", "-list", str(PDF)], capture_output=True, text=True, check=True).stdout
    rows = [line.split() for line in listing.splitlines()[2:]]
    images = [(int(row[0]), int(row[12]), int(row[13])) for row in rows if len(row) > 13 and row[2] == "image"]
    assert len(images) >= 80, f"only {len(images)} images in the PDF"
    coarse = [(page, x_ppi) for page, x_ppi, y_ppi in images if min(x_ppi, y_ppi) < 195]
    assert not coarse, (f"figures below print resolution (page, pixels per inch): {coarse[:10]}; the book's builds "
                        "store figures at MLFS_FIGURE_SCALE=2 (Makefile BOOK_ENV): was the cache filled without it?")


def test_no_line_runs_into_the_margin(log):
    overfull = [float(width) for width in re.findall(r"Overfull \\hbox \(([\d.]+)pt too wide\)", log)]
    wide = sorted((width for width in overfull if width > 10), reverse=True)
    assert not wide, (f"{len(wide)} lines run more than 10 pt into the margin (widest {wide[0]:.0f} pt); the log "
                      f"{LOG} says where (Overfull \\hbox)")


def test_the_page_count_is_plausible(pages):
    chapters = len(CHAPTERS)
    assert 25 * chapters <= len(pages) <= 120 * chapters, f"{len(pages)} pages for {chapters} chapters"


def test_the_first_page_of_every_chapter_renders(pages):
    from PIL import Image

    RENDERED.mkdir(parents=True, exist_ok=True)
    for number, title, heading in CHAPTERS:
        page = _opening_page(pages, heading, title) + 1
        stem = RENDERED / f"chapter-{number}"
        subprocess.run(["pdftoppm", "-r", "60", "-f", str(page), "-l", str(page), "-png", "-singlefile", str(PDF),
                        str(stem)], check=True)
        image = Image.open(stem.with_suffix(".png")).convert("L")
        ink = sum(count for value, count in enumerate(image.histogram()) if value < 128) / (image.width * image.height)
        assert ink > 0.01, f"page {page} (chapter {number}) renders almost blank: {ink:.1%} dark pixels"
