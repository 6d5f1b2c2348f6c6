"""Train chapter 10's language model of *Persuasion* and write its state to data/persuasion_tinygpt.npz.

    .venv/bin/python tools/train_language_model.py          (or: make language-model)

The chapter trains this model only for a live stretch of its first steps (on smaller batches): training it far
enough to beat the n-gram baselines takes about half an hour on two cores, beyond the chapter's time budget. So the
chapter shows the training loop's code and loads the state this script writes for everything that needs the trained
model. The file holds the trained parameters, the BPE merges the model's tokens come from, the configuration below
and the training history; ``language_model.load_persuasion_model`` checks it against data/SHA256SUMS, which this
script updates. Training is seeded, so a rerun on the same machine writes the same numbers; on another CPU the last
digits of the floating-point results can differ, and with them the checksum.
"""

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from implementations.data import datasets  # noqa: E402
from implementations.language.bpe import BPETokenizer  # noqa: E402
from implementations.language.language_model import mean_cross_entropy, train_language_model  # noqa: E402
from implementations.language.transformer import TinyGPT  # noqa: E402

OUT = ROOT / "data" / "persuasion_tinygpt.npz"
#: The model and its training run, as the chapter describes them.
CONFIG = {"vocab_size": 512, "block_size": 64, "d_model": 96, "num_heads": 4, "num_layers": 3, "d_ff": 384,
          "tie_weights": True, "dropout": 0.1, "scale_residual_init": True, "seed": 7, "steps": 4400,
          "batch_size": 32, "lr": 3e-3, "warmup_steps": 100, "min_lr": 3e-4, "weight_decay": 0.1, "max_norm": 1.0,
          "eval_every": 100}


def train(config):
    """The tokenizer, the trained model and its history, from the configuration."""
    train_text = datasets.load_persuasion(split="train")
    val_text = datasets.load_persuasion(split="validation")
    tok = BPETokenizer().train(train_text, config["vocab_size"])
    train_ids, val_ids = tok.encode(train_text), tok.encode(val_text)
    rng = np.random.default_rng(config["seed"])
    model = TinyGPT(config["vocab_size"], config["block_size"], config["d_model"], config["num_heads"],
                    config["num_layers"], config["d_ff"], rng=rng, tie_weights=config["tie_weights"],
                    dropout=config["dropout"], scale_residual_init=config["scale_residual_init"])
    history = train_language_model(model, train_ids, steps=config["steps"], batch_size=config["batch_size"],
                                   lr=config["lr"], warmup_steps=config["warmup_steps"], rng=rng,
                                   weight_decay=config["weight_decay"], max_norm=config["max_norm"],
                                   min_lr=config["min_lr"],
                                   val_ids=val_ids, eval_every=config["eval_every"])
    return tok, model, history, val_ids


def save(path, tok, model, history, config):
    """Parameters under "param/<name>", history under "history/<key>", the merges and the configuration."""
    merges = np.array([(a, b, new) for (a, b), new in tok.merges.items()], dtype=np.int64)  # (V − 256, 3), in order
    arrays = {f"param/{name}": value for name, value in model.state_dict().items()}
    arrays.update({f"history/{key}": value for key, value in history.items()})
    np.savez_compressed(path, merges=merges, config=np.array(json.dumps(config, sort_keys=True)), **arrays)


def update_checksum(path):
    """Replace (or add) the file's line in data/SHA256SUMS."""
    sums = path.parent / "SHA256SUMS"
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    lines = [line for line in sums.read_text().splitlines() if not line.endswith(f"  {path.name}")]
    lines.append(f"{digest}  {path.name}")
    sums.write_text("\n".join(sorted(lines, key=lambda line: line.split()[-1])) + "\n")
    return digest


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=CONFIG["steps"], help="training steps (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the state (default: data/)")
    args = parser.parse_args()
    config = {**CONFIG, "steps": args.steps}
    start = time.perf_counter()
    tok, model, history, val_ids = train(config)
    elapsed = time.perf_counter() - start
    save(args.out, tok, model, history, config)
    print(f"trained {config['steps']} steps in {elapsed:.0f} s; validation cross-entropy "
          f"{mean_cross_entropy(model, val_ids):.4f} nats per token; wrote {args.out}")
    if args.out.resolve() == OUT:
        print(f"SHA-256 {update_checksum(args.out)} recorded in data/SHA256SUMS")


if __name__ == "__main__":
    main()
