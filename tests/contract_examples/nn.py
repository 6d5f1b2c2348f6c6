"""Valid examples for the input contract: nn (chapter 4's layers, the Module base class, and the layers of deep and
convolutional networks)."""

import math

import numpy as np

from contract import Example
from contract_examples.autograd import any_nd_tensor, positional
from implementations import nn
from implementations.engine.autograd import Tensor

_rng = np.random.default_rng(0)
X = _rng.normal(size=(4, 3))  # (N, D) = (4, 3)
IDS = np.array([[1, 2], [3, 0]])  # (B, T) token ids below V = 5
IMAGES = _rng.normal(size=(2, 3, 5, 5))  # (N, C, H, W) = (2, 3, 5, 5)


def rng():
    return np.random.default_rng(0)


def mlp(seed=0, sizes=(3, 4, 2)):
    return nn.MLP(list(sizes), activation="tanh", rng=np.random.default_rng(seed))


def _state(**changes):
    """A state_dict of ``mlp()``'s shape with some entries changed (None removes one)."""
    state = mlp(seed=1).state_dict()
    for name, value in changes.items():
        name = name.replace("__", ".")
        if value is None:
            del state[name]
        else:
            state[name] = value
    return state


def _with(value, index, bad):
    value = np.array(value, dtype=float)
    value[index] = bad
    return value


W0 = mlp(seed=1).state_dict()["layers.0.W"]  # (3, 4)

_BAD_STATES = [
    ("a NaN weight", {"state": _state(layers__0__W=_with(W0, (0, 0), math.nan))}, ()),
    ("an inf weight", {"state": _state(layers__0__W=_with(W0, (1, 2), math.inf))}, ()),
    ("a missing key", {"state": _state(layers__1__b=None)}, ()),
    ("an unexpected key", {"state": {**_state(), "layers.2.W": np.zeros((2, 2))}}, ()),
    ("a weight of the wrong shape", {"state": _state(layers__0__W=np.zeros((4, 3)))}, ()),
    ("a string weight", {"state": _state(layers__0__b="zeros")}, ()),
    ("a ragged weight", {"state": _state(layers__0__W=[[1.0, 2.0, 3.0, 4.0]] * 2 + [[1.0]])}, ()),
    ("a list of arrays", {"state": list(_state().values())}, ()),
    ("None", {"state": None}, ()),
]


def _layer_input_extras(width):
    """Bad inputs of a layer that takes x of shape (..., width): the any-dimension variants, a wrong width."""
    return any_nd_tensor("x", X) + [
        ("the wrong width", {"x": np.zeros((4, width + 2))}, ()),
        ("a Tensor of the wrong width", {"x": Tensor(np.zeros((2, 7, width + 1)))}, ()),
        ("a single number", {"x": 1.0}, ()),
    ]


EXAMPLES = {
    "implementations.nn.module.Module": Example(build=lambda: (nn.Module, {})),
    "implementations.nn.module.Module.eval": Example(build=lambda: (mlp().eval, {})),
    "implementations.nn.module.Module.train": Example(
        build=lambda: (mlp().train, {"mode": False}),
        roles={"mode": "flag"}),
    "implementations.nn.module.Module.named_parameters": Example(
        build=lambda: (mlp().named_parameters, {"prefix": "net."}),
        extra=[("a number", {"prefix": 5}, ())]),
    "implementations.nn.module.Module.parameters": Example(build=lambda: (mlp().parameters, {})),
    "implementations.nn.module.Module.state_dict": Example(build=lambda: (mlp().state_dict, {})),
    "implementations.nn.module.Module.zero_grad": Example(build=lambda: (mlp().zero_grad, {})),
    "implementations.nn.module.Module.load_state_dict": Example(
        build=lambda: (mlp().load_state_dict, {"state": _state()}),
        extra=_BAD_STATES),
    "implementations.nn.layers.Linear": Example(
        build=lambda: (nn.Linear, {"in_features": 3, "out_features": 2, "bias": True, "rng": rng(), "init": "he"}),
        roles={"in_features": "count", "out_features": "count", "bias": "flag", "rng": "rng"},
        extra=[("an unknown name", {"init": "glorot"}, ()), ("a number", {"init": 5}, ())]),
    "implementations.nn.layers.Linear.forward": Example(
        build=lambda: (nn.Linear(3, 2, rng=rng()).forward, {"x": X}),
        extra=_layer_input_extras(3)),
    "implementations.nn.layers.Embedding": Example(
        build=lambda: (nn.Embedding, {"num_embeddings": 5, "embedding_dim": 2, "rng": rng()}),
        roles={"num_embeddings": "count", "embedding_dim": "count", "rng": "rng"}),
    "implementations.nn.layers.Embedding.forward": Example(
        build=lambda: (nn.Embedding(5, 2, rng=rng()).forward, {"indices": IDS}),
        roles={"indices": "ids:5"},
        extra=[("a NaN id", {"indices": np.array([[1.0, math.nan]])}, ()),
               ("a Tensor holding 1.5", {"indices": Tensor([1.5, 2.0])}, ()),
               ("a ragged nested list", {"indices": [[1, 2], [3]]}, ())]),
    "implementations.nn.normalization.LayerNorm": Example(
        build=lambda: (nn.LayerNorm, {"dim": 3, "eps": 1e-5}),
        roles={"dim": "count", "eps": "rate"}),
    "implementations.nn.normalization.LayerNorm.forward": Example(
        build=lambda: (nn.LayerNorm(3).forward, {"x": X}),
        extra=_layer_input_extras(3)),
    "implementations.nn.layers.MLP": Example(
        build=lambda: (nn.MLP, {"sizes": [3, 4, 2], "activation": "tanh", "rng": rng()}),
        roles={"sizes": "array", "rng": "rng"},
        extra=[("one size only", {"sizes": [3]}, ()), ("a fractional size", {"sizes": [3, 2.5, 2]}, ()),
               ("a number", {"sizes": 3}, ()), ("an unknown name", {"activation": "softplus"}, ())]),
    "implementations.nn.layers.MLP.forward": Example(
        build=lambda: (mlp().forward, {"x": X}),
        extra=_layer_input_extras(3)),
    "implementations.nn.layers.MLP.stack": Example(
        build=lambda: (nn.MLP.stack, {"networks": [mlp(0), mlp(1)]}),
        extra=[("an empty list", {"networks": []}, ()), ("a string", {"networks": "ab"}, ()),
               ("a list holding a string", {"networks": [mlp(0), "mlp"]}, ()),
               ("networks of different sizes", {"networks": [mlp(0), mlp(1, sizes=(3, 5, 2))]}, ())]),
    "implementations.nn.module.Sequential": Example(
        build=lambda: (positional(nn.Sequential, "layers"), {"layers": [nn.Linear(3, 2, rng=rng()), Tensor.relu]}),
        extra=[("a string layer", {"layers": [nn.Linear(3, 2, rng=rng()), "relu"]}, ()),
               ("a number", {"layers": [2.0]}, ())]),
    "implementations.nn.module.Sequential.forward": Example(
        build=lambda: (nn.Sequential(nn.Linear(3, 2, rng=rng()), Tensor.relu).forward, {"x": X}),
        extra=_layer_input_extras(3)),
    "implementations.nn.layers.Dropout": Example(
        build=lambda: (nn.Dropout, {"p": 0.5, "rng": rng()}),
        roles={"p": "prob", "rng": "rng"},
        extra=[("1 (nothing would be kept)", {"p": 1.0}, ()), ("True", {"p": True}, ())]),
    "implementations.nn.layers.Dropout.forward": Example(
        build=lambda: (nn.Dropout(0.5, rng=rng()).forward, {"x": Tensor(X, requires_grad=True)}),
        extra=any_nd_tensor("x", X, empty=False)),
    "implementations.nn.conv.Conv2d": Example(
        build=lambda: (nn.Conv2d, {"in_channels": 3, "out_channels": 2, "kernel_size": 3, "stride": 1, "padding": 1,
                                   "bias": True, "rng": rng(), "init": "xavier"}),
        roles={"in_channels": "count", "out_channels": "count", "kernel_size": "count", "stride": "count",
               "padding": "count0", "bias": "flag", "rng": "rng"},
        extra=[("a pair with a zero", {"kernel_size": (3, 0)}, ()), ("three sizes", {"kernel_size": (3, 3, 3)}, ()),
               ("an unknown name", {"init": "glorot"}, ()), ("a number", {"init": 5}, ())]),
    "implementations.nn.conv.Conv2d.forward": Example(
        build=lambda: (nn.Conv2d(3, 2, (3, 2), stride=2, rng=rng()).forward, {"x": IMAGES}),
        roles={"x": "tensor"},
        extra=[("images with 2 channels", {"x": IMAGES[:, :2]}, ()),
               ("one image without the batch axis", {"x": Tensor(IMAGES[0])}, ()),
               ("images smaller than the kernel", {"x": IMAGES[:, :, :2, :2]}, ()),
               ("a single number", {"x": 1.0}, ())]),
    "implementations.nn.conv.ResidualBlock": Example(
        build=lambda: (nn.ResidualBlock, {"branch": nn.Sequential(nn.Linear(3, 3, rng=rng()), Tensor.tanh),
                                          "projection": None}),
        extra=[("a string", {"branch": "relu"}, ()), ("a number", {"branch": 3.0}, ()),
               ("a list of layers", {"branch": [nn.Linear(3, 3, rng=rng())]}, ()),
               ("a string as the projection", {"projection": "conv1x1"}, ()),
               ("a number as the projection", {"projection": 1.0}, ())]),
    "implementations.nn.convnets.small_cnn": Example(
        build=lambda: (nn.convnets.small_cnn, {"rng": rng(), "batch_norm": True, "num_classes": 10}),
        roles={"rng": "rng", "batch_norm": "flag", "num_classes": "count"}),
    "implementations.nn.convnets.basic_block": Example(
        build=lambda: (nn.convnets.basic_block, {"in_channels": 2, "out_channels": 4, "stride": 2, "rng": rng()}),
        roles={"in_channels": "count", "out_channels": "count", "stride": "count", "rng": "rng"}),
    "implementations.nn.convnets.small_resnet": Example(
        build=lambda: (nn.convnets.small_resnet, {"rng": rng(), "channels": (4, 8), "num_classes": 10}),
        roles={"rng": "rng", "num_classes": "count"},
        extra=[("no stage", {"channels": ()}, ()), ("a number", {"channels": 8}, ()),
               ("a zero width", {"channels": (4, 0)}, ()), ("a string", {"channels": "48"}, ())]),
    "implementations.nn.convnets.load_cnn_comparison": Example(
        build=lambda: (nn.convnets.load_cnn_comparison, {}),
        extra=[("a missing folder", {"data_dir": "/nonexistent/folder"}, (FileNotFoundError,)),
               ("a number as the folder", {"data_dir": 42}, (TypeError,))]),
    "implementations.nn.convnets.deep_mlp": Example(
        build=lambda: (nn.convnets.deep_mlp, {"rng": rng(), "batch_norm": True, "depth": 2, "width": 8,
                                             "num_classes": 10}),
        roles={"rng": "rng", "batch_norm": "flag", "depth": "count", "width": "count", "num_classes": "count"}),
    "implementations.nn.convnets.load_batchnorm_grid": Example(
        build=lambda: (nn.convnets.load_batchnorm_grid, {}),
        extra=[("a missing folder", {"data_dir": "/nonexistent/folder"}, (FileNotFoundError,)),
               ("a number as the folder", {"data_dir": 42}, (TypeError,))]),
    "implementations.nn.conv.ResidualBlock.forward": Example(
        build=lambda: (nn.ResidualBlock(nn.Linear(3, 3, rng=rng())).forward, {"x": X}),
        extra=_layer_input_extras(3)),
}
