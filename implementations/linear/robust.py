"""Loss functions of the residual e = y − ŷ, and robust regression by reweighted least squares.

Every loss ρ acts elementwise on residuals of any shape (finite, at least one); its mean over the training set is the
cost (so ``mse(e).mean()`` is the MSE of eq. (1.23)). Each has its derivative ψ = ρ′ beside it,
which is what fitting needs.
"""

import numpy as np

from .._contract import checked
from .regression import add_bias, normal_equations

__all__ = [
    "mse",
    "mae",
    "huber",
    "tukey_bisquare",
    "mse_derivative",
    "mae_derivative",
    "huber_derivative",
    "tukey_bisquare_derivative",
    "fit_robust",
]


@checked(e="array")
def mse(e):
    """Squared error ρ(e) = e², the per-example term of the MSE, eq. (1.23)."""
    return e**2


@checked(e="array")
def mse_derivative(e):
    """ψ(e) = 2e."""
    return 2.0 * e


@checked(e="array")
def mae(e):
    """Absolute error ρ(e) = abs(e), the per-example term of the MAE, eq. (1.23)."""
    return np.abs(e)


@checked(e="array")
def mae_derivative(e):
    """ψ(e) = sign(e), taking the subgradient 0 at e = 0."""
    return np.sign(e)


@checked(e="array", delta="rate")
def huber(e, delta):
    """Huber's loss, eq. (1.24): ½e² for abs(e) ≤ δ, δ·abs(e) − ½δ² beyond.

    Quadratic near zero, linear in the tails; convex and once differentiable.

    Parameters
    ----------
    e : array_like
        Residuals.
    delta : float
        Threshold δ > 0 between the quadratic and the linear part.
    """
    small = np.abs(e) <= delta
    return np.where(small, 0.5 * e**2, delta * np.abs(e) - 0.5 * delta**2)


@checked(e="array", delta="rate")
def huber_derivative(e, delta):
    """ψ(e) = e for abs(e) ≤ δ, δ·sign(e) beyond, eq. (1.24): large residuals pull with a bounded force."""
    return np.clip(e, -delta, delta)


@checked(e="array", delta="rate")
def tukey_bisquare(e, delta):
    """Tukey's bisquare loss, eq. (1.25): (δ²/6)[1 − (1 − (e/δ)²)³] for abs(e) ≤ δ, δ²/6 beyond.

    Bounded, so a residual beyond δ costs the same however large it is: such points stop
    influencing the fit. Not convex.

    Parameters
    ----------
    e : array_like
        Residuals.
    delta : float
        Cut-off δ > 0.
    """
    u = np.minimum((e / delta) ** 2, 1.0)  # (e/δ)², capped so the tails are flat
    return delta**2 / 6 * (1 - (1 - u) ** 3)


@checked(e="array", delta="rate")
def tukey_bisquare_derivative(e, delta):
    """ψ(e) = e(1 − (e/δ)²)² for abs(e) ≤ δ and 0 beyond, eq. (1.25)."""
    u = np.minimum((e / delta) ** 2, 1.0)  # (e/δ)², capped: ψ = 0 beyond δ
    return e * (1 - u) ** 2


def _irls_weights(e, loss, delta):
    """ωᵢ = ψ(eᵢ)/eᵢ, with its limit at e = 0; eq. (1.26). ("mse" never gets here: one solve suffices.)"""
    abs_e = np.abs(e)
    if loss == "mae":
        return 1.0 / np.maximum(abs_e, 1e-8)  # 1/|e|, floored so an exact fit does not divide by zero
    if loss == "huber":
        return np.minimum(1.0, delta / np.maximum(abs_e, 1e-300))
    return np.where(abs_e <= delta, (1 - (e / delta) ** 2) ** 2, 0.0)  # tukey


@checked(X="array (N, m)", y="array (N,)", loss="{mse, mae, huber, tukey}", delta="rate", num_iters="count",
         tol="penalty")
def fit_robust(X, y, *, loss, delta=1.0, num_iters=100, tol=1e-10):
    """Minimize Σᵢ ρ(y⁽ⁱ⁾ − ŷ⁽ⁱ⁾) by iteratively reweighted least squares (IRLS), eq. (1.26).

    At a minimum Σᵢ ψ(eᵢ) φ⁽ⁱ⁾ = 0. Writing ψ(eᵢ) = ωᵢ eᵢ turns this into the normal equations of a
    *weighted* least-squares problem, ΦᵀΩΦ w = ΦᵀΩ y with Ω = diag(ω); IRLS alternates between
    computing the weights from the residuals and solving that problem.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    loss : {"mse", "mae", "huber", "tukey"}
    delta : float, default 1.0
        δ of the Huber and Tukey losses, in the units of y (ignored by "mse" and "mae").
    num_iters : int, default 100
        Maximum number of reweighting steps.
    tol : float, default 1e-10
        Stop when no weight moves by more than ``tol * (1 + max|w|)``; a finite number >= 0.

    Returns
    -------
    w : ndarray of shape (m + 1,)
        ``w[0]`` is the bias.

    Notes
    -----
    The start is the least-squares fit, except for Tukey's loss: it is not convex, so IRLS can stop
    in a poor local minimum, and it starts from the Huber fit instead.
    """
    w = normal_equations(X, y)  # the least-squares start
    if loss == "mse":
        return w
    if loss == "tukey":  # not convex: start from the Huber fit, not from least squares
        w = fit_robust(X, y, loss="huber", delta=delta, num_iters=num_iters, tol=tol)
    Phi = add_bias(X)  # (N, m + 1)
    for _ in range(num_iters):
        root = np.sqrt(_irls_weights(y - Phi @ w, loss, delta))  # (N,): √ωᵢ of eq. (1.26)
        w_new, *_ = np.linalg.lstsq(root[:, None] * Phi, root * y, rcond=None)  # weighted least squares
        converged = np.max(np.abs(w_new - w)) <= tol * (1 + np.max(np.abs(w)))
        w = w_new
        if converged:
            break
    return w
