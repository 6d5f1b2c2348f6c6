"""Variational autoencoders (Kingma and Welling, 2014) on the autograd engine.

Chapter 9 of the book. The model draws a latent code z ~ p(z) = N(0, I) and then x ~ p_θ(x | z), whose
parameters a decoder network computes from z. Its likelihood p_θ(x) = ∫ p_θ(x | z) p(z) dz has no closed form, so
an encoder network proposes q_φ(z | x) = N(μ_φ(x), diag σ²_φ(x)) and both are trained on the evidence lower bound

    log p_θ(x) >= ELBO(x) = E_{z ~ q_φ(z | x)} log p_θ(x | z) − KL(q_φ(z | x) ‖ p(z)),

whose gap is KL(q_φ(z | x) ‖ p_θ(z | x)) >= 0. The first term (the *reconstruction* term) is estimated by sampling
z = μ + σ ⊙ ε with ε ~ N(0, I) (:func:`reparameterize`), which makes the sample a differentiable function of μ and
σ; the second has the closed form :func:`gaussian_kl`.

Sign convention: ``elbo`` is the bound itself, in nats per example, to be *maximized*; the training loss is its
negative, ``loss = −elbo`` (averaged over the batch). The encoder outputs log σ² (``log_var``) rather than σ, so
that any real output is a valid variance.

Samples are rows: data (N, data_dim), codes (N, latent_dim).
"""

import numpy as np

from .._contract import checked
from .._validation import folder_holding
from ..engine import Tensor, no_grad
from ..engine.autograd import _unbroadcast
from ..nn.layers import ACTIVATIONS, MLP
from ..nn.module import Module
from . import _checks
from .mmd import RING_COMPARISON, _load_chapter_model

__all__ = ["gaussian_kl", "reparameterize", "VAE", "latent_grid", "load_ring_vae"]


@checked(mu="tensor (*B, d_z)", log_var="tensor (*B, d_z)")
def gaussian_kl(mu, log_var):
    """KL(N(μ, diag σ²) ‖ N(0, I)) = ½ Σ_j (μ_j² + σ_j² − 1 − log σ_j²) over the latent dimensions j, eq. (9.6).

    The closed form follows from KL = E_q[log q(z) − log p(z)] for two Gaussians: E_q[−(z − μ)²/(2σ²)] = −½ and
    E_q[z²] = μ² + σ², per dimension, the normalizing constants giving −½ log σ². It is >= 0, and 0 only at μ = 0,
    σ² = 1.

    Parameters
    ----------
    mu : Tensor or array of shape (..., d_z)
        The means μ of q.
    log_var : Tensor or array of shape (..., d_z)
        log σ², the log-variances of q.

    Returns
    -------
    Tensor of shape (...)
        One KL divergence per row, in nats.
    """
    return 0.5 * (mu * mu + log_var.exp() - 1.0 - log_var).sum(axis=-1)  # (*B,): one divergence per row


@checked(mu="tensor (*B, d_z)", log_var="tensor (*B, d_z)", eps="array", also=_checks.noise_like_mu)
def reparameterize(mu, log_var, eps):
    """z = μ + exp(½ log σ²) ⊙ ε, eq. (9.7): a sample of N(μ, diag σ²), differentiable in μ and log σ².

    The noise ε ~ N(0, I) is drawn outside, so the randomness is an input, not part of the graph (the
    reparameterization trick). The local derivatives are those of one line of algebra: ∂z/∂μ = 1 and
    ∂z/∂(log σ²) = ½ σ ε.

    Parameters
    ----------
    mu, log_var : Tensor or array of shape (..., d_z)
    eps : array_like of shape (..., d_z), or (S, ..., d_z)
        Standard normal noise; extra leading axes give S samples per (μ, σ²) at once.

    Returns
    -------
    z : Tensor of the shape of ``eps``
    """
    sigma = np.exp(0.5 * log_var.data)  # (*B, d_z)
    z = mu.data + sigma * eps  # (S, *B, d_z)

    def backward(g):  # ∂z/∂μ = 1, ∂z/∂(log σ²) = ½ σ ε; sample axes summed back
        return _unbroadcast(g, mu.shape), _unbroadcast(g * (0.5 * sigma * eps), log_var.shape)

    return Tensor._result(z, (mu, log_var), backward, "reparameterize")


class VAE(Module):
    """A variational autoencoder: a Gaussian encoder q_φ(z | x) and a decoder p_θ(x | z), two MLPs.

    * Encoder: ``MLP([data_dim, *hidden, 2 * latent_dim])``; its output is split into μ (the first latent_dim
      columns) and log σ² (the rest).
    * Decoder: ``MLP([latent_dim, *reversed(hidden), data_dim])``; its output is

      - for ``likelihood="gaussian"``: the mean m(z) of p(x | z) = N(m(z), σ_dec² I) with the fixed standard
        deviation σ_dec = ``sigma``, so log p(x | z) = −‖x − m(z)‖² / (2σ_dec²) − (D/2) log(2π σ_dec²): for
        real-valued data (2-D points);
      - for ``likelihood="bernoulli"``: the logits l(z) of independent Bernoulli pixels, so
        log p(x | z) = Σ_d [x_d l_d − log(1 + e^{l_d})], the negative binary cross-entropy: for images with pixels
        in [0, 1] (such as the 8 × 8 digits divided by 16). For grey values strictly between 0 and 1 this is the
        usual cross-entropy reconstruction term rather than a normalized density.

    With ``hidden=()`` both maps are linear, and the Gaussian model is probabilistic PCA: x = z A + b + σ_dec ε.

    Parameters
    ----------
    data_dim : int >= 1
        D, the number of features of x.
    latent_dim : int >= 1
        L, the size of z.
    hidden : tuple of int, default (64,)
        Widths of the encoder's hidden layers; the decoder's are the same in reverse order.
    rng : numpy.random.Generator
        Initializes the encoder, then the decoder.
    likelihood : {"gaussian", "bernoulli"}, default "gaussian"
    sigma : float > 0, default 0.1
        σ_dec, the decoder's standard deviation (``likelihood="gaussian"`` only): a small σ_dec weighs the
        reconstruction more against the KL term.
    activation : {"relu", "tanh", "gelu", "sigmoid"}, default "relu"
    """

    @checked(data_dim="count", latent_dim="count", hidden="widths", rng="rng", likelihood=_checks.likelihood,
             sigma="rate", activation=ACTIVATIONS)
    def __init__(self, data_dim, latent_dim, *, hidden=(64,), rng, likelihood="gaussian", sigma=0.1,
                 activation="relu"):
        self.data_dim, self.latent_dim, self.likelihood, self.sigma = data_dim, latent_dim, likelihood, sigma
        self.encoder = MLP([data_dim, *hidden, 2 * latent_dim], activation=activation, rng=rng)
        self.decoder = MLP([latent_dim, *hidden[::-1], data_dim], activation=activation, rng=rng)

    # --- the two networks -----------------------------------------------------------------------------------------

    @checked(x="tensor (N, self.data_dim)", also=_checks.pixels_if_bernoulli)
    def forward(self, x):
        """The encoder's (μ, log σ²) for ``x`` (the same as :meth:`encode`)."""
        return self.encode(x)

    @checked(x="tensor (N, self.data_dim)", also=_checks.pixels_if_bernoulli)
    def encode(self, x):
        """The parameters of q_φ(z | x) = N(μ, diag σ²) for a batch.

        Parameters
        ----------
        x : Tensor or array of shape (N, data_dim)

        Returns
        -------
        mu, log_var : Tensors of shape (N, latent_dim)
        """
        h = self.encoder(x)  # (N, 2L)
        L = self.latent_dim
        return h[:, :L], h[:, L:]  # μ, log σ²: (N, d_z) each

    @checked(z="tensor (..., self.latent_dim)")
    def decode(self, z):
        """The mean of p_θ(x | z) for codes z: the Gaussian mean m(z), or the pixel probabilities sigm(l(z)).

        Parameters
        ----------
        z : Tensor or array of shape (..., latent_dim)
            Any batch shape: a grid of codes from :func:`latent_grid`, of shape (n, n, 2), decodes to
            (n, n, data_dim) in one call.

        Returns
        -------
        Tensor of shape (..., data_dim)
        """
        out = self.decoder(z)  # (..., data_dim): the Gaussian mean, or the Bernoulli logits
        return out.sigmoid() if self.likelihood == "bernoulli" else out

    @checked(x="tensor (N, self.data_dim)", z="tensor (..., N, self.latent_dim)", also=_checks.pixels_if_bernoulli)
    def log_likelihood(self, x, z):
        """log p_θ(x | z), summed over the D features: the reconstruction term of the ELBO, for codes of the data.

        Gaussian: −‖x − m(z)‖² / (2σ_dec²) − (D/2) log(2π σ_dec²). Bernoulli: Σ_d [x_d l_d − log(1 + e^{l_d})], with
        log(1 + eˡ) the stable softplus.

        Parameters
        ----------
        x : Tensor or array of shape (N, data_dim)
            In [0, 1] for ``likelihood="bernoulli"``.
        z : Tensor or array of shape (..., N, latent_dim)
            Codes of the N examples, with any leading axes (S samples each: (S, N, latent_dim)).

        Returns
        -------
        Tensor of shape (..., N)
        """
        out = self.decoder(z)  # (S, N, data_dim): the Gaussian means m(z), or the Bernoulli logits l(z)
        if self.likelihood == "bernoulli":
            return (x * out - out.softplus()).sum(axis=-1)  # (S, N): Σ_d x_d l_d − log(1 + e^{l_d})
        variance = self.sigma**2  # σ_dec²
        squared = ((out - x) ** 2).sum(axis=-1)  # (S, N): ‖x − m(z)‖²
        return squared * (-0.5 / variance) - 0.5 * self.data_dim * np.log(2 * np.pi * variance)  # (S, N)

    # --- the bound ------------------------------------------------------------------------------------------------

    @checked(x="tensor (N, self.data_dim)", rng="rng", n_samples="count", average="flag",
             also=_checks.pixels_if_bernoulli)
    def elbo(self, x, *, rng, n_samples=1, average=True):
        """The evidence lower bound ELBO(x) = E_q log p_θ(x | z) − KL(q_φ(z | x) ‖ N(0, I)) <= log p_θ(x), eq. (9.5).

        The expectation is estimated with ``n_samples`` codes z = μ + σ ⊙ ε per example (:func:`reparameterize`,
        ε ~ N(0, I) from ``rng``) and :meth:`log_likelihood`; the KL term is exact (:func:`gaussian_kl`). The
        estimate is unbiased for the ELBO, and differentiable with respect to every parameter of the encoder and
        the decoder.

        Parameters
        ----------
        x : Tensor or array of shape (N, data_dim)
            In [0, 1] for ``likelihood="bernoulli"``.
        rng : numpy.random.Generator
            Draws ε, of shape (n_samples, N, latent_dim); a generator seeded the same way repeats the same ε.
        n_samples : int >= 1, default 1
        average : bool, default True
            Average the three terms over the N examples; with False, return one value per example.

        Returns
        -------
        elbo, reconstruction, kl : Tensors of shape () (or (N,) with ``average=False``)
            In nats, with elbo = reconstruction − kl; elbo is to be maximized (the loss is −elbo, :meth:`loss`).
        """
        mu, log_var = self.encode(x)  # (N, d_z) each
        eps = rng.standard_normal((n_samples, *mu.shape))  # (S, N, d_z)
        z = reparameterize(mu, log_var, eps)  # (S, N, d_z)
        reconstruction = self.log_likelihood(x, z).mean(axis=0)  # (N,): mean over the S samples
        kl = gaussian_kl(mu, log_var)  # (N,)
        elbo = reconstruction - kl  # (N,)
        if average:
            return elbo.mean(), reconstruction.mean(), kl.mean()
        return elbo, reconstruction, kl

    @checked(x="tensor (N, self.data_dim)", rng="rng", n_samples="count", also=_checks.pixels_if_bernoulli)
    def loss(self, x, *, rng, n_samples=1):
        """−ELBO averaged over the batch: the training loss, in nats per example (see :meth:`elbo`).

        Returns
        -------
        Tensor of shape ()
        """
        elbo, _, _ = self.elbo(x, rng=rng, n_samples=n_samples)
        return -elbo

    @checked(n="count", rng="rng", noise="flag")
    def sample(self, n, *, rng, noise=False):
        """n new data from the model: z ~ N(0, I), then the mean of p_θ(x | z), computed without a graph.

        Parameters
        ----------
        n : int >= 1
        rng : numpy.random.Generator
            Draws z (and the noise of x).
        noise : bool, default False
            Draw x ~ p_θ(x | z) itself instead of its mean: the mean plus N(0, σ_dec²) noise, or 0/1 pixels. Pictures
            of VAE samples usually show the mean.

        Returns
        -------
        ndarray of shape (n, data_dim)
        """
        z = Tensor(rng.standard_normal((n, self.latent_dim)))  # (n, d_z)
        with no_grad():
            mean = self.decode(z).data  # (n, data_dim)
        if not noise:
            return mean
        if self.likelihood == "bernoulli":
            return (rng.random(mean.shape) < mean).astype(np.float64)  # pixel d is 1 with probability mean_d
        return mean + self.sigma * rng.standard_normal(mean.shape)


@checked(n="count", extent="rate", also=_checks.two_codes_per_side)
def latent_grid(n, *, extent=2.0):
    """A square grid of 2-D codes, laid out as an image, for decoding with :meth:`VAE.decode`.

    Parameters
    ----------
    n : int >= 2
        Codes per side.
    extent : float > 0, default 2.0
        The grid spans [−extent, extent] in both coordinates (2.0: two prior standard deviations).

    Returns
    -------
    z : ndarray of shape (n, n, 2)
        z[i, j] = (u_j, v_i) with u increasing left to right and v decreasing top to bottom, as on a plot.
    """
    u = np.linspace(-extent, extent, n)  # (n,): left to right
    v = u[::-1]  # (n,): top to bottom
    return np.stack(np.meshgrid(u, v), axis=-1)  # (n, n, 2): [i, j] = (u_j, v_i)


@checked(data_dir=folder_holding(RING_COMPARISON))
def load_ring_vae(*, data_dir=None):
    """Chapter 9's VAE trained on the ring for 500 steps, and its training losses, as
    ``tools/train_generative_comparison.py`` wrote them for the chapter's seed; the file is checked against
    ``data/SHA256SUMS`` first.

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``ring_generative_comparison.npz`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    model : VAE
        A latent space of 2 dimensions, two hidden layers of 32 tanh units on each side and a decoder standard
        deviation of 0.2, with the trained parameters.
    losses : ndarray of shape (S,)
        The loss (the negative ELBO, nats per point) at each of the S training steps, in order.
    """
    def build(config):
        return VAE(data_dim=2, latent_dim=2, hidden=(32, 32), sigma=config["vae"]["sigma_dec"], activation="tanh",
                   rng=np.random.default_rng(0))

    return _load_chapter_model("vae", build, data_dir=data_dir)
