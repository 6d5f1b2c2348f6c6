"""The package's layout: one folder per part of the book, imports that follow the order of the book, a wheel that
carries every part, and the first edition's flat module names still working, with a warning, for this edition.

A reader's student copy saved from the first edition imports ``from implementations import regression`` and calls
``regression.huber``; ``tests/fixtures/first_edition_student_code.json`` holds the code cells of every first-edition
notebook (solutions removed, as ``make student`` wrote them), so that these tests read what such a copy asks for.
"""

import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
import warnings
import zipfile
from pathlib import Path

import pytest

import implementations

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "implementations"
FIRST_EDITION = json.loads((ROOT / "tests" / "fixtures" / "first_edition_student_code.json").read_text("utf-8"))
PARTS = ["linear", "kernel_methods", "engine", "nn", "sequence", "language", "unsupervised", "generative",
         "evaluation", "preliminaries", "data", "notebook"]

# The chapter of each part's modules, for the rule that no module imports from a later chapter's module. The parts
# without a chapter are the book's helpers and shared kernels, which any chapter may use.
sys.path.insert(0, str(ROOT / "book" / "_ext"))
from api_backlinks import CHAPTER_OF  # noqa: E402

# --- the first edition's names ---------------------------------------------------------------------------------------

def _first_edition_references():
    """{(old module, attribute)} that the first edition's notebooks take from a flat module of the package."""
    found = set()
    for cells in FIRST_EDITION.values():
        tree = ast.parse("\n".join(cells))
        local = {}  # local name -> old module
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == "implementations":
                for alias in node.names:
                    local[alias.asname or alias.name] = alias.name
            elif isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("implementations."):
                for alias in node.names:
                    found.add((node.module.split(".", 1)[1], alias.name))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in local:
                found.add((local[node.value.id], node.attr))
    return sorted(found)


REFERENCES = _first_edition_references()


def _old_module(old):
    """The first-edition module ``old`` as a reader's copy gets it, without a warning being raised here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return importlib.import_module(f"implementations.{old}")


def test_the_first_edition_used_many_flat_names():
    """The fixture is read: the references include the re-exports that moved (regression.huber, logistic.softmax)."""
    assert len(REFERENCES) > 200
    assert ("regression", "huber") in REFERENCES and ("logistic", "softmax") in REFERENCES


@pytest.mark.parametrize(("old", "attr"), REFERENCES, ids=[f"{o}.{a}" for o, a in REFERENCES])
def test_every_name_a_first_edition_copy_uses_still_resolves(old, attr):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)  # nn and sequence warn per name (tested below)
        assert hasattr(_old_module(old), attr), f"implementations.{old}.{attr} no longer resolves"


@pytest.mark.parametrize("old", sorted(implementations._MOVED))
def test_an_old_name_warns_once_and_says_how_to_import_it_now(old):
    new = implementations._MOVED[old][0]
    sys.modules.pop(f"implementations.{old}", None)
    with pytest.warns(FutureWarning, match=rf"implementations\.{old} is now implementations\.{new}\b.*import it as"):
        module = importlib.import_module(f"implementations.{old}")
    home = importlib.import_module(f"implementations.{new}")
    for name in getattr(home, "__all__", []):
        assert getattr(module, name) is getattr(home, name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second import is silent
        assert importlib.import_module(f"implementations.{old}") is module
        from implementations import __getattr__ as package_getattr

        assert package_getattr(old) is module


def test_an_unknown_old_name_is_an_attribute_error_that_names_it():
    with pytest.raises(AttributeError, match="no attribute 'regresion'"):
        implementations.regresion  # noqa: B018
    with pytest.raises(AttributeError, match="'nothing_like_this'"):
        _old_module("regression").nothing_like_this  # noqa: B018


def test_part_namespaces_keep_the_old_module_names_of_nn_and_sequence():
    """``implementations.nn`` and ``implementations.sequence`` were modules and are now packages: their first-edition
    names still resolve, those that moved with a warning."""
    from implementations import nn, sequence

    assert nn.Linear.__module__ == "implementations.nn.layers" and sequence.LSTM.__module__.endswith("recurrent")
    with pytest.warns(FutureWarning, match="parameter_count is now implementations.nn.module.parameter_count"):
        assert sequence.parameter_count is nn.parameter_count


@pytest.mark.parametrize("chapter", ["01_linear_regression.ipynb", "02_logistic_regression.ipynb"])
def test_a_first_edition_student_copy_runs_top_to_bottom(chapter, tmp_path):
    """The chapters whose copies use the most moved names run in a kernel, as a reader runs them, and show the
    warning with its remedy once per old name."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code) for code in FIRST_EDITION[chapter]])
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    client = nbclient.NotebookClient(notebook, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.km_kwargs = {"env": env} if hasattr(client, "km_kwargs") else None
    client.execute()
    text = "\n".join(o.get("text", "") for c in notebook.cells for o in c.get("outputs", []))
    errors = [o for c in notebook.cells for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
    assert "is now implementations.linear.regression" in text and "import it as" in text


# --- the layout --------------------------------------------------------------------------------------------------

def _modules():
    """{dotted name below implementations: path} of every module of the package."""
    found = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _imports(name, path):
    """The modules of the package that module ``name`` imports, at the top or inside functions."""
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                stem = [*base, *(node.module.split(".") if node.module else [])]
            elif node.module and node.module.startswith("implementations"):
                stem = node.module.split(".")[1:]
            else:
                continue
            for alias in node.names:  # `from . import x` imports module x; `from .m import y` imports m
                candidate = ".".join([*stem, alias.name])
                found.add(candidate if candidate in MODULES else ".".join(stem))
    return {m for m in found if m and m != name}


MODULES = _modules()
GRAPH = {name: _imports(name, path) for name, path in MODULES.items()}


def test_every_part_is_a_folder_of_the_package():
    assert sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists()) == sorted(PARTS)
    flat = sorted(p.stem for p in PACKAGE.glob("*.py") if not p.stem.startswith("_"))
    assert flat == ["numeric"], f"modules outside the parts' folders: {flat}"  # the kernels every part shares


def test_no_import_circle():
    seen, stack, circles = set(), [], []

    def visit(node):
        if node in stack:
            circles.append(stack[stack.index(node):] + [node])
            return
        if node in seen:
            return
        seen.add(node)
        stack.append(node)
        for child in sorted(GRAPH.get(node, ())):
            visit(child)
        stack.pop()

    for module in sorted(MODULES):
        visit(module)
    assert not circles, f"import circles: {circles}"


def test_no_module_imports_from_a_later_chapter():
    later = [(m, d) for m, deps in GRAPH.items() if m in CHAPTER_OF for d in deps
             if d in CHAPTER_OF and CHAPTER_OF[d] > CHAPTER_OF[m]]
    assert not later, f"modules that import a later chapter's module: {later}"


def test_the_engine_imports_no_chapter_module():
    outside = {(m, d) for m, deps in GRAPH.items() if m.startswith("engine") for d in deps
               if not (d.startswith("engine") or d.startswith("_") or d == "numeric")}
    assert not outside, f"the engine imports {sorted(outside)}"


def test_every_taught_module_has_a_home_chapter():
    """The API page's back-links need each taught module's chapter; helpers and private modules need none."""
    helpers = ("data", "notebook", "preliminaries")
    taught = [m for m, p in MODULES.items() if "." in m and p.name != "__init__.py" and not m.startswith(helpers)
              and not any(part.startswith("_") for part in m.split("."))]
    assert sorted(set(taught) - set(CHAPTER_OF)) == [] and sorted(set(CHAPTER_OF) - set(MODULES)) == []


def test_the_api_page_documents_every_public_module():
    page = (ROOT / "book" / "api.md").read_text("utf-8")
    documented = {line.split("::")[1].strip() for line in page.splitlines() if line.startswith(".. automodule::")}
    public = {f"implementations.{m}" for m, p in MODULES.items()
              if ("." in m or m == "numeric") and p.name != "__init__.py"
              and not any(part.startswith("_") for part in m.split("."))}
    assert documented == public


# --- the wheel -----------------------------------------------------------------------------------------------------

def test_the_wheel_carries_every_part_and_imports_from_it(tmp_path):
    """``pip wheel`` of a copy of the project (the working tree stays clean), then a module of every part is imported
    from the wheel alone."""
    source = tmp_path / "source"
    source.mkdir()
    shutil.copy(ROOT / "pyproject.toml", source)
    shutil.copy(ROOT / "README.md", source)
    shutil.copytree(PACKAGE, source / "implementations", ignore=shutil.ignore_patterns("__pycache__"))
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--quiet",
                            "-w", str(tmp_path / "dist"), str(source)], capture_output=True, text=True)
    assert built.returncode == 0, built.stderr[-2000:]
    wheel = next((tmp_path / "dist").glob("implementations-*.whl"))
    names = set(zipfile.ZipFile(wheel).namelist())
    missing = sorted(f"implementations/{m.replace('.', '/')}.py" for m, p in MODULES.items()
                     if p.name != "__init__.py" and f"implementations/{m.replace('.', '/')}.py" not in names)
    assert not missing, f"modules missing from the wheel: {missing}"
    one_of_each = [next(m for m, p in MODULES.items() if m.startswith(part + ".") and p.name != "__init__.py")
                   for part in PARTS]
    code = ("import importlib, sys; sys.path.insert(0, sys.argv[1]); import implementations; "
            "assert implementations.__file__.startswith(sys.argv[1]), implementations.__file__; "
            "[importlib.import_module('implementations.' + m) for m in sys.argv[2:]]")
    imported = subprocess.run([sys.executable, "-c", code, str(wheel), *one_of_each], capture_output=True, text=True,
                              cwd=tmp_path)
    assert imported.returncode == 0, imported.stderr[-2000:]


def _api_links():
    """Every ``api.md#implementations.…`` target that a notebook or a page of the book links to."""
    import re

    found = set()
    for path in [*ROOT.glob("notebooks/*.ipynb"), *ROOT.glob("book/*.md")]:
        found |= set(re.findall(r"api\.md#(implementations\.[\w.]+)", path.read_text("utf-8")))
    return sorted(found)


@pytest.mark.parametrize("target", _api_links())
def test_every_link_into_the_api_page_names_an_object_where_it_is_defined(target):
    """The API page documents each object in its home module, so a link to it must use that full name."""
    module_name, _, rest = target.partition(".")
    parts = target.split(".")
    for k in range(len(parts) - 1, 0, -1):  # the longest prefix that is a module
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            obj = getattr(obj, attr)
        home = f"{obj.__module__}.{obj.__qualname__}" if hasattr(obj, "__qualname__") else None
        assert home == target, f"{target} is defined as {home}"
        return
    pytest.fail(f"{target} names no module of the package")
