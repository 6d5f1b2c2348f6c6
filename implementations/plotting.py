"""Plot helpers shared by the chapters.

Every helper draws on the ``ax`` it is given and returns it; none calls ``plt.show()`` or saves a
file, so the notebook decides the layout and when to display.
"""

import matplotlib as mpl
import numpy as np

__all__ = [
    "use_book_style",
    "scatter_xy",
    "plot_cost_histories",
    "plot_columns",
    "plot_curves",
]


def use_book_style():
    """One look for every figure of the book: readable fonts, light grid, no top/right spines."""
    mpl.rcParams.update(
        {
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
        history = np.asarray(history)
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
