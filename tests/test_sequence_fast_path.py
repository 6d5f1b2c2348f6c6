"""The fast path of the recurrent layers (``fast=True``, the default) against the taught form (``fast=False``).

The taught form runs each cell's ``step``, its equation on Tensors, at every time step, and the engine differentiates
it; the fast path (``implementations.sequence._loops``) runs the same recurrence with fewer graph nodes, the gated
cells' loops as one node each with backpropagation through time by hand. On random sizes, with and without padding,
stacked and bidirectional, the two must give the same outputs, final states, gates and gradients to round-off.
"""

import numpy as np
import pytest

from implementations.engine.autograd import Tensor
from implementations.sequence import GRU, LSTM, RNN

CELLS = {"rnn": RNN, "lstm": LSTM, "gru": GRU}
LAYOUTS = [(1, False), (1, True), (2, False), (3, True)]  # (num_layers, bidirectional)


def random_problem(cell, num_layers, bidirectional, padded, seed):
    """A cell of random sizes with random biases, and random inputs, initial states, lengths and loss weights."""
    rng = np.random.default_rng(seed)
    B, T, D, H = (int(n) for n in rng.integers(1, [5, 8, 6, 6], endpoint=True))
    module = CELLS[cell](D, H, rng=rng, num_layers=num_layers, bidirectional=bidirectional)
    for name, p in module.named_parameters():
        if name.startswith("b"):  # biases start at constants; random ones catch a bias of the wrong set
            p.data = rng.normal(size=p.shape)
    W, kinds = module.width, 2 if cell == "lstm" else 1
    shape = (B, W) if num_layers == 1 else (num_layers, B, W)
    lengths = rng.integers(1, T, endpoint=True, size=B) if padded else None
    return {"module": module, "x": rng.normal(size=(B, T, D)), "states": [rng.normal(size=shape) for _ in range(kinds)],
            "lengths": lengths, "G": rng.normal(size=(B, T, W)), "G_final": rng.normal(size=(kinds, *shape))}


def run(problem, cell, *, fast):
    """Outputs, final states, gates and the gradients of L = Σ G ⊙ outputs + Σ G_final ⊙ finals, as arrays."""
    module = problem["module"]
    module.fast = fast
    module.zero_grad()
    x = Tensor(problem["x"], requires_grad=True)
    states = [Tensor(s, requires_grad=True) for s in problem["states"]]
    state = tuple(states) if cell == "lstm" else states[0]
    gates = {"return_gates": True} if cell != "rnn" else {}
    result = module(x, state, lengths=problem["lengths"], **gates)
    outputs, finals = result[0], result[1] if cell == "lstm" else (result[1],)
    loss = (outputs * problem["G"]).sum() + sum((f * g).sum() for f, g in zip(finals, problem["G_final"], strict=True))
    loss.backward()
    arrays = {"outputs": outputs.data, "x.grad": x.grad}
    arrays |= {f"final {k}": f.data for k, f in enumerate(finals)}
    arrays |= {f"state {k}.grad": s.grad for k, s in enumerate(states)}
    arrays |= {f"{name}.grad": p.grad for name, p in module.named_parameters()}
    arrays |= {f"gate {name}": g for name, g in (result[2] if gates else {}).items()}
    return arrays


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("padded", [False, True], ids=["full", "padded"])
@pytest.mark.parametrize(("num_layers", "bidirectional"), LAYOUTS, ids=[f"L{n}{'-bi' * b}" for n, b in LAYOUTS])
@pytest.mark.parametrize("cell", list(CELLS))
def test_fast_path_gives_the_taught_forms_outputs_gates_and_gradients(cell, num_layers, bidirectional, padded, seed):
    problem = random_problem(cell, num_layers, bidirectional, padded, seed=100 * seed + 7 * num_layers + padded)
    fast, taught = run(problem, cell, fast=True), run(problem, cell, fast=False)
    assert fast.keys() == taught.keys()
    for name in fast:
        np.testing.assert_allclose(fast[name], taught[name], rtol=1e-10, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("cell", list(CELLS))
def test_the_layers_run_the_fast_path_by_default_and_step_only_when_taught(cell, monkeypatch):
    """``fast=False`` runs ``step`` once per time step, layer and direction; the default never calls it."""
    module = CELLS[cell](3, 4, rng=np.random.default_rng(0), num_layers=2, bidirectional=True)
    assert module.fast is True
    calls = []
    step = type(module).step
    monkeypatch.setattr(type(module), "step", lambda self, *args, **kwargs: calls.append(1) or step(self, *args,
                                                                                                     **kwargs))
    x = np.random.default_rng(1).normal(size=(2, 5, 3))
    module(x)
    assert calls == []
    module.fast = False
    module(x)
    assert len(calls) == 5 * 2 * 2  # T steps × 2 layers × 2 directions


@pytest.mark.parametrize("cell", list(CELLS))
def test_step_is_one_time_step_of_the_layer(cell):
    """The public step, called by a reader on arrays, gives the layer's first output and, for the gated cells, gates."""
    module = CELLS[cell](3, 4, rng=np.random.default_rng(2))
    rng = np.random.default_rng(3)
    x, states = rng.normal(size=(2, 1, 3)), [rng.normal(size=(2, 4)) for _ in range(2 if cell == "lstm" else 1)]
    result = module(x, tuple(states) if cell == "lstm" else states[0], **({"return_gates": True} if cell != "rnn"
                                                                           else {}))
    stepped = module.step(x[:, 0], *states, **({"return_gates": True} if cell != "rnn" else {}))
    h = stepped if cell == "rnn" else stepped[0]
    np.testing.assert_allclose(h.data, result[0].data[:, 0], rtol=1e-12, atol=1e-14)
    if cell == "lstm":
        np.testing.assert_allclose(stepped[1].data, result[1][1].data, rtol=1e-12, atol=1e-14)
    for name, gate in ({} if cell == "rnn" else stepped[-1]).items():
        np.testing.assert_allclose(gate.data, result[2][name][:, 0], rtol=1e-12, atol=1e-14)
