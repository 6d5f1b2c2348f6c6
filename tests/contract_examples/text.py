"""Valid examples for the input contract: text (chapter 7's tokens, vocabularies and TF-IDF; word2vec has its own)."""

import numpy as np

from contract import Example
from implementations.language import text

TOKENS = ["the", "cat", "sat", "on", "the", "mat"]
DOCS = ["The quick brown fox", "the lazy dog", "quick dogs and lazy foxes"]
_rng = np.random.default_rng(0)
A = _rng.normal(size=(3, 4))  # (n, d)
B = _rng.normal(size=(2, 4))  # (m, d)
VOCAB_SIZE = 7  # the size of the vocabulary of TOKENS
IDS = np.array([2, 3, 4])


def _vocabulary():
    return text.Vocabulary(TOKENS)  # 7 entries: <pad>, <unk>, the, cat, mat, on, sat


EXAMPLES = {
    "implementations.language.text.tokenize": Example(
        build=lambda: (text.tokenize, {"text": "I need to run to catch the bus!"}),
        extra=[("a list of tokens", {"text": ["a", "b"]}, (TypeError,)),
               ("a number", {"text": 42}, (TypeError,)),
               ("None", {"text": None}, (TypeError,))]),
    "implementations.language.text.Vocabulary": Example(
        build=lambda: (text.Vocabulary, {"tokens": TOKENS, "min_count": 1}),
        roles={"tokens": "tokens", "min_count": "count"},
        extra=[("no tokens", {"tokens": []}, (ValueError,)),
               ("a min_count above every count", {"min_count": 3}, (ValueError,))]),
    "implementations.language.text.Vocabulary.encode": Example(
        build=lambda: (_vocabulary().encode, {"tokens": ["the", "mat", "zebra"]}),
        roles={"tokens": "tokens"},
        passthrough={"tokens": "a token not in the vocabulary encodes as <unk> (id 1), as the docstring says"}),
    "implementations.language.text.Vocabulary.decode": Example(
        build=lambda: (_vocabulary().decode, {"ids": IDS}),
        roles={"ids": f"ids:{VOCAB_SIZE}"}),
    "implementations.language.text.tfidf": Example(
        build=lambda: (text.tfidf, {"docs": DOCS, "sublinear_tf": False, "smooth_idf": True, "norm": "l2"}),
        roles={"docs": "sentences", "sublinear_tf": "flag", "smooth_idf": "flag"},
        extra=[("an unknown norm", {"norm": "l3"}, (ValueError,)),
               ("a number as norm", {"norm": 2}, (ValueError,)),
               ("no documents", {"docs": []}, (ValueError,)),
               ("documents without terms", {"docs": ["a b", "c"]}, (ValueError,))]),
}
