"""Valid examples for the input contract: perceptron (Rosenblatt's mistake-driven classifier, and its margin)."""

import numpy as np

from contract import Example
from implementations.linear import perceptron

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = np.array([0, 1, 0, 1, 1, 0, 1, 0])  # (8,) labels 0/1, not separable by X

EXAMPLES = {
    "implementations.linear.perceptron.perceptron": Example(
        build=lambda: (perceptron.perceptron,
                       {"X": X, "y": y, "epochs": 3, "eta": 1.0, "rng": np.random.default_rng(0)}),
        roles={"X": "array", "y": "labels:2:X", "epochs": "count", "eta": "rate", "rng": "rng?"},
        # η only rescales w (training starts at 0), so the one way it breaks training is overflow
        extra=[("a learning rate so large that the weights overflow", {"eta": 1e308}, ())]),
    "implementations.linear.perceptron.margin": Example(
        build=lambda: (perceptron.margin, {"X": X, "y": y, "w": np.array([0.1, -0.2, 0.3])}),
        roles={"X": "array", "y": "labels:2:X", "w": "array"},
        extra=[("a weight too many", {"w": np.zeros(4)}, ()),
               ("the zero vector, which defines no hyperplane", {"w": np.zeros(3)}, ())]),
}
