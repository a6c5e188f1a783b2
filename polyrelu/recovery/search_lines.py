"""Search lines: random lines through the input space, and the breakpoints of ``f`` found on them.

:class:`Explorer` keeps every breakpoint recovery has located and the window
the search spans: lines through random points at every scale up to the
window (or in the domain), lines through a point where a candidate network
is off, and lines near crossings of first-layer hyperplanes, where thin
hypersurfaces of deeper neurons hide.

What it leaves to others: locating a breakpoint on a line and its facet
(:mod:`~polyrelu.recovery.breakpoints`), what the breakpoints are made into
(:mod:`~polyrelu.recovery.driver`).
"""

import itertools
from fractions import Fraction

from ..geometry import Polyhedron
from ..geometry.linalg import solution_space
from ..geometry.rational import row_value
from .breakpoints import breakpoint_at, breakpoints_on_line, is_breakpoint_along, segment_breakpoints
from .control import StageFailed
from .numerics import vadd, vscale, vsub
from .sampling import random_direction, random_point

__all__ = ["Explorer"]


class Explorer:
    """Search lines and the breakpoints found on them."""

    def __init__(self, queries, n0, domain_rows, numerics, rng):
        self.queries = queries
        self.n0 = n0
        self.rows = domain_rows
        self.numerics = numerics
        self.rng = rng
        self.breakpoints = []
        self.lines = 0
        self.window = Fraction(1)
        self.walks = {}  # what walks along hyperplanes found (first_layer.straight_hyperplane), kept across rounds
        # (point, row) of the breakpoints some round's layers explained (driver._rebuild): none is walked anew
        self.explained = set()
        self.first_layer = []  # the last round's first-layer hyperplanes (rows (b, w)), for search_near_crossings
        self.vertices = None
        if domain_rows is not None:
            self.vertices = Polyhedron(ieqs=domain_rows, ambient_dim=n0).vertices()

    def search(self, point=None):
        """One random line, through ``point`` if given.

        On ``R^n0`` a random point is drawn at a scale ``2^k`` up to the
        window, ``k`` uniform (:meth:`scale`): one far breakpoint widens the
        window, and lines through points that far out seldom meet a bounded
        hypersurface near the origin. Only lines through points at scale 1
        (and through given points) widen the window: a line through a point
        at scale ``s`` meets the unbounded facets at distance about ``s``, and
        letting those widen it doubles the window with every such line.
        """
        p, widens = point, True
        if p is None:
            scale = self.window if self.rows is not None else self.scale()
            p, widens = random_point(self.rng, self.n0, self.rows, self.vertices, scale), scale == 1
        d = random_direction(self.rng, self.n0)
        self.lines += 1
        try:
            found = breakpoints_on_line(self.queries, p, d, self.rows, self.numerics)
        except StageFailed:
            # breakpoints closer than 2^-80 |t| (hypersurfaces meeting the line far out), or f bending past 2^60 times
            # the tails' start: this line tells nothing, other lines will do
            return
        self._keep(p, d, found, widens)

    def search_segment(self, start, end):
        """The breakpoints on the segment from ``start`` to ``end``, searched in pieces doubling in length out from ``start``.

        For a segment from near a region's vertex to its interior point far
        out (:meth:`MissedBreakpoint.in_region
        <polyrelu.recovery.control.MissedBreakpoint.in_region>`): the
        breakpoints there sit at every distance from ``start``, and each
        piece separates those in it relative to its own length, where one
        search of the whole segment (as along a line) could not (its
        resolution is ``2^-80`` of the segment's length, say ``10^9`` of a
        segment ``10^33`` long). It does not widen the window.
        """
        u = vsub(end, start)
        length = max(abs(v) for v in u)
        u = vscale(1 / length, u)
        g = lambda s: self.queries(vadd(start, vscale(s, u)))  # noqa: E731
        a, b = Fraction(0), Fraction(1)
        while a < length:
            b = min(b, length)
            try:
                self._keep(start, u, segment_breakpoints(g, a, b, self.numerics), widens=False)
            except StageFailed:
                pass  # breakpoints too close to separate in this piece: the others may still tell
            a, b = b, 2 * b

    def _keep(self, p, d, found, widens):
        """Keep the breakpoints ``found`` on the line ``p + t d`` (:func:`segment_breakpoints`'s tuples) that :func:`breakpoint_at` measures."""
        for t, _, _, a, b in found:
            step = vscale(min(t - a, b - t) / 2, d)
            point = vadd(p, vscale(t, d))
            bp = breakpoint_at(self.queries, point, step, self.n0, self.numerics)
            if bp is not None and is_breakpoint_along(self.queries, point, bp.row, self.numerics):
                self.breakpoints.append(bp)
                if widens:
                    self.window = max(self.window, 2 * max(abs(v) for v in bp.point))

    def scale(self):
        """A random scale for a near line's point: ``2^k`` for ``k`` uniform up to the window's, at most the window."""
        top = int(self.window).bit_length()  # 2^top > window (a float log2 overflows past 10^308)
        return min(self.window, Fraction(2) ** int(self.rng.integers(0, top + 1)))

    def search_near_crossings(self, count):
        """``count`` random lines through points near where two first-layer hyperplanes cross, the pairs taken in turn.

        A deeper neuron that bends along first-layer hyperplanes can have its
        whole hypersurface in a thin sliver around their crossing (the flat
        ``H_i ∩ H_j``), which random lines seldom meet: in the three-hidden-layer
        3→4→5→5→1 of ``docs/benchmarks.md`` two layer-2 neurons and a layer-3
        neuron were met by 1–2 % of random lines and by 4–16 % of these. Each
        point is uniform along the flat within a scale drawn as for a near
        line (:meth:`scale`), moved off it by a random step of ``scale ·
        shrink²`` (``2^-24`` of it exact, ``2^-12`` in float mode, where
        closer breakpoints drown in noise) so that the
        line crosses the two hyperplanes apart but passes close enough to meet
        a small bounded hypersurface around the crossing. The pairs are taken
        in a random order, again and again until ``count`` lines are drawn;
        parallel ones, and points outside the domain, are skipped.
        """
        rows = self.first_layer
        pairs = list(itertools.combinations(range(len(rows)), 2))
        self.rng.shuffle(pairs)
        for i, j in itertools.islice(itertools.cycle(pairs), count):
            space = solution_space([rows[i][1:], rows[j][1:]], [-rows[i][0], -rows[j][0]])
            if space is None:
                continue
            point, scale = space.point, self.scale()
            for v in space.basis:
                t = Fraction(int(self.rng.integers(-1024, 1025)), 1024) * scale
                point = vadd(point, vscale(t / max(abs(x) for x in v), v))
            point = vadd(point, vscale(scale * self.numerics.shrink**2, random_direction(self.rng, self.n0)))
            if self.rows is None or all(row_value(r, point) >= 0 for r in self.rows):
                self.search(point)
