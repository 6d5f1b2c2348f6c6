"""The singular value decomposition at work: the best rank-k approximation and minimum-norm least squares."""

import numpy as np

from .._contract import checked
from ._checks import rank_at_most_the_shape

__all__ = ["low_rank_approximation", "min_norm_least_squares"]


@checked(X="array (N, m)", k="count", also=rank_at_most_the_shape)
def low_rank_approximation(X, k):
    """The best rank-k approximation X_k = Σ_{j ≤ k} dⱼ uⱼ vⱼᵀ of X, eq. (A.3), in the Frobenius and spectral norms.

    By the Eckart–Young theorem no matrix of rank k is closer to X: the error ‖X − X_k‖_F is
    sqrt(d²_{k+1} + d²_{k+2} + …), the singular values left out.

    Parameters
    ----------
    X : array_like of shape (N, m)
    k : int, 1 <= k <= min(N, m)

    Returns
    -------
    X_k : ndarray of shape (N, m)
    """
    U, d, Vt = np.linalg.svd(X, full_matrices=False)  # (N, r), (r,), (r, m) with r = min(N, m)
    return (U[:, :k] * d[:k]) @ Vt[:k]  # Σ_{j ≤ k} dⱼ uⱼ vⱼᵀ: (N, m)


@checked(X="array (N, m)", y="array (N,)")
def min_norm_least_squares(X, y):
    """The minimum-norm least-squares solution w = X⁺y = Σ_{dⱼ > 0} (uⱼᵀy / dⱼ) vⱼ, eqs. (3.25) and (A.4).

    Among the w that minimize ‖Xw − y‖ it is the shortest; when X has full column rank it is the only minimizer,
    (XᵀX)⁻¹Xᵀy; with at least as many columns as rows and full row rank it interpolates, Xw = y, and it is the limit
    λ → 0 of ridge regression (chapter 3's double descent). Singular values at or below the round-off level
    max(N, m) · ε · d₁ count as 0: the default cut-off of ``np.linalg.lstsq`` (``rcond=None``) and of
    ``np.linalg.pinv(X, rtol=None)``; ``pinv``'s own default is the fixed 10⁻¹⁵ · d₁.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)

    Returns
    -------
    w : ndarray of shape (m,)
    """
    U, d, Vt = np.linalg.svd(X, full_matrices=False)  # (N, r), (r,), (r, m)
    keep = d > max(X.shape) * np.finfo(float).eps * d[0]  # (r,): the nonzero singular values
    return Vt[keep].T @ ((U[:, keep].T @ y) / d[keep])  # Σ (uⱼᵀy / dⱼ) vⱼ: (m,)
