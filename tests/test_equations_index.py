"""book/equations.md must be what tools/equations_index.py generates from the current sources."""

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("equations_index", ROOT / "tools" / "equations_index.py")
equations_index = importlib.util.module_from_spec(spec)
spec.loader.exec_module(equations_index)


def test_equations_page_is_up_to_date():
    expected = equations_index.render()  # also fails if a docstring cites an equation the book lacks
    assert equations_index.PAGE.read_text(encoding="utf-8") == expected, (
        "book/equations.md is out of date: run `python tools/equations_index.py`")


def test_citations_are_parsed_in_all_their_forms():
    cited = equations_index.cited_numbers
    assert cited("eq. (4.1)") == {("4", 1)}
    assert cited("eqs. (1.16) and (1.22)") == {("1", 16), ("1", 22)}
    assert cited("eqs. (2.3)–(2.5)") == {("2", 3), ("2", 4), ("2", 5)}
    assert cited("eq. (A.7)") == {("A", 7)}
    assert cited("eqs. (A.2)–(A.3)") == {("A", 2), ("A", 3)}
    assert cited("no equation here, just (3.2)") == set()


def test_every_chapter_and_the_appendix_have_equations_and_most_are_implemented():
    eqs = equations_index.equations()
    assert {c for c, *_ in eqs} == {"1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "A"}
    implemented = equations_index.implementations()
    assert sum((c, k) in implemented for c, k, *_ in eqs) >= 0.6 * len(eqs)
