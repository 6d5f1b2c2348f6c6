"""Layers built on the autograd engine: a Module base class, Linear, Embedding, LayerNorm, MLP, Sequential,
and the layers of deep and convolutional networks: Dropout, Conv2d, ResidualBlock.

Conventions: a batch of inputs has shape (N, in_features) (or (..., in_features)); ``Linear`` computes
y = x @ W + b with W of shape (in_features, out_features), so a row vector of features goes in and a
row comes out, as in the design matrix of chapter 1. Images are batches of shape (N, C, H, W). All randomness
comes from an explicit ``rng``. Batch normalization, which keeps running averages, is in
:mod:`implementations.nn.normalization`.
"""

import numbers

import numpy as np

from .._validation import (
    _describe,
    check_flag,
    check_ids,
    check_last_dim,
    check_positive_int,
    check_rng,
)
from ..engine import functional
from ..engine.autograd import Tensor, _tensor_argument
from .module import Module

__all__ = ["Linear", "Embedding", "MLP", "Dropout", "ACTIVATIONS"]

# name -> function applied to a Tensor
ACTIVATIONS = {
    "relu": Tensor.relu,
    "tanh": Tensor.tanh,
    "sigmoid": Tensor.sigmoid,
    "gelu": Tensor.gelu,
}


class Linear(Module):
    """Affine map y = x W + b, with W of shape (in_features, out_features) and b of shape (out_features,).

    Initialization (documented, seeded by ``rng``):

    * ``init="xavier"`` (Glorot and Bengio, 2010): W ~ U(−a, a) with a = √(6 / (in + out)), which keeps
      the variance of activations and gradients roughly constant through tanh or sigmoid layers;
    * ``init="he"`` (He et al., 2015): W ~ N(0, 2 / in), the variance that suits ReLU layers, which zero
      half of their inputs.

    The bias starts at 0.

    Parameters
    ----------
    in_features, out_features : int >= 1
    bias : bool, default True
    rng : numpy.random.Generator
    init : {"xavier", "he"}, default "xavier"
    """

    def __init__(self, in_features, out_features, *, bias=True, rng, init="xavier"):
        fan_in = check_positive_int(in_features, "in_features")
        fan_out = check_positive_int(out_features, "out_features")
        bias = check_flag(bias, "bias")
        rng = check_rng(rng)
        if init == "xavier":
            limit = np.sqrt(6.0 / (fan_in + fan_out))
            W = rng.uniform(-limit, limit, size=(fan_in, fan_out))
        elif init == "he":
            W = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))
        else:
            raise ValueError(f"init must be 'xavier' or 'he'; received {init!r}.")
        self.W = Tensor(W, requires_grad=True)  # (in, out)
        self.b = Tensor(np.zeros(fan_out), requires_grad=True) if bias else None  # (out,)
        self.in_features, self.out_features = fan_in, fan_out

    def forward(self, x):
        """y = x W + b.

        Parameters
        ----------
        x : Tensor or array of shape (..., in_features)

        Returns
        -------
        Tensor of shape (..., out_features)
        """
        x = _tensor_argument(x, "x", allow_empty=False)
        check_last_dim(x, "x", self.in_features, "the layer's in_features")
        return self._forward(x)

    def _forward(self, x):
        """forward without the checks, for a caller that has made x a Tensor of the right width."""
        y = x @ self.W  # (..., out)
        return y + self.b if self.b is not None else y


class Embedding(Module):
    """A lookup table: row i of ``W`` (num_embeddings, embedding_dim) is the vector of token i; W ~ N(0, 1)."""

    def __init__(self, num_embeddings, embedding_dim, *, rng):
        self.num_embeddings = check_positive_int(num_embeddings, "num_embeddings")
        dim = check_positive_int(embedding_dim, "embedding_dim")
        self.W = Tensor(check_rng(rng).normal(size=(self.num_embeddings, dim)), requires_grad=True)

    def forward(self, indices):
        """Rows of ``W`` for ``indices``.

        Parameters
        ----------
        indices : int array of any shape (...), values 0, …, num_embeddings − 1

        Returns
        -------
        Tensor of shape (..., embedding_dim)
        """
        idx = indices.data if isinstance(indices, Tensor) else indices
        if isinstance(idx, np.ndarray) and idx.dtype.kind in "iu":  # integers: only the range to check
            if idx.size == 0:
                raise ValueError(f"indices is empty (shape {idx.shape}); expected at least one token id.")
            low, high = idx.min(), idx.max()
            if low < 0 or high >= self.num_embeddings:
                raise ValueError(
                    f"indices must be integers in 0..{self.num_embeddings - 1}; received values from {low} to "
                    f"{high}. The table has num_embeddings={self.num_embeddings} rows: map the tokens to 0.."
                    f"{self.num_embeddings - 1}, or make the table larger."
                )
            idx = idx.astype(np.int64)
        else:
            idx = check_ids(idx, "indices", vocab_size=self.num_embeddings)
        return self.W[idx]  # (..., dim): gradient rows scatter-add back into W


def _check_activation(activation):
    """The name of one of ``ACTIVATIONS``, or a ValueError that lists them."""
    if not isinstance(activation, str) or activation not in ACTIVATIONS:
        raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}; received {activation!r}.")
    return activation


class MLP(Module):
    """A multilayer perceptron f_M ∘ … ∘ f_1, eq. (4.1): Linear layers with an activation between them.

    ``sizes = [d_0, d_1, …, d_M]`` gives M layers; layer l maps d_{l−1} features to d_l. The last
    layer has no activation (it returns logits or regression outputs). Weights are initialized with
    He's rule for ReLU and GELU and Xavier's for tanh and sigmoid.
    """

    def __init__(self, sizes, *, activation="relu", rng):
        if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
            raise TypeError(f"sizes must be a list of layer widths [d_0, …, d_M]; received {_describe(sizes)}.")
        sizes = [check_positive_int(s, f"sizes[{k}]") for k, s in enumerate(sizes)]
        if len(sizes) < 2:
            raise ValueError(f"sizes needs at least an input and an output size; received {sizes}.")
        activation = _check_activation(activation)
        rng = check_rng(rng)
        init = "he" if activation in ("relu", "gelu") else "xavier"
        self.activation = activation
        self.layers = [Linear(a, b, rng=rng, init=init) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]

    def forward(self, x):
        """The network's output for ``x`` of shape (..., d_0): a Tensor of shape (..., d_M)."""
        x = _tensor_argument(x, "x", allow_empty=False)
        check_last_dim(x, "x", self.layers[0].in_features, "the network's input size sizes[0]")
        act = ACTIVATIONS[self.activation]
        for layer in self.layers[:-1]:
            x = act(layer._forward(x))
        return self.layers[-1]._forward(x)

    @classmethod
    def stack(cls, networks):
        """S networks of the same sizes as one MLP that evaluates all of them in a single pass.

        Layer l of the result has W of shape (S, d_{l−1}, d_l) and b of shape (S, 1, d_l), whose slice s is a
        copy of the weights of ``networks[s]``. Broadcasting then does the rest: inputs of shape (N, d_0) give
        outputs of shape (S, N, d_M), slice s being network s's, and since no weight is shared, the sum of the
        S networks' losses gives each slice exactly the gradient of its own network's loss. Training S
        initializations (or S data sets) this way takes one Python loop instead of S.

        Parameters
        ----------
        networks : list of MLP
            At least one, all with the same layer sizes and activation.

        Returns
        -------
        MLP
        """
        if isinstance(networks, (str, bytes, MLP)) or not hasattr(networks, "__iter__"):
            raise TypeError(f"networks must be a non-empty list of MLP objects; received {_describe(networks)}.")
        networks = list(networks)
        if not networks:
            raise TypeError("networks must be a non-empty list of MLP objects; received an empty one.")
        for k, net in enumerate(networks):
            if not isinstance(net, MLP):
                raise TypeError(f"networks must be a non-empty list of MLP objects; networks[{k}] is "
                                f"{_describe(net)}.")
        sizes = [[(layer.in_features, layer.out_features, layer.b is not None) for layer in net.layers]
                 for net in networks]
        for k, net in enumerate(networks):
            if sizes[k] != sizes[0] or net.activation != networks[0].activation:
                raise ValueError(
                    f"networks[{k}] has layers (in, out, bias) {sizes[k]} and activation {net.activation!r}, but "
                    f"networks[0] has {sizes[0]} and {networks[0].activation!r}: the networks must have the same layer "
                    "sizes, biases and activation to be stacked."
                )
        stacked = cls.__new__(cls)
        stacked.activation = networks[0].activation
        stacked.layers = []
        for layers in zip(*(net.layers for net in networks), strict=True):
            layer = Linear.__new__(Linear)
            layer.in_features, layer.out_features = layers[0].in_features, layers[0].out_features
            layer.W = Tensor(np.stack([lay.W.data for lay in layers]), requires_grad=True)  # (S, in, out)
            layer.b = (Tensor(np.stack([lay.b.data for lay in layers])[:, None, :], requires_grad=True)  # (S, 1, out)
                       if layers[0].b is not None else None)
            stacked.layers.append(layer)
        return stacked


class Dropout(Module):
    """Inverted dropout (Srivastava et al., 2014), eq. (4.12): on in training mode, the identity in evaluation mode.

    In training mode every entry is kept with probability 1 − p and zeroed otherwise, and the kept ones are scaled
    by 1/(1 − p): y = m ⊙ x / (1 − p) with mᵢ ~ Bernoulli(1 − p) independently, so E[y] = x. Because the scaling
    happens while training, the trained network is evaluated as it is, after ``model.eval()``. The gradient reaches
    only the kept entries, each multiplied by 1/(1 − p). Each forward pass in training mode draws a new mask m from
    the layer's ``rng``; the maths is :func:`implementations.engine.functional.dropout`'s.

    Parameters
    ----------
    p : float in [0, 1)
        Probability of zeroing an entry; p = 0 makes the layer the identity.
    rng : numpy.random.Generator
        Source of the masks, kept by the layer.
    """

    def __init__(self, p, *, rng):
        if isinstance(p, (bool, np.bool_)) or not isinstance(p, numbers.Real) or not 0.0 <= p < 1.0:
            raise ValueError(f"p must be a probability in [0, 1), the rate of zeroed entries; received {p!r}. "
                             "p = 1 would zero everything; p = 0 turns dropout off.")
        self.p = float(p)
        self.rng = check_rng(rng)

    def forward(self, x):
        """Dropout of ``x`` (a Tensor or array of any shape) in training mode, ``x`` itself in evaluation mode.

        Returns
        -------
        Tensor of the shape of x
        """
        return functional.dropout(x, self.p, rng=self.rng, training=self.training)


