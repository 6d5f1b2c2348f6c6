"""Tests of the finite-difference checker itself: it must accept right gradients and reject wrong ones."""

import numpy as np
import pytest

from implementations.gradcheck import check_gradient, numerical_gradient


def test_numerical_gradient_of_a_quadratic_is_exact_up_to_rounding():
    rng = np.random.default_rng(0)
    A = rng.normal(size=(4, 4))
    A = A @ A.T
    b = rng.normal(size=4)
    x = rng.normal(size=4)
    f = lambda v: 0.5 * v @ A @ v - b @ v  # noqa: E731
    np.testing.assert_allclose(numerical_gradient(f, x), A @ x - b, rtol=1e-7, atol=1e-8)


def test_numerical_gradient_keeps_the_shape_and_leaves_x_alone():
    x = np.arange(6.0).reshape(2, 3)
    grad = numerical_gradient(lambda v: np.sum(np.sin(v)), x)
    assert grad.shape == (2, 3)
    np.testing.assert_allclose(grad, np.cos(x), rtol=1e-8)
    np.testing.assert_array_equal(x, np.arange(6.0).reshape(2, 3))


def test_check_gradient_accepts_the_right_gradient_and_rejects_a_wrong_one():
    x = np.array([0.3, -1.2, 2.0])
    f = lambda v: np.sum(v**3)  # noqa: E731
    assert check_gradient(f, lambda v: 3 * v**2, x) < 1e-8
    assert check_gradient(f, lambda v: 3 * v**2 * 1.01, x) > 1e-3  # a 1% error is caught
    assert check_gradient(f, lambda v: 2 * v**2, x) > 0.1


def test_check_gradient_shape_mismatch():
    with pytest.raises(ValueError, match=r"grad_f returned shape \(2,\) but x has shape \(3,\)"):
        check_gradient(lambda v: v.sum(), lambda v: np.ones(2), np.zeros(3))


def test_bad_eps():
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        numerical_gradient(lambda v: v.sum(), np.zeros(2), eps=0.0)
