"""From-scratch NumPy implementations of *Machine Learning from scratch*, one folder per part of the book.

==================  ===============================================================================================
folder              what it holds, and where the book teaches it
==================  ===============================================================================================
``linear``          chapters 1–2: linear and ridge regression, basis functions, robust losses, the lasso;
                    logistic and softmax regression, the perceptron, Newton's method and Poisson regression
``kernel_methods``  chapter 3: kernels, kernel ridge regression, random Fourier features, support vector machines
``engine``          chapter 4: the automatic-differentiation engine (``Tensor``) and the losses built on it
``nn``              chapters 4–5 (and the layer norm of 7): modules, layers, convolution, normalization, optimizers
``sequence``        chapter 6: recurrent networks (RNN, LSTM, GRU) and backpropagation through time
``language``        chapters 7 and 10: text, word2vec, attention, transformers, encoder–decoders, decoding (7);
                    BPE, n-grams, the language model (10)
``unsupervised``    chapter 8: learning without labels, PCA and probabilistic PCA, k-means,
                    Gaussian mixtures fitted by EM and the lower bound that EM maximises
``generative``      chapter 9: GANs, variational autoencoders, diffusion, and the MMD that judges them
``evaluation``      chapters 1–2 and after: classification metrics, cross-validation, bias and variance
``preliminaries``   appendix A: finite-difference gradients and Jacobians, the check of every derivative
``data``            the data sets shipped with the book and the synthetic problems, splits and mini-batches
``numeric``         the numerically stable functions every part shares: sigmoid, softplus, softmax, one-hot, …
``notebook``        the book's helpers: plots, listings, printed claims, exercises and their checks
==================  ===============================================================================================

A notebook imports a module from its part, e.g. ``from implementations.linear import regression``.

Names of the first edition's flat layout (``from implementations import regression``) still work in this edition:
each one is an alias of its new home that warns once (``FutureWarning``) and says how to import it now.
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types
import warnings

# the first edition's flat module -> its home in this edition, then the modules its old namespace also drew from
_MOVED = {
    "attention": ("language.attention", "nn.normalization", "engine.autograd", "numeric"),
    "autograd": ("engine.autograd", "engine.functional"),
    "basis": ("linear.basis",),
    "bpe": ("language.bpe",),
    "conv": ("nn.conv", "engine.autograd"),
    "datasets": ("data.datasets",),
    "decoding": ("language.decoding",),
    "diffusion": ("generative.diffusion", "engine.autograd", "engine.functional", "nn.layers", "nn.module"),
    "exercise_checks": ("notebook.exercise_checks",),
    "exercises": ("notebook.exercises",),
    "functional": ("engine.functional", "engine.autograd"),
    "gan": ("generative.gan", "engine.autograd", "engine.functional", "nn.layers", "nn.module", "nn.optim"),
    "glm": ("linear.glm", "linear.regression"),
    "gradcheck": ("preliminaries.gradcheck",),
    "kernels": ("kernel_methods.kernels",),
    "language_model": ("language.language_model", "language.bpe", "language.transformer", "nn.optim"),
    "lasso": ("linear.lasso", "linear.regression"),
    "listing": ("notebook.listing",),
    "loader": ("data.loader",),
    "logistic": ("linear.logistic", "linear.perceptron", "linear.softmax_regression", "evaluation.metrics",
                 "linear.regression", "linear.descent", "numeric"),
    "metrics": ("evaluation.metrics",),
    "mmd": ("generative.mmd", "kernel_methods.kernels"),
    "model_selection": ("evaluation.model_selection",),
    "ngram": ("language.ngram",),
    "normalization": ("nn.normalization", "nn.module", "engine.autograd"),
    "optim": ("nn.optim", "engine.autograd"),
    "perceptron": ("linear.perceptron", "linear.regression"),
    "plotting": ("notebook.plotting", "notebook.style"),
    "preprocessing": ("data.preprocessing",),
    "regression": ("linear.regression", "linear.basis", "data.preprocessing", "linear.robust", "linear.descent"),
    "report": ("notebook.report",),
    "robust": ("linear.robust", "linear.regression"),
    "seq2seq": ("language.seq2seq", "language.attention", "sequence.recurrent", "nn.layers", "nn.module"),
    "softmax": ("linear.softmax_regression", "linear.regression", "linear.descent", "numeric"),
    "svm": ("kernel_methods.svm", "linear.regression"),
    "synthetic": ("data",),  # split by topic: synthetic, sequence_tasks, corpora; the data package gathers them
    "text": ("language.text", "language.word2vec", "language.bpe", "numeric"),
    "transformer": ("language.transformer", "language.attention", "nn.module", "nn.normalization", "nn.layers"),
    "vae": ("generative.vae", "engine.autograd", "engine.functional", "nn.layers", "nn.module"),
    "word2vec": ("language.word2vec", "language.text", "numeric"),
}


# first-edition names that this edition merged into one function: (old module, name) -> new home, dotted
_RENAMED = {
    ("logistic", "_sigmoid"): "numeric.sigmoid",
    ("logistic", "_sigmoid_from"): "numeric.sigmoid",
    # kernels (chapter 3): the primal's cost and subgradient in one private function, now the public subgradient
    ("svm", "_cost_and_subgradient"): "kernel_methods.svm.svm_primal_subgradient",
    # generative (chapter 9): the private feature function of the first edition is public now
    ("gan", "_with_minibatch_std"): "generative.gan.with_minibatch_std",
    # the linear part (chapters 1-2): the fused step of fit_logistic is its fast path, the counts a public step
    ("logistic", "_cost_and_gradient"): "linear._fused.logistic_cost_and_gradient",
    ("metrics", "_counts_at_thresholds"): "evaluation.metrics.counts_at_thresholds",
    # language (chapter 7): the unchecked twins of the attention functions, merged into them
    ("attention", "_scaled_dot_product_attention"): "language.attention.scaled_dot_product_attention",
    ("attention", "_multi_head_attention"): "language.attention.multi_head_attention",
}


class _OldName(types.ModuleType):
    """A first-edition module name: its attributes are looked up in the new homes, in order."""

    def __getattr__(self, name):
        old = self.__name__.rpartition(".")[2]
        if (old, name) in _RENAMED:
            home, _, new = _RENAMED[old, name].rpartition(".")
            return getattr(importlib.import_module(f"{__name__}.{home}"), new)
        for home in self.__homes__:
            module = importlib.import_module(f"{__name__}.{home}")
            if hasattr(module, name):
                return getattr(module, name)
        raise AttributeError(f"module {self.__name__!r} (now implementations.{self.__homes__[0]}) has no attribute "
                             f"{name!r}")

    def __dir__(self):
        return sorted({n for home in self.__homes__ for n in dir(importlib.import_module(f"{__name__}.{home}"))})


def moved_notice(old, new):
    """The warning for a first-edition name ``old`` now at ``new`` (dotted paths below ``implementations``)."""
    parent, _, leaf = new.rpartition(".")
    how = f"from implementations.{parent} import {leaf}" if parent else f"from implementations import {leaf}"
    return (f"implementations.{old} is now implementations.{new}: the package is arranged by part of the book. The "
            f"old name works in this edition only; import it as `{how}`.")


class first_edition_name:  # noqa: N801  (a descriptor, used like a function: _run = first_edition_name("_fast"))
    """A class attribute kept under its first-edition name for one edition: reading it warns, as the old module names
    do, and gives the attribute it became."""

    def __init__(self, new):
        self.new = new

    def __set_name__(self, owner, name):
        self.old, self.owner = name, owner.__name__

    def __get__(self, obj, objtype=None):
        warnings.warn(f"{self.owner}.{self.old} is now {self.owner}.{self.new}; the old name works in this edition "
                      "only.", FutureWarning, stacklevel=2)
        return getattr(objtype if obj is None else obj, self.new)


def _alias(old):
    """The module object for the first-edition name ``old``, made once; warns the first time."""
    full = f"{__name__}.{old}"
    if full not in sys.modules:
        warnings.warn(moved_notice(old, _MOVED[old][0]), FutureWarning, stacklevel=3)
        shim = _OldName(full, f"Alias of implementations.{_MOVED[old][0]} (first-edition name).")
        shim.__homes__ = _MOVED[old]
        sys.modules[full] = shim
    return sys.modules[full]


def __getattr__(name):  # from implementations import regression
    if name in _MOVED:
        return _alias(name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _OldNameFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """``import implementations.regression`` and ``from implementations.regression import predict``."""

    def find_spec(self, fullname, path, target=None):
        package, _, old = fullname.partition(".")
        if package == __name__ and old in _MOVED:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return _alias(spec.name.partition(".")[2])

    def exec_module(self, module):
        pass


if not any(isinstance(finder, _OldNameFinder) for finder in sys.meta_path):
    sys.meta_path.append(_OldNameFinder())
