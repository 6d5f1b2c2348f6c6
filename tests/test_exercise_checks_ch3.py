"""The exercise checks of chapter 3, kernel methods, accept a right answer and reject the classic wrong ones.

The smallest eigenvalue of a Gram matrix, the explicit features of a product kernel, the coefficients and bias of kernel
ridge regression and the gradient of the squared-hinge cost: for each, correct solutions must print ``pass`` and
every listed mistake must raise ``ExerciseCheckFailed``. The references inside the checks are tested too: against
SciPy's symmetric eigensolver, the features of the polynomial kernel, chapter 1's ridge regression with an
unpenalized bias, scikit-learn's ``KernelRidge`` and finite differences of the cost.
"""

import numpy as np
import pytest
from scipy import linalg
from sklearn.kernel_ridge import KernelRidge

from implementations.linear import regression
from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed


def _factorized_gram(Phi1, Phi2):
    """Not features: K₁ ∘ K₂ = U Λ Uᵀ factorized as (U√Λ)(U√Λ)ᵀ, padded or cut to M₁M₂ columns (rank <= M₁M₂)."""
    eigenvalues, U = np.linalg.eigh((Phi1 @ Phi1.T) * (Phi2 @ Phi2.T))  # ascending
    factor = U[:, ::-1] * np.sqrt(np.clip(eigenvalues[::-1], 0.0, None))  # (N, N), largest first
    width = Phi1.shape[1] * Phi2.shape[1]
    return np.hstack([factor, np.zeros((len(Phi1), width))])[:, :width]  # (N, M₁M₂): ΦΦᵀ = K₁ ∘ K₂ still


def _gram(kernel, X, *, mirrored=True):
    N = X.shape[0]
    K = np.zeros((N, N))
    for i in range(N):
        for j in range(i if not mirrored else 0, N):  # not mirrored: the upper triangle only
            K[i, j] = kernel(X[i], X[j])
    return K


def _svm(X, y, w, C, *, penalise_bias=False, sign=1.0, use_y=True, every_example=False, average=False,
         at_the_kink=False, factor=2.0, hinge=False):
    """The gradient of the squared-hinge cost, or one of its classic mistakes (hinge=True: the hinge's subgradient)."""
    margins = y * (w[0] + X @ w[1:])
    active = np.ones_like(margins, dtype=bool) if every_example else (margins <= 1 if at_the_kink else margins < 1)
    t = y if use_y else np.ones_like(y)
    weight = np.ones_like(margins) if hinge else factor * (1.0 - margins)  # (N,): d/dz of the loss, negated
    Phi = np.hstack([np.ones((X.shape[0], 1)), X])  # (N, m + 1)
    penalty = np.r_[w[0] if penalise_bias else 0.0, w[1:]]
    data = -C * Phi[active].T @ (weight * t)[active] / (len(y) if average else 1)
    return penalty + sign * data


# --- right answers ----------------------------------------------------------------------------------------------

def min_gram_eigenvalue(kernel, X):
    return np.linalg.eigvalsh(_gram(kernel, X))[0]


def product_features(Phi1, Phi2):
    return np.einsum("ia,ib->iab", Phi1, Phi2).reshape(Phi1.shape[0], -1)


def kernel_ridge_bias(K, y, l2):
    return np.linalg.solve(_bordered_matrix(K, l2), np.r_[y, 0.0])


def squared_hinge_gradient(X, y, w, C):
    return _svm(X, y, w, C)


def _bordered_matrix(K, l2):
    N = len(K)
    return np.block([[K + l2 * np.eye(N), np.ones((N, 1))], [np.ones((1, N)), np.zeros((1, 1))]])


def _by_centring_features(K, y, l2):
    """b eliminated: a = (HKH + λI)⁻¹H y, then b = mean(y − Ka), with H = I − 11ᵀ/N the centring matrix."""
    N = len(y)
    H = np.eye(N) - 1.0 / N
    a = np.linalg.solve(H @ K @ H + l2 * np.eye(N), H @ y)
    return np.r_[a, np.mean(y - K @ a)]


def _with_sum(a):
    return np.r_[a, a.sum()]


def _bias_afterwards(K, y, l2):
    a = np.linalg.solve(K + l2 * np.eye(len(y)), y)
    return np.r_[a, np.mean(y - K @ a)]


RIGHT = [min_gram_eigenvalue, product_features, kernel_ridge_bias, squared_hinge_gradient]

OTHER_RIGHT = [
    ("min_gram_eigenvalue", "real part of np.linalg.eigvals, then min",
     lambda kernel, X: np.linalg.eigvals(_gram(kernel, X)).real.min()),
    ("min_gram_eigenvalue", "upper triangle mirrored, then eigh",
     lambda kernel, X: np.linalg.eigh(np.triu(_gram(kernel, X, mirrored=False), 1).T
                                      + _gram(kernel, X, mirrored=False))[0][0]),
    ("product_features", "the other order of the columns",
     lambda Phi1, Phi2: (Phi2[:, :, None] * Phi1[:, None, :]).reshape(len(Phi1), -1)),
    ("product_features", "features of opposite sign: the same kernel",
     lambda Phi1, Phi2: -product_features(Phi1, Phi2)),
    ("kernel_ridge_bias", "eliminate b: centre the Gram matrix and y with H = I − 11ᵀ/N",
     lambda K, y, l2: _by_centring_features(K, y, l2)),
    ("squared_hinge_gradient", "the examples at margin 1 counted in: they add zero",
     lambda X, y, w, C: _svm(X, y, w, C, at_the_kink=True)),
]

WRONG = {
    "min_gram_eigenvalue": [
        ("the largest eigenvalue", lambda kernel, X: np.linalg.eigvalsh(_gram(kernel, X))[-1]),
        ("the first of np.linalg.eigvals, which are not sorted",
         lambda kernel, X: np.linalg.eigvals(_gram(kernel, X))[0].real),
        ("the upper triangle only, not mirrored",
         lambda kernel, X: np.linalg.eigvals(_gram(kernel, X, mirrored=False)).real.min()),
        ("the smallest in absolute value", lambda kernel, X: np.abs(np.linalg.eigvalsh(_gram(kernel, X))).min()),
        ("the inputs' Gram matrix XXᵀ: the kernel ignored", lambda kernel, X: np.linalg.eigvalsh(X @ X.T)[0]),
        ("the feature matrix's XᵀX instead of a Gram matrix", lambda kernel, X: np.linalg.eigvalsh(X.T @ X)[0]),
    ],
    "product_features": [
        ("concatenation: the features of the sum kernel", lambda Phi1, Phi2: np.hstack([Phi1, Phi2])),
        ("elementwise product of the two maps", lambda Phi1, Phi2: Phi1 * Phi2),
        ("np.kron: every example paired with every other", lambda Phi1, Phi2: np.kron(Phi1, Phi2)),
        ("examples mixed by a reshape where a transpose belongs",
         lambda Phi1, Phi2: (Phi1.T[:, None, :] * Phi2.T[None, :, :]).reshape(len(Phi1), -1)),
        ("the second map summed over the examples",
         lambda Phi1, Phi2: np.einsum("ia,jb->iab", Phi1, Phi2).reshape(len(Phi1), -1)),
        ("the Gram matrix K1 * K2 instead of features", lambda Phi1, Phi2: (Phi1 @ Phi1.T) * (Phi2 @ Phi2.T)),
        ("a factorization of K1 * K2 padded to M1 M2 columns: the right Gram matrix, not a feature map",
         _factorized_gram),
    ],
    "kernel_ridge_bias": [
        ("the constraint row 1ᵀa = 0 forgotten: the least-norm solution of N equations",
         lambda K, y, l2: np.linalg.lstsq(np.hstack([K + l2 * np.eye(len(y)), np.ones((len(y), 1))]), y,
                                          rcond=None)[0]),
        ("the bias penalized: the constant kernel 1 added to K, b = 1ᵀa",
         lambda K, y, l2: _with_sum(np.linalg.solve(K + 1.0 + l2 * np.eye(len(y)), y))),
        ("y centred only: b = ȳ", lambda K, y, l2: np.r_[np.linalg.solve(K + l2 * np.eye(len(y)), y - y.mean()),
                                                        y.mean()]),
        ("no bias in the solve, b the mean residual afterwards",
         lambda K, y, l2: _bias_afterwards(K, y, l2)),
        ("λ forgotten", lambda K, y, l2: np.linalg.lstsq(_bordered_matrix(K, 0.0), np.r_[y, 0.0], rcond=None)[0]),
    ],
    "squared_hinge_gradient": [
        ("the hinge's subgradient: the square ignored", lambda X, y, w, C: _svm(X, y, w, C, hinge=True)),
        ("the factor 2 of the square forgotten", lambda X, y, w, C: _svm(X, y, w, C, factor=1.0)),
        ("the bias penalised", lambda X, y, w, C: _svm(X, y, w, C, penalise_bias=True)),
        ("the sign of the hinge term flipped", lambda X, y, w, C: _svm(X, y, w, C, sign=-1.0)),
        ("y forgotten in the hinge term", lambda X, y, w, C: _svm(X, y, w, C, use_y=False)),
        ("labels read as 0 and 1: 2y − 1", lambda X, y, w, C: _svm(X, 2 * y - 1, w, C)),
        ("divided by N", lambda X, y, w, C: _svm(X, y, w, C, average=True)),
        ("C forgotten", lambda X, y, w, C: _svm(X, y, w, 1.0)),
        ("every example counted: the max forgotten, (1 − z)² differentiated",
         lambda X, y, w, C: _svm(X, y, w, C, every_example=True)),
        ("no entry for the bias", lambda X, y, w, C: _svm(X, y, w, C)[1:]),
    ],
}


def test_the_checks_are_exported_between_chapters_2_and_4():
    names = exercise_checks.__all__
    start = names.index("poisson_gradient_hessian") + 1
    assert names[start: start + len(RIGHT)] == [f.__name__ for f in RIGHT]
    assert names[start + len(RIGHT)] == "softplus"


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    out = capsys.readouterr().out
    assert out.startswith(f"pass: {solution.__name__}")
    assert "disagrees" not in out and "not implemented" not in out


@pytest.mark.parametrize(("check", "how", "solution"), OTHER_RIGHT, ids=[f"{c}: {h}" for c, h, _ in OTHER_RIGHT])
def test_another_right_answer_passes(check, how, solution, capsys):
    solution.__name__ = check
    getattr(exercise_checks, check)(solution, rng=np.random.default_rng(1))
    assert capsys.readouterr().out.startswith(f"pass: {check}")


def test_every_check_has_at_least_two_wrong_answers():
    assert set(WRONG) == {f.__name__ for f in RIGHT}
    assert all(len(mistakes) >= 2 for mistakes in WRONG.values())


@pytest.mark.parametrize(("check", "mistake", "wrong"),
                         [(check, mistake, wrong) for check, cases in WRONG.items() for mistake, wrong in cases],
                         ids=[f"{check}: {mistake}" for check, cases in WRONG.items() for mistake, _ in cases])
def test_a_classic_mistake_fails(check, mistake, wrong, capsys):
    wrong.__name__ = check
    with np.errstate(all="ignore"), pytest.raises(ExerciseCheckFailed, match=check):
        getattr(exercise_checks, check)(wrong, rng=np.random.default_rng(0))
    out = capsys.readouterr().out
    assert f"pass: {check} agrees" not in out
    if check == "product_features" and "factorization" not in mistake:
        assert "against K₁ ∘ K₂) agrees" not in out  # the shape part may pass, the Gram part not


# --- what the messages teach ----------------------------------------------------------------------------------------

def test_the_eigenvalue_check_names_the_kernel_it_fails_on():
    def min_gram_eigenvalue(kappa, inputs):
        return np.linalg.eigvalsh(_gram(kappa, inputs))[-1]

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)disagrees.*kappa = κ\(x, x′\) = .*inputs = array"):
        exercise_checks.min_gram_eigenvalue(min_gram_eigenvalue, rng=np.random.default_rng(0))


def test_the_product_check_reports_a_wrong_number_of_columns_as_a_shape():
    def product_features(features1, features2):
        return np.hstack([features1, features2])

    with pytest.raises(ExerciseCheckFailed,
                       match=r"(?s)the shape \(N, M₁M₂\) of its features\) has the wrong shape.*features1 = "):
        exercise_checks.product_features(product_features, rng=np.random.default_rng(0))


def test_the_product_check_compares_gram_matrices_when_the_shape_is_right():
    def product_features(Phi1, Phi2):
        return np.einsum("ia,jb->iab", Phi1, Phi2).reshape(len(Phi1), -1)

    with pytest.raises(ExerciseCheckFailed, match=r"ΦΦᵀ, the Gram matrix of its features, against K₁ ∘ K₂\) disagrees"):
        exercise_checks.product_features(product_features, rng=np.random.default_rng(0))


def test_the_product_check_rejects_a_factorization_of_the_gram_matrix_on_a_new_input(capsys):
    with pytest.raises(ExerciseCheckFailed, match=r"a new input's features against the others'.*\) disagrees"):
        exercise_checks.product_features(lambda Phi1, Phi2: _factorized_gram(Phi1, Phi2), rng=np.random.default_rng(0))
    assert "against K₁ ∘ K₂) agrees" in capsys.readouterr().out  # the factorization passes the Gram part


def test_the_product_check_reports_an_error_in_the_readers_code():
    def product_features(Phi1, Phi2):
        return (Phi1[:, :, None] * Phi2[:, None, :]).reshape(3, -1)  # 3 rows, whatever N

    with pytest.raises(ExerciseCheckFailed, match=r"product_features raised ValueError") as caught:
        exercise_checks.product_features(product_features, rng=np.random.default_rng(0))
    assert isinstance(caught.value.__cause__, ValueError)


def test_the_product_check_says_to_return_the_features():
    def product_features(Phi1, Phi2):
        np.einsum("ia,ib->iab", Phi1, Phi2).reshape(len(Phi1), -1)

    with pytest.raises(ExerciseCheckFailed, match="did you forget `return`"):
        exercise_checks.product_features(product_features, rng=np.random.default_rng(0))


# --- the references -----------------------------------------------------------------------------------------------

def _candidates(count=25):
    rng = np.random.default_rng(5)
    return [exercise_checks.ch3._gram_inputs(rng, size) for size in range(1, count + 1)]


@pytest.mark.parametrize(("kernel", "X"), _candidates(), ids=lambda v: repr(v) if callable(v) else str(v.shape))
def test_the_eigenvalue_reference_agrees_with_scipy(kernel, X):
    K = _gram(kernel, X)
    np.testing.assert_array_equal(K, K.T)  # every candidate is symmetric: eigvalsh reads all of K
    expected = linalg.eigh(K, eigvals_only=True)[0]
    np.testing.assert_allclose(exercise_checks.ch3._min_gram_eigenvalue(kernel, X), expected, rtol=1e-9, atol=1e-10)


def test_the_candidates_are_kernels_or_not_as_their_formulas_say():
    smallest = {}
    for kernel, X in _candidates(60):
        family = repr(kernel).split("= ", 1)[1][:4]  # "exp(", "(xᵀx", "tanh", "−‖x ", "xᵀx′"
        smallest[family] = min(smallest.get(family, np.inf), exercise_checks.ch3._min_gram_eigenvalue(kernel, X))
    assert len(smallest) == 5
    for family in ("exp(", "(xᵀx", "xᵀx′"):
        assert smallest[family] > -1e-9, family  # RBF, polynomial, linear: positive semi-definite
    for family in ("tanh", "−‖x "):
        assert smallest[family] < -0.1, family  # not kernels: some Gram matrix has a negative eigenvalue


def test_a_candidates_formula_is_what_it_computes():
    rng = np.random.default_rng(2)
    x, z = rng.normal(size=2), rng.normal(size=2)
    for size in range(1, 41):  # every family, tanh with offsets of both signs
        kernel, _ = exercise_checks.ch3._gram_inputs(np.random.default_rng(size), size)
        formula = repr(kernel).split("= ", 1)[1]
        if formula.startswith("exp"):
            s = float(formula.split("·")[1].split("²")[0])
            expected = np.exp(-np.sum((x - z) ** 2) / (2 * s**2))
        elif formula.startswith("("):
            c, d = formula.split("+ ")[1].split(")^")
            expected = (x @ z + float(c)) ** int(d)
        elif formula.startswith("tanh"):
            a, b = formula[5:-1].split("·xᵀx′ ")
            expected = np.tanh(float(a) * (x @ z) + float(b.replace("− ", "-").replace("+ ", "")))
        elif formula.startswith("−"):
            expected = -np.sum((x - z) ** 2)
        else:
            expected = x @ z
        assert kernel(x, z) == pytest.approx(expected, rel=1e-12), formula


@pytest.mark.parametrize(("N", "m"), [(1, 1), (5, 2), (8, 3)])
def test_product_features_of_a_linear_map_with_itself_are_the_squared_linear_kernel(N, m):
    """(xᵀx′)² is the product of the linear kernel with itself; its features are the products x_a x_b."""
    X = np.random.default_rng(N).normal(size=(N, m))
    Phi = exercise_checks.ch3._product_features(X, X)
    assert Phi.shape == (N, m * m)
    np.testing.assert_allclose(Phi @ Phi.T, (X @ X.T) ** 2, rtol=1e-12)
    np.testing.assert_allclose(exercise_checks.ch3._product_gram(X, X), (X @ X.T) ** 2, rtol=1e-12)


@pytest.mark.parametrize("size", [1, 4, 9, 20])
def test_the_product_gram_is_the_gram_of_the_product_features(size):
    Phi1, Phi2 = exercise_checks.ch3._feature_map_inputs(np.random.default_rng(size), size)
    Phi = exercise_checks.ch3._product_features(Phi1, Phi2)
    assert Phi.shape == (len(Phi1), Phi1.shape[1] * Phi2.shape[1])
    np.testing.assert_allclose(Phi @ Phi.T, exercise_checks.ch3._product_gram(Phi1, Phi2), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("N", "M"), [(1, 1), (4, 2), (6, 9), (20, 3)])
def test_the_bias_reference_is_chapter_1s_ridge_with_an_unpenalized_bias(N, M):
    """w = Φᵀa and w₀ = b: the primal of (3.<eq-krr-primal>) with a bias, solved by chapter 1's normal equations."""
    rng = np.random.default_rng(N + M)
    Phi, y, l2 = rng.normal(size=(N, M)) + 1.0, rng.normal(size=N) + 2.0, 0.3
    ab = exercise_checks.ch3._kernel_ridge_bias(Phi @ Phi.T, y, l2)
    a, b = ab[:-1], ab[-1]
    w = regression.normal_equations(Phi, y, l2=l2)  # (w₀, w₁, …), w₀ not penalized
    assert abs(a.sum()) < 1e-10
    np.testing.assert_allclose(b, w[0], rtol=1e-9, atol=1e-10)
    np.testing.assert_allclose(Phi.T @ a, w[1:], rtol=1e-9, atol=1e-10)


@pytest.mark.parametrize("size", [1, 3, 8, 20])
def test_without_the_bias_row_the_reference_is_scikit_learns_kernel_ridge(size):
    """The constraint row and column dropped leave (K + λI)a = y, what KernelRidge solves (it has no bias)."""
    K, y, l2 = exercise_checks.ch3._kernel_ridge_inputs(np.random.default_rng(size), size)
    model = KernelRidge(alpha=l2, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(np.linalg.solve(K + l2 * np.eye(len(y)), y), model.dual_coef_, rtol=1e-8, atol=1e-10)
    ab = exercise_checks.ch3._kernel_ridge_bias(K, y, l2)
    np.testing.assert_allclose((K + l2 * np.eye(len(y))) @ ab[:-1] + ab[-1], y, rtol=1e-9, atol=1e-9)


def _svm_cost(X, y, w, C):
    return 0.5 * np.sum(w[1:] ** 2) + C * np.sum(np.maximum(0.0, 1 - y * (w[0] + X @ w[1:])) ** 2)


@pytest.mark.parametrize("size", [1, 2, 7, 20])
def test_the_squared_hinge_reference_is_the_gradient_of_the_cost(size):
    X, y, w, C = exercise_checks.ch3._svm_inputs(np.random.default_rng(size), size)
    h = 1e-8  # central differences: a step far below the 10⁻⁶ gap never crosses a kink
    numeric = np.array([(_svm_cost(X, y, w + h * e, C) - _svm_cost(X, y, w - h * e, C)) / (2 * h)
                        for e in np.eye(len(w))])
    np.testing.assert_allclose(exercise_checks.ch3._squared_hinge_gradient(X, y, w, C), numeric, rtol=1e-5, atol=1e-5)


def test_the_squared_hinge_reference_vanishes_at_scipys_minimum():
    """J₂ is convex and continuously differentiable: SciPy's minimiser, which never sees the reference, finds a point
    where the reference gradient is zero, with several examples inside their margins."""
    from scipy.optimize import minimize

    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + 0.5 * rng.normal(size=40) > 0.2, 1, -1)
    w = minimize(lambda v: _svm_cost(X, y, v, 0.7), np.zeros(3), method="Nelder-Mead",
                 options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 20_000}).x
    assert np.sum(y * (w[0] + X @ w[1:]) < 1) >= 5
    np.testing.assert_allclose(exercise_checks.ch3._squared_hinge_gradient(X, y, w, 0.7), 0.0, atol=1e-6)


def test_the_svm_inputs_have_margins_on_both_sides_of_one():
    rng = np.random.default_rng(0)
    inside = outside = 0
    for size in range(1, 21):
        X, y, w, _ = exercise_checks.ch3._svm_inputs(rng, size)
        assert set(np.unique(y)) <= {-1, 1}
        margins = y * (w[0] + X @ w[1:])
        inside, outside = inside + np.sum(margins < 1), outside + np.sum(margins > 1)
    assert inside > 20 and outside > 20


def test_the_first_editions_subgradient_check_still_accepts_the_subgradient_and_rejects_the_squared_hinge():
    """Student copies made from the first edition still call ``svm_subgradient``."""
    def subgradient(X, y, w, C):
        violating = y * (w[0] + X @ w[1:]) < 1
        return np.r_[-C * y[violating].sum(), w[1:] - C * X[violating].T @ y[violating]]

    exercise_checks.svm_subgradient(subgradient, rng=np.random.default_rng(0))
    with pytest.raises(ExerciseCheckFailed):
        exercise_checks.svm_subgradient(squared_hinge_gradient, rng=np.random.default_rng(0))
