"""Generative adversarial networks (Goodfellow et al., 2014) on the autograd engine.

Chapter 8 of the book. A generator G maps noise z ~ N(0, I) to a sample x = G(z); a discriminator D maps a sample
to a logit a = D(x), whose sigmoid σ(a) is D's probability that x came from the data. The two play the game

    min_G max_D  V(D, G) = E_{x ~ p_data} log σ(D(x)) + E_{z ~ N(0, I)} log(1 − σ(D(G(z))))

by alternating gradient steps: D ascends V (a logistic regression of real against fake), then G descends its own
loss (:func:`generator_loss`). For a fixed generator with density p_g the best discriminator is
σ(D*(x)) = p_data(x) / (p_data(x) + p_g(x)) (:func:`optimal_discriminator`), and with that D the game's value is
−log 4 + 2 JS(p_data ‖ p_g): the generator minimizes a Jensen–Shannon divergence.

Every loss is computed from the logits with the stable softplus(a) = log(1 + eᵃ) = max(a, 0) + log(1 + exp(−abs(a))),
since −log σ(a) = softplus(−a) and −log(1 − σ(a)) = softplus(a): σ(a) itself is never formed, so a confident D
(a logit of magnitude several hundred) gives finite losses and gradients.

Samples are rows: a batch of data or of generated points has shape (N, data_dim), a batch of noise (N, latent_dim).
"""

import numpy as np

from .._validation import (
    _describe,
    as_finite_array,
    check_finite_any_shape,
    check_flag,
    check_hidden_sizes,
    check_positive,
    check_positive_int,
    check_rng,
)
from ..engine.autograd import Tensor, _tensor_argument, no_grad
from ..engine.functional import _softplus, concatenate
from ..nn.layers import MLP, _check_activation
from ..nn.module import Module
from ..nn.optim import Adam

__all__ = ["discriminator_loss", "generator_loss", "optimal_discriminator", "fit_discriminator", "GAN", "gan_step"]

GENERATOR_LOSSES = ("non_saturating", "minimax")


# --- the losses ------------------------------------------------------------------------------------------------------

def _logits(logits, name):
    """``logits`` as a non-empty Tensor of shape (N,): one logit per sample."""
    logits = _tensor_argument(logits, name, allow_empty=False)
    if logits.ndim != 1:
        hint = f" Use {name}.reshape(-1) for a column of logits." if logits.ndim == 2 and logits.shape[1] == 1 else ""
        raise ValueError(f"{name} must have shape (N,), one discriminator logit per sample; received shape "
                         f"{logits.shape}.{hint}")
    return logits


def discriminator_loss(real_logits, fake_logits):
    """The discriminator's loss −E log σ(D(x)) − E log(1 − σ(D(G(z)))): −V(D, G) of eq. (8.1), to be minimized.

    It is the binary cross-entropy of a classifier that labels real samples 1 and generated ones 0, computed as
    mean softplus(−a_real) + mean softplus(a_fake). Each mean is over its own batch, so the two batches may differ
    in size.

    Parameters
    ----------
    real_logits : Tensor of shape (N,)
        D(x) for N data samples.
    fake_logits : Tensor of shape (M,)
        D(G(z)) for M generated samples.

    Returns
    -------
    loss : Tensor of shape ()
        log 4 ≈ 1.386 when D cannot tell the samples apart (every logit 0); → 0 for a perfect D.
    """
    real = _logits(real_logits, "real_logits")
    fake = _logits(fake_logits, "fake_logits")
    return _softplus(-real).mean() + _softplus(fake).mean()  # −log σ(a) = softplus(−a), −log(1 − σ(a)) = softplus(a)


def _check_kind(kind):
    if not isinstance(kind, str) or kind not in GENERATOR_LOSSES:
        raise ValueError(f"kind must be one of {list(GENERATOR_LOSSES)}; received {kind!r}. 'non_saturating' "
                         "(−E log D(G(z))) is the one to train with; 'minimax' (E log(1 − D(G(z)))) is the game's "
                         "own term, shown for comparison.")
    return kind


def generator_loss(fake_logits, *, kind="non_saturating"):
    """The generator's loss on the logits a = D(G(z)) of generated samples, minimax or non-saturating, eq. (8.4).

    * ``kind="minimax"``: E log(1 − σ(a)) = −mean softplus(a), G's term of the game V(D, G) itself.
    * ``kind="non_saturating"``: −E log σ(a) = mean softplus(−a), the loss Goodfellow et al. (2014) train with.

    Both are minimized by making D take the fakes for real (a → +∞) and have the same fixed points, but their
    gradients differ where it matters. Early in training D rejects the fakes confidently, a ≪ 0. There the minimax
    loss is flat: its derivative with respect to each logit is −σ(a)/M ≈ −eᵃ/M → 0, so G receives almost no
    gradient exactly when it is worst (the loss *saturates*). The non-saturating derivative is −(1 − σ(a))/M →
    −1/M: largest when G is worst, vanishing only as D is fooled.

    Parameters
    ----------
    fake_logits : Tensor of shape (M,)
        D(G(z)) for M generated samples.
    kind : {"non_saturating", "minimax"}, default "non_saturating"

    Returns
    -------
    loss : Tensor of shape ()
    """
    fake = _logits(fake_logits, "fake_logits")
    kind = _check_kind(kind)
    if kind == "minimax":
        return -_softplus(fake).mean()  # E log(1 − σ(a)): −softplus(a)
    return _softplus(-fake).mean()  # −E log σ(a): softplus(−a)


def optimal_discriminator(p_data, p_model):
    """The best discriminator for a fixed generator: D*(x) = p_data(x) / (p_data(x) + p_g(x)), eq. (8.2).

    Derivation: for a fixed G, V(D, G) = ∫ [p_data(x) log D(x) + p_g(x) log(1 − D(x))] dx, and D(x) may be chosen
    separately at every x. With a = p_data(x), b = p_g(x), the integrand a log y + b log(1 − y) is concave in
    y ∈ (0, 1) with derivative a/y − b/(1 − y), which vanishes at y = a / (a + b). Where p_g = p_data the best D
    says 1/2 everywhere: it cannot tell the two apart.

    Parameters
    ----------
    p_data, p_model : array_like of the same shape
        The two densities (or probabilities) evaluated at the same points: finite, >= 0, and not both 0 at any
        point (where both vanish, no sample ever lands and D* is undefined).

    Returns
    -------
    ndarray of the shape of the inputs, values in [0, 1]
        D*(x), a probability (not a logit).
    """
    p_data = check_finite_any_shape(p_data, "p_data")
    p_model = check_finite_any_shape(p_model, "p_model")
    if p_data.shape != p_model.shape:
        raise ValueError(f"p_data has shape {p_data.shape} but p_model has shape {p_model.shape}; expected both "
                         "densities evaluated at the same points (equal shapes).")
    for name, p in (("p_data", p_data), ("p_model", p_model)):
        if (p < 0).any():
            raise ValueError(f"{name} must hold densities >= 0; received {int((p < 0).sum())} negative value(s), "
                             f"such as {p[p < 0].flat[0]:g}. Pass density values, not log-densities.")
    total = p_data + p_model
    if (total == 0).any():
        raise ValueError(f"p_data and p_model are both 0 at {int((total == 0).sum())} point(s), where D* = 0/0 is "
                         "undefined; evaluate them only where at least one density is positive.")
    return p_data / total


# --- a discriminator against a fixed generator --------------------------------------------------------------------

def _samples(x, name, *, width=None, reference="x_real"):
    """``x`` as a float array of shape (N, d): a 1-D array of N numbers is read as N samples of one feature.

    With ``width``, d must equal it, the number of features of the samples in argument ``reference``.
    """
    x = as_finite_array(x, name, ndim=(1, 2), allow_empty=False)
    x = x[:, None] if x.ndim == 1 else x  # (N, d)
    if x.shape[1] == 0:
        raise ValueError(f"{name} has no features (shape {x.shape}); expected samples of at least one feature.")
    if width is not None and x.shape[1] != width:
        raise ValueError(f"{name} has {x.shape[1]} feature(s) per sample (shape {x.shape}) but {reference} has "
                         f"{width}; expected samples of the same space: shape (N,) or (N, 1) for 1-D data, "
                         f"(N, {width}) for samples of {width} features.")
    return x


def fit_discriminator(x_real, x_fake, *, hidden=(32, 32), steps=500, lr=1e-2, rng, activation="tanh"):
    """Train a discriminator alone, against samples of a FIXED generator, and return it as a function.

    The network D is an MLP of the given hidden widths with one output logit, trained by full-batch Adam on
    :func:`discriminator_loss` over all of ``x_real`` (label 1) and ``x_fake`` (label 0). With enough capacity,
    samples and steps, σ(D(x)) approaches the optimal p_data(x) / (p_data(x) + p_g(x)) of
    :func:`optimal_discriminator` wherever both densities put samples (weighted by the sample sizes when they
    differ: p_data N_real / (p_data N_real + p_g N_fake)); where neither does, it is an extrapolation.

    Parameters
    ----------
    x_real, x_fake : array_like of shape (N,) or (N, d), and (M,) or (M, d)
        Samples of the data and of the generator; a 1-D array holds N samples of 1-D data.
    hidden : tuple of int, default (32, 32)
        Widths of the hidden layers.
    steps : int >= 1, default 500
        Adam steps, each on the whole of both samples.
    lr : float in (0, 1], default 1e-2
    rng : numpy.random.Generator
        Initializes the network.
    activation : {"tanh", "relu", "gelu", "sigmoid"}, default "tanh"

    Returns
    -------
    D : function array (K,) or (K, d) -> ndarray (K,)
        σ(D(x)), the trained discriminator's probability that x is real (evaluated without a graph).
    """
    x_real = _samples(x_real, "x_real")
    d = x_real.shape[1]
    x_fake = _samples(x_fake, "x_fake", width=d)
    hidden = check_hidden_sizes(hidden, "hidden")
    steps = check_positive_int(steps, "steps")
    lr = check_positive(lr, "lr")
    rng = check_rng(rng)
    activation = _check_activation(activation)
    net = MLP([d, *hidden, 1], activation=activation, rng=rng)
    optimizer = Adam(net.parameters(), lr=lr)  # checks lr <= 1
    real, fake = Tensor(x_real), Tensor(x_fake)
    for _ in range(steps):
        loss = discriminator_loss(net(real).reshape(-1), net(fake).reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    def D(x):
        x = _samples(x, "x", width=d)  # (K, d)
        with no_grad():
            logits = net(x).data[:, 0]  # (K,)
        return 0.5 * (1.0 + np.tanh(0.5 * logits))  # σ(a) = (1 + tanh(a/2)) / 2, which never overflows

    return D


# --- the GAN ---------------------------------------------------------------------------------------------------------

class GAN(Module):
    """A generator G(z) and a discriminator D(x), two MLPs, for data of ``data_dim`` features.

    G = ``MLP([latent_dim, *generator_hidden, data_dim])`` maps noise z ~ N(0, I) to a sample; its last layer is
    linear, so samples can land anywhere. D = ``MLP([data_dim (+1), *discriminator_hidden, 1])`` maps a sample to
    one logit.

    **Minibatch standard deviation** (``minibatch_std=True``, Karras et al., 2018), a remedy against mode collapse.
    A collapsed generator puts all its samples on a few modes; each sample on its own looks real, so a D that
    judges one sample at a time cannot notice, while a D that sees the batch can. The remedy gives D one extra
    input feature: the spread of the batch, s = mean over features j of the standard deviation of x_{1j}, …, x_{Nj},
    the same for every row of the batch. A batch of fakes with too little spread then gets a different s from the
    real batches, D can reject it on that ground, and G's gradient flows through s towards more spread. It was
    chosen because it is the simplest remedy: one scalar feature, no hyperparameter, no extra pass (unlike
    unrolled GANs, which differentiate through k steps of D, or a gradient penalty, which needs gradients of
    gradients, not in this engine). D must then be given whole batches (N >= 2) of only real or only fake samples,
    as :func:`gan_step` does.

    Parameters
    ----------
    latent_dim : int >= 1
        Size of z.
    data_dim : int >= 1, default 2
    generator_hidden, discriminator_hidden : tuple of int, default (32, 32)
        Widths of the hidden layers of G and of D.
    rng : numpy.random.Generator
        Initializes G, then D (He's rule for ReLU and GELU, Xavier's otherwise; biases 0).
    activation : {"tanh", "relu", "gelu", "sigmoid"}, default "tanh"
        Between the layers of both networks.
    minibatch_std : bool, default False
    """

    def __init__(self, latent_dim, data_dim=2, *, generator_hidden=(32, 32), discriminator_hidden=(32, 32), rng,
                 activation="tanh", minibatch_std=False):
        self.latent_dim = check_positive_int(latent_dim, "latent_dim")
        self.data_dim = check_positive_int(data_dim, "data_dim")
        generator_hidden = check_hidden_sizes(generator_hidden, "generator_hidden")
        discriminator_hidden = check_hidden_sizes(discriminator_hidden, "discriminator_hidden")
        rng = check_rng(rng)
        activation = _check_activation(activation)
        self.minibatch_std = check_flag(minibatch_std, "minibatch_std")
        self.generator = MLP([self.latent_dim, *generator_hidden, self.data_dim], activation=activation, rng=rng)
        d_in = self.data_dim + 1 if self.minibatch_std else self.data_dim  # + the batch's spread s
        self.discriminator = MLP([d_in, *discriminator_hidden, 1], activation=activation, rng=rng)

    def _batch(self, x, name, width, what):
        """``x`` as a non-empty Tensor of shape (N, width)."""
        x = _tensor_argument(x, name, allow_empty=False)
        if x.ndim != 2 or x.shape[1] != width:
            raise ValueError(f"{name} must have shape (N, {width}), one row per sample ({what}); received shape "
                             f"{x.shape}.")
        return x

    def forward(self, z):
        """G(z): the generated samples for a batch of noise, differentiable (the same as :meth:`generate`)."""
        return self.generate(z)

    def generate(self, z):
        """G(z): the generated samples for a batch of noise, as a Tensor in the graph (G is trained through it).

        Parameters
        ----------
        z : Tensor or array of shape (N, latent_dim)

        Returns
        -------
        Tensor of shape (N, data_dim)
        """
        z = self._batch(z, "z", self.latent_dim, f"latent_dim = {self.latent_dim} noise values per sample")
        return self.generator(z)  # (N, data_dim)

    def discriminate(self, x):
        """The logits D(x) of a batch, with the batch's spread as an extra feature if ``minibatch_std``.

        Parameters
        ----------
        x : Tensor or array of shape (N, data_dim)
            A batch of real samples or a batch of generated ones (not a mix, with ``minibatch_std``: s describes
            the whole batch). N >= 2 with ``minibatch_std``.

        Returns
        -------
        Tensor of shape (N,)
            Logits a; σ(a) is D's probability that each sample is real.
        """
        x = self._batch(x, "x", self.data_dim, f"data_dim = {self.data_dim} features per sample")
        if self.minibatch_std:
            if x.shape[0] < 2:
                raise ValueError(f"x must hold at least 2 samples when minibatch_std=True (the feature is the "
                                 f"spread of the batch); received shape {x.shape}.")
            x = _with_minibatch_std(x)  # (N, data_dim + 1)
        return self.discriminator(x).reshape(-1)  # (N,)

    def sample(self, n, *, rng):
        """n samples G(z) with z ~ N(0, I), computed without a graph.

        Parameters
        ----------
        n : int >= 1
        rng : numpy.random.Generator
            Draws z.

        Returns
        -------
        ndarray of shape (n, data_dim)
        """
        n = check_positive_int(n, "n")
        rng = check_rng(rng)
        z = rng.standard_normal((n, self.latent_dim))  # (n, latent_dim)
        with no_grad():
            return self.generator(z).data  # (n, data_dim)


def _with_minibatch_std(x):
    """[x, s]: x (N, d) with one more column holding the batch's spread s = mean_j std_n x_nj (Karras et al., 2018)."""
    deviation = x - x.mean(axis=0, keepdims=True)  # (N, d)
    std = ((deviation * deviation).mean(axis=0) + 1e-8).sqrt()  # (d,): + 1e-8 keeps √ differentiable at 0
    s = std.mean()  # ()
    return concatenate([x, s * np.ones((x.shape[0], 1))], axis=1)  # (N, d + 1): s in every row


def _check_optimizer(optimizer, name, module, whose):
    """``optimizer`` must update exactly the parameters of ``module`` (swapping the two optimizers is a silent bug)."""
    if not all(callable(getattr(optimizer, m, None)) for m in ("step", "zero_grad")) or not hasattr(
            optimizer, "params"):
        raise TypeError(f"{name} must be an optimizer of implementations.nn.optim (Adam, SGD, ...) over the {whose}'s "
                        f"parameters; received {_describe(optimizer)}.")
    expected = {id(p) for p in module.parameters()}
    if {id(p) for p in optimizer.params} != expected:
        raise ValueError(f"{name} must update exactly the {whose}'s parameters; build it as "
                         f"Adam(gan.{whose}.parameters(), ...). (Is it the other network's optimizer?)")
    return optimizer


def gan_step(gan, x_real, *, d_optimizer, g_optimizer, rng, kind="non_saturating", d_steps=1):
    """One round of the game: ``d_steps`` steps of D on :func:`discriminator_loss`, then one step of G.

    Each D step draws N noise vectors (N = len(x_real)), generates a batch of fakes without a graph (G is fixed
    while D learns) and takes an optimizer step on −V(D, G) over the real batch and the fakes. The G step draws
    fresh noise and takes a step on :func:`generator_loss` of the updated D's logits; the gradient flows through
    D into G, and only ``g_optimizer`` moves (it updates G's parameters alone; the gradients this leaves on D's
    parameters are cleared by ``d_optimizer.zero_grad()`` at the next D step).

    Parameters
    ----------
    gan : GAN
    x_real : array_like of shape (N, data_dim), N >= 2 with ``minibatch_std``
        A batch of data, used by every D step of this round.
    d_optimizer : optimizer over ``gan.discriminator.parameters()``
    g_optimizer : optimizer over ``gan.generator.parameters()``
    rng : numpy.random.Generator
        Draws the noise: d_steps batches, then one for G.
    kind : {"non_saturating", "minimax"}, default "non_saturating"
        The generator's loss.
    d_steps : int >= 1, default 1

    Returns
    -------
    d_loss, g_loss : float
        The discriminator's loss at its last step and the generator's loss, both before their updates.
    """
    if not isinstance(gan, GAN):
        raise TypeError(f"gan must be a GAN; received {_describe(gan)}.")
    x_real = as_finite_array(x_real, "x_real", ndim=2, allow_empty=False)  # (N, data_dim)
    x_real = gan._batch(x_real, "x_real", gan.data_dim, f"data_dim = {gan.data_dim} features per sample")
    if gan.minibatch_std and x_real.shape[0] < 2:
        raise ValueError(f"x_real must hold at least 2 samples when minibatch_std=True; received shape "
                         f"{x_real.shape}.")
    d_optimizer = _check_optimizer(d_optimizer, "d_optimizer", gan.discriminator, "discriminator")
    g_optimizer = _check_optimizer(g_optimizer, "g_optimizer", gan.generator, "generator")
    rng = check_rng(rng)
    kind = _check_kind(kind)
    d_steps = check_positive_int(d_steps, "d_steps")
    N = x_real.shape[0]
    for _ in range(d_steps):
        with no_grad():
            fake = gan.generator(rng.standard_normal((N, gan.latent_dim)))  # (N, data_dim), no graph: G is fixed
        d_loss = discriminator_loss(gan.discriminate(x_real), gan.discriminate(fake))
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()
    fake = gan.generator(rng.standard_normal((N, gan.latent_dim)))  # (N, data_dim), in the graph
    g_loss = generator_loss(gan.discriminate(fake), kind=kind)
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()
    return d_loss.item(), g_loss.item()
