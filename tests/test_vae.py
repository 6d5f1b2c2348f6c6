"""Tests of implementations.generative.vae: the Gaussian KL against Monte Carlo and numerical integration, the
reparameterization
gradient against finite differences through the sample, the ELBO against a NumPy forward pass and against the closed
form log p(x) of a linear-Gaussian model (probabilistic PCA), where the bound is tight at the exact posterior and its
gap is the KL to that posterior, and the gradient of −ELBO against finite differences."""

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations.engine.autograd import Tensor
from implementations.generative.vae import VAE, gaussian_kl, latent_grid, reparameterize
from implementations.preliminaries.gradcheck import numerical_gradient


def _log_normal(z, mean, var):
    """log N(z; mean, diag var), summed over the last axis."""
    return -0.5 * np.sum(np.log(2 * np.pi * var) + (z - mean) ** 2 / var, axis=-1)


# --- the KL term ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("L", [1, 3])
def test_gaussian_kl_matches_a_monte_carlo_estimate(L):
    rng = np.random.default_rng(L)
    mu, log_var = rng.normal(size=(4, L)), rng.normal(scale=0.7, size=(4, L))  # 4 Gaussians q
    var = np.exp(log_var)
    z = mu + np.sqrt(var) * rng.standard_normal((200_000, 4, L))  # (S, 4, L): samples of each q
    log_ratio = _log_normal(z, mu, var) - _log_normal(z, 0.0, 1.0)  # (S, 4): log q(z) − log p(z)
    estimate, standard_error = log_ratio.mean(axis=0), log_ratio.std(axis=0) / np.sqrt(len(z))
    kl = gaussian_kl(mu, log_var)
    assert isinstance(kl, Tensor) and kl.shape == (4,)
    assert np.all(np.abs(kl.data - estimate) < 4 * standard_error)


@pytest.mark.parametrize(("mu", "log_var"), [(0.0, 0.0), (1.3, -0.8), (-2.0, 1.5), (0.4, -3.0)])
def test_gaussian_kl_matches_numerical_integration_in_1d(mu, log_var):
    std = np.exp(0.5 * log_var)
    z = np.linspace(mu - 14 * std, mu + 14 * std, 40_001)
    q = np.exp(_log_normal(z[:, None], mu, std**2))
    integrand = q * (_log_normal(z[:, None], mu, std**2) - _log_normal(z[:, None], 0.0, 1.0))
    kl = np.sum((integrand[1:] + integrand[:-1]) / 2 * np.diff(z))  # the trapezoidal rule
    np.testing.assert_allclose(gaussian_kl([mu], [log_var]).item(), kl, rtol=1e-8, atol=1e-12)


def test_gaussian_kl_gradient_matches_finite_differences():
    rng = np.random.default_rng(0)
    assert_gradients_match(gaussian_kl, rng.normal(size=(3, 2)), rng.normal(size=(3, 2)))


# --- the reparameterization trick -----------------------------------------------------------------------------------

@pytest.mark.parametrize("samples", [(), (4,)])
def test_reparameterize_gradient_through_the_sample(samples):
    """∂/∂μ and ∂/∂(log σ²) of a downstream function of z, by finite differences with ε held fixed."""
    rng = np.random.default_rng(1)
    mu, log_var = rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    eps = rng.standard_normal((*samples, 3, 2))
    z = reparameterize(mu, log_var, eps)
    assert z.shape == eps.shape
    np.testing.assert_allclose(z.data, mu + np.exp(log_var / 2) * eps, rtol=1e-15)
    assert_gradients_match(lambda m, lv: (reparameterize(m, lv, eps) * 1.5).tanh(), mu, log_var)


# --- a linear-Gaussian model: probabilistic PCA, where log p(x) has a closed form -----------------------------------

D, L, SIGMA = 4, 2, 0.5


def _linear_gaussian(rng):
    """A VAE with linear encoder and decoder, its decoder x = z A + b + σ ε with orthogonal rows of A."""
    vae = VAE(D, L, hidden=(), rng=rng, sigma=SIGMA)
    Q, _ = np.linalg.qr(rng.normal(size=(D, L)))  # (D, L): orthonormal columns
    s = np.array([1.5, 0.7])
    A = s[:, None] * Q.T  # (L, D): A Aᵀ = diag(s²), so the exact posterior has a diagonal covariance
    b = rng.normal(size=D)
    vae.decoder.layers[0].W.data, vae.decoder.layers[0].b.data = A.copy(), b.copy()
    return vae, A, b


def _log_marginal(x, A, b):
    """log p(x) = log N(x; b, AᵀA + σ² I)."""
    C = A.T @ A + SIGMA**2 * np.eye(D)
    r = x - b
    return -0.5 * (D * np.log(2 * np.pi) + np.linalg.slogdet(C)[1] + np.einsum("nd,de,ne->n", r, np.linalg.inv(C), r))


def _posterior(x, A, b):
    """The exact posterior p(z | x) = N(m, diag v): precision I + A Aᵀ / σ², mean (x − b) Aᵀ diag(v) / σ²."""
    v = 1.0 / (1.0 + np.sum(A**2, axis=1) / SIGMA**2)  # (L,)
    return (x - b) @ A.T * v / SIGMA**2, v


def _set_encoder(vae, W, c):
    vae.encoder.layers[0].W.data, vae.encoder.layers[0].b.data = W, c  # (D, 2L), (2L,): [μ | log σ²]


def _elbo_estimates(vae, x, K, seed):
    """K independent single-sample ELBO estimates per example: (K, N)."""
    elbo, _, _ = vae.elbo(np.tile(x, (K, 1)), rng=np.random.default_rng(seed), average=False)
    return elbo.data.reshape(K, len(x))


def test_elbo_equals_log_p_x_when_the_encoder_is_the_exact_posterior():
    rng = np.random.default_rng(0)
    vae, A, b = _linear_gaussian(rng)
    v = 1.0 / (1.0 + np.sum(A**2, axis=1) / SIGMA**2)
    W_mu = A.T * v / SIGMA**2  # (D, L): μ = (x − b) W_mu
    _set_encoder(vae, np.concatenate([W_mu, np.zeros((D, L))], axis=1), np.concatenate([-b @ W_mu, np.log(v)]))
    x = rng.normal(size=(3, D)) * 2
    m, v_post = _posterior(x, A, b)
    mu, log_var = vae.encode(x)
    np.testing.assert_allclose(mu.data, m, rtol=1e-12)
    np.testing.assert_allclose(np.exp(log_var.data), np.broadcast_to(v_post, (3, L)), rtol=1e-12)
    estimates = _elbo_estimates(vae, x, 20_000, seed=1)
    mean, standard_error = estimates.mean(axis=0), estimates.std(axis=0) / np.sqrt(len(estimates))
    assert np.all(np.abs(mean - _log_marginal(x, A, b)) < 4 * standard_error)
    _, reconstruction, kl = vae.elbo(x, rng=np.random.default_rng(2), n_samples=20_000, average=False)
    expected = -0.5 * D * np.log(2 * np.pi * SIGMA**2) - (  # E_q log p(x | z) in closed form
        np.sum((x - m @ A - b) ** 2, axis=1) + np.sum(v_post * np.sum(A**2, axis=1))) / (2 * SIGMA**2)
    np.testing.assert_allclose(reconstruction.data, expected, rtol=2e-3)
    np.testing.assert_allclose(expected - kl.data, _log_marginal(x, A, b), rtol=1e-12)  # the bound is tight


def test_elbo_gap_is_the_kl_from_q_to_the_exact_posterior():
    rng = np.random.default_rng(3)
    vae, A, b = _linear_gaussian(rng)
    _set_encoder(vae, 0.3 * rng.normal(size=(D, 2 * L)), 0.3 * rng.normal(size=2 * L))  # some other q(z | x)
    x = rng.normal(size=(3, D)) * 2
    m, v = _posterior(x, A, b)
    mu, log_var = (t.data for t in vae.encode(x))
    var = np.exp(log_var)
    kl_to_posterior = 0.5 * np.sum(var / v + (mu - m) ** 2 / v - 1 + np.log(v) - log_var, axis=1)  # KL(q ‖ p(z|x))
    estimates = _elbo_estimates(vae, x, 20_000, seed=4)
    mean, standard_error = estimates.mean(axis=0), estimates.std(axis=0) / np.sqrt(len(estimates))
    expected = _log_marginal(x, A, b) - kl_to_posterior  # ELBO = log p(x) − KL(q ‖ posterior)
    assert np.all(np.abs(mean - expected) < 4 * standard_error)
    assert np.all(kl_to_posterior > 10 * standard_error)  # a real gap: the bound is strict here


# --- the ELBO of a small network against a NumPy forward pass --------------------------------------------------------

def _numpy_mlp(mlp, x):
    for layer in mlp.layers[:-1]:
        x = np.tanh(x @ layer.W.data + layer.b.data)
    return x @ mlp.layers[-1].W.data + mlp.layers[-1].b.data


@pytest.mark.parametrize("likelihood", ["gaussian", "bernoulli"])
def test_elbo_matches_a_numpy_forward_pass(likelihood):
    rng = np.random.default_rng(5)
    vae = VAE(6, 3, hidden=(5, 4), rng=rng, likelihood=likelihood, sigma=0.3, activation="tanh")
    x = rng.uniform(size=(4, 6))
    elbo, reconstruction, kl = vae.elbo(x, rng=np.random.default_rng(6), n_samples=3, average=False)
    h = _numpy_mlp(vae.encoder, x)
    mu, log_var = h[:, :3], h[:, 3:]
    z = mu + np.exp(log_var / 2) * np.random.default_rng(6).standard_normal((3, 4, 3))  # (K, N, L)
    out = _numpy_mlp(vae.decoder, z)  # (K, N, D)
    if likelihood == "bernoulli":
        p = 1 / (1 + np.exp(-out))
        log_lik = np.sum(x * np.log(p) + (1 - x) * np.log(1 - p), axis=-1)
    else:
        log_lik = _log_normal(x, out, 0.3**2)
    expected_kl = np.sum(-0.5 * (1 + log_var - mu**2 - np.exp(log_var)), axis=1)
    np.testing.assert_allclose(reconstruction.data, log_lik.mean(axis=0), rtol=1e-12)
    np.testing.assert_allclose(kl.data, expected_kl, rtol=1e-12)
    np.testing.assert_allclose(elbo.data, log_lik.mean(axis=0) - expected_kl, rtol=1e-12)
    averaged = vae.elbo(x, rng=np.random.default_rng(6), n_samples=3)
    np.testing.assert_allclose([t.item() for t in averaged], [elbo.data.mean(), reconstruction.data.mean(),
                                                              kl.data.mean()], rtol=1e-12)
    np.testing.assert_allclose(vae.loss(x, rng=np.random.default_rng(6), n_samples=3).item(), -elbo.data.mean(),
                               rtol=1e-12)


@pytest.mark.parametrize("likelihood", ["gaussian", "bernoulli"])
def test_negative_elbo_gradient_matches_finite_differences(likelihood):
    rng = np.random.default_rng(7)
    vae = VAE(3, 2, hidden=(4,), rng=rng, likelihood=likelihood, sigma=0.5, activation="tanh")
    x = rng.uniform(size=(5, 3))

    def loss():
        return vae.loss(x, rng=np.random.default_rng(8), n_samples=2)  # the same ε at every call

    vae.zero_grad()
    loss().backward()
    for name, p in vae.named_parameters():
        original = p.data

        def loss_at(value, p=p):
            p.data = value
            return loss().item()

        numeric = numerical_gradient(loss_at, original)
        p.data = original
        np.testing.assert_allclose(p.grad, numeric, rtol=1e-5, atol=1e-7, err_msg=name)


# --- shapes, sampling, determinism ----------------------------------------------------------------------------------

def test_shapes_and_the_latent_grid():
    vae = VAE(64, 2, hidden=(8,), rng=np.random.default_rng(0), likelihood="bernoulli")
    x = np.random.default_rng(1).uniform(size=(5, 64))
    mu, log_var = vae.encode(x)
    assert mu.shape == log_var.shape == (5, 2)
    assert all(t.shape == (5,) for t in vae.elbo(x, rng=np.random.default_rng(0), average=False))
    assert all(t.shape == () for t in vae.elbo(x, rng=np.random.default_rng(0), n_samples=3))
    grid = latent_grid(4, extent=1.5)
    assert grid.shape == (4, 4, 2)
    np.testing.assert_allclose(grid[0, 0], [-1.5, 1.5])  # top left
    np.testing.assert_allclose(grid[3, 3], [1.5, -1.5])  # bottom right
    np.testing.assert_allclose(grid[1, 2], [0.5, 0.5])  # row i has v_i, column j has u_j
    images = vae.decode(grid).data
    assert images.shape == (4, 4, 64) and np.all((images > 0) & (images < 1))
    np.testing.assert_allclose(images[2, 1], vae.decode(grid[2, 1][None]).data[0], rtol=1e-14)


@pytest.mark.parametrize("likelihood", ["gaussian", "bernoulli"])
def test_sample_decodes_standard_normal_codes(likelihood):
    vae = VAE(3, 2, hidden=(4,), rng=np.random.default_rng(0), likelihood=likelihood, sigma=0.2)
    mean = vae.sample(6, rng=np.random.default_rng(1))
    z = np.random.default_rng(1).standard_normal((6, 2))
    np.testing.assert_allclose(mean, vae.decode(z).data, rtol=1e-15)
    noisy = vae.sample(2000, rng=np.random.default_rng(2), noise=True)
    if likelihood == "bernoulli":
        assert set(np.unique(noisy)) <= {0.0, 1.0}
    means = vae.sample(2000, rng=np.random.default_rng(2))  # the same codes z
    residual = noisy - means
    if likelihood == "gaussian":
        assert abs(residual.std() - 0.2) < 0.01  # N(0, σ²) noise around the mean
    else:
        assert np.abs(residual.mean(axis=0)).max() < 0.04  # E[x | z] is the mean


def test_elbo_is_deterministic_given_the_seed():
    vae = VAE(3, 2, rng=np.random.default_rng(0))
    x = np.random.default_rng(1).normal(size=(4, 3))
    first = vae.elbo(x, rng=np.random.default_rng(2))[0].item()
    assert vae.elbo(x, rng=np.random.default_rng(2))[0].item() == first
    assert vae.elbo(x, rng=np.random.default_rng(3))[0].item() != first


# --- bad input ------------------------------------------------------------------------------------------------------

def test_bad_input_is_refused_with_a_clear_message():
    vae = VAE(3, 2, rng=np.random.default_rng(0), likelihood="bernoulli")
    with pytest.raises(ValueError, match=r"x has 5 entries along axis 1, but VAE.data_dim is 3"):
        vae.encode(np.zeros((4, 5)))
    with pytest.raises(ValueError, match=r"z has 3 entries along axis 1, but VAE.latent_dim is 2"):
        vae.decode(np.zeros((4, 3)))  # latent size 3 instead of 2
    with pytest.raises(ValueError, match=r"x must lie in \[0, 1\]"):
        vae.elbo(np.full((2, 3), 16.0), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="n_samples must be an integer >= 1"):
        vae.loss(np.zeros((2, 3)), rng=np.random.default_rng(0), n_samples=0)
    with pytest.raises(ValueError, match="likelihood must be one of"):
        VAE(3, 2, rng=np.random.default_rng(0), likelihood="poisson")
    with pytest.raises(ValueError, match=r"log_var has 2 entries along axis 1, but mu's axis 1 gives d_z = 3"):
        gaussian_kl(np.zeros((2, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="eps has shape"):
        reparameterize(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 2)))
    with pytest.raises(ValueError, match="n must be at least 2"):
        latent_grid(1)


def test_the_shipped_ring_vae_is_the_chapters_run_and_scores_as_stored():
    """The first steps of the chapter's VAE training reproduce the stored losses, and the stored VAE's decoder means
    score as the comparison file says for the chapter's seed after 500 steps."""
    from ring_check import assert_scores_as_stored

    from implementations.data.synthetic import make_gaussian_ring
    from implementations.generative import mmd, vae
    from implementations.nn.optim import Adam

    model, losses = vae.load_ring_vae()
    _, _, config = mmd.load_ring_comparison()
    c, seed = config["vae"], config["chapter_seed"]
    assert losses.shape == (c["early"],) and np.all(np.isfinite(losses))
    X, _ = make_gaussian_ring(config["data"]["n"], rng=np.random.default_rng(config["data"]["seed"]))
    live = VAE(data_dim=2, latent_dim=2, hidden=(32, 32), sigma=c["sigma_dec"], activation="tanh",
               rng=np.random.default_rng(seed))
    optimizer, rng = Adam(live.parameters(), lr=c["lr"]), np.random.default_rng(seed + 1)
    for step in range(5):
        loss = live.loss(X[rng.integers(0, len(X), size=c["batch"])], rng=rng)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        np.testing.assert_allclose(loss.item(), losses[step], rtol=1e-9)
    samples = model.sample(config["samples"], rng=np.random.default_rng(seed + 2))
    assert_scores_as_stored(samples, "VAE decoder means, 500 steps")
