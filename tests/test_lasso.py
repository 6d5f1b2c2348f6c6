"""Tests of implementations.linear.lasso: soft thresholding, coordinate descent and the lasso path.

Checked against closed forms (the proximal problem on a grid, l1 = 0 as least squares, l1 >= l1_max as the mean),
the subgradient optimality conditions, and scikit-learn's Lasso and lasso_path (same cost: (1/2N)‖·‖² + α‖w‖₁).
"""

import numpy as np
import pytest
from sklearn.linear_model import Lasso
from sklearn.linear_model import lasso_path as sk_lasso_path

from implementations.linear import lasso, regression

TIGHT = {"tol": 1e-12, "num_iters": 100_000}

# (N, m, l1, rho): rho is the correlation between every pair of features; m > N too
PROBLEMS = [(50, 5, 0.05, 0.0), (200, 20, 0.05, 0.9), (30, 60, 0.2, 0.5), (100, 8, 1e-3, 0.95), (15, 3, 0.5, 0.3)]


def make_problem(N, m, rho=0.0, seed=0, offset=3.0):
    """Features with pairwise correlation rho and a nonzero mean, a sparse true weight vector, noisy targets."""
    rng = np.random.default_rng(seed)
    C = rho * np.ones((m, m)) + (1 - rho) * np.eye(m)  # (m, m) correlation matrix
    X = rng.normal(size=(N, m)) @ np.linalg.cholesky(C).T + offset  # (N, m)
    w_true = rng.normal(size=m) * (rng.random(m) < 0.5)  # (m,): about half the features matter
    y = 0.5 + X @ w_true + 0.3 * rng.normal(size=N)  # (N,)
    return X, y


def correlations(X, y, w):
    """c_j = (1/N) φ_jᵀ(y − Φw) for j = 0, …, m: the negative gradient of the smooth part of J."""
    Phi = regression.add_bias(X)  # (N, m + 1)
    return Phi.T @ (y - Phi @ w) / X.shape[0]  # (m + 1,)


# --- soft thresholding -------------------------------------------------------------------------------------------


def test_soft_threshold_values():
    z = np.array([-3.0, -1.0, -0.5, 0.0, 0.5, 1.0, 3.0])
    np.testing.assert_array_equal(lasso.soft_threshold(z, 1.0), [-2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0])
    np.testing.assert_array_equal(lasso.soft_threshold(z, 0.0), z)  # t = 0: the identity
    np.testing.assert_array_equal(lasso.soft_threshold(z.reshape(7, 1), 2.5).ravel(), [-0.5, 0, 0, 0, 0, 0, 0.5])
    assert lasso.soft_threshold(1.25, 0.25) == 1.0


@pytest.mark.parametrize("t", [0.0, 0.3, 1.5])
def test_soft_threshold_minimises_the_proximal_problem(t):
    """soft(z, t) = argmin_w ½(w − z)² + t|w|, checked by brute force on a grid of step 1e-4."""
    z = np.random.default_rng(0).uniform(-4, 4, size=25)
    z[:3] = [t, -t, 0.0]  # the kinks
    grid = np.linspace(-5, 5, 100_001)  # step 1e-4
    objective = 0.5 * (grid[None, :] - z[:, None]) ** 2 + t * np.abs(grid[None, :])  # (25, G)
    np.testing.assert_allclose(lasso.soft_threshold(z, t), grid[np.argmin(objective, axis=1)], atol=1e-4)


def test_soft_threshold_rejects_a_negative_threshold():
    with pytest.raises(ValueError, match="t must be a finite number >= 0; received -1"):
        lasso.soft_threshold([1.0], -1.0)


# --- cost and l1_max -----------------------------------------------------------------------------------------------


def test_lasso_cost_matches_its_definition_and_spares_the_bias():
    X, y = make_problem(12, 3, seed=1)
    w = np.array([2.0, -1.0, 0.0, 0.5])
    expected = np.sum((y - regression.predict(X, w)) ** 2) / (2 * 12) + 0.7 * (1.0 + 0.0 + 0.5)
    assert lasso.lasso_cost(X, y, w, l1=0.7) == pytest.approx(expected, rel=1e-13)
    w_bias = np.array([5.0, 0.0, 0.0, 0.0])
    assert lasso.lasso_cost(X, y, w_bias, l1=9.0) == lasso.lasso_cost(X, y, w_bias, l1=0.0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_l1_max_is_the_smallest_penalty_with_all_weights_zero(seed):
    X, y = make_problem(40, 6, rho=0.4, seed=seed)
    top = lasso.l1_max(X, y)
    Phi = regression.add_bias(X)
    assert top == pytest.approx(np.max(np.abs(Phi[:, 1:].T @ (y - y.mean()))) / 40, rel=1e-13)
    w = lasso.fit_lasso(X, y, l1=top, **TIGHT)
    np.testing.assert_array_equal(w[1:], 0.0)
    assert w[0] == pytest.approx(y.mean(), rel=1e-13)
    w_large = lasso.fit_lasso(X, y, l1=10 * top)
    np.testing.assert_array_equal(w_large[1:], 0.0)
    assert lasso.fit_lasso(X, y, l1=0.99 * top, **TIGHT)[1:].any()  # just below, a weight enters: l1_max is tight


# --- fit_lasso -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("N", "m", "l1", "rho"), PROBLEMS)
def test_fit_lasso_equals_sklearn(N, m, l1, rho):
    X, y = make_problem(N, m, rho=rho, seed=N + m)
    w = lasso.fit_lasso(X, y, l1=l1, **TIGHT)
    sk = Lasso(alpha=l1, fit_intercept=True, tol=1e-14, max_iter=1_000_000).fit(X, y)
    np.testing.assert_allclose(w[1:], sk.coef_, atol=1e-6)
    np.testing.assert_allclose(w[0], sk.intercept_, atol=1e-6)
    assert lasso.lasso_cost(X, y, w, l1=l1) <= lasso.lasso_cost(X, y, np.r_[sk.intercept_, sk.coef_], l1=l1) + 1e-12


@pytest.mark.parametrize(("N", "m", "l1", "rho"), PROBLEMS)
def test_fit_lasso_satisfies_the_subgradient_conditions(N, m, l1, rho):
    X, y = make_problem(N, m, rho=rho, seed=N + m)
    w = lasso.fit_lasso(X, y, l1=l1, **TIGHT)
    c = correlations(X, y, w)  # (m + 1,)
    assert abs(c[0]) < 1e-10  # the bias: the residuals average to zero
    nonzero = w[1:] != 0
    np.testing.assert_allclose(c[1:][nonzero], l1 * np.sign(w[1:][nonzero]), atol=1e-9)
    assert np.all(np.abs(c[1:][~nonzero]) <= l1 + 1e-9)


def test_the_subgradient_check_has_teeth():
    """The problems exercise both branches, and a slightly perturbed solution violates the conditions."""
    X, y = make_problem(50, 5, seed=50)
    l1 = 0.3 * lasso.l1_max(X, y)
    w = lasso.fit_lasso(X, y, l1=l1, **TIGHT)
    assert 0 < np.count_nonzero(w[1:]) < 5
    j = np.flatnonzero(w[1:])[0] + 1
    w_off = w.copy()
    w_off[j] *= 1.01
    c = correlations(X, y, w_off)
    assert abs(c[j] - l1 * np.sign(w_off[j])) > 1e-6


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_fit_lasso_lowers_the_cost_below_every_perturbation(seed):
    X, y = make_problem(30, 4, rho=0.5, seed=seed)
    w = lasso.fit_lasso(X, y, l1=0.05, **TIGHT)
    J = lasso.lasso_cost(X, y, w, l1=0.05)
    rng = np.random.default_rng(seed)
    for _ in range(50):
        assert J <= lasso.lasso_cost(X, y, w + 1e-3 * rng.normal(size=5), l1=0.05)


def test_l1_zero_is_least_squares():
    X, y = make_problem(60, 4, seed=3)
    np.testing.assert_allclose(lasso.fit_lasso(X, y, l1=0.0, **TIGHT), regression.normal_equations(X, y),
                               rtol=1e-9, atol=1e-9)


def test_feature_offsets_change_only_the_bias():
    X, y = make_problem(40, 3, rho=0.3, seed=4, offset=0.0)
    w = lasso.fit_lasso(X, y, l1=0.05, **TIGHT)
    shift = np.array([100.0, -7.0, 0.5])
    w_shifted = lasso.fit_lasso(X + shift, y, l1=0.05, **TIGHT)
    np.testing.assert_allclose(w_shifted[1:], w[1:], atol=1e-10)
    np.testing.assert_allclose(w_shifted[0], w[0] - shift @ w[1:], atol=1e-8)


def test_a_constant_feature_gets_weight_zero():
    X, y = make_problem(20, 2, seed=5)
    X = np.column_stack([X, np.full(20, 0.1)])  # 0.1 has no exact binary mean: its centring leaves round-off
    for l1 in (0.0, 0.05):
        w = lasso.fit_lasso(X, y, l1=l1, w_init=np.array([0.0, 0.0, 0.0, 3.0]), **TIGHT)
        assert w[3] == 0.0
        np.testing.assert_allclose(w[:3], lasso.fit_lasso(X[:, :2], y, l1=l1, **TIGHT), atol=1e-10)


def test_a_warm_start_reaches_the_same_minimiser():
    X, y = make_problem(50, 6, rho=0.6, seed=6)
    w_cold = lasso.fit_lasso(X, y, l1=0.02, **TIGHT)
    w_warm = lasso.fit_lasso(X, y, l1=0.02, w_init=np.arange(7.0), **TIGHT)
    np.testing.assert_allclose(w_warm, w_cold, atol=1e-9)


def test_too_few_sweeps_raise_naming_num_iters():
    X, y = make_problem(100, 8, rho=0.95, seed=7)
    with pytest.raises(ValueError, match=r"did not converge within num_iters=3 sweeps.*num_iters=30"):
        lasso.fit_lasso(X, y, l1=1e-3, num_iters=3)
    with pytest.raises(ValueError, match=r"for l1s\[1\]=0.001 within num_iters=3"):
        lasso.lasso_path(X, y, l1s=[10 * lasso.l1_max(X, y), 1e-3], num_iters=3)  # the first converges at once


def test_fit_lasso_rejects_bad_arguments():
    X, y = make_problem(10, 2)
    with pytest.raises(ValueError, match="l1 must be a finite number >= 0; received -0.1"):
        lasso.fit_lasso(X, y, l1=-0.1)
    with pytest.raises(ValueError, match="w_init has 2 entries"):
        lasso.fit_lasso(X, y, l1=0.1, w_init=np.zeros(2))
    with pytest.raises(ValueError, match="tol must be a finite number > 0"):
        lasso.fit_lasso(X, y, l1=0.1, tol=0.0)
    with pytest.raises(ValueError, match="l1s must hold penalties >= 0"):
        lasso.lasso_path(X, y, l1s=[0.1, -0.1])


# --- lasso_path ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("N", "m", "rho"), [(60, 6, 0.0), (40, 10, 0.8), (25, 40, 0.3)])
def test_lasso_path_equals_sklearn(N, m, rho):
    X, y = make_problem(N, m, rho=rho, seed=N)
    l1s = lasso.l1_max(X, y) * np.logspace(0, -2, 15)  # decreasing, as scikit-learn orders them
    W = lasso.lasso_path(X, y, l1s=l1s, **TIGHT)
    assert W.shape == (15, m + 1)
    # scikit-learn's lasso_path fits no intercept: give it centred data, then w₀ = ȳ − x̄ᵀw.
    # It returns coefs of shape (m, L), one column per alpha.
    x_mean, y_mean = X.mean(axis=0), y.mean()
    alphas, coefs, _ = sk_lasso_path(X - x_mean, y - y_mean, alphas=l1s, tol=1e-14, max_iter=1_000_000)
    np.testing.assert_array_equal(alphas, l1s)
    np.testing.assert_allclose(W[:, 1:], coefs.T, atol=1e-6)
    np.testing.assert_allclose(W[:, 0], y_mean - coefs.T @ x_mean, atol=1e-6)
    # the order in which the features become non-zero as l1 decreases
    first_nonzero = [np.argmax(W[:, 1 + j] != 0) if W[:, 1 + j].any() else 15 for j in range(m)]
    sk_first_nonzero = [np.argmax(coefs[j] != 0) if coefs[j].any() else 15 for j in range(m)]
    assert first_nonzero == sk_first_nonzero
    np.testing.assert_array_equal(W[0, 1:], 0.0)  # at l1_max nothing has entered


def test_first_feature_to_enter_has_the_largest_correlation():
    X, y = make_problem(80, 7, rho=0.2, seed=8)
    c = correlations(X, y, np.r_[y.mean(), np.zeros(7)])[1:]  # (m,) at w = (ȳ, 0, …, 0)
    w = lasso.fit_lasso(X, y, l1=0.999 * lasso.l1_max(X, y), **TIGHT)
    np.testing.assert_array_equal(np.flatnonzero(w[1:]), [np.argmax(np.abs(c))])
    assert np.sign(w[1 + np.argmax(np.abs(c))]) == np.sign(c[np.argmax(np.abs(c))])


def test_lasso_path_returns_rows_in_the_given_order():
    X, y = make_problem(50, 5, rho=0.4, seed=9)
    l1s = np.array([0.01, 0.3, 0.05, 1.0, 0.0])
    W = lasso.lasso_path(X, y, l1s=l1s, **TIGHT)
    for row, l1 in zip(W, l1s, strict=True):
        np.testing.assert_allclose(row, lasso.fit_lasso(X, y, l1=l1, **TIGHT), atol=1e-9)


# --- the exact finish on the support -------------------------------------------------------------------------------


@pytest.mark.parametrize("rho", [0.99, 0.999])
def test_exact_finish_solves_strongly_correlated_problems_in_few_sweeps(rho):
    """Plain cyclic sweeps crawl on features correlated at 0.99; the exact finish reaches the minimiser anyway."""
    X, y = make_problem(100, 8, rho=rho, seed=11)
    l1 = 0.01 * lasso.l1_max(X, y)
    w = lasso.fit_lasso(X, y, l1=l1, num_iters=200)  # the default tol: the sweeps alone would need far more
    sk = Lasso(alpha=l1, tol=1e-12, max_iter=10_000_000).fit(X, y)
    np.testing.assert_allclose(w[1:], sk.coef_, atol=1e-7)
    c = correlations(X, y, w)
    nonzero = w[1:] != 0
    np.testing.assert_allclose(c[1:][nonzero], l1 * np.sign(w[1:][nonzero]), atol=1e-12)  # exact, not to tol
    assert np.all(np.abs(c[1:][~nonzero]) <= l1 + 1e-12)


def test_the_step_on_the_support_finds_the_minimiser_from_its_support_and_signs():
    X, y = make_problem(60, 5, rho=0.3, seed=12)
    l1 = 0.2 * lasso.l1_max(X, y)
    w_star = lasso.fit_lasso(X, y, l1=l1, **TIGHT)[1:]
    assert 0 < np.count_nonzero(w_star) < 5
    Xc_T = np.ascontiguousarray((X - X.mean(axis=0)).T)
    yc = y - y.mean()
    close = w_star * 1.1  # the right support and signs, wrong values
    assert lasso._solve_on_support(Xc_T, yc, l1, close)
    np.testing.assert_allclose(close, w_star, atol=1e-9)


@pytest.mark.parametrize("seed", range(6))
def test_the_step_on_the_support_never_raises_the_cost_and_claims_only_true_minimisers(seed):
    X, y = make_problem(50, 6, rho=0.8, seed=seed)
    l1 = 0.1 * lasso.l1_max(X, y)
    w_star = lasso.fit_lasso(X, y, l1=l1, **TIGHT)[1:]
    Xc_T = np.ascontiguousarray((X - X.mean(axis=0)).T)
    yc = y - y.mean()
    rng = np.random.default_rng(seed)
    for start in (np.where(w_star == 0, 1.0, 0.0), -w_star, rng.normal(size=6) * (rng.random(6) < 0.6)):
        w = start.copy()
        before = lasso.lasso_cost(X, y, np.r_[y.mean() - X.mean(axis=0) @ w, w], l1=l1)
        done = lasso._solve_on_support(Xc_T, yc, l1, w)
        after = lasso.lasso_cost(X, y, np.r_[y.mean() - X.mean(axis=0) @ w, w], l1=l1)
        assert after <= before + 1e-12
        if done:
            np.testing.assert_allclose(w, w_star, atol=1e-8)


def test_duplicated_features_do_not_break_the_exact_finish():
    """Two equal columns make G_AA singular: the sweeps must still converge to a minimiser."""
    X, y = make_problem(40, 3, seed=13)
    X = np.column_stack([X, X[:, 0]])
    l1 = 0.05
    w = lasso.fit_lasso(X, y, l1=l1, **TIGHT)
    sk = Lasso(alpha=l1, tol=1e-14, max_iter=1_000_000).fit(X, y)
    assert lasso.lasso_cost(X, y, w, l1=l1) == pytest.approx(
        lasso.lasso_cost(X, y, np.r_[sk.intercept_, sk.coef_], l1=l1), rel=1e-9)
    np.testing.assert_allclose(w[1] + w[4], sk.coef_[0] + sk.coef_[3], atol=1e-6)  # only the sum is determined


def test_zero_weights_are_positive_zeros():
    """A weight the soft threshold sets to zero is 0.0, never -0.0 (which would print as "-0.0")."""
    X, y = make_problem(50, 6, rho=0.5, seed=14)
    W = lasso.lasso_path(X, y, l1s=lasso.l1_max(X, y) * np.logspace(0, -2, 12))
    zeros = W[:, 1:][W[:, 1:] == 0]
    assert zeros.size > 0 and not np.any(np.signbit(zeros))
