"""A cell that trains gives its stored output however often it runs.

A reader runs a training cell again, or edits one setting in it and runs it, and must see what the cell's own code
does. A model built in an earlier cell and trained in this one would instead go on from the weights the last run
left, and a random generator made in an earlier cell would hand out new numbers: the cell warm-starts silently, and
its second run differs from its first. So every cell that trains builds its model, its optimizer and its `rng` itself
(a function defined in an earlier cell may build them), and

- carries the tag ``rerun``, which `make test`'s strict nbval (``tools/run_nbval.py``, ``--nbval-rerun`` of
  ``tools/nbval_book.py``) turns into a second run of the cell right after its first, compared with the stored
  outputs like the first. The tests below require the tag on every cell that calls a training function, and check
  the mechanism on planted notebooks;
- draws only from generators it makes itself: a cell that uses a generator another cell made fails here, whether it
  trains or not.

What counts as training, read from the cell's code: a call of an optimizer's or a schedule's ``step``, of
``backward`` (gradients accumulate), of a function or method named ``fit`` or ``train`` or ``fit_…`` or ``train_…``
(``fit_logistic``, ``train_gan``, ``model.train()``, …; not ``train_test_split``), of the package's other iterative
fitters (``TRAINERS``), or of a function defined in the notebook that calls any of these.
"""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from jupyter_cache import get_cache

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))
import run_nbval  # noqa: E402
from nbval_book import RERUN_TAG  # noqa: E402

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))

# Calls that train or accumulate gradients, by the called name (``regression.sgd(...)``, ``optimizer.step()``).
TRAINERS = {"step", "backward", "gradient_descent", "sgd", "descend", "perceptron", "newton", "lasso_path", "gan_step"}
TRAINING_PREFIX = re.compile(r"(fit|train)(_|$)")
NOT_TRAINERS = {"train_test_split"}
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


# --- reading a cell's code --------------------------------------------------------------------------------------------

def _called_name(call):
    return call.func.attr if isinstance(call.func, ast.Attribute) else getattr(call.func, "id", None)


def _trains(call, notebook_trainers):
    """Whether ``call`` trains: a training name, or a function of the notebook (called by its bare name) that trains."""
    name = _called_name(call)
    if name is None or name in NOT_TRAINERS:
        return False
    if isinstance(call.func, ast.Name) and name in notebook_trainers:
        return True
    return name in TRAINERS or TRAINING_PREFIX.match(name) is not None


def _own_calls(node):
    """The calls a cell makes when it runs: those outside the functions and classes it only defines."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, DEFINITIONS):
            continue
        if isinstance(child, ast.Call):
            yield child
        yield from _own_calls(child)


def training_calls(sources):
    """For each cell's source, in order, the sorted names of the training functions it calls."""
    notebook_trainers, found = set(), []
    for source in sources:
        tree = ast.parse(source)
        definitions = [node for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
        grown = True
        while grown:  # a function that calls one that trains trains too, however deep
            grown = False
            for definition in definitions:
                calls = [node for node in ast.walk(definition) if isinstance(node, ast.Call)]
                if definition.name not in notebook_trainers and any(_trains(c, notebook_trainers) for c in calls):
                    notebook_trainers.add(definition.name)
                    grown = True
        found.append(sorted({_called_name(call) for call in _own_calls(tree) if _trains(call, notebook_trainers)}))
    return found


def _generators_made(tree):
    """Names the cell binds to ``default_rng(...)`` (``rng = np.random.default_rng(SEED)``)."""
    return {target.id for node in ast.walk(tree) if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
            and _called_name(node.value) == "default_rng" for target in node.targets if isinstance(target, ast.Name)}


def _locals_of(function):
    """The names a function or lambda binds itself: its parameters and what its own body assigns."""
    arguments = function.args
    names = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                             *filter(None, [arguments.vararg, arguments.kwarg])]}
    body = function.body if isinstance(function.body, list) else [function.body]
    stack = list(body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        if not isinstance(node, (*DEFINITIONS, ast.Lambda)):
            stack.extend(ast.iter_child_nodes(node))
    return names


def _uses_before_binding(tree, name):
    """Whether the cell reads the global ``name`` before it binds it (at its own level), or without binding it."""
    loads, stores = [], []

    def visit(node, shadowed):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            shadowed = shadowed or name in _locals_of(node)  # a parameter or a local of that name hides the global
        if isinstance(node, ast.Name) and node.id == name and not shadowed:
            (stores if isinstance(node.ctx, ast.Store) else loads).append((node.lineno, node.col_offset))
        for child in ast.iter_child_nodes(node):
            visit(child, shadowed)

    visit(tree, False)
    if not loads:
        return False
    return not stores or min(loads) < min(stores)


def borrowed_generators(sources):
    """For each cell's source, in order, {name: index of the cell that made it} of the generators it draws from but
    did not make."""
    made, found = {}, []
    for index, source in enumerate(sources):
        tree = ast.parse(source)
        found.append({name: maker for name, maker in made.items() if _uses_before_binding(tree, name)})
        made.update(dict.fromkeys(_generators_made(tree), index))
    return found


def code_cells(path):
    return [cell for cell in nbformat.read(path, as_version=4).cells if cell.cell_type == "code"]


# --- the chapters -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_every_cell_that_trains_runs_twice_under_nbval(path):
    cells = code_cells(path)
    untagged = [f"code cell {i} calls {', '.join(names)}: {cell.source.splitlines()[0][:60]!r}"
                for i, (cell, names) in enumerate(zip(cells, training_calls([c.source for c in cells]), strict=True))
                if names and RERUN_TAG not in cell.metadata.get("tags", [])]
    assert not untagged, (f"{path.name}: cells that train without the tag {RERUN_TAG!r} (add it, after making sure the "
                          "cell builds its model, optimizer and rng itself):\n" + "\n".join(untagged))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_no_cell_draws_from_a_generator_another_cell_made(path):
    cells = code_cells(path)
    borrowed = [f"code cell {i} draws from {name!r}, made by code cell {maker}"
                for i, names in enumerate(borrowed_generators([c.source for c in cells]))
                for name, maker in names.items()]
    assert not borrowed, (f"{path.name}: running such a cell again draws other numbers; give it its own "
                          "`rng = np.random.default_rng(SEED)`:\n" + "\n".join(borrowed))


# --- what the static rules see ----------------------------------------------------------------------------------------

def test_training_calls_follow_the_notebooks_own_functions():
    sources = ["from implementations.data import preprocessing\nsplit = preprocessing.train_test_split",
               "def fit_one(model, X):\n    model.fit(X)\n\n\ndef run(model, X):\n    return fit_one(model, X)",
               "model = make()\nrun(model, X)",  # calls a function that calls one that fits
               "loss.backward()\noptimizer.step()",
               "plt.show()\nw = regression.normal_equations(X, y)",  # a closed form is not a training function
               "def train(model):\n    pass",  # defined, not called
               "X_train, X_test = preprocessing.train_test_split(X)\nmodel.train()\nw = logistic.fit_logistic(X, y)"]
    assert training_calls(sources) == [[], [], ["run"], ["backward", "step"], [], [], ["fit_logistic", "train"]]


def test_borrowed_generators_are_found_and_own_ones_are_not():
    sources = ["rng = np.random.default_rng(0)\nx = rng.normal(size=3)",
               "y = rng.normal(size=3)",  # drawn from the first cell's generator
               "rng = np.random.default_rng(1)\nz = [rng.normal() for _ in range(3)]",  # its own
               "def draw(rng):\n    return rng.normal()\n\n\nw = draw(np.random.default_rng(2))",  # a parameter
               "def draw_global():\n    return rng.normal()",  # a function of the cell reads the global
               "v = rng.normal()\nrng = np.random.default_rng(3)",  # made after it is drawn from
               "test_rng = np.random.default_rng(4)",
               "data = make(rng=test_rng)"]
    assert borrowed_generators(sources) == [{}, {"rng": 0}, {}, {}, {"rng": 2}, {"rng": 2}, {}, {"test_rng": 6}]


# --- the second run, on planted notebooks -----------------------------------------------------------------------------

SETUP = """import numpy as np

from implementations.engine import functional as F
from implementations.nn import Linear
from implementations.nn.optim import Adam

rng, other_rng = np.random.default_rng(0), np.random.default_rng(1)
X, y = np.random.default_rng(2).normal(size=(32, 4)), np.random.default_rng(3).integers(0, 3, size=32)
model = Linear(4, 3, rng=np.random.default_rng(4))
counter = [100]"""

TRAIN = """optimizer = Adam(model.parameters(), lr=0.1)
for _ in range(20):
    loss = F.cross_entropy(model(X), y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if _ in (9, 19):
        print(f"training loss after {_ + 1} steps: {loss.item():.4f}")"""

PLANTED = {  # notebook: [(source, tags)]; the comment says what the test expects of each cell
    "warm.ipynb": [
        (SETUP, []),
        (TRAIN, [RERUN_TAG]),  # 1: trains the model of cell 0, like chapter 5's first CNN: its second run differs
        ("model = Linear(4, 3, rng=np.random.default_rng(4))\n" + TRAIN, [RERUN_TAG]),  # 2: builds its own: passes
        ("print(rng.integers(10**9))", [RERUN_TAG]),  # 3: draws from cell 0's generator: its second run differs
        ("print(other_rng.integers(10**9))", []),  # 4: the same, untagged: runs once and passes
    ],
    "recorded.ipynb": [
        ("counter = [100]", []),
        ("counter[0] += 1\nprint(counter[0])", [RERUN_TAG, "nbval-rtol=0.05"]),  # 102 on its second run: within 5 %
    ],
}


def _stored(cells):
    """A notebook of ``cells`` storing one top-to-bottom run, as `make execute` leaves it (run here, in-process)."""
    import contextlib
    import io

    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    namespace = {}
    for count, (source, tags) in enumerate(cells, start=1):
        printed = io.StringIO()
        with contextlib.redirect_stdout(printed):
            exec(compile(source, f"<cell {count}>", "exec"), namespace)
        cell = nbformat.v4.new_code_cell(source, execution_count=count)
        cell.metadata["tags"] = tags
        cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=line)  # one output per line, as a
                        for line in printed.getvalue().splitlines(keepends=True)]  # kernel may send them
        nb.cells.append(cell)
    return nb


@pytest.fixture(scope="module")
def second_runs(tmp_path_factory):
    """One strict nbval run with --nbval-rerun over the planted notebooks: (failed cells, output, folder)."""
    folder = tmp_path_factory.mktemp("planted")
    for name, cells in PLANTED.items():
        nbformat.write(_stored(cells), folder / name)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tools"), "OPENBLAS_NUM_THREADS": "1"}
    env.pop("MPLBACKEND", None)
    run = subprocess.run([sys.executable, "-m", "pytest", "-p", "nbval_book", "--nbval", "--nbval-current-env",
                          "-p", "no:cacheprovider", "-rf", "--nbval-rerun", "--nbval-record-cache",
                          str(folder / "cache"), *PLANTED], cwd=folder, env=env, capture_output=True, text=True,
                         timeout=300)
    failed = re.findall(r"^FAILED (\S+)::Cell (\d+)", run.stdout, flags=re.MULTILINE)
    return {(name, int(cell)) for name, cell in failed}, run.stdout, folder


def test_a_cell_that_continues_from_an_earlier_cells_state_fails_its_second_run(second_runs):
    """Chapter 5's first CNN was built in one cell and trained in the next: a second run trained it further."""
    failed, output, _ = second_runs
    assert failed == {("warm.ipynb", 1), ("warm.ipynb", 3)}, output
    report = output.split("short test summary info")[0]  # with CI set, pytest repeats whole messages in the summary
    assert report.count("Second run: Cell outputs differ") == 2, output  # the first runs matched
    assert "its rng (from a seed) in the cell itself" in output


def test_the_first_runs_outputs_are_the_ones_recorded_for_the_book(second_runs):
    _, output, folder = second_runs
    nb = nbformat.read(folder / "recorded.ipynb", as_version=4)
    _, merged = get_cache(str(folder / "cache")).merge_match_into_notebook(nb)
    assert merged.cells[1].outputs[0].text == "101\n", output
    with pytest.raises(KeyError):  # a notebook with a failing second run is not given to the book
        get_cache(str(folder / "cache")).match_cache_notebook(nbformat.read(folder / "warm.ipynb", as_version=4))


def test_run_nbval_names_the_cells_that_failed_their_second_run_and_the_fix(second_runs):
    _, output, _ = second_runs
    assert run_nbval.failed_cells(output) == {"warm.ipynb": {1: "reruns", 3: "reruns"}}
    [line] = run_nbval.remedies([("native", False, "", 1, output), ("foreign", True, "", 1, "")])
    assert line.startswith("warm.ipynb: Cell 1, Cell 3 printed other outputs when run a second time (native run")
    assert "build the model, its optimizer and its rng in the cell itself" in line
