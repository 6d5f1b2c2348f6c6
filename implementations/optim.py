"""Optimizers with the update rules of ``torch.optim.SGD`` and ``torch.optim.Adam``, and gradient clipping."""

import numpy as np

from ._validation import check_nonnegative, check_positive
from .autograd import Tensor

__all__ = ["SGD", "Adam", "clip_grad_norm"]


def _check_params(params):
    params = list(params)
    if not params or not all(isinstance(p, Tensor) and p.requires_grad for p in params):
        raise ValueError("params must be a non-empty list of Tensors with requires_grad=True (model.parameters()).")
    return params


class _Optimizer:
    def __init__(self, params, lr, weight_decay):
        self.params = _check_params(params)
        self.lr = check_positive(lr, "lr")
        self.weight_decay = check_nonnegative(weight_decay, "weight_decay")

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def _gradient(self, p):
        """∇L + λ p: weight decay is added to the gradient, as in PyTorch's SGD and Adam."""
        if not np.all(np.isfinite(p.grad)):
            raise FloatingPointError(
                "a gradient contains NaN or inf; the loss diverged. Lower the learning rate or clip the gradients."
            )
        return p.grad + self.weight_decay * p.data if self.weight_decay else p.grad


class SGD(_Optimizer):
    """SGD with optional momentum, eq. (3.7), as ``torch.optim.SGD`` (dampening 0, not Nesterov).

    g = ∇L + λθ;  b ← μ b + g (b = g at the first step);  θ ← θ − η b  (plain θ ← θ − η g when μ = 0).
    """

    def __init__(self, params, lr, *, momentum=0.0, weight_decay=0.0):
        super().__init__(params, lr, weight_decay)
        self.momentum = check_nonnegative(momentum, "momentum")
        self.buffers = [None] * len(self.params)

    def step(self):
        for k, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = self._gradient(p)
            if self.momentum:
                self.buffers[k] = g.copy() if self.buffers[k] is None else self.momentum * self.buffers[k] + g
                g = self.buffers[k]
            p.data = p.data - self.lr * g


class Adam(_Optimizer):
    """Adam (Kingma and Ba, 2015), eq. (3.7), as ``torch.optim.Adam`` without amsgrad.

    g = ∇L + λθ;  m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²;
    θ ← θ − η m̂ / (√v̂ + ε) with the bias corrections m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ).
    """

    def __init__(self, params, lr=1e-3, *, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, lr, weight_decay)
        beta1, beta2 = betas
        if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0):
            raise ValueError(f"betas must both lie in [0, 1); received {betas!r}.")
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.eps = check_positive(eps, "eps")
        self.m = [np.zeros_like(p.data) for p in self.params]
        self.v = [np.zeros_like(p.data) for p in self.params]
        self.t = [0] * len(self.params)  # steps taken by each parameter

    def step(self):
        for k, p in enumerate(self.params):
            if p.grad is None:
                continue
            g = self._gradient(p)
            self.t[k] += 1
            self.m[k] = self.beta1 * self.m[k] + (1 - self.beta1) * g
            self.v[k] = self.beta2 * self.v[k] + (1 - self.beta2) * g**2
            m_hat = self.m[k] / (1 - self.beta1 ** self.t[k])
            v_hat = self.v[k] / (1 - self.beta2 ** self.t[k])
            p.data = p.data - self.lr * m_hat / (np.sqrt(v_hat) + self.eps)


def clip_grad_norm(params, max_norm):
    """Rescale all gradients together so that their joint Euclidean norm is at most ``max_norm``.

    As ``torch.nn.utils.clip_grad_norm_``: the scale is max_norm / (norm + 1e-6), applied only when
    it is below 1. Returns the norm before clipping.
    """
    max_norm = check_positive(max_norm, "max_norm")
    grads = [p.grad for p in params if p.grad is not None]
    total = float(np.sqrt(sum(np.sum(g**2) for g in grads)))
    scale = max_norm / (total + 1e-6)
    if scale < 1.0:
        for p in params:
            if p.grad is not None:
                p.grad = p.grad * scale
    return total
