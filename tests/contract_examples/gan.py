"""Valid examples for the input contract: gan (the generative adversarial networks of chapter 9)."""

import numpy as np

from contract import Example
from implementations.engine.autograd import Tensor
from implementations.generative import gan
from implementations.nn.optim import Adam

_rng = np.random.default_rng(0)
REAL_LOGITS, FAKE_LOGITS = _rng.normal(size=4), _rng.normal(size=3)  # (N,), (M,)
P_DATA, P_MODEL = _rng.uniform(0.1, 1.0, size=5), _rng.uniform(0.1, 1.0, size=5)  # density values at 5 points
X_REAL_1D, X_FAKE_1D = _rng.normal(size=6), _rng.normal(1.0, 1.0, size=5)  # 1-D samples
Z = _rng.normal(size=(4, 2))  # (N, latent_dim)
X = _rng.normal(size=(4, 3))  # (N, data_dim)


def rng():
    return np.random.default_rng(0)


def model(minibatch_std=True):
    return gan.GAN(2, 3, generator_hidden=(4,), discriminator_hidden=(5,), rng=rng(), minibatch_std=minibatch_std)


def _step_call():
    g = model()
    return {"gan": g, "x_real": X, "d_optimizer": Adam(g.discriminator.parameters(), lr=1e-3),
            "g_optimizer": Adam(g.generator.parameters(), lr=1e-3), "rng": rng(), "kind": "minimax", "d_steps": 2}


_X_EXTRAS = [("a single sample with minibatch_std", {"x": X[:1]}, ()),
             ("samples of another width than data_dim", {"x": X[:, :2]}, ())]

EXAMPLES = {
    "implementations.generative.gan.discriminator_loss": Example(
        build=lambda: (gan.discriminator_loss, {"real_logits": Tensor(REAL_LOGITS, requires_grad=True),
                                                "fake_logits": FAKE_LOGITS}),
        roles={"real_logits": "tensor", "fake_logits": "tensor"},
        extra=[("a column of logits (N, 1)", {"real_logits": REAL_LOGITS[:, None]}, ()),
               ("a single number", {"fake_logits": 0.5}, ())]),
    "implementations.generative.gan.generator_loss": Example(
        build=lambda: (gan.generator_loss, {"fake_logits": Tensor(FAKE_LOGITS, requires_grad=True),
                                            "kind": "minimax"}),
        roles={"fake_logits": "tensor"},
        extra=[("an unknown kind", {"kind": "wasserstein"}, ()), ("a number", {"kind": 1}, ()),
               ("None", {"kind": None}, ())]),
    "implementations.generative.gan.optimal_discriminator": Example(
        build=lambda: (gan.optimal_discriminator, {"p_data": P_DATA, "p_model": P_MODEL}),
        roles={"p_data": "array:any-nd", "p_model": "array:any-nd"},
        extra=[("a negative density", {"p_data": -P_DATA}, ()),
               ("another shape than p_data", {"p_model": P_MODEL[:-1]}, ()),
               ("both densities 0 at a point", {"p_model": np.zeros(5), "p_data": np.zeros(5)}, ())]),
    "implementations.generative.gan.fit_discriminator": Example(
        build=lambda: (gan.fit_discriminator, {"x_real": X_REAL_1D, "x_fake": X_FAKE_1D, "hidden": (3,), "steps": 2,
                                               "lr": 1e-2, "rng": rng(), "activation": "tanh"}),
        roles={"x_real": "array", "x_fake": "array", "steps": "count", "lr": "rate", "rng": "rng"},
        extra=[("samples of 2 features against 1-D data", {"x_fake": np.zeros((5, 2))}, ()),
               ("samples of no feature", {"x_real": np.zeros((6, 0))}, ()),
               ("a string", {"hidden": "wide"}, ()), ("a width 0", {"hidden": (0,)}, ()),
               ("a fractional width", {"hidden": (2.5,)}, ()), ("an lr above 1", {"lr": 2.0}, ()),
               ("an unknown activation", {"activation": "swish"}, ())]),
    "implementations.generative.gan.GAN": Example(
        build=lambda: (gan.GAN, {"latent_dim": 2, "data_dim": 3, "generator_hidden": (4,),
                                 "discriminator_hidden": (5, 2), "rng": rng(), "activation": "relu",
                                 "minibatch_std": True}),
        roles={"latent_dim": "count", "data_dim": "count", "rng": "rng", "minibatch_std": "flag"},
        extra=[("a string", {"generator_hidden": "wide"}, ()), ("a width 0", {"discriminator_hidden": (4, 0)}, ()),
               ("None", {"generator_hidden": None}, ()),
               ("a number", {"discriminator_hidden": 4}, ()), ("an unknown activation", {"activation": "swish"}, ())]),
    "implementations.generative.gan.GAN.forward": Example(
        build=lambda: (model().forward, {"z": Z}),
        roles={"z": "tensor"},
        extra=[("noise of another size than latent_dim", {"z": np.zeros((4, 3))}, ())]),
    "implementations.generative.gan.GAN.generate": Example(
        build=lambda: (model().generate, {"z": Tensor(Z)}),
        roles={"z": "tensor"},
        extra=[("noise of another size than latent_dim", {"z": np.zeros((4, 5))}, ()),
               ("a single noise vector (latent_dim,)", {"z": Z[0]}, ())]),
    "implementations.generative.gan.GAN.discriminate": Example(
        build=lambda: (model().discriminate, {"x": X}),
        roles={"x": "tensor"},
        extra=_X_EXTRAS),
    "implementations.generative.gan.GAN.sample": Example(
        build=lambda: (model().sample, {"n": 5, "rng": rng()}),
        roles={"n": "count", "rng": "rng"}),
    "implementations.generative.gan.with_minibatch_std": Example(
        build=lambda: (gan.with_minibatch_std, {"x": Tensor(X, requires_grad=True)}),
        roles={"x": "tensor"},
        extra=[("a single sample", {"x": X[:1]}, ()), ("a single sample (D,)", {"x": X[0]}, ())]),
    "implementations.generative.gan.gan_step": Example(
        build=lambda: (gan.gan_step, _step_call()),
        roles={"x_real": "array", "rng": "rng", "d_steps": "count"},
        extra=[("a single sample with minibatch_std", {"x_real": X[:1]}, ()),
               ("samples of another width than data_dim", {"x_real": X[:, :2]}, ()),
               ("an unknown kind", {"kind": "wasserstein"}, ()),
               ("not a GAN", {"gan": "model"}, ()),
               ("the generator's optimizer", {"d_optimizer": Adam(model().generator.parameters())}, ()),
               ("the discriminator's optimizer", {"g_optimizer": Adam(model().discriminator.parameters())}, ()),
               ("a list of parameters", {"d_optimizer": [np.zeros(2)]}, ())]),
}
