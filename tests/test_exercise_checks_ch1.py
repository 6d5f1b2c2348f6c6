"""The exercise checks added to chapter 1: Laplace noise and the absolute loss, and the effective number of
parameters of ridge regression.

As in tests/test_exercise_checks.py: a right answer must print ``pass``, and classic mistakes must raise
``ExerciseCheckFailed``. The references inside the checks are tested too, against SciPy's Laplace density and
against the smoother matrix scikit-learn's ``Ridge`` applies to the targets.
"""

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import Ridge

from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed


def _phi(X):
    return np.hstack([np.ones((X.shape[0], 1)), X])  # (N, m + 1)


# --- right answers ----------------------------------------------------------------------------------------------

def laplace_neg_log_likelihood(e, b):
    return len(e) * np.log(2 * b) + np.sum(np.abs(e)) / b


def _dof(X, l2, *, centred=True, squared=True, bias=1.0):
    d = np.linalg.svd(X - X.mean(axis=0) if centred else X, compute_uv=False)
    d2 = d**2 if squared else d
    return bias + np.sum(d2 / (d2 + l2))


def ridge_effective_parameters(X, l2):
    return _dof(X, l2)


def _trace_by_solve(X, l2, *, penalise_bias=False):
    Phi = _phi(X)
    penalty = np.eye(Phi.shape[1]) if penalise_bias else np.diag(np.r_[0.0, np.ones(X.shape[1])])
    return np.trace(Phi @ np.linalg.solve(Phi.T @ Phi + l2 * penalty, Phi.T))


RIGHT = [laplace_neg_log_likelihood, ridge_effective_parameters]

WRONG = {
    "laplace_neg_log_likelihood": [
        ("b instead of 2b in the normaliser", lambda e, b: len(e) * np.log(b) + np.sum(np.abs(e)) / b),
        ("normaliser counted once, not N times", lambda e, b: np.log(2 * b) + np.sum(np.abs(e)) / b),
        ("mean instead of sum", lambda e, b: np.log(2 * b) + np.mean(np.abs(e)) / b),
        ("sign error: the log-likelihood", lambda e, b: -laplace_neg_log_likelihood(e, b)),
        ("Gaussian formula", lambda e, b: 0.5 * len(e) * np.log(2 * np.pi * b**2) + np.sum(e**2) / (2 * b**2)),
    ],
    "ridge_effective_parameters": [
        ("bias penalised", lambda X, l2: _trace_by_solve(X, l2, penalise_bias=True)),
        ("the bias's 1 forgotten", lambda X, l2: _dof(X, l2, bias=0.0)),
        ("features not centred", lambda X, l2: _dof(X, l2, centred=False)),
        ("d instead of d squared", lambda X, l2: _dof(X, l2, squared=False)),
        ("lambda ignored: the number of weights", lambda X, l2: float(X.shape[1] + 1)),
    ],
}


def test_the_checks_are_registered_for_chapter_1():
    names = [f.__name__ for f in RIGHT]
    assert set(names) <= set(exercise_checks.__all__)
    start = exercise_checks.__all__.index("ridge_weights")
    assert exercise_checks.__all__[start + 1 : start + 3] == names


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    assert capsys.readouterr().out.startswith(f"pass: {solution.__name__}")


def test_the_trace_by_a_solve_passes_too(capsys):
    def ridge_effective_parameters(X, l2):
        return _trace_by_solve(X, l2)

    exercise_checks.ridge_effective_parameters(ridge_effective_parameters, rng=np.random.default_rng(1))
    assert capsys.readouterr().out.startswith("pass: ridge_effective_parameters")


def test_every_new_check_has_at_least_two_wrong_answers():
    assert set(WRONG) == {f.__name__ for f in RIGHT}
    assert all(len(mistakes) >= 2 for mistakes in WRONG.values())


@pytest.mark.parametrize("exercise, mistake, wrong", [(name, why, f) for name, cases in WRONG.items()
                                                      for why, f in cases], ids=lambda v: v if isinstance(v, str)
                         else "")
def test_a_classic_mistake_is_rejected(exercise, mistake, wrong, capsys):
    wrong.__name__ = exercise
    with np.errstate(all="ignore"), pytest.raises(ExerciseCheckFailed, match=exercise):
        getattr(exercise_checks, exercise)(wrong, rng=np.random.default_rng(0))
    assert f"pass: {exercise} agrees" not in capsys.readouterr().out


def test_a_result_instead_of_a_function_is_refused():
    with pytest.raises(TypeError, match="Pass your function itself"):
        exercise_checks.laplace_neg_log_likelihood(1.0, rng=np.random.default_rng(0))


# --- the references -----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("N, b", [(1, 0.1), (7, 1.0), (50, 3.5)])
def test_laplace_reference_is_minus_scipys_log_density(N, b):
    e = np.random.default_rng(N).laplace(scale=b, size=N)
    expected = -stats.laplace.logpdf(e, scale=b).sum()
    np.testing.assert_allclose(exercise_checks.ch1._laplace_neg_log_likelihood(e, b), expected, rtol=1e-12)


def test_laplace_likelihood_is_maximised_by_the_mean_absolute_residual():
    e = np.random.default_rng(3).laplace(scale=2.0, size=40)
    b_ml = np.mean(np.abs(e))
    nll = [exercise_checks.ch1._laplace_neg_log_likelihood(e, b) for b in b_ml * np.array([0.9, 1.0, 1.1])]
    assert nll[1] < nll[0] and nll[1] < nll[2]


@pytest.mark.parametrize("N, m, l2", [(2, 1, 0.5), (6, 2, 0.1), (20, 3, 10.0), (3, 5, 1.0)])
def test_ridge_trace_reference_matches_scikit_learn(N, m, l2):
    """Ridge is linear in the targets: fitted to the N unit vectors at once, its predictions are the columns of S_λ."""
    X = np.random.default_rng(N + m).normal(size=(N, m)) + 2.0
    S = Ridge(alpha=l2, fit_intercept=True).fit(X, np.eye(N)).predict(X)  # (N, N)
    np.testing.assert_allclose(exercise_checks.ch1._ridge_trace(X, l2), np.trace(S), rtol=1e-9)


def test_ridge_trace_falls_from_the_number_of_weights_to_one():
    X = np.random.default_rng(0).normal(size=(30, 4))
    traces = [exercise_checks.ch1._ridge_trace(X, l2) for l2 in (1e-9, 1.0, 1e3, 1e9)]
    assert traces[0] == pytest.approx(5.0, abs=1e-8)
    assert traces[-1] == pytest.approx(1.0, abs=1e-6)
    assert np.all(np.diff(traces) < 0)
