"""The dark variant of the book's figures (book/_ext/figure_dark_mode.py), on figures drawn here with matplotlib.

On the dark page: the paper disappears, black text and axes take the page's text colour, the palette's colours are
kept, pale translucent fills stay dim, grey-scale pictures turn light on dark, and images (heatmaps with their
colour bars and the numbers in their cells) are kept exactly. The site test (tests/site) checks a built chapter in
the browser.
"""

import io
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "book" / "_ext"))
import figure_dark_mode as fdm  # noqa: E402

PAGE = np.array(fdm.DARK_BACKGROUND)
TEXT = np.array(fdm.DARK_TEXT)
TAB = plt.get_cmap("tab10").colors


def _render(fig, dpi=100):
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, facecolor="white")
    plt.close(fig)
    return np.asarray(Image.open(buffer).convert("RGB"))


def _on_page(rgb, scale=1.0):
    return fdm.composite(fdm.dark_variant(rgb, scale), PAGE)


def _hex(colour):
    return tuple(int(round(255 * c)) for c in colour[:3])


@pytest.fixture(scope="module")
def line_plot():
    fig, ax = plt.subplots(figsize=(4, 3))
    x = np.linspace(0, 1, 50)
    for k in range(4):
        ax.plot(x, x * (k + 1), lw=4, color=TAB[k], label=f"curve {k}")
    ax.fill_between(x, 0, 0.5, color=TAB[1], alpha=0.3)
    ax.set_xlabel("x")
    ax.set_ylabel("y")
    ax.set_title("Four lines")
    ax.legend()
    ax.grid(True, alpha=0.3)
    return _render(fig)


def test_paper_becomes_transparent_and_black_the_text_colour(line_plot):
    dark = fdm.dark_variant(line_plot)
    paper = line_plot.min(axis=2) == 255
    assert (dark[paper, 3] == 0).all()  # the page shows through
    black = (line_plot == 0).all(axis=2)
    assert black.sum() > 50  # text and axes
    assert (dark[black, 3] == 255).all() and (dark[black, :3] == TEXT).all()


def test_antialiased_greys_are_the_text_colour_at_their_coverage(line_plot):
    dark = fdm.dark_variant(line_plot)
    grey = (line_plot.max(axis=2) == line_plot.min(axis=2)) & (line_plot[..., 0] < 255)
    assert (np.abs(dark[grey, 3].astype(int) - (255 - line_plot[grey, 0].astype(int))) <= 1).all()


def _interior(mask):
    """The pixels of ``mask`` whose 8 neighbours are in it too."""
    padded = np.pad(mask, 1)
    h, w = mask.shape
    return np.logical_and.reduce([padded[dy:dy + h, dx:dx + w] for dy in range(3) for dx in range(3)])


def test_the_palette_is_kept(line_plot):
    """Every pixel drawn in a palette colour keeps it, but for a few where lines cross (a mix of two colours next to
    it can read as the same ink at a higher coverage); inside the lines, every one."""
    on_page = _on_page(line_plot)
    for k in range(4):
        colour = _hex(TAB[k])
        drawn = (line_plot == colour).all(axis=2)
        assert drawn.sum() > 30, f"no pixel of tab:{k} drawn"
        same = (on_page[drawn] == colour).all(axis=1)
        assert same.mean() > 0.95, f"tab:{k} changed in the dark variant at {(~same).sum()} of {same.size} pixels"
        assert (on_page[_interior(drawn)] == colour).all()


def test_stroke_edges_blend_into_the_page_not_into_white(line_plot):
    """An antialiased edge of a coloured line is a share of the line's colour over the page: never lighter than
    the line itself (no light halo)."""
    on_page = _on_page(line_plot).astype(int)
    blue = np.array(_hex(TAB[0]))
    light = line_plot.astype(int)
    # Pixels between the blue line and white paper: a mix of the two, any share.
    share = (255 - light) / np.maximum(255 - blue, 1)
    mixed = (np.abs(share - share[..., :1]) < 0.03).all(axis=2) & (share[..., 0] > 0.1) & (share[..., 0] < 0.9)
    assert mixed.sum() > 20
    assert (on_page[mixed].sum(axis=1) <= blue.sum() + 3).all()


def test_a_translucent_fill_stays_dim(line_plot):
    """The band drawn at alpha 0.3 is the orange over the page at 0.3: dim on the dark page, not a pale box."""
    orange = np.array(_hex(TAB[1]), float)
    band = np.rint(0.3 * orange + 0.7 * 255).astype(int)
    inside = _interior((np.abs(line_plot.astype(int) - band) <= 1).all(axis=2))
    assert inside.sum() > 100
    expected = 0.3 * orange + 0.7 * PAGE
    assert np.abs(_on_page(line_plot)[inside].astype(int) - expected).max() <= 6  # the band is stored in 8 bits


def test_a_heatmap_with_its_colour_bar_and_numbers_is_kept():
    rng = np.random.default_rng(0)
    values = rng.uniform(0, 1, (5, 5))
    fig, ax = plt.subplots(figsize=(4, 3.5))
    shown = ax.imshow(values, cmap="Blues", vmin=0, vmax=1)
    for (i, j), v in np.ndenumerate(values):
        ax.text(j, i, f"{v:.1f}", ha="center", va="center", color="white" if v > 0.6 else "black")
    fig.colorbar(shown)
    ax.set_xlabel("column")
    ax.set_ylabel("row")
    light = _render(fig)
    kept = fdm.image_regions(light)
    # The heatmap: its corner cell's centre and its numbers, as drawn; and the colour bar.
    bbox = ax.get_window_extent()
    height = light.shape[0]
    centre = (int(height - bbox.y0 - bbox.height / 10), int(bbox.x0 + bbox.width / 10))
    assert kept[centre]
    assert kept.sum() > 0.8 * bbox.width * bbox.height
    bar = fig.axes[1].get_window_extent()
    assert kept[int(height - (bar.y0 + bar.y1) / 2), int((bar.x0 + bar.x1) / 2)]
    dark = fdm.dark_variant(light)
    assert (dark[kept, :3] == light[kept]).all() and (dark[kept, 3] == 255).all()
    # The axis labels outside it are light on the dark page.
    outside = ~kept & (light == 0).all(axis=2)
    assert outside.sum() > 20 and (dark[outside, :3] == TEXT).all()


def test_bars_and_translucent_regions_are_not_images():
    fig, (left, right) = plt.subplots(1, 2, figsize=(6, 3))
    left.bar(np.arange(4) - 0.2, [5, 3, 4, 1], width=0.4, color=TAB[0])
    left.bar(np.arange(4) + 0.2, [2, 4, 1, 3], width=0.4, color=TAB[1])
    xx, yy = np.meshgrid(np.linspace(0, 1, 200), np.linspace(0, 1, 200))
    right.pcolormesh(xx, yy, (xx > yy).astype(float), cmap=plt.matplotlib.colors.ListedColormap(TAB[:2]),
                     alpha=0.18, shading="auto")
    right.scatter(*np.random.default_rng(1).uniform(0, 1, (2, 60)), s=15, color=TAB[2])
    light = _render(fig)
    assert not fdm.image_regions(light).any()
    # Between the bars the page shows, not white paper.
    dark = fdm.dark_variant(light)
    assert (dark[light.min(axis=2) == 255, 3] == 0).all()


def test_a_grey_scale_picture_turns_light_on_dark():
    digit = np.zeros((8, 8))
    digit[1:7, 2:6] = 1.0
    digit[2:6, 3:5] = 0.0  # a "0"
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.imshow(digit, cmap="gray_r")
    ax.set_axis_off()
    light = _render(fig)
    assert not fdm.image_regions(light).any()
    on_page = _on_page(light)
    stroke = (light == 0).all(axis=2)
    assert stroke.sum() > 100 and (on_page[stroke] == TEXT).all()


def test_twice_the_pixels_give_the_same_picture():
    """The book's builds store figures at MLFS_FIGURE_SCALE=2: the same regions are found, the same colours made."""
    fig, ax = plt.subplots(figsize=(3, 2.5))
    ax.imshow(np.arange(16).reshape(4, 4), cmap="viridis")
    ax.plot([0, 3], [0, 3], color="black")
    small = _render(fig, dpi=100)
    fig, ax = plt.subplots(figsize=(3, 2.5))
    ax.imshow(np.arange(16).reshape(4, 4), cmap="viridis")
    ax.plot([0, 3], [0, 3], color="black")
    large = _render(fig, dpi=200)
    assert abs(fdm.image_regions(large, 2.0).mean() - fdm.image_regions(small, 1.0).mean()) < 0.02


def test_write_dark_variant_keeps_the_resolution(tmp_path, line_plot):
    source = tmp_path / "figure.png"
    Image.fromarray(line_plot).save(source, dpi=(200, 200))
    target = tmp_path / fdm.dark_name(source.name)
    assert target.name == "figure-dark.png"
    fdm.write_dark_variant(source, target)
    with Image.open(target) as written:
        assert written.mode == "RGBA" and written.size == (line_plot.shape[1], line_plot.shape[0])
        assert round(written.info["dpi"][0]) == 200
