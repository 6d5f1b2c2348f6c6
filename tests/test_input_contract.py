"""Bad input is refused clearly everywhere: the package-wide input contract (tests/contract.py).

Every public callable of the package must have a registered valid example (tests/contract_examples/, one file per
group of modules). From each example the harness derives bad calls by the role of each argument and requires each to
raise ValueError or TypeError (or the documented exception) naming the argument. A new public function without an
example fails ``test_every_public_callable_has_an_example``.
"""

import importlib
import pkgutil
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))
import contract  # noqa: E402
import contract_examples  # noqa: E402


def registered_examples():
    examples = {}
    for info in pkgutil.iter_modules(contract_examples.__path__):
        module = importlib.import_module(f"contract_examples.{info.name}")
        for name, example in module.EXAMPLES.items():
            assert name not in examples, f"{name} is registered twice (second time in {info.name})"
            examples[name] = example
    return examples


EXAMPLES = registered_examples()
PUBLIC = contract.public_callables()
BAD_CALLS = [(name, *call) for name, example in EXAMPLES.items() for call in contract.bad_calls(example)]


def test_every_public_callable_has_an_example():
    missing = sorted(set(PUBLIC) - set(EXAMPLES))
    assert not missing, (f"{len(missing)} public callables have no valid example in tests/contract_examples/: "
                         + ", ".join(missing))


def test_every_example_names_a_public_callable():
    stale = sorted(set(EXAMPLES) - set(PUBLIC))
    assert not stale, "examples registered for names that are not public callables: " + ", ".join(stale)


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_valid_example_runs(name):
    example = EXAMPLES[name]
    function, kwargs = example.build()
    qualname = getattr(function, "__qualname__", getattr(type(function), "__qualname__", ""))
    assert name.endswith(qualname) or name.rsplit(".", 1)[-1] == getattr(function, "__name__", None), (
        f"the example for {name} calls {qualname}")
    with np.errstate(all="raise"):
        function(**kwargs)


@pytest.mark.parametrize(("name", "argument", "description", "update", "allowed"), BAD_CALLS,
                         ids=[f"{c[0].removeprefix('implementations.')}:{c[1]}={c[2]}" for c in BAD_CALLS])
def test_bad_call_is_refused(name, argument, description, update, allowed):
    problem = contract.check_bad_call(EXAMPLES[name], argument, description, update, allowed)
    assert problem is None, f"{name}: {problem}"


# --- the harness has teeth ---------------------------------------------------------------------------------------

def _fit_without_length_check(X, y):
    """A planted function that forgets to compare len(X) with len(y)."""
    from implementations._validation import as_finite_array

    X, y = as_finite_array(X, "X", ndim=2), as_finite_array(y, "y", ndim=1)
    return X[: len(y)].T @ y[: len(X)]


def _leaks_broadcast_error(X, y):
    """A planted function that checks nothing and lets NumPy fail."""
    return np.asarray(X, dtype=float).T @ np.asarray(y, dtype=float)


def _planted_example(function):
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(5, 2)), rng.normal(size=5)
    return contract.Example(build=lambda: (function, {"X": X, "y": y}), roles={"X": "array", "y": "aligned:X"})


def _problems(example):
    return [contract.check_bad_call(example, *call) for call in contract.bad_calls(example)]


def test_harness_catches_mismatched_lengths():
    problems = _problems(_planted_example(_fit_without_length_check))
    assert "y = one row fewer than X: accepted without an error" in problems


def test_harness_catches_a_leaked_numpy_error():
    problems = _problems(_planted_example(_leaks_broadcast_error))
    mismatch = [p for p in problems if p and p.startswith("y = one row fewer than X")]
    assert mismatch and "without naming 'y'" in mismatch[0] and "matmul" in mismatch[0]
    assert any(p and p.startswith("X = a string") and "without naming 'X'" in p for p in problems)
    assert any(p and p.startswith("X = a NaN entry: accepted") for p in problems)


def test_harness_passes_a_correct_function():
    from implementations._contract import checked

    @checked(X="array (N, m)", y="array (N,)")
    def fit(X, y):
        return X.T @ y

    assert _problems(_planted_example(fit)) == [None] * len(_problems(_planted_example(fit)))


def test_every_public_callable_is_found():
    """The enumeration is not empty-handed: a sample of known callables is among PUBLIC."""
    for name in ("implementations.linear.regression.gradient_descent", "implementations.language.word2vec.Word2Vec.fit",
                 "implementations.nn.module.Module.load_state_dict", "implementations.linear.robust.huber"):
        assert name in PUBLIC
    assert "implementations.nn.Linear" not in PUBLIC  # a re-export counts once, where it is defined
    assert "implementations.nn.layers.Linear" in PUBLIC
