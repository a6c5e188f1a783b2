"""Families: formulas the traced pieces of a hypersurface leave undetermined.

When a hypersurface stays where some neurons of the previous layer are off,
its pieces cannot show its weights on them (the TPIC condition of
docs/design.md §4 fails there): every formula in a linear span fits every
piece. This module finds such spans, merges spans that are pieces of one
neuron, and fixes a member by the signs the neuron must have on every region
(exact feasibility problems).

Glossary
--------
family
    ``(formula, free, span)``: the formulas fitting every traced piece;
    ``free`` the feature columns that vanish on every piece.
pieces
    The hyperplane of the hypersurface on each traced region, oriented alike.
sign rows
    Linear inequalities saying an affine function has a given sign on a
    region's interior (vertices, rays and lines of the region, and one
    interior point).

What it leaves to others: tracing the pieces (``tracing``), choosing a member
by the output (``output``).
"""

from fractions import Fraction

from ..formulas import shared_formula
from ..geometry import Polyhedron
from ..geometry.linalg import echelon_basis, fmpq_matrix, fraction_rows
from ..geometry.rational import row_value
from .numerics import vdot, vscale

__all__ = []


def formula_family(partial, equations, pieces):
    """``(formula, vanishing, span)``: the formulas fitting every traced piece, when more than one does.

    ``span`` is a basis of them (reduced echelon form); ``vanishing`` one of
    its members that are zero on every traced region (a column of a neuron
    off on all of them, or features that coincide there), also in echelon
    form. Those change nothing the pieces show. When the family is one
    formula plus them, ``formula`` is its member reduced by them (zero at
    their pivot columns), else None. None when that member vanishes
    identically on a piece, or the equations leave only one formula.
    """
    span = partial.numerics.nullspace(equations, len(partial.basis))
    if len(span) < 2:
        return None
    span = echelon_basis(span)
    vanishing = vanishing_members(partial, span, pieces)
    c = None
    if len(span) == 1 + len(vanishing):
        c = next(r for r in (reduced_by(v, vanishing) for v in span) if any(r))
        if vanishes_somewhere(partial, c, pieces, partial.numerics):
            return None
    return c, vanishing, span


def vanishing_members(partial, span, regions):
    """An echelon basis of the members of ``span`` that are zero on every one of ``regions``."""
    rows = [F_row for rid in regions for F_row in partial.reduced(partial.complex[rid])]
    # in flint: a trace's regions times its span is most of a family's cost in Fractions
    values = fraction_rows(fmpq_matrix(rows) * fmpq_matrix(list(zip(*span)))) if rows else []
    combinations = partial.numerics.nullspace(values, len(span))
    if not combinations:
        return ()
    return echelon_basis([tuple(v) for v in fraction_rows(fmpq_matrix(combinations) * fmpq_matrix(span))])


def reduced_by(c, echelon):
    """``c`` minus the combination of the ``echelon`` basis that zeroes it at their pivot columns."""
    c = list(c)
    for v in echelon:
        pivot = next(k for k, x in enumerate(v) if x)
        if c[pivot]:
            factor = c[pivot] / v[pivot]
            c = [a - factor * b for a, b in zip(c, v)]
    return tuple(c)


def scale_on_region(partial, c, region_id, h):
    """The factor ``λ`` with ``F c = λ h`` on a traced region (``c`` fits its piece)."""
    row = [vdot(F_row, c) for F_row in partial.reduced(partial.complex[region_id])]
    p = max(range(len(h)), key=lambda i: abs(h[i]))
    return row[p] / h[p]


def vanishes_somewhere(partial, c, regions, numerics):
    """Whether the formula ``c`` is identically zero on one of ``regions``.

    The parallelity equations hold trivially there (``0`` is parallel to every
    hyperplane), e.g. for ``relu(ẑ) - ẑ`` on the side where ``ẑ > 0``: a
    spurious solution, not a neuron's hypersurface.
    """
    cells = partial.complex
    for rid in regions:
        F = partial.reduced(cells[rid])
        value = [vdot(row, c) for row in F]
        if numerics.vanishes(value, c, F):
            return True
    return False


def merge_families(partial, traced):
    """Pieces of one neuron traced apart, merged: two families whose spans share a formula (:func:`_common_formula`)."""
    merged = list(traced)
    for a in range(len(merged)):
        b = a + 1
        while b < len(merged):
            joint = _common_formula(partial, merged[a], merged[b])
            if joint is None:
                b += 1
            else:
                merged[a] = joint
                del merged[b]
                b = a + 1
    return merged


def _common_formula(partial, A, B):
    """The traces ``A`` and ``B`` as one neuron, or None.

    Both families contain the unit columns that vanish on all their pieces.
    Families of different neurons share nothing more when their dimensions
    leave room (``dim A + dim B - shared units <= columns``), so one more
    common direction is the neuron: determined up to the shared units. The
    pieces of ``B`` are re-oriented to agree with ``A``'s.
    """
    (ca, ra, sa, pa), (cb, rb, sb, pb) = A, B
    if not (sa or sb):
        return None
    shared = shared_formula(sa or (ca,), sb or (cb,), partial.numerics.nullspace)
    if shared is None:
        return None
    w, common, units = shared
    lam_a = [scale_on_region(partial, w, rid, h) for rid, h in pa.items()]
    lam_b = [scale_on_region(partial, w, rid, h) for rid, h in pb.items()]
    if any(v == 0 for v in lam_a + lam_b):
        return None
    flip = -1 if (lam_a[0] > 0) != (lam_b[0] > 0) else 1
    pieces = {**pa, **{rid: tuple(flip * v for v in h) for rid, h in pb.items()}}
    return w, ra | rb, (echelon_basis(common) if units else ()), pieces


def fix_family(partial, span, traced, pieces):
    """A member of the family ``span`` with the neuron's sign on every region, or None.

    The hypersurface crosses exactly the ``traced`` regions, where every
    member fits the piece: the member must be a positive multiple of the
    oriented ``pieces``. On every other region the neuron keeps one sign,
    read where it borders a traced region and carried across the walls
    between untraced ones; the member must have that sign there
    (:func:`sign_rows`). On regions the free columns miss this checks that
    the trace was complete. A traced region without a piece is one the
    neuron fades into (:func:`~polyrelu.recovery.tracing.trace_neuron` with
    ``fading``): it may run on there unseen, so the regions reached from it
    without crossing a piece keep no sign.
    """
    cells = partial.complex
    n0 = partial.n0
    sign, neighbours, open_, conflicts = {}, {}, set(), set()
    for facet in cells.cells(n0 - 1):
        pair = [r for r in cells.lattice.cofacets(facet.id) if cells[r].dimension == n0]
        if len(pair) != 2:
            continue
        a, b = pair
        if a not in traced and b not in traced:
            neighbours.setdefault(a, []).append(b)
            neighbours.setdefault(b, []).append(a)
        elif (a in traced) != (b in traced):
            inside, outside = (a, b) if a in traced else (b, a)
            if inside not in pieces:
                open_.add(outside)  # beyond a region the neuron fades into: it may run on unseen
                continue
            v = row_value(pieces[inside], facet.relative_interior_point())
            s = (v > 0) - (v < 0)
            if s == 0 or sign.setdefault(outside, s) != s:
                conflicts.add(outside)
    open_ = _reached(open_, neighbours)
    queue = [r for r in sign if r not in open_]
    while queue:
        r = queue.pop()
        for q in neighbours.get(r, ()):
            if q in open_:
                continue
            if q not in sign:
                sign[q] = sign[r]
                queue.append(q)
            elif sign[q] != sign[r]:
                conflicts.add(q)
    if conflicts - open_:
        return None
    regions = [R for R in cells.regions() if R.id not in open_ and (R.id in pieces or R.id not in traced)]
    if any(R.id not in pieces and R.id not in sign for R in regions):
        return None
    ieqs, eqns, strict = set(), set(), set()
    for R in regions:
        # each member's affine map on the region, written only now: most families fail the sign checks above
        maps = [tuple(vdot(F_row, v) for F_row in partial.reduced(R)) for v in span]
        if R.id in pieces:
            h = pieces[R.id]
            p = max(range(len(h)), key=lambda i: abs(h[i]))
            strict.add((0, *(m[p] * (1 if h[p] > 0 else -1) for m in maps)))
        else:
            sign_rows(R, sign[R.id], [(0,) * (n0 + 1), *maps], ieqs, eqns, strict)
    alpha = solve_rows(ieqs, eqns, strict, len(span), homogeneous=True)
    if alpha is None:
        return None
    c = tuple(sum(a * v[k] for a, v in zip(alpha, span)) for k in range(len(span[0])))
    return vscale(1 / max(abs(v) for v in c), c)


def _reached(seeds, neighbours):
    """The regions reached from ``seeds`` across the walls in ``neighbours`` (an adjacency map), ``seeds`` included."""
    reached, queue = set(seeds), list(seeds)
    while queue:
        for q in neighbours.get(queue.pop(), ()):
            if q not in reached:
                reached.add(q)
                queue.append(q)
    return reached


def on_pieces(partial, traced, bp):
    """Whether the breakpoint lies on a piece already traced (a family predicts nothing beyond its pieces)."""
    region = partial.locate(bp.point)
    return region is not None and any(
        region.id in pieces and partial.numerics.on_hyperplane(pieces[region.id], bp) for *_, pieces in traced
    )


def sign_rows(region, s, maps, ieqs, eqns, strict):
    """Rows in ``t`` saying ``s·(a + Σ t_k g_k) > 0`` inside ``region`` (``maps = [a, g_1, ...]``), added to the sets.

    Non-negative at every vertex and along every ray, zero along every line,
    and positive at one interior point means positive on the interior.
    """
    poly = region.polyhedron
    for v in poly.vertices():
        ieqs.add(tuple(s * row_value(m, v) for m in maps))
    for r in poly.rays():
        ieqs.add(tuple(s * vdot(m[1:], r) for m in maps))
    for line in poly.lines():
        eqns.add(tuple(vdot(m[1:], line) for m in maps))
    x = region.relative_interior_point()
    strict.add(tuple(s * row_value(m, x) for m in maps))


def solve_rows(ieqs, eqns, strict, nvars, homogeneous=False):
    """A point ``t`` with ``ieqs >= 0``, ``eqns = 0``, ``strict > 0`` (rows ``(const, coefficients)``), small when possible; or None.

    Exact: one feasibility problem, then its relative interior point rounded
    to small denominators if that still satisfies every row. ``homogeneous``
    rows describe a cone, and ``t`` is scaled to max-norm 1 first.
    """
    def satisfies(t):
        return (
            all(row_value(r, t) >= 0 for r in ieqs)
            and all(row_value(r, t) == 0 for r in eqns)
            and all(row_value(r, t) > 0 for r in strict)
        )

    zero = (Fraction(0),) * nvars
    if not homogeneous and satisfies(zero):
        return zero
    active = [r for r in (*ieqs, *strict) if any(r[1:])]
    if any(not any(r[1:]) and r[0] < 0 for r in ieqs) or any(not any(r[1:]) and r[0] <= 0 for r in strict):
        return None
    poly = Polyhedron(ieqs=active, eqns=[r for r in eqns if any(r[1:])], ambient_dim=nvars)
    if poly.is_empty():
        return None
    t = poly.relative_interior_point()
    if homogeneous and any(t):
        t = vscale(1 / max(abs(v) for v in t), t)
    for denominator in (1, 2, 4, 8, 16, 64, 256, 1 << 12, 1 << 16, 1 << 24):
        rounded = tuple(Fraction(v).limit_denominator(denominator) for v in t)
        if satisfies(rounded):
            return rounded
    return t if satisfies(t) else None
