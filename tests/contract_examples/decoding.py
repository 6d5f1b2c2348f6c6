"""Valid examples for the input contract: decoding (greedy decoding and beam search of a sequence model)."""

import numpy as np

from contract import Example
from implementations.language import decoding

# tokens: 0 start, 1 "a", 2 "b", 3 eos; a bigram model where greedy decoding and beam search disagree
TABLE = np.array([[0.0, 0.6, 0.4, 0.0],
                  [0.0, 0.3, 0.3, 0.4],
                  [0.0, 0.0, 0.1, 0.9],
                  [0.0, 0.0, 0.0, 1.0]])
V = 4
LOGITS = np.array([1.0, 2.0, 0.5, 0.0])


def model(prefixes):
    return decoding.ngram_log_probs_fn(TABLE)(prefixes)


# log_probs_fn's faults: each is reported naming log_probs_fn and what it returned
_MODEL_EXTRAS = [
    ("log_probs_fn not callable", {"log_probs_fn": TABLE}, ()),
    ("log_probs_fn returning one row for the whole batch", {"log_probs_fn": lambda p: np.log(TABLE[0])}, ()),
    ("log_probs_fn returning one row too many", {"log_probs_fn": lambda p: np.zeros((len(p) + 1, V))}, ()),
    ("log_probs_fn changing V between steps",
     {"log_probs_fn": lambda p: np.full((len(p), V + p.shape[1]), -np.log(V + p.shape[1]))}, ()),
    ("log_probs_fn returning NaN", {"log_probs_fn": lambda p: np.full((len(p), V), np.nan)}, ()),
    ("log_probs_fn returning +inf", {"log_probs_fn": lambda p: np.tile([np.inf, 0, 0, 0], (len(p), 1))}, ()),
    ("log_probs_fn returning logits", {"log_probs_fn": lambda p: np.tile(LOGITS, (len(p), 1))}, ()),
    ("log_probs_fn returning a row of -inf", {"log_probs_fn": lambda p: np.full((len(p), V), -np.inf)}, ()),
    ("log_probs_fn returning None", {"log_probs_fn": lambda p: None}, ()),
    ("log_probs_fn returning a string", {"log_probs_fn": lambda p: "log-probabilities"}, ()),
    ("start_id beyond the vocabulary", {"start_id": V}, ()),
    ("start_id a float", {"start_id": 0.0}, ()),
    ("start_id a bool", {"start_id": False}, ()),
    ("eos_id beyond the vocabulary", {"eos_id": V}, ()),
    ("eos_id a float", {"eos_id": 3.0}, ()),
]
_TOKEN_ROLES = {"start_id": "count0", "eos_id": "count0", "max_len": "count"}

EXAMPLES = {
    "implementations.language.decoding.greedy_decode": Example(
        build=lambda: (decoding.greedy_decode, {"log_probs_fn": model, "start_id": 0, "max_len": 5, "eos_id": 3}),
        roles=_TOKEN_ROLES,
        extra=_MODEL_EXTRAS),
    "implementations.language.decoding.beam_search": Example(
        build=lambda: (decoding.beam_search, {"log_probs_fn": model, "start_id": 0, "beam_width": 2, "max_len": 5,
                                              "eos_id": 3, "length_penalty": 0.6}),
        roles={**_TOKEN_ROLES, "beam_width": "count", "length_penalty": "penalty"},
        extra=_MODEL_EXTRAS),
    "implementations.language.decoding.ngram_log_probs_fn": Example(
        build=lambda: (decoding.ngram_log_probs_fn, {"table": TABLE}),
        roles={"table": "array"},
        extra=[("a vector", {"table": TABLE[0]}, ()),
               ("a table that is not square", {"table": TABLE[:3]}, ()),
               ("a negative probability", {"table": TABLE - 0.1}, ()),
               ("slices that do not sum to 1", {"table": 2 * TABLE}, ()),
               ("a table of strings", {"table": [["a", "b"], ["c", "d"]]}, ())]),
}
