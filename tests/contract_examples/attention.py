"""Valid examples for the input contract: attention (chapter 7's attention functions)."""

import math

import numpy as np

from contract import Example
from implementations.language import attention
from implementations.nn.normalization import layer_norm

_rng = np.random.default_rng(0)
B, T, D = 2, 3, 4
X = _rng.normal(size=(B, T, D))  # (B, T, D)
Q = _rng.normal(size=(B, T, D))  # (B, T_q, d_k)
K = _rng.normal(size=(B, T + 2, D))  # (B, T_k, d_k)
V = _rng.normal(size=(B, T + 2, 2))  # (B, T_k, d_v)
MASK = _rng.random((T, T + 2)) < 0.7  # (T_q, T_k), True = may attend
MASK[:, 0] = True  # every query keeps one key
W_Q, W_K, W_V = _rng.normal(size=(D, 2)), _rng.normal(size=(D, 2)), _rng.normal(size=(D, 3))  # (D, d_k), (D, d_v)
W4 = [_rng.normal(size=(D, D)) / 2 for _ in range(4)]  # W_q, W_k, W_v, W_o
SCORES = _rng.normal(size=(T, 5))  # any shape


def _masks(shape):
    """Bad masks for scores of ``shape`` (…, T_q, T_k)."""
    no_key = np.ones(shape[-2:], dtype=bool)
    no_key[1] = False
    return [("a float mask", {"mask": np.ones(shape[-2:])}, ()),
            ("a mask of the wrong shape", {"mask": np.ones((shape[-2] + 1, shape[-1]), dtype=bool)}, ()),
            ("a query that may attend to no key", {"mask": no_key}, ()),
            ("a string", {"mask": "causal"}, ()),
            ("a ragged list", {"mask": [[True, False], [True]]}, ())]


_X_EXTRAS = [("a single token (D,)", {"X": X[0, 0]}, ()), ("a single number", {"X": 2.0}, ()),
             ("no tokens", {"X": X[:, :0]}, ())]

# cross-attention: the valid call above is self-attention; these add a memory (B, T_k, D) that does not fit
_MEMORY_EXTRAS = [("a string memory", {"memory": "encoder"}, ()),
                  ("a memory with a NaN", {"memory": np.where(np.arange(D) == 0, math.nan, np.ones((B, 5, D)))}, ()),
                  ("a memory of another width", {"memory": np.zeros((B, T + 2, D + 1))}, ()),
                  ("a memory for another batch size", {"memory": np.zeros((B + 1, T + 2, D))}, ()),
                  ("a single memory token (D,)", {"memory": X[0, 0]}, ()),
                  ("a memory of no tokens", {"memory": X[:, :0]}, ())]

EXAMPLES = {
    "implementations.language.attention.simple_self_attention": Example(
        build=lambda: (attention.simple_self_attention, {"X": X}),
        roles={"X": "array"},
        extra=_X_EXTRAS),
    "implementations.language.attention.scaled_dot_product_attention": Example(
        build=lambda: (attention.scaled_dot_product_attention,
                       {"Q": Q, "K": K, "V": V, "mask": MASK, "scaled": True}),
        roles={"Q": "array:any-nd", "K": "array:any-nd", "V": "array:any-nd", "scaled": "flag"},
        extra=_masks((B, T, T + 2)) + [
            ("a single query (d_k,)", {"Q": Q[0, 0]}, ()),
            ("keys of another width", {"K": K[..., :-1]}, ()),
            ("one value fewer than keys", {"V": V[:, :-1]}, ()),
            ("batch axes that do not broadcast", {"Q": np.concatenate([Q, Q[:1]])}, ()),
            ("values of width 0", {"V": V[..., :0]}, ())]),
    "implementations.language.attention.self_attention": Example(
        build=lambda: (attention.self_attention,
                       {"X": X, "W_q": W_Q, "W_k": W_K, "W_v": W_V, "scaled": False, "mask": attention.causal_mask(T)}),
        roles={"X": "array", "W_q": "array", "W_k": "array", "W_v": "array", "scaled": "flag"},
        extra=_X_EXTRAS + _masks((B, T, T)) + [
            ("tokens of the wrong width", {"X": np.zeros((B, T, D + 1))}, ()),
            ("W_k with other columns than W_q", {"W_k": np.zeros((D, 3))}, ()),
            ("W_v for other tokens", {"W_v": np.zeros((D + 1, 3))}, ()),
            ("W_q with no columns", {"W_q": np.zeros((D, 0))}, ())]),
    "implementations.language.attention.multi_head_attention": Example(
        build=lambda: (attention.multi_head_attention,
                       {"X": X, "W_q": W4[0], "W_k": W4[1], "W_v": W4[2], "W_o": W4[3], "num_heads": 2,
                        "mask": attention.causal_mask(T)}),
        roles={"X": "array", "W_q": "array", "W_k": "array", "W_v": "array", "W_o": "array", "num_heads": "count"},
        extra=_X_EXTRAS + _masks((B, 2, T, T)) + [
            ("tokens of the wrong width", {"X": np.zeros((B, T, D + 2))}, ()),
            ("a num_heads that does not divide D", {"num_heads": 3}, ()),
            ("a non-square W_o", {"W_o": np.zeros((D, D + 1))}, ())] + _MEMORY_EXTRAS),
    "implementations.language.attention.causal_mask": Example(
        build=lambda: (attention.causal_mask, {"T": 4}),
        roles={"T": "count"}),
    "implementations.language.attention.key_padding_mask": Example(
        build=lambda: (attention.key_padding_mask, {"lengths": np.array([T + 2, 1]), "T_k": T + 2}),
        roles={"lengths": f"ids:{T + 3}", "T_k": "count"},
        extra=[("a (B, 1) column of lengths", {"lengths": np.array([[2], [1]])}, ()),
               ("a length 0", {"lengths": np.array([2, 0])}, ()),
               ("a NaN length", {"lengths": np.array([2.0, math.nan])}, ()),
               ("a single number", {"lengths": 2}, ())]),
    "implementations.language.attention.sinusoidal_positional_encoding": Example(
        build=lambda: (attention.sinusoidal_positional_encoding, {"T": 6, "D": 5}),
        roles={"T": "count", "D": "count"}),
    "implementations.nn.normalization.layer_norm": Example(
        build=lambda: (layer_norm, {"X": X, "gamma": np.ones(D), "beta": np.zeros(D), "eps": 1e-5}),
        roles={"X": "array:any-nd", "gamma": "array", "beta": "array", "eps": "rate"},
        extra=[("tokens of the wrong width", {"X": np.zeros((B, T, D + 1))}, ()),
               ("a single number", {"X": 1.0}, ()),
               ("gamma of the wrong length", {"gamma": np.ones(D + 1)}, ())]),
}
