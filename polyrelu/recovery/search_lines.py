"""Search lines: random lines through the input space, and the breakpoints of ``f`` found on them.

:class:`Explorer` keeps every breakpoint recovery has located and the window
the search spans: lines through random points near the origin (or in the
domain), lines far out on ``R^n0``, lines through a point where a candidate
network is off, and lines near crossings of first-layer hyperplanes, where
thin hypersurfaces of deeper neurons hide.

What it leaves to others: locating a breakpoint on a line and its facet
(:mod:`~polyrelu.recovery.breakpoints`), what the breakpoints are made into
(:mod:`~polyrelu.recovery.driver`).
"""

import itertools
from fractions import Fraction

from ..geometry import Polyhedron
from ..geometry.linalg import solution_space
from ..geometry.rational import row_value
from .breakpoints import breakpoint_at, breakpoints_on_line, is_breakpoint_along
from .numerics import vadd, vscale
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
        self.first_layer = []  # the last round's first-layer hyperplanes (rows (b, w)), for search_near_crossings
        self.vertices = None
        if domain_rows is not None:
            self.vertices = Polyhedron(ieqs=domain_rows, ambient_dim=n0).vertices()

    def search(self, point=None, far=False):
        """One random line, through ``point`` if given; ``far``: through a point ``2^20`` windows out.

        A line far out crosses the unbounded regions only, seeing directions
        near lines miss: a thin cone where ``f`` is not constant, far out.
        Its breakpoints do not widen the window of the near lines.
        """
        scale = self.window * (1 << 20 if far and self.rows is None else 1)
        p = point if point is not None else random_point(self.rng, self.n0, self.rows, self.vertices, scale)
        d = random_direction(self.rng, self.n0)
        self.lines += 1
        for t, _, _, a, b in breakpoints_on_line(self.queries, p, d, self.rows, self.numerics):
            step = vscale(min(t - a, b - t) / 2, d)
            point = vadd(p, vscale(t, d))
            bp = breakpoint_at(self.queries, point, step, self.n0, self.numerics)
            if bp is not None and is_breakpoint_along(self.queries, point, bp.row, self.numerics):
                self.breakpoints.append(bp)
                if not far:
                    self.window = max(self.window, 2 * max(abs(v) for v in bp.point))

    def search_near_crossings(self, count):
        """``count`` random lines through points near where two first-layer hyperplanes cross, the pairs taken in turn.

        A deeper neuron that bends along first-layer hyperplanes can have its
        whole hypersurface in a thin sliver around their crossing (the flat
        ``H_i ∩ H_j``), which random lines seldom meet: in the three-hidden-layer
        3→4→5→5→1 of ``docs/benchmarks.md`` two layer-2 neurons and a layer-3
        neuron were met by 1–2 % of random lines and by 4–16 % of these. Each
        point is uniform along the flat within the window, moved off it by a
        random step of ``window · shrink²`` (``2^-24`` windows exact, ``2^-12``
        in float mode, where closer breakpoints drown in noise) so that the
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
            point = space.point
            for v in space.basis:
                t = Fraction(int(self.rng.integers(-1024, 1025)), 1024) * self.window
                point = vadd(point, vscale(t / max(abs(x) for x in v), v))
            point = vadd(point, vscale(self.window * self.numerics.shrink**2, random_direction(self.rng, self.n0)))
            if self.rows is None or all(row_value(r, point) >= 0 for r in self.rows):
                self.search(point)
