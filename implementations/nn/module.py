"""The Module base class of every layer and model: parameters found among the attributes, state saved and loaded.

Chapter 4 of the book. A :class:`Module` is a function with parameters; :class:`Sequential` chains modules, and
:func:`parameter_count` counts the numbers a model learns.
"""

import numpy as np

from .._contract import checked, passes_through
from ..engine.autograd import Tensor
from . import _checks

__all__ = ["Module", "Sequential", "parameter_count"]


class Module:
    """Base class: finds the parameters among the attributes, in the order they were assigned.

    A module may also hold *buffers*: arrays it learns without a gradient (the running averages of batch
    normalization). A subclass names them in ``_buffers``; :meth:`state_dict` saves them with the parameters, and
    :meth:`load_state_dict` checks each by the check of ``_checks`` that ``_buffer_checks`` names for it.
    """

    training = True
    _buffers = ()  # names of the attributes that hold buffers (NumPy arrays), in a stable order
    _buffer_checks = {}  # buffer name -> its check when a state is loaded (a variance must not be negative)

    @passes_through  # a checked forward called here is checked as a call by the caller of the module
    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define forward().")

    def _children(self):
        """(name, value) of the attributes that hold parameters or sub-modules, in assignment order.

        Lists and tuples are searched too; a dict of modules or parameters is refused, because its
        order would not be part of the model's definition.
        """
        for name, value in vars(self).items():
            if isinstance(value, (Tensor, Module)):
                yield name, value
            elif isinstance(value, (list, tuple)):
                for k, item in enumerate(value):
                    if isinstance(item, (Tensor, Module)):
                        yield f"{name}.{k}", item
            elif isinstance(value, dict) and any(isinstance(v, (Tensor, Module)) for v in value.values()):
                raise TypeError(
                    f"attribute {name!r} is a dict holding modules or parameters, which parameters() would miss; "
                    "store them in a list or as separate attributes."
                )

    @checked(prefix=_checks.prefix)
    def named_parameters(self, prefix="", _seen=None):
        """An iterator of (dotted name, Tensor) for every parameter, sub-modules included, in a stable order.

        A parameter shared by two layers (tied weights) is listed once, under its first name, so that an
        optimizer updates it once per step.

        Parameters
        ----------
        prefix : str, default ""
            Put in front of every name (e.g. "encoder.").
        """
        return self._named_parameters(prefix, set() if _seen is None else _seen)

    def _named_parameters(self, prefix, seen):
        for name, value in self._children():
            if isinstance(value, Tensor):
                if value.requires_grad and id(value) not in seen:
                    seen.add(id(value))
                    yield prefix + name, value
            else:
                yield from value._named_parameters(f"{prefix}{name}.", seen)

    def parameters(self):
        """The parameters as a list, in the order of :meth:`named_parameters`."""
        return [p for _, p in self.named_parameters()]

    def zero_grad(self):
        for p in self.parameters():
            p.grad = None

    @checked(mode="flag")
    def train(self, mode=True):
        """Switch this module and its sub-modules to training mode (dropout on), or with ``mode=False`` off."""
        self.training = mode
        for _, value in self._children():
            if isinstance(value, Module):
                value.train(mode)
        return self

    def eval(self):
        """Switch to evaluation mode."""
        return self.train(False)

    def _buffer_slots(self, prefix="", seen=None):
        """(dotted name, owning module, attribute) of every buffer, sub-modules included, each module once."""
        seen = set() if seen is None else seen
        if id(self) in seen:
            return
        seen.add(id(self))
        for attr in self._buffers:
            yield prefix + attr, self, attr
        for name, value in self._children():
            if isinstance(value, Module):
                yield from value._buffer_slots(f"{prefix}{name}.", seen)

    def state_dict(self):
        """A copy of every parameter's values, and of every buffer (running averages), keyed by its dotted name."""
        state = {name: p.data.copy() for name, p in self.named_parameters()}
        state.update((name, np.array(getattr(module, attr))) for name, module, attr in self._buffer_slots())
        return state

    @checked(state=_checks.state_dict, also=_checks.state_fits)
    def load_state_dict(self, state):
        """Copy values saved by :meth:`state_dict` into the parameters and the buffers (running averages).

        Parameters
        ----------
        state : dict of name -> array
            One finite array per parameter and per buffer, under the names and with the shapes of :meth:`state_dict`
            (a module may check its buffers further: batch normalization refuses a negative variance). Every entry
            is checked before any is loaded, so a refused state leaves the module unchanged.
        """
        for name, p in self.named_parameters():
            p.data = state[name].copy()
            p.grad = None
        for name, module, attr in self._buffer_slots():
            setattr(module, attr, state[name].astype(getattr(module, attr).dtype))  # a copy, in the buffer's dtype


class Sequential(Module):
    """Apply modules (or plain functions of a Tensor) one after the other: ``Sequential(layer_1, layer_2, ...)``."""

    @checked(layers=_checks.layers)
    def __init__(self, *layers):
        self.layers = list(layers)

    def _children(self):
        for k, layer in enumerate(self.layers):
            if isinstance(layer, Module):
                yield f"layers.{k}", layer

    @checked(x="tensor")
    @passes_through  # each layer is checked as the caller's own call: the caller put them together
    def forward(self, x):
        """The layers applied in order to ``x`` (a Tensor or an array)."""
        for layer in self.layers:
            x = layer(x)
        return x


@checked(module=_checks.module)
def parameter_count(module):
    """Number of trainable numbers (weights and biases) in ``module``.

    Parameters
    ----------
    module : Module
        A layer or a model (anything with a ``parameters()`` method that lists Tensors).
    """
    return int(sum(p.size for p in module.parameters()))
