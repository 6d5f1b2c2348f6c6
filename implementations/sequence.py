"""Recurrent networks on the autograd engine: RNN (optionally bidirectional), LSTM and GRU.

Chapter 4 of the book. Batches are batch first: ``x`` has shape (B, T, D) for B sequences of T steps
with D features each (a NumPy array or a Tensor). ``lengths`` (B,) marks padded batches: step t of
sequence b is real when t < lengths[b]. Past its length a sequence's outputs are zero and its state is
frozen, so the final state is the one at the sequence's own last step.

The input part of every step, x_t W_x + b, is computed for all steps in one matrix product before the
loop; the loop over time is the only Python loop, and it reads each step with a slice whose gradient
the engine writes in place (see ``autograd._IndexedGrad``), so the backward pass stays O(T).
"""

import numpy as np

from ._validation import check_positive_int, check_rng
from .autograd import Tensor, concatenate, stack, where
from .nn import Module

__all__ = ["RNN", "LSTM", "GRU", "chrono_init", "rnn_bptt", "parameter_count"]


def parameter_count(module):
    """Number of trainable numbers (weights and biases) in ``module``."""
    return int(sum(p.size for p in module.parameters()))


def _uniform(rng, shape, hidden_size):
    """U(−1/√H, 1/√H), the initialization PyTorch uses for recurrent layers."""
    bound = 1.0 / np.sqrt(hidden_size)
    return Tensor(rng.uniform(-bound, bound, size=shape), requires_grad=True)


def _check_input(x, input_size, lengths):
    """x as a Tensor of shape (B, T, D) and, if given, lengths as ints in 1..T; plus the (B, T) mask."""
    x = x if isinstance(x, Tensor) else Tensor(x)
    if x.ndim != 3 or x.shape[2] != input_size:
        raise ValueError(
            f"x must have shape (B, T, {input_size}) (batch, time, features); received {x.shape}. "
            "For a single sequence use x[None]."
        )
    B, T, _ = x.shape
    if lengths is None:
        return x, None, None
    lengths = np.asarray(lengths)
    if lengths.shape != (B,) or not np.all(lengths == np.round(lengths)) or lengths.min() < 1 or lengths.max() > T:
        raise ValueError(
            f"lengths must be {B} integers between 1 and T = {T}, one per sequence; received {lengths.tolist()}."
        )
    lengths = lengths.astype(np.int64)
    valid = np.arange(T)[None, :] < lengths[:, None]  # (B, T): True at real steps
    return x, lengths, valid


def _freeze_past_end(valid, t, new, old):
    """The state after step t: ``new`` for sequences still running, ``old`` for those already ended."""
    return new if valid is None else where(valid[:, t : t + 1], new, old)


def _output(valid, t, h):
    """The output at step t: ``h``, or zero for sequences already ended (padding)."""
    return h if valid is None else h * valid[:, t : t + 1]


def _reverse_index(lengths, B, T):
    """Index (B, T) that reverses each sequence within its own length and leaves padding in place."""
    t = np.broadcast_to(np.arange(T), (B, T))
    if lengths is None:
        return t[:, ::-1].copy()
    return np.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)


class RNN(Module):
    """Elman recurrent network, eq. (4.1): h_t = tanh(x_t W_xh + h_{t−1} W_hh + b_h).

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
        self.bidirectional = bool(bidirectional)
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
        outputs = []
        for t in range(x.shape[1]):
            h_new = (x_proj[:, t] + h @ W_hh).tanh()  # (B, H), eq. (4.1)
            h = _freeze_past_end(valid, t, h_new, h)
            outputs.append(_output(valid, t, h))
        return stack(outputs, axis=1), h

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
        h0 = Tensor(np.zeros((B, width))) if h0 is None else (h0 if isinstance(h0, Tensor) else Tensor(h0))
        if h0.shape != (B, width):
            raise ValueError(f"h0 must have shape ({B}, {width}); received {h0.shape}.")
        out, h_T = self._run(x, h0[:, :H], valid, self.W_xh, self.W_hh, self.b_h)
        if not self.bidirectional:
            return out, h_T
        rev = _reverse_index(lengths, B, T)  # (B, T)
        rows = np.arange(B)[:, None]
        x_rev = x[rows, rev]  # each sequence read backwards within its length
        out_rev, h_rev = self._run(x_rev, h0[:, H:], valid, self.W_xh_rev, self.W_hh_rev, self.b_h_rev)
        out_rev = out_rev[rows, rev]  # back to the original time order
        return concatenate([out, out_rev], axis=2), concatenate([h_T, h_rev], axis=1)


class LSTM(Module):
    """Long short-term memory, eq. (4.4), with the gates acting on [h_{t−1}, x_t] (h first, then x).

    f = σ([h, x] W_f + b_f), i = σ([h, x] W_i + b_i), c̃ = tanh([h, x] W_c + b_c), o = σ([h, x] W_o + b_o),
    c_t = f ⊙ c_{t−1} + i ⊙ c̃,  h_t = o ⊙ tanh(c_t).

    Each W is (H + D, H): rows 0..H−1 multiply h, rows H.. multiply x. Internally the four gates are
    computed with one fused product. Weights ~ U(−1/√H, 1/√H); biases start at 0 except the forget gate's,
    which starts at ``forget_bias`` so that the cell remembers by default early in training: with
    f ≈ σ(b_f) a stored value decays like σ(b_f)^k over k steps (half-life ≈ 2 steps for b_f = 1, 5 for 2).

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
        if not np.isfinite(forget_bias):
            raise ValueError(f"forget_bias must be a finite number (1 or 2 are usual); received {forget_bias}.")
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
        B, T, _ = x.shape
        H = self.hidden_size
        if state is None:
            h, c = Tensor(np.zeros((B, H))), Tensor(np.zeros((B, H)))
        else:
            h, c = (s if isinstance(s, Tensor) else Tensor(s) for s in state)
        # fused: (H + D, 4H), the three sigmoid gates first
        W = concatenate([self.W_f, self.W_i, self.W_o, self.W_c], axis=1)
        b = concatenate([self.b_f, self.b_i, self.b_o, self.b_c], axis=0)  # (4H,)
        x_proj = x @ W[H:] + b  # (B, T, 4H): input part of all gates at all steps
        W_h = W[:H]  # (H, 4H)
        outputs, trace = [], {"f": [], "i": [], "o": []}
        for t in range(T):
            gates = x_proj[:, t] + h @ W_h  # (B, 4H)
            fio = gates[:, : 3 * H].sigmoid()  # the three sigmoid gates in one call
            f, i, o = fio[:, :H], fio[:, H : 2 * H], fio[:, 2 * H :]
            c_tilde = gates[:, 3 * H :].tanh()
            c_new = f * c + i * c_tilde  # (B, H)
            h = _freeze_past_end(valid, t, o * c_new.tanh(), h)
            c = _freeze_past_end(valid, t, c_new, c)
            outputs.append(_output(valid, t, h))
            if return_gates:
                for name, value in (("f", f), ("i", i), ("o", o)):
                    trace[name].append(value.data)
        result = (stack(outputs, axis=1), (h, c))
        if return_gates:
            return (*result, {name: np.stack(v, axis=1) for name, v in trace.items()})
        return result


def chrono_init(lstm, max_lag, *, rng):
    """Set the LSTM's forget and input biases for memories of up to ``max_lag`` steps ("chrono" initialization).

    Tallec and Ollivier (2018): b_f = log(u) with u ~ U(1, max_lag − 1) for each unit, and b_i = −b_f. A unit
    with forget gate σ(b_f) = u / (1 + u) keeps a stored value for about 1 + u steps, so the units start with
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
        raise TypeError(f"chrono_init needs an LSTM; received {type(lstm).__name__}.")
    if not np.isfinite(max_lag) or max_lag <= 2:
        raise ValueError(f"max_lag must be a finite number of steps greater than 2; received {max_lag}.")
    rng = check_rng(rng)
    b_f = np.log(rng.uniform(1.0, max_lag - 1.0, size=lstm.hidden_size))  # (H,)
    lstm.b_f.data = b_f
    lstm.b_i.data = -b_f
    return lstm


class GRU(Module):
    """Gated recurrent unit, eq. (4.5), in the form of Chung et al. (2014) (reset gate before the product):

    z = σ([h, x] W_z + b_z),  r = σ([h, x] W_r + b_r),  h̃ = tanh([r ⊙ h, x] W_h + b_h),
    h_t = (1 − z) ⊙ h_{t−1} + z ⊙ h̃.

    PyTorch and cuDNN compute a variant: the reset gate multiplies the hidden part *after* its matrix
    product, tanh(x W + b + r ⊙ (h U + b')), and z weighs the old state, h_t = z ⊙ h_{t−1} + (1 − z) ⊙ h̃
    (the labelling of Cho et al., 2014).
    Each W is (H + D, H), h rows first. Weights ~ U(−1/√H, 1/√H); biases start at 0.
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
        B, T, _ = x.shape
        H = self.hidden_size
        if h0 is None:
            h0 = np.zeros((B, H))
        h = h0 if isinstance(h0, Tensor) else Tensor(h0)
        W = concatenate([self.W_z, self.W_r, self.W_h], axis=1)  # (H + D, 3H)
        b = concatenate([self.b_z, self.b_r, self.b_h], axis=0)  # (3H,)
        x_proj = x @ W[H:] + b  # (B, T, 3H)
        W_zr, W_hh = W[:H, : 2 * H], W[:H, 2 * H :]  # (H, 2H), (H, H)
        outputs, trace = [], {"z": [], "r": []}
        for t in range(T):
            step = x_proj[:, t]  # (B, 3H)
            zr = (step[:, : 2 * H] + h @ W_zr).sigmoid()
            z, r = zr[:, :H], zr[:, H:]
            h_tilde = (step[:, 2 * H :] + (r * h) @ W_hh).tanh()
            h = _freeze_past_end(valid, t, (1.0 - z) * h + z * h_tilde, h)
            outputs.append(_output(valid, t, h))
            if return_gates:
                trace["z"].append(z.data)
                trace["r"].append(r.data)
        result = (stack(outputs, axis=1), h)
        if return_gates:
            return (*result, {name: np.stack(v, axis=1) for name, v in trace.items()})
        return result


def _bptt_arrays(x, h0, W_xh, W_hh, b_h, dL_dout):
    """The arguments of :func:`rnn_bptt` as float arrays, after checking that their shapes fit."""
    x, h0, W_xh, W_hh, b_h, dL_dout = (np.asarray(a, dtype=np.float64) for a in (x, h0, W_xh, W_hh, b_h, dL_dout))
    B, T, D = x.shape
    H = W_hh.shape[0]
    if h0.shape != (B, H) or W_xh.shape != (D, H) or b_h.shape != (H,) or dL_dout.shape != (B, T, H):
        raise ValueError(
            f"shapes do not fit: x {x.shape}, h0 {h0.shape}, W_xh {W_xh.shape}, W_hh {W_hh.shape}, b_h {b_h.shape}, "
            f"dL_dout {dL_dout.shape}; expected (B, T, D), (B, H), (D, H), (H, H), (H,), (B, T, H)."
        )
    return x, h0, W_xh, W_hh, b_h, dL_dout


def rnn_bptt(x, h0, W_xh, W_hh, b_h, dL_dout):
    """Backpropagation through time, eq. (4.2), for the plain recurrent cell, by hand in NumPy.

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
