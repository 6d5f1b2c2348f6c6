"""Valid examples for the input contract: softmax (chapter 2's K-class classifier)."""

import numpy as np

from contract import Example
from implementations.linear import softmax_regression as softmax

_rng = np.random.default_rng(0)
X = _rng.normal(size=(9, 2))  # (N, m) = (9, 2)
y = np.array([0, 1, 2, 2, 1, 0, 1, 2, 0])  # (9,) labels 0, 1, 2
W = _rng.normal(size=(3, 3))  # (m + 1, K)
Z = np.array([[1.0, -2.0, 0.5], [3.0, 3.0, -30.0]])  # (2, 3) logits


EXAMPLES = {
    "implementations.linear.softmax_regression.softmax_cost": Example(
        build=lambda: (softmax.softmax_cost, {"X": X, "y": y, "W": W, "l2": 0.1}),
        roles={"X": "array", "y": "labels:3:X", "W": "array", "l2": "penalty"},
        extra=[("a weight row too many", {"W": np.zeros((4, 3))}, ()),
               ("a single class column", {"W": np.zeros((3, 1))}, ())]),
    "implementations.linear.softmax_regression.softmax_gradient": Example(
        build=lambda: (softmax.softmax_gradient, {"X": X, "y": y, "W": W, "l2": 0.1}),
        roles={"X": "array", "y": "labels:3:X", "W": "array", "l2": "penalty"},
        extra=[("a weight row too many", {"W": np.zeros((4, 3))}, ())]),
    "implementations.linear.softmax_regression.fit_softmax": Example(
        build=lambda: (softmax.fit_softmax,
                       {"X": X, "y": y, "num_classes": 3, "eta": 0.5, "num_iters": 3, "l2": 0.1}),
        roles={"X": "array", "y": "labels:3:X", "num_classes": "count", "eta": "rate", "num_iters": "count",
               "l2": "penalty"},
        extra=[("a diverging learning rate", {"eta": 1e3}, ()),
               ("a single class", {"num_classes": 1}, ())]),
    "implementations.linear.softmax_regression.softmax_predict_proba": Example(
        build=lambda: (softmax.softmax_predict_proba, {"X": X, "W": W}),
        roles={"X": "array", "W": "array"},
        extra=[("a weight row too many", {"W": np.zeros((4, 3))}, ())]),
    "implementations.linear.softmax_regression.softmax_predict": Example(
        build=lambda: (softmax.softmax_predict, {"X": X, "W": W}),
        roles={"X": "array", "W": "array"},
        extra=[("a weight row too many", {"W": np.zeros((4, 3))}, ())]),
}
