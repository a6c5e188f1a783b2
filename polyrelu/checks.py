"""Argument checks at the entry of public functions: a wrong argument is a PolyReluError that names it.

Every public function of polyrelu checks its arguments with these helpers
before it does any work. An argument of the wrong type raises
:class:`~polyrelu.errors.InvalidArgumentError`, a value out of range
:class:`~polyrelu.errors.UsageError`; the message names the function, the
argument, what was expected and, for polyrelu's own objects, how to get one::

    canonical_complex: net must be a ReLUNetwork, got str 'net.json'; load one with polyrelu.load_network(path) ...

The helpers only look at arguments. They never wrap a computation in ``try``:
an exception that is not a :class:`~polyrelu.errors.PolyReluError` raised
later is a bug in polyrelu and must surface as one.

This is an internal API: its names are not exported from :mod:`polyrelu`.
"""

import math
import numbers
import os
import reprlib
from collections.abc import Iterable, Mapping, Set
from decimal import Decimal
from fractions import Fraction

import numpy as np

from .errors import InvalidArgumentError, UsageError

# matplotlib and igraph are imported where an Axes or a graph is checked: each is slow to load (igraph loads
# matplotlib.pyplot), and `import polyrelu` should not pay for that

__all__ = [
    "describe",
    "require_instance",
    "require_int",
    "require_real",
    "require_bool",
    "require_callable",
    "require_str",
    "require_choice",
    "require_path",
    "is_sequence",
    "require_sequence",
    "require_index",
    "require_igraph",
    "require_axes",
]

# What each class is called in messages and how a user gets one, by "module.qualname" (this module
# cannot import the classes themselves: the modules that define them import this one).
_CLASSES = {
    "polyrelu.network.ReLUNetwork": (
        "a ReLUNetwork",
        "load one with polyrelu.load_network(path) or build one with polyrelu.ReLUNetwork(weights, biases)",
    ),
    "polyrelu.network.Architecture": ("an Architecture", "give widths such as (2, 3, 1) or polyrelu.Architecture((2, 3, 1))"),
    "polyrelu.complex.CanonicalComplex": ("a CanonicalComplex", "compute one with polyrelu.canonical_complex(net)"),
    "polyrelu.domain.Box": ("a Box", "build one with polyrelu.Box(lower, upper)"),
    "polyrelu.tropical.WeightedComplex": ("a WeightedComplex", "compute one with polyrelu.tropical_weights(complex_)"),
    "polyrelu.tropical.BreakpointComplex": (
        "a BreakpointComplex",
        "compute one with polyrelu.breakpoint_complex(polyrelu.tropical_weights(complex_))",
    ),
    "polyrelu.dependency.CandidateHypersurfaces": (
        "CandidateHypersurfaces",
        "compute them with polyrelu.candidate_hypersurfaces(breakpoints)",
    ),
    "polyrelu.dependency.DependencyGraph": (
        "a DependencyGraph",
        "compute one with polyrelu.dependency_graph(breakpoints) or polyrelu.parameter_dependency_graph(net)",
    ),
    "polyrelu.io.limits.Limits": ("a Limits", "pass polyrelu.Limits(...) with the bounds to raise"),
    "polyrelu.geometry.lp.LPOracle": ("an LPOracle", "pass polyrelu.LPOracle() or leave it out"),
    "polyrelu.geometry.polyhedron.Polyhedron": ("a Polyhedron", "build one with polyrelu.Polyhedron(ieqs=rows)"),
    "igraph.Graph": ("an igraph.Graph", "convert a networkx graph with polyrelu.graphs.networkx_to_igraph(graph)"),
    "matplotlib.axes._axes.Axes": ("a matplotlib Axes", "create one with matplotlib.pyplot.subplots()"),
}

_SHORT = reprlib.Repr()
_SHORT.maxstring = 40
_SHORT.maxother = 40


def describe(value) -> str:
    """A short description of ``value`` for messages: its type, and its value when that is short.

    Bounded work whatever the value: containers and other objects are named
    by type only, long strings are cut, huge integers are described by their
    number of digits (``repr`` refuses beyond 4,300).

    Examples
    --------
    >>> describe("net.json"), describe(2.5), describe(None), describe([1, 2]), describe(10**5000)
    ("str 'net.json'", 'float 2.5', 'None', 'list', 'an integer of about 5001 digits')
    """
    if value is None:
        return "None"
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and abs(int(value)).bit_length() > 128:
        return f"an integer of about {int(abs(int(value)).bit_length() * 0.30103) + 1} digits"
    if isinstance(value, (bool, int, float, complex, str, bytes, Fraction, Decimal, np.generic)):
        return f"{type(value).__name__} {_SHORT.repr(value)}"
    return type(value).__name__


def _fail_type(caller, name, expected, value, how=""):
    raise InvalidArgumentError(f"{caller}: {name} must be {expected}, got {describe(value)}" + (f"; {how}" if how else ""))


def require_instance(value, kind, name: str, caller: str, *, optional: bool = False):
    """``value`` if it is an instance of ``kind`` (or None when ``optional``), else InvalidArgumentError.

    Parameters
    ----------
    value : object
    kind : type or tuple of types
    name : str
        The argument's name, as in the signature.
    caller : str
        The public function, as a user calls it (``"canonical_complex"``, ``"CanonicalComplex.locate"``).
    optional : bool
        Whether None is allowed.

    Returns
    -------
    object
        ``value`` itself.

    Raises
    ------
    InvalidArgumentError
        The message says what was expected and, for polyrelu's classes, how to get one.

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> require_instance("net.json", ReLUNetwork, "net", "canonical_complex")
    Traceback (most recent call last):
    ...
    polyrelu.errors.InvalidArgumentError: canonical_complex: net must be a ReLUNetwork, got str 'net.json'; load one with polyrelu.load_network(path) or build one with polyrelu.ReLUNetwork(weights, biases)
    """
    if (optional and value is None) or isinstance(value, kind):
        return value
    kinds = kind if isinstance(kind, tuple) else (kind,)
    known = [_CLASSES.get(f"{k.__module__}.{k.__qualname__}") for k in kinds]
    names = [entry[0] if entry else f"a {k.__qualname__}" for k, entry in zip(kinds, known)]
    expected = " or ".join(names + (["None"] if optional else []))
    how = "; ".join(entry[1] for entry in known if entry)
    _fail_type(caller, name, expected, value, how)


def require_int(value, name: str, caller: str, *, minimum=None, maximum=None, optional: bool = False):
    """``value`` as an ``int`` (Python or NumPy integers; never a bool or a float), within the bounds.

    Raises
    ------
    InvalidArgumentError
        Not an integer (``True``, ``2.0``, ``"2"`` and ``Fraction(2)`` are not).
    UsageError
        Below ``minimum`` or above ``maximum``.

    Examples
    --------
    >>> require_int(3, "max_cells", "canonical_complex", minimum=1)
    3
    >>> require_int(0, "max_cells", "canonical_complex", minimum=1)
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: canonical_complex: max_cells must be a positive integer, not 0
    """
    if optional and value is None:
        return None
    wanted = _integer_range(minimum, maximum) + (" or None" if optional else "")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        _fail_type(caller, name, wanted, value)
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise UsageError(f"{caller}: {name} must be {wanted}, not {describe(value).removeprefix('int ')}")
    return value


def _integer_range(minimum, maximum):
    if minimum is not None and maximum is not None:
        return f"an integer from {minimum} to {maximum}"
    if minimum == 1:
        return "a positive integer"
    if minimum is not None:
        return f"an integer >= {minimum}"
    if maximum is not None:
        return f"an integer <= {maximum}"
    return "an integer"


def require_real(value, name: str, caller: str, *, minimum=None, above=None, optional: bool = False):
    """``value`` if it is a finite real number (int, float, Fraction, NumPy; not a bool or a string), within bounds.

    ``minimum`` is an inclusive bound, ``above`` an exclusive one. For
    parameters that are used as numbers (tolerances, sizes); exact entries
    of networks and polyhedra go through
    :func:`~polyrelu.geometry.rational.to_fraction` instead, which also reads
    ``"p/q"`` strings.

    Raises
    ------
    InvalidArgumentError
        Not a real number.
    UsageError
        NaN, infinite, or out of bounds.

    Examples
    --------
    >>> require_real(1e-9, "rtol", "float_functional_dimension", minimum=0)
    1e-09
    >>> require_real(-1.0, "rtol", "float_functional_dimension", minimum=0)
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: float_functional_dimension: rtol must be a finite number >= 0, not -1.0
    """
    if optional and value is None:
        return None
    wanted = "a finite number" + (f" >= {minimum}" if minimum is not None else "") + (f" > {above}" if above is not None else "")
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        _fail_type(caller, name, wanted + (" or None" if optional else ""), value)
    if not math.isfinite(value) or (minimum is not None and value < minimum) or (above is not None and value <= above):
        raise UsageError(f"{caller}: {name} must be {wanted}, not {_SHORT.repr(value)}")
    return value


def require_bool(value, name: str, caller: str) -> bool:
    """``value`` as a ``bool`` (``True``/``False`` or a NumPy bool only: ``"False"`` and ``1`` are refused).

    Examples
    --------
    >>> require_bool("no", "kernel", "functional_dimension")
    Traceback (most recent call last):
    ...
    polyrelu.errors.InvalidArgumentError: functional_dimension: kernel must be True or False, got str 'no'
    """
    if not isinstance(value, (bool, np.bool_)):
        _fail_type(caller, name, "True or False", value)
    return bool(value)


def require_callable(value, name: str, caller: str):
    """``value`` if it can be called (a function, a lambda, a model), else InvalidArgumentError.

    Examples
    --------
    >>> require_callable("f", "oracle", "recover_network")
    Traceback (most recent call last):
    ...
    polyrelu.errors.InvalidArgumentError: recover_network: oracle must be a callable x -> f(x), got str 'f'
    """
    if not callable(value):
        _fail_type(caller, name, "a callable x -> f(x)", value)
    return value


def require_str(value, name: str, caller: str, *, optional: bool = False):
    """``value`` if it is a ``str`` (or None when ``optional``), else InvalidArgumentError."""
    if (optional and value is None) or isinstance(value, str):
        return value
    _fail_type(caller, name, "a string" + (" or None" if optional else ""), value)


def require_choice(value, choices, name: str, caller: str) -> str:
    """``value`` if it is one of the strings ``choices``.

    Raises
    ------
    InvalidArgumentError
        Not a string.
    UsageError
        A string that is not one of ``choices``.

    Examples
    --------
    >>> require_choice("lp", ("lattice", "lp"), "method", "canonical_complex")
    'lp'
    >>> require_choice("fast", ("lattice", "lp"), "method", "canonical_complex")
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: canonical_complex: method must be 'lattice' or 'lp', not 'fast'
    """
    wanted = " or ".join(repr(c) for c in choices)
    if not isinstance(value, str):
        _fail_type(caller, name, wanted, value)
    if value not in choices:
        raise UsageError(f"{caller}: {name} must be {wanted}, not {_SHORT.repr(value)}")
    return value


def require_path(value, name: str, caller: str):
    """``value`` if it is a non-empty ``str`` or an ``os.PathLike`` (bytes paths are refused)."""
    if isinstance(value, os.PathLike) and isinstance(os.fspath(value), str):
        return value
    if isinstance(value, str) and value.strip():
        return value
    _fail_type(caller, name, "a file name (a non-empty str or a pathlib.Path)", value)


def is_sequence(value) -> bool:
    """Whether ``value`` can be read as an ordered sequence of entries.

    Text, bytes, mappings (their keys) and sets (no order) cannot, nor can
    anything that is not iterable, nor a 0-dimensional array.

    Examples
    --------
    >>> is_sequence([1, 2]), is_sequence((x for x in "ab")), is_sequence("ab"), is_sequence({1: 2}), is_sequence(3)
    (True, True, False, False, False)
    """
    if type(value) in (list, tuple, range):  # the common case, without the slower abstract-class checks
        return True
    if isinstance(value, np.ndarray):
        return value.ndim >= 1
    return not isinstance(value, (str, bytes, Mapping, Set)) and isinstance(value, Iterable)


def require_sequence(value, name: str, caller: str, *, optional: bool = False):
    """``value`` as a list, if it is an ordered collection (a list, tuple, range, array, generator).

    Strings, bytes, mappings and sets are refused: iterating them would
    silently give characters, keys or an arbitrary order.

    Examples
    --------
    >>> require_sequence((1, 2), "widths", "survey_table")
    [1, 2]
    >>> require_sequence({1: 2}, "widths", "survey_table")
    Traceback (most recent call last):
    ...
    polyrelu.errors.InvalidArgumentError: survey_table: widths must be a sequence (a list or tuple), got dict
    """
    if optional and value is None:
        return None
    if not is_sequence(value):
        _fail_type(caller, name, "a sequence (a list or tuple)" + (" or None" if optional else ""), value)
    return list(value)


def require_index(value, count: int, name: str, caller: str, *, what: str = "cell") -> int:
    """``value`` as an ``int`` index in ``0 .. count - 1`` (negative indices are refused, not counted from the end).

    Raises
    ------
    InvalidArgumentError
        Not an integer.
    UsageError
        Out of range.

    Examples
    --------
    >>> require_index(9, 7, "cell", "FaceLattice.faces")
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: FaceLattice.faces: cell must be a cell index from 0 to 6, not 9
    """
    if not count:
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            _fail_type(caller, name, f"a {what} index", value)
        raise UsageError(f"{caller}: {name} {describe(value).removeprefix('int ')}: there is no {what}")
    wanted = f"a {what} index from 0 to {count - 1}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        _fail_type(caller, name, wanted, value)
    if not 0 <= value < count:
        raise UsageError(f"{caller}: {name} must be {wanted}, not {describe(int(value)).removeprefix('int ')}")
    return int(value)


def require_igraph(value, name: str, caller: str, *, also=()):
    """``value`` if it is an ``igraph.Graph`` (or an instance of one of the classes ``also``)."""
    import igraph

    return require_instance(value, (*also, igraph.Graph), name, caller)


def require_axes(value, name: str, caller: str, *, optional: bool = False):
    """``value`` if it is a matplotlib ``Axes`` (or None when ``optional``)."""
    from matplotlib.axes import Axes

    return require_instance(value, Axes, name, caller, optional=optional)

