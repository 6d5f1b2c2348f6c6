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


CITATION = re.compile(r"\[([^\[\]]+?)\]\((?:\.\./)?(?:book/)?bibliography\.md#([\w-]+)\)")


def _markdown():
    """(path, text) of every Markdown page and every notebook's Markdown cells."""
    import nbformat

    for path in sorted(ROOT.glob("notebooks/*.ipynb")):
        notebook = nbformat.read(path, as_version=4)
        yield path, "\n".join(cell.source for cell in notebook.cells if cell.cell_type == "markdown")
    for path in sorted(ROOT.glob("book/*.md")):
        yield path, path.read_text(encoding="utf-8")


def _labels():
    """{bibtex key: label} as the bibliography prints it (book/_ext/bibliography_labels.py)."""
    import importlib.util

    from pybtex.database import parse_file

    path = ROOT / "book" / "_ext" / "bibliography_labels.py"
    spec = importlib.util.spec_from_file_location("bibliography_labels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    style = module.AuthorYearStyle()
    entries = style.sort(parse_file(ROOT / "book" / "references.bib").entries.values())
    return {entry.key: entry.label for entry in style.format_entries(entries)}


def test_labels_are_author_year_with_a_letter_where_two_works_would_share_one():
    labels = _labels()
    assert labels["bishop2006pattern"] == "Bishop, 2006"
    assert labels["widrow1960adaptive"] == "Widrow and Hoff, 1960"
    assert labels["hastie2009elements"] == "Hastie et al., 2009"
    assert labels["he2016deep"] == "He et al., 2016a" and labels["he2016identity"] == "He et al., 2016b"
    assert len(set(labels.values())) == len(labels)


def test_every_citation_is_written_with_the_label_of_its_entry():
    """A reader matches "[Hastie et al., 2009]" in the text with the same label in the bibliography."""
    labels = _labels()
    wrong = []
    for path, text in _markdown():
        for written, key in CITATION.findall(text):
            written = " ".join(written.replace("*", "").split())
            expected = labels.get(key.replace("-", "_"), labels.get(key))
            # "Gers et al. [2000]" names the authors in the sentence and links the year only.
            year = expected.rsplit(", ", 1)[-1] if expected else None
            if written not in (expected, year):
                wrong.append(f"{path.name}: [{written}] cites {key}, whose label is [{expected}]")
    assert not wrong, "citations that do not match the bibliography:\n" + "\n".join(sorted(set(wrong)))
