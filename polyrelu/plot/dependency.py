"""The figure of a dependency graph (matplotlib): one column per layer, labels that never overlap.

:func:`plot_dependency_graph` places layer ``l`` in column ``l``, its vertices
spread evenly down the column, each drawn as its label in a box coloured by
layer. The font follows the room each label has (the column's spacing and
the height per vertex of the tallest column), and a figure made here is
sized so that this room is comfortable: wide layers make a tall figure, not
overlapping labels. Edges are thin and light; the longest layer-ordered
chain is drawn black over them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..checks import require_axes, require_bool, require_instance, require_str
from ..dependency import DependencyGraph, depth_hierarchy

# matplotlib.pyplot is imported where a picture is drawn (its callers choose the backend first)
if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_dependency_graph"]

# inches per vertex down a column and per column across, in a figure made here
_ROW_INCHES, _COLUMN_INCHES = 0.3, 1.4
# the largest font (points), and the share of a row's height a label may fill
_LARGEST_FONT, _ROW_SHARE = 8.0, 0.5
# a character's width, and a label box's padding on each side, in units of the font size
_CHARACTER_WIDTH, _PADDING = 0.62, 0.3
CHAIN, INCOMPLETE = "longest layer-ordered chain", "incomplete candidate (dashed)"


def _label(vertex: Any) -> str:
    return "({}, {})".format(*vertex["neuron"]) if vertex["neuron"] is not None else f"v{vertex.index}"


def plot_dependency_graph(
    graph: DependencyGraph, ax: Axes | None = None, highlight_chain: bool = True, title: str | None = None
) -> Axes:
    """Draw a dependency graph with one column per layer, layer 1 on the left.

    Vertices are labelled with their neuron ``(layer, index)`` when known, else
    ``v`` and their vertex number, in a box coloured by layer (the colours of
    :func:`~polyrelu.plot.plot_complex`); incomplete candidates get a dashed
    box. With ``highlight_chain`` the longest layer-ordered chain
    (:func:`~polyrelu.dependency.depth_hierarchy`) is drawn in black over the
    light grey edges.

    The labels' font follows the room they have, so that no two labels
    overlap; without ``ax`` the figure is made tall enough for the widest
    layer (about 0.3 inch per vertex) and wide enough for the layers.

    Parameters
    ----------
    graph : DependencyGraph
    ax : matplotlib Axes, optional
    highlight_chain : bool
    title : str, optional

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from polyrelu import canonical_complex, parameter_dependency_graph
    >>> from polyrelu.examples import generic_network
    >>> ax = plot_dependency_graph(parameter_dependency_graph(generic_network((2, 3, 2, 1), seed=1)))
    >>> sorted(t.get_text() for t in ax.texts)
    ['(1, 0)', '(1, 1)', '(1, 2)', '(2, 0)', '(2, 1)']
    >>> ax.get_xlabel()
    'layer'
    """
    import matplotlib
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    caller = "plot_dependency_graph"
    require_instance(graph, DependencyGraph, "graph", caller)
    require_axes(ax, "ax", caller, optional=True)
    highlight_chain = require_bool(highlight_chain, "highlight_chain", caller)
    require_str(title, "title", caller, optional=True)
    g = graph.graph
    layers = graph.layers()
    columns: dict[int, list[int]] = {}  # layer -> its vertices
    for v, l in enumerate(layers):
        columns.setdefault(l, []).append(v)
    tallest = max((len(m) for m in columns.values()), default=1)
    count = max(columns, default=1)
    if ax is None:
        _, ax = plt.subplots(figsize=(max(4.0, _COLUMN_INCHES * count + 1.5), max(3.0, _ROW_INCHES * tallest + 1.5)))
    position = {}
    for l, members in columns.items():
        members.sort(key=lambda v: (g.vs[v]["neuron"] is None, g.vs[v]["neuron"] or [], v))
        for k, v in enumerate(members):  # top to bottom, centred on the tallest column
            position[v] = (l, (tallest - 1) / 2 - k + (len(members) - 1) / 2)
    labels = {v.index: _label(v) for v in g.vs}
    size = _font_size(ax, count, tallest, max(map(len, labels.values()), default=1))
    chain = depth_hierarchy(graph).chain if highlight_chain and g.vcount() else ()
    chain_edges = set(zip(chain, chain[1:]))
    # many edges between wide layers: thin and light, so that the labels stay readable over them
    light = 0.15 if g.ecount() > 200 else 0.35
    for e in g.es:
        on_chain = (e.source, e.target) in chain_edges
        (x0, y0), (x1, y1) = position[e.source], position[e.target]
        ax.plot([x0, x1], [y0, y1], color="black" if on_chain else "0.5", alpha=1.0 if on_chain else light,
                linewidth=1.8 if on_chain else 0.6, zorder=2 if on_chain else 1)
    colours = matplotlib.colormaps["tab10"]
    incomplete = False
    for v in g.vs:
        x, y = position[v.index]
        incomplete |= not v["complete"]
        ax.text(x, y, labels[v.index], ha="center", va="center", fontsize=size, zorder=3,
                bbox=dict(boxstyle=f"round,pad={_PADDING}", facecolor=colours((layers[v.index] - 1) % 10),
                          alpha=0.9, edgecolor="black", linewidth=0.6, linestyle="solid" if v["complete"] else "dashed"))
    handles = [Line2D([], [], color="0.5", linewidth=0.6, label="B' → B: B bends along B'")] if g.ecount() else []
    if chain_edges:
        handles.append(Line2D([], [], color="black", linewidth=1.8, label=CHAIN))
    if incomplete:
        handles.append(Line2D([], [], color="black", linestyle="--", linewidth=0.6, label=INCOMPLETE))
    if handles:
        ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.08), ncol=3, fontsize="small",
                  frameon=False)
    ax.set_xticks(sorted(columns))
    ax.set_xticklabels([str(l) for l in sorted(columns)])
    ax.set_yticks([])
    ax.set_xlim(0.5, count + 0.5)
    ax.set_ylim(-0.7, tallest - 0.3)
    kind = g["kind"] if "kind" in g.attributes() else "breakpoint"
    ax.set_xlabel("layer" if kind == "parameter" else "inferred layer")
    ax.set_ylabel("neurons" if kind == "parameter" else "candidate hypersurfaces")
    for side in ("top", "right", "left"):
        ax.spines[side].set_visible(False)
    if title:
        ax.set_title(title)
    return ax


def _font_size(ax: Axes, columns: int, rows: int, characters: int) -> float:
    """The largest font (at most 8 pt) whose labels fit their row and their column in ``ax``."""
    points = 72 / ax.figure.dpi  # per pixel of the axes' box
    row_points = points * ax.bbox.height / max(rows, 1)
    column_points = points * ax.bbox.width / max(columns, 1)
    # a label is about (0.62 * characters + 2 * padding) font sizes wide and 1 + 2 * padding high
    by_width = 0.8 * column_points / (_CHARACTER_WIDTH * characters + 2 * _PADDING)
    by_height = _ROW_SHARE * row_points / (1 + 2 * _PADDING)
    return max(1.0, min(_LARGEST_FONT, by_width, by_height))
