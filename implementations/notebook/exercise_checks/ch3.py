"""The checks of the exercises of chapter 3, Kernel methods: one per exercise, named after the reader's function."""

import numpy as np

from ..exercises import _as_array, check_function
from ._shared import parts_to_check

__all__ = ["min_gram_eigenvalue", "product_features", "kernel_ridge_bias", "squared_hinge_gradient"]


class _Candidate:
    """A candidate kernel κ(x, x′) of two inputs of shape (m,), shown by its formula in a check's messages."""

    def __init__(self, formula, function):
        self.formula, self.function = formula, function

    def __call__(self, x, z):
        return float(self.function(x, z))

    def __repr__(self):
        return f"κ(x, x′) = {self.formula}"


def _candidate_kernel(rng, size):
    """One of five symmetric functions, in turn: three kernels (RBF, polynomial, linear) and two that are not."""
    kind = size % 5
    if kind == 0:
        s = round(float(rng.uniform(0.5, 2.0)), 2)
        return _Candidate(f"exp(−‖x − x′‖² / (2·{s}²))", lambda x, z: np.exp(-np.sum((x - z) ** 2) / (2 * s**2)))
    if kind == 1:
        c, d = round(float(rng.uniform(0.0, 1.0)), 2), int(rng.integers(2, 4))
        return _Candidate(f"(xᵀx′ + {c})^{d}", lambda x, z: (x @ z + c) ** d)
    if kind == 2:
        a, b = round(float(rng.uniform(0.5, 2.0)), 2), round(float(rng.uniform(-1.5, 0.5)), 2)
        formula = f"tanh({a}·xᵀx′ {'−' if b < 0 else '+'} {abs(b)})"
        return _Candidate(formula, lambda x, z: np.tanh(a * (x @ z) + b))  # not positive semi-definite
    if kind == 3:
        return _Candidate("−‖x − x′‖²", lambda x, z: -np.sum((x - z) ** 2))  # zero diagonal: indefinite
    return _Candidate("xᵀx′", lambda x, z: x @ z)


def _min_gram_eigenvalue(kernel, X):
    """The smallest eigenvalue of the Gram matrix K_ij = κ(x⁽ⁱ⁾, x⁽ʲ⁾): negative means κ is not a kernel."""
    K = np.array([[kernel(x, z) for z in X] for x in X])  # (N, N), symmetric
    return float(np.linalg.eigvalsh(K)[0])  # eigvalsh: real eigenvalues of a symmetric matrix, ascending


def _gram_inputs(rng, size):
    X = rng.normal(size=(1 + size // 2, 1 + size % 3))  # (N, m)
    return _candidate_kernel(rng, size), X


def min_gram_eigenvalue(candidate, *, rng):
    """``min_gram_eigenvalue(kernel, X)`` against the smallest eigenvalue of the Gram matrix, by ``eigvalsh``.

    The candidate functions ``kernel`` are symmetric: RBF, polynomial and linear kernels, and two functions that
    are not kernels, tanh(a·xᵀx′ + b) and −‖x − x′‖², whose Gram matrices have negative eigenvalues.
    """
    __tracebackhide__ = True
    check_function(candidate, _min_gram_eigenvalue, _gram_inputs, rng=rng)


def _product_features(Phi1, Phi2):
    """Row by row the outer product φ₁(x)φ₂(x)ᵀ, flattened: the M₁M₂ features of the product kernel κ₁κ₂."""
    return (Phi1[:, :, None] * Phi2[:, None, :]).reshape(Phi1.shape[0], -1)  # (N, M₁, M₂) -> (N, M₁M₂)


def _product_gram(Phi1, Phi2):
    """K₁ ∘ K₂, the Gram matrix of κ₁κ₂: entry by entry the product of the two Gram matrices."""
    return (Phi1 @ Phi1.T) * (Phi2 @ Phi2.T)  # (N, N)


def _feature_map_inputs(rng, size):
    M1 = 1 + size % 3
    M2 = M1 if size % 2 else 1 + size % 4  # equal widths on odd sizes: an elementwise product then runs
    N = 2 + size // 2  # more examples than features on most inputs
    return rng.normal(size=(N, M1)), rng.normal(size=(N, M2))


def _right_shape_else_reference(candidate):
    """A reference for the shape alone: the reader's own features when they have N rows and M₁M₂ columns.

    Else the product features, so that ``check_function`` reports the reader's shape against (N, M₁M₂). An error in
    the reader's function is left for ``check_function`` to report when it calls the function itself.
    """
    def reference(Phi1, Phi2):
        expected = _product_features(Phi1, Phi2)
        try:
            features = _as_array(candidate(Phi1, Phi2))
        except Exception:  # noqa: BLE001  (reported by check_function, with the input that causes it)
            return expected
        return features if features is not None and features.shape == expected.shape else expected
    return reference


def _gram_of(candidate):
    """The reader's function reduced to ΦΦᵀ, the Gram matrix of the features it returns."""
    def gram(Phi1, Phi2):
        features = _as_array(candidate(Phi1, Phi2))
        if features is None or features.ndim != 2:
            raise TypeError("expected the features as an array of shape (N, M₁M₂)")
        return features @ features.T  # (N, N)
    gram.__wrapped__ = candidate  # so that the check's messages use the reader's argument names
    return gram


def _new_input_of(candidate):
    """The reader's function as a feature map: φ(x)ᵀφ(x′) of a new input x (the last row) and each earlier input x′.

    The features of the earlier inputs are computed without the new one, so only a map that treats each input on
    its own, with the same columns every time, gives κ₁κ₂; a factorization of K₁ ∘ K₂ depends on all the inputs.
    """
    def cross(Phi1, Phi2):
        earlier = _as_array(candidate(Phi1[:-1], Phi2[:-1]))  # (N − 1, M₁M₂): computed without the new input
        every = _as_array(candidate(Phi1, Phi2))  # (N, M₁M₂)
        if earlier is None or every is None or earlier.ndim != 2 or every.ndim != 2:
            raise TypeError("expected the features as an array of shape (N, M₁M₂)")
        return earlier @ every[-1]  # (N − 1,)
    cross.__wrapped__ = candidate
    return cross


def _product_kernel_of_new_input(Phi1, Phi2):
    """κ₁(x, x′)κ₂(x, x′) between the last input x and each earlier one."""
    return (Phi1[:-1] @ Phi1[-1]) * (Phi2[:-1] @ Phi2[-1])  # (N − 1,)


def product_features(candidate, *, rng):
    """``product_features(Phi1, Phi2)``: of shape (N, M₁M₂), with ΦΦᵀ = K₁ ∘ K₂ (any order of the columns).

    A third part adds a new input: its features against those of the earlier inputs, computed without it, must
    give κ₁κ₂ too, which holds for a feature map and not for a factorization of K₁ ∘ K₂ that depends on all rows.
    """
    __tracebackhide__ = True
    started = parts_to_check(candidate, rng, "product_features", np.ones((1, 1)), np.ones((1, 1)))
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    check_function(candidate, _right_shape_else_reference(candidate), _feature_map_inputs, rng=rng, name=name,
                   quantity="the shape (N, M₁M₂) of its features")
    check_function(_gram_of(candidate), _product_gram, _feature_map_inputs, rng=rng, name=name,
                   quantity="ΦΦᵀ, the Gram matrix of its features, against K₁ ∘ K₂")
    check_function(_new_input_of(candidate), _product_kernel_of_new_input, _feature_map_inputs, rng=rng, name=name,
                   quantity="a new input's features against the others', computed without it, against κ₁κ₂")


def _kernel_ridge_bias(K, y, l2):
    """(a, b) of kernel ridge with an unpenalized bias, [[K + λI, 1], [1ᵀ, 0]] [a; b] = [y; 0], in one array."""
    N = K.shape[0]
    ones = np.ones((N, 1))  # (N, 1)
    bordered = np.block([[K + l2 * np.eye(N), ones], [ones.T, np.zeros((1, 1))]])  # (N + 1, N + 1)
    return np.linalg.solve(bordered, np.r_[y, 0.0])  # (N + 1,): a, then b


def _kernel_ridge_inputs(rng, size):
    N, M = 1 + size, 1 + size % 4  # often fewer features than examples: K is then singular
    Phi = rng.normal(size=(N, M)) + rng.normal(size=M)  # (N, M), features off-centre
    y = rng.normal(size=N) + rng.normal(scale=3.0)  # (N,), targets off-centre: the bias matters
    return Phi @ Phi.T, y, float(10.0 ** rng.uniform(-1, 1))


def kernel_ridge_bias(candidate, *, rng):
    """``kernel_ridge_bias(K, y, l2)`` against the solution (a, b) of the bordered system, as one (N + 1,) vector.

    K is the Gram matrix of random off-centre features and y has a non-zero mean, so that centring y alone or a
    penalized bias gives a different answer.
    """
    __tracebackhide__ = True
    check_function(candidate, _kernel_ridge_bias, _kernel_ridge_inputs, rng=rng)


def _squared_hinge_gradient(X, y, w, C):
    """The gradient of J₂(w) = ½‖w₁:‖² + C Σᵢ max(0, 1 − y⁽ⁱ⁾(w₀ + x⁽ⁱ⁾ᵀw₁:))², labels y in {−1, +1}.

    The squared hinge has the derivative −2 max(0, 1 − z) everywhere, z = 1 included: an example contributes
    −2C (1 − zᵢ) y⁽ⁱ⁾(1, x⁽ⁱ⁾) when its margin zᵢ is below 1 and nothing otherwise.
    """
    margins = y * (w[0] + X @ w[1:])  # (N,) y⁽ⁱ⁾f(x⁽ⁱ⁾)
    pull = 2 * C * np.maximum(0.0, 1.0 - margins) * y  # (N,) 2C max(0, 1 − zᵢ) y⁽ⁱ⁾, the αᵢ y⁽ⁱ⁾ of the solution
    return np.r_[-pull.sum(), w[1:] - X.T @ pull]  # (m + 1,): the bias w₀ is not penalised


def _svm_inputs(rng, size):
    """Labels −1 and +1 with margins on both sides of 1, none within 10⁻⁶ of it: there J is differentiable."""
    m = 1 + size % 3
    w = rng.normal(size=m + 1)  # (m + 1,)
    X = rng.normal(size=(size + 4, m))  # (N, m)
    y = rng.choice(np.array([-1, 1]), size=size + 4)  # (N,)
    keep = np.abs(y * (w[0] + X @ w[1:]) - 1) > 1e-6  # away from the kink
    return X[keep], y[keep], w, float(10.0 ** rng.uniform(-1, 1))


def squared_hinge_gradient(candidate, *, rng):
    """``squared_hinge_gradient(X, y, w, C)`` against the gradient of the squared-hinge cost J₂.

    The inputs have margins on both sides of 1, so that the hinge's subgradient, the factor 2 forgotten or the max
    dropped all give a different vector.
    """
    __tracebackhide__ = True
    check_function(candidate, _squared_hinge_gradient, _svm_inputs, rng=rng)


# The first edition's exercise asked for the hinge cost's subgradient; student copies made from it still call this
# check, so it stays (not in __all__: the book's exercise is now the squared hinge above).
def _svm_subgradient(X, y, w, C):
    """A subgradient of J(w) = ½‖w₁:‖² + C Σᵢ max(0, 1 − y⁽ⁱ⁾(w₀ + x⁽ⁱ⁾ᵀw₁:)), labels y in {−1, +1}.

    An example whose margin y⁽ⁱ⁾f(x⁽ⁱ⁾) is below 1 contributes −C y⁽ⁱ⁾(1, x⁽ⁱ⁾); one above contributes nothing.
    """
    margins = y * (w[0] + X @ w[1:])  # (N,) y⁽ⁱ⁾f(x⁽ⁱ⁾)
    violating = margins < 1  # (N,) the examples inside the margin or misclassified
    return np.r_[-C * np.sum(y[violating]), w[1:] - C * X[violating].T @ y[violating]]  # (m + 1,)


def svm_subgradient(candidate, *, rng):
    """``svm_subgradient(X, y, w, C)`` against a subgradient of the SVM's primal cost (the first edition's exercise).

    The inputs have no margin within 10⁻⁶ of 1, where J is differentiable and its subgradient is its gradient.
    """
    __tracebackhide__ = True
    check_function(candidate, _svm_subgradient, _svm_inputs, rng=rng)
