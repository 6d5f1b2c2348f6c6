"""Linear regression: the model, the sum-of-squares cost, gradient descent and the normal equations.

Chapter 1 of the book. Conventions (those of the chapter):

* ``X`` has shape (N, m): N examples, m raw features, **no** bias column;
* ``w`` has shape (m + 1,): ``w[0]`` is the bias w₀, ``w[1:]`` multiply the columns of ``X``;
* ``Phi = add_bias(X)`` is the design matrix Φ of shape (N, m + 1), eq. (1.4).

Basis expansions (:mod:`~implementations.linear.basis`), robust losses (:mod:`~implementations.linear.robust`)
and standardization (:mod:`~implementations.data.preprocessing`) are in their own modules.
"""

import numpy as np

from .._contract import checked
from ._checks import stop_if_cost_exploded
from .descent import descend

__all__ = [
    "add_bias",
    "predict",
    "compute_cost",
    "compute_gradient",
    "gradient_descent",
    "sgd",
    "normal_equations",
]


@checked(X="array (N, m)")
def add_bias(X):
    """Prepend a column of ones to ``X``: the design matrix Φ with φ₀ = 1, eq. (1.4).

    Parameters
    ----------
    X : array_like of shape (N, m)
        Raw features (or basis-function values), without a bias column.

    Returns
    -------
    Phi : ndarray of shape (N, m + 1)
    """
    return np.hstack([np.ones((X.shape[0], 1)), X])  # (N, m + 1)


@checked(X="array (N, m)", w="array (m + 1,)")
def predict(X, w):
    """Predictions ŷ = Φw of the linear model, eqs. (1.1)-(1.2).

    Parameters
    ----------
    X : array_like of shape (N, m)
    w : array_like of shape (m + 1,)
        ``w[0]`` is the bias.

    Returns
    -------
    y_hat : ndarray of shape (N,)
    """
    return w[0] + X @ w[1:]  # (N,): Φw without building Φ


@checked(X="array (N, m)", y="array (N,)", w="array (m + 1,)", l2="penalty", average="flag")
def compute_cost(X, y, w, *, l2=0.0, average=False):
    """Sum-of-squares cost J(w), eq. (1.8), plus the ridge penalty of eq. (1.20).

    J(w) = ½ Σᵢ (y⁽ⁱ⁾ − ŷ⁽ⁱ⁾)² + (λ/2) Σ_{j≥1} w_j²; the bias w₀ is not penalized.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    w : array_like of shape (m + 1,)
    l2 : float, default 0.0
        Regularization strength λ >= 0.
    average : bool, default False
        Divide J by N (the averaged cost of eq. (1.14)).

    Returns
    -------
    J : float
    """
    residual = y - predict(X, w)  # e = y − ŷ: (N,)
    J = 0.5 * residual @ residual + 0.5 * l2 * w[1:] @ w[1:]
    return float(J / X.shape[0]) if average else float(J)


@checked(X="array (N, m)", y="array (N,)", w="array (m + 1,)", l2="penalty", average="flag")
def compute_gradient(X, y, w, *, l2=0.0, average=False):
    """Gradient ∇J(w) = −Φᵀ(y − Φw) + λI′w, eqs. (1.11) and (1.21).

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    w : array_like of shape (m + 1,)
    l2 : float, default 0.0
        Regularization strength λ >= 0; I′ = diag(0, 1, …, 1) leaves the bias unpenalized.
    average : bool, default False
        Gradient of J/N instead of J.

    Returns
    -------
    grad : ndarray of shape (m + 1,)
    """
    Phi = add_bias(X)  # (N, m + 1)
    grad = -Phi.T @ (y - Phi @ w)  # (m + 1,)
    grad[1:] += l2 * w[1:]  # λI′w: no penalty on the bias
    return grad / X.shape[0] if average else grad


@checked(X="array (N, m)", y="array (N,)", w_init="array (m + 1,)", eta="rate", num_iters="count", l2="penalty",
         average="flag", tol="penalty?")
def gradient_descent(X, y, w_init, *, eta, num_iters, l2=0.0, average=True, tol=None):
    """Batch gradient descent w ← w − η∇J(w), eq. (1.10): the LMS rule, eq. (1.12).

    Parameters
    ----------
    X : array_like of shape (N, m)
        Raw features, without a bias column.
    y : array_like of shape (N,)
    w_init : array_like of shape (m + 1,)
        Starting weights (not modified).
    eta : float
        Learning rate η > 0.
    num_iters : int
        Maximum number of updates.
    l2 : float, default 0.0
        Ridge strength λ.
    average : bool, default True
        Descend on J/N (eq. (1.14)), which makes a good η independent of N.
    tol : float or None
        Stop early once an update lowers the cost by less than ``tol`` times its value.

    Returns
    -------
    w : ndarray of shape (m + 1,)
    cost_history : ndarray of shape (num_iters,) or shorter if ``tol`` stopped the run
        Entry k is the cost after update k + 1.

    Raises
    ------
    ValueError
        If the cost becomes non-finite or grows: the learning rate is too large.
    """

    def cost_and_gradient(w):  # J(w), ∇J(w): eqs. (1.8), (1.11), (1.14); the ridge (1.20), (1.21) when l2 > 0
        return (compute_cost(X, y, w, l2=l2, average=average),
                compute_gradient(X, y, w, l2=l2, average=average))

    # eq. (1.10); for a convex quadratic, any increase of the cost means η exceeds 2 / (largest eigenvalue)
    return descend(cost_and_gradient, w_init.copy(), eta=eta, num_iters=num_iters, tol=tol)


@checked(X="array (N, m)", y="array (N,)", w_init="array (m + 1,)", eta="rate", epochs="count", batch_size="count",
         rng="rng", l2="penalty")
def sgd(X, y, w_init, *, eta, epochs, batch_size=1, rng, l2=0.0):
    """Mini-batch stochastic gradient descent on the averaged cost, eq. (1.15).

    Each epoch visits the examples in a fresh random order, in consecutive mini-batches B of b = ``batch_size``
    examples. Each step is w ← w − (η/b) Σ_{i∈B} [−e⁽ⁱ⁾φ⁽ⁱ⁾ + (λ/N) I′w]; for a full batch (size(B) = b) it is an
    unbiased estimate of the step η∇(J/N). When b does not divide N, the last batch of an epoch holds only the
    N mod b examples left over, and its sum is still divided by b, not by its own size: a proportionally
    shorter step. Every example then moves the weights by the same amount in every epoch, and to first order in η
    an epoch is one batch step of size ηN/b. (Dividing by the size of the small batch would give its few
    examples a full step: the noisiest update of the epoch, made just before the cost is recorded.)

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    w_init : array_like of shape (m + 1,)
    eta : float
        Learning rate η > 0.
    epochs : int
        Number of passes over the data.
    batch_size : int, default 1
        b >= 1; 1 is the classic one-example-at-a-time LMS update, N is batch gradient descent. A
        ``batch_size`` above N is treated as N.
    rng : numpy.random.Generator
        Source of the shuffles.
    l2 : float, default 0.0
        Ridge strength λ; each example of a batch carries 1/N of the penalty's gradient λI′w.

    Returns
    -------
    w : ndarray of shape (m + 1,)
    cost_history : ndarray of shape (epochs,)
        The averaged cost J/N on all the data at the end of each epoch.

    Raises
    ------
    ValueError
        If the cost becomes non-finite or exceeds 100 times its starting value.
    """
    N, b = X.shape[0], min(batch_size, X.shape[0])
    w, Phi = w_init.copy(), add_bias(X)  # (m + 1,), (N, m + 1)
    penalty = (l2 / N) * np.r_[0.0, np.ones(X.shape[1])]  # (m + 1,): (λ/N) × diagonal of I′, each example's share
    cost_start = compute_cost(X, y, w, l2=l2, average=True)
    cost_history = []
    for epoch in range(epochs):
        order = rng.permutation(N)
        Phi_epoch, y_epoch = Phi[order], y[order]  # (N, m + 1), (N,): shuffled once, then sliced
        for start in range(0, N, b):
            Phi_B = Phi_epoch[start : start + b]  # (|B|, m + 1), a view; |B| < b only in a short last batch
            residual = y_epoch[start : start + b] - Phi_B @ w  # (|B|,)
            # eq. (1.15): the sum is divided by b = batch_size, also in a short last batch of N mod b < b examples
            grad = (-Phi_B.T @ residual + residual.size * penalty * w) / b  # (m + 1,)
            w -= eta * grad
        cost_history.append(compute_cost(X, y, w, l2=l2, average=True))
        stop_if_cost_exploded(cost_history[-1], cost_start, epoch=epoch + 1, eta=eta)
    return w, np.array(cost_history)


@checked(X="array (N, m)", y="array (N,)", l2="penalty")
def normal_equations(X, y, *, l2=0.0):
    """Solve (ΦᵀΦ + λI′) w = Φᵀy, eqs. (1.16) and (1.22), without forming an inverse.

    Minimizing ‖y − Φw‖² + λ‖I′w‖² is ordinary least squares on Φ stacked over √λ I′ (with zero
    targets), so one ``lstsq`` call solves both cases; it never squares the condition number of Φ
    the way forming ΦᵀΦ does, and for rank-deficient Φ with λ = 0 it returns the minimum-norm
    least-squares solution.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    l2 : float, default 0.0
        Ridge strength λ; the bias is not penalized.

    Returns
    -------
    w : ndarray of shape (m + 1,)
    """
    m = X.shape[1]
    Phi_aug = np.vstack([add_bias(X), np.sqrt(l2) * np.eye(m + 1)[1:]])  # (N + m, m + 1): Φ over the rows √λ I′
    y_aug = np.concatenate([y, np.zeros(m)])  # (N + m,): the rows √λ I′ have targets 0
    w, *_ = np.linalg.lstsq(Phi_aug, y_aug, rcond=None)
    return w
