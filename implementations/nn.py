"""Layers built on the autograd engine: a Module base class, Linear, Embedding, LayerNorm, MLP, Sequential,
and the layers of deep and convolutional networks: Dropout, Conv2d, ResidualBlock.

Conventions: a batch of inputs has shape (N, in_features) (or (..., in_features)); ``Linear`` computes
y = x @ W + b with W of shape (in_features, out_features), so a row vector of features goes in and a
row comes out, as in the design matrix of chapter 1. Images are batches of shape (N, C, H, W). All randomness
comes from an explicit ``rng``. Batch normalization, which keeps running averages, is in
:mod:`implementations.normalization`.
"""

import numbers

import numpy as np

from . import functional
from ._validation import (
    _describe,
    as_array,
    check_callable,
    check_finite_values,
    check_flag,
    check_ids,
    check_last_dim,
    check_nonnegative_int,
    check_positive,
    check_positive_int,
    check_rng,
)
from .attention import _layer_norm
from .autograd import Tensor, _tensor_argument
from .conv import _kernel_size, conv2d

__all__ = ["Module", "Linear", "Embedding", "LayerNorm", "MLP", "Sequential", "Dropout", "Conv2d", "ResidualBlock",
           "ACTIVATIONS"]

# name -> function applied to a Tensor
ACTIVATIONS = {
    "relu": Tensor.relu,
    "tanh": Tensor.tanh,
    "sigmoid": Tensor.sigmoid,
    "gelu": Tensor.gelu,
}


class Module:
    """Base class: finds the parameters among the attributes, in the order they were assigned.

    A module may also hold *buffers*: arrays it learns without a gradient (the running averages of batch
    normalization). A subclass names them in ``_buffers``; :meth:`state_dict` saves them with the parameters.
    """

    training = True
    _buffers = ()  # names of the attributes that hold buffers (NumPy arrays), in a stable order

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

    def _buffer_slots(self, prefix="", seen=None):
        """(dotted name, owning module, attribute) of every buffer, sub-modules included, each module once."""
        seen = set() if seen is None else seen
        if id(self) in seen:
            return
        seen.add(id(self))
        for attr in self._buffers:
            yield prefix + attr, self, attr
        for name, value in self._children():
            if isinstance(value, Module):
                yield from value._buffer_slots(f"{prefix}{name}.", seen)

    def _check_buffer(self, attr, value, key):
        """A value about to be loaded into buffer ``attr`` (shape and finiteness already checked), or an error."""
        return value

    def state_dict(self):
        """A copy of every parameter's values, and of every buffer (running averages), keyed by its dotted name."""
        state = {name: p.data.copy() for name, p in self.named_parameters()}
        state.update((name, np.array(getattr(module, attr))) for name, module, attr in self._buffer_slots())
        return state

    def load_state_dict(self, state):
        """Copy values saved by :meth:`state_dict` into the parameters and the buffers (running averages).

        Parameters
        ----------
        state : dict of name -> array
            One finite array per parameter and per buffer, under the names and with the shapes of :meth:`state_dict`
            (a module may check its buffers further: batch normalization refuses a negative variance). Every entry
            is checked before any is loaded, so a refused state leaves the module unchanged.
        """
        if not isinstance(state, dict):
            raise TypeError(f"state must be a dict of parameter or buffer name -> array, as returned by state_dict(); "
                            f"received {_describe(state)}.")
        own = dict(self.named_parameters())
        buffers = {name: (module, attr) for name, module, attr in self._buffer_slots()}
        expected = set(own) | set(buffers)
        missing, unexpected = sorted(expected - set(state)), sorted(set(state) - expected, key=str)
        if missing or unexpected:
            raise ValueError(f"state does not match the module: missing {missing}, unexpected {unexpected}. Load a "
                             "state_dict() saved from a module of the same architecture.")
        values = {}
        for name in [*own, *buffers]:
            key = f"state[{name!r}]"
            value = as_array(state[name], key)
            kind, shape = ("parameter", own[name].shape) if name in own else ("buffer", getattr(*buffers[name]).shape)
            if value.shape != shape:
                raise ValueError(f"{key} has shape {value.shape}; expected the {kind}'s shape {shape}. Load a "
                                 "state_dict() saved from a module of the same sizes.")
            values[name] = check_finite_values(value, key)  # a Tensor holds no NaN; a weight of inf is no weight
            if name in buffers:
                module, attr = buffers[name]
                values[name] = module._check_buffer(attr, values[name], key)
        for name, p in own.items():
            p.data = values[name].copy()
            p.grad = None
        for name, (module, attr) in buffers.items():
            setattr(module, attr, values[name].astype(getattr(module, attr).dtype))  # a copy, in the buffer's dtype


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
    the layer's ``rng``; the maths is :func:`implementations.functional.dropout`'s.

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


class Conv2d(Module):
    """A convolutional layer: F kernels of size kh × kw slid over a batch of C-channel images, one bias per kernel.

    out[n, f] = b[f] + Σ_c x[n, c] ⋆ K[f, c], the cross-correlation of :func:`implementations.conv.conv2d`, with
    ``weight`` K of shape (F, C, kh, kw) and ``bias`` b of shape (F,). Each output value sums fan_in = C·kh·kw
    products, which sets the initialization as for :class:`Linear` (seeded by ``rng``):

    * ``init="he"`` (He et al., 2015): K ~ N(0, 2 / fan_in), for ReLU networks, the default here because
      convolutional networks are ReLU networks (``Linear`` defaults to Xavier, which suits tanh and linear layers);
    * ``init="xavier"`` (Glorot and Bengio, 2010): K ~ U(−a, a) with a = √(6 / (fan_in + fan_out)) and
      fan_out = F·kh·kw.

    The bias starts at 0. An image of size H × W gives an output of size H_out × W_out with
    H_out = (H + 2·padding − kh) // stride + 1 (likewise W_out); ``padding = (k − 1) // 2`` with stride 1 keeps
    the size for an odd k.

    Parameters
    ----------
    in_channels : int >= 1
        C, the channels of the input.
    out_channels : int >= 1
        F, the number of kernels and of output channels.
    kernel_size : int >= 1 or (int, int)
        kh = kw, or (kh, kw).
    stride : int >= 1, default 1
    padding : int >= 0, default 0
        Rows and columns of zeros added on every side of each image.
    bias : bool, default True
    rng : numpy.random.Generator
    init : {"he", "xavier"}, default "he"
    """

    def __init__(self, in_channels, out_channels, kernel_size, *, stride=1, padding=0, bias=True, rng, init="he"):
        C = check_positive_int(in_channels, "in_channels")
        F = check_positive_int(out_channels, "out_channels")
        kh, kw = _kernel_size(kernel_size)
        self.stride = check_positive_int(stride, "stride")
        self.padding = check_nonnegative_int(padding, "padding")
        bias = check_flag(bias, "bias")
        rng = check_rng(rng)
        fan_in, fan_out = C * kh * kw, F * kh * kw
        if init == "he":
            K = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(F, C, kh, kw))
        elif init == "xavier":
            limit = np.sqrt(6.0 / (fan_in + fan_out))
            K = rng.uniform(-limit, limit, size=(F, C, kh, kw))
        else:
            raise ValueError(f"init must be 'he' or 'xavier'; received {init!r}.")
        self.weight = Tensor(K, requires_grad=True)  # (F, C, kh, kw)
        self.bias = Tensor(np.zeros(F), requires_grad=True) if bias else None  # (F,)
        self.in_channels, self.out_channels, self.kernel_size = C, F, (kh, kw)

    def forward(self, x):
        """The F feature maps of a batch of images.

        Parameters
        ----------
        x : Tensor or array of shape (N, in_channels, H, W)

        Returns
        -------
        Tensor of shape (N, out_channels, H_out, W_out)
        """
        x = _tensor_argument(x, "x", allow_empty=False)
        if x.ndim != 4:
            raise ValueError(f"x must be a batch of images of shape (N, C, H, W); received shape {x.shape}. "
                             "For a single image use x[None], for a single channel x[:, None].")
        if x.shape[1] != self.in_channels:
            raise ValueError(
                f"x has {x.shape[1]} channel(s) (shape {x.shape}, read as (N, C, H, W)) but the layer has "
                f"in_channels={self.in_channels}; pass images with {self.in_channels} channel(s), or build the layer "
                f"with in_channels={x.shape[1]}."
            )
        return conv2d(x, self.weight, self.bias, stride=self.stride, padding=self.padding)  # (N, F, H_out, W_out)


class ResidualBlock(Module):
    """y = x + F(x), eq. (5.7): the input added to the output of a branch F (He et al., 2016).

    The identity path makes the Jacobian ∂y/∂x = I + ∂F/∂x, so the gradient reaches x undiminished however small
    ∂F/∂x is: this is what lets a stack of many such blocks train. With the last layer of F initialized to zero,
    F(x) = 0 and the block starts as the identity.

    The branch is given, built by the caller from layers that keep the shape of their input, for example

    * ``ResidualBlock(Sequential(Linear(D, H, rng=rng, init="he"), Tensor.relu, Linear(H, D, rng=rng)))``;
    * ``ResidualBlock(Sequential(Conv2d(C, C, 3, padding=1, rng=rng), BatchNorm2d(C), Tensor.relu,
      Conv2d(C, C, 3, padding=1, rng=rng), BatchNorm2d(C)))``, the block of a ResNet (``BatchNorm2d`` from
      :mod:`implementations.normalization`), whose original form adds a ReLU after the sum:
      ``Sequential(ResidualBlock(branch), Tensor.relu)``.

    Parameters
    ----------
    branch : Module or callable
        F, mapping a Tensor to a Tensor of the same shape. When it is a Module, its parameters are the block's and
        ``train()`` and ``eval()`` reach it.
    """

    def __init__(self, branch):
        self.branch = check_callable(branch, "branch", what="a Module or a function of a Tensor (the F of x + F(x))")

    def forward(self, x):
        """x + F(x) for ``x`` (a Tensor or an array of the shape the branch takes): a Tensor of the shape of x."""
        x = _tensor_argument(x, "x", allow_empty=False)
        fx = self.branch(x)  # F(x), the shape of x
        if not isinstance(fx, Tensor):
            raise TypeError(f"branch must return a Tensor; it returned {_describe(fx)} for x of shape {x.shape}.")
        if fx.shape != x.shape:
            raise ValueError(
                f"branch maps x of shape {x.shape} to shape {fx.shape}, but x + F(x) needs them equal; make the "
                "branch keep the shape of x (its last layer with as many features or channels as x, convolutions "
                "with stride 1 and padding (k - 1) // 2), or project x to the new shape before adding."
            )
        return x + fx
