"""Valid examples for the input contract: glm (a Newton loop for any cost, and Poisson regression)."""

import numpy as np

from contract import Example
from implementations.linear import glm

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = np.array([0.0, 3.0, 1.0, 2.0, 0.0, 5.0, 1.0, 1.0])  # (8,) counts
w = np.array([0.1, -0.2, 0.3])  # (m + 1,)
_A = np.array([[2.0, 0.5], [0.5, 1.0]])  # a positive definite Hessian


def _quadratic(v):
    """Gradient and Hessian of J(v) = ½ vᵀAv − v₀."""
    return _A @ v - np.array([1.0, 0.0]), _A


_COUNT_ROLES = {"X": "array", "y": "aligned:X", "w": "array", "l2": "penalty"}
_BAD_COUNTS = [("a negative count", {"y": -y}, ()), ("a weight too many", {"w": np.zeros(4)}, ())]

EXAMPLES = {
    "implementations.linear.glm.newton": Example(
        build=lambda: (glm.newton, {"gradient_and_hessian": _quadratic, "w_init": np.zeros(2), "num_iters": 5,
                                    "tol": 1e-12}),
        roles={"w_init": "array:any-nd", "num_iters": "count", "tol": "penalty"},
        extra=[("weights of two dimensions", {"w_init": np.zeros((2, 1))}, ()),
               ("an array instead of the function", {"gradient_and_hessian": _A}, ()),
               ("a function returning one array", {"gradient_and_hessian": lambda v: _A @ v}, ()),
               ("a function returning arrays of the wrong shapes", {"gradient_and_hessian": lambda v: (v, v)}, ()),
               ("a singular Hessian", {"gradient_and_hessian": lambda v: (v, np.zeros((2, 2)))}, ())]),
    "implementations.linear.glm.poisson_cost": Example(
        build=lambda: (glm.poisson_cost, {"X": X, "y": y, "w": w, "l2": 0.1}),
        roles=_COUNT_ROLES, extra=_BAD_COUNTS),
    "implementations.linear.glm.poisson_gradient_hessian": Example(
        build=lambda: (glm.poisson_gradient_hessian, {"X": X, "y": y, "w": w, "l2": 0.1}),
        roles=_COUNT_ROLES, extra=_BAD_COUNTS),
    "implementations.linear.glm.fit_poisson": Example(
        build=lambda: (glm.fit_poisson, {"X": X, "y": y, "l2": 0.1, "num_iters": 5}),
        roles={"X": "array", "y": "aligned:X", "l2": "penalty", "num_iters": "count"},
        extra=[("a negative count", {"y": -y}, ()), ("no count above zero", {"y": np.zeros(8)}, ())]),
}
