"""The exercise checks of the chapter on learning without labels accept a right answer and reject the classic wrong
ones: an E step without normalising, covariances without the responsibilities' weights, k-means++ with distances
instead of squared distances, and their neighbours. The references inside the checks are tested too, against loops
over the formulas and SciPy's densities.
"""

import numpy as np
import pytest
from scipy.stats import multivariate_normal

from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed

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


def _seeding(X, centres, *, squared=True, normalise=True, first_only=False):
    D2 = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1)  # (N, j)
    D2 = D2[:, 0] if first_only else D2.min(axis=1)
    score = D2 if squared else np.sqrt(D2)
    return score / score.sum() if normalise else score


def seeding_probabilities(X, centres):
    return _seeding(X, centres)


def _by_loop(X, centres):
    D2 = np.array([min(((x - c) ** 2).sum() for c in centres) for x in X])
    return D2 / D2.sum()


RIGHT = [responsibilities, m_step_covariances, seeding_probabilities]

OTHER_RIGHT = [
    ("responsibilities", "a loop over the points with np.logaddexp.reduce",
     lambda X, w, mu, S: np.array([np.exp(row - np.logaddexp.reduce(row)) for row in _log_joint(X, w, mu, S)])),
    ("m_step_covariances", "np.cov with aweights",
     lambda X, R: np.stack([np.cov(X, rowvar=False, aweights=R[:, k], bias=True).reshape(X.shape[1], X.shape[1])
                            for k in range(R.shape[1])])),
    ("seeding_probabilities", "a loop over the points", lambda X, C: _by_loop(X, C)),
]


def _naive_responsibilities(X, weights, means, covs):
    """The densities themselves, divided: 0/0 far from every component."""
    joint = np.exp(_log_joint(X, weights, means, covs))
    return joint / joint.sum(axis=1, keepdims=True)


WRONG = {
    "responsibilities": [
        ("not normalised: πₖ N(x | μₖ, Σₖ) itself", lambda *a: np.exp(_log_joint(*a))),
        ("not normalised, in log space: log πₖ + log N", lambda *a: _log_joint(*a)),
        ("normalised over the points instead of the components",
         lambda *a: np.exp(_log_joint(*a)) / np.exp(_log_joint(*a)).sum(axis=0, keepdims=True)),
        ("the weights πₖ forgotten", lambda X, w, mu, S: responsibilities(X, np.full(len(w), 1 / len(w)), mu, S)),
        ("the densities divided as they are: 0/0 far away", _naive_responsibilities),
    ],
    "m_step_covariances": [
        ("without the responsibilities' weights", lambda X, R: _covariances(X, R, weighted=False, divide_by="N")),
        ("weighted but divided by N instead of Nₖ", lambda X, R: _covariances(X, R, divide_by="N")),
        ("about the mean of all points, not μₖ", lambda X, R: _covariances(X, R, per_component_mean=False)),
        ("divided by Nₖ − 1", lambda X, R: _covariances(X, R, divide_by="Nk - 1")),
    ],
    "seeding_probabilities": [
        ("distances instead of squared distances", lambda X, C: _seeding(X, C, squared=False)),
        ("not normalised", lambda X, C: _seeding(X, C, normalise=False)),
        ("the distance to the first centre, not the nearest", lambda X, C: _seeding(X, C, first_only=True)),
        ("the farthest point for certain", lambda X, C: np.eye(len(X))[np.argmax(_seeding(X, C))]),
    ],
}


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    assert capsys.readouterr().out.startswith(f"pass: {solution.__name__}")


@pytest.mark.parametrize(("exercise", "how", "solution"), OTHER_RIGHT, ids=[c[1] for c in OTHER_RIGHT])
def test_another_right_answer_passes(exercise, how, solution, capsys):
    solution.__name__ = exercise
    getattr(exercise_checks, exercise)(solution, rng=np.random.default_rng(0))
    assert capsys.readouterr().out.startswith(f"pass: {exercise}")


@pytest.mark.parametrize(("exercise", "mistake", "wrong"), [(name, why, f) for name, cases in WRONG.items()
                                                            for why, f in cases], ids=lambda v: v if isinstance(v, str)
                         else "")
def test_a_classic_mistake_is_rejected(exercise, mistake, wrong, capsys):
    wrong.__name__ = exercise
    with np.errstate(all="ignore"), pytest.raises(ExerciseCheckFailed, match=exercise):
        getattr(exercise_checks, exercise)(wrong, rng=np.random.default_rng(0))
    assert "pass:" not in capsys.readouterr().out


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
        X, C = exercise_checks.unsupervised._seeding_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.unsupervised._seeding_reference(X, C), _seeding(X, C), rtol=1e-12)
