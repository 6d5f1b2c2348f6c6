"""Tests of the perceptron and of the classification metrics (against scikit-learn)."""

import numpy as np
import pytest
from sklearn import metrics as skm

from implementations.evaluation.metrics import accuracy, confusion_matrix, precision_recall_f1
from implementations.linear.perceptron import margin, perceptron


def separable_problem(N=80, m=2, margin=0.5, seed=0):
    rng = np.random.default_rng(seed)
    w_true = rng.normal(size=m)
    X = rng.normal(size=(N, m)) * 3
    score = X @ w_true / np.linalg.norm(w_true)
    X = X[np.abs(score) > margin]  # keep a gap around the true boundary
    y = (X @ w_true > 0).astype(np.int64)
    return X, y, rng


# --- perceptron -----------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("shuffle", [False, True])
def test_perceptron_separates_separable_data(seed, shuffle):
    X, y, rng = separable_problem(seed=seed)
    w, mistakes = perceptron(X, y, epochs=1000, rng=rng if shuffle else None)
    assert mistakes[-1] == 0  # the last pass made no mistake ...
    assert np.all(mistakes[:-1] > 0)  # ... and it stopped right after the first clean pass
    np.testing.assert_array_equal((w[0] + X @ w[1:] >= 0).astype(int), y)


def test_perceptron_update_rule_by_hand():
    X = np.array([[1.0], [-1.0]])
    y = np.array([0, 0])
    # pass 1: x=1: wᵀφ = 0 ≥ 0 → ŷ = 1, wrong: w = (0,0) − (1,1) = (−1,−1); x=−1: wᵀφ = 0 → wrong: w = (−2, 0)
    # pass 2: −2 < 0 and −2 < 0: no mistake
    w, mistakes = perceptron(X, y, epochs=10)
    np.testing.assert_array_equal(w, [-2.0, 0.0])
    np.testing.assert_array_equal(mistakes, [2, 0])


def test_eta_only_rescales_the_weights():
    X, y, _ = separable_problem(seed=4)
    w1, m1 = perceptron(X, y, epochs=500)
    w3, m3 = perceptron(X, y, epochs=500, eta=3.0)
    np.testing.assert_allclose(w3, 3.0 * w1, rtol=1e-12)
    np.testing.assert_array_equal(m1, m3)


def test_perceptron_keeps_making_mistakes_on_non_separable_data():
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array([0, 1, 0, 1])  # no threshold on one feature separates these
    w, mistakes = perceptron(X, y, epochs=50)
    assert mistakes.shape == (50,)
    assert mistakes.min() > 0


def test_perceptron_is_reproducible_with_the_same_rng():
    X, y, _ = separable_problem(seed=5)
    a = perceptron(X, y, epochs=100, rng=np.random.default_rng(3))
    b = perceptron(X, y, epochs=100, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])


def test_perceptron_rejects_bad_input():
    X = np.zeros((3, 1))
    with pytest.raises(ValueError, match=r"0 or 1; received 1 entry .* values -1"):
        perceptron(X, [0, 1, -1], epochs=5)
    with pytest.raises(TypeError, match=r"rng must be a numpy.random.Generator.*default_rng"):
        perceptron(X, [0, 1, 1], epochs=5, rng=42)
    with pytest.raises(ValueError, match=r"epochs must be an integer >= 1"):
        perceptron(X, [0, 1, 1], epochs=0)


def one_at_a_time(X, y, *, epochs, eta=1.0, rng=None):
    """The perceptron exactly as the algorithm box writes it: one example, one prediction, one update at a time."""
    Phi = np.hstack([np.ones((len(y), 1)), X])
    w = np.zeros(Phi.shape[1])
    counts = []
    for _ in range(epochs):
        order = np.arange(len(y)) if rng is None else rng.permutation(len(y))
        mistakes = 0
        for i in order:
            y_hat = 1 if Phi[i] @ w >= 0 else 0
            if y_hat != y[i]:
                w = w + eta * (y[i] - y_hat) * Phi[i]
                mistakes += 1
        counts.append(mistakes)
        if mistakes == 0:
            break
    return w, np.array(counts)


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shuffle", [False, True])
def test_perceptron_equals_the_one_at_a_time_algorithm(seed, shuffle):
    rng = np.random.default_rng(seed)
    N, m = int(rng.integers(1, 60)), int(rng.integers(1, 4))
    X = rng.normal(size=(N, m)) + rng.normal(size=m)
    y = rng.integers(0, 2, size=N) if seed % 2 else (X @ rng.normal(size=m) > 0).astype(int)  # noisy or separable
    w, mistakes = perceptron(X, y, epochs=40, eta=0.5, rng=np.random.default_rng(seed) if shuffle else None)
    w_ref, mistakes_ref = one_at_a_time(X, y, epochs=40, eta=0.5,
                                        rng=np.random.default_rng(seed) if shuffle else None)
    np.testing.assert_array_equal(mistakes, mistakes_ref)
    np.testing.assert_allclose(w, w_ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_perceptron_makes_at_most_r_over_gamma_squared_mistakes(seed):
    X, y, rng = separable_problem(N=200, seed=seed)
    w, mistakes = perceptron(X, y, epochs=1000, rng=rng)
    r = np.linalg.norm(np.hstack([np.ones((len(y), 1)), X]), axis=1).max()
    assert margin(X, y, w) > 0  # the final w separates, so it has a positive margin ...
    assert mistakes.sum() <= (r / margin(X, y, w)) ** 2  # ... and its own γ bounds the mistakes (any γ does)


def test_margin_by_hand():
    X = np.array([[1.0], [3.0], [-2.0]])
    y = np.array([1, 1, 0])
    w = np.array([0.0, 2.0])  # boundary x = 0; ‖w‖ = 2, distances of the rows (1, x) from it: 1, 3, 2
    assert margin(X, y, w) == pytest.approx(1.0)
    assert margin(X, y, 5 * w) == pytest.approx(1.0)  # rescaling w changes nothing
    w_bias = np.array([-1.5, 1.0])  # boundary x = 1.5: the first row is on the wrong side
    assert margin(X, y, w_bias) == pytest.approx(-0.5 / np.hypot(1.5, 1.0))


def test_margin_equals_the_distance_to_the_hyperplane_in_feature_space():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(30, 2))
    w = rng.normal(size=3)
    y = (w[0] + X @ w[1:] > 0).astype(int)
    Phi = np.hstack([np.ones((30, 1)), X])
    u = w / np.linalg.norm(w)
    feet = Phi - np.outer(Phi @ u, u)  # (30, 3) orthogonal projections of the rows onto the hyperplane wᵀv = 0
    np.testing.assert_allclose(feet @ w, 0.0, atol=1e-12)
    distances = np.linalg.norm(Phi - feet, axis=1)  # (30,)
    assert margin(X, y, w) == pytest.approx(distances.min())
    assert margin(X, 1 - y, w) == pytest.approx(-distances.max())  # every row on the wrong side


def test_margin_rejects_bad_input():
    with pytest.raises(ValueError, match=r"w is the zero vector"):
        margin(np.ones((2, 1)), [0, 1], np.zeros(2))
    with pytest.raises(ValueError, match=r"w has 3 entries along axis 0, but X's axis 1 gives m = 1"):
        margin(np.ones((2, 1)), [0, 1], np.ones(3))


# --- metrics -------------------------------------------------------------------------------


def random_labels(N, K, seed):
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, K, size=N)
    y_pred = np.where(rng.random(N) < 0.6, y_true, rng.integers(0, K, size=N))  # 60 % copied, rest random
    return y_true, y_pred


@pytest.mark.parametrize("N, K, seed", [(1, 2, 0), (50, 2, 1), (200, 3, 2), (37, 5, 3)])
def test_confusion_matrix_equals_sklearn(N, K, seed):
    y_true, y_pred = random_labels(N, K, seed)
    C = confusion_matrix(y_true, y_pred, num_classes=K)
    np.testing.assert_array_equal(C, skm.confusion_matrix(y_true, y_pred, labels=list(range(K))))
    assert C.sum() == N
    np.testing.assert_array_equal(C.sum(axis=1), np.bincount(y_true, minlength=K))


def test_confusion_matrix_orientation_rows_are_true_classes():
    C = confusion_matrix([0, 0, 1], [1, 1, 1], num_classes=2)
    np.testing.assert_array_equal(C, [[0, 2], [0, 1]])


@pytest.mark.parametrize("N, K, seed", [(50, 2, 1), (200, 3, 2), (37, 5, 3)])
def test_accuracy_and_precision_recall_f1_equal_sklearn(N, K, seed):
    y_true, y_pred = random_labels(N, K, seed)
    assert accuracy(y_true, y_pred) == pytest.approx(skm.accuracy_score(y_true, y_pred), rel=1e-15)
    p, r, f = precision_recall_f1(y_true, y_pred, num_classes=K)
    sp, sr, sf, _ = skm.precision_recall_fscore_support(
        y_true, y_pred, labels=list(range(K)), zero_division=np.nan
    )
    np.testing.assert_allclose(p, sp, rtol=1e-14)
    np.testing.assert_allclose(r, sr, rtol=1e-14)
    np.testing.assert_allclose(f, sf, rtol=1e-14)


def test_undefined_precision_is_nan_not_zero():
    p, r, f = precision_recall_f1([0, 0, 1], [0, 0, 0])  # class 1 never predicted
    assert np.isnan(p[1]) and r[1] == 0.0 and np.isnan(f[1])
    assert p[0] == pytest.approx(2 / 3) and r[0] == 1.0 and f[0] == pytest.approx(0.8)


def test_metrics_reject_bad_labels():
    with pytest.raises(ValueError, match=r"y_pred must hold class labels 0 or 1; .* values 2"):
        confusion_matrix([0, 1], [0, 2], num_classes=2)
    with pytest.raises(ValueError, match=r"y_pred has 3 entries along axis 0, but y_true's axis 0 gives N = 2"):
        accuracy([0, 1], [0, 1, 1])
    with pytest.raises(ValueError, match=r"values 1.5"):
        accuracy([0, 1.5], [0, 1])


# --- the input contract (issue 21) ------------------------------------------------------------------------------


def test_perceptron_refuses_a_learning_rate_that_overflows_the_weights():
    X = np.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [-1.0, 0.5]])
    y = np.array([0, 1, 1, 0])
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"weights overflowed in epoch \d+: the learning "
                                                                    r"rate eta=1e\+308 is too large.*eta=1\.0"):
        perceptron(X, y, epochs=5, eta=1e308)  # used to return weights of ±inf and NaN
