"""Valid examples for the input contract: sequence (chapter 6's recurrent networks)."""

import math

import numpy as np

from contract import Example
from implementations import sequence
from implementations.engine.autograd import Tensor
from implementations.nn.module import parameter_count

B, T, D, H = 2, 5, 3, 4
_rng = np.random.default_rng(0)
X = _rng.normal(size=(B, T, D))  # (B, T, D)
H0 = _rng.normal(size=(B, H))  # (B, H)
LENGTHS = np.array([5, 3])  # (B,): 1 <= length <= T
W_XH, W_HH, B_H = _rng.normal(size=(D, H)) / 2, _rng.normal(size=(H, H)) / 2, _rng.normal(size=H)
DL_DOUT = _rng.normal(size=(B, T, H))  # (B, T, H)
L = 2
H0_STACKED = _rng.normal(size=(L, B, 2 * H))  # (L, B, W): a 2-layer bidirectional cell's state, W = 2H


def rng():
    return np.random.default_rng(0)


def _with_nan(value):
    value = np.array(value, dtype=float)
    value.flat[0] = math.nan
    return value


# bad inputs shared by the three cells' forward passes (roles cover strings, ragged lists, NaN, inf, 4-D, no rows)
_X_EXTRAS = [
    ("a single sequence (T, D) without the batch axis", {"x": X[0]}, ()),
    ("the wrong number of features", {"x": np.zeros((B, T, D + 1))}, ()),
    ("a Tensor of the wrong number of features", {"x": Tensor(np.zeros((B, T, D + 2)))}, ()),
    ("no time steps", {"x": X[:, :0]}, ()),
    ("a single number", {"x": 1.0}, ()),
]
_LENGTHS_EXTRAS = [
    ("a length 0", {"lengths": np.array([5, 0])}, ()),
    ("one length per sequence too many", {"lengths": np.array([5, 3, 2])}, ()),
    ("a NaN length", {"lengths": np.array([5.0, math.nan])}, ()),
    ("a (B, 1) column of lengths", {"lengths": LENGTHS[:, None]}, ()),
]
_H0_EXTRAS = [
    ("a state of shape (H,), not one per sequence", {"h0": H0[0]}, ()),
    ("a state of the wrong width", {"h0": np.zeros((B, H + 1))}, ()),
    ("a state for another batch size", {"h0": np.zeros((B + 1, H))}, ()),
]

# bad inputs shared by the three cells' steps (each example's cell has two layers and both directions)
_STEP_EXTRAS = [
    ("a state of the wrong width", {"h": np.zeros((B, H + 1))}, ()),
    ("a state for another batch size", {"h": np.zeros((B + 1, H))}, ()),
    ("a state of shape (H,), not one per sequence", {"h": H0[0]}, ()),
    ("x_t of shape (D,), not one row per sequence", {"x_t": X[0, 0]}, ()),
    ("a parameter set the cell does not have", {"suffix": "_l3"}, ()),
    ("a layer number instead of a suffix", {"suffix": 2}, ()),
    ("layer 2's set, which reads W = 2H features, for x_t of D", {"suffix": "_l2"}, ()),
]

EXAMPLES = {
    "implementations.nn.module.parameter_count": Example(
        build=lambda: (parameter_count, {"module": sequence.RNN(D, H, rng=rng())}),
        extra=[("a list of arrays", {"module": [np.zeros(3)]}, ()), ("a string", {"module": "rnn"}, ()),
               ("None", {"module": None}, ())]),
    "implementations.sequence.recurrent.RNN": Example(
        build=lambda: (sequence.RNN, {"input_size": D, "hidden_size": H, "rng": rng(), "num_layers": L,
                                      "bidirectional": True, "fast": True}),
        roles={"input_size": "count", "hidden_size": "count", "rng": "rng", "num_layers": "count",
               "bidirectional": "flag", "fast": "flag"},
        extra=[("True", {"num_layers": True}, ())]),
    "implementations.sequence.recurrent.RNN.step": Example(
        build=lambda: (sequence.RNN(D, H, rng=rng(), num_layers=L, bidirectional=True).step,
                       {"x_t": X[:, 0], "h": H0, "suffix": "_rev"}),
        roles={"x_t": "tensor", "h": "tensor"},
        extra=_STEP_EXTRAS),
    "implementations.sequence.recurrent.RNN.forward": Example(
        build=lambda: (sequence.RNN(D, H, rng=rng()).forward, {"x": X, "h0": H0, "lengths": LENGTHS}),
        roles={"x": "array", "h0": "array", "lengths": f"ids:{T + 1}"},
        extra=_X_EXTRAS + _LENGTHS_EXTRAS + _H0_EXTRAS),
    "implementations.sequence.recurrent.LSTM": Example(
        build=lambda: (sequence.LSTM, {"input_size": D, "hidden_size": H, "rng": rng(), "forget_bias": 2.0,
                                       "num_layers": L, "bidirectional": True, "fast": False}),
        roles={"input_size": "count", "hidden_size": "count", "rng": "rng", "forget_bias": "scalar",
               "num_layers": "count", "bidirectional": "flag", "fast": "flag"},
        extra=[("True", {"num_layers": True}, ())]),
    "implementations.sequence.recurrent.LSTM.step": Example(
        build=lambda: (sequence.LSTM(D, H, rng=rng(), num_layers=L, bidirectional=True).step,
                       {"x_t": X[:, 0], "h": H0, "c": H0 / 2, "suffix": "_rev", "return_gates": True}),
        roles={"x_t": "tensor", "h": "tensor", "c": "tensor", "return_gates": "flag"},
        extra=_STEP_EXTRAS + [("a cell of the wrong width", {"c": np.zeros((B, H + 1))}, ())]),
    "implementations.sequence.recurrent.LSTM.forward": Example(
        build=lambda: (sequence.LSTM(D, H, rng=rng()).forward,
                       {"x": X, "state": (H0, H0 / 2), "lengths": LENGTHS, "return_gates": True}),
        roles={"x": "array", "lengths": f"ids:{T + 1}", "return_gates": "flag"},
        extra=_X_EXTRAS + _LENGTHS_EXTRAS + [
            ("one (B, H) array instead of (h0, c0), with B = 2", {"state": H0}, ()),
            ("a Tensor instead of (h0, c0)", {"state": Tensor(H0)}, ()),
            ("three arrays", {"state": (H0, H0, H0)}, ()),
            ("a string", {"state": "zeros"}, ()),
            ("c0 of the wrong width", {"state": (H0, np.zeros((B, H + 1)))}, ()),
            ("h0 of shape (H,)", {"state": (H0[0], H0)}, ()),
            ("a NaN in h0", {"state": (_with_nan(H0), H0)}, ()),
            ("an inf in c0", {"state": (H0, np.full((B, H), math.inf))}, ()),
            ("a string as c0", {"state": (H0, "zeros")}, ()),
        ]),
    "implementations.sequence.recurrent.GRU": Example(
        build=lambda: (sequence.GRU, {"input_size": D, "hidden_size": H, "rng": rng(), "num_layers": L,
                                      "bidirectional": True, "fast": True}),
        roles={"input_size": "count", "hidden_size": "count", "rng": "rng", "num_layers": "count",
               "bidirectional": "flag", "fast": "flag"},
        extra=[("True", {"num_layers": True}, ())]),
    "implementations.sequence.recurrent.GRU.step": Example(
        build=lambda: (sequence.GRU(D, H, rng=rng(), num_layers=L, bidirectional=True).step,
                       {"x_t": X[:, 0], "h": H0, "suffix": "_rev", "return_gates": True}),
        roles={"x_t": "tensor", "h": "tensor", "return_gates": "flag"},
        extra=_STEP_EXTRAS),
    # RNN.forward and LSTM.forward are checked on the default cell (states (B, H)), GRU.forward on a stacked
    # bidirectional one (states (L, B, 2H)): the three share the code that checks x, lengths and the states
    "implementations.sequence.recurrent.GRU.forward": Example(
        build=lambda: (sequence.GRU(D, H, rng=rng(), num_layers=L, bidirectional=True).forward,
                       {"x": X, "h0": H0_STACKED, "lengths": LENGTHS, "return_gates": True}),
        roles={"x": "array", "h0": "array", "lengths": f"ids:{T + 1}", "return_gates": "flag"},
        extra=_X_EXTRAS + _LENGTHS_EXTRAS + _H0_EXTRAS + [
            ("a single layer's state (B, 2H)", {"h0": H0_STACKED[0]}, ()),
            ("one direction's states (L, B, H)", {"h0": H0_STACKED[..., :H]}, ()),
            ("PyTorch's layout (L * 2, B, H)", {"h0": np.zeros((2 * L, B, H))}, ()),
            ("a state for another number of layers", {"h0": np.zeros((L + 1, B, 2 * H))}, ()),
        ]),
    "implementations.sequence.recurrent.chrono_init": Example(
        build=lambda: (sequence.chrono_init, {"lstm": sequence.LSTM(D, H, rng=rng()), "max_lag": 10, "rng": rng()}),
        roles={"max_lag": "rate", "rng": "rng"},
        extra=[("a max_lag of 2", {"max_lag": 2}, ()), ("a GRU", {"lstm": sequence.GRU(D, H, rng=rng())}, ()),
               ("a string", {"lstm": "lstm"}, ())]),
    "implementations.sequence.recurrent.rnn_bptt": Example(
        build=lambda: (sequence.rnn_bptt,
                       {"x": X, "h0": H0, "W_xh": W_XH, "W_hh": W_HH, "b_h": B_H, "dL_dout": DL_DOUT}),
        roles={"x": "array", "h0": "array", "W_xh": "array", "W_hh": "array", "b_h": "array",
               "dL_dout": "aligned:x"},
        extra=[("a single sequence (T, D)", {"x": X[0]}, ()),
               ("no time steps", {"x": X[:, :0]}, ()),
               ("a non-square W_hh", {"W_hh": np.zeros((H, H + 1))}, ()),
               ("W_xh for another input width", {"W_xh": np.zeros((D + 1, H))}, ()),
               ("W_xh for another hidden width", {"W_xh": np.zeros((D, H + 1))}, ()),
               ("b_h of the wrong length", {"b_h": np.zeros(H + 1)}, ()),
               ("h0 for another batch size", {"h0": np.zeros((B + 1, H))}, ()),
               ("dL_dout of the wrong width", {"dL_dout": np.zeros((B, T, H + 1))}, ()),
               ("dL_dout for fewer steps", {"dL_dout": DL_DOUT[:, :-1]}, ())]),
}
