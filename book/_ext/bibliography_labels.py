"""Bibliography labels in the author-year form of the book's citations: [Bishop, 2006], [Hastie et al., 2009].

The chapters cite a work by author and year, in links written by hand
(``[[Widrow and Hoff, 1960](../book/bibliography.md#widrow1960adaptive)]``). pybtex's default labels ([WH60]) would
not match them in the bibliography, on the page or in the PDF. This extension registers a pybtex style,
``authoryear``: pybtex's alpha style (entries sorted by author, year and title) with the labels "Author, Year",
"Author and Other, Year" or "Author et al., Year", and a letter after the year where two works would share a label
("He et al., 2016a", "He et al., 2016b"). ``tests/test_references.py`` checks that every citation in the book is
written with its entry's label.

Selected in ``_config.yml`` (``bibtex_default_style: authoryear`` under ``sphinx.config``) and registered there
under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import codecs
from collections import Counter
from string import ascii_lowercase

import latexcodec  # noqa: F401  (registers the "ulatex" codec)
from pybtex.plugin import register_plugin
from pybtex.style.formatting.alpha import Style as AlphaStyle
from pybtex.style.labels import BaseLabelStyle


def _surname(person) -> str:
    """The surname as printed: "van Merriënboer" from ``van Merri{\\"e}nboer``."""
    return codecs.decode(" ".join([*person.prelast_names, *person.last_names]), "ulatex").replace("{", "").replace(
        "}", "")


def author_year(entry) -> str:
    """"Author, Year", "Author and Other, Year" or "Author et al., Year" for a pybtex entry."""
    people = entry.persons.get("author") or entry.persons.get("editor") or []
    names = [_surname(person) for person in people]
    if not names:
        who = entry.fields.get("organization") or entry.fields.get("title", "Anonymous")
    elif len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who}, {entry.fields.get('year', 'n.d.')}"


def labels(entries) -> list[str]:
    """The labels of ``entries`` (in their order), with a, b, ... after the year where two would be the same."""
    base = [author_year(entry) for entry in entries]
    shared = Counter(base)
    seen: Counter = Counter()
    result = []
    for label in base:
        if shared[label] > 1:
            result.append(label + ascii_lowercase[seen[label]])
            seen[label] += 1
        else:
            result.append(label)
    return result


class AuthorYearLabels(BaseLabelStyle):
    def format_labels(self, sorted_entries):
        yield from labels(list(sorted_entries))


class AuthorYearStyle(AlphaStyle):
    default_label_style = AuthorYearLabels


def setup(app) -> dict:
    register_plugin("pybtex.style.formatting", "authoryear", AuthorYearStyle)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
