"""Gaussian mixtures and EM against scikit-learn, SciPy and the identities EM rests on.

scikit-learn's GaussianMixture (test-only), started from the same parameters (``weights_init``, ``means_init``,
``precisions_init``) with the same ``reg_covar`` and run for the same number of iterations, must give the same weights,
means, covariances, responsibilities (``predict_proba``), mean log-likelihood (``score``) and BIC. The identities:
the log-likelihood never falls along EM; log p(x) = ELBO + KL(q ‖ p(z | x)) at every iteration for the q of the
previous one; the bound is tight at the posterior; with a shared spherical covariance shrinking to 0 the
responsibilities become k-means' hard assignments. And the failures: a collapsing component without ``reg_covar``.
"""

import numpy as np
import pytest
from scipy.special import logsumexp
from scipy.stats import multivariate_normal

from implementations.unsupervised import kmeans, mixture

sklearn_mixture = pytest.importorskip("sklearn.mixture")


def _data(N=300, seed=0):
    """Three overlapping 2-D Gaussians of different shapes and sizes, and a start from three of the points."""
    rng = np.random.default_rng(seed)
    means = np.array([[0.0, 0.0], [3.0, 1.0], [0.5, 3.5]])
    scales = [np.array([[1.0, 0.0], [0.6, 0.5]]), np.array([[0.4, 0.3], [0.0, 0.8]]), 0.7 * np.eye(2)]
    z = rng.choice(3, size=N, p=[0.5, 0.3, 0.2])
    X = means[z] + np.einsum("nij,nj->ni", np.array(scales)[z], rng.normal(size=(N, 2)))
    start = (np.full(3, 1 / 3), X[rng.choice(N, size=3, replace=False)], np.stack([np.eye(2)] * 3))
    return X, start


def _sklearn_from(start, *, max_iter, tol, reg_covar=1e-6):
    weights, means, covs = start
    return sklearn_mixture.GaussianMixture(
        n_components=3, covariance_type="full", weights_init=weights, means_init=means,
        precisions_init=np.linalg.inv(covs), reg_covar=reg_covar, max_iter=max_iter, tol=tol, init_params="random",
        random_state=0)


@pytest.mark.parametrize("seed", [0, 1])
def test_em_matches_scikit_learn_at_convergence_from_the_same_start(seed):
    X, start = _data(seed=seed)
    reference = _sklearn_from(start, max_iter=1000, tol=1e-9).fit(X)
    assert reference.converged_ and reference.n_iter_ > 10
    weights, means, covs, history = mixture.fit_gmm(X, *start, reg_covar=1e-6, max_iter=reference.n_iter_, tol=0.0)
    assert len(history) == reference.n_iter_ + 1  # the same number of M steps
    np.testing.assert_allclose(weights, reference.weights_, rtol=1e-8)
    np.testing.assert_allclose(means, reference.means_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(covs, reference.covariances_, rtol=1e-8, atol=1e-10)
    R, _ = mixture.e_step(X, weights, means, covs)
    np.testing.assert_allclose(R, reference.predict_proba(X), atol=1e-9)
    assert mixture.log_likelihood(X, weights, means, covs) == pytest.approx(reference.score(X), rel=1e-10)
    assert mixture.bic(X, weights, means, covs) == pytest.approx(reference.bic(X), rel=1e-10)
    X_new, _ = _data(N=100, seed=seed + 10)  # held out
    assert mixture.log_likelihood(X_new, weights, means, covs) == pytest.approx(reference.score(X_new), rel=1e-10)


def test_one_iteration_matches_scikit_learn_with_a_large_reg_covar():
    """reg_covar enters the M step as scikit-learn's does: one M step with reg_covar = 0.5 gives its covariances."""
    X, start = _data()
    reference = _sklearn_from(start, max_iter=1, tol=1e-3, reg_covar=0.5)
    with pytest.warns(Warning):  # one iteration does not converge
        reference.fit(X)
    weights, means, covs, _ = mixture.fit_gmm(X, *start, reg_covar=0.5, max_iter=1, tol=0.0)
    np.testing.assert_allclose(covs, reference.covariances_, rtol=1e-10)
    np.testing.assert_allclose(means, reference.means_, rtol=1e-10)


def test_num_parameters_is_scikit_learns():
    X, start = _data()
    reference = _sklearn_from(start, max_iter=1000, tol=1e-3).fit(X)
    assert mixture.num_parameters(3, 2) == reference._n_parameters() == 17


def test_log_density_matches_scipy():
    X, (weights, means, covs) = _data()
    covs = np.stack([[[2.0, 0.3], [0.3, 0.5]], [[1.0, -0.9], [-0.9, 1.0]], [[0.1, 0.0], [0.0, 3.0]]])
    expected = np.column_stack([multivariate_normal(means[k], covs[k]).logpdf(X) for k in range(3)])
    np.testing.assert_allclose(mixture.gaussian_log_density(X, means, covs), expected, rtol=1e-12)


def test_e_step_is_bayes_rule_and_stays_finite_far_from_every_component():
    X, (_, means, covs) = _data()
    weights = np.array([0.2, 0.5, 0.3])
    X = np.vstack([X, [[60.0, -60.0], [-200.0, 100.0]]])  # every density underflows to 0 at these points
    R, log_px = mixture.e_step(X, weights, means, covs)
    log_joint = np.log(weights) + np.column_stack([multivariate_normal(means[k], covs[k]).logpdf(X) for k in range(3)])
    np.testing.assert_allclose(log_px, logsumexp(log_joint, axis=1), rtol=1e-12)
    np.testing.assert_allclose(R, np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True)), atol=1e-12)
    assert np.isfinite(R).all() and np.allclose(R.sum(axis=1), 1.0)
    with np.errstate(under="ignore"):
        assert (np.exp(log_joint[-2:]).sum(axis=1) == 0).all()  # the naive ratio would be 0/0 there


def test_m_step_is_the_weighted_maximum_likelihood():
    X, start = _data()
    R = mixture.e_step(X, *start)[0]
    weights, means, covs = mixture.m_step(X, R, reg_covar=0.0)
    for k in range(3):
        r = R[:, k]
        mu = (r[:, None] * X).sum(axis=0) / r.sum()
        S = sum(r[i] * np.outer(X[i] - mu, X[i] - mu) for i in range(len(X))) / r.sum()
        assert weights[k] == pytest.approx(r.mean(), rel=1e-12)
        np.testing.assert_allclose(means[k], mu, rtol=1e-12)
        np.testing.assert_allclose(covs[k], S, rtol=1e-10)
    reg = mixture.m_step(X, R, reg_covar=0.25)[2]
    np.testing.assert_allclose(reg - covs, np.broadcast_to(0.25 * np.eye(2), covs.shape), atol=1e-12)


@pytest.mark.parametrize("seed", range(4))
def test_the_log_likelihood_never_falls(seed):
    X, start = _data(seed=seed)
    *_, history = mixture.fit_gmm(X, *start, max_iter=200, tol=0.0)  # until it stops rising at all
    assert len(history) > 20
    assert (np.diff(history) >= -1e-12 * np.abs(history).max()).all()
    assert history[-1] > history[0] + 0.1


def test_a_fall_under_reg_covar_is_recorded_and_not_taken_for_convergence():
    """With reg_covar > 0 the M step does not maximise the bound, and the likelihood can fall (here by more than tol at
    the second iteration): fit_gmm goes on, and stops only when the change is smaller than tol."""
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    start = (np.full(3, 1 / 3), X[rng.choice(30, size=3, replace=False)], np.stack([np.eye(2)] * 3))
    *_, history = mixture.fit_gmm(X, *start, reg_covar=0.3, max_iter=500, tol=1e-3)
    change = np.diff(history)
    assert change.min() < -1e-3  # a fall larger than tol ...
    assert np.argmin(change) < len(change) - 1  # ... after which EM went on
    assert abs(change[-1]) < 1e-3 and len(history) < 501  # it stopped on a small change, not at max_iter


def test_a_fall_without_reg_covar_is_an_error(monkeypatch):
    """EM without regularisation cannot lower the likelihood: an M step that does (here, one whose means are pushed
    away at the fourth iteration) raises, rather than being read as convergence."""
    X, start = _data()
    exact = mixture.m_step
    calls = []

    def pushed(X, R, reg_covar):
        weights, means, covs = exact(X, R, reg_covar)
        calls.append(1)
        return weights, means + (2.0 if len(calls) == 4 else 0.0), covs

    monkeypatch.setattr(mixture, "m_step", pushed)
    with pytest.raises(RuntimeError, match=r"fell at iteration 4.*reg_covar=0"):
        mixture.fit_gmm(X, *start, reg_covar=0.0, max_iter=50, tol=1e-3)
    calls.clear()
    *_, history = mixture.fit_gmm(X, *start, reg_covar=1e-6, max_iter=50, tol=1e-3)  # regularised: recorded
    assert np.diff(history)[3] < -1e-3 and len(history) > 5


def test_log_p_is_the_elbo_plus_the_kl_at_every_iteration():
    """For q, the responsibilities of the previous parameters: log p(X | θ) = ELBO(q, θ) + Σᵢ KL(qᵢ ‖ p(z | xᵢ, θ)),
    with the gap > 0 after an M step, 0 at q = the posterior of θ, and the bound rising along EM."""
    X, (weights, means, covs) = _data()
    q, log_px = mixture.e_step(X, weights, means, covs)
    previous_bound = -np.inf
    for _ in range(30):
        weights, means, covs = mixture.m_step(X, q)
        log_px = mixture.e_step(X, weights, means, covs)[1]
        bound = mixture.elbo(X, q, weights, means, covs)
        gap = mixture.posterior_kl(X, q, weights, means, covs)
        assert abs(log_px.sum() - (bound + gap)) <= 1e-10  # summed over the 300 points: round-off
        assert gap >= -1e-10 and bound >= previous_bound - 1e-9
        q = mixture.e_step(X, weights, means, covs)[0]  # the E step closes the gap
        assert abs(mixture.posterior_kl(X, q, weights, means, covs)) <= 1e-10
        assert mixture.elbo(X, q, weights, means, covs) == pytest.approx(log_px.sum(), rel=1e-12)
        previous_bound = bound
    assert gap > 0  # some iteration still had a gap


def test_the_bound_is_below_log_p_for_any_q():
    X, start = _data()
    rng = np.random.default_rng(3)
    q = rng.dirichlet(np.ones(3), size=len(X))
    q[:5] = np.eye(3)[[0, 1, 2, 0, 1]]  # entries 0 count 0
    log_p = mixture.e_step(X, *start)[1].sum()
    bound, gap = mixture.elbo(X, q, *start), mixture.posterior_kl(X, q, *start)
    assert bound < log_p and gap > 0
    assert bound + gap == pytest.approx(log_p, rel=1e-12)


def test_small_shared_spherical_variance_gives_the_k_means_assignment():
    X, (_, means, _) = _data()
    weights = np.full(3, 1 / 3)
    labels = kmeans.assign_clusters(X, means)[0]
    hard = np.eye(3)[labels]
    for sigma, close in [(1.0, False), (0.3, False), (0.01, True)]:
        R = mixture.e_step(X, weights, means, np.stack([sigma**2 * np.eye(2)] * 3))[0]
        assert np.array_equal(R.argmax(axis=1), labels)  # the most responsible component is the nearest centre
        assert bool(np.abs(R - hard).max() < 1e-12) is close


def test_samples_follow_the_mixture():
    rng = np.random.default_rng(0)
    weights = np.array([0.6, 0.3, 0.1])
    means = np.array([[0.0, 0.0], [5.0, 0.0], [0.0, 5.0]])
    covs = np.stack([[[1.0, 0.5], [0.5, 1.0]], [[0.3, 0.0], [0.0, 2.0]], np.eye(2) * 0.5])
    X, z = mixture.sample_gmm(weights, means, covs, 40_000, rng)
    np.testing.assert_allclose(np.bincount(z) / len(z), weights, atol=0.01)  # about 4 standard errors
    for k in range(3):
        np.testing.assert_allclose(X[z == k].mean(axis=0), means[k], atol=0.06)
        np.testing.assert_allclose(np.cov(X[z == k], rowvar=False), covs[k], atol=0.1)


def test_a_collapsing_component_without_reg_covar_is_a_clear_error():
    X, _ = _data(N=50)
    X = np.vstack([X, [[40.0, 40.0]]])  # one point far from the rest
    means = np.array([[0.0, 0.0], [2.0, 2.0], [40.0, 40.0]])  # a component on it
    covs = np.stack([np.eye(2), np.eye(2), 0.01 * np.eye(2)])
    start = (np.full(3, 1 / 3), means, covs)
    with pytest.raises(ValueError, match=r"component 2 became singular .* reg_covar=0.*Pass reg_covar > 0"):
        mixture.fit_gmm(X, *start, reg_covar=0.0)
    weights, _, covs, history = mixture.fit_gmm(X, *start, reg_covar=1e-6)
    assert np.linalg.eigvalsh(covs[2])[0] >= 1e-6 * (1 - 1e-9)  # held at reg_covar I
    assert weights[2] == pytest.approx(1 / len(X), rel=1e-6)


def test_bad_input_is_refused_clearly():
    X, (weights, means, covs) = _data(N=20)
    with pytest.raises(ValueError, match="K = 3 clusters"):
        mixture.fit_gmm(X[:2], weights, means, covs)
    with pytest.raises(ValueError, match="single point"):
        mixture.fit_gmm(X[:1], weights, means, covs)
    with pytest.raises(ValueError, match="NaN"):
        mixture.e_step(np.where(np.eye(20, 2, dtype=bool), np.nan, X), weights, means, covs)
    with pytest.raises(ValueError, match="positive definite"):
        mixture.e_step(X, weights, means, np.stack([np.eye(2), np.zeros((2, 2)), np.eye(2)]))
    with pytest.raises(ValueError, match="sum to 1"):
        mixture.e_step(X, np.ones(3), means, covs)
