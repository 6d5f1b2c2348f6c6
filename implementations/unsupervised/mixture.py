"""Gaussian mixtures fitted by EM, the lower bound that EM maximises and its gap, sampling, BIC.

A mixture of K Gaussians draws a component z = k with probability πₖ, then x ~ N(μₖ, Σₖ), so that
p(x) = Σₖ πₖ N(x | μₖ, Σₖ). EM alternates the E step, the posterior responsibilities rᵢₖ = p(z = k | x⁽ⁱ⁾), and the M
step, weighted means and covariances; without regularisation (``reg_covar=0``) the log-likelihood never falls. For
any distributions qᵢ over the components, log p(x⁽ⁱ⁾) = ELBO + KL(qᵢ ‖ p(z | x⁽ⁱ⁾)): the E step closes the gap, the
M step raises the bound.
"""

import numpy as np

from .._contract import checked
from ._checks import (
    distributions_for_data,
    likelihood_fell,
    mixture_fits_data,
    mixture_parameters,
    refuse_collapse,
    responsibilities_for_data,
    spd_covariances,
)

__all__ = ["gaussian_log_density", "e_step", "m_step", "log_likelihood", "elbo", "posterior_kl", "fit_gmm",
           "sample_gmm", "num_parameters", "bic"]


@checked(X="array (N, m)", means="array (K, m)", covs="array (K, m, m)", also=spd_covariances)
def gaussian_log_density(X, means, covs):
    """log N(x⁽ⁱ⁾ | μₖ, Σₖ) = −½ (m log 2π + log det Σₖ + (x − μₖ)ᵀ Σₖ⁻¹ (x − μₖ)) for all i and k, eq. (8.14).

    With the Cholesky factor Σₖ = GGᵀ, the quadratic form is ‖G⁻¹(x − μₖ)‖² and log det Σₖ = 2 Σⱼ log Gⱼⱼ: no inverse
    and no determinant, which would overflow in many dimensions.

    Parameters
    ----------
    X : array_like of shape (N, m)
    means : array_like of shape (K, m)
    covs : array_like of shape (K, m, m)
        Symmetric positive-definite covariances.

    Returns
    -------
    log_densities : ndarray of shape (N, K)
    """
    G = np.linalg.cholesky(covs)  # Σₖ = GₖGₖᵀ: (K, m, m)
    diff = X[None, :, :] - means[:, None, :]  # x − μₖ: (K, N, m)
    y = np.linalg.solve(G, diff.swapaxes(1, 2))  # Gₖ⁻¹(x − μₖ): (K, m, N)
    quad = (y**2).sum(axis=1)  # (x − μₖ)ᵀ Σₖ⁻¹ (x − μₖ): (K, N)
    log_det = 2 * np.log(np.diagonal(G, axis1=1, axis2=2)).sum(axis=1)  # log det Σₖ: (K,)
    m = X.shape[1]
    return -0.5 * (m * np.log(2 * np.pi) + log_det[:, None] + quad).T  # (N, K)


@checked(X="array (N, m)", weights="array (K,)", means="array (K, m)", covs="array (K, m, m)",
         also=mixture_parameters)
def e_step(X, weights, means, covs):
    """The E step: responsibilities rᵢₖ = πₖ N(x⁽ⁱ⁾ | μₖ, Σₖ) / Σⱼ πⱼ N(x⁽ⁱ⁾ | μⱼ, Σⱼ), in log space, eq. (8.15).

    The densities themselves underflow to 0 far from every component (a density of e⁻⁸⁰⁰); their logarithms do not.
    The denominator is log p(x⁽ⁱ⁾) = logsumexpₖ(log πₖ + log N(x⁽ⁱ⁾ | μₖ, Σₖ)), computed by factoring out the largest
    term.

    Parameters
    ----------
    X : array_like of shape (N, m)
    weights : array_like of shape (K,)
        πₖ > 0, summing to 1.
    means : array_like of shape (K, m)
    covs : array_like of shape (K, m, m)

    Returns
    -------
    R : ndarray of shape (N, K)
        rᵢₖ = p(z = k | x⁽ⁱ⁾); each row sums to 1.
    log_px : ndarray of shape (N,)
        log p(x⁽ⁱ⁾) under the mixture.
    """
    log_joint = np.log(weights) + gaussian_log_density(X, means, covs)  # log πₖ + log N(x⁽ⁱ⁾ | k): (N, K)
    top = log_joint.max(axis=1, keepdims=True)  # (N, 1)
    log_px = top[:, 0] + np.log(np.exp(log_joint - top).sum(axis=1))  # logsumexp over k: (N,)
    R = np.exp(log_joint - log_px[:, None])  # (N, K)
    return R, log_px


@checked(X="array (N, m)", R="array (N, K)", reg_covar="penalty", also=responsibilities_for_data)
def m_step(X, R, reg_covar=1e-6):
    """The M step: the weights, means and covariances that maximise the expected complete log-likelihood, eq. (8.16).

    With Nₖ = Σᵢ rᵢₖ (plus 10ε, as in scikit-learn, so that a component without points divides by no 0):
    πₖ = Nₖ / N, μₖ = (1/Nₖ) Σᵢ rᵢₖ x⁽ⁱ⁾ and Σₖ = (1/Nₖ) Σᵢ rᵢₖ (x⁽ⁱ⁾ − μₖ)(x⁽ⁱ⁾ − μₖ)ᵀ + reg_covar·I.

    **reg_covar** is the regularisation that prevents collapse. The likelihood of a mixture has no maximum: a
    component centred on one point whose covariance shrinks has a density, and a likelihood, that grows without
    bound. Adding reg_covar to every variance (scikit-learn's default is 10⁻⁶) keeps each Σₖ at least reg_covar·I.
    It is an ad-hoc ridge on the covariance, not the maximum a posteriori estimate under any fixed prior (under an
    inverse-Wishart prior that estimate is (Sₖ + Ψ) / (Nₖ + ν + m + 2), with the scatter matrix
    Sₖ = Σᵢ rᵢₖ (x⁽ⁱ⁾ − μₖ)(x⁽ⁱ⁾ − μₖ)ᵀ, which shrinks as well as adds): with reg_covar > 0 the M step no longer
    maximises the bound, and the log-likelihood can fall from one iteration to the next. It never falls with
    reg_covar = 0; with a tiny reg_covar, in practice, it does not either.

    Parameters
    ----------
    X : array_like of shape (N, m)
    R : array_like of shape (N, K), K <= N
        Responsibilities: each row a distribution over the components.
    reg_covar : float, default 1e-6
        >= 0, added to the diagonal of every covariance.

    Returns
    -------
    weights : ndarray of shape (K,)
    means : ndarray of shape (K, m)
    covs : ndarray of shape (K, m, m)

    Raises
    ------
    ValueError
        If a covariance is singular: a component collapsed onto fewer points than dimensions and reg_covar is 0
        (or too small for the scale of the data).
    """
    Nk = R.sum(axis=0) + 10 * np.finfo(float).eps  # Nₖ = Σᵢ rᵢₖ: (K,)
    weights = Nk / X.shape[0]  # πₖ: (K,)
    means = (R.T @ X) / Nk[:, None]  # μₖ: (K, N) @ (N, m) -> (K, m)
    diff = X[None, :, :] - means[:, None, :]  # x⁽ⁱ⁾ − μₖ: (K, N, m)
    covs = (R.T[:, :, None] * diff).swapaxes(1, 2) @ diff / Nk[:, None, None]  # Σᵢ rᵢₖ (x − μₖ)(x − μₖ)ᵀ / Nₖ
    covs += reg_covar * np.eye(X.shape[1])  # (K, m, m)
    return weights, means, refuse_collapse(covs, reg_covar)


@checked(X="array (N, m)", weights="array (K,)", means="array (K, m)", covs="array (K, m, m)",
         also=mixture_parameters)
def log_likelihood(X, weights, means, covs):
    """The mean log-likelihood (1/N) Σᵢ log p(x⁽ⁱ⁾) of the mixture (scikit-learn's ``score``), eq. (8.14).

    On points held out from fitting, it measures how well the density generalises: the criterion for choosing the
    number of components that does not reward overfitting.

    Parameters
    ----------
    X : array_like of shape (N, m)
    weights : array_like of shape (K,)
    means : array_like of shape (K, m)
    covs : array_like of shape (K, m, m)

    Returns
    -------
    float
    """
    return float(e_step(X, weights, means, covs)[1].mean())  # (1/N) Σᵢ log p(x⁽ⁱ⁾)


@checked(X="array (N, m)", q="array (N, K)", weights="array (K,)", means="array (K, m)", covs="array (K, m, m)",
         also=(distributions_for_data, mixture_parameters))
def elbo(X, q, weights, means, covs):
    """The evidence lower bound Σᵢ Σₖ qᵢₖ (log πₖ + log N(x⁽ⁱ⁾ | μₖ, Σₖ) − log qᵢₖ) <= Σᵢ log p(x⁽ⁱ⁾), eq. (8.17).

    By Jensen's inequality, log p(x) = log Σₖ qₖ (p(x, z = k) / qₖ) >= Σₖ qₖ log(p(x, z = k) / qₖ) for any
    distribution q over the components; terms with qᵢₖ = 0 count 0.

    Parameters
    ----------
    X : array_like of shape (N, m)
    q : array_like of shape (N, K)
        One distribution over the components per point (the responsibilities of some parameters, say).
    weights : array_like of shape (K,)
    means : array_like of shape (K, m)
    covs : array_like of shape (K, m, m)

    Returns
    -------
    float
        The bound summed over the points.
    """
    log_joint = np.log(weights) + gaussian_log_density(X, means, covs)  # log p(x⁽ⁱ⁾, z = k): (N, K)
    log_q = np.log(np.where(q > 0, q, 1.0))  # log qᵢₖ, 0 where qᵢₖ = 0: (N, K)
    return float((q * (log_joint - log_q)).sum())


@checked(X="array (N, m)", q="array (N, K)", weights="array (K,)", means="array (K, m)", covs="array (K, m, m)",
         also=(distributions_for_data, mixture_parameters))
def posterior_kl(X, q, weights, means, covs):
    """The gap of the bound: Σᵢ KL(qᵢ ‖ p(z | x⁽ⁱ⁾)) = Σᵢ Σₖ qᵢₖ (log qᵢₖ − log rᵢₖ) >= 0, eq. (8.17).

    log p(x⁽ⁱ⁾) = ELBO + KL exactly (:func:`elbo`), for every q: the KL is 0, and the bound tight, when qᵢ is the
    posterior, the responsibilities of the same parameters.

    Parameters
    ----------
    X : array_like of shape (N, m)
    q : array_like of shape (N, K)
    weights : array_like of shape (K,)
    means : array_like of shape (K, m)
    covs : array_like of shape (K, m, m)

    Returns
    -------
    float
        The KL divergences summed over the points.
    """
    log_joint = np.log(weights) + gaussian_log_density(X, means, covs)  # (N, K)
    top = log_joint.max(axis=1, keepdims=True)  # (N, 1)
    log_r = log_joint - top - np.log(np.exp(log_joint - top).sum(axis=1, keepdims=True))  # log rᵢₖ: (N, K)
    log_q = np.log(np.where(q > 0, q, 1.0))  # (N, K)
    return float((q * (log_q - log_r)).sum())


@checked(X="array (N, m)", weights="array (K,)", means="array (K, m)", covs="array (K, m, m)", reg_covar="penalty",
         max_iter="count", tol="penalty", also=mixture_fits_data)
def fit_gmm(X, weights, means, covs, *, reg_covar=1e-6, max_iter=100, tol=1e-3):
    """EM for a Gaussian mixture with full covariances, from the given parameters, eqs. (8.15) and (8.16).

    Each iteration is an M step on the responsibilities of the current parameters, then an E step. It stops when the
    mean log-likelihood changes by less than ``tol``, or after ``max_iter`` iterations. With ``reg_covar=0`` the
    log-likelihood never falls, since each E step makes the bound tight and each M step raises it: a fall beyond
    round-off is an error. With reg_covar > 0 it can fall (:func:`m_step`); a fall larger than ``tol`` is recorded in
    the history and never taken for convergence.

    A small rise is not convergence either: EM can crawl along a plateau for dozens of iterations, each rising by
    less than 10⁻³, and then climb again. A smaller ``tol`` (with a larger ``max_iter``) tells the two apart.

    Parameters
    ----------
    X : array_like of shape (N, m)
    weights : array_like of shape (K,)
        The starting πₖ, > 0 and summing to 1.
    means : array_like of shape (K, m), K <= N
        The starting μₖ (k-means centres, say).
    covs : array_like of shape (K, m, m)
        The starting Σₖ.
    reg_covar : float, default 1e-6
        Added to the diagonal of every covariance at each M step (:func:`m_step`).
    max_iter : int, default 100
    tol : float, default 1e-3
        The smallest change of the mean log-likelihood that continues (scikit-learn's default).

    Returns
    -------
    weights : ndarray of shape (K,)
    means : ndarray of shape (K, m)
    covs : ndarray of shape (K, m, m)
    log_likelihoods : ndarray of shape (T + 1,)
        The mean log-likelihood of the starting parameters and after each of the T iterations.

    Raises
    ------
    RuntimeError
        If, with reg_covar = 0, the log-likelihood falls by more than round-off: EM cannot do that, so the
        computation went wrong (a covariance near singular, say).
    """
    R, log_px = e_step(X, weights, means, covs)  # (N, K), (N,)
    history = [log_px.mean()]
    for _ in range(max_iter):
        weights, means, covs = m_step(X, R, reg_covar)  # (K,), (K, m), (K, m, m)
        R, log_px = e_step(X, weights, means, covs)
        history.append(log_px.mean())
        change = history[-1] - history[-2]
        if reg_covar == 0 and change < -1e-10 * (1 + abs(history[-2])):  # beyond round-off
            raise likelihood_fell(len(history) - 1, history[-2], history[-1])
        if abs(change) < tol:
            break
    return weights, means, covs, np.array(history)


@checked(weights="array (K,)", means="array (K, m)", covs="array (K, m, m)", n="count", rng="rng",
         also=mixture_parameters)
def sample_gmm(weights, means, covs, n, rng):
    """n draws from the mixture, eq. (8.14), by ancestral sampling: z ~ Cat(π), then x = μ_z + G_z ε, ε ~ N(0, I).

    Parameters
    ----------
    weights : array_like of shape (K,)
    means : array_like of shape (K, m)
    covs : array_like of shape (K, m, m)
    n : int
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n, m)
    z : ndarray of shape (n,)
        The component of each draw (int64).
    """
    z = rng.choice(weights.shape[0], size=n, p=weights)  # (n,)
    G = np.linalg.cholesky(covs)  # Σₖ = GₖGₖᵀ: (K, m, m)
    eps = rng.standard_normal((n, means.shape[1]))  # (n, m)
    X = means[z] + np.einsum("nij,nj->ni", G[z], eps)  # μ_z + G_z ε: (n, m)
    return X, z


@checked(K="count", m="count")
def num_parameters(K, m):
    """The free parameters of a mixture of K full-covariance Gaussians in m dimensions, eq. (8.18).

    K − 1 weights (they sum to 1), K m mean coordinates and K m(m + 1)/2 covariance entries (symmetric).

    Parameters
    ----------
    K : int
    m : int

    Returns
    -------
    int
    """
    return (K - 1) + K * m + K * m * (m + 1) // 2


@checked(X="array (N, m)", weights="array (K,)", means="array (K, m)", covs="array (K, m, m)",
         also=mixture_parameters)
def bic(X, weights, means, covs):
    """The Bayesian information criterion −2 Σᵢ log p(x⁽ⁱ⁾) + p log N, lower is better (Schwarz), eq. (8.18).

    p is :func:`num_parameters`: the penalty grows with the parameters, so that a mixture with more components must
    raise the likelihood enough to pay for them.

    Parameters
    ----------
    X : array_like of shape (N, m)
        The data the mixture was fitted to.
    weights : array_like of shape (K,)
    means : array_like of shape (K, m)
    covs : array_like of shape (K, m, m)

    Returns
    -------
    float
    """
    N, m = X.shape
    total = e_step(X, weights, means, covs)[1].sum()  # Σᵢ log p(x⁽ⁱ⁾)
    return float(-2 * total + num_parameters(means.shape[0], m) * np.log(N))
