"""Checks on what a file declares, made before anything it declares is allocated.

A network file states its sizes before its data: JSON list lengths, ``.npy``
headers, tensor shapes, the uncompressed sizes in a zip archive's directory.
The readers of :mod:`polyrelu.io` compare these declarations with
:class:`~polyrelu.io.limits.Limits` and with each other here, so that a forged
header is refused in microseconds instead of allocating what it claims.
"""

from __future__ import annotations

import math
import zipfile
import zlib
from collections.abc import Sequence
from typing import IO, NamedTuple

import numpy as np

from ..errors import (
    InvalidNumberError,
    LimitExceededError,
    NetworkFormatError,
    ShapeError,
    UnsafeFileError,
)
from .limits import DEFAULT_LIMITS, Limits

__all__ = [
    "MAX_COMPRESSION_RATIO",
    "NpyHeader",
    "check_array_size",
    "check_layer_shapes",
    "check_zip_members",
    "read_npy_header",
]

# Weights compress poorly (trained float weights about 1.1:1, small integers
# stored as floats about 10:1); a member beyond this ratio is a decompression
# bomb far more often than a network. Members under _RATIO_EXEMPT_BYTES are
# never refused for their ratio: they cannot make anyone allocate much.
MAX_COMPRESSION_RATIO = 100
_RATIO_EXEMPT_BYTES = 1 << 20
# what reading a damaged file or zip member can raise (bad CRC, truncated deflate stream, unknown method, ...)
_STREAM_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError)


def _raise_hint(field: str) -> str:
    return f"if the file is trusted, pass limits=Limits({field}=...)"


def check_array_size(shape: Sequence[int], itemsize: int, what: str, source: str, limits: Limits = DEFAULT_LIMITS) -> int:
    """Refuse an array whose declared shape is over the limits; return its number of entries.

    Parameters
    ----------
    shape : tuple of int
        The declared shape (nothing of that size exists yet).
    itemsize : int
        Bytes per entry as stored.
    what : str
        The array's name, for messages (``"array W1"``, ``"tensor '0.weight'"``).
    source : str
        The file (or object) being read.
    limits : Limits

    Returns
    -------
    int
        The number of entries.

    Raises
    ------
    LimitExceededError
        More than ``limits.max_array_bytes`` bytes or ``limits.max_parameters`` entries.

    Examples
    --------
    >>> check_array_size((3, 4), 8, "array W1", "net.npz")
    12
    >>> check_array_size((10**9,), 8, "array W1", "net.npz")
    Traceback (most recent call last):
    ...
    polyrelu.errors.LimitExceededError: net.npz: array W1 declares shape (1000000000,), 8,000,000,000 bytes, over the limit of 1,073,741,824; if the file is trusted, pass limits=Limits(max_array_bytes=...)
    """
    count = math.prod(int(n) for n in shape)
    nbytes = count * int(itemsize)
    shown = tuple(int(n) for n in shape)
    if nbytes > limits.max_array_bytes:
        raise LimitExceededError(
            f"{source}: {what} declares shape {shown}, {nbytes:,} bytes, over the limit of "
            f"{limits.max_array_bytes:,}; {_raise_hint('max_array_bytes')}"
        )
    if count > limits.max_parameters:
        raise LimitExceededError(
            f"{source}: {what} declares shape {shown}, {count:,} entries, over the limit of "
            f"{limits.max_parameters:,} parameters; {_raise_hint('max_parameters')}"
        )
    return count


class NpyHeader(NamedTuple):
    """What an ``.npy`` header declares, checked by :func:`read_npy_header`."""

    shape: tuple[int, ...]
    fortran_order: bool
    dtype: np.dtype
    size: int  # entries: the product of the shape
    offset: int  # bytes before the data (magic and header)


def read_npy_header(fh: IO[bytes], what: str, source: str, limits: Limits = DEFAULT_LIMITS) -> NpyHeader:
    """Read and check the header of an ``.npy`` array from ``fh``, without reading its data.

    ``fh`` is positioned at the start of the array (its magic string) and is
    left just after the header. Only integer and float arrays of versions 1.0
    and 2.0 are accepted, within ``limits``; the caller compares the declared
    byte count ``offset + count * dtype.itemsize`` with what the file holds.

    Parameters
    ----------
    fh : binary file
    what : str
        The array's name, for messages (``"array W1"``, ``"the points"``).
    source : str
        The file being read.
    limits : Limits

    Returns
    -------
    NpyHeader

    Raises
    ------
    NetworkFormatError
        Not a readable ``.npy`` header, or format version 3.0 (structured dtypes only).
    UnsafeFileError
        An object array, stored as a pickle: polyrelu never unpickles.
    InvalidNumberError
        A dtype that is not integer or float (bool, complex, strings, structured, dates).
    LimitExceededError
        A shape over ``limits`` (see :func:`check_array_size`).

    Examples
    --------
    >>> import io
    >>> buffer = io.BytesIO()
    >>> np.save(buffer, np.zeros((2, 3)))
    >>> _ = buffer.seek(0)
    >>> header = read_npy_header(buffer, "array x", "x.npy")
    >>> header.shape, header.dtype.name, header.size
    ((2, 3), 'float64', 6)
    """
    try:
        version = np.lib.format.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = np.lib.format.read_array_header_2_0(fh)
        else:
            shape = None
        offset = fh.tell()
    except (ValueError, SyntaxError, *_STREAM_ERRORS) as exc:
        raise NetworkFormatError(f"{source}: {what} is not a readable .npy array ({exc})") from None
    if shape is None:
        raise NetworkFormatError(
            f"{source}: {what} has .npy format version {version[0]}.{version[1]} (used only for "
            "structured dtypes); expected version 1.0 or 2.0 of an integer or float array"
        )
    if dtype.hasobject:
        raise UnsafeFileError(
            f"{source}: {what} holds Python objects (dtype object), which are stored as a pickle; "
            "polyrelu never unpickles: save numeric arrays (integers or floats)"
        )
    if dtype.kind not in "iuf" or dtype.names is not None or dtype.subdtype is not None:
        raise InvalidNumberError(f"{source}: {what} has dtype {dtype}, expected integers or floats")
    count = check_array_size(shape, dtype.itemsize, what, source, limits)
    return NpyHeader(tuple(int(n) for n in shape), bool(fortran), dtype, count, offset)


def check_layer_shapes(
    shapes: Sequence[tuple[Sequence[int], Sequence[int]]],
    source: str,
    limits: Limits = DEFAULT_LIMITS,
    *,
    names: Sequence[str] | None = None,
) -> tuple[int, ...]:
    """Check that declared layer shapes fit together and within the limits; return the widths.

    Parameters
    ----------
    shapes : sequence of (tuple, tuple)
        Per layer, the declared shape of its weight matrix (rows = neurons,
        columns = the previous layer's neurons) and of its bias vector.
    source : str
        The file (or object) being read, for messages.
    limits : Limits
    names : sequence of str, optional
        A name per layer (a module or state-dict prefix) shown next to its number.

    Returns
    -------
    tuple of int
        The widths ``(n0, n1, ..., m)``.

    Raises
    ------
    ShapeError
        A weight that is not a matrix, a bias that is not a vector, an empty
        layer, or layers that do not fit together.
    LimitExceededError
        A width over ``limits.max_width`` or more than ``limits.max_parameters``
        weights and biases in all.

    Examples
    --------
    >>> check_layer_shapes([((3, 2), (3,)), ((1, 3), (1,))], "net.npz")
    (2, 3, 1)
    >>> check_layer_shapes([((3, 2), (3,)), ((1, 4), (1,))], "net.npz", names=["fc1", "fc2"])
    Traceback (most recent call last):
    ...
    polyrelu.errors.ShapeError: net.npz: layer 2 ('fc2'): weights have 4 columns but layer 1 ('fc1') has 3 neurons
    """

    def label(l: int) -> str:
        return f"layer {l}" if names is None else f"layer {l} ({names[l - 1]!r})"

    widths: list[int] = []
    total = 0
    for l, (weight_shape, bias_shape) in enumerate(shapes, start=1):
        weight_shape, bias_shape = tuple(weight_shape), tuple(bias_shape)
        if len(weight_shape) != 2:
            raise ShapeError(f"{source}: {label(l)} weights: expected a matrix, got an array of shape {weight_shape}")
        if len(bias_shape) != 1:
            raise ShapeError(f"{source}: {label(l)} biases: expected a vector, got an array of shape {bias_shape}")
        rows, cols = weight_shape
        if rows == 0:
            raise ShapeError(f"{source}: {label(l)} is empty: its weight matrix has no rows")
        if cols == 0:
            raise ShapeError(f"{source}: {label(l)}: the weight matrix has no columns" + (" (empty input)" if l == 1 else ""))
        if widths and cols != widths[-1]:
            raise ShapeError(f"{source}: {label(l)}: weights have {cols} columns but {label(l - 1)} has {widths[-1]} neurons")
        if bias_shape[0] != rows:
            raise ShapeError(f"{source}: {label(l)}: {rows} weight rows but {bias_shape[0]} biases")
        if not widths:
            widths.append(cols)
        widths.append(rows)
        total += rows * cols + rows
    widest = max(widths, default=0)
    if widest > limits.max_width:
        raise LimitExceededError(
            f"{source}: a layer of width {widest:,}, over the limit of {limits.max_width:,}; {_raise_hint('max_width')}"
        )
    if total > limits.max_parameters:
        raise LimitExceededError(
            f"{source}: {total:,} weights and biases, over the limit of {limits.max_parameters:,}; "
            f"{_raise_hint('max_parameters')}"
        )
    return tuple(widths)


def check_zip_members(archive: zipfile.ZipFile, source: str, limits: Limits = DEFAULT_LIMITS) -> None:
    """Refuse a zip archive whose directory declares too much, from the directory alone.

    Nothing is decompressed: the sizes are the ones the archive's central
    directory declares, and every reader stops at the declared size.

    Parameters
    ----------
    archive : zipfile.ZipFile
    source : str
    limits : Limits

    Raises
    ------
    NetworkFormatError
        An encrypted member, a name that appears twice, or a stored member
        whose declared size differs from its stored size (a forged directory).
    LimitExceededError
        A member over ``limits.max_array_bytes`` uncompressed, all members
        together over ``limits.max_file_bytes``, or a member larger than
        1 MiB compressed more than :data:`MAX_COMPRESSION_RATIO` to 1 (a
        decompression bomb).
    """
    seen, total = set(), 0
    for info in archive.infolist():
        name = info.filename
        if name in seen:
            raise NetworkFormatError(f"{source}: the archive holds two members named {name!r}; it is damaged or forged")
        seen.add(name)
        if info.flag_bits & 0x1:
            raise NetworkFormatError(f"{source}: member {name!r} is encrypted; polyrelu reads plain archives only")
        if info.compress_type == zipfile.ZIP_STORED and info.file_size != info.compress_size:
            raise NetworkFormatError(
                f"{source}: member {name!r} is stored uncompressed but declares {info.file_size:,} bytes for "
                f"{info.compress_size:,} stored; the archive is damaged or forged"
            )
        if info.file_size > limits.max_array_bytes:
            raise LimitExceededError(
                f"{source}: member {name!r} declares {info.file_size:,} bytes uncompressed, over the limit of "
                f"{limits.max_array_bytes:,}; {_raise_hint('max_array_bytes')}"
            )
        if info.file_size > _RATIO_EXEMPT_BYTES and info.file_size > MAX_COMPRESSION_RATIO * info.compress_size:
            ratio = info.file_size / max(info.compress_size, 1)
            raise LimitExceededError(
                f"{source}: member {name!r} declares {info.file_size:,} bytes from {info.compress_size:,} compressed "
                f"(a compression ratio of {ratio:,.0f}:1, over {MAX_COMPRESSION_RATIO}:1), which is how decompression "
                "bombs look; if the file is trusted, store it uncompressed (numpy.savez, not savez_compressed)"
            )
        total += info.file_size
    if total > limits.max_file_bytes:
        raise LimitExceededError(
            f"{source}: the archive declares {total:,} bytes uncompressed, over the limit of "
            f"{limits.max_file_bytes:,}; {_raise_hint('max_file_bytes')}"
        )
