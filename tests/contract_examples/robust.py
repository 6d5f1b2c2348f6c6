"""Valid examples for the input contract: robust (loss functions of the residual, and IRLS)."""

import numpy as np

from contract import Example
from implementations.linear import robust

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = X @ np.array([1.0, -2.0]) + 0.5 + _rng.normal(size=8)  # (8,)
y[0] += 10.0  # an outlier
e = np.array([[-2.0, -0.5, 0.0], [0.3, 1.0, 4.0]])  # residuals of any shape: (2, 3)


def _elementwise(function, **hyper):
    """Example of a loss or derivative: residuals of any shape, and δ > 0 where the loss has one."""
    roles = {"e": "array:any-nd", **{name: "rate" for name in hyper}}
    return Example(build=lambda: (function, {"e": e, **hyper}), roles=roles)


EXAMPLES = {
    "implementations.linear.robust.mse": _elementwise(robust.mse),
    "implementations.linear.robust.mae": _elementwise(robust.mae),
    "implementations.linear.robust.mse_derivative": _elementwise(robust.mse_derivative),
    "implementations.linear.robust.mae_derivative": _elementwise(robust.mae_derivative),
    "implementations.linear.robust.huber": _elementwise(robust.huber, delta=1.0),
    "implementations.linear.robust.huber_derivative": _elementwise(robust.huber_derivative, delta=1.0),
    "implementations.linear.robust.tukey_bisquare": _elementwise(robust.tukey_bisquare, delta=1.0),
    "implementations.linear.robust.tukey_bisquare_derivative": _elementwise(robust.tukey_bisquare_derivative,
                                                                             delta=1.0),
    "implementations.linear.robust.fit_robust": Example(
        build=lambda: (robust.fit_robust,
                       {"X": X, "y": y, "loss": "huber", "delta": 1.0, "num_iters": 3, "tol": 1e-10}),
        roles={"X": "array", "y": "aligned:X", "delta": "rate", "num_iters": "count", "tol": "penalty"},
        extra=[("an unknown loss", {"loss": "l1"}, ()),
               ("a loss that is not a name", {"loss": 2}, ())]),
}
