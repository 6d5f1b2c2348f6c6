"""The fast path of chapter 6's recurrent layers: each cell's loop over time with fewer nodes in the autograd graph.

``_Recurrent._direction`` (in ``_layers``) calls the cell's ``_fast``, one of the three functions below, when the
cell's ``fast`` switch is on (the default); otherwise it runs the cell's ``step``, the equation on Tensors, at every
time step. The results are the same to round-off (``tests/test_sequence_fast_path.py``); only the work differs:

- ``_rnn_fast`` computes the input part of every step, x_t W_xh + b_h, in one matrix product before the loop;
- ``_lstm_fast`` and ``_gru_fast`` set the gates' matrices side by side, so that one product gives every gate, and run
  the loop over time in NumPy as *one* node of the graph (``_lstm_loop``, ``_gru_loop``), whose backward pass is
  backpropagation through time written out by hand (``_lstm_backward``, ``_gru_backward``), as
  :func:`implementations.sequence.recurrent.rnn_bptt` is for the plain cell. Built from engine operations (``step``),
  every step adds about twenty nodes, whose bookkeeping costs more than the arithmetic on matrices this small.

Each ``_*_fast(cell, x, states, valid, suffix, return_gates)`` runs one layer in one direction with the parameter set
``suffix`` and returns the outputs (B, T, H), a tuple of final states (B, H) and the gates {name: (B, T, H)} or None.
Shapes: B sequences of T steps, D input features, H hidden units; ``valid`` (B, T) is False at the steps past a
sequence's end, where its state is frozen (None when no sequence is padded).
"""

import numpy as np

from ..engine import Tensor, concatenate, stack
from ..numeric import sigmoid
from ._layers import freeze_past_end, zero_padding


def _rnn_fast(cell, x, states, valid, suffix, return_gates):
    """The plain recurrence of eq. (6.1), with the input part of all steps in one product before the loop."""
    W_xh, W_hh, b_h = cell._named("W_xh W_hh b_h", suffix)
    (h,) = states
    x_proj = x @ W_xh + b_h  # (B, T, H): x_t W_xh + b_h for every t at once
    hs = []
    for t in range(x.shape[1]):
        h = freeze_past_end(valid, t, (x_proj[:, t] + h @ W_hh).tanh(), h)  # (B, H)
        hs.append(h)
    return zero_padding(valid, stack(hs, axis=1)), (h,), None


def _lstm_fast(cell, x, states, valid, suffix, return_gates):
    """The LSTM of eq. (6.4): the four gates from one product, the loop over time one node (``_lstm_loop``)."""
    H = cell.hidden_size
    W = concatenate(cell._named("W_f W_i W_o W_c", suffix), axis=1)  # (H + D, 4H): the three sigmoid gates first
    b = concatenate(cell._named("b_f b_i b_o b_c", suffix), axis=0)  # (4H,)
    hc, gates = _lstm_loop(x, W, b, *states, valid)  # (B, T, 2H): [h_t, c_t] after every step
    outputs = zero_padding(valid, hc[:, :, :H])  # (B, T, H)
    state_T = (hc[:, -1, :H], hc[:, -1, H:])  # frozen past the end: each sequence's last real step
    if not return_gates:
        return outputs, state_T, None
    return outputs, state_T, {name: np.stack([g[:, k * H : (k + 1) * H] for g in gates], axis=1)  # (B, T, H)
                              for k, name in enumerate("fio")}


def _gru_fast(cell, x, states, valid, suffix, return_gates):
    """The GRU of eq. (6.5): both gates from one product, the loop over time one node (``_gru_loop``)."""
    H = cell.hidden_size
    W_zr = concatenate(cell._named("W_z W_r", suffix), axis=1)  # (H + D, 2H)
    b_zr = concatenate(cell._named("b_z b_r", suffix), axis=0)  # (2H,)
    W_h, b_h = cell._named("W_h b_h", suffix)
    hs, zrs = _gru_loop(x, W_zr, b_zr, W_h, b_h, *states, valid)  # (B, T, H): h_t after every step
    result = (zero_padding(valid, hs), (hs[:, -1],))  # frozen past the end: h_T is each sequence's last real step
    if not return_gates:
        return (*result, None)
    return (*result, {"z": np.stack([zr[:, :H] for zr in zrs], axis=1),  # (B, T, H) each
                      "r": np.stack([zr[:, H:] for zr in zrs], axis=1)})


def _lstm_loop(x, W, b, h0, c0, valid):
    """The loop over time of the LSTM in NumPy, as one node of the graph whose backward is ``_lstm_backward``.

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
        gates = np.concatenate([sigmoid(a[:, : 3 * H]), np.tanh(a[:, 3 * H :])], axis=1)  # sigm for f, i, o
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
    """Backpropagation through time through the loop of ``_lstm_loop``, by hand, as ``rnn_bptt`` for the RNN.

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


def _gru_loop(x, W_zr, b_zr, W_h, b_h, h0, valid):
    """The loop over time of the GRU in NumPy, as one node of the graph whose backward is ``_gru_backward``.

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
        zr = sigmoid(hx @ W_zr_data + b_zr_data)  # (B, 2H): both gates in one product
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

