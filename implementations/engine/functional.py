"""Functions of :class:`~implementations.engine.autograd.Tensor` values, differentiable end to end: joining and
selecting tensors, the losses, and dropout."""

import numpy as np

from .._contract import checked
from . import _checks
from .autograd import Tensor, _unbroadcast

__all__ = ["concatenate", "stack", "where", "cross_entropy", "binary_cross_entropy_with_logits", "mse_loss", "dropout"]


@checked(tensors=_checks.tensor_list, also=_checks.joinable)
def concatenate(tensors, axis=0):
    """Join tensors along an existing axis; each gets its own slice of the gradient back.

    Parameters
    ----------
    tensors : list of Tensor (or arrays)
        Of equal shapes except along ``axis``.
    axis : int, default 0

    Returns
    -------
    Tensor
    """
    ends = np.cumsum([t.shape[axis] for t in tensors])[:-1]  # where each tensor's slice of the result ends

    def backward(g):
        return tuple(np.split(g, ends, axis=axis))

    return Tensor._result(np.concatenate([t.data for t in tensors], axis=axis), tensors, backward, "concatenate")


@checked(tensors=_checks.tensor_list, also=_checks.stackable)
def stack(tensors, axis=0):
    """Join tensors of equal shape along a new axis.

    Parameters
    ----------
    tensors : list of Tensor (or arrays) of one shape S
    axis : int, default 0
        Where the new axis goes, in −(len(S) + 1)..len(S).

    Returns
    -------
    Tensor of shape S with a new axis of length len(tensors) at ``axis``
    """
    def backward(g):
        return tuple(np.moveaxis(g, axis, 0))

    return Tensor._result(np.stack([t.data for t in tensors], axis=axis), tensors, backward, "stack")


@checked(condition=_checks.mask, a=_checks.tensor_argument, b=_checks.tensor_argument, also=_checks.where_broadcasts)
def where(condition, a, b):
    """Entries of ``a`` where ``condition`` holds, of ``b`` elsewhere (all three broadcast).

    Parameters
    ----------
    condition : bool array (or 0/1 values)
    a, b : Tensor, array or number
        A plain number may be ±inf (a fill value); arrays must be finite.

    Returns
    -------
    Tensor of the broadcast shape of the three
    """
    def backward(g):
        return _unbroadcast(np.where(condition, g, 0.0), a.shape), _unbroadcast(np.where(condition, 0.0, g), b.shape)

    return Tensor._result(np.where(condition, a.data, b.data), (a, b), backward, "where")


@checked(logits="tensor (..., K)", targets=_checks.integer_targets, ignore_index=_checks.optional_integer,
         also=_checks.targets_are_classes)
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
    K = logits.shape[-1]
    t = targets.ravel()  # (M,) one class index per row of logits
    kept = np.arange(t.size) if ignore_index is None else np.flatnonzero(t != ignore_index)  # the rows that count
    log_p = logits.reshape(-1, K).log_softmax(axis=-1)  # (M, K): log softmax, eq. (2.12)
    return -log_p[kept, t[kept]].mean()  # −(1/M) Σ_i log p(y⁽ⁱ⁾ | x⁽ⁱ⁾)


@checked(logits="tensor", targets="array", also=_checks.probabilities_like)
def binary_cross_entropy_with_logits(logits, targets):
    """Mean of log(1 + e^z) − t z, eq. (2.6): the binary cross-entropy computed from the logits z.

    log(1 + e^z) is the softplus of z, computed without overflow; its derivative, the sigmoid, makes the gradient
    sigm(z) − t.

    Parameters
    ----------
    logits : Tensor of any shape
    targets : array_like of the same shape, values in [0, 1]

    Returns
    -------
    loss : Tensor of shape ()
    """
    return (logits.softplus() - logits * targets).mean()


@checked(prediction="tensor", target="tensor", also=_checks.same_shape)
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
    return ((prediction - target) ** 2).mean()


@checked(x="tensor", p="prob", rng="rng", training="flag", also=_checks.below_one)
def dropout(x, p, *, rng, training):
    """Inverted dropout: zero each entry with probability p and scale the rest by 1/(1 − p).

    The expected value of every entry is unchanged, so nothing needs rescaling at evaluation time, when ``training``
    is False and ``x`` is returned as it is.

    Parameters
    ----------
    x : Tensor
    p : float in [0, 1)
    rng : numpy.random.Generator
        Checked even when unused (``training=False``), so that a missing generator shows at once.
    training : bool
    """
    if not training or p == 0.0:
        return x
    keep = rng.random(x.shape) >= p  # (same shape as x): each entry kept with probability 1 − p
    return x * (keep / (1.0 - p))
