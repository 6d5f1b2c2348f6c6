"""Re-run notebooks top to bottom on fresh kernels and save their outputs in place (`make execute`).

Two notebooks run at a time (the project's machines have two cores); each gets its own kernel, started in the
notebook's folder. Chapter 1's sliders store widget state while they run, which the notebooks do not keep:
the pages load no widget JavaScript, so ``metadata.widgets`` is dropped before saving. (nbclient's
``store_widget_state=False`` is not an option: it fails on the slider cell with a KeyError.)

Usage: python tools/execute_notebooks.py NOTEBOOK...   (run it with the Makefile's NB_ENV environment)
"""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient


def execute(path):
    """Execute the notebook at ``path`` in place; returns the seconds it took."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return seconds


def main(paths):
    if not paths:
        sys.exit("usage: execute_notebooks.py NOTEBOOK...")
    with ThreadPoolExecutor(max_workers=2) as pool:
        for path, seconds in zip(paths, pool.map(execute, paths), strict=True):
            print(f"{path}: executed in {seconds:.1f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
