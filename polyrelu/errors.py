"""Exceptions raised by polyrelu.

Every error polyrelu raises on bad input is a subclass of :class:`PolyReluError`,
and its message names the offending object and position (for example
``"layer 2 weights[1][0]: nan is not a finite number"``) and says what to do.
The subclasses also derive from the built-in exception a Python user would
expect (``ValueError``, ``ImportError``), so generic handlers keep working.
"""

__all__ = [
    "PolyReluError",
    "BackendUnavailableError",
    "InvalidNumberError",
    "ShapeError",
    "NetworkFormatError",
    "GeometryError",
    "SymmetryError",
    "GraphError",
    "GraphFormatError",
    "RecoveryError",
]


class PolyReluError(Exception):
    """Base class of every error raised by polyrelu."""


class BackendUnavailableError(PolyReluError, ImportError):
    """A required exact backend (``cdd.gmp``) cannot be imported."""


class InvalidNumberError(PolyReluError, ValueError):
    """An entry is not a finite real number (NaN, inf, bool, None, text, ...)."""


class ShapeError(PolyReluError, ValueError):
    """Shapes do not fit: layer sizes, vector lengths, empty layers."""


class NetworkFormatError(PolyReluError, ValueError):
    """A network file is malformed, of a foreign format or an unknown version."""


class GeometryError(PolyReluError, ValueError):
    """Invalid polyhedral input: inconsistent dimensions, bad covering relation."""


class SymmetryError(PolyReluError, ValueError):
    """Invalid symmetry action: non-positive scale factor, not a permutation."""


class GraphError(PolyReluError, ValueError):
    """A graph does not have the structure asked for: a cycle in a DAG, a missing attribute."""


class GraphFormatError(PolyReluError, ValueError):
    """A graph file (GraphML, JSON) is malformed or of a foreign format."""


class RecoveryError(PolyReluError, ValueError):
    """A recovery oracle answered something that is not a function value (wrong length, NaN, a float in exact mode)."""
