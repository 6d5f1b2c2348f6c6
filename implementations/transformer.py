"""Transformer modules on the autograd engine: multi-head attention, the block, and a tiny GPT.

Chapter 5 of the book. Inputs are batch first, (B, T, D) Tensors of token vectors. The maths lives in
:mod:`implementations.attention`; these classes hold the parameters and wire the pieces together.
"""

import numpy as np

from . import functional as F
from ._validation import check_positive_int, check_rng
from .attention import causal_mask, multi_head_attention, softmax
from .autograd import Tensor
from .nn import LayerNorm, Module

__all__ = ["MultiHeadAttention", "FeedForward", "TransformerBlock", "TinyGPT"]


def _xavier(rng, fan_in, fan_out):
    """W ~ U(−a, a), a = √(6 / (fan_in + fan_out)), as ``nn.Linear(init="xavier")``."""
    a = np.sqrt(6.0 / (fan_in + fan_out))
    return Tensor(rng.uniform(-a, a, size=(fan_in, fan_out)), requires_grad=True)


def _as_tensor(x):
    return x if isinstance(x, Tensor) else Tensor(x)


class MultiHeadAttention(Module):
    """Multi-head self-attention with parameters ``W_q, W_k, W_v, W_o``, each (d_model, d_model), no biases.

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
            raise ValueError(f"num_heads = {num_heads} must divide d_model = {d_model}.")
        rng = check_rng(rng)
        for name in ("W_q", "W_k", "W_v", "W_o"):
            setattr(self, name, _xavier(rng, d_model, d_model))

    def forward(self, x, *, mask=None, return_weights=False):
        """Y = concat(heads) W_o for x of shape (B, T, D) or (T, D); optionally also the (…, h, T, T) weights."""
        Y, weights = multi_head_attention(_as_tensor(x), self.W_q, self.W_k, self.W_v, self.W_o,
                                          num_heads=self.num_heads, mask=mask)
        return (Y, weights.data) if return_weights else Y


class FeedForward(Module):
    """The per-token MLP of a block: FFN(x) = act(x W1 + b1) W2 + b2, in eq. (5.9), with GELU or ReLU."""

    def __init__(self, d_model, d_ff, *, rng, activation="gelu"):
        d_model = check_positive_int(d_model, "d_model")
        d_ff = check_positive_int(d_ff, "d_ff")
        if activation not in ("gelu", "relu"):
            raise ValueError(f"activation must be 'gelu' (tanh approximation) or 'relu'; received {activation!r}.")
        rng = check_rng(rng)
        self.activation = activation
        self.W1, self.b1 = _xavier(rng, d_model, d_ff), Tensor(np.zeros(d_ff), requires_grad=True)
        self.W2, self.b2 = _xavier(rng, d_ff, d_model), Tensor(np.zeros(d_model), requires_grad=True)

    def forward(self, x):
        hidden = x @ self.W1 + self.b1  # (…, d_ff)
        hidden = hidden.gelu() if self.activation == "gelu" else hidden.relu()
        return hidden @ self.W2 + self.b2


class TransformerBlock(Module):
    """One transformer layer, eq. (5.9): attention mixes the tokens, the feed-forward network each token.

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
        Apply :func:`~implementations.attention.causal_mask`: token t attends only to tokens ≤ t
        (a decoder); without it every token sees the whole sequence (an encoder).
    """

    def __init__(self, d_model, num_heads, d_ff, *, rng, norm_first=True, activation="gelu", causal=False):
        rng = check_rng(rng)
        self.norm_first, self.causal = bool(norm_first), bool(causal)
        self.ln1 = LayerNorm(d_model)
        self.attn = MultiHeadAttention(d_model, num_heads, rng=rng)
        self.ln2 = LayerNorm(d_model)
        self.ff = FeedForward(d_model, d_ff, rng=rng, activation=activation)

    def forward(self, x, *, return_weights=False):
        """(B, T, D) or (T, D) -> Tensor of the same shape (and the attention weights if asked)."""
        x = self._check_input(x)
        mask = causal_mask(x.shape[-2]) if self.causal else None
        if self.norm_first:
            a, weights = self.attn(self.ln1(x), mask=mask, return_weights=True)
            x = x + a
            x = x + self.ff(self.ln2(x))
        else:
            a, weights = self.attn(x, mask=mask, return_weights=True)
            x = self.ln1(x + a)
            x = self.ln2(x + self.ff(x))
        return (x, weights) if return_weights else x


    def _check_input(self, x):
        x = _as_tensor(x)
        D = self.attn.d_model
        if x.ndim not in (2, 3) or x.shape[-1] != D:
            raise ValueError(f"x must be (B, T, {D}) or (T, {D}); received {x.shape}.")
        return x


class TinyGPT(Module):
    """A decoder-only transformer language model: next-token logits for every position.

    tokens (B, T) → token embedding + learned position embedding → ``num_layers`` causal pre-LN blocks →
    final LayerNorm → unembedding ``W_out`` (D, V) → logits (B, T, V).

    Parameters
    ----------
    vocab_size : int
        V, the number of token ids.
    block_size : int
        The longest context the model reads (number of learned positions).
    d_model, num_heads, num_layers, d_ff : int
    rng : numpy.random.Generator
        Embeddings and the unembedding ~ N(0, 0.02²) scaled as GPT-2; block weights Xavier-uniform.
    """

    def __init__(self, vocab_size, block_size, d_model, num_heads, num_layers, d_ff, *, rng):
        self.vocab_size = check_positive_int(vocab_size, "vocab_size")
        self.block_size = check_positive_int(block_size, "block_size")
        d_model = check_positive_int(d_model, "d_model")
        check_positive_int(num_layers, "num_layers")
        rng = check_rng(rng)
        self.W_te = Tensor(rng.normal(0.0, 0.02, size=(vocab_size, d_model)), requires_grad=True)  # (V, D)
        self.W_pe = Tensor(rng.normal(0.0, 0.02, size=(block_size, d_model)), requires_grad=True)  # (T_max, D)
        self.blocks = [TransformerBlock(d_model, num_heads, d_ff, rng=rng, causal=True) for _ in range(num_layers)]
        self.ln_f = LayerNorm(d_model)
        self.W_out = Tensor(rng.normal(0.0, 0.02, size=(d_model, vocab_size)), requires_grad=True)  # (D, V)

    def _check_ids(self, idx):
        idx = np.asarray(idx)
        if idx.ndim != 2:
            raise ValueError(f"token ids must have shape (B, T); received {idx.shape}. For one sequence use ids[None].")
        if idx.shape[1] > self.block_size:
            raise ValueError(f"sequences of {idx.shape[1]} tokens exceed block_size = {self.block_size}; "
                             "crop them to the last block_size tokens.")
        if not np.issubdtype(idx.dtype, np.integer) or idx.min() < 0 or idx.max() >= self.vocab_size:
            raise ValueError(f"token ids must be integers in 0..{self.vocab_size - 1}; "
                             f"received {idx.dtype} values from {idx.min()} to {idx.max()}.")
        return idx

    def forward(self, idx, *, return_weights=False):
        """Logits (B, T, V) for token ids (B, T); optionally the attention weights of every layer."""
        idx = self._check_ids(idx)
        x = self.W_te[idx] + self.W_pe[: idx.shape[1]]  # (B, T, D): token + position
        weights = []
        for block in self.blocks:
            x, w = block(x, return_weights=True)
            weights.append(w)
        logits = self.ln_f(x) @ self.W_out  # (B, T, V)
        return (logits, weights) if return_weights else logits

    def loss(self, idx, targets, *, ignore_index=None):
        """Mean cross-entropy of the next-token predictions: targets (B, T) are the ids that follow.

        Positions whose target equals ``ignore_index`` (e.g. −1 for a prompt that is given, not predicted)
        are left out of the mean.
        """
        targets = np.asarray(targets)
        if targets.shape != np.shape(idx):
            raise ValueError(f"targets must have the shape of idx {np.shape(idx)}; received {targets.shape}.")
        return F.cross_entropy(self(idx), targets, ignore_index=ignore_index)

    def generate(self, idx, max_new_tokens, *, rng, temperature=1.0, top_k=None):
        """Sample ``max_new_tokens`` tokens one at a time, each from the model's next-token distribution.

        At each step the context is cropped to the last ``block_size`` tokens, the last position's logits
        are divided by ``temperature`` (lower = more conservative), all but the ``top_k`` largest are
        removed if ``top_k`` is given, and a token is drawn from the softmax with ``rng``.

        Returns
        -------
        ndarray of int, shape (B, T + max_new_tokens): the prompt followed by the new tokens
        """
        from .autograd import no_grad

        idx = np.array(idx, dtype=np.int64)
        if idx.ndim != 2 or idx.shape[1] < 1:
            raise ValueError(f"the prompt must have shape (B, T) with T ≥ 1; received {idx.shape}.")
        max_new_tokens = int(max_new_tokens)
        if max_new_tokens < 0:
            raise ValueError(f"max_new_tokens must be ≥ 0; received {max_new_tokens}.")
        if not temperature > 0:
            raise ValueError(f"temperature must be positive; received {temperature}.")
        if top_k is not None and not 1 <= top_k <= self.vocab_size:
            raise ValueError(f"top_k must be between 1 and vocab_size = {self.vocab_size}; received {top_k}.")
        rng = check_rng(rng)
        for _ in range(max_new_tokens):
            with no_grad():
                logits = self(idx[:, -self.block_size :]).data[:, -1] / temperature  # (B, V)
            if top_k is not None:
                kth = np.sort(logits, axis=-1)[:, -top_k][:, None]
                logits = np.where(logits < kth, -np.inf, logits)
            p = softmax(logits)  # (B, V); the removed tokens get probability 0
            u = rng.random((len(p), 1))
            nxt = np.minimum((p.cumsum(axis=-1) < u).sum(axis=-1), self.vocab_size - 1)  # inverse CDF
            idx = np.concatenate([idx, nxt[:, None]], axis=1)
        return idx
