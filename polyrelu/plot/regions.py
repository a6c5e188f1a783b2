"""What a drawing of a complex shows of it: the window, each cell clipped to it, and what a region's fill means.

Shared by the matplotlib figures (:mod:`polyrelu.plot.complex`) and the
interactive pages (:mod:`polyrelu.plot.html`), so that both clip the same
way and give a colour the same meaning. A fill is one of :data:`FILLS`:

- ``"activation"``: the number of active neurons on the region (positive
  entries of its sign vector);
- ``"output"``: ``f`` at the centre of the region's drawn part (the mean
  of its vertices, an interior point; exact, converted to a float only to
  pick the colour); one output only;
- ``"class"``: the classes maximal on the whole drawn part of the region.
  ``f`` is affine there, so a class is maximal everywhere on the drawn
  polygon exactly when it is maximal at each of its vertices: the answer is
  exact, and a region cut by the decision boundary is said to be so (its
  cells are refined by :func:`~polyrelu.topology.decision_complex`).

Class colours are matplotlib's ``tab10``, class ``c`` in colour ``c``, as in
the digits tutorial; scales are ``viridis``. Both are paled (mixed with
white) so that the facets drawn over them stay visible, and drawn opaque so
that neighbouring regions leave no seams.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from ..checks import describe, is_sequence, require_choice
from ..complex import CanonicalComplex, Cell
from ..errors import InvalidArgumentError, UsageError
from ..geometry import Polyhedron
from ..geometry.rational import RationalLike, to_fraction
from ..network import ReLUNetwork
from ..text import number_text

__all__ = [
    "FILLS",
    "FillScale",
    "fill_scale",
    "check_window",
    "clip_box",
    "clipped_vertices",
    "clipped_polyhedron",
    "around_centre",
    "centre",
    "network_label",
    "DECISION_BOUNDARY",
]

FILLS = ("activation", "output", "class")

# how much white is mixed into a fill colour: pale enough for the facets' colours over it
_PALE = 0.5
# a region that two or more classes share, and one that the decision boundary cuts
TIE, SPLIT = "tie", "split"
# the legend entry of the edges where two or more classes are maximal, in figures and pages alike
DECISION_BOUNDARY = "decision boundary"


def network_label(net: ReLUNetwork) -> str:
    """The network's name, or its architecture when it has none (a title never says just "network").

    Examples
    --------
    >>> network_label(ReLUNetwork([[[1, 0]], [[1]]], [[0], [0]]))
    'a 2→1→1 network'
    >>> network_label(ReLUNetwork([[[1, 0]], [[1]]], [[0], [0]], name="tiny"))
    'tiny'
    """
    return net.name or f"a {net.architecture} network"


def check_window(window: Sequence[RationalLike] | None, dim: int, caller: str) -> list[tuple[Fraction, Fraction]] | None:
    """``window`` as ``dim`` exact pairs ``(lo, hi)``: from ``(lo, hi)`` (every coordinate) or ``(lo1, hi1, lo2, hi2, ...)``.

    Raises
    ------
    InvalidArgumentError
        Not a sequence of 2 or ``2 * dim`` numbers.
    UsageError
        An empty or inverted range (``lo >= hi``).

    Examples
    --------
    >>> check_window((-1, 1), 2, "f")
    [(Fraction(-1, 1), Fraction(1, 1)), (Fraction(-1, 1), Fraction(1, 1))]
    >>> check_window((0, 1, 2, 2), 2, "f")
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: f: window (0, 1, 2, 2) is empty along coordinate 2 (2 >= 2); give XMIN < XMAX and YMIN < YMAX
    """
    if window is None:
        return None
    if not is_sequence(window) or len(window := list(window)) not in (2, 2 * dim):
        wanted = "(lo, hi) or (XMIN, XMAX, YMIN, YMAX)" if dim == 2 else f"(lo, hi) or {2 * dim} numbers, lo and hi per coordinate"
        raise InvalidArgumentError(f"{caller}: window must be {wanted}, got {describe(window)}")
    bounds = [to_fraction(v, f"{caller}: window[{i}]") for i, v in enumerate(window)]
    pairs = [(bounds[0], bounds[1])] * dim if len(bounds) == 2 else list(zip(bounds[::2], bounds[1::2]))
    for i, (lo, hi) in enumerate(pairs):
        if lo >= hi:
            text = "(" + ", ".join(str(b) for b in bounds) + ")"
            raise UsageError(
                f"{caller}: window {text} is empty along coordinate {i + 1} ({lo} >= {hi}); "
                "give XMIN < XMAX and YMIN < YMAX" + ("" if dim == 2 else " (lo < hi for every coordinate)")
            )
    return pairs


def clip_box(K: CanonicalComplex, margin: Fraction, window: list[tuple[Fraction, Fraction]] | None) -> list[tuple[Fraction, Fraction]]:
    """The box drawn, ``(lo, hi)`` per coordinate: ``window``, else the domain, else the vertices with ``margin`` around."""
    if window is not None:
        return window
    dim = K.network.architecture.input_dim
    vertices: Sequence[Sequence[Fraction]]
    if K.domain is not None:
        vertices = K.domain.vertices()
    else:
        vertices = [c.polyhedron.vertices()[0] for c in K.cells(0)] or [tuple(Fraction(0) for _ in range(dim))]
    lo = [min(v[i] for v in vertices) for i in range(dim)]
    hi = [max(v[i] for v in vertices) for i in range(dim)]
    span = max(max(h - l for l, h in zip(lo, hi)), Fraction(2))
    pad = span * margin if K.domain is None else Fraction(0)
    return [(l - pad, h + pad) for l, h in zip(lo, hi)]


def box_inequalities(box: Sequence[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, ...]]:
    """The rows ``(b, a)`` with ``b + a.x >= 0`` of the box."""
    dim = len(box)
    rows = []
    for i, (lo, hi) in enumerate(box):
        unit = [Fraction(int(j == i)) for j in range(dim)]
        rows.append((-lo, *unit))
        rows.append((hi, *(-u for u in unit)))
    return rows


def clipped_vertices(cell: Cell, box: Sequence[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, ...]]:
    """The exact vertices of ``cell`` cut to ``box`` (none when they do not meet)."""
    return [tuple(v) for v in clipped_polyhedron(cell, box).vertices()]


def clipped_polyhedron(cell: Cell, box: Sequence[tuple[Fraction, Fraction]]) -> Polyhedron:
    """``cell`` cut to ``box``, exactly."""
    ieqs, eqns = cell.polyhedron.minimal_h_representation()
    return Polyhedron(ieqs=[*ieqs, *box_inequalities(box)], eqns=eqns, ambient_dim=len(box))


def around_centre(points: Sequence[tuple[float, ...]]) -> list[tuple[float, ...]]:
    """The vertices of a convex polygon in the order of their angle around its centre.

    Examples
    --------
    >>> around_centre([(1, 1), (0, 0), (1, 0), (0, 1)])
    [(0, 0), (1, 0), (1, 1), (0, 1)]
    """
    cx, cy = sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)
    return sorted(points, key=lambda p: math.atan2(p[1] - cy, p[0] - cx))


def centre(vertices: Sequence[Sequence[Fraction]]) -> tuple[Fraction, ...]:
    """The mean of ``vertices``, exactly: an interior point of a full-dimensional polytope.

    Examples
    --------
    >>> centre([(0, 0), (1, 0), (0, 1)])
    (Fraction(1, 3), Fraction(1, 3))
    """
    return tuple(sum((Fraction(v[k]) for v in vertices), Fraction(0)) / len(vertices) for k in range(len(vertices[0])))


@dataclass
class FillScale:
    """What the fill colours of a drawing mean.

    Attributes
    ----------
    fill : str
        One of :data:`FILLS`.
    values : dict
        Per region id: its active-neuron count (``"activation"``), ``f`` at
        the centre of its drawn part (``"output"``, exact), or its classes
        (``"class"``: a frozenset, empty when the decision boundary cuts it).
    label : str
        What the colour says, for the colour bar (scales) or the legend title (classes).
    cmap, norm : matplotlib colormap and norm, or None for classes.
    ticks : list of int, or None
        The colour bar's ticks (whole numbers for counts).
    """

    fill: str
    values: dict[int, Any]
    label: str
    cmap: Any = None
    norm: Any = None
    ticks: list[int] | None = None
    classes: list[int] = field(default_factory=list)

    def colour(self, region: int) -> tuple[float, float, float, float]:
        """The fill colour of region ``region`` (an id of :attr:`values`), RGBA in ``[0, 1]``."""
        value = self.values[region]
        if self.fill != "class":
            return self.cmap(self.norm(float(value)))
        if len(value) == 1:
            return self.class_colour(next(iter(value)))
        return (1.0, 1.0, 1.0, 1.0)

    def class_colour(self, c: int) -> tuple[float, float, float, float]:
        """The fill colour of class ``c``: ``tab10``'s colour ``c``, paled."""
        return _pale(_class_colour(c))

    def kind(self, region: int) -> str:
        """``"class c"``, ``TIE`` or ``SPLIT`` for a class fill (the legend entry of the region); ``""`` for a scale."""
        if self.fill != "class":
            return ""
        value = self.values[region]
        return f"class {next(iter(value))}" if len(value) == 1 else TIE if value else SPLIT

    def describe(self, region: int) -> str:
        """The region's value in words, for a hover text."""
        value = self.values[region]
        if self.fill == "activation":
            return f"{value} active neurons"
        if self.fill == "output":
            return f"f = {number_text(value)}"
        kind = self.kind(region)
        if kind == TIE:
            return "classes " + ", ".join(map(str, sorted(value))) + " tie"
        if kind == SPLIT:
            return "cut by the decision boundary"
        return kind


def _class_colour(c: int) -> tuple[float, float, float, float]:
    import matplotlib

    return matplotlib.colormaps["tab10"](c % 10)


def _pale(rgba: Sequence[float]) -> tuple[float, float, float, float]:
    r, g, b = (_PALE + (1 - _PALE) * x for x in rgba[:3])
    return (r, g, b, 1.0)


def fill_scale(
    K: CanonicalComplex, fill: str, drawn: dict[int, list[tuple[Fraction, ...]]], caller: str
) -> FillScale:
    """The meaning and colours of ``fill`` on the regions ``drawn`` (region id -> exact vertices of its drawn part).

    Raises
    ------
    UsageError
        ``fill`` is not one of :data:`FILLS`; ``"output"`` for a network with
        several outputs, or ``"class"`` for one with a single output.
    """
    import matplotlib
    from matplotlib.colors import BoundaryNorm, ListedColormap, Normalize

    require_choice(fill, FILLS, "fill", caller)
    net = K.network
    hidden, outputs = net.architecture.num_hidden, net.architecture.output_dim
    if fill == "output" and outputs != 1:
        raise UsageError(f"{caller}: fill='output' colours by the value of a single output; this network has "
                         f"{outputs}: use fill='class' (the classes maximal on each region)")
    if fill == "class" and outputs < 2:
        raise UsageError(f"{caller}: fill='class' needs a network with several outputs (classes); this one has 1: "
                         "use fill='output'")
    regions = {r.id: r for r in K.regions() if r.id in drawn}
    viridis = matplotlib.colormaps["viridis"]
    if fill == "activation":
        values: dict[int, Any] = {i: sum(1 for s in r.signs[:hidden] if s > 0) for i, r in regions.items()}
        lo, hi = min(values.values(), default=0), max(values.values(), default=0)
        steps = hi - lo + 1
        cmap = ListedColormap([_pale(viridis(k / max(steps - 1, 1))) for k in range(steps)])
        norm = BoundaryNorm([lo - 0.5 + k for k in range(steps + 1)], steps)
        return FillScale(fill, values, f"active neurons (of {hidden})", cmap, norm, list(range(lo, hi + 1)))
    if fill == "output":
        values = {i: net(centre(drawn[i]))[0] for i in regions}
        floats = [float(v) for v in values.values()] or [0.0]
        lo_f, hi_f = min(floats), max(floats)
        if lo_f == hi_f:  # one value: a scale around it
            lo_f, hi_f = lo_f - 1, hi_f + 1
        cmap = ListedColormap([_pale(c) for c in (viridis(k / 255) for k in range(256))])
        return FillScale(fill, values, "f at the centre of the region (as drawn)", cmap, Normalize(lo_f, hi_f))
    values = {i: _maximal_everywhere(net, drawn[i]) for i in regions}
    classes = sorted({next(iter(v)) for v in values.values() if len(v) == 1})
    return FillScale(fill, values, "class (argmax of f)", classes=classes)


def _maximal_everywhere(net: ReLUNetwork, vertices: list[tuple[Fraction, ...]]) -> frozenset[int]:
    """The classes maximal at every one of ``vertices`` (on their convex hull, where ``f`` is affine)."""
    common: set[int] | None = None
    for v in vertices:
        out = net(v)
        top = max(out)
        best = {c for c, y in enumerate(out) if y == top}
        common = best if common is None else common & best
    return frozenset(common or ())
