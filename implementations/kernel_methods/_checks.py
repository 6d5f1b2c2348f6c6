"""The checks of chapter 3's functions that no role of the input contract describes, each once.

Roles (``check(value, name) -> value``): labels of two classes, a kernel function, a fitted model. Checks of several
arguments (``also=``): a symmetric Gram matrix with a non-negative diagonal, one label per training example, multipliers
in their box. And the errors the algorithms raise when they fail: SMO that does not converge, subgradient descent that
diverges, a regularised system that is singular.
"""

import contextlib
import functools
import math

import numpy as np

from .._validation import as_array, as_finite_array, check_callable

# --- labels -----------------------------------------------------------------------------------------------------------


def two_class_labels(y, name):
    """Labels of two classes, −1 and +1 or 0 and 1, as an int64 array (N,) in the coding given.

    Booleans count as 0/1. A single class, a mix of the two codings ({−1, 0, 1}) or any other value is refused by
    name, since an SVM separates exactly two classes.
    """
    arr = as_array(y, name, dtype=None)  # a string or a ragged list is reported before any conversion
    if arr.dtype == bool:
        arr = arr.astype(np.int64)
    arr = as_finite_array(arr, name, ndim=1, allow_empty=False)
    values = np.unique(arr)
    shown = ", ".join(f"{v:g}" for v in values[:6]) + (", …" if values.size > 6 else "")
    if values.size == 1 and values[0] in (-1.0, 0.0, 1.0):
        raise ValueError(f"{name} holds a single class (every label is {values[0]:g}); an SVM separates two classes, "
                         "so it needs examples of both, labelled −1 and +1 (or 0 and 1).")
    if values.tolist() not in ([-1.0, 1.0], [0.0, 1.0]):
        raise ValueError(f"{name} must hold the labels −1 and +1 (or 0 and 1, where 0 is read as −1); received the "
                         f"values {shown}. Recode two classes first, e.g. y = np.where(species == 'Gentoo', 1, -1).")
    return arr.astype(np.int64)


def pm1_labels(y, name):
    """Labels of two classes (see :func:`two_class_labels`) as floats −1 and +1 (N,): 0 is read as −1."""
    return np.where(two_class_labels(y, name) == 1, 1.0, -1.0)


def _one_label_each(y, N, where):
    if y.shape[0] != N:
        raise ValueError(f"y has {y.shape[0]} labels but {where}; expected one label per training example.")


def one_label_per_row(X, y):
    """One label per row of X."""
    _one_label_each(y, X.shape[0], f"X has {X.shape[0]} rows")


def one_label_per_example(K, y):
    """One label per row of the Gram matrix K."""
    _one_label_each(y, K.shape[0], f"K is {K.shape[0]} × {K.shape[1]}")


def one_label_per_column(K_cross, y):
    """One label per column of K_cross, the block between new and training inputs."""
    _one_label_each(y, K_cross.shape[1], f"K_cross has {K_cross.shape[1]} columns (one per training example)")


# --- Gram matrices and kernel functions ---------------------------------------------------------------------------


def symmetric_gram(K):
    """A Gram matrix K (N, N) is symmetric up to round-off."""
    difference = K - K.T  # (N, N)
    asymmetry = np.abs(difference, out=difference).max()  # in place: one temporary of the size of K, not two
    scale = np.abs(K).max()
    if asymmetry > 1e-10 * scale:
        raise ValueError(f"K must be symmetric, as every Gram matrix K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾) is; received a matrix "
                         f"with max abs(K − Kᵀ) = {asymmetry:.3g} for entries up to {scale:.3g}. Check that the same "
                         "inputs were passed as both arguments of the kernel, or symmetrise it with (K + K.T) / 2.")


def nonnegative_diagonal(K):
    """A Gram matrix K has κ(x, x) = ‖φ(x)‖² >= 0 on its diagonal (a symptom of a K that is not PSD, cheap to see)."""
    diagonal = np.diag(K)  # (N,)
    if np.any(diagonal < 0):
        i = int(np.argmin(diagonal))
        raise ValueError(f"K has the negative diagonal entry K[{i}, {i}] = {diagonal[i]:.3g}, but κ(x, x) = ‖φ(x)‖² "
                         "must be >= 0 for every kernel, so K is not the Gram matrix of a kernel. Use a positive "
                         "semi-definite kernel (linear, polynomial with c >= 0, RBF) instead of this function.")


def kernel_function(*gram_checks):
    """The role of a model's kernel: a function ``kernel(X, Z) -> K`` (N, N_z), wrapped so that what it returns is
    checked (finite, one value per pair of rows) and its Gram matrices, ``kernel(X, X)``, pass ``gram_checks``."""
    def check(kernel, name):
        kernel = check_callable(kernel, name, what="a kernel function kernel(X, Z) -> Gram block (N, N′)")

        @functools.wraps(kernel)
        def checked_kernel(X, Z):
            try:
                K = kernel(X, Z)
            except TypeError as exc:
                raise TypeError(f"kernel(X, Z) raised TypeError: {exc}. The kernel must take exactly two arrays; fix "
                                "its other arguments with a lambda, e.g. kernel=lambda X, Z: kernels.rbf_kernel(X, Z, "
                                "width=0.5).") from exc
            K = as_finite_array(K, "kernel(X, Z)", ndim=2)
            if K.shape != (X.shape[0], Z.shape[0]):
                raise ValueError(f"kernel(X, Z) returned shape {K.shape} for X of shape {X.shape} and Z of shape "
                                 f"{Z.shape}; expected ({X.shape[0]}, {Z.shape[0]}), one value per pair of rows.")
            for gram_check in gram_checks if Z is X else ():  # a Gram matrix, K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾)
                gram_check(K)
            return K

        return checked_kernel

    return check


def fitted(attribute, what):
    """The role of ``self`` in a method that needs a fitted model: ``attribute`` is set by fit (None before)."""

    def check(model, name):
        if getattr(model, attribute) is None:
            raise ValueError(f"this {type(model).__name__} is not fitted yet: it has no {what}. Call "
                             "model.fit(X_train, y_train) first.")
        return model

    return check


@contextlib.contextmanager
def singular_means_not_psd(l2):
    """Report a singular 𝐊 + λ𝐈 as what it means: 𝐊 has the eigenvalue −λ, so it is not the Gram matrix of a kernel."""
    try:
        yield
    except np.linalg.LinAlgError:
        raise ValueError(f"K + l2 I is singular for l2={l2:g}, so K has the eigenvalue −{l2:g}; expected a positive "
                         "semi-definite K, whose eigenvalues are all >= 0: K is not the Gram matrix of a kernel. "
                         "Check the kernel function.") from None


# --- multipliers and the solvers' failures ------------------------------------------------------------------------


def alpha_in_box(alpha, C=None):
    """Multipliers α >= 0, and <= C when the function takes C."""
    upper = math.inf if C is None else C
    outside = (alpha < 0) | (alpha > upper)
    if outside.any():
        box = "[0, C]" if C is not None else "[0, ∞)"
        first = int(np.argmax(outside))
        raise ValueError(f"alpha must lie in the box {box}" + (f" with C={C:g}" if C is not None else "")
                         + f"; received {int(outside.sum())} entries outside it, the first alpha[{first}] = "
                         f"{alpha[first]:g}. Pass the multipliers of fit_svm_dual with the same C.")


def not_converged(max_iter, gap, tol):
    """The error of SMO stopped by ``max_iter`` with the KKT gap still at least ``tol``."""
    return ValueError(
        f"SMO did not converge within max_iter={max_iter} pair updates: the KKT gap b_lower(α) − b_upper(α) is still "
        f"{gap:.3g}, above tol={tol:g}. Increase max_iter (e.g. max_iter={10 * max_iter}) or tol; a very large C on "
        "data that are not separable, or badly scaled features, make SMO slow.")


def diverged(t, norm, w_max, eta):
    """The error of subgradient descent whose weights outgrew 100 W_max at step ``t``: the step size is too large."""
    return FloatingPointError(
        f"subgradient descent diverged at step {t}: the weights reached ‖w[1:]‖ = {norm:.4g}, more than 100 times "
        f"W_max = C Σ‖x⁽ⁱ⁾‖ = {w_max:.4g}, which bounds them at every step when eta <= 1 (or the cost overflowed). "
        f"The step size eta={eta:g} is too large; use eta=1 (Pegasos' step 1/t).")
