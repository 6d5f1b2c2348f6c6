"""Tests of implementations.language.transformer: the block's two layouts, causality, gradients and TinyGPT."""

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations.engine.autograd import Tensor, no_grad
from implementations.language import attention as A
from implementations.language._kv_cache import KVCache
from implementations.language.transformer import FeedForward, MultiHeadAttention, TinyGPT, TransformerBlock
from implementations.nn import parameter_count
from implementations.nn.normalization import layer_norm
from implementations.nn.optim import Adam
from implementations.preliminaries.gradcheck import numerical_gradient


def _gelu(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def _reference_block(block, x, norm_first):
    """The block written out with NumPy and the attention functions."""
    p = {name: t.data for name, t in block.named_parameters()}
    causal = A.causal_mask(x.shape[-2]) if block.causal else None

    def ln(v, k):
        return layer_norm(v, p[f"ln{k}.gamma"], p[f"ln{k}.beta"])

    def mha(v):
        return A.multi_head_attention(v, p["attn.W_q"], p["attn.W_k"], p["attn.W_v"], p["attn.W_o"],
                                      num_heads=block.attn.num_heads, mask=causal)[0]

    def ffn(v):
        return _gelu(v @ p["ff.W1"] + p["ff.b1"]) @ p["ff.W2"] + p["ff.b2"]

    if norm_first:
        x = x + mha(ln(x, 1))
        return x + ffn(ln(x, 2))
    x = ln(x + mha(x), 1)
    return ln(x + ffn(x), 2)


@pytest.mark.parametrize("norm_first", [True, False])
def test_block_matches_its_equations_in_both_layouts(norm_first):
    rng = np.random.default_rng(0)
    block = TransformerBlock(8, 2, 16, rng=rng, norm_first=norm_first)
    for name in ("ln1.gamma", "ln2.beta", "attn.W_o", "ff.b1"):  # non-trivial LayerNorm and bias values
        t = dict(block.named_parameters())[name]
        t.data = rng.normal(size=t.shape)
    x = rng.normal(size=(3, 5, 8))
    out = block(Tensor(x))
    assert isinstance(out, Tensor) and out.shape == (3, 5, 8)
    np.testing.assert_allclose(out.data, _reference_block(block, x, norm_first), rtol=1e-12, atol=1e-12)


def test_block_parameter_names_and_count():
    block = TransformerBlock(8, 2, 16, rng=np.random.default_rng(0))
    names = [n for n, _ in block.named_parameters()]
    assert names == ["ln1.gamma", "ln1.beta", "attn.W_q", "attn.W_k", "attn.W_v", "attn.W_o", "ln2.gamma",
                     "ln2.beta", "ff.W1", "ff.b1", "ff.W2", "ff.b2"]
    assert parameter_count(block) == 2 * 2 * 8 + 4 * 8 * 8 + (8 * 16 + 16) + (16 * 8 + 8)


def test_causal_block_output_at_t_ignores_later_tokens():
    rng = np.random.default_rng(1)
    block = TransformerBlock(8, 4, 16, rng=rng, causal=True)
    x = rng.normal(size=(2, 6, 8))
    x2 = x.copy()
    x2[:, 3:] = rng.normal(size=(2, 3, 8))
    with no_grad():
        y, y2 = block(x).data, block(x2).data
    np.testing.assert_allclose(y2[:, :3], y[:, :3])
    assert not np.allclose(y2[:, 3:], y[:, 3:])


@pytest.mark.parametrize("norm_first", [True, False])
def test_block_gradients_match_finite_differences(norm_first):
    rng = np.random.default_rng(2)
    block = TransformerBlock(4, 2, 6, rng=rng, norm_first=norm_first, causal=True)
    params = dict(block.named_parameters())
    names = ["attn.W_q", "ln1.gamma", "ff.W1", "ff.b2"]
    x = rng.normal(size=(2, 3, 4))

    def run(x_t, *values):
        for name, v in zip(names, values, strict=True):
            setattr(_owner(block, name), name.split(".")[-1], v)
        return block(x_t)

    assert_gradients_match(run, x, *[params[n].data for n in names])


def _owner(module, dotted):
    for part in dotted.split(".")[:-1]:
        module = getattr(module, part)
    return module


def test_multi_head_attention_module_validates_and_returns_weights():
    with pytest.raises(ValueError, match="divide"):
        MultiHeadAttention(10, 3, rng=np.random.default_rng(0))
    mha = MultiHeadAttention(6, 3, rng=np.random.default_rng(0))
    y, w = mha(np.ones((4, 6)), return_weights=True)
    assert y.shape == (4, 6) and w.shape == (3, 4, 4)


def test_tinygpt_drives_the_loss_on_one_batch_near_zero():
    rng = np.random.default_rng(3)
    model = TinyGPT(vocab_size=10, block_size=12, d_model=32, num_heads=4, num_layers=2, d_ff=64, rng=rng)
    idx = rng.integers(0, 10, size=(4, 12))
    targets = rng.integers(0, 10, size=(4, 12))
    logits = model(idx)
    assert logits.shape == (4, 12, 10)
    first = model.loss(idx, targets).item()
    assert abs(first - np.log(10)) < 0.1  # near-uniform predictions at initialization
    optimizer = Adam(model.parameters(), lr=3e-3)
    for _ in range(200):
        loss = model.loss(idx, targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    assert loss.item() < 0.05


def test_tinygpt_generate_keeps_the_prompt_crops_the_context_and_is_seeded():
    rng = np.random.default_rng(4)
    model = TinyGPT(vocab_size=7, block_size=5, d_model=8, num_heads=2, num_layers=1, d_ff=16, rng=rng)
    prompt = rng.integers(0, 7, size=(3, 8))  # longer than block_size: generation must crop
    out = model.generate(prompt, 6, rng=np.random.default_rng(0), temperature=0.7, top_k=3)
    assert out.shape == (3, 14) and out.dtype.kind == "i"
    np.testing.assert_array_equal(out[:, :8], prompt)
    assert ((0 <= out) & (out < 7)).all()
    again = model.generate(prompt, 6, rng=np.random.default_rng(0), temperature=0.7, top_k=3)
    np.testing.assert_array_equal(out, again)
    greedy = model.generate(prompt[:, -5:], 1, rng=np.random.default_rng(1), top_k=1)
    with no_grad():
        expected = model(prompt[:, -5:]).data[:, -1].argmax(axis=-1)
    np.testing.assert_array_equal(greedy[:, -1], expected)


def test_tinygpt_rejects_bad_ids():
    model = TinyGPT(5, 4, 8, 2, 1, 8, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="block_size"):
        model(np.zeros((1, 5), dtype=int))
    with pytest.raises(ValueError, match="0..4"):
        model(np.full((1, 3), 5))
    with pytest.raises(ValueError, match="temperature"):
        model.generate(np.zeros((1, 2), dtype=int), 1, rng=np.random.default_rng(0), temperature=0)


# --- the input contract (issue 21): bad input is refused by name, in the caller's terms -------------------------

def _small_gpt():
    return TinyGPT(5, 4, 8, 2, 1, 8, rng=np.random.default_rng(0))


def test_generate_refuses_fractional_ids_counts_and_top_k_and_a_string_temperature():
    model, prompt, rng = _small_gpt(), np.zeros((1, 2), dtype=int), np.random.default_rng(0)
    with pytest.raises(ValueError, match=r"idx must hold token ids, integers >= 0.*1.5"):
        model.generate(np.array([[0, 1.5]]), 1, rng=rng)
    with pytest.raises(ValueError, match="max_new_tokens must be an integer >= 0; received 2.5"):
        model.generate(prompt, 2.5, rng=rng)
    with pytest.raises(ValueError, match="top_k must be an integer >= 1; received 2.5"):
        model.generate(prompt, 1, rng=rng, top_k=2.5)
    with pytest.raises(ValueError, match="temperature must be a finite number > 0; received 'hot'"):
        model.generate(prompt, 1, rng=rng, temperature="hot")
    with pytest.raises(ValueError, match=r"idx must hold token ids 0..4.*values 5"):
        model.generate(np.array([[0, 5]]), 1, rng=rng)
    with pytest.raises(ValueError, match=r"idx must have shape \(B, T\).*idx\[None\]"):
        model.generate(np.array([0, 1]), 1, rng=rng)


def test_forward_refuses_empty_ids_and_names_idx_for_long_prompts():
    model = _small_gpt()
    with pytest.raises(ValueError, match=r"idx is empty \(shape \(1, 0\)\)"):
        model(np.zeros((1, 0), dtype=int))
    with pytest.raises(ValueError, match=r"idx has sequences of 5 tokens, more than block_size = 4.*idx\[:, -4:\]"):
        model(np.zeros((1, 5), dtype=int))
    with pytest.raises(TypeError, match="idx must be a numeric array"):
        model("0 1 2")


def test_loss_refuses_targets_out_of_range_except_ignore_index():
    model, idx = _small_gpt(), np.zeros((2, 3), dtype=int)
    targets = np.array([[1, 2, -1], [0, -1, 4]])
    assert np.isfinite(model.loss(idx, targets, ignore_index=-1).item())
    with pytest.raises(ValueError, match=r"targets must hold token ids 0..4 \(below vocab_size = 5\); .*values -1"):
        model.loss(idx, targets)
    with pytest.raises(ValueError, match=r"targets must hold token ids 0..4 .* or ignore_index = -1.*values 5"):
        model.loss(idx, np.where(targets == 4, 5, targets), ignore_index=-1)
    with pytest.raises(ValueError, match=r"targets must have the shape of idx \(2, 3\)"):
        model.loss(idx, targets[:, :2], ignore_index=-1)
    with pytest.raises(ValueError, match="ignore_index must be an integer"):
        model.loss(idx, targets, ignore_index=-1.5)


def test_modules_report_a_wrong_width_in_the_callers_terms():
    mha = MultiHeadAttention(6, 3, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x has 5 entries along axis 2, but MultiHeadAttention.d_model is 6"):
        mha(np.zeros((2, 4, 5)))
    ff = FeedForward(6, 12, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x has 7 entries along axis 1, but FeedForward.d_model is 6"):
        ff(Tensor(np.zeros((4, 7))))
    block = TransformerBlock(6, 3, 12, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x has 5 entries along axis 1, but TransformerBlock.d_model is 6"):
        block(np.zeros((4, 5)))
    with pytest.raises(ValueError, match=r"x is empty \(shape \(0, 6\)\)"):
        block(np.zeros((0, 6)))
    with pytest.raises(ValueError, match="mask allows no key"):
        mha(np.zeros((2, 4, 6)), mask=np.zeros((4, 4), dtype=bool))


# --- the key–value cache and weight tying (issue 17) ------------------------------------------------------------

def _random_gpt(seed, *, num_layers=2, num_heads=2, tie_weights=False, V=7, block_size=6, D=8):
    """A TinyGPT whose every parameter (LayerNorms included) is redrawn from N(0, 0.5²): sharp, context-dependent
    next-token distributions, so that a cache that gets a position or a key wrong changes the tokens drawn."""
    rng = np.random.default_rng(seed)
    model = TinyGPT(V, block_size, D, num_heads, num_layers, 2 * D, rng=rng, tie_weights=tie_weights)
    for p in model.parameters():
        p.data = rng.normal(0.0, 0.5, size=p.shape)
    return model


@pytest.mark.parametrize("norm_first", [True, False])
@pytest.mark.parametrize("chunks", [(5,), (1, 1, 1, 1, 1), (2, 1, 2)])
def test_cached_block_fed_in_chunks_matches_the_full_causal_block(norm_first, chunks):
    """The fast path (a key–value cache in the attention layer) equals the taught block, in both layouts."""
    rng = np.random.default_rng(5)
    block = TransformerBlock(8, 2, 16, rng=rng, norm_first=norm_first, causal=True)
    for t in block.parameters():
        t.data = rng.normal(size=t.shape)
    x = rng.normal(size=(3, 5, 8))  # (B, T, D)
    ends = np.cumsum(chunks)
    outs = []
    block.attn.kv_cache = cache = KVCache()
    with no_grad():
        for start, end in zip(ends - chunks, ends, strict=True):
            outs.append(block(Tensor(x[:, start:end])).data)
    block.attn.kv_cache = None
    np.testing.assert_allclose(np.concatenate(outs, axis=1), _reference_block(block, x, norm_first),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(np.concatenate(outs, axis=1), block(Tensor(x)).data, rtol=1e-10, atol=1e-12)
    # the cache holds every token's key, (B, H, T, d_k): head h's columns of (the attention's input) @ W_k
    p = {name: t.data for name, t in block.named_parameters()}
    h = layer_norm(x, p["ln1.gamma"], p["ln1.beta"]) if norm_first else x
    K_expected = (h @ p["attn.W_k"]).reshape(3, 5, 2, 4).transpose(0, 2, 1, 3)
    assert len(cache) == 5 and cache.K.shape == cache.V.shape == (3, 2, 5, 4)
    np.testing.assert_allclose(cache.K.data, K_expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("num_layers", "num_heads", "tie_weights"), [(1, 1, False), (2, 2, False), (2, 4, True)])
@pytest.mark.parametrize("B", [1, 3])
def test_forward_incremental_equals_forward_at_every_position(num_layers, num_heads, tie_weights, B):
    model = _random_gpt(6, num_layers=num_layers, num_heads=num_heads, tie_weights=tie_weights)
    rng = np.random.default_rng(7)
    for T in range(1, model.block_size + 1):
        idx = rng.integers(0, model.vocab_size, size=(B, T))
        with no_grad():
            expected = model(idx).data  # (B, T, V), the uncached forward
        for prompt_length in range(1, T + 1):
            np.testing.assert_allclose(model.forward_incremental(idx, prompt_length=prompt_length), expected,
                                       rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(("prompt_length", "max_new_tokens"), [(1, 5), (1, 14), (4, 2), (6, 7), (9, 4)])
@pytest.mark.parametrize(("temperature", "top_k"), [(1.0, None), (0.6, 3), (1.5, 1)])
@pytest.mark.parametrize("B", [1, 4])
def test_generate_with_the_cache_draws_the_tokens_drawn_without_it(prompt_length, max_new_tokens, temperature,
                                                                   top_k, B):
    model = _random_gpt(8)  # block_size 6: prompts and outputs both shorter and longer than the context
    prompt = np.random.default_rng(9).integers(0, model.vocab_size, size=(B, prompt_length))
    kwargs = {"temperature": temperature, "top_k": top_k}
    cached = model.generate(prompt, max_new_tokens, rng=np.random.default_rng(10), use_cache=True, **kwargs)
    uncached = model.generate(prompt, max_new_tokens, rng=np.random.default_rng(10), use_cache=False, **kwargs)
    np.testing.assert_array_equal(cached, uncached)
    assert cached.shape == (B, prompt_length + max_new_tokens)


def test_generate_with_the_cache_follows_the_greedy_argmax_of_forward():
    model = _random_gpt(11)
    idx = np.random.default_rng(12).integers(0, model.vocab_size, size=(2, 2))
    out = model.generate(idx, 8, rng=np.random.default_rng(0), top_k=1)  # crosses block_size = 6
    with no_grad():  # a naive loop: the argmax of forward on the cropped context, one token at a time
        for _ in range(8):
            nxt = model(idx[:, -model.block_size :]).data[:, -1].argmax(axis=-1)
            idx = np.concatenate([idx, nxt[:, None]], axis=1)
    np.testing.assert_array_equal(out, idx)
    assert len(np.unique(out)) > 1  # the sharp model does not just repeat one token


def test_tied_weights_drop_the_unembedding_from_the_parameter_count():
    V, block_size, D = 7, 6, 8
    untied = TinyGPT(V, block_size, D, 2, 2, 16, rng=np.random.default_rng(0))
    tied = TinyGPT(V, block_size, D, 2, 2, 16, rng=np.random.default_rng(0), tie_weights=True)
    assert parameter_count(untied) - parameter_count(tied) == V * D
    names = [n for n, _ in tied.named_parameters()]
    assert "W_out" not in names and names == [n for n, _ in untied.named_parameters() if n != "W_out"]
    untied_parameters = dict(untied.named_parameters())
    for name, p in tied.named_parameters():  # the same draws: W_out is drawn last
        np.testing.assert_array_equal(p.data, untied_parameters[name].data)


def test_tied_head_is_the_final_hidden_vectors_times_the_embedding_transposed():
    model = _random_gpt(13, tie_weights=True)
    idx = np.random.default_rng(14).integers(0, model.vocab_size, size=(3, 5))
    with no_grad():
        x = model.W_te.data[idx] + model.W_pe.data[:5]  # (B, T, D), by hand
        for block in model.blocks:
            x = block(x).data
        H = layer_norm(x, model.ln_f.gamma.data, model.ln_f.beta.data)  # (B, T, D)
        logits = model(idx).data
    np.testing.assert_allclose(logits, H @ model.W_te.data.T, rtol=1e-12, atol=1e-12)


def test_tied_embedding_gets_the_gradient_of_both_uses():
    tied = _random_gpt(15, num_layers=1, tie_weights=True, V=5, block_size=3, D=4)
    rng = np.random.default_rng(16)
    idx, targets = rng.integers(0, 5, size=(2, 3)), rng.integers(0, 5, size=(2, 3))
    tied.loss(idx, targets).backward()
    W_te = tied.W_te.data.copy()

    def loss_of(W):  # the loss as a function of the embedding matrix alone, for finite differences
        tied.W_te.data = W
        with no_grad():
            return tied.loss(idx, targets).item()

    np.testing.assert_allclose(tied.W_te.grad, numerical_gradient(loss_of, W_te), rtol=1e-6, atol=1e-8)
    # the same model untied, W_out a copy of W_teᵀ: the tied gradient is the sum of the two parameters' gradients
    tied.W_te.data = W_te
    untied = _random_gpt(15, num_layers=1, V=5, block_size=3, D=4)
    untied_parameters = dict(untied.named_parameters())
    for name, p in tied.named_parameters():
        untied_parameters[name].data = p.data.copy()
    untied.W_out.data = W_te.T.copy()
    untied.loss(idx, targets).backward()
    np.testing.assert_allclose(tied.W_te.grad, untied.W_te.grad + untied.W_out.grad.T, rtol=1e-10, atol=1e-14)
    assert np.abs(untied.W_out.grad).max() > 1e-3 and np.abs(untied.W_te.grad).max() > 1e-3  # both uses count


def test_cache_and_tying_arguments_are_refused_by_name():
    model, prompt, rng = _small_gpt(), np.zeros((1, 2), dtype=int), np.random.default_rng(0)
    with pytest.raises(ValueError, match="use_cache must be True or False; received 'yes'"):
        model.generate(prompt, 1, rng=rng, use_cache="yes")
    with pytest.raises(ValueError, match="use_cache must be True or False; received 1"):
        model.generate(prompt, 1, rng=rng, use_cache=1)
    with pytest.raises(ValueError, match="tie_weights must be True or False; received 1"):
        TinyGPT(5, 4, 8, 2, 1, 8, rng=np.random.default_rng(0), tie_weights=1)
    with pytest.raises(ValueError, match=r"prompt_length must be between 1 and the length of idx, 2; received 3"):
        model.forward_incremental(prompt, prompt_length=3)
    with pytest.raises(ValueError, match="prompt_length must be an integer >= 1; received 0"):
        model.forward_incremental(prompt, prompt_length=0)
    with pytest.raises(ValueError, match=r"idx has sequences of 5 tokens, more than block_size = 4"):
        model.forward_incremental(np.zeros((1, 5), dtype=int))


# --- cross-attention (issue 17: the encoder–decoder) --------------------------------------------------------------

def test_module_cross_attention_equals_the_function_and_its_gradients_match_finite_differences():
    rng = np.random.default_rng(20)
    mha = MultiHeadAttention(6, 3, rng=rng)
    x, memory = rng.normal(size=(2, 3, 6)), rng.normal(size=(2, 5, 6))
    mask = A.key_padding_mask([5, 2], 5)[:, None]  # (B, 1, 1, T_k)
    Y, w = mha(x, memory=memory, mask=mask, return_weights=True)
    expected_Y, expected_w = A.multi_head_attention(x, mha.W_q.data, mha.W_k.data, mha.W_v.data, mha.W_o.data,
                                                    num_heads=3, memory=memory, mask=mask)
    assert Y.shape == (2, 3, 6) and w.shape == (2, 3, 3, 5)
    np.testing.assert_allclose(Y.data, expected_Y, rtol=1e-12)
    np.testing.assert_allclose(w, expected_w, rtol=1e-12)
    assert (w[1, :, :, 2:] == 0).all()
    assert_gradients_match(lambda xx, mm: mha(xx, memory=mm, mask=mask), x, memory)
    np.testing.assert_allclose(mha(x[0], memory=memory[0]).data, mha(x, memory=memory).data[0], rtol=1e-12)


def test_module_cross_attention_refuses_a_memory_that_does_not_fit_in_the_callers_terms():
    mha = MultiHeadAttention(6, 3, rng=np.random.default_rng(0))
    x = np.zeros((2, 3, 6))
    with pytest.raises(ValueError, match=r"memory has 4 entries along axis 2, but MultiHeadAttention.d_model is 6"):
        mha(x, memory=np.zeros((2, 5, 4)))
    with pytest.raises(ValueError, match=r"memory has 3 entries along axis 0, but x's axis 0 gives B = 2"):
        mha(x, memory=np.zeros((3, 5, 6)))
    with pytest.raises(ValueError, match=r"memory must have shape \(T_k, self.d_model\) or .*received shape \(6,\)"):
        mha(x[0], memory=np.zeros(6))
    with pytest.raises(ValueError, match="memory is empty"):
        mha(x, memory=np.zeros((2, 0, 6)))
    with pytest.raises(ValueError, match=r"mask of shape \(3, 3\) does not broadcast"):
        mha(x, memory=np.zeros((2, 5, 6)), mask=np.ones((3, 3), dtype=bool))


def test_dropout_is_off_in_evaluation_mode_and_draws_new_masks_in_training_mode():
    kwargs = dict(vocab_size=7, block_size=6, d_model=8, num_heads=2, num_layers=2, d_ff=16, tie_weights=True)
    plain = TinyGPT(**kwargs, rng=np.random.default_rng(3))
    dropped = TinyGPT(**kwargs, rng=np.random.default_rng(3), dropout=0.3)  # the same parameters: masks draw later
    idx = np.random.default_rng(4).integers(0, 7, size=(3, 6))
    with no_grad():
        np.testing.assert_array_equal(dropped.eval()(idx).data, plain(idx).data)
        dropped.train()
        first, second = dropped(idx).data, dropped(idx).data
    assert not np.allclose(first, plain(idx).data) and not np.allclose(first, second)
    assert all(block.drop.training for block in dropped.blocks)  # train() reaches every block's dropout


def test_the_scaled_initialization_divides_the_residual_projections_by_the_root_of_twice_the_depth():
    kwargs = dict(vocab_size=7, block_size=6, d_model=8, num_heads=2, num_layers=3, d_ff=16)
    plain = TinyGPT(**kwargs, rng=np.random.default_rng(5))
    scaled = TinyGPT(**kwargs, rng=np.random.default_rng(5), scale_residual_init=True)
    for a, b in zip(plain.blocks, scaled.blocks, strict=True):
        np.testing.assert_allclose(b.attn.W_o.data, a.attn.W_o.data / np.sqrt(6), rtol=1e-15)
        np.testing.assert_allclose(b.ff.W2.data, a.ff.W2.data / np.sqrt(6), rtol=1e-15)
        np.testing.assert_array_equal(b.attn.W_q.data, a.attn.W_q.data)
        np.testing.assert_array_equal(b.ff.W1.data, a.ff.W1.data)


@pytest.mark.parametrize("tie_weights", [True, False])
def test_weight_decay_reaches_the_weight_matrices_only(tie_weights):
    model = TinyGPT(7, 6, 8, 2, 2, 16, rng=np.random.default_rng(6), tie_weights=tie_weights)
    matrices = model.weight_matrices()
    per_block = ["W_q", "W_k", "W_v", "W_o", "W1", "W2"]
    expected = [getattr(block.attn if name.startswith("W_") else block.ff, name)
                for block in model.blocks for name in per_block]
    expected += [] if tie_weights else [model.W_out]
    assert {id(p) for p in matrices} == {id(p) for p in expected}
    assert len(matrices) == len(expected)
    assert all(p is not model.W_te and p is not model.W_pe for p in matrices)
