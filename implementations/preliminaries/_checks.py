"""The checks of the finite-difference functions that no role of the input contract describes, each once.

The functions take functions: a role here checks that ``f`` can be called and wraps it, so that what it returns is
checked at every call (a scalar, an array of one fixed shape, a gradient shaped like x) and the body of a
finite-difference function can call it as the maths does. :func:`refuse_nonfinite` checks the differences at the end.
"""

import functools

import numpy as np

from .._validation import _describe, as_array, check_callable


def scalar_function(f, name):
    """The role of a scalar function of an array: its values are returned as floats, anything else is refused."""
    f = check_callable(f, name, what="a scalar function of an array")

    @functools.wraps(f)
    def scalar_f(x):
        value = f(x)
        try:
            return float(value)
        except (TypeError, ValueError):
            raise TypeError(f"{name} must return a scalar; received {_describe(value)}. Reduce it to one number, "
                            "e.g. with .sum() or .mean().") from None

    return scalar_f


def fixed_shape_function(f, name):
    """The role of a function of an array whose output has one fixed shape: its values are returned as float64 copies
    (f may return x itself, which is perturbed next), and the shape of the first call is required of every later one,
    whose point is told apart from the first by the entry of x that moved."""
    f = check_callable(f, name, what="a function of an array")
    first = {}  # the point and the output's shape of the first call

    @functools.wraps(f)
    def array_f(x):
        value = np.array(as_array(f(x), f"{name}(x)"), dtype=np.float64)  # a copy
        if not first:
            first.update(x=x.copy(), shape=value.shape)
        elif value.shape != first["shape"]:
            moved = np.flatnonzero(x != first["x"])
            k = int(moved[0]) if moved.size else None
            where = "near x" if k is None else (
                f"at x {'+' if x.flat[k] > first['x'].flat[k] else '-'} eps in entry {k} of x (flattened)")
            raise ValueError(f"{name} returned shape {value.shape} {where} but shape {first['shape']} at x; expected "
                             "an output of the same shape at every point.")
        return value

    return array_f


def gradient_function(grad_f, name):
    """The role of the claimed gradient of f: called on a copy of x, it must return finite numbers shaped like x."""
    grad_f = check_callable(grad_f, name, what="the gradient function of f")

    @functools.wraps(grad_f)
    def checked_grad_f(x):
        g = as_array(grad_f(np.array(x)), f"{name}(x)")  # a copy of x: grad_f cannot change it
        if g.shape != x.shape:
            raise ValueError(f"{name} returned shape {g.shape} but x has shape {x.shape}; expected a gradient with one "
                             "entry per entry of x.")
        if not np.isfinite(g).all():
            raise ValueError(f"{name} returned {int(np.sum(~np.isfinite(g)))} NaN or infinite value(s) at x; expected "
                             f"a finite gradient. Check {name} at this x.")
        return g

    return checked_grad_f


def refuse_nonfinite(columns):
    """``columns`` (n, ...), the central differences of f for each of the n entries of x, if they are all finite;
    else the error naming the first entry k of x (flattened) where f was not finite."""
    bad = ~np.isfinite(columns).reshape(columns.shape[0], -1).all(axis=1)  # (n,)
    if bad.any():
        what = "gradient" if columns.ndim == 1 else "Jacobian"  # a scalar f, or a function of arrays
        raise ValueError(f"f returned NaN or ±inf at x ± eps in entry {int(np.flatnonzero(bad)[0])} of x (flattened), "
                         f"so the {what} is not finite there; expected finite values. Check f near x, or move x away "
                         "from a singularity.")
    return columns
