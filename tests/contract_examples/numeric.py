"""Valid examples for the input contract: numeric, the stable kernels every part shares (sigmoid, softmax, …).

The cases are those the first edition registered for each function's old homes (logistic.sigmoid,
softmax.softmax and attention.softmax, softmax.one_hot and text.one_hot, text.cosine_similarity), gathered here.
"""

import math

import numpy as np

from contract import Example
from implementations import numeric

_rng = np.random.default_rng(0)
z = np.array([[-2.0, 0.5, 3.0], [0.0, -0.1, 30.0]])  # (2, 3) logits
Z = np.array([[1.0, -2.0, 0.5], [3.0, 3.0, -30.0]])  # (2, 3) logits
SCORES = _rng.normal(size=(4, 5))  # attention scores, any shape
y = np.array([0, 1, 2, 2, 1, 0, 1, 2, 0])  # (9,) labels 0, 1, 2
IDS = np.array([[2, 3], [4, 6]])  # token ids of a vocabulary of 7, any shape
A = _rng.normal(size=(3, 4))  # (n, d)
B = _rng.normal(size=(2, 4))  # (m, d)


def _elementwise(function):
    return Example(build=lambda: (function, {"z": z}), roles={"z": "array:any-nd"})


def _softmax_like(function):
    return Example(
        build=lambda: (function, {"Z": SCORES, "axis": -1}),
        roles={"Z": "array:any-nd"},
        extra=[("an axis the array does not have", {"axis": 2}, ()),
               ("an axis that is not an integer", {"axis": 1.0}, ()),
               ("a fractional axis", {"axis": 0.5}, ()), ("a string axis", {"axis": "rows"}, ()),
               ("a scalar Z (no class axis)", {"Z": 1.5}, ()),
               ("a row of -inf only", {"Z": np.full((4, 5), -math.inf)}, ()),
               ("-inf and NaN", {"Z": np.array([[-math.inf, math.nan, 1.0]])}, ()),
               ("+inf", {"Z": np.array([[math.inf, 0.0, 1.0]])}, ())],
        passthrough={"Z": "-inf entries get weight 0 (a mask applied by hand), as the docstring says"})


EXAMPLES = {
    "implementations.numeric.sigmoid": _elementwise(numeric.sigmoid),
    "implementations.numeric.log_sigmoid": _elementwise(numeric.log_sigmoid),
    "implementations.numeric.softplus": _elementwise(numeric.softplus),
    "implementations.numeric.softmax": _softmax_like(numeric.softmax),
    "implementations.numeric.log_softmax": _softmax_like(numeric.log_softmax),
    "implementations.numeric.one_hot": Example(
        build=lambda: (numeric.one_hot, {"y": y, "num_classes": 3}),
        roles={"y": "ids:3", "num_classes": "count"},  # labels of any shape: ids' variants (no "one more axis")
        extra=[("token ids of any shape, one of them too large", {"y": IDS, "num_classes": 5}, ()),
               ("a fractional id", {"y": np.array([[1.5, 2.0]]), "num_classes": 7}, ()),
               ("no ids", {"y": IDS[:0], "num_classes": 7}, ())]),
    "implementations.numeric.cosine_similarity": Example(
        build=lambda: (numeric.cosine_similarity, {"A": A, "B": B}),
        roles={"A": "array", "B": "array"},
        extra=[("vectors of another length", {"B": np.ones((2, 3))}, (ValueError,)),
               ("a zero vector", {"B": np.zeros((2, 4))}, (ValueError,)),
               ("a zero vector in A", {"A": np.zeros(4)}, (ValueError,))]),
}
