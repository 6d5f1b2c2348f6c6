"""Valid examples for the input contract: conv (2-D convolution, padding, im2col, pooling and size arithmetic)."""

import numpy as np

from contract import Example
from implementations.engine.autograd import Tensor
from implementations.nn import conv

_rng = np.random.default_rng(0)
IMAGES = _rng.normal(size=(2, 2, 5, 5))  # (N, C, H, W)
KERNELS = _rng.normal(size=(3, 2, 3, 3))  # (F, C, kh, kw)
BIAS = np.zeros(3)  # (F,)
POOL = _rng.normal(size=(1, 2, 4, 4))  # (N, C, H, W), H and W even

_CONV_ROLES = {"x": "tensor", "kernel": "tensor", "bias": "tensor", "stride": "count", "padding": "count0"}
_CONV_EXTRA = [("channels that differ from x's", {"kernel": Tensor(np.ones((3, 1, 3, 3)))}, ()),
               ("a kernel larger than the padded image (7x7)", {"kernel": Tensor(np.ones((3, 2, 8, 8)))}, ()),
               ("one image without the batch axis", {"x": Tensor(IMAGES[0])}, ()),
               ("a 3-D kernel", {"kernel": Tensor(KERNELS[0])}, ()),
               ("one value per kernel too few", {"bias": Tensor(np.zeros(2))}, ())]


def _conv_call(function):
    return lambda: (function, {"x": Tensor(IMAGES), "kernel": Tensor(KERNELS, requires_grad=True),
                               "bias": Tensor(BIAS, requires_grad=True), "stride": 1, "padding": 1})


def _pool_example(function):
    return Example(
        build=lambda: (function, {"x": Tensor(POOL, requires_grad=True), "size": 2, "stride": 2}),
        roles={"x": "tensor", "size": "count", "stride": "count?"},
        extra=[("a size that does not divide H and W", {"size": 3}, ()),
               ("a size larger than the image", {"size": 8}, ()),
               ("a stride whose windows stop short of the last row", {"stride": 3}, ()),
               ("one image without the batch axis", {"x": Tensor(POOL[0])}, ())])


EXAMPLES = {
    "implementations.nn.conv.conv2d": Example(build=_conv_call(conv.conv2d), roles=_CONV_ROLES, extra=_CONV_EXTRA),
    "implementations.nn.conv.conv2d_loop": Example(build=_conv_call(conv.conv2d_loop), roles=_CONV_ROLES,
                                                extra=_CONV_EXTRA),
    "implementations.nn.conv.im2col": Example(
        build=lambda: (conv.im2col, {"x": Tensor(IMAGES, requires_grad=True), "kernel_size": 3, "stride": 2,
                                     "padding": 1}),
        roles={"x": "tensor", "kernel_size": "count", "stride": "count", "padding": "count0"},
        extra=[("a window larger than the padded image", {"kernel_size": 8}, ()),
               ("a pair with a zero", {"kernel_size": (3, 0)}, ()),
               ("three sizes instead of a pair", {"kernel_size": (3, 3, 3)}, ()),
               ("one image without the batch axis", {"x": Tensor(IMAGES[0])}, ())]),
    "implementations.nn.conv.pad2d": Example(
        build=lambda: (conv.pad2d, {"x": Tensor(IMAGES, requires_grad=True), "padding": 2}),
        roles={"x": "tensor", "padding": "count0"},
        extra=[("one image without the batch axis", {"x": Tensor(IMAGES[0])}, ())]),
    "implementations.nn.conv.conv_output_size": Example(
        build=lambda: (conv.conv_output_size, {"size": 8, "kernel_size": 3, "stride": 2, "padding": 1}),
        roles={"size": "count", "kernel_size": "count", "stride": "count", "padding": "count0"},
        extra=[("a kernel larger than the padded input", {"kernel_size": 11}, ())]),
    "implementations.nn.conv.receptive_field": Example(
        build=lambda: (conv.receptive_field, {"layers": [(3, 1), (2, 2), (3, 1)]}),
        roles={"layers": "array"},
        extra=[("a zero stride", {"layers": [(3, 1), (2, 0)]}, ()),
               ("a fractional kernel size", {"layers": [(2.5, 1)]}, ()),
               ("a kernel size without its stride", {"layers": [[3], [2]]}, ()),
               ("a triple instead of a pair", {"layers": [(3, 1, 1)]}, ())]),
    "implementations.nn.conv.max_pool2d": _pool_example(conv.max_pool2d),
    "implementations.nn.conv.avg_pool2d": _pool_example(conv.avg_pool2d),
    "implementations.nn.conv.global_avg_pool2d": Example(
        build=lambda: (conv.global_avg_pool2d, {"x": Tensor(POOL, requires_grad=True)}),
        roles={"x": "tensor"},
        extra=[("one image without the batch axis", {"x": Tensor(POOL[0])}, ())]),
    "implementations.nn.conv.conv2d_input_grad": Example(
        build=lambda: (conv.conv2d_input_grad, {"grad_out": np.ones((2, 3, 3, 3)), "kernel": KERNELS,
                                                "input_size": (5, 5), "stride": 2, "padding": 1}),
        roles={"grad_out": "array", "kernel": "array", "stride": "count", "padding": "count0"},
        extra=[("a gradient of the wrong size", {"grad_out": np.ones((2, 3, 5, 5))}, ()),
               ("a gradient with another number of kernels", {"grad_out": np.ones((2, 4, 3, 3))}, ()),
               ("a 3-D gradient", {"grad_out": np.ones((3, 3, 3))}, ()),
               ("one number as the input size", {"input_size": 5}, ()),
               ("a zero height", {"input_size": (0, 5)}, ()),
               ("images smaller than the kernel", {"input_size": (1, 1), "padding": 0}, ())]),
}
