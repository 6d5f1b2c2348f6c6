"""Valid examples for the input contract: entropy and KL divergence, the SVD, Gaussian conditioning (appendix A)."""

import numpy as np

from contract import Example
from implementations.preliminaries import gaussian, information, svd

p, q = np.array([0.5, 0.25, 0.25]), np.array([0.2, 0.3, 0.5])
X = np.array([[1.0, 2.0, 0.5], [0.0, 1.0, -1.0], [2.0, 0.0, 1.0], [1.0, 1.0, 1.0]])  # (N, m) = (4, 3)
y = np.array([1.0, 0.0, -1.0, 2.0])  # (4,)
mu = np.array([1.0, -1.0, 0.5])  # (3,)
Sigma = np.array([[2.0, 1.5, 0.2], [1.5, 2.0, 0.3], [0.2, 0.3, 1.0]])  # (3, 3) symmetric positive definite

BAD_DISTRIBUTIONS = [("a negative probability", np.array([1.2, -0.2, 0.0])),
                     ("probabilities that do not sum to 1", np.array([0.5, 0.5, 0.5])),
                     ("a 2-D table", np.full((3, 3), 1 / 9)),
                     ("NaN", np.array([np.nan, 0.5, 0.5])),
                     ("a string", "uniform")]


def _bad(name):
    return [(f"{name}: {what}", {name: value}, ()) for what, value in BAD_DISTRIBUTIONS]


EXAMPLES = {
    "implementations.preliminaries.information.entropy": Example(
        build=lambda: (information.entropy, {"p": p}), extra=_bad("p")),
    "implementations.preliminaries.information.cross_entropy": Example(
        build=lambda: (information.cross_entropy, {"p": p, "q": q}),
        extra=_bad("p") + _bad("q") + [("q over fewer outcomes", {"q": np.array([0.5, 0.5])}, ())]),
    "implementations.preliminaries.information.kl_divergence": Example(
        build=lambda: (information.kl_divergence, {"p": p, "q": q}),
        extra=_bad("p") + _bad("q") + [("q over fewer outcomes", {"q": np.array([0.5, 0.5])}, ())]),
    "implementations.preliminaries.svd.low_rank_approximation": Example(
        build=lambda: (svd.low_rank_approximation, {"X": X, "k": 2}),
        roles={"X": "array", "k": "count"},
        extra=[("k above the number of singular values", {"k": 4}, ())]),
    "implementations.preliminaries.svd.min_norm_least_squares": Example(
        build=lambda: (svd.min_norm_least_squares, {"X": X, "y": y}),
        roles={"X": "array", "y": "aligned:X"}),
    "implementations.preliminaries.gaussian.condition_gaussian": Example(
        build=lambda: (gaussian.condition_gaussian, {"mu": mu, "Sigma": Sigma, "x_b": np.array([0.3])}),
        roles={"mu": "array", "x_b": "array"},
        extra=[("Sigma not symmetric", {"Sigma": Sigma + np.triu(np.ones((3, 3)), 1)}, ()),
               ("Sigma not positive definite", {"Sigma": np.array([[1.0, 2, 0], [2, 1, 0], [0, 0, 1]])}, ()),
               ("Sigma of the wrong size", {"Sigma": np.eye(2)}, ()),
               ("Sigma with NaN", {"Sigma": np.full((3, 3), np.nan)}, ()),
               ("every coordinate observed", {"x_b": np.zeros(3)}, ())]),
}
