"""How the package reads: the listings of each chapter, the share of its code that checks input, its largest modules.

Prints three tables, for the tree it is run from (or ``--root DIR``, another checkout):

1. per chapter, the functions and classes that implement its numbered equations (their docstring summaries cite one;
   the rule of tests/test_listings.py) and how many of them the chapter shows by public name with ``show_source``;
2. the package's code lines (not blank, not comments, not docstrings) and how many of them check a caller's input:
   the modules and functions of checks (``_validation``, ``_contract``, a part's ``_checks``, any function named
   ``check…`` or ``_check…``), every line of a ``raise ValueError(…)`` or ``raise TypeError(…)`` statement, and every
   line that calls a validator (``check_…(``, ``as_array(``, ``_tensor_argument(``…); the declarations
   (``@checked(…)``) are counted apart;
3. the largest modules, in lines.

Usage: python tools/package_report.py [--root DIR]
"""

import argparse
import ast
import io
import re
import tokenize
from pathlib import Path

# check_function and check_gradient verify a reader's code (the exercises, the gradients), not a caller's input
CALLS = re.compile(r"\b_?check_(?!function\(|gradient\()\w+\(|\bas_(finite_)?array\(|_tensor_argument\(|\b_check\w*\("
                   r"|\b_\w*checks\.\w+\(|\b_validation\.\w+\(")
CHECK_MODULES = ("_validation.py", "_contract.py", "_checks.py")


def is_check_module(path):
    return path.name in CHECK_MODULES or (path.name.startswith("_") and path.name.endswith("_checks.py"))


def code_lines(source):
    """{line number} of the lines that hold code: not blank, not only a comment, not part of a docstring."""
    lines = set()
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                              tokenize.ENDMARKER, tokenize.STRING):
            lines.update(range(token.start[0], token.end[0] + 1))
    tree = ast.parse(source)
    docstrings = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(
                    first.value.value, str):
                docstrings.update(range(first.lineno, first.end_lineno + 1))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):  # strings that are code (not docstrings)
        if token.type == tokenize.STRING and token.start[0] not in docstrings:
            lines.update(range(token.start[0], token.end[0] + 1))
    return lines - docstrings


def check_lines(path, source):
    """({check line numbers}, {declaration line numbers}) of one module."""
    tree = ast.parse(source)
    checks, declarations = set(), set()
    whole_module = is_check_module(path)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if whole_module or (node.name.lstrip("_").startswith("check")
                                and node.name not in ("check_function", "check_gradient")):
                checks.update(range(node.lineno, node.end_lineno + 1))
            for decorator in node.decorator_list:
                if "checked" in ast.unparse(decorator).split("(")[0]:
                    declarations.update(range(decorator.lineno, decorator.end_lineno + 1))
        elif isinstance(node, ast.Raise) and node.exc is not None:
            name = ast.unparse(node.exc).split("(")[0]
            if name in ("ValueError", "TypeError"):
                checks.update(range(node.lineno, node.end_lineno + 1))
    if whole_module:
        checks.update(range(1, len(source.splitlines()) + 1))
    for k, line in enumerate(source.splitlines(), start=1):
        if CALLS.search(line.split("#")[0]) and k not in declarations:
            checks.add(k)
    return checks, declarations - checks


def package_counts(root):
    """(code lines, check lines, of them in the modules of checks, declaration lines, [(lines, module)])."""
    total = checks = apart = declarations = 0
    sizes = []
    for path in sorted((root / "implementations").rglob("*.py")):
        source = path.read_text("utf-8")
        code = code_lines(source)
        chk, dec = check_lines(path, source)
        total += len(code)
        checks += len(code & chk)
        apart += len(code & chk) if is_check_module(path) else 0
        declarations += len(code & dec)
        sizes.append((len(source.splitlines()), path.relative_to(root).as_posix()))
    return total, checks, apart, declarations, sorted(sizes, reverse=True)


def listing_table(root):
    """[(chapter, functions to list, listed by public name, listed lines, check lines in them)] via the test's rule."""
    import importlib.util
    import sys

    sys.path.insert(0, str(root))
    spec = importlib.util.spec_from_file_location("test_listings", root / "tests" / "test_listings.py")
    if spec is None or not (root / "tests" / "test_listings.py").exists():
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    rows = []
    for chapter in module.CHAPTERS:
        required = module._functions_of(chapter)
        listings = module.LISTINGS.get(chapter, [])
        public = [(e, q) for e, q in listings if q and not any(p.startswith("_") and not p.startswith("__")
                                                                for p in e.split("."))]
        shown = [n for n in required if module.equations_index.listed_in(public, n)]
        lines = checked = 0
        for _, qualified in listings:
            if qualified:
                source = module._source(qualified)
                body = [line for line in source.splitlines() if line.strip()]
                lines += len(body)
                checked += sum(1 for line in body if module.CHECK_LINE.search(line.split("#")[0])
                               and not line.lstrip().startswith("@checked"))
        rows.append((chapter, len(required), len(shown), lines, checked))
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    args = parser.parse_args()
    root = args.root.resolve()
    rows = listing_table(root)
    if rows:
        print("| chapter | functions implementing its equations | shown in the chapter by public name | lines listed "
              "| of them input checks |")
        print("|---|---|---|---|---|")
        for chapter, required, shown, lines, checked in rows:
            print(f"| {chapter} | {required} | {shown} | {lines} | {checked} |")
        print(f"| all | {sum(r[1] for r in rows)} | {sum(r[2] for r in rows)} | {sum(r[3] for r in rows)} "
              f"| {sum(r[4] for r in rows)} |")
        print()
    total, checks, apart, declarations, sizes = package_counts(root)
    print(f"code lines {total}; input checks {checks} ({checks / total:.0%}): {apart} in the modules of checks "
          f"(_validation, _contract, the parts' _checks), {checks - apart} ({(checks - apart) / total:.0%}) inline in "
          f"the other modules; declarations {declarations} ({declarations / total:.0%})")
    print("largest modules: " + ", ".join(f"{path} {n}" for n, path in sizes[:5]))


if __name__ == "__main__":
    main()
