"""The checks of the exercises of chapter 6, Sequence models: one per exercise, named after the reader's function."""

import numpy as np

from ...engine.autograd import no_grad
from ...sequence import recurrent as sequence
from ..exercises import check_function

__all__ = ["gru_step", "bptt_last", "reverse_within_length"]


def _gru_step_reference(x_t, h_prev, W_z, W_r, W_h, b_z, b_r, b_h):
    gru = sequence.GRU(x_t.shape[1], h_prev.shape[1], rng=np.random.default_rng(0))
    for name, value in zip(sequence.GRU.GATES, (W_z, W_r, W_h), strict=True):
        getattr(gru, f"W_{name}").data = value
    for name, value in zip(sequence.GRU.GATES, (b_z, b_r, b_h), strict=True):
        getattr(gru, f"b_{name}").data = value
    with no_grad():
        _, h_t = gru(x_t[:, None, :], h_prev)  # a sequence of one step
    return h_t.data


def _gru_inputs(rng, size):
    B, D, H = size, 3, 1 + size % 5
    weights, biases = rng.normal(size=(3, H + D, H)), rng.normal(size=(3, H))
    return (rng.normal(size=(B, D)), rng.normal(size=(B, H)), *weights, *biases)


def gru_step(candidate, *, rng):
    """``gru_step(x_t, h_prev, W_z, W_r, W_h, b_z, b_r, b_h)`` against one step of ``sequence.GRU``."""
    __tracebackhide__ = True
    check_function(candidate, _gru_step_reference, _gru_inputs, rng=rng)


def _bptt_last_reference(x, h0, W_xh, W_hh, b_h, y):
    h = h0
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ W_xh + h @ W_hh + b_h)
    dL_dout = np.zeros(x.shape[:2] + h0.shape[1:])  # (B, T, H): no loss before step T
    dL_dout[:, -1] = h - y  # ∂L/∂h_T for L = ½‖h_T − y‖²
    return sequence.rnn_bptt(x, h0, W_xh, W_hh, b_h, dL_dout)["W_hh"]


def _bptt_inputs(rng, size):
    B, T, D, H = 2, size, 3, 4
    x, h0 = rng.normal(size=(B, T, D)), rng.normal(size=(B, H))
    W_xh, W_hh = rng.normal(size=(D, H)) / 2, rng.normal(size=(H, H)) / 2
    return x, h0, W_xh, W_hh, rng.normal(size=H), rng.uniform(-1, 1, size=(B, H))


def bptt_last(candidate, *, rng):
    """``bptt_last(x, h0, W_xh, W_hh, b_h, y)`` against ``sequence.rnn_bptt``'s gradient for W_hh."""
    __tracebackhide__ = True
    check_function(candidate, _bptt_last_reference, _bptt_inputs, rng=rng)


def _reverse_with_a_loop(x, lengths):
    out = x.copy()
    for b, n in enumerate(lengths):
        out[b, :n] = x[b, :n][::-1]
    return out


def _padded_inputs(rng, size):
    B, T = 1 + size % 4, 1 + size
    lengths = rng.integers(1, T + 1, size=B)
    lengths[0] = T  # one full-length row, so an off-by-one at the end shows
    return rng.normal(size=(B, T, 2)), lengths


def reverse_within_length(candidate, *, rng):
    """``reverse_within_length(x, lengths)`` against a loop over the batch."""
    __tracebackhide__ = True
    check_function(candidate, _reverse_with_a_loop, _padded_inputs, rng=rng)
