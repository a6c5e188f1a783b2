"""Integer rows of cells, shared by the reading of compact documents, the checks and the construction (internal).

:class:`ConstraintRows` gives a cell's constraint rows (domain rows, then the
network's pre-activations for its signs), :class:`Reduction` and
:func:`facet_rows` a cell's facet inequalities reduced modulo its equations
(:func:`reduced_row`), :func:`covering_from_signs` the covering relation that
sign vectors give and :func:`lineality_basis` the canonical basis of a
lineality space.
"""

import itertools
import math
from collections import defaultdict

import flint

from ..geometry.linalg import echelon_basis
from ..geometry.rational import primitive_integer_row

__all__ = ["ConstraintRows", "Reduction", "facet_rows", "reduced_row", "covering_from_signs", "lineality_basis"]


class ConstraintRows:
    """Integer rows of the constraints on a sign vector (domain rows, then neurons), cached.

    A layer's rows depend only on the earlier layers' signs, so the cache key
    leaves out the last hidden layer: cells sharing the rest share one
    call to ``pre_activation_rows`` and one flint matrix.
    """

    def __init__(self, net, domain_rows):
        widths = net.architecture.hidden_widths
        self.net = net
        self.domain_rows = tuple(domain_rows)
        self.prefix = sum(widths[:-1])
        self.tail = (0,) * (widths[-1] if widths else 0)
        self.cache = {}

    def __call__(self, signs):
        key = tuple(s > 0 for s in signs[: self.prefix])
        if key not in self.cache:
            rows = self.domain_rows + self.net.pre_activation_rows(signs[: self.prefix] + self.tail)
            self.cache[key] = (rows, flint.fmpz_mat([list(r) for r in rows]) if rows else None)
        return self.cache[key]


class Reduction:
    """Rows reduced modulo one affine hull's equations (:func:`reduced_row`), kept for the cells that share it."""

    def __init__(self, eqns):
        self.eqns = eqns
        self.pivots = [next(c for c in range(1, len(e)) if e[c]) for e in eqns]
        self.rows = {}

    def __call__(self, row):
        if not self.eqns:
            return row if any(row[1:]) else None
        if row not in self.rows:
            self.rows[row] = reduced_row(row, self.eqns, self.pivots)
        return self.rows[row]


def facet_rows(rows, signs, facets, zeros, reduce):
    """The inequalities a cell's facets give, each with where it comes from: ``{row: (constraint, facet)}``.

    A constraint that vanishes on a facet ``f`` (in ``zeros[f]``) but not on
    the cell, signed by the cell's sign and reduced modulo the cell's equations
    by ``reduce`` (a :class:`Reduction`; dropped if it reduces to a
    constant), is an inequality of the cell's minimal H-representation: what
    version 1 stores as ``ieqs``, sorted.
    """
    source = {}
    for f in facets:
        for k in zeros[f]:
            if signs[k] == 0:
                continue
            row = reduce(rows[k] if signs[k] > 0 else tuple(-v for v in rows[k]))
            if row is not None:
                source.setdefault(row, (k, f))
    return source


# -- shared with polyrelu.complex --------------------------------------------------------
def reduced_row(row, equations, pivots=None):
    """:func:`~polyrelu.geometry.affine.reduce_modulo` in integer arithmetic: ``row`` with the pivots of
    ``equations`` eliminated, as a primitive integer row, or ``None`` if it becomes constant.

    ``equations`` are integer rows in reduced row echelon form (each a
    multiple of a row of the RREF), ``pivots`` their pivot columns (found if
    not given). Each elimination multiplies the row by the pivot's absolute
    value, a positive factor the final division by the gcd removes.

    Examples
    --------
    >>> reduced_row((1, 1, 1), ((0, 0, 1),)), reduced_row((1, 0, 2), ((0, 0, 1),))
    ((1, 1, 0), None)
    >>> reduced_row((0, 3, 1), ((-1, 0, 2),))    # x + y/3 >= 0 on the line y = 1/2
    (1, 6, 0)
    """
    if pivots is None:
        pivots = [next(c for c in range(1, len(e)) if e[c]) for e in equations]
    result = list(row)
    for eq, p in zip(equations, pivots):
        if result[p]:
            a, b = eq[p], result[p]
            if a < 0:
                a, b = -a, -b
            result = [a * x - b * e for x, e in zip(result, eq)]
    if not any(result[1:]):
        return None
    g = math.gcd(*result)
    return tuple([x // g for x in result]) if g > 1 else tuple(result)


def covering_from_signs(signs, dimensions):
    """All pairs ``(τ, σ)`` with ``τ ⋖ σ``, from sign vectors: ``s(τ) ≤ s(σ)`` and one dimension up.

    ``τ ≤ σ`` exactly when ``s(τ)_k ∈ {s(σ)_k, 0}`` for every ``k``: on ``τ`` every
    pre-activation agrees with the formula valid on ``σ``. The cofacets of
    ``τ`` differ from it only at its zeros. Few zeros: try every sign change
    there; many (a degenerate point where many neurons vanish): scan the cells
    one dimension up.

    Parameters
    ----------
    signs : sequence of tuple of int
        The full sign vector of every cell (domain signs first), all different.
    dimensions : sequence of int

    Returns
    -------
    list of (int, int)

    Examples
    --------
    >>> sorted(covering_from_signs([(0,), (1,), (-1,)], [0, 1, 1]))     # the point 0 and the two half-lines
    [(0, 1), (0, 2)]
    """
    index = {s: i for i, s in enumerate(signs)}
    by_dim = defaultdict(list)
    for i, d in enumerate(dimensions):
        by_dim[d].append(i)
    covers = []
    for i, s in enumerate(signs):
        zeros = [k for k, v in enumerate(s) if v == 0]
        up = dimensions[i] + 1
        if 3 ** len(zeros) <= 4 * len(by_dim[up]) + 64:
            for choice in itertools.product((-1, 0, 1), repeat=len(zeros)):
                if not any(choice):
                    continue
                t = list(s)
                for k, v in zip(zeros, choice):
                    t[k] = v
                j = index.get(tuple(t))
                if j is not None and dimensions[j] == up:
                    covers.append((i, j))
        else:
            nonzero = [k for k, v in enumerate(s) if v != 0]
            for j in by_dim[up]:
                t = signs[j]
                if all(t[k] == s[k] for k in nonzero):
                    covers.append((i, j))
    return covers


def lineality_basis(lines):
    """The canonical basis of the span of ``lines``: its reduced row echelon form, rows primitive integers.

    Two bases of one lineality space give the same tuple.

    Examples
    --------
    >>> lineality_basis([(1, 1, 0), (1, -1, 0)]) == lineality_basis([(0, 1, 0), (1, 0, 0)])
    True
    >>> lineality_basis([(2, 4, 0)])
    ((1, 2, 0),)
    """
    return tuple(primitive_integer_row(row) for row in echelon_basis(lines))
