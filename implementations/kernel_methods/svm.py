"""Support vector machines: the hinge-loss primal by subgradient descent, the dual by SMO, and a kernel SVM.

Chapter 3, section "Support vector machines". Conventions (those of the chapter):

* ``X`` has shape (N, m): N examples, m raw features, no bias column;
* ``y`` holds the labels y⁽ⁱ⁾ ∈ {−1, +1}; every function also accepts 0 and 1 and reads 0 as −1 (a single class, or
  any other value, is refused);
* in the primal, ``w`` has shape (m + 1,): ``w[0]`` is the bias b, ``w[1:]`` the weights, and the decision function
  is f(x) = w₀ + xᵀw_{1:}. The bias is not penalised;
* in the dual, the functions work on a Gram matrix ``K`` (N, N), K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾), or on a Gram block
  ``K_cross`` (N′, N) = κ(X_new, X_train), so any kernel works; :class:`KernelSVM` takes the kernel as a function.

The primal cost is J(w) = ½‖w_{1:}‖² + C Σᵢ max(0, 1 − y⁽ⁱ⁾ f(x⁽ⁱ⁾)), eq. (3.14), with C > 0; its dual, eq. (3.18),
maximises Σᵢ αᵢ − ½ Σᵢ Σⱼ αᵢ αⱼ y⁽ⁱ⁾ y⁽ʲ⁾ K_ij subject to 0 <= αᵢ <= C and Σᵢ αᵢ y⁽ⁱ⁾ = 0, and gives the decision
function f(x) = Σᵢ αᵢ y⁽ⁱ⁾ κ(x⁽ⁱ⁾, x) + b, eq. (3.19). The examples with αᵢ > 0 are the *support vectors*.
"""

import math

import numpy as np

from .._contract import checked
from ._checks import (
    alpha_in_box,
    diverged,
    fitted,
    kernel_function,
    not_converged,
    one_label_per_column,
    one_label_per_example,
    one_label_per_row,
    pm1_labels,
    symmetric_gram,
    two_class_labels,
)

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


# --- the primal: hinge loss and subgradient descent -----------------------------------------------------------------


@checked(z="array")
def hinge(z):
    """The hinge loss max(0, 1 − z) of a functional margin z = y f(x), elementwise: the loss of eq. (3.14).

    It is zero beyond the margin (z >= 1) and grows linearly inside it and on the wrong side (z < 1): convex, and an
    upper bound of the 0–1 loss.

    Parameters
    ----------
    z : array_like of any shape
        Functional margins y⁽ⁱ⁾ f(x⁽ⁱ⁾).

    Returns
    -------
    loss : ndarray of the shape of ``z``
    """
    return np.maximum(0.0, 1.0 - z)


@checked(X="array (N, m)", y=pm1_labels, w="array (m + 1,)", C="rate", also=one_label_per_row)
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
    z = y * (X @ w[1:] + w[0])  # (N,): functional margins y⁽ⁱ⁾ f(x⁽ⁱ⁾)
    return float(0.5 * (w[1:] @ w[1:]) + C * np.sum(hinge(z)))  # the bias w₀ is not penalised


@checked(X="array (N, m)", y=pm1_labels, w="array (m + 1,)", C="rate", also=one_label_per_row)
def svm_primal_subgradient(X, y, w, *, C):
    """A subgradient of the SVM cost (3.14), eq. (3.15): g = (0, w_{1:}) − C Σ_{y⁽ⁱ⁾f(x⁽ⁱ⁾) < 1} y⁽ⁱ⁾ φ⁽ⁱ⁾.

    Here φ⁽ⁱ⁾ = (1, x⁽ⁱ⁾). Where no margin is exactly 1, J is differentiable and g is its gradient. At the kink of an
    example (margin exactly 1) every −t y⁽ⁱ⁾φ⁽ⁱ⁾ with t ∈ [0, 1] is a subgradient of its hinge term; t = 0 is taken,
    Pegasos' convention: only the examples with a margin below 1 pull on w.

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
    z = y * (X @ w[1:] + w[0])  # (N,): functional margins y⁽ⁱ⁾ f(x⁽ⁱ⁾)
    y_in = y * (z < 1.0)  # (N,): y⁽ⁱ⁾ inside the margin or misclassified, else 0 (and at z = 1 exactly: slope 0)
    g = -C * np.concatenate(([y_in.sum()], y_in @ X))  # (m + 1,): −C Σ_{z⁽ⁱ⁾ < 1} y⁽ⁱ⁾ φ⁽ⁱ⁾ with φ⁽ⁱ⁾ = (1, x⁽ⁱ⁾)
    g[1:] += w[1:]  # the penalty's gradient; the bias w₀ is not penalised
    return g


@checked(X="array (N, m)", y=pm1_labels, C="rate", eta="rate", num_iters="count", also=one_label_per_row)
def fit_svm_primal(X, y, *, C, eta, num_iters):
    """Minimise the SVM cost, eq. (3.14), by subgradient descent w ← w − (η/t) g(w), eq. (3.15), from w = 0.

    With η = 1 this is Pegasos (Shalev-Shwartz *et al.*, 2011) on the full batch: J is 1-strongly convex in w_{1:},
    and Pegasos' step 1/(λ_P t) on J/(NC), λ_P = 1/(NC), is the step 1/t on J. Every η > 0 meets the classical
    conditions Σ η_t = ∞ and Σ η_t² < ∞, but an η well below 1 converges much more slowly; use η = 1, or a little more.

    A subgradient step can raise J, so the history is not monotone and the *best* iterate is returned. The bias is not
    penalised, so it converges more slowly than w_{1:}, most of all on separable data with a large C; the dual solver
    :func:`fit_svm_dual` has no such trouble. For η <= 1 every w_{1:} is an average of vectors no longer than
    W_max = C Σᵢ ‖x⁽ⁱ⁾‖; a larger η first amplifies w_{1:}, and weights beyond 100 W_max (or an overflow) are
    reported as divergence.

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
    w_max = C * np.linalg.norm(X, axis=1).sum()  # W_max: ‖w_{1:}‖ <= W_max at every step when η <= 1
    w = np.zeros(X.shape[1] + 1)  # (m + 1,)
    w_best, J_best = w.copy(), svm_primal_cost(X, y, w, C=C)
    cost_history = np.empty(num_iters)
    for t in range(1, num_iters + 1):
        w -= (eta / t) * svm_primal_subgradient(X, y, w, C=C)  # eq. (3.15) with η_t = η/t
        J = cost_history[t - 1] = svm_primal_cost(X, y, w, C=C)
        if not (math.isfinite(J) and np.linalg.norm(w[1:]) <= 100 * w_max):
            raise diverged(t, np.linalg.norm(w[1:]), w_max, eta)
        if J < J_best:  # not a descent method: keep the best iterate
            w_best, J_best = w.copy(), J
    return w_best, cost_history


# --- the dual: SMO ------------------------------------------------------------------------------------------------


@checked(K="array (N, N)", y=pm1_labels, C="rate", tol="rate", max_iter="count",
         also=(symmetric_gram, one_label_per_example))
def fit_svm_dual(K, y, *, C, tol=1e-6, max_iter=100_000):
    """Solve the SVM dual, eq. (3.18), by SMO, eqs. (3.21)–(3.22), with second-order working-set selection.

    SMO (Platt, 1998) moves two multipliers at a time along the line Σₖ αₖ y⁽ᵏ⁾ = 0. It keeps b̂ₖ = y⁽ᵏ⁾ −
    Σⱼ αⱼ y⁽ʲ⁾ K_kj, the bias that puts example k on its margin (∂D/∂αₖ = y⁽ᵏ⁾ b̂ₖ), and stops once the gap
    b_lower(α) − b_upper(α) of eq. (3.21) is below ``tol``: the largest lower bound that the examples of I_up put on
    b minus the smallest upper bound from those of I_low (LIBSVM's m(α) − M(α); Keerthi *et al.*, 2001, write the same
    condition with Fₖ = −b̂ₖ as b_low <= b_up). i is the maximal violator; j
    maximises the unclipped gain (b̂ᵢ − b̂ⱼ)²/(2qᵢⱼ), qᵢⱼ = K_ii + K_jj − 2K_ij (LIBSVM's second-order choice, Fan *et
    al.*, 2005; a qᵢⱼ <= 0, possible only for a K that is not PSD, is replaced by 10⁻¹²). The step, eq. (3.22), is
    clipped to the box and updates every b̂ₖ in O(N). b is the mean of b̂ₖ over the free support vectors (0 < αₖ < C),
    or without one the midpoint of b_upper(α) and b_lower(α).

    Parameters
    ----------
    K : array_like of shape (N, N)
        Gram matrix of the training inputs, K[i, j] = κ(x⁽ⁱ⁾, x⁽ʲ⁾): symmetric to round-off (and PSD, for a kernel).
    y : array_like of shape (N,)
        Labels −1 and +1 (or 0 and 1), both classes present.
    C : float
        Upper bound C > 0 of the multipliers.
    tol : float, default 1e-6
        Stop when b_lower(α) − b_upper(α) < tol: every KKT violation (see :func:`kkt_violations`) is then below ``tol``,
        scikit-learn's ``SVC(tol=...)`` criterion.
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
    K = (K + K.T) / 2  # (N, N), exactly symmetric: the update below reads row i of K as its column i
    K_diag = np.diag(K).copy()  # (N,)
    positive = y > 0  # (N,)
    alpha = np.zeros(K.shape[0])  # (N,): feasible start, Σ αₖ y⁽ᵏ⁾ = 0
    b_hat = y.copy()  # (N,): b̂ₖ = y⁽ᵏ⁾ − Σⱼ αⱼ y⁽ʲ⁾ K_kj, = y at α = 0
    for _ in range(max_iter):
        up = np.where(positive, alpha < C, alpha > 0)  # (N,): I_up, whose eq. (3.20) reads b >= b̂ₖ: lower bounds
        low = np.where(positive, alpha > 0, alpha < C)  # (N,): I_low, whose eq. (3.20) reads b <= b̂ₖ: upper bounds
        i = int(np.where(up, b_hat, -np.inf).argmax())  # the maximal violator, b̂ᵢ = b_lower(α)
        b_upper = np.where(low, b_hat, np.inf).min()  # b_upper(α), the smallest upper bound on b
        if b_hat[i] - b_upper < tol:  # the gap b_lower(α) − b_upper(α), eq. (3.21)
            break
        q = np.maximum(K_diag[i] + K_diag - 2.0 * K[i], 1e-12)  # (N,): curvature qᵢₖ of D along the pair's line
        slope = b_hat[i] - b_hat  # (N,): dD/dΔ at Δ = 0, > 0 for a violating pair
        j = int(np.where(low & (slope > 0), slope**2 / q, -np.inf).argmax())  # the largest gain, unclipped
        room_i = C - alpha[i] if positive[i] else alpha[i]  # how far Δ can go before αᵢ hits its bound
        room_j = alpha[j] if positive[j] else C - alpha[j]
        delta = min(slope[j] / q[j], room_i, room_j)  # the maximiser of D on the line, clipped to the box
        old_i, old_j = alpha[i], alpha[j]
        # eq. (3.22); a multiplier whose room runs out lands exactly on its bound, so that alpha == 0 and == C are exact
        alpha[i] = (C if positive[i] else 0.0) if delta == room_i else alpha[i] + y[i] * delta
        alpha[j] = (0.0 if positive[j] else C) if delta == room_j else alpha[j] - y[j] * delta
        b_hat -= y[i] * (alpha[i] - old_i) * K[i] + y[j] * (alpha[j] - old_j) * K[j]  # (N,): O(N), from α as stored
    else:
        raise not_converged(max_iter, b_hat[i] - b_upper, tol)
    free = (alpha > 0) & (alpha < C)  # (N,): free support vectors, on their margins
    return alpha, float(b_hat[free].mean() if free.any() else (b_hat[i] + b_upper) / 2)


@checked(K_cross="array (N_new, N)", y=pm1_labels, alpha="array (N,)", b="number",
         also=(one_label_per_column, alpha_in_box))
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
    return K_cross @ (alpha * y) + b  # (N′,)


@checked(K="array (N, N)", y=pm1_labels, alpha="array (N,)", b="number", C="rate",
         also=(symmetric_gram, one_label_per_example, alpha_in_box))
def kkt_violations(K, y, alpha, b, *, C):
    """How far each example is from its KKT condition, eq. (3.20), and the residual of Σᵢ αᵢ y⁽ⁱ⁾ = 0.

    With the functional margin zᵢ = y⁽ⁱ⁾ f(x⁽ⁱ⁾), the violation is max(0, 1 − zᵢ) for αᵢ = 0 (beyond the margin),
    abs(1 − zᵢ) for 0 < αᵢ < C (on it) and max(0, zᵢ − 1) for αᵢ = C (inside it). The categories are read with exact
    comparisons, as :func:`fit_svm_dual` sets a multiplier at a bound exactly to 0 or C. The equality constraint
    belongs to no single example and is reported apart: abs(Σᵢ αᵢ y⁽ⁱ⁾), zero up to round-off for α from SMO.

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
    z = y * svm_decision_function(K, y, alpha, b)  # (N,): functional margins y⁽ⁱ⁾ f(x⁽ⁱ⁾)
    violation = np.where(alpha == 0, np.maximum(0.0, 1.0 - z),  # beyond the margin: z >= 1
                         np.where(alpha == C, np.maximum(0.0, z - 1.0), np.abs(1.0 - z)))  # inside it: z <= 1; on it
    return violation, float(abs(alpha @ y))


# --- the kernel SVM as a model ------------------------------------------------------------------------------------


class KernelSVM:
    """A kernel support vector machine: SMO on the Gram matrix, eq. (3.18); f of eq. (3.19).

    After :meth:`fit` the model keeps only what f needs: the support vectors (αᵢ > 0), their αᵢy⁽ⁱ⁾ and b. A prediction
    costs one kernel evaluation per support vector.

    Parameters
    ----------
    kernel : callable
        ``kernel(X, Z) -> K`` of shape (N, N′), e.g. ``lambda X, Z: kernels.rbf_kernel(X, Z, width=0.5)``. What it
        returns is checked: finite numbers of that shape, and for Z = X a symmetric matrix.
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

    @checked(kernel=kernel_function(symmetric_gram), C="rate", tol="rate", max_iter="count")
    def __init__(self, kernel, *, C, tol=1e-6, max_iter=100_000):
        self.kernel, self.C, self.tol, self.max_iter = kernel, C, tol, max_iter
        self.support_ = self.support_vectors_ = self.dual_coef_ = self.intercept_ = self.classes_ = None

    @property
    def num_features(self):
        """m, the number of features of the training inputs (and of every input to classify)."""
        return self.support_vectors_.shape[1]

    @checked(X="array (N, m)", y=two_class_labels, also=one_label_per_row)
    def fit(self, X, y):
        """Solve the dual, eq. (3.18), on the Gram matrix of X by :func:`fit_svm_dual` and keep the support vectors.

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
        self.classes_ = np.unique(y)  # (2,): [−1, 1] or [0, 1], the coding predict answers in
        y = np.where(y == 1, 1.0, -1.0)  # (N,): labels ±1
        alpha, self.intercept_ = fit_svm_dual(self.kernel(X, X), y, C=self.C, tol=self.tol, max_iter=self.max_iter)
        self.support_ = np.flatnonzero(alpha > 0)  # (S,)
        self.support_vectors_ = X[self.support_]  # (S, m)
        self.dual_coef_ = alpha[self.support_] * y[self.support_]  # (S,): αᵢ y⁽ⁱ⁾
        return self

    @checked(self=fitted("dual_coef_", "support vectors"), X="array (N_new, self.num_features)")
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
        f = np.empty(X.shape[0])  # (N′,)
        for start in range(0, X.shape[0], 2048):  # in blocks of rows: the Gram block stays small, (2048, S)
            rows = slice(start, start + 2048)
            f[rows] = self.kernel(X[rows], self.support_vectors_) @ self.dual_coef_ + self.intercept_
        return f

    @checked(self=fitted("dual_coef_", "support vectors"), X="array (N_new, self.num_features)")
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
        return self.classes_[(self.decision_function(X) >= 0).astype(np.int64)]  # (N′,)
