"""2-D convolution and max-pooling built from autograd operations (chapter 4, in brief).

Images are batches of shape (N, C, H, W): N images, C channels, height H and width W. As in every
deep-learning library, "convolution" here is cross-correlation (the kernel is not flipped):

    out[n, f, i, j] = b[f] + Σ_c Σ_u Σ_v x[n, c, i·s + u, j·s + v] · K[f, c, u, v].

Both functions gather the image patches with one integer-array index (whose backward pass
scatter-adds) and reduce them with array operations, so the engine differentiates them with no
extra code.
"""

import numpy as np

from ._validation import check_positive_int
from .autograd import _tensor_argument

__all__ = ["conv2d", "max_pool2d"]


def _patch_index(H, W, kh, kw, stride):
    """Row and column indices of every (kh, kw) window, shape (H_out, W_out, kh, kw) each."""
    H_out, W_out = (H - kh) // stride + 1, (W - kw) // stride + 1
    rows = (np.arange(H_out) * stride)[:, None, None, None] + np.arange(kh)[None, None, :, None]
    cols = (np.arange(W_out) * stride)[None, :, None, None] + np.arange(kw)[None, None, None, :]
    return np.broadcast_to(rows, (H_out, W_out, kh, kw)), np.broadcast_to(cols, (H_out, W_out, kh, kw))


def _check_conv2d(x, kernel, bias, stride):
    """The arguments of :func:`conv2d` as Tensors (and an int), refused by name when their shapes do not fit."""
    x = _tensor_argument(x, "x", allow_empty=False)
    kernel = _tensor_argument(kernel, "kernel", allow_empty=False)
    bias = None if bias is None else _tensor_argument(bias, "bias")
    stride = check_positive_int(stride, "stride")
    if x.ndim != 4:
        raise ValueError(f"x must be a batch of images of shape (N, C, H, W); received shape {x.shape}. "
                         "For a single image use x[None], for a single channel x[:, None].")
    if kernel.ndim != 4:
        raise ValueError(f"kernel must have shape (F, C, kh, kw), F kernels over the C channels of x; received "
                         f"shape {kernel.shape}.")
    if kernel.shape[1] != x.shape[1]:
        raise ValueError(
            f"kernel has {kernel.shape[1]} channel(s) but x has {x.shape[1]}: expected x of shape (N, C, H, W) and "
            f"kernel of shape (F, C, kh, kw) with the same C; received x {x.shape} and kernel {kernel.shape}."
        )
    (_, _, H, W), (F, _, kh, kw) = x.shape, kernel.shape
    if kh > H or kw > W:
        raise ValueError(f"kernel {kh}x{kw} is larger than the image {H}x{W} of x; expected a kernel that fits.")
    if bias is not None and tuple(bias.shape) != (F,):
        raise ValueError(f"bias must have shape ({F},), one value per kernel; received shape {tuple(bias.shape)}.")
    return x, kernel, bias, stride


def conv2d(x, kernel, bias=None, *, stride=1):
    """Valid cross-correlation of a batch of images with F kernels, eq. (4.8).

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)
    kernel : Tensor of shape (F, C, kh, kw)
    bias : Tensor of shape (F,), optional
    stride : int, default 1

    Returns
    -------
    out : Tensor of shape (N, F, H_out, W_out), H_out = (H − kh) // stride + 1 (likewise W_out)
    """
    x, kernel, bias, stride = _check_conv2d(x, kernel, bias, stride)
    N, C, H, W = x.shape
    F, _, kh, kw = kernel.shape
    rows, cols = _patch_index(H, W, kh, kw, stride)
    patches = x[:, :, rows, cols]  # (N, C, H_out, W_out, kh, kw): every window, gathered at once
    patches = patches.transpose(0, 2, 3, 1, 4, 5)  # (N, H_out, W_out, C, kh, kw)
    H_out, W_out = rows.shape[:2]
    flat = patches.reshape(N, H_out, W_out, C * kh * kw)  # one row per window
    out = flat @ kernel.reshape(F, C * kh * kw).T  # (N, H_out, W_out, F)
    if bias is not None:
        out = out + bias
    return out.transpose(0, 3, 1, 2)  # (N, F, H_out, W_out)


def max_pool2d(x, size=2):
    """Largest value in each non-overlapping ``size`` x ``size`` window.

    Parameters
    ----------
    x : Tensor of shape (N, C, H, W)
        H and W must be multiples of ``size``.
    size : int, default 2

    Returns
    -------
    out : Tensor of shape (N, C, H // size, W // size)
        The gradient flows to the maximum of each window.
    """
    x = _tensor_argument(x, "x", allow_empty=False)
    size = check_positive_int(size, "size")
    if x.ndim != 4:
        raise ValueError(f"x must be a batch of images of shape (N, C, H, W); received shape {x.shape}. "
                         "For a single image use x[None].")
    if x.shape[2] % size or x.shape[3] % size:
        raise ValueError(f"x has height {x.shape[2]} and width {x.shape[3]}; expected both to be multiples of "
                         f"{size} (the window's side, size={size}). Crop x or choose another size.")
    N, C, H, W = x.shape
    windows = x.reshape(N, C, H // size, size, W // size, size)  # split each axis into (block, offset)
    return windows.max(axis=(3, 5))
