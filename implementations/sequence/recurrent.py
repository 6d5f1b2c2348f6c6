"""Recurrent networks on the autograd engine: RNN, LSTM and GRU, each optionally stacked and bidirectional.

Chapter 6 of the book. Batches are batch first: ``x`` has shape (B, T, D) for B sequences of T steps
with D features each (a NumPy array or a Tensor). ``lengths`` (B,) marks padded batches: step t of
sequence b is real when t < lengths[b]. Past its length a sequence's outputs are zero and its state is
frozen, so the final state is the one at the sequence's own last step.

``RNN`` builds its loop over time from engine operations: the input part of every step, x_t W_xh + b_h, is
one matrix product before the loop, and each step reads its slice with a gradient that the engine writes
in place (see ``autograd._IndexedGrad``), so the backward pass stays O(T). ``LSTM`` and ``GRU`` run their
loop over time in NumPy as a single node of the graph (``_lstm_loop``, ``_gru_loop``), with the backward
pass through it written out (``_lstm_backward``, ``_gru_backward``): built from engine operations, each of their
steps would add about fifteen nodes, whose bookkeeping costs more than the arithmetic on matrices this small.
These loops, and the base class ``_Recurrent`` that runs the layers and directions below, are in the private
module ``_recurrent_loops``.

Layers and directions, the same for the three cells. ``num_layers=L`` stacks L layers: layer l ≥ 2 reads the
outputs of layer l − 1. ``bidirectional=True`` gives every layer a second parameter set, suffix ``_rev``, that
reads each sequence backwards within its own length; its outputs follow the forward ones at every step, so a
layer outputs W = 2H numbers per step (W = H otherwise; ``cell.width``). Layer 1's parameters keep the names of
the equations (``W_xh``, ``W_f``, ...); layer l ≥ 2 adds ``_l<l>`` before any ``_rev`` (``W_xh_l2``,
``W_f_l2_rev``), and its input weights have W rows for x where layer 1's have D. A state, initial or final, is
(B, W) for one layer and (L, B, W) for L layers, state[l] being layer l + 1's, forward half first. PyTorch puts
the directions on the first axis instead, (2L, B, H): its h_n is
``h.reshape(L, B, 2, H).transpose(0, 2, 1, 3).reshape(2 * L, B, H)``.
"""

import numpy as np

from .._validation import (
    as_array,
    check_finite_number,
    check_finite_values,
    check_flag,
    check_rng,
)
from ..engine.autograd import Tensor, _tensor_argument
from ..engine.functional import concatenate, stack, where
from ._loops import _gru_loop, _lstm_loop, _Recurrent

__all__ = ["RNN", "LSTM", "GRU", "chrono_init", "rnn_bptt"]


def _uniform(rng, shape, hidden_size):
    """U(−1/√H, 1/√H), the initialization PyTorch uses for recurrent layers."""
    bound = 1.0 / np.sqrt(hidden_size)
    return Tensor(rng.uniform(-bound, bound, size=shape), requires_grad=True)


def _check_input(x, input_size, lengths):
    """x as a Tensor of shape (B, T, D) and, if given, lengths as ints in 1..T; plus the (B, T) mask.

    Once per call of a cell: a Tensor costs O(1) checks; other data are converted and checked for NaN and inf once.
    """
    x = _tensor_argument(x, "x")
    if x.ndim != 3:
        hint = " For a single sequence use x[None]." if x.ndim == 2 else ""
        raise ValueError(f"x must have shape (B, T, {input_size}) (batch, time, features); received {x.shape}.{hint}")
    if x.shape[2] != input_size:
        raise ValueError(f"x must have {input_size} entries along its last axis (the cell's input_size, D); received "
                         f"shape {x.shape}. Build the cell with input_size={x.shape[2]}, or pass {input_size} "
                         "features per step.")
    B, T, _ = x.shape
    if B == 0 or T == 0:
        raise ValueError(f"x is empty (shape {x.shape}); expected at least one sequence (B >= 1) of at least one "
                         "step (T >= 1).")
    if lengths is None:
        return x, None, None
    lengths = _check_lengths(lengths, B, T)
    valid = np.arange(T)[None, :] < lengths[:, None]  # (B, T): True at real steps
    return x, lengths, valid


def _check_lengths(lengths, B, T):
    """The lengths of a padded batch: B integers in 1..T, as int64."""
    values = as_array(lengths, "lengths")
    if values.shape != (B,):
        raise ValueError(f"lengths must hold one length per sequence of x, shape ({B},); received shape "
                         f"{values.shape}.")
    check_finite_values(values, "lengths")
    if not np.all(values == np.round(values)) or values.min() < 1 or values.max() > T:
        shown = "[" + ", ".join(f"{v:g}" for v in values[:10]) + (", …]" if B > 10 else "]")
        raise ValueError(f"lengths must be {B} integers between 1 and T = {T}, one per sequence; received {shown}. "
                         "A sequence's length counts its real steps, padding excluded.")
    return values.astype(np.int64)


def _freeze_past_end(valid, t, new, old):
    """The state after step t: ``new`` for sequences still running, ``old`` for those already ended."""
    return new if valid is None else where(valid[:, t : t + 1], new, old)


def _output(valid, states):
    """The outputs (B, T, H): the states, with zeros at the steps past each sequence's end (padding)."""
    return states if valid is None else states * valid[:, :, None]


class RNN(_Recurrent):
    """Elman recurrent network, eq. (6.1): h_t = tanh(x_t W_xh + h_{t−1} W_hh + b_h).

    Parameters
    ----------
    input_size, hidden_size : int
        D and H.
    rng : numpy.random.Generator
        Weights ~ U(−1/√H, 1/√H); biases start at 0.
    num_layers : int, default 1
        L layers, each reading the outputs of the one before; layer l ≥ 2's parameters end in ``_l<l>``.
    bidirectional : bool, default False
        Add to every layer a second set of parameters (suffix ``_rev``) that reads each sequence backwards within
        its length; its outputs are concatenated after the forward ones at every step (W = 2H).
    """

    def __init__(self, input_size, hidden_size, *, rng, num_layers=1, bidirectional=False):
        rng = self._setup(input_size, hidden_size, rng, num_layers, bidirectional)
        H = self.hidden_size
        for D, suffix in self._parameter_sets():  # D: the layer's input width
            setattr(self, "W_xh" + suffix, _uniform(rng, (D, H), H))  # (D, H)
            setattr(self, "W_hh" + suffix, _uniform(rng, (H, H), H))  # (H, H)
            setattr(self, "b_h" + suffix, Tensor(np.zeros(H), requires_grad=True))  # (H,)

    def _run(self, x, h, valid, W_xh, W_hh, b_h):
        """One direction: outputs (B, T, H) and the final state (B, H)."""
        x_proj = x @ W_xh + b_h  # (B, T, H): input part of all steps in one product
        states = []
        for t in range(x.shape[1]):
            h_new = (x_proj[:, t] + h @ W_hh).tanh()  # (B, H), eq. (6.1)
            h = _freeze_past_end(valid, t, h_new, h)
            states.append(h)
        return _output(valid, stack(states, axis=1)), h

    def forward(self, x, h0=None, *, lengths=None):
        """Run over the sequences.

        Parameters
        ----------
        x : array_like or Tensor of shape (B, T, D)
        h0 : array_like or Tensor of shape (B, W), or (L, B, W) if num_layers = L > 1; zeros by default
            W = H, or 2H if bidirectional (forward half first); h0[l] starts layer l + 1.
        lengths : array_like of int, shape (B,), optional

        Returns
        -------
        outputs : Tensor of shape (B, T, W), the last layer's
        h_T : Tensor of shape (B, W), or (L, B, W): the state after each sequence's last real step
        """
        x, lengths, valid = _check_input(x, self.input_size, lengths)
        h0 = self._initial_state(h0, x.shape[0], "h0")

        def run(x, states, suffix):  # one layer in one direction
            params = (getattr(self, name + suffix) for name in ("W_xh", "W_hh", "b_h"))
            outputs, h_T = self._run(x, states[0], valid, *params)
            return outputs, (h_T,), None

        outputs, (h_T,), _ = self._run_layers(x, lengths, (h0,), run)
        return outputs, h_T


class LSTM(_Recurrent):
    """Long short-term memory, eq. (6.4), with the gates acting on [h_{t−1}, x_t] (h first, then x).

    f = sigm([h, x] W_f + b_f), i = sigm([h, x] W_i + b_i), c̃ = tanh([h, x] W_c + b_c), o = sigm([h, x] W_o + b_o),
    c_t = f ⊙ c_{t−1} + i ⊙ c̃,  h_t = o ⊙ tanh(c_t).

    Each W is (H + D, H): rows 0..H−1 multiply h, rows H.. multiply x (H + W rows in layers l ≥ 2). Internally the
    four gates are computed with one fused product, and the loop over time is one node of the engine's graph with
    its backward pass written out (``_lstm_loop``, ``_lstm_backward``). Weights ~ U(−1/√H, 1/√H); biases start at
    0 except the forget gate's, which starts at ``forget_bias`` so that the cell remembers by default early in
    training: with f ≈ sigm(b_f) a stored value decays like sigm(b_f)^k over k steps (half-life ≈ 2 steps for
    b_f = 1, 5 for 2).

    Parameters
    ----------
    input_size, hidden_size : int
        D and H.
    rng : numpy.random.Generator
    forget_bias : float, default 1.0
        Initial value of every entry of ``b_f`` (and of every layer's and direction's forget bias).
    num_layers : int, default 1
        L layers, each reading the outputs of the one before; layer l ≥ 2's parameters end in ``_l<l>``.
    bidirectional : bool, default False
        Add to every layer a second set of parameters (suffix ``_rev``) that reads each sequence backwards within
        its length; its outputs are concatenated after the forward ones at every step (W = 2H).
    """

    GATES = ("f", "i", "c", "o")

    def __init__(self, input_size, hidden_size, *, rng, forget_bias=1.0, num_layers=1, bidirectional=False):
        rng = self._setup(input_size, hidden_size, rng, num_layers, bidirectional)
        forget_bias = check_finite_number(forget_bias, "forget_bias")  # 1 or 2 are usual
        H = self.hidden_size
        for D, suffix in self._parameter_sets():  # D: the layer's input width
            for gate in self.GATES:
                setattr(self, f"W_{gate}{suffix}", _uniform(rng, (H + D, H), H))
            for gate in self.GATES:
                b = np.full(H, forget_bias if gate == "f" else 0.0)
                setattr(self, f"b_{gate}{suffix}", Tensor(b, requires_grad=True))

    def forward(self, x, state=None, *, lengths=None, return_gates=False):
        """Run over the sequences.

        Parameters
        ----------
        x : array_like or Tensor of shape (B, T, D)
        state : tuple (h0, c0), optional; zeros by default
            Each of shape (B, W), or (L, B, W) if num_layers = L > 1; W = H, or 2H if bidirectional (forward half
            first); h0[l] and c0[l] start layer l + 1.
        lengths : array_like of int, shape (B,), optional
        return_gates : bool, default False
            Also return the gate activations {"f", "i", "o"}: arrays of shape (B, T, W), or (L, B, T, W), for
            plotting.

        Returns
        -------
        outputs : Tensor of shape (B, T, W), the last layer's
        (h_T, c_T) : Tensors of shape (B, W), or (L, B, W)
        gates : dict of str -> ndarray, only if ``return_gates``
        """
        x, lengths, valid = _check_input(x, self.input_size, lengths)
        B = x.shape[0]
        return_gates = check_flag(return_gates, "return_gates")
        if state is not None and not (isinstance(state, (tuple, list)) and len(state) == 2):
            shape = f" of shape {np.shape(state)}" if isinstance(state, (np.ndarray, Tensor)) else ""
            raise ValueError(f"state must be a tuple (h0, c0) of two arrays of shape {self._state_shape(B)}; "
                             f"received {type(state).__name__}{shape}. An LSTM carries two states: pass "
                             "state=(h0, c0), e.g. the second value returned by the previous call.")
        h0, c0 = (None, None) if state is None else state
        h0, c0 = self._initial_state(h0, B, "h0", argument="state"), self._initial_state(c0, B, "c0", argument="state")

        def run(x, states, suffix):  # one layer in one direction
            return self._direction(x, *states, valid, suffix, return_gates)

        outputs, state_T, gates = self._run_layers(x, lengths, (h0, c0), run)
        return (outputs, state_T, gates) if return_gates else (outputs, state_T)

    def _direction(self, x, h0, c0, valid, suffix, return_gates):
        """One layer in one direction: outputs (B, T, H), (h_T, c_T) of shape (B, H), the gates (B, T, H) or None."""
        H = self.hidden_size
        # fused: (H + D, 4H) and (4H,), the three sigmoid gates first
        W = concatenate([getattr(self, f"W_{gate}{suffix}") for gate in "fioc"], axis=1)
        b = concatenate([getattr(self, f"b_{gate}{suffix}") for gate in "fioc"], axis=0)
        hc, gates = _lstm_loop(x, W, b, h0, c0, valid)  # (B, T, 2H): [h_t, c_t] after every step
        outputs = _output(valid, hc[:, :, :H])  # (B, T, H)
        state_T = (hc[:, -1, :H], hc[:, -1, H:])  # frozen past the end: each sequence's last real step
        if not return_gates:
            return outputs, state_T, None
        return outputs, state_T, {name: np.stack([g[:, k * H : (k + 1) * H] for g in gates], axis=1)  # (B, T, H)
                                  for k, name in enumerate("fio")}


def chrono_init(lstm, max_lag, *, rng):
    """Set the LSTM's forget and input biases for memories of up to ``max_lag`` steps ("chrono" initialization).

    Tallec and Ollivier (2018): b_f = log(u) with u ~ U(1, max_lag − 1) for each unit, and b_i = −b_f. A unit
    with forget gate sigm(b_f) = u / (1 + u) keeps a stored value for about 1 + u steps, so the units start with
    memory time scales spread up to ``max_lag``, and each writes to its cell only when its input gate is
    pushed open. Changes ``lstm.b_f`` and ``lstm.b_i`` in place and returns ``lstm``; in a stacked or
    bidirectional LSTM every layer and direction gets its own draw, in the order of its parameters.

    Parameters
    ----------
    lstm : LSTM
    max_lag : float
        Longest dependency expected, in steps; greater than 2.
    rng : numpy.random.Generator
    """
    if not isinstance(lstm, LSTM):
        raise TypeError(f"lstm must be an LSTM (chrono_init sets its forget and input gates); received "
                        f"{type(lstm).__name__}.")
    max_lag = check_finite_number(max_lag, "max_lag")
    if max_lag <= 2:
        raise ValueError(f"max_lag must be a finite number of steps greater than 2; received {max_lag:g}. It is the "
                         "longest dependency expected, e.g. the length of the sequences.")
    rng = check_rng(rng)
    for _, suffix in lstm._parameter_sets():
        b_f = np.log(rng.uniform(1.0, max_lag - 1.0, size=lstm.hidden_size))  # (H,)
        getattr(lstm, "b_f" + suffix).data = b_f
        getattr(lstm, "b_i" + suffix).data = -b_f
    return lstm


class GRU(_Recurrent):
    """Gated recurrent unit, eq. (6.5), in the form of Chung et al. (2014) (reset gate before the product):

    z = sigm([h, x] W_z + b_z),  r = sigm([h, x] W_r + b_r),  h̃ = tanh([r ⊙ h, x] W_h + b_h),
    h_t = (1 − z) ⊙ h_{t−1} + z ⊙ h̃.

    PyTorch and cuDNN compute a variant: the reset gate multiplies the hidden part *after* its matrix
    product, tanh(x W + b + r ⊙ (h U + b')), and z weighs the old state, h_t = z ⊙ h_{t−1} + (1 − z) ⊙ h̃
    (the labelling of Cho et al., 2014).
    Each W is (H + D, H), h rows first (H + W rows in layers l ≥ 2). Weights ~ U(−1/√H, 1/√H); biases start at 0.
    As in :class:`LSTM`, the loop over time is one node of the graph (``_gru_loop``).

    Parameters
    ----------
    input_size, hidden_size : int
        D and H.
    rng : numpy.random.Generator
    num_layers : int, default 1
        L layers, each reading the outputs of the one before; layer l ≥ 2's parameters end in ``_l<l>``.
    bidirectional : bool, default False
        Add to every layer a second set of parameters (suffix ``_rev``) that reads each sequence backwards within
        its length; its outputs are concatenated after the forward ones at every step (W = 2H).
    """

    GATES = ("z", "r", "h")

    def __init__(self, input_size, hidden_size, *, rng, num_layers=1, bidirectional=False):
        rng = self._setup(input_size, hidden_size, rng, num_layers, bidirectional)
        H = self.hidden_size
        for D, suffix in self._parameter_sets():  # D: the layer's input width
            for gate in self.GATES:
                setattr(self, f"W_{gate}{suffix}", _uniform(rng, (H + D, H), H))
            for gate in self.GATES:
                setattr(self, f"b_{gate}{suffix}", Tensor(np.zeros(H), requires_grad=True))

    def forward(self, x, h0=None, *, lengths=None, return_gates=False):
        """Run over the sequences.

        Parameters
        ----------
        x : array_like or Tensor of shape (B, T, D)
        h0 : array_like or Tensor of shape (B, W), or (L, B, W) if num_layers = L > 1; zeros by default
            W = H, or 2H if bidirectional (forward half first); h0[l] starts layer l + 1.
        lengths : array_like of int, shape (B,), optional
        return_gates : bool, default False
            Also return the gates {"z", "r"}: arrays of shape (B, T, W), or (L, B, T, W).

        Returns
        -------
        outputs : Tensor of shape (B, T, W), the last layer's
        h_T : Tensor of shape (B, W), or (L, B, W)
        gates : dict of str -> ndarray, only if ``return_gates``
        """
        x, lengths, valid = _check_input(x, self.input_size, lengths)
        return_gates = check_flag(return_gates, "return_gates")
        h0 = self._initial_state(h0, x.shape[0], "h0")

        def run(x, states, suffix):  # one layer in one direction
            return self._direction(x, states[0], valid, suffix, return_gates)

        outputs, (h_T,), gates = self._run_layers(x, lengths, (h0,), run)
        return (outputs, h_T, gates) if return_gates else (outputs, h_T)

    def _direction(self, x, h0, valid, suffix, return_gates):
        """One layer in one direction: outputs (B, T, H), (h_T,) of shape (B, H), the gates (B, T, H) or None."""
        H = self.hidden_size
        W_zr = concatenate([getattr(self, "W_z" + suffix), getattr(self, "W_r" + suffix)], axis=1)  # (H + D, 2H)
        b_zr = concatenate([getattr(self, "b_z" + suffix), getattr(self, "b_r" + suffix)], axis=0)  # (2H,)
        W_h, b_h = getattr(self, "W_h" + suffix), getattr(self, "b_h" + suffix)
        hs, zrs = _gru_loop(x, W_zr, b_zr, W_h, b_h, h0, valid)  # (B, T, H): h_t after every step
        result = (_output(valid, hs), (hs[:, -1],))  # frozen past the end: h_T is each sequence's last real step
        if not return_gates:
            return (*result, None)
        return (*result, {"z": np.stack([zr[:, :H] for zr in zrs], axis=1),  # (B, T, H) each
                          "r": np.stack([zr[:, H:] for zr in zrs], axis=1)})


def _finite(a, name, axes):
    """``a`` as a finite float array with one axis per symbol in ``axes`` (e.g. ("B", "T", "D"))."""
    arr = as_array(a, name)
    if arr.ndim != len(axes):
        shape = f"({axes[0]},)" if len(axes) == 1 else f"({', '.join(axes)})"
        hint = f" For a single sequence use {name}[None]." if axes[:2] == ("B", "T") and arr.ndim == 2 else ""
        raise ValueError(f"{name} must be a {len(axes)}-D array {shape}; received shape {arr.shape}.{hint}")
    return check_finite_values(arr, name)


def _bptt_arrays(x, h0, W_xh, W_hh, b_h, dL_dout):
    """The arguments of :func:`rnn_bptt` as finite float arrays, each named when its shape does not fit.

    The sizes come from x (B, T, D) and W_hh (H, H); every other shape is compared with them.
    """
    x = _finite(x, "x", ("B", "T", "D"))
    if 0 in x.shape:
        raise ValueError(f"x is empty (shape {x.shape}); expected at least one sequence of at least one step with at "
                         "least one feature.")
    W_hh = _finite(W_hh, "W_hh", ("H", "H"))
    if W_hh.shape[0] != W_hh.shape[1] or W_hh.shape[0] == 0:
        raise ValueError(f"W_hh must be a square (H, H) matrix, H >= 1: it maps the state h_(t-1) to the next one; "
                         f"received shape {W_hh.shape}.")
    (B, T, D), H = x.shape, W_hh.shape[0]
    h0, W_xh = _finite(h0, "h0", ("B", "H")), _finite(W_xh, "W_xh", ("D", "H"))
    b_h, dL_dout = _finite(b_h, "b_h", ("H",)), _finite(dL_dout, "dL_dout", ("B", "T", "H"))
    expected = {"h0": (h0, (B, H), "one state per sequence of x"),
                "W_xh": (W_xh, (D, H), "the features of x by the width of W_hh"),
                "b_h": (b_h, (H,), "one bias per unit, the width of W_hh"),
                "dL_dout": (dL_dout, (B, T, H), "one gradient per output h_t, shaped like the outputs")}
    for name, (value, shape, what) in expected.items():
        if value.shape != shape:
            raise ValueError(f"{name} must have shape {shape} ({what}: x is (B, T, D) = {x.shape}, W_hh is (H, H) = "
                             f"{W_hh.shape}); received shape {value.shape}.")
    return x, h0, W_xh, W_hh, b_h, dL_dout


def rnn_bptt(x, h0, W_xh, W_hh, b_h, dL_dout):
    """Backpropagation through time, eq. (6.2), for the plain recurrent cell, by hand in NumPy.

    Parameters
    ----------
    x : ndarray of shape (B, T, D)
    h0 : ndarray of shape (B, H)
    W_xh : ndarray of shape (D, H)
    W_hh : ndarray of shape (H, H)
    b_h : ndarray of shape (H,)
    dL_dout : ndarray of shape (B, T, H)
        Gradient of the loss with respect to every output h_t (zero where the loss ignores a step).

    Returns
    -------
    grads : dict with keys ``W_xh``, ``W_hh``, ``b_h``, ``x``, ``h0``, each shaped like that argument
    """
    x, h0, W_xh, W_hh, b_h, dL_dout = _bptt_arrays(x, h0, W_xh, W_hh, b_h, dL_dout)
    T = x.shape[1]
    hs = [h0]  # forward pass, keeping every state
    for t in range(T):
        hs.append(np.tanh(x[:, t] @ W_xh + hs[-1] @ W_hh + b_h))  # (B, H)
    grads = {"W_xh": np.zeros_like(W_xh), "W_hh": np.zeros_like(W_hh),
             "b_h": np.zeros_like(b_h), "x": np.zeros_like(x)}
    dh_next = np.zeros_like(h0)  # (B, H): gradient reaching h_t from step t + 1
    for t in reversed(range(T)):
        dh = dL_dout[:, t] + dh_next  # (B, H): from the output at t and the future
        da = dh * (1.0 - hs[t + 1] ** 2)  # through tanh
        grads["W_xh"] += x[:, t].T @ da
        grads["W_hh"] += hs[t].T @ da
        grads["b_h"] += da.sum(axis=0)
        grads["x"][:, t] = da @ W_xh.T
        dh_next = da @ W_hh.T  # to h_{t−1}
    grads["h0"] = dh_next
    return grads
