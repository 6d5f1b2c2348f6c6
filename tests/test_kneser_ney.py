"""Tests of interpolated Kneser–Ney (implementations.language.ngram) against a brute-force reading of its formula."""

from collections import Counter

import numpy as np
import pytest

from implementations.language import ngram

RNG = np.random.default_rng(0)
V = 6
TRAIN = np.r_[RNG.integers(0, 4, size=300), 3, 2]  # tokens 4 and 5 never occur


def brute_force(train, n, context, w, D):
    """p_KN(w | context) by counting with loops, straight from the formula (context: a tuple, oldest first)."""
    grams = [Counter(tuple(train[i : i + k]) for i in range(len(train) - k + 1)) for k in range(n + 1)]

    def count(k, gram):  # raw count at the top order, continuation count N₁₊(• gram) below it
        if k == n:
            return grams[k][gram]
        return sum(1 for g in grams[k + 1] if g[1:] == gram)

    p = 1 / V
    for k in range(1, n + 1):
        h = tuple(context[len(context) - (k - 1) :]) if k > 1 else ()
        row = [count(k, (*h, v)) for v in range(V)]
        total = sum(row)
        if total:
            types = sum(1 for c in row if c > 0)
            p = (max(row[w] - D, 0) + D * types * p) / total
    return p


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_every_distribution_sums_to_one_and_matches_brute_force(n):
    counts = ngram.kneser_ney_counts(TRAIN, V, n)
    seen = [tuple(TRAIN[i : i + n - 1]) for i in (0, 50)]
    unseen = [tuple([5] * (n - 1)), tuple([-1] * (n - 1)), tuple(([4] + [0] * n)[: n - 1])]
    for context in seen + unseen:
        contexts = np.tile(np.array(context, dtype=int).reshape(1, n - 1), (V, 1))
        p = ngram.kneser_ney_probs(counts, contexts, np.arange(V), discount=0.6)
        assert p.sum() == pytest.approx(1.0, abs=1e-12)
        assert (p > 0).all()
        expected = [brute_force(TRAIN, n, [c for c in context if c >= 0] if -1 in context else context, v, 0.6)
                    for v in range(V)]
        np.testing.assert_allclose(p, expected, rtol=1e-12)


def test_continuation_counts_agree_with_a_direct_count():
    text = np.array([0, 1, 2, 0, 1, 3, 1, 2, 2, 0])
    counts = ngram.kneser_ney_counts(text, 4, 2)
    bigrams = {tuple(text[i : i + 2]) for i in range(len(text) - 1)}
    direct = {w: len({u for u, v in bigrams if v == w}) for w in range(4)}  # N₁₊(• w)
    found = dict(zip((counts.grams[1] - 1).tolist(), counts.counts[1].tolist(), strict=True))
    assert found == {w: c for w, c in direct.items() if c}


def test_order_one_is_the_discounted_continuation_unigram_and_lower_orders_recurse():
    counts = ngram.kneser_ney_counts(TRAIN, V, 1)
    p = ngram.kneser_ney_probs(counts, np.zeros((V, 0), dtype=int), np.arange(V), discount=0.5)
    c = np.bincount(TRAIN, minlength=V)  # order 1 is the top order: raw counts
    np.testing.assert_allclose(p, (np.maximum(c - 0.5, 0) + 0.5 * (c > 0).sum() / V) / c.sum(), rtol=1e-13)
    # an unseen context of a trigram model gives the bigram part of the same counts (its lower order)
    tri = ngram.kneser_ney_counts(TRAIN, V, 3)
    p_unseen = ngram.kneser_ney_probs(tri, np.tile([5, 1], (V, 1)), np.arange(V), discount=0.5)
    expected = [brute_force(TRAIN, 3, (1,), v, 0.5) for v in range(V)]
    np.testing.assert_allclose(p_unseen, expected, rtol=1e-12)


def test_discount_fit_finds_the_minimum_of_the_held_out_nll():
    train, held = TRAIN[:200], TRAIN[200:]
    counts = ngram.kneser_ney_counts(train, V, 3)
    D, nll = ngram.fit_kneser_ney_discount(counts, held)
    contexts, tokens = ngram.kneser_ney_contexts(counts, held)
    grid = np.linspace(0.001, 0.999, 999)
    direct = np.array([-np.mean(np.log([brute_force(train, 3, [c for c in h if c >= 0], w, d)
                                        for h, w in zip(contexts[:40].tolist(), tokens[:40].tolist(),
                                                        strict=True)])) for d in grid[::111]])
    fitted = -np.log(ngram.kneser_ney_probs(counts, contexts[:40], tokens[:40], discount=grid[::111])).mean(axis=1)
    np.testing.assert_allclose(fitted, direct, rtol=1e-12)  # the scores the search reads are the formula's
    every = -np.log(ngram.kneser_ney_probs(counts, contexts, tokens, discount=grid)).mean(axis=1)
    assert nll == pytest.approx(-np.log(ngram.kneser_ney_probs(counts, contexts, tokens, discount=D)).mean())
    assert nll <= every.min() + 1e-4  # the minimum, to the grid's resolution
    assert D == pytest.approx(grid[np.argmin(every)], abs=1e-2)


def test_bad_inputs_are_refused():
    counts = ngram.kneser_ney_counts(TRAIN, V, 2)
    with pytest.raises(ValueError, match="discount"):
        ngram.kneser_ney_probs(counts, np.zeros((2, 1), dtype=int), np.array([0, 1]), discount=1.0)
    with pytest.raises(ValueError, match="contexts"):
        ngram.kneser_ney_probs(counts, np.zeros((2, 2), dtype=int), np.array([0, 1]), discount=0.5)
    with pytest.raises(TypeError, match="kneser_ney_counts"):
        ngram.kneser_ney_probs({}, np.zeros((2, 1), dtype=int), np.array([0, 1]), discount=0.5)
