"""PCA and probabilistic PCA against scikit-learn and their closed forms.

scikit-learn (test-only) gives the components up to sign, the explained variance and its ratio, the projections and
whitening; the closed forms are Eckart–Young (the reconstruction error is the discarded squared singular values over
N, and no other rank-k approximation does better), whitened codes with the identity as their covariance, and the
probabilistic PCA likelihood, which equals the Gaussian log-density with covariance WWᵀ + σ²I and, at the maximum,
Tipping and Bishop's expression in the eigenvalues.
"""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from implementations.preliminaries import svd
from implementations.unsupervised import pca

sklearn_decomposition = pytest.importorskip("sklearn.decomposition")


def _data(N=60, m=5, seed=0):
    """Correlated Gaussian data with distinct variances along its principal directions, away from the origin."""
    rng = np.random.default_rng(seed)
    A = rng.normal(size=(m, m)) * np.linspace(3.0, 0.3, m)  # (m, m): distinct scales
    return rng.normal(size=(N, m)) @ A.T + rng.normal(size=m) * 5  # (N, m)


@pytest.fixture(params=[(60, 5), (7, 10)], ids=["tall", "wide"])
def X(request):
    return _data(*request.param)


def test_components_match_scikit_learn_up_to_sign(X):
    mean, components, d = pca.pca(X)
    reference = sklearn_decomposition.PCA(svd_solver="full").fit(X)
    r = min(X.shape)
    np.testing.assert_allclose(mean, reference.mean_, atol=1e-12)
    signs = np.sign((components * reference.components_[:r]).sum(axis=1))  # (r,) ±1
    np.testing.assert_allclose(components, reference.components_[:r] * signs[:, None], atol=1e-9)
    np.testing.assert_allclose(d, reference.singular_values_[:r], rtol=1e-10)


def test_explained_variance_and_ratio_match_scikit_learn(X):
    _, _, d = pca.pca(X)
    variance, ratio = pca.explained_variance(d, X.shape[0])
    reference = sklearn_decomposition.PCA(svd_solver="full").fit(X)
    np.testing.assert_allclose(variance, reference.explained_variance_, rtol=1e-10)
    np.testing.assert_allclose(ratio, reference.explained_variance_ratio_, rtol=1e-10)
    np.testing.assert_allclose(variance.sum(), np.var(X, axis=0, ddof=1).sum(), rtol=1e-10)  # the total variance


def test_projection_and_reconstruction_match_scikit_learn(X):
    mean, components, _ = pca.pca(X)
    reference = sklearn_decomposition.PCA(n_components=3, svd_solver="full").fit(X)
    Z = pca.project(X, mean, components[:3])
    signs = np.sign((components[:3] * reference.components_).sum(axis=1))  # (3,)
    np.testing.assert_allclose(Z, reference.transform(X) * signs, atol=1e-9)
    np.testing.assert_allclose(pca.reconstruct(Z, mean, components[:3]), reference.inverse_transform(
        reference.transform(X)), atol=1e-9)


def test_whitening_matches_scikit_learn_and_has_the_identity_as_its_covariance(X):
    mean, components, d = pca.pca(X)
    variance = pca.explained_variance(d, X.shape[0])[0]
    k = min(X.shape) - 1 if X.shape[0] <= X.shape[1] else 3  # the wide data have N − 1 nonzero variances
    Z = pca.whiten(X, mean, components[:k], variance[:k])
    np.testing.assert_allclose(np.cov(Z, rowvar=False), np.eye(k), atol=1e-9)
    reference = sklearn_decomposition.PCA(n_components=k, whiten=True, svd_solver="full").fit(X)
    signs = np.sign((components[:k] * reference.components_).sum(axis=1))
    np.testing.assert_allclose(Z, reference.transform(X) * signs, atol=1e-8)


def test_the_sign_convention_makes_each_largest_entry_positive(X):
    _, components, _ = pca.pca(X)
    rows = np.arange(components.shape[0])
    assert (components[rows, np.abs(components).argmax(axis=1)] > 0).all()
    np.testing.assert_allclose(components @ components.T, np.eye(components.shape[0]), atol=1e-12)


def test_reconstruction_error_is_the_discarded_singular_values_eckart_young(X):
    mean, components, d = pca.pca(X)
    N = X.shape[0]
    for k in range(1, len(d) + 1):
        error = pca.reconstruction_error(X, mean, components[:k])
        assert error == pytest.approx((d[k:] ** 2).sum() / N, rel=1e-9, abs=1e-12 * (d**2).sum() / N)
        if k < len(d):  # the best rank-k approximation of the centred data is the same matrix
            best = svd.low_rank_approximation(X - mean, k)
            assert ((X - mean - best) ** 2).sum() / N == pytest.approx(error, rel=1e-9)


def test_no_other_subspace_reconstructs_better():
    """Eckart–Young: random k-dimensional subspaces (orthonormal bases) all reconstruct worse than the first k
    principal directions; a wrong sign convention or a mix-up of rows and columns would not."""
    X = _data()
    mean, components, _ = pca.pca(X)
    rng = np.random.default_rng(1)
    best = pca.reconstruction_error(X, mean, components[:2])
    for _ in range(50):
        basis = np.linalg.qr(rng.normal(size=(X.shape[1], 2)))[0].T  # (2, m), orthonormal rows
        assert pca.reconstruction_error(X, mean, basis) > best
    assert pca.reconstruction_error(X, mean, components[-2:]) > best  # the last directions are the worst


def test_ppca_log_likelihood_is_the_gaussian_log_density_with_covariance_W_W_T_plus_sigma2():
    X = _data()
    rng = np.random.default_rng(2)
    mean, W, sigma2 = pca.fit_ppca(X, 2)
    for W_try, s2 in [(W, sigma2), (rng.normal(size=W.shape), 0.7)]:  # at the maximum and elsewhere
        C = W_try @ W_try.T + s2 * np.eye(X.shape[1])
        expected = multivariate_normal(mean, C).logpdf(X).mean()
        assert pca.ppca_log_likelihood(X, mean, W_try, s2) == pytest.approx(expected, rel=1e-12)


def test_ppca_maximum_is_tipping_and_bishops_closed_form():
    X = _data()
    N, m = X.shape
    k = 2
    mean, W, sigma2 = pca.fit_ppca(X, k)
    lam = np.linalg.eigvalsh(np.cov(X, rowvar=False, bias=True))[::-1]  # the eigenvalues of S, divided by N
    assert sigma2 == pytest.approx(lam[k:].mean(), rel=1e-10)
    np.testing.assert_allclose(np.linalg.eigvalsh(W.T @ W)[::-1], lam[:k] - sigma2, rtol=1e-10)
    closed = -0.5 * (m * np.log(2 * np.pi) + np.log(lam[:k]).sum() + (m - k) * np.log(sigma2) + m)
    assert pca.ppca_log_likelihood(X, mean, W, sigma2) == pytest.approx(closed, rel=1e-10)


def test_ppca_is_a_maximum():
    """Moving σ² or scaling W either way lowers the likelihood."""
    X = _data()
    mean, W, sigma2 = pca.fit_ppca(X, 2)
    best = pca.ppca_log_likelihood(X, mean, W, sigma2)
    for factor in (0.9, 1.1):
        assert pca.ppca_log_likelihood(X, mean, W * factor, sigma2) < best
        assert pca.ppca_log_likelihood(X, mean, W, sigma2 * factor) < best


def test_ppca_likelihood_matches_scikit_learns_score():
    """scikit-learn's PCA.score is the PPCA likelihood with the variances divided by N − 1 rather than N: the same
    function, given its covariance, must agree with it."""
    X = _data()
    N = X.shape[0]
    mean, W, sigma2 = pca.fit_ppca(X, 2)
    reference = sklearn_decomposition.PCA(n_components=2, svd_solver="full").fit(X)
    scale = N / (N - 1)
    assert pca.ppca_log_likelihood(X, mean, W * np.sqrt(scale), sigma2 * scale) == pytest.approx(
        reference.score(X), rel=1e-10)
    np.testing.assert_allclose((W @ W.T + sigma2 * np.eye(X.shape[1])) * scale, reference.get_covariance(),
                               rtol=1e-9, atol=1e-12)


def test_bad_input_is_refused_clearly():
    X = _data()
    with pytest.raises(ValueError, match="single point"):
        pca.pca(X[:1])
    with pytest.raises(ValueError, match="k < m"):
        pca.fit_ppca(X, X.shape[1])
    with pytest.raises(ValueError, match="NaN"):
        pca.pca(np.where(np.eye(*X.shape, dtype=bool), np.nan, X))
    flat = np.column_stack([X[:, :2], X[:, 0] - X[:, 1], 2 * X[:, 0], X[:, 1] + 1])  # a plane in 5-D
    with pytest.raises(ValueError, match="affine subspace"):
        pca.fit_ppca(flat, 2)
