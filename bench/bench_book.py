"""The book's performance table (run by `make bench`; nothing is asserted).

Measures, on this machine:
1. the floor: a fresh kernel that only imports numpy, pandas, matplotlib and the package, and each notebook's
   execution time on a fresh kernel (nbclient, as `make execute` runs them) as a ratio to that floor: machines
   of the same kind differ about 3x in speed, so the ratio is the number that carries across (budget: 4x);
2. the book's cold build (an empty output directory: every notebook executes) and warm build (the same
   directory again: the execution cache is reused), with `jupyter-book build`;
3. the size of the built `_build/html`;
4. the kernel benchmarks of chapters 4 to 7 (bench_autograd.py, bench_conv.py and bench_transformer.py).

Prints the table as Markdown; with ``--page PATH`` also writes it, with the machine and the date, to PATH
(`make bench` writes book/performance.md).
"""

import argparse
import datetime
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat
import numpy as np
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(Path(__file__).parent))
import bench_autograd  # noqa: E402
import bench_conv  # noqa: E402
import bench_transformer  # noqa: E402

from implementations.nn import conv  # noqa: E402

DIGITS_CONV = (64, 1, 8, 8, 8, 3, 1)  # N, C, H, W, F, k, padding: a batch of the 8 × 8 digits

# The notebooks' environment, as the Makefile's NB_ENV sets it.
os.environ.pop("MPLBACKEND", None)
os.environ["OPENBLAS_NUM_THREADS"] = "1"


FLOOR_CODE = """\
import importlib
import pkgutil

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

import implementations

for module in pkgutil.walk_packages(implementations.__path__, prefix="implementations."):  # every module
    importlib.import_module(module.name)
"""

# A notebook may take at most this many floors.
BUDGET = 4


def execution_time(nb, cwd):
    """Wall-clock seconds for nbclient to run ``nb`` on a fresh kernel, start-up included."""
    client = NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(cwd)}})
    start = time.perf_counter()
    client.execute()
    return time.perf_counter() - start


# The floor and every notebook are timed the same way: the fastest of this many runs on fresh kernels, since a
# shared machine only ever adds time to a run. The runs are interleaved (the floor, then every notebook, and again),
# so that a slow spell of the machine falls on all of them alike rather than on one.
REPEATS = 5


def floor_notebook():
    """A notebook whose only cell imports numpy, pandas, matplotlib and every module of the package."""
    return nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(FLOOR_CODE)])


def notebook_times(paths):
    """The floor's and each notebook's fastest time over REPEATS interleaved rounds, each run on a fresh kernel."""
    runs = {"floor": []} | {path: [] for path in paths}
    for _ in range(REPEATS):
        runs["floor"].append(execution_time(floor_notebook(), ROOT / "notebooks"))
        for path in paths:
            runs[path].append(execution_time(nbformat.read(path, as_version=4), path.parent))
    return {key: min(times) for key, times in runs.items()}


def build_time(out_dir):
    start = time.perf_counter()
    jupyter_book = Path(sys.executable).parent / "jupyter-book"  # the CLI next to this Python (the venv's)
    # As `make book` builds it: figures stored at twice their screen pixels (the Makefile's BOOK_ENV).
    env = {**os.environ, "MLFS_FIGURE_SCALE": "2"}
    env.pop("MPLBACKEND", None)
    subprocess.run([str(jupyter_book), "build", str(ROOT), "--path-output", str(out_dir)],
                   check=True, capture_output=True, env=env)
    return time.perf_counter() - start


def folder_size(path):
    return sum(f.stat().st_size for f in Path(path).rglob("*") if f.is_file())


def measure():
    paths = sorted((ROOT / "notebooks").glob("*.ipynb"))
    times = notebook_times(paths)
    floor = times["floor"]
    rows = [("floor: a fresh kernel importing numpy, pandas, matplotlib and the package", f"{floor:.1f} s")]
    for path in paths:
        seconds = times[path]
        verdict = "" if seconds <= BUDGET * floor else f", over the {BUDGET}x budget"
        rows.append((f"notebook `{path.name}`, execution on a fresh kernel",
                     f"{seconds:.1f} s = {seconds / floor:.1f}x the floor{verdict}"))
    with tempfile.TemporaryDirectory() as out:
        cold = build_time(out)
        warm = build_time(out)
        size = folder_size(Path(out) / "_build" / "html")
    rows += [("book build, cold (empty output directory, every notebook executes)", f"{cold:.0f} s"),
             ("book build, warm (execution cache reused, no change)", f"{warm:.0f} s"),
             ("size of `_build/html`", f"{size / 1e6:.1f} MB")]
    rows += [("chapter 4: MLP 64-128-10, one Adam step on a batch of 256",
              f"{bench_autograd.mlp_step_time() * 1e3:.2f} ms"),
             ("chapter 4: engine overhead per operation (forward + backward)",
              f"{bench_autograd.overhead_per_operation() * 1e6:.1f} µs"),
             ("chapter 5: `conv2d` (im2col) forward + backward, 64 digits 8 × 8, 8 filters 3 × 3, padding 1",
              f"{bench_conv.forward_backward_time(conv.conv2d, *DIGITS_CONV, repeats=20) * 1e3:.1f} ms"),
             ("chapter 5: the same with `conv2d_loop`, one small product per output position",
              f"{bench_conv.forward_backward_time(conv.conv2d_loop, *DIGITS_CONV, repeats=5) * 1e3:.0f} ms"),
             ("chapter 6: LSTM forward + backward, B = 32, T = 100, D = 32, H = 128",
              f"{bench_autograd.lstm_time() * 1e3:.0f} ms"),
             ("chapter 7: `multi_head_attention` forward, B = 8, T = 256, D = 256, 8 heads",
              f"{bench_transformer.attention_time() * 1e3:.0f} ms"),
             ("chapter 10: one TinyGPT training step (the model of *Persuasion*, batch 32 windows of 64 tokens)",
              f"{bench_transformer.gpt_step_time() * 1e3:.1f} ms")]
    without, with_cache = bench_transformer.generate_times()
    rows.append(("chapter 10: TinyGPT `generate` with the model's sizes, 63 new tokens from a 1-token prompt, "
                 "batch 32: without / with the key–value cache",
                 f"{without * 1e3:.0f} ms / {with_cache * 1e3:.0f} ms ({without / with_cache:.1f}x)"))
    return rows


def table(rows):
    lines = ["| Measurement | Time or size |", "| --- | --- |"]
    return "\n".join(lines + [f"| {what} | {value} |" for what, value in rows])


PAGE = """# Performance

The book is meant to be rebuilt and re-run often, so its costs are measured, not guessed. The table was written
by `make bench` (`bench/bench_book.py`) on {date}, on this machine: {machine}.

{table}

How the numbers were taken:

- Notebook times are wall-clock times of `nbclient` executing the stored notebook on a fresh Python 3 kernel,
  with the environment of the Makefile (one OpenBLAS thread, matplotlib's inline backend). They include
  starting the kernel and the notebook's own imports.
- The floor is the same measurement for a notebook whose only cell imports numpy, pandas, matplotlib and the
  package. The floor and each notebook are reported as the fastest of {repeats} runs, each on a fresh kernel: on a
  shared machine other work only ever adds time. The runs are interleaved (the floor and every notebook, then
  all of them again), so a slow spell of the machine does not fall on one of them only. Machines of the same kind
  differ about 3x in speed, so each notebook is judged by its ratio to the floor measured in the same run: the
  budget is {budget}x.
- The cold build runs `jupyter-book build` into an empty output directory, so every notebook executes (with the
  figures at the book's resolution, `MLFS_FIGURE_SCALE=2`, as `make book` runs them); the warm build repeats it in
  the same directory, where the execution cache makes it skip all execution.
- The kernel benchmarks report the median of several repetitions after a warm-up
  (`bench/bench_autograd.py`, `bench/bench_conv.py`, `bench/bench_transformer.py`); the `generate` rows report the
  fastest of 5 runs, with and without the cache interleaved. They run in the benchmark's own process, where
  OpenBLAS keeps its default number of threads. The 64 tokens fill the model's context exactly; once a sequence is
  longer the window slides and the cache must be rebuilt at every step (`TinyGPT.generate` says why), so it saves
  time only while the sequence fits in the context.
- The numbers move from run to run on a shared machine (single runs by up to ±30% on this machine, the fastest
  of {repeats} by about ±10%). This table is how the budget is checked: no test asserts a time.
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--page", type=Path, help="also write the table to this Markdown page")
    args = parser.parse_args()
    rows = measure()
    print(table(rows))
    if args.page:
        machine = (f"{os.cpu_count()} cores, {platform.machine()}, {platform.system()} {platform.release()}, "
                   f"Python {platform.python_version()}, NumPy {np.__version__}")
        args.page.write_text(PAGE.format(date=datetime.date.today().isoformat(), machine=machine,
                                         table=table(rows), budget=BUDGET, repeats=REPEATS), encoding="utf-8")
        print(f"written to {args.page}")


if __name__ == "__main__":
    main()
