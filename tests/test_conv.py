"""Tests of implementations.nn.conv against direct NumPy loops, np.pad, scipy and closed forms, and of their gradients.
"""

import itertools

import numpy as np
import pytest
from scipy.signal import correlate2d
from tensor_check import assert_gradients_match

from implementations.engine.autograd import Tensor
from implementations.nn import Linear
from implementations.nn.conv import (
    avg_pool2d,
    conv2d,
    conv2d_loop,
    conv_output_size,
    im2col,
    max_pool2d,
    pad2d,
    receptive_field,
)
from implementations.preliminaries.gradcheck import numerical_gradient


def direct_conv(x, k, b, stride, padding=0):
    """The cross-correlation written out with NumPy loops, padding by np.pad."""
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    N, C, H, W = x.shape
    F, _, kh, kw = k.shape
    H_out, W_out = (H - kh) // stride + 1, (W - kw) // stride + 1
    out = np.zeros((N, F, H_out, W_out))
    for n in range(N):
        for f in range(F):
            for i in range(H_out):
                for j in range(W_out):
                    window = x[n, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
                    out[n, f, i, j] = np.sum(window * k[f]) + (b[f] if b is not None else 0.0)
    return out


def direct_pool(x, size, stride, reduce):
    N, C, H, W = x.shape
    H_out, W_out = (H - size) // stride + 1, (W - size) // stride + 1
    out = np.zeros((N, C, H_out, W_out))
    for n, c, i, j in itertools.product(range(N), range(C), range(H_out), range(W_out)):
        out[n, c, i, j] = reduce(x[n, c, i * stride:i * stride + size, j * stride:j * stride + size])
    return out


# --- convolution ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("shape, kshape, stride", [((1, 1, 5, 5), (1, 1, 3, 3), 1), ((2, 3, 6, 7), (4, 3, 2, 3), 1),
                                                   ((2, 2, 7, 7), (3, 2, 3, 3), 2)])
def test_conv2d_matches_a_direct_loop_and_its_gradients(shape, kshape, stride):
    rng = np.random.default_rng(0)
    x, k, b = rng.normal(size=shape), rng.normal(size=kshape), rng.normal(size=kshape[0])
    out = conv2d(Tensor(x), Tensor(k), Tensor(b), stride=stride)
    np.testing.assert_allclose(out.data, direct_conv(x, k, b, stride), rtol=1e-12, atol=1e-12)
    assert_gradients_match(lambda xx, kk, bb: conv2d(xx, kk, bb, stride=stride), x, k, b)


CASES = [(stride, padding, kernel, C, F) for stride, padding, kernel, (C, F)
         in itertools.product([1, 2, 3], [0, 1, 2], [(1, 1), (3, 3), (2, 3)], [(1, 1), (3, 4)])]


@pytest.mark.parametrize("stride, padding, kernel, C, F", CASES)
def test_conv2d_and_conv2d_loop_match_a_numpy_loop_and_each_other(stride, padding, kernel, C, F):
    rng = np.random.default_rng(stride * 100 + padding * 10 + C)
    x, k, b = rng.normal(size=(2, C, 6, 7)), rng.normal(size=(F, C, *kernel)), rng.normal(size=F)
    expected = direct_conv(x, k, b, stride, padding)
    fast = conv2d(Tensor(x), Tensor(k), Tensor(b), stride=stride, padding=padding)
    slow = conv2d_loop(Tensor(x), Tensor(k), Tensor(b), stride=stride, padding=padding)
    assert fast.shape == slow.shape == expected.shape
    np.testing.assert_allclose(fast.data, expected, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(slow.data, expected, rtol=1e-12, atol=1e-12)
    # the same gradients through both graphs, for a random upstream gradient
    weights = rng.normal(size=expected.shape)
    grads = []
    for conv in (conv2d, conv2d_loop):
        tx, tk, tb = (Tensor(a, requires_grad=True) for a in (x, k, b))
        (conv(tx, tk, tb, stride=stride, padding=padding) * weights).sum().backward()
        grads.append((tx.grad, tk.grad, tb.grad))
    for fast_grad, slow_grad in zip(*grads, strict=True):
        np.testing.assert_allclose(fast_grad, slow_grad, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("stride, padding", [(1, 1), (2, 1), (1, 2), (3, 2)])
def test_conv2d_gradients_with_padding_match_finite_differences(stride, padding):
    rng = np.random.default_rng(3)
    x, k, b = rng.normal(size=(2, 2, 5, 4)), rng.normal(size=(3, 2, 3, 2)), rng.normal(size=3)
    assert_gradients_match(lambda xx, kk, bb: conv2d(xx, kk, bb, stride=stride, padding=padding), x, k, b)


def test_conv2d_loop_gradients_match_finite_differences():
    rng = np.random.default_rng(4)
    x, k, b = rng.normal(size=(1, 2, 4, 5)), rng.normal(size=(2, 2, 3, 3)), rng.normal(size=2)
    assert_gradients_match(lambda xx, kk, bb: conv2d_loop(xx, kk, bb, stride=2, padding=1), x, k, b)
    # and through the package's own checker, for the gradient of a scalar with respect to x alone
    kernel = Tensor(k)
    t = Tensor(x, requires_grad=True)
    (conv2d_loop(t, kernel, padding=1) ** 2).sum().backward()
    numeric = numerical_gradient(lambda a: float((conv2d_loop(Tensor(a), kernel, padding=1).data ** 2).sum()), x)
    np.testing.assert_allclose(t.grad, numeric, rtol=1e-6, atol=1e-8)


def test_conv2d_defaults_reproduce_the_former_implementation_bit_for_bit():
    """Without padding, conv2d is the same chain of operations as before padding existed: same values, same bits."""
    rng = np.random.default_rng(5)
    x, k, b = rng.normal(size=(3, 2, 9, 8)), rng.normal(size=(4, 2, 3, 2)), rng.normal(size=4)
    weights = rng.normal(size=(3, 4, 4, 4))

    def former(x, kernel, bias, stride):
        N, C, H, W = x.shape
        F, _, kh, kw = kernel.shape
        H_out, W_out = (H - kh) // stride + 1, (W - kw) // stride + 1
        rows = (np.arange(H_out) * stride)[:, None, None, None] + np.arange(kh)[None, None, :, None]
        cols = (np.arange(W_out) * stride)[None, :, None, None] + np.arange(kw)[None, None, None, :]
        rows, cols = np.broadcast_to(rows, (H_out, W_out, kh, kw)), np.broadcast_to(cols, (H_out, W_out, kh, kw))
        flat = x[:, :, rows, cols].transpose(0, 2, 3, 1, 4, 5).reshape(N, H_out, W_out, C * kh * kw)
        return ((flat @ kernel.reshape(F, C * kh * kw).T) + bias).transpose(0, 3, 1, 2)

    results = []
    for conv in (former, lambda *a: conv2d(*a[:3], stride=a[3])):
        tx, tk, tb = (Tensor(a, requires_grad=True) for a in (x, k, b))
        out = conv(tx, tk, tb, 2)
        (out * weights).sum().backward()
        results.append((out.data, tx.grad, tk.grad, tb.grad))
    for before, now in zip(*results, strict=True):
        np.testing.assert_array_equal(now, before)


def test_conv2d_single_channel_equals_scipy_correlate2d():
    rng = np.random.default_rng(1)
    image, kernel = rng.normal(size=(8, 9)), rng.normal(size=(3, 2))
    out = conv2d(Tensor(image[None, None]), Tensor(kernel[None, None])).data[0, 0]
    np.testing.assert_allclose(out, correlate2d(image, kernel, mode="valid"), rtol=1e-12)
    padded = conv2d(Tensor(image[None, None]), Tensor(np.ones((1, 1, 3, 3))), padding=1).data[0, 0]
    np.testing.assert_allclose(padded, correlate2d(image, np.ones((3, 3)), mode="same"), rtol=1e-12)


def test_conv2d_is_a_cross_correlation_not_a_flipped_convolution():
    """The classic mix-up: flipping the kernel (a true convolution) gives another result for a kernel that is not
    symmetric, and the reference loop tells the two apart."""
    rng = np.random.default_rng(6)
    x, k = rng.normal(size=(1, 1, 6, 6)), rng.normal(size=(1, 1, 3, 3))
    out = conv2d(Tensor(x), Tensor(k), padding=1).data
    flipped = direct_conv(x, k[:, :, ::-1, ::-1], None, 1, 1)
    np.testing.assert_allclose(out, direct_conv(x, k, None, 1, 1), rtol=1e-12)
    assert np.abs(out - flipped).max() > 0.1


def test_a_1x1_convolution_is_a_dense_layer_applied_to_every_pixel():
    rng = np.random.default_rng(7)
    N, C, H, W, F = 2, 5, 4, 6, 3
    x = rng.normal(size=(N, C, H, W))
    dense = Linear(C, F, rng=rng)
    dense.b.data[:] = rng.normal(size=F)
    kernel = dense.W.data.T[:, :, None, None]  # (F, C, 1, 1): Linear's W is (in, out)
    out = conv2d(Tensor(x), Tensor(kernel), dense.b)
    per_pixel = dense(Tensor(x.transpose(0, 2, 3, 1))).data.transpose(0, 3, 1, 2)  # (N, H, W, C) -> (N, F, H, W)
    np.testing.assert_allclose(out.data, per_pixel, rtol=1e-12, atol=1e-12)
    strided = conv2d(Tensor(x), Tensor(kernel), dense.b, stride=2)  # every other pixel
    np.testing.assert_allclose(strided.data, per_pixel[:, :, ::2, ::2], rtol=1e-12, atol=1e-12)


# --- padding, im2col and sizes -------------------------------------------------------------------------------------

@pytest.mark.parametrize("padding", [0, 1, 3])
def test_pad2d_matches_np_pad_and_passes_the_gradient_back(padding):
    rng = np.random.default_rng(8)
    x = rng.normal(size=(2, 3, 4, 5))
    t = Tensor(x, requires_grad=True)
    padded = pad2d(t, padding)
    expected = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    np.testing.assert_array_equal(padded.data, expected)
    upstream = rng.normal(size=expected.shape)
    (padded * upstream).sum().backward()
    H, W = x.shape[2:]
    np.testing.assert_array_equal(t.grad, upstream[:, :, padding:padding + H, padding:padding + W])
    assert pad2d(t, 0) is t  # no padding: the same Tensor, no copy


@pytest.mark.parametrize("kernel_size, stride, padding", [(3, 1, 0), ((2, 3), 2, 1), (1, 3, 2), ((3, 1), 1, 1)])
def test_im2col_rows_are_the_windows_and_conv2d_is_one_product(kernel_size, stride, padding):
    rng = np.random.default_rng(9)
    x = rng.normal(size=(2, 3, 6, 5))
    kh, kw = (kernel_size, kernel_size) if isinstance(kernel_size, int) else kernel_size
    cols = im2col(Tensor(x), kernel_size, stride=stride, padding=padding)
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    H_out = conv_output_size(6, kh, stride=stride, padding=padding)
    W_out = conv_output_size(5, kw, stride=stride, padding=padding)
    assert cols.shape == (2, H_out, W_out, 3 * kh * kw)
    for n, i, j in itertools.product(range(2), range(H_out), range(W_out)):
        window = xp[n, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
        np.testing.assert_array_equal(cols.data[n, i, j], window.ravel())
    k = rng.normal(size=(4, 3, kh, kw))
    product = cols.data.reshape(-1, 3 * kh * kw) @ k.reshape(4, -1).T  # the textbook patch matrix, 2-D
    out = conv2d(Tensor(x), Tensor(k), stride=stride, padding=padding).data
    np.testing.assert_allclose(product.reshape(2, H_out, W_out, 4).transpose(0, 3, 1, 2), out, rtol=1e-12,
                               atol=1e-12)
    if kh * kw == 1:
        return  # a 1x1 window has one order only
    # the classic slip: unrolling each window as (kh, kw, C) instead of (C, kh, kw) pairs pixels with wrong weights
    wrong = cols.data.reshape(2, H_out, W_out, 3, kh, kw).transpose(0, 1, 2, 4, 5, 3).reshape(-1, 3 * kh * kw)
    assert np.abs((wrong @ k.reshape(4, -1).T).reshape(2, H_out, W_out, 4).transpose(0, 3, 1, 2) - out).max() > 0.1


def test_im2col_gradient_counts_the_windows_that_hold_each_pixel():
    rng = np.random.default_rng(10)
    x = rng.normal(size=(1, 2, 5, 6))
    t = Tensor(x, requires_grad=True)
    im2col(t, 3, stride=1).sum().backward()
    windows = np.zeros((5, 6))
    for i, j in itertools.product(range(3), range(4)):
        windows[i:i + 3, j:j + 3] += 1
    np.testing.assert_array_equal(t.grad, np.broadcast_to(windows, x.shape))
    assert_gradients_match(lambda a: im2col(a, (2, 3), stride=2, padding=1), x)


@pytest.mark.parametrize("size, kernel_size, stride, padding, expected",
                         [(8, 3, 1, 1, 8), (28, 5, 1, 0, 24), (7, 3, 2, 0, 3), (8, 3, 2, 0, 3), (5, 2, 2, 0, 2),
                          (32, 3, 2, 1, 16), (1, 3, 1, 1, 1), (4, 4, 1, 0, 1)])
def test_conv_output_size_closed_form_and_actual_shapes(size, kernel_size, stride, padding, expected):
    assert conv_output_size(size, kernel_size, stride=stride, padding=padding) == expected
    x, k = np.zeros((1, 1, size, size + 1)), np.zeros((1, 1, kernel_size, kernel_size))
    out = conv2d(Tensor(x), Tensor(k), stride=stride, padding=padding)
    assert out.shape[2:] == (expected, conv_output_size(size + 1, kernel_size, stride=stride, padding=padding))


# --- pooling -------------------------------------------------------------------------------------------------------

def test_max_pool2d_values_and_gradient():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(max_pool2d(Tensor(x)).data, [[[[5.0, 7.0], [13.0, 15.0]]]])
    rng = np.random.default_rng(2)
    assert_gradients_match(lambda t: max_pool2d(t, 2), rng.normal(size=(2, 3, 4, 6)))
    t = Tensor(x, requires_grad=True)
    max_pool2d(t).sum().backward()
    assert t.grad.sum() == 4 and t.grad[0, 0, 1, 1] == 1  # one maximum per window receives the gradient


@pytest.mark.parametrize("size, stride, H, W", [(2, None, 4, 6), (3, 1, 5, 6), (3, 2, 7, 9), (3, 3, 6, 9),
                                                (2, 1, 3, 3), (3, None, 6, 9)])
@pytest.mark.parametrize("pool, reduce", [(max_pool2d, np.max), (avg_pool2d, np.mean)])
def test_pooling_with_stride_matches_a_loop_and_finite_differences(pool, reduce, size, stride, H, W):
    rng = np.random.default_rng(H * W + size)
    x = rng.normal(size=(2, 2, H, W))
    out = pool(Tensor(x), size, stride=stride)
    np.testing.assert_allclose(out.data, direct_pool(x, size, stride or size, reduce), rtol=1e-12, atol=1e-15)
    assert_gradients_match(lambda t: pool(t, size, stride=stride), x)


def test_overlapping_windows_add_their_gradients():
    x = np.arange(9.0).reshape(1, 1, 3, 3)
    t = Tensor(x, requires_grad=True)
    max_pool2d(t, 2, stride=1).sum().backward()  # the maxima of the 4 windows are 4, 5, 7, 8
    np.testing.assert_array_equal(t.grad[0, 0], [[0, 0, 0], [0, 1, 1], [0, 1, 1]])
    t = Tensor(x, requires_grad=True)
    avg_pool2d(t, 2, stride=1).sum().backward()  # the centre lies in all 4 windows, a corner in one
    np.testing.assert_array_equal(t.grad[0, 0] * 4, [[1, 2, 1], [2, 4, 2], [1, 2, 1]])


def test_default_stride_is_the_window_size():
    rng = np.random.default_rng(11)
    x = Tensor(rng.normal(size=(2, 3, 6, 4)))
    for pool in (max_pool2d, avg_pool2d):
        np.testing.assert_array_equal(pool(x, 2).data, pool(x, 2, stride=2).data)
    np.testing.assert_array_equal(max_pool2d(x, 2).data, x.data.reshape(2, 3, 3, 2, 2, 2).max(axis=(3, 5)))


def test_the_pooling_fast_path_gives_the_windows_the_gather_gives():
    """Windows side by side are cut by a reshape (the fast path); the general path gathers them by index."""
    from implementations.nn import conv

    rng = np.random.default_rng(13)
    x = Tensor(rng.normal(size=(2, 3, 6, 4)), requires_grad=True)
    rows, cols = conv._patch_index(6, 4, 2, 2, 2)
    fast, gathered = conv._pool_windows(x, 2, None), x[:, :, rows, cols]  # (2, 3, 3, 2, 2, 2) each
    np.testing.assert_array_equal(fast.data, gathered.data)
    upstream = rng.normal(size=fast.shape)
    (fast * upstream).sum().backward()
    grad_fast, x.grad = x.grad, None
    (gathered * upstream).sum().backward()
    np.testing.assert_array_equal(grad_fast, x.grad)


# --- receptive field -----------------------------------------------------------------------------------------------

def measured_field(stack, size, out_pixel, seed=12):
    """Rows and columns of the input pixels on which one output pixel of ``stack`` depends (non-zero gradient)."""
    rng = np.random.default_rng(seed)
    x = Tensor(rng.normal(size=(1, 1, size, size)), requires_grad=True)
    h = x
    for kind, k, s, p in stack:
        if kind == "conv":
            h = conv2d(h, Tensor(rng.uniform(0.5, 1.5, size=(1, 1, k, k))), stride=s, padding=p)
        else:
            h = (avg_pool2d if kind == "avg" else max_pool2d)(h, k, stride=s)
    i, j = out_pixel
    h[0, 0, i, j].backward()
    rows, cols = np.nonzero(x.grad[0, 0])
    return rows, cols


STACKS = [  # (layers, input size): (kind, kernel or window size, stride, padding) per layer
    ([("conv", 3, 1, 0), ("avg", 2, 2, 0), ("conv", 3, 1, 0), ("conv", 3, 2, 0), ("avg", 3, 1, 0)], 40),
    ([("conv", 3, 1, 0), ("conv", 3, 1, 0), ("conv", 3, 1, 0)], 12),
    ([("conv", 5, 2, 0), ("avg", 3, 2, 0), ("conv", 2, 1, 0), ("avg", 2, 1, 0)], 41),
]


@pytest.mark.parametrize("stack, size", STACKS)
def test_receptive_field_matches_the_pixels_that_reach_one_output(stack, size):
    r, j = receptive_field([(k, s) for _, k, s, _ in stack])
    for out_pixel in [(1, 2), (2, 2)]:
        rows, cols = measured_field(stack, size, out_pixel)
        # every pixel of the r x r square that starts at (i·j, j·j) counts, and no other
        assert set(zip(rows.tolist(), cols.tolist(), strict=True)) == {
            (out_pixel[0] * j[-1] + a, out_pixel[1] * j[-1] + b) for a in range(r[-1]) for b in range(r[-1])}


def test_receptive_field_closed_forms_and_the_classic_wrong_recursion():
    r, j = receptive_field([(3, 1), (2, 2), (3, 1)])
    np.testing.assert_array_equal(r, [3, 4, 8])
    np.testing.assert_array_equal(j, [1, 2, 2])
    r, _ = receptive_field([(3, 1)] * 3)  # three 3x3 convolutions see as far as one 7x7
    np.testing.assert_array_equal(r, [3, 5, 7])
    r, j = receptive_field(np.array([[2, 2]] * 4))  # four 2x2 poolings: 16 pixels, 16 apart
    assert r[-1] == j[-1] == 16

    def wrong_recursion(layers):  # grows by the *new* jump: r_l = r_{l-1} + (k_l - 1) j_l
        r_prev, j_prev = 1, 1
        for k, s in layers:
            j_prev = j_prev * s
            r_prev = r_prev + (k - 1) * j_prev
        return r_prev

    stack = STACKS[0][0]
    layers = [(k, s) for _, k, s, _ in stack]
    rows, _ = measured_field(stack, 40, (1, 1))
    assert rows.max() - rows.min() + 1 == receptive_field(layers)[0][-1] != wrong_recursion(layers)


def test_padding_shifts_the_receptive_field_but_keeps_its_size():
    stack = [("conv", 3, 1, 1), ("avg", 2, 2, 0), ("conv", 3, 1, 1)]
    r, _ = receptive_field([(3, 1), (2, 2), (3, 1)])
    rows, cols = measured_field(stack, 16, (4, 3))
    assert rows.max() - rows.min() + 1 == cols.max() - cols.min() + 1 == r[-1]
    assert rows.min() == 4 * 2 - (1 + 1 * 2)  # i·j_L − Σ p_l j_{l−1}: each padded layer shifts by p_l j_{l−1}


def test_max_pooling_lets_the_gradient_reach_only_part_of_the_receptive_field():
    avg_stack = [("conv", 3, 1, 0), ("avg", 2, 2, 0), ("conv", 3, 1, 0)]
    max_stack = [("conv", 3, 1, 0), ("max", 2, 2, 0), ("conv", 3, 1, 0)]
    full = set(zip(*(a.tolist() for a in measured_field(avg_stack, 12, (1, 1))), strict=True))
    reached = set(zip(*(a.tolist() for a in measured_field(max_stack, 12, (1, 1))), strict=True))
    assert reached < full


# --- bad input -----------------------------------------------------------------------------------------------------

def test_bad_shapes_raise():
    with pytest.raises(ValueError, match=r"same C; received x \(1, 2, 5, 5\) and kernel \(1, 3, 3, 3\)"):
        conv2d(Tensor(np.zeros((1, 2, 5, 5))), Tensor(np.zeros((1, 3, 3, 3))))
    with pytest.raises(ValueError, match="larger than the image"):
        conv2d(Tensor(np.zeros((1, 1, 2, 2))), Tensor(np.zeros((1, 1, 3, 3))))
    with pytest.raises(ValueError, match="multiples of 2"):
        max_pool2d(Tensor(np.zeros((1, 1, 5, 4))))


def test_bad_shapes_and_sizes_name_the_argument():
    x = Tensor(np.zeros((1, 2, 5, 5)))
    with pytest.raises(ValueError, match=r"x must be a batch of images of shape \(N, C, H, W\); received shape"):
        conv2d(np.zeros((2, 5, 5)), np.zeros((1, 2, 3, 3)))
    with pytest.raises(ValueError, match=r"kernel must have shape \(F, C, kh, kw\)"):
        conv2d(x, np.zeros((2, 3, 3)))
    with pytest.raises(ValueError, match="kernel has 3 channel"):
        conv2d(x, np.zeros((1, 3, 3, 3)))
    with pytest.raises(ValueError, match=r"bias has 2 entries along axis 0, but kernel's axis 0 gives F = 1: expected "
                                         r"bias of shape \(F,\)"):
        conv2d(x, np.zeros((1, 2, 3, 3)), np.zeros(2))
    with pytest.raises(ValueError, match="x contains 50 NaN or infinite value"):
        conv2d(np.full((1, 2, 5, 5), np.inf), np.zeros((1, 2, 3, 3)))
    with pytest.raises(ValueError, match=r"multiples of 3 \(the window's side, size=3\)"):
        max_pool2d(np.zeros((1, 1, 4, 4)), 3)
    with pytest.raises(TypeError, match="x must be a numeric array"):
        max_pool2d("image")


@pytest.mark.parametrize("conv", [conv2d, conv2d_loop])
def test_conv_refuses_bad_stride_padding_and_kernels_by_name(conv):
    x, k = Tensor(np.zeros((1, 2, 4, 4))), Tensor(np.zeros((3, 2, 3, 3)))
    for stride in (0, -1, 1.5, "2"):
        with pytest.raises(ValueError, match="stride must be an integer >= 1"):
            conv(x, k, stride=stride)
    for padding in (-1, 0.5):
        with pytest.raises(ValueError, match="padding must be an integer >= 0"):
            conv(x, k, padding=padding)
    with pytest.raises(ValueError, match=r"kernel 6x6 is larger than the image of x: 4x4, with padding=0"):
        conv(x, Tensor(np.zeros((3, 2, 6, 6))))
    assert conv(x, Tensor(np.zeros((3, 2, 6, 6))), padding=1).shape == (1, 3, 1, 1)  # padding makes it fit
    with pytest.raises(ValueError, match="kernel has 1 channel"):
        conv(x, Tensor(np.zeros((3, 1, 3, 3))))
    with pytest.raises(ValueError, match=r"x must be a batch of images of shape \(N, C, H, W\)"):
        conv(Tensor(np.zeros((1, 1, 2, 4, 4))), k)


def test_im2col_pad2d_and_conv_output_size_refuse_bad_input_by_name():
    x = Tensor(np.zeros((1, 1, 4, 4)))
    with pytest.raises(ValueError, match=r"window kernel_size=\(5, 5\) is larger than the image of x"):
        im2col(x, 5)
    with pytest.raises(ValueError, match=r"kernel_size\[1\] must be an integer >= 1"):
        im2col(x, (2, 0))
    with pytest.raises(ValueError, match="kernel_size must be an integer or a pair"):
        im2col(x, (2, 2, 2))
    with pytest.raises(ValueError, match="padding must be an integer >= 0"):
        pad2d(x, -1)
    with pytest.raises(ValueError, match=r"x must be a batch of images .* x\[None\]"):
        pad2d(np.zeros((4, 4)), 1)
    with pytest.raises(ValueError, match=r"kernel_size=5 is larger than the padded input: size \+ 2·padding = 3"):
        conv_output_size(3, 5, padding=0)
    assert conv_output_size(3, 5, padding=1) == 1
    with pytest.raises(ValueError, match="stride must be an integer >= 1"):
        conv_output_size(8, 3, stride=0)
    with pytest.raises(ValueError, match="padding must be an integer >= 0"):
        conv_output_size(8, 3, padding=-1)


def test_pooling_and_receptive_field_refuse_bad_input_by_name():
    x = Tensor(np.zeros((1, 1, 5, 5)))
    for pool in (max_pool2d, avg_pool2d):
        with pytest.raises(ValueError, match=r"x has height 5 and width 5; expected both to be multiples of 2"):
            pool(x, 2, stride=2)  # the default stride too: the windows must tile the image
        with pytest.raises(ValueError, match=r"size=3 moved by stride=2 do not end at the last row and column"):
            pool(Tensor(np.zeros((1, 1, 6, 7))), 3, stride=2)
    with pytest.raises(ValueError, match="stride must be an integer >= 1"):
        max_pool2d(x, 2, stride=0)
    with pytest.raises(ValueError, match=r"stride=3 is larger than the window size=2: windows that far apart never "
                                         r"read the 1 row\(s\)"):
        max_pool2d(Tensor(np.zeros((1, 1, 5, 8))), 2, stride=3)  # rows 2 and columns 2, 5 would be skipped
    with pytest.raises(ValueError, match=r"the window size=6 is larger than the image 5x5 of x"):
        avg_pool2d(x, 6)
    with pytest.raises(ValueError, match=r"layers\[1\] = \(2.0, 0.0\) is not a \(kernel_size, stride\) pair"):
        receptive_field([(3, 1), (2, 0)])
    with pytest.raises(ValueError, match=r"layers must hold one \(kernel_size, stride\) pair per layer"):
        receptive_field([(3, 1, 0)])
    with pytest.raises(ValueError, match="layers is empty"):
        receptive_field(np.zeros((0, 2)))
