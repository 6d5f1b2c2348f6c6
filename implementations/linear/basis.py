"""Basis functions φⱼ that turn one input x into features, eq. (1.3).

Each function maps x of shape (N,) to a matrix of shape (N, M) whose column j is φⱼ(x); the
constant φ₀ = 1 is *not* included, because ``regression.add_bias`` adds it, so the result can be
passed straight to ``regression.predict`` and friends as ``X``.
"""

import numpy as np

from .._contract import checked
from ..numeric import sigmoid
from ._checks import single_input

__all__ = ["polynomial_features", "gaussian_basis", "sigmoid_basis"]


@checked(x=single_input, degree="count")
def polynomial_features(x, degree):
    """Powers x, x², …, x^degree: the polynomial basis φⱼ(x) = xʲ, eq. (1.19).

    Parameters
    ----------
    x : array_like of shape (N,) or (N, 1)
    degree : int
        Highest power M >= 1.

    Returns
    -------
    features : ndarray of shape (N, degree)
        Column j - 1 holds xʲ.
    """
    return x[:, None] ** np.arange(1, degree + 1)  # (N, M)


@checked(x=single_input, centers="array (M,)", width="rate")
def gaussian_basis(x, centers, width):
    """Gaussian bumps φⱼ(x) = exp(−(x − cⱼ)² / (2s²)), eq. (1.3).

    Parameters
    ----------
    x : array_like of shape (N,) or (N, 1)
    centers : array_like of shape (M,)
        The centres cⱼ.
    width : float
        The common width s > 0.

    Returns
    -------
    features : ndarray of shape (N, M)
    """
    return np.exp(-((x[:, None] - centers[None, :]) ** 2) / (2 * width**2))  # (N, M)


@checked(x=single_input, centers="array (M,)", width="rate")
def sigmoid_basis(x, centers, width):
    """Logistic steps φⱼ(x) = sigm((x − cⱼ) / s) with sigm(a) = 1 / (1 + e^{−a}), eq. (1.3).

    Parameters
    ----------
    x : array_like of shape (N,) or (N, 1)
    centers : array_like of shape (M,)
        The centres cⱼ, where each step is at height ½.
    width : float
        The common scale s > 0: the larger, the gentler the step.

    Returns
    -------
    features : ndarray of shape (N, M)
    """
    return sigmoid((x[:, None] - centers[None, :]) / width)  # (N, M)
