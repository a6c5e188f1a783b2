"""Reading untrusted files with bounded work: sizes, nesting and number literals checked first.

Every reader in polyrelu goes through these checks before it allocates
anything in proportion to what a file *declares*: the file's size is checked
before it is read, JSON nesting before it is parsed, and every number literal
(integer digits, decimal exponents) before it is converted. A file that breaks
a limit is refused with :class:`~polyrelu.errors.LimitExceededError`, which
names the limit and how to raise it when the file is trusted.
"""

from __future__ import annotations

import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..checks import require_instance, require_int, require_path, require_str
from ..errors import InvalidNumberError, LimitExceededError, NetworkFormatError
from ..geometry.rational import parse_int

__all__ = ["Limits", "DEFAULT_LIMITS", "read_json", "parse_json", "json_depth", "check_file_size"]


@dataclass(frozen=True)
class Limits:
    """Bounds on what a file may make polyrelu allocate.

    Attributes
    ----------
    max_file_bytes : int
        Largest file read (JSON text, an archive, a PyTorch file).
    max_depth : int
        Deepest JSON nesting of arrays and objects.
    max_parameters : int
        Most weights and biases in a network (declared shapes are checked
        against it before arrays are read).
    max_width : int
        Widest layer.
    max_array_bytes : int
        Largest decompressed array (an ``.npz`` member, a tensor's storage).

    Examples
    --------
    >>> DEFAULT_LIMITS.max_depth
    64
    >>> Limits(max_parameters=10).max_parameters
    10
    """

    max_file_bytes: int = 2 << 30
    max_depth: int = 64
    max_parameters: int = 50_000_000
    max_width: int = 1_000_000
    max_array_bytes: int = 1 << 30

    def __post_init__(self) -> None:
        for name, value in vars(self).items():
            object.__setattr__(self, name, require_int(value, name, "Limits", minimum=1))


DEFAULT_LIMITS = Limits()

# Strings first, so that brackets inside them do not count.
_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def json_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in JSON text, without parsing it (linear, C speed).

    Examples
    --------
    >>> json_depth('{"a": [[1, "]]]"], {}]}')
    3
    """
    require_str(text, "text", "json_depth")
    skeleton = _STRING.sub("", text)
    skeleton = re.sub(r"[^\[\]{}]+", "", skeleton)
    if not skeleton:
        return 0
    steps = np.frombuffer(skeleton.encode("ascii"), dtype=np.uint8)
    # '[' 91 and '{' 123 open; ']' 93 and '}' 125 close
    delta = np.where((steps == 91) | (steps == 123), 1, -1).astype(np.int64)
    return int(np.cumsum(delta).max())


def parse_json(text: str, source: str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Parse JSON text after checking its nesting; integers are parsed with bounded digits.

    Parameters
    ----------
    text : str
    source : str
        Where the text came from, for messages.
    limits : Limits

    Raises
    ------
    NetworkFormatError
        Invalid JSON (with line and column), or a key that appears twice in one object.
    LimitExceededError
        Nesting deeper than ``limits.max_depth``, or an integer literal with
        too many digits.

    Examples
    --------
    >>> parse_json('{"a": [1, 2.5, "3/4"]}', "example")
    {'a': [1, 2.5, '3/4']}
    >>> parse_json("[" * 100 + "]" * 100, "deep.json")
    Traceback (most recent call last):
    ...
    polyrelu.errors.LimitExceededError: deep.json: JSON nested 100 levels deep, over the limit of 64; if the file is trusted, pass limits=Limits(max_depth=...)
    """
    require_str(text, "text", "parse_json")
    require_str(source, "source", "parse_json")
    require_instance(limits, Limits, "limits", "parse_json")
    depth = json_depth(text)
    if depth > limits.max_depth:
        raise LimitExceededError(
            f"{source}: JSON nested {depth} levels deep, over the limit of {limits.max_depth}; "
            "if the file is trusted, pass limits=Limits(max_depth=...)"
        )
    try:
        return json.loads(
            text,
            parse_int=lambda s: parse_int(s, f"{source}: integer"),
            parse_float=lambda s: _float(s, source),
            object_pairs_hook=lambda pairs: _unique_keys(pairs, source),
        )
    except json.JSONDecodeError as exc:
        raise NetworkFormatError(f"{source}: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:  # only if max_depth was raised past the interpreter's stack
        raise LimitExceededError(f"{source}: JSON nested too deeply for this interpreter") from None


def _unique_keys(pairs: list[tuple[str, Any]], source: str) -> dict[str, Any]:
    """An object's pairs as a dict, refused when a key repeats: JSON readers differ on which one they keep."""
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        # set.add returns None: the generator records each key and stops at the first one seen before
        twice = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        raise NetworkFormatError(
            f"{source}: the key {twice!r} appears twice in one object; JSON readers differ on which one they keep"
        )
    return obj


def _float(literal: str, source: str) -> float:
    """A JSON float literal as the nearest float64, refused when that changes it beyond rounding.

    ``1e999`` would become ``inf`` and ``1e-400`` would become ``0.0``: a
    silent misread of an exact file. Such numbers must be written as strings,
    which are read exactly.
    """
    value = float(literal)
    if not math.isfinite(value) or (value == 0 and any(ch in "123456789" for ch in literal.partition("e")[0].partition("E")[0])):
        raise InvalidNumberError(
            f"{source}: the number {literal[:40]} is outside the float64 range; write it as a string "
            f'("{literal[:40]}") to have it read exactly'
        )
    return value


def read_json(path: os.PathLike | str, limits: Limits = DEFAULT_LIMITS) -> Any:
    """Read and parse a JSON file, its size and nesting checked first.

    Raises
    ------
    NetworkFormatError
        No such file, not UTF-8 text, invalid JSON.
    LimitExceededError
        Larger than ``limits.max_file_bytes``, nested too deeply, a number too long.
    """
    path = Path(require_path(path, "path", "read_json"))
    require_instance(limits, Limits, "limits", "read_json")
    check_file_size(path, limits)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise NetworkFormatError(f"{path}: not a UTF-8 text file; expected JSON") from None
    except OSError as exc:
        raise NetworkFormatError(f"{path}: cannot be read ({exc.strerror})") from None
    return parse_json(text, str(path), limits)


def check_file_size(path: os.PathLike | str, limits: Limits = DEFAULT_LIMITS) -> int:
    """Refuse a missing file, a non-file, or one over ``limits.max_file_bytes``; return its size."""
    path = Path(require_path(path, "path", "check_file_size"))
    require_instance(limits, Limits, "limits", "check_file_size")
    if not path.is_file():
        raise NetworkFormatError(f"{path}: no such file" if not path.exists() else f"{path}: not a regular file")
    size = os.path.getsize(path)
    if size > limits.max_file_bytes:
        raise LimitExceededError(
            f"{path}: {size:,} bytes, over the limit of {limits.max_file_bytes:,}; "
            "if the file is trusted, pass limits=Limits(max_file_bytes=...)"
        )
    return size
