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

from .._contract import checked
from ..engine import functional as F
from ..engine.autograd import Tensor, _unbroadcast, no_grad
from ..engine.functional import concatenate
from ..nn.layers import Embedding, Linear
from ..nn.module import Module
from ..sequence.recurrent import GRU
from . import _checks
from .attention import key_padding_mask

__all__ = ["additive_attention", "Seq2Seq"]

#: The fast path of :func:`additive_attention`: its scores as one node of the graph (``_additive_scores``), with the
#: backward pass written out; False computes them as written, with the engine's operations (the tests compare them).
FUSED_SCORES = True


# --- additive attention -------------------------------------------------------------------------------------------

@checked(W_q="tensor (d_q, A)", W_k="tensor (d_k, A)", w="tensor (A,)", queries="tensor (..., T_q, d_q)",
         keys="tensor (..., T_k, d_k)", values="tensor (..., T_k, d_v)", mask=_checks.attention_mask, like_inputs=True,
         also=(_checks.additive_batch_axes_broadcast, _checks.mask_fits_additive_scores))
def additive_attention(queries, keys, values, W_q, W_k, w, *, mask=None):
    """Additive attention, eq. (7.6) (Bahdanau et al., 2014): a small network scores every query against every key.

        e_ij = tanh(q_i W_q + k_j W_k) w,    α_ij = exp(e_ij) / Σ_j' exp(e_ij'),    c_i = Σ_j α_ij v_j

    with q_i ∈ ℝ^{d_q} the i-th query, k_j ∈ ℝ^{d_k} and v_j ∈ ℝ^{d_v} the j-th key and value, W_q (d_q, A),
    W_k (d_k, A) and w (A,), A the attention size; vectors are rows, as in the book, so q_i W_q is ``q_i @ W_q``.
    Unlike the dot product of :func:`~implementations.language.attention.scaled_dot_product_attention`, queries and
    keys may have different widths. All T_q × T_k scores are computed at once: the projected queries (…, T_q, 1, A)
    and keys (…, 1, T_k, A) broadcast to (…, T_q, T_k, A) before the tanh. The fast path (``FUSED_SCORES``, the
    default) computes the same scores as one node of the engine with its derivative written out, which allocates
    that hidden layer twice per training step instead of six times; the package's tests compare the two paths.

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
        keys. Every query must be allowed at least one key.

    Returns
    -------
    context : ndarray or Tensor of shape (…, T_q, d_v)
        c_i, the weighted mean of the values for each query.
    weights : ndarray or Tensor of shape (…, T_q, T_k)
        α_ij; each row sums to 1, and masked keys get weight 0.
    """
    q, k = queries @ W_q, keys @ W_k  # (…, T_q, A), (…, T_k, A): q_i W_q and k_j W_k
    if FUSED_SCORES:  # the fast path: the same scores, with fewer arrays of the size of the hidden layer
        scores = _additive_scores(q, k, w)  # (…, T_q, T_k)
    else:
        scores = (q[..., :, None, :] + k[..., None, :, :]).tanh() @ w  # (…, T_q, T_k): e_ij = tanh(q_i + k_j) w
    if mask is not None:
        scores = scores.masked_fill(~mask, -np.inf)  # weight exp(−∞) = 0
    weights = scores.softmax(axis=-1)  # (…, T_q, T_k): α_ij, each row sums to 1
    return weights @ values, weights  # (…, T_q, d_v): c_i


def _additive_scores(q, k, w):
    """e_ij = tanh(q_i + k_j) w for all pairs (i, j), as one node of the graph with its backward pass written out.

    The engine could compose it (an addition with broadcasting, a tanh, a product with w), but then the largest array
    of the model, the (…, T_q, T_k, A) hidden layer of the scoring network, would be allocated six times per training
    step (the sum, the tanh, and four temporaries of their backward passes); here it is allocated twice, and the
    tanh is computed in place. The backward pass, with a_ij = q_i + k_j and u_ij = tanh(a_ij):

        ∂L/∂w = Σ_ij ḡ_ij u_ij,    ∂L/∂a_ij = ḡ_ij (1 − u_ij²) ⊙ w,    ∂L/∂q_i = Σ_j ∂L/∂a_ij,    ∂L/∂k_j = Σ_i ∂L/∂a_ij

    Parameters
    ----------
    q : Tensor of shape (…, T_q, A)
        The projected queries q_i W_q.
    k : Tensor of shape (…, T_k, A)
        The projected keys k_j W_k; the leading axes broadcast with those of q.
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
      e_tj = tanh(s_t W_q + h_j W_k) w (keys and values both h_j, padded positions masked), and
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

    @checked(src_vocab="count", tgt_vocab="count", embed_dim="count", hidden_size="count", rng="rng",
             attention="flag", attention_size="count?", also=_checks.attention_size_needs_attention)
    def __init__(self, src_vocab, tgt_vocab, embed_dim, hidden_size, *, rng, attention=True, attention_size=None):
        self.src_vocab, self.tgt_vocab, self.hidden_size, self.attention = src_vocab, tgt_vocab, hidden_size, attention
        H = hidden_size
        self.src_embed = Embedding(src_vocab, embed_dim, rng=rng)
        self.encoder = GRU(embed_dim, H, rng=rng)
        self.tgt_embed = Embedding(tgt_vocab, embed_dim, rng=rng)
        self.decoder = GRU(embed_dim, H, rng=rng)
        if attention:
            A = H if attention_size is None else attention_size
            a = np.sqrt(6.0 / (H + A))  # Xavier-uniform bound
            self.W_q = Tensor(rng.uniform(-a, a, size=(H, A)), requires_grad=True)  # (H, A): projects s_t
            self.W_k = Tensor(rng.uniform(-a, a, size=(H, A)), requires_grad=True)  # (H, A): projects h_j
            self.w = Tensor(rng.uniform(-1, 1, size=A) / np.sqrt(A), requires_grad=True)  # (A,)
        self.out = Linear(2 * H if attention else H, tgt_vocab, rng=rng)

    def _readout(self, s, memory, src_lengths):
        """Logits (B, T, V) from the decoder states s (B, T, H), and the attention weights (B, T, S) or None."""
        if not self.attention:
            return self.out(s), None  # (B, T, V) from s_t
        mask = None if src_lengths is None else key_padding_mask(src_lengths, memory.shape[1])  # (B, 1, S)
        context, weights = additive_attention(s, memory, memory, self.W_q, self.W_k, self.w, mask=mask)  # c_t
        return self.out(concatenate([s, context], axis=-1)), weights  # (B, T, V) from [s_t ; c_t]

    @checked(src=_checks.token_batch, tgt_in=_checks.token_batch, src_lengths=_checks.lengths, return_weights="flag",
             also=(_checks.sources_and_targets_fit, _checks.weights_need_attention))
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
        memory, h_S = self.encoder(self.src_embed(src), lengths=src_lengths)  # h_1, …, h_S (B, S, H); h_S (B, H)
        s, _ = self.decoder(self.tgt_embed(tgt_in), h_S)  # (B, T, H): s_t, from s_0 = h_S (the bridge)
        logits, weights = self._readout(s, memory, src_lengths)  # (B, T, V), (B, T, S) or None
        return (logits, weights.data) if return_weights else logits

    @checked(src=_checks.token_batch, tgt_in=_checks.token_batch, tgt_out=_checks.targets,
             src_lengths=_checks.lengths, ignore_index=_checks.ignore_index,
             also=(_checks.sources_and_targets_fit, _checks.tgt_out_fits))
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

    @checked(src=_checks.token_sequence, also=_checks.source_in_vocabulary)
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
        with no_grad():
            memory, h_S = self.encoder(self.src_embed(src[None]))  # (1, S, H), (1, H)

        def log_probs(prefixes):
            ids = _checks.target_prefixes(prefixes, self.tgt_vocab)  # (K, t)
            with no_grad():
                h0 = Tensor(np.repeat(h_S.data, ids.shape[0], axis=0))  # (K, H): every prefix starts from h_S
                s, _ = self.decoder(self.tgt_embed(ids), h0)  # (K, t, H)
                logits, _ = self._readout(s[:, -1:], memory, None)  # (K, 1, V): the last step; memory broadcasts
            return logits.log_softmax(axis=-1).data[:, 0]  # (K, V)

        return log_probs

    @checked(src=_checks.token_batch, start_id="count0", max_len="count", src_lengths=_checks.lengths,
             also=(_checks.sources_fit, _checks.start_in_vocabulary))
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
        ids = np.empty((src.shape[0], max_len), dtype=np.int64)
        y = np.full((src.shape[0], 1), start_id)  # (B, 1): y_0
        with no_grad():
            memory, h = self.encoder(self.src_embed(src), lengths=src_lengths)  # h = h_S, the decoder's first state
            for t in range(max_len):
                s, h = self.decoder(self.tgt_embed(y), h)  # (B, 1, H): one step from the previous state
                logits, _ = self._readout(s, memory, src_lengths)  # (B, 1, V)
                y = logits.data.argmax(axis=-1)  # (B, 1): y_t, ties to the lower id as np.argmax
                ids[:, t] = y[:, 0]
        return ids
