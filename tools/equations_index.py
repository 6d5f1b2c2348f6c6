"""Generate book/equations.md: every numbered equation → the code that implements it → the tests that check it.

Nothing in the page is written by hand:

* the equations are the labelled display equations of the notebooks (``$$ … $$ (eq-label)``), numbered as the
  book numbers them: chapter number from the notebook's name, then order of appearance;
* a function or class implements equation (N.M) when the summary line of its docstring cites it ("eq. (N.M)",
  "eqs. (N.M) and (N.K)", "eqs. (N.M)–(N.K)"); citations further down a docstring are references, not claims;
* a test verifies it when the test function uses that function or class, found by resolving the test module's
  imports (``from implementations.linear.regression import predict``, ``regression.predict``, …) to the object's home
  module; a method counts for tests that use its class and call the method by name.

Usage: python tools/equations_index.py [--check]   (--check: exit 1 if book/equations.md is out of date)
"""

import ast
import importlib
import importlib.util
import re
import sys
import warnings
from collections import defaultdict
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "book" / "equations.md"
PREFIX = "implementations."
LABEL = re.compile(r"^\$\$\s*\((eq-[\w-]+)\)\s*$", re.M)
CITATION = re.compile(r"eqs?\.\s*((?:\((?:\d+|[A-Z])\.\d+\)(?:\s*(?:,|and|–|-|to)\s*)?)+)")
NUMBER = re.compile(r"\((\d+|[A-Z])\.(\d+)\)")


def equations():
    """[(chapter, number, label, title of the chapter)] for every labelled equation, in book order.

    A chapter is "1", "2", ... for notebooks/01_*.ipynb, ..., and a letter for an appendix, notebooks/A_*.ipynb.
    """
    found = []
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + sorted((ROOT / "notebooks").glob("[A-Z]_*.ipynb"))
    for path in paths:
        chapter = path.name.split("_")[0].lstrip("0")
        nb = nbformat.read(path, as_version=4)
        title = next(line[2:].strip() for c in nb.cells if c.cell_type == "markdown"
                     for line in c.source.splitlines() if line.startswith("# "))
        labels = [m.group(1) for c in nb.cells if c.cell_type == "markdown" for m in LABEL.finditer(c.source)]
        found += [(chapter, k, label, title, path.stem) for k, label in enumerate(labels, start=1)]
    return found


def cited_numbers(text):
    """{(chapter, number)} cited by "eq. (5.1)", "eqs. (1.16) and (1.22)", "eqs. (2.3)–(2.5)" or "eq. (A.2)"."""
    cited = set()
    for group in CITATION.finditer(text):
        numbers = [(a, int(b)) for a, b in NUMBER.findall(group.group(1))]
        cited.update(numbers)
        if len(numbers) == 2 and re.search(r"\)\s*(–|-|to)\s*\(", group.group(1)) and numbers[0][0] == numbers[1][0]:
            cited.update((numbers[0][0], k) for k in range(numbers[0][1], numbers[1][1] + 1))
    return cited


def implementations():
    """{(chapter, number): [qualified name]} from the docstrings of implementations/."""
    cites = defaultdict(list)
    for path in sorted((ROOT / "implementations").rglob("*.py")):
        parts = path.relative_to(ROOT).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        tree = ast.parse(path.read_text(encoding="utf-8"))

        def visit(body, prefix):
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
                    name = f"{prefix}.{node.name}"
                    summary = (ast.get_docstring(node) or "").strip().split("\n\n")[0]  # the summary paragraph
                    for eq in cited_numbers(summary):
                        cites[eq].append(name)
                    if isinstance(node, ast.ClassDef):
                        visit(node.body, name)

        visit(tree.body, module)
    return cites


def _canonical(module_name, attr):
    """implementations.<home module>.<name> of ``attr`` reached through ``module_name`` (re-exports resolved)."""
    try:
        with warnings.catch_warnings():  # a test may use a first-edition name on purpose (the aliases' tests)
            warnings.simplefilter("ignore", FutureWarning)
            obj = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError):
        return None
    home = getattr(obj, "__module__", None)
    return f"{home}.{obj.__qualname__}" if home and home.startswith("implementations") else None


def _module_of(name):
    """The module's own name (``regression``) in the qualified name of a function or method of the package."""
    parts = name.split(".")
    return next(parts[k - 1] for k in range(len(parts), 0, -1) if _is_module(".".join(parts[:k])))


def _is_module(dotted):
    """Is ``dotted`` the name of a module (or package) of the package?"""
    try:
        return importlib.util.find_spec(dotted) is not None
    except (ImportError, AttributeError, ValueError):
        return False


def tests_referring_to():
    """{qualified name: {test path::function}} for every package object a test function uses."""
    refs = defaultdict(set)
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names, modules = {}, {}  # local name -> canonical object name; local name -> module name
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("implementations"):
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    if _is_module(full):  # from implementations.linear import regression
                        modules[alias.asname or alias.name] = full
                    elif (canonical := _canonical(node.module, alias.name)) is not None:
                        names[alias.asname or alias.name] = canonical
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("implementations."):
                        modules[alias.asname or alias.name] = alias.name
        for node in tree.body:
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
                continue
            test = f"{path.relative_to(ROOT).as_posix()}::{node.name}"
            used = {names[n.id] for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in names}
            for n in ast.walk(node):
                if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) and n.value.id in modules:
                    if (canonical := _canonical(modules[n.value.id], n.attr)) is not None:
                        used.add(canonical)
            attributes = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
            for name in used:
                refs[name].add(test)
                for attr in attributes:  # methods of the classes the test uses
                    refs[f"{name}.{attr}"].add(test)
    return refs


def _dotted(node):
    """``a.b.c`` for an expression made of names and attributes, else None."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        head = _dotted(node.value)
        return f"{head}.{node.attr}" if head else None
    return None


def _shown(code):
    """The expressions listed by the ``show_source(...)`` calls of ``code``, in order (every positional argument)."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and (_dotted(node.func) or "").split(".")[-1] == "show_source":
            found += [_dotted(arg) or ast.unparse(arg) for arg in node.args]
    return sorted(found, key=code.find)


def _notebook_namespace(code):
    """{local name: module name or qualified object name} from the imports of a notebook's code."""
    local = {}
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("implementations"):
            for alias in node.names:
                full = f"{node.module}.{alias.name}"
                local[alias.asname or alias.name] = full
    return local


def _resolve(expression, local):
    """The qualified name (``implementations.<home module>.<qualname>``) of a listed expression, or None."""
    head, _, rest = expression.partition(".")
    if head not in local:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        full = local[head] + (f".{rest}" if rest else "")
        parts = full.split(".")
        for k in range(len(parts), 0, -1):
            if _is_module(".".join(parts[:k])):
                obj = importlib.import_module(".".join(parts[:k]))
                try:
                    for attr in parts[k:]:
                        obj = getattr(obj, attr)
                except AttributeError:
                    return None
                obj = getattr(obj, "__func__", obj)
                home = getattr(obj, "__module__", None)
                return f"{home}.{obj.__qualname__}" if home and hasattr(obj, "__qualname__") else None
    return None


def listings():
    """{chapter: [(expression as written, qualified name or None)]} for every ``show_source`` cell of a chapter."""
    found = {}
    paths = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")) + sorted((ROOT / "notebooks").glob("[A-Z]_*.ipynb"))
    for path in paths:
        chapter = path.name.split("_")[0].lstrip("0")
        nb = nbformat.read(path, as_version=4)
        code = "\n".join(c.source for c in nb.cells if c.cell_type == "code")
        local = _notebook_namespace(code)
        found[chapter] = [(expression, _resolve(expression, local)) for expression in _shown(code)]
    return found


def listed_in(chapter_listings, name):
    """Is the function or class ``name`` (qualified) shown by one of the chapter's listings? A class counts as shown
    when it or one of its methods is listed; a method, when it or its class is."""
    shown = {q for _, q in chapter_listings if q}
    parent = name.rsplit(".", 1)[0]
    return name in shown or parent in shown or any(q.startswith(name + ".") for q in shown)


def render():
    eqs, impl, refs, shown = equations(), implementations(), tests_referring_to(), listings()
    known = {(c, k) for c, k, *_ in eqs}
    unknown = sorted(set(impl) - known)
    if unknown:
        raise SystemExit(f"docstrings cite equations the book does not have: {unknown} in "
                         f"{[impl[u] for u in unknown]}")
    lines = ["# Equations, code and tests", "",
             "Every numbered equation of the book, the functions and classes of `implementations/` whose "
             "docstrings cite it, whether the chapter lists their code (a `show_source` listing of the function, "
             "its class or one of its methods), and the tests that exercise them. This page is generated by "
             "`tools/equations_index.py` from the notebooks, the docstrings and the tests; `make test` fails "
             "when it is out of date.", ""]
    chapter = None
    for c, k, label, title, _ in eqs:
        if c != chapter:
            chapter = c
            lines += ["", f"## {'Chapter' if c.isdigit() else 'Appendix'} {c}: {title}", ""]
        names = impl.get((c, k), [])
        code = ", ".join(f"`{n.removeprefix(PREFIX)}`" for n in names)

        def relevance(test, names=names):  # tests named after the function, then its module's tests, first
            file, func = test.split("::")
            return (not any(n.rsplit(".", 1)[-1].lower() in func.lower() for n in names),
                    not any(file.endswith(f"test_{_module_of(n)}.py") for n in names), test)

        tests = sorted({t for n in names for t in refs.get(n, ())}, key=relevance)
        if not names:
            lines.append(f"- {{eq}}`{label}`: derived in the text; no function implements it on its own.")
            continue
        files = sorted({t.split("::")[0].split("/")[-1] for t in tests})
        first = ", ".join(f"`{t.split('::')[1]}`" for t in tests[:3])
        more = f" and {len(tests) - 3} more" if len(tests) > 3 else ""
        verified = f"tested by {first}{more} (in {', '.join(files)})" if tests else "no test refers to it"
        listed = [n for n in names if listed_in(shown.get(c, []), n)]
        where = ("its code is listed in the chapter" if len(listed) == len(names) else
                 f"listed in the chapter: {', '.join(f'`{n.removeprefix(PREFIX)}`' for n in listed) or 'none'}")
        lines.append(f"- {{eq}}`{label}`: {code}; {where}; {verified}.")
    return "\n".join(lines) + "\n"


def main():
    text = render()
    if "--check" in sys.argv[1:]:
        if not PAGE.exists() or PAGE.read_text(encoding="utf-8") != text:
            print(f"{PAGE.relative_to(ROOT)} is out of date: run python tools/equations_index.py")
            sys.exit(1)
        print(f"{PAGE.relative_to(ROOT)} is up to date")
        return
    PAGE.write_text(text, encoding="utf-8")
    print(f"wrote {PAGE.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
