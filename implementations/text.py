"""Text as numbers: tokens, vocabularies, one-hot vectors, TF-IDF and word2vec embeddings.

Chapter 5 of the book. Everything here is NumPy; :func:`tfidf` reproduces scikit-learn's
``TfidfVectorizer`` (default token pattern, lower-casing, alphabetical vocabulary) for the options it takes.
"""

import math
import re
from collections import Counter

import numpy as np

from ._validation import check_positive_int, check_rng
from .autograd import _add_at_rows
from .logistic import log_sigmoid, sigmoid

__all__ = ["tokenize", "Vocabulary", "one_hot", "tfidf", "cosine_similarity", "sgns_loss", "Word2Vec"]

_WORD_OR_SYMBOL = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")
_SKLEARN_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # TfidfVectorizer's default token_pattern


def tokenize(text):
    """Lower-cased words (with an apostrophe part, as in "don't") and single punctuation marks, in order.

    >>> tokenize("I need to run to catch the bus!")
    ['i', 'need', 'to', 'run', 'to', 'catch', 'the', 'bus', '!']
    """
    if not isinstance(text, str):
        raise TypeError(f"tokenize expects a str; received {type(text).__name__}.")
    return _WORD_OR_SYMBOL.findall(text.lower())


class Vocabulary:
    """A two-way map between tokens and integer ids, with ``<pad>`` = 0 and ``<unk>`` = 1.

    The other tokens follow, most frequent first (ties in alphabetical order).

    Parameters
    ----------
    tokens : iterable of str
        The tokens of a training text (repeats count towards the frequencies).
    min_count : int, default 1
        Tokens seen fewer times are left out and encode as ``<unk>``.

    Attributes
    ----------
    itos : list of str
        id -> token.
    stoi : dict of str -> int
        token -> id.
    """

    PAD, UNK = "<pad>", "<unk>"

    def __init__(self, tokens, *, min_count=1):
        min_count = check_positive_int(min_count, "min_count")
        counts = Counter(tokens)
        kept = sorted((t for t, c in counts.items() if c >= min_count and t not in (self.PAD, self.UNK)),
                      key=lambda t: (-counts[t], t))
        self.itos = [self.PAD, self.UNK, *kept]
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.counts = counts

    pad_id, unk_id = 0, 1

    def __len__(self):
        return len(self.itos)

    def encode(self, tokens):
        """ndarray of int ids, ``<unk>`` for tokens not in the vocabulary."""
        return np.array([self.stoi.get(t, self.unk_id) for t in tokens], dtype=np.int64)

    def decode(self, ids):
        """List of tokens for integer ids in 0..len − 1."""
        ids = np.asarray(ids)
        if ids.size and (ids.min() < 0 or ids.max() >= len(self)):
            raise ValueError(f"ids must be in 0..{len(self) - 1}; received values from {ids.min()} to {ids.max()}.")
        return [self.itos[i] for i in ids.ravel()]


def one_hot(ids, vocab_size):
    """Rows of the identity: one_hot(ids, V)[..., j] = 1 where ids == j.

    Parameters
    ----------
    ids : array_like of int, any shape
    vocab_size : int

    Returns
    -------
    ndarray of float, shape ids.shape + (vocab_size,)
    """
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    ids = np.asarray(ids)
    if not np.issubdtype(ids.dtype, np.integer) or (ids.size and (ids.min() < 0 or ids.max() >= vocab_size)):
        raise ValueError(f"ids must be integers in 0..{vocab_size - 1}; received {ids.dtype} values "
                         f"{ids.min() if ids.size else ''}..{ids.max() if ids.size else ''}.")
    return np.eye(vocab_size)[ids]


def tfidf(docs, *, sublinear_tf=False, smooth_idf=True, norm="l2"):
    """Term frequency–inverse document frequency vectors, eq. (5.1), as scikit-learn's ``TfidfVectorizer``.

    For term t in document d: tf(t, d) is the count of t in d (1 + ln count if ``sublinear_tf``),
    idf(t) = ln((1 + n) / (1 + df(t))) + 1 with smoothing, ln(n / df(t)) + 1 without, where n is the number
    of documents and df(t) the number containing t; the entry is tf · idf, and each row is then scaled to
    unit ℓ2 (or ℓ1) norm. Tokens are runs of two or more word characters, lower-cased.

    Parameters
    ----------
    docs : list of str
    sublinear_tf : bool, default False
    smooth_idf : bool, default True
    norm : {"l2", "l1", None}, default "l2"

    Returns
    -------
    X : ndarray of shape (n_docs, V)
    vocabulary : list of str
        The V terms, in alphabetical order (the columns of X).
    """
    if isinstance(docs, str) or not all(isinstance(d, str) for d in docs):
        raise TypeError("docs must be a list of strings, one per document.")
    if norm not in ("l2", "l1", None):
        raise ValueError(f"norm must be 'l2', 'l1' or None; received {norm!r}.")
    tokens = [_SKLEARN_TOKEN.findall(d.lower()) for d in docs]
    vocabulary = sorted({t for doc in tokens for t in doc})
    if not vocabulary:
        raise ValueError("the documents contain no terms of two or more letters; nothing to weight.")
    column = {t: j for j, t in enumerate(vocabulary)}
    counts = np.zeros((len(docs), len(vocabulary)))  # (n, V)
    for i, doc in enumerate(tokens):
        for t in doc:
            counts[i, column[t]] += 1
    tf = np.where(counts > 0, 1.0 + np.log(np.where(counts > 0, counts, 1.0)), 0.0) if sublinear_tf else counts
    n, df = len(docs), (counts > 0).sum(axis=0)
    idf = np.log((1 + n) / (1 + df)) + 1 if smooth_idf else np.log(n / df) + 1
    X = tf * idf
    if norm is not None:
        size = np.linalg.norm(X, axis=1, keepdims=True) if norm == "l2" else np.abs(X).sum(axis=1, keepdims=True)
        X = X / np.where(size > 0, size, 1.0)
    return X, vocabulary


def cosine_similarity(A, B=None):
    """cos(a, b) = a·b / (‖a‖‖b‖) between the rows of A and the rows of B (default: A itself).

    Parameters
    ----------
    A : array_like of shape (n, d) or (d,)
    B : array_like of shape (m, d) or (d,), optional

    Returns
    -------
    float for two vectors, else ndarray of shape (n, m)
    """
    A = np.asarray(A, dtype=np.float64)
    B = A if B is None else np.asarray(B, dtype=np.float64)
    A2, B2 = np.atleast_2d(A), np.atleast_2d(B)
    if A2.shape[1] != B2.shape[1]:
        raise ValueError(f"vectors must have the same length; received {A.shape} and {B.shape}.")
    norm_a, norm_b = np.linalg.norm(A2, axis=1), np.linalg.norm(B2, axis=1)
    if (norm_a == 0).any() or (norm_b == 0).any():
        raise ValueError("cosine similarity is undefined for a zero vector.")
    S = (A2 @ B2.T) / np.outer(norm_a, norm_b)
    return float(S[0, 0]) if A.ndim == 1 and B.ndim == 1 else S


def sgns_loss(v, u_pos, u_neg):
    """Skip-gram negative-sampling loss, eq. (5.3), and its gradients.

    For a centre word vector v, the output vector u₊ of a word seen in its context and the output
    vectors u₋ of k sampled "noise" words: ℓ = −log σ(u₊·v) − Σ log σ(−u₋·v).

    Parameters
    ----------
    v : ndarray of shape (b, d)
    u_pos : ndarray of shape (b, d)
    u_neg : ndarray of shape (b, k, d)

    Returns
    -------
    loss : float
        Mean of ℓ over the b pairs.
    grads : tuple of ndarrays (dv, du_pos, du_neg), shaped like the arguments, of the mean loss
    """
    b = len(v)
    s_pos = np.einsum("bd,bd->b", u_pos, v)  # (b,)
    s_neg = np.einsum("bkd,bd->bk", u_neg, v)  # (b, k)
    loss = -(log_sigmoid(s_pos).sum() + log_sigmoid(-s_neg).sum()) / b
    g_pos = (sigmoid(s_pos) - 1.0) / b  # ∂ℓ/∂s₊
    g_neg = sigmoid(s_neg) / b  # ∂ℓ/∂s₋
    dv = g_pos[:, None] * u_pos + np.einsum("bk,bkd->bd", g_neg, u_neg)
    return float(loss), (dv, g_pos[:, None] * v, g_neg[:, :, None] * v[:, None, :])


class Word2Vec:
    """Skip-gram word embeddings trained with negative sampling (Mikolov et al., 2013), in NumPy.

    Each word has an input vector (the embedding, a row of ``W_in``) and an output vector (a row of
    ``W_out``). Training pushes the input vector of every word towards the output vectors of the words
    within ``window`` positions of it and away from ``negatives`` words drawn from the unigram
    distribution raised to the power 3/4. The attributes below are set by :meth:`fit`.

    Attributes
    ----------
    words : list of str
        The vocabulary, most frequent first.
    W_in, W_out : ndarray of shape (V, dim)
    loss_history : list of float
        Mean loss of each epoch.
    """

    def fit(self, sentences, *, dim, window, negatives, epochs, rng, lr=0.025, batch_size=64):
        """Learn the embeddings from ``sentences`` (lists of tokens, or strings to :func:`tokenize`).

        Learning rate decays linearly from ``lr`` to lr / 100 over the run; mini-batches of ``batch_size``
        (centre, context) pairs are updated together.

        Returns
        -------
        self
        """
        dim, window = check_positive_int(dim, "dim"), check_positive_int(window, "window")
        negatives, epochs = check_positive_int(negatives, "negatives"), check_positive_int(epochs, "epochs")
        batch_size = check_positive_int(batch_size, "batch_size")
        rng = check_rng(rng)
        sentences = [tokenize(s) if isinstance(s, str) else list(s) for s in sentences]
        counts = Counter(t for s in sentences for t in s)
        if len(counts) < 2:
            raise ValueError(f"need at least two distinct words to learn from; received {len(counts)}.")
        self.words = sorted(counts, key=lambda t: (-counts[t], t))
        self.index = {w: i for i, w in enumerate(self.words)}
        V = len(self.words)
        centres, contexts = [], []
        for s in sentences:
            ids = [self.index[t] for t in s]
            for i, c in enumerate(ids):
                for j in range(max(0, i - window), min(len(ids), i + window + 1)):
                    if j != i:
                        centres.append(c)
                        contexts.append(ids[j])
        if not centres:
            raise ValueError("no (word, context) pairs: every sentence has a single word.")
        centres, contexts = np.array(centres), np.array(contexts)
        noise = np.array([counts[w] for w in self.words], dtype=np.float64) ** 0.75
        noise /= noise.sum()
        noise_cdf = noise.cumsum()
        noise_cdf /= noise_cdf[-1]  # sampling by inverting this CDF is what rng.choice(V, p=noise) does, checks aside
        self.W_in = (rng.random((V, dim)) - 0.5) / dim
        self.W_out = np.zeros((V, dim))
        self.loss_history = []
        n_pairs = len(centres)
        total_steps = epochs * math.ceil(n_pairs / batch_size)
        step = 0
        for _ in range(epochs):
            order = rng.permutation(n_pairs)
            losses = []
            for start in range(0, n_pairs, batch_size):
                batch = order[start : start + batch_size]
                c, o = centres[batch], contexts[batch]
                neg = noise_cdf.searchsorted(rng.random((len(batch), negatives)), side="right")  # (b, k)
                loss, (dv, du_pos, du_neg) = sgns_loss(self.W_in[c], self.W_out[o], self.W_out[neg])
                rate = lr * (1.0 - 0.99 * step / total_steps) * len(batch)  # gradients are of the mean
                _add_at_rows(self.W_in, c, -rate * dv)
                _add_at_rows(self.W_out, o, -rate * du_pos)
                _add_at_rows(self.W_out, neg, -rate * du_neg)
                if not np.isfinite(loss):
                    raise ValueError(f"training diverged (loss {loss}) at step {step} with lr = {lr}; use a "
                                     "smaller lr or batch_size (frequent words get many updates per batch).")
                losses.append(loss)
                step += 1
            self.loss_history.append(float(np.mean(losses)))
        return self

    def _row(self, word):
        if not hasattr(self, "index"):
            raise RuntimeError("call fit() before asking for vectors.")
        if word not in self.index:
            raise KeyError(f"{word!r} is not in the vocabulary of {len(self.words)} words.")
        return self.index[word]

    def vector(self, word):
        """The embedding of ``word``: a copy of its row of ``W_in``, shape (dim,)."""
        return self.W_in[self._row(word)].copy()

    def most_similar(self, word, k=5):
        """The ``k`` other words with the largest cosine similarity to ``word``: list of (word, similarity)."""
        i = self._row(word)
        k = check_positive_int(k, "k")
        sims = cosine_similarity(self.W_in[i], self.W_in)[0]  # (V,)
        sims[i] = -np.inf
        best = np.argsort(-sims, kind="stable")[:k]
        return [(self.words[j], float(sims[j])) for j in best]
