"""Chapter 4: the automatic-differentiation engine, and the losses built on it.

- :mod:`.autograd`: :class:`~.autograd.Tensor`, an array that records how it was computed, and the reverse pass;
- :mod:`.functional`: functions of Tensors: joining and selecting (concatenate, stack, where), the losses
  (cross-entropy, binary cross-entropy, mean squared error) and dropout;
- ``_fast``: what only makes the engine fast (tested equal to the plain forms); ``_checks``: the checks of a
  caller's arguments.

The engine's public names are also importable from here: ``from implementations.engine import Tensor, no_grad``.
"""

from .autograd import Tensor, is_grad_enabled, no_grad
from .functional import concatenate, stack, where

__all__ = ["Tensor", "no_grad", "is_grad_enabled", "concatenate", "stack", "where"]
