"""Valid examples for the input contract: functional (losses and dropout on Tensors)."""

import math

import numpy as np

from contract import Example
from contract_examples.autograd import any_nd_tensor
from implementations.engine import functional as F
from implementations.engine.autograd import Tensor

_rng = np.random.default_rng(0)
LOGITS = _rng.normal(size=(4, 3))  # (N, K) = (4, 3)
Y = np.array([0, 2, 1, 2])  # (N,) classes 0..K-1
Z = _rng.normal(size=4)  # (N,) binary logits
T = np.array([0.0, 1.0, 1.0, 0.0])  # (N,) binary targets


def logits():
    return Tensor(LOGITS, requires_grad=True)


EXAMPLES = {
    "implementations.engine.functional.cross_entropy": Example(
        build=lambda: (F.cross_entropy, {"logits": logits(), "targets": Y, "ignore_index": None}),
        roles={"logits": "tensor", "targets": "labels:3:logits"},
        extra=[("a fractional index", {"ignore_index": 1.5}, ()), ("a string", {"ignore_index": "pad"}, ()),
               ("NaN", {"ignore_index": math.nan}, ()), ("a single number", {"logits": 1.0}, ()),
               ("targets as floats with 0.5", {"targets": [0.0, 0.5, 1.0, 2.0]}, ())]),
    "implementations.engine.functional.binary_cross_entropy_with_logits": Example(
        build=lambda: (F.binary_cross_entropy_with_logits, {"logits": Tensor(Z, requires_grad=True), "targets": T}),
        roles={"logits": "tensor", "targets": "aligned:logits"},
        extra=[("a target of 1.5", {"targets": np.array([0.0, 1.5, 1.0, 0.0])}, ()),
               ("a target of -1", {"targets": np.array([0.0, -1.0, 1.0, 0.0])}, ())]),
    "implementations.engine.functional.mse_loss": Example(
        build=lambda: (F.mse_loss, {"prediction": Tensor(Z, requires_grad=True), "target": T}),
        roles={"prediction": "tensor", "target": "aligned:prediction"}),
    "implementations.engine.functional.dropout": Example(
        build=lambda: (F.dropout, {"x": logits(), "p": 0.5, "rng": np.random.default_rng(0), "training": True}),
        roles={"p": "prob", "rng": "rng", "training": "flag"},
        extra=any_nd_tensor("x", LOGITS, empty=False) + [("1 (nothing would be kept)", {"p": 1.0}, ())]),
}
