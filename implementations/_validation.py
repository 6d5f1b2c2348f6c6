"""Input checks shared by the modules of the package.

Every check raises ``ValueError`` (or ``TypeError``) with three facts: what was received,
what was expected, and how to fix it. They return float64 arrays, so callers can rely on dtype.
"""

import numbers

import numpy as np


def _first_bad_index(a):
    """Index tuple of the first non-finite entry of ``a``, as a readable string."""
    idx = np.argwhere(~np.isfinite(a))[0]
    return ", ".join(str(i) for i in idx)


def as_finite_array(a, name, *, ndim):
    """Convert ``a`` to a float64 array with ``ndim`` dimensions and only finite entries."""
    try:
        arr = np.asarray(a, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be numeric array-like; received {type(a).__name__} ({exc})") from exc
    if arr.ndim != ndim:
        hint = {
            1: " Use .ravel() for a column vector.",
            2: " For a single feature use x.reshape(-1, 1).",
        }.get(ndim, "")
        raise ValueError(
            f"{name} must be a {ndim}-D array; received shape {arr.shape} ({arr.ndim}-D).{hint}"
        )
    if arr.size and not np.all(np.isfinite(arr)):
        count = int(np.sum(~np.isfinite(arr)))
        raise ValueError(
            f"{name} contains {count} NaN or infinite value(s), the first at index ({_first_bad_index(arr)}); "
            "expected only finite numbers. Remove or impute them before calling."
        )
    return arr


def check_X(X, name="X"):
    """Return ``X`` as a finite float64 array of shape (N, m) with N >= 1."""
    X = as_finite_array(X, name, ndim=2)
    if X.shape[0] == 0:
        raise ValueError(f"{name} has no rows (shape {X.shape}); expected at least one example.")
    return X


def check_X_y(X, y):
    """Validate a feature matrix (N, m) and a target vector (N,) that belong together."""
    X = check_X(X)
    y = as_finite_array(y, "y", ndim=1)
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but y has {y.shape[0]} entries; expected one target per row of X."
        )
    return X, y


def check_w(w, num_features, name="w"):
    """Validate a weight vector of shape (num_features + 1,), bias first."""
    w = as_finite_array(w, name, ndim=1)
    if w.shape[0] != num_features + 1:
        raise ValueError(
            f"{name} has {w.shape[0]} entries but X has {num_features} feature(s); "
            f"expected {num_features + 1} (the bias w[0] first, then one weight per feature)."
        )
    return w


def check_nonnegative(value, name):
    """A finite real number >= 0 (for example the ridge strength ``l2``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value < 0:
        raise ValueError(f"{name} must be a finite number >= 0; received {value!r}.")
    return float(value)


def check_positive(value, name):
    """A finite real number > 0 (for example the learning rate ``eta``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not np.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0; received {value!r}.")
    return float(value)


def check_positive_int(value, name):
    """An integer >= 1 (for example ``num_iters`` or ``degree``)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be an integer >= 1; received {value!r}.")
    return int(value)


def check_rng(rng):
    """Randomness is a parameter: insist on a ``np.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise TypeError(
            f"rng must be a numpy.random.Generator; received {type(rng).__name__}. "
            "Pass rng=np.random.default_rng(seed)."
        )
    return rng


def check_labels(y, name="y", *, num_classes=None):
    """Validate class labels: a 1-D array of integers k with 0 <= k < ``num_classes``.

    Booleans count as 0/1 and integer-valued floats (1.0) are accepted; anything else raises
    ``ValueError`` naming the offending values. Returns an int64 array.
    """
    arr = np.asarray(y)
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    arr = as_finite_array(arr, name, ndim=1)
    expected = "0 or 1" if num_classes == 2 else (
        "integers 0, 1, …" if num_classes is None else f"integers 0, …, {num_classes - 1}"
    )
    bad = arr[(arr != np.round(arr)) | (arr < 0) | (num_classes is not None and arr >= num_classes)]
    if bad.size:
        shown = ", ".join(f"{v:g}" for v in np.unique(bad)[:5])
        more = f" (and {np.unique(bad).size - 5} more)" if np.unique(bad).size > 5 else ""
        raise ValueError(
            f"{name} must hold class labels {expected}; received {bad.size} entries outside that set, "
            f"with values {shown}{more}. Encode the classes as 0..K-1 first "
            "(e.g. y = (species == 'Gentoo').astype(int) or np.unique(labels, return_inverse=True)[1])."
        )
    return arr.astype(np.int64)


def check_X_labels(X, y, *, num_classes=None):
    """Validate a feature matrix (N, m) and its N class labels (see :func:`check_labels`)."""
    X = check_X(X)
    y = check_labels(y, "y", num_classes=num_classes)
    if y.shape[0] != X.shape[0]:
        raise ValueError(
            f"X has {X.shape[0]} rows but y has {y.shape[0]} labels; expected one label per row of X."
        )
    return X, y
