"""Figures that read in the theme's dark mode: a dark rendering of every notebook figure, shown in dark mode.

The notebooks store their figures as PNG, drawn by matplotlib on white paper with black text. In the theme's dark
mode such a figure is a bright box on a dark page. Drawing every figure a second time in the kernel would double the
time the notebooks spend on figures; instead, for every figure a notebook stores, the HTML build writes a dark
variant next to it in ``_images/`` (``<name>-dark.png``), and the page shows one of the two:

* ``<img class="mlfs-figure-light">`` in light mode (and with no mode set, e.g. without JavaScript);
* ``<img class="mlfs-figure-dark">`` in dark mode, same ``alt``. The other image is ``display: none``, so screen
  readers and the accessibility audit meet one image (``static/figure_dark_mode.css``).

How the dark variant is made (:func:`dark_variant`, NumPy only). Read each pixel as ink laid over white paper
(matplotlib composites everything, antialiasing and ``alpha`` included, over the white figure): its ink coverage
``a = 1 − min(R, G, B)`` and its ink colour ``c``, with ``pixel = a·c + (1 − a)·white``. The dark variant takes the
paper away: a transparent PNG, so that the figure lies on the page's own background, whatever its shade; its ink is

* black or grey ink (text, axes, ticks, grid lines, grey curves) → the dark theme's text colour at the same
  coverage: black text becomes the page's text colour, antialiased edges stay smooth, a grid drawn at alpha 0.3
  stays faint;
* a colour of the figure's palette → kept as it is, opaque: a pixel whose 3 × 3 neighbourhood holds the same ink at
  a higher coverage is the antialiased edge of that stroke, a share of the full-coverage colour, so the
  colour-blind-safe palette reads the same in both modes and no light halo rims the lines;
* a pale colour, i.e. little ink (a translucent fill: decision regions, confidence bands) → the same ink at the same
  coverage: a dim tint of the page; a dark colour is lightened towards the text colour.

Images inside figures (heatmaps with their colour bars, :func:`image_regions`) are not ink on paper: their colours
carry values read off a colour bar, and numbers written into their cells are white or black by the cell's shade.
Such a rectangle is kept exactly as it is, opaque. Grey-scale pictures on white (handwritten digits) are ink on
paper and turn light-on-dark; bars keep their colours.

Only the HTML builder is affected: the PDF edition (LaTeX builder) and the notebooks themselves (JupyterLab) show
the figures as stored. Each variant is written once per figure content (the file names are myst-nb's content
hashes) and again only when this file changes; the build log gives the count and the time.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

#: The dark theme's text colour (pydata-sphinx-theme 0.17's --pst-color-text-base under html[data-theme="dark"]) and
#: page background (sphinx-book-theme 1.3's --pst-color-background), on which tests/site checks the figures.
DARK_TEXT = (0xCE, 0xD6, 0xDD)
DARK_BACKGROUND = (0x12, 0x12, 0x12)
STATIC = Path(__file__).parent / "figure_dark_mode_assets"
LIGHT_CLASS, DARK_CLASS = "mlfs-figure-light", "mlfs-figure-dark"
SUFFIX = "-dark"

# --- the dark variant ---------------------------------------------------------------------------------------------


def _smoothstep(x, lo, hi):
    t = np.clip((x - np.float32(lo)) / np.float32(hi - lo), 0.0, 1.0)
    return t * t * (3.0 - 2.0 * t)


def _window(x, k, axis, reduce):
    """``reduce`` (np.maximum or np.minimum) of ``x`` over a centred window of ``k`` pixels along ``axis``.

    The doubling ("sparse table") way: reduce over 1, 2, 4, ... pixels, then two overlapping powers of two.
    """
    x = np.moveaxis(x, axis, 0)
    n = x.shape[0]
    r = k // 2
    m = np.concatenate([np.repeat(x[:1], r, axis=0), x, np.repeat(x[-1:], k - 1 - r, axis=0)])
    width = 1
    while 2 * width <= k:
        m = reduce(m[:-width], m[width:])  # m[i] now covers pixels i .. i + 2·width − 1
        width *= 2
    out = reduce(m[:n], m[k - width:k - width + n])
    return np.moveaxis(out, 0, axis)


def _filter2d(x, k, reduce):
    return _window(_window(x, k, 0, reduce), k, 1, reduce)


def _run_minimum(labels, blocks):
    """Each run of consecutive ``blocks`` along a row takes the smallest label in it."""
    starts = blocks & ~np.pad(blocks, ((0, 0), (1, 0)))[:, :-1]  # (R, C) the first block of each run
    inside = labels[blocks]  # row by row, so each run is a contiguous segment
    run = np.cumsum(starts[blocks]) - 1
    out = labels.copy()
    out[blocks] = np.minimum.reduceat(inside, np.flatnonzero(starts[blocks]))[run]
    return out


def _components(blocks):
    """4-connected components of a boolean block grid: a list of (rows, cols) index arrays.

    Every run of blocks along a row, then along a column, takes the smallest label in it, until nothing changes
    (a few passes for the shapes of a figure).
    """
    if not blocks.any():
        return []
    labels = np.where(blocks, np.arange(blocks.size).reshape(blocks.shape), blocks.size)
    while True:
        low = _run_minimum(_run_minimum(labels, blocks).T, blocks.T).T
        if (low == labels).all():
            break
        labels = low
    order = np.argsort(labels[blocks], kind="stable")
    rows, cols = np.nonzero(blocks)
    values = labels[blocks][order]
    cuts = np.flatnonzero(np.diff(values)) + 1
    return [(r, c) for r, c in zip(np.split(rows[order], cuts), np.split(cols[order], cuts), strict=True)]


def _max3(x):
    return np.maximum(np.maximum(x[0], x[1]), x[2])


def _min3(x):
    return np.minimum(np.minimum(x[0], x[1]), x[2])


def image_regions(rgb, scale=1.0):
    """Boolean mask of the rectangles that hold images (heatmaps, colour bars) in a figure ``rgb`` (H, W, 3).

    An image is a rectangle of ink with no paper in it at the scale of 8 screen pixels (a morphological opening of
    "not paper") but for small holes (numbers written into cells), with ink all round its edges, and with colours
    that vary as an image's do: an 8 × 8 square of one strong colour (ink coverage above 0.35), or cells of 8 × 8
    or more in six colours or more (a pale heatmap), or rows (columns) of one colour each, six colours or more (a
    colour bar). Strokes, text, markers, grey-scale pictures on white paper, bars (paper above the shorter ones)
    and translucent fills (a few pale colours, under grid lines and markers) are none of these. The search runs at
    screen resolution (every ``scale``-th pixel); the rectangles found are then fitted to the pixels.
    """
    step = max(1, int(scale))
    small = rgb[::step, ::step]
    k = 8
    lightest = _min3(np.moveaxis(small, 2, 0))
    solid = _filter2d(_filter2d(lightest < 250, k, np.minimum), k, np.maximum)  # (h, w) opening of "not paper"
    code = (small[..., 0].astype(np.int32) << 16) | (small[..., 1].astype(np.int32) << 8) | small[..., 2]
    square = _filter2d(code, k, np.maximum) == _filter2d(code, k, np.minimum)  # in k × k of one colour
    strong = square & (lightest < 165)
    # Connected areas of solid blocks of b × b pixels, half the scale, so that a gap of paper separates areas.
    b = k // 2
    height, width = solid.shape
    rows, cols = -(-height // b), -(-width // b)
    grid = np.zeros((rows * b, cols * b), bool)
    grid[:height, :width] = solid
    blocks = grid.reshape(rows, b, cols, b).mean(axis=(1, 3)) > 0.5
    keep = np.zeros(rgb.shape[:2], bool)
    full_ink = _min3(np.moveaxis(rgb, 2, 0)) < 250
    for r, c in _components(blocks):
        # At least 16 × 16 screen pixels, filling its rectangle of blocks but for small holes.
        if len(r) < 16 or (r.max() - r.min() + 1) * (c.max() - c.min() + 1) * 0.95 > len(r):
            continue
        # The rectangle of its solid pixels: those in its blocks and in the blocks around that are in no component
        # (the partly solid blocks along its edges). Are its colours an image's?
        r0, r1, c0, c1 = max(r.min() - 1, 0), min(r.max() + 2, rows), max(c.min() - 1, 0), min(c.max() + 2, cols)
        own = np.zeros((rows, cols), bool)
        own[r, c] = True
        own[r0:r1, c0:c1] |= _filter2d(own[r0:r1, c0:c1], 3, np.maximum) & ~blocks[r0:r1, c0:c1]
        pixels = own[r0:r1, c0:c1].repeat(b, 0).repeat(b, 1)[:height - r0 * b, :width - c0 * b]
        ys, xs = np.nonzero(pixels & solid[r0 * b:r1 * b, c0 * b:c1 * b])
        y0, y1, x0, x1 = r0 * b + ys.min(), r0 * b + ys.max() + 1, c0 * b + xs.min(), c0 * b + xs.max() + 1
        inner, colours = solid[y0:y1, x0:x1], code[y0:y1, x0:x1]
        cells = np.unique(colours[square[y0:y1, x0:x1] & inner]).size  # colours of cells of 8 x 8 or more
        # A colour bar: many colours, every row (or column) of one colour across the middle half of the rectangle.
        h4, w4 = colours.shape[0] // 4, colours.shape[1] // 4
        rows_, cols_ = colours[:, w4:colours.shape[1] - w4], colours[h4:colours.shape[0] - h4]
        gradient = w4 > 0 and h4 > 0 and np.unique(colours).size >= 6 and max(
            (rows_ == rows_[:, :1]).all(axis=1).mean(), (cols_ == cols_[:1]).all(axis=0).mean()) > 0.9
        if not (cells >= 6 or gradient or (strong[y0:y1, x0:x1] & inner).any()):
            continue
        # Fitted at full resolution: the rows and columns, up to one step out, that are mostly ink across it ...
        y0, y1, x0, x1 = y0 * step, y1 * step, x0 * step, x1 * step
        ys = np.flatnonzero(full_ink[max(y0 - step, 0):y1 + step, x0:x1].mean(axis=1) > 0.5) + max(y0 - step, 0)
        xs = np.flatnonzero(full_ink[y0:y1, max(x0 - step, 0):x1 + step].mean(axis=0) > 0.5) + max(x0 - step, 0)
        y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
        rect = full_ink[y0:y1, x0:x1]
        # ... with ink all round its edges: bars of different heights side by side leave paper at the top.
        edges = rect[0, 2:-2], rect[-1, 2:-2], rect[2:-2, 0], rect[2:-2, -1]  # corners aside (antialiased)
        if min(edge.mean() for edge in edges) < 0.97:
            continue
        keep[y0:y1, x0:x1] = True
    return keep


def _ink(p):
    """Ink coverage over white and ink colour of pixels ``p`` (3, N) in [0, 1]: p = a·ink + (1 − a)·white."""
    a = 1.0 - _min3(p)  # (N,)
    return a, 1.0 - (1.0 - p) / np.maximum(a, np.float32(1e-6))  # (3, N), min channel 0


def _on_dark_page(a, ink, a_full, fg):
    """Colour (3, N) and opacity (N,) over the dark page of pixels of ink coverage ``a`` and colour ``ink`` in strokes
    whose full coverage is ``a_full``."""
    full = a_full * ink + (1.0 - a_full)  # (3, N) the stroke's full-coverage colour (over white)
    brightest = _max3(full)
    chroma = brightest - _min3(full)
    # Kept as is, opaque: a strong colour (chroma) of high coverage and not too dark for the dark page.
    kept = _smoothstep(chroma, 0.08, 0.22) * _smoothstep(a_full, 0.30, 0.45) * _smoothstep(brightest, 0.30, 0.50)
    # Otherwise the same ink at the same coverage over the dark page, dark ink lightened towards the text colour.
    lift = 1.0 - _smoothstep(_max3(ink), 0.0, 0.6)
    t = a / a_full  # the pixel's share of the full-coverage stroke (edges < 1)
    alpha = t * (kept + (1.0 - kept) * a_full)
    paint = t * (kept * full + (1.0 - kept) * a_full * (ink + lift * (fg[:, None] - ink)))
    colour = paint / np.maximum(alpha, np.float32(1e-6))
    return np.clip(np.rint(colour * 255.0), 0, 255).astype(np.uint8), np.rint(alpha * 255.0).astype(np.uint8)


def dark_variant(rgb, scale=1.0, text=DARK_TEXT):
    """The dark-mode rendering of a figure drawn on white: ``rgb`` (H, W, 3) uint8 -> RGBA (H, W, 4) uint8.

    The paper becomes transparent, so that the figure lies on the page's own background whatever it is; ink keeps
    its coverage as opacity: grey ink becomes the ``text`` colour, strong colours keep their exact full-coverage
    colour, pale translucent colours stay translucent; image rectangles (:func:`image_regions`) are kept as they
    are, opaque.

    Most pixels of a figure are paper or grey (text, axes, grid), whose dark value depends on their own lightness
    only (a table of 256 entries), or lie inside an area of one colour (fills, markers, lines), whose dark value
    depends on that colour only (computed once per colour); the neighbourhood is looked at only for the other
    coloured pixels, the edges of coloured strokes.
    """
    h, w, _ = rgb.shape
    fg = np.asarray(text, np.float32) / 255.0  # (3,)
    # Padded by one pixel of paper so that every pixel has 8 neighbours; pixels addressed by flat index.
    padded = np.full((h + 2, w + 2, 3), 255, np.uint8)
    padded[1:-1, 1:-1] = rgb
    flat = padded.reshape(-1, 3)
    planes = flat.T  # (3, M) views of the channels
    lo, hi = _min3(planes), _max3(planes)
    # Grey (and paper): black ink of coverage a = 1 − value/255, i.e. the text colour at opacity a.
    grey_table = np.empty((256, 4), np.uint8)
    grey_table[:, :3] = np.asarray(text, np.uint8)
    grey_table[:, 3] = 255 - np.arange(256)
    out = grey_table[lo]  # (M, 4)
    keep = np.zeros((h + 2, w + 2), bool)
    keep[1:-1, 1:-1] = image_regions(rgb, scale)
    keep = keep.ravel()
    where = np.flatnonzero((hi.astype(np.int16) - lo > 2) & ~keep)  # (N,) the coloured pixels
    if where.size:
        code = (planes[0].astype(np.int32) << 16) | (planes[1].astype(np.int32) << 8) | planes[2]  # (M,)
        offsets = (-w - 3, -w - 2, -w - 1, -1, 1, w + 1, w + 2, w + 3)  # the 8 neighbours
        own = code[where]
        inside = np.logical_and.reduce([code[where + o] == own for o in offsets])
        # Inside an area of one colour: the stroke's full coverage is the pixel's own.
        colours, index = np.unique(own[inside], return_inverse=True)
        if colours.size:
            p = np.stack([colours >> 16, (colours >> 8) & 255, colours & 255]).astype(np.float32) / 255.0
            a, ink = _ink(p)
            colour, alpha = _on_dark_page(a, ink, a, fg)
            out[where[inside], :3] = colour.T[index]
            out[where[inside], 3] = alpha[index]
        # On an edge: the full coverage is the highest coverage of similar ink among the 3 x 3 neighbours.
        edge = where[~inside]
        a, ink = _ink(flat[edge].T / np.float32(255.0))
        a_full = a.copy()
        for offset in offsets:
            near_a, near_ink = _ink(flat[edge + offset].T / np.float32(255.0))
            np.maximum(a_full, near_a * (_max3(np.abs(near_ink - ink)) < 0.2), out=a_full)
        colour, alpha = _on_dark_page(a, ink, a_full, fg)
        out[edge, :3] = colour.T
        out[edge, 3] = alpha
    out[keep, :3] = flat[keep]
    out[keep, 3] = 255
    return out.reshape(h + 2, w + 2, 4)[1:-1, 1:-1].copy()


def composite(rgba, background):
    """``rgba`` (H, W, 4) over an opaque ``background`` colour: (H, W, 3) uint8, as the page shows it."""
    alpha = rgba[..., 3:].astype(np.float32) / 255.0
    out = alpha * rgba[..., :3] + (1.0 - alpha) * np.asarray(background, np.float32)
    return np.rint(out).astype(np.uint8)


def write_dark_variant(source: Path, target: Path) -> None:
    """Write the dark variant of the PNG ``source`` (a matplotlib figure, opaque) to ``target``, resolution kept."""
    from PIL import Image

    with Image.open(source) as image:
        dpi = image.info.get("dpi")
        rgb = np.asarray(image.convert("RGB"))
    scale = (dpi[0] / 100.0) if dpi else 1.0  # matplotlib's figure.dpi is 100 (implementations/notebook/style.py)
    Image.fromarray(dark_variant(rgb, scale), "RGBA").save(target, dpi=dpi or (100, 100))


# --- the pages ----------------------------------------------------------------------------------------------------


def dark_name(filename: str) -> str:
    """``abc.png`` -> ``abc-dark.png``."""
    stem, _, ext = filename.rpartition(".")
    return f"{stem}{SUFFIX}.{ext}"


def mark_figures(app, doctree, docname: str) -> None:
    """Mark every PNG figure of a notebook's outputs (MyST-NB's cell output containers) for a dark variant."""
    from docutils import nodes

    if app.builder.format != "html":
        return
    for output in doctree.findall(nodes.container):
        if output.get("nb_element") != "cell_code_output":
            continue
        for image in output.findall(nodes.image):
            if image["uri"].lower().endswith(".png"):
                image["mlfs_dark"] = True
                image["classes"].append(LIGHT_CLASS)


def visit_image(self, node) -> None:
    """The writer's own <img>, followed, for a marked figure, by the same <img> of its dark variant."""
    source = node["uri"]
    type(self).visit_image(self, node)
    if not node.get("mlfs_dark") or source not in self.builder.images:
        return
    light = self.body[-1]
    name = self.builder.images[source]
    dark = light.replace(name, dark_name(name)).replace(LIGHT_CLASS, DARK_CLASS)
    if dark.count(dark_name(name)) != 1 or not dark.lstrip().startswith("<img"):
        raise ValueError(f"figure_dark_mode: unexpected image markup {light!r}")
    self.body.append(dark)
    self.builder.mlfs_dark_figures[source] = name


def depart_image(self, node) -> None:
    type(self).depart_image(self, node)


def write_variants(app, exception) -> None:
    """Write the dark variant of every figure into _images/, from the light one the builder copied there.

    A variant is written when it is missing or older than its figure or than this file, also for the pages an
    incremental build did not write again (whose variants are the *-dark.png files already there).
    """
    figures = getattr(app.builder, "mlfs_dark_figures", None)
    if exception is not None or figures is None:
        return
    start = time.perf_counter()
    folder = Path(app.builder.outdir, app.builder.imagedir)
    names = set(figures.values()) | {p.name[:-len(SUFFIX + ".png")] + ".png" for p in folder.glob(f"*{SUFFIX}.png")}
    code = Path(__file__).stat().st_mtime
    todo = []
    for name in sorted(names):
        source, target = folder / name, folder / dark_name(name)
        if source.exists() and not (target.exists() and target.stat().st_mtime > max(code, source.stat().st_mtime)):
            todo.append((source, target))
    # NumPy and PNG coding release the GIL: threads use the machine's cores.
    with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
        list(pool.map(lambda job: write_dark_variant(*job), todo))
    from sphinx.util import logging

    logging.getLogger(__name__).info(
        f"figure_dark_mode: {len(todo)} of {len(names)} dark figure variants written in "
        f"{time.perf_counter() - start:.1f} s")


def init_builder(app) -> None:
    app.builder.mlfs_dark_figures = {}


def add_paths(app, config) -> None:
    config.html_static_path.append(str(STATIC / "static"))


def setup(app) -> dict:
    from docutils import nodes

    app.connect("config-inited", add_paths)
    app.connect("builder-inited", init_builder)
    app.connect("doctree-resolved", mark_figures)
    app.connect("build-finished", write_variants)
    app.add_node(nodes.image, override=True, html=(visit_image, depart_image))
    app.add_css_file("figure_dark_mode.css")
    # Written serially (mlfs_dark_figures lives in the main process): not safe for parallel writing.
    return {"parallel_read_safe": True, "parallel_write_safe": False}
