"""Valid examples for the input contract: ngram (unigram and bigram language models)."""

import numpy as np

from contract import Example
from implementations.language import ngram

IDS = np.array([0, 1, 2, 1, 0, 3])
V = 4

EXAMPLES = {
    "implementations.language.ngram.unigram_table": Example(
        build=lambda: (ngram.unigram_table, {"ids": IDS, "vocab_size": V, "delta": 1.0}),
        roles={"ids": f"ids:{V}", "vocab_size": "count", "delta": "rate"}),
    "implementations.language.ngram.bigram_table": Example(
        build=lambda: (ngram.bigram_table, {"ids": IDS, "vocab_size": V, "delta": 1.0}),
        roles={"ids": f"ids:{V}", "vocab_size": "count", "delta": "rate"}),
    "implementations.language.ngram.cross_entropy": Example(
        build=lambda: (ngram.cross_entropy, {"table": ngram.bigram_table(IDS, V), "ids": IDS}),
        roles={"table": "array:any-nd", "ids": f"ids:{V}"}),
}
