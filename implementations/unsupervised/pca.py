"""Principal component analysis from the SVD of the centred data, and probabilistic PCA.

With the appendix's conventions, the centred data X − 1μᵀ = U D Vᵀ (N, m): the rows vⱼᵀ of Vᵀ are the principal
directions, d₁ ≥ d₂ ≥ … the singular values, and dⱼ² / (N − 1) the variance of the data along vⱼ. Keeping the first
k directions gives the codes z = V_kᵀ(x − μ) and the reconstructions x̂ = μ + V_k z, the best rank-k approximation of
the centred data (Eckart–Young).
"""

import numpy as np

from .._contract import checked
from ._checks import at_least_two_points, components_match, no_discarded_variance, ppca_components, variance_to_explain
from .mixture import gaussian_log_density

__all__ = ["pca", "explained_variance", "project", "reconstruct", "reconstruction_error", "whiten", "fit_ppca",
           "ppca_log_likelihood"]


@checked(X="array (N, m)", also=at_least_two_points)
def pca(X):
    """The principal directions of X from the SVD of the centred data, X − 1μᵀ = U D Vᵀ, eq. (8.1).

    Each direction's sign is fixed so that its entry of largest magnitude is positive: the SVD determines vⱼ only up
    to sign, and a fixed choice gives the same plots on every machine.

    Parameters
    ----------
    X : array_like of shape (N, m), N >= 2

    Returns
    -------
    mean : ndarray of shape (m,)
        μ, the mean of the rows of X.
    components : ndarray of shape (r, m), r = min(N, m)
        The principal directions v₁ᵀ, …, v_rᵀ as rows (Vᵀ), orthonormal, by decreasing singular value.
    singular_values : ndarray of shape (r,)
        d₁ ≥ … ≥ d_r ≥ 0.
    """
    mean = X.mean(axis=0)  # μ: (m,)
    U, d, Vt = np.linalg.svd(X - mean, full_matrices=False)  # (N, r), (r,), (r, m)
    rows = np.arange(Vt.shape[0])
    signs = np.sign(Vt[rows, np.abs(Vt).argmax(axis=1)])  # (r,): the sign of each row's largest entry
    return mean, Vt * signs[:, None], d  # (m,), (r, m), (r,)


@checked(singular_values="array (r,)", N="count", also=variance_to_explain)
def explained_variance(singular_values, N):
    """The variance dⱼ² / (N − 1) of the data along each principal direction, and its share of the total, eq. (8.2).

    The shares sum to 1 over all r directions: the total variance is Σⱼ dⱼ² / (N − 1), the trace of the sample
    covariance (scikit-learn's ``explained_variance_`` and ``explained_variance_ratio_`` divide by N − 1 too).

    Parameters
    ----------
    singular_values : array_like of shape (r,)
        d₁ ≥ … ≥ d_r of the centred data, from :func:`pca`; not all 0.
    N : int
        The number of points the data had, N >= 2.

    Returns
    -------
    variance : ndarray of shape (r,)
    ratio : ndarray of shape (r,)
        variance / variance.sum().
    """
    variance = singular_values**2 / (N - 1)  # dⱼ² / (N − 1): (r,)
    return variance, variance / variance.sum()  # (r,), (r,)


@checked(X="array (N, m)", mean="array (m,)", components="array (k, m)")
def project(X, mean, components):
    """The codes z = V_kᵀ(x − μ) of each row x of X on the k principal directions (``components``), eq. (8.3).

    Parameters
    ----------
    X : array_like of shape (N, m)
    mean : array_like of shape (m,)
        μ from :func:`pca`.
    components : array_like of shape (k, m)
        The first k rows of :func:`pca`'s components.

    Returns
    -------
    Z : ndarray of shape (N, k)
    """
    return (X - mean) @ components.T  # (N, m) @ (m, k) -> (N, k)


@checked(Z="array (N, k)", mean="array (m,)", components="array (k, m)")
def reconstruct(Z, mean, components):
    """The reconstructions x̂ = μ + V_k z of codes z (the rows of Z), back in the space of the data, eq. (8.3).

    Parameters
    ----------
    Z : array_like of shape (N, k)
        Codes from :func:`project`.
    mean : array_like of shape (m,)
    components : array_like of shape (k, m)

    Returns
    -------
    X_hat : ndarray of shape (N, m)
    """
    return mean + Z @ components  # μ + Σⱼ zⱼ vⱼᵀ: (N, k) @ (k, m) -> (N, m)


@checked(X="array (N, m)", mean="array (m,)", components="array (k, m)")
def reconstruction_error(X, mean, components):
    """The mean squared reconstruction error (1/N) Σᵢ ‖x⁽ⁱ⁾ − x̂⁽ⁱ⁾‖² with the k principal directions given, eq. (8.4).

    On the data PCA was fitted to, it equals the discarded singular values, Σ_{j > k} dⱼ² / N (Eckart–Young): no
    other k-dimensional affine subspace reconstructs the data better.

    Parameters
    ----------
    X : array_like of shape (N, m)
    mean : array_like of shape (m,)
    components : array_like of shape (k, m)

    Returns
    -------
    float
    """
    X_hat = reconstruct(project(X, mean, components), mean, components)  # (N, m)
    return float(((X - X_hat) ** 2).sum(axis=1).mean())  # (1/N) Σᵢ ‖x⁽ⁱ⁾ − x̂⁽ⁱ⁾‖²


@checked(X="array (N, m)", mean="array (m,)", components="array (k, m)", variance="array (k,)",
         also=components_match)
def whiten(X, mean, components, variance):
    """Whitened codes z / √λ: each code divided by the standard deviation of the data along its direction, eq. (8.5).

    On the data PCA was fitted to, with λ = dⱼ² / (N − 1) from :func:`explained_variance`, the whitened codes have the
    identity as their sample covariance: uncorrelated, each of variance 1 (scikit-learn's ``PCA(whiten=True)``).

    Parameters
    ----------
    X : array_like of shape (N, m)
    mean : array_like of shape (m,)
    components : array_like of shape (k, m)
    variance : array_like of shape (k,)
        The variance of each component, > 0.

    Returns
    -------
    Z_white : ndarray of shape (N, k)
    """
    return project(X, mean, components) / np.sqrt(variance)  # (N, k) / (k,)


@checked(X="array (N, m)", k="count", also=ppca_components)
def fit_ppca(X, k):
    """Maximum-likelihood probabilistic PCA, x = Wz + μ + ε with z ~ N(0, I_k), ε ~ N(0, σ²I), eq. (8.7).

    With λ₁ ≥ … ≥ λ_m the eigenvalues of the maximum-likelihood covariance (1/N) Σᵢ (x⁽ⁱ⁾ − μ)(x⁽ⁱ⁾ − μ)ᵀ =
    ((N − 1)/N) Σ̂, λⱼ = dⱼ² / N (0 beyond the r singular values), the maximum is σ² = (1/(m − k)) Σ_{j > k} λⱼ, the
    mean variance of the discarded directions, and W = V_k (Λ_k − σ²I)^{1/2} with Λ_k = diag(λ₁, …, λ_k) (Tipping and
    Bishop; up to a rotation of the latent space, here the identity). The maximum likelihood divides by N, not N − 1.
    With k = m − 1, WWᵀ + σ²I is that covariance itself: k = m would leave no direction for σ².

    Parameters
    ----------
    X : array_like of shape (N, m), N >= 2
    k : int, 1 <= k < m

    Returns
    -------
    mean : ndarray of shape (m,)
    W : ndarray of shape (m, k)
    sigma2 : float
        σ² > 0.

    Raises
    ------
    ValueError
        If the data lie in a k-dimensional affine subspace, so that σ² = 0 and the model has no density.
    """
    N, m = X.shape
    mean, components, d = pca(X)  # (m,), (r, m), (r,)
    lam = np.zeros(m)
    lam[: d.size] = d**2 / N  # λⱼ, the eigenvalues of ((N − 1)/N) Σ̂: (m,)
    sigma2 = float(lam[k:].mean())  # σ² = (1/(m − k)) Σ_{j > k} λⱼ
    if sigma2 <= np.finfo(float).eps * lam[0]:
        raise no_discarded_variance(k)
    W = components[:k].T * np.sqrt(lam[:k] - sigma2)  # V_k (Λ_k − σ²I)^{1/2}: (m, k)
    return mean, W, sigma2


@checked(X="array (N, m)", mean="array (m,)", W="array (m, k)", sigma2="rate")
def ppca_log_likelihood(X, mean, W, sigma2):
    """The mean log-likelihood (1/N) Σᵢ log N(x⁽ⁱ⁾ | μ, C) of probabilistic PCA, C = WWᵀ + σ²I, eq. (8.6).

    x is Gaussian with mean μ and covariance C, the k directions of W plus isotropic noise; its log-density is
    computed with a Cholesky factor of C. At the maximum of :func:`fit_ppca` it equals
    −½ (m log 2π + Σ_{j ≤ k} log λⱼ + (m − k) log σ² + m).

    Parameters
    ----------
    X : array_like of shape (N, m)
    mean : array_like of shape (m,)
    W : array_like of shape (m, k)
    sigma2 : float
        σ² > 0.

    Returns
    -------
    float
    """
    C = W @ W.T + sigma2 * np.eye(W.shape[0])  # WWᵀ + σ²I: (m, m)
    return float(gaussian_log_density(X, mean[None], C[None])[:, 0].mean())  # one component: (N, 1) -> mean
