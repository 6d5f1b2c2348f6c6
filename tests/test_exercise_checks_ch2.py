"""The exercise checks added to chapter 2 accept a right answer and reject the classic wrong ones.

The perceptron's mistake bound (r/γ)² and the gradient and Hessian of Poisson regression: for each, a correct
solution must print ``pass`` and every listed mistake must raise ``ExerciseCheckFailed``.
"""

import numpy as np
import pytest

from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed


def _phi(X):
    return np.hstack([np.ones((X.shape[0], 1)), X])  # (N, m + 1)


def _bound(X, y, w, *, bias_in_r=True, bias_in_gamma=True, normalise=True, worst=np.min):
    s = 2 * y - 1  # +1 for class 1, −1 for class 0
    r = np.linalg.norm(_phi(X) if bias_in_r else X, axis=1).max()
    if bias_in_gamma:
        scores, norm = s * (_phi(X) @ w), np.linalg.norm(w)
    else:
        scores, norm = s * (X @ w[1:]), np.linalg.norm(w[1:])
    return (r / (worst(scores) / (norm if normalise else 1.0))) ** 2


def mistake_bound(X, y, w):
    return _bound(X, y, w)


def _poisson(X, y, w, *, bias=True, link=np.exp, divide_gradient=True, divide_hessian=True):
    Phi = _phi(X) if bias else X
    w_used = w if bias else w[1:]
    mu = link(Phi @ w_used)
    weights = mu if link is np.exp else np.ones_like(mu)  # d²J/dz²: e^z for the log link, 1 for the identity
    grad = Phi.T @ (mu - y) / (len(y) if divide_gradient else 1)
    H = (Phi.T * weights) @ Phi / (len(y) if divide_hessian else 1)
    return grad, H  # without the bias column both are one entry short


def poisson_gradient_hessian(X, y, w):
    return _poisson(X, y, w)


RIGHT = [mistake_bound, poisson_gradient_hessian]


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    out = capsys.readouterr().out
    assert out.startswith(f"pass: {solution.__name__}")
    assert "NOT" not in out


def test_the_new_checks_are_exported_after_binary_weights():
    names = exercise_checks.__all__
    assert names[names.index("binary_weights") + 1: names.index("binary_weights") + 3] == [
        "mistake_bound", "poisson_gradient_hessian"]


WRONG = {
    "mistake_bound": [
        ("w not normalised", lambda X, y, w: _bound(X, y, w, normalise=False)),
        ("bias left out of r", lambda X, y, w: _bound(X, y, w, bias_in_r=False)),
        ("bias left out of the margin", lambda X, y, w: _bound(X, y, w, bias_in_gamma=False)),
        ("mean margin instead of the smallest", lambda X, y, w: _bound(X, y, w, worst=np.mean)),
        ("r/γ without the square", lambda X, y, w: np.sqrt(_bound(X, y, w))),
    ],
    "poisson_gradient_hessian": [
        ("no bias column", lambda X, y, w: _poisson(X, y, w, bias=False)),
        ("identity link", lambda X, y, w: _poisson(X, y, w, link=lambda z: z)),
        ("gradient divided by N, Hessian not", lambda X, y, w: _poisson(X, y, w, divide_hessian=False)),
        ("Hessian divided by N, gradient not", lambda X, y, w: _poisson(X, y, w, divide_gradient=False)),
        ("sign error in the gradient", lambda X, y, w: (-_poisson(X, y, w)[0], _poisson(X, y, w)[1])),
        ("a single array instead of the pair", lambda X, y, w: _poisson(X, y, w)[0]),
    ],
}


@pytest.mark.parametrize(("check", "mistake", "wrong"),
                         [(check, mistake, wrong) for check, cases in WRONG.items() for mistake, wrong in cases],
                         ids=[f"{check}: {mistake}" for check, cases in WRONG.items() for mistake, _ in cases])
def test_a_classic_mistake_fails(check, mistake, wrong):
    wrong.__name__ = check
    with pytest.raises(ExerciseCheckFailed):
        getattr(exercise_checks, check)(wrong, rng=np.random.default_rng(0))


def test_the_poisson_check_names_the_failing_part_and_the_readers_arguments():
    def poisson_gradient_hessian(features, counts, weights):
        grad, H = _poisson(features, counts, weights)
        return grad, 2 * H

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)the Hessian, its second result.*features = "):
        exercise_checks.poisson_gradient_hessian(poisson_gradient_hessian, rng=np.random.default_rng(0))


