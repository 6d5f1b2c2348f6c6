"""Tests of implementations.language.bpe against a naive trainer and encoder written here, and a worked example by hand.
"""

import re

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from implementations.language.bpe import BPETokenizer, pretokenize

ENGLISH = (
    "The cat sat on the mat. The dog sat on the log, and the cat and the dog were friends.\n"
    "Then the other cats and the other dogs came; they sat together on the mats and the logs.\n\n"
    "It's a naïve café: they'll order crème brûlée, and the café's owner doesn't mind. 🙂🙂 👍🏽\n"
    "In 2024 there were 12 cats, 7 dogs and 3 mats — that's 22 things in all.   The end.\n"
)
TOKENIZER = BPETokenizer().train(ENGLISH, 356)  # 100 merges, some of them inside multi-byte characters


# --- naive references: every occurrence of every word, all pairs recounted at every step ------------------------

def merge_pair(ids, pair, new_id):
    """Replace each occurrence of pair in ids, left to right (written again here, as a loop over positions)."""
    out = []
    i = 0
    while i < len(ids):
        if ids[i : i + 2] == list(pair):
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out


def naive_train(training_text, n_merges):
    """Greedy BPE by recounting every pair of the whole text each step: (merges in order, the final tokens)."""
    words = [list(w.encode("utf-8")) for w in pretokenize(training_text)]  # every occurrence of every word
    merges = []
    for k in range(n_merges):
        counts = {}
        for ids in words:
            for i in range(len(ids) - 1):
                counts[ids[i], ids[i + 1]] = counts.get((ids[i], ids[i + 1]), 0) + 1
        if not counts:
            break
        top = max(counts.values())
        pair = min(p for p, c in counts.items() if c == top)  # the tie rule: the smallest pair
        words = [merge_pair(ids, pair, 256 + k) for ids in words]
        merges.append((pair, 256 + k))
    return merges, [i for ids in words for i in ids]


def naive_encode(s, merges):
    """Apply every learned merge, in the order learned, to each word's bytes."""
    out = []
    for word in pretokenize(s):
        ids = list(word.encode("utf-8"))
        for pair, new_id in merges:
            ids = merge_pair(ids, pair, new_id)
        out += ids
    return out


# --- the textbook example ---------------------------------------------------------------------------------------

def test_wikipedia_example_by_hand():
    # "aaabdaaabac": (a,a) occurs 4 times -> Z = 256.  Z a b d Z a b a c: (Z,a) and (a,b) both occur twice; the
    # smaller pair (97, 98) < (256, 97) wins -> Y = 257.  Z Y d Z Y a c: (Z,Y) twice -> X = 258.  X d X a c.
    # Then four pairs occur once each, taken smallest first: (a,c)=(97,99), (d,X)=(100,258), (X,dX), (XdX,ac).
    a, b, c, d = b"abcd"
    tok = BPETokenizer().train("aaabdaaabac", 263)
    assert list(tok.merges.items()) == [((a, a), 256), ((a, b), 257), ((256, 257), 258), ((a, c), 259),
                                        ((d, 258), 260), ((258, 260), 261), ((261, 259), 262)]
    assert [tok.vocab[i] for i in range(256, 263)] == [b"aa", b"ab", b"aaab", b"ac", b"daaab", b"aaabdaaab",
                                                       b"aaabdaaabac"]
    np.testing.assert_array_equal(BPETokenizer().train("aaabdaaabac", 259).encode("aaabdaaabac"), [258, d, 258, a, c])
    assert tok.encode("aaabdaaabac").tolist() == [262] and tok.vocab_size == 263
    with pytest.raises(ValueError, match=r"vocab_size=264 .* expected vocab_size <= 263"):
        BPETokenizer().train("aaabdaaabac", 264)  # one token: nothing left to merge


def test_overlapping_pairs_merge_left_to_right():
    # "aaaaa" has 4 overlapping (a,a); merging gives aa aa a; then (aa,aa) and (aa,a) occur once each and the smaller
    # pair (256, 97) wins -> aa aaa; then (aa,aaa).
    tok = BPETokenizer().train("aaaaa", 259)
    assert [tok.vocab[i] for i in tok.merges.values()] == [b"aa", b"aaa", b"aaaaa"]
    assert tok.encode("aaa").tolist() == [257] and tok.encode("aaaa").tolist() == [256, 256]


# --- training against the naive trainer -------------------------------------------------------------------------

@pytest.mark.parametrize("training_text", [
    "aaabdaaabac",
    "low lower lowest newer newest wider wide widest",  # Sennrich et al.'s kind of example
    "the the the, then; THE theme 1234 12 1 ... !!",
    ENGLISH,
    "ééé 🙂🙂🙂 日本語日本語 a\u0301a\u0301",  # merges inside and across multi-byte characters
])
def test_merges_equal_naive_recount(training_text):
    merges, tokens = naive_train(training_text, 10**6)  # until every word is a single token
    n_merges = len(merges)
    tok = BPETokenizer().train(training_text, 256 + n_merges)
    assert list(tok.merges.items()) == merges
    assert tok.encode(training_text).tolist() == tokens  # encoding the training text gives training's tokens
    rebuilt = BPETokenizer.from_merges([tuple(p) for p in tok.merges])  # encodes each word afresh, no cache from train
    assert rebuilt.encode(training_text).tolist() == tokens
    with pytest.raises(ValueError, match=f"expected vocab_size <= {256 + n_merges} for this text"):
        BPETokenizer().train(training_text, 256 + n_merges + 1)  # nothing left to merge


def test_learned_tokens_are_byte_strings_of_the_training_text():
    raw = ENGLISH.encode("utf-8")
    assert all(TOKENIZER.vocab[i] in raw and len(TOKENIZER.vocab[i]) >= 2 for i in range(256, 356))
    assert TOKENIZER.vocab_size == len(TOKENIZER.vocab) == 356
    learned = [TOKENIZER.vocab[i].decode("utf-8", errors="replace") for i in range(256, 356)]
    assert all(re.fullmatch(r"\s+| ?\S+", t) for t in learned)  # no merge crosses a word boundary
    assert " the" in learned and "the " not in learned


def test_more_merges_never_lengthen():
    other = "The dogs and the cats of the café sat in 2024."
    tokenizers = [BPETokenizer().train(ENGLISH, 256 + k) for k in range(41)]
    full = list(tokenizers[-1].merges.items())
    for k, tok in enumerate(tokenizers):
        assert list(tok.merges.items()) == full[:k]  # greedy: a smaller vocabulary learns a prefix of the merges
    lengths = np.array([len(tok.encode(ENGLISH)) for tok in tokenizers])
    assert lengths[0] == len(ENGLISH.encode("utf-8"))
    assert np.all(np.diff(lengths) < 0)  # every merge occurs at least once in the training text
    assert np.all(np.diff([len(tok.encode(other)) for tok in tokenizers]) <= 0)


# --- encoding and decoding ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", [0, 1, 2])
def test_encode_equals_naive_encoder_on_random_strings(seed):
    rng = np.random.default_rng(seed)
    alphabet = sorted(set(ENGLISH)) + ["ü", "€", "🎉", "\t", "_", "'"]
    merges = list(TOKENIZER.merges.items())
    for _ in range(100):
        s = "".join(rng.choice(alphabet, size=rng.integers(0, 40)))
        ids = TOKENIZER.encode(s)
        assert ids.dtype == np.int64 and ids.ndim == 1
        assert ids.tolist() == naive_encode(s, merges)
    words = [ENGLISH[i : i + rng.integers(1, 30)] for i in rng.integers(0, len(ENGLISH), size=50)]
    for s in words:  # pieces of the training text, where many merges apply
        assert TOKENIZER.encode(s).tolist() == naive_encode(s, merges)


@settings(max_examples=300, deadline=None)
@given(s=st.text() | st.text(alphabet=st.sampled_from(sorted(set(ENGLISH))) | st.characters(codec="utf-8")))
@example(s="")
@example(s="naïve café 🙂👍🏽 crème brûlée")
@example(s="\x00\x01\x7f\t\r\n\x1b[0m\u200b\ufeff")
@example(s="日本語のテキスト, Ελληνικά, עברית, a\u0301")
@example(s="\U0010ffff\U0001f600 " * 3)
def test_round_trip_is_exact_for_any_text(s):
    ids = TOKENIZER.encode(s)
    assert TOKENIZER.decode(ids) == s
    assert TOKENIZER.decode(ids.tolist()) == s
    assert b"".join(TOKENIZER.vocab[i] for i in ids.tolist()) == s.encode("utf-8")
    assert "".join(pretokenize(s)) == s


def test_decode_of_arbitrary_ids_replaces_broken_characters():
    e_acute = "é".encode()  # b"\xc3\xa9"
    assert TOKENIZER.decode([e_acute[0], e_acute[1]]) == "é"
    assert TOKENIZER.decode([e_acute[0]]) == "\ufffd"  # half a character: U+FFFD
    assert TOKENIZER.decode([104, e_acute[1], 105]) == "h\ufffdi"
    assert TOKENIZER.decode(np.array([], dtype=np.int64)) == "" and TOKENIZER.decode([]) == ""
    assert TOKENIZER.token_strings([104, e_acute[0]]) == ["h", "\\xc3"]
    ids = TOKENIZER.encode(" the cat")
    assert "".join(TOKENIZER.token_strings(ids)) == " the cat" and len(ids) < len(" the cat")


@pytest.mark.parametrize("s, words", [
    ("Hello world, it's 2024!", ["Hello", " world", ",", " it", "'s", " 2024", "!"]),
    ("a  b\n\nc", ["a", " ", " b", "\n", "\n", "c"]),  # the last space before a word goes with the word
    ("snake_case x2 ... they'll", ["snake", "_", "case", " x", "2", " ...", " they", "'ll"]),
    ("  trailing  ", [" ", " trailing", "  "]),
    ("", []),
])
def test_pretokenize_by_hand(s, words):
    assert pretokenize(s) == words


# --- bad input ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("vocab_size, error, fragment", [
    (255, ValueError, "vocab_size must be an integer >= 256.*received 255"),
    (2.5, TypeError, "vocab_size must be an integer >= 256.*received float 2.5"),
    ("300", TypeError, "vocab_size must be an integer >= 256.*received the string '300'"),
    (True, TypeError, "vocab_size must be an integer >= 256.*received bool"),
    (10_000, ValueError, "vocab_size=10000 asks for 9744 merges"),
])
def test_train_refuses_bad_vocab_size(vocab_size, error, fragment):
    with pytest.raises(error, match=fragment):
        BPETokenizer().train(ENGLISH, vocab_size)


@pytest.mark.parametrize("bad, error, fragment", [
    (42, TypeError, "text must be a str; received int 42"),
    (b"bytes", TypeError, r"text must be a str; received the string b'bytes'. Decode it first"),
    (["a", "b"], TypeError, r"text must be a str; received a list of length 2. Pass one text at a time; join"),
    ("ok \ud800", ValueError, "text holds a lone surrogate '\\\\ud800' at index 3"),
])
def test_text_must_be_a_str(bad, error, fragment):
    for call in (lambda t: BPETokenizer().train(t, 300), TOKENIZER.encode, pretokenize):
        with pytest.raises(error, match=fragment):
            call(bad)


@pytest.mark.parametrize("bad, error, fragment", [
    ([1.5], ValueError, r"ids must hold token ids 0, …, 355 .* values 1.5"),
    ([-1], ValueError, r"ids must hold token ids 0, …, 355 .* values -1"),
    ([356], ValueError, r"ids must hold token ids 0, …, 355 .* values 356"),
    ("abc", TypeError, "ids must be a numeric array; received the string 'abc'"),
    ([[1, 2]], ValueError, r"ids must be a 1-D array of token ids; received shape \(1, 2\)"),
    ([1, None], TypeError, "ids must be a numeric array"),
])
def test_ids_must_be_token_ids(bad, error, fragment):
    for call in (TOKENIZER.decode, TOKENIZER.token_strings):
        with pytest.raises(error, match=fragment):
            call(bad)


def test_untrained_tokenizer_refuses_to_encode_or_decode():
    tok = BPETokenizer()
    with pytest.raises(ValueError, match="encode was called before train"):
        tok.encode("abc")
    with pytest.raises(ValueError, match="decode was called before train"):
        tok.decode([97])
    with pytest.raises(ValueError, match="token_strings was called before train"):
        tok.token_strings([97])


@pytest.mark.parametrize("vocab_size", [256, 261, 280, 300])
def test_truncated_equals_training_with_the_smaller_vocabulary(vocab_size):
    text = "the cat sat on the mat; the cats ate the rats. " * 3 + "naïve café, a zebra's zigzag 🙂 " * 2
    big = BPETokenizer().train(text, 300)
    small = big.truncated(vocab_size)
    trained = BPETokenizer().train(text, vocab_size)
    assert small.merges == trained.merges and small.vocab == trained.vocab
    assert small.vocab_size == vocab_size
    np.testing.assert_array_equal(small.encode(text), trained.encode(text))
    assert small.decode(small.encode(text)) == text


def test_truncated_refuses_to_grow():
    tok = BPETokenizer().train("the cat sat on the mat", 260)
    with pytest.raises(ValueError, match="at most this tokenizer's vocab_size, 260"):
        tok.truncated(261)


def test_from_merges_rebuilds_the_trained_tokenizer():
    text = "the cat sat on the mat; the cats ate the rats. naïve café 🙂 " * 2
    tok = BPETokenizer().train(text, 285)
    again = BPETokenizer.from_merges([pair for pair in tok.merges])
    assert again.merges == tok.merges and again.vocab == tok.vocab
    np.testing.assert_array_equal(again.encode(text), tok.encode(text))
    assert BPETokenizer.from_merges(np.zeros((0, 2), dtype=int)).vocab_size == 256


@pytest.mark.parametrize("pairs, message", [
    ([(97, 256)], "cannot be merge 0"),  # refers to a token not yet made
    ([(97, 98), (97, 98)], "cannot be merge 1"),  # the same pair twice
    ([97, 98], r"shape \(M, 2\)"),
])
def test_from_merges_refuses_impossible_orders(pairs, message):
    with pytest.raises(ValueError, match=message):
        BPETokenizer.from_merges(pairs)


def test_an_untrained_tokenizers_attributes_say_to_call_train():
    tok = BPETokenizer()
    for name in ("merges", "vocab", "vocab_size"):
        with pytest.raises(AttributeError, match=rf"this BPETokenizer has no {name} yet: it is set by train"):
            getattr(tok, name)
    with pytest.raises(ValueError, match="truncated was called before train"):
        tok.truncated(256)
