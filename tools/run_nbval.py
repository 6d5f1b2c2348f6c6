"""Strict nbval on the notebooks, natively and in a foreign numerical environment, side by side.

The stored outputs must be true on every reader's CPU, not only on the one that recorded them. ``make test``
therefore runs strict nbval twice, in parallel on the two cores:

- **native**: the Makefile's notebook environment (one OpenBLAS thread). With ``--record-cache DIR`` this run
  also stores each executed notebook in the book's execution cache (tools/nbval_book.py), so the book build
  that follows shows these outputs instead of executing the notebooks again; it then renders the figures at the
  book's resolution (``MLFS_FIGURE_SCALE=2``, as the Makefile's book builds do). This run also runs every cell
  tagged ``rerun`` (the cells that train, ``tests/test_rerun.py``) a second time right after its first, and
  compares that run with the stored outputs too (``--nbval-rerun``): a cell that continues from state an earlier
  cell left, such as a model it trains further, fails. It is the faster of the two runs, so the second runs
  cost little wall time.
- **foreign** (x86-64 only): OpenBLAS forced onto its oldest x86-64 kernels (``OPENBLAS_CORETYPE=Prescott``,
  SSE3) with two threads, and NumPy's SIMD dispatch narrowed to its baseline (``NPY_DISABLE_CPU_FEATURES`` set
  to every target NumPy dispatches to above it). Another summation order, another vector width, another thread
  split: an output that depends on the last bit fails here before it lands. On another architecture the
  foreign run is skipped with a one-line reason.

``--matrix`` runs the environments of the portability check instead: ``OPENBLAS_CORETYPE`` in {Prescott,
Nehalem, SandyBridge, Haswell} times ``OPENBLAS_NUM_THREADS`` in {1, 2}, two at a time, and prints a table.
Each run's full output goes to ``_build/nbval/<name>.log``; a failing run's output is also printed, and then one line
per failing notebook that names its failing cells and the command that fixes them.

Before any run, every notebook must store a top-to-bottom run of its code cells (``tools/preflight.py``): a cell
without a stored execution (cleared outputs) would be skipped by strict nbval instead of compared. A notebook that
does not is named in one line, with ``make execute`` as the remedy, and nothing runs.
"""

import argparse
import os
import platform
import re
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import preflight  # tools/preflight.py, beside this script

ROOT = Path(__file__).resolve().parents[1]
LOGS = ROOT / "_build" / "nbval"
CORETYPES = ("Prescott", "Nehalem", "SandyBridge", "Haswell")


def numpy_dispatch_targets():
    """The SIMD targets this NumPy dispatches to above its baseline, e.g. ['X86_V3', 'X86_V4', ...]."""
    try:
        from numpy._core._multiarray_umath import __cpu_dispatch__
    except ImportError:  # NumPy 1.x
        from numpy.core._multiarray_umath import __cpu_dispatch__
    return list(__cpu_dispatch__)


def native_env():
    """The notebooks' environment of the Makefile (NB_ENV): one OpenBLAS thread, matplotlib's inline backend."""
    return {"OPENBLAS_NUM_THREADS": "1"}


def foreign_env():
    """Another BLAS kernel, another thread count, NumPy's baseline SIMD; None (and why) off x86-64."""
    machine = platform.machine().lower()
    if machine not in ("x86_64", "amd64"):
        return None, f"foreign run skipped: OPENBLAS_CORETYPE names x86-64 kernels, this CPU is {machine}"
    return {"OPENBLAS_CORETYPE": "Prescott", "OPENBLAS_NUM_THREADS": "2",
            "NPY_DISABLE_CPU_FEATURES": " ".join(numpy_dispatch_targets())}, None


def run(name, extra_env, notebooks, extra_args=(), log_suffix=""):
    """Strict nbval under ``extra_env``; returns (name, passed, summary line, seconds, full output)."""
    env = {k: v for k, v in os.environ.items() if k not in ("MPLBACKEND", "OPENBLAS_CORETYPE",
                                                            "NPY_DISABLE_CPU_FEATURES")}
    env.update(extra_env)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"  # the venv's kernel and tools
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT / "tools"), env.get("PYTHONPATH")]))
    command = [sys.executable, "-m", "pytest", "-p", "nbval_book", "--nbval", "--nbval-current-env",
               "-p", "no:cacheprovider", "-q", *extra_args, *notebooks]
    LOGS.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    output = result.stdout + result.stderr
    (LOGS / f"{name}{log_suffix}.log").write_text(output, encoding="utf-8")
    lines = [line for line in output.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else "no output"
    return name, result.returncode == 0, summary, seconds, output


ANSI = re.compile(r"\x1b\[[0-9;]*m")


def failed_cells(output):
    """{notebook path: {cell number: "raises", "differs" or "reruns"}} from the failures of a pytest --nbval run.

    "reruns": the cell matched its stored outputs on its first run and not on its second (``--nbval-rerun``).
    """
    text = ANSI.sub("", output)
    failed = {}
    for notebook, cell in re.findall(r"^(?:FAILED|ERROR) (\S+?\.ipynb)::Cell (\d+)", text, flags=re.MULTILINE):
        failed.setdefault(notebook, {})[int(cell)] = "differs"
    # Each failure's section: "____ notebooks/x.ipynb::Cell 7 ____", then nbval's "Cell 7: <what failed>".
    for notebook, cell, what in re.findall(r"^_+ (\S+?\.ipynb)::Cell (\d+) _+\n(?:.*\n){0,3}?Cell \d+: (.*)$", text,
                                           flags=re.MULTILINE):
        if notebook in failed and what.startswith("Second run"):
            failed[notebook][int(cell)] = "reruns"
        elif notebook in failed and ("exception" in what or "Timeout" in what or "timed out" in what):
            failed[notebook][int(cell)] = "raises"
    return failed


def _cells(numbers):
    return ", ".join(f"Cell {n}" for n in sorted(numbers))


def remedies(results):
    """One line per notebook with failing cells: which cells, what they did, in which runs, and the fix."""
    by_run = {name: failed_cells(output) for name, passed, _, _, output in results if not passed}
    lines = []
    for notebook in sorted({nb for cells in by_run.values() for nb in cells}):
        runs = [name for name in by_run if notebook in by_run[name]]
        cells = {}
        for name in reversed(runs):  # the native run's verdict on a cell wins
            cells.update(by_run[name][notebook])
        raised = [n for n, what in cells.items() if what == "raises"]
        reran = [n for n, what in cells.items() if what == "reruns"]
        differ = [n for n, what in cells.items() if what == "differs"]
        what = [f"{_cells(raised)} raised an error"] if raised else []
        what += [f"{_cells(reran)} printed other outputs when run a second time"] if reran else []
        what += [f"{_cells(differ)} printed other outputs than the stored ones"] if differ else []
        plural = "s" if len(runs) > 1 else ""
        where = f"{notebook}: {' and '.join(what)} ({' and '.join(runs)} run{plural}, shown above)"
        if reran:
            lines.append(f"{where}: {'that cell continues' if len(reran) == 1 else 'those cells continue'} from "
                         "state an earlier cell left (a model trained further, a generator drawn from again); build "
                         "the model, its optimizer and its rng in the cell itself, then run `make execute` (cells "
                         "after it may fail only because of it)")
        elif runs == ["foreign"] and not raised:
            lines.append(f"{where}: a stored output holds only on this CPU's arithmetic; print it as "
                         "book/contributing.md says, then run `make execute`")
        elif preflight.git_modified(ROOT / notebook):
            lines.append(f"{where}: the notebook has uncommitted changes (saved from make lab?): "
                         f"{'fix the error, then ' if raised else ''}store a fresh run with `make execute`, or drop "
                         f"the changes with `git checkout -- {notebook}`")
        elif raised:
            lines.append(f"{where}: fix the code that raises (in implementations/ or the cell), then store a fresh run "
                         "with `make execute`")
        else:
            lines.append(f"{where}: after a change to implementations/ or data/, store a fresh run with "
                         "`make execute` and review `git diff notebooks/`")
    return lines


def describe(env):
    return " ".join(f"{k}={v}" for k, v in env.items())


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", default=["notebooks"], help="notebooks or folders (default: notebooks)")
    parser.add_argument("--record-cache", metavar="DIR", help="the native run stores executed notebooks in DIR")
    parser.add_argument("--matrix", action="store_true", help="run the OPENBLAS_CORETYPE x thread-count matrix")
    parser.add_argument("--log-suffix", default="", help="appended to each log's name, e.g. -py3.13")
    args = parser.parse_args()

    unexecuted = [p for p in map(preflight.notebook_problem, preflight.notebook_paths(args.notebooks)) if p]
    if unexecuted:
        print("\n".join(unexecuted), flush=True)
        return 1

    if args.matrix:
        if foreign_env()[0] is None:
            print(foreign_env()[1])
            return 0
        jobs = [(f"{core}-{threads}", {"OPENBLAS_CORETYPE": core, "OPENBLAS_NUM_THREADS": str(threads)}, ())
                for core in CORETYPES for threads in (1, 2)]
    else:
        record = ("--nbval-record-cache", args.record_cache) if args.record_cache else ()
        book_figures = {"MLFS_FIGURE_SCALE": "2"} if args.record_cache else {}
        jobs = [("native", {**native_env(), **book_figures}, (*record, "--nbval-rerun"))]
        env, reason = foreign_env()
        if env is None:
            print(reason)
        else:
            jobs.append(("foreign", env, ()))

    for name, env, extra_args in jobs:
        twice = "; cells tagged rerun run twice" if "--nbval-rerun" in extra_args else ""
        print(f"strict nbval, {name}: {describe(env)}{twice}", flush=True)
    with ThreadPoolExecutor(max_workers=2) as pool:  # the project's machines have two cores
        results = list(pool.map(lambda job: run(job[0], job[1], args.notebooks, job[2], args.log_suffix), jobs))

    failed = [r for r in results if not r[1]]
    for name, _, _, _, output in failed:
        print(f"\n----- {name}: full output ({LOGS / (name + args.log_suffix + '.log')}) -----\n{output}")
    for name, passed, summary, seconds, _ in results:
        print(f"{'ok  ' if passed else 'FAIL'} {name:<14} {summary} (wall {seconds:.0f} s)")
    if failed and not args.matrix:
        print("\n".join(remedies(results)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
