"""Tests of implementations.evaluation.model_selection: k-fold splits and cross-validation, vs closed forms and scikit-
learn."""

import numpy as np
import pytest
from sklearn.linear_model import Lasso, LinearRegression, Ridge
from sklearn.model_selection import KFold
from sklearn.model_selection import cross_val_score as sk_cross_val_score

from implementations.evaluation.model_selection import bias_variance, cross_val_score, k_fold_indices
from implementations.linear import lasso, regression

# (n, k) pairs with n divisible by k, with remainders, k = 2 and leave-one-out k = n
NK = [(n, k) for n in (2, 3, 5, 10, 11, 17, 30, 101) for k in (2, 3, 4, 5, 7, 10, n) if 2 <= k <= n]


def make_problem(N, m, seed=0, noise=0.3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, m))  # (N, m)
    w_true = rng.normal(size=m + 1)  # (m + 1,)
    y = w_true[0] + X @ w_true[1:] + noise * rng.normal(size=N)  # (N,)
    return X, y


def mse_score(w, X, y):
    return np.mean((y - regression.predict(X, w)) ** 2)


# --- bias_variance -----------------------------------------------------------------------------------------------


def test_bias_variance_by_hand():
    predictions = np.array([[1.0, 3.0], [0.0, 4.0], [2.0, 2.0]])  # (G, R) = (3, 2)
    h = np.array([1.0, 0.0, 5.0])
    bias2, variance = bias_variance(predictions, h)
    np.testing.assert_allclose(bias2, [(1 - 2) ** 2, (0 - 2) ** 2, (5 - 2) ** 2])  # means 2, 2, 2
    np.testing.assert_allclose(variance, [1.0, 4.0, 0.0])  # divided by R = 2


@pytest.mark.parametrize(("G", "R"), [(1, 2), (7, 3), (40, 500)])
def test_bias2_plus_variance_is_the_mean_squared_error_against_h(G, R):
    rng = np.random.default_rng(G + R)
    predictions = rng.normal(loc=2.0, size=(G, R))
    h = rng.normal(size=G)
    bias2, variance = bias_variance(predictions, h)
    assert bias2.shape == variance.shape == (G,)
    np.testing.assert_allclose(bias2 + variance, np.mean((h[:, None] - predictions) ** 2, axis=1), rtol=1e-12)
    np.testing.assert_allclose(variance, np.var(predictions, axis=1), rtol=1e-12)


def test_bias_variance_of_least_squares_matches_its_closed_form():
    """Fixed inputs, noisy targets: E_D f̂(x) is the fit to the noise-free targets, Var_D f̂(x) = σ² ‖Φ⁺ᵀφ(x)‖²."""
    rng = np.random.default_rng(0)
    R, sigma = 20_000, 0.3
    x = np.linspace(0, 1, 12)  # (N,): the inputs of every training set
    h_train = np.sin(2 * np.pi * x)  # (N,)
    Phi = x[:, None] ** np.arange(3)  # (N, 3): a quadratic, too rigid for the sine, so the bias is not zero
    Y = h_train[:, None] + sigma * rng.normal(size=(12, R))  # (N, R)
    x_eval = np.linspace(0, 1, 9)
    F = x_eval[:, None] ** np.arange(3)  # (G, 3)
    smoother = F @ np.linalg.pinv(Phi)  # (G, N): row g maps the targets to the prediction at x_g
    bias2, variance = bias_variance(smoother @ Y, np.sin(2 * np.pi * x_eval))
    np.testing.assert_allclose(variance, sigma**2 * np.sum(smoother**2, axis=1), rtol=0.05)  # 5 % ≈ 5 / sqrt(R/2)
    np.testing.assert_allclose(bias2, (smoother @ h_train - np.sin(2 * np.pi * x_eval)) ** 2, rtol=0.05,
                               atol=5 * variance.max() / R)


def test_bias_variance_rejects_misaligned_inputs():
    with pytest.raises(ValueError, match=r"h has 2 entries along axis 0, but predictions's axis 0 gives G = 3"):
        bias_variance(np.zeros((3, 4)), np.zeros(2))
    with pytest.raises(ValueError, match="predictions has 1 column; expected one column per training set"):
        bias_variance(np.zeros((3, 1)), np.zeros(3))
    with pytest.raises(ValueError, match=r"predictions must have shape \(G, R\) \(2-D\)"):
        bias_variance(np.zeros(3), np.zeros(3))


# --- k_fold_indices ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("shuffle", [False, True])
@pytest.mark.parametrize(("n", "k"), NK)
def test_folds_partition_the_indices(n, k, shuffle):
    folds = k_fold_indices(n, k, rng=np.random.default_rng(n + k), shuffle=shuffle)
    assert len(folds) == k
    all_val = np.concatenate([val for _, val in folds])
    np.testing.assert_array_equal(np.sort(all_val), np.arange(n))  # every index in exactly one validation fold
    for train, val in folds:
        assert train.dtype.kind == val.dtype.kind == "i"
        assert val.size >= 1 and np.intersect1d(train, val).size == 0
        np.testing.assert_array_equal(np.sort(np.concatenate([train, val])), np.arange(n))  # train = complement
        assert np.all(np.diff(train) > 0) and np.all(np.diff(val) > 0)  # increasing, as documented


@pytest.mark.parametrize(("n", "k"), NK)
def test_fold_sizes_are_those_of_sklearn_kfold(n, k):
    ours = [val.size for _, val in k_fold_indices(n, k, rng=np.random.default_rng(0))]
    theirs = [test.size for _, test in KFold(n_splits=k).split(np.zeros((n, 1)))]
    assert ours == theirs
    assert max(ours) - min(ours) <= 1


@pytest.mark.parametrize(("n", "k"), NK)
def test_unshuffled_folds_equal_sklearn_kfold(n, k):
    ours = k_fold_indices(n, k, rng=None, shuffle=False)
    theirs = list(KFold(n_splits=k, shuffle=False).split(np.zeros((n, 1))))
    for (train, val), (sk_train, sk_val) in zip(ours, theirs, strict=True):
        np.testing.assert_array_equal(val, sk_val)
        np.testing.assert_array_equal(train, sk_train)


def test_shuffled_folds_are_blocks_of_one_permutation_from_rng():
    n, k = 23, 4
    folds = k_fold_indices(n, k, rng=np.random.default_rng(7))
    order = np.random.default_rng(7).permutation(n)  # the one draw the function is documented to make
    sizes = [6, 6, 6, 5]
    starts = np.cumsum([0, *sizes[:-1]])
    for (_, val), start, size in zip(folds, starts, sizes, strict=True):
        np.testing.assert_array_equal(val, np.sort(order[start : start + size]))
    assert any(np.any(np.diff(val) != 1) for _, val in folds)  # shuffled: not all contiguous


def test_shuffled_folds_are_reproducible_from_the_seed():
    a = k_fold_indices(40, 5, rng=np.random.default_rng(3))
    b = k_fold_indices(40, 5, rng=np.random.default_rng(3))
    c = k_fold_indices(40, 5, rng=np.random.default_rng(4))
    for (ta, va), (tb, vb) in zip(a, b, strict=True):
        np.testing.assert_array_equal(va, vb)
        np.testing.assert_array_equal(ta, tb)
    assert any(not np.array_equal(va, vc) for (_, va), (_, vc) in zip(a, c, strict=True))


def test_k_fold_indices_rejects_bad_k_and_rng():
    with pytest.raises(ValueError, match="k must be between 2 and n=5; received k=1"):
        k_fold_indices(5, 1, rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="k must be between 2 and n=5; received k=6"):
        k_fold_indices(5, 6, rng=np.random.default_rng(0))
    with pytest.raises(TypeError, match="rng must be a numpy.random.Generator"):
        k_fold_indices(5, 2, rng=None)  # shuffling needs a generator
    with pytest.raises(ValueError, match="n must be an integer >= 1"):
        k_fold_indices(5.0, 2, rng=np.random.default_rng(0))


# --- cross_val_score ---------------------------------------------------------------------------------------------


def test_cross_val_of_the_mean_predictor_by_hand():
    y = np.array([1.0, 4.0, 2.0, 8.0, 5.0, 7.0, 3.0])
    X = np.zeros((7, 1))
    scores = cross_val_score(lambda X, y: y.mean(), lambda mu, X, y: np.mean((y - mu) ** 2), X, y,
                             k=3, rng=None, shuffle=False)
    # folds {0, 1, 2}, {3, 4}, {5, 6} (7 = 3 + 2 + 2)
    expected = []
    for val in ([0, 1, 2], [3, 4], [5, 6]):
        train = [i for i in range(7) if i not in val]
        mu = sum(y[train]) / len(train)
        expected.append(sum((y[i] - mu) ** 2 for i in val) / len(val))
    np.testing.assert_allclose(scores, expected, rtol=1e-14)


def test_leave_one_out_of_the_mean_predictor_has_a_closed_form():
    """Leaving out y_i, the mean of the others is ȳ − (y_i − ȳ)/(N − 1), so the error is N/(N − 1) · (y_i − ȳ)."""
    rng = np.random.default_rng(1)
    y = rng.normal(size=12)
    N = y.size
    scores = cross_val_score(lambda X, y: y.mean(), lambda mu, X, y: float(np.mean((y - mu) ** 2)),
                             np.zeros((N, 2)), y, k=N, rng=None, shuffle=False)  # fold i = {i}
    np.testing.assert_allclose(scores, (N / (N - 1) * (y - y.mean())) ** 2, rtol=1e-12)


@pytest.mark.parametrize(("N", "m", "k"), [(20, 1, 4), (37, 3, 5), (50, 6, 10)])
def test_cross_val_score_equals_sklearn_for_least_squares(N, m, k):
    X, y = make_problem(N, m, seed=N)
    ours = cross_val_score(regression.normal_equations, mse_score, X, y, k=k, rng=None, shuffle=False)
    theirs = -sk_cross_val_score(LinearRegression(), X, y, cv=KFold(n_splits=k), scoring="neg_mean_squared_error")
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)


@pytest.mark.parametrize("lam", [0.1, 3.0, 50.0])
def test_cross_val_score_equals_sklearn_for_ridge(lam):
    # normal_equations minimises ‖y − Φw‖² + λ Σ_{j≥1} w_j², scikit-learn's Ridge ‖y − Xw − b‖² + α‖w‖² with the
    # intercept b unpenalised: the same cost with α = λ.
    X, y = make_problem(40, 4, seed=2)
    ours = cross_val_score(lambda X, y: regression.normal_equations(X, y, l2=lam), mse_score, X, y, k=5,
                           rng=None, shuffle=False)
    theirs = -sk_cross_val_score(Ridge(alpha=lam), X, y, cv=KFold(n_splits=5), scoring="neg_mean_squared_error")
    np.testing.assert_allclose(ours, theirs, rtol=1e-9)


def test_cross_val_score_equals_sklearn_for_the_lasso():
    X, y = make_problem(45, 5, seed=3)
    ours = cross_val_score(lambda X, y: lasso.fit_lasso(X, y, l1=0.1, tol=1e-12, num_iters=10_000), mse_score,
                           X, y, k=3, rng=None, shuffle=False)
    theirs = -sk_cross_val_score(Lasso(alpha=0.1, tol=1e-12, max_iter=100_000), X, y, cv=KFold(n_splits=3),
                                 scoring="neg_mean_squared_error")
    np.testing.assert_allclose(ours, theirs, rtol=1e-8)


def test_shuffled_cross_val_uses_the_folds_of_k_fold_indices():
    X, y = make_problem(30, 2, seed=4)
    scores = cross_val_score(regression.normal_equations, mse_score, X, y, k=4, rng=np.random.default_rng(5))
    expected = [mse_score(regression.normal_equations(X[train], y[train]), X[val], y[val])
                for train, val in k_fold_indices(30, 4, rng=np.random.default_rng(5))]
    np.testing.assert_allclose(scores, expected, rtol=1e-12)
    again = cross_val_score(regression.normal_equations, mse_score, X, y, k=4, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(scores, again)


def test_cross_val_score_refuses_bad_callables_and_scores():
    X, y = make_problem(10, 2)
    rng = np.random.default_rng(0)
    with pytest.raises(TypeError, match="fit must be a function"):
        cross_val_score("normal_equations", mse_score, X, y, k=2, rng=rng)
    with pytest.raises(TypeError, match="score must be a function"):
        cross_val_score(regression.normal_equations, None, X, y, k=2, rng=rng)
    with pytest.raises(ValueError, match="score returned nan on fold 0"):
        cross_val_score(regression.normal_equations, lambda w, X, y: np.nan, X, y, k=2, rng=rng)
    with pytest.raises(ValueError, match="score returned array"):
        cross_val_score(regression.normal_equations, lambda w, X, y: y - y, X, y, k=2, rng=rng)
    with pytest.raises(ValueError, match="k must be between 2 and n=10"):
        cross_val_score(regression.normal_equations, mse_score, X, y, k=11, rng=rng)
