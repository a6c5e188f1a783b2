"""First-layer neurons: hyperplanes along which ``f`` bends everywhere, or in part.

A first-layer neuron's zero set is a whole hyperplane; ``f`` bends along it
wherever some downstream neuron is active, far out in every direction. A
deeper neuron's hypersurface bends where it crosses the neurons it reads, so
its flat pieces end (docs/design.md §5). In a deep network the downstream
neurons are often off far away, and a first-layer hyperplane shows only on a
bounded part: :func:`straight_hyperplane` walks it across the hypersurfaces
that cross it instead (docs/recovery.md, step 3), and one that no search line
met is proposed where the walks cross it (:func:`hyperplanes_crossing`). The
checks here use only the oracle.

Glossary
--------
one-sided
    ``f`` bends along the hyperplane on one side of every tangent direction
    only: a first-layer neuron whose downstream neurons are off beyond, or a
    deeper neuron's unbounded last piece (told apart by
    :func:`partly_bent_hyperplanes`).
window
    The scale of the search so far: the checks go out to multiples of it.
walk
    The line through a breakpoint along a direction inside its hyperplane,
    with the crossings of other hypersurfaces on it and where ``f`` bends
    along the hyperplane between them (:func:`walk_hyperplane`).

What it leaves to others: the breakpoint search (``breakpoints``), deeper
layers (``tracing``).
"""

import itertools
from fractions import Fraction

from ..geometry.rational import row_value
from .breakpoints import (
    breakpoint_at,
    is_breakpoint_along,
    line_range,
    segment_breakpoints,
)
from .control import StageFailed
from .numerics import orthogonal_part, tangent_basis, vadd, vdot, vscale, vsub

__all__ = []

# the pieces a walk along a hyperplane is searched in (:func:`walk_hyperplane`)
WALK_PIECES = 32
# the key under which a memo of walks keeps the breakpoints found where walks ended (:func:`crossing_hyperplanes`)
_ENDS = "ends"
# the height of the rectangle around a crossing, relative to its width (:func:`_rays`)
_HEIGHT = Fraction(89, 128)


def hyperplane_neuron(queries, bp, window, numerics, domain_rows, one_sided=False):
    """Whether the breakpoint's hyperplane is a first-layer neuron: ``f`` bends along it far away on every side too.

    A deeper neuron's hypersurface bends where it crosses an earlier one, so
    its flat pieces end; the checks go out along ``±`` each tangent direction
    to ``r``, 8 and 64 times ``r`` with ``r = window + 2 |breakpoint|`` (past the
    origin, for a breakpoint found far out); in a polytope domain to 1/8,
    1/2 and 7/8 of the way to its boundary.

    ``one_sided``: enough that ``f`` bends at all checks on one side of each
    tangent direction. A first-layer neuron whose downstream neurons are all
    off on one side leaves no breakpoint there; so does a deeper neuron's
    unbounded last piece, which is why this alone never decides
    (:func:`partly_bent_hyperplanes`).
    """
    checked = 0
    radius = window + 2 * max(abs(v) for v in bp.point)
    for u in tangent_basis(bp.row[1:]):
        u = vscale(Fraction(1, max(abs(v) for v in u)), u)
        if domain_rows is None:
            sides = [[side * r for r in (radius, 8 * radius, 64 * radius)] for side in (1, -1)]
        else:
            lo, hi = line_range(bp.point, u, domain_rows)
            sides = [[end * Fraction(k, 8) for k in (1, 4, 7)] for end in (lo, hi)]
        bent = [all(is_breakpoint_along(queries, vadd(bp.point, vscale(t, u)), bp.row, numerics) for t in steps) for steps in sides]
        if not (any(bent) if one_sided else all(bent)):
            return False
        checked += 1
    return checked > 0


def partly_bent_hyperplanes(queries, explorer, accepted, breakpoints):
    """First-layer neurons on whose hyperplane ``f`` bends only in part (its downstream neurons off elsewhere).

    Such a hyperplane fails :func:`hyperplane_neuron` on one side. So does a
    deeper neuron's unbounded last piece, but that one bends wherever it
    crosses a first-layer hyperplane it reads: a one-sided hyperplane that
    runs straight across an accepted first-layer hyperplane is accepted too,
    and so on while more are.
    """
    numerics = explorer.numerics
    candidates = [k for k in breakpoints if hyperplane_neuron(queries, k, explorer.window, numerics, explorer.rows, one_sided=True)]
    found = []
    grew = True
    while grew:
        grew = False
        for bp in candidates:
            if any(numerics.on_hyperplane(row, bp) for row in [*accepted, *found]):
                continue
            if any(_straight_across(queries, bp, row, numerics) for row in [*accepted, *found]):
                found.append(bp.row)
                grew = True
    return found


def _straight_across(queries, bp, row, numerics):
    """Whether ``f`` bends on the breakpoint's hyperplane on both sides of hyperplane ``row``, close to where they cross."""
    h = bp.row
    gh, gl = [Fraction(v) for v in h[1:]], [Fraction(v) for v in row[1:]]
    u = orthogonal_part(gl, gh)  # across ``row``, within ``h``
    if not any(u):
        return False
    # the crossing nearest the breakpoint, along u: h stays 0 and row becomes 0
    q = vadd(bp.point, vscale(-row_value(row, bp.point) / vdot(gl, u), u))
    u = vscale(1 / max(abs(v) for v in u), u)
    eps = (1 + max(abs(v) for v in q)) * numerics.shrink
    return all(is_breakpoint_along(queries, y, h, numerics, eps * numerics.shrink) for y in (vadd(q, vscale(eps, u)), vsub(q, vscale(eps, u))))


def explained_by(partial, neurons, bp):
    """Whether one of the freshly traced ``neurons`` vanishes at the breakpoint with its hyperplane."""
    numerics = partial.numerics
    neurons = [c for c in neurons if c is not None]
    if partial.net is None:
        return any(numerics.on_hyperplane(numerics.rationalize_row(c), bp) for c in neurons)
    region = partial.locate(bp.point)
    if region is None:
        return False
    return any(
        numerics.on_hyperplane(numerics.rationalize_row([vdot(F_row, c) for F_row in partial.reduced(region)]), bp)
        for c in neurons
    )



def straight_hyperplane(queries, bp, window, numerics, domain_rows, one_sided=False, memo=None):
    """Whether the breakpoint's hyperplane is a first-layer neuron seen in part: ``f`` bends along it straight across another hypersurface and never leaves it.

    A deeper neuron's zero set bends wherever it crosses the zero set of a
    neuron of an earlier layer (generically: its formula reads that neuron
    through some active path), visible in ``f`` or not; a first-layer
    neuron's is a whole hyperplane, along which ``f`` bends wherever the
    neuron's downstream weight is non-zero. That weight changes only where a
    deeper neuron switches whose own downstream weight is non-zero, i.e. on
    a hypersurface visible in ``f``.

    So the hyperplane ``H`` is walked on the lines through the breakpoint
    along each tangent direction (:func:`walk_hyperplane`): between two
    crossings with other hypersurfaces ``f`` must bend along ``H`` at all
    three probes or at none, and wherever the bending stops at a crossing,
    no third hypersurface may leave the crossing (``H`` continuing as a
    different hyperplane: a deeper neuron bending there). Accepted when
    nothing like that is seen and ``f`` bends along ``H`` on both sides of at
    least one crossing: a last piece of a deeper neuron that only ends at one
    crossing (the reason :func:`hyperplane_neuron` with ``one_sided`` never
    decides alone) is refused, since it bends there.

    Parameters
    ----------
    queries : Queries
        The oracle.
    bp : Breakpoint
        A breakpoint whose hyperplane ``bp.row`` is tested.
    numerics : Numerics
    domain_rows : sequence of rows or None
        The polytope walked in; None for ``R^n0``.

    Returns
    -------
    bool

    Notes
    -----
    A deeper neuron whose visible piece crosses no earlier neuron's zero set
    and runs straight across another hypersurface passes too; nothing local
    tells it from a first-layer neuron, so, like every proposal, it is kept
    only if the recovered network passes recovery's final exact check.
    """
    memo = {} if memo is None else memo
    walks = _walks(queries, bp, window, numerics, domain_rows, memo)
    if walks is None or not (one_sided or any(straight for straight, _ in walks)):
        return False
    for _, crossers in walks:
        for other in crossers:
            key = _up_to_sign(other.row)
            if key not in memo:
                memo[key] = any(
                    walk_hyperplane(queries, other, u, window, numerics, domain_rows, crossers=False) is None
                    for u in tangent_basis(other.row[1:])
                )
            if memo[key]:
                return False
    return True


def first_layer_hyperplane(queries, bp, explorer, walk=False, one_sided=False):
    """Whether the breakpoint's hyperplane passes a first-layer test: bent far out on every side (:func:`hyperplane_neuron`), or, with ``walk``, walked (:func:`straight_hyperplane`)."""
    window, numerics, rows = explorer.window, explorer.numerics, explorer.rows
    return hyperplane_neuron(queries, bp, window, numerics, rows) or (
        walk and straight_hyperplane(queries, bp, window, numerics, rows, one_sided, explorer.walks)
    )


def hyperplanes_crossing(queries, explorer, accepted, known, one_sided=False):
    """More first-layer hyperplanes, found across the accepted ones and accepted by :func:`first_layer_hyperplane`, until none is new.

    Parameters
    ----------
    accepted : sequence of Breakpoint
        One breakpoint on each first-layer hyperplane accepted so far.
    known : sequence of rows
        Every hyperplane accepted so far.

    Returns
    -------
    list of Breakpoint
        One on each hyperplane accepted here; the recovery keeps them with the
        breakpoints of its search lines.
    """
    found, known, seeds = [], list(known), list(accepted)
    while seeds:
        # the ends of walks only in the second pass: measuring them costs queries that most networks do not need
        candidates = crossing_hyperplanes(queries, seeds, known, explorer.numerics, explorer.walks, ends=one_sided)
        known += [bp.row for bp in candidates]
        seeds = [bp for bp in candidates if first_layer_hyperplane(queries, bp, explorer, True, one_sided)]
        found += seeds
    return found


def crossing_hyperplanes(queries, accepted, known, numerics, memo, ends=False):
    """Breakpoints on the hypersurfaces that run straight across the accepted first-layer hyperplanes: candidates for more.

    Every pair of first-layer zero sets crosses straight, and ``f`` bends along
    a first-layer hyperplane wherever it crosses another on which ``f`` bends
    (docs/recovery.md, step 3). A first-layer neuron seen only on a small part
    of its hyperplane is often missed by every search line, yet where that part
    meets an accepted hyperplane, the walks along the accepted one
    (:func:`walk_hyperplane`) find it crossing straight and measure a
    breakpoint on it. With ``ends``, so are the hypersurfaces running
    straight through a crossing where a walk ended (:func:`walk_hyperplane`'s
    ``ends``), measured here unless they lie on a known hyperplane. These
    are proposals only: each must still pass the first-layer tests.

    Parameters
    ----------
    accepted : sequence of Breakpoint
        A breakpoint on each first-layer hyperplane accepted; what the walks
        through it found, if any were made, is used.
    known : sequence of rows
        Hyperplanes already accepted or tested: no candidate on them.
    numerics : Numerics
    memo : dict
        The walks remembered (:func:`straight_hyperplane`'s).

    Returns
    -------
    list of Breakpoint
        One on each new hyperplane, in the order found.
    """
    found = []
    for bp in accepted:
        # only the walks made already (by :func:`straight_hyperplane`): walking every hyperplane accepted as
        # bent far out too doubled the queries of generic networks, whose first layer the search lines find
        for _, crossers in memo.get((bp.point, bp.row)) or ():
            found += crossers
    if ends:
        for y, step in memo.get(_ENDS, ()):
            if not any(row_value(row, y) == 0 for row in known):
                found.append(breakpoint_at(queries, y, step, len(y), numerics))
    known, new = list(known), []
    for other in [bp for bp in found if bp is not None]:
        if not any(numerics.parallel(other.row, row) for row in known):
            known.append(other.row)
            new.append(other)
    return new


def _walks(queries, bp, window, numerics, domain_rows, memo):
    """The walks through the breakpoint along each tangent direction (None if one leaves its hyperplane), remembered in ``memo``.

    ``f`` leaving the hyperplane on one walk is a fact about the hyperplane,
    wherever the walk started: ``memo`` keeps it under the row
    (:func:`_up_to_sign`), and another breakpoint on it is not walked. A
    walk that could not separate a line's breakpoints tells nothing about
    the others.
    """
    key, hyperplane = (bp.point, bp.row), _up_to_sign(bp.row)
    if key in memo:
        return memo[key]
    walks = None if memo.get(hyperplane) else []
    for u in tangent_basis(bp.row[1:]) if walks is not None else ():
        try:
            walk = _walk(queries, bp, u, window, numerics, domain_rows, True, memo.setdefault(_ENDS, []))
        except StageFailed:
            walks = None
            break
        if walk is None:
            walks, memo[hyperplane] = None, True
            break
        walks.append(walk)
    memo[key] = walks
    return walks


def _up_to_sign(row):
    """A hyperplane's row up to sign: the first non-zero entry of its normal positive."""
    return row if next(v for v in row[1:] if v) > 0 else tuple(-v for v in row)


def walk_hyperplane(queries, bp, u, window, numerics, domain_rows, crossers=True, ends=None):
    """On the line ``bp.point + t u`` inside the breakpoint's hyperplane ``H``: how often ``f`` bends along ``H`` straight across a crossing, and what runs straight across ``H``; None if ``f`` leaves ``H``.

    The line is walked for ``|t| <= window + 2 |bp.point|`` (max-norm ``u``;
    inside the domain when there is one), outwards from the breakpoint, so
    that a deeper neuron's piece, which mostly ends close by, is refused
    early. The crossings are the breakpoints of ``f`` on the line itself
    (other hypersurfaces meeting ``H``; ``f`` restricted to ``H`` kinks
    wherever one visible in ``f`` crosses), found in :data:`WALK_PIECES`
    pieces: ``f`` is often constant beyond a bounded stretch of ``H``, and
    one search of a long interval whose ends and sample point lie in that
    constant part would take it for linear.

    Between two crossings ``f`` is probed for a bend along ``H`` near both
    ends and in the middle; a piece whose probes differ ends inside, where
    nothing visible crosses: None. At a crossing where ``f`` bends along
    ``H`` on at least one side, the hypersurfaces leaving it are found on
    each side of ``H`` (:func:`_rays`): the crossing one must leave once into
    each side; anything else (a second ray on a side, or none) is ``H``'s own
    continuation, bent: None. With ``crossers``, the same is looked at every
    other crossing too, to tell which hypersurfaces run straight across ``H``.
    With ``ends`` (a list), where the walk ends at such a crossing, a point
    and step (for :func:`~polyrelu.recovery.breakpoints.breakpoint_at`) is
    appended on each hypersurface that runs straight through it (a ray into
    each side of ``H``, on one line): there a deeper neuron's piece bends,
    most often at the zero set of a neuron it reads, which ``f`` bends along
    close by; the bent continuations are left out.

    Returns
    -------
    tuple (int, list of Breakpoint) or None
        The crossings ``f`` bends along ``H`` on both sides of, and (with
        ``crossers``) a breakpoint on each hypersurface that runs straight
        across ``H`` (its two rays on one line), wherever ``H`` is visible or
        not. None also when the walk cannot separate the breakpoints on a
        line (no evidence either way; the recovery goes on without it).
    """
    try:
        return _walk(queries, bp, u, window, numerics, domain_rows, crossers, ends)
    except StageFailed:
        return None


def _walk(queries, bp, u, window, numerics, domain_rows, crossers, ends):
    """:func:`walk_hyperplane`, raising StageFailed where a line's breakpoints cannot be separated."""
    p, h = bp.point, bp.row
    u, n = _unit(u), _unit(h[1:])
    if domain_rows is None:
        reach = window + 2 * max(abs(v) for v in p)
        lo, hi = -reach, reach
    else:
        lo, hi = line_range(p, u, domain_rows)
    half = WALK_PIECES // 2
    g = lambda t: queries(vadd(p, vscale(t, u)))
    scale = (1 + max(abs(v) for v in p)) * numerics.shrink
    crossings, bent, stars = [], {}, {}
    for k in range(half):
        # one more piece on each side: everything between the new ends is known
        for end in (hi, lo):
            a, b = sorted((end * Fraction(k, half), end * Fraction(k + 1, half)))
            crossings += [t for t, *_ in segment_breakpoints(g, a, b, numerics)]
        crossings.sort()
        last = k == half - 1
        bounds = [lo * Fraction(k + 1, half), *crossings, hi * Fraction(k + 1, half)]
        for j, (a, b) in enumerate(itertools.pairwise(bounds)):
            if (a, b) in bent or not (last or 0 < j < len(bounds) - 2):
                continue  # probed already, or an end piece the next pieces may still cut
            near = min((b - a) / 8, scale)
            probes = [a + (b - a) / 8, (a + b) / 2, b - (b - a) / 8] + [a + near] * (j > 0) + [b - near] * (j < len(bounds) - 2)
            seen = {is_breakpoint_along(queries, vadd(p, vscale(t, u)), h, numerics) is not None for t in probes}
            if len(seen) > 1:
                return None
            bent[a, b] = seen.pop()
        for j in range(1, len(bounds) - 1):
            t, a, b = bounds[j], bounds[j - 1], bounds[j + 1]
            if t in stars or (a, t) not in bent or (t, b) not in bent:
                continue
            at_bend = bent[a, t] or bent[t, b]
            if not (at_bend or crossers):
                continue
            q = vadd(p, vscale(t, u))
            delta = min((t - a) / 8, (b - t) / 8, scale)
            rays = _rays(queries, q, u, n, delta, numerics)
            if at_bend and [len(r) for r in rays] != [1, 1]:
                # before refusing: a hypersurface passing close by (not through the crossing) may cut a rectangle
                # this size, look closer
                rays = _rays(queries, q, u, n, delta * numerics.shrink, numerics)
            if at_bend and [len(r) for r in rays] != [1, 1]:
                if ends is not None:  # H bends here: at what crosses, most often a neuron H's own neuron reads
                    up, down = rays
                    # a hyperplane runs straight through: a ray into each half, on one line
                    ends += [(y, step) for y, step in up if any(numerics.parallel(vsub(y, q), vsub(q, z)) for z, _ in down)]
                return None
            stars[t] = (q, rays, bent[a, t] and bent[t, b])
    straight = sum(1 for *_, both in stars.values() if both)
    across = []
    for q, (up, down), _ in stars.values():
        if crossers and len(up) == len(down) == 1 and numerics.parallel(vsub(up[0][0], q), vsub(q, down[0][0])):
            other = breakpoint_at(queries, *up[0], len(p), numerics)
            if other is not None and not numerics.parallel(other.row, h):
                across.append(other)
    return straight, across


def _unit(v):
    """``v`` scaled to max-norm 1 (exact)."""
    v = [Fraction(a) for a in v]
    return vscale(1 / max(abs(a) for a in v), v)


def _rays(queries, centre, u, n, delta, numerics):
    """The hypersurfaces along which ``f`` bends that leave ``centre`` into the half ``+n`` and the half ``-n`` of the plane ``centre + span(u, n)``.

    Each ray from ``centre`` into a half crosses the three far sides of the
    rectangle ``|u| <= delta``, ``|n| <= delta · _HEIGHT`` around it once (not a
    square: a ray of slope 1, common in small examples, would meet a corner); the rays along ``±u`` (the
    walked hyperplane) are left out by starting the two upright sides a
    little off it. ``delta`` must be small enough that nothing else crosses
    the square. Returns two lists (``+n``, ``-n``) of ``(point, step)``: where
    a ray crosses the square, and a step along the square within the two
    linear pieces there (for :func:`~polyrelu.recovery.breakpoints.breakpoint_at`).
    """
    found = []
    lift, height = delta * numerics.shrink, delta * _HEIGHT
    for side in (1, -1):
        corners = [
            vadd(centre, vadd(vscale(delta, u), vscale(side * lift, n))),
            vadd(centre, vadd(vscale(delta, u), vscale(side * height, n))),
            vadd(centre, vadd(vscale(-delta, u), vscale(side * height, n))),
            vadd(centre, vadd(vscale(-delta, u), vscale(side * lift, n))),
        ]
        rays = []
        for a, b in itertools.pairwise(corners):
            d = vsub(b, a)
            for t, _, _, t0, t1 in segment_breakpoints(lambda t, a=a, d=d: queries(vadd(a, vscale(t, d))), Fraction(0), Fraction(1), numerics):
                rays.append((vadd(a, vscale(t, d)), vscale(min(t - t0, t1 - t) / 2, d)))
        found.append(rays)
    return found
