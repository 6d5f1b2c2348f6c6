"""Tests of implementations.conv against direct loops and scipy, and of their gradients."""

import numpy as np
import pytest
from scipy.signal import correlate2d
from tensor_check import assert_gradients_match

from implementations.autograd import Tensor
from implementations.conv import conv2d, max_pool2d


def direct_conv(x, k, b, stride):
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


@pytest.mark.parametrize("shape, kshape, stride", [((1, 1, 5, 5), (1, 1, 3, 3), 1), ((2, 3, 6, 7), (4, 3, 2, 3), 1),
                                                   ((2, 2, 7, 7), (3, 2, 3, 3), 2)])
def test_conv2d_matches_a_direct_loop_and_its_gradients(shape, kshape, stride):
    rng = np.random.default_rng(0)
    x, k, b = rng.normal(size=shape), rng.normal(size=kshape), rng.normal(size=kshape[0])
    out = conv2d(Tensor(x), Tensor(k), Tensor(b), stride=stride)
    np.testing.assert_allclose(out.data, direct_conv(x, k, b, stride), rtol=1e-12, atol=1e-12)
    assert_gradients_match(lambda xx, kk, bb: conv2d(xx, kk, bb, stride=stride), x, k, b)


def test_conv2d_single_channel_equals_scipy_correlate2d():
    rng = np.random.default_rng(1)
    image, kernel = rng.normal(size=(8, 9)), rng.normal(size=(3, 2))
    out = conv2d(Tensor(image[None, None]), Tensor(kernel[None, None])).data[0, 0]
    np.testing.assert_allclose(out, correlate2d(image, kernel, mode="valid"), rtol=1e-12)


def test_max_pool2d_values_and_gradient():
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    np.testing.assert_array_equal(max_pool2d(Tensor(x)).data, [[[[5.0, 7.0], [13.0, 15.0]]]])
    rng = np.random.default_rng(2)
    assert_gradients_match(lambda t: max_pool2d(t, 2), rng.normal(size=(2, 3, 4, 6)))
    t = Tensor(x, requires_grad=True)
    max_pool2d(t).sum().backward()
    assert t.grad.sum() == 4 and t.grad[0, 0, 1, 1] == 1  # one maximum per window receives the gradient


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
    with pytest.raises(ValueError, match=r"bias must have shape \(1,\)"):
        conv2d(x, np.zeros((1, 2, 3, 3)), np.zeros(2))
    with pytest.raises(ValueError, match="x contains 50 NaN or infinite value"):
        conv2d(np.full((1, 2, 5, 5), np.inf), np.zeros((1, 2, 3, 3)))
    with pytest.raises(ValueError, match=r"multiples of 3 \(the window's side, size=3\)"):
        max_pool2d(np.zeros((1, 1, 4, 4)), 3)
    with pytest.raises(TypeError, match="x must be a numeric array"):
        max_pool2d("image")
