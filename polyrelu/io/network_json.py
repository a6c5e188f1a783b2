"""The network JSON format (``polyrelu.network``, version 1): exact numbers, read with bounded work.

A network object is ``{"format": "polyrelu.network", "version": 1, "layers":
[{"weights": [[...], ...], "biases": [...]}, ...], "name": "..."}``; the
format is described in ``docs/formats.md``. Reading is strict: the format
string and the version must be exactly as written there, no other keys are
accepted (a key polyrelu does not know, such as an activation, would
otherwise be silently ignored), declared shapes are checked against
:class:`~polyrelu.io.limits.Limits` before any entry is converted, and every
number goes through :func:`~polyrelu.geometry.rational.to_fraction` (ASCII
digits, bounded digits and exponents).
"""

from __future__ import annotations

import os
from typing import Any

from ..atomic import write_json
from ..checks import require_instance, require_str
from ..errors import (
    InvalidNumberError,
    LimitExceededError,
    NetworkFormatError,
    ShapeError,
)
from ..geometry.rational import fraction_to_json
from ..network import ReLUNetwork
from .declared import check_layer_shapes
from .limits import DEFAULT_LIMITS, Limits, read_json

__all__ = [
    "NETWORK_FORMAT",
    "NETWORK_VERSION",
    "network_to_dict",
    "network_from_dict",
    "read_network_json",
    "write_network_json",
]

NETWORK_FORMAT = "polyrelu.network"
NETWORK_VERSION = 1
_KEYS = ("format", "version", "layers", "name")
_LAYER_KEYS = ("weights", "biases")


def network_to_dict(net: ReLUNetwork) -> dict[str, Any]:
    """The network JSON object of ``net``, with exact numbers.

    Integers are JSON integers (as strings beyond 4,000 digits), other
    rationals ``"p/q"`` strings. The name is not included
    (:func:`write_network_json` adds it).

    Raises
    ------
    InvalidArgumentError
        ``net`` is not a :class:`~polyrelu.network.ReLUNetwork`.

    Examples
    --------
    >>> net = ReLUNetwork([[["1/2", 1]], [[2]]], [[0], ["-1/3"]])
    >>> network_to_dict(net)["layers"][0]
    {'weights': [['1/2', 1]], 'biases': [0]}

    See also
    --------
    network_from_dict : the inverse.
    """
    require_instance(net, ReLUNetwork, "net", "network_to_dict")
    return {
        "format": NETWORK_FORMAT,
        "version": NETWORK_VERSION,
        "layers": [
            {"weights": [[fraction_to_json(v) for v in row] for row in W], "biases": [fraction_to_json(v) for v in b]}
            for W, b in net.layers
        ],
    }


def network_from_dict(obj: dict[str, Any], *, source: str = "network", limits: Limits = DEFAULT_LIMITS) -> ReLUNetwork:
    """Read a network JSON object (already parsed).

    Parameters
    ----------
    obj : dict
        ``{"format": "polyrelu.network", "version": 1, "layers": [...]}`` and
        optionally ``"name"`` (a string). ``format`` must be exactly that
        string and ``version`` exactly the integer 1 (not ``true``, ``1.0`` or
        ``"1"``); any other key, at the top or in a layer, is refused.
        Numbers may be integers, ``"p/q"`` or decimal strings (ASCII digits),
        or floats (converted exactly).
    source : str
        Where the object came from, at the start of every message.
    limits : Limits
        Bounds on the declared widths and number of parameters, checked
        before any entry is converted.

    Returns
    -------
    ReLUNetwork

    Raises
    ------
    NetworkFormatError
        Not a polyrelu network object, another format or version, unknown or
        missing keys, layers that are not lists.
    ShapeError, InvalidNumberError
        Bad layer shapes or entries (the message names the layer and entry).
    LimitExceededError
        Too wide, too many parameters, a number literal too long.
    InvalidArgumentError
        ``source`` is not a string or ``limits`` not a :class:`Limits`.

    Examples
    --------
    >>> net = network_from_dict({"format": "polyrelu.network", "version": 1,
    ...                          "layers": [{"weights": [["1/2", 2]], "biases": ["0.25"]}]})
    >>> net.weights, net.biases
    ((((Fraction(1, 2), Fraction(2, 1)),),), ((Fraction(1, 4),),))
    >>> network_from_dict({"format": "polyrelu.network", "version": True, "layers": []})
    Traceback (most recent call last):
    ...
    polyrelu.errors.NetworkFormatError: network: unsupported version True; this polyrelu reads version 1 (the integer)

    See also
    --------
    network_to_dict : the inverse.
    read_network_json : the same from a file, its size and nesting checked before parsing.
    """
    require_str(source, "source", "network_from_dict")
    require_instance(limits, Limits, "limits", "network_from_dict")
    if not isinstance(obj, dict):
        raise NetworkFormatError(f"{source}: expected a JSON object, got {type(obj).__name__}")
    fmt = obj.get("format")
    if type(fmt) is not str or fmt != NETWORK_FORMAT:
        raise NetworkFormatError(f"{source}: not a polyrelu network (format is {fmt!r}, expected {NETWORK_FORMAT!r})")
    version = obj.get("version")
    # True == 1 and 1.0 == 1 in Python: the type is checked first
    if type(version) is not int or version != NETWORK_VERSION:
        raise NetworkFormatError(
            f"{source}: unsupported version {version!r}; this polyrelu reads version {NETWORK_VERSION} (the integer)"
        )
    unknown = [k for k in obj if k not in _KEYS]
    if unknown:
        raise NetworkFormatError(
            f"{source}: unknown keys {unknown!r}; a network object has only {', '.join(map(repr, _KEYS))}"
        )
    name = obj.get("name")
    if name is not None and not isinstance(name, str):
        raise NetworkFormatError(f"{source}: 'name' must be a string, not {type(name).__name__}")
    if name is not None and not name.isprintable() and any(0xD800 <= ord(ch) <= 0xDFFF for ch in name):
        # a lone surrogate ("\ud800" in the JSON) is not text: it cannot be printed or written as UTF-8
        raise NetworkFormatError(f"{source}: 'name' {name!r} holds a lone surrogate, which is not text; fix the name")
    layers = obj.get("layers")
    if not isinstance(layers, list) or not layers:
        raise NetworkFormatError(f"{source}: 'layers' must be a non-empty list of {{'weights', 'biases'}} objects")
    shapes = []
    for l, layer in enumerate(layers, start=1):
        if not isinstance(layer, dict) or "weights" not in layer or "biases" not in layer:
            raise NetworkFormatError(f"{source}: layer {l} must be an object with 'weights' and 'biases'")
        unknown = [k for k in layer if k not in _LAYER_KEYS]
        if unknown:
            raise NetworkFormatError(f"{source}: layer {l} has unknown keys {unknown!r}; a layer has only 'weights' and 'biases'")
        weights, biases = layer["weights"], layer["biases"]
        if not isinstance(weights, list) or not all(isinstance(r, list) for r in weights):
            raise NetworkFormatError(f"{source}: layer {l} weights must be a list of rows")
        if not isinstance(biases, list):
            raise NetworkFormatError(f"{source}: layer {l} biases must be a list")
        # the longest row stands for the width: ragged rows are named by ReLUNetwork below
        shapes.append(((len(weights), max(map(len, weights), default=0)), (len(biases),)))
    check_layer_shapes(shapes, source, limits)
    try:
        return ReLUNetwork([layer["weights"] for layer in layers], [layer["biases"] for layer in layers], name=name)
    except (ShapeError, InvalidNumberError, LimitExceededError) as exc:
        raise type(exc)(f"{source}: {exc}") from None


def read_network_json(path: os.PathLike | str, limits: Limits = DEFAULT_LIMITS) -> ReLUNetwork:
    """Read a network JSON file: size and nesting checked before parsing, then :func:`network_from_dict`.

    Raises
    ------
    NetworkFormatError
        No such file, not UTF-8 text, invalid JSON (with line and column), or
        as :func:`network_from_dict`.
    LimitExceededError
        Over ``limits.max_file_bytes``, nested deeper than ``limits.max_depth``,
        an integer literal too long, or as :func:`network_from_dict`.
    ShapeError, InvalidNumberError
        As :func:`network_from_dict`; messages start with the path.
    """
    return network_from_dict(read_json(path, limits), source=str(path), limits=limits)


def write_network_json(net: ReLUNetwork, path: os.PathLike | str) -> None:
    """Write ``net`` as network JSON (with its name, if any) through :func:`~polyrelu.atomic.atomic_write`.

    The target is replaced only once the file is complete. Check the path
    first with :func:`~polyrelu.atomic.check_output_path` (as
    :func:`~polyrelu.io.save_network` does).
    """
    data = network_to_dict(net)
    if net.name:
        data["name"] = str(net.name)
    write_json(path, lambda: data, indent=1)
