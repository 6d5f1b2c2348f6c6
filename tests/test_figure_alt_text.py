"""Every figure of the book says what it shows to a reader who cannot see it.

A figure's alternative text lives beside the cell that draws it, in the cell metadata MyST-NB reads for images
(``mystnb.image.alt``, written into the page's ``<img alt>``). The site test checks the built pages; this test
checks the notebooks themselves, so a new figure without a description fails in seconds, before any build.
"""

import re
from pathlib import Path

import nbformat
import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))  # chapters and appendices


def figure_cells(path):
    """(code-cell index, cell) for every code cell that stores an image output."""
    cells = [cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]
    return [(i, cell) for i, cell in enumerate(cells)
            if any(key.startswith("image/") for output in cell.get("outputs", []) for key in output.get("data", {}))]


def alt_text_problem(alt, caption):
    """Why ``alt`` does not describe a figure, or None when it does."""
    if not isinstance(alt, str) or not alt.strip():
        return "no alternative text (cell metadata mystnb.image.alt)"
    one_word = len(alt.split()) == 1
    if (re.search(r"\w\.(png|svg|jpe?g|gif)\b", alt, flags=re.IGNORECASE) or "_images/" in alt
            or (one_word and "/" in alt)):
        return f"the alternative text looks like a file name or a path: {alt!r}"
    if len(alt.split()) < 12:
        return f"the alternative text is too short to say what is plotted against what: {alt!r}"
    if "$" in alt or "\\" in alt:
        return f"the alternative text contains LaTeX, which is not typeset in alt text: {alt!r}"
    if caption and alt.strip() == caption.strip():
        return "the alternative text repeats the caption instead of describing the image"
    return None


def test_the_book_has_figures():
    assert sum(len(figure_cells(path)) for path in NOTEBOOKS) >= 40


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_figure_has_a_description(path):
    problems = []
    for i, cell in figure_cells(path):
        mystnb = cell.metadata.get("mystnb", {})
        problem = alt_text_problem(mystnb.get("image", {}).get("alt"), mystnb.get("figure", {}).get("caption"))
        if problem:
            problems.append(f"code cell {i}: {problem}")
    assert not problems, f"{path.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize(("alt", "caption"), [
    (None, None),
    ("", None),
    ("../_images/65ce08ab.png", None),
    ("figure.png", None),
    ("The figure in images/fig_cost.png shows the cost falling with each update of gradient descent", None),
    ("A plot.", None),
    (r"The cost $J(\mathbf{w})$ falls with every update of gradient descent on a log scale", None),
    ("Price against area for fifteen flats: the points rise roughly along a straight line.",
     "Price against area for fifteen flats: the points rise roughly along a straight line."),
])
def test_the_check_rejects_what_a_screen_reader_cannot_use(alt, caption):
    assert alt_text_problem(alt, caption) is not None


def test_the_check_accepts_a_description():
    alt = ("Scatter plot of asking price in thousands of euros against living area in square metres; the points "
           "rise roughly along a straight line.")
    assert alt_text_problem(alt, "Asking price against living area.") is None
