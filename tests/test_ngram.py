"""Tests of implementations.language.ngram against counting by hand."""

import numpy as np
import pytest

from implementations.language.ngram import bigram_table, cross_entropy, unigram_table


def test_unigram_matches_counting_by_hand():
    ids = [0, 2, 2, 1, 2]
    p = unigram_table(ids, 4, delta=0.5)
    expected = np.array([1 + 0.5, 1 + 0.5, 3 + 0.5, 0 + 0.5]) / (5 + 4 * 0.5)
    np.testing.assert_allclose(p, expected, rtol=1e-15)


def test_bigram_matches_a_loop_and_rows_sum_to_one():
    rng = np.random.default_rng(0)
    V, ids, delta = 5, rng.integers(0, 4, size=200), 0.3  # token 4 never occurs
    P = bigram_table(ids, V, delta=delta)
    counts = np.zeros((V, V))
    for u, v in zip(ids[:-1], ids[1:], strict=True):
        counts[u, v] += 1
    expected = (counts + delta) / (counts + delta).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(P, expected, rtol=1e-14)
    np.testing.assert_allclose(P[4], np.full(V, 1 / V))  # an unseen context: the uniform row
    np.testing.assert_allclose(P.sum(axis=1), 1.0, rtol=1e-14)


def test_cross_entropy_is_the_mean_negative_log_likelihood():
    rng = np.random.default_rng(1)
    train, val = rng.integers(0, 6, size=300), rng.integers(0, 6, size=50)
    p, P = unigram_table(train, 6), bigram_table(train, 6)
    assert cross_entropy(p, val) == pytest.approx(-np.mean([np.log(p[v]) for v in val]), rel=1e-14)
    loop = -np.mean([np.log(P[u, v]) for u, v in zip(val[:-1], val[1:], strict=True)])
    assert cross_entropy(P, val) == pytest.approx(loop, rel=1e-14)


def test_perplexity_of_the_uniform_model_is_the_vocabulary_size():
    V = 7
    assert np.exp(cross_entropy(np.full(V, 1 / V), [0, 3, 6])) == pytest.approx(V, rel=1e-14)
    assert np.exp(cross_entropy(np.full((V, V), 1 / V), [0, 3, 6])) == pytest.approx(V, rel=1e-14)


def test_bigram_beats_unigram_on_a_markov_chain_and_not_on_iid_tokens():
    rng = np.random.default_rng(2)
    chain = np.cumsum(rng.integers(0, 2, size=20_000)) % 5  # next = last or last + 1: strongly dependent
    split = 15_000
    uni, bi = unigram_table(chain[:split], 5), bigram_table(chain[:split], 5)
    assert cross_entropy(bi, chain[split:]) == pytest.approx(np.log(2), abs=0.02)  # two equally likely next tokens
    assert cross_entropy(uni, chain[split:]) == pytest.approx(np.log(5), abs=0.02)
    iid = rng.integers(0, 5, size=20_000)
    uni, bi = unigram_table(iid[:split], 5), bigram_table(iid[:split], 5)
    assert cross_entropy(bi, iid[split:]) == pytest.approx(cross_entropy(uni, iid[split:]), abs=0.01)


@pytest.mark.parametrize("table, message", [
    (np.array([0.5, 0.6]), "summing to 1"),
    (np.array([1.0, 0.0]), "> 0"),
    (np.full((2, 3), 1 / 3), r"shape \(V,\) or"),
    (np.full((2, 2, 2), 0.5), r"shape \(V,\) or"),
])
def test_bad_tables_are_refused(table, message):
    with pytest.raises(ValueError, match=message):
        cross_entropy(table, [0, 1])


def test_bad_ids_are_refused():
    with pytest.raises(ValueError, match="ids"):
        unigram_table([0, 5], 5)
    with pytest.raises(ValueError, match="at least 2"):
        bigram_table([1], 5)
    with pytest.raises(ValueError, match="delta"):
        unigram_table([0, 1], 5, delta=0)
