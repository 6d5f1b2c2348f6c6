"""Every exercise check accepts a right answer and rejects the classic wrong ones.

For each exercise of the book: a correct solution must print ``pass``, and at least two mistakes that readers
make (a missing factor, a sign error, a missing max-subtraction or clamp, a transposed matrix, an off-by-one in a
mask, …) must raise ``ExerciseCheckFailed`` — a check that lets them through teaches nothing.
"""

import numpy as np
import pytest

from implementations import numeric
from implementations.engine.functional import where
from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed


def _phi(X):
    return np.hstack([np.ones((X.shape[0], 1)), X])  # (N, m + 1)


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


# --- right answers ----------------------------------------------------------------------------------------------

def averaged_gradient(X, y, w):
    Phi = _phi(X)
    return -Phi.T @ (y - Phi @ w) / X.shape[0]


def ridge_weights(X, y, l2):
    Phi = _phi(X)
    I_prime = np.diag(np.r_[0.0, np.ones(X.shape[1])])
    return np.linalg.solve(Phi.T @ Phi + l2 * I_prime, Phi.T @ y)


def log_sigmoid(z):
    z = np.asarray(z, dtype=float)
    return np.minimum(z, 0.0) - np.log1p(np.exp(-np.abs(z)))


def hessian(X, y, w):
    Phi = _phi(X)
    mu = _sigmoid(Phi @ w)
    return (Phi.T * (mu * (1 - mu))) @ Phi / len(mu)


def binary_weights(W):
    return W[:, 1] - W[:, 0]


def softplus(z):
    nonnegative = z.data >= 0
    return where(nonnegative, z, 0.0) + ((-where(nonnegative, z, -z)).exp() + 1.0).log()


def _relu_net_grad(X, y, W1, b1, W2, b2, *, relu_derivative=True, average=True):
    U = X @ W1 + b1
    H = np.maximum(U, 0.0)
    Z_bar = numeric.softmax(H @ W2 + b2) - numeric.one_hot(y, W2.shape[1])
    if average:
        Z_bar = Z_bar / len(y)
    U_bar = (Z_bar @ W2.T) * ((U > 0) if relu_derivative else (1 - H**2))
    return X.T @ U_bar


def relu_net_grad_W1(X, y, W1, b1, W2, b2):
    return _relu_net_grad(X, y, W1, b1, W2, b2)


def num_weights(sizes):
    return sum(a * b + b for a, b in zip(sizes[:-1], sizes[1:], strict=True))


def _gru(x_t, h_prev, W_z, W_r, W_h, b_z, b_r, b_h, *, pytorch_z=False, reset_after=False, x_first=False):
    def cat(a, b):
        return np.concatenate([b, a] if x_first else [a, b], axis=1)

    hx = cat(h_prev, x_t)
    z = _sigmoid(hx @ W_z + b_z)
    r = _sigmoid(hx @ W_r + b_r)
    if reset_after:
        h_tilde = np.tanh(r * cat(h_prev, 0 * x_t)[:, : h_prev.shape[1]] + cat(0 * h_prev, x_t) @ W_h + b_h)
    else:
        h_tilde = np.tanh(cat(r * h_prev, x_t) @ W_h + b_h)
    return z * h_prev + (1 - z) * h_tilde if pytorch_z else (1 - z) * h_prev + z * h_tilde


def gru_step(x_t, h_prev, W_z, W_r, W_h, b_z, b_r, b_h):
    return _gru(x_t, h_prev, W_z, W_r, W_h, b_z, b_r, b_h)


def _bptt(x, h0, W_xh, W_hh, b_h, y, *, tanh_derivative=True, shift=1, propagate=True):
    states = [h0]
    for t in range(x.shape[1]):
        states.append(np.tanh(x[:, t] @ W_xh + states[-1] @ W_hh + b_h))
    grad = np.zeros_like(W_hh)
    h_bar = states[-1] - y
    for t in range(x.shape[1], 0, -1):
        a_bar = h_bar * (1.0 - states[t] ** 2) if tanh_derivative else h_bar
        grad += states[t - shift].T @ a_bar
        h_bar = a_bar @ W_hh.T if propagate else 0 * h_bar
    return grad


def bptt_last(x, h0, W_xh, W_hh, b_h, y):
    return _bptt(x, h0, W_xh, W_hh, b_h, y)


def reverse_within_length(x, lengths):
    B, T = x.shape[:2]
    t = np.arange(T)[None, :]
    source = np.where(t < lengths[:, None], lengths[:, None] - 1 - t, t)
    return x[np.arange(B)[:, None], source]


RIGHT = [averaged_gradient, ridge_weights, log_sigmoid, hessian, binary_weights, softplus, relu_net_grad_W1,
         num_weights, gru_step, bptt_last, reverse_within_length]


def test_every_exercise_check_is_tested():
    # The checks added with the chapters' later exercises are tested in their own files.
    from test_exercise_checks_ch1 import RIGHT as RIGHT_CH1
    from test_exercise_checks_ch2 import RIGHT as RIGHT_CH2
    from test_exercise_checks_ch3 import RIGHT as RIGHT_CH3
    from test_exercise_checks_ch4 import RIGHT as RIGHT_CH4
    from test_exercise_checks_ch5 import RIGHT as RIGHT_CH5
    from test_exercise_checks_ch7 import RIGHT as RIGHT_CH7
    from test_exercise_checks_ch9 import RIGHT as RIGHT_CH9
    from test_exercise_checks_unsupervised import RIGHT as RIGHT_UNSUPERVISED

    tested = [f.__name__ for f in (*RIGHT, *RIGHT_CH1, *RIGHT_CH2, *RIGHT_CH3, *RIGHT_CH4, *RIGHT_CH5, *RIGHT_CH7,
                                   *RIGHT_CH9, *RIGHT_UNSUPERVISED)]
    assert sorted(tested) == sorted(exercise_checks.__all__)


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    assert capsys.readouterr().out.startswith(f"pass: {solution.__name__}")


# --- classic wrong answers ------------------------------------------------------------------------------------------

def _named(name, function):
    function.__name__ = name
    return function


WRONG = {
    "averaged_gradient": [
        ("missing 1/N", lambda X, y, w: -_phi(X).T @ (y - _phi(X) @ w)),
        ("sign error", lambda X, y, w: _phi(X).T @ (y - _phi(X) @ w) / len(y)),
        ("no bias column", lambda X, y, w: -X.T @ (y - X @ w[1:] - w[0]) / len(y)),
    ],
    "ridge_weights": [
        ("bias penalised", lambda X, y, l2: np.linalg.solve(_phi(X).T @ _phi(X) + l2 * np.eye(X.shape[1] + 1),
                                                            _phi(X).T @ y)),
        ("penalty forgotten", lambda X, y, l2: np.linalg.lstsq(_phi(X), y, rcond=None)[0]),
        ("penalty doubled", lambda X, y, l2: ridge_weights(X, y, 2 * l2)),
    ],
    "log_sigmoid": [
        ("naive formula overflows", lambda z: -np.log1p(np.exp(-np.asarray(z, dtype=float)))),
        ("log of the sigmoid underflows", lambda z: np.log(_sigmoid(np.asarray(z, dtype=float)))),
        ("clamped instead of split", lambda z: -np.log1p(np.exp(-np.clip(z, -700, 700)))),
    ],
    "hessian": [
        ("missing 1/N", lambda X, y, w: hessian(X, y, w) * len(y)),
        ("mu instead of mu(1 - mu)", lambda X, y, w: (_phi(X).T * _sigmoid(_phi(X) @ w)) @ _phi(X) / len(y)),
        ("transposed product: N x N", lambda X, y, w: _phi(X) @ _phi(X).T / len(y)),
    ],
    "binary_weights": [
        ("sign error", lambda W: W[:, 0] - W[:, 1]),
        ("one column only", lambda W: W[:, 1]),
        ("sum instead of difference", lambda W: W.sum(axis=1)),
    ],
    "softplus": [
        ("log(1 + exp(z)) overflows", lambda z: (z.exp() + 1.0).log()),
        ("max(z, 0) forgotten", lambda z: ((-where(z.data >= 0, z, -z)).exp() + 1.0).log()),
        ("NumPy instead of Tensor", lambda z: np.logaddexp(0.0, z.data)),
    ],
    "relu_net_grad_W1": [
        ("tanh derivative kept", lambda *a: _relu_net_grad(*a, relu_derivative=False)),
        ("missing 1/N", lambda *a: _relu_net_grad(*a, average=False)),
        ("transposed result", lambda *a: _relu_net_grad(*a).T),
    ],
    "num_weights": [
        ("biases forgotten", lambda sizes: sum(a * b for a, b in zip(sizes[:-1], sizes[1:], strict=True))),
        ("bias per input", lambda sizes: sum(a * b + a for a, b in zip(sizes[:-1], sizes[1:], strict=True))),
    ],
    "gru_step": [
        ("PyTorch's z (gates swapped)", lambda *a: _gru(*a, pytorch_z=True)),
        ("input before state in the concatenation", lambda *a: _gru(*a, x_first=True)),
    ],
    "bptt_last": [
        ("tanh derivative forgotten", lambda *a: _bptt(*a, tanh_derivative=False)),
        ("off by one: h_t instead of h_(t-1)", lambda *a: _bptt(*a, shift=0)),
        ("gradient not carried back", lambda *a: _bptt(*a, propagate=False)),
    ],
    "reverse_within_length": [
        ("whole row reversed, padding too", lambda x, lengths: x[:, ::-1]),
        ("off by one", lambda x, lengths: x[np.arange(x.shape[0])[:, None],
                                            np.where(np.arange(x.shape[1])[None, :] < lengths[:, None],
                                                     (lengths[:, None] - np.arange(x.shape[1])[None, :])
                                                     % x.shape[1], np.arange(x.shape[1])[None, :])]),
    ],
}


def test_every_exercise_has_at_least_two_wrong_answers():
    from test_exercise_checks_ch1 import WRONG as WRONG_CH1
    from test_exercise_checks_ch2 import WRONG as WRONG_CH2
    from test_exercise_checks_ch3 import WRONG as WRONG_CH3
    from test_exercise_checks_ch4 import WRONG as WRONG_CH4
    from test_exercise_checks_ch5 import WRONG as WRONG_CH5
    from test_exercise_checks_ch7 import WRONG as WRONG_CH7
    from test_exercise_checks_ch9 import WRONG as WRONG_CH9
    from test_exercise_checks_unsupervised import WRONG as WRONG_UNSUPERVISED

    everything = {**WRONG, **WRONG_CH1, **WRONG_CH2, **WRONG_CH3, **WRONG_CH4, **WRONG_CH5, **WRONG_CH7, **WRONG_CH9,
                  **WRONG_UNSUPERVISED}
    assert set(everything) == set(exercise_checks.__all__)
    assert all(len(mistakes) >= 2 for mistakes in everything.values())


@pytest.mark.parametrize("exercise, mistake, wrong", [(name, why, f) for name, cases in WRONG.items()
                                                      for why, f in cases], ids=lambda v: v if isinstance(v, str)
                         else "")
def test_a_classic_mistake_is_rejected(exercise, mistake, wrong, capsys):
    wrong = _named(exercise, wrong)
    with np.errstate(all="ignore"), pytest.raises(ExerciseCheckFailed, match=exercise):
        getattr(exercise_checks, exercise)(wrong, rng=np.random.default_rng(0))
    assert f"pass: {exercise} agrees" not in capsys.readouterr().out  # softplus may pass one of its two parts


# --- what every check does, whatever the exercise -----------------------------------------------------------------

def _stub(name):
    def stub(*args):
        raise NotImplementedError

    stub.__name__ = name
    return stub


@pytest.mark.parametrize("check", sorted(exercise_checks.__all__))
def test_a_stub_gets_one_reminder(check, capsys):
    getattr(exercise_checks, check)(_stub(check), rng=np.random.default_rng(0))
    out = capsys.readouterr().out
    assert out.count("is not implemented yet") == 1  # a check of several parts reminds once
    assert f"{check} is not implemented yet" in out


@pytest.mark.parametrize("check", sorted(exercise_checks.__all__))
def test_the_function_itself_is_required(check):
    with pytest.raises(TypeError, match="must be a function"):
        getattr(exercise_checks, check)(1.0, rng=np.random.default_rng(0))


@pytest.mark.parametrize("check", sorted(exercise_checks.__all__))
def test_a_seed_instead_of_a_generator_is_refused(check):
    with pytest.raises((TypeError, ValueError), match="rng"):
        getattr(exercise_checks, check)(_stub(check), rng=42)


def test_the_issue_examples_read_as_intended():
    """The failures a reader used to get: now named, with the input and the kind of mistake."""
    from test_exercise_checks_ch7 import _attention

    def position_shift(m, D):
        omega = 1 / 10000 ** (np.arange(D) / D)  # one frequency per column: D of them, not D / 2
        M = np.zeros((D, D))
        M[0::2, 0::2] = np.diag(np.cos(m * omega))  # (D, D) into a (D/2, D/2) slice
        return M

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)position_shift raised ValueError.*m = \d+.*D = \d+"):
        exercise_checks.position_shift(position_shift, rng=np.random.default_rng(0))

    def causal_attention(Q, K, V):
        return _attention(Q, K, V)[:1]

    with pytest.raises(ExerciseCheckFailed, match=r"wrong shape: expected \(2, 3\), received \(1, 3\)"):
        exercise_checks.causal_attention(causal_attention, rng=np.random.default_rng(0))

    def binary_weights(W):
        return W[:, 0] - W[:, 1]

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)^binary_weights disagrees.*W = array of shape"):
        exercise_checks.binary_weights(binary_weights, rng=np.random.default_rng(0))

