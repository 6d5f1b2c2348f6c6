"""Losses and dropout on :class:`~implementations.engine.autograd.Tensor` values, differentiable end to end."""

import numbers

import numpy as np

from .._validation import as_array, check_finite_values, check_flag, check_rng
from .autograd import Tensor, _tensor_argument, where

__all__ = ["cross_entropy", "binary_cross_entropy_with_logits", "mse_loss", "dropout"]


def _target_array(targets, name):
    """Targets as an array: an integer array as it is (the common case, O(1)); other data converted and checked."""
    t = targets.data if isinstance(targets, Tensor) else targets
    if isinstance(t, np.ndarray) and t.dtype.kind in "iu":
        return t
    return check_finite_values(as_array(t, name), name)


def cross_entropy(logits, targets, *, ignore_index=None):
    """Mean of −log softmax(logits)[target] over the targets that are kept, eq. (2.14).

    Parameters
    ----------
    logits : Tensor of shape (..., K)
        Unnormalized scores; the last axis holds the K classes.
    targets : array_like of int, shape (...)
        Class indices 0, …, K − 1 (or ``ignore_index``).
    ignore_index : int, optional
        Targets equal to it (e.g. padding) contribute nothing and are not counted in the mean.

    Returns
    -------
    loss : Tensor of shape ()
    """
    logits = _tensor_argument(logits, "logits")
    if logits.ndim == 0:
        raise ValueError("logits is a single number; expected shape (..., K) with the K classes on the last axis.")
    if ignore_index is not None and (isinstance(ignore_index, bool) or not isinstance(ignore_index, numbers.Integral)):
        raise ValueError(f"ignore_index must be an integer (such as -100 for padding) or None; received "
                         f"{ignore_index!r}.")
    t = _target_array(targets, "targets")
    K = logits.shape[-1]
    if t.shape != logits.shape[:-1]:
        raise ValueError(
            f"targets have shape {t.shape} but logits have shape {logits.shape}; expected targets of shape "
            f"{logits.shape[:-1]} (one class index per row of logits)."
        )
    if t.dtype.kind not in "iu" and t.size and not np.all(t == np.round(t)):  # integer arrays need no check
        raise ValueError(f"targets must be integer class indices; received non-integer values such as "
                         f"{t[t != np.round(t)].flat[0]:g}. Encode the classes as 0, …, K − 1.")
    t = t.astype(np.int64).ravel()  # (M,)
    rows = np.arange(t.size) if ignore_index is None else np.flatnonzero(t != ignore_index)  # the kept targets
    if not rows.size:
        raise ValueError("targets are empty; there is nothing to average." if ignore_index is None else
                         "every target equals ignore_index; there is nothing to average.")
    t_kept = t if ignore_index is None else t[rows]
    if t_kept.min() < 0 or t_kept.max() >= K:
        bad = t_kept[(t_kept < 0) | (t_kept >= K)]
        raise ValueError(
            f"targets must lie in 0..{K - 1} (K = {K} classes); received {np.unique(bad)[:5].tolist()}. "
            "Use ignore_index for padding positions."
        )
    log_p = logits.reshape(-1, K).log_softmax(axis=-1)  # (M, K)
    return -log_p[rows, t_kept].mean()


def _softplus(z):
    """softplus(z) = log(1 + e^z) for a Tensor, as max(z, 0) + log(1 + e^(−|z|)), which never overflows.

    Both pieces take the branch z ≥ 0 at z = 0, so the derivative there is the correct sigm(0) = 1/2.
    """
    nonnegative = z.data >= 0
    positive_part = where(nonnegative, z, 0.0)  # max(z, 0), derivative 1 at z = 0
    abs_z = where(nonnegative, z, -z)  # |z|, derivative +1 at z = 0: the same branch
    return positive_part + ((-abs_z).exp() + 1.0).log()


def binary_cross_entropy_with_logits(logits, targets):
    """Mean of log(1 + e^z) − t z, eq. (2.6): the binary cross-entropy computed from the logits z.

    log(1 + e^z) is evaluated as max(z, 0) + log(1 + e^(−|z|)), which never overflows. Both pieces take
    the branch z ≥ 0 at z = 0, so the gradient there is the correct sigm(0) − t = 1/2 − t.

    Parameters
    ----------
    logits : Tensor of any shape
    targets : array_like of the same shape, values in [0, 1]

    Returns
    -------
    loss : Tensor of shape ()
    """
    z = _tensor_argument(logits, "logits")
    t = np.asarray(_target_array(targets, "targets"), dtype=np.float64)
    if t.shape != z.shape:
        raise ValueError(f"targets have shape {t.shape}; expected the shape of the logits, {z.shape}.")
    if np.any((t < 0) | (t > 1)) or np.isnan(t).any():
        raise ValueError("targets must lie in [0, 1]; received values outside it (or NaN). Use 0/1 labels or "
                         "probabilities.")
    return (_softplus(z) - z * t).mean()


def mse_loss(prediction, target):
    """Mean squared error (1/n) Σ (prediction − target)², over every entry.

    Parameters
    ----------
    prediction : Tensor of any shape
    target : Tensor or array of the same shape (no broadcasting)

    Returns
    -------
    loss : Tensor of shape ()
    """
    prediction = _tensor_argument(prediction, "prediction")
    target = _tensor_argument(target, "target")
    if prediction.shape != target.shape:
        raise ValueError(
            f"prediction has shape {prediction.shape} but target has shape {target.shape}; expected equal shapes "
            "(broadcasting here is almost always a bug)."
        )
    return ((prediction - target) ** 2).mean()


def dropout(x, p, *, rng, training):
    """Inverted dropout: zero each entry with probability p and scale the rest by 1/(1 − p).

    The expected value of every entry is unchanged, so nothing needs rescaling at evaluation time,
    when ``training`` is False and ``x`` is returned as it is.

    Parameters
    ----------
    x : Tensor
    p : float in [0, 1)
    rng : numpy.random.Generator
        Checked even when unused (``training=False``), so that a missing generator shows at once.
    training : bool
    """
    x = _tensor_argument(x, "x")
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= p < 1.0:
        raise ValueError(f"p must be a probability in [0, 1); received {p!r}.")
    rng = check_rng(rng)
    training = check_flag(training, "training")
    if not training or p == 0.0:
        return x
    keep = rng.random(x.shape) >= p  # (same shape as x)
    return x * (keep / (1.0 - p))
