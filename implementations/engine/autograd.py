"""A small reverse-mode automatic differentiation engine on NumPy arrays: chapter 4 of the book.

A :class:`Tensor` holds a float64 array and, when it was computed from tensors that require gradients, the operation
that made it: its parents and a ``backward`` function that turns the gradient of a scalar loss with respect to the
output into gradients with respect to each parent (one vector–Jacobian product per parent). ``loss.backward()``
visits the graph in reverse topological order and accumulates ``.grad`` on the leaves, eq. (4.6), as PyTorch does.

The file reads in the order of the chapter: the Tensor and its reverse pass, then its operations, all on whole arrays
with NumPy broadcasting (the gradient of a broadcast input is summed back to its shape by ``_unbroadcast``).
What only makes the engine fast lives in ``_fast``: the accumulator of the reverse pass, contiguous batched products
and scatter-adds (always on: they change no value) and the in-place GELU (the one switch, ``FAST``; ``FAST = False``
runs the taught form, tested equal). The checks of a caller's arguments are in ``_checks``.
"""

import contextlib
import math

import numpy as np

from .. import _contract, first_edition_name, numeric
from .._contract import checked
from . import _checks, _fast

__all__ = ["Tensor", "no_grad", "is_grad_enabled"]

FAST = True  # the speed devices of _fast (in-place GELU); False runs the taught forms, which give the same values

_GRAD_ENABLED = True
_FLOAT64 = np.dtype(np.float64)  # (compared by identity: this runs for every operation)


class Tensor:
    """A float64 array that remembers how it was computed, for reverse-mode differentiation.

    Parameters
    ----------
    data : array_like
        Converted to a float64 ndarray (a copy); NaN is refused, and so are strings and ragged lists (±inf is allowed,
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

    @checked(data=_checks.tensor_data, requires_grad="flag")
    def __init__(self, data, requires_grad=False):
        self.data = np.array(data.data if isinstance(data, Tensor) else data, dtype=np.float64)  # a copy
        self.grad = None
        self.requires_grad = requires_grad
        self._parents, self._backward, self.op = (), None, ""  # a leaf: no operation made it

    @staticmethod
    def _result(data, parents, backward, op):
        """The output of an operation: a node of the graph if some parent requires a gradient, else a plain value."""
        out = Tensor.__new__(Tensor)
        out.data = data if type(data) is np.ndarray and data.dtype is _FLOAT64 else np.asarray(data, np.float64)
        out.grad = None
        out.op = op
        needs_grad = False
        if _GRAD_ENABLED:
            for p in parents:  # (a loop: this runs for every operation, and any() of a generator is slower)
                if p.requires_grad:
                    needs_grad = True
                    break
        out.requires_grad = needs_grad
        out._parents = tuple(parents) if needs_grad else ()
        out._backward = backward if needs_grad else None
        return out

    # --- the reverse pass, eq. (4.6) ------------------------------------------------------------------------------

    def topological_order(self):
        """Every node this tensor depends on, each after all of its parents (a depth-first search, without recursion).

        Reversed, the list visits each node after every node that uses it: by then the gradient of the loss with
        respect to the node is complete, the sum over all its uses.
        """
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

    _topological_order = first_edition_name("topological_order")  # the name that first-edition copies list

    @checked(grad="array?", also=_checks.can_backward)
    def backward(self, grad=None):
        """Backpropagation, eq. (4.6): accumulate d(self)/d(leaf) · ``grad`` into ``.grad`` of every leaf.

        Parameters
        ----------
        grad : array_like of the shape of ``self``, optional
            Gradient of the final loss with respect to this tensor (finite numbers); defaults to 1 for a scalar.
        """
        grads = _fast.Gradients(self, np.ones_like(self.data) if grad is None else grad)  # ∂L/∂self
        for node in reversed(self.topological_order()):  # each node after every node that uses it
            g = grads.pop(id(node), None)  # ∂L/∂node, summed over the node's uses
            if g is None:  # no path from the loss reaches it
                continue
            if not node._parents:  # a leaf: keep the gradient, adding to those of earlier passes
                node.grad = g.copy() if node.grad is None else node.grad + g
                continue
            for parent, g_parent in zip(node._parents, node._backward(g), strict=True):  # the chain rule
                if g_parent is not None and parent.requires_grad:
                    grads.add(parent, g_parent)  # ∂L/∂parent += ∂L/∂node · ∂node/∂parent

    # --- arithmetic (with broadcasting) ---------------------------------------------------------------------------

    def __add__(self, other):
        other = _operand(self, other, "+")

        def backward(g):  # ∂(a + b)/∂a = ∂(a + b)/∂b = 1
            return _unbroadcast(g, self.shape), _unbroadcast(g, other.shape)

        return Tensor._result(self.data + other.data, (self, other), backward, "+")

    def __mul__(self, other):
        other = _operand(self, other, "*")
        a, b = self.data, other.data  # captured now: a later change to .data must not alter this gradient

        def backward(g):  # ∂(ab)/∂a = b, ∂(ab)/∂b = a
            return _unbroadcast(g * b, a.shape), _unbroadcast(g * a, b.shape)

        return Tensor._result(a * b, (self, other), backward, "*")

    def __neg__(self):
        return Tensor._result(-self.data, (self,), lambda g: (-g,), "neg")

    def __sub__(self, other):
        other = _operand(self, other, "-")

        def backward(g):  # ∂(a − b)/∂a = 1, ∂(a − b)/∂b = −1
            return _unbroadcast(g, self.shape), _unbroadcast(-g, other.shape)

        return Tensor._result(self.data - other.data, (self, other), backward, "-")

    def __truediv__(self, other):
        other = _operand(self, other, "/")
        a, b = self.data, other.data

        def backward(g):  # ∂(a/b)/∂a = 1/b, ∂(a/b)/∂b = −a/b²
            return _unbroadcast(g / b, a.shape), _unbroadcast(-g * a / b**2, b.shape)

        return Tensor._result(a / b, (self, other), backward, "/")

    @checked(exponent=_checks.constant_exponent)
    def __pow__(self, exponent):
        x = self.data

        def backward(g):  # ∂(xᵖ)/∂x = p xᵖ⁻¹
            return (g * exponent * x ** (exponent - 1),)

        return Tensor._result(x**exponent, (self,), backward, f"**{exponent:g}")

    def __radd__(self, other):
        return self + other

    def __rmul__(self, other):
        return self * other

    def __rsub__(self, other):
        return _operand(self, other, "-") - self

    def __rtruediv__(self, other):
        return _operand(self, other, "/") / self

    def __matmul__(self, other):
        """Matrix product with NumPy's rules: batched over leading axes, 1-D operands promoted."""
        other = _operand(self, other, "@")
        A, B = self.data, other.data
        A2 = A[None, :] if A.ndim == 1 else A  # a vector on the left is a row
        B2 = B[:, None] if B.ndim == 1 else B  # a vector on the right is a column
        out2 = _fast.matmul(A2, B2)  # (..., n, p)
        shape = list(out2.shape)  # drop the axes that the promotion added
        if B.ndim == 1:
            shape.pop(-1)
        if A.ndim == 1:
            shape.pop(-1 if B.ndim == 1 else -2)

        def backward(g):  # C = AB: ∂L/∂A = G Bᵀ, ∂L/∂B = Aᵀ G, then undo broadcasting and promotion
            G2 = np.reshape(g, out2.shape)
            gA = _unbroadcast(_fast.matmul(G2, np.swapaxes(B2, -1, -2)), A2.shape).reshape(A.shape)
            if B2.ndim == 2:  # one matrix for a stack of rows: the sum over the stack of Aᵀ G is one product
                gB = A2.reshape(-1, A2.shape[-1]).T @ G2.reshape(-1, G2.shape[-1])
            else:
                gB = _unbroadcast(_fast.matmul(np.swapaxes(A2, -1, -2), G2), B2.shape)
            return gA, gB.reshape(B.shape)

        return Tensor._result(out2.reshape(shape), (self, other), backward, "@")

    def __rmatmul__(self, other):
        return _operand(self, other, "@") @ self

    # --- reductions -------------------------------------------------------------------------------------------------

    def _expand(self, g, axis, keepdims):
        """Give the gradient of a reduction back the reduced axes, then the input's shape."""
        if axis is not None and not keepdims:
            g = np.expand_dims(g, axis)
        return np.broadcast_to(g, self.shape)  # (a full reduction left a scalar, which broadcasts as it is)

    @checked(keepdims="flag", also=_checks.axes_of)
    def sum(self, axis=None, keepdims=False):
        """Sum over ``axis`` (an int, a tuple of ints, or None for all entries)."""

        def backward(g):  # every summed entry receives the upstream gradient once (a read-only view)
            return (self._expand(g, axis, keepdims),)

        return Tensor._result(self.data.sum(axis=axis, keepdims=keepdims), (self,), backward, "sum")

    @checked(keepdims="flag", also=_checks.axes_of)
    def mean(self, axis=None, keepdims=False):
        """Mean over ``axis`` (an int, a tuple of ints, or None for all entries)."""
        total = self.data.sum(axis=axis, keepdims=keepdims)
        count = self.data.size // max(np.size(total), 1)  # entries averaged into each output
        out = total / count  # what np.mean computes, without its Python-level overhead

        def backward(g):
            return (self._expand(g, axis, keepdims) / count,)

        return Tensor._result(out, (self,), backward, "mean")

    @checked(keepdims="flag", also=_checks.axes_of)
    def max(self, axis=None, keepdims=False):
        """Largest values along ``axis``; the gradient goes to the maxima.

        Ties split the gradient evenly (two equal maxima get half each). PyTorch's ``max_pool2d`` sends it all to one
        of them instead; both are valid subgradients, and they differ only on exact ties, which are common after a
        ReLU (many zeros).
        """
        x = self.data
        out = x.max(axis=axis, keepdims=keepdims)

        def backward(g):
            peak = self._expand(out, axis, keepdims)
            is_max = (x == peak).astype(np.float64)
            ties = self._expand(is_max.sum(axis=axis, keepdims=keepdims), axis, keepdims)
            return (self._expand(g, axis, keepdims) * is_max / ties,)

        return Tensor._result(out, (self,), backward, "max")

    # --- element-wise functions ---------------------------------------------------------------------------------

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

    def softplus(self):
        """log(1 + eˣ), without overflow; its derivative is the sigmoid."""
        x = self.data
        return Tensor._result(numeric.softplus(x), (self,), lambda g: (g * numeric.sigmoid(x),), "softplus")

    def relu(self):
        positive = self.data > 0
        return Tensor._result(np.where(positive, self.data, 0.0), (self,), lambda g: (g * positive,), "relu")

    def gelu(self):
        """GELU, tanh approximation: ½x(1 + tanh(u)) with u = √(2/π)(x + 0.044715x³)."""
        if FAST:  # the same values, computed in place: a transformer calls it on its largest activations
            out, backward = _fast.gelu(self.data)
            return Tensor._result(out, (self,), backward, "gelu")
        x, c = self.data, math.sqrt(2.0 / math.pi)
        t = np.tanh(c * (x + 0.044715 * x**3))
        dt_dx = (1.0 - t**2) * c * (1.0 + 3 * 0.044715 * x**2)  # tanh'(u) du/dx

        def backward(g):  # d/dx ½x(1 + t) = ½(1 + t) + ½x dt/dx
            return (g * (0.5 * (1.0 + t) + 0.5 * x * dt_dx),)

        return Tensor._result(0.5 * x * (1.0 + t), (self,), backward, "gelu")

    # --- shape --------------------------------------------------------------------------------------------------------

    def reshape(self, *shape):
        """The same entries in a new ``shape`` (integers, or one tuple; one of them may be −1), as ``np.reshape``."""
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        try:
            out = self.data.reshape(shape)
        except (TypeError, ValueError) as error:  # NumPy's message names neither the argument nor the sizes
            raise _checks.shape_fits(shape, self, error) from None
        return Tensor._result(out, (self,), lambda g: (g.reshape(self.shape),), "reshape")

    def transpose(self, *axes):
        """Permute the axes as ``np.transpose``; with no arguments, reverse them.

        ``axes`` is a permutation of 0, …, ndim − 1 (negative axes count from the end), given as integers or as one
        tuple.
        """
        axes = axes[0] if len(axes) == 1 and isinstance(axes[0], (tuple, list)) else axes
        axes = _checks.permutation(tuple(axes) if axes else tuple(reversed(range(self.ndim))), self.shape)
        inverse = tuple(np.argsort([a % self.ndim for a in axes]))  # the permutation that undoes ``axes``
        return Tensor._result(np.transpose(self.data, axes), (self,), lambda g: (np.transpose(g, inverse),),
                              "transpose")

    @property
    def T(self):
        return self.transpose()

    def __getitem__(self, index):
        """Slices and integer arrays; the backward pass scatter-adds, so repeated indices accumulate."""
        index = tuple(_as_index(i) for i in index) if isinstance(index, tuple) else _as_index(index)
        try:
            out = self.data[index]
        except (IndexError, TypeError) as error:  # NumPy's message does not give the tensor's shape
            raise _checks.index_fits(index, self.shape, error) from None
        basic = _fast.is_basic_index(index)

        def backward(g):  # g belongs at ``index`` of a zero array; x[[0, 0]] uses x[0] twice: both gradients count
            return (_fast.IndexedGrad(index, g, basic),)

        return Tensor._result(out, (self,), backward, "index")

    # --- normalizations along an axis -------------------------------------------------------------------------------

    @checked(also=_checks.axes_of)
    def softmax(self, axis=-1):
        """exp(x) / Σ exp(x) along ``axis``, after subtracting the maximum, with its vector-Jacobian product.

        The values are those of :func:`implementations.numeric.softmax` (eq. (2.12)). A slice that is −inf everywhere
        (a fully masked row) has no softmax and gives NaN; mask at least one entry per row, or drop such rows.
        """
        s = numeric.softmax(self.data, axis=axis)

        def backward(g):  # vector-Jacobian product of softmax: s ⊙ (g − ⟨g, s⟩)
            return (s * (g - (g * s).sum(axis=axis, keepdims=True)),)

        return Tensor._result(s, (self,), backward, "softmax")

    @checked(also=_checks.axes_of)
    def log_softmax(self, axis=-1):
        """x − log Σ exp(x) along ``axis``, stable for large logits."""
        out = numeric.log_softmax(self.data, axis=axis)

        def backward(g):  # ∂/∂x of x − logsumexp(x): g − softmax(x) Σ g
            return (g - np.exp(out) * g.sum(axis=axis, keepdims=True),)

        return Tensor._result(out, (self,), backward, "log_softmax")

    @checked(eps="rate", also=_checks.axes_of)
    def standardize(self, axis=-1, eps=1e-5):
        """(x − mean) / √(var + eps) along ``axis``, with the biased variance: the core of a layer norm.

        One operation with its own backward pass, rather than the seven that compose it.
        """
        centred = self.data - self.data.mean(axis=axis, keepdims=True)
        std = np.sqrt((centred**2).mean(axis=axis, keepdims=True) + eps)
        out = centred / std

        def backward(g):  # x̂ = (x − μ)/σ: ∂L/∂x = (g − mean(g) − x̂ · mean(g ⊙ x̂)) / σ
            return ((g - g.mean(axis=axis, keepdims=True) - out * (g * out).mean(axis=axis, keepdims=True)) / std,)

        return Tensor._result(out, (self,), backward, "standardize")

    @checked(mask=_checks.mask, value=_checks.fill_value, also=_checks.mask_fits)
    def masked_fill(self, mask, value):
        """Replace the entries where ``mask`` is True by ``value`` (e.g. −inf before a softmax).

        Parameters
        ----------
        mask : bool array (or 0/1 values) that broadcasts to the tensor's shape
        value : float
            A constant; ±inf is allowed (−inf before a softmax gives weight 0), NaN is not.
        """
        out = np.where(mask, value, self.data)

        def backward(g):  # filled entries no longer depend on x
            return (_unbroadcast(np.where(mask, 0.0, g), self.shape),)

        return Tensor._result(out, (self,), backward, "masked_fill")

    # --- reading a tensor -------------------------------------------------------------------------------------------

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


# --- helpers of the operations --------------------------------------------------------------------------------------

def _unbroadcast(grad, shape):
    """Sum ``grad`` over the axes that broadcasting added or stretched, so it gets ``shape``.

    If x of shape (3,) was added to an array of shape (4, 3), each x_j was used 4 times, so its gradient is the sum
    of the 4 upstream gradients: the sum over the added leading axis.
    """
    if grad.shape == shape:  # nothing was broadcast (the common case)
        return grad
    while grad.ndim > len(shape):  # leading axes added by broadcasting
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1 and grad.shape[axis] != 1:  # axes of length 1 that were stretched
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


def _operand(tensor, other, symbol):
    """``other`` as the second operand of ``tensor symbol other``: a Tensor whose shape fits, or a clear error."""
    if not isinstance(other, Tensor):
        if isinstance(other, (int, float)) and other == other:  # a plain number (not NaN): no array to check
            return Tensor._result(np.array(float(other)), (), None, "")
        data = _checks.tensor_data(other, f"the operand of {symbol}")  # the caller's data: no NaN, no string
        other = Tensor._result(np.array(data, dtype=np.float64), (), None, "")
    if symbol == "@":
        _checks.operands_multiply(tensor, other)
    elif other.data.shape != tensor.data.shape and other.data.ndim and tensor.data.ndim:  # real broadcasting only
        _checks.operands_broadcast(symbol, tensor, other)
    return other


def _as_index(i):
    """An index part: a Tensor's data are floats, so only whole numbers make an index."""
    if isinstance(i, Tensor):
        if not np.all(i.data == np.round(i.data)):
            raise IndexError("a Tensor used as an index must hold integers; use a NumPy bool array as a mask.")
        return i.data.astype(np.int64)
    return i


# The ``tensor`` role of the input contract (``_contract.checked``) recognises Tensors and makes them from data.
_contract.TENSOR.cls = Tensor
_contract.TENSOR.convert = _checks.tensor_argument
