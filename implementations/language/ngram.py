"""n-gram language models: the baselines a neural language model has to beat (chapter 7).

A unigram model predicts every token from its frequency alone, p(y_t = v) ∝ c(v) + δ; a bigram model from the token
before it, p(y_t = v | y_{t−1} = u) ∝ c(u, v) + δ, with c the counts in the training tokens and δ > 0 the additive
(Laplace) smoothing that keeps an unseen token or pair from getting probability 0. Both are tables of
probabilities; :func:`cross_entropy` scores a token sequence under either, and its exponential is the perplexity

    PPL = exp( −(1/n) Σ_t log p(y_t | context_t) ),

the number of equally likely tokens a model is as unsure between, on average. A bigram table is also the
``table`` of :func:`~implementations.language.decoding.ngram_log_probs_fn`.
"""

import numpy as np

from .._validation import as_array, check_ids, check_positive, check_positive_int

__all__ = ["unigram_table", "bigram_table", "cross_entropy"]


def _token_ids(ids, vocab_size, name="ids", *, min_length=1):
    ids = check_ids(as_array(ids, name, dtype=None), name, vocab_size=vocab_size, ndim=1)
    if ids.size < min_length:
        raise ValueError(f"{name} must hold at least {min_length} token(s); received {ids.size}. Pass a longer "
                         "sequence of token ids.")
    return ids


def unigram_table(ids, vocab_size, *, delta=1.0):
    """Unigram probabilities with additive smoothing: p(v) = (c(v) + δ) / (n + δV).

    Parameters
    ----------
    ids : array_like of int, shape (n,)
        Training tokens, ids 0, …, V − 1.
    vocab_size : int
        V.
    delta : float > 0, default 1.0
        Pseudo-count added to every token.

    Returns
    -------
    p : ndarray of shape (V,), summing to 1
    """
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    delta = check_positive(delta, "delta")
    ids = _token_ids(ids, vocab_size)
    counts = np.bincount(ids, minlength=vocab_size) + delta  # (V,)
    return counts / counts.sum()


def bigram_table(ids, vocab_size, *, delta=1.0):
    """Bigram probabilities with additive smoothing: P[u, v] = (c(u, v) + δ) / (c(u, ·) + δV).

    Parameters
    ----------
    ids : array_like of int, shape (n,), n >= 2
        Training tokens; the pairs (ids[t − 1], ids[t]) are counted.
    vocab_size : int
        V.
    delta : float > 0, default 1.0
        Pseudo-count added to every pair; a token never seen as a context gets the uniform row.

    Returns
    -------
    P : ndarray of shape (V, V): row u is p(next | last = u) and sums to 1
    """
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    delta = check_positive(delta, "delta")
    ids = _token_ids(ids, vocab_size, min_length=2)
    pairs = ids[:-1] * vocab_size + ids[1:]  # (n − 1,): the pair (u, v) as one index
    counts = np.bincount(pairs, minlength=vocab_size**2).reshape(vocab_size, vocab_size) + delta  # (V, V)
    return counts / counts.sum(axis=1, keepdims=True)


def cross_entropy(table, ids):
    """Mean negative log-likelihood, in nats per token, of ``ids`` under a unigram or bigram table.

    A unigram table (V,) scores every token; a bigram table (V, V) scores ids[1:], each given the token before it.
    ``exp`` of the result is the perplexity.

    Parameters
    ----------
    table : array_like of shape (V,) or (V, V)
        Probabilities from :func:`unigram_table` or :func:`bigram_table` (entries > 0, each distribution summing
        to 1).
    ids : array_like of int, shape (n,)
        The tokens to score, e.g. a validation text; n >= 2 for a bigram table.

    Returns
    -------
    float
    """
    P = as_array(table, "table")
    if P.ndim not in (1, 2) or P.size == 0 or (P.ndim == 2 and P.shape[0] != P.shape[1]):
        raise ValueError(f"table must be a unigram table of shape (V,) or a bigram table of shape (V, V); received "
                         f"shape {P.shape}. Build it with unigram_table or bigram_table.")
    if not np.isfinite(P).all() or (P <= 0).any() or not np.allclose(P.sum(axis=-1), 1.0, rtol=0, atol=1e-8):
        raise ValueError(f"table must hold probabilities > 0 with each distribution summing to 1 (smoothing keeps "
                         f"them positive); received entries from {np.nanmin(P):.3g} to {np.nanmax(P):.3g}. Build it "
                         "with unigram_table or bigram_table and delta > 0.")
    ids = _token_ids(ids, P.shape[0], min_length=P.ndim)
    if P.ndim == 1:
        return float(-np.log(P[ids]).mean())
    return float(-np.log(P[ids[:-1], ids[1:]]).mean())
