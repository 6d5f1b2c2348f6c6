"""Optimizers with the update rules of ``torch.optim.SGD`` and ``torch.optim.Adam``, and gradient clipping."""

import math
import numbers

import numpy as np

from ._validation import _describe, check_nonnegative, check_positive
from .autograd import Tensor

__all__ = ["SGD", "Adam", "clip_grad_norm"]


def _check_params(params, *, need_grad=True):
    """params as a non-empty list of Tensors (with requires_grad=True when ``need_grad``).

    A one-shot iterator (a generator) is refused: an optimizer or a clipping loop reads the parameters on every
    step, and a generator would be empty after the first pass.
    """
    if isinstance(params, Tensor) or isinstance(params, (str, bytes)) or not hasattr(params, "__iter__"):
        raise TypeError(f"params must be a list of Tensors (model.parameters()); received {_describe(params)}. "
                        "Wrap a single Tensor in a list: [p].")
    if iter(params) is params:
        raise TypeError(f"params must be a list of Tensors (model.parameters()); received a one-shot iterator "
                        f"({type(params).__name__}), which would be used up after one pass. Pass a list instead, "
                        "e.g. params=list(...) or params=model.parameters().")
    params = list(params)
    if not params:
        raise ValueError("params is empty; expected a non-empty list of Tensors with requires_grad=True "
                         "(model.parameters()).")
    for k, p in enumerate(params):
        if not isinstance(p, Tensor):
            raise TypeError(f"params[{k}] is {_describe(p)}; expected a non-empty list of Tensors with "
                            "requires_grad=True (model.parameters()). Wrap arrays: Tensor(a, requires_grad=True).")
        if need_grad and not p.requires_grad:
            raise ValueError(f"params[{k}] has requires_grad=False; expected a non-empty list of Tensors with "
                             "requires_grad=True (model.parameters()), the ones a loss gives gradients to.")
    return params


class _Optimizer:
    """Holds the parameters and works on all their entries at once, as one flat vector θ of length P.

    One vector operation over all P entries costs far less than the same operation repeated on every
    parameter, and each entry is still updated by exactly the same arithmetic.

    The learning rate ``lr`` is checked whenever it is set, also later (``optimizer.lr = ...`` in a schedule):
    a finite number > 0, and at most ``max_lr`` where the update rule has a sane range.
    """

    max_lr = None  # the largest sane learning rate (None: no bound)
    _lr_reason = ""  # why, for the error message

    def __init__(self, params, lr, weight_decay):
        self.params = _check_params(params)
        self.lr = lr
        self.weight_decay = check_nonnegative(weight_decay, "weight_decay")
        ends = np.cumsum([p.size for p in self.params])
        self._spans = [slice(end - p.size, end) for p, end in zip(self.params, ends, strict=True)]  # entries of p
        self.size = int(ends[-1])  # P

    @property
    def lr(self):
        """The learning rate η."""
        return self._lr

    @lr.setter
    def lr(self, value):
        value = check_positive(value, "lr")
        if self.max_lr is not None and value > self.max_lr:
            raise ValueError(f"lr must be at most {self.max_lr:g} for {type(self).__name__}; received {value:g}. "
                             f"{self._lr_reason} Try lr=1e-3 to 1e-2.")
        self._lr = value

    def zero_grad(self):
        """Forget the gradients of every parameter (set ``.grad`` to None) before the next backward pass."""
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
                f"a gradient contains NaN or inf; the loss diverged. The learning rate lr={self.lr:g} is probably "
                f"too large: try lr={self.lr / 10:g}, or clip the gradients (clip_grad_norm)."
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
    """SGD with optional momentum, eq. (4.7), as ``torch.optim.SGD`` (dampening 0, not Nesterov).

    g = ∇L + λθ;  b ← β b + g (b = g at the first step);  θ ← θ − η b  (plain θ ← θ − η g when β = 0).

    Parameters
    ----------
    params : list of Tensor
        The parameters (``model.parameters()``), a list rather than a one-shot generator.
    lr : float > 0
        Any finite size: SGD's step scales with the gradient, so a too-large lr shows as a gradient that grows
        to inf, and ``step()`` raises FloatingPointError then.
    momentum : float >= 0, default 0
    weight_decay : float >= 0, default 0
    """

    def __init__(self, params, lr, *, momentum=0.0, weight_decay=0.0):
        super().__init__(params, lr, weight_decay)
        self.momentum = check_nonnegative(momentum, "momentum")
        self.b = np.zeros(self.size)  # (P,) momentum buffer: 0 before the first step, so that β·0 + g = g

    def step(self):
        entries, g = self._gradient()  # (P,)
        if self.momentum:
            self.b[entries] = self.momentum * self.b[entries] + g
            g = self.b[entries]
        self._apply(entries, self.lr * g)


class Adam(_Optimizer):
    """Adam (Kingma and Ba, 2015), eq. (4.7), as ``torch.optim.Adam`` without amsgrad.

    g = ∇L + λθ;  m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²;
    θ ← θ − η m̂ / (√v̂ + ε) with the bias corrections m̂ = m / (1 − β₁ᵗ), v̂ = v / (1 − β₂ᵗ).

    The step count t is the optimizer's: it equals PyTorch's count for every parameter that has had a
    gradient at every step (the usual case); PyTorch counts separately for a parameter that has not.

    The learning rate must lie in (0, 1]. Adam's step m̂ / (√v̂ + ε) is about ±1 in every entry whatever the
    scale of the gradient (g / (abs(g) + ε) ≈ sign(g) at the first step), so each step moves every parameter by about η:
    η = 1 already moves weights of order 1 by their own size, and a larger η (say 1e6) throws them to
    1e6 and beyond without ever making a gradient non-finite, so the divergence would go unnoticed.

    Parameters
    ----------
    params : list of Tensor
        The parameters (``model.parameters()``), a list rather than a one-shot generator.
    lr : float in (0, 1], default 1e-3
    betas : pair of floats in [0, 1), default (0.9, 0.999)
    eps : float > 0, default 1e-8
    weight_decay : float >= 0, default 0
    """

    max_lr = 1.0
    _lr_reason = ("Adam moves every parameter by about lr per step whatever the gradient, so a larger lr throws "
                  "the weights far away without a non-finite gradient to warn of it.")

    def __init__(self, params, lr=1e-3, *, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, lr, weight_decay)
        if isinstance(betas, (str, bytes)) or not hasattr(betas, "__len__") or len(betas) != 2:
            raise ValueError(f"betas must be a pair (beta1, beta2) of numbers in [0, 1); received {betas!r}.")
        beta1, beta2 = betas
        if not all(isinstance(b, numbers.Real) and not isinstance(b, bool) and 0.0 <= b < 1.0 for b in betas):
            raise ValueError(f"betas must both lie in [0, 1); received {betas!r}. Typical: betas=(0.9, 0.999).")
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
    it is below 1.

    Parameters
    ----------
    params : list of Tensor
        A list (read twice: once for the norm, once to clip), not a one-shot generator. Parameters without a
        gradient are skipped.
    max_norm : float > 0

    Returns
    -------
    float
        The norm before clipping. A NaN or infinite norm raises FloatingPointError: the loss diverged.
    """
    params = _check_params(params, need_grad=False)
    max_norm = check_positive(max_norm, "max_norm")
    grads = [p.grad for p in params if p.grad is not None]
    total = float(np.sqrt(sum(np.sum(g**2) for g in grads)))
    if not math.isfinite(total):
        raise FloatingPointError(f"the gradients of params have a norm of {total}: a gradient holds NaN or inf, "
                                 "the loss diverged. Lower the learning rate.")
    scale = max_norm / (total + 1e-6)
    if scale < 1.0:
        for p in params:
            if p.grad is not None:
                p.grad = p.grad * scale
    return total
