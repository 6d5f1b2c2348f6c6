"""Input checks shared by the modules of the package: the input contract of ``book/contributing.md``.

Every check raises ``ValueError`` (or ``TypeError`` for a value of the wrong kind) with four facts: the argument's
public name, what was received, what was expected, and how to fix it. Array checks return float64 (or int64) arrays,
so callers can rely on the dtype. Checks run once per public call, at its boundary, never once per step of a loop.

The order matters: a string or a ragged nested list is reported as such *before* any conversion, so that the
reader sees "X is a ragged nested list" rather than NumPy's "setting an array element with a sequence".
"""

import functools
import math
import numbers
import os
import types
from pathlib import Path

import numpy as np

# Hints appended when an array has the wrong number of dimensions.
_NDIM_HINTS = {
    1: " Use .ravel() for a column vector.",
    2: " For a single feature use x.reshape(-1, 1).",
    3: " For a single sequence use x[None].",
}


def _first_bad_index(a):
    """Index tuple of the first non-finite entry of ``a``, as a readable string."""
    idx = np.argwhere(~np.isfinite(a))[0]
    return ", ".join(str(i) for i in idx)


def _describe(value):
    """A short description of a received value, for messages: 'str 'abc'', 'list of 3', 'ndarray of shape (2, 3)'."""
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    if isinstance(value, (str, bytes)):
        text = value if len(value) <= 30 else value[:27] + "..."
        return f"the string {text!r}"
    if isinstance(value, (list, tuple)):
        return f"a {type(value).__name__} of length {len(value)}"
    return f"{type(value).__name__} {value!r}" if isinstance(value, numbers.Number) else type(value).__name__


def as_array(a, name, *, dtype=np.float64):
    """``a`` as a NumPy array of ``dtype``, refusing strings, ragged nested lists and non-numeric values by name."""
    if isinstance(a, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array; received {_describe(a)}. Pass numbers, e.g. a NumPy array.")
    if isinstance(a, (dict, set)) or a is None:
        raise TypeError(f"{name} must be a numeric array; received {_describe(a)}.")
    if hasattr(a, "data") and type(a).__name__ == "Tensor":  # a Tensor of the package: its values
        a = a.data
    try:
        arr = np.asarray(a)
    except ValueError as exc:  # NumPy >= 1.24 refuses ragged nested sequences
        raise ValueError(
            f"{name} is a ragged nested list (its rows have different lengths); expected a rectangular array. "
            "Make every row the same length."
        ) from exc
    if arr.dtype == object:
        raise TypeError(
            f"{name} must be a numeric array; received an object array (a ragged nested list, or None or "
            "strings among the numbers). Make every row the same length and every entry a number."
        )
    if arr.dtype.kind in "USV":
        raise TypeError(f"{name} must be a numeric array; received an array of strings ({arr.dtype}). "
                        "Convert the values to numbers first.")
    return arr if dtype is None else arr.astype(dtype, copy=False)


def as_finite_array(a, name, *, ndim, allow_empty=True):
    """Convert ``a`` to a float64 array with ``ndim`` dimensions (an int or a tuple of them) and only finite entries.

    With ``allow_empty=False`` the first axis must have at least one entry.
    """
    arr = as_array(a, name)
    allowed = (ndim,) if isinstance(ndim, int) else tuple(ndim)
    if arr.ndim not in allowed:
        expected = " or ".join(f"{d}-D" for d in allowed)
        hint = _NDIM_HINTS.get(allowed[0], "") if len(allowed) == 1 else ""
        raise ValueError(f"{name} must be a {expected} array; received shape {arr.shape} ({arr.ndim}-D).{hint}")
    if not allow_empty and (arr.ndim == 0 or arr.shape[0] == 0):
        raise ValueError(f"{name} is empty (shape {arr.shape}); expected at least one entry along its first axis.")
    check_finite_values(arr, name)
    return arr


def check_finite_values(arr, name):
    """Refuse NaN and inf in the float array ``arr``, naming the count and the first index."""
    if arr.size and not np.isfinite(arr).all():
        count = int(np.sum(~np.isfinite(arr)))
        raise ValueError(
            f"{name} contains {count} NaN or infinite value(s), the first at index ({_first_bad_index(arr)}); "
            "expected only finite numbers. Remove or impute them before calling."
        )
    return arr


def _is_real(value):
    return isinstance(value, numbers.Real) and not isinstance(value, bool)


def check_finite_number(value, name):
    """Any finite real number (for example a threshold or a temperature offset)."""
    if not _is_real(value) or not math.isfinite(value):
        raise _scalar_error(value, name, "a finite number")
    return float(value)


def check_nonnegative(value, name):
    """A finite real number >= 0 (for example the ridge strength ``l2``)."""
    if not _is_real(value) or not math.isfinite(value) or value < 0:
        raise _scalar_error(value, name, "a finite number >= 0")
    return float(value)


def check_positive(value, name):
    """A finite real number > 0 (for example the learning rate ``eta``)."""
    if not _is_real(value) or not math.isfinite(value) or value <= 0:
        raise _scalar_error(value, name, "a finite number > 0")
    return float(value)


def check_probability(value, name):
    """A probability: a real number in [0, 1] (for example a dropout rate ``p``)."""
    if not _is_real(value) or not 0 <= value <= 1:
        raise _scalar_error(value, name, "a probability between 0 and 1")
    return float(value)


def check_positive_int(value, name):
    """An integer >= 1 (for example ``num_iters`` or ``degree``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise _scalar_error(value, name, "an integer >= 1")
    return int(value)


def check_nonnegative_int(value, name):
    """An integer >= 0 (for example a number of warm-up steps)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 0:
        raise _scalar_error(value, name, "an integer >= 0")
    return int(value)


def check_flag(value, name):
    """A bool (NumPy's bool too); 0, 1, 2 or 'yes' are refused, so that a misplaced argument does not pass."""
    if not isinstance(value, (bool, np.bool_)):
        raise _scalar_error(value, name, "True or False")
    return bool(value)


def _scalar_error(value, name, expected):
    return ValueError(f"{name} must be {expected}; received {value!r}.")


def check_rng(rng, name="rng"):
    """Randomness is a parameter: insist on a ``np.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"{name} must be a numpy.random.Generator; received {type(rng).__name__}. "
            f"Pass {name}=np.random.default_rng(seed)."
        )
    return rng


def check_no_nan(arr, name):
    """Refuse NaN in the float array ``arr`` (±inf may pass: a masked score is −inf), naming the count and the first."""
    if arr.size and np.isnan(arr).any():
        count = int(np.isnan(arr).sum())
        first = ", ".join(str(i) for i in np.argwhere(np.isnan(arr))[0])
        raise ValueError(f"{name} contains {count} NaN value(s), the first at index ({first}); expected numbers. "
                         "Remove or impute them before calling.")
    return arr


def as_mask(mask, name):
    """``mask`` as a bool array: booleans as they are; other data must hold only 0 and 1."""
    if isinstance(mask, np.ndarray) and mask.dtype == bool:
        return mask
    values = check_finite_values(as_array(mask, name), name)
    odd = (values != 0) & (values != 1)
    if odd.any():
        raise ValueError(f"{name} must hold True/False (or 0/1); received other values such as "
                         f"{values[odd].flat[0]:g}. Build it with a comparison, e.g. x > 0.")
    return values.astype(bool)


def check_axis(axis, name, arr, arr_name):
    """``axis`` must be an integer naming one axis of ``arr`` (negative values count from the end)."""
    ndim = np.ndim(arr)
    if isinstance(axis, (bool, np.bool_)) or not isinstance(axis, numbers.Integral) or not -ndim <= axis < ndim:
        raise ValueError(f"{name} must be an integer from {-ndim} to {ndim - 1}, an axis of {arr_name} (shape "
                         f"{np.shape(arr)}); received {axis!r}. Use {name}=-1 for the last axis.")
    return int(axis)


def check_labels(y, name="y", *, num_classes=None, ndim=1):
    """Validate class labels: a 1-D array of integers k with 0 <= k < ``num_classes``.

    Booleans count as 0/1 and integer-valued floats (1.0) are accepted; anything else raises
    ``ValueError`` naming the offending values. Returns an int64 array.
    """
    arr = as_array(y, name, dtype=None)  # a string or a ragged list is reported before any conversion
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    arr = as_finite_array(arr, name, ndim=ndim) if ndim is not None else check_finite_values(as_array(arr, name), name)
    expected = "0 or 1" if num_classes == 2 else (
        "0, 1, …" if num_classes is None else f"0, …, {num_classes - 1}"
    )
    bad = arr[(arr != np.round(arr)) | (arr < 0) | (num_classes is not None and arr >= num_classes)]
    if bad.size:
        shown = ", ".join(f"{v:g}" for v in np.unique(bad)[:5])
        more = f" (and {np.unique(bad).size - 5} more)" if np.unique(bad).size > 5 else ""
        how = ("y = (species == 'Gentoo').astype(int)" if num_classes == 2 else
               "np.unique(labels, return_inverse=True)[1]")
        raise ValueError(
            f"{name} must hold class labels {expected}; received {bad.size} "
            f"{'entry' if bad.size == 1 else 'entries'} outside that set, with values {shown}{more}. Encode the "
            f"classes as whole numbers from 0 first, e.g. with {how}."
        )
    return arr.astype(np.int64)


def check_ids(ids, name, *, vocab_size, ndim=None):
    """Token ids: integers k with 0 <= k < ``vocab_size`` (integer-valued floats are accepted). Returns int64."""
    arr = as_array(ids, name)
    if ndim is not None and arr.ndim not in ((ndim,) if isinstance(ndim, int) else ndim):
        raise ValueError(f"{name} must be a {ndim}-D array of token ids; received shape {arr.shape}.")
    if arr.size == 0:
        raise ValueError(f"{name} is empty (shape {arr.shape}); expected at least one token id.")
    check_finite_values(arr, name)
    bad = arr[(arr != np.round(arr)) | (arr < 0) | (arr >= vocab_size)]
    if bad.size:
        shown = ", ".join(f"{v:g}" for v in np.unique(bad)[:5])
        raise ValueError(f"{name} must hold token ids 0, …, {vocab_size - 1} (integers below the vocabulary size "
                         f"{vocab_size}); received {bad.size} entries outside that set, with values {shown}.")
    return arr.astype(np.int64)


def check_ignore_index(ignore_index):
    """None, or the integer that marks targets left out of a loss (such as -1)."""
    if ignore_index is not None and (isinstance(ignore_index, bool) or not isinstance(ignore_index, numbers.Integral)):
        raise ValueError(f"ignore_index must be an integer (such as -1 for positions that are not predicted) or None; "
                         f"received {ignore_index!r}.")
    return ignore_index


def check_next_token_targets(targets, name, *, inputs_name, shape, vocab_name, vocab_size, ignore_index):
    """The targets of a next-token loss: ids 0..V−1 (or ``ignore_index``) of the inputs' shape; int64 array.

    ``targets`` may be array-like or a Tensor (its values are read); integer arrays skip the NaN scan.
    ``inputs_name`` and ``vocab_name`` are the caller's public names of the inputs and of V, for the messages.
    O(B T), once per call, before the forward pass.
    """
    t = targets.data if type(targets).__name__ == "Tensor" else targets  # a Tensor of the package: its values
    if not (isinstance(t, np.ndarray) and t.dtype.kind in "iu"):
        t = check_finite_values(as_array(t, name), name)
    if t.shape != shape:
        raise ValueError(f"{name} must have the shape of {inputs_name} {shape} (the token that follows each position); "
                         f"received shape {t.shape}.")
    outside = (t < 0) | (t >= vocab_size)
    if t.dtype.kind == "f":
        outside |= t != np.round(t)
    if ignore_index is not None:
        outside &= t != ignore_index
    if outside.any():
        shown = ", ".join(f"{v:g}" for v in np.unique(t[outside])[:5])
        ignored = "" if ignore_index is None else f" or ignore_index = {ignore_index}"
        raise ValueError(f"{name} must hold token ids 0..{vocab_size - 1} (below {vocab_name} = {vocab_size})"
                         f"{ignored}; received {int(outside.sum())} id(s) outside that set, with values {shown}. Mark "
                         "positions that are not predicted with ignore_index.")
    return t.astype(np.int64)


def check_str_list(values, name, *, what="token"):
    """A list (or tuple) of strings, e.g. the tokens of a sentence; a bare string is refused, not split into letters."""
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a list of {what}s; received {_describe(values)}. "
                        f"Split it first, e.g. {name}={values.split()[:3]!r}.")
    try:
        values = list(values)
    except TypeError as exc:
        raise TypeError(f"{name} must be a list of {what}s; received {_describe(values)}.") from exc
    odd = [v for v in values if not isinstance(v, str)]
    if odd:
        raise TypeError(f"{name} must be a list of {what}s (str); received {len(odd)} other entries, the first "
                        f"{_describe(odd[0])}.")
    return values


def stop_if_diverged(loss, previous, *, step, rate_name, rate, growth=1e4):
    """Raise FloatingPointError when a training loss is no longer finite or has grown ``growth``-fold.

    ``previous`` is a reference loss (the first one, or the smallest so far); a loss that is larger by orders of
    magnitude means the learning rate ``rate`` is too large. Called once per epoch or evaluation, on a float.
    """
    if not math.isfinite(loss) or (previous is not None and loss > growth * max(previous, 1e-12)):
        raise FloatingPointError(
            f"training diverged at step {step}: the loss reached {loss:.4g}"
            + (f" from {previous:.4g}" if previous is not None else "")
            + f". The learning rate {rate_name}={rate:g} is too large; try {rate_name}={rate / 10:g}."
        )


def check_hidden_sizes(hidden, name):
    """``hidden`` as a tuple of hidden-layer widths, each an integer >= 1; () means no hidden layer."""
    if isinstance(hidden, numbers.Integral) and not isinstance(hidden, bool):
        raise TypeError(f"{name} must be a tuple of hidden-layer widths; received the number {hidden}. Write "
                        f"({hidden},) for one hidden layer of {hidden} units.")
    if isinstance(hidden, (str, bytes)) or not hasattr(hidden, "__iter__"):
        raise TypeError(f"{name} must be a tuple of hidden-layer widths such as (32, 32), or () for none; "
                        f"received {_describe(hidden)}.")
    return tuple(check_positive_int(h, f"{name}[{k}]") for k, h in enumerate(hidden))


def check_callable(f, name, *, what="a function"):
    """``f`` must be callable (a function, a lambda, a bound method); ``what`` says what it is, for the message.

    Returns ``f`` as the caller's own code (:func:`as_the_caller`): the checked functions of the package that it
    calls are checked as calls from outside, even when the package calls it (``functools.partial(fit, l2=-1)``).
    """
    if not callable(f):
        raise TypeError(f"{name} must be {what}; received {_describe(f)}, which cannot be called. "
                        f"Pass a function, e.g. {name}=lambda x: ...")
    return as_the_caller(f)


def as_the_caller(function):
    """A function of the caller's (a plain function, a lambda, a bound method, a ``functools.partial``) wrapped so
    that what it calls counts as called from outside the package; other callables (a layer) are returned as they are.

    A ``functools.partial`` of a package function, called by the package, would otherwise look like the package's
    own call and skip its checks: ``cross_val_score(functools.partial(normal_equations, l2=-1), …)``.
    """
    if not isinstance(function, (types.FunctionType, types.MethodType, functools.partial)):
        return function

    @functools.wraps(function)
    def the_caller_s_function(*args, **kwargs):
        return function(*args, **kwargs)

    return the_caller_s_function


CALLER_CODE = as_the_caller(lambda: None).__code__  # the code of every such wrapper: the contract reads it


# --- the cross-argument checks of numeric ---------------------------------------------------------------------------

def every_slice_has_a_finite_score(Z, axis):
    """Scores may be −inf (weight 0, a mask), but not +inf, and every slice along ``axis`` needs a finite one."""
    if np.isposinf(Z).any():
        first = ", ".join(str(i) for i in np.argwhere(np.isposinf(Z))[0])
        raise ValueError(f"Z contains {int(np.isposinf(Z).sum())} +inf value(s), the first at index ({first}); "
                         "expected finite scores (or −inf for a weight of 0). Remove or impute them before calling.")
    if np.isneginf(Z).all(axis=axis).any():
        raise ValueError(f"Z has a slice along axis {axis} that is −inf everywhere; its softmax is undefined. Leave "
                         "at least one finite score in every slice (every query needs one key).")


def no_zero_rows(A, B):
    """Cosine similarity: no zero vector among the rows of A and of B (None for B: A itself)."""
    for name, M in (("A", A), ("B", B)):
        if M is None:
            continue
        zero = np.flatnonzero(np.linalg.norm(np.atleast_2d(M), axis=1) == 0)
        if zero.size:
            raise ValueError(f"{name} has {zero.size} zero vector(s), the first at row {zero[0]}; cosine similarity "
                             "is undefined for a zero vector. Drop those rows first.")


def open_probability(value, name):
    """A number strictly between 0 and 1 (a decision threshold, a test fraction): 0 and 1 leave one side empty."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1; received {value!r}.")
    return float(value)


def interval(value, name):
    """The role of an interval (low, high): two finite numbers, low < high; passed on as a tuple of floats."""
    pair = (isinstance(value, (tuple, list)) or getattr(value, "ndim", None) == 1) and all(
        isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value)
    if not pair or len(value) != 2:
        error = ValueError if pair else TypeError  # three numbers are a wrong value; a string, a wrong kind
        raise error(f"{name} must be a pair of numbers (low, high); received {value!r}. "
                    f"Pass e.g. {name}=(0.0, 1.0).")
    low, high = float(value[0]), float(value[1])
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"{name} must be finite and increasing (low < high); received {value!r}.")
    return low, high


def folder_holding(file_name):
    """The role of a loader's ``data_dir``: None (the repository's ``data/``), or an existing folder, as a Path.

    ``file_name`` is the data file the loader reads there, for the message.
    """
    def data_folder(value, name):
        if value is None:
            return None
        if not isinstance(value, (str, os.PathLike)):
            raise TypeError(f"{name} must be a folder path (str or pathlib.Path); received {_describe(value)}. "
                            f"Omit it ({name}=None) to read the repository's data/ folder.")
        folder = Path(value)
        if not folder.is_dir():
            raise FileNotFoundError(f"{name} {str(folder)!r} is not an existing folder; expected the folder holding "
                                    f"{file_name} and SHA256SUMS. Omit it ({name}=None) to read the "
                                    "repository's data/.")
        return folder

    return data_folder


def padded_lengths(values, name):
    """Role: the lengths of the sequences of a padded batch, integers, one per sequence: (B,) int64."""
    if values is None:
        return None
    values = as_array(values, name)
    if values.ndim != 1:
        raise ValueError(f"{name} must have shape (B,), one length per sequence; received shape {values.shape}.")
    if values.size == 0:
        raise ValueError(f"{name} is empty (shape (0,)); expected one length per sequence.")
    check_finite_values(values, name)
    if not np.all(values == np.round(values)):
        raise ValueError(f"{name} must be integers, the number of real tokens of each sequence (padding excluded); "
                         f"received {shown(values)}.")
    return values.astype(np.int64)


def shown(values):
    return "[" + ", ".join(f"{v:g}" for v in values[:10]) + (", …]" if values.size > 10 else "]")
