"""Valid examples for the input contract: gradcheck (finite-difference gradients)."""

import numpy as np

from contract import Example
from implementations.preliminaries import gradcheck

x = np.array([[0.5, -1.0], [2.0, 0.1]])  # any shape: (2, 2)


def f(v):
    """A smooth scalar function, f(v) = Σ sin(v) v."""
    return float(np.sum(np.sin(v) * v))


def grad_f(v):
    """Its gradient, cos(v) v + sin(v)."""
    return np.cos(v) * v + np.sin(v)


EXAMPLES = {
    "implementations.preliminaries.gradcheck.numerical_gradient": Example(
        build=lambda: (gradcheck.numerical_gradient, {"f": f, "x": x, "eps": 1e-6}),
        roles={"x": "array:any-nd", "eps": "rate"},
        extra=[("f not callable", {"f": "sum"}, ()),
               ("f returning a vector, not a scalar", {"f": lambda v: v.ravel()}, ()),
               ("f returning NaN", {"f": lambda v: np.nan}, ())]),
    "implementations.preliminaries.gradcheck.numerical_jacobian": Example(
        build=lambda: (gradcheck.numerical_jacobian, {"f": np.sin, "x": x, "eps": 1e-6}),
        roles={"x": "array:any-nd", "eps": "rate"},
        extra=[("f not callable", {"f": "sin"}, ()),
               ("f returning a string", {"f": lambda v: "values"}, ()),
               ("f changing its output's shape", {"f": lambda v: v[v > 0.5]}, ()),
               ("f returning NaN", {"f": lambda v: np.full_like(v, np.nan)}, ())]),
    "implementations.preliminaries.gradcheck.check_gradient": Example(
        build=lambda: (gradcheck.check_gradient, {"f": f, "grad_f": grad_f, "x": x, "eps": 1e-6}),
        roles={"x": "array:any-nd", "eps": "rate"},
        extra=[("f not callable", {"f": None}, ()),
               ("grad_f not callable", {"grad_f": np.zeros((2, 2))}, ()),
               ("grad_f returning the wrong shape", {"grad_f": lambda v: grad_f(v).ravel()}, ()),
               ("grad_f returning a string", {"grad_f": lambda v: "gradient"}, ()),
               ("grad_f returning NaN", {"grad_f": lambda v: np.full_like(v, np.nan)}, ())]),
}
