"""Tests of implementations.engine.functional, .nn and .optim."""

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations.engine import functional as F
from implementations.engine.autograd import Tensor
from implementations.linear import logistic, softmax_regression
from implementations.nn import MLP, Conv2d, Dropout, Embedding, LayerNorm, Linear, Module, ResidualBlock, Sequential
from implementations.nn.normalization import BatchNorm1d, BatchNorm2d
from implementations.nn.optim import SGD, Adam, clip_grad_norm
from implementations.preliminaries.gradcheck import numerical_jacobian

# --- losses --------------------------------------------------------------------------------------


def test_cross_entropy_matches_softmax_cost_and_its_gradient():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 3))
    y = rng.integers(0, 4, size=20)
    W = rng.normal(size=(4, 4))
    Phi = np.hstack([np.ones((20, 1)), X])
    W_t = Tensor(W, requires_grad=True)
    loss = F.cross_entropy(Tensor(Phi) @ W_t, y)
    assert loss.item() == pytest.approx(softmax_regression.softmax_cost(X, y, W), rel=1e-12)
    loss.backward()
    np.testing.assert_allclose(W_t.grad, softmax_regression.softmax_gradient(X, y, W), rtol=1e-10)


def test_cross_entropy_ignore_index_drops_targets_from_the_mean():
    rng = np.random.default_rng(1)
    logits = rng.normal(size=(2, 5, 3))  # (batch, time, classes)
    targets = np.array([[0, 2, 1, -100, -100], [1, 1, 0, 2, -100]])
    kept = targets != -100
    lp = logits - np.log(np.exp(logits).sum(-1, keepdims=True))
    expected = -np.mean(lp[kept, targets[kept]])
    assert F.cross_entropy(Tensor(logits), targets, ignore_index=-100).item() == pytest.approx(expected, rel=1e-12)
    assert_gradients_match(lambda z: F.cross_entropy(z, targets, ignore_index=-100).reshape(1), logits)


def test_cross_entropy_rejects_bad_targets():
    logits = Tensor(np.zeros((3, 4)))
    with pytest.raises(ValueError, match=r"targets must lie in 0..3 \(K = 4 classes\); received \[4\]"):
        F.cross_entropy(logits, [0, 4, 1])
    with pytest.raises(ValueError, match=r"targets have shape \(2,\) but logits have shape \(3, 4\)"):
        F.cross_entropy(logits, [0, 1])
    with pytest.raises(ValueError, match="every target equals ignore_index"):
        F.cross_entropy(logits, [-1, -1, -1], ignore_index=-1)


def test_binary_cross_entropy_with_logits_matches_logistic_cost():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 2))
    y = rng.integers(0, 2, size=30)
    w = rng.normal(size=3) * 5
    z = Tensor(np.hstack([np.ones((30, 1)), X]) @ w)
    assert F.binary_cross_entropy_with_logits(z, y).item() == pytest.approx(logistic.logistic_cost(X, y, w), rel=1e-12)
    assert_gradients_match(lambda t: F.binary_cross_entropy_with_logits(t, y).reshape(1), z.data)
    big = F.binary_cross_entropy_with_logits(Tensor([1000.0, -1000.0]), [0.0, 1.0])
    assert big.item() == pytest.approx(1000.0)


def test_mse_loss_and_shape_check():
    assert F.mse_loss(Tensor([1.0, 2.0]), Tensor([0.0, 4.0])).item() == pytest.approx(2.5)
    with pytest.raises(ValueError, match=r"prediction has shape \(2, 1\) but target has shape \(2,\)"):
        F.mse_loss(Tensor([[1.0], [2.0]]), Tensor([0.0, 4.0]))


def test_dropout_keeps_the_expectation_and_is_off_in_eval():
    x = Tensor(np.ones((200, 100)))
    out = F.dropout(x, 0.3, rng=np.random.default_rng(3), training=True)
    zero_fraction = np.mean(out.data == 0)
    assert 0.28 < zero_fraction < 0.32
    np.testing.assert_allclose(out.data[out.data != 0], 1 / 0.7)
    assert abs(out.data.mean() - 1.0) < 0.02
    assert F.dropout(x, 0.3, rng=np.random.default_rng(3), training=False) is x
    with pytest.raises(ValueError, match=r"p must be a probability in \[0, 1\); received 1.0"):
        F.dropout(x, 1.0, rng=np.random.default_rng(3), training=True)


# --- layers ------------------------------------------------------------------------------------


def test_linear_shapes_values_and_initializations():
    layer = Linear(4, 3, rng=np.random.default_rng(4))
    x = np.random.default_rng(5).normal(size=(7, 4))
    out = layer(x)
    assert out.shape == (7, 3)
    np.testing.assert_allclose(out.data, x @ layer.W.data + layer.b.data)
    assert np.abs(layer.W.data).max() <= np.sqrt(6 / 7)  # Xavier bound
    he = Linear(400, 300, rng=np.random.default_rng(6), init="he")
    assert he.W.data.std() == pytest.approx(np.sqrt(2 / 400), rel=0.02)
    assert Linear(2, 2, bias=False, rng=np.random.default_rng(0)).parameters()[0].shape == (2, 2)
    with pytest.raises(ValueError, match=r"x has 3 entries along axis 1, but Linear.in_features is 4: expected x of "
                       r"shape \(\.\.\., self.in_features\)"):
        layer(np.zeros((7, 3)))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        Linear(2, 2, rng=0)


def test_mlp_parameters_in_a_stable_order_and_gradients():
    mlp = MLP([3, 5, 4, 2], activation="tanh", rng=np.random.default_rng(7))
    names = [name for name, _ in mlp.named_parameters()]
    assert names == ["layers.0.W", "layers.0.b", "layers.1.W", "layers.1.b", "layers.2.W", "layers.2.b"]
    assert [p.shape for p in mlp.parameters()] == [(3, 5), (5,), (5, 4), (4,), (4, 2), (2,)]
    x = np.random.default_rng(8).normal(size=(6, 3))
    assert mlp(x).shape == (6, 2)
    W0 = mlp.layers[0].W.data.copy()

    def loss_of_W0(W):
        mlp.layers[0].W = W
        return mlp(Tensor(x)).tanh()

    try:
        assert_gradients_match(loss_of_W0, W0)
    finally:
        mlp.layers[0].W = Tensor(W0, requires_grad=True)


def test_state_dict_round_trip_and_errors():
    a = MLP([2, 3, 1], rng=np.random.default_rng(9))
    b = MLP([2, 3, 1], rng=np.random.default_rng(10))
    x = np.random.default_rng(11).normal(size=(4, 2))
    assert not np.allclose(a(x).data, b(x).data)
    b.load_state_dict(a.state_dict())
    np.testing.assert_array_equal(a(x).data, b(x).data)
    state = a.state_dict()
    state["layers.0.W"][:] = 0.0  # a copy: the model is untouched
    assert np.any(a.layers[0].W.data != 0)
    with pytest.raises(ValueError, match=r"state does not match the module: missing \['layers.1.b'\]"):
        b.load_state_dict({k: v for k, v in a.state_dict().items() if k != "layers.1.b"})
    bad = a.state_dict()
    bad["layers.0.W"] = np.zeros((3, 3))
    with pytest.raises(ValueError, match=r"state\['layers.0.W'\] has shape \(3, 3\); expected the parameter's "
                       r"shape \(2, 3\)"):
        b.load_state_dict(bad)


def test_embedding_and_layernorm():
    emb = Embedding(10, 4, rng=np.random.default_rng(12))
    tokens = np.array([[1, 2, 1], [9, 0, 1]])
    out = emb(tokens)
    assert out.shape == (2, 3, 4)
    np.testing.assert_array_equal(out.data, emb.W.data[tokens])
    out.sum().backward()
    assert emb.W.grad[1].tolist() == [3.0] * 4  # token 1 used three times
    with pytest.raises(ValueError, match=r"indices must hold token ids 0, …, 9 \(integers below the vocabulary size "
                                         r"10\).*values 10"):
        emb(np.array([0, 10]))

    ln = LayerNorm(4)
    x = np.random.default_rng(13).normal(size=(3, 4)) * 5 + 2
    y = ln(Tensor(x)).data
    expected = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)  # biased variance
    np.testing.assert_allclose(y, expected, rtol=1e-12)
    assert [n for n, _ in ln.named_parameters()] == ["gamma", "beta"]
    assert_gradients_match(lambda t: ln(t), x)


def test_sequential_train_eval_and_zero_grad():
    class Noisy(Module):
        def forward(self, x):
            return x * (2.0 if self.training else 1.0)

    net = Sequential(Linear(2, 2, rng=np.random.default_rng(14)), Tensor.relu, Noisy())
    assert [n for n, _ in net.named_parameters()] == ["layers.0.W", "layers.0.b"]
    x = np.ones((1, 2))
    train_out = net(x).data
    net.eval()
    assert not net.layers[2].training
    np.testing.assert_allclose(net(x).data * 2, train_out)
    net(x).sum().backward()
    assert net.parameters()[0].grad is not None
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


# --- optimizers --------------------------------------------------------------------------------


def quadratic_grads(theta):
    """Gradient of L(θ) = Σ (θ − 1)² · [1, 2, 3]: a fixed problem for the update-rule tests."""
    return 2 * (theta - 1.0) * np.array([1.0, 2.0, 3.0])


def run(optimizer_factory, steps=5):
    theta = Tensor(np.array([0.5, -1.0, 2.0]), requires_grad=True)
    opt = optimizer_factory([theta])
    for _ in range(steps):
        opt.zero_grad()
        ((theta - 1.0) ** 2 * np.array([1.0, 2.0, 3.0])).sum().backward()
        opt.step()
    return theta.data


@pytest.mark.parametrize("momentum, weight_decay", [(0.0, 0.0), (0.9, 0.0), (0.9, 0.01), (0.0, 0.1)])
def test_sgd_follows_the_written_update_rule(momentum, weight_decay):
    theta, buf, lr = np.array([0.5, -1.0, 2.0]), None, 0.05
    for _ in range(5):
        g = quadratic_grads(theta) + weight_decay * theta
        if momentum:
            buf = g if buf is None else momentum * buf + g
            g = buf
        theta = theta - lr * g
    got = run(lambda p: SGD(p, lr, momentum=momentum, weight_decay=weight_decay))
    np.testing.assert_allclose(got, theta, rtol=1e-14)


@pytest.mark.parametrize("weight_decay", [0.0, 0.05])
def test_adam_follows_the_written_update_rule(weight_decay):
    theta = np.array([0.5, -1.0, 2.0])
    m, v, lr, b1, b2, eps = np.zeros(3), np.zeros(3), 0.1, 0.9, 0.999, 1e-8
    for t in range(1, 6):
        g = quadratic_grads(theta) + weight_decay * theta
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g**2
        theta = theta - lr * (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
    got = run(lambda p: Adam(p, lr, weight_decay=weight_decay))
    np.testing.assert_allclose(got, theta, rtol=1e-14)


def test_adam_first_step_moves_each_weight_by_lr():
    got = run(lambda p: Adam(p, 0.01), steps=1)  # m̂/√v̂ = sign(g) at t = 1
    np.testing.assert_allclose(got, np.array([0.5, -1.0, 2.0]) - 0.01 * np.sign(quadratic_grads(np.array(
        [0.5, -1.0, 2.0]))), rtol=1e-6)


def test_clip_grad_norm():
    a = Tensor(np.zeros(2), requires_grad=True)
    b = Tensor(np.zeros(1), requires_grad=True)
    a.grad, b.grad = np.array([3.0, 0.0]), np.array([4.0])
    assert clip_grad_norm([a, b], 1.0) == pytest.approx(5.0)
    np.testing.assert_allclose(np.r_[a.grad, b.grad], np.array([3.0, 0.0, 4.0]) / (5.0 + 1e-6))
    a.grad = np.array([0.3, 0.0])
    b.grad = np.array([0.4])
    clip_grad_norm([a, b], 1.0)
    np.testing.assert_array_equal(a.grad, [0.3, 0.0])  # under the limit: unchanged


def test_optimizers_reject_bad_arguments_and_diverged_gradients():
    theta = Tensor(np.zeros(2), requires_grad=True)
    with pytest.raises(ValueError, match="lr must be a finite number > 0"):
        SGD([theta], -0.1)
    with pytest.raises(ValueError, match="non-empty list of Tensors with requires_grad=True"):
        Adam([Tensor(np.zeros(2))])
    opt = SGD([theta], 0.1)
    theta.grad = np.array([np.inf, 0.0])
    with pytest.raises(FloatingPointError, match="loss diverged"):
        opt.step()


def test_mlp_learns_xor():
    X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 0])
    mlp = MLP([2, 8, 2], activation="tanh", rng=np.random.default_rng(15))
    opt = Adam(mlp.parameters(), 0.05)
    for _ in range(300):
        opt.zero_grad()
        loss = F.cross_entropy(mlp(X), y)
        loss.backward()
        opt.step()
    assert loss.item() < 0.05
    np.testing.assert_array_equal(mlp(X).data.argmax(axis=1), y)


def test_binary_cross_entropy_gradient_at_zero_logits():
    """At w = 0 every logit is 0: the gradient must be the mean of σ(0) − t = 1/2 − t, not a kink's 0."""
    z = Tensor(np.zeros(4), requires_grad=True)
    t = np.array([0.0, 1.0, 1.0, 1.0])
    F.binary_cross_entropy_with_logits(z, t).backward()
    np.testing.assert_allclose(z.grad, (0.5 - t) / 4)


def test_shared_parameters_are_listed_once_and_containers_are_searched():
    class Tied(Module):
        def __init__(self):
            self.first = Linear(2, 2, rng=np.random.default_rng(0))
            self.second = Linear(2, 2, rng=np.random.default_rng(1))
            self.second.W = self.first.W  # tied weights
            self.extra = [Tensor(np.ones(2), requires_grad=True), Tensor.relu]

    model = Tied()
    assert [n for n, _ in model.named_parameters()] == ["first.W", "first.b", "second.b", "extra.0"]

    class Bad(Module):
        def __init__(self):
            self.layers = {"a": Linear(2, 2, rng=np.random.default_rng(0))}

    with pytest.raises(TypeError, match="dict holding modules or parameters"):
        Bad().parameters()


@pytest.mark.parametrize("make", [lambda p: SGD(p, 0.1, momentum=0.9, weight_decay=0.01),
                                  lambda p: Adam(p, 0.1, weight_decay=0.01)], ids=["sgd", "adam"])
def test_optimizers_update_each_parameter_as_alone_and_skip_those_without_gradient(make):
    """All parameters are updated as one flat vector: the result must equal updating each on its own."""
    rng = np.random.default_rng(0)
    shapes = [(2, 3), (3,), (1,)]
    start = [rng.normal(size=s) for s in shapes]
    together = [Tensor(v, requires_grad=True) for v in start]
    alone = [Tensor(v, requires_grad=True) for v in start]
    opt_together, opt_alone = make(together), [make([p]) for p in alone]
    for _ in range(4):
        grads = [rng.normal(size=s) for s in shapes]
        for p, q, g in zip(together, alone, grads, strict=True):
            p.grad = q.grad = g
        opt_together.step()
        for opt in opt_alone:
            opt.step()
    for p, q in zip(together, alone, strict=True):
        np.testing.assert_array_equal(p.data, q.data)
    before = [p.data for p in together]
    together[0].grad, together[1].grad, together[2].grad = None, np.ones(3), None  # only the bias has one
    opt_together.step()
    np.testing.assert_array_equal(together[0].data, before[0])
    np.testing.assert_array_equal(together[2].data, before[2])
    assert not np.array_equal(together[1].data, before[1])
    with pytest.raises(ValueError, match=r"gradient of shape \(2,\); expected equal shapes"):
        together[1].grad = np.ones(2)
        opt_together.step()


def test_stacked_mlps_compute_and_learn_as_each_network_alone():
    rng = np.random.default_rng(0)
    X, y = rng.normal(size=(9, 3)), rng.integers(0, 2, size=9)
    networks = [MLP([3, 5, 4, 2], activation="tanh", rng=np.random.default_rng(seed)) for seed in range(3)]
    stacked = MLP.stack(networks)
    assert [p.shape for p in stacked.parameters()] == [(3, 3, 5), (3, 1, 5), (3, 5, 4), (3, 1, 4), (3, 4, 2), (3, 1, 2)]
    logits = stacked(X)  # (3, 9, 2)
    for s, net in enumerate(networks):
        np.testing.assert_allclose(logits.data[s], net(X).data, rtol=1e-14)
    (3 * F.cross_entropy(logits, np.tile(y, (3, 1)))).backward()  # the sum of the three losses
    for s, net in enumerate(networks):
        F.cross_entropy(net(X), y).backward()
        for p_stacked, p in zip(stacked.parameters(), net.parameters(), strict=True):
            np.testing.assert_allclose(p_stacked.grad[s].reshape(p.shape), p.grad, rtol=1e-12, atol=1e-15)
    networks[0].layers[0].W.data[0, 0] += 1.0  # the stack holds copies
    assert stacked.layers[0].W.data[0, 0, 0] != networks[0].layers[0].W.data[0, 0]
    with pytest.raises(ValueError, match="same layer sizes"):
        MLP.stack([networks[0], MLP([3, 6, 4, 2], activation="tanh", rng=rng)])
    with pytest.raises(TypeError, match="non-empty list of MLP"):
        MLP.stack([])


# --- bad input is refused by name (issue 21) -----------------------------------------------------


def test_adam_refuses_a_learning_rate_outside_its_sane_range():
    """Adam moves each weight by about lr per step: at lr=1e6 a loss went from 0.9 to 2.7e9 without a warning."""
    theta = Tensor(np.zeros(2), requires_grad=True)
    with pytest.raises(ValueError, match=r"lr must be at most 1 for Adam; received 1e\+06"):
        Adam([theta], 1e6)
    optimizer = Adam([theta], 0.01)
    with pytest.raises(ValueError, match="lr must be at most 1 for Adam"):
        optimizer.lr = 10.0  # a schedule is checked too
    for make in (SGD, Adam):
        for lr in (0.0, -1.0, np.nan, np.inf):
            with pytest.raises(ValueError, match="lr must be a finite number > 0"):
                make([theta], lr)


def test_sgd_divergence_names_the_learning_rate():
    theta = Tensor(np.zeros(2), requires_grad=True)
    opt = SGD([theta], 0.5)
    theta.grad = np.array([np.nan, 0.0])
    with pytest.raises(FloatingPointError, match=r"lr=0.5 is probably too large: try lr=0.05"):
        opt.step()


def test_load_state_dict_refuses_nan_inf_and_leaves_the_module_unchanged():
    model = MLP([2, 3, 1], rng=np.random.default_rng(0))
    before = model.state_dict()
    for bad in (np.nan, np.inf):
        state = MLP([2, 3, 1], rng=np.random.default_rng(1)).state_dict()
        state["layers.1.W"][0, 0] = bad
        with pytest.raises(ValueError, match=r"state\['layers.1.W'\] contains 1 NaN or infinite value"):
            model.load_state_dict(state)
        for name, value in model.state_dict().items():  # layers.0 was not loaded either
            np.testing.assert_array_equal(value, before[name])
    with pytest.raises(ValueError, match=r"unexpected \['extra'\]"):
        model.load_state_dict({**before, "extra": np.zeros(1)})
    with pytest.raises(TypeError, match="state must be a dict"):
        model.load_state_dict(list(before.values()))


def test_clip_grad_norm_and_optimizers_refuse_a_generator():
    """A generator is read once: clip_grad_norm used to compute the norm and then clip nothing."""
    a = Tensor(np.zeros(2), requires_grad=True)
    a.grad = np.array([3.0, 4.0])
    with pytest.raises(TypeError, match="params must be a list of Tensors.*one-shot iterator"):
        clip_grad_norm((p for p in [a]), 1.0)
    np.testing.assert_array_equal(a.grad, [3.0, 4.0])
    for make in (lambda p: SGD(p, 0.1), lambda p: Adam(p, 0.01)):
        with pytest.raises(TypeError, match="one-shot iterator"):
            make(p for p in [a])
    clip_grad_norm([a], 1.0)
    assert np.linalg.norm(a.grad) == pytest.approx(1.0, rel=1e-5)
    a.grad = np.array([np.nan, 0.0])
    with pytest.raises(FloatingPointError, match="the loss diverged"):
        clip_grad_norm([a], 1.0)


def test_layers_report_the_input_width_in_the_callers_terms():
    rng = np.random.default_rng(0)
    x = np.zeros((2, 7, 4))
    with pytest.raises(ValueError, match=r"x has 4 entries along axis 2, but LayerNorm.dim is 5: expected x of shape "
                                         r"\(\.\.\., self.dim\)"):
        LayerNorm(5)(x)
    with pytest.raises(ValueError, match=r"x has 4 entries along axis 2, but Linear.in_features is 5"):
        Linear(5, 2, rng=rng)(Tensor(x))
    with pytest.raises(ValueError, match=r"x has 4 entries along axis 2, but MLP.in_features is 5"):
        MLP([5, 3, 2], rng=rng)(x)
    with pytest.raises(ValueError, match="x contains 1 NaN or infinite value"):
        Linear(4, 2, rng=rng)(np.r_[[[np.inf, 0.0, 0.0, 0.0]]])


def test_embedding_refuses_fractional_ids_and_strings_by_name():
    emb = Embedding(10, 4, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"indices must hold token ids 0, …, 9.*values 1.5"):
        emb(np.array([1.5, 2.0]))
    with pytest.raises(TypeError, match="indices must be a numeric array; received the string"):
        emb("cat")
    with pytest.raises(ValueError, match="indices must hold token ids 0, …, 9 .* with values -1"):
        emb(np.array([-1, 2]))


def test_losses_name_their_bad_arguments():
    logits = Tensor(np.zeros((3, 2)))
    with pytest.raises(TypeError, match="targets must be a numeric array"):
        F.cross_entropy(logits, "abc")
    with pytest.raises(ValueError, match="ignore_index must be an integer"):
        F.cross_entropy(logits, [0, 1, 1], ignore_index=0.5)
    with pytest.raises(ValueError, match="logits contains 1 NaN or infinite value"):
        F.cross_entropy(np.array([[np.inf, 0.0]]), [0])
    with pytest.raises(TypeError, match="targets must be a numeric array"):
        F.binary_cross_entropy_with_logits(Tensor(np.zeros(2)), "01")
    with pytest.raises(ValueError, match="target contains 1 NaN or infinite value"):
        F.mse_loss(Tensor(np.zeros(2)), np.array([0.0, np.inf]))
    with pytest.raises(ValueError, match="training must be True or False"):
        F.dropout(logits, 0.5, rng=np.random.default_rng(0), training="yes")
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        F.dropout(logits, 0.5, rng=None, training=True)


# --- Dropout, Conv2d, ResidualBlock, and train/eval reaching every sub-module --------------------


def mean_is_preserved(y, x, p):
    """|Σ y − Σ x| within 4 standard deviations of Σ y, whose variance is Σ x² p/(1 − p) for inverted dropout."""
    return abs(y.sum() - x.sum()) < 4 * np.sqrt((x**2).sum() * p / (1 - p))


@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_in_training_mode_keeps_the_mean_and_drops_at_rate_p(p):
    rng = np.random.default_rng(20)
    x = rng.normal(loc=1.0, size=(300, 200))
    layer = Dropout(p, rng=np.random.default_rng(21))
    y = layer(Tensor(x)).data
    kept = y != 0
    n = x.size
    assert abs((~kept).mean() - p) < 4 * np.sqrt(p * (1 - p) / n)  # the mask's rate, within 4 standard errors
    np.testing.assert_allclose(y[kept], x[kept] / (1 - p), rtol=1e-14)  # the kept entries scaled by 1/(1 − p)
    assert mean_is_preserved(y, x, p)
    assert not mean_is_preserved(x * kept, x, p)  # dropout without the 1/(1 − p) scaling would be caught
    assert not np.array_equal(layer(Tensor(x)).data != 0, kept)  # a new mask at every call
    again = Dropout(p, rng=np.random.default_rng(21))(Tensor(x)).data
    np.testing.assert_array_equal(again, y)  # the same generator: the same mask


def test_dropout_gradient_flows_only_through_kept_entries():
    p = 0.4
    rng = np.random.default_rng(22)
    x = Tensor(rng.normal(size=(50, 30)), requires_grad=True)
    upstream = rng.normal(size=(50, 30))
    y = Dropout(p, rng=np.random.default_rng(23))(x)
    (y * upstream).sum().backward()
    kept = y.data != 0
    np.testing.assert_allclose(x.grad[kept], upstream[kept] / (1 - p), rtol=1e-14)
    np.testing.assert_array_equal(x.grad[~kept], 0.0)
    assert 0 < kept.sum() < kept.size


def test_dropout_is_the_identity_in_eval_mode_and_for_p_zero():
    x = np.random.default_rng(24).normal(size=(4, 5))
    layer = Dropout(0.5, rng=np.random.default_rng(25)).eval()
    xt = Tensor(x, requires_grad=True)
    y = layer(xt)
    np.testing.assert_array_equal(y.data, x)
    y.sum().backward()
    np.testing.assert_array_equal(xt.grad, np.ones_like(x))
    np.testing.assert_array_equal(Dropout(0.0, rng=np.random.default_rng(26))(x).data, x)  # training mode, p = 0
    for p in (1.0, -0.1, 1.5, np.nan, True, "0.5"):
        with pytest.raises(ValueError, match=r"p must be a probability in \[0, 1\)"):
            Dropout(p, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        Dropout(0.5, rng=0)


def _modules(module):
    """module and every sub-module below it."""
    found = [module]
    for _, value in module._children():
        if isinstance(value, Module):
            found += _modules(value)
    return found


def test_train_and_eval_reach_every_sub_module():
    rng = np.random.default_rng(27)

    class Net(Module):
        def __init__(self):
            self.blocks = [ResidualBlock(Sequential(Linear(3, 3, rng=rng), Dropout(0.5, rng=rng))),
                           Dropout(0.5, rng=rng)]
            self.head = Sequential(BatchNorm1d(3), Sequential(Dropout(0.5, rng=rng)), Linear(3, 2, rng=rng))

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    net = Net()
    modules = _modules(net)
    assert sum(isinstance(m, Dropout) for m in modules) == 3 and any(isinstance(m, BatchNorm1d) for m in modules)
    x = rng.normal(size=(8, 3))
    net(x)  # one training batch for the batch norm
    net.eval()
    assert not any(m.training for m in modules)
    np.testing.assert_array_equal(net(x).data, net(x).data)  # no dropout left: deterministic
    net.train()
    assert all(m.training for m in modules)
    assert not np.array_equal(net(x).data, net(x).data)


def direct_conv(x, K, b, stride, padding):
    """The layer's output by loops over images, kernels and positions, on the zero-padded images."""
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    N, _, H, W = x.shape
    F, _, kh, kw = K.shape
    H_out, W_out = (H - kh) // stride + 1, (W - kw) // stride + 1
    out = np.zeros((N, F, H_out, W_out))
    for n in range(N):
        for f in range(F):
            for i in range(H_out):
                for j in range(W_out):
                    window = x[n, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
                    out[n, f, i, j] = np.sum(window * K[f]) + (b[f] if b is not None else 0.0)
    return out


@pytest.mark.parametrize("C, F, kernel_size, stride, padding, bias",
                         [(1, 2, 3, 1, 0, True), (3, 4, (2, 3), 2, 0, False), (2, 3, 3, 1, 1, True),
                          (2, 2, (3, 2), 2, 2, True)])
def test_conv2d_layer_matches_loops_and_finite_differences(C, F, kernel_size, stride, padding, bias):
    rng = np.random.default_rng(28)
    layer = Conv2d(C, F, kernel_size, stride=stride, padding=padding, bias=bias, rng=rng)
    if bias:
        layer.bias.data = rng.normal(size=F)  # not the initial zeros, which would hide a missing bias
    x = rng.normal(size=(2, C, 5, 6))
    out = layer(x)
    expected = direct_conv(x, layer.weight.data, layer.bias.data if bias else None, stride, padding)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.data, expected, rtol=1e-12, atol=1e-12)
    assert [n for n, _ in layer.named_parameters()] == (["weight", "bias"] if bias else ["weight"])

    def forward(x_t, K, *b):
        layer.weight = K
        layer.bias = b[0] if b else None
        return layer(x_t)

    assert_gradients_match(forward, x, layer.weight.data, *([layer.bias.data] if bias else []))


def test_conv2d_initializations_use_the_fan_in_of_a_kernel():
    C, F, k = 16, 32, 3
    he = Conv2d(C, F, k, rng=np.random.default_rng(29))
    assert he.weight.shape == (F, C, k, k)
    assert he.weight.data.std() == pytest.approx(np.sqrt(2 / (C * k * k)), rel=0.03)  # fan_in = C·kh·kw
    assert he.weight.data.std() < 0.5 * np.sqrt(2 / C)  # a fan_in of C alone (kernel size forgotten) would be caught
    xavier = Conv2d(C, F, k, rng=np.random.default_rng(30), init="xavier")
    limit = np.sqrt(6 / (C * k * k + F * k * k))
    assert np.abs(xavier.weight.data).max() <= limit
    assert xavier.weight.data.std() == pytest.approx(limit / np.sqrt(3), rel=0.03)  # U(−a, a) has std a/√3
    np.testing.assert_array_equal(he.bias.data, np.zeros(F))


def test_conv2d_layer_refuses_bad_input_by_name():
    layer = Conv2d(3, 2, 3, rng=np.random.default_rng(31))
    with pytest.raises(ValueError, match=r"x has 2 channel\(s\) \(shape \(1, 2, 5, 5\), read as \(N, C, H, W\)\) but "
                                         r"the layer has in_channels=3"):
        layer(np.zeros((1, 2, 5, 5)))
    with pytest.raises(ValueError, match=r"x must be a batch of images of shape \(N, C, H, W\); received shape "
                                         r"\(3, 5, 5\)"):
        layer(np.zeros((3, 5, 5)))
    with pytest.raises(ValueError, match="kernel_size must be an integer >= 1"):
        Conv2d(3, 2, 0, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"kernel_size\[1\] must be an integer >= 1"):
        Conv2d(3, 2, (3, 2.5), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"kernel_size must be an integer or a pair"):
        Conv2d(3, 2, (3, 3, 3), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="padding must be an integer >= 0"):
        Conv2d(3, 2, 3, padding=-1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="init must be one of 'he', 'xavier'; received 'glorot'"):
        Conv2d(3, 2, 3, rng=np.random.default_rng(0), init="glorot")


def residual_mlp_block(D, H, rng, *, zero_last=False):
    block = ResidualBlock(Sequential(Linear(D, H, rng=rng, init="he"), Tensor.tanh, Linear(H, D, rng=rng)))
    if zero_last:
        last = block.branch.layers[-1]
        last.W.data[:] = 0.0
        last.b.data[:] = 0.0
    return block


def test_residual_block_adds_the_input_and_its_jacobian_is_identity_plus_the_branchs():
    rng = np.random.default_rng(32)
    block = residual_mlp_block(3, 5, rng)
    x = rng.normal(size=(2, 3))
    np.testing.assert_allclose(block(x).data, x + block.branch(Tensor(x)).data, rtol=1e-14)
    y = block(Tensor(x))
    J_engine = np.empty((*x.shape, *x.shape))  # J[i, k] = ∂yᵢ/∂xₖ, one backward pass per output
    for idx in np.ndindex(x.shape):
        xt = Tensor(x, requires_grad=True)
        e = np.zeros(x.shape)
        e[idx] = 1.0
        (block(xt) * e).sum().backward()
        J_engine[idx] = xt.grad
    J_numeric = numerical_jacobian(lambda v: block(v).data, x)
    J_branch = numerical_jacobian(lambda v: block.branch(Tensor(v)).data, x)
    identity = np.eye(x.size).reshape(J_engine.shape)
    np.testing.assert_allclose(J_engine, J_numeric, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(J_engine, identity + J_branch, rtol=1e-6, atol=1e-8)
    assert y.shape == x.shape
    assert [n for n, _ in block.named_parameters()] == ["branch.layers.0.W", "branch.layers.0.b",
                                                        "branch.layers.2.W", "branch.layers.2.b"]


def test_residual_block_with_a_zero_last_layer_is_the_identity_and_still_learns():
    rng = np.random.default_rng(33)
    block = residual_mlp_block(4, 6, rng, zero_last=True)
    x = Tensor(rng.normal(size=(5, 4)), requires_grad=True)
    upstream = rng.normal(size=(5, 4))
    y = block(x)
    np.testing.assert_array_equal(y.data, x.data)
    (y * upstream).sum().backward()
    np.testing.assert_array_equal(x.grad, upstream)  # the gradient passes through unchanged
    assert np.abs(block.branch.layers[-1].W.grad).max() > 0  # and the zero layer receives one: it can learn


def test_a_deep_residual_stack_keeps_the_gradient_that_a_plain_stack_loses():
    """Twenty tanh layers with small weights: the plain stack's gradient vanishes, the residual one stays near 1."""
    rng = np.random.default_rng(34)
    layers = [Linear(4, 4, rng=rng) for _ in range(20)]
    for layer in layers:
        layer.W.data *= 0.1
    plain = Sequential(*[f for layer in layers for f in (layer, Tensor.tanh)])
    residual = Sequential(*[ResidualBlock(Sequential(layer, Tensor.tanh)) for layer in layers])
    norms = []
    for net in (plain, residual):
        x = Tensor(rng.normal(size=(1, 4)), requires_grad=True)
        net(x).sum().backward()
        norms.append(np.linalg.norm(x.grad))
    assert norms[0] < 1e-10 and 0.5 < norms[1] < 5


def test_residual_block_refuses_a_branch_that_changes_the_shape():
    rng = np.random.default_rng(35)
    with pytest.raises(ValueError, match=r"branch maps x of shape \(5, 3\) to shape \(5, 4\), but x \+ F\(x\) needs "
                                         "them equal"):
        ResidualBlock(Linear(3, 4, rng=rng))(np.zeros((5, 3)))
    with pytest.raises(ValueError, match=r"branch maps x of shape \(2, 3, 6, 6\) to shape \(2, 3, 4, 4\)"):
        ResidualBlock(Conv2d(3, 3, 3, rng=rng))(np.zeros((2, 3, 6, 6)))
    with pytest.raises(TypeError, match="branch must be a Module or a function of a Tensor"):
        ResidualBlock("relu")
    with pytest.raises(TypeError, match="branch must return a Tensor; it returned an array"):
        ResidualBlock(lambda t: t.data)(np.zeros((2, 3)))


def test_a_convolutional_residual_block_keeps_the_shape_and_switches_its_batch_norms():
    rng = np.random.default_rng(36)
    C = 3
    branch = Sequential(Conv2d(C, C, 3, padding=1, rng=rng), BatchNorm2d(C), Tensor.relu,
                        Conv2d(C, C, 3, padding=1, rng=rng), BatchNorm2d(C))
    block = Sequential(ResidualBlock(branch), Tensor.relu)
    x = rng.normal(size=(2, C, 5, 5))
    assert block(x).shape == x.shape
    block.eval()
    assert not branch.layers[1].training and not branch.layers[4].training
    y = block(x).data
    np.testing.assert_allclose(y, np.maximum(x + branch(Tensor(x)).data, 0.0), rtol=1e-12)


# --- the declared input contract: layers the caller composed are checked as the caller's calls ---------------------


def test_composed_layers_that_do_not_fit_are_reported_in_the_callers_terms():
    """Sequential and a residual branch pass their caller's checks through: the layer that does not fit says so."""
    rng = np.random.default_rng(37)
    misfit = Sequential(Linear(3, 4, rng=rng), Tensor.relu, Linear(5, 3, rng=rng))  # 4 features out, 5 expected in
    x = np.ones((2, 3))
    for model in (misfit, ResidualBlock(misfit), Sequential(ResidualBlock(misfit)),
                  Sequential(Linear(3, 3, rng=rng), ResidualBlock(misfit))):
        with pytest.raises(ValueError, match=r"x has 4 entries along axis 1, but Linear.in_features is 5"):
            model(x)
    with pytest.raises(TypeError, match="x must be a numeric array; received the string"):
        ResidualBlock(Tensor.tanh)("abc")  # a branch that checks nothing: the block checks x itself


def test_a_network_runs_its_own_layers_without_checking_them_again(monkeypatch):
    """MLP.forward checks x once; its Linear layers, called by the package's own code, do not check again."""
    from implementations import _contract

    rng = np.random.default_rng(38)
    net = MLP([3, 4, 2], rng=rng)
    checked_names = []
    original = _contract._Role.check

    def spy(self, value, dims, owner, arguments):
        checked_names.append((type(owner).__name__, self.name))
        return original(self, value, dims, owner, arguments)

    monkeypatch.setattr(_contract._Role, "check", spy)
    net(np.ones((5, 3)))
    assert checked_names == [("MLP", "x")]


def test_the_activation_check_knows_every_activation():
    """The declaration names the dict of activations itself: a new activation is accepted at once."""
    with pytest.raises(ValueError, match=r"activation must be one of 'relu', 'tanh', 'sigmoid', 'gelu'; "
                                         "received 'softplus'"):
        MLP([2, 2], activation="softplus", rng=np.random.default_rng(0))
