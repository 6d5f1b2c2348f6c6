"""The checks of chapter 7's arguments that no role string of ``implementations._contract`` describes, each once:
attention masks, token ids and lengths, the models' arguments, n-gram tables and decoders (the checks of texts,
tokenizers and word2vec are in ``_text_checks``).

Two kinds, as ``@checked`` uses them:

* a *role* ``check(value, name) -> value`` converts one argument (a boolean attention mask, token ids, lengths) and
  raises ``ValueError`` or ``TypeError`` naming it;
* an ``also=`` check receives the converted arguments its parameters name and checks them together (a mask that must
  fit the scores of Q and K, ids below the model's vocabulary, a memory with the batch axes of the queries).

Every message names the argument, says what was received and what was expected, and how to fix it.
"""

import numbers

import numpy as np

from .. import _validation as V
from .._validation import _describe

# --- attention: masks, batch axes, heads, memories, lengths -----------------------------------------------------------


def attention_mask(mask, name):
    """Role: a boolean array, True where attention is allowed (None passes: no mask)."""
    if mask is None:
        return None
    if type(mask).__name__ == "Tensor":
        raise TypeError(f"{name} must be a NumPy array of booleans (True = may attend); received a Tensor. Pass "
                        f"{name}.data > 0, or build it with causal_mask(T).")
    if isinstance(mask, (str, bytes)):
        raise TypeError(f"{name} must be an array of booleans (True = may attend); received {_describe(mask)}.")
    try:
        mask = np.asarray(mask)
    except ValueError as exc:
        raise ValueError(f"{name} is a ragged nested list; expected a rectangular array of booleans.") from exc
    if mask.dtype != bool:
        raise TypeError(f"{name} must hold booleans (True = may attend); received dtype {mask.dtype}. Build it with "
                        "a comparison or with causal_mask(T).")
    return mask


def _mask_fits(mask, scores_shape, name="mask"):
    """The mask broadcasts to the scores (…, T_q, T_k) and leaves every query at least one key."""
    if mask is None:
        return
    try:
        allowed = np.broadcast_to(mask, scores_shape)
    except ValueError as exc:
        raise ValueError(f"{name} of shape {mask.shape} does not broadcast to the scores {scores_shape} (…, T_q, "
                         "T_k); pass a (T_q, T_k) mask or one with the leading axes of the scores.") from exc
    no_key = ~allowed.any(axis=-1)  # (…, T_q): queries that may attend to nothing
    if no_key.any():
        where = ", ".join(str(i) for i in np.argwhere(no_key)[0])
        raise ValueError(f"{name} allows no key for {int(no_key.sum())} query(ies), the first at index ({where}) of "
                         "the scores (a row of False); every query needs one key. Allow at least one key per row, e.g. "
                         "the query's own position.")


def _lead(*tensors):
    """The broadcast leading (batch) axes of the tensors, all but their last two axes."""
    return np.broadcast_shapes(*(t.shape[:-2] for t in tensors))


def mask_fits_scores(Q, K, mask):
    _mask_fits(mask, (*_lead(Q, K), Q.shape[-2], K.shape[-2]))


def mask_fits_additive_scores(queries, keys, mask):
    _mask_fits(mask, (*_lead(queries, keys), queries.shape[-2], keys.shape[-2]))


def mask_fits_self_attention(X, mask):
    _mask_fits(mask, (*X.shape[:-1], X.shape[-2]))


def mask_fits_heads(X, memory, num_heads, mask, name="mask"):
    *lead, T_q, _ = X.shape
    _mask_fits(mask, (*lead, num_heads, T_q, T_q if memory is None else memory.shape[-2]), name)


def mask_fits_layer(self, x, memory, mask):
    mask_fits_heads(x, memory, self.num_heads, mask)


def memory_mask_fits_block(self, x, memory, memory_mask):
    """DecoderBlock: the memory mask fits the cross-attention scores (…, h, T, S)."""
    mask_fits_heads(x, memory, self.cross_attn.num_heads, memory_mask, "memory_mask")


def mask_fits_block(self, x, mask):
    """TransformerBlock: the mask fits the scores (…, h, T, T), and with the causal mask leaves every query a key."""
    T = x.shape[-2]
    scores = (*x.shape[:-2], self.attn.num_heads, T, T)
    _mask_fits(mask, scores)
    if self.causal and mask is not None:
        _mask_fits(mask & np.tri(T, dtype=bool), scores)


def _batch_axes_broadcast(named):
    try:
        _lead(*named.values())
    except ValueError as exc:
        shapes = [f"{name} {t.shape}" for name, t in named.items()]
        raise ValueError(f"the leading (batch) axes of {', '.join(shapes[:-1])} and {shapes[-1]} do not broadcast; "
                         "expected the same batch axes (or axes of length 1).") from exc


def batch_axes_broadcast(Q, K, V):
    _batch_axes_broadcast({"Q": Q, "K": K, "V": V})


def additive_batch_axes_broadcast(queries, keys, values):
    _batch_axes_broadcast({"queries": queries, "keys": keys, "values": values})


def _heads_divide(D, num_heads, symbol, meaning=""):
    if D % num_heads:
        raise ValueError(f"num_heads = {num_heads} must divide {symbol} = {D}{meaning}; each head works on {symbol} / "
                         f"num_heads dimensions. Choose a divisor of {D}.")


def heads_divide_width(X, num_heads):
    _heads_divide(X.shape[-1], num_heads, "D", ", the width of the tokens of X")


def drop_rate(value, name):
    """The dropout rate of a transformer: a probability in [0, 1); 0 turns dropout off."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1), the share of zeroed entries; received {value!r}. "
                         f"Use {name}=0.0 for no dropout (1 would zero everything).")
    return float(value)


def heads_divide_d_model(d_model, num_heads):
    _heads_divide(d_model, num_heads, "d_model")


def _memory_fits(queries, memory, queries_name):
    """A memory (…, T_k, D) of cross-attention has the number of axes of the queries (the widths are roles)."""
    if memory is not None and memory.ndim != queries.ndim:
        D = memory.shape[-1] if memory.ndim else "D"
        expected = f"({queries.shape[0]}, T_k, {D})" if queries.ndim == 3 else f"(T_k, {D})"
        hint = " For a single token use memory[None]." if memory.ndim == 1 else ""
        raise ValueError(f"memory must have shape {expected}: tokens as rows, one memory per sequence of "
                         f"{queries_name} {queries.shape}; received shape {memory.shape}.{hint}")


def memory_fits_tokens(X, memory):
    _memory_fits(X, memory, "X")


def memory_fits_layer_input(x, memory):
    _memory_fits(x, memory, "x")




lengths = V.padded_lengths  # the role of the lengths of a padded batch, shared with the recurrent layers


def _lengths_within(values, T, name):
    if values is not None and (values.min() < 1 or values.max() > T):
        raise ValueError(f"{name} must be integers between 1 and T = {T} (the padded length), one per sequence; "
                         f"received {V.shown(values)}. A sequence's length counts its real tokens, padding excluded.")


def lengths_fit_keys(lengths, T_k):
    _lengths_within(lengths, T_k, "lengths")


# --- token ids --------------------------------------------------------------------------------------------------------

_ID_SHAPES = {1: ("(T,) (one sequence of token ids)", " For row b of a padded batch use {name}[b, :length_b]."),
              2: ("(B, T) (a batch of sequences of token ids)", " For one sequence use {name}[None].")}


def _ids(value, name, ndim):
    """Token ids of ``ndim`` axes, integers >= 0, at least one: an int64 array; the bound is checked with the model."""
    if type(value).__name__ == "Tensor":
        value = value.data
    ids = value if isinstance(value, np.ndarray) and value.dtype.kind in "iu" else V.as_array(value, name)
    if ids.ndim != ndim:
        shape, hint = _ID_SHAPES[ndim]
        hint = hint.format(name=name) if ids.ndim == 3 - ndim else ""
        raise ValueError(f"{name} must have shape {shape}; received shape {ids.shape}.{hint}")
    if ids.size == 0:
        raise ValueError(f"{name} is empty (shape {ids.shape}); expected at least one token id.")
    if ids.dtype.kind == "f":
        V.check_finite_values(ids, name)
    bad = ids[(ids < 0) | (ids != np.round(ids))]
    if bad.size:
        shown = ", ".join(f"{v:g}" for v in np.unique(bad)[:5])
        raise ValueError(f"{name} must hold token ids, integers >= 0; received {bad.size} entries that are not, with "
                         f"values {shown}.")
    return ids.astype(np.int64, copy=False)


def token_batch(value, name):
    """Role: token ids of a batch of sequences, (B, T), as an int64 array."""
    return _ids(value, name, 2)


def token_sequence(value, name):
    """Role: the token ids of one sequence, (T,), as an int64 array (None passes: no sequence)."""
    return None if value is None else _ids(value, name, 1)


def _below(ids, name, vocab_size, vocab_name):
    if ids.max() >= vocab_size:
        outside = ids >= vocab_size
        shown = ", ".join(f"{v:g}" for v in np.unique(ids[outside])[:5])
        raise ValueError(f"{name} must hold token ids 0..{vocab_size - 1} (integers below {vocab_name} = "
                         f"{vocab_size}); received {int(outside.sum())} id(s) outside that set, with values {shown}.")


def _fits_context(ids, name, block_size):
    if ids.shape[-1] > block_size:
        raise ValueError(f"{name} has sequences of {ids.shape[-1]} tokens, more than block_size = {block_size} (the "
                         f"longest context the model reads); crop them to the last block_size tokens, "
                         f"{name}[:, -{block_size}:].")


def idx_in_vocabulary(self, idx):
    _below(idx, "idx", self.vocab_size, "vocab_size")


def idx_fits_model(self, idx):
    _below(idx, "idx", self.vocab_size, "vocab_size")
    _fits_context(idx, "idx", self.block_size)


def prompt_fits(idx, prompt_length):
    if prompt_length > idx.shape[1]:
        raise ValueError(f"prompt_length must be between 1 and the length of idx, {idx.shape[1]}; received "
                         f"{prompt_length}. Pass prompt_length={idx.shape[1]} to feed the whole sequence at once.")


def top_k_within_vocabulary(self, top_k):
    if top_k is not None and top_k > self.vocab_size:
        raise ValueError(f"top_k must be between 1 and vocab_size = {self.vocab_size}; received {top_k}. Pass "
                         "top_k=None to sample from every token.")


def ignore_index(value, name):
    """Role: None, or the integer that marks the targets left out of a loss (such as -1)."""
    return V.check_ignore_index(value)


def _whole(values):
    """``values`` as int64 when every entry is a whole number; as they are otherwise (a check refuses them next)."""
    return values.astype(np.int64) if np.all(values == np.round(values)) else values


def targets(value, name):
    """Role: next-token targets as an array (int64 when every entry is a whole number); checked with the inputs."""
    t = value.data if type(value).__name__ == "Tensor" else value
    if isinstance(t, np.ndarray) and t.dtype.kind in "iu":
        return t
    return _whole(V.check_finite_values(V.as_array(t, name), name))


def targets_fit_model(self, idx, targets, ignore_index):
    V.check_next_token_targets(targets, "targets", inputs_name="idx", shape=idx.shape, vocab_name="vocab_size",
                               vocab_size=self.vocab_size, ignore_index=ignore_index)


def sources_and_targets_fit(self, src, tgt_in, src_lengths):
    """Seq2Seq: source ids below src_vocab, target ids below tgt_vocab, one target and one length per source."""
    _below(src, "src", self.src_vocab, "src_vocab")
    if tgt_in is not None:
        _below(tgt_in, "tgt_in", self.tgt_vocab, "tgt_vocab")
        if tgt_in.shape[0] != src.shape[0]:
            raise ValueError(f"tgt_in has {tgt_in.shape[0]} sequences but src has {src.shape[0]}; expected one "
                             "target per source sequence, shape (B, T_out) with the B of src.")
    if src_lengths is not None:
        if src_lengths.shape != (src.shape[0],):
            raise ValueError(f"src_lengths must have shape ({src.shape[0]},), one length per sequence of src "
                             f"{src.shape}; received shape {src_lengths.shape}.")
        _lengths_within(src_lengths, src.shape[1], "src_lengths")


def sources_fit(self, src, src_lengths):
    sources_and_targets_fit(self, src, None, src_lengths)


def source_in_vocabulary(self, src):
    _below(src, "src", self.src_vocab, "src_vocab")


def target_prefixes(prefixes, vocab_size, block_size=None):
    """The prefixes a Seq2Seq's ``log_probs_fn`` is called with: (K, t) target ids below ``vocab_size`` (and for a
    model with learned positions, t <= ``block_size``)."""
    prefixes = token_batch(prefixes, "prefixes")
    _below(prefixes, "prefixes", vocab_size, "tgt_vocab")
    if block_size is not None and prefixes.shape[1] > block_size:
        raise ValueError(f"prefixes has {prefixes.shape[1]} tokens, more than block_size = {block_size} (the "
                         f"model's learned target positions); decode at most block_size tokens after the start token "
                         f"(max_len <= {block_size}).")
    return prefixes


def _positions_hold(ids, name, block_size):
    if ids.shape[-1] > block_size:
        raise ValueError(f"{name} has sequences of {ids.shape[-1]} tokens, more than block_size = {block_size} (the "
                         f"model's learned positions); build the model with block_size >= {ids.shape[-1]}.")


def sequences_fit_positions(self, src, tgt_in):
    """TransformerSeq2Seq: sources and decoder inputs no longer than its learned positions."""
    _positions_hold(src, "src", self.block_size)
    _positions_hold(tgt_in, "tgt_in", self.block_size)


def source_fits_positions(self, src):
    _positions_hold(src, "src", self.block_size)


def decoder_inputs_fit(self, tgt_in, memory, memory_mask):
    """TransformerSeq2Seq.decode: target ids below tgt_vocab within the positions, one memory per target sequence."""
    _below(tgt_in, "tgt_in", self.tgt_vocab, "tgt_vocab")
    _positions_hold(tgt_in, "tgt_in", self.block_size)
    if memory.shape[0] != tgt_in.shape[0]:
        raise ValueError(f"memory has {memory.shape[0]} sequences but tgt_in has {tgt_in.shape[0]}; expected one "
                         "memory per target sequence, the output of encode for the same batch.")
    heads = self.decoder[0].cross_attn.num_heads
    _mask_fits(memory_mask, (tgt_in.shape[0], heads, tgt_in.shape[1], memory.shape[1]), "memory_mask")


def decoding_fits_positions(self, src, max_len):
    """TransformerSeq2Seq.greedy: the source and the max_len decoder inputs (start token included) fit the positions."""
    _positions_hold(src, "src", self.block_size)
    if max_len > self.block_size:
        raise ValueError(f"max_len = {max_len} is more than block_size = {self.block_size}: the decoder reads the "
                         f"start token and max_len − 1 tokens, one learned position each. Pass max_len <= "
                         f"{self.block_size}.")


def tgt_out_fits(self, tgt_in, tgt_out, ignore_index):
    V.check_next_token_targets(tgt_out, "tgt_out", inputs_name="tgt_in", shape=tgt_in.shape, vocab_name="tgt_vocab",
                               vocab_size=self.tgt_vocab, ignore_index=ignore_index)


def start_in_vocabulary(self, start_id):
    if start_id >= self.tgt_vocab:
        raise ValueError(f"start_id must be a target token id 0..{self.tgt_vocab - 1} (below tgt_vocab = "
                         f"{self.tgt_vocab}); received {start_id}.")


def attention_size_needs_attention(attention, attention_size):
    if attention_size is not None and not attention:
        raise ValueError(f"attention_size = {attention_size} is set but attention=False; a model without attention "
                         "has no scoring network. Pass attention=True, or leave attention_size out.")


def weights_need_attention(self, return_weights):
    if return_weights and not self.attention:
        raise ValueError("return_weights=True needs a model built with attention=True; this one has no attention "
                         "weights. Leave return_weights out.")


# --- language models --------------------------------------------------------------------------------------------------

def language_model(model, name):
    """Role: a model with ``loss(idx, targets)``, ``parameters()`` and ``block_size``, such as TinyGPT."""
    if not all(callable(getattr(model, m, None)) for m in ("loss", "parameters")) or not hasattr(model, "block_size"):
        raise TypeError(f"{name} must be a language model with loss(idx, targets), parameters() and block_size, such "
                        f"as TinyGPT; received {type(model).__name__}.")
    return model


def _window_fits(ids, name, block_size, vocab_size=None):
    if ids is None:
        return
    if vocab_size is not None:
        _below(ids, name, vocab_size, "the model's vocab_size")
    if ids.size < block_size + 1:
        raise ValueError(f"{name} must hold at least block_size + 1 = {block_size + 1} tokens (one window and the "
                         f"token after it); received {ids.size}. Pass a longer text or a smaller block_size.")


def ids_hold_a_window(ids, block_size):
    _window_fits(ids, "ids", block_size)


def ids_fit_model(model, ids):
    _window_fits(ids, "ids", model.block_size, getattr(model, "vocab_size", None))


def val_ids_fit_model(model, val_ids, eval_every):
    if (val_ids is None) != (eval_every is None):
        raise ValueError("val_ids and eval_every go together: pass both to score held-out tokens during training "
                         f"(e.g. eval_every=100), or neither; received val_ids={'None' if val_ids is None else '...'} "
                         f"and eval_every={eval_every!r}.")
    _window_fits(val_ids, "val_ids", model.block_size, getattr(model, "vocab_size", None))


def warmup_within_steps(steps, warmup_steps, lr, min_lr):
    if warmup_steps >= steps:
        raise ValueError(f"warmup_steps must be below steps = {steps} (the warm-up is followed by the cosine decay); "
                         f"received {warmup_steps}.")
    if min_lr > lr:
        raise ValueError(f"min_lr must be at most the peak rate lr = {lr:g}; received {min_lr:g}.")


def stop_within_steps(steps, stop_after):
    if stop_after is not None and stop_after > steps:
        raise ValueError(f"stop_after must be at most steps = {steps} (it ends the run early, after the first "
                         f"stop_after of its steps); received {stop_after}. Raise steps to lengthen the run.")


# --- n-gram tables, decoding ------------------------------------------------------------------------------------------

def two_tokens(ids):
    if ids.size < 2:
        raise ValueError(f"ids must hold at least 2 tokens (one pair); received {ids.size}. Pass a longer sequence "
                         "of token ids.")


def ids_score_table(table, ids):
    """A table of probabilities > 0, each distribution summing to 1; a bigram table scores pairs of ids."""
    P = table
    if P.ndim == 2 and P.shape[0] != P.shape[1]:
        raise ValueError(f"table must be a unigram table of shape (V,) or a bigram table of shape (V, V); received "
                         f"shape {P.shape}. Build it with unigram_table or bigram_table.")
    if (P <= 0).any() or not np.allclose(P.sum(axis=-1), 1.0, rtol=0, atol=1e-8):
        raise ValueError(f"table must hold probabilities > 0 with each distribution summing to 1 (smoothing keeps "
                         f"them positive); received entries from {P.min():.3g} to {P.max():.3g}. Build it "
                         "with unigram_table or bigram_table and delta > 0.")
    if P.ndim == 2:
        two_tokens(ids)


def transition_table(table):
    """An n-gram table: n >= 2 axes of the same length V, entries >= 0, every slice table[..., :] summing to 1."""
    P = table
    if P.ndim < 2 or any(size != P.shape[0] for size in P.shape):
        raise ValueError(f"table must have n >= 2 axes of the same length V (context tokens, then the next token), "
                         f"e.g. a (V, V) bigram table; received shape {P.shape}.")
    if (P < 0).any() or not np.allclose(P.sum(axis=-1), 1.0, rtol=0, atol=1e-8):
        raise ValueError(f"table must hold probabilities: entries >= 0 with every slice table[..., :] summing to 1; "
                         f"received entries from {P.min():.3g} to {P.max():.3g} and slice sums from "
                         f"{P.sum(axis=-1).min():.6g} to {P.sum(axis=-1).max():.6g}. Divide each slice by its sum.")


def table_prefixes(prefixes, vocab_size):
    """The prefixes an n-gram table's ``log_probs_fn`` is called with: an int array (K, t), ids below vocab_size."""
    ids = V.as_array(prefixes, "prefixes", dtype=None)
    if ids.ndim != 2 or ids.shape[1] == 0 or ids.dtype.kind not in "iu":
        raise ValueError(f"prefixes must be an int array of shape (K, t), t >= 1; received {_describe(ids)}.")
    if ids.size and (ids.min() < 0 or ids.max() >= vocab_size):
        raise ValueError(f"prefixes must hold token ids 0, …, {vocab_size - 1} of the table; received ids from "
                         f"{ids.min()} to {ids.max()}. Called by a decoder, column 0 is start_id: pass a start_id "
                         f"below V = {vocab_size}.")
    return ids


def log_probs_fn(value, name):
    """Role: the model of a decoder, a function prefixes (K, t) -> log-probabilities (K, V)."""
    return V.check_callable(value, name, what="a function prefixes (K, t) -> log-probabilities (K, V)")


def _token_id(value, name, optional):
    if optional and value is None:
        return None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        expected = "an int token id (or None)" if optional else "an int token id"
        raise TypeError(f"{name} must be {expected}; received {_describe(value)}. Pass an integer, e.g. {name}=0.")
    return V.check_nonnegative_int(value, name)


def token_id(value, name):
    """Role: a token id before the vocabulary is known, an int >= 0."""
    return _token_id(value, name, optional=False)


def token_id_or_none(value, name):
    """Role: a token id, an int >= 0, or None (no such token)."""
    return _token_id(value, name, optional=True)


_ROW_SUM_TOL = 1e-5  # |log Σ_v p_v| allowed in a row of log_probs_fn's output (float32 models round that much)


# --- decoding: the model's answers ------------------------------------------------------------------------------------

def _in_vocabulary(value, name, V):
    """Once the model has told us V: a token id must be below it."""
    if value is not None and value >= V:
        raise ValueError(f"{name} = {value} is not a token id of the model: log_probs_fn returned log-probabilities "
                         f"over V = {V} tokens, so ids are 0, …, {V - 1}. Pass the id that the model's vocabulary "
                         f"gives that token.")


def next_log_probs(log_probs_fn, prefixes, vocab_size, start_id, eos_id):
    """A decoder's call of its model on ``prefixes`` (K, t), and the answer checked: (K, V) rows of log-probabilities.

    ``vocab_size`` V is None on the first call, which fixes it for the following ones; then the decoder's
    ``start_id`` and ``eos_id`` must be below it.
    """
    K, t = prefixes.shape
    out = log_probs_fn(prefixes)
    if out is None or isinstance(out, (str, bytes, dict, set)):
        raise TypeError(f"log_probs_fn must return an array of shape (K, V); it returned {_describe(out)} for "
                        f"{K} prefix(es) of length {t}. Return the next-token log-probabilities, one row per prefix.")
    out = V.as_array(out, "the output of log_probs_fn")  # float64, a Tensor's values
    expected = f"({K}, V)" if vocab_size is None else f"({K}, {vocab_size})"
    if out.ndim != 2 or out.shape[0] != K or out.shape[1] == 0 or (vocab_size not in (None, out.shape[1])):
        raise ValueError(f"log_probs_fn returned an array of shape {out.shape} for {K} prefix(es) of length {t}; "
                         f"expected shape {expected}, one row of next-token log-probabilities per prefix"
                         + ("" if vocab_size is None else ", over the same V tokens at every step") + ".")
    if np.isnan(out).any() or np.isposinf(out).any():
        k, v = np.argwhere(np.isnan(out) | np.isposinf(out))[0]
        raise ValueError(f"log_probs_fn returned {out[k, v]} at row {k}, column {v} (prefix "
                         f"{prefixes[k].tolist()}); expected log-probabilities: finite numbers <= 0, or -inf for a "
                         "token that cannot follow.")
    m = out.max(axis=1)  # (K,)
    with np.errstate(under="ignore", divide="ignore", invalid="ignore"):
        log_total = m + np.log(np.exp(out - m[:, None]).sum(axis=1))  # (K,) log Σ_v p_v, stable logsumexp
    bad = ~(np.abs(log_total) <= _ROW_SUM_TOL)  # a row of -inf has log_total = nan: bad too
    if bad.any():
        k = int(np.argmax(bad))
        total = np.exp(log_total[k]) if np.isfinite(m[k]) else 0.0  # a row of -inf: probabilities all 0
        raise ValueError(f"log_probs_fn returned rows that are not log-probabilities: row {k} (prefix "
                         f"{prefixes[k].tolist()}) has probabilities that sum to {total:.6g}; "
                         f"expected 1 (log Σ exp = 0 within {_ROW_SUM_TOL:g}). Return a log-softmax of the logits, "
                         "z − log Σ exp(z), not the logits themselves.")
    if vocab_size is None:
        _in_vocabulary(start_id, "start_id", out.shape[1])
        _in_vocabulary(eos_id, "eos_id", out.shape[1])
    return out


# --- Kneser–Ney ---------------------------------------------------------------------------------------------------

def ids_hold_an_ngram(ids, order):
    if ids.size < order:
        raise ValueError(f"ids must hold at least order = {order} tokens (one n-gram); received {ids.size}. Pass a "
                         "longer sequence of token ids or a smaller order.")


def kneser_ney_counts(value, name):
    """Role: the counts of :func:`~implementations.language.ngram.kneser_ney_counts`."""
    if type(value).__name__ != "_KneserNeyCounts":
        raise TypeError(f"{name} must be the counts that kneser_ney_counts(ids, vocab_size, order) returns; "
                        f"received {_describe(value)}.")
    return value


def ngram_contexts(value, name):
    """Role: contexts of an n-gram model, an int array (m, n − 1) of ids >= −1 (−1: before the text)."""
    contexts = V.as_array(value, name, dtype=None)
    if contexts.ndim != 2 or contexts.dtype.kind not in "iu":
        raise ValueError(f"{name} must be an int array of shape (m, n − 1), one context per row, oldest token "
                         f"first; received {_describe(contexts)}. Build it with kneser_ney_contexts.")
    if contexts.size and contexts.min() < -1:
        raise ValueError(f"{name} must hold token ids >= 0, or −1 for a position before the text; received ids "
                         f"down to {contexts.min()}.")
    return contexts.astype(np.int64, copy=False)


def kneser_ney_query(counts, contexts, tokens, discount):
    n, V_ = counts.order, counts.vocab_size
    if contexts.shape != (tokens.size, n - 1):
        raise ValueError(f"contexts must have shape (m, n − 1) = ({tokens.size}, {n - 1}): one row of the {n - 1} "
                         f"tokens before each of the {tokens.size} tokens, for a model of order {n}; received shape "
                         f"{contexts.shape}.")
    _below(tokens, "tokens", V_, "the counts' vocab_size")
    if contexts.size:
        _below(contexts, "contexts", V_, "the counts' vocab_size")
    if discount.ndim > 1 or not ((discount > 0) & (discount < 1)).all():
        raise ValueError(f"discount must be a number in (0, 1), or a 1-D array of them; received "
                         f"{V.shown(np.atleast_1d(discount))}. A typical value is 0.75; fit_kneser_ney_discount fits "
                         "it.")


def kneser_ney_scored(counts, ids, start):
    _below(ids, "ids", counts.vocab_size, "the counts' vocab_size")
    if start >= ids.size:
        raise ValueError(f"start must be below the length of ids, {ids.size} (the first position scored); "
                         f"received {start}.")


def stride_divides_block(model, stride):
    if stride is not None and (stride > model.block_size or model.block_size % stride):
        raise ValueError(f"stride must divide the model's block_size = {model.block_size} (so that the windows tile "
                         f"the targets); received {stride}. Pass e.g. stride={model.block_size // 2}.")
