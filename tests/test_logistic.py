"""Tests of implementations.linear.logistic against finite differences, closed forms and scikit-learn."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from implementations import numeric
from implementations.linear import _fused, glm, logistic
from implementations.preliminaries.gradcheck import check_gradient, numerical_gradient

SHAPES = [(1, 1), (9, 1), (40, 3), (25, 5)]


def make_problem(N, m, seed=0, noise=1.0):
    """Overlapping classes (not separable for noise > 0), so the unregularized optimum exists."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(N, m))  # (N, m)
    w_true = rng.normal(size=m + 1)  # (m + 1,)
    y = (w_true[0] + X @ w_true[1:] + noise * rng.logistic(size=N) > 0).astype(np.int64)  # (N,)
    return X, y, rng


def sklearn_weights(X, y, l2):
    model = LogisticRegression(C=1.0 / l2, tol=1e-12, max_iter=100_000).fit(X, y)
    return np.r_[model.intercept_, model.coef_.ravel()]


# --- the sigmoid ---------------------------------------------------------------------------------


def test_sigmoid_matches_its_definition_where_that_is_safe():
    z = np.linspace(-30, 30, 121)
    np.testing.assert_allclose(numeric.sigmoid(z), 1.0 / (1.0 + np.exp(-z)), rtol=1e-14)


def test_sigmoid_is_exact_at_large_logits_and_silent():
    z = np.array([-1e4, -800.0, -1e300, 0.0, 800.0, 1e4, 1e300])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow RuntimeWarning would fail the test
        s = numeric.sigmoid(z)
    np.testing.assert_array_equal(s, [0.0, 0.0, 0.0, 0.5, 1.0, 1.0, 1.0])


@pytest.mark.parametrize("function", [numeric.sigmoid, numeric.log_sigmoid])
def test_sigmoid_refuses_infinite_logits(function):
    """Package decision: NaN and ±inf are refused in every array input, elementwise maps included."""
    with pytest.raises(ValueError, match=r"z contains 1 NaN or infinite value\(s\), the first at index \(1\)"):
        function([0.0, np.inf])


def test_sigmoid_symmetry_and_scalar_input():
    z = np.random.default_rng(1).normal(scale=5, size=50)
    np.testing.assert_allclose(numeric.sigmoid(-z), 1.0 - numeric.sigmoid(z), atol=1e-15)
    assert isinstance(numeric.sigmoid(0.0), float)
    assert numeric.sigmoid(np.ones((2, 3))).shape == (2, 3)


def test_sigmoid_derivative_is_s_times_one_minus_s():
    z = np.linspace(-6, 6, 25)
    s = numeric.sigmoid(z)
    numerical = (numeric.sigmoid(z + 1e-6) - numeric.sigmoid(z - 1e-6)) / 2e-6
    np.testing.assert_allclose(numerical, s * (1 - s), rtol=1e-7)


def test_log_sigmoid_is_accurate_and_silent_at_large_logits():
    z = np.array([[-1e4, -800.0, -5.0], [0.0, 5.0, 1e4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = numeric.log_sigmoid(z)
    np.testing.assert_allclose(got, -np.logaddexp(0.0, -z), rtol=1e-15)
    assert got[0, 0] == -1e4 and got[1, 2] == 0.0
    moderate = np.linspace(-30, 30, 61)
    expected = np.log(numeric.sigmoid(moderate))
    np.testing.assert_allclose(numeric.log_sigmoid(moderate), expected, rtol=1e-12, atol=1e-15)


def test_sigmoid_rejects_nan():
    with pytest.raises(ValueError, match=r"z contains 1 NaN"):
        numeric.sigmoid([0.0, np.nan])


# --- model, cost, gradient, Hessian ---------------------------------------------------------------


def test_predict_proba_and_threshold():
    X = np.array([[-2.0], [0.0], [3.0]])
    w = np.array([0.5, 1.0])
    z = np.array([-1.5, 0.5, 3.5])
    np.testing.assert_allclose(logistic.predict_proba(X, w), 1 / (1 + np.exp(-z)), rtol=1e-14)
    np.testing.assert_array_equal(logistic.predict(X, w), [0, 1, 1])
    np.testing.assert_array_equal(logistic.predict(X, w, threshold=0.7), [0, 0, 1])  # σ(0.5) = 0.62
    for bad in [0.0, 1.0, -0.1, True, "half"]:
        with pytest.raises(ValueError, match="threshold must be a number strictly between 0 and 1"):
            logistic.predict(X, w, threshold=bad)


@pytest.mark.parametrize("l2", [0.0, 1.3])
def test_cost_matches_the_cross_entropy_formula(l2):
    X, y, rng = make_problem(30, 3)
    w = rng.normal(size=4)
    mu = 1 / (1 + np.exp(-(w[0] + X @ w[1:])))
    expected = -np.mean(y * np.log(mu) + (1 - y) * np.log(1 - mu)) + l2 / (2 * 30) * np.sum(w[1:] ** 2)
    assert logistic.logistic_cost(X, y, w, l2=l2) == pytest.approx(expected, rel=1e-12)


def test_cost_stays_finite_for_a_confident_mistake():
    X = np.array([[1.0]])
    w = np.array([0.0, 1000.0])  # logit 1000 for a label 0: μ rounds to exactly 1
    assert logistic.logistic_cost(X, [0], w) == pytest.approx(1000.0, rel=1e-12)
    assert logistic.logistic_cost(X, [1], w) == pytest.approx(0.0, abs=1e-300)


def test_cost_at_zero_weights_is_log_two():
    X, y, _ = make_problem(17, 2)
    assert logistic.logistic_cost(X, y, np.zeros(3)) == pytest.approx(np.log(2), rel=1e-14)


@pytest.mark.parametrize("N, m", SHAPES)
@pytest.mark.parametrize("l2", [0.0, 0.9])
def test_gradient_matches_finite_differences(N, m, l2):
    X, y, rng = make_problem(N, m)
    w = rng.normal(size=m + 1)
    err = check_gradient(lambda v: logistic.logistic_cost(X, y, v, l2=l2),
                         lambda v: logistic.logistic_gradient(X, y, v, l2=l2), w)
    assert err < 1e-6


@pytest.mark.parametrize("l2", [0.0, 0.9])
def test_hessian_matches_finite_differences_of_the_gradient(l2):
    X, y, rng = make_problem(40, 3)
    w = rng.normal(size=4)
    H = logistic.logistic_hessian(X, y, w, l2=l2)
    numerical = np.array(
        [numerical_gradient(lambda v, j=j: logistic.logistic_gradient(X, y, v, l2=l2)[j], w) for j in range(4)]
    )
    np.testing.assert_allclose(H, numerical, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(H, H.T, atol=1e-15)
    assert np.linalg.eigvalsh(H).min() > 0


def test_gradient_has_the_lms_form():
    """∇J = Φᵀ(μ − y)/N: the least-squares gradient with the prediction μ in place of Φw."""
    X, y, rng = make_problem(20, 2)
    w = rng.normal(size=3)
    Phi = np.hstack([np.ones((20, 1)), X])
    mu = logistic.predict_proba(X, w)
    np.testing.assert_allclose(logistic.logistic_gradient(X, y, w), Phi.T @ (mu - y) / 20, rtol=1e-13)


# --- fitting: gradient descent and Newton against scikit-learn -----------------------------------


@pytest.mark.parametrize("N, m, l2", [(40, 3, 0.5), (120, 2, 3.0), (25, 5, 0.1)])
def test_newton_equals_sklearn_to_1e6(N, m, l2):
    X, y, _ = make_problem(N, m, seed=N)
    w = logistic.fit_logistic_newton(X, y, l2=l2, num_iters=50)
    np.testing.assert_allclose(w, sklearn_weights(X, y, l2), atol=1e-6)
    np.testing.assert_allclose(logistic.logistic_gradient(X, y, w, l2=l2), 0.0, atol=1e-12)


@pytest.mark.parametrize("N, m, l2", [(40, 3, 0.5), (120, 2, 3.0)])
def test_gradient_descent_reaches_sklearn_to_1e4(N, m, l2):
    X, y, _ = make_problem(N, m, seed=N)
    w, history = logistic.fit_logistic(X, y, eta=2.0, num_iters=3000, l2=l2)
    np.testing.assert_allclose(w, sklearn_weights(X, y, l2), atol=1e-4)
    assert history.shape == (3000,)
    assert np.all(np.diff(history) <= 1e-15)  # a safe step never raises the cost


def test_newton_without_regularization_is_the_maximum_likelihood_fit():
    X, y, _ = make_problem(200, 2, seed=3)
    w = logistic.fit_logistic_newton(X, y, num_iters=50)
    np.testing.assert_allclose(logistic.logistic_gradient(X, y, w), 0.0, atol=1e-12)
    # with a tiny penalty scikit-learn solves almost the same problem
    np.testing.assert_allclose(w, sklearn_weights(X, y, 1e-9), atol=1e-5)


@pytest.mark.parametrize("scale", [0.1, 10.0, 1000.0])  # up to logits where μ rounds to 0 or 1
@pytest.mark.parametrize("l2", [0.0, 0.7])
def test_fast_path_equals_the_taught_cost_and_gradient(scale, l2):
    # fit_logistic's fast path computes J and ∇J from one product Φw; they must be the taught functions' values
    X, y, rng = make_problem(40, 3)
    w = scale * rng.normal(size=4)
    J, grad = _fused.logistic_cost_and_gradient(np.hstack([np.ones((40, 1)), X]), y.astype(float), w, l2)
    assert J == pytest.approx(logistic.logistic_cost(X, y, w, l2=l2), rel=1e-13)
    np.testing.assert_allclose(grad, logistic.logistic_gradient(X, y, w, l2=l2), rtol=1e-12, atol=1e-15)


def test_fit_logistic_history_is_the_cost_after_each_update():
    X, y, _ = make_problem(30, 2)
    w, history = logistic.fit_logistic(X, y, eta=0.5, num_iters=3, l2=0.3)
    w_ref = np.zeros(3)
    for k in range(3):
        w_ref = w_ref - 0.5 * logistic.logistic_gradient(X, y, w_ref, l2=0.3)
        assert history[k] == pytest.approx(logistic.logistic_cost(X, y, w_ref, l2=0.3), rel=1e-12)
    np.testing.assert_allclose(w, w_ref, rtol=1e-12)


def test_fit_logistic_starts_from_w_init_without_modifying_it():
    X, y, _ = make_problem(30, 2)
    w_init = np.array([0.1, -0.2, 0.3])
    w, history = logistic.fit_logistic(X, y, eta=1e-12, num_iters=1, w_init=w_init)
    np.testing.assert_allclose(w, w_init, atol=1e-10)
    np.testing.assert_array_equal(w_init, [0.1, -0.2, 0.3])
    assert history[0] == pytest.approx(logistic.logistic_cost(X, y, w_init), rel=1e-9)


def test_weights_grow_without_bound_on_separable_data_without_l2():
    X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    y = np.array([0, 0, 1, 1])
    norms = [np.linalg.norm(logistic.fit_logistic(X, y, eta=1.0, num_iters=n)[0]) for n in (100, 1000, 10000)]
    assert norms[0] < norms[1] < norms[2]
    w_l2, _ = logistic.fit_logistic(X, y, eta=1.0, num_iters=10000, l2=1.0)
    np.testing.assert_allclose(logistic.logistic_gradient(X, y, w_l2, l2=1.0), 0.0, atol=1e-10)
    assert np.linalg.norm(w_l2) < norms[0]


def test_newton_on_separable_data_without_l2_raises():
    X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    with pytest.raises(ValueError, match=r"Hessian is singular.*linearly separable.*l2 > 0"):
        logistic.fit_logistic_newton(X, [0, 0, 1, 1], num_iters=100)


def test_diverging_learning_rate_raises():
    X, y, _ = make_problem(50, 2)
    with pytest.raises(ValueError, match=r"diverged at update \d+.*eta=1000 is too large; try eta=100"):
        logistic.fit_logistic(X * 10, y, eta=1000.0, num_iters=100)


# --- bad input ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "y, message",
    [
        ([0, 1, 2, 1], r"y must hold class labels 0 or 1; received 1 entry outside that set, with values 2"),
        ([0, -1, 1, 1], r"values -1\b"),
        ([0, 0.5, 1, 1], r"values 0.5\b"),
        ([0, 1, 1], r"y has 3 entries along axis 0, but X's axis 0 gives N = 4"),
        ([0, np.nan, 1, 1], r"y contains 1 NaN"),
    ],
)
def test_bad_labels_raise(y, message):
    X = np.zeros((4, 1))
    for call in (
        lambda: logistic.logistic_cost(X, y, np.zeros(2)),
        lambda: logistic.logistic_gradient(X, y, np.zeros(2)),
        lambda: logistic.fit_logistic(X, y, eta=0.1, num_iters=1),
        lambda: logistic.fit_logistic_newton(X, y, l2=1.0, num_iters=1),
    ):
        with pytest.raises(ValueError, match=message):
            call()


def test_boolean_and_float_labels_are_accepted():
    X, y, rng = make_problem(20, 2)
    w = rng.normal(size=3)
    expected = logistic.logistic_cost(X, y, w)
    assert logistic.logistic_cost(X, y.astype(bool), w) == expected
    assert logistic.logistic_cost(X, y.astype(float), w) == expected


def test_bad_shapes_and_arguments_raise():
    X, y, _ = make_problem(10, 2)
    with pytest.raises(ValueError, match=r"w has 2 entries along axis 0, but X's axis 1 gives m = 2 .* m \+ 1 = 3"):
        logistic.logistic_cost(X, y, np.zeros(2))
    with pytest.raises(ValueError, match=r"X must have shape \(N, m\) \(2-D\).*reshape\(-1, 1\)"):
        logistic.predict_proba(X[:, 0], np.zeros(2))
    with pytest.raises(ValueError, match=r"eta must be a finite number > 0; received -1"):
        logistic.fit_logistic(X, y, eta=-1, num_iters=10)
    with pytest.raises(ValueError, match=r"num_iters must be an integer >= 1; received 0"):
        logistic.fit_logistic_newton(X, y, num_iters=0)
    with pytest.raises(ValueError, match=r"l2 must be a finite number >= 0; received -0.5"):
        logistic.logistic_gradient(X, y, np.zeros(3), l2=-0.5)


# --- the input contract (issue 21) ------------------------------------------------------------------------------


@pytest.mark.parametrize("function", [numeric.sigmoid, numeric.log_sigmoid])
def test_sigmoid_names_z_when_it_is_not_numeric_or_empty(function):
    with pytest.raises(TypeError, match="z must be a numeric array; received the string 'abc'"):
        function("abc")  # used to be NumPy's "could not convert string to float"
    with pytest.raises(ValueError, match=r"z is empty \(shape \(0,\)\)"):
        function([])


def test_newton_steps_are_the_public_gradient_and_hessian_bit_for_bit():
    """fit_logistic_newton is glm.newton on logistic_gradient and logistic_hessian, which the package calls without
    checks; called from outside, with each result checked, the same steps give the same weights."""
    rng = np.random.default_rng(4)
    X, y = rng.normal(size=(20, 3)), rng.integers(0, 2, size=20)

    def gradient_and_hessian(w):
        return logistic.logistic_gradient(X, y, w, l2=0.7), logistic.logistic_hessian(X, y, w, l2=0.7)

    np.testing.assert_array_equal(logistic.fit_logistic_newton(X, y, l2=0.7, num_iters=50),
                                  glm.newton(gradient_and_hessian, np.zeros(4), num_iters=50))


# --- sample and class weights: fit_logistic_weighted ---------------------------------------------


@pytest.mark.parametrize("N, m, l2", [(40, 3, 0.0), (60, 2, 0.5), (25, 4, 2.0)])
def test_integer_weights_equal_repeated_examples(N, m, l2):
    X, y, rng = make_problem(N, m, seed=N + 1)
    v = rng.integers(0, 4, size=N)  # (N,) 0 drops an example, 3 counts it three times
    w = logistic.fit_logistic_weighted(X, y, sample_weight=v, l2=l2, num_iters=50)
    w_repeated = logistic.fit_logistic_newton(np.repeat(X, v, axis=0), np.repeat(y, v), l2=l2, num_iters=50)
    np.testing.assert_allclose(w, w_repeated, rtol=0, atol=1e-10)


def test_unit_weights_are_fit_logistic_newton_bit_for_bit():
    X, y, _ = make_problem(30, 3, seed=11)
    for l2 in (0.0, 0.4):
        w = logistic.fit_logistic_weighted(X, y, sample_weight=np.ones(30), l2=l2, num_iters=50)
        np.testing.assert_array_equal(w, logistic.fit_logistic_newton(X, y, l2=l2, num_iters=50))


@pytest.mark.parametrize("l2", [0.0, 0.8])
def test_scaling_all_weights_by_c_is_dividing_the_penalty_by_c(l2):
    # c times every weight is c copies of the data set: the same mean loss, and a penalty c times weaker
    X, y, rng = make_problem(50, 2, seed=12)
    v = rng.uniform(0.2, 3.0, size=50)  # (N,) real, not integer, weights
    w = logistic.fit_logistic_weighted(X, y, sample_weight=v, l2=l2 / 7.5, num_iters=50)
    w_scaled = logistic.fit_logistic_weighted(X, y, sample_weight=7.5 * v, l2=l2, num_iters=50)
    np.testing.assert_allclose(w_scaled, w, rtol=0, atol=1e-12)


@pytest.mark.parametrize("N, m, l2", [(40, 3, 0.5), (120, 2, 3.0), (60, 5, 0.1)])
@pytest.mark.parametrize("class_weight", [{0: 1.0, 1: 4.0}, {0: 2.5, 1: 0.5}, "balanced"])
def test_class_weights_equal_sklearn(N, m, l2, class_weight):
    X, y, _ = make_problem(N, m, seed=N + 2)
    if class_weight == "balanced":
        v_class = N / (2 * np.bincount(y, minlength=2))  # (2,) N / (2 N_k): each class weighs N/2 in all
    else:
        v_class = np.array([class_weight[0], class_weight[1]])
    w = logistic.fit_logistic_weighted(X, y, sample_weight=v_class[y], l2=l2, num_iters=50)
    model = LogisticRegression(C=1.0 / l2, class_weight=class_weight, tol=1e-12, max_iter=100_000).fit(X, y)
    np.testing.assert_allclose(w, np.r_[model.intercept_, model.coef_.ravel()], atol=1e-6)
    w_unweighted = logistic.fit_logistic_newton(X, y, l2=l2, num_iters=50)
    assert np.max(np.abs(w - w_unweighted)) > 1e-3  # the weights do change the fit: the test can fail


def test_class_weights_shift_the_intercept_by_the_log_weight_ratio():
    # data drawn from a logistic model: weighting class 1 by v1/v0 multiplies the odds of class 1 by v1/v0
    # (Bayes' rule), which the model absorbs by adding log(v1/v0) to the bias and leaving the slopes alone
    rng = np.random.default_rng(13)
    X = rng.normal(size=(200_000, 2))  # (N, m)
    w_true = np.array([-1.5, 1.0, -0.5])
    y = (rng.uniform(size=X.shape[0]) < logistic.predict_proba(X, w_true)).astype(int)  # (N,)
    w_plain = logistic.fit_logistic_newton(X, y, num_iters=50)
    w_weighted = logistic.fit_logistic_weighted(X, y, sample_weight=np.where(y == 1, 4.0, 1.0), num_iters=50)
    np.testing.assert_allclose(w_weighted[0] - w_plain[0], np.log(4.0), atol=0.03)
    np.testing.assert_allclose(w_weighted[1:], w_plain[1:], atol=0.03)


def test_weighted_fit_refuses_bad_weights_by_name():
    X, y, _ = make_problem(10, 2, seed=14)
    with pytest.raises(ValueError, match=r"sample_weight has 9 entries along axis 0, but X's axis 0 gives N = 10"):
        logistic.fit_logistic_weighted(X, y, sample_weight=np.ones(9), num_iters=5)
    with pytest.raises(ValueError, match=r"sample_weight must hold weights >= 0.*sample_weight\[3\] = -1"):
        logistic.fit_logistic_weighted(X, y, sample_weight=np.r_[1.0, 1, 1, -1, np.ones(6)], num_iters=5)
    with pytest.raises(ValueError, match="sample_weight is 0 for every example"):
        logistic.fit_logistic_weighted(X, y, sample_weight=np.zeros(10), num_iters=5)
    with pytest.raises(ValueError, match="sample_weight contains 1 NaN"):
        logistic.fit_logistic_weighted(X, y, sample_weight=np.r_[np.nan, np.ones(9)], num_iters=5)


def test_weighted_fit_on_separable_data_without_l2_raises():
    X = np.array([[-2.0], [-1.0], [1.0], [2.0]])
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="the Hessian is singular"):
        logistic.fit_logistic_weighted(X, y, sample_weight=[1.0, 2.0, 1.0, 3.0], num_iters=100)
    w = logistic.fit_logistic_weighted(X, y, sample_weight=[1.0, 2.0, 1.0, 3.0], l2=0.1, num_iters=100)
    assert np.all(np.isfinite(w))
