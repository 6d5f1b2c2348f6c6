"""Give every entry of the API reference a link back to the chapter that teaches it.

Each module of ``implementations`` belongs to one chapter (``CHAPTER_OF``); when autodoc renders a function
or class of that module, a last line "Taught in: <chapter>" is appended to its docstring. The helpers used
throughout the book (the ``HELPERS`` parts: data sets, plots, gradient and exercise checks, printed claims,
listings) belong to no single chapter: each of their functions links to the first chapter whose code calls it.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

import json
import re
import warnings
from functools import cache
from pathlib import Path

from sphinx.application import Sphinx

# The book's helpers, used throughout: each of their functions links to the first chapter whose code calls it.
HELPERS = ("data", "notebook", "preliminaries", "numeric")

CHAPTERS = {
    1: "notebooks/01_linear_regression",
    2: "notebooks/02_logistic_regression",
    3: "notebooks/03_kernel_methods",
    4: "notebooks/04_neural_networks",
    5: "notebooks/05_convolutional_networks",
    6: "notebooks/06_sequence_models",
    7: "notebooks/07_transformers",
    8: "notebooks/08_learning_without_labels",
    9: "notebooks/09_generative_models",
    10: "notebooks/10_language_models",
}
CHAPTER_OF = {  # the home chapter of each module, by its path below implementations
    **dict.fromkeys(["linear.regression", "linear.basis", "linear.robust", "linear.lasso", "linear.descent",
                     "evaluation.model_selection"], 1),
    **dict.fromkeys(["linear.logistic", "linear.softmax_regression", "linear.perceptron", "linear.glm",
                     "evaluation.metrics"], 2),
    **dict.fromkeys(["kernel_methods.kernels", "kernel_methods.svm"], 3),
    **dict.fromkeys(["engine.autograd", "engine.functional", "nn.module", "nn.layers", "nn.optim"], 4),
    **dict.fromkeys(["nn.conv", "nn.normalization", "nn.convnets"], 5),
    **dict.fromkeys(["sequence.recurrent"], 6),
    **dict.fromkeys(["language.text", "language.word2vec", "language.seq2seq", "language.seq2seq_transformer",
                     "language.decoding",
                     "language.attention", "language.transformer"], 7),
    **dict.fromkeys(["unsupervised.pca", "unsupervised.kmeans", "unsupervised.mixture"], 8),
    **dict.fromkeys(["generative.gan", "generative.vae", "generative.diffusion", "generative.mmd"], 9),
    **dict.fromkeys(["language.bpe", "language.ngram", "language.language_model"], 10),
}


@cache
def _chapter_code(srcdir: str) -> dict[int, str]:
    """The code cells of every chapter, joined, to find where a helper is first used."""
    code = {}
    for chapter, doc in CHAPTERS.items():
        nb = json.loads((Path(srcdir) / f"{doc}.ipynb").read_text(encoding="utf-8"))
        code[chapter] = "\n".join("".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code")
    return code


def add_backlink(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    if what not in ("function", "class") or not name.startswith("implementations."):
        return
    short = name.split(".")[-1]
    module = ".".join(getattr(obj, "__module__", name).split(".")[1:])
    if module.split(".")[0] in HELPERS:
        uses = [c for c, code in _chapter_code(str(app.srcdir)).items() if re.search(rf"\b{short}\b", code)]
        if uses:
            lines += ["", f"Used first in: :doc:`/{CHAPTERS[uses[0]]}`."]
        return
    chapter = CHAPTER_OF.get(module)
    if chapter in CHAPTERS:  # a chapter still being written has no page to link to
        lines += ["", f"Taught in: :doc:`/{CHAPTERS[chapter]}`."]


def setup(app: Sphinx) -> dict:
    # Autodoc looks at every attribute of a class, the first-edition names kept for one edition too
    # (``Tensor._topological_order``); each read warns a reader's code, but the book leaves them out anyway.
    warnings.filterwarnings("ignore", message=r".* is now .*the old name works in this edition only",
                            category=FutureWarning)
    app.connect("autodoc-process-docstring", add_backlink)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
