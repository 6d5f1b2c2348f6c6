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


def distribution(p, name):
    """The role of a probability distribution over K outcomes: a 1-D array of finite numbers >= 0 that sum to 1."""
    p = as_array(p, name)
    if p.ndim != 1 or p.size == 0:
        raise ValueError(f"{name} must be a 1-D array of K >= 1 probabilities; received shape {p.shape}. Pass one "
                         "distribution at a time, e.g. P[i] for row i of a table.")
    if not np.isfinite(p).all() or (p < 0).any():
        k = int(np.flatnonzero(~np.isfinite(p) | (p < 0))[0])
        raise ValueError(f"{name} must hold probabilities >= 0; received {name}[{k}] = {p[k]}. Check how {name} "
                         "was computed (a softmax or counts divided by their total are >= 0).")
    if abs(p.sum() - 1.0) > 1e-9:
        raise ValueError(f"{name} must sum to 1; received a sum of {p.sum():.6g}. Divide it by its sum first.")
    return p


def same_outcomes(p, q):
    """Two distributions over the same K outcomes."""
    if p.shape != q.shape:
        raise ValueError(f"p and q must be distributions over the same outcomes; received p with {p.size} and q with "
                         f"{q.size} probabilities. Pass two arrays of the same length K.")


def covariance(Sigma, name):
    """The role of a covariance matrix: a square, symmetric, positive-definite matrix of finite numbers."""
    Sigma = as_array(Sigma, name)
    if Sigma.ndim != 2 or Sigma.shape[0] != Sigma.shape[1] or Sigma.size == 0:
        raise ValueError(f"{name} must be a square (D, D) covariance matrix; received shape {Sigma.shape}.")
    if not np.isfinite(Sigma).all():
        raise ValueError(f"{name} contains NaN or infinite values; expected only finite numbers.")
    if np.abs(Sigma - Sigma.T).max() > 1e-10 * np.abs(Sigma).max():
        raise ValueError(f"{name} must be symmetric, as every covariance matrix is; received max abs({name} − "
                         f"{name}ᵀ) = {np.abs(Sigma - Sigma.T).max():.3g}. Symmetrise it with ({name} + {name}.T) / 2.")
    if np.linalg.eigvalsh(Sigma)[0] <= 0:
        raise ValueError(f"{name} must be positive definite; its smallest eigenvalue is "
                         f"{np.linalg.eigvalsh(Sigma)[0]:.3g}. A Gaussian with a singular covariance has no density: "
                         "drop the redundant coordinates or add a small multiple of the identity.")
    return Sigma


def observed_part(mu, Sigma, x_b):
    """x_b observes some, not all, of the D coordinates of the Gaussian N(mu, Sigma)."""
    D = mu.shape[0]
    if Sigma.shape[0] != D:
        raise ValueError(f"Sigma has shape {Sigma.shape} but mu has {D} entries; expected Sigma of shape ({D}, {D}).")
    if not 1 <= x_b.shape[0] < D:
        raise ValueError(f"x_b has {x_b.shape[0]} entries but the Gaussian has D = {D} coordinates; expected between "
                         f"1 and {D - 1}: x_b holds the observed last coordinates, and at least one must remain.")


def rank_at_most_the_shape(X, k):
    """k is at most min(N, m), the number of singular values of X (N, m)."""
    if k > min(X.shape):
        raise ValueError(f"k = {k} but X of shape {X.shape} has only {min(X.shape)} singular values; expected "
                         f"1 <= k <= {min(X.shape)}.")
