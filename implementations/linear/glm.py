"""Generalized linear models fitted by Newton's method: a Newton loop for any cost, and Poisson regression.

Chapter 2, section "Generalized linear models". Conventions are those of :mod:`implementations.linear.logistic`:

* ``X`` has shape (N, m): N examples, m raw features, **no** bias column;
* ``w`` has shape (m + 1,): ``w[0]`` is the bias, ``w[1:]`` multiply the columns of ``X``;
* ``y`` holds counts y⁽ⁱ⁾ ≥ 0 for Poisson regression.

Poisson regression models a count as Poisson with mean μ = e^z, z = wᵀφ: the log link, which is the Poisson
distribution's canonical link, so that its gradient is eq. (2.24) with μ = e^z. Its cost is the averaged negative
log-likelihood without the constant log y!, and its Hessian (1/N) Φᵀ diag(μ) Φ is that of every canonical GLM,
with the variance of y (for a Poisson count, its mean μ) in the diagonal. :func:`newton` is the Newton loop
written once for any cost whose gradient and Hessian the caller provides: logistic regression
(:func:`~implementations.linear.logistic.fit_logistic_newton` and
:func:`~implementations.linear.logistic.fit_logistic_weighted`) and Poisson regression (:func:`fit_poisson`) run it.
"""

import numpy as np

from .._contract import checked
from ._checks import counts, full_column_rank, newton_function, some_positive_count, stop_if_singular
from .regression import add_bias

__all__ = ["newton", "poisson_cost", "poisson_gradient_hessian", "fit_poisson"]


@checked(gradient_and_hessian=newton_function, w_init="array (P,)", num_iters="count", tol="penalty")
def newton(gradient_and_hessian, w_init, *, num_iters, tol=1e-12):
    """Newton's method w ← w − H⁻¹∇J, eq. (2.9), for any cost whose gradient and Hessian are given.

    Each step solves H s = ∇J (no inverse is formed) and subtracts s. It stops after ``num_iters`` steps, or
    earlier once a step changes no weight by more than ``tol`` relative to the largest weight. There is no
    line search: it relies on starting close enough to the minimum of a convex cost.

    Parameters
    ----------
    gradient_and_hessian : callable
        w -> (grad, H): the gradient, an array of shape (P,), and the Hessian, of shape (P, P), of the cost
        at w, an array of shape (P,). It must not modify w. Called from outside the package, each of its results
        is checked (a pair of finite arrays of those shapes).
    w_init : array_like of shape (P,)
        Starting weights (not modified).
    num_iters : int
        Maximum number of Newton steps, at least 1.
    tol : float, default 1e-12
        Relative step size below which the iteration stops; 0 runs all ``num_iters`` steps.

    Returns
    -------
    w : ndarray of shape (P,)

    Raises
    ------
    ValueError
        If ``gradient_and_hessian`` returns arrays of the wrong shapes, or the gradient or the Hessian is not finite
        (the iteration diverged: start closer to the minimum), or the Hessian is singular (condition number above
        1e12).
    """
    w = w_init.copy()  # (P,)
    for k in range(num_iters):
        grad, H = gradient_and_hessian(w)  # (P,), (P, P)
        stop_if_singular(grad, H, step=k + 1)  # diverged, or no unique minimum
        step = np.linalg.solve(H, grad)  # (P,) H⁻¹∇J without an inverse
        w -= step
        if np.max(np.abs(step)) <= tol * (1.0 + np.max(np.abs(w))):
            break
    return w


@checked(X="array (N, m)", y="array (N,)", w="array (m + 1,)", l2="penalty", also=counts)
def poisson_cost(X, y, w, *, l2=0.0):
    """Averaged negative log-likelihood of Poisson regression, J(w) = (1/N) Σ (e^z − y z) + (λ/2N) Σ_{j≥1} w_j².

    The Poisson log-probability of a count y with mean μ = e^z is y z − e^z − log y!; the constant log y!
    does not depend on w and is left out. The penalty leaves the bias alone, as in eq. (2.11).

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Counts y⁽ⁱ⁾ ≥ 0 (integer or not).
    w : array_like of shape (m + 1,)
    l2 : float, default 0.0
        Regularization strength λ ≥ 0.

    Returns
    -------
    J : float
    """
    z = add_bias(X) @ w  # (N,) logarithms of the mean counts
    return float(np.mean(np.exp(z) - y * z) + 0.5 * l2 / X.shape[0] * (w[1:] @ w[1:]))


@checked(X="array (N, m)", y="array (N,)", w="array (m + 1,)", l2="penalty", also=counts)
def poisson_gradient_hessian(X, y, w, *, l2=0.0):
    """Gradient and Hessian of :func:`poisson_cost`, ∇J = (1/N) Φᵀ(μ − y) and H = (1/N) Φᵀ diag(μ) Φ.

    μ = e^(Φw) are the mean counts: the gradient is eq. (2.24) for the log link, and the diagonal of the
    Hessian holds μ⁽ⁱ⁾, the variance of a Poisson count. The penalty adds (λ/N) I′w and (λ/N) I′.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Counts y⁽ⁱ⁾ ≥ 0.
    w : array_like of shape (m + 1,)
    l2 : float, default 0.0

    Returns
    -------
    grad : ndarray of shape (m + 1,)
    H : ndarray of shape (m + 1, m + 1)
        Symmetric and positive semi-definite (definite when Φ has full column rank or λ > 0).
    """
    Phi, N = add_bias(X), X.shape[0]  # (N, m + 1)
    mu = np.exp(Phi @ w)  # (N,) mean counts μ = e^z
    grad = Phi.T @ (mu - y) / N  # (m + 1,), eq. (2.24) with μ = e^z
    grad[1:] += l2 / N * w[1:]
    H = (Phi.T * mu) @ Phi / N  # (m + 1, m + 1) = Φᵀ diag(μ) Φ / N without forming diag(μ)
    H[1:, 1:] += l2 / N * np.eye(X.shape[1])
    return grad, H


@checked(X="array (N, m)", y="array (N,)", l2="penalty", num_iters="count",
         also=(counts, some_positive_count, full_column_rank))
def fit_poisson(X, y, *, l2=0.0, num_iters=50):
    """Poisson regression by Newton's method, :func:`newton` on :func:`poisson_cost`.

    It starts from the model that predicts the mean count ȳ everywhere, w = (log ȳ, 0, …, 0), close to the
    minimum for standardized features; from there the plain Newton step converges.

    Parameters
    ----------
    X : array_like of shape (N, m)
        Raw features; standardize them first.
    y : array_like of shape (N,)
        Counts y⁽ⁱ⁾ ≥ 0, not all zero.
    l2 : float, default 0.0
        Regularization strength λ ≥ 0 on the feature weights (the bias is not penalized).
    num_iters : int, default 50
        Maximum number of Newton steps; it stops earlier once the steps vanish.

    Returns
    -------
    w : ndarray of shape (m + 1,)

    Raises
    ------
    ValueError
        If every count is 0 (the maximum-likelihood mean is 0, so w₀ = log 0 = −∞ and no finite fit
        exists), if λ = 0 and the columns of [1 | X] are linearly dependent (no unique minimum), or if the
        iteration diverges.
    """
    w_init = np.r_[np.log(y.mean()), np.zeros(X.shape[1])]  # (m + 1,): the constant model μ = ȳ
    return newton(lambda w: poisson_gradient_hessian(X, y, w, l2=l2), w_init, num_iters=num_iters)
