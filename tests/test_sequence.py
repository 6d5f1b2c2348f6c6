"""Tests of implementations.sequence against plain NumPy loops, finite differences and each other."""

import numpy as np
import pytest
from tensor_check import assert_gradients_match

from implementations.engine.autograd import Tensor
from implementations.nn import parameter_count
from implementations.sequence import GRU, LSTM, RNN, chrono_init, rnn_bptt

B, T, D, H = 3, 6, 4, 5


def sigmoid(a):
    return 1.0 / (1.0 + np.exp(-a))


def inputs(seed=0):
    return np.random.default_rng(seed).normal(size=(B, T, D))


def numpy_rnn(x, h, W_xh, W_hh, b_h):
    out = []
    for t in range(x.shape[1]):
        h = np.tanh(x[:, t] @ W_xh + h @ W_hh + b_h)
        out.append(h)
    return np.stack(out, axis=1), h


def numpy_lstm(x, h, c, W, b):
    out = []
    for t in range(x.shape[1]):
        hx = np.concatenate([h, x[:, t]], axis=1)  # h first, then x
        f, i = sigmoid(hx @ W["f"] + b["f"]), sigmoid(hx @ W["i"] + b["i"])
        c_tilde, o = np.tanh(hx @ W["c"] + b["c"]), sigmoid(hx @ W["o"] + b["o"])
        c = f * c + i * c_tilde
        h = o * np.tanh(c)
        out.append(h)
    return np.stack(out, axis=1), h, c


def numpy_gru(x, h, W, b):
    out = []
    for t in range(x.shape[1]):
        hx = np.concatenate([h, x[:, t]], axis=1)
        z, r = sigmoid(hx @ W["z"] + b["z"]), sigmoid(hx @ W["r"] + b["r"])
        h_tilde = np.tanh(np.concatenate([r * h, x[:, t]], axis=1) @ W["h"] + b["h"])
        h = (1 - z) * h + z * h_tilde
        out.append(h)
    return np.stack(out, axis=1), h


def randomize_biases(module, seed):
    rng = np.random.default_rng(seed)
    for name, p in module.named_parameters():
        if name.startswith("b"):
            p.data = rng.normal(size=p.shape)


# --- forward passes against loops written here --------------------------------------------------


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "taught"])
def test_rnn_forward_matches_a_numpy_loop(fast):
    rnn = RNN(D, H, rng=np.random.default_rng(1), fast=fast)
    randomize_biases(rnn, 2)
    x, h0 = inputs(), np.random.default_rng(3).normal(size=(B, H))
    out, h_T = rnn(x, h0)
    expected_out, expected_h = numpy_rnn(x, h0, rnn.W_xh.data, rnn.W_hh.data, rnn.b_h.data)
    assert out.shape == (B, T, H) and h_T.shape == (B, H)
    np.testing.assert_allclose(out.data, expected_out, rtol=1e-12)
    np.testing.assert_allclose(h_T.data, expected_h, rtol=1e-12)


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "taught"])
def test_lstm_forward_matches_a_numpy_loop_with_named_gates(fast):
    lstm = LSTM(D, H, rng=np.random.default_rng(4), fast=fast)
    randomize_biases(lstm, 5)
    assert [p.shape for _, p in lstm.named_parameters()] == [(H + D, H)] * 4 + [(H,)] * 4
    x = inputs(1)
    h0, c0 = np.random.default_rng(6).normal(size=(2, B, H))
    out, (h_T, c_T) = lstm(x, (h0, c0))
    W = {g: getattr(lstm, f"W_{g}").data for g in "fico"}
    b = {g: getattr(lstm, f"b_{g}").data for g in "fico"}
    expected_out, expected_h, expected_c = numpy_lstm(x, h0, c0, W, b)
    np.testing.assert_allclose(out.data, expected_out, rtol=1e-12)
    np.testing.assert_allclose(h_T.data, expected_h, rtol=1e-12)
    np.testing.assert_allclose(c_T.data, expected_c, rtol=1e-12)


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "taught"])
def test_gru_forward_matches_the_papers_equations(fast):
    gru = GRU(D, H, rng=np.random.default_rng(7), fast=fast)
    randomize_biases(gru, 8)
    x, h0 = inputs(2), np.random.default_rng(9).normal(size=(B, H))
    out, h_T = gru(x, h0)
    W = {g: getattr(gru, f"W_{g}").data for g in "zrh"}
    b = {g: getattr(gru, f"b_{g}").data for g in "zrh"}
    expected_out, expected_h = numpy_gru(x, h0, W, b)
    np.testing.assert_allclose(out.data, expected_out, rtol=1e-12)
    np.testing.assert_allclose(h_T.data, expected_h, rtol=1e-12)


def test_lstm_forget_bias_starts_at_one_and_gates_are_returned():
    lstm = LSTM(D, H, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(lstm.b_f.data, 1.0)
    _, _, gates = lstm(inputs(), return_gates=True)
    assert set(gates) == {"f", "i", "o"} and gates["f"].shape == (B, T, H)
    assert np.all((gates["f"] > 0) & (gates["f"] < 1))


def test_parameter_counts_four_against_three_weight_sets():
    lstm, gru = LSTM(D, H, rng=np.random.default_rng(0)), GRU(D, H, rng=np.random.default_rng(0))
    assert parameter_count(lstm) == 4 * ((H + D) * H + H)
    assert parameter_count(gru) == 3 * ((H + D) * H + H)
    assert parameter_count(gru) * 4 == parameter_count(lstm) * 3
    assert parameter_count(RNN(D, H, rng=np.random.default_rng(0), bidirectional=True)) == 2 * (D * H + H * H + H)


# --- gradients -----------------------------------------------------------------------------------


def test_rnn_bptt_matches_the_engine_and_finite_differences():
    rng = np.random.default_rng(10)
    x, h0 = rng.normal(size=(2, 4, 3)), rng.normal(size=(2, 5))
    W_xh, W_hh, b_h = rng.normal(size=(3, 5)) * 0.5, rng.normal(size=(5, 5)) * 0.5, rng.normal(size=5)
    dL_dout = rng.normal(size=(2, 4, 5))
    grads = rnn_bptt(x, h0, W_xh, W_hh, b_h, dL_dout)

    rnn = RNN(3, 5, rng=np.random.default_rng(0))
    rnn.W_xh.data, rnn.W_hh.data, rnn.b_h.data = W_xh.copy(), W_hh.copy(), b_h.copy()
    x_t, h0_t = Tensor(x, requires_grad=True), Tensor(h0, requires_grad=True)
    out, _ = rnn(x_t, h0_t)
    (out * dL_dout).sum().backward()
    engine = {"W_xh": rnn.W_xh.grad, "W_hh": rnn.W_hh.grad, "b_h": rnn.b_h.grad, "x": x_t.grad, "h0": h0_t.grad}
    for name, grad in grads.items():
        np.testing.assert_allclose(grad, engine[name], rtol=1e-10, atol=1e-12)

    def loss(W):
        return np.sum(numpy_rnn(x, h0, W_xh, W, b_h)[0] * dL_dout)

    eps = 1e-6
    numerical = np.zeros_like(W_hh)
    for idx in np.ndindex(W_hh.shape):
        plus, minus = W_hh.copy(), W_hh.copy()
        plus[idx] += eps
        minus[idx] -= eps
        numerical[idx] = (loss(plus) - loss(minus)) / (2 * eps)
    np.testing.assert_allclose(grads["W_hh"], numerical, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("fast", [True, False], ids=["fast", "taught"])
@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_gated_cells_gradients_against_finite_differences(cell, fast):
    module = (LSTM if cell == "lstm" else GRU)(2, 3, rng=np.random.default_rng(11), fast=fast)
    x = np.random.default_rng(12).normal(size=(2, 4, 2))
    assert_gradients_match(lambda xx: module(xx)[0], x)
    W0 = module.W_r.data.copy() if cell == "gru" else module.W_f.data.copy()

    def output_of_weight(W):
        setattr(module, "W_r" if cell == "gru" else "W_f", W)
        return module(x)[0]

    assert_gradients_match(output_of_weight, W0)


# --- padding, reversal, validation ---------------------------------------------------------------


@pytest.mark.parametrize("make", [lambda: RNN(D, H, rng=np.random.default_rng(0)),
                                  lambda: RNN(D, H, rng=np.random.default_rng(0), bidirectional=True),
                                  lambda: LSTM(D, H, rng=np.random.default_rng(0)),
                                  lambda: LSTM(D, H, rng=np.random.default_rng(0), bidirectional=True),
                                  lambda: GRU(D, H, rng=np.random.default_rng(0)),
                                  lambda: GRU(D, H, rng=np.random.default_rng(0), bidirectional=True)],
                         ids=["rnn", "birnn", "lstm", "bilstm", "gru", "bigru"])
def test_padding_never_changes_the_real_positions(make):
    module = make()
    lengths = np.array([6, 3, 1])
    x = inputs(3)
    padded = x.copy()
    padded[1, 3:] = 99.0  # garbage in the padding
    padded[2, 1:] = -99.0
    out, state = module(padded, lengths=lengths)
    h_T = state[0] if isinstance(state, tuple) else state
    for b, L in enumerate(lengths):
        alone, alone_state = module(x[b : b + 1, :L])
        alone_h = alone_state[0] if isinstance(alone_state, tuple) else alone_state
        np.testing.assert_allclose(out.data[b, :L], alone.data[0], rtol=1e-12, atol=1e-15)
        np.testing.assert_array_equal(out.data[b, L:], 0.0)
        np.testing.assert_allclose(h_T.data[b], alone_h.data[0], rtol=1e-12, atol=1e-15)


def test_bidirectional_reverse_half_is_a_forward_run_on_the_reversed_input():
    birnn = RNN(D, H, rng=np.random.default_rng(13), bidirectional=True)
    x = inputs(4)
    out, h_T = birnn(x)
    assert out.shape == (B, T, 2 * H) and h_T.shape == (B, 2 * H)
    forward_only = RNN(D, H, rng=np.random.default_rng(0))
    forward_only.W_xh.data, forward_only.W_hh.data, forward_only.b_h.data = (
        birnn.W_xh_rev.data, birnn.W_hh_rev.data, birnn.b_h_rev.data)
    rev_out, rev_h = forward_only(x[:, ::-1])
    np.testing.assert_allclose(out.data[:, :, H:], rev_out.data[:, ::-1], rtol=1e-12)
    np.testing.assert_allclose(h_T.data[:, H:], rev_h.data, rtol=1e-12)
    np.testing.assert_allclose(out.data[:, :, :H], RNN.forward(birnn, x)[0].data[:, :, :H], rtol=1e-12)


def test_bad_inputs_raise():
    rnn = RNN(D, H, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, 4\).*received \(6, 4\).*x\[None\]"):
        rnn(inputs()[0])
    with pytest.raises(ValueError, match=r"lengths must be 3 integers between 1 and T = 6.*\[6, 0, 2\]"):
        rnn(inputs(), lengths=[6, 0, 2])
    with pytest.raises(ValueError, match=r"h0 must have shape \(3, 5\); received \(3, 4\)"):
        rnn(inputs(), np.zeros((3, 4)))
    lstm, gru = LSTM(D, H, rng=np.random.default_rng(0)), GRU(D, H, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"state must be a tuple \(h0, c0\).*received ndarray"):
        lstm(inputs(), np.zeros((3, 5)))
    with pytest.raises(ValueError, match=r"c0 must have shape \(3, 5\); received \(3, 2\)"):
        lstm(inputs(), (np.zeros((3, 5)), np.zeros((3, 2))))
    with pytest.raises(ValueError, match=r"h0 must have shape \(3, 5\); received \(5,\)"):
        gru(inputs(), np.zeros(5))
    with pytest.raises(ValueError, match=r"dL_dout has 4 entries along axis 2, but h0's axis 1 gives H = 5"):
        rnn_bptt(np.zeros((2, 3, 4)), np.zeros((2, 5)), np.zeros((4, 5)), np.zeros((5, 5)), np.zeros(5),
                 np.zeros((2, 3, 4)))


def test_lstm_forget_bias_sets_b_f_only_and_is_checked():
    lstm = LSTM(3, 4, rng=np.random.default_rng(0), forget_bias=2.0)
    np.testing.assert_array_equal(lstm.b_f.data, np.full(4, 2.0))
    for name in ("b_i", "b_c", "b_o"):
        np.testing.assert_array_equal(getattr(lstm, name).data, np.zeros(4))
    with pytest.raises(ValueError, match="forget_bias"):
        LSTM(3, 4, rng=np.random.default_rng(0), forget_bias=np.nan)


def test_chrono_init_spreads_forget_time_scales_and_closes_input_gates():
    lstm = chrono_init(LSTM(2, 500, rng=np.random.default_rng(0)), 40, rng=np.random.default_rng(1))
    u = np.exp(lstm.b_f.data)  # σ(b_f) = u / (1 + u)
    assert u.min() >= 1.0 and u.max() <= 39.0 and u.max() > 35.0 and u.min() < 2.0
    np.testing.assert_array_equal(lstm.b_i.data, -lstm.b_f.data)
    np.testing.assert_array_equal(lstm.b_o.data, np.zeros(500))
    with pytest.raises(ValueError, match="max_lag"):
        chrono_init(lstm, 2, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="LSTM"):
        chrono_init(GRU(2, 3, rng=np.random.default_rng(0)), 10, rng=np.random.default_rng(0))


# --- the input contract (issue 21): bad input is refused by name, in the caller's terms -------------------------

def test_lstm_refuses_one_array_as_its_state_even_for_two_sequences():
    lstm = LSTM(D, H, rng=np.random.default_rng(0))
    x2 = inputs()[:2]  # B = 2: the rows of one (B, H) array would unpack as h0 and c0
    with pytest.raises(ValueError, match=r"state must be a tuple \(h0, c0\).*shape \(2, 5\).*state=\(h0, c0\)"):
        lstm(x2, np.zeros((2, H)))
    with pytest.raises(ValueError, match=r"h0 must have shape \(2, 5\); received \(5,\)"):
        lstm(x2, [np.zeros(H), np.zeros(H)])  # a list of two rows is two states of shape (H,)


@pytest.mark.parametrize("cell", [RNN, LSTM, GRU])
def test_cells_refuse_empty_sequences_and_inputs_of_another_width_in_the_callers_terms(cell):
    module = cell(D, H, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match=r"x is empty \(shape \(3, 0, 4\)\).*T >= 1"):
        module(inputs()[:, :0])
    with pytest.raises(ValueError, match=r"x must have 4 entries along its last axis \(the cell's input_size"):
        module(np.zeros((B, T, D + 1)))
    with pytest.raises(ValueError, match=r"x contains 18 NaN or infinite value\(s\)"):
        module(np.where(np.arange(D) == 0, np.inf, inputs()))


@pytest.mark.parametrize("cell", [RNN, LSTM, GRU])
def test_cells_refuse_lengths_of_the_wrong_kind_length_or_range(cell):
    module = cell(D, H, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="lengths must be a numeric array"):
        module(inputs(), lengths="6 6 6")
    with pytest.raises(ValueError, match=r"lengths must hold one length per sequence of x, shape \(3,\); received "
                                         r"shape \(2,\)"):
        module(inputs(), lengths=[6, 6])
    with pytest.raises(ValueError, match=r"lengths must be 3 integers between 1 and T = 6.*\[7, 6, 1\]"):
        module(inputs(), lengths=[7, 6, 1])
    with pytest.raises(ValueError, match=r"lengths must be integers, the number of real tokens .*\[2.5, 6, 1\]"):
        module(inputs(), lengths=[2.5, 6, 1])


def test_rnn_bptt_names_the_argument_whose_shape_does_not_fit():
    x, h0, W_xh, W_hh, b_h, G = (np.zeros((2, 3, 4)), np.zeros((2, 5)), np.zeros((4, 5)), np.zeros((5, 5)),
                                 np.zeros(5), np.zeros((2, 3, 5)))
    with pytest.raises(ValueError, match=r"x must have shape \(B, T, D\) \(3-D\); received shape \(3, 4\)"):
        rnn_bptt(x[0], h0, W_xh, W_hh, b_h, G)
    with pytest.raises(ValueError, match=r"W_hh has 6 entries along axis 1, but h0's axis 1 gives H = 5.*\(H, H\)"):
        rnn_bptt(x, h0, W_xh, np.zeros((5, 6)), b_h, G)
    with pytest.raises(ValueError, match=r"W_xh has 3 entries along axis 0, but x's axis 2 gives D = 4.*\(D, H\)"):
        rnn_bptt(x, h0, np.zeros((3, 5)), W_hh, b_h, G)
    with pytest.raises(TypeError, match="b_h must be a numeric array"):
        rnn_bptt(x, h0, W_xh, W_hh, "zeros", G)
    with pytest.raises(ValueError, match=r"h0 contains 2 NaN or infinite value\(s\), the first at index \(0, 0\)"):
        rnn_bptt(x, np.where(np.arange(5) == 0, np.nan, h0), W_xh, W_hh, b_h, G)


def test_constructors_and_chrono_init_refuse_bad_hyper_parameters_by_name():
    with pytest.raises(ValueError, match="forget_bias must be a finite number; received 'one'"):
        LSTM(3, 4, rng=np.random.default_rng(0), forget_bias="one")
    with pytest.raises(ValueError, match="bidirectional must be True or False"):
        RNN(3, 4, rng=np.random.default_rng(0), bidirectional="yes")
    with pytest.raises(ValueError, match="max_lag must be a finite number; received 'long'"):
        chrono_init(LSTM(3, 4, rng=np.random.default_rng(0)), "long", rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match=r"module must be a Module.*the string 'rnn'"):
        parameter_count("rnn")


def test_first_edition_names_of_the_chapter_still_resolve():
    """The first edition's chapter listed ``sequence.RNN._run``, ``sequence._lstm_loop`` and ``sequence._gru_loop``."""
    from implementations import sequence
    from implementations.notebook import listing

    with pytest.warns(FutureWarning, match=r"RNN\._run is now RNN\._fast"):
        assert "for t in range" in repr(listing.show_source(sequence.RNN._run))
    for name in ("_lstm_loop", "_gru_loop"):
        with pytest.warns(FutureWarning, match=rf"sequence\.{name} is now implementations\.sequence\._loops\.{name}"):
            assert "for t in range" in repr(listing.show_source(getattr(sequence, name)))
