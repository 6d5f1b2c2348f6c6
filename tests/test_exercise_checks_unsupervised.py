"""The exercise checks of the chapter on learning without labels accept a right answer and reject the classic wrong
ones, naming the likely mistake: k-means++ on weighted points with D instead of D², the weights ignored or squared;
an E step without normalising, transposed or without log det Σₖ; diagonal variances without the responsibilities'
weights, divided by N or by Nₖ − 1, or returned as full matrices; a shared variance divided by N instead of N m or
without the responsibilities' weights; the Dirichlet prior's − 1 forgotten. The first exercises' checks (covariances
without the weights, k-means++ with D instead of D²), which old student copies call, still work. The references
inside the checks are tested too, against loops over the formulas, SciPy's densities and, for the weighted seeding,
k-means++ on the data with each point repeated as often as its weight says.
"""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed
from implementations.unsupervised import kmeans, mixture

# --- right answers ----------------------------------------------------------------------------------------------


def _log_joint(X, weights, means, covs):
    """log πₖ + log N(x⁽ⁱ⁾ | μₖ, Σₖ): (N, K), by SciPy."""
    return np.log(weights) + np.column_stack([multivariate_normal(means[k], covs[k]).logpdf(X)
                                              for k in range(len(weights))])


def responsibilities(X, weights, means, covs):
    log_joint = _log_joint(X, weights, means, covs)
    top = log_joint.max(axis=1, keepdims=True)
    return np.exp(log_joint - top) / np.exp(log_joint - top).sum(axis=1, keepdims=True)


def _covariances(X, R, *, weighted=True, per_component_mean=True, divide_by="Nk"):
    K, m = R.shape[1], X.shape[1]
    covs = np.zeros((K, m, m))
    for k in range(K):
        r = R[:, k] if weighted else np.ones(len(X))
        mu = (R[:, k] @ X) / R[:, k].sum() if per_component_mean else X.mean(axis=0)
        S = sum(r[i] * np.outer(X[i] - mu, X[i] - mu) for i in range(len(X)))
        covs[k] = S / {"Nk": R[:, k].sum(), "N": len(X), "Nk - 1": R[:, k].sum() - 1}[divide_by]
    return covs


def m_step_covariances(X, R):
    return _covariances(X, R)


def _seeding(X, centres, *, squared=True, normalise=True, which="nearest"):
    D2 = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1)  # (N, j)
    D2 = {"nearest": D2.min(axis=1), "first": D2[:, 0], "last": D2[:, -1]}[which]
    score = D2 if squared else np.sqrt(D2)
    return score / score.sum() if normalise else score


def seeding_probabilities(X, centres):
    return _seeding(X, centres)


def _by_loop(X, centres):
    D2 = np.array([min(((x - c) ** 2).sum() for c in centres) for x in X])
    return D2 / D2.sum()


def _weighted_seeding(X, weights, centres, *, squared=True, weight_power=1, normalise=True, which="nearest"):
    """ωᵢ D(x⁽ⁱ⁾)² / Σₗ ωₗ D(x⁽ˡ⁾)², by a loop over the points, and its wrong variants."""
    score = []
    for x, weight in zip(X, weights, strict=True):
        distances = [((x - c) ** 2).sum() for c in centres]
        D2 = {"nearest": min(distances), "first": distances[0], "last": distances[-1]}[which]
        score.append(float(weight) ** weight_power * (D2 if squared else np.sqrt(D2)))
    score = np.array(score)
    return score / score.sum() if normalise else score


def weighted_seeding_probabilities(X, weights, centres):
    return _weighted_seeding(X, weights, centres)


def _by_repetition(X, counts, centres):
    """k-means++ on the data with point i repeated counts[i] times, the probabilities of each point's copies added."""
    owner = np.repeat(np.arange(len(X)), counts)  # (Σ counts,): the distinct point each row copies
    return np.bincount(owner, kmeans.seeding_probabilities(X[owner], centres), minlength=len(X))  # (N,)


def _diagonal(X, R, *, weighted=True, own_mean=True, divide_by="Nk", square=True):
    """σ²ₖⱼ = (1/Nₖ) Σᵢ rᵢₖ (xⱼ⁽ⁱ⁾ − μₖⱼ)², by loops over the components, the coordinates and the points."""
    N, m = X.shape
    K = R.shape[1]
    out = np.zeros((K, m))
    for k in range(K):
        Nk = R[:, k].sum()
        for j in range(m):
            mu = sum(R[i, k] * X[i, j] for i in range(N)) / Nk if own_mean else X[:, j].mean()
            total = sum((R[i, k] if weighted else 1.0) * (X[i, j] - mu) ** 2 for i in range(N))
            out[k, j] = total / {"Nk": Nk, "N": N, "Nk - 1": Nk - 1}[divide_by]
    return out if square else np.sqrt(out)


def m_step_diagonal_variances(X, R):
    return _diagonal(X, R)


def _variance(X, R, *, weighted=True, divide_by_m=True, per_component=False, own_mean=True):
    """σ² of a shared covariance σ²I, by loops over the points and the components."""
    N, m = X.shape
    K = R.shape[1]
    total, per = 0.0, []
    for k in range(K):
        Nk = R[:, k].sum()
        mu = sum(R[i, k] * X[i] for i in range(N)) / Nk if own_mean else X.mean(axis=0)
        part = sum((R[i, k] if weighted else 1.0) * ((X[i] - mu) ** 2).sum() for i in range(N))
        total += part
        per.append(part / (Nk * (m if divide_by_m else 1)))
    return float(np.mean(per)) if per_component else total / (N * (m if divide_by_m else 1))


def m_step_shared_variance(X, R):
    return _variance(X, R)


def _weights(R, alpha, *, minus_one=True):
    N, K = R.shape
    return (R.sum(axis=0) + alpha - (1 if minus_one else 0)) / (N + K * (alpha - (1 if minus_one else 0)))


def map_weights(R, alpha):
    return _weights(R, alpha)


RIGHT = [weighted_seeding_probabilities, responsibilities, m_step_diagonal_variances, m_step_shared_variance,
         map_weights]
FIRST_EXERCISES = [m_step_covariances, seeding_probabilities]

OTHER_RIGHT = [
    ("weighted_seeding_probabilities", "the unweighted probabilities reweighted",
     lambda X, w, C: (lambda q: q / q.sum())(w * kmeans.seeding_probabilities(X, C))),
    ("weighted_seeding_probabilities", "the weights normalised first",
     lambda X, w, C: (lambda q: q / q.sum())(w / w.sum() * ((X[:, None] - C[None]) ** 2).sum(axis=2).min(axis=1))),
    ("m_step_diagonal_variances", "the diagonals of the full M step",
     lambda X, R: np.diagonal(mixture.m_step(X, R, reg_covar=0.0)[2], axis1=1, axis2=2)),
    ("m_step_diagonal_variances", "np.cov with aweights, diagonal only",
     lambda X, R: np.stack([np.diag(np.atleast_2d(np.cov(X, rowvar=False, aweights=R[:, k], bias=True)))
                            for k in range(R.shape[1])])),
    ("responsibilities", "a loop over the points with np.logaddexp.reduce",
     lambda X, w, mu, S: np.array([np.exp(row - np.logaddexp.reduce(row)) for row in _log_joint(X, w, mu, S)])),
    ("m_step_shared_variance", "the trace of the weighted covariances",
     lambda X, R: sum(R[:, k].sum() * np.trace(np.atleast_2d(np.cov(X, rowvar=False, aweights=R[:, k], bias=True)))
                      for k in range(R.shape[1])) / X.size),
    ("map_weights", "a Lagrange multiplier solved numerically",
     lambda R, a: (lambda c: c / c.sum())(R.sum(axis=0) + a - 1)),
    ("m_step_covariances", "np.cov with aweights",
     lambda X, R: np.stack([np.cov(X, rowvar=False, aweights=R[:, k], bias=True).reshape(X.shape[1], X.shape[1])
                            for k in range(R.shape[1])])),
    ("seeding_probabilities", "a loop over the points", lambda X, C: _by_loop(X, C)),
]


def _without_log_det(X, weights, means, covs):
    log_joint = _log_joint(X, weights, means, covs) + 0.5 * np.linalg.slogdet(covs)[1]
    return np.exp(log_joint - log_joint.max(axis=1, keepdims=True)) / np.exp(
        log_joint - log_joint.max(axis=1, keepdims=True)).sum(axis=1, keepdims=True)


def _naive_responsibilities(X, weights, means, covs):
    """The densities themselves, divided: 0/0 far from every component."""
    joint = np.exp(_log_joint(X, weights, means, covs))
    return joint / joint.sum(axis=1, keepdims=True)


# Each classic mistake, and the fragment of the "likely mistake" the check's message must name (None: the check
# rejects it without naming it).
WRONG_WITH_HINTS = {
    "weighted_seeding_probabilities": [
        ("distances instead of squared distances", lambda X, w, C: _weighted_seeding(X, w, C, squared=False),
         "D instead of D²"),
        ("distances, and the weights ignored", lambda X, w, C: _weighted_seeding(X, w, C, squared=False,
                                                                                  weight_power=0), "D instead of D²"),
        ("the weights ignored: plain k-means++", lambda X, w, C: kmeans.seeding_probabilities(X, C),
         "weights were ignored"),
        ("the weights squared: (ωᵢ D)²", lambda X, w, C: _weighted_seeding(X, w, C, weight_power=2),
         "weights squared"),
        ("the distance to the first centre, not the nearest", lambda X, w, C: _weighted_seeding(X, w, C, which="first"),
         "the first or the most recent"),
        ("the distance to the most recent centre", lambda X, w, C: _weighted_seeding(X, w, C, which="last"),
         "the first or the most recent"),
        ("not normalised: ωᵢ D²", lambda X, w, C: _weighted_seeding(X, w, C, normalise=False), "do not sum to 1"),
        ("normalised by Σ D² without the weights",
         lambda X, w, C: w * kmeans.seeding_probabilities(X, C), "do not sum to 1"),
        ("one probability per copy", lambda X, w, C: kmeans.seeding_probabilities(np.repeat(X, w, axis=0), C),
         "one probability per copy"),
        ("the farthest point for certain", lambda X, w, C: np.eye(len(X))[np.argmax(_weighted_seeding(X, w, C))],
         None),
    ],
    "responsibilities": [
        ("not normalised: πₖ N(x | μₖ, Σₖ) itself", lambda *a: np.exp(_log_joint(*a)), "without normalising"),
        ("not normalised, in log space: log πₖ + log N", lambda *a: _log_joint(*a), "without normalising"),
        ("normalised over the points instead of the components",
         lambda *a: np.exp(_log_joint(*a)) / np.exp(_log_joint(*a)).sum(axis=0, keepdims=True), "the columns sum"),
        ("transposed: (K, N)", lambda *a: responsibilities(*a).T, "transposed"),
        ("log det Σₖ dropped", _without_log_det, "log det"),
        ("the weights πₖ forgotten", lambda X, w, mu, S: responsibilities(X, np.full(len(w), 1 / len(w)), mu, S),
         "weights πₖ were left out"),
        ("the densities divided as they are: 0/0 far away", _naive_responsibilities, "0/0"),
    ],
    "m_step_diagonal_variances": [
        ("without the responsibilities' weights, divided by N",
         lambda X, R: _diagonal(X, R, weighted=False, divide_by="N"), "without the weights"),
        ("without the responsibilities' weights, divided by Nₖ", lambda X, R: _diagonal(X, R, weighted=False),
         "without the weights"),
        ("the data's own variances for every component",
         lambda X, R: np.tile(X.var(axis=0), (R.shape[1], 1)), "without the weights"),
        ("weighted but divided by N instead of Nₖ", lambda X, R: _diagonal(X, R, divide_by="N"), "instead of Nₖ"),
        ("about the mean of all points, not μₖ", lambda X, R: _diagonal(X, R, own_mean=False),
         "mean of all the points"),
        ("divided by Nₖ − 1", lambda X, R: _diagonal(X, R, divide_by="Nk - 1"), "Nₖ − 1"),
        ("full covariance matrices: (K, m, m)", lambda X, R: m_step_covariances(X, R), "full covariance matrices"),
        ("transposed: (m, K)", lambda X, R: _diagonal(X, R).T, "transposed"),
        ("one spherical variance per component: (K,)", lambda X, R: _diagonal(X, R).mean(axis=1),
         "one variance per component"),
        ("standard deviations instead of variances", lambda X, R: _diagonal(X, R, square=False),
         "standard deviations"),
        ("the full M step's diagonals with its default reg_covar",
         lambda X, R: np.diagonal(mixture.m_step(X, R)[2], axis1=1, axis2=2), "reg_covar=0"),
    ],
    "m_step_shared_variance": [
        ("divided by N instead of N m", lambda X, R: _variance(X, R, divide_by_m=False), "instead of N m"),
        ("without the responsibilities' weights", lambda X, R: _variance(X, R, weighted=False), "without the"),
        ("each component's variance, averaged", lambda X, R: _variance(X, R, per_component=True), "plain mean"),
        ("about the mean of all the points", lambda X, R: _variance(X, R, own_mean=False), "mean of all the points"),
        ("one variance per component", lambda X, R: np.array([_variance(X, R[:, [k]] / R[:, [k]].sum() * len(R))
                                                             for k in range(R.shape[1])]), "per component"),
    ],
    "map_weights": [
        ("the prior ignored: Nₖ / N", lambda R, a: R.mean(axis=0), "prior was left out"),
        ("the posterior mean: (Nₖ + α) / (N + Kα)", lambda R, a: _weights(R, a, minus_one=False), "posterior"),
        ("summed over the components: R transposed",
         lambda R, a: (R.sum(axis=1) + a - 1) / (R.shape[1] + len(R) * (a - 1)), "one entry per point"),
        ("not normalised: (Nₖ + α − 1) / N", lambda R, a: (R.sum(axis=0) + a - 1) / len(R), "do not sum to 1"),
    ],
    "m_step_covariances": [
        ("without the responsibilities' weights", lambda X, R: _covariances(X, R, weighted=False, divide_by="N"),
         "without the weights"),
        ("weighted but divided by N instead of Nₖ", lambda X, R: _covariances(X, R, divide_by="N"), "instead of Nₖ"),
        ("about the mean of all points, not μₖ", lambda X, R: _covariances(X, R, per_component_mean=False),
         "mean of all the points"),
        ("divided by Nₖ − 1", lambda X, R: _covariances(X, R, divide_by="Nk - 1"), "Nₖ − 1"),
    ],
    "seeding_probabilities": [
        ("distances instead of squared distances", lambda X, C: _seeding(X, C, squared=False), "D instead of D²"),
        ("not normalised", lambda X, C: _seeding(X, C, normalise=False), "do not sum to 1"),
        ("the distance to the first centre, not the nearest", lambda X, C: _seeding(X, C, which="first"),
         "the first or the most recent"),
        ("the distance to the most recent centre", lambda X, C: _seeding(X, C, which="last"),
         "the first or the most recent"),
        ("the farthest point for certain", lambda X, C: np.eye(len(X))[np.argmax(_seeding(X, C))], None),
    ],
}
WRONG = {name: [(why, f) for why, f, _ in cases] for name, cases in WRONG_WITH_HINTS.items()
         if name in {f.__name__ for f in RIGHT}}


@pytest.mark.parametrize("solution", RIGHT + FIRST_EXERCISES, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    assert capsys.readouterr().out.startswith(f"pass: {solution.__name__}")


@pytest.mark.parametrize(("exercise", "how", "solution"), OTHER_RIGHT, ids=[c[1] for c in OTHER_RIGHT])
def test_another_right_answer_passes(exercise, how, solution, capsys):
    solution.__name__ = exercise
    getattr(exercise_checks, exercise)(solution, rng=np.random.default_rng(0))
    assert capsys.readouterr().out.startswith(f"pass: {exercise}")


@pytest.mark.parametrize(("exercise", "mistake", "wrong", "hint"),
                         [(name, why, f, hint) for name, cases in WRONG_WITH_HINTS.items() for why, f, hint in cases],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_a_classic_mistake_is_rejected_and_named(exercise, mistake, wrong, hint, capsys):
    wrong.__name__ = exercise
    with np.errstate(all="ignore"), pytest.raises(ExerciseCheckFailed, match=exercise) as failure:
        getattr(exercise_checks, exercise)(wrong, rng=np.random.default_rng(0))
    assert "pass:" not in capsys.readouterr().out
    if hint is None:
        assert "likely mistake" not in str(failure.value)
    else:
        assert "likely mistake: " in str(failure.value) and hint in str(failure.value).split("likely mistake: ")[1]


def test_the_first_exercises_checks_are_kept_but_not_listed():
    """Old student copies call them; the book's exercises are the five of ``__all__``."""
    names = {f.__name__ for f in FIRST_EXERCISES}
    assert not names & set(exercise_checks.__all__)
    assert all(callable(getattr(exercise_checks, name)) for name in names)


def test_the_far_point_makes_the_naive_e_step_fail_and_not_only_a_missing_normalisation():
    """The naive ratio of densities agrees on the first four inputs, so its failure comes from the far point."""
    rng = np.random.default_rng(0)
    for size in range(1, 5):
        args = exercise_checks.unsupervised._mixture_inputs(rng, size)
        np.testing.assert_allclose(_naive_responsibilities(*args), responsibilities(*args), rtol=1e-9)
    args = exercise_checks.unsupervised._mixture_inputs(rng, 5)
    with np.errstate(all="ignore"):
        assert np.isnan(_naive_responsibilities(*args)[-1]).all()


def test_the_references_are_the_formulas():
    rng = np.random.default_rng(1)
    for size in range(1, 8):
        args = exercise_checks.unsupervised._mixture_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.unsupervised._responsibilities_reference(*args),
                                   responsibilities(*args), atol=1e-12)
        X, R = exercise_checks.unsupervised._weighted_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.unsupervised._m_step_covariances_reference(X, R),
                                   _covariances(X, R), rtol=1e-10)
        reference = exercise_checks.unsupervised._shared_variance_reference(X, R)
        assert reference == pytest.approx(_variance(X, R), rel=1e-10)
        R, alpha = exercise_checks.unsupervised._dirichlet_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.unsupervised._map_weights_reference(R, alpha), _weights(R, alpha),
                                   rtol=1e-12)
        X, C = exercise_checks.unsupervised._seeding_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.unsupervised._seeding_reference(X, C), _seeding(X, C), rtol=1e-12)


def test_the_weighted_seeding_is_k_means_plus_plus_on_the_repeated_points():
    """On counts, the check's reference is the definition: plain k-means++ on the data with point i repeated ωᵢ
    times, the probabilities of its copies added; on every input, it is the loop over the formula."""
    rng = np.random.default_rng(2)
    for size in range(1, 12):
        X, weights, C = exercise_checks.unsupervised._weighted_seeding_inputs(rng, size)
        reference = exercise_checks.unsupervised._weighted_seeding_reference(X, weights, C)
        np.testing.assert_allclose(reference, _weighted_seeding(X, weights, C), rtol=1e-12)
        if size % 2:
            np.testing.assert_allclose(reference, _by_repetition(X, weights, C), rtol=1e-12, atol=1e-15)


def test_the_seeding_inputs_hold_counts_real_weights_and_a_weight_of_0():
    """Counts (an integer array) and real weights alternate; from input 3 on, one point that is not a centre has
    weight 0, so that a function that picks it fails; every centre is a point of positive weight."""
    rng = np.random.default_rng(3)
    inputs = [exercise_checks.unsupervised._weighted_seeding_inputs(rng, size) for size in range(1, 21)]
    assert all(np.issubdtype(w.dtype, np.integer) == bool(size % 2) for size, (_, w, _) in enumerate(inputs, 1))
    assert all((w == 0).sum() == (size >= 3) for size, (_, w, _) in enumerate(inputs, 1))
    for X, weights, C in inputs:
        is_centre = (X[:, None, :] == C[None, :, :]).all(axis=2).any(axis=1)  # (N,)
        assert is_centre.sum() == len(C) and (weights[is_centre] > 0).all()
    X, weights, C = inputs[2]
    assert exercise_checks.unsupervised._weighted_seeding_reference(X, weights, C)[weights == 0].item() == 0
    assert kmeans.seeding_probabilities(X, C)[weights == 0].item() > 0  # ignoring the weights, it could be picked


def test_the_diagonal_variances_are_the_diagonals_of_the_full_m_step():
    rng = np.random.default_rng(4)
    for size in range(1, 8):
        X, R = exercise_checks.unsupervised._weighted_inputs(rng, size)
        reference = exercise_checks.unsupervised._diagonal_variances_reference(X, R)
        np.testing.assert_allclose(reference, _diagonal(X, R), rtol=1e-10)
        np.testing.assert_allclose(reference, np.diagonal(mixture.m_step(X, R, reg_covar=0.0)[2], axis1=1, axis2=2),
                                   rtol=1e-10)
