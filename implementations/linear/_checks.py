"""The checks of chapters 1 and 2 that no role of ``implementations._contract`` describes, each once.

Three kinds, all raising ``ValueError`` (or ``TypeError``) with a message that names the argument, says what was
received and what was expected, and how to fix it:

* roles of their own, ``check(value, name) -> value``, for an argument no role string describes (a single input
  column, a probability strictly between 0 and 1, a function whose results must be checked);
* checks of several arguments, named in ``also=`` (labels below the number of columns of a weight matrix, a fold
  count that fits the data);
* the guards of the training loops (a cost that rose, weights that overflowed, a singular Hessian), called in the
  loops: they are not input checks, so a listing may show the call.

Used by :mod:`implementations.linear`.
"""

import math

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
