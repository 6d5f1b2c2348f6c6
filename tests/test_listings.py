"""Every chapter shows the code of its equations: a listing, from the package source, of each public function or class
whose docstring says it implements one of the chapter's numbered equations (book/equations.md is the list), never a
private twin, and no listing carries input-check lines: the checks are declared above the function, its body is the
maths.

Run one chapter with ``pytest tests/test_listings.py -k ch4``.
"""

import importlib.util
import inspect
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
spec = importlib.util.spec_from_file_location("equations_index", ROOT / "tools" / "equations_index.py")
equations_index = importlib.util.module_from_spec(spec)
spec.loader.exec_module(equations_index)

sys.path.insert(0, str(ROOT / "book" / "_ext"))
from api_backlinks import CHAPTER_OF  # noqa: E402

EQUATIONS = equations_index.equations()
IMPLEMENTED = equations_index.implementations()
LISTINGS = equations_index.listings()
CHAPTERS = sorted({c for c, *_ in EQUATIONS}, key=lambda c: (not c.isdigit(), c.zfill(2)))

# A line of a listing that checks input rather than computing: a raised ValueError or TypeError, a call of one of the
# package's validators, a conversion of an argument.
CHECK_LINE = re.compile(r"\braise (ValueError|TypeError)\b|\b_?check_\w+\(|\bas_(finite_)?array\(|_tensor_argument\(|"
                        r"\b_\w*checks\.\w+\(|\b_validation\.\w+\(")


def _home(name):
    """The chapter that teaches the module of ``name`` (as the API page's back-links say), or None for the book's
    helpers and shared kernels, whose functions belong to the chapter of the equation they implement."""
    module = name.removeprefix("implementations.")
    while module and module not in CHAPTER_OF:
        module = module.rpartition(".")[0]
    return str(CHAPTER_OF[module]) if module else None


def _functions_of(chapter):
    """The qualified names of the functions and classes that chapter ``chapter`` must list: those implementing one of
    its equations that it teaches (or that a helper implements), and those it teaches that implement an earlier
    chapter's equation (chapter 4's cross-entropy on Tensors implements eq. (2.14); chapter 4 lists it)."""
    return sorted({n for (c, _), names in IMPLEMENTED.items() for n in names
                   if (c == chapter and _home(n) in (chapter, None)) or _home(n) == chapter})


def _source(qualified):
    """The source of the function, class or method with that qualified name."""
    parts = qualified.split(".")
    k = max(k for k in range(1, len(parts)) if equations_index._is_module(".".join(parts[:k])))
    obj = importlib.import_module(".".join(parts[:k]))
    for attr in parts[k:]:
        obj = getattr(obj, attr)
    return inspect.getsource(inspect.unwrap(getattr(obj, "__func__", obj)))


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[f"ch{c}" for c in CHAPTERS])
def test_every_function_of_an_equation_is_listed_in_its_chapter(chapter):
    missing = [n for n in _functions_of(chapter) if not equations_index.listed_in(LISTINGS.get(chapter, []), n)]
    assert not missing, f"chapter {chapter} does not list the code of {missing}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[f"ch{c}" for c in CHAPTERS])
def test_listings_show_public_names_that_resolve(chapter):
    private = [e for e, _ in LISTINGS.get(chapter, []) if any(p.startswith("_") and not p.startswith("__")
                                                               for p in e.split("."))]
    unresolved = [e for e, q in LISTINGS.get(chapter, []) if q is None]
    assert not private, f"chapter {chapter} lists private names: {private}"
    assert not unresolved, f"chapter {chapter} lists names that do not resolve to the package: {unresolved}"


@pytest.mark.parametrize("chapter", CHAPTERS, ids=[f"ch{c}" for c in CHAPTERS])
def test_listings_carry_no_input_checks(chapter):
    found = []
    for expression, qualified in LISTINGS.get(chapter, []):
        if qualified is None:
            continue
        for line in _source(qualified).splitlines():
            if CHECK_LINE.search(line.split("#")[0]) and not line.lstrip().startswith("@checked"):
                found.append(f"{expression}: {line.strip()}")
    assert not found, f"chapter {chapter}'s listings check input in their bodies:\n" + "\n".join(found)


def test_the_check_pattern_has_teeth():
    assert CHECK_LINE.search('    raise ValueError(f"x must be")') and CHECK_LINE.search("X = check_X(X)")
    assert CHECK_LINE.search("x = _tensor_argument(x, 'x')")
    assert CHECK_LINE.search("a = as_finite_array(a, 'a', ndim=2)")
    assert CHECK_LINE.search("fx = _checks.branch_output(self.branch(x), x)")
    assert not CHECK_LINE.search("residual = y - Phi @ w  # (N,)")
    assert not CHECK_LINE.search("raise FloatingPointError('diverged')")
