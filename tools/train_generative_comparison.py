"""Train chapter 9's GANs, VAE and diffusion model on the ring of eight Gaussians from several seeds, at equal budgets,
and write their scores to data/ring_generative_comparison.npz.

    .venv/bin/python tools/train_generative_comparison.py          (or: make generative-comparison)

The models and settings are the chapter's (``implementations.generative``): the GAN with and without the minibatch
standard deviation (Adam, learning rate 5e-3, betas (0.5, 0.9), batches of 128), the VAE (two hidden layers of 32 tanh
units, σ_dec = 0.2, Adam 1e-2, batches of 128) and the DDPM denoiser (three hidden layers of 48 GELU units, T = 50 steps
of the cosine schedule, Adam from 2e-2 down to 2e-4 along a cosine, batches of 192). Each sees the same number of real
points, 134,400: 1,050 GAN rounds or VAE steps of 128 points, 700 denoiser steps of 192. The GAN is also scored after
300 rounds (the chapter's live runs stop at 150) and the VAE after 500 steps, the chapter's budget. A seed s sets a
model's initial weights (rng s), its batches and noises (rng s + 1) and the draws of its 1,000 samples (rng s + 2), as
in the chapter, so seed 8 repeats the chapter's runs and continues its GANs. Every sample is scored as in the chapter:
modes covered (10 points within 3σ), high-quality fraction (within 3σ), ``mmd.mode_std`` (within 10σ) and the unbiased
MMD² at s = 0.1 of its first 500 points against 500 held-out points of the ring. The file also holds the MMD² of new
samples of the ring itself against the same held-out points, the spread a perfect model would show, and for the
chapter's seed 8 the training losses and trained parameters of the denoiser and of the VAE after its first 500 steps
(``ddpm/seed8/train_loss``, ``ddpm/seed8/state/{name}`` as ``state_dict`` names them, and ``vae/seed8/...`` alike):
the chapter runs the first steps of each training live, checks them against the stored losses, and loads the trained
models with ``diffusion.load_ring_denoiser`` and ``vae.load_ring_vae``. The chapter loads the scores with
``mmd.load_ring_comparison`` (which checks the file against data/SHA256SUMS, which this script updates). Training is
seeded and single-threaded, so a rerun on the same machine writes the same numbers.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from train_language_model import update_checksum  # noqa: E402  (one home for the data/SHA256SUMS update)

from implementations import data  # noqa: E402
from implementations.generative import diffusion, gan, mmd, vae  # noqa: E402
from implementations.nn.optim import Adam, cosine_annealing  # noqa: E402

OUT = ROOT / "data" / "ring_generative_comparison.npz"
STD = 0.05  # σ of every mode of the ring
CONFIG = {"data": {"n": 2000, "seed": 8}, "held_out": {"n": 500, "seed": 13}, "seeds": list(range(10)),
          "chapter_seed": 8,
          "points_seen": 134_400, "gan": {"rounds": 1050, "early": 300, "batch": 128, "lr": 5e-3},
          "vae": {"steps": 1050, "early": 500, "batch": 128, "lr": 1e-2, "sigma_dec": 0.2},
          "ddpm": {"steps": 700, "batch": 192, "T": 50, "lr": [2e-2, 2e-4]},
          "samples": 1000, "mmd_points": 500, "bandwidth": 0.1, "radius": 3 * STD, "min_count": 10,
          "std_radius": 10 * STD, "null_draws": 30}
RUNS = ["GAN, 300 rounds", "GAN, 1,050 rounds", "GAN with minibatch std, 300 rounds",
        "GAN with minibatch std, 1,050 rounds", "VAE decoder means, 500 steps", "VAE decoder means, 1,050 steps",
        "VAE samples, 1,050 steps", "DDPM, σ_t² = β̃_t", "DDPM, σ_t² = β_t", "DDPM, σ_t² = β̃_t, clipped step skipped"]


def scores(samples, X_held_out, config):
    """(modes covered, high-quality fraction, std within modes, MMD²) of a sample (n, 2) of a model."""
    centres = data.gaussian_ring_centres()
    return (mmd.modes_covered(samples, centres, radius=config["radius"], min_count=config["min_count"]),
            mmd.high_quality_fraction(samples, centres, radius=config["radius"]),
            mmd.mode_std(samples, centres, radius=config["std_radius"]),
            mmd.mmd2(X_held_out, samples[:config["mmd_points"]], bandwidth=config["bandwidth"]))


def train_gan(seed, minibatch_std, X, config, X_held_out):
    c = config["gan"]
    model = gan.GAN(latent_dim=2, data_dim=2, generator_hidden=(32, 32), discriminator_hidden=(32, 32),
                    activation="relu", minibatch_std=minibatch_std, rng=np.random.default_rng(seed))
    d_optimizer = Adam(model.discriminator.parameters(), lr=c["lr"], betas=(0.5, 0.9))
    g_optimizer = Adam(model.generator.parameters(), lr=c["lr"], betas=(0.5, 0.9))
    rng, found = np.random.default_rng(seed + 1), []
    for round_ in range(1, c["rounds"] + 1):
        gan.gan_step(model, X[rng.integers(0, len(X), size=c["batch"])], d_optimizer=d_optimizer,
                     g_optimizer=g_optimizer, rng=rng)
        if round_ in (c["early"], c["rounds"]):
            found.append(scores(model.sample(config["samples"], rng=np.random.default_rng(seed + 2)), X_held_out,
                                config))
    return found


def train_vae(seed, X, config, X_held_out, arrays):
    c = config["vae"]
    model = vae.VAE(data_dim=2, latent_dim=2, hidden=(32, 32), sigma=c["sigma_dec"], activation="tanh",
                    rng=np.random.default_rng(seed))
    optimizer = Adam(model.parameters(), lr=c["lr"])
    rng, found, losses = np.random.default_rng(seed + 1), [], []
    for step in range(1, c["steps"] + 1):
        loss = model.loss(X[rng.integers(0, len(X), size=c["batch"])], rng=rng)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if step == c["early"] and seed == config["chapter_seed"]:  # the chapter's run: its losses and the VAE
            arrays[f"vae/seed{seed}/train_loss"] = np.array(losses)
            arrays.update({f"vae/seed{seed}/state/{k}": v for k, v in model.state_dict().items()})
        if step in (c["early"], c["steps"]):
            found.append(scores(model.sample(config["samples"], rng=np.random.default_rng(seed + 2)), X_held_out,
                                config))
    noisy = model.sample(config["samples"], rng=np.random.default_rng(seed + 2), noise=True)
    return [*found, scores(noisy, X_held_out, config)]


def train_ddpm(seed, X, config, X_held_out, arrays):
    c = config["ddpm"]
    schedule = diffusion.DDPMSchedule(diffusion.cosine_beta_schedule(c["T"]))
    denoiser = diffusion.Denoiser(data_dim=2, hidden=(48, 48, 48), time_dim=16, rng=np.random.default_rng(seed))
    optimizer = Adam(denoiser.parameters(), lr=c["lr"][0])
    rng, losses = np.random.default_rng(seed + 1), []
    for step in range(c["steps"]):
        optimizer.lr = c["lr"][1] + cosine_annealing(step, lr=c["lr"][0] - c["lr"][1], total_steps=c["steps"])
        loss = diffusion.diffusion_loss(denoiser, X[rng.integers(0, len(X), size=c["batch"])], schedule=schedule,
                                        rng=rng)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    if seed == config["chapter_seed"]:  # the chapter's run: its losses and the trained denoiser
        arrays[f"ddpm/seed{seed}/train_loss"] = np.array(losses)
        arrays.update({f"ddpm/seed{seed}/state/{k}": v for k, v in denoiser.state_dict().items()})
    found = [scores(diffusion.ddpm_sample(denoiser, config["samples"], schedule=schedule, variance=variance,
                                          rng=np.random.default_rng(seed + 2)), X_held_out, config)
             for variance in ("posterior", "beta")]
    without_last = diffusion.DDPMSchedule(schedule.betas[:-1])  # start at x_{T−1} ~ N(0, I): no clipped step
    skipped = diffusion.ddpm_sample(denoiser, config["samples"], schedule=without_last, variance="posterior",
                                    rng=np.random.default_rng(seed + 2))
    return [*found, scores(skipped, X_held_out, config)]


def run(config):
    X, _ = data.make_gaussian_ring(config["data"]["n"], rng=np.random.default_rng(config["data"]["seed"]))
    X_held_out, _ = data.make_gaussian_ring(config["held_out"]["n"],
                                            rng=np.random.default_rng(config["held_out"]["seed"]))
    table, arrays = {run: [] for run in RUNS}, {}
    for seed in config["seeds"]:
        start = time.perf_counter()
        found = [*train_gan(seed, False, X, config, X_held_out), *train_gan(seed, True, X, config, X_held_out),
                 *train_vae(seed, X, config, X_held_out, arrays), *train_ddpm(seed, X, config, X_held_out, arrays)]
        for run_name, row in zip(RUNS, found, strict=True):
            table[run_name].append(row)
        print(f"seed {seed}: " + "; ".join(f"{name} {m}/8 {q:.2f} {s:.3f} {d:.4f}"
                                           for name, (m, q, s, d) in zip(RUNS, found, strict=True))
              + f" ({time.perf_counter() - start:.0f} s)", flush=True)
    null = [mmd.mmd2(X_held_out, data.make_gaussian_ring(config["mmd_points"], rng=np.random.default_rng(1000 + k))[0],
                     bandwidth=config["bandwidth"]) for k in range(config["null_draws"])]
    arrays.update({f"scores/{run}": np.array(rows) for run, rows in table.items()})
    return arrays, np.array(null), {"training": X[:3].tolist(), "held_out": X_held_out[:3].tolist()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=CONFIG["seeds"], help="default: %(default)s")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the results (default: data/)")
    args = parser.parse_args()
    config = {**CONFIG, "seeds": args.seeds, "runs": RUNS}
    arrays, null, first_points = run(config)
    config["first_points"] = first_points
    np.savez_compressed(args.out, config=np.array(json.dumps(config, sort_keys=True)), null_mmd2=null, **arrays)
    print(f"wrote {args.out}")
    if args.out.resolve() == OUT:
        print(f"SHA-256 {update_checksum(args.out)} recorded in data/SHA256SUMS")


if __name__ == "__main__":
    main()
