"""Tests of implementations.data.loader: mini-batches over one epoch."""

import numpy as np
import pytest

from implementations.data.loader import DataLoader


def make_data(N, x_shape=(3,), y_shape=()):
    """X and y whose every row carries its example's index i, so that a batch shows which examples it holds."""
    index = np.arange(N)
    X = np.broadcast_to(index.reshape((N,) + (1,) * len(x_shape)), (N, *x_shape)).astype(float)  # (N, ...)
    y = np.broadcast_to(index.reshape((N,) + (1,) * len(y_shape)), (N, *y_shape)).copy()  # (N,) or (N, K)
    return X, y


def epoch_indices(batches, x_shape, y_shape):
    """The example indices of one epoch, batch by batch, checking that X and y rows stay paired."""
    seen = []
    for X_batch, y_batch in batches:
        assert X_batch.shape[1:] == x_shape and y_batch.shape[1:] == y_shape
        assert X_batch.shape[0] == y_batch.shape[0]
        i = X_batch.reshape(len(X_batch), -1)[:, 0].astype(int)  # (B,)
        np.testing.assert_array_equal(X_batch, np.broadcast_to(i.reshape((-1,) + (1,) * len(x_shape)),
                                                               X_batch.shape))
        np.testing.assert_array_equal(y_batch, np.broadcast_to(i.reshape((-1,) + (1,) * len(y_shape)),
                                                               y_batch.shape))  # y_batch belongs to X_batch
        seen.append(i)
    return seen


def assert_each_example_once(batches, N, x_shape=(3,), y_shape=()):
    seen = np.concatenate(epoch_indices(batches, x_shape, y_shape))
    np.testing.assert_array_equal(np.sort(seen), np.arange(N))


SHAPES = [((3,), ()), ((2, 4, 4), ()), ((5,), (3,)), ((1, 6, 6), (2,))]


@pytest.mark.parametrize("x_shape, y_shape", SHAPES)
@pytest.mark.parametrize("N, B", [(10, 3), (12, 4), (5, 8), (1, 1), (7, 1)])
def test_each_example_appears_once_per_epoch_in_batches_of_B(N, B, x_shape, y_shape):
    X, y = make_data(N, x_shape, y_shape)
    loader = DataLoader(X, y, batch_size=B, rng=np.random.default_rng(0))
    for _ in range(3):
        assert_each_example_once(loader, N, x_shape, y_shape)
        sizes = [len(i) for i in epoch_indices(loader, x_shape, y_shape)]
        expected = [B] * (N // B) + ([N % B] if N % B else [])  # the last partial batch is kept
        assert sizes == expected and len(loader) == len(expected)


@pytest.mark.parametrize("N, B", [(10, 3), (12, 4), (9, 2)])
def test_drop_last_drops_only_the_partial_batch(N, B):
    X, y = make_data(N)
    loader = DataLoader(X, y, batch_size=B, rng=np.random.default_rng(1), drop_last=True)
    left_out = set()
    for _ in range(20):
        batches = epoch_indices(loader, (3,), ())
        assert [len(i) for i in batches] == [B] * (N // B) and len(loader) == N // B
        seen = np.concatenate(batches)
        assert len(set(seen)) == len(seen) == N - N % B  # no repeats
        left_out |= set(range(N)) - set(seen)
    if N % B:
        assert len(left_out) > N % B  # different examples are left out in different epochs
    else:
        assert not left_out


def test_a_seeded_rng_repeats_the_epochs_and_epochs_differ():
    X, y = make_data(50)
    first = DataLoader(X, y, batch_size=8, rng=np.random.default_rng(7))
    second = DataLoader(X, y, batch_size=8, rng=np.random.default_rng(7))
    orders = []
    for _ in range(3):
        a = np.concatenate(epoch_indices(first, (3,), ()))
        b = np.concatenate(epoch_indices(second, (3,), ()))
        np.testing.assert_array_equal(a, b)
        orders.append(a)
    assert not np.array_equal(orders[0], orders[1]) and not np.array_equal(orders[1], orders[2])
    assert not np.array_equal(orders[0], np.arange(50))  # shuffled
    other = np.concatenate(epoch_indices(DataLoader(X, y, batch_size=8, rng=np.random.default_rng(8)), (3,), ()))
    assert not np.array_equal(other, orders[0])


def test_the_permutation_comes_from_the_rng():
    """Epoch e follows the e-th permutation drawn from the rng."""
    X, y = make_data(11)
    loader = DataLoader(X, y, batch_size=4, rng=np.random.default_rng(3))
    reference = np.random.default_rng(3)
    for _ in range(2):
        np.testing.assert_array_equal(np.concatenate(epoch_indices(loader, (3,), ())), reference.permutation(11))


def test_without_shuffling_the_order_is_kept():
    X, y = make_data(10, (2, 3, 3), (4,))
    loader = DataLoader(X, y, batch_size=4, shuffle=False)
    for _ in range(2):
        batches = list(loader)
        assert [len(b[0]) for b in batches] == [4, 4, 2]
        np.testing.assert_array_equal(np.concatenate([b[0] for b in batches]), X)
        np.testing.assert_array_equal(np.concatenate([b[1] for b in batches]), y)


def test_dtypes_are_kept():
    X = np.arange(24, dtype=np.uint8).reshape(6, 1, 2, 2)  # (N, C, H, W) images
    y = np.array([0, 1, 2, 0, 1, 2])
    X_batch, y_batch = next(iter(DataLoader(X, y, batch_size=4, rng=np.random.default_rng(0))))
    assert X_batch.dtype == np.uint8 and y_batch.dtype == y.dtype and X_batch.shape == (4, 1, 2, 2)


def _with_replacement(X, y, batch_size, rng):
    """A classic wrong loader: batches drawn with replacement, so some examples repeat and others are missed."""
    for _ in range(-(-len(X) // batch_size)):
        rows = rng.integers(0, len(X), size=batch_size)
        yield X[rows], y[rows]


def _shuffled_apart(X, y, batch_size, rng):
    """Another: X and y shuffled by two different permutations, so the pairs are broken."""
    p, q = rng.permutation(len(X)), rng.permutation(len(X))
    for start in range(0, len(X), batch_size):
        yield X[p[start:start + batch_size]], y[q[start:start + batch_size]]


@pytest.mark.parametrize("wrong", [_with_replacement, _shuffled_apart])
def test_the_checks_catch_classic_wrong_loaders(wrong):
    X, y = make_data(20)
    with pytest.raises(AssertionError):
        assert_each_example_once(wrong(X, y, 6, np.random.default_rng(0)), 20)


def test_bad_input_is_refused_clearly():
    X, y = make_data(10)
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="X has 10 rows but y has 9; expected one row of y per row"):
        DataLoader(X, y[:9], batch_size=2, rng=rng)
    for B in (0, -1):
        with pytest.raises(ValueError, match=f"batch_size must be an integer >= 1; received {B}"):
            DataLoader(X, y, batch_size=B, rng=rng)
    with pytest.raises(ValueError, match="batch_size must be an integer >= 1; received 2.5"):
        DataLoader(X, y, batch_size=2.5, rng=rng)
    with pytest.raises(TypeError, match=r"rng must be a numpy.random.Generator to shuffle with \(shuffle=True\); "
                                        "received None"):
        DataLoader(X, y, batch_size=2)  # shuffling needs an rng
    with pytest.raises(ValueError, match="rng is not used with shuffle=False"):
        DataLoader(X, y, batch_size=2, shuffle=False, rng=rng)
    with pytest.raises(ValueError, match="batch_size=16 is larger than the 10 examples, so with drop_last=True"):
        DataLoader(X, y, batch_size=16, rng=rng, drop_last=True)
    with pytest.raises(ValueError, match="X has no rows"):
        DataLoader(X[:0], y[:0], batch_size=2, rng=rng)
    with pytest.raises(ValueError, match="X must be an array with one row per example; received a scalar"):
        DataLoader(3.0, y, batch_size=2, rng=rng)
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        DataLoader(X, np.r_[np.nan, y[1:]], batch_size=2, rng=rng)
    with pytest.raises(ValueError, match="shuffle must be True or False"):
        DataLoader(X, y, batch_size=2, rng=rng, shuffle=1)
    assert len(DataLoader(X, y, batch_size=16, rng=rng)) == 1  # without drop_last: one batch of all 10
