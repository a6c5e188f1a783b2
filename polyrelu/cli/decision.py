"""``polyrelu decision NET``: where a classifier decides what, exactly, and the topology of it (:mod:`polyrelu.topology`).

For a network with ``m >= 2`` outputs, the decision complex
(:func:`~polyrelu.topology.decision_complex`) on ``R^n0``, on a ``--domain``
box or on the slice ``--through`` 2 to 4 data points: the class regions with
their cells, the boundary cells with the classes tied on them, and the exact
homology of every class region and of the boundary (Betti numbers over ``Z``
and ``GF(2)``, torsion). For a network with one output, ``--level C`` gives
the level set ``f = C`` and the sublevel and superlevel sets
(:func:`~polyrelu.topology.level_sets`) with their homology.

``-o`` writes the decision complex (``"polyrelu.decision_complex"``; with
``--level`` the complex of the network extended by ``f - C``),
``--homology`` the homology (``"polyrelu.homology"``); both have a schema
(:func:`polyrelu.validate`).

For a classifier on the plane (2 inputs, or the slice through 3 points),
``--plot FILE`` draws the decision regions: the network's complex
(:func:`~polyrelu.plot.plot_complex`: facets by layer and weight, vertices)
with every cell of the decision complex filled by the class maximal on it
(``--fill class``, the default; exact, from the cell's labels) and the
decision boundary drawn over it in black; the legend lists the classes drawn
and nothing else. ``--html FILE`` writes the network's complex as an
interactive page (:func:`~polyrelu.plot.write_complex_html`), regions by
class, those the boundary cuts marked so. ``--window`` zooms either.
"""

from __future__ import annotations

import os
from fractions import Fraction

from ..atomic import check_output_path, write_json
from ..complex import canonical_complex
from ..errors import InvalidNumberError, LimitExceededError, UsageError
from ..geometry.rational import parse_number
from ..plot import plot_complex, save_figure, write_complex_html
from ..plot.regions import (
    DECISION_BOUNDARY,
    FillScale,
    around_centre,
    clip_box,
    clipped_vertices,
)
from ..text import columns, number_text
from ..topology import decision_complex, homology_document, level_sets
from .drawing import check_drawing, drawing
from .ending import written
from .slicing import print_slice, slice_of

__all__ = ["decision_command", "check_decision_arguments", "decision_level", "plot_decision"]

# the legend's words for what the decision figure draws over the network's complex
CLASSES_TIE = "classes tie"


def decision_command(args, net, domain):
    """Run ``polyrelu decision`` on ``net`` (loaded) and ``domain`` (``--domain``, None without it)."""
    m = net.architecture.output_dim
    level = decision_level(args.level)
    if level is None and m < 2:
        raise UsageError(f"{args.network} has one output, so there are no classes to decide: add --level C for its "
                         "level set f = C and its sublevel and superlevel sets (e.g. --level 0)")
    if level is not None and m >= 2:
        raise UsageError(f"--level is for a network with one output; {args.network} has {m} (a classifier): leave out "
                         "--level for its decision complex")
    drawn = args.plot or args.html
    if drawn and level is not None:
        raise UsageError("--plot and --html draw the decision regions of a classifier; for the level sets of a network "
                         "with one output leave them out (polyrelu complex NET --plot FILE --fill output draws f)")
    S = slice_of(net, args) if args.through else None
    if drawn:
        dim = S.dimension if S is not None else net.architecture.input_dim
        if dim != 2:
            where = f"the slice through {args.through} has {dim}" if S is not None else f"{args.network} has {dim} inputs"
            raise UsageError(f"--plot and --html draw decision regions in the plane; {where}: give a network with 2 "
                             "inputs, or --through a file of 3 points")
        check_drawing(args, dim, m)
    print(f"network             {args.network}  ({net.architecture})")
    name, window, fill = drawing(args, net)
    if S is not None:
        print_slice(S, args)
        net, domain = S.network, S.domain
    else:
        print(f"domain              {args.domain or f'R^{net.architecture.input_dim}'}", flush=True)
    if level is None:
        parts, complex_ = _classes(net, domain, args)
    else:
        parts, complex_ = _levels(net, domain, level, args)
    if args.output:
        if level is None:
            complex_.write_json(args.output, complex_version=args.format_version)
        else:  # the complex cut by f = C is a complex document itself
            complex_.write_json(args.output, version=args.format_version)
        written(args.output)
    if args.homology:
        write_json(args.homology, lambda: homology_document(parts))
        written(args.homology)
    if drawn:
        title = f"{name}: decision regions" + (f" on the slice through {os.path.basename(args.through)}" if S else "")
        labels = ("t1", "t2") if S is not None else ("x1", "x2")
        # the network's own complex: its facets, weights and vertices are what the figure draws under the classes
        K = canonical_complex(net, domain, max_cells=args.max_cells)
        if args.plot:
            import matplotlib  # only to draw: `import polyrelu` stays fast

            matplotlib.use("Agg")
            save_figure(plot_decision(complex_, K, window=window, title=title, fill=fill, axis_labels=labels), args.plot)
            written(args.plot)
        if args.html:
            write_complex_html(K, args.html, window=window, title=title, fill=fill, axis_labels=labels,
                               boundary=complex_.boundary().cells(1))
            written(args.html)


def plot_decision(D, K, window=None, title=None, fill="class", axis_labels=("x1", "x2")):
    """The figure of a decision complex ``D`` in the plane, over ``K``, the canonical complex of its classifier.

    ``K`` is drawn by :func:`~polyrelu.plot.plot_complex` (facets by layer
    and weight, vertices; with ``fill`` other than ``"class"``, its regions
    filled so); with ``fill="class"`` every region of ``D`` is filled in its
    class's colour (white, dotted, where classes tie on a whole region),
    read off its labels: exact, and finer than ``K``'s regions, which the
    boundary cuts. The decision boundary (the edges where two or more classes
    are maximal) is drawn in black. The legend lists the classes drawn, the
    boundary if drawn, then ``K``'s entries.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from polyrelu import ReLUNetwork, canonical_complex
    >>> from polyrelu.topology import decision_complex
    >>> net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 0], [0, 1], [0, 0]]], [[0, 0], [0, 0, 1]])
    >>> ax = plot_decision(decision_complex(net), canonical_complex(net))
    >>> [t.get_text() for t in ax.get_legend().get_texts()]
    ['class 0', 'class 1', 'class 2', 'decision boundary', 'layer 1', 'vertices']
    """
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    x0, x1, y0, y1 = window if window is not None else [b for pair in clip_box(D.complex, Fraction(1, 2), None) for b in pair]
    box = [(Fraction(x0), Fraction(x1)), (Fraction(y0), Fraction(y1))]
    # the box of D: it holds K's vertices and those where the boundary crosses K's facets
    ax = plot_complex(K, window=(x0, x1, y0, y1), title=title, fill=None if fill == "class" else fill,
                      axis_labels=axis_labels)
    handles = []
    if fill == "class":
        scale = FillScale("class", {}, "class (argmax of f)")
        pieces = {}
        for region in D.complex.regions():
            if len(vertices := clipped_vertices(region, box)) >= 3:
                pieces.setdefault(tuple(sorted(D.label(region))), []).append(
                    around_centre([tuple(map(float, v)) for v in vertices]))
        for classes, polygons in sorted(pieces.items()):
            colour = scale.class_colour(classes[0]) if len(classes) == 1 else "white"
            # opaque and outlined in their own colour: translucent neighbours would leave seams along shared edges
            ax.add_collection(PolyCollection(polygons, facecolors=colour, edgecolors=colour if len(classes) == 1
                                             else "0.5", hatch=None if len(classes) == 1 else "..", linewidths=0.5,
                                             zorder=0))
        handles += [Patch(color=scale.class_colour(c[0]), label=f"class {c[0]}") for c in sorted(pieces) if len(c) == 1]
        if any(len(c) > 1 for c in pieces):
            handles.append(Patch(facecolor="white", edgecolor="0.5", hatch="..", label=CLASSES_TIE))
    edges = [[tuple(map(float, v)) for v in ends] for cell in D.boundary().cells(1)
             if len(ends := clipped_vertices(cell, box)) == 2]
    if edges:
        ax.add_collection(LineCollection(edges, colors="black", linewidths=2.5, zorder=3))
        handles.append(Line2D([], [], color="black", linewidth=2.5, label=DECISION_BOUNDARY))
    legend = ax.get_legend()
    handles += legend.legend_handles if legend is not None else []
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=3, fontsize="small", frameon=False)
    return ax


def _classes(net, domain, args):
    """Print the class regions, the boundary and their homology; the named subcomplexes and the decision complex."""
    D = decision_complex(net, domain, max_cells=args.max_cells)
    K = D.complex
    print(f"decision complex    f-vector {K.f_vector()}  ({len(K)} cells, {len(K.regions())} regions; "
          f"{D.classes} classes, {len(D.pairs)} tie neuron{'s' if len(D.pairs) > 1 else ''} f_i - f_j)\n")
    regions = [D.class_region(c) for c in range(D.classes)]
    rows = [("class", "regions", "cells", "f-vector", *_HOMOLOGY_HEADER)]
    for c, X in enumerate(regions):
        rows.append((c, sum(1 for r in K.regions() if c in D.label(r)), len(X), X.f_vector(), *_homology_columns(X)))
    print("class regions (closed: each with its boundary cells)")
    _print(rows)
    tied = {}
    for cell in K:
        if len(D.label(cell)) >= 2:
            tied.setdefault(tuple(sorted(D.label(cell))), []).append(cell)
    boundary = D.boundary()
    print("\ndecision boundary: cells where two or more classes are maximal, by the classes tied on them")
    if not tied:
        print("  none: one class is maximal everywhere" if len(K.regions()) else "  none")
    else:
        rows = [("classes", "cells", "by dimension")]
        for classes, cells in sorted(tied.items()):
            counts = [0] * (K.network.architecture.input_dim + 1)
            for cell in cells:
                counts[cell.dimension] += 1
            rows.append(("|".join(map(str, classes)), len(cells), tuple(counts)))
        _print(rows)
    pairs = sorted({pair for classes in tied for pair in _pairs(classes)})
    parts = {f"class {c}": X for c, X in enumerate(regions)}
    parts["boundary"] = boundary
    parts.update({f"boundary {a}|{b}": D.boundary(a, b) for a, b in pairs})
    print("\nhomology of the boundary, and of the boundary between each two classes")
    rows = [("boundary", "cells", "f-vector", *_HOMOLOGY_HEADER)]
    for name, X in list(parts.items())[D.classes:]:
        rows.append((name.removeprefix("boundary ") if name != "boundary" else "all", len(X), X.f_vector(), *_homology_columns(X)))
    _print(rows)
    return parts, D


def _levels(net, domain, level, args):
    """Print the level, sublevel and superlevel sets and their homology; the named subcomplexes and their complex."""
    L = level_sets(net, level, domain, max_cells=args.max_cells)
    K = L.complex
    c = number_text(level)
    print(f"complex             f-vector {K.f_vector()}  ({len(K)} cells, {len(K.regions())} regions; the network's "
          f"complex cut by f = {c})\n")
    parts = {f"level set f = {c}": L.level, f"sublevel set f <= {c}": L.sublevel, f"superlevel set f >= {c}": L.superlevel}
    rows = [("set", "cells", "f-vector", *_HOMOLOGY_HEADER)]
    rows += [(name, len(X), X.f_vector(), *_homology_columns(X)) for name, X in parts.items()]
    _print(rows)
    return parts, K


_HOMOLOGY_HEADER = ("Betti (Z)", "torsion", "Betti GF(2)")


def _homology_columns(X):
    """Betti numbers over Z, the torsion (``-`` if none), Betti numbers over GF(2)."""
    H = X.homology()
    torsion = ", ".join(f"H_{k}: " + " + ".join(f"Z/{t}" for t in ts) for k, ts in enumerate(H.torsion) if ts) or "-"
    return H.betti, torsion, X.betti_numbers(field=2)


def _pairs(classes):
    """The pairs ``(a, b)``, ``a < b``, of sorted classes."""
    return [(a, b) for i, a in enumerate(classes) for b in classes[i + 1:]]


def _print(rows):
    """The table indented under its title, the counts of cells and regions aligned to the right."""
    for line in columns(rows, right=[k for k, name in enumerate(rows[0]) if name in ("regions", "cells")]):
        print("  " + line)


def decision_level(text):
    """``--level`` as an exact number (None without it); a :class:`~polyrelu.errors.UsageError` if it is not one."""
    if text is None:
        return None
    try:
        return parse_number(text, f"--level {text!r}")
    except (InvalidNumberError, LimitExceededError) as exc:
        raise UsageError(f"{exc}; the level is a number such as 0, 1/2 or -0.25") from None


def check_decision_arguments(args, inputs):
    """``--margin`` only with ``--through``; ``--level`` a number; ``--homology`` a writable .json other than ``-o``."""
    if args.margin is not None and not args.through:
        raise UsageError("--margin sets the box of a slice: add --through FILE, or leave out --margin")
    decision_level(args.level)
    if args.homology is not None:
        check_output_path(args.homology, suffixes=(".json",), inputs=inputs)
        if args.output is not None and os.path.abspath(args.output) == os.path.abspath(args.homology):
            raise UsageError(f"-o and --homology both name {args.homology}: give two different files")
