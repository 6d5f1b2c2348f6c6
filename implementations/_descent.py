"""The batch gradient-descent loop shared by the linear, logistic and softmax models."""

import numpy as np


def descend(cost, gradient, w, *, eta, num_iters, tol=None):
    """Repeat w ← w − η ∇J(w), refusing any update that raises a convex cost.

    Parameters
    ----------
    cost, gradient : callable
        J(w) -> float and ∇J(w) -> array of the shape of ``w``.
    w : ndarray
        Starting weights, updated in place (pass a copy).
    eta : float
        Learning rate η > 0, already validated.
    num_iters : int
        Maximum number of updates.
    tol : float or None
        Stop once an update lowers the cost by less than ``tol`` times its value.

    Returns
    -------
    w : ndarray
    cost_history : ndarray of shape (num_iters,), or shorter if ``tol`` stopped the run
        Entry k is the cost after update k + 1.

    Raises
    ------
    ValueError
        If the cost becomes non-finite or grows: for a convex, smooth cost a small enough step never
        increases it, so the learning rate is too large.
    """
    cost_prev = cost(w)
    cost_history = []
    for k in range(num_iters):
        w -= eta * gradient(w)
        value = cost(w)
        if not np.isfinite(value) or value > cost_prev * (1 + 1e-9) + 1e-300:
            raise ValueError(
                f"gradient descent diverged at update {k + 1}: the cost rose from {cost_prev:.4g} to "
                f"{value:.4g}. The learning rate eta={eta:g} is too large; try eta={eta / 10:g} "
                "or standardize the features."
            )
        cost_history.append(value)
        if tol is not None and cost_prev - value <= tol * cost_prev:
            break
        cost_prev = value
    return w, np.array(cost_history)
