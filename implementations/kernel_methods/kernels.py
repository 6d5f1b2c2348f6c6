"""Kernels, kernel ridge regression and random Fourier features.

Chapter 3, sections "From feature maps to kernels", "Kernel ridge regression" and "Random Fourier features".
Conventions (those of the chapter):

* ``X`` has shape (N, m) and ``Z`` shape (N′, m): one input x ∈ ℝ^m per row, no bias column;
* a kernel κ(x, x′) = φ(x)ᵀφ(x′) is the inner product of two inputs' features, eq. (3.4); a kernel
  function here returns the *Gram block* of every pair of rows at once, K[i, j] = κ(X[i], Z[j]), of shape (N, N′).
  With Z = X it is the Gram matrix 𝐊 (N, N), symmetric and positive semi-definite;
* kernel ridge regression penalises *every* weight of φ, λ‖w‖² with λ = ``l2`` > 0; there is no separate,
  unpenalised bias. Centre y first, or use a kernel with a constant feature (the polynomial kernel with c > 0);
* random Fourier features φ(x) ∈ ℝ^M approximate the RBF kernel with an explicit map, φ(x)ᵀφ(x′) ≈ κ(x, x′), so
  that ridge regression on them costs O(NM²) instead of the O(N³) of kernel ridge regression;
* with more features than examples, least squares has many exact fits; the one of smallest norm, w = Φ⁺y, the
  λ → 0 limit of ridge regression, is ``implementations.preliminaries.svd.min_norm_least_squares``.

The kernels, with degree d, offset c and width s (eq. (3.5)):

    linear       κ(x, x′) = xᵀx′
    polynomial   κ(x, x′) = (xᵀx′ + c)^d                   d >= 1 an integer, c >= 0
    RBF          κ(x, x′) = exp(−‖x − x′‖² / (2s²))        s > 0; scikit-learn's gamma = 1/(2s²)
"""

import numpy as np

from .._contract import checked
from ._checks import fitted, kernel_function, nonnegative_diagonal, singular_means_not_psd, symmetric_gram

__all__ = [
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "fit_kernel_ridge",
    "KernelRidge",
    "sample_fourier_features",
    "random_fourier_features",
]


@checked(X="array (N, m)", Z="array (N_z, m)")
def linear_kernel(X, Z):
    """The linear kernel κ(x, z) = xᵀz for every pair of rows, eq. (3.5): the Gram block XZᵀ.

    It is the kernel of the identity feature map φ(x) = x.

    Parameters
    ----------
    X : array_like of shape (N, m)
    Z : array_like of shape (N′, m)

    Returns
    -------
    K : ndarray of shape (N, N′)
        K[i, j] = X[i] · Z[j]. Cost: O(N N′ m) time, O(N N′) memory.
    """
    return X @ Z.T  # (N, N′)


@checked(X="array (N, m)", Z="array (N_z, m)", degree="count", offset="penalty")
def polynomial_kernel(X, Z, *, degree, offset=1.0):
    """The polynomial kernel κ(x, z) = (xᵀz + c)^d for every pair of rows, eq. (3.5).

    It is the inner product φ(x)ᵀφ(z) of the monomials of degree <= d, each scaled by the square root of its
    multinomial coefficient times a power of c, eq. (3.3): C(m + d, d) features for c > 0, eq. (3.2), and for c = 0
    only the C(m + d − 1, d) monomials of degree exactly d; computed in O(m) per pair instead.

    Parameters
    ----------
    X : array_like of shape (N, m)
    Z : array_like of shape (N′, m)
    degree : int
        Degree d >= 1.
    offset : float, default 1.0
        Offset c >= 0; it weighs the monomials of lower degree, and c > 0 includes a constant feature.

    Returns
    -------
    K : ndarray of shape (N, N′)
        Cost: O(N N′ m) time, O(N N′) memory.
    """
    return (X @ Z.T + offset) ** degree  # (N, N′)


@checked(X="array (N, m)", Z="array (N_z, m)", width="rate")
def rbf_kernel(X, Z, *, width):
    """The RBF (Gaussian) kernel κ(x, z) = exp(−‖x − z‖² / (2s²)) for every pair of rows, eq. (3.5).

    The squared distances come from one matrix product, ‖x − z‖² = ‖x‖² + ‖z‖² − 2xᵀz, instead of an
    (N, N′, m) array of differences: as fast as the linear kernel, and O(N N′) memory. The three terms nearly cancel
    when x and z are close to each other but far from the origin, so both are first shifted by the mean of X (the
    kernel depends only on x − z, so the shift changes nothing in exact arithmetic); what round-off remains, for
    points close to each other but far from that mean, is clipped at a squared distance of 0.

    Parameters
    ----------
    X : array_like of shape (N, m)
    Z : array_like of shape (N′, m)
    width : float
        Width s > 0, the distance over which κ falls from 1 to exp(−1/2) (scikit-learn's gamma = 1/(2s²)).

    Returns
    -------
    K : ndarray of shape (N, N′)
        Entries in [0, 1]; 1 up to round-off where a row of X equals a row of Z.
    """
    shift = X.mean(axis=0)  # (m,): κ sees only x − z, and shifting both by x̄ makes ‖x‖², ‖z‖² small
    X, Z = X - shift, Z - shift  # (N, m), (N′, m)
    x_sq = np.einsum("ij,ij->i", X, X)  # (N,): ‖x‖²
    z_sq = np.einsum("ij,ij->i", Z, Z)  # (N′,): ‖z‖²
    dist_sq = x_sq[:, None] + z_sq[None, :] - 2.0 * (X @ Z.T)  # (N, N′): ‖x − z‖²
    dist_sq = np.maximum(dist_sq, 0.0)  # for x ≈ z the cancellation can leave −1e-16 where the distance is 0
    return np.exp(-dist_sq / (2.0 * width**2))  # (N, N′)


@checked(K="array (N, N)", y="array (N,)", l2="rate", also=(symmetric_gram, nonnegative_diagonal))
def fit_kernel_ridge(K, y, *, l2):
    """Dual coefficients of kernel ridge regression, 𝐚 = (𝐊 + λ𝐈)⁻¹𝐲, eq. (3.9).

    They minimise the ridge cost ½‖𝐲 − Φw‖² + (λ/2)‖w‖² of eq. (3.7) through w = Φᵀ𝐚, and the
    prediction at x is f(x) = 𝐤(x)ᵀ𝐚, eq. (3.10).

    λ must be positive. For a PSD 𝐊 every eigenvalue of 𝐊 + λ𝐈 is then at least λ, so the system is well posed;
    with λ = 0 it is singular whenever 𝐊 is (the linear kernel with more examples than features, or two equal
    inputs), and its solutions interpolate the noise.

    A 𝐊 that is not positive semi-definite (not the Gram matrix of a kernel) is in general *not* detected: telling
    would take its smallest eigenvalue, an eigendecomposition that costs several times the solve itself. Only two
    symptoms are caught: a negative diagonal entry K[i, i] = κ(x⁽ⁱ⁾, x⁽ⁱ⁾) = ‖φ(x⁽ⁱ⁾)‖², which no kernel gives,
    and an eigenvalue of exactly −λ, which makes 𝐊 + λ𝐈 singular. Any other negative eigenvalue passes silently
    and gives coefficients that minimise nothing. ``np.linalg.solve`` (LU) is used because NumPy has no
    triangular solve to go with a Cholesky factor. Cost: O(N³) time and O(N²) memory, the price of the kernel trick.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix of the training inputs, K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾); symmetric to round-off.
    y : array_like of shape (N,)
        Targets (centred, when the kernel has no constant feature and the targets' mean is far from 0).
    l2 : float
        Ridge strength λ > 0, applied to every weight (no separate bias), as in scikit-learn's ``alpha``.

    Returns
    -------
    a : ndarray of shape (N,)
        Dual coefficients, one per training example.
    """
    K_reg = K.copy()  # (N, N)
    K_reg[np.diag_indices_from(K_reg)] += l2  # 𝐊 + λ𝐈, without forming 𝐈
    with singular_means_not_psd(l2):  # singular only if 𝐊 has the eigenvalue −λ: not a kernel's
        return np.linalg.solve(K_reg, y)  # (N,): 𝐚 = (𝐊 + λ𝐈)⁻¹𝐲 without forming the inverse


class KernelRidge:
    """Kernel ridge regression: 𝐚 = (𝐊 + λ𝐈)⁻¹𝐲 and f(x) = 𝐤(x)ᵀ𝐚, eqs. (3.9) and (3.10).

    The model keeps the training inputs: every prediction needs the kernel between the new input and each of
    them, O(N m) time per prediction.

    Parameters
    ----------
    kernel : callable
        ``kernel(X, Z) -> K`` of shape (N, N′), e.g. ``lambda X, Z: kernels.rbf_kernel(X, Z, width=0.1)``. What it
        returns is checked: finite numbers of that shape, and for Z = X a symmetric matrix with a diagonal >= 0.
    l2 : float
        Ridge strength λ > 0 (see :func:`fit_kernel_ridge`).

    Attributes
    ----------
    X_train : ndarray of shape (N, m)
        The training inputs, set by :meth:`fit` (None before).
    a : ndarray of shape (N,)
        The dual coefficients, set by :meth:`fit` (None before).
    """

    @checked(kernel=kernel_function(symmetric_gram, nonnegative_diagonal), l2="rate")
    def __init__(self, kernel, *, l2):
        self.kernel, self.l2 = kernel, l2
        self.X_train = self.a = None

    @property
    def num_features(self):
        """m, the number of features of the training inputs (and of every input to predict)."""
        return self.X_train.shape[1]

    @checked(X="array (N, m)", y="array (N,)")
    def fit(self, X, y):
        """Store the training inputs and solve for the dual coefficients 𝐚 = (𝐊 + λ𝐈)⁻¹𝐲, eq. (3.9).

        Parameters
        ----------
        X : array_like of shape (N, m)
        y : array_like of shape (N,)

        Returns
        -------
        self : KernelRidge
        """
        K = self.kernel(X, X)  # (N, N): O(N² m) time, O(N²) memory
        self.a = fit_kernel_ridge(K, y, l2=self.l2)  # (N,): O(N³)
        self.X_train = X  # (N, m): every prediction needs κ(x⁽ⁱ⁾, x) for each of them
        return self

    @checked(self=fitted("a", "dual coefficients"), X="array (N_new, self.num_features)")
    def predict(self, X):
        """Predictions f(x) = 𝐤(x)ᵀ𝐚 = Σᵢ aᵢ κ(x⁽ⁱ⁾, x) for each row x of X, eq. (3.10).

        Parameters
        ----------
        X : array_like of shape (N′, m)
            New inputs, with the features of the training inputs.

        Returns
        -------
        y_hat : ndarray of shape (N′,)

        Raises
        ------
        ValueError
            If the model has not been fitted yet.
        """
        K_cross = self.kernel(X, self.X_train)  # (N′, N): row j is 𝐤(x)ᵀ for the j-th new input
        return K_cross @ self.a  # (N′,)


@checked(m="count", num_features="count", width="rate", rng="rng")
def sample_fourier_features(m, *, num_features, width, rng):
    """Draw the random map of random Fourier features for the RBF kernel of width s, eq. (3.23).

    Frequencies ω_j ~ 𝒩(0, s⁻²𝐈), the distribution whose characteristic function is the RBF kernel (Bochner's
    theorem), and phases u_j ~ U[0, 2π), j = 1, …, M. Draw the map once and apply it with
    :func:`random_fourier_features` to the training and to the test inputs alike.

    Parameters
    ----------
    m : int
        Number of input features, m >= 1.
    num_features : int
        Number of random features M >= 1; the error of φ(x)ᵀφ(x′) falls like 1/√M.
    width : float
        Width s > 0 of the RBF kernel to approximate.
    rng : numpy.random.Generator

    Returns
    -------
    Omega : ndarray of shape (m, M)
        The frequencies ω_j as columns.
    u : ndarray of shape (M,)
        The phases.
    """
    Omega = rng.standard_normal((m, num_features)) / width  # (m, M): columns ω_j ~ 𝒩(0, s⁻²𝐈)
    u = rng.uniform(0.0, 2.0 * np.pi, size=num_features)  # (M,): u_j ~ U[0, 2π)
    return Omega, u


@checked(X="array (N, m)", Omega="array (m, M)", u="array (M,)")
def random_fourier_features(X, *, Omega, u):
    """Random Fourier features Φ = √(2/M) cos(X𝛀 + 𝐮), eq. (3.23): φ(x)ᵀφ(x′) ≈ exp(−‖x − x′‖²/(2s²)).

    The approximation is unbiased, E[φ(x)ᵀφ(x′)] = κ(x, x′) (eq. (3.24)), with a standard deviation
    O(1/√M). Cost: O(N m M) time and O(N M) memory, linear in N.

    Parameters
    ----------
    X : array_like of shape (N, m)
    Omega : array_like of shape (m, M)
        Frequencies, from :func:`sample_fourier_features` (drawn with m = X.shape[1]).
    u : array_like of shape (M,)
        Phases, from the same call of :func:`sample_fourier_features`.

    Returns
    -------
    Phi : ndarray of shape (N, M)
        Row i is φ(x⁽ⁱ⁾)ᵀ.
    """
    M = Omega.shape[1]
    return np.sqrt(2.0 / M) * np.cos(X @ Omega + u)  # (N, M): φ_j(x) = √(2/M) cos(ω_jᵀx + u_j)
