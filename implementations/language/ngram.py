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

from .._contract import checked
from . import _checks

__all__ = ["unigram_table", "bigram_table", "cross_entropy"]


@checked(vocab_size="count", delta="rate", ids="ids (n,) < vocab_size")
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
    counts = np.bincount(ids, minlength=vocab_size) + delta  # (V,)
    return counts / counts.sum()


@checked(vocab_size="count", delta="rate", ids="ids (n,) < vocab_size", also=_checks.two_tokens)
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
    pairs = ids[:-1] * vocab_size + ids[1:]  # (n − 1,): the pair (u, v) as one index
    counts = np.bincount(pairs, minlength=vocab_size**2).reshape(vocab_size, vocab_size) + delta  # (V, V)
    return counts / counts.sum(axis=1, keepdims=True)


@checked(table="array (V,) | (V, W)", ids="ids (n,) < V", also=_checks.ids_score_table)
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
    p = table[ids] if table.ndim == 1 else table[ids[:-1], ids[1:]]  # (n,) or (n − 1,): p(y_t | context_t)
    return float(-np.log(p).mean())
