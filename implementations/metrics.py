"""Classification metrics: accuracy, the confusion matrix, precision, recall and F1."""

import numpy as np

from ._validation import check_labels, check_positive_int

__all__ = ["accuracy", "confusion_matrix", "precision_recall_f1"]


def _check_pair(y_true, y_pred, num_classes=None):
    y_true = check_labels(y_true, "y_true", num_classes=num_classes)
    y_pred = check_labels(y_pred, "y_pred", num_classes=num_classes)
    if y_true.shape != y_pred.shape:
        raise ValueError(
            f"y_true has {y_true.shape[0]} labels but y_pred has {y_pred.shape[0]}; expected one prediction per label."
        )
    if y_true.size == 0:
        raise ValueError("y_true and y_pred are empty; expected at least one label.")
    return y_true, y_pred


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
    y_true, y_pred = _check_pair(y_true, y_pred)
    return float(np.mean(y_true == y_pred))


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
    num_classes = check_positive_int(num_classes, "num_classes")
    y_true, y_pred = _check_pair(y_true, y_pred, num_classes)
    C = np.zeros((num_classes, num_classes), dtype=np.int64)
    np.add.at(C, (y_true, y_pred), 1)  # one count per example
    return C


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
    C = confusion_matrix(y_true, y_pred, num_classes=num_classes).astype(np.float64)
    tp = np.diag(C)  # (K,)
    predicted = C.sum(axis=0)  # (K,) column sums
    actual = C.sum(axis=1)  # (K,) row sums
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(predicted > 0, tp / predicted, np.nan)
        recall = np.where(actual > 0, tp / actual, np.nan)
        f1 = np.where(precision + recall > 0, 2 * precision * recall / (precision + recall), 0.0)
    f1 = np.where(np.isnan(precision) | np.isnan(recall), np.nan, f1)
    return precision, recall, f1
