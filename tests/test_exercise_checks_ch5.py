"""The exercise checks of chapter 5, convolutional and residual networks, accept a right answer and reject the classic
wrong ones.

The output size of a convolution, a 1×1 convolution written as a dense layer, the backward pass of batch normalization,
the receptive field of a stack of layers and the kernel gradient of a convolution: for each, correct solutions must
print ``pass`` and every listed mistake must raise ``ExerciseCheckFailed`` (a float where an int is asked for
included). The references inside the checks are tested too: against counting the positions of a window one by one,
an explicit loop over pixels, central differences of the layer's output (or of the loss, for the kernel), and the input
pixels that a gradient reaches through a real stack of convolutions and poolings (and index sets followed back by
hand).
"""

import math
import re

import numpy as np
import pytest

from implementations.engine.autograd import Tensor
from implementations.nn import conv
from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed
from implementations.preliminaries.gradcheck import numerical_gradient

# --- right answers ----------------------------------------------------------------------------------------------


def conv_output_size(n, k, padding, stride):
    return (n + 2 * padding - k) // stride + 1


def conv1x1_as_dense(x, kernel, bias):
    N, C, H, W = x.shape
    rows = np.moveaxis(x, 1, -1).reshape(N * H * W, C)  # (N·H·W, C): one row per pixel
    out = rows @ kernel[:, :, 0, 0].T + bias  # (N·H·W, F)
    return np.moveaxis(out.reshape(N, H, W, -1), -1, 1)  # (N, F, H, W)


def _batchnorm(x, gamma, grad_out, eps, *, ddof=0, through_statistics=True, mean_term=True, x_hat_term=True,
               gamma_with_x_hat=True, with_eps=True, averaged=False):
    N = len(x)
    mu = x.mean(axis=0)
    var = x.var(axis=0, ddof=ddof)
    std = np.sqrt(var + (eps if with_eps else 0.0))
    x_hat = (x - mu) / std
    g = grad_out
    if not through_statistics:
        grad_x = gamma * g / std
    else:
        grad_x = gamma / std * (g - (g.mean(axis=0) if mean_term else 0.0)
                                - (x_hat * (g * x_hat).mean(axis=0) if x_hat_term else 0.0))
    grad_gamma = (g * x_hat if gamma_with_x_hat else g).sum(axis=0)
    grad_beta = g.sum(axis=0)
    if averaged:
        grad_gamma, grad_beta = grad_gamma / N, grad_beta / N
    return grad_x, grad_gamma, grad_beta


def batchnorm_backward(x, gamma, grad_out, eps):
    return _batchnorm(x, gamma, grad_out, eps)


def _staged_batchnorm_backward(x, gamma, grad_out, eps):
    """The chain rule one stage at a time, through σ² and μ, as in the computational graph."""
    N = len(x)
    mu = x.mean(axis=0)
    centred = x - mu
    var = (centred**2).mean(axis=0)
    inv_std = 1.0 / np.sqrt(var + eps)
    x_hat = centred * inv_std
    d_x_hat = grad_out * gamma
    d_var = np.sum(d_x_hat * centred, axis=0) * -0.5 * inv_std**3
    d_mu = -np.sum(d_x_hat * inv_std, axis=0) - 2.0 * d_var * centred.mean(axis=0)
    grad_x = d_x_hat * inv_std + d_var * 2.0 * centred / N + d_mu / N
    return [grad_x, np.einsum("nd,nd->d", grad_out, x_hat), grad_out.sum(axis=0)]  # a list is fine too


def _receptive(layers, *, jump_first=False, stride_now=False, stride_before=False):
    r, j, s_prev = 1, 1, 1
    for k, s in layers:
        if jump_first:
            j *= s
        r += (k - 1) * (s if stride_now else s_prev if stride_before else j)
        if not jump_first:
            j *= s
        s_prev = s
    return r


def receptive_field(layers):
    return _receptive(layers)


def _kernel_grad(x, grad_out, kernel_size, stride, padding, *, flipped=False, padded=True, batch="sum"):
    """Σ_n Σ_{i,j} grad_out[n, f, i, j] · x̃[n, c, s·i + u, s·j + v], one (u, v) of the kernel at a time."""
    k, p = kernel_size, (padding if padded else 0)
    x_pad = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    if batch == "first":
        x_pad, grad_out = x_pad[:1], grad_out[:1]
    _, F, H_out, W_out = grad_out.shape
    grad = np.zeros((F, x.shape[1], k, k))
    for u in range(k):
        for v in range(k):
            window = x_pad[:, :, u:u + stride * H_out:stride, v:v + stride * W_out:stride]  # (N, C, H_out, W_out)
            grad[:, :, u, v] = np.einsum("nfij,ncij->fc", grad_out, window)
    if batch == "mean":
        grad = grad / len(x)
    return grad[:, :, ::-1, ::-1] if flipped else grad


def conv2d_kernel_grad(x, grad_out, kernel_size, stride, padding):
    return _kernel_grad(x, grad_out, kernel_size, stride, padding)


def _kernel_grad_spread(x, grad_out, kernel_size, stride, padding):
    """The padded input correlated with Ā↑, the output gradient spread out by the stride."""
    N, F, H_out, W_out = grad_out.shape
    x_pad = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    spread = np.zeros((N, F, stride * (H_out - 1) + 1, stride * (W_out - 1) + 1))
    spread[:, :, ::stride, ::stride] = grad_out
    a, b = spread.shape[2:]
    return np.array([[[[np.sum(spread[:, f] * x_pad[:, c, u:u + a, v:v + b]) for v in range(kernel_size)]
                       for u in range(kernel_size)] for c in range(x.shape[1])] for f in range(F)])


RIGHT = [conv_output_size, conv1x1_as_dense, batchnorm_backward, receptive_field, conv2d_kernel_grad]

OTHER_RIGHT = [
    ("conv_output_size", "math.floor of the true quotient",
     lambda n, k, padding, stride: math.floor((n + 2 * padding - k) / stride) + 1),
    ("conv_output_size", "counting the window's start positions",
     lambda n, k, padding, stride: len(range(0, n + 2 * padding - k + 1, stride))),
    ("conv1x1_as_dense", "einsum over the channel axis",
     lambda x, kernel, bias: np.einsum("nchw,fc->nfhw", x, kernel[:, :, 0, 0]) + bias[:, None, None]),
    ("conv1x1_as_dense", "a tensordot, channels last then moved back",
     lambda x, kernel, bias: np.moveaxis(np.tensordot(x, kernel[:, :, 0, 0], axes=([1], [1])) + bias, 3, 1)),
    ("batchnorm_backward", "stage by stage through σ² and μ, a list returned", _staged_batchnorm_backward),
    ("conv2d_kernel_grad", "the padded input correlated with the stride-spread gradient", _kernel_grad_spread),
    ("conv2d_kernel_grad", "the engine's gradient, im2col rows times the output gradient",
     lambda x, g, k, s, p: np.einsum("nijr,nfij->fr", conv.im2col(Tensor(x), k, stride=s, padding=p).data, g)
     .reshape(g.shape[1], x.shape[1], k, k)),
    ("receptive_field", "the sum of (k − 1) times the product of the earlier strides",
     lambda layers: 1 + sum((k - 1) * math.prod(s for _, s in layers[:i]) for i, (k, _) in enumerate(layers))),
]


def _straight_reshape(x, kernel, bias):
    N, C, H, W = x.shape
    out = x.reshape(N * H * W, C) @ kernel[:, :, 0, 0].T + bias  # rows mix channels and pixels
    return np.moveaxis(out.reshape(N, H, W, -1), -1, 1)


def _dense_channels_last(x, kernel):
    """(N, F, H, W) without the bias, by the right matrix product."""
    return conv1x1_as_dense(x, kernel, np.zeros(len(kernel)))


WRONG = {
    "conv_output_size": [
        ("no floor: the true quotient", lambda n, k, padding, stride: (n + 2 * padding - k) / stride + 1),
        ("ceil instead of floor", lambda n, k, padding, stride: math.ceil((n + 2 * padding - k) / stride) + 1),
        ("padding counted once", lambda n, k, padding, stride: (n + padding - k) // stride + 1),
        ("padding forgotten", lambda n, k, padding, stride: (n - k) // stride + 1),
        ("the + 1 forgotten", lambda n, k, padding, stride: (n + 2 * padding - k) // stride),
        ("divided before subtracting k", lambda n, k, padding, stride: (n + 2 * padding) // stride - k + 1),
        ("a float: math.floor of a float quotient written as //", lambda n, k, padding, stride: (
            (n + 2 * padding - k) / stride // 1 + 1)),
        ("a float: the right number as 28.0", lambda n, k, padding, stride: float(conv_output_size(n, k, padding,
                                                                                                  stride))),
    ],
    "conv1x1_as_dense": [
        ("reshaped to (N·H·W, C) without moving the channel axis", _straight_reshape),
        ("the kernel untransposed", lambda x, kernel, bias: np.moveaxis(
            (np.moveaxis(x, 1, -1).reshape(-1, x.shape[1]) @ kernel[:, :, 0, 0] + bias)
            .reshape(x.shape[0], x.shape[2], x.shape[3], -1), -1, 1)),
        ("the result reshaped to (N, F, H, W) without moving the axis back", lambda x, kernel, bias: (
            np.moveaxis(x, 1, -1).reshape(-1, x.shape[1]) @ kernel[:, :, 0, 0].T + bias)
            .reshape(x.shape[0], -1, x.shape[2], x.shape[3])),
        ("the bias forgotten", lambda x, kernel, bias: _dense_channels_last(x, kernel)),
        ("the bias added along the last axis", lambda x, kernel, bias: _dense_channels_last(x, kernel) + bias),
        ("the bias added along the batch axis",
         lambda x, kernel, bias: _dense_channels_last(x, kernel) + bias[:, None, None, None]),
    ],
    "batchnorm_backward": [
        ("μ and σ² treated as constants", lambda *a: _batchnorm(*a, through_statistics=False)),
        ("the unbiased variance, N − 1", lambda *a: _batchnorm(*a, ddof=1)),
        ("the mean of the gradient dropped", lambda *a: _batchnorm(*a, mean_term=False)),
        ("the x̂ ⊙ mean(g ⊙ x̂) term dropped", lambda *a: _batchnorm(*a, x_hat_term=False)),
        ("grad_gamma without x̂: grad_beta", lambda *a: _batchnorm(*a, gamma_with_x_hat=False)),
        ("ε forgotten", lambda *a: _batchnorm(*a, with_eps=False)),
        ("grad_gamma and grad_beta averaged over the batch", lambda *a: _batchnorm(*a, averaged=True)),
        ("grad_x and grad_gamma swapped", lambda *a: (lambda gx, gg, gb: (gg, gx, gb))(*batchnorm_backward(*a))),
        ("grad_beta forgotten", lambda *a: batchnorm_backward(*a)[:2]),
    ],
    "receptive_field": [
        ("the sum of the kernel sizes", lambda layers: sum(k for k, _ in layers)),
        ("strides ignored: 1 + Σ(k − 1)", lambda layers: 1 + sum(k - 1 for k, _ in layers)),
        ("the current layer's stride instead of the product of the earlier ones",
         lambda layers: _receptive(layers, stride_now=True)),
        ("the previous layer's stride alone", lambda layers: _receptive(layers, stride_before=True)),
        ("the jump updated before it is used", lambda layers: _receptive(layers, jump_first=True)),
        ("the product of the kernel sizes", lambda layers: math.prod(k for k, _ in layers)),
        ("a float: the right number as 7.0", lambda layers: float(receptive_field(layers))),
    ],
    "conv2d_kernel_grad": [
        ("the kernel flipped", lambda *a: _kernel_grad(*a, flipped=True)),
        ("the input not padded", lambda *a: _kernel_grad(*a, padded=False)),
        ("the channels swapped: shape (C, F, k, k)", lambda *a: np.swapaxes(conv2d_kernel_grad(*a), 0, 1)),
        ("the sum over the batch missing: the first example only", lambda *a: _kernel_grad(*a, batch="first")),
        ("averaged over the batch", lambda *a: _kernel_grad(*a, batch="mean")),
        ("the stride ignored", lambda x, g, k, s, p: _kernel_grad(x, g, k, 1, p)),
    ],
}


def test_the_checks_are_exported_between_chapters_4_and_6():
    names = exercise_checks.__all__
    start = names.index("num_weights") + 1
    assert names[start: start + len(RIGHT)] == [f.__name__ for f in RIGHT]
    assert names[start + len(RIGHT)] == "gru_step"


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    out = capsys.readouterr().out
    assert out.startswith(f"pass: {solution.__name__}")
    assert "disagrees" not in out and "not implemented" not in out


@pytest.mark.parametrize(("check", "how", "solution"), OTHER_RIGHT, ids=[f"{c}: {h}" for c, h, _ in OTHER_RIGHT])
def test_another_right_answer_passes(check, how, solution, capsys):
    solution.__name__ = check
    getattr(exercise_checks, check)(solution, rng=np.random.default_rng(1))
    out = capsys.readouterr().out
    assert out.startswith(f"pass: {check}")
    assert out.count("pass:") == (3 if check == "batchnorm_backward" else 1)


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
    assert f"pass: {check} agrees" not in capsys.readouterr().out  # one part of batchnorm_backward may pass


# --- what the messages teach ----------------------------------------------------------------------------------------

def test_an_untransposed_kernel_is_reported_as_the_error_it_raises():
    def conv1x1_as_dense(images, K, b):
        rows = np.moveaxis(images, 1, -1).reshape(-1, images.shape[1])
        return rows @ K[:, :, 0, 0] + b

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)conv1x1_as_dense raised ValueError.*images = array") as caught:
        exercise_checks.conv1x1_as_dense(conv1x1_as_dense, rng=np.random.default_rng(0))
    assert isinstance(caught.value.__cause__, ValueError)


def test_the_batchnorm_check_names_the_result_that_disagrees_and_the_readers_arguments():
    def batchnorm_backward(inputs, scale, upstream, eps):
        return _batchnorm(inputs, scale, upstream, eps, gamma_with_x_hat=False)

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)batchnorm_backward \(grad_gamma, its second result\) "
                                                  r"disagrees.*inputs = array.*upstream = array"):
        exercise_checks.batchnorm_backward(batchnorm_backward, rng=np.random.default_rng(0))


def _printed_numbers(shown):
    """The numbers of an array as a failing check prints it ("array of shape (3, 2): array([[...]])")."""
    return np.array([float(v) for v in re.findall(r"-?\d+(?:\.\d*)?(?:e[-+]?\d+)?", shown.split(": ", 1)[1])])


DISAGREEING_BATCHNORM = [(mistake, wrong) for mistake, wrong in WRONG["batchnorm_backward"]
                         if mistake not in ("grad_x and grad_gamma swapped", "grad_beta forgotten")]  # shape, count


@pytest.mark.parametrize(("mistake", "wrong"), DISAGREEING_BATCHNORM, ids=[m for m, _ in DISAGREEING_BATCHNORM])
@pytest.mark.parametrize("seed", [*range(12), 2024])
def test_the_batchnorm_counterexample_shows_the_mistake_in_its_digits(mistake, wrong, seed):
    """The input a failing check shows has a true result well away from 0 (a batch of 2 has ∂L/∂x ≈ 0, printed as
    zeros), and the mistake moves the printed digits by at least 1 % of that result (forgetting ε must show too)."""
    wrong.__name__ = "batchnorm_backward"
    with np.errstate(all="ignore"), pytest.raises(ExerciseCheckFailed, match="disagrees") as caught:
        exercise_checks.batchnorm_backward(wrong, rng=np.random.default_rng(seed))
    shown = re.search(r"(?s)\n  yours:    (.*?)\n  expected: (.*?)\n  largest difference", str(caught.value))
    yours, expected = _printed_numbers(shown[1]), _printed_numbers(shown[2])
    assert yours.shape == expected.shape
    largest = np.abs(expected).max()
    assert largest >= 0.02, f"the true result prints as about 0: {shown[2]}"
    assert np.abs(yours - expected).max() >= max(1e-3, 0.01 * largest), f"yours {shown[1]}, expected {shown[2]}"


def test_the_batchnorm_check_says_how_many_results_to_return():
    def batchnorm_backward(x, gamma, grad_out, eps):
        return _batchnorm(x, gamma, grad_out, eps)[:2]

    with pytest.raises(ExerciseCheckFailed,
                       match=r"expected 3 results \(grad_x, grad_gamma, grad_beta\); received 2 results"):
        exercise_checks.batchnorm_backward(batchnorm_backward, rng=np.random.default_rng(0))


def test_the_poisson_check_still_asks_for_two_results():
    def poisson_gradient_hessian(X, y, w):
        return X.T @ y

    with pytest.raises(ExerciseCheckFailed, match=r"expected 2 results \(grad, H\); received ndarray"):
        exercise_checks.poisson_gradient_hessian(poisson_gradient_hessian, rng=np.random.default_rng(0))


# --- the references and their inputs ------------------------------------------------------------------------------

def _count_windows(n, k, padding, stride):
    count, start = 0, 0
    while start + k <= n + 2 * padding:  # the window [start, start + k) inside the padded axis
        count, start = count + 1, start + stride
    return count


@pytest.mark.parametrize("size", range(1, 41))
def test_the_size_reference_counts_the_windows(size):
    n, k, padding, stride = exercise_checks.ch5._conv_size_inputs(np.random.default_rng(size), size)
    assert conv.conv_output_size(n, k, stride=stride, padding=padding) == _count_windows(n, k, padding, stride)


def test_the_size_reference_counts_the_windows_on_every_small_case():
    for n in range(1, 9):
        for padding in range(3):
            for k in range(1, n + 2 * padding + 1):
                for stride in range(1, 5):
                    assert conv.conv_output_size(n, k, stride=stride, padding=padding) == _count_windows(
                        n, k, padding, stride), (n, k, padding, stride)


@pytest.mark.parametrize("seed", [0, 11, 2024])
def test_the_size_inputs_hold_every_case_that_tells_a_mistake(seed):
    rng = np.random.default_rng(seed)
    inputs = [exercise_checks.ch5._conv_size_inputs(rng, size) for size in range(1, 21)]
    assert all(1 <= k <= n + 2 * p and n >= 1 and p >= 0 and s >= 1 for n, k, p, s in inputs)
    assert all(isinstance(v, int) for case in inputs for v in case)
    assert sum(k == n + 2 * p for n, k, p, _ in inputs) >= 3  # the window fills the padded axis
    assert sum(p == 0 for _, _, p, _ in inputs) >= 3
    assert sum(p > 0 for _, _, p, _ in inputs) >= 3
    assert sum(s > 1 and (n + 2 * p - k) % s != 0 for n, k, p, s in inputs) >= 5  # the floor matters


def _conv1x1_by_pixels(x, kernel, bias):
    N, _, H, W = x.shape
    out = np.empty((N, len(kernel), H, W))
    for n in range(N):
        for i in range(H):
            for j in range(W):
                out[n, :, i, j] = kernel[:, :, 0, 0] @ x[n, :, i, j] + bias  # (F,): one dense layer per pixel
    return out


@pytest.mark.parametrize("size", [1, 2, 5, 12, 20])
def test_the_conv1x1_reference_is_a_dense_layer_at_every_pixel(size):
    x, kernel, bias = exercise_checks.ch5._conv1x1_inputs(np.random.default_rng(size), size)
    N, C, H, W = x.shape
    F = len(kernel)
    assert kernel.shape == (F, C, 1, 1) and bias.shape == (F,)
    assert C != F and H != W
    np.testing.assert_allclose(exercise_checks.ch5._conv1x1_reference(x, kernel, bias),
                               _conv1x1_by_pixels(x, kernel, bias), rtol=1e-12, atol=1e-12)


def _batchnorm_loss(x, gamma, beta, grad_out, eps):
    """L = Σ grad_out ⊙ y with y the layer's output in training mode: ∂L/∂y = grad_out."""
    x_hat = (x - x.mean(axis=0)) / np.sqrt(x.var(axis=0) + eps)
    return np.sum(grad_out * (gamma * x_hat + beta))


@pytest.mark.parametrize("size", [1, 3, 4, 8, 13, 20])
def test_the_batchnorm_reference_agrees_with_central_differences(size):
    x, gamma, grad_out, eps = exercise_checks.ch5._batchnorm_inputs(np.random.default_rng(size), size)
    beta = np.random.default_rng(size + 100).normal(size=gamma.shape)  # any β: the gradients do not depend on it
    grad_x, grad_gamma, grad_beta = exercise_checks.ch5._batchnorm_backward_reference(x, gamma, grad_out, eps)
    assert grad_x.shape == x.shape and grad_gamma.shape == grad_beta.shape == gamma.shape
    numeric = [numerical_gradient(lambda v: _batchnorm_loss(v, gamma, beta, grad_out, eps), x),
               numerical_gradient(lambda v: _batchnorm_loss(x, v, beta, grad_out, eps), gamma),
               numerical_gradient(lambda v: _batchnorm_loss(x, gamma, v, grad_out, eps), beta)]
    for analytic, finite in zip((grad_x, grad_gamma, grad_beta), numeric, strict=True):
        np.testing.assert_allclose(analytic, finite, rtol=1e-5, atol=1e-6)


def test_the_batchnorm_inputs_vary_the_batch_from_three_examples():
    rng = np.random.default_rng(0)
    inputs = [exercise_checks.ch5._batchnorm_inputs(rng, size) for size in range(1, 21)]
    shapes = [x.shape for x, *_ in inputs]
    assert min(N for N, _ in shapes) == 3  # a batch of 2 has ∂L/∂x ≈ 0 whatever the mistake
    assert len({N for N, _ in shapes}) >= 5 and len({D for _, D in shapes}) >= 3
    assert all(0.5 <= np.abs(gamma).min() and np.abs(gamma).max() <= 2.0 for _, gamma, _, _ in inputs)
    assert all(0.05 <= eps / x.var(axis=0).min() <= 0.2 for x, _, _, eps in inputs)


def _receptive_field_by_index_sets(layers):
    """Follow the inputs of output 0 of the last layer back, layer by layer, as sets of indices (1-D)."""
    indices = {0}
    for k, s in reversed(layers):
        indices = {i * s + u for i in indices for u in range(k)}  # output i of a layer reads inputs i·s, …, i·s + k − 1
    return max(indices) - min(indices) + 1


@pytest.mark.parametrize("size", range(1, 21))
def test_the_receptive_field_reference_agrees_with_index_sets(size):
    (layers,) = exercise_checks.ch5._receptive_field_inputs(np.random.default_rng(size), size)
    assert len(layers) == min(size, 6)
    assert int(conv.receptive_field(layers)[0][-1]) == _receptive_field_by_index_sets(layers)


STACKS = [  # ("conv" or "pool", kernel_size, stride), input side first, and an image side the stack fits
    ([("conv", 3, 1), ("conv", 3, 1), ("pool", 2, 2), ("conv", 3, 1), ("pool", 2, 2)], 32),
    ([("conv", 7, 2), ("pool", 3, 2), ("conv", 3, 1)], 35),
    ([("conv", 1, 2), ("conv", 3, 1)], 20),  # a kernel smaller than its stride: a footprint with holes
    ([("conv", 5, 3), ("conv", 2, 2), ("conv", 3, 1)], 40),
]


@pytest.mark.parametrize(("stack", "n"), STACKS)
def test_the_receptive_field_is_the_footprint_of_a_gradient(stack, n):
    """The input pixels that output (0, 0) of the last layer depends on: where its gradient is nonzero.

    All-ones kernels on an all-ones image make every value of a layer equal, so that a max-pooling window's tied
    maxima share the gradient and no input pixel is left out by chance.
    """
    x = Tensor(np.ones((1, 1, n, n)), requires_grad=True)
    h = x
    for kind, k, s in stack:
        h = conv.conv2d(h, np.ones((1, 1, k, k)), stride=s) if kind == "conv" else conv.max_pool2d(h, k, stride=s)
    grad = np.zeros(h.shape)
    grad[0, 0, 0, 0] = 1.0
    h.backward(grad)
    rows = np.flatnonzero(np.abs(x.grad[0, 0]).sum(axis=1))
    cols = np.flatnonzero(np.abs(x.grad[0, 0]).sum(axis=0))
    r = rows.max() - rows.min() + 1
    assert r == cols.max() - cols.min() + 1 < n  # a square, inside the image
    assert r == conv.receptive_field([(k, s) for _, k, s in stack])[0][-1]


@pytest.mark.parametrize("size", range(1, 21))
def test_the_kernel_grad_reference_agrees_with_central_differences(size):
    x, grad_out, k, stride, padding = exercise_checks.ch5._kernel_grad_inputs(np.random.default_rng(size), size)
    F, C = grad_out.shape[1], x.shape[1]

    def loss(K):
        return np.sum(grad_out * conv.conv2d_loop(Tensor(x), Tensor(K), stride=stride, padding=padding).data)

    K0 = np.random.default_rng(size + 50).normal(size=(F, C, k, k))
    np.testing.assert_allclose(exercise_checks.ch5._kernel_grad_reference(x, grad_out, k, stride, padding),
                               numerical_gradient(loss, K0), rtol=1e-6, atol=1e-7)


def test_the_kernel_grad_inputs_hold_every_case_that_tells_a_mistake():
    rng = np.random.default_rng(0)
    inputs = [exercise_checks.ch5._kernel_grad_inputs(rng, size) for size in range(1, 21)]
    assert all(x.shape[1] != g.shape[1] and x.shape[2] != x.shape[3] for x, g, *_ in inputs)
    assert {len(x) for x, *_ in inputs} == {1, 2, 3} and {k for _, _, k, _, _ in inputs} == {1, 2, 3}
    assert sum(p > 0 and s > 1 and k > 1 for _, _, k, s, p in inputs) >= 3
    assert any(s > 1 and (x.shape[2] + 2 * p - k) % s for x, _, k, s, p in inputs)  # a row the windows never read


@pytest.mark.parametrize("check", ["conv_output_size", "receptive_field"])
def test_a_float_is_refused_where_the_text_asks_for_an_int(check):
    right = {"conv_output_size": conv_output_size, "receptive_field": receptive_field}[check]

    def as_float(*args):
        return float(right(*args))

    as_float.__name__ = check
    with pytest.raises(ExerciseCheckFailed, match=r"raised TypeError: returned \d+\.0 of type float; the exercise "
                                                  r"asks for an int"):
        getattr(exercise_checks, check)(as_float, rng=np.random.default_rng(0))
