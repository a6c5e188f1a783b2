"""first_layer"""

from fractions import Fraction


from ..geometry.rational import row_value

from .numerics import _add, _dot, _mul, _sub, _tangent_basis
from .breakpoints import _is_kink_along, _line_range

__all__ = []


def _hyperplane_neuron(queries, kink, window, numerics, domain_rows, one_sided=False):
    """Whether the kink's hyperplane is a first-layer neuron: ``f`` bends along it far away on every side too.

    A deeper neuron's hypersurface bends where it crosses an earlier one, so
    its flat pieces end; the checks go out along ``±`` each tangent direction
    to ``r``, 8 and 64 times ``r`` with ``r = window + 2 |kink|`` (past the
    origin, for a breakpoint found far out); in a polytope domain to 1/8,
    1/2 and 7/8 of the way to its boundary.

    ``one_sided``: enough that ``f`` bends at all checks on one side of each
    tangent direction. A first-layer neuron whose downstream neurons are all
    off on one side leaves no breakpoint there; so does a deeper neuron's
    unbounded last piece, which is why this alone never decides
    (:func:`_partly_bent_hyperplanes`).
    """
    checked = 0
    radius = window + 2 * max(abs(v) for v in kink.point)
    for u in _tangent_basis(kink.row[1:]):
        u = _mul(Fraction(1, max(abs(v) for v in u)), u)
        if domain_rows is None:
            sides = [[side * r for r in (radius, 8 * radius, 64 * radius)] for side in (1, -1)]
        else:
            lo, hi = _line_range(kink.point, u, domain_rows)
            sides = [[end * Fraction(k, 8) for k in (1, 4, 7)] for end in (lo, hi)]
        bent = [all(_is_kink_along(queries, _add(kink.point, _mul(t, u)), kink.row, numerics) for t in steps) for steps in sides]
        if not (any(bent) if one_sided else all(bent)):
            return False
        checked += 1
    return checked > 0


def _partly_bent_hyperplanes(queries, explorer, accepted, kinks):
    """First-layer neurons on whose hyperplane ``f`` bends only in part (its downstream neurons off elsewhere).

    Such a hyperplane fails :func:`_hyperplane_neuron` on one side. So does a
    deeper neuron's unbounded last piece, but that one bends wherever it
    crosses a first-layer hyperplane it reads: a one-sided hyperplane that
    runs straight across an accepted first-layer hyperplane is accepted too,
    and so on while more are.
    """
    numerics = explorer.numerics
    candidates = [k for k in kinks if _hyperplane_neuron(queries, k, explorer.window, numerics, explorer.rows, one_sided=True)]
    found = []
    grew = True
    while grew:
        grew = False
        for kink in candidates:
            if any(numerics.on_hyperplane(row, kink) for row in [*accepted, *found]):
                continue
            if any(_straight_across(queries, kink, row, numerics) for row in [*accepted, *found]):
                found.append(kink.row)
                grew = True
    return found


def _straight_across(queries, kink, row, numerics):
    """Whether ``f`` bends on the kink's hyperplane on both sides of hyperplane ``row``, close to where they cross."""
    h = kink.row
    gh, gl = [Fraction(v) for v in h[1:]], [Fraction(v) for v in row[1:]]
    u = _sub(gl, _mul(_dot(gl, gh) / _dot(gh, gh), gh))  # across ``row``, within ``h``
    if not any(u):
        return False
    # the crossing nearest the kink, along u: h stays 0 and row becomes 0
    q = _add(kink.point, _mul(-row_value(row, kink.point) / _dot(gl, u), u))
    u = _mul(1 / max(abs(v) for v in u), u)
    eps = (1 + max(abs(v) for v in q)) * numerics.shrink
    return all(_is_kink_along(queries, y, h, numerics, eps * numerics.shrink) for y in (_add(q, _mul(eps, u)), _sub(q, _mul(eps, u))))


def _explained_by(partial, neurons, kink):
    """Whether one of the freshly traced ``neurons`` vanishes at the kink with its hyperplane."""
    numerics = partial.numerics
    neurons = [c for c in neurons if c is not None]
    if partial.net is None:
        return any(numerics.on_hyperplane(numerics.rationalize_row(c), kink) for c in neurons)
    region = partial.locate(kink.point)
    if region is None:
        return False
    return any(
        numerics.on_hyperplane(numerics.rationalize_row([_dot(F_row, c) for F_row in partial.reduced(region)]), kink)
        for c in neurons
    )
