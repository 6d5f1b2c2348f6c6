"""Appendix A's entropy and KL divergence, SVD functions and Gaussian conditioning, against scipy, NumPy's own
solvers and closed forms."""

import numpy as np
import pytest
from scipy import stats

from implementations.preliminaries.gaussian import condition_gaussian
from implementations.preliminaries.information import cross_entropy, entropy, kl_divergence
from implementations.preliminaries.svd import low_rank_approximation, min_norm_least_squares


def _distribution(rng, K, zeros=0):
    p = rng.dirichlet(np.ones(K))
    p[:zeros] = 0.0
    return p / p.sum()


@pytest.mark.parametrize("seed, K, zeros", [(0, 2, 0), (1, 5, 0), (2, 10, 3)])
def test_entropy_cross_entropy_and_kl_equal_scipys(seed, K, zeros):
    rng = np.random.default_rng(seed)
    p, q = _distribution(rng, K, zeros), _distribution(rng, K)
    np.testing.assert_allclose(entropy(p), stats.entropy(p), rtol=1e-12)
    np.testing.assert_allclose(kl_divergence(p, q), stats.entropy(p, q), rtol=1e-12)
    np.testing.assert_allclose(cross_entropy(p, q), stats.entropy(p) + stats.entropy(p, q), rtol=1e-12)
    np.testing.assert_allclose(kl_divergence(p, q), cross_entropy(p, q) - entropy(p), rtol=1e-9, atol=1e-12)


def test_kl_is_nonnegative_zero_only_at_q_equal_p_and_not_symmetric():
    rng = np.random.default_rng(3)
    pairs = [(_distribution(rng, 6), _distribution(rng, 6)) for _ in range(200)]
    assert min(kl_divergence(p, q) for p, q in pairs) > 0
    p, q = pairs[0]
    assert kl_divergence(p, p) == 0.0
    assert abs(kl_divergence(p, q) - kl_divergence(q, p)) > 1e-3


def test_entropy_closed_forms_and_infinite_kl_off_the_support():
    assert entropy(np.array([1.0, 0.0, 0.0])) == 0.0  # one sure outcome
    np.testing.assert_allclose(entropy(np.full(8, 1 / 8)), np.log(8), rtol=1e-14)  # the uniform: log K
    np.testing.assert_allclose(entropy(np.array([0.5, 0.5])), np.log(2), rtol=1e-14)
    assert kl_divergence(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == np.inf
    assert cross_entropy(np.array([0.5, 0.5]), np.array([1.0, 0.0])) == np.inf
    assert np.isfinite(kl_divergence(np.array([1.0, 0.0]), np.array([0.5, 0.5])))  # q > 0 wherever p > 0


def test_a_sure_outcome_has_entropy_and_cross_entropy_plus_zero_not_minus_zero():
    sure = np.array([1.0, 0.0])
    for value in (entropy(sure), cross_entropy(sure, sure), cross_entropy(np.eye(3)[1], np.eye(3)[1])):
        assert value == 0.0 and not np.signbit(value), value  # −0.0 would print as "-0.0"


def test_information_functions_refuse_bad_distributions_by_name():
    with pytest.raises(ValueError, match="q must sum to 1"):
        kl_divergence(np.array([0.5, 0.5]), np.array([0.5, 0.6]))
    with pytest.raises(ValueError, match=r"p must hold probabilities >= 0; received p\[1\]"):
        entropy(np.array([1.5, -0.5]))
    with pytest.raises(ValueError, match="same outcomes"):
        cross_entropy(np.array([0.5, 0.5]), np.full(3, 1 / 3))


@pytest.mark.parametrize("shape, k", [((8, 5), 1), ((8, 5), 3), ((5, 8), 2), ((6, 6), 6)])
def test_low_rank_approximation_has_rank_k_and_the_eckart_young_error(shape, k):
    X = np.random.default_rng(4).normal(size=shape)
    X_k = low_rank_approximation(X, k)
    d = np.linalg.svd(X, compute_uv=False)
    assert np.linalg.matrix_rank(X_k) == k
    np.testing.assert_allclose(np.linalg.norm(X - X_k), np.sqrt(np.sum(d[k:] ** 2)), atol=1e-12)  # Frobenius
    if k < min(shape):
        np.testing.assert_allclose(np.linalg.norm(X - X_k, 2), d[k], rtol=1e-12)  # spectral norm: d_{k+1}


def test_no_random_rank_k_matrix_is_closer_than_the_truncated_svd():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(10, 6))
    best = np.linalg.norm(X - low_rank_approximation(X, 2))
    for _ in range(200):  # the projection of X onto a random 2-D column space: the best matrix with those columns
        Q, _ = np.linalg.qr(rng.normal(size=(10, 2)))
        assert np.linalg.norm(X - Q @ (Q.T @ X)) > best


@pytest.mark.parametrize("shape", [(20, 4), (4, 20), (10, 10)])
def test_min_norm_least_squares_equals_pinv_and_lstsq(shape):
    rng = np.random.default_rng(6)
    X, y = rng.normal(size=shape), rng.normal(size=shape[0])
    w = min_norm_least_squares(X, y)
    np.testing.assert_allclose(w, np.linalg.pinv(X) @ y, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w, np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-9, atol=1e-12)


def test_min_norm_least_squares_is_the_shortest_minimizer_of_a_rank_deficient_problem():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(12, 3)) @ rng.normal(size=(3, 5))  # (12, 5) of rank 3: a 2-D family of minimizers
    y = rng.normal(size=12)
    w = min_norm_least_squares(X, y)
    null = np.linalg.svd(X)[2][3:].T  # (5, 2): a basis of the null space of X
    np.testing.assert_allclose(X.T @ (X @ w - y), 0, atol=1e-10)  # the normal equations hold
    np.testing.assert_allclose(null.T @ w, 0, atol=1e-12)  # no component along the null space
    other = w + null @ rng.normal(size=2)  # another minimizer
    np.testing.assert_allclose(np.linalg.norm(X @ other - y), np.linalg.norm(X @ w - y), rtol=1e-10)
    assert np.linalg.norm(other) > np.linalg.norm(w)


@pytest.mark.parametrize("seed, D, d", [(0, 2, 1), (1, 4, 2), (2, 5, 1)])
def test_condition_gaussian_is_the_ratio_of_the_joint_and_the_marginal_density(seed, D, d):
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(D, D))
    mu, Sigma = rng.normal(size=D), A @ A.T + 0.5 * np.eye(D)
    x_b = rng.normal(size=d)
    mean, cov = condition_gaussian(mu, Sigma, x_b)
    for x_a in rng.normal(size=(5, D - d)):  # p(x_a | x_b) = p(x_a, x_b) / p(x_b) at five points
        ratio = (stats.multivariate_normal(mu, Sigma).pdf(np.r_[x_a, x_b])
                 / stats.multivariate_normal(mu[D - d:], Sigma[D - d:, D - d:]).pdf(x_b))
        np.testing.assert_allclose(stats.multivariate_normal(mean, cov).pdf(x_a), ratio, rtol=1e-9)


def test_condition_gaussian_of_two_independent_blocks_ignores_the_observation():
    Sigma = np.diag([2.0, 3.0, 0.5])
    mean, cov = condition_gaussian(np.array([1.0, 2.0, 3.0]), Sigma, np.array([10.0]))
    np.testing.assert_allclose(mean, [1.0, 2.0])
    np.testing.assert_allclose(cov, np.diag([2.0, 3.0]))


def test_condition_gaussian_refuses_a_covariance_that_is_not_positive_definite():
    with pytest.raises(ValueError, match="Sigma must be positive definite"):
        condition_gaussian(np.zeros(2), np.array([[1.0, 2.0], [2.0, 1.0]]), np.array([0.0]))
    with pytest.raises(ValueError, match="x_b has 2 entries"):
        condition_gaussian(np.zeros(2), np.eye(2), np.zeros(2))
