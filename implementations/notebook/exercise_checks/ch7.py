"""The checks of the exercises of chapter 7, Transformers: one per exercise, named after the reader's function."""

import numpy as np

from ...language import attention
from ...language.transformer import TransformerBlock
from ...nn.module import parameter_count
from ..exercises import check_function

__all__ = ["causal_attention", "positional_encoding", "block_parameters"]


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


def _count_block(D, d_ff):
    return parameter_count(TransformerBlock(D, 1, d_ff, rng=np.random.default_rng(0)))


def _block_size_inputs(rng, size):
    return int(rng.integers(1, 4 * size + 2)), int(rng.integers(1, 40))


def block_parameters(candidate, *, rng):
    """``block_parameters(D, d_ff)`` against counting the parameters of a built ``TransformerBlock``."""
    __tracebackhide__ = True
    check_function(candidate, _count_block, _block_size_inputs, rng=rng, trials=10)
