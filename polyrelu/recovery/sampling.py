"""Random points and directions for recovery: search lines' anchors, and the fresh points a candidate is checked on.

Everything here draws from a seeded ``numpy`` generator and returns exact
rationals, so that a recovery is reproducible and its checks exact:
:func:`random_point` and :func:`random_direction` place search lines,
:func:`fresh_points` spreads the acceptance sample over the query region (a
stratified sample, points near the boundary, far out on ``R^n0``), and
:func:`check_candidate` compares a candidate network with the oracle there.

What it leaves to others: the search itself (:mod:`~polyrelu.recovery.breakpoints`) and the decisions
(:mod:`~polyrelu.recovery.driver`).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from ..geometry.rational import row_value
from .breakpoints import line_range
from .numerics import vadd, vscale, vsub

__all__ = ["random_point", "random_direction", "check_window", "fresh_points", "vertex_points", "check_candidate"]


def random_point(rng, n0, domain_rows, vertices, window):
    """A random point: on a grid in ``[-window, window]^n0``, or a random convex combination of the domain's vertices."""
    if domain_rows is None:
        return tuple(Fraction(int(rng.integers(-1024, 1025)), 1024) * window for _ in range(n0))
    weights = [Fraction(int(v) + 1) for v in rng.integers(0, 64, size=len(vertices))]
    total = sum(weights)
    return tuple(sum(w * v[i] for w, v in zip(weights, vertices)) / total for i in range(n0))


def _uniform_point(rng, lower, upper):
    """A point uniform (on a grid of 2^20 steps per side) in the box ``prod [lower_i, upper_i]``."""
    steps = 1 << 20
    return tuple(a + (b - a) * Fraction(int(rng.integers(0, steps + 1)), steps) for a, b in zip(lower, upper))


def _jittered_points(rng, lower, upper, count):
    """``count`` points in a box, each uniform in its own cell of a ``k^n`` grid (``k^n <= count``), the rest uniform.

    Stratified sampling: as uniform as independent points, but no part of the
    box larger than a grid cell is left out.
    """
    n = len(lower)
    k = max(1, int(count ** (1 / n) + 1e-9)) if n else 1
    points = []
    for cell in itertools.product(range(k), repeat=n):
        start = tuple(a + (b - a) * Fraction(c, k) for a, b, c in zip(lower, upper, cell))
        stop = tuple(a + (b - a) * Fraction(c + 1, k) for a, b, c in zip(lower, upper, cell))
        points.append(_uniform_point(rng, start, stop))
    return points + [_uniform_point(rng, lower, upper) for _ in range(count - len(points))]


def _points_on_box_surface(rng, n0, radius, count):
    """About ``count`` points on the surface of ``[-radius, radius]^n0``: a stratified sample of each facet, so of every direction."""
    per_facet = max(1, count // (2 * n0))
    points = []
    for axis in range(n0):
        for side in (-radius, radius):
            for y in _jittered_points(rng, (-radius,) * (n0 - 1), (radius,) * (n0 - 1), per_facet):
                points.append((*y[:axis], side, *y[axis:]))
    return points


def check_window(window):
    """The half-width of the box of fresh checks on ``R^n0``: a power of two at least four times the search window."""
    return Fraction(2) ** max(0, math.ceil(math.log2(4 * window)))


def fresh_points(rng, n0, domain_rows, vertices, window, count):
    """Points to check a candidate network on: ``count`` spread uniformly over the query region, more near its edges.

    In a polytope: ``count`` points uniform in it (a stratified sample of the
    box of its vertices, :func:`_jittered_points`, the points outside
    replaced by uniform ones inside; random convex combinations of the
    vertices where a thin polytope rejects too many), ``count // 2`` within
    ``2^-10`` of the boundary (near the ends of random chords through uniform
    points, exactly on it for some), and up to ``count // 4`` vertices (at
    random), each moved ``2^-10`` of the way towards the centroid. On all of
    ``R^n0`` (no ``domain_rows``): ``count`` points stratified in
    ``[-window, window]^n0``, and ``count`` far out, stratified over the
    surfaces of the boxes ``2^10`` and ``2^20`` times as large: ``f`` may
    differ from a candidate only in a thin cone far out (5% of the directions
    in a test case), which every direction class of the sample meets.
    """
    if domain_rows is None:
        near = _jittered_points(rng, (-window,) * n0, (window,) * n0, count)
        far = [p for r in (1 << 10, 1 << 20) for p in _points_on_box_surface(rng, n0, window * r, count // 2)]
        return near + far
    lower = tuple(min(v[i] for v in vertices) for i in range(n0))
    upper = tuple(max(v[i] for v in vertices) for i in range(n0))

    def inside(x):
        return all(row_value(row, x) >= 0 for row in domain_rows)

    def uniform():
        for _ in range(64):
            x = _uniform_point(rng, lower, upper)
            if inside(x):
                return x
        return random_point(rng, n0, domain_rows, vertices, 1)

    points = [x if inside(x) else uniform() for x in _jittered_points(rng, lower, upper, count)]
    while len(points) < count + count // 2:
        x, d = uniform(), random_direction(rng, n0)
        span = line_range(x, d, domain_rows)
        if span is None:
            continue
        lo, hi = span
        gap = (hi - lo) * Fraction(int(rng.integers(0, 1025)), 1 << 20)
        points.append(vadd(x, vscale(hi - gap if rng.integers(0, 2) else lo + gap, d)))
    centroid = tuple(sum(v[i] for v in vertices) / len(vertices) for i in range(n0))
    corners = rng.permutation(len(vertices))[: count // 4]
    points += [vadd(vertices[k], vscale(Fraction(1, 1024), vsub(centroid, vertices[k]))) for k in corners]
    return points


def vertex_points(cells, reach):
    """A point inside every region of a complex near each of its vertices, ``v + (x - v) / 16``, and far out near each of its rays.

    ``x`` is the region's relative interior point, so each point lies inside
    the region, a sixteenth of the way from the vertex. Where the candidate's
    hypersurfaces cross, ``f`` may hide more: a deeper neuron whose zero set
    is a thin sliver hugging the crossing (a 2→3→3→3→1 network's, area 7.4
    and 18 long, around the candidate's vertex (15.2, 2.8), the check window
    1024 wide) is missed by a sample spread over the window and by the
    midpoints ``v + (x - v) / 2``, and met by these points.

    The same holds at infinity, where an unbounded region's rays play the
    vertices' part: a deeper neuron can be active only in a thin cone
    hugging a ray. An unbounded region gets the point
    ``m + reach · (r + (c - r) / 64)`` for each ray ``r`` (a line counts as
    two), with ``m`` the mean of its vertices and ``c`` the mean of its rays,
    all scaled to max-norm 1; ``c`` is inside the recession cone, so the
    point is inside the region. In a 3→5→6→3→1 network of the
    three-hidden-layer sample, a layer-3 neuron is active on 0.09 % of the
    directions at infinity, a cone about 3° by 1°: the fresh points missed
    it and a candidate without it was accepted; 6 of these 290 points meet it
    (4 at ``/ 16``). Empty without a complex (an affine candidate).
    """
    if cells is None:
        return []
    points = []
    for region in cells.regions():
        polyhedron = region.polyhedron
        x, vertices = region.relative_interior_point(), polyhedron.vertices()
        points += [vadd(v, vscale(Fraction(1, 16), vsub(x, v))) for v in vertices]
        rays = [tuple(Fraction(v) for v in r) for r in polyhedron.rays()]
        rays += [tuple(sign * Fraction(v) for v in line) for line in polyhedron.lines() for sign in (1, -1)]
        if not rays:
            continue
        rays = [vscale(1 / max(abs(v) for v in r), r) for r in rays]
        centre = vscale(Fraction(1, len(rays)), tuple(map(sum, zip(*rays))))
        mean = vscale(Fraction(1, len(vertices)), tuple(map(sum, zip(*vertices))))
        points += [vadd(mean, vscale(reach, vadd(r, vscale(Fraction(1, 64), vsub(centre, r))))) for r in rays]
    return points


def check_candidate(queries, net, points, numerics):
    """``(deviation, threshold, off)``: ``max |f - g|`` over ``points``, the most accepted, the points off by more than the search's screening.

    Every point is evaluated, so that the deviation is known even when the
    search goes on (``off`` non-empty: :meth:`~polyrelu.recovery.numerics.Numerics.close` fails there).
    """
    deviation, largest, off = Fraction(0), Fraction(0), []
    for x in points:
        fx, gx = queries(x), net(x)
        if not numerics.close(fx, gx):
            off.append(x)
        deviation = max(deviation, max(abs(a - b) for a, b in zip(fx, gx)))
        largest = max(largest, max(abs(a) for a in fx))
    return deviation, numerics.threshold(largest), off


def random_direction(rng, n0):
    """A non-zero direction with coordinates in ``[-1, 1]`` on a grid of 1/64."""
    while True:
        d = tuple(Fraction(int(v), 64) for v in rng.integers(-64, 65, size=n0))
        if any(d):
            return d
