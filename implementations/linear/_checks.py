"""The checks of chapters 1 and 2 that no role of ``implementations._contract`` describes, each once.

Three kinds, all raising ``ValueError`` (or ``TypeError``) with a message that names the argument, says what was
received and what was expected, and how to fix it:

* roles of their own, ``check(value, name) -> value``, for an argument no role string describes (a single input
  column, a probability strictly between 0 and 1, a function whose results must be checked);
* checks of several arguments, named in ``also=`` (labels below the number of columns of a weight matrix, a fold
  count that fits the data);
* the guards of the training loops (a cost that rose, weights that overflowed, a singular Hessian), called in the
  loops: they are not input checks, so a listing may show the call.

Used by :mod:`implementations.linear`, :mod:`implementations.evaluation` and :mod:`implementations.data.preprocessing`.
"""

import math
import numbers

import numpy as np

from .. import _validation as V

# --- roles of their own -----------------------------------------------------------------------------------------------


def single_input(x, name):
    """One input per example, shape (N,) or (N, 1), N >= 1, finite: returned as a float64 array of shape (N,)."""
    x = V.as_array(x, name)  # a string or a ragged list is refused by name
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim != 1:
        raise ValueError(f"{name} must have shape (N,) or (N, 1), one input per example; received shape {x.shape}. "
                         "A basis expands a single input: pass one column, e.g. X[:, 0].")
    return V.as_finite_array(x, name, ndim=1, allow_empty=False)


def open_probability(value, name):
    """A number strictly between 0 and 1 (a decision threshold, a test fraction): 0 and 1 leave one side empty."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 < value < 1:
        raise ValueError(f"{name} must be a number strictly between 0 and 1; received {value!r}.")
    return float(value)


def class_count(value, name):
    """The number of classes K: an integer >= 2."""
    K = V.check_positive_int(value, name)
    if K < 2:
        raise ValueError(f"{name} must be at least 2; received {K}. One class leaves nothing to tell apart.")
    return K


def newton_function(function, name):
    """A function w -> (gradient (P,), Hessian (P, P)) given by the caller: each of its results is checked."""
    function = V.check_callable(function, name, what="a function w -> (gradient, Hessian)")
    steps = [0]

    def checked_function(w):
        steps[0] += 1
        result = function(w)
        if not isinstance(result, tuple) or len(result) != 2:
            raise ValueError(f"{name} must return a pair (gradient, Hessian); received {type(result).__name__}. "
                             "End it with `return grad, H`.")
        grad, H = (np.asarray(part, dtype=np.float64) for part in result)
        P = w.shape[0]
        if grad.shape != (P,) or H.shape != (P, P):
            raise ValueError(f"{name} returned a gradient of shape {grad.shape} and a Hessian of shape {H.shape}; "
                             f"expected ({P},) and ({P}, {P}) for weights of shape ({P},).")
        stop_if_singular(grad, H, step=steps[0], source=f" from {name}")
        return grad, H

    return checked_function


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


# --- checks of several arguments (also=) ------------------------------------------------------------------------------


def class_columns(W):
    """A weight matrix of softmax regression has one column per class, K >= 2 of them."""
    if W.shape[1] < 2:
        raise ValueError(f"W has shape {W.shape}; expected ({W.shape[0]}, K) with K >= 2 classes: row 0 holds the "
                         "biases, column k the weights of class k.")


def labels_of_the_classes(W, y):
    """Labels 0, …, K − 1 for the K >= 2 columns of W."""
    class_columns(W)
    V.check_labels(y, "y", num_classes=W.shape[1])


def sample_weights(sample_weight):
    """Weights v⁽ⁱ⁾ >= 0 of the examples, not all 0."""
    negative = np.flatnonzero(sample_weight < 0)
    if negative.size:
        first = negative[0]
        raise ValueError(f"sample_weight must hold weights >= 0; received {negative.size} negative one(s), the first "
                         f"sample_weight[{first}] = {sample_weight[first]:g}. A weight says how many times an example "
                         "counts: use 0 to leave an example out.")
    if not sample_weight.sum() > 0:
        raise ValueError("sample_weight is 0 for every example; expected at least one positive weight (with none, "
                         "no example counts). Pass np.ones(N) for the unweighted fit.")


def nonzero_weights(w):
    """A weight vector that defines a hyperplane: not all zero."""
    if not np.any(w):
        raise ValueError("w is the zero vector, which defines no hyperplane; expected a non-zero weight vector "
                         "such as the perceptron's or logistic regression's.")


def counts(y):
    """Targets of Poisson regression: counts >= 0."""
    if (y < 0).any():
        raise ValueError(f"y must hold counts >= 0; received {int((y < 0).sum())} negative entries, the smallest "
                         f"{y.min():g}. Poisson regression models non-negative counts.")


def some_positive_count(y):
    """At least one count above 0: with none, the maximum-likelihood mean count is 0 and its log is −∞."""
    if not y.any():
        raise ValueError("every count in y is 0: the maximum-likelihood mean count is 0, so the bias would be "
                         "log 0 = -inf and no finite weights fit. Poisson regression needs some positive counts.")


def full_column_rank(X, l2):
    """Without a penalty, the columns of [1 | X] must be independent, or the cost has no unique minimum."""
    if l2 > 0.0:
        return
    Phi = np.column_stack([np.ones(X.shape[0]), X])  # (N, m + 1)
    rank = np.linalg.matrix_rank(Phi)
    if rank < Phi.shape[1]:  # then H = Φᵀdiag(μ)Φ/N is singular for every w
        raise ValueError(
            f"the columns of the design matrix [1 | X] are linearly dependent (rank {rank} of {Phi.shape[1]}: a "
            "constant or duplicated feature, or fewer examples than weights), so the cost has no unique minimum. "
            "Drop the redundant features or pass l2 > 0.")


def nonnegative_entries(l1s):
    """Penalty strengths λ₁ >= 0."""
    negative = l1s[l1s < 0]
    if negative.size:
        raise ValueError(f"l1s must hold penalties >= 0; received {negative.size} negative value(s), the first "
                         f"{negative[0]:g}. Use e.g. l1s=l1_max(X, y) * np.logspace(0, -3, 30).")


def positive_std(std, X=None):
    """Standard deviations > 0, each divides a column: a given ``std``, or (``std`` None) those of X's columns."""
    if std is not None:
        cols = np.flatnonzero(std <= 0).tolist()
        if cols:
            raise ValueError(f"std has the value(s) {std[cols].tolist()} at position(s) {cols}; expected standard "
                             "deviations > 0. Pass the std returned by standardize (which refuses a constant "
                             "column: drop it first).")
    elif X is not None:
        s = X.std(axis=0)  # (m,)
        cols = np.flatnonzero(s <= 0).tolist()
        if cols:
            raise ValueError(f"column(s) {cols} of X have standard deviation {s[cols].tolist()}; expected > 0. "
                             "A constant feature carries no information: drop it before standardizing.")


def held_out_size(X, test_fraction):
    """A test fraction of N examples that leaves at least one for training."""
    N = X.shape[0]
    if max(1, round(test_fraction * N)) >= N:
        raise ValueError(f"test_fraction={test_fraction} leaves no training example out of N={N}; use a smaller "
                         "fraction.")


def labels_if_stratified(y, stratify):
    """A stratified split needs class labels 0, …, K − 1; without stratify, y holds any finite targets."""
    if stratify:
        V.check_labels(y, "y")


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


# --- guards of the training loops -----------------------------------------------------------------------------------


def stop_if_cost_rose(cost, previous, *, update, eta):
    """Gradient descent on a convex, smooth cost: any rise (beyond round-off) means the learning rate is too large."""
    if not math.isfinite(cost) or cost > previous * (1 + 1e-9) + 1e-300:
        raise ValueError(
            f"gradient descent diverged at update {update}: the cost rose from {previous:.4g} to {cost:.4g}. The "
            f"learning rate eta={eta:g} is too large; try eta={eta / 10:g} or standardize the features.")


def stop_if_cost_exploded(cost, start, *, epoch, eta):
    """SGD: its cost is noisy, but not finite or 100 times its start means the learning rate is too large."""
    if not math.isfinite(cost) or cost > 100 * start:
        raise ValueError(
            f"SGD diverged in epoch {epoch}: the averaged cost reached {cost:.4g} (it started at {start:.4g}). The "
            f"learning rate eta={eta:g} is too large; try eta={eta / 10:g} or standardize the features.")


def stop_if_overflowed(w, *, epoch, eta):
    """The perceptron from w = 0: η only rescales w, so weights no longer finite are an overflow."""
    if not np.isfinite(w).all():
        raise ValueError(
            f"the perceptron's weights overflowed in epoch {epoch}: the learning rate eta={eta:g} is too large. "
            "Starting from w = 0, eta only rescales the weights; use the default eta=1.0.")


def stop_if_singular(grad, H, *, step, source=""):
    """Newton's method: a gradient or Hessian no longer finite (it diverged), or a Hessian it cannot invert."""
    if not (np.isfinite(grad).all() and np.isfinite(H).all()):
        raise ValueError(
            f"the gradient or the Hessian{source} is not finite at Newton step {step}: the iteration diverged. Start "
            "closer to the minimum (e.g. the bias at the log of the mean count for Poisson regression) or "
            "regularize.")
    condition = np.linalg.cond(H)
    if condition > 1e12:
        raise ValueError(
            f"the Hessian{source} is singular at Newton step {step} (condition number {condition:.2g}); expected an "
            "invertible one. Then the cost has no unique minimum: on linearly separable classes the weights grow "
            "without bound, and a duplicate or constant feature leaves it flat. Pass a penalty l2 > 0, or drop the "
            "redundant features.")
