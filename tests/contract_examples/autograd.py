"""Valid examples for the input contract: autograd (chapter 4's Tensor engine).

Also the helpers the examples of nn, optim, functional and conv share: ``positional`` for a callable that takes
``*args`` (the harness passes arguments by name) and ``any_nd_tensor`` for a Tensor argument of any number of
dimensions (a batch of shape (..., D), or operands that broadcast), where "one dimension more" is valid.
"""

import math

import numpy as np

import contract
from contract import Example
from implementations.engine import autograd, functional
from implementations.engine.autograd import Tensor

_rng = np.random.default_rng(0)
A = _rng.normal(size=(2, 3))  # (2, 3)
POSITIVE = A**2 + 0.5  # (2, 3), for log and sqrt


def positional(function, name):
    """``function(*kwargs[name])`` under the function's own name: for ``reshape(*shape)``, ``Sequential(*layers)``."""

    def call(**kwargs):
        return function(*kwargs[name])

    call.__name__ = getattr(function, "__name__", name)
    call.__qualname__ = getattr(function, "__qualname__", name)
    return call


def any_nd_tensor(name, value, *, empty=True):
    """Extra bad calls for a Tensor argument of any number of dimensions: the role ``tensor`` without its
    "one dimension more" (a string, a ragged list, NaN and inf in an array, and, with ``empty``, no rows)."""
    return [(description, {name: bad}, ()) for description, bad in contract._tensor_variants(value)
            if description != "one dimension more" and (empty or description != "no rows")]


def _leaf():
    return Tensor(A, requires_grad=True)


def _method(name, data=A):
    """A bound method of a fresh Tensor, called with no arguments."""
    return Example(build=lambda: (getattr(Tensor(data, requires_grad=True), name), {}))


def _bad_axes(ndim=2):
    return [("an axis out of range", {"axis": ndim}, ()), ("a fractional axis", {"axis": 1.5}, ()),
            ("a string axis", {"axis": "rows"}, ())]


def _backward():
    y = _leaf() * 2.0  # (2, 3)
    return y.backward, {"grad": np.ones((2, 3))}


EXAMPLES = {
    "implementations.engine.autograd.Tensor": Example(
        build=lambda: (Tensor, {"data": A, "requires_grad": True}),
        roles={"requires_grad": "flag"},
        extra=[("a string", {"data": "not data"}, ()), ("a ragged nested list", {"data": [[1.0, 2.0], [3.0]]}, ()),
               ("a NaN entry", {"data": [1.0, math.nan]}, ()), ("None", {"data": None}, ()),
               ("a dict", {"data": {"a": 1.0}}, ())],
        passthrough={"data": "±inf is allowed (docstring): masks and fill values before a softmax"}),
    "implementations.engine.autograd.Tensor.backward": Example(
        build=_backward,
        roles={"grad": "tensor"}),
    "implementations.engine.autograd.Tensor.detach": _method("detach"),
    "implementations.engine.autograd.Tensor.exp": _method("exp"),
    "implementations.engine.autograd.Tensor.gelu": _method("gelu"),
    "implementations.engine.autograd.Tensor.item": _method("item", data=[[1.5]]),
    "implementations.engine.autograd.Tensor.log": _method("log", data=POSITIVE),
    "implementations.engine.autograd.Tensor.numpy": _method("numpy"),
    "implementations.engine.autograd.Tensor.relu": _method("relu"),
    "implementations.engine.autograd.Tensor.sigmoid": _method("sigmoid"),
    "implementations.engine.autograd.Tensor.softplus": _method("softplus"),
    "implementations.engine.autograd.Tensor.topological_order": _method("topological_order"),
    "implementations.engine.autograd.Tensor.sqrt": _method("sqrt", data=POSITIVE),
    "implementations.engine.autograd.Tensor.tanh": _method("tanh"),
    "implementations.engine.autograd.Tensor.log_softmax": Example(
        build=lambda: (_leaf().log_softmax, {"axis": -1}),
        extra=_bad_axes()),
    "implementations.engine.autograd.Tensor.softmax": Example(
        build=lambda: (_leaf().softmax, {"axis": -1}),
        extra=_bad_axes()),
    "implementations.engine.autograd.Tensor.standardize": Example(
        build=lambda: (_leaf().standardize, {"axis": -1, "eps": 1e-5}),
        roles={"eps": "rate"},
        extra=_bad_axes()),
    "implementations.engine.autograd.Tensor.masked_fill": Example(
        build=lambda: (_leaf().masked_fill, {"mask": A > 0, "value": -np.inf}),
        roles={"mask": "array"},
        extra=[("a mask of 0.5", {"mask": np.full((2, 3), 0.5)}, ()),
               ("a mask that does not broadcast", {"mask": np.ones((2, 4), bool)}, ()),
               ("NaN", {"value": math.nan}, ()), ("a string", {"value": "-inf"}, ()),
               ("a Tensor", {"value": Tensor(1.0)}, ())],
        passthrough={"value": "-inf is the documented fill before a softmax (weight 0)"}),
    "implementations.engine.autograd.Tensor.max": Example(
        build=lambda: (_leaf().max, {"axis": 1, "keepdims": True}),
        roles={"keepdims": "flag"},
        extra=_bad_axes() + [("a repeated axis", {"axis": (0, 0)}, ())]),
    "implementations.engine.autograd.Tensor.mean": Example(
        build=lambda: (_leaf().mean, {"axis": 1, "keepdims": True}),
        roles={"keepdims": "flag"},
        extra=_bad_axes() + [("a repeated axis", {"axis": (0, 0)}, ())]),
    "implementations.engine.autograd.Tensor.sum": Example(
        build=lambda: (_leaf().sum, {"axis": 1, "keepdims": True}),
        roles={"keepdims": "flag"},
        extra=_bad_axes() + [("a repeated axis", {"axis": (0, 0)}, ())]),
    "implementations.engine.autograd.Tensor.reshape": Example(
        build=lambda: (positional(_leaf().reshape, "shape"), {"shape": (3, 2)}),
        extra=[("a shape of the wrong size", {"shape": (4, 4)}, ()), ("a string entry", {"shape": ("3", 2)}, ()),
               ("a fractional entry", {"shape": (1.5, 4)}, ()), ("two unknown sizes", {"shape": (-1, -1)}, ())]),
    "implementations.engine.autograd.Tensor.transpose": Example(
        build=lambda: (positional(_leaf().transpose, "axes"), {"axes": (1, 0)}),
        extra=[("a repeated axis", {"axes": (0, 0)}, ()), ("an axis out of range", {"axes": (0, 2)}, ()),
               ("too few axes", {"axes": (0,)}, ()), ("a string axis", {"axes": ("1", 0)}, ()),
               ("too many axes", {"axes": (2, 1, 0)}, ())]),
    "implementations.engine.functional.concatenate": Example(
        build=lambda: (functional.concatenate, {"tensors": [_leaf(), Tensor(A)], "axis": 0}),
        extra=[("a string", {"tensors": "ab"}, ()), ("an empty list", {"tensors": []}, ()),
               ("a Tensor instead of a list", {"tensors": Tensor(A)}, ()),
               ("shapes that differ off the axis", {"tensors": [Tensor(A), Tensor(np.ones((2, 4)))]}, ()),
               ("a different number of axes", {"tensors": [Tensor(A), Tensor(np.ones(3))]}, ()),
               ("a NaN entry", {"tensors": [Tensor(A), np.array([[math.nan, 0.0, 0.0]])]}, ()),
               ("a string entry", {"tensors": [Tensor(A), "x"]}, ()),
               ("an axis out of range", {"axis": 2}, ()), ("a fractional axis", {"axis": 0.5}, ()),
               ("None", {"axis": None}, ())]),
    "implementations.engine.functional.stack": Example(
        build=lambda: (functional.stack, {"tensors": [_leaf(), Tensor(A)], "axis": 1}),
        extra=[("a string", {"tensors": "ab"}, ()), ("an empty list", {"tensors": []}, ()),
               ("different shapes", {"tensors": [Tensor(A), Tensor(np.ones((3, 2)))]}, ()),
               ("an inf entry", {"tensors": [Tensor(A), np.full((2, 3), np.inf)]}, ()),
               ("an axis out of range", {"axis": 3}, ()), ("a fractional axis", {"axis": 0.5}, ())]),
    "implementations.engine.functional.where": Example(
        build=lambda: (functional.where, {"condition": A > 0, "a": _leaf(), "b": 0.0}),
        roles={"condition": "array:any-nd"},
        extra=any_nd_tensor("a", A) + [("a shape that does not broadcast", {"a": np.ones((2, 4))}, ()),
                                       ("NaN", {"b": math.nan}, ()), ("a string", {"b": "zero"}, ()),
                                       ("a shape that does not broadcast", {"b": np.ones((3, 3))}, ()),
                                       ("a condition of 0.5", {"condition": np.full((2, 3), 0.5)}, ())],
        passthrough={"b": "a plain number may be ±inf (a fill value, as in masked_fill)"}),
    "implementations.engine.autograd.is_grad_enabled": Example(build=lambda: (autograd.is_grad_enabled, {})),
    "implementations.engine.autograd.no_grad": Example(build=lambda: (autograd.no_grad, {})),
}
