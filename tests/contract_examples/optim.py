"""Valid examples for the input contract: optim (chapter 4's optimizers and gradient clipping, AdamW, learning-rate
schedules)."""

import math

import numpy as np

from contract import Example
from implementations.engine.autograd import Tensor
from implementations.nn import optim

_rng = np.random.default_rng(0)
THETA = _rng.normal(size=(2, 3))  # (2, 3) a parameter
GRAD = _rng.normal(size=(2, 3))  # its gradient


def params():
    """Fresh parameters with gradients: a (2, 3) weight and a (3,) bias."""
    W, b = Tensor(THETA, requires_grad=True), Tensor(np.zeros(3), requires_grad=True)
    W.grad, b.grad = GRAD.copy(), np.ones(3)
    return [W, b]


def _with_nan_gradient():
    p = Tensor(THETA, requires_grad=True)
    p.grad = np.full((2, 3), math.nan)
    return [p]


_BAD_PARAMS = [("an empty list", {"params": []}, ()),
               ("a single Tensor", {"params": Tensor(THETA, requires_grad=True)}, ()),
               ("a Tensor without requires_grad", {"params": [Tensor(THETA)]}, ())]


def _step(optimizer, **kwargs):
    def build():
        return optimizer(params(), **kwargs).step, {}
    return build


EXAMPLES = {
    "implementations.nn.optim.SGD": Example(
        build=lambda: (optim.SGD, {"params": params(), "lr": 0.1, "momentum": 0.9, "weight_decay": 0.01}),
        roles={"params": "params", "lr": "rate", "momentum": "penalty", "weight_decay": "penalty"},
        extra=_BAD_PARAMS),
    "implementations.nn.optim.SGD.step": Example(build=_step(optim.SGD, lr=0.1, momentum=0.9)),
    "implementations.nn.optim.Adam": Example(
        build=lambda: (optim.Adam, {"params": params(), "lr": 0.01, "betas": (0.9, 0.999), "eps": 1e-8,
                                    "weight_decay": 0.0}),
        roles={"params": "params", "lr": "rate", "eps": "rate", "weight_decay": "penalty"},
        extra=_BAD_PARAMS + [
            ("a learning rate above Adam's range (each step moves every weight by about lr)", {"lr": 1e6}, ()),
            ("a beta of 1", {"betas": (1.0, 0.999)}, ()), ("a NaN beta", {"betas": (0.9, math.nan)}, ()),
            ("a negative beta", {"betas": (-0.1, 0.999)}, ()), ("one beta", {"betas": (0.9,)}, ()),
            ("a string", {"betas": "0.9, 0.999"}, ()), ("a string beta", {"betas": ("0.9", 0.999)}, ())]),
    "implementations.nn.optim.Adam.step": Example(build=_step(optim.Adam, lr=0.01)),
    "implementations.nn.optim.AdamW": Example(
        build=lambda: (optim.AdamW, {"params": params(), "lr": 0.01, "betas": (0.9, 0.999), "eps": 1e-8,
                                     "weight_decay": 0.1}),
        roles={"params": "params", "lr": "rate", "eps": "rate", "weight_decay": "penalty"},
        extra=_BAD_PARAMS + [
            ("a learning rate above Adam's range (each step moves every weight by about lr)", {"lr": 1e6}, ()),
            ("a decay with lr * weight_decay >= 1 (the weights would flip sign)", {"weight_decay": 100.0}, ()),
            ("a beta of 1", {"betas": (1.0, 0.999)}, ()), ("one beta", {"betas": (0.9,)}, ())]),
    "implementations.nn.optim.AdamW.step": Example(build=_step(optim.AdamW, lr=0.01, weight_decay=0.1)),
    "implementations.nn.optim._Optimizer.zero_grad": Example(
        build=lambda: (optim.SGD(params(), 0.1).zero_grad, {})),
    "implementations.nn.optim.clip_grad_norm": Example(
        build=lambda: (optim.clip_grad_norm, {"params": params(), "max_norm": 1.0}),
        roles={"params": "params", "max_norm": "rate"},
        extra=[("an empty list", {"params": []}, ()),
               ("a single Tensor", {"params": Tensor(THETA, requires_grad=True)}, ()),
               ("a NaN gradient (the loss diverged)", {"params": _with_nan_gradient()}, (FloatingPointError,))],
        raises=(FloatingPointError,)),
}

_SCHEDULE_ROLES = {"step": "count0", "lr": "rate"}

EXAMPLES.update({
    "implementations.nn.optim.step_decay": Example(
        build=lambda: (optim.step_decay, {"step": 7, "lr": 0.1, "step_size": 3, "gamma": 0.5}),
        roles={**_SCHEDULE_ROLES, "step_size": "count", "gamma": "rate"},
        extra=[("a gamma above 1 (the rate would grow)", {"gamma": 2.0}, ())]),
    "implementations.nn.optim.cosine_annealing": Example(
        build=lambda: (optim.cosine_annealing, {"step": 3, "lr": 0.1, "total_steps": 10, "min_lr": 0.01}),
        roles={**_SCHEDULE_ROLES, "total_steps": "count", "min_lr": "penalty"},
        extra=[("a step past the end of the schedule", {"step": 10}, ()),
               ("a min_lr above lr", {"min_lr": 0.2}, ())]),
    "implementations.nn.optim.linear_warmup": Example(
        build=lambda: (optim.linear_warmup, {"step": 2, "lr": 0.1, "warmup_steps": 5}),
        roles={**_SCHEDULE_ROLES, "warmup_steps": "count0"}),
    "implementations.nn.optim.warmup_cosine": Example(
        build=lambda: (optim.warmup_cosine, {"step": 4, "lr": 0.1, "warmup_steps": 3, "total_steps": 10,
                                             "min_lr": 0.0}),
        roles={**_SCHEDULE_ROLES, "warmup_steps": "count0", "total_steps": "count", "min_lr": "penalty"},
        extra=[("a warm-up longer than the run", {"warmup_steps": 12}, ()),
               ("a warm-up as long as the run (nothing left to anneal)", {"warmup_steps": 10}, ()),
               ("a step past the end of the schedule", {"step": 10}, ()),
               ("a min_lr above lr", {"min_lr": 0.2}, ())]),
})
