"""Classification metrics: accuracy, the confusion matrix, precision, recall and F1; curves over thresholds (ROC,
precision–recall), their areas, and the scores and calibration of predicted probabilities; McNemar's test of two
classifiers scored on the same examples."""

from math import comb

import numpy as np

from .._contract import checked
from ._checks import (
    has_both_classes,
    has_positive,
    monotonic_points,
    probabilities,
    right_or_wrong,
    same_examples,
    some_cost,
)

__all__ = [
    "accuracy",
    "confusion_matrix",
    "precision_recall_f1",
    "counts_at_thresholds",
    "roc_curve",
    "auc",
    "roc_auc",
    "precision_recall_curve",
    "average_precision",
    "brier_score",
    "log_loss",
    "reliability_curve",
    "cost_optimal_threshold",
    "mcnemar_test",
]


@checked(y_true="labels (N,)", y_pred="labels (N,)")
def accuracy(y_true, y_pred):
    """Fraction of correct predictions, (1/N) Σᵢ [ŷ⁽ⁱ⁾ = y⁽ⁱ⁾].

    Parameters
    ----------
    y_true, y_pred : array_like of shape (N,)
        Integer class labels.

    Returns
    -------
    acc : float in [0, 1]
    """
    return float(np.mean(y_true == y_pred))


@checked(num_classes="count", y_true="labels (N,) < num_classes", y_pred="labels (N,) < num_classes")
def confusion_matrix(y_true, y_pred, *, num_classes):
    """Counts C[i, j] of examples of true class i predicted as class j.

    The diagonal holds the correct predictions; row i sums to the number of examples of class i,
    column j to the number predicted as j.

    Parameters
    ----------
    y_true, y_pred : array_like of shape (N,)
        Labels 0, …, K − 1.
    num_classes : int
        K; classes absent from both arrays still get a row and a column.

    Returns
    -------
    C : ndarray of shape (K, K), int64
    """
    C = np.zeros((num_classes, num_classes), dtype=np.int64)  # (K, K)
    np.add.at(C, (y_true, y_pred), 1)  # one count per example
    return C


@checked(num_classes="count", y_true="labels (N,) < num_classes", y_pred="labels (N,) < num_classes")
def precision_recall_f1(y_true, y_pred, *, num_classes=2):
    """Precision, recall and F1 of every class, one against the rest.

    For class k: precision = C[k, k] / Σᵢ C[i, k] (of those predicted k, the fraction that are k),
    recall = C[k, k] / Σⱼ C[k, j] (of those that are k, the fraction found), and F1 their harmonic
    mean 2pr / (p + r). In a binary problem entry 1 is the usual "positive class" value.

    Parameters
    ----------
    y_true, y_pred : array_like of shape (N,)
        Labels 0, …, K − 1.
    num_classes : int, default 2

    Returns
    -------
    precision, recall, f1 : ndarray of shape (K,) each
        ``nan`` where a ratio is 0/0 (a class never predicted, or absent from ``y_true``), never a
        silent 0.
    """
    C = confusion_matrix(y_true, y_pred, num_classes=num_classes).astype(np.float64)  # (K, K)
    tp, predicted, actual = np.diag(C), C.sum(axis=0), C.sum(axis=1)  # (K,) each: column and row sums
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(predicted > 0, tp / predicted, np.nan)
        recall = np.where(actual > 0, tp / actual, np.nan)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    f1 = np.where(np.isnan(precision) | np.isnan(recall), np.nan, f1)
    return precision, recall, f1


# --- evaluating a scoring classifier: curves over all thresholds ----------------------------------------------------
#
# A scoring classifier gives each example a score s⁽ⁱ⁾ (a probability p⁽ⁱ⁾, a logit, a margin) and predicts class 1
# when s⁽ⁱ⁾ ≥ τ. Lowering the threshold τ from +∞ to the smallest score moves through every confusion matrix the
# scores allow; the curves below are those matrices, one point per distinct score.


@checked(y_true="labels (N,) < 2", scores="array (N,)")
def counts_at_thresholds(y_true, scores):
    """False and true positives FP(τ) and TP(τ) at every distinct score τ, highest first: the counts behind the curves.

    Predicting 1 for the examples with s ≥ τ, TP(τ) counts the positives and FP(τ) the negatives among them, the
    counts of the rates of eq. (2.16). Sorting the examples by score, highest first, a cumulative sum of the labels
    gives every count at once. Tied scores form one point: a threshold admits all the examples of a tie or none.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Labels 0 or 1.
    scores : array_like of shape (N,)
        Finite real scores, larger meaning "more likely class 1".

    Returns
    -------
    fp, tp : ndarray of shape (T,), int64
        Non-decreasing; T is the number of distinct scores.
    thresholds : ndarray of shape (T,)
        The distinct scores, decreasing.
    """
    order = np.argsort(-scores, kind="stable")  # (N,) highest score first
    s, y = scores[order], y_true[order]  # (N,) each
    last_of_tie = np.r_[np.flatnonzero(np.diff(s)), s.size - 1]  # (T,) last position of each distinct score
    tp = np.cumsum(y)[last_of_tie]  # (T,) positives with s ≥ τ
    fp = last_of_tie + 1 - tp  # (T,) negatives with s ≥ τ
    return fp, tp, s[last_of_tie]


@checked(y_true="labels (N,) < 2", scores="array (N,)", drop_intermediate="flag", also=has_both_classes)
def roc_curve(y_true, scores, *, drop_intermediate=False):
    """Receiver operating characteristic: TPR against FPR, eq. (2.16), at every threshold.

    At a threshold τ the classifier predicts 1 for the examples with score s ≥ τ; with TP, FP, TN, FN the counts of
    its confusion matrix, TPR = TP / (TP + FN) (the recall, the fraction of positives found) and FPR = FP / (FP + TN)
    (the fraction of negatives raised as false alarms). The thresholds are the distinct scores, highest first,
    preceded by τ = +inf, where nothing is predicted positive and FPR = TPR = 0; at the smallest score everything is,
    and FPR = TPR = 1. Tied scores form one point (a threshold admits all of them or none), so a tie between a
    positive and a negative is a diagonal segment. This equals ``sklearn.metrics.roc_curve`` (version ≥ 1.3).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Labels 0 or 1, with at least one example of each class (TPR divides by the positives, FPR by the
        negatives); a sample with one class only raises ``ValueError`` (scikit-learn warns and returns NaN).
    scores : array_like of shape (N,)
        Finite real scores, larger meaning "more likely class 1": probabilities, logits or margins.
    drop_intermediate : bool, default False
        Keep every distinct score (False), or only the points where the curve turns (True: a point collinear with
        its neighbours on a horizontal or vertical run is dropped), as scikit-learn's default ``True`` does.
        The area under the curve is the same.

    Returns
    -------
    fpr, tpr : ndarray of shape (T + 1,)
        Non-decreasing, from 0 to 1; T is the number of distinct scores (fewer with ``drop_intermediate``).
    thresholds : ndarray of shape (T + 1,)
        Decreasing; ``thresholds[0]`` is +inf and ``thresholds[k]`` gives the point (``fpr[k]``, ``tpr[k]``).
    """
    fp, tp, thresholds = counts_at_thresholds(y_true, scores)  # (T,) each
    if drop_intermediate and fp.size > 2:  # keep a point only where the curve turns: fp or tp changes its slope
        corner = np.r_[True, (np.diff(fp, 2) != 0) | (np.diff(tp, 2) != 0), True]  # (T,)
        fp, tp, thresholds = fp[corner], tp[corner], thresholds[corner]
    fp, tp = np.r_[0, fp], np.r_[0, tp]  # (T + 1,) the curve starts at (0, 0): τ = +inf predicts no positive
    return fp / fp[-1], tp / tp[-1], np.r_[np.inf, thresholds]  # FPR = FP / N₀ and TPR = TP / N₁


@checked(x="array (n,)", y="array (n,)", also=monotonic_points)
def auc(x, y):
    """Area under a curve through the points (x, y), by the trapezoidal rule: Σₖ (xₖ₊₁ − xₖ)(yₖ + yₖ₊₁)/2.

    Parameters
    ----------
    x : array_like of shape (n,)
        At least 2 points, monotonic: non-decreasing, or non-increasing (the area is then still positive for y ≥ 0).
    y : array_like of shape (n,)

    Returns
    -------
    area : float
        As ``sklearn.metrics.auc``.
    """
    dx = np.diff(x)  # (n − 1,)
    area = np.sum(dx * (y[1:] + y[:-1]) / 2)  # trapezoids between neighbouring points
    return float(-area if np.any(dx < 0) else area)  # decreasing x: the area is still counted positive


@checked(y_true="labels (N,) < 2", scores="array (N,)", also=has_both_classes)
def roc_auc(y_true, scores):
    """Area under the ROC curve, eq. (2.18): the probability that a random positive scores above a random negative.

    AUC = (1 / (N₁N₀)) Σ over positive–negative pairs of ([s₊ > s₋] + ½[s₊ = s₋]), the Mann–Whitney statistic
    divided by N₁N₀ (N₁ positives, N₀ negatives): ties count as half, which is what the diagonal segment of a tie
    adds under the curve. 1 for scores that put every positive above every negative, 0 for the reverse, about 0.5
    for random scores.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Labels 0 or 1, with at least one example of each class (else ``ValueError``).
    scores : array_like of shape (N,)
        Finite real scores, larger meaning "more likely class 1".

    Returns
    -------
    area : float in [0, 1]
        As ``sklearn.metrics.roc_auc_score``.
    """
    fpr, tpr, _ = roc_curve(y_true, scores)  # (T + 1,) each
    return auc(fpr, tpr)  # the trapezoids add up to the pair count


@checked(y_true="labels (N,) < 2", scores="array (N,)", also=has_positive)
def precision_recall_curve(y_true, scores):
    """Precision and recall, eq. (2.16), at every threshold, lowest threshold (highest recall) first.

    At a threshold τ the classifier predicts 1 for the examples with score s ≥ τ; precision = TP / (TP + FP) (of the
    examples predicted 1, the fraction that are 1) and recall = TP / (TP + FN) (of the examples that are 1, the
    fraction predicted 1), the same recall as the TPR of :func:`roc_curve`. The thresholds are the distinct scores,
    increasing; tied scores form one point. A final point (precision 1, recall 0) with no threshold ends the curve,
    so ``thresholds`` is one shorter. Every distinct score is kept, also those below the first one that reaches
    recall 1. This equals ``sklearn.metrics.precision_recall_curve`` (its defaults, version 1.9).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Labels 0 or 1, with at least one positive (recall divides by the positives; else ``ValueError``). A sample
        without negatives is allowed: its precision is 1 everywhere.
    scores : array_like of shape (N,)
        Finite real scores, larger meaning "more likely class 1".

    Returns
    -------
    precision : ndarray of shape (T + 1,)
        ``precision[k]`` at ``thresholds[k]``; ``precision[-1]`` = 1.
    recall : ndarray of shape (T + 1,)
        Non-increasing, from TP/(TP + FN) at the lowest score (1) to ``recall[-1]`` = 0.
    thresholds : ndarray of shape (T,)
        The T distinct scores, increasing.
    """
    fp, tp, thresholds = counts_at_thresholds(y_true, scores)  # (T,) each, highest threshold first
    precision = tp / (tp + fp)  # (T,) tp + fp ≥ 1: a threshold equal to a score admits that example
    recall = tp / tp[-1]  # (T,) tp[-1] is the number of positives
    # lowest threshold first, then the end point (recall 0, precision 1) of τ = +inf
    return np.r_[precision[::-1], 1.0], np.r_[recall[::-1], 0.0], thresholds[::-1]


@checked(y_true="labels (N,) < 2", scores="array (N,)", also=has_positive)
def average_precision(y_true, scores):
    """Average precision, eq. (2.19): the precision at each threshold weighted by the recall it adds, Σₙ (Rₙ − Rₙ₋₁) Pₙ.

    The thresholds run from the highest score down; Rₙ and Pₙ are the recall and precision at the n-th one and
    R₀ = 0. A step-wise sum, not the trapezoidal area under the precision–recall curve, which would interpolate
    linearly between points and overstate the precision between them. 1 for a perfect ranking; about the fraction
    of positives for random scores. This equals ``sklearn.metrics.average_precision_score``.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Labels 0 or 1, with at least one positive (else ``ValueError``).
    scores : array_like of shape (N,)
        Finite real scores, larger meaning "more likely class 1".

    Returns
    -------
    ap : float in [0, 1]
    """
    precision, recall, _ = precision_recall_curve(y_true, scores)  # (T + 1,) each, recall decreasing
    return float(np.sum((recall[:-1] - recall[1:]) * precision[:-1]))  # Σ (Rₙ − Rₙ₋₁) Pₙ


# --- probabilities: proper scores and calibration -----------------------------------------------------------------


@checked(y_true="labels (N,) < 2", p="array (N,)", also=probabilities)
def brier_score(y_true, p):
    """Brier score, eq. (2.22), the mean squared error of the predicted probabilities: (1/N) Σᵢ (p⁽ⁱ⁾ − y⁽ⁱ⁾)².

    0 for certain and correct predictions, 0.25 for p = 0.5 everywhere, 1 for certain and wrong ones.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Labels 0 or 1 (one class may be absent).
    p : array_like of shape (N,)
        Predicted probabilities of class 1, each in [0, 1].

    Returns
    -------
    score : float in [0, 1]
        As ``sklearn.metrics.brier_score_loss``.
    """
    return float(np.mean((p - y_true) ** 2))


@checked(y_true="labels (N,) < 2", p="array (N,)", also=probabilities)
def log_loss(y_true, p):
    """Log-loss, eq. (2.22), the mean negative log-likelihood −(1/N) Σᵢ [y⁽ⁱ⁾ log p⁽ⁱ⁾ + (1 − y⁽ⁱ⁾) log(1 − p⁽ⁱ⁾)].

    A probability of exactly 0 for a label 1 (or 1 for a label 0) would cost log 0 = −inf. As scikit-learn does,
    the probability given to the true label is clipped to [ε, 1 − ε] with ε = ``np.finfo(np.float64).eps``
    ≈ 2.2e-16, so such a certain and wrong prediction costs −log ε ≈ 36.0 instead of infinity, and a certain and
    right one costs ε ≈ 0 (a saturated sigmoid returns exactly 1.0, and is not an error).

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Labels 0 or 1 (one class may be absent).
    p : array_like of shape (N,)
        Predicted probabilities of class 1, each in [0, 1].

    Returns
    -------
    loss : float >= 0
        As ``sklearn.metrics.log_loss(y_true, p, labels=[0, 1])``.
    """
    eps = np.finfo(np.float64).eps
    p_label = np.where(y_true == 1, p, 1 - p)  # (N,) probability given to the true label
    p_label = np.clip(p_label, eps, 1 - eps)  # visible trick: log never sees 0
    return float(-np.mean(np.log(p_label)))


@checked(y_true="labels (N,) < 2", p="array (N,)", num_bins="count", also=probabilities)
def reliability_curve(y_true, p, *, num_bins):
    """Calibration in bins: mean predicted probability against the observed frequency of class 1.

    [0, 1] is cut into ``num_bins`` bins of equal width with edges eₖ = k / num_bins; bin 0 is [0, e₁] and bin k
    is (eₖ, eₖ₊₁]: a probability exactly on an inner edge falls into the lower bin, as in scikit-learn. For a
    calibrated classifier the points lie on the diagonal: among the examples given p ≈ 0.8, 80 % are class 1.

    Parameters
    ----------
    y_true : array_like of shape (N,)
        Labels 0 or 1 (one class may be absent).
    p : array_like of shape (N,)
        Predicted probabilities of class 1, each in [0, 1].
    num_bins : int
        Number of bins, >= 1.

    Returns
    -------
    mean_predicted : ndarray of shape (num_bins,)
        Mean of p over the examples of each bin; NaN for an empty bin.
    observed_frequency : ndarray of shape (num_bins,)
        Fraction of class 1 among them; NaN for an empty bin.
    count : ndarray of shape (num_bins,), int64
        Number of examples per bin; 0 marks an empty bin. Every bin is returned, empty or not, so that entry k is
        always bin k; ``sklearn.calibration.calibration_curve(strategy="uniform")`` returns the non-empty bins
        only, and equals ``observed_frequency[count > 0]``, ``mean_predicted[count > 0]``.
    """
    edges = np.linspace(0.0, 1.0, num_bins + 1)  # (num_bins + 1,)
    bin_of = np.searchsorted(edges[1:-1], p, side="left")  # (N,) on an inner edge: the lower bin
    count = np.bincount(bin_of, minlength=num_bins)  # (num_bins,)
    sum_p = np.bincount(bin_of, weights=p, minlength=num_bins)  # (num_bins,)
    sum_y = np.bincount(bin_of, weights=y_true, minlength=num_bins)  # (num_bins,)
    nonempty = count > 0
    mean_predicted = np.divide(sum_p, count, out=np.full(num_bins, np.nan), where=nonempty)
    observed_frequency = np.divide(sum_y, count, out=np.full(num_bins, np.nan), where=nonempty)
    return mean_predicted, observed_frequency, count.astype(np.int64)


@checked(c_fp="penalty", c_fn="penalty", also=some_cost)
def cost_optimal_threshold(c_fp, c_fn):
    """The threshold on a calibrated probability with the least expected cost, τ* = c_FP / (c_FP + c_FN), eq. (2.20).

    Predicting 1 for an example with probability p of class 1 costs c_FP with probability 1 − p (a false
    positive); predicting 0 costs c_FN with probability p (a false negative). Predicting 1 is cheaper when
    (1 − p) c_FP < p c_FN, that is when p > c_FP / (c_FP + c_FN); at equality both cost the same, and the rule
    p ≥ τ* of ``logistic.predict(X, w, threshold=τ*)`` predicts 1. Equal costs give τ* = 1/2; a miss four times as
    costly as a false alarm gives τ* = 1/5. Correct predictions cost 0.

    Parameters
    ----------
    c_fp : float
        Cost of a false positive, >= 0.
    c_fn : float
        Cost of a false negative, >= 0; ``c_fp`` and ``c_fn`` must not both be 0.

    Returns
    -------
    threshold : float in [0, 1]
        τ*: predict 1 when p ≥ τ*. Valid only for calibrated probabilities (see :func:`reliability_curve`), and for
        the base rate the probabilities were fitted to. The ends 0 (c_FP = 0: always predict 1) and 1 (c_FN = 0:
        never) are returned as they are, although ``logistic.predict`` accepts only thresholds strictly between them.
    """
    return c_fp / (c_fp + c_fn)


@checked(correct_a=right_or_wrong, correct_b=right_or_wrong, also=same_examples)
def mcnemar_test(correct_a, correct_b):
    """McNemar's exact test of two classifiers scored on the same examples.

    Only the examples on which the two disagree tell them apart: b of them only classifier A gets right, c only B.
    If the two were equally good, each of these n = b + c examples would be won by either with probability ½, and
    b would be Binomial(n, ½). The two-sided p-value is the probability of a split at least as uneven as the one
    observed, min(1, 2 · P(Binomial(n, ½) ≥ max(b, c))), and 1 when n = 0.

    Parameters
    ----------
    correct_a, correct_b : array_like of bool of shape (N,)
        Whether classifier A (B) classifies each test example correctly, e.g. ``y_pred_a == y_true``.

    Returns
    -------
    only_a : int
        b, the examples only A gets right.
    only_b : int
        c, the examples only B gets right.
    p_value : float in (0, 1]
    """
    only_a, only_b = int(np.sum(correct_a & ~correct_b)), int(np.sum(correct_b & ~correct_a))
    n = only_a + only_b
    tail = sum(comb(n, k) for k in range(max(only_a, only_b), n + 1)) / 2**n  # P(the larger count or more)
    return only_a, only_b, min(1.0, 2 * tail)
