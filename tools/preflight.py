"""Checks run before the book's builds and tests, so that a reader's or a contributor's slip ends in one line.

Each check names what is wrong and the command that fixes it, in one line, instead of letting the slip surface later
as a traceback from Sphinx, sqlalchemy or pip, or not at all. The Makefile runs them:

``venv REQUIREMENTS`` (``make install``, before every target that uses the venv)
    Every package pinned in the lock must be installed at its pinned version. A venv can drift from the lock while
    its install stamp stays newer than ``requirements.txt``: a ``%pip install -U numpy`` in a notebook, a package
    installed by hand, files copied with their old modification times, a venv whose Python was replaced by a
    system upgrade. Exit status 1 with one line when it differs; ``make install`` then reinstalls the lock.
``data DIR`` (``make book``, ``make pdf``, ``make test``, ``make execute``)
    Every file listed in ``DIR/SHA256SUMS`` must match its checksum, as the package's loaders require
    (``implementations/data/_files.py``, whose restore hint this repeats). A file edited by hand stops the build
    before it starts, with one line per file, instead of failing inside a notebook cell in the middle of the build
    (and before ``make``'s code hash clears the execution cache for the edit).
``cache DIR [--clear PATH ...]`` (``make book``, ``make pdf``, ``make test``)
    The jupyter-cache at DIR must be readable: its SQLite database intact (a crash or a full disk during a write
    leaves it truncated, and the build then stops in ``sqlalchemy.exc.DatabaseError``), and every executed notebook
    it records present and complete (the record is written before the notebook, so a build interrupted in between
    leaves a record whose notebook is missing or cut short, and the build then stops in a ``KeyError`` or a
    ``NotJSONError``). A damaged cache is reported in one line and removed, with the built pages named by
    ``--clear``, so that the build re-executes every notebook; exit status 0.
``notebooks PATH ...`` (``tools/run_nbval.py``, before strict nbval; and ``tests/test_preflight.py``)
    Every notebook must store a top-to-bottom run, as ``make execute`` leaves it: each code cell an execution count,
    the counts 1, 2, 3, ... in order. A cell without one (cleared by JupyterLab's "Clear Outputs of All Cells" or
    by an output-stripping tool, or added and never run) would be skipped by strict nbval, so that the committed
    notebook shows no output while the test passes; counts out of order are a notebook saved after running cells
    by hand (in ``make lab``). One line per notebook, exit status 1.

The data and cache checks use only the standard library (they rely on jupyter-cache 1.x's layout: the tables of
``global.db`` and ``executed/<hashkey>/base.ipynb``; ``tests/test_preflight.py`` checks it on a cache that
jupyter-cache itself writes), so they work however broken the package or the venv is.
"""

import argparse
import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHECKSUM_FILE = "SHA256SUMS"


def shown(path):
    """``path`` relative to the current folder when it lies inside it (as the reader typed it), else absolute."""
    path = Path(path).absolute()
    try:
        return str(path.relative_to(Path.cwd()))
    except ValueError:
        return str(path)


# --- the venv against the lock ---------------------------------------------------------------------------------------

def pinned(requirements):
    """(name, version) of every exact pin of ``requirements`` (a lock file) whose environment marker holds here."""
    from packaging.requirements import Requirement  # a locked package: its absence is reported by venv_drift
    from packaging.utils import canonicalize_name

    pins = []
    for line in Path(requirements).read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if not line or line.startswith("-"):  # -e . (the book's own package), options
            continue
        requirement = Requirement(line)
        if requirement.marker is not None and not requirement.marker.evaluate():
            continue
        versions = [spec.version for spec in requirement.specifier if spec.operator == "=="]
        if versions:
            pins.append((canonicalize_name(requirement.name), versions[0]))
    return pins


def venv_drift(requirements):
    """[(name, installed version or None, locked version)] for every pinned package this Python does not match."""
    from importlib import metadata

    try:
        locked = pinned(requirements)
    except ImportError:
        return [("packaging", None, "(any)")]
    from packaging.utils import canonicalize_name
    from packaging.version import InvalidVersion, Version

    def same(found, pin):  # 1.0 and 1.0.0 are one version
        try:
            return found is not None and Version(found) == Version(pin)
        except InvalidVersion:
            return found == pin

    installed = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name:
            installed.setdefault(canonicalize_name(name), dist.version)
    return [(name, installed.get(name), pin) for name, pin in locked if not same(installed.get(name), pin)]


def venv_message(drift, requirements, reinstalled=False):
    """One line: which packages differ from the lock (the first three, then how many more), and what happens next."""
    described = [f"{name} {found or 'missing'} (locked {locked})" for name, found, locked in drift[:3]]
    more = f" and {len(drift) - 3} more" if len(drift) > 3 else ""
    venv, lock = shown(sys.prefix), shown(requirements)
    if reinstalled:
        return (f"error: {venv} still does not match {lock} after reinstalling it: {', '.join(described)}{more}; "
                f"remove the venv and install it afresh with `make distclean install`")
    return (f"{venv} does not match {lock}: {', '.join(described)}{more} (a package installed or upgraded by hand, "
            "or a venv older than the lock): installing the lock again")


# --- the data files --------------------------------------------------------------------------------------------------

def restore_hint(name):
    """How to restore the data file ``name``, in the words of the package's loaders (implementations/data/_files.py)."""
    restore = f"restore it with `git checkout -- data/{name}`"
    if name.endswith(".npz"):  # chapter 10's trained language model
        return f"{restore} or retrain it with `make language-model`"
    return f"{restore} or regenerate all data files with `make data`"


def data_problems(folder):
    """One line for every file listed in ``folder/SHA256SUMS`` that is missing or does not match its checksum."""
    folder = Path(folder)
    sums = folder / CHECKSUM_FILE
    try:
        lines = sums.read_text(encoding="ascii").splitlines()
    except FileNotFoundError:
        return [f"error: {shown(sums)} is missing, so the data files cannot be verified: restore it with "
                f"`git checkout -- data/{CHECKSUM_FILE}`"]
    except UnicodeDecodeError:
        lines = ["(not ASCII)"]
    problems = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        digest, sep, name = line.partition("  ")
        name = name.lstrip("*")
        if not sep or len(digest) != 64 or not name:
            return [f"error: {shown(sums)} line {number} is not '<64 hex digits>  <file name>' as sha256sum writes "
                    f"it: restore it with `git checkout -- data/{CHECKSUM_FILE}`"]
        path = folder / name
        try:
            found = hashlib.sha256(path.read_bytes()).hexdigest()
        except (FileNotFoundError, IsADirectoryError):
            problems.append(f"error: data file {shown(path)} is missing: {restore_hint(name)}")
            continue
        if found != digest.lower():
            problems.append(f"error: {shown(path)} does not match its checksum in {shown(sums)} (edited by hand, or "
                            f"truncated): {restore_hint(name)}")
    return problems


# --- the execution cache ---------------------------------------------------------------------------------------------

def cache_problem(folder, timeout=10):
    """What in the jupyter-cache at ``folder`` cannot be read, in a few words; None if all can (or there is none).

    A database that another process holds locked (for ``timeout`` seconds) is not damaged: None.
    """
    folder = Path(folder)
    database = folder / "global.db"
    if not database.is_file():
        return None  # no cache yet, or one that jupyter-cache will create afresh
    try:
        connection = sqlite3.connect(database, timeout=timeout)
        try:
            verdict = connection.execute("PRAGMA quick_check").fetchall()
            if verdict != [("ok",)]:
                return f"{database.name}: {verdict[0][0]}"
            tables = {row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            hashkeys = []
            if "nbcache" in tables:  # an empty database gets its tables from jupyter-cache
                hashkeys = [row[0] for row in connection.execute("SELECT hashkey FROM nbcache")]
        finally:
            connection.close()
    except sqlite3.OperationalError as error:
        if "locked" in str(error):
            return None
        return f"{database.name}: {error}"
    except sqlite3.DatabaseError as error:  # "database disk image is malformed", "file is not a database"
        return f"{database.name}: {error}"
    for hashkey in hashkeys:
        notebook = Path("executed") / hashkey / "base.ipynb"
        try:
            json.loads((folder / notebook).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return f"{notebook}, which global.db records, is missing"
        except (UnicodeDecodeError, ValueError):
            return f"{notebook}, which global.db records, is cut short"
    return None


def clear_damaged_cache(folder, also=()):
    """Remove the cache at ``folder`` (and the paths ``also``) if it cannot be read; the one line said, or None."""
    problem = cache_problem(folder)
    if problem is None:
        return None
    for path in [folder, *also]:
        if Path(path).is_dir():
            shutil.rmtree(path)
        elif Path(path).exists():
            Path(path).unlink()
    return (f"the notebook cache {shown(folder)} is damaged ({problem}), as a build interrupted or a full disk "
            "leaves it: clearing it and the built pages, so that every notebook runs again")


# --- the stored executions of the notebooks --------------------------------------------------------------------------

SKIP_TAG = "skip-execution"  # nbclient (make execute) and jupyter-book leave such a cell unexecuted


def _ranges(numbers):
    """'3, 5-9, 12' for [3, 5, 6, 7, 8, 9, 12]."""
    parts, start = [], None
    for i, n in enumerate(numbers):
        if start is None:
            start = n
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(str(start) if start == n else f"{start}-{n}")
            start = None
    return ", ".join(parts)


def git_modified(path):
    """Whether git reports uncommitted changes to ``path``; None when that cannot be told (no git, not a repository)."""
    path = Path(path).resolve()
    try:
        result = subprocess.run(["git", "status", "--porcelain", "--", path.name], cwd=path.parent,
                                capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return None
    return bool(result.stdout.strip()) if result.returncode == 0 else None


def _edit_remedy(path):
    """The end of a message about a notebook whose stored run is not a top-to-bottom one."""
    remedy = "run `make execute` to store a fresh run of every notebook"
    if not git_modified(path):  # committed so, or not in a git checkout: nothing to drop
        return remedy
    return f"{remedy}, or `git checkout -- {shown(path)}` to drop your edits"


def notebook_problem(path):
    """One line if the notebook at ``path`` does not store a top-to-bottom run of every code cell; else None.

    Code cells are numbered from 1 in the notebook's order, as ``make execute`` numbers their executions. An empty
    cell and a cell tagged ``skip-execution`` are never executed, so they are not counted.
    """
    path = Path(path)
    try:
        notebook = json.loads(path.read_text(encoding="utf-8"))
        cells = [cell for cell in notebook["cells"] if cell.get("cell_type") == "code"]
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError) as error:
        return (f"error: {shown(path)} is not a readable notebook ({type(error).__name__}: {str(error)[:80]}; an "
                f"unresolved merge conflict?): resolve it, or restore it with `git checkout -- {shown(path)}`")
    runnable = [(number, cell) for number, cell in enumerate(cells, start=1)
                if "".join(cell.get("source", "")).strip() and SKIP_TAG not in cell.get("metadata", {}).get("tags", [])]
    unrun = [number for number, cell in runnable if cell.get("execution_count") is None]
    if unrun:
        how = ("have no outputs and no execution count" if all(not cells[n - 1].get("outputs") for n in unrun)
               else "have no execution count")
        return (f"error: {shown(path)}: code cells {_ranges(unrun)} (of {len(cells)}) {how}: their outputs were "
                "cleared (JupyterLab's Clear Outputs, an output-stripping tool) or they never ran, so the test "
                f"cannot compare them; {_edit_remedy(path)}")
    counts = [cell["execution_count"] for _, cell in runnable]
    if counts != list(range(1, len(counts) + 1)):
        first = next(i for i, count in enumerate(counts) if count != i + 1)
        return (f"error: {shown(path)}: the stored execution counts are not 1, 2, 3, ... in order (code cell "
                f"{runnable[first][0]} has [{counts[first]}]): it was saved after running cells by hand (in "
                f"make lab), not top to bottom; {_edit_remedy(path)}")
    return None


def notebook_paths(paths):
    """The notebooks named by ``paths`` (files, or folders searched recursively, skipping checkpoints)."""
    found = []
    for path in map(Path, paths):
        if path.is_dir():
            found += sorted(p for p in path.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts)
        else:
            found.append(path)
    return found


# --- command line ----------------------------------------------------------------------------------------------------

def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    venv = commands.add_parser("venv", help="this Python's packages against the lock")
    venv.add_argument("requirements", nargs="?", default="requirements.txt")
    venv.add_argument("--reinstalled", action="store_true", help="the lock was just installed: differing is an error")
    data = commands.add_parser("data", help="the data files against SHA256SUMS")
    data.add_argument("folder", nargs="?", default="data")
    cache = commands.add_parser("cache", help="the execution cache: cleared, with --clear PATHs, if unreadable")
    cache.add_argument("folder")
    cache.add_argument("--clear", nargs="*", default=[], metavar="PATH", help="also removed when the cache is")
    notebooks = commands.add_parser("notebooks", help="every code cell's stored execution")
    notebooks.add_argument("paths", nargs="+")
    args = parser.parse_args(argv)

    if args.command == "venv":
        drift = venv_drift(args.requirements)
        if drift:
            print(venv_message(drift, args.requirements, args.reinstalled),
                  file=sys.stderr if args.reinstalled else sys.stdout, flush=True)
            return 1
        return 0
    if args.command == "data":
        problems = data_problems(args.folder)
    elif args.command == "cache":
        said = clear_damaged_cache(args.folder, args.clear)
        if said:
            print(said, flush=True)
        return 0
    else:
        problems = [p for p in map(notebook_problem, notebook_paths(args.paths)) if p]
    for problem in problems:
        print(problem, file=sys.stderr, flush=True)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
