"""Finite-difference checks of the autograd engine, shared by the test modules."""

import numpy as np

from implementations.engine.autograd import Tensor

EPS = 1e-6


def numerical_grads(f, arrays, weights):
    """Central differences of the scalar Σ weights ⊙ f(*arrays) with respect to each array."""
    grads = []
    for k, a in enumerate(arrays):
        g = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            plus = [b.copy() for b in arrays]
            minus = [b.copy() for b in arrays]
            plus[k][idx] += EPS
            minus[k][idx] -= EPS
            g[idx] = (np.sum(weights * f(*plus)) - np.sum(weights * f(*minus))) / (2 * EPS)
        grads.append(g)
    return grads


def assert_gradients_match(op, *arrays, seed=0, rtol=1e-5, atol=1e-7):
    """Backpropagate a random upstream gradient through ``op`` and compare with finite differences."""
    arrays = [np.asarray(a, dtype=float) for a in arrays]
    tensors = [Tensor(a, requires_grad=True) for a in arrays]
    out = op(*tensors)
    weights = np.random.default_rng(seed).normal(size=out.shape)  # a random direction: L = Σ wᵢ outᵢ
    (out * weights).sum().backward()
    expected = numerical_grads(lambda *xs: op(*[Tensor(x) for x in xs]).data, arrays, weights)
    for t, g in zip(tensors, expected, strict=True):
        assert t.grad.shape == t.shape
        np.testing.assert_allclose(t.grad, g, rtol=rtol, atol=atol)
