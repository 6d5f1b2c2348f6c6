"""Valid examples for the input contract: kernels (kernel functions, kernel ridge regression, random features)."""

import numpy as np

from contract import Example
from implementations.kernel_methods import kernels

_rng = np.random.default_rng(0)
X = _rng.normal(size=(6, 2))  # (N, m) = (6, 2)
Z = _rng.normal(size=(4, 2))  # (N′, m) = (4, 2)
y = np.sin(X[:, 0]) + X[:, 1]  # (6,)
K = kernels.rbf_kernel(X, X, width=1.0)  # (6, 6)
Omega = _rng.normal(size=(2, 5))  # (m, M) = (2, 5)
u = _rng.uniform(0.0, 2 * np.pi, size=5)  # (M,)


def rbf(A, B):
    """An RBF kernel of width 1 as a function of two arrays, the form KernelRidge takes."""
    return kernels.rbf_kernel(A, B, width=1.0)


def fitted():
    return kernels.KernelRidge(rbf, l2=0.1).fit(X, y)


_PAIR_EXTRAS = [("Z with another number of columns", {"Z": np.zeros((4, 3))}, ()),
                ("a 1-D Z", {"Z": np.zeros(2)}, ())]
_K_ASYMMETRIC = K.copy()
_K_ASYMMETRIC[0, 1] += 0.1

EXAMPLES = {
    "implementations.kernel_methods.kernels.linear_kernel": Example(
        build=lambda: (kernels.linear_kernel, {"X": X, "Z": Z}),
        roles={"X": "array", "Z": "array"},
        extra=_PAIR_EXTRAS),
    "implementations.kernel_methods.kernels.polynomial_kernel": Example(
        build=lambda: (kernels.polynomial_kernel, {"X": X, "Z": Z, "degree": 3, "offset": 1.0}),
        roles={"X": "array", "Z": "array", "degree": "count", "offset": "penalty"},
        extra=_PAIR_EXTRAS),
    "implementations.kernel_methods.kernels.rbf_kernel": Example(
        build=lambda: (kernels.rbf_kernel, {"X": X, "Z": Z, "width": 0.7}),
        roles={"X": "array", "Z": "array", "width": "rate"},
        extra=_PAIR_EXTRAS),
    "implementations.kernel_methods.kernels.fit_kernel_ridge": Example(
        build=lambda: (kernels.fit_kernel_ridge, {"K": K, "y": y, "l2": 0.1}),
        roles={"K": "array", "y": "aligned:K", "l2": "rate"},
        extra=[("a non-square block", {"K": K[:, :4]}, ()),
               ("a non-symmetric matrix", {"K": _K_ASYMMETRIC}, ()),
               ("a negative diagonal", {"K": -0.1 * np.eye(6)}, ()),
               ("a matrix with the eigenvalue -l2", {"K": 0.1 * np.kron(np.eye(3), [[0.0, 1.0], [1.0, 0.0]])}, ())]),
    "implementations.kernel_methods.kernels.KernelRidge": Example(
        build=lambda: (kernels.KernelRidge, {"kernel": rbf, "l2": 0.1}),
        roles={"l2": "rate"},
        extra=[("a number", {"kernel": 3.0}, (TypeError,)),
               ("a string", {"kernel": "rbf"}, (TypeError,))]),
    "implementations.kernel_methods.kernels.KernelRidge.fit": Example(
        build=lambda: (kernels.KernelRidge(rbf, l2=0.1).fit, {"X": X, "y": y}),
        roles={"X": "array", "y": "aligned:X"}),
    "implementations.kernel_methods.kernels.KernelRidge.predict": Example(
        build=lambda: (fitted().predict, {"X": Z}),
        roles={"X": "array"},
        extra=[("another number of columns", {"X": np.zeros((4, 3))}, ())]),
    "implementations.kernel_methods.kernels.sample_fourier_features": Example(
        build=lambda: (kernels.sample_fourier_features,
                       {"m": 2, "num_features": 5, "width": 0.5, "rng": np.random.default_rng(0)}),
        roles={"m": "count", "num_features": "count", "width": "rate", "rng": "rng"}),
    "implementations.kernel_methods.kernels.random_fourier_features": Example(
        build=lambda: (kernels.random_fourier_features, {"X": X, "Omega": Omega, "u": u}),
        roles={"X": "array", "Omega": "array", "u": "array"},
        extra=[("X with another number of columns", {"X": np.zeros((3, 4))}, ()),
               ("u of the wrong length", {"u": u[:3]}, ())]),
}
