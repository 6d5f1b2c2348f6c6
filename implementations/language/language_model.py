"""Training and evaluating a language model on a long token sequence (chapter 10).

A text becomes one long sequence of token ids. Training reads it through random windows: a batch of B windows of
T + 1 consecutive tokens, whose first T tokens are the input and whose last T the targets, so that position t of a
window predicts token t + 1 (teacher forcing over the whole window, as the causal mask allows). Evaluation reads a
held-out sequence in consecutive windows and reports the mean cross-entropy per token, in nats; its exponential is
the perplexity, comparable with :func:`implementations.language.ngram.cross_entropy` on the same tokens. In
consecutive windows a window's first targets have little context; :func:`sliding_window_losses` scores the same
targets through overlapping windows, so that each has at least T − stride tokens before it.

:func:`train_language_model` is the loop that trained the book's model of *Persuasion*
(``tools/train_language_model.py`` writes the trained state to ``data/``): AdamW, a linear warm-up followed by cosine
decay, and gradient clipping.
"""


import numpy as np

from .._contract import checked
from .._validation import folder_holding
from ..data import datasets
from ..engine.autograd import no_grad
from ..nn.optim import AdamW, clip_grad_norm, warmup_cosine
from . import _checks
from .bpe import BPETokenizer
from .transformer import TinyGPT

__all__ = ["random_windows", "evaluation_windows", "train_language_model", "mean_cross_entropy",
           "sliding_window_losses", "load_persuasion_model"]

PERSUASION_MODEL = "persuasion_tinygpt.npz"


@checked(block_size="count", batch_size="count", rng="rng", ids=_checks.token_sequence, also=_checks.ids_hold_a_window)
def random_windows(ids, block_size, batch_size, *, rng):
    """A batch of random windows of ``ids``: inputs and targets, the targets shifted by one token.

    Parameters
    ----------
    ids : array_like of int, shape (n,), n > block_size
        The token sequence.
    block_size : int
        T, the window length.
    batch_size : int
        B.
    rng : numpy.random.Generator
        Draws the B start positions uniformly from 0, …, n − T − 1.

    Returns
    -------
    inputs, targets : int arrays of shape (B, T); targets[b, t] = inputs[b, t + 1] for t < T − 1
    """
    starts = rng.integers(0, ids.size - block_size, size=batch_size)  # (B,)
    rows = starts[:, None] + np.arange(block_size + 1)  # (B, T + 1): each window's positions
    windows = ids[rows]
    return windows[:, :-1], windows[:, 1:]


@checked(block_size="count", ids=_checks.token_sequence, also=_checks.ids_hold_a_window)
def evaluation_windows(ids, block_size):
    """``ids`` cut into consecutive, non-overlapping windows: inputs and targets of shape (W, T).

    Every token after the first of the first ⌊(n − 1) / T⌋·T + 1 is a target exactly once, predicted from the
    tokens of its own window up to it (1 to T of them: the window's first target has only the window's first
    token as context), as a model with a context of T tokens reads a text
    it has not seen. The few tokens that do not fill a last window are left out.

    Parameters
    ----------
    ids : array_like of int, shape (n,), n > block_size
    block_size : int

    Returns
    -------
    inputs, targets : int arrays of shape (W, T), W = ⌊(n − 1) / T⌋
    """
    W = (ids.size - 1) // block_size
    inputs = ids[: W * block_size].reshape(W, block_size)
    targets = ids[1 : W * block_size + 1].reshape(W, block_size)
    return inputs, targets


@checked(model=_checks.language_model, batch_size="count", ids=_checks.token_sequence, also=_checks.ids_fit_model)
def mean_cross_entropy(model, ids, *, batch_size=64):
    """Mean cross-entropy per token, in nats, of ``model`` on ``ids`` read in :func:`evaluation_windows`.

    Parameters
    ----------
    model : TinyGPT (or any model with ``loss``, ``parameters`` and ``block_size``)
    ids : array_like of int, shape (n,), n > model.block_size
    batch_size : int, default 64
        Windows per forward pass (memory only: the result does not depend on it beyond round-off).

    Returns
    -------
    float
        exp of it is the model's perplexity on ``ids``.
    """
    inputs, targets = evaluation_windows(ids, model.block_size)
    total = 0.0
    with no_grad():
        for start in range(0, len(inputs), batch_size):
            rows = slice(start, start + batch_size)
            total += model.loss(inputs[rows], targets[rows]).item() * targets[rows].size
    return total / targets.size


@checked(model=_checks.language_model, stride="count?", batch_size="count", ids=_checks.token_sequence,
         also=(_checks.ids_fit_model, _checks.stride_divides_block))
def sliding_window_losses(model, ids, *, stride=None, batch_size=64):
    """The negative log-likelihood of each target of :func:`evaluation_windows`, read through sliding windows.

    Windows of T = ``model.block_size`` tokens start every ``stride`` tokens. The first window scores all its T
    targets; each later one only its last ``stride``, which have at least T − stride tokens of context. With
    ``stride = T`` (the default) these are the consecutive windows of :func:`mean_cross_entropy`, whose target t of
    a window has t + 1 tokens of context; with ``stride = T // 2`` every target after the first T has at least T / 2.

    Parameters
    ----------
    model : TinyGPT
    ids : array_like of int, shape (n,), n > model.block_size
    stride : int dividing block_size, optional
    batch_size : int, default 64

    Returns
    -------
    losses : ndarray of shape (W·T,)
        −log p(ids[t + 1] | context), for t = 0, …, W·T − 1 with W = ⌊(n − 1) / T⌋: the targets of
        :func:`evaluation_windows`, in order; their mean is the cross-entropy.
    """
    T = model.block_size
    stride = stride or T
    W = (ids.size - 1) // T
    starts = np.arange(0, (W - 1) * T + 1, stride)  # every window lies inside the W·T + 1 tokens
    losses = np.empty(W * T)
    with no_grad():
        for first in range(0, len(starts), batch_size):
            s = starts[first : first + batch_size]
            rows = s[:, None] + np.arange(T)  # (b, T)
            logits = model(ids[rows]).data  # (b, T, V)
            m = logits.max(axis=-1, keepdims=True)
            log_z = (m + np.log(np.exp(logits - m).sum(axis=-1, keepdims=True)))[..., 0]  # (b, T)
            nll = log_z - np.take_along_axis(logits, ids[rows + 1][..., None], axis=-1)[..., 0]  # (b, T)
            for start, row in zip(s, nll, strict=True):
                keep = T if start == 0 else stride  # a later window scores only its last stride targets
                losses[start + T - keep : start + T] = row[T - keep :]
    return losses


@checked(model=_checks.language_model, steps="count", batch_size="count", lr="rate", warmup_steps="count0",
         rng="rng", weight_decay="penalty", max_norm="rate", min_lr="penalty", ids=_checks.token_sequence,
         val_ids=_checks.token_sequence, eval_every="count?", stop_after="count?",
         also=(_checks.warmup_within_steps, _checks.stop_within_steps, _checks.ids_fit_model,
               _checks.val_ids_fit_model))
def train_language_model(model, ids, *, steps, batch_size, lr, warmup_steps, rng, weight_decay=0.1, max_norm=1.0,
                         min_lr=0.0, val_ids=None, eval_every=None, stop_after=None):
    """Train ``model`` on random windows of ``ids`` with AdamW, warm-up + cosine decay and gradient clipping.

    Step t draws ``batch_size`` windows of ``model.block_size`` tokens (:func:`random_windows`), sets the rate to
    ``warmup_cosine(t, lr=lr, warmup_steps=warmup_steps, total_steps=steps, min_lr=min_lr)``, clips the gradient's
    norm at ``max_norm`` and takes one AdamW step with β = (0.9, 0.99). The decoupled weight decay ``weight_decay``
    shrinks only ``model.weight_matrices()``; the biases, LayerNorm parameters and embeddings get a second AdamW
    without decay. The model trains in training mode (dropout on) and is scored, and returned, in evaluation mode.

    Parameters
    ----------
    model : TinyGPT
    ids : array_like of int, shape (n,)
        The training tokens.
    steps, batch_size : int
    lr : float > 0
        The peak learning rate.
    warmup_steps : int, 0 <= warmup_steps < steps
    rng : numpy.random.Generator
        Draws the windows.
    weight_decay : float >= 0, default 0.1
    max_norm : float > 0, default 1.0
    min_lr : float in [0, lr], default 0
    val_ids : array_like of int, optional
        Held-out tokens, scored with :func:`mean_cross_entropy` every ``eval_every`` steps and after the last.
    eval_every : int, optional
        Required with ``val_ids``.
    stop_after : int, 1 <= stop_after <= steps, optional
        Take only the first ``stop_after`` steps of the ``steps``-step run, with the rates that run would use; with
        the same model, ``rng`` and arguments they are that run's first steps exactly. By default all ``steps``.

    Returns
    -------
    history : dict of ndarray
        ``loss`` (S,) the training batch's loss before each step, ``lr`` (S,) its rate, ``grad_norm`` (S,) the
        gradient norm before clipping, S = ``stop_after`` or ``steps``; with ``val_ids``, ``val_step`` and
        ``val_loss``.
    """
    params, decayed = model.parameters(), model.weight_matrices()
    rest = [p for p in params if all(p is not m for m in decayed)]  # biases, LayerNorms, embeddings
    optimizers = [AdamW(decayed, lr=lr, betas=(0.9, 0.99), weight_decay=weight_decay),
                  AdamW(rest, lr=lr, betas=(0.9, 0.99), weight_decay=0.0)]
    taken = steps if stop_after is None else stop_after
    history = {"loss": np.empty(taken), "lr": np.empty(taken), "grad_norm": np.empty(taken)}
    val_step, val_loss = [], []
    model.train()
    for t in range(taken):
        rate = warmup_cosine(t, lr=lr, warmup_steps=warmup_steps, total_steps=steps, min_lr=min_lr)
        inputs, targets = random_windows(ids, model.block_size, batch_size, rng=rng)
        loss = model.loss(inputs, targets)
        model.zero_grad()
        loss.backward()
        history["grad_norm"][t] = clip_grad_norm(params, max_norm)
        for optimizer in optimizers:
            optimizer.lr = rate
            optimizer.step()
        history["loss"][t], history["lr"][t] = loss.item(), rate
        if val_ids is not None and ((t + 1) % eval_every == 0 or t + 1 == taken):
            val_step.append(t + 1)
            val_loss.append(mean_cross_entropy(model.eval(), val_ids))
            model.train()
    model.eval()
    if val_ids is not None:
        history["val_step"], history["val_loss"] = np.array(val_step), np.array(val_loss)
    return history


@checked(data_dir=folder_holding(PERSUASION_MODEL))
def load_persuasion_model(*, data_dir=None):
    """The book's TinyGPT trained on *Persuasion*, written by ``tools/train_language_model.py``.

    The file is checked against ``data/SHA256SUMS`` first (:func:`~implementations.data.datasets.verify_checksum`).

    Parameters
    ----------
    data_dir : str or pathlib.Path, optional
        Folder holding ``persuasion_tinygpt.npz`` and ``SHA256SUMS``; defaults to the repository's ``data/``.

    Returns
    -------
    model : TinyGPT
        With the trained parameters.
    tokenizer : BPETokenizer
        The tokenizer whose ids the model reads (trained on ``load_persuasion(split="train")``).
    history : dict of ndarray
        As returned by :func:`train_language_model`.
    config : dict
        The sizes and the training settings.
    """
    def read(stored, config):
        pairs = stored["merges"][:, :2]  # (V − 256, 2): merge k joined pairs[k] into id 256 + k
        state = {key.removeprefix("param/"): stored[key] for key in stored.files if key.startswith("param/")}
        history = {key.removeprefix("history/"): stored[key] for key in stored.files if key.startswith("history/")}
        model = TinyGPT(config["vocab_size"], config["block_size"], config["d_model"], config["num_heads"],
                        config["num_layers"], config["d_ff"], rng=np.random.default_rng(config["seed"]),
                        tie_weights=config["tie_weights"], dropout=config.get("dropout", 0.0))
        model.load_state_dict(state)
        model.eval()  # dropout off
        return model, BPETokenizer.from_merges(pairs), history, config

    return datasets.read_shipped_archive(PERSUASION_MODEL, read, data_dir=data_dir)
