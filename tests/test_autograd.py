"""Tests of implementations.engine.autograd: every operation's gradient against central finite differences."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tensor_check import assert_gradients_match

from implementations.engine.autograd import Tensor, no_grad
from implementations.engine.functional import concatenate, stack, where


def rand(*shape, seed=0, low=-2.0, high=2.0):
    return np.random.default_rng(seed).uniform(low, high, size=shape)


# --- element-wise and broadcasting binary operations, on random shapes --------------------------

BROADCAST_PAIRS = [((3,), (3,)), ((2, 3), (3,)), ((2, 1), (1, 4)), ((4, 1, 3), (2, 3)), ((), (2, 2)), ((2, 3), ())]


@pytest.mark.parametrize("shape_a, shape_b", BROADCAST_PAIRS)
@pytest.mark.parametrize(
    "op",
    [lambda a, b: a + b, lambda a, b: a - b, lambda a, b: a * b, lambda a, b: a / b],
    ids=["add", "sub", "mul", "div"],
)
def test_binary_operations_with_broadcasting(op, shape_a, shape_b):
    a = rand(*shape_a, seed=1)
    b = rand(*shape_b, seed=2, low=0.5, high=2.0)  # away from 0 for the division
    assert_gradients_match(op, a, b)


shapes = st.lists(st.integers(1, 4), min_size=0, max_size=3).map(tuple)


@settings(max_examples=30, deadline=None)
@given(shape=shapes, drop=st.integers(0, 3), seed=st.integers(0, 10_000))
def test_broadcast_gradients_have_the_input_shapes(shape, drop, seed):
    """Property: for any broadcastable pair, a + b and a * b give gradients of a's and b's shapes."""
    rng = np.random.default_rng(seed)
    b_shape = tuple(1 if rng.random() < 0.3 else n for n in shape[min(drop, len(shape)):])
    a, b = rng.normal(size=shape), rng.normal(size=b_shape)
    assert_gradients_match(lambda x, y: x * y + x, a, b, seed=seed)


@pytest.mark.parametrize(
    "op, low",
    [
        (lambda x: -x, -2),
        (lambda x: x**3, -2),
        (lambda x: x**0.5, 0.3),
        (lambda x: x.exp(), -2),
        (lambda x: x.log(), 0.3),
        (lambda x: x.sqrt(), 0.3),
        (lambda x: x.tanh(), -2),
        (lambda x: x.sigmoid(), -2),
        (lambda x: x.relu(), -2),
        (lambda x: x.gelu(), -2),
        (lambda x: 2.0 / x, 0.3),
        (lambda x: 3.0 - x, -2),
    ],
    ids=["neg", "cube", "pow-half", "exp", "log", "sqrt", "tanh", "sigmoid", "relu", "gelu", "rdiv", "rsub"],
)
def test_unary_operations(op, low):
    x = rand(3, 4, seed=3, low=low)
    x[np.abs(x) < 1e-3] = 0.5  # relu: keep away from the kink
    assert_gradients_match(op, x)


def test_sigmoid_and_gelu_values():
    x = np.array([-1e4, -1.0, 0.0, 2.0, 1e4])
    np.testing.assert_array_equal(Tensor(x).sigmoid().data[[0, 2, 4]], [0.0, 0.5, 1.0])
    z = np.array([-3.0, -0.5, 0.0, 1.0, 3.0])
    gelu = 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z**3)))
    np.testing.assert_allclose(Tensor(z).gelu().data, gelu, rtol=1e-15)


# --- matrix products ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "shape_a, shape_b",
    [((2, 3), (3, 4)), ((5, 2, 3), (3, 4)), ((5, 2, 3), (5, 3, 4)), ((3,), (3, 2)), ((2, 3), (3,)), ((3,), (3,)),
     ((1, 2, 3), (4, 3, 2))],
)
def test_matmul_batched_and_vectors(shape_a, shape_b):
    a, b = rand(*shape_a, seed=4), rand(*shape_b, seed=5)
    np.testing.assert_allclose((Tensor(a) @ Tensor(b)).data, a @ b)
    assert_gradients_match(lambda x, y: x @ y, a, b)


def test_matmul_with_plain_arrays_on_either_side():
    a = Tensor(rand(2, 3), requires_grad=True)
    m = rand(3, 2, seed=1)
    (m @ a).sum().backward()
    np.testing.assert_allclose(a.grad, m.sum(axis=0)[:, None] * np.ones((2, 3)))


# --- reductions, shapes, indexing --------------------------------------------------------------


@pytest.mark.parametrize("axis", [None, 0, 1, -1, (0, 2)])
@pytest.mark.parametrize("keepdims", [False, True])
@pytest.mark.parametrize("name", ["sum", "mean", "max"])
def test_reductions(name, axis, keepdims):
    x = rand(2, 3, 4, seed=6)  # distinct values: max has no ties
    assert_gradients_match(lambda t: getattr(t, name)(axis=axis, keepdims=keepdims), x)
    np.testing.assert_allclose(getattr(Tensor(x), name)(axis=axis, keepdims=keepdims).data,
                               getattr(x, name)(axis=axis, keepdims=keepdims))


def test_max_splits_the_gradient_between_ties():
    x = Tensor([1.0, 3.0, 3.0], requires_grad=True)
    x.max().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.5, 0.5])


def test_reshape_transpose_and_T():
    x = rand(2, 3, 4, seed=7)
    assert_gradients_match(lambda t: t.reshape(4, 6), x)
    assert_gradients_match(lambda t: t.reshape((6, 4)), x)
    assert_gradients_match(lambda t: t.transpose(1, 2, 0), x)
    assert_gradients_match(lambda t: t.transpose((2, 0, 1)), x)
    assert_gradients_match(lambda t: t.T, x)
    np.testing.assert_array_equal(Tensor(x).T.data, x.T)
    np.testing.assert_array_equal(Tensor(x).transpose(1, 2, 0).data, np.transpose(x, (1, 2, 0)))


@pytest.mark.parametrize(
    "index",
    [np.s_[1], np.s_[:, 1:3], np.s_[::-1, 0], np.s_[[0, 2, 2, 1]], np.s_[np.array([[0, 1], [1, 1]])],
     np.s_[[0, 0], [1, 1]]],
    ids=["int", "slice", "reversed", "int-array-repeats", "2d-int-array", "pairs-repeated"],
)
def test_indexing_scatter_adds(index):
    x = rand(3, 4, seed=8)
    assert_gradients_match(lambda t: t[index], x)


def test_embedding_lookup_accumulates_repeated_rows():
    table = Tensor(np.zeros((4, 2)), requires_grad=True)
    tokens = np.array([1, 3, 1, 1])
    table[tokens].sum().backward()
    np.testing.assert_array_equal(table.grad, [[0, 0], [3, 3], [0, 0], [1, 1]])


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_softmax_and_log_softmax(name, axis):
    x = rand(3, 4, seed=9, low=-3, high=3)
    assert_gradients_match(lambda t: getattr(t, name)(axis=axis), x)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    s = e / e.sum(axis=axis, keepdims=True)
    expected = s if name == "softmax" else np.log(s)
    np.testing.assert_allclose(getattr(Tensor(x), name)(axis=axis).data, expected, rtol=1e-12)


def test_softmax_is_stable_for_large_logits():
    x = Tensor([[1000.0, 1001.0, -1000.0]], requires_grad=True)
    out = x.log_softmax(axis=-1)
    assert np.all(np.isfinite(out.data))
    out[0, 1].backward()
    assert np.all(np.isfinite(x.grad))


def test_masked_fill_then_softmax_ignores_masked_entries():
    x = rand(2, 3, seed=10)
    mask = np.array([[False, True, False], [False, False, True]])
    assert_gradients_match(lambda t: t.masked_fill(mask, -5.0), x)
    t = Tensor(x, requires_grad=True)
    p = t.masked_fill(mask, -np.inf).softmax(axis=-1)
    np.testing.assert_array_equal(p.data[mask], 0.0)
    (p * rand(2, 3, seed=11)).sum().backward()
    np.testing.assert_array_equal(t.grad[mask], 0.0)
    assert np.all(np.isfinite(t.grad))


def test_masked_fill_broadcasts_its_mask():
    causal = np.triu(np.ones((3, 3), dtype=bool), k=1)  # (3, 3) mask for (2, 3, 3) scores
    assert_gradients_match(lambda t: t.masked_fill(causal, 0.0), rand(2, 3, 3, seed=12))


def test_concatenate_stack_where():
    a, b, c = rand(2, 3, seed=13), rand(2, 1, seed=14), rand(2, 3, seed=15)
    assert_gradients_match(lambda x, y: concatenate([x, y], axis=1), a, b)
    assert_gradients_match(lambda x, z: stack([x, z], axis=1), a, c)
    assert_gradients_match(lambda x, z: stack([x, z], axis=-1), a, c)
    condition = a > 0
    assert_gradients_match(lambda x, y: where(condition, x, y), a, b)


# --- the backward pass -------------------------------------------------------------------------


def test_gradients_accumulate_over_reused_nodes():
    x = Tensor(3.0, requires_grad=True)
    y = x * x + x  # x used three times
    y.backward()
    assert x.grad == pytest.approx(2 * 3.0 + 1)


def test_diamond_graph_counts_each_path_once():
    x = Tensor(2.0, requires_grad=True)
    a = x * 3.0
    out = a * a + a.exp()  # a reached twice from out
    out.backward()
    assert x.grad == pytest.approx((2 * 6.0 + np.exp(6.0)) * 3.0)


def test_gradients_accumulate_over_repeated_backward_calls():
    x = Tensor([1.0, 2.0], requires_grad=True)
    loss = (x**2).sum()
    loss.backward()
    loss.backward()
    np.testing.assert_allclose(x.grad, 2 * (2 * x.data))
    x.grad = None
    (x**2).sum().backward()
    np.testing.assert_allclose(x.grad, 2 * x.data)


def test_a_graph_5000_operations_deep():
    x = Tensor(0.5, requires_grad=True)
    h = x
    for _ in range(5000):
        h = (h * 0.999 + 0.001).tanh()
    h.backward()
    # the same chain rule by hand, forward in a loop
    value, derivative = 0.5, 1.0
    for _ in range(5000):
        u = value * 0.999 + 0.001
        value = np.tanh(u)
        derivative *= 0.999 * (1 - value**2)
    assert h.item() == pytest.approx(value, rel=1e-12)
    assert x.grad == pytest.approx(derivative, rel=1e-9)


def test_no_grad_records_no_graph():
    w = Tensor([1.0, 2.0], requires_grad=True)
    with no_grad():
        y = (w * 2.0).sum()
    assert not y.requires_grad
    with pytest.raises(RuntimeError, match="does not require a gradient.*no_grad"):
        y.backward()
    z = (w * 2.0).sum()  # recording is back on outside the block
    assert z.requires_grad


def test_detach_item_numpy():
    w = Tensor([[1.5]], requires_grad=True)
    d = (w * 2.0).detach()
    assert not d.requires_grad
    assert d.item() == 3.0
    arr = w.numpy()
    arr[0, 0] = 99.0
    assert w.data[0, 0] == 1.5  # numpy() is a copy
    with pytest.raises(ValueError, match=r"one element; this one has shape \(2,\)"):
        Tensor([1.0, 2.0]).item()


def test_backward_needs_a_scalar_or_a_gradient():
    x = Tensor([1.0, 2.0], requires_grad=True)
    y = x * 3.0
    with pytest.raises(RuntimeError, match=r"needs a scalar; this tensor has shape \(2,\)"):
        y.backward()
    y.backward(np.array([1.0, 10.0]))
    np.testing.assert_allclose(x.grad, [3.0, 30.0])
    with pytest.raises(ValueError, match=r"grad has shape \(3,\); expected the tensor's shape \(2,\)"):
        y.backward(np.ones(3))


def test_bad_data_raises():
    with pytest.raises(ValueError, match="1 NaN"):
        Tensor([1.0, np.nan])
    with pytest.raises(TypeError, match="data must be a numeric array; received the string 'abc'"):
        Tensor("abc")
    with pytest.raises(TypeError, match="constant scalar exponent"):
        Tensor(2.0) ** Tensor(3.0)


def test_indexed_gradients_do_not_corrupt_shared_arrays():
    """x and y receive the same upstream array from `+`; x's slice gradient must not leak into y's."""
    x = Tensor(np.arange(4.0), requires_grad=True)
    y = Tensor(np.zeros(4), requires_grad=True)
    w = np.array([1.0, 2.0, 3.0, 4.0])
    loss = ((x + y) * w).sum() + (x[1:3] * 5.0).sum() + x[[0, 0]].sum()
    loss.backward()
    np.testing.assert_array_equal(y.grad, w)
    np.testing.assert_array_equal(x.grad, w + [2.0, 5.0, 5.0, 0.0])


def test_slicing_every_time_step_gives_the_full_gradient():
    """The pattern of a recurrent network: read x[:, t] for every t of a (B, T, D) tensor."""
    x = Tensor(np.random.default_rng(0).normal(size=(2, 50, 3)), requires_grad=True)
    total = (x[:, 0] * 0.0).sum()
    for t in range(1, 50):
        total = total + (x[:, t] * float(t)).sum()
    total.backward()
    np.testing.assert_array_equal(x.grad, np.broadcast_to(np.arange(50.0)[None, :, None], (2, 50, 3)))


def test_backward_uses_the_values_of_the_forward_pass():
    """Replacing .data after the forward pass (an optimizer step) must not change the gradient."""
    w = Tensor(np.array([1.0, 2.0]), requires_grad=True)
    loss = (w * w).sum() + w.log().sum() + (w**3).sum() + (1.0 / w).sum() + w.max()
    expected = 2 * w.data + 1 / w.data + 3 * w.data**2 - 1 / w.data**2 + np.array([0.0, 1.0])
    w.data = w.data * 10.0
    loss.backward()
    np.testing.assert_allclose(w.grad, expected)


def test_bad_indices_and_fill_values_raise():
    x = Tensor(np.arange(4.0))
    with pytest.raises(IndexError, match="must hold integers"):
        x[Tensor([0.5, 1.0])]
    with pytest.raises(TypeError, match="value must be a constant number"):
        x.masked_fill(np.array([True, False, False, False]), Tensor(1.0))


@pytest.mark.parametrize("axis", [-1, 0, 1])
def test_standardize_matches_its_definition_and_finite_differences(axis):
    x = rand(3, 4, seed=16)
    centred = x - x.mean(axis=axis, keepdims=True)
    expected = centred / np.sqrt((centred**2).mean(axis=axis, keepdims=True) + 1e-5)
    np.testing.assert_allclose(Tensor(x).standardize(axis=axis).data, expected, rtol=1e-14)
    assert_gradients_match(lambda t: t.standardize(axis=axis), x)
    with pytest.raises(ValueError, match=r"eps must be a finite number > 0; received 0"):
        Tensor(x).standardize(eps=0)


def test_row_gradients_of_integer_indexing_equal_np_add_at():
    """Rows gathered with an integer array (repeats and negative indices included) scatter back as np.add.at does."""
    rng = np.random.default_rng(17)
    rows = np.array([[0, 2, 2], [-1, 0, 2]])  # (2, 3): row 2 three times, the last row as -1
    values = rng.normal(size=(2, 3, 5))
    W = Tensor(rng.normal(size=(4, 5)), requires_grad=True)
    W[rows].backward(values)
    expected = np.zeros((4, 5))
    np.add.at(expected, rows, values)
    np.testing.assert_array_equal(W.grad, expected)



@pytest.mark.parametrize("seed", range(6))
def test_window_gradients_of_mixed_indexing_equal_np_add_at_bit_for_bit(seed):
    """x[:, :, rows, cols] (the windows of im2col) scatters back exactly as np.add.at does, onto zeros or not."""
    rng = np.random.default_rng(seed)
    N, C, H, W = rng.integers(1, 4), rng.integers(1, 4), rng.integers(3, 8), rng.integers(3, 8)
    k = int(rng.integers(1, min(H, W) + 1))
    rows = np.arange(H - k + 1)[:, None, None, None] + np.arange(k)[None, None, :, None]  # (H_out, 1, k, 1)
    cols = np.arange(W - k + 1)[None, :, None, None] + np.arange(k)[None, None, None, :]  # (1, W_out, 1, k)
    x = Tensor(rng.normal(size=(N, C, H, W)), requires_grad=True)
    G = rng.normal(size=(N, C, H - k + 1, W - k + 1, k, k))
    x[:, :, rows, cols].backward(G)
    expected = np.zeros((N, C, H, W))
    np.add.at(expected, (slice(None), slice(None), rows, cols), G)
    np.testing.assert_array_equal(x.grad, expected)
    x.grad = None
    (x[:, :, rows, cols] + x[:, :, rows, cols]).backward(G)  # the second scatter adds onto the first one's result
    twice = np.zeros((N, C, H, W))
    np.add.at(twice, (slice(None), slice(None), rows, cols), G)
    np.add.at(twice, (slice(None), slice(None), rows, cols), G)
    np.testing.assert_array_equal(x.grad, twice)


def test_indexes_outside_the_fast_scatter_still_accumulate_like_np_add_at():
    """Partial slices, a leading integer array, negative and boolean indices take np.add.at's general path."""
    rng = np.random.default_rng(3)
    x0 = rng.normal(size=(3, 4))
    for index in [(slice(0, 2), np.array([1, 1, 3])), (np.array([0, 0]), slice(None)),
                  (slice(None), np.array([-1, 0, -1])), (slice(None), np.array([True, False, True, True]))]:
        x = Tensor(x0, requires_grad=True)
        out = x[index]
        G = rng.normal(size=out.shape)
        out.backward(G)
        expected = np.zeros((3, 4))
        np.add.at(expected, index, G)
        np.testing.assert_array_equal(x.grad, expected)


# --- bad input is refused by name (issue 21) -----------------------------------------------------


def test_backward_refuses_a_string_or_nan_gradient_by_name():
    y = Tensor([1.0, 2.0], requires_grad=True) * 3.0
    with pytest.raises(TypeError, match="grad must be a numeric array; received the string 'ones'"):
        y.backward("ones")
    with pytest.raises(ValueError, match=r"grad contains 1 NaN or infinite value\(s\)"):
        y.backward(np.array([1.0, np.nan]))


def test_tensor_constructor_names_data_and_requires_grad():
    with pytest.raises(ValueError, match="data is a ragged nested list"):
        Tensor([[1.0, 2.0], [3.0]])
    with pytest.raises(ValueError, match="requires_grad must be True or False; received 'yes'"):
        Tensor([1.0], requires_grad="yes")


def test_a_bad_reshape_or_transpose_names_its_argument():
    x = Tensor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"shape \(4, 4\) does not fit a tensor of shape \(2, 3\) \(6 entries\)"):
        x.reshape(4, 4)
    with pytest.raises(TypeError, match=r"shape \(1.5, 4\) does not fit"):
        x.reshape(1.5, 4)
    with pytest.raises(ValueError, match=r"axes \(0, 0\) is not a permutation of the 2 axes"):
        x.transpose(0, 0)


@pytest.mark.parametrize("name", ["sum", "mean", "max", "softmax", "log_softmax", "standardize"])
def test_a_bad_axis_names_axis(name):
    x = Tensor(np.zeros((2, 3)))
    with pytest.raises(TypeError, match=r"axis must be an integer.*; received 1.5"):
        getattr(x, name)(axis=1.5)
    with pytest.raises(ValueError, match=r"axis=2 is out of range for a tensor of shape \(2, 3\)"):
        getattr(x, name)(axis=2)


def test_transpose_with_negative_axes_gets_the_right_gradient():
    assert_gradients_match(lambda t: t.transpose(-1, 0, 1) * np.arange(24.0).reshape(4, 2, 3), rand(2, 3, 4))


def test_masked_fill_and_where_check_masks_and_fill_values():
    x = Tensor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"mask has shape \(2, 4\), which does not broadcast to the tensor's shape"):
        x.masked_fill(np.ones((2, 4), bool), -np.inf)
    with pytest.raises(TypeError, match="value must be a constant number"):
        x.masked_fill(np.ones((2, 3), bool), "-inf")
    with pytest.raises(ValueError, match=r"condition must hold True/False \(or 0/1\)"):
        where(np.full((2, 3), 0.5), x, 0.0)
    with pytest.raises(ValueError, match=r"b has shape \(3, 3\), which does not broadcast with condition"):
        where(np.ones((2, 3), bool), x, np.zeros((3, 3)))
    assert x.masked_fill(np.eye(2, 3, dtype=bool), -np.inf).data[0, 0] == -np.inf  # the documented use


def test_concatenate_and_stack_name_the_offending_tensor():
    a = Tensor(np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"tensors\[1\] has shape \(2, 4\) but tensors\[0\] has shape \(2, 3\)"):
        concatenate([a, Tensor(np.zeros((2, 4)))], axis=0)
    with pytest.raises(ValueError, match=r"tensors\[1\] has shape \(3, 2\) but tensors\[0\] has shape \(2, 3\)"):
        stack([a, Tensor(np.zeros((3, 2)))])
    with pytest.raises(ValueError, match="tensors is empty"):
        stack([])


# --- the engine's fast paths equal the taught forms; operands that do not fit are named (issue 34) -------------------

@pytest.mark.parametrize("shape", [(7,), (3, 5), (2, 4, 6)])
def test_the_fast_gelu_equals_the_taught_form(shape, monkeypatch):
    """autograd.FAST switches the in-place GELU of _fast for the formula as the chapter writes it: same values and
    gradients to round-off."""
    from implementations.engine import autograd

    x = np.random.default_rng(sum(shape)).normal(scale=3.0, size=shape)
    upstream = np.random.default_rng(1).normal(size=shape)
    results = {}
    for fast in (True, False):
        monkeypatch.setattr(autograd, "FAST", fast)
        t = Tensor(x, requires_grad=True)
        y = t.gelu()
        y.backward(upstream)
        results[fast] = (y.data, t.grad)
    np.testing.assert_allclose(results[True][0], results[False][0], rtol=1e-13, atol=1e-15)
    np.testing.assert_allclose(results[True][1], results[False][1], rtol=1e-12, atol=1e-15)
    assert not np.array_equal(results[True][1], np.zeros(shape))


def test_the_taught_reverse_pass_reads_as_eq_4_6():
    """backward is the topological order reversed, then each node's local gradients accumulated into its parents:
    its source says so in a few lines, with the speed bookkeeping behind grads.add."""
    import inspect

    source = inspect.getsource(Tensor.backward)
    body = source[source.index('"""', source.index('"""') + 3) + 3:].strip().splitlines()
    assert len(body) <= 12, body
    assert "reversed(self.topological_order())" in source and "grads.add(parent, g_parent)" in source


def test_the_gradient_accumulator_sums_in_place_without_touching_shared_arrays():
    x = Tensor(np.ones(3), requires_grad=True)
    shared = x * 1.0
    loss = (shared + shared + shared).sum()  # three uses of one node: its gradient is summed
    loss.backward()
    np.testing.assert_array_equal(x.grad, [3.0, 3.0, 3.0])


@pytest.mark.parametrize(("operation", "message"), [
    (lambda a, b: a + b, r"the operands of \+ have shapes \(2, 3\) and \(4,\), which do not broadcast"),
    (lambda a, b: a * b, r"the operands of \* have shapes \(2, 3\) and \(4,\), which do not broadcast"),
    (lambda a, b: a - b, r"the operands of - have shapes \(2, 3\) and \(4,\)"),
    (lambda a, b: a / b, r"the operands of / have shapes \(2, 3\) and \(4,\)"),
    (lambda a, b: a + b.data, r"the operands of \+ have shapes \(2, 3\) and \(4,\)"),
])
def test_operands_that_do_not_broadcast_are_named_with_their_shapes(operation, message):
    a, b = Tensor(np.ones((2, 3))), Tensor(np.ones(4))
    with pytest.raises(ValueError, match=message):
        operation(a, b)


def test_a_matrix_product_of_shapes_that_do_not_fit_names_the_inner_dimensions():
    with pytest.raises(ValueError, match=r"the operands of @ have shapes \(2, 3\) and \(4, 5\): the last axis of the "
                                         r"left one \(3\) must equal the second-to-last axis of the right one \(4\)"):
        Tensor(np.ones((2, 3))) @ Tensor(np.ones((4, 5)))
    with pytest.raises(ValueError, match=r"the operands of @ have shapes \(3,\) and \(4,\)"):
        Tensor(np.ones(3)) @ np.ones(4)
    with pytest.raises(ValueError, match="batch axes"):
        Tensor(np.ones((2, 3, 4))) @ Tensor(np.ones((5, 4, 2)))
    assert (Tensor(np.ones((2, 3, 4))) @ Tensor(np.ones((1, 4, 2)))).shape == (2, 3, 2)  # batch axes broadcast


def test_an_index_out_of_range_names_the_shape_of_the_tensor():
    with pytest.raises(IndexError, match=r"the index \[5\] does not fit a tensor of shape \(3,\)"):
        Tensor(np.arange(3.0))[5]
    with pytest.raises(IndexError, match=r"does not fit a tensor of shape \(2, 3\)"):
        Tensor(np.ones((2, 3)))[np.array([0, 2]), 0]


def test_an_operand_with_nan_is_refused_as_the_caller_s_data():
    with pytest.raises(ValueError, match="the operand of \\* .*NaN"):
        Tensor(np.ones(2)) * np.array([1.0, np.nan])


def test_the_first_edition_name_of_the_topological_order_warns_and_still_lists():
    from implementations.notebook import listing

    with pytest.warns(FutureWarning, match=r"Tensor\._topological_order is now Tensor\.topological_order"):
        assert "def topological_order" in repr(listing.show_source(Tensor._topological_order))
