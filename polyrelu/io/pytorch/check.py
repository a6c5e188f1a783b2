"""Every network converted from PyTorch is compared with a float64 forward pass, within float64 rounding.

The converted network is evaluated exactly at :data:`CHECK_POINTS` seeded
random points and compared with a float64 forward pass: the model's own
(a float64 copy in eval mode) for a live model, a reference pass of its own
layers for a state dict, which has no forward pass.

The tolerance is a bound on float64 rounding. A step that sums ``n`` terms
(a Linear layer of ``n`` inputs, a convolution whose kernel covers ``n``
input values, an average over ``n`` values) computes each output within
``(n + 1) u`` times the sum of the terms' absolute values (``u = 2**-53``,
Higham's bound for any summation order); ReLU and changes of shape are exact
and 1-Lipschitz, and an error carried in grows no faster than the
magnitudes. Over the chain, the float64 output is within
``sum_steps (n + 2) u`` times the *magnitude pass* (every step with the
absolute values of its parameters, on the absolute values of the input).
Twice that, plus a term for underflow, is the tolerance: a wrong layer order
or a wrong entry moves the output by a fraction of the magnitude, not by a
multiple of ``u``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ...errors import ModelMismatchError
from ...network import ReLUNetwork
from .ops import Op, Shape
from .tensors import first_line, import_torch

__all__ = ["CHECK_POINTS", "CHECK_SEED", "check_points", "check_conversion"]

# The forward-pass check: this many points, from this seed, each a standard
# normal vector times 10**u with u uniform in [-2, 3], so that points lie in
# many regions at several scales.
CHECK_POINTS = 100
CHECK_SEED = 0

_UNIT_ROUNDOFF = 2.0**-53


def check_points(input_dim: int) -> np.ndarray:
    """The :data:`CHECK_POINTS` points of the check, one per row (flattened samples)."""
    rng = np.random.default_rng(CHECK_SEED)
    scales = 10.0 ** rng.uniform(-2, 3, size=(CHECK_POINTS, 1))
    return rng.standard_normal((CHECK_POINTS, input_dim)) * scales


def check_conversion(
    net: ReLUNetwork,
    ops: Sequence[Op],
    shapes: Sequence[Shape],
    forward: Callable[[Any], Any],
    source: str,
    reading: str,
    *,
    live: bool,
) -> None:
    """Compare ``net`` (exactly) with ``forward`` (float64) at the check points.

    Parameters
    ----------
    net : ReLUNetwork
        The network converted from ``ops``.
    ops : sequence of Op
        The steps it was converted from, for the magnitude pass.
    shapes : sequence of tuple
        The shape of a sample before each step and after the last.
    forward : callable
        A float64 batch of samples to the outputs: the model's float64 copy,
        or the reference pass of a state dict.
    source, reading : str
        The model, and how it was read, for messages.
    live : bool
        ``forward`` is the model's own forward pass (not a reference pass).

    Raises
    ------
    ModelMismatchError
        The forward pass fails, returns another shape, overflows, or differs
        from the network beyond float64 rounding at some point.
    """
    torch = import_torch()
    points = check_points(net.architecture.input_dim)
    batch = torch.from_numpy(points).reshape(CHECK_POINTS, *shapes[0])
    advice = "make its forward a chain of the layers polyrelu reads, or give a state_dict whose layers are in forward order"
    try:
        with torch.no_grad():
            out = forward(batch)
    except Exception as exc:  # the model's own forward: anything can fail
        raise ModelMismatchError(
            f"{source}: the model's forward pass fails on a float64 batch of shape {tuple(batch.shape)} "
            f"({type(exc).__name__}: {first_line(exc)}); {advice}"
        ) from None
    expected_shape = (CHECK_POINTS, *shapes[-1])
    if not isinstance(out, torch.Tensor) or tuple(out.shape) != expected_shape:
        got = f"shape {tuple(out.shape)}" if isinstance(out, torch.Tensor) else f"a {type(out).__name__}"
        raise ModelMismatchError(
            f"{source}: the model's forward pass returns {got} for a batch of {CHECK_POINTS} samples, where the "
            f"network read as {reading} gives {expected_shape}; {advice}"
        )
    values = out.detach().to(device="cpu", dtype=torch.float64).reshape(CHECK_POINTS, -1).numpy()
    with torch.no_grad():
        magnitude = batch.abs()
        for op in ops:
            magnitude = op.magnitude(magnitude)
    magnitude = magnitude.reshape(CHECK_POINTS, -1).numpy()
    growth = sum(op.roundings(shape) for op, shape in zip(ops, shapes)) * _UNIT_ROUNDOFF
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
                raise ModelMismatchError(
                    _mismatch_message(source, reading, live, i, x, j, y, exact[j], difference, tolerance[i, j])
                )


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
            "(another order, a skip connection, another activation, hooks, control flow); make its forward a "
            "chain of the layers polyrelu reads, or give a state_dict whose layers are in forward order"
        )
    return where + "The conversion of this state dict is wrong: please report this as a bug in polyrelu"
