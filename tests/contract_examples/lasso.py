"""Valid examples for the input contract: lasso (L1-regularised linear regression)."""

import numpy as np

from contract import Example
from implementations.linear import lasso

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = X @ np.array([1.0, -2.0]) + 0.5  # (8,)
w = np.array([0.5, 1.0, 0.0])  # (m + 1,)
z = np.array([[-2.0, 0.3], [1.5, 0.0]])  # any shape: (2, 2)

EXAMPLES = {
    "implementations.linear.lasso.soft_threshold": Example(
        build=lambda: (lasso.soft_threshold, {"z": z, "t": 0.5}),
        roles={"z": "array:any-nd", "t": "penalty"}),
    "implementations.linear.lasso.lasso_cost": Example(
        build=lambda: (lasso.lasso_cost, {"X": X, "y": y, "w": w, "l1": 0.1}),
        roles={"X": "array", "y": "aligned:X", "w": "array", "l1": "penalty"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.linear.lasso.l1_max": Example(
        build=lambda: (lasso.l1_max, {"X": X, "y": y}),
        roles={"X": "array", "y": "aligned:X"}),
    "implementations.linear.lasso.fit_lasso": Example(
        build=lambda: (lasso.fit_lasso,
                       {"X": X, "y": y, "l1": 0.1, "num_iters": 1000, "tol": 1e-8, "w_init": w}),
        roles={"X": "array", "y": "aligned:X", "l1": "penalty", "num_iters": "count", "tol": "rate",
               "w_init": "array?"},
        extra=[("too few sweeps to converge", {"num_iters": 1}, ()),
               ("a weight too many", {"w_init": np.zeros(4)}, ())]),
    "implementations.linear.lasso.lasso_path": Example(
        build=lambda: (lasso.lasso_path,
                       {"X": X, "y": y, "l1s": np.array([1.0, 0.1, 0.01]), "num_iters": 1000, "tol": 1e-8}),
        roles={"X": "array", "y": "aligned:X", "l1s": "array", "num_iters": "count", "tol": "rate"},
        extra=[("a negative penalty", {"l1s": np.array([1.0, -0.1])}, ()),
               ("too few sweeps to converge", {"num_iters": 1}, ())]),
}
