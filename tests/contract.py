"""The package's input contract, as a test harness (used by tests/test_input_contract.py).

Every public callable of ``implementations`` (each module's ``__all__``, classes with their public methods) has a
registered *valid example*: a function that builds a fresh valid call. From it the harness derives *bad variants* by
the role of each argument (a feature matrix, a learning rate, a count, labels, ...), and requires every bad call to
raise ``ValueError`` or ``TypeError`` (or the exception the example documents) with a message that names the argument.
A bad call that returns, or that fails with an error from inside NumPy or Python (an IndexError, a broadcast error),
breaks the contract.

Roles and their bad variants (``v`` is the valid value):

=================  ===========================================================================================
role               bad variants
=================  ===========================================================================================
``array``          a string; a ragged nested list; NaN and inf in it; one dimension more; no rows
``array:any-nd``   as ``array`` without the "one dimension more" variant (any number of dimensions is valid)
``aligned:P``      as ``array``, and one row fewer than argument ``P`` (X and y must have the same length)
``labels:K:P``     as ``aligned:P`` (``:P`` optional), and a label K, -1, 0.5 (classes are 0, …, K-1; ``labels::P``
                   when any number of classes is valid)
``ids:V``          token ids: a string; a float id 1.5; an id V; an id -1; no rows
``rate``           0; -1; NaN; inf; a string (a learning rate or step size is a finite number > 0)
``count``          0; -1; 2.5; a string (a number of steps, a size, a degree: an integer >= 1)
``count0``         -1; 2.5; a string (an integer >= 0)
``penalty``        -1; NaN; inf; a string (a finite number >= 0)
``prob``           -0.1; 1.5; NaN; a string (a probability in [0, 1])
``scalar``         NaN; inf; a string (any finite number)
``rng``            the integer 42; None (randomness is a numpy Generator passed by the caller)
``tokens``         a bare string instead of a list of tokens; a list holding a number
``sentences``      a bare string instead of a list of sentences; a list holding a number
``tensor``         like ``array``, for a Tensor argument (NumPy arrays are accepted where Tensors are)
``params``         a generator instead of a list; a list holding an array instead of a Tensor
``flag``           a string, the integer 2 (a bool)
=================  ===========================================================================================

A role with suffix ``?`` (``rate?``) also accepts None. Arguments with no role get no variants; an example lists
the extra bad calls its function needs (``extra``) and the arguments that pass something through by design
(``passthrough``, with the docstring's reason).
"""

import importlib
import inspect
import math
import pkgutil
from dataclasses import dataclass, field

import numpy as np

import implementations


@dataclass
class Example:
    """A valid call of one public callable, and what its arguments are.

    build : function () -> (callable, kwargs)
        A *fresh* valid call: the callable (a function, a class, or a bound method of a freshly built instance)
        and its arguments by name. It must not raise.
    roles : dict name -> role
        The role of each argument (see the module docstring); arguments without a role get no variants.
    extra : list of (description, kwargs update, exception types)
        Further bad calls, e.g. a state of the wrong shape; the kwargs update is merged into a fresh valid call.
    raises : tuple of exception types
        What a bad call may raise besides ValueError and TypeError (e.g. FloatingPointError for divergence).
    passthrough : dict name -> reason
        Arguments through which NaN and inf pass by design (e.g. -inf in an attention mask), with the documented
        reason: their NaN and inf variants are not generated; every other variant of their role still is.
    """

    build: object
    roles: dict = field(default_factory=dict)
    extra: list = field(default_factory=list)
    raises: tuple = ()
    passthrough: dict = field(default_factory=dict)


# --- the public callables -------------------------------------------------------------------------------------------

# Methods that only say "a subclass defines this": Module.forward raises NotImplementedError by design (every concrete
# forward is registered on its own class), and Module.__call__ only calls forward.
ABSTRACT = {"Module.forward"}

def public_callables():
    """{canonical name: object} for every public callable of the package, re-exports counted once.

    A function's canonical name is where it is defined (``implementations.nn.layers.Linear``, also exported by
    ``implementations.nn``); a class contributes itself (its constructor) and each public method, named after the
    class that defines it (``implementations.nn.layers.Linear.forward``,
    ``implementations.nn.module.Module.state_dict``).
    """
    found = {}
    for info in pkgutil.walk_packages(implementations.__path__, prefix="implementations."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", []):
            obj = getattr(module, name)
            if inspect.isclass(obj) and obj.__module__.startswith("implementations"):
                qual = f"{obj.__module__}.{obj.__qualname__}"
                if issubclass(obj, BaseException):
                    continue  # an exception class is raised, not called with data
                found[qual] = obj
                for attr in dir(obj):
                    if attr.startswith("_"):
                        continue
                    member = inspect.getattr_static(obj, attr)
                    if isinstance(member, (staticmethod, classmethod)):
                        member = member.__func__
                    if not inspect.isfunction(member) or not member.__module__.startswith("implementations"):
                        continue
                    if member.__qualname__ in ABSTRACT:
                        continue
                    # an inherited method counts once, on the class that defines it (Module.state_dict)
                    found[f"{member.__module__}.{member.__qualname__}"] = member
            elif inspect.isfunction(obj) or inspect.isbuiltin(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return dict(sorted(found.items()))


# --- bad variants -----------------------------------------------------------------------------------------------------

def _with_bad_entry(value, bad):
    array = np.array(value, dtype=float, copy=True)
    if array.size == 0:
        return None
    array.flat[0] = bad
    return array


def _ragged(value):
    array = np.asarray(value)
    if array.ndim >= 2 and array.shape[0] >= 2 and array.shape[1] >= 2:
        rows = array.tolist()
        rows[-1] = rows[-1][:-1]
        return rows
    if array.ndim == 1 and array.shape[0] >= 2:
        return [[x] for x in array.tolist()[:-1]] + [[array[-1], array[-1]]]
    return None


def _fewer_rows(value):
    array = np.asarray(value)
    return array[:-1] if array.ndim >= 1 and array.shape[0] >= 2 else None


def _array_variants(value, *, extra_dim=True):
    """Bad versions of a numeric array argument: (description, bad value)."""
    variants = [("a string", "not an array"),
                ("a ragged nested list", _ragged(value)),
                ("a NaN entry", _with_bad_entry(value, np.nan)),
                ("an inf entry", _with_bad_entry(value, np.inf))]
    array = np.asarray(value)
    if extra_dim:
        variants.append(("one dimension more", array[None]))
    if array.ndim >= 1:
        variants.append(("no rows", array[:0]))
    return [(d, v) for d, v in variants if v is not None]


def _tensor_variants(value):
    from implementations.engine.autograd import Tensor

    data = value.data if isinstance(value, Tensor) else value
    variants = []
    for description, bad in _array_variants(data):
        if isinstance(bad, np.ndarray) and description not in ("a NaN entry", "an inf entry"):
            bad = Tensor(bad) if isinstance(value, Tensor) else bad
        variants.append((description, bad))
    return variants


_SCALAR_VARIANTS = {
    "rate": [("zero", 0.0), ("a negative number", -1.0), ("NaN", math.nan), ("inf", math.inf), ("a string", "fast")],
    "count": [("zero", 0), ("a negative number", -1), ("a fraction", 2.5), ("a string", "3")],
    "count0": [("a negative number", -1), ("a fraction", 2.5), ("a string", "3")],
    "penalty": [("a negative number", -1.0), ("NaN", math.nan), ("inf", math.inf), ("a string", "big")],
    "prob": [("a negative number", -0.1), ("more than 1", 1.5), ("NaN", math.nan), ("a string", "half")],
    "scalar": [("NaN", math.nan), ("inf", math.inf), ("a string", "x")],
    "rng": [("an integer seed", 42), ("None", None)],
    "flag": [("a string", "yes"), ("the integer 2", 2)],
}


def bad_variants(name, role, kwargs):
    """[(description, bad value)] for argument ``name`` of the role ``role``, given the valid ``kwargs``."""
    value = kwargs[name]
    optional = role.endswith("?")
    role = role.rstrip("?")
    kind, _, detail = role.partition(":")
    if kind in _SCALAR_VARIANTS:
        variants = list(_SCALAR_VARIANTS[kind])
        return [(d, v) for d, v in variants if not (optional and v is None)]
    if kind == "array":
        return _array_variants(value, extra_dim=detail != "any-nd")
    if kind == "tensor":
        return _tensor_variants(value)
    if kind == "aligned":
        return _array_variants(value) + [(f"one row fewer than {detail}", _fewer_rows(value))]
    if kind == "labels":
        classes, _, partner = detail.partition(":")
        labels = np.asarray(value)
        variants = [("a string", "not labels"), ("a ragged nested list", _ragged(labels)),
                    ("a NaN label", _with_bad_entry(labels, np.nan)),
                    ("one dimension more", labels[None]), ("no labels", labels[:0])]
        wrong = [("a label -1", -1), ("a label 0.5", 0.5)]
        if classes:  # "labels::X": any number of classes (e.g. accuracy), so no label is too large
            wrong.insert(0, (f"a label {classes}", int(classes)))
        for description, bad in wrong:
            changed = labels.astype(float if bad == 0.5 else labels.dtype, copy=True)
            changed.flat[0] = bad
            variants.append((description, changed))
        if partner:
            variants.append((f"one label fewer than the rows of {partner}", _fewer_rows(labels)))
        return [(d, v) for d, v in variants if v is not None]
    if kind == "ids":
        ids = np.asarray(value)
        variants = [("a string", "not ids"), ("no rows", ids[:0])]
        for description, bad in ((f"an id {detail}", int(detail)), ("an id -1", -1), ("a fractional id 1.5", 1.5)):
            changed = ids.astype(float if bad == 1.5 else ids.dtype, copy=True)
            changed.flat[0] = bad
            variants.append((description, changed))
        return variants
    if kind in ("tokens", "sentences"):
        return [("a bare string instead of a list", "one two three"), ("a list holding a number", [1, 2])]
    if kind == "params":
        return [("a generator instead of a list", (p for p in value)),
                ("a list holding a NumPy array", [np.zeros(2)])]
    raise ValueError(f"unknown role {role!r} for argument {name!r}")


# --- the check --------------------------------------------------------------------------------------------------------

def names_argument(message, name):
    """Does ``message`` name the argument ``name`` (as a word, e.g. "lr must be" or "y has 3 entries")?"""
    import re

    return re.search(rf"(?<![A-Za-z0-9_]){re.escape(name)}(?![A-Za-z0-9_])", message) is not None


_NON_FINITE = {"a NaN entry", "an inf entry", "NaN", "inf", "a NaN label"}


def bad_calls(example):
    """Every bad call of ``example``: (argument, description, kwargs update, allowed exception types)."""
    _, kwargs = example.build()
    allowed = (ValueError, TypeError, *example.raises)
    calls = []
    for name, role in example.roles.items():
        if name not in kwargs:
            raise KeyError(f"role given for {name!r}, which the valid call does not pass")
        for description, bad in bad_variants(name, role, kwargs):
            if name in example.passthrough and description in _NON_FINITE:
                continue  # documented: non-finite values pass through this argument
            calls.append((name, description, {name: bad}, allowed))
    for description, update, exceptions in example.extra:
        name = next(iter(update))
        calls.append((name, description, update, tuple(exceptions) or allowed))
    return calls


def check_bad_call(example, name, description, update, allowed):
    """None if the bad call is refused as the contract says; otherwise what went wrong, in one line."""
    function, kwargs = example.build()
    kwargs = {**kwargs, **update}
    try:
        with np.errstate(all="ignore"):  # NumPy's warnings are not an answer either way
            function(**kwargs)
    except allowed as exc:
        message = str(exc)
        if not names_argument(message, name):
            return f"{name} = {description}: raised {type(exc).__name__} without naming {name!r}: {message[:200]}"
        return None
    except Exception as exc:  # noqa: BLE001 - any other exception breaks the contract
        return f"{name} = {description}: leaked {type(exc).__name__} from inside: {str(exc)[:200]}"
    return f"{name} = {description}: accepted without an error"
