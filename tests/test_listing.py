"""listing.show_source: the source of a taught function, as a Markdown listing and as plain text."""

import ast
import functools
import inspect
import textwrap

import numpy as np
import pytest

from implementations.notebook import listing


def _decorated(function):
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        return function(*args, **kwargs)

    return wrapper


@_decorated
def decorated_double(x):
    """Twice x."""
    return 2 * x  # a comment that must stay


def one_line_docstring(x):
    """Return x + 1."""
    return x + 1


def no_docstring(x):
    # only a comment
    return x - 1


def only_a_docstring():
    """Nothing but this."""


def fenced(text):
    """Code that contains a Markdown fence."""
    return text.replace("```", "````")


class Shape:
    """A shape with an area.

    Parameters
    ----------
    side : float
    """

    unit = "m"

    def __init__(self, side):
        """Store the side."""
        self.side = side

    def area(self):
        """The area, side²."""
        return self.side**2  # (,)


# The package's own functions are listed from their module: show_source itself (a numpydoc docstring, a declaration).
# Functions of the chapters' modules are not used here: tools/equations_index.py would count these tests as
# checks of the equations those functions implement.


def test_package_function_without_its_docstring_is_the_code_that_runs():
    text = repr(listing.show_source(listing.show_source))
    full = textwrap.dedent(inspect.getsource(listing.show_source)).rstrip()
    docstring = ast.get_docstring(ast.parse(full).body[0], clean=False)
    assert text.startswith('@checked(obj=definition, more=definitions, docstring="flag")\n'
                           "def show_source(obj, *more, docstring=False):\n    return Listing(")
    assert docstring not in text and "Parameters" not in text
    assert full.replace(f'    """{docstring}"""\n', "") == text


def test_docstring_kept_on_request_gives_the_whole_source():
    listed = listing.show_source(listing.show_source, docstring=True)
    assert repr(listed) == textwrap.dedent(inspect.getsource(listing.show_source)).rstrip()


def test_one_line_docstring_is_removed_and_decorators_and_comments_are_kept():
    assert repr(listing.show_source(one_line_docstring)) == "def one_line_docstring(x):\n    return x + 1"
    text = repr(listing.show_source(decorated_double))
    assert text == "@_decorated\ndef decorated_double(x):\n    return 2 * x  # a comment that must stay"


def test_function_without_docstring_is_shown_whole():
    expected = "def no_docstring(x):\n    # only a comment\n    return x - 1"
    assert repr(listing.show_source(no_docstring)) == expected
    assert repr(listing.show_source(no_docstring, docstring=True)) == expected


def test_a_docstring_that_is_the_whole_body_stays():
    assert repr(listing.show_source(only_a_docstring)) == 'def only_a_docstring():\n    """Nothing but this."""'


def test_method_is_dedented_bound_or_not():
    expected = "def area(self):\n    return self.side**2  # (,)"
    assert repr(listing.show_source(Shape.area)) == expected
    assert repr(listing.show_source(Shape(2.0).area)) == expected


def test_class_loses_only_its_own_docstring_and_the_blank_line_after_it():
    lines = repr(listing.show_source(Shape)).splitlines()
    assert lines[:3] == ["class Shape:", '    unit = "m"', ""]
    assert '        """Store the side."""' in lines
    assert "Parameters" not in lines


def test_markdown_is_a_python_fence_around_the_plain_source():
    listed = listing.show_source(Shape.area)
    assert listed._repr_markdown_() == f"```python\n{listed!r}\n```"


def test_fence_is_longer_than_any_backticks_in_the_code():
    markdown = listing.show_source(fenced)._repr_markdown_()
    assert markdown.startswith("`````python\n") and markdown.endswith("\n`````")


def test_listing_is_deterministic():
    first, second = listing.show_source(listing.Listing), listing.show_source(listing.Listing)
    assert repr(first) == repr(second) and first._repr_markdown_() == second._repr_markdown_()


@pytest.mark.parametrize("obj, received", [
    (len, "builtin_function_or_method"),
    (np.exp, "ufunc"),
    (listing, "module"),
    (Shape(1.0), "Shape"),
    ("regression.predict", "str"),
    (functools.partial(one_line_docstring), "partial"),
])
def test_bad_input_says_what_was_received_and_what_is_expected(obj, received):
    with pytest.raises(TypeError, match=rf"obj is .* of type {received}; expected a function, class or method"):
        listing.show_source(obj)


def test_lambda_is_rejected():
    square = lambda x: x**2  # noqa: E731
    with pytest.raises(TypeError, match="obj is .*lambda.*not one def or class statement"):
        listing.show_source(square)


def test_function_without_readable_source_is_rejected():
    namespace = {}
    exec("def made_up(x):\n    return x\n", namespace)  # no file behind it
    with pytest.raises(TypeError, match="obj is .*made_up.*source cannot be read"):
        listing.show_source(namespace["made_up"])


def test_several_objects_make_one_listing_in_order():
    both = repr(listing.show_source(one_line_docstring, no_docstring))
    assert both == repr(listing.show_source(one_line_docstring)) + "\n\n\n" + repr(listing.show_source(no_docstring))


def test_a_checked_function_is_listed_with_its_declaration_and_body():
    from implementations import numeric

    text = repr(listing.show_source(numeric.sigmoid))
    assert text.splitlines()[:2] == ['@checked(z="array")', "def sigmoid(z):"]
    assert "e = np.exp(-np.abs(z))" in text and "Parameters" not in text


def test_a_bad_object_after_the_first_is_named_by_its_position():
    with pytest.raises(TypeError, match=r"^more\[1\] is <built-in function len> of type builtin_function_or_method"):
        listing.show_source(one_line_docstring, no_docstring, len)
