"""Preparing data before fitting: standardization and train/test splits."""

import numpy as np

from .._validation import as_finite_array, check_flag, check_labels, check_rng, check_X, check_X_y

__all__ = ["standardize", "unstandardize_weights", "train_test_split"]


def standardize(X, *, mean=None, std=None):
    """Rescale every column to zero mean and unit standard deviation, eq. (1.17).

    x̃ⱼ = (xⱼ − x̄ⱼ) / sⱼ. Pass the ``mean`` and ``std`` of the training set to transform test data
    with the training statistics.

    Parameters
    ----------
    X : array_like of shape (N, m)
    mean, std : array_like of shape (m,), optional
        Statistics to use, finite and ``std`` > 0; by default computed from ``X`` (``std`` with ddof=0).

    Returns
    -------
    X_std : ndarray of shape (N, m)
    mean : ndarray of shape (m,)
    std : ndarray of shape (m,)
    """
    X = check_X(X)
    m = X.shape[1]
    mean = X.mean(axis=0) if mean is None else as_finite_array(mean, "mean", ndim=1)
    std = X.std(axis=0) if std is None else _check_std(std)
    for name, stat in (("mean", mean), ("std", std)):
        if stat.shape != (m,):
            raise ValueError(f"{name} has shape {stat.shape} but X has {m} columns; expected shape ({m},). "
                             "Pass the mean and std that standardize returned for the training set.")
    if np.any(std <= 0):
        cols = np.flatnonzero(std <= 0).tolist()
        raise ValueError(
            f"column(s) {cols} of X have standard deviation {std[cols].tolist()}; expected > 0. "
            "A constant feature carries no information: drop it before standardizing."
        )
    return (X - mean) / std, mean, std


def unstandardize_weights(w_std, mean, std):
    """Turn weights learned on standardized features into weights for raw features, eq. (1.18).

    ŷ = w̃₀ + Σⱼ w̃ⱼ (xⱼ − x̄ⱼ)/sⱼ = (w̃₀ − Σⱼ w̃ⱼx̄ⱼ/sⱼ) + Σⱼ (w̃ⱼ/sⱼ) xⱼ, so
    wⱼ = w̃ⱼ/sⱼ and w₀ = w̃₀ − Σⱼ w̃ⱼx̄ⱼ/sⱼ. Then ``predict(X_raw, w)`` equals
    ``predict(X_std, w_std)``.

    Parameters
    ----------
    w_std : array_like of shape (m + 1,)
        Weights fitted on standardized features, bias first.
    mean, std : array_like of shape (m,)
        The statistics returned by ``standardize`` (``std`` > 0).

    Returns
    -------
    w : ndarray of shape (m + 1,)
    """
    w_std = as_finite_array(w_std, "w_std", ndim=1)
    mean = as_finite_array(mean, "mean", ndim=1)
    std = _check_std(std)
    if not (w_std.shape[0] == mean.shape[0] + 1 == std.shape[0] + 1):
        raise ValueError(
            f"w_std has {w_std.shape[0]} entries, mean {mean.shape[0]} and std {std.shape[0]}; "
            "expected len(w_std) == len(mean) + 1 == len(std) + 1 (bias first)."
        )
    slopes = w_std[1:] / std  # (m,)
    bias = w_std[0] - slopes @ mean
    return np.r_[bias, slopes]


def _check_std(std):
    """A given ``std``: a 1-D array of finite standard deviations, every one > 0 (each divides a column)."""
    std = as_finite_array(std, "std", ndim=1)
    if np.any(std <= 0):
        cols = np.flatnonzero(std <= 0).tolist()
        raise ValueError(
            f"std has the value(s) {std[cols].tolist()} at position(s) {cols}; expected standard deviations > 0. "
            "Pass the std returned by standardize (which refuses a constant column: drop it first)."
        )
    return std


def train_test_split(X, y, *, test_fraction, rng, stratify=False):
    """Shuffle the examples and hold out a fraction of them for testing.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Targets; with ``stratify=True`` integer class labels 0, …, K − 1.
    test_fraction : float
        Fraction f in (0, 1) of the examples to hold out: N_test = max(1, round(f·N)) of them.
    rng : numpy.random.Generator
    stratify : bool, default False
        False: a random N_test of the examples, whatever their class. True: each class k, with Nₖ examples, gives
        either ⌊f·Nₖ⌋ or ⌈f·Nₖ⌉ of them to the test set, so that the class proportions of train and test match
        the whole set's as closely as counts allow, and the test set still has N_test examples in total. The
        rounding rule (largest remainder): every class first gives ⌊f·Nₖ⌋; the N_test − Σₖ⌊f·Nₖ⌋ examples still
        missing come one each from the classes with the largest fractional parts f·Nₖ − ⌊f·Nₖ⌋ (compared to 9
        decimals; on equal parts the smaller class first, so that a rare class is not left out of the test set,
        then the lower label). A class with a fractional part of at least one half is thus rounded up, as
        round-to-nearest would, unless the total forbids it. Either way one permutation is drawn from ``rng``,
        the same draw as with ``stratify=False``.

    Returns
    -------
    X_train : ndarray of shape (N - N_test, m)
    X_test : ndarray of shape (N_test, m)
    y_train : ndarray of shape (N - N_test,)
    y_test : ndarray of shape (N_test,)
        Both parts in the random order of the permutation; every example is in exactly one of them.
    """
    X, y = check_X_y(X, y)
    rng = check_rng(rng)
    stratify = check_flag(stratify, "stratify")
    if not isinstance(test_fraction, float | int) or not 0 < test_fraction < 1:
        raise ValueError(f"test_fraction must be a number strictly between 0 and 1; received {test_fraction!r}.")
    N = X.shape[0]
    n_test = max(1, round(test_fraction * N))
    if n_test >= N:
        raise ValueError(
            f"test_fraction={test_fraction} leaves no training example out of N={N}; use a smaller fraction."
        )
    labels = check_labels(y, "y") if stratify else None
    order = rng.permutation(N)
    if stratify:
        in_test = _stratified_test_mask(labels[order], test_fraction, n_test)  # (N,) along the permutation
        test, train = order[in_test], order[~in_test]
    else:
        test, train = order[:n_test], order[n_test:]
    return X[train], X[test], y[train], y[test]


def _stratified_test_mask(labels, test_fraction, n_test):
    """For labels in random order, mark the first n_k examples of each class k as test (largest remainder rule)."""
    counts = np.bincount(labels)  # (K,) Nₖ
    share = test_fraction * counts  # (K,) f·Nₖ
    n_per_class = np.floor(share + 1e-9).astype(np.int64)  # (K,) ⌊f·Nₖ⌋; 1e-9: 0.29·100 = 28.999999999999996 is 29
    remainder = np.round(share - n_per_class, 9)  # (K,) fractional parts; 0.55·50 = 27.500000000000004 ties with 0.5
    missing = n_test - n_per_class.sum()  # 0 <= missing <= K: the rounding left these out
    by_remainder = np.lexsort((np.arange(counts.size), counts, -remainder))  # (K,) largest part, smallest class
    n_per_class[by_remainder[:missing]] += 1
    by_class = np.argsort(labels, kind="stable")  # (N,) positions grouped by class, random order kept inside
    starts = np.cumsum(counts) - counts  # (K,) where each class begins in by_class
    rank = np.empty(labels.size, dtype=np.int64)
    rank[by_class] = np.arange(labels.size) - np.repeat(starts, counts)  # (N,) 0 for a class's first example, …
    return rank < n_per_class[labels]  # (N,)
