"""Pictures (matplotlib): canonical complexes in the plane, dependency graphs by layer.

In :func:`plot_complex`, regions are filled, facets drawn coloured by the
layer of the neuron that bends there and with line width growing with
``|weight|`` (dashed where the weight is zero: the neuron is invisible in
``f`` there), vertices marked. Unbounded cells are clipped to a box around
all vertices (or to the ``window`` asked for). Geometry is exact up to the
final conversion of clipped vertices to floats for drawing.

:func:`plot_dependency_graph` draws a :class:`~polyrelu.dependency.DependencyGraph`
one row per inferred layer, with the longest layer-ordered chain in black.
:func:`check_figure_path` checks a figure's path before any work and
:func:`save_figure` writes it atomically.
"""

from __future__ import annotations

import math

# matplotlib.pyplot is imported where a picture is drawn (its callers choose the backend first: Agg when they
# write a file); at module level only the Axes type of the signatures is needed
import os
from collections.abc import Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING

from .atomic import atomic_write, check_output_path
from .checks import (
    describe,
    is_sequence,
    require_axes,
    require_bool,
    require_instance,
    require_path,
    require_sequence,
    require_str,
)
from .complex import CanonicalComplex
from .dependency import DependencyGraph, depth_hierarchy
from .errors import GeometryError, InvalidArgumentError, OutputPathError, UsageError
from .geometry import Polyhedron
from .geometry.rational import RationalLike, to_fraction
from .tropical import WeightedComplex, require_weighted, tropical_weights

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_complex", "plot_dependency_graph", "check_figure_path", "save_figure"]

# the suffixes a figure may have and the matplotlib format each asks for
_FIGURE_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf", "": "png"}


def _clip_box(K, margin):
    if K.domain is not None:
        vertices = K.domain.vertices()
    else:
        vertices = [c.polyhedron.vertices()[0] for c in K.cells(0)] or [(Fraction(0), Fraction(0))]
    lo = [min(v[i] for v in vertices) for i in range(2)]
    hi = [max(v[i] for v in vertices) for i in range(2)]
    span = max(max(h - l for l, h in zip(lo, hi)), Fraction(2))
    pad = span * margin if K.domain is None else Fraction(0)
    return [(pad - lo[0], 1, 0), (pad - lo[1], 0, 1), (hi[0] + pad, -1, 0), (hi[1] + pad, 0, -1)]


def _clipped_vertices(cell, box):
    ieqs, eqns = cell.polyhedron.minimal_h_representation()
    return Polyhedron(ieqs=list(ieqs) + box, eqns=eqns, ambient_dim=2).vertices()


def plot_complex(
    complex_: CanonicalComplex,
    weights: WeightedComplex | None = None,
    ax: Axes | None = None,
    margin: RationalLike = "1/2",
    window: Sequence[RationalLike] | None = None,
    title: str | None = None,
) -> Axes:
    """Draw a canonical complex of a network with two inputs.

    Parameters
    ----------
    complex_ : CanonicalComplex
        Of a network with ``n0 = 2``.
    weights : WeightedComplex, optional
        Facet weights (computed with :func:`~polyrelu.tropical.tropical_weights` if omitted).
    ax : matplotlib Axes, optional
    margin : number
        On ``R^2``, how far beyond the vertices to draw, relative to their spread.
    window : (number, number), optional
        Draw ``[lo, hi]^2`` instead (vertices far away make the default window large).
    title : str, optional

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    GeometryError
        The network does not have two inputs.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from polyrelu import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> ax = plot_complex(canonical_complex(bent_line_network()))
    >>> len(ax.lines)           # the 9 edges of the complex, clipped to the picture, and the vertex marks
    10
    """
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    caller = "plot_complex"
    K = require_instance(complex_, CanonicalComplex, "complex_", caller)
    require_weighted(weights, K, "weights", caller, optional=True)
    require_axes(ax, "ax", caller, optional=True)
    margin = to_fraction(margin, f"{caller}: margin")
    if margin < 0:
        raise UsageError(f"{caller}: margin must be >= 0, not {margin}")
    if window is not None:
        if not is_sequence(window) or len(window := list(window)) != 2:
            raise InvalidArgumentError(f"{caller}: window must be a pair (lo, hi), got {describe(window)}")
        lo, hi = (to_fraction(v, f"{caller}: window[{i}]") for i, v in enumerate(window))
        if lo >= hi:
            raise UsageError(f"{caller}: window = ({lo}, {hi}) is empty; give lo < hi")
    require_str(title, "title", caller, optional=True)
    if K.network.architecture.input_dim != 2:
        raise GeometryError(f"plot_complex draws networks with 2 inputs; this one has {K.network.architecture.input_dim}")
    W = weights if weights is not None else tropical_weights(K)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 6))
    if window is not None:
        box = [(-lo, 1, 0), (-lo, 0, 1), (hi, -1, 0), (hi, 0, -1)]
    else:
        box = _clip_box(K, margin)
    cmap = plt.get_cmap("tab10")
    for r in K.regions():
        pts = [tuple(map(float, v)) for v in _clipped_vertices(r, box)]
        if len(pts) >= 3:
            cx, cy = sum(p[0] for p in pts) / len(pts), sum(p[1] for p in pts) / len(pts)
            pts.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
            ax.fill(*zip(*pts), color=cmap(r.id % 10), alpha=0.12, linewidth=0)
    all_w = [abs(w.euclidean_weight[0]) for w in W.weights().values()] or [1.0]
    top = max(all_w) or 1.0
    layers_seen = set()
    for f in K.cells(1):
        pts = [tuple(map(float, v)) for v in _clipped_vertices(f, box)]
        if len(pts) != 2:
            continue
        if f.id in W.weights():
            fw = W.weight(f)
            layer = fw.neurons[0][0] if fw.neurons else 0
            size = max(abs(v) for v in fw.euclidean_weight)
            style = "--" if size == 0 else "-"
            width = 0.8 + 3.2 * (1.0 if size == top else size / top)  # inf / inf for weights beyond floats
        else:  # the domain's boundary
            layer, style, width = 0, ":", 0.8
        layers_seen.add(layer)
        ax.plot(*zip(*pts), style, color="0.4" if layer == 0 else cmap(layer - 1), linewidth=width)
    inside = [c.polyhedron.vertices()[0] for c in K.cells(0)]
    inside = [v for v in inside if all(b + a0 * v[0] + a1 * v[1] >= 0 for b, a0, a1 in box)]
    xs, ys = [float(v[0]) for v in inside], [float(v[1]) for v in inside]
    if xs:
        ax.plot(xs, ys, "k.", markersize=4, linestyle="none")
    handles = [Line2D([], [], color=cmap(l - 1), label=f"layer {l}") for l in sorted(layers_seen) if l]
    handles.append(Line2D([], [], color="0.3", linestyle="--", label="weight 0 (invisible)"))
    ax.legend(handles=handles, loc="upper right", fontsize="small")
    ax.set_aspect("equal")
    ax.set_title(title or f"{K.network.architecture}: f-vector {K.f_vector()}")
    return ax


def plot_dependency_graph(
    graph: DependencyGraph, ax: Axes | None = None, highlight_chain: bool = True, title: str | None = None
) -> Axes:
    """Draw a dependency graph with one row per layer, layer 1 at the bottom.

    Vertices are labelled with their neuron ``(layer, index)`` when known, else
    with their vertex number, and coloured by layer like :func:`plot_complex`;
    incomplete candidates get a dashed outline. With ``highlight_chain`` the
    longest layer-ordered chain (:func:`~polyrelu.dependency.depth_hierarchy`)
    is drawn in black over the grey edges.

    Parameters
    ----------
    graph : DependencyGraph
    ax : matplotlib Axes, optional
    highlight_chain : bool
    title : str, optional

    Returns
    -------
    matplotlib Axes
    """
    import matplotlib.pyplot as plt

    caller = "plot_dependency_graph"
    require_instance(graph, DependencyGraph, "graph", caller)
    require_axes(ax, "ax", caller, optional=True)
    highlight_chain = require_bool(highlight_chain, "highlight_chain", caller)
    require_str(title, "title", caller, optional=True)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    g = graph.graph
    layers = graph.layers()
    rows: dict[int, list[int]] = {}  # layer -> its vertices
    for v, l in enumerate(layers):
        rows.setdefault(l, []).append(v)
    position = {}
    for l, members in rows.items():
        members.sort(key=lambda v: (g.vs[v]["neuron"] is None, g.vs[v]["neuron"] or [], v))
        for k, v in enumerate(members):
            position[v] = ((k + 1) / (len(members) + 1), l)
    chain = depth_hierarchy(graph).chain if highlight_chain and g.vcount() else ()
    chain_edges = set(zip(chain, chain[1:]))
    colors = plt.get_cmap("tab10")
    for e in g.es:
        (x0, y0), (x1, y1) = position[e.source], position[e.target]
        on_chain = (e.source, e.target) in chain_edges
        ax.annotate(
            "",
            xy=(x1, y1),
            xytext=(x0, y0),
            arrowprops=dict(arrowstyle="-|>", color="black" if on_chain else "0.6", lw=2 if on_chain else 0.8,
                            shrinkA=9, shrinkB=9),
            zorder=2 if on_chain else 1,
        )
    for v in g.vs:
        x, y = position[v.index]
        label = str(tuple(v["neuron"])) if v["neuron"] is not None else str(v.index)
        ax.scatter([x], [y], s=620, color=colors((layers[v.index] - 1) % 10), zorder=3,
                   edgecolors="black", linestyles="solid" if v["complete"] else "dashed")
        ax.annotate(label, (x, y), ha="center", va="center", fontsize=7, zorder=4)
    ax.set_yticks(sorted(rows))
    ax.set_yticklabels([f"layer {l}" for l in sorted(rows)])
    ax.set_xticks([])
    ax.set_xlim(0, 1)
    ax.set_ylim(0.5, max(rows, default=1) + 0.5)
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title)
    return ax


def check_figure_path(path: os.PathLike | str, inputs: Sequence[os.PathLike | str | None] = ()) -> str:
    """Check that a figure can be written to ``path`` and return its image format.

    The format comes from the suffix: ``.png``, ``.svg`` or ``.pdf`` (any
    case); a path without a suffix is a PNG written to exactly that path.

    Parameters
    ----------
    path : str or os.PathLike
    inputs : sequence of str or os.PathLike
        Files the caller reads: the figure must not overwrite one of them.

    Returns
    -------
    str
        ``"png"``, ``"svg"`` or ``"pdf"``.

    Raises
    ------
    OutputPathError
        Another suffix, or a path :func:`~polyrelu.atomic.check_output_path` refuses.

    Examples
    --------
    >>> check_figure_path("complex.SVG"), check_figure_path("complex")
    ('svg', 'png')
    >>> check_figure_path("complex.jpg")
    Traceback (most recent call last):
    ...
    polyrelu.errors.OutputPathError: complex.jpg: a figure is written as .png, .svg or .pdf (or PNG with no suffix), not '.jpg'; rename the file
    """
    require_path(path, "path", "check_figure_path")
    for source in require_sequence(inputs, "inputs", "check_figure_path"):
        if source is not None:
            require_path(source, "inputs", "check_figure_path")
    suffix = Path(path).suffix.lower()
    if suffix not in _FIGURE_FORMATS:
        raise OutputPathError(
            f"{path}: a figure is written as .png, .svg or .pdf (or PNG with no suffix), not {suffix!r}; rename the file"
        )
    check_output_path(path, inputs=inputs)
    return _FIGURE_FORMATS[suffix]


def save_figure(ax: Axes, path: os.PathLike | str) -> None:
    """Write the figure of ``ax`` to ``path`` and close it.

    The format is the one :func:`check_figure_path` reads off the suffix (PNG
    when there is none), and the file is written atomically
    (:func:`~polyrelu.atomic.atomic_write`): after any failure the previous
    file at ``path`` is still there, unchanged.

    Raises
    ------
    OutputPathError
        See :func:`check_figure_path`.
    """
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    require_axes(ax, "ax", "save_figure")
    # the whole figure, also when ax lies in a subfigure (whose .figure is that subfigure)
    figure = ax.figure if isinstance(ax.figure, Figure) else ax.figure.figure
    try:
        image_format = check_figure_path(path)
        with atomic_write(path, "wb") as fh:
            figure.savefig(fh, format=image_format, dpi=120, bbox_inches="tight")
    finally:
        plt.close(figure)
