"""The declared input contract itself (implementations/_contract.py): roles, shapes, the package's own calls, the
callables a caller gives the package, and the errors of calls Python refuses."""

import functools
import types

import numpy as np
import pytest

from implementations import _contract
from implementations._contract import ResultsChecked, checked, passes_through
from implementations.engine import Tensor


@checked(X="array (N, m)", y="array (N,)", w="array (m + 1,)", l2="penalty")
def _gradient(X, y, w, *, l2=0.0):
    return X.shape, y.dtype, w.shape, l2


def test_roles_convert_and_shapes_agree():
    shapes, dtype, w_shape, l2 = _gradient([[1, 2], [3, 4], [5, 6]], [1, 2, 3], [0, 0, 0], l2=1)
    assert shapes == (3, 2) and dtype == np.float64 and w_shape == (3,) and isinstance(l2, float)


@pytest.mark.parametrize(("call", "message"), [
    (lambda: _gradient(np.ones((3, 2)), np.ones(2), np.ones(3)),
     r"^y has 2 entries along axis 0, but X's axis 0 gives N = 3 \(the number of examples\): expected y of shape "
     r"\(N,\) with N = 3 there\. Give y 3 entries along that axis"),
    (lambda: _gradient(np.ones((3, 2)), np.ones(3), np.ones(2)),
     r"^w has 2 entries along axis 0, but X's axis 1 gives m = 2 .* with m \+ 1 = 3 there"),
    (lambda: _gradient(np.ones(3), np.ones(3), np.ones(2)),
     r"^X must have shape \(N, m\) \(2-D\); received shape \(3,\) \(1-D\)\. For a single feature use x\.reshape"),
    (lambda: _gradient(np.ones((3, 2)), np.ones(3), np.ones(3), l2=-1), r"^l2 must be a finite number >= 0"),
    (lambda: _gradient("X", np.ones(3), np.ones(3)), r"^X must be a numeric array; received the string 'X'"),
])
def test_a_bad_argument_is_named_with_what_was_expected(call, message):
    with pytest.raises((ValueError, TypeError), match=message):
        call()


def test_a_name_first_met_in_an_expression_is_solved_for():
    @checked(w="array (m + 1,)", X="array (N, m)")
    def f(w, X):
        return "ok"

    assert f(np.ones(3), np.ones((4, 2))) == "ok"
    with pytest.raises(ValueError, match=r"X has 3 entries along axis 1, but w's axis 0 gives m = 2"):
        f(np.ones(3), np.ones((4, 3)))


def test_alternatives_variadic_axes_fixed_sizes_and_attributes():
    class Layer:
        width = 3

        @checked(x="array (T, self.width) | (B, T, self.width)", pair="array (2,)", rest="array (*S, 2)?")
        def forward(self, x, pair, rest=None):
            return x.ndim

    layer = Layer()
    assert layer.forward(np.ones((4, 3)), np.ones(2)) == 2 and layer.forward(np.ones((2, 4, 3)), np.ones(2)) == 3
    assert layer.forward(np.ones((4, 3)), np.ones(2), rest=np.ones((5, 6, 2))) == 2
    with pytest.raises(ValueError, match=r"x has 4 entries along axis 1, but Layer\.width is 3"):
        layer.forward(np.ones((4, 4)), np.ones(2))
    with pytest.raises(ValueError, match=r"^pair has 3 entries along axis 0; expected 2, as in the shape \(2,\)"):
        layer.forward(np.ones((4, 3)), np.ones(3))
    with pytest.raises(ValueError, match=r"x must have shape \(T, self\.width\) or \(B, T, self\.width\)"):
        layer.forward(np.ones(3), np.ones(2))


def test_labels_bounded_by_another_argument_are_checked_after_it():
    @checked(y="labels < K", K="count")
    def f(y, K):
        return y.dtype

    assert f([0, 2, 1], 3) == np.int64
    with pytest.raises(ValueError, match=r"K must be an integer >= 1"):
        f([0, 1], 0)  # the count is checked first: the bound is never a bad value
    with pytest.raises(ValueError, match=r"y must hold class labels"):
        f([0, 3], 3)


def test_choices_from_braces_or_from_a_collection():
    options = {"relu": None, "tanh": None}

    @checked(a="{sum, mean}", b=options)
    def f(a, b):
        return a, b

    assert f("sum", "tanh") == ("sum", "tanh")
    with pytest.raises(ValueError, match=r"a must be one of 'sum', 'mean'; received 'max'"):
        f("max", "relu")
    with pytest.raises(ValueError, match=r"b must be one of 'relu', 'tanh'; received 'gelu'"):
        f("sum", "gelu")


def test_a_keyword_only_argument_given_by_position_gets_python_s_own_error():
    with pytest.raises(TypeError, match=r"takes 3 positional arguments but 4 were given"):
        _gradient(np.ones((3, 2)), np.ones(3), np.ones(3), 0.1)
    with pytest.raises(TypeError, match=r"missing 1 required positional argument"):
        _gradient(np.ones((3, 2)), np.ones(3))


def _package_module(name, source, **names):
    """A module whose code counts as the package's own (its name starts with implementations.)."""
    module = types.ModuleType(f"implementations.{name}")
    module.__dict__.update(names)
    exec(source, module.__dict__)  # noqa: S102
    return module


def test_the_package_s_own_calls_skip_the_checks_but_a_caller_s_function_does_not():
    inside = _package_module("_test_inside", "def call(f, *args, **kwargs):\n    return f(*args, **kwargs)\n")
    bad = ("not an array", np.ones(3), np.ones(3))
    with pytest.raises(TypeError):
        _gradient(*bad)  # from outside: checked
    with pytest.raises(Exception) as error:  # noqa: PT011
        inside.call(_gradient, *bad)  # from inside: trusted, so the body meets the raw value
    assert "must be a numeric array" not in str(error.value)
    caller_s = _contract.V.check_callable(functools.partial(_gradient, l2=-1.0), "fit")
    with pytest.raises(ValueError, match="l2 must be a finite number >= 0"):
        inside.call(caller_s, np.ones((3, 2)), np.ones(3), np.ones(3))  # a caller's partial, called by the package


def test_a_function_that_passes_through_lets_its_caller_s_calls_be_checked():
    relay = _package_module("_test_relay", "def relay(f, *args):\n    return f(*args)\n")
    relay.relay = passes_through(relay.relay)
    with pytest.raises(TypeError, match="must be a numeric array"):
        relay.relay(_gradient, "X", np.ones(3), np.ones(3))


def test_results_of_a_caller_s_function_are_checked_and_its_attributes_kept():
    def model(x):
        return x[:-1]

    model.width = 7

    def same_length(result, x):
        if len(result) != len(x):
            raise ValueError(f"model returned {len(result)} values for {len(x)} inputs")
        return result

    checked_model = ResultsChecked(model, same_length)
    assert checked_model.width == 7
    with pytest.raises(ValueError, match="model returned 2 values for 3 inputs"):
        checked_model(np.ones(3))


def test_arrays_in_arrays_out_tensors_in_tensors_out():
    @checked(a="tensor", like_inputs=True)
    def double(a):
        return a * 2.0, a

    out, same = double(np.ones(2))
    assert type(out) is np.ndarray and type(same) is np.ndarray
    t = Tensor(np.ones(2))
    out, same = double(t)
    assert isinstance(out, Tensor) and same is t


def test_an_unknown_role_or_argument_is_refused_when_declared():
    with pytest.raises(ValueError, match="unknown role"):
        checked(x="arrray")(lambda x: x)
    with pytest.raises(TypeError, match="names"):
        checked(z="array")(lambda x: x)
