"""Synthetic data of the book: problems drawn fresh from a random generator whenever a chapter needs them.

Nothing here is stored: each generator takes an explicit ``rng`` (a ``numpy.random.Generator``), so the same seed
always gives the same data. Points around a sine curve (chapter 1); two moons, two circles and spiral arms, classes that
no straight line separates (chapters 3 and 4); forecasting windows cut from a series, the adding problem and the
"apple" tagging task (chapter 6); a templated corpus with known word categories (chapter 7); mixtures of
Gaussians on a ring and on a grid, whose modes a generative model must all find (chapter 8).
The data files shipped in ``data/`` are read by :mod:`implementations.data.datasets`.
"""

import math
import numbers

import numpy as np

from .._validation import as_finite_array, check_flag, check_nonnegative, check_positive, check_positive_int, check_rng

__all__ = [
    "TAGGING_VOCABULARY",
    "WORD_CATEGORIES",
    "GRADED_SUBCATEGORIES",
    "make_sine_data",
    "make_moons",
    "make_circles",
    "make_spirals",
    "make_windows",
    "make_adding_problem",
    "make_entity_tagging",
    "make_corpus",
    "gaussian_ring_centres",
    "gaussian_grid_centres",
    "make_gaussian_ring",
    "make_gaussian_grid",
    "gaussian_mixture_density",
]


def make_sine_data(n, *, noise, rng, x_range=(0.0, 1.0)):
    """Noisy samples of one period of a sine: y = sin(2πx) + ε, ε ~ N(0, noise²).

    Parameters
    ----------
    n : int
        Number of points N, at least 1.
    noise : float
        Standard deviation σ of the Gaussian noise ε, finite and ≥ 0; 0 gives y = sin(2πx) exactly.
    rng : numpy.random.Generator
        Source of randomness, e.g. ``np.random.default_rng(SEED)``.
    x_range : tuple of float, default (0.0, 1.0)
        Interval (low, high) that x is drawn from uniformly; low < high.

    Returns
    -------
    x : ndarray of shape (N,)
        Inputs, sorted ascending.
    y : ndarray of shape (N,)
        Targets sin(2πx) + ε, float64.
    """
    n = check_positive_int(n, "n")
    noise = check_nonnegative(noise, "noise")
    rng = check_rng(rng)
    try:
        if isinstance(x_range, (str, bytes)) or not all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in x_range
        ):
            raise TypeError
        low, high = (float(v) for v in x_range)
    except (TypeError, ValueError):
        raise ValueError(f"x_range must be a pair of numbers (low, high); received {x_range!r}. "
                         "Pass e.g. x_range=(0.0, 1.0).") from None
    if not (math.isfinite(low) and math.isfinite(high) and low < high):
        raise ValueError(f"x_range must be finite and increasing (low < high); received {x_range!r}.")
    x = np.sort(rng.uniform(low, high, size=n))  # (N,)
    epsilon = noise * rng.standard_normal(n)  # (N,) drawn even for noise=0: rng advances the same way
    y = np.sin(2.0 * np.pi * x) + epsilon  # (N,)
    return x, y


def make_moons(n, *, noise, rng):
    """Two interleaving half circles, a classic problem that no straight line separates.

    Class 0 lies on the upper half of the unit circle centred at (0, 0), class 1 on the lower half of
    the unit circle centred at (1, 0.5); each point gets isotropic Gaussian noise.

    Parameters
    ----------
    n : int
        Number of points N ≥ 2; class 0 gets ⌈N/2⌉ of them.
    noise : float
        Standard deviation of the noise, ≥ 0.
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (N, 2)
    y : ndarray of shape (N,), int64
        Labels 0 and 1, class 0 first.
    """
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be at least 2 (one point per class); received {n}.")
    noise = check_nonnegative(noise, "noise")
    rng = check_rng(rng)
    n0 = (n + 1) // 2
    angle0 = rng.uniform(0.0, np.pi, size=n0)  # (n0,)
    angle1 = rng.uniform(0.0, np.pi, size=n - n0)  # (n − n0,)
    upper = np.column_stack([np.cos(angle0), np.sin(angle0)])
    lower = np.column_stack([1.0 - np.cos(angle1), 0.5 - np.sin(angle1)])
    X = np.vstack([upper, lower]) + noise * rng.standard_normal((n, 2))  # (N, 2)
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n - n0, dtype=np.int64)]
    return X, y


def make_circles(n, *, noise, factor=0.5, rng):
    """Two concentric circles, a problem that no straight line separates but the squared radius x₁² + x₂² does.

    Class 0 lies on the circle of radius 1 centred at (0, 0), class 1 on the circle of radius ``factor`` inside
    it, at uniformly random angles; each point gets isotropic Gaussian noise.

    Parameters
    ----------
    n : int
        Number of points N ≥ 2; class 0 (the outer circle) gets ⌈N/2⌉ of them.
    noise : float
        Standard deviation of the noise, ≥ 0.
    factor : float, default 0.5
        Radius of the inner circle, 0 < factor < 1.
    rng : numpy.random.Generator

    Returns
    -------
    X : ndarray of shape (N, 2)
    y : ndarray of shape (N,), int64
        Labels 0 and 1, class 0 first.
    """
    n = check_positive_int(n, "n")
    if n < 2:
        raise ValueError(f"n must be at least 2 (one point per class); received {n}.")
    noise = check_nonnegative(noise, "noise")
    if isinstance(factor, bool) or not isinstance(factor, numbers.Real) or not 0 < factor < 1:
        raise ValueError(f"factor must be a number strictly between 0 and 1 (the inner radius, the outer one being "
                         f"1); received {factor!r}. Pass e.g. factor=0.5.")
    rng = check_rng(rng)
    n0 = (n + 1) // 2
    angle0 = rng.uniform(0.0, 2 * np.pi, size=n0)  # (n0,)
    angle1 = rng.uniform(0.0, 2 * np.pi, size=n - n0)  # (n − n0,)
    outer = np.column_stack([np.cos(angle0), np.sin(angle0)])  # (n0, 2): radius 1
    inner = float(factor) * np.column_stack([np.cos(angle1), np.sin(angle1)])  # (n − n0, 2): radius factor
    X = np.vstack([outer, inner]) + noise * rng.standard_normal((n, 2))  # (N, 2)
    y = np.r_[np.zeros(n0, dtype=np.int64), np.ones(n - n0, dtype=np.int64)]
    return X, y


def make_spirals(n_per_class, *, num_classes=3, noise, rng, turns=1.0):
    """Interleaved spiral arms, one per class: r grows from 0 to 1 while the angle turns.

    Arm k is r(cos θ, sin θ) with r uniform on [0, 1] and θ = 2π(turns · r + k/K), plus Gaussian
    noise of standard deviation ``noise`` on the angle (in radians, scaled by r).

    Parameters
    ----------
    n_per_class : int
    num_classes : int, default 3
        K ≥ 2 arms.
    noise : float
        ≥ 0.
    rng : numpy.random.Generator
    turns : float, default 1.0
        Full turns of each arm; more turns make the problem harder.

    Returns
    -------
    X : ndarray of shape (K · n_per_class, 2)
    y : ndarray of shape (K · n_per_class,), int64
    """
    n_per_class = check_positive_int(n_per_class, "n_per_class")
    num_classes = check_positive_int(num_classes, "num_classes")
    if num_classes < 2:
        raise ValueError(f"num_classes must be at least 2; received {num_classes}.")
    noise = check_nonnegative(noise, "noise")
    turns = float(check_nonnegative(turns, "turns"))
    rng = check_rng(rng)
    r = rng.uniform(0.0, 1.0, size=(num_classes, n_per_class))  # (K, n)
    k = np.arange(num_classes)[:, None]  # (K, 1)
    theta = 2 * np.pi * (turns * r + k / num_classes) + noise * rng.standard_normal(r.shape)
    X = np.stack([r * np.cos(theta), r * np.sin(theta)], axis=-1).reshape(-1, 2)  # (K n, 2)
    y = np.repeat(np.arange(num_classes, dtype=np.int64), n_per_class)
    return X, y


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
    arr = as_finite_array(series, "series", ndim=(1, 2))  # (T,) or (T, D)
    window = check_positive_int(window, "window")
    horizon = check_positive_int(horizon, "horizon")
    T = arr.shape[0]
    K = T - window - horizon + 1
    if K < 1:
        raise ValueError(
            f"series has length {T}, too short for a window of {window} steps with a target {horizon} step(s) "
            f"ahead; need at least {window + horizon} values. Pass a longer series or a smaller window."
        )
    values = arr[:, None] if arr.ndim == 1 else arr  # (T, D)
    starts = np.arange(K)[:, None] + np.arange(window)[None, :]  # (K, window): all windows at once
    X = values[starts]  # (K, window, D)
    y = arr[window + horizon - 1 : window + horizon - 1 + K]  # (K,) or (K, D)
    return X, y


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
    n = check_positive_int(n, "n")
    length = check_positive_int(length, "length")
    if length < 2:
        raise ValueError(f"length must be at least 2 (one marker in each half); received {length}.")
    rng = check_rng(rng)
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
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    min_length = check_positive_int(min_length, "min_length")
    max_length = check_positive_int(max_length, "max_length")
    if not 2 <= min_length <= max_length:
        raise ValueError(
            f"need 2 <= min_length <= max_length (room for 'apple' and its next word); received "
            f"min_length={min_length}, max_length={max_length}."
        )
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


# A synthetic corpus for word embeddings: words of one category fill the same slots of the same templates.
#: The five categories of :func:`make_corpus`, six words each.
WORD_CATEGORIES = {
    "animal": ("cat", "dog", "horse", "cow", "sheep", "goat"),
    "food": ("bread", "cheese", "rice", "soup", "cake", "pasta"),
    "vehicle": ("car", "bus", "train", "bike", "truck", "boat"),
    "place": ("city", "village", "farm", "market", "school", "park"),
    "person": ("teacher", "farmer", "doctor", "child", "driver", "baker"),
}
_CORPUS_TEMPLATES = (
    "the {animal} sleeps near the {place}",
    "a {person} feeds the {animal}",
    "the {person} eats {food} at the {place}",
    "we took the {vehicle} to the {place}",
    "the {animal} runs after the {vehicle}",
    "she bought {food} for the {person}",
    "the {vehicle} stopped at the {place}",
    "my {animal} likes {food}",
    "the {person} drives the {vehicle}",
    "they sell {food} at the {place}",
    "the {animal} and the {animal} play",
    "the {person} talks to the {person}",
)


#: The corpus of ``make_corpus(..., graded=True)``: eleven subcategories of uneven size; chicken, fish, lamb and duck
#: are both animals and food. In each slot the k-th word listed is drawn with probability ∝ 1/k (Zipf).
GRADED_SUBCATEGORIES = {
    "animal/pet": ("dog", "cat", "rabbit", "fish", "hamster", "parrot"),
    "animal/farm": ("cow", "sheep", "horse", "goat", "pig", "chicken", "lamb", "duck"),
    "food/baked": ("bread", "cake", "pie", "cookies", "muffins"),
    "food/dish": ("rice", "soup", "pasta", "salad", "stew", "curry"),
    "food/meat": ("chicken", "fish", "lamb", "beef", "duck"),
    "vehicle/road": ("car", "bus", "truck", "bike", "van", "taxi", "tractor"),
    "vehicle/water": ("boat", "ship", "ferry", "canoe", "yacht"),
    "place/town": ("city", "village", "town", "suburb", "capital"),
    "place/building": ("market", "hospital", "library", "museum", "bakery", "station"),
    "person/health": ("doctor", "nurse", "surgeon", "dentist"),
    "person/trade": ("driver", "farmer", "teacher", "baker", "plumber", "pilot"),
}
# A slot names a category (any of its words), a subcategory, or two categories joined by "|" (shared contexts).
_GRADED_TEMPLATES = (
    "the {animal} sleeps near the {place}",
    "a {person} feeds the {animal}",
    "the {person} eats {food} at the {place}",
    "we took the {vehicle} to the {place}",
    "she bought {food} for the {person}",
    "the {person} drives the {vehicle}",
    "my {animal/pet} sleeps on the sofa",
    "the {animal/farm} grazes in the field",
    "she baked {food/baked} in the oven",
    "we cooked {food/dish} for dinner",
    "he grilled the {food/meat} with salt",
    "the {vehicle/road} waited at the traffic light",
    "the {vehicle/water} sailed across the lake",
    "they moved to a quiet {place/town}",
    "the {place/building} opens at nine",
    "the {person/health} treated the patient",
    "the {person/trade} works early",
    "the {animal|person} walked home",
    "the {vehicle|animal} was very fast",
)


def make_corpus(n, *, rng, graded=False):
    """``n`` templated sentences whose content words come from known categories.

    Each sentence fills one of twelve templates ("the {animal} sleeps near the {place}", …) with words
    drawn uniformly from :data:`WORD_CATEGORIES` (animals, foods, vehicles, places, people; six words
    each). Words of one category occur in the same contexts, so a good embedding places them close
    together, and that can be measured.

    With ``graded=True`` the similarity is graded instead: nineteen templates fill slots of a category, of a
    subcategory (pets, farm animals, …; :data:`GRADED_SUBCATEGORIES`) or of two categories at once, four words
    belong to two categories, and words are drawn with Zipf frequencies, so some are rare.

    Parameters
    ----------
    n : int
        Number of sentences.
    rng : numpy.random.Generator
    graded : bool, default False

    Returns
    -------
    sentences : list of str
    category : dict of str -> str, or of str -> tuple of str with ``graded=True``
        The category of each of the 30 content words; with ``graded=True`` the "category/subcategory" labels of
        each of the 59 content words (two for chicken, fish, lamb and duck).
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    if check_flag(graded, "graded"):
        return _make_graded_corpus(n, rng)
    sentences = []
    for template in rng.choice(len(_CORPUS_TEMPLATES), size=n):
        words = _CORPUS_TEMPLATES[template].split()
        sentences.append(" ".join(
            str(rng.choice(WORD_CATEGORIES[w[1:-1]])) if w.startswith("{") else w for w in words))
    category = {word: name for name, words in WORD_CATEGORIES.items() for word in words}
    return sentences, category


def _graded_slot(name):
    """The words of a slot ("animal", "animal/pet", "animal|person") in order, and their Zipf probabilities."""
    words = []
    for part in name.split("|"):
        for label, members in GRADED_SUBCATEGORIES.items():
            if part in (label, label.split("/")[0]):
                words += [w for w in members if w not in words]
    p = 1.0 / np.arange(1, len(words) + 1)  # the k-th word ∝ 1/k
    return words, p / p.sum()


def _make_graded_corpus(n, rng):
    """:func:`make_corpus` with ``graded=True``."""
    slots = {}
    sentences = []
    for template in rng.choice(len(_GRADED_TEMPLATES), size=n):
        words = []
        for w in _GRADED_TEMPLATES[template].split():
            if w.startswith("{"):
                choices, p = slots.setdefault(w[1:-1], _graded_slot(w[1:-1]))
                w = choices[rng.choice(len(choices), p=p)]
            words.append(w)
        sentences.append(" ".join(words))
    category = {}
    for label, members in GRADED_SUBCATEGORIES.items():
        for w in members:
            category[w] = (*category.get(w, ()), label)
    return sentences, category


# Mixtures of Gaussians in the plane (chapter 8): K well-separated modes, the test a generative model must pass.

def gaussian_ring_centres(*, modes=8, radius=2.0):
    """The K centres of :func:`make_gaussian_ring`: μ_k = r (cos 2πk/K, sin 2πk/K), k = 0, …, K − 1.

    Parameters
    ----------
    modes : int, default 8
        K ≥ 1, the number of centres, equally spaced on the circle.
    radius : float, default 2.0
        r > 0, the radius of the circle, centred at the origin.

    Returns
    -------
    centres : ndarray of shape (K, 2)
        Centre 0 at (r, 0), then counter-clockwise.
    """
    K = check_positive_int(modes, "modes")
    r = check_positive(radius, "radius")
    angle = 2.0 * np.pi * np.arange(K) / K  # (K,)
    return r * np.column_stack([np.cos(angle), np.sin(angle)])  # (K, 2)


def gaussian_grid_centres(*, side=5, spacing=2.0):
    """The K = side² centres of :func:`make_gaussian_grid`: a square grid centred at the origin.

    μ_(i, j) = spacing · (i − (side − 1)/2, j − (side − 1)/2) for i, j = 0, …, side − 1; with the defaults the
    coordinates are −4, −2, 0, 2, 4.

    Parameters
    ----------
    side : int, default 5
        Centres per row and per column, ≥ 1.
    spacing : float, default 2.0
        Distance between neighbouring centres, > 0.

    Returns
    -------
    centres : ndarray of shape (side², 2)
        Row k = i · side + j is μ_(i, j): the first coordinate varies slowest.
    """
    side = check_positive_int(side, "side")
    spacing = check_positive(spacing, "spacing")
    coordinate = spacing * (np.arange(side) - (side - 1) / 2.0)  # (side,)
    first, second = np.meshgrid(coordinate, coordinate, indexing="ij")  # (side, side) each
    return np.column_stack([first.ravel(), second.ravel()])  # (side², 2)


def _sample_mixture(n, centres, std, rng):
    """n draws of the equal-weight mixture (1/K) Σ_k N(μ_k, std² I): a component, then Gaussian noise around it."""
    component = rng.integers(0, len(centres), size=n)  # (n,) uniform on 0, …, K − 1
    X = centres[component] + std * rng.standard_normal((n, centres.shape[1]))  # (n, 2)
    return X, component


def make_gaussian_ring(n, *, rng, modes=8, radius=2.0, std=0.05):
    """Points from K Gaussians equally spaced on a circle, the "8 Gaussians" test of generative models.

    The density is exactly

        p(x) = (1/K) Σ_k N(x; μ_k, σ² I),   μ_k = r (cos 2πk/K, sin 2πk/K),

    (see :func:`gaussian_ring_centres` and :func:`gaussian_mixture_density`): each point picks a component k
    uniformly at random, independently of the others, then adds isotropic Gaussian noise of standard deviation σ.
    With the defaults the modes are 2r sin(π/8) ≈ 1.53 apart, about 30 standard deviations, so a model that
    drops one (mode collapse) is easy to see and to count.

    Parameters
    ----------
    n : int
        Number of points N ≥ 1.
    rng : numpy.random.Generator
    modes : int, default 8
        K ≥ 1 components.
    radius : float, default 2.0
        r > 0.
    std : float, default 0.05
        σ ≥ 0; 0 puts every point on its centre.

    Returns
    -------
    X : ndarray of shape (N, 2)
    component : ndarray of shape (N,), int64
        The k of each point, 0, …, K − 1 (centre k is row k of ``gaussian_ring_centres(modes=K, radius=r)``).
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    centres = gaussian_ring_centres(modes=modes, radius=radius)  # (K, 2)
    std = check_nonnegative(std, "std")
    return _sample_mixture(n, centres, std, rng)


def make_gaussian_grid(n, *, rng, side=5, spacing=2.0, std=0.05):
    """Points from side × side Gaussians on a square grid, the "25 Gaussians" test of generative models.

    The density is exactly

        p(x) = (1/K) Σ_k N(x; μ_k, σ² I),   K = side²,

    with the centres μ_k of :func:`gaussian_grid_centres` (with the defaults, every point of {−4, −2, 0, 2, 4}²):
    each point picks a component k uniformly at random, independently of the others, then adds isotropic Gaussian
    noise of standard deviation σ.

    Parameters
    ----------
    n : int
        Number of points N ≥ 1.
    rng : numpy.random.Generator
    side : int, default 5
        Centres per row and per column, ≥ 1.
    spacing : float, default 2.0
        Distance between neighbouring centres, > 0.
    std : float, default 0.05
        σ ≥ 0; 0 puts every point on its centre.

    Returns
    -------
    X : ndarray of shape (N, 2)
    component : ndarray of shape (N,), int64
        The k of each point, 0, …, side² − 1 (row k of ``gaussian_grid_centres(side=side, spacing=spacing)``).
    """
    n = check_positive_int(n, "n")
    rng = check_rng(rng)
    centres = gaussian_grid_centres(side=side, spacing=spacing)  # (K, 2)
    std = check_nonnegative(std, "std")
    return _sample_mixture(n, centres, std, rng)


def gaussian_mixture_density(X, centres, *, std):
    """The density p(x) = (1/K) Σ_k N(x; μ_k, σ² I) of an equal-weight mixture of isotropic Gaussians.

    N(x; μ, σ² I) = (2πσ²)^(−D/2) exp(−‖x − μ‖² / (2σ²)) in D dimensions: the exact density of
    :func:`make_gaussian_ring` and :func:`make_gaussian_grid` given their centres, for drawing the truth (e.g. as
    contours on a grid of points) next to a model's samples.

    Parameters
    ----------
    X : array_like of shape (N, D)
        Points at which to evaluate the density.
    centres : array_like of shape (K, D)
        The means μ_k.
    std : float
        σ > 0.

    Returns
    -------
    density : ndarray of shape (N,)
        Far from every centre it underflows to 0, which is its value to double precision.
    """
    X = as_finite_array(X, "X", ndim=2, allow_empty=False)
    centres = as_finite_array(centres, "centres", ndim=2, allow_empty=False)
    if centres.shape[1] != X.shape[1]:
        raise ValueError(f"centres has {centres.shape[1]} coordinates per row but X has {X.shape[1]}; expected "
                         "centres of shape (K, D) in the space of the points X (N, D).")
    sigma = check_positive(std, "std")
    D = X.shape[1]
    squared = ((X[:, None, :] - centres[None, :, :]) ** 2).sum(axis=-1)  # (N, K) ‖x − μ_k‖²
    normal = np.exp(-squared / (2.0 * sigma**2)) / (2.0 * np.pi * sigma**2) ** (D / 2)  # (N, K)
    return normal.mean(axis=1)  # (N,) the average over the K components
