"""The check behind the exercise cells: compare a reader's function with the package's on random inputs.

A check should teach, not only judge. When the reader's function is wrong, the message names it, shows the
smallest input on which it fails (with the argument names of the reader's own signature) and says what kind of
wrong: an exception raised inside it, a result of the wrong shape, a warning where none is allowed, or values
that differ, with the largest difference and where it is. The checker's own lines are hidden from the
traceback (IPython and pytest honour ``__tracebackhide__``), so the message is what the reader sees first.
"""

import inspect
import traceback
import warnings
from pathlib import Path

import numpy as np

from .._contract import checked
from ._checks import text, your_function

__all__ = ["ExerciseCheckFailed", "check_function"]


def _remind_not_implemented(name):
    """Print the reminder for an exercise whose function still raises ``NotImplementedError``."""
    print(f"{name} is not implemented yet:\nreplace `raise NotImplementedError` with your code.")


class ExerciseCheckFailed(AssertionError):
    """The reader's function disagrees with the reference; the message says on which input and how."""

    def _render_traceback_(self):
        """How IPython shows this error: the message, after the reader's own frames if their code raised.

        IPython always shows the frame that raises, even one marked ``__tracebackhide__``; rendering the
        exception itself keeps the checker's code out of the reader's way.
        """
        lines = []
        cause = self.__cause__
        if cause is not None:  # an error inside the reader's function: show where, in their code
            checks = Path(__file__).with_name("exercise_checks").resolve()  # the checks' frames are not the reader's
            frames = [f for f in traceback.extract_tb(cause.__traceback__)
                      if Path(f.filename).resolve() != Path(__file__).resolve()
                      and Path(f.filename).resolve().parent != checks]
            lines += ["Traceback of the error in your code (most recent call last):"]
            lines += [line.rstrip("\n") for line in traceback.format_list(frames)]
            lines += [f"{type(cause).__name__}: {cause}", ""]
        lines += [f"{type(self).__name__}: {self}"]
        return lines


def _describe(value):
    """A short, readable rendering of an argument or a result."""
    if isinstance(value, np.ndarray):
        with np.printoptions(precision=4, suppress=True, threshold=20):
            return f"array of shape {value.shape}: {value!r}"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.6g}"
    if isinstance(value, np.integer):
        return str(int(value))
    return repr(value)


def _argument_names(candidate, count):
    """The names of the candidate's first ``count`` parameters, or arg0, arg1, … when they cannot be read."""
    try:
        names = [p.name for p in inspect.signature(candidate).parameters.values()
                 if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        names = []
    return names[:count] if len(names) >= count else [f"arg{i}" for i in range(count)]


def _show_input(candidate, args):
    names = _argument_names(candidate, len(args))
    return "\n".join(f"  {name} = {_describe(arg)}" for name, arg in zip(names, args, strict=True))


def _as_array(value):
    """``value`` as a float64 array, or None when it is not numeric (None, a string, a Tensor, …)."""
    if value is None or isinstance(value, str):
        return None  # np.asarray would turn None into NaN and a digit string into a number
    try:
        return np.asarray(value, dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _difference(received, expected):
    """Where two equally shaped arrays differ most, as text."""
    if received.ndim == 0:
        return f"difference {abs(received - expected):.3g}"
    gap = np.abs(received - expected)
    gap = np.where(np.isnan(gap), np.inf, gap)  # a NaN where a number was expected counts as the largest
    index = np.unravel_index(np.argmax(gap), gap.shape)
    yours, wanted = received[index], expected[index]
    if f"{yours:.6g}" != f"{wanted:.6g}":
        return f"largest difference at index {tuple(int(i) for i in index)}: yours {yours:.6g}, expected {wanted:.6g}"
    # equal to the 6 digits that are usually shown: show enough digits to see the difference, and say what gives one
    return (f"largest difference at index {tuple(int(i) for i in index)}: yours {yours:.15g}, expected {wanted:.15g}"
            "\n  (equal to 6 digits but not to the check's tolerance: a step in float32 instead of float64, or a "
            "small constant added, such as a regulariser, gives a difference of this size)")


@checked(candidate=your_function, reference="function", make_inputs="function", rng="rng", trials="count",
         rtol="penalty", atol="penalty", warnings_as_errors="flag", name=text("the name to report", optional=True),
         quantity=text("what the compared result is", optional=True), hint="function?")
def check_function(candidate, reference, make_inputs, *, rng, trials=20, rtol=1e-7, atol=1e-9,
                   warnings_as_errors=False, name=None, quantity=None, hint=None):
    """Test ``candidate`` against ``reference`` on inputs of growing size.

    Trial k (k = 1, …, ``trials``) calls ``make_inputs(rng, k)``, which returns the positional
    arguments for both functions, with problem size k; inputs grow with k, so the first failure is
    the smallest failing input. It prints one line: ``pass: …`` when every trial agrees, or a reminder
    when ``candidate`` still raises ``NotImplementedError``.

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
    name : str, optional
        The name to report; by default the candidate's ``__name__``.
    quantity : str, optional
        What the compared result is, when it is not the candidate's return value itself (e.g. "the
        gradient of softplus(z).sum()"); it is named in every message.
    hint : callable (args, received, expected) -> str or None, optional
        Called when a trial fails, with that trial's arguments, the candidate's result (None if it raised or
        warned) and the reference's; a string it returns is added to the message as the likely cause, for a
        mistake whose symptom alone would mislead (a small difference that looks like round-off, say).

    Raises
    ------
    ExerciseCheckFailed
        On the first trial where the candidate raises, warns (if not allowed), returns something that is
        not an array of the expected shape, or disagrees; the message shows that input and both results.
    """
    __tracebackhide__ = True  # the reader's traceback ends at their own code and this message
    name = name or getattr(candidate, "__name__", "your function")
    what = f"{name} ({quantity})" if quantity else name

    def failed(message, args, received, expected):
        cause = hint(args, received, expected) if hint is not None else None
        return ExerciseCheckFailed(message + (f"\n  likely cause: {cause}" if cause else ""))

    for size in range(1, trials + 1):
        args = make_inputs(rng, size)
        expected = reference(*args)
        where = f"on input {size} of {trials} (the smallest that fails):\n{_show_input(candidate, args)}"
        try:
            with warnings.catch_warnings():
                if warnings_as_errors:
                    warnings.simplefilter("error")
                received = candidate(*args)
        except NotImplementedError:
            _remind_not_implemented(name)
            return
        except Warning as warning:
            raise failed(
                f"{name} emitted a warning, which this exercise does not allow, {where}\n"
                f"  warning: {type(warning).__name__}: {warning}", args, None, expected
            ) from None
        except Exception as error:
            raise failed(
                f"{name} raised {type(error).__name__}: {error}\n{where}\n"
                "(the traceback above this message shows the line of your code that raised it)", args, None, expected
            ) from error
        received_arr, expected_arr = _as_array(received), np.asarray(expected, dtype=np.float64)
        if received_arr is None:
            raise failed(
                f"{what} is not an array of numbers: received {_describe(received)}, expected "
                f"{_describe(expected)} {where}" + ("\n(did you forget `return`?)" if received is None else ""),
                args, received, expected
            ) from None
        if received_arr.shape != expected_arr.shape:
            raise failed(
                f"{what} has the wrong shape: expected {expected_arr.shape}, received {received_arr.shape}, "
                f"{where}\n  yours:    {_describe(received)}\n  expected: {_describe(expected)}",
                args, received, expected
            ) from None
        if not np.allclose(received_arr, expected_arr, rtol=rtol, atol=atol):
            raise failed(
                f"{what} disagrees with the reference {where}\n  yours:    {_describe(received)}\n"
                f"  expected: {_describe(expected)}\n  {_difference(received_arr, expected_arr)}",
                args, received, expected
            ) from None
    print(f"pass: {what} agrees with the reference on {trials} random inputs.")
