"""Benchmark of the autograd engine (run with `make bench`; not a test, nothing is asserted).

Reports
1. one training step (forward, backward, Adam update) of a two-layer MLP 64 -> 128 -> 10 on a
   batch of shape (256, 64), with cross-entropy loss;
2. the engine's overhead per operation: a chain of element-wise operations on one-element tensors,
   where the arithmetic is negligible and the time is Python bookkeeping (graph building and the
   backward pass), divided by the number of operations;
3. an LSTM forward and backward pass at B = 32, T = 100, D = 32, H = 128 (the loop over time steps
   is the only Python loop on that path).

Each figure is the median of several repetitions, in milliseconds or microseconds.
"""

import platform
import statistics
import time

import numpy as np

from implementations.engine import functional as F
from implementations.engine.autograd import Tensor
from implementations.nn import MLP
from implementations.nn.optim import Adam
from implementations.sequence import LSTM


def median_time(fn, *, repeats, warmup=3):
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def mlp_step_time():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(256, 64))
    y = rng.integers(0, 10, size=256)
    model = MLP([64, 128, 10], activation="relu", rng=rng)
    opt = Adam(model.parameters(), 1e-3)

    def step():
        opt.zero_grad()
        loss = F.cross_entropy(model(X), y)
        loss.backward()
        opt.step()

    return median_time(step, repeats=50)


def overhead_per_operation(num_ops=2000):
    def chain():
        x = Tensor(0.5, requires_grad=True)
        h = x
        for _ in range(num_ops // 2):
            h = (h * 0.999) + 0.001  # two operations
        h.backward()

    return median_time(chain, repeats=10, warmup=1) / num_ops


def lstm_time(B=32, T=100, D=32, H=128):
    rng = np.random.default_rng(0)
    lstm = LSTM(D, H, rng=rng)
    x = rng.normal(size=(B, T, D))

    def forward_backward():
        lstm.zero_grad()
        outputs, _ = lstm(x)
        (outputs * outputs).mean().backward()

    return median_time(forward_backward, repeats=5, warmup=1)


if __name__ == "__main__":
    print(f"machine: {platform.machine()}, Python {platform.python_version()}, NumPy {np.__version__}")
    print(f"MLP 64-128-10, batch (256, 64), one Adam training step: {mlp_step_time() * 1e3:.2f} ms (median of 50)")
    print(f"engine overhead per operation (forward + backward, 1-element tensors): "
          f"{overhead_per_operation() * 1e6:.1f} us (median of 10 chains of 2000)")
    print(f"LSTM B=32, T=100, D=32, H=128, forward + backward: {lstm_time() * 1e3:.0f} ms (median of 5)")
