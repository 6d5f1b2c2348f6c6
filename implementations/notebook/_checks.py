"""The checks of the book's helpers that no role of the contract describes, each once (see
``implementations._contract``).

*Roles*, ``check(value, name) -> value`` for one argument (the ``ax`` a plot draws on, the reader's function, a
definition to list), and *cross-argument checks*, named in ``also=`` and called with the converted arguments their
parameters name (one label per point, a count matrix of one row per class name). An interval (plot limits) is checked
by ``implementations.data._checks.interval``, its one home. Every message names the argument, what was received,
what was expected and how to fix it.
"""

import ast
import inspect
import numbers
import textwrap

import numpy as np

from .._validation import _describe, as_finite_array, check_labels
from .style import CLASS_COLORS

# --- roles -----------------------------------------------------------------------------------------------------------


def axes(value, name):
    """The role of the ``ax`` a plot helper draws on: a matplotlib Axes."""
    from matplotlib.axes import Axes

    if not isinstance(value, Axes):
        raise TypeError(f"{name} must be a matplotlib Axes; received {type(value).__name__}. "
                        "Create one with fig, ax = plt.subplots().")
    return value


def named_curves(value, name):
    """The role of a dict legend label -> finite 1-D values, at least one each; passed on with float64 arrays."""
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict of legend label -> values; received {type(value).__name__}.")
    return {label: as_finite_array(v, f"{name}[{label!r}]", ndim=1, allow_empty=False) for label, v in value.items()}


def class_names(value, name):
    """The role of the names of the K classes of a figure, the name of class k at position k: a sequence, not a str."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or not hasattr(value, "__getitem__"):
        raise TypeError(f"{name} must be a list or tuple of class names, the name of class k at position k; "
                        f"received {_describe(value)}.")
    return value


def graph_output(value, name):
    """The role of the last node of a computational graph: an autograd Tensor (an array has no graph)."""
    from ..engine.autograd import Tensor

    if not isinstance(value, Tensor):
        raise TypeError(f"{name} must be an autograd Tensor (the result of a computation); received "
                        f"{type(value).__name__}.")
    return value


def node_names(value, name):
    """The role of labels for some nodes of a graph: None, or a dict Tensor -> label."""
    if value is not None and not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict of Tensor -> label; received {type(value).__name__}.")
    return value


def your_function(value, name):
    """The role of the reader's function in an exercise check: the function itself, not the result of a call."""
    if not callable(value):
        raise TypeError(f"{name} must be a function; received {type(value).__name__}. Pass your function itself, "
                        "without calling it: check(my_function, ...).")
    return value


def text(what, *, optional=False):
    """The role of a str; ``what`` says what it is, for the message. With ``optional``, None passes too."""
    def string(value, name):
        if not (isinstance(value, str) or (optional and value is None)):
            alternatives = "a str or None" if optional else "a str"
            raise TypeError(f"{name} must be {alternatives} ({what}); received {type(value).__name__}.")
        return value

    return string


def error_size(value, name):
    """The role of an error or a difference: a real number >= 0; NaN and inf pass (a failed claim says so)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"{name} must be a real number (an error or a difference, >= 0); received {value!r}. "
                         "Pass a float, e.g. np.abs(a - b).max().")
    if value < 0:
        raise ValueError(f"{name} must be >= 0 (an absolute or relative error); received {value!r}. "
                         "Take the absolute value of a difference first.")
    return float(value)


_EXPECTED_DEFINITION = ("expected a function, class or method defined with def or class in a file, "
                        "e.g. regression.predict")


def definition(value, name):
    """The role of an object to list: a function, class or method whose source is one def or class statement.

    Passed on as that statement: its dedented source, with the docstring's lines found by :mod:`ast`.
    """
    target = value.__func__ if inspect.ismethod(value) else value
    target = inspect.unwrap(target) if inspect.isfunction(target) else target  # a checked function: its own source
    if not (inspect.isfunction(target) or inspect.isclass(target)):
        raise TypeError(f"{name} is {value!r} of type {type(value).__name__}; {_EXPECTED_DEFINITION}")
    try:
        source = textwrap.dedent(inspect.getsource(target))
    except (OSError, TypeError) as error:
        raise TypeError(f"{name} is {value!r}, whose source cannot be read ({error}); {_EXPECTED_DEFINITION}") from None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = None
    if tree is None or len(tree.body) != 1 or not isinstance(tree.body[0], (ast.FunctionDef, ast.AsyncFunctionDef,
                                                                             ast.ClassDef)):
        raise TypeError(f"{name} is {value!r}, whose source is not one def or class statement (a lambda?); "
                        f"{_EXPECTED_DEFINITION}")
    return source, tree.body[0]


def definitions(value, name):
    """The role of more objects to list (``*more``): each a :func:`definition`."""
    return tuple(definition(v, f"{name}[{k}]") for k, v in enumerate(value))


# --- cross-argument checks ---------------------------------------------------------------------------------------


def one_value_per_x(x, curves):
    for label, values in curves.items():
        if len(values) != len(x):
            raise ValueError(f"curves[{label!r}] has {len(values)} values but x has {len(x)}; expected one value "
                             "per x.")


def one_colour_per_class(y, class_names):
    """Labels 0, …, K − 1 for the K class names, and a colour of the book for each class."""
    if len(class_names) > len(CLASS_COLORS):
        raise ValueError(f"class_names has {len(class_names)} names, but at most {len(CLASS_COLORS)} classes can be "
                         "drawn (one colour each). Draw fewer classes, or merge some of them.")
    check_labels(y, "y", num_classes=len(class_names))


def a_line_in_the_plane(w):
    """w₀ + w₁x₁ + w₂x₂ = 0 is a line only if (w₁, w₂) ≠ (0, 0)."""
    if w[1] == 0 and w[2] == 0:
        raise ValueError(f"w must be 3 finite weights with (w[1], w[2]) != (0, 0); received {w!r}.")


def counts_of_the_classes(C, class_names):
    """C counts examples, true class by predicted class: integers >= 0, one row and column per class name."""
    if ((C < 0) | (C != np.round(C))).any():
        raise ValueError("C must hold counts (integers >= 0), as confusion_matrix returns; received other values.")
    K = len(class_names)
    if C.shape != (K, K):
        raise ValueError(f"C has shape {C.shape} but {K} class names were given; expected shape ({K}, {K}).")


# --- results of the reader's functions ---------------------------------------------------------------------------


def labels_of_points(labels, points, num_classes):
    """``labels``, what ``predict`` returned for the (G, 2) ``points``, as G class labels 0, …, K − 1 (int64)."""
    G, K = len(points), num_classes
    shape = np.shape(labels)
    if shape not in ((G,), (G, 1)):
        raise ValueError(f"predict returned {np.size(labels)} value(s) (shape {shape}) for the {G} points it was given "
                         f"(shape {points.shape}); expected one class label per point, an array of shape ({G},). "
                         "Return the class of each row, e.g. scores.argmax(axis=1) for an array of scores (G, K).")
    values = np.ravel(labels)  # (G,)
    if values.dtype.kind not in "biuf":
        raise TypeError(f"predict returned values of dtype {values.dtype}; expected class labels 0, …, {K - 1} "
                        f"(num_classes = {K}), one per point.")
    outside = (values != np.round(values)) | (values < 0) | (values >= K)  # NaN too
    if outside.any():
        shown = ", ".join(f"{v:g}" for v in np.unique(values[outside])[:5])
        raise ValueError(f"predict returned {int(outside.sum())} value(s) that are not class labels 0, …, {K - 1} "
                         f"(num_classes = {K}), such as {shown}. Return the class of each point: for classes −1 and "
                         "+1 map them first, e.g. lambda P: (model.predict(P) > 0).astype(int); for probabilities "
                         "return the most likely class.")
    return values.astype(np.int64)
