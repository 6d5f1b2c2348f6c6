"""Layers built on the autograd engine: a Module base class, Linear, Embedding, LayerNorm, MLP, Sequential.

Conventions: a batch of inputs has shape (N, in_features) (or (..., in_features)); ``Linear`` computes
y = x @ W + b with W of shape (in_features, out_features), so a row vector of features goes in and a
row comes out, as in the design matrix of chapter 1. All randomness comes from an explicit ``rng``.
"""

import numpy as np

from ._validation import (
    _describe,
    as_array,
    check_finite_values,
    check_flag,
    check_ids,
    check_last_dim,
    check_positive,
    check_positive_int,
    check_rng,
)
from .attention import _layer_norm
from .autograd import Tensor, _tensor_argument

__all__ = ["Module", "Linear", "Embedding", "LayerNorm", "MLP", "Sequential", "ACTIVATIONS"]

# name -> function applied to a Tensor
ACTIVATIONS = {
    "relu": Tensor.relu,
    "tanh": Tensor.tanh,
    "sigmoid": Tensor.sigmoid,
    "gelu": Tensor.gelu,
}


class Module:
    """Base class: finds the parameters among the attributes, in the order they were assigned."""

    training = True

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward().")

    def _children(self):
        """(name, value) of the attributes that hold parameters or sub-modules, in assignment order.

        Lists and tuples are searched too; a dict of modules or parameters is refused, because its
        order would not be part of the model's definition.
        """
        for name, value in vars(self).items():
            if isinstance(value, (Tensor, Module)):
                yield name, value
            elif isinstance(value, (list, tuple)):
                for k, item in enumerate(value):
                    if isinstance(item, (Tensor, Module)):
                        yield f"{name}.{k}", item
            elif isinstance(value, dict) and any(isinstance(v, (Tensor, Module)) for v in value.values()):
                raise TypeError(
                    f"attribute {name!r} is a dict holding modules or parameters, which parameters() would miss; "
                    "store them in a list or as separate attributes."
                )

    def named_parameters(self, prefix="", _seen=None):
        """An iterator of (dotted name, Tensor) for every parameter, sub-modules included, in a stable order.

        A parameter shared by two layers (tied weights) is listed once, under its first name, so that an
        optimizer updates it once per step.

        Parameters
        ----------
        prefix : str, default ""
            Put in front of every name (e.g. "encoder.").
        """
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a string put in front of every name; received {_describe(prefix)}.")
        return self._named_parameters(prefix, set() if _seen is None else _seen)

    def _named_parameters(self, prefix, seen):
        for name, value in self._children():
            if isinstance(value, Tensor):
                if value.requires_grad and id(value) not in seen:
                    seen.add(id(value))
                    yield prefix + name, value
            else:
                yield from value._named_parameters(f"{prefix}{name}.", seen)

    def parameters(self):
        """The parameters as a list, in the order of :meth:`named_parameters`."""
        return [p for _, p in self.named_parameters()]

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    def train(self, mode=True):
        """Switch this module and its sub-modules to training mode (dropout on), or with ``mode=False`` off."""
        mode = check_flag(mode, "mode")
        self.training = mode
        for _, value in self._children():
            if isinstance(value, Module):
                value.train(mode)
        return self

    def eval(self):
        """Switch to evaluation mode."""
        return self.train(False)

    def state_dict(self):
        """A copy of every parameter's values, keyed by its dotted name."""
        return {name: p.data.copy() for name, p in self.named_parameters()}

    def load_state_dict(self, state):
        """Copy values saved by :meth:`state_dict` into the parameters.

        Parameters
        ----------
        state : dict of name -> array
            One finite array per parameter, under the names and with the shapes of :meth:`state_dict`. Every entry
            is checked before any is loaded, so a refused state leaves the module unchanged.
        """
        if not isinstance(state, dict):
            raise TypeError(f"state must be a dict of parameter name -> array, as returned by state_dict(); "
                            f"received {_describe(state)}.")
        own = dict(self.named_parameters())
        missing, unexpected = sorted(set(own) - set(state)), sorted(set(state) - set(own), key=str)
        if missing or unexpected:
            raise ValueError(f"state does not match the module: missing {missing}, unexpected {unexpected}. Load a "
                             "state_dict() saved from a module of the same architecture.")
        values = {}
        for name, p in own.items():
            key = f"state[{name!r}]"
            value = as_array(state[name], key)
            if value.shape != p.shape:
                raise ValueError(f"{key} has shape {value.shape}; expected the parameter's shape {p.shape}. Load a "
                                 "state_dict() saved from a module of the same sizes.")
            values[name] = check_finite_values(value, key)  # a Tensor holds no NaN; a weight of inf is no weight
        for name, p in own.items():
            p.data = values[name].copy()
            p.grad = None


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


class LayerNorm(Module):
    """Normalize the last axis to mean 0 and variance 1, then scale by ``gamma`` and shift by ``beta``.

    y = (x − mean) / √(var + eps) · γ + β with the biased variance (divide by the dimension, not by
    dimension − 1), as PyTorch does.
    """

    def __init__(self, dim, *, eps=1e-5):
        dim = check_positive_int(dim, "dim")
        self.eps = check_positive(eps, "eps")
        self.gamma = Tensor(np.ones(dim), requires_grad=True)
        self.beta = Tensor(np.zeros(dim), requires_grad=True)

    def forward(self, x):
        """Normalize ``x`` of shape (..., dim) over its last axis; the result has the same shape."""
        x = _tensor_argument(x, "x", allow_empty=False)
        check_last_dim(x, "x", self.gamma.shape[0], "the layer's dim")
        return _layer_norm(x, self.gamma, self.beta, eps=self.eps)  # checked above: the unchecked maths


class Sequential(Module):
    """Apply modules (or plain functions of a Tensor) one after the other: ``Sequential(layer_1, layer_2, ...)``."""

    def __init__(self, *layers):
        for k, layer in enumerate(layers):
            if not callable(layer):
                raise TypeError(f"layers[{k}] must be a Module or a function of a Tensor (such as Tensor.relu); "
                                f"received {_describe(layer)}.")
        self.layers = list(layers)

    def _children(self):
        for k, layer in enumerate(self.layers):
            if isinstance(layer, Module):
                yield f"layers.{k}", layer

    def forward(self, x):
        """The layers applied in order to ``x`` (a Tensor or an array)."""
        x = _tensor_argument(x, "x", allow_empty=False)
        for layer in self.layers:
            x = layer(x)
        return x


class MLP(Module):
    """A multilayer perceptron f_M ∘ … ∘ f_1, eq. (4.1): Linear layers with an activation between them.

    ``sizes = [d_0, d_1, …, d_M]`` gives M layers; layer k maps d_{k−1} features to d_k. The last
    layer has no activation (it returns logits or regression outputs). Weights are initialized with
    He's rule for ReLU and GELU and Xavier's for tanh and sigmoid.
    """

    def __init__(self, sizes, *, activation="relu", rng):
        if isinstance(sizes, (str, bytes)) or not hasattr(sizes, "__iter__"):
            raise TypeError(f"sizes must be a list of layer widths [d_0, …, d_M]; received {_describe(sizes)}.")
        sizes = [check_positive_int(s, f"sizes[{k}]") for k, s in enumerate(sizes)]
        if len(sizes) < 2:
            raise ValueError(f"sizes needs at least an input and an output size; received {sizes}.")
        if activation not in ACTIVATIONS:
            raise ValueError(f"activation must be one of {sorted(ACTIVATIONS)}; received {activation!r}.")
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

        Layer k of the result has W of shape (S, d_{k−1}, d_k) and b of shape (S, 1, d_k), whose slice s is a
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
