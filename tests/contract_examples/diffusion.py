"""Valid examples for the input contract: diffusion (chapter 9's denoising diffusion model)."""

import math

import numpy as np

from contract import Example
from implementations.engine.autograd import Tensor
from implementations.generative import diffusion

_rng = np.random.default_rng(0)
T = 5  # diffusion steps of the examples
X0 = _rng.normal(size=(4, 2))  # (N, D) = (4, 2)
NOISE = _rng.normal(size=(4, 2))  # (N, D)
STEPS = np.array([1, 3, 5, 2])  # (N,) in 1..T


def rng():
    return np.random.default_rng(0)


def schedule():
    return diffusion.DDPMSchedule(diffusion.cosine_beta_schedule(T))


def denoiser():
    return diffusion.Denoiser(2, hidden=(4,), time_dim=4, rng=rng())


# Steps of the forward process: integers 1..T, one for all points or one per point.
_STEP_EXTRAS = [("a step 0", {"t": 0}, ()), ("a step T + 1", {"t": T + 1}, ()), ("a fractional step", {"t": 1.5}, ()),
                ("a NaN step", {"t": math.nan}, ()), ("a string", {"t": "1"}, ()),
                ("one step fewer than points", {"t": STEPS[:-1]}, ()), ("a matrix of steps", {"t": STEPS[None]}, ())]
# Steps of a time embedding: integers >= 0, no upper bound.
_ANY_STEP_EXTRAS = [("a step -1", {"t": -1}, ()), ("a fractional step", {"t": 1.5}, ()),
                    ("an inf step", {"t": math.inf}, ()), ("a string", {"t": "1"}, ())]
_SCHEDULE_EXTRAS = [("betas instead of a schedule", {"schedule": diffusion.linear_beta_schedule(30)}, ()),
                    ("None", {"schedule": None}, ())]
_MODEL_EXTRAS = [("a string", {"model": "denoiser"}, ()),
                 ("a model of the wrong output shape", {"model": lambda x, t: Tensor(np.zeros((len(x), 3)))}, ())]

EXAMPLES = {
    "implementations.generative.diffusion.linear_beta_schedule": Example(
        build=lambda: (diffusion.linear_beta_schedule, {"T": 30, "beta_1": None, "beta_T": None}),
        roles={"T": "count", "beta_1": "prob?", "beta_T": "prob?"},
        extra=[("too few steps for the default beta_T", {"T": 20}, ()), ("a beta_1 of 0", {"beta_1": 0.0}, ()),
               ("a beta_T of 1", {"beta_T": 1.0}, ())]),
    "implementations.generative.diffusion.cosine_beta_schedule": Example(
        build=lambda: (diffusion.cosine_beta_schedule, {"T": T, "s": 0.008}),
        roles={"T": "count", "s": "rate"}),
    "implementations.generative.diffusion.DDPMSchedule": Example(
        build=lambda: (diffusion.DDPMSchedule, {"betas": diffusion.cosine_beta_schedule(T)}),
        roles={"betas": "array"},
        extra=[("a beta of 0", {"betas": [0.1, 0.0]}, ()), ("a beta of 1", {"betas": [0.1, 1.0]}, ()),
               ("a negative beta", {"betas": [-0.1, 0.2]}, ())]),
    "implementations.generative.diffusion.q_sample": Example(
        build=lambda: (diffusion.q_sample, {"x0": X0, "t": STEPS, "noise": NOISE, "schedule": schedule()}),
        roles={"x0": "array", "noise": "aligned:x0"},
        extra=_STEP_EXTRAS + _SCHEDULE_EXTRAS + [("noise of another width", {"noise": np.zeros((4, 3))}, ())]),
    "implementations.generative.diffusion.sinusoidal_time_embedding": Example(
        build=lambda: (diffusion.sinusoidal_time_embedding, {"t": STEPS, "dim": 4, "max_period": 100.0}),
        roles={"dim": "count", "max_period": "rate"},
        extra=_ANY_STEP_EXTRAS + [("an odd dim", {"dim": 3}, ()), ("a matrix of steps", {"t": STEPS[None]}, ()),
                                  ("no steps", {"t": STEPS[:0]}, ())]),
    "implementations.generative.diffusion.Denoiser": Example(
        build=lambda: (diffusion.Denoiser, {"data_dim": 2, "hidden": (4, 3), "time_dim": 4, "max_period": 100.0,
                                            "activation": "gelu", "rng": rng()}),
        roles={"data_dim": "count", "time_dim": "count", "max_period": "rate", "rng": "rng"},
        extra=[("an odd time_dim", {"time_dim": 5}, ()), ("a string", {"hidden": "wide"}, ()),
               ("a width 0", {"hidden": (4, 0)}, ()), ("a fractional width", {"hidden": (4, 2.5)}, ()),
               ("a number", {"hidden": 4}, ()), ("an unknown activation", {"activation": "swish"}, ())]),
    "implementations.generative.diffusion.Denoiser.forward": Example(
        build=lambda: (denoiser().forward, {"x": Tensor(X0), "t": STEPS}),
        roles={"x": "tensor"},
        extra=_ANY_STEP_EXTRAS + [("points of another dimension", {"x": np.zeros((4, 3))}, ()),
                                  ("one step fewer than points", {"t": STEPS[:-1]}, ()),
                                  ("a single point (D,)", {"x": X0[0]}, ())]),
    "implementations.generative.diffusion.diffusion_loss": Example(
        build=lambda: (diffusion.diffusion_loss, {"model": denoiser(), "x0": X0, "schedule": schedule(), "rng": rng()}),
        roles={"x0": "array", "rng": "rng"},
        extra=_MODEL_EXTRAS + _SCHEDULE_EXTRAS),
    "implementations.generative.diffusion.ddpm_sample": Example(
        build=lambda: (diffusion.ddpm_sample, {"model": denoiser(), "n": 3, "schedule": schedule(), "rng": rng(),
                                               "data_dim": 2, "variance": "posterior", "return_trajectory": True,
                                               "steps_to_keep": [0, 2, T]}),
        roles={"n": "count", "rng": "rng", "data_dim": "count", "return_trajectory": "flag"},
        extra=_MODEL_EXTRAS + _SCHEDULE_EXTRAS + [
            ("an unknown variance", {"variance": "fixed"}, ()), ("a step T + 1", {"steps_to_keep": [0, T + 1]}, ()),
            ("a step -1", {"steps_to_keep": [-1]}, ()), ("a fractional step", {"steps_to_keep": [1.5]}, ()),
            ("a number", {"steps_to_keep": 3}, ()), ("a string", {"steps_to_keep": "all"}, ()),
            ("without return_trajectory", {"return_trajectory": False}, ()),
            ("a model returning NaN", {"model": lambda x, t: x * math.nan}, (FloatingPointError,))]),
    "implementations.generative.diffusion.load_ring_denoiser": Example(
        build=lambda: (diffusion.load_ring_denoiser, {}),
        extra=[("a missing folder", {"data_dir": "/nonexistent/folder"}, (FileNotFoundError,)),
               ("a number as the folder", {"data_dir": 42}, (TypeError,))]),
}
