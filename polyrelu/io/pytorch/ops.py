"""The steps of a PyTorch model's forward pass that polyrelu reads, each exact, per sample.

A model is read as a chain of steps (:class:`Op`), each acting on one
sample's values (the batch dimension is never part of a shape here):

- affine maps (:class:`AffineOp`): :class:`LinearOp`, :class:`Conv2dOp`,
  :class:`BatchNormOp`, :class:`AvgPool2dOp`, :class:`AdaptiveAvgPool2dOp`;
  each lists, for every output entry in row-major order, its exact
  coefficients on the input entries (sparse) and its constant;
- :class:`ReLUOp`;
- changes of shape that leave the values in row-major order as they are
  (:class:`IdentityOp`, :class:`FlattenOp`, :class:`ReshapeOp`).

Each step also knows how to run its *magnitude pass* in float64 (the same
step with the absolute values of its parameters, applied to absolute
values) and how many units of float64 rounding it may add per unit of
magnitude: together they bound how far the model's own float64 forward pass
may be from the exact network (see :mod:`~polyrelu.io.pytorch.check`).
Exact coefficients come from :attr:`Param.values`, so nothing is converted
before the sizes of the whole network are checked.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any, NamedTuple

from ...errors import InvalidNumberError, NetworkFormatError, ShapeError
from .tensors import Param, import_torch

__all__ = [
    "Shape",
    "Row",
    "Op",
    "AffineOp",
    "ReLUOp",
    "IdentityOp",
    "FlattenOp",
    "ReshapeOp",
    "SizeOf",
    "LinearOp",
    "Conv2dOp",
    "BatchNormOp",
    "AvgPool2dOp",
    "AdaptiveAvgPool2dOp",
]

Shape = tuple[int, ...]
# the coefficients (input index, value) of one output entry, and its constant
Row = tuple[Sequence[tuple[int, Fraction]], Fraction]

_ZERO = Fraction(0)
_ONE = Fraction(1)


def _pair(value: Any, name: str, label: str, minimum: int = 1) -> tuple[int, int]:
    """An int or a pair of ints (a kernel size, a stride, ...) as a pair, each at least ``minimum``.

    Raises
    ------
    NetworkFormatError
        Anything else (named, with ``label``).
    """
    values = tuple(value) if isinstance(value, (tuple, list)) else (value, value)
    if len(values) != 2 or not all(isinstance(v, int) and not isinstance(v, bool) and v >= minimum for v in values):
        raise NetworkFormatError(f"{label}: {name} is {value!r}; expected an int or a pair of ints, each at least {minimum}")
    return values[0], values[1]


class Op:
    """One step of the forward pass: by default a step that changes nothing (the values, their shape).

    Parameters
    ----------
    label : str
        The step in messages (``"module body.0 (Linear)"``, ``"torch.relu (node relu_1)"``).
    """

    kind = "shape"  # "affine", "relu" or "shape"

    def __init__(self, label: str) -> None:
        self.label = label

    def out_shape(self, shape: Shape) -> Shape:
        """The shape of one sample after this step, or a ShapeError naming the step."""
        return shape

    def magnitude(self, batch: Any) -> Any:
        """This step with ``|parameters|`` on a float64 batch of ``|values|`` (an upper bound of every term it sums)."""
        return batch

    def roundings(self, shape: Shape) -> int:
        """How many units of float64 rounding (``2**-53``) the step may add per unit of magnitude."""
        return 0

    def params(self) -> list[Param]:
        """The tensors it holds."""
        return []


class AffineOp(Op):
    """A step that is an affine map of one sample's values."""

    kind = "affine"

    def rows(self, shape: Shape) -> Iterator[Row]:
        """For each output entry in row-major order: its exact coefficients on the input entries, and its constant."""
        raise NotImplementedError


class ReLUOp(Op):
    """``max(x, 0)``, entrywise."""

    kind = "relu"

    def forward(self, batch: Any) -> Any:
        """The float64 reference pass of a state dict, which has no forward pass of its own."""
        return import_torch().relu(batch)


class IdentityOp(Op):
    """``Identity``, ``Dropout`` in eval mode, ``contiguous()``: the values as they are."""


class FlattenOp(Op):
    """``flatten(start_dim, end_dim)``, in the dimensions of the batch (dimension 0 is the batch)."""

    def __init__(self, label: str, start_dim: int, end_dim: int) -> None:
        super().__init__(label)
        for name, value in (("start_dim", start_dim), ("end_dim", end_dim)):
            if not isinstance(value, int) or isinstance(value, bool):
                raise NetworkFormatError(f"{label}: {name} is {value!r}; expected an int")
        self.start_dim, self.end_dim = start_dim, end_dim

    def out_shape(self, shape: Shape) -> Shape:
        ndim = len(shape) + 1
        start = self.start_dim + ndim if self.start_dim < 0 else self.start_dim
        end = self.end_dim + ndim if self.end_dim < 0 else self.end_dim
        if not (0 <= start < ndim and 0 <= end < ndim) or start > end:
            raise ShapeError(
                f"{self.label}: flatten({self.start_dim}, {self.end_dim}) does not fit a batch of samples of shape {shape}"
            )
        if start == end:
            return shape
        if start == 0:
            raise NetworkFormatError(
                f"{self.label} flattens the batch dimension (start_dim={self.start_dim}) into the samples' values; "
                "flatten from dimension 1 (x.flatten(1), nn.Flatten())"
            )
        return shape[: start - 1] + (math.prod(shape[start - 1 : end]),) + shape[end:]

    def magnitude(self, batch: Any) -> Any:
        return batch.reshape(batch.shape[0], *self.out_shape(tuple(batch.shape[1:])))


class _Batch:
    """The batch size, in a reshape (``x.size(0)``): known only when the model runs."""

    def __repr__(self):
        return "x.size(0)"


_BATCH = _Batch()


class SizeOf(NamedTuple):
    """``x.size(dim)`` of the tensor being reshaped (``dim`` counts the batch dimension)."""

    dim: int

    def __repr__(self) -> str:
        return f"x.size({self.dim})"


class ReshapeOp(Op):
    """``view``/``reshape`` keeping the batch dimension first: the values in row-major order, as they are.

    Parameters
    ----------
    label : str
    dims : sequence
        The requested shape: ints (one may be ``-1``) and :class:`SizeOf`
        entries (``SizeOf(0)`` is the batch size).
    """

    def __init__(self, label: str, dims: Sequence[int | SizeOf]) -> None:
        super().__init__(label)
        self.dims = tuple(dims)

    def out_shape(self, shape: Shape) -> Shape:
        batched: tuple[int | _Batch, ...] = (_BATCH, *shape)
        resolved: list[int | _Batch] = []
        for d in self.dims:
            if isinstance(d, SizeOf):
                if not -len(batched) <= d.dim < len(batched):
                    raise ShapeError(f"{self.label}: size({d.dim}) of a batch of samples of shape {shape}")
                resolved.append(batched[d.dim])
            else:
                resolved.append(d)
        count = math.prod(shape)
        shown = "(" + ", ".join(map(repr, self.dims)) + ")"
        if resolved and resolved[0] is _BATCH and not any(v is _BATCH for v in resolved[1:]):
            rest = [v for v in resolved[1:] if isinstance(v, int)]
            free = [i for i, v in enumerate(rest) if v == -1]
            known = math.prod(v for v in rest if v != -1)
            if len(free) > 1 or any(v < -1 for v in rest) or (free and (known == 0 or count % known)):
                raise ShapeError(f"{self.label}: cannot reshape a sample of shape {shape} to {shown}")
            if free:
                rest[free[0]] = count // known
            if math.prod(rest) != count:
                raise ShapeError(f"{self.label}: cannot reshape a sample of shape {shape} ({count} values) to {shown}")
            return tuple(rest)
        if resolved and resolved[0] == -1 and all(isinstance(v, int) and v >= 0 for v in resolved[1:]):
            rest = [v for v in resolved[1:] if isinstance(v, int)]
            if math.prod(rest) == count:
                return tuple(rest)
            raise NetworkFormatError(
                f"{self.label}: reshaping to {shown} mixes the samples of a batch (each sample has {count} values, "
                f"not {math.prod(rest)}); keep the batch dimension first: x.view(x.size(0), -1)"
            )
        raise NetworkFormatError(
            f"{self.label}: a reshape to {shown}, whose first dimension is not the batch; polyrelu reads reshapes "
            "that keep the batch first: x.size(0), x.shape[0] or -1 followed by the sizes of one sample"
        )

    def magnitude(self, batch: Any) -> Any:
        return batch.reshape(batch.shape[0], *self.out_shape(tuple(batch.shape[1:])))


class LinearOp(AffineOp):
    """``x W^T + b`` on the last dimension (``nn.Linear``, ``F.linear``); ``bias=None`` is a zero bias."""

    def __init__(self, label: str, weight: Param, bias: Param | None) -> None:
        super().__init__(label)
        if len(weight.shape) != 2:
            raise ShapeError(f"{label}: the weight has shape {weight.shape}; expected a matrix")
        self.out_features, self.in_features = weight.shape
        if bias is not None and bias.shape != (self.out_features,):
            raise ShapeError(f"{label}: the bias has shape {bias.shape}; expected ({self.out_features},)")
        self.weight, self.bias = weight, bias

    def out_shape(self, shape: Shape) -> Shape:
        if not shape or shape[-1] != self.in_features:
            raise ShapeError(f"{self.label} takes {self.in_features} input features, but gets a sample of shape {shape}")
        return shape[:-1] + (self.out_features,)

    def rows(self, shape: Shape) -> Iterator[Row]:
        n, W = self.in_features, self.weight.values
        b = self.bias.values if self.bias is not None else [_ZERO] * self.out_features
        rows = [[(j, W[k * n + j]) for j in range(n) if W[k * n + j]] for k in range(self.out_features)]
        for p in range(math.prod(shape[:-1])):
            for k, row in enumerate(rows):
                yield (row if p == 0 else [(p * n + j, w) for j, w in row]), b[k]

    def _bias_double(self):
        torch = import_torch()
        return self.bias.double if self.bias is not None else torch.zeros(self.out_features, dtype=torch.float64)

    def forward(self, batch: Any) -> Any:
        """The float64 reference pass of a state dict, which has no forward pass of its own."""
        return import_torch().nn.functional.linear(batch, self.weight.double, self._bias_double())

    def magnitude(self, batch: Any) -> Any:
        return import_torch().nn.functional.linear(batch, self.weight.double.abs(), self._bias_double().abs())

    def roundings(self, shape: Shape) -> int:
        return self.in_features + 2

    def params(self) -> list[Param]:
        return [self.weight] + ([self.bias] if self.bias is not None else [])


class Conv2dOp(AffineOp):
    """A 2-d convolution with zero padding (``nn.Conv2d``, ``F.conv2d``): stride, padding, dilation, groups, bias.

    ``padding`` is an int, a pair, ``"valid"`` or ``"same"`` (stride 1; an
    odd total padding puts the extra row and column after, as torch does).
    """

    def __init__(
        self, label: str, weight: Param, bias: Param | None, stride: Any, padding: Any, dilation: Any, groups: Any
    ) -> None:
        super().__init__(label)
        if len(weight.shape) != 4:
            raise ShapeError(f"{label}: the weight has shape {weight.shape}; expected (out_channels, in_channels/groups, kH, kW)")
        self.out_channels, self.group_channels, kh, kw = weight.shape
        if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1 or self.out_channels % groups:
            raise NetworkFormatError(f"{label}: groups is {groups!r}; expected a positive divisor of {self.out_channels}")
        if bias is not None and bias.shape != (self.out_channels,):
            raise ShapeError(f"{label}: the bias has shape {bias.shape}; expected ({self.out_channels},)")
        self.kernel = (kh, kw)
        self.stride = _pair(stride, "stride", label)
        self.dilation = _pair(dilation, "dilation", label)
        if padding == "valid":
            self.pads = ((0, 0), (0, 0))
        elif padding == "same":
            if self.stride != (1, 1):
                raise NetworkFormatError(f"{label}: padding='same' needs stride 1, got stride {self.stride}")
            totals = (self.dilation[0] * (kh - 1), self.dilation[1] * (kw - 1))
            self.pads = ((totals[0] // 2, totals[0] - totals[0] // 2), (totals[1] // 2, totals[1] - totals[1] // 2))
        else:
            ph, pw = _pair(padding, "padding", label, minimum=0)
            self.pads = ((ph, ph), (pw, pw))
        self.padding = padding
        self.groups = groups
        self.weight, self.bias = weight, bias

    def out_shape(self, shape: Shape) -> Shape:
        channels = self.group_channels * self.groups
        if len(shape) != 3 or shape[0] != channels:
            raise ShapeError(f"{self.label} takes samples of shape ({channels}, H, W), but gets {shape}")
        sizes = []
        for size, k, (before, after), s, d in zip(shape[1:], self.kernel, self.pads, self.stride, self.dilation):
            out = (size + before + after - d * (k - 1) - 1) // s + 1
            if out < 1:
                raise ShapeError(f"{self.label}: a sample of shape {shape} is smaller than the kernel {self.kernel}")
            sizes.append(out)
        return (self.out_channels, sizes[0], sizes[1])

    def rows(self, shape: Shape) -> Iterator[Row]:
        _, H, W = shape
        _, Ho, Wo = self.out_shape(shape)
        (kh, kw), (sh, sw), (dh, dw) = self.kernel, self.stride, self.dilation
        top, left = self.pads[0][0], self.pads[1][0]
        values = self.weight.values
        b = self.bias.values if self.bias is not None else [_ZERO] * self.out_channels
        per_group = self.out_channels // self.groups
        size = self.group_channels * kh * kw
        for co in range(self.out_channels):
            first = (co // per_group) * self.group_channels
            kernel = [
                (first + ci, ky * dh - top, kx * dw - left, w)
                for ci in range(self.group_channels)
                for ky in range(kh)
                for kx in range(kw)
                if (w := values[co * size + (ci * kh + ky) * kw + kx])
            ]
            for oy in range(Ho):
                for ox in range(Wo):
                    terms = []
                    for c, dy, dx, w in kernel:
                        y, x = oy * sh + dy, ox * sw + dx
                        if 0 <= y < H and 0 <= x < W:
                            terms.append(((c * H + y) * W + x, w))
                    yield terms, b[co]

    def magnitude(self, batch: Any) -> Any:
        torch = import_torch()
        bias = self.bias.double.abs() if self.bias is not None else None
        return torch.nn.functional.conv2d(
            batch, self.weight.double.abs(), bias, self.stride, self.padding, self.dilation, self.groups
        )

    def roundings(self, shape: Shape) -> int:
        return self.group_channels * self.kernel[0] * self.kernel[1] + 2

    def params(self) -> list[Param]:
        return [self.weight] + ([self.bias] if self.bias is not None else [])


class BatchNormOp(AffineOp):
    """Batch normalization with running statistics (eval mode): ``(x - mean) / sqrt(var + eps) * weight + bias``.

    Exact for the float64 value of ``1 / sqrt(running_var + eps)`` that torch
    computes (``1 / torch.sqrt(var + eps)`` in float64, as the CPU kernel
    does): that constant is rounded, every other step is exact.

    Parameters
    ----------
    label : str
    mean, var : Param
        The running statistics, one per channel.
    eps : float
    weight, bias : Param or None
        The affine parameters (``None``: 1 and 0).
    sample_dims : tuple of int
        The numbers of dimensions a sample may have (``(1, 2)`` for
        ``BatchNorm1d``, ``(3,)`` for ``BatchNorm2d``); channels come first.
    """

    def __init__(
        self,
        label: str,
        mean: Param,
        var: Param,
        eps: float,
        weight: Param | None,
        bias: Param | None,
        sample_dims: tuple[int, ...],
    ) -> None:
        super().__init__(label)
        self.channels = mean.shape[0] if len(mean.shape) == 1 else -1
        for what, param in (("running_mean", mean), ("running_var", var), ("weight", weight), ("bias", bias)):
            if param is not None and param.shape != (self.channels,):
                raise ShapeError(f"{label}: {what} has shape {param.shape}; expected one entry per channel")
        if not isinstance(eps, (int, float)) or isinstance(eps, bool) or not math.isfinite(eps):
            raise NetworkFormatError(f"{label}: eps is {eps!r}; expected a finite float")
        self.mean, self.var, self.eps, self.weight, self.bias = mean, var, float(eps), weight, bias
        self.sample_dims = sample_dims

    def out_shape(self, shape: Shape) -> Shape:
        if len(shape) not in self.sample_dims or shape[0] != self.channels:
            dims = " or ".join(f"{d}-d" for d in self.sample_dims)
            raise ShapeError(f"{self.label} takes {dims} samples of {self.channels} channels (first), but gets {shape}")
        return shape

    @cached_property
    def _inverse_std(self):
        """``1 / sqrt(var + eps)`` in float64, as torch computes it."""
        torch = import_torch()
        self.var.values  # noqa: B018  (refuses NaN and infinite entries by name)
        shifted = self.var.double + self.eps
        inverse = 1 / torch.sqrt(shifted)
        bad = torch.nonzero(~(shifted > 0) | ~torch.isfinite(inverse)).flatten()
        if bad.numel():
            c = int(bad[0])
            raise InvalidNumberError(
                f"{self.label}: running_var + eps is {float(shifted[c])!r} at channel {c}; it must be positive"
            )
        return inverse

    @cached_property
    def _scale_shift(self):
        inverse = [Fraction(v) for v in self._inverse_std.tolist()]
        weight = self.weight.values if self.weight is not None else [_ONE] * self.channels
        bias = self.bias.values if self.bias is not None else [_ZERO] * self.channels
        scale = [w * s for w, s in zip(weight, inverse)]
        shift = [b - m * s for b, m, s in zip(bias, self.mean.values, scale)]
        return scale, shift

    def rows(self, shape: Shape) -> Iterator[Row]:
        scale, shift = self._scale_shift
        per_channel = math.prod(shape[1:])
        for c in range(self.channels):
            for p in range(per_channel):
                yield ([(c * per_channel + p, scale[c])] if scale[c] else []), shift[c]

    def magnitude(self, batch: Any) -> Any:
        torch = import_torch()
        ones, zeros = torch.ones(self.channels, dtype=torch.float64), torch.zeros(self.channels, dtype=torch.float64)
        scale = ((self.weight.double if self.weight is not None else ones) * self._inverse_std).abs()
        shift = scale * self.mean.double.abs() + (self.bias.double if self.bias is not None else zeros).abs()
        view = (self.channels,) + (1,) * (batch.dim() - 2)
        return batch * scale.reshape(view) + shift.reshape(view)

    def roundings(self, shape: Shape) -> int:
        # torch's kernel: x * alpha + beta with alpha = weight * invstd and beta = bias - mean * alpha
        return 8

    def params(self) -> list[Param]:
        return [p for p in (self.mean, self.var, self.weight, self.bias) if p is not None]


def _pooled_size(size, kernel, pad, stride, ceil_mode):
    """torch's output size of a pooling (``pooling_output_shape``, dilation 1)."""
    out = (size + 2 * pad - kernel + (stride - 1 if ceil_mode else 0)) // stride + 1
    if ceil_mode and (out - 1) * stride >= size + pad:  # the last window must start inside the input or its left pad
        out -= 1
    return out


class AvgPool2dOp(AffineOp):
    """2-d average pooling (``nn.AvgPool2d``, ``F.avg_pool2d``), windows and divisors exactly as torch's kernel."""

    def __init__(
        self,
        label: str,
        kernel_size: Any,
        stride: Any,
        padding: Any,
        ceil_mode: Any,
        count_include_pad: Any,
        divisor_override: Any,
    ) -> None:
        super().__init__(label)
        self.kernel = _pair(kernel_size, "kernel_size", label)
        self.stride = self.kernel if stride is None or stride == [] or stride == () else _pair(stride, "stride", label)
        self.padding = _pair(padding, "padding", label, minimum=0)
        if any(p > k // 2 for p, k in zip(self.padding, self.kernel)):
            raise NetworkFormatError(f"{label}: padding {self.padding} is more than half the kernel {self.kernel}")
        for name, flag in (("ceil_mode", ceil_mode), ("count_include_pad", count_include_pad)):
            if not isinstance(flag, bool):
                raise NetworkFormatError(f"{label}: {name} is {flag!r}; expected a bool")
        if divisor_override is not None and (
            not isinstance(divisor_override, int) or isinstance(divisor_override, bool) or divisor_override == 0
        ):
            raise NetworkFormatError(f"{label}: divisor_override is {divisor_override!r}; expected None or a nonzero int")
        self.ceil_mode, self.count_include_pad, self.divisor_override = ceil_mode, count_include_pad, divisor_override

    def out_shape(self, shape: Shape) -> Shape:
        if len(shape) != 3:
            raise ShapeError(f"{self.label} takes samples of shape (C, H, W), but gets {shape}")
        sizes = [
            _pooled_size(n, k, p, s, self.ceil_mode) for n, k, p, s in zip(shape[1:], self.kernel, self.padding, self.stride)
        ]
        if min(sizes) < 1:
            raise ShapeError(f"{self.label}: a sample of shape {shape} is smaller than the window {self.kernel}")
        return (shape[0], sizes[0], sizes[1])

    def rows(self, shape: Shape) -> Iterator[Row]:
        channels, H, W = shape
        _, Ho, Wo = self.out_shape(shape)
        (kh, kw), (sh, sw), (ph, pw) = self.kernel, self.stride, self.padding
        for c in range(channels):
            for oy in range(Ho):
                for ox in range(Wo):
                    y0, x0 = oy * sh - ph, ox * sw - pw
                    y1, x1 = min(y0 + kh, H + ph), min(x0 + kw, W + pw)
                    padded = (y1 - y0) * (x1 - x0)
                    y0, x0, y1, x1 = max(y0, 0), max(x0, 0), min(y1, H), min(x1, W)
                    if y0 >= y1 or x0 >= x1:
                        yield [], _ZERO
                        continue
                    if self.divisor_override is not None:
                        divisor = self.divisor_override
                    else:
                        divisor = padded if self.count_include_pad else (y1 - y0) * (x1 - x0)
                    weight = Fraction(1, divisor)
                    yield [((c * H + y) * W + x, weight) for y in range(y0, y1) for x in range(x0, x1)], _ZERO

    def magnitude(self, batch: Any) -> Any:
        torch = import_torch()
        divisor = abs(self.divisor_override) if self.divisor_override is not None else None
        return torch.nn.functional.avg_pool2d(
            batch, self.kernel, self.stride, self.padding, self.ceil_mode, self.count_include_pad, divisor
        )

    def roundings(self, shape: Shape) -> int:
        return self.kernel[0] * self.kernel[1] + 2


def _adaptive_windows(size, out):
    """torch's windows of adaptive pooling: ``[floor(i n / m), ceil((i + 1) n / m))``."""
    return [((i * size) // out, -((-(i + 1) * size) // out)) for i in range(out)]


class AdaptiveAvgPool2dOp(AffineOp):
    """``nn.AdaptiveAvgPool2d``/``F.adaptive_avg_pool2d``: the average over torch's adaptive windows."""

    def __init__(self, label: str, output_size: Any) -> None:
        super().__init__(label)
        sizes = tuple(output_size) if isinstance(output_size, (tuple, list)) else (output_size, output_size)
        if len(sizes) != 2 or not all(s is None or (isinstance(s, int) and not isinstance(s, bool) and s >= 1) for s in sizes):
            raise NetworkFormatError(f"{label}: output_size is {output_size!r}; expected an int or a pair of ints or None")
        self.output_size = sizes

    def out_shape(self, shape: Shape) -> Shape:
        if len(shape) != 3:
            raise ShapeError(f"{self.label} takes samples of shape (C, H, W), but gets {shape}")
        return (shape[0],) + tuple(n if s is None else s for n, s in zip(shape[1:], self.output_size))

    def rows(self, shape: Shape) -> Iterator[Row]:
        channels, H, W = shape
        _, Ho, Wo = self.out_shape(shape)
        rows, cols = _adaptive_windows(H, Ho), _adaptive_windows(W, Wo)
        for c in range(channels):
            for y0, y1 in rows:
                for x0, x1 in cols:
                    weight = Fraction(1, (y1 - y0) * (x1 - x0))
                    yield [((c * H + y) * W + x, weight) for y in range(y0, y1) for x in range(x0, x1)], _ZERO

    def magnitude(self, batch: Any) -> Any:
        return import_torch().nn.functional.adaptive_avg_pool2d(batch, self.out_shape(tuple(batch.shape[1:]))[1:])

    def roundings(self, shape: Shape) -> int:
        _, Ho, Wo = self.out_shape(shape)
        tallest = max(y1 - y0 for y0, y1 in _adaptive_windows(shape[1], Ho))
        widest = max(x1 - x0 for x0, x1 in _adaptive_windows(shape[2], Wo))
        return tallest * widest + 2
