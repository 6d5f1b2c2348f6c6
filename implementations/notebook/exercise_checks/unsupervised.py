"""The checks of the exercises of the chapter on learning without labels, named after the reader's function: k-means++
on weighted points, the E step in log space, the M step of diagonal covariances and of one shared spherical
covariance, and the mixture weights under a Dirichlet prior.

When a function fails, the check names the likely mistake where it can tell: it calls the function again on the
input that failed and compares the result with the classic wrong answers (D instead of D², the points' weights
ignored or squared, rows that do not sum to 1, a transposed result, log det Σₖ dropped, the responsibilities'
weights left out, variances divided by N or by Nₖ − 1, the prior's − 1 forgotten, …).

``m_step_covariances`` and ``seeding_probabilities`` are the checks of the chapter's first exercises, which copied a
displayed formula; student copies made from them still call them.
"""

import numpy as np

from ...unsupervised import kmeans, mixture
from ..exercises import ExerciseCheckFailed, check_function

__all__ = ["weighted_seeding_probabilities", "responsibilities", "m_step_diagonal_variances", "m_step_shared_variance",
           "map_weights"]  # in the order of the chapter's exercises


def _diagnosed(candidate, reference, make_inputs, mistakes, *, rng, **options):
    """``check_function``, and on a failure the first of ``mistakes`` that explains what the candidate returned.

    ``mistakes`` is a list of (test, text): ``test(received, args)`` is True when the candidate's result on the
    failing input ``args`` looks like that mistake.
    """
    __tracebackhide__ = True
    last = []

    def inputs(rng, size):
        last[:] = [make_inputs(rng, size)]
        return last[0]

    try:
        check_function(candidate, reference, inputs, rng=rng, **options)
    except ExerciseCheckFailed as failure:
        received = _result_or_none(candidate, last[0])
        hint = next((text for test, text in mistakes if received is not None and _holds(test, received, last[0])), None)
        if hint is None:
            raise
        raise ExerciseCheckFailed(f"{failure}\n  likely mistake: {hint}") from failure.__cause__


def _result_or_none(candidate, args):
    """The candidate's result on ``args`` as a float array, or None if it raises or returns no numbers."""
    try:
        with np.errstate(all="ignore"):
            return np.asarray(candidate(*args), dtype=float)
    except Exception:  # the check's own message already says what went wrong
        return None


def _holds(test, received, args):
    with np.errstate(all="ignore"):
        try:
            return bool(test(received, args))
        except (ValueError, IndexError):  # a result of a shape the test cannot compare
            return False


def _same(received, expected):
    expected = np.asarray(expected, dtype=float)
    return received.shape == expected.shape and np.allclose(received, expected, rtol=1e-6, atol=1e-9)


def _covariances(rng, K, m):
    """K random symmetric positive-definite covariances (K, m, m), of spread between about 0.3 and 2."""
    A = rng.normal(size=(K, m, m)) * 0.6  # (K, m, m)
    return A @ A.swapaxes(1, 2) + 0.3 * np.eye(m)


# --- k-means++ on weighted points ---------------------------------------------------------------------------------


def _weighted_seeding_inputs(rng, size):
    """N = size + 4 distinct points in m = 1, 2 or 3 dimensions, their weights, and 1, 2 or 3 of the points (of
    positive weight) already chosen as centres. The weights are counts, integers from 1 to 5, on odd inputs and real
    numbers between 0.2 and 3 on even ones; from input 3 on, one point that is not a centre has weight 0."""
    N, m, j = size + 4, 1 + size % 3, 1 + size % 3
    X = rng.normal(size=(N, m)) * 2  # (N, m)
    weights = rng.integers(1, 6, size=N) if size % 2 else rng.uniform(0.2, 3.0, size=N)  # (N,)
    chosen = rng.choice(N, size=j, replace=False)  # (j,)
    if size >= 3:
        weights[rng.choice(np.setdiff1d(np.arange(N), chosen))] = 0  # a row that no longer occurs
    return X, weights, X[chosen]  # (N, m), (N,), (j, m)


def _weighted_seeding_by(X, weights, centres, *, power=2, weight_power=1, which="nearest"):
    """ωᵢ D(x⁽ⁱ⁾)² / Σₗ ωₗ D(x⁽ˡ⁾)², and the classic wrong variants of it."""
    D2 = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)  # (N, j)
    D2 = {"nearest": D2.min(axis=1), "first": D2[:, 0], "last": D2[:, -1]}[which]  # (N,)
    score = np.asarray(weights, dtype=float) ** weight_power * D2 ** (power / 2)  # (N,)
    return score / score.sum()


def _weighted_seeding_reference(X, weights, centres):
    return _weighted_seeding_by(X, weights, centres)


def _is_copies(p, a):
    """One entry per copy of the repeated data: the weights are counts and p has Σᵢ ωᵢ entries (≠ N)."""
    weights = np.asarray(a[1], dtype=float)
    return bool(np.all(weights == np.round(weights))) and p.shape == (int(weights.sum()),) != (len(weights),)


_WEIGHTED_SEEDING_MISTAKES = [
    (_is_copies,
     "one probability per copy of the repeated data: return one per distinct point, (N,), the probability that the "
     "next centre is any one of its copies."),
    (lambda p, a: _same(p, _weighted_seeding_by(*a, power=1)) or _same(p, _weighted_seeding_by(*a, power=1,
                                                                                               weight_power=0)),
     "D instead of D²: k-means++ picks each copy in proportion to its squared distance to the nearest centre."),
    (lambda p, a: _same(p, _weighted_seeding_by(*a, weight_power=0)),
     "the weights were ignored: a point of weight ωᵢ stands for ωᵢ copies, any of which can be picked, and a point "
     "of weight 0 for none, so it can never be picked."),
    (lambda p, a: _same(p, _weighted_seeding_by(*a, weight_power=2)),
     "the weights squared, as if ωᵢ D were the distance: only the distance of each copy is squared, and the ωᵢ "
     "copies add ωᵢ equal probabilities."),
    (lambda p, a: _same(p, _weighted_seeding_by(*a, which="first")) or _same(p, _weighted_seeding_by(*a,
                                                                                                     which="last")),
     "the distance to one centre (the first or the most recent) instead of the nearest of those chosen so far."),
    (lambda p, a: p.shape == (a[0].shape[0],) and not np.isclose(p.sum(), 1.0),
     "the probabilities do not sum to 1: divide by the sum over all the copies, Σₗ ωₗ D(x⁽ˡ⁾)²."),
]


def weighted_seeding_probabilities(candidate, *, rng):
    """``weighted_seeding_probabilities(X, point_weights, centres)`` against ωᵢ D(x⁽ⁱ⁾)² / Σₗ ωₗ D(x⁽ˡ⁾)²: the k-means++
    probability that the next centre is a copy of point i, on the data in which point i is repeated ωᵢ times.

    The weights are counts (integers) on odd inputs and real numbers, as a coreset's, on even ones; from input 3 on,
    one point, near the centres or far from them, has weight 0 and must never be picked.
    """
    __tracebackhide__ = True
    _diagnosed(candidate, _weighted_seeding_reference, _weighted_seeding_inputs, _WEIGHTED_SEEDING_MISTAKES, rng=rng)


# --- the E step -------------------------------------------------------------------------------------------------


def _mixture_inputs(rng, size):
    """N = size + 5 points around a random mixture of K = 2, 3 or 4 < N components in m = 1, 2 or 3 dimensions (so
    that a transposed result has another shape); from input 5 on, the last point lies hundreds of spreads away from
    every component, where every density underflows to 0."""
    N, K, m = size + 5, 2 + size % 3, 1 + size % 3
    weights = rng.dirichlet(np.ones(K))  # (K,)
    means = rng.normal(size=(K, m)) * 2  # (K, m)
    X = means[rng.integers(K, size=N)] + rng.normal(size=(N, m))  # (N, m)
    if size >= 5:
        X[-1] = 1000.0  # squared Mahalanobis distances of about 10⁵ or more: e^(−½ d²) is 0 in float64
    return X, weights, means, _covariances(rng, K, m)


def _responsibilities_reference(X, weights, means, covs):
    return mixture.e_step(X, weights, means, covs)[0]  # (N, K)


def _without_log_det(X, weights, means, covs):
    """The E step with log det Σₖ left out of the log-densities."""
    log_joint = np.log(weights) + mixture.gaussian_log_density(X, means, covs) + 0.5 * np.linalg.slogdet(covs)[1]
    log_joint -= log_joint.max(axis=1, keepdims=True)  # (N, K)
    return np.exp(log_joint) / np.exp(log_joint).sum(axis=1, keepdims=True)


_E_STEP_MISTAKES = [
    (lambda R, a: R.shape == (a[0].shape[0], a[1].shape[0]) and np.isnan(R).any(),
     "NaN where every density underflows to 0: the densities were divided as they are (0/0). Work with "
     "log πₖ + log N(x | μₖ, Σₖ), and subtract each row's largest entry before exponentiating."),
    (lambda R, a: R.shape == (a[1].shape[0], a[0].shape[0]),
     "the result is transposed: expected one row per point and one column per component, (N, K)."),
    (lambda R, a: R.ndim == 2 and np.allclose(R.sum(axis=0), 1.0) and not np.allclose(R.sum(axis=1), 1.0),
     "the columns sum to 1, not the rows: normalise over the components (axis=1), not over the points."),
    (lambda R, a: R.ndim == 2 and not np.allclose(R.sum(axis=1), 1.0),
     "the rows do not sum to 1: an E step without normalising. Divide each row by its sum over the components, "
     "the density p(x⁽ⁱ⁾) of the point."),
    (lambda R, a: _same(R, _without_log_det(*a)),
     "the term log det Σₖ was dropped from the log-density: it matters whenever the components' covariances differ."),
    (lambda R, a: _same(R, mixture.e_step(a[0], np.full(a[1].shape, 1 / a[1].size), a[2], a[3])[0]),
     "the weights πₖ were left out: the responsibility is ∝ πₖ N(x | μₖ, Σₖ)."),
]


def responsibilities(candidate, *, rng):
    """``responsibilities(X, weights, means, covs)`` against ``mixture.e_step``: the posterior rᵢₖ of each component.

    From input 5 on, one point lies far from every component: πₖ N(x | μₖ, Σₖ) underflows to 0 for every k, so the
    ratio of the densities is 0/0; the E step must be computed in log space (log-sum-exp).
    """
    __tracebackhide__ = True
    _diagnosed(candidate, _responsibilities_reference, _mixture_inputs, _E_STEP_MISTAKES, rng=rng,
               warnings_as_errors=True)


# --- the M step of diagonal covariances ----------------------------------------------------------------------------


def _covariances_by(X, R, *, weighted=True, centre="mu_k", divide_by="Nk"):
    """Σₖ = Sₖ / Nₖ with Sₖ = Σᵢ rᵢₖ (x⁽ⁱ⁾ − μₖ)(x⁽ⁱ⁾ − μₖ)ᵀ, and the classic wrong variants of it: (K, m, m). (The
    inputs are ``_weighted_inputs``, of the shared variance's section below.)"""
    Nk = R.sum(axis=0)  # (K,)
    means = (R.T @ X) / Nk[:, None] if centre == "mu_k" else np.broadcast_to(X.mean(axis=0), (R.shape[1], X.shape[1]))
    diff = X[None, :, :] - means[:, None, :]  # (K, N, m)
    W = R.T if weighted else np.ones_like(R.T)  # (K, N)
    scatter = (W[:, :, None] * diff).swapaxes(1, 2) @ diff  # (K, m, m)
    return scatter / {"Nk": Nk, "N": np.full(R.shape[1], float(X.shape[0])), "Nk - 1": Nk - 1}[divide_by][:, None, None]


def _diagonal_variances_by(X, R, **options):
    """The diagonals of ``_covariances_by``, σ²ₖⱼ = (1/Nₖ) Σᵢ rᵢₖ (xⱼ⁽ⁱ⁾ − μₖⱼ)², and its wrong variants: (K, m)."""
    return np.diagonal(_covariances_by(X, R, **options), axis1=1, axis2=2)


def _diagonal_variances_reference(X, R):
    return _diagonal_variances_by(X, R)


def _weighting_mistakes(by, what):
    """The classic wrong ways to weigh, centre and divide a component's second moments, as (test, text) pairs, for
    ``by`` = ``_covariances_by`` (the full Σₖ) or ``_diagonal_variances_by`` (its diagonal); ``what`` names them."""
    return [
        (lambda S, a: any(_same(S, by(*a, weighted=False, divide_by=d, centre=c))
                          for d in ("N", "Nk") for c in ("mu_k", "mean")),
         f"{what} without the weights rᵢₖ: every point counts fully for every component."),
        (lambda S, a: _same(S, by(*a, divide_by="N")),
         f"divided by N instead of Nₖ = Σᵢ rᵢₖ, which shrinks a small component's {what}."),
        (lambda S, a: _same(S, by(*a, centre="mean")),
         "centred on the mean of all the points instead of each component's own weighted mean μₖ."),
        (lambda S, a: _same(S, by(*a, divide_by="Nk - 1")),
         f"divided by Nₖ − 1: the M step's {what} are the maximum-likelihood ones, divided by Nₖ."),
    ]


_DIAGONAL_VARIANCES_MISTAKES = [
    (lambda s, a: s.shape == (a[1].shape[1], a[0].shape[1], a[0].shape[1]),
     "full covariance matrices, (K, m, m): a diagonal covariance is m variances, so return one row of m per "
     "component, (K, m)."),
    (lambda s, a: s.shape == (a[0].shape[1], a[1].shape[1]),
     "the result is transposed: expected one row per component and one column per coordinate, (K, m)."),
    (lambda s, a: s.shape == (a[1].shape[1],),
     "one variance per component: that is a spherical covariance σₖ²I; a diagonal one has a variance for each "
     "coordinate, (K, m)."),
    *_weighting_mistakes(_diagonal_variances_by, "variances"),
    (lambda s, a: _same(s ** 2, _diagonal_variances_reference(*a)),
     "standard deviations σₖⱼ instead of the variances σₖⱼ²."),
    (lambda s, a: _constant_above(s, _diagonal_variances_reference(*a)),
     "the same small constant added to every variance, as mixture.m_step's default reg_covar does: the exercise asks "
     "for the maximum-likelihood variances, without regularisation (reg_covar=0)."),
]


def _constant_above(received, expected):
    """True when ``received`` is ``expected`` plus one small positive constant (a regulariser such as reg_covar)."""
    shift = (received - expected).ravel()  # raises on another shape, which _holds reads as "not this mistake"
    return bool(0 < shift[0] < 1e-2 and np.allclose(shift, shift[0], rtol=1e-3, atol=1e-12))


def m_step_diagonal_variances(candidate, *, rng):
    """``m_step_diagonal_variances(X, R)`` against σ²ₖⱼ = (1/Nₖ) Σᵢ rᵢₖ (xⱼ⁽ⁱ⁾ − μₖⱼ)², the M step of a mixture whose
    covariances are diagonal, Σₖ = diag(σ²ₖ₁, …, σ²ₖₘ), with μₖ the weighted means of the M step: (K, m)."""
    __tracebackhide__ = True
    _diagnosed(candidate, _diagonal_variances_reference, _weighted_inputs, _DIAGONAL_VARIANCES_MISTAKES, rng=rng)


# --- the M step of one shared spherical covariance ------------------------------------------------------------------


def _weighted_inputs(rng, size):
    """N > K points in m = 1, 2 or 3 dimensions of different spreads, and soft responsibilities over K = 2 or 3
    components, no component with a single point."""
    m, K = 1 + size % 3, 2 + size % 2
    N = size + m + 3
    R = rng.dirichlet(np.full(K, 0.7), size=N)  # (N, K): each row a distribution
    return rng.normal(size=(N, m)) * rng.uniform(0.5, 2.0, size=m), R


def _shared_variance(X, R, *, weighted=True, per_component=False, divide_by_m=True, centre="mu_k"):
    """σ² = (1/(N m)) Σᵢ Σₖ rᵢₖ ‖x⁽ⁱ⁾ − μₖ‖², and the classic wrong variants of it."""
    Nk = R.sum(axis=0)  # (K,)
    means = (R.T @ X) / Nk[:, None] if centre == "mu_k" else np.broadcast_to(X.mean(axis=0), (R.shape[1], X.shape[1]))
    d2 = ((X[:, None, :] - means[None, :, :]) ** 2).sum(axis=2)  # ‖x⁽ⁱ⁾ − μₖ‖²: (N, K)
    W = R if weighted else np.ones_like(R)  # (N, K)
    m = X.shape[1] if divide_by_m else 1
    if per_component:  # each component's own spherical variance, then their plain mean
        return float(((W * d2).sum(axis=0) / (Nk * m)).mean())
    return float((W * d2).sum() / (X.shape[0] * m))


def _shared_variance_reference(X, R):
    return _shared_variance(X, R)


_SHARED_VARIANCE_MISTAKES = [
    (lambda s, a: s.shape == (a[0].shape[1],),
     "one variance per coordinate: the shared covariance is σ²I, a single number over all m coordinates."),
    (lambda s, a: s.shape == (a[1].shape[1],),
     "one variance per component: the covariance σ²I is shared by all K components, so σ² is a single number."),
    (lambda s, a: _same(s, _shared_variance(*a, divide_by_m=False)),
     "divided by N instead of N m: σ² is the variance of one coordinate, and ‖x − μₖ‖² sums m of them."),
    (lambda s, a: _same(s, _shared_variance(*a, per_component=True)),
     "each component's variance, then their plain mean: a shared σ² weighs the components by their Nₖ."),
    (lambda s, a: _same(s, _shared_variance(*a, weighted=False)) or _same(s, _shared_variance(*a, weighted=False,
                                                                                           divide_by_m=False)),
     "without the responsibilities' weights rᵢₖ: every point counts once for every component."),
    (lambda s, a: _same(s, _shared_variance(*a, centre="mean")),
     "about the mean of all the points instead of each component's own mean μₖ."),
]


def m_step_shared_variance(candidate, *, rng):
    """``m_step_shared_variance(X, R)`` against σ² = (1/(N m)) Σᵢ Σₖ rᵢₖ ‖x⁽ⁱ⁾ − μₖ‖², the M step of a mixture whose
    components share the covariance σ²I, with μₖ the weighted means of the M step."""
    __tracebackhide__ = True
    _diagnosed(candidate, _shared_variance_reference, _weighted_inputs, _SHARED_VARIANCE_MISTAKES, rng=rng)


# --- the weights under a Dirichlet prior ----------------------------------------------------------------------------


def _dirichlet_inputs(rng, size):
    """Responsibilities (N, K) of N = size + 4 points over K = 2, 3 or 4 < N components, and α in [1, 4]."""
    K = 2 + size % 3
    R = rng.dirichlet(np.full(K, 0.5), size=size + 4)  # (N, K)
    return R, float(rng.uniform(1.0, 4.0))


def _map_weights(R, alpha, *, minus_one=True, normalise=True):
    """πₖ = (Nₖ + α − 1) / (N + K(α − 1)), and the classic wrong variants of it."""
    N, K = R.shape
    top = R.sum(axis=0) + alpha - (1 if minus_one else 0)  # (K,)
    return top / top.sum() if normalise else top / N


def _map_weights_reference(R, alpha):
    return _map_weights(R, alpha)


_MAP_WEIGHTS_MISTAKES = [
    (lambda p, a: p.shape == (a[0].shape[0],),
     "one entry per point: Nₖ sums the responsibilities over the points (axis=0), one weight per component."),
    (lambda p, a: _same(p, a[0].mean(axis=0)),
     "the prior was left out: Nₖ / N is the maximum-likelihood weight, α = 1 only."),
    (lambda p, a: _same(p, _map_weights(*a, minus_one=False)),
     "(Nₖ + α) / (N + Kα) is the mean of the posterior Dirichlet; its mode, the MAP estimate, has α − 1."),
    (lambda p, a: not np.isclose(p.sum(), 1.0),
     "the weights do not sum to 1: the Lagrange multiplier of Σₖ πₖ = 1 sets the denominator, N + K(α − 1)."),
]


def map_weights(candidate, *, rng):
    """``map_weights(R, alpha)`` against πₖ = (Nₖ + α − 1) / (N + K(α − 1)): the weights that maximise
    Σₖ (Nₖ + α − 1) log πₖ subject to Σₖ πₖ = 1, the M step under a symmetric Dirichlet(α) prior."""
    __tracebackhide__ = True
    _diagnosed(candidate, _map_weights_reference, _dirichlet_inputs, _MAP_WEIGHTS_MISTAKES, rng=rng)


# --- the first exercises' checks, which old student copies still call -----------------------------------------------


def _m_step_covariances_reference(X, R):
    return mixture.m_step(X, R, reg_covar=0.0)[2]  # (K, m, m)


_COVARIANCE_MISTAKES = _weighting_mistakes(_covariances_by, "covariances")


def m_step_covariances(candidate, *, rng):
    """``m_step_covariances(X, R)`` against ``mixture.m_step`` without regularisation: each component's covariance
    Σₖ = (1/Nₖ) Σᵢ rᵢₖ (x⁽ⁱ⁾ − μₖ)(x⁽ⁱ⁾ − μₖ)ᵀ about its own weighted mean μₖ, with Nₖ = Σᵢ rᵢₖ (the first
    exercise's check)."""
    __tracebackhide__ = True
    _diagnosed(candidate, _m_step_covariances_reference, _weighted_inputs, _COVARIANCE_MISTAKES, rng=rng)


def _seeding_inputs(rng, size):
    """N points in m dimensions and 1, 2 or 3 of them already chosen as centres."""
    N, m, j = size + 3, 1 + size % 3, 1 + size % 3
    X = rng.normal(size=(N, m)) * 2  # (N, m)
    return X, X[rng.choice(N, size=j, replace=False)]  # (N, m), (j, m)


def _seeding_reference(X, centres):
    return kmeans.seeding_probabilities(X, centres)  # (N,)


def _seeding_by(X, centres, *, power=2, which="nearest"):
    D2 = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)  # (N, j)
    D2 = {"nearest": D2.min(axis=1), "first": D2[:, 0], "last": D2[:, -1]}[which]
    score = D2 ** (power / 2)
    return score / score.sum()


_SEEDING_MISTAKES = [
    (lambda p, a: _same(p, _seeding_by(*a, power=1)),
     "D instead of D²: k-means++ samples in proportion to the squared distance."),
    (lambda p, a: _same(p, _seeding_by(*a, which="first")) or _same(p, _seeding_by(*a, which="last")),
     "the distance to one centre (the first or the most recent) instead of the nearest of those chosen so far."),
    (lambda p, a: not np.isclose(p.sum(), 1.0),
     "the probabilities do not sum to 1: divide by Σₗ D(x⁽ˡ⁾)²."),
]


def seeding_probabilities(candidate, *, rng):
    """``seeding_probabilities(X, centres)`` against ``kmeans.seeding_probabilities``: the k-means++ probability that
    each point becomes the next centre, its squared distance D(x)² to the nearest chosen centre over their sum (the
    first exercise's check)."""
    __tracebackhide__ = True
    _diagnosed(candidate, _seeding_reference, _seeding_inputs, _SEEDING_MISTAKES, rng=rng)
