"""The checks of the exercises of chapter 4, Neural networks: one per exercise, named after the reader's function."""

import numpy as np

from ... import numeric
from ...engine import functional as F
from ...engine.autograd import Tensor
from ...nn.layers import MLP
from ..exercises import check_function
from ._shared import part_of, parts_to_check

__all__ = ["softplus", "relu_net_grad_W1", "dropout_forward_backward", "num_weights"]


def _softplus_inputs(rng, size):
    z = rng.standard_normal(size) * 10.0 ** rng.uniform(0, 3, size)
    z[0] = 0.0  # the kink of max(z, 0) and abs(z)
    return (z,)


def _tensor_value(function):
    def value(z):
        out = function(Tensor(z))
        return out.data if isinstance(out, Tensor) else out
    return value


def _tensor_gradient(function):
    def gradient(z):
        t = Tensor(z, requires_grad=True)
        out = function(t)
        if not isinstance(out, Tensor):
            raise TypeError(f"returned {type(out).__name__}, not a Tensor: compute with Tensor operations so that "
                            "backward() can differentiate it")
        out.sum().backward()
        return t.grad
    return gradient


def softplus(candidate, *, rng):
    """The Tensor function ``softplus(z)``: its values against log(1 + eᶻ), its gradient against sigm(z)."""
    __tracebackhide__ = True
    started = parts_to_check(candidate, rng, "softplus", Tensor(np.zeros(1)))
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    check_function(_tensor_value(candidate), lambda z: np.logaddexp(0.0, z), _softplus_inputs, rng=rng,
                   warnings_as_errors=True, name=name, quantity="its values")
    check_function(_tensor_gradient(candidate), numeric.sigmoid, _softplus_inputs, rng=rng,
                   warnings_as_errors=True, name=name, quantity=f"the gradient of {name}(z).sum()")


def _engine_grad_W1(X, y, W1, b1, W2, b2):
    W1_t = Tensor(W1, requires_grad=True)
    logits = (Tensor(X) @ W1_t + b1).relu() @ W2 + b2
    F.cross_entropy(logits, y).backward()
    return W1_t.grad


def _relu_net_inputs(rng, size):
    N, d0, d1, K = size + 1, 3, 4, 3
    return (rng.normal(size=(N, d0)), rng.integers(0, K, size=N), rng.normal(size=(d0, d1)), rng.normal(size=d1),
            rng.normal(size=(d1, K)), rng.normal(size=K))


def relu_net_grad_W1(candidate, *, rng):
    """``relu_net_grad_W1(X, y, W1, b1, W2, b2)`` against the engine's gradient."""
    __tracebackhide__ = True
    check_function(candidate, _engine_grad_W1, _relu_net_inputs, rng=rng)


def _count_by_building(sizes):
    return sum(p.size for p in MLP(sizes, rng=np.random.default_rng(0)).parameters())


def _sizes_inputs(rng, size):
    return ([int(n) for n in rng.integers(1, 20, size=1 + min(size, 5))],)


def num_weights(candidate, *, rng):
    """``num_weights(sizes)`` against counting the parameters of a built ``MLP(sizes)``."""
    __tracebackhide__ = True
    check_function(candidate, _count_by_building, _sizes_inputs, rng=rng, trials=10)


def _dropout_reference(H, mask, p, grad_out):
    """(output, ∂L/∂H) of inverted dropout with the keep-mask ``mask``, by the engine: ``functional.dropout``'s line."""
    H_t = Tensor(H, requires_grad=True)
    out = H_t * (mask / (1.0 - p))  # M ⊙ H / (1 − p), eq. (4.12), with this mask instead of a random one
    out.backward(grad_out)
    return out.data, H_t.grad


def _dropout_inputs(rng, size):
    """H, a keep-mask with at least one kept and one dropped entry, p away from 0 and ½, and ∂L/∂output."""
    shape = (1 + size // 4, 2 + size % 3)
    p = float(rng.uniform(0.1, 0.4) + (0.5 if size % 2 else 0.0))  # p and 1 − p never close: a swap shows
    mask = rng.random(shape) >= p  # kept with probability 1 − p, as Dropout draws it
    mask.flat[:2] = True, False
    return rng.normal(size=shape), mask, p, rng.normal(size=shape)


def dropout_forward_backward(candidate, *, rng):
    """``dropout_forward_backward(H, mask, p, grad_out)`` -> (out, grad_H), against ``Dropout`` and the engine.

    Inverted dropout in training mode, eq. (4.12), with a given keep-mask: ``mask`` is a boolean array of the shape
    of H, True where an entry is kept; p in (0, 1) is the probability of dropping an entry; grad_out = ∂L/∂out has
    the shape of H. The results are ndarrays of that shape: out = mask ⊙ H / (1 − p) and
    grad_H = ∂L/∂H = mask ⊙ grad_out / (1 − p). Every input has a kept and a dropped entry, and p is never near ½.
    """
    __tracebackhide__ = True
    started = parts_to_check(candidate, rng, "dropout_forward_backward",
                              np.ones((1, 2)), np.array([[True, False]]), 0.25, np.ones((1, 2)))
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    for index, what in enumerate(("out, its first result", "grad_H, its second result")):
        check_function(part_of(candidate, index, "out, grad_H"), lambda *a, i=index: _dropout_reference(*a)[i],
                       _dropout_inputs, rng=rng, name=name, quantity=what)
