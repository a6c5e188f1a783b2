"""NumPy ``.npz`` networks: arrays ``W1, b1, W2, b2, ...``, every declaration checked before any data is read.

An ``.npz`` file is a zip archive of ``.npy`` members. Before a single array
is read, :func:`read_npz` checks the member names (exactly ``W1.npy``,
``b1.npy``, ...), the archive's declared sizes and compression ratios
(:func:`~polyrelu.io.declared.check_zip_members`), and every member's ``.npy``
header (shape, dtype, byte count) read on its own from the zip stream; the
layers' shapes must fit together within :class:`~polyrelu.io.limits.Limits`.
Arrays are then read with ``allow_pickle=False``: polyrelu never unpickles.

Accepted dtypes are integers and floats of any size. Extended precision
(``float128``/``longdouble``) is converted exactly (``as_integer_ratio``),
like every other float. Object arrays (pickles) are refused with
:class:`~polyrelu.errors.UnsafeFileError`; bool, complex, string,
structured, sub-array and date dtypes with
:class:`~polyrelu.errors.InvalidNumberError`.
"""

from __future__ import annotations

import os
import re
import zipfile
import zlib
from fractions import Fraction
from typing import Any

import numpy as np

from ..atomic import atomic_write
from ..errors import InvalidNumberError, NetworkFormatError, ShapeError
from ..network import ReLUNetwork
from .declared import check_layer_shapes, check_zip_members, read_npy_header
from .limits import DEFAULT_LIMITS, Limits, check_file_size

__all__ = ["read_npz", "write_npz"]

_MEMBER = re.compile(r"([Wb])([1-9][0-9]{0,8})\.npy")
_NPY_MAGIC = b"\x93NUMPY"
# what reading a damaged zip member can raise (bad CRC, truncated deflate stream, unknown method, ...)
_ZIP_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError)


def read_npz(path: os.PathLike | str, limits: Limits = DEFAULT_LIMITS) -> ReLUNetwork:
    """Read a network from an ``.npz`` archive of arrays ``W1, b1, W2, b2, ...``.

    ``Wl`` has one row per neuron of layer ``l`` and one column per neuron of
    the layer before (the PyTorch ``Linear.weight`` layout); ``bl`` is a vector.

    Raises
    ------
    NetworkFormatError
        No such file, not a zip archive, a single ``.npy`` array, missing or
        unexpected members, a damaged or forged member.
    UnsafeFileError
        An object (pickled) array.
    InvalidNumberError
        A dtype that is not integer or float; NaN or infinite entries (named
        by layer and position).
    ShapeError
        Layers that do not fit together.
    LimitExceededError
        A file, member, array, width or parameter count over ``limits``, or a
        member compressed like a decompression bomb.

    Examples
    --------
    >>> import tempfile, os
    >>> net = ReLUNetwork([[[1, -2], [0.5, 3]], [[1, 1]]], [[0, 1], [-0.25]])
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_npz(net, os.path.join(tmp, "net.npz"))
    ...     read_npz(os.path.join(tmp, "net.npz")) == net
    True
    """
    check_file_size(path, limits)
    with open(path, "rb") as fh:
        head = fh.read(len(_NPY_MAGIC))
    if head == _NPY_MAGIC:
        raise NetworkFormatError(f"{path}: holds a single array (an .npy file), expected arrays W1, b1, W2, b2, ...")
    if not zipfile.is_zipfile(path):
        raise NetworkFormatError(f"{path}: not a NumPy .npz archive (not a zip file); expected arrays W1, b1, W2, b2, ...")
    try:
        archive = zipfile.ZipFile(path)
    except _ZIP_ERRORS as exc:
        raise NetworkFormatError(f"{path}: not a NumPy .npz archive ({exc})") from None
    with archive:
        check_zip_members(archive, str(path), limits)
        count = _layer_count(archive, path)
        names = [f"{k}{l}" for l in range(1, count + 1) for k in "Wb"]
        headers = {name: _read_header(archive, name, path, limits) for name in names}
        check_layer_shapes(
            [(headers[f"W{l}"][0], headers[f"b{l}"][0]) for l in range(1, count + 1)], str(path), limits
        )
        arrays = {name: _read_array(archive, name, path) for name in names}
    Ws = [_entries(arrays[f"W{l}"], f"layer {l} weights", path) for l in range(1, count + 1)]
    bs = [_entries(arrays[f"b{l}"], f"layer {l} biases", path) for l in range(1, count + 1)]
    try:
        return ReLUNetwork(Ws, bs)
    except (ShapeError, InvalidNumberError) as exc:
        raise type(exc)(f"{path}: {exc}") from None


def _layer_count(archive: zipfile.ZipFile, path: os.PathLike | str) -> int:
    """The number of layers, once every member is ``W<l>.npy`` or ``b<l>.npy`` and none is missing."""
    found, unexpected = set(), []
    for name in archive.namelist():
        match = _MEMBER.fullmatch(name)
        if match:
            found.add((match.group(1), int(match.group(2))))
        else:
            unexpected.append(name[: -len(".npy")] if name.endswith(".npy") else name)
    if unexpected:
        raise NetworkFormatError(f"{path}: unexpected arrays {sorted(unexpected)[:10]}; expected W1, b1, W2, b2, ... only")
    if not found:
        raise NetworkFormatError(f"{path}: no arrays W1, b1, ... found")
    count = max(l for _, l in found)
    # at most len(found) + 10 steps, whatever the largest index claims
    missing = []
    for l in range(1, count + 1):
        missing += [f"{k}{l}" for k in "Wb" if (k, l) not in found]
        if len(missing) >= 10:
            break
    if missing:
        raise NetworkFormatError(f"{path}: missing arrays {missing}")
    return count


def _read_header(
    archive: zipfile.ZipFile, name: str, path: os.PathLike | str, limits: Limits
) -> tuple[tuple[int, ...], bool, np.dtype]:
    """``(shape, fortran_order, dtype)`` of a member, from its ``.npy`` header alone; checked."""
    info = archive.getinfo(f"{name}.npy")
    try:
        with archive.open(info) as fh:
            header = read_npy_header(fh, f"array {name}", str(path), limits)
    except _ZIP_ERRORS as exc:  # opening the member, before its header is read
        raise NetworkFormatError(f"{path}: array {name} is not a readable .npy array ({exc})") from None
    if info.file_size != header.offset + header.size * header.dtype.itemsize:
        raise NetworkFormatError(
            f"{path}: array {name} declares {info.file_size:,} bytes, but its header describes "
            f"{header.offset + header.size * header.dtype.itemsize:,} (shape {header.shape}, dtype {header.dtype}); "
            "the archive is damaged or forged"
        )
    return header.shape, header.fortran_order, header.dtype


def _read_array(archive: zipfile.ZipFile, name: str, path: os.PathLike | str) -> np.ndarray:
    try:
        with archive.open(f"{name}.npy") as fh:
            return np.lib.format.read_array(fh, allow_pickle=False)
    except (ValueError, *_ZIP_ERRORS) as exc:
        raise NetworkFormatError(f"{path}: cannot read array {name} ({exc})") from None


def _entries(array: np.ndarray, where: str, path: os.PathLike | str) -> np.ndarray | list[Any]:
    """The array itself, or for extended precision nested lists of exact Fractions.

    ``tolist()`` and ``float()`` would round ``longdouble`` values to float64;
    ``as_integer_ratio`` is exact.
    """
    if array.dtype.kind != "f" or array.dtype.itemsize <= 8:
        return array
    finite = np.isfinite(array)
    if not finite.all():
        index = tuple(int(i) for i in np.argwhere(~finite)[0])
        position = "".join(f"[{i}]" for i in index)
        raise InvalidNumberError(f"{path}: {where}{position}: {array[index]} is not a finite number")
    if array.ndim == 1:
        return [Fraction(*v.as_integer_ratio()) for v in array]
    return [[Fraction(*v.as_integer_ratio()) for v in row] for row in array]


def write_npz(net: ReLUNetwork, path: os.PathLike | str) -> None:
    """Write ``net`` as float64 arrays ``W1, b1, ...`` through :func:`~polyrelu.atomic.atomic_write`.

    Raises
    ------
    NetworkFormatError
        A parameter that float64 cannot hold exactly (use JSON then); nothing is written.
    """
    arrays = {}
    for l, (W, b) in enumerate(net.layers, start=1):
        for key, values, flat in ((f"W{l}", W, [v for row in W for v in row]), (f"b{l}", b, list(b))):
            try:
                array = np.array(values, dtype=float)
            except OverflowError:
                raise NetworkFormatError(f"{path}: {key} has entries too large for float64; save as .json") from None
            if any(Fraction(f) != v for f, v in zip(array.ravel().tolist(), flat)):
                raise NetworkFormatError(f"{path}: {key} has entries float64 cannot hold exactly; save as .json")
            arrays[key] = array
    with atomic_write(path, "wb") as fh:
        # numpy's stub matches the ** mapping against savez's bool keyword allow_pickle too; the keys are W1, b1, ...
        np.savez(fh, **arrays)  # type: ignore[arg-type]
