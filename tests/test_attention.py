"""Tests of implementations.attention against direct formulas, masks and symmetries."""

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations import attention as A
from implementations.autograd import Tensor


def _weights(rng, D, scale=0.4):
    return [rng.normal(size=(D, D)) * scale for _ in range(4)]


def test_softmax_rows_sum_to_one_and_masked_entries_get_zero():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(3, 4, 5)) * 10
    S = A.softmax(Z)
    np.testing.assert_allclose(S.sum(axis=-1), 1.0)
    Z[..., 2] = -np.inf
    assert (A.softmax(Z)[..., 2] == 0).all()
    assert isinstance(A.softmax(Tensor(Z)), Tensor)


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
    with pytest.raises(ValueError, match="dividing"):
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
    out = A.layer_norm(X, np.ones(10), np.zeros(10))
    np.testing.assert_allclose(out.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(out.var(axis=-1), 1.0, rtol=1e-5)
    gamma, beta = rng.normal(size=10), rng.normal(size=10)
    np.testing.assert_allclose(A.layer_norm(X, gamma, beta), out * gamma + beta)
    with pytest.raises(ValueError, match="gamma"):
        A.layer_norm(X, np.ones(9), np.zeros(10))


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
    assert_gradients_match(lambda x, g, b: A.layer_norm(x, g, b), X, rng.normal(size=6), rng.normal(size=6))


# --- the input contract (issue 21): bad input is refused by name, in the caller's terms -------------------------

@pytest.mark.parametrize("call", [
    lambda e: A.softmax(e),
    lambda e: A.simple_self_attention(e),
    lambda e: A.scaled_dot_product_attention(e, e, e),
    lambda e: A.multi_head_attention(e, *[np.eye(4)] * 4, num_heads=2),
    lambda e: A.layer_norm(e, np.ones(4), np.zeros(4)),
])
def test_empty_inputs_are_refused_by_name(call):
    with pytest.raises(ValueError, match=r"(X|Z|Q) is empty \(shape \(0, 4\)\)"):
        call(np.zeros((0, 4)))


def test_strings_are_refused_before_any_conversion():
    with pytest.raises(TypeError, match="Z must be a numeric array; received the string"):
        A.softmax("0.5 0.5")
    with pytest.raises(TypeError, match="gamma must be a numeric array"):
        A.layer_norm(np.ones((2, 3)), "ones", np.zeros(3))
    with pytest.raises(ValueError, match="eps must be a finite number > 0; received 'small'"):
        A.layer_norm(np.ones((2, 3)), np.ones(3), np.zeros(3), eps="small")
    with pytest.raises(ValueError, match="T must be an integer >= 1; received '8'"):
        A.sinusoidal_positional_encoding("8", 4)
    with pytest.raises(ValueError, match="D must be an integer >= 1; received 4.0"):
        A.sinusoidal_positional_encoding(8, 4.0)


def test_softmax_refuses_nan_and_plus_inf_and_passes_minus_inf_as_documented():
    Z = np.array([[0.0, -np.inf, 1.0], [2.0, 2.0, -np.inf]])
    P = A.softmax(Z)
    np.testing.assert_allclose(P[:, :2], [[1 / (1 + np.e), 0.0], [0.5, 0.5]])
    with pytest.raises(ValueError, match=r"Z contains 1 NaN or \+inf value\(s\), the first at index \(0, 2\)"):
        A.softmax(np.array([[0.0, 1.0, np.nan]]))
    with pytest.raises(ValueError, match=r"Z contains 1 NaN or \+inf"):
        A.softmax(np.array([[0.0, np.inf]]))
    with pytest.raises(ValueError, match="−inf everywhere"):
        A.softmax(np.array([[0.0, 1.0], [-np.inf, -np.inf]]))
    with pytest.raises(TypeError, match="axis must be an integer"):
        A.softmax(Z, axis=0.5)


def test_a_wrong_input_width_blames_the_input_not_the_weights():
    rng = np.random.default_rng(9)
    W = _weights(rng, 4)
    X = rng.normal(size=(2, 3, 5))  # 5 features for weights made for 4
    with pytest.raises(ValueError, match=r"X must have 4 entries along its last axis \(the rows of W_q, W_k, W_v, "
                                         r"W_o\); received shape \(2, 3, 5\)"):
        A.multi_head_attention(X, *W, num_heads=2)
    with pytest.raises(ValueError, match=r"X must have 4 entries along its last axis \(the rows of W_q, W_k, W_v\)"):
        A.self_attention(X, *W[:3])
    with pytest.raises(ValueError, match=r"W_o must have shape \(4, 4\).*received shape \(5, 4\)"):
        A.multi_head_attention(X[..., :4], *W[:3], np.zeros((5, 4)), num_heads=2)
    with pytest.raises(ValueError, match=r"X must have 4 entries along its last axis \(the length of gamma and beta\)"):
        A.layer_norm(X, np.ones(4), np.zeros(4))
    with pytest.raises(ValueError, match=r"K must have 5 entries along its last axis \(d_k"):
        A.scaled_dot_product_attention(X, X[..., :4], X)
    with pytest.raises(ValueError, match="leading .batch. axes of Q"):
        A.scaled_dot_product_attention(X, np.zeros((3, 3, 5)), np.zeros((3, 3, 2)))
