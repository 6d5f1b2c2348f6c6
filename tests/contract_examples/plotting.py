"""Valid examples for the input contract: plotting (every helper draws on an ``ax`` it is given)."""

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

from contract import Example  # noqa: E402
from implementations.engine.autograd import Tensor  # noqa: E402
from implementations.notebook import plotting, style  # noqa: E402


def _ax():
    plt.close("all")
    return plt.subplots()[1]


_X = np.array([[0.0, 1.0], [1.0, 0.5], [2.0, 2.0], [0.5, 1.5]])  # (4, 2)
_y = np.array([0, 1, 1, 0])
_x = np.linspace(0.0, 1.0, 5)


def _graph():
    w = Tensor(np.ones(2), requires_grad=True)
    return (w * 3.0).sum()


_NOT_AX = [("an array instead of an Axes", {"ax": np.zeros(2)}, (TypeError,))]

EXAMPLES = {
    "implementations.notebook.style.use_book_style": Example(build=lambda: (style.use_book_style, {})),
    "implementations.notebook.plotting.scatter_xy": Example(
        build=lambda: (plotting.scatter_xy, {"ax": _ax(), "x": _x, "y": _x ** 2, "xlabel": "x", "ylabel": "y"}),
        roles={"x": "array", "y": "aligned:x"}, extra=_NOT_AX),
    "implementations.notebook.plotting.plot_cost_histories": Example(
        build=lambda: (plotting.plot_cost_histories, {"ax": _ax(), "histories": {"run": [3.0, 2.0, 1.0]},
                                                      "log": True}),
        roles={"log": "flag"},
        extra=_NOT_AX + [("a list instead of a dict", {"histories": [3.0, 2.0]}, (TypeError,)),
                         ("a NaN cost", {"histories": {"run": [3.0, np.nan]}}, (ValueError,)),
                         ("a string of costs", {"histories": {"run": "high"}}, (TypeError,))]),
    "implementations.notebook.plotting.plot_columns": Example(
        build=lambda: (plotting.plot_columns, {"ax": _ax(), "x": _x, "features": np.column_stack([_x, _x ** 2]),
                                               "title": "basis"}),
        roles={"x": "array", "features": "aligned:x"}, extra=_NOT_AX),
    "implementations.notebook.plotting.plot_curves": Example(
        build=lambda: (plotting.plot_curves, {"ax": _ax(), "x": _x, "curves": {"a": _x, "b": 2 * _x},
                                              "xlabel": "x", "ylabel": "y", "logy": False}),
        roles={"x": "array", "logy": "flag"},
        extra=_NOT_AX + [("a curve of the wrong length", {"curves": {"a": [1.0, 2.0]}}, (ValueError,)),
                         ("an inf value", {"curves": {"a": [1.0, np.inf, 1.0, 1.0, 1.0]}}, (ValueError,))]),
    "implementations.notebook.plotting.scatter_classes": Example(
        build=lambda: (plotting.scatter_classes, {"ax": _ax(), "X": _X, "y": _y, "class_names": ["a", "b"],
                                                  "xlabel": "x1", "ylabel": "x2"}),
        roles={"X": "array", "y": "labels:2:X"},
        extra=_NOT_AX + [("three columns", {"X": np.ones((4, 3))}, (ValueError,))]),
    "implementations.notebook.plotting.plot_linear_boundary": Example(
        build=lambda: (plotting.plot_linear_boundary, {"ax": _ax(), "w": np.array([0.5, 1.0, -1.0])}),
        roles={"w": "array"},
        extra=_NOT_AX + [("a zero normal vector", {"w": np.array([1.0, 0.0, 0.0])}, (ValueError,))]),
    "implementations.notebook.plotting.plot_decision_regions": Example(
        build=lambda: (plotting.plot_decision_regions, {
            "ax": _ax(), "predict": lambda P: (P[:, 0] > 0).astype(int), "xlim": (-1.0, 1.0), "ylim": (-1.0, 1.0),
            "num_classes": 2, "resolution": 10}),
        roles={"num_classes": "count", "resolution": "count"},
        extra=_NOT_AX + [("an array instead of a function", {"predict": np.zeros(3)}, (TypeError,)),
                         ("reversed limits", {"xlim": (1.0, -1.0)}, (ValueError,)),
                         ("a string", {"ylim": "wide"}, (TypeError,)),
                         ("a predict that returns one label too few", {"predict": lambda P: np.zeros(len(P) - 1)},
                          (ValueError,)),
                         ("a predict that returns its points", {"predict": lambda P: P}, (ValueError,)),
                         ("a predict that returns -1 and +1", {"predict": lambda P: np.sign(P[:, 0] + 0.5)},
                          (ValueError,)),
                         ("a predict that returns strings", {"predict": lambda P: np.full(len(P), "a")},
                          (TypeError,))]),
    "implementations.notebook.plotting.plot_confusion_matrix": Example(
        build=lambda: (plotting.plot_confusion_matrix, {"ax": _ax(), "C": np.array([[3, 1], [0, 4]]),
                                                        "class_names": ["a", "b"]}),
        roles={"C": "array"},
        extra=_NOT_AX + [("a negative count", {"C": np.array([[3, -1], [0, 4]])}, (ValueError,)),
                         ("a fractional count", {"C": np.array([[3, 0.5], [0, 4]])}, (ValueError,))]),
    "implementations.notebook.plotting.plot_kernel_row": Example(
        build=lambda: (plotting.plot_kernel_row, {"ax": _ax(), "kernels": np.ones((2, 3, 3)), "limit": 1.0}),
        roles={"kernels": "array"},
        extra=_NOT_AX + [("one kernel of shape (3, 3)", {"kernels": np.ones((3, 3))}, (ValueError,)),
                         ("a limit of 0", {"limit": 0.0}, (ValueError,))]),
    "implementations.notebook.plotting.outline_pixels": Example(
        build=lambda: (plotting.outline_pixels, {"ax": _ax(), "top": 1, "left": 2, "height": 3, "width": 2}),
        roles={"top": "scalar", "left": "scalar", "height": "rate", "width": "rate?"},
        extra=_NOT_AX + [("a height of 0", {"height": 0}, (ValueError,)),
                         ("a label that is a number", {"label": 3}, (TypeError,))]),
    "implementations.notebook.plotting.draw_graph": Example(
        build=lambda: (plotting.draw_graph, {"ax": _ax(), "output": _graph()}),
        extra=_NOT_AX + [("an array instead of a Tensor", {"output": np.ones(2)}, (TypeError,)),
                         ("a list of names", {"names": ["w"]}, (TypeError,))]),
}
