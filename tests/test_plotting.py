"""The book's figure layout (notebook.style): one tight-layout pass in the inline backend gives tight_layout's own
result; and the plot helpers (notebook.plotting) check what the reader's functions return."""

import base64

import matplotlib as mpl
import matplotlib.pyplot as plt
import numpy as np
import pytest

from implementations.notebook import plotting, style


def _line_grid(nrows, ncols, **kwargs):
    fig, axes = plt.subplots(nrows, ncols, squeeze=False, figsize=(4 * ncols, 3 * nrows), **kwargs)
    x = np.linspace(0, 1, 50)
    for k, ax in enumerate(axes.flat):
        ax.plot(x, 1000 * np.sin(6 * x + k), label="a long legend entry")
        ax.set(xlabel="x", ylabel="a long y label", title=f"panel {k}")
    return fig, axes


def _legend_outside():
    fig, axes = _line_grid(1, 2, gridspec_kw={"width_ratios": [1, 1.4]})
    axes[0, 1].legend(**style.LEGEND_OUTSIDE)
    return fig


def _shared_with_colorbar():
    fig, axes = _line_grid(2, 2, sharex=True, sharey=True)
    image = axes[1, 1].imshow(np.eye(3), extent=(0, 1, 0, 1000), aspect="auto")
    fig.colorbar(image, cax=axes[1, 1].inset_axes([1.02, 0, 0.03, 1]))
    return fig


def _with_suptitle():
    fig, _ = _line_grid(1, 3)
    fig.suptitle("a figure title")
    return fig


FIGURES = {
    "one axes": lambda: _line_grid(1, 1)[0],
    "3 x 3, shared axes": lambda: _line_grid(3, 3, sharex=True, sharey=True)[0],
    "legend outside, width ratios": _legend_outside,
    "shared 2 x 2 with a colorbar": _shared_with_colorbar,
    "suptitle": _with_suptitle,
}


def _subplot_params(fig):
    p = fig.subplotpars
    return np.array([p.left, p.right, p.bottom, p.top, p.wspace, p.hspace])


@pytest.fixture(autouse=True)
def _no_automatic_layout():
    """Figures made without a layout engine, as in a kernel after use_book_style (another test may have set it)."""
    with mpl.rc_context({"figure.autolayout": False}):
        yield
    plt.close("all")


@pytest.mark.parametrize("name", FIGURES)
def test_one_pass_layout_equals_tight_layout(name):
    reference = FIGURES[name]()
    reference.tight_layout()
    fig = FIGURES[name]()
    before = _subplot_params(fig)
    style._tight_layout_once(fig)
    assert not np.allclose(_subplot_params(fig), before)  # the layout did change the default parameters
    np.testing.assert_allclose(_subplot_params(fig), _subplot_params(reference), rtol=0, atol=1e-12)


def test_inline_png_is_laid_out_and_uncropped():
    fig = FIGURES["legend outside, width ratios"]()
    reference = FIGURES["legend outside, width ratios"]()
    reference.tight_layout()
    png = base64.b64decode(style._png_laid_out(fig))
    assert png.startswith(b"\x89PNG")
    width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
    assert (width, height) == (800, 300)  # the figure's own size at 100 dpi, not cropped to its contents
    np.testing.assert_allclose(_subplot_params(fig), _subplot_params(reference), rtol=0, atol=1e-12)


def test_a_jupyter_kernel_shows_figures_laid_out_once_and_uncropped(monkeypatch):
    """In a real kernel (the inline backend sets up its own formatters lazily): the book's formatter is the one used."""
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.delenv("MPLBACKEND", raising=False)  # the kernel keeps its inline backend, as in the notebooks
    monkeypatch.delenv(style.FIGURE_SCALE_VARIABLE, raising=False)  # a reader's kernel: screen resolution

    draw = ("fig, ax = plt.subplots()\nax.plot([0, 1], [0, 1000], label='a line')\nax.set(xlabel='x', ylabel='y')\n"
            "ax.legend(loc='upper left', bbox_to_anchor=(1, 1))\n")
    cells = ["import matplotlib.pyplot as plt\nfrom implementations import plotting\nplotting.use_book_style()",
             draw + "plt.show()",
             draw + "fig.tight_layout()\nprint(fig.subplotpars.left, fig.subplotpars.bottom)\nplt.close(fig)",
             "print(fig.subplotpars.left, fig.subplotpars.bottom)"]  # the figure shown in the cell before
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()
    png = base64.b64decode(nb.cells[1].outputs[0]["data"]["image/png"])
    assert (int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")) == (640, 400)  # not cropped
    shown = [float(v) for v in nb.cells[3].outputs[0]["text"].split()]
    reference = [float(v) for v in nb.cells[2].outputs[0]["text"].split()]
    np.testing.assert_allclose(shown, reference, rtol=0, atol=1e-12)  # laid out as tight_layout would


def _png_size(png):
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


def test_the_book_builds_store_figures_at_twice_the_pixels_shown_at_the_same_size(monkeypatch):
    """MLFS_FIGURE_SCALE=2 (make book, make test, make pdf): twice the pixels, the same layout, the screen width."""
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.delenv("MPLBACKEND", raising=False)
    monkeypatch.setenv(style.FIGURE_SCALE_VARIABLE, "2")
    cells = ["import matplotlib.pyplot as plt\nfrom implementations import plotting\nplotting.use_book_style()",
             "fig, ax = plt.subplots()\nax.plot([0, 1], [0, 1000])\nax.set(xlabel='x', ylabel='y')\nplt.show()",
             "print(fig.subplotpars.left, fig.subplotpars.bottom)\nfig.tight_layout()\n"
             "print(fig.subplotpars.left, fig.subplotpars.bottom)"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in cells])
    NotebookClient(nb, kernel_name="python3", timeout=60).execute()
    output = nb.cells[1].outputs[0]
    assert _png_size(base64.b64decode(output["data"]["image/png"])) == (1280, 800)
    assert output["metadata"]["image/png"] == {"width": 640}  # shown 640 pixels wide, as at scale 1
    shown, reference = ([float(v) for v in line.split()] for line in nb.cells[2].outputs[0]["text"].splitlines())
    np.testing.assert_allclose(shown, reference, rtol=0, atol=1e-12)  # laid out as at screen resolution


@pytest.mark.parametrize("value", ["two", "0.5", "8", "nan"])
def test_a_figure_scale_that_is_not_a_number_from_1_to_4_is_refused(monkeypatch, value):
    monkeypatch.setenv(style.FIGURE_SCALE_VARIABLE, value)
    with pytest.raises(ValueError, match=r"MLFS_FIGURE_SCALE must be a number from 1 to 4.*received"):
        style._figure_scale()


def test_an_unset_or_empty_figure_scale_is_screen_resolution(monkeypatch):
    monkeypatch.delenv(style.FIGURE_SCALE_VARIABLE, raising=False)
    assert style._figure_scale() == 1
    monkeypatch.setenv(style.FIGURE_SCALE_VARIABLE, "")
    assert style._figure_scale() == 1


def test_the_notebooks_first_cell_still_finds_the_style_in_plotting():
    assert plotting.use_book_style is style.use_book_style
    assert plotting.CLASS_COLORS is style.CLASS_COLORS and plotting.LEGEND_OUTSIDE is style.LEGEND_OUTSIDE


def _regions(predict, num_classes=2):
    _, ax = plt.subplots()
    return plotting.plot_decision_regions(ax, predict, xlim=(-1, 1), ylim=(-1, 1), num_classes=num_classes,
                                          resolution=10)


def test_decision_regions_shade_the_class_of_each_point():
    ax = _regions(lambda P: (P[:, 0] > 0).astype(int))
    labels = ax.collections[0].get_array().reshape(10, 10)  # (R, R), row = y, column = x
    np.testing.assert_array_equal(labels, np.broadcast_to(np.linspace(-1, 1, 10) > 0, (10, 10)))
    _regions(lambda P: P[:, :1] > 0)  # a column of booleans is one label per point too


@pytest.mark.parametrize(("predict", "error", "message"), [
    (lambda P: np.zeros(len(P) - 1), ValueError,
     r"^predict returned 99 value\(s\) \(shape \(99,\)\) for the 100 points it was given \(shape \(100, 2\)\); "
     r"expected one class label per point, an array of shape \(100,\)"),
    (lambda P: np.zeros((len(P), 2)), ValueError, r"^predict returned 200 value\(s\) \(shape \(100, 2\)\).*argmax"),
    (lambda P: np.ones(1), ValueError, r"^predict returned 1 value\(s\)"),
    (lambda P: np.where(P[:, 0] > 0, 1, -1), ValueError,
     r"^predict returned 50 value\(s\) that are not class labels 0, …, 1 \(num_classes = 2\), such as -1\. .*\+1"),
    (lambda P: 1 / (1 + np.exp(-P[:, 0])), ValueError, r"not class labels 0, …, 1.*probabilities"),
    (lambda P: np.full(len(P), "a"), TypeError, r"^predict returned values of dtype <U1; expected class labels"),
], ids=["one label too few", "scores", "one label", "classes -1 and +1", "probabilities", "strings"])
def test_a_predict_that_does_not_return_one_label_per_point_is_named(predict, error, message):
    with pytest.raises(error, match=message):
        _regions(predict)


def test_scatter_classes_refuses_more_classes_than_colours_by_name():
    _, ax = plt.subplots()
    with pytest.raises(ValueError, match=r"^class_names has 6 names, but at most 5 classes can be drawn"):
        plotting.scatter_classes(ax, np.zeros((2, 2)), [0, 1], class_names=list("abcdef"), xlabel="", ylabel="")


def test_a_kernel_row_shows_each_kernel_between_blank_columns_on_the_given_scale():
    _, ax = plt.subplots()
    kernels = np.arange(18.0).reshape(2, 3, 3) - 9.0  # (F, k, k) = (2, 3, 3)
    plotting.plot_kernel_row(ax, kernels, limit=10.0, label="row")
    shown = np.asarray(ax.images[0].get_array().filled(np.nan), dtype=float)  # (3, 7): kernel 0, a blank, kernel 1
    assert shown.shape == (3, 7)
    np.testing.assert_array_equal(shown[:, :3], kernels[0])
    np.testing.assert_array_equal(shown[:, 4:], kernels[1])
    assert np.isnan(shown[:, 3]).all()
    assert ax.images[0].get_clim() == (-10.0, 10.0)
    assert list(ax.get_xticks()) == [1.0, 5.0] and [t.get_text() for t in ax.get_xticklabels()] == ["0", "1"]
    assert ax.get_ylabel() == "row"


def test_an_outline_runs_along_the_edges_of_the_pixels_it_encloses():
    _, ax = plt.subplots()
    plotting.outline_pixels(ax, 2, 1, 3, label="window", edgecolor="C1")  # rows 2-4, columns 1-3
    plotting.outline_pixels(ax, -1, 0, 2, 4)  # rows -1..0 (padding above the image), columns 0-3
    square, wide = ax.patches
    assert square.get_xy() == (0.5, 1.5) and (square.get_width(), square.get_height()) == (3, 3)
    assert wide.get_xy() == (-0.5, -1.5) and (wide.get_width(), wide.get_height()) == (4, 2)
    assert not square.get_fill() and square.get_label() == "window"
