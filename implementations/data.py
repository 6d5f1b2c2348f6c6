"""Data sets of the book: four small CSV tables and the generators of its synthetic problems.

The CSV files live in the repository's ``data/`` folder next to a ``SHA256SUMS`` file;
each loader checks the file against its checksum before reading it, so an edited or
truncated copy fails loudly instead of silently changing the book's numbers.
``data/README.md`` says where each table comes from.
"""

import hashlib
import math
import numbers
import os
from pathlib import Path

import numpy as np
import pandas as pd

from ._validation import _describe, as_finite_array, check_nonnegative, check_positive_int, check_rng

__all__ = [
    "DATA_DIR",
    "PENGUIN_SPECIES",
    "TAGGING_VOCABULARY",
    "load_houses",
    "load_paris_apartments",
    "load_penguins",
    "load_sunspots",
    "make_windows",
    "make_adding_problem",
    "make_entity_tagging",
    "WORD_CATEGORIES",
    "make_corpus",
    "make_sine_data",
    "make_moons",
    "make_circles",
    "make_spirals",
    "verify_checksum",
]

#: The repository's ``data/`` folder, where the CSV files and ``SHA256SUMS`` live.
DATA_DIR = Path(__file__).resolve().parents[1] / "data"
CHECKSUM_FILE = "SHA256SUMS"

HOUSES_DTYPES = {
    "size_sqft": "int64",  # living area above ground, ft²
    "bedrooms": "int64",  # bedrooms above ground
    "floors": "float64",  # storeys: 1, 1.5, 2 or 2.5
    "age_years": "int64",  # year sold − year built
    "price_k": "float64",  # sale price, thousands of US dollars
}
PARIS_DTYPES = {
    "living_area_m2": "float64",  # living area, m²
    "rooms": "int64",
    "district": "int64",  # Paris arrondissement, 1..20
    "price_eur": "int64",  # price, euros
}

PENGUIN_DTYPES = {
    "species": "str",  # Adelie, Chinstrap or Gentoo
    "island": "str",  # Biscoe, Dream or Torgersen (Palmer Archipelago, Antarctica)
    "bill_length_mm": "float64",  # culmen length, mm
    "bill_depth_mm": "float64",  # culmen depth, mm
    "flipper_length_mm": "float64",  # mm (whole numbers; float because two rows are missing)
    "body_mass_g": "float64",  # g (whole numbers; idem)
    "sex": "str",  # female, male, or missing
    "year": "int64",  # year of the study, 2007-2009
}
SUNSPOT_DTYPES = {
    "year": "int64",  # 1749-2013
    "month": "int64",  # 1-12
    "sunspots": "float64",  # monthly mean total sunspot number (the series before SILSO's 2015 revision)
}
PENGUIN_MEASUREMENTS = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]
# Class index k of each species in the book: y = k means PENGUIN_SPECIES[k].
#: The three species of the penguin table, in the order of their class labels 0, 1, 2.
PENGUIN_SPECIES = ("Adelie", "Chinstrap", "Gentoo")


def _restore_hint(name):
    return f"Restore it with `git checkout -- data/{name}` or regenerate all data files with `make data`."


def _expected_sha256(path):
    """Read the expected hex digest of ``path`` from ``SHA256SUMS`` in the same folder."""
    sums_path = path.parent / CHECKSUM_FILE
    if not sums_path.is_file():
        raise FileNotFoundError(
            f"Checksum file {sums_path} not found, so {path.name} cannot be verified. "
            + _restore_hint(CHECKSUM_FILE)
        )
    try:
        text = sums_path.read_text(encoding="ascii")
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"{sums_path} is not plain ASCII text ({exc.reason} at byte {exc.start}); expected lines "
            "'<64 hex digits>  <file name>' as written by sha256sum. " + _restore_hint(CHECKSUM_FILE)
        ) from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        digest, sep, name = line.partition("  ")
        if not sep or len(digest) != 64:
            raise ValueError(
                f"{sums_path} line {number} is {line!r}; expected '<64 hex digits>  <file name>' "
                "as written by sha256sum. " + _restore_hint(CHECKSUM_FILE)
            )
        if name.lstrip("*") == path.name:  # "*" marks binary mode in sha256sum output
            return digest.lower()
    raise ValueError(
        f"{sums_path} has no entry for {path.name}, so {path} cannot be verified. "
        + _restore_hint(CHECKSUM_FILE)
    )


def verify_checksum(path):
    """Check a data file against the ``SHA256SUMS`` file in its folder.

    Parameters
    ----------
    path : str or pathlib.Path
        The data file, e.g. ``data/houses.csv``.

    Raises
    ------
    TypeError
        If ``path`` is not a str or a path object.
    FileNotFoundError
        If the file or ``SHA256SUMS`` is missing.
    ValueError
        If ``SHA256SUMS`` has no valid entry for the file, or the file's SHA-256 differs.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise TypeError(f"path must be a file path (str or pathlib.Path); received {_describe(path)}. "
                        "Pass e.g. path=DATA_DIR / 'houses.csv'.")
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path {str(path)!r} is not an existing file; expected a data file such as "
                                "data/houses.csv. " + _restore_hint(path.name))
    _verify_checksum(path)


def _verify_checksum(path):
    """:func:`verify_checksum` of a ``Path`` built by a loader: the messages name the file, not an argument."""
    if not path.is_file():
        raise FileNotFoundError(f"Data file {path} not found. " + _restore_hint(path.name))
    expected = _expected_sha256(path)
    found = hashlib.sha256(path.read_bytes()).hexdigest()
    if found != expected:
        raise ValueError(
            f"{path} has SHA-256 {found[:12]}... but {CHECKSUM_FILE} expects {expected[:12]}...; "
            "the file was edited or truncated. " + _restore_hint(path.name)
        )


def _data_folder(data_dir, name):
    """The folder to read ``name`` from: ``DATA_DIR`` for None, else ``data_dir``, which must be an existing folder."""
    if data_dir is None:
        return DATA_DIR
    if not isinstance(data_dir, (str, os.PathLike)):
        raise TypeError(f"data_dir must be a folder path (str or pathlib.Path); received {_describe(data_dir)}. "
                        "Omit it (data_dir=None) to read the repository's data/ folder.")
    folder = Path(data_dir)
    if not folder.is_dir():
        raise FileNotFoundError(f"data_dir {str(folder)!r} is not an existing folder; expected the folder holding "
                                f"{name} and {CHECKSUM_FILE}. Omit it (data_dir=None) to read the repository's data/.")
    return folder


def _load_csv(name, dtypes, data_dir):
    path = _data_folder(data_dir, name) / name
    _verify_checksum(path)
    table = _read_csv(path, dtypes)
    _check_columns(path, list(table.columns), dtypes)
    return table


def _check_columns(path, columns, dtypes):
    if columns != list(dtypes):
        raise ValueError(_columns_message(path, columns, dtypes))


def _columns_message(path, columns, dtypes):
    return f"{path} has columns {columns}; expected {list(dtypes)}. " + _restore_hint(path.name)


# What pandas reads as a missing value in a float column (its default na_values), besides the empty field.
_MISSING = {"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>",
            "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"}


def _read_csv(path, dtypes):
    """Read the CSV file ``path`` with the column types ``dtypes`` (column -> "int64", "float64" or "str").

    A value that does not parse is reported by file, column, row and line, with how to restore the file; pandas'
    own message ("invalid literal for int() with base 10: 'abc'") names neither the file nor the column.
    """
    try:
        return pd.read_csv(path, dtype=dtypes)
    except ValueError as exc:  # pandas.errors.ParserError (a row of the wrong length) is a ValueError too
        raise ValueError(_parse_failure(path, dtypes, exc)) from exc


def _parse_failure(path, dtypes, exc):
    """The message for a CSV file that pandas could not read with ``dtypes``: the first value that does not parse."""
    hint = _restore_hint(path.name)
    try:
        raw = pd.read_csv(path, dtype=str, keep_default_na=False)  # every field as its text
    except ValueError:
        return f"{path} is not a well-formed CSV table ({str(exc).strip()}). " + hint
    if list(raw.columns) != list(dtypes):
        return _columns_message(path, list(raw.columns), dtypes)
    for row, values in enumerate(raw.itertuples(index=False), start=1):
        for column, value in zip(raw.columns, values, strict=True):
            kind = dtypes[column]
            if kind == "int64" and not _is_int_literal(value):
                expected = "an integer (this column has no missing values)"
            elif kind == "float64" and not (value.strip() in _MISSING or _is_float_literal(value)):
                expected = "a number, or an empty field for a missing value"
            else:
                continue
            return (f"{path.name}: the value {value!r} in column {column!r}, data row {row} (line {row + 1} of "
                    f"{path}), does not parse; expected {expected}. The file is damaged. " + hint)
    return f"{path} could not be read with the column types {dtypes} ({str(exc).strip()}). " + hint


def _is_int_literal(text):
    try:
        int(text)
    except ValueError:
        return False
    return True


def _is_float_literal(text):
    try:
        float(text)
    except ValueError:
        return False
    return True


def load_houses(*, data_dir=None):
    """Load 100 houses sold in Ames, Iowa, 2006–2010 (De Cock, 2011).

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``houses.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    houses : pandas.DataFrame of shape (100, 5)
        ``size_sqft`` (int, ft²), ``bedrooms`` (int), ``floors`` (float: 1, 1.5, 2 or 2.5),
        ``age_years`` (int) and ``price_k`` (float, thousands of US dollars).

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _load_csv("houses.csv", HOUSES_DTYPES, data_dir)


def load_paris_apartments(*, data_dir=None):
    """Load the 15 illustrative Paris apartments that open chapter 1.

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``paris_apartments.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    apartments : pandas.DataFrame of shape (15, 4)
        ``living_area_m2`` (float, m²), ``rooms`` (int), ``district`` (int, arrondissement)
        and ``price_eur`` (int, euros).

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _load_csv("paris_apartments.csv", PARIS_DTYPES, data_dir)


def load_penguins(*, drop_missing=True, data_dir=None):
    """Load the Palmer penguins: 344 birds of three species measured in 2007–2009 (Gorman et al., 2014).

    Two of the 344 rows (one Adelie, one Gentoo) have no measurement at all, only species, island
    and year. By default they are dropped, which leaves 342 birds with all four measurements; nine
    of those have no recorded sex (``sex`` is missing), which the book never uses as a feature.

    Parameters
    ----------
    drop_missing : bool, default True
        Drop the two rows without measurements. ``False`` returns all 344 rows as shipped.
    data_dir : str or pathlib.Path, optional
        Folder holding ``penguins.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    penguins : pandas.DataFrame of shape (342, 8), or (344, 8) with ``drop_missing=False``
        ``species`` (str, one of :data:`PENGUIN_SPECIES`), ``island`` (str), ``bill_length_mm``,
        ``bill_depth_mm``, ``flipper_length_mm`` (float, mm), ``body_mass_g`` (float, g),
        ``sex`` (str or missing) and ``year`` (int). The index runs 0, 1, … after dropping.

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path, or ``drop_missing`` is not a bool.
    """
    if not isinstance(drop_missing, bool):
        raise TypeError(f"drop_missing must be True or False; received {drop_missing!r}.")
    penguins = _load_csv("penguins.csv", PENGUIN_DTYPES, data_dir)
    if drop_missing:
        penguins = penguins.dropna(subset=PENGUIN_MEASUREMENTS).reset_index(drop=True)
    return penguins


def make_sine_data(n, *, noise, rng, x_range=(0.0, 1.0)):
    """Noisy samples of one period of a sine: y = sin(2πx) + ε, ε ~ N(0, noise²).

    Parameters
    ----------
    n : int
        Number of points N, at least 1.
    noise : float
        Standard deviation σ of the Gaussian noise ε, finite and ≥ 0; 0 gives y = sin(2πx) exactly.
    rng : numpy.random.Generator
        Source of randomness, e.g. ``np.random.default_rng(SEED)``.
    x_range : tuple of float, default (0.0, 1.0)
        Interval (low, high) that x is drawn from uniformly; low < high.

    Returns
    -------
    x : ndarray of shape (N,)
        Inputs, sorted ascending.
    y : ndarray of shape (N,)
        Targets sin(2πx) + ε, float64.
    """
    n = check_positive_int(n, "n")
    noise = check_nonnegative(noise, "noise")
    rng = check_rng(rng)
    try:
        if isinstance(x_range, (str, bytes)) or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in x_range
        ):
            raise TypeError
        low, high = (float(v) for v in x_range)
    except (TypeError, ValueError):
        raise ValueError(f"x_range must be a pair of numbers (low, high); received {x_range!r}. "
                         "Pass e.g. x_range=(0.0, 1.0).") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"x_range must be finite and increasing (low < high); received {x_range!r}.")
    x = np.sort(rng.uniform(low, high, size=n))  # (N,)
    epsilon = noise * rng.standard_normal(n)  # (N,) drawn even for noise=0: rng advances the same way
    y = np.sin(2.0 * np.pi * x) + epsilon  # (N,)
    return x, y


def make_moons(n, *, noise, rng):
    """Two interleaving half circles, a classic problem that no straight line separates.

    Class 0 lies on the upper half of the unit circle centred at (0, 0), class 1 on the lower half of
    the unit circle centred at (1, 0.5); each point gets isotropic Gaussian noise.

    Parameters
    ----------
    n : int
        Number of points N ≥ 2; class 0 gets ⌈N/2⌉ of them.
    noise : float
        Standard deviation of the noise, ≥ 0.
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (N, 2)
    y : ndarray of shape (N,), int64
        Labels 0 and 1, class 0 first.
    """
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be at least 2 (one point per class); received {n}.")
    noise = check_nonnegative(noise, "noise")
    rng = check_rng(rng)
    n0 = (n + 1) // 2
    angle0 = rng.uniform(0.0, np.pi, size=n0)  # (n0,)
    angle1 = rng.uniform(0.0, np.pi, size=n - n0)  # (n − n0,)
    upper = np.column_stack([np.cos(angle0), np.sin(angle0)])
    lower = np.column_stack([1.0 - np.cos(angle1), 0.5 - np.sin(angle1)])
    X = np.vstack([upper, lower]) + noise * rng.standard_normal((n, 2))  # (N, 2)
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n - n0, dtype=np.int64)]
    return X, y


def make_circles(n, *, noise, factor=0.5, rng):
    """Two concentric circles, a problem that no straight line separates but the squared radius x₁² + x₂² does.

    Class 0 lies on the circle of radius 1 centred at (0, 0), class 1 on the circle of radius ``factor`` inside
    it, at uniformly random angles; each point gets isotropic Gaussian noise.

    Parameters
    ----------
    n : int
        Number of points N ≥ 2; class 0 (the outer circle) gets ⌈N/2⌉ of them.
    noise : float
        Standard deviation of the noise, ≥ 0.
    factor : float, default 0.5
        Radius of the inner circle, 0 < factor < 1.
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (N, 2)
    y : ndarray of shape (N,), int64
        Labels 0 and 1, class 0 first.
    """
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be at least 2 (one point per class); received {n}.")
    noise = check_nonnegative(noise, "noise")
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not 0 < factor < 1:
        raise ValueError(f"factor must be a number strictly between 0 and 1 (the inner radius, the outer one being "
                         f"1); received {factor!r}. Pass e.g. factor=0.5.")
    rng = check_rng(rng)
    n0 = (n + 1) // 2
    angle0 = rng.uniform(0.0, 2 * np.pi, size=n0)  # (n0,)
    angle1 = rng.uniform(0.0, 2 * np.pi, size=n - n0)  # (n − n0,)
    outer = np.column_stack([np.cos(angle0), np.sin(angle0)])  # (n0, 2): radius 1
    inner = float(factor) * np.column_stack([np.cos(angle1), np.sin(angle1)])  # (n − n0, 2): radius factor
    X = np.vstack([outer, inner]) + noise * rng.standard_normal((n, 2))  # (N, 2)
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n - n0, dtype=np.int64)]
    return X, y


def make_spirals(n_per_class, *, num_classes=3, noise, rng, turns=1.0):
    """Interleaved spiral arms, one per class: r grows from 0 to 1 while the angle turns.

    Arm k is r(cos θ, sin θ) with r uniform on [0, 1] and θ = 2π(turns · r + k/K), plus Gaussian
    noise of standard deviation ``noise`` on the angle (in radians, scaled by r).

    Parameters
    ----------
    n_per_class : int
    num_classes : int, default 3
        K ≥ 2 arms.
    noise : float
        ≥ 0.
    rng : numpy.random.Generator
    turns : float, default 1.0
        Full turns of each arm; more turns make the problem harder.

    Returns
    -------
    X : ndarray of shape (K · n_per_class, 2)
    y : ndarray of shape (K · n_per_class,), int64
    """
    n_per_class = check_positive_int(n_per_class, "n_per_class")
    num_classes = check_positive_int(num_classes, "num_classes")
    if num_classes < 2:
        raise ValueError(f"num_classes must be at least 2; received {num_classes}.")
    noise = check_nonnegative(noise, "noise")
    turns = float(check_nonnegative(turns, "turns"))
    rng = check_rng(rng)
    r = rng.uniform(0.0, 1.0, size=(num_classes, n_per_class))  # (K, n)
    k = np.arange(num_classes)[:, None]  # (K, 1)
    theta = 2 * np.pi * (turns * r + k / num_classes) + noise * rng.standard_normal(r.shape)
    X = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=-1).reshape(-1, 2)  # (K n, 2)
    y = np.repeat(np.arange(num_classes, dtype=np.int64), n_per_class)
    return X, y


def load_sunspots(*, data_dir=None):
    """Load 3,177 monthly mean sunspot numbers, January 1749 to September 2013 (WDC-SILSO, via R).

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``sunspots.csv`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    sunspots : pandas.DataFrame of shape (3177, 3)
        ``year`` (int), ``month`` (int, 1-12) and ``sunspots`` (float, one decimal), consecutive months.

    Raises
    ------
    FileNotFoundError, ValueError
        If ``data_dir`` or the file is missing, the file does not match its checksum (see
        :func:`verify_checksum`), or a value in it does not parse (named by column and row).
    TypeError
        If ``data_dir`` is not a path.
    """
    return _load_csv("sunspots.csv", SUNSPOT_DTYPES, data_dir)


def make_windows(series, *, window, horizon=1):
    """Cut a series into overlapping (input window, target) pairs for forecasting.

    Pair k has inputs series[k : k + window] and target series[k + window + horizon − 1]: the value
    ``horizon`` steps after the window ends.

    Parameters
    ----------
    series : array_like of shape (T,) or (T, D)
    window : int
        Length of each input window, ≥ 1.
    horizon : int, default 1
        How far ahead the target lies, ≥ 1.

    Returns
    -------
    X : ndarray of shape (K, window, D), with D = 1 for a 1-D series
    y : ndarray of shape (K,) or (K, D)
        K = T − window − horizon + 1 pairs, in time order.
    """
    arr = as_finite_array(series, "series", ndim=(1, 2))  # (T,) or (T, D)
    window = check_positive_int(window, "window")
    horizon = check_positive_int(horizon, "horizon")
    T = arr.shape[0]
    K = T - window - horizon + 1
    if K < 1:
        raise ValueError(
            f"series has length {T}, too short for a window of {window} steps with a target {horizon} step(s) "
            f"ahead; need at least {window + horizon} values. Pass a longer series or a smaller window."
        )
    values = arr[:, None] if arr.ndim == 1 else arr  # (T, D)
    starts = np.arange(K)[:, None] + np.arange(window)[None, :]  # (K, window): all windows at once
    X = values[starts]  # (K, window, D)
    y = arr[window + horizon - 1 : window + horizon - 1 + K]  # (K,) or (K, D)
    return X, y


def make_adding_problem(n, *, length, rng):
    """The adding problem (Hochreiter and Schmidhuber, 1997): a test of long-range memory.

    Each sequence has ``length`` steps with two features: a random number in [0, 1) and a marker that is 1
    at exactly two steps, one in the first half and one in the second half, and 0 elsewhere. The target
    is the sum of the two marked numbers. Predicting the mean, 1, gives a mean squared error of 1/6 ≈ 0.167;
    doing better requires remembering the first marked number across up to ``length`` steps.

    Parameters
    ----------
    n : int
        Number of sequences.
    length : int
        Number of steps T ≥ 2.
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n, T, 2)
        [..., 0] the numbers, [..., 1] the markers.
    y : ndarray of shape (n,)
    """
    n = check_positive_int(n, "n")
    length = check_positive_int(length, "length")
    if length < 2:
        raise ValueError(f"length must be at least 2 (one marker in each half); received {length}.")
    rng = check_rng(rng)
    values = rng.uniform(0.0, 1.0, size=(n, length))  # (n, T)
    half = length // 2
    first = rng.integers(0, half, size=n)  # marked step in the first half
    second = rng.integers(half, length, size=n)  # and in the second half
    markers = np.zeros((n, length))
    rows = np.arange(n)
    markers[rows, first] = 1.0
    markers[rows, second] = 1.0
    y = values[rows, first] + values[rows, second]
    return np.stack([values, markers], axis=-1), y


# A toy named-entity task: is "apple" the company or the fruit? Only the next word tells.
_TAGGING_FILLERS = ("she", "we", "saw", "said", "that", "the", "a", "new", "today", "and")
_TAGGING_COMPANY = ("released", "announced", "sued", "hired")
_TAGGING_FRUIT = ("pie", "juice", "tree", "seeds")
#: The 19 tokens of :func:`make_entity_tagging`; index 0 is ``<pad>``.
TAGGING_VOCABULARY = ("<pad>", "apple", *_TAGGING_FILLERS, *_TAGGING_COMPANY, *_TAGGING_FRUIT)


def make_entity_tagging(n, *, rng, min_length=4, max_length=12):
    """Padded sentences in which each "apple" must be tagged company (1) or fruit (0) from the word after it.

    Every sentence has between ``min_length`` and ``max_length`` words drawn from a small vocabulary
    (:data:`TAGGING_VOCABULARY`, index 0 is ``<pad>``), with one or (half the time, when there is room) two
    occurrences of "apple", each followed
    by a company verb ("released", "announced", …: tag 1) or a fruit word ("pie", "juice", …: tag 0), with
    equal probability. Every other word has tag 0. A model that reads left to right cannot know the tag
    of "apple" when it reads it; one that also reads right to left can.

    Parameters
    ----------
    n : int
        Number of sentences.
    rng : numpy.random.Generator
    min_length, max_length : int
        Sentence lengths are uniform on min_length..max_length; 2 ≤ min_length ≤ max_length.

    Returns
    -------
    tokens : ndarray of int, shape (n, max_length)
        Word indices into :data:`TAGGING_VOCABULARY`; 0 (``<pad>``) after each sentence's end.
    tags : ndarray of int, shape (n, max_length)
        0 or 1 at real words, −1 at padding (for ``cross_entropy(..., ignore_index=-1)``).
    lengths : ndarray of int, shape (n,)
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    min_length = check_positive_int(min_length, "min_length")
    max_length = check_positive_int(max_length, "max_length")
    if not 2 <= min_length <= max_length:
        raise ValueError(
            f"need 2 <= min_length <= max_length (room for 'apple' and its next word); received "
            f"min_length={min_length}, max_length={max_length}."
        )
    index = {word: i for i, word in enumerate(TAGGING_VOCABULARY)}
    fillers = np.array([index[w] for w in _TAGGING_FILLERS])
    company = np.array([index[w] for w in _TAGGING_COMPANY])
    fruit = np.array([index[w] for w in _TAGGING_FRUIT])
    lengths = rng.integers(min_length, max_length + 1, size=n)
    tokens = np.zeros((n, max_length), dtype=np.int64)
    tags = np.full((n, max_length), -1, dtype=np.int64)
    for b, length in enumerate(lengths):
        tokens[b, :length] = rng.choice(fillers, size=length)
        tags[b, :length] = 0
        starts = [rng.integers(0, length - 1)]  # "apple" at t needs a next word at t + 1
        free = [t for t in range(length - 1) if abs(t - starts[0]) >= 2]
        if rng.random() < 0.5 and free:  # a second pair that does not overlap the first
            starts.append(rng.choice(free))
        for t in starts:
            is_company = rng.random() < 0.5
            tokens[b, t] = index["apple"]
            tokens[b, t + 1] = rng.choice(company if is_company else fruit)
            tags[b, t] = int(is_company)
    return tokens, tags, lengths


# A synthetic corpus for word embeddings: words of one category fill the same slots of the same templates.
#: The five categories of :func:`make_corpus`, six words each.
WORD_CATEGORIES = {
    "animal": ("cat", "dog", "horse", "cow", "sheep", "goat"),
    "food": ("bread", "cheese", "rice", "soup", "cake", "pasta"),
    "vehicle": ("car", "bus", "train", "bike", "truck", "boat"),
    "place": ("city", "village", "farm", "market", "school", "park"),
    "person": ("teacher", "farmer", "doctor", "child", "driver", "baker"),
}
_CORPUS_TEMPLATES = (
    "the {animal} sleeps near the {place}",
    "a {person} feeds the {animal}",
    "the {person} eats {food} at the {place}",
    "we took the {vehicle} to the {place}",
    "the {animal} runs after the {vehicle}",
    "she bought {food} for the {person}",
    "the {vehicle} stopped at the {place}",
    "my {animal} likes {food}",
    "the {person} drives the {vehicle}",
    "they sell {food} at the {place}",
    "the {animal} and the {animal} play",
    "the {person} talks to the {person}",
)


def make_corpus(n, *, rng):
    """``n`` templated sentences whose content words come from five known categories.

    Each sentence fills one of twelve templates ("the {animal} sleeps near the {place}", …) with words
    drawn uniformly from :data:`WORD_CATEGORIES` (animals, foods, vehicles, places, people; six words
    each). Words of one category occur in the same contexts, so a good embedding places them close
    together, and that can be measured.

    Parameters
    ----------
    n : int
        Number of sentences.
    rng : numpy.random.Generator

    Returns
    -------
    sentences : list of str
    category : dict of str -> str
        The category of each of the 30 content words.
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    sentences = []
    for template in rng.choice(len(_CORPUS_TEMPLATES), size=n):
        words = _CORPUS_TEMPLATES[template].split()
        sentences.append(" ".join(
            str(rng.choice(WORD_CATEGORIES[w[1:-1]])) if w.startswith("{") else w for w in words))
    category = {word: name for name, words in WORD_CATEGORIES.items() for word in words}
    return sentences, category
