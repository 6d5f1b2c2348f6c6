"""The synthetic sequence tasks of chapter 6: forecasting windows, the adding problem and the "apple" tagging task.

Each isolates one thing a sequence model must do: forecast a series from a window of its past (:func:`make_windows`,
cut from any series), remember a number across many steps (:func:`make_adding_problem`), and use the words that
come *after* a word to tag it (:func:`make_entity_tagging`, the case for a bidirectional network). The random ones
take an explicit ``rng`` (a ``numpy.random.Generator``), so the same seed always gives the same data.
"""

import numpy as np

from .._contract import checked
from ._checks import a_window_and_its_target, one_marker_per_half, room_for_apple

__all__ = ["TAGGING_VOCABULARY", "make_windows", "make_adding_problem", "make_entity_tagging"]


@checked(series="array (T,) | (T, D)", window="count", horizon="count", also=a_window_and_its_target)
def make_windows(series, *, window, horizon=1):
    """Cut a series into overlapping (input window, target) pairs for forecasting.

    Pair k has inputs series[k : k + window] and target series[k + window + horizon − 1]: the value
    ``horizon`` steps after the window ends.

    Parameters
    ----------
    series : array_like of shape (T,) or (T, D)
    window : int
        Length of each input window, ≥ 1.
    horizon : int, default 1
        How far ahead the target lies, ≥ 1.

    Returns
    -------
    X : ndarray of shape (K, window, D), with D = 1 for a 1-D series
    y : ndarray of shape (K,) or (K, D)
        K = T − window − horizon + 1 pairs, in time order.
    """
    K = series.shape[0] - window - horizon + 1  # the number of pairs, ≥ 1
    values = series[:, None] if series.ndim == 1 else series  # (T, D)
    starts = np.arange(K)[:, None] + np.arange(window)[None, :]  # (K, window): all windows at once
    X = values[starts]  # (K, window, D)
    y = series[window + horizon - 1 : window + horizon - 1 + K]  # (K,) or (K, D)
    return X, y


@checked(n="count", length="count", rng="rng", also=one_marker_per_half)
def make_adding_problem(n, *, length, rng):
    """The adding problem (Hochreiter and Schmidhuber, 1997): a test of long-range memory.

    Each sequence has ``length`` steps with two features: a random number in [0, 1) and a marker that is 1
    at exactly two steps, one in the first half and one in the second half, and 0 elsewhere. The target
    is the sum of the two marked numbers. Predicting the mean, 1, gives a mean squared error of 1/6 ≈ 0.167;
    doing better requires remembering the first marked number across up to ``length`` steps.

    Parameters
    ----------
    n : int
        Number of sequences.
    length : int
        Number of steps T ≥ 2.
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (n, T, 2)
        [..., 0] the numbers, [..., 1] the markers.
    y : ndarray of shape (n,)
    """
    values = rng.uniform(0.0, 1.0, size=(n, length))  # (n, T)
    half = length // 2
    first = rng.integers(0, half, size=n)  # marked step in the first half
    second = rng.integers(half, length, size=n)  # and in the second half
    markers = np.zeros((n, length))
    rows = np.arange(n)
    markers[rows, first] = 1.0
    markers[rows, second] = 1.0
    y = values[rows, first] + values[rows, second]
    return np.stack([values, markers], axis=-1), y


# A toy named-entity task: is "apple" the company or the fruit? Only the next word tells.
_TAGGING_FILLERS = ("she", "we", "saw", "said", "that", "the", "a", "new", "today", "and")
_TAGGING_COMPANY = ("released", "announced", "sued", "hired")
_TAGGING_FRUIT = ("pie", "juice", "tree", "seeds")
#: The 19 tokens of :func:`make_entity_tagging`; index 0 is ``<pad>``.
TAGGING_VOCABULARY = ("<pad>", "apple", *_TAGGING_FILLERS, *_TAGGING_COMPANY, *_TAGGING_FRUIT)


@checked(n="count", rng="rng", min_length="count", max_length="count", also=room_for_apple)
def make_entity_tagging(n, *, rng, min_length=4, max_length=12):
    """Padded sentences in which each "apple" must be tagged company (1) or fruit (0) from the word after it.

    Every sentence has between ``min_length`` and ``max_length`` words drawn from a small vocabulary
    (:data:`TAGGING_VOCABULARY`, index 0 is ``<pad>``), with one or (half the time, when there is room) two
    occurrences of "apple", each followed
    by a company verb ("released", "announced", …: tag 1) or a fruit word ("pie", "juice", …: tag 0), with
    equal probability. Every other word has tag 0. A model that reads left to right cannot know the tag
    of "apple" when it reads it; one that also reads right to left can.

    Parameters
    ----------
    n : int
        Number of sentences.
    rng : numpy.random.Generator
    min_length, max_length : int
        Sentence lengths are uniform on min_length..max_length; 2 ≤ min_length ≤ max_length.

    Returns
    -------
    tokens : ndarray of int, shape (n, max_length)
        Word indices into :data:`TAGGING_VOCABULARY`; 0 (``<pad>``) after each sentence's end.
    tags : ndarray of int, shape (n, max_length)
        0 or 1 at real words, −1 at padding (for ``cross_entropy(..., ignore_index=-1)``).
    lengths : ndarray of int, shape (n,)
    """
    index = {word: i for i, word in enumerate(TAGGING_VOCABULARY)}
    fillers = np.array([index[w] for w in _TAGGING_FILLERS])
    company = np.array([index[w] for w in _TAGGING_COMPANY])
    fruit = np.array([index[w] for w in _TAGGING_FRUIT])
    lengths = rng.integers(min_length, max_length + 1, size=n)
    tokens = np.zeros((n, max_length), dtype=np.int64)
    tags = np.full((n, max_length), -1, dtype=np.int64)
    for b, length in enumerate(lengths):
        tokens[b, :length] = rng.choice(fillers, size=length)
        tags[b, :length] = 0
        starts = [rng.integers(0, length - 1)]  # "apple" at t needs a next word at t + 1
        free = [t for t in range(length - 1) if abs(t - starts[0]) >= 2]
        if rng.random() < 0.5 and free:  # a second pair that does not overlap the first
            starts.append(rng.choice(free))
        for t in starts:
            is_company = rng.random() < 0.5
            tokens[b, t] = index["apple"]
            tokens[b, t + 1] = rng.choice(company if is_company else fruit)
            tags[b, t] = int(is_company)
    return tokens, tags, lengths
