"""Tests of implementations.kernel_methods.kernels: kernel functions, kernel ridge regression and random Fourier
features.

Checked against scikit-learn (``pairwise_kernels`` and ``KernelRidge``), against explicit feature maps built here
from the multinomial theorem (the polynomial kernel and the representer identity w = Φᵀ𝐚), against the definition
of a positive semi-definite kernel (eigenvalues of Gram matrices), and against the Monte Carlo rate 1/√M of random
Fourier features, with wrong versions of the map that the same bound must reject.
"""

import itertools
import math

import numpy as np
import pytest
from sklearn.kernel_ridge import KernelRidge as SkKernelRidge
from sklearn.metrics.pairwise import pairwise_kernels

from implementations import data
from implementations.kernel_methods import kernels
from implementations.preliminaries import svd

# (N, N′, m): N ≠ N′, a single row, a single feature
SHAPES = [(5, 3, 2), (7, 7, 1), (20, 9, 4), (1, 6, 3), (12, 1, 5)]


def inputs(N, N_prime, m, seed=0):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(N, m)), rng.normal(size=(N_prime, m))  # (N, m), (N′, m)


def explicit_polynomial_map(X, degree, offset):
    """φ(x) with φ(x)ᵀφ(z) = (xᵀz + c)^d, from the multinomial theorem.

    (Σⱼ xⱼzⱼ + c)^d = Σ over exponent vectors p (|p| <= d) of d! / (p₁!⋯p_m! (d − |p|)!) · c^(d − |p|) · Πⱼ (xⱼzⱼ)^pⱼ,
    so the feature of p is the square root of its coefficient times the monomial x^p: C(m + d, d) features in all.
    """
    N, m = X.shape
    columns = []
    for p in itertools.product(range(degree + 1), repeat=m):
        rest = degree - sum(p)
        if rest < 0:
            continue
        coefficient = math.factorial(degree) / (math.prod(math.factorial(a) for a in p) * math.factorial(rest))
        columns.append(np.sqrt(coefficient * offset**rest) * np.prod(X ** np.array(p), axis=1))  # (N,)
    return np.column_stack(columns)  # (N, C(m + d, d))


# --- the kernel functions ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("N", "N_prime", "m"), SHAPES)
def test_linear_kernel_equals_sklearn(N, N_prime, m):
    X, Z = inputs(N, N_prime, m)
    K = kernels.linear_kernel(X, Z)
    assert K.shape == (N, N_prime)
    np.testing.assert_allclose(K, pairwise_kernels(X, Z, metric="linear"), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("N", "N_prime", "m"), SHAPES)
@pytest.mark.parametrize(("degree", "offset"), [(1, 0.0), (2, 1.0), (3, 0.5), (5, 2.0)])
def test_polynomial_kernel_equals_sklearn(N, N_prime, m, degree, offset):
    X, Z = inputs(N, N_prime, m, seed=1)
    K = kernels.polynomial_kernel(X, Z, degree=degree, offset=offset)
    expected = pairwise_kernels(X, Z, metric="poly", gamma=1.0, coef0=offset, degree=degree)
    assert K.shape == (N, N_prime)
    np.testing.assert_allclose(K, expected, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize(("N", "N_prime", "m"), SHAPES)
@pytest.mark.parametrize("width", [0.3, 1.0, 4.0])
def test_rbf_kernel_equals_sklearn(N, N_prime, m, width):
    X, Z = inputs(N, N_prime, m, seed=2)
    K = kernels.rbf_kernel(X, Z, width=width)
    expected = pairwise_kernels(X, Z, metric="rbf", gamma=1.0 / (2.0 * width**2))
    assert K.shape == (N, N_prime)
    np.testing.assert_allclose(K, expected, rtol=1e-10, atol=1e-14)


def test_rbf_kernel_equals_its_definition_by_differences():
    """The fast form ‖x‖² + ‖z‖² − 2xᵀz against the (N, N′, m) array of differences."""
    X, Z = inputs(6, 4, 3, seed=3)
    dist_sq = np.sum((X[:, None, :] - Z[None, :, :]) ** 2, axis=-1)  # (6, 4)
    np.testing.assert_allclose(kernels.rbf_kernel(X, Z, width=0.8), np.exp(-dist_sq / (2 * 0.8**2)), rtol=1e-12)


def test_rbf_kernel_clips_negative_squared_distances():
    """Two tight clusters far apart: shifting by the mean of X (≈ 0 here) cannot help, ‖x‖² + ‖z‖² − 2xᵀz cancels
    within each cluster, and without the clip some "distances" are negative, κ > 1."""
    rng = np.random.default_rng(4)
    X = np.vstack([1e4 + 1e-4 * rng.normal(size=(15, 2)), -1e4 + 1e-4 * rng.normal(size=(15, 2))])  # (30, 2)
    K = kernels.rbf_kernel(X, X, width=1.0)
    assert K.max() <= 1.0
    shifted = X - X.mean(axis=0)  # (30, 2): what rbf_kernel works with
    x_sq = np.sum(shifted**2, axis=1)
    unclipped = np.exp(-(x_sq[:, None] + x_sq[None, :] - 2 * shifted @ shifted.T) / 2)  # (30, 30): without the clip
    assert unclipped.max() > 1.0  # the test has teeth: the cancellation does happen on these inputs


@pytest.mark.parametrize("offset", [1e2, 1e4, -3e5])
def test_rbf_kernel_is_accurate_far_from_the_origin(offset):
    """κ depends only on x − z: inputs shifted far from the origin give the kernel of the unshifted ones, which the
    expansion ‖x‖² + ‖z‖² − 2xᵀz without a shift would lose to cancellation (0.999997 instead of 1 at 10⁴)."""
    X, Z = inputs(12, 8, 2, seed=17)
    X, Z = 0.1 * X, 0.1 * Z  # (12, 2), (8, 2): distances of the order of the width
    Z[:3] = X[:3]  # three rows of Z equal rows of X, where κ = 1
    dist_sq = np.sum((X[:, None, :] - Z[None, :, :]) ** 2, axis=-1)  # (12, 8): from differences, no cancellation
    expected = np.exp(-dist_sq / (2 * 0.1**2))
    K = kernels.rbf_kernel(X + offset, Z + offset, width=0.1)
    np.testing.assert_allclose(K, expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(np.diag(K[:3, :3]), 1.0, rtol=0, atol=1e-9)


KERNELS = {
    "linear": lambda X, Z: kernels.linear_kernel(X, Z),
    "polynomial d=3, c=1": lambda X, Z: kernels.polynomial_kernel(X, Z, degree=3, offset=1.0),
    "polynomial d=2, c=0": lambda X, Z: kernels.polynomial_kernel(X, Z, degree=2, offset=0.0),
    "rbf s=0.5": lambda X, Z: kernels.rbf_kernel(X, Z, width=0.5),
    "rbf s=3": lambda X, Z: kernels.rbf_kernel(X, Z, width=3.0),
}


def is_psd(K):
    """The criterion of the PSD test: no eigenvalue below −10⁻¹⁰ times the largest in magnitude."""
    eigenvalues = np.linalg.eigvalsh(K)
    return bool(eigenvalues.min() >= -1e-10 * np.abs(eigenvalues).max())


@pytest.mark.parametrize("name", KERNELS)
@pytest.mark.parametrize(("N", "m"), [(40, 2), (25, 5), (60, 1)])
def test_gram_matrix_is_symmetric_positive_semidefinite(name, N, m):
    X = np.random.default_rng(N + m).normal(size=(N, m))
    K = KERNELS[name](X, X)  # (N, N)
    np.testing.assert_allclose(K, K.T, rtol=1e-13, atol=0)
    assert is_psd(K)


def test_the_psd_criterion_rejects_functions_that_are_not_kernels():
    """The same criterion fails on the chapter's impostors, so the PSD test above can fail."""
    X = np.random.default_rng(5).normal(size=(40, 2))
    for not_a_kernel in (-np.sum((X[:, None] - X[None]) ** 2, axis=-1), np.tanh(X @ X.T - 1.0)):
        assert not is_psd(not_a_kernel)


@pytest.mark.parametrize("m", [1, 2])
@pytest.mark.parametrize("degree", [2, 3])
@pytest.mark.parametrize("offset", [0.0, 1.0, 2.5])
def test_explicit_feature_map_reproduces_the_polynomial_kernel(m, degree, offset):
    X, Z = inputs(9, 5, m, seed=6)
    Phi_X, Phi_Z = explicit_polynomial_map(X, degree, offset), explicit_polynomial_map(Z, degree, offset)
    assert Phi_X.shape[1] == math.comb(m + degree, degree)  # the number of monomials of degree <= d
    np.testing.assert_allclose(kernels.polynomial_kernel(X, Z, degree=degree, offset=offset), Phi_X @ Phi_Z.T,
                               rtol=1e-11, atol=1e-12)


def test_explicit_map_for_m2_d2_is_the_book_formula():
    """φ(x) = (x₁², x₂², √2 x₁x₂, √(2c) x₁, √(2c) x₂, c) reproduces (xᵀz + c)²."""
    X, Z = inputs(7, 4, 2, seed=7)
    c = 1.5

    def phi(A):
        x1, x2 = A[:, 0], A[:, 1]
        return np.column_stack([x1**2, x2**2, np.sqrt(2) * x1 * x2, np.sqrt(2 * c) * x1, np.sqrt(2 * c) * x2,
                                np.full_like(x1, c)])

    np.testing.assert_allclose(kernels.polynomial_kernel(X, Z, degree=2, offset=c), phi(X) @ phi(Z).T, rtol=1e-12)


# --- kernel ridge regression ------------------------------------------------------------------------------------


SK_KERNELS = [  # (our kernel, scikit-learn's KernelRidge arguments)
    (lambda X, Z: kernels.linear_kernel(X, Z), {"kernel": "linear"}),
    (lambda X, Z: kernels.polynomial_kernel(X, Z, degree=3, offset=1.0),
     {"kernel": "poly", "degree": 3, "coef0": 1.0, "gamma": 1.0}),
    (lambda X, Z: kernels.rbf_kernel(X, Z, width=0.7), {"kernel": "rbf", "gamma": 1.0 / (2 * 0.7**2)}),
]


def regression_problem(N, m, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, size=(N, m))  # (N, m)
    y = np.sin(3 * X[:, 0]) + X[:, -1] ** 2 + 0.1 * rng.normal(size=N)  # (N,)
    X_test = rng.uniform(-1, 1, size=(15, m))  # (15, m)
    return X, y, X_test


@pytest.mark.parametrize(("kernel", "sk_args"), SK_KERNELS)
@pytest.mark.parametrize(("N", "m", "l2"), [(30, 1, 0.1), (50, 3, 1.0), (8, 2, 1e-3), (1, 2, 0.5)])
def test_kernel_ridge_equals_sklearn(kernel, sk_args, N, m, l2):
    X, y, X_test = regression_problem(N, m, seed=N + m)
    model = kernels.KernelRidge(kernel, l2=l2).fit(X, y)
    sk = SkKernelRidge(alpha=l2, **sk_args).fit(X, y)
    np.testing.assert_allclose(model.a, sk.dual_coef_, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(model.predict(X_test), sk.predict(X_test), rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(model.X_train, X)


def test_fit_kernel_ridge_on_a_precomputed_gram_matrix_equals_sklearn():
    X, y, X_test = regression_problem(40, 2, seed=8)
    K = kernels.rbf_kernel(X, X, width=0.5)  # (40, 40)
    a = kernels.fit_kernel_ridge(K, y, l2=0.3)
    sk = SkKernelRidge(alpha=0.3, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(a, sk.dual_coef_, rtol=1e-8)
    np.testing.assert_allclose((K + 0.3 * np.eye(40)) @ a, y, rtol=1e-10, atol=1e-12)  # the system itself


@pytest.mark.parametrize(("m", "degree", "offset"), [(1, 3, 1.0), (2, 2, 1.0), (3, 2, 0.5), (2, 3, 0.0)])
@pytest.mark.parametrize("l2", [0.01, 1.0])
def test_representer_identity_primal_ridge_equals_kernel_ridge(m, degree, offset, l2):
    """w = (ΦᵀΦ + λI)⁻¹Φᵀy on the explicit map predicts as 𝐤(x)ᵀ𝐚, and w = Φᵀ𝐚 (push-through identity)."""
    X, y, X_test = regression_problem(25, m, seed=10 * m + degree)
    Phi, Phi_test = explicit_polynomial_map(X, degree, offset), explicit_polynomial_map(X_test, degree, offset)
    w = np.linalg.solve(Phi.T @ Phi + l2 * np.eye(Phi.shape[1]), Phi.T @ y)  # primal ridge, every weight penalised
    model = kernels.KernelRidge(lambda A, B: kernels.polynomial_kernel(A, B, degree=degree, offset=offset),
                                l2=l2).fit(X, y)
    np.testing.assert_allclose(model.predict(X_test), Phi_test @ w, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(Phi.T @ model.a, w, rtol=1e-7, atol=1e-9)


def test_kernel_ridge_accepts_any_callable_and_checks_what_it_returns():
    X, y, X_test = regression_problem(10, 2, seed=11)
    model = kernels.KernelRidge(lambda A, B: np.ones((len(A), len(B) + 1)), l2=0.1)
    with pytest.raises(ValueError, match=r"kernel\(X, Z\) returned shape \(10, 11\).*expected \(10, 10\)"):
        model.fit(X, y)
    with pytest.raises(TypeError, match=r"kernel\(X, Z\) raised TypeError.*lambda"):
        kernels.KernelRidge(kernels.rbf_kernel, l2=0.1).fit(X, y)  # width is missing


# --- random Fourier features ------------------------------------------------------------------------------------


def test_sample_fourier_features_draws_the_right_distributions():
    Omega, u = kernels.sample_fourier_features(3, num_features=40_000, width=0.5, rng=np.random.default_rng(12))
    assert Omega.shape == (3, 40_000) and u.shape == (40_000,)
    np.testing.assert_allclose(Omega.var(axis=1), 1 / 0.5**2, rtol=0.03)  # ω ~ 𝒩(0, s⁻²𝐈): variance 4
    np.testing.assert_allclose(Omega.mean(axis=1), 0.0, atol=0.05)
    assert u.min() >= 0.0 and u.max() < 2 * np.pi
    assert abs(u.mean() - np.pi) < 0.05
    again = kernels.sample_fourier_features(3, num_features=40_000, width=0.5, rng=np.random.default_rng(12))
    np.testing.assert_array_equal(again[0], Omega)


def test_random_fourier_features_apply_one_map_row_by_row():
    X, Z = inputs(6, 4, 3, seed=13)
    Omega, u = kernels.sample_fourier_features(3, num_features=7, width=1.0, rng=np.random.default_rng(0))
    Phi = kernels.random_fourier_features(X, Omega=Omega, u=u)
    assert Phi.shape == (6, 7)
    np.testing.assert_allclose(Phi[2], np.sqrt(2 / 7) * np.cos(Omega.T @ X[2] + u), rtol=1e-13)
    both = kernels.random_fourier_features(np.vstack([X, Z]), Omega=Omega, u=u)  # train and test with one map
    np.testing.assert_array_equal(both[:6], Phi)


def _rff(X, M, s, rng):
    Omega, u = kernels.sample_fourier_features(X.shape[1], num_features=M, width=s, rng=rng)
    return kernels.random_fourier_features(X, Omega=Omega, u=u)


def _wrong_scale(X, M, s, rng):  # √(1/M) instead of √(2/M): converges to κ/2
    return _rff(X, M, s, rng) / np.sqrt(2)


def _wrong_variance(X, M, s, rng):  # ω ~ 𝒩(0, s⁻¹𝐈) instead of 𝒩(0, s⁻²𝐈): another width
    Omega = rng.standard_normal((X.shape[1], M)) / np.sqrt(s)
    u = rng.uniform(0, 2 * np.pi, size=M)
    return np.sqrt(2 / M) * np.cos(X @ Omega + u)


def _no_phase(X, M, s, rng):  # cos(ωᵀx) without u: E adds exp(−‖x + x′‖²/(2s²))
    Omega = rng.standard_normal((X.shape[1], M)) / s
    return np.sqrt(2 / M) * np.cos(X @ Omega)


RFF_X = np.random.default_rng(14).normal(scale=0.5, size=(10, 3))  # (10, 3): near the origin, where u matters
RFF_WIDTH = 0.6
RFF_MS = [64, 256, 1024, 4096]


def rms_errors(feature_map, draws=20):
    """RMS over the entries of ΦΦᵀ − 𝐊 and over ``draws`` maps, for each M in RFF_MS."""
    K = kernels.rbf_kernel(RFF_X, RFF_X, width=RFF_WIDTH)  # (10, 10)
    rng = np.random.default_rng(15)
    errors = []
    for M in RFF_MS:
        squared = [np.mean((Phi @ Phi.T - K) ** 2) for Phi in (feature_map(RFF_X, M, RFF_WIDTH, rng)
                                                              for _ in range(draws))]
        errors.append(np.sqrt(np.mean(squared)))
    return np.array(errors)  # (len(RFF_MS),)


def within_monte_carlo_bound(errors):
    """Each φ_j gives 2cos(ωᵀx + u)cos(ωᵀx′ + u) = cos(ωᵀ(x − x′)) + cos(ωᵀ(x + x′) + 2u), mean κ and variance
    <= 1 + 1/2, so the mean of M of them has RMS error <= √(1.5/M); 1.2 times that leaves room for sampling."""
    return bool(np.all(errors <= 1.2 * np.sqrt(1.5 / np.array(RFF_MS))))


def test_random_fourier_features_approach_the_rbf_kernel_like_one_over_root_m():
    errors = rms_errors(_rff)
    assert within_monte_carlo_bound(errors)
    slope = np.polyfit(np.log(RFF_MS), np.log(errors), 1)[0]
    assert -0.6 < slope < -0.4  # error ∝ M^(−1/2)
    assert np.all(errors >= 0.2 / np.sqrt(RFF_MS))  # and not smaller: it is a Monte Carlo error


@pytest.mark.parametrize("wrong_map", [_wrong_scale, _wrong_variance, _no_phase])
def test_the_monte_carlo_bound_rejects_wrong_feature_maps(wrong_map):
    assert not within_monte_carlo_bound(rms_errors(wrong_map))


def test_mean_over_many_draws_approaches_the_kernel():
    """The average of ΦΦᵀ over R independent maps of M features is within a few √(1.5/(MR)) of 𝐊, entrywise."""
    K = kernels.rbf_kernel(RFF_X, RFF_X, width=RFF_WIDTH)
    rng = np.random.default_rng(16)
    mean = np.mean([Phi @ Phi.T for Phi in (_rff(RFF_X, 8, RFF_WIDTH, rng) for _ in range(5000))], axis=0)
    assert np.abs(mean - K).max() < 5 * np.sqrt(1.5 / (8 * 5000))


# --- bad inputs -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("kernel", [
    kernels.linear_kernel,
    lambda X, Z: kernels.polynomial_kernel(X, Z, degree=2),
    lambda X, Z: kernels.rbf_kernel(X, Z, width=1.0),
])
def test_kernels_refuse_a_column_mismatch(kernel):
    with pytest.raises(ValueError, match=r"Z has 2 entries along axis 1, but X's axis 1 gives m = 3 \(the number of"):
        kernel(np.zeros((4, 3)), np.zeros((5, 2)))


@pytest.mark.parametrize("width", [0.0, -1.0, np.inf])
def test_rbf_kernel_refuses_a_width_that_is_not_positive(width):
    with pytest.raises(ValueError, match="width must be a finite number > 0"):
        kernels.rbf_kernel(np.zeros((2, 2)), np.zeros((2, 2)), width=width)


@pytest.mark.parametrize("degree", [0, 2.5, -1, True])
def test_polynomial_kernel_refuses_a_degree_that_is_not_a_positive_integer(degree):
    with pytest.raises(ValueError, match="degree must be an integer >= 1"):
        kernels.polynomial_kernel(np.zeros((2, 2)), np.zeros((2, 2)), degree=degree)


def test_polynomial_kernel_refuses_a_negative_offset():
    with pytest.raises(ValueError, match="offset must be a finite number >= 0; received -1"):
        kernels.polynomial_kernel(np.zeros((2, 2)), np.zeros((2, 2)), degree=2, offset=-1.0)


def test_fit_kernel_ridge_refuses_bad_systems():
    K = kernels.rbf_kernel(np.arange(4.0).reshape(4, 1), np.arange(4.0).reshape(4, 1), width=1.0)  # (4, 4)
    with pytest.raises(ValueError, match=r"K has 3 entries along axis 1, but K's axis 0 gives N = 4.*shape \(N, N\)"):
        kernels.fit_kernel_ridge(K[:, :3], np.zeros(4), l2=1.0)
    with pytest.raises(ValueError, match=r"y has 3 entries along axis 0, but K's axis 0 gives N = 4"):
        kernels.fit_kernel_ridge(K, np.zeros(3), l2=1.0)
    asymmetric = K.copy()
    asymmetric[0, 3] += 1e-3
    with pytest.raises(ValueError, match="K must be symmetric"):
        kernels.fit_kernel_ridge(asymmetric, np.zeros(4), l2=1.0)
    with pytest.raises(ValueError, match="l2 must be a finite number > 0; received 0"):
        kernels.fit_kernel_ridge(K, np.zeros(4), l2=0.0)
    with pytest.raises(ValueError, match="K has the negative diagonal entry K\\[0, 0\\] = -1"):
        kernels.fit_kernel_ridge(-np.eye(4), np.zeros(4), l2=1.0)
    swap = np.array([[0.0, 1.0], [1.0, 0.0]])  # (2, 2): eigenvalues ±1, diagonal 0
    with pytest.raises(ValueError, match="K \\+ l2 I is singular for l2=1, so K has the eigenvalue −1"):
        kernels.fit_kernel_ridge(swap, np.ones(2), l2=1.0)


def test_fit_kernel_ridge_refuses_the_chapter_tanh_gram_matrix():
    """tanh(xᵀx′ − 1) on the circles: tanh(‖x‖² − 1) < 0 on the diagonal for the inner ring, which no kernel gives."""
    X, y = data.make_circles(200, noise=0.1, rng=np.random.default_rng(7))  # the chapter's circles
    K = np.tanh(X @ X.T - 1.0)  # (200, 200)
    assert np.linalg.eigvalsh(K).min() < -1.0  # clearly not PSD
    with pytest.raises(ValueError, match="negative diagonal entry.*κ\\(x, x\\) = ‖φ\\(x\\)‖² must be >= 0"):
        kernels.fit_kernel_ridge(K, y.astype(float), l2=0.01)


def test_fit_kernel_ridge_does_not_detect_every_matrix_that_is_not_psd():
    """−‖x − x′‖² has a zero diagonal and negative eigenvalues: the documented limit, accepted without an error."""
    X = np.random.default_rng(18).normal(size=(20, 2))
    K = -np.sum((X[:, None] - X[None]) ** 2, axis=-1)  # (20, 20)
    assert not is_psd(K)
    a = kernels.fit_kernel_ridge(K, np.ones(20), l2=0.1)
    np.testing.assert_allclose((K + 0.1 * np.eye(20)) @ a, np.ones(20), rtol=1e-8, atol=1e-8)


def test_kernel_ridge_refuses_predict_before_fit_and_bad_inputs():
    model = kernels.KernelRidge(kernels.linear_kernel, l2=1.0)
    with pytest.raises(ValueError, match=r"this KernelRidge is not fitted yet.*Call model.fit"):
        model.predict(np.zeros((2, 2)))
    with pytest.raises(ValueError, match=r"y has 3 entries along axis 0, but X's axis 0 gives N = 4"):
        model.fit(np.zeros((4, 2)), np.zeros(3))
    model.fit(np.eye(3, 2), np.ones(3))
    with pytest.raises(ValueError, match=r"X has 3 entries along axis 1, but KernelRidge.num_features is 2"):
        model.predict(np.zeros((2, 3)))
    with pytest.raises(TypeError, match="kernel must be a kernel function"):
        kernels.KernelRidge("rbf", l2=1.0)
    with pytest.raises(ValueError, match="l2 must be a finite number > 0"):
        kernels.KernelRidge(kernels.linear_kernel, l2=0.0)


def test_kernel_ridge_checks_the_gram_matrix_of_its_kernel():
    """What fit_kernel_ridge refuses in a Gram matrix, KernelRidge.fit refuses in its kernel's kernel(X, X)."""
    X, y, _ = regression_problem(10, 2, seed=19)
    with pytest.raises(ValueError, match="K has the negative diagonal entry"):
        kernels.KernelRidge(lambda A, B: np.tanh(A @ B.T - 10.0), l2=0.1).fit(X, y)
    with pytest.raises(ValueError, match="K must be symmetric"):
        kernels.KernelRidge(lambda A, B: A @ B.T + A[:, :1], l2=0.1).fit(X, y)


def test_random_fourier_features_refuse_mismatched_maps():
    Omega, u = kernels.sample_fourier_features(2, num_features=5, width=1.0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"Omega has 2 entries along axis 0, but X's axis 1 gives m = 3"):
        kernels.random_fourier_features(np.zeros((4, 3)), Omega=Omega, u=u)
    with pytest.raises(ValueError, match=r"u has 4 entries along axis 0, but Omega's axis 1 gives M = 5"):
        kernels.random_fourier_features(np.zeros((4, 2)), Omega=Omega, u=u[:4])
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        kernels.sample_fourier_features(2, num_features=5, width=1.0, rng=0)


# --- minimum-norm least squares -----------------------------------------------------------------------------------


@pytest.mark.parametrize(("N", "M"), [(8, 3), (3, 8), (6, 6), (1, 4), (5, 1), (30, 120)])
def test_min_norm_least_squares_equals_the_pseudo_inverse_and_lstsq(N, M):
    rng = np.random.default_rng(N * 100 + M)
    Phi, y = rng.normal(size=(N, M)), rng.normal(size=N)
    w = svd.min_norm_least_squares(Phi, y)
    assert w.shape == (M,)
    np.testing.assert_allclose(w, np.linalg.pinv(Phi) @ y, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(w, np.linalg.lstsq(Phi, y, rcond=None)[0], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("N", "M"), [(4, 4), (5, 9), (20, 200)])
def test_min_norm_least_squares_interpolates_with_at_least_as_many_features_as_examples(N, M):
    rng = np.random.default_rng(M)
    Phi, y = rng.normal(size=(N, M)), rng.normal(size=N)
    w = svd.min_norm_least_squares(Phi, y)
    np.testing.assert_allclose(Phi @ w, y, rtol=1e-9, atol=1e-10)  # an exact fit
    null_direction = np.linalg.svd(Phi)[2][-1]  # (M,): Φ v = 0 when M > N
    if M > N:  # every other exact fit w + t v is longer: w is orthogonal to the null space of Φ
        assert abs(w @ null_direction) < 1e-10
        assert np.linalg.norm(w + 0.1 * null_direction) > np.linalg.norm(w)


def test_min_norm_least_squares_is_orthogonal_to_the_residual_when_it_cannot_interpolate():
    rng = np.random.default_rng(3)
    Phi, y = rng.normal(size=(30, 5)), rng.normal(size=30)
    residual = y - Phi @ svd.min_norm_least_squares(Phi, y)
    assert np.linalg.norm(residual) > 1.0  # five features cannot fit 30 noise targets
    np.testing.assert_allclose(Phi.T @ residual, 0.0, atol=1e-10)  # the normal equations ΦᵀΦw = Φᵀy


@pytest.mark.parametrize(("N", "M"), [(10, 4), (6, 25)])
def test_min_norm_least_squares_is_the_limit_of_ridge_regression(N, M):
    """(ΦᵀΦ + λI)⁻¹Φᵀy = Φᵀ(ΦΦᵀ + λI)⁻¹y → Φ⁺y as λ → 0, the error shrinking in proportion to λ."""
    rng = np.random.default_rng(N + M)
    Phi, y = rng.normal(size=(N, M)), rng.normal(size=N)
    w = svd.min_norm_least_squares(Phi, y)
    gaps = []
    for l2 in (1e-4, 1e-6):
        w_ridge = Phi.T @ kernels.fit_kernel_ridge(Phi @ Phi.T, y, l2=l2)  # the dual route works for both shapes
        np.testing.assert_allclose(w_ridge, np.linalg.solve(Phi.T @ Phi + l2 * np.eye(M), Phi.T @ y), rtol=1e-6)
        gaps.append(np.abs(w_ridge - w).max())
    assert gaps[1] < 1e-4 and gaps[1] < 0.05 * gaps[0]


def test_min_norm_least_squares_equals_sklearn_without_intercept():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(9)
    Phi, y = rng.normal(size=(7, 15)), rng.normal(size=7)
    model = LinearRegression(fit_intercept=False).fit(Phi, y)  # scipy's lstsq: the minimum-norm solution
    np.testing.assert_allclose(svd.min_norm_least_squares(Phi, y), model.coef_, rtol=1e-8, atol=1e-10)


def test_min_norm_least_squares_ignores_directions_of_round_off_size():
    """A rank-deficient Φ: a duplicated column shares its weight equally, and a zero matrix gives w = 0."""
    rng = np.random.default_rng(4)
    a, y = rng.normal(size=(6, 1)), rng.normal(size=6)
    w = svd.min_norm_least_squares(np.hstack([a, a]), y)
    np.testing.assert_allclose(w[0], w[1], rtol=1e-10)
    np.testing.assert_allclose(w.sum(), np.linalg.lstsq(a, y, rcond=None)[0][0], rtol=1e-10)
    np.testing.assert_array_equal(svd.min_norm_least_squares(np.zeros((3, 2)), np.ones(3)), np.zeros(2))


def test_min_norm_least_squares_refuses_mismatched_targets():
    with pytest.raises(ValueError, match="y"):
        svd.min_norm_least_squares(np.ones((4, 3)), np.ones(5))
