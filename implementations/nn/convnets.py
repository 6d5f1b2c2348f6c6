"""The small networks of chapter 5: for 8 × 8 images a LeNet-style CNN, with or without batch normalization, and a
small ResNet built from :func:`basic_block`; for the flattened pixels the deep dense network of the chapter's
learning-rate grid, with or without batch normalization (:func:`deep_mlp`).

All end in 10 logits (``num_classes``) and are built from the package's layers, seeded by ``rng``, so that a network
built twice from the same seed has the same weights. ``tools/train_cnn_comparison.py`` trains the three image networks
against each other on the digits, and ``tools/train_batchnorm_grid.py`` trains the dense network at several learning
rates; the chapter loads what they write.
"""



from .._contract import checked
from .._validation import folder_holding
from ..data import datasets
from ..engine.autograd import Tensor
from . import _checks
from .conv import Conv2d, ResidualBlock, global_avg_pool2d, max_pool2d
from .layers import Linear
from .module import Sequential
from .normalization import BatchNorm1d, BatchNorm2d

__all__ = ["small_cnn", "basic_block", "small_resnet", "load_cnn_comparison", "deep_mlp", "load_batchnorm_grid"]

#: The comparison that ``tools/train_cnn_comparison.py`` (``make cnn-comparison``) writes in ``data/``.
CNN_COMPARISON = "digits_cnn_comparison.npz"
#: The learning-rate grid that ``tools/train_batchnorm_grid.py`` (``make batchnorm-grid``) writes in ``data/``.
BATCHNORM_GRID = "digits_batchnorm_grid.npz"


def _max_pool(A):
    return max_pool2d(A, 2)  # (N, C, H, W) -> (N, C, H/2, W/2)


def _flatten(A):
    return A.reshape(A.shape[0], -1)  # (N, C, H, W) -> (N, C·H·W)


@checked(rng="rng", batch_norm="flag", num_classes="count")
def small_cnn(*, rng, batch_norm=False, num_classes=10):
    """Two 3 × 3 convolutions (8 and 16 kernels, padding 1), each followed by a ReLU and 2 × 2 max-pooling, and a
    dense layer from the 16 × 2 × 2 values left of an 8 × 8 image to the logits.

    With ``batch_norm`` each convolution loses its bias and is followed by ``BatchNorm2d``, before its ReLU.

    Parameters
    ----------
    rng : numpy.random.Generator
    batch_norm : bool, default False
    num_classes : int >= 1, default 10

    Returns
    -------
    Sequential
        Images (N, 1, 8, 8) to logits (N, num_classes).
    """
    def conv_unit(C, F):  # convolution, [batch norm], ReLU, pooling
        norm = [BatchNorm2d(F)] if batch_norm else []
        return [Conv2d(C, F, (3, 3), padding=1, bias=not batch_norm, rng=rng), *norm, Tensor.relu, _max_pool]

    return Sequential(*conv_unit(1, 8), *conv_unit(8, 16),  # (N, 8, 4, 4), then (N, 16, 2, 2)
                      _flatten, Linear(64, num_classes, rng=rng, init="he"))  # (N, num_classes)


@checked(in_channels="count", out_channels="count", stride="count", rng="rng")
def basic_block(in_channels, out_channels, *, stride=1, rng):
    """A ResNet block: ReLU(P(x) + F(x)), with F two 3 × 3 convolutions, each followed by batch normalization and
    the first by a ReLU (He et al., 2016).

    The first convolution has the block's ``stride``. Where the stride is not 1 or the channels change, the shortcut P
    is a 1 × 1 convolution with that stride and ``out_channels`` kernels, followed by batch normalization (the
    projection shortcut); otherwise it is the identity. Convolutions followed by batch normalization have no bias.

    Parameters
    ----------
    in_channels : int >= 1
    out_channels : int >= 1
    stride : int >= 1, default 1
    rng : numpy.random.Generator

    Returns
    -------
    Sequential
        (N, in_channels, H, W) to (N, out_channels, H_out, W_out), H_out = (H − 1) // stride + 1 (likewise W_out).
    """
    C, F = in_channels, out_channels
    branch = Sequential(Conv2d(C, F, (3, 3), stride=stride, padding=1, bias=False, rng=rng), BatchNorm2d(F),
                        Tensor.relu, Conv2d(F, F, (3, 3), padding=1, bias=False, rng=rng), BatchNorm2d(F))  # F(x)
    projection = None  # the identity
    if stride != 1 or C != F:
        projection = Sequential(Conv2d(C, F, (1, 1), stride=stride, bias=False, rng=rng), BatchNorm2d(F))  # P(x)
    return Sequential(ResidualBlock(branch, projection=projection), Tensor.relu)


@checked(rng="rng", channels=_checks.channel_widths, num_classes="count")
def small_resnet(*, rng, channels=(8, 16), num_classes=10):
    """A small ResNet: a 3 × 3 stem convolution with batch normalization and a ReLU, one :func:`basic_block` per
    entry of ``channels`` (the first at stride 1, each later one at stride 2, with a projection shortcut where the
    shape changes), global average pooling and a dense layer to the logits.

    Parameters
    ----------
    rng : numpy.random.Generator
    channels : sequence of int >= 1, default (8, 16)
        The output channels of the stem (``channels[0]``) and of each block.
    num_classes : int >= 1, default 10

    Returns
    -------
    Sequential
        Images (N, 1, H, W) to logits (N, num_classes).
    """
    stem = [Conv2d(1, channels[0], (3, 3), padding=1, bias=False, rng=rng), BatchNorm2d(channels[0]), Tensor.relu]
    blocks = [basic_block(c_in, c_out, stride=1 if k == 0 else 2, rng=rng)
              for k, (c_in, c_out) in enumerate(zip([channels[0], *channels[:-1]], channels, strict=True))]
    return Sequential(*stem, *blocks, global_avg_pool2d,  # (N, channels[-1])
                      Linear(channels[-1], num_classes, rng=rng, init="he"))  # (N, num_classes)


@checked(data_dir=folder_holding(CNN_COMPARISON))
def load_cnn_comparison(*, data_dir=None):
    """The plain CNN, the CNN with batch normalization and the ResNet trained on the digits from several seeds, as
    ``tools/train_cnn_comparison.py`` wrote them; the file is checked against ``data/SHA256SUMS`` first.

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``digits_cnn_comparison.npz`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    results : dict
        ``results[model][seed]`` is a dict with ``test_correct`` (bool array, one entry per test image),
        ``train_loss`` and ``val_accuracy`` (one entry per epoch), ``epoch_kept`` and ``parameters`` (ints).
    y_test : ndarray of int
        The labels of the test images, in the order of ``test_correct``.
    config : dict
        The budget, the seeds and the split's seeds.
    """
    def read(stored, config):
        fields = ("test_correct", "train_loss", "val_accuracy", "epoch_kept", "parameters")
        results = {name: {seed: {field: stored[f"{name}/seed{seed}/{field}"] for field in fields}
                          for seed in config["seeds"]} for name in config["models"]}
        return results, stored["y_test"], config

    results, y_test, config = datasets.read_shipped_archive(CNN_COMPARISON, read, data_dir=data_dir)
    for runs in results.values():
        for run in runs.values():
            run["epoch_kept"], run["parameters"] = int(run["epoch_kept"]), int(run["parameters"])
    return results, y_test, config


@checked(rng="rng", batch_norm="flag", depth="count", width="count", num_classes="count")
def deep_mlp(*, rng, batch_norm, depth=4, width=32, num_classes=10):
    """``depth`` hidden dense layers of ``width`` units on the 64 pixels of a digit, each a ``Linear`` layer (He
    initialization) followed by a ReLU, then a dense layer to the logits; with ``batch_norm``, a ``BatchNorm1d`` sits
    between each hidden ``Linear`` layer and its ReLU.

    Built twice from the same seed, with and without ``batch_norm``, the two networks have the same weights: that is why
    the hidden ``Linear`` layers keep their biases in both, although batch normalization cancels a bias before it.

    Parameters
    ----------
    rng : numpy.random.Generator
    batch_norm : bool
    depth : int >= 1, default 4
    width : int >= 1, default 32
    num_classes : int >= 1, default 10

    Returns
    -------
    Sequential
        Pixels (N, 64) to logits (N, num_classes).
    """
    layers, d = [], 64
    for _ in range(depth):
        norm = [BatchNorm1d(width)] if batch_norm else []
        layers += [Linear(d, width, rng=rng, init="he"), *norm, Tensor.relu]  # (N, width)
        d = width
    return Sequential(*layers, Linear(width, num_classes, rng=rng))  # (N, num_classes)


@checked(data_dir=folder_holding(BATCHNORM_GRID))
def load_batchnorm_grid(*, data_dir=None):
    """The learning-rate grid of chapter 5, as ``tools/train_batchnorm_grid.py`` wrote it: :func:`deep_mlp` with and
    without batch normalization, trained by plain SGD at each rate from each seed; the file is checked against
    ``data/SHA256SUMS`` first.

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``digits_batchnorm_grid.npz`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    final_loss : dict
        ``final_loss[batch_norm, seed]`` is an array with one entry per learning rate: the cross-entropy on the whole
        training set after training, in evaluation mode, or NaN where the optimizer stopped a diverging run.
    spread : dict
        ``spread[batch_norm, seed]``, per rate, the largest difference between the predicted probabilities of any
        training image and those of image 0 after training (NaN for a stopped run): near 0, every image gets the
        same prediction.
    config : dict
        The learning rates, the seeds, the epochs, the batch size and the seeds of the chapter's split.
    """
    def read(stored, config):
        keys = [(batch_norm, seed) for seed in config["seeds"] for batch_norm in (False, True)]
        final_loss = {key: stored[f"bn{int(key[0])}/seed{key[1]}/final_loss"] for key in keys}
        spread = {key: stored[f"bn{int(key[0])}/seed{key[1]}/spread"] for key in keys}
        return final_loss, spread, config

    return datasets.read_shipped_archive(BATCHNORM_GRID, read, data_dir=data_dir)
