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

KN = ngram.kneser_ney_counts(IDS, V, 3)
EXAMPLES.update({
    "implementations.language.ngram.kneser_ney_counts": Example(
        build=lambda: (ngram.kneser_ney_counts, {"ids": IDS, "vocab_size": V, "order": 3}),
        roles={"ids": f"ids:{V}", "vocab_size": "count", "order": "count"}),
    "implementations.language.ngram.kneser_ney_probs": Example(
        build=lambda: (ngram.kneser_ney_probs, {"counts": KN, "contexts": np.array([[0, 1], [-1, 2]]),
                                                "tokens": np.array([2, 3]), "discount": 0.75}),
        roles={"tokens": f"ids:{V}"}),
    "implementations.language.ngram.kneser_ney_contexts": Example(
        build=lambda: (ngram.kneser_ney_contexts, {"counts": KN, "ids": IDS, "start": 1}),
        roles={"ids": f"ids:{V}", "start": "count"}),
    "implementations.language.ngram.fit_kneser_ney_discount": Example(
        build=lambda: (ngram.fit_kneser_ney_discount, {"counts": KN, "ids": IDS, "start": 1}),
        roles={"ids": f"ids:{V}", "start": "count"}),
})
