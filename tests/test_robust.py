"""Tests of the loss functions and of robust regression by IRLS."""

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.linear_model import QuantileRegressor

from implementations.linear import regression
from implementations.linear.robust import (
    fit_robust,
    huber,
    huber_derivative,
    mae,
    mae_derivative,
    mse,
    mse_derivative,
    tukey_bisquare,
    tukey_bisquare_derivative,
)
from implementations.preliminaries.gradcheck import numerical_gradient

DELTA = 1.5
# Points away from the kinks (0 for MAE, ±δ for Huber and Tukey), where the derivative is classical.
E = np.array([-4.0, -1.6, -1.2, -0.3, 0.2, 0.9, 1.4, 1.7, 6.0])

LOSSES = {
    "mse": (mse, mse_derivative),
    "mae": (mae, mae_derivative),
    "huber": (lambda e: huber(e, DELTA), lambda e: huber_derivative(e, DELTA)),
    "tukey": (lambda e: tukey_bisquare(e, DELTA), lambda e: tukey_bisquare_derivative(e, DELTA)),
}


@pytest.mark.parametrize("name", LOSSES)
def test_derivatives_match_finite_differences(name):
    rho, psi = LOSSES[name]
    numeric = numerical_gradient(lambda e: rho(e).sum(), E)
    np.testing.assert_allclose(psi(E), numeric, rtol=1e-6, atol=1e-8)


def test_loss_values_from_their_definitions():
    e = np.array([-3.0, -1.0, 0.0, 0.5, 2.0])
    np.testing.assert_allclose(mse(e), e**2)
    np.testing.assert_allclose(mae(e), np.abs(e))
    np.testing.assert_allclose(huber(e, 1.0), [2.5, 0.5, 0.0, 0.125, 1.5])
    d = 2.0
    c = d**2 / 6
    expected_tukey = [c, c * (1 - (1 - 0.25) ** 3), 0.0, c * (1 - (1 - 1 / 16) ** 3), c]
    np.testing.assert_allclose(tukey_bisquare(e, d), expected_tukey, rtol=1e-12)


def test_huber_is_continuous_and_smooth_at_delta():
    for e in (DELTA, -DELTA):
        below, above = e * (1 - 1e-9), e * (1 + 1e-9)
        assert huber(below, DELTA) == pytest.approx(huber(above, DELTA), abs=1e-8)
        assert huber_derivative(below, DELTA) == pytest.approx(huber_derivative(above, DELTA), abs=1e-8)


def test_tukey_is_flat_beyond_delta_and_bounded():
    big = np.array([DELTA, 2 * DELTA, 1e6])
    np.testing.assert_allclose(tukey_bisquare(big, DELTA), DELTA**2 / 6)
    np.testing.assert_allclose(tukey_bisquare_derivative(big, DELTA), 0.0)


def test_losses_reject_bad_input():
    with pytest.raises(ValueError, match="delta must be a finite number > 0"):
        huber(E, -1.0)
    with pytest.raises(ValueError, match="e contains 1 NaN"):
        tukey_bisquare(np.array([0.0, np.nan]), 1.0)


def outlier_problem(seed=0, N=60, n_out=8):
    rng = np.random.default_rng(seed)
    x = rng.uniform(0, 10, size=N)
    y = 2.0 + 0.5 * x + 0.3 * rng.normal(size=N)
    y[:n_out] += rng.uniform(8, 15, size=n_out)  # gross outliers, all upward
    return x[:, None], y


def test_fit_robust_mse_is_least_squares():
    X, y = outlier_problem()
    np.testing.assert_allclose(fit_robust(X, y, loss="mse"), regression.normal_equations(X, y), rtol=1e-12)


def test_fit_robust_mae_equals_sklearn_median_regression():
    X, y = outlier_problem(1)
    w = fit_robust(X, y, loss="mae", num_iters=500)
    model = QuantileRegressor(quantile=0.5, alpha=0.0, solver="highs").fit(X, y)
    ours = np.abs(y - regression.predict(X, w)).mean()
    theirs = np.abs(y - model.predict(X)).mean()
    assert ours <= theirs + 1e-8  # our MAE is as low as the linear-programming optimum
    np.testing.assert_allclose(w, np.r_[model.intercept_, model.coef_], atol=1e-4)


@pytest.mark.parametrize("delta", [0.3, 1.0, 5.0])
def test_fit_robust_huber_equals_a_generic_minimizer(delta):
    X, y = outlier_problem(2)
    Phi = np.c_[np.ones(len(y)), X]
    objective = lambda w: huber(y - Phi @ w, delta).sum()  # noqa: E731
    gradient = lambda w: -Phi.T @ huber_derivative(y - Phi @ w, delta)  # noqa: E731
    reference = minimize(objective, np.zeros(2), jac=gradient, method="BFGS", options={"gtol": 1e-12}).x
    w = fit_robust(X, y, loss="huber", delta=delta)
    np.testing.assert_allclose(w, reference, rtol=1e-6, atol=1e-6)


def test_fit_robust_tukey_satisfies_first_order_condition_and_ignores_outliers():
    X, y = outlier_problem(3)
    w = fit_robust(X, y, loss="tukey", delta=1.5)
    Phi = np.c_[np.ones(len(y)), X]
    np.testing.assert_allclose(Phi.T @ tukey_bisquare_derivative(y - Phi @ w, 1.5), 0.0, atol=1e-8)
    # The 8 outliers get zero weight: the fit is least squares on the clean points alone ...
    np.testing.assert_allclose(w, regression.normal_equations(X[8:], y[8:]), atol=0.05)
    w_ls = regression.normal_equations(X, y)
    assert np.abs(w_ls[0] - w[0]) > 0.5  # ... while least squares on all points is pulled up by them


def test_fit_robust_unknown_loss():
    X, y = outlier_problem()
    with pytest.raises(ValueError, match=r"loss must be one of .*received 'l1'"):
        fit_robust(X, y, loss="l1")


def test_fit_robust_validates_shapes():
    with pytest.raises(ValueError, match=r"y has 2 entries along axis 0, but X's axis 0 gives N = 3"):
        fit_robust(np.ones((3, 1)), np.ones(2), loss="huber")


# --- the input contract (issue 21) ------------------------------------------------------------------------------


@pytest.mark.parametrize("tol", [-1.0, np.nan, np.inf, "small"])
def test_fit_robust_refuses_a_bad_tol(tol):
    X = np.arange(8.0).reshape(4, 2)
    with pytest.raises(ValueError, match=r"tol must be a finite number >= 0"):  # -1 and NaN used to be accepted
        fit_robust(X, np.arange(4.0), loss="huber", tol=tol)


@pytest.mark.parametrize("loss", [mse, mae, mse_derivative, mae_derivative, lambda e: huber(e, 1.0),
                                  lambda e: huber_derivative(e, 1.0), lambda e: tukey_bisquare(e, 1.0),
                                  lambda e: tukey_bisquare_derivative(e, 1.0)])
def test_losses_name_e_when_it_is_not_numeric_infinite_or_empty(loss):
    with pytest.raises(TypeError, match="e must be a numeric array; received the string 'abc'"):
        loss("abc")  # used to be NumPy's "could not convert string to float"
    with pytest.raises(ValueError, match=r"e contains 1 NaN or infinite value\(s\), the first at index \(1\)"):
        loss([0.0, np.inf])
    with pytest.raises(ValueError, match=r"e is empty \(shape \(0,\)\)"):
        loss([])
    assert np.ndim(loss(0.5)) == 0  # a single residual is still fine
