"""n-gram language models: the baselines a neural language model has to beat (chapter 10).

A unigram model predicts every token from its frequency alone, p(y_t = v) ∝ c(v) + δ; a bigram model from the token
before it, p(y_t = v | y_{t−1} = u) ∝ c(u, v) + δ, with c the counts in the training tokens and δ > 0 the additive
(Laplace) smoothing that keeps an unseen token or pair from getting probability 0. Both are tables of
probabilities; :func:`cross_entropy` scores a token sequence under either, and its exponential is the perplexity

    PPL = exp( −(1/n) Σ_t log p(y_t | context_t) ),

the number of equally likely tokens a model is as unsure between, on average. A bigram table is also the
``table`` of :func:`~implementations.language.decoding.ngram_log_probs_fn`.

Interpolated Kneser–Ney, eq. (10.1), is the strong n-gram baseline: :func:`kneser_ney_counts` counts the n-grams of
every order once (raw counts at the top order, continuation counts below it), :func:`kneser_ney_probs` applies the
formula from order 1 up, :func:`kneser_ney_contexts` lays out the contexts that score a text, and
:func:`fit_kneser_ney_discount` fits the discount d on held-out tokens. (The book writes u for an n-gram's context
and d for the discount: h counts attention heads and D is a model's width.)
"""

import numpy as np

from .._contract import checked
from . import _checks

__all__ = ["unigram_table", "bigram_table", "cross_entropy", "kneser_ney_counts", "kneser_ney_probs",
           "kneser_ney_contexts", "fit_kneser_ney_discount"]


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


# --- interpolated Kneser–Ney --------------------------------------------------------------------------------------


class _KneserNeyCounts:
    """The counts an interpolated Kneser–Ney model of order n reads, built by :func:`kneser_ney_counts`.

    For each order k = 1, …, n: the k-grams (u, w) seen, as sorted integer keys, with their count — the raw count
    c(u w) at the highest order, the continuation count N₁₊(• u w) (the number of distinct tokens seen before u w)
    below it — and, for each context u seen, the total of those counts over w and the number N₁₊(u •) of distinct w.
    A token id is stored as id + 1 in base V + 1, so that the id −1 ("before the text") never matches a key.
    """

    def __init__(self, vocab_size, order):
        self.vocab_size, self.order = vocab_size, order
        self.grams, self.counts, self.contexts, self.totals, self.types = {}, {}, {}, {}, {}

    def key(self, rows):
        """Integer keys of the rows (m, k) of token ids (−1 allowed): Σ_j (rows[:, j] + 1)·(V + 1)^(k − 1 − j)."""
        keys = np.zeros(len(rows), dtype=np.int64)
        for j in range(rows.shape[1]):
            keys = keys * (self.vocab_size + 1) + rows[:, j] + 1
        return keys

    def lookup(self, contexts, tokens):
        """c(u w), Σ_w c(u w) and N₁₊(u •) at order k = contexts.shape[1] + 1; 0 for unseen grams and contexts."""
        k = contexts.shape[1] + 1
        gram = self.key(np.column_stack([contexts, tokens]))
        context = self.key(contexts)
        c, = _find(self.grams[k], gram, self.counts[k])
        return (c, *_find(self.contexts[k], context, self.totals[k], self.types[k]))


def _find(sorted_keys, keys, *values):
    """Each of ``values`` at the positions of ``keys`` in ``sorted_keys``, and 0 where a key is absent."""
    i = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    found = sorted_keys[i] == keys
    return [np.where(found, v[i], 0) for v in values]


def _distinct(keys):
    """The sorted distinct keys and how often each occurs."""
    return np.unique(keys, return_counts=True)


@checked(vocab_size="count", order="count", ids="ids (n,) < vocab_size", also=_checks.ids_hold_an_ngram)
def kneser_ney_counts(ids, vocab_size, order):
    """Count the n-grams of ``ids`` as interpolated Kneser–Ney reads them, eq. (10.1), for every order up to ``order``.

    Parameters
    ----------
    ids : array_like of int, shape (N,), N >= order
        Training tokens, ids 0, …, V − 1.
    vocab_size : int
        V.
    order : int >= 1
        n: the model predicts a token from the n − 1 tokens before it.

    Returns
    -------
    counts
        The k-gram counts of every order k <= n, read by :func:`kneser_ney_probs`.
    """
    counts = _KneserNeyCounts(vocab_size, order)
    windows = np.lib.stride_tricks.sliding_window_view(ids, order)  # (N − n + 1, n): every n-gram
    grams, c = _distinct(counts.key(windows))  # sorted keys of the distinct n-grams, and their raw counts c(u w)
    for k in range(order, 0, -1):
        counts.grams[k], counts.counts[k] = grams, c
        context = grams // (vocab_size + 1)  # the key of u (drop the last digit, w): sorted, as the grams are
        first = np.flatnonzero(np.r_[True, context[1:] != context[:-1]])  # where each context's run starts
        counts.contexts[k], counts.totals[k] = context[first], np.add.reduceat(c, first)  # u, Σ_w c(u w): run sums
        counts.types[k] = np.diff(np.r_[first, len(grams)])  # N₁₊(u •): the length of u's run
        shorter = grams % (vocab_size + 1) ** (k - 1)  # the key of u' w: the k-gram without its first digit
        grams, c = _distinct(shorter)  # N₁₊(• u' w): each distinct k-gram adds one to its suffix
    return counts


@checked(counts=_checks.kneser_ney_counts, discount="array", contexts=_checks.ngram_contexts,
         tokens=_checks.token_sequence, also=_checks.kneser_ney_query)
def kneser_ney_probs(counts, contexts, tokens, *, discount):
    """Interpolated Kneser–Ney probabilities p(w | u), eq. (10.1), one per row of ``contexts`` and entry of ``tokens``.

    Parameters
    ----------
    counts : the result of :func:`kneser_ney_counts`
        From :func:`kneser_ney_counts`, of order n.
    contexts : array_like of int, shape (m, n − 1)
        The n − 1 tokens before each token, oldest first; −1 for a position before the start of the text.
    tokens : array_like of int, shape (m,)
        The tokens w.
    discount : float in (0, 1), or array of shape (G,)
        d, shared by every order; an array of G discounts gives the probabilities for each at once.

    Returns
    -------
    p : ndarray of shape (m,), or (G, m) for G discounts
    """
    d = np.asarray(discount, dtype=float)[..., None]  # (1,) or (G, 1): broadcast over the m rows
    p = np.full(len(tokens), 1.0 / counts.vocab_size)  # order 0: every token equally likely
    for k in range(1, counts.order + 1):  # order k reads the last k − 1 tokens of the context
        c, total, types = counts.lookup(contexts[:, counts.order - k :], tokens)  # c(u w), c(u •), N₁₊(u •)
        seen = total > 0  # an unseen context keeps the lower order's p
        total = np.maximum(total, 1)
        p = np.where(seen, (np.maximum(c - d, 0) + d * types * p) / total, p)
    return p


@checked(counts=_checks.kneser_ney_counts, ids=_checks.token_sequence, start="count",
         also=_checks.kneser_ney_scored)
def kneser_ney_contexts(counts, ids, *, start=1):
    """The contexts (m, n − 1) and tokens (m,) that score ids[start:] under ``counts``' order, −1 before the start.

    Parameters
    ----------
    counts : the result of :func:`kneser_ney_counts`
    ids : array_like of int, shape (N,)
    start : int >= 1, default 1
        The first position scored; the first token has no context and is left out.

    Returns
    -------
    contexts : int ndarray of shape (N − start, n − 1)
    tokens : int ndarray of shape (N − start,)
    """
    n = counts.order
    padded = np.concatenate([np.full(n - 1, -1), ids])  # position t of ids is position t + n − 1 here
    windows = np.lib.stride_tricks.sliding_window_view(padded, n)[start:]  # (N − start, n)
    return windows[:, :-1], windows[:, -1]


@checked(counts=_checks.kneser_ney_counts, ids=_checks.token_sequence, start="count",
         also=_checks.kneser_ney_scored)
def fit_kneser_ney_discount(counts, ids, *, start=1):
    """The discount d in (0, 1) that minimises the mean negative log-likelihood of held-out ``ids[start:]``.

    A grid search: d on a grid of step 0.1 over (0, 1), then on a grid of step 0.01 around the best value.

    Parameters
    ----------
    counts : the result of :func:`kneser_ney_counts`
    ids : array_like of int, shape (N,)
        Held-out tokens (not the training tokens, on which a smaller d always fits better).
    start : int >= 1, default 1

    Returns
    -------
    discount : float
    nll : float
        The mean negative log-likelihood, in nats per token, at that discount.
    """
    contexts, tokens = kneser_ney_contexts(counts, ids, start=start)
    grid = np.linspace(0.05, 0.95, 10)
    for _ in range(2):
        nll = -np.log(kneser_ney_probs(counts, contexts, tokens, discount=grid)).mean(axis=1)  # (G,)
        best = grid[np.argmin(nll)]
        grid = np.clip(best + 0.01 * np.arange(-9, 10), 0.005, 0.995)  # 19 discounts around the best
    return float(best), float(nll.min())
