"""Finite-difference gradients: the independent check every analytic gradient in the book must pass."""

import numpy as np

from ._validation import as_finite_array, check_positive

__all__ = ["numerical_gradient", "check_gradient"]


def numerical_gradient(f, x, *, eps=1e-6):
    """Central differences ∂f/∂xₖ ≈ (f(x + ε eₖ) − f(x − ε eₖ)) / (2ε) for every entry k of x.

    The error is O(ε²) for smooth f, against O(ε) for a one-sided difference.

    Parameters
    ----------
    f : callable
        Maps an array shaped like ``x`` to a scalar.
    x : array_like of any shape
        Point at which to differentiate (not modified).
    eps : float, default 1e-6
        Step ε > 0.

    Returns
    -------
    grad : ndarray, same shape as x
    """
    x = np.array(x, dtype=np.float64)  # a copy we may perturb in place
    x = as_finite_array(x, "x", ndim=x.ndim)
    eps = check_positive(eps, "eps")
    grad = np.empty_like(x)
    flat_x, flat_grad = x.reshape(-1), grad.reshape(-1)  # views into x and grad
    for k in range(flat_x.size):
        original = flat_x[k]
        flat_x[k] = original + eps
        f_plus = float(f(x))
        flat_x[k] = original - eps
        f_minus = float(f(x))
        flat_x[k] = original
        flat_grad[k] = (f_plus - f_minus) / (2 * eps)
    return grad


def check_gradient(f, grad_f, x, *, eps=1e-6):
    """Largest relative error between ``grad_f(x)`` and the finite-difference gradient of ``f``.

    The error of entry k is abs(aₖ − nₖ) / max(abs(aₖ) + abs(nₖ), 1e-8) for analytic a and numerical n;
    around 1e-7 or below means the analytic gradient is right, 1e-2 or above means it is wrong.

    Parameters
    ----------
    f : callable
        Scalar function of an array shaped like ``x``.
    grad_f : callable
        Its claimed gradient, returning an array shaped like ``x``.
    x : array_like
    eps : float, default 1e-6

    Returns
    -------
    error : float
    """
    analytic = np.asarray(grad_f(np.array(x, dtype=np.float64)), dtype=np.float64)
    numeric = numerical_gradient(f, x, eps=eps)
    if analytic.shape != numeric.shape:
        raise ValueError(
            f"grad_f returned shape {analytic.shape} but x has shape {numeric.shape}; "
            "expected a gradient with one entry per entry of x."
        )
    denominator = np.maximum(np.abs(analytic) + np.abs(numeric), 1e-8)
    return float(np.max(np.abs(analytic - numeric) / denominator))
