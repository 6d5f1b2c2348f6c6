"""Tests of implementations.language.attention against direct formulas, masks and symmetries."""

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations import numeric
from implementations.engine.autograd import Tensor
from implementations.language import attention as A
from implementations.nn.normalization import layer_norm


def _weights(rng, D, scale=0.4):
    return [rng.normal(size=(D, D)) * scale for _ in range(4)]


def test_softmax_rows_sum_to_one_and_masked_entries_get_zero():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(3, 4, 5)) * 10
    S = numeric.softmax(Z)
    np.testing.assert_allclose(S.sum(axis=-1), 1.0)
    Z[..., 2] = -np.inf
    assert (numeric.softmax(Z)[..., 2] == 0).all()
    S_t = Tensor(Z).softmax(axis=-1)  # the engine's softmax computes its values with numeric.softmax
    assert isinstance(S_t, Tensor) and np.array_equal(S_t.data, numeric.softmax(Z))


def test_simple_self_attention_is_eq_5_4():
    X = np.random.default_rng(1).normal(size=(6, 3))
    scores = X @ X.T
    expected = np.exp(scores - scores.max(1, keepdims=True))
    expected = expected / expected.sum(1, keepdims=True) @ X
    np.testing.assert_allclose(A.simple_self_attention(X), expected)


def test_scaled_attention_matches_a_loop_and_its_weights_are_distributions():
    rng = np.random.default_rng(2)
    Q, K, V = rng.normal(size=(4, 8)), rng.normal(size=(6, 8)), rng.normal(size=(6, 3))
    out, w = A.scaled_dot_product_attention(Q, K, V)
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)
    for i in range(4):
        s = np.array([Q[i] @ K[j] for j in range(6)]) / np.sqrt(8)
        a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
        np.testing.assert_allclose(w[i], a)
        np.testing.assert_allclose(out[i], a @ V)
    _, w_unscaled = A.scaled_dot_product_attention(Q, K, V, scaled=False)
    assert not np.allclose(w, w_unscaled)


def test_mask_gives_zero_weight_and_rejects_bad_masks():
    rng = np.random.default_rng(3)
    Q = K = V = rng.normal(size=(2, 5, 4))
    mask = rng.random((5, 5)) < 0.6
    mask[np.arange(5), np.arange(5)] = True
    _, w = A.scaled_dot_product_attention(Q, K, V, mask=mask)
    assert (w[:, ~mask] == 0).all()
    np.testing.assert_allclose(w.sum(axis=-1), 1.0)
    empty = mask.copy()
    empty[1] = False
    with pytest.raises(ValueError, match="no key"):
        A.scaled_dot_product_attention(Q, K, V, mask=empty)
    with pytest.raises(TypeError, match="booleans"):
        A.scaled_dot_product_attention(Q, K, V, mask=mask.astype(float))
    with pytest.raises(ValueError, match="broadcast"):
        A.scaled_dot_product_attention(Q, K, V, mask=np.ones((3, 3), bool))


def test_causal_output_at_t_ignores_later_tokens():
    rng = np.random.default_rng(4)
    X = rng.normal(size=(7, 8))
    W = _weights(rng, 8)
    Y, w = A.multi_head_attention(X, *W, num_heads=2, mask=A.causal_mask(7))
    assert (np.triu(w, k=1) == 0).all()
    X2 = X.copy()
    X2[4:] = rng.normal(size=(3, 8))  # change every token after t = 3
    Y2, _ = A.multi_head_attention(X2, *W, num_heads=2, mask=A.causal_mask(7))
    np.testing.assert_allclose(Y2[:4], Y[:4])
    assert not np.allclose(Y2[4:], Y[4:])


def test_multi_head_equals_per_head_attention_and_one_head_is_single_head():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(2, 6, 8))
    W_q, W_k, W_v, W_o = _weights(rng, 8)
    Y, w = A.multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads=4)
    assert Y.shape == (2, 6, 8) and w.shape == (2, 4, 6, 6)
    heads = []
    for h in range(4):
        cols = slice(2 * h, 2 * h + 2)
        y_h, w_h = A.self_attention(X, W_q[:, cols], W_k[:, cols], W_v[:, cols])
        np.testing.assert_allclose(w[:, h], w_h)
        heads.append(y_h)
    np.testing.assert_allclose(Y, np.concatenate(heads, axis=-1) @ W_o)
    Y1, _ = A.multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads=1)
    y, _ = A.self_attention(X, W_q, W_k, W_v)
    np.testing.assert_allclose(Y1, y @ W_o)
    with pytest.raises(ValueError, match="num_heads = 3 must divide D = 8"):
        A.multi_head_attention(X, W_q, W_k, W_v, W_o, num_heads=3)


def test_self_attention_without_positions_is_permutation_equivariant():
    rng = np.random.default_rng(6)
    X = rng.normal(size=(5, 8))
    W = _weights(rng, 8)
    perm = rng.permutation(5)
    Y, _ = A.multi_head_attention(X, *W, num_heads=2)
    Y_perm, _ = A.multi_head_attention(X[perm], *W, num_heads=2)
    np.testing.assert_allclose(Y_perm, Y[perm])
    PE = A.sinusoidal_positional_encoding(5, 8)
    Y_pos, _ = A.multi_head_attention(X + PE, *W, num_heads=2)
    Y_pos_perm, _ = A.multi_head_attention(X[perm] + PE, *W, num_heads=2)
    assert not np.allclose(Y_pos_perm, Y_pos[perm])  # positions break the symmetry


def test_layer_norm_statistics_and_engine_agreement():
    rng = np.random.default_rng(7)
    X = rng.normal(3.0, 5.0, size=(4, 6, 10))
    out = layer_norm(X, np.ones(10), np.zeros(10))
    np.testing.assert_allclose(out.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(out.var(axis=-1), 1.0, rtol=1e-5)
    gamma, beta = rng.normal(size=10), rng.normal(size=10)
    np.testing.assert_allclose(layer_norm(X, gamma, beta), out * gamma + beta)
    with pytest.raises(ValueError, match="gamma"):
        layer_norm(X, np.ones(9), np.zeros(10))


def test_sinusoidal_encoding_follows_the_formula():
    T, D = 9, 6
    PE = A.sinusoidal_positional_encoding(T, D)
    for i in range(T):
        for k in range(D // 2):
            np.testing.assert_allclose(PE[i, 2 * k], np.sin(i / 10000 ** (2 * k / D)))
            np.testing.assert_allclose(PE[i, 2 * k + 1], np.cos(i / 10000 ** (2 * k / D)))
    assert A.sinusoidal_positional_encoding(4, 5).shape == (4, 5)
    assert A.causal_mask(3).tolist() == [[True, False, False], [True, True, False], [True, True, True]]


def test_attention_gradients_match_finite_differences():
    rng = np.random.default_rng(8)
    X = rng.normal(size=(2, 4, 6))
    W = _weights(rng, 6)
    mask = A.causal_mask(4)
    assert_gradients_match(lambda x, q, k, v, o: A.multi_head_attention(x, q, k, v, o, num_heads=2, mask=mask)[0],
                           X, *W)
    assert_gradients_match(lambda x, g, b: layer_norm(x, g, b), X, rng.normal(size=6), rng.normal(size=6))


# --- the input contract (issue 21): bad input is refused by name, in the caller's terms -------------------------

@pytest.mark.parametrize("call", [
    lambda e: numeric.softmax(e),
    lambda e: A.simple_self_attention(e),
    lambda e: A.scaled_dot_product_attention(e, e, e),
    lambda e: A.multi_head_attention(e, *[np.eye(4)] * 4, num_heads=2),
    lambda e: layer_norm(e, np.ones(4), np.zeros(4)),
])
def test_empty_inputs_are_refused_by_name(call):
    with pytest.raises(ValueError, match=r"(X|Z|Q) is empty \(shape \(0, 4\)\)"):
        call(np.zeros((0, 4)))


def test_strings_are_refused_before_any_conversion():
    with pytest.raises(TypeError, match="Z must be a numeric array; received the string"):
        numeric.softmax("0.5 0.5")
    with pytest.raises(TypeError, match="gamma must be a numeric array"):
        layer_norm(np.ones((2, 3)), "ones", np.zeros(3))
    with pytest.raises(ValueError, match="eps must be a finite number > 0; received 'small'"):
        layer_norm(np.ones((2, 3)), np.ones(3), np.zeros(3), eps="small")
    with pytest.raises(ValueError, match="T must be an integer >= 1; received '8'"):
        A.sinusoidal_positional_encoding("8", 4)
    with pytest.raises(ValueError, match="D must be an integer >= 1; received 4.0"):
        A.sinusoidal_positional_encoding(8, 4.0)


def test_softmax_refuses_nan_and_plus_inf_and_passes_minus_inf_as_documented():
    Z = np.array([[0.0, -np.inf, 1.0], [2.0, 2.0, -np.inf]])
    P = numeric.softmax(Z)
    np.testing.assert_allclose(P[:, :2], [[1 / (1 + np.e), 0.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"Z contains 1 NaN value\(s\), the first at index \(0, 2\)"):
        numeric.softmax(np.array([[0.0, 1.0, np.nan]]))
    with pytest.raises(ValueError, match=r"Z contains 1 \+inf value\(s\), the first at index \(0, 1\)"):
        numeric.softmax(np.array([[0.0, np.inf]]))
    with pytest.raises(ValueError, match="−inf everywhere"):
        numeric.softmax(np.array([[0.0, 1.0], [-np.inf, -np.inf]]))
    with pytest.raises(ValueError, match="axis must be an integer from -2 to 1, an axis of Z"):
        numeric.softmax(Z, axis=0.5)


def test_a_wrong_input_width_blames_the_input_not_the_weights():
    rng = np.random.default_rng(9)
    W = _weights(rng, 4)
    X = rng.normal(size=(2, 3, 5))  # 5 features for weights made for 4
    with pytest.raises(ValueError, match=r"X has 5 entries along axis 2, but W_q's axis 0 gives D = 4 \(the width of "
                                         r"each vector\): expected X of shape \(B, T, D\) with D = 4 there"):
        A.multi_head_attention(X, *W, num_heads=2)
    with pytest.raises(ValueError, match=r"X has 5 entries along axis 2, but W_q's axis 0 gives D = 4"):
        A.self_attention(X, *W[:3])
    with pytest.raises(ValueError, match=r"W_o has 5 entries along axis 0, but W_q's axis 0 gives D = 4"):
        A.multi_head_attention(X[..., :4], *W[:3], np.zeros((5, 4)), num_heads=2)
    with pytest.raises(ValueError, match=r"X must have 4 entries along its last axis \(the length of gamma and beta\)"):
        layer_norm(X, np.ones(4), np.zeros(4))
    with pytest.raises(ValueError, match=r"K has 4 entries along axis 2, but Q's axis 2 gives d_k = 5"):
        A.scaled_dot_product_attention(X, X[..., :4], X)
    with pytest.raises(ValueError, match="leading .batch. axes of Q"):
        A.scaled_dot_product_attention(X, np.zeros((3, 3, 5)), np.zeros((3, 3, 2)))


# --- key padding and cross-attention (issue 17: the encoder–decoder) ---------------------------------------------

def test_key_padding_mask_marks_the_real_keys_and_broadcasts_to_one_and_many_heads():
    mask = A.key_padding_mask([3, 1, 4], 4)
    assert mask.shape == (3, 1, 4) and mask.dtype == bool
    expected = [[j < L for j in range(4)] for L in (3, 1, 4)]
    np.testing.assert_array_equal(mask[:, 0], expected)
    assert np.broadcast_to(mask, (3, 5, 4)).shape == (3, 5, 4)  # single-head scores (B, T_q, T_k)
    assert np.broadcast_to(mask[:, None], (3, 2, 5, 4)).shape == (3, 2, 5, 4)  # multi-head scores (B, h, T_q, T_k)
    for bad, message in (([0, 2], "between 1 and T = 4"), ([5, 2], "between 1 and T = 4"), ([1.5, 2], "integers"),
                         ([[1, 2]], r"shape \(B,\)")):
        with pytest.raises(ValueError, match=f"lengths must .*{message}"):
            A.key_padding_mask(bad, 4)
    with pytest.raises(ValueError, match="T_k must be an integer >= 1"):
        A.key_padding_mask([1], 0)


def test_scaled_attention_over_padded_keys_equals_attention_over_each_rows_real_keys():
    rng = np.random.default_rng(10)
    Q, K, V = rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 5, 4)), rng.normal(size=(3, 5, 3))  # T_q = 2, T_k = 5
    lengths = np.array([5, 1, 3])
    out, w = A.scaled_dot_product_attention(Q, K, V, mask=A.key_padding_mask(lengths, 5))
    assert out.shape == (3, 2, 3) and w.shape == (3, 2, 5)
    for b, L in enumerate(lengths):
        alone, w_alone = A.scaled_dot_product_attention(Q[b], K[b, :L], V[b, :L])
        np.testing.assert_allclose(out[b], alone, rtol=1e-12)
        np.testing.assert_allclose(w[b, :, :L], w_alone, rtol=1e-12)
        assert (w[b, :, L:] == 0).all()


def _per_head_cross_attention(X, M, W_q, W_k, W_v, W_o, num_heads, allowed):
    """Cross-attention by loops in NumPy: every batch element, head, query and key on its own."""
    B, T_q, D = X.shape
    d_k = D // num_heads
    concat = np.zeros((B, T_q, D))
    weights = np.zeros((B, num_heads, T_q, M.shape[1]))
    for b in range(B):
        for h in range(num_heads):
            cols = slice(h * d_k, (h + 1) * d_k)
            for i in range(T_q):
                q = X[b, i] @ W_q[:, cols]
                keys = [j for j in range(M.shape[1]) if allowed[b, j]]
                s = np.array([q @ (M[b, j] @ W_k[:, cols]) for j in keys]) / np.sqrt(d_k)
                a = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
                weights[b, h, i, keys] = a
                concat[b, i, cols] = sum(a_j * (M[b, j] @ W_v[:, cols]) for a_j, j in zip(a, keys, strict=True))
    return concat @ W_o, weights


@pytest.mark.parametrize(("T_q", "T_k", "num_heads"), [(3, 5, 2), (4, 1, 1), (2, 6, 4)])
def test_cross_attention_equals_a_per_head_loop(T_q, T_k, num_heads):
    rng = np.random.default_rng(11)
    X, M = rng.normal(size=(2, T_q, 8)), rng.normal(size=(2, T_k, 8))
    W = _weights(rng, 8)
    lengths = np.array([T_k, max(1, T_k - 2)])
    Y, w = A.multi_head_attention(X, *W, num_heads=num_heads, memory=M, mask=A.key_padding_mask(lengths, T_k)[:, None])
    assert Y.shape == (2, T_q, 8) and w.shape == (2, num_heads, T_q, T_k)
    expected_Y, expected_w = _per_head_cross_attention(X, M, *W, num_heads, np.arange(T_k) < lengths[:, None])
    np.testing.assert_allclose(Y, expected_Y, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w, expected_w, rtol=1e-10, atol=1e-14)
    Y_self, _ = A.multi_head_attention(X, *W, num_heads=num_heads)
    np.testing.assert_allclose(A.multi_head_attention(X, *W, num_heads=num_heads, memory=X)[0], Y_self, rtol=1e-12)


def test_cross_attention_masks_leak_nothing_into_outputs_or_gradients():
    rng = np.random.default_rng(12)
    X, M = rng.normal(size=(3, 4, 6)), rng.normal(size=(3, 5, 6))
    W = _weights(rng, 6)
    lengths = np.array([5, 2, 3])
    real = np.arange(5) < lengths[:, None]  # (B, T_k)
    mask = A.key_padding_mask(lengths, 5)[:, None]  # (B, 1, 1, T_k)
    M_changed = np.where(real[..., None], M, rng.normal(size=M.shape) * 10)  # other values in the padding
    results = []
    for memory in (M, M_changed):
        X_t, M_t = Tensor(X, requires_grad=True), Tensor(memory, requires_grad=True)
        W_t = [Tensor(w, requires_grad=True) for w in W]
        Y, weights = A.multi_head_attention(X_t, *W_t, num_heads=3, memory=M_t, mask=mask)
        (Y * np.random.default_rng(0).normal(size=Y.shape)).sum().backward()
        results.append((Y.data, weights.data, X_t.grad, M_t.grad, [w.grad for w in W_t]))
    (Y, weights, gX, gM, gW), (Y2, weights2, gX2, gM2, gW2) = results
    np.testing.assert_allclose(Y2, Y, rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(weights2, weights)
    assert (weights[np.broadcast_to(~real[:, None, None], weights.shape)] == 0).all()
    np.testing.assert_allclose(gX2, gX, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(gM2[real], gM[real], rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(gM[~real], 0.0)  # the padding gets no gradient
    for g, g2 in zip(gW, gW2, strict=True):
        np.testing.assert_allclose(g2, g, rtol=1e-12, atol=1e-14)


def test_cross_attention_gradients_match_finite_differences():
    rng = np.random.default_rng(13)
    X, M = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 5, 4))
    W = _weights(rng, 4)
    mask = A.key_padding_mask([5, 3], 5)[:, None]
    assert_gradients_match(lambda x, m, *w: A.multi_head_attention(x, *w, num_heads=2, memory=m, mask=mask)[0],
                           X, M, *W)


def test_cross_attention_refuses_a_memory_that_does_not_fit_by_name():
    rng = np.random.default_rng(14)
    X, W = rng.normal(size=(2, 3, 4)), _weights(rng, 4)
    with pytest.raises(ValueError, match=r"memory has 3 entries along axis 2, but W_q's axis 0 gives D = 4"):
        A.multi_head_attention(X, *W, num_heads=2, memory=np.zeros((2, 5, 3)))
    with pytest.raises(ValueError, match=r"memory has 3 entries along axis 0, but X's axis 0 gives B = 2"):
        A.multi_head_attention(X, *W, num_heads=2, memory=np.zeros((3, 5, 4)))
    with pytest.raises(ValueError, match=r"memory must have shape \(T_k, D\) or \(B, T_k, D\) \(2-D or 3-D\); "
                                         r"received shape \(4,\)"):
        A.multi_head_attention(X[0], *W, num_heads=2, memory=np.zeros(4))
    with pytest.raises(ValueError, match=r"memory must have shape \(2, T_k, 4\).*received shape \(5, 4\)"):
        A.multi_head_attention(X, *W, num_heads=2, memory=np.zeros((5, 4)))
    with pytest.raises(ValueError, match=r"memory is empty"):
        A.multi_head_attention(X, *W, num_heads=2, memory=np.zeros((2, 0, 4)))
    with pytest.raises(ValueError, match=r"mask of shape \(2, 1, 5\) does not broadcast"):  # forgot [:, None]
        A.multi_head_attention(X, *W, num_heads=4, memory=np.zeros((2, 5, 4)), mask=A.key_padding_mask([5, 2], 5))


def test_the_attention_module_alone_takes_arrays():
    """Imported on its own, before anything else of the package, the module's tensor roles work."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}
    code = ("import numpy as np; from implementations.language.attention import simple_self_attention; "
            "print(simple_self_attention(np.eye(3)).shape)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=root, env=env)
    assert result.stdout.strip() == "(3, 3)"
