"""Recurrent networks on the autograd engine: RNN, LSTM and GRU, each optionally stacked and bidirectional.

Chapter 6 of the book. Batches are batch first: ``x`` has shape (B, T, D) for B sequences of T steps
with D features each (a NumPy array or a Tensor). ``lengths`` (B,) marks padded batches: step t of
sequence b is real when t < lengths[b]. Past its length a sequence's outputs are zero and its state is
frozen, so the final state is the one at the sequence's own last step.

Each cell's ``step`` is its equation, eq. (6.1), (6.4) or (6.5), written with the engine's operations for one time
step of a batch; the engine differentiates it. A layer runs over time in one of two forms, chosen by its switch
``fast``: with ``fast=False``, the taught form, it calls ``step`` at every time step; with ``fast=True``, the
default, it runs the fast path of the private module ``_loops``, the same recurrence with fewer nodes in the graph
(the gated cells' loops are one node each, with backpropagation through time written out by hand, as ``rnn_bptt``
does for the plain cell). The two give the same outputs and gradients to round-off, which the tests prove. The base
class ``_Recurrent`` (module ``_layers``) runs the layers and directions below and holds that switch.

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

from .. import first_edition_name
from .._contract import checked
from ..engine import Tensor, concatenate
from . import _checks
from ._layers import _Recurrent
from ._loops import _gru_fast, _lstm_fast, _rnn_fast

__all__ = ["RNN", "LSTM", "GRU", "chrono_init", "rnn_bptt"]


def _uniform(rng, shape, hidden_size):
    """U(−1/√H, 1/√H), the initialization PyTorch uses for recurrent layers."""
    bound = 1.0 / np.sqrt(hidden_size)
    return Tensor(rng.uniform(-bound, bound, size=shape), requires_grad=True)


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
    fast : bool, default True
        Run over time with the fast path of ``_loops``, which computes the input part x_t W_xh + b_h of all steps in
        one product before the loop; False calls :meth:`step` at every step. The results agree to round-off.
    """

    _fast = _rnn_fast  # the fast path, used when self.fast
    _run = first_edition_name("_fast")  # the name that first-edition copies list

    @checked(input_size="count", hidden_size="count", rng="rng", num_layers="count", bidirectional="flag",
             fast="flag")
    def __init__(self, input_size, hidden_size, *, rng, num_layers=1, bidirectional=False, fast=True):
        self._setup(input_size, hidden_size, num_layers, bidirectional, fast)
        H = hidden_size
        for D, suffix in self._parameter_sets():  # D: the layer's input width
            setattr(self, "W_xh" + suffix, _uniform(rng, (D, H), H))  # (D, H)
            setattr(self, "W_hh" + suffix, _uniform(rng, (H, H), H))  # (H, H)
            setattr(self, "b_h" + suffix, Tensor(np.zeros(H), requires_grad=True))  # (H,)

    @checked(x_t="tensor (B, D)", h="tensor (B, self.hidden_size)", also=_checks.step_fits_cell)
    def step(self, x_t, h, *, suffix=""):
        """One step of the recurrent cell, eq. (6.1), for a batch: h_t = tanh(x_t W_xh + h_{t−1} W_hh + b_h).

        Parameters
        ----------
        x_t : array_like or Tensor of shape (B, D)
            The inputs of one time step, one row per sequence.
        h : array_like or Tensor of shape (B, H)
            The state h_{t−1}.
        suffix : str, default ""
            The parameter set: "" for layer 1, "_rev" for its reverse direction, "_l2", "_l2_rev", ... (see the
            module docstring); x_t has that layer's input width, D for layer 1 and W for the layers l >= 2.

        Returns
        -------
        h_t : Tensor of shape (B, H)
        """
        W_xh, W_hh, b_h = self._named("W_xh W_hh b_h", suffix)  # (D, H), (H, H), (H,): the parameter set suffix
        return (x_t @ W_xh + h @ W_hh + b_h).tanh()  # (B, H)

    @checked(x=_checks.sequences, h0=_checks.state, lengths=_checks.padded_lengths,
             also=(_checks.sequences_fit_cell, _checks.lengths_fit_sequences, _checks.state_fits_cell))
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
        outputs, (h_T,), _ = self._run_layers(x, lengths, (h0,))
        return outputs, h_T


class LSTM(_Recurrent):
    """Long short-term memory, eq. (6.4), with the gates acting on [h_{t−1}, x_t] (h first, then x).

    f = sigm([h, x] W_f + b_f), i = sigm([h, x] W_i + b_i), c̃ = tanh([h, x] W_c + b_c), o = sigm([h, x] W_o + b_o),
    c_t = f ⊙ c_{t−1} + i ⊙ c̃,  h_t = o ⊙ tanh(c_t).

    Each W is (H + D, H): rows 0..H−1 multiply h, rows H.. multiply x (H + W rows in layers l ≥ 2). :meth:`step` is
    the equation; the fast path (``fast=True``) computes the four gates with one product of the matrices set side
    by side, and runs the loop over time as one node of the engine's graph with its backward pass written out.
    Weights ~ U(−1/√H, 1/√H); biases start at 0 except the forget gate's, which starts at ``forget_bias`` so that
    the cell remembers by default early in training: with f ≈ sigm(b_f) a stored value decays like sigm(b_f)^k over
    k steps (half-life ≈ 2 steps for b_f = 1, 5 for 2).

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
    fast : bool, default True
        Run over time with the fused loop of ``_loops``; False calls :meth:`step` at every step. The results agree
        to round-off.
    """

    GATES = ("f", "i", "c", "o")
    _fast = _lstm_fast  # the fast path, used when self.fast

    @checked(input_size="count", hidden_size="count", rng="rng", num_layers="count", bidirectional="flag",
             fast="flag", forget_bias="number")
    def __init__(self, input_size, hidden_size, *, rng, forget_bias=1.0, num_layers=1, bidirectional=False,
                 fast=True):
        self._setup(input_size, hidden_size, num_layers, bidirectional, fast)
        H = hidden_size
        for D, suffix in self._parameter_sets():  # D: the layer's input width
            for gate in self.GATES:
                setattr(self, f"W_{gate}{suffix}", _uniform(rng, (H + D, H), H))
            for gate in self.GATES:
                b = np.full(H, forget_bias if gate == "f" else 0.0)  # 1 or 2 are usual for the forget gate
                setattr(self, f"b_{gate}{suffix}", Tensor(b, requires_grad=True))

    @checked(x_t="tensor (B, D)", h="tensor (B, self.hidden_size)", c="tensor (B, self.hidden_size)",
             return_gates="flag", also=_checks.step_fits_cell)
    def step(self, x_t, h, c, *, suffix="", return_gates=False):
        """One step of the LSTM, eq. (6.4), for a batch: the gates from [h_{t−1}, x_t], then the cell c_t and h_t.

        Parameters
        ----------
        x_t : array_like or Tensor of shape (B, D)
            The inputs of one time step, one row per sequence.
        h, c : array_like or Tensor of shape (B, H)
            The state h_{t−1} and the cell c_{t−1}.
        suffix : str, default ""
            The parameter set: "" for layer 1, "_rev" for its reverse direction, "_l2", "_l2_rev", ... (see the
            module docstring); x_t has that layer's input width, D for layer 1 and W for the layers l >= 2.
        return_gates : bool, default False
            Also return the gates {"f", "i", "o"}, Tensors of shape (B, H).

        Returns
        -------
        h_t, c_t : Tensors of shape (B, H)
        gates : dict of str -> Tensor, only if ``return_gates``
        """
        W_f, W_i, W_o, W_c = self._named("W_f W_i W_o W_c", suffix)  # (H + D, H) each: the parameter set suffix
        b_f, b_i, b_o, b_c = self._named("b_f b_i b_o b_c", suffix)  # (H,) each
        hx = concatenate([h, x_t], axis=1)  # (B, H + D): [h_{t−1}, x_t], the state first
        f = (hx @ W_f + b_f).sigmoid()  # (B, H): the forget gate, how much of c_{t−1} to keep
        i = (hx @ W_i + b_i).sigmoid()  # (B, H): the input gate, how much of the candidate to write
        o = (hx @ W_o + b_o).sigmoid()  # (B, H): the output gate, how much of the cell to expose
        c_tilde = (hx @ W_c + b_c).tanh()  # (B, H): the candidate c̃_t
        c = f * c + i * c_tilde  # (B, H): the cell is updated by addition
        h = o * c.tanh()  # (B, H)
        return (h, c, {"f": f, "i": i, "o": o}) if return_gates else (h, c)

    @checked(x=_checks.sequences, state=_checks.state_pair, lengths=_checks.padded_lengths, return_gates="flag",
             also=(_checks.sequences_fit_cell, _checks.lengths_fit_sequences, _checks.state_pair_fits_cell))
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
        outputs, state_T, gates = self._run_layers(x, lengths, state or (None, None), return_gates)
        return (outputs, state_T, gates) if return_gates else (outputs, state_T)


@checked(lstm=_checks.an_lstm, max_lag=_checks.longest_lag, rng="rng")
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
    :meth:`step` is the equation; as in :class:`LSTM`, the fast path runs the loop over time as one node of the graph.

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
    fast : bool, default True
        Run over time with the fused loop of ``_loops``; False calls :meth:`step` at every step. The results agree
        to round-off.
    """

    GATES = ("z", "r", "h")
    _fast = _gru_fast  # the fast path, used when self.fast

    @checked(input_size="count", hidden_size="count", rng="rng", num_layers="count", bidirectional="flag",
             fast="flag")
    def __init__(self, input_size, hidden_size, *, rng, num_layers=1, bidirectional=False, fast=True):
        self._setup(input_size, hidden_size, num_layers, bidirectional, fast)
        H = hidden_size
        for D, suffix in self._parameter_sets():  # D: the layer's input width
            for gate in self.GATES:
                setattr(self, f"W_{gate}{suffix}", _uniform(rng, (H + D, H), H))
            for gate in self.GATES:
                setattr(self, f"b_{gate}{suffix}", Tensor(np.zeros(H), requires_grad=True))

    @checked(x_t="tensor (B, D)", h="tensor (B, self.hidden_size)", return_gates="flag",
             also=_checks.step_fits_cell)
    def step(self, x_t, h, *, suffix="", return_gates=False):
        """One step of the GRU, eq. (6.5), for a batch: two gates from [h_{t−1}, x_t], a candidate, their blend.

        Parameters
        ----------
        x_t : array_like or Tensor of shape (B, D)
            The inputs of one time step, one row per sequence.
        h : array_like or Tensor of shape (B, H)
            The state h_{t−1}.
        suffix : str, default ""
            The parameter set: "" for layer 1, "_rev" for its reverse direction, "_l2", "_l2_rev", ... (see the
            module docstring); x_t has that layer's input width, D for layer 1 and W for the layers l >= 2.
        return_gates : bool, default False
            Also return the gates {"z", "r"}, Tensors of shape (B, H).

        Returns
        -------
        h_t : Tensor of shape (B, H)
        gates : dict of str -> Tensor, only if ``return_gates``
        """
        W_z, W_r, W_h = self._named("W_z W_r W_h", suffix)  # (H + D, H) each: the parameter set suffix
        b_z, b_r, b_h = self._named("b_z b_r b_h", suffix)  # (H,) each
        hx = concatenate([h, x_t], axis=1)  # (B, H + D): [h_{t−1}, x_t], the state first
        z = (hx @ W_z + b_z).sigmoid()  # (B, H): the update gate, how much to move towards the candidate
        r = (hx @ W_r + b_r).sigmoid()  # (B, H): the reset gate, how much of h_{t−1} the candidate sees
        h_tilde = (concatenate([r * h, x_t], axis=1) @ W_h + b_h).tanh()  # (B, H): the candidate h̃_t
        h = (1.0 - z) * h + z * h_tilde  # (B, H)
        return (h, {"z": z, "r": r}) if return_gates else h

    @checked(x=_checks.sequences, h0=_checks.state, lengths=_checks.padded_lengths, return_gates="flag",
             also=(_checks.sequences_fit_cell, _checks.lengths_fit_sequences, _checks.state_fits_cell))
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
        outputs, (h_T,), gates = self._run_layers(x, lengths, (h0,), return_gates)
        return (outputs, h_T, gates) if return_gates else (outputs, h_T)


@checked(x="array (B, T, D)", h0="array (B, H)", W_xh="array (D, H)", W_hh="array (H, H)", b_h="array (H,)",
         dL_dout="array (B, T, H)")
def rnn_bptt(x, h0, W_xh, W_hh, b_h, dL_dout):
    """Backpropagation through time, eq. (6.2), for the plain recurrent cell, by hand in NumPy.

    Parameters
    ----------
    x : array_like of shape (B, T, D)
    h0 : array_like of shape (B, H)
    W_xh : array_like of shape (D, H)
    W_hh : array_like of shape (H, H)
    b_h : array_like of shape (H,)
    dL_dout : array_like of shape (B, T, H)
        Gradient of the loss with respect to every output h_t (zero where the loss ignores a step).

    Returns
    -------
    grads : dict with keys ``W_xh``, ``W_hh``, ``b_h``, ``x``, ``h0``, each shaped like that argument
    """
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
