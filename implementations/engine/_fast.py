"""The engine's speed devices: nothing here changes a result, only how fast it is computed.

:mod:`.autograd` reads as chapter 4 tells it; what makes it fast enough for the later chapters lives here, each device
with the reason it exists and a test that it agrees with the plain form (``tests/test_autograd.py``):

- :class:`Gradients`, the accumulator of the reverse pass: it sums a node's gradients in place once it owns the
  array, and writes the gradient of ``x[index]`` into one zero array instead of materializing a full-size array per
  slice (T slices of a (B, T, D) sequence would cost O(T²) otherwise);
- :func:`matmul`, batched products on contiguous operands (NumPy multiplies strided stacks several times slower);
- :func:`add_at_rows` and :func:`add_at_trailing`, ``np.add.at`` on a flattened array, several times faster;
- :func:`gelu`, the GELU and its derivative computed with in-place operations on the largest activations of a
  transformer, where every temporary array costs as much as the arithmetic.
"""

import math

import numpy as np

__all__ = []


class IndexedGrad:
    """The gradient of ``x[index]``: ``value`` belongs at ``index`` of an array of zeros of x's shape.

    The backward pass of indexing returns one, so that :class:`Gradients` adds it into a single accumulator in place.
    """

    __slots__ = ("index", "value", "basic")

    def __init__(self, index, value, basic):
        self.index, self.value, self.basic = index, value, basic

    def add_to(self, accumulator):
        if self.basic:
            accumulator[self.index] += self.value  # basic indexing: each element at most once, a fast view
        elif isinstance(self.index, np.ndarray) and self.index.dtype.kind in "iu" and accumulator.ndim > 1:
            add_at_rows(accumulator, self.index, self.value)  # whole rows, as in an embedding lookup
        elif not add_at_trailing(accumulator, self.index, self.value):
            np.add.at(accumulator, self.index, self.value)  # integer arrays may repeat: accumulate each use
        return accumulator


class Gradients(dict):
    """The gradients flowing into the nodes of a graph that the reverse pass has not visited yet, by ``id(node)``.

    ``add(node, g)`` sums g into the node's gradient: ∂L/∂node is the sum over the node's uses. The first array a
    node receives is kept as it is (it may be a read-only view); once a second one arrives, the sum is a fresh array
    that the accumulator owns and updates in place from then on. ``pop(id(node), None)`` is the dict's own.
    """

    __slots__ = ("owned",)

    def __init__(self, node, grad):
        super().__init__({id(node): grad})
        self.owned = set()  # ids whose pending array was allocated here and may be updated in place

    def add(self, node, g):
        key = id(node)
        pending = self
        if key not in pending and type(g) is not IndexedGrad:  # the first gradient to reach the node: kept as it is
            pending[key] = g
        elif isinstance(g, IndexedGrad):  # write the slice into one accumulator of the node's shape
            if key not in self.owned:
                base = pending.get(key)
                pending[key] = np.zeros(node.shape) if base is None else np.array(base, dtype=np.float64)
                self.owned.add(key)
            g.add_to(pending[key])
        elif key in self.owned:
            pending[key] += g
        else:
            pending[key] = pending[key] + g
            self.owned.add(key)  # a fresh array


def is_basic_index(index):
    """True for slices, integers, None and Ellipsis only: an index that selects each element at most once."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(isinstance(i, (slice, int, np.integer)) or i is None or i is Ellipsis for i in parts)


def matmul(a, b):
    """a @ b, with the operands of a batched product made contiguous first: NumPy multiplies strided stacks of
    matrices (attention heads after a transpose), or a stack by a transposed matrix (Wᵀ in a backward pass), several
    times more slowly."""
    if a.ndim > 2 or b.ndim > 2:
        if not a.flags.c_contiguous:
            a = np.ascontiguousarray(a)
        if not b.flags.c_contiguous:
            b = np.ascontiguousarray(b)
    return a @ b


def add_at_rows(W, rows, values):
    """``np.add.at(W, rows, values)`` for integer ``rows`` of a C-contiguous W: a row listed twice gets both.

    Done as np.add.at on the flattened W, which NumPy runs several times faster than on rows; the additions happen in
    the same order, so the result is the same to the last bit.
    """
    if not W.flags.c_contiguous:
        np.add.at(W, rows, values)
        return
    row_size = W[0].size
    entries = rows[..., None] * row_size + np.arange(row_size)  # (..., row_size): every entry of every row
    np.add.at(W.reshape(-1), entries.reshape(-1), np.reshape(values, -1))


def add_at_trailing(W, index, values):
    """``np.add.at(W, index, values)`` for ``index = (:, …, :, i_1, …, i_k)``: at least one whole leading axis, then k
    integer arrays for the last k axes (the windows of im2col and of pooling). Returns False, doing nothing, for any
    other index.

    Done as np.add.at on the flattened W with one flat position per entry, which NumPy runs several times faster than
    on a mixed index; the additions happen in the same order, so the result is the same to the last bit.
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


def gelu(x):
    """The GELU of :meth:`~.autograd.Tensor.gelu` on an array, with in-place operations: (out, backward).

    ``out = ½x(1 + t)`` with ``t = tanh(u)``, ``u = c(x + 0.044715x³)``, ``c = √(2/π)``; ``backward(g)`` is
    g · (½(1 + t) + ½x(1 − t²) du/dx) with du/dx = c(1 + 3 · 0.044715x²). The same values as the taught form to
    round-off.
    """
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

    def backward(g):
        local = t * t
        np.subtract(1.0, local, out=local)  # 1 − t² = tanh'(u)
        local *= (3 * 0.044715 * c) * x2 + c  # × du/dx
        local *= x
        local += t
        local += 1.0
        local *= 0.5
        local *= g
        return (local,)

    return out, backward
