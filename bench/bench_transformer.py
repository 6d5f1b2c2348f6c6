"""Benchmark of chapter 7's attention and chapter 10's TinyGPT (run with `make bench`; nothing is asserted).

Reports
1. ``attention.multi_head_attention`` forward on NumPy arrays at B = 8, T = 256, D = 256, 8 heads,
   with a causal mask;
2. one TinyGPT training step (forward, backward, AdamW update) of chapter 10's language model of *Persuasion*;
3. ``TinyGPT.generate`` of 63 new tokens from a one-token prompt, with and without the key–value cache, with that
   model's sizes (the 64 tokens fill its context, block_size 64, exactly).

Figures 1 and 2 are the median of several repetitions; 3 is the fastest of several runs, with and without the
cache interleaved so that a slow spell of the machine hits both.
"""

import time

import numpy as np
from bench_autograd import median_time  # this folder is on sys.path when a bench script runs

from implementations.language.attention import causal_mask, multi_head_attention
from implementations.language.transformer import TinyGPT
from implementations.nn.optim import AdamW

# The model and batch of chapter 10's language model (tools/train_language_model.py); keep in step with it.
GPT_SIZE = {"vocab_size": 512, "block_size": 64, "d_model": 96, "num_heads": 4, "num_layers": 3, "d_ff": 384,
            "tie_weights": True, "dropout": 0.2, "scale_residual_init": True}
GPT_BATCH = 32


def attention_time(B=8, T=256, D=256, heads=8):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(B, T, D))
    W = [rng.normal(size=(D, D)) / np.sqrt(D) for _ in range(4)]
    mask = causal_mask(T)
    return median_time(lambda: multi_head_attention(X, *W, num_heads=heads, mask=mask), repeats=10)


def gpt_step_time():
    rng = np.random.default_rng(0)
    model = TinyGPT(**GPT_SIZE, rng=rng)
    optimizer = AdamW(model.parameters(), lr=1e-3)
    idx = rng.integers(0, GPT_SIZE["vocab_size"], size=(GPT_BATCH, GPT_SIZE["block_size"]))
    targets = rng.integers(0, GPT_SIZE["vocab_size"], size=idx.shape)

    def step():
        loss = model.loss(idx, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    return median_time(step, repeats=20)


def generate_times(block_size=GPT_SIZE["block_size"], new_tokens=63, batch=GPT_BATCH, repeats=5):
    """(without, with) the key–value cache: fastest time of ``generate`` from one-token prompts, in seconds."""
    model = TinyGPT(**{**GPT_SIZE, "block_size": block_size}, rng=np.random.default_rng(0)).eval()  # dropout off
    prompt = np.zeros((batch, 1), dtype=int)
    times = {False: [], True: []}
    for _ in range(repeats):
        for use_cache, runs in times.items():
            start = time.perf_counter()
            model.generate(prompt, new_tokens, rng=np.random.default_rng(0), use_cache=use_cache)
            runs.append(time.perf_counter() - start)
    return min(times[False]), min(times[True])


if __name__ == "__main__":
    print(f"multi_head_attention forward, B=8, T=256, D=256, 8 heads, causal: {attention_time() * 1e3:.0f} ms "
          "(median of 10)")
    size = ", ".join(f"{k}={v}" for k, v in GPT_SIZE.items())
    print(f"TinyGPT ({size}), batch {GPT_BATCH}, one AdamW training step: {gpt_step_time() * 1e3:.1f} ms "
          "(median of 20)")
    without, with_cache = generate_times()
    print(f"TinyGPT generate, batch {GPT_BATCH}, 63 new tokens from 1-token prompts: "
          f"{without * 1e3:.0f} ms without the key-value cache, {with_cache * 1e3:.0f} ms with it "
          f"({without / with_cache:.1f}x) (fastest of 5)")
