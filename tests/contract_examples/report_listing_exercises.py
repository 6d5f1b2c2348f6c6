"""Valid examples for the input contract: report, listing, exercises and exercise_checks (the notebooks' helpers)."""

import numpy as np

from contract import Example
from implementations.linear import regression
from implementations.notebook import exercise_checks, exercises, listing, report

_NOT_A_NUMBER = [("a string", "small"), ("None", None), ("a negative number", -1e-9)]


def _square_inputs(rng, size):
    return (rng.normal(size=size),)


EXAMPLES = {
    "implementations.notebook.report.within": Example(
        build=lambda: (report.within, {"error": 3e-9, "tol": 1e-6}),
        roles={"tol": "rate"},
        extra=[(f"error = {d}", {"error": v}, (ValueError,)) for d, v in _NOT_A_NUMBER],
        passthrough={"error": "NaN and inf are printed as 'NOT below': the claim fails visibly"}),
    "implementations.notebook.report.power_of_ten": Example(
        build=lambda: (report.power_of_ten, {"value": 1e-6}), roles={"value": "rate"}),
    "implementations.notebook.listing.Listing": Example(
        build=lambda: (listing.Listing, {"source": "def f():\n    return 1"}),
        extra=[("a function instead of its source", {"source": regression.add_bias}, (TypeError,))]),
    "implementations.notebook.listing.show_source": Example(
        build=lambda: (listing.show_source, {"obj": regression.add_bias, "docstring": False}),
        roles={"docstring": "flag"},
        extra=[("a built-in", {"obj": len}, (TypeError,)), ("a lambda", {"obj": lambda x: x}, (TypeError,)),
               ("a string", {"obj": "regression.add_bias"}, (TypeError,))]),
    "implementations.notebook.exercises.check_function": Example(
        build=lambda: (exercises.check_function, {
            "candidate": np.square, "reference": lambda z: z * z, "make_inputs": _square_inputs,
            "rng": np.random.default_rng(0), "trials": 3, "rtol": 1e-7, "atol": 1e-9,
            "warnings_as_errors": False, "name": "square", "hint": None}),
        roles={"rng": "rng", "trials": "count", "rtol": "penalty", "atol": "penalty", "warnings_as_errors": "flag"},
        extra=[("the result of a call instead of the function", {"candidate": 4.0}, (TypeError,)),
               ("a string", {"reference": "square"}, (TypeError,)),
               ("None", {"make_inputs": None}, (TypeError,)),
               ("a number", {"name": 3}, (TypeError,)),
               ("a string instead of a function", {"hint": "the diagonal"}, (TypeError,))]),
}

# Every exercise check takes the reader's function and an rng, and passes them on to check_function.
_SOLUTIONS = {
    "averaged_gradient": lambda X, y, w: regression.compute_gradient(X, y, w, average=True),
    "dropout_forward_backward": lambda H, mask, p, grad_out: (H * mask / (1 - p), grad_out * mask / (1 - p)),
}


def _check_example(check_name):
    check = getattr(exercise_checks, check_name)
    reference = getattr(exercise_checks, "_REFERENCES", {}).get(check_name)
    candidate = _SOLUTIONS.get(check_name, reference)

    def stub(*args):
        raise NotImplementedError  # the reader has not written it yet: the check prints a reminder

    return Example(
        build=lambda: (check, {"candidate": candidate or stub, "rng": np.random.default_rng(0)}),
        roles={"rng": "rng"},
        extra=[("the result of a call instead of the function", {"candidate": 1.0}, (TypeError,))])


for _name in exercise_checks.__all__:
    EXAMPLES[f"{getattr(exercise_checks, _name).__module__}.{_name}"] = _check_example(_name)
