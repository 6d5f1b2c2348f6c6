"""Tests of the basis functions, standardization and the train/test split."""

import numpy as np
import pytest
from sklearn.model_selection import train_test_split as sk_split
from sklearn.preprocessing import PolynomialFeatures, StandardScaler

from implementations.data.preprocessing import standardize, train_test_split, unstandardize_weights
from implementations.linear import regression
from implementations.linear.basis import gaussian_basis, polynomial_features, sigmoid_basis


@pytest.mark.parametrize("degree", [1, 3, 7])
def test_polynomial_features_equal_sklearn(degree):
    x = np.random.default_rng(0).uniform(-2, 2, size=11)
    expected = PolynomialFeatures(degree, include_bias=False).fit_transform(x[:, None])
    np.testing.assert_allclose(polynomial_features(x, degree), expected, rtol=1e-12)


def test_polynomial_features_accepts_a_column():
    x = np.linspace(0, 1, 5)
    np.testing.assert_array_equal(polynomial_features(x[:, None], 2), polynomial_features(x, 2))


def test_gaussian_basis_values():
    x = np.array([0.0, 1.0, 2.0])
    Phi = gaussian_basis(x, centers=[1.0, 2.0], width=0.5)
    assert Phi.shape == (3, 2)
    np.testing.assert_allclose(Phi[1, 0], 1.0)  # at its centre
    np.testing.assert_allclose(Phi[0, 0], np.exp(-1 / (2 * 0.25)), rtol=1e-12)
    np.testing.assert_allclose(Phi[:, 1], np.exp(-((x - 2.0) ** 2) / 0.5), rtol=1e-12)


def test_sigmoid_basis_values_and_no_overflow():
    x = np.array([-1e4, 0.0, 0.3, 1e4])
    with np.errstate(over="raise", divide="raise", invalid="raise"):  # e^(−|a|) may underflow to 0: exact
        Phi = sigmoid_basis(x, centers=[0.0], width=0.1)
    np.testing.assert_allclose(Phi[:, 0], [0.0, 0.5, 1 / (1 + np.exp(-3.0)), 1.0], rtol=1e-12, atol=1e-300)


def test_basis_rejects_bad_input():
    with pytest.raises(ValueError, match="degree must be an integer >= 1"):
        polynomial_features(np.ones(3), 0)
    with pytest.raises(ValueError, match="width must be a finite number > 0"):
        gaussian_basis(np.ones(3), [0.0], 0.0)
    with pytest.raises(ValueError, match=r"x must have shape \(N,\) or \(N, 1\).*received shape \(3, 2\)"):
        sigmoid_basis(np.ones((3, 2)), [0.0], 1.0)


def test_standardize_equals_sklearn_scaler():
    X = np.random.default_rng(1).normal(loc=[3, -2], scale=[10, 0.1], size=(50, 2))
    X_std, mean, std = standardize(X)
    np.testing.assert_allclose(X_std, StandardScaler().fit_transform(X), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(X_std.mean(axis=0), 0.0, atol=1e-12)
    np.testing.assert_allclose(X_std.std(axis=0), 1.0, rtol=1e-12)
    X_again, _, _ = standardize(X, mean=mean, std=std)
    np.testing.assert_array_equal(X_again, X_std)


def test_standardize_constant_column_raises():
    X = np.c_[np.arange(4.0), np.full(4, 7.0)]
    with pytest.raises(ValueError, match=r"column\(s\) \[1\] of X have standard deviation \[0.0\]"):
        standardize(X)


def test_standardize_statistics_of_the_wrong_length_raise():
    with pytest.raises(ValueError, match=r"mean has 3 entries along axis 0, but X's axis 1 gives m = 2"):
        standardize(np.ones((4, 2)), mean=np.zeros(3), std=np.ones(2))


def test_unstandardized_weights_predict_the_same_on_raw_inputs():
    rng = np.random.default_rng(2)
    X = rng.normal(loc=[1000, 3, 40], scale=[300, 1, 20], size=(30, 3))
    y = rng.normal(size=30)
    X_std, mean, std = standardize(X)
    w_std = regression.normal_equations(X_std, y)
    w = unstandardize_weights(w_std, mean, std)
    np.testing.assert_allclose(regression.predict(X, w), regression.predict(X_std, w_std), rtol=1e-10)
    # and they are the raw least-squares weights, since least squares is equivariant to rescaling
    np.testing.assert_allclose(w, regression.normal_equations(X, y), rtol=1e-8)


def test_unstandardize_weights_length_mismatch():
    with pytest.raises(ValueError, match=r"w_std has 3 entries along axis 0, but std's axis 0 gives m = 3 .* "
                                         r"m \+ 1 = 4"):
        unstandardize_weights(np.ones(3), np.zeros(3), np.ones(3))


def test_train_test_split_partitions_the_data():
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10.0)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_fraction=0.3, rng=np.random.default_rng(0))
    assert X_te.shape == (3, 2) and X_tr.shape == (7, 2)
    np.testing.assert_array_equal(np.sort(np.r_[y_tr, y_te]), y)  # every example exactly once
    np.testing.assert_array_equal(X_tr[:, 0] / 2, y_tr)  # rows stay paired with their targets
    np.testing.assert_array_equal(X_te[:, 0] / 2, y_te)


def test_train_test_split_sizes_match_sklearn():
    X, y = np.zeros((37, 1)), np.zeros(37)
    for fraction in (0.1, 0.25, 0.5):
        ours = train_test_split(X, y, test_fraction=fraction, rng=np.random.default_rng(0))
        theirs = sk_split(X, y, test_size=fraction, random_state=0)
        assert abs(ours[1].shape[0] - theirs[1].shape[0]) <= 1


@pytest.mark.parametrize("fraction", [0.0, 1.0, -0.2, 1.5])
def test_train_test_split_bad_fraction(fraction):
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        train_test_split(np.ones((5, 1)), np.ones(5), test_fraction=fraction, rng=np.random.default_rng(0))


def test_train_test_split_too_few_examples():
    with pytest.raises(ValueError, match="leaves no training example"):
        train_test_split(np.ones((1, 1)), np.ones(1), test_fraction=0.5, rng=np.random.default_rng(0))


# --- the input contract (issue 21) ------------------------------------------------------------------------------


@pytest.mark.parametrize("std", [[2.0, 0.0], [-2.0, 0.5]])
def test_unstandardize_weights_refuses_a_std_that_is_not_positive(std):
    # a zero used to give inf with only a RuntimeWarning, and a negative std passed
    with pytest.raises(ValueError, match=r"std has the value\(s\) \[-?[02]\.0\] at position\(s\) \[[01]\]; expected "
                                         r"standard deviations > 0"):
        unstandardize_weights([1.0, 2.0, 3.0], [0.0, 0.0], std)


def test_standardize_names_a_given_std_that_is_not_positive():
    # the message used to blame "column(s) [1] of X", whose own standard deviation was never computed
    with pytest.raises(ValueError, match=r"^std has the value\(s\) \[0\.0\] at position\(s\) \[1\]"):
        standardize(np.ones((3, 2)), mean=[0.0, 0.0], std=[1.0, 0.0])


@pytest.mark.parametrize("function", [lambda x: polynomial_features(x, 2),
                                      lambda x: gaussian_basis(x, [0.0], 1.0),
                                      lambda x: sigmoid_basis(x, [0.0], 1.0)])
def test_basis_functions_name_x_when_it_is_not_numeric_or_empty(function):
    with pytest.raises(TypeError, match="x must be a numeric array; received the string 'abc'"):
        function("abc")  # used to be NumPy's "could not convert string to float"
    with pytest.raises(ValueError, match=r"x is empty \(shape \(0,\)\)"):
        function(np.array([]))  # used to return an empty matrix


def test_basis_functions_refuse_no_centres():
    with pytest.raises(ValueError, match=r"centers is empty \(shape \(0,\)\)"):
        gaussian_basis(np.ones(3), [], 1.0)  # used to return a (3, 0) matrix
