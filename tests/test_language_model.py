"""Tests of implementations.language.language_model: windows, evaluation, the training loop and the shipped trained
state."""

import shutil

import numpy as np
import pytest

from implementations.data import datasets
from implementations.engine.autograd import no_grad
from implementations.language.language_model import (
    evaluation_windows,
    load_persuasion_model,
    mean_cross_entropy,
    random_windows,
    train_language_model,
)
from implementations.language.transformer import TinyGPT
from implementations.nn import optim


def tiny_model(V=7, T=6, seed=0):
    return TinyGPT(V, T, 16, 2, 1, 32, rng=np.random.default_rng(seed), tie_weights=True)


def test_random_windows_are_slices_with_targets_shifted_by_one():
    ids = np.arange(100) * 3  # every id tells its position
    inputs, targets = random_windows(ids, 8, 5, rng=np.random.default_rng(1))
    assert inputs.shape == targets.shape == (5, 8)
    starts = inputs[:, 0] // 3
    for b in range(5):
        np.testing.assert_array_equal(inputs[b], ids[starts[b] : starts[b] + 8])
        np.testing.assert_array_equal(targets[b], ids[starts[b] + 1 : starts[b] + 9])
    again = random_windows(ids, 8, 5, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(again[0], inputs)


def test_random_windows_reach_both_ends():
    ids = np.arange(11)
    inputs, targets = random_windows(ids, 10, 200, rng=np.random.default_rng(2))
    assert set(inputs[:, 0]) == {0} and set(targets[:, -1]) == {10}  # the one window that fits
    inputs, _ = random_windows(np.arange(30), 10, 2000, rng=np.random.default_rng(3))
    assert set(inputs[:, 0]) == set(range(20))  # every start 0..n − T − 1


def test_evaluation_windows_predict_every_token_once():
    ids = np.arange(50)
    inputs, targets = evaluation_windows(ids, 7)
    assert inputs.shape == targets.shape == (7, 7)  # (50 − 1) // 7 windows
    np.testing.assert_array_equal(targets.ravel(), ids[1:50])
    np.testing.assert_array_equal(inputs.ravel(), ids[:49])


def test_mean_cross_entropy_is_the_log_softmax_of_the_target_averaged_over_all_tokens():
    model = tiny_model()
    ids = np.random.default_rng(4).integers(0, 7, size=40)
    inputs, targets = evaluation_windows(ids, model.block_size)
    with no_grad():
        z = model(inputs).data  # (W, T, V)
    log_p = z - z.max(axis=-1, keepdims=True)
    log_p -= np.log(np.exp(log_p).sum(axis=-1, keepdims=True))
    expected = -np.take_along_axis(log_p, targets[..., None], axis=-1).mean()
    for batch_size in (1, 2, 64):  # the batching does not change the mean
        assert mean_cross_entropy(model, ids, batch_size=batch_size) == pytest.approx(expected, rel=1e-12)


def test_training_follows_warmup_cosine_and_learns_a_periodic_sequence():
    model = tiny_model(seed=5)
    ids = np.tile(np.arange(7), 40)  # next token = current + 1 mod 7
    history = train_language_model(model, ids, steps=60, batch_size=8, lr=1e-2, warmup_steps=6,
                                   rng=np.random.default_rng(6), val_ids=ids[:50], eval_every=20)
    expected_lr = [optim.warmup_cosine(t, lr=1e-2, warmup_steps=6, total_steps=60) for t in range(60)]
    np.testing.assert_allclose(history["lr"], expected_lr, rtol=1e-15)
    assert history["loss"][0] > 1.5 and history["loss"][-1] < 0.1  # from about ln 7 to nearly certain
    np.testing.assert_array_equal(history["val_step"], [20, 40, 60])
    assert history["val_loss"][-1] == pytest.approx(mean_cross_entropy(model, ids[:50]), rel=1e-12)
    assert history["grad_norm"].shape == (60,) and (history["grad_norm"] > 0).all()


def test_training_is_deterministic_and_clips():
    runs = []
    for _ in range(2):
        model = tiny_model(seed=8)
        history = train_language_model(model, np.tile(np.arange(7), 10), steps=5, batch_size=4, lr=1e-2,
                                       warmup_steps=1, rng=np.random.default_rng(9), max_norm=1e-3)
        runs.append((history["loss"], model.W_te.data.copy()))
    np.testing.assert_array_equal(runs[0][0], runs[1][0])
    np.testing.assert_array_equal(runs[0][1], runs[1][1])


def test_stopping_early_gives_the_first_steps_of_the_full_run():
    ids = np.random.default_rng(12).integers(0, 7, size=300)
    runs = {}
    for stop_after in (None, 4):
        model = TinyGPT(7, 6, 16, 2, 2, 32, rng=np.random.default_rng(13), tie_weights=True, dropout=0.2)
        history = train_language_model(model, ids, steps=10, batch_size=3, lr=1e-2, warmup_steps=5, min_lr=1e-3,
                                       rng=np.random.default_rng(14), stop_after=stop_after)
        runs[stop_after] = history, model.W_te.data.copy()
    full, early = runs[None][0], runs[4][0]
    for key in ("loss", "lr", "grad_norm"):
        assert early[key].shape == (4,)
        np.testing.assert_array_equal(early[key], full[key][:4])  # the same draws, rates and dropout masks
    assert early["lr"][-1] < 1e-2  # still warming up: the rates are those of the 10-step schedule
    assert not np.array_equal(runs[4][1], runs[None][1])
    with pytest.raises(ValueError, match="stop_after must be at most steps = 10"):
        train_language_model(tiny_model(), ids, steps=10, batch_size=3, lr=1e-2, warmup_steps=5,
                             rng=np.random.default_rng(0), stop_after=11)


def test_bad_arguments_are_named():
    model, ids = tiny_model(), np.arange(7).repeat(3)
    with pytest.raises(ValueError, match="at least block_size \\+ 1 = 7 tokens"):
        random_windows(np.arange(6), 6, 2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="val_ids and eval_every go together"):
        train_language_model(model, ids, steps=2, batch_size=2, lr=1e-3, warmup_steps=0,
                             rng=np.random.default_rng(0), val_ids=ids)
    with pytest.raises(ValueError, match="warmup_steps must be below steps = 2"):
        train_language_model(model, ids, steps=2, batch_size=2, lr=1e-3, warmup_steps=2, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"ids must hold token ids 0..6 \(integers below the model's vocab_size = 7\)"):
        mean_cross_entropy(model, np.arange(20))
    with pytest.raises(TypeError, match="model must be a language model"):
        mean_cross_entropy("gpt", ids)


@pytest.fixture(scope="module")
def persuasion():
    return load_persuasion_model()


def test_the_shipped_model_is_what_its_history_says(persuasion):
    model, tokenizer, history, config = persuasion
    val_ids = tokenizer.encode(datasets.load_persuasion(split="validation"))
    assert mean_cross_entropy(model, val_ids) == pytest.approx(history["val_loss"][-1], rel=1e-9)
    assert len(history["loss"]) == config["steps"] and model.vocab_size == tokenizer.vocab_size == 512
    assert model.tie_weights and not hasattr(model, "W_out")  # the unembedding is W_teᵀ


def test_the_shipped_tokenizer_is_bpe_trained_on_the_training_text(persuasion):
    from implementations.language.bpe import BPETokenizer

    _, tokenizer, _, config = persuasion
    trained = BPETokenizer().train(datasets.load_persuasion(split="train"), config["vocab_size"])
    assert tokenizer.merges == trained.merges


def test_a_damaged_model_file_is_refused(tmp_path):
    for name in ("persuasion_tinygpt.npz", "SHA256SUMS"):
        shutil.copy(datasets.DATA_DIR / name, tmp_path / name)
    with open(tmp_path / "persuasion_tinygpt.npz", "r+b") as f:
        f.seek(100)
        byte = f.read(1)
        f.seek(100)
        f.write(bytes([byte[0] ^ 1]))
    with pytest.raises(ValueError, match="persuasion_tinygpt.npz.*make language-model"):
        load_persuasion_model(data_dir=tmp_path)


def _damaged_copy(folder, change):
    """A copy of the shipped model archive in ``folder``, changed by ``change(entries)``, with its checksum
    regenerated so that the checksum passes and only the archive's contents can be at fault."""
    import hashlib

    with np.load(datasets.DATA_DIR / "persuasion_tinygpt.npz") as stored:
        entries = {key: stored[key] for key in stored.files}
    path = folder / "persuasion_tinygpt.npz"
    if change == "text":
        path.write_text("a model archive replaced by text\n")
    else:
        change(entries)
        np.savez(path, **entries)
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    (folder / "SHA256SUMS").write_text(f"{digest}  persuasion_tinygpt.npz\n")


@pytest.mark.parametrize("change", [
    "text",
    lambda entries: entries.pop("merges"),
    lambda entries: entries.pop("config"),
    lambda entries: entries.pop("param/W_te"),
    lambda entries: entries.update(config=np.array("{not json")),
], ids=["replaced by text", "no merges", "no config", "a parameter missing", "a config that is not JSON"])
def test_a_model_archive_without_its_entries_names_the_file_and_the_fix(tmp_path, change):
    _damaged_copy(tmp_path, change)
    with pytest.raises(ValueError, match=r"persuasion_tinygpt.npz is not the archive that "
                                         r"tools/train_language_model.py writes .*make language-model"):
        load_persuasion_model(data_dir=tmp_path)


def test_sliding_window_losses_match_one_forward_pass_per_target():
    from implementations.language.language_model import mean_cross_entropy, sliding_window_losses
    from implementations.language.transformer import TinyGPT

    model = TinyGPT(7, 6, 8, 2, 1, 16, rng=np.random.default_rng(0), tie_weights=True)
    ids = np.random.default_rng(1).integers(0, 7, size=40)  # W = 6 windows of T = 6: targets 1..36
    consecutive = sliding_window_losses(model, ids)
    assert consecutive.mean() == pytest.approx(mean_cross_entropy(model, ids), rel=1e-12)
    sliding = sliding_window_losses(model, ids, stride=3)
    for t in range(36):  # target ids[t + 1]: the window ending at it, context of max(T − 3, …) tokens
        start = 0 if t < 6 else (t - 6) // 3 * 3 + 3
        logits = model(ids[None, start : start + 6]).data[0, t - start]
        expected = np.log(np.exp(logits - logits.max()).sum()) + logits.max() - logits[ids[t + 1]]
        assert sliding[t] == pytest.approx(expected, rel=1e-10)
        assert t - start + 1 >= (t + 1 if t < 6 else 4)  # at least T − stride + 1 tokens of context


def test_one_training_step_decays_the_weight_matrices_and_nothing_else():
    ids = np.random.default_rng(8).integers(0, 7, size=200)
    runs = {}
    for weight_decay in (0.0, 0.5):
        model = tiny_model(seed=9)
        start = {name: p.data.copy() for name, p in model.named_parameters()}
        train_language_model(model, ids, steps=1, batch_size=4, lr=0.1, warmup_steps=0, min_lr=0.1,
                             rng=np.random.default_rng(10), weight_decay=weight_decay)
        runs[weight_decay] = {name: p.data for name, p in model.named_parameters()}
        decayed = {name for name, p in model.named_parameters() if any(p is m for m in model.weight_matrices())}
    for name, theta in runs[0.5].items():
        # AdamW: θ ← θ − η(Adam step + λθ); one step from the same start differs by η λ θ₀ exactly where decayed
        shift = 0.1 * 0.5 * start[name] if name in decayed else 0.0
        np.testing.assert_allclose(theta, runs[0.0][name] - shift, rtol=0, atol=1e-12)
    assert decayed and "W_te" not in decayed and not any(name.endswith(("b1", "b2", "gamma", "beta"))
                                                          for name in decayed)


def test_training_leaves_the_model_in_evaluation_mode():
    model = TinyGPT(7, 6, 16, 2, 1, 32, rng=np.random.default_rng(0), tie_weights=True, dropout=0.2)
    ids = np.random.default_rng(11).integers(0, 7, size=100)
    train_language_model(model, ids, steps=2, batch_size=2, lr=1e-3, warmup_steps=1, rng=np.random.default_rng(1))
    assert not model.training and not any(block.drop.training for block in model.blocks)
