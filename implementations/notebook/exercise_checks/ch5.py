"""The checks of the exercises of chapter 5, Convolutional and residual networks: one per exercise, named after the
reader's function."""

import functools

import numpy as np

from ...engine.autograd import Tensor
from ...nn import conv
from ...nn.normalization import BatchNorm1d
from ..exercises import check_function
from ._shared import part_of, parts_to_check

__all__ = ["conv_output_size", "conv1x1_as_dense", "batchnorm_backward", "receptive_field", "conv2d_kernel_grad"]


def _returning_int(candidate):
    """``candidate`` refusing, as a TypeError that the check reports, a result that is not an int (28.0 included)."""
    if not callable(candidate):
        return candidate  # the check's declaration refuses it
    @functools.wraps(candidate)
    def wrapped(*args):
        result = candidate(*args)
        if isinstance(result, bool) or not isinstance(result, (int, np.integer)):
            raise TypeError(f"returned {result!r} of type {type(result).__name__}; the exercise asks for an int "
                            "(a size or a count): use integer arithmetic such as //, or int(...)")
        return result
    return wrapped


def _conv_size_inputs(rng, size):
    """(n, k, padding, stride) in turn: k = n + 2p, no padding, a stride that leaves a remainder, anything."""
    kind, n, p = size % 4, int(rng.integers(2, size + 6)), int(rng.integers(0, 3))
    s = int(rng.integers(2, 4)) if kind == 2 else int(rng.integers(1, 4))
    if kind == 1:
        p = 0
    k = int(rng.integers(1, n + 2 * p + 1))  # any window that fits the padded axis
    if kind == 0:
        k = n + 2 * p  # the window fills the padded axis: one position
    elif kind == 2 and (n + 2 * p - k) % s == 0:
        k = k - 1 if k > 1 else 2  # (n + 2p − k) / s not an integer: the floor matters
    return n, k, p, s


def conv_output_size(candidate, *, rng):
    """``conv_output_size(n, k, padding, stride)`` -> int, against ``conv.conv_output_size``.

    The number of positions of a window of length k moved by ``stride`` along an axis of length n with ``padding``
    zeros at each end, ⌊(n + 2·padding − k) / stride⌋ + 1; the four arguments are ints, n, k and stride at least 1,
    padding at least 0, and k <= n + 2·padding. The inputs include strides that do not divide n + 2·padding − k,
    no padding, and k = n + 2·padding (one position). A result that is not an int (28.0, say) is refused.
    """
    __tracebackhide__ = True
    check_function(_returning_int(candidate),
                   lambda n, k, padding, stride: conv.conv_output_size(n, k, stride=stride, padding=padding),
                   _conv_size_inputs, rng=rng)


def _conv1x1_reference(x, kernel, bias):
    return conv.conv2d(x, kernel, bias).data  # (N, F, H, W)


def _conv1x1_inputs(rng, size):
    N, C, H = 1 + size % 3, 1 + size % 4, 1 + (size + 1) // 3
    F, W = C + 1 + size % 2, H + 1 + size % 2  # F ≠ C and W ≠ H: a transpose or a swapped axis shows
    return rng.normal(size=(N, C, H, W)), rng.normal(size=(F, C, 1, 1)), rng.normal(size=F)


def conv1x1_as_dense(candidate, *, rng):
    """``conv1x1_as_dense(x, kernel, bias)``: a 1×1 convolution as one dense layer at every pixel, against ``conv2d``.

    x is an ndarray of shape (N, C, H, W), kernel of shape (F, C, 1, 1), bias of shape (F,); the result is an ndarray
    of shape (N, F, H, W) with out[n, f, i, j] = b[f] + Σ_c K[f, c, 0, 0] · x[n, c, i, j]: the C channels of each
    pixel multiplied by the (C, F) matrix K[:, :, 0, 0]ᵀ. The inputs have C ≠ F and H ≠ W.
    """
    __tracebackhide__ = True
    check_function(candidate, _conv1x1_reference, _conv1x1_inputs, rng=rng)


def _batchnorm_backward_reference(x, gamma, grad_out, eps):
    """(∂L/∂x, ∂L/∂γ, ∂L/∂β) of a BatchNorm1d in training mode whose output y has ∂L/∂y = grad_out, by the engine."""
    layer = BatchNorm1d(x.shape[1], eps=eps)
    layer.gamma.data = np.array(gamma, dtype=np.float64)  # (D,); β stays 0: it shifts y, not the gradients
    x = Tensor(x, requires_grad=True)
    layer(x).backward(grad_out)
    return x.grad, layer.gamma.grad, layer.beta.grad


def _batchnorm_inputs(rng, size):
    """(x, gamma, grad_out, eps) on which every classic mistake shows in the digits that a failing check prints.

    Batches start at 3 examples: two examples normalize to about ±1 whatever x is, so that the true ∂L/∂x of a batch
    of 2 is about 0 (it comes from ε alone) and would print as zeros next to a wrong answer. |γ| is between 0.5 and 2,
    away from the 0 that would scale every gradient of x down, and ε is 5 % to 20 % of the smallest of the batch's
    variances, so that forgetting it changes the printed digits.
    """
    N, D = 2 + size // 3 + size % 3, 1 + size % 4  # N from 3
    x = rng.normal(size=(N, D)) * 10.0 ** rng.uniform(-1, 1, size=D) + rng.uniform(-3, 3, size=D)  # off-centre
    gamma = rng.choice([-1.0, 1.0], size=D) * rng.uniform(0.5, 2.0, size=D)
    eps = float(x.var(axis=0).min() * rng.uniform(0.05, 0.2))  # a visible part of the smallest variance
    return x, gamma, rng.normal(size=(N, D)), eps


def batchnorm_backward(candidate, *, rng):
    """``batchnorm_backward(x, gamma, grad_out, eps)`` -> (grad_x, grad_gamma, grad_beta), against the engine.

    x, of shape (N, D) with N >= 2, is normalized in training mode with its batch mean μ_B and biased variance σ²_B
    (divided by N), x̂ = (x − μ_B) / √(σ²_B + ε), y = γ ⊙ x̂ + β; gamma has shape (D,), grad_out = ∂L/∂y shape
    (N, D), eps = ε a float. The three results are ndarrays: ∂L/∂x of shape (N, D), and ∂L/∂γ = Σᵢ grad_out ⊙ x̂
    and ∂L/∂β = Σᵢ grad_out of shape (D,) (sums over the batch). μ_B and σ²_B depend on x too, so that
    ∂L/∂x = γ / √(σ²_B + ε) ⊙ (g − mean(g) − x̂ ⊙ mean(g ⊙ x̂)), g = grad_out, means over the batch. The inputs
    have N >= 3 and an ε of 5 % to 20 % of the smallest variance, so that the example a failing check shows has a
    gradient of x well away from 0 and every classic mistake changes its printed digits.
    """
    __tracebackhide__ = True
    started = parts_to_check(candidate, rng, "batchnorm_backward",
                              np.array([[0.0], [1.0]]), np.ones(1), np.ones((2, 1)), 1e-5)
    if started is None:  # a stub: reminded once
        return
    rng, name = started
    results = "grad_x, grad_gamma, grad_beta"
    for index, what in enumerate(("grad_x, its first result", "grad_gamma, its second result",
                                  "grad_beta, its third result")):
        check_function(part_of(candidate, index, results), lambda *a, i=index: _batchnorm_backward_reference(*a)[i],
                       _batchnorm_inputs, rng=rng, name=name, quantity=what)


def _receptive_field_inputs(rng, size):
    """1 to 6 (kernel_size, stride) pairs of Python ints, kernels 1 to 5, strides 1 to 3, input side first."""
    L = min(size, 6)
    return ([(int(k), int(s)) for k, s in zip(rng.integers(1, 6, L), rng.integers(1, 4, L), strict=True)],)


def receptive_field(candidate, *, rng):
    """``receptive_field(layers)`` -> int, against the last entry of ``conv.receptive_field(layers)[0]``.

    ``layers`` is a list of (kernel_size, stride) pairs of ints, input side first, at least one; the result is r_L,
    the receptive field of the last layer in input pixels, from r₀ = j₀ = 1, r_l = r_{l−1} + (k_l − 1)·j_{l−1} and
    j_l = j_{l−1}·s_l (the jump j_{l−1} is the product of the strides before layer l). A result that is not an int
    is refused.
    """
    __tracebackhide__ = True
    check_function(_returning_int(candidate), lambda layers: int(conv.receptive_field(layers)[0][-1]),
                   _receptive_field_inputs,
                   rng=rng)


def _kernel_grad_reference(x, grad_out, kernel_size, stride, padding):
    """∂L/∂K of ``conv2d(x, K, stride=stride, padding=padding)`` when ∂L/∂A = grad_out, by the engine."""
    F, C = grad_out.shape[1], x.shape[1]
    kernel = Tensor(np.zeros((F, C, kernel_size, kernel_size)), requires_grad=True)  # A is linear in K: any K
    conv.conv2d(Tensor(x), kernel, stride=stride, padding=padding).backward(grad_out)
    return kernel.grad


def _kernel_grad_inputs(rng, size):
    """(x, grad_out, kernel_size, stride, padding): N from 1 (batches of 2 and 3 from the third input), C ≠ F,
    H ≠ W, padding 0 or 1 and stride 1 or 2 in turn (a stride that leaves a remainder included), k from 1 to 3."""
    N, C = 1 + min(size // 3, 2), 1 + size % 3
    F, k = C + 1 + size % 2, 1 + (size + 1) % 3
    padding, stride = size % 2, 1 + (size // 2) % 2
    H = k + 2 + size % 4
    W = H + 1 + size % 2  # W ≠ H: a swapped spatial axis shows
    H_out, W_out = (conv.conv_output_size(n, k, stride=stride, padding=padding) for n in (H, W))
    return rng.normal(size=(N, C, H, W)), rng.normal(size=(N, F, H_out, W_out)), k, stride, padding


def conv2d_kernel_grad(candidate, *, rng):
    """``conv2d_kernel_grad(x, grad_out, kernel_size, stride, padding)`` -> ∂L/∂K, against the engine's gradient.

    x has shape (N, C, H, W) and grad_out = ∂L/∂A shape (N, F, H_out, W_out), the outputs of eq. (5.1) with a
    kernel of shape (F, C, k, k), k = kernel_size; the result has shape (F, C, k, k):
    ∂L/∂K[f, c, u, v] = Σ_n Σ_{i,j} grad_out[n, f, i, j] · x̃[n, c, s·i + u, s·j + v], x̃ the padded input, summed
    over the batch. The inputs have C ≠ F and H ≠ W, batches of 1 to 3, padding 0 or 1 and stride 1 or 2.
    """
    __tracebackhide__ = True
    check_function(candidate, _kernel_grad_reference, _kernel_grad_inputs, rng=rng)
