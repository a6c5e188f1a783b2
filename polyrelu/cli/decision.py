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
"""

from __future__ import annotations

import os

from ..atomic import check_output_path, write_json
from ..errors import InvalidNumberError, LimitExceededError, UsageError
from ..geometry.rational import parse_number
from ..text import columns, number_text
from ..topology import decision_complex, homology_document, level_sets
from .ending import written
from .slicing import print_slice, slice_of

__all__ = ["decision_command", "check_decision_arguments", "decision_level"]


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
    print(f"network             {args.network}  ({net.architecture})")
    if args.through:
        S = slice_of(net, args)
        print_slice(S, args)
        net, domain = S.network, S.domain
    else:
        print(f"domain              {args.domain or f'R^{net.architecture.input_dim}'}", flush=True)
    if level is None:
        parts, complex_ = _classes(net, domain, args)
    else:
        parts, complex_ = _levels(net, domain, level, args)
    if args.output:
        complex_.write_json(args.output)
        written(args.output)
    if args.homology:
        write_json(args.homology, lambda: homology_document(parts))
        written(args.homology)


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
