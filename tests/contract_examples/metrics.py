"""Valid examples for the input contract: metrics (accuracy, confusion matrix, precision, recall, F1; the counts at
every threshold, ROC and precision–recall curves, their areas, Brier score, log loss, reliability curve, cost-optimal
threshold)."""

import numpy as np

from contract import Example
from implementations.evaluation import metrics

y_true = np.array([0, 1, 2, 2, 1, 0])  # (N,) = (6,)
y_pred = np.array([0, 2, 2, 1, 1, 0])  # (6,)
y_binary = np.array([0, 1, 1, 0, 1, 0, 0, 1])  # (N,) = (8,)
scores = np.array([-1.2, 0.8, 0.4, 0.4, 2.0, -0.3, 0.6, 0.6])  # (8,) real scores, two ties
p = np.array([0.1, 0.8, 0.6, 0.6, 1.0, 0.0, 0.7, 0.9])  # (8,) probabilities, 0 and 1 included
fpr = np.array([0.0, 0.25, 0.5, 1.0])  # (4,) a monotonic x
tpr = np.array([0.0, 0.5, 0.75, 1.0])  # (4,)

# one class absent: the curves divide by the positives (and the ROC curve by the negatives too)
_NO_POSITIVE = ("no positive label", {"y_true": np.zeros(8, dtype=int)}, ())
_NO_NEGATIVE = ("no negative label", {"y_true": np.ones(8, dtype=int)}, ())
_BAD_PROBABILITIES = [("a probability 1.5", {"p": np.r_[1.5, p[1:]]}, ()),
                      ("a probability -0.1", {"p": np.r_[-0.1, p[1:]]}, ())]


def _scored(function, **more):
    """An example of a function of (y_true, scores)."""
    return lambda: (function, {"y_true": y_binary, "scores": scores, **more})


def _probabilistic(function, **more):
    """An example of a function of (y_true, p)."""
    return lambda: (function, {"y_true": y_binary, "p": p, **more})


def _labels_without_a_class_count(name, value):
    """The bad labels of the role ``labels`` that need no number of classes: ``accuracy`` takes none, so a label
    K is valid there and the role (which adds "a label K") does not fit."""
    nan, negative, fraction = (value.astype(float) for _ in range(3))
    nan[0], negative[0], fraction[0] = np.nan, -1, 0.5
    return [("a string", {name: "not labels"}, ()), ("a NaN label", {name: nan}, ()),
            ("one dimension more", {name: value[None]}, ()), ("no labels", {name: value[:0]}, ()),
            ("a label -1", {name: negative}, ()), ("a label 0.5", {name: fraction}, ()),
            ("one label fewer than the other argument", {name: value[:-1]}, ())]


_correct_a = np.array([True, True, False, True, False, True])  # (N,) = (6,): right or wrong per example
_correct_b = np.array([True, False, True, True, False, False])  # (6,)


def _bad_correct(name, value):
    """The bad variants of a per-example right/wrong array."""
    return [("a string", {name: "right"}, ()), ("a value 0.5", {name: np.r_[0.5, value[1:].astype(float)]}, ()),
            ("a NaN", {name: np.r_[np.nan, value[1:].astype(float)]}, ()),
            ("one dimension more", {name: value[None]}, ()), ("no entries", {name: value[:0]}, ()),
            ("one entry fewer than the other", {name: value[:-1]}, ())]


EXAMPLES = {
    "implementations.evaluation.metrics.accuracy": Example(
        build=lambda: (metrics.accuracy, {"y_true": y_true, "y_pred": y_pred}),
        extra=_labels_without_a_class_count("y_true", y_true) + _labels_without_a_class_count("y_pred", y_pred)),
    "implementations.evaluation.metrics.confusion_matrix": Example(
        build=lambda: (metrics.confusion_matrix, {"y_true": y_true, "y_pred": y_pred, "num_classes": 3}),
        roles={"y_true": "labels:3", "y_pred": "labels:3:y_true", "num_classes": "count"}),
    "implementations.evaluation.metrics.precision_recall_f1": Example(
        build=lambda: (metrics.precision_recall_f1, {"y_true": y_true, "y_pred": y_pred, "num_classes": 3}),
        roles={"y_true": "labels:3", "y_pred": "labels:3:y_true", "num_classes": "count"}),
    "implementations.evaluation.metrics.counts_at_thresholds": Example(
        build=_scored(metrics.counts_at_thresholds),  # one class only is allowed: the counts need no division
        roles={"y_true": "labels:2", "scores": "aligned:y_true"}),
    "implementations.evaluation.metrics.roc_curve": Example(
        build=_scored(metrics.roc_curve, drop_intermediate=False),
        roles={"y_true": "labels:2", "scores": "aligned:y_true", "drop_intermediate": "flag"},
        extra=[_NO_POSITIVE, _NO_NEGATIVE]),
    "implementations.evaluation.metrics.auc": Example(
        build=lambda: (metrics.auc, {"x": fpr, "y": tpr}),
        roles={"x": "array", "y": "aligned:x"},
        extra=[("x neither increasing nor decreasing", {"x": np.array([0.0, 0.5, 0.25, 1.0])}, ()),
               ("a single point", {"x": fpr[:1], "y": tpr[:1]}, ())]),
    "implementations.evaluation.metrics.roc_auc": Example(
        build=_scored(metrics.roc_auc),
        roles={"y_true": "labels:2", "scores": "aligned:y_true"},
        extra=[_NO_POSITIVE, _NO_NEGATIVE]),
    "implementations.evaluation.metrics.precision_recall_curve": Example(
        build=_scored(metrics.precision_recall_curve),
        roles={"y_true": "labels:2", "scores": "aligned:y_true"},
        extra=[_NO_POSITIVE]),
    "implementations.evaluation.metrics.average_precision": Example(
        build=_scored(metrics.average_precision),
        roles={"y_true": "labels:2", "scores": "aligned:y_true"},
        extra=[_NO_POSITIVE]),
    "implementations.evaluation.metrics.brier_score": Example(
        build=_probabilistic(metrics.brier_score),
        roles={"y_true": "labels:2", "p": "aligned:y_true"},
        extra=_BAD_PROBABILITIES),
    "implementations.evaluation.metrics.log_loss": Example(
        build=_probabilistic(metrics.log_loss),
        roles={"y_true": "labels:2", "p": "aligned:y_true"},
        extra=_BAD_PROBABILITIES),
    "implementations.evaluation.metrics.reliability_curve": Example(
        build=_probabilistic(metrics.reliability_curve, num_bins=5),  # bin (0.2, 0.4] stays empty
        roles={"y_true": "labels:2", "p": "aligned:y_true", "num_bins": "count"},
        extra=_BAD_PROBABILITIES),
    "implementations.evaluation.metrics.cost_optimal_threshold": Example(
        build=lambda: (metrics.cost_optimal_threshold, {"c_fp": 1.0, "c_fn": 4.0}),
        roles={"c_fp": "penalty", "c_fn": "penalty"},
        extra=[("both costs 0", {"c_fp": 0.0, "c_fn": 0.0}, ())]),
    "implementations.evaluation.metrics.mcnemar_test": Example(
        build=lambda: (metrics.mcnemar_test, {"correct_a": _correct_a, "correct_b": _correct_b}),
        extra=_bad_correct("correct_a", _correct_a)[:-1] + _bad_correct("correct_b", _correct_b)),
}
