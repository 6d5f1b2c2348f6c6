"""The nbval extension of tools/nbval_book.py: its tolerance must catch real differences, and its cache records."""

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_cache import get_cache

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import nbval_book  # noqa: E402

# --- the comparison, unit by unit -----------------------------------------------------------------------------

def test_numbers_within_tolerance_take_the_stored_digits():
    stored = "RNN       0.0097    0.0632    0.1775\n"
    fresh = "RNN       0.0097    0.0639    0.1775\n"
    assert nbval_book.reconcile(stored, fresh, 0.05) == stored


def test_a_number_beyond_the_tolerance_stays_different():
    stored, fresh = "loss 0.0632 at T = 10\n", "loss 0.0700 at T = 10\n"
    assert nbval_book.reconcile(stored, fresh, 0.05) == fresh


def test_a_changed_word_or_a_missing_line_is_left_for_the_exact_comparison():
    stored = "loss 0.0632 at T = 10\nloss 0.1700 at T = 20\n"
    assert nbval_book.reconcile(stored, "cost 0.0633 at T = 10\nloss 0.1700 at T = 20\n", 0.05).startswith("cost")
    missing = "loss 0.0633 at T = 10\n"
    assert nbval_book.reconcile(stored, missing, 0.05) == missing


def test_integers_and_signs_are_numbers_too():
    assert nbval_book.reconcile("step 100: -2.00", "step 101: -2.01", 0.05) == "step 100: -2.00"
    assert nbval_book.reconcile("gain 1.0", "gain -1.0", 0.05) == "gain -1.0"


def test_non_finite_numbers_match_only_themselves():
    assert nbval_book.numbers_close("1e309", "1e309", 0.1)
    assert not nbval_book.numbers_close("1e309", "1e308", 0.1)


@pytest.mark.parametrize("tags, expected", [([], None), (["hide-input"], None), (["nbval-rtol=0.05"], 0.05)])
def test_cell_rtol_reads_the_tag(tags, expected):
    assert nbval_book.cell_rtol({"metadata": {"tags": tags}}) == expected


@pytest.mark.parametrize("tags, message", [(["nbval-rtol=five"], "a number R"),
                                           (["nbval-rtol=2"], "between 0 and 1"),
                                           (["nbval-rtol=0.1", "nbval-rtol=0.2"], "several")])
def test_cell_rtol_rejects_bad_tags(tags, message):
    with pytest.raises(ValueError, match=message):
        nbval_book.cell_rtol({"metadata": {"tags": tags}})


# --- a real nbval run on a planted notebook -----------------------------------------------------------------------

def _notebook(cells):
    """A notebook whose code cells print ``fresh`` and store ``stored``, tagged as given."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    for count, (fresh, stored, tags) in enumerate(cells, start=1):
        cell = nbformat.v4.new_code_cell(f"print({fresh!r}, end='')", execution_count=count)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=stored)]
        cell.metadata["tags"] = tags
        nb.cells.append(cell)
    return nb


def _run_nbval(tmp_path, nb, *args):
    """Run strict nbval with the extension on ``nb`` in a separate pytest; (outcome counts, output, path)."""
    path = tmp_path / "planted.ipynb"
    nbformat.write(nb, path)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tools")}
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "nbval_book", "--nbval", "--nbval-current-env",
                          "-p", "no:cacheprovider", "-rf", str(path), *args],
                         cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed)", run.stdout.splitlines()[-1])}
    return counts, run.stdout, path


TOL = ["nbval-rtol=0.05"]


def test_tolerance_passes_what_it_should_and_fails_real_differences(tmp_path):
    cells = [
        ("loss 0.1000 after 10 steps", "loss 0.1030 after 10 steps", TOL),  # 0: within 5 %: passes
        ("loss 0.1000 after 10 steps", "loss 0.1000 after 10 steps", []),  # 1: identical, untagged: passes
        ("loss 0.1000 after 10 steps", "loss 0.1200 after 10 steps", TOL),  # 2: a digit beyond 5 %: fails
        ("loss 0.1000 after 10 steps", "cost 0.1000 after 10 steps", TOL),  # 3: a changed word: fails
        ("loss 0.1000 after 10 steps", "loss 0.1000 after 10 steps\nloss 0.0500 after 20", TOL),  # 4: line missing
        ("loss 0.1000 after 10 steps", "loss 0.1030 after 10 steps", []),  # 5: no tag, exact: fails
    ]
    counts, output, _ = _run_nbval(tmp_path, _notebook(cells))
    assert counts == {"passed": 2, "failed": 4}, output
    assert set(re.findall(r"^FAILED \S+::Cell (\d+)", output, flags=re.MULTILINE)) == {"2", "3", "4", "5"}


def test_record_cache_stores_the_fresh_outputs_of_a_passing_notebook(tmp_path):
    cache_dir = tmp_path / "cache"
    nb = _notebook([("loss 0.1000", "loss 0.1020", TOL), ("done", "done", [])])
    counts, output, path = _run_nbval(tmp_path, nb, "--nbval-record-cache", str(cache_dir))
    assert counts == {"passed": 2}, output
    _, merged = get_cache(str(cache_dir)).merge_match_into_notebook(nbformat.read(path, as_version=4))
    assert [cell.outputs[0].text for cell in merged.cells] == ["loss 0.1000", "done"]  # this run's, not stored
    assert [cell.execution_count for cell in merged.cells] == [1, 2]


def test_record_cache_skips_a_failing_notebook(tmp_path):
    cache_dir = tmp_path / "cache"
    nb = _notebook([("loss 0.1000", "loss 0.2000", TOL)])
    counts, output, path = _run_nbval(tmp_path, nb, "--nbval-record-cache", str(cache_dir))
    assert counts == {"failed": 1}, output
    with pytest.raises(KeyError):
        get_cache(str(cache_dir)).match_cache_notebook(nbformat.read(path, as_version=4))


def test_a_cell_without_a_stored_execution_fails_instead_of_being_skipped(tmp_path):
    """Cleared outputs (JupyterLab's Clear Outputs, an output stripper) leave nothing to compare: strict nbval fails.

    An empty cell and one tagged skip-execution, which make execute never runs, are exempt.
    """
    cache_dir = tmp_path / "cache"
    nb = _notebook([("x = 1", "x = 1", []), ("loss 0.1000", "loss 0.1000", []), ("done", "done", [])])
    for cell in nb.cells[1:]:
        cell.outputs, cell.execution_count = [], None
    nb.cells.append(nbformat.v4.new_code_cell("   "))
    skipped = nbformat.v4.new_code_cell("print('slow', end='')")
    skipped.metadata["tags"] = ["skip-execution"]
    nb.cells.append(skipped)
    counts, output, path = _run_nbval(tmp_path, nb, "--nbval-record-cache", str(cache_dir))
    assert counts == {"passed": 3, "failed": 2}, output
    assert set(re.findall(r"^FAILED \S+::Cell (\d+)", output, flags=re.MULTILINE)) == {"1", "2"}
    assert "No stored execution to compare with" in output and "make execute" in output
    with pytest.raises(KeyError):  # and the book is not given this run as the notebook's
        get_cache(str(cache_dir)).match_cache_notebook(nbformat.read(path, as_version=4))
