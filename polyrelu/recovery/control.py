"""How a recovery stops: the wall clock, the query budget and the signals between stages.

These exceptions never leave :func:`~polyrelu.recovery.recover_network`: the
driver turns each into an ``undecided`` answer naming the stage and the
reason, or (:class:`MissedBreakpoint`) into more search where ``f`` was
missed. They are control flow, not errors of the public contract, so they
live here rather than in :mod:`polyrelu.errors`.

Glossary
--------
stage
    What recovery is doing (``Clock.stage``), named in the reason when time
    runs out.
budget
    ``max_queries`` distinct points and ``max_seconds`` of wall-clock time.

What it leaves to others: everything else; it imports nothing from the
package.
"""

import time

__all__ = []


class BudgetExhausted(Exception):
    """Raised inside recovery when ``max_queries`` distinct points have been asked."""


class StageFailed(Exception):
    """A step could not be carried out; the message is the reason reported as ``undecided``."""


class TimeSpent(Exception):
    """Raised inside recovery when ``max_seconds`` have passed; the message is the stage reached."""


class MissedBreakpoint(Exception):
    """``f`` disagrees with the network so far near ``point``: explore there; ``row``: the hyperplane ``f`` bends along there, when known."""

    def __init__(self, point, row=None, anchor=None):
        self.point = point
        self.row = row
        self.anchor = anchor

    @classmethod
    def in_region(cls, region):
        """``f``'s map on a region of a complex contradicts the other regions': explore from the region's interior point.

        An unbounded region's interior point can lie very far out (a thin
        wedge's at 10^33), where lines through it cannot separate the
        breakpoints they meet. ``anchor`` is then a point of the region at
        unit distance from its vertex nearest the origin: ``f`` bends on the
        segment from it to ``point`` only where a neuron the complex lacks
        does (:meth:`~polyrelu.recovery.search_lines.Explorer.search_segment`).
        """
        point = region.relative_interior_point()
        vertices = region.polyhedron.vertices()
        if not vertices:
            return cls(point)
        vertex = min(vertices, key=lambda v: max(abs(c) for c in v))
        gap = max(abs(a - b) for a, b in zip(point, vertex))
        # the open segment from a vertex to a relative interior point lies in the relative interior
        return cls(point, anchor=tuple(b + (a - b) / gap for a, b in zip(point, vertex)) if gap > 1 else None)


class Clock:
    """The wall-clock budget of one recovery (``time.monotonic``) and the stage it has reached.

    Work loops call :meth:`check`; every oracle query does too
    (:class:`~polyrelu.recovery.oracle.Queries`), so a search that never leaves one stage is still cut.
    ``stage`` names what recovery is doing, for the reason when time runs out.
    """

    def __init__(self, max_seconds=None):
        self.deadline = None if max_seconds is None else time.monotonic() + max_seconds
        self.stage = "starting"

    def check(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeSpent(self.stage)
