"""Train chapter 5's deep dense network with and without batch normalization at five learning rates from two seeds,
and write the final training losses to data/digits_batchnorm_grid.npz.

    make batchnorm-grid       (or: OPENBLAS_NUM_THREADS=1 .venv/bin/python tools/train_batchnorm_grid.py)

The network is ``implementations.nn.convnets.deep_mlp`` (four hidden dense layers of width 32, with ``BatchNorm1d``
between each hidden ``Linear`` layer and its ReLU, or without); the two versions of one seed start from the same
weights and see the same mini-batches. Each run is plain SGD on the cross-entropy for 3 epochs of mini-batches of 64
(the incomplete last batch dropped), on the chapter's training split with each pixel standardized by the training
set's mean and standard deviation. A run whose gradient becomes NaN or infinite is stopped by the optimizer and
recorded as NaN. After training, the file records the cross-entropy on the whole training set in evaluation mode and
how far the predicted probabilities of the training images are from those of image 0.

The 20 runs take about a second on one core, more than the chapter's time budget (book/performance.md) can spare, so
the chapter loads the file
(``convnets.load_batchnorm_grid`` checks it against data/SHA256SUMS, which this script updates) and re-runs two of
its entries live. Training is seeded and single-threaded, so a rerun on the same machine writes the same numbers.
"""

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from train_cnn_comparison import split  # noqa: E402  (one home for the chapter's split)
from train_language_model import update_checksum  # noqa: E402  (one home for the data/SHA256SUMS update)

from implementations.data.loader import DataLoader  # noqa: E402
from implementations.engine import functional as F  # noqa: E402
from implementations.engine.autograd import no_grad  # noqa: E402
from implementations.nn.convnets import deep_mlp  # noqa: E402
from implementations.nn.optim import SGD  # noqa: E402

OUT = ROOT / "data" / "digits_batchnorm_grid.npz"
#: The grid: the rates (0.1 to 10, half a decade apart), the seeds, and each run's budget.
CONFIG = {"learning_rates": np.logspace(-1, 1, 5).tolist(), "seeds": [11, 12], "epochs": 3, "batch_size": 64,
          "split_seeds": [11, 12]}


def standardized_training_set(config):
    """The chapter's training pixels (1078, 64), each standardized by the training set, and their labels."""
    (images, y_train), _, _ = split(config)  # the split of the CNN comparison, pixels divided by 16
    X_train = images.reshape(len(images), -1)  # (1078, 64); the scale cancels in the standardization, exactly
    std = X_train.std(axis=0)
    std[std == 0] = 1.0  # a pixel that is blank in every training image stays 0
    return (X_train - X_train.mean(axis=0)) / std, y_train


def final_loss(X, y, *, batch_norm, lr, seed, config):
    """(final training loss, spread of the predictions) of one run, or (NaN, NaN) if the optimizer stopped it."""
    model = deep_mlp(rng=np.random.default_rng(seed), batch_norm=batch_norm)
    optimizer = SGD(model.parameters(), lr=lr)
    loader = DataLoader(X, y, batch_size=config["batch_size"], rng=np.random.default_rng(seed), drop_last=True)
    try:
        with np.errstate(over="ignore", invalid="ignore"):  # a diverging run overflows before it is stopped
            for _ in range(config["epochs"]):
                model.train()
                for X_batch, y_batch in loader:
                    loss = F.cross_entropy(model(X_batch), y_batch)
                    optimizer.zero_grad()
                    loss.backward()
                    optimizer.step()
    except FloatingPointError:  # the optimizer refuses a NaN or infinite gradient: the run diverged
        return np.nan, np.nan
    model.eval()
    with no_grad():
        Z = model(X)  # (N, 10) logits
        P = Z.softmax(axis=1).data  # (N, 10) predicted probabilities
        return F.cross_entropy(Z, y).item(), np.abs(P - P[0]).max()


def run(config):
    X, y = standardized_training_set(config)
    arrays = {}
    for seed in config["seeds"]:
        for batch_norm in (False, True):
            start = time.perf_counter()
            results = [final_loss(X, y, batch_norm=batch_norm, lr=lr, seed=seed, config=config)
                       for lr in config["learning_rates"]]
            key = f"bn{int(batch_norm)}/seed{seed}"
            arrays[f"{key}/final_loss"] = np.array([loss for loss, _ in results])
            arrays[f"{key}/spread"] = np.array([spread for _, spread in results])
            print(f"{'with' if batch_norm else 'without'} batch norm, seed {seed}: final losses "
                  + ", ".join(f"{loss:.2f}" for loss, _ in results) + f" ({time.perf_counter() - start:.1f} s)",
                  flush=True)
    return arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the results (default: data/)")
    args = parser.parse_args()
    arrays = run(CONFIG)
    np.savez_compressed(args.out, config=np.array(json.dumps(CONFIG, sort_keys=True)), **arrays)
    print(f"wrote {args.out}")
    if args.out.resolve() == OUT:
        print(f"SHA-256 {update_checksum(args.out)} recorded in data/SHA256SUMS")


if __name__ == "__main__":
    main()
