"""The input contract, declared: each public function states its arguments' roles once, beside its signature.

A declaration reads like the shape comments of the code it guards::

    @checked(X="array (N, m)", y="array (N,)", w="array (m + 1,)", l2="penalty", average="flag")
    def compute_gradient(X, y, w, *, l2=0.0, average=False):
        ...                                       # the body is the maths: X, y and w are float64 arrays here

Before the body runs, :func:`checked` converts and checks every declared argument by its role and raises
``ValueError`` or ``TypeError`` naming the argument, what was received, what was expected and how to fix it. The
messages come from ``implementations._validation``, the checks the parts share, and from each part's ``_checks``
module, the checks of that part only, each written once.

Roles (a ``?`` at the end also accepts None, which is passed through):

=====================  ===========================================================================================
role                   the argument must be (and is passed to the body as)
=====================  ===========================================================================================
``array SHAPE``        finite numbers of that shape, at least one of them (float64 ndarray)
``array SHAPE inf``    as ``array``, but ±inf are allowed (masked scores); NaN is not
``labels SHAPE < K``   class labels 0, …, K − 1 (int64 ndarray); without ``< K``: any integers >= 0
``ids SHAPE < V``      token ids 0, …, V − 1 (int64 ndarray)
``tensor SHAPE``       a Tensor (taken as it is, checked when it was made) or finite data (made a Tensor)
``mask SHAPE``         booleans, or 0 and 1 (bool ndarray)
``number``             a finite real number (float)
``rate``               a finite number > 0 (float): a learning rate, a width, a temperature
``penalty``            a finite number >= 0 (float)
``prob``               a probability in [0, 1] (float)
``count``              an integer >= 1 (int); ``count0``: an integer >= 0
``flag``               True or False (bool)
``rng``                a ``numpy.random.Generator``
``function``           something callable; it runs with its own calls to the package checked
``tokens``             a list of strings (a bare string is refused, not split into letters)
``widths``             a tuple of hidden-layer widths, each an integer >= 1
``axis X``             an integer naming an axis of the argument X (negative axes count from the end)
``{a, b, c}``          one of the strings a, b, c; a dict or a tuple of names gives the same choice
                       (``activation=ACTIVATIONS``: one of the dict's keys)
a function             a check of the package's own, ``check(value, name) -> value`` (from ``_validation`` or a
                       part's ``_checks``), for an argument no role above describes (a list of parameters)
=====================  ===========================================================================================

A SHAPE lists one entry per axis, in parentheses: a name (``N``, ``d_k``) that must have the same size wherever it
appears, a number, a name plus or minus or times a number (``m + 1``), ``self.NAME`` (an attribute of the object whose
method is called), or ``*NAME`` / ``...`` for any number of leading axes; alternatives are separated by ``|``:
``(T, D) | (B, T, D)``. A name is bound by the first argument that has it, in the order of the declaration, or by an
integer argument of the same name (numbers are checked before arrays, and arrays before the axes that name them).
Without a SHAPE any shape is accepted.

Checks that involve several arguments beyond their shapes (a mask that leaves a query without a key, a Gram
matrix that must be symmetric) are functions of ``_validation`` named in ``also=``: each receives the checked
arguments it names in its own signature.

**Checks run once, at the boundary of the package.** A checked function called by the package's own code (a cost
evaluated at every epoch, a layer called at every step, the engine calling a numerical kernel) does not check again:
the arguments were checked when they entered the package, and its inner loops pay nothing for them. Whether a call
comes from inside is read off the calling frame's module; the book's helpers (``implementations.notebook``) call
the package as a notebook does, from outside. So a function called from inside receives its arguments as its
declaration would have converted them (float arrays, Tensors), and the package's own callers pass them so. A few
functions only pass on what their caller gave them (``Module.__call__`` runs the caller's ``forward``,
``Sequential`` the caller's layers); they are declared ``passes_through``, and a call they make counts as the
caller's own.
"""

import functools
import inspect
import re
import sys

from . import _validation as V

__all__ = ["checked", "passes_through", "ResultsChecked", "TENSOR"]

_PACKAGE = __name__.rpartition(".")[0] + "."  # "implementations."
_HELPERS = _PACKAGE + "notebook"  # the book's helpers call the package as a notebook does: from outside
_PASSES_THROUGH = set()  # ids of the code objects of the functions whose calls count as their caller's
_WRAPPER_CODE = None  # the code of checked's wrapper, set by the first declaration


def passes_through(function):
    """Declare that ``function`` only passes on its caller's values: a checked call it makes counts as its caller's."""
    _PASSES_THROUGH.add(id(function.__code__))
    return function


def _from_inside(frame):
    """Is ``frame`` (the caller of a checked function) the package's own code? Frames that pass through are skipped,
    and so are the frames of the checks' own wrapper, which stand between a checked method that passes through and
    its caller."""
    while frame is not None and (id(frame.f_code) in _PASSES_THROUGH or frame.f_code is _WRAPPER_CODE):
        frame = frame.f_back
    if frame is not None and frame.f_code is V.CALLER_CODE:
        return False
    module = frame.f_globals.get("__name__", "") if frame is not None else ""
    return module.startswith(_PACKAGE) and not module.startswith(_HELPERS)


class _Tensors:
    """How the ``tensor`` role recognises and makes Tensors; filled in by the engine when it is imported."""

    cls = None  # the Tensor class
    convert = None  # convert(value, name) -> Tensor, refusing strings, ragged lists, NaN and ±inf by name


TENSOR = _Tensors()


# --- shapes -----------------------------------------------------------------------------------------------------------

_DIM = re.compile(r"^(?:(?P<var>\*\w+|\.\.\.)"  # *B or ...: any number of leading axes
                  r"|(?P<name>self\.\w+|[A-Za-z_]\w*|\d+)(?:\s*(?P<op>[-+*])\s*(?P<k>\d+))?)$")  # N, 3, m + 1, self.d

# what each conventional dimension name counts, for the messages
MEANING = {
    "N": "the number of examples", "m": "the number of features", "K": "the number of classes",
    "D": "the width of each vector", "T": "the number of time steps", "B": "the batch size",
    "V": "the vocabulary size", "C": "the number of channels", "d": "the number of dimensions",
}


class _Shape:
    """One parsed shape: a tuple of axis specs, with at most one variadic group at the front."""

    def __init__(self, text):
        self.text = text.strip()
        inner = self.text[1:-1].strip() if self.text.startswith("(") and self.text.endswith(")") else None
        if inner is None:
            raise ValueError(f"bad shape {text!r}: expected parentheses, e.g. (N, m)")
        parts = [p.strip() for p in inner.split(",") if p.strip()]
        self.variadic = None
        self.axes = []
        for k, part in enumerate(parts):
            match = _DIM.match(part)
            if not match:
                raise ValueError(f"bad axis {part!r} in shape {text!r}")
            if match["var"]:
                if k != 0:
                    raise ValueError(f"a variadic axis must come first in {text!r}")
                self.variadic = match["var"].lstrip("*") or "..."
            else:
                self.axes.append((match["name"], match["op"], int(match["k"]) if match["k"] else None))

    def ndim_ok(self, ndim):
        return ndim >= len(self.axes) if self.variadic else ndim == len(self.axes)

    def describe_ndim(self):
        n = len(self.axes)
        return f"at least {n}-D" if self.variadic else f"{n}-D"


def _value(axis, dims, owner, new=None):
    """The size an axis spec requires, or None if its name is not bound yet (it will be bound by this axis)."""
    name, op, k = axis
    if new and name in new:
        base = new[name][0]
    elif name in dims:
        base = dims[name][0]
    elif name.isdigit():
        base = int(name)
    elif name.startswith("self."):
        base = getattr(owner, name[5:])
    else:
        return None
    return base if op is None else {"+": base + k, "-": base - k, "*": base * k}[op]


def _solve(axis, size):
    """The value of the free name of ``axis`` that gives an axis of ``size`` (None if no whole number does)."""
    _, op, k = axis
    if op is None:
        return size
    if op == "+":
        return size - k
    if op == "-":
        return size + k
    return size // k if size % k == 0 else None


def _entries(size):
    return "1 entry" if size == 1 else f"{size} entries"


def _spell(axis):
    name, op, k = axis
    return name if op is None else f"{name} {op} {k}"


def _mismatch(name, shape, axis_index, size, axis, want, dims, owner):
    """The message for an axis of ``name`` whose ``size`` is not the ``want`` that ``axis`` of ``shape`` requires."""
    dim, op, _ = axis
    if dim.isdigit() and op is None:  # a fixed size
        return (f"{name} has {_entries(size)} along axis {axis_index}; expected {want}, as in the shape {shape.text}. "
                f"Give {name} {want} entries along that axis.")
    if dim.startswith("self."):
        given = f"{type(owner).__name__}.{dim[5:]} is {getattr(owner, dim[5:])}"
    else:
        value, source = dims[dim]
        meaning = MEANING.get(dim)
        given = f"{source} gives {dim} = {value}" + (f" ({meaning})" if meaning else "")
    return (f"{name} has {_entries(size)} along axis {axis_index}, but {given}: expected {name} of shape {shape.text} "
            f"with {_spell(axis)} = {want} there. Give {name} {want} entries along that axis, or check that the "
            "arguments belong together.")


def _check_shape(arr, name, shapes, dims, owner):
    """Check ``arr.shape`` against the alternatives ``shapes``, binding names in ``dims`` {name: (size, source)}."""
    problems = []
    for shape in shapes:
        if not shape.ndim_ok(arr.ndim):
            continue
        new, problem = {}, None
        offset = arr.ndim - len(shape.axes)
        if shape.variadic and shape.variadic != "...":
            lead = arr.shape[:offset]
            if shape.variadic in dims and dims[shape.variadic][0] != lead:
                value, source = dims[shape.variadic]
                problem = (f"{name} has the leading axes {lead}, but {source} has {value}: expected the same leading "
                           f"axes, as in the shape {shape.text}. Check that the arguments belong together.")
            else:
                new[shape.variadic] = (lead, f"{name}")
        for j, axis in enumerate(shape.axes):
            if problem:
                break
            size = arr.shape[offset + j]
            want = _value(axis, dims, owner, new)
            if want is None:  # a free name: this axis binds it (m + 1 of size 4 binds m = 3)
                bound = _solve(axis, size)
                if bound is None:
                    problem = (f"{name} has {_entries(size)} along axis {offset + j}; expected a multiple of "
                               f"{axis[2]}, as in the shape {shape.text}.")
                else:
                    new[axis[0]] = (bound, f"{name}'s axis {offset + j}")
            elif size != want:
                problem = _mismatch(name, shape, offset + j, size, axis, want, {**dims, **new}, owner)
        if problem is None:
            dims.update(new)
            return
        problems.append(problem)
    if problems:
        raise ValueError(problems[0])
    expected = " or ".join(s.text for s in shapes)
    ndims = " or ".join(s.describe_ndim() for s in shapes)
    hint = ""  # a hint to add an axis, only where one is missing
    if len(shapes) == 1 and not shapes[0].variadic and arr.ndim < len(shapes[0].axes):
        hint = V._NDIM_HINTS.get(len(shapes[0].axes), "")
    raise ValueError(f"{name} must have shape {expected} ({ndims}); received shape {arr.shape} ({arr.ndim}-D).{hint}")


# --- roles ------------------------------------------------------------------------------------------------------------

_SCALARS = {
    "number": V.check_finite_number,
    "rate": V.check_positive,
    "penalty": V.check_nonnegative,
    "prob": V.check_probability,
    "count": V.check_positive_int,
    "count0": V.check_nonnegative_int,
    "flag": V.check_flag,
    "rng": lambda value, name: V.check_rng(value, name),
    "widths": V.check_hidden_sizes,
    "tokens": lambda value, name: V.check_str_list(value, name),
}

_ARRAY_KINDS = ("array", "labels", "ids", "tensor", "mask")
_ARRAY_ROLE = re.compile(r"^(?P<kind>array|labels|ids|tensor|mask)\s*(?P<shape>\(.*?\)(?:\s*\|\s*\(.*?\))*)?"
                         r"\s*(?P<inf>inf)?\s*(?:<\s*(?P<bound>self\.\w+|\w+))?$")


class _Role:
    """One argument's declared role, parsed once at decoration time."""

    def __init__(self, name, text):
        self.name, self.text = name, text
        if isinstance(text, (dict, tuple, list, set, frozenset)):  # a choice among the keys or items of a collection
            text = "{" + ", ".join(str(option) for option in text) + "}"
        if callable(text):  # a check of its own: function(value, name) -> the value to pass on
            self.kind, self.optional, self.function, self.shapes = "function-role", False, text, ()
            return
        spec = text.strip()
        self.optional = spec.endswith("?")
        spec = spec.rstrip("?").strip()
        self.kind, self.shapes, self.bound, self.inf, self.choices = None, (), None, False, None
        if spec.startswith("{") and spec.endswith("}"):
            self.kind = "choice"
            self.choices = tuple(c.strip() for c in spec[1:-1].split(","))
        elif spec.startswith("axis "):
            self.kind, self.of = "axis", spec.split()[1]
        elif spec in _SCALARS or spec == "function":
            self.kind = spec
        else:
            match = _ARRAY_ROLE.match(spec)
            if not match:
                raise ValueError(f"unknown role {text!r} for argument {name!r}")
            self.kind, self.inf, self.bound = match["kind"], bool(match["inf"]), match["bound"]
            if match["shape"]:
                self.shapes = tuple(_Shape(s) for s in match["shape"].split("|"))

    def check(self, value, dims, owner, arguments):
        name = self.name
        if value is None and self.optional:
            return None
        kind = self.kind
        if kind == "function-role":
            return self.function(value, name)
        if kind == "choice":
            if not isinstance(value, str) or value not in self.choices:
                options = ", ".join(repr(c) for c in self.choices)
                raise ValueError(f"{name} must be one of {options}; received {value!r}.")
            return value
        if kind == "function":
            return V.check_callable(value, name)
        if kind == "axis":
            return V.check_axis(value, name, arguments[self.of], self.of)
        if kind in _SCALARS:
            return _SCALARS[kind](value, name)
        bound = None
        if self.bound is not None:
            bound = self._resolve_bound(dims, owner, arguments)
        if kind == "tensor":
            arr = TENSOR.convert(value, name)
            if arr.data.size == 0:
                raise ValueError(f"{name} is empty (shape {arr.shape}); expected at least one entry.")
            data = arr.data
        elif kind == "labels":
            data = arr = V.check_labels(value, name, num_classes=bound, ndim=None)
            if data.size == 0:
                raise ValueError(f"{name} is empty (shape {data.shape}); expected at least one label.")
        elif kind == "ids":
            data = arr = V.check_ids(value, name, vocab_size=bound)
        elif kind == "mask":
            data = arr = V.as_mask(value, name)
            if data.size == 0:
                raise ValueError(f"{name} is empty (shape {data.shape}); expected at least one entry.")
        else:
            data = arr = V.as_array(value, name)
            if data.size == 0:
                raise ValueError(f"{name} is empty (shape {data.shape}); expected at least one value. "
                                 "Check the slicing or filtering that produced it.")
            if self.inf:
                V.check_no_nan(data, name)
            else:
                V.check_finite_values(data, name)
        if self.shapes:
            _check_shape(data, name, self.shapes, dims, owner)
        return arr

    def _resolve_bound(self, dims, owner, arguments):
        b = self.bound
        if b.isdigit():
            return int(b)
        if b.startswith("self."):
            return getattr(owner, b[5:])
        if b in dims and isinstance(dims[b][0], int):
            return dims[b][0]
        if b in arguments:
            return arguments[b]
        return None  # not known yet: any label >= 0


# --- the decorator -------------------------------------------------------------------------------------------------

class ResultsChecked:
    """A callable the caller gave the package (a model, a branch), whose every result is checked before the package
    uses it: ``check(result, *args)`` returns the result or raises. Its attributes are the callable's own.

    The role of such an argument returns one, so that the body that calls it stays the maths
    (``epsilon_hat = model(x_t, t)``) while a wrong result is named as the caller's. Calls it makes count as its
    caller's (it passes through).
    """

    __slots__ = ("function", "check")

    def __init__(self, function, check):
        self.function, self.check = V.as_the_caller(function), check

    @passes_through
    def __call__(self, *args):
        return self.check(self.function(*args), *args)

    def __getattr__(self, name):  # (called only for names that are not the slots)
        if name in ResultsChecked.__slots__:
            raise AttributeError(name)
        return getattr(self.function, name)


def _binder(signature):
    """A function (args, kwargs) -> ({name: value} with the defaults filled in, how to call), or (None, None) for a call
    Python would refuse. ``how to call`` is None for keywords only, else the ``BoundArguments`` to call with.

    It does what ``signature.bind`` and ``apply_defaults`` do, for the signatures the package uses (no positional-only
    or variable arguments), several times faster; other signatures fall back to them.
    """
    parameters = list(signature.parameters.values())
    simple = all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) for p in parameters)
    positional = [p.name for p in parameters if p.kind == p.POSITIONAL_OR_KEYWORD]
    defaults = {p.name: p.default for p in parameters if p.default is not p.empty}
    names = {p.name for p in parameters}
    count = len(names)

    def bind_simple(args, kwargs):
        if not kwargs and len(args) == count == len(positional):  # every argument given by position
            return dict(zip(positional, args, strict=True)), None
        if len(args) > len(positional) or any(k not in names for k in kwargs):
            return None, None
        arguments = dict(zip(positional, args, strict=False))  # (fewer args than positional names)
        if any(k in arguments for k in kwargs):
            return None, None
        arguments.update(kwargs)
        for name, default in defaults.items():
            arguments.setdefault(name, default)
        return (arguments, None) if len(arguments) == len(names) else (None, None)

    def bind_general(args, kwargs):
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError:
            return None, None
        bound.apply_defaults()
        return bound.arguments, bound

    return bind_simple if simple else bind_general


def _as_arrays(result):
    """``result`` with each Tensor replaced by its array (in a tuple or list too)."""
    if isinstance(result, TENSOR.cls):
        return result.data
    if isinstance(result, (tuple, list)):
        return type(result)(_as_arrays(r) for r in result)
    return result


def checked(also=(), like_inputs=False, **roles):
    """Declare the roles of a function's arguments; they are checked before its body runs (see the module docstring).

    Parameters
    ----------
    also : function or sequence of functions
        Checks of several arguments at once, from ``_validation`` or the part's ``_checks``; each is called with the
        (already converted) arguments named by its own parameters, after the roles.
    like_inputs : bool, default False
        For functions of arrays or Tensors (``tensor`` roles): when the caller passed no Tensor, the Tensors of the
        result are returned as arrays, so that arrays in give arrays out and Tensors in give Tensors out.
    **roles : str or function
        The role of each argument, by name.
    """
    extra = (also,) if callable(also) else tuple(also)

    def decorate(function):
        signature = inspect.signature(function)
        names = list(signature.parameters)
        unknown = [n for n in roles if n not in signature.parameters]
        if unknown:
            raise TypeError(f"@checked names {unknown} that {function.__qualname__} does not take")
        parsed = [_Role(n, text) for n, text in roles.items()]
        # numbers first (a shape or a bound may name them), then arrays in the order declared, then their axes
        parsed.sort(key=lambda role: 2 if role.kind == "axis" else 1 if role.kind in _ARRAY_KINDS else 0)
        is_method = names[:1] == ["self"]
        tensor_roles = [r for r in parsed if r.kind == "tensor"]
        also_args = [(check, list(inspect.signature(check).parameters)) for check in extra]
        bind = _binder(signature)

        if not parsed and not also_args and not like_inputs:  # nothing to check
            function.roles = {}
            return function

        @functools.wraps(function)
        def wrapper(*args, **kwargs):
            caller = sys._getframe(1)
            if id(caller.f_code) in _PASSES_THROUGH:
                inside = _from_inside(caller)
            elif caller.f_code is V.CALLER_CODE:  # a function the caller gave the package: the caller's own call
                inside = False
            else:  # (the common case, inline: this runs at every call)
                module = caller.f_globals.get("__name__", "")
                inside = module.startswith(_PACKAGE) and not module.startswith(_HELPERS)
            if inside:  # the package's own call: checked where the values came in
                return function(*args, **kwargs)
            arguments, bound = bind(args, kwargs)
            if arguments is None:  # a call Python itself refuses (a missing or unknown argument): its own message
                return function(*args, **kwargs)
            owner = arguments.get("self") if is_method else None
            any_tensor = like_inputs and any(isinstance(arguments.get(r.name), TENSOR.cls) for r in tensor_roles)
            dims = {}
            for role in parsed:
                if role.name in arguments:
                    arguments[role.name] = role.check(arguments[role.name], dims, owner, arguments)
            for check, params in also_args:
                check(**{p: arguments[p] for p in params if p in arguments})
            result = function(**arguments) if bound is None else function(*bound.args, **bound.kwargs)
            return _as_arrays(result) if like_inputs and not any_tensor else result

        wrapper.roles = dict(roles)
        global _WRAPPER_CODE
        _WRAPPER_CODE = wrapper.__code__  # one code object for every wrapper
        return wrapper

    return decorate
