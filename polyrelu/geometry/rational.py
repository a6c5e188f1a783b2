"""Exact rational numbers at the API edge and integer rows in the hot loops.

Every number that enters polyrelu goes through :func:`to_fraction`, which
accepts integers, fractions, ``Decimal``, NumPy numbers, decimal or ``"p/q"``
strings and finite floats (converted *exactly*: a float is a dyadic rational)
and rejects everything else with an error naming where the entry was.
Strings are read by :func:`parse_number` (and integers by :func:`parse_int`),
which accept ASCII digits only and bound the digits and the exponent before
converting. Inside algorithms, linear constraints are kept as primitive
integer rows (:func:`primitive_integer_row`), so exact checks are
Python-integer dot products instead of ``Fraction`` arithmetic; numbers go
out as JSON through :func:`fraction_to_json`. The type aliases of the public
signatures (``RationalLike``, ``VectorLike``, ``MatrixLike``,
``FractionVector``, ``FractionMatrix``, ``IntegerRow``) are defined here.
"""

from __future__ import annotations

import math
import numbers
import re
from collections.abc import Sequence
from decimal import Decimal
from fractions import Fraction
from typing import TypeAlias, cast

import flint
import numpy as np

from ..checks import describe, is_sequence, require_int
from ..errors import (
    InvalidArgumentError,
    InvalidNumberError,
    LimitExceededError,
    ShapeError,
)

__all__ = [
    "RationalLike",
    "VectorLike",
    "MatrixLike",
    "FractionVector",
    "FractionMatrix",
    "IntegerRow",
    "to_fraction",
    "parse_number",
    "parse_int",
    "int_text",
    "to_fraction_vector",
    "to_fraction_matrix",
    "to_integer_rows",
    "primitive_integer_row",
    "integer_vector",
    "fraction_to_json",
    "row_value",
]


# For type hints: what to_fraction accepts, as one number, a vector and a matrix, and what the
# converters return; an IntegerRow is an affine row (b, a_1, ..., a_d) of integers. numbers.Rational covers flint's and gmpy's rationals.
RationalLike: TypeAlias = int | Fraction | float | Decimal | str | numbers.Rational | np.integer | np.floating
VectorLike: TypeAlias = Sequence[RationalLike] | np.ndarray
MatrixLike: TypeAlias = Sequence[VectorLike] | np.ndarray
FractionVector: TypeAlias = tuple[Fraction, ...]
FractionMatrix: TypeAlias = tuple[FractionVector, ...]
IntegerRow: TypeAlias = tuple[int, ...]


def to_fraction(value: RationalLike, where: str = "value") -> Fraction:
    """Return ``value`` as an exact :class:`~fractions.Fraction`.

    Parameters
    ----------
    value : int, Fraction, float, numpy scalar, Decimal or str
        Strings may be integers, decimals (``"0.25"``, ``"1e-3"``) or ``"p/q"``.
        Floats are converted exactly (``0.1`` becomes ``3602879701896397/36028797018963968``).
    where : str
        Where the entry sits, used in the error message.

    Returns
    -------
    Fraction

    Raises
    ------
    InvalidNumberError
        If ``value`` is NaN, infinite, a bool, ``None`` or not a number.

    Examples
    --------
    >>> to_fraction("3/4"), to_fraction(0.5), to_fraction("-1e-2")
    (Fraction(3, 4), Fraction(1, 2), Fraction(-1, 100))
    >>> to_fraction(float("nan"), where="W1[0][1]")
    Traceback (most recent call last):
    ...
    polyrelu.errors.InvalidNumberError: W1[0][1]: nan is not a finite number
    """
    if type(where) is not str:
        raise InvalidArgumentError(f"to_fraction: where must be a string (a label for messages), got {describe(where)}")
    if isinstance(value, (bool, np.bool_)) or value is None:
        raise InvalidNumberError(f"{where}: {value!r} is not a number")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        if not np.isfinite(value):
            raise InvalidNumberError(f"{where}: {float(value)!r} is not a finite number")
        # as_integer_ratio is exact for every binary format, long double included (float() would round it)
        return Fraction(*value.as_integer_ratio())
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidNumberError(f"{where}: {value} is not a finite number")
        return parse_number(str(value), where)
    if isinstance(value, str):
        return parse_number(value, where)
    if isinstance(value, numbers.Rational):
        # typeshed types a Rational's numerator as an Integral-like protocol that Fraction's stub does not take
        return Fraction(value.numerator, value.denominator)  # type: ignore[call-overload]
    raise InvalidNumberError(f"{where}: {describe(value)} is not a real number")


# Bounds on number literals, checked before any digit is converted: "1e-999999999"
# would otherwise allocate a billion-digit denominator. Raise them for trusted input.
MAX_LITERAL_DIGITS = 20_000
MAX_LITERAL_EXPONENT = 20_000

_INTEGER = re.compile(r"[+-]?[0-9]+")
_RATIO = re.compile(r"([+-]?[0-9]+)/([0-9]+)")
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?")


def parse_int(text, where="value"):
    """An ASCII integer literal as an ``int``, its length checked first.

    Python's own ``int(text)`` accepts other scripts' digits and refuses more
    than 4,300 digits with a ``ValueError``; this accepts ``0-9`` only, up to
    :data:`MAX_LITERAL_DIGITS` digits.

    Raises
    ------
    InvalidNumberError
        Not an ASCII integer literal.
    LimitExceededError
        More than :data:`MAX_LITERAL_DIGITS` digits.

    Examples
    --------
    >>> parse_int("-120")
    -120
    """
    if not _INTEGER.fullmatch(text):
        raise InvalidNumberError(f"{where}: {_shown(text)} is not an integer; use the digits 0-9")
    return _digits(text, where)


def _digits(text, where):
    if len(text) > MAX_LITERAL_DIGITS + 1:
        raise LimitExceededError(
            f"{where}: a number with {len(text):,} digits is over the limit of {MAX_LITERAL_DIGITS:,}; "
            "if the input is trusted, raise polyrelu.geometry.rational.MAX_LITERAL_DIGITS"
        )
    # flint converts without Python's 4,300-digit guard and in quasi-linear time
    return int(flint.fmpz(text.lstrip("+"))) if len(text) > 4000 else int(text)


def parse_number(text, where="value"):
    """An exact :class:`~fractions.Fraction` from an integer, ``"p/q"`` or decimal literal.

    Only ASCII digits are accepted, and the digits and the exponent are
    bounded (:data:`MAX_LITERAL_DIGITS`, :data:`MAX_LITERAL_EXPONENT`) before
    anything is converted.

    Raises
    ------
    InvalidNumberError
        Not a number literal, a zero denominator, ``nan`` or ``inf``.
    LimitExceededError
        Too many digits, or an exponent beyond the limit.

    Examples
    --------
    >>> parse_number("3/4"), parse_number(" -1.5e-2 "), parse_number("7")
    (Fraction(3, 4), Fraction(-3, 200), Fraction(7, 1))
    >>> parse_number("1e-999999999")
    Traceback (most recent call last):
    ...
    polyrelu.errors.LimitExceededError: value: the exponent -999999999 is beyond ±20000; if the input is trusted, raise polyrelu.geometry.rational.MAX_LITERAL_EXPONENT
    """
    text = text.strip()
    if _INTEGER.fullmatch(text):
        return Fraction(_digits(text, where))
    ratio = _RATIO.fullmatch(text)
    if ratio:
        den = _digits(ratio.group(2), where)
        if den == 0:
            raise InvalidNumberError(f"{where}: {_shown(text)} has a zero denominator")
        return Fraction(_digits(ratio.group(1), where), den)
    decimal = _DECIMAL.fullmatch(text)
    if not decimal or not (decimal.group(2) or decimal.group(3)):
        if text.lower().lstrip("+-") in ("nan", "inf", "infinity", "snan"):
            raise InvalidNumberError(f"{where}: {_shown(text)} is not a finite number")
        raise InvalidNumberError(f"{where}: {_shown(text)} is not a number; use an integer, a decimal or 'p/q' (ASCII digits)")
    sign, whole, frac, exponent = decimal.groups()
    frac = frac or ""
    exp = 0
    if exponent is not None:
        if len(exponent.lstrip("+-").lstrip("0")) > 12:
            exp = MAX_LITERAL_EXPONENT + 1
        else:
            exp = int(exponent)
        if abs(exp) > MAX_LITERAL_EXPONENT:
            raise LimitExceededError(
                f"{where}: the exponent {exponent} is beyond ±{MAX_LITERAL_EXPONENT}; "
                "if the input is trusted, raise polyrelu.geometry.rational.MAX_LITERAL_EXPONENT"
            )
    mantissa = _digits(sign + (whole or "0") + frac, where)
    exp -= len(frac)
    return Fraction(mantissa * 10**exp) if exp >= 0 else Fraction(mantissa, 10**-exp)


def _shown(text):
    return repr(text if len(text) <= 40 else text[:37] + "...")


def to_fraction_vector(values: VectorLike, where: str = "vector", length: int | None = None) -> FractionVector:
    """Convert a 1-D sequence to a tuple of fractions, checking its length.

    Examples
    --------
    >>> to_fraction_vector([1, "1/2", 0.25])
    (Fraction(1, 1), Fraction(1, 2), Fraction(1, 4))
    >>> to_fraction_vector([1, 2], where="x", length=3)
    Traceback (most recent call last):
    ...
    polyrelu.errors.ShapeError: x: expected 3 entries, got 2
    """
    _check_label(where, "to_fraction_vector")
    if length is not None and (type(length) is not int or length < 0):  # checked cheaply: called per point
        require_int(length, "length", "to_fraction_vector", minimum=0)
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise ShapeError(f"{where}: expected a vector, got an array of shape {values.shape}")
        values = values.tolist()
    if not is_sequence(values):
        raise ShapeError(f"{where}: expected a sequence of numbers, got {describe(values)}")
    values = list(values)
    if length is not None and len(values) != length:
        raise ShapeError(f"{where}: expected {length} entries, got {len(values)}")
    return tuple(to_fraction(v, f"{where}[{i}]") for i, v in enumerate(values))


def to_fraction_matrix(
    rows: MatrixLike, where: str = "matrix", shape: Sequence[int | None] | None = None
) -> FractionMatrix:
    """Convert a 2-D array-like to a tuple of fraction tuples.

    ``shape`` is an optional ``(rows, columns)`` pair; either may be ``None``.
    A matrix with no rows is returned as ``()`` (its column count is then
    only checked by the caller).
    """
    _check_label(where, "to_fraction_matrix")
    if shape is not None:
        if not is_sequence(shape) or len(shape := tuple(shape)) != 2:
            raise InvalidArgumentError(f"to_fraction_matrix: shape must be a pair (rows, columns), got {describe(shape)}")
        shape = tuple(require_int(n, "shape", "to_fraction_matrix", minimum=0, optional=True) for n in shape)
    if isinstance(rows, np.ndarray):
        if rows.ndim != 2:
            raise ShapeError(f"{where}: expected a matrix, got an array of shape {rows.shape}")
        rows = rows.tolist()
    if not is_sequence(rows):
        raise ShapeError(f"{where}: expected a matrix (list of rows), got {describe(rows)}")
    rows = list(rows)
    n_rows, n_cols = shape if shape is not None else (None, None)
    if n_rows is not None and len(rows) != n_rows:
        raise ShapeError(f"{where}: expected {n_rows} rows, got {len(rows)}")
    out = []
    for i, row in enumerate(rows):
        vec = to_fraction_vector(row, f"{where}[{i}]")
        if n_cols is None:
            n_cols = len(vec)
        elif len(vec) != n_cols:
            raise ShapeError(f"{where}[{i}]: expected {n_cols} entries, got {len(vec)}")
        out.append(vec)
    return tuple(out)


def to_integer_rows(rows, where="rows"):
    """Affine integer rows ``(b, a_1, ..., a_d)`` (``d >= 1``, one length for all) as a tuple of int tuples.

    Python and NumPy integers are accepted; a bool, a float (even ``2.0``) or
    a Fraction is not: callers that take integer rows compute with them as
    integers.

    Raises
    ------
    ShapeError
        Not a sequence of sequences, rows of different lengths, or shorter than 2.
    InvalidNumberError
        An entry that is not an integer (named by position).

    Examples
    --------
    >>> to_integer_rows([(1, 2, 3), [0, -1, 1]])
    ((1, 2, 3), (0, -1, 1))
    >>> to_integer_rows([(1, 0.5)])
    Traceback (most recent call last):
    ...
    polyrelu.errors.InvalidNumberError: rows[0][1]: float 0.5 is not an integer
    """
    _check_label(where, "to_integer_rows")
    if not is_sequence(rows):
        raise ShapeError(f"{where}: expected a sequence of rows (b, a1, ..., ad), got {describe(rows)}")
    out = []
    for i, row in enumerate(rows):
        if type(row) is not tuple:
            if not is_sequence(row):
                raise ShapeError(f"{where}[{i}]: expected a row (b, a1, ..., ad) of integers, got {describe(row)}")
            row = tuple(row)
        if len(row) < 2 or (out and len(row) != len(out[0])):
            wanted = f"{len(out[0])} entries, as rows[0]" if out else "at least 2 entries (b, a1, ..., ad)"
            raise ShapeError(f"{where}[{i}]: expected {wanted}, got {len(row)}")
        if not all(type(v) is int for v in row):  # the LP oracle's hot path has Python ints only
            for j, v in enumerate(row):
                if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
                    raise InvalidNumberError(f"{where}[{i}][{j}]: {describe(v)} is not an integer")
            row = tuple(int(v) for v in row)
        out.append(row)
    return tuple(out)


def _check_label(where, caller):
    if type(where) is not str:
        raise InvalidArgumentError(f"{caller}: where must be a string (a label for messages), got {describe(where)}")


def primitive_integer_row(row: Sequence[RationalLike]) -> IntegerRow:
    """Scale a rational row by a positive factor to coprime integers.

    The sign is kept, so an inequality row keeps its meaning. A zero row stays zero.

    Examples
    --------
    >>> primitive_integer_row([Fraction(1, 2), Fraction(-3, 4), 0])
    (2, -3, 0)
    """
    if type(row) is not tuple:
        if not is_sequence(row):
            raise ShapeError(f"primitive_integer_row: row must be a sequence of numbers, got {describe(row)}")
        row = tuple(row)
    if all(type(v) is int for v in row):  # the hot path: integer rows need only a gcd
        integers = cast("tuple[int, ...]", row)
        g = math.gcd(*integers)
        return tuple(v // g for v in integers) if g > 1 else integers
    fractions = [v if type(v) is Fraction else to_fraction(v, f"row[{i}]") for i, v in enumerate(row)]
    lcm = 1
    for v in fractions:
        lcm = lcm * v.denominator // math.gcd(lcm, v.denominator)
    ints = [int(v * lcm) for v in fractions]
    g = 0
    for n in ints:
        g = math.gcd(g, n)
    if g > 1:
        ints = [n // g for n in ints]
    return tuple(ints)


def integer_vector(values):
    """Return ``(numerators, denominator)`` with ``values == numerators / denominator``.

    Examples
    --------
    >>> integer_vector([Fraction(1, 2), Fraction(1, 3)])
    ((3, 2), 6)
    """
    den = 1
    for v in values:
        den = den * v.denominator // math.gcd(den, v.denominator)
    return tuple(v.numerator * (den // v.denominator) for v in values), den


def fraction_to_json(value: RationalLike) -> int | str:
    """An exact JSON number: an ``int`` when integral, else a ``"p/q"`` string.

    Examples
    --------
    >>> fraction_to_json(Fraction(4, 2)), fraction_to_json(Fraction(-1, 3))
    (2, '-1/3')
    """
    value = to_fraction(value)
    if value.denominator == 1:
        # json.dumps cannot write an int of more than 4,300 digits: long integers become strings
        return value.numerator if value.numerator.bit_length() < 13_000 else int_text(value.numerator)
    return f"{int_text(value.numerator)}/{int_text(value.denominator)}"


def int_text(n):
    """The decimal digits of an integer of any length (``str`` stops at 4,300 digits).

    Examples
    --------
    >>> len(int_text(10**5000))
    5001
    """
    return str(n) if n.bit_length() < 13_000 else str(flint.fmpz(n))


def row_value(row, x):
    """The affine function ``b + a·x`` of a row ``(b, a1, ..., an)`` at ``x`` (exact for exact entries).

    Examples
    --------
    >>> row_value((1, 2, -3), (Fraction(1, 2), 1))
    Fraction(-1, 1)
    """
    return row[0] + sum(a * xi for a, xi in zip(row[1:], x))
