"""The notebooks' links reach their targets in JupyterLab, from the book's notebooks and from a student's copy.

In JupyterLab a link in a markdown cell is a path relative to the notebook, which the server must be able to open:
``../book/bibliography.md`` from ``notebooks/`` or ``student/`` is ``book/bibliography.md``, inside the repository,
so ``make lab`` and ``make lab-student`` serve the whole repository and open on the notebooks' folder. A server
rooted in ``notebooks/`` or ``student/`` (as they once were) cannot open anything above it. tests/lab/test_lab.py
opens the notebooks and a student copy in a running JupyterLab.
"""

import re
import shlex
import subprocess
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9A-Z]*_*.ipynb"))
LINK = re.compile(r"\]\(([^)\s]+)\)")


def relative_links(nb):
    """[(cell index, target path)] of every link in a markdown cell that is a path, not a URL or an anchor."""
    found = []
    for i, cell in enumerate(nb.cells):
        if cell.cell_type != "markdown":
            continue
        for target in LINK.findall(cell.source):
            path = target.split("#")[0]
            if path and not re.match(r"[a-z][a-z0-9+.-]*:", path):
                found.append((i, path))
    return found


@pytest.mark.parametrize("folder", ["notebooks", "student"])
@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_every_link_reaches_a_file_that_jupyterlab_serves(path, folder):
    """From notebooks/ and from a student copy in student/ (the same depth), each link names a file of the book."""
    nb = nbformat.read(path, as_version=4)
    broken = []
    for i, target in relative_links(nb):
        resolved = (ROOT / folder / target).resolve()
        if target.endswith(".ipynb") and not target.startswith(".."):
            resolved = (ROOT / "notebooks" / target).resolve()  # a chapter's copy sits beside the student's
        if not resolved.is_relative_to(ROOT):
            broken.append(f"cell {i}: {target} leaves the repository")
        elif not resolved.exists():
            broken.append(f"cell {i}: {target} does not exist")
    assert not broken, f"{path.name} (as {folder}/{path.name}):\n" + "\n".join(broken)


def test_the_links_checked_cover_every_page_the_notebooks_name():
    """The check above is not empty: the notebooks link the bibliography, the API, the data and notation pages."""
    targets = {target for path in NOTEBOOKS for _, target in relative_links(nbformat.read(path, as_version=4))}
    assert {"../book/bibliography.md", "../book/api.md", "../book/data.md", "../book/notation.md"} <= targets


@pytest.mark.parametrize("target, folder", [("lab", "notebooks"), ("lab-student", "student")])
def test_make_lab_serves_the_repository_and_opens_the_folder(target, folder):
    command = subprocess.run(["make", "-n", target], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    lab = shlex.split(next(line for line in command.splitlines() if "jupyter lab" in line))
    assert f"--ServerApp.root_dir={ROOT}" in lab, f"make {target} must serve the repository root: {lab}"
    assert f"--LabApp.default_url=/lab/tree/{folder}" in lab, f"make {target} must open {folder}/: {lab}"
