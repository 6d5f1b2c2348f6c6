"""Benchmark of the two forms of 2-D convolution (`python bench/bench_conv.py`; not a test, nothing is asserted).

Reports the time of one forward and backward pass (the gradients of the images, the kernels and the biases) of

* ``conv2d``: im2col (every window gathered with one integer-array index) and one matrix product;
* ``conv2d_loop``: the direct loop over output positions and kernels, one small Tensor operation each;

on a batch like the 8x8 digits (64 images, 1 channel, 8 kernels 3x3, padding 1) and on a larger one
(32 images, 8 channels of 16x16, 16 kernels 3x3, padding 1). Each figure is the median of several
repetitions, in milliseconds, with the ratio loop / im2col.
"""

import platform
import statistics
import time

import numpy as np

from implementations.engine.autograd import Tensor
from implementations.nn.conv import conv2d, conv2d_loop

CASES = [  # (name, N, C, H, W, F, k, padding)
    ("digits: 64 x 1 x 8 x 8, 8 kernels 3x3, padding 1", 64, 1, 8, 8, 8, 3, 1),
    ("larger: 32 x 8 x 16 x 16, 16 kernels 3x3, padding 1", 32, 8, 16, 16, 16, 3, 1),
]


def median_time(fn, *, repeats, warmup=1):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def forward_backward_time(conv, N, C, H, W, F, k, padding, *, repeats):
    rng = np.random.default_rng(0)
    x = Tensor(rng.normal(size=(N, C, H, W)), requires_grad=True)  # (N, C, H, W)
    kernel = Tensor(rng.normal(size=(F, C, k, k)), requires_grad=True)  # (F, C, k, k)
    bias = Tensor(np.zeros(F), requires_grad=True)  # (F,)
    weights = rng.normal(size=(N, F, H + 2 * padding - k + 1, W + 2 * padding - k + 1))  # L = Σ weights ⊙ out

    def step():
        for t in (x, kernel, bias):
            t.grad = None
        (conv(x, kernel, bias, padding=padding) * weights).sum().backward()

    return median_time(step, repeats=repeats)


if __name__ == "__main__":
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, NumPy {np.__version__}")
    print("conv2d forward + backward, median time in ms")
    print(f"{'case':<54}{'im2col':>10}{'loop':>10}{'loop / im2col':>15}")
    for name, *shape in CASES:
        fast = forward_backward_time(conv2d, *shape, repeats=20)
        slow = forward_backward_time(conv2d_loop, *shape, repeats=5)
        print(f"{name:<54}{fast * 1e3:>10.2f}{slow * 1e3:>10.1f}{slow / fast:>14.0f}x")
