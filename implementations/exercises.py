"""The check behind the exercise cells: compare a reader's function with the package's on random inputs."""

import warnings

import numpy as np

from ._validation import check_positive_int, check_rng

__all__ = ["check_function"]


def _describe(value):
    """A short, readable rendering of an argument or a result."""
    if isinstance(value, np.ndarray):
        with np.printoptions(precision=4, suppress=True, threshold=20):
            return f"array of shape {value.shape}: {value!r}"
    return repr(value)


def check_function(candidate, reference, make_inputs, *, rng, trials=20, rtol=1e-7, atol=1e-9,
                   warnings_as_errors=False):
    """Test ``candidate`` against ``reference`` on inputs of growing size.

    Trial k (k = 1, …, ``trials``) calls ``make_inputs(rng, k)``, which returns the positional
    arguments for both functions, with problem size k; inputs grow with k, so the first failure is
    the smallest failing input.

    Parameters
    ----------
    candidate : callable
        The reader's function.
    reference : callable
        The package's function, taking the same arguments.
    make_inputs : callable (rng, size) -> tuple
        Builds one set of random arguments.
    rng : numpy.random.Generator
    trials : int, default 20
    rtol, atol : float
        Tolerances of ``np.allclose``.
    warnings_as_errors : bool, default False
        Fail if ``candidate`` emits any warning (an overflow in ``np.exp``, say): for exercises whose
        point is numerical stability.

    It prints one line: ``pass: …`` when every trial agrees, or a reminder when ``candidate`` still
    raises ``NotImplementedError``.

    Raises
    ------
    AssertionError
        On the first disagreement, showing the input and both results.
    """
    rng = check_rng(rng)
    trials = check_positive_int(trials, "trials")
    name = getattr(candidate, "__name__", "your function")
    for size in range(1, trials + 1):
        args = make_inputs(rng, size)
        expected = reference(*args)
        try:
            with warnings.catch_warnings():
                if warnings_as_errors:
                    warnings.simplefilter("error")
                received = candidate(*args)
        except NotImplementedError:
            print(f"{name} is not implemented yet:\nreplace `raise NotImplementedError` with your code.")
            return
        except Warning as warning:
            shown = "\n".join(f"  argument {i}: {_describe(a)}" for i, a in enumerate(args))
            raise AssertionError(
                f"{name} emitted a warning on this input (size {size}), which this exercise does not allow:\n"
                f"{shown}\n  warning: {type(warning).__name__}: {warning}"
            ) from None
        received_arr = np.asarray(received, dtype=np.float64)
        expected_arr = np.asarray(expected, dtype=np.float64)
        if received_arr.shape != expected_arr.shape or not np.allclose(
            received_arr, expected_arr, rtol=rtol, atol=atol
        ):
            shown = "\n".join(f"  argument {i}: {_describe(a)}" for i, a in enumerate(args))
            raise AssertionError(
                f"{name} disagrees with the reference on this input (size {size}):\n{shown}\n"
                f"  yours:    {_describe(received)}\n  expected: {_describe(expected)}"
            )
    print(f"pass: {name} agrees with the reference on {trials} random inputs.")
