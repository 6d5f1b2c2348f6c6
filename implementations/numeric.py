"""The numerically stable functions the whole package shares, each once, each with its one-line trick.

The sigmoid and the softmax are taught in chapter 2 and used by every later chapter: the engine's
``Tensor.sigmoid``, ``Tensor.softmax`` and ``Tensor.log_softmax`` compute their values here, and so do the losses of
word2vec, the GAN, the VAE and the language models. Each function takes and returns NumPy arrays (a scalar gives a
float).
"""

import numpy as np

from ._contract import checked
from ._validation import every_slice_has_a_finite_score, no_zero_rows

__all__ = ["sigmoid", "log_sigmoid", "softplus", "softmax", "log_softmax", "one_hot", "cosine_similarity"]


@checked(z="array")
def sigmoid(z):
    """The logistic sigmoid sigm(z) = 1 / (1 + e^(−z)), eq. (2.1), computed without overflow.

    Parameters
    ----------
    z : float or array_like of any shape
        Logits: finite numbers, at least one.

    Returns
    -------
    float or ndarray of the shape of ``z``, in [0, 1]; exactly 0 and 1 far in the tails
    """
    e = np.exp(-np.abs(z))  # e^(−|z|) ≤ 1: exp never overflows
    s = np.where(z >= 0, 1.0, e) / (1.0 + e)  # 1 / (1 + e^(−z)) for z ≥ 0, the equal e^z / (1 + e^z) for z < 0
    return float(s) if s.ndim == 0 else s


@checked(z="array")
def log_sigmoid(z):
    """log sigm(z) = min(z, 0) − log(1 + e^(−|z|)), finite for every finite z.

    Parameters
    ----------
    z : float or array_like of any shape
        Logits: finite numbers, at least one.

    Returns
    -------
    float or ndarray of the shape of ``z``, ≤ 0: ≈ z for very negative z, ≈ −e^(−z) for large z
    """
    out = np.minimum(z, 0.0) - np.log1p(np.exp(-np.abs(z)))  # log1p of a number ≤ 1: no overflow, no rounding to 0
    return float(out) if out.ndim == 0 else out


@checked(z="array")
def softplus(z):
    """softplus(z) = log(1 + e^z) = max(z, 0) + log(1 + e^(−|z|)), finite for every finite z; its derivative is sigm.

    Parameters
    ----------
    z : float or array_like of any shape
        Finite numbers, at least one.

    Returns
    -------
    float or ndarray of the shape of ``z``, ≥ 0
    """
    out = np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))  # e^(−|z|) ≤ 1: exp never overflows
    return float(out) if out.ndim == 0 else out


@checked(Z="array (..., K) inf", axis="axis Z", also=every_slice_has_a_finite_score)
def softmax(Z, axis=-1):
    """softmax(z)_k = e^(z_k) / Σ_j e^(z_j) along ``axis``, eq. (2.12).

    Parameters
    ----------
    Z : array_like of at least one dimension
        Scores (logits): finite numbers, or −inf for entries that get weight 0; every slice along ``axis`` needs a
        finite one.
    axis : int, default −1
        The axis along which the probabilities sum to 1 (the K classes).

    Returns
    -------
    P : ndarray of the shape of ``Z``, non-negative, summing to 1 along ``axis``
    """
    E = np.exp(Z - Z.max(axis=axis, keepdims=True))  # subtract the maximum: every exponent ≤ 0, nothing overflows
    return E / E.sum(axis=axis, keepdims=True)


@checked(Z="array (..., K) inf", axis="axis Z", also=every_slice_has_a_finite_score)
def log_softmax(Z, axis=-1):
    """log softmax(z)_k = z_k − log Σ_j e^(z_j) along ``axis``, without forming the probabilities.

    Parameters
    ----------
    Z : array_like of at least one dimension
        Scores, as for :func:`softmax`.
    axis : int, default −1

    Returns
    -------
    ndarray of the shape of ``Z``, ≤ 0 (−inf where ``Z`` is −inf)
    """
    shifted = Z - Z.max(axis=axis, keepdims=True)  # the log-sum-exp trick: every exponent ≤ 0
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


@checked(y="labels < num_classes", num_classes="count")
def one_hot(y, num_classes):
    """One-hot vectors: one_hot(y, K)[..., k] = 1 where y == k, else 0; row i of a batch is e_{y⁽ⁱ⁾}.

    Parameters
    ----------
    y : array_like of integer labels, any shape, at least one
        Class labels (or token ids) 0, …, K − 1.
    num_classes : int
        K ≥ 1 (the number of classes, or the vocabulary size).

    Returns
    -------
    ndarray of shape y.shape + (K,)
    """
    return np.eye(num_classes)[y]  # row y of the identity is e_y


@checked(A="array (n, d) | (d,)", B="array (m, d) | (d,)?", also=no_zero_rows)
def cosine_similarity(A, B=None):
    """cos(a, b) = a·b / (‖a‖ ‖b‖) between the rows of A and the rows of B (default: A itself).

    Parameters
    ----------
    A : array_like of shape (n, d) or (d,)
        Finite numbers, no zero row.
    B : array_like of shape (m, d) or (d,), optional
        Finite numbers, no zero row, of the same width d.

    Returns
    -------
    float for two vectors, else ndarray of shape (n, m)
    """
    A2 = np.atleast_2d(A)  # (n, d)
    B2 = A2 if B is None else np.atleast_2d(B)  # (m, d)
    S = (A2 @ B2.T) / np.outer(np.linalg.norm(A2, axis=1), np.linalg.norm(B2, axis=1))  # (n, m)
    return float(S[0, 0]) if A.ndim == 1 and (B is None or B.ndim == 1) else S

