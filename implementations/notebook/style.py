"""The book's figure style and how a notebook displays figures: one look, laid out once, at the book's resolution.

Every notebook's first cell calls :func:`use_book_style` (as ``plotting.use_book_style()``): it sets matplotlib's
style for the whole book and, in a Jupyter kernel, replaces the inline backend's rendering of figures by one that lays
each figure out once and renders it uncropped, at ``MLFS_FIGURE_SCALE`` times its pixels. The colours, markers and
legend placements every figure shares live here too; the plot helpers are in :mod:`implementations.notebook.plotting`.
"""

import functools
import os

import matplotlib as mpl

__all__ = ["use_book_style", "CLASS_COLORS", "CLASS_MARKERS", "LEGEND_OVER_DATA", "LEGEND_OUTSIDE",
           "FIGURE_SCALE_VARIABLE"]

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
