"""One check per exercise of the book: the reference, the random inputs and the tolerances, in one place.

Each function is named after the function the reader writes and is called from that exercise's check cell,
``exercise_checks.ridge_weights(ridge_weights, rng=np.random.default_rng(SEED))``. Keeping the checks here
rather than in the notebooks lets ``tests/test_exercise_checks.py`` prove that every check accepts a right
answer and rejects the classic wrong ones (a missing factor, a sign error, no max-subtraction, a transposed
matrix, an off-by-one mask, …). Inputs grow with the trial number, so the first failure is the smallest.
"""

import numpy as np

from . import attention, conv, diffusion, logistic, mmd, regression, sequence, vae
from . import functional as F
from ._validation import check_rng
from .autograd import Tensor, no_grad
from .exercises import _remind_not_implemented, check_function
from .nn import MLP
from .normalization import BatchNorm1d
from .transformer import TransformerBlock

__all__ = [
    "averaged_gradient", "ridge_weights", "laplace_neg_log_likelihood", "ridge_effective_parameters",  # chapter 1
    "log_sigmoid", "hessian", "binary_weights", "mistake_bound", "poisson_gradient_hessian",  # chapter 2
    "min_gram_eigenvalue", "product_features", "kernel_ridge_bias", "svm_subgradient",  # chapter 3
    "softplus", "relu_net_grad_W1", "dropout_forward_backward", "num_weights",  # chapter 4
    "conv_output_size", "conv1x1_as_dense", "batchnorm_backward", "receptive_field",  # chapter 5
    "gru_step", "bptt_last", "reverse_within_length",  # chapter 6
    "causal_attention", "positional_encoding", "block_parameters",  # chapter 7
    "gaussian_discriminator", "gaussian_kl", "noised", "mmd2_unbiased",  # chapter 8
]


def _parts_to_check(candidate, rng, default_name, *probe):
    """(rng, name) for a check made of several parts, or None for a stub, after one reminder.

    A stub raises NotImplementedError in every part; calling it once on the small input ``probe`` reminds the reader
    once instead of once per part. Any other error of that call is left to the parts, which report it with the input
    that causes it.
    """
    __tracebackhide__ = True
    if not callable(candidate):
        raise TypeError(f"candidate must be a function; received {type(candidate).__name__}. "
                        "Pass your function itself, without calling it.")
    rng = check_rng(rng)
    name = getattr(candidate, "__name__", default_name)
    try:
        candidate(*probe)
    except NotImplementedError:
        _remind_not_implemented(name)
        return None
    except Exception:  # noqa: BLE001  (any other error is reported by the parts, with the input that causes it)
        pass
    return rng, name


# --- chapter 1 --------------------------------------------------------------------------------------------------

def _regression_inputs(rng, size):
    m = 1 + size % 4
    return rng.normal(size=(size, m)), rng.normal(size=size), rng.normal(size=m + 1)


def averaged_gradient(candidate, *, rng):
    """``averaged_gradient(X, y, w)`` against ``regression.compute_gradient(..., average=True)``."""
    __tracebackhide__ = True
    check_function(candidate, lambda X, y, w: regression.compute_gradient(X, y, w, average=True),
                   _regression_inputs, rng=rng)


def _ridge_inputs(rng, size):
    m = 1 + size % 5  # sometimes more features than examples
    return rng.normal(size=(size, m)), rng.normal(size=size), float(rng.uniform(0.1, 10.0))


def ridge_weights(candidate, *, rng):
    """``ridge_weights(X, y, l2)`` against ``regression.normal_equations(X, y, l2=l2)``."""
    __tracebackhide__ = True
    check_function(candidate, lambda X, y, l2: regression.normal_equations(X, y, l2=l2), _ridge_inputs, rng=rng)


def _laplace_neg_log_likelihood(e, b):
    """−ℓ = N ln(2b) + Σᵢ abs(eᵢ)/b: minus the log-likelihood of N residuals under Laplace noise of scale b."""
    return e.size * np.log(2 * b) + np.abs(e).sum() / b


def _laplace_inputs(rng, size):
    b = float(10.0 ** rng.uniform(-1, 1))  # scales from 0.1 to 10: a b where 2b belongs shows at every scale
    return rng.laplace(scale=b, size=size), b


def laplace_neg_log_likelihood(candidate, *, rng):
    """``laplace_neg_log_likelihood(e, b)`` against N ln(2b) + Σᵢ abs(eᵢ)/b."""
    __tracebackhide__ = True
    check_function(candidate, _laplace_neg_log_likelihood, _laplace_inputs, rng=rng)


def _ridge_trace(X, l2):
    """tr S_λ, S_λ = Φ(ΦᵀΦ + λI′)⁻¹Φᵀ the ridge smoother matrix: tr[(ΦᵀΦ + λI′)⁻¹ΦᵀΦ] by cycling the product."""
    Phi = regression.add_bias(X)  # (N, m + 1)
    I_prime = np.diag(np.r_[0.0, np.ones(X.shape[1])])  # (m + 1, m + 1): no penalty on the bias
    return float(np.trace(np.linalg.solve(Phi.T @ Phi + l2 * I_prime, Phi.T @ Phi)))


def _ridge_dof_inputs(rng, size):
    m = 1 + size % 4  # sometimes more features than examples
    X = rng.normal(size=(size, m)) * 10.0 ** rng.uniform(-1, 1, size=m) + rng.uniform(-3, 3, size=m)  # off-centre
    return X, float(10.0 ** rng.uniform(-2, 2))


def ridge_effective_parameters(candidate, *, rng):
    """``ridge_effective_parameters(X, l2)`` against the trace of the ridge smoother matrix S_λ."""
    __tracebackhide__ = True
    check_function(candidate, _ridge_trace, _ridge_dof_inputs, rng=rng)


# --- chapter 2 --------------------------------------------------------------------------------------------------

def _logit_inputs(rng, size):
    """Logits of both signs and scales up to about 1e4; 1-D for odd sizes, 2-D for even ones."""
    z = rng.standard_normal(size) * 10.0 ** rng.uniform(0, 4, size)
    return (z if size % 2 else z.reshape(2, size // 2),)


def log_sigmoid(candidate, *, rng):
    """``log_sigmoid(z)`` against ``logistic.log_sigmoid`` on logits up to 1e4, with no warning allowed."""
    __tracebackhide__ = True
    check_function(candidate, logistic.log_sigmoid, _logit_inputs, rng=rng, warnings_as_errors=True)


def _hessian_inputs(rng, size):
    m = min(size, 4)
    return rng.standard_normal((size, m)), rng.integers(0, 2, size), rng.standard_normal(m + 1)


def hessian(candidate, *, rng):
    """``hessian(X, y, w)`` against ``logistic.logistic_hessian``."""
    __tracebackhide__ = True
    check_function(candidate, logistic.logistic_hessian, _hessian_inputs, rng=rng)


def _logistic_weights_of(W):
    """The w with σ(φᵀw) = softmax(φᵀW)₂ for every φ, solved from the probabilities at m + 1 points."""
    m = W.shape[0] - 1
    X = np.vstack([np.zeros(m), np.eye(m)])  # (m + 1, m): Φ = [1 | X] is invertible
    p = logistic.softmax_predict_proba(X, W)[:, 1]  # (m + 1,)
    return np.linalg.solve(regression.add_bias(X), np.log(p / (1 - p)))  # Φw = logit(p)


def _two_class_inputs(rng, size):
    return (rng.standard_normal((1 + min(size, 4), 2)),)


def binary_weights(candidate, *, rng):
    """``binary_weights(W)`` against the weights recovered from softmax's probabilities of class 2."""
    __tracebackhide__ = True
    check_function(candidate, _logistic_weights_of, _two_class_inputs, rng=rng)


from . import glm, perceptron  # noqa: E402  (the chapter-2 modules that only these checks use)


def _mistake_bound(X, y, w):
    """(r/γ)² with r = max ‖φ⁽ⁱ⁾‖ and γ the margin of w, both in the feature space φ = (1, x)."""
    r = np.linalg.norm(regression.add_bias(X), axis=1).max()
    return (r / perceptron.margin(X, y, w)) ** 2


def _separated_inputs(rng, size):
    """Points at least 0.05 from the hyperplane of a random w of random scale, labelled by its side."""
    m = 1 + size % 3
    w = rng.standard_normal(m + 1) * 10.0 ** rng.uniform(-1, 1)  # a norm far from 1: normalising matters
    X = 2.0 * rng.standard_normal((4 * size + 8, m)) + rng.uniform(-2, 2, m)  # off-centre: the bias matters
    distance = regression.add_bias(X) @ w / np.linalg.norm(w)  # signed distance to the hyperplane
    keep = np.flatnonzero(np.abs(distance) >= 0.05)[: size + 1]
    return X[keep], (distance[keep] > 0).astype(np.int64), w


def mistake_bound(candidate, *, rng):
    """``mistake_bound(X, y, w)`` against (r/γ)² from ``perceptron.margin`` and the rows of Φ."""
    __tracebackhide__ = True
    check_function(candidate, _mistake_bound, _separated_inputs, rng=rng)


def _count_inputs(rng, size):
    m = 1 + size % 3
    X = rng.standard_normal((size + 1, m))
    w = 0.5 * rng.standard_normal(m + 1)
    y = rng.poisson(np.exp(regression.add_bias(X) @ w)).astype(np.float64)  # counts with mean e^(wᵀφ)
    return X, y, w


def _part(candidate, index, results="grad, H"):
    """The reader's function reduced to one of the results it returns (named in ``results``), as the reader named it."""
    def part(*args):
        result = candidate(*args)
        count = results.count(",") + 1
        if not isinstance(result, (tuple, list)) or len(result) != count:
            received = f"{len(result)} results" if isinstance(result, (tuple, list)) else type(result).__name__
            raise TypeError(f"expected {count} results ({results}); received {received}. "
                            f"End your function with `return {results}`.")
        return result[index]
    part.__wrapped__ = candidate  # so that the check's messages use the reader's argument names
    return part


def poisson_gradient_hessian(candidate, *, rng):
    """``poisson_gradient_hessian(X, y, w)`` -> (gradient, Hessian) against ``glm.poisson_gradient_hessian``."""
    __tracebackhide__ = True
    started = _parts_to_check(candidate, rng, "poisson_gradient_hessian", np.zeros((1, 1)), np.ones(1), np.zeros(2))
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    for index, what in enumerate(("the gradient, its first result", "the Hessian, its second result")):
        check_function(_part(candidate, index), lambda X, y, w, i=index: glm.poisson_gradient_hessian(X, y, w)[i],
                       _count_inputs, rng=rng, name=name, quantity=what)


# --- chapter 3 --------------------------------------------------------------------------------------------------

from .exercises import _as_array  # noqa: E402  (turns a result into a float array, or None)


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


def product_features(candidate, *, rng):
    """``product_features(Phi1, Phi2)``: of shape (N, M₁M₂), with ΦΦᵀ = K₁ ∘ K₂ (any order of the columns)."""
    __tracebackhide__ = True
    started = _parts_to_check(candidate, rng, "product_features", np.ones((1, 1)), np.ones((1, 1)))
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    check_function(candidate, _right_shape_else_reference(candidate), _feature_map_inputs, rng=rng, name=name,
                   quantity="the shape (N, M₁M₂) of its features")
    check_function(_gram_of(candidate), _product_gram, _feature_map_inputs, rng=rng, name=name,
                   quantity="ΦΦᵀ, the Gram matrix of its features, against K₁ ∘ K₂")


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


def _svm_subgradient(X, y, w, C):
    """A subgradient of J(w) = ½‖w₁:‖² + C Σᵢ max(0, 1 − y⁽ⁱ⁾(w₀ + x⁽ⁱ⁾ᵀw₁:)), labels y in {−1, +1}.

    An example whose margin y⁽ⁱ⁾f(x⁽ⁱ⁾) is below 1 contributes −C y⁽ⁱ⁾(1, x⁽ⁱ⁾); one at 1 exactly (the kink) or above
    contributes nothing, though at the kink any fraction of −C y⁽ⁱ⁾(1, x⁽ⁱ⁾) would be a subgradient as well.
    """
    margins = y * (w[0] + X @ w[1:])  # (N,) y⁽ⁱ⁾f(x⁽ⁱ⁾)
    violating = margins < 1  # (N,) the examples inside the margin or misclassified
    grad_bias = -C * np.sum(y[violating])  # the bias w₀ is not penalised
    grad_weights = w[1:] - C * X[violating].T @ y[violating]  # (m,)
    return np.r_[grad_bias, grad_weights]  # (m + 1,)


def _svm_inputs(rng, size):
    """Labels −1 and +1 with margins on both sides of 1, none within 10⁻⁶ of it: there J is differentiable."""
    m = 1 + size % 3
    w = rng.normal(size=m + 1)  # (m + 1,)
    X = rng.normal(size=(size + 4, m))  # (N, m)
    y = rng.choice(np.array([-1, 1]), size=size + 4)  # (N,)
    keep = np.abs(y * (w[0] + X @ w[1:]) - 1) > 1e-6  # away from the kink
    return X[keep], y[keep], w, float(10.0 ** rng.uniform(-1, 1))


def svm_subgradient(candidate, *, rng):
    """``svm_subgradient(X, y, w, C)`` against the gradient of the SVM's primal cost.

    The inputs have no margin within 10⁻⁶ of 1, where J is differentiable and its subgradient is its gradient, so
    an example at the kink counted in (margin <= 1) or out (margin < 1) passes alike.
    """
    __tracebackhide__ = True
    check_function(candidate, _svm_subgradient, _svm_inputs, rng=rng)


# --- chapter 4 --------------------------------------------------------------------------------------------------

def _softplus_inputs(rng, size):
    z = rng.standard_normal(size) * 10.0 ** rng.uniform(0, 3, size)
    z[0] = 0.0  # the kink of max(z, 0) and abs(z)
    return (z,)


def _tensor_value(function):
    def value(z):
        out = function(Tensor(z))
        return out.data if isinstance(out, Tensor) else out
    return value


def _tensor_gradient(function):
    def gradient(z):
        t = Tensor(z, requires_grad=True)
        out = function(t)
        if not isinstance(out, Tensor):
            raise TypeError(f"returned {type(out).__name__}, not a Tensor: compute with Tensor operations so that "
                            "backward() can differentiate it")
        out.sum().backward()
        return t.grad
    return gradient


def softplus(candidate, *, rng):
    """The Tensor function ``softplus(z)``: its values against log(1 + eᶻ), its gradient against σ(z)."""
    __tracebackhide__ = True
    started = _parts_to_check(candidate, rng, "softplus", Tensor(np.zeros(1)))
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    check_function(_tensor_value(candidate), lambda z: np.logaddexp(0.0, z), _softplus_inputs, rng=rng,
                   warnings_as_errors=True, name=name, quantity="its values")
    check_function(_tensor_gradient(candidate), logistic.sigmoid, _softplus_inputs, rng=rng,
                   warnings_as_errors=True, name=name, quantity=f"the gradient of {name}(z).sum()")


def _engine_grad_W1(X, y, W1, b1, W2, b2):
    W1_t = Tensor(W1, requires_grad=True)
    logits = (Tensor(X) @ W1_t + b1).relu() @ W2 + b2
    F.cross_entropy(logits, y).backward()
    return W1_t.grad


def _relu_net_inputs(rng, size):
    N, d0, d1, K = size + 1, 3, 4, 3
    return (rng.normal(size=(N, d0)), rng.integers(0, K, size=N), rng.normal(size=(d0, d1)), rng.normal(size=d1),
            rng.normal(size=(d1, K)), rng.normal(size=K))


def relu_net_grad_W1(candidate, *, rng):
    """``relu_net_grad_W1(X, y, W1, b1, W2, b2)`` against the engine's gradient."""
    __tracebackhide__ = True
    check_function(candidate, _engine_grad_W1, _relu_net_inputs, rng=rng)


def _count_by_building(sizes):
    return sum(p.size for p in MLP(sizes, rng=np.random.default_rng(0)).parameters())


def _sizes_inputs(rng, size):
    return ([int(n) for n in rng.integers(1, 20, size=1 + min(size, 5))],)


def num_weights(candidate, *, rng):
    """``num_weights(sizes)`` against counting the parameters of a built ``MLP(sizes)``."""
    __tracebackhide__ = True
    check_function(candidate, _count_by_building, _sizes_inputs, rng=rng, trials=10)


def _dropout_reference(H, mask, p, grad_out):
    """(output, ∂L/∂H) of inverted dropout with the keep-mask ``mask``, by the engine: ``functional.dropout``'s line."""
    H_t = Tensor(H, requires_grad=True)
    out = H_t * (mask / (1.0 - p))  # M ⊙ H / (1 − p), eq. (4.12), with this mask instead of a random one
    out.backward(grad_out)
    return out.data, H_t.grad


def _dropout_inputs(rng, size):
    """H, a keep-mask with at least one kept and one dropped entry, p away from 0 and ½, and ∂L/∂output."""
    shape = (1 + size // 4, 2 + size % 3)
    p = float(rng.uniform(0.1, 0.4) + (0.5 if size % 2 else 0.0))  # p and 1 − p never close: a swap shows
    mask = rng.random(shape) >= p  # kept with probability 1 − p, as Dropout draws it
    mask.flat[:2] = True, False
    return rng.normal(size=shape), mask, p, rng.normal(size=shape)


def dropout_forward_backward(candidate, *, rng):
    """``dropout_forward_backward(H, mask, p, grad_out)`` -> (out, grad_H), against ``Dropout`` and the engine.

    Inverted dropout in training mode, eq. (4.12), with a given keep-mask: ``mask`` is a boolean array of the shape
    of H, True where an entry is kept; p in (0, 1) is the probability of dropping an entry; grad_out = ∂L/∂out has
    the shape of H. The results are ndarrays of that shape: out = mask ⊙ H / (1 − p) and
    grad_H = ∂L/∂H = mask ⊙ grad_out / (1 − p). Every input has a kept and a dropped entry, and p is never near ½.
    """
    __tracebackhide__ = True
    started = _parts_to_check(candidate, rng, "dropout_forward_backward",
                              np.ones((1, 2)), np.array([[True, False]]), 0.25, np.ones((1, 2)))
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    for index, what in enumerate(("out, its first result", "grad_H, its second result")):
        check_function(_part(candidate, index, "out, grad_H"), lambda *a, i=index: _dropout_reference(*a)[i],
                       _dropout_inputs, rng=rng, name=name, quantity=what)


# --- chapter 5 --------------------------------------------------------------------------------------------------

def _conv_size_inputs(rng, size):
    """(n, k, padding, stride) in turn: k = n + 2p, no padding, a stride that leaves a remainder, anything."""
    kind, n, p = size % 4, int(rng.integers(2, size + 6)), int(rng.integers(0, 3))
    s = int(rng.integers(2, 4)) if kind == 2 else int(rng.integers(1, 4))
    if kind == 1:
        p = 0
    k = int(rng.integers(1, n + 2 * p + 1))  # any window that fits the padded axis
    if kind == 0:
        k = n + 2 * p  # the window fills the padded axis: one position
    elif kind == 2 and (n + 2 * p - k) % s == 0:
        k = k - 1 if k > 1 else 2  # (n + 2p − k) / s not an integer: the floor matters
    return n, k, p, s


def conv_output_size(candidate, *, rng):
    """``conv_output_size(n, k, padding, stride)`` -> int, against ``conv.conv_output_size``.

    The number of positions of a window of length k moved by ``stride`` along an axis of length n with ``padding``
    zeros at each end, ⌊(n + 2·padding − k) / stride⌋ + 1; the four arguments are ints, n, k and stride at least 1,
    padding at least 0, and k <= n + 2·padding. The inputs include strides that do not divide n + 2·padding − k,
    no padding, and k = n + 2·padding (one position).
    """
    __tracebackhide__ = True
    check_function(candidate, lambda n, k, padding, stride: conv.conv_output_size(n, k, stride=stride, padding=padding),
                   _conv_size_inputs, rng=rng)


def _conv1x1_reference(x, kernel, bias):
    return conv.conv2d(x, kernel, bias).data  # (N, F, H, W)


def _conv1x1_inputs(rng, size):
    N, C, H = 1 + size % 3, 1 + size % 4, 1 + (size + 1) // 3
    F, W = C + 1 + size % 2, H + 1 + size % 2  # F ≠ C and W ≠ H: a transpose or a swapped axis shows
    return rng.normal(size=(N, C, H, W)), rng.normal(size=(F, C, 1, 1)), rng.normal(size=F)


def conv1x1_as_dense(candidate, *, rng):
    """``conv1x1_as_dense(x, kernel, bias)``: a 1×1 convolution as one dense layer at every pixel, against ``conv2d``.

    x is an ndarray of shape (N, C, H, W), kernel of shape (F, C, 1, 1), bias of shape (F,); the result is an ndarray
    of shape (N, F, H, W) with out[n, f, i, j] = b[f] + Σ_c K[f, c, 0, 0] · x[n, c, i, j]: the C channels of each
    pixel multiplied by the (C, F) matrix K[:, :, 0, 0]ᵀ. The inputs have C ≠ F and H ≠ W.
    """
    __tracebackhide__ = True
    check_function(candidate, _conv1x1_reference, _conv1x1_inputs, rng=rng)


def _batchnorm_backward_reference(x, gamma, grad_out, eps):
    """(∂L/∂x, ∂L/∂γ, ∂L/∂β) of a BatchNorm1d in training mode whose output y has ∂L/∂y = grad_out, by the engine."""
    layer = BatchNorm1d(x.shape[1], eps=eps)
    layer.gamma.data = np.array(gamma, dtype=np.float64)  # (D,); β stays 0: it shifts y, not the gradients
    x = Tensor(x, requires_grad=True)
    layer(x).backward(grad_out)
    return x.grad, layer.gamma.grad, layer.beta.grad


def _batchnorm_inputs(rng, size):
    N, D = 1 + size // 3 + size % 3, 1 + size % 4  # N from 2
    x = rng.normal(size=(N, D)) * 10.0 ** rng.uniform(-1, 1, size=D) + rng.uniform(-3, 3, size=D)  # off-centre
    return x, rng.normal(size=D), rng.normal(size=(N, D)), float(10.0 ** rng.uniform(-5, -1))


def batchnorm_backward(candidate, *, rng):
    """``batchnorm_backward(x, gamma, grad_out, eps)`` -> (grad_x, grad_gamma, grad_beta), against the engine.

    x, of shape (N, D) with N >= 2, is normalized in training mode with its batch mean μ_B and biased variance σ²_B
    (divided by N), x̂ = (x − μ_B) / √(σ²_B + ε), y = γ ⊙ x̂ + β; gamma has shape (D,), grad_out = ∂L/∂y shape
    (N, D), eps = ε a float. The three results are ndarrays: ∂L/∂x of shape (N, D), and ∂L/∂γ = Σᵢ grad_out ⊙ x̂
    and ∂L/∂β = Σᵢ grad_out of shape (D,) (sums over the batch). μ_B and σ²_B depend on x too, so that
    ∂L/∂x = γ / √(σ²_B + ε) ⊙ (g − mean(g) − x̂ ⊙ mean(g ⊙ x̂)), g = grad_out, means over the batch.
    """
    __tracebackhide__ = True
    started = _parts_to_check(candidate, rng, "batchnorm_backward",
                              np.array([[0.0], [1.0]]), np.ones(1), np.ones((2, 1)), 1e-5)
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    results = "grad_x, grad_gamma, grad_beta"
    for index, what in enumerate(("grad_x, its first result", "grad_gamma, its second result",
                                  "grad_beta, its third result")):
        check_function(_part(candidate, index, results), lambda *a, i=index: _batchnorm_backward_reference(*a)[i],
                       _batchnorm_inputs, rng=rng, name=name, quantity=what)


def _receptive_field_inputs(rng, size):
    """1 to 6 (kernel_size, stride) pairs of Python ints, kernels 1 to 5, strides 1 to 3, input side first."""
    L = min(size, 6)
    return ([(int(k), int(s)) for k, s in zip(rng.integers(1, 6, L), rng.integers(1, 4, L), strict=True)],)


def receptive_field(candidate, *, rng):
    """``receptive_field(layers)`` -> int, against the last entry of ``conv.receptive_field(layers)[0]``.

    ``layers`` is a list of (kernel_size, stride) pairs of ints, input side first, at least one; the result is r_L,
    the receptive field of the last layer in input pixels, from r₀ = j₀ = 1, r_l = r_{l−1} + (k_l − 1)·j_{l−1} and
    j_l = j_{l−1}·s_l (the jump j_{l−1} is the product of the strides before layer l).
    """
    __tracebackhide__ = True
    check_function(candidate, lambda layers: int(conv.receptive_field(layers)[0][-1]), _receptive_field_inputs,
                   rng=rng)


# --- chapter 6 --------------------------------------------------------------------------------------------------

def _gru_step_reference(x_t, h_prev, W_z, W_r, W_h, b_z, b_r, b_h):
    gru = sequence.GRU(x_t.shape[1], h_prev.shape[1], rng=np.random.default_rng(0))
    for name, value in zip(sequence.GRU.GATES, (W_z, W_r, W_h), strict=True):
        getattr(gru, f"W_{name}").data = value
    for name, value in zip(sequence.GRU.GATES, (b_z, b_r, b_h), strict=True):
        getattr(gru, f"b_{name}").data = value
    with no_grad():
        _, h_t = gru(x_t[:, None, :], h_prev)  # a sequence of one step
    return h_t.data


def _gru_inputs(rng, size):
    B, D, H = size, 3, 1 + size % 5
    weights, biases = rng.normal(size=(3, H + D, H)), rng.normal(size=(3, H))
    return (rng.normal(size=(B, D)), rng.normal(size=(B, H)), *weights, *biases)


def gru_step(candidate, *, rng):
    """``gru_step(x_t, h_prev, W_z, W_r, W_h, b_z, b_r, b_h)`` against one step of ``sequence.GRU``."""
    __tracebackhide__ = True
    check_function(candidate, _gru_step_reference, _gru_inputs, rng=rng)


def _bptt_last_reference(x, h0, W_xh, W_hh, b_h, y):
    h = h0
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ W_xh + h @ W_hh + b_h)
    dL_dout = np.zeros(x.shape[:2] + h0.shape[1:])  # (B, T, H): no loss before step T
    dL_dout[:, -1] = h - y  # ∂L/∂h_T for L = ½‖h_T − y‖²
    return sequence.rnn_bptt(x, h0, W_xh, W_hh, b_h, dL_dout)["W_hh"]


def _bptt_inputs(rng, size):
    B, T, D, H = 2, size, 3, 4
    x, h0 = rng.normal(size=(B, T, D)), rng.normal(size=(B, H))
    W_xh, W_hh = rng.normal(size=(D, H)) / 2, rng.normal(size=(H, H)) / 2
    return x, h0, W_xh, W_hh, rng.normal(size=H), rng.uniform(-1, 1, size=(B, H))


def bptt_last(candidate, *, rng):
    """``bptt_last(x, h0, W_xh, W_hh, b_h, y)`` against ``sequence.rnn_bptt``'s gradient for W_hh."""
    __tracebackhide__ = True
    check_function(candidate, _bptt_last_reference, _bptt_inputs, rng=rng)


def _reverse_with_a_loop(x, lengths):
    out = x.copy()
    for b, n in enumerate(lengths):
        out[b, :n] = x[b, :n][::-1]
    return out


def _padded_inputs(rng, size):
    B, T = 1 + size % 4, 1 + size
    lengths = rng.integers(1, T + 1, size=B)
    lengths[0] = T  # one full-length row, so an off-by-one at the end shows
    return rng.normal(size=(B, T, 2)), lengths


def reverse_within_length(candidate, *, rng):
    """``reverse_within_length(x, lengths)`` against a loop over the batch."""
    __tracebackhide__ = True
    check_function(candidate, _reverse_with_a_loop, _padded_inputs, rng=rng)


# --- chapter 7 --------------------------------------------------------------------------------------------------

def _causal_reference(Q, K, V):
    return attention.scaled_dot_product_attention(Q, K, V, mask=attention.causal_mask(len(Q)))[0]


def _qkv_inputs(rng, size):
    """Queries scaled up to 10³, so that unstabilised scores overflow exp; keys and values ordinary."""
    T, d_k, d_v = size, 4, 3
    Q = rng.normal(size=(T, d_k)) * 10.0 ** rng.uniform(0, 3)
    return Q, rng.normal(size=(T, d_k)), rng.normal(size=(T, d_v))


def causal_attention(candidate, *, rng):
    """``causal_attention(Q, K, V)`` against ``scaled_dot_product_attention`` with ``causal_mask(T)``.

    The scores reach the thousands, so a softmax without the max-subtraction overflows; no warning is allowed.
    """
    __tracebackhide__ = True
    check_function(candidate, _causal_reference, _qkv_inputs, rng=rng, warnings_as_errors=True)


def _position_inputs(rng, size):
    return int(rng.integers(1, 50)), size


def positional_encoding(candidate, *, rng):
    """``positional_encoding(T, D)`` against ``attention.sinusoidal_positional_encoding``, D even and odd."""
    __tracebackhide__ = True
    check_function(candidate, attention.sinusoidal_positional_encoding, _position_inputs, rng=rng)


def _count_block(D, d_ff):
    return sequence.parameter_count(TransformerBlock(D, 1, d_ff, rng=np.random.default_rng(0)))


def _block_size_inputs(rng, size):
    return int(rng.integers(1, 4 * size + 2)), int(rng.integers(1, 40))


def block_parameters(candidate, *, rng):
    """``block_parameters(D, d_ff)`` against counting the parameters of a built ``TransformerBlock``."""
    __tracebackhide__ = True
    check_function(candidate, _count_block, _block_size_inputs, rng=rng, trials=10)


# --- chapter 8 --------------------------------------------------------------------------------------------------

def _gaussian_discriminator_reference(x, mu_d, sigma_d, mu_g, sigma_g):
    """D*(x) = sigm(log p_data(x) − log p_g(x)) for two 1-D Gaussians, without forming either density."""
    r = (-0.5 * ((x - mu_d) / sigma_d) ** 2 - np.log(sigma_d)) - (-0.5 * ((x - mu_g) / sigma_g) ** 2 - np.log(sigma_g))
    return 0.5 * (1.0 + np.tanh(0.5 * r))  # sigm(r), which never overflows


def _two_gaussians_inputs(rng, size):
    """Points around both Gaussians, and from input 3 on two points a hundred standard deviations out."""
    mu_d, mu_g = rng.normal(size=2)
    sigma_d, sigma_g = np.exp(rng.uniform(-1, 1, size=2))
    x = rng.normal(size=size) * 2 * max(sigma_d, sigma_g) + (mu_d + mu_g) / 2
    if size >= 3:
        x[:2] = mu_d + np.array([-100.0, 100.0]) * max(sigma_d, sigma_g)  # both densities underflow to 0
    return x, float(mu_d), float(sigma_d), float(mu_g), float(sigma_g)


def gaussian_discriminator(candidate, *, rng):
    """``gaussian_discriminator(x, mu_d, sigma_d, mu_g, sigma_g)``: the best D for N(μ_d, σ_d²) against N(μ_g, σ_g²).

    Points far in the tails, where both densities underflow to 0, are included; no warning is allowed.
    """
    __tracebackhide__ = True
    check_function(candidate, _gaussian_discriminator_reference, _two_gaussians_inputs, rng=rng,
                   warnings_as_errors=True)


def _gaussian_kl_reference(mu, log_var):
    return vae.gaussian_kl(mu, log_var).data  # (N,)


def _latent_inputs(rng, size):
    N, d_z = size, 1 + size % 4
    return rng.normal(size=(N, d_z)), rng.normal(size=(N, d_z))


def gaussian_kl(candidate, *, rng):
    """``gaussian_kl(mu, log_var)`` against ``vae.gaussian_kl``: one KL divergence per row."""
    __tracebackhide__ = True
    check_function(candidate, _gaussian_kl_reference, _latent_inputs, rng=rng)


def _noised_reference(x0, t, betas, noise):
    return diffusion.q_sample(x0, t, noise, diffusion.DDPMSchedule(betas))


def _forward_inputs(rng, size):
    """A random schedule of T = size + 2 steps; the N = size + 1 points get random steps, the first step T."""
    T, N = size + 2, size + 1
    betas = rng.uniform(0.01, 0.4, size=T)
    t = rng.integers(1, T + 1, size=N)
    t[0] = T  # the last step, where an off-by-one index runs past the end
    return rng.normal(size=(N, 2)), t, betas, rng.normal(size=(N, 2))


def noised(candidate, *, rng):
    """``noised(x0, t, betas, noise)`` against ``diffusion.q_sample``: x_t drawn from x_0, one step per point."""
    __tracebackhide__ = True
    check_function(candidate, _noised_reference, _forward_inputs, rng=rng)


def _mmd_reference(X, Y, s):
    return mmd.mmd2(X, Y, bandwidth=s)


def _mmd_inputs(rng, size):
    """Samples of different sizes m ≠ n, shifted apart, and a width around their scale."""
    m, D = size + 2, 1 + size % 3
    n = m + 1 if size % 2 else m - 1  # never m
    X = rng.normal(size=(m, D))
    Y = rng.normal(size=(n, D)) * rng.uniform(0.5, 2) + rng.normal(size=D)
    return X, Y, float(np.exp(rng.uniform(-1, 1)))


def mmd2_unbiased(candidate, *, rng):
    """``mmd2_unbiased(X, Y, s)`` against ``mmd.mmd2(X, Y, bandwidth=s)``, the U-statistic, for samples m ≠ n."""
    __tracebackhide__ = True
    check_function(candidate, _mmd_reference, _mmd_inputs, rng=rng)
