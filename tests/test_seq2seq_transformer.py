"""Tests of implementations.language.seq2seq_transformer: the decoder block against its equations, the encoder–decoder
against finite differences, causality, padding, log_probs_fn against forward, batched greedy against greedy_decode,
and the key-padding mask of TransformerBlock."""

import numpy as np
import pytest

from implementations.engine.autograd import Tensor, no_grad
from implementations.language import attention as A
from implementations.language.decoding import beam_search, greedy_decode
from implementations.language.seq2seq_transformer import DecoderBlock, TransformerSeq2Seq
from implementations.language.transformer import TransformerBlock
from implementations.nn import parameter_count
from implementations.nn.normalization import layer_norm
from implementations.preliminaries.gradcheck import numerical_gradient

V_SRC, V_TGT = 6, 5


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def _batch(seed, B=3, S=5, T=4):
    rng = np.random.default_rng(seed)
    src = rng.integers(0, V_SRC, (B, S))
    tgt_in, tgt_out = rng.integers(0, V_TGT, (B, T)), rng.integers(0, V_TGT, (B, T))
    lengths = np.array([S, 2, 4, 1, 3][:B])
    return src, tgt_in, tgt_out, lengths


def _model(seed=0, D=8, heads=2, layers=2, d_ff=12, block_size=6):
    model = TransformerSeq2Seq(V_SRC, V_TGT, D, heads, layers, d_ff, block_size=block_size,
                               rng=np.random.default_rng(seed))
    for p in model.parameters():  # LayerNorm scales and biases away from 1 and 0: every parameter matters
        p.data = p.data + np.random.default_rng(p.size + seed).normal(0.0, 0.3, size=p.shape)
    return model


def reference_decoder_block(block, x, memory, allowed):
    """Eq. (7.12) with cross-attention, eq. (7.13), written out with NumPy and the attention functions."""
    p = {name: t.data for name, t in block.named_parameters()}

    def ln(v, k):
        return layer_norm(v, p[f"ln{k}.gamma"], p[f"ln{k}.beta"])

    def mha(name, q, m, mask):
        W = [p[f"{name}.W_{s}"] for s in "qkvo"]
        return A.multi_head_attention(q, *W, num_heads=block.self_attn.num_heads, mask=mask, memory=m)[0]

    x = x + mha("self_attn", ln(x, 1), None, A.causal_mask(x.shape[-2]))
    x = x + mha("cross_attn", ln(x, 2), memory, allowed)
    return x + _gelu(ln(x, 3) @ p["ff.W1"] + p["ff.b1"]) @ p["ff.W2"] + p["ff.b2"]


def test_decoder_block_matches_its_equations_and_its_parameters_are_named():
    rng = np.random.default_rng(0)
    block = DecoderBlock(8, 2, 16, rng=rng)
    for p in block.parameters():
        p.data = p.data + rng.normal(0.0, 0.3, size=p.shape)
    x, memory = rng.normal(size=(2, 4, 8)), rng.normal(size=(2, 5, 8))
    mask = A.key_padding_mask(np.array([5, 3]), 5)[:, None]  # (2, 1, 1, 5)
    out, weights = block(Tensor(x), Tensor(memory), memory_mask=mask, return_weights=True)
    np.testing.assert_allclose(out.data, reference_decoder_block(block, x, memory, mask), rtol=1e-12, atol=1e-12)
    assert weights.shape == (2, 2, 4, 5) and (weights[1, :, :, 3:] == 0).all()
    np.testing.assert_allclose(weights.sum(axis=-1), 1.0, rtol=1e-12)
    names = [n for n, _ in block.named_parameters()]
    assert names[:2] == ["ln1.gamma", "ln1.beta"] and "cross_attn.W_q" in names and names[-1] == "ff.b2"
    assert parameter_count(block) == 3 * 2 * 8 + 2 * 4 * 8 * 8 + (8 * 16 + 16) + (16 * 8 + 8)


def test_loss_gradient_matches_finite_differences_for_every_parameter():
    src, tgt_in, tgt_out, lengths = _batch(1, B=2, S=4, T=3)
    tgt_out[1, 2] = -1  # a padded target, left out of the loss
    model = _model(seed=1, D=4, heads=2, layers=1, d_ff=6, block_size=4)
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


def test_a_later_target_token_changes_no_earlier_logit():
    src, tgt_in, _, lengths = _batch(2)
    model = _model(seed=2)
    changed = tgt_in.copy()
    changed[:, 2:] = (tgt_in[:, 2:] + 1) % V_TGT  # new tokens from position 2 on
    with no_grad():
        before, after = (model(src, t, src_lengths=lengths).data for t in (tgt_in, changed))
    np.testing.assert_array_equal(after[:, :2], before[:, :2])
    assert np.abs(after[:, 2:] - before[:, 2:]).min() > 0  # every later position sees its new input


def test_source_padding_changes_neither_outputs_nor_gradients():
    src, tgt_in, tgt_out, lengths = _batch(3)
    padding = np.arange(src.shape[1]) >= lengths[:, None]  # (B, S)
    changed = np.where(padding, (src + 1) % V_SRC, src)  # other tokens past each source's length
    assert (changed != src).any()
    model = _model(seed=3)
    grads, logits = [], []
    for ids in (src, changed):
        model.zero_grad()
        model.loss(ids, tgt_in, tgt_out, src_lengths=lengths).backward()
        grads.append([p.grad.copy() for p in model.parameters()])
        logits.append(model(ids, tgt_in, src_lengths=lengths).data)
    np.testing.assert_array_equal(logits[1], logits[0])
    for g, g_changed in zip(*grads, strict=True):
        np.testing.assert_allclose(g_changed, g, rtol=1e-12, atol=1e-15)
    with no_grad():  # without the lengths the padding is read, and the outputs change
        assert not np.allclose(model(changed, tgt_in).data, model(src, tgt_in).data)


def test_a_padded_source_gives_the_outputs_of_the_source_alone():
    src, tgt_in, _, lengths = _batch(4)
    model = _model(seed=4)
    with no_grad():
        batch, weights = model(src, tgt_in, src_lengths=lengths, return_weights=True)
        for b, L in enumerate(lengths):
            alone = model(src[b : b + 1, :L], tgt_in[b : b + 1]).data
            np.testing.assert_allclose(batch.data[b], alone[0], rtol=1e-12, atol=1e-12)
    assert len(weights) == 2 and weights[0].shape == (3, 2, 4, 5)
    padding = np.broadcast_to(np.arange(5) >= lengths[:, None, None, None], weights[0].shape)  # (B, h, T, S)
    assert all((w[padding] == 0).all() for w in weights)


def test_log_probs_fn_is_the_log_softmax_of_the_teacher_forced_logits():
    src, tgt_in, _, _ = _batch(5)
    model = _model(seed=5)
    fn = model.log_probs_fn(src[0, :3])
    prefixes = np.concatenate([np.zeros((3, 1), dtype=int), tgt_in[:, :2]], axis=1)  # (K, t) = (3, 3)
    with no_grad():
        z = model(np.repeat(src[:1, :3], 3, axis=0), prefixes).data[:, -1]  # (K, V)
    np.testing.assert_allclose(fn(prefixes), z - np.log(np.exp(z).sum(axis=-1, keepdims=True)), rtol=1e-12)
    with pytest.raises(ValueError, match=r"prefixes must hold token ids 0..4 \(integers below tgt_vocab = 5\)"):
        fn(np.array([[0, V_TGT]]))
    with pytest.raises(ValueError, match="prefixes has 7 tokens, more than block_size = 6"):
        fn(np.zeros((1, 7), dtype=int))


def test_batched_greedy_equals_greedy_decode_on_each_unpadded_source():
    rng = np.random.default_rng(6)
    model = _model(seed=6)
    src = rng.integers(0, V_SRC, size=(5, 6))
    lengths = np.array([6, 1, 3, 5, 2])
    ids = model.greedy(src, start_id=4, max_len=6, src_lengths=lengths)
    assert ids.shape == (5, 6) and ids.dtype == np.int64
    for b, L in enumerate(lengths):
        expected, _ = greedy_decode(model.log_probs_fn(src[b, :L]), 4, max_len=6)
        np.testing.assert_array_equal(ids[b], expected[1:])
    assert len({tuple(row) for row in ids}) > 1  # the sources lead to different outputs
    best, _, _ = beam_search(model.log_probs_fn(src[0]), 4, beam_width=1, max_len=6)
    np.testing.assert_array_equal(best[1:], ids[0])


def test_transformer_block_mask_hides_padding_and_combines_with_the_causal_mask():
    rng = np.random.default_rng(7)
    x = rng.normal(size=(2, 5, 8))
    lengths = np.array([5, 3])
    mask = A.key_padding_mask(lengths, 5)[:, None]  # (2, 1, 1, 5)
    for causal in (False, True):
        block = TransformerBlock(8, 2, 16, rng=np.random.default_rng(8), causal=causal)
        x_changed = x.copy()
        x_changed[1, 3:] = rng.normal(size=(2, 8))  # new values in the padding of sequence 1
        with no_grad():
            y, weights = block(x, mask=mask, return_weights=True)
            y_changed = block(x_changed, mask=mask).data
        np.testing.assert_array_equal(y_changed[1, :3], y.data[1, :3])
        assert (weights[1, :, :, 3:] == 0).all()
        if causal:
            assert (weights[0][np.broadcast_to(~A.causal_mask(5), weights[0].shape)] == 0).all()
    with pytest.raises(ValueError, match="mask allows no key"):
        TransformerBlock(8, 2, 16, rng=rng, causal=True)(x, mask=np.array([False, True, True, True, True]))


def test_positions_and_heads_are_checked_by_name():
    model = _model(seed=9, block_size=4)
    src, tgt_in, _, _ = _batch(9, S=5, T=3)
    with pytest.raises(ValueError, match="src has sequences of 5 tokens, more than block_size = 4"):
        model(src, tgt_in)
    with pytest.raises(ValueError, match="max_len = 5 is more than block_size = 4"):
        model.greedy(src[:, :4], start_id=0, max_len=5)
    with pytest.raises(ValueError, match=r"src must hold token ids 0..5 \(integers below src_vocab = 6\)"):
        model(np.full((1, 2), V_SRC), tgt_in[:1])
    with pytest.raises(ValueError, match="num_heads = 3 must divide d_model = 8"):
        TransformerSeq2Seq(V_SRC, V_TGT, 8, 3, 1, 4, block_size=4, rng=np.random.default_rng(0))
