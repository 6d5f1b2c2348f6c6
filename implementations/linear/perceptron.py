"""The perceptron of Rosenblatt (1958): a linear classifier trained one mistake at a time.

Same conventions as :mod:`implementations.linear.logistic`: ``w[0]`` is the bias and labels are 0 or 1.
"""

import numpy as np

from .._contract import checked
from ._checks import nonzero_weights, stop_if_overflowed
from .regression import add_bias

__all__ = ["perceptron", "margin"]


@checked(X="array (N, m)", y="labels (N,) < 2", epochs="count", eta="rate", rng="rng?")
def perceptron(X, y, *, epochs, eta=1.0, rng=None):
    """Train a perceptron with the update w ← w + η (y − ŷ) φ, eq. (2.10).

    The prediction is ŷ = 1 if wᵀφ ≥ 0, else 0. A correct prediction leaves w alone (y − ŷ = 0);
    a mistake adds φ (a missed 1) or subtracts it (a false 1). Training starts from w = 0, so η only
    rescales w and never changes a prediction; it is kept because the algorithm is usually written with it.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Labels 0 or 1.
    epochs : int
        Maximum number of passes over the data. Training stops after the first pass without a
        mistake, since nothing can change after it.
    eta : float, default 1.0
        Learning rate η > 0.
    rng : numpy.random.Generator, optional
        If given, each pass visits the examples in a fresh random order; if None, in the order of X.

    Returns
    -------
    w : ndarray of shape (m + 1,)
    mistakes_per_epoch : ndarray of shape (E,), int64
        Updates made in each pass, E ≤ ``epochs``; it ends with 0 exactly when the data were separated.

    Raises
    ------
    ValueError
        If the weights overflow to ±inf, which only an η near the largest float can cause.
    """
    Phi, N = add_bias(X), X.shape[0]  # (N, m + 1)
    w = np.zeros(Phi.shape[1])  # (m + 1,)
    mistakes_per_epoch = []
    for epoch in range(epochs):
        order = np.arange(N) if rng is None else rng.permutation(N)
        Phi_e, y_e = Phi[order], y[order]  # (N, m + 1), (N,): the examples in this epoch's order
        mistakes, start = 0, 0
        while start < N:
            # w only changes at a mistake, so one product predicts every example still to visit; the first
            # wrong one is where the one-at-a-time loop of the algorithm would update next.
            y_hat = (Phi_e[start:] @ w >= 0).astype(np.int64)  # (N − start,) ŷ = 1 if wᵀφ ≥ 0
            wrong = np.flatnonzero(y_hat != y_e[start:])
            if wrong.size == 0:
                break
            i = start + wrong[0]  # the next mistake, in visiting order
            w += eta * (y_e[i] - y_hat[wrong[0]]) * Phi_e[i]  # eq. (2.10)
            mistakes += 1
            start = i + 1
        stop_if_overflowed(w, epoch=epoch + 1, eta=eta)  # η only rescales w: only overflow makes it infinite
        mistakes_per_epoch.append(mistakes)
        if mistakes == 0:
            break
    return w, np.array(mistakes_per_epoch, dtype=np.int64)


@checked(X="array (N, m)", y="labels (N,) < 2", w="array (m + 1,)", also=nonzero_weights)
def margin(X, y, w):
    """The margin γ of the hyperplane wᵀφ = 0: how far the worst-placed example is on its correct side.

    γ = min_i (2y⁽ⁱ⁾ − 1) wᵀφ⁽ⁱ⁾ / ‖w‖, with φ⁽ⁱ⁾ = (1, x⁽ⁱ⁾) and the norm taken over all of w, bias
    included: the γ of the perceptron convergence theorem (section "The perceptron", after eq. (2.10)), which
    bounds the mistakes of :func:`perceptron` by (r/γ)² with r = max_i ‖φ⁽ⁱ⁾‖. It is the smallest distance
    from an example's φ⁽ⁱ⁾ to the hyperplane through the origin of feature space with normal w, signed
    positive on the correct side; rescaling w does not change it.

    Parameters
    ----------
    X : array_like of shape (N, m)
        Raw features, no bias column.
    y : array_like of shape (N,)
        Labels 0 or 1.
    w : array_like of shape (m + 1,)
        ``w[0]`` is the bias; any non-zero vector.

    Returns
    -------
    gamma : float
        Positive exactly when every example is strictly on its correct side (w separates the data);
        zero or negative when some example lies on the hyperplane or on its wrong side.
    """
    signed = (2 * y - 1) * (add_bias(X) @ w)  # (N,) (2y − 1) wᵀφ: positive on the correct side
    return float(signed.min() / np.linalg.norm(w))
