"""The fast path of the gradient-descent fits of chapter 2: a cost and its gradient from one pass over the logits.

:func:`~implementations.linear.logistic.fit_logistic` and :func:`~implementations.linear.softmax_regression.fit_softmax`
run thousands of updates, each of which needs the cost and its gradient at the same weights. The taught functions
compute each on its own from the raw features (``logistic_cost`` and ``logistic_gradient``, ``softmax_cost`` and
``softmax_gradient``), building Φ and the logits twice per update. The kernels below take Φ (and the one-hot targets)
built once by the fit and compute the logits once for both; they are the same formulas, and the tests check that they
agree with the taught pairs to round-off (``tests/test_logistic.py``, ``tests/test_softmax.py``).
"""

import numpy as np

from ..numeric import log_softmax, sigmoid, softmax, softplus


def logistic_cost_and_gradient(Phi, y, w, l2):
    """``logistic_cost`` and ``logistic_gradient`` at once, on Φ (N, m + 1) and labels y (N,) as floats: (J, ∇J).

    The formulas of eqs. (2.6), (2.7) and (2.11), with the logits z = Φw computed once.
    """
    N = Phi.shape[0]
    z = Phi @ w  # (N,) logits, once for both
    J = float(np.mean(softplus(z) - y * z) + 0.5 * l2 / N * (w[1:] @ w[1:]))
    grad = Phi.T @ (sigmoid(z) - y) / N  # (m + 1,)
    grad[1:] += l2 / N * w[1:]
    return J, grad


def softmax_cost_and_gradient(Phi, Y, W, l2):
    """``softmax_cost`` and ``softmax_gradient`` at once, on Φ (N, m + 1) and one-hot targets Y (N, K): (J, ∇_W J).

    The formulas of eqs. (2.14) and (2.15), with the logits Z = ΦW computed once.
    """
    N = Phi.shape[0]
    Z = Phi @ W  # (N, K) logits, once for both
    J = float(-np.vdot(log_softmax(Z), Y) / N + 0.5 * l2 / N * np.vdot(W[1:], W[1:]))  # Σᵢ log p of each own class
    grad = Phi.T @ (softmax(Z) - Y) / N  # (m + 1, K)
    grad[1:] += l2 / N * W[1:]
    return J, grad
