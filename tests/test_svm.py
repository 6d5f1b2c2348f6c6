"""Tests of implementations.kernel_methods.svm: the hinge-loss primal, SMO on the dual, the KKT conditions and the
kernel SVM.

Checked against scikit-learn's SVC (LIBSVM: the same dual, solved by SMO with the same second-order working-set
selection and the same stopping rule b_lower(α) − b_upper(α) < tol), against central finite differences and the
subgradient inequality, and against two facts of convex duality: weak duality and the bound on the duality
gap by the KKT violations, 0 <= P(w) − D(α) <= C Σᵢ violationᵢ (derived in ``test_duality_gap_is_bounded_by_the_kkt``).
"""

import numpy as np
import pytest
from sklearn.svm import SVC

from implementations.kernel_methods import svm
from implementations.linear.regression import add_bias


def blobs(N, m, separation, seed):
    """Two Gaussian blobs of N/2 points each, labels −1 and +1, centres `separation` apart along the first axis."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(N) < N // 2, -1, 1)  # (N,)
    X = rng.normal(size=(N, m))  # (N, m)
    X[:, 0] += separation / 2 * y
    return X, y


def rbf(A, B, width):
    """exp(−‖a − b‖² / (2s²)) for every pair of rows, computed directly (independent of kernel_methods.kernels)."""
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(-1) / (2 * width**2))  # (N, N′)


def dual_objective(K, y, alpha):
    """Σαᵢ − ½ ΣΣ αᵢαⱼ y⁽ⁱ⁾y⁽ʲ⁾ K_ij, eq. (3.18)."""
    ay = alpha * y
    return alpha.sum() - 0.5 * ay @ K @ ay


# (name, N, separation, kernel width or None for the linear kernel, C): the separable problem has α < C everywhere
DUAL_PROBLEMS = [
    ("separable, linear", 40, 6.0, None, 100.0),
    ("overlapping, linear", 120, 1.5, None, 1.0),
    ("overlapping, linear, small C", 200, 1.0, None, 0.05),
    ("overlapping, RBF", 150, 1.5, 0.7, 3.0),
    ("separable, RBF", 60, 6.0, 1.5, 1000.0),
]
LINEAR_PROBLEMS = [p for p in DUAL_PROBLEMS if p[3] is None]  # the primal weights w = Σαᵢy⁽ⁱ⁾x⁽ⁱ⁾ exist in closed form


def gram(X, Z, width):
    return X @ Z.T if width is None else rbf(X, Z, width)


def solve(problem):
    """The problem's data, Gram matrix, α and b from fit_svm_dual, and SVC fitted to the same Gram matrix."""
    name, N, separation, width, C = problem
    X, y = blobs(N, 2, separation, seed=N)
    X_new, _ = blobs(30, 2, separation, seed=N + 1)
    K = gram(X, X, width)  # (N, N)
    alpha, b = svm.fit_svm_dual(K, y, C=C, tol=1e-8)
    reference = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y)
    return {"name": name, "X": X, "y": y, "X_new": X_new, "width": width, "C": C, "K": K, "alpha": alpha, "b": b,
            "reference": reference}


# --- the hinge loss and the primal cost ------------------------------------------------------------------------


def test_hinge_values_and_shape():
    z = np.array([[-2.0, 0.0, 0.5], [1.0, 1.5, 30.0]])
    np.testing.assert_array_equal(svm.hinge(z), [[3.0, 1.0, 0.5], [0.0, 0.0, 0.0]])
    assert svm.hinge(0.25) == 0.75


@pytest.mark.parametrize(("N", "m"), [(10, 1), (40, 3), (25, 7)])
def test_primal_cost_matches_its_definition_and_spares_the_bias(N, m):
    X, y = blobs(N, m, 1.0, seed=m)
    w = np.random.default_rng(m).normal(size=m + 1)
    expected = 0.5 * np.sum(w[1:] ** 2) + 0.7 * sum(max(0.0, 1 - y[i] * (w[0] + X[i] @ w[1:])) for i in range(N))
    assert svm.svm_primal_cost(X, y, w, C=0.7) == pytest.approx(expected, rel=1e-13)
    assert svm.svm_primal_cost(X, (y + 1) // 2, w, C=0.7) == pytest.approx(expected, rel=1e-13)  # labels 0/1
    far = np.r_[1e6, np.zeros(m)]  # a huge bias: only the hinge terms of the class −1 change, no penalty
    assert svm.svm_primal_cost(X, y, far, C=1.0) == pytest.approx(np.sum(y < 0) * (1 + 1e6), rel=1e-13)


# --- the subgradient -------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("N", "m", "C"), [(20, 1, 1.0), (50, 3, 0.3), (30, 6, 5.0)])
def test_subgradient_matches_central_differences_away_from_the_kinks(N, m, C):
    X, y = blobs(N, m, 1.0, seed=N)
    rng = np.random.default_rng(N)
    for _ in range(5):
        w = rng.normal(size=m + 1)
        z = y * (add_bias(X) @ w)
        assert np.abs(1 - z).min() > 1e-3  # no margin within 10⁻³ of the kink, where J is smooth
        h = 1e-6
        numeric = np.array([(svm.svm_primal_cost(X, y, w + h * e, C=C) - svm.svm_primal_cost(X, y, w - h * e, C=C))
                            / (2 * h) for e in np.eye(m + 1)])
        np.testing.assert_allclose(svm.svm_primal_subgradient(X, y, w, C=C), numeric, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("m", [1, 2, 4])
def test_subgradient_at_a_kink_is_a_valid_subgradient_with_the_kink_counted_out(m):
    """At z = 1 the function returns the slope-0 choice, and J(v) >= J(w) + gᵀ(v − w) holds for every v."""
    X, y = blobs(30, m, 1.0, seed=m)
    rng = np.random.default_rng(m)
    X[0] = 0.0  # example 0 at the origin, where f(x⁽⁰⁾) = w₀ exactly
    w = np.r_[y[0], rng.normal(size=m)]  # f(x⁽⁰⁾) = y⁽⁰⁾: the margin of example 0 is exactly 1
    assert y[0] * (add_bias(X[:1]) @ w)[0] == 1.0
    g = svm.svm_primal_subgradient(X, y, w, C=2.0)
    np.testing.assert_allclose(g, svm.svm_primal_subgradient(X[1:], y[1:], w, C=2.0), rtol=1e-12, atol=1e-12)
    J = svm.svm_primal_cost(X, y, w, C=2.0)
    for v in w + rng.normal(size=(200, m + 1)) * rng.choice([1e-4, 1e-2, 1.0], size=(200, 1)):
        assert svm.svm_primal_cost(X, y, v, C=2.0) >= J + g @ (v - w) - 1e-10


# --- subgradient descent on the primal ------------------------------------------------------------------------


@pytest.mark.parametrize(("N", "m", "separation", "C"),
                         [(100, 2, 3.0, 1.0), (200, 2, 1.5, 0.1), (150, 5, 2.0, 1.0), (300, 3, 1.0, 0.3)])
def test_fit_svm_primal_reaches_the_optimal_cost_of_sklearn(N, m, separation, C):
    X, y = blobs(N, m, separation, seed=N + m)
    reference = SVC(kernel="linear", C=C, tol=1e-10).fit(X, y)
    w_star = np.r_[reference.intercept_, reference.coef_[0]]  # (m + 1,) bias first
    J_star = svm.svm_primal_cost(X, y, w_star, C=C)
    w, history = svm.fit_svm_primal(X, y, C=C, eta=1.0, num_iters=3000)
    J = svm.svm_primal_cost(X, y, w, C=C)
    assert history.shape == (3000,)
    assert J == pytest.approx(history.min(), rel=1e-12)  # the best iterate is returned
    assert J_star * (1 - 1e-9) <= J <= J_star * (1 + 1e-3)
    # J is 1-strongly convex in w_{1:}, so ½‖w_{1:} − w*_{1:}‖² <= J(w) − J*: the cost bounds the error of the weights
    assert np.linalg.norm(w[1:] - w_star[1:]) <= np.sqrt(2 * (J - J_star)) + 1e-6
    assert abs(w[0] - w_star[0]) < 0.05  # the unpenalised bias converges more slowly: a looser tolerance


def test_fit_svm_primal_cost_history_is_not_monotone():
    X, y = blobs(100, 2, 1.5, seed=3)
    _, history = svm.fit_svm_primal(X, y, C=1.0, eta=1.0, num_iters=500)
    assert np.any(np.diff(history) > 0)  # subgradient steps can raise the cost


def test_fit_svm_primal_accepts_labels_0_1():
    X, y = blobs(60, 2, 2.0, seed=1)
    w_pm, _ = svm.fit_svm_primal(X, y, C=1.0, eta=1.0, num_iters=200)
    w_01, _ = svm.fit_svm_primal(X, (y + 1) // 2, C=1.0, eta=1.0, num_iters=200)
    np.testing.assert_array_equal(w_pm, w_01)


def test_fit_svm_primal_refuses_a_diverging_step():
    X, y = blobs(50, 2, 1.0, seed=0)
    with pytest.raises(FloatingPointError, match=r"diverged at step \d+.*eta=1000 is too large"):
        svm.fit_svm_primal(X, y, C=1.0, eta=1000.0, num_iters=100)


# --- SMO against LIBSVM --------------------------------------------------------------------------------------


@pytest.mark.parametrize("problem", DUAL_PROBLEMS, ids=[p[0] for p in DUAL_PROBLEMS])
def test_fit_svm_dual_matches_sklearn(problem):
    """Same support vectors, αᵢy⁽ⁱ⁾ = dual_coef_, b = intercept_, same decision function.

    Both solvers stop at b_lower(α) − b_upper(α) < 10⁻⁸, not at the exact optimum, and when K is nearly singular (the
    linear kernel in 2-D) α is determined less well than the decision function: 10⁻⁴ on α, 10⁻⁵ on b and on f leave
    room for that and would still catch any wrong support vector or clipping.
    """
    p = solve(problem)
    alpha, b, reference = p["alpha"], p["b"], p["reference"]
    support = np.flatnonzero(alpha > 0)
    np.testing.assert_array_equal(support, np.sort(reference.support_))
    order = np.argsort(reference.support_)
    np.testing.assert_allclose((alpha * p["y"])[support], reference.dual_coef_[0][order], atol=1e-4)
    assert b == pytest.approx(reference.intercept_[0], abs=1e-5)
    K_new = gram(p["X_new"], p["X"], p["width"])  # (30, N)
    np.testing.assert_allclose(svm.svm_decision_function(K_new, p["y"], alpha, b),
                               reference.decision_function(K_new), atol=1e-5)
    if p["name"].startswith("separable"):  # a hard margin: no multiplier at C, every training point beyond its margin
        assert np.all(alpha < p["C"])
        assert np.all(p["y"] * svm.svm_decision_function(p["K"], p["y"], alpha, b) > 1 - 1e-7)


@pytest.mark.parametrize("problem", DUAL_PROBLEMS, ids=[p[0] for p in DUAL_PROBLEMS])
def test_fit_svm_dual_satisfies_the_kkt_conditions_and_the_constraint(problem):
    p = solve(problem)
    alpha, C = p["alpha"], p["C"]
    assert np.all((alpha >= 0) & (alpha <= C))
    violation, residual = svm.kkt_violations(p["K"], p["y"], alpha, p["b"], C=C)
    assert violation.max() < 1e-8  # every violation is at most the gap b_lower(α) − b_upper(α) < tol
    assert residual < 1e-12 * max(1.0, alpha.sum())  # Σαᵢy⁽ⁱ⁾ = 0 to round-off: every SMO step keeps it


@pytest.mark.parametrize("problem", LINEAR_PROBLEMS, ids=[p[0] for p in LINEAR_PROBLEMS])
def test_duality_gap_is_bounded_by_the_kkt(problem):
    """For the linear kernel, w = Σαᵢy⁽ⁱ⁾x⁽ⁱ⁾ and b give a primal cost P(w) equal to the dual objective D(α).

    With zᵢ = y⁽ⁱ⁾f(x⁽ⁱ⁾) and Σαᵢy⁽ⁱ⁾ = 0, Σαᵢ(1 − zᵢ) = Σαᵢ − ‖w‖², so P − D = Σᵢ [C max(0, 1 − zᵢ) − αᵢ(1 − zᵢ)]; each
    term is at most C times the KKT violation of example i (check the three cases), and P − D >= 0 (weak duality).
    """
    p = solve(problem)
    alpha, b, C, y = p["alpha"], p["b"], p["C"], p["y"]
    w = np.r_[b, (alpha * y) @ p["X"]]  # (3,): the stationarity condition w = Σαᵢy⁽ⁱ⁾x⁽ⁱ⁾
    P, D = svm.svm_primal_cost(p["X"], y, w, C=C), dual_objective(p["K"], y, alpha)
    violation, _ = svm.kkt_violations(p["K"], y, alpha, b, C=C)
    assert -1e-9 * P <= P - D <= C * violation.sum() + 1e-9 * P
    assert P == pytest.approx(D, rel=1e-6)


def test_fit_svm_dual_reads_labels_0_1_as_minus_1_plus_1():
    X, y = blobs(80, 2, 2.0, seed=5)
    K = rbf(X, X, 1.0)
    alpha_pm, b_pm = svm.fit_svm_dual(K, y, C=1.0)
    alpha_01, b_01 = svm.fit_svm_dual(K, (y + 1) // 2, C=1.0)
    np.testing.assert_array_equal(alpha_pm, alpha_01)
    assert b_pm == b_01


def test_fit_svm_dual_stops_at_the_requested_gap():
    """A looser tol allows larger (but bounded) KKT violations; at 10⁻⁶ the support is already that of 10⁻⁸."""
    X, y = blobs(150, 2, 1.5, seed=9)
    K = rbf(X, X, 0.7)
    supports = {}
    for tol in (1e-2, 1e-4, 1e-6, 1e-8):
        alpha, b = svm.fit_svm_dual(K, y, C=3.0, tol=tol)
        assert svm.kkt_violations(K, y, alpha, b, C=3.0)[0].max() < tol
        supports[tol] = np.flatnonzero(alpha > 0)
    np.testing.assert_array_equal(supports[1e-6], supports[1e-8])


@pytest.mark.parametrize("C", [0.5, 10.0])
def test_fit_svm_dual_with_duplicate_inputs_matches_sklearn(C):
    """Repeated inputs make q_ij = K_ii + K_jj − 2K_ij = 0 for some pairs, the case SMO replaces by 10⁻¹²."""
    X, y = blobs(40, 2, 1.5, seed=21)
    X = np.vstack([X, X[:10]])  # (50, 2): the first ten inputs twice, with the same labels
    y = np.r_[y, y[:10]]
    X[-1], y[-1] = X[25], -y[25]  # and one input with both labels (blobs puts class +1 from index 20)
    K = rbf(X, X, 1.0)
    alpha, b = svm.fit_svm_dual(K, y, C=C, tol=1e-8)
    reference = SVC(kernel="precomputed", C=C, tol=1e-8).fit(K, y)
    X_new, _ = blobs(30, 2, 1.5, seed=22)
    K_new = rbf(X_new, X, 1.0)  # (30, 50)
    np.testing.assert_allclose(svm.svm_decision_function(K_new, y, alpha, b), reference.decision_function(K_new),
                               atol=1e-5)
    assert b == pytest.approx(reference.intercept_[0], abs=1e-5)
    assert svm.kkt_violations(K, y, alpha, b, C=C)[0].max() < 1e-8


@pytest.mark.parametrize("name", ["tanh(xᵀx′ − 1)", "−‖x − x′‖²"])
def test_fit_svm_dual_on_a_matrix_that_is_not_psd_stops_feasible(name):
    """Not a kernel: some q_ij <= 0, replaced by 10⁻¹², so the step runs to the box. SMO must still stop, at a
    feasible α (in the box, Σ αᵢy⁽ⁱ⁾ = 0) with a finite b, never loop or return NaN."""
    X, y = blobs(40, 2, 0.5, seed=23)  # overlapping classes
    K = np.tanh(X @ X.T - 1.0) if name.startswith("tanh") else -np.sum((X[:, None] - X[None]) ** 2, axis=-1)
    assert np.linalg.eigvalsh(K)[0] < -1e-3  # truly not PSD, and q_ij <= 0 for some pairs
    assert np.min(np.diag(K)[:, None] + np.diag(K)[None, :] - 2 * K) <= 0
    alpha, b = svm.fit_svm_dual(K, y, C=1.0, max_iter=10_000)
    assert np.all((alpha >= 0) & (alpha <= 1.0)) and np.any(alpha > 0)
    assert abs(alpha @ y) < 1e-12 and np.isfinite(b)


# --- KKT violations and the decision function, against loops ---------------------------------------------------


@pytest.mark.parametrize("N", [5, 12, 30])
def test_kkt_violations_against_a_loop(N):
    X, y = blobs(N, 2, 1.0, seed=N)
    K = X @ X.T + 1.0
    rng = np.random.default_rng(N)
    C = 2.0
    alpha = rng.choice([0.0, C, 0.7, 1.3], size=N)  # every category: at 0, at C, free
    b = 0.3
    expected = []
    for i in range(N):
        z = y[i] * (sum(alpha[j] * y[j] * K[i, j] for j in range(N)) + b)
        expected.append(max(0.0, 1 - z) if alpha[i] == 0 else max(0.0, z - 1) if alpha[i] == C else abs(1 - z))
    violation, residual = svm.kkt_violations(K, y, alpha, b, C=C)
    np.testing.assert_allclose(violation, expected, rtol=1e-12, atol=1e-12)
    assert residual == pytest.approx(abs(np.sum(alpha * y)), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize(("N", "N_new"), [(4, 1), (10, 7), (25, 3)])
def test_decision_function_against_a_loop(N, N_new):
    X, y = blobs(N, 3, 1.0, seed=N)
    X_new, _ = blobs(N_new + 1, 3, 1.0, seed=N + 1)
    K_cross = rbf(X_new[:N_new], X, 0.8)  # (N′, N)
    alpha = np.random.default_rng(N).uniform(0, 1, size=N)
    f = svm.svm_decision_function(K_cross, (y + 1) // 2, alpha, -0.25)
    expected = [sum(alpha[i] * y[i] * K_cross[k, i] for i in range(N)) - 0.25 for k in range(N_new)]
    np.testing.assert_allclose(f, expected, rtol=1e-12, atol=1e-14)


# --- KernelSVM against sklearn's SVC with its own RBF kernel -------------------------------------------------


@pytest.mark.parametrize(("width", "C"), [(0.3, 1.0), (1.0, 10.0), (2.0, 0.1)])
def test_kernel_svm_matches_sklearn_rbf(width, C):
    X, y = blobs(120, 2, 1.5, seed=11)
    X_new, _ = blobs(200, 2, 1.5, seed=12)
    model = svm.KernelSVM(lambda A, B: rbf(A, B, width), C=C, tol=1e-8).fit(X, y)
    reference = SVC(kernel="rbf", gamma=1 / (2 * width**2), C=C, tol=1e-8).fit(X, y)
    np.testing.assert_array_equal(model.support_, np.sort(reference.support_))
    np.testing.assert_array_equal(model.support_vectors_, X[model.support_])
    f, f_reference = model.decision_function(X_new), reference.decision_function(X_new)
    np.testing.assert_allclose(f, f_reference, atol=1e-5)
    decided = np.abs(f_reference) > 1e-4  # a point within 10⁻⁴ of the boundary may fall either way
    np.testing.assert_array_equal(model.predict(X_new)[decided], reference.predict(X_new)[decided])
    assert model.intercept_ == pytest.approx(reference.intercept_[0], abs=1e-5)


@pytest.mark.parametrize("coding", [(0, 1), (-1, 1)])
def test_kernel_svm_returns_labels_in_the_coding_it_was_given(coding):
    X, y = blobs(60, 2, 3.0, seed=2)
    y_coded = np.where(y > 0, coding[1], coding[0])
    model = svm.KernelSVM(lambda A, B: rbf(A, B, 1.0), C=1.0).fit(X, y_coded)
    predicted = model.predict(X)
    assert set(np.unique(predicted)) == set(coding)
    np.testing.assert_array_equal(predicted, np.where(model.decision_function(X) >= 0, coding[1], coding[0]))
    assert np.mean(predicted == y_coded) > 0.9


def test_kernel_svm_keeps_only_the_support_vectors():
    X, y = blobs(100, 2, 4.0, seed=4)
    K = rbf(X, X, 1.0)
    alpha, b = svm.fit_svm_dual(K, y, C=1.0)
    model = svm.KernelSVM(lambda A, B: rbf(A, B, 1.0), C=1.0).fit(X, y)
    assert len(model.support_) < len(y) // 2
    np.testing.assert_allclose(model.dual_coef_, (alpha * y)[alpha > 0], rtol=1e-12)
    np.testing.assert_allclose(model.decision_function(X), svm.svm_decision_function(K, y, alpha, b), atol=1e-12)


# --- bad input ------------------------------------------------------------------------------------------------


def small_problem():
    X, y = blobs(10, 2, 1.0, seed=0)
    return X, y, X @ X.T


@pytest.mark.parametrize("C", [0.0, -1.0])
def test_nonpositive_C_is_refused(C):
    X, y, K = small_problem()
    with pytest.raises(ValueError, match="C must be a finite number > 0"):
        svm.fit_svm_dual(K, y, C=C)
    with pytest.raises(ValueError, match="C must be a finite number > 0"):
        svm.fit_svm_primal(X, y, C=C, eta=1.0, num_iters=10)
    with pytest.raises(ValueError, match="C must be a finite number > 0"):
        svm.KernelSVM(lambda A, B: A @ B.T, C=C)


def test_non_square_or_asymmetric_gram_is_refused():
    X, y, K = small_problem()
    with pytest.raises(ValueError, match=r"K has 9 entries along axis 1, but K's axis 0 gives N = 10.*shape \(N, N\)"):
        svm.fit_svm_dual(K[:, :9], y, C=1.0)
    K_bad = K.copy()
    K_bad[0, 1] += 0.1
    with pytest.raises(ValueError, match="K must be symmetric"):
        svm.fit_svm_dual(K_bad, y, C=1.0)


@pytest.mark.parametrize(("labels", "message"), [
    ([1, 2], "y must hold the labels −1 and \\+1 \\(or 0 and 1.*received the values 1, 2"),
    ([1, 1], "y holds a single class \\(every label is 1\\)"),
    ([0, 0], "y holds a single class \\(every label is 0\\)"),
    ([-1, 0, 1], "received the values -1, 0, 1"),
    ([0, 0.5], "received the values 0, 0.5"),
])
def test_bad_labels_are_refused_by_name(labels, message):
    X, _, K = small_problem()
    y = np.resize(labels, 10)
    with pytest.raises(ValueError, match=message):
        svm.fit_svm_dual(K, y, C=1.0)
    with pytest.raises(ValueError, match=message):
        svm.KernelSVM(lambda A, B: A @ B.T, C=1.0).fit(X, y)


def test_too_few_iterations_raise_with_a_fix():
    X, y = blobs(100, 2, 1.0, seed=0)
    with pytest.raises(ValueError, match=r"SMO did not converge within max_iter=5 pair updates.*Increase max_iter"):
        svm.fit_svm_dual(rbf(X, X, 1.0), y, C=1.0, max_iter=5)


def test_predict_before_fit_is_refused():
    model = svm.KernelSVM(lambda A, B: A @ B.T, C=1.0)
    with pytest.raises(ValueError, match="not fitted yet.*Call model.fit"):
        model.predict(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="not fitted yet"):
        model.decision_function(np.zeros((2, 2)))


def test_kernel_must_be_callable():
    with pytest.raises(TypeError, match="kernel must be a kernel function"):
        svm.KernelSVM("rbf", C=1.0)


def test_multipliers_outside_the_box_are_refused():
    _, y, K = small_problem()
    with pytest.raises(ValueError, match=r"alpha must lie in the box \[0, C\] with C=1"):
        svm.kkt_violations(K, y, np.full(10, 1.5), 0.0, C=1.0)


def test_decision_function_in_blocks_equals_one_gram_block():
    """More than 2048 new inputs go through the kernel in blocks of rows; f is that of one (N′, S) block."""
    X, y = blobs(80, 2, 1.5, seed=30)
    model = svm.KernelSVM(lambda A, B: rbf(A, B, 0.8), C=1.0).fit(X, y)
    X_new = np.random.default_rng(31).normal(size=(5000, 2))  # (5000, 2): three blocks, the last one partial
    f_one_block = rbf(X_new, model.support_vectors_, 0.8) @ model.dual_coef_ + model.intercept_  # (5000,)
    np.testing.assert_allclose(model.decision_function(X_new), f_one_block, rtol=1e-12, atol=1e-12)


def test_kernel_svm_refuses_a_kernel_whose_gram_matrix_is_not_symmetric():
    X, y = blobs(10, 2, 1.0, seed=0)
    with pytest.raises(ValueError, match="K must be symmetric"):
        svm.KernelSVM(lambda A, B: A @ B.T + A[:, :1], C=1.0).fit(X, y)  # κ(x, z) = xᵀz + x₁: not symmetric
