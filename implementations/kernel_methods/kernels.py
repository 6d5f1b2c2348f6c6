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
  that ridge regression on them costs O(NM²) instead of the O(N³) of kernel ridge regression.

The kernels, with degree d, offset c and width s (eq. (3.5)):

    linear       κ(x, x′) = xᵀx′
    polynomial   κ(x, x′) = (xᵀx′ + c)^d                   d >= 1 an integer, c >= 0
    RBF          κ(x, x′) = exp(−‖x − x′‖² / (2s²))        s > 0; scikit-learn's gamma = 1/(2s²)
"""

import numpy as np

from .._validation import (
    as_finite_array,
    check_callable,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_rng,
    check_X,
    check_X_y,
)

__all__ = [
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "fit_kernel_ridge",
    "KernelRidge",
    "sample_fourier_features",
    "random_fourier_features",
]


def _check_X_Z(X, Z):
    """Two finite 2-D arrays of inputs, (N, m) and (N′, m), with the same number of columns m."""
    X = check_X(X, "X")
    Z = check_X(Z, "Z")
    if X.shape[1] != Z.shape[1]:
        raise ValueError(f"X has {X.shape[1]} columns but Z has {Z.shape[1]}; expected the same number of features "
                         "in both, since κ(x, z) compares one row of X with one row of Z. Pass inputs with the same "
                         "features, in the same order.")
    return X, Z


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
    X, Z = _check_X_Z(X, Z)
    return X @ Z.T  # (N, N′)


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
    X, Z = _check_X_Z(X, Z)
    degree = check_positive_int(degree, "degree")
    offset = check_nonnegative(offset, "offset")
    return (X @ Z.T + offset) ** degree  # (N, N′)


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
    X, Z = _check_X_Z(X, Z)
    width = check_positive(width, "width")
    shift = X.mean(axis=0)  # (m,): κ sees only x − z, and shifting both by x̄ makes ‖x‖², ‖z‖² small
    X, Z = X - shift, Z - shift  # (N, m), (N′, m)
    x_sq = np.einsum("ij,ij->i", X, X)  # (N,): ‖x‖²
    z_sq = np.einsum("ij,ij->i", Z, Z)  # (N′,): ‖z‖²
    dist_sq = x_sq[:, None] + z_sq[None, :] - 2.0 * (X @ Z.T)  # (N, N′): ‖x − z‖²
    dist_sq = np.maximum(dist_sq, 0.0)  # for x ≈ z the cancellation can leave −1e-16 where the distance is 0
    return np.exp(-dist_sq / (2.0 * width**2))  # (N, N′)


def _check_gram(K):
    """A square (N, N) finite matrix that is symmetric up to round-off, as a Gram matrix 𝐊 is."""
    K = as_finite_array(K, "K", ndim=2, allow_empty=False)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"K must be a square Gram matrix (N, N); received shape {K.shape}. Pass the kernel of the "
                         "training inputs with themselves, e.g. K = rbf_kernel(X, X, width=s), not a block "
                         "between training and test inputs.")
    difference = K - K.T  # (N, N)
    asymmetry = np.abs(difference, out=difference).max()  # in place: one temporary of the size of K, not two
    scale = np.abs(K).max()
    if asymmetry > 1e-10 * scale:
        raise ValueError(f"K must be symmetric, as every Gram matrix K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾) is; received a matrix "
                         f"with max abs(K − Kᵀ) = {asymmetry:.3g} for entries up to {scale:.3g}. Check that the same "
                         "inputs were passed as both arguments of the kernel, or symmetrise it with (K + K.T) / 2.")
    return K


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
    K = _check_gram(K)
    y = as_finite_array(y, "y", ndim=1)
    if y.shape[0] != K.shape[0]:
        raise ValueError(f"y has {y.shape[0]} entries but K is {K.shape[0]} × {K.shape[1]}; expected one target per "
                         "row of K (per training example).")
    l2 = check_positive(l2, "l2")
    diagonal = np.diag(K)  # (N,): κ(x⁽ⁱ⁾, x⁽ⁱ⁾) = ‖φ(x⁽ⁱ⁾)‖², never negative for a kernel
    if np.any(diagonal < 0):
        i = int(np.argmin(diagonal))
        raise ValueError(f"K has the negative diagonal entry K[{i}, {i}] = {diagonal[i]:.3g}, but κ(x, x) = ‖φ(x)‖² "
                         "must be >= 0 for every kernel, so K is not the Gram matrix of a kernel. Use a positive "
                         "semi-definite kernel (linear, polynomial with c >= 0, RBF) instead of this function.")
    K_reg = K.copy()  # (N, N)
    K_reg[np.diag_indices_from(K_reg)] += l2  # 𝐊 + λ𝐈, without forming 𝐈
    try:
        return np.linalg.solve(K_reg, y)  # (N,): 𝐚 = (𝐊 + λ𝐈)⁻¹𝐲 without forming the inverse
    except np.linalg.LinAlgError:
        raise ValueError(f"K + l2 I is singular for l2={l2:g}, so K has the eigenvalue −{l2:g}; expected a positive "
                         "semi-definite K, whose eigenvalues are all >= 0: K is not the Gram matrix of a kernel. "
                         "Check the kernel function.") from None


class KernelRidge:
    """Kernel ridge regression: 𝐚 = (𝐊 + λ𝐈)⁻¹𝐲 and f(x) = 𝐤(x)ᵀ𝐚, eqs. (3.9) and (3.10).

    The model keeps the training inputs: every prediction needs the kernel between the new input and each of
    them, O(N m) time per prediction.

    Parameters
    ----------
    kernel : callable
        ``kernel(X, Z) -> K`` of shape (N, N′), e.g. ``lambda X, Z: kernels.rbf_kernel(X, Z, width=0.1)``.
    l2 : float
        Ridge strength λ > 0 (see :func:`fit_kernel_ridge`).

    Attributes
    ----------
    X_train : ndarray of shape (N, m)
        The training inputs, set by :meth:`fit` (None before).
    a : ndarray of shape (N,)
        The dual coefficients, set by :meth:`fit` (None before).
    """

    def __init__(self, kernel, *, l2):
        self.kernel = check_callable(kernel, "kernel", what="a kernel function kernel(X, Z) -> Gram block (N, N′)")
        self.l2 = check_positive(l2, "l2")
        self.X_train = None
        self.a = None

    def _gram(self, X, Z):
        """The kernel's Gram block for X (N, m) and Z (N′, m), checked: finite, of shape (N, N′)."""
        try:
            K = self.kernel(X, Z)
        except TypeError as exc:
            raise TypeError(f"kernel(X, Z) raised TypeError: {exc}. The kernel must take exactly two arrays; fix its "
                            "other arguments with a lambda, e.g. kernel=lambda X, Z: kernels.rbf_kernel(X, Z, "
                            "width=0.1).") from exc
        K = as_finite_array(K, "kernel(X, Z)", ndim=2)
        if K.shape != (X.shape[0], Z.shape[0]):
            raise ValueError(f"kernel(X, Z) returned shape {K.shape} for X of shape {X.shape} and Z of shape "
                             f"{Z.shape}; expected ({X.shape[0]}, {Z.shape[0]}), one value per pair of rows.")
        return K

    def fit(self, X, y):
        """Store the training inputs and solve for the dual coefficients 𝐚, eq. (3.9).

        Parameters
        ----------
        X : array_like of shape (N, m)
        y : array_like of shape (N,)

        Returns
        -------
        self : KernelRidge
        """
        X, y = check_X_y(X, y)
        K = self._gram(X, X)  # (N, N): O(N² m) time, O(N²) memory
        self.a = fit_kernel_ridge(K, y, l2=self.l2)  # (N,): O(N³)
        self.X_train = X
        return self

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
        if self.a is None:
            raise ValueError("predict was called before fit: this KernelRidge has no training inputs and no dual "
                             "coefficients yet. Call model.fit(X_train, y_train) first.")
        X = check_X(X)
        if X.shape[1] != self.X_train.shape[1]:
            raise ValueError(f"X has {X.shape[1]} columns but the model was fitted on X_train with "
                             f"{self.X_train.shape[1]}; expected the same features as in training.")
        K_cross = self._gram(X, self.X_train)  # (N′, N): row j is 𝐤(x)ᵀ for the j-th new input
        return K_cross @ self.a  # (N′,)


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
    m = check_positive_int(m, "m")
    M = check_positive_int(num_features, "num_features")
    width = check_positive(width, "width")
    rng = check_rng(rng)
    Omega = rng.standard_normal((m, M)) / width  # (m, M): columns ω_j ~ 𝒩(0, s⁻²𝐈)
    u = rng.uniform(0.0, 2.0 * np.pi, size=M)  # (M,): u_j ~ U[0, 2π)
    return Omega, u


def random_fourier_features(X, *, Omega, u):
    """Random Fourier features Φ = √(2/M) cos(X𝛀 + 𝐮), eq. (3.23): φ(x)ᵀφ(x′) ≈ exp(−‖x − x′‖²/(2s²)).

    The approximation is unbiased, E[φ(x)ᵀφ(x′)] = κ(x, x′) (eq. (3.24)), with a standard deviation
    O(1/√M). Cost: O(N m M) time and O(N M) memory, linear in N.

    Parameters
    ----------
    X : array_like of shape (N, m)
    Omega : array_like of shape (m, M)
        Frequencies, from :func:`sample_fourier_features`.
    u : array_like of shape (M,)
        Phases, from :func:`sample_fourier_features`.

    Returns
    -------
    Phi : ndarray of shape (N, M)
        Row i is φ(x⁽ⁱ⁾)ᵀ.
    """
    X = check_X(X)
    Omega = as_finite_array(Omega, "Omega", ndim=2, allow_empty=False)
    u = as_finite_array(u, "u", ndim=1, allow_empty=False)
    if Omega.shape[0] != X.shape[1]:
        raise ValueError(f"X has {X.shape[1]} columns but Omega has {Omega.shape[0]} rows; expected one row of "
                         "frequencies per input feature. Draw Omega with sample_fourier_features(m=X.shape[1], ...).")
    if u.shape[0] != Omega.shape[1]:
        raise ValueError(f"u has {u.shape[0]} phases but Omega has {Omega.shape[1]} columns (frequencies); expected "
                         "one phase per frequency. Pass the pair that sample_fourier_features returned together.")
    M = Omega.shape[1]
    return np.sqrt(2.0 / M) * np.cos(X @ Omega + u)  # (N, M): φ_j(x) = √(2/M) cos(ω_jᵀx + u_j)
