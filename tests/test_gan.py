"""Tests of implementations.generative.gan: the losses against hand computation and finite differences, the saturation
of the
minimax loss, the optimal discriminator against a grid search and against a trained one, gan_step against
finite-difference gradient steps, the minibatch standard deviation feature against NumPy's std, and gan_step's guard
against a game that diverges."""

import numpy as np
import pytest

from implementations.engine.autograd import Tensor
from implementations.generative.gan import (
    GAN,
    discriminator_loss,
    fit_discriminator,
    gan_step,
    generator_loss,
    optimal_discriminator,
)
from implementations.nn.optim import SGD, Adam
from implementations.preliminaries.gradcheck import numerical_gradient


def _sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def _gaussian_pdf(x, mean, std):
    return np.exp(-0.5 * ((x - mean) / std) ** 2) / (std * np.sqrt(2 * np.pi))


REAL = np.array([0.3, 2.0, -1.5, 0.0])
FAKE = np.array([-1.0, 0.5, -3.0])


# --- losses ---------------------------------------------------------------------------------------------------------

def test_discriminator_loss_matches_its_definition():
    expected = -np.mean(np.log(_sigmoid(REAL))) - np.mean(np.log(1 - _sigmoid(FAKE)))  # −E log D(x) − E log(1 − D)
    np.testing.assert_allclose(discriminator_loss(REAL, FAKE).item(), expected, rtol=1e-13)
    np.testing.assert_allclose(discriminator_loss(np.zeros(3), np.zeros(5)).item(), np.log(4), rtol=1e-14)


def test_generator_losses_match_their_definitions():
    np.testing.assert_allclose(generator_loss(FAKE).item(), -np.mean(np.log(_sigmoid(FAKE))), rtol=1e-13)
    np.testing.assert_allclose(generator_loss(FAKE, kind="minimax").item(), np.mean(np.log(1 - _sigmoid(FAKE))),
                               rtol=1e-13)


def test_losses_stay_finite_for_a_confident_discriminator():
    # softplus(800) = 800 + log(1 + e^−800) = 800 in floating point; σ(±800) would be 0 or 1 and its log −inf
    assert discriminator_loss([-800.0], [800.0]).item() == 1600.0
    assert generator_loss([-800.0]).item() == 800.0
    assert generator_loss([-800.0], kind="minimax").item() == 0.0
    assert generator_loss([800.0], kind="minimax").item() == -800.0
    fake = Tensor([-800.0, 800.0], requires_grad=True)
    generator_loss(fake).backward()
    np.testing.assert_allclose(fake.grad, [-0.5, 0.0], atol=1e-300)  # −(1 − σ(a)) / M


def _numpy_losses(real, fake):
    """The three losses written with log1p, a reference independent of the engine."""
    sp = lambda a: np.log1p(np.exp(a))  # noqa: E731 - softplus, for moderate a
    return {"discriminator": np.mean(sp(-real)) + np.mean(sp(fake)),
            "non_saturating": np.mean(sp(-fake)), "minimax": -np.mean(sp(fake))}


@pytest.mark.parametrize("which", ["discriminator", "non_saturating", "minimax"])
@pytest.mark.parametrize("seed", [0, 1])
def test_loss_gradients_match_finite_differences(which, seed):
    rng = np.random.default_rng(seed)
    real_values, fake_values = 3 * rng.normal(size=5), 3 * rng.normal(size=4)
    real, fake = Tensor(real_values, requires_grad=True), Tensor(fake_values, requires_grad=True)
    loss = discriminator_loss(real, fake) if which == "discriminator" else generator_loss(fake, kind=which)
    loss.backward()
    numeric_fake = numerical_gradient(lambda f: _numpy_losses(real_values, f)[which], fake_values)
    np.testing.assert_allclose(fake.grad, numeric_fake, rtol=1e-6, atol=1e-10)
    if which == "discriminator":
        numeric_real = numerical_gradient(lambda r: _numpy_losses(r, fake_values)[which], real_values)
        np.testing.assert_allclose(real.grad, numeric_real, rtol=1e-6, atol=1e-10)


@pytest.mark.parametrize("a", [-5.0, -10.0, -20.0, -40.0])
def test_minimax_gradient_vanishes_where_the_non_saturating_one_does_not(a):
    """As D rejects a fake ever more confidently (a → −∞), ∂/∂a of the minimax loss → 0, the other's → −1."""
    grads = {}
    for kind in ("minimax", "non_saturating"):
        fake = Tensor([a], requires_grad=True)
        generator_loss(fake, kind=kind).backward()
        grads[kind] = fake.grad[0]
    h = 1e-6 * abs(a)  # finite differences of the definitions, log(1 − σ) as log1p(−σ) so that e^−40 survives
    minimax = lambda t: np.log1p(-_sigmoid(t))  # noqa: E731
    non_saturating = lambda t: -np.log(_sigmoid(t))  # noqa: E731
    np.testing.assert_allclose(grads["minimax"], (minimax(a + h) - minimax(a - h)) / (2 * h), rtol=1e-5)
    np.testing.assert_allclose(grads["non_saturating"], (non_saturating(a + h) - non_saturating(a - h)) / (2 * h),
                               rtol=1e-5)
    np.testing.assert_allclose(grads["minimax"], -_sigmoid(a), rtol=1e-12)  # −σ(a) ≈ −eᵃ
    assert abs(grads["minimax"]) < 7e-3 and abs(grads["non_saturating"]) > 0.99
    assert abs(grads["non_saturating"] / grads["minimax"]) > np.exp(-a) - 1  # (1 − σ(a)) / σ(a) = e^−a


# --- the optimal discriminator --------------------------------------------------------------------------------------

def test_optimal_discriminator_maximizes_the_pointwise_value():
    """For densities a = p_data(x), b = p_g(x), D*(x) maximizes a log y + b log(1 − y) over y in (0, 1)."""
    rng = np.random.default_rng(0)
    a, b = rng.uniform(0.01, 3, size=6), rng.uniform(0.01, 3, size=6)
    y = np.linspace(1e-6, 1 - 1e-6, 200_001)  # spacing 5e-6
    best = y[np.argmax(a[:, None] * np.log(y) + b[:, None] * np.log(1 - y), axis=1)]  # (6,): grid search
    np.testing.assert_allclose(optimal_discriminator(a, b), best, atol=1e-5)
    np.testing.assert_allclose(optimal_discriminator(a, a), 0.5)
    np.testing.assert_allclose(optimal_discriminator([0.0, 2.0], [1.0, 0.0]), [0.0, 1.0])


def test_fit_discriminator_approaches_the_optimum_on_two_gaussians():
    rng = np.random.default_rng(0)
    x_real, x_fake = rng.normal(0.0, 1.0, size=1000), rng.normal(1.5, 0.7, size=1000)  # p_data, p_g
    D = fit_discriminator(x_real, x_fake, hidden=(16,), steps=300, lr=3e-2, rng=rng)
    grid = np.linspace(-1.0, 2.5, 50)  # where both densities exceed 1e-3
    expected = optimal_discriminator(_gaussian_pdf(grid, 0.0, 1.0), _gaussian_pdf(grid, 1.5, 0.7))
    learned = D(grid)
    assert learned.shape == (50,)
    np.testing.assert_allclose(learned, expected, atol=0.05)
    assert expected.max() - expected.min() > 0.8  # the comparison spans nearly all of (0, 1)
    np.testing.assert_allclose(D(grid[:, None]), learned)  # (K,) and (K, 1) are the same samples


# --- the GAN --------------------------------------------------------------------------------------------------------

def _ring(n, rng):
    angles = 2 * np.pi * rng.integers(0, 8, size=n) / 8
    return 2 * np.stack([np.cos(angles), np.sin(angles)], axis=1) + 0.05 * rng.normal(size=(n, 2))  # (n, 2)


def _tiny_gan(minibatch_std, seed=0):
    return GAN(2, 2, generator_hidden=(3,), discriminator_hidden=(4,), rng=np.random.default_rng(seed),
               activation="tanh", minibatch_std=minibatch_std)


def test_gan_has_the_sizes_it_was_given():
    gan = GAN(3, 5, generator_hidden=(7, 6), discriminator_hidden=(4,), rng=np.random.default_rng(0),
              minibatch_std=True)
    assert [(lay.in_features, lay.out_features) for lay in gan.generator.layers] == [(3, 7), (7, 6), (6, 5)]
    assert [(lay.in_features, lay.out_features) for lay in gan.discriminator.layers] == [(6, 4), (4, 1)]  # 5 + s
    z = np.random.default_rng(1).normal(size=(4, 3))
    assert gan.generate(z).shape == (4, 5) and gan(z).shape == (4, 5)
    assert gan.discriminate(gan.generate(z)).shape == (4,)


def test_minibatch_std_feature_is_the_mean_standard_deviation_of_the_batch():
    gan = _tiny_gan(True)
    x = np.random.default_rng(2).normal(size=(6, 2))
    s = np.std(x, axis=0).mean()  # population standard deviation (ddof = 0), averaged over the features
    expected = gan.discriminator(np.concatenate([x, np.full((6, 1), s)], axis=1)).data[:, 0]
    np.testing.assert_allclose(gan.discriminate(x).data, expected, rtol=1e-7)
    x2 = x.copy()
    x2[0] += 1.0  # one sample moves: with the feature every logit changes, without it only the first
    changed = gan.discriminate(x2).data != gan.discriminate(x).data
    assert changed.all()
    plain = _tiny_gan(False)
    assert (plain.discriminate(x2).data != plain.discriminate(x).data).tolist() == [True] + [False] * 5


def test_sample_is_the_generator_at_standard_normal_noise():
    gan = _tiny_gan(False)
    samples = gan.sample(7, rng=np.random.default_rng(3))
    z = np.random.default_rng(3).standard_normal((7, 2))
    assert samples.shape == (7, 2)
    np.testing.assert_allclose(samples, gan.generator(z).data, rtol=1e-15)


def _parameter_vector(module):
    return np.concatenate([p.data.ravel() for p in module.parameters()])


def _loss_of_parameters(module, theta, loss):
    """loss() with the parameters of ``module`` set to the flat vector theta (restored afterwards)."""
    params = module.parameters()
    saved = [p.data for p in params]
    offset = 0
    for p in params:
        p.data = theta[offset: offset + p.size].reshape(p.shape)
        offset += p.size
    try:
        return loss().item()
    finally:
        for p, value in zip(params, saved, strict=True):
            p.data = value


@pytest.mark.parametrize("minibatch_std", [False, True])
@pytest.mark.parametrize("kind", ["non_saturating", "minimax"])
def test_gan_step_is_a_gradient_step_on_each_loss_in_turn(minibatch_std, kind):
    """With SGD, D moves by −η ∇_D of its loss (fakes from the first noise batch), then G by −η ∇_G of its loss
    under the updated D (fresh noise): both gradients by finite differences over the parameters."""
    eta, N = 0.1, 5
    gan = _tiny_gan(minibatch_std)
    x_real = _ring(N, np.random.default_rng(4))
    noise = np.random.default_rng(5)
    z_d, z_g = noise.standard_normal((N, 2)), noise.standard_normal((N, 2))  # the draws gan_step will make
    d_before, g_before = _parameter_vector(gan.discriminator), _parameter_vector(gan.generator)

    def d_loss():
        return discriminator_loss(gan.discriminate(x_real), gan.discriminate(gan.generator(z_d).data))

    grad_d = numerical_gradient(lambda th: _loss_of_parameters(gan.discriminator, th, d_loss), d_before)
    d_loss_before = d_loss().item()
    reference = _tiny_gan(minibatch_std)  # the same initial weights, to step by hand
    offset = 0
    for p in reference.discriminator.parameters():
        p.data = (d_before - eta * grad_d)[offset: offset + p.size].reshape(p.shape)
        offset += p.size

    def g_loss():
        return generator_loss(reference.discriminate(reference.generator(z_g)), kind=kind)

    grad_g = numerical_gradient(lambda th: _loss_of_parameters(reference.generator, th, g_loss), g_before)
    g_loss_before = g_loss().item()

    losses = gan_step(gan, x_real, d_optimizer=SGD(gan.discriminator.parameters(), lr=eta),
                      g_optimizer=SGD(gan.generator.parameters(), lr=eta), rng=np.random.default_rng(5), kind=kind)
    np.testing.assert_allclose(losses[0], d_loss_before, rtol=1e-13)
    np.testing.assert_allclose(losses[1], g_loss_before, rtol=1e-8)  # the reference D took a finite-difference step
    np.testing.assert_allclose(_parameter_vector(gan.discriminator), d_before - eta * grad_d, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(_parameter_vector(gan.generator), g_before - eta * grad_g, rtol=1e-7, atol=1e-9)


def _train(seed, steps=20, d_steps=2):
    rng = np.random.default_rng(seed)
    gan = GAN(2, 2, generator_hidden=(8,), discriminator_hidden=(8,), rng=rng, minibatch_std=True)
    d_opt = Adam(gan.discriminator.parameters(), lr=5e-3, betas=(0.5, 0.9))
    g_opt = Adam(gan.generator.parameters(), lr=5e-3, betas=(0.5, 0.9))
    losses = [gan_step(gan, _ring(16, rng), d_optimizer=d_opt, g_optimizer=g_opt, rng=rng, d_steps=d_steps)
              for _ in range(steps)]
    return np.array(losses), gan.state_dict()


def test_training_is_deterministic_given_the_seed():
    losses, state = _train(0)
    losses_again, state_again = _train(0)
    np.testing.assert_array_equal(losses, losses_again)
    for name in state:
        np.testing.assert_array_equal(state[name], state_again[name])
    other, _ = _train(1)
    assert not np.allclose(losses, other)


# --- bad input ------------------------------------------------------------------------------------------------------

def test_bad_input_is_refused_with_a_clear_message():
    gan = _tiny_gan(True)
    with pytest.raises(ValueError, match=r"z has 5 entries along axis 1, but GAN.latent_dim is 2"):
        gan.generate(np.zeros((3, 5)))  # latent size 5 instead of 2
    with pytest.raises(ValueError, match="at least 2 samples"):
        gan.discriminate(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="kind must be one of"):
        generator_loss([0.0, 1.0], kind="wasserstein")
    with pytest.raises(ValueError, match="steps must be an integer >= 1"):
        fit_discriminator([0.0, 1.0], [2.0, 3.0], steps=0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="x_fake has 2 feature"):
        fit_discriminator([0.0, 1.0], np.zeros((3, 2)), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"real_logits must have shape \(N,\) \(1-D\); received shape \(3, 1\)"):
        discriminator_loss(np.zeros((3, 1)), np.zeros(3))
    with pytest.raises(ValueError, match="p_model must hold densities >= 0"):
        optimal_discriminator([0.5], [-0.1])
    with pytest.raises(ValueError, match="both 0"):
        optimal_discriminator([0.0], [0.0])
    d_opt, g_opt = Adam(gan.discriminator.parameters()), Adam(gan.generator.parameters())
    with pytest.raises(ValueError, match="d_optimizer must update exactly the discriminator"):
        gan_step(gan, np.zeros((4, 2)), d_optimizer=g_opt, g_optimizer=d_opt, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="d_steps must be an integer >= 1"):
        gan_step(gan, np.zeros((4, 2)), d_optimizer=d_opt, g_optimizer=g_opt, rng=np.random.default_rng(0),
                 d_steps=0)


# --- divergence -----------------------------------------------------------------------------------------------------

def test_a_game_whose_losses_grow_without_bound_stops_with_the_learning_rate_to_lower():
    """The issue's probe: at lr = 1, Adam throws the weights far within a few rounds and the discriminator's loss grows
    past 10⁴ times its value at chance (it went on unnoticed to 3·10⁴ before); the round stops and says what to do."""
    rng = np.random.default_rng(1)
    gan = GAN(2, 2, generator_hidden=(32, 32), discriminator_hidden=(32, 32), activation="relu", rng=rng)
    d_opt = Adam(gan.discriminator.parameters(), lr=1.0, betas=(0.5, 0.9))
    g_opt = Adam(gan.generator.parameters(), lr=1.0, betas=(0.5, 0.9))
    data = _ring(2000, np.random.default_rng(0))
    with pytest.raises(FloatingPointError, match=r"training diverged at step \d+: the loss reached .* from 1\.386\. "
                                                 r"The learning rate d_optimizer\.lr=1 is too large; try "
                                                 r"d_optimizer\.lr=0\.1\."):
        for _ in range(300):
            gan_step(gan, data[rng.integers(0, 2000, size=64)], d_optimizer=d_opt, g_optimizer=g_opt, rng=rng)
    assert gan.rounds < 20  # stopped within a few rounds, not after 300 rounds of nonsense


def _linear_gan(data_logit, fake_at):
    """A 1-D GAN with linear D(x) = 10⁵ x and a generator that puts every sample at ``fake_at``."""
    gan = GAN(1, 1, generator_hidden=(), discriminator_hidden=(), rng=np.random.default_rng(0))
    gan.discriminator.layers[0].W.data = np.array([[data_logit]])
    gan.generator.layers[0].W.data, gan.generator.layers[0].b.data = np.zeros((1, 1)), np.array([fake_at])
    return gan


@pytest.mark.parametrize(("data_logit", "fake_at", "which"), [(-1e5, 1.0, "d"), (1e5, -1.0, "g")])
def test_each_loss_far_beyond_its_value_at_chance_names_its_own_learning_rate(data_logit, fake_at, which):
    """D loss 10⁵ (D confidently wrong): D's rate; D loss 0 but G loss 10⁵ (D confidently right): G's rate."""
    gan = _linear_gan(data_logit, fake_at)
    x_real = np.ones((4, 1))
    d_opt, g_opt = SGD(gan.discriminator.parameters(), lr=1e-3), SGD(gan.generator.parameters(), lr=2e-3)
    rate = {"d": "0.001", "g": "0.002"}[which]
    smaller = {"d": "0.0001", "g": "0.0002"}[which]
    with pytest.raises(FloatingPointError, match=rf"at step 0: the loss reached 1e\+05 from .*{which}_optimizer\.lr="
                                                 rf"{rate} is too large; try {which}_optimizer\.lr={smaller}\."):
        gan_step(gan, x_real, d_optimizer=d_opt, g_optimizer=g_opt, rng=np.random.default_rng(0))


def test_rounds_are_counted_and_a_sound_game_is_not_stopped():
    losses, _ = _train(0, steps=20)
    assert np.isfinite(losses).all() and losses.max() < 10  # far below the 10⁴ × chance of the guard
    gan = _tiny_gan(False)
    opts = {"d_optimizer": Adam(gan.discriminator.parameters()), "g_optimizer": Adam(gan.generator.parameters())}
    for _ in range(3):
        gan_step(gan, _ring(8, np.random.default_rng(0)), rng=np.random.default_rng(1), **opts)
    assert gan.rounds == 3
