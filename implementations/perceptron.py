"""The perceptron of Rosenblatt (1958): a linear classifier trained one mistake at a time.

Same conventions as :mod:`implementations.logistic`: ``w[0]`` is the bias and labels are 0 or 1.
"""

import numpy as np

from ._validation import check_positive, check_positive_int, check_rng, check_X_labels
from .regression import add_bias

__all__ = ["perceptron"]


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
    X, y = check_X_labels(X, y, num_classes=2)
    epochs = check_positive_int(epochs, "epochs")
    eta = check_positive(eta, "eta")
    if rng is not None:
        rng = check_rng(rng)
    Phi = add_bias(X)  # (N, m + 1)
    N = Phi.shape[0]
    w = np.zeros(Phi.shape[1])  # (m + 1,)
    mistakes_per_epoch = []
    for epoch in range(epochs):
        order = np.arange(N) if rng is None else rng.permutation(N)
        mistakes = 0
        for phi_i, y_i in zip(Phi[order], y[order].tolist(), strict=True):  # rows φ⁽ⁱ⁾ (m + 1,), labels as ints
            y_hat = 1 if phi_i @ w >= 0 else 0
            if y_hat != y_i:
                w += eta * (y_i - y_hat) * phi_i  # eq. (2.10)
                mistakes += 1
        if not np.isfinite(w).all():  # η only rescales w, so this is overflow, not a too-large step
            raise ValueError(
                f"the perceptron's weights overflowed in epoch {epoch + 1}: the learning rate eta={eta:g} is too "
                "large. Starting from w = 0, eta only rescales the weights; use the default eta=1.0."
            )
        mistakes_per_epoch.append(mistakes)
        if mistakes == 0:
            break
    return w, np.array(mistakes_per_epoch, dtype=np.int64)
