"""``polyrelu slice NET --through FILE``: the exact complex through 2 to 4 data points (:mod:`polyrelu.slices`)."""

from __future__ import annotations

import os

from ..errors import (
    GeometryError,
    InvalidNumberError,
    LimitExceededError,
    ShapeError,
    UsageError,
)
from ..geometry.rational import parse_number
from ..io import read_points
from ..plot import plot_complex, save_figure, write_complex_html
from ..slices import DEFAULT_MARGIN, MAX_SLICE_DIMENSION, slice_through
from ..text import number_text
from .builtins import load
from .drawing import check_drawing, drawing

__all__ = ["slice_command", "slice_margin", "slice_of", "print_slice"]


def slice_command(args):
    """Run ``polyrelu slice``: summary on stdout, ``-o`` the slice and its complex as JSON, ``--plot`` a 2-D slice."""
    net = load(args.network, trust_pickle=args.trust_pickle)
    H = net.architecture.num_hidden
    S = slice_of(net, args)
    k = S.dimension
    if (args.plot or args.window) and k != 2:
        option = "--plot" if args.plot else "--window"
        raise UsageError(
            f"{option} draws 2-D slices, through 3 points; {args.through} has {k + 1} "
            f"(a {k}-dimensional slice): leave out {option} or give 3 points"
        )
    if args.html and k not in (2, 3):
        raise UsageError(
            f"--html shows 2-D and 3-D slices, through 3 or 4 points; {args.through} has {k + 1} "
            f"(a {k}-dimensional slice): leave out --html or give 3 or 4 points"
        )
    check_drawing(args, k, net.architecture.output_dim)
    print(f"network             {args.network}  ({net.architecture})")
    print_slice(S, args)
    K = S.complex(max_cells=args.max_cells, progress=None)
    regions = K.regions()
    active = [sum(1 for v in r.signs if v > 0) for r in regions]
    print(f"f-vector            {K.f_vector()}  ({len(K)} cells, {len(regions)} regions)")
    print(f"Euler char.         {K.euler_characteristic()}  (expected 1)")
    print(f"active neurons      {min(active)} to {max(active)} of {H} per region")
    for i, p in enumerate(S.points):
        cell = K.locate(p)
        where = "a region" if cell.dimension == k else f"a {cell.dimension}-dimensional cell"
        print(f"point {i}             in {where} (cell {cell.id}), {sum(1 for v in cell.signs if v > 0)} of {H} neurons active")
    if args.output:
        S.write_json(args.output, K, complex_version=args.format_version)
        print(f"written             {args.output}")
    name, window, fill = drawing(args, net)
    title = f"{name}: slice through {os.path.basename(args.through)}"
    coordinates = [f"t{i + 1}" for i in range(k)]
    if args.plot:
        _plot_slice(S, K, args.plot, title, window, fill)
        print(f"written             {args.plot}")
    if args.html:
        write_complex_html(K, args.html, window=window, fill=fill, title=title, axis_labels=coordinates)
        print(f"written             {args.html}")


def slice_of(net, args):
    """The slice of ``net`` through the points of ``args.through`` with ``args.margin``; errors name the file."""
    points = read_points(args.through, width=net.architecture.input_dim, max_rows=MAX_SLICE_DIMENSION + 1)
    try:
        return slice_through(net, points, margin=_margin(args))
    except (ShapeError, GeometryError) as exc:  # about the points: say which file they came from
        raise type(exc)(f"{args.through}: {exc}") from None


def print_slice(S, args):
    """The lines that say which slice a command works on: its points and its box (flushed: work follows)."""
    k = S.dimension
    placed = "the second at 1" if k == 1 else "the others at the unit vectors"
    print(f"points              {k + 1} from {args.through}: a {k}-dimensional slice, the first point at the origin, {placed}")
    print(f"domain              [{number_text(S.domain.lower)}, {number_text(S.domain.upper)}]^{k} in slice coordinates "
          f"(margin {number_text(_margin(args))})", flush=True)


def _margin(args):
    """``--margin``, or the default margin when the command's parser leaves it None."""
    return DEFAULT_MARGIN if args.margin is None else slice_margin(args.margin)


def slice_margin(text):
    """``--margin`` as an exact number ``>= 0`` (a :class:`~polyrelu.errors.UsageError` otherwise)."""
    try:
        margin = parse_number(text, f"--margin {text!r}")
    except (InvalidNumberError, LimitExceededError) as exc:
        raise UsageError(f"{exc}; the margin is a number such as 1/4 or 0.5") from None
    if margin < 0:
        raise UsageError(f"--margin {text!r}: must be >= 0 (a fraction of the points' extent)")
    return margin


def _plot_slice(S, K, path, title, window, fill):
    """Draw the complex of a 2-D slice with its data points marked, into ``path``."""
    # matplotlib is loaded only when a picture is drawn (half a second), with a backend that needs no display
    import matplotlib

    matplotlib.use("Agg")
    ax = plot_complex(K, title=title, window=window, fill=fill, axis_labels=("t1", "t2"))
    xs, ys = ([float(p[i]) for p in S.points] for i in range(2))
    # red stars with a white rim and boxed labels: visible over thousands of cells
    ax.plot(xs, ys, marker="*", color="red", markeredgecolor="white", markersize=18, linestyle="none", zorder=6)
    for i, (x, y) in enumerate(zip(xs, ys)):
        ax.annotate(f"p{i}", (x, y), textcoords="offset points", xytext=(8, 8), zorder=6,
                    bbox=dict(boxstyle="round,pad=0.2", facecolor="white", edgecolor="red"))
    save_figure(ax, path)
