"""The engine's checks of a caller's arguments, each once: what the declarations of :mod:`.autograd` and
:mod:`.functional` name, and the errors of operations whose operands do not fit.

A Tensor's values are checked once, when it is made from data; afterwards only O(1) facts (shapes, axes) are checked,
so that an operation costs the same whether its operands came from a caller or from the engine itself. The Tensor
class is the one the engine registered with the input contract (``_contract.TENSOR``), so this module imports none of
the engine's.
"""

import numbers

import numpy as np

from .. import _contract
from .._validation import _describe, as_array, as_mask, check_finite_values

__all__ = []


def tensor_data(data, name):
    """The data of a new Tensor: numbers of any shape (an empty array too); ±inf are allowed (a mask's fill), NaN not.

    A Tensor passes as it is: its values were checked when it was made.
    """
    if isinstance(data, _contract.TENSOR.cls):
        return data
    array = as_array(data, name)  # strings, ragged lists, None refused by name, before any conversion
    if np.isnan(array).any():
        what = "Tensor data" if name == "data" else name
        raise ValueError(f"{what} contains {int(np.isnan(array).sum())} NaN value(s); expected numbers. "
                         "Remove or impute them first.")
    return array


def tensor_argument(x, name, *, allow_empty=True):
    """The argument ``x`` of a public function as a Tensor, with errors that name it.

    A Tensor is taken as it is: its values were checked once, when it was made from data, so only O(1) checks
    (here, emptiness) run on it, however often it is called. Other data (a NumPy array, a nested list) are converted
    once, refusing strings, ragged lists, NaN and ±inf by name. A plain number may be ±inf (a fill value), not NaN.
    """
    Tensor = _contract.TENSOR.cls
    if isinstance(x, Tensor):
        if not allow_empty and x.data.size == 0:
            raise ValueError(f"{name} is empty (shape {x.shape}); expected at least one entry.")
        return x
    if isinstance(x, numbers.Real) and not isinstance(x, (bool, np.bool_)):  # a constant: no array to scan
        if x != x:
            raise ValueError(f"{name} is NaN; expected a number. Tensors hold no NaN.")
        return Tensor._result(np.array(float(x)), (), None, "")
    array = check_finite_values(as_array(x, name), name)
    if not allow_empty and array.size == 0:
        raise ValueError(f"{name} is empty (shape {array.shape}); expected at least one entry.")
    return Tensor._result(np.array(array, dtype=np.float64), (), None, "")  # a copy, as Tensor(x) makes


def tensor_list(tensors, name):
    """A non-empty list of Tensors from a list (or any iterable, read once) of Tensors or arrays, checked by name."""
    if isinstance(tensors, (str, bytes, np.ndarray, _contract.TENSOR.cls)) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"{name} must be a list of Tensors; received {type(tensors).__name__}. "
                        f"Pass a list, e.g. {name}=[a, b].")
    tensors = [tensor_argument(t, f"{name}[{k}]") for k, t in enumerate(tensors)]
    if not tensors:
        raise ValueError(f"{name} is empty; expected at least one Tensor to join.")
    return tensors


def mask(value, name):
    """A bool mask: a bool array as it is (O(1)), a Tensor's values, or other data holding only 0 and 1."""
    if isinstance(value, _contract.TENSOR.cls):
        value = value.data
    return as_mask(value, name)


def axis_in_range(axis, ndim, shape, *, what="a tensor of shape {}", allow_none=True, allow_tuple=True):
    """O(1): ``axis`` is an integer in −ndim..ndim−1 (or None, or a tuple of distinct such integers, where allowed).

    ``what`` describes the array the axes belong to, formatted with ``shape`` only when there is an error.
    """
    if (type(axis) is int and -ndim <= axis < ndim) or (axis is None and allow_none):  # the common cases, at once
        return
    axes = axis if isinstance(axis, tuple) and allow_tuple else (axis,)
    for a in axes:
        if type(a) is not int and (isinstance(a, (bool, np.bool_)) or not isinstance(a, numbers.Integral)):
            kinds = {(True, True): "an integer, a tuple of integers or None", (True, False): "an integer or None",
                     (False, True): "an integer or a tuple of integers", (False, False): "an integer"}
            raise TypeError(f"axis must be {kinds[allow_none, allow_tuple]}; received {axis!r}.")
        if not -ndim <= a < ndim:
            raise ValueError(f"axis={axis!r} is out of range for {what.format(shape)} ({ndim}-D); expected an axis "
                             f"in {-ndim}..{ndim - 1} (negative axes count from the end).")
    if len(axes) > 1 and len({a % ndim for a in axes}) < len(axes):
        raise ValueError(f"axis={axis!r} names an axis twice; expected distinct axes of {what.format(shape)}.")


def axes_of(self, axis):
    """The ``axis`` of a reduction or a normalization of the tensor ``self``: one of its axes, a tuple of them, None."""
    axis_in_range(axis, self.data.ndim, self.data.shape)


def operands_broadcast(symbol, a, b):
    """An error if the shapes of ``a`` and ``b`` (Tensors) do not broadcast, for the operation ``a symbol b``.

    Compared axis by axis from the right in plain Python: cheaper than NumPy's own check on these short tuples.
    """
    for n, m in zip(reversed(a.shape), reversed(b.shape), strict=False):
        if n != m and n != 1 and m != 1:
            raise ValueError(f"the operands of {symbol} have shapes {a.shape} and {b.shape}, which do not broadcast; "
                         "expected shapes that agree axis by axis from the right, where an axis of length 1 (or a "
                         "missing one) is stretched. Reshape one operand, e.g. x.reshape(-1, 1) for a column.")


def operands_multiply(a, b):
    """An error if ``a @ b`` is undefined: inner dimensions that differ, a scalar, batch axes that do not broadcast."""
    if a.ndim == 0 or b.ndim == 0:
        raise ValueError(f"the operands of @ have shapes {a.shape} and {b.shape}; @ needs at least one axis on each "
                         "side. Use * to multiply by a number.")
    inner_a, inner_b = a.shape[-1], b.shape[-2] if b.ndim > 1 else b.shape[0]
    if inner_a != inner_b:
        raise ValueError(f"the operands of @ have shapes {a.shape} and {b.shape}: the last axis of the left one "
                         f"({inner_a}) must equal the {'second-to-last' if b.ndim > 1 else 'only'} axis of the right "
                         f"one ({inner_b}). Transpose one of them, or check which weights belong to which input.")
    batch_a, batch_b = a.shape[:-2], b.shape[:-2]
    if batch_a != batch_b and any(n != m and n != 1 and m != 1
                                  for n, m in zip(reversed(batch_a), reversed(batch_b), strict=False)):
        raise ValueError(f"the operands of @ have shapes {a.shape} and {b.shape}, whose batch axes {batch_a} and "
                         f"{batch_b} do not broadcast; expected equal batch axes (or axes of length 1).")


def shape_fits(shape, tensor, error):
    """The error of a ``reshape`` NumPy refused, with the sizes in it."""
    return (TypeError if isinstance(error, TypeError) else ValueError)(
        f"shape {shape!r} does not fit a tensor of shape {tensor.shape} ({tensor.size} entries); expected integers "
        f"whose product is {tensor.size} (one of them may be -1). NumPy says: {error}")


def permutation(axes, shape):
    """The axes of a ``transpose``: each of 0, …, ndim − 1 once (negative axes count from the end)."""
    ndim = len(shape)
    whole = all(type(a) is int or (isinstance(a, numbers.Integral) and not isinstance(a, bool)) for a in axes)
    if not whole or sorted(a % ndim if -ndim <= a < ndim else ndim for a in axes) != list(range(ndim)):
        raise ValueError(f"axes {axes!r} is not a permutation of the {ndim} axes of a tensor of shape {shape}; "
                         f"expected each of 0, …, {ndim - 1} once (negative axes count from the end).")
    return axes


def index_fits(index, shape, error):
    """The error of an index that NumPy refused for a tensor of ``shape``, with the tensor's shape in it."""
    kind = IndexError if isinstance(error, IndexError) else TypeError
    return kind(f"the index {_describe_index(index)} does not fit a tensor of shape {shape}: {error}. Index each axis "
                "within its length (negative indices count from the end).")


def _describe_index(index):
    parts = index if isinstance(index, tuple) else (index,)
    return "[" + ", ".join(f"array of shape {p.shape}" if isinstance(p, np.ndarray) else repr(p) for p in parts) + "]"


def can_backward(self, grad):
    """``backward`` needs a tensor that requires a gradient, and ``grad`` of its shape (or a scalar tensor)."""
    if not self.requires_grad:
        raise RuntimeError("backward() called on a tensor that does not require a gradient: none of its inputs had "
                           "requires_grad=True, or it was computed inside no_grad().")
    if grad is None and self.data.size != 1:
        raise RuntimeError(f"backward() without a gradient needs a scalar; this tensor has shape {self.shape}. "
                           "Reduce it first (e.g. loss.sum() or loss.mean()) or pass grad=.")
    if grad is not None and grad.shape != self.shape:
        raise ValueError(f"grad has shape {grad.shape}; expected the tensor's shape {self.shape}.")


def same_shape(prediction, target):
    """``mse_loss`` compares entry by entry: no broadcasting (almost always a bug in a loss)."""
    if prediction.shape != target.shape:
        raise ValueError(f"prediction has shape {prediction.shape} but target has shape {target.shape}; expected "
                         "equal shapes (broadcasting here is almost always a bug).")


def below_one(p):
    """A dropout rate p must leave something: p < 1."""
    if p >= 1.0:
        raise ValueError(f"p must be a probability in [0, 1); received {p!r}. p = 1 would drop every entry.")


def integer_targets(targets, name):
    """Class indices as an int64 array: an integer array as it is (O(1)); other data must hold whole numbers."""
    t = targets.data if isinstance(targets, _contract.TENSOR.cls) else targets
    if isinstance(t, np.ndarray) and t.dtype.kind in "iu":
        return t.astype(np.int64, copy=False)
    t = check_finite_values(as_array(t, name), name)
    if t.size and not np.all(t == np.round(t)):
        raise ValueError(f"{name} must be integer class indices; received non-integer values such as "
                         f"{t[t != np.round(t)].flat[0]:g}. Encode the classes as 0, …, K − 1.")
    return t.astype(np.int64)


def optional_integer(value, name):
    """None, or an integer (the ``ignore_index`` that marks targets left out of a loss, such as -100)."""
    if value is not None and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        raise ValueError(f"{name} must be an integer (such as -100 for padding) or None; received {value!r}.")
    return value


def targets_are_classes(logits, targets, ignore_index):
    """One class index 0, …, K − 1 (or ``ignore_index``) per row of the logits, and at least one that counts."""
    K = logits.shape[-1]
    if targets.shape != logits.shape[:-1]:
        raise ValueError(f"targets have shape {targets.shape} but logits have shape {logits.shape}; expected targets "
                         f"of shape {logits.shape[:-1]} (one class index per row of logits).")
    kept = targets if ignore_index is None else targets[targets != ignore_index]
    if not kept.size:
        raise ValueError("targets are empty; there is nothing to average." if ignore_index is None else
                         "every target equals ignore_index; there is nothing to average.")
    if kept.min() < 0 or kept.max() >= K:
        bad = kept[(kept < 0) | (kept >= K)]
        raise ValueError(f"targets must lie in 0..{K - 1} (K = {K} classes); received {np.unique(bad)[:5].tolist()}. "
                         "Use ignore_index for padding positions.")


def probabilities_like(logits, targets):
    """Targets of a binary cross-entropy: the shape of the logits, values in [0, 1]."""
    if targets.shape != logits.shape:
        raise ValueError(f"targets have shape {targets.shape}; expected the shape of the logits, {logits.shape}.")
    if np.any((targets < 0) | (targets > 1)):
        raise ValueError("targets must lie in [0, 1]; received values outside it. Use 0/1 labels or probabilities.")


def constant_exponent(value, name):
    """The exponent of ``x ** p``: a constant number (a Tensor exponent would need its own gradient)."""
    if isinstance(value, _contract.TENSOR.cls) or isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"only a constant scalar exponent is supported; received {type(value).__name__}. Pass {name} "
                        "as a number, e.g. x ** 2.")
    return float(value)


def fill_value(value, name):
    """A constant to fill with: a number, ±inf allowed (−inf before a softmax gives weight 0), NaN not."""
    if isinstance(value, _contract.TENSOR.cls) or isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a constant number (such as -np.inf); received {_describe(value)}.")
    if value != value:
        raise ValueError(f"{name} is NaN; expected a number (±inf allowed). Tensors hold no NaN.")
    return float(value)


def mask_fits(self, mask):
    """A mask of ``masked_fill`` must broadcast to the tensor's shape (not stretch the tensor)."""
    if mask.shape != self.data.shape:
        try:
            broadcast = np.broadcast_shapes(mask.shape, self.data.shape)
        except ValueError:
            broadcast = None
        if broadcast != self.data.shape:
            raise ValueError(f"mask has shape {mask.shape}, which does not broadcast to the tensor's shape "
                             f"{self.shape}; expected that shape or one that broadcasts to it.")


def joinable(tensors, axis):
    """``concatenate``: an axis of the tensors, and equal shapes except along it."""
    first = tensors[0].shape
    axis_in_range(axis, len(first), first, what="tensors of shape {}", allow_none=False, allow_tuple=False)
    joined = axis % len(first)
    for k, t in enumerate(tensors[1:], start=1):
        if t.ndim != len(first) or any(n != m for d, (n, m) in enumerate(zip(t.shape, first, strict=True))
                                       if d != joined):
            raise ValueError(f"tensors[{k}] has shape {t.shape} but tensors[0] has shape {first}; expected the same "
                             f"number of axes and the same sizes on every axis except axis={axis}, the one joined.")


def stackable(tensors, axis):
    """``stack``: a place for the new axis, and tensors of one shape."""
    first = tensors[0].shape
    axis_in_range(axis, len(first) + 1, first, what="the stack of tensors of shape {}", allow_none=False,
                      allow_tuple=False)
    for k, t in enumerate(tensors[1:], start=1):
        if t.shape != first:
            raise ValueError(f"tensors[{k}] has shape {t.shape} but tensors[0] has shape {first}; expected equal "
                             "shapes (stack adds a new axis; to join along an existing one use concatenate).")


def where_broadcasts(condition, a, b):
    """``where``: the condition and both operands broadcast together."""
    if condition.shape == a.shape == b.shape:
        return
    for name, t in (("a", a), ("b", b)):
        try:
            np.broadcast_shapes(condition.shape, t.shape)
        except ValueError:
            raise ValueError(f"{name} has shape {t.shape}, which does not broadcast with condition of shape "
                             f"{condition.shape}; expected shapes that broadcast together.") from None
    try:
        np.broadcast_shapes(condition.shape, a.shape, b.shape)
    except ValueError:
        raise ValueError(f"a of shape {a.shape} and b of shape {b.shape} do not broadcast together (with condition "
                         f"of shape {condition.shape}); expected shapes that broadcast.") from None
