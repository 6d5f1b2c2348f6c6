"""Equation numbers agree between the book and JupyterLab, and none typed by hand can drift.

The book (Sphinx) numbers only the labelled display equations, ``$$ … $$ (eq-label)``; JupyterLab (jupyterlab-myst)
numbers every ``$$ … $$``. So a display equation that the book leaves unnumbered is written as a starred amsmath
environment, ``\\begin{equation*} … \\end{equation*}``, which neither numbers. Within a chapter the prose cites
equations by label ({eq}`eq-label`), which both number alike; the numbers that are typed by hand are

* the texts of links to another chapter's equations, ``[(7.11)](07_transformers.ipynb#eq-sinusoidal)``, and of
  links to figures, ``[Figure 9.2](#fig-optimal-discriminator)``: each must be the number of its target;
* the numbers in code (comments, legends, prints) and in figure captions, ``eq. (9.2)``: each must be the number of
  an equation that the prose of the same section cites or displays by label, so that a renumbering, which moves
  the labels' numbers, leaves no code quoting the old one.

tests/lab/test_lab.py reads the numbers JupyterLab shows and compares them with the book's.
"""

import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
from equations_index import equations  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9A-Z]*_*.ipynb"))
NUMBER_OF = {label: f"{chapter}.{k}" for chapter, k, label, _, _ in equations()}
CHAPTERS = {chapter for chapter, *_ in equations()}

DISPLAY = re.compile(r"\$\$(.*?)\$\$([ \t]*\((eq-[\w-]+)\))?", re.S)
ENVIRONMENT = re.compile(r"(?m)^[ \t]*\\begin\{((?:equation|align|alignat|gather|multline|flalign|eqnarray)\*?)\}")
CITED = re.compile(r"\{eq\}`(eq-[\w-]+)`|\]\([\w.]*#(eq-[\w-]+)\)")
LINK = re.compile(r"\[([^\]]*)\]\(([\w.]*)#((?:eq|fig)-[\w-]+)\)")
TYPED = re.compile(r"\((\d+|[A-Z])\.([1-9]\d*)\)")
HEADING = re.compile(r"(?m)^#{1,6} ")


def _markdown(nb):
    return [(i, c.source) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"]


def _math_free(text):
    return DISPLAY.sub(" ", text)


def figure_numbers():
    """{figure name: "8.2"}: the book numbers a chapter's figures in order, from the cells' mystnb metadata."""
    numbers = {}
    for path in NOTEBOOKS:
        chapter = path.name.split("_")[0].lstrip("0")
        nb = nbformat.read(path, as_version=4)
        names = [c.metadata["mystnb"]["figure"]["name"] for c in nb.cells
                 if c.cell_type == "code" and "name" in c.metadata.get("mystnb", {}).get("figure", {})]
        numbers.update({name: f"{chapter}.{k}" for k, name in enumerate(names, start=1)})
    return numbers


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_jupyterlab_numbers_only_the_equations_the_book_numbers(path):
    nb = nbformat.read(path, as_version=4)
    unlabelled, numbered_environments = [], []
    for i, text in _markdown(nb):
        unlabelled += [f"cell {i}: $${m.group(1)[:60]!r}…" for m in DISPLAY.finditer(text) if not m.group(2)]
        numbered_environments += [f"cell {i}: \\begin{{{env}}}" for env in ENVIRONMENT.findall(_math_free(text))
                                  if not env.endswith("*")]
    assert not unlabelled, (
        f"{path.name}: display equations without a label, which JupyterLab numbers and the book does not; give each "
        "a label, $$ … $$ (eq-name), or write it as \\begin{equation*} … \\end{equation*}:\n" + "\n".join(unlabelled))
    assert not numbered_environments, (
        f"{path.name}: unstarred amsmath environments, numbered differently by the two; star them:\n"
        + "\n".join(numbered_environments))


def test_the_numbering_is_read_from_every_chapter():
    """The test's own sanity: every chapter has labelled equations, numbered from 1 without gaps."""
    assert CHAPTERS == {path.name.split("_")[0].lstrip("0") for path in NOTEBOOKS}
    assert NUMBER_OF["eq-gan-value"] == "9.1" and len(NUMBER_OF) == len(set(NUMBER_OF.values()))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_link_texts_give_their_targets_numbers(path):
    nb = nbformat.read(path, as_version=4)
    figures = figure_numbers()
    wrong = []
    for i, text in _markdown(nb):
        for shown, page, target in LINK.findall(text):
            number = NUMBER_OF.get(target) if target.startswith("eq-") else figures.get(target)
            if number is None:
                wrong.append(f"cell {i}: [{shown}]({page}#{target}): no such equation or figure")
                continue
            typed = re.findall(r"(\d+|[A-Z])\.(\d+)", shown)
            if typed and any(f"{a}.{b}" != number for a, b in typed):
                wrong.append(f"cell {i}: [{shown}]({page}#{target}) is ({number})")
    assert not wrong, f"{path.name}: link texts that do not give their target's number:\n" + "\n".join(wrong)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_numbers_typed_in_code_name_equations_the_section_cites(path):
    nb = nbformat.read(path, as_version=4)
    cited, stale = set(), []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown":
            if HEADING.search(_math_free(cell.source)):
                cited = set()
            cited |= {m.group(3) for m in DISPLAY.finditer(cell.source) if m.group(3)}
            cited |= {a or b for a, b in CITED.findall(cell.source)}
            continue
        caption = cell.metadata.get("mystnb", {}).get("figure", {}).get("caption", "")
        numbers = {NUMBER_OF[label] for label in cited}
        for where, text in (("code", cell.source), ("caption", caption)):
            for chapter, k in TYPED.findall(text):
                if chapter in CHAPTERS and f"{chapter}.{k}" not in numbers:
                    stale.append(f"cell {i} ({where}): ({chapter}.{k}); the section cites "
                                 + (", ".join(f"({n})" for n in sorted(numbers)) or "no equation"))
    assert not stale, (
        f"{path.name}: equation numbers typed into code or captions that the prose of their section does not cite "
        "by label (cite the equation by {eq}`label` in the prose above, or drop the number):\n" + "\n".join(stale))
