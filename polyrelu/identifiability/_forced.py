"""Certificates that every parameter computing ``f`` is trivially equivalent: one and two hidden layers.

For ``f(x) = Σ_j v_j relu(w_j · x + b_j) + c`` on a full-dimensional domain
``D``, recovery's steps are forced, not chosen, when the assumptions of
:func:`one_hidden_layer_certificate` hold: ``f`` bends exactly on the
hyperplanes ``H_j`` inside ``D``, so any parameter of the architecture
computing ``f`` has one neuron on each of them; the jump of ``f``'s Jacobian
across ``H_j`` fixes that neuron's outgoing weight up to the neuron's scale; a
neuron of the other parameter that faces the other way
(``relu(z) = relu(−z) + z``) leaves an affine term that must vanish, which the
last assumption forbids.

With two hidden layers (:func:`two_hidden_layer_certificate`) the first
layer's hyperplanes are read from the points where ``f``'s bending locus is
not a union of hyperplanes (only a first-layer hyperplane of any parameter
can pass there), when exactly one set of ``n1`` hyperplanes covers them; each
second-layer neuron of the other parameter is then one of ``θ``'s plus a
family ``Σ_i β_i relu(±z_i)`` vanishing on the region where the two agree,
and every ``β_i`` is shown to be zero from the pieces of the bending locus
that only that neuron can produce. docs/theory.md states both theorems and
their proofs.

This is an internal module of :mod:`polyrelu.identifiability`:
:func:`one_hidden_layer_certificate` and :func:`two_hidden_layer_certificate`
are its named API, used by :mod:`polyrelu.identifiability.verdicts` for the
verdict ``"identifiable (recovery forced)"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..complex import CanonicalComplex
from ..geometry.linalg import integer_nullspace, rank
from ..geometry.rational import primitive_integer_row
from ..network import ReLUNetwork
from ..tropical import tropical_weights
from ._parameters import MAX_FLIP_NEURONS, cancelling_subset

__all__ = ["one_hidden_layer_certificate", "two_hidden_layer_certificate", "MAX_COVER_NODES"]

#: The search for a second set of at most ``n1`` hyperplanes covering the non-flat points gives up (and the
#: certificate is not issued) after this many nodes.
MAX_COVER_NODES = 100_000


def one_hidden_layer_certificate(
    K: CanonicalComplex, flips: Sequence[tuple[bool, tuple[int, ...] | None]]
) -> tuple[bool, tuple[str, ...]]:
    """Whether the one-hidden-layer theorem of docs/theory.md applies to ``K``'s network: ``(holds, checked lines)``.

    Each assumption is checked exactly on the network and its canonical
    complex ``K`` on the domain; the lines say what was checked, in order, and
    end at the first assumption that fails (then ``holds`` is False). ``flips``
    holds :func:`~polyrelu.identifiability._parameters.cancelling_subset` of
    each hidden layer, computed once by the caller.
    """
    network = K.network
    arch = network.architecture
    if len(arch.hidden_widths) != 1:
        return False, (f"{len(arch.hidden_widths)} hidden layers: the arguments cover one and two",)
    (W, b), (V, _) = network.layers
    n = len(W)
    checked: list[str] = []

    def fails(line):
        return False, (*checked, line)

    regions = [r.signs for r in K.regions()]
    if not regions:
        return fails("the domain has no region of full dimension")
    checked.append(f"one hidden layer; the domain is full-dimensional ({len(regions)} regions)")
    zero_rows = [j for j in range(n) if not any(W[j])]
    if zero_rows:
        return fails(f"neuron(s) {zero_rows} of layer 1 have no incoming weight")
    checked.append("every hidden neuron has a non-zero incoming weight")
    silent = [j for j in range(n) if not any(row[j] for row in V)]
    if silent:
        return fails(f"neuron(s) {silent} of layer 1 have no outgoing weight")
    checked.append("every hidden neuron has a non-zero outgoing weight")
    unseen = [j for j in range(n) if not (any(s[j] > 0 for s in regions) and any(s[j] < 0 for s in regions))]
    if unseen:
        return fails(f"the hyperplane(s) of neuron(s) {unseen} do not cross the domain's interior")
    checked.append("every neuron's hyperplane crosses the domain's interior (regions on both sides)")
    planes = [_hyperplane((b[j], *W[j])) for j in range(n)]
    for j in range(n):
        if planes[j] in planes[:j]:
            return fails(f"neurons {planes.index(planes[j])} and {j} have the same hyperplane")
    checked.append("the hyperplanes are pairwise distinct")
    decided, flipped = flips[0]
    if not decided:
        return fails(f"the search for neurons whose flips cancel involves more than {MAX_FLIP_NEURONS} neurons; not decided")
    if flipped:
        return fails(f"the flips of neurons {list(flipped)} cancel: Σ v_j w_j^T = 0 over them")
    checked.append("no non-empty set of neurons has Σ v_j w_j^T = 0 (decided exactly over the null space)")
    return True, tuple(checked)


def two_hidden_layer_certificate(
    K: CanonicalComplex, flips: Sequence[tuple[bool, tuple[int, ...] | None]]
) -> tuple[bool, tuple[str, ...]]:
    """Whether the two-hidden-layer theorem of docs/theory.md applies to ``K``'s network: ``(holds, checked lines)``.

    As :func:`one_hidden_layer_certificate`: every assumption is checked
    exactly on the network and its canonical complex ``K``, the lines say what
    was checked and end at the first assumption that fails.
    """
    network = K.network
    arch = network.architecture
    if len(arch.hidden_widths) != 2:
        return False, (f"{len(arch.hidden_widths)} hidden layers: the argument covers two",)
    n0 = arch.input_dim
    n1, n2 = arch.hidden_widths
    (W1, b1), _, _ = network.layers
    checked: list[str] = []

    def fails(line):
        return False, (*checked, line)

    if n0 < 2:
        return fails("one input: the first layer is read at cells of codimension 2, and there are none")
    for layer, (decided, flipped) in enumerate(flips, start=1):
        if not decided:
            return fails(f"the search for neurons of layer {layer} whose flips cancel involves more than "
                         f"{MAX_FLIP_NEURONS} neurons; not decided")
        if flipped:
            return fails(f"the flips of neurons {list(flipped)} of layer {layer} cancel")
    checked.append("no non-empty set of neurons of layer 1 or of layer 2 has flips that cancel (decided exactly)")
    planes = [_hyperplane((b1[i], *W1[i])) for i in range(n1)]
    if None in planes:
        return fails(f"neuron {planes.index(None)} of layer 1 has no incoming weight")
    if len(set(planes)) < n1:
        return fails("two neurons of layer 1 have the same hyperplane")
    checked.append("the first layer's hyperplanes are pairwise distinct")
    weights = tropical_weights(K).weights()
    flats = _non_flat_flats(K, weights)
    members = [frozenset(k for k, flat in enumerate(flats) if _contains(plane, flat)) for plane in planes]
    for i, own in enumerate(members):
        private = own.difference(*(m for j, m in enumerate(members) if j != i))
        if len(private) < 2:
            return fails(f"f's bending locus is not a union of hyperplanes at {len(flats)} flats of codimension 2, "
                         f"but the hyperplane of neuron {i} of layer 1 holds only {len(private)} of them that no "
                         "other first-layer hyperplane holds, so other sets of hyperplanes cover them too")
    checked.append(f"f's bending locus is not a union of hyperplanes at {len(flats)} flats of codimension 2; "
                   "every first-layer hyperplane holds at least 2 of them that no other one holds")
    other = _second_cover(flats, planes, members, n0)
    if other is not None:
        return fails(other)
    checked.append(f"no set of at most {n1} hyperplanes other than the first layer's covers those flats")
    holds, line = _second_layer_forced(K, weights, n1, n2)
    if not holds:
        return fails(line)
    checked.append(line)
    return True, tuple(checked)


def _hyperplane(row):
    """The hyperplane ``{row[0] + row[1:]·x = 0}`` as a key: primitive, first non-zero normal entry positive; None if ``row[1:] = 0``."""
    row = primitive_integer_row(row)
    lead = next((v for v in row[1:] if v), 0)
    if not lead:
        return None
    return row if lead > 0 else tuple(-v for v in row)


def _contains(plane, flat):
    """Whether the hyperplane key ``plane`` contains the affine subspace ``flat`` (exact)."""
    c, *normal = plane
    return c + sum(a * p for a, p in zip(normal, flat.point)) == 0 and all(
        sum(a * v for a, v in zip(normal, d)) == 0 for d in flat.basis)


def _non_flat_flats(K, weights):
    """The affine hulls of the interior cells of codimension 2 where ``f``'s bending locus is not a union of hyperplanes.

    Near a point of such a cell the bent facets through it are half-hyperplanes
    bounded by the cell's hull; the locus is a union of hyperplanes there
    exactly when every bent facet's opposite half is bent too, i.e. when no
    hyperplane carries a single bent facet through the cell.
    """
    n0 = K.network.architecture.input_dim
    flats = {}
    for cell in K.cells(n0 - 2):
        cofacets = K.lattice.cofacets(cell.id)
        if any(f not in weights for f in cofacets):
            continue  # on the domain's boundary
        lines = [_hyperplane((0, *weights[f].normal)) for f in cofacets if any(weights[f].weight)]
        if any(lines.count(line) == 1 for line in lines):
            hull = cell.polyhedron.affine_hull()
            flats.setdefault(hull.equations, hull)
    return list(flats.values())


class _GiveUp(Exception):
    """The cover search reached :data:`MAX_COVER_NODES`."""


def _second_cover(flats, planes, members, n0):
    """Why some set of at most ``len(planes)`` hyperplanes other than ``planes`` covers ``flats``; None if none does.

    Every cover avoiding a first-layer hyperplane ``H`` meets ``H``'s flats one
    at a time (another hyperplane meets ``H`` in one flat at most), so only
    hyperplanes holding at most ``n1`` flats can be avoided. The search then
    branches on an uncovered flat: on the hyperplanes through it and another
    flat (each tried, then excluded from the other branches), or on a
    hyperplane through it alone. Excluded first-layer hyperplanes bound the
    number still needed.
    """
    n1 = len(planes)
    own = dict(zip(planes, members))
    cache: dict[int, dict] = {}

    def through(phi):
        if phi not in cache:
            a = flats[phi]
            groups: dict[tuple, set] = {}
            for psi, b in enumerate(flats):
                if psi == phi:
                    continue
                directions = [*a.basis, *b.basis, [q - p for p, q in zip(a.point, b.point)]]
                if rank(directions) != n0 - 1:
                    continue  # the two flats span all of R^n0 (skew lines, in three dimensions)
                (normal,) = integer_nullspace(directions, n0)
                plane = _hyperplane((-sum(x * p for x, p in zip(normal, a.point)), *normal))
                groups.setdefault(plane, {phi}).add(psi)
            cache[phi] = {plane: frozenset(s) for plane, s in groups.items()}
        return cache[phi]

    nodes = 0
    widest = 0

    def search(uncovered, budget, excluded):
        nonlocal nodes
        nodes += 1
        if nodes > MAX_COVER_NODES:
            raise _GiveUp
        if not uncovered:
            return True
        avoided = sorted((p for p in planes if p in excluded), key=lambda p: -len(own[p] & uncovered))
        needed: frozenset = frozenset()
        for count, plane in enumerate(avoided, start=1):
            needed |= own[plane] & uncovered
            if -(-len(needed) // count) > budget:
                return False
        if budget == 0:
            return False
        sizes = sorted([len(own[p] & uncovered) for p in planes if p not in excluded] + [widest] * budget,
                       reverse=True)
        if sum(sizes[:budget]) < len(uncovered):
            return False
        first = next((p for p in avoided if own[p] & uncovered), None)
        pool = own[first] & uncovered if first is not None else uncovered
        phi = min(pool, key=lambda k: len(through(k)))
        excluded = set(excluded)
        for plane, held in sorted(through(phi).items(), key=lambda item: -len(item[1])):
            if plane in excluded:
                continue
            if search(uncovered - held, budget - 1, excluded):
                return True
            excluded.add(plane)
        return search(uncovered - {phi}, budget - 1, excluded)

    avoidable = [p for p in planes if len(own[p]) <= n1]
    if not avoidable:
        return None
    widest = max([len(held) for phi in range(len(flats)) for plane, held in through(phi).items() if plane not in own]
                 + [1])
    everything = frozenset(range(len(flats)))
    try:
        for plane in avoidable:
            if search(everything, n1, {plane}):
                i = planes.index(plane)
                return (f"{n1} hyperplanes cover the {len(flats)} flats where f's bending locus is not a union of "
                        f"hyperplanes without the hyperplane of neuron {i} of layer 1")
    except _GiveUp:
        return (f"the search for another set of {n1} hyperplanes covering the {len(flats)} flats gave up after "
                f"{MAX_COVER_NODES} nodes; not decided")
    return None


def _second_layer_forced(K, weights, n1, n2):
    """``(holds, line)``: whether every second-layer neuron of another parameter is one of ``θ``'s, up to scale.

    Given the first layer (up to scale and sign), such a neuron agrees with a
    neuron ``k`` of ``θ`` up to a factor on some first-layer region ``R``
    (an anchor), so it is ``μ g_k + Σ_i β_i relu(−s_i z_i)`` with ``s`` the
    signs of ``R``. A bent piece of ``f`` inside another region ``R'`` is
    made by one neuron of the other parameter, distinct pieces by distinct
    neurons; when every such assignment gives a piece to the same anchored
    neuron, which meets ``R'`` as ``g_k`` does, the ``β_i`` of the hyperplanes
    between ``R`` and ``R'`` are zero (when ``g_k`` and those ``z_i`` are
    independent on ``R'``); when every assignment gives it to a neuron not yet
    anchored, that neuron is anchored there.
    """
    network = K.network
    (W1, b1), (W2, b2), _ = network.layers
    n0 = network.architecture.input_dim
    z = [(b1[i], *W1[i]) for i in range(n1)]
    cache: dict = {}

    def g(k, s):  # neuron k of layer 2 on the first-layer region with signs s, as an affine row (c, a)
        if (k, s) not in cache:
            row = [Fraction(b2[k])] + [Fraction(0)] * n0
            for i in range(n1):
                if s[i] > 0:
                    for j in range(n0 + 1):
                        row[j] += W2[k][i] * z[i][j]
            cache[k, s] = row
        return cache[k, s]

    all_signs = {r.id: tuple(r.signs) for r in K.regions()}
    region_signs = {rid: signs[:n1] for rid, signs in all_signs.items()}
    pieces: dict[tuple, set] = {s: set() for s in region_signs.values()}
    for w in weights.values():
        s = region_signs[w.minus_region]
        if s == region_signs[w.plus_region] and any(w.weight):
            (_, k), *_ = w.neurons  # inside a first-layer region only second-layer neurons switch
            pieces[s].add(_hyperplane(g(k, s)))
    owners = {(s, h): [k for k in range(n2) if _hyperplane(g(k, s)) == h] for s, hs in pieces.items() for h in hs}
    shown = {ks[0] for ks in owners.values() if len(ks) == 1}
    if len(shown) < n2:
        return False, (f"neuron(s) {sorted(set(range(n2)) - shown)} of layer 2 bend f on no hyperplane piece of "
                       "their own inside a first-layer region")
    most = max(len(hs) for hs in pieces.values())
    line = ""
    for start in sorted(s for s, hs in pieces.items() if len(hs) == most):
        holds, line, anchors = _anchor_and_close(start, pieces, owners, g, z, n1, n2)
        if holds:
            return True, line
        open_anchors = [a for a in anchors if a[2]]
        if len(anchors) == n2 and len(open_anchors) == 1:
            closed, why = _close_by_output(network, open_anchors[0], pieces, owners, list(all_signs.values()), n1)
            if closed:
                return True, ("every second-layer neuron of another parameter is one of θ's up to a factor: all but "
                              f"neuron {open_anchors[0][0]} pinned by the pieces of f, whose open family f's values "
                              f"close ({why})")
            line = f"{line}; not closed by the output: {why}"
    return False, line


def _close_by_output(network, anchor, pieces, owners, region_signs, n1):
    """``(closed, line)``: whether the one anchor with open ``β`` has them all zero, from ``f``'s values.

    Every other second-layer neuron of the other parameter is ``μ_m g_m``. On
    the far side of the open ``H_i`` (``Far``) ``g_k > 0``; every neuron shows a
    piece of its own off ``Far``, so its outgoing weight is ``v_m/|μ_m|``. With
    ``Δ = relu(g_k + T) − relu(g_k)`` (``T = Σ β_i relu(−s_i z_i)``, zero off
    ``Far``), ``f' = f`` reads ``c' − c − Σ_{m∈M} v_m g_m − [k∈M] v_k T + v_k Δ = 0``
    with ``M`` the neurons of negative ``μ``. Off ``Far`` this leaves
    ``Σ_{m∈M} v_m g_m`` constant, which on two regions apart across ``H_i`` only
    cancels column ``i`` of ``Σ_{m∈M} v_m W2[m, :]``: a set of flips that cancel
    on the other columns, which must not exist. So ``M`` is empty, ``c' = c``,
    ``Δ = 0``, hence ``T = 0`` on ``Far`` (where ``g_k > 0``), and every ``β_i = 0``.
    """
    k, ref, open_ = anchor
    arch = network.architecture
    n2 = arch.hidden_widths[1]

    def far(signs):
        return any(signs[i] != ref[i] for i in open_)

    if any(far(r[:n1]) and r[n1 + k] <= 0 for r in region_signs):
        return False, f"neuron {k} of layer 2 is not positive on every region beyond the hyperplanes {sorted(open_)}"
    unseen = [m for m in range(n2) if m != k and not any(
        ks == [m] and not far(s) for (s, _), ks in owners.items())]
    if unseen:
        return False, f"neuron(s) {unseen} of layer 2 show no piece of their own before the hyperplanes {sorted(open_)}"
    near = {s for s in pieces if not far(s)}
    free = set(open_) | {i for i in range(n1) if not any(
        (*s[:i], -s[i], *s[i + 1:]) in near for s in near)}
    W1, W2, V = network.weights
    restricted = ReLUNetwork([W1, [[0 if i in free else w for i, w in enumerate(row)] for row in W2], V],
                             network.biases)
    decided, flipped = cancelling_subset(restricted, 2)
    if not decided or flipped:
        return False, (f"second-layer flips that cancel outside the columns {sorted(free)} were "
                       + ("not searched for" if not decided else f"found: {list(flipped)}"))
    return True, (f"neuron {k} of layer 2 is positive beyond the hyperplanes {sorted(open_)}, and no second-layer "
                  f"flips cancel outside the columns {sorted(free)}")


def _anchor_and_close(start, pieces, owners, g, z, n1, n2):
    """:func:`_second_layer_forced` from the anchors of the region with signs ``start``: ``(holds, line, anchors)``.

    ``anchors`` is what the propagation pinned, for :func:`_close_by_output`; empty when two anchors share a
    neuron of ``θ``, which that closing cannot use.
    """
    # an anchored neuron: [neuron k of θ, signs of its anchor region, the i whose β_i is not yet known to be 0]
    anchors = [[owners[start, h][0], start, set(range(n1))] for h in sorted(pieces[start])]
    order = sorted(pieces, key=lambda s: (sum(a != b for a, b in zip(s, start)), s))
    changed = True
    while changed:
        changed = False
        for s in order:
            hs = sorted(pieces[s])

            def span(anchor):
                k, ref, open_ = anchor
                return [g(k, s), *[z[i] for i in sorted(open_) if s[i] != ref[i]]]

            spans = [span(a) for a in anchors]
            ranks = [rank(b) for b in spans]
            can = {h: {n for n, (b, r) in enumerate(zip(spans, ranks)) if rank([*b, h]) == r} for h in hs}
            free = n2 - len(anchors)
            for h in hs:
                others = [o for o in hs if o != h]
                possible: set = {n for n in can[h] if _assignable(others, can, {n}, free)}
                if free and _assignable(others, can, set(), free - 1):
                    possible.add(None)
                if possible == {None}:
                    anchors.append([owners[s, h][0], s, set(range(n1))])
                    changed = True
                    break
                if len(possible) == 1:
                    (n,) = possible
                    k, ref, open_ = anchors[n]
                    across = {i for i in open_ if s[i] != ref[i]}
                    if across and _hyperplane(g(k, s)) == h and ranks[n] == 1 + len(across):
                        open_ -= across
                        changed = True
                        break
    if len(anchors) < n2:
        return False, (f"only {len(anchors)} of the {n2} second-layer neurons of another parameter are pinned to a "
                       "neuron of θ on some region"), anchors
    if len({a[0] for a in anchors}) < n2:
        return False, "two second-layer neurons of another parameter are pinned to the same neuron of θ", []
    still = {a[0]: sorted(a[2]) for a in anchors if a[2]}
    if still:
        return False, ("second-layer neurons whose family relu(±z_i) terms no piece of f excludes (θ's neuron: "
                       f"first-layer neurons i): {still}"), anchors
    return True, (f"every second-layer neuron of another parameter is one of θ's up to a factor: pinned from the "
                  f"{len(pieces[start])} bent pieces of the first-layer region "
                  f"{''.join('+' if v > 0 else '-' for v in start)} and the pieces of the others"), anchors


def _assignable(hyperplanes, can, used, free):
    """Whether distinct neurons (anchored ones outside ``used``, or ``free`` unanchored ones) can make every piece."""
    if not hyperplanes:
        return True
    h, *rest = hyperplanes
    if free and _assignable(rest, can, used, free - 1):
        return True
    return any(_assignable(rest, can, used | {n}, free) for n in can[h] - used)
