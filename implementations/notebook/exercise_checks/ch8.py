"""The checks of the exercises of chapter 8, Generative models: one per exercise, named after the reader's function."""

import numpy as np

from ...generative import diffusion, mmd, vae
from ..exercises import check_function

__all__ = ["gaussian_discriminator", "gaussian_kl", "noised", "mmd2_unbiased"]


def _gaussian_discriminator_reference(x, mu_d, sigma_d, mu_g, sigma_g):
    """D*(x) = sigm(log p_data(x) − log p_g(x)) for two 1-D Gaussians, without forming either density."""
    r = (-0.5 * ((x - mu_d) / sigma_d) ** 2 - np.log(sigma_d)) - (-0.5 * ((x - mu_g) / sigma_g) ** 2 - np.log(sigma_g))
    return 0.5 * (1.0 + np.tanh(0.5 * r))  # sigm(r), which never overflows


def _two_gaussians_inputs(rng, size):
    """Points around both Gaussians, and from input 3 on two points a hundred standard deviations out."""
    mu_d, mu_g = rng.normal(size=2)
    sigma_d, sigma_g = np.exp(rng.uniform(-1, 1, size=2))
    x = rng.normal(size=size) * 2 * max(sigma_d, sigma_g) + (mu_d + mu_g) / 2
    if size >= 3:
        x[:2] = mu_d + np.array([-100.0, 100.0]) * max(sigma_d, sigma_g)  # both densities underflow to 0
    return x, float(mu_d), float(sigma_d), float(mu_g), float(sigma_g)


def gaussian_discriminator(candidate, *, rng):
    """``gaussian_discriminator(x, mu_d, sigma_d, mu_g, sigma_g)``: the best D for N(μ_d, σ_d²) against N(μ_g, σ_g²).

    Points far in the tails, where both densities underflow to 0, are included; no warning is allowed.
    """
    __tracebackhide__ = True
    check_function(candidate, _gaussian_discriminator_reference, _two_gaussians_inputs, rng=rng,
                   warnings_as_errors=True)


def _gaussian_kl_reference(mu, log_var):
    return vae.gaussian_kl(mu, log_var).data  # (N,)


def _latent_inputs(rng, size):
    N, d_z = size, 1 + size % 4
    return rng.normal(size=(N, d_z)), rng.normal(size=(N, d_z))


def gaussian_kl(candidate, *, rng):
    """``gaussian_kl(mu, log_var)`` against ``vae.gaussian_kl``: one KL divergence per row."""
    __tracebackhide__ = True
    check_function(candidate, _gaussian_kl_reference, _latent_inputs, rng=rng)


def _noised_reference(x0, t, betas, noise):
    return diffusion.q_sample(x0, t, noise, diffusion.DDPMSchedule(betas))


def _forward_inputs(rng, size):
    """A random schedule of T = size + 2 steps; the N = size + 1 points get random steps, the first step T."""
    T, N = size + 2, size + 1
    betas = rng.uniform(0.01, 0.4, size=T)
    t = rng.integers(1, T + 1, size=N)
    t[0] = T  # the last step, where an off-by-one index runs past the end
    return rng.normal(size=(N, 2)), t, betas, rng.normal(size=(N, 2))


def noised(candidate, *, rng):
    """``noised(x0, t, betas, noise)`` against ``diffusion.q_sample``: x_t drawn from x_0, one step per point."""
    __tracebackhide__ = True
    check_function(candidate, _noised_reference, _forward_inputs, rng=rng)


def _mmd_reference(X, Y, s):
    return mmd.mmd2(X, Y, bandwidth=s)


def _mmd_inputs(rng, size):
    """Samples of different sizes m ≠ n, shifted apart, and a width around their scale."""
    m, D = size + 2, 1 + size % 3
    n = m + 1 if size % 2 else m - 1  # never m
    X = rng.normal(size=(m, D))
    Y = rng.normal(size=(n, D)) * rng.uniform(0.5, 2) + rng.normal(size=D)
    return X, Y, float(np.exp(rng.uniform(-1, 1)))


def mmd2_unbiased(candidate, *, rng):
    """``mmd2_unbiased(X, Y, s)`` against ``mmd.mmd2(X, Y, bandwidth=s)``, the U-statistic, for samples m ≠ n."""
    __tracebackhide__ = True
    check_function(candidate, _mmd_reference, _mmd_inputs, rng=rng)
