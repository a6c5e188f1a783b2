"""PyTorch tensors read exactly: checked by dtype, layout and declared size first, converted to fractions on demand.

A :class:`Param` is a tensor that a layer of a model holds (a weight, a bias,
running statistics). It is checked when it is found, before anything of its
size is allocated: plain dense tensors of a float or integer dtype only, each
within :class:`~polyrelu.io.limits.Limits`. Its exact values (fractions, in
row-major order) and its float64 copy are made only when they are needed,
after the sizes of the whole network have been checked.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from typing import Any

import numpy as np

from ...errors import InvalidNumberError, NetworkFormatError
from ..declared import check_array_size
from ..limits import Limits

__all__ = ["import_torch", "first_line", "tensor_kind", "Param"]


def import_torch() -> Any:
    """The ``torch`` module, or a clear error: torch is optional and heavy, so it is imported only here."""
    try:
        import torch
    except ImportError:
        raise NetworkFormatError("reading PyTorch models needs torch: pip install 'polyrelu[torch]'") from None
    return torch


def first_line(exc: BaseException) -> str:
    """The first line of an exception's message (torch's messages run to many lines), or its type's name."""
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def tensor_kind(tensor: Any, what: str, source: str, limits: Limits) -> str:
    """``"float"`` or ``"int"`` for a tensor whose values can be read exactly; every other tensor refused by name.

    Raises
    ------
    NetworkFormatError
        Not a plain dense tensor (a subclass, nested, sparse, on the meta
        device, quantized), or a complex, bool or other dtype (float8, ...).
    LimitExceededError
        Its declared shape is over ``limits``.
    """
    torch = import_torch()
    if not isinstance(tensor, torch.Tensor):
        raise NetworkFormatError(f"{source}: {what} is a {type(tensor).__name__}, not a tensor")
    if type(tensor) not in (torch.Tensor, torch.nn.Parameter):
        raise NetworkFormatError(f"{source}: {what} is a {type(tensor).__name__} (a tensor subclass); give plain tensors")
    if tensor.is_nested:
        raise NetworkFormatError(f"{source}: {what} is a nested tensor; give a dense tensor")
    if tensor.layout != torch.strided:
        raise NetworkFormatError(f"{source}: {what} is a sparse tensor ({tensor.layout}); convert it with .to_dense()")
    if tensor.is_meta:
        raise NetworkFormatError(f"{source}: {what} is on the meta device and has no values; load the model's real weights first")
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


class Param:
    """A tensor of a model, checked now and converted exactly when its values are needed.

    Parameters
    ----------
    tensor : torch.Tensor
    what : str
        Its name in messages (``"module fc1 weight"``, ``"entry '0.bias'"``).
    source : str
        The model or file, for messages.
    limits : Limits

    Attributes
    ----------
    shape : tuple of int
    size : int
        The number of entries.

    Raises
    ------
    NetworkFormatError, LimitExceededError
        As :func:`tensor_kind`.
    """

    def __init__(self, tensor: Any, what: str, source: str, limits: Limits) -> None:
        self.kind = tensor_kind(tensor, what, source, limits)
        self.tensor = tensor
        self.what = what
        self.source = source
        self.shape = tuple(int(n) for n in tensor.shape)
        self.size = int(np.prod(self.shape, dtype=object))

    @cached_property
    def double(self) -> Any:
        """A float64 copy on the CPU (exact for every float dtype; integers beyond 2**53 rounded)."""
        torch = import_torch()
        return self.tensor.detach().to(device="cpu", dtype=torch.float64)

    @cached_property
    def values(self) -> list[Fraction]:
        """The entries in row-major order, exactly: float64 holds every float16, bfloat16 and float32 value.

        Raises
        ------
        InvalidNumberError
            A NaN or infinite entry, named by its index.
        """
        if self.kind == "int":
            return [Fraction(v) for v in self.tensor.detach().cpu().reshape(-1).tolist()]
        flat = self.double.reshape(-1).numpy()
        bad = np.flatnonzero(~np.isfinite(flat))
        if bad.size:
            index = ", ".join(str(int(i)) for i in np.unravel_index(int(bad[0]), self.shape))
            raise InvalidNumberError(f"{self.source}: {self.what}[{index}]: {float(flat[bad[0]])!r} is not a finite number")
        return [Fraction(v) for v in flat.tolist()]
