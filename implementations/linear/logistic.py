"""Logistic regression: the sigmoid, the cross-entropy cost, gradient descent and Newton's method.

Chapter 2 of the book. Conventions are those of chapter 1:

* ``X`` has shape (N, m): N examples, m raw features, **no** bias column;
* ``w`` has shape (m + 1,): ``w[0]`` is the bias, ``w[1:]`` multiply the columns of ``X``;
* ``y`` holds class labels 0 or 1 (booleans and integer-valued floats are accepted).

The perceptron, softmax regression and the classification metrics are in their own modules:
:mod:`~implementations.linear.perceptron`, :mod:`~implementations.linear.softmax_regression` and
:mod:`~implementations.evaluation.metrics`.
"""

import numpy as np

from .._validation import (
    as_finite_array,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_w,
    check_X_labels,
)
from ..numeric import sigmoid
from .descent import descend
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
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.0 < threshold < 1.0:
        raise ValueError(f"threshold must be a number strictly between 0 and 1; received {threshold!r}.")
    return (predict_proba(X, w) >= threshold).astype(np.int64)


def _logits(X, y, w, l2):
    """Shared checks of the cost, gradient and Hessian; returns X, y, w, λ, Φ and z = Φw."""
    X, y = check_X_labels(X, y, num_classes=2)
    w = check_w(w, X.shape[1])
    l2 = check_nonnegative(l2, "l2")
    Phi = add_bias(X)  # (N, m + 1)
    return X, y, w, l2, Phi, Phi @ w  # z: (N,)


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
    X, y, w, l2, Phi, z = _logits(X, y, w, l2)
    N = X.shape[0]
    loss = np.logaddexp(0.0, z) - y * z  # (N,) log(1 + e^z) − y z, eq. (2.6)
    return float(loss.mean() + 0.5 * l2 / N * (w[1:] @ w[1:]))


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
    X, y, w, l2, Phi, z = _logits(X, y, w, l2)
    N = X.shape[0]
    grad = Phi.T @ (sigmoid(z) - y) / N  # (m + 1,): the error p − y weighs each φ⁽ⁱ⁾
    grad[1:] += l2 / N * w[1:]
    return grad


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
    X, y, w, l2, Phi, z = _logits(X, y, w, l2)
    N = X.shape[0]
    p = sigmoid(z)  # (N,)
    r = p * (1.0 - p)  # (N,) diagonal of R: the variance of each Bernoulli label
    H = (Phi.T * r) @ Phi / N  # (m + 1, m + 1) = ΦᵀRΦ / N without forming R
    H[1:, 1:] += l2 / N * np.eye(X.shape[1])
    return H


def _cost_and_gradient(Phi, y, w, l2):
    """:func:`logistic_cost` and :func:`logistic_gradient` at once, on checked inputs: one step of the descent.

    Both need e^(−|z|) of the logits: log(1 + e^z) = max(z, 0) + log(1 + e^(−|z|)) (what ``np.logaddexp``
    computes) and sigm(z) = 1 / (1 + e^(−|z|)) for z ≥ 0, e^(−|z|) / (1 + e^(−|z|)) for z < 0.

    Parameters
    ----------
    Phi : ndarray of shape (N, m + 1)
        Design matrix, bias column first.
    y : ndarray of shape (N,)
        Labels 0.0 or 1.0.
    w : ndarray of shape (m + 1,)
    l2 : float

    Returns
    -------
    J : float
    grad : ndarray of shape (m + 1,)
    """
    N = Phi.shape[0]
    z = Phi @ w  # (N,) logits
    e = np.exp(-np.abs(z))  # (N,) e^(−|z|) in [0, 1]: never overflows
    loss = np.maximum(z, 0.0) + np.log1p(e) - y * z  # (N,) log(1 + e^z) − y z, eq. (2.6)
    J = float(loss.sum() / N + 0.5 * l2 / N * (w[1:] @ w[1:]))
    grad = Phi.T @ (sigmoid(z) - y) / N  # (m + 1,), eq. (2.7)
    grad[1:] += l2 / N * w[1:]
    return J, grad


def _gradient_and_hessian(Phi, y, w, l2):
    """:func:`logistic_gradient` and :func:`logistic_hessian` at once, on checked inputs: one Newton step.

    Parameters
    ----------
    Phi : ndarray of shape (N, m + 1)
        Design matrix, bias column first.
    y : ndarray of shape (N,)
        Labels 0 or 1.
    w : ndarray of shape (m + 1,)
    l2 : float

    Returns
    -------
    grad : ndarray of shape (m + 1,)
    H : ndarray of shape (m + 1, m + 1)
    """
    N = Phi.shape[0]
    p = sigmoid(Phi @ w)  # (N,) sigm of the logits
    grad = Phi.T @ (p - y) / N  # (m + 1,), eq. (2.7)
    grad[1:] += l2 / N * w[1:]
    r = p * (1.0 - p)  # (N,) diagonal of R
    H = (Phi.T * r) @ Phi / N  # (m + 1, m + 1), eq. (2.8)
    H[1:, 1:] += l2 / N * np.eye(Phi.shape[1] - 1)
    return grad, H


def fit_logistic(X, y, *, eta, num_iters, l2=0.0, w_init=None):
    """Batch gradient descent w ← w − η∇J(w) on the cross-entropy cost, eqs. (2.5) and (2.7).

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
    X, y = check_X_labels(X, y, num_classes=2)
    eta = check_positive(eta, "eta")
    num_iters = check_positive_int(num_iters, "num_iters")
    l2 = check_nonnegative(l2, "l2")
    w = np.zeros(X.shape[1] + 1) if w_init is None else check_w(w_init, X.shape[1], name="w_init").copy()

    Phi = add_bias(X)  # (N, m + 1), built once for all the updates
    y = y.astype(np.float64)  # (N,) labels as floats, so no per-step type conversion
    return descend(lambda v: _cost_and_gradient(Phi, y, v, l2), w, eta=eta, num_iters=num_iters)


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
    X, y = check_X_labels(X, y, num_classes=2)
    l2 = check_nonnegative(l2, "l2")
    num_iters = check_positive_int(num_iters, "num_iters")
    Phi = add_bias(X)  # (N, m + 1), built once for all the steps
    w = np.zeros(X.shape[1] + 1)
    for k in range(num_iters):
        grad, H = _gradient_and_hessian(Phi, y, w, l2)  # (m + 1,), (m + 1, m + 1): eqs. (2.7), (2.8)
        if np.linalg.cond(H) > 1e12:
            raise ValueError(
                f"the Hessian is singular at Newton step {k + 1} (condition number {np.linalg.cond(H):.2g}); "
                "expected an invertible one. The classes are probably linearly separable, so without "
                "regularization the weights grow without bound: pass l2 > 0 (or check for duplicate features)."
            )
        step = np.linalg.solve(H, grad)  # H⁻¹∇J without an inverse
        w -= step
        if np.max(np.abs(step)) <= 1e-12 * (1.0 + np.max(np.abs(w))):
            break
    return w


def _check_sample_weight(sample_weight, N):
    """Weights v⁽ⁱ⁾ of N examples: a 1-D array of N finite numbers >= 0, not all 0."""
    v = as_finite_array(sample_weight, "sample_weight", ndim=1)
    if v.shape[0] != N:
        raise ValueError(f"sample_weight has {v.shape[0]} entries but X has {N} rows; expected one weight per "
                         "example, e.g. np.where(y == 1, v1, v0) for class weights.")
    negative = np.flatnonzero(v < 0)
    if negative.size:
        raise ValueError(f"sample_weight must hold weights >= 0; received {negative.size} negative one(s), the "
                         f"first sample_weight[{negative[0]}] = {v[negative[0]]:g}. A weight says how many times an "
                         "example counts: use 0 to leave an example out.")
    if not v.sum() > 0:
        raise ValueError("sample_weight is 0 for every example; expected at least one positive weight (with none, "
                         "no example counts). Pass np.ones(N) for the unweighted fit.")
    return v


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
    X, y = check_X_labels(X, y, num_classes=2)
    v = _check_sample_weight(sample_weight, X.shape[0])  # (N,) v⁽ⁱ⁾ >= 0
    l2 = check_nonnegative(l2, "l2")
    num_iters = check_positive_int(num_iters, "num_iters")
    Phi = add_bias(X)  # (N, m + 1)
    N_v = v.sum()  # the weighted number of examples: N when every v⁽ⁱ⁾ = 1
    w = np.zeros(Phi.shape[1])  # (m + 1,)
    for k in range(num_iters):
        p = sigmoid(Phi @ w)  # (N,) p⁽ⁱ⁾ = sigm(z⁽ⁱ⁾)
        grad = Phi.T @ (v * (p - y)) / N_v  # (m + 1,): each error p⁽ⁱ⁾ − y⁽ⁱ⁾ counted v⁽ⁱ⁾ times
        grad[1:] += l2 / N_v * w[1:]
        H = (Phi.T * (v * p * (1.0 - p))) @ Phi / N_v  # (m + 1, m + 1): Φᵀ diag(v) R Φ / N_v
        H[1:, 1:] += l2 / N_v * np.eye(Phi.shape[1] - 1)
        if np.linalg.cond(H) > 1e12:
            raise ValueError(
                f"the Hessian is singular at Newton step {k + 1} (condition number {np.linalg.cond(H):.2g}); "
                "expected an invertible one. The examples with positive weight are probably linearly separable, "
                "so without regularization the weights grow without bound: pass l2 > 0."
            )
        step = np.linalg.solve(H, grad)  # H⁻¹∇J_v without an inverse
        w -= step
        if np.max(np.abs(step)) <= 1e-12 * (1.0 + np.max(np.abs(w))):
            break
    return w
