"""Tests of the metrics that evaluate a classifier over all thresholds and its probabilities (chapter 2, "Evaluating
a classifier"): ROC and precision–recall curves, their areas, Brier score, log loss, reliability curve and the
cost-optimal threshold, against scikit-learn, hand-made cases and closed forms."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn import metrics as skm
from sklearn.calibration import calibration_curve

from implementations.evaluation.metrics import (
    auc,
    average_precision,
    brier_score,
    cost_optimal_threshold,
    counts_at_thresholds,
    log_loss,
    mcnemar_test,
    precision_recall_curve,
    reliability_curve,
    roc_auc,
    roc_curve,
)

CASES = [(seed, N, decimals) for seed, N in ((0, 7), (1, 40), (2, 300)) for decimals in (0, 1, 3)]


def scored_problem(seed, N, decimals=1):
    """Binary labels with both classes and informative scores rounded to ``decimals`` places (ties when few)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=N)  # (N,)
    y[:2] = [0, 1]  # both classes present
    scores = np.round(rng.normal(size=N) + 1.5 * y, decimals)  # (N,) positives score higher on average
    scores[0] = scores[1]  # at least one tie between a negative and a positive
    return y, scores


def assert_same_curve(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs, strict=True):
        assert a.shape == b.shape
        np.testing.assert_array_equal(a, b)  # the same counts divided the same way: bit for bit


# --- ROC curve -----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seed", "N", "decimals"), CASES)
def test_roc_curve_equals_sklearn_with_every_threshold(seed, N, decimals):
    y, scores = scored_problem(seed, N, decimals)
    assert np.unique(scores).size < N  # ties, which form one point each
    assert_same_curve(roc_curve(y, scores), skm.roc_curve(y, scores, drop_intermediate=False))


@pytest.mark.parametrize(("seed", "N", "decimals"), CASES)
def test_roc_curve_drop_intermediate_equals_sklearn_default(seed, N, decimals):
    y, scores = scored_problem(seed, N, decimals)
    ours = roc_curve(y, scores, drop_intermediate=True)
    assert_same_curve(ours, skm.roc_curve(y, scores))  # scikit-learn's default is drop_intermediate=True
    full = roc_curve(y, scores)
    assert np.isclose(auc(ours[0], ours[1]), auc(full[0], full[1]), rtol=0, atol=1e-15)  # same area


def test_roc_curve_by_hand_with_a_tie():
    # scores 0.9 (y=1), 0.5 (y=1) and 0.5 (y=0) tied, 0.1 (y=0); thresholds +inf, 0.9, 0.5, 0.1
    fpr, tpr, thresholds = roc_curve([0, 1, 1, 0], [0.5, 0.5, 0.9, 0.1])
    np.testing.assert_array_equal(thresholds, [np.inf, 0.9, 0.5, 0.1])
    np.testing.assert_array_equal(fpr, [0.0, 0.0, 0.5, 1.0])  # the tie moves FPR and TPR together: one point
    np.testing.assert_array_equal(tpr, [0.0, 0.5, 1.0, 1.0])
    assert roc_auc([0, 1, 1, 0], [0.5, 0.5, 0.9, 0.1]) == pytest.approx(0.875)  # 3 pairs won, 1 tied: 3.5 / 4


@pytest.mark.parametrize(("seed", "N", "decimals"), CASES)
def test_counts_at_thresholds_count_every_example_at_or_above_each_distinct_score(seed, N, decimals):
    y, scores = scored_problem(seed, N, decimals)
    fp, tp, thresholds = counts_at_thresholds(y, scores)
    np.testing.assert_array_equal(thresholds, np.unique(scores)[::-1])  # every distinct score, highest first
    above = scores[None, :] >= thresholds[:, None]  # (T, N): the examples a threshold admits
    np.testing.assert_array_equal(tp, (above & (y == 1)).sum(axis=1))
    np.testing.assert_array_equal(fp, (above & (y == 0)).sum(axis=1))


def test_counts_at_thresholds_need_no_second_class():
    fp, tp, thresholds = counts_at_thresholds([1, 1, 1], [0.2, 0.9, 0.2])  # the curves refuse this sample
    np.testing.assert_array_equal(thresholds, [0.9, 0.2])
    np.testing.assert_array_equal(tp, [1, 3])
    np.testing.assert_array_equal(fp, [0, 0])


def test_roc_curve_accepts_booleans_and_lists():
    fpr, tpr, _ = roc_curve([False, True, True], [0, 2, 1])
    np.testing.assert_array_equal(fpr, [0.0, 0.0, 0.0, 1.0])
    np.testing.assert_array_equal(tpr, [0.0, 0.5, 1.0, 1.0])


# --- areas ----------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seed", "N", "decimals"), CASES)
def test_roc_auc_equals_sklearn(seed, N, decimals):
    y, scores = scored_problem(seed, N, decimals)
    assert roc_auc(y, scores) == pytest.approx(skm.roc_auc_score(y, scores), rel=0, abs=1e-14)


@pytest.mark.parametrize(("seed", "N", "decimals"), CASES)
def test_roc_auc_is_the_mann_whitney_statistic(seed, N, decimals):
    y, scores = scored_problem(seed, N, decimals)
    pos, neg = scores[y == 1], scores[y == 0]
    wins = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])  # (N₊, N₋) ties count half
    assert roc_auc(y, scores) == pytest.approx(wins.mean(), rel=0, abs=1e-14)
    U = stats.mannwhitneyu(pos, neg, alternative="two-sided").statistic  # U of the positives, from ranks
    assert roc_auc(y, scores) == pytest.approx(U / (pos.size * neg.size), rel=0, abs=1e-14)


def test_perfect_and_inverted_classifiers():
    y = np.array([0, 0, 1, 0, 1, 1, 0])
    scores = np.array([0.1, 0.3, 0.8, 0.2, 0.9, 0.7, 0.4])  # every positive above every negative
    assert roc_auc(y, scores) == 1.0
    assert roc_auc(y, -scores) == 0.0
    assert average_precision(y, scores) == 1.0
    assert average_precision(y, -scores) == pytest.approx(skm.average_precision_score(y, -scores), abs=1e-15)
    fpr, tpr, _ = roc_curve(y, scores)
    assert tpr[np.flatnonzero(fpr == 0)[-1]] == 1.0  # the curve reaches (0, 1)


def test_random_scores_give_auc_one_half_and_ap_the_prevalence():
    rng = np.random.default_rng(0)
    y = (rng.uniform(size=20_000) < 0.3).astype(int)  # (N,) 30 % positives
    scores = rng.normal(size=y.size)  # independent of y
    assert abs(roc_auc(y, scores) - 0.5) < 0.02  # standard deviation about 0.0045 here
    assert abs(average_precision(y, scores) - y.mean()) < 0.02


def test_auc_equals_sklearn_and_closed_forms():
    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(size=30))
    y = rng.normal(size=30)
    assert auc(x, y) == pytest.approx(skm.auc(x, y), rel=1e-14)
    assert auc(x[::-1], y[::-1]) == pytest.approx(skm.auc(x[::-1], y[::-1]), rel=1e-14)  # decreasing x
    assert auc([0, 1], [0, 1]) == 0.5  # the diagonal
    assert auc([0, 0, 1], [0, 1, 1]) == 1.0  # a vertical step, then flat
    assert auc([1, 0.5, 0], [2, 2, 2]) == 2.0  # decreasing x counts positive


def test_auc_refuses_x_that_is_not_monotonic():
    with pytest.raises(ValueError, match=r"x must be monotonic.*x\[2\] = 0.25 followed by x\[3\] = 0.2"):
        auc([0.0, 0.0, 0.25, 0.2], [0.0, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="x has 1 point"):
        auc([0.3], [0.4])


# --- precision–recall -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seed", "N", "decimals"), CASES)
def test_precision_recall_curve_equals_sklearn(seed, N, decimals):
    y, scores = scored_problem(seed, N, decimals)
    precision, recall, thresholds = precision_recall_curve(y, scores)
    assert_same_curve((precision, recall, thresholds), skm.precision_recall_curve(y, scores))
    assert precision[-1] == 1 and recall[-1] == 0 and thresholds.size == precision.size - 1


def test_precision_recall_curve_keeps_thresholds_below_full_recall():
    # recall reaches 1 at the threshold 0.6; the two negatives below it stay on the curve (scikit-learn 1.9 too)
    y, scores = [1, 1, 0, 0], [0.9, 0.6, 0.3, 0.1]
    precision, recall, thresholds = precision_recall_curve(y, scores)
    np.testing.assert_array_equal(thresholds, [0.1, 0.3, 0.6, 0.9])
    np.testing.assert_allclose(precision, [0.5, 2 / 3, 1.0, 1.0, 1.0], rtol=1e-15)
    np.testing.assert_array_equal(recall, [1.0, 1.0, 1.0, 0.5, 0.0])
    assert_same_curve((precision, recall, thresholds), skm.precision_recall_curve(y, scores))


@pytest.mark.parametrize(("seed", "N", "decimals"), CASES)
def test_average_precision_equals_sklearn(seed, N, decimals):
    y, scores = scored_problem(seed, N, decimals)
    assert average_precision(y, scores) == pytest.approx(skm.average_precision_score(y, scores), rel=0, abs=1e-15)


def test_average_precision_is_step_wise_not_trapezoidal():
    # ranking 1, 0, 1: recall steps 1/2 at precision 1 and 1/2 at precision 2/3
    y, scores = [1, 0, 1], [0.9, 0.8, 0.7]
    assert average_precision(y, scores) == pytest.approx(0.5 * 1 + 0.5 * 2 / 3, rel=1e-15)
    precision, recall, _ = precision_recall_curve(y, scores)
    trapezoids = 0.5 * (1 + 1) / 2 + 0 + 0.5 * (0.5 + 2 / 3) / 2  # 19/24: it draws the dip to precision 1/2
    assert auc(recall, precision) == pytest.approx(trapezoids, rel=1e-15)
    assert average_precision(y, scores) - auc(recall, precision) == pytest.approx(1 / 24, rel=1e-12)


# --- a class absent -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("function", [roc_curve, roc_auc, precision_recall_curve, average_precision])
def test_no_positive_is_refused(function):
    with pytest.raises(ValueError, match=r"y_true has no positive example \(label 1\) among its 3 labels"):
        function([0, 0, 0], [0.1, 0.5, 0.9])


@pytest.mark.parametrize("function", [roc_curve, roc_auc])
def test_roc_refuses_no_negative(function):
    with pytest.raises(ValueError, match=r"y_true has no negative example \(label 0\)"):
        function([1, 1, 1], [0.1, 0.5, 0.9])


def test_precision_recall_without_negatives_equals_sklearn():
    y, scores = [1, 1, 1], [0.1, 0.5, 0.5]
    assert_same_curve(precision_recall_curve(y, scores), skm.precision_recall_curve(y, scores))
    assert average_precision(y, scores) == 1.0 == skm.average_precision_score(y, scores)


def test_scores_and_labels_must_have_the_same_length():
    with pytest.raises(ValueError, match=r"scores has 2 entries along axis 0, but y_true's axis 0 gives N = 3"):
        roc_curve([0, 1, 1], [0.2, 0.4])


# --- Brier score and log loss ---------------------------------------------------------------------------------

def probabilistic_problem(seed, N):
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=N), 1)  # (N,) ties, and exact 0.0 and 1.0 among them
    y = (rng.uniform(size=N) < p).astype(int)  # (N,) calibrated labels
    return y, p


@pytest.mark.parametrize(("seed", "N"), [(0, 5), (1, 50), (2, 1000)])
def test_brier_score_equals_sklearn(seed, N):
    y, p = probabilistic_problem(seed, N)
    assert brier_score(y, p) == pytest.approx(skm.brier_score_loss(y, p), rel=1e-15, abs=1e-17)


@pytest.mark.parametrize(("seed", "N"), [(0, 5), (1, 50), (2, 1000)])
def test_log_loss_equals_sklearn(seed, N):
    y, p = probabilistic_problem(seed, N)
    p = np.r_[p, 0.0, 1.0, 0.0, 1.0]  # certain predictions, right and wrong
    y = np.r_[y, 0, 1, 1, 0]
    assert log_loss(y, p) == pytest.approx(skm.log_loss(y, p, labels=[0, 1]), rel=1e-14)


def test_log_loss_clips_certain_predictions_at_machine_epsilon():
    eps = np.finfo(np.float64).eps
    assert log_loss([1, 0], [1.0, 0.0]) == pytest.approx(eps, rel=1e-6)  # certain and right: ε, not 0
    assert log_loss([0, 1], [1.0, 0.0]) == pytest.approx(-np.log(eps), rel=1e-15)  # certain and wrong: ≈ 36.04
    assert log_loss([1], [0.5]) == pytest.approx(np.log(2), rel=1e-15)


def test_brier_and_log_loss_closed_forms_and_one_class():
    assert brier_score([0, 1], [0.5, 0.5]) == 0.25
    assert brier_score([1, 1, 1], [1.0, 1.0, 0.0]) == pytest.approx(1 / 3)  # one class only is allowed
    assert log_loss([0, 0], [0.2, 0.2]) == pytest.approx(-np.log(0.8), rel=1e-15)


@pytest.mark.parametrize("function", [brier_score, log_loss])
@pytest.mark.parametrize("bad", [1.5, -0.1])
def test_probabilities_outside_0_1_are_refused(function, bad):
    with pytest.raises(ValueError, match=rf"p must hold probabilities in \[0, 1\].*p\[1\] = {bad:g}"):
        function([0, 1, 1], [0.2, bad, 0.9])


# --- reliability curve ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seed", "N"), [(0, 5), (1, 50), (2, 1000)])
@pytest.mark.parametrize("num_bins", [1, 3, 5, 10, 20])
def test_reliability_curve_equals_sklearn_on_the_non_empty_bins(seed, N, num_bins):
    y, p = probabilistic_problem(seed, N)  # on the 1-decimal grid: many values sit on bin edges
    mean_predicted, observed, count = reliability_curve(y, p, num_bins=num_bins)
    assert mean_predicted.shape == observed.shape == count.shape == (num_bins,)
    assert count.sum() == N
    prob_true, prob_pred = calibration_curve(y, p, n_bins=num_bins, strategy="uniform")
    nonempty = count > 0
    np.testing.assert_array_equal(mean_predicted[nonempty], prob_pred)
    np.testing.assert_array_equal(observed[nonempty], prob_true)
    assert np.all(np.isnan(mean_predicted[~nonempty])) and np.all(np.isnan(observed[~nonempty]))


def test_reliability_curve_edges_go_to_the_lower_bin():
    p = np.array([0.0, 0.2, 0.2 + 1e-12, 0.4, 0.6, 1.0])  # 0.2, 0.4 and 0.6 on edges of 5 bins
    y = np.array([0, 1, 0, 1, 1, 1])
    mean_predicted, observed, count = reliability_curve(y, p, num_bins=5)
    np.testing.assert_array_equal(count, [2, 2, 1, 0, 1])  # [0, .2], (.2, .4], (.4, .6], (.6, .8], (.8, 1]
    np.testing.assert_allclose(observed[[0, 1, 2, 4]], [0.5, 0.5, 1.0, 1.0])
    np.testing.assert_allclose(mean_predicted[[0, 1, 2, 4]], [0.1, 0.3 + 5e-13, 0.6, 1.0])
    assert np.isnan(mean_predicted[3]) and np.isnan(observed[3])
    prob_true, prob_pred = calibration_curve(y, p, n_bins=5, strategy="uniform")
    np.testing.assert_array_equal(prob_pred, mean_predicted[count > 0])
    np.testing.assert_array_equal(prob_true, observed[count > 0])


@pytest.mark.parametrize("num_bins", [3, 7, 10, 12])
def test_reliability_curve_every_edge_as_sklearn(num_bins):
    p = np.arange(num_bins + 1) / num_bins  # (num_bins + 1,) every edge, computed another way than linspace
    y = np.arange(num_bins + 1) % 2
    mean_predicted, observed, count = reliability_curve(y, p, num_bins=num_bins)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=num_bins, strategy="uniform")
    np.testing.assert_array_equal(mean_predicted[count > 0], prob_pred)
    np.testing.assert_array_equal(observed[count > 0], prob_true)


def test_reliability_curve_of_calibrated_probabilities_is_near_the_diagonal():
    rng = np.random.default_rng(4)
    p = rng.uniform(size=100_000)
    y = (rng.uniform(size=p.size) < p).astype(int)  # calibrated by construction
    mean_predicted, observed, count = reliability_curve(y, p, num_bins=10)
    assert np.all(count > 9000)
    np.testing.assert_allclose(observed, mean_predicted, atol=0.02)
    _, observed_overconfident, _ = reliability_curve(y, np.clip(2 * p - 0.5, 0, 1), num_bins=10)
    assert abs(observed_overconfident[0] - 0.0) > 0.05  # p pushed towards 0 and 1 is off the diagonal


def test_reliability_curve_refuses_bad_num_bins():
    for bad in (0, -2, 2.5, "5", True):
        with pytest.raises(ValueError, match="num_bins must be an integer >= 1"):
            reliability_curve([0, 1], [0.2, 0.7], num_bins=bad)


# --- cost-optimal threshold ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("c_fp", "c_fn"), [(1.0, 1.0), (1.0, 4.0), (5.0, 1.0), (0.3, 0.7)])
def test_cost_optimal_threshold_minimises_the_cost_on_a_grid(c_fp, c_fn):
    rng = np.random.default_rng(5)
    p = rng.uniform(size=1_000_000)  # (N,) calibrated probabilities of class 1
    y = rng.uniform(size=p.size) < p  # (N,) labels drawn with those probabilities
    grid = np.linspace(0, 1, 201)  # (G,) thresholds
    p_sorted = np.sort(p)
    below = np.searchsorted(p_sorted, grid, side="right")  # (G,) examples predicted 0: p <= t
    neg_sorted, pos_sorted = np.cumsum(~y[np.argsort(p)]), np.cumsum(y[np.argsort(p)])
    false_neg = np.r_[0, pos_sorted][below]  # (G,) positives with p <= t
    false_pos = (~y).sum() - np.r_[0, neg_sorted][below]  # (G,) negatives with p > t
    cost = (c_fp * false_pos + c_fn * false_neg) / p.size  # (G,) mean cost of predicting 1 when p > t
    t_star = cost_optimal_threshold(c_fp, c_fn)
    assert t_star == pytest.approx(c_fp / (c_fp + c_fn))
    assert abs(grid[np.argmin(cost)] - t_star) <= 0.03
    assert cost.min() >= np.interp(t_star, grid, cost) - 1e-3  # nothing on the grid is clearly cheaper


def test_cost_optimal_threshold_closed_forms_and_refusals():
    assert cost_optimal_threshold(1, 1) == 0.5
    assert cost_optimal_threshold(1, 4) == 0.2
    assert cost_optimal_threshold(0, 3) == 0.0  # false alarms are free: predict 1 always
    assert cost_optimal_threshold(2, 0) == 1.0
    with pytest.raises(ValueError, match="c_fp and c_fn are both 0"):
        cost_optimal_threshold(0, 0)
    with pytest.raises(ValueError, match="c_fn must be a finite number >= 0; received -1"):
        cost_optimal_threshold(1, -1)


def test_no_warnings_on_edge_cases():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reliability_curve([0, 1], [0.0, 1.0], num_bins=10)  # eight empty bins: NaN without a RuntimeWarning
        log_loss([0, 1], [1.0, 0.0])
        roc_curve([0, 1], [3.0, 3.0])


# --- McNemar's test ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", range(8))
def test_mcnemar_test_counts_the_disagreements_and_equals_scipys_binomial_test(seed):
    rng = np.random.default_rng(seed)
    N = int(rng.integers(1, 60))
    correct_a, correct_b = rng.random(N) < 0.8, rng.random(N) < rng.uniform(0.5, 0.95)  # (N,) each
    only_a, only_b, p_value = mcnemar_test(correct_a, correct_b)
    assert only_a == sum(a and not b for a, b in zip(correct_a, correct_b, strict=True))
    assert only_b == sum(b and not a for a, b in zip(correct_a, correct_b, strict=True))
    n = only_a + only_b
    expected = 1.0 if n == 0 else stats.binomtest(only_a, n, 0.5).pvalue  # exact two-sided binomial test
    assert p_value == pytest.approx(expected, rel=1e-12)
    assert mcnemar_test(correct_b, correct_a) == (only_b, only_a, p_value)  # symmetric in A and B


def test_mcnemar_test_by_hand():
    correct_a = np.array([True] * 5 + [False] * 2 + [True] * 10)  # A alone right 5 times, B alone 2 times
    correct_b = np.array([False] * 5 + [True] * 2 + [True] * 10)
    # n = 7; P(X ≥ 5) = (21 + 7 + 1) / 128 for X ~ Binomial(7, ½), doubled
    assert mcnemar_test(correct_a, correct_b) == (5, 2, 2 * 29 / 128)
    assert mcnemar_test(np.ones(4, bool), np.ones(4, bool)) == (0, 0, 1.0)  # no disagreement: no evidence
    assert mcnemar_test([1, 0, 1], [1, 1, 0]) == (1, 1, 1.0)  # 0/1 accepted as False/True


def test_mcnemar_test_refuses_bad_input_by_name():
    with pytest.raises(ValueError, match="correct_b has 3 entries but correct_a has 4"):
        mcnemar_test(np.ones(4, bool), np.ones(3, bool))
    with pytest.raises(ValueError, match="correct_a must hold True/False"):
        mcnemar_test(np.array([0.5, 1.0]), np.ones(2, bool))
    with pytest.raises(ValueError, match="correct_b must be a non-empty 1-D array"):
        mcnemar_test(np.ones(4, bool), np.ones((2, 2), bool))
    with pytest.raises(TypeError, match="correct_a must be a numeric array"):
        mcnemar_test("right", np.ones(2, bool))
