"""Text as numbers: tokens, vocabularies, one-hot vectors, TF-IDF and word2vec embeddings.

Chapter 7 of the book. Everything here is NumPy; :func:`tfidf` reproduces scikit-learn's
``TfidfVectorizer`` (default token pattern, lower-casing, alphabetical vocabulary) for the options it takes.
"""

import math
import re
from collections import Counter

import numpy as np

from ._validation import (
    _describe,
    as_finite_array,
    check_diverged,
    check_flag,
    check_ids,
    check_positive,
    check_positive_int,
    check_rng,
    check_str_list,
)
from .autograd import _add_at_rows
from .bpe import BPETokenizer
from .logistic import _sigmoid

__all__ = ["tokenize", "Vocabulary", "one_hot", "tfidf", "cosine_similarity", "sgns_loss", "Word2Vec", "BPETokenizer"]

_WORD_OR_SYMBOL = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")
_SKLEARN_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # TfidfVectorizer's default token_pattern


def tokenize(text):
    """Lower-cased words (with an apostrophe part, as in "don't") and single punctuation marks, in order.

    Parameters
    ----------
    text : str
        One piece of text; tokenize a list of texts one at a time.

    Returns
    -------
    list of str

    >>> tokenize("I need to run to catch the bus!")
    ['i', 'need', 'to', 'run', 'to', 'catch', 'the', 'bus', '!']
    """
    if not isinstance(text, str):
        hint = " Tokenize each text on its own: [tokenize(t) for t in texts]." if isinstance(text, list) else ""
        raise TypeError(f"text must be a str; received {_describe(text)}.{hint}")
    return _WORD_OR_SYMBOL.findall(text.lower())


class Vocabulary:
    """A two-way map between tokens and integer ids, with ``<pad>`` = 0 and ``<unk>`` = 1.

    The other tokens follow, most frequent first (ties in alphabetical order).

    Parameters
    ----------
    tokens : list of str
        The tokens of a training text (repeats count towards the frequencies), e.g. ``tokenize(text)``;
        a bare string is refused rather than split into characters.
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
        tokens = check_str_list(tokens, "tokens")
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
        """The id of each token: ndarray of int64, shape (len(tokens),).

        A token not in the vocabulary encodes as ``<unk>`` (id 1) by design: that is what the ``<unk>`` entry is
        for. ``tokens`` must be a list of str; a bare string is refused rather than encoded letter by letter.
        """
        tokens = check_str_list(tokens, "tokens")
        return np.array([self.stoi.get(t, self.unk_id) for t in tokens], dtype=np.int64)

    def decode(self, ids):
        """The token of each id: list of str, in the order of ``ids.ravel()``.

        Parameters
        ----------
        ids : array_like of int, any shape
            Integer ids 0, …, len(self) − 1 (integer-valued floats such as 2.0 are accepted), at least one.
        """
        ids = check_ids(ids, "ids", vocab_size=len(self))
        return [self.itos[i] for i in ids.ravel()]


def one_hot(ids, vocab_size):
    """Rows of the identity: one_hot(ids, V)[..., j] = 1 where ids == j.

    Parameters
    ----------
    ids : array_like of int, any shape
        Token ids 0, …, vocab_size − 1 (integer-valued floats such as 2.0 are accepted), at least one.
    vocab_size : int
        V ≥ 1.

    Returns
    -------
    ndarray of float, shape ids.shape + (vocab_size,)
    """
    vocab_size = check_positive_int(vocab_size, "vocab_size")
    ids = check_ids(ids, "ids", vocab_size=vocab_size)
    return np.eye(vocab_size)[ids]


def tfidf(docs, *, sublinear_tf=False, smooth_idf=True, norm="l2"):
    """Term frequency–inverse document frequency vectors, eq. (7.1), as scikit-learn's ``TfidfVectorizer``.

    For term t in document d: tf(t, d) is the count of t in d (1 + ln count if ``sublinear_tf``),
    idf(t) = ln((1 + n) / (1 + df(t))) + 1 with smoothing, ln(n / df(t)) + 1 without, where n is the number
    of documents and df(t) the number containing t; the entry is tf · idf, and each row is then scaled to
    unit ℓ2 (or ℓ1) norm. Tokens are runs of two or more word characters, lower-cased.

    Parameters
    ----------
    docs : list of str
        One string per document, at least one document with a term of two or more letters.
    sublinear_tf : bool, default False
    smooth_idf : bool, default True
    norm : {"l2", "l1", None}, default "l2"

    Returns
    -------
    X : ndarray of shape (n_docs, V)
    vocabulary : list of str
        The V terms, in alphabetical order (the columns of X).
    """
    if isinstance(docs, str):
        raise TypeError(f"docs must be a list of strings, one per document; received {_describe(docs)}. "
                        "Wrap a single document in a list: docs=[text].")
    docs = check_str_list(docs, "docs", what="document string")
    sublinear_tf, smooth_idf = check_flag(sublinear_tf, "sublinear_tf"), check_flag(smooth_idf, "smooth_idf")
    if not (norm is None or (isinstance(norm, str) and norm in ("l2", "l1"))):
        raise ValueError(f"norm must be 'l2', 'l1' or None; received {norm!r}.")
    tokens = [_SKLEARN_TOKEN.findall(d.lower()) for d in docs]
    vocabulary = sorted({t for doc in tokens for t in doc})
    if not vocabulary:
        raise ValueError(f"docs ({len(docs)} documents) contain no terms of two or more letters; nothing to "
                         "weight. Pass at least one document with a word of two or more letters.")
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
        Finite numbers, no zero row.
    B : array_like of shape (m, d) or (d,), optional
        Finite numbers, no zero row, the same d as A.

    Returns
    -------
    float for two vectors, else ndarray of shape (n, m)
    """
    A = as_finite_array(A, "A", ndim=(1, 2), allow_empty=False)
    B = A if B is None else as_finite_array(B, "B", ndim=(1, 2), allow_empty=False)
    if A.shape[-1] != B.shape[-1]:
        raise ValueError(f"A has vectors of length {A.shape[-1]} (shape {A.shape}) but B of length {B.shape[-1]} "
                         f"(shape {B.shape}); expected the same length d. Compare vectors of one space.")
    return _cosine_similarity(A, B, names=("A", "B"))


def _cosine_similarity(A, B, *, names=None):
    """:func:`cosine_similarity` of finite float arrays of matching width; zero rows are refused only if ``names``."""
    A2, B2 = np.atleast_2d(A), np.atleast_2d(B)
    norm_a, norm_b = np.linalg.norm(A2, axis=1), np.linalg.norm(B2, axis=1)
    for name, norms in zip(names or (), (norm_a, norm_b), strict=False):  # no names: no check
        zero = np.flatnonzero(norms == 0)
        if zero.size:
            raise ValueError(f"{name} has {zero.size} zero vector(s), the first at row {zero[0]}; cosine similarity "
                             "is undefined for a zero vector. Drop those rows first.")
    S = (A2 @ B2.T) / np.outer(norm_a, norm_b)
    return float(S[0, 0]) if A.ndim == 1 and B.ndim == 1 else S


def sgns_loss(v, u_pos, u_neg):
    """Skip-gram negative-sampling loss, eq. (7.3), and its gradients.

    For a centre word vector v, the output vector u₊ of a word seen in its context and the output
    vectors u₋ of k sampled "noise" words: ℓ = −log σ(u₊·v) − Σ log σ(−u₋·v).

    Parameters
    ----------
    v : ndarray of shape (b, d)
        Finite, b ≥ 1.
    u_pos : ndarray of shape (b, d)
    u_neg : ndarray of shape (b, k, d)

    Returns
    -------
    loss : float
        Mean of ℓ over the b pairs.
    grads : tuple of ndarrays (dv, du_pos, du_neg), shaped like the arguments, of the mean loss
    """
    v = as_finite_array(v, "v", ndim=2, allow_empty=False)
    u_pos = as_finite_array(u_pos, "u_pos", ndim=2)
    u_neg = as_finite_array(u_neg, "u_neg", ndim=3)
    if u_pos.shape != v.shape:
        raise ValueError(f"u_pos has shape {u_pos.shape} but v has shape {v.shape}; expected {v.shape}: one output "
                         "vector per centre vector, of the same width d.")
    if u_neg.shape[0] != v.shape[0] or u_neg.shape[2] != v.shape[1]:
        raise ValueError(f"u_neg has shape {u_neg.shape} but v has shape {v.shape}; expected ({v.shape[0]}, k, "
                         f"{v.shape[1]}): k noise vectors per centre vector, of the same width d.")
    return _sgns_loss(v, u_pos, u_neg)


def _log_sigmoid(z):
    """log σ(z) of :func:`implementations.logistic.log_sigmoid`, the same arithmetic, without its NaN scan."""
    return np.minimum(z, 0.0) - np.log1p(np.exp(-np.abs(z)))


def _sgns_loss(v, u_pos, u_neg):
    """:func:`sgns_loss` of float arrays known to be valid: what :meth:`Word2Vec.fit` calls once per batch."""
    b = len(v)
    s_pos = np.einsum("bd,bd->b", u_pos, v)  # (b,)
    s_neg = np.einsum("bkd,bd->bk", u_neg, v)  # (b, k)
    loss = -(_log_sigmoid(s_pos).sum() + _log_sigmoid(-s_neg).sum()) / b
    g_pos = (_sigmoid(s_pos) - 1.0) / b  # ∂ℓ/∂s₊
    g_neg = _sigmoid(s_neg) / b  # ∂ℓ/∂s₋
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

        Parameters
        ----------
        sentences : list of (str or list of str)
            The training text, one sentence per entry; a bare string is refused.
        dim, window, negatives, epochs, batch_size : int
            Embedding width, context half-width, noise words per pair, passes over the pairs, pairs per
            update; each ≥ 1.
        rng : numpy.random.Generator
        lr : float, default 0.025
            Initial learning rate, > 0.

        Returns
        -------
        self

        Raises
        ------
        FloatingPointError
            If a batch loss is no longer finite or has grown 10⁴-fold from the first batch's (training
            diverged: ``lr`` is too large).
        """
        dim, window = check_positive_int(dim, "dim"), check_positive_int(window, "window")
        negatives, epochs = check_positive_int(negatives, "negatives"), check_positive_int(epochs, "epochs")
        batch_size = check_positive_int(batch_size, "batch_size")
        lr = check_positive(lr, "lr")
        rng = check_rng(rng)
        sentences = _check_sentences(sentences)
        counts = Counter(t for s in sentences for t in s)
        if len(counts) < 2:
            raise ValueError(f"sentences must hold at least two distinct words to learn from; received "
                             f"{len(counts)}. Pass more text.")
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
            raise ValueError("sentences give no (word, context) pairs: every sentence has a single word. "
                             "Pass sentences of two or more words.")
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
        step, first_loss = 0, None
        for _ in range(epochs):
            order = rng.permutation(n_pairs)
            losses = []
            for start in range(0, n_pairs, batch_size):
                batch = order[start : start + batch_size]
                c, o = centres[batch], contexts[batch]
                neg = noise_cdf.searchsorted(rng.random((len(batch), negatives)), side="right")  # (b, k)
                loss, (dv, du_pos, du_neg) = _sgns_loss(self.W_in[c], self.W_out[o], self.W_out[neg])
                try:  # a loss no longer finite, or 10⁴ times the first (that of W_out = 0): lr is too large
                    check_diverged(loss, first_loss, step=step, rate_name="lr", rate=lr)
                except FloatingPointError as exc:
                    raise FloatingPointError(f"{exc} A smaller batch_size={batch_size} helps too: frequent words "
                                             "get many updates per batch.") from None
                first_loss = loss if first_loss is None else first_loss
                rate = lr * (1.0 - 0.99 * step / total_steps) * len(batch)  # gradients are of the mean
                _add_at_rows(self.W_in, c, -rate * dv)
                _add_at_rows(self.W_out, o, -rate * du_pos)
                _add_at_rows(self.W_out, neg, -rate * du_neg)
                losses.append(loss)
                step += 1
            self.loss_history.append(float(np.mean(losses)))
        return self

    def _row(self, word):
        if not hasattr(self, "index"):
            raise RuntimeError("call fit() before asking for vectors.")
        if not isinstance(word, str):
            raise TypeError(f"word must be a str, one word of the vocabulary; received {_describe(word)}.")
        if word not in self.index:
            raise KeyError(f"word {word!r} is not in the vocabulary of {len(self.words)} words; expected one of "
                           f"the words of the training sentences (model.words). Check its spelling and case.")
        return self.index[word]

    def vector(self, word):
        """The embedding of ``word``: a copy of its row of ``W_in``, shape (dim,).

        Raises
        ------
        KeyError
            If ``word`` is not in the vocabulary (``words``).
        """
        return self.W_in[self._row(word)].copy()

    def most_similar(self, word, k=5):
        """The ``k`` other words with the largest cosine similarity to ``word``: list of (word, similarity).

        Raises
        ------
        KeyError
            If ``word`` is not in the vocabulary (``words``).
        """
        i = self._row(word)
        k = check_positive_int(k, "k")
        sims = _cosine_similarity(self.W_in[i], self.W_in)[0]  # (V,)
        sims[i] = -np.inf
        best = np.argsort(-sims, kind="stable")[:k]
        return [(self.words[j], float(sims[j])) for j in best]


def _check_sentences(sentences):
    """``sentences`` as a list of token lists: each entry a string (tokenized) or a list of str tokens."""
    if isinstance(sentences, (str, bytes)):
        raise TypeError(f"sentences must be a list of sentences; received {_describe(sentences)}. "
                        "Wrap a single sentence in a list: sentences=[text].")
    try:
        sentences = list(sentences)
    except TypeError as exc:
        raise TypeError(f"sentences must be a list of sentences; received {_describe(sentences)}.") from exc
    result = []
    for i, s in enumerate(sentences):
        if isinstance(s, str):
            result.append(tokenize(s))
        elif not isinstance(s, bytes) and hasattr(s, "__iter__") and all(isinstance(t, str) for t in s):
            result.append(list(s))
        else:
            raise TypeError(f"sentences must hold strings or lists of str tokens; entry {i} is {_describe(s)}. "
                            "Pass each sentence as text or as its list of tokens.")
    return result
