"""Attention as plain functions: the equations of chapter 7, for NumPy arrays or Tensors.

Tokens are rows: a sequence of T tokens with D features is a (T, D) array, a batch is (B, T, D).
Every function accepts NumPy arrays or :class:`~implementations.engine.autograd.Tensor` objects; if any
argument is a Tensor the result is a Tensor (so the engine can differentiate it), otherwise an ndarray.
Each function declares its arguments' roles beside its signature (``implementations._contract``); the modules of
:mod:`implementations.language.transformer` call the same functions at every step, without the checks.
"""

import numpy as np

from .._contract import checked
from ..engine import autograd  # noqa: F401 (the "tensor" role makes Tensors: importing the engine registers them)
from . import _checks

__all__ = [
    "simple_self_attention",
    "scaled_dot_product_attention",
    "self_attention",
    "multi_head_attention",
    "causal_mask",
    "key_padding_mask",
    "sinusoidal_positional_encoding",
]


@checked(X="tensor (T, D) | (B, T, D)", like_inputs=True)
def simple_self_attention(X):
    """Y = softmax(X Xᵀ) X, eq. (7.7): every token a weighted mean of all tokens, no parameters.

    Parameters
    ----------
    X : array_like or Tensor of shape (T, D) or (B, T, D)

    Returns
    -------
    Y : ndarray or Tensor of the shape of X
    """
    scores = X @ X.transpose(*range(X.ndim - 2), -1, -2)  # (…, T, T): x_i · x_j
    return scores.softmax(axis=-1) @ X  # (…, T, D)


@checked(Q="tensor (..., T_q, d_k)", K="tensor (..., T_k, d_k)", V="tensor (..., T_k, d_v)", scaled="flag",
         mask=_checks.attention_mask, also=(_checks.batch_axes_broadcast, _checks.mask_fits_scores), like_inputs=True)
def scaled_dot_product_attention(Q, K, V, *, mask=None, scaled=True):
    """softmax(Q Kᵀ / √d_k) V, eq. (7.9), and the attention weights.

    Parameters
    ----------
    Q : array_like or Tensor of shape (…, T_q, d_k)
    K : array_like or Tensor of shape (…, T_k, d_k)
    V : array_like or Tensor of shape (…, T_k, d_v)
        The leading (batch) axes of the three broadcast.
    mask : array_like of bool, broadcastable to (…, T_q, T_k), optional
        True where attention is *allowed*, as in ``torch.nn.functional.scaled_dot_product_attention``
        (the opposite of the ``attn_mask`` of ``torch.nn.MultiheadAttention``). Every query must be
        allowed at least one key.
    scaled : bool, default True
        Divide the scores by √d_k; ``False`` gives plain dot-product attention.

    Returns
    -------
    output : ndarray or Tensor of shape (…, T_q, d_v)
    weights : ndarray or Tensor of shape (…, T_q, T_k)
        Row i holds the weights α_ij of query i over the keys; each row sums to 1.
    """
    scores = Q @ K.transpose(*range(K.ndim - 2), -1, -2)  # (…, T_q, T_k): q_i · k_j
    if scaled:
        scores = scores / np.sqrt(Q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, -np.inf)  # weight exp(−∞) = 0 where attention is not allowed
    weights = scores.softmax(axis=-1)  # (…, T_q, T_k): each row sums to 1
    return weights @ V, weights  # (…, T_q, d_v)


@checked(W_q="tensor (D, d_k)", W_k="tensor (D, d_k)", W_v="tensor (D, d_v)", X="tensor (T, D) | (B, T, D)",
         scaled="flag", mask=_checks.attention_mask, also=_checks.mask_fits_self_attention, like_inputs=True)
def self_attention(X, W_q, W_k, W_v, *, scaled=True, mask=None):
    """Self-attention with learned projections: Q = X W_q, K = X W_k, V = X W_v, then eq. (7.9).

    Parameters
    ----------
    X : array_like or Tensor of shape (T, D) or (B, T, D)
    W_q, W_k : array_like or Tensor of shape (D, d_k)
    W_v : array_like or Tensor of shape (D, d_v)
    scaled : bool, default True
        ``False`` leaves out the division by √d_k.
    mask : array_like of bool, optional
        As in :func:`scaled_dot_product_attention`.

    Returns
    -------
    Y : ndarray or Tensor of shape (…, T, d_v)
    weights : ndarray or Tensor of shape (…, T, T)
    """
    return scaled_dot_product_attention(X @ W_q, X @ W_k, X @ W_v, mask=mask, scaled=scaled)


def _split_heads(t, num_heads):
    """(…, T, D) -> (…, h, T, d_k), d_k = D / h: column block m of the features goes to head m."""
    *lead, T, D = t.shape
    n = t.ndim + 1
    return t.reshape(*lead, T, num_heads, D // num_heads).transpose(*range(n - 3), n - 2, n - 3, n - 1)


def _merge_heads(t):
    """(…, h, T, d_k) -> (…, T, h·d_k): the heads side by side, the concatenation of eq. (7.10)."""
    *lead, h, T, d_k = t.shape
    n = t.ndim
    return t.transpose(*range(n - 3), n - 2, n - 3, n - 1).reshape(*lead, T, h * d_k)


@checked(W_q="tensor (D, D)", W_k="tensor (D, D)", W_v="tensor (D, D)", W_o="tensor (D, D)",
         X="tensor (T, D) | (B, T, D)", memory="tensor (T_k, D) | (B, T_k, D)?", num_heads="count",
         mask=_checks.attention_mask, like_inputs=True,
         also=(_checks.heads_divide_width, _checks.memory_fits_tokens, _checks.mask_fits_heads))
def multi_head_attention(X, W_q, W_k, W_v, W_o, *, num_heads, mask=None, memory=None):
    """Multi-head attention: Y = concat(head_1, …, head_h) W_o, eq. (7.10); self-attention, or cross-attention.

    Column block m of W_q, W_k and W_v (columns m·d_k … (m + 1)·d_k − 1 from 0, with d_k = D / h, h = num_heads)
    belongs to head m, which computes scaled dot-product attention on its own queries, keys and values.
    The queries are always Q = X W_q. Without ``memory`` the keys and values come from X too (self-attention:
    K = X W_k, V = X W_v); with it they come from the memory, K = M W_k and V = M W_v (cross-attention, as the
    decoder of an encoder–decoder reads the encoder's output M): each of the T_q tokens of X attends over the
    T_k tokens of M.

    Parameters
    ----------
    X : array_like or Tensor of shape (T_q, D) or (B, T_q, D)
    W_q, W_k, W_v, W_o : array_like or Tensor of shape (D, D)
    num_heads : int
        Must divide D.
    mask : array_like of bool, broadcastable to (…, num_heads, T_q, T_k), optional
        True where attention is allowed; a (T_q, T_k) mask applies to every head and batch element. For a padded
        memory use ``key_padding_mask(lengths, T_k)[:, None]``, of shape (B, 1, 1, T_k).
    memory : array_like or Tensor of shape (T_k, D) or (B, T_k, D), optional
        The tokens the keys and values come from, with the batch axes of X; None (default) is self-attention,
        T_k = T_q.

    Returns
    -------
    Y : ndarray or Tensor of the shape of X
    weights : ndarray or Tensor of shape (…, num_heads, T_q, T_k)
    """
    source = X if memory is None else memory  # the tokens the keys and values come from: (…, T_k, D)
    Q = _split_heads(X @ W_q, num_heads)  # (…, h, T_q, d_k): head m's queries are column block m
    K = _split_heads(source @ W_k, num_heads)  # (…, h, T_k, d_k)
    V = _split_heads(source @ W_v, num_heads)  # (…, h, T_k, d_k)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)  # every head at once: (…, h, T_q, d_k)
    return _merge_heads(heads) @ W_o, weights  # (…, T_q, D), (…, h, T_q, T_k)


@checked(T="count")
def causal_mask(T):
    """(T, T) booleans, True on and below the diagonal: token i may attend to tokens 0, …, i.

    Parameters
    ----------
    T : int >= 1
        Number of tokens.
    """
    return np.tri(T, dtype=bool)  # (T, T): ones on and below the diagonal


@checked(T_k="count", lengths=_checks.lengths, also=_checks.lengths_fit_keys)
def key_padding_mask(lengths, T_k):
    """(B, 1, T_k) booleans, True at the real keys: in sequence b, key j may be attended to when j < lengths[b].

    For keys padded on the right to a common length T_k (the encoder outputs of sources of different lengths).
    True means *allowed*, the convention of :func:`scaled_dot_product_attention` (PyTorch's argument of the same
    name, ``key_padding_mask`` of ``torch.nn.MultiheadAttention``, is True at the *padding*: invert a mask carried
    from one to the other). The axis of length 1 stands for
    the queries, so the same keys are hidden from every query:

    * single-head scores (B, T_q, T_k): pass the mask as it is;
    * multi-head scores (B, h, T_q, T_k): pass ``mask[:, None]``, of shape (B, 1, 1, T_k). (The (B, 1, T_k) mask
      itself would line B up with the heads axis: an error, or a wrong mask when B equals the number of heads.)

    Parameters
    ----------
    lengths : array_like of int, shape (B,)
        The number of real keys of each sequence, 1 <= lengths[b] <= T_k.
    T_k : int >= 1
        The padded number of keys.

    Returns
    -------
    mask : ndarray of bool, shape (B, 1, T_k)
    """
    return (np.arange(T_k)[None, :] < lengths[:, None])[:, None, :]  # (B, 1, T_k)


@checked(T="count", D="count")
def sinusoidal_positional_encoding(T, D):
    """PE[i, 2k] = sin(i / 10000^(2k/D)), PE[i, 2k + 1] = cos(i / 10000^(2k/D)), eq. (7.11).

    Parameters
    ----------
    T : int >= 1
        Number of positions i = 0, …, T − 1.
    D : int >= 1
        Model dimension; column 2k and 2k + 1 share the frequency 1 / 10000^(2k/D).

    Returns
    -------
    PE : ndarray of shape (T, D)
    """
    i = np.arange(T)[:, None]  # (T, 1)
    two_k = np.arange(0, D, 2)[None, :]  # (1, ⌈D/2⌉): the even columns 2k
    angle = i / 10000.0 ** (two_k / D)  # (T, ⌈D/2⌉)
    PE = np.zeros((T, D))
    PE[:, 0::2] = np.sin(angle)  # the columns 2k
    PE[:, 1::2] = np.cos(angle[:, : D // 2])  # the columns 2k + 1 (one fewer when D is odd)
    return PE
