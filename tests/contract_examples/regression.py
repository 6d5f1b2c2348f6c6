"""Valid examples for the input contract: regression (chapter 1's linear models)."""

import numpy as np

from contract import Example
from implementations.linear import descent, regression

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = X @ np.array([1.0, -2.0]) + 0.5  # (8,)
w = np.zeros(3)  # (m + 1,)

EXAMPLES = {
    "implementations.linear.regression.add_bias": Example(
        build=lambda: (regression.add_bias, {"X": X}),
        roles={"X": "array"}),
    "implementations.linear.regression.predict": Example(
        build=lambda: (regression.predict, {"X": X, "w": w}),
        roles={"X": "array", "w": "array"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.linear.regression.compute_cost": Example(
        build=lambda: (regression.compute_cost, {"X": X, "y": y, "w": w, "l2": 0.1, "average": True}),
        roles={"X": "array", "y": "aligned:X", "w": "array", "l2": "penalty", "average": "flag"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.linear.regression.compute_gradient": Example(
        build=lambda: (regression.compute_gradient, {"X": X, "y": y, "w": w, "l2": 0.1, "average": True}),
        roles={"X": "array", "y": "aligned:X", "w": "array", "l2": "penalty", "average": "flag"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.linear.regression.gradient_descent": Example(
        build=lambda: (regression.gradient_descent,
                       {"X": X, "y": y, "w_init": w, "eta": 0.1, "num_iters": 5, "l2": 0.0, "average": True,
                        "tol": 1e-9}),
        roles={"X": "array", "y": "aligned:X", "w_init": "array", "eta": "rate", "num_iters": "count",
               "l2": "penalty", "average": "flag", "tol": "penalty?"},
        extra=[("a diverging learning rate", {"eta": 1e3}, ()),
               ("a weight too many", {"w_init": np.zeros(4)}, ())]),
    "implementations.linear.regression.sgd": Example(
        build=lambda: (regression.sgd, {"X": X, "y": y, "w_init": w, "eta": 0.05, "epochs": 2, "batch_size": 4,
                                        "rng": np.random.default_rng(0), "l2": 0.0}),
        roles={"X": "array", "y": "aligned:X", "w_init": "array", "eta": "rate", "epochs": "count",
               "batch_size": "count", "rng": "rng", "l2": "penalty"},
        extra=[("a diverging learning rate", {"eta": 1e3}, ()),
               ("a weight too many", {"w_init": np.zeros(4)}, ())]),
    "implementations.linear.regression.normal_equations": Example(
        build=lambda: (regression.normal_equations, {"X": X, "y": y, "l2": 0.1}),
        roles={"X": "array", "y": "aligned:X", "l2": "penalty"}),
}


def _quadratic(w):
    """J(w) = ½‖w‖², ∇J = w: a convex cost for the gradient-descent loop."""
    return 0.5 * float(w @ w), w.copy()


EXAMPLES["implementations.linear.descent.descend"] = Example(
    build=lambda: (descent.descend, {"cost_and_gradient": _quadratic, "w": np.array([1.0, -2.0]), "eta": 0.1,
                                     "num_iters": 5, "tol": None}),
    roles={"w": "array", "eta": "rate", "num_iters": "count", "tol": "penalty?"},
    extra=[("a cost function that is not callable", {"cost_and_gradient": 3.0}, ()),
           ("a diverging rate", {"eta": 10.0}, ())])
