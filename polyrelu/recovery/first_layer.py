"""First-layer neurons: hyperplanes along which ``f`` bends everywhere.

A first-layer neuron's zero set is a whole hyperplane; ``f`` bends along it
wherever some downstream neuron is active, far out in every direction. A
deeper neuron's hypersurface bends where it crosses the neurons it reads, so
its flat pieces end (docs/design.md §5). The checks here use only the
oracle.

Glossary
--------
one-sided
    ``f`` bends along the hyperplane on one side of every tangent direction
    only: a first-layer neuron whose downstream neurons are off beyond, or a
    deeper neuron's unbounded last piece (told apart by
    :func:`partly_bent_hyperplanes`).
window
    The scale of the search so far: the checks go out to multiples of it.

What it leaves to others: the breakpoint search (``breakpoints``), deeper
layers (``tracing``).
"""

from fractions import Fraction

from ..geometry.rational import row_value
from .breakpoints import is_breakpoint_along, line_range
from .numerics import tangent_basis, vadd, vdot, vscale, vsub

__all__ = []


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
    u = vsub(gl, vscale(vdot(gl, gh) / vdot(gh, gh), gh))  # across ``row``, within ``h``
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
