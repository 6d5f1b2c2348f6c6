"""The lasso: L1-regularised linear regression, fitted by cyclic coordinate descent.

Chapter 1, section "Generalisation and model selection". Conventions (those of the chapter):

* ``X`` has shape (N, m): N examples, m raw features, no bias column; ``y`` has shape (N,);
* ``w`` has shape (m + 1,): ``w[0]`` is the bias w₀, ``w[1:]`` multiply the columns of ``X``;
* Φ = ``regression.add_bias(X)`` is the design matrix, its column φ_j multiplies w_j (φ₀ = 1).

The cost is scaled as scikit-learn's ``Lasso`` scales it, so that ``l1`` here is its ``alpha``:

    J(w) = (1/2N) ‖y − Φw‖² + λ₁ Σ_{j≥1} |w_j|,        λ₁ = ``l1`` >= 0; the bias is not penalised.

Unlike the ridge penalty, |w_j| has a kink at 0, so J has no gradient there and no closed-form minimiser;
its minimiser sets some weights *exactly* to zero, which selects features.
"""

import math

import numpy as np

from ._validation import (
    as_finite_array,
    check_finite_any_shape,
    check_nonnegative,
    check_positive,
    check_positive_int,
    check_w,
    check_X_y,
)
from .regression import _cost  # the squared-error part, (1/2N)‖y − Φw‖², as compute_cost(..., average=True)

__all__ = ["soft_threshold", "lasso_cost", "l1_max", "fit_lasso", "lasso_path"]


def soft_threshold(z, t):
    """The soft-thresholding operator S(z, t) = sign(z) · max(|z| − t, 0), elementwise.

    S(z, t) is the minimiser of ½(w − z)² + t|w| over w (the proximal operator of t|·|): 0 ∈ w − z + t ∂|w|
    gives w = z − t sign(w) when w ≠ 0, possible only for |z| > t, and w = 0 when |z| ≤ t. It shrinks z
    towards 0 by t and sets it to exactly 0 inside [−t, t].

    Parameters
    ----------
    z : array_like of any shape
        Values to shrink.
    t : float
        Threshold t >= 0.

    Returns
    -------
    w : ndarray of the shape of ``z``
    """
    z = check_finite_any_shape(z, "z")
    t = check_nonnegative(t, "t")
    return np.sign(z) * np.maximum(np.abs(z) - t, 0.0)


def lasso_cost(X, y, w, *, l1):
    """The lasso cost J(w) = (1/2N) ‖y − Φw‖² + λ₁ Σ_{j≥1} |w_j|; the bias w₀ is not penalised.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    w : array_like of shape (m + 1,)
        ``w[0]`` is the bias.
    l1 : float
        Penalty strength λ₁ >= 0 (scikit-learn's ``alpha``).

    Returns
    -------
    J : float
    """
    X, y = check_X_y(X, y)
    w = check_w(w, X.shape[1])
    l1 = check_nonnegative(l1, "l1")
    return _cost(X, y, w, 0.0, average=True) + l1 * float(np.abs(w[1:]).sum())  # (1/2N)‖y − Φw‖² + λ₁‖w_{1:}‖₁


def l1_max(X, y):
    """The smallest λ₁ at which the lasso sets every feature weight to zero: max_j |(1/N) φ_jᵀ(y − ȳ)|.

    At w = (ȳ, 0, …, 0) the residual is y − ȳ, and the optimality condition of a zero weight,
    |(1/N) φ_jᵀ(y − Φw)| <= λ₁, holds for every j exactly when λ₁ >= this value. It is the natural top of a
    grid of penalties (scikit-learn's ``alpha_max``).

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)

    Returns
    -------
    l1_max : float
    """
    X, y = check_X_y(X, y)
    Xc, yc, _, _ = _centre(X, y)  # (N, m), (N,): (1/N) φ_jᵀ(y − ȳ) = (1/N) (φ_j − φ̄_j)ᵀ(y − ȳ)
    # the same dot products as the first coordinate step from w = 0, so that l1=l1_max(X, y) gives exact zeros
    return max((abs(x_j @ yc) / X.shape[0] for x_j in np.ascontiguousarray(Xc.T)), default=0.0)  # m = 0: 0


def _centre(X, y):
    """Centred copies of X and y and their means; an exactly constant column becomes exactly zero."""
    x_mean, y_mean = X.mean(axis=0), y.mean()  # (m,), scalar
    Xc = X - x_mean  # (N, m)
    Xc[:, np.ptp(X, axis=0) == 0] = 0.0  # a constant column's mean can differ from its value by round-off
    return Xc, y - y_mean, x_mean, y_mean


def _coordinate_descent(Xc, yc, l1, w, num_iters, tol):
    """Cyclic coordinate descent on (1/2N)‖yc − Xc w‖² + λ₁‖w‖₁ for centred data; ``w`` (m,) is updated in place.

    Returns the number of sweeps used, or None if the largest change of the last of ``num_iters`` sweeps was
    still >= ``tol``. Inputs are checked by the caller.
    """
    N, m = Xc.shape
    Xc_T = np.ascontiguousarray(Xc.T)  # (m, N): row j is the centred column φ_j − φ̄_j, contiguous in memory
    z = np.einsum("jn,jn->j", Xc_T, Xc_T) / N  # (m,): z_j = (1/N)‖φ_j − φ̄_j‖²
    w[z == 0] = 0.0  # a constant feature predicts nothing; 0 is its minimum-norm weight
    r = yc - Xc @ w  # (N,): the residual, kept up to date after every coordinate step
    for sweep in range(1, num_iters + 1):
        max_change = 0.0
        for j in range(m):
            if z[j] == 0:
                continue
            rho = Xc_T[j] @ r / N + z[j] * w[j]  # ρ_j = (1/N) φ_jᵀ(r + φ_j w_j): the fit without w_j
            w_new = math.copysign(max(abs(rho) - l1, 0.0), rho) / z[j]  # w_j ← S(ρ_j, λ₁) / z_j
            delta = w_new - w[j]
            if delta != 0.0:
                r -= delta * Xc_T[j]  # r = y − Φw stays exact without recomputing Φw
                w[j] = w_new
                max_change = max(max_change, abs(delta))
        if max_change < tol:
            return sweep
    return None


def _not_converged(num_iters, tol, what=""):
    return ValueError(
        f"coordinate descent did not converge{what} within num_iters={num_iters} sweeps: a weight still changed "
        f"by tol={tol:g} or more in the last sweep. Increase num_iters (e.g. num_iters={10 * num_iters}) or "
        "tol; standardizing the features also helps, since strongly correlated or badly scaled features slow "
        "coordinate descent down."
    )


def fit_lasso(X, y, *, l1, num_iters=1000, tol=1e-8, w_init=None):
    """Minimise the lasso cost J(w) = (1/2N) ‖y − Φw‖² + λ₁ Σ_{j≥1} |w_j| by cyclic coordinate descent.

    **Optimality.** J is convex; w minimises it exactly when 0 ∈ ∂J(w), its subdifferential. With the
    residual r = y − Φw, that is: for the unpenalised bias, (1/N) Σᵢ rᵢ = 0, i.e. w₀ = ȳ − x̄ᵀw_{1:};
    for each feature j >= 1,

    * (1/N) φ_jᵀ r = λ₁ sign(w_j)   if w_j ≠ 0 (the correlation with the residual is exactly ±λ₁),
    * |(1/N) φ_jᵀ r| <= λ₁           if w_j = 0 (the subgradient of |w_j| at 0 is the interval [−1, 1]).

    **Coordinate update.** Minimising J over w_j alone, the others fixed, is the one-dimensional problem of
    :func:`soft_threshold`: with ρ_j = (1/N) φ_jᵀ(r + φ_j w_j) and z_j = (1/N) ‖φ_j‖²,

        w_j ← S(ρ_j, λ₁) / z_j.

    The bias is minimised out after every such step (w₀ = ȳ − x̄ᵀw_{1:}), which is the same as running the
    updates on centred columns φ_j − φ̄_j and centred targets y − ȳ; that makes the updates independent of
    the features' offsets, as in scikit-learn. A sweep updates w₁, …, w_m in turn, and J never increases.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    l1 : float
        Penalty strength λ₁ >= 0 (scikit-learn's ``Lasso(alpha=l1)``); λ₁ >= :func:`l1_max` gives all-zero
        feature weights, λ₁ = 0 least squares.
    num_iters : int, default 1000
        Maximum number of sweeps.
    tol : float, default 1e-8
        Stop after the first sweep in which no weight changed by ``tol`` or more (in the units of the weights).
    w_init : array_like of shape (m + 1,), optional
        Starting weights (a warm start); only the feature weights ``w_init[1:]`` matter, the bias is computed.
        Zeros by default.

    Returns
    -------
    w : ndarray of shape (m + 1,)
        ``w[0]`` is the bias. A feature that is constant in ``X`` gets the weight 0.

    Raises
    ------
    ValueError
        If a sweep still changes a weight by ``tol`` or more after ``num_iters`` sweeps.
    """
    X, y = check_X_y(X, y)
    l1 = check_nonnegative(l1, "l1")
    num_iters = check_positive_int(num_iters, "num_iters")
    tol = check_positive(tol, "tol")
    m = X.shape[1]
    w = np.zeros(m) if w_init is None else check_w(w_init, m, name="w_init")[1:].copy()  # (m,)

    Xc, yc, x_mean, y_mean = _centre(X, y)  # (N, m), (N,), (m,), scalar
    if _coordinate_descent(Xc, yc, l1, w, num_iters, tol) is None:
        raise _not_converged(num_iters, tol)
    return np.r_[y_mean - x_mean @ w, w]  # (m + 1,): w₀ = ȳ − x̄ᵀw_{1:}


def lasso_path(X, y, *, l1s, num_iters=1000, tol=1e-8):
    """Lasso weights for a sequence of penalties λ₁, each fit warm-started from the previous one.

    The penalties are visited from the largest to the smallest, as scikit-learn's ``lasso_path`` does: at a
    large λ₁ most weights are zero and the solution is found in a sweep or two, and each smaller λ₁ starts
    from a solution close to its own. Each fit is :func:`fit_lasso` (same cost, optimality conditions and
    coordinate update); the rows of the result come back in the order of ``l1s`` as given.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    l1s : array_like of shape (L,)
        Penalty strengths λ₁ >= 0, in any order, e.g. ``l1_max(X, y) * np.logspace(0, -3, 30)``.
    num_iters : int, default 1000
        Maximum number of sweeps for each λ₁.
    tol : float, default 1e-8
        As in :func:`fit_lasso`.

    Returns
    -------
    W : ndarray of shape (L, m + 1)
        Row i holds the weights for ``l1s[i]``, bias first.

    Raises
    ------
    ValueError
        If the fit for some λ₁ does not converge within ``num_iters`` sweeps.
    """
    X, y = check_X_y(X, y)
    l1s = as_finite_array(l1s, "l1s", ndim=1, allow_empty=False)
    if np.any(l1s < 0):
        raise ValueError(f"l1s must hold penalties >= 0; received {l1s[l1s < 0].size} negative value(s), the first "
                         f"{l1s[l1s < 0][0]:g}. Use e.g. l1s=l1_max(X, y) * np.logspace(0, -3, 30).")
    num_iters = check_positive_int(num_iters, "num_iters")
    tol = check_positive(tol, "tol")

    Xc, yc, x_mean, y_mean = _centre(X, y)  # (N, m), (N,), (m,), scalar
    W = np.empty((l1s.size, X.shape[1] + 1))  # (L, m + 1)
    w = np.zeros(X.shape[1])  # (m,): carried from one λ₁ to the next
    for i in np.argsort(-l1s, kind="stable"):  # largest λ₁ first
        if _coordinate_descent(Xc, yc, l1s[i], w, num_iters, tol) is None:
            raise _not_converged(num_iters, tol, what=f" for l1s[{i}]={l1s[i]:g}")
        W[i] = np.r_[y_mean - x_mean @ w, w]
    return W
