"""Tests of implementations.language.decoding: greedy decoding and beam search against exhaustive search and a naive
loop."""

import itertools

import numpy as np
import pytest

from implementations.engine.autograd import no_grad
from implementations.language.decoding import beam_search, greedy_decode, ngram_log_probs_fn
from implementations.language.transformer import TinyGPT


def _log_softmax(z):
    z = z - z.max(axis=-1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=-1, keepdims=True))


def prefix_model(V, seed, *, scale=1.5):
    """A random model whose next-token distribution depends on the whole prefix: logits seeded by the prefix."""

    def log_probs_fn(prefixes):
        rows = [np.random.default_rng([seed, *map(int, prefix)]).normal(0.0, scale, size=V) for prefix in prefixes]
        return _log_softmax(np.array(rows))  # (K, V)

    return log_probs_fn


def log_prob_of(log_probs_fn, ids):
    """log p(y) = Σ_t log p(y_t | y_<t), asking the model about one prefix at a time."""
    return sum(float(log_probs_fn(np.array([ids[:t]]))[0, ids[t]]) for t in range(1, len(ids)))


def all_hypotheses(V, start_id, max_len, eos_id):
    """Every complete sequence: ends in eos (and holds no other eos), or has max_len tokens after the start."""
    for n in range(1, max_len + 1):
        for tail in itertools.product(range(V), repeat=n):
            if eos_id is not None and eos_id in tail[:-1]:
                continue
            if n < max_len and (eos_id is None or tail[-1] != eos_id):
                continue
            yield (start_id, *tail)


def exhaustive_search(log_probs_fn, V, start_id, max_len, eos_id, alpha):
    """[(ids, score)] of every possible hypothesis, best first (score, then fewer tokens, then smaller ids)."""
    scored = [(ids, log_prob_of(log_probs_fn, ids) / (len(ids) - 1) ** alpha)
              for ids in all_hypotheses(V, start_id, max_len, eos_id)]
    scored = [(ids, s) for ids, s in scored if np.isfinite(s)]
    return sorted(scored, key=lambda h: (-h[1], len(h[0]), h[0]))


def reference_beam_search(log_probs_fn, start_id, width, max_len, eos_id, alpha):
    """The documented algorithm as plain loops, one prefix and one token at a time, always run to max_len."""
    alive, finished = [((start_id,), 0.0)], []
    for _ in range(max_len):
        candidates = []
        for k, (ids, lp) in enumerate(alive):
            row = log_probs_fn(np.array([ids]))[0]
            candidates += [(lp + row[v], k, v, ids + (v,)) for v in range(len(row)) if np.isfinite(row[v])]
        candidates.sort(key=lambda c: (-c[0], c[1], c[2]))
        finished += [(c[3], c[0]) for c in candidates[:width] if c[2] == eos_id]
        alive = [(c[3], c[0]) for c in candidates if c[2] != eos_id][:width]
        if not alive:
            break
    complete = [(ids, lp / (len(ids) - 1) ** alpha) for ids, lp in finished + alive]
    return sorted(complete, key=lambda h: (-h[1], len(h[0]), h[0]))[:width]


def assert_same_hypotheses(beam, expected):
    assert [tuple(ids.tolist()) for ids, _ in beam] == [tuple(ids) for ids, _ in expected]
    np.testing.assert_allclose([s for _, s in beam], [s for _, s in expected], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize(("V", "max_len"), [(3, 3), (3, 5), (4, 4)])
@pytest.mark.parametrize("eos_id", [None, 2])
@pytest.mark.parametrize("alpha", [0.0, 0.8])
def test_exhaustive_beam_equals_brute_force_search(V, max_len, eos_id, alpha):
    model = prefix_model(V, seed=10 * V + max_len)
    expected = exhaustive_search(model, V, 0, max_len, eos_id, alpha)
    ids, score, beam = beam_search(model, 0, beam_width=V**max_len, max_len=max_len, eos_id=eos_id,
                                   length_penalty=alpha)
    assert tuple(ids.tolist()) == expected[0][0]
    np.testing.assert_allclose(score, expected[0][1], rtol=1e-12)
    if eos_id is None:  # nothing pruned, no early stop: the beam is every sequence, in order
        assert_same_hypotheses(beam, expected)
    else:  # an early stop keeps the hypotheses finished so far; each is a real one with its true score
        scores = dict(expected)
        np.testing.assert_allclose([s for _, s in beam], [scores[tuple(h.tolist())] for h, _ in beam], rtol=1e-12)


@pytest.mark.parametrize("width", [2, 3])
@pytest.mark.parametrize("eos_id", [None, 1])
@pytest.mark.parametrize("alpha", [0.0, 1.0])
@pytest.mark.parametrize("seed", [0, 1])
def test_beam_search_equals_a_naive_reference_loop(width, eos_id, alpha, seed):
    V, max_len = 5, 6
    model = prefix_model(V, seed, scale=1.0)
    expected = reference_beam_search(model, 3, width, max_len, eos_id, alpha)
    ids, score, beam = beam_search(model, 3, beam_width=width, max_len=max_len, eos_id=eos_id, length_penalty=alpha)
    assert tuple(ids.tolist()) == expected[0][0]  # the early stop never changes the best hypothesis
    np.testing.assert_allclose(score, expected[0][1], rtol=1e-12)
    if eos_id is None:
        assert_same_hypotheses(beam, expected)


@pytest.mark.parametrize("eos_id", [None, 0, 2])
@pytest.mark.parametrize("seed", [3, 4, 5])
def test_beam_width_one_is_greedy_decoding(eos_id, seed):
    model = prefix_model(4, seed)
    greedy_ids, greedy_log_prob = greedy_decode(model, 1, max_len=6, eos_id=eos_id)
    ids, score, beam = beam_search(model, 1, beam_width=1, max_len=6, eos_id=eos_id)
    np.testing.assert_array_equal(ids, greedy_ids)
    np.testing.assert_allclose(score, greedy_log_prob, rtol=1e-12)
    assert len(beam) == 1
    # greedy takes the argmax at every step, and its log-probability is the sum over the steps
    rows = [model(greedy_ids[None, :t])[0] for t in range(1, len(greedy_ids))]
    assert all(greedy_ids[t] == np.argmax(row) for t, row in enumerate(rows, start=1))
    np.testing.assert_allclose(greedy_log_prob, log_prob_of(model, greedy_ids.tolist()), rtol=1e-12)
    if eos_id is None:
        assert len(greedy_ids) == 7
    else:  # eos, if generated, is the last token
        assert eos_id not in greedy_ids[1:-1].tolist()
        assert len(greedy_ids) == 7 or greedy_ids[-1] == eos_id


# tokens: 0 start, 1 "a", 2 "b", 3 eos. "a" is the likelier first token, but "b" is almost always followed by eos.
GARDEN_PATH = np.array([[0.0, 0.6, 0.4, 0.0],
                        [0.0, 0.3, 0.3, 0.4],
                        [0.0, 0.0, 0.1, 0.9],
                        [0.0, 0.0, 0.0, 1.0]])


def test_beam_of_two_finds_what_greedy_misses():
    model = ngram_log_probs_fn(GARDEN_PATH)
    greedy_ids, greedy_log_prob = greedy_decode(model, 0, max_len=10, eos_id=3)
    np.testing.assert_array_equal(greedy_ids, [0, 1, 3])
    np.testing.assert_allclose(greedy_log_prob, np.log(0.6 * 0.4), rtol=1e-12)
    calls = []
    ids, score, beam = beam_search(lambda p: calls.append(p.shape) or model(p), 0, beam_width=2, max_len=10, eos_id=3)
    np.testing.assert_array_equal(ids, [0, 2, 3])
    np.testing.assert_allclose(score, np.log(0.4 * 0.9), rtol=1e-12)
    assert [h.tolist() for h, _ in beam] == [[0, 2, 3], [0, 1, 3]]
    np.testing.assert_allclose([s for _, s in beam], np.log([0.36, 0.24]), rtol=1e-12)
    # the stopping rule: after step 2 the best alive prefix, log 0.18, cannot beat the finished log 0.36
    assert calls == [(1, 1), (2, 2)]


def test_length_penalty_changes_the_choice():
    # tokens: 0 start, 1 "a", 2 eos. Stopping at once has p = 0.55; "a" then eos has p = 0.45 · 0.9 = 0.405.
    model = ngram_log_probs_fn([[0.0, 0.45, 0.55], [0.0, 0.1, 0.9], [0.0, 0.0, 1.0]])
    short, long = np.log(0.55), np.log(0.405)  # n = 1 and n = 2 tokens after the start
    for alpha, expected_ids, expected_score in [(0.0, [0, 2], short), (0.5, [0, 2], short),
                                                (1.0, [0, 1, 2], long / 2), (2.0, [0, 1, 2], long / 4)]:
        ids, score, beam = beam_search(model, 0, beam_width=2, max_len=3, eos_id=2, length_penalty=alpha)
        np.testing.assert_array_equal(ids, expected_ids)
        np.testing.assert_allclose(score, expected_score, rtol=1e-12)
        # the switch is where log 0.55 = log 0.405 / 2^α, α ≈ 0.596. With α = 0 the search stops after step 1 (the
        # alive "a" has log 0.45 < log 0.55); with α > 0 it may still win (log 0.45 / 3^α > log 0.55), so it goes on
        expected = {(0, 2): short, (0, 1, 2): long / 2**alpha} if alpha > 0 else {(0, 2): short}
        assert {tuple(h.tolist()) for h, _ in beam} == set(expected)
        np.testing.assert_allclose([s for _, s in beam], [expected[tuple(h.tolist())] for h, _ in beam], rtol=1e-12)


@pytest.mark.parametrize("eos_id", [None, 4])
@pytest.mark.parametrize("alpha", [0.0, 0.7])
def test_beam_is_sorted_distinct_within_max_len_and_scored_by_its_log_probability(eos_id, alpha):
    V, max_len, width = 6, 5, 4
    model = prefix_model(V, seed=7, scale=1.0)
    calls = []

    def counting(prefixes):
        calls.append(prefixes.shape)
        return model(prefixes)

    ids, score, beam = beam_search(counting, 5, beam_width=width, max_len=max_len, eos_id=eos_id,
                                   length_penalty=alpha)
    sequences = [tuple(h.tolist()) for h, _ in beam]
    scores = np.array([s for _, s in beam])
    assert 1 <= len(beam) <= width and len(set(sequences)) == len(sequences)
    assert np.all(np.diff(scores) <= 0)
    assert sequences[0] == tuple(ids.tolist()) and scores[0] == score
    for h in sequences:
        assert h[0] == 5 and 2 <= len(h) <= max_len + 1
        assert eos_id not in h[1:-1]  # eos ends a hypothesis
        assert len(h) == max_len + 1 or h[-1] == eos_id
    recomputed = [log_prob_of(model, list(h)) / (len(h) - 1) ** alpha for h in sequences]
    np.testing.assert_allclose(scores, recomputed, rtol=1e-12)
    # one call per step, on all the alive prefixes at once
    assert [t for _, t in calls] == list(range(1, len(calls) + 1)) and len(calls) <= max_len
    assert all(K <= width for K, _ in calls)
    if eos_id is None:
        assert len(calls) == max_len and len(beam) == width


@pytest.mark.parametrize("V", [3, 40])
def test_ties_go_to_the_earlier_prefix_and_the_lower_token(V):
    uniform = lambda prefixes: np.full((len(prefixes), V), -np.log(V))  # noqa: E731
    ids, score, beam = beam_search(uniform, 0, beam_width=3, max_len=2)
    assert [h.tolist() for h, _ in beam] == [[0, 0, 0], [0, 0, 1], [0, 0, 2]]
    np.testing.assert_allclose(score, 2 * -np.log(V), rtol=1e-12)
    np.testing.assert_array_equal(greedy_decode(uniform, 2, max_len=3)[0], [2, 0, 0, 0])
    calls = []
    beam_search(lambda p: calls.append(p.tolist()) or uniform(p), 0, beam_width=3, max_len=2)
    assert calls[1] == [[0, 0], [0, 1], [0, 2]]  # the beam after step 1: the three lowest ids


def test_equal_scores_put_the_shorter_hypothesis_first():
    # tokens: 0 start, 1 "a", 2 eos. log p(eos | start) = c and log p(a | start) + log p(eos | a) = −0.5 + (c + 0.5),
    # which is c exactly in floating point (c + 0.5 is exact by Sterbenz's lemma): two finished hypotheses tie.
    c = np.log(1 - np.exp(-0.5))
    e = c + 0.5
    rows = {0: [-np.inf, -0.5, c], 1: [-np.inf, np.log(1 - np.exp(e)), e]}
    model = lambda prefixes: np.array([rows[int(p[-1])] for p in prefixes])  # noqa: E731
    ids, score, beam = beam_search(model, 0, beam_width=2, max_len=3, eos_id=2)
    assert [h.tolist() for h, _ in beam[:2]] == [[0, 2], [0, 1, 2]]
    assert beam[0][1] == beam[1][1] == score == c


def test_impossible_tokens_are_never_chosen():
    P = np.array([[0.0, 0.5, 0.5], [0.7, 0.0, 0.3], [1.0, 0.0, 0.0]])  # 1 never follows 1, 2 only goes to 0
    model = ngram_log_probs_fn(P)
    ids, _, beam = beam_search(model, 0, beam_width=27, max_len=3)
    expected = exhaustive_search(model, 3, 0, 3, None, 0.0)  # the finite-probability sequences only
    assert_same_hypotheses(beam, expected)
    assert len(beam) == sum(P[a, b] * P[b, c] > 0 for a, b, c in itertools.product(range(3), repeat=3) if a > 0)
    assert all(np.isfinite(s) for _, s in beam)


def test_decoders_drive_a_transformer():
    V = 3
    model = TinyGPT(V, 8, 8, 2, 1, 16, rng=np.random.default_rng(0))
    model.W_out.data *= 300.0  # peaked next-token distributions: no near-ties between sequences

    def log_probs_fn(prefixes):  # the recipe of the module docstring
        with no_grad():
            return _log_softmax(model(prefixes[:, -model.block_size:]).data[:, -1])  # (K, V)

    expected = exhaustive_search(log_probs_fn, V, 0, 3, 2, 0.0)
    ids, score, _ = beam_search(log_probs_fn, 0, beam_width=27, max_len=3, eos_id=2)
    assert tuple(ids.tolist()) == expected[0][0]
    np.testing.assert_allclose(score, expected[0][1], rtol=1e-9)


@pytest.mark.parametrize("n", [2, 3])
def test_ngram_log_probs_fn_reads_the_table_with_start_padding(n):
    V = 4
    rng = np.random.default_rng(n)
    table = rng.dirichlet(np.ones(V), size=(V,) * (n - 1))  # (V, …, V): n axes
    table[(0,) * (n - 1)] = [0.0, 0.5, 0.5, 0.0]  # zeros become -inf
    fn = ngram_log_probs_fn(table)
    for t in [1, 2, 4]:
        prefixes = rng.integers(0, V, size=(5, t))
        prefixes[0] = 0
        expected = []
        for prefix in prefixes.tolist():
            context = ([prefix[0]] * (n - 1) + prefix)[-(n - 1):]  # padded with the start token
            with np.errstate(divide="ignore"):
                expected.append(np.log(table[tuple(context)]))
        np.testing.assert_array_equal(fn(prefixes), expected)


def test_ngram_log_probs_fn_rejects_bad_tables_and_prefixes():
    with pytest.raises(ValueError, match=r"table must have n >= 2 axes.*shape \(3,\)"):
        ngram_log_probs_fn([0.2, 0.3, 0.5])
    with pytest.raises(ValueError, match=r"table must have n >= 2 axes.*shape \(2, 3\)"):
        ngram_log_probs_fn(np.full((2, 3), 1 / 3))
    with pytest.raises(ValueError, match="table must hold probabilities"):
        ngram_log_probs_fn([[0.5, 0.6], [0.5, 0.5]])
    with pytest.raises(ValueError, match="table must hold probabilities"):
        ngram_log_probs_fn([[1.5, -0.5], [0.5, 0.5]])
    with pytest.raises(ValueError, match="table contains 1 NaN"):
        ngram_log_probs_fn([[np.nan, 0.5], [0.5, 0.5]])
    fn = ngram_log_probs_fn(GARDEN_PATH)
    with pytest.raises(ValueError, match="prefixes must hold token ids 0, …, 3.*start_id below V = 4"):
        fn(np.array([[4]]))
    with pytest.raises(ValueError, match="prefixes must be an int array of shape"):
        fn(np.array([0.0]))
    with pytest.raises(ValueError, match="start_id below V = 4"):
        greedy_decode(fn, 4, max_len=2)


def _normalized(V):
    return lambda prefixes: np.full((len(prefixes), V), -np.log(V))


@pytest.mark.parametrize("decode", [greedy_decode, lambda *a, **kw: beam_search(*a, beam_width=2, **kw)])
def test_decoders_reject_bad_arguments(decode):
    model = prefix_model(4, 0)  # answers for any prefix, so the decoder's own check of start_id is reached
    with pytest.raises(ValueError, match="max_len must be an integer >= 1; received 0"):
        decode(model, 0, max_len=0)
    with pytest.raises(TypeError, match="start_id must be an int token id; received float 1.0"):
        decode(model, 1.0, max_len=2)
    with pytest.raises(TypeError, match="start_id must be an int token id; received bool"):
        decode(model, True, max_len=2)
    with pytest.raises(ValueError, match="start_id must be an integer >= 0; received -1"):
        decode(model, -1, max_len=2)
    with pytest.raises(ValueError, match=r"start_id = 4 is not a token id of the model.*V = 4"):
        decode(model, 4, max_len=2)
    with pytest.raises(ValueError, match=r"eos_id = 7 is not a token id of the model.*0, …, 3"):
        decode(model, 0, max_len=2, eos_id=7)
    with pytest.raises(TypeError, match="eos_id must be an int token id \\(or None\\); received the string '2'"):
        decode(model, 0, max_len=2, eos_id="2")
    with pytest.raises(TypeError, match="log_probs_fn must be a function"):
        decode(np.zeros((4, 4)), 0, max_len=2)


@pytest.mark.parametrize("decode", [greedy_decode, lambda *a, **kw: beam_search(*a, beam_width=3, **kw)])
def test_decoders_report_what_log_probs_fn_returned(decode):
    logits = np.array([1.0, 2.0, 0.5])
    bad_models = [
        (lambda p: np.zeros(3), r"log_probs_fn returned an array of shape \(3,\) for 1 prefix\(es\) of length 1"),
        (lambda p: np.zeros((len(p) + 1, 3)), r"shape \(2, 3\) for 1 prefix\(es\).*expected shape \(1, V\)"),
        (lambda p: np.full((len(p), 2 + p.shape[1]), -np.log(2 + p.shape[1])),  # V = 3, then 4
         r"shape \(\d, 4\) for \d prefix\(es\) of length 2; expected shape \(\d, 3\).*same V tokens"),
        (lambda p: np.full((len(p), 3), np.nan), r"log_probs_fn returned nan at row 0, column 0 \(prefix \[0\]\)"),
        (lambda p: np.tile([np.inf, 0.0, 0.0], (len(p), 1)), "log_probs_fn returned inf at row 0, column 0"),
        (lambda p: np.tile(logits, (len(p), 1)), r"not log-probabilities: row 0 .*sum to 11\.7561"),
        (lambda p: np.full((len(p), 3), -np.inf), "not log-probabilities.*sum to 0;"),
        (lambda p: None, "log_probs_fn must return an array of shape \\(K, V\\); it returned NoneType"),
        (lambda p: "abc", "log_probs_fn must return an array"),
    ]
    for fn, message in bad_models:
        with pytest.raises((ValueError, TypeError), match=message):
            decode(fn, 0, max_len=3)
    decode(lambda p: np.float32(_log_softmax(np.tile(logits, (len(p), 1)))), 0, max_len=3)  # float32 rounding is fine


def test_beam_search_rejects_bad_width_and_length_penalty():
    model = _normalized(3)
    with pytest.raises(ValueError, match="beam_width must be an integer >= 1; received 0"):
        beam_search(model, 0, beam_width=0, max_len=2)
    with pytest.raises(ValueError, match="beam_width must be an integer >= 1; received 1.5"):
        beam_search(model, 0, beam_width=1.5, max_len=2)
    with pytest.raises(ValueError, match="length_penalty must be a finite number >= 0; received -0.5"):
        beam_search(model, 0, beam_width=2, max_len=2, length_penalty=-0.5)
