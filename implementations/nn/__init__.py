"""Chapters 4 and 5 (and the layer norm of chapter 7): neural networks built on the engine.

- :mod:`.module`: the :class:`~.module.Module` base class, :class:`~.module.Sequential`, parameter counts;
- :mod:`.layers`: ``Linear``, ``Embedding``, ``MLP``, ``Dropout`` (chapter 4);
- :mod:`.optim`: SGD, Adam, AdamW, gradient clipping and learning-rate schedules (chapter 4);
- :mod:`.conv`: convolution, padding and pooling, ``Conv2d`` and ``ResidualBlock`` (chapter 5);
- :mod:`.normalization`: batch normalization (chapter 5) and layer normalization (chapter 7);
- :mod:`.convnets`: the small CNN (with or without batch norm), the small ResNet and the deep dense network of
  the learning-rate grid of chapter 5.

Their public names are also importable from here, as in PyTorch: ``from implementations.nn import Linear, Adam``.
"""

import warnings

from .conv import (
    Conv2d,
    ResidualBlock,
    avg_pool2d,
    conv2d,
    conv2d_input_grad,
    conv2d_loop,
    conv_output_size,
    global_avg_pool2d,
    im2col,
    max_pool2d,
    pad2d,
    receptive_field,
)
from .convnets import basic_block, deep_mlp, load_batchnorm_grid, load_cnn_comparison, small_cnn, small_resnet
from .layers import ACTIVATIONS, MLP, Dropout, Embedding, Linear
from .module import Module, Sequential, parameter_count
from .normalization import BatchNorm1d, BatchNorm2d, LayerNorm, layer_norm
from .optim import SGD, Adam, AdamW, clip_grad_norm, cosine_annealing, linear_warmup, step_decay, warmup_cosine

__all__ = ["Module", "Sequential", "parameter_count", "Linear", "Embedding", "MLP", "Dropout", "ACTIVATIONS", "SGD",
           "Adam", "AdamW", "clip_grad_norm", "step_decay", "cosine_annealing", "linear_warmup", "warmup_cosine",
           "conv2d", "conv2d_loop", "conv2d_input_grad", "global_avg_pool2d", "im2col", "pad2d", "conv_output_size",
           "receptive_field", "max_pool2d", "avg_pool2d", "Conv2d", "ResidualBlock", "BatchNorm1d", "BatchNorm2d",
           "layer_norm", "LayerNorm", "small_cnn", "basic_block", "small_resnet", "load_cnn_comparison",
           "deep_mlp", "load_batchnorm_grid"]


def __getattr__(name):  # a first-edition name of the old flat module implementations.nn
    from .. import moved_notice
    from ..engine import functional

    if name == "functional":
        warnings.warn(moved_notice("nn.functional", "engine.functional"), FutureWarning, stacklevel=2)
        return functional
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
