"""Optimizers with the update rules of ``torch.optim.SGD``, ``Adam`` and ``AdamW``, gradient clipping, and
learning-rate schedules.

A schedule is a plain function of the step count t = 0, 1, 2, …; a training loop sets the optimizer's learning
rate from it before each step, in one visible line::

    for t in range(total_steps):
        optimizer.lr = warmup_cosine(t, lr=1e-3, warmup_steps=100, total_steps=total_steps)
        optimizer.zero_grad()
        loss = ...
        loss.backward()
        optimizer.step()

The setter of ``optimizer.lr`` checks every value, so a schedule that produced a bad rate is stopped there.
"""

import math

import numpy as np

from .._contract import checked
from . import _checks

__all__ = ["SGD", "Adam", "AdamW", "clip_grad_norm", "step_decay", "cosine_annealing", "linear_warmup",
           "warmup_cosine"]


class _Optimizer:
    """Holds the parameters and works on all their entries at once, as one flat vector θ of length P.

    One vector operation over all P entries costs far less than the same operation repeated on every
    parameter, and each entry is still updated by exactly the same arithmetic.

    The learning rate ``lr`` and the weight decay ``weight_decay`` are checked whenever they are set, by the
    constructor or later (``optimizer.lr = ...`` in a schedule): a finite number > 0 at most ``max_lr`` where the
    update rule has a sane range, a finite number >= 0, and for AdamW a product lr · weight_decay below 1.
    """

    max_lr = None  # the largest sane learning rate (None: no bound)
    _lr_reason = ""  # why, for the error message
    _decay_in_gradient = True  # weight decay as L2 in the gradient (False: AdamW applies it to θ itself)

    def __init__(self, params, lr, weight_decay):
        self.params = params
        self.weight_decay = weight_decay  # before lr: AdamW's check of lr needs it
        self.lr = lr
        ends = np.cumsum([p.size for p in self.params])
        self._spans = [slice(end - p.size, end) for p, end in zip(self.params, ends, strict=True)]  # entries of p
        self.size = int(ends[-1])  # P

    @property
    def lr(self):
        """The learning rate η."""
        return self._lr

    @lr.setter
    def lr(self, lr):
        self._lr = _checks.learning_rate(self, lr)

    @property
    def weight_decay(self):
        """The weight decay λ."""
        return self._weight_decay

    @weight_decay.setter
    def weight_decay(self, weight_decay):
        self._weight_decay = _checks.weight_decay(self, weight_decay)

    def zero_grad(self):
        """Forget the gradients of every parameter (set ``.grad`` to None) before the next backward pass."""
        for p in self.params:
            p.grad = None

    def _gradient(self):
        """(entries, g): the entries of θ whose parameter has a gradient, and g = ∇L + λθ on them.

        Weight decay is added to the gradient, as in PyTorch's SGD and Adam (AdamW leaves it out: g = ∇L). A
        parameter whose ``grad`` is None (it took no part in the loss) is left out and not updated; when none is,
        ``entries`` is ``slice(None)``, all of θ.
        """
        live = [(p, span) for p, span in zip(self.params, self._spans, strict=True) if p.grad is not None]
        _checks.gradients_fit([p for p, _ in live])
        g = np.concatenate([p.grad.reshape(-1) for p, _ in live] + [np.zeros(0)])  # (P,)
        if not np.isfinite(g).all():
            raise FloatingPointError(
                f"a gradient contains NaN or inf; the loss diverged. The learning rate lr={self.lr:g} is probably "
                f"too large: try lr={self.lr / 10:g}, or clip the gradients (clip_grad_norm)."
            )
        if self.weight_decay and self._decay_in_gradient:
            g = g + self.weight_decay * np.concatenate([p.data.reshape(-1) for p, _ in live] + [np.zeros(0)])
        if len(live) == len(self.params):
            return slice(None), g
        return np.concatenate([np.arange(span.start, span.stop) for _, span in live] + [np.zeros(0, int)]), g

    def _theta(self):
        """θ on the entries of the parameters that have a gradient, in the order of ``_gradient``'s g."""
        return np.concatenate([p.data.reshape(-1) for p in self.params if p.grad is not None] + [np.zeros(0)])

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

    @checked(params=_checks.params, momentum="penalty")  # lr and weight_decay: checked by their setters
    def __init__(self, params, lr, *, momentum=0.0, weight_decay=0.0):
        super().__init__(params, lr, weight_decay)
        self.momentum = momentum
        self.m = np.zeros(self.size)  # (P,) the momentum m of eq. (4.7): 0 before the first step, so β·0 + g = g

    def step(self):
        entries, g = self._gradient()  # (P,)
        if self.momentum:
            self.m[entries] = self.momentum * self.m[entries] + g  # m ← β m + g
            g = self.m[entries]
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

    @checked(params=_checks.params, betas=_checks.betas, eps="rate")  # lr and weight_decay: by their setters
    def __init__(self, params, lr=1e-3, *, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        super().__init__(params, lr, weight_decay)
        self.beta1, self.beta2 = betas
        self.eps = eps
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


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov and Hutter, 2019), eq. (4.13), as ``torch.optim.AdamW``.

    The moments see the gradient of the loss alone, and the decay shrinks the weights directly:

    g = ∇L;  m ← β₁m + (1 − β₁)g;  v ← β₂v + (1 − β₂)g²;  m̂ = m / (1 − β₁ᵗ),  v̂ = v / (1 − β₂ᵗ);
    θ ← θ − η (m̂ / (√v̂ + ε) + λθ).

    Adam with ``weight_decay`` instead adds λθ to g, so the decay is divided by √v̂ like the gradient: weights with a
    large gradient history are barely decayed, and the decay's strength depends on the scale of the loss. Here every
    weight shrinks by the same factor (1 − ηλ) per step on top of its Adam step; a weight whose gradient is zero
    decays geometrically, θ_t = (1 − ηλ)ᵗ θ₀. A parameter whose ``grad`` is None takes no step and is not decayed,
    as in PyTorch.

    Parameters
    ----------
    params : list of Tensor
        The parameters (``model.parameters()``), a list rather than a one-shot generator. To keep biases and
        normalization gains from decaying, give them to a second optimizer with ``weight_decay=0``.
    lr : float in (0, 1], default 1e-3
        The learning rate η (see Adam for the upper bound). η λ must stay below 1, also when a schedule sets ``lr``.
    betas : pair of floats in [0, 1), default (0.9, 0.999)
    eps : float > 0, default 1e-8
    weight_decay : float >= 0, default 1e-2
        λ. With λ = 0 this is Adam.
    """

    _decay_in_gradient = False

    @checked(params=_checks.params, betas=_checks.betas, eps="rate")  # lr and weight_decay: by their setters
    def __init__(self, params, lr=1e-3, *, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2):
        super().__init__(params, lr, betas=betas, eps=eps, weight_decay=weight_decay)

    def step(self):
        i, g = self._gradient()  # the entries that have a gradient (usually all), and ∇L there (no decay)
        theta = self._theta()  # θ on the same entries
        self.t += 1
        self.m[i] = self.beta1 * self.m[i] + (1 - self.beta1) * g
        self.v[i] = self.beta2 * self.v[i] + (1 - self.beta2) * g**2
        m_hat = self.m[i] / (1 - self.beta1**self.t)
        v_hat = self.v[i] / (1 - self.beta2**self.t)
        self._apply(i, self.lr * (m_hat / (np.sqrt(v_hat) + self.eps) + self.weight_decay * theta))  # θ ← θ − η(…+λθ)


@checked(params=_checks.tensors, max_norm="rate")
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


# --- learning-rate schedules ------------------------------------------------------------------------------------------
# Each gives η_t, the learning rate of step t = 0, 1, 2, … (the step about to be taken) from the base rate η = ``lr``.
# Set it before each step: ``optimizer.lr = cosine_annealing(t, lr=0.1, total_steps=T)``.


@checked(step="count0", lr="rate", step_size="count", gamma=_checks.decay_factor)
def step_decay(step, *, lr, step_size, gamma=0.1):
    """Step decay, eq. (4.9): η_t = η γ^⌊t / s⌋, the rate times γ every s steps (torch's ``StepLR``).

    Parameters
    ----------
    step : int >= 0
        t, the number of steps (or epochs) taken so far.
    lr : float > 0
        η, the rate of the first s steps.
    step_size : int >= 1
        s, the steps between two decays.
    gamma : float in (0, 1], default 0.1
        γ, the factor of each decay.

    Returns
    -------
    float
        η_t.
    """
    return lr * gamma ** (step // step_size)  # η γ^⌊t / s⌋


@checked(step="count0", lr="rate", total_steps="count", min_lr="penalty",
         also=(_checks.min_lr_at_most_lr, _checks.step_before_end))
def cosine_annealing(step, *, lr, total_steps, min_lr=0.0):
    """Cosine annealing over T steps, eq. (4.9): η_t = η_min + (η − η_min) (1 + cos(π t / T)) / 2 for t = 0, …, T − 1.

    Starts at η, falls slowly, then fast around T/2, then slowly again towards η_min, which the curve would reach at
    t = T, just after the last step (as ``torch.optim.lr_scheduler.CosineAnnealingLR`` with ``T_max = T``). So the
    rate stays > 0 at every step even with η_min = 0, and decreases strictly when η_min < η.

    Parameters
    ----------
    step : int, 0 <= step < total_steps
        t. A step at or past T is refused: the run is longer than the schedule was planned for.
    lr : float > 0
        η, the rate at t = 0.
    total_steps : int >= 1
        T, the number of steps of the run.
    min_lr : float in [0, lr], default 0
        η_min.

    Returns
    -------
    float
        η_t.
    """
    return min_lr + (lr - min_lr) * (1 + math.cos(math.pi * step / total_steps)) / 2  # η_min + (η − η_min)(1 + cos)/2


@checked(step="count0", lr="rate", warmup_steps="count0")
def linear_warmup(step, *, lr, warmup_steps):
    """Linear warm-up, eq. (4.9): η_t = η (t + 1) / W for the first W steps t = 0, …, W − 1, then η.

    The first step already moves (η / W, not 0, which an optimizer refuses), the W-th (t = W − 1) reaches η, and the
    rate then stays there. Small steps at the start keep Adam's early, noisy estimates of v from throwing the
    weights far while they are still meaningless.

    Parameters
    ----------
    step : int >= 0
        t.
    lr : float > 0
        η, the rate reached at the end of the warm-up.
    warmup_steps : int >= 0
        W; 0 means no warm-up (η_t = η).

    Returns
    -------
    float
        η_t.
    """
    return lr * (step + 1) / warmup_steps if step < warmup_steps else lr  # η (t + 1) / W, then η


@checked(step="count0", lr="rate", warmup_steps="count0", total_steps="count", min_lr="penalty",
         also=(_checks.min_lr_at_most_lr, _checks.warmup_before_end, _checks.step_before_end))
def warmup_cosine(step, *, lr, warmup_steps, total_steps, min_lr=0.0):
    """Linear warm-up over W steps, then cosine annealing from η to η_min over the remaining T − W steps.

    η_t = η (t + 1) / W for t < W (``linear_warmup``), and η_min + (η − η_min) (1 + cos(π (t − W) / (T − W))) / 2
    for W <= t < T (``cosine_annealing`` of step t − W over T − W steps). Both parts give η at the boundary
    (t = W − 1 and t = W), so the rate is continuous: it rises, reaches η at t = W − 1, stays at η for t = W, then
    falls.

    Parameters
    ----------
    step : int, 0 <= step < total_steps
        t.
    lr : float > 0
        η, the peak rate.
    warmup_steps : int, 0 <= warmup_steps < total_steps
        W; 0 gives plain cosine annealing.
    total_steps : int >= 1
        T, the number of steps of the whole run, warm-up included.
    min_lr : float in [0, lr], default 0
        η_min.

    Returns
    -------
    float
        η_t.
    """
    if step < warmup_steps:
        return linear_warmup(step, lr=lr, warmup_steps=warmup_steps)
    return cosine_annealing(step - warmup_steps, lr=lr, total_steps=total_steps - warmup_steps, min_lr=min_lr)
