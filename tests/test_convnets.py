"""Chapter 5's convolutional residual networks: the input gradient of a convolution as a full correlation with the
flipped kernel (eq. 5.3), global average pooling, the residual block with a projection shortcut, the small CNN with
batch normalization and the small ResNet, and the shipped comparison of the three; the deep dense network of the
learning-rate grid and the shipped grid."""

import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations.data import preprocessing
from implementations.data.datasets import load_digits
from implementations.engine.autograd import Tensor
from implementations.nn import Conv2d, Linear, Sequential, parameter_count
from implementations.nn.conv import ResidualBlock, conv2d, conv2d_input_grad, global_avg_pool2d
from implementations.nn.convnets import (
    basic_block,
    deep_mlp,
    load_batchnorm_grid,
    load_cnn_comparison,
    small_cnn,
    small_resnet,
)
from implementations.nn.normalization import BatchNorm1d, BatchNorm2d
from implementations.preliminaries.gradcheck import numerical_gradient

ROOT = Path(__file__).resolve().parents[1]


def scattered_input_grad(G, K, H, W, stride, padding):
    """∂L/∂x by the chain rule written out: each output's gradient times the kernel, added onto its window."""
    N, F, H_out, W_out = G.shape
    _, C, kh, kw = K.shape
    grad = np.zeros((N, C, H + 2 * padding, W + 2 * padding))
    for i, j in itertools.product(range(H_out), range(W_out)):
        window = (slice(None), slice(None), slice(i * stride, i * stride + kh), slice(j * stride, j * stride + kw))
        grad[window] += np.einsum("nf,fcuv->ncuv", G[:, :, i, j], K)
    return grad[:, :, padding:padding + H, padding:padding + W]


@pytest.mark.parametrize(("H", "W", "kh", "kw", "stride", "padding"),
                         [(7, 6, 3, 3, 1, 1), (9, 7, 3, 2, 2, 1), (8, 8, 3, 3, 2, 0), (10, 9, 4, 3, 3, 2),
                          (5, 5, 1, 1, 2, 0), (6, 5, 5, 5, 1, 2)])
def test_conv_input_grad_is_a_full_correlation_with_the_flipped_kernel(H, W, kh, kw, stride, padding):
    rng = np.random.default_rng(H * 100 + kh * 10 + stride)
    x = Tensor(rng.normal(size=(2, 3, H, W)), requires_grad=True)
    K = rng.normal(size=(4, 3, kh, kw))
    out = conv2d(x, Tensor(K), stride=stride, padding=padding)
    G = rng.normal(size=out.shape)
    (out * G).sum().backward()
    taught = conv2d_input_grad(G, K, (H, W), stride=stride, padding=padding)
    np.testing.assert_allclose(taught, x.grad, rtol=1e-12, atol=1e-12)  # the engine
    np.testing.assert_allclose(taught, scattered_input_grad(G, K, H, W, stride, padding), rtol=1e-12, atol=1e-12)


def test_conv_input_grad_matches_finite_differences():
    rng = np.random.default_rng(3)
    x0, K, = rng.normal(size=(1, 2, 6, 5)), rng.normal(size=(3, 2, 3, 3))
    G = rng.normal(size=(1, 3, 3, 3))  # stride 2, padding 1: (6 + 2 − 3) // 2 + 1 = 3, (5 + 2 − 3) // 2 + 1 = 3

    def loss(x):
        return float(np.sum(G * conv2d(Tensor(x), Tensor(K), stride=2, padding=1).data))

    np.testing.assert_allclose(conv2d_input_grad(G, K, (6, 5), stride=2, padding=1), numerical_gradient(loss, x0),
                               rtol=1e-7, atol=1e-8)


def test_classic_wrong_input_gradients_differ():
    """Without the flip, or without spreading Ā out by the stride, the gradient is wrong."""
    rng = np.random.default_rng(5)
    x = Tensor(rng.normal(size=(1, 2, 7, 7)), requires_grad=True)
    K = rng.normal(size=(3, 2, 3, 3))
    out = conv2d(x, Tensor(K), stride=1, padding=1)
    G = rng.normal(size=out.shape)
    (out * G).sum().backward()
    unflipped = conv2d_input_grad(G, K[:, :, ::-1, ::-1], (7, 7), stride=1, padding=1)  # flips back: no flip
    assert np.abs(unflipped - x.grad).max() > 0.1
    x2 = Tensor(x.data, requires_grad=True)
    out2 = conv2d(x2, Tensor(K), stride=2, padding=1)  # (1, 3, 4, 4)
    G2 = rng.normal(size=out2.shape)
    (out2 * G2).sum().backward()
    flipped = K[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)
    packed = conv2d(Tensor(np.pad(G2, ((0, 0), (0, 0), (2, 2), (2, 2)))), Tensor(flipped)).data  # (1, 2, 6, 6)
    packed = packed[:, :, 1:, 1:]  # the padding's share dropped: rows and columns 0..4 of x
    assert np.abs(packed - x2.grad[:, :, :5, :5]).max() > 0.1


def test_conv_input_grad_refuses_a_gradient_of_another_shape_by_name():
    K = np.ones((3, 2, 3, 3))
    with pytest.raises(ValueError, match="grad_out"):
        conv2d_input_grad(np.ones((1, 3, 5, 5)), K, (6, 6), stride=1, padding=1)  # 6 x 6 expected
    with pytest.raises(ValueError, match="grad_out"):
        conv2d_input_grad(np.ones((1, 4, 6, 6)), K, (6, 6), stride=1, padding=1)  # 3 kernels, not 4
    with pytest.raises(ValueError, match="input_size"):
        conv2d_input_grad(np.ones((1, 3, 6, 6)), K, (6,), stride=1, padding=1)


def test_global_avg_pool2d_is_the_channel_mean_and_its_gradient_is_spread_evenly():
    x = np.random.default_rng(0).normal(size=(3, 4, 5, 2))
    np.testing.assert_allclose(global_avg_pool2d(Tensor(x)).data, x.mean(axis=(2, 3)), rtol=1e-13)
    assert_gradients_match(global_avg_pool2d, x)
    t = Tensor(x, requires_grad=True)
    global_avg_pool2d(t).sum().backward()
    np.testing.assert_allclose(t.grad, np.full(x.shape, 1 / 10))  # 1 / (H·W) to every position
    with pytest.raises(ValueError, match="x"):
        global_avg_pool2d(Tensor(x[0]))


def test_a_projection_block_adds_the_projection_to_the_branch_and_its_gradients_match():
    rng = np.random.default_rng(1)
    branch = Conv2d(2, 4, 3, stride=2, padding=1, rng=rng)
    projection = Conv2d(2, 4, 1, stride=2, rng=rng)
    block = ResidualBlock(branch, projection=projection)
    x = rng.normal(size=(2, 2, 6, 6))
    np.testing.assert_allclose(block(x).data, branch(x).data + projection(x).data, rtol=1e-13)
    assert len(block.parameters()) == 4  # the branch's weight and bias, the projection's weight and bias
    assert_gradients_match(lambda t: block(t), x)
    wrong = ResidualBlock(branch, projection=Conv2d(2, 4, 1, rng=rng))  # stride 1: a 6 x 6 shortcut, 3 x 3 branch
    with pytest.raises(ValueError, match="branch maps x"):
        wrong(x)
    with pytest.raises(TypeError, match="projection"):
        ResidualBlock(branch, projection="conv")


def test_basic_block_projects_only_where_the_shape_changes():
    rng = np.random.default_rng(2)
    same, down = basic_block(4, 4, rng=rng), basic_block(4, 8, stride=2, rng=rng)
    assert same.layers[0].projection is None
    projection = down.layers[0].projection
    assert projection.layers[0].kernel_size == (1, 1) and projection.layers[0].stride == 2
    assert isinstance(projection.layers[1], BatchNorm2d)
    x = rng.normal(size=(3, 4, 6, 6))
    assert same(x).shape == (3, 4, 6, 6) and down(x).shape == (3, 8, 3, 3)
    assert np.all(down(x).data >= 0)  # the ReLU after the sum
    # the block is ReLU(P(x) + F(x)): rebuilt by hand from its parts (training mode: batch statistics)
    block = down.layers[0]
    manual = np.maximum(block.projection(x).data + block.branch(x).data, 0.0)
    np.testing.assert_allclose(down(x).data, manual, rtol=1e-12)


def test_basic_block_gradients_match_finite_differences():
    rng = np.random.default_rng(4)
    block = basic_block(2, 3, stride=2, rng=rng)
    x0 = rng.normal(size=(3, 2, 4, 4))
    G = rng.normal(size=(3, 3, 2, 2))
    weight = block.layers[0].branch.layers[0].weight

    def loss_of_weight(w):
        weight.data = w
        return float(np.sum(G * block(x0).data))

    w0 = weight.data.copy()
    x = Tensor(x0, requires_grad=True)
    (block(x) * G).sum().backward()
    engine_x, engine_w = x.grad, weight.grad.copy()
    np.testing.assert_allclose(engine_w, numerical_gradient(loss_of_weight, w0), rtol=1e-5, atol=1e-7)
    weight.data = w0
    np.testing.assert_allclose(engine_x, numerical_gradient(lambda v: float(np.sum(G * block(v).data)), x0),
                               rtol=1e-5, atol=1e-7)


def test_small_resnet_has_a_stem_two_blocks_average_pooling_and_a_dense_head():
    net = small_resnet(rng=np.random.default_rng(0))
    assert parameter_count(net) == 5122
    assert net(np.zeros((2, 1, 8, 8)) + np.arange(64).reshape(8, 8)).shape == (2, 10)
    assert net.layers[-2] is global_avg_pool2d and isinstance(net.layers[-1], Linear)
    blocks = [layer.layers[0] for layer in net.layers if isinstance(layer, Sequential)]
    assert [b.projection is None for b in blocks] == [True, False]
    wider = small_resnet(rng=np.random.default_rng(0), channels=(4, 8, 16))
    assert wider(np.ones((2, 1, 8, 8)) * np.arange(8)).shape == (2, 10)
    with pytest.raises(ValueError, match="channels"):
        small_resnet(rng=np.random.default_rng(0), channels=())


def test_small_cnn_is_the_chapters_network_and_batch_norm_replaces_the_biases():
    plain, normed = small_cnn(rng=np.random.default_rng(11)), small_cnn(rng=np.random.default_rng(11), batch_norm=True)
    assert parameter_count(plain) == 1898 and parameter_count(normed) == 1922  # 24 biases → 2·(8 + 16) γ and β
    np.testing.assert_array_equal(plain.layers[0].weight.data, normed.layers[0].weight.data)
    assert normed.layers[0].bias is None and isinstance(normed.layers[1], BatchNorm2d)
    x = np.random.default_rng(0).uniform(size=(4, 1, 8, 8))
    assert plain(x).shape == normed(x).shape == (4, 10)
    assert_gradients_match(lambda t: plain(t), x, rtol=1e-4, atol=1e-6)


def test_the_shipped_comparison_is_on_the_chapters_test_split():
    results, y_test, config = load_cnn_comparison()
    X, y = load_digits()
    _, _, _, expected = preprocessing.train_test_split(X.reshape(-1, 64), y, test_fraction=0.25,
                                                       rng=np.random.default_rng(config["split_seeds"][0]),
                                                       stratify=True)
    np.testing.assert_array_equal(y_test, expected.astype(int))
    assert set(results) == {"CNN", "CNN with batch norm", "ResNet"}
    for runs in results.values():
        assert sorted(runs) == config["seeds"]
        for run in runs.values():
            assert run["test_correct"].shape == y_test.shape and run["test_correct"].dtype == bool
            assert run["train_loss"].shape == run["val_accuracy"].shape == (config["epochs"],)
            assert 1 <= run["epoch_kept"] <= config["epochs"]
    assert {runs[config["seeds"][0]]["parameters"] for runs in results.values()} == {1898, 1922, 5122}


@pytest.mark.parametrize("loader, name, target", [
    (load_cnn_comparison, "digits_cnn_comparison.npz", "make cnn-comparison"),
    (load_batchnorm_grid, "digits_batchnorm_grid.npz", "make batchnorm-grid"),
], ids=["CNN comparison", "batch-norm grid"])
def test_a_loader_of_shipped_results_refuses_a_damaged_file(tmp_path, loader, name, target):
    import hashlib
    bad = tmp_path / name
    bad.write_bytes(b"not an archive")
    (tmp_path / "SHA256SUMS").write_text(f"{hashlib.sha256(bad.read_bytes()).hexdigest()}  {bad.name}\n")
    with pytest.raises(ValueError, match=target):
        loader(data_dir=tmp_path)
    (tmp_path / "SHA256SUMS").write_text(f"{'0' * 64}  {bad.name}\n")
    with pytest.raises(ValueError, match="SHA-256"):
        loader(data_dir=tmp_path)


# --- the learning-rate grid of the batch-norm section --------------------------------------------------------------

def test_deep_mlp_with_and_without_batch_norm_starts_from_the_same_weights():
    plain = deep_mlp(rng=np.random.default_rng(3), batch_norm=False)
    normed = deep_mlp(rng=np.random.default_rng(3), batch_norm=True)
    dense = [layer for layer in plain.layers if isinstance(layer, Linear)]
    assert len(dense) == 5 and [layer.W.shape for layer in dense] == [(64, 32), *[(32, 32)] * 3, (32, 10)]
    assert [type(layer).__name__ for layer in normed.layers[:3]] == ["Linear", "BatchNorm1d", "function"]
    assert sum(isinstance(layer, BatchNorm1d) for layer in normed.layers) == 4
    for a, b in zip(dense, [layer for layer in normed.layers if isinstance(layer, Linear)], strict=True):
        np.testing.assert_array_equal(a.W.data, b.W.data)
    x = np.random.default_rng(0).normal(size=(6, 64))
    assert plain(x).shape == normed(x).shape == (6, 10)


def test_the_shipped_grid_is_what_the_script_trains():
    sys.path.insert(0, str(ROOT / "tools"))
    import train_batchnorm_grid as script

    final_loss, spread, config = load_batchnorm_grid()
    assert config["learning_rates"] == pytest.approx(np.logspace(-1, 1, 5).tolist())
    assert sorted(final_loss) == sorted(spread) == [(bn, s) for bn in (False, True) for s in config["seeds"]]
    assert all(v.shape == (5,) for v in [*final_loss.values(), *spread.values()])
    X, y = script.standardized_training_set(config)
    assert X.shape == (1078, 64) and np.allclose(X.mean(axis=0), 0)
    # one healthy run of each kind, retrained: the same numbers (the same machine, or the last digits of another CPU)
    for batch_norm, rate in [(False, 1), (True, 2)]:
        loss, width = script.final_loss(X, y, batch_norm=batch_norm, lr=config["learning_rates"][rate],
                                        seed=config["seeds"][0], config=config)
        assert loss == pytest.approx(final_loss[batch_norm, config["seeds"][0]][rate], rel=1e-6)
        assert width == pytest.approx(spread[batch_norm, config["seeds"][0]][rate], rel=1e-6)
    # the file's stopped runs are NaN in both arrays, and only there
    for key in final_loss:
        np.testing.assert_array_equal(np.isnan(final_loss[key]), np.isnan(spread[key]))
