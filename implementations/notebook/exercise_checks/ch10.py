"""The checks of the exercises of chapter 10, Language models: one per exercise, named after the reader's function."""

import numpy as np

from ..._contract import checked
from ...language import ngram
from ...language.bpe import BPETokenizer
from .._checks import your_function
from ..exercises import check_function
from .ch7 import _causal_reference  # causal attention in one pass, chapter 7's check

__all__ = ["bpe_merges", "bigram_perplexity", "attend_with_cache"]


# --- byte-pair encoding -----------------------------------------------------------------------------------------------

def _bpe_reference(word_counts, num_merges):
    """The merges ``BPETokenizer.train`` learns from a text made of the words, each repeated its count of times."""
    text = "".join(word * count for word, count in word_counts.items())  # " ab" * 2 + " b": " ab ab b"
    merges = BPETokenizer().train(text, 256 + num_merges).merges
    return np.array(list(merges), dtype=np.int64).reshape(num_merges, 2)  # (M, 2): pair k made id 256 + k


def _corpus_inputs(rng, size):
    """Distinct words, each a space and 1 to 5 letters of "abc", with counts 1 to 4; as many merges as they allow."""
    words = {" " + "".join(rng.choice(list("abc"), size=int(rng.integers(1, 6)))) for _ in range(size + 1)}
    word_counts = {word: int(rng.integers(1, 5)) for word in sorted(words)}
    pairs = sum(len(word) - 1 for word in word_counts)  # each merge shortens at least one word by one
    return word_counts, min(1 + size // 2, pairs)


def bpe_merges(candidate, *, rng):
    """``bpe_merges(word_counts, num_merges)``: the first merges of ``BPETokenizer.train``, as pairs of ids."""
    __tracebackhide__ = True
    check_function(candidate, _bpe_reference, _corpus_inputs, rng=rng, quantity="the merged pairs, in order")


# --- perplexity -------------------------------------------------------------------------------------------------------

def _perplexity_reference(B, ids):
    nats = ngram.cross_entropy(B, ids)  # the mean over the T − 1 predicted tokens
    return np.array([np.exp(nats), nats / np.log(2)])  # perplexity, bits per token


def _scored_inputs(rng, size):
    V = int(rng.integers(2, 6))
    B = rng.dirichlet(np.ones(V), size=V)  # (V, V)
    return B, rng.integers(0, V, size=size + 1)


def bigram_perplexity(candidate, *, rng):
    """``bigram_perplexity(B, ids)``: the perplexity and the bits per token of a bigram table on a sequence."""
    __tracebackhide__ = True
    check_function(candidate, _perplexity_reference, _scored_inputs, rng=rng,
                   quantity="its perplexity and bits per token")


# --- the key–value cache ----------------------------------------------------------------------------------------------

def _step_by_step(candidate):
    """Run the reader's step ``attend_with_cache(q, k, v, K_cache, V_cache)`` over a sequence, from empty caches."""
    def run(Q, K, V):
        K_cache, V_cache = np.zeros((0, K.shape[1])), np.zeros((0, V.shape[1]))  # nothing seen yet
        outputs = []
        for t in range(len(Q)):  # token t arrives
            result = candidate(Q[t], K[t], V[t], K_cache, V_cache)
            if not isinstance(result, (tuple, list)) or len(result) != 3:
                raise TypeError("expected 3 results (y, K_cache, V_cache); end your function with "
                                "`return y, K_cache, V_cache`.")
            y, K_cache, V_cache = result
            outputs.append(y)
        return np.array(outputs)  # (T, d_v)

    return run


def _cache_inputs(rng, size):
    T, d_k, d_v = size, 4, 3
    return rng.normal(size=(T, d_k)), rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))


@checked(candidate=your_function, rng="rng")
def attend_with_cache(candidate, *, rng):
    """``attend_with_cache(q, k, v, K_cache, V_cache)`` run token by token against causal attention in one pass."""
    __tracebackhide__ = True
    check_function(_step_by_step(candidate), _causal_reference, _cache_inputs, rng=rng,
                   name=getattr(candidate, "__name__", "attend_with_cache"),
                   quantity="its outputs for tokens 0, …, T − 1, stacked")
