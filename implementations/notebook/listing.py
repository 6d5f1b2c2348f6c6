"""The source of a taught function, shown in a notebook: the same listing in JupyterLab, a code viewer and the book.

A chapter shows each function it teaches once, from the package itself, so that the text cannot drift from the
code. A cell ``listing.show_source(regression.add_bias)`` displays the function as a Python code block (its
Markdown representation), which JupyterLab, a code host's notebook viewer and the book all render; the book's cell
is tagged ``remove-input``, so that only the listing shows. The plain-text representation is the source itself,
which is what the notebook tests compare.
"""

import ast
import re

from .._contract import checked
from ._checks import definition, definitions, text

__all__ = ["Listing", "show_source"]


class Listing:
    """The source code of one function, class or method, displayed as a Python listing.

    Parameters
    ----------
    source : str
        The code, dedented, without a trailing newline.

    Attributes
    ----------
    source : str
    """

    @checked(source=text("the code to show"))
    def __init__(self, source):
        self.source = source

    def __repr__(self):
        return self.source

    def _repr_markdown_(self):
        longest = max((len(run) for run in re.findall(r"`+", self.source)), default=0)
        fence = "`" * max(3, longest + 1)  # a fence longer than any run of backticks inside the code
        return f"{fence}python\n{self.source}\n{fence}"


def _docstring_lines(node, lines):
    """The 0-based (first, last) line span of the docstring of the definition ``node``, or None.

    None too when the docstring cannot be cut out as whole lines: it shares a line with other code, or it is the
    only statement of the body (removing it would leave a definition without a body).
    """
    body = node.body
    if len(body) < 2 or ast.get_docstring(node, clean=False) is None:
        return None
    node = body[0]
    first, last = node.lineno - 1, node.end_lineno - 1
    if lines[first][: node.col_offset].strip() or lines[last][node.end_col_offset:].strip():
        return None
    return first, last


@checked(obj=definition, more=definitions, docstring="flag")
def show_source(obj, *more, docstring=False):
    """The source of one or more functions, classes or methods, to display in a notebook as one Python listing.

    The code is taken from the module that defines each object (``inspect.getsource``), so it is always the code that
    runs. Decorators (the declared input contract, ``@checked(...)``) and comments are kept; the docstring is left out
    unless ``docstring=True``, since the book's API reference shows it. Several objects (a loss and its derivative)
    are shown one after the other, separated by a blank line.

    Parameters
    ----------
    obj, *more : function, class or method
        Defined with ``def`` or ``class`` in a file whose source Python can read, e.g.
        ``regression.add_bias`` or ``nn.Linear.forward``.
    docstring : bool, optional
        Keep the docstrings (default False: left out, with the blank lines that follow them). A docstring that is
        the whole body of an object, or shares a line with other code, is always kept.

    Returns
    -------
    listing : Listing
        Displayed by Jupyter as a fenced ``python`` Markdown block; its ``repr`` is the plain source.

    Raises
    ------
    TypeError
        If an object is not a function, class or method defined in readable Python source (a built-in, a NumPy
        ufunc, a lambda, an instance, a module, ...).

    Examples
    --------
    >>> from implementations import numeric
    >>> from implementations.notebook import listing
    >>> print(repr(listing.show_source(numeric.sigmoid)).splitlines()[:2])
    ['@checked(z="array")', 'def sigmoid(z):']
    """
    return Listing("\n\n\n".join(_source_of(d, docstring) for d in (obj, *more)))


def _source_of(definition, docstring):
    """The source of one definition (its source and its ``ast`` node), without its docstring unless ``docstring``."""
    source, node = definition
    lines = source.splitlines()
    span = None if docstring else _docstring_lines(node, lines)
    if span is not None:
        first, last = span
        after = last + 1
        while after < len(lines) and not lines[after].strip():  # the blank lines after the docstring go too
            after += 1
        lines = lines[:first] + lines[after:]
    return "\n".join(lines).rstrip()
