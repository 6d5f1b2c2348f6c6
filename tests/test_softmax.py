"""Tests of implementations.linear.softmax_regression against finite differences, the binary case and scikit-learn."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from implementations import numeric
from implementations.linear import _fused, logistic
from implementations.linear import softmax_regression as softmax
from implementations.preliminaries.gradcheck import check_gradient


def make_problem(N, m, K, seed=0):
    """K overlapping Gaussian clouds in m dimensions; every class present."""
    rng = np.random.default_rng(seed)
    y = np.arange(N) % K  # (N,)
    centres = rng.normal(scale=1.5, size=(K, m))  # (K, m)
    X = centres[y] + rng.normal(size=(N, m))  # (N, m)
    return X, y, rng


def test_softmax_rows_sum_to_one_and_match_the_definition():
    Z = np.random.default_rng(0).normal(scale=3, size=(6, 4))
    P = numeric.softmax(Z)
    np.testing.assert_allclose(P, np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True), rtol=1e-13)
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-15)
    np.testing.assert_allclose(numeric.softmax(Z.T, axis=0), P.T, rtol=1e-15)


def test_softmax_is_shift_invariant_and_stable():
    z = np.array([1000.0, 1001.0, 999.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = numeric.softmax(z)
    np.testing.assert_allclose(p, numeric.softmax(z - 1000.0), rtol=1e-15)
    assert np.all(np.isfinite(p))


def test_two_class_softmax_is_the_sigmoid_of_the_logit_difference():
    z = np.random.default_rng(2).normal(scale=4, size=(30, 2))
    np.testing.assert_allclose(numeric.softmax(z)[:, 1], numeric.sigmoid(z[:, 1] - z[:, 0]), rtol=1e-13)


def test_softmax_rejects_non_finite_and_scalars():
    with pytest.raises(ValueError, match=r"1 \+inf value"):
        numeric.softmax([0.0, np.inf])
    with pytest.raises(ValueError, match=r"Z must have shape \(\.\.\., K\) \(at least 1-D\); received shape \(\)"):
        numeric.softmax(3.0)


def test_one_hot():
    np.testing.assert_array_equal(numeric.one_hot([2, 0, 1], 3), [[0, 0, 1], [1, 0, 0], [0, 1, 0]])


@pytest.mark.parametrize("l2", [0.0, 0.7])
def test_cost_matches_its_definition(l2):
    X, y, rng = make_problem(24, 3, 4)
    W = rng.normal(size=(4, 4))
    Z = np.hstack([np.ones((24, 1)), X]) @ W
    P = np.exp(Z) / np.exp(Z).sum(axis=1, keepdims=True)
    expected = -np.mean(np.log(P[np.arange(24), y])) + l2 / 48 * np.sum(W[1:] ** 2)
    assert softmax.softmax_cost(X, y, W, l2=l2) == pytest.approx(expected, rel=1e-12)


def test_cost_stays_finite_for_a_confident_mistake():
    W = np.array([[0.0, 0.0], [0.0, 2000.0]])  # logit gap 2000 for class 1
    assert softmax.softmax_cost([[1.0]], [0], W) == pytest.approx(2000.0, rel=1e-12)


@pytest.mark.parametrize("N, m, K", [(1, 1, 2), (12, 2, 3), (30, 4, 5)])
@pytest.mark.parametrize("l2", [0.0, 1.1])
def test_gradient_matches_finite_differences(N, m, K, l2):
    X, y, rng = make_problem(N, m, K)
    y = y % K
    W = rng.normal(size=(m + 1, K))
    err = check_gradient(
        lambda v: softmax.softmax_cost(X, y, v.reshape(m + 1, K), l2=l2),
        lambda v: softmax.softmax_gradient(X, y, v.reshape(m + 1, K), l2=l2).ravel(),
        W.ravel(),
    )
    assert err < 1e-6


def test_two_class_softmax_cost_equals_logistic_cost():
    """With K = 2 only the difference w₁ − w₀ matters, and the cost is the binary cross-entropy."""
    X, y, rng = make_problem(30, 3, 2)
    W = rng.normal(size=(4, 2))
    w = W[:, 1] - W[:, 0]
    assert softmax.softmax_cost(X, y, W) == pytest.approx(logistic.logistic_cost(X, y, w), rel=1e-12)


@pytest.mark.parametrize("N, m, K, l2", [(60, 2, 3, 0.5), (90, 4, 4, 2.0)])
def test_fit_softmax_probabilities_equal_sklearn_multinomial(N, m, K, l2):
    X, y, _ = make_problem(N, m, K, seed=K)
    W, history = softmax.fit_softmax(X, y, num_classes=K, eta=0.5, num_iters=5000, l2=l2)
    model = LogisticRegression(C=1.0 / l2, tol=1e-12, max_iter=100_000).fit(X, y)  # multinomial for K > 2
    np.testing.assert_allclose(softmax.softmax_predict_proba(X, W), model.predict_proba(X), atol=1e-4)
    np.testing.assert_array_equal(softmax.softmax_predict(X, W), model.predict(X))
    assert np.all(np.diff(history) <= 1e-15)


@pytest.mark.parametrize("scale", [0.1, 10.0, 1000.0])
@pytest.mark.parametrize("l2", [0.0, 0.7])
def test_fast_path_equals_the_taught_cost_and_gradient(scale, l2):
    # fit_softmax's fast path computes J and ∇J from one product ΦW; they must be the taught functions' values
    X, y, rng = make_problem(40, 3, 4)
    W = scale * rng.normal(size=(4, 4))
    J, grad = _fused.softmax_cost_and_gradient(np.hstack([np.ones((40, 1)), X]), numeric.one_hot(y, 4), W, l2)
    assert J == pytest.approx(softmax.softmax_cost(X, y, W, l2=l2), rel=1e-13)
    np.testing.assert_allclose(grad, softmax.softmax_gradient(X, y, W, l2=l2), rtol=1e-12, atol=1e-15)


def test_fit_softmax_history_is_the_cost_after_each_update():
    X, y, _ = make_problem(30, 2, 3)
    W, history = softmax.fit_softmax(X, y, num_classes=3, eta=0.5, num_iters=3, l2=0.3)
    W_ref = np.zeros((3, 3))
    for k in range(3):
        W_ref = W_ref - 0.5 * softmax.softmax_gradient(X, y, W_ref, l2=0.3)
        assert history[k] == pytest.approx(softmax.softmax_cost(X, y, W_ref, l2=0.3), rel=1e-12)
    np.testing.assert_allclose(W, W_ref, rtol=1e-12)


def test_predictions_are_the_most_probable_class():
    X, y, rng = make_problem(20, 2, 3)
    W = rng.normal(size=(3, 3))
    P = softmax.softmax_predict_proba(X, W)
    np.testing.assert_array_equal(softmax.softmax_predict(X, W), P.argmax(axis=1))


def test_bad_labels_and_shapes_raise():
    X, y, _ = make_problem(9, 2, 3)
    W = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"y must hold class labels 0, …, 2; .* values 3, 7"):
        softmax.softmax_cost(X, [0, 1, 2, 3, 7, 0, 1, 2, 0], W)
    with pytest.raises(ValueError, match=r"W has 2 entries along axis 0, but X's axis 1 gives m = 2 .* m \+ 1 = 3"):
        softmax.softmax_gradient(X, y, np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"expected \(3, K\) with K >= 2"):
        softmax.softmax_predict(X, np.zeros((3, 1)))
    with pytest.raises(ValueError, match=r"values 3\b"):
        softmax.fit_softmax(X, y + 1, num_classes=3, eta=0.1, num_iters=1)
    with pytest.raises(ValueError, match="num_classes must be at least 2"):
        softmax.fit_softmax(X, y * 0, num_classes=1, eta=0.1, num_iters=1)


def test_diverging_learning_rate_raises():
    X, y, _ = make_problem(30, 2, 3)
    with pytest.raises(ValueError, match=r"diverged.*eta=500 is too large"):
        softmax.fit_softmax(X * 10, y, num_classes=3, eta=500.0, num_iters=50)


# --- the input contract (issue 21) ------------------------------------------------------------------------------


def test_softmax_names_z_and_axis():
    with pytest.raises(TypeError, match="Z must be a numeric array; received the string 'abc'"):
        numeric.softmax("abc")  # used to be NumPy's "could not convert string to float"
    with pytest.raises(ValueError, match=r"Z is empty \(shape \(0,\)\)"):
        numeric.softmax([])
    with pytest.raises(ValueError, match=r"axis must be an integer from -2 to 1, an axis of Z \(shape \(2, 3\)\); "
                                         "received 2"):
        numeric.softmax(np.zeros((2, 3)), axis=2)  # used to be NumPy's AxisError
    with pytest.raises(ValueError, match="axis must be an integer.*received 1.0"):
        numeric.softmax(np.zeros((2, 3)), axis=1.0)  # used to be "'float' object cannot be interpreted as an integer"


def test_one_hot_refuses_no_labels():
    with pytest.raises(ValueError, match=r"y is empty \(shape \(0,\)\)"):
        numeric.one_hot([], 3)  # used to return a (0, 3) matrix
