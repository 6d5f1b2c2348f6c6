"""An RNN encoder–decoder with additive attention: sequence-to-sequence learning on the autograd engine.

Chapters 6 and 7 of the book. The encoder reads the source sequence x_1, …, x_S into states h_1, …, h_S (a GRU);
the decoder, another GRU, starts from the encoder's last state and predicts the target y_1, …, y_T one token at a
time. Without attention the decoder sees the source only through that one vector (the bottleneck of Sutskever et
al., 2014; Cho et al., 2014). With attention, at every output step the decoder state asks which source states
matter and reads their weighted mean, the context c_t (Bahdanau et al., 2014; Luong et al., 2015).

Token ids are integer arrays, batch first: a source batch is (B, S), a target batch (B, T). Sources of different
lengths are padded on the right and passed with ``src_lengths``; targets need no lengths (the decoder reads left to
right, so padding after a target's end changes nothing before it; leave it out of the loss with ``ignore_index``).
"""


import numpy as np

from .._validation import (
    as_array,
    check_flag,
    check_ids,
    check_ignore_index,
    check_next_token_targets,
    check_nonnegative_int,
    check_positive_int,
    check_rng,
)
from ..engine import functional as F
from ..engine.autograd import Tensor, _check_not_empty, _result, _tensors, _unbroadcast, no_grad
from ..engine.functional import concatenate
from ..nn.layers import Embedding, Linear
from ..nn.module import Module
from ..sequence.recurrent import GRU
from .attention import _check_lengths, _check_mask

__all__ = ["additive_attention", "Seq2Seq"]


# --- additive attention -------------------------------------------------------------------------------------------

def _check_additive(Q, K, V, W_q, W_k, w):
    """Shapes of :func:`additive_attention`'s arguments, each named when it does not fit."""
    for name, t in (("queries", Q), ("keys", K), ("values", V)):
        if t.ndim < 2:
            raise ValueError(f"{name} must be at least 2-D (…, tokens, features); received shape {t.shape}. "
                             f"For a single token use {name}[None].")
        _check_not_empty(t, name, "at least one token with at least one feature")
    if V.shape[-2] != K.shape[-2]:
        raise ValueError(f"values must have one value per key: {K.shape[-2]} rows along its second-to-last axis "
                         f"(T_k, as in keys {K.shape}); received shape {V.shape}.")
    for name, W, x, x_name in (("W_q", W_q, Q, "queries"), ("W_k", W_k, K, "keys")):
        if W.ndim != 2 or W.shape[0] != x.shape[-1] or W.shape[1] == 0:
            raise ValueError(f"{name} must have shape ({x.shape[-1]}, A): one row per feature of {x_name} "
                             f"{x.shape}, A >= 1 columns (the attention size); received shape {W.shape}.")
    A = W_q.shape[1]
    if W_k.shape[1] != A:
        raise ValueError(f"W_k must have the {A} columns of W_q (A, the attention size: W_q q_i and W_k k_j are "
                         f"added); received shape {W_k.shape}.")
    if w.shape != (A,):
        raise ValueError(f"w must have shape ({A},), one weight per column of W_q and W_k (the attention size A); "
                         f"received shape {w.shape}.")
    try:
        np.broadcast_shapes(Q.shape[:-2], K.shape[:-2], V.shape[:-2])
    except ValueError as exc:
        raise ValueError(f"the leading (batch) axes of queries {Q.shape}, keys {K.shape} and values {V.shape} do not "
                         "broadcast; expected the same batch axes (or axes of length 1).") from exc


def additive_attention(queries, keys, values, W_q, W_k, w, *, mask=None):
    """Additive attention, eq. (7.6) (Bahdanau et al., 2014): a small network scores every query against every key.

        e_ij = wᵀ tanh(W_qᵀ q_i + W_kᵀ k_j),    α_ij = exp(e_ij) / Σ_j' exp(e_ij'),    c_i = Σ_j α_ij v_j

    with q_i ∈ ℝ^{d_q} the i-th query, k_j ∈ ℝ^{d_k} and v_j ∈ ℝ^{d_v} the j-th key and value, W_q (d_q, A),
    W_k (d_k, A) and w (A,), A the attention size. Vectors are rows in the code, so W_qᵀ q_i is ``q_i @ W_q``.
    Unlike the dot product of :func:`~implementations.language.attention.scaled_dot_product_attention`, queries and
    keys may
    have different widths. All T_q × T_k scores are computed at once: the projected queries (…, T_q, 1, A) and keys
    (…, 1, T_k, A) broadcast to (…, T_q, T_k, A) before the tanh.

    Parameters
    ----------
    queries : array_like or Tensor of shape (…, T_q, d_q)
    keys : array_like or Tensor of shape (…, T_k, d_k)
    values : array_like or Tensor of shape (…, T_k, d_v)
        The leading (batch) axes of the three broadcast.
    W_q : array_like or Tensor of shape (d_q, A)
    W_k : array_like or Tensor of shape (d_k, A)
    w : array_like or Tensor of shape (A,)
    mask : array_like of bool, broadcastable to (…, T_q, T_k), optional
        True where attention is allowed, e.g. :func:`~implementations.language.attention.key_padding_mask` for padded
        keys.
        Every query must be allowed at least one key.

    Returns
    -------
    context : ndarray or Tensor of shape (…, T_q, d_v)
        c_i, the weighted mean of the values for each query.
    weights : ndarray or Tensor of shape (…, T_q, T_k)
        α_ij; each row sums to 1, and masked keys get weight 0.
    """
    (Q, K, V, Wq, Wk, w_t), as_tensor = _tensors({"queries": queries, "keys": keys, "values": values, "W_q": W_q,
                                                  "W_k": W_k, "w": w})
    _check_additive(Q, K, V, Wq, Wk, w_t)
    if mask is not None:
        mask = _check_mask(mask, (*np.broadcast_shapes(Q.shape[:-2], K.shape[:-2]), Q.shape[-2], K.shape[-2]))
    context, weights = _additive_attention(Q, K, V, Wq, Wk, w_t, mask=mask)
    return _result(context, as_tensor), _result(weights, as_tensor)


def _additive_attention(Q, K, V, W_q, W_k, w, *, mask=None):
    """:func:`additive_attention` on Tensors without checks (the mask, if any, is a checked bool array)."""
    q = Q @ W_q  # (…, T_q, A): W_qᵀ q_i for every query
    k = K @ W_k  # (…, T_k, A): W_kᵀ k_j for every key
    scores = _additive_scores(q, k, w)  # (…, T_q, T_k): e_ij = wᵀ tanh(W_qᵀ q_i + W_kᵀ k_j)
    if mask is not None:
        scores = scores.masked_fill(~np.broadcast_to(mask, scores.shape), -np.inf)  # weight exp(−∞) = 0
    weights = scores.softmax(axis=-1)  # (…, T_q, T_k): α_ij, each row sums to 1
    return weights @ V, weights  # (…, T_q, d_v)


def _additive_scores(q, k, w):
    """e_ij = wᵀ tanh(q_i + k_j) for all pairs (i, j), as one node of the graph with its backward pass written out.

    The engine could compose it (an addition with broadcasting, a tanh, a product with w), but then the largest array
    of the model, the (…, T_q, T_k, A) hidden layer of the scoring network, would be allocated six times per training
    step (the sum, the tanh, and four temporaries of their backward passes); here it is allocated twice, and the
    tanh is computed in place. The backward pass, with a_ij = q_i + k_j and u_ij = tanh(a_ij):

        ∂L/∂w = Σ_ij ḡ_ij u_ij,    ∂L/∂a_ij = ḡ_ij (1 − u_ij²) ⊙ w,    ∂L/∂q_i = Σ_j ∂L/∂a_ij,    ∂L/∂k_j = Σ_i ∂L/∂a_ij

    Parameters
    ----------
    q : Tensor of shape (…, T_q, A)
        The projected queries W_qᵀ q_i.
    k : Tensor of shape (…, T_k, A)
        The projected keys W_kᵀ k_j; the leading axes broadcast with those of q.
    w : Tensor of shape (A,)

    Returns
    -------
    Tensor of shape (…, T_q, T_k)
    """
    A = w.shape[0]
    u = q.data[..., :, None, :] + k.data[..., None, :, :]  # (…, T_q, T_k, A): a_ij = q_i + k_j
    np.tanh(u, out=u)  # u_ij = tanh(a_ij), in place
    scores = (u.reshape(-1, A) @ w.data).reshape(u.shape[:-1])  # (…, T_q, T_k)

    def backward(g):  # g = ∂L/∂e, (…, T_q, T_k)
        w_bar = u.reshape(-1, A).T @ g.reshape(-1)  # (A,): Σ_ij ḡ_ij u_ij
        a_bar = u * u
        np.subtract(1.0, a_bar, out=a_bar)  # tanh' = 1 − u²
        a_bar *= g[..., None]
        a_bar *= w.data  # (…, T_q, T_k, A): ∂L/∂a_ij
        q_bar = _unbroadcast(a_bar.sum(axis=-2), q.shape)  # Σ over the keys j
        k_bar = _unbroadcast(a_bar.sum(axis=-3), k.shape)  # Σ over the queries i
        return q_bar, k_bar, w_bar

    return Tensor._result(scores, (q, k, w), backward, "additive_scores")


# --- checks of token ids ------------------------------------------------------------------------------------------

def _check_ids(ids, name, vocab_size, *, ndim=2):
    """Token ids as an int64 array of ``ndim`` axes, integers 0..vocab_size − 1, refused by ``name`` otherwise."""
    values = as_array(ids.data if isinstance(ids, Tensor) else ids, name)
    if values.ndim != ndim:
        shape = "(B, T) (a batch of sequences of token ids)" if ndim == 2 else "(T,) (one sequence of token ids)"
        hint = {(2, 1): f" For one sequence use {name}[None].",
                (1, 2): f" For row b of a padded batch use {name}[b, :length_b]."}.get((ndim, values.ndim), "")
        raise ValueError(f"{name} must have shape {shape}; received shape {values.shape}.{hint}")
    return check_ids(values, name, vocab_size=vocab_size)  # NaN, fractions, ids outside 0..V−1, empty


# --- the model ----------------------------------------------------------------------------------------------------

class Seq2Seq(Module):
    """GRU encoder–decoder, eq. (7.5), with or without additive attention, eq. (7.6), over the encoder's states.

    Encoder: source ids → ``src_embed`` → GRU ``encoder`` → states h_1, …, h_S (B, S, H) and the last one h_S
    (B, H), taken at each source's own last token when the batch is padded.
    Decoder (teacher forcing): the target shifted right, y_0 = start token, y_1, …, y_{T−1} → ``tgt_embed`` → GRU
    ``decoder`` started from h_S (the "bridge": the encoder's summary is the decoder's initial state) → states
    s_1, …, s_T. Then

    * without attention: logits_t = ``out(s_t)``, so the whole source must pass through the one vector h_S;
    * with attention: the decoder state s_t queries the encoder states by :func:`additive_attention`,
      e_tj = wᵀ tanh(W_qᵀ s_t + W_kᵀ h_j) (keys and values both h_j, padded positions masked), and
      logits_t = ``out([s_t ; c_t])`` with the context c_t = Σ_j α_tj h_j.

    The placement is that of Luong et al. (2015): attention comes *after* the recurrent step and does not feed the
    recurrence, so during training the decoder GRU still runs over all T steps as one fused call, and attention
    is one batched computation over all steps. Bahdanau et al. (2014), whose additive score this is, attend with
    the previous state s_{t−1} and feed c_t into the recurrent input of step t instead, which forces a loop of
    single steps.

    Parameters
    ----------
    src_vocab, tgt_vocab : int
        Sizes of the source and target vocabularies (ids 0, …, size − 1).
    embed_dim : int
        Width of the token embeddings (both sides).
    hidden_size : int
        H, the width of the encoder's and the decoder's states.
    rng : numpy.random.Generator
        Drawn in the order ``src_embed``, ``encoder``, ``tgt_embed``, ``decoder``, W_q, W_k, w, ``out``: embeddings
        ~ N(0, 1), GRU weights ~ U(−1/√H, 1/√H), W_q and W_k Xavier-uniform, w ~ U(−1/√A, 1/√A), ``out``
        Xavier-uniform.
    attention : bool, default True
    attention_size : int, optional
        A, the width of the scoring network; default H. Only with ``attention=True``.
    """

    def __init__(self, src_vocab, tgt_vocab, embed_dim, hidden_size, *, rng, attention=True, attention_size=None):
        self.src_vocab = check_positive_int(src_vocab, "src_vocab")
        self.tgt_vocab = check_positive_int(tgt_vocab, "tgt_vocab")
        embed_dim = check_positive_int(embed_dim, "embed_dim")
        H = self.hidden_size = check_positive_int(hidden_size, "hidden_size")
        rng = check_rng(rng)
        self.attention = check_flag(attention, "attention")
        if attention_size is not None:
            attention_size = check_positive_int(attention_size, "attention_size")
            if not self.attention:
                raise ValueError(f"attention_size = {attention_size} is set but attention=False; a model without "
                                 "attention has no scoring network. Pass attention=True, or leave attention_size "
                                 "out.")
        self.src_embed = Embedding(src_vocab, embed_dim, rng=rng)
        self.encoder = GRU(embed_dim, H, rng=rng)
        self.tgt_embed = Embedding(tgt_vocab, embed_dim, rng=rng)
        self.decoder = GRU(embed_dim, H, rng=rng)
        if self.attention:
            A = H if attention_size is None else attention_size
            a = np.sqrt(6.0 / (H + A))  # Xavier-uniform bound
            self.W_q = Tensor(rng.uniform(-a, a, size=(H, A)), requires_grad=True)  # (H, A): projects s_t
            self.W_k = Tensor(rng.uniform(-a, a, size=(H, A)), requires_grad=True)  # (H, A): projects h_j
            self.w = Tensor(rng.uniform(-1, 1, size=A) / np.sqrt(A), requires_grad=True)  # (A,)
        self.out = Linear(2 * H if self.attention else H, tgt_vocab, rng=rng)

    # --- checks -------------------------------------------------------------------------------------------------

    def _check_source(self, src, src_lengths):
        src = _check_ids(src, "src", self.src_vocab)
        if src_lengths is not None:
            src_lengths = _check_lengths(src_lengths, src.shape[1], "src_lengths", B=src.shape[0])
        return src, src_lengths

    def _check_pair(self, src, tgt_in, src_lengths):
        src, src_lengths = self._check_source(src, src_lengths)
        tgt_in = _check_ids(tgt_in, "tgt_in", self.tgt_vocab)
        if tgt_in.shape[0] != src.shape[0]:
            raise ValueError(f"tgt_in has {tgt_in.shape[0]} sequences but src has {src.shape[0]}; expected one target "
                             "per source sequence, shape (B, T_out) with the B of src.")
        return src, tgt_in, src_lengths

    # --- the computation ------------------------------------------------------------------------------------------

    def _encode(self, src, src_lengths):
        """Encoder states (B, S, H), the last real one h_S (B, H), and the key-padding mask (B, 1, S) or None."""
        memory, h_S = self.encoder(self.src_embed(src), lengths=src_lengths)  # (B, S, H), (B, H)
        if src_lengths is None:
            return memory, h_S, None
        mask = (np.arange(src.shape[1])[None, :] < src_lengths[:, None])[:, None, :]  # (B, 1, S): True = real
        return memory, h_S, mask

    def _readout(self, s, memory, mask):
        """Logits (B, T, V) from the decoder states s (B, T, H), and the attention weights (B, T, S) or None."""
        if not self.attention:
            return self.out._forward(s), None  # (B, T, V)
        context, weights = _additive_attention(s, memory, memory, self.W_q, self.W_k, self.w, mask=mask)  # c_t
        return self.out._forward(concatenate([s, context], axis=-1)), weights  # (B, T, V) from [s_t ; c_t]

    def _forward(self, src, tgt_in, src_lengths):
        memory, h_S, mask = self._encode(src, src_lengths)
        s, _ = self.decoder(self.tgt_embed(tgt_in), h_S)  # (B, T, H): s_t, the bridge h_S as initial state
        return self._readout(s, memory, mask)

    def forward(self, src, tgt_in, *, src_lengths=None, return_weights=False):
        """Next-token logits for every position of the target, by teacher forcing.

        Parameters
        ----------
        src : int array of shape (B, S)
            Source ids 0, …, src_vocab − 1, padded on the right if ``src_lengths`` is given.
        tgt_in : int array of shape (B, T)
            The decoder's inputs: the start token, then the target without its last token (ids < tgt_vocab).
        src_lengths : array_like of int, shape (B,), optional
            Real length of each source, 1 <= src_lengths[b] <= S; the padding is neither read by the encoder
            (its last state is that of the last real token) nor attended to.
        return_weights : bool, default False
            Also return the attention weights α (only for a model with attention).

        Returns
        -------
        logits : Tensor of shape (B, T, tgt_vocab)
        weights : ndarray of shape (B, T, S), only if ``return_weights``
            Row t is the distribution of output step t over the source positions; zero on padding.
        """
        src, tgt_in, src_lengths = self._check_pair(src, tgt_in, src_lengths)
        return_weights = check_flag(return_weights, "return_weights")
        if return_weights and not self.attention:
            raise ValueError("return_weights=True needs a model built with attention=True; this one has no attention "
                             "weights. Leave return_weights out.")
        logits, weights = self._forward(src, tgt_in, src_lengths)
        return (logits, weights.data) if return_weights else logits

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
        src, tgt_in, src_lengths = self._check_pair(src, tgt_in, src_lengths)
        ignore_index = check_ignore_index(ignore_index)
        tgt_out = check_next_token_targets(tgt_out, "tgt_out", inputs_name="tgt_in", shape=tgt_in.shape,
                                           vocab_name="tgt_vocab", vocab_size=self.tgt_vocab, ignore_index=ignore_index)
        logits, _ = self._forward(src, tgt_in, src_lengths)
        return F.cross_entropy(logits, tgt_out, ignore_index=ignore_index)

    def log_probs_fn(self, src):
        """The model, for one source sequence, as the ``log_probs_fn`` of :mod:`implementations.language.decoding`.

        The source is encoded once, here. The function returned maps K target prefixes (K, t), each starting with
        the start token, to the log-probabilities of the next token (K, tgt_vocab): it runs the decoder over each
        whole prefix (the sizes of the book are small) and reads out the last step. Computed without a graph.

        Parameters
        ----------
        src : int array of shape (S,)
            One source sequence, without padding.

        Returns
        -------
        function int array (K, t) -> ndarray (K, tgt_vocab), for ``greedy_decode`` and ``beam_search``
        """
        src = _check_ids(src, "src", self.src_vocab, ndim=1)
        with no_grad():
            memory, h_S, _ = self._encode(src[None], None)  # (1, S, H), (1, H)

        def log_probs(prefixes):
            ids = _check_ids(prefixes, "prefixes", self.tgt_vocab)  # (K, t)
            with no_grad():
                h0 = Tensor(np.repeat(h_S.data, ids.shape[0], axis=0))  # (K, H): every prefix starts from h_S
                s, _ = self.decoder(self.tgt_embed(ids), h0)  # (K, t, H)
                logits, _ = self._readout(s[:, -1:], memory, None)  # (K, 1, V): the last step; memory broadcasts
            return logits.log_softmax(axis=-1).data[:, 0]  # (K, V)

        return log_probs

    def greedy(self, src, *, start_id, max_len, src_lengths=None):
        """Greedy decoding of a batch: y_t = argmax_v p(v | y_<t, x), one decoder step at a time.

        The decoder GRU is run for one step (T = 1) from the state of the previous step, fed its own last
        prediction; the result equals :func:`~implementations.language.decoding.greedy_decode` on
        :meth:`log_probs_fn` of each source (without ``eos_id``). No end token stops the loop: every row gets
        ``max_len`` tokens; cut each after its first end token. Computed without a graph.

        Parameters
        ----------
        src : int array of shape (B, S)
        start_id : int
            y_0, the start token, 0 <= start_id < tgt_vocab.
        max_len : int >= 1
            Number of tokens generated after the start token.
        src_lengths : array_like of int, shape (B,), optional

        Returns
        -------
        ids : ndarray of int64, shape (B, max_len)
            y_1, …, y_max_len for each source (the start token not included).
        """
        src, src_lengths = self._check_source(src, src_lengths)
        start_id = check_nonnegative_int(start_id, "start_id")
        if start_id >= self.tgt_vocab:
            raise ValueError(f"start_id must be a target token id 0..{self.tgt_vocab - 1} (below tgt_vocab = "
                             f"{self.tgt_vocab}); received {start_id}.")
        max_len = check_positive_int(max_len, "max_len")
        B = src.shape[0]
        ids = np.empty((B, max_len), dtype=np.int64)
        y = np.full((B, 1), start_id)  # (B, 1): y_0
        with no_grad():
            memory, h, mask = self._encode(src, src_lengths)  # h = h_S, the decoder's initial state
            for t in range(max_len):
                s, h = self.decoder(self.tgt_embed(y), h)  # (B, 1, H): one step from the previous state
                logits, _ = self._readout(s, memory, mask)  # (B, 1, V)
                y = logits.data.argmax(axis=-1)  # (B, 1): y_t, ties to the lower id as np.argmax
                ids[:, t] = y[:, 0]
        return ids
