"""Tracing a next-layer neuron's hypersurface across the regions of the known complex.

From one breakpoint, the hypersurface of the neuron it belongs to is followed
region by region: across each facet it continues along a hyperplane of the
pencil through the facet, found from one breakpoint on a short segment. Each
piece gives linear equations in the neuron's formula; a unique solution up to
scale is the neuron, more than one a family (``families``). A deeper neuron
mistaken for one of this layer is dropped because it bends where it crosses
the others (docs/design.md §5).

Glossary
--------
trace
    ``(formula, regions crossed, span, pieces)`` for one hypersurface
    (:func:`trace_neuron`).
continuation
    The hyperplane of the hypersurface beyond a facet of the region it is in.
prediction
    Where a formula says the hypersurface crosses a region: ``f`` must bend
    there, which every crossing is checked for.

What it leaves to others: orientation of the formulas found
(``orientation``), the output layer (``output``).
"""

import collections
import itertools
import math
from fractions import Fraction

from ..formulas import parallel_equations
from ..geometry import Polyhedron
from ..geometry.linalg import pivot_columns
from ..geometry.rational import primitive_integer_row, row_value
from .breakpoints import breakpoint_at, is_breakpoint_along, segment_breakpoints
from .control import StageFailed
from .families import formula_family, scale_on_region, vanishes_somewhere, vanishing_members
from .numerics import orthogonal_part, vadd, vdot, vscale, vsub

__all__ = []

# the widest last layer whose 2^n orientations :func:`orientations_by_pieces` ranks for the orientation search
RANKED_WIDTH = 5


# what :func:`_continue_across` returns when ``h`` meets the facet but ``f`` does not bend beyond it near there
UNSEEN = "unseen"

# a continuation not in the memo yet (None is an answer there)
_NOT_SEARCHED = object()


def _continue_across(queries, partial, facet, region, h, numerics, hugging=False):
    """The hyperplane of a hypersurface beyond ``facet`` in ``region``, given its hyperplane ``h`` on the near side.

    Both hyperplanes contain ``h ∩ aff(facet)``, so the far one is ``h + μ·wall``:
    one breakpoint on a short segment parallel to ``∇h`` just inside ``region``
    fixes ``μ``, and the normal is then checked at that breakpoint.
    :data:`UNSEEN` when ``h`` meets the facet at an angle above ``atan(1/16)``
    but ``f`` does not bend on such a segment; None when ``h`` misses the
    facet, no segment fit in ``region``, or ``h`` is nearly parallel to the
    wall (a continuation at such an angle meets the segment, ``offset`` from
    the wall, up to ``offset · cot(angle)`` from its centre, beyond its ends).
    With ``hugging``, where ``h`` is nearly parallel to the wall and that
    segment meets nothing, the continuation may hug the wall:
    :func:`_continuation_along_wall` looks for it across the wall's side, far
    along it (exact mode, ``n0 = 2``).
    """
    n0 = partial.n0
    poly = facet.polyhedron
    wall = poly.equations[0]
    q = crossing_point(poly, h, n0)
    if q is None:
        return None
    normal = tuple(Fraction(v) for v in wall[1:])
    grad = tuple(Fraction(v) for v in h[1:])
    # search along the wall (the part of ∇h parallel to it), a little way into ``region``
    along = orthogonal_part(grad, normal)
    steep = vdot(grad, normal) ** 2 <= 256 * vdot(normal, normal) * vdot(along, along)  # cot(angle) <= 16
    normal = vscale(1 / max(abs(v) for v in normal), normal)
    along = vscale(1 / max(abs(v) for v in along), along)
    offset = (1 + max(abs(v) for v in q)) * numerics.shrink
    searched = False  # a segment beyond the wall was searched, and f did not bend on it
    for _ in range(numerics.continuation_attempts):
        centre = next((c for c in (vadd(q, vscale(offset, normal)), vsub(q, vscale(offset, normal))) if partial.locate(c) is region), None)
        if centre is not None:
            for length in (64, 8, 1):
                step = vscale(length * offset, along)
                if not all(partial.locate(e) is region for e in (vsub(centre, step), vadd(centre, step))):
                    continue
                g = lambda s: queries(vadd(centre, vscale(s, step)))  # noqa: E731
                try:
                    found = segment_breakpoints(g, Fraction(-1), Fraction(1), numerics)
                except StageFailed:  # breakpoints too close together to separate: a shorter segment
                    continue
                if len(found) > 1:
                    continue  # another hypersurface crosses the segment too: a shorter one
                if not found:
                    searched = True
                    break
                t, _, _, t0, t1 = found[0]
                y = vadd(centre, vscale(t, step))
                if numerics.measures_continuations:
                    measured = breakpoint_at(queries, y, vscale(min(t - t0, t1 - t) / 2, step), n0, numerics)
                    if measured is None:
                        continue
                    h2 = measured.row
                else:
                    h2 = _pencil_row_through(h, wall, y)
                if any(h2[1:]) and is_breakpoint_along(queries, y, h2, numerics, offset * numerics.shrink):
                    return h2
                # the one breakpoint was another hypersurface's, the continuation crossing beyond the segment
        offset *= numerics.continuation_shrink
    if hugging and searched and not steep and not numerics.measures_continuations:
        h2 = _continuation_along_wall(queries, partial, q, wall, region, h, numerics)
        if h2 is not None:
            return h2
    return UNSEEN if searched and steep else None


def _continuation_along_wall(queries, partial, q, wall, region, h, numerics):
    """The continuation of ``h`` beyond the wall through ``q`` when it runs nearly along the wall, or None.

    A segment parallel to the wall at ``offset`` meets a continuation at angle
    ``α`` to the wall ``offset · cot(α)`` from its centre: nothing for ``α``
    below ``atan(1/64)``. Such a continuation is found across: on segments
    perpendicular to the wall, ``D`` along it on either side of ``q`` (from
    ``D · 2^-60`` to ``D / 64`` into ``region``, which the continuation crosses
    for ``2^-60 < tan(α) < 1/64`` on the side it heads to), ``D`` growing from
    ``(1 + |q|) · shrink`` while the segment stays in ``region``. Each
    breakpoint found gives the line through it and ``h ∩ wall``, accepted only
    where ``f`` bends along it (:func:`is_breakpoint_along`). A layer-3 neuron
    positive on a sliver about ``2·10^4`` out (2→3→4→4→1, seed 963484) meets a
    layer-2 zero set at an angle about ``4·10^-4`` and runs on beyond it at
    about ``10^-5``.
    """
    if partial.n0 != 2:
        return None  # from n0 = 3 on the wall's directions are a plane or more: not searched
    normal = tuple(Fraction(v) for v in wall[1:])
    inward = vscale(1 / max(abs(v) for v in normal), normal)
    if partial.locate(vadd(q, vscale(numerics.shrink**3, inward))) is not region:
        inward = vscale(-1, inward)
    along = (-inward[1], inward[0])
    slope = sum(abs(v) for v in wall[1:])
    start = distance = (1 + max(abs(v) for v in q)) * numerics.shrink
    for _ in range(12):
        inside = False
        for side in (1, -1):
            foot = vadd(q, vscale(side * distance, along))
            near, far = vadd(foot, vscale(distance / (1 << 60), inward)), vadd(foot, vscale(distance / 64, inward))
            if not (partial.locate(near) is region and partial.locate(far) is region):
                continue
            inside = True
            step = vsub(far, near)
            try:
                found = segment_breakpoints(lambda s: queries(vadd(near, vscale(s, step))), Fraction(0), Fraction(1), numerics)
            except StageFailed:
                continue
            for t, *_ in found:
                y = vadd(near, vscale(t, step))
                h2 = _pencil_row_through(h, wall, y)
                # probes within 2·radius (max-norm) of y stay off the wall
                radius = min(distance * numerics.shrink, abs(row_value(wall, y)) / (4 * slope))
                if any(h2[1:]) and is_breakpoint_along(queries, y, h2, numerics, radius):
                    return h2
        if not inside and distance > start * (1 << 12):
            break
        distance *= 8
    return None


def _pencil_row_through(h, wall, y):
    """The row ``h + μ·wall`` (primitive integers) that vanishes at ``y``: the hyperplane through ``y`` and ``h ∩ wall``."""
    mu = -row_value(h, y) / row_value(wall, y)
    return primitive_integer_row(vadd(h, vscale(mu, wall)))


def crossing_point(poly, h, n0):
    """A relative interior point of the part of a facet (dimension ``n0 - 1``) where ``h`` vanishes, when that part has dimension ``n0 - 2``; else None.

    For ``n0 = 2`` the facet is a segment, a ray or a line and the part one
    point, read off its vertices and directions; otherwise an exact
    feasibility problem decides (:class:`~polyrelu.geometry.Polyhedron`).
    """
    if n0 != 2:
        return _cut_point(poly, [h], n0 - 2)
    value, slope = (lambda x: row_value(h, x)), (lambda d: vdot(h[1:], d))
    vertices, rays, lines = poly.vertices(), poly.rays(), poly.lines()
    if lines or rays:
        (start,), (d,) = vertices, lines or rays
        if not slope(d):
            return None  # h constant along the facet: zero on all of it, or on none
        t = -value(start) / slope(d)
        return vadd(start, vscale(t, d)) if lines or t >= 0 else None
    a, b = vertices
    ha, hb = value(a), value(b)
    if ha == hb or (ha and hb and (ha > 0) == (hb > 0)):
        return None  # h zero on the whole segment, or on no point of it
    return vadd(a, vscale(ha / (ha - hb), vsub(b, a)))


# the entries of a round's log that remember facts about f and the geometry only, not about the round
GEOMETRY_MEMOS = ("continuations", "cuts")


def geometry_memo(log):
    """The entries of ``log`` that remember facts about ``f`` and the geometry only, as a log of their own (internal API).

    The continuations (:func:`_cached_continuation`) and cuts
    (:func:`_cached_cut`) are the same whatever the features a trace reads,
    so traces over other features share them; what a trace adds to the
    round's statistics (``undetermined``, ``pieces``, ``uncrossed``) goes to
    the returned log and stays out of ``log``, whose ``pieces`` rank the
    orientations of the last layer (:func:`orientations_by_pieces`).
    """
    return {key: log.setdefault(key, {}) for key in GEOMETRY_MEMOS}


def _cached_continuation(queries, partial, facet, region, h, numerics, log, hugging=False):
    """:func:`_continue_across`, remembered in ``log["continuations"]`` by the sets the facet and region are.

    The continuation is a fact about ``f`` and the geometry only: the
    orientation search (:func:`~polyrelu.recovery.next_layer.orientation_by_search`)
    rebuilds the same complex with flipped neurons (other signs and cell ids,
    the same polyhedra) and traces the same hypersurfaces again.

    The search with ``hugging`` differs from the one without only where the
    latter finds nothing and does not answer :data:`UNSEEN`: there it looks
    along the wall as well. So a row found without it, and :data:`UNSEEN`
    either way, stand for both; None found with it stands for the search
    without it too.
    """
    if log is None:
        return _continue_across(queries, partial, facet, region, h, numerics, hugging)
    cells = (partial.cell_key(facet), partial.cell_key(region), tuple(h))
    cache = log.setdefault("continuations", {})
    if (*cells, hugging) not in cache:
        other = cache.get((*cells, not hugging), _NOT_SEARCHED)
        if other is UNSEEN or (other is None and not hugging) or (hugging and other not in (None, _NOT_SEARCHED)):
            cache[(*cells, hugging)] = other
        else:
            cache[(*cells, hugging)] = _continue_across(queries, partial, facet, region, h, numerics, hugging)
    return cache[(*cells, hugging)]


def trace_neuron(queries, partial, bp, numerics, extra=1, log=None, fading=False):
    """A neuron of the next layer through ``breakpoint``: ``(formula, regions crossed, span, pieces)``, or None.

    Breadth-first over the regions of the known complex that the hypersurface
    crosses; each piece gives ``n0`` linear equations. Accepted when the
    solution is unique up to scale and ``extra`` further pieces agree with it;
    then ``span`` is empty. ``pieces`` maps each traced region to the
    hyperplane found there, all oriented alike (the neuron is a positive
    multiple of each on its region, or a negative one of all).

    With the previous layer oriented, or over the skip features (exact mode), the pieces of a hypersurface
    that stays where some neurons of the previous layer are off, or crosses few
    regions, cannot show all of its weights (TPIC fails). Then the whole
    connected piece is traced and ``span`` is a basis of the formulas that fit
    every piece: a *family*, fixed later by the signs it must have
    (:func:`~polyrelu.recovery.families.fix_family`) and by the output (:func:`~polyrelu.recovery.output._fit_with_families`). When
    only members that vanish on every piece stay free, ``formula`` is the
    member reduced by them (:func:`~polyrelu.recovery.families.formula_family`); it predicts the
    hypersurface exactly where they vanish, so another connected component
    is reached there and traced too. Otherwise ``formula`` is None.
    ``log["undetermined"]`` counts traces whose pieces leave a family of formulas;
    ``log["uncrossed"][l][i]`` how many of them never cross neuron ``i`` of
    layer ``l`` (the last known), whose weight they therefore leave free.
    ``fading``: a region where ``f`` does not bend on the formula's zero set
    is left out of the regions crossed instead of refusing the formula
    (:func:`_bends_everywhere`); :func:`drop_deeper` with ``fading`` decides.
    A family whose trace ends where ``f`` stops showing it beyond a wall
    (:data:`UNSEEN`) is kept too, when its pieces determine its formula up to
    members vanishing on all of them and it is a layer-2 neuron (its formula
    over the first layer, which has no families): the regions beyond are
    among those crossed, without a piece, and
    :func:`~polyrelu.recovery.families.fix_family` leaves the signs open
    there and wherever the neuron may run on unseen from them.
    """
    start = partial.locate(bp.point)
    if start is None:
        return None
    lattice = partial.complex.lattice
    cells = partial.complex
    equations = parallel_equations(partial.equation_features(start), bp.row)
    queue = [(start, bp.row)]
    seen = {start.id}
    pieces = {start.id: bp.row}
    agreeing, null = 0, None
    unseen = set()  # regions beyond a wall the hypersurface meets, where f does not bend near the meeting point
    verified = (None, set(), False)  # (null space, regions where its formula was checked, whether it vanished on one)
    cap = 3 * len(partial.basis) + 2 * extra + 4
    whole = (partial.oriented or partial.skip) and numerics.max_families > 0
    while True:
        while queue and (whole or len(seen) < cap):
            region, h = queue.pop(0)
            for f in lattice.facets(region.id):
                facet = cells[f]
                beyond = [cells[r] for r in lattice.cofacets(f) if r != region.id]
                if len(beyond) != 1 or beyond[0].id in seen or beyond[0].dimension != partial.n0:
                    continue
                h2 = _cached_continuation(queries, partial, facet, beyond[0], h, numerics, log, hugging=whole)
                if h2 is UNSEEN:
                    unseen.add(beyond[0].id)
                if h2 is None or h2 is UNSEEN:
                    continue
                seen.add(beyond[0].id)
                pieces[beyond[0].id] = h2
                new = parallel_equations(partial.equation_features(beyond[0]), h2)
                equations += new
                null = numerics.narrowed_nullspace(null, equations, new, len(partial.basis), partial.precondition)
                if not null:
                    return None
                if len(null) == 1:
                    # the regions seen before were checked with this formula already, and once it vanishes it does;
                    # a new formula is checked on every region seen
                    done, vanished = (verified[1], verified[2]) if null is verified[0] else (set(), False)
                    if not vanished:
                        vanished = vanishes_somewhere(partial, null[0], seen - done, numerics)
                    verified = (null, set(seen), vanished)
                if len(null) == 1 and not verified[2]:
                    agreeing += 1
                    if agreeing >= extra:
                        checked = _bends_everywhere(queries, partial, null[0], seen, numerics, log=log, fading=fading)
                        if checked is None:
                            return None
                        crossed, measured = checked
                        if measured:  # float mode: refit on every region crossed, the noise averages out
                            for region_, row in measured:
                                equations += parallel_equations(partial.equation_features(region_), row)
                            refit = numerics.nullspace(equations, len(partial.basis), partial.precondition)
                            if len(refit) == 1:
                                return refit[0], crossed, (), pieces
                        return null[0], crossed, (), pieces
                queue.append((beyond[0], h2))
        family = formula_family(partial, equations, pieces) if whole and not queue else None
        if family is None:
            break
        c, vanishing, span = family
        if unseen - seen and (c is None or not fading or len(partial.layers) > 1):
            # a layer-l neuron is flat in every region, so its trace ends only where f stops showing it; a deeper
            # neuron's ends where it bends at a neuron the complex lacks, and its pieces leave room for a family.
            # Over layer 2 and beyond the formula is read over family members picked on open signs, and a fading
            # trace fitted there completes them wrongly (2→3→5→4→1, sample index 17)
            return None
        if c is None:
            return None, set(seen), span, pieces
        checked = _bends_everywhere(queries, partial, c, seen, numerics, vanishing=vanishing, log=log, fading=fading)
        if checked is None:
            return None
        crossed = checked[0]
        if crossed == seen:
            # the regions it fades into are crossed too, without a piece: fix_family leaves their signs open
            return c, crossed | unseen, span, pieces
        orientation = scale_on_region(partial, c, start.id, pieces[start.id])
        for rid in sorted(crossed - seen):  # another component, where the family's prediction is exact
            row = tuple(orientation * vdot(F_row, c) for F_row in partial.reduced(cells[rid]))
            seen.add(rid)
            pieces[rid] = row
            equations += parallel_equations(partial.equation_features(cells[rid]), row)
            queue.append((cells[rid], row))
        null = None  # rows added past narrowed_nullspace: solved again
    if log is not None and equations and len(numerics.nullspace(equations, len(partial.basis), partial.precondition)) > 1:
        log["undetermined"] = log.get("undetermined", 0) + 1
        if not partial.oriented:  # the pieces still tell orientations apart (:func:`orientations_by_pieces`)
            log.setdefault("pieces", {}).setdefault(len(partial.layers), []).append(dict(pieces))
        # the previous layer's neurons the hypersurface never crosses: its weights on them stay free (TPIC fails)
        uncrossed = log.setdefault("uncrossed", {}).setdefault(len(partial.layers), collections.Counter())
        for i in range(len(partial.layers[-1])):
            if len({cells[rid].signs[partial.offset + i] for rid in pieces}) == 1:
                uncrossed[i] += 1
    return None


def _bends_everywhere(queries, partial, c, traced, numerics, vanishing=(), log=None, fading=False):
    """The regions where ``f`` bends on the predicted zero set of ``c``: all it crosses, or None.

    Agreement on the traced regions is not enough: a deeper neuron is a
    next-layer-like formula wherever the neurons in between keep their signs.
    Its prediction fails where they change, so every crossing is checked.
    For a family (:func:`trace_neuron`) only the regions where its members
    ``vanishing`` on the traced ones vanish too have a prediction. Where the prediction cuts a region is
    geometry only, remembered in ``log`` (:func:`_cached_cut`).

    ``fading``: a region where ``f`` does not bend there is skipped, not a
    refusal. A neuron of a middle layer *fades*: ``f`` is flat across its
    zero set wherever every neuron after it is off, so the check refuses
    true neurons (on five of the three-hidden-layer sample's networks every
    missing layer-2 neuron was traced to its true formula and refused here).
    """
    n0 = partial.n0
    crossed = set(traced)
    measured = []  # float mode: (region, hyperplane measured at the breakpoint found near the prediction)
    for region in partial.complex.regions():
        partial.clock.check()
        if region.id in traced:
            continue
        F = partial.reduced(region)
        if any(vdot(F_row, v) for F_row in F for v in vanishing):
            continue
        row = tuple(vdot(F_row, c) for F_row in F)
        if not any(row[1:]):
            continue
        poly = region.polyhedron
        y = _cached_cut(partial, region, row, log)
        if y is None:
            continue
        found = is_breakpoint_along(queries, y, numerics.rationalize_row(row), numerics)
        if found is None:
            grazing = numerics.grazing_distance(y)
            if grazing and _near_boundary(poly, y, grazing):
                continue  # a rounded prediction grazing the region: a sliver the true hypersurface misses
            if fading:
                continue
            return None
        crossed.add(region.id)
        if numerics.measures_continuations and partial.locate(found) is region:
            normal = numerics.rationalize_row(row)[1:]
            step = vscale((1 + max(abs(v) for v in found)) * numerics.shrink**2 / max(abs(v) for v in normal), normal)
            bp = breakpoint_at(queries, found, step, n0, numerics)
            if bp is not None:
                measured.append((region, bp.row))
    return crossed, measured


def _cached_cut(partial, region, row, log):
    """A relative interior point of the region's part where ``row`` vanishes, if that part is a facet-sized cut (dimension ``n0 - 1``), else None.

    Remembered in ``log["cuts"]`` by the set the region is and the
    hyperplane (:meth:`~polyrelu.recovery.partial.PartialNetwork.cell_key`): the orientation
    search checks the same predictions on the same polyhedra under every
    orientation it tries, and the next round on most of them again.
    """
    if log is None:
        return _cut_point(region.polyhedron, [row], partial.n0 - 1)
    key = (partial.cell_key(region), primitive_integer_row(row))
    cache = log.setdefault("cuts", {})
    if key not in cache:
        cache[key] = _cut_point(region.polyhedron, [row], partial.n0 - 1)
    return cache[key]


def _cut_point(poly, rows, dimension):
    """A relative interior point of ``poly`` where the affine ``rows`` vanish, when that part has ``dimension``; else None (exact).

    ``poly`` is a cell of a lattice-built complex, whose generators are known:
    most rows asked about miss it, and :func:`_misses` tells so without the
    feasibility problems.
    """
    if any(_misses(poly, row) for row in rows):
        return None
    cut = Polyhedron(ieqs=poly.inequalities, eqns=[*poly.equations, *rows], ambient_dim=poly.ambient_dim)
    return None if cut.is_empty() or cut.dimension() != dimension else cut.relative_interior_point()


def _misses(poly, row):
    """Whether the affine ``row`` has one strict sign on all of ``poly``, read off its generators (exact).

    On ``conv(vertices) + cone(rays) + span(lines)`` the row keeps the sign
    it has at every vertex if it is constant along the lines and does not
    turn back along a ray.
    """
    vertices, rays, lines = poly.vertices_rays_lines()
    if not vertices or any(vdot(row[1:], d) for d in lines):
        return False
    values = [row_value(row, v) for v in vertices]
    slopes = [vdot(row[1:], d) for d in rays]
    return (all(v > 0 for v in values) and all(s >= 0 for s in slopes)) or (all(v < 0 for v in values) and all(s <= 0 for s in slopes))


def _near_boundary(poly, y, distance):
    """Whether ``y`` is within ``distance`` (Euclidean, floats) of a facet hyperplane of ``poly``."""
    for row in poly.inequalities:
        norm = math.sqrt(sum(float(v) ** 2 for v in row[1:]))
        if norm and abs(float(row_value(row, y))) / norm < distance:
            return True
    return False


def _bends_at(queries, partial, a, b, numerics):
    """Whether candidate ``a``'s hypersurface bends where it crosses candidate ``b``'s (docs/design.md §5).

    Neurons of one layer cross straight; a deeper one bends at the neurons it
    reads. On each region both cross, ``f`` must bend along ``a``'s hyperplane
    on both sides of ``b``'s, close to the crossing. The probes there stay
    closer to their point than ``b``'s hyperplane is: two hypersurfaces that
    cross at a small angle far out are only ``offset · sin(angle)`` apart at
    the two sides (2→3→5→6→1, seed 548483: two true layer-2 neurons crossing
    at ``(4043, 1292)`` at an angle near ``2·shrink``, whose probes crossed each
    other, so both were dropped as deeper).

    A middle-layer neuron *fades* where every neuron reading it is off, and
    such a neuron ``a`` crossing a deeper piece ``b`` that reads it shows
    ``f`` bending along ``a`` on one side only: three rays of ``f`` meet at
    the crossing, ``a``'s, ``b``'s, and ``b``'s continuation bent across
    ``a``. A deeper ``a`` bending at a fading ``b`` shows three rays too.
    Where each shows one ray, the third tells them apart in two of the four
    angles the two zero sets make (:func:`_ray_between`): across ``a`` from
    ``b``'s ray and on the side of ``b``'s zero set where ``a``'s ray is,
    only ``b`` can run on, and that crossing shows ``a`` straight (2→6→5→3→1,
    sample index 3 of ``benchmarks/survey_recovery.py``: true layer-2 neurons
    dropped as bending at the layer-3 pieces that read them); in the
    opposite angle only ``a`` can; in the other two either, and the
    crossing counts as a bend. A crossing where ``f`` bends along ``a`` on
    neither side tells nothing, and the next region both cross is asked; if
    none tells, that counts as a bend (counted as none, two deeper pieces of
    the sample were kept beside the true neurons).
    """
    (ca, regions_a), (cb, regions_b) = a[:2], b[:2]
    if ca is None or cb is None:
        return False
    n0 = partial.n0
    cells = partial.complex
    blind = False  # a crossing where a faded on both sides of b
    for rid in regions_a & regions_b:
        region = cells[rid]
        F = partial.reduced(region)
        ra = tuple(vdot(row, ca) for row in F)
        rb = tuple(vdot(row, cb) for row in F)
        q = _cut_point(region.polyhedron, [ra, rb], n0 - 2)
        if q is None:
            continue
        offset = (1 + max(abs(v) for v in q)) * numerics.shrink
        for _ in range(6):
            rays_a = _rays_along(queries, partial, region, ra, rb, q, offset, numerics)
            if rays_a is not None:
                break
            offset *= numerics.shrink
        else:
            continue
        seen_a, tips_a = rays_a
        if all(seen_a):
            return False
        if not any(seen_a):
            blind = True  # a fades there on both sides of b: this crossing shows nothing, another may
            continue
        rays_b = _rays_along(queries, partial, region, rb, ra, q, offset, numerics)
        if rays_b is None or all(rays_b[0]) or not any(rays_b[0]):
            return True
        # one ray each: a third ray through q is where the neuron that bends runs on
        (a1, a2), (b1, b2) = [tips if seen[0] else tips[::-1] for seen, tips in (rays_a, rays_b)]
        if _ray_between(queries, partial, region, ra, rb, b2, a1, numerics) and not _ray_between(
            queries, partial, region, ra, rb, b1, a2, numerics
        ):
            continue  # b runs on across a, bent, where a fades: b reads a, and a is straight here
        return True
    return blind


def _rays_along(queries, partial, region, r1, r2, q, offset, numerics):
    """Whether ``f`` bends along ``r1`` on either side of ``r2``, ``offset`` from their crossing ``q``, and the two points asked; None if they leave ``region``.

    The points are on ``r1``'s zero set, moved from ``q`` along the part of
    ``∇r2`` orthogonal to ``∇r1`` (in the plane of the two gradients), to the
    side where ``r2 > 0`` first.
    """
    g1, g2 = r1[1:], r2[1:]
    u = orthogonal_part(g2, g1)
    u = vscale(1 / max(abs(v) for v in u), u)
    sides = (vadd(q, vscale(offset, u)), vsub(q, vscale(offset, u)))
    if not all(partial.locate(y) is region for y in sides):
        return None
    row = numerics.rationalize_row(r1)
    # probes within 2·radius (max-norm) of y change r2's value by at most 2·radius·|∇r2|_1
    radius = min(offset * numerics.shrink, abs(row_value(r2, sides[0])) / (4 * sum(abs(v) for v in g2)))
    return [is_breakpoint_along(queries, y, row, numerics, radius) is not None for y in sides], sides


def _ray_between(queries, partial, region, ra, rb, start, end, numerics):
    """Whether ``f`` bends, on the segment from ``start`` to ``end`` (its inner seven eighths), along a hyperplane through ``ra = rb = 0``.

    ``start`` and ``end`` are on the two zero sets near their crossing,
    so the segment stays in one of the four angles they make there: such a
    breakpoint is a ray of ``f`` from the crossing in that angle.
    """
    if not all(partial.locate(y) is region for y in (start, end)):
        return False
    step = vsub(end, start)
    try:
        found = segment_breakpoints(lambda t: queries(vadd(start, vscale(t, step))), Fraction(1, 16), Fraction(15, 16), numerics)
    except StageFailed:
        return False
    for t, *_ in found:
        p = vadd(start, vscale(t, step))
        row = vsub(vscale(row_value(rb, p), ra), vscale(row_value(ra, p), rb))  # zero at p and where ra = rb = 0
        if any(row[1:]) and is_breakpoint_along(queries, p, numerics.rationalize_row(row), numerics):
            return True
    return False


def drop_deeper(queries, partial, candidates, numerics, accepted=(), fading=False, log=None):
    """The candidates that bend at no other candidate and at no ``accepted`` formula (a deeper neuron taken for one of this layer).

    ``accepted``: formulas of the same layer found before (by an earlier pass);
    they are checked wherever they cross a candidate, and never dropped.
    ``fading``: the candidates may be neurons of this layer that ``f`` does
    not bend on everywhere (traced with ``fading``); such a neuron seems to
    bend where it fades, at a deeper neuron's zero set, and a deeper piece
    bends at this layer's neurons. So a candidate that bends at an accepted
    formula is deeper; one that bends only at deeper ones is kept (if ``f``
    does not bend on it everywhere, only when it bends at one at least: its
    fading is explained there); one that bends at a kept one is deeper, and
    so on. What stays undecided bends at undecided ones, often in a cycle: a
    fading neuron seems to bend at the deeper pieces where it fades, and they
    bend at it, the same three rays of ``f`` at the crossing either way. The
    candidate the most undecided ones bend at (at least two, no tie) is then
    kept and the propagation goes on: deeper neurons bend at the neurons they
    read, and a neuron of this layer is read by many, where a deeper piece is
    bent at only by the neurons fading at it (2→3→4→3→1, seed 926249: a
    layer-2 neuron positive on a thin wedge, bent at by four layer-3 pieces,
    was dropped with them). The pieces already found deeper count as readers
    too (traced further, three of those four are found deeper first, and the
    neuron and the fourth were left bending at each other alone). What stays
    undecided after that is dropped.
    ``log``: the cuts already found (:func:`_cached_cut`).
    """
    everywhere = {region.id for region in partial.complex.regions()} if accepted else set()
    others = [(c, everywhere) for c in accepted]
    if not fading:
        return [
            a for i, a in enumerate(candidates)
            if not any(j != i and _bends_at(queries, partial, a, b, numerics) for j, b in enumerate(candidates))
            and not any(_bends_at(queries, partial, a, b, numerics) for b in others)
        ]
    deeper = {i for i, a in enumerate(candidates) if any(_bends_at(queries, partial, a, b, numerics) for b in others)}
    bends_at = {
        i: {j for j, b in enumerate(candidates) if j != i and _bends_at(queries, partial, a, b, numerics)}
        for i, a in enumerate(candidates) if i not in deeper
    }
    # a candidate f does not bend on everywhere is kept only where it fades at a deeper one; a family's formula
    # predicts only where its members vanishing on the traced regions vanish (as trace_neuron checked it)
    faded = {
        i for i in bends_at
        if candidates[i][0] is not None and _bends_everywhere(
            queries, partial, candidates[i][0], candidates[i][1], numerics, log=log,
            vanishing=vanishing_members(partial, candidates[i][2], candidates[i][3]) if candidates[i][2] else (),
        ) is None
    }
    chosen = set()
    while True:
        kept = chosen | {i for i, at in bends_at.items() if i not in deeper and at <= deeper and (i not in faded or at)}
        more = {i for i, at in bends_at.items() if i not in deeper and i not in kept and at & kept}
        if more:
            deeper |= more
            continue
        undecided = [i for i in bends_at if i not in deeper and i not in kept]
        # readers among the pieces found deeper too: they bend at the neurons they read
        readers = {i: sum(1 for j in bends_at if j not in kept and i in bends_at[j]) for i in undecided}
        top = max(readers.values(), default=0)
        if top < 2 or list(readers.values()).count(top) > 1:
            return [a for i, a in enumerate(candidates) if i in kept]
        chosen.add(next(i for i, count in readers.items() if count == top))


def orientations_by_pieces(partial, traces, count):
    """Up to ``count`` orientations of the last known layer, the likeliest first, from pieces traced unoriented.

    A hypersurface that misses some zero sets of the last known layer leaves
    its formula a family over ``relu(ẑ_i)``, ``ẑ_i`` and ``1`` (the traces
    ``log["pieces"]`` of :func:`trace_neuron` keeps). Its pieces are facts
    about ``f`` that hold in every orientation: with the flips ``t`` the
    features are ``relu(ẑ_i) - t_i ẑ_i`` and ``1`` (``relu(-ẑ) = relu(ẑ) - ẑ``),
    fewer unknowns, so the right ``t`` fits every traced piece (a nonzero
    formula) and determines more of them than a wrong one, which contradicts
    the pieces of a hypersurface crossing a flipped neuron's zero set. No
    oracle query: every orientation of up to ``RANKED_WIDTH`` neurons is
    ranked by (traces contradicted, traces left undetermined); the orientation
    search traces them again in that order
    (:func:`~polyrelu.recovery.next_layer.orientation_by_search`). A ranking only
    proposes; the output fit and the final check decide.

    Parameters
    ----------
    partial : PartialNetwork
        Built unoriented, with the complex the pieces' region ids refer to.
    traces : list of dict
        Region id -> the hyperplane traced there, one dict per hypersurface.
    count : int
        How many orientations to return.

    Returns
    -------
    list of tuple of bool
        Flips, best first (ties in the order of :func:`itertools.product`);
        empty when the layer is wider than ``RANKED_WIDTH`` or already oriented.
    """
    n = len(partial.layers[-1])
    if n > RANKED_WIDTH or partial.oriented:
        return []
    numerics = partial.numerics
    regions = partial.complex.regions()
    full = {region.id: partial.integer_features(region) for region in regions}  # pieces' equations: scale-blind
    ranked = []
    for flips in itertools.product((False, True), repeat=n):
        partial.clock.check()
        oriented = {
            rid: [tuple(row[i] - row[n + i] if flips[i] else row[i] for i in range(n)) + (row[2 * n],) for row in F]
            for rid, F in full.items()
        }
        basis = pivot_columns([row for F in oriented.values() for row in F])
        contradicted = undetermined = 0
        for pieces in traces:
            equations = [
                e for rid, h in pieces.items() for e in parallel_equations([[row[j] for j in basis] for row in oriented[rid]], h)
            ]
            dimension = len(numerics.nullspace(equations, len(basis)))
            contradicted += dimension == 0
            undetermined += dimension > 1
        ranked.append(((contradicted, undetermined), flips))
    ranked.sort(key=lambda item: item[0])
    return [flips for _, flips in ranked[:count]]
