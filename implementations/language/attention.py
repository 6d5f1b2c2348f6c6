"""Attention as plain functions: the equations of chapter 7, for NumPy arrays or Tensors.

Tokens are rows: a sequence of T tokens with D features is a (T, D) array, a batch is (B, T, D).
Every function accepts NumPy arrays or :class:`~implementations.engine.autograd.Tensor` objects; if any
argument is a Tensor the result is a Tensor (so the engine can differentiate it), otherwise an ndarray.

Each public function checks its arguments once, by name, and then calls an unchecked private version that holds
the maths (``_scaled_dot_product_attention``, ``_multi_head_attention``, ``_layer_norm``, ``_softmax``); the
modules of :mod:`implementations.language.transformer`, which run them at every step, call the private versions
directly.
"""

import numpy as np

from .._validation import (
    _describe,
    as_array,
    check_finite_values,
    check_flag,
    check_positive_int,
)
from ..engine.autograd import Tensor, _check_not_empty, _result, _tensors
from ..engine.functional import concatenate

__all__ = [
    "simple_self_attention",
    "scaled_dot_product_attention",
    "self_attention",
    "multi_head_attention",
    "causal_mask",
    "key_padding_mask",
    "sinusoidal_positional_encoding",
]


# --- checks at the boundary of a public call (once per call; the private functions below check nothing) ----------


def _check_tokens(X, name="X"):
    """X is (T, D) or (B, T, D), tokens as rows, with at least one token of at least one feature."""
    if X.ndim not in (2, 3):
        hint = " For a single token use X[None]." if X.ndim == 1 else ""
        raise ValueError(f"{name} must be (T, D) or (B, T, D) (tokens as rows); received shape {X.shape}.{hint}")
    _check_not_empty(X, name, "at least one token with at least one feature")


def _check_widths(X, weights, *, square=False):
    """The projections ``weights`` {name: W} multiply the tokens of X: W is (D, ·), or (D, D) if ``square``.

    When the weights agree with each other and X has another width, X is the one at fault and is named; otherwise
    the first weight that does not fit X is named.
    """
    for name, W in weights.items():
        if W.ndim != 2:
            raise ValueError(f"{name} must be a 2-D matrix (D, d) that multiplies tokens of D features; received shape "
                             f"{W.shape}.")
    D = X.shape[-1]
    rows = {W.shape[0] for W in weights.values()}
    fits = (lambda W: W.shape == (W.shape[0], W.shape[0])) if square else (lambda W: True)
    names = ", ".join(weights)
    if len(rows) == 1 and D not in rows and all(fits(W) for W in weights.values()):
        (size,) = rows
        raise ValueError(f"X must have {size} entries along its last axis (the rows of {names}); received shape "
                         f"{X.shape}. Project the tokens to {size} features, or pass weights with {D} rows.")
    for name, W in weights.items():
        if W.shape[0] != D or (square and W.shape != (D, D)):
            expected = f"({D}, {D})" if square else f"({D}, d) ({D} rows)"
            raise ValueError(f"{name} must have shape {expected} to multiply tokens of X with {D} features; received "
                             f"shape {W.shape}.")


def _check_mask(mask, scores_shape):
    """The mask as a bool array that broadcasts to the scores (…, T_q, T_k) and leaves every query a key."""
    if isinstance(mask, Tensor):
        raise TypeError("mask must be a NumPy array of booleans (True = may attend); received a Tensor. Pass "
                        "mask.data > 0, or build it with causal_mask(T).")
    if isinstance(mask, (str, bytes)):
        raise TypeError(f"mask must be an array of booleans (True = may attend); received {_describe(mask)}.")
    try:
        mask = np.asarray(mask)
    except ValueError as exc:
        raise ValueError("mask is a ragged nested list; expected a rectangular array of booleans.") from exc
    if mask.dtype != bool:
        raise TypeError(f"mask must hold booleans (True = may attend); received dtype {mask.dtype}. Build it with a "
                        "comparison or with causal_mask(T).")
    try:
        allowed = np.broadcast_to(mask, scores_shape)
    except ValueError as exc:
        raise ValueError(f"mask of shape {mask.shape} does not broadcast to the scores {scores_shape} "
                         "(…, T_q, T_k); pass a (T_q, T_k) mask or one with the leading axes of the scores.") from exc
    no_key = ~allowed.any(axis=-1)  # (…, T_q): queries that may attend to nothing
    if no_key.any():
        where = ", ".join(str(i) for i in np.argwhere(no_key)[0])
        raise ValueError(f"mask allows no key for {int(no_key.sum())} query(ies), the first at index ({where}) of the "
                         "scores (a row of False); every query needs one key. Allow at least one key per row, e.g. "
                         "the query's own position.")
    return mask


def _check_qkv(Q, K, V):
    """Q (…, T_q, d_k), K (…, T_k, d_k), V (…, T_k, d_v) with leading axes that broadcast; names the misfit."""
    for name, t in (("Q", Q), ("K", K), ("V", V)):
        if t.ndim < 2:
            raise ValueError(f"{name} must be at least 2-D (…, tokens, features); received shape {t.shape}. "
                             f"For a single token use {name}[None].")
        _check_not_empty(t, name, "at least one token with at least one feature")
    if K.shape[-1] != Q.shape[-1]:
        raise ValueError(f"K must have {Q.shape[-1]} entries along its last axis (d_k, the width of the queries Q "
                         f"{Q.shape}); received shape {K.shape}.")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError(f"V must have one value per key: {K.shape[-2]} rows along its second-to-last axis (T_k, as "
                         f"in K {K.shape}); received shape {V.shape}.")
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except ValueError as exc:
        raise ValueError(f"the leading (batch) axes of Q {Q.shape}, K {K.shape} and V {V.shape} do not broadcast; "
                         "expected the same batch axes (or axes of length 1).") from exc


def _check_heads(X, weights, num_heads):
    _check_tokens(X)
    _check_widths(X, weights, square=True)
    num_heads = check_positive_int(num_heads, "num_heads")
    D = X.shape[-1]
    if D % num_heads:
        raise ValueError(f"num_heads must be a positive integer dividing D = {D}; received {num_heads}.")
    return num_heads


def _check_memory(memory, X):
    """The memory of cross-attention: tokens (…, T_k, D) with the batch axes and the width D of the queries X."""
    if memory.ndim not in (2, 3):
        hint = " For a single token use memory[None]." if memory.ndim == 1 else ""
        raise ValueError(f"memory must be (T_k, D) or (B, T_k, D) (tokens as rows, like X {X.shape}); received "
                         f"shape {memory.shape}.{hint}")
    _check_not_empty(memory, "memory", "at least one token (key) with at least one feature")
    D = X.shape[-1]
    if memory.shape[-1] != D:
        raise ValueError(f"memory must have {D} entries along its last axis (the width D of X {X.shape}: W_k and "
                         f"W_v are (D, D)); received shape {memory.shape}. Project the memory to {D} features.")
    if memory.shape[:-2] != X.shape[:-2]:
        expected = f"({', '.join(str(n) for n in X.shape[:-2])}, T_k, {D})" if X.ndim == 3 else f"(T_k, {D})"
        raise ValueError(f"memory must have the batch axes of X {X.shape}: shape {expected}, one memory per "
                         f"sequence of queries; received shape {memory.shape}.")


def _check_lengths(lengths, T, name="lengths", *, B=None):
    """The lengths of a padded batch: integers in 1..T, one per sequence (B of them if B is given), as int64."""
    values = as_array(lengths, name)
    if values.ndim != 1 or (B is not None and values.shape != (B,)):
        expected = f"({B},), one length per sequence" if B is not None else "(B,), one length per sequence"
        raise ValueError(f"{name} must have shape {expected}; received shape {values.shape}.")
    _check_not_empty(values, name, "one length per sequence")
    check_finite_values(values, name)
    if not np.all(values == np.round(values)) or values.min() < 1 or values.max() > T:
        shown = "[" + ", ".join(f"{v:g}" for v in values[:10]) + (", …]" if values.size > 10 else "]")
        raise ValueError(f"{name} must be integers between 1 and T = {T} (the padded length), one per sequence; "
                         f"received {shown}. A sequence's length counts its real tokens, padding excluded.")
    return values.astype(np.int64)


# --- the functions ------------------------------------------------------------------------------------------------


def simple_self_attention(X):
    """Y = softmax(X Xᵀ) X, eq. (7.7): every token a weighted mean of all tokens, no parameters.

    Parameters
    ----------
    X : array_like or Tensor of shape (T, D) or (B, T, D)

    Returns
    -------
    Y : ndarray or Tensor of the shape of X
    """
    (X_t,), as_tensor = _tensors({"X": X})
    _check_tokens(X_t)
    scores = X_t @ X_t.transpose(*range(X_t.ndim - 2), X_t.ndim - 1, X_t.ndim - 2)  # (…, T, T)
    return _result(scores.softmax(axis=-1) @ X_t, as_tensor)


def _swap_last(t):
    """Transpose the last two axes: Kᵀ for a batch of matrices."""
    axes = list(range(t.ndim))
    axes[-2], axes[-1] = axes[-1], axes[-2]
    return t.transpose(*axes)


def _scores_shape(Q, K):
    """The shape (…, T_q, T_k) of Q Kᵀ, for checking a mask before any product."""
    return (*np.broadcast_shapes(Q.shape[:-2], K.shape[:-2]), Q.shape[-2], K.shape[-2])


def scaled_dot_product_attention(Q, K, V, *, mask=None, scaled=True):
    """softmax(Q Kᵀ / √d_k) V, eq. (7.9), and the attention weights.

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
    (Q_t, K_t, V_t), as_tensor = _tensors({"Q": Q, "K": K, "V": V})
    _check_qkv(Q_t, K_t, V_t)
    scaled = check_flag(scaled, "scaled")
    if mask is not None:
        mask = _check_mask(mask, _scores_shape(Q_t, K_t))
    output, weights = _scaled_dot_product_attention(Q_t, K_t, V_t, mask=mask, scaled=scaled)
    return _result(output, as_tensor), _result(weights, as_tensor)


def _scaled_dot_product_attention(Q, K, V, *, mask=None, scaled=True):
    """:func:`scaled_dot_product_attention` on Tensors without checks (the mask, if any, is a checked bool array)."""
    scores = Q @ _swap_last(K)  # (…, T_q, T_k)
    if scaled:
        scores = scores / np.sqrt(Q.shape[-1])
    if mask is not None:
        allowed = np.broadcast_to(mask, scores.shape)
        scores = scores.masked_fill(~allowed, -np.inf)  # weight exp(−∞) = 0
    weights = scores.softmax(axis=-1)  # each row sums to 1
    return weights @ V, weights


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
    (X_t, Wq, Wk, Wv), as_tensor = _tensors({"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v})
    _check_tokens(X_t)
    _check_widths(X_t, {"W_q": Wq, "W_k": Wk, "W_v": Wv})
    for name, W in (("W_q", Wq), ("W_k", Wk), ("W_v", Wv)):
        _check_not_empty(W, name, "at least one column")
    if Wk.shape[1] != Wq.shape[1]:
        raise ValueError(f"W_k must have the {Wq.shape[1]} columns of W_q (d_k: queries and keys are compared by a "
                         f"dot product); received shape {Wk.shape}.")
    scaled = check_flag(scaled, "scaled")
    if mask is not None:
        T = X_t.shape[-2]
        mask = _check_mask(mask, (*X_t.shape[:-2], T, T))
    Y, weights = _scaled_dot_product_attention(X_t @ Wq, X_t @ Wk, X_t @ Wv, mask=mask, scaled=scaled)
    return _result(Y, as_tensor), _result(weights, as_tensor)


def multi_head_attention(X, W_q, W_k, W_v, W_o, *, num_heads, mask=None, memory=None):
    """Multi-head attention: Y = concat(head_1, …, head_h) W_o, eq. (7.10); self-attention, or cross-attention.

    Column block h of W_q, W_k and W_v (columns h·d_k … (h + 1)·d_k − 1, with d_k = D / num_heads)
    belongs to head h, which computes scaled dot-product attention on its own queries, keys and values.
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
    named = {"X": X, "W_q": W_q, "W_k": W_k, "W_v": W_v, "W_o": W_o}
    if memory is not None:
        named["memory"] = memory
    tensors, as_tensor = _tensors(named)
    X_t, Wq, Wk, Wv, Wo = tensors[:5]
    num_heads = _check_heads(X_t, {"W_q": Wq, "W_k": Wk, "W_v": Wv, "W_o": Wo}, num_heads)
    M_t = None
    if memory is not None:
        M_t = tensors[5]
        _check_memory(M_t, X_t)
    if mask is not None:
        *lead, T_q, _ = X_t.shape
        T_k = T_q if M_t is None else M_t.shape[-2]
        mask = _check_mask(mask, (*lead, num_heads, T_q, T_k))
    Y, weights = _multi_head_attention(X_t, Wq, Wk, Wv, Wo, num_heads=num_heads, mask=mask, memory=M_t)
    return _result(Y, as_tensor), _result(weights, as_tensor)


def _multi_head_attention(X, W_q, W_k, W_v, W_o, *, num_heads, mask=None, memory=None):
    """:func:`multi_head_attention` on Tensors without checks, for modules that run it at every step."""
    *lead, T, D = X.shape
    d_k = D // num_heads

    def split(t):  # (…, T, D) -> (…, h, T, d_k): column block m goes to head m (T = T_q or T_k)
        t = t.reshape(*lead, t.shape[-2], num_heads, d_k)
        n = t.ndim
        return t.transpose(*range(n - 3), n - 2, n - 3, n - 1)

    source = X if memory is None else memory  # the tokens the keys and values come from, (…, T_k, D)
    Q, K, V = split(X @ W_q), split(source @ W_k), split(source @ W_v)
    # all heads at once: heads (…, h, T_q, d_k), weights (…, h, T_q, T_k)
    heads, weights = _scaled_dot_product_attention(Q, K, V, mask=mask)
    n = heads.ndim
    concat = heads.transpose(*range(n - 3), n - 2, n - 3, n - 1).reshape(*lead, T, D)
    return concat @ W_o, weights


def _multi_head_attention_cached(X, W_q, W_k, W_v, W_o, *, num_heads, past=None):
    """Causal multi-head attention of T new tokens that follow the t tokens whose keys and values are cached.

    Eq. (7.10) with the causal mask, for the rows t, …, t + T − 1 of a sequence of t + T tokens: the new tokens'
    queries meet the keys and values of all t + T tokens, and new token i attends to positions 0, …, t + i. Rows
    0, …, t − 1 are not recomputed: a token's key and value depend only on the token itself (causality), so
    those cached earlier stay valid. For modules that decode one token at a time (a key–value cache); no checks.

    Parameters
    ----------
    X : Tensor of shape (B, T, D)
        The new tokens (the input of the attention layer), positions t, …, t + T − 1.
    W_q, W_k, W_v, W_o : Tensor of shape (D, D)
    num_heads : int
        Divides D; d_k = D / num_heads.
    past : (K, V), each a Tensor of shape (B, num_heads, t, d_k), or None (t = 0)
        The keys and values of the earlier tokens.

    Returns
    -------
    Y : Tensor of shape (B, T, D)
        Rows t, …, t + T − 1 of the full causal attention's output.
    (K, V) : each a Tensor of shape (B, num_heads, t + T, d_k)
        The cache extended by the new tokens' keys and values.
    """
    B, T, D = X.shape
    d_k = D // num_heads

    def split(t):  # (B, T, D) -> (B, h, T, d_k): column block m goes to head m
        return t.reshape(B, T, num_heads, d_k).transpose(0, 2, 1, 3)

    Q, K, V = split(X @ W_q), split(X @ W_k), split(X @ W_v)  # (B, h, T, d_k) each
    if past is not None:
        K = concatenate([past[0], K], axis=2)  # (B, h, t + T, d_k)
        V = concatenate([past[1], V], axis=2)
    t = K.shape[2] - T  # number of cached tokens
    # new token i (position t + i) may attend to keys 0, …, t + i; a single new token sees every key
    mask = np.tril(np.ones((T, t + T), dtype=bool), k=t) if T > 1 else None  # (T, t + T)
    heads, _ = _scaled_dot_product_attention(Q, K, V, mask=mask)  # (B, h, T, d_k)
    concat = heads.transpose(0, 2, 1, 3).reshape(B, T, D)  # (B, T, D)
    return concat @ W_o, (K, V)


def causal_mask(T):
    """(T, T) booleans, True on and below the diagonal: token i may attend to tokens 0, …, i.

    Parameters
    ----------
    T : int >= 1
        Number of tokens.
    """
    T = check_positive_int(T, "T")
    return np.tril(np.ones((T, T), dtype=bool))


def key_padding_mask(lengths, T_k):
    """(B, 1, T_k) booleans, True at the real keys: in sequence b, key j may be attended to when j < lengths[b].

    For keys padded on the right to a common length T_k (the encoder outputs of sources of different lengths).
    True means *allowed*, the convention of :func:`scaled_dot_product_attention`. The axis of length 1 stands for
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
    T_k = check_positive_int(T_k, "T_k")
    lengths = _check_lengths(lengths, T_k)
    return (np.arange(T_k)[None, :] < lengths[:, None])[:, None, :]  # (B, 1, T_k)


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
    T, D = check_positive_int(T, "T"), check_positive_int(D, "D")
    i = np.arange(T)[:, None]  # (T, 1)
    two_k = np.arange(0, D, 2)[None, :]  # (1, ⌈D/2⌉): the even columns 2k
    angle = i / 10000.0 ** (two_k / D)  # (T, ⌈D/2⌉)
    PE = np.zeros((T, D))
    PE[:, 0::2] = np.sin(angle)
    PE[:, 1::2] = np.cos(angle[:, : D // 2])
    return PE


