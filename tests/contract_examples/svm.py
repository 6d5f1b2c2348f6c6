"""Valid examples for the input contract: svm (hinge-loss primal, SMO on the dual, the kernel SVM).

The labels of an SVM are −1 and +1 (0 and 1 are read as −1 and +1), so ``y`` is registered with the role
``aligned`` and not ``labels``, whose bad variants include the valid label −1; the real bad labels (a 2, a 0.5, a
single class, a mix of the two codings) are listed as extra bad calls.
"""

import numpy as np

from contract import Example
from implementations.kernel_methods import svm

_rng = np.random.default_rng(0)
X = _rng.normal(size=(8, 2))  # (N, m) = (8, 2)
y = np.array([-1, 1, -1, 1, 1, -1, 1, -1])  # (8,) labels ±1, not separable by X
w = np.array([0.1, -0.2, 0.3])  # (m + 1,)
z = np.array([[-2.0, 0.5, 3.0], [0.0, 1.0, 30.0]])  # (2, 3) functional margins
K = X @ X.T + 1.0  # (8, 8): a polynomial Gram matrix of degree 1
alpha, b = svm.fit_svm_dual(K, y, C=1.0)
K_cross = _rng.normal(size=(3, 2)) @ X.T + 1.0  # (3, 8): three new inputs against the training inputs
K_ASYMMETRIC = K.copy()
K_ASYMMETRIC[0, 1] += 0.1


def linear(A, B):
    """The kernel (xᵀz + 1) as a function of two arrays, the form KernelSVM takes."""
    return A @ B.T + 1.0


def fitted():
    return svm.KernelSVM(linear, C=1.0).fit(X, y)


def _bad_labels(name):
    """Extra bad calls for a label argument: a label 2, a label 0.5, one class only, both codings mixed."""
    def with_first(value):
        bad = y.astype(float)
        bad[0] = value
        return bad

    return [("a label 2", {name: with_first(2)}, ()), ("a label 0.5", {name: with_first(0.5)}, ()),
            ("a single class", {name: np.ones(8)}, ()), ("labels -1, 0 and 1 mixed", {name: with_first(0)}, ())]


EXAMPLES = {
    "implementations.kernel_methods.svm.hinge": Example(
        build=lambda: (svm.hinge, {"z": z}),
        roles={"z": "array:any-nd"}),
    "implementations.kernel_methods.svm.svm_primal_cost": Example(
        build=lambda: (svm.svm_primal_cost, {"X": X, "y": y, "w": w, "C": 1.0}),
        roles={"X": "array", "y": "aligned:X", "w": "array", "C": "rate"},
        extra=[*_bad_labels("y"), ("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.kernel_methods.svm.svm_primal_subgradient": Example(
        build=lambda: (svm.svm_primal_subgradient, {"X": X, "y": y, "w": w, "C": 1.0}),
        roles={"X": "array", "y": "aligned:X", "w": "array", "C": "rate"},
        extra=[*_bad_labels("y"), ("a weight too many", {"w": np.zeros(4)}, ())]),
    "implementations.kernel_methods.svm.fit_svm_primal": Example(
        build=lambda: (svm.fit_svm_primal, {"X": X, "y": y, "C": 1.0, "eta": 1.0, "num_iters": 20}),
        roles={"X": "array", "y": "aligned:X", "C": "rate", "eta": "rate", "num_iters": "count"},
        raises=(FloatingPointError,),
        extra=[*_bad_labels("y"), ("a step size so large that the iterates blow up", {"eta": 1e6},
                                   (FloatingPointError,))]),
    "implementations.kernel_methods.svm.fit_svm_dual": Example(
        build=lambda: (svm.fit_svm_dual, {"K": K, "y": y, "C": 1.0, "tol": 1e-6, "max_iter": 1000}),
        roles={"K": "array", "y": "aligned:K", "C": "rate", "tol": "rate", "max_iter": "count"},
        extra=[*_bad_labels("y"), ("a non-square block", {"K": K[:, :5]}, ()),
               ("a non-symmetric matrix", {"K": K_ASYMMETRIC}, ()),
               ("too few pair updates to converge", {"max_iter": 1}, ())]),
    "implementations.kernel_methods.svm.kkt_violations": Example(
        build=lambda: (svm.kkt_violations, {"K": K, "y": y, "alpha": alpha, "b": b, "C": 1.0}),
        roles={"K": "array", "y": "aligned:K", "alpha": "aligned:K", "b": "scalar", "C": "rate"},
        extra=[*_bad_labels("y"), ("a non-square block", {"K": K[:, :5]}, ()),
               ("a negative multiplier", {"alpha": np.r_[-0.1, alpha[1:]]}, ()),
               ("a multiplier above C", {"alpha": np.r_[1.5, alpha[1:]]}, ())]),
    "implementations.kernel_methods.svm.svm_decision_function": Example(
        build=lambda: (svm.svm_decision_function, {"K_cross": K_cross, "y": y, "alpha": alpha, "b": b}),
        roles={"K_cross": "array", "y": "array", "alpha": "array", "b": "scalar"},
        extra=[*_bad_labels("y"), ("K_cross with a column fewer", {"K_cross": K_cross[:, :7]}, ()),
               ("a negative multiplier", {"alpha": np.r_[-0.1, alpha[1:]]}, ())]),
    "implementations.kernel_methods.svm.KernelSVM": Example(
        build=lambda: (svm.KernelSVM, {"kernel": linear, "C": 1.0, "tol": 1e-6, "max_iter": 1000}),
        roles={"C": "rate", "tol": "rate", "max_iter": "count"},
        extra=[("a number", {"kernel": 3.0}, (TypeError,)), ("a string", {"kernel": "rbf"}, (TypeError,))]),
    "implementations.kernel_methods.svm.KernelSVM.fit": Example(
        build=lambda: (svm.KernelSVM(linear, C=1.0).fit, {"X": X, "y": y}),
        roles={"X": "array", "y": "aligned:X"},
        extra=_bad_labels("y")),
    "implementations.kernel_methods.svm.KernelSVM.decision_function": Example(
        build=lambda: (fitted().decision_function, {"X": X[:3]}),
        roles={"X": "array"},
        extra=[("another number of columns", {"X": np.zeros((3, 3))}, ())]),
    "implementations.kernel_methods.svm.KernelSVM.predict": Example(
        build=lambda: (fitted().predict, {"X": X[:3]}),
        roles={"X": "array"},
        extra=[("another number of columns", {"X": np.zeros((3, 3))}, ())]),
}
