"""Conditioning a multivariate Gaussian on some of its coordinates."""

import numpy as np

from .._contract import checked
from ._checks import covariance, observed_part

__all__ = ["condition_gaussian"]


@checked(mu="array (D,)", Sigma=covariance, x_b="array (d,)", also=observed_part)
def condition_gaussian(mu, Sigma, x_b):
    """Mean and covariance of p(x_a | x_b) for x = (x_a, x_b) ~ N(mu, Sigma), eq. (A.20).

    x_b is the observed last d coordinates. The conditional is Gaussian with mean μ_a + Σ_ab Σ_bb⁻¹ (x_b − μ_b)
    and covariance Σ_aa − Σ_ab Σ_bb⁻¹ Σ_ba, the Schur complement of Σ_bb.

    Parameters
    ----------
    mu : array_like of shape (D,)
    Sigma : array_like of shape (D, D), symmetric positive definite
    x_b : array_like of shape (d,), 1 <= d < D
        The observed values of the last d coordinates.

    Returns
    -------
    mean : ndarray of shape (D − d,)
    cov : ndarray of shape (D − d, D − d)
    """
    a = len(mu) - len(x_b)  # the first a coordinates are unobserved
    S_aa, S_ab, S_bb = Sigma[:a, :a], Sigma[:a, a:], Sigma[a:, a:]  # (a, a), (a, d), (d, d)
    gain = np.linalg.solve(S_bb, S_ab.T).T  # (Σ_bb⁻¹ Σ_ba)ᵀ = Σ_ab Σ_bb⁻¹, Σ_bb being symmetric: (a, d), no inverse
    mean = mu[:a] + gain @ (x_b - mu[a:])  # (a,)
    cov = S_aa - gain @ S_ab.T  # Σ_aa − Σ_ab Σ_bb⁻¹ Σ_ba: (a, a)
    return mean, cov
