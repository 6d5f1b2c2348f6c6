"""Valid examples for the input contract: basis (polynomial, Gaussian and sigmoid basis functions)."""

import numpy as np

from contract import Example
from implementations.linear import basis

x = np.linspace(-1.0, 1.0, 5)  # (N,) = (5,)
centers = np.array([-0.5, 0.0, 0.5])  # (M,) = (3,)

EXAMPLES = {
    "implementations.linear.basis.polynomial_features": Example(
        build=lambda: (basis.polynomial_features, {"x": x, "degree": 3}),
        roles={"x": "array", "degree": "count"},
        extra=[("a matrix of several columns", {"x": np.ones((5, 2))}, ())]),
    "implementations.linear.basis.gaussian_basis": Example(
        build=lambda: (basis.gaussian_basis, {"x": x, "centers": centers, "width": 0.3}),
        roles={"x": "array", "centers": "array", "width": "rate"}),
    "implementations.linear.basis.sigmoid_basis": Example(
        build=lambda: (basis.sigmoid_basis, {"x": x, "centers": centers, "width": 0.3}),
        roles={"x": "array", "centers": "array", "width": "rate"}),
}
