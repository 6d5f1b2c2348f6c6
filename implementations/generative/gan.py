"""Generative adversarial networks (Goodfellow et al., 2014) on the autograd engine.

Chapter 9 of the book. A generator G maps noise z ~ N(0, I) to a sample x = G(z); a discriminator D maps a sample
to a logit a = D(x), whose sigmoid sigm(a) is D's probability that x came from the data. The two play the game

    min_G max_D  V(D, G) = E_{x ~ p_data} log sigm(D(x)) + E_{z ~ N(0, I)} log(1 − sigm(D(G(z))))

by alternating gradient steps: D ascends V (a logistic regression of real against fake), then G descends its own
loss (:func:`generator_loss`). For a fixed generator with density p_g the best discriminator is
sigm(D*(x)) = p_data(x) / (p_data(x) + p_g(x)) (:func:`optimal_discriminator`), and with that D the game's value is
−log 4 + 2 JS(p_data ‖ p_g): the generator minimizes a Jensen–Shannon divergence.

Every loss is computed from the logits with the stable softplus(a) = log(1 + eᵃ) = max(a, 0) + log(1 + exp(−abs(a))),
since −log sigm(a) = softplus(−a) and −log(1 − sigm(a)) = softplus(a): sigm(a) itself is never formed, so a confident D
(a logit of magnitude several hundred) gives finite losses and gradients.

Samples are rows: a batch of data or of generated points has shape (N, data_dim), a batch of noise (N, latent_dim).
"""

import numpy as np

from .._contract import checked
from .._validation import stop_if_diverged
from ..engine import Tensor, concatenate, no_grad
from ..nn.layers import ACTIVATIONS, MLP
from ..nn.module import Module
from ..nn.optim import Adam
from ..numeric import sigmoid
from . import _checks

__all__ = ["discriminator_loss", "generator_loss", "optimal_discriminator", "fit_discriminator", "GAN",
           "with_minibatch_std", "gan_step"]

# The losses at chance, where D cannot tell the samples apart (every logit 0): the references of gan_step's guard
# against divergence. −V(D, G) = 2 log 2 = log 4; the generator's loss is log 2 in magnitude, of either kind.
CHANCE_D_LOSS, CHANCE_G_LOSS = np.log(4.0), np.log(2.0)


# --- the losses ------------------------------------------------------------------------------------------------------

@checked(real_logits="tensor (N,)", fake_logits="tensor (M,)")
def discriminator_loss(real_logits, fake_logits):
    """The discriminator's loss −E log sigm(D(x)) − E log(1 − sigm(D(G(z)))): −V(D, G) of eq. (9.1), to be minimized.

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
    # −log sigm(a) = softplus(−a) and −log(1 − sigm(a)) = softplus(a): sigm itself is never formed, nothing overflows
    return (-real_logits).softplus().mean() + fake_logits.softplus().mean()


@checked(fake_logits="tensor (M,)", kind=_checks.generator_loss_kind)
def generator_loss(fake_logits, *, kind="non_saturating"):
    """The generator's loss on the logits a = D(G(z)) of generated samples, minimax or non-saturating, eq. (9.4).

    * ``kind="minimax"``: E log(1 − sigm(a)) = −mean softplus(a), G's term of the game V(D, G) itself.
    * ``kind="non_saturating"``: −E log sigm(a) = mean softplus(−a), the loss Goodfellow et al. (2014) train with.

    Both are minimized by making D take the fakes for real (a → +∞) and have the same fixed points, but their
    gradients differ where it matters. Early in training D rejects the fakes confidently, a ≪ 0. There the minimax
    loss is flat: its derivative with respect to each logit is −sigm(a)/M ≈ −eᵃ/M → 0, so G receives almost no
    gradient exactly when it is worst (the loss *saturates*). The non-saturating derivative is −(1 − sigm(a))/M →
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
    if kind == "minimax":
        return -fake_logits.softplus().mean()  # E log(1 − sigm(a)) = −E softplus(a)
    return (-fake_logits).softplus().mean()  # −E log sigm(a) = E softplus(−a)


@checked(p_data="array", p_model="array", also=_checks.densities)
def optimal_discriminator(p_data, p_model):
    """The best discriminator for a fixed generator: D*(x) = p_data(x) / (p_data(x) + p_g(x)), eq. (9.2).

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
    return p_data / (p_data + p_model)  # the density ratio: 1/2 where p_g = p_data


# --- a discriminator against a fixed generator --------------------------------------------------------------------

@checked(x_real=_checks.samples, x_fake=_checks.samples, hidden="widths", steps="count", lr="rate", rng="rng",
         activation=ACTIVATIONS, also=_checks.same_space)
def fit_discriminator(x_real, x_fake, *, hidden=(32, 32), steps=500, lr=1e-2, rng, activation="tanh"):
    """Train a discriminator alone, against samples of a FIXED generator, and return it as a function.

    The network D is an MLP of the given hidden widths with one output logit, trained by full-batch Adam on
    :func:`discriminator_loss` over all of ``x_real`` (label 1) and ``x_fake`` (label 0). With enough capacity,
    samples and steps, sigm(D(x)) approaches the optimal p_data(x) / (p_data(x) + p_g(x)) of
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
        sigm(D(x)), the trained discriminator's probability that x is real (evaluated without a graph).
    """
    d = x_real.shape[1]
    net = MLP([d, *hidden, 1], activation=activation, rng=rng)
    optimizer = Adam(net.parameters(), lr=lr)  # checks lr <= 1
    real, fake = Tensor(x_real), Tensor(x_fake)  # (N, d), (M, d)
    for _ in range(steps):
        loss = discriminator_loss(net(real).reshape(-1), net(fake).reshape(-1))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    def D(x):
        x = _checks.samples_like(x, "x", d)  # (K, d): samples of the data's space, checked by name
        with no_grad():
            logits = net(Tensor(x)).data[:, 0]  # (K,)
        return sigmoid(logits)  # sigm(a), the probability that x is real

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
    input feature: the spread of the batch, the mean over features j of the standard deviation of x_{1j}, …, x_{Nj},
    the same for every row of the batch (:func:`with_minibatch_std`). A batch of fakes with too little spread then
    gets a different value from the real batches, D can reject it on that ground, and G's gradient flows through the
    spread towards more of it. It was chosen because it is the simplest remedy: one scalar feature, no
    hyperparameter, no extra pass (unlike unrolled GANs, which differentiate through k steps of D, or a gradient
    penalty, which needs gradients of gradients, not in this engine). D must then be given whole batches (N >= 2)
    of only real or only fake samples, as :func:`gan_step` does.

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

    Attributes
    ----------
    rounds : int
        The rounds of the game played so far, counted by :func:`gan_step`.
    """

    @checked(latent_dim="count", data_dim="count", generator_hidden="widths", discriminator_hidden="widths",
             rng="rng", activation=ACTIVATIONS, minibatch_std="flag")
    def __init__(self, latent_dim, data_dim=2, *, generator_hidden=(32, 32), discriminator_hidden=(32, 32), rng,
                 activation="tanh", minibatch_std=False):
        self.latent_dim, self.data_dim, self.minibatch_std = latent_dim, data_dim, minibatch_std
        self.generator = MLP([latent_dim, *generator_hidden, data_dim], activation=activation, rng=rng)
        d_in = data_dim + 1 if minibatch_std else data_dim  # + the batch's spread s
        self.discriminator = MLP([d_in, *discriminator_hidden, 1], activation=activation, rng=rng)
        self.rounds = 0

    @checked(z="tensor (N, self.latent_dim)")
    def forward(self, z):
        """G(z): the generated samples for a batch of noise, differentiable (the same as :meth:`generate`)."""
        return self.generate(z)

    @checked(z="tensor (N, self.latent_dim)")
    def generate(self, z):
        """G(z): the generated samples for a batch of noise, as a Tensor in the graph (G is trained through it).

        Parameters
        ----------
        z : Tensor or array of shape (N, latent_dim)

        Returns
        -------
        Tensor of shape (N, data_dim)
        """
        return self.generator(z)  # (N, data_dim)

    @checked(x="tensor (N, self.data_dim)", also=_checks.a_batch_if_minibatch_std)
    def discriminate(self, x):
        """The logits D(x) of a batch, with the batch's spread as an extra feature if ``minibatch_std``.

        Parameters
        ----------
        x : Tensor or array of shape (N, data_dim)
            A batch of real samples or a batch of generated ones (not a mix, with ``minibatch_std``: the spread
            describes the whole batch). N >= 2 with ``minibatch_std``.

        Returns
        -------
        Tensor of shape (N,)
            Logits a; sigm(a) is D's probability that each sample is real.
        """
        if self.minibatch_std:
            x = with_minibatch_std(x)  # (N, data_dim + 1)
        return self.discriminator(x).reshape(-1)  # (N,)

    @checked(n="count", rng="rng")
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
        z = Tensor(rng.standard_normal((n, self.latent_dim)))  # (n, latent_dim)
        with no_grad():
            return self.generator(z).data  # (n, data_dim)


@checked(x="tensor (N, data_dim)", also=_checks.a_batch)
def with_minibatch_std(x):
    """x (N, data_dim) with one more column holding the batch's spread, mean_j std_n x_nj (Karras et al., 2018).

    The standard deviation is the population one (over N, not N − 1), of each of the D features over the batch;
    their mean, the spread, is the same number in every row. A small 10⁻⁸ under the square root keeps its derivative
    finite when a feature does not vary (a collapsed batch), so that the gradient still pushes towards more spread.

    Parameters
    ----------
    x : Tensor or array of shape (N, data_dim)
        A batch of N >= 2 samples.

    Returns
    -------
    Tensor of shape (N, data_dim + 1)
    """
    deviation = x - x.mean(axis=0, keepdims=True)  # (N, data_dim)
    std = ((deviation * deviation).mean(axis=0) + 1e-8).sqrt()  # (data_dim,): + 1e-8 keeps √ differentiable at 0
    spread = std.mean()  # (): the batch's spread
    return concatenate([x, spread * np.ones((x.shape[0], 1))], axis=1)  # (N, data_dim + 1): the spread in every row


A_GAN = _checks.instance_of(GAN, "GAN(2, 2, rng=rng)")  # the role of a GAN


@checked(gan=A_GAN, x_real="tensor (N, data_dim)", d_optimizer=_checks.optimizer, g_optimizer=_checks.optimizer,
         rng="rng", kind=_checks.generator_loss_kind, d_steps="count",
         also=(_checks.fits_the_gan, _checks.optimizers_of_the_gan))
def gan_step(gan, x_real, *, d_optimizer, g_optimizer, rng, kind="non_saturating", d_steps=1):
    """One round of the game: ``d_steps`` steps of D on :func:`discriminator_loss`, then one step of G.

    Each D step draws N noise vectors (N = len(x_real)), generates a batch of fakes without a graph (G is fixed
    while D learns) and takes an optimizer step on −V(D, G) over the real batch and the fakes. The G step draws
    fresh noise and takes a step on :func:`generator_loss` of the updated D's logits; the gradient flows through
    D into G, and only ``g_optimizer`` moves (it updates G's parameters alone; the gradients this leaves on D's
    parameters are cleared by ``d_optimizer.zero_grad()`` at the next D step).

    A game whose losses grow without bound has diverged: when a loss is no longer finite, or 10⁴ times its value
    at chance (log 4 for D, log 2 in magnitude for G, where D cannot tell the samples apart), the round stops with
    a FloatingPointError that names the learning rate of that network's optimizer and a smaller one to try.

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

    Raises
    ------
    FloatingPointError
        If a loss diverged (see above).
    """
    N = x_real.shape[0]
    for _ in range(d_steps):
        with no_grad():
            fake = gan.generator(Tensor(rng.standard_normal((N, gan.latent_dim))))  # (N, data_dim): G is fixed
        d_loss = discriminator_loss(gan.discriminate(x_real), gan.discriminate(fake))  # −V(D, G)
        stop_if_diverged(d_loss.item(), CHANCE_D_LOSS, step=gan.rounds, rate_name="d_optimizer.lr",
                         rate=d_optimizer.lr)
        d_optimizer.zero_grad()
        d_loss.backward()
        d_optimizer.step()
    fake = gan.generator(Tensor(rng.standard_normal((N, gan.latent_dim))))  # (N, data_dim), in the graph
    g_loss = generator_loss(gan.discriminate(fake), kind=kind)
    stop_if_diverged(abs(g_loss.item()), CHANCE_G_LOSS, step=gan.rounds, rate_name="g_optimizer.lr",
                     rate=g_optimizer.lr)
    g_optimizer.zero_grad()
    g_loss.backward()
    g_optimizer.step()
    gan.rounds += 1
    return d_loss.item(), g_loss.item()
