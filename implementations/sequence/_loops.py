"""The loops of the recurrent networks of :mod:`implementations.sequence`: over layers, and over time.

Private helpers of chapter 6's module, which imports them. ``_Recurrent`` is the base class of its RNN, LSTM and
GRU: it makes one parameter set per layer and direction, checks the initial states, and runs the layers in turn,
each direction with the cell's own loop over time. ``_lstm_loop`` and ``_gru_loop`` are those loops for the two
gated cells, in NumPy, each one node of the autograd engine's graph (``_lstm_loop`` says why); ``_lstm_backward``
and ``_gru_backward`` are backpropagation through time for them, as
:func:`implementations.sequence.recurrent.rnn_bptt` is
for the plain recurrent cell.

Shapes: B sequences of T steps, D input features, H hidden units, W = H (or 2H if bidirectional) outputs per step
of a layer, L layers. ``valid`` (B, T) is False at the steps past a sequence's end, where its state is frozen
(None when no sequence is padded).
"""

import numpy as np

from .._validation import check_flag, check_positive_int, check_rng
from ..engine.autograd import Tensor, _tensor_argument
from ..engine.functional import concatenate, stack
from ..nn.module import Module
from ..numeric import sigmoid


def _reverse_index(lengths, B, T):
    """Index (B, T) that reverses each sequence within its own length and leaves padding in place."""
    t = np.broadcast_to(np.arange(T), (B, T))
    if lengths is None:
        return t[:, ::-1].copy()
    return np.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)


def _state_tensor(value, shape, name, *, argument=None):
    """An initial state as a Tensor of ``shape``: zeros if ``value`` is None, else ``value`` after a shape check.

    ``shape`` is (B, W), or (L, B, W) for L layers. ``argument`` is the caller's argument that holds the state
    when it is not ``name`` itself (the LSTM's ``state``).
    """
    if value is None:
        return Tensor(np.zeros(shape))
    where = f" (in {argument})" if argument else ""
    value = _tensor_argument(value, name + where)
    if value.shape != shape:
        fix = f"Pass {argument}=(h0, c0) with" if argument else "Pass"
        per_layer = f", for each of the {shape[0]} layers," if len(shape) == 3 else ""
        raise ValueError(f"{name} must have shape {shape}; received {value.shape}. {fix}{per_layer} one state of the "
                         f"cell's width ({shape[-1]}) per sequence of x ({shape[-2]}).")
    return value


class _Recurrent(Module):
    """What RNN, LSTM and GRU share: layers and directions, the shapes of their states, the loop over layers."""

    def _setup(self, input_size, hidden_size, rng, num_layers, bidirectional):
        """Check and keep the sizes; return the checked ``rng``."""
        self.input_size = check_positive_int(input_size, "input_size")
        self.hidden_size = check_positive_int(hidden_size, "hidden_size")
        rng = check_rng(rng)
        self.num_layers = check_positive_int(num_layers, "num_layers")
        self.bidirectional = check_flag(bidirectional, "bidirectional")
        self.width = 2 * self.hidden_size if self.bidirectional else self.hidden_size  # W: outputs per step
        return rng

    def _parameter_sets(self):
        """(input width, name suffix) of every layer and direction, in the order their parameters are made."""
        directions = ("", "_rev") if self.bidirectional else ("",)
        return [(self.input_size if layer == 0 else self.width, ("" if layer == 0 else f"_l{layer + 1}") + direction)
                for layer in range(self.num_layers) for direction in directions]

    def _state_shape(self, B):
        """(B, W) for one layer, (L, B, W) for L layers."""
        return (B, self.width) if self.num_layers == 1 else (self.num_layers, B, self.width)

    def _initial_state(self, value, B, name, *, argument=None):
        """An initial state (zeros if None) after a shape check, as a list of one Tensor (B, W) per layer."""
        value = _state_tensor(value, self._state_shape(B), name, argument=argument)
        return [value] if self.num_layers == 1 else [value[layer] for layer in range(self.num_layers)]

    def _run_layers(self, x, lengths, initial, run):
        """Run the layers in turn, each direction with ``run``: the last layer's outputs and every final state.

        Parameters
        ----------
        x : Tensor of shape (B, T, D)
        lengths : ndarray of int, shape (B,), or None
        initial : tuple of lists of Tensors of shape (B, W)
            One list per kind of state (h; or h and c), one entry per layer.
        run : function (x, states, suffix) -> (outputs, final states, gates)
            One layer in one direction, with the parameters named with ``suffix``: outputs (B, T, H), a tuple of
            final states (B, H) like ``states``, and a dict of gates (B, T, H) or None.

        Returns
        -------
        outputs : Tensor of shape (B, T, W)
        finals : tuple of Tensors of shape (B, W), or (L, B, W)
        gates : dict of str -> ndarray of shape (B, T, W), or (L, B, T, W); or None
        """
        B, T, H = x.shape[0], x.shape[1], self.hidden_size
        rows = np.arange(B)[:, None]
        rev = _reverse_index(lengths, B, T) if self.bidirectional else None  # (B, T)
        finals, gates = [], []
        for layer in range(self.num_layers):
            suffix = "" if layer == 0 else f"_l{layer + 1}"
            states = tuple(kind[layer] for kind in initial)  # (B, W) each
            if not self.bidirectional:
                x, final, g = run(x, states, suffix)  # x becomes the input of the next layer
            else:  # the reverse direction reads each sequence backwards within its length, x[rows, rev]
                out, final, g = run(x, tuple(s[:, :H] for s in states), suffix)
                out_rev, final_rev, g_rev = run(x[rows, rev], tuple(s[:, H:] for s in states), suffix + "_rev")
                x = concatenate([out, out_rev[rows, rev]], axis=2)  # (B, T, 2H), both in the original time order
                final = tuple(concatenate(pair, axis=1) for pair in zip(final, final_rev, strict=True))  # (B, 2H)
                if g is not None:  # (B, T, 2H) each
                    g = {name: np.concatenate([g[name], g_rev[name][rows, rev]], axis=2) for name in g}
            finals.append(final)
            gates.append(g)
        if self.num_layers == 1:
            return x, finals[0], gates[0]
        finals = tuple(stack(list(kind), axis=0) for kind in zip(*finals, strict=True))  # (L, B, W) each
        if gates[0] is not None:  # (L, B, T, W) each
            gates = [{name: np.stack([g[name] for g in gates]) for name in gates[0]}]
        return x, finals, gates[0]


def _lstm_loop(x, W, b, h0, c0, valid):
    """The loop over time of the LSTM in NumPy, as one node of the graph whose backward is ``_lstm_backward``.

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

