"""The Module base class of every layer and model: parameters found among the attributes, state saved and loaded.

Chapter 4 of the book. A :class:`Module` is a function with parameters; :class:`Sequential` chains modules, and
:func:`parameter_count` counts the numbers a model learns.
"""

import numpy as np

from .._contract import passes_through
from .._validation import _describe, as_array, check_finite_values, check_flag
from ..engine.autograd import Tensor, _tensor_argument

__all__ = ["Module", "Sequential", "parameter_count"]


class Module:
    """Base class: finds the parameters among the attributes, in the order they were assigned.

    A module may also hold *buffers*: arrays it learns without a gradient (the running averages of batch
    normalization). A subclass names them in ``_buffers``; :meth:`state_dict` saves them with the parameters.
    """

    training = True
    _buffers = ()  # names of the attributes that hold buffers (NumPy arrays), in a stable order

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

    def named_parameters(self, prefix="", _seen=None):
        """An iterator of (dotted name, Tensor) for every parameter, sub-modules included, in a stable order.

        A parameter shared by two layers (tied weights) is listed once, under its first name, so that an
        optimizer updates it once per step.

        Parameters
        ----------
        prefix : str, default ""
            Put in front of every name (e.g. "encoder.").
        """
        if not isinstance(prefix, str):
            raise TypeError(f"prefix must be a string put in front of every name; received {_describe(prefix)}.")
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

    def train(self, mode=True):
        """Switch this module and its sub-modules to training mode (dropout on), or with ``mode=False`` off."""
        mode = check_flag(mode, "mode")
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

    def _check_buffer(self, attr, value, key):
        """A value about to be loaded into buffer ``attr`` (shape and finiteness already checked), or an error."""
        return value

    def state_dict(self):
        """A copy of every parameter's values, and of every buffer (running averages), keyed by its dotted name."""
        state = {name: p.data.copy() for name, p in self.named_parameters()}
        state.update((name, np.array(getattr(module, attr))) for name, module, attr in self._buffer_slots())
        return state

    def load_state_dict(self, state):
        """Copy values saved by :meth:`state_dict` into the parameters and the buffers (running averages).

        Parameters
        ----------
        state : dict of name -> array
            One finite array per parameter and per buffer, under the names and with the shapes of :meth:`state_dict`
            (a module may check its buffers further: batch normalization refuses a negative variance). Every entry
            is checked before any is loaded, so a refused state leaves the module unchanged.
        """
        if not isinstance(state, dict):
            raise TypeError(f"state must be a dict of parameter or buffer name -> array, as returned by state_dict(); "
                            f"received {_describe(state)}.")
        own = dict(self.named_parameters())
        buffers = {name: (module, attr) for name, module, attr in self._buffer_slots()}
        expected = set(own) | set(buffers)
        missing, unexpected = sorted(expected - set(state)), sorted(set(state) - expected, key=str)
        if missing or unexpected:
            raise ValueError(f"state does not match the module: missing {missing}, unexpected {unexpected}. Load a "
                             "state_dict() saved from a module of the same architecture.")
        values = {}
        for name in [*own, *buffers]:
            key = f"state[{name!r}]"
            value = as_array(state[name], key)
            kind, shape = ("parameter", own[name].shape) if name in own else ("buffer", getattr(*buffers[name]).shape)
            if value.shape != shape:
                raise ValueError(f"{key} has shape {value.shape}; expected the {kind}'s shape {shape}. Load a "
                                 "state_dict() saved from a module of the same sizes.")
            values[name] = check_finite_values(value, key)  # a Tensor holds no NaN; a weight of inf is no weight
            if name in buffers:
                module, attr = buffers[name]
                values[name] = module._check_buffer(attr, values[name], key)
        for name, p in own.items():
            p.data = values[name].copy()
            p.grad = None
        for name, (module, attr) in buffers.items():
            setattr(module, attr, values[name].astype(getattr(module, attr).dtype))  # a copy, in the buffer's dtype


class Sequential(Module):
    """Apply modules (or plain functions of a Tensor) one after the other: ``Sequential(layer_1, layer_2, ...)``."""

    def __init__(self, *layers):
        for k, layer in enumerate(layers):
            if not callable(layer):
                raise TypeError(f"layers[{k}] must be a Module or a function of a Tensor (such as Tensor.relu); "
                                f"received {_describe(layer)}.")
        self.layers = list(layers)

    def _children(self):
        for k, layer in enumerate(self.layers):
            if isinstance(layer, Module):
                yield f"layers.{k}", layer

    @passes_through  # each layer is checked as the caller's own call: they were put together by the caller
    def forward(self, x):
        """The layers applied in order to ``x`` (a Tensor or an array)."""
        x = _tensor_argument(x, "x", allow_empty=False)
        for layer in self.layers:
            x = layer(x)
        return x

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
