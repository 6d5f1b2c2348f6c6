"""The exercise checks of chapter 8, generative models, accept a right answer and reject the classic wrong ones.

The best discriminator between two Gaussians, the KL term of the ELBO, the forward process's jump to step t and the
unbiased MMD: for each, correct solutions must print ``pass`` and every listed mistake must raise
``ExerciseCheckFailed``. The references inside the checks are tested too: the stable discriminator against
``gan.optimal_discriminator`` on the densities themselves, and the rest against loops over the formulas.
"""

import numpy as np
import pytest

from implementations.generative import gan
from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed

# --- right answers ----------------------------------------------------------------------------------------------


def _log_ratio(x, mu_d, sigma_d, mu_g, sigma_g, *, with_log_sigma=True):
    r = -0.5 * ((x - mu_d) / sigma_d) ** 2 + 0.5 * ((x - mu_g) / sigma_g) ** 2
    return r - (np.log(sigma_d) - np.log(sigma_g) if with_log_sigma else 0.0)


def gaussian_discriminator(x, mu_d, sigma_d, mu_g, sigma_g):
    return 0.5 * (1.0 + np.tanh(0.5 * _log_ratio(x, mu_d, sigma_d, mu_g, sigma_g)))


def _pdf(x, mu, sigma):
    return np.exp(-0.5 * ((x - mu) / sigma) ** 2) / (sigma * np.sqrt(2 * np.pi))


def gaussian_kl(mu, log_var):
    return 0.5 * (mu**2 + np.exp(log_var) - 1.0 - log_var).sum(axis=1)


def _noised(x0, t, betas, noise, *, cumulative=True, offset=1, roots=True):
    alphas = 1.0 - betas
    alpha_bar = (np.cumprod(alphas) if cumulative else alphas)[np.minimum(t - offset, len(betas) - 1)][:, None]
    if not roots:
        return alpha_bar * x0 + (1.0 - alpha_bar) * noise
    return np.sqrt(alpha_bar) * x0 + np.sqrt(1.0 - alpha_bar) * noise


def noised(x0, t, betas, noise):
    return _noised(x0, t, betas, noise)


def _rbf(A, B, s):
    return np.exp(-((A[:, None, :] - B[None, :, :]) ** 2).sum(axis=-1) / (2 * s**2))


def _mmd(X, Y, s, *, diagonal=False, divide_by_square=False, cross_factor=2.0, m_for_both=False):
    m, n = len(X), len(Y)
    K_XX, K_YY = _rbf(X, X, s), _rbf(Y, Y, s)
    sum_XX = K_XX.sum() - (0.0 if diagonal else np.trace(K_XX))
    sum_YY = K_YY.sum() - (0.0 if diagonal else np.trace(K_YY))
    n_for_Y = m if m_for_both else n
    if diagonal or divide_by_square:
        within = sum_XX / m**2 + sum_YY / n_for_Y**2
    else:
        within = sum_XX / (m * (m - 1)) + sum_YY / (n_for_Y * (n_for_Y - 1))
    return within - cross_factor * _rbf(X, Y, s).mean()


def mmd2_unbiased(X, Y, s):
    return _mmd(X, Y, s)


def _mmd_by_loops(X, Y, s):
    def k(a, b):
        return np.exp(-np.sum((a - b) ** 2) / (2 * s**2))

    m, n = len(X), len(Y)
    xx = sum(k(X[i], X[j]) for i in range(m) for j in range(m) if i != j) / (m * (m - 1))
    yy = sum(k(Y[i], Y[j]) for i in range(n) for j in range(n) if i != j) / (n * (n - 1))
    xy = sum(k(X[i], Y[j]) for i in range(m) for j in range(n)) / (m * n)
    return xx + yy - 2 * xy


RIGHT = [gaussian_discriminator, gaussian_kl, noised, mmd2_unbiased]

OTHER_RIGHT = [
    ("gaussian_kl", "a loop over the latent dimensions",
     lambda mu, log_var: sum(0.5 * (mu[:, j] ** 2 + np.exp(log_var[:, j]) - 1 - log_var[:, j])
                             for j in range(mu.shape[1]))),
    ("noised", "a loop over the points with a running product",
     lambda x0, t, betas, noise: np.array([np.sqrt(np.prod(1 - betas[:k])) * x0[i]
                                           + np.sqrt(1 - np.prod(1 - betas[:k])) * noise[i]
                                           for i, k in enumerate(t)])),
    ("mmd2_unbiased", "three loops over the pairs", _mmd_by_loops),
]


def _naive_discriminator(x, mu_d, sigma_d, mu_g, sigma_g):
    p_data, p_g = _pdf(x, mu_d, sigma_d), _pdf(x, mu_g, sigma_g)
    return p_data / (p_data + p_g)


WRONG = {
    "gaussian_discriminator": [
        ("the densities divided as they are: 0/0 in the tails", _naive_discriminator),
        ("the generator's share: p_g / (p_data + p_g)", lambda *a: 1.0 - gaussian_discriminator(*a)),
        ("the log σ terms forgotten", lambda *a: 0.5 * (1.0 + np.tanh(0.5 * _log_ratio(*a, with_log_sigma=False)))),
        ("variances passed where standard deviations belong",
         lambda x, mu_d, sigma_d, mu_g, sigma_g: gaussian_discriminator(x, mu_d, sigma_d**2, mu_g, sigma_g**2)),
    ],
    "gaussian_kl": [
        ("the ½ forgotten", lambda mu, log_var: 2 * gaussian_kl(mu, log_var)),
        ("the − 1 forgotten", lambda mu, log_var: gaussian_kl(mu, log_var) + 0.5 * mu.shape[1]),
        ("log_var read as the variance",
         lambda mu, log_var: 0.5 * (mu**2 + log_var - 1.0 - np.log(np.abs(log_var))).sum(axis=1)),
        ("summed over the batch instead of the latent dimensions",
         lambda mu, log_var: 0.5 * (mu**2 + np.exp(log_var) - 1.0 - log_var).sum(axis=0)),
        ("a mean over the latent dimensions", lambda mu, log_var: gaussian_kl(mu, log_var) / mu.shape[1]),
    ],
    "noised": [
        ("α_t instead of the product ᾱ_t", lambda *a: _noised(*a, cumulative=False)),
        ("ᾱ read from index t: one step too many", lambda *a: _noised(*a, offset=0)),
        ("no square roots", lambda *a: _noised(*a, roots=False)),
        ("the cumulative sum of the betas", lambda x0, t, betas, noise: _noised(x0, t, 1 - np.exp(-np.cumsum(betas)),
                                                                               noise, cumulative=False)),
    ],
    "mmd2_unbiased": [
        ("the diagonal kept: the biased V-statistic", lambda X, Y, s: _mmd(X, Y, s, diagonal=True)),
        ("the diagonal left out but divided by m²", lambda X, Y, s: _mmd(X, Y, s, divide_by_square=True)),
        ("the cross term without its factor 2", lambda X, Y, s: _mmd(X, Y, s, cross_factor=1.0)),
        ("m(m − 1) for both samples", lambda X, Y, s: _mmd(X, Y, s, m_for_both=True)),
    ],
}


def test_the_checks_are_exported_last():
    assert exercise_checks.__all__[-len(RIGHT):] == [f.__name__ for f in RIGHT]


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    out = capsys.readouterr().out
    assert out.startswith(f"pass: {solution.__name__}")


@pytest.mark.parametrize(("check", "how", "solution"), OTHER_RIGHT, ids=[f"{c}: {h}" for c, h, _ in OTHER_RIGHT])
def test_another_right_answer_passes(check, how, solution, capsys):
    solution.__name__ = check
    getattr(exercise_checks, check)(solution, rng=np.random.default_rng(1))
    assert capsys.readouterr().out.startswith(f"pass: {check}")


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
    assert f"pass: {check} agrees" not in capsys.readouterr().out


# --- the references -------------------------------------------------------------------------------------------------

def test_the_stable_discriminator_is_the_optimal_discriminator_where_the_densities_are_representable():
    rng = np.random.default_rng(3)
    for _ in range(20):
        x, *params = exercise_checks.ch8._two_gaussians_inputs(rng, 2)  # no far points
        mu_d, sigma_d, mu_g, sigma_g = params
        expected = gan.optimal_discriminator(_pdf(x, mu_d, sigma_d), _pdf(x, mu_g, sigma_g))
        np.testing.assert_allclose(exercise_checks.ch8._gaussian_discriminator_reference(x, *params), expected,
                                   rtol=1e-12, atol=1e-15)


def test_an_overflowing_sigmoid_is_rejected_for_its_warning():
    def gaussian_discriminator(x, mu_d, sigma_d, mu_g, sigma_g):  # exp(−r) overflows far out: a warning, then 0
        return 1.0 / (1.0 + np.exp(-_log_ratio(x, mu_d, sigma_d, mu_g, sigma_g)))

    with np.errstate(over="warn"), pytest.raises(ExerciseCheckFailed, match="emitted a warning"):
        exercise_checks.gaussian_discriminator(gaussian_discriminator, rng=np.random.default_rng(0))


def test_the_far_points_underflow_both_densities():
    x, mu_d, sigma_d, mu_g, sigma_g = exercise_checks.ch8._two_gaussians_inputs(np.random.default_rng(0), 5)
    assert (_pdf(x[:2], mu_d, sigma_d) == 0).all() and (_pdf(x[:2], mu_g, sigma_g) == 0).all()
    with np.errstate(invalid="ignore"):
        assert np.isnan(_naive_discriminator(x[:2], mu_d, sigma_d, mu_g, sigma_g)).all()


def test_the_references_agree_with_loops():
    rng = np.random.default_rng(5)
    for size in (1, 4, 9):
        mu, log_var = exercise_checks.ch8._latent_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.ch8._gaussian_kl_reference(mu, log_var),
                                   OTHER_RIGHT[0][2](mu, log_var), rtol=1e-12)
        args = exercise_checks.ch8._forward_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.ch8._noised_reference(*args), OTHER_RIGHT[1][2](*args), rtol=1e-12)
        X, Y, s = exercise_checks.ch8._mmd_inputs(rng, size)
        assert len(X) != len(Y)
        np.testing.assert_allclose(exercise_checks.ch8._mmd_reference(X, Y, s), _mmd_by_loops(X, Y, s), rtol=1e-10)
