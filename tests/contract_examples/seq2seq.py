"""Valid examples for the input contract: seq2seq (the encoder–decoder of chapters 6 and 7)."""

import math

import numpy as np

from contract import Example
from implementations.language import seq2seq
from implementations.language.attention import key_padding_mask

_rng = np.random.default_rng(0)
B, S, T, E, H = 2, 4, 3, 3, 4  # batch, source length, target length, embedding width, hidden size
V_SRC, V_TGT = 6, 5
SRC = _rng.integers(0, V_SRC, size=(B, S))  # (B, S)
TGT_IN = _rng.integers(0, V_TGT, size=(B, T))  # (B, T)
TGT_OUT = _rng.integers(0, V_TGT, size=(B, T))  # (B, T)
LENGTHS = np.array([S, 2])  # (B,)
Q, K, V = _rng.normal(size=(B, T, 3)), _rng.normal(size=(B, S, 2)), _rng.normal(size=(B, S, 4))  # d_q, d_k, d_v
W_Q, W_K, W = _rng.normal(size=(3, 5)), _rng.normal(size=(2, 5)), _rng.normal(size=5)  # A = 5


def rng():
    return np.random.default_rng(0)


def model():
    return seq2seq.Seq2Seq(V_SRC, V_TGT, E, H, rng=rng())


def _no_key_mask():
    mask = np.ones((T, S), dtype=bool)
    mask[1] = False
    return mask


_SRC_EXTRAS = [
    ("a single sequence (S,)", {"src": SRC[0]}, ()),
    ("one dimension more", {"src": SRC[None]}, ()),
    ("a NaN id", {"src": np.where(SRC == SRC[0, 0], math.nan, SRC)}, ()),
    ("a ragged list", {"src": [[1, 2, 3], [4, 5]]}, ()),
]
_LENGTHS_EXTRAS = [
    ("a length 0", {"src_lengths": np.array([S, 0])}, ()),
    ("one length per sequence too many", {"src_lengths": np.array([S, 2, 1])}, ()),
    ("a NaN length", {"src_lengths": np.array([S, math.nan])}, ()),
    ("a (B, 1) column of lengths", {"src_lengths": LENGTHS[:, None]}, ()),
]
_TGT_EXTRAS = [
    ("a single sequence (T,)", {"tgt_in": TGT_IN[0]}, ()),
    ("another number of sequences than src", {"tgt_in": TGT_IN[:1]}, ()),
    ("a NaN id", {"tgt_in": np.where(TGT_IN == TGT_IN[0, 0], math.nan, TGT_IN)}, ()),
]

EXAMPLES = {
    "implementations.language.seq2seq.additive_attention": Example(
        build=lambda: (seq2seq.additive_attention,
                       {"queries": Q, "keys": K, "values": V, "W_q": W_Q, "W_k": W_K, "w": W,
                        "mask": key_padding_mask(LENGTHS, S)}),
        roles={"queries": "array:any-nd", "keys": "array:any-nd", "values": "array:any-nd", "W_q": "array",
               "W_k": "array", "w": "array"},
        extra=[("a single query (d_q,)", {"queries": Q[0, 0]}, ()),
               ("queries of another width than W_q's rows", {"queries": Q[..., :2]}, ()),
               ("keys of another width than W_k's rows", {"keys": np.zeros((B, S, 3))}, ()),
               ("one value fewer than keys", {"values": V[:, :-1]}, ()),
               ("values of width 0", {"values": V[..., :0]}, ()),
               ("batch axes that do not broadcast", {"values": np.zeros((B + 1, S, 4))}, ()),
               ("W_k with other columns than W_q", {"W_k": np.zeros((2, 4))}, ()),
               ("W_q with no columns", {"W_q": np.zeros((3, 0))}, ()),
               ("w of another length than the columns of W_q", {"w": np.zeros(4)}, ()),
               ("a float mask", {"mask": np.ones((T, S))}, ()),
               ("a mask of the wrong shape", {"mask": np.ones((T + 1, S), dtype=bool)}, ()),
               ("a query that may attend to no key", {"mask": _no_key_mask()}, ()),
               ("a string", {"mask": "padding"}, ())]),
    "implementations.language.seq2seq.Seq2Seq": Example(
        build=lambda: (seq2seq.Seq2Seq,
                       {"src_vocab": V_SRC, "tgt_vocab": V_TGT, "embed_dim": E, "hidden_size": H, "rng": rng(),
                        "attention": True, "attention_size": 2}),
        roles={"src_vocab": "count", "tgt_vocab": "count", "embed_dim": "count", "hidden_size": "count",
               "rng": "rng", "attention": "flag", "attention_size": "count?"},
        extra=[("an attention_size without attention", {"attention_size": 3, "attention": False}, ())]),
    "implementations.language.seq2seq.Seq2Seq.forward": Example(
        build=lambda: (model().forward,
                       {"src": SRC, "tgt_in": TGT_IN, "src_lengths": LENGTHS, "return_weights": True}),
        roles={"src": f"ids:{V_SRC}", "tgt_in": f"ids:{V_TGT}", "src_lengths": f"ids:{S + 1}",
               "return_weights": "flag"},
        extra=_SRC_EXTRAS + _LENGTHS_EXTRAS + _TGT_EXTRAS),
    "implementations.language.seq2seq.Seq2Seq.loss": Example(
        build=lambda: (model().loss,
                       {"src": SRC, "tgt_in": TGT_IN, "tgt_out": TGT_OUT, "src_lengths": LENGTHS,
                        "ignore_index": None}),
        roles={"src": f"ids:{V_SRC}", "tgt_in": f"ids:{V_TGT}", "tgt_out": f"labels:{V_TGT}:tgt_in",
               "src_lengths": f"ids:{S + 1}"},
        extra=_SRC_EXTRAS + _LENGTHS_EXTRAS + _TGT_EXTRAS + [
            ("a target V beside ignore_index = -1",
             {"tgt_out": np.where(np.arange(T) == 0, V_TGT, np.where(np.arange(T) == 1, -1, TGT_OUT)),
              "ignore_index": -1}, ()),
            ("a target -2 beside ignore_index = -1", {"tgt_out": np.full((B, T), -2), "ignore_index": -1}, ()),
            ("targets of another length", {"tgt_out": TGT_OUT[:, :-1]}, ()),
            ("a fractional ignore_index", {"ignore_index": 1.5}, ()),
            ("a string ignore_index", {"ignore_index": "pad"}, ())]),
    "implementations.language.seq2seq.Seq2Seq.log_probs_fn": Example(
        build=lambda: (model().log_probs_fn, {"src": SRC[0]}),
        roles={"src": f"ids:{V_SRC}"},
        extra=[("a batch (B, S)", {"src": SRC}, ()), ("a NaN id", {"src": np.array([1.0, math.nan])}, ()),
               ("a single number", {"src": 3}, ())]),
    "implementations.language.seq2seq.Seq2Seq.greedy": Example(
        build=lambda: (model().greedy, {"src": SRC, "start_id": 0, "max_len": 3, "src_lengths": LENGTHS}),
        roles={"src": f"ids:{V_SRC}", "start_id": "count0", "max_len": "count", "src_lengths": f"ids:{S + 1}"},
        extra=_SRC_EXTRAS + _LENGTHS_EXTRAS + [("a start_id of tgt_vocab", {"start_id": V_TGT}, ()),
                                               ("a start_id of True", {"start_id": True}, ())]),
}
