"""The checks of the exercises of chapter 7, Transformers: one per exercise, named after the reader's function."""

import warnings

import numpy as np

from ...language import attention, decoding
from ...language.seq2seq_transformer import DecoderBlock
from ...language.transformer import TransformerBlock
from ...nn.module import parameter_count
from ..exercises import check_function

__all__ = ["causal_attention", "position_shift", "decoder_block_parameters", "beam_search_table"]


def _causal_reference(Q, K, V):
    return attention.scaled_dot_product_attention(Q, K, V, mask=attention.causal_mask(len(Q)))[0]


def _qkv_inputs(rng, size):
    """Queries scaled up to 10³, so that unstabilised scores overflow exp; keys and values ordinary."""
    T, d_k, d_v = size, 4, 3
    Q = rng.normal(size=(T, d_k)) * 10.0 ** rng.uniform(0, 3)
    return Q, rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))


def _causal_hint(candidate):
    """On a failure, what the reader's attention weights show: with V the identity, the output is the weights."""
    def hint(args, received, expected):
        Q, K = np.random.default_rng(0).normal(size=(2, 4, 3))  # T = 4, scores of order 1: nothing overflows
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            try:
                W = np.asarray(candidate(Q, K, np.eye(4)), dtype=np.float64)  # (4, 4): row i is query i's weights
            except Exception:  # noqa: BLE001  (the check's own message reports the error)
                return None
        if W.shape != (4, 4):
            return None
        if np.isnan(W[0]).any() or np.all(np.diag(W)[1:] == 0):
            return ("the diagonal is masked too. A token may attend to itself (key j = i), so only the keys j > i "
                    "are hidden; with the diagonal hidden, token 0 has no key left, its scores are all −∞ and its "
                    "softmax is 0/0.")
        if not np.allclose(W.sum(axis=1), 1.0):
            return ("the rows of your attention weights do not sum to 1 (called with V = the identity, your "
                    f"function returns the weights; their row sums are {np.round(W.sum(axis=1), 3).tolist()}). "
                    "Mask the scores, with −∞, before the softmax; zeroing weights after it leaves rows that sum "
                    "to less than 1.")
        if np.abs(np.triu(W, 1)).max() > 0:
            return "query i gives weight to keys j > i: the mask hides the wrong triangle."
        return None

    return hint


def causal_attention(candidate, *, rng):
    """``causal_attention(Q, K, V)`` against ``scaled_dot_product_attention`` with ``causal_mask(T)``.

    The scores reach the thousands, so a softmax without the max-subtraction overflows; no warning is allowed. On a
    failure the candidate's weights are read on a small input (with V the identity) and the message names the
    likely mistake: the diagonal masked too, or the mask applied after the softmax (rows that do not sum to 1).
    """
    __tracebackhide__ = True
    check_function(candidate, _causal_reference, _qkv_inputs, rng=rng, warnings_as_errors=True,
                   hint=_causal_hint(candidate))


def _shift_reference(m, D):
    """The (D, D) matrix M with PE[i + m] = PE[i] M for the sinusoidal encoding: a rotation by m ω_k per pair."""
    omega = 1.0 / 10000.0 ** (np.arange(0, D, 2) / D)  # (D/2,): the frequency of the columns 2k and 2k + 1
    cos, sin = np.cos(m * omega), np.sin(m * omega)
    M = np.zeros((D, D))
    even, odd = np.arange(0, D, 2), np.arange(1, D, 2)
    M[even, even], M[odd, even] = cos, sin  # sin(a + b) = sin a cos b + cos a sin b
    M[even, odd], M[odd, odd] = -sin, cos  # cos(a + b) = cos a cos b − sin a sin b
    return M


def _shift_inputs(rng, size):
    """An offset m of 0 to 40 positions and an even width D of 2 to 2·size."""
    return int(rng.integers(0, 41)), 2 * int(rng.integers(1, size + 1))


def position_shift(candidate, *, rng):
    """``position_shift(m, D)``: the matrix M_m with PE_{i+m} = PE_i M_m for the sinusoidal encoding, D even."""
    __tracebackhide__ = True
    check_function(candidate, _shift_reference, _shift_inputs, rng=rng, quantity="the matrix M_m")


def _count_decoder_block(D, num_heads, d_ff):
    return parameter_count(DecoderBlock(D, num_heads, d_ff, rng=np.random.default_rng(0)))


def _block_size_inputs(rng, size):
    """A width D that the number of heads h divides; h = 1 only on the first input."""
    num_heads = 1 if size == 1 else int(rng.integers(2, 5))
    return num_heads * int(rng.integers(1, size + 2)), num_heads, int(rng.integers(1, 40))


def decoder_block_parameters(candidate, *, rng):
    """``decoder_block_parameters(D, num_heads, d_ff)`` against counting the parameters of a built ``DecoderBlock``."""
    __tracebackhide__ = True
    check_function(candidate, _count_decoder_block, _block_size_inputs, rng=rng, trials=10)


# --- beam search ------------------------------------------------------------------------------------------------------

def _beam_reference(B, beam_width, max_len):
    """``decoding.beam_search`` on the bigram table B, token 0 first, token V − 1 the end of a sequence."""
    V = len(B)
    ids, _, _ = decoding.beam_search(decoding.ngram_log_probs_fn(B), 0, beam_width=beam_width, max_len=max_len,
                                     eos_id=V - 1)
    return ids


def _table_inputs(rng, size):
    """A random bigram table of V = 4 to 7 tokens, every probability > 0; a beam of 2 or 3 (1 on the first input)."""
    V = int(rng.integers(4, 8))
    B = rng.dirichlet(np.full(V, 3.0), size=V)  # (V, V): row i is p(next | last = i), none far from 1/V
    return B, 1 if size == 1 else int(rng.integers(2, 4)), 2 + size % 5


def _beam_hint(args, received, expected):
    """A finished answer more probable than the reference's: a finished candidate kept from outside the k best."""
    B = args[0]
    try:
        ids = np.asarray(received).ravel()
        if ids.size < 2 or not np.issubdtype(ids.dtype, np.integer) or ids.min() < 0 or ids.max() >= len(B):
            return None
    except (TypeError, ValueError):
        return None

    def log_p(seq):
        return np.log(B[seq[:-1], seq[1:]]).sum()

    if ids[0] == 0 and ids[-1] == len(B) - 1 and log_p(ids) > log_p(np.asarray(expected)) + 1e-9:
        return ("your answer ends with the end token and is more probable than anything beam search of this width "
                "can reach: it was set aside as finished without being among the k best candidates of its step. "
                "Only the k best candidates of a step are kept, finished or not; those of them that end with "
                "the end token are set aside.")
    return None


def beam_search_table(candidate, *, rng):
    """``beam_search_table(B, beam_width, max_len)``: the best sequence of ``decoding.beam_search``."""
    __tracebackhide__ = True
    check_function(candidate, _beam_reference, _table_inputs, rng=rng, trials=30, quantity="the best sequence",
                   hint=_beam_hint)


# The first edition's exercises 2 and 3 asked for the sinusoidal encoding and a block's parameters, both printed or
# listed in the chapter; student copies made from it still call these checks, so they stay (not in __all__).
def _position_inputs(rng, size):
    return int(rng.integers(1, 50)), size


def positional_encoding(candidate, *, rng):
    """``positional_encoding(T, D)`` against ``attention.sinusoidal_positional_encoding``, D even and odd."""
    __tracebackhide__ = True
    check_function(candidate, attention.sinusoidal_positional_encoding, _position_inputs, rng=rng)


def _count_block(D, num_heads, d_ff):
    return parameter_count(TransformerBlock(D, num_heads, d_ff, rng=np.random.default_rng(0)))


def block_parameters(candidate, *, rng):
    """``block_parameters(D, num_heads, d_ff)`` against counting the parameters of a built ``TransformerBlock``."""
    __tracebackhide__ = True
    check_function(candidate, _count_block, _block_size_inputs, rng=rng, trials=10)
