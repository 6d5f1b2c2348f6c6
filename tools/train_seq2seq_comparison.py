"""Train chapter 7's recurrent encoder–decoders (with and without attention) and the encoder–decoder transformer on
digit reversal, from several seeds, and write the results to data/reversal_seq2seq_comparison.npz.

    .venv/bin/python tools/train_seq2seq_comparison.py          (or: make seq2seq-comparison)

The task and the budget are those of the chapter's section on encoder–decoders: reverse a sequence of 2 to 6 digits
(``reversal_batch`` below is the chapter's), Adam on fresh batches of 48 sequences with the learning rate annealed
from 0.02 to 0 by a cosine, 120 updates, and twice as many for a second look. Seed s builds a model from
``default_rng(s)`` and draws its batches from ``default_rng(s + 1)``, as the chapter's runs with s = 5 do, so the
three models of one seed see the same batches. All are scored by greedy decoding on the chapter's test sources, 200
of each length drawn from ``default_rng(7)``; the file holds, per model, budget and seed, which test sources the
model reverses exactly, its training losses, its parameter count, and its attention weights while it reverses
3 1 4 1 5 9 (the chapter's example; empty for the model without attention), besides the test sources and the first
training batch of seed 5, which the chapter compares with its own. For the first budget it also holds beam search's
answers to the first 100 test sources of 6 digits, for beam widths 1, 2, 4 and 8 and length penalties 0 and 1:
whether each is right, and its score; and for seed 5 the trained parameters of the two recurrent models
(``{model}/120/seed5/state/{name}``, as ``state_dict`` names them): the chapter runs the first updates of their
training live, checks them against the stored losses, and loads these states for the rest. The chapter checks the
file against data/SHA256SUMS, which this script updates. Training is seeded and single-threaded, so a rerun on the
same machine writes the same numbers.
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

from implementations.engine.autograd import no_grad  # noqa: E402
from implementations.language.decoding import beam_search  # noqa: E402
from implementations.language.seq2seq import Seq2Seq  # noqa: E402
from implementations.language.seq2seq_transformer import TransformerSeq2Seq  # noqa: E402
from implementations.nn import parameter_count  # noqa: E402
from implementations.nn.optim import Adam, cosine_annealing  # noqa: E402

OUT = ROOT / "data" / "reversal_seq2seq_comparison.npz"
BOS, EOS = 10, 11  # target tokens: the digits 0-9, start and end
#: The budgets (numbers of updates), the optimiser's settings, the seeds, and the test set.
CONFIG = {"budgets": [120, 240], "batch_size": 48, "lr": 0.02, "seeds": [5, 15, 25, 35, 45, 55, 65, 75, 85, 95],
          "test_seed": 7, "test_per_length": 200, "lengths": [2, 3, 4, 5, 6], "example": [3, 1, 4, 1, 5, 9],
          "beam_widths": [1, 2, 4, 8], "length_penalties": [0.0, 1.0], "beam_sources": 100}
MODELS = {"recurrent": lambda rng: Seq2Seq(10, 12, 8, 32, rng=rng, attention=True, attention_size=16),
          "recurrent without attention": lambda rng: Seq2Seq(10, 12, 8, 32, rng=rng, attention=False),
          "transformer": lambda rng: TransformerSeq2Seq(10, 12, 24, 4, 1, 48, block_size=7, rng=rng)}


def reversal_batch(n, rng, *, min_length=2, max_length=6):
    """The chapter's batches: sources (n, S) padded with 0, decoder inputs and targets (n, S + 1), lengths (n,)."""
    lengths = rng.integers(min_length, max_length + 1, size=n)
    S = lengths.max()
    real = np.arange(S) < lengths[:, None]  # (n, S)
    src = np.where(real, rng.integers(0, 10, size=(n, S)), 0)
    mirrored = np.where(real, lengths[:, None] - 1 - np.arange(S), 0)  # position j reads length - 1 - j
    answer = np.take_along_axis(src, mirrored, axis=1)
    targets = np.full((n, S + 1), -1)
    targets[:, :S] = np.where(real, answer, -1)
    targets[np.arange(n), lengths] = EOS
    decoder_in = np.concatenate([np.full((n, 1), BOS), np.where(real, answer, EOS)], axis=1)
    return src, decoder_in, targets, lengths


def test_sources(config):
    """The chapter's test sources: for each length n, an (N, n) array, drawn in the order of the lengths."""
    rng = np.random.default_rng(config["test_seed"])
    return {n: rng.integers(0, 10, size=(config["test_per_length"], n)) for n in config["lengths"]}


def train(model, steps, config, rng):
    """The chapter's loop: Adam, cosine annealing to 0, a fresh batch per update. Returns the losses."""
    optimizer, losses = Adam(model.parameters(), lr=config["lr"]), []
    for step in range(steps):
        optimizer.lr = cosine_annealing(step, lr=config["lr"], total_steps=steps)
        src, decoder_in, targets, lengths = reversal_batch(config["batch_size"], rng)
        loss = model.loss(src, decoder_in, targets, src_lengths=lengths, ignore_index=-1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return np.array(losses)


def exact(model, sources):
    """Whether greedy decoding writes each test source reversed and then the end token, one bool per source."""
    correct = []
    for src in sources.values():
        written = model.greedy(src, start_id=BOS, max_len=src.shape[1] + 1)  # (N, n + 1)
        answer = np.concatenate([src[:, ::-1], np.full((len(src), 1), EOS)], axis=1)
        correct.append((written == answer).all(axis=1))
    return np.concatenate(correct)


def alignment(model, source):
    """The attention weights while the model reverses ``source``: (T, S) for the recurrent model, (layers, h, T, S)
    for the transformer's cross-attention, an empty array for the model without attention."""
    if isinstance(model, Seq2Seq) and not model.attention:
        return np.zeros(0)
    with no_grad():
        _, weights = model(source[None], np.r_[BOS, source[::-1]][None], return_weights=True)
    return weights[0] if isinstance(model, Seq2Seq) else np.stack([w[0] for w in weights])


def beams(model, sources, config):
    """Beam search on the first ``beam_sources`` test sources of the longest length, for every width and length
    penalty: whether the best hypothesis is the right answer, and its score, each (penalties, widths, sources)."""
    src = sources[max(config["lengths"])][: config["beam_sources"]]
    shape = (len(config["length_penalties"]), len(config["beam_widths"]), len(src))
    correct, score = np.zeros(shape, dtype=bool), np.zeros(shape)
    for i, x in enumerate(src):
        log_probs_fn, answer = model.log_probs_fn(x), np.r_[BOS, x[::-1], EOS]
        for a, alpha in enumerate(config["length_penalties"]):
            for k, width in enumerate(config["beam_widths"]):
                ids, score[a, k, i], _ = beam_search(log_probs_fn, BOS, beam_width=width, max_len=len(x) + 2,
                                                     eos_id=EOS, length_penalty=alpha)
                correct[a, k, i] = np.array_equal(ids, answer)
    return correct, score


def run(config):
    sources = test_sources(config)
    first_batch = reversal_batch(config["batch_size"], np.random.default_rng(config["seeds"][0] + 1))
    arrays = {f"test_sources/{n}": src for n, src in sources.items()}
    arrays.update({f"first_batch/{k}": a for k, a in zip(("src", "decoder_in", "targets", "lengths"), first_batch,
                                                                  strict=True)})
    example = np.array(config["example"])
    for steps in config["budgets"]:
        for seed in config["seeds"]:
            for name, build in MODELS.items():
                start = time.perf_counter()
                model = build(np.random.default_rng(seed))
                losses = train(model, steps, config, np.random.default_rng(seed + 1))
                correct = exact(model, sources)
                key = f"{name}/{steps}/seed{seed}"
                arrays.update({f"{key}/test_correct": correct, f"{key}/train_loss": losses,
                               f"{key}/parameters": np.array(parameter_count(model)),
                               f"{key}/alignment": alignment(model, example)})
                if steps == config["budgets"][0]:
                    arrays[f"{key}/beam_correct"], arrays[f"{key}/beam_score"] = beams(model, sources, config)
                    if seed == config["seeds"][0] and isinstance(model, Seq2Seq):  # the chapter's two models
                        arrays.update({f"{key}/state/{k}": v for k, v in model.state_dict().items()})
                print(f"{name:<12} {steps} updates, seed {seed:2}: {parameter_count(model):6,} parameters, exact "
                      f"{correct.mean():.3f}, {time.perf_counter() - start:.0f} s", flush=True)
    return arrays


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="where to write the results (default: data/)")
    args = parser.parse_args()
    config = {**CONFIG, "models": list(MODELS)}
    arrays = run(config)
    np.savez_compressed(args.out, config=np.array(json.dumps(config, sort_keys=True)), **arrays)
    print(f"wrote {args.out}")
    if args.out.resolve() == OUT:
        print(f"SHA-256 {update_checksum(args.out)} recorded in data/SHA256SUMS")


if __name__ == "__main__":
    main()
