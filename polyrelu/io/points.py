"""Reading points (rows of input coordinates) from ``.npy``, ``.csv`` or ``.json`` files, exactly and with bounded work.

:func:`read_points` reads the data points a slice goes through
(``polyrelu slice NET --through FILE``), one point per row, every entry an
exact :class:`~fractions.Fraction`. What a file declares is checked before
its data is read: the file's size (:func:`~polyrelu.io.limits.check_file_size`),
an ``.npy`` header's dtype, shape and byte count
(:func:`~polyrelu.io.declared.read_npy_header`; arrays are then read with
``allow_pickle=False``), and the number of rows and their width as the
reader meets them. Floats are converted exactly (``float128`` too), text
numbers by :func:`~polyrelu.geometry.rational.parse_number` (ASCII digits,
bounded length).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ..checks import describe, require_instance, require_int, require_path
from ..errors import NetworkFormatError, ShapeError
from ..geometry.rational import FractionVector, parse_number, to_fraction
from .declared import read_npy_header
from .limits import DEFAULT_LIMITS, Limits, check_file_size, read_json

__all__ = ["POINT_SUFFIXES", "read_points"]

POINT_SUFFIXES = (".npy", ".csv", ".json")


def read_points(
    path: os.PathLike | str, *, width: int | None = None, max_rows: int | None = None, limits: Limits = DEFAULT_LIMITS
) -> tuple[FractionVector, ...]:
    """Read points, one per row, from an ``.npy``, ``.csv`` or ``.json`` file.

    Parameters
    ----------
    path : str or os.PathLike
        ``.npy``: a 2-D integer or float array (``numpy.save``), one row per
        point. ``.csv``: one point per line, numbers separated by commas
        (integers, decimals such as ``0.25`` or ``1e-3``, or ``p/q``); blank
        lines are skipped, and nothing but numbers is allowed (no header).
        ``.json``: a list of rows, each a list of numbers (JSON numbers, or
        strings such as ``"1/3"`` for exact values). The suffix is compared
        case-insensitively.
    width : int, optional
        The number of entries every row must have (a network's input width);
        by default every row must have as many as the first.
    max_rows : int, optional
        The most rows allowed; a file with more is refused before its rows
        are converted (for ``.npy``, before its data is read).
    limits : Limits
        Bounds on the file size and the array size (see :class:`~polyrelu.io.limits.Limits`).

    Returns
    -------
    tuple of tuple of Fraction
        The points, exactly: floats as the dyadic rationals they are.

    Raises
    ------
    NetworkFormatError
        No such file, an unknown suffix, not an ``.npy`` array, invalid JSON,
        not UTF-8 text, a truncated or padded ``.npy`` file.
    UnsafeFileError
        An ``.npy`` array of Python objects (a pickle): never opened.
    InvalidNumberError
        An entry that is not a finite number (NaN, ``inf``, text, a bool, a
        dtype other than integers and floats), named by row and column.
    ShapeError
        No rows, more than ``max_rows`` rows, a row of another width than
        ``width`` (or than the first row), an ``.npy`` array that is not 2-D.
    LimitExceededError
        A file or array over ``limits``, a number literal with too many digits.
    InvalidArgumentError
        ``path`` not a path, ``width`` or ``max_rows`` not a positive integer,
        ``limits`` not a :class:`~polyrelu.io.limits.Limits`.

    Examples
    --------
    >>> import tempfile, os, pathlib
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "points.csv")
    ...     _ = pathlib.Path(path).write_text("0, 0.5, 1/3\\n1, 2, 3\\n")
    ...     read_points(path, width=3)
    ((Fraction(0, 1), Fraction(1, 2), Fraction(1, 3)), (Fraction(1, 1), Fraction(2, 1), Fraction(3, 1)))
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     path = os.path.join(tmp, "points.csv")
    ...     _ = pathlib.Path(path).write_text("0, nan\\n")
    ...     read_points(path)
    Traceback (most recent call last):
    ...
    polyrelu.errors.InvalidNumberError: ...points.csv: row 0, column 1: 'nan' is not a finite number
    """
    require_path(path, "path", "read_points")
    require_int(width, "width", "read_points", minimum=1, optional=True)
    require_int(max_rows, "max_rows", "read_points", minimum=1, optional=True)
    require_instance(limits, Limits, "limits", "read_points")
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in POINT_SUFFIXES:
        raise NetworkFormatError(f"{path}: unknown suffix {path.suffix!r} for points; expected .npy, .csv or .json")
    check_file_size(path, limits)
    shape = _Shape(str(path), width, max_rows)
    if suffix == ".npy":
        rows: Any = _npy_rows(path, shape, limits)
    elif suffix == ".csv":
        rows = _csv_rows(path, shape)
    else:
        rows = _json_rows(path, shape, limits)
    shape.check_count(len(rows))
    return tuple(
        tuple(to_fraction(v, f"{path}: row {i}, column {j}") for j, v in enumerate(row)) for i, row in enumerate(rows)
    )


class _Shape:
    """The row count and width a file must keep to, checked row by row as the reader meets them."""

    def __init__(self, source: str, width: int | None, max_rows: int | None) -> None:
        self.source, self.width, self.max_rows = source, width, max_rows

    def check_count(self, rows: int) -> None:
        if rows == 0:
            raise ShapeError(f"{self.source}: no points; write one point per row")
        if self.max_rows is not None and rows > self.max_rows:
            raise ShapeError(f"{self.source}: {rows:,} rows, more than the {self.max_rows} points allowed here")

    def check_row(self, index: int, length: int) -> None:
        self.check_count(index + 1)
        if length == 0:
            raise ShapeError(f"{self.source}: row {index} is empty; write one point per row, one number per input")
        if self.width is None:
            self.width = length
        if length != self.width:
            raise ShapeError(
                f"{self.source}: row {index} has {length:,} entries, expected {self.width} "
                + ("(one per input)" if index == 0 else "(as many as the rows before)")
            )


def _npy_rows(path: Path, shape: _Shape, limits: Limits) -> np.ndarray:
    """The array of an ``.npy`` file, its header checked against ``shape`` and the file's size first."""
    with open(path, "rb") as fh:
        header = read_npy_header(fh, "the points array", str(path), limits)
        if len(header.shape) != 2:
            raise ShapeError(f"{path}: an array of shape {header.shape}; expected a 2-D array, one row per point")
        rows, columns = header.shape
        shape.check_count(rows)
        shape.check_row(0, columns)
        declared = header.offset + header.size * header.dtype.itemsize
        size = os.fstat(fh.fileno()).st_size
        if size != declared:
            raise NetworkFormatError(
                f"{path}: {size:,} bytes, but its header describes {declared:,} (shape {header.shape}, dtype "
                f"{header.dtype}); the file is truncated or has trailing data"
            )
        fh.seek(0)
        try:
            return np.lib.format.read_array(fh, allow_pickle=False)
        except (ValueError, OSError, EOFError) as exc:
            raise NetworkFormatError(f"{path}: cannot read the points array ({exc})") from None


def _csv_rows(path: Path, shape: _Shape) -> list[FractionVector]:
    """The rows of a CSV file of numbers, parsed exactly, line by line."""
    rows: list[FractionVector] = []
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            for line in fh:
                if not line.strip():
                    continue
                fields = line.split(",")
                shape.check_row(len(rows), len(fields))
                where = f"{path}: row {len(rows)}"
                rows.append(tuple(parse_number(v, f"{where}, column {j}") for j, v in enumerate(fields)))
    except UnicodeDecodeError:
        raise NetworkFormatError(f"{path}: not a UTF-8 text file; expected numbers separated by commas") from None
    return rows


def _json_rows(path: Path, shape: _Shape, limits: Limits) -> list[Any]:
    """The rows of a JSON list of rows, their count and widths checked."""
    data = read_json(path, limits)
    if not isinstance(data, list):
        raise NetworkFormatError(f"{path}: expected a JSON list of rows (one list of numbers per point), got {describe(data)}")
    shape.check_count(len(data))
    for i, row in enumerate(data):
        if not isinstance(row, list):
            raise ShapeError(f"{path}: row {i} is {describe(row)}, not a list of numbers")
        shape.check_row(i, len(row))
    return data
