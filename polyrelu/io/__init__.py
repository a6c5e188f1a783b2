"""Reading and writing networks and other files: bounded, never executing code, never misreading.

Readers check sizes, nesting and number literals before they allocate
(:class:`Limits`); PyTorch files are opened with ``weights_only=True`` unless
the caller passes ``trust_pickle=True``, and every network converted from a
PyTorch model is checked against the model. One module per format:
:mod:`~polyrelu.io.network_json`, :mod:`~polyrelu.io.npz`,
:mod:`~polyrelu.io.pytorch`; :mod:`~polyrelu.io.files` dispatches by suffix;
:mod:`~polyrelu.io.points` reads data points (``.npy``, ``.csv``, ``.json``).
:mod:`~polyrelu.io.limits` holds the bounds and the bounded JSON reader that
the complex and graph readers use too; :mod:`~polyrelu.io.declared` checks
what a file declares (list lengths, headers, archive sizes) before it is read.
"""

from .files import load_network, save_network
from .limits import (
    DEFAULT_LIMITS,
    Limits,
    check_file_size,
    json_depth,
    parse_json,
    read_json,
)
from .network_json import network_from_dict, network_to_dict
from .points import read_points
from .pytorch import network_from_torch

__all__ = [
    "load_network",
    "save_network",
    "network_to_dict",
    "network_from_dict",
    "network_from_torch",
    "read_points",
    "Limits",
    "DEFAULT_LIMITS",
    "read_json",
    "parse_json",
    "json_depth",
    "check_file_size",
]
