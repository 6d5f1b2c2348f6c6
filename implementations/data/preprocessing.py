"""Preparing data before fitting: standardization and train/test splits."""

import numpy as np

from .._contract import checked
from .._validation import open_probability
from ._checks import held_out_size, labels_if_stratified, positive_std

__all__ = ["standardize", "unstandardize_weights", "train_test_split"]


@checked(X="array (N, m)", mean="array (m,)?", std="array (m,)?", also=positive_std)
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
    mean = X.mean(axis=0) if mean is None else mean  # (m,): x̄ⱼ
    std = X.std(axis=0) if std is None else std  # (m,): sⱼ, with ddof=0
    return (X - mean) / std, mean, std


@checked(std="array (m,)", mean="array (m,)", w_std="array (m + 1,)", also=positive_std)
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
    slopes = w_std[1:] / std  # (m,): wⱼ = w̃ⱼ / sⱼ
    bias = w_std[0] - slopes @ mean  # w₀ = w̃₀ − Σⱼ w̃ⱼx̄ⱼ/sⱼ
    return np.r_[bias, slopes]  # (m + 1,)


@checked(X="array (N, m)", y="array (N,)", test_fraction=open_probability, rng="rng", stratify="flag",
         also=(held_out_size, labels_if_stratified))
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
    N = X.shape[0]
    n_test = max(1, round(test_fraction * N))
    order = rng.permutation(N)  # (N,)
    if stratify:
        in_test = _stratified_test_mask(y[order].astype(np.int64), test_fraction, n_test)  # (N,) along the order
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
