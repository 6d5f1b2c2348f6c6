"""Valid examples for the input contract: vae (the variational autoencoders of chapter 9)."""

import numpy as np

from contract import Example
from contract_examples.autograd import any_nd_tensor
from implementations.engine.autograd import Tensor
from implementations.generative import vae

_rng = np.random.default_rng(0)
MU, LOG_VAR = _rng.normal(size=(4, 2)), _rng.normal(size=(4, 2))  # (N, L)
EPS = _rng.normal(size=(3, 4, 2))  # (K, N, L)
X = _rng.uniform(size=(4, 5))  # (N, D), pixels in [0, 1]
Z = _rng.normal(size=(3, 3, 2))  # a 3 x 3 grid of codes


def rng():
    return np.random.default_rng(0)


def model():
    return vae.VAE(5, 2, hidden=(3,), rng=rng(), likelihood="bernoulli")


_X_EXTRAS = [("data of another width than data_dim", {"x": X[:, :3]}, ()),
             ("pixels outside [0, 1] for a Bernoulli decoder", {"x": X * 16}, ()),
             ("images (N, H, W) instead of rows", {"x": X.reshape(4, 5, 1)}, ())]

EXAMPLES = {
    "implementations.generative.vae.gaussian_kl": Example(
        build=lambda: (vae.gaussian_kl, {"mu": Tensor(MU, requires_grad=True), "log_var": LOG_VAR}),
        roles={"mu": "tensor", "log_var": "tensor"},
        extra=[("a single number", {"mu": 0.5}, ()), ("another shape than mu", {"log_var": LOG_VAR[:, :1]}, ())]),
    "implementations.generative.vae.reparameterize": Example(
        build=lambda: (vae.reparameterize, {"mu": Tensor(MU, requires_grad=True), "log_var": LOG_VAR, "eps": EPS}),
        roles={"mu": "tensor", "log_var": "tensor", "eps": "array:any-nd"},
        extra=[("another shape than mu", {"eps": EPS[..., :1]}, ()),
               ("fewer axes than mu", {"eps": EPS[0, 0]}, ()),
               ("zero samples", {"eps": EPS[:0]}, ())]),
    "implementations.generative.vae.VAE": Example(
        build=lambda: (vae.VAE, {"data_dim": 5, "latent_dim": 2, "hidden": (4, 3), "rng": rng(),
                                 "likelihood": "gaussian", "sigma": 0.5, "activation": "tanh"}),
        roles={"data_dim": "count", "latent_dim": "count", "rng": "rng", "sigma": "rate"},
        extra=[("a string", {"hidden": "wide"}, ()), ("a width 0", {"hidden": (4, 0)}, ()),
               ("None", {"hidden": None}, ()), ("a number", {"hidden": 4}, ()),
               ("an unknown likelihood", {"likelihood": "poisson"}, ()),
               ("an unknown activation", {"activation": "swish"}, ())]),
    "implementations.generative.vae.VAE.forward": Example(
        build=lambda: (model().forward, {"x": X}),
        roles={"x": "tensor"},
        extra=_X_EXTRAS),
    "implementations.generative.vae.VAE.encode": Example(
        build=lambda: (model().encode, {"x": Tensor(X)}),
        roles={"x": "tensor"},
        extra=_X_EXTRAS),
    "implementations.generative.vae.VAE.decode": Example(
        build=lambda: (model().decode, {"z": Z}),
        extra=any_nd_tensor("z", Z) + [("codes of another size than latent_dim", {"z": Z[..., :1]}, ()),
                                       ("a single number", {"z": 0.5}, ())]),
    "implementations.generative.vae.VAE.log_likelihood": Example(
        build=lambda: (model().log_likelihood, {"x": X, "z": EPS}),
        roles={"x": "tensor"},
        extra=_X_EXTRAS + any_nd_tensor("z", EPS) + [("codes of another size than latent_dim", {"z": EPS[..., :1]}, ()),
                           ("codes for fewer examples than x", {"z": EPS[:, :3]}, ())]),
    "implementations.generative.vae.VAE.elbo": Example(
        build=lambda: (model().elbo, {"x": X, "rng": rng(), "n_samples": 2, "average": False}),
        roles={"x": "tensor", "rng": "rng", "n_samples": "count", "average": "flag"},
        extra=_X_EXTRAS),
    "implementations.generative.vae.VAE.loss": Example(
        build=lambda: (model().loss, {"x": X, "rng": rng(), "n_samples": 2}),
        roles={"x": "tensor", "rng": "rng", "n_samples": "count"},
        extra=_X_EXTRAS),
    "implementations.generative.vae.VAE.sample": Example(
        build=lambda: (model().sample, {"n": 3, "rng": rng(), "noise": True}),
        roles={"n": "count", "rng": "rng", "noise": "flag"}),
    "implementations.generative.vae.latent_grid": Example(
        build=lambda: (vae.latent_grid, {"n": 3, "extent": 1.5}),
        roles={"n": "count", "extent": "rate"},
        extra=[("one code per side", {"n": 1}, ())]),
    "implementations.generative.vae.load_ring_vae": Example(
        build=lambda: (vae.load_ring_vae, {}),
        extra=[("a missing folder", {"data_dir": "/nonexistent/folder"}, (FileNotFoundError,)),
               ("a number as the folder", {"data_dir": 42}, (TypeError,))]),
}
