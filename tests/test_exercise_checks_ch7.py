"""The exercise checks of chapters 7 and 10, transformers and language models, accept a right answer and reject the
classic wrong ones.

Chapter 7's causal attention, shift of sinusoidal positions, decoder block's parameters and beam search over a bigram
table, and chapter 10's BPE merges, bigram perplexity and one step of attention with a key–value cache (which is
checked against chapter 7's causal attention, so the two chapters' checks are tested together): for each, a correct
solution must print ``pass`` and every listed mistake must raise ``ExerciseCheckFailed``; the mistakes whose symptom
would mislead are named in the message. The references inside the checks are tested too: the shift of positions
against the package's encoding, the BPE merges against a loop that recounts every pair, the beam search against an
exhaustive search where the beam is wide enough to be exact.
"""

import itertools
from collections import Counter

import numpy as np
import pytest

from implementations.notebook import exercise_checks
from implementations.notebook.exercises import ExerciseCheckFailed

# --- right answers ----------------------------------------------------------------------------------------------


def _attention(Q, K, V, *, subtract_max=True, diagonal=1, scale="sqrt", future=False, mask_after=False):
    T, d_k = Q.shape
    scores = Q @ K.T / {"sqrt": np.sqrt(d_k), "d_k": d_k, "none": 1.0}[scale]
    rows, cols = np.tril_indices(T, k=-1) if future else np.triu_indices(T, k=diagonal)
    if not mask_after:
        scores[rows, cols] = -np.inf
    if subtract_max:
        scores = scores - scores.max(axis=1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=1, keepdims=True)
    if mask_after:  # the future's weights zeroed once the rows already sum to 1
        weights[rows, cols] = 0.0
    return weights @ V


def causal_attention(Q, K, V):
    return _attention(Q, K, V)


def _shift(m, D, *, exponent_uses_column=False, no_frequency=False, halves=False):
    """M with PE[i + m] = PE[i] M: a 2 x 2 rotation by m ω_k on the columns (2k, 2k + 1) of every frequency."""
    M = np.zeros((D, D))
    for k in range(D // 2):
        omega = 1 / 10000 ** ((k if exponent_uses_column else 2 * k) / D)
        b = m if no_frequency else m * omega
        s, c = (k, k + D // 2) if halves else (2 * k, 2 * k + 1)  # the sine's column and the cosine's
        M[s, s], M[c, s], M[s, c], M[c, c] = np.cos(b), np.sin(b), -np.sin(b), np.cos(b)
    return M


def position_shift(m, D):
    return _shift(m, D)


def decoder_block_parameters(D, num_heads, d_ff):
    return 3 * (2 * D) + 2 * (4 * D * D) + (D * d_ff + d_ff) + (d_ff * D + D)


def _merge(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if tuple(ids[i:i + 2]) == pair:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def _bpe(word_counts, num_merges, *, weighted=True, across_words=False, first_seen=False):
    words = {w: list(w.encode("utf-8")) for w in word_counts}
    if across_words:  # the corpus as one sequence: pairs span the end of a word and the start of the next
        words = {"corpus": [i for w, c in word_counts.items() for _ in range(c) for i in w.encode("utf-8")]}
        word_counts = {"corpus": 1}
    merges = []
    for new_id in range(256, 256 + num_merges):
        pairs = Counter()
        for w, ids in words.items():
            for pair in zip(ids, ids[1:], strict=False):
                pairs[pair] += word_counts[w] if weighted else 1
        best = pairs.most_common(1)[0][0] if first_seen else min(pairs, key=lambda p: (-pairs[p], p))
        words = {w: _merge(ids, best, new_id) for w, ids in words.items()}
        merges.append(best)
    return np.array(merges)


def bpe_merges(word_counts, num_merges):
    return _bpe(word_counts, num_merges)


def _beam(P, beam_width, max_len, *, per_prefix=False, probabilities=False, drop_finished=False):
    """Beam search over a bigram table, token 0 first, token V − 1 the end; with the classic mistakes as options."""
    V = len(P)
    score = P if probabilities else np.log(P)
    beam, finished = [([0], 0.0)], []
    for _ in range(max_len):
        candidates = []
        for ids, s in beam:
            extended = sorted(((ids + [v], s + score[ids[-1], v]) for v in range(V)), key=lambda c: -c[1])
            candidates += extended[:beam_width] if per_prefix else extended
        if not per_prefix:
            candidates.sort(key=lambda c: -c[1])
        top = candidates if per_prefix else candidates[:beam_width]
        if not drop_finished:
            finished += [c for c in top if c[0][-1] == V - 1]
        alive = [c for c in candidates if c[0][-1] != V - 1]
        beam = alive if per_prefix else alive[:beam_width]
    return np.array(max(finished + beam, key=lambda c: c[1])[0])


def beam_search_table(P, beam_width, max_len):
    return _beam(P, beam_width, max_len)


def _perplexity(P, ids, *, total=False, base_2=False, mean_probability=False, first_token=False):
    p = P[ids[:-1], ids[1:]]  # (T − 1,)
    if first_token:  # the first token "predicted" from the last, as if the sequence wrapped around
        p = P[np.roll(ids, 1), ids]
    if mean_probability:
        return np.array([1 / p.mean(), -np.log2(p.mean())])
    nats = -np.log(p).sum() if total else -np.log(p).mean()
    return np.array([2**nats if base_2 else np.exp(nats), nats if base_2 else nats / np.log(2)])


def bigram_perplexity(P, ids):
    return _perplexity(P, ids)


def _cached(q, k, v, K_cache, V_cache, *, append_first=True, scale="d_k", own_key=True, first_row_mask=False):
    grown_K, grown_V = np.vstack([K_cache, k]), np.vstack([V_cache, v])  # (t + 1, d_k), (t + 1, d_v)
    keys, values = (grown_K, grown_V) if append_first else (K_cache, V_cache)
    if not own_key:
        keys, values = keys[:-1], values[:-1]
    scores = keys @ q / np.sqrt(len(q) if scale == "d_k" else len(keys))  # (t + 1,)
    if first_row_mask:  # the mask row of position 0 reused for the newest token: only the first key is seen
        scores[1:] = -np.inf
    weights = np.exp(scores - scores.max(initial=-np.inf))
    return weights / weights.sum() @ values, grown_K, grown_V


def attend_with_cache(q, k, v, K_cache, V_cache):
    return _cached(q, k, v, K_cache, V_cache)


RIGHT = [causal_attention, position_shift, decoder_block_parameters, beam_search_table,  # chapter 7
         bpe_merges, bigram_perplexity, attend_with_cache]  # chapter 10


def _bpe_by_recounting(word_counts, num_merges):
    """Each merge from a fresh count over the whole text, pre-tokenized by the package and turned into bytes."""
    from implementations.language.bpe import pretokenize

    text = "".join(w * c for w, c in word_counts.items())
    words = [list(w.encode("utf-8")) for w in pretokenize(text)]  # every occurrence, repeated
    merges = []
    for new_id in range(256, 256 + num_merges):
        pairs = Counter(p for ids in words for p in zip(ids, ids[1:], strict=False))
        best = min(pairs, key=lambda p: (-pairs[p], p))
        words = [_merge(ids, best, new_id) for ids in words]
        merges.append(best)
    return np.array(merges)


def _shift_from_encoding(m, D):
    """Each frequency's rotation read off the package's encoding: PE[1] holds (sin ω_k, cos ω_k)."""
    from implementations.language.attention import sinusoidal_positional_encoding

    sin, cos = sinusoidal_positional_encoding(m + 1, D)[m].reshape(-1, 2).T  # (D/2,) each: sin(m ω_k), cos(m ω_k)
    M = np.zeros((D, D))
    for k in range(D // 2):
        M[2 * k:2 * k + 2, 2 * k:2 * k + 2] = [[cos[k], -sin[k]], [sin[k], cos[k]]]
    return M


OTHER_RIGHT = [
    ("position_shift", "rotations read off the package's encoding at positions 0 and 1",
     lambda m, D: _shift_from_encoding(m, D)),
    ("causal_attention", "a loop over the queries",
     lambda Q, K, V: np.array([_attention(Q[: i + 1], K[: i + 1], V[: i + 1])[-1] for i in range(len(Q))])),
    ("bpe_merges", "every occurrence of every word counted afresh", _bpe_by_recounting),
    ("bigram_perplexity", "a loop over the predicted tokens",
     lambda P, ids: (lambda nats: np.array([np.exp(nats), nats / np.log(2)]))(
         -sum(np.log(P[a, b]) for a, b in zip(ids[:-1], ids[1:], strict=True)) / (len(ids) - 1))),
]

# --- classic wrong answers ------------------------------------------------------------------------------------------

WRONG = {
    "causal_attention": [
        ("no max-subtraction: exp overflows at scores of 10³", lambda Q, K, V: _attention(Q, K, V, subtract_max=False)),
        ("mask off by one: the diagonal hidden", lambda Q, K, V: _attention(Q, K, V, diagonal=0)),
        ("not scaled by sqrt(d_k)", lambda Q, K, V: _attention(Q, K, V, scale="none")),
        ("divided by d_k instead of sqrt(d_k)", lambda Q, K, V: _attention(Q, K, V, scale="d_k")),
        ("mask on the wrong triangle: looks at the future", lambda Q, K, V: _attention(Q, K, V, future=True)),
        ("mask applied after the softmax", lambda Q, K, V: _attention(Q, K, V, mask_after=True)),
    ],
    "position_shift": [
        ("transposed: a shift by −m", lambda m, D: _shift(m, D).T),
        ("exponent uses k, not 2k", lambda m, D: _shift(m, D, exponent_uses_column=True)),
        ("the angle m, without the frequency", lambda m, D: _shift(m, D, no_frequency=True)),
        ("sines in the first half of the columns, cosines in the second", lambda m, D: _shift(m, D, halves=True)),
    ],
    "decoder_block_parameters": [
        ("LayerNorms forgotten", lambda D, h, d_ff: decoder_block_parameters(D, h, d_ff) - 6 * D),
        ("the third LayerNorm forgotten", lambda D, h, d_ff: decoder_block_parameters(D, h, d_ff) - 2 * D),
        ("LayerNorm's β forgotten", lambda D, h, d_ff: decoder_block_parameters(D, h, d_ff) - 3 * D),
        ("cross-attention forgotten", lambda D, h, d_ff: decoder_block_parameters(D, h, d_ff) - 4 * D * D),
        ("every head with full D x D matrices", lambda D, h, d_ff: decoder_block_parameters(D, h, d_ff)
         + 2 * 3 * (h - 1) * D * D),
        ("each head's W_q, W_k, W_v and W_o counted as D x D", lambda D, h, d_ff: decoder_block_parameters(D, h, d_ff)
         + 2 * 4 * (h - 1) * D * D),
        ("feed-forward biases forgotten", lambda D, h, d_ff: decoder_block_parameters(D, h, d_ff) - d_ff - D),
        ("biases given to the attention matrices", lambda D, h, d_ff: decoder_block_parameters(D, h, d_ff) + 8 * D),
    ],
    "bpe_merges": [
        ("pairs counted across word boundaries", lambda wc, m: _bpe(wc, m, across_words=True)),
        ("each distinct word counted once, not weighted by its count", lambda wc, m: _bpe(wc, m, weighted=False)),
        ("ties go to the pair seen first, not the smallest", lambda wc, m: _bpe(wc, m, first_seen=True)),
    ],
    "beam_search_table": [
        ("the best k tokens of every prefix kept: the beam grows", lambda *a: _beam(*a, per_prefix=True)),
        ("probabilities summed instead of log-probabilities", lambda *a: _beam(*a, probabilities=True)),
        ("finished hypotheses dropped", lambda *a: _beam(*a, drop_finished=True)),
        ("greedy decoding whatever the width", lambda P, beam_width, max_len: _beam(P, 1, max_len)),
    ],
    "bigram_perplexity": [
        ("exp of the sum instead of the mean", lambda P, ids: _perplexity(P, ids, total=True)),
        ("base 2 for the perplexity, nats reported as bits", lambda P, ids: _perplexity(P, ids, base_2=True)),
        ("probabilities averaged instead of log-probabilities",
         lambda P, ids: _perplexity(P, ids, mean_probability=True)),
        ("the first token scored too, though nothing predicts it",
         lambda P, ids: _perplexity(P, ids, first_token=True)),
    ],
    "attend_with_cache": [
        ("attends before appending the new key and value", lambda *a: _cached(*a, append_first=False)),
        ("scaled by sqrt(t), the number of cached keys", lambda *a: _cached(*a, scale="T")),
        ("the newest token's own key left out", lambda *a: _cached(*a, own_key=False)),
        ("the causal mask's first row: only key 0 seen", lambda *a: _cached(*a, first_row_mask=True)),
        ("the cache returned without the new key and value",
         lambda q, k, v, K_cache, V_cache: (_cached(q, k, v, K_cache, V_cache)[0], K_cache, V_cache)),
    ],
}


def test_the_checks_are_exported_in_the_chapters_order():
    assert exercise_checks.ch7.__all__ + exercise_checks.ch10.__all__ == [f.__name__ for f in RIGHT]


@pytest.mark.parametrize("solution", RIGHT, ids=lambda f: f.__name__)
def test_a_right_answer_passes(solution, capsys):
    getattr(exercise_checks, solution.__name__)(solution, rng=np.random.default_rng(0))
    assert capsys.readouterr().out.startswith(f"pass: {solution.__name__}")


@pytest.mark.parametrize(("check", "how", "solution"), OTHER_RIGHT, ids=[f"{c}: {h}" for c, h, _ in OTHER_RIGHT])
def test_another_right_answer_passes(check, how, solution, capsys):
    solution.__name__ = check
    getattr(exercise_checks, check)(solution, rng=np.random.default_rng(1))
    assert capsys.readouterr().out.startswith(f"pass: {check}")


def test_every_check_has_at_least_two_wrong_answers():
    assert set(WRONG) == {f.__name__ for f in RIGHT}
    assert all(len(mistakes) >= 2 for mistakes in WRONG.values())


@pytest.mark.parametrize(("check", "mistake", "wrong"),
                         [(check, mistake, wrong) for check, cases in WRONG.items() for mistake, wrong in cases],
                         ids=[f"{check}: {mistake}" for check, cases in WRONG.items() for mistake, _ in cases])
@pytest.mark.parametrize("seed", [0, 11])
def test_a_classic_mistake_fails(check, mistake, wrong, seed, capsys):
    wrong.__name__ = check
    with np.errstate(all="ignore"), pytest.raises(ExerciseCheckFailed, match=check):
        getattr(exercise_checks, check)(wrong, rng=np.random.default_rng(seed))
    assert f"pass: {check} agrees" not in capsys.readouterr().out


# --- the references -------------------------------------------------------------------------------------------------

def test_the_bpe_reference_is_a_recount_of_every_pair():
    rng = np.random.default_rng(3)
    for size in range(1, 15):
        word_counts, num_merges = exercise_checks.ch10._corpus_inputs(rng, size)
        np.testing.assert_array_equal(exercise_checks.ch10._bpe_reference(word_counts, num_merges),
                                      _bpe_by_recounting(word_counts, num_merges))


def test_a_beam_as_wide_as_every_sequence_finds_the_most_probable_one():
    rng = np.random.default_rng(4)
    for size in range(1, 8):
        P, _, max_len = exercise_checks.ch7._table_inputs(rng, size)
        V, log_P = len(P), np.log(P)
        best, best_lp = None, -np.inf
        for n in range(1, max_len + 1):  # every sequence 0, y_1, …, y_n: ending in V − 1, or of length max_len
            for tail in itertools.product(range(V), repeat=n):
                ends = tail[-1] == V - 1 and (V - 1) not in tail[:-1]
                if not ends and (n < max_len or (V - 1) in tail):
                    continue
                ids = (0, *tail)
                lp = sum(log_P[a, b] for a, b in zip(ids[:-1], ids[1:], strict=True))
                if lp > best_lp:
                    best, best_lp = ids, lp
        np.testing.assert_array_equal(exercise_checks.ch7._beam_reference(P, V**max_len, max_len), best)


def test_the_cached_steps_agree_with_one_pass_on_long_sequences():
    Q, K, V = exercise_checks.ch10._cache_inputs(np.random.default_rng(5), 12)
    run = exercise_checks.ch10._step_by_step(attend_with_cache)
    np.testing.assert_allclose(run(Q, K, V), exercise_checks.ch7._causal_reference(Q, K, V), rtol=1e-12)


def test_a_step_that_returns_one_result_is_told_what_to_return():
    def attend_with_cache(q, k, v, K_cache, V_cache):
        return _cached(q, k, v, K_cache, V_cache)[0]

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)attend_with_cache raised TypeError.*return y, K_cache"):
        exercise_checks.attend_with_cache(attend_with_cache, rng=np.random.default_rng(0))


def test_the_shift_moves_the_package_encoding_by_m_positions():
    from implementations.language.attention import sinusoidal_positional_encoding

    for m, D in [(0, 2), (1, 8), (5, 16), (23, 32)]:
        PE = sinusoidal_positional_encoding(60, D)  # (60, D)
        M = exercise_checks.ch7._shift_reference(m, D)
        np.testing.assert_allclose(PE[m:], PE[: 60 - m] @ M, atol=1e-12)
        np.testing.assert_allclose(M.T @ M, np.eye(D), atol=1e-12)  # a rotation: M_m⁻¹ = M_mᵀ = M_−m


# --- the messages of the mistakes whose symptom alone would mislead ---------------------------------------------------

def test_the_mask_after_the_softmax_is_named_by_its_rows():
    def causal_attention(Q, K, V):
        return _attention(Q, K, V, mask_after=True)

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)disagrees.*likely cause: the rows of your attention weights "
                                                  r"do not sum to 1.*before the softmax"):
        exercise_checks.causal_attention(causal_attention, rng=np.random.default_rng(5))


def test_a_masked_diagonal_is_named_not_only_its_warning():
    def causal_attention(Q, K, V):
        return _attention(Q, K, V, diagonal=0)

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)emitted a warning.*RuntimeWarning.*likely cause: the "
                                                  r"diagonal is masked too.*attend to itself"):
        exercise_checks.causal_attention(causal_attention, rng=np.random.default_rng(5))


def test_a_right_answer_to_the_probe_adds_no_likely_cause():
    def causal_attention(Q, K, V):  # not scaled by sqrt(d_k): causal weights whose rows sum to 1, but wrong ones
        return _attention(Q, K, V, scale="none")

    with pytest.raises(ExerciseCheckFailed) as failure:
        exercise_checks.causal_attention(causal_attention, rng=np.random.default_rng(5))
    assert "likely cause" not in str(failure.value)


def _beam_keeping_every_finished(P, beam_width, max_len):
    """Every candidate that ends in V − 1 set aside as finished, not only those among the k best."""
    V, log_P = len(P), np.log(P)
    beam, finished = [([0], 0.0)], []
    for _ in range(max_len):
        candidates = sorted(((ids + [v], lp + log_P[ids[-1], v]) for ids, lp in beam for v in range(V)),
                            key=lambda c: -c[1])
        finished += [c for c in candidates if c[0][-1] == V - 1]
        beam = [c for c in candidates if c[0][-1] != V - 1][:beam_width]
    return np.array(max(finished + beam, key=lambda c: c[1])[0])


@pytest.mark.parametrize("seed", [0, 5, 11])
def test_keeping_every_finished_candidate_is_named(seed):
    _beam_keeping_every_finished.__name__ = "beam_search_table"
    with pytest.raises(ExerciseCheckFailed, match=r"(?s)beam_search_table.*likely cause: your answer ends with the "
                                                  r"end token.*k best candidates of its step"):
        exercise_checks.beam_search_table(_beam_keeping_every_finished, rng=np.random.default_rng(seed))


def test_the_first_editions_checks_still_accept_right_answers_and_reject_wrong_ones(capsys):
    """Student copies made from the first edition still call ``positional_encoding`` and ``block_parameters``."""
    from implementations.language.attention import sinusoidal_positional_encoding

    def positional_encoding(T, D):
        return sinusoidal_positional_encoding(T, D)

    def block_parameters(D, num_heads, d_ff):
        return 2 * (2 * D) + 4 * D * D + (D * d_ff + d_ff) + (d_ff * D + D)

    for right in (positional_encoding, block_parameters):
        getattr(exercise_checks, right.__name__)(right, rng=np.random.default_rng(0))
        assert capsys.readouterr().out.startswith(f"pass: {right.__name__}")

    def block_parameters(D, num_heads, d_ff):  # noqa: F811  (the LayerNorms forgotten: a classic mistake)
        return 4 * D * D + (D * d_ff + d_ff) + (d_ff * D + D)

    with pytest.raises(ExerciseCheckFailed, match="block_parameters"):
        exercise_checks.block_parameters(block_parameters, rng=np.random.default_rng(0))
