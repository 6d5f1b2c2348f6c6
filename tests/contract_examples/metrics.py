"""Valid examples for the input contract: metrics (accuracy, confusion matrix, precision, recall, F1)."""

import numpy as np

from contract import Example
from implementations import metrics

y_true = np.array([0, 1, 2, 2, 1, 0])  # (N,) = (6,)
y_pred = np.array([0, 2, 2, 1, 1, 0])  # (6,)


def _labels_without_a_class_count(name, value):
    """The bad labels of the role ``labels`` that need no number of classes: ``accuracy`` takes none, so a label
    K is valid there and the role (which adds "a label K") does not fit."""
    nan, negative, fraction = (value.astype(float) for _ in range(3))
    nan[0], negative[0], fraction[0] = np.nan, -1, 0.5
    return [("a string", {name: "not labels"}, ()), ("a NaN label", {name: nan}, ()),
            ("one dimension more", {name: value[None]}, ()), ("no labels", {name: value[:0]}, ()),
            ("a label -1", {name: negative}, ()), ("a label 0.5", {name: fraction}, ()),
            ("one label fewer than the other argument", {name: value[:-1]}, ())]


EXAMPLES = {
    "implementations.metrics.accuracy": Example(
        build=lambda: (metrics.accuracy, {"y_true": y_true, "y_pred": y_pred}),
        extra=_labels_without_a_class_count("y_true", y_true) + _labels_without_a_class_count("y_pred", y_pred)),
    "implementations.metrics.confusion_matrix": Example(
        build=lambda: (metrics.confusion_matrix, {"y_true": y_true, "y_pred": y_pred, "num_classes": 3}),
        roles={"y_true": "labels:3", "y_pred": "labels:3:y_true", "num_classes": "count"}),
    "implementations.metrics.precision_recall_f1": Example(
        build=lambda: (metrics.precision_recall_f1, {"y_true": y_true, "y_pred": y_pred, "num_classes": 3}),
        roles={"y_true": "labels:3", "y_pred": "labels:3:y_true", "num_classes": "count"}),
}
