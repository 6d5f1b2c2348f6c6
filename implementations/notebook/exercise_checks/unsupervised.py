"""The checks of the exercises of the chapter on learning without labels: one per exercise, named after the reader's
function (an E step, the covariances of an M step, the k-means++ probabilities)."""

import numpy as np

from ...unsupervised import kmeans, mixture
from ..exercises import check_function

__all__ = ["responsibilities", "m_step_covariances", "seeding_probabilities"]


def _covariances(rng, K, m):
    """K random symmetric positive-definite covariances (K, m, m), of spread between about 0.3 and 2."""
    A = rng.normal(size=(K, m, m)) * 0.6  # (K, m, m)
    return A @ A.swapaxes(1, 2) + 0.3 * np.eye(m)


def _mixture_inputs(rng, size):
    """Points around a random mixture of K = 2, 3 or 4 components in m = 1, 2 or 3 dimensions; from input 5 on, the
    last point lies hundreds of spreads away from every component, where every density underflows to 0."""
    N, K, m = size + 2, 2 + size % 3, 1 + size % 3
    weights = rng.dirichlet(np.ones(K))  # (K,)
    means = rng.normal(size=(K, m)) * 2  # (K, m)
    X = means[rng.integers(K, size=N)] + rng.normal(size=(N, m))  # (N, m)
    if size >= 5:
        X[-1] = 1000.0  # squared Mahalanobis distances of about 10⁵ or more: e^(−½ d²) is 0 in float64
    return X, weights, means, _covariances(rng, K, m)


def _responsibilities_reference(X, weights, means, covs):
    return mixture.e_step(X, weights, means, covs)[0]  # (N, K)


def responsibilities(candidate, *, rng):
    """``responsibilities(X, weights, means, covs)`` against ``mixture.e_step``: the posterior rᵢₖ of each component.

    From input 5 on, one point lies far from every component: πₖ N(x | μₖ, Σₖ) underflows to 0 for every k, so the
    ratio of the densities is 0/0; the E step must be computed in log space (log-sum-exp).
    """
    __tracebackhide__ = True
    check_function(candidate, _responsibilities_reference, _mixture_inputs, rng=rng, warnings_as_errors=True)


def _weighted_inputs(rng, size):
    """N >= m + 3 points and soft responsibilities over K = 2 or 3 components, no component with a single point."""
    m, K = 1 + size % 3, 2 + size % 2
    N = size + m + 3
    R = rng.dirichlet(np.full(K, 0.7), size=N)  # (N, K): each row a distribution
    return rng.normal(size=(N, m)) * rng.uniform(0.5, 2.0, size=m), R


def _m_step_covariances_reference(X, R):
    return mixture.m_step(X, R, reg_covar=0.0)[2]  # (K, m, m)


def m_step_covariances(candidate, *, rng):
    """``m_step_covariances(X, R)`` against ``mixture.m_step`` without regularisation: each component's covariance
    Σₖ = (1/Nₖ) Σᵢ rᵢₖ (x⁽ⁱ⁾ − μₖ)(x⁽ⁱ⁾ − μₖ)ᵀ about its own weighted mean μₖ, with Nₖ = Σᵢ rᵢₖ."""
    __tracebackhide__ = True
    check_function(candidate, _m_step_covariances_reference, _weighted_inputs, rng=rng)


def _seeding_inputs(rng, size):
    """N points in m dimensions and 1, 2 or 3 of them already chosen as centres."""
    N, m, j = size + 3, 1 + size % 3, 1 + size % 3
    X = rng.normal(size=(N, m)) * 2  # (N, m)
    return X, X[rng.choice(N, size=j, replace=False)]  # (N, m), (j, m)


def _seeding_reference(X, centres):
    return kmeans.seeding_probabilities(X, centres)  # (N,)


def seeding_probabilities(candidate, *, rng):
    """``seeding_probabilities(X, centres)`` against ``kmeans.seeding_probabilities``: the k-means++ probability that
    each point becomes the next centre, its squared distance D(x)² to the nearest chosen centre over their sum."""
    __tracebackhide__ = True
    check_function(candidate, _seeding_reference, _seeding_inputs, rng=rng)
