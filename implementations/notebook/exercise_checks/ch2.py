"""The checks of the exercises of chapter 2, Classification and logistic regression: one per exercise, named after the
reader's function."""

import numpy as np

from ... import numeric
from ...linear import glm, logistic, perceptron, regression, softmax_regression
from ..exercises import check_function
from ._shared import part_of, parts_to_check

__all__ = ["log_sigmoid", "hessian", "binary_weights", "mistake_bound", "poisson_gradient_hessian"]


def _logit_inputs(rng, size):
    """Logits of both signs and scales up to about 1e4; 1-D for odd sizes, 2-D for even ones."""
    z = rng.standard_normal(size) * 10.0 ** rng.uniform(0, 4, size)
    return (z if size % 2 else z.reshape(2, size // 2),)


def log_sigmoid(candidate, *, rng):
    """``log_sigmoid(z)`` against ``numeric.log_sigmoid`` on logits up to 1e4, with no warning allowed."""
    __tracebackhide__ = True
    check_function(candidate, numeric.log_sigmoid, _logit_inputs, rng=rng, warnings_as_errors=True)


def _hessian_inputs(rng, size):
    m = min(size, 4)
    return rng.standard_normal((size, m)), rng.integers(0, 2, size), rng.standard_normal(m + 1)


def hessian(candidate, *, rng):
    """``hessian(X, y, w)`` against ``logistic.logistic_hessian``."""
    __tracebackhide__ = True
    check_function(candidate, logistic.logistic_hessian, _hessian_inputs, rng=rng)


def _logistic_weights_of(W):
    """The w with sigm(φᵀw) = softmax(φᵀW)₂ for every φ, solved from the probabilities at m + 1 points."""
    m = W.shape[0] - 1
    X = np.vstack([np.zeros(m), np.eye(m)])  # (m + 1, m): Φ = [1 | X] is invertible
    p = softmax_regression.softmax_predict_proba(X, W)[:, 1]  # (m + 1,)
    return np.linalg.solve(regression.add_bias(X), np.log(p / (1 - p)))  # Φw = logit(p)


def _two_class_inputs(rng, size):
    return (rng.standard_normal((1 + min(size, 4), 2)),)


def binary_weights(candidate, *, rng):
    """``binary_weights(W)`` against the weights recovered from softmax's probabilities of class 2."""
    __tracebackhide__ = True
    check_function(candidate, _logistic_weights_of, _two_class_inputs, rng=rng)


def _mistake_bound(X, y, w):
    """(r/γ)² with r = max ‖φ⁽ⁱ⁾‖ and γ the margin of w, both in the feature space φ = (1, x)."""
    r = np.linalg.norm(regression.add_bias(X), axis=1).max()
    return (r / perceptron.margin(X, y, w)) ** 2


def _separated_inputs(rng, size):
    """Points at least 0.05 from the hyperplane of a random w of random scale, labelled by its side."""
    m = 1 + size % 3
    w = rng.standard_normal(m + 1) * 10.0 ** rng.uniform(-1, 1)  # a norm far from 1: normalising matters
    X = 2.0 * rng.standard_normal((4 * size + 8, m)) + rng.uniform(-2, 2, m)  # off-centre: the bias matters
    distance = regression.add_bias(X) @ w / np.linalg.norm(w)  # signed distance to the hyperplane
    keep = np.flatnonzero(np.abs(distance) >= 0.05)[: size + 1]
    return X[keep], (distance[keep] > 0).astype(np.int64), w


def mistake_bound(candidate, *, rng):
    """``mistake_bound(X, y, w)`` against (r/γ)² from ``perceptron.margin`` and the rows of Φ."""
    __tracebackhide__ = True
    check_function(candidate, _mistake_bound, _separated_inputs, rng=rng)


def _count_inputs(rng, size):
    m = 1 + size % 3
    X = rng.standard_normal((size + 1, m))
    w = 0.5 * rng.standard_normal(m + 1)
    y = rng.poisson(np.exp(regression.add_bias(X) @ w)).astype(np.float64)  # counts with mean e^(wᵀφ)
    return X, y, w




def poisson_gradient_hessian(candidate, *, rng):
    """``poisson_gradient_hessian(X, y, w)`` -> (gradient, Hessian) against ``glm.poisson_gradient_hessian``."""
    __tracebackhide__ = True
    started = parts_to_check(candidate, rng, "poisson_gradient_hessian", np.zeros((1, 1)), np.ones(1), np.zeros(2))
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    for index, what in enumerate(("the gradient, its first result", "the Hessian, its second result")):
        check_function(part_of(candidate, index), lambda X, y, w, i=index: glm.poisson_gradient_hessian(X, y, w)[i],
                       _count_inputs, rng=rng, name=name, quantity=what)
