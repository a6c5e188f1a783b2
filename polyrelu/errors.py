"""Exceptions raised by polyrelu: one error contract for the whole package.

Every failure that input or use can cause is a subclass of
:class:`PolyReluError`, and its message names the offending object and
position (for example ``"layer 2 weights[1][0]: nan is not a finite number"``)
and says what to do. The subclasses also derive from the built-in exception a
Python user would expect (``ValueError``, ``TypeError``, ``ImportError``), so
generic handlers keep working. The command line maps them to exit codes:
:class:`UsageError` (and argparse's own errors) exit with 2, every other
:class:`PolyReluError` with 1 (Ctrl-C exits with 130, ``SIGTERM`` with 143).

Every such class is defined here, grouped by the kind of failure:

- usage: the call or the command line is wrong
  (:class:`UsageError`, :class:`InvalidArgumentError`, :class:`OutputPathError`);
- input values: a number or a shape that cannot be used
  (:class:`InvalidNumberError`, :class:`ShapeError`);
- input files: a file that is malformed, foreign, unsafe or inconsistent
  (:class:`DocumentFormatError` and its subclasses :class:`NetworkFormatError`,
  :class:`UnsafeFileError`, :class:`ModelMismatchError`, :class:`ComplexFormatError`,
  :class:`GraphFormatError`, :class:`AnalysisFormatError`);
- limits: input or work beyond a safety bound
  (:class:`LimitExceededError`, :class:`ComplexTooLargeError`);
- environment: a required exact backend is missing (:class:`BackendUnavailableError`);
- mathematics: an object without the structure asked for
  (:class:`GeometryError`, :class:`SymmetryError`, :class:`GraphError`);
- recovery: a black-box oracle that does not answer like a function (:class:`RecoveryError`).

An exception that is *not* a :class:`PolyReluError` escaping a public function
is a bug in polyrelu, never the user's fault. (A few internal exceptions are
control flow, not errors, and are caught inside polyrelu before they reach a
caller: the size guard's ``Estimated``, the budget and stage signals of
:mod:`polyrelu.recovery.control`, and private ones caught in the module that
raises them.)
"""

from __future__ import annotations

__all__ = [
    # the base class
    "PolyReluError",
    # usage
    "UsageError",
    "InvalidArgumentError",
    "OutputPathError",
    # input values
    "InvalidNumberError",
    "ShapeError",
    # input files
    "DocumentFormatError",
    "NetworkFormatError",
    "UnsafeFileError",
    "ModelMismatchError",
    "ComplexFormatError",
    "GraphFormatError",
    "AnalysisFormatError",
    # limits
    "LimitExceededError",
    "ComplexTooLargeError",
    # environment
    "BackendUnavailableError",
    # mathematics
    "GeometryError",
    "SymmetryError",
    "GraphError",
    # recovery
    "RecoveryError",
]


# -- the base class ------------------------------------------------------------------------------


class PolyReluError(Exception):
    """Base class of every error raised by polyrelu."""


# -- usage: the call or command line is wrong (exit status 2) ------------------------------------


class UsageError(PolyReluError, ValueError):
    """The call or command line is wrong: an option value, a combination of options, a target path."""


class InvalidArgumentError(UsageError, TypeError):
    """A Python argument of the wrong type (a string where a network is expected, say)."""


class OutputPathError(UsageError):
    """An output path cannot be written: no such directory, not writable, the input file itself, a bad suffix."""


# -- input values: a number or a shape that cannot be used ---------------------------------------


class InvalidNumberError(PolyReluError, ValueError):
    """An entry is not a finite real number (NaN, inf, bool, None, text, ...)."""


class ShapeError(PolyReluError, ValueError):
    """Shapes do not fit: layer sizes, vector lengths, empty layers."""


# -- input files: a file that is not what it claims to be ----------------------------------------


class DocumentFormatError(PolyReluError, ValueError):
    """A document or file is not one polyrelu reads: malformed, foreign, or failing its JSON Schema.

    The base of the format errors of each kind of document, so that one
    ``except`` catches every document :func:`polyrelu.validate` refuses; raised
    itself for a document whose kind cannot be told (no polyrelu ``format`` field).
    """


class NetworkFormatError(DocumentFormatError):
    """A network file is malformed, of a foreign format or an unknown version."""


class UnsafeFileError(NetworkFormatError):
    """A file could run code when opened (a pickled object); it is refused, not opened."""


class ModelMismatchError(NetworkFormatError):
    """A converted network does not compute what the model it came from computes."""


class ComplexFormatError(NetworkFormatError):
    """A complex file is malformed, fails its JSON Schema, or is geometrically inconsistent."""


class GraphFormatError(DocumentFormatError):
    """A graph file (GraphML, JSON) is malformed or of a foreign format."""


class AnalysisFormatError(DocumentFormatError):
    """An analysis report (``polyrelu analyze --json``) is malformed or fails its JSON Schema."""


# -- limits: input or work beyond a safety bound -------------------------------------------------


class LimitExceededError(PolyReluError, ValueError):
    """Input or work beyond a safety limit (digits of a number, JSON nesting, array sizes, cell counts, time).

    Raised before anything large is allocated; the message names the limit
    and how to raise it when the input is trusted.
    """


class ComplexTooLargeError(LimitExceededError):
    """The complex would have more cells than allowed; the message gives the estimate.

    Attributes
    ----------
    estimate : int or None
        The estimated number of cells after the layer that was refused.
    margin : int
        The estimate's sampling margin: a limit of ``estimate + margin`` cells
        lets the layer through.
    """

    def __init__(self, message: str, estimate: int | None = None, margin: int = 0) -> None:
        super().__init__(message)
        self.estimate = estimate
        self.margin = margin


# -- environment: a required backend is missing --------------------------------------------------


class BackendUnavailableError(PolyReluError, ImportError):
    """A library that the operation asked for cannot be imported; the message says what to install.

    Raised for the exact backend every polyhedron needs (pycddlib built with
    GMP, ``cdd.gmp``), and for optional ones, only by the operation that uses
    them: Sage (``Polyhedron.to_sage``, ``Cell.to_sage``), Plotly (interactive
    pages, ``write_complex_html`` and ``--html``), Dask's ``distributed``
    (a ``scheduler`` address or ``DASK_SCHEDULER_ADDRESS``).
    """


# -- mathematics: objects without the structure asked for ----------------------------------------


class GeometryError(PolyReluError, ValueError):
    """Invalid polyhedral input: inconsistent dimensions, bad covering relation."""


class SymmetryError(PolyReluError, ValueError):
    """Invalid symmetry action: non-positive scale factor, not a permutation."""


class GraphError(PolyReluError, ValueError):
    """A graph does not have the structure asked for: a cycle in a DAG, a missing attribute."""


# -- recovery: an oracle that does not behave like a function ------------------------------------


class RecoveryError(PolyReluError, ValueError):
    """A recovery oracle answered something that is not a function value (wrong length, NaN, a float in exact mode)."""
