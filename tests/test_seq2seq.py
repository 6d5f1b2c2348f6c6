"""Tests of implementations.language.seq2seq: additive attention against a loop over (i, j), the encoder–decoder against
finite
differences and its own teacher-forced forward, padding, greedy decoding against decoding.greedy_decode."""

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations.engine.autograd import Tensor, no_grad
from implementations.language.attention import key_padding_mask
from implementations.language.decoding import beam_search, greedy_decode
from implementations.language.seq2seq import Seq2Seq, additive_attention
from implementations.nn.optim import Adam, cosine_annealing
from implementations.preliminaries.gradcheck import numerical_gradient


def _softmax(z):
    e = np.exp(z - z.max())
    return e / e.sum()


def reference_additive_attention(Q, K, V, W_q, W_k, w, allowed):
    """e_ij = wᵀ tanh(W_qᵀ q_i + W_kᵀ k_j) one (i, j) at a time, softmax over the allowed keys j, c_i = Σ_j α_ij v_j."""
    B, T_q, T_k = Q.shape[0], Q.shape[1], K.shape[1]
    context, weights = np.zeros((B, T_q, V.shape[2])), np.zeros((B, T_q, T_k))
    for b in range(B):
        for i in range(T_q):
            keys = [j for j in range(T_k) if allowed[b, i, j]]
            e = np.array([w @ np.tanh(W_q.T @ Q[b, i] + W_k.T @ K[b, j]) for j in keys])
            weights[b, i, keys] = _softmax(e)
            context[b, i] = sum(weights[b, i, j] * V[b, j] for j in keys)
    return context, weights


@pytest.mark.parametrize(("T_q", "T_k", "d_q", "d_k", "d_v", "A"), [(3, 5, 4, 2, 3, 6), (1, 1, 2, 2, 1, 1),
                                                                   (6, 2, 3, 5, 4, 2)])
@pytest.mark.parametrize("padded", [False, True])
def test_additive_attention_equals_a_loop_over_queries_and_keys(T_q, T_k, d_q, d_k, d_v, A, padded):
    rng = np.random.default_rng(T_q + 10 * T_k)
    Q, K, V = rng.normal(size=(3, T_q, d_q)), rng.normal(size=(3, T_k, d_k)), rng.normal(size=(3, T_k, d_v))
    W_q, W_k, w = rng.normal(size=(d_q, A)), rng.normal(size=(d_k, A)), rng.normal(size=A)
    lengths = rng.integers(1, T_k + 1, size=3) if padded else np.full(3, T_k)
    mask = key_padding_mask(lengths, T_k) if padded else None  # (3, 1, T_k)
    context, weights = additive_attention(Q, K, V, W_q, W_k, w, mask=mask)
    assert context.shape == (3, T_q, d_v) and weights.shape == (3, T_q, T_k)
    allowed = np.broadcast_to(np.arange(T_k) < lengths[:, None, None], (3, T_q, T_k))
    expected_context, expected_weights = reference_additive_attention(Q, K, V, W_q, W_k, w, allowed)
    np.testing.assert_allclose(weights, expected_weights, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(context, expected_context, rtol=1e-12, atol=1e-14)
    assert (weights[~allowed] == 0).all()
    one, _ = additive_attention(Q[0], K[0], V[0], W_q, W_k, w)  # unbatched (T, d) inputs
    np.testing.assert_allclose(one, additive_attention(Q[:1], K[:1], V[:1], W_q, W_k, w)[0][0], rtol=1e-12)


def test_additive_attention_gradients_match_finite_differences():
    rng = np.random.default_rng(1)
    Q, K, V = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 2))
    W_q, W_k, w = rng.normal(size=(4, 3)), rng.normal(size=(3, 3)), rng.normal(size=3)
    mask = key_padding_mask([5, 2], 5)
    assert_gradients_match(lambda *a: additive_attention(*a, mask=mask)[0], Q, K, V, W_q, W_k, w)
    assert_gradients_match(lambda q, k, *a: additive_attention(q, k, V, *a, mask=mask)[1], Q, K, W_q, W_k, w, seed=1)
    out, weights = additive_attention(Tensor(Q), K, V, W_q, W_k, w)
    assert isinstance(out, Tensor) and isinstance(weights, Tensor)


def test_additive_attention_refuses_shapes_that_do_not_fit_by_name():
    rng = np.random.default_rng(2)
    Q, K, V = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 2))
    W_q, W_k, w = rng.normal(size=(4, 6)), rng.normal(size=(3, 6)), rng.normal(size=6)
    with pytest.raises(ValueError, match=r"queries has 4 entries along axis 2, but W_q's axis 0 gives d_q = 3"):
        additive_attention(Q, K, V, W_k, W_k, w)
    with pytest.raises(ValueError, match=r"W_k has 5 entries along axis 1, but W_q's axis 1 gives A = 6"):
        additive_attention(Q, K, V, W_q, W_k[:, :5], w)
    with pytest.raises(ValueError, match=r"w must have shape \(A,\) \(1-D\); received shape \(1, 6\)"):
        additive_attention(Q, K, V, W_q, W_k, w[None])
    with pytest.raises(ValueError, match=r"values has 4 entries along axis 1, but keys's axis 1 gives T_k = 5"):
        additive_attention(Q, K, V[:, :4], W_q, W_k, w)
    with pytest.raises(ValueError, match="mask allows no key"):
        additive_attention(Q, K, V, W_q, W_k, w, mask=np.zeros((3, 5), dtype=bool))


# --- the encoder–decoder ----------------------------------------------------------------------------------------

V_SRC, V_TGT = 6, 5


def _batch(seed, B=3, S=5, T=4):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, V_SRC, (B, S))
    tgt_in, tgt_out = rng.integers(0, V_TGT, (B, T)), rng.integers(0, V_TGT, (B, T))
    lengths = np.array([S, 2, 4, 1, 3][:B])
    return src, tgt_in, tgt_out, lengths


def _model(attention, seed=0, **kwargs):
    return Seq2Seq(V_SRC, V_TGT, 3, 4, rng=np.random.default_rng(seed), attention=attention, **kwargs)


def reference_forward(model, src, tgt_in, lengths):
    """The model's equations written out with NumPy and the package's GRU: logits (B, T, V) and weights (B, T, S)."""
    p = {name: t.data for name, t in model.named_parameters()}
    with no_grad():
        memory, h_S = model.encoder(p["src_embed.W"][src], lengths=lengths)  # (B, S, H), (B, H)
        s, _ = model.decoder(p["tgt_embed.W"][tgt_in], h_S)  # (B, T, H): the bridge
    memory, s = memory.data, s.data
    if not model.attention:
        return s @ p["out.W"] + p["out.b"], None
    allowed = np.broadcast_to(np.arange(src.shape[1]) < lengths[:, None, None], (*s.shape[:2], src.shape[1]))
    context, weights = reference_additive_attention(s, memory, memory, p["W_q"], p["W_k"], p["w"], allowed)
    return np.concatenate([s, context], axis=-1) @ p["out.W"] + p["out.b"], weights  # from [s_t ; c_t]


@pytest.mark.parametrize("attention", [True, False])
def test_forward_equals_the_equations_and_weights_are_distributions_over_the_real_source(attention):
    src, tgt_in, _, lengths = _batch(3)
    model = _model(attention, seed=3)
    expected_logits, expected_weights = reference_forward(model, src, tgt_in, lengths)
    if attention:
        logits, weights = model(src, tgt_in, src_lengths=lengths, return_weights=True)
        np.testing.assert_allclose(weights, expected_weights, rtol=1e-12, atol=1e-15)
        np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-12)
        assert (weights[np.arange(src.shape[1]) >= lengths[:, None, None].repeat(tgt_in.shape[1], 1)] == 0).all()
    else:
        logits = model(src, tgt_in, src_lengths=lengths)
    assert logits.shape == (*tgt_in.shape, V_TGT)
    np.testing.assert_allclose(logits.data, expected_logits, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("attention", [True, False])
def test_loss_gradient_matches_finite_differences_for_every_parameter(attention):
    src, tgt_in, tgt_out, lengths = _batch(4, B=2, S=4, T=3)
    tgt_out[1, 2] = -1  # a padded target, left out of the loss
    model = Seq2Seq(V_SRC, V_TGT, 2, 3, rng=np.random.default_rng(4), attention=attention,
                    **({"attention_size": 2} if attention else {}))
    for p in model.parameters():  # biases away from 0, so that every parameter's gradient is generic
        p.data = p.data + np.random.default_rng(p.size).normal(0.0, 0.3, size=p.shape)
    loss = model.loss(src, tgt_in, tgt_out, src_lengths=lengths, ignore_index=-1)
    model.zero_grad()
    loss.backward()
    for name, p in model.named_parameters():
        def loss_at(values, p=p):
            saved, p.data = p.data, values
            try:
                return model.loss(src, tgt_in, tgt_out, src_lengths=lengths, ignore_index=-1).item()
            finally:
                p.data = saved

        np.testing.assert_allclose(p.grad, numerical_gradient(loss_at, p.data), rtol=1e-5, atol=1e-8, err_msg=name)


@pytest.mark.parametrize("attention", [True, False])
def test_source_padding_leaks_nothing(attention):
    src, tgt_in, tgt_out, lengths = _batch(5)
    padding = np.arange(src.shape[1]) >= lengths[:, None]  # (B, S)
    changed = np.where(padding, (src + 1) % V_SRC, src)  # other tokens past each source's length
    assert (changed != src).any()
    model = _model(attention, seed=5)
    grads = []
    for ids in (src, changed):
        model.zero_grad()
        loss = model.loss(ids, tgt_in, tgt_out, src_lengths=lengths)
        loss.backward()
        grads.append([p.grad.copy() for p in model.parameters()])
        np.testing.assert_array_equal(model(ids, tgt_in, src_lengths=lengths).data,
                                      model(src, tgt_in, src_lengths=lengths).data)
    for g, g_changed in zip(*grads, strict=True):
        np.testing.assert_allclose(g_changed, g, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("attention", [True, False])
def test_log_probs_fn_is_the_log_softmax_of_the_teacher_forced_logits(attention):
    src, tgt_in, _, _ = _batch(6)
    model = _model(attention, seed=6)
    fn = model.log_probs_fn(src[0, :3])
    prefixes = np.concatenate([np.zeros((3, 1), dtype=int), tgt_in[:, :2]], axis=1)  # (K, t) = (3, 3)
    with no_grad():
        z = model(np.repeat(src[:1, :3], 3, axis=0), prefixes).data[:, -1]  # (K, V)
    np.testing.assert_allclose(fn(prefixes), z - np.log(np.exp(z).sum(axis=-1, keepdims=True)), rtol=1e-12)
    with pytest.raises(ValueError, match=r"prefixes must hold token ids 0..4 \(integers below tgt_vocab = 5\)"):
        fn(np.array([[0, V_TGT]]))


@pytest.mark.parametrize("attention", [True, False])
def test_batched_greedy_equals_greedy_decode_on_each_unpadded_source(attention):
    rng = np.random.default_rng(7)
    model = _model(attention, seed=7)
    for p in model.parameters():  # sharper distributions: the decoded tokens vary along the sequence
        p.data = p.data * 3.0
    src = rng.integers(0, V_SRC, size=(5, 6))
    lengths = np.array([6, 1, 3, 5, 2])
    ids = model.greedy(src, start_id=4, max_len=7, src_lengths=lengths)
    assert ids.shape == (5, 7) and ids.dtype == np.int64
    for b, L in enumerate(lengths):
        expected, _ = greedy_decode(model.log_probs_fn(src[b, :L]), 4, max_len=7)
        np.testing.assert_array_equal(ids[b], expected[1:])
    assert len({tuple(row) for row in ids}) > 1  # the sources lead to different outputs
    best, _, _ = beam_search(model.log_probs_fn(src[0]), 4, beam_width=1, max_len=7)
    np.testing.assert_array_equal(best[1:], ids[0])


def _reversal_batch(rng, B, lo, hi, *, bos=4, eos=5):
    """Sources of random lengths lo..hi over the digits 0..3, padded; targets reversed, then the end token."""
    lengths = rng.integers(lo, hi + 1, size=B)
    S = lengths.max()
    src = rng.integers(0, 4, size=(B, S))
    tgt_in = np.full((B, S + 1), eos)
    tgt_out = np.full((B, S + 1), -1)
    for b, n in enumerate(lengths):
        tgt_in[b, 0], tgt_in[b, 1 : n + 1] = bos, src[b, :n][::-1]
        tgt_out[b, :n], tgt_out[b, n] = src[b, :n][::-1], eos
    return src, tgt_in, tgt_out, lengths


def test_a_trained_model_reverses_short_sequences():
    rng = np.random.default_rng(0)
    model = Seq2Seq(4, 6, 8, 24, rng=rng)
    optimizer = Adam(model.parameters(), lr=0.02)
    for step in range(150):
        optimizer.lr = cosine_annealing(step, lr=0.02, total_steps=150)
        src, tgt_in, tgt_out, lengths = _reversal_batch(rng, 32, 2, 5)
        loss = model.loss(src, tgt_in, tgt_out, src_lengths=lengths, ignore_index=-1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    src, _, tgt_out, lengths = _reversal_batch(np.random.default_rng(1), 200, 2, 5)
    ids = model.greedy(src, start_id=4, max_len=src.shape[1] + 1, src_lengths=lengths)
    correct = [np.array_equal(ids[b, : n + 1], tgt_out[b, : n + 1]) for b, n in enumerate(lengths)]
    assert np.mean(correct) > 0.95  # 1.0 for seeds 0-7 of the training rng


# --- bad input ----------------------------------------------------------------------------------------------------

def test_bad_ids_lengths_and_arguments_are_refused_by_name():
    model = _model(True)
    src, tgt_in, tgt_out, lengths = _batch(8)
    with pytest.raises(ValueError, match=r"src must hold token ids 0..5 \(integers below src_vocab = 6\)"):
        model(np.where(src == src[0, 0], V_SRC, src), tgt_in)
    with pytest.raises(ValueError, match=r"src must have shape \(B, T\).*src\[None\]"):
        model(src[0], tgt_in)
    with pytest.raises(ValueError, match=r"tgt_in must hold token ids, integers >= 0; .* values -1"):
        model(src, tgt_in - 1)
    with pytest.raises(ValueError, match="tgt_in has 2 sequences but src has 3"):
        model(src, tgt_in[:2])
    with pytest.raises(ValueError, match=r"src_lengths must be integers between 1 and T = 5"):
        model(src, tgt_in, src_lengths=[6, 2, 2])
    with pytest.raises(ValueError, match=r"src_lengths must have shape \(3,\)"):
        model(src, tgt_in, src_lengths=[5, 2])
    with pytest.raises(ValueError, match=r"tgt_out must have the shape of tgt_in"):
        model.loss(src, tgt_in, tgt_out[:, :-1])
    with pytest.raises(ValueError, match=r"tgt_out must hold token ids 0..4 .* or ignore_index = -1"):
        model.loss(src, tgt_in, np.full(tgt_in.shape, -2), ignore_index=-1)
    with pytest.raises(ValueError, match="ignore_index must be an integer"):
        model.loss(src, tgt_in, tgt_out, ignore_index=0.5)
    with pytest.raises(ValueError, match=r"src must have shape \(T,\).*src\[b, :length_b\]"):
        model.log_probs_fn(src)
    with pytest.raises(ValueError, match="start_id must be a target token id 0..4"):
        model.greedy(src, start_id=V_TGT, max_len=3)
    with pytest.raises(ValueError, match="return_weights=True needs a model built with attention=True"):
        _model(False)(src, tgt_in, return_weights=True)
    with pytest.raises(ValueError, match="attention_size = 3 is set but attention=False"):
        _model(False, attention_size=3)


def test_the_fused_scores_equal_the_scores_as_written(monkeypatch):
    """The fast path of additive_attention (one node with its backward pass written out) against eq. (7.6) composed
    of the engine's operations: the same context, weights and gradients, to round-off."""
    from implementations.language import seq2seq

    rng = np.random.default_rng(11)
    data = [rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 3)), rng.normal(size=(2, 5, 2)),
            rng.normal(size=(4, 6)), rng.normal(size=(3, 6)), rng.normal(size=6)]
    mask, weighting = key_padding_mask([5, 2], 5), rng.normal(size=(2, 3, 5))
    results = []
    for fused in (True, False):
        monkeypatch.setattr(seq2seq, "FUSED_SCORES", fused)
        tensors = [Tensor(d, requires_grad=True) for d in data]
        context, weights = additive_attention(*tensors, mask=mask)
        (context.sum() + (weights * weighting).sum()).backward()
        results.append([context.data, weights.data, *(t.grad for t in tensors)])
    for fast, taught in zip(*results, strict=True):
        np.testing.assert_allclose(fast, taught, rtol=1e-12, atol=1e-14)


def test_the_shipped_recurrent_models_are_what_the_script_trains():
    """Chapter 7 loads the two recurrent models of seed 5 from the reversal comparison: their first updates, retrained,
    give the stored losses, and the loaded parameters give the stored answers on the stored test sources."""
    import json
    import sys
    from pathlib import Path

    from implementations.data import datasets

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
    import train_seq2seq_comparison as script

    with np.load(datasets.shipped_file("reversal_seq2seq_comparison.npz")) as stored:
        comparison = {key: stored[key] for key in stored.files}
    config = json.loads(str(comparison.pop("config")))
    seed = config["seeds"][0]
    sources = {n: comparison[f"test_sources/{n}"] for n in config["lengths"]}
    for name in ("recurrent", "recurrent without attention"):
        run = f"{name}/{config['budgets'][0]}/seed{seed}"
        live = script.MODELS[name](np.random.default_rng(seed))
        optimizer, rng = Adam(live.parameters(), lr=config["lr"]), np.random.default_rng(seed + 1)
        for step in range(3):  # the first 3 of the run's updates
            optimizer.lr = cosine_annealing(step, lr=config["lr"], total_steps=config["budgets"][0])
            src, decoder_in, targets, lengths = script.reversal_batch(config["batch_size"], rng)
            loss = live.loss(src, decoder_in, targets, src_lengths=lengths, ignore_index=-1)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            assert loss.item() == pytest.approx(comparison[f"{run}/train_loss"][step], rel=1e-9)
        state = {key.removeprefix(f"{run}/state/"): value for key, value in comparison.items()
                 if key.startswith(f"{run}/state/")}
        model = script.MODELS[name](np.random.default_rng(0))
        model.load_state_dict(state)
        assert np.sum(script.exact(model, sources) != comparison[f"{run}/test_correct"]) <= 2  # of 1,000
        if name == "recurrent":
            np.testing.assert_allclose(script.alignment(model, np.array(config["example"])),
                                       comparison[f"{run}/alignment"], atol=1e-10)
