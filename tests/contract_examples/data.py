"""Valid examples for the input contract: datasets (the book's data files) and the synthetic problems (synthetic,
sequence_tasks, corpora).

All are re-exported by the facade ``implementations.data``; the harness names a function where it is defined.
"""

import numpy as np

from contract import Example
from implementations.data import corpora, datasets, sequence_tasks, synthetic

SERIES = np.arange(16.0).reshape(8, 2)  # (T, D) = (8, 2)

# A loader's data_dir: a number is the wrong kind; a folder that does not exist, or a file, is not a data folder.
_DATA_DIR_EXTRAS = [
    ("a number", {"data_dir": 123}, (TypeError,)),
    ("a folder that does not exist", {"data_dir": "/nonexistent/data"}, (FileNotFoundError,)),
    ("a file instead of a folder", {"data_dir": datasets.DATA_DIR / "houses.csv"}, (FileNotFoundError,)),
]


def _rng():
    return np.random.default_rng(0)


EXAMPLES = {
    "implementations.data.datasets.verify_checksum": Example(
        build=lambda: (datasets.verify_checksum, {"path": datasets.DATA_DIR / "paris_apartments.csv"}),
        extra=[("a number", {"path": 123}, (TypeError,)),
               ("a file that does not exist", {"path": datasets.DATA_DIR / "missing.csv"}, (FileNotFoundError,)),
               ("a folder", {"path": datasets.DATA_DIR}, (FileNotFoundError,))]),
    "implementations.data.datasets.shipped_file": Example(
        build=lambda: (datasets.shipped_file, {"name": "paris_apartments.csv", "data_dir": None}),
        extra=[("a number as name", {"name": 3}, ()), ("a path as name", {"name": "data/houses.csv"}, ()),
               *_DATA_DIR_EXTRAS]),
    "implementations.data.datasets.read_shipped_archive": Example(
        build=lambda: (datasets.read_shipped_archive, {"name": "digits_batchnorm_grid.npz",
                                                       "read": lambda stored, config: config, "data_dir": None}),
        extra=[("a number as name", {"name": 3}, ()), ("a path as name", {"name": "data/houses.csv"}, ()),
               ("a number as read", {"read": 3}, (TypeError,)),
               ("a file no script writes", {"name": "houses.csv"}, (ValueError,)), *_DATA_DIR_EXTRAS]),
    "implementations.data.datasets.load_houses": Example(
        build=lambda: (datasets.load_houses, {"data_dir": None}),
        extra=_DATA_DIR_EXTRAS),
    "implementations.data.datasets.load_paris_apartments": Example(
        build=lambda: (datasets.load_paris_apartments, {"data_dir": None}),
        extra=_DATA_DIR_EXTRAS),
    "implementations.data.datasets.load_penguins": Example(
        build=lambda: (datasets.load_penguins, {"drop_missing": True, "data_dir": None}),
        roles={"drop_missing": "flag"},
        extra=_DATA_DIR_EXTRAS),
    "implementations.data.datasets.load_sunspots": Example(
        build=lambda: (datasets.load_sunspots, {"data_dir": None}),
        extra=_DATA_DIR_EXTRAS),
    "implementations.data.datasets.load_digits": Example(
        build=lambda: (datasets.load_digits, {"data_dir": None}),
        extra=_DATA_DIR_EXTRAS),
    "implementations.data.datasets.load_persuasion": Example(
        build=lambda: (datasets.load_persuasion, {"split": "validation", "data_dir": None}),
        extra=[("a part that does not exist", {"split": "test"}, (ValueError,)),
               ("a capitalized name", {"split": "Train"}, (ValueError,)),
               ("a number", {"split": 0.9}, (TypeError,)),
               ("None", {"split": None}, (TypeError,)),
               *_DATA_DIR_EXTRAS]),
    "implementations.data.synthetic.make_sine_data": Example(
        build=lambda: (synthetic.make_sine_data, {"n": 5, "noise": 0.1, "rng": _rng(), "x_range": (0.0, 1.0)}),
        roles={"n": "count", "noise": "penalty", "rng": "rng"},
        extra=[("a decreasing range", {"x_range": (1.0, 0.0)}, (ValueError,)),
               ("an infinite end", {"x_range": (0.0, np.inf)}, (ValueError,)),
               ("a NaN end", {"x_range": (np.nan, 1.0)}, (ValueError,)),
               ("three numbers", {"x_range": (0.0, 1.0, 2.0)}, (ValueError,)),
               ("a string of two digits", {"x_range": "01"}, (TypeError,)),
               ("a string among the numbers", {"x_range": (0.0, "1")}, (TypeError,)),
               ("a number", {"x_range": 1.0}, (TypeError,))]),
    "implementations.data.synthetic.make_moons": Example(
        build=lambda: (synthetic.make_moons, {"n": 6, "noise": 0.1, "rng": _rng()}),
        roles={"n": "count", "noise": "penalty", "rng": "rng"},
        extra=[("a single point", {"n": 1}, (ValueError,))]),
    "implementations.data.synthetic.make_circles": Example(
        build=lambda: (synthetic.make_circles, {"n": 6, "noise": 0.1, "factor": 0.5, "rng": _rng()}),
        roles={"n": "count", "noise": "penalty", "factor": "rate", "rng": "rng"},
        extra=[("a single point", {"n": 1}, (ValueError,)),
               ("an inner radius of 1", {"factor": 1.0}, (ValueError,)),
               ("an inner radius above 1", {"factor": 1.5}, (ValueError,))]),
    "implementations.data.synthetic.make_spirals": Example(
        build=lambda: (synthetic.make_spirals,
                       {"n_per_class": 3, "num_classes": 3, "noise": 0.1, "rng": _rng(), "turns": 1.0}),
        roles={"n_per_class": "count", "num_classes": "count", "noise": "penalty", "rng": "rng",
               "turns": "penalty"},
        extra=[("a single class", {"num_classes": 1}, (ValueError,))]),
    "implementations.data.sequence_tasks.make_windows": Example(
        build=lambda: (sequence_tasks.make_windows, {"series": SERIES, "window": 3, "horizon": 2}),
        roles={"series": "array", "window": "count", "horizon": "count"},
        extra=[("a series shorter than window + horizon", {"series": np.arange(4.0)}, (ValueError,)),
               ("a window longer than the series", {"window": 8}, (ValueError,))]),
    "implementations.data.sequence_tasks.make_adding_problem": Example(
        build=lambda: (sequence_tasks.make_adding_problem, {"n": 3, "length": 6, "rng": _rng()}),
        roles={"n": "count", "length": "count", "rng": "rng"},
        extra=[("a single step", {"length": 1}, (ValueError,))]),
    "implementations.data.sequence_tasks.make_entity_tagging": Example(
        build=lambda: (sequence_tasks.make_entity_tagging,
                       {"n": 3, "rng": _rng(), "min_length": 3, "max_length": 5}),
        roles={"n": "count", "rng": "rng", "min_length": "count", "max_length": "count"},
        extra=[("min_length above max_length", {"min_length": 6}, (ValueError,)),
               ("a one-word sentence", {"min_length": 1}, (ValueError,))]),
    "implementations.data.corpora.make_corpus": Example(
        build=lambda: (corpora.make_corpus, {"n": 4, "rng": _rng(), "graded": True}),
        roles={"n": "count", "rng": "rng", "graded": "flag"}),
    "implementations.data.synthetic.gaussian_ring_centres": Example(
        build=lambda: (synthetic.gaussian_ring_centres, {"modes": 8, "radius": 2.0}),
        roles={"modes": "count", "radius": "rate"}),
    "implementations.data.synthetic.gaussian_grid_centres": Example(
        build=lambda: (synthetic.gaussian_grid_centres, {"side": 5, "spacing": 2.0}),
        roles={"side": "count", "spacing": "rate"}),
    "implementations.data.synthetic.make_gaussian_ring": Example(
        build=lambda: (synthetic.make_gaussian_ring, {"n": 6, "rng": _rng(), "modes": 8, "radius": 2.0, "std": 0.05}),
        roles={"n": "count", "rng": "rng", "modes": "count", "radius": "rate", "std": "penalty"}),
    "implementations.data.synthetic.make_gaussian_grid": Example(
        build=lambda: (synthetic.make_gaussian_grid, {"n": 6, "rng": _rng(), "side": 5, "spacing": 2.0, "std": 0.05}),
        roles={"n": "count", "rng": "rng", "side": "count", "spacing": "rate", "std": "penalty"}),
    "implementations.data.synthetic.gaussian_mixture_density": Example(
        build=lambda: (synthetic.gaussian_mixture_density, {"X": SERIES[:3] / 8, "centres": SERIES[:2] / 8,
                                                            "std": 1.0}),
        roles={"X": "array", "centres": "array", "std": "rate"},
        extra=[("centres of another dimension", {"centres": np.zeros((2, 3))}, ())]),
}
