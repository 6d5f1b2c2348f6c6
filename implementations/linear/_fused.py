"""The fast path of the gradient-descent fits of chapter 2: a cost and its gradient from one pass over the logits.

:func:`~implementations.linear.logistic.fit_logistic` and :func:`~implementations.linear.softmax_regression.fit_softmax`
run thousands of updates, each of which needs the cost and its gradient at the same weights. The taught functions
compute each on its own from the raw features (``logistic_cost`` and ``logistic_gradient``, ``softmax_cost`` and
``softmax_gradient``), building Φ and the logits twice per update. The kernels below take Φ (and the one-hot targets)
built once by the fit and compute the logits once for both; they are the same formulas, and the tests check that they
agree with the taught pairs to round-off (``tests/test_logistic.py``, ``tests/test_softmax.py``).
"""

import numpy as np

from ..numeric import log_sigmoid, log_softmax


def logistic_cost_and_gradient(Phi, y, w, l2):
    """``logistic_cost`` and ``logistic_gradient`` at once, on Φ (N, m + 1) and labels y (N,) as floats: (J, ∇J).

    The formulas of eqs. (2.6), (2.7) and (2.11), from one log-sigmoid of the logits z = Φw. With s = 2y − 1 (±1),
    log(1 + e^z) − y z = −log sigm(s z), the log-probability of each example's own label, and the error is
    p − y = s (sigm(s z) − 1) = s (e^(log sigm(s z)) − 1), which ``expm1`` computes accurately when it is tiny.
    """
    N = Phi.shape[0]
    s = 2.0 * y - 1.0  # (N,): +1 for class 1, −1 for class 0
    log_q = log_sigmoid(s * (Phi @ w))  # (N,): log of the probability given to each example's own label
    J = float(-log_q.sum() / N + 0.5 * l2 / N * (w[1:] @ w[1:]))  # eqs. (2.6) and (2.11)
    grad = Phi.T @ (s * np.expm1(log_q)) / N  # (m + 1,): Φᵀ(p − y) / N, eq. (2.7)
    grad[1:] += l2 / N * w[1:]
    return J, grad


def softmax_cost_and_gradient(Phi, Y, W, l2):
    """``softmax_cost`` and ``softmax_gradient`` at once, on Φ (N, m + 1) and one-hot targets Y (N, K): (J, ∇_W J).

    The formulas of eqs. (2.14) and (2.15), with the logits Z = ΦW computed once.
    """
    N = Phi.shape[0]
    Z = np.matmul(Phi, W, order="F")  # (N, K) logits, once for both, stored class by class: sums over K run fast
    log_P = log_softmax(Z)  # (N, K)
    J = float(-np.vdot(log_P, Y) / N + 0.5 * l2 / N * np.vdot(W[1:], W[1:]))  # −(1/N) Σᵢ log p of each own class
    grad = Phi.T @ (np.exp(log_P) - Y) / N  # (m + 1, K): P = e^(log P), the softmax without a second pass
    grad[1:] += l2 / N * W[1:]
    return J, grad
