"""Transformer modules on the autograd engine: multi-head attention, the block, and a tiny GPT.

Chapter 7 of the book (``TinyGPT``: chapter 10). Inputs are batch first, (B, T, D) Tensors of token vectors. The maths
lives in :mod:`implementations.language.attention`; these classes hold the parameters and wire the pieces together. Each
public method declares its arguments' roles (``implementations._contract``): a model that runs its blocks at every step
calls the same methods without the checks. Generation has one fast path, the key–value cache of
``implementations.language._kv_cache``, switched on by ``TinyGPT.generate`` in every attention layer.
"""

import numpy as np

from .._contract import checked
from ..engine import functional as F
from ..engine.autograd import Tensor, no_grad
from ..nn.layers import Dropout
from ..nn.module import Module
from ..nn.normalization import LayerNorm
from ..numeric import softmax
from . import _checks
from ._kv_cache import KVCache
from .attention import causal_mask, multi_head_attention

__all__ = ["MultiHeadAttention", "FeedForward", "TransformerBlock", "TinyGPT"]

def _xavier(rng, fan_in, fan_out):
    """W ~ U(−a, a), a = √(6 / (fan_in + fan_out)), as ``nn.Linear(init="xavier")``."""
    a = np.sqrt(6.0 / (fan_in + fan_out))
    return Tensor(rng.uniform(-a, a, size=(fan_in, fan_out)), requires_grad=True)


class MultiHeadAttention(Module):
    """Multi-head attention with parameters ``W_q, W_k, W_v, W_o``, each (d_model, d_model), no biases.

    Self-attention by default; cross-attention when :meth:`forward` is given a ``memory`` (an encoder's output).

    Parameters
    ----------
    d_model : int
        D, the width of every token vector.
    num_heads : int
        Must divide D; each head works on D / num_heads dimensions.
    rng : numpy.random.Generator
        Xavier-uniform initialization.

    Attributes
    ----------
    kv_cache : the key–value cache, or None
        None, except while :meth:`TinyGPT.generate` generates: then the keys and values of the tokens seen so far,
        and :meth:`forward` computes the causal self-attention of the new tokens only (see
        ``implementations.language._kv_cache``).
    """

    @checked(d_model="count", num_heads="count", rng="rng", also=_checks.heads_divide_d_model)
    def __init__(self, d_model, num_heads, *, rng):
        self.d_model, self.num_heads = d_model, num_heads
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, _xavier(rng, d_model, d_model))
        self.kv_cache = None

    @checked(x="tensor (T, self.d_model) | (B, T, self.d_model)",
             memory="tensor (T_k, self.d_model) | (B, T_k, self.d_model)?",
             mask=_checks.attention_mask, return_weights="flag",
             also=(_checks.memory_fits_layer_input, _checks.mask_fits_layer))
    def forward(self, x, *, memory=None, mask=None, return_weights=False):
        """Y = concat(heads) W_o, eq. (7.10): self-attention, or cross-attention over ``memory``.

        The queries come from x. Without ``memory`` the keys and values do too (self-attention); with it they come
        from the memory (cross-attention: the decoder's tokens x read the encoder's output, T_k tokens per sequence).

        Parameters
        ----------
        x : Tensor or array of shape (B, T, D) or (T, D), D = d_model
        memory : Tensor or array of shape (B, T_k, D) or (T_k, D), optional
            The tokens the keys and values come from, with the batch axes of x; None (default) is self-attention
            (T_k = T).
        mask : array of bool, broadcastable to (…, num_heads, T, T_k), optional
            True where attention is allowed (see
            :func:`~implementations.language.attention.scaled_dot_product_attention`).
            For a padded memory: ``key_padding_mask(lengths, T_k)[:, None]``, of shape (B, 1, 1, T_k).
        return_weights : bool, default False
            Also return the attention weights, an ndarray of shape (…, num_heads, T, T_k) (None with the cache).

        Returns
        -------
        Y : Tensor of the shape of ``x``
        """
        if self.kv_cache is not None:  # the fast path of generation: causal, the earlier keys and values kept
            Y, weights = self.kv_cache.attend(self, x), None
        else:
            Y, weights = multi_head_attention(x, self.W_q, self.W_k, self.W_v, self.W_o, num_heads=self.num_heads,
                                              mask=mask, memory=memory)
            weights = weights.data
        return (Y, weights) if return_weights else Y


class FeedForward(Module):
    """The per-token MLP of a block: FFN(x) = act(x W1 + b1) W2 + b2, in eq. (7.12), with GELU or ReLU.

    Parameters
    ----------
    d_model, d_ff : int
        Token width D and hidden width.
    rng : numpy.random.Generator
        Xavier-uniform weights; biases start at 0.
    activation : {"gelu", "relu"}, default "gelu"
        GELU in its tanh approximation, or ReLU.
    """

    @checked(d_model="count", d_ff="count", rng="rng", activation="{gelu, relu}")
    def __init__(self, d_model, d_ff, *, rng, activation="gelu"):
        self.d_model, self.activation = d_model, activation
        self.W1, self.b1 = _xavier(rng, d_model, d_ff), Tensor(np.zeros(d_ff), requires_grad=True)
        self.W2, self.b2 = _xavier(rng, d_ff, d_model), Tensor(np.zeros(d_model), requires_grad=True)

    @checked(x="tensor (..., self.d_model)")
    def forward(self, x):
        """FFN(x) for every token: x of shape (…, d_model) gives a Tensor of the same shape."""
        hidden = x @ self.W1 + self.b1  # (…, d_ff)
        hidden = hidden.gelu() if self.activation == "gelu" else hidden.relu()
        return hidden @ self.W2 + self.b2  # (…, D)


class TransformerBlock(Module):
    """One transformer layer, eq. (7.12): attention mixes the tokens, the feed-forward network each token.

    Pre-LN (``norm_first=True``, as GPT-2 and most recent models):
        x ← x + MHA(LN₁(x)),  x ← x + FFN(LN₂(x)).
    Post-LN (``norm_first=False``, the original transformer):
        x ← LN₁(x + MHA(x)),  x ← LN₂(x + FFN(x)).

    Parameters
    ----------
    d_model, num_heads, d_ff : int
        Token width D, number of heads, hidden width of the feed-forward network.
    rng : numpy.random.Generator
    norm_first : bool, default True
    activation : {"gelu", "relu"}, default "gelu"
    causal : bool, default False
        Apply :func:`~implementations.language.attention.causal_mask`: token t attends only to tokens ≤ t
        (a decoder); without it every token sees the whole sequence (an encoder).
    dropout : float in [0, 1), default 0
        Residual dropout (Vaswani et al., 2017): in training mode each branch's output, MHA(·) and FFN(·), is
        dropped out before it is added to the stream; the masks come from ``rng``. 0 turns it off.
    """

    @checked(d_model="count", num_heads="count", d_ff="count", rng="rng", norm_first="flag", causal="flag",
             activation="{gelu, relu}", dropout=_checks.drop_rate, also=_checks.heads_divide_d_model)
    def __init__(self, d_model, num_heads, d_ff, *, rng, norm_first=True, activation="gelu", causal=False,
                 dropout=0.0):
        self.d_model, self.norm_first, self.causal = d_model, norm_first, causal
        self.ln1 = LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads, rng=rng)
        self.ln2 = LayerNorm(d_model)
        self.ff = FeedForward(d_model, d_ff, rng=rng, activation=activation)
        self.drop = Dropout(dropout, rng=rng)  # the identity for dropout = 0 or in evaluation mode

    @checked(x="tensor (T, self.d_model) | (B, T, self.d_model)", mask=_checks.attention_mask,
             return_weights="flag", also=_checks.mask_fits_block)
    def forward(self, x, *, mask=None, return_weights=False):
        """(B, T, D) or (T, D) -> Tensor of the same shape, and the attention weights (…, num_heads, T, T) if asked.

        ``mask`` (bool, broadcastable to (…, num_heads, T, T), True = may attend) hides more keys, e.g. the padding
        of an encoder's sources, ``key_padding_mask(lengths, T)[:, None]``; a causal block combines it with the
        causal mask.
        """
        if self.causal:  # token t sees tokens ≤ t, and of those the ones the mask allows
            mask = causal_mask(x.shape[-2]) if mask is None else mask & causal_mask(x.shape[-2])  # (…, T, T)
        if self.norm_first:  # pre-LN
            a, weights = self.attn(self.ln1(x), mask=mask, return_weights=True)
            x = x + self.drop(a)
            x = x + self.drop(self.ff(self.ln2(x)))
        else:  # post-LN
            a, weights = self.attn(x, mask=mask, return_weights=True)
            x = self.ln1(x + self.drop(a))
            x = self.ln2(x + self.drop(self.ff(x)))
        return (x, weights) if return_weights else x


class TinyGPT(Module):
    """A decoder-only transformer language model: next-token logits for every position.

    tokens (B, T) → token embedding + learned position embedding → ``num_layers`` causal pre-LN blocks →
    final LayerNorm → unembedding ``W_out`` (D, V) → logits (B, T, V).

    With ``tie_weights=True`` the unembedding is the token embedding read backwards, W_out = W_teᵀ (as in GPT-2):
    the logit of token v is the dot product of the final hidden vector with v's embedding. There is then no
    ``W_out`` parameter (V·D fewer; the head has no bias either way), and W_te gets gradient from both uses.

    Parameters
    ----------
    vocab_size : int
        V, the number of token ids.
    block_size : int
        The longest context the model reads (number of learned positions).
    d_model, num_heads, num_layers, d_ff : int
    rng : numpy.random.Generator
        Embeddings and the unembedding ~ N(0, 0.02²) scaled as GPT-2; block weights Xavier-uniform.
    tie_weights : bool, default False
        Use W_teᵀ as the unembedding instead of a separate ``W_out``. The other parameters are drawn as without
        tying (``W_out`` is drawn last), so a tied and an untied model built with the same seed share them.
    dropout : float in [0, 1), default 0
        Dropout on the embeddings' sum and on every block's two branches (see :class:`TransformerBlock`), in
        training mode only; the masks come from ``rng``.
    scale_residual_init : bool, default False
        GPT-2's initialization of the residual projections (Radford et al., 2019): W_o and W₂ of every block are
        divided by √(2 · num_layers), the number of branches that add to the stream, so that its variance at
        initialization does not grow with depth.
    """

    @checked(vocab_size="count", block_size="count", d_model="count", num_heads="count", num_layers="count",
             d_ff="count", rng="rng", tie_weights="flag", dropout=_checks.drop_rate, scale_residual_init="flag",
             also=_checks.heads_divide_d_model)
    def __init__(self, vocab_size, block_size, d_model, num_heads, num_layers, d_ff, *, rng, tie_weights=False,
                 dropout=0.0, scale_residual_init=False):
        self.vocab_size, self.block_size, self.tie_weights = vocab_size, block_size, tie_weights
        self.W_te = Tensor(rng.normal(0.0, 0.02, size=(vocab_size, d_model)), requires_grad=True)  # (V, D)
        self.W_pe = Tensor(rng.normal(0.0, 0.02, size=(block_size, d_model)), requires_grad=True)  # (T_max, D)
        self.drop = Dropout(dropout, rng=rng)
        self.blocks = [TransformerBlock(d_model, num_heads, d_ff, rng=rng, causal=True, dropout=dropout)
                       for _ in range(num_layers)]
        if scale_residual_init:
            for block in self.blocks:
                block.attn.W_o.data /= np.sqrt(2 * num_layers)
                block.ff.W2.data /= np.sqrt(2 * num_layers)
        self.ln_f = LayerNorm(d_model)
        if not tie_weights:
            self.W_out = Tensor(rng.normal(0.0, 0.02, size=(d_model, vocab_size)), requires_grad=True)  # (D, V)

    @checked(idx=_checks.token_batch, return_weights="flag", also=_checks.idx_fits_model)
    def forward(self, idx, *, return_weights=False):
        """Next-token logits for every position.

        Parameters
        ----------
        idx : int array of shape (B, T), T <= block_size
            Token ids 0, …, vocab_size − 1.
        return_weights : bool, default False
            Also return the attention weights of every layer: a list of ndarrays of shape (B, num_heads, T, T).

        Returns
        -------
        logits : Tensor of shape (B, T, V)
        """
        cache = self.blocks[0].attn.kv_cache  # None, unless generate's cache holds the t tokens before idx
        t = 0 if cache is None else len(cache)
        x = self.drop(self.W_te[idx] + self.W_pe[t : t + idx.shape[1]])  # (B, T, D): token + position
        weights = []
        for block in self.blocks:
            x, w = block(x, return_weights=True)
            weights.append(w)
        W_out = self.W_te.T if self.tie_weights else self.W_out  # (D, V)
        logits = self.ln_f(x) @ W_out  # (B, T, V)
        return (logits, weights) if return_weights else logits

    def weight_matrices(self):
        """The parameters that weight decay shrinks: the blocks' weight matrices, and ``W_out`` if untied.

        Not the biases, the LayerNorm gains and shifts, or the token and position embeddings (as in nanoGPT's
        split, with the embeddings left out as well: a row of W_te that few batches touch would decay towards 0).
        """
        matrices = [p for block in self.blocks for p in block.parameters() if p.data.ndim == 2]
        return matrices if self.tie_weights else [*matrices, self.W_out]

    def _use_kv_cache(self, on):
        """Give every attention layer an empty key–value cache (``on``), or take the caches away."""
        for block in self.blocks:
            block.attn.kv_cache = KVCache() if on else None

    @checked(idx=_checks.token_batch, prompt_length="count", also=(_checks.idx_fits_model, _checks.prompt_fits))
    def forward_incremental(self, idx, *, prompt_length=1):
        """The logits of :meth:`forward`, computed as :meth:`generate` computes them with its key–value cache.

        Positions 0, …, prompt_length − 1 go through the model in one pass that fills the cache (as the prompt
        does in :meth:`generate`); every later position is then fed alone, its query meeting the cached keys and
        values of the positions before it. In exact arithmetic the result is ``forward(idx)``; in floating point
        it agrees to round-off. Computed without a graph (under ``no_grad``).

        Parameters
        ----------
        idx : int array of shape (B, T), T <= block_size
            Token ids 0, …, vocab_size − 1.
        prompt_length : int in 1..T, default 1
            How many leading positions are fed at once; 1 feeds every position on its own.

        Returns
        -------
        logits : ndarray of shape (B, T, V)
        """
        self._use_kv_cache(True)
        try:
            with no_grad():
                logits = [self(idx[:, :prompt_length]).data]  # (B, prompt_length, V)
                logits += [self(idx[:, s : s + 1]).data for s in range(prompt_length, idx.shape[1])]
        finally:
            self._use_kv_cache(False)
        return np.concatenate(logits, axis=1)  # (B, T, V)

    @checked(idx=_checks.token_batch, targets=_checks.targets, ignore_index=_checks.ignore_index,
             also=(_checks.idx_fits_model, _checks.targets_fit_model))
    def loss(self, idx, targets, *, ignore_index=None):
        """Mean cross-entropy of the next-token predictions: targets (B, T) are the ids that follow.

        Positions whose target equals ``ignore_index`` (e.g. −1 for a prompt that is given, not predicted)
        are left out of the mean.

        Parameters
        ----------
        idx : int array of shape (B, T), T <= block_size
        targets : int array of shape (B, T)
            Token ids 0, …, vocab_size − 1, or ``ignore_index``.
        ignore_index : int, optional

        Returns
        -------
        loss : Tensor of shape ()
        """
        return F.cross_entropy(self(idx), targets, ignore_index=ignore_index)

    @checked(idx=_checks.token_batch, max_new_tokens="count0", rng="rng", temperature="rate", top_k="count?",
             use_cache="flag", also=(_checks.idx_in_vocabulary, _checks.top_k_within_vocabulary))
    def generate(self, idx, max_new_tokens, *, rng, temperature=1.0, top_k=None, use_cache=True):
        """Sample ``max_new_tokens`` tokens one at a time, each from the model's next-token distribution.

        At each step the context is cropped to the last ``block_size`` tokens, the last position's logits
        are divided by ``temperature`` (lower = more conservative), all but the ``top_k`` largest are
        removed if ``top_k`` is given, and a token is drawn from the softmax with ``rng``.

        With ``use_cache`` each block keeps the keys and values of the tokens seen so far (a key–value cache):
        the prompt goes through the model once, and every later step feeds only the newest token, whose query
        meets the cached keys and values. While the sequence fits in ``block_size`` this saves recomputing the
        whole context at every step. Once it is longer, the cropped window slides by one token per step, and
        nothing cached stays valid: every token moves to another learned position, and from the second block on
        each cached key and value was computed by attending to tokens that have since left the window (so even
        positions relative to each other would not make the cache reusable). The cache is therefore rebuilt from
        the window at every such step (as costly as ``use_cache=False``). The tokens drawn are those of
        ``use_cache=False`` with the same ``rng``; the logits agree to round-off.

        Parameters
        ----------
        idx : int array of shape (B, T), T >= 1
            The prompts: token ids 0, …, vocab_size − 1; longer than ``block_size`` is fine (cropped).
        max_new_tokens : int >= 0
        rng : numpy.random.Generator
        temperature : float > 0, default 1.0
        top_k : int in 1..vocab_size, optional
        use_cache : bool, default True
            Keep a key–value cache; ``False`` runs the whole (cropped) context through the model at every step.

        Returns
        -------
        ndarray of int, shape (B, T + max_new_tokens): the prompt followed by the new tokens
        """
        idx = np.array(idx, dtype=np.int64)  # a copy: the prompt is not changed
        try:
            for step in range(max_new_tokens):
                context = idx[:, -self.block_size :]  # (B, ≤ block_size)
                if use_cache:  # the fast path: the newest token alone, while the cache holds the ones before it
                    rebuild = step == 0 or idx.shape[1] > self.block_size  # the first step, or the window slid
                    if rebuild:
                        self._use_kv_cache(True)  # positions 0, …, T − 1 again
                    else:
                        context = idx[:, -1:]  # at position t, the number of tokens cached
                with no_grad():
                    logits = self(context).data[:, -1] / temperature  # (B, V)
                if top_k is not None:
                    kth = np.sort(logits, axis=-1)[:, -top_k][:, None]
                    logits = np.where(logits < kth, -np.inf, logits)
                p = softmax(logits)  # (B, V); the removed tokens get probability 0
                u = rng.random((len(p), 1))
                nxt = np.minimum((p.cumsum(axis=-1) < u).sum(axis=-1), self.vocab_size - 1)  # inverse CDF
                idx = np.concatenate([idx, nxt[:, None]], axis=1)
        finally:
            self._use_kv_cache(False)
        return idx
