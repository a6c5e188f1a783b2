"""Completing a layer's families from the next layer's traces: the product columns.

A neuron picked from a family (``families``) has the right signs but possibly
wrong weights along its free directions. Where it is on, the next layer reads
it with those weights, so the next layer's traces over the product columns
``[z_j on]·d_k`` (:meth:`~polyrelu.recovery.partial.PartialNetwork.use_features`)
show the missing steps as linear unknowns. This module reads them and
completes the layer; or, for the last layer, reads them from a breakpoint
of ``f`` that no known neuron explains (:func:`complete_families_at_breakpoints`).

Glossary
--------
step
    ``θ_k``: how far along its free direction ``d_k`` a family neuron moves
    to become the neuron the next layer reads.

What it leaves to others: the families themselves (``families``), the
tracing (``tracing``), when to complete (``driver``).
"""

from ..geometry import Polyhedron
from ..geometry.linalg import echelon_basis, rank, solution_space
from ..geometry.rational import row_value
from .breakpoints import is_breakpoint_along
from .first_layer import explained_by
from .partial import direction_map, moved_neuron
from .tracing import drop_deeper, trace_neuron

__all__ = []


def complete_families(queries, partial, rows, pending, numerics, log):
    """Complete the last layer's neurons picked from families by the next layer's traces; whether any was.

    A neuron ``z_j`` picked from a family (:func:`~polyrelu.recovery.next_layer.second_chance`) has the
    right signs but possibly wrong weights along its free directions ``d_k``:
    the next layer reads ``v_j relu(z_j + Σ θ_k d_k)``. Traced over the
    product columns ``[z_j on]·d_k`` (:meth:`~polyrelu.recovery.partial.PartialNetwork.use_features`),
    a next-layer formula shows ``v_j`` and the products ``v_j θ_k`` as linear
    unknowns, each checked by :func:`~polyrelu.recovery.tracing.trace_neuron`
    on every region its prediction crosses. A next-layer trace that is itself
    a family (its pieces miss another neuron's zero set) still shows ``θ_k``
    when every formula fitting its pieces has the same ratio of the two
    (:func:`_completing_steps`). Every trace that reads ``z_j``
    (``v_j ≠ 0``) must give the same ``θ_k``; the neuron becomes
    ``z_j + Σ θ_k d_k`` and the directions so fixed leave ``partial.free``.
    Called with the last layer oriented; it leaves ``partial`` to be rebuilt.
    """
    last = len(partial.layers) - 1
    if not numerics.max_families or not any(layer == last for layer, _ in partial.free):
        return False
    partial.use_features(oriented=True, products=True)
    try:
        steps = _completing_steps(queries, partial, rows, pending, numerics, log)
    finally:
        partial.use_features(oriented=True)
    if not steps:
        return False
    partial.complete_families(last, steps)
    log.setdefault("completed", []).extend((last + 1, j, k) for j, k in sorted(steps))
    return True


def complete_families_at_breakpoints(queries, partial, pending, numerics, log):
    """Complete the last layer's family neurons that a breakpoint no known neuron explains lies on; whether any was.

    A neuron picked from a family fits every piece traced, but along its free
    directions ``d_k`` it may miss the rest of its hypersurface, and a
    breakpoint ``f`` shows there stays unexplained. On the breakpoint's
    region the member ``z_j + Σ θ_k d_k`` is an affine map; that it vanishes
    on the breakpoint's hyperplane ``h`` is ``n0 + 1`` linear equations
    ``z_j + Σ θ_k d_k = λ h`` in the unknowns ``θ, λ``. They say something
    only where the previous layer's maps span more than ``K + 1`` dimensions
    (``K`` free directions): where few previous-layer neurons are on, every
    hyperplane there fits a member. Only a unique solution with ``λ ≠ 0``,
    of one family only, is a candidate, and it must also be where ``f``
    bends on another region, one where it moves the picked neuron's zero
    set (:func:`_bends_elsewhere`); a breakpoint two families fit completes
    neither. Exact mode only (float breakpoints fit nothing exactly). The
    caller rebuilds; the next layer's traces and the output fit check the
    completed neuron like any other.
    """
    last = len(partial.layers) - 1
    families = {j: directions for (layer, j), directions in partial.free.items() if layer == last}
    if not numerics.max_families or not families or last < 1:
        return False
    steps = {}
    for bp in pending:
        region = partial.locate(bp.point)
        if region is None:
            continue
        relu = partial.previous_relu(region)
        dimension = _map_dimension(partial, relu)
        fits = []
        for j, directions in families.items():
            if dimension <= len(directions) + 1:
                continue  # every hyperplane there fits some member: the breakpoint tells nothing
            base = direction_map(relu, partial.layers[last][j])
            moves = [direction_map(relu, d) for d in directions]
            if not any(any(g) for g in moves):
                continue  # the free directions vanish here: the breakpoint says nothing about them
            rows = [[*(g[i] for g in moves), -bp.row[i]] for i in range(partial.n0 + 1)]
            space = solution_space(rows, [-v for v in base])
            if space is not None and not space.basis and space.point[-1]:
                fits.append((j, space.point[:-1]))
        # two families fitting: the breakpoint may be either's, or a third neuron's that both spans reach here
        if len(fits) == 1 and (fits[0][0], 0) not in steps:
            j, theta = fits[0]
            if _bends_elsewhere(queries, partial, j, families[j], theta, region, numerics):
                steps.update(((j, k), t) for k, t in enumerate(theta))
    if not steps:
        return False
    partial.complete_families(last, steps)
    log.setdefault("completed", []).extend((last + 1, j, k) for j, k in sorted(steps))
    return True


# regions on which a completion is checked against f before it is refused (complete_families_at_breakpoints)
COMPLETION_CHECKS = 6


def _bends_elsewhere(queries, partial, j, directions, theta, region, numerics):
    """Whether ``f`` bends along the completed member of family ``j`` inside a region other than ``region``.

    Only regions where the step ``Σ θ_k d_k`` moves the member's zero set
    are asked (elsewhere it is the neuron picked's, which ``f`` may bend
    along either way), where the previous layer's maps span more than
    ``K + 1`` dimensions, and where the zero set is not the region's wall; at most
    :data:`COMPLETION_CHECKS` of them: the member's zero set there, a
    relative interior point of it, and :func:`~polyrelu.recovery.breakpoints.is_breakpoint_along`.
    """
    picked = partial.layers[-1][j]
    w, b = moved_neuron(picked, zip(theta, directions))
    asked = 0
    for other in partial.complex.regions():
        if other.id == region.id or asked >= COMPLETION_CHECKS:
            continue
        relu = partial.previous_relu(other)
        row = direction_map(relu, (w, b))
        # where the step only rescales the map, the zero set is the picked neuron's: f bends there either way; where
        # the maps span few directions, a zero set is as easily another neuron's as on the breakpoint's region
        if not any(row[1:]) or rank([row, direction_map(relu, picked)]) < 2:
            continue
        if _map_dimension(partial, relu) <= len(directions) + 1:
            continue
        poly = other.polyhedron
        cut = Polyhedron(ieqs=poly.inequalities, eqns=[*poly.equations, row], ambient_dim=partial.n0)
        if cut.is_empty() or cut.dimension() != partial.n0 - 1:
            continue
        y = cut.relative_interior_point()
        if any(row_value(r, y) == 0 for r in poly.inequalities):
            continue  # the zero set is the region's wall: what bends there is the wall's neuron
        asked += 1
        if is_breakpoint_along(queries, y, row, numerics):
            return True
    return False


def _map_dimension(partial, relu):
    """The dimension of the affine maps the previous layer's outputs ``relu`` and ``1`` span on a region.

    Far out, where a single neuron below is on, it is two whatever ``n0``.
    """
    return rank([*relu, (1,) + (0,) * partial.n0])


def _completing_steps(queries, partial, rows, pending, numerics, log):
    """``{(j, k): θ_k}`` read from the next layer's traces over the product columns (:func:`complete_families`).

    A trace gives the formulas that fit its pieces: one, or a family (its
    span). The true formula ``c`` is among them, with ``c[z_j] = v_j`` and
    ``c[[z_j on]·d_k] = v_j θ_k``. Where those two coordinates of every member
    lie on one line through 0, spanned by ``(a, b)`` with ``a ≠ 0``, so does
    ``(v_j, v_j θ_k)``: a trace that reads ``z_j`` shows ``θ_k = b / a``
    whatever the weights its pieces leave free. Where they span
    the plane the trace says nothing about ``θ_k``; a member with ``a = 0``
    and ``b ≠ 0`` means the column stands for something else, and ``θ_k``
    stays open. Every trace that shows ``θ_k`` must show the same
    (2→5→4→6→1, sample index 21 of ``benchmarks/survey_recovery.py``: every
    layer-3 trace was a family, so the two layer-2 neurons picked from families
    with weights 4-6 % off were never completed, until the families' ratios
    were read). A family's formulas are not checked region by region as a
    unique formula is, and the pieces of something other than a next-layer
    neuron show a ratio too (2→6→4→6→1, index 49: a layer-2 neuron positive on
    the whole domain, taken for a family neuron, was moved by a ratio of
    140-digit integers that one family alone showed). Nor can ``f`` check the
    step: it moves the neuron only where its free directions are non-zero,
    where the neuron keeps one sign, so its zero set stays where it was. So a
    step that no unique formula shows needs two different families that show
    it, hypersurfaces of two neurons or two components of one; by chance two
    ratios of integers that long do not agree.
    """
    n = len(partial.layers[-1])
    position = {col: j for j, col in enumerate(partial.basis)}
    found = [partial.basis_vector(w, b) for w, b in rows]
    traced = []
    for bp in pending:
        if explained_by(partial, found + [c for c, *_ in traced if c is not None], bp):
            continue
        result = trace_neuron(queries, partial, bp, numerics, log=log)
        if result is not None and (result[0] is not None or result[2]):
            traced.append(result)
    spans = [span or (c,) for c, _, span, _ in drop_deeper(queries, partial, traced, numerics, log=log)]
    steps = {}
    for column, (j, k, _) in enumerate(partial.products, start=n + 1):
        if column not in position or j not in position:
            continue
        ratios, foreign, families, unique = set(), False, set(), False
        for span in spans:
            pairs = [(v[position[j]], v[position[column]]) for v in span]
            if rank(pairs) != 1:
                continue
            a, b = next(pair for pair in pairs if any(pair))
            if not a:
                foreign = True
                break
            ratios.add(b / a)
            if len(span) > 1:
                families.add(tuple(echelon_basis(span)))  # one subspace, one family, however it is written
            else:
                unique = True
        if not foreign and len(ratios) == 1 and (unique or len(families) > 1):
            steps[j, k] = ratios.pop()
    return steps
