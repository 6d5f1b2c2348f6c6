"""Finite-difference gradients and Jacobians: the independent check every analytic derivative in the book must pass."""

import numpy as np

from .._validation import _describe, as_array, check_callable, check_finite_any_shape, check_positive

__all__ = ["numerical_gradient", "numerical_jacobian", "check_gradient"]


def numerical_gradient(f, x, *, eps=1e-6):
    """Central differences ∂f/∂xₖ ≈ (f(x + ε eₖ) − f(x − ε eₖ)) / (2ε) for every entry k of x, eq. (A.5).

    The error is O(ε²) for smooth f, against O(ε) for a one-sided difference.

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
    f = check_callable(f, "f", what="a scalar function of an array")
    x = np.array(check_finite_any_shape(x, "x"))  # a copy we may perturb in place
    eps = check_positive(eps, "eps")
    return _numerical_gradient(f, x, eps)


def _numerical_gradient(f, x, eps):
    """:func:`numerical_gradient` on checked inputs; ``x`` is a float64 copy, perturbed in place and restored."""
    grad = np.empty_like(x)
    flat_x, flat_grad = x.reshape(-1), grad.reshape(-1)  # views into x and grad
    for k in range(flat_x.size):
        original = flat_x[k]
        flat_x[k] = original + eps
        f_plus = _scalar(f(x))
        flat_x[k] = original - eps
        f_minus = _scalar(f(x))
        flat_x[k] = original
        flat_grad[k] = (f_plus - f_minus) / (2 * eps)
    if not np.isfinite(grad).all():
        k = int(np.flatnonzero(~np.isfinite(grad))[0])
        raise ValueError(f"f returned NaN or ±inf at x ± eps in entry {k} of x (flattened), so the gradient is not "
                         "finite there; expected finite values. Check f near x, or move x away from a singularity.")
    return grad


def _scalar(value):
    """A value of f as a float, or a TypeError naming f when it is not a scalar."""
    try:
        return float(value)
    except (TypeError, ValueError):
        raise TypeError(f"f must return a scalar; received {_describe(value)}. Reduce it to one number, "
                        "e.g. with .sum() or .mean().") from None


def numerical_jacobian(f, x, *, eps=1e-6):
    """The Jacobian J[i, k] = ∂fᵢ/∂xₖ, eq. (A.2), by central differences, eq. (A.5).

    Column k is (f(x + ε eₖ) − f(x − ε eₖ)) / (2ε), with an error of O(ε²) for smooth f. Row i is the gradient of
    output i; for a scalar ``f`` the result is :func:`numerical_gradient`'s.

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
    f = check_callable(f, "f", what="a function of an array")
    x = np.array(check_finite_any_shape(x, "x"))  # a copy we may perturb in place
    eps = check_positive(eps, "eps")
    shape = _values(f, np.array(x), None, "at x").shape
    flat_x = x.reshape(-1)  # a view into x
    columns = np.empty((flat_x.size, *shape))  # (n, *S): column k of the Jacobian, ∂f/∂xₖ
    for k in range(flat_x.size):
        original = flat_x[k]
        flat_x[k] = original + eps
        f_plus = _values(f, x, shape, f"at x + eps in entry {k} of x (flattened)")
        flat_x[k] = original - eps
        f_minus = _values(f, x, shape, f"at x - eps in entry {k} of x (flattened)")
        flat_x[k] = original
        columns[k] = (f_plus - f_minus) / (2 * eps)
    if not np.isfinite(columns).all():
        k = int(np.flatnonzero(~np.isfinite(columns).reshape(flat_x.size, -1).all(axis=1))[0])
        raise ValueError(f"f returned NaN or ±inf at x ± eps in entry {k} of x (flattened), so the Jacobian is not "
                         "finite there; expected finite values. Check f near x, or move x away from a singularity.")
    return np.moveaxis(columns, 0, -1).reshape(*shape, *x.shape)  # (*S, *x.shape)


def _values(f, x, shape, where):
    """A copy of f(x) as a float64 array (f may return x itself), of the given shape unless shape is None."""
    value = np.array(as_array(f(x), "f(x)"), dtype=np.float64)  # a copy: x is perturbed after this call
    if shape is not None and value.shape != shape:
        raise ValueError(f"f returned shape {value.shape} {where} but shape {shape} at x; expected an output of "
                         "the same shape at every point.")
    return value


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
    f = check_callable(f, "f", what="a scalar function of an array")
    grad_f = check_callable(grad_f, "grad_f", what="the gradient function of f")
    x = check_finite_any_shape(x, "x")
    eps = check_positive(eps, "eps")
    analytic = as_array(grad_f(np.array(x)), "grad_f(x)")  # a copy: grad_f cannot change x
    numeric = _numerical_gradient(f, np.array(x), eps)
    if analytic.shape != numeric.shape:
        raise ValueError(
            f"grad_f returned shape {analytic.shape} but x has shape {numeric.shape}; "
            "expected a gradient with one entry per entry of x."
        )
    if not np.isfinite(analytic).all():
        raise ValueError(f"grad_f returned {int(np.sum(~np.isfinite(analytic)))} NaN or infinite value(s) at x; "
                         "expected a finite gradient. Check grad_f at this x.")
    denominator = np.maximum(np.abs(analytic) + np.abs(numeric), 1e-8)
    return float(np.max(np.abs(analytic - numeric) / denominator))
