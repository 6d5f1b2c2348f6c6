"""Text as numbers: tokens, vocabularies and TF-IDF (one-hot vectors are numeric.one_hot).

Chapter 7 of the book. Everything here is NumPy; :func:`tfidf` reproduces scikit-learn's
``TfidfVectorizer`` (default token pattern, lower-casing, alphabetical vocabulary) for the options it takes.
word2vec is in :mod:`implementations.language.word2vec`, byte-pair encoding in :mod:`implementations.language.bpe`.
"""

import re
from collections import Counter

import numpy as np

from .._contract import checked
from . import _text_checks

__all__ = ["tokenize", "Vocabulary", "tfidf"]

_WORD_OR_SYMBOL = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[^\sa-z0-9]")
_TERM = re.compile(r"(?u)\b\w\w+\b")  # TfidfVectorizer's default token_pattern: two or more word characters


@checked(text=_text_checks.text)
def tokenize(text):
    """Lower-cased words (with an apostrophe part, as in "don't") and single punctuation marks, in order.

    Parameters
    ----------
    text : str
        One piece of text; tokenize a list of texts one at a time.

    Returns
    -------
    list of str

    Examples
    --------
    >>> tokenize("I need to run to catch the bus!")
    ['i', 'need', 'to', 'run', 'to', 'catch', 'the', 'bus', '!']
    """
    return _WORD_OR_SYMBOL.findall(text.lower())


class Vocabulary:
    """A two-way map between tokens and integer ids, with ``<pad>`` = 0 and ``<unk>`` = 1.

    The other tokens follow, most frequent first (ties in alphabetical order).

    Parameters
    ----------
    tokens : list of str
        The tokens of a training text (repeats count towards the frequencies), e.g. ``tokenize(text)``, at least
        one; a bare string is refused rather than split into characters.
    min_count : int, default 1
        Tokens seen fewer times are left out and encode as ``<unk>``; at least one token must be kept.

    Attributes
    ----------
    itos : list of str
        id -> token.
    stoi : dict of str -> int
        token -> id.
    """

    PAD, UNK = "<pad>", "<unk>"
    pad_id, unk_id = 0, 1

    @checked(tokens="tokens", min_count="count",
             also=(_text_checks.some_tokens, _text_checks.min_count_keeps_a_token))
    def __init__(self, tokens, *, min_count=1):
        counts = Counter(tokens)
        kept = sorted((t for t, c in counts.items() if c >= min_count and t not in (self.PAD, self.UNK)),
                      key=lambda t: (-counts[t], t))
        self.itos = [self.PAD, self.UNK, *kept]
        self.stoi = {t: i for i, t in enumerate(self.itos)}
        self.counts = counts

    def __len__(self):
        return len(self.itos)

    @property
    def vocab_size(self):
        """The number of ids V, ``<pad>`` and ``<unk>`` included (``len(self)``)."""
        return len(self.itos)

    @checked(tokens="tokens")
    def encode(self, tokens):
        """The id of each token: ndarray of int64, shape (len(tokens),).

        A token not in the vocabulary encodes as ``<unk>`` (id 1) by design: that is what the ``<unk>`` entry is
        for. ``tokens`` must be a list of str; a bare string is refused rather than encoded letter by letter.
        """
        return np.array([self.stoi.get(t, self.unk_id) for t in tokens], dtype=np.int64)

    @checked(ids="ids < self.vocab_size")
    def decode(self, ids):
        """The token of each id: list of str, in the order of ``ids.ravel()``.

        Parameters
        ----------
        ids : array_like of int, any shape
            Integer ids 0, …, len(self) − 1 (integer-valued floats such as 2.0 are accepted), at least one.
        """
        return [self.itos[i] for i in ids.ravel()]


@checked(docs=_text_checks.documents, sublinear_tf="flag", smooth_idf="flag", norm="{l2, l1}?")
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
    terms = [_TERM.findall(d.lower()) for d in docs]  # the terms of each document, in order
    vocabulary = sorted({t for doc in terms for t in doc})
    column = {t: j for j, t in enumerate(vocabulary)}
    counts = np.zeros((len(docs), len(vocabulary)))  # (n, V): c_{d,t}
    for i, doc in enumerate(terms):
        for t in doc:
            counts[i, column[t]] += 1
    tf = np.where(counts > 0, 1.0 + np.log(np.where(counts > 0, counts, 1.0)), 0.0) if sublinear_tf else counts
    n, df = len(docs), (counts > 0).sum(axis=0)  # df (V,): the documents holding each term
    idf = np.log((1 + n) / (1 + df)) + 1 if smooth_idf else np.log(n / df) + 1  # (V,)
    X = tf * idf  # (n, V)
    if norm is not None:
        size = np.linalg.norm(X, axis=1, keepdims=True) if norm == "l2" else np.abs(X).sum(axis=1, keepdims=True)
        X = X / np.where(size > 0, size, 1.0)  # each row of unit length (a row without terms stays 0)
    return X, vocabulary
