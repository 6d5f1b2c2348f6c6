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
    """Holds the parameters and works on all their entries at once, as one flat vector θ of length P.

    One vector operation over all P entries costs far less than the same operation repeated on every
    parameter, and each entry is still updated by exactly the same arithmetic.
    """

    def __init__(self, params, lr, weight_decay):
        self.params = _check_params(params)
        self.lr = check_positive(lr, "lr")
        self.weight_decay = check_nonnegative(weight_decay, "weight_decay")
        ends = np.cumsum([p.size for p in self.params])
        self._spans = [slice(end - p.size, end) for p, end in zip(self.params, ends, strict=True)]  # entries of p
        self.size = int(ends[-1])  # P

    def zero_grad(self):
        for p in self.params:
            p.grad = None

    def _gradient(self):
        """(entries, g): the entries of θ whose parameter has a gradient, and g = ∇L + λθ on them.

        Weight decay is added to the gradient, as in PyTorch's SGD and Adam. A parameter whose ``grad`` is
        None (it took no part in the loss) is left out and not updated; when none is, ``entries`` is
        ``slice(None)``, all of θ.
        """
        live = [(p, span) for p, span in zip(self.params, self._spans, strict=True) if p.grad is not None]
        for p, _ in live:
            if p.grad.shape != p.shape:
                raise ValueError(f"a parameter of shape {p.shape} has a gradient of shape {p.grad.shape}; "
                                 "expected equal shapes.")
        g = np.concatenate([p.grad.reshape(-1) for p, _ in live] + [np.zeros(0)])  # (P,)
        if not np.isfinite(g).all():
            raise FloatingPointError(
                "a gradient contains NaN or inf; the loss diverged. Lower the learning rate or clip the gradients."
            )
        if self.weight_decay:
            g = g + self.weight_decay * np.concatenate([p.data.reshape(-1) for p, _ in live] + [np.zeros(0)])
        if len(live) == len(self.params):
            return slice(None), g
        return np.concatenate([np.arange(span.start, span.stop) for _, span in live] + [np.zeros(0, int)]), g

    def _apply(self, entries, step):
        """θ ← θ − step on ``entries``; each parameter gets a new array, so graphs built before keep the old."""
        if isinstance(entries, np.ndarray):  # some parameters have no gradient: they take no step
            step, taken = np.zeros(self.size), step  # (P,)
            step[entries] = taken
        for p, span in zip(self.params, self._spans, strict=True):
            if p.grad is not None:
                p.data = p.data - step[span].reshape(p.shape)


class SGD(_Optimizer):
    """SGD with optional momentum, eq. (3.7), as ``torch.optim.SGD`` (dampening 0, not Nesterov).

    g = ∇L + λθ;  b ← μ b + g (b = g at the first step);  θ ← θ − η b  (plain θ ← θ − η g when μ = 0).
    """

    def __init__(self, params, lr, *, momentum=0.0, weight_decay=0.0):
        super().__init__(params, lr, weight_decay)
        self.momentum = check_nonnegative(momentum, "momentum")
        self.b = np.zeros(self.size)  # (P,) momentum buffer: 0 before the first step, so that μ·0 + g = g

    def step(self):
        entries, g = self._gradient()  # (P,)
        if self.momentum:
            self.b[entries] = self.momentum * self.b[entries] + g
            g = self.b[entries]
        self._apply(entries, self.lr * g)


class Adam(_Optimizer):
    """Adam (Kingma and Ba, 2015), eq. (3.7), as ``torch.optim.Adam`` without amsgrad.

    g = ∇L + λθ;  m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²;
    θ ← θ − η m̂ / (√v̂ + ε) with the bias corrections m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ).

    The step count t is the optimizer's: it equals PyTorch's count for every parameter that has had a
    gradient at every step (the usual case); PyTorch counts separately for a parameter that has not.
    """

    def __init__(self, params, lr=1e-3, *, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, lr, weight_decay)
        beta1, beta2 = betas
        if not (0.0 <= beta1 < 1.0 and 0.0 <= beta2 < 1.0):
            raise ValueError(f"betas must both lie in [0, 1); received {betas!r}.")
        self.beta1, self.beta2 = float(beta1), float(beta2)
        self.eps = check_positive(eps, "eps")
        self.m = np.zeros(self.size)  # (P,) first moments of all parameter entries
        self.v = np.zeros(self.size)  # (P,) second moments
        self.t = 0  # steps taken

    def step(self):
        i, g = self._gradient()  # the entries that have a gradient (usually all), and ∇L + λθ there
        self.t += 1
        self.m[i] = self.beta1 * self.m[i] + (1 - self.beta1) * g
        self.v[i] = self.beta2 * self.v[i] + (1 - self.beta2) * g**2
        m_hat = self.m[i] / (1 - self.beta1**self.t)
        v_hat = self.v[i] / (1 - self.beta2**self.t)
        self._apply(i, self.lr * m_hat / (np.sqrt(v_hat) + self.eps))  # θ ← θ − η m̂ / (√v̂ + ε)


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
