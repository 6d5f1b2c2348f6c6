"""Score chapter 10's shipped language model on the validation text, token by token: data/persuasion_tinygpt_eval.npz.

    .venv/bin/python tools/evaluate_language_model.py          (or: make language-model-eval)

Reads the trained state that ``tools/train_language_model.py`` wrote (it does not train) and stores, for the
targets of ``evaluation_windows`` on the validation text, the negative log-likelihood of each target read in
consecutive windows (``window_losses``, one row per window: column t had t + 1 tokens of context) and read through
windows that slide by half a context (``sliding_losses``: every target after the first window had at least 32 tokens
of context). Scoring them takes seconds, beyond the chapter's time budget; the chapter loads the file, which is checked
against data/SHA256SUMS (updated here). On another CPU the last digits can differ, and with them the checksum.
"""

import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from train_language_model import update_checksum  # noqa: E402

from implementations.data import datasets  # noqa: E402
from implementations.language.language_model import load_persuasion_model, sliding_window_losses  # noqa: E402

OUT = ROOT / "data" / "persuasion_tinygpt_eval.npz"


def main():
    start = time.perf_counter()
    model, tokenizer, _, config = load_persuasion_model()
    val_ids = tokenizer.encode(datasets.load_persuasion(split="validation"))
    T = config["block_size"]
    window_losses = sliding_window_losses(model, val_ids).reshape(-1, T)  # (W, T)
    sliding_losses = sliding_window_losses(model, val_ids, stride=T // 2)  # (W·T,)
    np.savez_compressed(OUT, window_losses=window_losses.astype(np.float32),
                        sliding_losses=sliding_losses.astype(np.float32))
    print(f"scored {sliding_losses.size:,} targets in {time.perf_counter() - start:.0f} s: consecutive windows "
          f"{window_losses.mean():.4f}, sliding windows {sliding_losses.mean():.4f} nats per token; wrote {OUT}")
    print(f"SHA-256 {update_checksum(OUT)} recorded in data/SHA256SUMS")


if __name__ == "__main__":
    main()
