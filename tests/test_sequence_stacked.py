"""Stacked and bidirectional RNN, LSTM and GRU against single-layer cells composed by hand and finite differences."""

import numpy as np
import pytest

from implementations.engine.autograd import Tensor
from implementations.nn import parameter_count
from implementations.preliminaries.gradcheck import numerical_gradient
from implementations.sequence import GRU, LSTM, RNN, chrono_init

B, T, D, H = 3, 5, 4, 3
LENGTHS = [5, 3, 1]
CELLS = {"rnn": RNN, "lstm": LSTM, "gru": GRU}


def build(cell, num_layers, bidirectional, seed=0):
    module = CELLS[cell](D, H, rng=np.random.default_rng(seed), num_layers=num_layers, bidirectional=bidirectional)
    rng = np.random.default_rng(seed + 1)
    for name, p in module.named_parameters():
        if name.startswith("b"):  # biases start at constants; random ones catch a bias read from the wrong layer
            p.data = rng.normal(size=p.shape)
    return module


def initial_states(cell, module, seed):
    """Random initial states, one per kind (h; or h and c), of the shape the module documents."""
    L, W = module.num_layers, module.width
    shape = (B, W) if L == 1 else (L, B, W)
    return [np.random.default_rng(seed + k).normal(size=shape) for k in range(2 if cell == "lstm" else 1)]


def call(module, cell, x, states, lengths, **kwargs):
    """(outputs, list of final states, gates or None), everything as arrays."""
    state = tuple(states) if cell == "lstm" else states[0]
    gates = cell != "rnn"
    result = module(x, state, lengths=lengths, **kwargs, **({"return_gates": True} if gates else {}))
    finals = result[1] if cell == "lstm" else (result[1],)
    return result[0].data, [f.data for f in finals], result[2] if gates else None


def reverse_within(a, lengths):
    """Each sequence of a (B, T, ...) array reversed within its own length; the padding stays where it is."""
    out = a.copy()
    for b, L in enumerate(lengths):
        out[b, :L] = a[b, :L][::-1]
    return out


def one_direction(module, cell, suffix, x, states, lengths):
    """A separately built single-layer, one-direction cell with the module's parameters of ``suffix``."""
    alone = CELLS[cell](x.shape[2], H, rng=np.random.default_rng(99))
    for name, p in alone.named_parameters():
        p.data = getattr(module, name + suffix).data.copy()
    return call(alone, cell, x, states, lengths)


def by_hand(module, cell, x, states, lengths):
    """The stack composed from single-layer, one-direction cells; the reverse one reads reversed sequences."""
    L, directions = module.num_layers, (("", "_rev") if module.bidirectional else ("",))
    per_layer = [s if L > 1 else s[None] for s in states]  # (L, B, W) each
    full = [T] * B if lengths is None else lengths
    finals, gates = [], []
    for layer in range(L):
        outs, layer_finals, layer_gates = [], [], []
        for k, direction in enumerate(directions):
            suffix = ("" if layer == 0 else f"_l{layer + 1}") + direction
            part = [s[layer][:, k * H : (k + 1) * H] for s in per_layer]  # this direction's half of the state
            x_in = reverse_within(x, full) if direction else x
            out, final, g = one_direction(module, cell, suffix, x_in, part, lengths)
            if direction:  # back to the original time order
                out, g = reverse_within(out, full), g and {n: reverse_within(v, full) for n, v in g.items()}
            outs.append(out)
            layer_finals.append(final)
            layer_gates.append(g)
        x = np.concatenate(outs, axis=2)  # (B, T, W): the next layer's input
        finals.append([np.concatenate(f, axis=1) for f in zip(*layer_finals, strict=True)])
        first = layer_gates[0]
        gates.append(first and {n: np.concatenate([g[n] for g in layer_gates], axis=2) for n in first})
    finals = [np.stack(f) if L > 1 else f[0] for f in zip(*finals, strict=True)]
    gates = gates[0] and {n: np.stack([g[n] for g in gates]) if L > 1 else gates[0][n] for n in gates[0]}
    return x, finals, gates


def assert_same_run(got, expected):
    (out, finals, gates), (out_ref, finals_ref, gates_ref) = got, expected
    np.testing.assert_allclose(out, out_ref, rtol=1e-12, atol=1e-14)
    for f, f_ref in zip(finals, finals_ref, strict=True):
        assert f.shape == f_ref.shape
        np.testing.assert_allclose(f, f_ref, rtol=1e-12, atol=1e-14)
    assert (gates is None) == (gates_ref is None)
    for name in gates or {}:
        np.testing.assert_allclose(gates[name], gates_ref[name], rtol=1e-12, atol=1e-14)


# --- against cells composed by hand ---------------------------------------------------------------------------------


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize("lengths", [None, LENGTHS], ids=["full", "padded"])
def test_bidirectional_layer_is_a_forward_run_and_a_rev_cell_on_each_sequence_reversed_within_its_length(cell, lengths):
    module = build(cell, 1, True, seed=1)
    x = np.random.default_rng(2).normal(size=(B, T, D))
    states = initial_states(cell, module, 3)  # (B, 2H): forward half first
    got = call(module, cell, x, states, lengths)
    assert got[0].shape == (B, T, 2 * H) and all(f.shape == (B, 2 * H) for f in got[1])
    assert_same_run(got, by_hand(module, cell, x, states, lengths))
    if lengths is not None:
        np.testing.assert_array_equal(got[0][1, 3:], 0.0)  # padding: zeros in both halves


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize(("num_layers", "bidirectional"), [(2, False), (3, True)])
@pytest.mark.parametrize("lengths", [None, LENGTHS], ids=["full", "padded"])
def test_stacked_cell_is_single_layer_cells_composed_by_hand(cell, num_layers, bidirectional, lengths):
    module = build(cell, num_layers, bidirectional, seed=4)
    x = np.random.default_rng(5).normal(size=(B, T, D))
    states = initial_states(cell, module, 6)  # (L, B, W)
    got = call(module, cell, x, states, lengths)
    W = 2 * H if bidirectional else H
    assert got[0].shape == (B, T, W) and all(f.shape == (num_layers, B, W) for f in got[1])
    assert got[2] is None or all(g.shape == (num_layers, B, T, W) for g in got[2].values())
    assert_same_run(got, by_hand(module, cell, x, states, lengths))
    assert_same_run(call(module, cell, x, [np.zeros_like(s) for s in states], lengths),
                    call(module, cell, x, [None] * len(states), lengths))  # zeros by default


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_layer_one_keeps_its_names_and_further_layers_read_width_w(cell):
    single, stacked = build(cell, 1, False), build(cell, 2, True)
    names = [n for n, _ in single.named_parameters()]
    stacked_names = [n for n, _ in stacked.named_parameters()]
    assert stacked_names == names + [n + "_rev" for n in names] + [n + s for s in ("_l2", "_l2_rev") for n in names]
    first = {"rnn": "W_xh", "lstm": "W_f", "gru": "W_z"}[cell]
    rows_h = {"rnn": 0, "lstm": H, "gru": H}[cell]  # the gated cells' W also has H rows for h
    assert getattr(stacked, first).shape == (rows_h + D, H)
    assert getattr(stacked, first + "_l2_rev").shape == (rows_h + 2 * H, H)  # layer 2 reads W = 2H numbers per step
    k = {"rnn": 1, "lstm": 4, "gru": 3}[cell]  # weight matrices that read x
    without_x = parameter_count(single) - k * D * H
    assert parameter_count(stacked) == 2 * (without_x + k * D * H) + 2 * (without_x + k * 2 * H * H)


def test_default_arguments_build_the_same_cells_as_before():
    """num_layers=1 and bidirectional=False draw the same weights in the same order: old state_dicts still load."""
    for cls, names in ((RNN, ["W_xh", "W_hh", "b_h"]), (LSTM, [f"{p}_{g}" for p in "Wb" for g in "fico"]),
                       (GRU, [f"{p}_{g}" for p in "Wb" for g in "zrh"])):
        plain = cls(D, H, rng=np.random.default_rng(7))
        explicit = cls(D, H, rng=np.random.default_rng(7), num_layers=1, bidirectional=False)
        assert [n for n, _ in plain.named_parameters()] == names
        for (_, p), (_, q) in zip(plain.named_parameters(), explicit.named_parameters(), strict=True):
            np.testing.assert_array_equal(p.data, q.data)
        deeper = cls(D, H, rng=np.random.default_rng(7), num_layers=2)  # layer 1 is drawn first: the same weights
        deeper.load_state_dict({**deeper.state_dict(), **plain.state_dict()})
        np.testing.assert_array_equal(getattr(deeper, names[0]).data, getattr(plain, names[0]).data)


# --- gradients ------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("cell", ["lstm", "gru"])
def test_bidirectional_two_layer_gradients_match_finite_differences(cell):
    Bs, Ts, Ds, Hs, lengths = 2, 3, 2, 2, [3, 2]
    module = CELLS[cell](Ds, Hs, rng=np.random.default_rng(8), num_layers=2, bidirectional=True)
    rng = np.random.default_rng(9)
    for p in module.parameters():
        p.data = rng.normal(size=p.shape) * 0.7  # biases too: nothing at a special point
    x = rng.normal(size=(Bs, Ts, Ds))
    states = [rng.normal(size=(2, Bs, 2 * Hs)) for _ in range(2 if cell == "lstm" else 1)]
    G = rng.normal(size=(Bs, Ts, 2 * Hs))
    G_final = rng.normal(size=(len(states), 2, Bs, 2 * Hs))

    def loss(x, states):  # L = Σ G ⊙ outputs + Σ G_final ⊙ final states
        result = module(x, tuple(states) if cell == "lstm" else states[0], lengths=lengths)
        finals = result[1] if cell == "lstm" else (result[1],)
        return (result[0] * G).sum() + sum((f * g).sum() for f, g in zip(finals, G_final, strict=True))

    x_t, states_t = Tensor(x, requires_grad=True), [Tensor(s, requires_grad=True) for s in states]
    loss(x_t, states_t).backward()
    np.testing.assert_allclose(x_t.grad, numerical_gradient(lambda v: loss(v, states).data, x), rtol=1e-6, atol=1e-9)
    for k, s in enumerate(states_t):
        def of_state(v, k=k):
            return loss(x, [v if j == k else states[j] for j in range(len(states))]).data
        np.testing.assert_allclose(s.grad, numerical_gradient(of_state, states[k]), rtol=1e-6, atol=1e-9)
    for name, p in module.named_parameters():
        analytic, value = p.grad.copy(), p.data.copy()

        def of_parameter(v, p=p):
            p.data = v
            return loss(x, states).data

        numerical = numerical_gradient(of_parameter, value)
        p.data = value
        np.testing.assert_allclose(analytic, numerical, rtol=1e-6, atol=1e-9, err_msg=name)


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
def test_padding_leaks_nothing_into_real_outputs_states_or_gradients(cell):
    module = build(cell, 2, True, seed=10)
    x = np.random.default_rng(11).normal(size=(B, T, D))
    garbage = x.copy()
    garbage[1, 3:], garbage[2, 1:] = 99.0, -99.0  # padding changed
    G = np.random.default_rng(12).normal(size=(B, T, 2 * H))
    runs = []
    for inputs in (x, garbage):
        module.zero_grad()
        x_t = Tensor(inputs, requires_grad=True)
        out, state = module(x_t, lengths=LENGTHS)
        h_T = state[0] if cell == "lstm" else state
        ((out * G).sum() + h_T.sum()).backward()
        runs.append([out.data, h_T.data, x_t.grad, *(p.grad for p in module.parameters())])
    for clean, dirty in zip(*runs, strict=True):
        np.testing.assert_allclose(clean, dirty, rtol=1e-12, atol=1e-14)
    x_grad = runs[0][2]
    np.testing.assert_array_equal(x_grad[1, 3:], 0.0)
    np.testing.assert_array_equal(x_grad[2, 1:], 0.0)
    for b, L in enumerate(LENGTHS):  # and each sequence alone, unpadded, gives the same
        alone, alone_state = module(x[b : b + 1, :L])
        alone_h = alone_state[0] if cell == "lstm" else alone_state
        np.testing.assert_allclose(runs[0][0][b, :L], alone.data[0], rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(runs[0][1][:, b], alone_h.data[:, 0], rtol=1e-12, atol=1e-14)


# --- chrono_init and bad input --------------------------------------------------------------------------------------


def test_chrono_init_sets_every_layer_and_direction_of_a_stacked_lstm():
    lstm = chrono_init(LSTM(2, 50, rng=np.random.default_rng(0), num_layers=2, bidirectional=True), 30,
                       rng=np.random.default_rng(1))
    single = chrono_init(LSTM(2, 50, rng=np.random.default_rng(0)), 30, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(lstm.b_f.data, single.b_f.data)  # layer 1 forward: the draw of a single layer
    draws = []
    for suffix in ("", "_rev", "_l2", "_l2_rev"):
        b_f = getattr(lstm, "b_f" + suffix).data
        assert np.all((np.exp(b_f) >= 1.0) & (np.exp(b_f) <= 29.0))
        np.testing.assert_array_equal(getattr(lstm, "b_i" + suffix).data, -b_f)
        np.testing.assert_array_equal(getattr(lstm, "b_o" + suffix).data, 0.0)
        draws.append(b_f)
    assert len({d.tobytes() for d in draws}) == 4  # each its own draw


@pytest.mark.parametrize("cell", ["rnn", "lstm", "gru"])
@pytest.mark.parametrize("num_layers", [0, -1, 1.5, True, "2", None])
def test_num_layers_must_be_a_positive_integer(cell, num_layers):
    with pytest.raises(ValueError, match=rf"num_layers must be an integer >= 1; received {num_layers!r}"):
        CELLS[cell](D, H, rng=np.random.default_rng(0), num_layers=num_layers)


@pytest.mark.parametrize("cell", ["rnn", "gru"])
def test_h0_of_the_wrong_shape_is_refused_for_stacked_and_bidirectional_cells(cell):
    x = np.zeros((B, T, D))
    bi = CELLS[cell](D, H, rng=np.random.default_rng(0), bidirectional=True)
    with pytest.raises(ValueError, match=r"h0 must have shape \(3, 6\); received \(3, 3\)"):
        bi(x, np.zeros((B, H)))  # one direction's state only
    stacked = CELLS[cell](D, H, rng=np.random.default_rng(0), num_layers=2, bidirectional=True)
    with pytest.raises(ValueError, match=r"h0 must have shape \(2, 3, 6\); received \(3, 6\).*each of the 2 layers"):
        stacked(x, np.zeros((B, 2 * H)))  # a single layer's state
    with pytest.raises(ValueError, match=r"h0 must have shape \(2, 3, 6\); received \(4, 3, 3\)"):
        stacked(x, np.zeros((4, B, H)))  # PyTorch's (layers · directions, B, H)


def test_lstm_state_of_the_wrong_shape_is_refused_for_a_stacked_lstm():
    lstm = LSTM(D, H, rng=np.random.default_rng(0), num_layers=3)
    x, good = np.zeros((B, T, D)), np.zeros((3, B, H))
    with pytest.raises(ValueError, match=r"state must be a tuple \(h0, c0\) of two arrays of shape \(3, 3, 3\)"):
        lstm(x, good)
    with pytest.raises(ValueError, match=r"c0 must have shape \(3, 3, 3\); received \(3, 3\)"):
        lstm(x, (good, np.zeros((B, H))))
    with pytest.raises(ValueError, match=r"h0 must have shape \(3, 3, 3\); received \(2, 3, 3\)"):
        lstm(x, (good[:2], good))
