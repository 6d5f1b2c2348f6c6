"""The checks of chapter 9's arguments that no role string of the input contract describes, each once.

Two kinds (see ``implementations._contract``):

- *roles*, ``check(value, name) -> value``, named in a declaration like a role string: ``schedule=a_schedule``;
- *cross-argument checks*, named in ``also=``, which receive the already converted arguments they name (a batch that
  must fit the GAN it is given to, time steps that must lie in 1, …, T of the schedule).

Every message names the argument, says what was received and what was expected, and how to fix it.
"""

import numbers

import numpy as np

from .._contract import ResultsChecked
from .._validation import (
    _describe,
    as_array,
    as_finite_array,
    check_callable,
    check_finite_values,
    check_positive_int,
)
from ..engine import Tensor

__all__ = []


# --- roles: one value, by its name -----------------------------------------------------------------------------------

def instance_of(cls, example):
    """The role "an instance of ``cls``", whose message suggests ``example`` (how to make one)."""

    def check(value, name):
        if not isinstance(value, cls):
            raise TypeError(f"{name} must be a {cls.__name__}; received {_describe(value)}. Pass e.g. "
                            f"{name}={example}.")
        return value

    check.__qualname__ = check.__name__ = f"a_{cls.__name__}"
    return check


def one_of(**meanings):
    """The role "one of these strings", whose message says what each string stands for (``meanings``)."""
    options = ", ".join(f"{option!r} ({meaning})" for option, meaning in meanings.items())

    def check(value, name):
        if not isinstance(value, str) or value not in meanings:
            raise ValueError(f"{name} must be one of {options}; received {value!r}.")
        return value

    return check


generator_loss_kind = one_of(non_saturating="−E log D(G(z)), the one to train with",
                             minimax="E log(1 − D(G(z))), the game's own term, shown for comparison")
likelihood = one_of(gaussian="for real-valued data", bernoulli="for pixels in [0, 1]")
sampler_variance = one_of(beta="σ_t² = β_t", posterior="σ_t² = β̃_t")



_NETWORK = {"d_optimizer": "discriminator", "g_optimizer": "generator"}  # whose parameters each optimizer updates


def optimizer(value, name):
    """An optimizer of :mod:`implementations.nn.optim` (something with ``params``, ``step`` and ``zero_grad``)."""
    if not all(callable(getattr(value, m, None)) for m in ("step", "zero_grad")) or not hasattr(value, "params"):
        raise TypeError(f"{name} must be an optimizer of implementations.nn.optim (Adam, SGD, ...) over the "
                        f"{_NETWORK.get(name, 'network')}'s parameters; received {_describe(value)}.")
    return value


def noise_predictor(value, name):
    """A noise predictor ε_θ in training: ``model(x_t, t)`` must return a Tensor of the shape of x_t (the loss
    differentiates it)."""
    model = check_callable(value, name, what="a noise predictor model(x_t, t), e.g. a Denoiser")
    return ResultsChecked(model, lambda epsilon_hat, x_t, t: trainable_prediction(epsilon_hat, x_t.shape))


def sampling_noise_predictor(value, name):
    """A noise predictor ε_θ in the sampler: ``model(x_t, t)`` must return finite values of the shape of x_t."""
    model = check_callable(value, name, what="a noise predictor model(x_t, t), e.g. a Denoiser")
    return ResultsChecked(model, lambda epsilon_hat, x_t, t: prediction_at_step(epsilon_hat, x_t.shape, int(t[0])))


def variance(value, name):
    """A noise variance β in the open interval (0, 1), or None (the function's default)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Real)
                              or not 0.0 < value < 1.0):
        raise ValueError(f"{name} must be a noise variance strictly between 0 and 1; received {value!r}.")
    return None if value is None else float(value)


def even_count(value, name):
    """The length of a sinusoidal embedding: an integer >= 1, even (a sine and a cosine per frequency)."""
    value = check_positive_int(value, name)
    if value % 2:
        raise ValueError(f"{name} must be even (a sine and a cosine per frequency); received {value}.")
    return value


def time_steps(t, name):
    """Diffusion time steps: one integer >= 0, or a 1-D array of them (whole floats too), as an int64 array."""
    steps = as_array(t, name, dtype=None)
    if steps.ndim > 1:
        raise ValueError(f"{name} must be one time step or a 1-D array of them, one per point; received shape "
                         f"{steps.shape}.")
    if steps.size == 0:
        raise ValueError(f"{name} is empty (shape {steps.shape}); expected at least one time step.")
    if steps.dtype.kind not in "iu":
        steps = check_finite_values(steps.astype(np.float64), name)
        fractional = steps[steps != np.round(steps)]
        if fractional.size:
            raise ValueError(f"{name} must hold whole time steps; received {fractional.flat[0]:g}.")
    if steps.min() < 0:
        raise ValueError(f"{name} must hold time steps ≥ 0; received values from {steps.min():g} to "
                         f"{steps.max():g}.")
    return steps.astype(np.int64)


def step_list(value, name):
    """None, or a list of time steps (any iterable but a string, read once); their range is checked with T."""
    if value is None:
        return None
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of time steps in 0, …, T; received {_describe(value)}.")
    return list(value)


def samples(x, name):
    """Samples as a float array of shape (N, d), d >= 1: a 1-D array holds N samples of one feature."""
    x = as_finite_array(x, name, ndim=(1, 2), allow_empty=False)
    x = x[:, None] if x.ndim == 1 else x  # (N, d)
    if x.shape[1] == 0:
        raise ValueError(f"{name} has no features (shape {x.shape}); expected samples of at least one feature.")
    return x


def samples_like(x, name, width):
    """Samples (N, d) of the space of the data the discriminator was trained on, which have ``width`` features."""
    x = samples(x, name)
    _same_width(x, name, width)
    return x


# --- cross-argument checks, named in also= ---------------------------------------------------------------------------

def _same_width(x, name, width, reference="x_real"):
    if x.shape[1] != width:
        raise ValueError(f"{name} has {x.shape[1]} feature(s) per sample (shape {x.shape}) but {reference} has "
                         f"{width}; expected samples of the same space: shape (N,) or (N, 1) for 1-D data, "
                         f"(N, {width}) for samples of {width} features.")


def same_space(x_real, x_fake):
    """The generated samples have as many features as the data."""
    _same_width(x_fake, "x_fake", x_real.shape[1])


def _at_least_two(x, name, when=" when minibatch_std=True"):
    if x.shape[0] < 2:
        raise ValueError(f"{name} must hold at least 2 samples{when} (the feature is the spread of the batch); "
                         f"received shape {x.shape}.")


def a_batch(x):
    """The minibatch standard deviation describes a batch: at least 2 samples."""
    _at_least_two(x, "x", when="")


def a_batch_if_minibatch_std(self, x):
    """A GAN's discriminator with minibatch_std judges batches of at least 2 samples."""
    if self.minibatch_std:
        _at_least_two(x, "x")


def fits_the_gan(gan, x_real):
    """A batch of data for ``gan``: data_dim features per sample, and 2 samples or more with minibatch_std."""
    if x_real.shape[1] != gan.data_dim:
        raise ValueError(f"x_real must have shape (N, {gan.data_dim}), one row per sample (data_dim = "
                         f"{gan.data_dim} features per sample); received shape {x_real.shape}.")
    if gan.minibatch_std:
        _at_least_two(x_real, "x_real")


def optimizers_of_the_gan(gan, d_optimizer, g_optimizer):
    """Each optimizer updates exactly its network's parameters (swapping the two is a silent bug)."""
    for name, given in (("d_optimizer", d_optimizer), ("g_optimizer", g_optimizer)):
        whose = _NETWORK[name]
        if {id(p) for p in given.params} != {id(p) for p in getattr(gan, whose).parameters()}:
            raise ValueError(f"{name} must update exactly the {whose}'s parameters; build it as "
                             f"Adam(gan.{whose}.parameters(), ...). (Is it the other network's optimizer?)")


def densities(p_data, p_model):
    """Two densities at the same points: equal shapes, >= 0, and not both 0 at any point."""
    if p_data.shape != p_model.shape:
        raise ValueError(f"p_data has shape {p_data.shape} but p_model has shape {p_model.shape}; expected both "
                         "densities evaluated at the same points (equal shapes).")
    for name, p in (("p_data", p_data), ("p_model", p_model)):
        if (p < 0).any():
            raise ValueError(f"{name} must hold densities >= 0; received {int((p < 0).sum())} negative value(s), "
                             f"such as {p[p < 0].flat[0]:g}. Pass density values, not log-densities.")
    both_zero = (p_data + p_model) == 0
    if both_zero.any():
        raise ValueError(f"p_data and p_model are both 0 at {int(both_zero.sum())} point(s), where D* = 0/0 is "
                         "undefined; evaluate them only where at least one density is positive.")


def noise_like_mu(mu, eps):
    """ε has the shape of μ, possibly after leading sample axes."""
    if eps.ndim < mu.ndim or eps.shape[eps.ndim - mu.ndim:] != mu.shape:
        raise ValueError(f"eps has shape {eps.shape}; expected the shape of mu, {mu.shape}, possibly after leading "
                         f"sample axes, e.g. (K, {', '.join(map(str, mu.shape))}) for K samples each.")


def pixels_if_bernoulli(self, x):
    """A Bernoulli decoder models pixel intensities in [0, 1]."""
    if self.likelihood == "bernoulli" and ((x.data < 0) | (x.data > 1)).any():
        raise ValueError(f"x must lie in [0, 1] for likelihood='bernoulli' (pixel intensities); received values "
                         f"from {x.data.min():g} to {x.data.max():g}. Scale the data first (digits: x / 16).")


def two_codes_per_side(n):
    """A grid needs at least 2 codes per side."""
    if n < 2:
        raise ValueError(f"n must be at least 2 codes per side; received {n}.")


def default_beta_T_below_one(T, beta_T):
    """The default β_T = 0.02 · 1000 / T is a variance below 1 only for T >= 21."""
    if beta_T is None and T < 21:
        raise ValueError(f"with T={T} steps the default beta_T = 0.02 * 1000 / T = {20 / T:g} is not below 1; pass "
                         "beta_T (and beta_1) yourself, e.g. beta_1=0.01, beta_T=0.5, or use more steps.")


def variances(betas):
    """Every β_t of a schedule lies strictly between 0 and 1."""
    outside = (betas <= 0) | (betas >= 1)
    if outside.any():
        t = int(np.flatnonzero(outside)[0]) + 1
        raise ValueError(f"betas must all lie strictly between 0 and 1 (each is the variance of the noise added at "
                         f"one step); received beta_{t} = betas[{t - 1}] = {betas[t - 1]:g}. Use "
                         "linear_beta_schedule(T) or cosine_beta_schedule(T).")


def _one_per_point(t, N):
    if t.ndim == 1 and t.shape[0] != N:
        raise ValueError(f"t must be one time step or one per point, shape ({N},); received shape {t.shape}.")


def steps_per_point(x, t):
    """One time step for all N points, or one per point."""
    _one_per_point(t, x.shape[0])


def steps_of_the_schedule(x0, t, schedule):
    """Steps of the forward process: one for all points or one per point, each in 1, …, T."""
    _one_per_point(t, x0.shape[0])
    if t.min() < 1 or t.max() > schedule.T:
        raise ValueError(f"t must hold time steps 1, …, T = {schedule.T}; received values from {t.min():g} to "
                         f"{t.max():g}.")


def knows_data_dim(model, data_dim):
    """The dimension D of the samples: given, or the model's ``data_dim``."""
    if data_dim is None and not hasattr(model, "data_dim"):
        raise TypeError("model has no attribute data_dim, so the dimension D of the samples is unknown; pass "
                        "data_dim=D.")


def kept_steps(schedule, return_trajectory, steps_to_keep):
    """Steps to keep in the trajectory: only with return_trajectory, each an integer in 0, …, T."""
    if steps_to_keep is None:
        return
    if not return_trajectory:
        raise ValueError("steps_to_keep was given but return_trajectory is False; pass return_trajectory=True to get "
                         "the snapshots, or leave steps_to_keep out.")
    T = schedule.T
    for step in steps_to_keep:
        if isinstance(step, (bool, np.bool_)) or not isinstance(step, numbers.Integral) or not 0 <= step <= T:
            raise ValueError(f"steps_to_keep must hold time steps 0, …, T = {T} (T is the starting noise, 0 the "
                             f"samples); received {step!r}.")


def two_points_each_if_unbiased(X, Y, unbiased):
    """The unbiased estimate averages over pairs of distinct points: at least 2 in each sample."""
    for name, sample in (("X", X), ("Y", Y)):
        if unbiased and sample.shape[0] < 2:
            raise ValueError(f"{name} has {sample.shape[0]} rows (shape {sample.shape}); expected at least 2 points, "
                             "one per row, for the unbiased estimate (pairs of distinct points), or unbiased=False.")


# --- what a model returned -------------------------------------------------------------------------------------------

def trainable_prediction(value, shape):
    """The output of ``model(x_t, t)`` in training: a Tensor of the shape of x_0 (the loss differentiates it)."""
    if not isinstance(value, Tensor) or value.shape != shape:
        raise ValueError(f"model must return a Tensor of the shape of x0, {shape} (one predicted noise per "
                         f"entry); it returned {_describe(value)}"
                         + (f" of shape {value.shape}" if isinstance(value, Tensor) else "") + ".")
    return value


def prediction_at_step(value, shape, t):
    """The output of ``model(x_t, t)`` at step t of the sampler, as a finite ndarray of the shape of x_t."""
    values = value.data if isinstance(value, Tensor) else as_array(value, "model(x_t, t)")
    if values.shape != shape:
        raise ValueError(f"model returned shape {values.shape} at step t = {t}; expected {shape}, one predicted noise "
                         "per entry of x_t.")
    if not np.isfinite(values).all():
        raise FloatingPointError(f"model returned NaN or inf at step t = {t}; the model has diverged (retrain it with "
                                 "a smaller learning rate).")
    return values
