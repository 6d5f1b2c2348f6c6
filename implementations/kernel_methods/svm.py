"""Support vector machines: the hinge-loss primal by subgradient descent, the dual by SMO, and a kernel SVM.

Chapter 3, section "Support vector machines". Conventions (those of the chapter):

* ``X`` has shape (N, m): N examples, m raw features, no bias column;
* ``y`` holds the labels y⁽ⁱ⁾ ∈ {−1, +1}; every function also accepts 0 and 1 and reads 0 as −1 (a single class, or
  any other value, is refused);
* in the primal, ``w`` has shape (m + 1,): ``w[0]`` is the bias b, ``w[1:]`` the weights, and the decision function
  is f(x) = w₀ + xᵀw_{1:}. The bias is not penalised;
* in the dual, the functions work on a Gram matrix ``K`` (N, N), K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾), or on a Gram block
  ``K_cross`` (N′, N) = κ(X_new, X_train), so any kernel works; :class:`KernelSVM` takes the kernel as a function.

The primal cost, eq. (3.14), with C > 0 and the *functional margin* z⁽ⁱ⁾ = y⁽ⁱ⁾ f(x⁽ⁱ⁾):

    J(w) = ½‖w_{1:}‖² + C Σᵢ max(0, 1 − y⁽ⁱ⁾ f(x⁽ⁱ⁾)),

and its dual, eq. (3.18), a quadratic program in the multipliers α (N,):

    maximise Σᵢ αᵢ − ½ Σᵢ Σⱼ αᵢ αⱼ y⁽ⁱ⁾ y⁽ʲ⁾ K_ij   subject to 0 <= αᵢ <= C and Σᵢ αᵢ y⁽ⁱ⁾ = 0,

whose solution gives the decision function f(x) = Σᵢ αᵢ y⁽ⁱ⁾ κ(x⁽ⁱ⁾, x) + b, eq. (3.19). The
examples with αᵢ > 0 are the *support vectors*; the others do not enter f at all.
"""

import math

import numpy as np

from .._validation import (
    as_array,
    as_finite_array,
    check_callable,
    check_finite_any_shape,
    check_finite_number,
    check_positive,
    check_positive_int,
    check_w,
    check_X,
)
from ..linear.regression import add_bias

__all__ = [
    "hinge",
    "svm_primal_cost",
    "svm_primal_subgradient",
    "fit_svm_primal",
    "fit_svm_dual",
    "kkt_violations",
    "svm_decision_function",
    "KernelSVM",
]


# --- labels, Gram matrices and multipliers --------------------------------------------------------------------------


def _pm1_labels(y, name="y"):
    """Labels in {−1, +1} or {0, 1} as floats ±1 (N,), and the coding (2,): [−1, 1] or [0, 1], negative class first.

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
    return np.where(arr == 1.0, 1.0, -1.0), values.astype(np.int64)  # (N,) ±1, (2,) the coding given


def _check_labels_for(y, N, what):
    """Labels ±1 (N,) for the N rows of ``what`` (an argument's name and shape, for the message)."""
    y_pm, coding = _pm1_labels(y)
    if y_pm.shape[0] != N:
        raise ValueError(f"y has {y_pm.shape[0]} labels but {what}; expected one label per training example.")
    return y_pm, coding


def _check_gram(K, name="K"):
    """A square, symmetric (to round-off), finite Gram matrix (N, N), returned exactly symmetric."""
    K = as_finite_array(K, name, ndim=2, allow_empty=False)
    if K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square Gram matrix (N, N) of the training inputs; received shape "
                         f"{K.shape}. Pass kernel(X_train, X_train), not a block between test and training inputs.")
    asymmetry, scale = np.abs(K - K.T).max(), np.abs(K).max()
    if asymmetry > 1e-10 * scale:
        raise ValueError(f"{name} must be symmetric, as every Gram matrix K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾) is; received a "
                         f"matrix with max abs(K − Kᵀ) = {asymmetry:.3g} for entries up to {scale:.3g}. Pass the same "
                         "inputs as both arguments of the kernel, or symmetrise it with (K + K.T) / 2.")
    return (K + K.T) / 2  # exactly symmetric: SMO reads row i of K as its column i


def _check_alpha(alpha, N, C=None):
    """Multipliers α (N,), finite, >= 0, and <= C when C is given."""
    alpha = as_finite_array(alpha, "alpha", ndim=1)
    if alpha.shape[0] != N:
        raise ValueError(f"alpha has {alpha.shape[0]} entries but there are {N} training examples; expected one "
                         "multiplier per example, as fit_svm_dual returns them.")
    upper = math.inf if C is None else C
    outside = (alpha < 0) | (alpha > upper)
    if outside.any():
        box = "[0, C]" if C is not None else "[0, ∞)"
        raise ValueError(f"alpha must lie in the box {box}" + (f" with C={C:g}" if C is not None else "")
                         + f"; received {int(outside.sum())} entries outside it, the first alpha[{np.argmax(outside)}]"
                         f" = {alpha[np.argmax(outside)]:g}. Pass the multipliers of fit_svm_dual with the same C.")
    return alpha


# --- the primal: hinge loss and subgradient descent -----------------------------------------------------------------


def hinge(z):
    """The hinge loss max(0, 1 − z) of a functional margin z = y f(x), elementwise: the loss of eq. (3.14).

    It is zero for an example beyond its margin (z >= 1), and grows linearly as the example moves into the margin
    (0 < z < 1) and to the wrong side of the boundary (z <= 0). It is convex and bounds the 0–1 loss from above.

    Parameters
    ----------
    z : array_like of any shape
        Functional margins y⁽ⁱ⁾ f(x⁽ⁱ⁾).

    Returns
    -------
    loss : ndarray of the shape of ``z``
    """
    z = check_finite_any_shape(z, "z")
    return np.maximum(0.0, 1.0 - z)


def _check_primal(X, y, w, C):
    """Validated X (N, m), labels ±1 (N,), w (m + 1,) and C > 0."""
    X = check_X(X)
    y, _ = _check_labels_for(y, X.shape[0], f"X has {X.shape[0]} rows")
    w = check_w(w, X.shape[1])
    C = check_positive(C, "C")
    return X, y, w, C


def _cost_and_subgradient(Phi, y, w, C):
    """J(w) and the subgradient of eq. (3.15), for Φ = [1, X] (N, m + 1) and labels ±1."""
    z = y * (Phi @ w)  # (N,): functional margins y⁽ⁱ⁾ f(x⁽ⁱ⁾)
    violating = z < 1.0  # (N,): inside the margin or misclassified; z = 1 exactly counts as outside (slope 0)
    J = 0.5 * (w[1:] @ w[1:]) + C * np.sum(1.0 - z[violating])  # eq. (3.14)
    g = -C * (y[violating] @ Phi[violating])  # (m + 1,): −C Σ_{z⁽ⁱ⁾ < 1} y⁽ⁱ⁾ φ⁽ⁱ⁾
    g[1:] += w[1:]  # the penalty's gradient; the bias w₀ is not penalised
    return float(J), g


def svm_primal_cost(X, y, w, *, C):
    """The soft-margin SVM cost J(w) = ½‖w_{1:}‖² + C Σᵢ max(0, 1 − y⁽ⁱ⁾ f(x⁽ⁱ⁾)), eq. (3.14).

    Here f(x) = w₀ + xᵀw_{1:}; the bias w₀ is not penalised.

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Labels −1 and +1 (or 0 and 1).
    w : array_like of shape (m + 1,)
        ``w[0]`` is the bias b.
    C : float
        Weight C > 0 of the margin violations against the margin's width.

    Returns
    -------
    J : float
    """
    X, y, w, C = _check_primal(X, y, w, C)
    return _cost_and_subgradient(add_bias(X), y, w, C)[0]


def svm_primal_subgradient(X, y, w, *, C):
    """A subgradient of the SVM cost (3.14), eq. (3.15): g = (0, w_{1:}) − C Σ_{y⁽ⁱ⁾f(x⁽ⁱ⁾) < 1} y⁽ⁱ⁾ φ⁽ⁱ⁾.

    Here φ⁽ⁱ⁾ = (1, x⁽ⁱ⁾). Where no example has a margin of exactly 1, J is
    differentiable and g is its gradient. At the kink of example i (y⁽ⁱ⁾ f(x⁽ⁱ⁾) = 1 exactly), the hinge
    max(0, 1 − z) has every slope in [−1, 0] with respect to z, and its subdifferential with respect to w is
    {−t y⁽ⁱ⁾ φ⁽ⁱ⁾ : t ∈ [0, 1]}. We take t = 0: the example is counted with those beyond the margin, which do not
    pull on w. That is a valid subgradient because the subdifferential of a sum of convex functions contains the sum of
    one element of each, and it is the convention of Pegasos (only examples with margin below 1 contribute).

    Parameters
    ----------
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
        Labels −1 and +1 (or 0 and 1).
    w : array_like of shape (m + 1,)
        ``w[0]`` is the bias b.
    C : float
        C > 0.

    Returns
    -------
    g : ndarray of shape (m + 1,)
        ``g[0]`` is the component for the bias.
    """
    X, y, w, C = _check_primal(X, y, w, C)
    return _cost_and_subgradient(add_bias(X), y, w, C)[1]


def fit_svm_primal(X, y, *, C, eta, num_iters):
    """Minimise the SVM cost, eq. (3.14), by subgradient descent with the step η_t = η / t.

    The update, eq. (3.15), is w ← w − (η/t) g(w) at step t = 1, 2, …, from w = 0, with g the
    subgradient of :func:`svm_primal_subgradient`. **The step rule.** J is 1-strongly convex in w_{1:} (its penalty is
    ½‖w_{1:}‖²), and for such a function the steps 1/t are those of Pegasos (Shalev-Shwartz *et al.*, 2011): rescaled
    to J/(NC) = (λ_P/2)‖w_{1:}‖² + (1/N) Σᵢ max(0, 1 − y⁽ⁱ⁾f(x⁽ⁱ⁾)) with λ_P = 1/(NC), Pegasos' step 1/(λ_P t) on J/(NC)
    is the step 1/t on J. This is Pegasos with the full batch in every step and without its optional projection of
    w_{1:} onto a ball. With η = 1 the first step jumps to w = C Σᵢ y⁽ⁱ⁾φ⁽ⁱ⁾, and every later w_{1:} is the average of
    the vectors C Σ_{z⁽ⁱ⁾<1} y⁽ⁱ⁾ x⁽ⁱ⁾ met so far, so the large first vector is averaged away only like 1/t.
    Every η > 0 gives steps with Σ η_t = ∞ and Σ η_t² < ∞, the classical condition under which the best cost
    converges to the minimum, but an η well below 1 makes the convergence much slower; use η = 1, or a little more.

    **Not a descent method.** A subgradient step can raise J, so the cost history is not monotone and the function
    returns the *best* iterate, not the last. The bias is not penalised, so J is not strongly convex in it and the
    bias converges more slowly than w_{1:}, most of all on separable data with a large C (close to a hard margin); the
    dual solver :func:`fit_svm_dual` has no such trouble.

    **Divergence.** Each step sets w_{1:} ← (1 − η/t) w_{1:} + (η/t) C Σ_{z⁽ⁱ⁾<1} y⁽ⁱ⁾x⁽ⁱ⁾. For η <= 1 that is an
    average of vectors no longer than H = C Σᵢ ‖x⁽ⁱ⁾‖, so ‖w_{1:}‖ <= H throughout. A larger η first amplifies w_{1:},
    by the factor abs(1 − η/t) > 1 of each step t < η/2; weights beyond 100 H, or an overflow, are reported as
    divergence.

    Parameters
    ----------
    X : array_like of shape (N, m)
        Raw features; standardize them first, since the step is the same for every weight.
    y : array_like of shape (N,)
        Labels −1 and +1 (or 0 and 1).
    C : float
        C > 0.
    eta : float
        η > 0 in the step η/t; η = 1 is Pegasos' step.
    num_iters : int
        Number of steps.

    Returns
    -------
    w : ndarray of shape (m + 1,)
        The iterate of lowest cost, ``w[0]`` the bias.
    cost_history : ndarray of shape (num_iters,)
        Entry k is the cost after step k + 1; not monotone.

    Raises
    ------
    FloatingPointError
        If ‖w_{1:}‖ exceeds 100 H or the cost overflows: η is too large.
    """
    X = check_X(X)
    y, _ = _check_labels_for(y, X.shape[0], f"X has {X.shape[0]} rows")
    C = check_positive(C, "C")
    eta = check_positive(eta, "eta")
    num_iters = check_positive_int(num_iters, "num_iters")

    Phi = add_bias(X)  # (N, m + 1)
    H = C * np.linalg.norm(X, axis=1).sum()  # ‖w_{1:}‖ <= H at every step when η <= 1
    w = np.zeros(Phi.shape[1])  # (m + 1,)
    J, g = _cost_and_subgradient(Phi, y, w, C)
    w_best, J_best = w.copy(), J
    cost_history = np.empty(num_iters)
    for t in range(1, num_iters + 1):
        w -= (eta / t) * g  # eq. (3.15) with η_t = η/t
        J, g = _cost_and_subgradient(Phi, y, w, C)
        norm = math.sqrt(w[1:] @ w[1:])
        if not (math.isfinite(J) and norm <= 100 * H):
            raise FloatingPointError(
                f"subgradient descent diverged at step {t}: the weights reached ‖w[1:]‖ = {norm:.4g}, more than 100 "
                f"times H = C Σ‖x⁽ⁱ⁾‖ = {H:.4g}, which bounds them at every step when eta <= 1 (or the cost "
                f"overflowed). The step size eta={eta:g} is too large; use eta=1 (Pegasos' step 1/t).")
        cost_history[t - 1] = J
        if J < J_best:
            w_best, J_best = w.copy(), J
    return w_best, cost_history


# --- the dual: SMO ------------------------------------------------------------------------------------------------


def _not_converged(max_iter, gap, tol):
    return ValueError(
        f"SMO did not converge within max_iter={max_iter} pair updates: the KKT gap b_up(α) − b_low(α) is still "
        f"{gap:.3g}, above tol={tol:g}. Increase max_iter (e.g. max_iter={10 * max_iter}) or tol; a very large C on "
        "data that are not separable, or badly scaled features, make SMO slow.")


def fit_svm_dual(K, y, *, C, tol=1e-6, max_iter=100_000):
    """Solve the SVM dual, eq. (3.18), by SMO, eqs. (3.21)–(3.22), with second-order working-set selection.

    The dual maximises D(α) = Σₖ αₖ − ½ αᵀQα, with Q_kj = y⁽ᵏ⁾y⁽ʲ⁾K_kj, over the box 0 <= αₖ <= C and
    the line Σₖ αₖ y⁽ᵏ⁾ = 0 (LIBSVM states the same problem as minimising −D). SMO (Platt, 1998) changes two
    multipliers at a time, the fewest that can move along the line.

    **What it keeps.** b̂ₖ = y⁽ᵏ⁾ − Σⱼ αⱼ y⁽ʲ⁾ K_kj for every example k, the bias that puts example k exactly on its
    margin, y⁽ᵏ⁾ f(x⁽ᵏ⁾) = 1. It gives the dual's gradient, ∂D/∂αₖ = 1 − y⁽ᵏ⁾Σⱼ αⱼ y⁽ʲ⁾ K_kj = y⁽ᵏ⁾ b̂ₖ.

    **Optimality, eq. (3.21).** Moving αₖ by y⁽ᵏ⁾δ changes D at the rate b̂ₖ δ. Let I_up be the examples whose αₖ
    can move that way with δ > 0 (αₖ < C with y⁽ᵏ⁾ = +1, or αₖ > 0 with y⁽ᵏ⁾ = −1): they need b >= b̂ₖ. I_low holds
    those that can move with δ < 0 (αₖ > 0 with y⁽ᵏ⁾ = +1, or αₖ < C with y⁽ᵏ⁾ = −1): they need b <= b̂ₖ. With
    b_up(α) = max_{I_up} b̂ₖ and b_low(α) = min_{I_low} b̂ₖ, a feasible α is optimal exactly when
    b_up(α) <= b_low(α) (Keerthi *et al.*, 2001; Fan *et al.*, 2005, write them m(α) and M(α)); the loop stops
    once b_up(α) − b_low(α) < ``tol``.

    **The pair.** i is the maximal violator, argmax_{I_up} b̂ₖ. Among the k ∈ I_low with b̂ₖ < b̂ᵢ, j maximises the
    increase of D the pair would give without the box, (b̂ᵢ − b̂ₖ)² / (2qᵢₖ) with qᵢₖ = K_ii + K_kk − 2K_ik (LIBSVM's
    second-order choice, Fan *et al.*, 2005; qᵢₖ <= 0, possible only for a K that is not PSD, is replaced by 10⁻¹²).

    **The step, eq. (3.22).** αᵢ ← αᵢ + y⁽ⁱ⁾Δ and αⱼ ← αⱼ − y⁽ʲ⁾Δ keep Σ αₖ y⁽ᵏ⁾ unchanged; along that line D
    changes by (b̂ᵢ − b̂ⱼ)Δ − ½ qᵢⱼΔ², a parabola maximised at Δ = (b̂ᵢ − b̂ⱼ)/qᵢⱼ, which is then clipped so that both
    multipliers stay in [0, C]. Then every b̂ₖ changes by −Δ (K_ki − K_kj): O(N) per step, with K precomputed.

    **The bias.** Every free support vector (0 < αₖ < C) lies on its margin, so b = b̂ₖ for each of them; their
    average is returned. Without a free one, any b in [b_up(α), b_low(α)] satisfies the optimality conditions; the
    midpoint is returned.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix of the training inputs, K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾): square, symmetric, finite (and PSD, for a
        kernel).
    y : array_like of shape (N,)
        Labels −1 and +1 (or 0 and 1), both classes present.
    C : float
        Upper bound C > 0 of the multipliers.
    tol : float, default 1e-6
        Stop when b_up(α) − b_low(α) < tol; every example then violates its KKT condition (see
        :func:`kkt_violations`) by less than ``tol`` in the functional margin. scikit-learn's ``SVC(tol=...)`` is the
        same criterion.
    max_iter : int, default 100_000
        Maximum number of pair updates.

    Returns
    -------
    alpha : ndarray of shape (N,)
        The multipliers, in [0, C]; exactly 0 and exactly C at the bounds, so ``alpha > 0`` marks the support vectors.
    b : float
        The bias of f(x) = Σᵢ αᵢ y⁽ⁱ⁾ κ(x⁽ⁱ⁾, x) + b.

    Raises
    ------
    ValueError
        If the gap is still at least ``tol`` after ``max_iter`` pair updates.
    """
    K = _check_gram(K)
    N = K.shape[0]
    y, _ = _check_labels_for(y, N, f"K is {N} × {N}")
    C = check_positive(C, "C")
    tol = check_positive(tol, "tol")
    max_iter = check_positive_int(max_iter, "max_iter")

    K_diag = np.diag(K).copy()  # (N,)
    positive = y > 0  # (N,)
    alpha = np.zeros(N)  # (N,): feasible start, Σ αₖ y⁽ᵏ⁾ = 0
    b_hat = y.copy()  # (N,): b̂ₖ = y⁽ᵏ⁾ − Σⱼ αⱼ y⁽ʲ⁾ K_kj, = y at α = 0
    for _ in range(max_iter):
        up = np.where(positive, alpha < C, alpha > 0)  # (N,): I_up, αₖ + y⁽ᵏ⁾δ feasible for small δ > 0: b >= b̂ₖ
        low = np.where(positive, alpha > 0, alpha < C)  # (N,): I_low, feasible for small δ < 0: b <= b̂ₖ
        i = int(np.argmax(np.where(up, b_hat, -np.inf)))  # the maximal violator, b̂ᵢ = b_up(α)
        gap = b_hat[i] - np.min(np.where(low, b_hat, np.inf))  # b_up(α) − b_low(α), eq. (3.21)
        if gap < tol:
            break
        q = np.maximum(K_diag[i] + K_diag - 2.0 * K[i], 1e-12)  # (N,): curvature qᵢₖ of D along the pair's line
        slope = b_hat[i] - b_hat  # (N,): dD/dΔ at Δ = 0, > 0 for a violating pair
        gain = np.where(low & (slope > 0), slope**2 / q, -np.inf)  # (N,): twice the increase of D, unclipped step
        j = int(np.argmax(gain))
        room_i = C - alpha[i] if positive[i] else alpha[i]  # how far Δ can go before αᵢ hits its bound
        room_j = alpha[j] if positive[j] else C - alpha[j]
        delta = min(slope[j] / q[j], room_i, room_j)  # the maximiser of D on the line, clipped to the box
        alpha_i_old, alpha_j_old = alpha[i], alpha[j]
        alpha[i] += y[i] * delta  # eq. (3.22)
        alpha[j] -= y[j] * delta
        if delta == room_i:  # land exactly on the bound, so that alpha == 0 and alpha == C are exact
            alpha[i] = C if positive[i] else 0.0
        if delta == room_j:
            alpha[j] = 0.0 if positive[j] else C
        # (N,): b̂ₖ changes by −Δ(K_ki − K_kj), O(N); written with the changes of αᵢy⁽ⁱ⁾ and αⱼy⁽ʲ⁾ as stored, so
        # that snapping to a bound cannot make b̂ drift from α. K is symmetric, so row i is column i.
        b_hat -= y[i] * (alpha[i] - alpha_i_old) * K[i] + y[j] * (alpha[j] - alpha_j_old) * K[j]
    else:
        raise _not_converged(max_iter, gap, tol)

    free = (alpha > 0) & (alpha < C)  # (N,): free support vectors, on their margins
    if free.any():
        b = float(b_hat[free].mean())
    else:  # any b in [b_up(α), b_low(α)] is optimal
        b = float((b_hat[i] + np.min(np.where(low, b_hat, np.inf))) / 2)
    return alpha, b


def kkt_violations(K, y, alpha, b, *, C):
    """How far each example is from its KKT condition, eq. (3.20), and the residual of Σᵢ αᵢ y⁽ⁱ⁾ = 0.

    With the functional margin zᵢ = y⁽ⁱ⁾ f(x⁽ⁱ⁾), f(x⁽ⁱ⁾) = Σⱼ αⱼ y⁽ʲ⁾ K_ij + b, the conditions are

    * αᵢ = 0      ⇒ zᵢ >= 1   (beyond the margin): violation max(0, 1 − zᵢ);
    * 0 < αᵢ < C  ⇒ zᵢ = 1    (on the margin):     violation abs(1 − zᵢ);
    * αᵢ = C      ⇒ zᵢ <= 1   (inside it, or misclassified): violation max(0, zᵢ − 1).

    The categories are read with exact comparisons, as :func:`fit_svm_dual` sets a multiplier at a bound exactly to
    0 or C. The equality constraint Σᵢ αᵢ y⁽ⁱ⁾ = 0 belongs to no single example, so it is reported separately, as
    abs(Σᵢ αᵢ y⁽ⁱ⁾): zero up to round-off for α from SMO, whose steps keep it.

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix of the training inputs.
    y : array_like of shape (N,)
        Labels −1 and +1 (or 0 and 1).
    alpha : array_like of shape (N,)
        Multipliers in [0, C].
    b : float
        Bias.
    C : float
        C > 0, the upper bound of the multipliers.

    Returns
    -------
    violation : ndarray of shape (N,)
        >= 0, in units of the functional margin; all zero exactly at the optimum.
    equality_residual : float
        abs(Σᵢ αᵢ y⁽ⁱ⁾).
    """
    K = _check_gram(K)
    N = K.shape[0]
    y, _ = _check_labels_for(y, N, f"K is {N} × {N}")
    C = check_positive(C, "C")
    alpha = _check_alpha(alpha, N, C)
    b = check_finite_number(b, "b")
    z = y * (K @ (alpha * y) + b)  # (N,): functional margins
    violation = np.where(alpha == 0, np.maximum(0.0, 1.0 - z),  # beyond the margin
                         np.where(alpha == C, np.maximum(0.0, z - 1.0), np.abs(1.0 - z)))  # inside it / on it
    return violation, float(abs(alpha @ y))


def svm_decision_function(K_cross, y, alpha, b):
    """The kernel SVM's decision function f(x) = Σᵢ αᵢ y⁽ⁱ⁾ κ(x⁽ⁱ⁾, x) + b at new inputs, eq. (3.19).

    Parameters
    ----------
    K_cross : array_like of shape (N′, N)
        K_cross[k, i] = κ(x_new⁽ᵏ⁾, x⁽ⁱ⁾): row k is 𝐤(x_new⁽ᵏ⁾)ᵀ.
    y : array_like of shape (N,)
        Training labels −1 and +1 (or 0 and 1).
    alpha : array_like of shape (N,)
        Multipliers >= 0, from :func:`fit_svm_dual`.
    b : float
        Bias, from :func:`fit_svm_dual`.

    Returns
    -------
    f : ndarray of shape (N′,)
        The sign is the predicted class (+1 for f >= 0); f = ±1 on the margins.
    """
    K_cross = as_finite_array(K_cross, "K_cross", ndim=2, allow_empty=False)
    N = K_cross.shape[1]
    y, _ = _check_labels_for(y, N, f"K_cross has {N} columns (one per training example)")
    alpha = _check_alpha(alpha, N)
    b = check_finite_number(b, "b")
    return K_cross @ (alpha * y) + b  # (N′,)


# --- the kernel SVM as a model ------------------------------------------------------------------------------------


class KernelSVM:
    """A kernel support vector machine: SMO on the Gram matrix, eq. (3.18); f of eq. (3.19).

    After :meth:`fit` the model keeps only what f needs: the support vectors (αᵢ > 0), their αᵢy⁽ⁱ⁾ and b. A prediction
    costs one kernel evaluation per support vector.

    Parameters
    ----------
    kernel : callable
        ``kernel(X, Z) -> K`` of shape (N, N′), e.g. ``lambda X, Z: kernels.rbf_kernel(X, Z, width=0.5)``.
    C : float
        C > 0.
    tol : float, default 1e-6
        Stopping tolerance of SMO (see :func:`fit_svm_dual`).
    max_iter : int, default 100_000
        Maximum number of SMO pair updates.

    Attributes
    ----------
    support_ : ndarray of shape (S,)
        Indices (int64) of the support vectors in the training set, ascending; None before :meth:`fit`, as are
        the other attributes.
    support_vectors_ : ndarray of shape (S, m)
        The support vectors x⁽ⁱ⁾, αᵢ > 0.
    dual_coef_ : ndarray of shape (S,)
        Their αᵢ y⁽ⁱ⁾ (y⁽ⁱ⁾ = ±1).
    intercept_ : float
        The bias b.
    classes_ : ndarray of shape (2,)
        The label coding (int64) of the training labels, negative class first: [−1, 1] or [0, 1];
        :meth:`predict` returns labels in it.
    """

    def __init__(self, kernel, *, C, tol=1e-6, max_iter=100_000):
        self.kernel = check_callable(kernel, "kernel", what="a kernel function kernel(X, Z) -> Gram block (N, N′)")
        self.C = check_positive(C, "C")
        self.tol = check_positive(tol, "tol")
        self.max_iter = check_positive_int(max_iter, "max_iter")
        self.support_ = self.support_vectors_ = self.dual_coef_ = self.intercept_ = self.classes_ = None

    def _gram(self, X, Z):
        """The kernel's Gram block for X (N, m) and Z (N′, m), checked: finite, of shape (N, N′)."""
        try:
            K = self.kernel(X, Z)
        except TypeError as exc:
            raise TypeError(f"kernel(X, Z) raised TypeError: {exc}. The kernel must take exactly two arrays; fix its "
                            "other arguments with a lambda, e.g. kernel=lambda X, Z: kernels.rbf_kernel(X, Z, "
                            "width=0.5).") from exc
        K = as_finite_array(K, "kernel(X, Z)", ndim=2)
        if K.shape != (X.shape[0], Z.shape[0]):
            raise ValueError(f"kernel(X, Z) returned shape {K.shape} for X of shape {X.shape} and Z of shape "
                             f"{Z.shape}; expected ({X.shape[0]}, {Z.shape[0]}), one value per pair of rows.")
        return K

    def fit(self, X, y):
        """Solve the dual on the Gram matrix of X by :func:`fit_svm_dual` and keep the support vectors.

        Parameters
        ----------
        X : array_like of shape (N, m)
        y : array_like of shape (N,)
            Labels −1 and +1, or 0 and 1; predictions come back in the same coding.

        Returns
        -------
        self : KernelSVM

        Raises
        ------
        ValueError
            If SMO does not converge within ``max_iter`` pair updates.
        """
        X = check_X(X)
        y_pm, coding = _check_labels_for(y, X.shape[0], f"X has {X.shape[0]} rows")
        K = self._gram(X, X)  # (N, N)
        alpha, b = fit_svm_dual(K, y_pm, C=self.C, tol=self.tol, max_iter=self.max_iter)
        self.support_ = np.flatnonzero(alpha > 0)  # (S,)
        self.support_vectors_ = X[self.support_]  # (S, m)
        self.dual_coef_ = alpha[self.support_] * y_pm[self.support_]  # (S,): αᵢ y⁽ⁱ⁾
        self.intercept_ = b
        self.classes_ = coding
        return self

    def decision_function(self, X):
        """f(x) = Σ_{support vectors} αᵢ y⁽ⁱ⁾ κ(x⁽ⁱ⁾, x) + b for each row x of X, eq. (3.19).

        The kernel is evaluated on blocks of 2048 rows of X at a time, so that memory stays O(2048 S) for S support
        vectors however many rows X has (a grid of points for a plot, say).

        Parameters
        ----------
        X : array_like of shape (N′, m)
            New inputs, with the features of the training inputs.

        Returns
        -------
        f : ndarray of shape (N′,)

        Raises
        ------
        ValueError
            If the model has not been fitted yet.
        """
        if self.dual_coef_ is None:
            raise ValueError("this KernelSVM is not fitted yet: it has no support vectors. Call "
                             "model.fit(X_train, y_train) before decision_function or predict.")
        X = check_X(X)
        if X.shape[1] != self.support_vectors_.shape[1]:
            raise ValueError(f"X has {X.shape[1]} columns but the model was fitted on inputs with "
                             f"{self.support_vectors_.shape[1]}; expected the same features as in training.")
        f = np.empty(X.shape[0])  # (N′,)
        for start in range(0, X.shape[0], 2048):  # in blocks of rows: the Gram block stays small, (2048, S)
            rows = slice(start, start + 2048)
            f[rows] = self._gram(X[rows], self.support_vectors_) @ self.dual_coef_ + self.intercept_
        return f

    def predict(self, X):
        """The predicted labels: the positive class where f(x) >= 0, in the coding of the training labels.

        Parameters
        ----------
        X : array_like of shape (N′, m)

        Returns
        -------
        y_hat : ndarray of shape (N′,), int64
            Labels from ``classes_``: −1 and 1, or 0 and 1, as given to :meth:`fit`.

        Raises
        ------
        ValueError
            If the model has not been fitted yet.
        """
        f = self.decision_function(X)  # (N′,)
        return self.classes_[(f >= 0).astype(np.int64)]
