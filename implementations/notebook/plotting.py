"""Plot helpers shared by the chapters.

Every helper draws on the ``ax`` it is given and returns it; none calls ``plt.show()`` or saves a
file, so the notebook decides the layout and when to display. The book's style (``use_book_style``, called by every
notebook's first cell as ``plotting.use_book_style()``), the class colours and the legend placements are in
:mod:`implementations.notebook.style`.
"""

import numpy as np

from .._contract import checked
from .._validation import interval
from ._checks import (
    a_line_in_the_plane,
    axes,
    class_names,
    counts_of_the_classes,
    graph_output,
    labels_of_points,
    named_curves,
    node_names,
    one_colour_per_class,
    one_value_per_x,
)
from ._checks import text as described
from .style import CLASS_COLORS, CLASS_MARKERS, LEGEND_OUTSIDE, LEGEND_OVER_DATA, use_book_style  # noqa: F401

__all__ = [
    "scatter_xy",
    "plot_cost_histories",
    "plot_columns",
    "plot_curves",
    "scatter_classes",
    "plot_linear_boundary",
    "plot_decision_regions",
    "plot_confusion_matrix",
    "plot_kernel_row",
    "outline_pixels",
    "draw_graph",
]


@checked(ax=axes, x="array (N,)", y="array (N,)")
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
    kwargs.setdefault("s", 25)
    kwargs.setdefault("alpha", 0.8)
    ax.scatter(x, y, label=label, **kwargs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


@checked(ax=axes, histories=named_curves, log="flag")
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
    for label, history in histories.items():
        ax.plot(np.arange(1, history.size + 1), history, label=label)
    if log:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend()
    return ax


@checked(ax=axes, x="array (N,)", features="array (N, M)")
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
    ax.plot(x, features)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return ax


@checked(ax=axes, x="array (N,)", curves=named_curves, logy="flag", also=one_value_per_x)
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
    for label, values in curves.items():
        ax.plot(x, values, label=label, **kwargs)
    if logy:
        ax.set_yscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.legend()
    return ax


@checked(ax=axes, X="array (N, 2)", y="labels (N,)", class_names=class_names, also=one_colour_per_class)
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


@checked(ax=axes, w="array (3,)", also=a_line_in_the_plane)
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


@checked(ax=axes, predict="function", xlim=interval, ylim=interval, num_classes="count", resolution="count")
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

    g1, g2 = np.meshgrid(np.linspace(*xlim, resolution), np.linspace(*ylim, resolution))  # (R, R) each
    points = np.column_stack([g1.ravel(), g2.ravel()])  # (G, 2), G = R²
    labels = labels_of_points(predict(points), points, num_classes).reshape(g1.shape)  # (R, R): checked, 0..K − 1
    cmap = ListedColormap(CLASS_COLORS[:num_classes])
    ax.pcolormesh(g1, g2, labels, cmap=cmap, vmin=-0.5, vmax=num_classes - 0.5, alpha=alpha, shading="auto",
                  rasterized=True)
    ax.set_xlim(xlim)
    ax.set_ylim(ylim)
    return ax


@checked(ax=axes, C="array (K, K)", class_names=class_names, also=counts_of_the_classes)
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
    C = C.astype(np.int64)  # counts, printed as integers
    K = len(class_names)
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


@checked(ax=axes, kernels="array (F, kh, kw)", limit="rate", label=described("the row's label", optional=True))
def plot_kernel_row(ax, kernels, *, limit, label=None):
    """Draw F kernels side by side, a blank column between two, on the diverging scale −limit (blue) to +limit (red).

    Sharing ``limit`` between several rows puts them on one colour scale; ``ax.images[0]`` is the image to give a
    colour bar. The kernels are numbered below their middle column; ``label`` names the row on its left.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    kernels : array_like of shape (F, kh, kw)
    limit : float
        The largest absolute value of an entry that the colour scale shows.
    label : str, optional
    """
    F, _, kw = kernels.shape
    tiles = np.pad(np.asarray(kernels, dtype=float), ((0, 0), (0, 0), (0, 1)), constant_values=np.nan)  # blank column
    ax.imshow(np.hstack(list(tiles))[:, :-1], cmap="RdBu_r", vmin=-limit, vmax=limit)  # (kh, F·(kw + 1) − 1)
    ax.set_xticks([(kw + 1) * f + (kw - 1) / 2 for f in range(F)], [str(f) for f in range(F)])
    ax.set_yticks([])
    if label:
        ax.set_ylabel(label, rotation=0, ha="right", va="center")
    ax.grid(False)
    return ax


@checked(ax=axes, top="number", left="number", height="rate", width="rate?",
         label=described("the outline's label", optional=True))
def outline_pixels(ax, top, left, height, width=None, *, label=None, **style):
    """Outline the pixels of an ``imshow`` image in rows top … top + height − 1, columns left … left + width − 1.

    A square when ``width`` is None. Pixel (r, c) of ``imshow`` covers [c − 0.5, c + 0.5] × [r − 0.5, r + 0.5], so
    the outline runs along the pixels' edges. ``style`` goes to the rectangle (``edgecolor``, ``linewidth``,
    ``linestyle``); it is not filled. With a ``label`` the outline appears in a legend made by ``ax.legend()`` or
    ``fig.legend()``.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
    top, left : float
        The first row and column (a negative value reaches into padding drawn around the image).
    height : float > 0
    width : float > 0, optional
    label : str, optional
    """
    from matplotlib.patches import Rectangle

    width = height if width is None else width
    ax.add_patch(Rectangle((left - 0.5, top - 0.5), width, height, fill=False, label=label, **style))
    return ax


@checked(ax=axes, output=graph_output, names=node_names)
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
    names = {id(t): label for t, label in (names or {}).items()}
    order = output.topological_order()  # parents before children
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
