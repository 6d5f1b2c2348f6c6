"""Tests of implementations.generative.diffusion: the schedules against their formulas, the forward process against its
single
steps, the loss against finite differences, and the sampler against oracle noise predictors whose output
distribution is known in closed form."""

import numpy as np
import pytest

from implementations.engine.autograd import Tensor
from implementations.generative.diffusion import (
    DDPMSchedule,
    Denoiser,
    cosine_beta_schedule,
    ddpm_sample,
    diffusion_loss,
    linear_beta_schedule,
    q_sample,
    sinusoidal_time_embedding,
)
from implementations.preliminaries.gradcheck import numerical_gradient


def schedule(T=50, kind="linear"):
    return DDPMSchedule(linear_beta_schedule(T) if kind == "linear" else cosine_beta_schedule(T))


# --- schedules -----------------------------------------------------------------------------------------------------

def test_linear_schedule_is_ho_et_al_at_1000_steps_and_scaled_for_fewer():
    np.testing.assert_allclose(linear_beta_schedule(1000), np.linspace(1e-4, 0.02, 1000), rtol=1e-12)
    betas = linear_beta_schedule(50)
    assert betas.shape == (50,)
    np.testing.assert_allclose(betas[[0, -1]], [1e-4 * 20, 0.02 * 20], rtol=1e-12)  # scaled by 1000/T
    np.testing.assert_allclose(np.diff(betas), np.diff(betas)[0], rtol=1e-9)  # equal increments
    np.testing.assert_allclose(linear_beta_schedule(5, beta_1=0.1, beta_T=0.5), [0.1, 0.2, 0.3, 0.4, 0.5])


def test_cosine_schedule_gives_the_alpha_bar_of_its_formula():
    T, s = 40, 0.008
    betas = cosine_beta_schedule(T, s=s)
    f = [np.cos((t / T + s) / (1 + s) * np.pi / 2) ** 2 for t in range(T + 1)]
    alpha_bar = np.cumprod(1 - betas)
    np.testing.assert_allclose(alpha_bar[:-1], np.array(f[1:-1]) / f[0], rtol=1e-10)  # before the clipping
    assert betas[-1] == 0.999 and betas.max() == 0.999  # f(T) = 0 would make β_T = 1: clipped
    assert (betas > 0).all() and (np.diff(betas) > 0).all()


@pytest.mark.parametrize("kind", ["linear", "cosine"])
@pytest.mark.parametrize("T", [30, 50, 100, 1000])
def test_alpha_bar_T_is_small_for_the_default_schedules(kind, T):
    alpha_bar_T = schedule(T, kind).alpha_bars[-1]
    assert 0 < alpha_bar_T < 1e-4  # x_T is noise: its correlation √ᾱ_T with x_0 is below 1%


def test_schedule_quantities_match_loops():
    betas = np.array([0.1, 0.3, 0.05, 0.2])  # not monotone: allowed
    sch = DDPMSchedule(betas)
    alpha_bar, previous = [], 1.0
    for beta in betas:
        previous *= 1 - beta
        alpha_bar.append(previous)
    np.testing.assert_allclose(sch.alphas, 1 - betas)
    np.testing.assert_allclose(sch.alpha_bars, alpha_bar, rtol=1e-14)
    tilde = [(1 - ([1.0] + alpha_bar)[t]) / (1 - alpha_bar[t]) * betas[t] for t in range(4)]  # ᾱ_0 = 1
    np.testing.assert_allclose(sch.posterior_variances, tilde, rtol=1e-14)
    assert sch.posterior_variances[0] == 0.0 and sch.T == 4
    with pytest.raises(ValueError, match="read-only"):
        sch.alpha_bars[0] = 0.5  # one array changed alone would contradict the others
    betas[0] = 0.9
    assert sch.betas[0] == 0.1  # a copy


@pytest.mark.parametrize(("betas", "error", "message"), [
    ([0.1, 0.0, 0.2], ValueError, r"strictly between 0 and 1.*beta_2 = betas\[1\] = 0"),
    ([0.1, 1.0], ValueError, r"beta_2 = betas\[1\] = 1"),
    ([-0.1], ValueError, "strictly between 0 and 1"),
    ([0.1, np.nan], ValueError, "NaN"),
    ([[0.1, 0.2]], ValueError, "1-D"),
    ([], ValueError, "empty"),
    ("linear", TypeError, "betas must be a numeric array"),
])
def test_schedule_refuses_bad_betas(betas, error, message):
    with pytest.raises(error, match=message):
        DDPMSchedule(betas)


def test_schedule_functions_refuse_bad_arguments():
    with pytest.raises(ValueError, match="T must be an integer >= 1"):
        linear_beta_schedule(0)
    with pytest.raises(ValueError, match="T must be an integer >= 1"):
        cosine_beta_schedule(-3)
    with pytest.raises(ValueError, match=r"default beta_T = 0.02 \* 1000 / T = 1 is not below 1"):
        linear_beta_schedule(20)
    with pytest.raises(ValueError, match="beta_T must be a noise variance strictly between 0 and 1"):
        linear_beta_schedule(10, beta_1=0.01, beta_T=1.0)
    with pytest.raises(ValueError, match="s must be a finite number > 0"):
        cosine_beta_schedule(10, s=0.0)


# --- the forward process -------------------------------------------------------------------------------------------

def test_q_sample_has_the_mean_and_variance_of_q_xt_given_x0():
    sch, rng = schedule(50), np.random.default_rng(0)
    M = 20000
    x0 = np.tile([[1.5, -2.0]], (M, 1))  # (M, 2): one data point, M draws of its x_t
    for t in (1, 10, 25, 50):
        x_t = q_sample(x0, t, rng.standard_normal(x0.shape), sch)
        mean, var = np.sqrt(sch.alpha_bars[t - 1]) * x0[0], 1 - sch.alpha_bars[t - 1]
        np.testing.assert_allclose(x_t.mean(axis=0), mean, atol=5 * np.sqrt(var / M))
        np.testing.assert_allclose(x_t.var(axis=0), var, rtol=5 * np.sqrt(2 / M))


def _single_steps(x0, t, sch, draw):
    """x_1, …, x_t by the forward steps x_s = √(1 − β_s) x_{s−1} + √β_s ε_s, one after the other; ε_s = draw(shape)."""
    x = x0
    for s in range(1, t + 1):
        x = np.sqrt(1 - sch.betas[s - 1]) * x + np.sqrt(sch.betas[s - 1]) * draw(x.shape)
    return x


@pytest.mark.parametrize("kind", ["linear", "cosine"])
def test_composed_single_steps_have_the_closed_form_marginal(kind):
    sch, rng = schedule(50, kind), np.random.default_rng(1)
    M = 20000
    x0 = np.tile([[1.0, -0.5]], (M, 1))
    for t in (1, 7, 30, 50):
        stepped = _single_steps(x0, t, sch, rng.standard_normal)
        closed = q_sample(x0, np.full(M, t), rng.standard_normal(x0.shape), sch)
        var = 1 - sch.alpha_bars[t - 1]
        np.testing.assert_allclose(stepped.mean(axis=0), closed.mean(axis=0), atol=7 * np.sqrt(var / M))
        np.testing.assert_allclose(stepped.var(axis=0), closed.var(axis=0), rtol=7 * np.sqrt(2 / M))
        # exactly: without noise the steps scale x_0 by Π √α_s = √ᾱ_t, and the variances β_s of their noises,
        # each scaled by the later steps, add up to 1 − ᾱ_t
        np.testing.assert_allclose(_single_steps(x0[:1], t, sch, np.zeros), q_sample(x0[:1], t, np.zeros((1, 2)), sch),
                                   rtol=1e-12)
        added = sum(sch.betas[s] * np.prod(sch.alphas[s + 1:t]) for s in range(t))
        assert added == pytest.approx(var, rel=1e-12)


def test_q_sample_takes_one_step_per_point():
    sch, rng = schedule(20, "cosine"), np.random.default_rng(3)
    x0, noise, t = rng.normal(size=(4, 3)), rng.normal(size=(4, 3)), np.array([1, 5, 20, 5])
    rows = [q_sample(x0[i:i + 1], int(t[i]), noise[i:i + 1], sch) for i in range(4)]
    np.testing.assert_allclose(q_sample(x0, t, noise, sch), np.vstack(rows), rtol=1e-15)
    np.testing.assert_allclose(q_sample(x0, t.astype(float), noise, sch), np.vstack(rows), rtol=1e-15)


@pytest.mark.parametrize(("t", "message"), [
    (0, r"t must hold time steps 1, …, T = 10; received values from 0"),
    (11, "received values from 11 to 11"),
    (np.array([1, 2.5, 3]), "t must hold whole time steps; received 2.5"),
    (np.array([1, 2]), r"one per point, shape \(3,\); received shape \(2,\)"),
])
def test_q_sample_refuses_steps_outside_1_to_T(t, message):
    with pytest.raises(ValueError, match=message):
        q_sample(np.zeros((3, 2)), t, np.zeros((3, 2)), schedule(10, "cosine"))


def test_q_sample_refuses_mismatched_noise_and_a_missing_schedule():
    with pytest.raises(ValueError, match=r"noise has 1 entry along axis 1, but x0's axis 1 gives D = 2"):
        q_sample(np.zeros((3, 2)), 1, np.zeros((3, 1)), schedule(10, "cosine"))
    with pytest.raises(TypeError, match="schedule must be a DDPMSchedule"):
        q_sample(np.zeros((3, 2)), 1, np.zeros((3, 2)), linear_beta_schedule(30))


# --- the time embedding and the denoiser ---------------------------------------------------------------------------

@pytest.mark.parametrize(("dim", "max_period"), [(2, 10000.0), (8, 10000.0), (6, 50.0)])
def test_time_embedding_matches_its_formula(dim, max_period):
    t = np.array([0, 1, 7, 50, 7])
    e = sinusoidal_time_embedding(t, dim, max_period=max_period)
    assert e.shape == (5, dim)
    for n, step in enumerate(t):
        for i in range(dim // 2):
            omega = max_period ** (-2 * i / dim)
            assert e[n, i] == pytest.approx(np.sin(omega * step), abs=1e-12)
            assert e[n, dim // 2 + i] == pytest.approx(np.cos(omega * step), abs=1e-12)
    np.testing.assert_allclose(sinusoidal_time_embedding(7, dim, max_period=max_period), e[[2]])
    with pytest.raises(ValueError, match="dim must be even"):
        sinusoidal_time_embedding(t, 5)


def test_denoiser_is_an_mlp_of_the_point_and_the_time_embedding():
    rng = np.random.default_rng(4)
    model = Denoiser(3, hidden=(5, 4), time_dim=6, max_period=100.0, activation="tanh", rng=rng)
    x, t = rng.normal(size=(7, 3)), rng.integers(1, 30, size=7)
    out = model(x, t)
    assert isinstance(out, Tensor) and out.shape == (7, 3)
    W = [(layer.W.data, layer.b.data) for layer in model.net.layers]
    h = np.hstack([x, sinusoidal_time_embedding(t, 6, max_period=100.0)])  # (7, 3 + 6)
    h = np.tanh(h @ W[0][0] + W[0][1])
    h = np.tanh(h @ W[1][0] + W[1][1])
    np.testing.assert_allclose(out.data, h @ W[2][0] + W[2][1], rtol=1e-12)
    assert [p.shape for p in model.parameters()] == [(9, 5), (5,), (5, 4), (4,), (4, 3), (3,)]
    np.testing.assert_allclose(model(x, 4).data, model(x, np.full(7, 4)).data)  # one step for all points


def test_denoiser_reads_a_tensor_as_its_values_the_noisy_points_are_inputs():
    """x_t is data, not a parameter: a Tensor gives the same prediction as its array, and no gradient flows to it."""
    rng = np.random.default_rng(5)
    model = Denoiser(2, hidden=(4,), time_dim=4, rng=rng)
    x, t = rng.normal(size=(3, 2)), np.array([1, 2, 3])
    tensor = Tensor(x, requires_grad=True)
    out = model(tensor, t)
    np.testing.assert_array_equal(out.data, model(x, t).data)
    out.sum().backward()
    assert tensor.grad is None and all(p.grad is not None for p in model.parameters())


def test_denoiser_refuses_points_of_the_wrong_dimension_and_bad_steps():
    model = Denoiser(2, hidden=(4,), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x has 3 entries along axis 1, but Denoiser.data_dim is 2"):
        model(np.zeros((3, 3)), 1)
    with pytest.raises(ValueError, match="t must hold time steps ≥ 0; received values from -1 to -1"):
        model(np.zeros((3, 2)), -1)
    with pytest.raises(ValueError, match="time_dim must be even"):
        Denoiser(2, time_dim=5, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"hidden\[1\] must be an integer >= 1"):
        Denoiser(2, hidden=(4, 0), rng=np.random.default_rng(0))


# --- the loss ------------------------------------------------------------------------------------------------------

def test_diffusion_loss_is_the_noise_prediction_error_of_its_draws():
    sch, x0 = schedule(30), np.random.default_rng(5).normal(size=(6, 2))
    model = Denoiser(2, hidden=(8,), rng=np.random.default_rng(6))
    loss = diffusion_loss(model, x0, schedule=sch, rng=np.random.default_rng(7))
    rng = np.random.default_rng(7)  # the documented order of the draws: the steps, then the noise
    t = rng.integers(1, 31, size=6)
    eps = rng.standard_normal((6, 2))
    x_t = np.sqrt(sch.alpha_bars[t - 1])[:, None] * x0 + np.sqrt(1 - sch.alpha_bars[t - 1])[:, None] * eps
    assert loss.shape == () and loss.item() == pytest.approx(np.mean((model(x_t, t).data - eps) ** 2), rel=1e-12)


def test_diffusion_loss_is_zero_for_the_oracle_of_a_point_mass():
    """For data at one point μ, x_t = √ᾱ_t μ + √(1 − ᾱ_t) ε gives ε back exactly: the loss of the oracle is 0."""
    sch, mu = schedule(40, "cosine"), np.array([0.7, -1.2])
    loss = diffusion_loss(_point_mass_oracle(mu, sch), np.tile(mu, (50, 1)), schedule=sch,
                          rng=np.random.default_rng(8))
    assert loss.item() < 1e-20


def test_diffusion_loss_gradient_matches_finite_differences():
    sch, x0 = schedule(25, "cosine"), np.random.default_rng(9).normal(size=(5, 2))
    model = Denoiser(2, hidden=(4, 3), time_dim=4, activation="gelu", rng=np.random.default_rng(10))
    params = model.parameters()
    model.zero_grad()
    diffusion_loss(model, x0, schedule=sch, rng=np.random.default_rng(11)).backward()
    for p in params:
        original = p.data.copy()

        def loss_at(value, p=p):
            p.data = value
            return diffusion_loss(model, x0, schedule=sch, rng=np.random.default_rng(11)).item()  # the same draws

        numeric = numerical_gradient(loss_at, original)
        p.data = original
        np.testing.assert_allclose(p.grad, numeric, rtol=1e-6, atol=1e-9)


def test_diffusion_loss_refuses_a_model_that_returns_the_wrong_thing():
    sch, x0 = schedule(30), np.zeros((4, 2))
    with pytest.raises(ValueError, match=r"model must return a Tensor of the shape of x0, \(4, 2\)"):
        diffusion_loss(lambda x, t: Tensor(x[:, :1]), x0, schedule=sch, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="model must return a Tensor"):
        diffusion_loss(lambda x, t: x, x0, schedule=sch, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="model must be a noise predictor"):
        diffusion_loss("model", x0, schedule=sch, rng=np.random.default_rng(0))


# --- the sampler ---------------------------------------------------------------------------------------------------

class _Oracle:
    """ε*(x_t, t) = E[ε | x_t] for data N(μ, s² I), linear in x_t.

    x_t = √ᾱ_t x_0 + √(1 − ᾱ_t) ε ~ N(√ᾱ_t μ, (ᾱ_t s² + 1 − ᾱ_t) I) and Cov(ε, x_t) = √(1 − ᾱ_t) I, so for jointly
    Gaussian (ε, x_t), E[ε | x_t] = √(1 − ᾱ_t) (x_t − √ᾱ_t μ) / (ᾱ_t s² + 1 − ᾱ_t). s = 0 is a point mass μ.
    """

    def __init__(self, mu, s, sch):
        self.mu, self.s, self.sch, self.data_dim = np.asarray(mu), s, sch, len(mu)

    def __call__(self, x, t):
        alpha_bar = self.sch.alpha_bars[np.asarray(t) - 1][:, None]  # (N, 1)
        return Tensor(np.sqrt(1 - alpha_bar) * (x - np.sqrt(alpha_bar) * self.mu)
                      / (alpha_bar * self.s**2 + 1 - alpha_bar))


def _point_mass_oracle(mu, sch):
    return _Oracle(mu, 0.0, sch)


def _sampler_moments(mu, s, sch, variance):
    """Mean and variance of the sampler's output with the oracle, by propagating them through the T linear steps.

    Each step is x_{t−1} = a_t x_t + b_t + σ_t z with a_t = (1 − β_t c_t / √(1 − ᾱ_t)) / √α_t and
    b_t = β_t c_t √ᾱ_t μ / (√(1 − ᾱ_t) √α_t), c_t = √(1 − ᾱ_t) / (ᾱ_t s² + 1 − ᾱ_t); from x_T ~ N(0, I).
    """
    mean, var = np.zeros_like(mu), 1.0
    for t in range(sch.T, 0, -1):
        beta, alpha, alpha_bar = sch.betas[t - 1], sch.alphas[t - 1], sch.alpha_bars[t - 1]
        c = np.sqrt(1 - alpha_bar) / (alpha_bar * s**2 + 1 - alpha_bar)
        a = (1 - beta * c / np.sqrt(1 - alpha_bar)) / np.sqrt(alpha)
        b = beta * c * np.sqrt(alpha_bar) * mu / (np.sqrt(1 - alpha_bar) * np.sqrt(alpha))
        sigma2 = (beta if variance == "beta" else sch.posterior_variances[t - 1]) if t > 1 else 0.0
        mean, var = a * mean + b, a**2 * var + sigma2
    return mean, var


@pytest.mark.parametrize("variance", ["beta", "posterior"])
@pytest.mark.parametrize("kind", ["linear", "cosine"])
def test_sampler_with_the_oracle_of_a_point_mass_returns_the_point(kind, variance):
    """At t = 1, μ_θ(x_1, 1) = (x_1 − β_1/√(1 − ᾱ_1) ε*) / √α_1 = μ exactly (ᾱ_1 = α_1): every sample is μ."""
    sch, mu = schedule(50, kind), np.array([3.0, -1.0])
    samples = ddpm_sample(_point_mass_oracle(mu, sch), 100, schedule=sch, rng=np.random.default_rng(12),
                          variance=variance)
    np.testing.assert_allclose(samples, np.tile(mu, (100, 1)), atol=1e-9)


def test_sampler_with_the_oracle_of_unit_gaussian_data_reproduces_them():
    """For data N(μ, I) and σ_t² = β_t every step keeps the variance 1 and moves the mean as q does: the samples are
    N((1 − ᾱ_T) μ, α_1 I), the data's distribution up to ᾱ_T (x_T starts at N(0, I)) and β_1 (no noise at t = 1)."""
    sch, mu, n = schedule(50), np.array([1.0, -2.0]), 20000
    samples = ddpm_sample(_Oracle(mu, 1.0, sch), n, schedule=sch, rng=np.random.default_rng(13))
    np.testing.assert_allclose(samples.mean(axis=0), mu, atol=5 / np.sqrt(n))
    np.testing.assert_allclose(samples.var(axis=0), 1.0, atol=5 * np.sqrt(2 / n) + sch.betas[0])


@pytest.mark.parametrize(("s", "kind", "T", "variance"), [
    (0.3, "linear", 50, "beta"), (0.3, "cosine", 50, "posterior"), (2.0, "cosine", 100, "beta"),
    (0.05, "cosine", 50, "beta")])
def test_sampler_with_the_oracle_of_gaussian_data_has_the_moments_of_its_recursion(s, kind, T, variance):
    sch, mu, n = schedule(T, kind), np.array([0.5, 1.5]), 20000
    samples = ddpm_sample(_Oracle(mu, s, sch), n, schedule=sch, rng=np.random.default_rng(14), variance=variance)
    mean, var = _sampler_moments(mu, s, sch, variance)
    np.testing.assert_allclose(samples.mean(axis=0), mean, atol=5 * np.sqrt(var / n))
    np.testing.assert_allclose(samples.var(axis=0), var, rtol=5 * np.sqrt(2 / n))
    np.testing.assert_allclose(mean, mu, atol=1e-3)  # the mean is right whatever σ_t
    assert abs(np.sqrt(var) / s - 1) < 0.1  # and the spread of the data, to within 10% with 50 steps or more


def test_sampler_is_deterministic_for_a_seed_and_keeps_the_trajectory_asked_for():
    sch = schedule(30, "cosine")
    model = Denoiser(2, hidden=(8, 8), rng=np.random.default_rng(15))
    a = ddpm_sample(model, 40, schedule=sch, rng=np.random.default_rng(16))
    b, trajectory = ddpm_sample(model, 40, schedule=sch, rng=np.random.default_rng(16), return_trajectory=True)
    assert a.shape == (40, 2)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, ddpm_sample(model, 40, schedule=sch, rng=np.random.default_rng(17)))
    assert list(trajectory) == list(range(30, -1, -1))
    np.testing.assert_array_equal(trajectory[0], a)
    np.testing.assert_array_equal(trajectory[30], np.random.default_rng(16).standard_normal((40, 2)))  # x_T first
    _, kept = ddpm_sample(model, 40, schedule=sch, rng=np.random.default_rng(16), return_trajectory=True,
                          steps_to_keep=[0, 15, 30])
    assert list(kept) == [30, 15, 0]
    np.testing.assert_array_equal(kept[15], trajectory[15])


def test_sampler_refuses_bad_arguments():
    sch = schedule(30)
    model = Denoiser(2, hidden=(4,), rng=np.random.default_rng(0))
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="steps_to_keep was given but return_trajectory is False"):
        ddpm_sample(model, 5, schedule=sch, rng=rng, steps_to_keep=[0])
    with pytest.raises(ValueError, match=r"steps_to_keep must hold time steps 0, …, T = 30.*received 31"):
        ddpm_sample(model, 5, schedule=sch, rng=rng, return_trajectory=True, steps_to_keep=[0, 31])
    with pytest.raises(ValueError, match="variance must be one of 'beta'"):
        ddpm_sample(model, 5, schedule=sch, rng=rng, variance="fixed")
    with pytest.raises(TypeError, match="model has no attribute data_dim"):
        ddpm_sample(lambda x, t: x, 5, schedule=sch, rng=rng)
    with pytest.raises(ValueError, match=r"model returned shape \(5, 1\) at step t = 30; expected \(5, 2\)"):
        ddpm_sample(lambda x, t: x[:, :1], 5, schedule=sch, rng=rng, data_dim=2)
    with pytest.raises(FloatingPointError, match="model returned NaN or inf at step t = 30"):
        ddpm_sample(lambda x, t: x * np.nan, 5, schedule=sch, rng=rng, data_dim=2)


def test_the_shipped_denoiser_is_the_chapters_run_and_scores_as_stored():
    """The first steps of the chapter's training reproduce the stored losses, and the stored denoiser's samples score
    as the comparison file says for the chapter's seed."""
    from ring_check import assert_scores_as_stored

    from implementations.data.synthetic import make_gaussian_ring
    from implementations.generative import diffusion, mmd
    from implementations.nn.optim import Adam, cosine_annealing

    denoiser, losses = diffusion.load_ring_denoiser()
    _, _, config = mmd.load_ring_comparison()
    c, seed = config["ddpm"], config["chapter_seed"]
    assert losses.shape == (c["steps"],) and np.all(np.isfinite(losses))
    X, _ = make_gaussian_ring(config["data"]["n"], rng=np.random.default_rng(config["data"]["seed"]))
    schedule = diffusion.DDPMSchedule(diffusion.cosine_beta_schedule(c["T"]))
    live = diffusion.Denoiser(data_dim=2, hidden=(48, 48, 48), time_dim=16, rng=np.random.default_rng(seed))
    optimizer, rng = Adam(live.parameters(), lr=c["lr"][0]), np.random.default_rng(seed + 1)
    for step in range(5):
        optimizer.lr = c["lr"][1] + cosine_annealing(step, lr=c["lr"][0] - c["lr"][1], total_steps=c["steps"])
        loss = diffusion.diffusion_loss(live, X[rng.integers(0, len(X), size=c["batch"])], schedule=schedule, rng=rng)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        np.testing.assert_allclose(loss.item(), losses[step], rtol=1e-9)
    samples = diffusion.ddpm_sample(denoiser, config["samples"], schedule=schedule, variance="posterior",
                                    rng=np.random.default_rng(seed + 2))
    assert_scores_as_stored(samples, "DDPM, σ_t² = β̃_t")
