"""The exercise check added to chapter 4 with its sections on training in practice accepts a right answer and rejects
the classic wrong ones.

Inverted dropout forward and backward with a given keep-mask: correct solutions must print ``pass`` for both results,
and every listed mistake must raise ``ExerciseCheckFailed``. The reference inside the check is tested too: against
what a ``Dropout`` layer of the package computes in training mode (its output and the engine's gradient through it),
and against central differences. (The chapter's first three checks are tested in tests/test_exercise_checks.py.)
"""

import numpy as np
import pytest

from implementations.engine.autograd import Tensor
from implementations.nn import Dropout
from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed
from implementations.preliminaries.gradcheck import numerical_gradient

# --- right answers ----------------------------------------------------------------------------------------------


def _dropout(H, mask, p, grad_out, *, keep_probability=None, scale="divide", mask_forward=True, mask_backward=True,
             scale_backward=True):
    kept = 1 - p if keep_probability is None else keep_probability
    factor = {"divide": 1 / kept, "multiply": kept, "none": 1.0}[scale]
    out = H * (mask if mask_forward else 1.0) * factor
    grad_H = grad_out * (mask if mask_backward else 1.0) * (factor if scale_backward else 1.0)
    return out, grad_H


def dropout_forward_backward(H, mask, p, grad_out):
    return _dropout(H, mask, p, grad_out)


def _with_the_engine(H, mask, p, grad_out):
    H_t = Tensor(H, requires_grad=True)
    out = H_t * (mask / (1 - p))
    out.backward(grad_out)
    return out.data, H_t.grad


RIGHT = [dropout_forward_backward]

OTHER_RIGHT = [
    ("dropout_forward_backward", "np.where on the mask, a list returned",
     lambda H, mask, p, grad_out: [np.where(mask, H / (1 - p), 0.0), np.where(mask, grad_out / (1 - p), 0.0)]),
    ("dropout_forward_backward", "the engine's own backward pass", _with_the_engine),
]

WRONG = {
    "dropout_forward_backward": [
        ("no 1/(1 − p) scaling", lambda *a: _dropout(*a, scale="none")),
        ("multiplied by 1 − p instead of divided", lambda *a: _dropout(*a, scale="multiply")),
        ("p read as the keep probability: divided by p", lambda *a: _dropout(*a, keep_probability=a[2])),
        ("the mask read as the dropped entries", lambda H, mask, p, g: _dropout(H, ~mask, p, g)),
        ("the gradient not masked", lambda *a: _dropout(*a, mask_backward=False)),
        ("the gradient not scaled", lambda *a: _dropout(*a, scale_backward=False)),
        ("the output returned as the gradient", lambda H, mask, p, g: (_dropout(H, mask, p, g)[0],) * 2),
        ("a new random mask drawn instead of the given one",
         lambda H, mask, p, g: _dropout(H, np.random.default_rng(0).random(H.shape) >= p, p, g)),
        ("the two results swapped", lambda *a: _dropout(*a)[::-1]),
        ("the gradient forgotten", lambda *a: _dropout(*a)[0]),
    ],
}


def test_the_check_is_exported_with_chapter_4():
    names = exercise_checks.__all__
    start = names.index("relu_net_grad_W1") + 1
    assert names[start: start + len(RIGHT)] == [f.__name__ for f in RIGHT]
    assert names[start + len(RIGHT)] == "num_weights"


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    out = capsys.readouterr().out
    assert out.startswith(f"pass: {solution.__name__}")
    assert out.count("pass:") == 2
    assert "disagrees" not in out and "not implemented" not in out


@pytest.mark.parametrize(("check", "how", "solution"), OTHER_RIGHT, ids=[f"{c}: {h}" for c, h, _ in OTHER_RIGHT])
def test_another_right_answer_passes(check, how, solution, capsys):
    solution.__name__ = check
    getattr(exercise_checks, check)(solution, rng=np.random.default_rng(1))
    assert capsys.readouterr().out.count(f"pass: {check}") == 2


def test_every_check_has_at_least_two_wrong_answers():
    assert set(WRONG) == {f.__name__ for f in RIGHT}
    assert all(len(mistakes) >= 2 for mistakes in WRONG.values())


@pytest.mark.parametrize(("check", "mistake", "wrong"),
                         [(check, mistake, wrong) for check, cases in WRONG.items() for mistake, wrong in cases],
                         ids=[f"{check}: {mistake}" for check, cases in WRONG.items() for mistake, _ in cases])
@pytest.mark.parametrize("seed", [0, 11])
def test_a_classic_mistake_fails(check, mistake, wrong, seed, capsys):
    wrong.__name__ = check
    with np.errstate(all="ignore"), pytest.raises(ExerciseCheckFailed, match=check):
        getattr(exercise_checks, check)(wrong, rng=np.random.default_rng(seed))
    assert capsys.readouterr().out.count("pass:") <= 1  # a right forward pass may pass its part, never both


# --- what the messages teach ----------------------------------------------------------------------------------------

def test_the_check_names_the_result_that_disagrees_and_the_readers_arguments():
    def dropout_forward_backward(activations, keep, rate, upstream):
        return _dropout(activations, keep, rate, upstream, mask_backward=False)

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)dropout_forward_backward \(grad_H, its second result\) "
                                                  r"disagrees.*activations = array.*upstream = array"):
        exercise_checks.dropout_forward_backward(dropout_forward_backward, rng=np.random.default_rng(0))


def test_the_check_says_how_many_results_to_return():
    with pytest.raises(ExerciseCheckFailed, match=r"expected 2 results \(out, grad_H\); received ndarray"):
        exercise_checks.dropout_forward_backward(lambda H, mask, p, grad_out: H * mask / (1 - p),
                                                 rng=np.random.default_rng(0))


def test_every_input_has_a_kept_and_a_dropped_entry_and_p_away_from_one_half():
    rng = np.random.default_rng(5)
    for size in range(1, 21):
        H, mask, p, grad_out = exercise_checks.ch4._dropout_inputs(rng, size)
        assert mask.dtype == bool and mask.shape == H.shape == grad_out.shape
        assert mask.any() and not mask.all()
        assert 0.1 <= p <= 0.4 or 0.6 <= p <= 0.9


# --- the reference ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
@pytest.mark.parametrize("shape", [(1, 3), (4, 5), (2, 3, 4)])
def test_the_reference_is_what_a_dropout_layer_computes(p, shape):
    rng = np.random.default_rng(3)
    H, grad_out = rng.normal(size=shape), rng.normal(size=shape)
    H_t = Tensor(H, requires_grad=True)
    out = Dropout(p, rng=np.random.default_rng(7))(H_t)  # training mode, the default
    out.backward(grad_out)
    mask = out.data != 0  # the entries the layer kept (H has no zeros)
    reference_out, reference_grad = exercise_checks.ch4._dropout_reference(H, mask, p, grad_out)
    np.testing.assert_allclose(reference_out, out.data, rtol=1e-15, atol=0)
    np.testing.assert_allclose(reference_grad, H_t.grad, rtol=1e-15, atol=0)


def test_the_reference_gradient_agrees_with_central_differences():
    rng = np.random.default_rng(4)
    H, grad_out = rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    mask, p = rng.random((3, 4)) >= 0.3, 0.3
    _, grad_H = exercise_checks.ch4._dropout_reference(H, mask, p, grad_out)
    def loss(v):  # L = Σ grad_out ⊙ out, whose gradient with respect to out is grad_out
        return np.sum(grad_out * exercise_checks.ch4._dropout_reference(v, mask, p, grad_out)[0])

    numeric = numerical_gradient(loss, H)
    np.testing.assert_allclose(grad_H, numeric, rtol=1e-6, atol=1e-8)
