"""Softmax regression: K classes, one weight vector per class, the categorical cross-entropy.

Conventions:

* ``X`` has shape (N, m), without a bias column; ``Phi = add_bias(X)`` has shape (N, m + 1);
* ``W`` has shape (m + 1, K): column k holds the weights w_k of class k, row 0 the K biases;
* ``y`` holds integer class labels 0, …, K − 1.
"""


import numpy as np

from .._validation import (
    as_finite_array,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_X,
    check_X_labels,
)
from ..numeric import log_softmax, one_hot, softmax
from .descent import descend
from .regression import add_bias

__all__ = [
    "softmax",
    "one_hot",
    "softmax_cost",
    "softmax_gradient",
    "fit_softmax",
    "softmax_predict_proba",
    "softmax_predict",
]


def _check_W(W, num_features):
    """Validate a weight matrix of shape (num_features + 1, K) with K >= 2."""
    W = as_finite_array(W, "W", ndim=2)
    if W.shape[0] != num_features + 1 or W.shape[1] < 2:
        raise ValueError(
            f"W has shape {W.shape} but X has {num_features} feature(s); expected ({num_features + 1}, K) "
            "with K >= 2 classes: row 0 holds the biases, column k the weights of class k."
        )
    return W


def _setup(X, y, W, l2):
    X = check_X(X)
    W = _check_W(W, X.shape[1])
    X, y = check_X_labels(X, y, num_classes=W.shape[1])
    l2 = check_nonnegative(l2, "l2")
    Phi = add_bias(X)  # (N, m + 1)
    return X, y, W, l2, Phi, Phi @ W  # Z: (N, K)


def softmax_cost(X, y, W, *, l2=0.0):
    """Mean categorical cross-entropy, eq. (2.14), plus (λ / 2N) Σ_{j≥1} Σ_k W_jk².

    J(W) = −(1/N) Σᵢ log softmax(Wᵀφ⁽ⁱ⁾)_{y⁽ⁱ⁾}, computed from the logits with log-sum-exp, so a
    confident mistake costs about the size of its logit gap instead of ``inf``. Row 0 of W (the
    biases) is not penalized.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Labels 0, …, K − 1.
    W : array_like of shape (m + 1, K)
    l2 : float, default 0.0

    Returns
    -------
    J : float
    """
    X, y, W, l2, Phi, Z = _setup(X, y, W, l2)
    N = X.shape[0]
    log_P = log_softmax(Z)  # (N, K)
    return float(-log_P[np.arange(N), y].mean() + 0.5 * l2 / N * np.sum(W[1:] ** 2))


def softmax_gradient(X, y, W, *, l2=0.0):
    """Gradient of :func:`softmax_cost`, ∇_W J = (1/N) Φᵀ(P − Y) + (λ/N) I′W, eq. (2.15).

    P holds the predicted probabilities and Y the one-hot targets (:func:`~implementations.numeric.one_hot`); column
    k is the logistic
    gradient of eq. (2.7) with class k against the rest.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    W : array_like of shape (m + 1, K)
    l2 : float, default 0.0

    Returns
    -------
    grad : ndarray of shape (m + 1, K)
    """
    X, y, W, l2, Phi, Z = _setup(X, y, W, l2)
    N, K = X.shape[0], W.shape[1]
    error = softmax(Z) - one_hot(y, K)  # (N, K): P − Y
    grad = Phi.T @ error / N  # (m + 1, K)
    grad[1:] += l2 / N * W[1:]
    return grad


def _cost_and_gradient(Phi, Y, W, l2):
    """:func:`softmax_cost` and :func:`softmax_gradient` at once, on checked inputs: one step of the descent.

    Both come from the same shifted logits and their exponentials: log P = shifted − log Σ_k e^shifted and
    P = e^shifted / Σ_k e^shifted.

    Parameters
    ----------
    Phi : ndarray of shape (N, m + 1)
        Design matrix, bias column first.
    Y : ndarray of shape (N, K)
        One-hot targets, :func:`~implementations.numeric.one_hot`.
    W : ndarray of shape (m + 1, K)
    l2 : float

    Returns
    -------
    J : float
    grad : ndarray of shape (m + 1, K)
    """
    N = Phi.shape[0]
    Z = np.matmul(Phi, W, order="F")  # (N, K) logits, stored class by class: sums over K run fast
    shifted = Z - Z.max(axis=1, keepdims=True)  # (N, K), every entry <= 0
    E = np.exp(shifted)  # (N, K)
    E_sum = E.sum(axis=1, keepdims=True)  # (N, 1)
    log_likelihood = np.vdot(shifted, Y) - np.log(E_sum).sum()  # Σᵢ log P of each example's own class
    J = float(-log_likelihood / N + 0.5 * l2 / N * np.vdot(W[1:], W[1:]))  # eq. (2.14)
    grad = Phi.T @ (E / E_sum - Y) / N  # (m + 1, K): Φᵀ(P − Y) / N, eq. (2.15)
    grad[1:] += l2 / N * W[1:]
    return J, grad


def fit_softmax(X, y, *, num_classes, eta, num_iters, l2=0.0):
    """Batch gradient descent W ← W − η ∇_W J on the softmax cost, from W = 0.

    Parameters
    ----------
    X : array_like of shape (N, m)
        Raw features; standardize them first.
    y : array_like of shape (N,)
        Labels 0, …, K − 1.
    num_classes : int
        K ≥ 2. It is not inferred from ``y``: a class missing from the training labels still gets a column.
    eta : float
        Learning rate η > 0.
    num_iters : int
    l2 : float, default 0.0

    Returns
    -------
    W : ndarray of shape (m + 1, K)
    cost_history : ndarray of shape (num_iters,)
        Entry k is the cost after update k + 1.

    Raises
    ------
    ValueError
        If the cost grows: the learning rate is too large.
    """
    num_classes = check_positive_int(num_classes, "num_classes")
    if num_classes < 2:
        raise ValueError(f"num_classes must be at least 2; received {num_classes}.")
    X, y = check_X_labels(X, y, num_classes=num_classes)
    eta = check_positive(eta, "eta")
    num_iters = check_positive_int(num_iters, "num_iters")
    l2 = check_nonnegative(l2, "l2")
    W = np.zeros((X.shape[1] + 1, num_classes))  # (m + 1, K)

    Phi = add_bias(X)  # (N, m + 1), built once for all the updates
    Y = one_hot(y, num_classes)  # (N, K), built once
    return descend(lambda V: _cost_and_gradient(Phi, Y, V, l2), W, eta=eta, num_iters=num_iters)


def softmax_predict_proba(X, W):
    """Class probabilities P = softmax(ΦW) row by row, eq. (2.13).

    Parameters
    ----------
    X : array_like of shape (N, m)
    W : array_like of shape (m + 1, K)

    Returns
    -------
    P : ndarray of shape (N, K)
        Row i sums to 1.
    """
    X = check_X(X)
    W = _check_W(W, X.shape[1])
    return softmax(add_bias(X) @ W, axis=1)


def softmax_predict(X, W):
    """The most probable class, ŷ = argmax_k (ΦW)_k (the largest logit has the largest probability).

    Parameters
    ----------
    X : array_like of shape (N, m)
    W : array_like of shape (m + 1, K)

    Returns
    -------
    y_hat : ndarray of shape (N,), int64
    """
    X = check_X(X)
    W = _check_W(W, X.shape[1])
    return np.argmax(add_bias(X) @ W, axis=1).astype(np.int64)
