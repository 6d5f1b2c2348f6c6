"""Valid examples for the input contract: conv (2-D convolution and max-pooling on Tensors)."""

import numpy as np

from contract import Example
from implementations import conv
from implementations.autograd import Tensor

_rng = np.random.default_rng(0)
IMAGES = _rng.normal(size=(2, 2, 5, 5))  # (N, C, H, W)
KERNELS = _rng.normal(size=(3, 2, 3, 3))  # (F, C, kh, kw)
BIAS = np.zeros(3)  # (F,)
POOL = _rng.normal(size=(1, 2, 4, 4))  # (N, C, H, W), H and W even

EXAMPLES = {
    "implementations.conv.conv2d": Example(
        build=lambda: (conv.conv2d, {"x": Tensor(IMAGES), "kernel": Tensor(KERNELS, requires_grad=True),
                                     "bias": Tensor(BIAS, requires_grad=True), "stride": 1}),
        roles={"x": "tensor", "kernel": "tensor", "bias": "tensor", "stride": "count"},
        extra=[("channels that differ from x's", {"kernel": Tensor(np.ones((3, 1, 3, 3)))}, ()),
               ("a kernel larger than the image", {"kernel": Tensor(np.ones((3, 2, 6, 6)))}, ()),
               ("one image without the batch axis", {"x": Tensor(IMAGES[0])}, ()),
               ("a 3-D kernel", {"kernel": Tensor(KERNELS[0])}, ()),
               ("one value per kernel too few", {"bias": Tensor(np.zeros(2))}, ())]),
    "implementations.conv.max_pool2d": Example(
        build=lambda: (conv.max_pool2d, {"x": Tensor(POOL, requires_grad=True), "size": 2}),
        roles={"x": "tensor", "size": "count"},
        extra=[("a size that does not divide H and W", {"size": 3}, ()),
               ("a size larger than the image", {"size": 8}, ()),
               ("one image without the batch axis", {"x": Tensor(POOL[0])}, ())]),
}
