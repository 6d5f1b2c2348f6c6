"""Softmax regression: K classes, one weight vector per class, the categorical cross-entropy.

Conventions:

* ``X`` has shape (N, m), without a bias column; ``Phi = add_bias(X)`` has shape (N, m + 1);
* ``W`` has shape (m + 1, K): column k holds the weights w_k of class k, row 0 the K biases;
* ``y`` holds integer class labels 0, …, K − 1.
"""


import numpy as np

from .._contract import checked
from ..numeric import log_softmax, one_hot, softmax
from . import _fused
from ._checks import class_columns, class_count, labels_of_the_classes
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


@checked(X="array (N, m)", W="array (m + 1, K)", y="labels (N,)", l2="penalty", also=labels_of_the_classes)
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
    N = X.shape[0]
    log_P = log_softmax(add_bias(X) @ W)  # (N, K): log p⁽ⁱ⁾_k from the logits
    return float(-log_P[np.arange(N), y].mean() + 0.5 * l2 / N * np.sum(W[1:] ** 2))


@checked(X="array (N, m)", W="array (m + 1, K)", y="labels (N,)", l2="penalty", also=labels_of_the_classes)
def softmax_gradient(X, y, W, *, l2=0.0):
    """Gradient of :func:`softmax_cost`, ∇_W J = (1/N) Φᵀ(P − Y) + (λ/N) I′W, eq. (2.15).

    P holds the predicted probabilities and Y the one-hot targets (:func:`~implementations.numeric.one_hot`); column
    k is the logistic gradient of eq. (2.7) with class k against the rest.

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
    Phi, N = add_bias(X), X.shape[0]  # (N, m + 1)
    error = softmax(Phi @ W) - one_hot(y, W.shape[1])  # (N, K): P − Y
    grad = Phi.T @ error / N  # (m + 1, K)
    grad[1:] += l2 / N * W[1:]  # (λ/N) I′W: no penalty on the biases
    return grad


@checked(num_classes=class_count, X="array (N, m)", y="labels (N,) < num_classes", eta="rate", num_iters="count",
         l2="penalty")
def fit_softmax(X, y, *, num_classes, eta, num_iters, l2=0.0):
    """Batch gradient descent W ← W − η ∇_W J on the softmax cost, from W = 0.

    Each update needs :func:`softmax_cost` and :func:`softmax_gradient` at the same weights; a fused kernel computes
    both from one product ΦW, on Φ and the one-hot targets built once (they agree to round-off, as
    ``tests/test_softmax.py`` checks).

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
    W = np.zeros((X.shape[1] + 1, num_classes))  # (m + 1, K)
    Phi, Y = add_bias(X), one_hot(y, num_classes)  # (N, m + 1), (N, K): built once for all the updates
    return descend(lambda V: _fused.softmax_cost_and_gradient(Phi, Y, V, l2), W, eta=eta, num_iters=num_iters)


@checked(X="array (N, m)", W="array (m + 1, K)", also=class_columns)
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
    return softmax(add_bias(X) @ W, axis=1)  # (N, K)


@checked(X="array (N, m)", W="array (m + 1, K)", also=class_columns)
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
    return np.argmax(add_bias(X) @ W, axis=1).astype(np.int64)  # (N,)
