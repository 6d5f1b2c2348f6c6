"""Valid examples for the input contract: logistic (chapter 2's binary classifier).

``logistic`` re-exports the perceptron, softmax and metrics functions; they are registered in the files of the
modules that define them.
"""

import numpy as np

from contract import Example
from implementations.linear import logistic

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = np.array([0, 1, 0, 1, 1, 0, 1, 0])  # (8,) labels 0/1, not separable by X
w = np.array([0.1, -0.2, 0.3])  # (m + 1,)
z = np.array([[-2.0, 0.5, 3.0], [0.0, -0.1, 30.0]])  # (2, 3) logits


def _fit_logistic():
    return logistic.fit_logistic, {"X": X, "y": y, "eta": 0.5, "num_iters": 3, "l2": 0.1, "w_init": w}


EXAMPLES = {
    "implementations.linear.logistic.predict_proba": Example(
        build=lambda: (logistic.predict_proba, {"X": X, "w": w}),
        roles={"X": "array", "w": "array"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.linear.logistic.predict": Example(
        build=lambda: (logistic.predict, {"X": X, "w": w, "threshold": 0.3}),
        roles={"X": "array", "w": "array", "threshold": "prob"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ()),
               ("a threshold of 0 (every example would be class 1)", {"threshold": 0.0}, ()),
               ("a threshold of 1", {"threshold": 1.0}, ())]),
    "implementations.linear.logistic.logistic_cost": Example(
        build=lambda: (logistic.logistic_cost, {"X": X, "y": y, "w": w, "l2": 0.1}),
        roles={"X": "array", "y": "labels:2:X", "w": "array", "l2": "penalty"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.linear.logistic.logistic_gradient": Example(
        build=lambda: (logistic.logistic_gradient, {"X": X, "y": y, "w": w, "l2": 0.1}),
        roles={"X": "array", "y": "labels:2:X", "w": "array", "l2": "penalty"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.linear.logistic.logistic_hessian": Example(
        build=lambda: (logistic.logistic_hessian, {"X": X, "y": y, "w": w, "l2": 0.1}),
        roles={"X": "array", "y": "labels:2:X", "w": "array", "l2": "penalty"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.linear.logistic.fit_logistic": Example(
        build=_fit_logistic,
        roles={"X": "array", "y": "labels:2:X", "eta": "rate", "num_iters": "count", "l2": "penalty",
               "w_init": "array?"},
        extra=[("a diverging learning rate", {"eta": 1e3}, ()),
               ("a weight too many", {"w_init": np.zeros(4)}, ())]),
    "implementations.linear.logistic.fit_logistic_newton": Example(
        build=lambda: (logistic.fit_logistic_newton, {"X": X, "y": y, "l2": 0.1, "num_iters": 3}),
        roles={"X": "array", "y": "labels:2:X", "l2": "penalty", "num_iters": "count"}),
    "implementations.linear.logistic.fit_logistic_weighted": Example(
        build=lambda: (logistic.fit_logistic_weighted,
                       {"X": X, "y": y, "sample_weight": np.where(y == 1, 2.0, 0.5), "l2": 0.1, "num_iters": 3}),
        roles={"X": "array", "y": "labels:2:X", "sample_weight": "aligned:X", "l2": "penalty", "num_iters": "count"},
        extra=[("a negative weight", {"sample_weight": np.r_[-1.0, np.ones(7)]}, ()),
               ("every weight 0", {"sample_weight": np.zeros(8)}, ())]),
}
