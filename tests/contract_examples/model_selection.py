"""Valid examples for the input contract: model_selection (k-fold splits and cross-validation)."""

import numpy as np

from contract import Example
from implementations.evaluation import model_selection
from implementations.linear import regression

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = X @ np.array([1.0, -2.0]) + 0.5  # (8,)


def fit(X, y):
    """Least squares, the simplest fit(X_train, y_train) -> w."""
    return regression.normal_equations(X, y)


def score(w, X, y):
    """The validation MSE, a score(model, X_val, y_val) -> float."""
    return float(np.mean((y - regression.predict(X, w)) ** 2))


predictions = X @ np.array([[1.0, 0.9, 1.2], [-2.0, -1.8, -2.1]])  # (G, R) = (8, 3): three models' predictions
h = X @ np.array([1.0, -2.0])  # (8,)

EXAMPLES = {
    "implementations.evaluation.model_selection.bias_variance": Example(
        build=lambda: (model_selection.bias_variance, {"predictions": predictions, "h": h}),
        roles={"predictions": "array", "h": "aligned:predictions"},
        extra=[("one training set only", {"predictions": predictions[:, :1]}, ())]),
    "implementations.evaluation.model_selection.k_fold_indices": Example(
        build=lambda: (model_selection.k_fold_indices,
                       {"n": 10, "k": 3, "rng": np.random.default_rng(0), "shuffle": True}),
        roles={"n": "count", "k": "count", "rng": "rng", "shuffle": "flag"},
        extra=[("k = 1 (no training data)", {"k": 1}, ()),
               ("more folds than examples", {"k": 11}, ())]),
    "implementations.evaluation.model_selection.cross_val_score": Example(
        build=lambda: (model_selection.cross_val_score,
                       {"fit": fit, "score": score, "X": X, "y": y, "k": 4, "rng": np.random.default_rng(0),
                        "shuffle": True}),
        roles={"X": "array", "y": "aligned:X", "k": "count", "rng": "rng", "shuffle": "flag"},
        extra=[("fit not callable", {"fit": "normal_equations"}, ()),
               ("score not callable", {"score": None}, ()),
               ("score returning NaN", {"score": lambda w, X, y: np.nan}, ()),
               ("score returning an array", {"score": lambda w, X, y: y - y}, ()),
               ("score returning a string", {"score": lambda w, X, y: "good"}, ()),
               ("k = 1 (no training data)", {"k": 1}, ()),
               ("more folds than examples", {"k": 9}, ())]),
}
