"""A small reverse-mode automatic differentiation engine on NumPy arrays.

Chapter 4 of the book. A :class:`Tensor` holds a float64 array and, when it was computed from
tensors that require gradients, the operation that made it: its parents and a ``backward`` function
that turns the gradient of a scalar loss with respect to the output into gradients with respect to
each parent (the chain rule, one local derivative at a time). ``loss.backward()`` visits the graph in
reverse topological order and accumulates ``.grad`` on the leaves, as PyTorch does.

Every operation works on whole arrays with NumPy broadcasting; when an input was broadcast, its
gradient is summed back to the input's shape (``_unbroadcast``).
"""

import contextlib
import math
import numbers

import numpy as np

from .. import _contract, numeric
from .._validation import as_array, check_finite_values, check_flag, check_positive

__all__ = ["Tensor", "no_grad", "is_grad_enabled", "concatenate", "stack", "where"]

_GRAD_ENABLED = True


@contextlib.contextmanager
def no_grad():
    """Inside ``with no_grad():`` operations record no graph (for evaluation and optimizer steps)."""
    global _GRAD_ENABLED
    previous, _GRAD_ENABLED = _GRAD_ENABLED, False
    try:
        yield
    finally:
        _GRAD_ENABLED = previous


def is_grad_enabled():
    """False inside :func:`no_grad`."""
    return _GRAD_ENABLED


def _unbroadcast(grad, shape):
    """Sum ``grad`` over the axes that broadcasting added or stretched, so it gets ``shape``.

    If x of shape (3,) was added to an array of shape (4, 3), each x_j was used 4 times, so its
    gradient is the sum of the 4 upstream gradients: the sum over the added leading axis.
    """
    if grad.shape == shape:  # nothing was broadcast (the common case)
        return grad
    while grad.ndim > len(shape):  # leading axes added by broadcasting
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:  # axes of length 1 that were stretched
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def _matmul(a, b):
    """a @ b; the operands of a batched product are made contiguous first, since NumPy multiplies strided
    stacks of matrices (attention heads after a transpose), or a stack by a transposed matrix (Wᵀ in a
    backward pass), several times more slowly."""
    if a.ndim > 2 or b.ndim > 2:
        if not a.flags.c_contiguous:
            a = np.ascontiguousarray(a)
        if not b.flags.c_contiguous:
            b = np.ascontiguousarray(b)
    return a @ b


class _IndexedGrad:
    """The gradient of ``x[index]``: ``value`` belongs at ``index`` of an array of zeros.

    Returned by the backward of indexing so that the engine can add it into one accumulator in
    place. Materializing a full-size array per slice would make T slices of a (B, T, D) sequence
    cost O(T²) in the backward pass; written in place they cost O(T).
    """

    __slots__ = ("index", "value", "basic")

    def __init__(self, index, value, basic):
        self.index, self.value, self.basic = index, value, basic

    def add_to(self, accumulator):
        if self.basic:
            accumulator[self.index] += self.value  # basic indexing: each element at most once, a fast view
        elif isinstance(self.index, np.ndarray) and self.index.dtype.kind in "iu" and accumulator.ndim > 1:
            _add_at_rows(accumulator, self.index, self.value)  # whole rows, as in an embedding lookup
        elif not _add_at_trailing(accumulator, self.index, self.value):
            np.add.at(accumulator, self.index, self.value)  # integer arrays may repeat: accumulate each use
        return accumulator


def _add_at_rows(W, rows, values):
    """``np.add.at(W, rows, values)`` for integer ``rows`` of a C-contiguous W: a row listed twice gets both.

    Done as np.add.at on the flattened W, which NumPy runs several times faster than on rows; the
    additions happen in the same order, so the result is the same to the last bit.
    """
    if not W.flags.c_contiguous:
        np.add.at(W, rows, values)
        return
    row_size = W[0].size
    entries = rows[..., None] * row_size + np.arange(row_size)  # (..., row_size): every entry of every row
    np.add.at(W.reshape(-1), entries.reshape(-1), np.reshape(values, -1))


def _add_at_trailing(W, index, values):
    """``np.add.at(W, index, values)`` for ``index = (:, …, :, i_1, …, i_k)``: at least one whole leading axis, then k
    integer arrays for the last k axes (the windows of im2col and of pooling). Returns False, doing nothing, for any
    other index.

    Done as np.add.at on the flattened W with one flat position per entry, which NumPy runs several times faster
    than on a mixed index; the additions happen in the same order, so the result is the same to the last bit.
    """
    if not isinstance(index, tuple) or not W.flags.c_contiguous:
        return False
    lead = 0
    while lead < len(index) and isinstance(index[lead], slice) and index[lead] == slice(None):
        lead += 1
    arrays = index[lead:]
    if not lead:  # no whole leading axis (e.g. x[np.arange(N), y]): np.add.at is fast enough there
        return False
    if not arrays or lead + len(arrays) != W.ndim or not all(
            isinstance(a, np.ndarray) and a.dtype.kind in "iu" and (a.size == 0 or a.min() >= 0) for a in arrays):
        return False
    try:
        arrays = np.broadcast_arrays(*arrays)
    except ValueError:
        return False
    trailing_shape = W.shape[lead:]
    if any(a.size and a.max() >= n for a, n in zip(arrays, trailing_shape, strict=True)):
        return False  # out of range: let np.add.at raise its own error
    position = np.zeros(arrays[0].shape, dtype=np.int64)  # flat position of each entry within the trailing axes
    for a, n in zip(arrays, trailing_shape, strict=True):
        position = position * n + a
    block = int(np.prod(trailing_shape))  # entries of W per leading index
    leading = int(np.prod(W.shape[:lead]))
    entries = np.arange(leading)[:, None] * block + position.reshape(1, -1)  # (leading, positions)
    np.add.at(W.reshape(-1), entries.reshape(-1), np.broadcast_to(values, W.shape[:lead] + position.shape).reshape(-1))
    return True


def _is_basic_index(index):
    """True for slices, integers, None and Ellipsis only: an index that selects each element at most once."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, (slice, int, np.integer)) or i is None or i is Ellipsis for i in parts)


def _as_tensor(value):
    if isinstance(value, Tensor):
        return value
    if isinstance(value, (int, float)) and value == value:  # a plain number (not NaN): no array checks needed
        return Tensor._result(np.array(float(value)), (), None, "")
    return Tensor(value)


def _tensor_argument(x, name, *, allow_empty=True):
    """The argument ``x`` of a public function as a Tensor, with errors that name it.

    A Tensor is taken as it is: its values were checked once, when it was made from data, so only O(1) checks
    (here, emptiness) run on it, however often it is called. Other data (a NumPy array, a nested list) are
    converted once, refusing strings, ragged lists, NaN and ±inf by name. A plain number may be ±inf (a fill
    value), not NaN.
    """
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


def _tensors(named):
    """(Tensors, any_was_tensor) for the arguments {name: value}, each refused by its name if it is not numeric data.

    A Tensor is taken as it is (its values were checked when it was made); other data are converted once, refusing
    strings, ragged lists, NaN and ±inf. If any argument was a Tensor, the public function returns Tensors.
    """
    any_tensor = any(isinstance(a, Tensor) for a in named.values())
    return [_tensor_argument(a, name) for name, a in named.items()], any_tensor


def _result(t, as_tensor):
    return t if as_tensor else t.data


def _check_not_empty(t, name, what):
    if t.size == 0:
        raise ValueError(f"{name} is empty (shape {t.shape}); expected {what}. Check the slicing that produced it.")


def _bool_mask(mask, name):
    """``mask`` as a bool array: a bool array as it is (O(1)); other data must hold only 0 and 1."""
    if isinstance(mask, Tensor):
        mask = mask.data
    if isinstance(mask, np.ndarray) and mask.dtype == bool:
        return mask
    values = check_finite_values(as_array(mask, name), name)
    if np.any((values != 0) & (values != 1)):
        raise ValueError(f"{name} must hold True/False (or 0/1); received other values such as "
                         f"{values[(values != 0) & (values != 1)].flat[0]:g}. Build it with a comparison, e.g. x > 0.")
    return values.astype(bool)


def _check_axis(axis, ndim, shape, *, what="a tensor of shape {}", allow_none=True, allow_tuple=True):
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


class Tensor:
    """A float64 array that remembers how it was computed, for reverse-mode differentiation.

    Parameters
    ----------
    data : array_like
        Converted to a float64 ndarray; NaN is refused, and so are strings and ragged lists (±inf is allowed,
        e.g. for masks: a Tensor's values are checked here, once, and never again by the operations).
    requires_grad : bool, default False
        Leaves with ``requires_grad=True`` (the parameters) get a ``.grad`` after ``backward``.

    Attributes
    ----------
    data : ndarray
    grad : ndarray of the shape of ``data``, or None
        Accumulated gradient of the loss; None until a backward pass reaches this leaf.
    requires_grad : bool
    """

    __array_priority__ = 100  # ndarray (op) Tensor defers to Tensor's reflected operators
    # fixed attributes: a graph holds thousands of tensors, and slots make creating them cheaper
    __slots__ = ("data", "grad", "requires_grad", "_parents", "_backward", "op", "__weakref__")

    def __init__(self, data, requires_grad=False):
        if isinstance(data, Tensor):
            data = data.data
        array = np.array(as_array(data, "data"), dtype=np.float64)  # strings, ragged lists, None refused by name
        if np.isnan(array).any():
            raise ValueError(
                f"Tensor data contains {int(np.isnan(array).sum())} NaN value(s); expected numbers. "
                "Remove or impute them first."
            )
        self.data = array
        self.grad = None
        self.requires_grad = check_flag(requires_grad, "requires_grad")
        self._parents = ()
        self._backward = None
        self.op = ""  # name of the operation that produced the tensor ("" for a leaf)

    # --- bookkeeping ------------------------------------------------------------------------

    @staticmethod
    def _result(data, parents, backward, op):
        """The output of an operation: a graph node if some parent requires a gradient."""
        out = Tensor.__new__(Tensor)
        out.data = data if type(data) is np.ndarray and data.dtype == np.float64 else np.asarray(data, np.float64)
        out.grad = None
        out.op = op
        needs_grad = False
        if _GRAD_ENABLED:
            for p in parents:
                if p.requires_grad:
                    needs_grad = True
                    break
        out.requires_grad = needs_grad
        out._parents = tuple(parents) if needs_grad else ()
        out._backward = backward if needs_grad else None
        return out

    @property
    def shape(self):
        return self.data.shape

    @property
    def ndim(self):
        return self.data.ndim

    @property
    def size(self):
        return self.data.size

    def __len__(self):
        return len(self.data)

    def __repr__(self):
        grad = ", requires_grad=True" if self.requires_grad else ""
        return f"Tensor({np.array2string(self.data, precision=4, threshold=20)}{grad})"

    def item(self):
        """The value of a one-element tensor as a Python float."""
        if self.data.size != 1:
            raise ValueError(f"item() needs a tensor with one element; this one has shape {self.shape}.")
        return float(self.data.reshape(()))

    def numpy(self):
        """A copy of the data as an ndarray."""
        return self.data.copy()

    def detach(self):
        """The same values, cut from the graph (no gradient flows through the result)."""
        return Tensor(self.data)

    # --- the backward pass ------------------------------------------------------------------

    def _topological_order(self):
        """Every node this tensor depends on, each after all of its parents; no recursion."""
        order, visited = [], set()
        stack = [(self, False)]
        while stack:
            node, parents_done = stack.pop()
            if parents_done:
                order.append(node)
            elif id(node) not in visited:
                visited.add(id(node))
                stack.append((node, True))  # finish the node after its parents
                for parent in node._parents:
                    if id(parent) not in visited:
                        stack.append((parent, False))
        return order

    def backward(self, grad=None):
        """Backpropagation, eq. (4.6): accumulate d(self)/d(leaf) · ``grad`` into ``.grad`` of every leaf.

        Nodes are visited in reverse topological order; each passes its gradient to its parents as
        vector-Jacobian products, and the contributions of every use of a node add up. Only leaves
        that require a gradient receive one.

        Parameters
        ----------
        grad : array_like of the shape of ``self``, optional
            Gradient of the final loss with respect to this tensor (finite numbers); defaults to 1 for a scalar.
        """
        if not self.requires_grad:
            raise RuntimeError(
                "backward() called on a tensor that does not require a gradient: none of its inputs had "
                "requires_grad=True, or it was computed inside no_grad()."
            )
        if grad is None:
            if self.data.size != 1:
                raise RuntimeError(
                    f"backward() without a gradient needs a scalar; this tensor has shape {self.shape}. "
                    "Reduce it first (e.g. loss.sum() or loss.mean()) or pass grad=."
                )
            grad = np.ones_like(self.data)
        else:
            grad = as_array(grad, "grad")  # strings and ragged lists refused by name, before any conversion
            if grad.shape != self.shape:
                raise ValueError(f"grad has shape {grad.shape}; expected the tensor's shape {self.shape}.")
            check_finite_values(grad, "grad")

        pending = {id(self): grad}  # gradients flowing into nodes not yet visited
        owned = set()  # keys whose pending array was allocated here and may be updated in place
        for node in reversed(self._topological_order()):
            g = pending.pop(id(node), None)
            if g is None:
                continue
            if not node._parents:  # a leaf: keep the gradient, adding to earlier backward passes
                node.grad = g.copy() if node.grad is None else node.grad + g
                continue
            for parent, parent_grad in zip(node._parents, node._backward(g), strict=True):
                if parent_grad is None or not parent.requires_grad:
                    continue
                key = id(parent)
                if isinstance(parent_grad, _IndexedGrad):  # write the slice into one accumulator
                    if key not in owned:
                        base = pending.get(key)
                        pending[key] = np.zeros(parent.shape) if base is None else np.array(base, dtype=np.float64)
                        owned.add(key)
                    parent_grad.add_to(pending[key])
                elif key in pending:
                    pending[key] = pending[key] + parent_grad
                    owned.add(key)  # a fresh array
                else:
                    pending[key] = parent_grad

    # --- arithmetic (with broadcasting) -----------------------------------------------------

    def __add__(self, other):
        other = _as_tensor(other)

        def backward(g):  # ∂(a + b)/∂a = ∂(a + b)/∂b = 1
            return _unbroadcast(g, self.shape), _unbroadcast(g, other.shape)

        return Tensor._result(self.data + other.data, (self, other), backward, "+")

    def __mul__(self, other):
        other = _as_tensor(other)
        a, b = self.data, other.data  # captured now: a later change to .data must not alter this gradient

        def backward(g):  # ∂(ab)/∂a = b, ∂(ab)/∂b = a
            return _unbroadcast(g * b, a.shape), _unbroadcast(g * a, b.shape)

        return Tensor._result(self.data * other.data, (self, other), backward, "*")

    def __neg__(self):
        return Tensor._result(-self.data, (self,), lambda g: (-g,), "neg")

    def __sub__(self, other):
        other = _as_tensor(other)

        def backward(g):  # ∂(a − b)/∂a = 1, ∂(a − b)/∂b = −1
            return _unbroadcast(g, self.shape), _unbroadcast(-g, other.shape)

        return Tensor._result(self.data - other.data, (self, other), backward, "-")

    def __truediv__(self, other):
        other = _as_tensor(other)
        a, b = self.data, other.data

        def backward(g):  # ∂(a/b)/∂a = 1/b, ∂(a/b)/∂b = −a/b²
            return _unbroadcast(g / b, a.shape), _unbroadcast(-g * a / b**2, b.shape)

        return Tensor._result(a / b, (self, other), backward, "/")

    def __pow__(self, exponent):
        if isinstance(exponent, Tensor) or not isinstance(exponent, numbers.Real):
            raise TypeError(f"only a constant scalar exponent is supported; received {type(exponent).__name__}.")
        p = float(exponent)
        x = self.data

        def backward(g):  # ∂(xᵖ)/∂x = p xᵖ⁻¹
            return (g * p * x ** (p - 1),)

        return Tensor._result(x**p, (self,), backward, f"**{p:g}")

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        return _as_tensor(other) - self

    def __rtruediv__(self, other):
        return _as_tensor(other) / self

    def __matmul__(self, other):
        """Matrix product with NumPy's rules: batched over leading axes, 1-D operands promoted."""
        other = _as_tensor(other)
        A, B = self.data, other.data
        A2 = A[None, :] if A.ndim == 1 else A  # a vector on the left is a row
        B2 = B[:, None] if B.ndim == 1 else B  # a vector on the right is a column
        out2 = _matmul(A2, B2)  # (..., n, p)
        shape = list(out2.shape)  # drop the axes that the promotion added
        if B.ndim == 1:
            shape.pop(-1)
        if A.ndim == 1:
            shape.pop(-1 if B.ndim == 1 else -2)

        def backward(g):  # C = AB: ∂L/∂A = G Bᵀ, ∂L/∂B = Aᵀ G, then undo broadcasting and promotion
            G2 = np.reshape(g, out2.shape)
            gA = _unbroadcast(_matmul(G2, np.swapaxes(B2, -1, -2)), A2.shape).reshape(A.shape)
            if B2.ndim == 2:  # one matrix for a stack of rows: the sum over the stack of Aᵀ G is one product
                gB = A2.reshape(-1, A2.shape[-1]).T @ G2.reshape(-1, G2.shape[-1])
            else:
                gB = _unbroadcast(_matmul(np.swapaxes(A2, -1, -2), G2), B2.shape)
            return gA, gB.reshape(B.shape)

        return Tensor._result(out2.reshape(shape), (self, other), backward, "@")

    def __rmatmul__(self, other):
        return _as_tensor(other) @ self

    # --- reductions -------------------------------------------------------------------------

    def _expand(self, g, axis, keepdims):
        """Give the gradient of a reduction back the reduced axes, then the input's shape."""
        if axis is not None and not keepdims:
            g = np.expand_dims(g, axis)
        return np.broadcast_to(g, self.shape)  # (a full reduction left a scalar, which broadcasts as it is)

    def sum(self, axis=None, keepdims=False):
        """Sum over ``axis`` (an int, a tuple of ints, or None for all entries)."""
        _check_axis(axis, self.data.ndim, self.data.shape)
        if keepdims is not False and keepdims is not True:
            keepdims = check_flag(keepdims, "keepdims")

        def backward(g):  # every summed entry receives the upstream gradient once (a read-only view)
            return (self._expand(g, axis, keepdims),)

        return Tensor._result(self.data.sum(axis=axis, keepdims=keepdims), (self,), backward, "sum")

    def mean(self, axis=None, keepdims=False):
        """Mean over ``axis`` (an int, a tuple of ints, or None for all entries)."""
        _check_axis(axis, self.data.ndim, self.data.shape)
        if keepdims is not False and keepdims is not True:
            keepdims = check_flag(keepdims, "keepdims")
        total = self.data.sum(axis=axis, keepdims=keepdims)
        count = self.data.size // max(np.size(total), 1)  # entries averaged into each output
        out = total / count  # what np.mean computes, without its Python-level overhead

        def backward(g):
            return (self._expand(g, axis, keepdims) / count,)

        return Tensor._result(out, (self,), backward, "mean")

    def max(self, axis=None, keepdims=False):
        """Largest values along ``axis``; the gradient goes to the maxima.

        Ties split the gradient evenly (two equal maxima get half each). PyTorch's ``max_pool2d`` sends it
        all to one of them instead; both are valid subgradients, and they differ only on exact ties, which
        are common after a ReLU (many zeros).
        """
        _check_axis(axis, self.data.ndim, self.data.shape)
        if keepdims is not False and keepdims is not True:
            keepdims = check_flag(keepdims, "keepdims")
        x = self.data
        out = x.max(axis=axis, keepdims=keepdims)

        def backward(g):
            peak = self._expand(out, axis, keepdims)
            is_max = (x == peak).astype(np.float64)
            ties = self._expand(is_max.sum(axis=axis, keepdims=keepdims), axis, keepdims)
            return (self._expand(g, axis, keepdims) * is_max / ties,)

        return Tensor._result(out, (self,), backward, "max")

    # --- element-wise functions -------------------------------------------------------------

    def exp(self):
        out = np.exp(self.data)
        return Tensor._result(out, (self,), lambda g: (g * out,), "exp")  # (eˣ)' = eˣ

    def log(self):
        x = self.data
        return Tensor._result(np.log(x), (self,), lambda g: (g / x,), "log")  # (log x)' = 1/x

    def sqrt(self):
        out = np.sqrt(self.data)
        return Tensor._result(out, (self,), lambda g: (g / (2.0 * out),), "sqrt")  # (√x)' = 1/(2√x)

    def tanh(self):
        out = np.tanh(self.data)
        return Tensor._result(out, (self,), lambda g: (g * (1.0 - out**2),), "tanh")  # tanh' = 1 − tanh²

    def sigmoid(self):
        out = numeric.sigmoid(self.data)  # the overflow-free sigmoid of eq. (2.1)
        return Tensor._result(out, (self,), lambda g: (g * out * (1.0 - out),), "sigmoid")  # sigm' = sigm(1 − sigm)

    def relu(self):
        positive = self.data > 0
        return Tensor._result(np.where(positive, self.data, 0.0), (self,), lambda g: (g * positive,), "relu")

    def gelu(self):
        """GELU, tanh approximation: ½x(1 + tanh(u)) with u = √(2/π)(x + 0.044715x³).

        Written with in-place operations: a transformer calls it on its largest activations, and every
        temporary of that size costs as much as the arithmetic.
        """
        x = self.data
        c = math.sqrt(2.0 / math.pi)  # a Python float: NumPy's float64 scalar times a large temporary is slow
        x2 = x * x  # x²: NumPy's x**3 calls pow(), 100x slower than multiplying
        u = 0.044715 * x2
        u += 1.0
        u *= x
        u *= c  # u = c x (1 + 0.044715 x²)
        t = np.tanh(u, out=u)  # u is not needed again
        out = t + 1.0
        out *= x
        out *= 0.5  # ½ x (1 + t)

        def backward(g):  # d/dx ½x(1 + t) = ½(1 + t) + ½x (1 − t²) du/dx, du/dx = c(1 + 3 · 0.044715 x²)
            local = t * t
            np.subtract(1.0, local, out=local)  # 1 − t² = tanh'(u)
            local *= (3 * 0.044715 * c) * x2 + c  # × du/dx
            local *= x
            local += t
            local += 1.0
            local *= 0.5
            local *= g
            return (local,)

        return Tensor._result(out, (self,), backward, "gelu")

    # --- shape ------------------------------------------------------------------------------

    def reshape(self, *shape):
        """The same entries in a new ``shape`` (integers, or one tuple; one of them may be −1), as ``np.reshape``."""
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        try:
            out = self.data.reshape(shape)
        except (TypeError, ValueError) as exc:  # NumPy's message names neither the argument nor the sizes
            raise (TypeError if isinstance(exc, TypeError) else ValueError)(
                f"shape {shape!r} does not fit a tensor of shape {self.shape} ({self.size} entries); expected "
                f"integers whose product is {self.size} (one of them may be -1). NumPy says: {exc}"
            ) from None
        return Tensor._result(out, (self,), lambda g: (g.reshape(self.shape),), "reshape")

    def transpose(self, *axes):
        """Permute the axes as ``np.transpose``; with no arguments, reverse them.

        ``axes`` is a permutation of 0, …, ndim − 1 (negative axes count from the end), given as integers or
        as one tuple.
        """
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        axes = tuple(axes) if axes else tuple(reversed(range(self.ndim)))
        ndim = self.data.ndim
        whole = all(type(a) is int or (isinstance(a, numbers.Integral) and not isinstance(a, bool)) for a in axes)
        if not whole or sorted(a % ndim if -ndim <= a < ndim else ndim for a in axes) != list(range(ndim)):
            raise ValueError(f"axes {axes!r} is not a permutation of the {ndim} axes of a tensor of shape "
                             f"{self.shape}; expected each of 0, …, {ndim - 1} once (negative axes count from the "
                             "end).")
        inverse = tuple(np.argsort([a % ndim for a in axes]))  # the permutation that undoes ``axes``
        return Tensor._result(np.transpose(self.data, axes), (self,), lambda g: (np.transpose(g, inverse),),
                              "transpose")

    @property
    def T(self):
        return self.transpose()

    def __getitem__(self, index):
        """Slices and integer arrays; the backward pass scatter-adds, so repeated indices accumulate."""
        def as_index(i):
            if isinstance(i, Tensor):  # a Tensor's data are floats: only whole numbers make an index
                if not np.all(i.data == np.round(i.data)):
                    raise IndexError("a Tensor used as an index must hold integers; use a NumPy bool array as a mask.")
                return i.data.astype(np.int64)
            return i

        index = tuple(as_index(i) for i in index) if isinstance(index, tuple) else as_index(index)

        basic = _is_basic_index(index)

        def backward(g):  # g belongs at ``index`` of a zero array; the engine writes it in place
            return (_IndexedGrad(index, g, basic),)  # x[[0, 0]] uses x[0] twice: both gradients count

        return Tensor._result(self.data[index], (self,), backward, "index")

    # --- normalizations along an axis ---------------------------------------------------------

    def softmax(self, axis=-1):
        """exp(x) / Σ exp(x) along ``axis``, computed after subtracting the maximum.

        A slice that is −inf everywhere (a fully masked row) has no softmax and gives NaN; mask at least
        one entry per row, or drop such rows.
        """
        _check_axis(axis, self.data.ndim, self.data.shape)
        s = numeric.softmax(self.data, axis=axis)  # eq. (2.12), after subtracting the maximum

        def backward(g):  # vector-Jacobian product of softmax: s ⊙ (g − ⟨g, s⟩)
            return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)

        return Tensor._result(s, (self,), backward, "softmax")

    def log_softmax(self, axis=-1):
        """x − log Σ exp(x) along ``axis``, stable for large logits."""
        _check_axis(axis, self.data.ndim, self.data.shape)
        out = numeric.log_softmax(self.data, axis=axis)

        def backward(g):  # ∂/∂x of x − logsumexp(x): g − softmax(x) Σ g
            return (g - np.exp(out) * g.sum(axis=axis, keepdims=True),)

        return Tensor._result(out, (self,), backward, "log_softmax")

    def standardize(self, axis=-1, eps=1e-5):
        """(x − mean) / √(var + eps) along ``axis``, with the biased variance: the core of a layer norm.

        One operation with its own backward pass, rather than the seven that compose it.
        """
        _check_axis(axis, self.data.ndim, self.data.shape)
        eps = check_positive(eps, "eps")
        centred = self.data - self.data.mean(axis=axis, keepdims=True)
        std = np.sqrt((centred**2).mean(axis=axis, keepdims=True) + eps)
        out = centred / std

        def backward(g):  # x̂ = (x − μ)/σ: ∂L/∂x = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / σ
            return ((g - g.mean(axis=axis, keepdims=True) - out * (g * out).mean(axis=axis, keepdims=True)) / std,)

        return Tensor._result(out, (self,), backward, "standardize")

    def masked_fill(self, mask, value):
        """Replace the entries where ``mask`` is True by ``value`` (e.g. −inf before a softmax).

        Parameters
        ----------
        mask : bool array (or 0/1 values) that broadcasts to the tensor's shape
        value : float
            A constant; ±inf is allowed (−inf before a softmax gives weight 0), NaN is not.
        """
        mask = _bool_mask(mask, "mask")
        if mask.shape != self.data.shape:
            try:
                broadcast = np.broadcast_shapes(mask.shape, self.data.shape)
            except ValueError:
                broadcast = None
            if broadcast != self.data.shape:
                raise ValueError(f"mask has shape {mask.shape}, which does not broadcast to the tensor's shape "
                                 f"{self.shape}; expected that shape or one that broadcasts to it.")
        if isinstance(value, Tensor) or not isinstance(value, numbers.Real):
            raise TypeError(f"value must be a constant number (such as -np.inf); received {type(value).__name__}.")
        if value != value:
            raise ValueError("value is NaN; expected a number (±inf allowed). Tensors hold no NaN.")
        out = np.where(mask, value, self.data)

        def backward(g):  # filled entries no longer depend on x
            return (_unbroadcast(np.where(mask, 0.0, g), self.shape),)

        return Tensor._result(out, (self,), backward, "masked_fill")


def _tensor_list(tensors, name):
    """A non-empty list of Tensors from a list (or any iterable, read once) of Tensors or arrays, checked by name."""
    if isinstance(tensors, (str, bytes, Tensor, np.ndarray)) or not hasattr(tensors, "__iter__"):
        raise TypeError(f"{name} must be a list of Tensors; received {type(tensors).__name__}. "
                        f"Pass a list, e.g. {name}=[a, b].")
    tensors = [_tensor_argument(t, f"{name}[{k}]") for k, t in enumerate(tensors)]
    if not tensors:
        raise ValueError(f"{name} is empty; expected at least one Tensor to join.")
    return tensors


def concatenate(tensors, axis=0):
    """Join tensors along an existing axis; each gets its own slice of the gradient back.

    Parameters
    ----------
    tensors : list of Tensor (or arrays)
        Of equal shapes except along ``axis``.
    axis : int, default 0

    Returns
    -------
    Tensor
    """
    tensors = _tensor_list(tensors, "tensors")
    first = tensors[0].shape
    _check_axis(axis, len(first), first, what="tensors of shape {}", allow_none=False, allow_tuple=False)
    joined = axis % len(first)
    for k, t in enumerate(tensors[1:], start=1):
        if t.ndim != len(first) or any(n != m for d, (n, m) in enumerate(zip(t.shape, first, strict=True))
                                       if d != joined):
            raise ValueError(f"tensors[{k}] has shape {t.shape} but tensors[0] has shape {first}; expected the same "
                             f"number of axes and the same sizes on every axis except axis={axis}, the one joined.")
    ends = np.cumsum([t.shape[axis] for t in tensors])[:-1]

    def backward(g):
        return tuple(np.split(g, ends, axis=axis))

    return Tensor._result(np.concatenate([t.data for t in tensors], axis=axis), tensors, backward, "concatenate")


def stack(tensors, axis=0):
    """Join tensors of equal shape along a new axis.

    Parameters
    ----------
    tensors : list of Tensor (or arrays) of one shape S
    axis : int, default 0
        Where the new axis goes, in −(len(S) + 1)..len(S).

    Returns
    -------
    Tensor of shape S with a new axis of length len(tensors) at ``axis``
    """
    tensors = _tensor_list(tensors, "tensors")
    first = tensors[0].shape
    _check_axis(axis, len(first) + 1, first, what="the stack of tensors of shape {}", allow_none=False,
                allow_tuple=False)
    for k, t in enumerate(tensors[1:], start=1):
        if t.shape != first:
            raise ValueError(f"tensors[{k}] has shape {t.shape} but tensors[0] has shape {first}; expected equal "
                             "shapes (stack adds a new axis; to join along an existing one use concatenate).")

    def backward(g):
        return tuple(np.moveaxis(g, axis, 0))

    return Tensor._result(np.stack([t.data for t in tensors], axis=axis), tensors, backward, "stack")


def where(condition, a, b):
    """Entries of ``a`` where ``condition`` holds, of ``b`` elsewhere (all three broadcast).

    Parameters
    ----------
    condition : bool array (or 0/1 values)
    a, b : Tensor, array or number
        A plain number may be ±inf (a fill value); arrays must be finite.

    Returns
    -------
    Tensor of the broadcast shape of the three
    """
    condition = _bool_mask(condition, "condition")
    a, b = _tensor_argument(a, "a"), _tensor_argument(b, "b")
    if not condition.shape == a.shape == b.shape:
        for name, t in (("a", a), ("b", b)):
            try:
                np.broadcast_shapes(condition.shape, t.shape)
            except ValueError:
                raise ValueError(f"{name} has shape {t.shape}, which does not broadcast with condition of shape "
                                 f"{condition.shape}; expected shapes that broadcast together.") from None
        try:
            np.broadcast_shapes(condition.shape, a.shape, b.shape)
        except ValueError:
            raise ValueError(f"a of shape {a.shape} and b of shape {b.shape} do not broadcast together (with "
                             f"condition of shape {condition.shape}); expected shapes that broadcast.") from None

    def backward(g):
        return _unbroadcast(np.where(condition, g, 0.0), a.shape), _unbroadcast(np.where(condition, 0.0, g), b.shape)

    return Tensor._result(np.where(condition, a.data, b.data), (a, b), backward, "where")


# The ``tensor`` role of the input contract (``_contract.checked``) recognises Tensors and makes them from data.
_contract.TENSOR.cls = Tensor
_contract.TENSOR.convert = _tensor_argument
