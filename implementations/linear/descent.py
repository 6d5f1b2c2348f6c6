"""The batch gradient-descent loop shared by the linear, logistic and softmax models."""

import numpy as np

from .._contract import checked
from ._checks import stop_if_cost_rose

__all__ = ["descend"]


@checked(cost_and_gradient="function", w="array (P,)", eta="rate", num_iters="count", tol="penalty?")
def descend(cost_and_gradient, w, *, eta, num_iters, tol=None):
    """Repeat w ← w − η ∇J(w), refusing any update that raises a convex cost.

    Parameters
    ----------
    cost_and_gradient : callable
        w -> (J(w), ∇J(w)): the cost as a float and its gradient, an array of the shape of ``w``. One call gives
        both because they share their expensive part (the residuals or the logits).
    w : ndarray
        Starting weights, updated in place (pass a copy).
    eta : float
        Learning rate η > 0.
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
    cost_prev, grad = cost_and_gradient(w)
    cost_history = np.empty(num_iters)
    for k in range(num_iters):
        w -= eta * grad
        cost, grad = cost_and_gradient(w)
        stop_if_cost_rose(cost, cost_prev, update=k + 1, eta=eta)  # a convex cost never rises for a small η
        cost_history[k] = cost
        if tol is not None and cost_prev - cost <= tol * cost_prev:
            return w, cost_history[: k + 1]
        cost_prev = cost
    return w, cost_history
