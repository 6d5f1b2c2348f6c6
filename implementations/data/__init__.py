"""Data sets of the book in one namespace: ``from implementations import data``, then ``data.load_penguins()``.

The data sets live in modules named for their kind; this package gathers their public names, so that each
``data.<name>`` is the very object defined there:

- :mod:`.datasets`: the files shipped in the repository's ``data/`` folder (houses, Paris apartments, penguins,
  sunspots, handwritten digits, the novel *Persuasion*), each checked against ``data/SHA256SUMS`` before it is read;
- the synthetic problems, drawn fresh from a generator passed in: :mod:`.synthetic`, points in the plane (sine data,
  moons, circles, spirals, Gaussian mixtures on a ring and a grid); :mod:`.sequence_tasks`, the sequence tasks
  (forecasting windows, the adding problem, entity tagging); :mod:`.corpora`, a templated corpus.

Preparing data for a model has two more modules here: :mod:`.preprocessing` (standardization and train/test splits,
chapter 1) and :mod:`.loader` (mini-batches, chapter 4).
"""

from .corpora import GRADED_SUBCATEGORIES, WORD_CATEGORIES, make_corpus
from .datasets import (
    DATA_DIR,
    PENGUIN_SPECIES,
    load_digits,
    load_houses,
    load_paris_apartments,
    load_penguins,
    load_persuasion,
    load_sunspots,
    read_shipped_archive,
    shipped_file,
    verify_checksum,
)
from .sequence_tasks import TAGGING_VOCABULARY, make_adding_problem, make_entity_tagging, make_windows
from .synthetic import (
    gaussian_grid_centres,
    gaussian_mixture_density,
    gaussian_ring_centres,
    make_circles,
    make_gaussian_grid,
    make_gaussian_ring,
    make_moons,
    make_sine_data,
    make_spirals,
)

__all__ = [
    "DATA_DIR",
    "PENGUIN_SPECIES",
    "TAGGING_VOCABULARY",
    "load_houses",
    "load_paris_apartments",
    "load_penguins",
    "load_sunspots",
    "load_digits",
    "load_persuasion",
    "make_windows",
    "make_adding_problem",
    "make_entity_tagging",
    "WORD_CATEGORIES",
    "GRADED_SUBCATEGORIES",
    "make_corpus",
    "make_sine_data",
    "make_moons",
    "make_circles",
    "make_spirals",
    "make_gaussian_ring",
    "make_gaussian_grid",
    "gaussian_ring_centres",
    "gaussian_grid_centres",
    "gaussian_mixture_density",
    "shipped_file",
    "read_shipped_archive",
    "verify_checksum",
]
