"""Tests of implementations.linear.glm: Poisson regression against scikit-learn and finite differences, and the Newton
loop."""

import numpy as np
import pytest
from sklearn.linear_model import PoissonRegressor

from implementations.linear import glm, logistic
from implementations.preliminaries.gradcheck import check_gradient, numerical_jacobian


def count_problem(N=300, m=2, seed=0):
    """Standardized-looking features and Poisson counts whose log-mean is linear in them."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, m))
    w_true = np.r_[0.7, rng.normal(scale=0.5, size=m)]
    y = rng.poisson(np.exp(w_true[0] + X @ w_true[1:])).astype(float)
    return X, y, w_true


@pytest.mark.parametrize("N, m, seed", [(300, 1, 0), (300, 3, 1), (50, 2, 2), (1000, 4, 3)])
def test_fit_poisson_equals_sklearn_without_penalty(N, m, seed):
    X, y, _ = count_problem(N, m, seed)
    w = glm.fit_poisson(X, y)
    reference = PoissonRegressor(alpha=0.0, solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(X, y)
    np.testing.assert_allclose(w, np.r_[reference.intercept_, reference.coef_], rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("l2", [0.5, 20.0])
def test_fit_poisson_equals_sklearn_with_penalty(l2):
    X, y, _ = count_problem(200, 3, 4)
    w = glm.fit_poisson(X, y, l2=l2)
    # scikit-learn minimizes (1/2N) Σ deviance + (α/2)‖w₁:‖², whose gradient is ours when α = λ/N
    reference = PoissonRegressor(alpha=l2 / len(y), solver="newton-cholesky", tol=1e-12, max_iter=1000).fit(X, y)
    np.testing.assert_allclose(w, np.r_[reference.intercept_, reference.coef_], rtol=1e-7, atol=1e-9)


def test_fit_poisson_recovers_the_true_weights_from_many_counts():
    X, y, w_true = count_problem(20_000, 2, 5)
    np.testing.assert_allclose(glm.fit_poisson(X, y), w_true, atol=0.03)


@pytest.mark.parametrize("l2", [0.0, 0.7])
@pytest.mark.parametrize("seed", [0, 1])
def test_gradient_and_hessian_match_finite_differences(l2, seed):
    X, y, _ = count_problem(40, 3, seed)
    w = np.random.default_rng(seed + 10).normal(scale=0.3, size=4)
    error = check_gradient(lambda v: glm.poisson_cost(X, y, v, l2=l2),
                           lambda v: glm.poisson_gradient_hessian(X, y, v, l2=l2)[0], w)
    assert error < 1e-6
    H = glm.poisson_gradient_hessian(X, y, w, l2=l2)[1]
    H_numerical = numerical_jacobian(lambda v: glm.poisson_gradient_hessian(X, y, v, l2=l2)[0], w)
    np.testing.assert_allclose(H, H_numerical, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(H, H.T)
    assert np.linalg.eigvalsh(H).min() > 0


def test_poisson_cost_is_the_negative_log_likelihood_up_to_a_constant():
    from scipy.special import gammaln
    from scipy.stats import poisson

    X, y, _ = count_problem(30, 2, 6)
    for w in (np.zeros(3), np.array([0.3, -0.2, 0.5])):
        mu = np.exp(w[0] + X @ w[1:])
        nll = -poisson.logpmf(y, mu).mean()
        assert glm.poisson_cost(X, y, w) == pytest.approx(nll - gammaln(y + 1).mean(), rel=1e-12)


def test_newton_minimizes_a_quadratic_in_one_step():
    rng = np.random.default_rng(7)
    A = rng.normal(size=(4, 4))
    A = A @ A.T + np.eye(4)  # symmetric positive definite
    b = rng.normal(size=4)
    calls = []

    def gradient_and_hessian(w):
        calls.append(w.copy())
        return A @ w - b, A

    w = glm.newton(gradient_and_hessian, np.zeros(4), num_iters=10)
    np.testing.assert_allclose(w, np.linalg.solve(A, b), rtol=1e-12)
    assert len(calls) == 2  # one step to the minimum, one more whose zero step stops the loop


def test_newton_on_the_logistic_cost_equals_fit_logistic_newton():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(80, 2))
    y = (X @ [1.0, -1.0] + rng.normal(size=80) > 0).astype(int)
    w = glm.newton(lambda v: (logistic.logistic_gradient(X, y, v, l2=0.1), logistic.logistic_hessian(X, y, v, l2=0.1)),
                   np.zeros(3), num_iters=50)
    np.testing.assert_allclose(w, logistic.fit_logistic_newton(X, y, l2=0.1, num_iters=50), rtol=1e-10)


def test_newton_does_not_modify_w_init_and_honours_num_iters():
    w_init = np.array([1.0, -1.0])
    steps = []

    def gradient_and_hessian(w):  # J(w) = Σ cosh(w): the step is tanh(w), never exactly zero
        steps.append(1)
        return np.sinh(w), np.diag(np.cosh(w))

    glm.newton(gradient_and_hessian, w_init, num_iters=3, tol=0.0)
    np.testing.assert_array_equal(w_init, [1.0, -1.0])
    assert len(steps) == 3


def test_newton_reports_what_the_callable_got_wrong():
    with pytest.raises(ValueError, match=r"a pair \(gradient, Hessian\); received ndarray"):
        glm.newton(lambda w: w, np.zeros(2), num_iters=3)
    with pytest.raises(ValueError, match=r"gradient of shape \(3,\) and a Hessian of shape \(2, 2\); expected \(2,\)"):
        glm.newton(lambda w: (np.zeros(3), np.eye(2)), np.zeros(2), num_iters=3)
    with pytest.raises(ValueError, match=r"Hessian from gradient_and_hessian is singular at Newton step 1"):
        glm.newton(lambda w: (np.ones(2), np.ones((2, 2))), np.zeros(2), num_iters=3)
    with pytest.raises(ValueError, match=r"not finite at Newton step 2: the iteration diverged"):
        glm.newton(lambda w: (np.full(2, np.inf if w.any() else 1.0), np.eye(2)), np.zeros(2), num_iters=3)
    with pytest.raises(TypeError, match=r"gradient_and_hessian must be a function"):
        glm.newton(np.eye(2), np.zeros(2), num_iters=3)


def test_poisson_rejects_bad_counts():
    X = np.zeros((3, 1))
    with pytest.raises(ValueError, match=r"y must hold counts >= 0; received 1 negative entries, the smallest -2"):
        glm.fit_poisson(X, [1.0, -2.0, 0.0])
    with pytest.raises(ValueError, match=r"every count in y is 0"):
        glm.fit_poisson(X, [0, 0, 0])
    with pytest.raises(ValueError, match=r"w has 3 entries along axis 0, but X's axis 1 gives m = 1"):
        glm.poisson_gradient_hessian(X, [1, 2, 3], np.zeros(3))
    with pytest.raises(ValueError, match=r"\[1 \| X\] are linearly dependent \(rank 1 of 2"):
        glm.fit_poisson(np.ones((3, 1)), [1, 2, 3])  # a constant feature duplicates the bias column
    glm.fit_poisson(np.ones((3, 1)), [1, 2, 3], l2=1.0)  # a penalty makes the minimum unique again
