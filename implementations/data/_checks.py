"""The checks of the data part that no role of the contract describes, each once (see ``implementations._contract``).

Two kinds: *roles*, ``check(value, name) -> value`` for one argument (a loader's folder, an interval, the examples
of a mini-batch loader), and *cross-argument checks*, named in ``also=`` and called with the converted arguments
their parameters name (a series long enough for one window, one row of targets per example). Every message names
the argument, what was received, what was expected and how to fix it.
"""

import numbers
import os
from pathlib import Path

import numpy as np

from .. import _validation as V
from .._validation import _describe, as_array, check_finite_values, folder_holding  # noqa: F401  (data's roles)
from ._files import restore_hint

# --- roles -----------------------------------------------------------------------------------------------------------


def file_name(value, name):
    """The role of a file's name: a non-empty str without a folder in it."""
    if not isinstance(value, str) or not value or "/" in value or "\\" in value:
        raise ValueError(f"{name} must be the name of a file in data/, such as 'houses.csv'; received {value!r}.")
    return value


def data_file(value, name):
    """The role of a data file's path: an existing file, as a Path."""
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a file path (str or pathlib.Path); received {_describe(value)}. "
                        f"Pass e.g. {name}=DATA_DIR / 'houses.csv'.")
    path = Path(value)
    if not path.is_file():
        raise FileNotFoundError(f"{name} {str(path)!r} is not an existing file; expected a data file such as "
                                "data/houses.csv. " + restore_hint(path.name))
    return path


def one_of(choices, hint):
    """The role of a str that names one of ``choices``; ``hint`` says which to pass for what."""
    def choice(value, name):
        if not isinstance(value, str):
            raise TypeError(f"{name} must be a str, one of {list(choices)}; received {_describe(value)}.")
        if value not in choices:
            raise ValueError(f"{name} must be one of {list(choices)}; received {value!r}. {hint}")
        return value

    return choice


def inner_radius(value, name):
    """The role of the inner circle's radius: a number strictly between 0 and 1 (the outer radius)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1 (the inner radius, the outer one being "
                         f"1); received {value!r}. Pass e.g. {name}=0.5.")
    return float(value)


def examples(value, name):
    """The role of a loader's data: an array of one row per example, numeric and finite, its dtype kept.

    The dtype is kept so that integer class labels stay integers and uint8 images are not copied to float64.
    """
    a = as_array(value, name, dtype=None)
    if a.ndim == 0:
        raise ValueError(f"{name} must be an array with one row per example; received a scalar ({_describe(a)}). "
                         "Pass an array of shape (N, ...).")
    if a.shape[0] == 0:
        raise ValueError(f"{name} has no rows (shape {a.shape}); expected at least one example.")
    if a.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a numeric array; received dtype {a.dtype}. Convert it to numbers first.")
    if a.dtype.kind == "f":
        check_finite_values(a, name)
    return a


# --- cross-argument checks ---------------------------------------------------------------------------------------


def one_point_per_class(n):
    if n < 2:
        raise ValueError(f"n must be at least 2 (one point per class); received {n}.")


def two_classes_or_more(num_classes):
    if num_classes < 2:
        raise ValueError(f"num_classes must be at least 2; received {num_classes}.")


def one_marker_per_half(length):
    if length < 2:
        raise ValueError(f"length must be at least 2 (one marker in each half); received {length}.")


def room_for_apple(min_length, max_length):
    """Every sentence has room for "apple" and the word after it, and the lengths are in order."""
    if not 2 <= min_length <= max_length:
        raise ValueError(f"need 2 <= min_length <= max_length (room for 'apple' and its next word); received "
                         f"min_length={min_length}, max_length={max_length}.")


def a_window_and_its_target(series, window, horizon):
    """The series holds at least one window of inputs and the target ``horizon`` steps after it."""
    T = series.shape[0]
    if T < window + horizon:
        raise ValueError(f"series has length {T}, too short for a window of {window} steps with a target {horizon} "
                         f"step(s) ahead; need at least {window + horizon} values. Pass a longer series or a smaller "
                         "window.")


def one_row_of_y_per_example(X, y):
    if y.shape[0] != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.shape[0]}; expected one row of y per row (example) "
                         "of X. Check that X and y were split and filtered together.")


def an_rng_to_shuffle_with(rng, shuffle):
    """Shuffling needs an rng; without shuffling an rng would go unused, which is a mistake worth saying."""
    if shuffle and rng is None:
        raise TypeError("rng must be a numpy.random.Generator to shuffle with (shuffle=True); received None. "
                        "Pass rng=np.random.default_rng(seed), or shuffle=False to keep the stored order.")
    if not shuffle and rng is not None:
        raise ValueError(f"rng is not used with shuffle=False; received {_describe(rng)}. Pass shuffle=True to "
                         "shuffle with it, or leave rng out to keep the stored order.")


def a_batch_per_epoch(X, batch_size, drop_last):
    if drop_last and X.shape[0] < batch_size:
        raise ValueError(f"batch_size={batch_size} is larger than the {X.shape[0]} examples, so with drop_last=True "
                         "no batch would be left. Use a smaller batch_size or drop_last=False.")


# --- preprocessing (chapter 1) ----------------------------------------------------------------------------------

def positive_std(std, X=None):
    """Standard deviations > 0, each divides a column: a given ``std``, or (``std`` None) those of X's columns."""
    if std is not None:
        cols = np.flatnonzero(std <= 0).tolist()
        if cols:
            raise ValueError(f"std has the value(s) {std[cols].tolist()} at position(s) {cols}; expected standard "
                             "deviations > 0. Pass the std returned by standardize (which refuses a constant "
                             "column: drop it first).")
    elif X is not None:
        s = X.std(axis=0)  # (m,)
        cols = np.flatnonzero(s <= 0).tolist()
        if cols:
            raise ValueError(f"column(s) {cols} of X have standard deviation {s[cols].tolist()}; expected > 0. "
                             "A constant feature carries no information: drop it before standardizing.")


def held_out_size(X, test_fraction):
    """A test fraction of N examples that leaves at least one for training."""
    N = X.shape[0]
    if max(1, round(test_fraction * N)) >= N:
        raise ValueError(f"test_fraction={test_fraction} leaves no training example out of N={N}; use a smaller "
                         "fraction.")


def labels_if_stratified(y, stratify):
    """A stratified split needs class labels 0, …, K − 1; without stratify, y holds any finite targets."""
    if stratify:
        V.check_labels(y, "y")
