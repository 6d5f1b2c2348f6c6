"""Valid examples for the input contract: seq2seq_transformer (chapter 7's encoder–decoder transformer)."""

import math

import numpy as np

from contract import Example
from implementations.engine.autograd import Tensor
from implementations.language import seq2seq_transformer
from implementations.language.attention import key_padding_mask

_rng = np.random.default_rng(0)
B, S, T, D, HEADS, D_FF, BLOCK = 2, 4, 3, 4, 2, 6, 5  # batch, source and target lengths, widths, positions
V_SRC, V_TGT = 6, 5
SRC = _rng.integers(0, V_SRC, size=(B, S))  # (B, S)
TGT_IN = _rng.integers(0, V_TGT, size=(B, T))  # (B, T)
TGT_OUT = _rng.integers(0, V_TGT, size=(B, T))  # (B, T)
LENGTHS = np.array([S, 2])  # (B,)
X, MEMORY = _rng.normal(size=(B, T, D)), _rng.normal(size=(B, S, D))  # the decoder's stream, the encoder's output


def rng():
    return np.random.default_rng(0)


def model():
    return seq2seq_transformer.TransformerSeq2Seq(V_SRC, V_TGT, D, HEADS, 1, D_FF, block_size=BLOCK, rng=rng())


def block():
    return seq2seq_transformer.DecoderBlock(D, HEADS, D_FF, rng=rng())


_SRC_EXTRAS = [
    ("a single sequence (S,)", {"src": SRC[0]}, ()),
    ("one dimension more", {"src": SRC[None]}, ()),
    ("a NaN id", {"src": np.where(SRC == SRC[0, 0], math.nan, SRC)}, ()),
    ("a ragged list", {"src": [[1, 2, 3], [4, 5]]}, ()),
    ("sources longer than block_size", {"src": np.zeros((B, BLOCK + 1), dtype=int)}, ()),
]
_LENGTHS_EXTRAS = [
    ("a length 0", {"src_lengths": np.array([S, 0])}, ()),
    ("one length per sequence too many", {"src_lengths": np.array([S, 2, 1])}, ()),
    ("a NaN length", {"src_lengths": np.array([S, math.nan])}, ()),
]
_TGT_EXTRAS = [
    ("a single sequence (T,)", {"tgt_in": TGT_IN[0]}, ()),
    ("another number of sequences than src", {"tgt_in": TGT_IN[:1]}, ()),
    ("a NaN id", {"tgt_in": np.where(TGT_IN == TGT_IN[0, 0], math.nan, TGT_IN)}, ()),
    ("decoder inputs longer than block_size", {"tgt_in": np.zeros((B, BLOCK + 1), dtype=int)}, ()),
]

EXAMPLES = {
    "implementations.language.seq2seq_transformer.DecoderBlock": Example(
        build=lambda: (seq2seq_transformer.DecoderBlock,
                       {"d_model": D, "num_heads": HEADS, "d_ff": D_FF, "rng": rng(), "activation": "relu"}),
        roles={"d_model": "count", "num_heads": "count", "d_ff": "count", "rng": "rng"},
        extra=[("a num_heads that does not divide d_model", {"num_heads": 3}, ()),
               ("an unknown activation", {"activation": "tanh"}, ())]),
    "implementations.language.seq2seq_transformer.DecoderBlock.forward": Example(
        build=lambda: (block().forward, {"x": Tensor(X), "memory": Tensor(MEMORY),
                                         "memory_mask": key_padding_mask(LENGTHS, S)[:, None],
                                         "return_weights": True}),
        roles={"x": "tensor", "memory": "tensor", "return_weights": "flag"},
        extra=[("tokens of the wrong width", {"x": np.zeros((B, T, D + 1))}, ()),
               ("a memory of another width", {"memory": np.zeros((B, S, D + 1))}, ()),
               ("a memory for another batch size", {"memory": np.zeros((B + 1, S, D))}, ()),
               ("a single memory token (D,)", {"memory": MEMORY[0, 0]}, ()),
               ("a float mask", {"memory_mask": np.ones((B, 1, 1, S))}, ()),
               ("a (B, 1, S) mask that lines B up with the heads", {"memory_mask": np.ones((3, 1, S), dtype=bool)},
                ()),
               ("a query that may read no memory", {"memory_mask": np.zeros((B, 1, 1, S), dtype=bool)}, ()),
               ("a string mask", {"memory_mask": "padding"}, ())]),
    "implementations.language.seq2seq_transformer.TransformerSeq2Seq": Example(
        build=lambda: (seq2seq_transformer.TransformerSeq2Seq,
                       {"src_vocab": V_SRC, "tgt_vocab": V_TGT, "d_model": D, "num_heads": HEADS, "num_layers": 1,
                        "d_ff": D_FF, "block_size": BLOCK, "rng": rng()}),
        roles={"src_vocab": "count", "tgt_vocab": "count", "d_model": "count", "num_heads": "count",
               "num_layers": "count", "d_ff": "count", "block_size": "count", "rng": "rng"},
        extra=[("a num_heads that does not divide d_model", {"num_heads": 3}, ())]),
    "implementations.language.seq2seq_transformer.TransformerSeq2Seq.forward": Example(
        build=lambda: (model().forward,
                       {"src": SRC, "tgt_in": TGT_IN, "src_lengths": LENGTHS, "return_weights": True}),
        roles={"src": f"ids:{V_SRC}", "tgt_in": f"ids:{V_TGT}", "src_lengths": f"ids:{S + 1}",
               "return_weights": "flag"},
        extra=_SRC_EXTRAS + _LENGTHS_EXTRAS + _TGT_EXTRAS),
    "implementations.language.seq2seq_transformer.TransformerSeq2Seq.encode": Example(
        build=lambda: (model().encode, {"src": SRC, "src_lengths": LENGTHS}),
        roles={"src": f"ids:{V_SRC}", "src_lengths": f"ids:{S + 1}"},
        extra=_SRC_EXTRAS + _LENGTHS_EXTRAS),
    "implementations.language.seq2seq_transformer.TransformerSeq2Seq.decode": Example(
        build=lambda: (model().decode, {"tgt_in": TGT_IN, "memory": Tensor(MEMORY),
                                        "memory_mask": key_padding_mask(LENGTHS, S)[:, None]}),
        roles={"tgt_in": f"ids:{V_TGT}", "memory": "tensor"},
        extra=_TGT_EXTRAS[:1] + _TGT_EXTRAS[2:] + [
            ("a memory of another width", {"memory": np.zeros((B, S, D + 1))}, ()),
            ("a memory for another batch size", {"memory": np.zeros((B + 1, S, D))}, ()),
            ("a float mask", {"memory_mask": np.ones((B, 1, 1, S))}, ()),
            ("a mask for another source length", {"memory_mask": np.ones((B, 1, 1, S + 1), dtype=bool)}, ()),
            ("a query that may read no memory", {"memory_mask": np.zeros((B, 1, 1, S), dtype=bool)}, ())]),
    "implementations.language.seq2seq_transformer.TransformerSeq2Seq.loss": Example(
        build=lambda: (model().loss,
                       {"src": SRC, "tgt_in": TGT_IN, "tgt_out": TGT_OUT, "src_lengths": LENGTHS,
                        "ignore_index": None}),
        roles={"src": f"ids:{V_SRC}", "tgt_in": f"ids:{V_TGT}", "tgt_out": f"labels:{V_TGT}:tgt_in",
               "src_lengths": f"ids:{S + 1}"},
        extra=_SRC_EXTRAS + _LENGTHS_EXTRAS + _TGT_EXTRAS + [
            ("a target -2 beside ignore_index = -1", {"tgt_out": np.full((B, T), -2), "ignore_index": -1}, ()),
            ("targets of another length", {"tgt_out": TGT_OUT[:, :-1]}, ()),
            ("a fractional ignore_index", {"ignore_index": 1.5}, ())]),
    "implementations.language.seq2seq_transformer.TransformerSeq2Seq.log_probs_fn": Example(
        build=lambda: (model().log_probs_fn, {"src": SRC[0]}),
        roles={"src": f"ids:{V_SRC}"},
        extra=[("a batch (B, S)", {"src": SRC}, ()), ("a NaN id", {"src": np.array([1.0, math.nan])}, ()),
               ("a source longer than block_size", {"src": np.zeros(BLOCK + 1, dtype=int)}, ())]),
    "implementations.language.seq2seq_transformer.TransformerSeq2Seq.greedy": Example(
        build=lambda: (model().greedy, {"src": SRC, "start_id": 0, "max_len": 3, "src_lengths": LENGTHS}),
        roles={"src": f"ids:{V_SRC}", "start_id": "count0", "max_len": "count", "src_lengths": f"ids:{S + 1}"},
        extra=_SRC_EXTRAS + _LENGTHS_EXTRAS + [("a start_id of tgt_vocab", {"start_id": V_TGT}, ()),
                                               ("a max_len above block_size", {"max_len": BLOCK + 1}, ())]),
}
