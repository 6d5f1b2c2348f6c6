"""Appendix A's exercise checks, which live in the notebook's check cells, accept a right answer and reject the
classic wrong ones: the check cells are run as they stand, with the reader's function replaced."""

import json
from math import comb, lgamma
from pathlib import Path

import numpy as np
import pytest

from implementations.notebook import exercises
from implementations.notebook.exercises import ExerciseCheckFailed
from implementations.preliminaries.gradcheck import numerical_gradient

NOTEBOOK = Path(__file__).resolve().parents[1] / "notebooks" / "A_preliminaries.ipynb"
CELLS = {cell["id"]: "".join(cell["source"]) for cell in json.loads(NOTEBOOK.read_text("utf-8"))["cells"]}


def _run_check(check_id, name, candidate):
    """Run the check cell `check_id` with `candidate` standing for the reader's function `name`."""
    namespace = {"np": np, "exercises": exercises, "numerical_gradient": numerical_gradient, "SEED": 0,
                 "comb": comb, "lgamma": lgamma, name: candidate}
    exec(CELLS["app-064"], namespace)  # beta_density, which the coin's check uses
    exec(CELLS[check_id], namespace)


def rayleigh_gradient(A, w):
    R = (w @ A @ w) / (w @ w)
    return ((A + A.T) @ w - 2 * R * w) / (w @ w)


def coin_map(k, N, a, b):
    return (k + a - 1) / (N + a + b - 2)


def kkt_point(A, b, C, d):
    k = len(C)
    return np.linalg.solve(np.block([[A, C.T], [C, np.zeros((k, k))]]), np.r_[b, d])


def _kkt_wrong(rhs_d=True, sign=1.0, with_alpha=True):
    def solve(A, b, C, d):
        k = len(C)
        solution = np.linalg.solve(np.block([[A, sign * C.T], [C, np.zeros((k, k))]]), np.r_[b, d if rhs_d else 0 * d])
        return solution if with_alpha else solution[: len(b)]
    return solve


RIGHT = [("app-079", rayleigh_gradient), ("app-082b", kkt_point), ("app-084", coin_map)]
WRONG = {
    "app-079": [
        ("no quotient rule", lambda A, w: (A + A.T) @ w / (w @ w)),
        ("A taken as symmetric", lambda A, w: 2 * (A @ w - (w @ A @ w) / (w @ w) * w) / (w @ w)),
        ("factor 2 missing on R w", lambda A, w: ((A + A.T) @ w - (w @ A @ w) / (w @ w) * w) / (w @ w)),
    ],
    "app-082b": [
        ("stationarity written Aw − b − Cᵀα = 0: every multiplier of the wrong sign", _kkt_wrong(sign=-1.0)),
        ("the constraints' right-hand side d forgotten", _kkt_wrong(rhs_d=False)),
        ("the multipliers left out", _kkt_wrong(with_alpha=False)),
    ],
    "app-084": [
        ("the posterior mean", lambda k, N, a, b: (k + a) / (N + a + b)),
        ("the ML estimate", lambda k, N, a, b: k / N),
        ("a and b swapped", lambda k, N, a, b: (k + b - 1) / (N + a + b - 2)),
    ],
}


@pytest.mark.parametrize("check_id, solution", RIGHT, ids=lambda v: v if isinstance(v, str) else v.__name__)
def test_a_right_answer_passes(check_id, solution, capsys):
    _run_check(check_id, solution.__name__, solution)
    assert capsys.readouterr().out.startswith(f"pass: {solution.__name__}")


@pytest.mark.parametrize("check_id, mistake, wrong", [(c, why, f) for c, cases in WRONG.items() for why, f in cases],
                         ids=lambda v: v if isinstance(v, str) else "")
def test_a_classic_mistake_is_rejected(check_id, mistake, wrong):
    name = dict((c, f.__name__) for c, f in RIGHT)[check_id]
    wrong.__name__ = name
    with pytest.raises(ExerciseCheckFailed):
        _run_check(check_id, name, wrong)

