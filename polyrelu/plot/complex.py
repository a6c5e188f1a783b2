"""The figure of a canonical complex in the plane (matplotlib).

:func:`plot_complex` fills the regions by what the caller asks
(:data:`~polyrelu.plot.regions.FILLS`: active-neuron count, output value or
class, with a colour bar or a legend that says so), draws the facets
coloured by the layer of the neuron that bends there with line width growing
with ``|weight|`` (dashed where the weight is zero: the neuron is invisible
in ``f`` there), and marks the vertices. Unbounded cells are clipped to a box
around all vertices, or to the ``window`` asked for. Geometry is exact up to
the final conversion of clipped vertices to floats for drawing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..checks import require_axes, require_instance, require_sequence, require_str
from ..complex import CanonicalComplex
from ..errors import GeometryError, InvalidArgumentError, UsageError
from ..geometry.rational import RationalLike, to_fraction
from ..tropical import WeightedComplex, require_weighted, tropical_weights
from .regions import (
    SPLIT,
    TIE,
    around_centre,
    check_window,
    clip_box,
    clipped_vertices,
    fill_scale,
    network_label,
)

# matplotlib.pyplot is imported where a picture is drawn (its callers choose the backend first: Agg when they
# write a file); at module level only the Axes type of the signatures is needed
if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_complex"]

# the legend's words for what is drawn besides the layers' facets
WEIGHT_ZERO, DOMAIN_BOUNDARY, VERTICES = "weight 0 (invisible in f)", "boundary of the domain", "vertices"


def plot_complex(
    complex_: CanonicalComplex,
    weights: WeightedComplex | None = None,
    ax: Axes | None = None,
    margin: RationalLike = "1/2",
    window: Sequence[RationalLike] | None = None,
    title: str | None = None,
    *,
    fill: str | None = "activation",
    axis_labels: Sequence[str] = ("x1", "x2"),
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
    window : sequence of 4 numbers ``(xmin, xmax, ymin, ymax)``, or ``(lo, hi)``, optional
        Draw this rectangle (``(lo, hi)``: the square ``[lo, hi]^2``) instead
        of the domain or the box around the vertices; the axes show exactly it.
    title : str, optional
        Default: the network's name (its architecture when it has none) and the f-vector.
    fill : {"activation", "output", "class"} or None
        What a region's colour means: its number of active neurons, ``f`` at
        the centre of its drawn part (one output), or the class maximal on it (several
        outputs; white and hatched where the decision boundary cuts the
        region); a colour bar or a legend says which. None: regions unfilled.
    axis_labels : pair of str
        The coordinates' names (``("t1", "t2")`` for a slice).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    GeometryError
        The network does not have two inputs.
    UsageError
        An empty or inverted ``window``, a negative ``margin``, an unknown
        ``fill``, or a fill the network's outputs do not fit.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from polyrelu import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> ax = plot_complex(canonical_complex(bent_line_network()))
    >>> len(ax.lines)           # the 9 edges of the complex, clipped to the picture, and the vertex marks
    10
    >>> ax.get_xlabel(), ax.figure.axes[1].get_ylabel()     # the colour bar says what the fill means
    ('x1', 'active neurons (of 3)')
    >>> sorted(t.get_text() for t in ax.get_legend().get_texts())
    ['layer 1', 'layer 2', 'vertices', 'weight 0 (invisible in f)']
    """
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    caller = "plot_complex"
    K = require_instance(complex_, CanonicalComplex, "complex_", caller)
    require_weighted(weights, K, "weights", caller, optional=True)
    require_axes(ax, "ax", caller, optional=True)
    margin = to_fraction(margin, f"{caller}: margin")
    if margin < 0:
        raise UsageError(f"{caller}: margin must be >= 0, not {margin}")
    box_asked = check_window(window, 2, caller)
    require_str(title, "title", caller, optional=True)
    require_str(fill, "fill", caller, optional=True)
    labels = require_sequence(axis_labels, "axis_labels", caller)
    if len(labels) != 2 or not all(isinstance(s, str) for s in labels):
        raise InvalidArgumentError(f"{caller}: axis_labels must be two strings, such as ('x1', 'x2'); got {labels!r}")
    if K.network.architecture.input_dim != 2:
        raise GeometryError(f"plot_complex draws networks with 2 inputs; this one has {K.network.architecture.input_dim}")
    W = weights if weights is not None else tropical_weights(K)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 6))
    box = clip_box(K, margin, box_asked)
    drawn = {r.id: vs for r in K.regions() if len(vs := clipped_vertices(r, box)) >= 3}
    handles: list = []
    if fill is not None:
        scale = fill_scale(K, fill, drawn, caller)
        polygons, colours = [], []
        hatched: dict[str, list[list[tuple[float, ...]]]] = {}
        for region, vertices in drawn.items():
            polygon = around_centre([tuple(map(float, v)) for v in vertices])
            if scale.kind(region) in (TIE, SPLIT):
                hatched.setdefault(scale.kind(region), []).append(polygon)
            else:
                polygons.append(polygon)
                colours.append(scale.colour(region))
        # opaque and outlined in their own colour: translucent neighbours would leave seams along shared edges
        ax.add_collection(PolyCollection(polygons, facecolors=colours, edgecolors=colours, linewidths=0.5, zorder=0))
        for kind, group in hatched.items():
            ax.add_collection(PolyCollection(group, facecolors="white", edgecolors="0.5", hatch="//" if kind == SPLIT
                                             else "..", linewidths=0, zorder=0))
        if scale.cmap is not None:
            from matplotlib.cm import ScalarMappable

            bar = ax.figure.colorbar(ScalarMappable(scale.norm, scale.cmap), ax=ax, shrink=0.8, pad=0.03)
            bar.set_label(scale.label)
            if scale.ticks is not None:
                bar.set_ticks(scale.ticks)
        else:
            handles += [Patch(color=scale.class_colour(c), label=f"class {c}") for c in scale.classes]
            words = {SPLIT: ("//", "cut by the decision boundary"), TIE: ("..", "classes tie")}
            handles += [Patch(facecolor="white", edgecolor="0.5", hatch=words[k][0], label=words[k][1]) for k in hatched]
    _draw_facets(ax, K, W, box, handles)
    inside = [c.polyhedron.vertices()[0] for c in K.cells(0)]
    inside = [v for v in inside if all(lo <= x <= hi for x, (lo, hi) in zip(v, box))]
    if inside:
        ax.plot([float(v[0]) for v in inside], [float(v[1]) for v in inside], "k.", markersize=4, linestyle="none")
        handles.append(Line2D([], [], color="black", marker=".", linestyle="none", label=VERTICES))
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, fontsize="small",
                  frameon=False)
    ax.set_xlim(float(box[0][0]), float(box[0][1]))
    ax.set_ylim(float(box[1][0]), float(box[1][1]))
    ax.set_aspect("equal")
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title if title is not None else f"{network_label(K.network)}: f-vector {K.f_vector()}")
    return ax


def _draw_facets(ax, K, W, box, handles):
    """The edges, coloured by the layer of their neuron, wider for larger ``|weight|``; legend entries for what is drawn."""
    import matplotlib
    from matplotlib.lines import Line2D

    cmap = matplotlib.colormaps["tab10"]
    all_w = [abs(w.euclidean_weight[0]) for w in W.weights().values()] or [1.0]
    top = max(all_w) or 1.0
    layers_seen, zero_seen, boundary_seen = set(), False, False
    for f in K.cells(1):
        pts = [tuple(map(float, v)) for v in clipped_vertices(f, box)]
        if len(pts) != 2:
            continue
        if f.id in W.weights():
            fw = W.weight(f)
            layer = fw.neurons[0][0] if fw.neurons else 0
            size = max(abs(v) for v in fw.euclidean_weight)
            style = "--" if size == 0 else "-"
            zero_seen |= size == 0
            width = 0.8 + 3.2 * (1.0 if size == top else size / top)  # inf / inf for weights beyond floats
        else:  # the domain's boundary
            layer, style, width = 0, ":", 0.8
            boundary_seen = True
        if layer:
            layers_seen.add(layer)
        ax.plot(*zip(*pts), style, color="0.4" if layer == 0 else cmap((layer - 1) % 10), linewidth=width)
    handles += [Line2D([], [], color=cmap((l - 1) % 10), label=f"layer {l}") for l in sorted(layers_seen)]
    if zero_seen:
        handles.append(Line2D([], [], color="0.3", linestyle="--", label=WEIGHT_ZERO))
    if boundary_seen:
        handles.append(Line2D([], [], color="0.4", linestyle=":", label=DOMAIN_BOUNDARY))
