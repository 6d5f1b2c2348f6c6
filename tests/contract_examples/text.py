"""Valid examples for the input contract: text (chapter 7's tokens, vocabularies, TF-IDF and word2vec)."""

import numpy as np

from contract import Example
from implementations import text

SENTENCES = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"]
TOKENS = ["the", "cat", "sat", "on", "the", "mat"]
DOCS = ["The quick brown fox", "the lazy dog", "quick dogs and lazy foxes"]
_rng = np.random.default_rng(0)
A = _rng.normal(size=(3, 4))  # (n, d)
B = _rng.normal(size=(2, 4))  # (m, d)
V_ = _rng.normal(size=(3, 4))  # (b, d)
U_POS = _rng.normal(size=(3, 4))  # (b, d)
U_NEG = _rng.normal(size=(3, 2, 4))  # (b, k, d)
VOCAB_SIZE = 7  # the size of the vocabulary of TOKENS
IDS = np.array([2, 3, 4])


def _vocabulary():
    return text.Vocabulary(TOKENS)  # 7 entries: <pad>, <unk>, the, cat, mat, on, sat


def _fit_call():
    """A fresh model and a fresh rng each time: fit sets the model's attributes and advances the rng."""
    return text.Word2Vec().fit, {"sentences": SENTENCES, "dim": 4, "window": 2, "negatives": 2, "epochs": 2,
                                 "rng": np.random.default_rng(0), "lr": 0.025, "batch_size": 8}


_TRAINED = text.Word2Vec().fit(SENTENCES, dim=4, window=2, negatives=2, epochs=2, rng=np.random.default_rng(0),
                               batch_size=8)  # read-only use: vector and most_similar do not change the model

EXAMPLES = {
    "implementations.text.tokenize": Example(
        build=lambda: (text.tokenize, {"text": "I need to run to catch the bus!"}),
        extra=[("a list of tokens", {"text": ["a", "b"]}, (TypeError,)),
               ("a number", {"text": 42}, (TypeError,)),
               ("None", {"text": None}, (TypeError,))]),
    "implementations.text.Vocabulary": Example(
        build=lambda: (text.Vocabulary, {"tokens": TOKENS, "min_count": 1}),
        roles={"tokens": "tokens", "min_count": "count"}),
    "implementations.text.Vocabulary.encode": Example(
        build=lambda: (_vocabulary().encode, {"tokens": ["the", "mat", "zebra"]}),
        roles={"tokens": "tokens"},
        passthrough={"tokens": "a token not in the vocabulary encodes as <unk> (id 1), as the docstring says"}),
    "implementations.text.Vocabulary.decode": Example(
        build=lambda: (_vocabulary().decode, {"ids": IDS}),
        roles={"ids": f"ids:{VOCAB_SIZE}"}),
    "implementations.text.one_hot": Example(
        build=lambda: (text.one_hot, {"ids": IDS, "vocab_size": VOCAB_SIZE}),
        roles={"ids": f"ids:{VOCAB_SIZE}", "vocab_size": "count"}),
    "implementations.text.tfidf": Example(
        build=lambda: (text.tfidf, {"docs": DOCS, "sublinear_tf": False, "smooth_idf": True, "norm": "l2"}),
        roles={"docs": "sentences", "sublinear_tf": "flag", "smooth_idf": "flag"},
        extra=[("an unknown norm", {"norm": "l3"}, (ValueError,)),
               ("a number as norm", {"norm": 2}, (ValueError,)),
               ("no documents", {"docs": []}, (ValueError,)),
               ("documents without terms", {"docs": ["a b", "c"]}, (ValueError,))]),
    "implementations.text.cosine_similarity": Example(
        build=lambda: (text.cosine_similarity, {"A": A, "B": B}),
        roles={"A": "array", "B": "array"},
        extra=[("vectors of another length", {"B": np.ones((2, 3))}, (ValueError,)),
               ("a zero vector", {"B": np.zeros((2, 4))}, (ValueError,)),
               ("a zero vector in A", {"A": np.zeros(4)}, (ValueError,))]),
    "implementations.text.sgns_loss": Example(
        build=lambda: (text.sgns_loss, {"v": V_, "u_pos": U_POS, "u_neg": U_NEG}),
        roles={"v": "array", "u_pos": "aligned:v", "u_neg": "aligned:v"},
        extra=[("u_pos of another width", {"u_pos": np.ones((3, 5))}, (ValueError,)),
               ("u_neg of another width", {"u_neg": np.ones((3, 2, 5))}, (ValueError,)),
               ("u_neg without the noise axis", {"u_neg": np.ones((3, 4))}, (ValueError,))]),
    "implementations.text.Word2Vec": Example(
        build=lambda: (text.Word2Vec, {})),
    "implementations.text.Word2Vec.fit": Example(
        build=_fit_call,
        roles={"sentences": "sentences", "dim": "count", "window": "count", "negatives": "count",
               "epochs": "count", "rng": "rng", "lr": "rate", "batch_size": "count"},
        extra=[("a diverging learning rate", {"lr": 1e4}, (FloatingPointError,)),
               ("a learning rate that diverges more slowly", {"lr": 10.0}, (FloatingPointError,)),
               ("a list holding a list with a number", {"sentences": [["a", "b"], ["c", 1]]}, (TypeError,)),
               ("a single word", {"sentences": ["cat cat cat"]}, (ValueError,)),
               ("no sentences", {"sentences": []}, (ValueError,)),
               ("one-word sentences", {"sentences": ["cat", "dog"]}, (ValueError,))]),
    "implementations.text.Word2Vec.vector": Example(
        build=lambda: (_TRAINED.vector, {"word": "cat"}),
        extra=[("an unknown word", {"word": "zebra"}, (KeyError,)),
               ("a number", {"word": 3}, (TypeError,)),
               ("a list of words", {"word": ["cat"]}, (TypeError,))]),
    "implementations.text.Word2Vec.most_similar": Example(
        build=lambda: (_TRAINED.most_similar, {"word": "cat", "k": 2}),
        roles={"k": "count"},
        extra=[("an unknown word", {"word": "zebra"}, (KeyError,)),
               ("a number", {"word": 3}, (TypeError,))]),
}
