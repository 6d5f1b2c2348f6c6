"""An encoder–decoder transformer: the task of the recurrent encoder–decoder, with attention in place of recurrence.

Chapter 7 of the book. The original transformer (Vaswani et al., 2017) was an encoder–decoder for translation: an
encoder stack reads the source, and a decoder stack writes the target one token at a time, each of its blocks reading
the encoder's output M, the *memory*, by cross-attention, eq. (7.13). The blocks here are pre-LN, as
:class:`~implementations.language.transformer.TransformerBlock`, and the positions are learned, as in
:class:`~implementations.language.transformer.TinyGPT`.

The interface is that of :class:`~implementations.language.seq2seq.Seq2Seq`, so that the same code trains, decodes
and scores both: token ids batch first, a source batch (B, S) padded on the right and passed with ``src_lengths``,
a target batch (B, T); ``loss`` with ``ignore_index``, ``log_probs_fn`` for :mod:`~implementations.language.decoding`
and a batched ``greedy``.
"""

import numpy as np

from .._contract import checked
from ..engine import functional as F
from ..engine.autograd import Tensor, no_grad
from ..nn.layers import Linear
from ..nn.module import Module
from ..nn.normalization import LayerNorm
from . import _checks
from .attention import causal_mask, key_padding_mask
from .transformer import FeedForward, MultiHeadAttention, TransformerBlock

__all__ = ["DecoderBlock", "TransformerSeq2Seq"]


class DecoderBlock(Module):
    """One block of an encoder–decoder's decoder, pre-LN: eq. (7.12) with cross-attention, eq. (7.13), in between.

        x ← x + MHA(LN₁(x)) under the causal mask,    x ← x + CrossAttention(LN₂(x), M),    x ← x + FFN(LN₃(x))

    Self-attention lets target position t read the target tokens up to t; cross-attention lets it read the whole
    memory M, the encoder's output, with the source padding hidden by ``memory_mask``.

    Parameters
    ----------
    d_model, num_heads, d_ff : int
        Token width D, number of heads (of both attention layers), hidden width of the feed-forward network.
    rng : numpy.random.Generator
        Drawn in the order ``self_attn``, ``cross_attn``, ``ff`` (Xavier-uniform weights).
    activation : {"gelu", "relu"}, default "gelu"
    """

    @checked(d_model="count", num_heads="count", d_ff="count", rng="rng", activation="{gelu, relu}",
             also=_checks.heads_divide_d_model)
    def __init__(self, d_model, num_heads, d_ff, *, rng, activation="gelu"):
        self.d_model = d_model
        self.ln1 = LayerNorm(d_model)
        self.self_attn = MultiHeadAttention(d_model, num_heads, rng=rng)
        self.ln2 = LayerNorm(d_model)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, rng=rng)
        self.ln3 = LayerNorm(d_model)
        self.ff = FeedForward(d_model, d_ff, rng=rng, activation=activation)

    @checked(x="tensor (T, self.d_model) | (B, T, self.d_model)",
             memory="tensor (T_k, self.d_model) | (B, T_k, self.d_model)", memory_mask=_checks.attention_mask,
             return_weights="flag", also=(_checks.memory_fits_layer_input, _checks.memory_mask_fits_block))
    def forward(self, x, memory, *, memory_mask=None, return_weights=False):
        """The block on the target stream x, reading the memory: a Tensor of the shape of x.

        Parameters
        ----------
        x : Tensor or array of shape (B, T, D) or (T, D), D = d_model
            The decoder's stream at the target positions.
        memory : Tensor or array of shape (B, S, D) or (S, D)
            The encoder's output M, with the batch axes of x.
        memory_mask : array of bool, broadcastable to (…, num_heads, T, S), optional
            True at the memory positions that may be read; for padded sources
            ``key_padding_mask(src_lengths, S)[:, None]``, of shape (B, 1, 1, S).
        return_weights : bool, default False
            Also return the cross-attention weights, an ndarray of shape (…, num_heads, T, S).

        Returns
        -------
        Tensor of the shape of x
        """
        x = x + self.self_attn(self.ln1(x), mask=causal_mask(x.shape[-2]))  # (B, T, D): t reads targets ≤ t
        context, weights = self.cross_attn(self.ln2(x), memory=memory, mask=memory_mask, return_weights=True)
        x = x + context  # (B, T, D): every target position reads the source; weights (B, h, T, S)
        x = x + self.ff(self.ln3(x))  # (B, T, D)
        return (x, weights) if return_weights else x


class TransformerSeq2Seq(Module):
    """An encoder–decoder transformer with learned positions, pre-LN blocks and a linear read-out.

    Encoder: source ids (B, S) → token embedding + position embedding, R⁽⁰⁾ = E_x[x_j] + P_x[j] →
    ``num_layers`` non-causal :class:`~implementations.language.transformer.TransformerBlock` s, whose attention
    skips the padding → final LayerNorm → the memory M (B, S, D).
    Decoder (teacher forcing): the target shifted right, y_0 = start token, y_1, …, y_{T−1} → E_y[y_t] + P_y[t] →
    ``num_layers`` :class:`DecoderBlock` s, each reading M → final LayerNorm → ``out`` → logits (B, T, V).

    Parameters
    ----------
    src_vocab, tgt_vocab : int
        Sizes of the source and target vocabularies.
    d_model, num_heads, num_layers, d_ff : int
        Token width D, heads per attention layer, blocks in the encoder and in the decoder, hidden width of the
        feed-forward networks.
    block_size : int
        The longest source and the longest decoder input the model reads (learned positions of each side).
    rng : numpy.random.Generator
        Drawn in the order E_x, P_x, the encoder's blocks, E_y, P_y, the decoder's blocks, ``out``: embeddings and
        positions ~ N(0, 1) (each LayerNorm rescales them), block weights and ``out`` Xavier-uniform.
    """

    @checked(src_vocab="count", tgt_vocab="count", d_model="count", num_heads="count", num_layers="count",
             d_ff="count", block_size="count", rng="rng", also=_checks.heads_divide_d_model)
    def __init__(self, src_vocab, tgt_vocab, d_model, num_heads, num_layers, d_ff, *, block_size, rng):
        self.src_vocab, self.tgt_vocab, self.block_size = src_vocab, tgt_vocab, block_size
        self.d_model = d_model
        D = d_model
        self.src_embed = Tensor(rng.normal(size=(src_vocab, D)), requires_grad=True)  # (V_x, D): E_x
        self.src_pos = Tensor(rng.normal(size=(block_size, D)), requires_grad=True)  # (T_max, D): P_x
        self.encoder = [TransformerBlock(D, num_heads, d_ff, rng=rng) for _ in range(num_layers)]
        self.ln_enc = LayerNorm(D)
        self.tgt_embed = Tensor(rng.normal(size=(tgt_vocab, D)), requires_grad=True)  # (V_y, D): E_y
        self.tgt_pos = Tensor(rng.normal(size=(block_size, D)), requires_grad=True)  # (T_max, D): P_y
        self.decoder = [DecoderBlock(D, num_heads, d_ff, rng=rng) for _ in range(num_layers)]
        self.ln_dec = LayerNorm(D)
        self.out = Linear(D, tgt_vocab, rng=rng)

    @checked(src=_checks.token_batch, src_lengths=_checks.lengths,
             also=(_checks.sources_fit, _checks.source_fits_positions))
    def encode(self, src, *, src_lengths=None):
        """The encoder: the memory M (B, S, D), and the key-padding mask (B, 1, 1, S) that hides its padding.

        Parameters
        ----------
        src : int array of shape (B, S), S <= block_size
            Source ids, padded on the right if ``src_lengths`` is given.
        src_lengths : array_like of int, shape (B,), optional
            Real length of each source; the encoder's attention skips the padding.

        Returns
        -------
        memory : Tensor of shape (B, S, d_model)
        mask : ndarray of bool, shape (B, 1, 1, S), or None without ``src_lengths``
        """
        S = src.shape[1]
        mask = None if src_lengths is None else key_padding_mask(src_lengths, S)[:, None]  # (B, 1, 1, S)
        x = self.src_embed[src] + self.src_pos[:S]  # (B, S, D): token + position
        for block in self.encoder:
            x = block(x, mask=mask)  # (B, S, D): every source token reads the real source tokens
        return self.ln_enc(x), mask

    @checked(tgt_in=_checks.token_batch, memory="tensor (B, S, self.d_model)", memory_mask=_checks.attention_mask,
             also=_checks.decoder_inputs_fit)
    def decode(self, tgt_in, memory, *, memory_mask=None):
        """The decoder: next-token logits for every target position, reading the memory.

        Parameters
        ----------
        tgt_in : int array of shape (B, T), T <= block_size
            The start token, then the target without its last token.
        memory : Tensor or array of shape (B, S, d_model)
            The encoder's output, from :meth:`encode`.
        memory_mask : array of bool, broadcastable to (B, num_heads, T, S), optional
            The mask :meth:`encode` returns.

        Returns
        -------
        logits : Tensor of shape (B, T, tgt_vocab)
        weights : list of ndarrays of shape (B, num_heads, T, S), each decoder block's cross-attention weights
        """
        x = self.tgt_embed[tgt_in] + self.tgt_pos[: tgt_in.shape[1]]  # (B, T, D): token + position
        weights = []
        for block in self.decoder:
            x, w = block(x, memory, memory_mask=memory_mask, return_weights=True)  # (B, T, D), (B, h, T, S)
            weights.append(w)
        return self.out(self.ln_dec(x)), weights  # (B, T, V)

    @checked(src=_checks.token_batch, tgt_in=_checks.token_batch, src_lengths=_checks.lengths, return_weights="flag",
             also=(_checks.sources_and_targets_fit, _checks.sequences_fit_positions))
    def forward(self, src, tgt_in, *, src_lengths=None, return_weights=False):
        """Next-token logits for every position of the target, by teacher forcing.

        Parameters
        ----------
        src : int array of shape (B, S), S <= block_size
            Source ids 0, …, src_vocab − 1, padded on the right if ``src_lengths`` is given.
        tgt_in : int array of shape (B, T), T <= block_size
            The decoder's inputs: the start token, then the target without its last token (ids < tgt_vocab).
        src_lengths : array_like of int, shape (B,), optional
            Real length of each source, 1 <= src_lengths[b] <= S; no attention reads the padding.
        return_weights : bool, default False
            Also return the cross-attention weights of every decoder block.

        Returns
        -------
        logits : Tensor of shape (B, T, tgt_vocab)
        weights : list of ndarrays of shape (B, num_heads, T, S), one per decoder block, only if ``return_weights``
            Row t of a head is the distribution of target position t over the source positions; zero on padding.
        """
        memory, mask = self.encode(src, src_lengths=src_lengths)  # (B, S, D): M
        logits, weights = self.decode(tgt_in, memory, memory_mask=mask)  # (B, T, V)
        return (logits, weights) if return_weights else logits

    @checked(src=_checks.token_batch, tgt_in=_checks.token_batch, tgt_out=_checks.targets,
             src_lengths=_checks.lengths, ignore_index=_checks.ignore_index,
             also=(_checks.sources_and_targets_fit, _checks.sequences_fit_positions, _checks.tgt_out_fits))
    def loss(self, src, tgt_in, tgt_out, *, src_lengths=None, ignore_index=None):
        """Mean cross-entropy of the next-token predictions under teacher forcing.

        Parameters
        ----------
        src : int array of shape (B, S)
        tgt_in : int array of shape (B, T)
            Start token, y_1, …, y_{T−1}.
        tgt_out : int array of shape (B, T)
            y_1, …, y_T: the token each position must predict (ids < tgt_vocab), or ``ignore_index``.
        src_lengths : array_like of int, shape (B,), optional
        ignore_index : int, optional
            Targets equal to it (padding after the end token) are left out of the mean.

        Returns
        -------
        loss : Tensor of shape ()
        """
        logits = self.forward(src, tgt_in, src_lengths=src_lengths)  # (B, T, V)
        return F.cross_entropy(logits, tgt_out, ignore_index=ignore_index)

    @checked(src=_checks.token_sequence, also=(_checks.source_in_vocabulary, _checks.source_fits_positions))
    def log_probs_fn(self, src):
        """The model, for one source sequence, as the ``log_probs_fn`` of :mod:`implementations.language.decoding`.

        The source is encoded once, here. The function returned maps K target prefixes (K, t), each starting with
        the start token, t <= block_size, to the log-probabilities of the next token (K, tgt_vocab): it runs the
        decoder over each whole prefix and reads out the last position. Computed without a graph.

        Parameters
        ----------
        src : int array of shape (S,), S <= block_size
            One source sequence, without padding.

        Returns
        -------
        function int array (K, t) -> ndarray (K, tgt_vocab), for ``greedy_decode`` and ``beam_search``
        """
        with no_grad():
            memory, _ = self.encode(src[None])  # (1, S, D)

        def log_probs(prefixes):
            ids = _checks.target_prefixes(prefixes, self.tgt_vocab, self.block_size)  # (K, t)
            with no_grad():
                logits, _ = self.decode(ids, memory)  # (K, t, V); the memory broadcasts over the prefixes
            return logits[:, -1].log_softmax(axis=-1).data  # (K, V): the last position

        return log_probs

    @checked(src=_checks.token_batch, start_id="count0", max_len="count", src_lengths=_checks.lengths,
             also=(_checks.sources_fit, _checks.start_in_vocabulary, _checks.decoding_fits_positions))
    def greedy(self, src, *, start_id, max_len, src_lengths=None):
        """Greedy decoding of a batch: y_t = argmax_v p(v | y_<t, x), one token at a time.

        The source is encoded once; at each step the decoder runs over the whole prefix written so far (no cache:
        the book's targets are a few tokens long) and the last position's most probable token is appended. The
        result equals :func:`~implementations.language.decoding.greedy_decode` on :meth:`log_probs_fn` of each
        source (without ``eos_id``): every row gets ``max_len`` tokens; cut each after its first end token.
        Computed without a graph.

        Parameters
        ----------
        src : int array of shape (B, S), S <= block_size
        start_id : int
            y_0, the start token, 0 <= start_id < tgt_vocab.
        max_len : int, 1 <= max_len <= block_size
            Number of tokens generated after the start token.
        src_lengths : array_like of int, shape (B,), optional

        Returns
        -------
        ids : ndarray of int64, shape (B, max_len)
            y_1, …, y_max_len for each source (the start token not included).
        """
        ids = np.full((src.shape[0], 1), start_id, dtype=np.int64)  # (B, 1): y_0
        with no_grad():
            memory, mask = self.encode(src, src_lengths=src_lengths)  # (B, S, D)
            for _ in range(max_len):
                logits, _ = self.decode(ids, memory, memory_mask=mask)  # (B, t, V): the whole prefix again
                y = logits.data[:, -1].argmax(axis=-1)  # (B,): y_t, ties to the lower id as np.argmax
                ids = np.concatenate([ids, y[:, None]], axis=1)  # (B, t + 1)
        return ids[:, 1:]
