"""The bibliography lists exactly the works the book cites: every entry of book/references.bib is cited."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_every_bibliography_entry_is_cited():
    keys = re.findall(r"^@\w+\{([^,\s]+),", (ROOT / "book" / "references.bib").read_text(encoding="utf-8"), re.M)
    assert len(keys) > 50, f"found only {len(keys)} entries in book/references.bib; is the pattern still right?"
    sources = [*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("book/*.md"), *ROOT.glob("implementations/*.py")]
    text = "\n".join(path.read_text(encoding="utf-8") for path in sources)
    uncited = [key for key in keys if key not in text]
    assert not uncited, (f"book/references.bib has entries that no notebook, page or docstring cites: {uncited}. "
                         "The bibliography page prints every entry (:all:): cite each one or remove it.")
