"""Basis functions φⱼ that turn one input x into features, eq. (1.3).

Each function maps x of shape (N,) to a matrix of shape (N, M) whose column j is φⱼ(x); the
constant φ₀ = 1 is *not* included, because ``regression.add_bias`` adds it, so the result can be
passed straight to ``regression.predict`` and friends as ``X``.
"""

import numpy as np

from .._validation import as_array, as_finite_array, check_positive, check_positive_int

__all__ = ["polynomial_features", "gaussian_basis", "sigmoid_basis"]


def _as_inputs(x):
    """Accept finite x of shape (N,) or (N, 1), N >= 1; return shape (N,)."""
    x = as_array(x, "x")  # float64; a string or a ragged list is refused by name
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim == 2:
        raise ValueError(f"x must have shape (N,) or (N, 1), one input per example; received shape {x.shape}. "
                         "A basis expands a single input: pass one column, e.g. X[:, 0].")
    return as_finite_array(x, "x", ndim=1, allow_empty=False)


def polynomial_features(x, degree):
    """Powers x, x², …, x^degree: the polynomial basis φⱼ(x) = xʲ, eq. (1.19).

    Parameters
    ----------
    x : array_like of shape (N,)
    degree : int
        Highest power M >= 1.

    Returns
    -------
    features : ndarray of shape (N, degree)
        Column j - 1 holds xʲ.
    """
    x = _as_inputs(x)
    degree = check_positive_int(degree, "degree")
    return x[:, None] ** np.arange(1, degree + 1)  # (N, M)


def gaussian_basis(x, centers, width):
    """Gaussian bumps φⱼ(x) = exp(−(x − cⱼ)² / (2s²)), eq. (1.3).

    Parameters
    ----------
    x : array_like of shape (N,)
    centers : array_like of shape (M,)
        The centres cⱼ.
    width : float
        The common width s > 0.

    Returns
    -------
    features : ndarray of shape (N, M)
    """
    x = _as_inputs(x)
    c = as_finite_array(centers, "centers", ndim=1, allow_empty=False)  # (M,)
    s = check_positive(width, "width")
    return np.exp(-((x[:, None] - c[None, :]) ** 2) / (2 * s**2))  # (N, M)


def sigmoid_basis(x, centers, width):
    """Logistic steps φⱼ(x) = sigm((x − cⱼ) / s) with sigm(a) = 1 / (1 + e^{−a}), eq. (1.3).

    Parameters
    ----------
    x : array_like of shape (N,)
    centers : array_like of shape (M,)
        The centres cⱼ, where each step is at height ½.
    width : float
        The common scale s > 0: the larger, the gentler the step.

    Returns
    -------
    features : ndarray of shape (N, M)
    """
    x = _as_inputs(x)
    c = as_finite_array(centers, "centers", ndim=1, allow_empty=False)  # (M,)
    s = check_positive(width, "width")
    a = (x[:, None] - c[None, :]) / s  # (N, M)
    # sigm(a) = ½(1 + tanh(a/2)): the same function, with no overflow in exp for large |a|.
    return 0.5 * (1.0 + np.tanh(0.5 * a))
