"""Decoding a sequence model: greedy decoding and beam search.

A model of sequences gives the probability of the next token given the ones before it; the log-probability of a
whole sequence y = (y_0, y_1, …, y_n), y_0 the start token, is the sum of the steps' log-probabilities

    log p(y) = Σ_{t=1}^{n} log p(y_t | y_0, …, y_{t−1}).

Decoding searches for the sequence with the highest score. Greedy decoding takes the most likely token at every
step; beam search keeps the ``beam_width`` best prefixes at every step, and so finds sequences whose first tokens
are less likely but whose later tokens make up for it.

Both functions are model-agnostic. The model is a function ``log_probs_fn(prefixes)`` that maps an int array of
shape (K, t), K prefixes of the same length t that each start with the start token, to an array of shape (K, V):
the log-probabilities of the next token over a vocabulary of V tokens (each row a log-softmax: finite numbers or
−inf, with Σ_v exp = 1). The decoders call it once per step, on all K prefixes at once. For
:class:`~implementations.language.transformer.TinyGPT`::

    def log_probs_fn(prefixes):                                  # (K, t) -> (K, V)
        with no_grad():
            z = model(prefixes[:, -model.block_size:]).data[:, -1]   # the last position's logits, (K, V)
        return numeric.log_softmax(z)                                # z − log Σ exp(z), stably

:func:`ngram_log_probs_fn` turns a fixed n-gram table into such a function, for small worked examples.
"""

import numpy as np

from .._contract import checked
from . import _checks
from ._checks import next_log_probs

__all__ = ["greedy_decode", "beam_search", "ngram_log_probs_fn"]


# --- greedy decoding --------------------------------------------------------------------------------------------------

@checked(log_probs_fn=_checks.log_probs_fn, start_id=_checks.token_id, max_len="count",
         eos_id=_checks.token_id_or_none)
def greedy_decode(log_probs_fn, start_id, *, max_len, eos_id=None):
    """The most likely next token at every step: y_t = argmax_v log p(v | y_0, …, y_{t−1}).

    Parameters
    ----------
    log_probs_fn : function, int array (K, t) -> array (K, V)
        The model: next-token log-probabilities for each prefix (here K = 1). See the module docstring.
    start_id : int
        y_0, the token every sequence starts with; 0 <= start_id < V.
    max_len : int >= 1
        The most tokens generated after the start token (eos included).
    eos_id : int, optional
        The end-of-sequence token: decoding stops after generating it. None: always generate max_len tokens.

    Returns
    -------
    ids : ndarray of int, shape (n + 1,)
        y_0, y_1, …, y_n: the start token, then n <= max_len tokens, the last one eos if it was generated.
    log_prob : float
        log p(y) = Σ_{t=1}^{n} log p(y_t | y_<t).

    A tie between tokens goes to the lower token id (``np.argmax``).
    """
    ids, log_prob, V = [start_id], 0.0, None
    for _ in range(max_len):
        step = next_log_probs(log_probs_fn, np.array([ids]), V, start_id, eos_id)[0]  # (V,) log p(v | y_<t)
        V = step.shape[0]
        token = int(np.argmax(step))  # y_t; ties: the lowest id
        ids.append(token)
        log_prob += float(step[token])
        if token == eos_id:
            break
    return np.array(ids, dtype=np.int64), log_prob


# --- beam search ------------------------------------------------------------------------------------------------------

def _score(log_prob, n, length_penalty):
    """s(y) = log p(y) / n^α, n the number of tokens after the start token (eos included)."""
    return log_prob / n**length_penalty


def _beam_step(prefixes, log_p, step, beam_width, eos_id):
    """Steps 2 and 3 of :func:`beam_search`: rank the candidates (prefix, v), set aside the finished ones.

    Parameters
    ----------
    prefixes : int array of shape (K, t)    the beam, best first
    log_p : array of shape (K,)             log p of each prefix
    step : array of shape (K, V)            log p(v | prefix), the model's answer

    Returns
    -------
    finished : list of (ids, log p)         the candidates ending in eos among the beam_width best
    prefixes : int array of shape (K', t + 1), K' <= beam_width, and their log p, shape (K',): the next beam
    """
    V = step.shape[1]
    candidates = log_p[:, None] + step  # (K, V) log p(prefix, v)
    order = np.argsort(-candidates, axis=None, kind="stable")  # (K·V,) best first; ties: earlier k, then lower v
    order = order[np.isfinite(candidates.flat[order])]  # drop the impossible ones
    k, v = np.divmod(order, V)  # the prefix and the token of each candidate
    ends = v == eos_id  # all False when eos_id is None
    finished = [(np.append(prefixes[k[i]], eos_id), float(candidates[k[i], v[i]]))
                for i in np.flatnonzero(ends[:beam_width])]  # eos among the beam_width best
    keep = np.flatnonzero(~ends)[:beam_width]  # the next beam: the beam_width best that go on
    return finished, np.concatenate([prefixes[k[keep]], v[keep, None]], axis=1), candidates[k[keep], v[keep]]


@checked(log_probs_fn=_checks.log_probs_fn, start_id=_checks.token_id, beam_width="count", max_len="count",
         eos_id=_checks.token_id_or_none, length_penalty="penalty")
def beam_search(log_probs_fn, start_id, *, beam_width, max_len, eos_id=None, length_penalty=0.0):
    """Beam search: the ``beam_width`` best prefixes are extended by every token at each step.

    A hypothesis y = (y_0, …, y_n) is scored by its log-probability divided by a power of its length,

        s(y) = log p(y) / n^α,     n = the number of tokens after the start token, eos included,

    α = ``length_penalty`` (simple length normalization: α = 0 is the plain log-probability, which favours short
    sequences; α = 1 the mean log-probability per token. GNMT divides by ((5 + n) / 6)^α instead, a milder form).

    The search, at step t = 1, …, max_len:

    1. every alive prefix (length t) is extended by every token v, in one call of ``log_probs_fn`` on all of them;
       candidates of probability 0 (log-probability −inf) are dropped;
    2. the candidates are ranked by log p (all have n = t, so this is the ranking by s); ties go to the earlier
       prefix in the beam, then to the lower token id;
    3. the candidates ending in eos that rank among the ``beam_width`` best are set aside as finished;
       the ``beam_width`` best candidates that do not end in eos become the beam for step t + 1
       (so the beam stays full while finished hypotheses accumulate, as in fairseq).

    It stops after step max_len, when no prefix is alive, or as soon as no alive prefix can beat the best finished
    hypothesis: a continuation of a prefix with log-probability L scores at most L / max_len^α (log p only
    decreases as tokens are added, and n <= max_len), so the search stops when that bound of every alive prefix is
    <= the best finished score. (An equal score cannot win either: the finished hypothesis is shorter, see the
    ordering below.) Stopping early never changes the best hypothesis, only saves the remaining steps.

    Parameters
    ----------
    log_probs_fn : function, int array (K, t) -> array (K, V)
        The model: next-token log-probabilities for each of K prefixes (K <= beam_width). See the module docstring.
    start_id : int
        y_0, the token every sequence starts with; 0 <= start_id < V.
    beam_width : int >= 1
        The number of prefixes kept at each step; 1 is greedy decoding (when length_penalty = 0).
    max_len : int >= 1
        The most tokens generated after the start token (eos included).
    eos_id : int, optional
        The end-of-sequence token: a hypothesis that generates it is finished. None: every hypothesis has max_len
        tokens after the start token.
    length_penalty : float >= 0, default 0.0
        α in s(y) = log p(y) / n^α.

    Returns
    -------
    ids : ndarray of int, shape (n + 1,)
        The best hypothesis: the start token first, then n <= max_len tokens (the last one eos if it finished).
    score : float
        Its score s(y).
    beam : list of (ids, score) pairs
        The final beam: the complete hypotheses the search found (those that ended in eos, and those alive after
        step max_len), the best ``beam_width`` of them, best first; ``beam[0]`` is ``(ids, score)``. Ordered by
        score, then fewer tokens first, then the lexicographically smaller ids. After an early stop it holds the
        hypotheses finished until then (at least one), which may be fewer than ``beam_width``.
    """
    alpha = length_penalty
    prefixes = np.array([[start_id]], dtype=np.int64)  # (K, t): the alive prefixes, best first
    log_p = np.zeros(1)  # (K,) log p of each alive prefix
    finished, V = [], None  # finished: (ids, log p) of the hypotheses that ended in eos
    for _ in range(max_len):  # step t = 1, …, max_len: the prefixes have t tokens
        step = next_log_probs(log_probs_fn, prefixes, V, start_id, eos_id)  # (K, V) log p(v | prefix)
        V = step.shape[1]
        done, prefixes, log_p = _beam_step(prefixes, log_p, step, beam_width, eos_id)
        finished += done
        if not len(log_p):
            break
        best_finished = max((_score(lp, len(ids) - 1, alpha) for ids, lp in finished), default=-np.inf)
        if _score(log_p[0], max_len, alpha) <= best_finished:  # log_p[0] is the largest: no alive prefix can win
            break
    complete = [(ids, _score(lp, len(ids) - 1, alpha)) for ids, lp in finished]
    if prefixes.shape[1] == max_len + 1:  # alive after step max_len: complete without eos
        complete += [(ids, _score(lp, max_len, alpha)) for ids, lp in zip(prefixes, log_p.tolist(), strict=True)]
    complete.sort(key=lambda hypothesis: (-hypothesis[1], len(hypothesis[0]), hypothesis[0].tolist()))
    beam = complete[:beam_width]
    return beam[0][0], beam[0][1], beam


# --- a fixed model for examples -----------------------------------------------------------------------------------

@checked(table="array", also=_checks.transition_table)
def ngram_log_probs_fn(table):
    """A fixed n-gram model as a ``log_probs_fn``: p(y_t = v | y_<t) = table[y_{t−n+1}, …, y_{t−1}, v].

    The next token depends on the last n − 1 tokens only. A prefix shorter than n − 1 tokens is padded on the left
    with its first token (the start token), as n-gram language models pad a sentence with n − 1 start symbols.

    Parameters
    ----------
    table : array of shape (V, …, V), n >= 2 axes
        Transition probabilities: the first n − 1 indices are the context, oldest token first, the last one the
        next token; every slice table[i_1, …, i_{n−1}, :] is >= 0 and sums to 1. A (V, V) table is a bigram model,
        P[i, j] = p(next = j | last = i).

    Returns
    -------
    log_probs_fn : function, int array (K, t) -> ndarray (K, V)
        log table[context of each prefix, :], with log 0 = −inf.
    """
    n, V = table.ndim, table.shape[0]  # n − 1 context tokens, V token ids
    with np.errstate(divide="ignore"):
        log_P = np.log(table)  # log 0 = -inf: a token that cannot follow

    def log_probs_fn(prefixes):
        ids = _checks.table_prefixes(prefixes, V)  # (K, t)
        padded = np.concatenate([np.repeat(ids[:, :1], n - 1, axis=1), ids], axis=1)  # (K, n − 1 + t)
        context = padded[:, -(n - 1):]  # (K, n − 1): the last n − 1 tokens, oldest first
        return log_P[tuple(context.T)]  # (K, V)

    return log_probs_fn
