"""Re-run notebooks top to bottom on fresh kernels and save their outputs in place (`make execute`).

Two notebooks run at a time (the project's machines have two cores); each gets its own kernel, started in the
notebook's folder. Chapter 1's sliders store widget state while they run, which the notebooks do not keep:
the pages load no widget JavaScript, so ``metadata.widgets`` is dropped before saving. (nbclient's
``store_widget_state=False`` is not an option: it fails on the slider cell with a KeyError.)

Nothing that changes from one run to the next is stored: no execution timestamps (``record_timing=False``) and no
widget state, so a re-execution whose outputs did not change leaves the notebook's file unchanged in git. A cell's
printed text is stored as one output per stream: how the kernel cut it into messages depends on how busy the machine
was (``coalesce_streams``), and nbval compares the joined text anyway.
``volatile_metadata`` lists what a notebook carries of either; tests/test_notebook_files.py fails on any.

Usage: python tools/execute_notebooks.py NOTEBOOK...   (run it with the Makefile's NB_ENV environment)
"""

import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import nbformat
from nbclient import NotebookClient

VOLATILE_CELL_KEYS = ("execution",)  # nbclient's per-cell timestamps (iopub.status.busy, shell.execute_reply, ...)
VOLATILE_NOTEBOOK_KEYS = ("widgets",)  # ipywidgets' saved state: model ids drawn afresh on every run


def volatile_metadata(nb):
    """Where ``nb`` (a notebook as a dict) stores metadata that differs between two runs: ["cell 3: execution", ...]."""
    found = [f"notebook: {key}" for key in VOLATILE_NOTEBOOK_KEYS if key in nb.get("metadata", {})]
    for index, cell in enumerate(nb["cells"]):
        found += [f"cell {index}: {key}" for key in VOLATILE_CELL_KEYS if key in cell.get("metadata", {})]
    return found


def strip_volatile(nb):
    """Remove from ``nb`` in place everything ``volatile_metadata`` lists."""
    for key in VOLATILE_NOTEBOOK_KEYS:
        nb.metadata.pop(key, None)
    for cell in nb.cells:
        for key in VOLATILE_CELL_KEYS:
            cell.metadata.pop(key, None)


def coalesce_streams(nb):
    """Join, in every code cell of ``nb``, consecutive outputs of the same stream (stdout or stderr) into one."""
    for cell in nb.cells:
        joined = []
        for output in cell.get("outputs", []):
            previous = joined[-1] if joined else None
            if (output.output_type == "stream" and previous is not None and previous.output_type == "stream"
                    and previous.name == output.name):
                previous.text += output.text
            else:
                joined.append(output)
        if "outputs" in cell:
            cell.outputs = joined


def split_streams(nb):
    """Where ``nb`` (a dict) stores one stream in several consecutive outputs: ["cell 3: stdout", ...]."""
    found = []
    for index, cell in enumerate(nb["cells"]):
        outputs = cell.get("outputs", [])
        found += [f"cell {index}: {b['name']}" for a, b in zip(outputs, outputs[1:], strict=False)
                  if a["output_type"] == b["output_type"] == "stream" and a["name"] == b["name"]]
    return found


def execute(path):
    """Execute the notebook at ``path`` in place; returns the seconds it took."""
    path = Path(path)
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True, record_timing=False,
                            resources={"metadata": {"path": str(path.parent.resolve())}})
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    strip_volatile(nb)
    coalesce_streams(nb)
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
