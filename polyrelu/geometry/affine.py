"""Affine subspaces of Q^d given by integer equations, and rows reduced modulo them.

:class:`AffineSubspace` is an affine hull with coordinates on it (a point and
a basis of directions, and its equations in echelon form);
:func:`echelon_equations` computes those equations alone, in integer
arithmetic; :func:`reduce_modulo` reduces an inequality modulo equations to
the canonical representative on their hull; :func:`restrict_row` writes an
inequality in a subspace's coordinates. :class:`~polyrelu.geometry.Polyhedron`
keeps its affine hull as an :class:`AffineSubspace`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..checks import require_int
from ..errors import GeometryError, ShapeError
from .linalg import solution_space
from .rational import (
    FractionMatrix,
    FractionVector,
    IntegerRow,
    VectorLike,
    primitive_integer_row,
    row_value,
    to_fraction_vector,
    to_integer_rows,
)

__all__ = ["AffineSubspace", "echelon_equations", "reduce_modulo", "affine_subspace", "restrict_row"]


@dataclass(frozen=True)
class AffineSubspace:
    """An affine subspace ``{point + sum_j u_j basis[j]}`` with its equations.

    Attributes
    ----------
    point : tuple of Fraction
        A point of the subspace (zero in the free coordinates).
    basis : tuple of tuple of Fraction
        Direction vectors; their number is the dimension.
    equations : tuple of tuple of int
        Independent primitive integer rows ``(c, e)`` with ``c + e·x = 0``,
        from the reduced row echelon form, hence the same rows for the same
        subspace however it was given.
    """

    point: FractionVector
    basis: FractionMatrix
    equations: tuple[IntegerRow, ...]

    @property
    def dimension(self) -> int:
        return len(self.basis)

    def contains(self, x: VectorLike) -> bool:
        """Whether the rational point ``x`` lies on the subspace (exact)."""
        x = to_fraction_vector(x, "x", len(self.point))
        return all(row_value(e, x) == 0 for e in self.equations)

    @classmethod
    def from_equations(cls, equations: Sequence[Sequence[int]], ambient_dim: int) -> AffineSubspace | None:
        """Solve integer equation rows ``(c, e)`` (``c + e·x = 0``) exactly; ``None`` if inconsistent."""
        ambient_dim = require_int(ambient_dim, "ambient_dim", "AffineSubspace.from_equations", minimum=1)
        equations = to_integer_rows(equations, "AffineSubspace.from_equations: equations")
        if equations and len(equations[0]) != ambient_dim + 1:
            raise ShapeError(
                f"AffineSubspace.from_equations: equations have {len(equations[0])} entries, "
                f"expected ambient_dim + 1 = {ambient_dim + 1}"
            )
        return affine_subspace(list(equations), ambient_dim)

    def restrict(self, row: VectorLike) -> IntegerRow:
        """An affine row ``(b, a)`` on ``Q^d`` in the subspace's coordinates ``u``, as a primitive integer row."""
        return restrict_row(to_fraction_vector(row, "AffineSubspace.restrict: row", len(self.point) + 1), self)

    def coordinates(self, x: VectorLike) -> FractionVector:
        """The coordinates ``u`` of a point ``x`` of the subspace (``lift(u) == x``).

        The basis comes from the reduced row echelon form, so ``u`` is read off
        the free (non-pivot) coordinates of ``x``.

        Raises
        ------
        GeometryError
            ``x`` is not on the subspace.
        """
        x = to_fraction_vector(x, "AffineSubspace.coordinates: x", len(self.point))
        if not all(row_value(e, x) == 0 for e in self.equations):
            raise GeometryError(f"AffineSubspace.coordinates: x = {tuple(map(str, x))} is not on the subspace")
        pivots = {next(i for i in range(1, len(e)) if e[i]) - 1 for e in self.equations}
        return tuple(x[i] for i in range(len(self.point)) if i not in pivots)

    def lift(self, u: VectorLike) -> FractionVector:
        """The point ``point + sum_j u_j basis[j]`` for coordinates ``u``."""
        u = to_fraction_vector(u, "AffineSubspace.lift: u", len(self.basis))
        return tuple(
            p + sum((uj * b[i] for uj, b in zip(u, self.basis)), Fraction(0)) for i, p in enumerate(self.point)
        )


def affine_subspace(equations, d):
    """Solve the integer equation rows exactly; ``None`` if they are inconsistent."""
    space = solution_space([e[1:] for e in equations], [-e[0] for e in equations], d)
    if space is None:
        return None
    # the echelon rows of [e | -c] are those of c + e·x = 0
    eqs = tuple(primitive_integer_row([-row[d], *row[:d]]) for row in space.echelon)
    return AffineSubspace(space.point, space.basis, eqs)


def echelon_equations(equations: Sequence[Sequence[int]], ambient_dim: int) -> tuple[IntegerRow, ...] | None:
    """The equations of :meth:`AffineSubspace.from_equations` alone, in integer arithmetic (internal API).

    For the many hulls a complex writer needs: the same rows, the reduced row
    echelon form of ``[e | -c]`` with every row made a primitive integer row
    ``(c', e')``, found by fraction-free elimination (every row scaled to
    coprime entries on the way); ``None`` if the equations are inconsistent.
    A row so found is non-zero at its pivot and zero at the other pivots,
    hence a multiple of the echelon row: scaled to a positive pivot and to
    coprime entries, it is that row's primitive form.

    Examples
    --------
    >>> echelon_equations([(1, 2, 2, 0), (0, 0, 1, 1)], 3)      # 1 + 2x + 2y = 0, y + z = 0
    ((1, 2, 0, -2), (0, 0, 1, 1))
    >>> echelon_equations([(1, 2, 2, 0), (0, 0, 1, 1)], 3) == AffineSubspace.from_equations([(1, 2, 2, 0), (0, 0, 1, 1)], 3).equations
    True
    """
    d = ambient_dim
    table = [[*e[1:], -e[0]] for e in equations]
    pivots: list[int] = []
    for col in range(d + 1):
        r = len(pivots)
        found = next((i for i in range(r, len(table)) if table[i][col]), None)
        if found is None:
            continue
        if col == d:
            return None  # 0 = a non-zero constant
        table[r], table[found] = table[found], table[r]
        pivot = table[r]
        for i, row in enumerate(table):
            if i != r and row[col]:
                a, b = pivot[col], row[col]
                row = [a * x - b * y for x, y in zip(row, pivot)]
                g = math.gcd(*row)
                table[i] = [x // g for x in row] if g > 1 else row
        pivots.append(col)
    out = []
    for row, col in zip(table, pivots):
        sign = 1 if row[col] > 0 else -1
        out.append(primitive_integer_row((-sign * row[d], *(sign * x for x in row[:d]))))
    return tuple(out)


def restrict_row(row, hull):
    """The inequality row in the coordinates of ``hull``, as a primitive integer row."""
    b = row_value(row, hull.point)
    a = [sum(ai * vi for ai, vi in zip(row[1:], v)) for v in hull.basis]
    return primitive_integer_row([b, *a])


def reduce_modulo(row, equations):
    """The inequality row with the pivot columns of the RREF ``equations`` eliminated.

    Adding multiples of the equations does not change an inequality on the hull;
    eliminating the pivots picks one canonical representative. Returns ``None``
    for a row that becomes constant (it cannot be a facet).

    Examples
    --------
    >>> reduce_modulo((1, 1, 1), ((0, 0, 1),))     # 1 + x + y >= 0 on the line y = 0 is 1 + x >= 0
    (1, 1, 0)
    >>> reduce_modulo((1, 0, 2), ((0, 0, 1),)) is None
    True
    """
    row = [Fraction(v) for v in row]
    for eq in equations:
        pivot = next(c for c in range(1, len(eq)) if eq[c])
        if row[pivot]:
            factor = row[pivot] / eq[pivot]
            row = [r - factor * e for r, e in zip(row, eq)]
    if not any(row[1:]):
        return None
    return primitive_integer_row(row)
