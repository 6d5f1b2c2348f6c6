"""Write student copies of the notebooks: every exercise solution removed, everything else kept.

A solution is the run of cells from the markdown cell that opens it (```{solution-start} <label>) to the
cell that closes it (```{solution-end}), inclusive: the solution code and its explanation. It is replaced by
one markdown cell saying that the solution was removed, so the exercise, its stub and its check cell remain
and the check cell tells the student whether their answer works.

Usage: python tools/make_student.py [SOURCE_DIR [TARGET_DIR]]   (defaults: notebooks/ and _build/student/)
"""

import sys
from pathlib import Path

import nbformat

START, END = "{solution-start}", "{solution-end}"


def strip_solutions(nb):
    """Return (notebook without solutions, number of solutions removed); raises on an unclosed solution."""
    cells, removed, inside, label = [], 0, False, None
    for cell in nb.cells:
        source = cell.source if cell.cell_type == "markdown" else ""
        if not inside and START in source:
            before = source[: source.index("```{solution-start}")].strip() if "```" + START in source else ""
            if before:  # text before the solution in the same cell stays
                cells.append(nbformat.v4.new_markdown_cell(before))
            inside, label = True, source.split(START, 1)[1].split()[0]
        if inside:
            if END in source:
                inside = False
                removed += 1
                cells.append(nbformat.v4.new_markdown_cell(
                    f"*The solution to exercise `{label}` is not part of the student copy.*"))
                rest = source.split(END, 1)[1]
                rest = rest.split("```", 1)[1].strip() if "```" in rest else ""  # after the closing fence
                if rest:  # e.g. the next exercise, written in the same cell
                    cells.append(nbformat.v4.new_markdown_cell(rest))
            continue
        cells.append(cell)
    if inside:
        raise ValueError(f"solution {label!r} is opened with {START} but never closed with {END}")
    out = nbformat.v4.new_notebook(metadata=nb.metadata)
    out.cells = cells
    for i, cell in enumerate(out.cells):
        cell["id"] = f"s{i:03d}"
    return out, removed


def main(source="notebooks", target="_build/student"):
    source, target = Path(source), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    for path in sorted(source.glob("*.ipynb")):
        nb, removed = strip_solutions(nbformat.read(path, as_version=4))
        nbformat.write(nb, target / path.name)
        print(f"{target / path.name}: {removed} solutions removed")


if __name__ == "__main__":
    main(*sys.argv[1:3])
