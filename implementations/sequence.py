"""Recurrent networks on the autograd engine: RNN (optionally bidirectional), LSTM and GRU.

Chapter 6 of the book. Batches are batch first: ``x`` has shape (B, T, D) for B sequences of T steps
with D features each (a NumPy array or a Tensor). ``lengths`` (B,) marks padded batches: step t of
sequence b is real when t < lengths[b]. Past its length a sequence's outputs are zero and its state is
frozen, so the final state is the one at the sequence's own last step.

``RNN`` builds its loop over time from engine operations: the input part of every step, x_t W_xh + b_h, is
one matrix product before the loop, and each step reads its slice with a gradient that the engine writes
in place (see ``autograd._IndexedGrad``), so the backward pass stays O(T). ``LSTM`` and ``GRU`` run their
loop over time in NumPy as a single node of the graph (``_lstm_loop``, ``_gru_loop``), with the backward
pass through it written out (``_lstm_backward``, ``_gru_backward``): built from engine operations, each of
their steps would add about fifteen nodes, whose bookkeeping costs more than the arithmetic on matrices
this small.
"""

import numpy as np

from ._validation import (
    _describe,
    as_array,
    check_finite_number,
    check_finite_values,
    check_flag,
    check_positive_int,
    check_rng,
)
from .autograd import Tensor, _tensor_argument, concatenate, stack, where
from .nn import Module

__all__ = ["RNN", "LSTM", "GRU", "chrono_init", "rnn_bptt", "parameter_count"]


def parameter_count(module):
    """Number of trainable numbers (weights and biases) in ``module``.

    Parameters
    ----------
    module : Module
        A layer or a model (anything with a ``parameters()`` method that lists Tensors).
    """
    if not callable(getattr(module, "parameters", None)):
        raise TypeError(f"module must be a Module (a layer or a model with a parameters() method); received "
                        f"{_describe(module)}. Pass the model itself, e.g. parameter_count(model).")
    return int(sum(p.size for p in module.parameters()))


def _uniform(rng, shape, hidden_size):
    """U(−1/√H, 1/√H), the initialization PyTorch uses for recurrent layers."""
    bound = 1.0 / np.sqrt(hidden_size)
    return Tensor(rng.uniform(-bound, bound, size=shape), requires_grad=True)


def _sigmoid(a):
    """sigm(a) = 1 / (1 + e^(−a)), computed as (1 + tanh(a/2)) / 2, which never overflows."""
    return 0.5 + 0.5 * np.tanh(0.5 * a)


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


def _state_tensor(value, shape, name, *, argument=None):
    """An initial state as a Tensor of ``shape``: zeros if ``value`` is None, else ``value`` after a shape check.

    ``argument`` is the caller's argument that holds the state when it is not ``name`` itself (the LSTM's ``state``).
    """
    if value is None:
        return Tensor(np.zeros(shape))
    where = f" (in {argument})" if argument else ""
    value = _tensor_argument(value, name + where)
    if value.shape != shape:
        fix = f"Pass {argument}=(h0, c0) with" if argument else "Pass"
        raise ValueError(f"{name} must have shape {shape}; received {value.shape}. {fix} one state of the cell's "
                         f"width ({shape[1]}) per sequence of x ({shape[0]}).")
    return value


def _freeze_past_end(valid, t, new, old):
    """The state after step t: ``new`` for sequences still running, ``old`` for those already ended."""
    return new if valid is None else where(valid[:, t : t + 1], new, old)


def _output(valid, states):
    """The outputs (B, T, H): the states, with zeros at the steps past each sequence's end (padding)."""
    return states if valid is None else states * valid[:, :, None]


def _reverse_index(lengths, B, T):
    """Index (B, T) that reverses each sequence within its own length and leaves padding in place."""
    t = np.broadcast_to(np.arange(T), (B, T))
    if lengths is None:
        return t[:, ::-1].copy()
    return np.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)


class RNN(Module):
    """Elman recurrent network, eq. (6.1): h_t = tanh(x_t W_xh + h_{t−1} W_hh + b_h).

    Parameters
    ----------
    input_size, hidden_size : int
        D and H.
    rng : numpy.random.Generator
        Weights ~ U(−1/√H, 1/√H); biases start at 0.
    bidirectional : bool, default False
        Add a second set of parameters (suffix ``_rev``) that reads each sequence backwards; its outputs are
        concatenated after the forward ones at every step.
    """

    def __init__(self, input_size, hidden_size, *, rng, bidirectional=False):
        self.input_size = check_positive_int(input_size, "input_size")
        self.hidden_size = H = check_positive_int(hidden_size, "hidden_size")
        rng = check_rng(rng)
        self.bidirectional = check_flag(bidirectional, "bidirectional")
        self.W_xh = _uniform(rng, (self.input_size, H), H)  # (D, H)
        self.W_hh = _uniform(rng, (H, H), H)  # (H, H)
        self.b_h = Tensor(np.zeros(H), requires_grad=True)  # (H,)
        if self.bidirectional:
            self.W_xh_rev = _uniform(rng, (self.input_size, H), H)
            self.W_hh_rev = _uniform(rng, (H, H), H)
            self.b_h_rev = Tensor(np.zeros(H), requires_grad=True)

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
        h0 : array_like or Tensor of shape (B, H), or (B, 2H) if bidirectional; zeros by default
        lengths : array_like of int, shape (B,), optional

        Returns
        -------
        outputs : Tensor of shape (B, T, H), or (B, T, 2H) if bidirectional
        h_T : Tensor of shape (B, H), or (B, 2H): the state after each sequence's last real step
        """
        x, lengths, valid = _check_input(x, self.input_size, lengths)
        B, T, _ = x.shape
        H = self.hidden_size
        width = 2 * H if self.bidirectional else H
        h0 = _state_tensor(h0, (B, width), "h0")
        if not self.bidirectional:
            return self._run(x, h0, valid, self.W_xh, self.W_hh, self.b_h)
        out, h_T = self._run(x, h0[:, :H], valid, self.W_xh, self.W_hh, self.b_h)
        rev = _reverse_index(lengths, B, T)  # (B, T)
        rows = np.arange(B)[:, None]
        x_rev = x[rows, rev]  # each sequence read backwards within its length
        out_rev, h_rev = self._run(x_rev, h0[:, H:], valid, self.W_xh_rev, self.W_hh_rev, self.b_h_rev)
        out_rev = out_rev[rows, rev]  # back to the original time order
        return concatenate([out, out_rev], axis=2), concatenate([h_T, h_rev], axis=1)


class LSTM(Module):
    """Long short-term memory, eq. (6.4), with the gates acting on [h_{t−1}, x_t] (h first, then x).

    f = sigm([h, x] W_f + b_f), i = sigm([h, x] W_i + b_i), c̃ = tanh([h, x] W_c + b_c), o = sigm([h, x] W_o + b_o),
    c_t = f ⊙ c_{t−1} + i ⊙ c̃,  h_t = o ⊙ tanh(c_t).

    Each W is (H + D, H): rows 0..H−1 multiply h, rows H.. multiply x. Internally the four gates are
    computed with one fused product, and the loop over time is one node of the engine's graph with its
    backward pass written out (``_lstm_loop``, ``_lstm_backward``). Weights ~ U(−1/√H, 1/√H); biases start at 0
    except the forget gate's, which starts at ``forget_bias`` so that the cell remembers by default early in
    training: with f ≈ sigm(b_f) a stored value decays like sigm(b_f)^k over k steps (half-life ≈ 2 steps for
    b_f = 1, 5 for 2).

    Parameters
    ----------
    input_size, hidden_size : int
        D and H.
    rng : numpy.random.Generator
    forget_bias : float, default 1.0
        Initial value of every entry of ``b_f``.
    """

    GATES = ("f", "i", "c", "o")

    def __init__(self, input_size, hidden_size, *, rng, forget_bias=1.0):
        self.input_size = D = check_positive_int(input_size, "input_size")
        self.hidden_size = H = check_positive_int(hidden_size, "hidden_size")
        rng = check_rng(rng)
        forget_bias = check_finite_number(forget_bias, "forget_bias")  # 1 or 2 are usual
        for gate in self.GATES:
            setattr(self, f"W_{gate}", _uniform(rng, (H + D, H), H))
        for gate in self.GATES:
            setattr(self, f"b_{gate}", Tensor(np.full(H, forget_bias if gate == "f" else 0.0), requires_grad=True))

    def forward(self, x, state=None, *, lengths=None, return_gates=False):
        """Run over the sequences.

        Parameters
        ----------
        x : array_like or Tensor of shape (B, T, D)
        state : tuple (h0, c0) of shape (B, H) each, optional; zeros by default
        lengths : array_like of int, shape (B,), optional
        return_gates : bool, default False
            Also return the gate activations {"f", "i", "o"}: arrays of shape (B, T, H), for plotting.

        Returns
        -------
        outputs : Tensor of shape (B, T, H)
        (h_T, c_T) : Tensors of shape (B, H)
        gates : dict of str -> ndarray, only if ``return_gates``
        """
        x, _, valid = _check_input(x, self.input_size, lengths)
        B, H = x.shape[0], self.hidden_size
        return_gates = check_flag(return_gates, "return_gates")
        if state is not None and not (isinstance(state, (tuple, list)) and len(state) == 2):
            shape = f" of shape {np.shape(state)}" if isinstance(state, (np.ndarray, Tensor)) else ""
            raise ValueError(f"state must be a tuple (h0, c0) of two arrays of shape ({B}, {H}); "
                             f"received {type(state).__name__}{shape}. An LSTM carries two states: pass "
                             "state=(h0, c0), e.g. the second value returned by the previous call.")
        h0, c0 = (None, None) if state is None else state
        h0, c0 = _state_tensor(h0, (B, H), "h0", argument="state"), _state_tensor(c0, (B, H), "c0", argument="state")
        # fused: (H + D, 4H) and (4H,), the three sigmoid gates first
        W = concatenate([self.W_f, self.W_i, self.W_o, self.W_c], axis=1)
        b = concatenate([self.b_f, self.b_i, self.b_o, self.b_c], axis=0)
        hc, gates = _lstm_loop(x, W, b, h0, c0, valid)  # (B, T, 2H): [h_t, c_t] after every step
        outputs = _output(valid, hc[:, :, :H])  # (B, T, H)
        state_T = (hc[:, -1, :H], hc[:, -1, H:])  # frozen past the end: each sequence's last real step
        if return_gates:  # (B, T, H) each
            return outputs, state_T, {name: np.stack([g[:, k * H : (k + 1) * H] for g in gates], axis=1)
                                      for k, name in enumerate("fio")}
        return outputs, state_T


def _lstm_loop(x, W, b, h0, c0, valid):
    """The loop over time of :class:`LSTM` in NumPy, as one node of the graph whose backward is ``_lstm_backward``.

    Built from engine operations, every step would add about fifteen nodes to the graph (a product, slices,
    sigmoids, products of gates), whose bookkeeping costs more than the arithmetic on small matrices.

    Parameters
    ----------
    x : Tensor of shape (B, T, D)
    W : Tensor of shape (H + D, 4H)
        [W_f, W_i, W_o, W_c] side by side; rows 0..H−1 multiply h_{t−1}, rows H.. multiply x_t.
    b : Tensor of shape (4H,)
    h0, c0 : Tensor of shape (B, H)
    valid : ndarray of bool, shape (B, T), or None
        False past a sequence's end, where its state is frozen.

    Returns
    -------
    hc : Tensor of shape (B, T, 2H)
        [h_t, c_t] after every step.
    gates : list of T ndarrays of shape (B, 4H)
        f, i, o and c̃ at every step.
    """
    x_data, W_data, b_data, h, c = x.data, W.data, b.data, h0.data, c0.data
    B, T, H = x_data.shape[0], x_data.shape[1], h.shape[1]
    hc = np.empty((B, T, 2 * H))  # the node's value
    saved = []  # per step, what the backward pass needs: [h_{t−1}, x_t], c_{t−1}, the gates, tanh(c_t)
    for t in range(T):
        hx = np.concatenate([h, x_data[:, t]], axis=1)  # (B, H + D): [h_{t−1}, x_t]
        a = hx @ W_data + b_data  # (B, 4H): the pre-activations of all four gates in one product
        gates = np.concatenate([_sigmoid(a[:, : 3 * H]), np.tanh(a[:, 3 * H :])], axis=1)  # sigm for f, i, o
        f, i, o, c_tilde = gates[:, :H], gates[:, H : 2 * H], gates[:, 2 * H : 3 * H], gates[:, 3 * H :]
        c_new = f * c + i * c_tilde  # (B, H), eq. (6.4)
        tanh_c = np.tanh(c_new)
        h_new = o * tanh_c
        saved.append((hx, c, gates, tanh_c))
        if valid is not None:  # sequences past their end keep their state
            keep = valid[:, t : t + 1]
            h_new, c_new = np.where(keep, h_new, h), np.where(keep, c_new, c)
        h, c = h_new, c_new
        hc[:, t, :H], hc[:, t, H:] = h, c

    def backward(grad):
        return _lstm_backward(grad, saved, W_data, valid, x_bar_needed=x.requires_grad)

    node = Tensor._result(hc, (x, W, b, h0, c0), backward, "lstm")  # the engine's constructor of an op's output
    return node, [gates for _, _, gates, _ in saved]


def _lstm_backward(grad, saved, W, valid, *, x_bar_needed):
    """Backpropagation through time through the loop of ``_lstm_loop``, by hand, as :func:`rnn_bptt` for the RNN.

    Parameters
    ----------
    grad : ndarray of shape (B, T, 2H)
        ∂L/∂[h_t, c_t] from the layers that read the states.
    saved : list of T tuples
        ([h_{t−1}, x_t], c_{t−1}, gates, tanh(c_t)) of every step, from the forward pass.
    W : ndarray of shape (H + D, 4H)
    valid : ndarray of bool, shape (B, T), or None
    x_bar_needed : bool
        Compute the gradient of the inputs (False when they are data, not the output of a layer).

    Returns
    -------
    x_bar : ndarray of shape (B, T, D), or None
    W_bar : ndarray of shape (H + D, 4H)
    b_bar : ndarray of shape (4H,)
    h0_bar, c0_bar : ndarray of shape (B, H)
    """
    B, T, H = grad.shape[0], grad.shape[1], grad.shape[2] // 2
    W_bar, b_bar = np.zeros_like(W), np.zeros(4 * H)
    x_bar = np.zeros((B, T, W.shape[0] - H)) if x_bar_needed else None
    h_bar, c_bar = np.zeros((B, H)), np.zeros((B, H))  # what reaches h_t and c_t from step t + 1
    for t in reversed(range(T)):
        hx, c_prev, gates, tanh_c = saved[t]
        f, i, o, c_tilde = gates[:, :H], gates[:, H : 2 * H], gates[:, 2 * H : 3 * H], gates[:, 3 * H :]
        h_bar, c_bar = h_bar + grad[:, t, :H], c_bar + grad[:, t, H:]
        if valid is not None:  # past its end a sequence's state was copied: its gradient skips the step
            keep = valid[:, t : t + 1]
            h_skip, c_skip = h_bar * ~keep, c_bar * ~keep
            h_bar, c_bar = h_bar * keep, c_bar * keep
        c_bar = c_bar + h_bar * o * (1.0 - tanh_c**2)  # c_t also acts through h_t = o ⊙ tanh(c_t)
        gates_bar = np.concatenate([c_bar * c_prev, c_bar * c_tilde, h_bar * tanh_c, c_bar * i], axis=1)
        slope = gates * (1.0 - gates)  # sigm' = sigm(1 − sigm) for f, i, o ...
        slope[:, 3 * H :] = 1.0 - c_tilde**2  # ... and tanh' = 1 − tanh² for c̃
        a_bar = gates_bar * slope  # (B, 4H): gradient of the pre-activations
        W_bar += hx.T @ a_bar  # Σ_t [h_{t−1}, x_t]ᵀ ā_t
        b_bar += a_bar.sum(axis=0)
        hx_bar = a_bar @ W.T  # (B, H + D)
        if x_bar is not None:
            x_bar[:, t] = hx_bar[:, H:]
        h_bar, c_bar = hx_bar[:, :H], c_bar * f  # to h_{t−1} and c_{t−1}
        if valid is not None:
            h_bar, c_bar = h_bar + h_skip, c_bar + c_skip
    return x_bar, W_bar, b_bar, h_bar, c_bar


def chrono_init(lstm, max_lag, *, rng):
    """Set the LSTM's forget and input biases for memories of up to ``max_lag`` steps ("chrono" initialization).

    Tallec and Ollivier (2018): b_f = log(u) with u ~ U(1, max_lag − 1) for each unit, and b_i = −b_f. A unit
    with forget gate sigm(b_f) = u / (1 + u) keeps a stored value for about 1 + u steps, so the units start with
    memory time scales spread up to ``max_lag``, and each writes to its cell only when its input gate is
    pushed open. Changes ``lstm.b_f`` and ``lstm.b_i`` in place and returns ``lstm``.

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
    b_f = np.log(rng.uniform(1.0, max_lag - 1.0, size=lstm.hidden_size))  # (H,)
    lstm.b_f.data = b_f
    lstm.b_i.data = -b_f
    return lstm


class GRU(Module):
    """Gated recurrent unit, eq. (6.5), in the form of Chung et al. (2014) (reset gate before the product):

    z = sigm([h, x] W_z + b_z),  r = sigm([h, x] W_r + b_r),  h̃ = tanh([r ⊙ h, x] W_h + b_h),
    h_t = (1 − z) ⊙ h_{t−1} + z ⊙ h̃.

    PyTorch and cuDNN compute a variant: the reset gate multiplies the hidden part *after* its matrix
    product, tanh(x W + b + r ⊙ (h U + b')), and z weighs the old state, h_t = z ⊙ h_{t−1} + (1 − z) ⊙ h̃
    (the labelling of Cho et al., 2014).
    Each W is (H + D, H), h rows first. Weights ~ U(−1/√H, 1/√H); biases start at 0. As in :class:`LSTM`,
    the loop over time is one node of the graph (``_gru_loop``).
    """

    GATES = ("z", "r", "h")

    def __init__(self, input_size, hidden_size, *, rng):
        self.input_size = D = check_positive_int(input_size, "input_size")
        self.hidden_size = H = check_positive_int(hidden_size, "hidden_size")
        rng = check_rng(rng)
        for gate in self.GATES:
            setattr(self, f"W_{gate}", _uniform(rng, (H + D, H), H))
        for gate in self.GATES:
            setattr(self, f"b_{gate}", Tensor(np.zeros(H), requires_grad=True))

    def forward(self, x, h0=None, *, lengths=None, return_gates=False):
        """Run over the sequences; returns ``(outputs (B, T, H), h_T (B, H))``, plus the gates {"z", "r"} if asked."""
        x, _, valid = _check_input(x, self.input_size, lengths)
        B, H = x.shape[0], self.hidden_size
        return_gates = check_flag(return_gates, "return_gates")
        h0 = _state_tensor(h0, (B, H), "h0")
        W_zr = concatenate([self.W_z, self.W_r], axis=1)  # (H + D, 2H): both gates in one product
        b_zr = concatenate([self.b_z, self.b_r], axis=0)  # (2H,)
        hs, zrs = _gru_loop(x, W_zr, b_zr, self.W_h, self.b_h, h0, valid)  # (B, T, H): h_t after every step
        result = (_output(valid, hs), hs[:, -1])  # frozen past the end: h_T is each sequence's last real step
        if return_gates:  # (B, T, H) each
            return (*result, {"z": np.stack([zr[:, :H] for zr in zrs], axis=1),
                              "r": np.stack([zr[:, H:] for zr in zrs], axis=1)})
        return result


def _gru_loop(x, W_zr, b_zr, W_h, b_h, h0, valid):
    """The loop over time of :class:`GRU` in NumPy, as one node of the graph whose backward is ``_gru_backward``.

    Parameters
    ----------
    x : Tensor of shape (B, T, D)
    W_zr : Tensor of shape (H + D, 2H)
        [W_z, W_r] side by side; rows 0..H−1 multiply h_{t−1}, rows H.. multiply x_t.
    b_zr : Tensor of shape (2H,)
    W_h : Tensor of shape (H + D, H)
        Rows 0..H−1 multiply r ⊙ h_{t−1}, rows H.. multiply x_t.
    b_h : Tensor of shape (H,)
    h0 : Tensor of shape (B, H)
    valid : ndarray of bool, shape (B, T), or None
        False past a sequence's end, where its state is frozen.

    Returns
    -------
    hs : Tensor of shape (B, T, H)
        h_t after every step.
    zrs : list of T ndarrays of shape (B, 2H)
        z and r at every step.
    """
    x_data, W_zr_data, b_zr_data, W_h_data, b_h_data, h = x.data, W_zr.data, b_zr.data, W_h.data, b_h.data, h0.data
    B, T, H = x_data.shape[0], x_data.shape[1], h.shape[1]
    hs = np.empty((B, T, H))  # the node's value
    saved = []  # per step, what the backward pass needs: [h_{t−1}, x_t], [r ⊙ h_{t−1}, x_t], z and r, h̃
    for t in range(T):
        hx = np.concatenate([h, x_data[:, t]], axis=1)  # (B, H + D): [h_{t−1}, x_t]
        zr = _sigmoid(hx @ W_zr_data + b_zr_data)  # (B, 2H): both gates in one product
        z, r = zr[:, :H], zr[:, H:]
        rhx = np.concatenate([r * h, x_data[:, t]], axis=1)  # the reset gate acts on the state only
        h_tilde = np.tanh(rhx @ W_h_data + b_h_data)  # (B, H)
        h_new = (1.0 - z) * h + z * h_tilde  # eq. (6.5)
        saved.append((hx, rhx, zr, h_tilde))
        h = h_new if valid is None else np.where(valid[:, t : t + 1], h_new, h)  # frozen past the end
        hs[:, t] = h

    def backward(grad):
        return _gru_backward(grad, saved, W_zr_data, W_h_data, valid, x_bar_needed=x.requires_grad)

    node = Tensor._result(hs, (x, W_zr, b_zr, W_h, b_h, h0), backward, "gru")  # as in _lstm_loop
    return node, [zr for _, _, zr, _ in saved]


def _gru_backward(grad, saved, W_zr, W_h, valid, *, x_bar_needed):
    """Backpropagation through time through the loop of ``_gru_loop``, by hand, like ``_lstm_backward``.

    Parameters
    ----------
    grad : ndarray of shape (B, T, H)
        ∂L/∂h_t from the layers that read the states.
    saved : list of T tuples
        ([h_{t−1}, x_t], [r ⊙ h_{t−1}, x_t], [z, r], h̃) of every step, from the forward pass.
    W_zr : ndarray of shape (H + D, 2H)
    W_h : ndarray of shape (H + D, H)
    valid : ndarray of bool, shape (B, T), or None
    x_bar_needed : bool

    Returns
    -------
    x_bar : ndarray of shape (B, T, D), or None
    W_zr_bar, b_zr_bar, W_h_bar, b_h_bar : ndarrays of the shapes of W_zr, (2H,), W_h and (H,)
    h0_bar : ndarray of shape (B, H)
    """
    B, T, H = grad.shape
    W_zr_bar, b_zr_bar = np.zeros_like(W_zr), np.zeros(2 * H)
    W_h_bar, b_h_bar = np.zeros_like(W_h), np.zeros(H)
    x_bar = np.zeros((B, T, W_h.shape[0] - H)) if x_bar_needed else None
    h_bar = np.zeros((B, H))  # what reaches h_t from step t + 1
    for t in reversed(range(T)):
        hx, rhx, zr, h_tilde = saved[t]
        h_prev, z, r = hx[:, :H], zr[:, :H], zr[:, H:]
        h_bar = h_bar + grad[:, t]
        if valid is not None:  # past its end a sequence's state was copied: its gradient skips the step
            keep = valid[:, t : t + 1]
            h_skip, h_bar = h_bar * ~keep, h_bar * keep
        a_h_bar = h_bar * z * (1.0 - h_tilde**2)  # (B, H): through h̃ = tanh(·)
        rhx_bar = a_h_bar @ W_h.T  # (B, H + D)
        zr_bar = np.concatenate([h_bar * (h_tilde - h_prev), rhx_bar[:, :H] * h_prev], axis=1)  # ∂L/∂z, ∂L/∂r
        a_zr_bar = zr_bar * zr * (1.0 - zr)  # (B, 2H): sigm' = sigm(1 − sigm)
        W_h_bar += rhx.T @ a_h_bar
        b_h_bar += a_h_bar.sum(axis=0)
        W_zr_bar += hx.T @ a_zr_bar
        b_zr_bar += a_zr_bar.sum(axis=0)
        hx_bar = a_zr_bar @ W_zr.T  # (B, H + D)
        if x_bar is not None:
            x_bar[:, t] = hx_bar[:, H:] + rhx_bar[:, H:]
        # h_{t−1} acts on h_t directly, through the two gates and through r ⊙ h_{t−1}
        h_bar = h_bar * (1.0 - z) + hx_bar[:, :H] + rhx_bar[:, :H] * r
        if valid is not None:
            h_bar = h_bar + h_skip
    return x_bar, W_zr_bar, b_zr_bar, W_h_bar, b_h_bar, h_bar


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
