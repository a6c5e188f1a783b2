"""Breakpoints of ``f`` on lines, and the local data at one.

``f`` is piecewise linear, so on a line it is a piecewise-linear function of
one parameter ``t``: two one-sided lines meet at each breakpoint. These
functions find them by bisection with exact checks and read off, at one
breakpoint, the affine maps on both sides, the facet's hyperplane and its
tropical weight (docs/design.md §3).

Glossary
--------
breakpoint
    A point where ``f`` restricted to a line stops being affine; in ``R^n0``
    it lies on a facet of the breakpoint complex (:class:`Breakpoint`).
side map
    The affine map of ``f`` on one side of a breakpoint, measured from
    ``n0 + 1`` points (:func:`side_map`).
jump
    The difference of the two side maps' gradients: a multiple of the facet's
    normal, whose factor per output is the tropical weight.
domain inequalities
    The rows ``b + a·x >= 0`` of a bounded query region, or None for ``R^n0``.

What it leaves to others: which lines to search (``driver``), what a
breakpoint's hyperplane belongs to (``first_layer``, ``tracing``).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

from ..checks import require_callable, require_sequence
from ..domain import DomainLike, domain_polyhedron
from ..errors import RecoveryError, ShapeError, UsageError
from ..geometry.rational import VectorLike, row_value, to_fraction_vector
from .control import StageFailed
from .numerics import numerics_for, tangent_basis, vadd, vdot, vscale, vsub
from .oracle import Queries

__all__ = ["Breakpoint", "line_breakpoints", "breakpoint_data"]


def _intersection(ga, sa, a, gb, sb, b, numerics):
    """The parameter where the lines ``ga + sa (t - a)`` and ``gb + sb (t - b)`` meet, or None."""
    ds = vsub(sa, sb)
    k = max(range(len(ds)), key=lambda i: abs(ds[i]))
    if ds[k] == 0:
        return None
    t = (gb[k] - sb[k] * b - ga[k] + sa[k] * a) / ds[k]
    if not numerics.equal(vadd(ga, vscale(t - a, sa)), vadd(gb, vscale(t - b, sb))):
        return None
    return t


# bisection splits off-centre: breakpoints of structured functions sit at simple fractions of simple intervals,
# and a breakpoint exactly at a split point would be invisible from both halves
_SPLIT = Fraction(53, 128)


def segment_breakpoints(g, a, b, numerics):
    """Breakpoints of the piecewise-linear ``g`` on ``[a, b]``: ``(t, left slope, right slope, t0, t1)`` with ``g`` linear on ``[t0, t]`` and ``[t, t1]``.

    An interval is accepted as linear when the slopes at both ends agree and
    ``g`` is on that line at the midpoint and the far end; it holds one breakpoint
    ``t`` when the two end lines meet at ``t`` and ``g`` is on the left line at
    ``(a + t)/2`` and ``t``, on the right line at ``(t + b)/2``. Otherwise it is
    bisected. A breakpoint exactly at a split point leaves both halves linear:
    where two accepted intervals meet, the slopes on the two sides are
    compared. A black box can hide breakpoints that cancel between sample
    points, and a ReLU network does so without any coincidence where a
    deeper neuron is active inside a bounded hypersurface: ``f`` leaves a
    line there and comes back to it. ``relu(1 - |x| - |y|)`` on the line
    ``y = 1/3`` is linear at both ends of ``[-16, 16]`` and at its
    off-centre split point, and none of its three breakpoints is found.
    """
    found = []
    # the accepted intervals' ends: slope just right of a start / just left of an end, and how far g is linear
    starts, ends = {}, {}
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        width = b - a
        if width <= numerics.min_width * (1 + abs(a) + abs(b)):
            raise StageFailed(f"could not separate the breakpoints of f near t = {float(a):.6g} on a search line")
        h = width * numerics.shrink
        ga, gb = g(a), g(b)
        sa = vscale(1 / h, vsub(g(a + h), ga))
        sb = vscale(1 / h, vsub(gb, g(b - h)))
        mid = a + width * _SPLIT
        if numerics.equal(sa, sb):
            line = lambda t: vadd(ga, vscale(t - a, sa))  # noqa: E731
            if numerics.equal(g(mid), line(mid)) and numerics.equal(gb, line(b)):
                starts[a], ends[b] = (sa, b), (sb, a)
                continue
        else:
            t = _intersection(ga, sa, a, gb, sb, b, numerics)
            if t is not None and a + h < t < b - h:
                # the end lines can also meet left of two close breakpoints (then g(t) is on both by construction):
                # g must leave the left line right after t
                left, right, eps = (a + t) / 2, (t + b) / 2, min(h * numerics.shrink, numerics.max_side_probe)
                if (
                    numerics.equal(g(t), vadd(ga, vscale(t - a, sa)))
                    and numerics.equal(g(left), vadd(ga, vscale(left - a, sa)))
                    and numerics.equal(g(right), vadd(gb, vscale(right - b, sb)))
                    and numerics.equal(g(t - eps), vadd(ga, vscale(t - eps - a, sa)))
                    and numerics.equal(g(t + eps), vadd(gb, vscale(t + eps - b, sb)))
                ):
                    # how far the side maps may reach: float answers want long steps against noise
                    found.append((t, sa, sb, *numerics.breakpoint_sides(t, eps, left, right)))
                    starts[a], ends[b] = (sa, t), (sb, t)
                    continue
        stack.extend([(mid, b), (a, mid)])
    for t in starts.keys() & ends.keys():
        (right_slope, reach_right), (left_slope, reach_left) = starts[t], ends[t]
        if not numerics.equal(left_slope, right_slope):
            eps = min(t - reach_left, reach_right - t) * numerics.shrink**2
            left, right = (reach_left + t) / 2, (t + reach_right) / 2
            found.append((t, left_slope, right_slope, *numerics.breakpoint_sides(t, eps, left, right)))
    return sorted(found, key=lambda k: k[0])


def line_range(point, direction, domain_rows):
    """``[t0, t1]`` with ``point + t·direction`` in the polytope ``domain_rows`` (exact), or None if empty."""
    lo, hi = None, None
    for row in domain_rows:
        base = row_value(row, point)
        rate = vdot(row[1:], direction)
        if rate == 0:
            if base < 0:
                return None
            continue
        t = -base / rate
        if rate > 0:
            lo = t if lo is None else max(lo, t)
        else:
            hi = t if hi is None else min(hi, t)
    if lo is None or hi is None or lo >= hi:
        return None
    return lo, hi


def breakpoints_on_line(queries, point, direction, domain_rows, numerics, reach=16):
    """Breakpoints of ``f`` on a line (or its segment inside the domain): see :func:`line_breakpoints`."""
    g = lambda t: queries(vadd(point, vscale(t, direction)))  # noqa: E731
    if domain_rows is not None:
        span = line_range(point, direction, domain_rows)
        if span is None:
            return []
        return segment_breakpoints(g, *span, numerics)
    # the tails are checked out to 64 T only, so T starts past where the line is nearest the origin: a line through
    # a point far out meets the hyperplanes near it at |t| about |point| / |direction|, not within 64 reach
    T = Fraction(reach) * max(1, math.ceil(max(abs(v) for v in point) / max(abs(v) for v in direction)))
    limit = T * 2**60
    while T < limit:
        # beyond ±T f must be linear: the slope just outside T continues to 2T and 64T
        linear = True
        for side in (1, -1):
            t0, t1, t2 = side * T, 2 * side * T, 64 * side * T
            step = side * T * numerics.shrink
            s0 = vscale(1 / step, vsub(g(t0 + step), g(t0)))
            s1 = vscale(1 / (t2 - t1), vsub(g(t2), g(t1)))
            s01 = vscale(1 / (t1 - t0), vsub(g(t1), g(t0)))
            if not (numerics.equal(s0, s1) and numerics.equal(s0, s01)):
                linear = False
        if linear:
            # a little beyond ±T on both sides: a breakpoint exactly at ±T is an end point of the tail checks
            return segment_breakpoints(g, -T * Fraction(97, 96), T * Fraction(97, 96), numerics)
        T *= 64
    raise StageFailed(f"f keeps bending beyond |t| = {float(limit):.3g} along a search line")


def line_breakpoints(
    oracle: Callable[[Sequence[Any]], Any],
    point: VectorLike,
    direction: VectorLike,
    *,
    domain: DomainLike = None,
    float_oracle: bool = False,
    tolerance: float | None = None,
) -> list[Fraction]:
    """The breakpoints of ``f`` on the line ``point + t·direction``, exactly.

    Parameters
    ----------
    oracle : callable
        ``x ↦ f(x)`` with exact values (see :func:`recover_network`).
    point, direction : sequence of numbers
    domain : Box, Polyhedron or rows, optional
        Search only the segment inside this polytope; by default the whole
        line, whose ends are found by doubling until ``f`` is linear beyond.
    float_oracle : bool
        Tolerant comparisons for a floating-point oracle.
    tolerance : float, optional
        Float mode only: the relative tolerance of one answer; by default
        chosen from the precision of the oracle's answers, as in
        :func:`recover_network` (``1e-9`` for float64, ``1e-4`` for float32).

    Returns
    -------
    list of Fraction
        The parameters ``t`` of the breakpoints, increasing.

    Examples
    --------
    ``f(x) = |x1| + relu(x2 - 1)`` on the line ``(t, t)``:

    >>> from polyrelu import ReLUNetwork, network_oracle
    >>> net = ReLUNetwork([[[1, 0], [-1, 0], [0, 1]], [[1, 1, 1]]], [[0, 0, -1], [0]])
    >>> line_breakpoints(network_oracle(net), (0, 0), (1, 1))
    [Fraction(0, 1), Fraction(1, 1)]
    """
    point, direction = _line_arguments("line_breakpoints", oracle, point, direction)
    numerics = numerics_for("line_breakpoints", float_oracle, tolerance)
    queries = Queries(oracle, len(point), numerics, math.inf)
    rows = domain_inequalities(domain, len(point))
    try:
        return [t for t, *_ in breakpoints_on_line(queries, point, direction, rows, numerics)]
    except StageFailed as exc:
        raise RecoveryError(str(exc)) from None


def _line_arguments(caller, oracle, point, direction):
    """The checked arguments of a search along one line: exact point and non-zero direction of one length."""
    require_callable(oracle, "oracle", caller)
    point = to_fraction_vector(require_sequence(point, "point", caller), f"{caller}: point")
    direction = to_fraction_vector(require_sequence(direction, "direction", caller), f"{caller}: direction")
    if len(point) != len(direction):
        raise ShapeError(f"{caller}: point has {len(point)} coordinates but direction has {len(direction)}; give both in Q^n0")
    if not point:
        raise ShapeError(f"{caller}: point is empty; give one coordinate per input")
    if not any(direction):
        raise UsageError(f"{caller}: direction is zero; give a non-zero direction")
    return point, direction


@dataclasses.dataclass(frozen=True)
class Breakpoint:
    """A point on a breakpoint facet of ``f`` with the exact local data there (docs/design.md §3).

    Attributes
    ----------
    point : tuple of Fraction
    row : tuple of int
        Primitive integer row ``(c, ν)``: the facet's affine hull is ``c + ν·x = 0``.
    jump : tuple of Fraction
        The tropical weight ``w`` with ``J_+ - J_- = w ⊗ ν``, ``ν`` the primitive integer
        normal (the row's normal divided by the gcd of its entries), ``+`` the side
        ``c + ν·x > 0``. In float mode ``ν`` is that of the rationalised row, so
        the weight is only as meaningful as the rounding of the model's weights.
    plus, minus : tuple
        The affine maps ``(A, c)`` of ``f`` on the two sides.
    """

    point: tuple
    row: tuple
    jump: tuple
    plus: tuple
    minus: tuple


def side_map(queries, base, eta, n0, numerics):
    """The affine map of ``f`` near ``base`` from ``n0 + 2`` values (one to check affinity), or None."""
    f0 = queries(base)
    cols = []
    for j in range(n0):
        x = list(base)
        x[j] += eta
        cols.append(vscale(1 / eta, vsub(queries(x), f0)))
    A = tuple(tuple(col[i] for col in cols) for i in range(len(f0)))
    c = tuple(f0[i] - vdot(A[i], base) for i in range(len(f0)))
    probe = tuple(v - eta / (j + 2) for j, v in enumerate(base))
    predicted = tuple(vdot(A[i], probe) + c[i] for i in range(len(f0)))
    if not numerics.equal(queries(probe), predicted):
        return None
    return A, c


def _breakpoint_from_maps(point, left, right, direction, numerics):
    """The :class:`Breakpoint` at ``point`` from the maps on both sides, or None when they are not a facet's."""
    (Al, cl), (Ar, cr) = left, right
    J = [vsub(r, l) for r, l in zip(Ar, Al)]
    k = max(range(len(J)), key=lambda i: max(abs(v) for v in J[i]))
    if numerics.zero(J[k]):
        return None
    jrow = J[k]
    # rank one: every row of the jump is a multiple of the largest
    p = max(range(len(jrow)), key=lambda j: abs(jrow[j]))
    weights = [Ji[p] / jrow[p] for Ji in J]
    if not all(numerics.equal(Ji, vscale(w, jrow)) for Ji, w in zip(J, weights)):
        return None
    value_l = tuple(vdot(a, point) + c for a, c in zip(Al, cl))
    value_r = tuple(vdot(a, point) + c for a, c in zip(Ar, cr))
    if not numerics.equal(value_l, value_r):
        return None
    row = numerics.rationalize_row((-vdot(jrow, point), *jrow))
    if vdot(row[1:], direction) < 0:
        row = tuple(-v for v in row)
    # the weight is relative to the primitive integer normal (docs/design.md §3), which is the row's normal
    # divided by its gcd: the row is primitive with its constant, the normal alone need not be
    normal = row[1:]
    divisor = math.gcd(*normal)
    q = next(j for j, v in enumerate(normal) if v != 0)
    jump = tuple(J[i][q] * divisor / normal[q] for i in range(len(J)))
    return Breakpoint(tuple(point), row, jump, (Ar, cr), (Al, cl))


def breakpoint_at(queries, point, step, n0, numerics):
    """The :class:`Breakpoint` at ``point``, a breakpoint of ``f`` on the line ``point + t·step``, with ``step`` inside both linear pieces."""
    eta = max(abs(v) for v in step) * numerics.shrink
    for _ in range(3):
        left = side_map(queries, vsub(point, step), eta, n0, numerics)
        right = side_map(queries, vadd(point, step), eta, n0, numerics)
        if left is not None and right is not None:
            bp = _breakpoint_from_maps(point, left, right, step, numerics)
            if bp is not None:
                return bp
        eta *= numerics.shrink
    return None


def breakpoint_data(
    oracle: Callable[[Sequence[Any]], Any],
    point: VectorLike,
    direction: VectorLike,
    *,
    float_oracle: bool = False,
    tolerance: float | None = None,
) -> Breakpoint:
    """The :class:`Breakpoint` (facet hyperplane, weight, side maps) at a breakpoint found on a line.

    Parameters
    ----------
    oracle : callable
    point : sequence of numbers
        A breakpoint of ``f`` on the line through it with ``direction``, e.g. from
        :func:`line_breakpoints`.
    direction : sequence of numbers
        The step to each side: ``f`` must be linear from ``point`` to
        ``point ± direction`` (the two linear pieces reach that far).
    float_oracle : bool
        Tolerant comparisons for a floating-point oracle.
    tolerance : float, optional
        Float mode only: the relative tolerance of one answer; by default
        chosen from the precision of the oracle's answers, as in
        :func:`recover_network` (``1e-9`` for float64, ``1e-4`` for float32).

    Returns
    -------
    Breakpoint

    Raises
    ------
    RecoveryError
        The maps on the two sides do not differ by a rank-one jump that is
        continuous at ``point`` (not a single breakpoint facet there).

    Examples
    --------
    >>> from polyrelu import ReLUNetwork, network_oracle
    >>> f = network_oracle(ReLUNetwork([[[1, -2]], [[3]]], [[1], [0]]))
    >>> k = breakpoint_data(f, (1, 1), ("1/8", 0))
    >>> k.row, k.jump
    ((1, 1, -2), (Fraction(3, 1),))
    """
    point, step = _line_arguments("breakpoint_data", oracle, point, direction)
    numerics = numerics_for("breakpoint_data", float_oracle, tolerance)
    queries = Queries(oracle, len(point), numerics, math.inf)
    bp = breakpoint_at(queries, point, step, len(point), numerics)
    if bp is None:
        raise RecoveryError(f"f has no single breakpoint facet through {tuple(map(str, point))} along {tuple(map(str, step))}")
    return bp


def is_breakpoint_along(queries, point, row, numerics, radius=None):
    """Whether ``f`` bends at ``point`` across the hyperplane ``row`` and nowhere else nearby (finite differences, exact).

    Returns the point (in float mode the breakpoint found near it), or None.

    The probes stay within ``2·radius`` (max-norm) of ``point``; by default
    tiny and not growing with ``|point|``: far out, hypersurfaces run parallel
    or converge at distances that do not grow with it.
    """
    normal = row[1:]
    near_other = radius is not None  # the caller knows of another hypersurface close by
    if radius is None:
        radius = min(max(1, max(abs(v) for v in point)) * numerics.shrink**3, numerics.shrink**2)
    eta = radius / max(abs(v) for v in normal)
    reach = numerics.prediction_reach(point)
    if reach:
        # a rounded prediction misses the hypersurface by more than the probes reach: find the breakpoint nearby first
        unit = vscale(Fraction(1) / max(abs(v) for v in normal), normal)
        if near_other:
            reach = min(reach, 8 * radius)
        g = lambda t: queries(vadd(point, vscale(t, unit)))  # noqa: E731
        near = segment_breakpoints(g, -reach, reach, numerics)
        if not near:
            return None
        point = vadd(point, vscale(min((k[0] for k in near), key=abs), unit))  # the nearest: others are neighbours
        eta = min(radius, reach) / 4 / max(abs(v) for v in normal)
    nu = vscale(eta, normal)
    f0 = queries(point)
    fp, fpp = queries(vadd(point, nu)), queries(vadd(point, vscale(2, nu)))
    fm, fmm = queries(vsub(point, nu)), queries(vsub(point, vscale(2, nu)))
    if not (numerics.equal(vsub(fpp, fp), vsub(fp, f0)) and numerics.equal(vsub(f0, fm), vsub(fm, fmm))):
        return None
    if numerics.equal(vsub(fp, f0), vsub(f0, fm)):
        return None
    scale = eta * max(abs(v) for v in normal)
    for u in tangent_basis(normal):
        step = vscale(scale / max(abs(v) for v in u), u)
        if not numerics.equal(vadd(queries(vadd(point, step)), queries(vsub(point, step))), vscale(2, f0)):
            return None
    return point


def domain_inequalities(domain, n0):

    poly = domain_polyhedron(domain, n0)
    return None if poly is None else tuple(tuple(r) for r in poly.inequalities)
