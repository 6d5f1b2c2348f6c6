"""The lasso: L1-regularised linear regression, fitted by cyclic coordinate descent.

Chapter 1, section "Generalization and model selection". Conventions (those of the chapter):

* ``X`` has shape (N, m): N examples, m raw features, no bias column; ``y`` has shape (N,);
* ``w`` has shape (m + 1,): ``w[0]`` is the bias w₀, ``w[1:]`` multiply the columns of ``X``;
* Φ = ``regression.add_bias(X)`` is the design matrix, its column φ_j multiplies w_j (φ₀ = 1).

The cost is scaled as scikit-learn's ``Lasso`` scales it, so that ``l1`` here is its ``alpha``:

    J(w) = (1/2N) ‖y − Φw‖² + λ₁ Σ_{j≥1} abs(w_j),     λ₁ = ``l1`` >= 0; the bias is not penalised.

Unlike the ridge penalty, abs(w_j) has a kink at 0, so J has no gradient there and no closed-form minimiser;
its minimiser sets some weights *exactly* to zero, which selects features.
"""

import math

import numpy as np

from .._contract import checked
from ._checks import nonnegative_entries
from .regression import compute_cost

__all__ = ["soft_threshold", "lasso_cost", "l1_max", "fit_lasso", "lasso_path"]


@checked(z="array", t="penalty")
def soft_threshold(z, t):
    """The soft-thresholding operator soft(z, t) = sign(z) · max(abs(z) − t, 0), elementwise: eq. (1.31).

    soft(z, t) is the minimiser of ½(w − z)² + t abs(w) over w (the proximal operator of t abs(·)):
    0 ∈ w − z + t ∂abs(w) gives w = z − t sign(w) when w ≠ 0, possible only for abs(z) > t, and w = 0 when
    abs(z) ≤ t. It shrinks z towards 0 by t and sets it to exactly 0 inside [−t, t].

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
    return np.sign(z) * np.maximum(np.abs(z) - t, 0.0)


@checked(X="array (N, m)", y="array (N,)", w="array (m + 1,)", l1="penalty")
def lasso_cost(X, y, w, *, l1):
    """The lasso cost J(w) = (1/2N) ‖y − Φw‖² + λ₁ Σ_{j≥1} abs(w_j) of eq. (1.29); the bias w₀ is not penalised.

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
    return compute_cost(X, y, w, average=True) + l1 * float(np.abs(w[1:]).sum())  # (1/2N)‖y − Φw‖² + λ₁‖w_{1:}‖₁


@checked(X="array (N, m)", y="array (N,)")
def l1_max(X, y):
    """The smallest λ₁ at which the lasso sets every feature weight to zero: max_j abs((1/N) φ_jᵀ(y − ȳ)), eq. (1.30).

    At w = (ȳ, 0, …, 0) the residual is y − ȳ, and the optimality condition of a zero weight,
    abs((1/N) φ_jᵀ(y − Φw)) <= λ₁, holds for every j exactly when λ₁ >= this value. It is the natural top of a
    grid of penalties (scikit-learn's ``alpha_max``).

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)

    Returns
    -------
    l1_max : float
    """
    Xc, yc, _, _ = _centre(X, y)  # (N, m), (N,): (1/N) φ_jᵀ(y − ȳ) = (1/N) (φ_j − φ̄_j)ᵀ(y − ȳ)
    # the same dot products as the first coordinate step from w = 0, so that l1=l1_max(X, y) gives exact zeros
    return max(abs(x_j @ yc) / X.shape[0] for x_j in np.ascontiguousarray(Xc.T))  # max_j abs((1/N) φ_jᵀ(y − ȳ))


def _centre(X, y):
    """Centred copies of X and y and their means; an exactly constant column becomes exactly zero."""
    x_mean, y_mean = X.mean(axis=0), y.mean()  # (m,), scalar
    Xc = X - x_mean  # (N, m)
    Xc[:, np.ptp(X, axis=0) == 0] = 0.0  # a constant column's mean can differ from its value by round-off
    return Xc, y - y_mean, x_mean, y_mean


def _solve_on_support(Xc_T, yc, l1, w):
    """Move ``w`` (m,) to the exact minimiser for its zero pattern and signs; True if w then minimises J.

    On the support A = {j : w_j ≠ 0}, while the signs s_A are kept, J is the quadratic
    (1/2N)‖yc − X_A v‖² + λ₁ s_Aᵀv, minimised where G_AA v = c_A − λ₁ s_A (G = (1/N) XcᵀXc, c = (1/N) Xcᵀyc on
    centred data). If v flips a sign, w moves towards v only until its first weight reaches zero, that weight
    leaves the support, and the system is solved again. Each move lowers J (checked). Once v keeps its signs, w
    moves to it, and it minimises J if every zero weight has abs((1/N) φ_jᵀ r) <= λ₁ too.
    """
    N = yc.shape[0]

    def cost(v, X_A):  # J of eq. (1.29) restricted to the support, on centred data: the bias is 0
        return lasso_cost(X_A.T, yc, np.r_[0.0, v], l1=l1)

    while True:
        support = np.flatnonzero(w)  # (|A|,)
        signs, w_A, X_A = np.sign(w[support]), w[support], Xc_T[support]  # (|A|,), (|A|,), (|A|, N)
        try:
            v = np.linalg.solve(X_A @ X_A.T / N, X_A @ yc / N - l1 * signs)  # G_AA v = c_A − λ₁ s_A
        except np.linalg.LinAlgError:  # a singular G_AA: leave it to the sweeps
            return False
        flipped = np.flatnonzero(np.sign(v) != signs)
        if flipped.size:  # stop on the boundary of the orthant, where the first weight reaches zero
            t = w_A[flipped] / (w_A[flipped] - v[flipped])  # (flipped,): in (0, 1]
            v = w_A + t.min() * (v - w_A)
            v[flipped[np.argmin(t)]] = 0.0
        if not cost(v, X_A) <= cost(w_A, X_A):  # round-off in a nearly singular G_AA: stop here
            return False
        w[support] = v
        if not flipped.size:
            break
    q = Xc_T @ (yc - v @ X_A) / N  # (m,): (1/N) φ_jᵀ r for every feature j
    slack = 1e-10 * max(l1, np.abs(Xc_T @ yc).max() / N)  # round-off allowance, relative to l1_max
    zero = np.ones(w.shape[0], dtype=bool)
    zero[support] = False
    return bool(np.all(np.abs(q[support] - l1 * signs) <= slack) and np.all(np.abs(q[zero]) <= l1 + slack))


def _not_converged(num_iters, tol, what=""):
    return ValueError(
        f"coordinate descent did not converge{what} within num_iters={num_iters} sweeps: a weight still changed "
        f"by tol={tol:g} or more in the last sweep. Increase num_iters (e.g. num_iters={10 * num_iters}) or "
        "tol; standardizing the features also helps, since strongly correlated or badly scaled features slow "
        "coordinate descent down."
    )


@checked(X="array (N, m)", y="array (N,)", l1="penalty", num_iters="count", tol="rate", w_init="array (m + 1,)?")
def fit_lasso(X, y, *, l1, num_iters=1000, tol=1e-8, w_init=None):
    """Minimise the lasso cost (1.29) by cyclic coordinate descent, eqs. (1.30) and (1.31).

    **Optimality.** J is convex; w minimises it exactly when 0 ∈ ∂J(w), its subdifferential. With the
    residual r = y − Φw, that is: for the unpenalised bias, (1/N) Σᵢ rᵢ = 0, i.e. w₀ = ȳ − x̄ᵀw_{1:};
    for each feature j >= 1,

    * (1/N) φ_jᵀ r = λ₁ sign(w_j)   if w_j ≠ 0 (the correlation with the residual is exactly ±λ₁),
    * abs((1/N) φ_jᵀ r) <= λ₁        if w_j = 0 (the subgradient of abs(w_j) at 0 is the interval [−1, 1]).

    **Coordinate update.** Minimising J over w_j alone, the others fixed, is the one-dimensional problem of
    :func:`soft_threshold`: with ρ_j = (1/N) φ_jᵀ(r + φ_j w_j) and z_j = (1/N) ‖φ_j‖²,

        w_j ← soft(ρ_j, λ₁) / z_j.

    The bias is minimised out after every such step (w₀ = ȳ − x̄ᵀw_{1:}), which is the same as running the
    updates on centred columns φ_j − φ̄_j and centred targets y − ȳ; that makes the updates independent of
    the features' offsets, as in scikit-learn. A sweep updates w₁, …, w_m in turn, and J never increases.

    **Exact finish.** When a sweep changes no weight's sign (zero counts as a sign), the support A of the
    non-zero weights and their signs s_A have probably settled. On them the conditions above are the linear
    system G_AA w_A = c_A − λ₁ s_A (G = (1/N) ΦᵀΦ and c = (1/N) Φᵀy on centred data), which
    ``_solve_on_support`` solves: it moves w to the solution, or, if the solution flips a sign, only as far
    as the first weight that reaches zero, drops that weight and solves again; each move lowers J. If the
    solution then satisfies every condition, it is the exact minimiser and the fit stops; otherwise the sweeps
    go on. Strongly correlated features, on which the sweeps alone crawl, then need only a few sweeps.

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
        Stop after the first sweep in which no weight changed by ``tol`` or more (in the units of the weights),
        unless the exact finish has stopped earlier.
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
    m = X.shape[1]
    w = np.zeros(m) if w_init is None else w_init[1:].copy()  # (m,): the bias is computed, not started

    Xc, yc, x_mean, y_mean = _centre(X, y)  # (N, m), (N,): the bias is minimised out, w₀ = ȳ − x̄ᵀw
    Xc_T = np.ascontiguousarray(Xc.T)  # (m, N): row j is the centred column φ_j − φ̄_j
    N = X.shape[0]
    z = np.einsum("jn,jn->j", Xc_T, Xc_T) / N  # (m,): z_j = (1/N)‖φ_j − φ̄_j‖²
    w[z == 0] = 0.0  # a constant feature predicts nothing; 0 is its minimum-norm weight
    r = yc - Xc @ w  # (N,): the residual, kept up to date after every coordinate step
    for _ in range(num_iters):
        max_change, same_signs = 0.0, True
        for j in np.flatnonzero(z):
            rho = Xc_T[j] @ r / N + z[j] * w[j]  # ρ_j = (1/N) φ_jᵀ(r + φ_j w_j): the fit without w_j
            shrunk = abs(rho) - l1
            w_j = math.copysign(shrunk, rho) / z[j] if shrunk > 0 else 0.0  # w_j ← soft(ρ_j, λ₁) / z_j, eq. (1.31)
            if w_j != w[j]:
                same_signs &= np.sign(w_j) == np.sign(w[j])
                max_change = max(max_change, abs(w_j - w[j]))
                r -= (w_j - w[j]) * Xc_T[j]  # r = y − Φw stays exact without recomputing Φw
                w[j] = w_j
        if max_change < tol or (same_signs and _solve_on_support(Xc_T, yc, l1, w)):  # settled signs: solve
            return np.r_[y_mean - x_mean @ w, w]  # (m + 1,): w₀ = ȳ − x̄ᵀw_{1:}
        r = yc - w @ Xc_T  # (N,): exact again, also where the step on the support moved w
    raise _not_converged(num_iters, tol)


@checked(X="array (N, m)", y="array (N,)", l1s="array (L,)", num_iters="count", tol="rate",
         also=nonnegative_entries)
def lasso_path(X, y, *, l1s, num_iters=1000, tol=1e-8):
    """Lasso weights, minimising eq. (1.29), for a sequence of penalties λ₁, each fit warm-started from the last.

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
    W = np.empty((l1s.size, X.shape[1] + 1))  # (L, m + 1)
    w = np.zeros(X.shape[1] + 1)  # (m + 1,): carried from one λ₁ to the next
    for i in np.argsort(-l1s, kind="stable"):  # largest λ₁ first
        try:
            w = fit_lasso(X, y, l1=l1s[i], num_iters=num_iters, tol=tol, w_init=w)
        except ValueError:
            raise _not_converged(num_iters, tol, what=f" for l1s[{i}]={l1s[i]:g}") from None
        W[i] = w
    return W
