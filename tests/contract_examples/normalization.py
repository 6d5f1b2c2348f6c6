"""Valid examples for the input contract: normalization (batch normalization of feature vectors and of images)."""

import numpy as np

from contract import Example
from implementations.engine.autograd import Tensor
from implementations.nn import normalization

_rng = np.random.default_rng(0)
X = _rng.normal(size=(4, 3))  # (N, D) = (4, 3)
IMAGES = _rng.normal(size=(2, 3, 4, 4))  # (N, C, H, W) = (2, 3, 4, 4)

_BAD_MOMENTUM = [("zero (the running averages would never move)", {"momentum": 0.0}, ()),
                 ("True", {"momentum": True}, ())]

EXAMPLES = {
    "implementations.nn.normalization.BatchNorm1d": Example(
        build=lambda: (normalization.BatchNorm1d, {"num_features": 3, "eps": 1e-5, "momentum": 0.1}),
        roles={"num_features": "count", "eps": "rate", "momentum": "prob"},
        extra=_BAD_MOMENTUM),
    "implementations.nn.normalization.BatchNorm1d.forward": Example(
        build=lambda: (normalization.BatchNorm1d(3).forward, {"x": Tensor(X, requires_grad=True)}),
        roles={"x": "tensor"},
        extra=[("the wrong width", {"x": np.zeros((4, 5))}, ()), ("a batch of one", {"x": X[:1]}, ()),
               ("images", {"x": IMAGES}, ()), ("a single number", {"x": 1.0}, ())]),
    "implementations.nn.normalization.BatchNorm2d": Example(
        build=lambda: (normalization.BatchNorm2d, {"num_channels": 3, "eps": 1e-5, "momentum": 0.1}),
        roles={"num_channels": "count", "eps": "rate", "momentum": "prob"},
        extra=_BAD_MOMENTUM),
    "implementations.nn.normalization.BatchNorm2d.forward": Example(
        build=lambda: (normalization.BatchNorm2d(3).forward, {"x": Tensor(IMAGES, requires_grad=True)}),
        roles={"x": "tensor"},
        extra=[("images with 2 channels", {"x": IMAGES[:, :2]}, ()),
               ("one value per channel", {"x": IMAGES[:1, :, :1, :1]}, ()),
               ("feature vectors", {"x": X}, ()), ("a single number", {"x": 1.0}, ())]),
}
