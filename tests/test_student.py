"""Tests of tools/make_student.py on the book's own notebooks."""

import importlib.util
import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("make_student", ROOT / "tools" / "make_student.py")
make_student = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_student)
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_student_copy_keeps_exercises_and_stubs_but_no_solution(path):
    nb = nbformat.read(path, as_version=4)
    exercises = sum(c.source.count("{exercise}") for c in nb.cells if c.cell_type == "markdown")
    student, removed = make_student.strip_solutions(nb)
    assert removed == exercises >= 3
    text = "\n".join(c.source for c in student.cells)
    assert "{solution-start}" not in text and "{solution-end}" not in text
    assert text.count("{exercise}") == exercises  # every exercise statement survives
    stubs = [c for c in student.cells if c.cell_type == "code" and "raise NotImplementedError" in c.source]
    names = {re.search(r"def (\w+)\(", c.source).group(1) for c in stubs}
    assert len(stubs) >= 1
    for cell in student.cells:  # no solution: every definition of an exercise function is its stub
        if cell.cell_type == "code":
            for name in re.findall(r"^def (\w+)\(", cell.source, flags=re.M):
                if name in names:
                    assert "raise NotImplementedError" in cell.source, f"{path.stem}: solution of {name} left"
    nbformat.validate(student)


def test_unclosed_solution_is_an_error():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("```{solution-start} ex-x\n:class: dropdown\n```"),
                nbformat.v4.new_code_cell("answer = 42")]
    with pytest.raises(ValueError, match="never closed"):
        make_student.strip_solutions(nb)
