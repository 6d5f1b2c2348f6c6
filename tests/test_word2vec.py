"""Tests of implementations.language.word2vec: the full softmax and CBOW against finite differences and direct formulas,
subsampling against its keep rate, and trained models against the optimum each objective has in closed form."""

from collections import Counter

import numpy as np
import pytest

from implementations.data import make_corpus
from implementations.language.word2vec import Word2Vec, cbow_loss, full_softmax_loss, subsample
from implementations.preliminaries.gradcheck import numerical_gradient

VARIANTS = [("skipgram", "negative"), ("skipgram", "softmax"), ("cbow", "negative"), ("cbow", "softmax")]


def _fit(sentences, architecture="skipgram", objective="negative", **kwargs):
    """Word2Vec().fit with small defaults; ``negatives`` only for negative sampling."""
    arguments = {"dim": 8, "window": 2, "epochs": 2, "rng": np.random.default_rng(0), "batch_size": 16}
    if objective == "negative":
        arguments["negatives"] = 3
    return Word2Vec().fit(sentences, architecture=architecture, objective=objective, **{**arguments, **kwargs})


def _softmax_rows(S):
    """Row-wise softmax computed the naive way, exp then normalise (fine for the small scores of these tests)."""
    E = np.exp(S)
    return E / E.sum(axis=1, keepdims=True)


# --- the losses ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("b", "d", "V"), [(1, 3, 2), (4, 5, 7), (6, 2, 11)])
def test_full_softmax_loss_is_minus_log_of_the_softmax_probability(b, d, V):
    rng = np.random.default_rng(b + d + V)
    v, U, o = rng.normal(size=(b, d)), rng.normal(size=(V, d)), rng.integers(0, V, size=b)
    loss, _ = full_softmax_loss(v, U, o)
    p = _softmax_rows(v @ U.T)  # (b, V)
    np.testing.assert_allclose(loss, np.mean(-np.log(p[np.arange(b), o])), rtol=1e-12)


def test_full_softmax_loss_is_stable_for_scores_in_the_thousands():
    rng = np.random.default_rng(0)
    v, U, o = 300 * rng.normal(size=(3, 4)), 10 * rng.normal(size=(5, 4)), np.array([0, 4, 2])
    S = v @ U.T  # scores of order 10³: exp overflows
    expected = np.mean([np.logaddexp.reduce(S[i]) - S[i, o[i]] for i in range(3)])
    with np.errstate(over="raise", invalid="raise", divide="raise"):  # exp of very negative scores may underflow
        loss, (dv, dU) = full_softmax_loss(v, U, o)
    np.testing.assert_allclose(loss, expected, rtol=1e-12)
    assert np.isfinite(dv).all() and np.isfinite(dU).all()


@pytest.mark.parametrize(("b", "d", "V"), [(1, 3, 2), (4, 5, 7)])
def test_full_softmax_gradients_match_finite_differences(b, d, V):
    rng = np.random.default_rng(10 * b + V)
    v, U, o = rng.normal(size=(b, d)), rng.normal(size=(V, d)), rng.integers(0, V, size=b)
    _, (dv, dU) = full_softmax_loss(v, U, o)
    np.testing.assert_allclose(dv, numerical_gradient(lambda x: full_softmax_loss(x, U, o)[0], v), rtol=1e-6,
                               atol=1e-9)
    np.testing.assert_allclose(dU, numerical_gradient(lambda x: full_softmax_loss(v, x, o)[0], U), rtol=1e-6,
                               atol=1e-9)


def _cbow_problem(seed, with_noise):
    """Three examples with 3, 1 and 2 of 4 context slots filled, V = 6, d = 3; noise words or None."""
    rng = np.random.default_rng(seed)
    v_context, U = rng.normal(size=(3, 4, 3)), rng.normal(size=(6, 3))
    mask = np.array([[1, 1, 0, 1], [0, 0, 1, 0], [1, 0, 0, 1]], dtype=bool)
    o = np.array([2, 0, 5])
    noise = rng.integers(0, 6, size=(3, 2)) if with_noise else None
    return v_context, mask, U, o, noise


@pytest.mark.parametrize("with_noise", [False, True])
def test_cbow_loss_is_the_loss_of_the_context_mean(with_noise):
    v_context, mask, U, o, noise = _cbow_problem(1, with_noise)
    loss, _ = cbow_loss(v_context, mask, U, o, noise)
    h = np.array([v_context[i][mask[i]].mean(axis=0) for i in range(3)])  # (3, d): a loop over the examples
    if noise is None:
        expected = np.mean(-np.log(_softmax_rows(h @ U.T)[np.arange(3), o]))
    else:
        s_pos, s_neg = (U[o] * h).sum(1), np.einsum("bkd,bd->bk", U[noise], h)
        expected = np.mean(np.log1p(np.exp(-s_pos)) + np.log1p(np.exp(s_neg)).sum(1))
    np.testing.assert_allclose(loss, expected, rtol=1e-12)


@pytest.mark.parametrize("with_noise", [False, True])
def test_cbow_gradients_match_finite_differences(with_noise):
    v_context, mask, U, o, noise = _cbow_problem(2, with_noise)
    _, (dv_context, dU) = cbow_loss(v_context, mask, U, o, noise)
    numeric_v = numerical_gradient(lambda x: cbow_loss(x, mask, U, o, noise)[0], v_context)
    numeric_U = numerical_gradient(lambda x: cbow_loss(v_context, mask, x, o, noise)[0], U)
    np.testing.assert_allclose(dv_context, numeric_v, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(dU, numeric_U, rtol=1e-6, atol=1e-9)
    assert not dv_context[~mask].any()  # padding gets no gradient


# --- subsampling --------------------------------------------------------------------------------------------------

def test_subsample_keeps_each_word_with_probability_sqrt_t_over_f():
    counts = {"the": 4000, "of": 1500, "cat": 400, "dog": 80, "emu": 20}  # f = 0.667 … 0.0033
    tokens = [w for w, c in counts.items() for _ in range(c)]
    rng = np.random.default_rng(0)
    t, draws = 0.01, 200
    kept = np.zeros(len(tokens))
    for _ in range(draws):  # a fresh draw each call
        kept += subsample(tokens, t, rng=rng)
    total = sum(counts.values())
    offset = 0
    for word, c in counts.items():
        p = min(1.0, np.sqrt(t / (c / total)))  # P(keep) = 1 − max(0, 1 − √(t/f))
        n, k = c * draws, kept[offset : offset + c].sum()
        offset += c
        if p == 1.0:
            assert k == n, word  # rarer than t: always kept
        else:
            assert abs(k - n * p) <= 5 * np.sqrt(n * p * (1 - p)), (word, k / n, p)  # a 5-sigma binomial band
    assert kept.min() < draws  # draws differ from call to call: "the" is not kept every time


def _pairs_per_epoch(sentences, window, architecture):
    """A naive count of the training examples of a text, one loop over positions."""
    total = 0
    for s in sentences:
        for i in range(len(s)):
            neighbours = min(len(s) - 1, i + window) - max(0, i - window)
            total += neighbours if architecture == "skipgram" else int(neighbours > 0)
    return total


@pytest.mark.parametrize("architecture", ["skipgram", "cbow"])
def test_fit_trains_on_every_example_and_subsampling_drops_frequent_words_afresh(architecture):
    sentences = [s.split() for s in make_corpus(100, rng=np.random.default_rng(0))[0]] + [["alone"]]
    full = _fit(sentences, architecture, epochs=3)
    assert full.examples_per_epoch == [_pairs_per_epoch(sentences, 2, architecture)] * 3
    sub = _fit(sentences, architecture, epochs=3, subsample=0.01)
    assert max(sub.examples_per_epoch) < 0.8 * full.examples_per_epoch[0]  # "the" (1/4 of the words) mostly dropped
    assert len(set(sub.examples_per_epoch)) > 1  # a fresh draw each epoch


# --- training reaches what each objective predicts ---------------------------------------------------------------

def _markov_sentences(n, seed):
    """``n`` sentences of 2–6 words over five words, each word drawn given the one before."""
    rng = np.random.default_rng(seed)
    transition = rng.dirichlet(np.full(5, 0.7), size=5)  # (5, 5)
    sentences = []
    for _ in range(n):
        ids = [rng.choice(5, p=[0.35, 0.25, 0.2, 0.12, 0.08])]
        for _ in range(rng.integers(1, 6)):
            ids.append(rng.choice(5, p=transition[ids[-1]]))
        sentences.append(["abcde"[i] for i in ids])
    return sentences


def _pair_counts(sentences, window):
    """#(c, o): how often o is within ``window`` positions of c in the same sentence, a (5, 5) table."""
    counts = np.zeros((5, 5))
    for s in sentences:
        for i, c in enumerate(s):
            for j in range(max(0, i - window), min(len(s), i + window + 1)):
                if j != i:
                    counts["abcde".index(c), "abcde".index(s[j])] += 1
    return counts


def _scores(model):
    """u_oᵀv_c for the words a…e: (5, 5), rows the centre c."""
    rows = [model.index[w] for w in "abcde"]
    return model.W_in[rows] @ model.W_out[rows].T


def test_skipgram_softmax_learns_the_empirical_distribution_of_context_words():
    """With dim ≥ V the full softmax can match p(o | c) = #(c, o) / #(c), its optimum, which training must reach."""
    sentences = _markov_sentences(120, seed=0)
    model = _fit(sentences, "skipgram", "softmax", dim=5, epochs=20, lr=0.05)
    counts = _pair_counts(sentences, 2)
    assert counts.min() > 0
    np.testing.assert_allclose(_softmax_rows(_scores(model)), counts / counts.sum(1, keepdims=True), atol=0.025)


def test_negative_sampling_learns_the_shifted_pmi():
    """Levy & Goldberg (2014): the optimum of eq. (7.4) has u_oᵀv_c = log(#(c, o) / (k #(c) P_n(o))), with
    P_n ∝ count^(3/4) the noise distribution."""
    sentences = _markov_sentences(120, seed=0)
    k = 5
    model = _fit(sentences, "skipgram", "negative", negatives=k, dim=5, epochs=20, lr=0.05)
    counts = _pair_counts(sentences, 2)
    frequency = Counter(w for s in sentences for w in s)
    noise = np.array([frequency[w] for w in "abcde"]) ** 0.75
    shifted_pmi = np.log(counts / (k * counts.sum(1, keepdims=True) * (noise / noise.sum())))  # ranges over ±2.4
    np.testing.assert_allclose(_scores(model), shifted_pmi, atol=0.25)


@pytest.mark.parametrize("objective", ["negative", "softmax"])
def test_cbow_with_window_1_predicts_a_centre_word_fixed_by_its_two_neighbours(objective):
    """Sentences "l{i} m{i}{j} r{j}": only the pair of neighbours tells which of the 9 middle words comes."""
    rng = np.random.default_rng(0)
    sentences = [f"l{i} m{i}{j} r{j}".split() for i in range(3) for j in range(3)] * 20
    sentences = [sentences[i] for i in rng.permutation(len(sentences))]
    model = _fit(sentences, "cbow", objective, window=1, epochs=30, lr=0.1, rng=np.random.default_rng(1))
    for i in range(3):
        for j in range(3):
            h = (model.vector(f"l{i}") + model.vector(f"r{j}")) / 2  # the context mean
            assert model.words[np.argmax(model.W_out @ h)] == f"m{i}{j}"  # out of 15 words


@pytest.mark.parametrize(("architecture", "objective"), VARIANTS)
def test_every_variant_puts_the_words_of_a_category_together(architecture, objective):
    sentences, category = make_corpus(1000, rng=np.random.default_rng(0))
    model = _fit(sentences, architecture, objective, dim=16, epochs=3, batch_size=64)  # the default lr of each
    assert model.loss_history[-1] < model.loss_history[0]
    nearest = {w: model.most_similar(w, k=1)[0][0] for w in category}
    assert np.mean([category.get(n) == category[w] for w, n in nearest.items()]) >= 0.8  # chance about 5/29


@pytest.mark.parametrize(("architecture", "objective"), VARIANTS)
@pytest.mark.parametrize("t", [None, 0.01])
def test_a_seeded_run_is_reproducible_and_the_seed_matters(architecture, objective, t):
    sentences = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"] * 3
    first = _fit(sentences, architecture, objective, subsample=t)
    again = _fit(sentences, architecture, objective, subsample=t)
    other = _fit(sentences, architecture, objective, subsample=t, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(first.W_in, again.W_in)
    np.testing.assert_array_equal(first.W_out, again.W_out)
    assert first.loss_history == again.loss_history
    assert not np.array_equal(first.W_in, other.W_in)


# --- bad input ----------------------------------------------------------------------------------------------------

SMALL = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"]


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"architecture": "sg"}, ValueError, r"^architecture must be one of 'skipgram', 'cbow'; received 'sg'"),
        ({"architecture": None}, ValueError, r"^architecture must be one of 'skipgram', 'cbow'; received None"),
        ({"objective": "hierarchical"}, ValueError, r"^objective must be one of 'negative', 'softmax'; received"),
        ({"objective": "softmax", "negatives": 5}, ValueError, r"^negatives=5 is given but objective='softmax'"),
        ({"subsample": 0.0}, ValueError, r"^subsample must be a finite number > 0; received 0.0"),
        ({"subsample": -1e-3}, ValueError, r"^subsample must be a finite number > 0"),
        ({"subsample": float("nan")}, ValueError, r"^subsample must be a finite number > 0; received nan"),
        ({"subsample": "1e-3"}, ValueError, r"^subsample must be a finite number > 0; received '1e-3'"),
        ({"subsample": 1e-9}, ValueError, r"^subsample=1e-09 left no training example in epoch 0"),
        ({"negatives": 0}, ValueError, r"^negatives must be an integer >= 1"),
    ],
)
def test_fit_refuses_bad_options_by_name(kwargs, error, message):
    with pytest.raises(error, match=message):
        _fit(SMALL, **kwargs)


def test_losses_refuse_bad_arrays_by_name():
    rng = np.random.default_rng(0)
    v, U, o = rng.normal(size=(3, 4)), rng.normal(size=(5, 4)), np.array([0, 1, 4])
    v_context, mask = rng.normal(size=(3, 2, 4)), np.ones((3, 2), dtype=bool)
    bad = v.copy()
    bad[1, 0] = np.nan
    with pytest.raises(ValueError, match=r"^v contains 1 NaN or infinite value\(s\), the first at index \(1, 0\)"):
        full_softmax_loss(bad, U, o)
    with pytest.raises(ValueError, match=r"^U has 3 entries along axis 1, but v's axis 1 gives d = 4"):
        full_softmax_loss(v, U[:, :3], o)
    with pytest.raises(ValueError, match=r"^o must hold token ids 0, …, 4"):
        full_softmax_loss(v, U, [0, 1, 5])
    with pytest.raises(ValueError, match=r"^o has 2 entries along axis 0, but v's axis 0 gives b = 3"):
        full_softmax_loss(v, U, o[:2])
    with pytest.raises(ValueError, match=r"^mask has 1 example\(s\) without a context word, the first at row 2"):
        cbow_loss(v_context, np.array([[1, 0], [0, 1], [0, 0]]), U, o)
    with pytest.raises(ValueError, match=r"^mask must hold True/False \(or 0/1\); received other values such as 0.5"):
        cbow_loss(v_context, np.full((3, 2), 0.5), U, o)
    with pytest.raises(ValueError, match=r"^mask has 1 entry along axis 1, but v_context's axis 1 gives slots = 2"):
        cbow_loss(v_context, mask[:, :1], U, o)
    with pytest.raises(ValueError, match=r"^noise has 2 entries along axis 0, but v_context's axis 0 gives b = 3"):
        cbow_loss(v_context, mask, U, o, noise=np.zeros((2, 3), dtype=int))
    with pytest.raises(ValueError, match=r"^noise must hold token ids 0, …, 4"):
        cbow_loss(v_context, mask, U, o, noise=np.full((3, 2), 5))
    with pytest.raises(TypeError, match=r"^tokens must be a list of tokens; received the string"):
        subsample("the cat", 0.01, rng=rng)
    with pytest.raises(ValueError, match=r"^t must be a finite number > 0; received 0"):
        subsample(["the", "cat"], 0, rng=rng)
    with pytest.raises(ValueError, match=r"^tokens is empty"):
        subsample([], 0.01, rng=rng)


def test_a_model_read_before_fit_says_to_call_fit():
    model = Word2Vec()
    for read in (lambda: model.vector("cat"), lambda: model.most_similar("cat"), lambda: model.words,
                 lambda: model.W_in, lambda: model.loss_history):
        with pytest.raises(AttributeError, match=r"this Word2Vec has no \w+ yet: it is set by fit\(sentences, "):
            read()
    assert not hasattr(model, "W_out")  # still an AttributeError, so hasattr and getattr(..., default) work
    with pytest.raises(AttributeError, match="'Word2Vec' object has no attribute 'nothing'"):
        model.nothing  # noqa: B018
