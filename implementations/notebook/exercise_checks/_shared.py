"""What several exercise checks share."""

from ..._contract import checked
from .._checks import your_function
from ..exercises import _remind_not_implemented


@checked(candidate=your_function, rng="rng")
def parts_to_check(candidate, rng, default_name, *probe):
    """(rng, name) for a check made of several parts, or None for a stub, after one reminder.

    A stub raises NotImplementedError in every part; calling it once on the small input ``probe`` reminds the reader
    once instead of once per part. Any other error of that call is left to the parts, which report it with the input
    that causes it.
    """
    __tracebackhide__ = True
    name = getattr(candidate, "__name__", default_name)
    try:
        candidate(*probe)
    except NotImplementedError:
        _remind_not_implemented(name)
        return None
    except Exception:  # noqa: BLE001  (any other error is reported by the parts, with the input that causes it)
        pass
    return rng, name


def part_of(candidate, index, results="grad, H"):
    """The reader's function reduced to one of the results it returns (named in ``results``), as the reader named it."""
    def part(*args):
        result = candidate(*args)
        count = results.count(",") + 1
        if not isinstance(result, (tuple, list)) or len(result) != count:
            received = f"{len(result)} results" if isinstance(result, (tuple, list)) else type(result).__name__
            raise TypeError(f"expected {count} results ({results}); received {received}. "
                            f"End your function with `return {results}`.")
        return result[index]
    part.__wrapped__ = candidate  # so that the check's messages use the reader's argument names
    return part
