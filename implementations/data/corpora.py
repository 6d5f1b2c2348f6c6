"""A synthetic corpus for word embeddings (chapter 7): templated sentences whose words come from known categories.

Words of one category fill the same slots of the same templates, so they occur in the same contexts, and a good
embedding places them close together, which can be measured against :data:`WORD_CATEGORIES` (or, with graded
similarity, :data:`GRADED_SUBCATEGORIES`). The sentences are drawn from an explicit ``rng`` (a
``numpy.random.Generator``), so the same seed always gives the same corpus.
"""

import numpy as np

from .._contract import checked

__all__ = ["WORD_CATEGORIES", "GRADED_SUBCATEGORIES", "make_corpus"]


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


@checked(n="count", rng="rng", graded="flag")
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
    if graded:
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
