"""Tests of AdamW and the learning-rate schedules of implementations.nn.optim (SGD and Adam: tests/test_nn.py)."""

import math

import numpy as np
import pytest

from implementations.engine.autograd import Tensor
from implementations.nn.optim import SGD, Adam, AdamW, cosine_annealing, linear_warmup, step_decay, warmup_cosine

THETA0 = np.array([0.5, -1.0, 2.0])
WEIGHTS = np.array([1.0, 2.0, 3.0])


def quadratic_grads(theta):
    """Gradient of L(θ) = Σ (θ − 1)² · [1, 2, 3]."""
    return 2 * (theta - 1.0) * WEIGHTS


def run(optimizer_factory, steps=5, lrs=None):
    """θ after ``steps`` steps on L; ``lrs[t]`` is set as the learning rate of step t when given."""
    theta = Tensor(THETA0.copy(), requires_grad=True)
    opt = optimizer_factory([theta])
    for t in range(steps):
        if lrs is not None:
            opt.lr = lrs[t]
        opt.zero_grad()
        ((theta - 1.0) ** 2 * WEIGHTS).sum().backward()
        opt.step()
    return theta.data


def adamw_by_hand(steps, lr, weight_decay, b1=0.9, b2=0.999, eps=1e-8, lrs=None):
    """AdamW written out: moments of ∇L alone, then θ ← θ − η (m̂ / (√v̂ + ε) + λθ)."""
    theta, m, v = THETA0.copy(), np.zeros(3), np.zeros(3)
    for t in range(1, steps + 1):
        eta = lr if lrs is None else lrs[t - 1]
        g = quadratic_grads(theta)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        m_hat, v_hat = m / (1 - b1**t), v / (1 - b2**t)
        theta = theta - eta * (m_hat / (np.sqrt(v_hat) + eps) + weight_decay * theta)
    return theta


# --- AdamW -----------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("lr, weight_decay, betas", [(0.1, 0.05, (0.9, 0.999)), (0.01, 0.5, (0.8, 0.99)),
                                                     (0.3, 0.0, (0.9, 0.999))])
def test_adamw_follows_the_written_update_rule(lr, weight_decay, betas):
    expected = adamw_by_hand(7, lr, weight_decay, *betas)
    got = run(lambda p: AdamW(p, lr, betas=betas, weight_decay=weight_decay), steps=7)
    np.testing.assert_allclose(got, expected, rtol=1e-14)


def test_adamw_follows_the_rule_under_a_schedule():
    """The decay uses the learning rate of the step, η_t λ, not the initial one."""
    lrs = [cosine_annealing(t, lr=0.2, total_steps=6) for t in range(6)]
    expected = adamw_by_hand(6, None, 0.1, lrs=lrs)
    np.testing.assert_allclose(run(lambda p: AdamW(p, 0.2, weight_decay=0.1), steps=6, lrs=lrs), expected,
                               rtol=1e-14)


def test_adamw_differs_from_adam_with_l2_and_equals_adam_without_decay():
    """The classic wrong variant, L2 added to the gradient (Adam's weight_decay), is not AdamW."""
    l2_in_gradient = run(lambda p: Adam(p, 0.1, weight_decay=0.1), steps=10)
    decoupled = run(lambda p: AdamW(p, 0.1, weight_decay=0.1), steps=10)
    assert np.abs(decoupled - l2_in_gradient).max() > 1e-3
    np.testing.assert_allclose(decoupled, adamw_by_hand(10, 0.1, 0.1), rtol=1e-14)
    np.testing.assert_allclose(run(lambda p: AdamW(p, 0.1, weight_decay=0.0), steps=10),
                               run(lambda p: Adam(p, 0.1), steps=10), rtol=1e-14)


@pytest.mark.parametrize("lr, weight_decay", [(0.1, 0.1), (1e-3, 1e-2), (0.5, 1.5)])
def test_a_weight_without_gradient_decays_geometrically(lr, weight_decay):
    """g = 0 leaves m = v = 0, so the step is η λ θ: θ_t = (1 − ηλ)ᵗ θ₀ (a decay without η would fail)."""
    theta0 = np.array([[1.0, -2.0], [3.0, 0.5]])
    theta = Tensor(theta0.copy(), requires_grad=True)
    opt = AdamW([theta], lr, weight_decay=weight_decay)
    for t in range(1, 9):
        theta.grad = np.zeros((2, 2))
        opt.step()
        np.testing.assert_allclose(theta.data, (1 - lr * weight_decay) ** t * theta0, rtol=1e-12)


def test_adamw_decay_is_independent_of_the_gradient_scale():
    """Adam's steps m̂/(√v̂+ε) do not change when the loss is scaled; AdamW's decay does not either, L2 in g does."""
    def final(make, scale):
        rng = np.random.default_rng(0)
        theta = Tensor(THETA0.copy(), requires_grad=True)
        opt = make([theta])
        for _ in range(20):
            theta.grad = scale * rng.normal(size=3)
            opt.step()
        return theta.data

    np.testing.assert_allclose(final(lambda p: AdamW(p, 0.05, weight_decay=0.2), 1.0),
                               final(lambda p: AdamW(p, 0.05, weight_decay=0.2), 1000.0), rtol=1e-6)
    assert np.abs(final(lambda p: Adam(p, 0.05, weight_decay=0.2), 1.0)
                  - final(lambda p: Adam(p, 0.05, weight_decay=0.2), 1000.0)).max() > 1e-3


def test_adamw_updates_each_parameter_as_alone_and_skips_those_without_gradient():
    rng = np.random.default_rng(1)
    shapes = [(2, 3), (3,), (1,)]
    start = [rng.normal(size=s) for s in shapes]
    together = [Tensor(v, requires_grad=True) for v in start]
    alone = [Tensor(v, requires_grad=True) for v in start]
    opt_together, opt_alone = AdamW(together, 0.1), [AdamW([p], 0.1) for p in alone]
    for _ in range(4):
        for p, q, s in zip(together, alone, shapes, strict=True):
            p.grad = q.grad = rng.normal(size=s)
        opt_together.step()
        for opt in opt_alone:
            opt.step()
    for p, q in zip(together, alone, strict=True):
        np.testing.assert_array_equal(p.data, q.data)
    before = [p.data for p in together]
    together[0].grad, together[1].grad, together[2].grad = None, np.ones(3), None
    opt_together.step()
    np.testing.assert_array_equal(together[0].data, before[0])  # no gradient: no step, no decay (as PyTorch)
    np.testing.assert_array_equal(together[2].data, before[2])
    assert not np.array_equal(together[1].data, before[1])


def test_adamw_defaults_and_bad_arguments():
    theta = Tensor(np.zeros(2), requires_grad=True)
    opt = AdamW([theta])
    assert (opt.lr, opt.weight_decay, opt.beta1, opt.beta2, opt.eps) == (1e-3, 1e-2, 0.9, 0.999, 1e-8)
    with pytest.raises(ValueError, match="lr must be at most 1 for AdamW"):
        AdamW([theta], 2.0)
    with pytest.raises(ValueError, match="weight_decay must be a finite number >= 0"):
        AdamW([theta], weight_decay=-0.1)
    with pytest.raises(ValueError, match=r"lr \* weight_decay must be below 1 for AdamW; received lr=0.5 and "
                                          r"weight_decay=2"):
        AdamW([theta], 0.5, weight_decay=2.0)
    opt = AdamW([theta], 0.5, weight_decay=1.0)
    with pytest.raises(ValueError, match=r"lr \* weight_decay must be below 1"):
        opt.lr = 1.0  # a schedule raised the rate: the next step would zero the weights; refused when it is set
    with pytest.raises(ValueError, match=r"lr \* weight_decay must be below 1"):
        opt.weight_decay = 2.0  # and so is a decay raised later
    assert (opt.lr, opt.weight_decay, opt.t) == (0.5, 1.0, 0)  # refused before any state changed


def test_sgd_and_adam_are_unchanged_by_the_decoupled_decay():
    """SGD and Adam still add λθ to the gradient (written out as in tests/test_nn.py)."""
    theta, m, v = THETA0.copy(), np.zeros(3), np.zeros(3)
    for t in range(1, 6):
        g = quadratic_grads(theta) + 0.05 * theta
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g**2
        theta = theta - 0.1 * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    np.testing.assert_allclose(run(lambda p: Adam(p, 0.1, weight_decay=0.05)), theta, rtol=1e-14)
    theta = THETA0.copy()
    for _ in range(5):
        theta = theta - 0.05 * (quadratic_grads(theta) + 0.1 * theta)
    np.testing.assert_allclose(run(lambda p: SGD(p, 0.05, weight_decay=0.1)), theta, rtol=1e-14)


# --- learning-rate schedules ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("step, expected", [(0, 0.1), (2, 0.1), (3, 0.05), (5, 0.05), (6, 0.025), (10, 0.0125)])
def test_step_decay_closed_form(step, expected):
    assert step_decay(step, lr=0.1, step_size=3, gamma=0.5) == pytest.approx(expected, rel=1e-15)


def test_step_decay_is_piecewise_constant_and_non_increasing():
    lrs = np.array([step_decay(t, lr=1.0, step_size=4) for t in range(20)])
    assert np.all(np.diff(lrs) <= 0)
    assert len(np.unique(lrs)) == 5  # 20 steps, a drop every 4
    assert step_decay(7, lr=1.0, step_size=4, gamma=1.0) == 1.0


@pytest.mark.parametrize("T, min_lr", [(10, 0.0), (7, 0.01), (1, 0.0), (1000, 1e-4)])
def test_cosine_annealing_closed_form_and_strict_decrease(T, min_lr):
    lrs = np.array([cosine_annealing(t, lr=0.1, total_steps=T, min_lr=min_lr) for t in range(T)])
    assert lrs[0] == 0.1
    t = np.arange(T)
    np.testing.assert_allclose(lrs, min_lr + (0.1 - min_lr) * 0.5 * (1 + np.cos(np.pi * t / T)), rtol=1e-14)
    assert np.all(np.diff(lrs) < 0) and lrs.min() > 0  # > 0 even with min_lr = 0: an optimizer accepts every rate
    if T % 2 == 0:
        assert lrs[T // 2] == pytest.approx((0.1 + min_lr) / 2, rel=1e-14)  # halfway, halfway down


def test_cosine_annealing_ends_just_above_min_lr():
    """The last step T − 1 is one step before the curve reaches η_min: η_min + (η − η_min)(1 − cos(π/T))/2."""
    T, lr, min_lr = 50, 0.2, 0.02
    last = cosine_annealing(T - 1, lr=lr, total_steps=T, min_lr=min_lr)
    assert last == pytest.approx(min_lr + (lr - min_lr) * (1 - math.cos(math.pi / T)) / 2, rel=1e-12)
    assert cosine_annealing(0, lr=lr, total_steps=T, min_lr=lr) == lr  # min_lr = lr: a constant rate


@pytest.mark.parametrize("W", [1, 4, 10])
def test_linear_warmup_closed_form(W):
    lrs = np.array([linear_warmup(t, lr=0.3, warmup_steps=W) for t in range(3 * W)])
    np.testing.assert_allclose(lrs[:W], 0.3 * np.arange(1, W + 1) / W, rtol=1e-15)
    np.testing.assert_array_equal(lrs[W - 1:], 0.3)
    assert lrs[0] > 0  # starts at η/W: a warm-up from 0 (η t / W) would give the first step nothing to do
    assert np.all(np.diff(lrs) >= 0)
    assert linear_warmup(5, lr=0.3, warmup_steps=0) == 0.3


@pytest.mark.parametrize("W, T, min_lr", [(5, 50, 0.0), (1, 10, 1e-3), (0, 20, 0.0), (9, 10, 0.01)])
def test_warmup_cosine_is_warmup_then_cosine_and_continuous(W, T, min_lr):
    lr = 0.01
    lrs = np.array([warmup_cosine(t, lr=lr, warmup_steps=W, total_steps=T, min_lr=min_lr) for t in range(T)])
    t = np.arange(T)
    expected = np.where(t < W, lr * (t + 1) / max(W, 1),
                        min_lr + (lr - min_lr) * 0.5 * (1 + np.cos(np.pi * (t - W) / (T - W))))
    np.testing.assert_allclose(lrs, expected, rtol=1e-14)
    assert np.all(np.diff(lrs[:W]) > 0) and np.all(np.diff(lrs[W:]) < 0)
    assert lrs.max() == pytest.approx(lr, rel=1e-15) and lrs.min() > 0
    if W > 0:  # continuity: both sides of the boundary give the peak η
        assert lrs[W - 1] == pytest.approx(lr, rel=1e-15) and lrs[W] == pytest.approx(lr, rel=1e-15)
        assert np.abs(np.diff(lrs)).max() <= lr / W + 1e-15  # no jump larger than one warm-up increment
    else:
        np.testing.assert_array_equal(lrs, [cosine_annealing(s, lr=lr, total_steps=T, min_lr=min_lr)
                                            for s in range(T)])


def test_a_schedule_sets_the_learning_rate_of_each_step():
    """optimizer.lr = schedule(t) before each step: SGD then moves by η_t ∇L(θ_t)."""
    lrs = [warmup_cosine(t, lr=0.1, warmup_steps=2, total_steps=6) for t in range(6)]
    theta = THETA0.copy()
    for eta in lrs:
        theta = theta - eta * quadratic_grads(theta)
    np.testing.assert_allclose(run(lambda p: SGD(p, 0.1), steps=6, lrs=lrs), theta, rtol=1e-14)


def test_schedules_refuse_bad_input():
    with pytest.raises(ValueError, match="step must be an integer >= 0; received -1"):
        cosine_annealing(-1, lr=0.1, total_steps=10)
    with pytest.raises(ValueError, match="step must be an integer >= 0; received 2.5"):
        linear_warmup(2.5, lr=0.1, warmup_steps=3)
    for schedule, kwargs in [(step_decay, {"step_size": 2}), (cosine_annealing, {"total_steps": 5}),
                             (linear_warmup, {"warmup_steps": 2}),
                             (warmup_cosine, {"warmup_steps": 1, "total_steps": 5})]:
        for lr in (0.0, -0.1, math.nan, math.inf, "0.1"):
            with pytest.raises(ValueError, match="lr must be a finite number > 0"):
                schedule(0, lr=lr, **kwargs)
    with pytest.raises(ValueError, match="warmup_steps must be below total_steps; received warmup_steps=12 and "
                                         "total_steps=10"):
        warmup_cosine(0, lr=0.1, warmup_steps=12, total_steps=10)
    with pytest.raises(ValueError, match="warmup_steps must be below total_steps"):
        warmup_cosine(0, lr=0.1, warmup_steps=10, total_steps=10)
    with pytest.raises(ValueError, match=r"step must be below total_steps=10: the schedule covers steps 0, …, 9; "
                                         "received step=10"):
        cosine_annealing(10, lr=0.1, total_steps=10)
    with pytest.raises(ValueError, match="step must be below total_steps=10"):
        warmup_cosine(10, lr=0.1, warmup_steps=2, total_steps=10)
    with pytest.raises(ValueError, match="min_lr must be at most lr; received min_lr=0.2 and lr=0.1"):
        cosine_annealing(0, lr=0.1, total_steps=10, min_lr=0.2)
    with pytest.raises(ValueError, match="gamma must be in"):
        step_decay(0, lr=0.1, step_size=2, gamma=2.0)
    with pytest.raises(ValueError, match="total_steps must be an integer >= 1; received 0"):
        cosine_annealing(0, lr=0.1, total_steps=0)
    with pytest.raises(ValueError, match="step_size must be an integer >= 1"):
        step_decay(0, lr=0.1, step_size=0)
