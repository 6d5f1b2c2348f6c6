"""The exercise checker must pass a right answer, report a missing one, and catch a wrong one."""

import numpy as np
import pytest

from implementations.linear import regression
from implementations.notebook.exercises import ExerciseCheckFailed, check_function


def cost_inputs(rng, size):
    X = rng.normal(size=(size, 2))
    return X, rng.normal(size=size), rng.normal(size=3)


def test_a_correct_function_passes(capsys):
    def my_cost(X, y, w):
        return 0.5 * np.sum((y - w[0] - X @ w[1:]) ** 2)

    check_function(my_cost, regression.compute_cost, cost_inputs, rng=np.random.default_rng(0))
    assert capsys.readouterr().out == "pass: my_cost agrees with the reference on 20 random inputs.\n"


def test_a_stub_is_reported_not_failed(capsys):
    def my_cost(X, y, w):
        raise NotImplementedError

    check_function(my_cost, regression.compute_cost, cost_inputs, rng=np.random.default_rng(0))
    out = capsys.readouterr().out
    assert "my_cost is not implemented yet" in out and "pass" not in out


def test_a_wrong_function_fails_on_the_smallest_input():
    def my_cost(X, y, w):  # forgets the ½, wrong whenever the cost is non-zero
        return np.sum((y - w[0] - X @ w[1:]) ** 2)

    with pytest.raises(AssertionError, match=r"my_cost disagrees with the reference on input 1 of 20"):
        check_function(my_cost, regression.compute_cost, cost_inputs, rng=np.random.default_rng(0))


def test_a_wrong_shape_fails():
    def my_gradient(X, y, w):
        return regression.compute_gradient(X, y, w)[1:]

    with pytest.raises(AssertionError, match=r"wrong shape: expected \(3,\), received \(2,\)"):
        check_function(my_gradient, regression.compute_gradient, cost_inputs, rng=np.random.default_rng(0))


def test_warnings_as_errors_fails_a_function_that_warns():
    def naive_log_sigmoid(z):
        return -np.log1p(np.exp(-z))  # overflows for z < -709

    def inputs(rng, size):
        return (np.array([-1000.0, 0.0, 1000.0]),)

    def reference(z):
        return -np.logaddexp(0.0, -z)

    with pytest.raises(AssertionError, match=r"(?s)naive_log_sigmoid emitted a warning.*RuntimeWarning: overflow"):
        check_function(naive_log_sigmoid, reference, inputs, rng=np.random.default_rng(0), warnings_as_errors=True)
    with np.errstate(over="ignore", divide="ignore"), pytest.raises(AssertionError, match="disagrees"):  # wrong too
        check_function(lambda z: np.log(1 / (1 + np.exp(-z))), reference, inputs, rng=np.random.default_rng(0))


def test_an_exception_in_the_readers_code_is_reported_with_its_input():
    def my_gradient(X, y, w):
        return X @ w  # (N, m) @ (m + 1,): a broadcast error from NumPy

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)my_gradient raised ValueError: matmul.*input 1 of 20.*"
                                                  r"X = array of shape \(1, 2\).*w = array of shape \(3,\)") as info:
        check_function(my_gradient, regression.compute_gradient, cost_inputs, rng=np.random.default_rng(0))
    assert isinstance(info.value.__cause__, ValueError)  # the reader's own traceback is kept, chained


def test_a_missing_return_is_named():
    def my_cost(X, y, w):
        0.5 * np.sum((y - w[0] - X @ w[1:]) ** 2)

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)my_cost is not an array of numbers: received None.*forget"):
        check_function(my_cost, regression.compute_cost, cost_inputs, rng=np.random.default_rng(0))


def test_the_difference_is_located_and_the_quantity_named():
    def my_gradient(X, y, w):
        g = regression.compute_gradient(X, y, w).copy()
        g[2] += 1.0
        return g

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)my_gradient \(the gradient\) disagrees.*"
                                                  r"largest difference at index \(2,\)"):
        check_function(my_gradient, regression.compute_gradient, cost_inputs, rng=np.random.default_rng(0),
                       quantity="the gradient")


def test_a_difference_below_the_shown_digits_is_shown_with_more_digits_and_explained():
    def my_gradient(X, y, w):  # off by a relative 3 × 10⁻⁷, as float32 round-off or a tiny regulariser can be
        return regression.compute_gradient(X, y, w) * (1 + 3e-7)

    with pytest.raises(ExerciseCheckFailed, match=r"(?s)largest difference.*expected -?\d\.\d{9,}.*float32") as info:
        check_function(my_gradient, regression.compute_gradient, cost_inputs, rng=np.random.default_rng(0))
    assert "equal to 6 digits" in str(info.value)

    def off_by_one(X, y, w):  # visibly different: the usual 6 digits, and no such remark
        return regression.compute_gradient(X, y, w) + 1.0

    with pytest.raises(ExerciseCheckFailed) as info:
        check_function(off_by_one, regression.compute_gradient, cost_inputs, rng=np.random.default_rng(0))
    assert "float32" not in str(info.value)


def test_the_checkers_frame_is_hidden_from_tracebacks():
    def my_cost(X, y, w):
        return 0.0

    with pytest.raises(ExerciseCheckFailed) as info:
        check_function(my_cost, regression.compute_cost, cost_inputs, rng=np.random.default_rng(0))
    frames = [entry.frame for entry in info.traceback]
    assert any(frame.f_locals.get("__tracebackhide__") for frame in frames)  # IPython and pytest skip it


def test_ipython_shows_the_message_and_the_readers_frames_only():
    """IPython renders an exception through _render_traceback_: no line of the checker's code appears."""
    def my_gradient(X, y, w):
        return X @ w  # the reader's bug

    with pytest.raises(ExerciseCheckFailed) as info:
        check_function(my_gradient, regression.compute_gradient, cost_inputs, rng=np.random.default_rng(0))
    shown = "\n".join(info.value._render_traceback_())
    assert "return X @ w  # the reader's bug" in shown and "ValueError: matmul" in shown
    assert shown.index("return X @ w") < shown.index("ExerciseCheckFailed: my_gradient raised ValueError")
    assert "implementations/notebook/exercises.py" not in shown and "raise ExerciseCheckFailed" not in shown

    def my_cost(X, y, w):
        return 0.0

    with pytest.raises(ExerciseCheckFailed) as info:
        check_function(my_cost, regression.compute_cost, cost_inputs, rng=np.random.default_rng(0))
    shown = info.value._render_traceback_()
    assert shown[0].startswith("ExerciseCheckFailed: my_cost disagrees") and "Traceback" not in "\n".join(shown)
