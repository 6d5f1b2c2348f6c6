"""Judging models: first used in chapters 1 and 2, then throughout.

- :mod:`.model_selection`: bias and variance, k-fold splits and cross-validation (chapter 1);
- :mod:`.metrics`: accuracy, confusion matrices, precision and recall, ROC and precision–recall curves,
  calibration, and McNemar's test (chapter 2).
"""
