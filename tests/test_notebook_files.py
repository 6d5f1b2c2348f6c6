"""The notebooks store nothing that changes from one run to the next (issue: quiet diffs).

A re-execution whose printed outputs did not change must leave every notebook's file unchanged in git, so a stored
notebook carries no execution timestamps and no widget state; `make execute` (tools/execute_notebooks.py) writes
none. Execution counts and outputs stay: strict nbval compares them.
"""

import json
import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import execute_notebooks  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_a_stored_notebook_carries_no_volatile_metadata(path):
    found = execute_notebooks.volatile_metadata(json.loads(path.read_text(encoding="utf-8")))
    assert not found, (f"{path.name} stores metadata that changes on every run ({', '.join(found[:5])}"
                       f"{', ...' if len(found) > 5 else ''}): re-execute it with `make execute`, which writes none")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda path: path.name)
def test_a_stored_notebook_keeps_each_printed_stream_in_one_output(path):
    found = execute_notebooks.split_streams(json.loads(path.read_text(encoding="utf-8")))
    assert not found, (f"{path.name} stores a cell's printed text in pieces ({', '.join(found[:5])}), as a busy "
                       "kernel sent it: re-execute it with `make execute`, which joins them")


def test_split_streams_are_found_and_joined():
    nb = nbformat.v4.new_notebook()
    out = nbformat.v4.new_output
    nb.cells = [nbformat.v4.new_code_cell("x", outputs=[out("stream", name="stdout", text="a\n"),
                                                        out("stream", name="stdout", text="b\n"),
                                                        out("stream", name="stderr", text="w\n"),
                                                        out("stream", name="stdout", text="c\n")])]
    assert execute_notebooks.split_streams(nb) == ["cell 0: stdout"]
    execute_notebooks.coalesce_streams(nb)
    assert [(o.name, o.text) for o in nb.cells[0].outputs] == [("stdout", "a\nb\n"), ("stderr", "w\n"),
                                                                ("stdout", "c\n")]
    assert execute_notebooks.split_streams(nb) == []


def test_the_check_finds_timestamps_and_widget_state():
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_markdown_cell("x"), nbformat.v4.new_code_cell("1")]
    assert execute_notebooks.volatile_metadata(nb) == []
    nb.cells[1].metadata["execution"] = {"iopub.status.busy": "2026-12-02T13:04:39.459698Z"}
    nb.metadata["widgets"] = {"application/vnd.jupyter.widget-state+json": {}}
    assert execute_notebooks.volatile_metadata(nb) == ["notebook: widgets", "cell 1: execution"]
    execute_notebooks.strip_volatile(nb)
    assert execute_notebooks.volatile_metadata(nb) == []


def test_a_re_execution_writes_the_same_bytes(tmp_path):
    """Two executions of one notebook by the tool `make execute` runs give identical files."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell("import numpy as np\nprint(np.arange(3).sum())")]
    path = tmp_path / "tiny.ipynb"
    nbformat.write(nb, path)
    execute_notebooks.execute(path)
    first = path.read_bytes()
    execute_notebooks.execute(path)
    assert path.read_bytes() == first
    assert json.loads(first)["cells"][0]["outputs"][0]["text"] == ["3\n"]


# A line of inline math broken before "- x" or "+ x" starts a Markdown list item in the middle of the formula: the
# page then shows raw TeX (the site and JupyterLab tests see it after a build; this sees it in the source).
_LIST_MARKER = re.compile(r"\s*([-+*]|\d+[.)])\s")


def inline_math_broken_by_list_markers(markdown):
    """The lines of ``markdown`` that start with a list marker while a ``$...$`` formula is open."""
    text = re.sub(r"\$\$.*?\$\$|```.*?```|\\begin\{(equation|align)\*?\}.*?\\end\{\1\*?\}", "", markdown, flags=re.S)
    found, inside = [], False
    for line in text.split("\n"):
        if inside and _LIST_MARKER.match(line):
            found.append(line)
        inside ^= len(re.findall(r"(?<!\\)\$", line)) % 2 == 1
    return found


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_line_of_inline_math_starts_with_a_list_marker(path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    broken = [line for cell in nb["cells"] if cell["cell_type"] == "markdown"
              for line in inline_math_broken_by_list_markers("".join(cell["source"]))]
    assert not broken, f"{path.name}: move the operator to the end of the line before: {broken}"


def test_a_formula_broken_before_a_minus_is_found():
    assert inline_math_broken_by_list_markers("so $a = b\n- c$ and\n- a list item") == ["- c$ and"]
    assert inline_math_broken_by_list_markers("so $a = b -\nc$ and\n- a list item") == []
    assert inline_math_broken_by_list_markers("$$\na\n- b\n$$\n- item") == []
