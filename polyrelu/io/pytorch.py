"""PyTorch models and files: read without running code, converted exactly, checked against the model.

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

Layer order
    A state dict is read in its own (insertion) order, never sorted by
    name: entries ``<prefix>.weight`` and ``<prefix>.bias`` are grouped by
    prefix (``"0"``, ``"net.3"``, ``"input"``, ...) in order of first
    appearance, and consecutive layers get a ReLU between them. Only
    ``weight`` and ``bias`` entries are accepted. The ``_metadata`` attribute
    that ``state_dict()`` attaches (module version numbers) is ignored: it
    holds no parameter.

    In a live model the layers are its ``Linear`` modules in registration
    order (``model.named_modules()``, nested containers included). In an
    ``nn.Sequential`` they must alternate ``Linear, ReLU, ..., Linear``. In any
    other module ``ReLU`` modules may sit anywhere (they hold nothing) and a
    ReLU is assumed between consecutive ``Linear`` layers, as in the usual
    ``forward`` that calls ``torch.relu``. Every other module type is refused
    by name (``Tanh``, ``LeakyReLU``, ``GELU``, ``Sigmoid``, ``ReLU6``,
    ``Softplus``, ``Dropout``, ``BatchNorm``, ``Identity``, ``Flatten``, ...):
    none of them is needed to describe a ReLU network, and refusing them
    keeps the meaning of the layers unambiguous.

Every conversion is checked
    Registration order is not forward order, so every network converted from
    a live model is compared with the model's own forward pass (a float64
    copy, ``copy.deepcopy(model).double().eval()`` under ``torch.no_grad()``)
    at 100 seeded random points, against the converted network evaluated
    exactly; a difference beyond float64 rounding raises
    :class:`~polyrelu.errors.ModelMismatchError`. A state dict has no forward
    pass: it is compared with a float64 reference pass of its own layers
    (``torch.nn.functional.linear`` and ``relu``), which catches conversion
    mistakes but cannot know the activations the state dict was trained
    with (a state dict records none: a Tanh network's state dict reads as a
    ReLU network).

Tensors
    float16, bfloat16, float32 and float64 entries are converted exactly
    (float64 holds all of them); integer dtypes are converted exactly too.
    Sparse, nested, meta-device, quantized, complex, bool and other dtypes
    (float8, ...) and tensor subclasses are refused by name. Every tensor's
    declared size is checked against :class:`~polyrelu.io.limits.Limits`
    before it is converted, then the widths and the total number of
    parameters.
"""

from __future__ import annotations

import copy
import os
import pickle
import pickletools
import re
import zipfile
from collections.abc import Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from ..checks import describe, require_instance
from ..errors import (
    InvalidArgumentError,
    InvalidNumberError,
    ModelMismatchError,
    NetworkFormatError,
    ShapeError,
    UnsafeFileError,
)
from ..network import ReLUNetwork
from .declared import check_array_size, check_layer_shapes, check_zip_members
from .limits import DEFAULT_LIMITS, Limits, check_file_size

if TYPE_CHECKING:  # torch is optional and heavy: imported where it is used
    import torch

__all__ = ["network_from_torch", "read_torch", "CHECK_POINTS", "CHECK_SEED"]

# The forward-pass check: this many points, from this seed, each a standard
# normal vector times 10**u with u uniform in [-2, 3], so that points lie in
# many regions at several scales.
CHECK_POINTS = 100
CHECK_SEED = 0

_RECIPE = (
    "to read it, convert it once in a Python session you trust:\n"
    "    model = torch.load({path}, weights_only=False)\n"
    '    torch.save(model.state_dict(), "model_state.pt")\n'
    "then load model_state.pt (or pass trust_pickle=True, which runs the code in the file)"
)
_UNIT_ROUNDOFF = 2.0**-53


def _import_torch():
    try:
        import torch
    except ImportError:
        raise NetworkFormatError("reading PyTorch models needs torch: pip install 'polyrelu[torch]'") from None
    return torch


def network_from_torch(model: torch.nn.Module | Mapping[str, Any], *, limits: Limits = DEFAULT_LIMITS) -> ReLUNetwork:
    """Convert a PyTorch ReLU network exactly, and check it against the model.

    Parameters
    ----------
    model : torch.nn.Module or mapping
        An ``nn.Sequential`` of ``Linear`` and ``ReLU`` modules (``Linear,
        ReLU, ..., Linear``), a single ``nn.Linear``, another ``nn.Module``
        whose modules are ``Linear`` layers (in forward order) and ``ReLU``,
        or a state dict (``model.state_dict()``) of ``Linear`` layers in
        forward order.
    limits : Limits
        Bounds on tensor sizes, widths and the number of parameters.

    Returns
    -------
    ReLUNetwork
        Parameters equal to the model's, exactly (float16 to float64 and
        integer entries are converted without rounding).

    Raises
    ------
    NetworkFormatError
        A module other than ``Linear``/``ReLU``, a ``Linear`` without bias, a
        misplaced ``ReLU``, a state-dict entry other than a weight or a bias,
        a tensor that is sparse, quantized, on the meta device, complex, bool
        or of another dtype (each named).
    ModelMismatchError
        The converted network differs from the model's forward pass at one of
        :data:`CHECK_POINTS` seeded random points by more than float64
        rounding, the forward pass fails on them, or the layers in
        registration order do not fit together: the model's forward is not
        its modules in registration order. Give an ``nn.Sequential`` or a
        state dict in forward order.
    ShapeError, InvalidNumberError
        A state dict whose layers do not fit together in its order; NaN or
        infinite entries.
    LimitExceededError
        Over ``limits``.
    InvalidArgumentError
        ``model`` is neither a module nor a mapping.

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
    >>> network_from_torch(torch.nn.Sequential(torch.nn.Linear(2, 3), torch.nn.Tanh(), torch.nn.Linear(3, 1)))
    Traceback (most recent call last):
    ...
    polyrelu.errors.NetworkFormatError: model: module 1 is Tanh; only Linear and ReLU modules are read (a ReLU network)

    See also
    --------
    read_torch : the same from a file written by ``torch.save``.
    """
    torch = _import_torch()
    require_instance(limits, Limits, "limits", "network_from_torch")
    if isinstance(model, torch.nn.Module):
        return _network_from_module(model, "model", limits)
    if isinstance(model, Mapping):
        return _network_from_state_dict(model, "state dict", limits)
    raise InvalidArgumentError(f"network_from_torch: model must be a torch.nn.Module or a state dict, got {describe(model)}")


def read_torch(path: os.PathLike | str, *, trust_pickle: bool = False, limits: Limits = DEFAULT_LIMITS) -> ReLUNetwork:
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
    torch = _import_torch()
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
            raise NetworkFormatError(f"{source}: torch cannot read it ({_first_line(exc)})") from None
        needed = re.search(r"GLOBAL (\S+) was not an allowed global", str(exc))
        reason = f"it needs {needed.group(1)} to be unpickled" if needed else "it needs more than tensors to be unpickled"
        raise UnsafeFileError(
            f"{source}: {reason} (a whole pickled model or a custom class); polyrelu opens PyTorch files with "
            "weights_only=True only, which never runs code from the file; " + _RECIPE.format(path=repr(source))
        ) from None
    except Exception as exc:  # torch raises RuntimeError, EOFError, KeyError, ... on damaged files
        raise NetworkFormatError(f"{source}: torch cannot read it ({type(exc).__name__}: {_first_line(exc)})") from None
    if isinstance(obj, torch.nn.Module):
        return _network_from_module(obj, source, limits)
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


def _first_line(exc):
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# -- live modules ---------------------------------------------------------------------------
def _network_from_module(model, source, limits):
    torch = _import_torch()
    nn = torch.nn
    leaves = []
    for name, module in model.named_modules(remove_duplicate=False):
        label = name or "(the model itself)"
        if next(module.children(), None) is not None:
            own = [n for n, _ in module.named_parameters(recurse=False)] + [n for n, _ in module.named_buffers(recurse=False)]
            if own:
                raise NetworkFormatError(
                    f"{source}: module {label} ({type(module).__name__}) holds tensors of its own {own}; "
                    "only Linear layers may hold parameters"
                )
            continue
        if not isinstance(module, (nn.Linear, nn.ReLU)):
            raise NetworkFormatError(
                f"{source}: module {label} is {type(module).__name__}; only Linear and ReLU modules are read (a ReLU network)"
            )
        leaves.append((label, module))
    if isinstance(model, nn.Sequential):
        linears = _alternating_layers(leaves, source)
        reading = "its modules in order"
    else:
        linears = [(label, m) for label, m in leaves if isinstance(m, nn.Linear)]
        reading = "its Linear modules in registration order with a ReLU between consecutive ones"
    if not linears:
        raise NetworkFormatError(f"{source}: no Linear layers found")
    for label, linear in linears:
        if linear.bias is None:
            raise NetworkFormatError(f"{source}: module {label}: Linear without bias is not supported; use bias=True")
    layers = [
        (label, (f"module {label} weight", linear.weight), (f"module {label} bias", linear.bias)) for label, linear in linears
    ]
    try:
        net, reference_layers = _convert_layers(layers, source, limits)
    except ShapeError as exc:
        raise ModelMismatchError(
            f"{exc}: the model was read as {reading}, which cannot be the order its forward pass applies them; "
            "give an nn.Sequential of Linear and ReLU modules, or a state_dict whose layers are in forward order"
        ) from None
    try:
        reference = copy.deepcopy(model).double().eval()
    except Exception as exc:
        raise ModelMismatchError(
            f"{source}: the model cannot be copied to check it in float64 ({type(exc).__name__}: {_first_line(exc)}); "
            "give its state_dict instead"
        ) from None
    _check_against(net, reference, reference_layers, source, reading, live=True)
    return net


def _alternating_layers(leaves, source):
    """The ``Linear`` modules of ``Linear, ReLU, ..., Linear``, else the first module out of place named."""
    torch = _import_torch()
    nn = torch.nn
    for i, (label, module) in enumerate(leaves):
        if i % 2 == 0 and not isinstance(module, nn.Linear):
            raise NetworkFormatError(f"{source}: module {label} is {type(module).__name__}; expected Linear")
        if i % 2 == 1 and not isinstance(module, nn.ReLU):
            raise NetworkFormatError(
                f"{source}: module {label} is {type(module).__name__}; expected ReLU between Linear layers"
            )
    if leaves and len(leaves) % 2 == 0:
        label, module = leaves[-1]
        raise NetworkFormatError(
            f"{source}: module {label} is {type(module).__name__}; the model must end with a Linear layer (the affine output)"
        )
    return leaves[::2]


# -- state dicts ------------------------------------------------------------------------------
def _network_from_state_dict(state, source, limits):
    torch = _import_torch()
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
        layers.append((prefix, group["weight"], group["bias"]))
    try:
        net, reference_layers = _convert_layers(layers, source, limits)
    except ShapeError as exc:
        raise ShapeError(f"{exc}; a state dict is read in its own order, which must be the forward order") from None
    _check_against(net, None, reference_layers, source, "its layers in order", live=False)
    return net


# -- tensors ----------------------------------------------------------------------------------
def _tensor_kind(tensor, what, source, limits):
    """``"float"`` or ``"int"`` for a tensor whose values can be read exactly; every other tensor refused by name."""
    torch = _import_torch()
    if not isinstance(tensor, torch.Tensor):
        raise NetworkFormatError(f"{source}: {what} is a {type(tensor).__name__}, not a tensor")
    if type(tensor) not in (torch.Tensor, torch.nn.Parameter):
        raise NetworkFormatError(f"{source}: {what} is a {type(tensor).__name__} (a tensor subclass); give plain tensors")
    if tensor.is_nested:
        raise NetworkFormatError(f"{source}: {what} is a nested tensor; give a dense tensor")
    if tensor.layout != torch.strided:
        raise NetworkFormatError(f"{source}: {what} is a sparse tensor ({tensor.layout}); convert it with .to_dense()")
    if tensor.is_meta:
        raise NetworkFormatError(
            f"{source}: {what} is on the meta device and has no values; load the model's real weights first"
        )
    if tensor.is_quantized:
        raise NetworkFormatError(f"{source}: {what} is quantized ({tensor.dtype}); give the float model")
    if tensor.is_complex():
        raise NetworkFormatError(f"{source}: {what} is complex ({tensor.dtype}); a ReLU network has real parameters")
    if tensor.dtype == torch.bool:
        raise NetworkFormatError(f"{source}: {what} is bool; expected a float or integer tensor")
    if tensor.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.float64):
        kind = "float"
    elif not tensor.is_floating_point() and tensor.dtype in _integer_dtypes(torch):
        kind = "int"
    else:
        raise NetworkFormatError(
            f"{source}: {what} has dtype {tensor.dtype}; expected float16, bfloat16, float32, float64 or an integer dtype"
        )
    check_array_size(tuple(tensor.shape), tensor.element_size(), what, source, limits)
    return kind


def _integer_dtypes(torch):
    names = ("uint8", "int8", "int16", "int32", "int64", "uint16", "uint32", "uint64")
    return {getattr(torch, n) for n in names if hasattr(torch, n)}


def _convert_layers(layers, source, limits):
    """The exact network of layers ``(label, (name, weight), (name, bias))``, and float64 copies for the reference pass."""
    torch = _import_torch()
    kinds = [[_tensor_kind(tensor, name, source, limits) for name, tensor in pair] for _, *pair in layers]
    check_layer_shapes(
        [(tuple(weight.shape), tuple(bias.shape)) for _, (_, weight), (_, bias) in layers],
        source,
        limits,
        names=[label for label, _, _ in layers],
    )
    Ws, bs, reference = [], [], []
    for (_, (_, weight), (_, bias)), (weight_kind, bias_kind) in zip(layers, kinds):
        pair = []
        for tensor, kind in ((weight, weight_kind), (bias, bias_kind)):
            double = tensor.detach().to(device="cpu", dtype=torch.float64)
            # float64 holds every float16/bfloat16/float32 value; integers are read as Python ints
            pair.append((double.numpy() if kind == "float" else tensor.detach().cpu().tolist(), double))
        Ws.append(pair[0][0])
        bs.append(pair[1][0])
        reference.append((pair[0][1], pair[1][1]))
    try:
        net = ReLUNetwork(Ws, bs)
    except InvalidNumberError as exc:
        raise InvalidNumberError(f"{source}: {exc}") from None
    return net, reference


# -- the check --------------------------------------------------------------------------------
def _check_points(input_dim):
    rng = np.random.default_rng(CHECK_SEED)
    scales = 10.0 ** rng.uniform(-2, 3, size=(CHECK_POINTS, 1))
    return rng.standard_normal((CHECK_POINTS, input_dim)) * scales


def _check_against(net, model, layers, source, reading, live):
    """Compare ``net`` (exactly) with the model's float64 forward pass, or with a reference pass of ``layers``.

    The float64 pass of a layer ``W x + b`` with ``n`` inputs is within
    ``(n + 1) u (|W| |x| + |b|)`` of the exact value (``u = 2**-53``,
    Higham's bound for any summation order), ReLU is exact and
    1-Lipschitz, and an error carried in grows by at most ``|W|``: over all
    layers the float64 output is within ``sum_l (n_l + 2) u`` times the
    magnitude pass ``|W_L| (... (|W_1| |x| + |b_1|) ...) + |b_L|``. Twice
    that, plus a term for underflow, is the tolerance; a wrong layer order
    or a wrong entry moves the output by a fraction of the magnitude, not by
    a multiple of ``u``.
    """
    torch = _import_torch()
    points = _check_points(net.architecture.input_dim)
    batch = torch.from_numpy(points)
    try:
        with torch.no_grad():
            if live:
                out = model(batch)
            else:
                out = batch
                for l, (W, b) in enumerate(layers):
                    out = torch.nn.functional.linear(out, W, b)
                    if l < len(layers) - 1:
                        out = torch.relu(out)
    except Exception as exc:  # the model's own forward: anything can fail
        raise ModelMismatchError(
            f"{source}: the model's forward pass fails on a float64 batch of shape {tuple(batch.shape)} "
            f"({type(exc).__name__}: {_first_line(exc)}); give an nn.Sequential of Linear and ReLU modules, "
            "or a state_dict whose layers are in forward order"
        ) from None
    expected_shape = (CHECK_POINTS, net.architecture.output_dim)
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != expected_shape:
        got = f"shape {tuple(out.shape)}" if isinstance(out, torch.Tensor) else f"a {type(out).__name__}"
        raise ModelMismatchError(
            f"{source}: the model's forward pass returns {got} for a batch of {CHECK_POINTS} points, where the "
            f"network read as {reading} gives {expected_shape}; give an nn.Sequential of Linear and ReLU modules, "
            "or a state_dict whose layers are in forward order"
        )
    values = out.detach().to(device="cpu", dtype=torch.float64).numpy()
    magnitude = np.abs(points)
    for W, b in layers:
        magnitude = magnitude @ np.abs(W.numpy()).T + np.abs(b.numpy())
    growth = sum(W.shape[1] + 2 for W, _ in layers) * _UNIT_ROUNDOFF
    tolerance = 2 * growth * magnitude + 2.0**-1000
    for i, x in enumerate(points):
        exact = net(x)
        for j, y in enumerate(values[i]):
            if not np.isfinite(y) or not np.isfinite(tolerance[i, j]):
                raise ModelMismatchError(
                    f"{source}: the float64 forward pass overflows at test point {i} (output {j} is {y}); "
                    "the conversion cannot be checked on a model of this scale"
                )
            difference = abs(Fraction(float(y)) - exact[j])
            if difference > Fraction(float(tolerance[i, j])):
                raise ModelMismatchError(_mismatch_message(source, reading, live, i, x, j, y, exact[j], difference, tolerance[i, j]))


def _mismatch_message(source, reading, live, i, x, j, y, exact, difference, tolerance):
    shown = ", ".join(f"{v:.6g}" for v in x[:4]) + (", ..." if len(x) > 4 else "")
    where = (
        f"{source}: at test point {i} (x = [{shown}]), output {j} is {y!r} in "
        + ("the model's float64 forward pass" if live else "a float64 reference pass of the state dict")
        + f" but {float(exact)!r} in the converted network, a difference of {float(difference):.3g}, "
        f"beyond float64 rounding ({tolerance:.3g}). "
    )
    if live:
        return where + (
            f"The network was read as {reading}, and the model's forward pass computes something else "
            "(another order, a skip connection, another activation); give an nn.Sequential of Linear and ReLU "
            "modules, or a state_dict whose layers are in forward order"
        )
    return where + "The conversion of this state dict is wrong: please report this as a bug in polyrelu"
