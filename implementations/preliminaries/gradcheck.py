"""Finite-difference gradients and Jacobians: the independent check every analytic derivative in the book must pass."""

import numpy as np

from .._contract import checked
from ._checks import fixed_shape_function, gradient_function, refuse_nonfinite, scalar_function

__all__ = ["numerical_gradient", "numerical_jacobian", "check_gradient"]


@checked(f=scalar_function, x="array", eps="rate")
def numerical_gradient(f, x, *, eps=1e-6):
    """Central differences ∂f/∂xₖ ≈ (f(x + ε eₖ) − f(x − ε eₖ)) / (2ε) for every entry k of x, eq. (A.8).

    The gradient of a scalar f is its Jacobian, computed by :func:`numerical_jacobian`. The error is O(ε²) for smooth
    f, against O(ε) for a one-sided difference.

    Parameters
    ----------
    f : callable
        Maps an array shaped like ``x`` to a scalar.
    x : array_like of any shape
        Point at which to differentiate (not modified): finite numbers, at least one.
    eps : float, default 1e-6
        Step ε > 0.

    Returns
    -------
    grad : ndarray, same shape as x

    Raises
    ------
    TypeError
        If ``f`` is not callable or does not return a scalar.
    ValueError
        If ``f`` returns NaN or ±inf near ``x``, which would make the gradient NaN or ±inf.
    """
    return numerical_jacobian(f, x, eps=eps)  # (shape of x): the Jacobian of a scalar function is its gradient


@checked(f=fixed_shape_function, x="array", eps="rate")
def numerical_jacobian(f, x, *, eps=1e-6):
    """The Jacobian J[i, k] = ∂fᵢ/∂xₖ, eq. (A.5), by central differences, eq. (A.8).

    Column k is (f(x + ε eₖ) − f(x − ε eₖ)) / (2ε), with an error of O(ε²) for smooth f. Row i is the gradient of
    output i; for a scalar ``f`` the result is the gradient, shaped like ``x``.

    Parameters
    ----------
    f : callable
        Maps an array shaped like ``x`` to an array of finite numbers of a fixed shape ``S`` (a scalar too).
    x : array_like of any shape
        Point at which to differentiate (not modified): finite numbers, at least one.
    eps : float, default 1e-6
        Step ε > 0.

    Returns
    -------
    jacobian : ndarray of shape S + x.shape
        ``jacobian[i, k]`` = ∂fᵢ/∂xₖ; for a vector function of a vector, shape (m, n) with m outputs and
        n inputs.

    Raises
    ------
    TypeError
        If ``f`` is not callable or does not return numbers.
    ValueError
        If ``f`` returns arrays of different shapes near ``x``, or NaN or ±inf.
    """
    x = x.copy()  # perturbed one entry at a time below, and restored
    flat_x = x.reshape(-1)  # (n,): a view of the n entries of x
    S = np.shape(f(x))  # the shape of f's output
    columns = np.empty((x.size, *S))  # (n, *S): column k of the Jacobian, ∂f/∂xₖ
    for k in range(x.size):
        original = flat_x[k]
        flat_x[k] = original + eps
        f_plus = f(x)
        flat_x[k] = original - eps
        f_minus = f(x)
        flat_x[k] = original
        columns[k] = (f_plus - f_minus) / (2 * eps)  # eq. (A.8)
    return np.moveaxis(refuse_nonfinite(columns), 0, -1).reshape(*S, *x.shape)  # (*S, *x.shape)


@checked(f=scalar_function, grad_f=gradient_function, x="array", eps="rate")
def check_gradient(f, grad_f, x, *, eps=1e-6):
    """Largest relative error between ``grad_f(x)`` and the finite-difference gradient of ``f``.

    The error of entry k is abs(aₖ − nₖ) / max(abs(aₖ) + abs(nₖ), 1e-8) for analytic a and numerical n;
    around 1e-7 or below means the analytic gradient is right, 1e-2 or above means it is wrong.

    Parameters
    ----------
    f : callable
        Scalar function of an array shaped like ``x``.
    grad_f : callable
        Its claimed gradient, returning a finite array shaped like ``x``.
    x : array_like of any shape
        Finite numbers, at least one.
    eps : float, default 1e-6

    Returns
    -------
    error : float
    """
    analytic = grad_f(x)  # (shape of x)
    numeric = numerical_gradient(f, x, eps=eps)  # (shape of x), eq. (A.8)
    return float(np.max(np.abs(analytic - numeric) / np.maximum(np.abs(analytic) + np.abs(numeric), 1e-8)))
