"""Valid examples for the input contract: preprocessing (standardization, train/test splits)."""

import numpy as np

from contract import Example
from implementations.data import preprocessing

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = X @ np.array([1.0, -2.0]) + 0.5  # (8,)
classes = np.array([0, 1, 0, 1, 1, 0, 1, 0])  # (8,) class labels, for stratify=True
mean = np.array([0.5, -1.0])  # (m,)
std = np.array([2.0, 0.5])  # (m,)
w_std = np.array([1.0, 2.0, -3.0])  # (m + 1,)

EXAMPLES = {
    "implementations.data.preprocessing.standardize": Example(
        build=lambda: (preprocessing.standardize, {"X": X, "mean": mean, "std": std}),
        roles={"X": "array", "mean": "array?", "std": "array?"},
        extra=[("a zero standard deviation", {"std": np.array([2.0, 0.0])}, ()),
               ("a negative standard deviation", {"std": np.array([-2.0, 0.5])}, ()),
               ("a mean with one entry too many", {"mean": np.zeros(3)}, ()),
               ("a constant column in X (its std would be 0)", {"X": np.ones((4, 2)), "mean": None, "std": None},
                ())]),
    "implementations.data.preprocessing.unstandardize_weights": Example(
        build=lambda: (preprocessing.unstandardize_weights, {"w_std": w_std, "mean": mean, "std": std}),
        roles={"w_std": "array", "mean": "array", "std": "array"},
        extra=[("a zero standard deviation", {"std": np.array([2.0, 0.0])}, ()),
               ("a negative standard deviation", {"std": np.array([-2.0, 0.5])}, ()),
               ("a mean with one entry too many", {"mean": np.zeros(3)}, ()),
               ("a weight too many", {"w_std": np.zeros(4)}, ())]),
    "implementations.data.preprocessing.train_test_split": Example(
        build=lambda: (preprocessing.train_test_split,
                       {"X": X, "y": classes, "test_fraction": 0.25, "rng": np.random.default_rng(0),
                        "stratify": True}),
        roles={"X": "array", "y": "labels::X", "test_fraction": "prob", "rng": "rng", "stratify": "flag"},
        extra=[("a test fraction of 0", {"test_fraction": 0.0}, ()),
               ("a test fraction of 1", {"test_fraction": 1.0}, ()),
               ("a test fraction that leaves no training example", {"test_fraction": 0.99}, ()),
               # without stratify, y holds any real targets: the array checks of the role "aligned:X"
               ("a NaN target, not stratified", {"y": np.r_[np.nan, y[1:]], "stratify": False}, ()),
               ("an inf target, not stratified", {"y": np.r_[np.inf, y[1:]], "stratify": False}, ()),
               ("one target fewer than the rows of X, not stratified", {"y": y[:-1], "stratify": False}, ()),
               ("a string, not stratified", {"y": "targets", "stratify": False}, ())]),
}
