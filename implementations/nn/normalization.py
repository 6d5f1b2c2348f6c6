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

``BatchNorm2d`` is ``BatchNorm1d`` with channels for features: the same maths, averaged over the batch and the
positions of the images.
"""

import numpy as np

from .._contract import checked
from ..engine.autograd import Tensor
from . import _checks
from .module import Module

__all__ = ["BatchNorm1d", "BatchNorm2d", "layer_norm", "LayerNorm"]


class BatchNorm1d(Module):
    """Batch normalization of a batch of feature vectors, feature by feature, eqs. (5.6) and (5.7).

    Parameters
    ----------
    num_features : int >= 1
        D, the number of features; ``gamma``, ``beta``, ``running_mean`` and ``running_var`` have shape (D,).
    eps : float > 0, default 1e-5
        ε, added to the variance before the square root.
    momentum : float in (0, 1], default 0.1
        Weight of each new training batch in the running averages.
    """

    _buffers = ("running_mean", "running_var", "num_batches_tracked")
    _buffer_checks = {"running_var": _checks.variances, "num_batches_tracked": _checks.batch_count}

    @checked(num_features="count", eps="rate", momentum=_checks.momentum)
    def __init__(self, num_features, *, eps=1e-5, momentum=0.1):
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.gamma = Tensor(np.ones(num_features), requires_grad=True)  # (D,)
        self.beta = Tensor(np.zeros(num_features), requires_grad=True)  # (D,)
        self.running_mean = np.zeros(num_features)  # (D,)
        self.running_var = np.ones(num_features)  # (D,)
        self.num_batches_tracked = np.array(0)  # training batches seen; 0: the running averages mean nothing yet

    @checked(x=_checks.feature_vectors, also=_checks.can_normalize)
    def forward(self, x):
        """γ ⊙ x̂ + β with the batch's statistics (training mode) or the running averages (evaluation mode).

        Parameters
        ----------
        x : Tensor or array of shape (N, num_features)
            N >= 2 in training mode.

        Returns
        -------
        Tensor of shape (N, num_features)
        """
        axes = tuple(a for a in range(x.ndim) if a != 1)  # every axis but the features': (0,), or (0, 2, 3) for images
        shape = (1, -1) + (1,) * (x.ndim - 2)  # (1, D) or (1, C, 1, 1): broadcasts against x
        if self.training:
            mu = x.mean(axis=axes, keepdims=True)  # μ: (1, D) or (1, C, 1, 1)
            centred = x - mu  # x − μ, the shape of x
            var = (centred**2).mean(axis=axes, keepdims=True)  # σ², the biased variance: (1, D) or (1, C, 1, 1)
            n, momentum = x.size // x.shape[1], self.momentum  # values averaged per feature; this batch's weight
            self.running_mean = (1 - momentum) * self.running_mean + momentum * mu.data.reshape(-1)  # eq. (5.7): (D,)
            self.running_var = ((1 - momentum) * self.running_var
                                + momentum * var.data.reshape(-1) * n / (n - 1))  # unbiased: (D,)
            self.num_batches_tracked = self.num_batches_tracked + 1
        else:  # the running averages, constants to the engine
            centred = x - self.running_mean.reshape(shape)  # x − μ, the shape of x
            var = Tensor(self.running_var.reshape(shape))  # σ²: (1, D) or (1, C, 1, 1)
        x_hat = centred / (var + self.eps).sqrt()  # x̂ = (x − μ) / √(σ² + ε), eq. (5.6)
        return x_hat * self.gamma.reshape(*shape) + self.beta.reshape(*shape)  # y = γ ⊙ x̂ + β, eq. (5.6)


class BatchNorm2d(BatchNorm1d):
    """Batch normalization of a batch of images, channel by channel over the batch and all positions, eqs. (5.6)–(5.7).

    Each channel c has one μ_c and one σ²_c, averaged over the N images and their H × W positions, and one γ_c and
    β_c: a convolution applies the same kernel at every position, and its output is normalized alike everywhere.
    The maths is :class:`BatchNorm1d`'s, with the C channels as its features.

    Parameters
    ----------
    num_channels : int >= 1
        C; ``gamma``, ``beta``, ``running_mean`` and ``running_var`` have shape (C,).
    eps : float > 0, default 1e-5
    momentum : float in (0, 1], default 0.1
    """

    @checked(num_channels="count", eps="rate", momentum=_checks.momentum)
    def __init__(self, num_channels, *, eps=1e-5, momentum=0.1):
        super().__init__(num_channels, eps=eps, momentum=momentum)  # one feature per channel

    @checked(x=_checks.normalized_images, also=_checks.can_normalize)
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
        return super().forward(x)  # BatchNorm1d's maths, each channel averaged over axes (0, 2, 3)


@checked(like_inputs=True, X="tensor (..., D)", gamma="tensor", beta="tensor", eps="rate",
         also=_checks.one_entry_per_feature)
def layer_norm(X, gamma, beta, *, eps=1e-5):
    """(x − mean) / √(var + eps) · γ + β over the last axis of every token (biased variance).

    Parameters
    ----------
    X : array_like or Tensor of shape (…, D), not empty
    gamma, beta : array_like or Tensor of shape (D,)
    eps : float > 0, default 1e-5

    Returns
    -------
    ndarray or Tensor of the shape of X (a Tensor when an argument is one): each token has mean β and standard
    deviation ≈ |γ| per feature
    """
    return X.standardize(axis=-1, eps=eps) * gamma + beta  # (x − mean) / √(var + eps) · γ + β: (…, D)


class LayerNorm(Module):
    """Normalize the last axis to mean 0 and variance 1, then scale by ``gamma`` and shift by ``beta``.

    y = (x − mean) / √(var + eps) · γ + β with the biased variance (divide by the dimension, not by
    dimension − 1), as PyTorch does: :func:`layer_norm` with the layer's γ and β.
    """

    @checked(dim="count", eps="rate")
    def __init__(self, dim, *, eps=1e-5):
        self.dim, self.eps = dim, eps
        self.gamma = Tensor(np.ones(dim), requires_grad=True)  # (D,)
        self.beta = Tensor(np.zeros(dim), requires_grad=True)  # (D,)

    @checked(x="tensor (..., self.dim)")
    def forward(self, x):
        """Normalize ``x`` of shape (..., dim) over its last axis; the result has the same shape."""
        return layer_norm(x, self.gamma, self.beta, eps=self.eps)
