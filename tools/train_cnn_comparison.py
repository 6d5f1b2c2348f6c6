"""Train chapter 5's plain CNN, the CNN with batch normalization and the small ResNet on the digits, from several
seeds, and write the results to data/digits_cnn_comparison.npz.

    .venv/bin/python tools/train_cnn_comparison.py          (or: make cnn-comparison)

The three networks (``implementations.nn.convnets``) get the same optimiser settings: Adam with learning rate 0.01,
mini-batches of 32, the same number of epochs, the weights of the epoch of best validation accuracy kept (a
best-validation checkpoint), the test set used once at the end. The split is the chapter's (a stratified quarter of
the digits for the test set, a fifth of the rest for validation, seeds 11 and 12). Each seed sets a network's
initial weights and the order of its mini-batches; the three networks of one seed see the same batches. The file
holds, per network and seed, which test images the network classifies correctly, its training loss and validation
accuracy after every epoch, and the epoch kept; the chapter loads it (``convnets.load_cnn_comparison`` checks it
against data/SHA256SUMS, which this script updates) and compares the networks with McNemar's test. Training is
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
from implementations.data import preprocessing  # noqa: E402
from implementations.data.loader import DataLoader  # noqa: E402
from implementations.engine import functional as F  # noqa: E402
from implementations.engine.autograd import no_grad  # noqa: E402
from implementations.nn import parameter_count  # noqa: E402
from implementations.nn.convnets import small_cnn, small_resnet  # noqa: E402
from implementations.nn.optim import Adam  # noqa: E402

OUT = ROOT / "data" / "digits_cnn_comparison.npz"
#: The budget every network gets, and the seeds.
CONFIG = {"epochs": 20, "batch_size": 32, "lr": 0.01, "seeds": [0, 1, 2, 3, 4], "split_seeds": [11, 12],
          "resnet_channels": [8, 16]}
MODELS = {"CNN": lambda rng: small_cnn(rng=rng),
          "CNN with batch norm": lambda rng: small_cnn(rng=rng, batch_norm=True),
          "ResNet": lambda rng: small_resnet(rng=rng, channels=tuple(CONFIG["resnet_channels"]))}


def split(config):
    """The chapter's training, validation and test images (N, 1, 8, 8) and labels."""
    X, y = data.load_digits()
    X_rest, X_test, y_rest, y_test = preprocessing.train_test_split(
        X.reshape(-1, 64) / 16.0, y, test_fraction=0.25, rng=np.random.default_rng(config["split_seeds"][0]),
        stratify=True)
    X_train, X_val, y_train, y_val = preprocessing.train_test_split(
        X_rest, y_rest, test_fraction=0.2, rng=np.random.default_rng(config["split_seeds"][1]), stratify=True)
    return [(X_.reshape(-1, 1, 8, 8), y_.astype(int)) for X_, y_ in
            [(X_train, y_train), (X_val, y_val), (X_test, y_test)]]


def predict(model, X):
    model.eval()
    with no_grad():
        return model(X).data.argmax(axis=1)


def train(model, train_set, val_set, config, rng):
    """Adam on the cross-entropy; the model ends with its weights of best validation accuracy. Returns the mean
    training loss and the validation accuracy of every epoch, and the epoch kept (from 1)."""
    optimizer = Adam(model.parameters(), lr=config["lr"])
    loader = DataLoader(*train_set, batch_size=config["batch_size"], rng=rng)
    losses, val_accuracy, best = [], [], (-1.0, None, 0)
    for epoch in range(1, config["epochs"] + 1):
        model.train()
        step_losses = []
        for X_batch, y_batch in loader:
            loss = F.cross_entropy(model(X_batch), y_batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step_losses.append(loss.item())
        losses.append(np.mean(step_losses))
        val_accuracy.append(np.mean(predict(model, val_set[0]) == val_set[1]))
        if val_accuracy[-1] > best[0]:
            best = (val_accuracy[-1], model.state_dict(), epoch)
    model.load_state_dict(best[1])
    return np.array(losses), np.array(val_accuracy), best[2]


def run(config):
    train_set, val_set, (X_test, y_test) = split(config)
    arrays = {"y_test": y_test}
    for name, build in MODELS.items():
        for seed in config["seeds"]:
            start = time.perf_counter()
            model = build(np.random.default_rng(seed))
            loss, val_accuracy, kept = train(model, train_set, val_set, config, np.random.default_rng(seed))
            correct = predict(model, X_test) == y_test
            key = f"{name}/seed{seed}"
            arrays.update({f"{key}/test_correct": correct, f"{key}/train_loss": loss,
                           f"{key}/val_accuracy": val_accuracy, f"{key}/epoch_kept": np.array(kept),
                           f"{key}/parameters": np.array(parameter_count(model))})
            print(f"{name:<20} seed {seed}: {parameter_count(model):5} parameters, test accuracy "
                  f"{correct.mean():.3f}, epoch kept {kept:2}, {time.perf_counter() - start:.0f} s", flush=True)
    return arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=CONFIG["epochs"], help="epochs (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the results (default: data/)")
    args = parser.parse_args()
    config = {**CONFIG, "epochs": args.epochs, "models": list(MODELS)}
    arrays = run(config)
    np.savez_compressed(args.out, config=np.array(json.dumps(config, sort_keys=True)), **arrays)
    print(f"wrote {args.out}")
    if args.out.resolve() == OUT:
        print(f"SHA-256 {update_checksum(args.out)} recorded in data/SHA256SUMS")


if __name__ == "__main__":
    main()
