"""Give every entry of the API reference a link back to the chapter that teaches it.

Each module of ``implementations`` belongs to one chapter (``CHAPTER_OF``); when autodoc renders a function,
class or method of that module, a last line "Taught in: <chapter>" is appended to its docstring.

Registered in ``_config.yml`` under ``sphinx.local_extensions``.
"""

from __future__ import annotations

from sphinx.application import Sphinx

CHAPTERS = {
    1: "notebooks/01_linear_regression",
    2: "notebooks/02_logistic_regression",
    3: "notebooks/03_neural_networks",
    4: "notebooks/04_sequence_models",
    5: "notebooks/05_transformers",
}
CHAPTER_OF = {
    **dict.fromkeys(["regression", "basis", "preprocessing", "robust", "gradcheck", "exercises", "data",
                     "plotting"], 1),
    **dict.fromkeys(["logistic", "softmax", "perceptron", "metrics"], 2),
    **dict.fromkeys(["autograd", "functional", "nn", "optim", "conv"], 3),
    "sequence": 4,
    **dict.fromkeys(["text", "attention", "transformer"], 5),
}


def add_backlink(app: Sphinx, what: str, name: str, obj, options, lines: list[str]) -> None:
    if what not in ("function", "class", "method") or not name.startswith("implementations."):
        return
    chapter = CHAPTER_OF.get(name.split(".")[1])
    if chapter is not None:
        lines += ["", f"Taught in: :doc:`/{CHAPTERS[chapter]}`."]


def setup(app: Sphinx) -> dict:
    app.connect("autodoc-process-docstring", add_backlink)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
