"""Plot helpers shared by the chapters.

Every helper draws on the ``ax`` it is given and returns it; none calls ``plt.show()`` or saves a
file, so the notebook decides the layout and when to display.
"""

import functools
import os

import matplotlib as mpl
import numpy as np

from .._validation import as_finite_array, check_flag, check_labels, check_positive_int, check_same_length

__all__ = [
    "use_book_style",
    "scatter_xy",
    "plot_cost_histories",
    "plot_columns",
    "plot_curves",
    "scatter_classes",
    "plot_linear_boundary",
    "plot_decision_regions",
    "plot_confusion_matrix",
    "draw_graph",
    "CLASS_COLORS",
    "CLASS_MARKERS",
    "LEGEND_OVER_DATA",
    "LEGEND_OUTSIDE",
]

# One colour and marker per class, used by every classification figure.
CLASS_COLORS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e")
CLASS_MARKERS = ("o", "s", "^", "D", "v")
# A legend drawn over a scatter needs a background to stay readable; outside the axes it hides nothing.
LEGEND_OVER_DATA = {"frameon": True, "framealpha": 0.85, "edgecolor": "none", "fontsize": 9}
LEGEND_OUTSIDE = {"loc": "upper left", "bbox_to_anchor": (1.02, 1.0), "fontsize": 9}
# The book's builds (make book, make test, make pdf) set this to 2: the notebooks' figures are then stored with twice
# the pixels, shown at the same size in the HTML book and at 200 pixels per inch or more in the PDF. A reader's
# kernel leaves it unset and renders at screen resolution, which is about 40 ms faster per figure.
FIGURE_SCALE_VARIABLE = "MLFS_FIGURE_SCALE"


def _check_ax(ax):
    """The helpers draw on an ``ax`` they are given: refuse anything that is not a matplotlib Axes."""
    from matplotlib.axes import Axes

    if not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes; received {type(ax).__name__}. "
                        "Create one with fig, ax = plt.subplots().")
    return ax


def _check_named_curves(curves, name, length=None):
    """A dict label -> finite 1-D values (of ``length`` entries if given), as used for legends."""
    if not isinstance(curves, dict):
        raise TypeError(f"{name} must be a dict of legend label -> values; received {type(curves).__name__}.")
    checked = {}
    for label, values in curves.items():
        values = as_finite_array(values, f"{name}[{label!r}]", ndim=1, allow_empty=False)
        if length is not None and len(values) != length:
            raise ValueError(f"{name}[{label!r}] has {len(values)} values but x has {length}; expected one value "
                             "per x.")
        checked[label] = values
    return checked


def use_book_style():
    """One look for every figure of the book: readable fonts, light grid, no top/right spines.

    Every figure is laid out as ``fig.tight_layout()`` would lay it out (labels, titles and legends inside the
    figure, nothing overlapping), so a notebook needs no layout call of its own. In a script matplotlib does it
    whenever a figure is drawn (``figure.autolayout``). In a Jupyter kernel the inline backend instead lays out
    each figure once, just before rendering it, and renders it at its own size rather than cropped to its "tight"
    bounding box: the automatic layout draws every figure twice (once only to measure it) and computes the layout
    twice, which costs about a third of the time of each figure for the same result.
    """
    mpl.rcParams.update(
        {
            "figure.autolayout": True,
            "figure.figsize": (6.4, 4.0),
            "figure.dpi": 100,
            "savefig.dpi": 100,
            "font.size": 11,
            "axes.titlesize": 11,
            "axes.labelsize": 11,
            "axes.grid": True,
            "grid.alpha": 0.3,
            "axes.spines.top": False,
            "axes.spines.right": False,
            "legend.frameon": False,
        }
    )
    _render_inline_figures_laid_out()


def _figure_scale():
    """The resolution factor of inline figures, from the environment variable ``MLFS_FIGURE_SCALE`` (default 1)."""
    value = os.environ.get(FIGURE_SCALE_VARIABLE, "").strip() or "1"
    try:
        scale = float(value)
    except ValueError:
        scale = None
    if scale is None or not 1 <= scale <= 4:
        raise ValueError(f"{FIGURE_SCALE_VARIABLE} must be a number from 1 to 4 (pixels per figure pixel; the "
                         f"book's builds use 2); received {value!r}. Unset it for screen resolution.")
    return scale


def _render_inline_figures_laid_out():
    """In IPython's inline backend (Jupyter), lay out each figure once and render it uncropped as PNG."""
    if "inline" not in mpl.get_backend():
        return  # a script or a test: nothing is displayed inline, figure.autolayout lays figures out
    from IPython import get_ipython
    from matplotlib.figure import Figure

    # Importing the inline backend sets up its own formatters now; left to the first figure, it would replace
    # the one registered below.
    from matplotlib_inline import backend_inline  # noqa: F401

    shell = get_ipython()
    if shell is None:
        return
    scale = _figure_scale()  # checked now, so that a bad value stops here rather than at the first figure
    mpl.rcParams["figure.autolayout"] = False  # laid out once, by _png_laid_out, instead of on every draw
    formatters = shell.display_formatter.formatters
    for formatter in formatters.values():
        formatter.pop(Figure, None)  # one rendering of each figure, as matplotlib_inline's own formats do
    formatters["image/png"].for_type(Figure, functools.partial(_png_laid_out, scale=scale))


def _png_laid_out(fig, scale=1):
    """The inline backend's PNG of ``fig``: laid out once, then rendered at the figure's own size.

    With ``scale`` above 1 the PNG has ``scale`` times the pixels and its output metadata the figure's width in
    screen pixels, at which HTML pages and JupyterLab show it.
    """
    from IPython.core.pylabtools import print_figure

    if fig.get_layout_engine() is None:  # a figure made with layout="constrained" keeps its own engine
        _tight_layout_once(fig)
    if scale == 1:
        return print_figure(fig, fmt="png", bbox_inches=None, base64=True)
    png = print_figure(fig, fmt="png", bbox_inches=None, base64=True, dpi=scale * fig.dpi)
    return png, {"width": round(fig.get_figwidth() * fig.dpi)}


def _tight_layout_once(fig):
    """Give ``fig`` the subplot parameters of ``fig.tight_layout()``, computed in one pass instead of two.

    ``tight_layout`` measures every axes twice (the second pass only re-fits the result into the rectangle
    (0, 0, 1, 1), which changes nothing); the measuring is most of its cost. Uses matplotlib's own layout
    function; tests/test_plotting.py checks that the parameters equal ``tight_layout``'s.
    """
    from matplotlib._tight_layout import get_subplotspec_list, get_tight_layout_figure

    renderer = fig._get_renderer()
    with renderer._draw_disabled():  # measure text and ticks without painting anything
        params = get_tight_layout_figure(fig, fig.axes, get_subplotspec_list(fig.axes), renderer, pad=1.08)
    if params:  # empty when the figure has no subplots to lay out (tight_layout then leaves it as it is)
        fig.subplots_adjust(**params)


def scatter_xy(ax, x, y, *, xlabel, ylabel, label=None, **kwargs):
    """Scatter y against x with labelled axes.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x, y : array_like of shape (N,)
    xlabel, ylabel : str
        Axis labels, with units.
    label : str, optional
        Legend entry.
    **kwargs
        Passed to ``ax.scatter`` (e.g. ``color``, ``marker``).
    """
    _check_ax(ax)
    x = as_finite_array(x, "x", ndim=1, allow_empty=False)
    y = as_finite_array(y, "y", ndim=1, allow_empty=False)
    check_same_length("x", x, "y", y)
    kwargs.setdefault("s", 25)
    kwargs.setdefault("alpha", 0.8)
    ax.scatter(x, y, label=label, **kwargs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


def plot_cost_histories(ax, histories, *, log=True, xlabel="update", ylabel="cost J(w)"):
    """Cost against update number, one line per run.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    histories : dict of str -> array_like of shape (K,)
        Legend label -> cost after each update (or epoch).
    log : bool, default True
        Logarithmic cost axis, where geometric convergence shows as a straight line.
    """
    _check_ax(ax)
    log = check_flag(log, "log")
    for label, history in _check_named_curves(histories, "histories").items():
        ax.plot(np.arange(1, history.size + 1), history, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    return ax


def plot_columns(ax, x, features, *, title, xlabel="x", ylabel=r"$\phi_j(x)$"):
    """Draw each column of ``features`` against x (for example a set of basis functions).

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x : array_like of shape (N,)
        Sorted inputs.
    features : array_like of shape (N, M)
        Column j is drawn as one curve.
    title : str
    """
    _check_ax(ax)
    x = as_finite_array(x, "x", ndim=1, allow_empty=False)
    features = as_finite_array(features, "features", ndim=2)
    check_same_length("x", x, "features", features)
    ax.plot(x, features)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


def plot_curves(ax, x, curves, *, xlabel, ylabel, title=None, logy=False, **kwargs):
    """Several named curves over the same x, with a legend.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    x : array_like of shape (N,)
    curves : dict of str -> array_like of shape (N,)
        Legend label -> values.
    xlabel, ylabel : str
    title : str, optional
    logy : bool, default False
    **kwargs
        Passed to every ``ax.plot`` call (e.g. ``marker="o"``).
    """
    _check_ax(ax)
    x = as_finite_array(x, "x", ndim=1, allow_empty=False)
    logy = check_flag(logy, "logy")
    for label, values in _check_named_curves(curves, "curves", len(x)).items():
        ax.plot(x, values, label=label, **kwargs)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend()
    return ax


def scatter_classes(ax, X, y, *, class_names, xlabel, ylabel, colors=None, markers=None, legend=True, **kwargs):
    """Scatter two features, one colour and marker per class, with a legend.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    X : array_like of shape (N, 2)
        The two features drawn on the x and y axes.
    y : array_like of shape (N,)
        Integer labels 0, …, K − 1.
    class_names : sequence of str
        Name of class k at position k (K names, at most 5).
    xlabel, ylabel : str
        Axis labels, with units.
    colors, markers : sequence, optional
        Colour and marker of class k at position k; by default the k-th of ``CLASS_COLORS`` and
        ``CLASS_MARKERS``. Pass them to keep one colour per species across figures.
    legend : bool or dict, default True
        Draw a legend (a dict is passed to ``ax.legend``, e.g. to place it outside the axes).
    **kwargs
        Passed to every ``ax.scatter`` call.
    """
    _check_ax(ax)
    X = as_finite_array(X, "X", ndim=2, allow_empty=False)
    if X.shape[1] != 2:
        raise ValueError(f"X must have shape (N, 2) to be drawn in a plane; received shape {X.shape}.")
    y = check_labels(y, "y", num_classes=len(class_names))
    check_same_length("X", X, "y", y)
    if len(class_names) > len(CLASS_COLORS):
        raise ValueError(f"at most {len(CLASS_COLORS)} classes can be drawn; received {len(class_names)} names.")
    kwargs.setdefault("s", 22)
    kwargs.setdefault("alpha", 0.8)
    kwargs.setdefault("edgecolors", "white")
    kwargs.setdefault("linewidths", 0.4)
    colors = CLASS_COLORS if colors is None else colors
    markers = CLASS_MARKERS if markers is None else markers
    for k, name in enumerate(class_names):
        ax.scatter(X[y == k, 0], X[y == k, 1], color=colors[k], marker=markers[k], label=name, **kwargs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if legend:
        ax.legend(**(legend if isinstance(legend, dict) else LEGEND_OVER_DATA))
    return ax


def plot_linear_boundary(ax, w, *, label=None, **kwargs):
    """Draw the line w₀ + w₁x₁ + w₂x₂ = 0 across the current axes limits.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        Its limits must already be set (draw the data first); they are kept.
    w : array_like of shape (3,)
        Bias first, in the units of the plotted axes (see ``preprocessing.unstandardize_weights``).
    label : str, optional
    **kwargs
        Passed to ``ax.plot`` (e.g. ``color``, ``linestyle``).
    """
    _check_ax(ax)
    w = as_finite_array(w, "w", ndim=1)
    if w.shape != (3,) or (w[1] == 0 and w[2] == 0):
        raise ValueError(f"w must be 3 finite weights with (w[1], w[2]) != (0, 0); received {w!r}.")
    xlim, ylim = ax.get_xlim(), ax.get_ylim()
    kwargs.setdefault("color", "black")
    if abs(w[2]) * (ylim[1] - ylim[0]) >= abs(w[1]) * (xlim[1] - xlim[0]):  # closer to horizontal: x₂ of x₁
        x1 = np.array(xlim)
        x2 = -(w[0] + w[1] * x1) / w[2]
    else:  # closer to vertical: x₁ of x₂
        x2 = np.array(ylim)
        x1 = -(w[0] + w[2] * x2) / w[1]
    ax.plot(x1, x2, label=label, **kwargs)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


def plot_decision_regions(ax, predict, *, xlim, ylim, num_classes, resolution=300, alpha=0.18):
    """Shade the plane by the class that ``predict`` assigns to each point.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    predict : callable
        Maps an array of shape (G, 2) of points, in the units of the axes, to G labels 0, …, K − 1.
    xlim, ylim : tuple of float
        The rectangle to shade; it becomes the axes limits.
    num_classes : int
        K, so that class k always gets colour k.
    resolution : int, default 300
        Grid points per side.
    alpha : float, default 0.18
    """
    from matplotlib.colors import ListedColormap

    _check_ax(ax)
    if not callable(predict):
        raise TypeError(f"predict must be a function of an array of points (G, 2); received {type(predict).__name__}.")
    for name, limits in (("xlim", xlim), ("ylim", ylim)):
        limits = as_finite_array(limits, name, ndim=1)
        if limits.shape != (2,) or not limits[0] < limits[1]:
            raise ValueError(f"{name} must be (low, high) with low < high; received {limits.tolist()}.")
    num_classes = check_positive_int(num_classes, "num_classes")
    resolution = check_positive_int(resolution, "resolution")
    g1, g2 = np.meshgrid(np.linspace(*xlim, resolution), np.linspace(*ylim, resolution))  # (R, R) each
    labels = np.asarray(predict(np.column_stack([g1.ravel(), g2.ravel()]))).reshape(g1.shape)
    cmap = ListedColormap(CLASS_COLORS[:num_classes])
    ax.pcolormesh(g1, g2, labels, cmap=cmap, vmin=-0.5, vmax=num_classes - 0.5, alpha=alpha, shading="auto",
                  rasterized=True)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


def plot_confusion_matrix(ax, C, *, class_names, title=None):
    """Draw a confusion matrix as a grid of counts, true class down, predicted class across.

    Each cell is shaded by its share of its row (the fraction of class i predicted as j), so the
    shading shows rates and not class sizes; the number printed is the count.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    C : array_like of shape (K, K)
        C[i, j] counts examples of class i predicted as j.
    class_names : sequence of str
        K names.
    title : str, optional
    """
    _check_ax(ax)
    C = as_finite_array(C, "C", ndim=2)
    if ((C < 0) | (C != np.round(C))).any():
        raise ValueError("C must hold counts (integers >= 0), as confusion_matrix returns; received other values.")
    C = C.astype(np.int64)
    K = len(class_names)
    if C.shape != (K, K):
        raise ValueError(f"C has shape {C.shape} but {K} class names were given; expected shape ({K}, {K}).")
    rates = C / np.maximum(C.sum(axis=1, keepdims=True), 1)  # (K, K): row i sums to 1
    ax.imshow(rates, cmap="Blues", vmin=0, vmax=1)
    for i in range(K):
        for j in range(K):
            dark = rates[i, j] > 0.6
            ax.text(j, i, str(C[i, j]), ha="center", va="center", color="white" if dark else "black")
    ax.set_xticks(range(K), class_names)
    ax.set_yticks(range(K), class_names)
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    ax.grid(False)
    if title:
        ax.set_title(title)
    return ax


def draw_graph(ax, output, *, names=None):
    """Draw the computational graph that produced an autograd ``Tensor``, inputs on the left.

    Each node is placed in the column of its depth (the longest path from an input) and labelled
    with its name, or the operation that made it, and its shape; arrows run from inputs to outputs.
    Parameters (leaves that require a gradient) are shaded, constants drawn with a dashed border.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    output : implementations.engine.autograd.Tensor
        The final node, usually a scalar loss.
    names : dict of Tensor -> str, optional
        Labels for some nodes (parameters, data, the loss); a dict keyed by the tensors themselves.
    """
    from ..engine.autograd import Tensor

    _check_ax(ax)
    if not isinstance(output, Tensor):
        raise TypeError(f"output must be an autograd Tensor (the result of a computation); received "
                        f"{type(output).__name__}.")
    if names is not None and not isinstance(names, dict):
        raise TypeError(f"names must be a dict of Tensor -> label; received {type(names).__name__}.")
    names = {id(t): label for t, label in (names or {}).items()}
    order = output._topological_order()  # parents before children
    depth = {}
    for node in order:
        depth[id(node)] = 1 + max((depth[id(p)] for p in node._parents), default=-1)
    columns = {}
    for node in order:
        columns.setdefault(depth[id(node)], []).append(node)
    position = {}
    for d, nodes in columns.items():
        for k, node in enumerate(nodes):
            position[id(node)] = (d, (len(nodes) - 1) / 2 - k)
    xs = [p[0] for p in position.values()]
    ys = [p[1] for p in position.values()]
    ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
    ax.set_ylim(min(ys) - 0.8, max(ys) + 0.8)
    boxes = {}
    for node in order:
        label = names.get(id(node), node.op or "input")
        shape = "scalar" if node.ndim == 0 else "×".join(str(n) for n in node.shape)
        parameter = not node._parents and node.requires_grad
        constant = not node._parents and not node.requires_grad
        boxes[id(node)] = ax.text(
            *position[id(node)], f"{label}\n{shape}", ha="center", va="center", fontsize=9,
            bbox={"boxstyle": "round", "facecolor": "#e8f1fa" if parameter else "white", "edgecolor": "grey",
                  "linestyle": "--" if constant else "-"})
    ax.figure.canvas.draw()  # lay the boxes out, so that arrows can start and end at their edges
    to_data = ax.transData.inverted()
    edges = {}
    for key, text in boxes.items():
        (x0, _), (x1, _) = to_data.transform(text.get_bbox_patch().get_window_extent())
        edges[key] = (x0, x1)
    for node in order:
        for parent in node._parents:  # from the right edge of the input to the left edge of the result
            start = (edges[id(parent)][1], position[id(parent)][1])
            end = (edges[id(node)][0], position[id(node)][1])
            ax.annotate("", xy=end, xytext=start,
                        arrowprops={"arrowstyle": "-|>", "color": "grey", "shrinkA": 1, "shrinkB": 1})
    ax.set_axis_off()
    return ax
