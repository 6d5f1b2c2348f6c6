"""The book's extension of nbval: a per-cell numeric tolerance, and one execution serving both test and book.

Load it with ``pytest -p nbval_book`` (``tools/`` on ``PYTHONPATH``) next to ``--nbval``. It adds four things.

**No cell left uncompared.** nbval skips the comparison of a code cell that stores no execution (no execution count:
its outputs cleared by JupyterLab's "Clear Outputs of All Cells" or an output-stripping tool, or a cell never run),
so a notebook stripped of its outputs would pass. Under strict nbval such a cell fails instead, after it has run (the
cells below it depend on it), with the remedy, ``make execute``. An empty cell and one tagged ``skip-execution``,
which ``make execute`` never runs, are exempt; ``tools/run_nbval.py`` checks the same before it starts any run.

**A tolerance, opted into per cell.** A cell tagged ``nbval-rtol=R`` (for example ``nbval-rtol=0.05``) has the
numbers of its text outputs compared with relative tolerance R: a fresh number a matches the stored number b
when abs(a - b) <= R * max(abs(a), abs(b)). Everything else in that cell's output (every word, space, line and the
count of numbers) is still compared exactly, and every cell without the tag is compared exactly, number for
number. Use it only for a trained result whose last printed digit depends on the CPU and no stable experiment
prints it; the contributor notes in ``book/contributing.md`` say when.

**A second run of every training cell.** With ``--nbval-rerun``, a cell tagged ``rerun`` runs twice in a row, and
both runs must print its stored outputs. A reader who runs a training cell again, or edits it to try another setting,
must get what the cell shows, not a model that went on training from the weights an earlier run left: a cell that
builds its model, its optimizer and its random generator itself passes, one that continues from state an earlier cell
created fails on its second run. ``tests/test_rerun.py`` requires the tag on every cell that trains. The first run's
outputs are the ones recorded (below).

**The executed notebook, kept.** With ``--nbval-record-cache DIR``, every notebook whose cells all passed is
written, with the outputs of this run, into the jupyter-cache at DIR (``_build/.jupyter_cache``, where the book
build looks). The book build then finds every notebook already executed by the code of this checkout and shows
those outputs: the test run and the book share one execution, and no figure can be older than the code that the
test just ran.
"""

import copy
import math
import re
from pathlib import Path

import nbformat
import pytest
from nbval.plugin import IPyNbCell, NbCellError

TAG_PREFIX = "nbval-rtol="
RERUN_TAG = "rerun"

# A decimal number as Python prints it: 12, -0.5, 3.2e-04, 1,234 is two numbers (the comma is text).
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def cell_rtol(cell):
    """The relative tolerance a cell opts into with an ``nbval-rtol=R`` tag, or None."""
    tags = [t for t in cell.get("metadata", {}).get("tags", []) if t.startswith(TAG_PREFIX)]
    if not tags:
        return None
    if len(tags) > 1:
        raise ValueError(f"a cell has several tolerance tags {tags}; expected at most one nbval-rtol=R tag")
    text = tags[0][len(TAG_PREFIX):]
    try:
        rtol = float(text)
    except ValueError:
        raise ValueError(f"tag {tags[0]!r}: expected nbval-rtol=R with a number R, e.g. nbval-rtol=0.05") from None
    if not 0 < rtol < 1:
        raise ValueError(f"tag {tags[0]!r}: the tolerance must lie between 0 and 1 (a fraction), received {rtol}")
    return rtol


def numbers_close(a, b, rtol):
    """Whether the printed numbers a and b (strings) agree within relative tolerance rtol."""
    x, y = float(a), float(b)
    if not (math.isfinite(x) and math.isfinite(y)):
        return a == b
    return abs(x - y) <= rtol * max(abs(x), abs(y))


def reconcile(reference, fresh, rtol):
    """``fresh`` with each number replaced by the reference's where the two agree within ``rtol``.

    The text around the numbers must be identical, and the numbers as many, for anything to be replaced: then
    the exact comparison that follows sees only the numbers that differ by more than ``rtol``. Otherwise
    ``fresh`` is returned unchanged and the exact comparison reports the difference in the text.
    """
    ref_text, fresh_text = NUMBER.split(reference), NUMBER.split(fresh)
    if ref_text != fresh_text:
        return fresh
    ref_numbers, fresh_numbers = NUMBER.findall(reference), NUMBER.findall(fresh)
    parts = [fresh_text[0]]
    for ref_number, fresh_number, text in zip(ref_numbers, fresh_numbers, fresh_text[1:], strict=True):
        parts.append(ref_number if numbers_close(ref_number, fresh_number, rtol) else fresh_number)
        parts.append(text)
    return "".join(parts)


def _text_pairs(fresh, stored):
    """(container, key, stored text) for every text field that a fresh output shares with its stored one."""
    if fresh.get("output_type") != stored.get("output_type"):
        return []
    if fresh.get("output_type") == "stream":
        same_stream = fresh.get("name") == stored.get("name") and isinstance(stored.get("text"), str)
        return [(fresh, "text", stored["text"])] if same_stream else []
    fresh_data, stored_data = fresh.get("data", {}), stored.get("data", {})
    return [(fresh_data, key, stored_data[key]) for key in fresh_data
            if key.startswith("text/") and isinstance(stored_data.get(key), str)]


_exact_compare = IPyNbCell.compare_outputs
_nbval_runtest = IPyNbCell.runtest


def stores_no_execution(cell):
    """Whether a code cell that ``make execute`` would run stores no execution count (nbval does not compare it)."""
    tags = cell.get("metadata", {}).get("tags", [])
    return cell.get("execution_count") is None and bool(cell.get("source", "").strip()) and "skip-execution" not in tags


def _runtest_requiring_a_stored_execution(self):
    """nbval's test of a cell; under strict nbval, then a failure if the cell stores no execution to compare with."""
    _nbval_runtest(self)  # runs the cell, so that the state the next cells need exists
    if not self.config.option.nbval_lax and stores_no_execution(self.cell):
        self.raise_cell_error(
            "No stored execution to compare with",
            "The notebook stores no execution count for this cell (its outputs were cleared, e.g. by JupyterLab's "
            "Clear Outputs of All Cells or an output-stripping tool, or it never ran), so its outputs cannot be "
            "checked. Run `make execute` to store a fresh run of the notebooks.")


def _runtest_twice_if_tagged(self):
    """The cell's test; with ``--nbval-rerun``, a cell tagged ``rerun`` is then run and compared a second time."""
    rerun = self.config.option.nbval_rerun and RERUN_TAG in self.cell.get("metadata", {}).get("tags", [])
    stored = copy.deepcopy(self.cell.get("outputs", [])) if rerun else None
    _runtest_requiring_a_stored_execution(self)
    if not rerun:
        return
    first_outputs = self.test_outputs  # the outputs of a top-to-bottom run: what --nbval-record-cache keeps
    # nbval merges the stored stream outputs into the first of them in place before it compares, so a second
    # comparison would see the later ones twice: compare with the outputs as they are stored.
    self.cell.outputs = stored
    try:
        _nbval_runtest(self)
    except NbCellError as error:
        self.raise_cell_error(
            f"Second run: {error}",
            "The cell printed its stored outputs on its first run but not when it ran again right after, so it "
            "continues from state that it did not create: a model or an optimizer built in an earlier cell and "
            "trained further, a random generator of an earlier cell drawn from again, an array updated in place. "
            "Build the model, its optimizer and its rng (from a seed) in the cell itself; a function defined in an "
            "earlier cell may build them.\n" + (error.inner_traceback or ""))
    finally:
        self.test_outputs = first_outputs


def _compare_with_tolerance(self, test, ref, skip_compare=None):
    """nbval's comparison, after the numbers within the cell's tolerance have been set to the stored ones."""
    rtol = cell_rtol(self.cell)
    if rtol is not None and len(test) == len(ref):
        test = copy.deepcopy(test)  # the outputs of this run stay as they are, for --nbval-record-cache
        for fresh, stored in zip(test, ref, strict=True):
            for container, key, stored_text in _text_pairs(fresh, stored):
                if isinstance(container[key], str):
                    container[key] = reconcile(stored_text, container[key], rtol)
    return _exact_compare(self, test, ref, skip_compare)


def pytest_addoption(parser):
    parser.getgroup("nbval").addoption(
        "--nbval-record-cache", metavar="DIR", default=None,
        help="store every notebook whose cells all passed, with this run's outputs, in the jupyter-cache at DIR")
    parser.getgroup("nbval").addoption(
        "--nbval-rerun", action="store_true", default=False,
        help=f"run every cell tagged {RERUN_TAG!r} again right after its first run, and compare that run too")


def pytest_configure(config):
    IPyNbCell.compare_outputs = _compare_with_tolerance
    IPyNbCell.runtest = _runtest_twice_if_tagged
    config._nbval_book_runs = {}  # notebook path -> {"cells": {cell_num: outputs}, "failed": bool}


def pytest_runtest_makereport(item, call):
    if not isinstance(item, IPyNbCell) or call.when != "call":
        return
    run = item.config._nbval_book_runs.setdefault(str(item.parent.path), {"cells": {}, "failed": False})
    outputs = getattr(item, "test_outputs", None)
    if call.excinfo is not None and not call.excinfo.errisinstance(pytest.skip.Exception):
        run["failed"] = True
    if outputs is None:
        run["failed"] = True
    else:
        run["cells"][item.cell_num] = outputs


def executed_notebook(path, cell_outputs):
    """The notebook at ``path`` with every code cell's outputs replaced by ``cell_outputs[cell_num]``."""
    nb = nbformat.read(path, as_version=4)
    code_cells = [cell for cell in nb.cells if cell.cell_type == "code"]
    if sorted(cell_outputs) != list(range(len(code_cells))):
        return None  # not every cell ran (a subset was selected): nothing to record
    for num, cell in enumerate(code_cells):
        outputs = []
        for output in cell_outputs[num]:
            output = nbformat.from_dict(dict(output))
            if output.output_type == "execute_result":
                output.execution_count = num + 1
            outputs.append(output)
        cell.outputs = outputs
        cell.execution_count = num + 1
    return nb


def pytest_sessionfinish(session):
    cache_dir = session.config.getoption("nbval_record_cache")
    if not cache_dir:
        return
    from jupyter_cache import get_cache
    from jupyter_cache.base import CacheBundleIn

    cache = get_cache(cache_dir)
    for path, run in session.config._nbval_book_runs.items():
        if run["failed"]:
            continue
        nb = executed_notebook(path, run["cells"])
        if nb is None:
            continue
        cache.cache_notebook_bundle(CacheBundleIn(nb, str(Path(path).resolve()), data={"recorded_by": "nbval"}),
                                    check_validity=False, overwrite=True)

