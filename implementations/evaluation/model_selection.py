"""Estimating how well a model generalises: bias and variance, k-fold splits and cross-validation.

Chapter 1, section "Generalization and model selection". Conventions (those of the chapter):

* ``X`` has shape (N, m): N examples, m raw features, no bias column; ``y`` has shape (N,);
* a *fit* function maps training data to a model, ``fit(X_train, y_train) -> model`` (for the linear models of
  the package, the weight vector w of shape (m + 1,));
* a *score* function measures a model on held-out data, ``score(model, X_val, y_val) -> float``.

The package's fit functions plug in with a lambda, e.g.
``cross_val_score(lambda X, y: regression.normal_equations(X, y, l2=lam),
lambda w, X, y: np.mean((y - regression.predict(X, w)) ** 2), X, y, k=5, rng=rng)``.
"""

import numpy as np

from .._contract import checked
from ._checks import fit_function, fold_count, rng_if_shuffled, score_function, several_training_sets

__all__ = ["bias_variance", "k_fold_indices", "cross_val_score"]


@checked(predictions="array (G, R)", h="array (G,)", also=several_training_sets)
def bias_variance(predictions, h):
    """Squared bias and variance of a model over training sets, at each input: the last two terms of eq. (1.27).

    Column r of ``predictions`` holds the predictions f̂_r(x_g) = f(x_g; w_r) at G inputs x_g of the model fitted
    to training set D_r, for R training sets drawn independently from the same source. The expectation over
    training sets, E_D f̂_D(x_g), is estimated by the mean over the columns:

        bias²(x_g) = (h(x_g) − f̄(x_g))²,    variance(x_g) = (1/R) Σ_r (f̂_r(x_g) − f̄(x_g))²,

    with f̄(x_g) = (1/R) Σ_r f̂_r(x_g). Dividing by R (not R − 1) makes the split exact for the sample:
    bias² + variance = (1/R) Σ_r (h(x_g) − f̂_r(x_g))², an identity, so their sum checks nothing; each term can be
    checked against a closed form where there is one. The mean f̄ is itself uncertain by about variance/R, which
    the estimate of bias² includes: where the true bias is tiny, draw more training sets.

    Parameters
    ----------
    predictions : array_like of shape (G, R)
        Row g: the predictions at input x_g of the R models; at least two columns.
    h : array_like of shape (G,)
        The regression function h(x_g) = E[y ∣ x_g] at the same inputs (known for simulated data).

    Returns
    -------
    bias2 : ndarray of shape (G,)
    variance : ndarray of shape (G,)
    """
    mean_prediction = predictions.mean(axis=1)  # (G,): f̄(x_g), the estimate of E_D f̂_D(x_g)
    bias2 = (h - mean_prediction) ** 2  # (G,)
    variance = np.mean((predictions - mean_prediction[:, None]) ** 2, axis=1)  # (G,): divided by R
    return bias2, variance


@checked(n="count", k="count", rng="rng?", shuffle="flag", also=(fold_count, rng_if_shuffled))
def k_fold_indices(n, k, *, rng, shuffle=True):
    """Split the indices 0, …, n − 1 into k validation folds and their complementary training sets.

    The folds are as equal as possible: the first n mod k folds have ⌈n/k⌉ examples, the others ⌊n/k⌋
    (the sizes of scikit-learn's ``KFold``). Every index lies in exactly one validation fold. Without
    shuffling, fold i is the contiguous block of indices after folds 0, …, i − 1; with shuffling, the
    blocks are cut from one random permutation of the indices drawn from ``rng``.

    Parameters
    ----------
    n : int
        Number of examples N >= 2.
    k : int
        Number of folds, 2 <= k <= n (k = n is leave-one-out).
    rng : numpy.random.Generator or None
        Source of the permutation; may be None only with ``shuffle=False``.
    shuffle : bool, default True
        Permute the indices before cutting them into folds. Leave it on unless the order of the examples
        is already random: data sorted by time or by class would give unrepresentative folds.

    Returns
    -------
    folds : list of k pairs (train_idx, val_idx)
        ``train_idx`` of shape (n − n_i,) and ``val_idx`` of shape (n_i,), int64 arrays in increasing order,
        n_i the size of fold i.
    """
    order = rng.permutation(n) if shuffle else np.arange(n)  # (n,)
    fold_sizes = np.full(k, n // k)  # (k,)
    fold_sizes[: n % k] += 1  # the first n mod k folds take one example more
    stops = np.cumsum(fold_sizes)  # (k,): fold i is order[stops[i] − n_i : stops[i]]
    folds = []
    for stop, size in zip(stops, fold_sizes, strict=True):
        in_val = np.zeros(n, dtype=bool)  # (n,)
        in_val[order[stop - size : stop]] = True
        folds.append((np.flatnonzero(~in_val), np.flatnonzero(in_val)))  # (n − n_i,), (n_i,)
    return folds


@checked(fit=fit_function, score=score_function, X="array (N, m)", y="array (N,)", k="count", rng="rng?",
         shuffle="flag", also=(fold_count, rng_if_shuffled))
def cross_val_score(fit, score, X, y, *, k, rng, shuffle=True):
    """k-fold cross-validation, eq. (1.28): fit on k − 1 folds, score on the held-out one, once per fold.

    CV score_i = score(fit(X_{−i}, y_{−i}), X_i, y_i), where (X_i, y_i) is fold i and (X_{−i}, y_{−i}) the
    other k − 1 folds; their mean estimates the score of the model on unseen data, and their spread
    how much that estimate depends on the split.

    To compare several models (several λ) on the *same* folds, pass each call a fresh generator with the same
    seed, ``rng=np.random.default_rng(SEED)``: a shared generator would draw other folds each time.

    Parameters
    ----------
    fit : callable
        ``fit(X_train, y_train) -> model``, e.g. ``lambda X, y: regression.normal_equations(X, y, l2=lam)``.
    score : callable
        ``score(model, X_val, y_val) -> float``, e.g. the validation MSE (lower is better) or an accuracy
        (higher is better); the function only reports it.
    X : array_like of shape (N, m)
    y : array_like of shape (N,)
    k : int
        Number of folds, 2 <= k <= N.
    rng : numpy.random.Generator or None
        Source of the folds' permutation (see :func:`k_fold_indices`); None only with ``shuffle=False``.
    shuffle : bool, default True
        Shuffle before splitting; ``False`` gives contiguous folds (scikit-learn's ``KFold(shuffle=False)``).

    Returns
    -------
    scores : ndarray of shape (k,)
        Entry i is the score on validation fold i.
    """
    folds = k_fold_indices(X.shape[0], k, rng=rng, shuffle=shuffle)  # [(train_idx, val_idx)] * k
    scores = np.empty(len(folds))  # (k,)
    for i, (train, val) in enumerate(folds):
        model = fit(X[train], y[train])  # w_{−i}, fitted on X[train]: (N − n_i, m)
        scores[i] = score(model, X[val], y[val])  # E_i, on X[val]: (n_i, m)
    return scores
