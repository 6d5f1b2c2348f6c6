"""The checks of the exercises of chapter 1, Linear regression: one per exercise, named after the reader's function."""

import numpy as np

from ...linear import regression
from ..exercises import check_function

__all__ = ["averaged_gradient", "ridge_weights", "laplace_neg_log_likelihood", "ridge_effective_parameters"]


def _regression_inputs(rng, size):
    m = 1 + size % 4
    return rng.normal(size=(size, m)), rng.normal(size=size), rng.normal(size=m + 1)


def averaged_gradient(candidate, *, rng):
    """``averaged_gradient(X, y, w)`` against ``regression.compute_gradient(..., average=True)``."""
    __tracebackhide__ = True
    check_function(candidate, lambda X, y, w: regression.compute_gradient(X, y, w, average=True),
                   _regression_inputs, rng=rng)


def _ridge_inputs(rng, size):
    m = 1 + size % 5  # sometimes more features than examples
    return rng.normal(size=(size, m)), rng.normal(size=size), float(rng.uniform(0.1, 10.0))


def ridge_weights(candidate, *, rng):
    """``ridge_weights(X, y, l2)`` against ``regression.normal_equations(X, y, l2=l2)``."""
    __tracebackhide__ = True
    check_function(candidate, lambda X, y, l2: regression.normal_equations(X, y, l2=l2), _ridge_inputs, rng=rng)


def _laplace_neg_log_likelihood(e, b):
    """−ℓ = N ln(2b) + Σᵢ abs(eᵢ)/b: minus the log-likelihood of N residuals under Laplace noise of scale b."""
    return e.size * np.log(2 * b) + np.abs(e).sum() / b


def _laplace_inputs(rng, size):
    b = float(10.0 ** rng.uniform(-1, 1))  # scales from 0.1 to 10: a b where 2b belongs shows at every scale
    return rng.laplace(scale=b, size=size), b


def laplace_neg_log_likelihood(candidate, *, rng):
    """``laplace_neg_log_likelihood(e, b)`` against N ln(2b) + Σᵢ abs(eᵢ)/b."""
    __tracebackhide__ = True
    check_function(candidate, _laplace_neg_log_likelihood, _laplace_inputs, rng=rng)


def _ridge_trace(X, l2):
    """tr S_λ, S_λ = Φ(ΦᵀΦ + λI′)⁻¹Φᵀ the ridge smoother matrix: tr[(ΦᵀΦ + λI′)⁻¹ΦᵀΦ] by cycling the product."""
    Phi = regression.add_bias(X)  # (N, m + 1)
    I_prime = np.diag(np.r_[0.0, np.ones(X.shape[1])])  # (m + 1, m + 1): no penalty on the bias
    return float(np.trace(np.linalg.solve(Phi.T @ Phi + l2 * I_prime, Phi.T @ Phi)))


def _ridge_dof_inputs(rng, size):
    m = 1 + size % 4  # sometimes more features than examples
    X = rng.normal(size=(size, m)) * 10.0 ** rng.uniform(-1, 1, size=m) + rng.uniform(-3, 3, size=m)  # off-centre
    return X, float(10.0 ** rng.uniform(-2, 2))


def ridge_effective_parameters(candidate, *, rng):
    """``ridge_effective_parameters(X, l2)`` against the trace of the ridge smoother matrix S_λ."""
    __tracebackhide__ = True
    check_function(candidate, _ridge_trace, _ridge_dof_inputs, rng=rng)
