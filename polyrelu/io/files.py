"""Loading networks by file suffix (``.json``, ``.npz``, ``.pt``/``.pth``) and saving them (``.json``, ``.npz``).

:func:`load_network` dispatches to the reader of each format
(:mod:`~polyrelu.io.network_json`, :mod:`~polyrelu.io.npz`,
:mod:`~polyrelu.io.pytorch`); every reader checks sizes before it allocates,
never executes code from the file (unless ``trust_pickle=True`` for a
PyTorch file) and refuses what it cannot read exactly, with a
:class:`~polyrelu.errors.PolyReluError` that names the file.
:func:`save_network` checks the target first and writes atomically.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..atomic import check_output_path
from ..checks import require_bool, require_instance, require_path
from ..errors import NetworkFormatError
from ..network import ReLUNetwork
from .limits import DEFAULT_LIMITS, Limits
from .network_json import read_network_json, write_network_json
from .npz import read_npz, write_npz
from .pytorch import read_torch

__all__ = ["load_network", "save_network"]


def load_network(path: os.PathLike | str, *, trust_pickle: bool = False, limits: Limits = DEFAULT_LIMITS) -> ReLUNetwork:
    """Read a network from ``.json``, ``.npz``, or (with torch installed) ``.pt``/``.pth``.

    Parameters
    ----------
    path : str or os.PathLike
        ``.json``: the network JSON format. ``.npz``: arrays ``W1, b1, W2,
        b2, ...``. ``.pt``/``.pth``: a state dict saved with ``torch.save``
        (``torch.save(model.state_dict(), path)``), layers in file order. The
        suffix is compared case-insensitively.
    trust_pickle : bool
        Only for PyTorch files. ``False`` (the default) opens them with
        ``weights_only=True``, which never runs code, and refuses files that
        need more (a whole pickled model). ``True`` unpickles them fully,
        which **executes any code the file contains**: pass it only for files
        you trust as much as your own code.
    limits : Limits
        Bounds on the file size, JSON nesting, array sizes, widths and the
        number of parameters, all checked before anything of that size is
        allocated. Raise them for large trusted files.

    Returns
    -------
    ReLUNetwork

    Raises
    ------
    NetworkFormatError
        Missing file, unknown suffix, invalid JSON, a foreign or malformed
        file, a model that is not a ReLU network.
    UnsafeFileError
        A PyTorch file that needs full unpickling (and ``trust_pickle`` is
        false), or an ``.npz`` array of Python objects.
    ModelMismatchError
        A converted PyTorch model that does not compute what the model does.
    ShapeError, InvalidNumberError
        Bad shapes or entries, named by layer and position.
    LimitExceededError
        Over ``limits`` (the message says which limit and how to raise it).
    InvalidArgumentError
        ``path`` is not a path, ``trust_pickle`` not a bool, ``limits`` not a :class:`Limits`.

    Nothing is half-loaded: on any error no network is returned.

    Examples
    --------
    >>> import tempfile, os
    >>> net = ReLUNetwork.random((2, 3, 1), seed=4)
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_network(net, os.path.join(tmp, "net.json"))
    ...     load_network(os.path.join(tmp, "net.json")) == net
    True

    See also
    --------
    network_from_torch : convert a live PyTorch model.
    network_from_dict : read a parsed network JSON object.
    """
    require_path(path, "path", "load_network")
    require_bool(trust_pickle, "trust_pickle", "load_network")
    require_instance(limits, Limits, "limits", "load_network")
    path = Path(path)
    if not path.exists():
        raise NetworkFormatError(f"{path}: no such file")
    suffix = path.suffix.lower()
    if suffix == ".json":
        return read_network_json(path, limits)
    if suffix == ".npz":
        return read_npz(path, limits)
    if suffix in (".pt", ".pth"):
        return read_torch(path, trust_pickle=trust_pickle, limits=limits)
    raise NetworkFormatError(f"{path}: unknown suffix {path.suffix!r}; expected .json, .npz, .pt or .pth")


def save_network(net: ReLUNetwork, path: os.PathLike | str) -> None:
    """Write ``net`` to ``path``: ``.json`` (exact) or ``.npz`` (float64, only if exact).

    The path is checked before anything is computed, and the file is written
    atomically: an existing file is replaced only by a complete new one.

    Raises
    ------
    InvalidArgumentError
        ``net`` is not a :class:`~polyrelu.network.ReLUNetwork`, or ``path`` not a path.
    OutputPathError
        Another suffix, a missing or unwritable directory.
    NetworkFormatError
        An ``.npz`` target for parameters that float64 cannot hold exactly
        (use JSON then); nothing is written.

    Examples
    --------
    >>> import tempfile, os
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     save_network(ReLUNetwork([[[0.5, 2]]], [[-1]]), os.path.join(tmp, "net.npz"))
    ...     sorted(os.listdir(tmp))
    ['net.npz']
    """
    require_instance(net, ReLUNetwork, "net", "save_network")
    require_path(path, "path", "save_network")
    target = check_output_path(path, suffixes=(".json", ".npz"))
    if target.suffix.lower() == ".json":
        write_network_json(net, target)
    else:
        write_npz(net, target)
