"""The checks of the exercises of chapter 7, Transformers: one per exercise, named after the reader's function."""

import numpy as np

from ..._contract import checked
from ...language import attention, decoding, ngram
from ...language.bpe import BPETokenizer
from ...language.transformer import TransformerBlock
from ...nn.module import parameter_count
from .._checks import your_function
from ..exercises import check_function

__all__ = ["causal_attention", "positional_encoding", "block_parameters", "bpe_merges", "beam_search_table",
           "bigram_perplexity", "attend_with_cache"]


def _causal_reference(Q, K, V):
    return attention.scaled_dot_product_attention(Q, K, V, mask=attention.causal_mask(len(Q)))[0]


def _qkv_inputs(rng, size):
    """Queries scaled up to 10³, so that unstabilised scores overflow exp; keys and values ordinary."""
    T, d_k, d_v = size, 4, 3
    Q = rng.normal(size=(T, d_k)) * 10.0 ** rng.uniform(0, 3)
    return Q, rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))


def causal_attention(candidate, *, rng):
    """``causal_attention(Q, K, V)`` against ``scaled_dot_product_attention`` with ``causal_mask(T)``.

    The scores reach the thousands, so a softmax without the max-subtraction overflows; no warning is allowed.
    """
    __tracebackhide__ = True
    check_function(candidate, _causal_reference, _qkv_inputs, rng=rng, warnings_as_errors=True)


def _position_inputs(rng, size):
    return int(rng.integers(1, 50)), size


def positional_encoding(candidate, *, rng):
    """``positional_encoding(T, D)`` against ``attention.sinusoidal_positional_encoding``, D even and odd."""
    __tracebackhide__ = True
    check_function(candidate, attention.sinusoidal_positional_encoding, _position_inputs, rng=rng)


def _count_block(D, num_heads, d_ff):
    return parameter_count(TransformerBlock(D, num_heads, d_ff, rng=np.random.default_rng(0)))


def _block_size_inputs(rng, size):
    """A width D that the number of heads h divides; h = 1 only on the first input."""
    num_heads = 1 if size == 1 else int(rng.integers(2, 5))
    return num_heads * int(rng.integers(1, size + 2)), num_heads, int(rng.integers(1, 40))


def block_parameters(candidate, *, rng):
    """``block_parameters(D, num_heads, d_ff)`` against counting the parameters of a built ``TransformerBlock``."""
    __tracebackhide__ = True
    check_function(candidate, _count_block, _block_size_inputs, rng=rng, trials=10)


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


# --- beam search ------------------------------------------------------------------------------------------------------

def _beam_reference(P, beam_width, max_len):
    """``decoding.beam_search`` on the bigram table P, token 0 first, token V − 1 the end of a sequence."""
    V = len(P)
    ids, _, _ = decoding.beam_search(decoding.ngram_log_probs_fn(P), 0, beam_width=beam_width, max_len=max_len,
                                     eos_id=V - 1)
    return ids


def _table_inputs(rng, size):
    """A random bigram table of V = 4 to 7 tokens, every probability > 0; a beam of 2 or 3 (1 on the first input)."""
    V = int(rng.integers(4, 8))
    P = rng.dirichlet(np.full(V, 3.0), size=V)  # (V, V): row i is p(next | last = i), none far from 1/V
    return P, 1 if size == 1 else int(rng.integers(2, 4)), 2 + size % 5


def beam_search_table(candidate, *, rng):
    """``beam_search_table(P, beam_width, max_len)``: the best sequence of ``decoding.beam_search``."""
    __tracebackhide__ = True
    check_function(candidate, _beam_reference, _table_inputs, rng=rng, trials=30, quantity="the best sequence")


# --- perplexity -------------------------------------------------------------------------------------------------------

def _perplexity_reference(P, ids):
    nats = ngram.cross_entropy(P, ids)  # the mean over the T − 1 predicted tokens
    return np.array([np.exp(nats), nats / np.log(2)])  # perplexity, bits per token


def _scored_inputs(rng, size):
    V = int(rng.integers(2, 6))
    P = rng.dirichlet(np.ones(V), size=V)  # (V, V)
    return P, rng.integers(0, V, size=size + 1)


def bigram_perplexity(candidate, *, rng):
    """``bigram_perplexity(P, ids)``: the perplexity and the bits per token of a bigram table on a sequence."""
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
