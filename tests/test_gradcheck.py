"""Tests of the finite-difference checker itself: it must accept right gradients and reject wrong ones."""

import numpy as np
import pytest

from implementations.linear.softmax_regression import softmax
from implementations.preliminaries.gradcheck import check_gradient, numerical_gradient, numerical_jacobian


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


# --- the input contract (issue 21) ------------------------------------------------------------------------------


def test_numerical_gradient_names_its_bad_arguments():
    with pytest.raises(TypeError, match="f must be a scalar function of an array; received the string 'sum'"):
        numerical_gradient("sum", np.ones(2))  # used to be Python's "'str' object is not callable"
    with pytest.raises(TypeError, match=r"f must return a scalar; received an array of shape \(2,\)"):
        numerical_gradient(lambda v: v * 2, np.ones(2))
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"f returned NaN or ±inf at x ± eps in entry 0"):
        numerical_gradient(lambda v: np.log(v[0]), np.zeros(2))  # used to return a NaN gradient
    with pytest.raises(TypeError, match="x must be a numeric array; received the string 'abc'"):
        numerical_gradient(np.sum, "abc")  # used to be NumPy's "could not convert string to float"
    with pytest.raises(ValueError, match=r"x is empty \(shape \(0,\)\)"):
        numerical_gradient(np.sum, [])


def test_check_gradient_names_its_bad_arguments():
    x = np.ones(3)
    with pytest.raises(TypeError, match="grad_f must be the gradient function of f; received an array"):
        check_gradient(np.sum, np.ones(3), x)
    with pytest.raises(TypeError, match="x must be a numeric array; received the string 'abc'"):
        check_gradient(np.sum, np.ones_like, "abc")  # grad_f used to be called on the string first
    with pytest.raises(ValueError, match=r"grad_f returned 3 NaN or infinite value\(s\) at x"):
        check_gradient(np.sum, lambda v: np.full_like(v, np.nan), x)  # used to return an error of nan


# --- numerical_jacobian (appendix A) -----------------------------------------------------------------------------


@pytest.mark.parametrize(("m", "n"), [(1, 1), (2, 3), (4, 2)])
def test_numerical_jacobian_of_a_linear_map_is_its_matrix(m, n):
    rng = np.random.default_rng(m + 10 * n)
    A, b, x = rng.normal(size=(m, n)), rng.normal(size=m), rng.normal(size=n)
    J = numerical_jacobian(lambda v: A @ v + b, x)
    assert J.shape == (m, n)  # one row per output, one column per input
    np.testing.assert_allclose(J, A, rtol=1e-8, atol=1e-9)


@pytest.mark.parametrize("K", [2, 3, 6])
def test_numerical_jacobian_of_softmax_is_diag_p_minus_p_p_transpose(K):
    z = np.random.default_rng(K).normal(size=K) * 2
    p = softmax(z)
    np.testing.assert_allclose(numerical_jacobian(softmax, z), np.diag(p) - np.outer(p, p), rtol=1e-6, atol=1e-9)


def test_numerical_jacobian_of_a_scalar_function_is_the_gradient():
    x = np.array([[0.4, -1.1], [2.0, 0.3]])
    f = lambda v: np.sum(np.exp(v) * v)  # noqa: E731
    np.testing.assert_allclose(numerical_jacobian(f, x), numerical_gradient(f, x), rtol=1e-12)


def test_numerical_jacobian_keeps_the_shapes_and_leaves_x_alone():
    x = np.arange(6.0).reshape(2, 3) / 4
    J = numerical_jacobian(lambda v: v, x)  # f returns x itself, which the differences must not see change
    assert J.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(J.reshape(6, 6), np.eye(6), atol=1e-9)
    J = numerical_jacobian(np.sin, x)  # elementwise: ∂ sin(x_ij)/∂x_kl = cos(x_ij) when (i, j) = (k, l), else 0
    np.testing.assert_allclose(J.reshape(6, 6), np.diag(np.cos(x).ravel()), rtol=1e-8, atol=1e-10)
    np.testing.assert_array_equal(x, np.arange(6.0).reshape(2, 3) / 4)


def test_numerical_jacobian_names_its_bad_arguments():
    with pytest.raises(TypeError, match="f must be a function of an array; received the string 'sin'"):
        numerical_jacobian("sin", np.ones(2))
    with pytest.raises(TypeError, match=r"f\(x\) must be a numeric array; received the string 'a'"):
        numerical_jacobian(lambda v: "a", np.ones(2))
    with pytest.raises(ValueError, match=r"f returned shape \(3,\) at x \+ eps in entry 0 of x \(flattened\) but "
                                         r"shape \(2,\) at x"):
        numerical_jacobian(lambda v: np.ones(2) if v[0] == 1 else np.ones(3), np.ones(2))
    with np.errstate(all="ignore"), pytest.raises(ValueError, match=r"f returned NaN or ±inf at x ± eps in entry 1"):
        numerical_jacobian(np.log, np.array([1.0, 1e-7]))  # log of a negative number at x - eps in entry 1
    with pytest.raises(ValueError, match="eps must be a finite number > 0"):
        numerical_jacobian(np.sin, np.ones(2), eps=-1e-6)
    with pytest.raises(ValueError, match=r"x is empty \(shape \(0,\)\)"):
        numerical_jacobian(np.sin, [])
