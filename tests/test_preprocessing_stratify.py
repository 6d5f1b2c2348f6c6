"""Tests of train_test_split with stratify: the unstratified split unchanged bit for bit, per-class counts by the
largest-remainder rule, class proportions as scikit-learn's stratified split, a partition, reproducibility."""

import numpy as np
import pytest
from sklearn.model_selection import train_test_split as sk_split

from implementations.data.preprocessing import train_test_split


def split_before_stratify(X, y, *, test_fraction, rng):
    """A copy of the algorithm of train_test_split before stratify existed (validation left out): the stored
    notebook outputs depend on it."""
    N = X.shape[0]
    n_test = max(1, round(test_fraction * N))
    order = rng.permutation(N)
    test, train = order[:n_test], order[n_test:]
    return X[train], X[test], y[train], y[test]


def labelled_problem(seed, counts):
    """Examples whose first feature is their index, with class k repeated counts[k] times, in random order."""
    rng = np.random.default_rng(seed)
    y = rng.permutation(np.repeat(np.arange(len(counts)), counts))  # (N,)
    X = np.c_[np.arange(y.size), rng.normal(size=y.size)]  # (N, 2) column 0 identifies the example
    return X, y


@pytest.mark.parametrize("seed", [0, 1, 42])
@pytest.mark.parametrize(("N", "test_fraction"), [(2, 0.5), (10, 0.3), (37, 0.25), (344, 0.2), (1000, 0.01)])
@pytest.mark.parametrize("explicit", [False, True])
def test_unstratified_split_is_unchanged_bit_for_bit(seed, N, test_fraction, explicit):
    rng_data = np.random.default_rng(seed + 100)
    X, y = rng_data.normal(size=(N, 3)), rng_data.normal(size=N)
    rng_new, rng_old = np.random.default_rng(seed), np.random.default_rng(seed)
    kwargs = {"stratify": False} if explicit else {}
    ours = train_test_split(X, y, test_fraction=test_fraction, rng=rng_new, **kwargs)
    before = split_before_stratify(X, y, test_fraction=test_fraction, rng=rng_old)
    for a, b in zip(ours, before, strict=True):
        np.testing.assert_array_equal(a, b)
        assert a.dtype == b.dtype == np.float64
    assert rng_new.bit_generator.state == rng_old.bit_generator.state  # the same draws: later cells see the same rng


@pytest.mark.parametrize(("counts", "test_fraction", "expected"), [
    ([5, 5, 5], 0.5, [3, 3, 2]),  # shares 2.5 each, N_test = round(7.5) = 8: two round up, the lower labels
    ([10, 3], 0.2, [2, 1]),  # shares 2 and 0.6: 0.6 rounds up
    ([97, 3], 0.1, [10, 0]),  # shares 9.7 and 0.3, N_test = 10
    ([1, 1, 1, 1], 0.3, [1, 0, 0, 0]),  # shares 0.3 each, N_test = round(1.2) = 1
    ([3, 3], 0.1, [1, 0]),  # shares 0.3 each, N_test = max(1, round(0.6)) = 1
    ([6, 0, 4], 0.5, [3, 0, 2]),  # an absent class 1 gives nothing
    ([8, 7, 5], 0.3, [2, 2, 2]),  # shares 2.4, 2.1, 1.5, N_test = 6: 1.5 rounds up, 2.4 down
    ([50, 30, 20], 0.25, [12, 8, 5]),  # shares 12.5, 7.5, 5, N_test = 25: on equal parts the smaller class
    ([95, 5], 0.1, [9, 1]),  # shares 9.5 and 0.5: a tie, the rare class gets the one left
    ([50, 10], 0.55, [27, 6]),  # shares 27.5 (computed 27.500000000000004) and 5.5 still tie
    ([100, 100], 0.29, [29, 29]),  # shares 28.999999999999996 each are 29
])
def test_per_class_test_counts_by_hand(counts, test_fraction, expected):
    X, y = labelled_problem(0, counts)
    _, _, y_train, y_test = train_test_split(X, y, test_fraction=test_fraction, rng=np.random.default_rng(1),
                                             stratify=True)
    assert sum(expected) == max(1, round(test_fraction * sum(counts)))
    np.testing.assert_array_equal(np.bincount(y_test.astype(int), minlength=len(counts)), expected)
    np.testing.assert_array_equal(np.bincount(y_train.astype(int), minlength=len(counts)),
                                  np.array(counts) - expected)


@pytest.mark.parametrize("seed", range(6))
def test_stratified_split_partitions_and_rounds_every_class(seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 60, size=rng.integers(2, 6))  # (K,)
    test_fraction = float(rng.uniform(0.05, 0.6))
    X, y = labelled_problem(seed, counts)
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_fraction=test_fraction,
                                                        rng=np.random.default_rng(seed), stratify=True)
    ids = np.r_[X_train[:, 0], X_test[:, 0]].astype(int)
    np.testing.assert_array_equal(np.sort(ids), np.arange(y.size))  # every example in exactly one part
    np.testing.assert_array_equal(y[X_train[:, 0].astype(int)], y_train)  # rows stay with their labels
    np.testing.assert_array_equal(y[X_test[:, 0].astype(int)], y_test)
    assert y_test.size == max(1, round(test_fraction * y.size))  # the same total as without stratify
    n_test = np.bincount(y_test.astype(int), minlength=counts.size)
    share = test_fraction * counts
    assert np.all((n_test == np.floor(share)) | (n_test == np.ceil(share)))  # each class within 1 of its share
    assert not np.all(np.diff(X_test[:, 0]) > 0)  # the test part is shuffled, not in index order


def test_stratified_split_is_reproducible_and_draws_like_the_unstratified_one():
    X, y = labelled_problem(0, [40, 25, 10])
    first = train_test_split(X, y, test_fraction=0.3, rng=np.random.default_rng(7), stratify=True)
    rng = np.random.default_rng(7)
    again = train_test_split(X, y, test_fraction=0.3, rng=rng, stratify=True)
    for a, b in zip(first, again, strict=True):
        np.testing.assert_array_equal(a, b)
    rng_plain = np.random.default_rng(7)
    train_test_split(X, y, test_fraction=0.3, rng=rng_plain)
    assert rng.bit_generator.state == rng_plain.bit_generator.state  # one permutation either way
    other = train_test_split(X, y, test_fraction=0.3, rng=np.random.default_rng(8), stratify=True)
    assert not np.array_equal(first[1], other[1])  # another seed, another split


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("test_fraction", [0.2, 0.25, 0.5])
def test_class_proportions_match_sklearn_stratified_split(seed, test_fraction):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, size=200, p=[0.6, 0.3, 0.1])  # (N,) imbalanced classes
    X = np.arange(200.0)[:, None]
    _, _, y_train, y_test = train_test_split(X, y, test_fraction=test_fraction, rng=np.random.default_rng(seed),
                                             stratify=True)
    _, _, y_train_sk, y_test_sk = sk_split(X, y, test_size=test_fraction, stratify=y, random_state=seed)
    assert y_test.size == y_test_sk.size  # f·N is a whole number here: the same sizes
    for ours, theirs in ((y_test, y_test_sk), (y_train, y_train_sk)):
        proportion = np.bincount(ours.astype(int), minlength=3) / ours.size
        proportion_sk = np.bincount(theirs, minlength=3) / theirs.size
        np.testing.assert_allclose(proportion, proportion_sk, atol=1.01 / ours.size)  # at most one example apart
    overall = np.bincount(y, minlength=3) / y.size
    np.testing.assert_allclose(np.bincount(y_test.astype(int), minlength=3) / y_test.size, overall,
                               atol=1 / y_test.size)


def test_unstratified_split_does_not_keep_the_proportions():
    # the failure stratify prevents: a rare class may miss the test set entirely
    y = np.r_[np.zeros(95), np.ones(5)]
    X = np.arange(100.0)[:, None]
    missing = 0
    for seed in range(50):
        _, _, _, y_test = train_test_split(X, y, test_fraction=0.1, rng=np.random.default_rng(seed))
        _, _, _, y_test_strat = train_test_split(X, y, test_fraction=0.1, rng=np.random.default_rng(seed),
                                                 stratify=True)
        missing += y_test.sum() == 0
        assert y_test_strat.sum() == 1  # shares 9.5 and 0.5 tie: the smaller class rounds up
    assert missing > 10  # about (95 choose 10) / (100 choose 10) ≈ 58 % of the seeds


@pytest.mark.parametrize(("bad", "fragment"), [
    (np.r_[0.5, np.ones(7)], r"y must hold class labels 0, 1, …; received 1 entry outside that set"),
    (np.r_[-1, np.ones(7)], r"y must hold class labels"),
])
def test_stratify_needs_class_labels(bad, fragment):
    with pytest.raises(ValueError, match=fragment):
        train_test_split(np.ones((8, 1)), bad, test_fraction=0.25, rng=np.random.default_rng(0), stratify=True)
    train_test_split(np.ones((8, 1)), bad, test_fraction=0.25, rng=np.random.default_rng(0))  # real targets: fine


@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_stratify_must_be_a_bool(bad):
    with pytest.raises(ValueError, match="stratify must be True or False"):
        train_test_split(np.ones((8, 1)), np.ones(8), test_fraction=0.25, rng=np.random.default_rng(0),
                         stratify=bad)
