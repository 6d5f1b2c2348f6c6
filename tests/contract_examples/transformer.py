"""Valid examples for the input contract: transformer (chapter 7's modules and chapter 10's TinyGPT)."""

import math

import numpy as np

from contract import Example
from contract_examples.autograd import any_nd_tensor
from implementations.engine.autograd import Tensor
from implementations.language import transformer

_rng = np.random.default_rng(0)
B, T, D, HEADS, D_FF = 2, 3, 4, 2, 8
X = _rng.normal(size=(B, T, D))  # (B, T, D)
V, BLOCK = 7, 5  # TinyGPT: vocabulary, longest context
IDS = _rng.integers(0, V, size=(B, T))  # (B, T) token ids
TARGETS = _rng.integers(0, V, size=(B, T))  # (B, T) next-token ids


def rng():
    return np.random.default_rng(0)


def gpt():
    return transformer.TinyGPT(V, BLOCK, D, HEADS, 1, D_FF, rng=rng())


def _no_key_mask():
    mask = np.tril(np.ones((T, T), dtype=bool))
    mask[1] = False
    return mask


_X_EXTRAS = [
    ("tokens of the wrong width", {"x": np.zeros((B, T, D + 1))}, ()),
    ("a Tensor of the wrong width", {"x": Tensor(np.zeros((T, D + 3)))}, ()),
    ("a single token (D,)", {"x": X[0, 0]}, ()),
    ("no tokens", {"x": Tensor(X[:, :0])}, ()),
]
_IDS_EXTRAS = [
    ("a NaN id", {"idx": np.where(IDS == IDS[0, 0], math.nan, IDS)}, ()),
    ("a single sequence (T,)", {"idx": IDS[0]}, ()),
    ("one dimension more", {"idx": IDS[None]}, ()),
    ("a ragged list", {"idx": [[1, 2, 3], [4, 5]]}, ()),
    ("no tokens", {"idx": IDS[:, :0]}, ()),
]

# cross-attention: the valid call is self-attention; these add a memory (B, T_k, D) that does not fit
_MEMORY_EXTRAS = [
    ("a string memory", {"memory": "encoder"}, ()),
    ("a memory with an inf", {"memory": np.full((B, T + 2, D), math.inf)}, ()),
    ("a memory of another width", {"memory": np.zeros((B, T + 2, D + 1))}, ()),
    ("a Tensor memory of another width", {"memory": Tensor(np.zeros((B, T + 2, D - 1)))}, ()),
    ("a memory for another batch size", {"memory": np.zeros((B + 1, T + 2, D))}, ()),
    ("a single memory token (D,)", {"memory": X[0, 0]}, ()),
    ("a memory of no tokens", {"memory": Tensor(X[:, :0])}, ()),
]

EXAMPLES = {
    "implementations.language.transformer.MultiHeadAttention": Example(
        build=lambda: (transformer.MultiHeadAttention, {"d_model": D, "num_heads": HEADS, "rng": rng()}),
        roles={"d_model": "count", "num_heads": "count", "rng": "rng"},
        extra=[("a num_heads that does not divide d_model", {"num_heads": 3}, ())]),
    "implementations.language.transformer.MultiHeadAttention.forward": Example(
        build=lambda: (transformer.MultiHeadAttention(D, HEADS, rng=rng()).forward,
                       {"x": Tensor(X), "mask": np.tril(np.ones((T, T), dtype=bool)), "return_weights": True}),
        roles={"x": "tensor", "return_weights": "flag"},
        extra=_X_EXTRAS + [
            ("a float mask", {"mask": np.ones((T, T))}, ()),
            ("a mask of the wrong shape", {"mask": np.ones((T + 1, T), dtype=bool)}, ()),
            ("a query that may attend to no key", {"mask": _no_key_mask()}, ()),
            ("a string", {"mask": "causal"}, ())] + _MEMORY_EXTRAS),
    "implementations.language.transformer.FeedForward": Example(
        build=lambda: (transformer.FeedForward, {"d_model": D, "d_ff": D_FF, "rng": rng(), "activation": "relu"}),
        roles={"d_model": "count", "d_ff": "count", "rng": "rng"},
        extra=[("an unknown activation", {"activation": "swish"}, ()), ("a number", {"activation": 3}, ())]),
    "implementations.language.transformer.FeedForward.forward": Example(
        build=lambda: (transformer.FeedForward(D, D_FF, rng=rng()).forward, {"x": X}),
        roles={"x": "array:any-nd"},
        extra=any_nd_tensor("x", Tensor(X)) + _X_EXTRAS[:2] + [("a single number", {"x": 1.0}, ())]),
    "implementations.language.transformer.TransformerBlock": Example(
        build=lambda: (transformer.TransformerBlock,
                       {"d_model": D, "num_heads": HEADS, "d_ff": D_FF, "rng": rng(), "norm_first": False,
                        "activation": "gelu", "causal": True, "dropout": 0.1}),
        roles={"d_model": "count", "num_heads": "count", "d_ff": "count", "rng": "rng", "norm_first": "flag",
               "causal": "flag", "dropout": "prob"},
        extra=[("a num_heads that does not divide d_model", {"num_heads": 3}, ()),
               ("an unknown activation", {"activation": "tanh"}, ())]),
    "implementations.language.transformer.TransformerBlock.forward": Example(
        build=lambda: (transformer.TransformerBlock(D, HEADS, D_FF, rng=rng(), causal=True).forward,
                       {"x": Tensor(X), "mask": np.array([[[[True, True, False]]], [[[True, True, True]]]]),
                        "return_weights": True}),
        roles={"x": "tensor", "return_weights": "flag"},
        extra=_X_EXTRAS + [
            ("a float mask", {"mask": np.ones((B, 1, 1, T))}, ()),
            ("a mask of the wrong shape", {"mask": np.ones((T + 1, T), dtype=bool)}, ()),
            ("a mask that with the causal mask leaves a query no key",
             {"mask": np.array([False, True, True])}, ()),
            ("a string", {"mask": "padding"}, ())]),
    "implementations.language.transformer.TinyGPT": Example(
        build=lambda: (transformer.TinyGPT,
                       {"vocab_size": V, "block_size": BLOCK, "d_model": D, "num_heads": HEADS, "num_layers": 1,
                        "d_ff": D_FF, "rng": rng(), "tie_weights": True, "dropout": 0.1,
                        "scale_residual_init": True}),
        roles={"vocab_size": "count", "block_size": "count", "d_model": "count", "num_heads": "count",
               "num_layers": "count", "d_ff": "count", "rng": "rng", "tie_weights": "flag", "dropout": "prob",
               "scale_residual_init": "flag"},
        extra=[("a num_heads that does not divide d_model", {"num_heads": 3}, ()),
               ("a dropout of 1", {"dropout": 1.0}, ())]),
    "implementations.language.transformer.TinyGPT.weight_matrices": Example(build=lambda: (gpt().weight_matrices, {})),
    "implementations.language.transformer.TinyGPT.forward": Example(
        build=lambda: (gpt().forward, {"idx": IDS, "return_weights": True}),
        roles={"idx": f"ids:{V}", "return_weights": "flag"},
        extra=_IDS_EXTRAS + [("sequences longer than block_size", {"idx": np.zeros((B, BLOCK + 1), dtype=int)}, ())]),
    "implementations.language.transformer.TinyGPT.forward_incremental": Example(
        build=lambda: (gpt().forward_incremental, {"idx": IDS, "prompt_length": 2}),
        roles={"idx": f"ids:{V}", "prompt_length": "count"},
        extra=_IDS_EXTRAS + [("sequences longer than block_size", {"idx": np.zeros((B, BLOCK + 1), dtype=int)}, ()),
                             ("a prompt_length above the length of idx", {"prompt_length": T + 1}, ()),
                             ("a prompt_length of True", {"prompt_length": True}, ())]),
    "implementations.language.transformer.TinyGPT.loss": Example(
        build=lambda: (gpt().loss, {"idx": IDS, "targets": TARGETS, "ignore_index": None}),
        roles={"idx": f"ids:{V}", "targets": f"labels:{V}:idx"},
        extra=_IDS_EXTRAS + [
            ("a target V beside ignore_index = -1",
             {"targets": np.where(np.arange(T) == 0, V, np.where(np.arange(T) == 1, -1, TARGETS)),
              "ignore_index": -1}, ()),
            ("a target -2 beside ignore_index = -1", {"targets": np.full((B, T), -2), "ignore_index": -1}, ()),
            ("a fractional ignore_index", {"ignore_index": 1.5}, ()),
            ("a string ignore_index", {"ignore_index": "pad"}, ()),
            ("targets of another length", {"targets": TARGETS[:, :-1]}, ())]),
    "implementations.language.transformer.TinyGPT.generate": Example(
        build=lambda: (gpt().generate,
                       {"idx": IDS, "max_new_tokens": 3, "rng": rng(), "temperature": 0.8, "top_k": 3,
                        "use_cache": True}),
        roles={"idx": f"ids:{V}", "max_new_tokens": "count0", "rng": "rng", "temperature": "rate",
               "top_k": "count?", "use_cache": "flag"},
        extra=_IDS_EXTRAS[:4] + [("a top_k above vocab_size", {"top_k": V + 1}, ()),
                                 ("a top_k of True", {"top_k": True}, ())]),
}
