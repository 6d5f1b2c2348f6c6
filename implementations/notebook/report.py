"""Printing numbers that mean the same on every reader's machine.

Two computations that agree "exactly" differ in their last bits, and which bits depends on the CPU, the BLAS
kernels and the thread count. A notebook therefore never prints such a difference itself (``4.5e-10`` on one
machine is ``2.9e-10`` on another); it prints the claim the difference supports, with the bound that makes the
claim true everywhere. If the claim fails, the printed text changes and the notebook test fails with it.
"""

import math

from .._contract import checked
from ._checks import error_size

__all__ = ["within", "power_of_ten"]

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


@checked(value="rate")
def power_of_ten(value):
    """Render a bound such as 1e-6 as ``"10⁻⁶"``; any other positive number as ``"2.5e-06"``.

    Parameters
    ----------
    value : float
        A positive, finite number.

    Returns
    -------
    text : str
    """
    exponent = round(math.log10(value))
    if math.isclose(value, 10.0**exponent, rel_tol=1e-12):
        return "10" + str(exponent).translate(_SUPERSCRIPT)
    return f"{value:.1e}"


@checked(error=error_size, tol="rate")
def within(error, tol):
    """The claim a round-off-level ``error`` supports: ``"below 10⁻⁶"`` when ``0 <= error < tol``.

    Use it to print a finite-difference error, the difference between two exact computations or a gradient at
    an optimum. When the claim is false the text says so and shows the error, ``"3.2e-04 (NOT below 10⁻⁶)"``,
    so a stored output that reads "below" can only be reproduced by a run in which the claim holds.

    Parameters
    ----------
    error : float
        A non-negative error or difference. NaN and inf pass: a computation that produced them does not support
        the claim, and the text says so ("nan (NOT below 10⁻⁶)").
    tol : float
        The bound, > 0: the size below which the two computations count as agreeing.

    Returns
    -------
    text : str
    """
    bound = power_of_ten(tol)
    if 0.0 <= error < tol:
        return f"below {bound}"
    return f"{error:.1e} (NOT below {bound})"
