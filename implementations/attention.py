"""Attention as plain functions: the equations of chapter 5, for NumPy arrays or Tensors.

Tokens are rows: a sequence of T tokens with D features is a (T, D) array, a batch is (B, T, D).
Every function accepts NumPy arrays or :class:`~implementations.autograd.Tensor` objects; if any
argument is a Tensor the result is a Tensor (so the engine can differentiate it), otherwise an ndarray.
"""

import numpy as np

from .autograd import Tensor

__all__ = [
    "softmax",
    "simple_self_attention",
    "scaled_dot_product_attention",
    "self_attention",
    "multi_head_attention",
    "causal_mask",
    "sinusoidal_positional_encoding",
    "layer_norm",
]


def _tensors(*args):
    """(Tensors, any_was_tensor): every argument as a Tensor, and whether the caller passed one."""
    any_tensor = any(isinstance(a, Tensor) for a in args)
    return [a if isinstance(a, Tensor) else Tensor(a) for a in args], any_tensor


def _result(t, as_tensor):
    return t if as_tensor else t.data


def _check_tokens(X, name="X"):
    if X.ndim not in (2, 3):
        raise ValueError(f"{name} must be (T, D) or (B, T, D) (tokens as rows); received shape {X.shape}.")


def softmax(Z, axis=-1):
    """exp(z) / Σ exp(z) along ``axis`` (default: each row), after subtracting the maximum.

    Parameters
    ----------
    Z : array_like or Tensor of any shape; −inf entries get weight 0
    axis : int, default −1

    Returns
    -------
    ndarray or Tensor of the shape of ``Z``; slices along ``axis`` sum to 1
    """
    (Z_t,), as_tensor = _tensors(Z)
    return _result(Z_t.softmax(axis=axis), as_tensor)


def simple_self_attention(X):
    """Y = softmax(X Xᵀ) X, eq. (5.4): every token a weighted mean of all tokens, no parameters.

    Parameters
    ----------
    X : array_like or Tensor of shape (T, D) or (B, T, D)

    Returns
    -------
    Y : ndarray or Tensor of the shape of ``X``
    """
    (X_t,), as_tensor = _tensors(X)
    _check_tokens(X_t)
    scores = X_t @ X_t.transpose(*range(X_t.ndim - 2), X_t.ndim - 1, X_t.ndim - 2)  # (…, T, T)
    return _result(scores.softmax(axis=-1) @ X_t, as_tensor)


def _swap_last(t):
    """Transpose the last two axes: Kᵀ for a batch of matrices."""
    axes = list(range(t.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return t.transpose(*axes)


def scaled_dot_product_attention(Q, K, V, *, mask=None, scaled=True):
    """softmax(Q Kᵀ / √d_k) V, eq. (5.6), and the attention weights.

    Parameters
    ----------
    Q : array_like or Tensor of shape (…, T_q, d_k)
    K : array_like or Tensor of shape (…, T_k, d_k)
    V : array_like or Tensor of shape (…, T_k, d_v)
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
    (Q_t, K_t, V_t), as_tensor = _tensors(Q, K, V)
    _check_qkv(Q_t, K_t, V_t)
    scores = Q_t @ _swap_last(K_t)  # (…, T_q, T_k)
    if scaled:
        scores = scores / np.sqrt(Q_t.shape[-1])
    if mask is not None:
        allowed = _broadcast_mask(mask, scores.shape)
        scores = scores.masked_fill(~allowed, -np.inf)  # weight exp(−∞) = 0
    weights = scores.softmax(axis=-1)  # each row sums to 1
    return _result(weights @ V_t, as_tensor), _result(weights, as_tensor)


def _check_qkv(Q, K, V):
    if Q.ndim < 2 or K.ndim < 2 or V.ndim < 2:
        raise ValueError(f"Q, K and V must be at least 2-D; received shapes {Q.shape}, {K.shape}, {V.shape}.")
    if Q.shape[-1] != K.shape[-1] or K.shape[-2] != V.shape[-2]:
        raise ValueError(
            f"shapes do not fit: Q {Q.shape}, K {K.shape}, V {V.shape}; expected (…, T_q, d_k), "
            "(…, T_k, d_k), (…, T_k, d_v)."
        )


def _broadcast_mask(mask, shape):
    """The boolean mask broadcast to the scores' shape, after checking it leaves every query a key."""
    mask = np.asarray(mask)
    if mask.dtype != bool:
        raise TypeError(f"mask must hold booleans (True = may attend); received dtype {mask.dtype}.")
    try:
        allowed = np.broadcast_to(mask, shape)
    except ValueError as exc:
        raise ValueError(f"mask of shape {mask.shape} does not broadcast to the scores {shape}.") from exc
    if not allowed.any(axis=-1).all():
        raise ValueError("mask allows no key for some query (a row of False); every query needs one key.")
    return allowed


def self_attention(X, W_q, W_k, W_v, *, scaled=True, mask=None):
    """Self-attention with learned projections: Q = X W_q, K = X W_k, V = X W_v, then eq. (5.6).

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
    (X_t, Wq, Wk, Wv), as_tensor = _tensors(X, W_q, W_k, W_v)
    _check_tokens(X_t)
    for name, W in (("W_q", Wq), ("W_k", Wk), ("W_v", Wv)):
        if W.ndim != 2 or W.shape[0] != X_t.shape[-1]:
            raise ValueError(f"{name} must be ({X_t.shape[-1]}, d) to multiply tokens of {X_t.shape[-1]} features; "
                             f"received {W.shape}.")
    Y, weights = scaled_dot_product_attention(X_t @ Wq, X_t @ Wk, X_t @ Wv, mask=mask, scaled=scaled)
    return _result(Y, as_tensor), _result(weights, as_tensor)


def multi_head_attention(X, W_q, W_k, W_v, W_o, *, num_heads, mask=None):
    """Multi-head self-attention: Y = concat(head_1, …, head_h) W_o, eq. (5.7).

    Column block h of W_q, W_k and W_v (columns h·d_k … (h + 1)·d_k − 1, with d_k = D / num_heads)
    belongs to head h, which computes scaled dot-product attention on its own queries, keys and values.

    Parameters
    ----------
    X : array_like or Tensor of shape (T, D) or (B, T, D)
    W_q, W_k, W_v, W_o : array_like or Tensor of shape (D, D)
    num_heads : int
        Must divide D.
    mask : array_like of bool, broadcastable to (…, num_heads, T, T), optional
        True where attention is allowed; a (T, T) mask applies to every head and batch element.

    Returns
    -------
    Y : ndarray or Tensor of the shape of ``X``
    weights : ndarray or Tensor of shape (…, num_heads, T, T)
    """
    (X_t, Wq, Wk, Wv, Wo), as_tensor = _tensors(X, W_q, W_k, W_v, W_o)
    _check_heads(X_t, (Wq, Wk, Wv, Wo), num_heads)
    *lead, T, D = X_t.shape
    d_k = D // num_heads

    def split(t):  # (…, T, D) -> (…, h, T, d_k): column block m goes to head m
        t = t.reshape(*lead, T, num_heads, d_k)
        n = t.ndim
        return t.transpose(*range(n - 3), n - 2, n - 3, n - 1)

    Q, K, V = split(X_t @ Wq), split(X_t @ Wk), split(X_t @ Wv)
    # all heads at once: heads (…, h, T, d_k), weights (…, h, T, T)
    heads, weights = scaled_dot_product_attention(Q, K, V, mask=mask)
    n = heads.ndim
    concat = heads.transpose(*range(n - 3), n - 2, n - 3, n - 1).reshape(*lead, T, D)
    return _result(concat @ Wo, as_tensor), _result(weights, as_tensor)


def _check_heads(X, weights, num_heads):
    _check_tokens(X)
    D = X.shape[-1]
    for name, W in zip(("W_q", "W_k", "W_v", "W_o"), weights, strict=True):
        if W.shape != (D, D):
            raise ValueError(f"{name} must be ({D}, {D}) for tokens of {D} features; received {W.shape}.")
    if not isinstance(num_heads, (int, np.integer)) or num_heads < 1 or D % num_heads:
        raise ValueError(f"num_heads must be a positive integer dividing D = {D}; received {num_heads}.")


def causal_mask(T):
    """(T, T) booleans, True on and below the diagonal: token i may attend to tokens 0, …, i."""
    if not isinstance(T, (int, np.integer)) or T < 1:
        raise ValueError(f"T must be a positive integer; received {T!r}.")
    return np.tril(np.ones((T, T), dtype=bool))


def sinusoidal_positional_encoding(T, D):
    """PE[i, 2k] = sin(i / 10000^(2k/D)), PE[i, 2k + 1] = cos(i / 10000^(2k/D)), eq. (5.8).

    Parameters
    ----------
    T : int
        Number of positions i = 0, …, T − 1.
    D : int
        Model dimension; column 2k and 2k + 1 share the frequency 1 / 10000^(2k/D).

    Returns
    -------
    PE : ndarray of shape (T, D)
    """
    for name, value in (("T", T), ("D", D)):
        if not isinstance(value, (int, np.integer)) or value < 1:
            raise ValueError(f"{name} must be a positive integer; received {value!r}.")
    i = np.arange(T)[:, None]  # (T, 1)
    two_k = np.arange(0, D, 2)[None, :]  # (1, ⌈D/2⌉): the even columns 2k
    angle = i / 10000.0 ** (two_k / D)  # (T, ⌈D/2⌉)
    PE = np.zeros((T, D))
    PE[:, 0::2] = np.sin(angle)
    PE[:, 1::2] = np.cos(angle[:, : D // 2])
    return PE


def layer_norm(X, gamma, beta, *, eps=1e-5):
    """(x − mean) / √(var + eps) · γ + β over the last axis of every token (biased variance).

    Parameters
    ----------
    X : array_like or Tensor of shape (…, D)
    gamma, beta : array_like or Tensor of shape (D,)
    eps : float, default 1e-5

    Returns
    -------
    ndarray or Tensor of the shape of ``X``: each token has mean β and standard deviation ≈ |γ| per feature
    """
    (X_t, g, b), as_tensor = _tensors(X, gamma, beta)
    if g.shape != (X_t.shape[-1],) or b.shape != (X_t.shape[-1],):
        raise ValueError(f"gamma and beta must have shape ({X_t.shape[-1]},); received {g.shape} and {b.shape}.")
    if not eps > 0:
        raise ValueError(f"eps must be positive; received {eps}.")
    return _result(X_t.standardize(axis=-1, eps=eps) * g + b, as_tensor)  # (x − mean) / √(var + eps) · γ + β
