"""Normalization layers: batch normalization (Ioffe and Szegedy, 2015), ``BatchNorm1d`` for batches (N, D) and
``BatchNorm2d`` for (N, C, H, W), taught in chapter 5; and layer normalization (Ba et al., 2016), ``layer_norm`` and
``LayerNorm``, which normalize each token over its features, taught with the transformer in chapter 7.

In training mode a batch is normalized with its own statistics, one feature (one channel) at a time:

    μ = the mean of x over the batch (and over the H × W positions of an image),
    σ² = the mean of (x − μ)², the biased variance,
    x̂ = (x − μ) / √(σ² + ε),      y = γ ⊙ x̂ + β,

with learned γ (``gamma``, ones at first) and β (``beta``, zeros). The layer is built from Tensor operations (mean,
subtraction, square, square root, division), so the engine differentiates through μ and σ² too: they depend on every
example of the batch, and so does the gradient of each output.

After each training batch the layer updates running averages, with n the number of values averaged per feature (N,
or N·H·W for images):

    running_mean ← (1 − momentum) · running_mean + momentum · μ,
    running_var  ← (1 − momentum) · running_var  + momentum · σ² · n / (n − 1).

The running variance uses the unbiased estimate, n − 1 in the denominator, as PyTorch documents: it estimates the
variance of the population the batches are drawn from, which the biased σ² underestimates by the factor (n − 1) / n,
most for small batches. (The batch itself is normalized with the biased σ², also as in PyTorch.) In evaluation mode
(``model.eval()``) the layer normalizes with ``running_mean`` and ``running_var`` instead, so that an example's output
no longer depends on the rest of its batch. The running averages are buffers:
:meth:`~implementations.nn.module.Module.state_dict` saves them with γ and β.

Unlike PyTorch, which starts the running averages at 0 and 1 and uses them silently, a layer in evaluation mode
that has seen no training batch (and loaded no state) raises an error: its output would normalize with made-up
statistics. Evaluate a network that contains batch normalization only after training it, or in training mode.
"""

import numbers

import numpy as np

from .._validation import check_last_dim, check_positive, check_positive_int
from ..engine.autograd import Tensor, _check_not_empty, _result, _tensor_argument, _tensors
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "layer_norm", "LayerNorm"]


def _check_momentum(momentum):
    if isinstance(momentum, (bool, np.bool_)) or not isinstance(momentum, numbers.Real) or not 0 < momentum <= 1:
        raise ValueError(f"momentum must be a number in (0, 1], the weight of each new batch in the running averages; "
                         f"received {momentum!r}. The usual value is 0.1.")
    return float(momentum)


class _BatchNorm(Module):
    """What BatchNorm1d and BatchNorm2d share: the parameters, the buffers and the normalization along axis 1."""

    _buffers = ("running_mean", "running_var", "num_batches_tracked")

    def __init__(self, size, name, *, eps, momentum):
        size = check_positive_int(size, name)
        self.eps = check_positive(eps, "eps")
        self.momentum = _check_momentum(momentum)
        self.gamma = Tensor(np.ones(size), requires_grad=True)  # (D,) or (C,)
        self.beta = Tensor(np.zeros(size), requires_grad=True)  # (D,) or (C,)
        self.running_mean = np.zeros(size)  # (D,) or (C,)
        self.running_var = np.ones(size)  # (D,) or (C,)
        self.num_batches_tracked = np.array(0)  # training batches seen; 0: the running averages mean nothing yet

    def _normalize(self, x, axes):
        """γ ⊙ x̂ + β for x (a checked Tensor) with the features on axis 1, averaging over ``axes``."""
        shape = [1] * x.ndim
        shape[1] = -1  # (1, D) or (1, C, 1, 1): broadcasts against x
        gamma, beta = self.gamma.reshape(*shape), self.beta.reshape(*shape)
        if self.training:
            n = x.size // x.shape[1]  # values averaged per feature: N, or N·H·W
            if n < 2:
                raise ValueError(
                    f"x has shape {x.shape}: one value per feature, whose variance cannot be estimated in training "
                    "mode. Pass a batch of at least 2 examples, or call .eval() to normalize with the running averages."
                )
            mu = x.mean(axis=axes, keepdims=True)  # (1, D) or (1, C, 1, 1)
            centred = x - mu  # shape of x
            var = (centred**2).mean(axis=axes, keepdims=True)  # biased σ², (1, D) or (1, C, 1, 1)
            x_hat = centred / (var + self.eps).sqrt()  # shape of x
            self._update_running(mu.data.reshape(-1), var.data.reshape(-1), n)
        else:
            if self.num_batches_tracked == 0:
                raise RuntimeError(
                    f"{type(self).__name__} is in evaluation mode but has seen no training batch, so its running "
                    "averages are still their initial 0 and 1. Train it first (in training mode, model.train()), or "
                    "load a state_dict() saved from a trained model."
                )
            mu = self.running_mean.reshape(shape)  # (1, D) or (1, C, 1, 1)
            std = np.sqrt(self.running_var.reshape(shape) + self.eps)  # (1, D) or (1, C, 1, 1)
            x_hat = (x - mu) / std  # shape of x
        return x_hat * gamma + beta

    def _update_running(self, mu, var, n):
        """The exponential moving averages of the batch mean and of the unbiased batch variance."""
        m = self.momentum
        self.running_mean = (1 - m) * self.running_mean + m * mu  # (D,) or (C,)
        self.running_var = (1 - m) * self.running_var + m * var * n / (n - 1)  # unbiased: n − 1
        self.num_batches_tracked = self.num_batches_tracked + 1

    def _check_buffer(self, attr, value, key):
        if attr == "running_var" and np.any(value < 0):
            raise ValueError(f"{key} holds a negative variance ({value.min():g}); expected values >= 0. Load a "
                             "state_dict() saved from a batch-normalization layer.")
        if attr == "num_batches_tracked" and (value < 0 or value != np.round(value)):
            raise ValueError(f"{key} must be a count of batches, an integer >= 0; received {value!r}.")
        return value


class BatchNorm1d(_BatchNorm):
    """Batch normalization of a batch of feature vectors, feature by feature, eqs. (5.5) and (5.6).

    Parameters
    ----------
    num_features : int >= 1
        D, the number of features; ``gamma``, ``beta``, ``running_mean`` and ``running_var`` have shape (D,).
    eps : float > 0, default 1e-5
        ε, added to the variance before the square root.
    momentum : float in (0, 1], default 0.1
        Weight of each new training batch in the running averages.
    """

    def __init__(self, num_features, *, eps=1e-5, momentum=0.1):
        super().__init__(num_features, "num_features", eps=eps, momentum=momentum)

    def forward(self, x):
        """Normalize ``x`` with the batch's statistics (training mode) or the running averages (evaluation mode).

        Parameters
        ----------
        x : Tensor or array of shape (N, num_features)
            N >= 2 in training mode.

        Returns
        -------
        Tensor of shape (N, num_features)
        """
        x = _tensor_argument(x, "x", allow_empty=False)
        if x.ndim != 2:
            raise ValueError(f"x must be a batch of feature vectors of shape (N, D); received shape {x.shape}. "
                             "For images of shape (N, C, H, W) use BatchNorm2d.")
        check_last_dim(x, "x", self.gamma.shape[0], "the layer's num_features")
        return self._normalize(x, axes=(0,))


class BatchNorm2d(_BatchNorm):
    """Batch normalization of a batch of images, channel by channel over the batch and all positions, eqs. (5.5)–(5.6).

    Each channel c has one μ_c and one σ²_c, averaged over the N images and their H × W positions, and one γ_c and
    β_c: a convolution applies the same kernel at every position, and its output is normalized alike everywhere.

    Parameters
    ----------
    num_channels : int >= 1
        C; ``gamma``, ``beta``, ``running_mean`` and ``running_var`` have shape (C,).
    eps : float > 0, default 1e-5
    momentum : float in (0, 1], default 0.1
    """

    def __init__(self, num_channels, *, eps=1e-5, momentum=0.1):
        super().__init__(num_channels, "num_channels", eps=eps, momentum=momentum)

    def forward(self, x):
        """Normalize ``x`` with the batch's statistics (training mode) or the running averages (evaluation mode).

        Parameters
        ----------
        x : Tensor or array of shape (N, num_channels, H, W)
            N·H·W >= 2 in training mode.

        Returns
        -------
        Tensor of shape (N, num_channels, H, W)
        """
        x = _tensor_argument(x, "x", allow_empty=False)
        if x.ndim != 4:
            raise ValueError(f"x must be a batch of images of shape (N, C, H, W); received shape {x.shape}. "
                             "For feature vectors of shape (N, D) use BatchNorm1d.")
        C = self.gamma.shape[0]
        if x.shape[1] != C:
            raise ValueError(f"x has {x.shape[1]} channel(s) (shape {x.shape}, read as (N, C, H, W)) but the layer "
                             f"has num_channels={C}; pass images with {C} channel(s), or build the layer with "
                             f"num_channels={x.shape[1]}.")
        return self._normalize(x, axes=(0, 2, 3))


def layer_norm(X, gamma, beta, *, eps=1e-5):
    """(x − mean) / √(var + eps) · γ + β over the last axis of every token (biased variance).

    Parameters
    ----------
    X : array_like or Tensor of shape (…, D), not empty
    gamma, beta : array_like or Tensor of shape (D,)
    eps : float > 0, default 1e-5

    Returns
    -------
    ndarray or Tensor of the shape of X: each token has mean β and standard deviation ≈ |γ| per feature
    """
    (X_t, g, b), as_tensor = _tensors({"X": X, "gamma": gamma, "beta": beta})
    if X_t.ndim == 0:
        raise ValueError(f"X must be an array of shape (…, D), at least 1-D; received the single number "
                         f"{float(X_t.data):g}.")
    _check_not_empty(X_t, "X", "at least one token with at least one feature")
    D = X_t.shape[-1]
    if g.shape == b.shape and g.ndim == 1 and g.shape != (D,) and g.size:  # γ and β agree: X is the odd one out
        raise ValueError(f"X must have {g.shape[0]} entries along its last axis (the length of gamma and beta); "
                         f"received shape {X_t.shape}.")
    for name, t in (("gamma", g), ("beta", b)):
        if t.shape != (D,):
            raise ValueError(f"{name} must have shape ({D},), one entry per feature of X {X_t.shape}; received shape "
                             f"{t.shape}.")
    eps = check_positive(eps, "eps")
    return _result(_layer_norm(X_t, g, b, eps=eps), as_tensor)


def _layer_norm(X, gamma, beta, *, eps=1e-5):
    """:func:`layer_norm` on Tensors without checks, for modules that run it at every step."""
    return X.standardize(axis=-1, eps=eps) * gamma + beta  # (x − mean) / √(var + eps) · γ + β


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
