"""Tests of implementations.linear.regression against finite differences, closed forms and scikit-learn."""

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, Ridge

from implementations.linear import regression
from implementations.preliminaries.gradcheck import check_gradient, numerical_gradient

SHAPES = [(1, 1), (7, 1), (30, 3), (12, 5)]


def make_problem(N, m, seed=0, noise=0.1):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, m))  # (N, m)
    w_true = rng.normal(size=m + 1)  # (m + 1,)
    y = w_true[0] + X @ w_true[1:] + noise * rng.normal(size=N)  # (N,)
    return X, y, w_true, rng


# --- the model -------------------------------------------------------------------------------


def test_add_bias_prepends_ones():
    X = np.arange(6.0).reshape(3, 2)
    Phi = regression.add_bias(X)
    np.testing.assert_array_equal(Phi, [[1, 0, 1], [1, 2, 3], [1, 4, 5]])


@pytest.mark.parametrize("N, m", SHAPES)
def test_predict_is_bias_plus_linear_combination(N, m):
    X, _, w, _ = make_problem(N, m)
    expected = np.array([w[0] + sum(w[j + 1] * X[i, j] for j in range(m)) for i in range(N)])
    np.testing.assert_allclose(regression.predict(X, w), expected, rtol=1e-12)


# --- cost and gradient -----------------------------------------------------------------------


@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("l2", [0.0, 0.8])
def test_cost_matches_its_definition(l2, average):
    X, y, _, rng = make_problem(20, 3)
    w = rng.normal(size=4)
    J = 0.5 * np.sum((y - regression.predict(X, w)) ** 2) + 0.5 * l2 * np.sum(w[1:] ** 2)
    expected = J / 20 if average else J
    assert regression.compute_cost(X, y, w, l2=l2, average=average) == pytest.approx(expected, rel=1e-12)


def test_cost_does_not_penalize_the_bias():
    X, y, _, _ = make_problem(10, 2)
    w = np.array([5.0, 0.0, 0.0])
    assert regression.compute_cost(X, y, w, l2=3.0) == regression.compute_cost(X, y, w, l2=0.0)


@pytest.mark.parametrize("N, m", SHAPES)
@pytest.mark.parametrize("average", [False, True])
@pytest.mark.parametrize("l2", [0.0, 0.5])
def test_gradient_matches_finite_differences(N, m, l2, average):
    X, y, _, rng = make_problem(N, m)
    w = rng.normal(size=m + 1)

    def cost(w):
        return regression.compute_cost(X, y, w, l2=l2, average=average)

    def grad(w):
        return regression.compute_gradient(X, y, w, l2=l2, average=average)

    assert check_gradient(cost, grad, w) < 1e-7
    np.testing.assert_allclose(grad(w), numerical_gradient(cost, w), rtol=1e-6, atol=1e-7)


def test_gradient_is_zero_at_the_least_squares_solution():
    X, y, _, _ = make_problem(40, 3)
    w_star = regression.normal_equations(X, y, l2=0.3)
    np.testing.assert_allclose(regression.compute_gradient(X, y, w_star, l2=0.3), 0.0, atol=1e-10)


# --- normal equations ------------------------------------------------------------------------


@pytest.mark.parametrize("N, m", [(7, 1), (30, 3), (12, 5)])
def test_normal_equations_equal_lstsq(N, m):
    X, y, _, _ = make_problem(N, m)
    Phi = np.hstack([np.ones((N, 1)), X])
    expected, *_ = np.linalg.lstsq(Phi, y, rcond=None)
    np.testing.assert_allclose(regression.normal_equations(X, y), expected, rtol=1e-8, atol=1e-8)


@pytest.mark.parametrize("N, m", [(30, 3), (12, 5), (5, 8)])
@pytest.mark.parametrize("l2", [1e-3, 0.5, 10.0])
def test_normal_equations_equal_sklearn_ridge(N, m, l2):
    X, y, _, _ = make_problem(N, m)
    model = Ridge(alpha=l2, fit_intercept=True, solver="svd").fit(X, y)
    expected = np.r_[model.intercept_, model.coef_]
    np.testing.assert_allclose(regression.normal_equations(X, y, l2=l2), expected, rtol=1e-8, atol=1e-8)


def test_normal_equations_equal_sklearn_linear_regression():
    X, y, _, _ = make_problem(50, 4)
    model = LinearRegression().fit(X, y)
    np.testing.assert_allclose(
        regression.normal_equations(X, y), np.r_[model.intercept_, model.coef_], rtol=1e-8, atol=1e-8
    )


def test_normal_equations_rank_deficient_returns_least_squares_solution():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(10, 1))
    X = np.hstack([x, 2 * x])  # second column duplicates the first: ΦᵀΦ is singular
    y = 1.0 + 3.0 * x[:, 0] + 0.01 * rng.normal(size=10)
    w = regression.normal_equations(X, y)
    assert np.all(np.isfinite(w))
    # It minimizes the cost: the gradient vanishes, and the fit equals the one-feature fit.
    np.testing.assert_allclose(regression.compute_gradient(X, y, w), 0.0, atol=1e-9)
    w_one = regression.normal_equations(x, y)
    np.testing.assert_allclose(regression.predict(X, w), regression.predict(x, w_one), atol=1e-10)
    # Among all minimizers it has the smallest norm: slope 3 split as a + 2b with a = b/2.
    np.testing.assert_allclose(w[2], 2 * w[1], rtol=1e-8)


def test_more_features_than_examples_is_solved_without_error():
    X, y, _, _ = make_problem(3, 6)
    w = regression.normal_equations(X, y)
    np.testing.assert_allclose(regression.predict(X, w), y, atol=1e-10)  # interpolates


# --- gradient descent and SGD ----------------------------------------------------------------


@pytest.mark.parametrize("l2", [0.0, 2.0])
@pytest.mark.parametrize("average", [True, False])
def test_gradient_descent_converges_to_normal_equations(l2, average):
    X, y, _, _ = make_problem(40, 3)
    eta = 0.2 if average else 0.2 / 40
    w, history = regression.gradient_descent(
        X, y, np.zeros(4), eta=eta, num_iters=3000, l2=l2, average=average
    )
    np.testing.assert_allclose(w, regression.normal_equations(X, y, l2=l2), rtol=1e-8, atol=1e-8)
    assert history.shape == (3000,)
    assert np.all(np.diff(history) <= 1e-12)  # monotone for a stable learning rate


def test_gradient_descent_history_is_cost_after_each_update():
    X, y, _, _ = make_problem(20, 2)
    w_init = np.array([0.5, -1.0, 2.0])
    w1, h1 = regression.gradient_descent(X, y, w_init, eta=0.05, num_iters=1)
    expected_w1 = w_init - 0.05 * regression.compute_gradient(X, y, w_init, average=True)
    np.testing.assert_allclose(w1, expected_w1, rtol=1e-12)
    assert h1[0] == pytest.approx(regression.compute_cost(X, y, w1, average=True), rel=1e-12)
    np.testing.assert_array_equal(w_init, [0.5, -1.0, 2.0])  # the start is not modified


@pytest.mark.parametrize("l2", [0.0, 1.5])
@pytest.mark.parametrize("average", [True, False])
def test_gradient_descent_steps_and_history_match_the_public_cost_and_gradient(l2, average):
    # the loop computes J and ∇J itself, from Φ built once; it must agree with compute_cost / compute_gradient
    X, y, _, rng = make_problem(15, 3)
    w_init = rng.normal(size=4)
    eta = 0.1 if average else 0.1 / 15
    w, history = regression.gradient_descent(X, y, w_init, eta=eta, num_iters=5, l2=l2, average=average)
    w_ref = w_init.copy()
    for k in range(5):
        w_ref = w_ref - eta * regression.compute_gradient(X, y, w_ref, l2=l2, average=average)
        assert history[k] == pytest.approx(regression.compute_cost(X, y, w_ref, l2=l2, average=average), rel=1e-12)
    np.testing.assert_allclose(w, w_ref, rtol=1e-12)


def test_gradient_descent_tol_stops_early():
    X, y, _, _ = make_problem(30, 2)
    w, history = regression.gradient_descent(X, y, np.zeros(3), eta=0.3, num_iters=10_000, tol=1e-12)
    assert 1 < len(history) < 10_000
    np.testing.assert_allclose(w, regression.normal_equations(X, y), rtol=1e-4, atol=1e-5)


def test_gradient_descent_diverging_learning_rate_raises():
    X, y, _, _ = make_problem(30, 3)
    with pytest.raises(ValueError, match=r"eta=5 is too large"):
        regression.gradient_descent(X, y, np.zeros(4), eta=5.0, num_iters=100)


def test_gradient_descent_slightly_too_large_learning_rate_raises():
    # η just above 2/L: the cost first falls (other directions converge), then grows.
    X, y, _, _ = make_problem(50, 3)
    Phi = np.hstack([np.ones((50, 1)), X])
    L = np.linalg.eigvalsh(Phi.T @ Phi / 50).max()
    with pytest.raises(ValueError, match="diverged"):
        regression.gradient_descent(X, y, np.zeros(4), eta=2.05 / L, num_iters=2000)


def test_gradient_descent_does_not_add_the_bias_twice():
    # With one feature, w must have 2 entries; a doubled bias column would demand 3.
    X, y, _, _ = make_problem(20, 1)
    w, _ = regression.gradient_descent(X, y, np.zeros(2), eta=0.1, num_iters=2000)
    assert w.shape == (2,)
    np.testing.assert_allclose(w, regression.normal_equations(X, y), rtol=1e-8)


@pytest.mark.parametrize("batch_size, eta", [(1, 0.01), (8, 0.05), (40, 0.2)])
def test_sgd_approaches_the_least_squares_solution(batch_size, eta):
    X, y, _, rng = make_problem(40, 3, noise=0.05)
    w, history = regression.sgd(X, y, np.zeros(4), eta=eta, epochs=300, batch_size=batch_size, rng=rng)
    assert history.shape == (300,)
    np.testing.assert_allclose(w, regression.normal_equations(X, y), atol=0.02)
    assert history[-1] < 1.05 * regression.compute_cost(X, y, regression.normal_equations(X, y), average=True)


@pytest.mark.parametrize("batch_size", [25, 40])
def test_sgd_full_batch_equals_gradient_descent(batch_size):
    X, y, _, rng = make_problem(25, 2)
    w_sgd, h_sgd = regression.sgd(X, y, np.zeros(3), eta=0.1, epochs=50, batch_size=batch_size, rng=rng, l2=0.4)
    w_gd, h_gd = regression.gradient_descent(X, y, np.zeros(3), eta=0.1, num_iters=50, l2=0.4)
    np.testing.assert_allclose(w_sgd, w_gd, rtol=1e-10)
    np.testing.assert_allclose(h_sgd, h_gd, rtol=1e-10)


@pytest.mark.parametrize("N, batch_size", [(33, 16), (500, 16), (10, 3), (12, 4)])
def test_sgd_epoch_is_one_batch_step_to_first_order(N, batch_size):
    """Every example moves the weights equally in an epoch, the leftover last batch included.

    To first order in η an epoch of mini-batch steps is w − η(N/b)∇J̄(w), whatever the shuffle, when each
    batch's sum is divided by the nominal size b. Dividing the last batch of N mod b examples by its own size
    (a full step for one example when N = 33, b = 16) breaks this, and made the cost recorded after it an outlier.
    """
    X, y, _, rng = make_problem(N, 2)
    w_start = rng.normal(size=3)
    eta = 1e-7
    w_epoch, _ = regression.sgd(X, y, w_start, eta=eta, epochs=1, batch_size=batch_size, rng=rng, l2=0.3)
    expected = -(N / batch_size) * regression.compute_gradient(X, y, w_start, l2=0.3, average=True)
    np.testing.assert_allclose((w_epoch - w_start) / eta, expected, rtol=1e-5)


def test_sgd_records_the_full_data_cost_at_the_end_of_each_epoch():
    X, y, _, _ = make_problem(33, 2)
    for epochs in (1, 4):
        w, history = regression.sgd(X, y, np.zeros(3), eta=0.05, epochs=epochs, batch_size=16,
                                    rng=np.random.default_rng(3), l2=0.2)
        assert history.shape == (epochs,)
        assert history[-1] == regression.compute_cost(X, y, w, l2=0.2, average=True)


def test_sgd_is_reproducible_with_the_same_seed():
    X, y, _, _ = make_problem(30, 2)
    runs = [
        regression.sgd(X, y, np.zeros(3), eta=0.05, epochs=5, rng=np.random.default_rng(7))[0]
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0], runs[1])


def test_sgd_diverging_learning_rate_raises():
    X, y, _, rng = make_problem(30, 3)
    with pytest.raises(ValueError, match="too large"):
        regression.sgd(X, y, np.zeros(4), eta=10.0, epochs=20, rng=rng)


def test_sgd_requires_a_generator():
    X, y, _, _ = make_problem(10, 1)
    with pytest.raises(TypeError, match="default_rng"):
        regression.sgd(X, y, np.zeros(2), eta=0.1, epochs=1, rng=42)


# --- bad input -------------------------------------------------------------------------------


def test_X_must_be_two_dimensional():
    with pytest.raises(ValueError, match=r"X must have shape \(N, m\) \(2-D\); received shape \(5,\).*"
                                         r"reshape\(-1, 1\)"):
        regression.predict(np.ones(5), np.ones(2))


def test_y_must_be_one_dimensional():
    with pytest.raises(ValueError, match=r"y must have shape \(N,\) \(1-D\); received shape \(5, 1\)"):
        regression.compute_cost(np.ones((5, 1)), np.ones((5, 1)), np.ones(2))


def test_N_must_agree():
    with pytest.raises(ValueError, match=r"y has 4 entries along axis 0, but X's axis 0 gives N = 5"):
        regression.normal_equations(np.ones((5, 1)), np.ones(4))


def test_w_of_the_wrong_length():
    with pytest.raises(ValueError, match=r"w has 3 entries along axis 0, but X's axis 1 gives m = 3 .* m \+ 1 = 4"):
        regression.compute_gradient(np.ones((5, 3)), np.ones(5), np.ones(3))


def test_w_init_of_the_wrong_length_is_named():
    with pytest.raises(ValueError, match="w_init has 2 entries"):
        regression.gradient_descent(np.ones((5, 3)), np.ones(5), np.ones(2), eta=0.1, num_iters=1)


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_X_is_rejected(bad):
    X = np.ones((4, 2))
    X[2, 1] = bad
    message = r"X contains 1 NaN or infinite value\(s\), the first at index \(2, 1\)"
    with pytest.raises(ValueError, match=message):
        regression.normal_equations(X, np.ones(4))


def test_non_finite_y_is_rejected():
    y = np.ones(4)
    y[0] = np.nan
    with pytest.raises(ValueError, match="y contains 1 NaN"):
        regression.gradient_descent(np.ones((4, 1)), y, np.zeros(2), eta=0.1, num_iters=1)


def test_non_finite_w_is_rejected():
    with pytest.raises(ValueError, match="w contains 1 NaN"):
        regression.predict(np.ones((3, 1)), np.array([0.0, np.nan]))


@pytest.mark.parametrize("eta", [0.0, -0.1, np.nan, "fast", True])
def test_bad_learning_rate(eta):
    with pytest.raises(ValueError, match="eta must be a finite number > 0"):
        regression.gradient_descent(np.ones((3, 1)), np.ones(3), np.zeros(2), eta=eta, num_iters=1)


@pytest.mark.parametrize("num_iters", [0, -3, 2.5, True])
def test_bad_num_iters(num_iters):
    with pytest.raises(ValueError, match="num_iters must be an integer >= 1"):
        regression.gradient_descent(np.ones((3, 1)), np.ones(3), np.zeros(2), eta=0.1, num_iters=num_iters)


@pytest.mark.parametrize("l2", [-1.0, np.inf])
def test_bad_l2(l2):
    with pytest.raises(ValueError, match="l2 must be a finite number >= 0"):
        regression.normal_equations(np.ones((3, 1)), np.ones(3), l2=l2)


def test_empty_X_is_rejected():
    with pytest.raises(ValueError, match=r"X is empty \(shape \(0, 2\)\)"):
        regression.add_bias(np.ones((0, 2)))


def test_non_numeric_X_is_rejected():
    with pytest.raises(TypeError, match="X must be a numeric array"):
        regression.add_bias([["a", "b"]])


# --- the input contract (issue 21) ------------------------------------------------------------------------------


@pytest.mark.parametrize("average", ["yes", 2, None])
def test_gradient_descent_refuses_an_average_that_is_not_a_bool(average):
    X, y, _, _ = make_problem(6, 2)
    with pytest.raises(ValueError, match="average must be True or False"):  # "yes" and 2 used to be taken as True
        regression.gradient_descent(X, y, np.zeros(3), eta=0.1, num_iters=2, average=average)


def test_sgd_blames_the_learning_rate_when_the_weights_overflow():
    X, y, _, rng = make_problem(12, 2)
    # the weights reach ±inf within the first epoch; the error used to name w ("w contains ... NaN"), not eta
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"SGD diverged in epoch 1.*eta=1e\+200 is too "
                                                                    r"large; try eta=1e\+199"):
        regression.sgd(X, y, np.zeros(3), eta=1e200, epochs=2, rng=rng)

