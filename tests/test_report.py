"""report.within and report.power_of_ten: the claims printed instead of round-off digits."""

import numpy as np
import pytest

from implementations.notebook.report import power_of_ten, within


@pytest.mark.parametrize("value, text", [(1e-6, "10⁻⁶"), (1e-12, "10⁻¹²"), (1.0, "10⁰"), (100.0, "10²"),
                                         (2.5e-6, "2.5e-06")])
def test_power_of_ten(value, text):
    assert power_of_ten(value) == text


@pytest.mark.parametrize("error", [0.0, 3.4e-10, 9.99e-7])
def test_within_states_the_claim_when_it_holds(error):
    assert within(error, 1e-6) == "below 10⁻⁶"


@pytest.mark.parametrize("error, shown", [(1e-6, "1.0e-06"), (3.2e-4, "3.2e-04"), (np.nan, "nan"),
                                          (np.inf, "inf")])
def test_within_shows_the_error_when_the_claim_fails(error, shown):
    text = within(error, 1e-6)
    assert "NOT below 10⁻⁶" in text and text.startswith(shown)


def test_within_output_is_the_same_for_every_error_below_the_bound():
    """The point of the helper: noise below the bound cannot change what is printed."""
    rng = np.random.default_rng(0)
    assert {within(e, 1e-8) for e in 10.0 ** rng.uniform(-17, -8.01, size=100)} == {"below 10⁻⁸"}


@pytest.mark.parametrize("tol", [0, -1e-6, np.nan, "1e-6"])
def test_within_rejects_a_bad_bound(tol):
    with pytest.raises(ValueError, match="tol"):
        within(1e-9, tol)


@pytest.mark.parametrize("error", [-1.0, "small", None])
def test_within_refuses_an_error_that_is_not_a_nonnegative_number(error):
    with pytest.raises(ValueError, match="error must be"):
        within(error, 1e-6)
