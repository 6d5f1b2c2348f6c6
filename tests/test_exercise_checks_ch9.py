"""The exercise checks of chapter 9, generative models, accept a right answer and reject the classic wrong ones.

The best discriminator between two Gaussians, the KL divergence to a Gaussian prior that is not standard, the variance
of the noised data at every step, and the exact MMD between two Gaussians: for each, correct solutions must print
``pass`` and every listed mistake must raise ``ExerciseCheckFailed``. The references inside the checks are tested too:
the stable discriminator against ``gan.optimal_discriminator`` on the densities themselves, the KL divergence against
``vae.gaussian_kl`` and Monte Carlo, the variance against simulated chains, and the MMD against ``mmd.mmd2`` on large
samples.
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


def kl_to_gaussian_prior(mu, log_var, prior_mu, prior_log_var):
    return _kl(mu, log_var, prior_mu, prior_log_var)


def _kl(mu, log_var, prior_mu, prior_log_var, *, scale_mean=True, minus_one=True, reverse=False):
    if reverse:  # KL(p ‖ q) instead of KL(q ‖ p)
        mu, log_var, prior_mu, prior_log_var = prior_mu, prior_log_var, mu, log_var
    squared = (mu - prior_mu) ** 2 / (np.exp(prior_log_var) if scale_mean else 1.0)
    return 0.5 * (np.exp(log_var - prior_log_var) + squared - (1.0 if minus_one else 0.0) - log_var
                  + prior_log_var).sum(axis=1)


def noised_variance(var0, betas):
    return _variance(var0, betas)


def _variance(var0, betas, *, cumulative=True, offset=0, data_scale="alpha_bar"):
    alpha_bars = np.cumprod(1.0 - betas) if cumulative else 1.0 - betas
    alpha_bars = np.r_[1.0, alpha_bars][:-1] if offset else alpha_bars  # offset: ᾱ_{t−1} in place of ᾱ_t
    scale = {"alpha_bar": alpha_bars, "root": np.sqrt(alpha_bars), "none": 0.0}[data_scale]
    return scale * var0 + 1.0 - alpha_bars


def mmd2_gaussians(mu_p, var_p, mu_q, var_q, s):
    return _mmd2_gaussians(mu_p, var_p, mu_q, var_q, s)


def _mmd2_gaussians(mu_p, var_p, mu_q, var_q, s, *, within=2.0, power=None, cross=2.0, width_squared=True):
    D = len(mu_p)
    w = s**2 if width_squared else s

    def expected(c, v):  # E exp(−‖u‖²/(2s²)) for u ~ N(c, v I)
        return (w / (w + v)) ** (D / 2 if power is None else power) * np.exp(-np.sum(c**2) / (2 * (w + v)))

    zero = np.zeros(D)
    return expected(zero, within * var_p) + expected(zero, within * var_q) - cross * expected(mu_p - mu_q,
                                                                                              var_p + var_q)


RIGHT = [gaussian_discriminator, kl_to_gaussian_prior, noised_variance, mmd2_gaussians]

OTHER_RIGHT = [
    ("kl_to_gaussian_prior", "a loop over the latent dimensions",
     lambda mu, log_var, m, lv: sum(0.5 * ((np.exp(log_var[:, j]) + (mu[:, j] - m[:, j]) ** 2) / np.exp(lv[:, j])
                                           - 1 - log_var[:, j] + lv[:, j]) for j in range(mu.shape[1]))),
    ("noised_variance", "the single steps, one after the other",
     lambda var0, betas: np.array([v for v in _steps(var0, betas)])),
    ("mmd2_gaussians", "a product over the coordinates",
     lambda mu_p, var_p, mu_q, var_q, s: sum(sign * np.prod([np.sqrt(s**2 / (s**2 + v))
                                                             * np.exp(-c_j**2 / (2 * (s**2 + v))) for c_j in c])
                                             for sign, c, v in [(1, 0 * mu_p, 2 * var_p), (1, 0 * mu_q, 2 * var_q),
                                                                (-2, mu_p - mu_q, var_p + var_q)])),
]


def _steps(var0, betas):
    variance = var0
    for beta in betas:  # Var[√(1 − β) x + √β ε] = (1 − β) Var[x] + β
        variance = (1 - beta) * variance + beta
        yield variance


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
    "kl_to_gaussian_prior": [
        ("the mean's distance not divided by the prior's variance", lambda *a: _kl(*a, scale_mean=False)),
        ("the − 1 forgotten", lambda *a: _kl(*a, minus_one=False)),
        ("the divergence the other way round, KL(p ‖ q)", lambda *a: _kl(*a, reverse=True)),
        ("the prior taken as N(0, I): vae.gaussian_kl",
         lambda mu, log_var, m, lv: 0.5 * (mu**2 + np.exp(log_var) - 1.0 - log_var).sum(axis=1)),
    ],
    "noised_variance": [
        ("x_0 taken as a point: 1 − ᾱ_t", lambda *a: _variance(*a, data_scale="none")),
        ("the data's variance scaled by √ᾱ_t, as the data are", lambda *a: _variance(*a, data_scale="root")),
        ("α_t instead of the product ᾱ_t", lambda *a: _variance(*a, cumulative=False)),
        ("ᾱ_{t−1} in place of ᾱ_t: one step too few", lambda *a: _variance(*a, offset=1)),
    ],
    "mmd2_gaussians": [
        ("the variance of x − x' taken as v, not 2v", lambda *a: _mmd2_gaussians(*a, within=1.0)),
        ("the power D/2 forgotten", lambda *a: _mmd2_gaussians(*a, power=0.5)),
        ("the cross term without its factor 2", lambda *a: _mmd2_gaussians(*a, cross=1.0)),
        ("s where s² belongs", lambda *a: _mmd2_gaussians(*a, width_squared=False)),
    ],
}


def test_the_checks_are_exported_in_the_books_order():  # chapter 9's, then chapter 10's, last
    names = [f.__name__ for f in RIGHT] + exercise_checks.ch10.__all__
    assert exercise_checks.__all__[-len(names):] == names


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
        x, *params = exercise_checks.ch9._two_gaussians_inputs(rng, 2)  # no far points
        mu_d, sigma_d, mu_g, sigma_g = params
        expected = gan.optimal_discriminator(_pdf(x, mu_d, sigma_d), _pdf(x, mu_g, sigma_g))
        np.testing.assert_allclose(exercise_checks.ch9._gaussian_discriminator_reference(x, *params), expected,
                                   rtol=1e-12, atol=1e-15)


def test_an_overflowing_sigmoid_is_rejected_for_its_warning():
    def gaussian_discriminator(x, mu_d, sigma_d, mu_g, sigma_g):  # exp(−r) overflows far out: a warning, then 0
        return 1.0 / (1.0 + np.exp(-_log_ratio(x, mu_d, sigma_d, mu_g, sigma_g)))

    with np.errstate(over="warn"), pytest.raises(ExerciseCheckFailed, match="emitted a warning"):
        exercise_checks.gaussian_discriminator(gaussian_discriminator, rng=np.random.default_rng(0))


def test_the_far_points_underflow_both_densities():
    x, mu_d, sigma_d, mu_g, sigma_g = exercise_checks.ch9._two_gaussians_inputs(np.random.default_rng(0), 5)
    assert (_pdf(x[:2], mu_d, sigma_d) == 0).all() and (_pdf(x[:2], mu_g, sigma_g) == 0).all()
    with np.errstate(invalid="ignore"):
        assert np.isnan(_naive_discriminator(x[:2], mu_d, sigma_d, mu_g, sigma_g)).all()


def test_the_references_agree_with_loops_and_the_package():
    from implementations.generative import vae

    rng = np.random.default_rng(5)
    for size in (1, 4, 9):
        args = exercise_checks.ch9._two_diagonal_gaussians_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.ch9._kl_to_gaussian_prior_reference(*args), OTHER_RIGHT[0][2](*args),
                                   rtol=1e-12)
        mu, log_var = args[:2]  # a standard prior: the ELBO's KL term
        np.testing.assert_allclose(exercise_checks.ch9._kl_to_gaussian_prior_reference(mu, log_var, 0 * mu, 0 * mu),
                                   vae.gaussian_kl(mu, log_var).data, rtol=1e-12)
        var0, betas = exercise_checks.ch9._variance_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.ch9._noised_variance_reference(var0, betas),
                                   list(_steps(var0, betas)), rtol=1e-12)
        args = exercise_checks.ch9._two_isotropic_gaussians_inputs(rng, size)
        np.testing.assert_allclose(exercise_checks.ch9._mmd2_gaussians_reference(*args), OTHER_RIGHT[2][2](*args),
                                   rtol=1e-10)


def test_the_kl_reference_matches_monte_carlo():
    rng = np.random.default_rng(6)
    mu, log_var, prior_mu, prior_log_var = (rng.normal(size=(1, 3)) for _ in range(4))
    z = mu + np.exp(0.5 * log_var) * rng.standard_normal((200_000, 3))  # z ~ q

    def log_normal(z, m, lv):
        return -0.5 * ((z - m) ** 2 / np.exp(lv) + lv + np.log(2 * np.pi)).sum(axis=1)

    draws = log_normal(z, mu, log_var) - log_normal(z, prior_mu, prior_log_var)
    expected = exercise_checks.ch9._kl_to_gaussian_prior_reference(mu, log_var, prior_mu, prior_log_var)[0]
    assert abs(draws.mean() - expected) < 4 * draws.std() / np.sqrt(len(draws))


def test_the_variance_reference_matches_simulated_chains():
    rng = np.random.default_rng(7)
    var0, betas = 4.0, rng.uniform(0.01, 0.4, size=6)
    x = np.sqrt(var0) * rng.standard_normal(200_000)
    expected = exercise_checks.ch9._noised_variance_reference(var0, betas)
    for t, beta in enumerate(betas):
        x = np.sqrt(1 - beta) * x + np.sqrt(beta) * rng.standard_normal(x.shape)
        assert abs(x.var() - expected[t]) < 5 * expected[t] * np.sqrt(2 / len(x))


def test_the_mmd_reference_is_what_the_unbiased_estimate_averages_to():
    from implementations.generative import mmd

    rng = np.random.default_rng(8)
    mu_p, mu_q = np.array([0.0, 0.5]), np.array([0.8, -0.2])
    expected = exercise_checks.ch9._mmd2_gaussians_reference(mu_p, 0.5, mu_q, 1.5, 0.7)
    estimates = [mmd.mmd2(mu_p + np.sqrt(0.5) * rng.standard_normal((60, 2)),
                          mu_q + np.sqrt(1.5) * rng.standard_normal((50, 2)), bandwidth=0.7) for _ in range(300)]
    assert abs(np.mean(estimates) - expected) < 4 * np.std(estimates) / np.sqrt(300)


def test_the_first_editions_checks_still_accept_right_answers_and_reject_wrong_ones(capsys):
    """Student copies made from the first edition still call ``gaussian_kl``, ``noised`` and ``mmd2_unbiased``."""
    from implementations.generative import diffusion, mmd, vae

    def gaussian_kl(mu, log_var):
        return vae.gaussian_kl(mu, log_var).data

    def noised(x0, t, betas, noise):
        return diffusion.q_sample(x0, t, noise, diffusion.DDPMSchedule(betas))

    def mmd2_unbiased(X, Y, s):
        return mmd.mmd2(X, Y, bandwidth=s)

    for right in (gaussian_kl, noised, mmd2_unbiased):
        getattr(exercise_checks, right.__name__)(right, rng=np.random.default_rng(0))
        assert capsys.readouterr().out.startswith(f"pass: {right.__name__}")

    def mmd2_unbiased(X, Y, s):  # noqa: F811  (the biased estimate: a classic mistake)
        return mmd.mmd2(X, Y, bandwidth=s, unbiased=False)

    with pytest.raises(ExerciseCheckFailed, match="mmd2_unbiased"):
        exercise_checks.mmd2_unbiased(mmd2_unbiased, rng=np.random.default_rng(0))
