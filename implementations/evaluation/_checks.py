"""The checks of the evaluation functions (metrics, cross-validation) that no role string describes, each once.

Roles of their own, ``check(value, name) -> value`` (a function given by the caller, whose results are checked), and
checks of several arguments, named in ``also=``. Each raises ``ValueError`` or ``TypeError`` naming the argument, what
was received, what was expected and how to fix it.
"""

import math
import numbers

import numpy as np

from .. import _validation as V


def fit_function(fit, name):
    """A function fit(X_train, y_train) -> model given by the caller."""
    return V.check_callable(fit, name, what="a function fit(X_train, y_train) -> model")


def score_function(score, name):
    """A function score(model, X_val, y_val) -> float given by the caller: each score it returns is checked."""
    score = V.check_callable(score, name, what="a function score(model, X_val, y_val) -> float")
    folds = [0]

    def checked_score(model, X, y):
        s = score(model, X, y)
        if isinstance(s, np.ndarray) and s.size == 1:
            s = s.item()  # a 0-d or one-entry array counts as its number
        if isinstance(s, bool) or not isinstance(s, numbers.Real) or not math.isfinite(s):
            raise ValueError(f"{name} returned {s!r} on fold {folds[0]}; expected one finite number. Make {name} "
                             "return a float, e.g. score=lambda w, X, y: float(np.mean((y - regression.predict(X, w)) "
                             "** 2)).")
        folds[0] += 1
        return float(s)

    return checked_score


def right_or_wrong(correct, name):
    """Per test example, whether a classifier is right: a non-empty 1-D array of booleans (or 0 and 1)."""
    correct = V.as_array(correct, name, dtype=None)
    if correct.ndim != 1 or correct.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D array, one entry per test example; received shape "
                         f"{correct.shape}.")
    if correct.dtype != bool:
        if correct.dtype.kind not in "iuf" or not np.isin(correct, (0, 1)).all():
            raise ValueError(f"{name} must hold True/False (or 1/0) for right/wrong; received values other than 0 "
                             "and 1. Pass predictions == labels.")
        correct = correct.astype(bool)
    return correct


def fold_count(k, n=None, X=None):
    """k folds of n examples (or of the rows of X): 2 <= k <= n."""
    n = X.shape[0] if X is not None else n
    if not 2 <= k <= n:
        raise ValueError(f"k must be between 2 and n={n}; received k={k}. Each of the k folds is validated once on a "
                         "model trained on the others, so k = 1 leaves no training data and k > n leaves a fold "
                         "empty.")


def rng_if_shuffled(rng, shuffle):
    """Shuffled folds are drawn from a generator passed in; rng may be None only with shuffle=False."""
    if shuffle:
        V.check_rng(rng)


def several_training_sets(predictions):
    """A variance over training sets needs at least two of them: two columns of predictions."""
    if predictions.shape[1] < 2:
        raise ValueError(f"predictions has {predictions.shape[1]} column; expected one column per training set, "
                         "at least 2, since a variance over training sets needs more than one of them.")


def has_positive(y_true):
    """At least one positive example: recall (the TPR) divides by their number."""
    if not y_true.any():
        raise ValueError(f"y_true has no positive example (label 1) among its {y_true.size} labels; expected at "
                         "least one: the true-positive rate (recall) divides by the number of positives. Evaluate "
                         "on a sample that contains both classes (e.g. a stratified split).")


def has_both_classes(y_true):
    """Positive and negative examples: the TPR divides by the positives, the FPR by the negatives."""
    has_positive(y_true)
    if y_true.all():
        raise ValueError(f"y_true has no negative example (label 0) among its {y_true.size} labels; expected at "
                         "least one: the false-positive rate divides by the number of negatives. Evaluate on a "
                         "sample that contains both classes (e.g. a stratified split).")


def probabilities(p):
    """Predicted probabilities of class 1, each in [0, 1]."""
    outside = np.flatnonzero((p < 0) | (p > 1))
    if outside.size:
        raise ValueError(f"p must hold probabilities in [0, 1]; received {outside.size} entries outside, the first "
                         f"p[{outside[0]}] = {p[outside[0]]:g}. Pass the predicted probability of class 1 "
                         "(e.g. sigmoid of the logit), not a raw score.")


def monotonic_points(x):
    """At least 2 points, x monotonic (non-decreasing or non-increasing): the trapezoids then tile the area."""
    if x.size < 2:
        raise ValueError(f"x has {x.size} point(s); expected at least 2 to enclose an area.")
    dx = np.diff(x)
    if np.any(dx < 0) and np.any(dx > 0):
        direction = np.sign(dx[dx != 0][0])  # set by the first step that moves
        k = int(np.flatnonzero(np.sign(dx) == -direction)[0])  # the first step against it
        raise ValueError(f"x must be monotonic (non-decreasing or non-increasing); received x[{k}] = {x[k]:g} "
                         f"followed by x[{k + 1}] = {x[k + 1]:g}, against the direction of the points before. Sort "
                         "the points by x first: order = np.argsort(x, kind='stable'); auc(x[order], y[order]).")


def some_cost(c_fp, c_fn):
    """At least one of the two costs of a mistake is positive."""
    if c_fp + c_fn == 0:
        raise ValueError("c_fp and c_fn are both 0; expected at least one positive cost (with no cost at all every "
                         "threshold is optimal). Give the costs of a false positive and a false negative.")


def same_examples(correct_a, correct_b):
    """Two classifiers scored on the same test examples: one entry each per example."""
    if correct_b.size != correct_a.size:
        raise ValueError(f"correct_b has {correct_b.size} entries but correct_a has {correct_a.size}; both must "
                         "score the same test examples, in the same order.")
