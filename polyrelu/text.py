"""How the text polyrelu prints writes exact numbers, and lays out tables and long lines.

Exact rationals of float origin have tens of digits (the float ``0.1`` is
``3602879701896397/36028797018963968``). In printed text, :func:`number_text`
writes a number whose exact form is longer than :data:`SHORT` characters as
``-7.24e-2 (exact: 61 digits)``, rounded to three significant digits, and
:func:`vector_text` marks such entries ``~-7.24e-2``; within
:func:`exact_numbers` (``--exact`` on the command line), or with
``exact=True``, every number is written in full. JSON outputs are exact
always: this is about what people read.

:func:`columns` aligns a table at any width, and :func:`wrap` breaks a long
line at spaces, indenting what follows, so that reports stay within
:data:`LINE_WIDTH` characters.

This is an internal API: its names are not exported from :mod:`polyrelu`.
"""

from __future__ import annotations

import contextlib
import contextvars
import textwrap
from collections.abc import Iterable, Iterator, Sequence
from fractions import Fraction

from .geometry.rational import RationalLike, fraction_to_json, int_text, to_fraction

__all__ = [
    "LINE_WIDTH",
    "SHORT",
    "exact_numbers",
    "is_long",
    "written_in_full",
    "number_text",
    "entry_text",
    "vector_text",
    "scientific_text",
    "columns",
    "wrap",
]

LINE_WIDTH = 120
"""The width reports keep to (their exact numbers aside)."""

SHORT = 12
"""Exact forms up to this many characters are always written in full (``-40503/65536``)."""

_EXACT: contextvars.ContextVar[bool] = contextvars.ContextVar("polyrelu_exact_numbers", default=False)


@contextlib.contextmanager
def exact_numbers(exact: bool = True) -> Iterator[None]:
    """Within the block, :func:`number_text` and :func:`vector_text` write every number in full (or, with ``False``, abbreviate).

    Examples
    --------
    >>> x = Fraction(1, 3) + Fraction(1, 10**20)
    >>> number_text(x)
    '3.33e-1 (exact: 42 digits)'
    >>> with exact_numbers():
    ...     number_text(x)
    '100000000000000000003/300000000000000000000'
    """
    token = _EXACT.set(bool(exact))
    try:
        yield
    finally:
        _EXACT.reset(token)


def _exact_text(value: Fraction) -> str:
    return str(fraction_to_json(value))


def is_long(value: RationalLike) -> bool:
    """Whether the exact form of ``value`` is longer than :data:`SHORT` characters (and so abbreviated in text).

    Examples
    --------
    >>> is_long(Fraction(-40503, 65536)), is_long(0.1)
    (False, True)
    """
    value = to_fraction(value)
    # the bit lengths bound the characters cheaply: a 40-bit number has at most 13 digits
    if value.numerator.bit_length() + value.denominator.bit_length() < 36:
        return False
    return len(_exact_text(value)) > SHORT


def _digits(n: int) -> int:
    return len(int_text(abs(n)))


def scientific_text(value: RationalLike, significant: int = 3) -> str:
    """``value`` rounded to ``significant`` digits, as ``-7.24e-2``: exact arithmetic, any magnitude.

    Examples
    --------
    >>> scientific_text(Fraction(-724, 10000)), scientific_text(Fraction(9999, 10)), scientific_text(Fraction(10) ** 400)
    ('-7.24e-2', '1.00e3', '1.00e400')
    >>> scientific_text(0)
    '0'
    """
    value = to_fraction(value)
    if not value:
        return "0"
    size = abs(value)
    exponent = _digits(size.numerator) - _digits(size.denominator)  # within one of floor(log10(size))
    while size >= Fraction(10) ** (exponent + 1):
        exponent += 1
    while size < Fraction(10) ** exponent:
        exponent -= 1
    mantissa = round(size / Fraction(10) ** (exponent - significant + 1))
    if mantissa == 10**significant:  # 9.995 rounds up to 10.0
        mantissa //= 10
        exponent += 1
    digits = str(mantissa)
    head = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
    return f"{'-' if value < 0 else ''}{head}e{exponent}"


def number_text(value: RationalLike, exact: bool | None = None) -> str:
    """An exact number as text: an integer or ``p/q``; rounded with its length said if longer than :data:`SHORT`.

    Parameters
    ----------
    value : RationalLike
    exact : bool, optional
        Write it in full whatever its length; by default as set by
        :func:`exact_numbers` (abbreviated outside it).

    Examples
    --------
    >>> number_text(Fraction(4, 2)), number_text(Fraction(-1, 3))
    ('2', '-1/3')
    >>> number_text(-0.0724)
    '-7.24e-2 (exact: 33 digits)'
    >>> number_text(-0.0724, exact=True)
    '-5216969808345983/72057594037927936'
    """
    value = to_fraction(value)
    if _in_full(value, exact):
        return _exact_text(value)
    return f"{scientific_text(value)} (exact: {_digits(value.numerator) + _digits(value.denominator)} digits)"


def entry_text(value: RationalLike, exact: bool | None = None) -> str:
    """An exact number as an entry of a vector or a table: in full, or rounded and marked ``~``.

    Examples
    --------
    >>> entry_text(Fraction(-1, 3)), entry_text(-0.0724)
    ('-1/3', '~-7.24e-2')
    """
    value = to_fraction(value)
    return _exact_text(value) if _in_full(value, exact) else "~" + scientific_text(value)


def vector_text(values: Iterable[RationalLike], exact: bool | None = None) -> str:
    """Exact numbers as a parenthesized tuple, ``(1, -1/3)``, each written by :func:`entry_text`.

    Examples
    --------
    >>> vector_text([1, Fraction(-1, 3)])
    '(1, -1/3)'
    >>> vector_text([1, -0.0724])
    '(1, ~-7.24e-2)'
    """
    return "(" + ", ".join(entry_text(v, exact) for v in values) + ")"


def written_in_full() -> bool:
    """Whether numbers are written in full here: within :func:`exact_numbers`.

    Examples
    --------
    >>> written_in_full()
    False
    >>> with exact_numbers():
    ...     written_in_full()
    True
    """
    return _EXACT.get()


def _in_full(value: Fraction, exact: bool | None) -> bool:
    return (written_in_full() if exact is None else exact) or not is_long(value)


def columns(rows: Sequence[Sequence[object]], right: Iterable[int] = (), gap: int = 2) -> list[str]:
    """The rows as lines of aligned columns, each as wide as its widest entry.

    Parameters
    ----------
    rows : sequence of sequences
        The header first, if any; entries are written with ``str``.
    right : iterable of int
        The columns aligned to the right (numbers); the others to the left.
    gap : int
        Spaces between columns.

    Examples
    --------
    >>> for line in columns([("neuron", "facets"), ((1, 0), 16), ((1, 10), 8)], right=[1]):
    ...     print(line)
    neuron   facets
    (1, 0)       16
    (1, 10)       8
    """
    texts = [[str(entry) for entry in row] for row in rows]
    widths = [max((len(row[k]) for row in texts if k < len(row)), default=0) for k in range(max(map(len, texts), default=0))]
    aligned = set(right)
    lines = []
    for row in texts:
        cells = [entry.rjust(widths[k]) if k in aligned else entry.ljust(widths[k]) for k, entry in enumerate(row)]
        lines.append((" " * gap).join(cells).rstrip())
    return lines


def wrap(line: str, indent: int, width: int = LINE_WIDTH) -> list[str]:
    """``line`` broken at spaces into lines of at most ``width`` characters, those after the first indented by ``indent``.

    A word longer than the width (an exact number of many digits) is not broken.

    Examples
    --------
    >>> wrap("(1, 2, 3, 4) | 5", indent=2, width=10)
    ['(1, 2, 3,', '  4) | 5']
    """
    return textwrap.wrap(line, width=width, subsequent_indent=" " * indent, break_long_words=False,
                         break_on_hyphens=False) or [""]
