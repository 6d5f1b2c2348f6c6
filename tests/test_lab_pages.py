"""The bibliography and API pages read in JupyterLab: their plain-MyST block is current and has every linked target.

tools/lab_pages.py writes the block; book/_ext/lab_pages.py keeps it out of the book. A stale block (a new citation,
a renamed function) fails here with the command that rewrites it.
"""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import lab_pages  # noqa: E402


def test_the_blocks_are_current():
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "lab_pages.py"), "--check"], capture_output=True,
                            text=True)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("page", ["bibliography.md", "api.md"])
def test_every_anchor_a_notebook_links_is_a_target_of_the_block(page):
    text = (ROOT / "book" / page).read_text(encoding="utf-8")
    block = lab_pages.BLOCK.search(text).group(0)
    targets = set(re.findall(r"^\(([\w.-]+)\)=$", block, re.M))
    linked = {anchor for path in sorted((ROOT / "notebooks").glob("*.ipynb"))
              for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "markdown"
              for anchor in re.findall(rf"\.\./book/{re.escape(page)}#([\w.-]+)\)", cell.source)}
    assert linked, f"no notebook links {page}: the test would check nothing"
    assert not linked - targets, f"linked from the notebooks but not in {page}'s JupyterLab block: {linked - targets}"


def test_the_book_leaves_the_block_out():
    spec = importlib.util.spec_from_file_location("book_lab_pages", ROOT / "book" / "_ext" / "lab_pages.py")
    extension = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(extension)

    source = [(ROOT / "book" / "api.md").read_text(encoding="utf-8")]
    extension.drop_lab_block(None, "book/api", source)
    assert lab_pages.BEGIN not in source[0] and "automodule" in source[0]
