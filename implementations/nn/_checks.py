"""The input checks of chapters 4 and 5's modules that no role of ``implementations._contract`` describes.

Two kinds, as ``_contract`` uses them:

* a *role* ``check(value, name) -> value`` for one argument (a list of parameters, a batch of images, a kernel size),
  named in a declaration: ``@checked(params=_checks.params, lr="rate")``;
* a *cross-argument check* for ``also=``, called with the (converted) arguments its parameters name, ``self`` too:
  a kernel that must fit the padded image, a state that must match the module.

Each raises ``ValueError`` or ``TypeError`` naming the argument, what was received, what was expected and how to fix
it, with the messages of ``implementations._validation`` where one fits. Each check is here once; the modules of
``nn`` only declare them.
"""

import numbers

import numpy as np

from .._contract import TENSOR
from .._validation import (
    _describe,
    as_array,
    as_finite_array,
    check_callable,
    check_finite_values,
    check_hidden_sizes,
    check_nonnegative,
    check_positive,
    check_positive_int,
)
from ..engine.autograd import Tensor

# --- a declaration for the methods that run their caller's layers -----------------------------------------------------


def prefix(value, name):
    """A string put in front of every parameter name."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string put in front of every name; received {_describe(value)}.")
    return value


def module(value, name):
    """A layer or a model: anything with a ``parameters()`` method."""
    if not callable(getattr(value, "parameters", None)):
        raise TypeError(f"{name} must be a Module (a layer or a model with a parameters() method); received "
                        f"{_describe(value)}. Pass the model itself, e.g. parameter_count(model).")
    return value


def layers(value, name):
    """The layers of a ``Sequential``: Modules or functions of a Tensor, each callable."""
    for k, layer in enumerate(value):
        if not callable(layer):
            raise TypeError(f"{name}[{k}] must be a Module or a function of a Tensor (such as Tensor.relu); "
                            f"received {_describe(layer)}.")
    return tuple(value)


def state_dict(value, name):
    """A state saved by ``state_dict()``: a dict of name -> finite array, each converted to float64."""
    if not isinstance(value, dict):
        raise TypeError(f"{name} must be a dict of parameter or buffer name -> array, as returned by state_dict(); "
                        f"received {_describe(value)}.")
    state = {}
    for key, array in value.items():
        where = f"{name}[{key!r}]"
        state[key] = check_finite_values(as_array(array, where), where)  # a weight of inf or NaN is no weight
    return state


def state_fits(self, state):
    """Every parameter and buffer of the module ``self`` in ``state``, nothing else, each of its shape.

    A module checks its buffers further by naming a check per buffer in ``_buffer_checks`` (batch normalization
    refuses a negative variance).
    """
    own = {n: p.shape for n, p in self.named_parameters()}
    buffers = {n: (m, attr) for n, m, attr in self._buffer_slots()}
    expected = set(own) | set(buffers)
    missing, unexpected = sorted(expected - set(state)), sorted(set(state) - expected, key=str)
    if missing or unexpected:
        raise ValueError(f"state does not match the module: missing {missing}, unexpected {unexpected}. Load a "
                         "state_dict() saved from a module of the same architecture.")
    for key in [*own, *buffers]:
        kind, shape = ("parameter", own[key]) if key in own else ("buffer", getattr(*buffers[key]).shape)
        if state[key].shape != shape:
            raise ValueError(f"state[{key!r}] has shape {state[key].shape}; expected the {kind}'s shape {shape}. Load "
                             "a state_dict() saved from a module of the same sizes.")
        if key in buffers:
            owner, attr = buffers[key]
            if attr in owner._buffer_checks:
                owner._buffer_checks[attr](state[key], f"state[{key!r}]")


def variances(value, name):
    """A running variance: no entry below 0."""
    if np.any(value < 0):
        raise ValueError(f"{name} holds a negative variance ({value.min():g}); expected values >= 0. Load a "
                         "state_dict() saved from a batch-normalization layer.")
    return value


def batch_count(value, name):
    """A count of training batches: an integer >= 0."""
    if value < 0 or value != np.round(value):
        raise ValueError(f"{name} must be a count of batches, an integer >= 0; received {value!r}.")
    return value


# --- layers ----------------------------------------------------------------------------------------------------------

def layer_sizes(value, name):
    """The widths [d_0, d_1, …, d_M] of a network: at least two integers >= 1, as a list."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of layer widths [d_0, …, d_M]; received {_describe(value)}.")
    sizes = [check_positive_int(s, f"{name}[{k}]") for k, s in enumerate(value)]
    if len(sizes) < 2:
        raise ValueError(f"{name} needs at least an input and an output size; received {sizes}.")
    return sizes


def networks(value, name):
    """A non-empty list of networks (a one-shot iterator is read into a list)."""
    if isinstance(value, (str, bytes, Tensor)) or not hasattr(value, "__iter__") or hasattr(value, "layers"):
        raise TypeError(f"{name} must be a non-empty list of MLP objects; received {_describe(value)}.")
    value = list(value)
    if not value:
        raise TypeError(f"{name} must be a non-empty list of MLP objects; received an empty one.")
    return value


def stackable(cls, networks):
    """Networks of the class ``cls``, all with the same layer sizes, biases and activation."""
    for k, net in enumerate(networks):
        if not isinstance(net, cls):
            raise TypeError(f"networks must be a non-empty list of MLP objects; networks[{k}] is {_describe(net)}.")
    sizes = [[(layer.in_features, layer.out_features, layer.b is not None) for layer in net.layers] for net in networks]
    for k, net in enumerate(networks):
        if sizes[k] != sizes[0] or net.activation != networks[0].activation:
            raise ValueError(
                f"networks[{k}] has layers (in, out, bias) {sizes[k]} and activation {net.activation!r}, but "
                f"networks[0] has {sizes[0]} and {networks[0].activation!r}: the networks must have the same layer "
                "sizes, biases and activation to be stacked."
            )


def drop_probability(value, name):
    """The rate p of dropout: a probability in [0, 1); 1 would drop everything."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be a probability in [0, 1), the rate of zeroed entries; received {value!r}. "
                         f"{name} = 1 would zero everything; {name} = 0 turns dropout off.")
    return float(value)


# --- images and convolutions -----------------------------------------------------------------------------------------


def _batch(value, name, ndim, what, hint):
    """``value`` as a Tensor with ``ndim`` axes and at least one entry, refused with ``what`` it is and a ``hint``."""
    x = TENSOR.convert(value, name, allow_empty=False)
    if x.ndim != ndim:
        raise ValueError(f"{name} must be {what}; received shape {x.shape}. {hint}")
    return x


def images(value, name):
    """A batch of images: a Tensor of shape (N, C, H, W)."""
    return _batch(value, name, 4, "a batch of images of shape (N, C, H, W)",
                  f"For a single image use {name}[None], for a single channel {name}[:, None].")


def kernel_size(value, name):
    """A window's size: an integer k >= 1 (a k × k window) or a pair (kh, kw); returned as the pair."""
    if isinstance(value, (tuple, list)):
        if len(value) != 2:
            raise ValueError(f"{name} must be an integer or a pair (kh, kw); received {value!r}.")
        return tuple(check_positive_int(k, f"{name}[{i}]") for i, k in enumerate(value))
    k = check_positive_int(value, name)
    return k, k


def size_pair(value, name):
    """The (H, W) of images: a pair of integers >= 1, returned as the pair."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"{name} must be a pair (H, W) of integers >= 1, the size of the images; received "
                         f"{value!r}. Pass x.shape[2:].")
    return tuple(check_positive_int(n, f"{name}[{i}]") for i, n in enumerate(value))


def output_gradient_fits(grad_out, kernel, input_size, stride, padding):
    """∂L/∂A has the shape conv2d gives images of ``input_size`` with ``kernel``, ``stride`` and ``padding``."""
    (H, W), (F, _, kh, kw) = input_size, kernel.shape
    if kh > H + 2 * padding or kw > W + 2 * padding:
        raise ValueError(f"input_size={input_size} with padding={padding} gives padded images "
                         f"{H + 2 * padding}x{W + 2 * padding}, smaller than the kernel {kh}x{kw}; expected the size "
                         "of the images the convolution read.")
    expected = ((H + 2 * padding - kh) // stride + 1, (W + 2 * padding - kw) // stride + 1)
    if grad_out.shape[1] != F or grad_out.shape[2:] != expected:
        raise ValueError(f"grad_out has shape {grad_out.shape}, but conv2d of images {H}x{W} with kernel "
                         f"{kernel.shape}, stride={stride} and padding={padding} gives outputs (N, {F}, "
                         f"{expected[0]}, {expected[1]}); expected grad_out of that shape. Pass the gradient of "
                         "this convolution's output and the input_size, stride and padding it was computed with.")


def _window_fits(x, kh, kw, padding, what):
    """The (kh, kw) window fits the padded images of ``x``; ``what`` names the window ("kernel 3x3")."""
    H, W = x.shape[2] + 2 * padding, x.shape[3] + 2 * padding
    if kh > H or kw > W:
        raise ValueError(f"{what} is larger than the image of x: {x.shape[2]}x{x.shape[3]}, with padding={padding} "
                         f"on each side {H}x{W}; expected a window that fits. Use a smaller window or more padding.")


def _same_channels(x, C, expected):
    if x.shape[1] != C:
        raise ValueError(f"x has {x.shape[1]} channel(s) (shape {x.shape}, read as (N, C, H, W)) but {expected}.")


def kernel_fits(x, kernel, padding):
    """The kernels (F, C, kh, kw) read the C channels of the images x, and fit the padded images."""
    if kernel.shape[1] != x.shape[1]:
        raise ValueError(
            f"kernel has {kernel.shape[1]} channel(s) but x has {x.shape[1]}: expected x of shape (N, C, H, W) and "
            f"kernel of shape (F, C, kh, kw) with the same C; received x {x.shape} and kernel {kernel.shape}."
        )
    _window_fits(x, kernel.shape[2], kernel.shape[3], padding, f"kernel {kernel.shape[2]}x{kernel.shape[3]}")


def window_fits(x, kernel_size, padding):
    """The window ``kernel_size`` (a pair, checked) fits the padded images of x."""
    _window_fits(x, *kernel_size, padding, f"the window kernel_size={kernel_size}")


def fits_conv_layer(self, x):
    """Images x that the convolutional layer ``self`` can read: its in_channels, at least its kernel's size."""
    _same_channels(x, self.in_channels, f"the layer has in_channels={self.in_channels}; pass images with "
                   f"{self.in_channels} channel(s), or build the layer with in_channels={x.shape[1]}")
    kh, kw = self.kernel_size
    _window_fits(x, kh, kw, self.padding, f"kernel {kh}x{kw}")


def kernel_fits_padded(size, kernel_size, padding):
    """A window of ``kernel_size`` fits an axis of ``size`` padded by ``padding`` at each end."""
    padded = size + 2 * padding
    if kernel_size > padded:
        raise ValueError(f"kernel_size={kernel_size} is larger than the padded input: size + 2·padding = {size} + "
                         f"2·{padding} = {padded}; expected kernel_size <= {padded}. Use a smaller kernel or pad "
                         f"more (padding >= {-(-(kernel_size - size) // 2)}).")


def pool_windows_fit(x, size, stride):
    """Pooling windows that read every row and column of the images x, none beyond them."""
    stride = size if stride is None else stride
    H, W = x.shape[2:]
    if size > H or size > W:
        raise ValueError(f"the window size={size} is larger than the image {H}x{W} of x; expected size <= "
                         f"{min(H, W)}. Choose a smaller size.")
    if stride > size:
        raise ValueError(f"stride={stride} is larger than the window size={size}: windows that far apart never read "
                         f"the {stride - size} row(s) and column(s) between them. Expected stride <= size.")
    if stride == size and (H % size or W % size):
        raise ValueError(f"x has height {H} and width {W}; expected both to be multiples of "
                         f"{size} (the window's side, size={size}). Crop x or choose another size.")
    if (H - size) % stride or (W - size) % stride:
        raise ValueError(f"x has height {H} and width {W}, but windows of size={size} moved by stride={stride} do "
                         f"not end at the last row and column: expected H − size and W − size to be multiples of "
                         f"stride (received {H - size} and {W - size}). Crop or pad x, or choose another size or "
                         "stride.")


def kernel_stride_pairs(value, name):
    """One (kernel_size, stride) pair of integers >= 1 per layer: an int64 array of shape (L, 2)."""
    pairs = as_finite_array(value, name, ndim=2, allow_empty=False)
    if pairs.shape[1] != 2:
        raise ValueError(f"{name} must hold one (kernel_size, stride) pair per layer, shape (L, 2); received shape "
                         f"{pairs.shape}. For one layer write [(3, 1)].")
    bad = np.flatnonzero(np.any((pairs < 1) | (pairs != np.round(pairs)), axis=1))
    if bad.size:
        raise ValueError(f"{name}[{bad[0]}] = {tuple(pairs[bad[0]].tolist())} is not a (kernel_size, stride) pair "
                         "of integers >= 1; expected e.g. (3, 1) for a 3x3 convolution or (2, 2) for 2x2 pooling.")
    return pairs.astype(np.int64)


def channel_widths(value, name):
    """The channels of a network's stages: a non-empty tuple of integers >= 1."""
    widths = check_hidden_sizes(value, name)
    if not widths:
        raise ValueError(f"{name} must hold at least one number of channels, e.g. (8, 16); received {value!r}.")
    return widths


def branch(value, name):
    """The branch F of a residual block x + F(x): a Module or a function of a Tensor."""
    return check_callable(value, name, what="a Module or a function of a Tensor (the F of x + F(x))")


def optional_projection(value, name):
    """The shortcut P of a residual block P(x) + F(x): None (the identity) or a Module or a function of a Tensor."""
    if value is None:
        return None
    return check_callable(value, name, what="a Module or a function of a Tensor (the P of P(x) + F(x)), or None")


def branch_output(fx, x):
    """F(x), as the branch returned it for x: a Tensor of the shape of x, so that x + F(x) adds them entry by entry."""
    if not isinstance(fx, Tensor):
        raise TypeError(f"branch must return a Tensor; it returned {_describe(fx)} for x of shape {x.shape}.")
    if fx.shape != x.shape:
        raise ValueError(
            f"branch maps x of shape {x.shape} to shape {fx.shape}, but x + F(x) needs them equal; make the "
            "branch keep the shape of x (its last layer with as many features or channels as x, convolutions "
            "with stride 1 and padding (k - 1) // 2), or project x to the new shape before adding."
        )
    return fx


def shortcut_output(px, x):
    """P(x), as the projection returned it: a Tensor with the batch of x (its shape is F(x)'s, checked there)."""
    if not isinstance(px, Tensor):
        raise TypeError(f"projection must return a Tensor; it returned {_describe(px)} for x of shape {x.shape}.")
    return px


def branch_output_like(fx, x, expected):
    """F(x) of the shape ``expected`` that the shortcut gives x (x's own shape for the identity)."""
    if not isinstance(fx, Tensor):
        raise TypeError(f"branch must return a Tensor; it returned {_describe(fx)} for x of shape {x.shape}.")
    if fx.shape != expected:
        raise ValueError(
            f"branch maps x of shape {x.shape} to shape {fx.shape}, but the projection maps it to {expected}, and "
            "P(x) + F(x) needs them equal; give the projection the branch's stride and output channels.")
    return fx


# --- normalization ---------------------------------------------------------------------------------------------------


def momentum(value, name):
    """The weight of each new batch in running averages: a number in (0, 1]."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real) or not 0 < value <= 1:
        raise ValueError(f"{name} must be a number in (0, 1], the weight of each new batch in the running averages; "
                         f"received {value!r}. The usual value is 0.1.")
    return float(value)


def feature_vectors(value, name):
    """A batch of feature vectors for batch normalization: a Tensor of shape (N, D)."""
    return _batch(value, name, 2, "a batch of feature vectors of shape (N, D)",
                  "For images of shape (N, C, H, W) use BatchNorm2d.")


def normalized_images(value, name):
    """A batch of images for batch normalization: a Tensor of shape (N, C, H, W)."""
    return _batch(value, name, 4, "a batch of images of shape (N, C, H, W)",
                  "For feature vectors of shape (N, D) use BatchNorm1d.")


def can_normalize(self, x):
    """x has the features (channels) of the batch-normalization layer ``self``, and the layer has statistics for it:
    at least two values per feature in training mode, running averages from training in evaluation mode."""
    D = self.num_features
    if x.ndim == 4:
        _same_channels(x, D, f"the layer has num_channels={D}; pass images with {D} channel(s), or build the "
                       f"layer with num_channels={x.shape[1]}")
    elif x.shape[1] != D:
        raise ValueError(f"x must have {D} entries along its last axis (the layer's num_features); received shape "
                         f"{x.shape}.")
    if self.training and x.size // x.shape[1] < 2:
        raise ValueError(f"x has shape {x.shape}: one value per feature, whose variance cannot be estimated in "
                         "training mode. Pass a batch of at least 2 examples, or call .eval() to normalize with the "
                         "running averages.")
    if not self.training and self.num_batches_tracked == 0:
        raise RuntimeError(f"{type(self).__name__} is in evaluation mode but has seen no training batch, so its "
                           "running averages are still their initial 0 and 1. Train it first (in training mode, "
                           "model.train()), or load a state_dict() saved from a trained model.")


def one_entry_per_feature(X, gamma, beta):
    """γ and β of shape (D,) for the D features of X; when γ and β agree with each other, X is the odd one out."""
    D = X.shape[-1]
    if gamma.shape == beta.shape and gamma.ndim == 1 and gamma.shape != (D,):
        raise ValueError(f"X must have {gamma.shape[0]} entries along its last axis (the length of gamma and beta); "
                         f"received shape {X.shape}.")
    for name, t in (("gamma", gamma), ("beta", beta)):
        if t.shape != (D,):
            raise ValueError(f"{name} must have shape ({D},), one entry per feature of X {X.shape}; received shape "
                             f"{t.shape}.")


# --- optimizers and schedules ----------------------------------------------------------------------------------------


def _tensor_list(value, name, need_grad):
    """``value`` as a non-empty list of Tensors (with requires_grad=True when ``need_grad``).

    A one-shot iterator (a generator) is refused: an optimizer or a clipping loop reads the parameters on every
    step, and a generator would be empty after the first pass.
    """
    if isinstance(value, (Tensor, str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of Tensors (model.parameters()); received {_describe(value)}. "
                        "Wrap a single Tensor in a list: [p].")
    if iter(value) is value:
        raise TypeError(f"{name} must be a list of Tensors (model.parameters()); received a one-shot iterator "
                        f"({type(value).__name__}), which would be used up after one pass. Pass a list instead, "
                        f"e.g. {name}=list(...) or {name}=model.parameters().")
    value = list(value)
    if not value:
        raise ValueError(f"{name} is empty; expected a non-empty list of Tensors with requires_grad=True "
                         "(model.parameters()).")
    for k, p in enumerate(value):
        if not isinstance(p, Tensor):
            raise TypeError(f"{name}[{k}] is {_describe(p)}; expected a non-empty list of Tensors with "
                            "requires_grad=True (model.parameters()). Wrap arrays: Tensor(a, requires_grad=True).")
        if need_grad and not p.requires_grad:
            raise ValueError(f"{name}[{k}] has requires_grad=False; expected a non-empty list of Tensors with "
                             "requires_grad=True (model.parameters()), the ones a loss gives gradients to.")
    return value


def params(value, name):
    """The parameters an optimizer updates: a non-empty list of Tensors with requires_grad=True."""
    return _tensor_list(value, name, need_grad=True)


def tensors(value, name):
    """A non-empty list of Tensors, whether or not they require a gradient (those with a ``grad`` are used)."""
    return _tensor_list(value, name, need_grad=False)


def gradients_fit(params):
    """Each parameter's ``grad`` (set by ``backward()``, or by hand) has the parameter's shape."""
    for p in params:
        if p.grad.shape != p.shape:
            raise ValueError(f"a parameter of shape {p.shape} has a gradient of shape {p.grad.shape}; expected equal "
                             "shapes.")


def betas(value, name):
    """Adam's (β₁, β₂): a pair of numbers in [0, 1), returned as a pair of floats."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != 2:
        raise ValueError(f"{name} must be a pair (beta1, beta2) of numbers in [0, 1); received {value!r}.")
    if not all(isinstance(b, numbers.Real) and not isinstance(b, bool) and 0.0 <= b < 1.0 for b in value):
        raise ValueError(f"{name} must both lie in [0, 1); received {value!r}. Typical: {name}=(0.9, 0.999).")
    return float(value[0]), float(value[1])


def _decay_below_one(optimizer, lr, weight_decay):
    """AdamW multiplies the weights by 1 − ηλ at every step: the factor must stay positive."""
    if not optimizer._decay_in_gradient and lr * weight_decay >= 1:
        raise ValueError(f"lr * weight_decay must be below 1 for {type(optimizer).__name__}; received lr={lr:g} and "
                         f"weight_decay={weight_decay:g} (product {lr * weight_decay:g}). Each step multiplies the "
                         "weights by 1 - lr * weight_decay, which would flip their sign. Typical: weight_decay=1e-2 "
                         "to 1e-1.")


def learning_rate(optimizer, lr):
    """The learning rate η of ``optimizer``: a finite number > 0, at most its ``max_lr``, with ηλ < 1 for AdamW."""
    lr = check_positive(lr, "lr")
    if optimizer.max_lr is not None and lr > optimizer.max_lr:
        raise ValueError(f"lr must be at most {optimizer.max_lr:g} for {type(optimizer).__name__}; received {lr:g}. "
                         f"{optimizer._lr_reason} Try lr=1e-3 to 1e-2.")
    _decay_below_one(optimizer, lr, optimizer.weight_decay)
    return lr


def weight_decay(optimizer, value):
    """The weight decay λ of ``optimizer``: a finite number >= 0, with ηλ < 1 for AdamW once η is set."""
    value = check_nonnegative(value, "weight_decay")
    if hasattr(optimizer, "_lr"):
        _decay_below_one(optimizer, optimizer.lr, value)
    return value


def decay_factor(value, name):
    """The factor γ of a step decay: a number in (0, 1]; above 1 the rate would grow."""
    value = check_positive(value, name)
    if value > 1:
        raise ValueError(f"{name} must be in (0, 1]; received {name}={value:g}, which would make the rate grow. "
                         f"Typical: {name}=0.1 or 0.5.")
    return value


def min_lr_at_most_lr(lr, min_lr):
    if min_lr > lr:
        raise ValueError(f"min_lr must be at most lr; received min_lr={min_lr:g} and lr={lr:g}. The schedule "
                         "anneals from lr down to min_lr; swap them, or use min_lr=0.")


def warmup_before_end(warmup_steps, total_steps):
    if warmup_steps >= total_steps:
        raise ValueError(f"warmup_steps must be below total_steps; received warmup_steps={warmup_steps} and "
                         f"total_steps={total_steps}, which leaves no step to anneal. The warm-up is usually a few "
                         "percent of the run, e.g. warmup_steps = total_steps // 20.")


def step_before_end(step, total_steps):
    if step >= total_steps:
        raise ValueError(f"step must be below total_steps={total_steps}: the schedule covers steps 0, …, "
                         f"{total_steps - 1}; received step={step}. Pass total_steps = epochs * batches per epoch.")
