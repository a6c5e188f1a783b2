"""The output layer: ``f``'s affine map on every region, fitted by the last hidden layer's features.

On each region of the recovered complex ``f`` is affine, measured from
``n0 + 2`` points (one checks affinity); the output layer's weights solve one
linear system over all regions, which also orients the last hidden layer. A
region whose map contradicts the others is where ``f`` bends beyond the known
neurons: :class:`MissedBreakpoint` sends the search there. Last-layer neurons
that are families are completed here, by the rank-one structure of the output
and the signs they must keep.

Glossary
--------
region map
    ``(A, c)`` with ``f(x) = A x + c`` on a region.
family columns
    ``[j on]·d_k``: a family neuron's free directions where it is active.

What it leaves to others: hidden layers (``tracing``, ``families``), the
acceptance check on fresh points (``driver``).
"""

import itertools
from fractions import Fraction

from ..geometry.rational import row_value
from .breakpoints import side_map
from .control import MissedBreakpoint, StageFailed
from .families import sign_rows, solve_rows
from .numerics import vadd, vscale
from .orientation import apply_flips, orient_layer, stable_orientation
from .partial import direction_map, moved_neuron

__all__ = []


def _region_map(queries, partial, region, numerics):
    """``f``'s affine map on a region from ``n0 + 2`` points inside it (one checks affinity)."""
    n0 = partial.n0
    x = region.relative_interior_point() if partial.complex is not None else (Fraction(0),) * n0
    eta = (1 + max(abs(v) for v in x)) * numerics.shrink
    if partial.complex is not None:
        # a probe moves a row by at most ||a||_1 · eta: stay inside however thin the region is where x lies
        room = [row_value(row, x) / sum(abs(v) for v in row[1:]) for row in region.polyhedron.inequalities if any(row[1:])]
        eta = min([eta, *(r / 2 for r in room if r > 0)])
    for _ in range(12):
        probes = [x] + [tuple(v + (eta if i == j else 0) for i, v in enumerate(x)) for j in range(n0)]
        probes.append(tuple(v - eta / (j + 2) for j, v in enumerate(x)))
        if partial.complex is None or all(partial.locate(p) is region for p in probes):
            break
        eta *= numerics.shrink
    else:
        raise StageFailed(f"could not place probe points inside region {region.id}")
    found = side_map(queries, x, eta, n0, numerics)
    if found is None:
        raise MissedBreakpoint(x)
    return found


def fit_output(queries, partial, numerics, retry=True):
    """The output layer (and the last hidden layer's orientation) from ``f`` on every region; regions checked.

    When no fit explains ``f`` and ``retry``: a family of the layer before the last completed from the output
    (:func:`_complete_inner_families`), or the neurons of that layer that no last-layer neuron reads flipped
    (:func:`_unread_orientations`), and the fit tried again.
    """
    regions = partial.complex.regions() if partial.complex is not None else [None]
    maps = {None if R is None else R.id: _region_map(queries, partial, R, numerics) for R in regions}
    m = queries.output_dim
    if partial.net is None:
        A, c = maps[None]
        return [(tuple(A[j]), c[j]) for j in range(m)], 1
    targets = [[(maps[R.id][1][j], *maps[R.id][0][j]) for R in regions] for j in range(m)]
    families, relus = _output_families(partial, regions)
    try:
        if families:
            return _fit_with_families(partial, regions, targets, families, relus), len(regions)
        vectors = []
        for j in range(m):
            blocks = [(partial.reduced(R), t) for R, t in zip(regions, targets[j])]
            vectors.append(numerics.fit(blocks, regions))
        flips, rows, _ = orient_layer(partial, vectors)
    except (StageFailed, MissedBreakpoint) as failure:
        try:
            # a last-layer neuron positive on the whole domain is read by the output only, past the features
            return _fit_with_families(partial, regions, targets, families, relus, failure), len(regions)
        except (StageFailed, MissedBreakpoint):
            if not retry:
                raise
            if _families_kept_by_signs(partial, regions, targets, families, relus):
                partial.rebuild()
                return fit_output(queries, partial, numerics)  # the completed neurons left ``partial.free``
            if not families and _complete_inner_families(partial, regions, targets):
                partial.rebuild()
                return fit_output(queries, partial, numerics)  # once more: the completed directions left ``partial.free``
            for flips in _unread_orientations(partial):
                before = partial.layers[-2]
                apply_flips(partial, flips, layer=-2)
                partial.rebuild()
                try:
                    return fit_output(queries, partial, numerics, retry=False)
                except (StageFailed, MissedBreakpoint):
                    partial.layers[-2] = before
            raise
    apply_flips(partial, flips)
    return rows, len(regions)


# neurons of the layer before the last whose orientations the output fit searches (2^k - 1 more fits)
MAX_UNREAD_FLIPS = 3
# last-layer families whose output weights' signs :func:`_families_kept_by_signs` searches (2^k feasibility problems)
MAX_SIGN_SEARCH = 5


def _unread_orientations(partial):
    """Flips of the neurons of the layer before the last that no last-layer neuron reads, other than none.

    Such a neuron's orientation was chosen when the last layer was traced,
    freely (no traced formula weighs it), yet something reads it: a
    last-layer neuron positive on the whole domain, which the output fit
    adds. That neuron reads ``relu(z_j)`` or ``relu(-z_j) = relu(z_j) - z_j``,
    and only the right one lies in the skip features; the last layer's rows
    stay valid under either (their weight on ``z_j`` is zero). At most
    :data:`MAX_UNREAD_FLIPS` neurons are searched; none of a layer the caller gave.
    """
    if len(partial.layers) < 2 or partial.is_known(-2) or not partial.numerics.max_families:
        return []
    width = len(partial.layers[-2])
    unread = [j for j in range(width) if not any(w[j] for w, _ in partial.layers[-1])]
    if not unread or len(unread) > MAX_UNREAD_FLIPS:
        return []
    return [
        tuple(j in chosen for j in range(width))
        for size in range(1, len(unread) + 1)
        for chosen in itertools.combinations(unread, size)
    ]


def _complete_inner_families(partial, regions, targets):
    """Complete the families of the layer before the last from the output's fit over product columns; whether any was.

    A neuron ``z_j`` of the layer before the last picked from a family has
    the right signs but possibly wrong weights along its free directions
    ``d_k``: every reader sees ``relu(z_j + Σ θ_k d_k)``, i.e. the columns
    ``X_jk = [z_j on]·d_k`` beside ``relu(z_j)``. When the last layer's traces
    never cross where ``z_j`` is on, nothing there shows ``θ``; the output
    does, where a last-layer neuron ``i`` reading ``z_j`` (weight ``w_ij``) is
    on too. The fit is over the skip features and, per reader, the columns
    ``[ẑ_i > 0]·X_jk`` and ``[ẑ_i <= 0]·X_jk``: the true neuron is on on one
    side, where the output reads ``v_i w_ij θ_k`` (``-v_i w_ij θ_k`` on the
    side ``ẑ_i <= 0``, since ``relu(-z) = relu(z) - z``) beside ``v_i``, and
    nothing on the other. A step is kept when the fit determines it (no null
    direction moves those coefficients), a reader shows it on one side only,
    and every reader gives the same ``θ_k``; the neuron becomes
    ``z_j + Σ θ_k d_k`` and the directions so fixed leave ``partial.free``.
    The caller rebuilds and fits again.
    """
    last = len(partial.layers) - 1
    numerics = partial.numerics
    inner = [(j, k, d) for (layer, j), directions in sorted(partial.free.items()) if layer == last - 1 for k, d in enumerate(directions)]
    if not inner or not numerics.max_families:  # layer 1 has no families, so ``last - 2`` is a hidden layer
        return False
    partial.use_features(skip=True)
    n = len(partial.layers[-1])
    position = {col: p for p, col in enumerate(partial.basis)}
    if any(i not in position for i in range(n)):
        return False
    zero = (Fraction(0),) * (partial.n0 + 1)
    columns = {}
    for R in regions:
        below = partial.layer_relu(R, last - 2)
        for j, k, d in inner:
            if R.signs[partial.offset - len(partial.layers[-2]) + j] <= 0:
                continue
            X = direction_map(below, d)
            for i in range(n):
                if partial.layers[-1][i][0][j]:
                    columns.setdefault((i, j, k, R.signs[partial.offset + i] > 0), {})[R.id] = X
    products = sorted(key for key, maps in columns.items() if any(any(X) for X in maps.values()))
    rows = {
        R.id: [(*F_row, *(columns[key].get(R.id, zero)[r] for key in products)) for r, F_row in enumerate(partial.reduced(R))]
        for R in regions
    }
    null = numerics.nullspace([row for R in regions for row in rows[R.id]], len(partial.basis) + len(products))
    read = {}  # (output, i, j, k) -> [v_i, {side: the product there, None if f does not determine it}]
    for out, target in enumerate(targets):
        x = numerics.fit([(rows[R.id], t) for R, t in zip(regions, target)], regions, locate=False)
        if x is None:
            return False
        for p, (i, j, k, on) in enumerate(products, start=len(partial.basis)):
            determined = not any(z[position[i]] or z[p] for z in null)
            read.setdefault((out, i, j, k), [x[position[i]], {}])[1][on] = x[p] if determined else None
    steps = {}
    for (_, i, j, k), (v, sides) in read.items():
        if None in sides.values() or not v:
            continue
        shown = [(1 if on else -1) * gamma for on, gamma in sides.items() if gamma]
        if len(shown) != 1:
            continue  # nothing shown, or on both sides: a neuron positive everywhere reads it too
        theta = shown[0] / (v * partial.layers[-1][i][0][j])
        if steps.setdefault((j, k), theta) != theta:
            return False
    if not steps:
        return False
    partial.complete_families(last - 1, steps)
    return True


def _families_kept_by_signs(partial, regions, targets, families, relus):
    """Complete the last layer's families where the output leaves their steps free; whether any was.

    Beside a last-layer neuron positive on the whole domain, the output's fit
    over the skip features and the family columns ``[ẑ_j > 0]·d_k``
    (:func:`_fit_with_families`) can be undetermined: ``d_k`` is a
    combination of the ``relu(y)`` that the positive neuron reads as well.
    Every solution ``x0 + Σ α_i n_i`` (``n_i`` the null space) then explains
    ``f`` on every region, and gives the neuron ``j`` the step ``u_jk / c_j``
    (``c_j`` the weight on ``relu(ẑ_j)``, ``u_jk`` on its column); the
    network is valid where each completed neuron keeps its signs on every
    region. With a sign ``σ_j`` for each ``c_j``, that is linear in ``α``
    (and in ``c_j t_k`` for the directions the output never sees):
    ``σ_j (c_j ẑ_j + Σ u_jk d_k) > 0`` where ``j`` is on, ``< 0`` inside the
    regions where it is off, ``σ_j c_j > 0``. One exact feasibility problem
    per choice of the ``σ`` (that of ``x0`` first); the first feasible one
    completes every family of the last layer. The caller rebuilds and fits
    again, which decides; the final check against the oracle decides that.
    """
    numerics = partial.numerics
    last = len(partial.layers) - 1
    free = {j: directions for (layer, j), directions in sorted(partial.free.items()) if layer == last}
    if len(targets) != 1 or not free or len(free) > MAX_SIGN_SEARCH or not numerics.max_families:
        return False  # several outputs would each need the same steps: a bilinear problem
    partial.use_features(skip=True)
    size = len(partial.basis)
    position = {col: p for p, col in enumerate(partial.basis)}
    if any(j not in position for j in free):
        return False
    zero = (Fraction(0),) * (partial.n0 + 1)
    seen = [(j, k) for j in free for (k, side) in sorted(families.get(j, {})) if side == 0]
    rows = {
        R.id: [(*F_row, *(families[j][k, 0].get(R.id, zero)[r] for j, k in seen)) for r, F_row in enumerate(partial.reduced(R))]
        for R in regions
    }
    x0 = numerics.fit([(rows[R.id], t) for R, t in zip(regions, targets[0])], regions, locate=False)
    if x0 is None:
        return False
    null = numerics.nullspace([row for R in regions for row in rows[R.id]], size + len(seen))
    unseen = [(j, k) for j, directions in free.items() for k in range(len(directions)) if (j, k) not in seen]
    nvars = len(null) + len(unseen)

    def coefficient(p):
        """``x[p]`` as an affine row in the unknowns ``(α, s)``."""
        return (x0[p], *(z[p] for z in null), *(Fraction(0),) * len(unseen))

    # per family and region, the map c_j ẑ_j + Σ u_jk d_k as a row per unknown (the constant of (α, s) first):
    # the same for every choice of signs below
    maps = {}
    for j, directions in free.items():
        c = coefficient(position[j])
        us = {k: coefficient(size + p) for p, (i, k) in enumerate(seen) if i == j}
        for R in regions:
            relu = relus[R.id]
            base = direction_map(relu, partial.layers[-1][j])
            rows_j = [vscale(c[v], base) for v in range(1 + nvars)]
            for k, u in us.items():
                d = direction_map(relu, directions[k])
                rows_j = [vadd(m, vscale(u[v], d)) for v, m in enumerate(rows_j)]
            for q, (i, k) in enumerate(unseen, start=1 + len(null)):
                if i == j:
                    rows_j[q] = vadd(rows_j[q], direction_map(relu, directions[k]))
            maps[j, R.id] = rows_j
    for signs in itertools.product((1, -1), repeat=len(free)):
        partial.clock.check()
        sigma = {j: s if x0[position[j]] >= 0 else -s for j, s in zip(free, signs)}
        ieqs, eqns, strict = set(), set(), set()
        for j in free:
            strict.add(vscale(sigma[j], coefficient(position[j])))
            for R in regions:
                on = 1 if R.signs[partial.offset + j] > 0 else -1
                sign_rows(R, on * sigma[j], maps[j, R.id], ieqs, eqns, strict)
        t = solve_rows(ieqs, eqns, strict, nvars)
        if t is None:
            continue
        x = [x0[p] + sum(a * z[p] for a, z in zip(t, null)) for p in range(size + len(seen))]
        steps = {(j, k): x[size + p] / x[position[j]] for p, (j, k) in enumerate(seen)}
        steps.update({(j, k): s / x[position[j]] for (j, k), s in zip(unseen, t[len(null):])})
        partial.complete_families(last, steps)
        return True
    return False


def _output_families(partial, regions):
    """Per family neuron ``j`` of the last layer: ``{(k, side): {region: map}}`` of ``[j on side]·d_k``, non-zero ones.

    ``d_k`` are the family's free directions (``partial.free``); ``side`` 0 is
    where the provisional ``ẑ_j > 0``, 1 where it is not. Also returns the
    previous layer's ``relu(z_i)`` on every region (:meth:`~polyrelu.recovery.partial.PartialNetwork.previous_relu`),
    which :func:`_corrected_layer` needs again.
    """
    last = len(partial.layers) - 1
    free = {j: dirs for (l, j), dirs in partial.free.items() if l == last}
    families = {}
    relus = {R.id: partial.previous_relu(R) for R in regions} if free else {}
    for R in regions if free else ():
        relu = relus[R.id]
        for j, directions in free.items():
            side = 0 if R.signs[partial.offset + j] > 0 else 1
            for k, d in enumerate(directions):
                a = direction_map(relu, d)
                if any(a):
                    families.setdefault(j, {}).setdefault((k, side), {})[R.id] = a
    return families, relus


def _fit_with_families(partial, regions, targets, families, relus, failure=None):
    """The output fit when last-layer neurons are families (:func:`~polyrelu.recovery.tracing.trace_neuron`), or positive everywhere.

    Where family ``j`` is active the output reads ``v_j (z_j + Σ Δ_k d_k)``
    with the free directions ``d_k``: columns ``[j on]·d_k`` whose
    coefficients ``u_k = v_j Δ_k`` are linear. Each orientation of the
    families chooses the side of those columns; it must agree with
    :func:`orient_layer`, the ``u`` must be rank one across outputs, and the
    corrected neurons must keep their signs on every region
    (:func:`_corrected_layer`, which also re-chooses the directions the output
    never sees).

    With ``failure`` (what the fit without them raised: a
    :class:`StageFailed`, or the :class:`MissedBreakpoint` that sends the
    search where ``f`` bends beyond the known neurons), the output may also
    read last-layer neurons positive on the whole domain, which no trace
    finds: the fit is over the skip features too, the orientation is
    :func:`~polyrelu.recovery.orientation.stable_orientation`'s with each
    family's side fixed, and the neurons it adds join the layer. ``failure``
    is raised again when that does not explain ``f`` either.
    """
    numerics = partial.numerics
    stable = failure is not None
    if stable and (len(partial.layers) < 2 or not numerics.max_families):  # float mode completes no neuron from a fit
        raise failure
    if not numerics.max_families:
        raise StageFailed(f"{numerics.name} does not recover neurons whose hypersurface misses a previous-layer neuron (TPIC fails)")
    if len(families) > numerics.max_families:
        message = f"{len(families)} neurons whose hypersurface misses a previous-layer neuron: at most {numerics.max_families} are oriented by search"
        raise failure if stable else StageFailed(message)
    if stable:
        partial.use_features(skip=True)
    size = len(partial.basis)
    zero = (Fraction(0),) * (partial.n0 + 1)
    order = sorted(families)
    first, fitted = None, False
    for sides in itertools.product((0, 1), repeat=len(order)):
        partial.clock.check()
        side = dict(zip(order, sides))
        cols = [(j, k) for j in order for (k, s) in sorted(families[j]) if s == side[j]]
        vectors = []
        for target in targets:
            blocks = [
                ([(*F_row, *(families[j][k, side[j]].get(R.id, zero)[r] for j, k in cols)) for r, F_row in enumerate(partial.reduced(R))], t)
                for R, t in zip(regions, target)
            ]
            x = numerics.fit(blocks, regions, locate=False)
            if x is None:
                first = first or blocks
                break
            vectors.append(x)
        else:
            fitted = True
            try:
                if stable:
                    flips, neurons, rows = stable_orientation(partial, [v[:size] for v in vectors], failure, fixed=side)
                    moved = vectors
                else:
                    # the columns can be dependent (a family active almost everywhere): the orientation picks the solution
                    null = partial.numerics.nullspace([row for F, _ in blocks for row in F], len(vectors[0]))
                    flips, rows, moved = orient_layer(partial, vectors, fixed=side, null=null)
                    neurons = []
            except StageFailed:
                continue
            original = partial.layers[-1]
            partial.layers[-1] = original + neurons
            flips = [*flips, *[False] * len(neurons)]
            if not families:  # positive neurons only: nothing to complete
                apply_flips(partial, flips)
                return rows
            corrected = _corrected_layer(partial, regions, relus, flips, rows, [v[size:] for v in moved], cols)
            if corrected is not None:
                partial.layers[-1], rows = corrected
                return rows
            partial.layers[-1] = original
    if stable:
        raise failure
    if not fitted:
        numerics.fit(first, regions)  # raises MissedBreakpoint where f bends beyond the known neurons
    raise StageFailed("no orientation of the neurons whose hypersurface misses a previous-layer neuron fits f")


def _corrected_layer(partial, regions, relus, flips, rows, products, cols):
    """The last layer and output rows with the families completed, or None.

    After the flips the output reads ``[j on]·(v_j r_j + Σ u_k d_k)`` for a
    family ``j`` with row ``r_j``: so the neuron is ``±(r_j + Σ (u_k / v_j) d_k)``,
    the sign the one that is positive where ``j`` is on (then ``v_j`` changes
    sign too). ``u / v`` must agree across outputs, and the signs hold on
    every region, with the directions the output never sees chosen to make
    them hold (:func:`solve_rows`).
    """
    delta = {}
    for (j, k), u in zip(cols, zip(*products)):
        for v_out, u_out in zip((w[j] for w, _ in rows), u):
            if v_out == 0:
                if u_out:
                    return None
            elif delta.setdefault((j, k), u_out / v_out) != u_out / v_out:
                return None
    layer = [(tuple(-v for v in w), -b) if flip else (w, b) for (w, b), flip in zip(partial.layers[-1], flips)]
    rows = list(rows)
    last = len(partial.layers) - 1
    for (l, j), directions in partial.free.items():
        if l != last:
            continue
        w, b = moved_neuron(layer[j], [(delta[j, k], d) for k, d in enumerate(directions) if (j, k) in delta])
        rest = [d for k, d in enumerate(directions) if (j, k) not in delta]
        pieces = [
            (R, 1 if (R.signs[partial.offset + j] > 0) != flips[j] else -1, direction_map(relus[R.id], (w, b)),
             [direction_map(relus[R.id], d) for d in rest])
            for R in regions
        ]
        for sign in (1, -1):
            ieqs, eqns, strict = set(), set(), set()
            for R, on, base, moves in pieces:
                sign_rows(R, on, [vscale(sign, base), *moves], ieqs, eqns, strict)
            t = solve_rows(ieqs, eqns, strict, len(rest))
            if t is not None:
                break
        else:
            return None
        w, b = moved_neuron((vscale(sign, w), sign * b), zip(t, rest))
        layer[j] = (tuple(w), b)
        rows = [(tuple(sign * v if i == j else v for i, v in enumerate(w_out)), beta) for w_out, beta in rows]
    return layer, rows
