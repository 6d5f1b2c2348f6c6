"""Write the JupyterLab reading of the bibliography and the API reference into their pages (`make lab-pages`).

The notebooks link citations to ``../book/bibliography.md#key`` and functions to ``../book/api.md#module.name``. The
book builds both pages with Sphinx directives (``{bibliography}``, ``automodule``) that JupyterLab cannot run: opened
from a notebook there, the pages would show a title and nothing else. So each page carries, between the markers
below, the same content as plain MyST: every entry of ``book/references.bib``, and every public function and class
of the modules that ``book/api.md`` documents, with its signature and the first line of its docstring, each under
a target whose id is the fragment the notebooks link to. The book's build removes the block
(``book/_ext/lab_pages.py``), where the directives give the full entries; tests/test_lab_pages.py fails when a block
is out of date, and tests/lab/test_lab.py follows a citation and an API link in a running JupyterLab.

Usage: python tools/lab_pages.py [--check]   (--check: exit 1 if a page's block is out of date)
"""

import importlib
import inspect
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BEGIN = "<!-- jupyterlab: the book's build removes this block; tools/lab_pages.py writes it -->"
END = "<!-- /jupyterlab -->"
BLOCK = re.compile(re.escape(BEGIN) + r".*?" + re.escape(END) + r"\n?", re.S)


ACCENTS = {'"': "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", "~": "\u0303", "c": "\u0327", "k": "\u0328"}


def _plain(text):
    """BibTeX's braces and TeX accents (\\"e, {\\'e}, \\k{a}) as Unicode; RST's ``code`` and roles as MyST."""
    text = re.sub(r"\\([\"'`^~]|[ck](?=[\s{]))\s*\{?([A-Za-z])\}?", lambda m: m.group(2) + ACCENTS[m.group(1)], text)
    text = text.replace(r"\&", "&").replace("--", "–")
    text = re.sub(r":[a-z]+:`~?([^`]+)`", r"`\1`", text)  # :func:`name` -> `name`
    text = text.replace("``", "`")
    return unicodedata.normalize("NFC", re.sub(r"\s+", " ", text.replace("{", "").replace("}", "")).strip())


def _authors(persons):
    names = []
    for p in persons:
        initials = " ".join(n[0] + "." for n in p.first_names + p.middle_names)
        names.append(_plain(" ".join(p.prelast_names + p.last_names)) + (f", {initials}" if initials else ""))
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def bibliography_block():
    from pybtex.database import parse_file

    entries = parse_file(str(ROOT / "book" / "references.bib")).entries
    lines = ["", "The works cited, as JupyterLab shows them (the book's bibliography lists the same entries):", ""]
    order = sorted(entries.items(), key=lambda kv: (_authors(kv[1].persons.get("author", [])).lower(),
                                                     kv[1].fields.get("year", "")))
    for key, entry in order:
        fields = {name: _plain(value) for name, value in entry.fields.items()}
        where = next((fields[f] for f in ("journal", "booktitle", "publisher", "howpublished") if f in fields), None)
        authors = _authors(entry.persons.get("author", entry.persons.get("editor", [])))
        title = fields["title"] + ("" if fields["title"][-1] in ".?!" else ".")
        text = f"{authors} ({fields.get('year', 'n.d.')}). {title}" + (f" *{where}*." if where else "")
        lines += [f"({key})=", text, ""]
    return lines


def _summary(obj):
    doc = inspect.getdoc(obj) or ""
    return _plain(doc.split("\n\n")[0].replace("\n", " ")) if doc else ""


def _signature(obj):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(...)"


def api_block():
    text = (ROOT / "book" / "api.md").read_text(encoding="utf-8")
    modules = re.findall(r"^\.\. automodule:: ([\w.]+)", BLOCK.sub("", text), re.M)
    lines = ["", "The same reference, as JupyterLab shows it: each function and class with its signature and the "
             "first paragraph of its docstring (the book shows the whole docstring).", ""]
    for name in modules:
        module = importlib.import_module(name)
        lines += [f"### `{name}`", ""]
        for attr, obj in sorted(vars(module).items()):
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            if not (inspect.isfunction(obj) or inspect.isclass(obj)):
                continue
            lines += [f"({name}.{attr})=", f"**`{attr}{_signature(obj)}`** {_summary(obj)}", ""]
            if inspect.isclass(obj):
                for method, member in sorted(vars(obj).items()):
                    if method.startswith("_") or not inspect.isfunction(member):
                        continue
                    lines += [f"({name}.{attr}.{method})=",
                              f"- **`{attr}.{method}{_signature(member)}`** {_summary(member)}", ""]
    return lines


PAGES = {"bibliography.md": bibliography_block, "api.md": api_block}


def written(page, block_lines):
    """The page's text with its block replaced by (or, at the end, given) ``block_lines``."""
    text = BLOCK.sub("", page.read_text(encoding="utf-8")).rstrip("\n") + "\n"
    return text + "\n" + "\n".join([BEGIN, *block_lines, END]) + "\n"


def main(argv):
    check = "--check" in argv
    stale = []
    for name, make in PAGES.items():
        page = ROOT / "book" / name
        new = written(page, make())
        if page.read_text(encoding="utf-8") != new:
            stale.append(name)
            if not check:
                page.write_text(new, encoding="utf-8")
    if check and stale:
        print(f"out of date: {', '.join('book/' + s for s in stale)}; run make lab-pages", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
