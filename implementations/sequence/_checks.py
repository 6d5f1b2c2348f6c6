"""The input checks of chapter 6's recurrent layers that no role of the contract describes, each once.

Roles (``check(value, name) -> value``) convert one argument; the ``also=`` checks compare arguments with each other
and with the layer (``self``): the width of x with the cell's ``input_size``, the lengths with x's batch and time
axes, an initial state with the cell's width and number of layers. Every message names the argument, says what was
received and what was expected, and how to fix it.
"""

import numpy as np

from .._contract import TENSOR
from .._validation import (
    check_finite_number,
    padded_lengths,  # noqa: F401  (the role of the lengths of a padded batch, shared with chapter 7)
    shown,
)
from ..engine.autograd import Tensor
from ._layers import _Recurrent

# --- the batch of sequences x and its lengths ------------------------------------------------------------------------


def sequences(x, name):
    """Role: the data x as a Tensor (a Tensor as it is; other data converted once, NaN and ±inf refused by name)."""
    return TENSOR.convert(x, name)


def sequences_fit_cell(self, x):
    """x is a (B, T, D) batch, D the cell's input_size, with at least one sequence of at least one step."""
    D = self.input_size
    if x.ndim != 3:
        hint = " For a single sequence use x[None]." if x.ndim == 2 else ""
        raise ValueError(f"x must have shape (B, T, {D}) (batch, time, features); received {x.shape}.{hint}")
    if x.shape[2] != D:
        raise ValueError(f"x must have {D} entries along its last axis (the cell's input_size, D); received "
                         f"shape {x.shape}. Build the cell with input_size={x.shape[2]}, or pass {D} features per "
                         "step.")
    if x.shape[0] == 0 or x.shape[1] == 0:
        raise ValueError(f"x is empty (shape {x.shape}); expected at least one sequence (B >= 1) of at least one "
                         "step (T >= 1).")




def lengths_fit_sequences(x, lengths):
    """The lengths: one per sequence of x, each an integer between 1 and T (x's padded length)."""
    if lengths is None:
        return
    B, T = x.shape[0], x.shape[1]
    if lengths.shape != (B,):
        raise ValueError(f"lengths must hold one length per sequence of x, shape ({B},); received shape "
                         f"{lengths.shape}.")
    if lengths.min() < 1 or lengths.max() > T:
        raise ValueError(f"lengths must be {B} integers between 1 and T = {T}, one per sequence; received "
                         f"{shown(lengths)}. "
                         "A sequence's length counts its real steps, padding excluded.")


# --- initial states ------------------------------------------------------------------------------------------------


def state(value, name):
    """Role: an initial state as a Tensor, or None (zeros)."""
    return None if value is None else TENSOR.convert(value, name)


def state_pair(value, name):
    """Role: the LSTM's (h0, c0), each a Tensor (or None); anything but a pair is left to ``state_pair_fits_cell``."""
    if not (isinstance(value, (tuple, list)) and len(value) == 2):
        return value
    return tuple(state(v, f"{part} (in {name})") for part, v in zip(("h0", "c0"), value, strict=True))


def _state_fits(self, B, value, name, argument=None):
    shape = self._state_shape(B)
    if value is None or value.shape == shape:
        return
    fix = f"Pass {argument}=(h0, c0) with" if argument else "Pass"
    per_layer = f", for each of the {shape[0]} layers," if len(shape) == 3 else ""
    raise ValueError(f"{name} must have shape {shape}; received {value.shape}. {fix}{per_layer} one state of the "
                     f"cell's width ({shape[-1]}) per sequence of x ({shape[-2]}).")


def state_fits_cell(self, x, h0):
    """h0 is (B, W) for one layer, (L, B, W) for L layers: W the cell's width, B the sequences of x."""
    _state_fits(self, x.shape[0], h0, "h0")


def state_pair_fits_cell(self, x, state):
    """The LSTM's state is None or a pair (h0, c0), each of the shape ``state_fits_cell`` asks of h0."""
    if state is None:
        return
    if not (isinstance(state, (tuple, list)) and len(state) == 2):
        shape = f" of shape {np.shape(state)}" if isinstance(state, (np.ndarray, Tensor)) else ""
        raise ValueError(f"state must be a tuple (h0, c0) of two arrays of shape {self._state_shape(x.shape[0])}; "
                         f"received {type(state).__name__}{shape}. An LSTM carries two states: pass state=(h0, c0), "
                         "e.g. the second value returned by the previous call.")
    for name, value in zip(("h0", "c0"), state, strict=True):
        _state_fits(self, x.shape[0], value, name, argument="state")


# --- one step ------------------------------------------------------------------------------------------------------


def step_fits_cell(self, x_t, suffix):
    """``suffix`` names one of the cell's parameter sets, and x_t (B, D) has that set's input width D."""
    widths = {s: D for D, s in self._parameter_sets()}
    if not isinstance(suffix, str) or suffix not in widths:
        names = ", ".join(repr(s) for s in widths)
        raise ValueError(f"suffix must name one of the {type(self).__name__}'s parameter sets, {names}; received "
                         f"{suffix!r}. Layer 1 reads '' (and '_rev' in reverse), layer l >= 2 '_l<l>'.")
    if x_t.shape[1] != widths[suffix]:
        layer = "layer 1" if suffix in ("", "_rev") else f"layer {suffix.split('_')[1][1:]}"
        raise ValueError(f"x_t must have {widths[suffix]} entries along axis 1, the input width of {layer}, whose "
                         f"parameter set is suffix={suffix!r}; received shape {x_t.shape}. Pass that layer's inputs, "
                         "or the suffix of the layer they belong to.")


# --- chrono_init ---------------------------------------------------------------------------------------------------


def an_lstm(value, name):
    """Role: an LSTM, the one recurrent layer with forget and input gates (its GATES f, i, c, o)."""
    if not (isinstance(value, _Recurrent) and {"f", "i"} <= set(getattr(value, "GATES", ()))):
        raise TypeError(f"{name} must be an LSTM (chrono_init sets its forget and input gates); received "
                        f"{type(value).__name__}.")
    return value


def longest_lag(value, name):
    """Role: the longest dependency expected, a finite number of steps greater than 2."""
    value = check_finite_number(value, name)
    if value <= 2:
        raise ValueError(f"{name} must be a finite number of steps greater than 2; received {value:g}. It is the "
                         "longest dependency expected, e.g. the length of the sequences.")
    return value
