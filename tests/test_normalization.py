"""Tests of implementations.nn.normalization: batch normalization against NumPy formulas, finite differences, the
analytic input gradient, and a written-out recursion for the running averages."""

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations.engine.autograd import Tensor
from implementations.nn import Linear, Sequential
from implementations.nn.normalization import BatchNorm1d, BatchNorm2d
from implementations.preliminaries.gradcheck import check_gradient

# (layer class, input shape, axes averaged over, features axis broadcast shape)
CASES = [(BatchNorm1d, (6, 3), (0,), (1, 3)), (BatchNorm1d, (3, 4), (0,), (1, 4)),
         (BatchNorm2d, (3, 2, 4, 5), (0, 2, 3), (1, 2, 1, 1)), (BatchNorm2d, (1, 3, 2, 2), (0, 2, 3), (1, 3, 1, 1))]
IDS = ["1d-6x3", "1d-3x4", "2d-3x2x4x5", "2d-1x3x2x2"]


def make(cls, shape, seed=0):
    """A layer with random γ and β (not the initial ones and zeros, which would hide a mix-up) and its input."""
    rng = np.random.default_rng(seed)
    layer = cls(shape[1])
    layer.gamma.data = rng.uniform(0.5, 2.0, size=shape[1])
    layer.beta.data = rng.normal(size=shape[1])
    x = rng.normal(size=shape) * rng.uniform(0.5, 3.0, size=shape[1]).reshape((1, -1) + (1,) * (len(shape) - 2)) + 2.0
    return layer, x


def numpy_batch_norm(x, gamma, beta, axes, bshape, eps=1e-5):
    mu = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)  # biased: divide by n
    return (x - mu) / np.sqrt(var + eps) * gamma.reshape(bshape) + beta.reshape(bshape)


@pytest.mark.parametrize("cls, shape, axes, bshape", CASES, ids=IDS)
def test_training_forward_matches_the_numpy_formula(cls, shape, axes, bshape):
    layer, x = make(cls, shape)
    y = layer(x).data
    np.testing.assert_allclose(y, numpy_batch_norm(x, layer.gamma.data, layer.beta.data, axes, bshape), rtol=1e-12,
                               atol=1e-12)
    x_hat = (y - layer.beta.data.reshape(bshape)) / layer.gamma.data.reshape(bshape)
    np.testing.assert_allclose(x_hat.mean(axis=axes), 0.0, atol=1e-12)  # each feature: mean 0, variance ≈ 1
    np.testing.assert_allclose(x_hat.var(axis=axes), 1.0, rtol=1e-3)


@pytest.mark.parametrize("cls, shape, axes, bshape", CASES, ids=IDS)
def test_backward_matches_finite_differences(cls, shape, axes, bshape):
    layer, x = make(cls, shape, seed=1)
    w = np.random.default_rng(2).normal(size=shape)  # L = Σ w ⊙ y: a random upstream gradient

    def loss_and_grads(x_value, gamma, beta):
        layer.gamma, layer.beta = Tensor(gamma, requires_grad=True), Tensor(beta, requires_grad=True)
        xt = Tensor(x_value, requires_grad=True)
        loss = (layer(xt) * w).sum()
        loss.backward()
        return loss.item(), xt.grad, layer.gamma.grad, layer.beta.grad

    g0, b0 = layer.gamma.data.copy(), layer.beta.data.copy()
    for k, start in enumerate((x, g0, b0)):
        def f(v, k=k):
            args = [x, g0, b0]
            args[k] = v
            return loss_and_grads(*args)[0]

        def grad_f(v, k=k):
            args = [x, g0, b0]
            args[k] = v
            return loss_and_grads(*args)[1 + k]

        assert check_gradient(f, grad_f, start) < 1e-6
    layer.gamma, layer.beta = Tensor(g0, requires_grad=True), Tensor(b0, requires_grad=True)
    assert_gradients_match(lambda t: layer(t), x)  # and every output's gradient, through tensor_check


@pytest.mark.parametrize("cls, shape, axes, bshape", CASES, ids=IDS)
def test_input_gradient_equals_the_analytic_formula(cls, shape, axes, bshape):
    """dx = (1/n) γ/σ (n dy − Σ dy − x̂ Σ dy ⊙ x̂), the sums over the batch (and positions), n values per feature."""
    layer, x = make(cls, shape, seed=3)
    dy = np.random.default_rng(4).normal(size=shape)
    xt = Tensor(x, requires_grad=True)
    (layer(xt) * dy).sum().backward()
    n = x.size // shape[1]
    sigma = np.sqrt(x.var(axis=axes, keepdims=True) + layer.eps)
    x_hat = (x - x.mean(axis=axes, keepdims=True)) / sigma
    gamma = layer.gamma.data.reshape(bshape)
    expected = gamma / sigma / n * (n * dy - dy.sum(axis=axes, keepdims=True)
                                    - x_hat * (dy * x_hat).sum(axis=axes, keepdims=True))
    np.testing.assert_allclose(xt.grad, expected, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(layer.gamma.grad, (dy * x_hat).sum(axis=axes), rtol=1e-10)
    np.testing.assert_allclose(layer.beta.grad, dy.sum(axis=axes), rtol=1e-10)


def test_treating_the_batch_statistics_as_constants_would_be_caught():
    """The classic mistake: differentiating as if μ and σ did not depend on x gives dx = γ dy / σ, which the
    finite differences refuse (the error is of order 1, not 1e-7)."""
    layer, x = make(BatchNorm1d, (5, 2), seed=5)
    dy = np.random.default_rng(6).normal(size=(5, 2))
    sigma = np.sqrt(x.var(axis=0) + layer.eps)

    def f(v):
        return float((layer(v).data * dy).sum())

    def wrong_grad(v):
        return layer.gamma.data / np.sqrt(v.var(axis=0) + layer.eps) * dy

    def engine_grad(v):
        vt = Tensor(v, requires_grad=True)
        (layer(vt) * dy).sum().backward()
        return vt.grad

    assert check_gradient(f, engine_grad, x) < 1e-6
    assert check_gradient(f, wrong_grad, x) > 1e-2
    assert not np.allclose(engine_grad(x), layer.gamma.data / sigma * dy, atol=1e-3)


@pytest.mark.parametrize("cls, shape, axes", [(BatchNorm1d, (4, 3), (0,)), (BatchNorm2d, (2, 3, 2, 3), (0, 2, 3))],
                         ids=["1d", "2d"])
def test_running_averages_follow_the_written_recursion(cls, shape, axes):
    momentum = 0.25
    layer = cls(shape[1], momentum=momentum)
    rng = np.random.default_rng(7)
    mean, var = np.zeros(shape[1]), np.ones(shape[1])
    biased_var = var.copy()
    for step in range(5):
        x = rng.normal(loc=step, scale=1 + step, size=shape)
        layer(x)
        mean = (1 - momentum) * mean + momentum * x.mean(axis=axes)
        var = (1 - momentum) * var + momentum * x.var(axis=axes, ddof=1)  # unbiased: divide by n − 1
        biased_var = (1 - momentum) * biased_var + momentum * x.var(axis=axes)
    np.testing.assert_allclose(layer.running_mean, mean, rtol=1e-12)
    np.testing.assert_allclose(layer.running_var, var, rtol=1e-12)
    assert not np.allclose(layer.running_var, biased_var, rtol=1e-3)  # the biased estimate would be caught
    assert layer.num_batches_tracked == 5


@pytest.mark.parametrize("cls, shape, axes, bshape", CASES, ids=IDS)
def test_evaluation_uses_the_running_averages(cls, shape, axes, bshape):
    layer, x = make(cls, shape, seed=8)
    rng = np.random.default_rng(9)
    for _ in range(3):
        layer(rng.normal(loc=1.0, scale=2.0, size=shape))
    layer.eval()
    running = (layer.running_mean.copy(), layer.running_var.copy())
    y = layer(x).data
    expected = ((x - running[0].reshape(bshape)) / np.sqrt(running[1].reshape(bshape) + layer.eps)
                * layer.gamma.data.reshape(bshape) + layer.beta.data.reshape(bshape))
    np.testing.assert_allclose(y, expected, rtol=1e-12)
    np.testing.assert_array_equal(layer.running_mean, running[0])  # evaluation leaves the averages alone
    np.testing.assert_array_equal(layer.running_var, running[1])
    np.testing.assert_allclose(layer(x[:1]).data, y[:1], rtol=1e-12)  # an example's output ignores its batch
    assert not np.allclose(y, numpy_batch_norm(x, layer.gamma.data, layer.beta.data, axes, bshape))
    assert_gradients_match(lambda t: layer(t), x)  # constant statistics: dx = γ dy / √(running_var + ε)


def test_evaluation_before_any_training_batch_is_refused():
    for layer, x in ((BatchNorm1d(3), np.zeros((4, 3))), (BatchNorm2d(2), np.zeros((1, 2, 3, 3)))):
        layer.eval()
        with pytest.raises(RuntimeError, match=f"{type(layer).__name__} is in evaluation mode but has seen no "
                                               "training batch"):
            layer(x)
        layer.train()
        layer(np.random.default_rng(0).normal(size=x.shape))
        layer.eval()
        assert layer(x).shape == x.shape


def test_a_batch_of_one_is_refused_in_training_mode_only():
    layer = BatchNorm1d(3)
    with pytest.raises(ValueError, match=r"x has shape \(1, 3\): one value per feature.*at least 2 examples"):
        layer(np.ones((1, 3)))
    assert layer.num_batches_tracked == 0  # nothing was averaged in
    with pytest.raises(ValueError, match=r"x has shape \(1, 2, 1, 1\): one value per feature"):
        BatchNorm2d(2)(np.ones((1, 2, 1, 1)))
    assert BatchNorm2d(2)(np.ones((1, 2, 1, 2))).shape == (1, 2, 1, 2)  # one image, two positions: a variance
    layer(np.random.default_rng(0).normal(size=(4, 3)))
    layer.eval()
    assert layer(np.ones((1, 3))).shape == (1, 3)


def test_parameters_buffers_and_state_dict_round_trip():
    rng = np.random.default_rng(10)
    model = Sequential(Linear(3, 4, rng=rng), BatchNorm1d(4), Tensor.relu, Linear(4, 2, rng=rng))
    assert [n for n, _ in model.named_parameters()] == ["layers.0.W", "layers.0.b", "layers.1.gamma", "layers.1.beta",
                                                        "layers.3.W", "layers.3.b"]  # buffers are no parameters
    for _ in range(3):
        model(rng.normal(size=(8, 3)))
    state = model.state_dict()
    assert list(state)[-3:] == ["layers.1.running_mean", "layers.1.running_var", "layers.1.num_batches_tracked"]
    state["layers.1.running_mean"][:] = 99.0  # a copy: the model is untouched
    assert np.all(model.layers[1].running_mean != 99.0)
    fresh = Sequential(Linear(3, 4, rng=rng), BatchNorm1d(4), Tensor.relu, Linear(4, 2, rng=rng))
    fresh.load_state_dict(model.state_dict())
    model.eval()
    fresh.eval()
    x = rng.normal(size=(5, 3))
    np.testing.assert_array_equal(fresh(x).data, model(x).data)
    assert fresh.layers[1].num_batches_tracked == 3 and fresh.layers[1].num_batches_tracked.dtype == np.int64


def test_load_state_dict_refuses_bad_buffers_and_leaves_the_layer_unchanged():
    layer = BatchNorm1d(2)
    layer(np.random.default_rng(11).normal(size=(4, 2)))
    before = layer.state_dict()
    for key, value, message in [
        ("running_var", np.array([1.0, -0.5]), r"state\['running_var'\] holds a negative variance"),
        ("running_mean", np.array([np.nan, 0.0]), r"state\['running_mean'\] contains 1 NaN"),
        ("running_mean", np.zeros(3), r"state\['running_mean'\] has shape \(3,\); expected the buffer's shape \(2,\)"),
        ("num_batches_tracked", np.array(2.5), r"state\['num_batches_tracked'\] must be a count of batches"),
        ("num_batches_tracked", np.array(-1), r"state\['num_batches_tracked'\] must be a count of batches"),
    ]:
        with pytest.raises(ValueError, match=message):
            layer.load_state_dict({**before, key: value})
        for name, array in layer.state_dict().items():
            np.testing.assert_array_equal(array, before[name])
    with pytest.raises(ValueError, match=r"missing \['running_var'\]"):
        layer.load_state_dict({k: v for k, v in before.items() if k != "running_var"})


def test_train_and_eval_switch_a_nested_batch_norm():
    inner = BatchNorm2d(2)
    model = Sequential(Sequential(inner))
    model.eval()
    assert not inner.training
    model.train()
    assert inner.training


def test_bad_arguments_are_refused_by_name():
    with pytest.raises(ValueError, match=r"x must have 3 entries along its last axis \(the layer's num_features\)"):
        BatchNorm1d(3)(np.zeros((4, 2)))
    with pytest.raises(ValueError, match=r"x must be a batch of feature vectors of shape \(N, D\).*use BatchNorm2d"):
        BatchNorm1d(3)(np.zeros((4, 3, 2, 2)))
    with pytest.raises(ValueError, match=r"x has 3 channel\(s\).*num_channels=2"):
        BatchNorm2d(2)(np.zeros((4, 3, 2, 2)))
    with pytest.raises(ValueError, match=r"x must be a batch of images of shape \(N, C, H, W\)"):
        BatchNorm2d(2)(np.zeros((4, 2)))
    for momentum in (0.0, -0.1, 1.5, np.nan, True, "0.1"):
        with pytest.raises(ValueError, match=r"momentum must be a number in \(0, 1\]"):
            BatchNorm1d(3, momentum=momentum)
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        BatchNorm2d(3, eps=0.0)
    with pytest.raises(ValueError, match="num_features must be an integer >= 1"):
        BatchNorm1d(0)
    with pytest.raises(ValueError, match="num_channels must be an integer >= 1"):
        BatchNorm2d(2.5)
