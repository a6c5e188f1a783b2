"""Interactive pages (Plotly): a complex in the plane or in 3-space as one self-contained HTML file.

:func:`write_complex_html` draws every region of a complex of a network
with 2 or 3 inputs (for a 2- or 3-D slice of a wider network, the complex of
:meth:`~polyrelu.slices.Slice.complex`) and the edges, clipped like
:func:`~polyrelu.plot.plot_complex`. In the plane a region is a filled
polygon; in 3-space it is the mesh of its boundary's 2-faces, translucent.
Hovering over a region shows its cell id, sign vector, dimension and ``f``
at the centre of its drawn part (exact), and what its colour means. Colours mean what
they mean in :func:`~polyrelu.plot.plot_complex` (:mod:`polyrelu.plot.regions`),
with a colour bar or legend entries per class.

Plotly is an optional dependency (``pip install 'polyrelu[plot]'``),
imported when a page is written; the page embeds plotly.js, so it opens
offline.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from ..atomic import atomic_write
from ..checks import require_instance, require_sequence, require_str
from ..complex import CanonicalComplex, Cell
from ..errors import (
    BackendUnavailableError,
    GeometryError,
    InvalidArgumentError,
    UsageError,
)
from ..geometry.rational import RationalLike, to_fraction
from ..text import vector_text
from .files import check_html_path
from .regions import (
    DECISION_BOUNDARY,
    SPLIT,
    TIE,
    FillScale,
    around_centre,
    centre,
    check_window,
    clip_box,
    clipped_polyhedron,
    clipped_vertices,
    fill_scale,
    network_label,
)

__all__ = ["write_complex_html", "require_plotly", "INSTALL_PLOTLY"]

# a 3-D region's mesh is translucent, so that the regions behind it show
_MESH_OPACITY = 0.35
INSTALL_PLOTLY = "pip install 'polyrelu[plot]'"


def require_plotly() -> Any:
    """The ``plotly.graph_objects`` module, or an error that says how to install it."""
    try:
        # optional and heavy (a few MB of plotly.js): only an interactive page needs it
        import plotly.graph_objects as go
    except ImportError as error:
        raise BackendUnavailableError(
            f"interactive pages need Plotly, which is not installed; install it with `{INSTALL_PLOTLY}` "
            "(or `pip install plotly`)"
        ) from error
    return go


def write_complex_html(
    complex_: CanonicalComplex,
    path: os.PathLike | str,
    *,
    fill: str | None = "activation",
    window: Sequence[RationalLike] | None = None,
    margin: RationalLike = "1/2",
    title: str | None = None,
    axis_labels: Sequence[str] | None = None,
    boundary: Sequence[Cell] | None = None,
) -> None:
    """Write an interactive page of a complex of a network with 2 or 3 inputs to ``path`` (self-contained HTML).

    Parameters
    ----------
    complex_ : CanonicalComplex
        Of a network with ``n0 = 2`` or ``3`` (a slice's complex for a wider one).
    path : str or os.PathLike
        A ``.html`` file, written atomically (checked before anything is drawn).
    fill : {"activation", "output", "class"} or None
        What a region's colour means, as in :func:`~polyrelu.plot.plot_complex`.
    window : sequence of numbers, optional
        ``(lo, hi)`` for every coordinate, or ``lo, hi`` per coordinate
        (4 numbers in the plane, 6 in 3-space).
    margin : number
        On ``R^n0``, how far beyond the vertices to draw, relative to their spread.
    title : str, optional
        Default: the network's name (its architecture when it has none) and the f-vector.
    axis_labels : sequence of str, optional
        The coordinates' names (default ``x1, x2[, x3]``; ``t1, t2, t3`` for a slice).
    boundary : sequence of Cell, optional
        Edges (1-cells, of any complex in the same space) drawn in black over
        the complex as the decision boundary, such as
        ``DecisionComplex.boundary().cells(1)``.

    Raises
    ------
    BackendUnavailableError
        Plotly is not installed (``pip install 'polyrelu[plot]'``).
    GeometryError
        The network has neither 2 nor 3 inputs.
    OutputPathError
        ``path`` cannot be written or does not end in ``.html``.
    UsageError
        An empty ``window``, a negative ``margin``, or a ``fill`` that does not fit.

    Notes
    -----
    One Plotly trace per region drawn (named ``cell <id>``), one for the
    edges, one for the ``boundary`` if given (named ``decision boundary``),
    and one for the colour bar (scales) or one legend entry per class
    (``fill="class"``).

    Examples
    --------
    >>> import json, os, re, tempfile
    >>> from polyrelu import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> K = canonical_complex(bent_line_network())
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     write_complex_html(K, os.path.join(tmp, "K.html"))
    ...     page = open(os.path.join(tmp, "K.html")).read()
    >>> len(re.findall(r'"name":"cell \\d+"', page)) == len(K.regions())
    True
    """
    caller = "write_complex_html"
    K = require_instance(complex_, CanonicalComplex, "complex_", caller)
    check_html_path(path)
    dim = K.network.architecture.input_dim
    if dim not in (2, 3):
        raise GeometryError(f"{caller}: interactive pages show networks with 2 or 3 inputs; this one has {dim} "
                            "(slice it first: polyrelu.slice_through or polyrelu.slices.restrict)")
    require_str(fill, "fill", caller, optional=True)
    box_asked = check_window(window, dim, caller)
    margin = to_fraction(margin, f"{caller}: margin")
    if margin < 0:
        raise UsageError(f"{caller}: margin must be >= 0, not {margin}")
    require_str(title, "title", caller, optional=True)
    names = [f"x{i + 1}" for i in range(dim)] if axis_labels is None else require_sequence(axis_labels, "axis_labels", caller)
    if len(names) != dim or not all(isinstance(s, str) for s in names):
        raise InvalidArgumentError(f"{caller}: axis_labels must be {dim} strings, one per coordinate; got {names!r}")
    if boundary is not None:
        boundary = require_sequence(boundary, "boundary", caller)
        if not all(isinstance(c, Cell) and c.dimension == 1 and len(c.relative_interior_point()) == dim for c in boundary):
            raise InvalidArgumentError(f"{caller}: boundary must be edges (1-cells) of a complex in R^{dim}, "
                                       "such as DecisionComplex.boundary().cells(1)")
    go = require_plotly()
    box = clip_box(K, margin, box_asked)
    regions = {r.id: r for r in K.regions()}
    pieces = {i: clipped_polyhedron(r, box) for i, r in regions.items()}
    drawn = {i: [tuple(v) for v in P.vertices()] for i, P in pieces.items() if P.dimension() == dim}
    scale = fill_scale(K, fill, drawn, caller) if fill is not None else None
    traces = []
    for i, vertices in drawn.items():
        colour = _css(scale.colour(i)) if scale is not None else "rgba(220, 220, 220, 1)"
        text = _hover(regions[i], centre(vertices), K, scale)
        name = f"cell {i}"
        if dim == 2:
            xs, ys = zip(*around_centre([tuple(map(float, v)) for v in vertices]))
            traces.append(go.Scatter(x=xs + xs[:1], y=ys + ys[:1], mode="lines", fill="toself", fillcolor=colour,
                                     line=dict(color=colour, width=0.5), hoveron="fills", hoverinfo="text",
                                     text=text, name=name, showlegend=False))
        else:
            xs, ys, zs, triangles = _boundary_mesh(pieces[i], vertices)
            traces.append(go.Mesh3d(x=xs, y=ys, z=zs, i=[t[0] for t in triangles], j=[t[1] for t in triangles],
                                    k=[t[2] for t in triangles], color=colour, opacity=_MESH_OPACITY,
                                    flatshading=True, hoverinfo="text", text=text, name=name, showlegend=False))
    traces.append(_edges(go, K.cells(1), box, dim))
    if boundary:
        traces.append(_edges(go, boundary, box, dim, name=DECISION_BOUNDARY, colour="rgba(0, 0, 0, 1)", width=4))
    traces += _key(go, scale, dim)
    layout = dict(title=title if title is not None else f"{network_label(K.network)}: f-vector {K.f_vector()}",
                  template="plotly_white", legend=dict(orientation="h"))
    ranges = [[float(lo), float(hi)] for lo, hi in box]
    if dim == 2:
        layout |= dict(xaxis=dict(title=names[0], range=ranges[0]),
                       yaxis=dict(title=names[1], range=ranges[1], scaleanchor="x", scaleratio=1))
    else:
        layout |= dict(scene=dict(xaxis=dict(title=names[0], range=ranges[0]), yaxis=dict(title=names[1], range=ranges[1]),
                                  zaxis=dict(title=names[2], range=ranges[2]), aspectmode="cube"))
    figure = go.Figure(data=traces, layout=layout)
    page = figure.to_html(include_plotlyjs=True, full_html=True)
    with atomic_write(path, "w") as fh:
        fh.write(page)


def _css(rgba: Sequence[float]) -> str:
    r, g, b = (round(255 * x) for x in rgba[:3])
    return f"rgba({r}, {g}, {b}, 1)"


def _hover(region: Cell, point: tuple[Fraction, ...], K: CanonicalComplex, scale: FillScale | None) -> str:
    """Cell id, sign vector, dimension, f at ``point`` inside it (exact), and what the colour says."""
    signs = "".join("+" if s > 0 else "-" if s < 0 else "0" for s in region.signs)
    lines = [
        f"cell {region.id} (dimension {region.dimension})",
        f"signs {signs}",
        f"f = {vector_text(K.network(point))} at {vector_text(point)}",
    ]
    if scale is not None:
        lines.append(scale.describe(region.id))
    return "<br>".join(lines)


def _boundary_mesh(piece, vertices):
    """The 2-faces of a 3-polytope as triangles: float coordinates and index triples into them."""
    ieqs, _ = piece.minimal_h_representation()
    xs, ys, zs = ([float(v[k]) for v in vertices] for k in range(3))
    triangles = []
    for b, *a in ieqs:
        on = [n for n, v in enumerate(vertices) if b + sum(Fraction(ai) * vi for ai, vi in zip(a, v)) == 0]
        if len(on) < 3:
            continue
        # order the face's vertices by angle in its plane, then fan out from the first
        normal = [float(ai) for ai in a]
        u = _unit(_cross(normal, [1.0, 0.0, 0.0] if abs(normal[0]) < 0.9 * math.hypot(*normal) else [0.0, 1.0, 0.0]))
        w = _cross(normal, u)
        centre = [sum(c[n] for n in on) / len(on) for c in (xs, ys, zs)]

        def angle(n, u=u, w=w, centre=centre):
            d = [xs[n] - centre[0], ys[n] - centre[1], zs[n] - centre[2]]
            return math.atan2(sum(p * q for p, q in zip(d, w)), sum(p * q for p, q in zip(d, u)))

        on.sort(key=angle)
        triangles += [(on[0], on[k], on[k + 1]) for k in range(1, len(on) - 1)]
    return xs, ys, zs, triangles


def _cross(p, q):
    return [p[1] * q[2] - p[2] * q[1], p[2] * q[0] - p[0] * q[2], p[0] * q[1] - p[1] * q[0]]


def _unit(p):
    length = math.sqrt(sum(x * x for x in p))
    return [x / length for x in p]


def _edges(go, edges, box, dim, name="edges", colour="rgba(60, 60, 60, 0.8)", width=None):
    """One trace with the edges (1-cells) clipped to the box, segments separated by gaps."""
    coordinates: list[list[float | None]] = [[] for _ in range(dim)]
    for edge in edges:
        ends = clipped_vertices(edge, box)
        if len(ends) != 2:
            continue
        for k in range(dim):
            coordinates[k] += [float(ends[0][k]), float(ends[1][k]), None]
    style = dict(mode="lines", line=dict(color=colour, width=width or (1.5 if dim == 2 else 2)), hoverinfo="skip", name=name)
    if dim == 2:
        return go.Scatter(x=coordinates[0], y=coordinates[1], **style)
    return go.Scatter3d(x=coordinates[0], y=coordinates[1], z=coordinates[2], **style)


def _key(go, scale, dim):
    """The colour bar of a scale, or one legend entry per class: traces with no data, drawn only in the key."""
    if scale is None:
        return []
    empty = dict(x=[None], y=[None]) | (dict(z=[None]) if dim == 3 else {})
    kind = go.Scatter if dim == 2 else go.Scatter3d
    if scale.cmap is not None:
        if scale.ticks is not None:  # a count: one flat step of colour per value
            n = len(scale.ticks)
            steps = [[k / n + e / n, _css(scale.cmap(k))] for k in range(n) for e in (0, 1)]
            low, high = scale.ticks[0] - 0.5, scale.ticks[-1] + 0.5
        else:
            steps = [[k / 10, _css(scale.cmap(k / 10))] for k in range(11)]
            low, high = scale.norm.vmin, scale.norm.vmax
        bar = dict(title=dict(text=scale.label), **({"tickvals": scale.ticks} if scale.ticks is not None else {}))
        return [kind(mode="markers", **empty, name="colour scale", showlegend=False, hoverinfo="skip",
                     marker=dict(colorscale=steps, cmin=low, cmax=high, color=[low], showscale=True, colorbar=bar))]
    kinds = {scale.kind(r) for r in scale.values}
    entries = [(f"class {c}", _css(scale.class_colour(c)))
               for c in scale.classes]
    entries += [(w, "rgba(255, 255, 255, 1)") for k, w in ((SPLIT, "cut by the decision boundary"), (TIE, "classes tie"))
                if k in kinds]
    return [kind(mode="markers", **empty, name=label, hoverinfo="skip",
                 marker=dict(color=colour, size=12, symbol="square", line=dict(color="gray", width=1)))
            for label, colour in entries]
