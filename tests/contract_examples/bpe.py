"""Valid examples for the input contract: bpe (byte-pair encoding, a tokenizer learned from text)."""

import numpy as np

from contract import Example
from implementations.language import bpe

TEXT = "the cat sat on the mat; the cat ate the rat. naïve café 🙂"
VOCAB_SIZE = 270  # 14 merges: fewer than TEXT allows
IDS = np.array([116, 104, 256, 257])

# The ids of decode and token_strings get the bad variants of the role "ids" by hand, without "no rows": the empty
# sequence is valid (it is the encoding of the empty string).
_BAD_IDS = [("a string", {"ids": "not ids"}, (TypeError,)),
            ("a fractional id 1.5", {"ids": [116, 1.5]}, (ValueError,)),
            (f"an id {VOCAB_SIZE}", {"ids": [116, VOCAB_SIZE]}, (ValueError,)),
            ("an id -1", {"ids": [-1, 116]}, (ValueError,)),
            ("a NaN id", {"ids": [116.0, np.nan]}, (ValueError,)),
            ("one dimension more", {"ids": IDS[None]}, (ValueError,)),
            ("a ragged nested list", {"ids": [[1, 2], [3]]}, (ValueError,)),
            ("None among the ids", {"ids": [1, None]}, (TypeError,))]
_BAD_TEXT = [("a number", {"text": 42}, (TypeError,)),
             ("bytes", {"text": b"the cat"}, (TypeError,)),
             ("a list of strings", {"text": ["the", "cat"]}, (TypeError,)),
             ("None", {"text": None}, (TypeError,)),
             ("a lone surrogate", {"text": "the \ud800 cat"}, (ValueError,))]


def _trained():
    return bpe.BPETokenizer().train(TEXT, VOCAB_SIZE)


EXAMPLES = {
    "implementations.language.bpe.pretokenize": Example(
        build=lambda: (bpe.pretokenize, {"text": TEXT}),
        extra=_BAD_TEXT),
    "implementations.language.bpe.BPETokenizer": Example(
        build=lambda: (bpe.BPETokenizer, {})),
    "implementations.language.bpe.BPETokenizer.train": Example(
        build=lambda: (bpe.BPETokenizer().train, {"text": TEXT, "vocab_size": VOCAB_SIZE}),
        roles={"vocab_size": "count"},
        extra=[*_BAD_TEXT,
               ("below the 256 bytes", {"vocab_size": 255}, (ValueError,)),
               ("True", {"vocab_size": True}, (TypeError,)),
               ("more merges than the text allows", {"vocab_size": 10_000}, (ValueError,))]),
    "implementations.language.bpe.BPETokenizer.encode": Example(
        build=lambda: (_trained().encode, {"text": TEXT}),
        extra=_BAD_TEXT),
    "implementations.language.bpe.BPETokenizer.from_merges": Example(
        build=lambda: (bpe.BPETokenizer.from_merges, {"pairs": [(116, 104), (256, 101)]}),
        extra=[("a string", {"pairs": "th"}, (TypeError, ValueError)),
               ("a NaN id", {"pairs": [(116.0, np.nan)]}, (ValueError,)),
               ("an id -1", {"pairs": [(-1, 104)]}, (ValueError,)),
               ("one pair, flat", {"pairs": [116, 104]}, (ValueError,))]),
    "implementations.language.bpe.BPETokenizer.truncated": Example(
        build=lambda: (_trained().truncated, {"vocab_size": 260}),
        roles={"vocab_size": "count"},
        extra=[("below the 256 bytes", {"vocab_size": 255}, (ValueError,)),
               ("more than the tokenizer has", {"vocab_size": VOCAB_SIZE + 1}, (ValueError,)),
               ("True", {"vocab_size": True}, (TypeError,))]),
    "implementations.language.bpe.BPETokenizer.decode": Example(
        build=lambda: (_trained().decode, {"ids": IDS}),
        extra=_BAD_IDS),
    "implementations.language.bpe.BPETokenizer.token_strings": Example(
        build=lambda: (_trained().token_strings, {"ids": IDS}),
        extra=_BAD_IDS),
}
