"""2-D convolution, padding and pooling built from autograd operations, and the arithmetic of their sizes.

Images are batches of shape (N, C, H, W): N images, C channels, height H and width W. As in every
deep-learning library, "convolution" here is cross-correlation (the kernel is not flipped). With
stride s and p rows and columns of zeros around each image (x̃ is x padded),

    out[n, f, i, j] = b[f] + Σ_c Σ_u Σ_v x̃[n, c, i·s + u, j·s + v] · K[f, c, u, v],

for i = 0, …, H_out − 1 with H_out = ⌊(H + 2p − kh) / s⌋ + 1 (likewise j and W_out).

Two forms compute it:

* :func:`conv2d` gathers every window with one integer-array index (:func:`im2col`, whose backward
  pass scatter-adds) and multiplies all windows by all kernels in one matrix product;
* :func:`conv2d_loop` follows the sum above directly, one output position and one kernel at a time.

Both are built from Tensor operations, so the engine differentiates them with no extra code; the
loop is the reference that the tests and ``bench/bench_conv.py`` compare the matrix form with. Each function declares
its arguments (``@checked``, with the image checks of ``nn._checks``); called from the package's own code, as
``conv2d`` calls ``im2col`` and ``im2col`` calls ``pad2d``, they are not checked again.
:func:`pad2d` pads by concatenating zeros, :func:`max_pool2d` and :func:`avg_pool2d` reduce windows,
and :func:`conv_output_size` and :func:`receptive_field` do the arithmetic of sizes.
"""

import numpy as np

from .._contract import ResultsChecked, checked, passes_through
from ..engine.autograd import Tensor
from ..engine.functional import concatenate, stack
from . import _checks
from .module import Module

__all__ = ["conv2d", "conv2d_loop", "conv2d_input_grad", "im2col", "pad2d", "conv_output_size", "max_pool2d",
           "avg_pool2d", "global_avg_pool2d", "receptive_field", "Conv2d", "ResidualBlock"]


# --- sizes ---------------------------------------------------------------------------------------------------------

@checked(size="count", kernel_size="count", stride="count", padding="count0", also=_checks.kernel_fits_padded)
def conv_output_size(size, kernel_size, *, stride=1, padding=0):
    """Number of positions of a window along one axis, eq. (5.2): ⌊(size + 2·padding − kernel_size) / stride⌋ + 1.

    The window starts at 0, stride, 2·stride, … of the padded axis (length size + 2·padding) and must
    fit inside it; rows or columns left over at the end, fewer than ``stride``, are not read.

    Parameters
    ----------
    size : int >= 1
        Length of the axis (H or W) before padding.
    kernel_size : int >= 1
        Length of the window along that axis (kh or kw), at most size + 2·padding.
    stride : int >= 1, default 1
    padding : int >= 0, default 0
        Zeros added at each end of the axis.

    Returns
    -------
    int
        The output length, H_out or W_out.
    """
    return (size + 2 * padding - kernel_size) // stride + 1  # the last start that fits, counted in strides


@checked(layers=_checks.kernel_stride_pairs)
def receptive_field(layers):
    """Receptive field and jump after each layer of a stack of convolutions and poolings, eq. (5.5).

    With r₀ = 1 and S₀ = 1 (one input pixel, one pixel apart), a layer with kernel size k_l and
    stride s_l gives

        r_l = r_{l−1} + (k_l − 1) · S_{l−1},    S_l = S_{l−1} · s_l :

    each output of layer l sees k_l outputs of layer l − 1, which lie S_{l−1} input pixels apart.
    r_l is the side of the square spanned by the input pixels that one output of layer l depends on
    (when a kernel is smaller than its stride, k_l < s_l, the pixels it depends on form a grid with holes inside
    that square), and S_l (the jump) is the distance in input pixels between neighbouring outputs of layer l.
    Padding shifts where the square lies, not its size.

    Parameters
    ----------
    layers : array_like of shape (L, 2)
        One (kernel_size, stride) pair of integers >= 1 per layer, input side first; a pooling
        layer counts as a convolution with its window size and stride.

    Returns
    -------
    r : ndarray of int of shape (L,)
        Receptive field after each layer, in input pixels.
    S : ndarray of int of shape (L,)
        Jump after each layer, in input pixels.
    """
    k, s = layers[:, 0], layers[:, 1]  # (L,) kernel sizes and strides
    S = np.cumprod(s)  # (L,) S_l = S_{l−1} · s_l, from S₀ = 1
    S_before = np.concatenate([[1], S[:-1]])  # (L,) S_{l−1}
    r = 1 + np.cumsum((k - 1) * S_before)  # (L,) r_l = r_{l−1} + (k_l − 1) · S_{l−1}, from r₀ = 1
    return r, S


# --- padding and patches -------------------------------------------------------------------------------------------

@checked(x=_checks.images, padding="count0")
def pad2d(x, padding):
    """Add ``padding`` rows and columns of zeros on every side of each image; the gradient flows back to x.

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)
    padding : int >= 0

    Returns
    -------
    Tensor of shape (N, C, H + 2·padding, W + 2·padding)
        x itself when padding is 0.
    """
    if padding == 0:
        return x  # nothing to add: the same Tensor, so conv2d's defaults compute exactly what they always did
    N, C, H, W = x.shape
    p = padding
    rows = Tensor(np.zeros((N, C, p, W)))
    x = concatenate([rows, x, rows], axis=2)  # (N, C, H + 2p, W): by concatenation, so it is differentiable
    cols = Tensor(np.zeros((N, C, H + 2 * p, p)))
    return concatenate([cols, x, cols], axis=3)  # (N, C, H + 2p, W + 2p)


def _patch_index(H, W, kh, kw, stride):
    """Row and column indices of every (kh, kw) window, shape (H_out, W_out, kh, kw) each."""
    H_out, W_out = (H - kh) // stride + 1, (W - kw) // stride + 1
    rows = (np.arange(H_out) * stride)[:, None, None, None] + np.arange(kh)[None, None, :, None]
    cols = (np.arange(W_out) * stride)[None, :, None, None] + np.arange(kw)[None, None, None, :]
    return np.broadcast_to(rows, (H_out, W_out, kh, kw)), np.broadcast_to(cols, (H_out, W_out, kh, kw))


@checked(x=_checks.images, kernel_size=_checks.kernel_size, stride="count", padding="count0",
         also=_checks.window_fits)
def im2col(x, kernel_size, *, stride=1, padding=0):
    """Every (kh, kw) window of the padded images, unrolled into a row of C·kh·kw values ("image to columns").

    Row (n, i, j) holds x̃[n, c, i·s + u, j·s + v] for c, u, v in that order (C-order of (C, kh, kw)),
    the order of ``K.reshape(F, C * kh * kw)``, so that a convolution is one matrix product:
    ``im2col(x, (kh, kw), stride=s, padding=p) @ K.reshape(F, -1).T`` holds out[n, f, i, j] at
    [n, i, j, f]. The rows are kept on the grid (N, H_out, W_out); ``.reshape(-1, C * kh * kw)``
    gives the (N·H_out·W_out, C·kh·kw) patch matrix of the textbook. A pixel covered by several
    windows is copied into each, and its gradient is the sum over those copies.

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)
    kernel_size : int >= 1 or (int, int)
        kh = kw, or (kh, kw).
    stride : int >= 1, default 1
    padding : int >= 0, default 0
        Rows and columns of zeros added on every side of each image.

    Returns
    -------
    Tensor of shape (N, H_out, W_out, C·kh·kw)
        H_out = conv_output_size(H, kh, stride=stride, padding=padding), likewise W_out.
    """
    kh, kw = kernel_size
    x = pad2d(x, padding)  # (N, C, H + 2p, W + 2p)
    N, C, H, W = x.shape
    rows, cols = _patch_index(H, W, kh, kw, stride)  # (H_out, W_out, kh, kw) each: i·s + u and j·s + v
    patches = x[:, :, rows, cols]  # (N, C, H_out, W_out, kh, kw): every window, gathered at once
    H_out, W_out = rows.shape[:2]
    return patches.transpose(0, 2, 3, 1, 4, 5).reshape(N, H_out, W_out, C * kh * kw)  # one row per window


# --- convolution ---------------------------------------------------------------------------------------------------

@checked(x=_checks.images, kernel="tensor (F, C, kh, kw)", bias="tensor (F,)?", stride="count", padding="count0",
         also=_checks.kernel_fits)
def conv2d(x, kernel, bias=None, *, stride=1, padding=0):
    """Cross-correlation of a batch of images with F kernels, eq. (5.1), as im2col and one matrix product.

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)
    kernel : Tensor of shape (F, C, kh, kw)
        The window must fit the padded images: kh <= H + 2·padding, kw <= W + 2·padding.
    bias : Tensor of shape (F,), optional
    stride : int, default 1
    padding : int, default 0
        Rows and columns of zeros added on every side of each image; (k − 1) // 2 keeps the size
        of the image for an odd k and stride 1.

    Returns
    -------
    out : Tensor of shape (N, F, H_out, W_out), H_out = (H + 2·padding − kh) // stride + 1 (likewise W_out)
    """
    F, C, kh, kw = kernel.shape
    windows = im2col(x, (kh, kw), stride=stride, padding=padding)  # (N, H_out, W_out, C·kh·kw): one row per window
    out = windows @ kernel.reshape(F, C * kh * kw).T  # (N, H_out, W_out, F): every window times every kernel
    if bias is not None:
        out = out + bias  # b_f at every position
    return out.transpose(0, 3, 1, 2)  # (N, F, H_out, W_out)


@checked(x=_checks.images, kernel="tensor (F, C, kh, kw)", bias="tensor (F,)?", stride="count", padding="count0",
         also=_checks.kernel_fits)
def conv2d_loop(x, kernel, bias=None, *, stride=1, padding=0):
    """:func:`conv2d` as the direct loop over output positions (i, j) and kernels f: the reference form.

    Each step is one weighted sum, out[:, f, i, j] = b[f] + Σ_{c,u,v} window[:, c, u, v] · K[f, c, u, v],
    over the window of the padded images at (i·stride, j·stride), for all N images at once. Built from
    Tensor operations, so it is differentiable; H_out · W_out · F small operations make it far slower
    than :func:`conv2d` (see ``bench/bench_conv.py``).

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)
    kernel : Tensor of shape (F, C, kh, kw)
    bias : Tensor of shape (F,), optional
    stride : int, default 1
    padding : int, default 0

    Returns
    -------
    out : Tensor of shape (N, F, H_out, W_out)
    """
    x = pad2d(x, padding)  # (N, C, H + 2p, W + 2p)
    F, _, kh, kw = kernel.shape
    H_out, W_out = (x.shape[2] - kh) // stride + 1, (x.shape[3] - kw) // stride + 1
    rows = []
    for i in range(H_out):
        row = []
        for j in range(W_out):
            window = x[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]  # (N, C, kh, kw)
            sums = [(window * kernel[f]).sum(axis=(1, 2, 3)) for f in range(F)]  # F tensors of shape (N,)
            row.append(stack(sums, axis=1))  # (N, F)
        rows.append(stack(row, axis=2))  # (N, F, W_out)
    out = stack(rows, axis=2)  # (N, F, H_out, W_out)
    if bias is not None:
        out = out + bias.reshape(1, F, 1, 1)
    return out


@checked(grad_out="array (N, F, H_out, W_out)", kernel="array (F, C, kh, kw)", input_size=_checks.size_pair,
         stride="count", padding="count0", also=_checks.output_gradient_fits)
def conv2d_input_grad(grad_out, kernel, input_size, *, stride=1, padding=0):
    """∂L/∂x of :func:`conv2d` by eq. (5.3): a full correlation of the spread-out Ā with the flipped kernels.

    Parameters
    ----------
    grad_out : array of shape (N, F, H_out, W_out)
        Ā = ∂L/∂A, the gradient of the loss with respect to the convolution's output.
    kernel : array of shape (F, C, kh, kw)
    input_size : (int, int)
        (H, W) of the images x; the stride may have left rows or columns of x unread, which get no gradient.
    stride : int >= 1, default 1
    padding : int >= 0, default 0

    Returns
    -------
    ndarray of shape (N, C, H, W)
        x̄ = ∂L/∂x, what the engine computes by scatter-adding the gradients of the im2col windows.
    """
    (N, F, H_out, W_out), (_, C, kh, kw), (H, W) = grad_out.shape, kernel.shape, input_size
    spread = np.zeros((N, F, (H_out - 1) * stride + 1, (W_out - 1) * stride + 1))  # s − 1 zeros between entries
    spread[:, :, ::stride, ::stride] = grad_out
    spread = np.pad(spread, ((0, 0), (0, 0), (kh - 1, kh - 1), (kw - 1, kw - 1)))  # zeros around: a *full* correlation
    flipped = kernel[:, :, ::-1, ::-1].transpose(1, 0, 2, 3)  # (C, F, kh, kw): K[f, c, kh − 1 − u, kw − 1 − v]
    read = conv2d(Tensor(spread), Tensor(flipped)).data  # (N, C, (H_out − 1)·s + kh, (W_out − 1)·s + kw)
    grad_padded = np.zeros((N, C, H + 2 * padding, W + 2 * padding))  # ∂L/∂x̃: 0 on the rows the windows never read
    grad_padded[:, :, :read.shape[2], :read.shape[3]] = read
    return grad_padded[:, :, padding:padding + H, padding:padding + W]  # the padding's share is dropped


# --- pooling -------------------------------------------------------------------------------------------------------

def _pool_windows(x, size, stride):
    """The pooling windows of x, shape (N, C, H_out, W_out, size, size); ``stride`` None means ``size``.

    Windows side by side (stride = size) take the fast path: a reshape splits each axis into (block, offset), with
    no gather. ``tests/test_conv.py`` checks that it gives the windows the gather gives.
    """
    stride = size if stride is None else stride
    if stride == size:  # the fast path
        N, C, H, W = x.shape
        return x.reshape(N, C, H // size, size, W // size, size).transpose(0, 1, 2, 4, 3, 5)
    rows, cols = _patch_index(x.shape[2], x.shape[3], size, size, stride)
    return x[:, :, rows, cols]  # (N, C, H_out, W_out, size, size): overlapping or spaced windows, gathered


@checked(x=_checks.images, size="count", stride="count?", also=_checks.pool_windows_fit)
def max_pool2d(x, size=2, *, stride=None):
    """Largest value in each ``size`` x ``size`` window, the windows ``stride`` pixels apart, eq. (5.4).

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)
        H − size and W − size must be multiples of the stride (with the default stride: H and W
        multiples of ``size``) and the stride at most ``size``, so that no row or column is left unread.
    size : int, default 2
    stride : int, optional
        Defaults to ``size``: windows side by side, not overlapping.

    Returns
    -------
    out : Tensor of shape (N, C, H_out, W_out), H_out = (H − size) // stride + 1 (likewise W_out)
        The gradient flows to the maximum of each window (split evenly between tied maxima).
    """
    return _pool_windows(x, size, stride).max(axis=(4, 5))  # (N, C, H_out, W_out)


@checked(x=_checks.images, size="count", stride="count?", also=_checks.pool_windows_fit)
def avg_pool2d(x, size=2, *, stride=None):
    """Mean of each ``size`` x ``size`` window, the windows ``stride`` pixels apart.

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)
        H − size and W − size must be multiples of the stride (with the default stride: H and W
        multiples of ``size``) and the stride at most ``size``, so that no row or column is left unread.
    size : int, default 2
    stride : int, optional
        Defaults to ``size``: windows side by side, not overlapping.

    Returns
    -------
    out : Tensor of shape (N, C, H_out, W_out), H_out = (H − size) // stride + 1 (likewise W_out)
        Each pixel of a window receives 1 / size² of the window's gradient.
    """
    return _pool_windows(x, size, stride).mean(axis=(4, 5))  # (N, C, H_out, W_out)


@checked(x=_checks.images)
def global_avg_pool2d(x):
    """Global average pooling: the mean of each channel over all its H × W positions, (N, C, H, W) -> (N, C).

    It replaces flattening before a network's dense head: the head then has one input per channel, whatever the
    size of the images (Lin et al., 2014; He et al., 2016). Each position receives 1 / (H·W) of its channel's gradient.

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)

    Returns
    -------
    Tensor of shape (N, C)
    """
    return x.mean(axis=(2, 3))  # (N, C)


class Conv2d(Module):
    """A convolutional layer: F kernels of size kh × kw slid over a batch of C-channel images, one bias per kernel.

    out[n, f] = b[f] + Σ_c x[n, c] ⋆ K[f, c], the cross-correlation of :func:`implementations.nn.conv.conv2d`, with
    ``weight`` K of shape (F, C, kh, kw) and ``bias`` b of shape (F,). Each output value sums fan_in = C·kh·kw
    products, which sets the initialization as for :class:`~implementations.nn.layers.Linear` (seeded by ``rng``):

    * ``init="he"`` (He et al., 2015): K ~ N(0, 2 / fan_in), for ReLU networks, the default here because
      convolutional networks are ReLU networks (``Linear`` defaults to Xavier, which suits tanh and linear layers);
    * ``init="xavier"`` (Glorot and Bengio, 2010): K ~ U(−a, a) with a = √(6 / (fan_in + fan_out)) and
      fan_out = F·kh·kw.

    The bias starts at 0. An image of size H × W gives an output of size H_out × W_out with
    H_out = (H + 2·padding − kh) // stride + 1 (likewise W_out); ``padding = (k − 1) // 2`` with stride 1 keeps
    the size for an odd k.

    Parameters
    ----------
    in_channels : int >= 1
        C, the channels of the input.
    out_channels : int >= 1
        F, the number of kernels and of output channels.
    kernel_size : int >= 1 or (int, int)
        kh = kw, or (kh, kw).
    stride : int >= 1, default 1
    padding : int >= 0, default 0
        Rows and columns of zeros added on every side of each image.
    bias : bool, default True
    rng : numpy.random.Generator
    init : {"he", "xavier"}, default "he"
    """

    @checked(in_channels="count", out_channels="count", kernel_size=_checks.kernel_size, stride="count",
             padding="count0", bias="flag", rng="rng", init="{he, xavier}")
    def __init__(self, in_channels, out_channels, kernel_size, *, stride=1, padding=0, bias=True, rng, init="he"):
        C, F, (kh, kw) = in_channels, out_channels, kernel_size
        self.stride, self.padding = stride, padding
        fan_in, fan_out = C * kh * kw, F * kh * kw
        if init == "he":
            K = rng.normal(0.0, np.sqrt(2.0 / fan_in), size=(F, C, kh, kw))
        else:  # "xavier"
            limit = np.sqrt(6.0 / (fan_in + fan_out))
            K = rng.uniform(-limit, limit, size=(F, C, kh, kw))
        self.weight = Tensor(K, requires_grad=True)  # (F, C, kh, kw)
        self.bias = Tensor(np.zeros(F), requires_grad=True) if bias else None  # (F,)
        self.in_channels, self.out_channels, self.kernel_size = C, F, (kh, kw)

    @checked(x=_checks.images, also=_checks.fits_conv_layer)
    def forward(self, x):
        """The F feature maps of a batch of images.

        Parameters
        ----------
        x : Tensor or array of shape (N, in_channels, H, W)

        Returns
        -------
        Tensor of shape (N, out_channels, H_out, W_out)
        """
        return conv2d(x, self.weight, self.bias, stride=self.stride, padding=self.padding)  # (N, F, H_out, W_out)


class ResidualBlock(Module):
    """y = x + F(x), eq. (5.8): the input added to the output of a branch F (He et al., 2016).

    The identity path makes the Jacobian ∂y/∂x = I + ∂F/∂x, so the gradient reaches x undiminished however small
    ∂F/∂x is: this is what lets a stack of many such blocks train. With the last layer of F initialized to zero,
    F(x) = 0 and the block starts as the identity.

    The branch is given, built by the caller from layers, for example

    * ``ResidualBlock(Sequential(Linear(D, H, rng=rng, init="he"), Tensor.relu, Linear(H, D, rng=rng)))``;
    * ``ResidualBlock(Sequential(Conv2d(C, C, 3, padding=1, rng=rng), BatchNorm2d(C), Tensor.relu,
      Conv2d(C, C, 3, padding=1, rng=rng), BatchNorm2d(C)))``, the block of a ResNet (``BatchNorm2d`` from
      :mod:`implementations.nn.normalization`), whose original form adds a ReLU after the sum:
      ``Sequential(ResidualBlock(branch), Tensor.relu)`` (:func:`implementations.nn.convnets.basic_block`).

    Where the branch changes the shape of x (a stride of 2, more channels), a ``projection`` P maps x to the
    branch's shape and the block computes y = P(x) + F(x); in a ResNet P is a 1 × 1 convolution with the branch's
    stride, followed by batch normalization.

    Parameters
    ----------
    branch : Module or callable
        F, mapping a Tensor to a Tensor (of the same shape when there is no projection). When it is a Module, its
        parameters are the block's and ``train()`` and ``eval()`` reach it.
    projection : Module or callable, optional
        P, mapping x to a Tensor of the shape of F(x). Without it the shortcut is the identity.
    """

    @checked(branch=_checks.branch, projection=_checks.optional_projection)
    def __init__(self, branch, *, projection=None):
        self.branch, self.projection = branch, projection  # Modules: their parameters are the block's
        if projection is None:
            self.P, self.F = None, ResultsChecked(branch, _checks.branch_output)  # F(x) of the shape of x
        else:
            self.P = ResultsChecked(projection, self._remember_shortcut)  # P(x), a Tensor
            self.F = ResultsChecked(branch, self._fits_shortcut)  # F(x), of the shape of P(x)

    def _remember_shortcut(self, px, x):
        self._shortcut_shape = _checks.shortcut_output(px, x).shape
        return px

    def _fits_shortcut(self, fx, x):
        return _checks.branch_output_like(fx, x, self._shortcut_shape)

    @checked(x="tensor")
    @passes_through  # the branch's layers are checked as the caller's own calls: the caller chose them
    def forward(self, x):
        """x + F(x), eq. (5.8), or P(x) + F(x) with a projection, for ``x`` (a Tensor or an array the branch takes)."""
        shortcut = x if self.P is None else self.P(x)  # the identity path, or x projected to the shape of F(x)
        return shortcut + self.F(x)  # with the identity: ∂y/∂x = I + ∂F/∂x
