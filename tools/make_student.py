"""Write student copies of the notebooks: every exercise solution removed, everything else kept.

A solution is the run of cells from the markdown cell that opens it (```{solution-start} <label>) to the
cell that closes it (```{solution-end}), inclusive: the solution code and its explanation. It is replaced by
one markdown cell saying that the solution was removed, so the exercise, its stub and its check cell remain
and the check cell tells the student whether their answer works.

The copies go to ``student/`` at the root of the repository: git ignores it, ``make clean`` leaves it alone,
and ``make lab-student`` opens JupyterLab there. A student's work is never overwritten: the file
``student/.written.json`` records a hash of each copy as it was written, and a copy whose hash has changed since
(the student edited or ran it) is kept and reported. A copy nobody has touched is updated when the book's
notebook has changed. ``--refresh`` replaces changed copies too, after saving each one in ``student/backup/``.

Usage: python tools/make_student.py [--refresh] [SOURCE_DIR [TARGET_DIR]]   (defaults: notebooks/, student/)
"""

import argparse
import datetime
import hashlib
import json
import shutil
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


def _digest(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_copies(source, target, *, refresh=False, now=None):
    """Write the student copies; returns {file name: what happened} (written, updated, up to date, kept, replaced)."""
    source, target = Path(source), Path(target)
    target.mkdir(parents=True, exist_ok=True)
    record_path = target / ".written.json"
    record = json.loads(record_path.read_text(encoding="utf-8")) if record_path.exists() else {}
    report = {}
    for path in sorted(source.glob("*.ipynb")):
        nb, _ = strip_solutions(nbformat.read(path, as_version=4))
        text = nbformat.writes(nb) + "\n"
        copy = target / path.name
        if not copy.exists():
            report[path.name] = "written"
        else:
            touched = _digest(copy) != record.get(path.name)
            if touched and not refresh:
                report[path.name] = "kept"
                continue
            if touched:
                stamp = (now or datetime.datetime.now()).strftime("%Y%m%d-%H%M%S")
                backup = target / "backup" / f"{copy.stem}-{stamp}.ipynb"
                backup.parent.mkdir(exist_ok=True)
                shutil.copy2(copy, backup)
                report[path.name] = f"replaced (your copy is saved as {backup})"
            elif copy.read_text(encoding="utf-8") == text:
                report[path.name] = "up to date"
                continue
            else:
                report[path.name] = "updated"
        copy.write_text(text, encoding="utf-8")
        record[path.name] = _digest(copy)
    record_path.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    return report


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", default="notebooks")
    parser.add_argument("target", nargs="?", default="student")
    parser.add_argument("--refresh", action="store_true",
                        help="replace copies you changed too (each is saved in TARGET/backup/ first)")
    args = parser.parse_args(argv)
    report = write_copies(args.source, args.target, refresh=args.refresh)
    for name, what in report.items():
        print(f"{Path(args.target) / name}: {what}")
    kept = [name for name, what in report.items() if what == "kept"]
    if kept:
        print(f"{len(kept)} copies you have changed were kept as they are. To replace them with fresh copies "
              "(yours are saved in student/backup/ first): make student REFRESH=1")


if __name__ == "__main__":
    main()
