"""The drawing options of the commands that draw a complex: ``--plot``, ``--html``, ``--window``, ``--fill``.

:func:`add_plot` registers them, :func:`parse_window` and
:func:`check_drawing` refuse a bad window or a drawing that cannot be made
before any work, and :func:`drawing` turns them into the keywords
of :func:`~polyrelu.plot.plot_complex` and :func:`~polyrelu.plot.write_complex_html`.
"""

import os

from ..errors import InvalidNumberError, LimitExceededError, UsageError
from ..geometry.rational import parse_number
from ..plot import FILLS

__all__ = ["add_plot", "drawing", "parse_window", "check_drawing"]


def add_plot(parser, what, html=None, fill="activation"):
    """``--plot FILE``; for a drawing of a complex (``html``: what the page shows) also ``--html``, ``--window``, ``--fill``.

    ``fill`` is the default of ``--fill`` (``"class"`` for a figure of decision regions).
    """
    parser.add_argument("--plot", metavar="FILE",
                        help=f"draw {what} to FILE (.png, .svg, .pdf; no suffix: a PNG)")
    if html is None:
        return
    parser.add_argument("--html", metavar="FILE",
                        help=f"write {html} as an interactive page to FILE (.html, self-contained; needs Plotly: "
                             "pip install 'polyrelu[plot]')")
    parser.add_argument("--window", nargs=4, metavar=("XMIN", "XMAX", "YMIN", "YMAX"),
                        help="draw this rectangle of the plane (default: the domain, or around the vertices)")
    parser.add_argument("--fill", choices=(*FILLS, "none"), default=fill,
                        help="what a region's colour says: its number of active neurons (activation), f at its centre "
                             f"(output: one output), the class maximal on it (class: several outputs), or none "
                             f"(default: {fill})")


def drawing(args, net):
    """``(name, window, fill)`` of a drawing: the network's name (else the file's stem), exact window, fill or None."""
    name = net.name or os.path.splitext(os.path.basename(args.network))[0]
    window = parse_window(args.window) if args.window else None
    return name, window, None if args.fill == "none" else args.fill


def parse_window(numbers):
    """``--window XMIN XMAX YMIN YMAX`` as exact numbers, each range non-empty (a :class:`UsageError` otherwise).

    Examples
    --------
    >>> parse_window(["-1", "1/2", "0", "2"])
    (Fraction(-1, 1), Fraction(1, 2), Fraction(0, 1), Fraction(2, 1))
    >>> parse_window(["1", "-1", "0", "2"])
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: --window 1 -1 0 2: XMIN = 1 is not below XMAX = -1; give XMIN XMAX YMIN YMAX with XMIN < XMAX and YMIN < YMAX, e.g. --window -2 2 -1 3
    """
    text = " ".join(numbers)
    try:
        xmin, xmax, ymin, ymax = (parse_number(v, f"--window {text}") for v in numbers)
    except (InvalidNumberError, LimitExceededError) as exc:
        raise UsageError(f"{exc}; the window is four numbers such as -2 2 -1 3") from None
    for axis, lo, hi in (("X", xmin, xmax), ("Y", ymin, ymax)):
        if lo >= hi:
            raise UsageError(f"--window {text}: {axis}MIN = {lo} is not below {axis}MAX = {hi}; "
                             "give XMIN XMAX YMIN YMAX with XMIN < XMAX and YMIN < YMAX, e.g. --window -2 2 -1 3")
    return (xmin, xmax, ymin, ymax)


def check_drawing(args, dim, outputs, plotted=None):
    """Refuse, before any work, a drawing that cannot be made.

    ``--html`` shows the complex, of dimension ``dim``: 2 or 3; ``--window``
    zooms a plane (``--plot`` draws one of dimension ``plotted``, by default
    ``dim``); ``--fill output`` needs one output and ``--fill class`` several.
    """
    if (args.plot or args.html) and args.fill == "output" and outputs != 1:
        raise UsageError(f"--fill output colours by the value of a single output; this network has {outputs}: "
                         "use --fill class (the class maximal on each region)")
    if (args.plot or args.html) and args.fill == "class" and outputs < 2:
        raise UsageError("--fill class needs a network with several outputs (classes); this one has 1: use --fill output")
    if args.html and dim not in (2, 3):
        raise UsageError(f"--html shows complexes in 2 or 3 dimensions; this one has {dim} (polyrelu slice --html "
                         "shows a plane or a 3-space through 3 or 4 points of any network)")
    if args.window and (args.html and dim != 2 or args.plot and (plotted or dim) != 2):
        raise UsageError(f"--window zooms a drawing of the plane; this complex has {dim} dimensions: leave out --window")
