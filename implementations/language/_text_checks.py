"""The checks of chapter 7's texts and word2vec and of chapter 10's tokenizers that no role string of
``implementations._contract`` describes, each once (the others are in ``_checks``): roles ``check(value, name) ->
value`` that convert one argument, and ``also=`` checks of several arguments together.
"""

import numbers
import re

import numpy as np

from .. import _validation as V
from .._validation import _describe
from ._checks import _whole

# --- text, documents, sentences, vocabularies -------------------------------------------------------------------------

def text(value, name):
    """Role: one text, a str."""
    if not isinstance(value, str):
        hint = {bytes: f" Decode it first: {name}=raw.decode('utf-8').",
                list: f" Pass one text at a time; join pieces first, {name}=''.join(pieces)."}.get(type(value), "")
        raise TypeError(f"{name} must be a str; received {_describe(value)}.{hint}")
    return value


def utf8_text(value, name):
    """Role: a str that UTF-8 can encode (no lone surrogate), for byte-level BPE."""
    value = text(value, name)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"{name} holds a lone surrogate {value[exc.start]!r} at index {exc.start}, which is not a "
                         "character and has no UTF-8 encoding; expected text made of Unicode characters. Remove it, "
                         "or repair text read with errors='surrogateescape'.") from None
    return value


def documents(docs, name):
    """Role: a list of documents (str), at least one with a term of two or more letters."""
    if isinstance(docs, str):
        raise TypeError(f"{name} must be a list of strings, one per document; received {_describe(docs)}. "
                        f"Wrap a single document in a list: {name}=[text].")
    docs = V.check_str_list(docs, name, what="document string")
    if not any(re.search(r"\w\w", d) for d in docs):  # a term of TF-IDF is a run of two or more word characters
        raise ValueError(f"{name} ({len(docs)} documents) contain no terms of two or more letters; nothing to "
                         "weight. Pass at least one document with a word of two or more letters.")
    return docs


def some_tokens(tokens):
    if not tokens:
        raise ValueError("tokens is empty; expected at least one token (e.g. tokenize(text) of a non-empty text).")


def min_count_keeps_a_token(tokens, min_count):
    """A vocabulary keeps at least one token besides <pad> and <unk>."""
    counts = {}
    for t in tokens:
        counts[t] = counts.get(t, 0) + 1
    kept = [t for t, c in counts.items() if c >= min_count and t not in ("<pad>", "<unk>")]
    if tokens and not kept:
        most = max(counts.values())
        raise ValueError(f"min_count={min_count} leaves no token of tokens in the vocabulary (the most frequent one "
                         f"occurs {most} time(s)), only <pad> and <unk>; pass min_count <= {most}, or more text.")


def sentences(value, name):
    """Role: sentences as a list whose entries are strings (text to tokenize) or lists of str tokens."""
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a list of sentences; received {_describe(value)}. "
                        f"Wrap a single sentence in a list: {name}=[text].")
    try:
        value = list(value)
    except TypeError as exc:
        raise TypeError(f"{name} must be a list of sentences; received {_describe(value)}.") from exc
    for i, s in enumerate(value):
        if not (isinstance(s, str) or (not isinstance(s, bytes) and hasattr(s, "__iter__")
                                       and all(isinstance(t, str) for t in s))):
            raise TypeError(f"{name} must hold strings or lists of str tokens; entry {i} is {_describe(s)}. "
                            "Pass each sentence as text or as its list of tokens.")
    return value


# --- byte-pair encoding -----------------------------------------------------------------------------------------------

N_BYTES = 256  # the base vocabulary of byte-level BPE: one token per byte value (ids 0–255)


def bpe_vocab_size(value, name):
    """Role: an integer >= 256, the byte values plus the merges."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer >= {N_BYTES}; received {_describe(value)}. Pass the number of "
                        f"tokens, e.g. {name}=512 (the {N_BYTES} bytes and 256 merges).")
    if value < N_BYTES:
        raise ValueError(f"{name} must be an integer >= {N_BYTES} (the {N_BYTES} byte values come first, then one "
                         f"token per merge); received {value}. Pass e.g. {name}={N_BYTES + 256}.")
    return int(value)


def bpe_ids(value, name):
    """Role: the token ids of one sequence, (T,), possibly empty (the encoding of the empty string)."""
    ids = V.as_array(value, name, dtype=None)  # a string or a ragged list is named before any conversion
    if ids.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array of token ids; received shape {ids.shape}.")
    return ids if ids.dtype.kind in "iu" else _whole(V.check_finite_values(V.as_array(ids, name), name))


def called_after_training(method):
    """The ``also=`` check of a tokenizer's ``method``: it needs the merges that ``train`` learns."""
    def trained(self):
        if "merges" not in vars(self):
            raise ValueError(f"{method} was called before train: this {type(self).__name__} has learned no merges "
                             "yet. Call tok.train(text, vocab_size) first.")
    return trained


def ids_in_tokenizer(self, ids):
    if ids.size:
        V.check_ids(ids, "ids", vocab_size=self.vocab_size, ndim=1)


def vocab_size_within_tokenizer(self, vocab_size):
    if vocab_size > self.vocab_size:
        raise ValueError(f"vocab_size must be at most this tokenizer's vocab_size, {self.vocab_size}: truncating "
                         f"keeps merges, it cannot add them; received {vocab_size}. Train with a larger vocab_size "
                         "first.")


def merge_pairs(value, name):
    """Role: merges saved in the order learned, (M, 2): pair k may join only bytes and the tokens of earlier merges."""
    pairs = V.as_array(value, name, dtype=None)
    if pairs.ndim != 2 or pairs.shape[1] != 2:
        raise ValueError(f"{name} must have shape (M, 2), one pair (a, b) of ids per merge in the order learned; "
                         f"received shape {pairs.shape}. Save them as [tuple(p) for p in tok.merges].")
    if not pairs.size:
        return pairs.astype(np.int64)
    pairs = V.check_ids(pairs, name, vocab_size=N_BYTES + len(pairs))
    seen = set()
    for k, (a, b) in enumerate(pairs.tolist()):
        if max(a, b) >= N_BYTES + k or (a, b) in seen:
            raise ValueError(f"{name}[{k}] = ({a}, {b}) cannot be merge {k}: a merge may only join bytes (ids below "
                             f"{N_BYTES}) and tokens of earlier merges (below {N_BYTES + k}), each pair once. Pass "
                             "the pairs in the order they were learned.")
        seen.add((a, b))
    return pairs


# --- word2vec ---------------------------------------------------------------------------------------------------------

def word(value, name):
    """Role: one word of a vocabulary, a str (whether the vocabulary holds it is a KeyError of the lookup)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, one word of the vocabulary; received {_describe(value)}.")
    return value


def context_in_every_example(mask):
    empty = np.flatnonzero(~mask.any(axis=1))
    if empty.size:
        raise ValueError(f"mask has {empty.size} example(s) without a context word, the first at row {empty[0]}; "
                         "expected at least one true entry per row (the mean of no vectors is undefined).")


def negatives_only_with_noise(objective, negatives):
    if objective == "softmax" and negatives is not None:
        raise ValueError(f"negatives={negatives!r} is given but objective='softmax' uses every word of the "
                         "vocabulary, not noise words; leave negatives out, or use objective='negative'.")


# --- attributes that a method sets ------------------------------------------------------------------------------------

class SetBy:
    """Mixin: reading an attribute that training sets, before training ran, says which method to call.

    A subclass names them in ``_set_by``, {attribute: the call that sets it}. The error is an AttributeError (so that
    ``hasattr`` keeps working) with a message instead of Python's bare "has no attribute".
    """

    _set_by = {}

    def __getattr__(self, name):
        call = type(self)._set_by.get(name)
        if call is None:
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        raise AttributeError(f"this {type(self).__name__} has no {name} yet: it is set by {call}, which has not run "
                             f"on it. Call {call} first.")
