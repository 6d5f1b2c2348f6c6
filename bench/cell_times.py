"""Where a notebook's time goes: each code cell's execution time on a fresh kernel (nothing is asserted).

Usage: python bench/cell_times.py notebooks/04_neural_networks.ipynb [...] [--top N]

Runs each notebook with nbclient as `make bench` does (one OpenBLAS thread, the inline backend) and prints the
kernel start-up, then the slowest code cells (index among code cells, as nbval counts them, and the cell's first
line), from the timestamps the kernel reports for each cell.
"""

import argparse
import datetime
import os
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

os.environ.pop("MPLBACKEND", None)
os.environ["OPENBLAS_NUM_THREADS"] = "1"


def _seconds(cell):
    timing = cell.metadata.get("execution", {})
    start, end = timing.get("iopub.execute_input"), timing.get("shell.execute_reply")
    if start is None or end is None:
        return 0.0
    parse = datetime.datetime.fromisoformat
    return (parse(end.replace("Z", "+00:00")) - parse(start.replace("Z", "+00:00"))).total_seconds()


def cell_times(path):
    """(total seconds, [(code-cell index, seconds, first line)]) for one fresh-kernel run of ``path``."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=True,
                            resources={"metadata": {"path": str(Path(path).parent)}})
    start = time.perf_counter()
    client.execute()
    total = time.perf_counter() - start
    code_cells = [cell for cell in nb.cells if cell.cell_type == "code"]
    rows = [(i, _seconds(cell), (cell.source.splitlines() or [""])[0][:70]) for i, cell in enumerate(code_cells)]
    return total, rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="+", type=Path)
    parser.add_argument("--top", type=int, default=12, help="how many of the slowest cells to print")
    args = parser.parse_args()
    for path in args.notebooks:
        total, rows = cell_times(path)
        in_cells = sum(seconds for _, seconds, _ in rows)
        print(f"{path.name}: {total:.2f} s in all, {in_cells:.2f} s in cells, "
              f"{total - in_cells:.2f} s kernel start-up and messaging")
        for i, seconds, line in sorted(rows, key=lambda row: -row[1])[:args.top]:
            print(f"  cell {i:3d}  {seconds:6.2f} s  {line}")


if __name__ == "__main__":
    main()
