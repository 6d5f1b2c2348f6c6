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


def test_student_copies_are_written_then_kept_once_changed(tmp_path, capsys):
    """A student's work survives a second `make student`; an untouched copy follows the book; --refresh backs up."""
    import datetime

    source, target = tmp_path / "notebooks", tmp_path / "student"
    source.mkdir()
    for path in NOTEBOOKS[:2]:
        (source / path.name).write_bytes(path.read_bytes())
    first, second = sorted(p.name for p in source.glob("*.ipynb"))

    assert set(make_student.write_copies(source, target).values()) == {"written"}
    assert set(make_student.write_copies(source, target).values()) == {"up to date"}

    work = target / first  # the student answers an exercise and saves
    nb = nbformat.read(work, as_version=4)
    nb.cells.append(nbformat.v4.new_code_cell("answer = 42  # my work"))
    nbformat.write(nb, work)
    changed = work.read_bytes()
    book_nb = nbformat.read(source / second, as_version=4)  # meanwhile the book changes the other chapter
    book_nb.cells.append(nbformat.v4.new_markdown_cell("A new paragraph."))
    nbformat.write(book_nb, source / second)

    report = make_student.write_copies(source, target)
    assert report == {first: "kept", second: "updated"}
    assert work.read_bytes() == changed
    assert "A new paragraph." in (target / second).read_text(encoding="utf-8")

    make_student.main([str(source), str(target)])  # the command line says what it kept and how to refresh
    out = capsys.readouterr().out
    assert f"{first}: kept" in out and "REFRESH=1" in out

    report = make_student.write_copies(source, target, refresh=True, now=datetime.datetime(2026, 1, 2, 3, 4, 5))
    backup = target / "backup" / f"{work.stem}-20260102-030405.ipynb"
    assert report[first].startswith("replaced") and str(backup) in report[first]
    assert backup.read_bytes() == changed and "my work" not in work.read_text(encoding="utf-8")
    assert make_student.write_copies(source, target)[first] == "up to date"  # the fresh copy counts as untouched


def test_student_folder_is_ignored_by_git_and_survives_make_clean():
    assert "/student/" in (ROOT / ".gitignore").read_text(encoding="utf-8").split()
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    clean = re.search(r"^clean:\n((?:\t.*\n)+)", makefile, flags=re.M).group(1)
    distclean = re.search(r"^distclean:.*\n((?:\t.*\n)+)", makefile, flags=re.M).group(1)
    assert "student" not in clean + distclean
