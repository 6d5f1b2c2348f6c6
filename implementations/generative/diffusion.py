"""Denoising diffusion probabilistic models (DDPM; Ho et al., 2020) on the autograd engine, for points in the plane.

Chapter 9 of the book. The *forward process* destroys data x_0 in T small steps of Gaussian noise,

    q(x_t | x_{t−1}) = N(√(1 − β_t) x_{t−1}, β_t I),   t = 1, …, T,

with a *noise schedule* β_1, …, β_T in (0, 1). With α_t = 1 − β_t and ᾱ_t = α_1 α_2 ⋯ α_t, the steps compose into
one Gaussian, so x_t can be drawn from x_0 directly (:func:`q_sample`):

    q(x_t | x_0) = N(√ᾱ_t x_0, (1 − ᾱ_t) I),   i.e.   x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε,  ε ~ N(0, I).

When ᾱ_T ≈ 0, x_T is pure noise N(0, I). A network ε_θ(x_t, t) (:class:`Denoiser`) learns to predict the noise ε
that was added (:func:`diffusion_loss`); run backwards from x_T ~ N(0, I), its predictions turn noise into samples
(:func:`ddpm_sample`).

Conventions: time steps are numbered t = 1, …, T as in the paper, and the arrays of :class:`DDPMSchedule` hold step t
at index t − 1. Batches are first: points of shape (N, D). Randomness comes from an explicit ``rng``.
"""

import numpy as np

from .._contract import checked
from .._validation import folder_holding
from ..engine import Tensor, no_grad
from ..engine.functional import mse_loss
from ..nn.layers import ACTIVATIONS, MLP
from ..nn.module import Module
from . import _checks
from .mmd import RING_COMPARISON, _load_chapter_model

__all__ = ["linear_beta_schedule", "cosine_beta_schedule", "DDPMSchedule", "q_sample", "sinusoidal_time_embedding",
           "Denoiser", "diffusion_loss", "ddpm_sample", "load_ring_denoiser"]


@checked(T="count", beta_1=_checks.variance, beta_T=_checks.variance, also=_checks.default_beta_T_below_one)
def linear_beta_schedule(T, *, beta_1=None, beta_T=None):
    """The linear noise schedule of Ho et al. (2020), eq. (9.10): β_t rises linearly from β_1 to β_T.

    β_t = β_1 + (t − 1)/(T − 1) · (β_T − β_1). Ho et al. use β_1 = 10⁻⁴ and β_T = 0.02 with T = 1000 steps. With
    fewer steps the same values would add too little noise (for T = 50, ᾱ_T ≈ 0.6: x_T would still be mostly data),
    so the defaults are those values scaled by 1000/T, as Nichol and Dhariwal (2021) do for any T: β_1 = 0.1/T and
    β_T = 20/T, which keep Σ β_t ≈ 10 and ᾱ_T below 10⁻⁴ whatever T. They need T ≥ 21 (β_T < 1); pass both
    values for fewer steps.

    Parameters
    ----------
    T : int
        Number of diffusion steps, ≥ 1 (≥ 21 with the default β_T).
    beta_1 : float in (0, 1), optional
        β of the first step; default 10⁻⁴ · 1000/T.
    beta_T : float in (0, 1), optional
        β of the last step; default 0.02 · 1000/T.

    Returns
    -------
    betas : ndarray of shape (T,)
        betas[t − 1] = β_t.
    """
    beta_1 = 1e-4 * 1000 / T if beta_1 is None else beta_1
    beta_T = 0.02 * 1000 / T if beta_T is None else beta_T
    return np.linspace(beta_1, beta_T, T)  # (T,)


@checked(T="count", s="rate")
def cosine_beta_schedule(T, *, s=0.008):
    """The cosine noise schedule of Nichol and Dhariwal (2021), eq. (9.10), defined through ᾱ_t rather than β_t.

    ᾱ_t = f(t) / f(0) with f(t) = cos²((t/T + s)/(1 + s) · π/2), and β_t = 1 − ᾱ_t / ᾱ_{t−1}, clipped at 0.999 as in
    the paper, since β_T would otherwise be 1 (f(T) = 0). ᾱ_t falls slowly at both ends and nearly linearly in
    between, so fewer steps are wasted on almost pure noise than with the linear schedule. The small offset s keeps
    β_1 from being tiny.

    Parameters
    ----------
    T : int
        Number of diffusion steps, ≥ 1.
    s : float, default 0.008
        Offset > 0.

    Returns
    -------
    betas : ndarray of shape (T,)
        betas[t − 1] = β_t, in (0, 0.999].
    """
    f = np.cos((np.arange(T + 1) / T + s) / (1 + s) * np.pi / 2) ** 2  # (T + 1,) f(0), …, f(T)
    alpha_bar = f / f[0]  # (T + 1,) ᾱ_0 = 1, …, ᾱ_T
    return np.minimum(1.0 - alpha_bar[1:] / alpha_bar[:-1], 0.999)  # (T,)


class DDPMSchedule:
    """What the forward process and the sampler use of a noise schedule: ᾱ_t, eq. (9.9), and β̃_t, eq. (9.11).

    Attributes (read-only arrays of shape (T,), step t at index t − 1):

    * ``betas``: β_t, the variance of the noise added at step t;
    * ``alphas``: α_t = 1 − β_t;
    * ``alpha_bars``: ᾱ_t = α_1 ⋯ α_t, so that x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε;
    * ``posterior_variances``: β̃_t = (1 − ᾱ_{t−1}) / (1 − ᾱ_t) · β_t (with ᾱ_0 = 1, so β̃_1 = 0), the variance of
      q(x_{t−1} | x_t, x_0).

    and ``T``, the number of steps. Any β_t in (0, 1) is accepted; they need not increase (ᾱ_t decreases anyway).

    Parameters
    ----------
    betas : array_like of shape (T,)
        From :func:`linear_beta_schedule`, :func:`cosine_beta_schedule`, or your own.
    """

    @checked(betas="array (T,)", also=_checks.variances)
    def __init__(self, betas):
        self.T = betas.shape[0]
        self.betas = betas.copy()  # (T,)
        self.alphas = 1.0 - self.betas  # (T,)
        self.alpha_bars = np.cumprod(self.alphas)  # (T,) ᾱ_t = α_1 ⋯ α_t
        alpha_bars_before = np.r_[1.0, self.alpha_bars[:-1]]  # (T,) ᾱ_{t−1}, with ᾱ_0 = 1
        self.posterior_variances = (1.0 - alpha_bars_before) / (1.0 - self.alpha_bars) * self.betas  # (T,) β̃_t
        for array in (self.betas, self.alphas, self.alpha_bars, self.posterior_variances):
            array.setflags(write=False)  # changing one would make the others wrong

    def __repr__(self):
        return (f"DDPMSchedule(T={self.T}, beta_1={self.betas[0]:.3g}, beta_T={self.betas[-1]:.3g}, "
                f"alpha_bar_T={self.alpha_bars[-1]:.3g})")


A_SCHEDULE = _checks.instance_of(DDPMSchedule, "DDPMSchedule(linear_beta_schedule(50))")  # the role of a schedule


@checked(x0="array (N, D)", t=_checks.time_steps, noise="array (N, D)", schedule=A_SCHEDULE,
         also=_checks.steps_of_the_schedule)
def q_sample(x0, t, noise, schedule):
    """Draw x_t from q(x_t | x_0) in one step: x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε, eq. (9.9).

    Applying the T single steps x_t = √(1 − β_t) x_{t−1} + √β_t ε_t one after the other gives the same distribution:
    a sum of independent Gaussians is Gaussian, its mean is √(α_1 ⋯ α_t) x_0 and its variance 1 − ᾱ_t.

    Parameters
    ----------
    x0 : array_like of shape (N, D)
        Data points x_0.
    t : int or array_like of int, shape (N,)
        Time steps in 1, …, T: one for all points or one per point.
    noise : array_like of shape (N, D)
        ε, standard normal draws (``rng.standard_normal(x0.shape)``), passed in so that a training step can compare
        the network's prediction with it.
    schedule : DDPMSchedule

    Returns
    -------
    x_t : ndarray of shape (N, D)
    """
    alpha_bar = np.reshape(schedule.alpha_bars[t - 1], (-1, 1))  # (N, 1) ᾱ_t of each point, or (1, 1) for one t
    return np.sqrt(alpha_bar) * x0 + np.sqrt(1.0 - alpha_bar) * noise  # (N, D)


@checked(t=_checks.time_steps, dim=_checks.even_count, max_period="rate")
def sinusoidal_time_embedding(t, dim, *, max_period=10000.0):
    """The sinusoidal embedding of time steps of the transformer (Vaswani et al., 2017), eq. (7.11), as DDPM uses it.

    For i = 0, …, dim/2 − 1, with frequencies ω_i = max_period^(−2i/dim) from 1 down to about 1/max_period,

        e(t)[i] = sin(ω_i t),   e(t)[dim/2 + i] = cos(ω_i t),

    so nearby steps get similar vectors and every step a distinct one. The network sees e(t) instead of the number t.

    Parameters
    ----------
    t : int or array_like of shape (N,)
        Time steps, integers ≥ 0.
    dim : int
        Length of each embedding, even and ≥ 2.
    max_period : float, default 10000.0
        1/ω of the slowest frequency, > 0; of the order of the number of steps or more.

    Returns
    -------
    embedding : ndarray of shape (N, dim), or (1, dim) for a single step
    """
    steps = np.atleast_1d(t)  # (N,): a single step is one row
    half = dim // 2
    omega = max_period ** (-np.arange(half) / half)  # (dim/2,) ω_i = max_period^(−2i/dim)
    angle = np.arange(steps.max() + 1)[:, None] * omega[None, :]  # (t_max + 1, dim/2): each step once, not N times
    table = np.concatenate([np.sin(angle), np.cos(angle)], axis=1)  # (t_max + 1, dim) e(0), …, e(t_max)
    return table[steps]  # (N, dim)


class Denoiser(Module):
    """The noise predictor ε_θ(x_t, t) of a diffusion model: an MLP of x_t and the embedding of t.

    ε_θ(x_t, t) = MLP([x_t, e(t)]), the point x_t (D numbers) concatenated with the sinusoidal embedding e(t) of
    :func:`sinusoidal_time_embedding` (``time_dim`` numbers); the MLP (:class:`implementations.nn.layers.MLP`) has the
    hidden layers ``hidden`` and D outputs, one predicted noise value per coordinate. The time step must reach the
    network: the same x_t is mostly data at t = 1 and mostly noise at t = T, and calls for different predictions.

    Parameters
    ----------
    data_dim : int, default 2
        D, the dimension of the data.
    hidden : sequence of int, default (48, 48, 48)
        Widths of the hidden layers, each ≥ 1. Three layers learn the eight modes of
        :func:`~implementations.data.synthetic.make_gaussian_ring` in far fewer steps than two wider ones.
    time_dim : int, default 16
        Length of the time embedding, even.
    max_period : float, default 10000.0
        Of the time embedding (see :func:`sinusoidal_time_embedding`).
    activation : {"gelu", "relu", "tanh", "sigmoid"}, default "gelu"
    rng : numpy.random.Generator
        Initial weights (He's rule for ReLU and GELU, Xavier's for tanh and sigmoid).
    """

    @checked(data_dim="count", hidden="widths", time_dim=_checks.even_count, max_period="rate",
             activation=ACTIVATIONS, rng="rng")
    def __init__(self, data_dim=2, *, hidden=(48, 48, 48), time_dim=16, max_period=10000.0, activation="gelu", rng):
        self.data_dim, self.time_dim, self.max_period = data_dim, time_dim, max_period
        self.net = MLP([data_dim + time_dim, *hidden, data_dim], activation=activation, rng=rng)

    @checked(x="array (N, self.data_dim)", t=_checks.time_steps, also=_checks.steps_per_point)
    def forward(self, x, t):
        """The predicted noise ε_θ(x_t, t).

        Parameters
        ----------
        x : array_like of shape (N, D)
            Noisy points x_t: inputs of the network, not differentiated (a Tensor is read as its values).
        t : int or array_like of int, shape (N,)
            Their time steps, integers ≥ 0: one for all points or one per point.

        Returns
        -------
        Tensor of shape (N, D)
        """
        steps = np.broadcast_to(t, (x.shape[0],))  # (N,): one step per point
        e = sinusoidal_time_embedding(steps, self.time_dim, max_period=self.max_period)  # (N, time_dim) e(t)
        h = Tensor(np.concatenate([x, e], axis=1))  # (N, D + time_dim) [x_t, e(t)]: the input, no gradient
        return self.net(h)  # (N, D)


@checked(model=_checks.noise_predictor, x0="array (N, D)", schedule=A_SCHEDULE, rng="rng")
def diffusion_loss(model, x0, *, schedule, rng):
    """The simplified DDPM objective of Ho et al. (2020), eq. (9.12), estimated on a batch: predict the noise.

    For each point x_0 of the batch, draw a step t uniform on 1, …, T and ε ~ N(0, I), form
    x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε (:func:`q_sample`) and compare the prediction with the noise:

        L = (1/(N D)) Σ_n ‖ε_n − ε_θ(x_t,n, t_n)‖²,

    the mean over all N·D entries (L_simple of the paper divided by D). The draws come from ``rng`` in this order:
    the N steps, then the N × D noise values.

    Parameters
    ----------
    model : callable
        ε_θ: ``model(x_t, t)`` with x_t an ndarray (N, D) and t an int ndarray (N,) returns a Tensor (N, D), e.g. a
        :class:`Denoiser`.
    x0 : array_like of shape (N, D)
        A batch of data.
    schedule : DDPMSchedule
    rng : numpy.random.Generator

    Returns
    -------
    loss : Tensor of shape ()
        Differentiable with respect to the model's parameters.
    """
    N = x0.shape[0]
    t = rng.integers(1, schedule.T + 1, size=N)  # (N,) uniform on 1, …, T
    epsilon = rng.standard_normal(x0.shape)  # (N, D)
    x_t = q_sample(x0, t, epsilon, schedule)  # (N, D), eq. (9.9)
    epsilon_hat = model(x_t, t)  # (N, D) ε_θ(x_t, t), a Tensor
    return mse_loss(epsilon_hat, Tensor(epsilon))  # the mean of (ε − ε_θ)² over the N·D entries


@checked(model=_checks.sampling_noise_predictor, n="count", schedule=A_SCHEDULE, rng="rng", data_dim="count?",
         variance=_checks.sampler_variance, return_trajectory="flag", steps_to_keep=_checks.step_list,
         also=(_checks.knows_data_dim, _checks.kept_steps))
def ddpm_sample(model, n, *, schedule, rng, data_dim=None, variance="beta", return_trajectory=False,
                steps_to_keep=None):
    """Ancestral sampling of DDPM (Ho et al., 2020, Algorithm 2), eq. (9.13): from noise x_T ~ N(0, I) to data x_0.

    For t = T, …, 1:

        x_{t−1} = (1/√α_t) (x_t − β_t/√(1 − ᾱ_t) · ε_θ(x_t, t)) + σ_t u,   u ~ N(0, I) for t > 1, u = 0 for t = 1.

    The first term is the mean of q(x_{t−1} | x_t, x_0) with x_0 replaced by the model's estimate
    (x_t − √(1 − ᾱ_t) ε_θ) / √ᾱ_t. The variance σ_t² is a choice; Ho et al. found both of these to work equally well:

    * ``variance="beta"`` (default): σ_t² = β_t, the variance of the reverse step when the data are N(μ, I), for
      which the samples are then exact up to ᾱ_T and β_1;
    * ``variance="posterior"``: σ_t² = β̃_t = (1 − ᾱ_{t−1})/(1 − ᾱ_t) β_t, the variance when the data are a single
      point, which it then returns exactly.

    For other data each is an approximation, which improves as T grows. With T = 50, a perfect ε_θ and data
    N(μ, 0.05² I) (one mode of :func:`~implementations.data.synthetic.make_gaussian_ring`), the samples have standard
    deviation 0.050 with β_t and 0.034 with β̃_t under the cosine schedule, 0.063 and 0.030 under the linear one.

    Parameters
    ----------
    model : callable
        ε_θ: ``model(x_t, t)`` with x_t an ndarray (n, D) and t an int ndarray (n,) returns the predicted noise, a
        Tensor or an array of shape (n, D); e.g. a trained :class:`Denoiser`. Called T times, without gradients.
    n : int
        Number of samples, ≥ 1.
    schedule : DDPMSchedule
        The schedule the model was trained with.
    rng : numpy.random.Generator
        Draws x_T, then u at t = T, …, 2.
    data_dim : int, optional
        D; by default ``model.data_dim`` (a :class:`Denoiser` has it).
    variance : {"beta", "posterior"}, default "beta"
    return_trajectory : bool, default False
        Also return snapshots of x_t along the way.
    steps_to_keep : iterable of int, optional
        Steps t in 0, …, T whose x_t to keep (T is the starting noise, 0 the samples); by default all of them.
        Only with ``return_trajectory=True``.

    Returns
    -------
    samples : ndarray of shape (n, D)
        x_0.
    trajectory : dict of int -> ndarray of shape (n, D)
        Only with ``return_trajectory=True``: x_t for each kept step t, from the largest t down.

    Raises
    ------
    FloatingPointError
        If the model returns NaN or inf (it diverged in training).
    """
    D = model.data_dim if data_dim is None else data_dim
    keep = set(range(schedule.T + 1) if steps_to_keep is None else steps_to_keep)  # the steps whose x_t to return
    sigmas = np.sqrt(schedule.betas if variance == "beta" else schedule.posterior_variances)  # (T,) σ_t
    x = rng.standard_normal((n, D))  # (n, D) x_T ~ N(0, I)
    trajectory = {schedule.T: x.copy()} if schedule.T in keep else {}
    with no_grad():
        for t in range(schedule.T, 0, -1):
            beta, alpha, alpha_bar = schedule.betas[t - 1], schedule.alphas[t - 1], schedule.alpha_bars[t - 1]
            epsilon_hat = model(x, np.full(n, t))  # (n, D) ε_θ(x_t, t), as an array
            mean = (x - beta / np.sqrt(1.0 - alpha_bar) * epsilon_hat) / np.sqrt(alpha)  # (n, D) μ_θ(x_t, t)
            x = mean + sigmas[t - 1] * rng.standard_normal((n, D)) if t > 1 else mean  # (n, D) x_{t−1}
            if t - 1 in keep:
                trajectory[t - 1] = x.copy()
    return (x, trajectory) if return_trajectory else x


@checked(data_dir=folder_holding(RING_COMPARISON))
def load_ring_denoiser(*, data_dir=None):
    """Chapter 9's denoiser trained on the ring, and its training losses, as ``tools/train_generative_comparison.py``
    wrote them for the chapter's seed; the file is checked against ``data/SHA256SUMS`` first.

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``ring_generative_comparison.npz`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    denoiser : Denoiser
        Three hidden layers of 48 GELU units and a time embedding of length 16, with the trained parameters.
    losses : ndarray of shape (S,)
        The loss of :func:`diffusion_loss` at each of the S training steps, in order.
    """
    def build(config):
        return Denoiser(data_dim=2, hidden=(48, 48, 48), time_dim=16, rng=np.random.default_rng(0))

    return _load_chapter_model("ddpm", build, data_dir=data_dir)
