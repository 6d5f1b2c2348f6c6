"""The key–value cache of generation: the fast path of :class:`~implementations.language.transformer.TinyGPT`.

A causal language model generates one token at a time, and at each step a token's key and value, in every layer,
depend only on the tokens up to it. :meth:`TinyGPT.generate` therefore keeps them: while a ``KVCache`` is set on
a :class:`~implementations.language.transformer.MultiHeadAttention` (its ``kv_cache``), the layer computes the
attention of the new tokens only, their queries meeting the stored keys and values of every earlier token and their
own, and stores their keys and values for the next step. The result equals the rows of the new tokens in eq. (7.10)
with the causal mask over the whole sequence (tested: ``tests/test_transformer.py``); it costs one token's
projections per step instead of the whole context's.
"""

import numpy as np

from ..engine.functional import concatenate
from .attention import _merge_heads, _split_heads, scaled_dot_product_attention


class KVCache:
    """The keys and values of the t tokens a causal attention layer has seen, each (B, h, t, d_k); t = 0 at first."""

    def __init__(self):
        self.K = self.V = None

    def __len__(self):
        return 0 if self.K is None else self.K.shape[2]

    def attend(self, layer, x):
        """Causal multi-head attention of T new tokens x (B, T, D) that follow the t cached ones: rows t … t + T − 1.

        ``layer`` holds the weights (a MultiHeadAttention); the new tokens' keys and values join the cache.
        """
        t, T = len(self), x.shape[1]
        Q = _split_heads(x @ layer.W_q, layer.num_heads)  # (B, h, T, d_k)
        K = _split_heads(x @ layer.W_k, layer.num_heads)
        V = _split_heads(x @ layer.W_v, layer.num_heads)
        if t:  # the earlier tokens' keys and values, computed when they were new
            K, V = concatenate([self.K, K], axis=2), concatenate([self.V, V], axis=2)  # (B, h, t + T, d_k)
        self.K, self.V = K, V
        mask = np.tri(T, t + T, k=t, dtype=bool) if T > 1 else None  # (T, t + T): new token i sees keys 0, …, t + i
        heads, _ = scaled_dot_product_attention(Q, K, V, mask=mask)  # (B, h, T, d_k)
        return _merge_heads(heads) @ layer.W_o  # (B, T, D)
