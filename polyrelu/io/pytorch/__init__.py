"""PyTorch models and files: read without running code from files, converted exactly, checked against the model.

What is read
    A live ``nn.Module`` (:func:`network_from_torch`), a state dict (a
    mapping of names to tensors, such as ``model.state_dict()``), or a file
    that ``torch.save`` wrote holding a state dict (:func:`read_torch`).

Files are never unpickled
    :func:`read_torch` opens files with ``torch.load(..., weights_only=True)``,
    which rebuilds tensors and plain containers and nothing else. A file that
    needs more (a whole pickled ``nn.Module``, any custom class, a
    TorchScript archive, a bare pickle) is refused with
    :class:`~polyrelu.errors.UnsafeFileError` and the two lines that turn it
    into a state dict. ``trust_pickle=True`` lifts this for a file the caller
    trusts completely: it runs whatever code the file contains. Before
    ``torch.load`` the file's size and, for the zip archives ``torch.save``
    writes, every member's declared size and compression ratio are checked;
    a bare pickle (or the pre-1.6 format) is refused even as a plain state
    dict, because its sizes cannot be checked before torch allocates them.

Live models: the forward pass, traced
    A model's forward is traced with ``torch.fx`` (a copy of the model is
    traced, never the model itself) and read as a chain of steps in forward
    order (:mod:`~polyrelu.io.pytorch.trace`): ``Linear``, ``Conv2d`` (zero
    padding; stride, padding, dilation, groups, bias), ``AvgPool2d``,
    ``AdaptiveAvgPool2d``, ``BatchNorm1d``/``BatchNorm2d`` and ``Dropout``
    in eval mode, ``Identity``, ``ReLU``, ``Flatten`` and reshapes that keep
    the batch dimension first (``x.view(x.size(0), -1)``), as modules or as
    functions (``torch.relu``, ``F.relu``, ``x.relu()``, ``F.linear``,
    ``F.conv2d``, ``torch.flatten``, ...), in custom modules and nested
    ``nn.Sequential`` containers. Every other step is refused by name
    (``LeakyReLU``, ``Sigmoid``, ``MaxPool2d``, attention, ``+`` of a skip
    connection, ...). A Dropout or BatchNorm in training mode is refused:
    call ``model.eval()`` first. A forward that ``torch.fx`` cannot trace
    is read as its ``Linear`` modules in registration order with a ReLU
    between consecutive ones, when all its modules are Linear and ReLU.

    The affine steps between two ReLUs are composed exactly into one layer
    (:mod:`~polyrelu.io.pytorch.lowering`): a convolution or a pooling
    becomes a dense layer for the given ``input_shape``, a BatchNorm is
    folded into the Linear or convolution before it (or after it, when
    none precedes), a ``Linear`` without bias has bias 0. BatchNorm is exact
    for the float64 value of ``1 / sqrt(running_var + eps)`` as torch
    computes it; everything else is exact. Samples are flattened in
    row-major order, as ``x.flatten(1)`` does.

State dicts
    A state dict is read in its own (insertion) order, never sorted by
    name: entries ``<prefix>.weight`` and ``<prefix>.bias`` are grouped by
    prefix (``"0"``, ``"net.3"``, ``"input"``, ...) in order of first
    appearance, and consecutive layers get a ReLU between them. Only
    ``weight`` and ``bias`` entries are accepted. The ``_metadata`` attribute
    that ``state_dict()`` attaches (module version numbers) is ignored: it
    holds no parameter.

Every conversion is checked
    Every network converted from a live model is compared with the model's
    own forward pass (a float64 copy, ``copy.deepcopy(model).double().eval()``
    under ``torch.no_grad()``) at 100 seeded random points, against the
    converted network evaluated exactly; a difference beyond float64
    rounding raises :class:`~polyrelu.errors.ModelMismatchError`
    (:mod:`~polyrelu.io.pytorch.check`). A state dict has no forward pass: it
    is compared with a float64 reference pass of its own layers
    (``torch.nn.functional.linear`` and ``relu``), which catches conversion
    mistakes but cannot know the activations the state dict was trained
    with (a state dict records none: a Tanh network's state dict reads as a
    ReLU network).

Tensors and sizes
    float16, bfloat16, float32 and float64 entries are converted exactly
    (float64 holds all of them); integer dtypes are converted exactly too.
    Sparse, nested, meta-device, quantized, complex, bool and other dtypes
    (float8, ...) and tensor subclasses are refused by name
    (:mod:`~polyrelu.io.pytorch.tensors`). Every tensor's declared size is
    checked against :class:`~polyrelu.io.limits.Limits` when it is found;
    then, before anything is converted, the parameters in all, every width,
    and the dense map each affine step composes to.
"""

from __future__ import annotations

import copy
import os
import pickle
import pickletools
import re
import zipfile
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from ...checks import describe, require_instance
from ...errors import (
    InvalidArgumentError,
    ModelMismatchError,
    NetworkFormatError,
    ShapeError,
    UnsafeFileError,
)
from ...network import ReLUNetwork
from ..declared import check_layer_shapes, check_zip_members
from ..limits import DEFAULT_LIMITS, Limits, check_file_size
from .check import CHECK_POINTS, CHECK_SEED, check_conversion
from .lowering import lower
from .ops import LinearOp, ReLUOp
from .tensors import Param, first_line, import_torch
from .trace import module_ops

if TYPE_CHECKING:  # torch is optional and heavy: imported where it is used
    import torch

__all__ = ["network_from_torch", "read_torch", "CHECK_POINTS", "CHECK_SEED"]

_RECIPE = (
    "to read it, convert it once in a Python session you trust:\n"
    "    model = torch.load({path}, weights_only=False)\n"
    '    torch.save(model.state_dict(), "model_state.pt")\n'
    "then load model_state.pt (or pass trust_pickle=True, which runs the code in the file)"
)


def network_from_torch(
    model: torch.nn.Module | Mapping[str, Any],
    *,
    input_shape: Sequence[int] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> ReLUNetwork:
    """Convert a PyTorch ReLU network exactly, and check it against the model.

    Parameters
    ----------
    model : torch.nn.Module or mapping
        A module whose forward is a chain of the layers polyrelu reads
        (``nn.Sequential``, nested or not, or a custom module: see the
        module docstring and docs/formats.md), or a state dict
        (``model.state_dict()``) of ``Linear`` layers in forward order.
    input_shape : tuple of int, optional
        The shape of one sample, without the batch dimension: ``(C, H, W)``
        for a model that starts with a convolution, a pooling or a flatten
        (required there). Default: ``(n,)`` for a model whose first layer is
        a ``Linear`` of ``n`` inputs (or a ``BatchNorm1d`` of ``n``
        channels). The network's input is the sample flattened in row-major
        order (``x.flatten(1)``); so is its output.
    limits : Limits
        Bounds on tensor sizes, widths and the number of parameters, checked
        before anything is converted (a convolution lowered to a dense layer
        included).

    Returns
    -------
    ReLUNetwork
        One layer per run of affine steps between ReLUs, composed exactly; a
        plain ``Linear``/``ReLU`` chain keeps the model's parameters exactly
        (float16 to float64 and integer entries are converted without
        rounding).

    Raises
    ------
    NetworkFormatError
        A layer or function polyrelu does not read (named, with the list of
        what it reads), a Dropout or BatchNorm in training mode, a ReLU
        before the first or after the last affine layer, a state-dict entry
        other than a weight or a bias, a tensor that is sparse, quantized,
        on the meta device, complex, bool or of another dtype (each named).
    ModelMismatchError
        The converted network differs from the model's forward pass at one of
        :data:`CHECK_POINTS` seeded random points by more than float64
        rounding, or the forward pass fails on them; for a model that
        ``torch.fx`` cannot trace, also layers that do not fit together in
        registration order.
    ShapeError, InvalidNumberError
        A layer that does not fit the shape it gets (a wrong ``input_shape``);
        layers of a state dict that do not fit together in its order; NaN or
        infinite entries, a BatchNorm variance plus eps that is not positive.
    LimitExceededError
        Over ``limits``.
    InvalidArgumentError
        ``model`` is neither a module nor a mapping; ``input_shape`` is not a
        tuple of positive ints, or is missing where it is needed, or is given
        with a state dict.

    Examples
    --------
    >>> import torch
    >>> _ = torch.manual_seed(0)
    >>> model = torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.ReLU(), torch.nn.Linear(3, 1))
    >>> net = network_from_torch(model)
    >>> net.architecture.widths
    (2, 3, 1)
    >>> net.weights[0][0][0] == model[0].weight[0, 0].item()     # the float32 value, exactly
    True

    A convolution is lowered to a dense layer for the shape of a sample:

    >>> conv = torch.nn.Sequential(
    ...     torch.nn.Conv2d(1, 2, kernel_size=2), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(2 * 2 * 2, 1)
    ... )
    >>> network_from_torch(conv, input_shape=(1, 3, 3)).architecture.widths
    (9, 8, 1)
    >>> network_from_torch(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1)))
    Traceback (most recent call last):
    ...
    polyrelu.errors.NetworkFormatError: model: module 1 is Tanh, which polyrelu does not read; polyrelu reads models whose forward is a chain of Linear, ...

    See also
    --------
    read_torch : the same from a file written by ``torch.save``.
    """
    torch = import_torch()
    require_instance(limits, Limits, "limits", "network_from_torch")
    shape = _checked_input_shape(input_shape, "network_from_torch")
    if isinstance(model, torch.nn.Module):
        return _network_from_module(model, "model", shape, limits)
    if isinstance(model, Mapping):
        if shape is not None:
            raise InvalidArgumentError(
                "network_from_torch: input_shape is for modules; a state dict is read as Linear layers of flat inputs"
            )
        return _network_from_state_dict(model, "state dict", limits)
    raise InvalidArgumentError(f"network_from_torch: model must be a torch.nn.Module or a state dict, got {describe(model)}")


def read_torch(
    path: os.PathLike | str,
    *,
    trust_pickle: bool = False,
    input_shape: Sequence[int] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> ReLUNetwork:
    """Read a network from a file written by ``torch.save``: a state dict, never running code.

    Parameters
    ----------
    path : str or os.PathLike
    trust_pickle : bool
        ``False`` (the default): ``torch.load(..., weights_only=True)``, which
        cannot run code; files that need more are refused. ``True``:
        ``weights_only=False``, which **executes whatever code the file
        contains**; only for files you trust as much as your own code. The
        sizes are checked first either way.
    input_shape : tuple of int, optional
        For a module loaded with ``trust_pickle=True``, as in
        :func:`network_from_torch`.
    limits : Limits

    Returns
    -------
    ReLUNetwork
        As :func:`network_from_torch` of the loaded state dict (or, with
        ``trust_pickle=True``, of the loaded module).

    Raises
    ------
    UnsafeFileError
        The file needs full unpickling (a whole pickled model, a custom
        class, a TorchScript archive, a bare pickle): the message gives the
        two lines that save its state dict instead.
    NetworkFormatError
        No such file, not a PyTorch file, damaged, or content that is not a
        ReLU network (as :func:`network_from_torch`).
    LimitExceededError
        The file, a zip member or a tensor over ``limits``.
    ModelMismatchError, ShapeError, InvalidNumberError
        As :func:`network_from_torch`.
    """
    torch = import_torch()
    shape = _checked_input_shape(input_shape, "read_torch")
    source = str(path)
    check_file_size(path, limits)
    if zipfile.is_zipfile(path):
        try:
            with zipfile.ZipFile(path) as archive:
                check_zip_members(archive, source, limits)
                names = archive.namelist()
        except (zipfile.BadZipFile, OSError, EOFError) as exc:
            raise NetworkFormatError(f"{source}: torch cannot read it: a damaged zip archive ({exc})") from None
        if not trust_pickle and any(n == "constants.pkl" or n.endswith("/constants.pkl") for n in names):
            raise UnsafeFileError(
                f"{source}: a TorchScript archive (torch.jit.save), which holds code; " + _RECIPE.format(path=repr(source))
            )
    elif not trust_pickle:
        if _is_pickle(path):
            raise UnsafeFileError(
                f"{source}: a bare pickle (or the PyTorch format before 1.6), not the zip archive torch.save "
                "writes: reading it means unpickling, which can run code, and its sizes cannot be checked "
                "before they are allocated; " + _RECIPE.format(path=repr(source))
            )
        raise NetworkFormatError(f"{source}: torch cannot read it: not a zip archive written by torch.save")
    try:
        obj = torch.load(path, map_location="cpu", weights_only=not trust_pickle)
    except pickle.UnpicklingError as exc:
        if trust_pickle:
            raise NetworkFormatError(f"{source}: torch cannot read it ({first_line(exc)})") from None
        needed = re.search(r"GLOBAL (\S+) was not an allowed global", str(exc))
        reason = f"it needs {needed.group(1)} to be unpickled" if needed else "it needs more than tensors to be unpickled"
        raise UnsafeFileError(
            f"{source}: {reason} (a whole pickled model or a custom class); polyrelu opens PyTorch files with "
            "weights_only=True only, which never runs code from the file; " + _RECIPE.format(path=repr(source))
        ) from None
    except Exception as exc:  # torch raises RuntimeError, EOFError, KeyError, ... on damaged files
        raise NetworkFormatError(f"{source}: torch cannot read it ({type(exc).__name__}: {first_line(exc)})") from None
    if isinstance(obj, torch.nn.Module):
        return _network_from_module(obj, source, shape, limits)
    if isinstance(obj, Mapping):
        return _network_from_state_dict(obj, source, limits)
    raise NetworkFormatError(
        f"{source}: holds a {type(obj).__name__}, expected a state_dict (torch.save(model.state_dict(), path))"
    )


def _is_pickle(path):
    """Whether the file starts with a complete pickle (its opcodes parsed, nothing executed)."""
    try:
        with open(path, "rb") as fh:
            for opcode, _, _ in pickletools.genops(fh):
                if opcode.name == "STOP":
                    return True
    except Exception:  # genops raises ValueError and others on non-pickles
        return False
    return False


def _checked_input_shape(value, caller):
    if value is None:
        return None
    if (
        not isinstance(value, (tuple, list))
        or not value
        or not all(isinstance(n, int) and not isinstance(n, bool) and n >= 1 for n in value)
    ):
        raise InvalidArgumentError(
            f"{caller}: input_shape must be a tuple of positive ints, the shape of one sample without the batch "
            f"dimension (such as (1, 28, 28)), got {describe(value)}"
        )
    return tuple(value)


# -- live modules ---------------------------------------------------------------------------
def _network_from_module(model, source, input_shape, limits):
    reading = module_ops(model, source, limits)
    try:
        lowered = lower(reading.ops, input_shape, source, limits)
    except ShapeError as exc:
        if reading.traced:
            raise
        raise ModelMismatchError(
            f"{exc}: the model was read as {reading.description}, which cannot be the order its forward pass "
            "applies them; give an nn.Sequential, or a state_dict whose layers are in forward order"
        ) from None
    try:
        reference = copy.deepcopy(model).double().eval()
    except Exception as exc:
        raise ModelMismatchError(
            f"{source}: the model cannot be copied to check it in float64 ({type(exc).__name__}: {first_line(exc)}); "
            "give its state_dict instead"
        ) from None
    check_conversion(lowered.net, reading.ops, lowered.shapes, reference, source, reading.description, live=True)
    return lowered.net


# -- state dicts ------------------------------------------------------------------------------
def _network_from_state_dict(state, source, limits):
    torch = import_torch()
    groups = {}
    for key, value in state.items():
        if not isinstance(key, str):
            raise NetworkFormatError(f"{source}: the state dict has a key {key!r} that is not a string")
        prefix, _, kind = key.rpartition(".")
        if kind not in ("weight", "bias"):
            raise NetworkFormatError(
                f"{source}: unexpected entry {key!r} in the state dict; only the weight and bias of Linear layers are read"
            )
        if not isinstance(value, torch.Tensor):
            hint = " (to read a checkpoint's state dict, save that dict itself)" if isinstance(value, Mapping) else ""
            raise NetworkFormatError(f"{source}: entry {key!r} is a {type(value).__name__}, not a tensor{hint}")
        # insertion order is the file's order: groups keep the order of their first entry
        groups.setdefault(prefix, {})[kind] = (f"entry {key!r}", value)
    if not groups:
        raise NetworkFormatError(f"{source}: the state dict has no layers (no weight and bias entries)")
    layers = []
    for prefix, group in groups.items():
        if "weight" not in group or "bias" not in group:
            raise NetworkFormatError(f"{source}: layer {prefix!r} needs both weight and bias")
        layers.append((prefix, *(Param(tensor, what, source, limits) for what, tensor in (group["weight"], group["bias"]))))
    try:
        widths = check_layer_shapes(
            [(weight.shape, bias.shape) for _, weight, bias in layers], source, limits, names=list(groups)
        )
    except ShapeError as exc:
        raise ShapeError(f"{exc}; a state dict is read in its own order, which must be the forward order") from None
    ops = []
    for prefix, weight, bias in layers:
        if ops:
            ops.append(ReLUOp(f"the ReLU before layer {prefix!r}"))
        ops.append(LinearOp(f"layer {prefix!r}", weight, bias))
    lowered = lower(ops, (widths[0],), source, limits)

    def reference(batch):
        for op in ops:
            batch = op.forward(batch)
        return batch

    check_conversion(lowered.net, ops, lowered.shapes, reference, source, "its layers in order", live=False)
    return lowered.net
