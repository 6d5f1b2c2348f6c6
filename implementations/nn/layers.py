"""Chapter 4's layers, built on the autograd engine: ``Linear``, ``Embedding``, ``MLP`` and ``Dropout``.

Conventions: a batch of inputs has shape (N, in_features) (or (..., in_features)); ``Linear`` computes
y = x @ W + b with W of shape (in_features, out_features), so a row vector of features goes in and a
row comes out, as in the design matrix of chapter 1. All randomness comes from an explicit ``rng``. Each layer
declares its arguments (``@checked``); the layers a model runs inside its own ``forward`` are not checked again.
"""

import numpy as np

from .._contract import checked
from ..engine import functional
from ..engine.autograd import Tensor
from . import _checks
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

    @checked(in_features="count", out_features="count", bias="flag", rng="rng", init="{xavier, he}")
    def __init__(self, in_features, out_features, *, bias=True, rng, init="xavier"):
        fan_in, fan_out = in_features, out_features
        if init == "xavier":
            limit = np.sqrt(6.0 / (fan_in + fan_out))
            W = rng.uniform(-limit, limit, size=(fan_in, fan_out))
        else:  # "he"
            W = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(fan_in, fan_out))
        self.W = Tensor(W, requires_grad=True)  # (in, out)
        self.b = Tensor(np.zeros(fan_out), requires_grad=True) if bias else None  # (out,)
        self.in_features, self.out_features = fan_in, fan_out

    @checked(x="tensor (..., self.in_features)")
    def forward(self, x):
        """y = x W + b.

        Parameters
        ----------
        x : Tensor or array of shape (..., in_features)

        Returns
        -------
        Tensor of shape (..., out_features)
        """
        y = x @ self.W  # (..., out)
        return y + self.b if self.b is not None else y


class Embedding(Module):
    """A lookup table: row i of ``W`` (num_embeddings, embedding_dim) is the vector of token i; W ~ N(0, 1)."""

    @checked(num_embeddings="count", embedding_dim="count", rng="rng")
    def __init__(self, num_embeddings, embedding_dim, *, rng):
        self.num_embeddings = num_embeddings
        self.W = Tensor(rng.normal(size=(num_embeddings, embedding_dim)), requires_grad=True)  # (V, dim)

    @checked(indices="ids < self.num_embeddings")
    def forward(self, indices):
        """Rows of ``W`` for ``indices``.

        Parameters
        ----------
        indices : int array of any shape (...), values 0, …, num_embeddings − 1

        Returns
        -------
        Tensor of shape (..., embedding_dim)
        """
        return self.W[indices]  # (..., dim): gradient rows scatter-add back into W


class MLP(Module):
    """A multilayer perceptron f_M ∘ … ∘ f_1, eq. (4.1): Linear layers with an activation between them.

    ``sizes = [d_0, d_1, …, d_M]`` gives M layers; layer l maps d_{l−1} features to d_l. The last
    layer has no activation (it returns logits or regression outputs). Weights are initialized with
    He's rule for ReLU and GELU and Xavier's for tanh and sigmoid.

    The fast path is :meth:`stack`: S networks of the same sizes as one MLP whose weights have a leading axis of S,
    evaluated by the same :meth:`forward` in one pass (``tests/test_nn.py`` checks that each slice computes and learns
    as its network alone).
    """

    @checked(sizes=_checks.layer_sizes, activation=ACTIVATIONS, rng="rng")
    def __init__(self, sizes, *, activation="relu", rng):
        init = "he" if activation in ("relu", "gelu") else "xavier"
        self.activation = activation
        self.layers = [Linear(a, b, rng=rng, init=init) for a, b in zip(sizes[:-1], sizes[1:], strict=True)]

    @property
    def in_features(self):
        """d_0, the number of features of an input."""
        return self.layers[0].in_features

    @checked(x="tensor (..., self.in_features)")
    def forward(self, x):
        """The network's output f_M(… f_1(x)), eq. (4.1), for ``x`` of shape (..., d_0): a Tensor of shape (…, d_M)."""
        a = ACTIVATIONS[self.activation]
        for layer in self.layers[:-1]:
            x = a(layer(x))  # H_l = a(H_{l−1} W_l + b_l): (..., d_l)
        return self.layers[-1](x)  # Z = H_{M−1} W_M + b_M, no activation: (..., d_M)

    @classmethod
    @checked(networks=_checks.networks, also=_checks.stackable)
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

    @checked(p=_checks.drop_probability, rng="rng")
    def __init__(self, p, *, rng):
        self.p, self.rng = p, rng

    @checked(x="tensor")
    def forward(self, x):
        """Dropout of ``x`` (a Tensor or array of any shape) in training mode, ``x`` itself in evaluation mode.

        Returns
        -------
        Tensor of the shape of x
        """
        return functional.dropout(x, self.p, rng=self.rng, training=self.training)
