"""Chapter 6: recurrent networks.

- :mod:`.recurrent`: RNN, LSTM and GRU layers (stacked, bidirectional, with padded batches), each with its
  ``step``, the cell's equation; and backpropagation through time written out by hand (``rnn_bptt``);
- ``_layers``: what the three layers share: layers and directions, and the switch ``fast`` between the taught
  form (``step`` at every time step) and the fast path;
- ``_loops``: the fast path, the same recurrences with fewer graph nodes (the gated cells' loops fused into one
  node each, with backpropagation through time by hand), tested equal to the taught form;
- ``_checks``: the input checks of the layers that no role of the declared contract describes.

Their public names are also importable from here: ``from implementations.sequence import LSTM``.
"""

import warnings

from .recurrent import GRU, LSTM, RNN, chrono_init, rnn_bptt

__all__ = ["RNN", "LSTM", "GRU", "chrono_init", "rnn_bptt"]


def __getattr__(name):  # a first-edition name of the old flat module implementations.sequence
    from .. import moved_notice
    from ..nn import module
    from . import _loops, recurrent

    for home, where in ((recurrent, "sequence.recurrent"), (_loops, "sequence._loops"), (module, "nn.module")):
        if hasattr(home, name):
            warnings.warn(moved_notice(f"sequence.{name}", f"{where}.{name}"), FutureWarning, stacklevel=2)
            return getattr(home, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
