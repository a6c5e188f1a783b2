"""A chain of steps lowered to an exact ReLU network: the affine steps between two ReLUs composed into one layer.

The steps of a model (:mod:`~polyrelu.io.pytorch.ops`) act on one sample
of a given shape. Between two ReLUs (and before the first, and after the
last) they compose to one affine map of the flattened sample (row-major, as
``x.flatten(1)`` orders it): that map is one layer of the network, computed
exactly over the rationals, sparsely, then written out dense. Changes of
shape compose to nothing; a ReLU applied twice is a ReLU.

Before anything is converted or composed, every size is checked against
:class:`~polyrelu.io.limits.Limits`: the parameters the steps hold, every
width, and for each affine step the dense map from the start of its layer
to its output (what composing up to it allocates at most). A huge
convolution is refused there, with its shape, not after it has exhausted
the memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import NamedTuple

from ...errors import (
    InvalidArgumentError,
    LimitExceededError,
    NetworkFormatError,
    ShapeError,
)
from ...network import ReLUNetwork
from ..declared import check_layer_shapes
from ..limits import Limits
from .ops import AffineOp, BatchNormOp, IdentityOp, LinearOp, Op, ReLUOp, Shape

__all__ = ["Lowered", "lower"]

_ZERO = Fraction(0)


class Lowered(NamedTuple):
    """The network of a chain of steps, and the shape of a sample before each step and after the last."""

    net: ReLUNetwork
    shapes: tuple[Shape, ...]


def lower(ops: Sequence[Op], input_shape: Shape | None, source: str, limits: Limits) -> Lowered:
    """The exact ReLU network of ``ops`` applied to samples of shape ``input_shape``.

    Parameters
    ----------
    ops : sequence of Op
        In forward order.
    input_shape : tuple of int or None
        One sample, without the batch dimension; ``None``: read from the
        first layer that tells it (a Linear layer of ``n`` inputs or a
        BatchNorm1d of ``n`` channels: ``(n,)``).
    source : str
        The model, for messages.
    limits : Limits

    Returns
    -------
    Lowered

    Raises
    ------
    ShapeError
        A step that does not fit the shape it gets.
    NetworkFormatError
        No affine step; a ReLU before the first affine step or after the last.
    LimitExceededError
        A width, the parameters, or a composed dense map over ``limits``.
    InvalidArgumentError
        No ``input_shape``, and the first layer does not tell it.
    """
    layers = _layers(ops, source)
    if input_shape is None:
        input_shape = _inferred_input_shape(ops)
    if input_shape is None:
        first = next(op.label for op in ops if op.kind != "relu")
        raise InvalidArgumentError(
            f"{source}: the shape of a sample cannot be read from the model ({first} comes first); pass "
            "input_shape=(C, H, W), the shape of one sample without the batch dimension, to network_from_torch "
            "(or read_torch)"
        )
    shapes = [tuple(input_shape)]
    for op in ops:
        try:
            shapes.append(op.out_shape(shapes[-1]))
        except (ShapeError, NetworkFormatError) as exc:
            raise type(exc)(f"{source}: {exc}") from None
    _check_sizes(ops, layers, shapes, source, limits)
    Ws, bs = [], []
    for indices in layers:
        W, b = _compose(ops, indices, shapes)
        Ws.append(W)
        bs.append(b)
    return Lowered(ReLUNetwork(Ws, bs), tuple(shapes))


def _inferred_input_shape(ops):
    """The shape of a sample, when the first step that depends on it tells it; else ``None``.

    ``(n,)`` for a Linear layer of ``n`` inputs or a BatchNorm1d of ``n``
    channels; a convolution, a flatten, a pooling tell no shape.
    """
    for op in ops:
        if isinstance(op, (ReLUOp, IdentityOp)):
            continue
        if isinstance(op, LinearOp):
            return (op.in_features,)
        if isinstance(op, BatchNormOp) and 1 in op.sample_dims:
            return (op.channels,)
        return None
    return None


def _layers(ops, source):
    """The indices of the steps of each layer: the runs between ReLUs that hold an affine step."""
    layers, current = [], []
    for k, op in enumerate(ops):
        if op.kind != "relu":
            current.append(k)
        elif any(ops[i].kind == "affine" for i in current):
            layers.append(current)
            current = []
        elif not layers:
            raise NetworkFormatError(
                f"{source}: {op.label} applies ReLU to the input, before any affine layer; a ReLU network starts "
                "with an affine layer (Linear, Conv2d, ...)"
            )
        # else: a ReLU after a ReLU (with only changes of shape between): ReLU is idempotent
    if any(ops[i].kind == "affine" for i in current):
        layers.append(current)
    elif layers:
        last = next(op for op in reversed(ops) if op.kind == "relu")
        raise NetworkFormatError(
            f"{source}: {last.label} is a ReLU after the last affine layer; the model must end with an affine layer "
            "(the output of a ReLU network is affine): remove the final ReLU"
        )
    else:
        raise NetworkFormatError(f"{source}: no affine layer (Linear, Conv2d, BatchNorm, AvgPool2d) in the model's forward pass")
    return layers


def _hint(field):
    return f"if this is intended, pass limits=Limits({field}=...)"


def _check_sizes(ops, layers, shapes, source, limits):
    """Refuse what would allocate beyond ``limits``, from the shapes alone (nothing is converted yet)."""
    held = sum(param.size for op in ops for param in op.params())
    if held > limits.max_parameters:
        raise LimitExceededError(
            f"{source}: the model's layers hold {held:,} weights and biases, over the limit of "
            f"{limits.max_parameters:,}; {_hint('max_parameters')}"
        )
    width = math.prod(shapes[0])
    if width > limits.max_width:
        raise LimitExceededError(
            f"{source}: an input of shape {shapes[0]}, width {width:,}, over the limit of {limits.max_width:,}; "
            f"{_hint('max_width')}"
        )
    for indices in layers:
        columns = math.prod(shapes[indices[0]])
        for k in indices:
            if ops[k].kind != "affine":
                continue
            rows = math.prod(shapes[k + 1])
            if rows > limits.max_width:
                raise LimitExceededError(
                    f"{source}: {ops[k].label} gives samples of shape {shapes[k + 1]}, a layer of width {rows:,}, "
                    f"over the limit of {limits.max_width:,}; {_hint('max_width')}"
                )
            if rows * columns + rows > limits.max_parameters:
                before = [i for i in indices if i < k and ops[i].kind == "affine"]
                composed = (
                    f", composed with {' and '.join(ops[i].label for i in before)} before it (samples of shape "
                    f"{shapes[indices[0]]})"
                    if before
                    else ""
                )
                raise LimitExceededError(
                    f"{source}: {ops[k].label} on samples of shape {shapes[k]}{composed}, is a dense map of {rows:,} x "
                    f"{columns:,} weights and {rows:,} biases, over the limit of {limits.max_parameters:,}; "
                    f"{_hint('max_parameters')}"
                )
    check_layer_shapes(
        [
            ((math.prod(shapes[layer[-1] + 1]), math.prod(shapes[layer[0]])), (math.prod(shapes[layer[-1] + 1]),))
            for layer in layers
        ],
        source,
        limits,
        names=[" + ".join(ops[k].label for k in layer if ops[k].kind == "affine") for layer in layers],
    )


def _compose(ops: Sequence[Op], indices: Sequence[int], shapes: Sequence[Shape]) -> tuple[list[list[Fraction]], list[Fraction]]:
    """The dense matrix and bias of the affine steps ``indices`` composed, exactly."""
    columns = math.prod(shapes[indices[0]])
    rows: list[dict[int, Fraction]] | None = None  # None: the identity, nothing composed yet
    bias: list[Fraction] = [_ZERO] * columns
    for k in indices:
        op = ops[k]
        if not isinstance(op, AffineOp):
            continue
        new_rows: list[dict[int, Fraction]] = []
        new_bias: list[Fraction] = []
        for terms, constant in op.rows(shapes[k]):
            if rows is None:
                new_rows.append(dict(terms))
                new_bias.append(constant)
                continue
            row: dict[int, Fraction] = {}
            value = constant
            for i, c in terms:
                for j, v in rows[i].items():
                    row[j] = row.get(j, _ZERO) + c * v
                value += c * bias[i]
            new_rows.append(row)
            new_bias.append(value)
        rows, bias = new_rows, new_bias
    assert rows is not None  # every layer holds an affine step
    return [[row.get(j, _ZERO) for j in range(columns)] for row in rows], bias
