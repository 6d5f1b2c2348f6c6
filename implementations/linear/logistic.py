"""Logistic regression: the model on the sigmoid of ``numeric``, the cross-entropy cost, gradient descent and Newton's
method.

Chapter 2 of the book. Conventions are those of chapter 1:

* ``X`` has shape (N, m): N examples, m raw features, **no** bias column;
* ``w`` has shape (m + 1,): ``w[0]`` is the bias, ``w[1:]`` multiply the columns of ``X``;
* ``y`` holds class labels 0 or 1 (booleans and integer-valued floats are accepted).

The perceptron, softmax regression and the classification metrics are in their own modules:
:mod:`~implementations.linear.perceptron`, :mod:`~implementations.linear.softmax_regression` and
:mod:`~implementations.evaluation.metrics`.
"""

import numpy as np

from .._contract import checked
from .._validation import open_probability
from ..numeric import sigmoid, softplus
from . import _fused
from ._checks import sample_weights
from .descent import descend
from .glm import newton
from .regression import add_bias
from .regression import predict as linear_predict

__all__ = [
    "predict_proba",
    "predict",
    "logistic_cost",
    "logistic_gradient",
    "logistic_hessian",
    "fit_logistic",
    "fit_logistic_newton",
    "fit_logistic_weighted",
]


@checked(X="array (N, m)", w="array (m + 1,)")
def predict_proba(X, w):
    """Probability of class 1, p = sigm(Φw), eq. (2.2).

    Parameters
    ----------
    X : array_like of shape (N, m)
    w : array_like of shape (m + 1,)
        ``w[0]`` is the bias.

    Returns
    -------
    p : ndarray of shape (N,)
    """
    return sigmoid(linear_predict(X, w))  # (N,): sigm of the linear model's output, eq. (1.1)


@checked(X="array (N, m)", w="array (m + 1,)", threshold=open_probability)
def predict(X, w, *, threshold=0.5):
    """Class labels ŷ = 1 if sigm(wᵀφ) ≥ τ else 0, eq. (2.3).

    Parameters
    ----------
    X : array_like of shape (N, m)
    w : array_like of shape (m + 1,)
    threshold : float, default 0.5
        The threshold τ, strictly between 0 and 1.

    Returns
    -------
    y_hat : ndarray of shape (N,), int64
    """
    return (predict_proba(X, w) >= threshold).astype(np.int64)  # (N,)


@checked(X="array (N, m)", y="labels (N,) < 2", w="array (m + 1,)", l2="penalty")
def logistic_cost(X, y, w, *, l2=0.0):
    """Mean binary cross-entropy, eqs. (2.5) and (2.6), plus the penalty (λ / 2N) Σ_{j≥1} w_j², eq. (2.11).

    Each example's loss is computed from its logit z = wᵀφ as log(1 + e^z) − y z,
    which equals −[y log p + (1 − y) log(1 − p)] but stays finite (≈ abs(z)) for a confident
    mistake, where p would round to exactly 0 or 1.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Labels 0 or 1.
    w : array_like of shape (m + 1,)
    l2 : float, default 0.0
        Regularization strength λ ≥ 0; the bias is not penalized.

    Returns
    -------
    J : float
    """
    z = add_bias(X) @ w  # (N,) logits z = wᵀφ
    loss = softplus(z) - y * z  # (N,) log(1 + e^z) − y z, eq. (2.6)
    return float(loss.mean() + 0.5 * l2 / X.shape[0] * (w[1:] @ w[1:]))


@checked(X="array (N, m)", y="labels (N,) < 2", w="array (m + 1,)", l2="penalty")
def logistic_gradient(X, y, w, *, l2=0.0):
    """Gradient of :func:`logistic_cost`, ∇J = (1/N) Φᵀ(p − y) + (λ/N) I′w, eq. (2.7).

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Labels 0 or 1.
    w : array_like of shape (m + 1,)
    l2 : float, default 0.0
        I′ = diag(0, 1, …, 1) leaves the bias unpenalized.

    Returns
    -------
    grad : ndarray of shape (m + 1,)
    """
    Phi, N = add_bias(X), X.shape[0]  # (N, m + 1)
    grad = Phi.T @ (sigmoid(Phi @ w) - y) / N  # (m + 1,): the error p − y weighs each φ⁽ⁱ⁾
    grad[1:] += l2 / N * w[1:]  # (λ/N) I′w: no penalty on the bias
    return grad


@checked(X="array (N, m)", y="labels (N,) < 2", w="array (m + 1,)", l2="penalty")
def logistic_hessian(X, y, w, *, l2=0.0):
    """Hessian of :func:`logistic_cost`, H = (1/N) ΦᵀRΦ + (λ/N) I′ with R = diag(p(1 − p)), eq. (2.8).

    ``y`` is only validated: the Hessian of the cross-entropy does not depend on the labels.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    w : array_like of shape (m + 1,)
    l2 : float, default 0.0

    Returns
    -------
    H : ndarray of shape (m + 1, m + 1)
        Symmetric and positive semi-definite (definite when λ > 0 or Φ has full column rank).
    """
    Phi, N = add_bias(X), X.shape[0]  # (N, m + 1)
    p = sigmoid(Phi @ w)  # (N,)
    r = p * (1.0 - p)  # (N,) diagonal of R: the variance of each Bernoulli label
    H = (Phi.T * r) @ Phi / N  # (m + 1, m + 1) = ΦᵀRΦ / N without forming R
    H[1:, 1:] += l2 / N * np.eye(X.shape[1])  # (λ/N) I′
    return H


@checked(X="array (N, m)", y="labels (N,) < 2", eta="rate", num_iters="count", l2="penalty",
         w_init="array (m + 1,)?")
def fit_logistic(X, y, *, eta, num_iters, l2=0.0, w_init=None):
    """Batch gradient descent w ← w − η∇J(w) on the cross-entropy cost, eqs. (2.5) and (2.7).

    Each update needs :func:`logistic_cost` and :func:`logistic_gradient` at the same weights; a fused kernel
    computes both from one product Φw, on Φ built once (they agree to round-off, as ``tests/test_logistic.py``
    checks).

    Parameters
    ----------
    X : array_like of shape (N, m)
        Raw features; standardize them first for a fast, well-conditioned descent.
    y : array_like of shape (N,)
        Labels 0 or 1.
    eta : float
        Learning rate η > 0. Every η < 2/L lowers the cost, with L = λ_max(ΦᵀΦ/N)/4 + λ/N a bound
        on the Hessian's eigenvalues; for two standardized features that allows η of about 4 to 8.
    num_iters : int
        Number of updates.
    l2 : float, default 0.0
        Regularization strength λ. Without it, on linearly separable data the cost has no minimum
        and the weights grow for ever.
    w_init : array_like of shape (m + 1,), optional
        Starting weights (not modified); zeros by default.

    Returns
    -------
    w : ndarray of shape (m + 1,)
    cost_history : ndarray of shape (num_iters,)
        Entry k is the cost after update k + 1.

    Raises
    ------
    ValueError
        If the cost grows: the learning rate is too large.
    """
    w = np.zeros(X.shape[1] + 1) if w_init is None else w_init.copy()  # (m + 1,)
    Phi, y = add_bias(X), y.astype(np.float64)  # (N, m + 1), (N,): built once for all the updates
    return descend(lambda v: _fused.logistic_cost_and_gradient(Phi, y, v, l2), w, eta=eta, num_iters=num_iters)


@checked(X="array (N, m)", y="labels (N,) < 2", l2="penalty", num_iters="count")
def fit_logistic_newton(X, y, *, l2=0.0, num_iters):
    """Newton's method w ← w − H⁻¹∇J, eq. (2.9): iteratively reweighted least squares (IRLS).

    Each step solves a weighted least-squares problem with weights p(1 − p); near the minimum the
    number of correct digits roughly doubles per step. It stops early once a step changes no
    weight by more than 1e-12 (relative).

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Labels 0 or 1.
    l2 : float, default 0.0
        Regularization strength λ; λ > 0 keeps H invertible on separable data.
    num_iters : int
        Maximum number of Newton steps.

    Returns
    -------
    w : ndarray of shape (m + 1,)

    Raises
    ------
    ValueError
        If the Hessian becomes singular, which happens when the classes are linearly separable
        and λ = 0 (the weights run off to infinity and every p(1 − p) to 0).
    """

    def gradient_and_hessian(w):  # ∇J of eq. (2.7) and H of eq. (2.8)
        return logistic_gradient(X, y, w, l2=l2), logistic_hessian(X, y, w, l2=l2)

    return newton(gradient_and_hessian, np.zeros(X.shape[1] + 1), num_iters=num_iters)  # eq. (2.9), from w = 0


@checked(X="array (N, m)", y="labels (N,) < 2", sample_weight="array (N,)", l2="penalty", num_iters="count",
         also=sample_weights)
def fit_logistic_weighted(X, y, *, sample_weight, l2=0.0, num_iters):
    """Newton's method on the weighted cross-entropy, eq. (2.21): example i counts v⁽ⁱ⁾ times.

    The cost is J_v(w) = (1/N_v) Σᵢ v⁽ⁱ⁾ [log(1 + e^(z⁽ⁱ⁾)) − y⁽ⁱ⁾ z⁽ⁱ⁾] + (λ / 2N_v) Σ_{j≥1} w_j², with
    N_v = Σᵢ v⁽ⁱ⁾, z⁽ⁱ⁾ = wᵀφ⁽ⁱ⁾ and p⁽ⁱ⁾ = sigm(z⁽ⁱ⁾); its gradient is (1/N_v) Φᵀ diag(v)(p − y) + (λ/N_v) I′w and
    its Hessian (1/N_v) Φᵀ diag(v) R Φ + (λ/N_v) I′, R = diag(p⁽ⁱ⁾(1 − p⁽ⁱ⁾)). An integer weight v⁽ⁱ⁾ is the
    same as repeating example i v⁽ⁱ⁾ times, so with every v⁽ⁱ⁾ = 1 this is :func:`fit_logistic_newton` (bit for
    bit). *Class weights* give every example of class k the weight v_k, ``np.where(y == 1, v1, v0)``; the
    "balanced" ones, v_k = N / (2 N_k) for the N_k examples of class k, give both classes the total weight N/2, and
    N_v = N. scikit-learn's ``LogisticRegression(C=1/λ, class_weight={0: v0, 1: v1})`` minimizes N_v J_v(w) and
    returns the same weights.

    Parameters
    ----------
    X : array_like of shape (N, m)
        Raw features (standardize them first).
    y : array_like of shape (N,)
        Labels 0 or 1.
    sample_weight : array_like of shape (N,)
        Weights v⁽ⁱ⁾ >= 0, not all 0; a weight 0 leaves the example out.
    l2 : float, default 0.0
        Regularization strength λ >= 0; the bias is not penalized.
    num_iters : int
        Maximum number of Newton steps; it stops early, as :func:`fit_logistic_newton` does.

    Returns
    -------
    w : ndarray of shape (m + 1,)

    Raises
    ------
    ValueError
        If the Hessian becomes singular: the examples of positive weight are linearly separable and λ = 0.
    """
    Phi, v, N_v = add_bias(X), sample_weight, sample_weight.sum()  # (N, m + 1), (N,); N_v = N when every v⁽ⁱ⁾ = 1

    def gradient_and_hessian(w):  # of J_v: each example's error and curvature counted v⁽ⁱ⁾ times
        p = sigmoid(Phi @ w)  # (N,) p⁽ⁱ⁾ = sigm(z⁽ⁱ⁾)
        grad = Phi.T @ (v * (p - y)) / N_v  # (m + 1,): Φᵀ diag(v)(p − y) / N_v
        grad[1:] += l2 / N_v * w[1:]
        H = (Phi.T * (v * p * (1.0 - p))) @ Phi / N_v  # (m + 1, m + 1): Φᵀ diag(v) R Φ / N_v
        H[1:, 1:] += l2 / N_v * np.eye(X.shape[1])
        return grad, H

    return newton(gradient_and_hessian, np.zeros(X.shape[1] + 1), num_iters=num_iters)  # eq. (2.9), from w = 0
