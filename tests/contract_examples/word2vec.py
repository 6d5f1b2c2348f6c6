"""Valid examples for the input contract: word2vec (chapter 7's skip-gram and CBOW, negative sampling and softmax)."""

import numpy as np

from contract import Example
from implementations.language import word2vec

SENTENCES = ["the cat sat on the mat", "the dog sat on the log", "a cat and a dog"]
TOKENS = ["the", "cat", "sat", "on", "the", "mat"]
_rng = np.random.default_rng(0)
V_ = _rng.normal(size=(3, 4))  # (b, d)
U_POS = _rng.normal(size=(3, 4))  # (b, d)
U_NEG = _rng.normal(size=(3, 2, 4))  # (b, k, d)
VOCAB = 6  # V, the rows of U
U = _rng.normal(size=(VOCAB, 4))  # (V, d)
TARGETS = np.array([0, 5, 2])  # (b,)
V_CONTEXT = _rng.normal(size=(3, 2, 4))  # (b, C, d)
MASK = np.array([[True, True], [True, False], [False, True]])  # (b, C)
NOISE = np.array([[1, 3], [4, 0], [2, 2]])  # (b, k)


def _fit_call():
    """A fresh model and a fresh rng each time: fit sets the model's attributes and advances the rng."""
    return word2vec.Word2Vec().fit, {"sentences": SENTENCES, "dim": 4, "window": 2, "negatives": 2, "epochs": 2,
                                     "rng": np.random.default_rng(0), "lr": 0.025, "batch_size": 8,
                                     "architecture": "skipgram", "objective": "negative", "subsample": None}


_TRAINED = word2vec.Word2Vec().fit(SENTENCES, dim=4, window=2, negatives=2, epochs=2, rng=np.random.default_rng(0),
                                   batch_size=8)  # read-only use: vector and most_similar do not change the model

EXAMPLES = {
    "implementations.language.word2vec.sgns_loss": Example(
        build=lambda: (word2vec.sgns_loss, {"v": V_, "u_pos": U_POS, "u_neg": U_NEG}),
        roles={"v": "array", "u_pos": "aligned:v", "u_neg": "aligned:v"},
        extra=[("u_pos of another width", {"u_pos": np.ones((3, 5))}, (ValueError,)),
               ("u_neg of another width", {"u_neg": np.ones((3, 2, 5))}, (ValueError,)),
               ("u_neg without the noise axis", {"u_neg": np.ones((3, 4))}, (ValueError,))]),
    "implementations.language.word2vec.full_softmax_loss": Example(
        build=lambda: (word2vec.full_softmax_loss, {"v": V_, "U": U, "o": TARGETS}),
        roles={"v": "array", "U": "array", "o": f"ids:{VOCAB}"},
        extra=[("U of another width", {"U": np.ones((VOCAB, 5))}, (ValueError,)),
               ("one target fewer than the rows of v", {"o": TARGETS[:2]}, (ValueError,)),
               ("targets with a second axis", {"o": TARGETS[:, None]}, (ValueError,))]),
    "implementations.language.word2vec.cbow_loss": Example(
        build=lambda: (word2vec.cbow_loss,
                       {"v_context": V_CONTEXT, "mask": MASK, "U": U, "o": TARGETS, "noise": NOISE}),
        roles={"v_context": "array", "mask": "aligned:v_context", "U": "array", "o": f"ids:{VOCAB}",
               "noise": f"ids:{VOCAB}"},
        extra=[("an example without context", {"mask": np.array([[1, 1], [0, 0], [1, 0]])}, (ValueError,)),
               ("a mask that is not 0/1", {"mask": np.full((3, 2), 0.5)}, (ValueError,)),
               ("a mask with another number of slots", {"mask": MASK[:, :1]}, (ValueError,)),
               ("U of another width", {"U": np.ones((VOCAB, 5))}, (ValueError,)),
               ("one target fewer than the examples", {"o": TARGETS[:2]}, (ValueError,)),
               ("noise for one example fewer", {"noise": NOISE[:2]}, (ValueError,)),
               ("noise without the noise axis", {"noise": NOISE[:, 0]}, (ValueError,))]),
    "implementations.language.word2vec.subsample": Example(
        build=lambda: (word2vec.subsample, {"tokens": TOKENS, "t": 0.1, "rng": np.random.default_rng(0)}),
        roles={"tokens": "tokens", "t": "rate", "rng": "rng"},
        extra=[("no tokens", {"tokens": []}, (ValueError,))]),
    "implementations.language.word2vec.Word2Vec": Example(
        build=lambda: (word2vec.Word2Vec, {})),
    "implementations.language.word2vec.Word2Vec.fit": Example(
        build=_fit_call,
        roles={"sentences": "sentences", "dim": "count", "window": "count", "negatives": "count",
               "epochs": "count", "rng": "rng", "lr": "rate?", "batch_size": "count", "subsample": "rate?"},
        extra=[("a diverging learning rate", {"lr": 1e4}, (FloatingPointError,)),
               ("a learning rate that diverges more slowly", {"lr": 10.0}, (FloatingPointError,)),
               ("a list holding a list with a number", {"sentences": [["a", "b"], ["c", 1]]}, (TypeError,)),
               ("a single word", {"sentences": ["cat cat cat"]}, (ValueError,)),
               ("no sentences", {"sentences": []}, (ValueError,)),
               ("one-word sentences", {"sentences": ["cat", "dog"]}, (ValueError,)),
               ("an unknown architecture", {"architecture": "sg"}, (ValueError,)),
               ("a number as architecture", {"architecture": 1}, (ValueError,)),
               ("an unknown objective", {"objective": "hierarchical"}, (ValueError,)),
               ("the softmax with noise words", {"objective": "softmax"}, (ValueError,)),
               ("a threshold that drops every word", {"subsample": 1e-9}, (ValueError,))]),
    "implementations.language.word2vec.Word2Vec.vector": Example(
        build=lambda: (_TRAINED.vector, {"word": "cat"}),
        extra=[("an unknown word", {"word": "zebra"}, (KeyError,)),
               ("a number", {"word": 3}, (TypeError,)),
               ("a list of words", {"word": ["cat"]}, (TypeError,))]),
    "implementations.language.word2vec.Word2Vec.most_similar": Example(
        build=lambda: (_TRAINED.most_similar, {"word": "cat", "k": 2}),
        roles={"k": "count"},
        extra=[("an unknown word", {"word": "zebra"}, (KeyError,)),
               ("a number", {"word": 3}, (TypeError,))]),
}
