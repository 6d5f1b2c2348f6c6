"""The slips a reader or a contributor can make, each ending in one line that names its cause and its fix
(tools/preflight.py, the Makefile's cache-check and install, tools/run_nbval.py).

Every damage is done to a copy in a temporary folder: a fake notebook, a fake cache, a copy of a data file, a tiny
book built with the real Makefile. The repository's own data/, notebooks/ and _build/ are only read.
"""

import hashlib
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_cache import get_cache
from jupyter_cache.base import CacheBundleIn

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import preflight  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
BIN = Path(sys.executable).parent


def _one_line(text):
    lines = [line for line in text.splitlines() if line.strip()]
    assert len(lines) == 1, text
    return lines[0]


# --- 1. every notebook stores a top-to-bottom run ---------------------------------------------------------------------

@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_notebook_stores_a_top_to_bottom_run(path):
    """What make execute leaves: an execution count on every code cell, 1, 2, 3, ... in order."""
    problem = preflight.notebook_problem(path)
    assert problem is None, problem


def _executed(n=4, tags=None):
    """A notebook of ``n`` code cells as make execute stores it (counts 1..n, one output each)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells.append(nbformat.v4.new_markdown_cell("# A chapter"))
    for count in range(1, n + 1):
        cell = nbformat.v4.new_code_cell(f"print({count})", execution_count=count)
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=f"{count}\n")]
        nb.cells.append(cell)
    return nb


def _write(tmp_path, nb, name="chapter.ipynb"):
    path = tmp_path / name
    nbformat.write(nb, path)
    return path


def _clear(cell):
    """JupyterLab's Clear Outputs (and nbstripout): no outputs, no execution count."""
    cell.outputs = []
    cell.execution_count = None


def test_a_notebook_as_make_execute_stores_it_passes(tmp_path):
    assert preflight.notebook_problem(_write(tmp_path, _executed())) is None


@pytest.mark.parametrize("stripped", [False, True], ids=["cleared-in-jupyterlab", "output-stripping-tool"])
def test_cleared_outputs_are_named_by_cell_with_make_execute(tmp_path, stripped):
    nb = _executed(4)
    for cell in nb.cells[2:]:  # code cells 2-4
        _clear(cell)
    if stripped:  # nbstripout also drops the notebook's and the cells' metadata
        nb.metadata = {}
        for cell in nb.cells:
            cell.metadata = {}
    message = preflight.notebook_problem(_write(tmp_path, nb))
    assert "code cells 2-4 (of 4) have no outputs and no execution count" in message
    assert "make execute" in message and "\n" not in message
    assert "git checkout" not in message  # not in a git checkout: nothing to drop


def test_a_cell_with_outputs_but_no_count_is_named_too(tmp_path):
    nb = _executed(3)
    nb.cells[2].execution_count = None
    message = preflight.notebook_problem(_write(tmp_path, nb))
    assert "code cells 2 (of 3) have no execution count" in message and "make execute" in message


def test_a_notebook_run_out_of_order_in_jupyterlab_is_refused(tmp_path):
    nb = _executed(4)
    nb.cells[2].execution_count = 9  # code cell 2 re-run by hand after the others
    message = preflight.notebook_problem(_write(tmp_path, nb))
    assert "not 1, 2, 3, ... in order (code cell 2 has [9])" in message
    assert "saved after running cells by hand" in message and "make execute" in message


def test_empty_and_skip_execution_cells_are_exempt(tmp_path):
    """make execute never runs them, so they keep no execution count."""
    nb = _executed(2)
    nb.cells.insert(2, nbformat.v4.new_code_cell("  \n"))
    skipped = nbformat.v4.new_code_cell("slow()")
    skipped.metadata["tags"] = ["skip-execution"]
    nb.cells.append(skipped)
    assert preflight.notebook_problem(_write(tmp_path, nb)) is None


def test_a_notebook_left_with_a_merge_conflict_is_named(tmp_path):
    path = tmp_path / "chapter.ipynb"
    path.write_text('{\n<<<<<<< HEAD\n "cells": []\n=======\n', encoding="utf-8")
    message = preflight.notebook_problem(path)
    assert "is not a readable notebook" in message and "git checkout -- " in message


def test_git_names_the_undo_of_an_edited_notebook(tmp_path):
    """In a git checkout, a notebook with uncommitted changes is offered both remedies."""
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    path = _write(tmp_path, _executed(3))
    for command in (["init", "-q"], ["add", "chapter.ipynb"], ["commit", "-q", "-m", "x"]):
        subprocess.run(["git", *command], cwd=tmp_path, env=env, check=True, capture_output=True)
    nb = nbformat.read(path, as_version=4)
    _clear(nb.cells[3])
    nbformat.write(nb, path)
    message = preflight.notebook_problem(path)
    assert "make execute" in message and "`git checkout -- " in message
    assert "chapter.ipynb` to drop your edits" in message


def test_run_nbval_refuses_before_running_anything(tmp_path):
    nb = _executed(3)
    for cell in nb.cells[1:]:
        _clear(cell)
    _write(tmp_path, nb)
    _write(tmp_path, _executed(2), "other.ipynb")
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "run_nbval.py"), str(tmp_path)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 1
    line = _one_line(result.stdout)  # no nbval run started, and the healthy notebook is not named
    assert "chapter.ipynb: code cells 1-3 (of 3) have no outputs" in line and "make execute" in line


def _nbval_output(failures):
    """A pytest --nbval output as nbval writes it (colours included) for ``failures``: [(cell, nbval's reason)]."""
    sections = "".join(f"_____ notebooks/ch.ipynb::Cell {cell} _____\n\x1b[91mNotebook cell execution failed\x1b[0m\n"
                       f"\x1b[94mCell {cell}: {reason}\n\nInput:\n\x1b[0mprint(x)\n\n" for cell, reason in failures)
    summary = "".join(f"FAILED notebooks/ch.ipynb::Cell {cell} - \x1b[91mNotebook cell execution failed\x1b[0m\n"
                      for cell, _ in failures)
    return f"{sections}=== short test summary info ===\n{summary}{len(failures)} failed, 3 passed in 1.00s\n"


DIFFERS, RAISES = "Cell outputs differ", "Cell execution caused an exception"


def test_run_nbval_ends_a_failure_with_one_line_per_notebook():
    """After the runs' output, each failing notebook gets one line: its cells, what they did, the runs, the fix."""
    import run_nbval

    both = run_nbval.remedies([("native", False, "", 1, _nbval_output([(7, DIFFERS), (3, DIFFERS)])),
                               ("foreign", False, "", 1, _nbval_output([(3, DIFFERS)]))])
    assert both == ["notebooks/ch.ipynb: Cell 3, Cell 7 printed other outputs than the stored ones (native and "
                    "foreign runs, shown above): after a change to implementations/ or data/, store a fresh run with "
                    "`make execute` and review `git diff notebooks/`"]
    raised = run_nbval.remedies([("native", False, "", 1, _nbval_output([(2, RAISES), (5, DIFFERS)]))])
    assert raised[0].startswith("notebooks/ch.ipynb: Cell 2 raised an error and Cell 5 printed other outputs")
    assert raised[0].endswith("fix the code that raises (in implementations/ or the cell), then store a fresh run "
                              "with `make execute`")
    foreign = run_nbval.remedies([("native", True, "", 1, ""),
                                  ("foreign", False, "", 1, _nbval_output([(2, DIFFERS)]))])
    assert "Cell 2 printed other outputs than the stored ones (foreign run" in foreign[0]
    assert "book/contributing.md" in foreign[0]


# --- 2. a damaged execution cache -------------------------------------------------------------------------------------

def _cache(folder, notebooks=2):
    """A jupyter-cache at ``folder`` holding ``notebooks`` executed notebooks, written by jupyter-cache itself."""
    cache = get_cache(str(folder))
    for i in range(notebooks):
        nb = _executed(2)
        nb.cells[1].source = f"print({i})"
        cache.cache_notebook_bundle(CacheBundleIn(nb, f"/book/nb{i}.ipynb"), check_validity=False, overwrite=True)
    return folder


def _damage(folder, how):
    if how == "database truncated":  # a crash or a full disk while sqlite wrote it
        database = folder / "global.db"
        with open(database, "r+b") as f:
            f.truncate(database.stat().st_size // 3)
    elif how == "not a database":
        (folder / "global.db").write_bytes(b"\0garbage" * 1000)
    else:  # jupyter-cache writes the record, then the notebook: interrupted in between
        notebook = next((folder / "executed").glob("*/base.ipynb"))
        if how == "notebook missing":
            notebook.unlink()
        else:
            notebook.write_text(notebook.read_text(encoding="utf-8")[:100], encoding="utf-8")


def test_a_cache_written_by_jupyter_cache_is_healthy(tmp_path):
    """This also checks preflight's knowledge of jupyter-cache's layout (global.db, executed/<hashkey>/base.ipynb)."""
    folder = _cache(tmp_path / "cache")
    assert len(list((folder / "executed").glob("*/base.ipynb"))) == 2
    assert preflight.cache_problem(folder) is None
    assert preflight.cache_problem(tmp_path / "no-cache-yet") is None


DAMAGES = ["database truncated", "not a database", "notebook missing", "notebook cut short"]


@pytest.mark.parametrize("how", DAMAGES)
def test_a_damaged_cache_is_named_and_cleared_with_the_pages(tmp_path, how):
    folder = _cache(tmp_path / "cache")
    pages = tmp_path / "html"
    pages.mkdir()
    (pages / "index.html").write_text("old page")
    _damage(folder, how)
    said = preflight.clear_damaged_cache(folder, [pages, tmp_path / "absent"])
    assert said.startswith(f"the notebook cache {folder} is damaged (")
    assert {"database truncated": "malformed", "not a database": "not a database", "notebook missing": "is missing",
            "notebook cut short": "is cut short"}[how] in said
    assert "every notebook runs again" in said and "\n" not in said
    assert not folder.exists() and not pages.exists()


def test_a_locked_cache_is_not_mistaken_for_a_damaged_one(tmp_path):
    folder = _cache(tmp_path / "cache")
    holder = sqlite3.connect(folder / "global.db")
    holder.execute("BEGIN EXCLUSIVE")  # another build writing
    try:
        assert preflight.cache_problem(folder, timeout=0.1) is None
    finally:
        holder.rollback()
        holder.close()


# --- the build path, with the real Makefile, on a tiny book -----------------------------------------------------------

def _tiny_book(tmp_path):
    """A one-notebook book in ``tmp_path`` that the repository's Makefile can build (tools/ linked, a data/ folder)."""
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text("title: Tiny\nexecute:\n  execute_notebooks: cache\nonly_build_toc_files: true\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: chapter\n")
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# Chapter"), nbformat.v4.new_code_cell("print(6 * 7)")]
    nbformat.write(nb, book / "chapter.ipynb")
    (book / "tools").symlink_to(ROOT / "tools")
    (book / "data").mkdir()
    (book / "data" / "numbers.csv").write_text("x\n1\n2\n")
    digest = hashlib.sha256((book / "data" / "numbers.csv").read_bytes()).hexdigest()
    (book / "data" / "SHA256SUMS").write_text(f"{digest}  numbers.csv\n")
    return book


# A make of its own, not a sub-make of the make test that runs these tests: no inherited flags or jobserver.
MAKE_ENV = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKEOVERRIDES")}


def _make(book, target):
    """``make target`` with the repository's Makefile in ``book``, the running venv, and no install step."""
    return subprocess.run(["make", "--no-print-directory", "-f", str(ROOT / "Makefile"), "-o", "install",
                           f"VENV={sys.prefix}", target], cwd=book, env=MAKE_ENV, capture_output=True, text=True,
                          timeout=300)


def _run_cache_check(book):
    """The cache-check a first build leaves: the code hash stored, so the next one clears nothing for it."""
    result = _make(book, "cache-check")
    assert result.returncode == 0, result.stdout + result.stderr
    return result


@pytest.mark.skipif(not (BIN / "jupyter-book").exists(), reason="jupyter-book is not installed in this Python")
@pytest.mark.parametrize("how, said, traceback", [
    ("database truncated", "(global.db: database disk image is malformed)", "DatabaseError"),  # a crash, a full disk
    ("notebook cut short", "base.ipynb, which global.db records, is cut short)", "NotJSONError"),  # interrupted
], ids=["database-truncated", "interrupted-write"])
def test_make_book_rebuilds_a_damaged_cache_instead_of_ending_in_a_traceback(tmp_path, how, said, traceback):
    book = _tiny_book(tmp_path)
    _run_cache_check(book)
    nb = nbformat.read(book / "chapter.ipynb", as_version=4)  # the cache a build would leave, and then damaged
    nb.cells[1].outputs = [nbformat.v4.new_output("stream", name="stdout", text="42\n")]
    nb.cells[1].execution_count = 1
    _cache(book / "_build" / ".jupyter_cache", notebooks=0)
    get_cache(str(book / "_build" / ".jupyter_cache")).cache_notebook_bundle(
        CacheBundleIn(nb, str(book / "chapter.ipynb")), check_validity=False, overwrite=True)
    _damage(book / "_build" / ".jupyter_cache", how)

    result = _make(book, "book")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    line = next(line for line in result.stdout.splitlines() if line.startswith("the notebook cache"))
    assert line.startswith("the notebook cache _build/.jupyter_cache is damaged (") and said in line
    assert line.endswith("clearing it and the built pages, so that every notebook runs again")
    assert "Traceback" not in output and traceback not in output
    executed = nbformat.read(book / "_build" / "jupyter_execute" / "chapter.ipynb", as_version=4)
    assert executed.cells[1].outputs[0].text == "42\n"  # the notebook ran again
    assert preflight.cache_problem(book / "_build" / ".jupyter_cache") is None


# --- 3. a data file edited by hand ------------------------------------------------------------------------------------

@pytest.mark.parametrize("target", ["cache-check", "execute"])  # cache-check: what book, pdf and test run first
def test_an_edited_data_file_stops_the_build_in_one_line_before_the_cache_is_cleared(tmp_path, target):
    book = _tiny_book(tmp_path)
    _run_cache_check(book)
    (book / "_build" / ".jupyter_cache").mkdir()
    with open(book / "data" / "numbers.csv", "a") as f:
        f.write("3\n")
    result = _make(book, target)
    assert result.returncode != 0
    line = _one_line("\n".join(line for line in result.stderr.splitlines() if not MAKE_ERROR.match(line)))
    assert line == ("error: data/numbers.csv does not match its checksum in data/SHA256SUMS (edited by hand, or "
                    "truncated): restore it with `git checkout -- data/numbers.csv` or regenerate all data files "
                    "with `make data`")
    assert (book / "_build" / ".jupyter_cache").exists()  # restoring the file makes the old cache valid again


@pytest.mark.parametrize("target", ["book", "pdf", "test"])
def test_book_pdf_and_test_run_the_checks_before_anything_else(tmp_path, target):
    result = subprocess.run(["make", "-n", "--no-print-directory", "-f", str(ROOT / "Makefile"), "-o", "install",
                             f"VENV={sys.prefix}", target], cwd=tmp_path, env=MAKE_ENV, capture_output=True, text=True)
    commands = result.stdout.splitlines()
    first = [i for i, command in enumerate(commands) if "jupyter-book build" in command or "ruff check" in command]
    data = commands.index(f"{sys.prefix}/bin/python tools/preflight.py data data")
    cache = next(i for i, command in enumerate(commands) if "tools/preflight.py cache _build/.jupyter_cache" in command)
    assert first and data < cache < first[0], result.stdout


MAKE_ERROR = re.compile(r"make(\[\d+\])?: \*\*\* ")  # make's own "make: *** [...] Error 1" line


def test_data_problems_name_each_file_and_its_remedy(tmp_path):
    for name, content in [("a.csv", b"x\n1\n"), ("b.csv", b"y\n2\n"), ("model.npz", b"PK\x03\x04")]:
        (tmp_path / name).write_bytes(content)
    (tmp_path / "SHA256SUMS").write_text("".join(f"{hashlib.sha256((tmp_path / n).read_bytes()).hexdigest()}  {n}\n"
                                                 for n in ["a.csv", "b.csv", "model.npz"]))
    assert preflight.data_problems(tmp_path) == []
    (tmp_path / "a.csv").write_bytes(b"x\n1\n9\n")
    (tmp_path / "b.csv").unlink()
    (tmp_path / "model.npz").write_bytes(b"PK")
    problems = preflight.data_problems(tmp_path)
    assert len(problems) == 3 and not any("\n" in p for p in problems)
    assert "a.csv does not match its checksum" in problems[0] and "`git checkout -- data/a.csv`" in problems[0]
    assert "b.csv is missing" in problems[1] and "`make data`" in problems[1]
    assert "`make language-model`" in problems[2]
    (tmp_path / "SHA256SUMS").write_text("not a checksum\n")
    malformed = _one_line("\n".join(preflight.data_problems(tmp_path)))
    assert "restore it with `git checkout -- data/SHA256SUMS`" in malformed
    (tmp_path / "SHA256SUMS").unlink()
    assert "SHA256SUMS is missing" in _one_line("\n".join(preflight.data_problems(tmp_path)))


def test_the_repository_data_match_their_checksums():
    assert preflight.data_problems(ROOT / "data") == []


@pytest.mark.parametrize("name", ["houses.csv", "persuasion_tinygpt.npz"])
def test_the_loaders_and_the_build_give_an_edited_file_the_same_remedy_in_one_line(tmp_path, name):
    """In a notebook (make lab) the loader refuses an edited file; before a build, preflight does: the same fix."""
    from implementations.data import verify_checksum

    shutil.copy(ROOT / "data" / name, tmp_path / name)
    sums = (ROOT / "data" / "SHA256SUMS").read_text(encoding="ascii").splitlines()
    (tmp_path / "SHA256SUMS").write_text("".join(f"{line}\n" for line in sums if line.endswith(f"  {name}")))
    with open(tmp_path / name, "ab") as f:
        f.write(b"\n")
    with pytest.raises(ValueError) as refused:
        verify_checksum(tmp_path / name)
    loader, build = str(refused.value), _one_line("\n".join(preflight.data_problems(tmp_path)))
    assert "\n" not in loader
    remedies = [f"git checkout -- data/{name}", "make language-model" if name.endswith(".npz") else "make data"]
    for remedy in remedies:
        assert remedy in loader and remedy in build


# --- 3. a venv that no longer matches the lock ------------------------------------------------------------------------

def _installed(name):
    from importlib import metadata

    return metadata.version(name)


def test_a_venv_matching_the_lock_passes(tmp_path):
    lock = tmp_path / "requirements.txt"
    lock.write_text(f"-e .\n    # via -r requirements.in\nnbformat=={_installed('nbformat')}\n"
                    "not-a-package-for-this-os==1.0 ; sys_platform == 'no-such-platform'\n")
    assert preflight.venv_drift(lock) == []


def test_the_venv_of_make_test_matches_the_lock():
    """make install has just checked it under make test; a direct pytest run in another environment says so here."""
    drift = preflight.venv_drift(ROOT / "requirements.txt")
    assert not drift, preflight.venv_message(drift, ROOT / "requirements.txt")


def test_a_drifted_venv_is_described_in_one_line(tmp_path):
    lock = tmp_path / "requirements.txt"
    lock.write_text(f"nbformat==0.0.1\nno-such-package-here==1.0\npytest=={_installed('pytest')}\n")
    drift = preflight.venv_drift(lock)
    assert drift == [("nbformat", _installed("nbformat"), "0.0.1"), ("no-such-package-here", None, "1.0")]
    message = preflight.venv_message(drift, lock)
    assert f"nbformat {_installed('nbformat')} (locked 0.0.1), no-such-package-here missing (locked 1.0)" in message
    assert "installing the lock again" in message and "\n" not in message
    assert "`make distclean install`" in preflight.venv_message(drift, lock, reinstalled=True)


def _fake_venv(tmp_path, drifted):
    """A venv whose python logs its calls and whose preflight check fails while ``drifted``; pip "installs"."""
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    log = tmp_path / "calls"
    python = venv / "bin" / "python"
    python.write_text(f"""#!/bin/sh
echo "$*" >> {log}
case "$*" in
  *"preflight.py venv"*) if [ -e {drifted} ]; then echo "venv does not match: installing the lock again"; exit 1; fi;;
  *"pip install"*) rm -f {drifted};;
esac
exit 0
""")
    python.chmod(0o755)
    (venv / ".installed").touch()  # newer than requirements.txt: make's date rule alone would install nothing
    return venv, log


def test_make_install_reinstalls_a_drifted_venv_and_says_why(tmp_path):
    drifted = tmp_path / "drifted"
    drifted.touch()
    venv, log = _fake_venv(tmp_path, drifted)
    result = subprocess.run(["make", "-s", "install", f"VENV={venv}"], cwd=ROOT, env=MAKE_ENV, capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr
    assert "installing the lock again" in result.stdout
    calls = log.read_text().splitlines()
    assert calls == ["tools/preflight.py venv requirements.txt", "-m pip install -r requirements.txt",
                     "tools/preflight.py venv requirements.txt --reinstalled"]


def test_make_install_leaves_a_matching_venv_alone(tmp_path):
    venv, log = _fake_venv(tmp_path, tmp_path / "not-drifted")
    axe = Path(venv) / "share" / "axe-core" / "node_modules" / "axe-core" / "axe.min.js"  # installed, up to date
    axe.parent.mkdir(parents=True)
    axe.write_text("/* axe */")
    result = subprocess.run(["make", "-s", "install", f"VENV={venv}"], cwd=ROOT, env=MAKE_ENV, capture_output=True,
                            text=True)
    assert result.returncode == 0 and result.stdout == "", result.stdout + result.stderr
    assert log.read_text().splitlines() == ["tools/preflight.py venv requirements.txt"]
