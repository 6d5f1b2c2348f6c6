"""Transformer modules on the autograd engine: multi-head attention, the block, and a tiny GPT.

Chapter 7 of the book. Inputs are batch first, (B, T, D) Tensors of token vectors. The maths lives in
:mod:`implementations.language.attention`; these classes hold the parameters and wire the pieces together.
A public ``forward`` checks its input once, in the caller's terms (the module's d_model), and calls ``_forward``;
a model that runs its blocks at every step (and ``TinyGPT.generate``, once per new token) calls ``_forward``.
With its key–value cache, ``TinyGPT.generate`` calls ``_forward_cached`` instead, which feeds only the new tokens.
"""


import numpy as np

from .._validation import (
    as_array,
    check_finite_values,
    check_flag,
    check_ignore_index,
    check_last_dim,
    check_next_token_targets,
    check_nonnegative_int,
    check_positive,
    check_positive_int,
    check_rng,
)
from ..engine import functional as F
from ..engine.autograd import Tensor, _tensor_argument
from ..nn.module import Module
from ..nn.normalization import LayerNorm
from ..numeric import softmax
from .attention import _check_mask, _multi_head_attention, _multi_head_attention_cached, causal_mask

__all__ = ["MultiHeadAttention", "FeedForward", "TransformerBlock", "TinyGPT"]


def _xavier(rng, fan_in, fan_out):
    """W ~ U(−a, a), a = √(6 / (fan_in + fan_out)), as ``nn.Linear(init="xavier")``."""
    a = np.sqrt(6.0 / (fan_in + fan_out))
    return Tensor(rng.uniform(-a, a, size=(fan_in, fan_out)), requires_grad=True)


def _token_input(x, d_model, whose, *, any_nd=False):
    """The input x of a module as a Tensor of shape (T, D) or (B, T, D) (any (…, D) if ``any_nd``), D = d_model.

    O(1) for a Tensor; other data are converted once and checked for NaN and inf. Shapes are reported in the
    caller's terms: the module's d_model, never its weights.
    """
    x = _tensor_argument(x, "x")
    if (any_nd and x.ndim == 0) or (not any_nd and x.ndim not in (2, 3)):
        expected = f"(…, {d_model})" if any_nd else f"(B, T, {d_model}) or (T, {d_model})"
        hint = " For a single token use x[None]." if x.ndim == 1 else ""
        raise ValueError(f"x must have shape {expected} (tokens as rows); received shape {x.shape}.{hint}")
    check_last_dim(x, "x", d_model, f"{whose} d_model")
    if x.size == 0:
        raise ValueError(f"x is empty (shape {x.shape}); expected at least one token.")
    return x


def _memory_input(memory, x, d_model):
    """The memory of cross-attention as a Tensor of shape (T_k, D) or (B, T_k, D), with the batch axes of x."""
    memory = _tensor_argument(memory, "memory")
    if memory.ndim != x.ndim or memory.shape[:-2] != x.shape[:-2]:
        expected = f"({x.shape[0]}, T_k, {d_model})" if x.ndim == 3 else f"(T_k, {d_model})"
        hint = " For a single token use memory[None]." if memory.ndim == 1 else ""
        raise ValueError(f"memory must have shape {expected} (tokens as rows, one memory per sequence of x "
                         f"{x.shape}); received shape {memory.shape}.{hint}")
    check_last_dim(memory, "memory", d_model, "the layer's d_model")
    if memory.size == 0:
        raise ValueError(f"memory is empty (shape {memory.shape}); expected at least one token to attend to.")
    return memory


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
    """

    def __init__(self, d_model, num_heads, *, rng):
        self.d_model = check_positive_int(d_model, "d_model")
        self.num_heads = check_positive_int(num_heads, "num_heads")
        if d_model % num_heads:
            raise ValueError(f"num_heads = {num_heads} must divide d_model = {d_model}; each head works on "
                             f"d_model / num_heads dimensions. Choose a divisor of {d_model}.")
        rng = check_rng(rng)
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, _xavier(rng, d_model, d_model))

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
            Also return the attention weights, an ndarray of shape (…, num_heads, T, T_k).

        Returns
        -------
        Y : Tensor of the shape of ``x``
        """
        x = _token_input(x, self.d_model, "the layer's")
        if memory is not None:
            memory = _memory_input(memory, x, self.d_model)
        return_weights = check_flag(return_weights, "return_weights")
        if mask is not None:
            *lead, T, _ = x.shape
            T_k = T if memory is None else memory.shape[-2]
            mask = _check_mask(mask, (*lead, self.num_heads, T, T_k))
        return self._forward(x, mask=mask, return_weights=return_weights, memory=memory)

    def _forward(self, x, *, mask=None, return_weights=False, memory=None):
        """:meth:`forward` without checks, for the blocks that call it at every step."""
        Y, weights = _multi_head_attention(x, self.W_q, self.W_k, self.W_v, self.W_o, num_heads=self.num_heads,
                                           mask=mask, memory=memory)
        return (Y, weights.data) if return_weights else Y


class FeedForward(Module):
    """The per-token MLP of a block: FFN(x) = act(x W1 + b1) W2 + b2, in eq. (7.12), with GELU or ReLU.

    Parameters
    ----------
    d_model, d_ff : int
        Token width D and hidden width.
    rng : numpy.random.Generator
        Xavier-uniform weights; biases start at 0.
    activation : {"gelu", "relu"}, default "gelu"
    """

    def __init__(self, d_model, d_ff, *, rng, activation="gelu"):
        d_model = check_positive_int(d_model, "d_model")
        d_ff = check_positive_int(d_ff, "d_ff")
        if not isinstance(activation, str) or activation not in ("gelu", "relu"):
            raise ValueError(f"activation must be 'gelu' (tanh approximation) or 'relu'; received {activation!r}.")
        rng = check_rng(rng)
        self.activation = activation
        self.W1, self.b1 = _xavier(rng, d_model, d_ff), Tensor(np.zeros(d_ff), requires_grad=True)
        self.W2, self.b2 = _xavier(rng, d_ff, d_model), Tensor(np.zeros(d_model), requires_grad=True)

    def forward(self, x):
        """FFN(x) for every token.

        Parameters
        ----------
        x : Tensor or array of shape (…, d_model)

        Returns
        -------
        Tensor of the shape of ``x``
        """
        return self._forward(_token_input(x, self.W1.shape[0], "the layer's", any_nd=True))

    def _forward(self, x):
        """:meth:`forward` without checks, for the blocks that call it at every step."""
        hidden = x @ self.W1 + self.b1  # (…, d_ff)
        hidden = hidden.gelu() if self.activation == "gelu" else hidden.relu()
        return hidden @ self.W2 + self.b2


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
    """

    def __init__(self, d_model, num_heads, d_ff, *, rng, norm_first=True, activation="gelu", causal=False):
        check_positive_int(d_model, "d_model")
        rng = check_rng(rng)
        self.norm_first, self.causal = check_flag(norm_first, "norm_first"), check_flag(causal, "causal")
        self.ln1 = LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads, rng=rng)
        self.ln2 = LayerNorm(d_model)
        self.ff = FeedForward(d_model, d_ff, rng=rng, activation=activation)

    def forward(self, x, *, return_weights=False):
        """(B, T, D) or (T, D) -> Tensor of the same shape (and the attention weights if asked).

        Parameters
        ----------
        x : Tensor or array of shape (B, T, D) or (T, D), D = d_model
        return_weights : bool, default False
            Also return the attention weights, an ndarray of shape (…, num_heads, T, T).
        """
        x = _token_input(x, self.attn.d_model, "the block's")
        return self._forward(x, return_weights=check_flag(return_weights, "return_weights"))

    def _forward(self, x, *, return_weights=False):
        """:meth:`forward` without checks, for a model that runs its blocks at every step."""
        mask = causal_mask(x.shape[-2]) if self.causal else None
        if self.norm_first:
            a, weights = self.attn._forward(self.ln1(x), mask=mask, return_weights=True)
            x = x + a
            x = x + self.ff._forward(self.ln2(x))
        else:
            a, weights = self.attn._forward(x, mask=mask, return_weights=True)
            x = self.ln1(x + a)
            x = self.ln2(x + self.ff._forward(x))
        return (x, weights) if return_weights else x

    def _forward_cached(self, x, past=None):
        """:meth:`forward` of a causal block for T new tokens that follow t earlier ones, with a key–value cache.

        The same layers and maths as :meth:`_forward` (either layout); the attention takes the earlier tokens' keys
        and values from ``past`` instead of recomputing them. For a causal block only (every block of
        :class:`TinyGPT`): without the mask, earlier tokens would attend to the new ones and their outputs change.

        Parameters
        ----------
        x : Tensor of shape (B, T, D)
            The block's input at positions t, …, t + T − 1.
        past : (K, V), each a Tensor of shape (B, num_heads, t, D / num_heads), or None (t = 0)

        Returns
        -------
        x : Tensor of shape (B, T, D)
            Rows t, …, t + T − 1 of the block's output for the whole sequence.
        (K, V) : each a Tensor of shape (B, num_heads, t + T, D / num_heads), the cache for the next call
        """
        attn = self.attn
        W = (attn.W_q, attn.W_k, attn.W_v, attn.W_o)
        if self.norm_first:
            a, past = _multi_head_attention_cached(self.ln1(x), *W, num_heads=attn.num_heads, past=past)
            x = x + a
            x = x + self.ff._forward(self.ln2(x))
        else:
            a, past = _multi_head_attention_cached(x, *W, num_heads=attn.num_heads, past=past)
            x = self.ln1(x + a)
            x = self.ln2(x + self.ff._forward(x))
        return x, past


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
    """

    def __init__(self, vocab_size, block_size, d_model, num_heads, num_layers, d_ff, *, rng, tie_weights=False):
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.block_size = check_positive_int(block_size, "block_size")
        d_model = check_positive_int(d_model, "d_model")
        num_heads = check_positive_int(num_heads, "num_heads")
        check_positive_int(num_layers, "num_layers")
        check_positive_int(d_ff, "d_ff")
        if d_model % num_heads:
            raise ValueError(f"num_heads = {num_heads} must divide d_model = {d_model}; each head works on "
                             f"d_model / num_heads dimensions. Choose a divisor of {d_model}.")
        rng = check_rng(rng)
        self.tie_weights = check_flag(tie_weights, "tie_weights")
        self.W_te = Tensor(rng.normal(0.0, 0.02, size=(vocab_size, d_model)), requires_grad=True)  # (V, D)
        self.W_pe = Tensor(rng.normal(0.0, 0.02, size=(block_size, d_model)), requires_grad=True)  # (T_max, D)
        self.blocks = [TransformerBlock(d_model, num_heads, d_ff, rng=rng, causal=True) for _ in range(num_layers)]
        self.ln_f = LayerNorm(d_model)
        if not self.tie_weights:
            self.W_out = Tensor(rng.normal(0.0, 0.02, size=(d_model, vocab_size)), requires_grad=True)  # (D, V)

    def _check_ids(self, idx, name="idx", *, crop=False):
        """Token ids (B, T) as an int64 array, integers 0..V−1 and, unless ``crop``, T <= block_size.

        An integer array costs a min and a max; other data are converted and checked entry by entry.
        """
        V = self.vocab_size
        if isinstance(idx, np.ndarray) and idx.dtype.kind in "iu":
            ids = idx
        else:
            ids = check_finite_values(as_array(idx.data if isinstance(idx, Tensor) else idx, name), name)
        if ids.ndim != 2:
            hint = f" For one sequence use {name}[None]." if ids.ndim == 1 else ""
            raise ValueError(f"{name} must have shape (B, T) (a batch of sequences of token ids); received shape "
                             f"{ids.shape}.{hint}")
        if ids.size == 0:
            raise ValueError(f"{name} is empty (shape {ids.shape}); expected at least one sequence of at least one "
                             "token.")
        if not crop and ids.shape[1] > self.block_size:
            raise ValueError(f"{name} has sequences of {ids.shape[1]} tokens, more than block_size = "
                             f"{self.block_size} (the longest context the model reads); crop them to the last "
                             f"block_size tokens, {name}[:, -{self.block_size}:].")
        bad = ids.min() < 0 or ids.max() >= V or (ids.dtype.kind == "f" and not np.all(ids == np.round(ids)))
        if bad:  # only now look at every entry, to say which are wrong
            outside = (ids < 0) | (ids >= V) | (ids != np.round(ids))
            shown = ", ".join(f"{v:g}" for v in np.unique(ids[outside])[:5])
            raise ValueError(f"{name} must hold token ids 0..{V - 1} (integers below vocab_size = {V}); received "
                             f"{int(outside.sum())} id(s) outside that set, with values {shown}.")
        return ids.astype(np.int64, copy=False)

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
        idx = self._check_ids(idx)
        return self._forward(idx, return_weights=check_flag(return_weights, "return_weights"))

    def _forward(self, idx, *, return_weights=False):
        """:meth:`forward` without checks, for :meth:`generate`, which runs it once per new token."""
        x = self.W_te[idx] + self.W_pe[: idx.shape[1]]  # (B, T, D): token + position
        weights = []
        for block in self.blocks:
            x, w = block._forward(x, return_weights=True)
            weights.append(w)
        logits = self._head(self.ln_f(x))  # (B, T, V)
        return (logits, weights) if return_weights else logits

    def _head(self, h):
        """Logits h W_out (B, T, V) of the final hidden vectors h (B, T, D); tied, W_out = W_teᵀ."""
        W_out = self.W_te.T if self.tie_weights else self.W_out  # (D, V)
        return h @ W_out

    def _forward_cached(self, idx, cache):
        """Logits (B, T, V) of T new tokens idx (B, T) that follow the t tokens held in ``cache``, which grows by T.

        The same maths as :meth:`_forward` on the whole sequence of t + T tokens, restricted to its last T rows:
        the new tokens get the position embeddings of positions t, …, t + T − 1, and each block's attention reads
        the earlier tokens' keys and values from the cache. No checks; t + T <= block_size.

        Parameters
        ----------
        idx : int ndarray of shape (B, T)
        cache : list with one entry per block, changed in place
            None for an empty cache (t = 0), else the block's (K, V), each a Tensor of shape (B, num_heads, t, d_k).
        """
        t = 0 if cache[0] is None else cache[0][0].shape[2]  # tokens already seen
        x = self.W_te[idx] + self.W_pe[t : t + idx.shape[1]]  # (B, T, D): token + position t, …, t + T − 1
        for layer, block in enumerate(self.blocks):
            x, cache[layer] = block._forward_cached(x, cache[layer])
        return self._head(self.ln_f(x))  # (B, T, V)

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
        from ..engine.autograd import no_grad

        idx = self._check_ids(idx)
        prompt_length = check_positive_int(prompt_length, "prompt_length")
        T = idx.shape[1]
        if prompt_length > T:
            raise ValueError(f"prompt_length must be between 1 and the length of idx, {T}; received "
                             f"{prompt_length}. Pass prompt_length={T} to feed the whole sequence at once.")
        cache = [None] * len(self.blocks)
        with no_grad():
            logits = [self._forward_cached(idx[:, :prompt_length], cache).data]  # (B, prompt_length, V)
            logits += [self._forward_cached(idx[:, s : s + 1], cache).data for s in range(prompt_length, T)]
        return np.concatenate(logits, axis=1)  # (B, T, V)

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
        idx = self._check_ids(idx)
        ignore_index = check_ignore_index(ignore_index)
        check_next_token_targets(targets, "targets", inputs_name="idx", shape=idx.shape, vocab_name="vocab_size",
                                 vocab_size=self.vocab_size, ignore_index=ignore_index)
        return F.cross_entropy(self._forward(idx), targets, ignore_index=ignore_index)

    def generate(self, idx, max_new_tokens, *, rng, temperature=1.0, top_k=None, use_cache=True):
        """Sample ``max_new_tokens`` tokens one at a time, each from the model's next-token distribution.

        At each step the context is cropped to the last ``block_size`` tokens, the last position's logits
        are divided by ``temperature`` (lower = more conservative), all but the ``top_k`` largest are
        removed if ``top_k`` is given, and a token is drawn from the softmax with ``rng``.

        With ``use_cache`` each block keeps the keys and values of the tokens seen so far (a key–value cache):
        the prompt goes through the model once, and every later step feeds only the newest token, whose query
        meets the cached keys and values. While the sequence fits in ``block_size`` this saves recomputing the
        whole context at every step. Once it is longer, the cropped window slides by one token per step, which
        moves every token to another learned position: nothing cached stays valid, so the cache is rebuilt from
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
        from ..engine.autograd import no_grad

        idx = np.array(self._check_ids(idx, crop=True), dtype=np.int64)
        max_new_tokens = check_nonnegative_int(max_new_tokens, "max_new_tokens")
        temperature = check_positive(temperature, "temperature")
        if top_k is not None:
            top_k = check_positive_int(top_k, "top_k")
            if top_k > self.vocab_size:
                raise ValueError(f"top_k must be between 1 and vocab_size = {self.vocab_size}; received {top_k}. "
                                 "Pass top_k=None to sample from every token.")
        rng = check_rng(rng)
        use_cache = check_flag(use_cache, "use_cache")
        cache = None  # per block, the keys and values of the tokens fed so far
        for _ in range(max_new_tokens):
            with no_grad():
                if not use_cache:
                    logits = self._forward(idx[:, -self.block_size :]).data[:, -1] / temperature  # (B, V)
                elif cache is None or idx.shape[1] > self.block_size:  # first step, or the window slid
                    cache = [None] * len(self.blocks)
                    logits = self._forward_cached(idx[:, -self.block_size :], cache).data[:, -1] / temperature
                else:  # the newest token alone, at position t = the number of tokens cached
                    logits = self._forward_cached(idx[:, -1:], cache).data[:, -1] / temperature  # (B, V)
            if top_k is not None:
                kth = np.sort(logits, axis=-1)[:, -top_k][:, None]
                logits = np.where(logits < kth, -np.inf, logits)
            p = softmax(logits)  # (B, V); the removed tokens get probability 0
            u = rng.random((len(p), 1))
            nxt = np.minimum((p.cumsum(axis=-1) < u).sum(axis=-1), self.vocab_size - 1)  # inverse CDF
            idx = np.concatenate([idx, nxt[:, None]], axis=1)
        return idx
