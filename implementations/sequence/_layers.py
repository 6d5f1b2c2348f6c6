"""What the recurrent layers of :mod:`implementations.sequence.recurrent` share: layers, directions, loops in time.

``_Recurrent`` is the base class of RNN, LSTM and GRU. It makes one parameter set per layer and direction, runs the
layers in turn, each direction over its sequences, and holds the one switch between the two forms of that run:

- the taught form, ``_step_by_step``: the cell's ``step`` (its equation, on Tensors, differentiated by the engine) at
  every time step, with the state of a sequence frozen past its end;
- the fast path, ``cell._fast`` (from ``_loops``), used when ``cell.fast`` is True (the default): the same
  recurrence with fewer nodes in the graph, the gated cells' loops fused into one node with backpropagation through
  time written out by hand. ``tests/test_sequence_fast_path.py`` proves the two give the same outputs, final states,
  gates and gradients to round-off.

Shapes: B sequences of T steps, D input features, H hidden units, W = H (or 2H if bidirectional) outputs per step of
a layer, L layers. ``valid`` (B, T) is False at the steps past a sequence's end (None when no sequence is padded).
"""

import numpy as np

from ..engine import Tensor, concatenate, stack, where
from ..nn.module import Module


def _reverse_index(lengths, B, T):
    """Index (B, T) that reverses each sequence within its own length and leaves padding in place."""
    t = np.broadcast_to(np.arange(T), (B, T))
    if lengths is None:
        return t[:, ::-1].copy()
    n = lengths.astype(np.int64)[:, None]  # (B, 1)
    return np.where(t < n, n - 1 - t, t)


def freeze_past_end(valid, t, new, old):
    """The state after step t: ``new`` for sequences still running, ``old`` for those already ended."""
    return new if valid is None else where(valid[:, t : t + 1], new, old)


def zero_padding(valid, states):
    """The outputs (B, T, H): the states, with zeros at the steps past each sequence's end (padding)."""
    return states if valid is None else states * valid[:, :, None]


class _Recurrent(Module):
    """What RNN, LSTM and GRU share: layers and directions, the shapes of their states, the loops over them."""

    def _setup(self, input_size, hidden_size, num_layers, bidirectional, fast):
        """Keep the sizes (checked by the constructor's declaration)."""
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.bidirectional, self.fast = bidirectional, fast
        self.width = 2 * hidden_size if bidirectional else hidden_size  # W: outputs per step

    def _parameter_sets(self):
        """(input width, name suffix) of every layer and direction, in the order their parameters are made."""
        directions = ("", "_rev") if self.bidirectional else ("",)
        return [(self.input_size if layer == 0 else self.width, ("" if layer == 0 else f"_l{layer + 1}") + direction)
                for layer in range(self.num_layers) for direction in directions]

    def _named(self, names, suffix):
        """The parameters ``names`` (space-separated, as in the equations) of the parameter set ``suffix``."""
        return [getattr(self, name + suffix) for name in names.split()]

    def _state_shape(self, B):
        """(B, W) for one layer, (L, B, W) for L layers."""
        return (B, self.width) if self.num_layers == 1 else (self.num_layers, B, self.width)

    def _per_layer(self, state, B):
        """An initial state (checked; zeros if None) as a list of one Tensor (B, W) per layer."""
        state = Tensor(np.zeros(self._state_shape(B))) if state is None else state
        return [state] if self.num_layers == 1 else [state[layer] for layer in range(self.num_layers)]

    def _run_layers(self, x, lengths, initial, return_gates=False):
        """Run the layers in turn, each direction by ``_direction``: the last layer's outputs and every final state.

        Parameters
        ----------
        x : Tensor of shape (B, T, D)
        lengths : ndarray of shape (B,) holding integers, or None
        initial : tuple of Tensors of shape (B, W) or (L, B, W), or None (zeros)
            One per kind of state (h; or h and c).
        return_gates : bool

        Returns
        -------
        outputs : Tensor of shape (B, T, W)
        finals : tuple of Tensors of shape (B, W), or (L, B, W)
        gates : dict of str -> ndarray of shape (B, T, W), or (L, B, T, W); or None
        """
        B, T, H = x.shape[0], x.shape[1], self.hidden_size
        valid = None if lengths is None else np.arange(T)[None, :] < lengths[:, None]  # (B, T): True at real steps
        initial = tuple(self._per_layer(state, B) for state in initial)
        rows = np.arange(B)[:, None]
        rev = _reverse_index(lengths, B, T) if self.bidirectional else None  # (B, T)
        finals, gates = [], []
        for layer in range(self.num_layers):
            suffix = "" if layer == 0 else f"_l{layer + 1}"
            states = tuple(kind[layer] for kind in initial)  # (B, W) each
            if not self.bidirectional:
                x, final, g = self._direction(x, states, valid, suffix, return_gates)  # x: the next layer's input
            else:  # the reverse direction reads each sequence backwards within its length, x[rows, rev]
                out, final, g = self._direction(x, tuple(s[:, :H] for s in states), valid, suffix, return_gates)
                out_rev, final_rev, g_rev = self._direction(x[rows, rev], tuple(s[:, H:] for s in states), valid,
                                                            suffix + "_rev", return_gates)
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

    def _direction(self, x, states, valid, suffix, return_gates):
        """One layer in one direction: outputs (B, T, H), a tuple of final states (B, H), gates (B, T, H) or None."""
        if self.fast:  # the fast path of _loops: the same recurrence, with fewer nodes in the graph
            return self._fast(x, states, valid, suffix, return_gates)
        return self._step_by_step(x, states, valid, suffix, return_gates)

    def _step_by_step(self, x, states, valid, suffix, return_gates):
        """The taught form: the cell's ``step`` at every t, each sequence's state frozen past its end."""
        outputs, gates = [], []
        for t in range(x.shape[1]):
            if return_gates:
                *new, gates_t = self.step(x[:, t], *states, suffix=suffix, return_gates=True)
                gates.append(gates_t)
            else:
                new = self.step(x[:, t], *states, suffix=suffix)
            new = new if isinstance(new, (tuple, list)) else (new,)  # the RNN's and GRU's step return h alone
            states = tuple(freeze_past_end(valid, t, n, s) for n, s in zip(new, states, strict=True))  # (B, H) each
            outputs.append(states[0])
        gates = {name: np.stack([g[name].data for g in gates], axis=1) for name in gates[0]} if gates else None
        return zero_padding(valid, stack(outputs, axis=1)), states, gates
