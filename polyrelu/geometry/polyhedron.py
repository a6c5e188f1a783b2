"""Exact convex polyhedra over the rationals, in the style of Sage's ``Polyhedron``.

A :class:`Polyhedron` couples its two descriptions: given by inequalities and
equations (H-representation) it computes vertices, rays and lines
(V-representation) lazily with the double-description method of ``cdd.gmp``,
and the other way round.  Dimension, affine hull and a relative interior point
come from :class:`~polyrelu.geometry.lp.LPOracle`: each step is a certified
float LP or an exact one, never a float guess.

Conventions follow Sage and cdd: an inequality row ``(b, a_1, ..., a_d)``
means ``b + a·x >= 0`` and an equation row means ``b + a·x = 0``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import flint

from ..checks import require_instance, require_int
from ..errors import GeometryError, ShapeError
from ._cdd import cdd, cdd_gmp
from .lattice import FaceLattice
from .lp import Feasibility, LPOracle, default_oracle
from .rational import primitive_integer_row, row_value, to_fraction_matrix, to_fraction_vector, to_integer_rows

from collections.abc import Sequence

from .rational import FractionMatrix, FractionVector, IntegerRow, MatrixLike, VectorLike

__all__ = ["Polyhedron", "AffineSubspace", "reduce_modulo"]


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
        return _affine_subspace(list(equations), ambient_dim)

    def restrict(self, row: VectorLike) -> IntegerRow:
        """An affine row ``(b, a)`` on ``Q^d`` in the subspace's coordinates ``u``, as a primitive integer row."""
        return _restrict(to_fraction_vector(row, "AffineSubspace.restrict: row", len(self.point) + 1), self)

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


def _affine_subspace(equations, d):
    """Solve the integer equation rows exactly; ``None`` if they are inconsistent."""
    if not equations:
        zero = (Fraction(0),) * d
        basis = tuple(tuple(Fraction(int(i == j)) for i in range(d)) for j in range(d))
        return AffineSubspace(zero, basis, ())
    mat = flint.fmpq_mat(len(equations), d + 1, [v for e in equations for v in (*e[1:], e[0])])
    rref, rank = mat.rref()
    rows = [[Fraction(int(rref[r, c].p), int(rref[r, c].q)) for c in range(d + 1)] for r in range(rank)]
    pivots = [next(c for c, v in enumerate(row) if v) for row in rows]
    if pivots and pivots[-1] == d:
        return None
    free = [c for c in range(d) if c not in pivots]
    point = [Fraction(0)] * d
    for row, p in zip(rows, pivots):
        point[p] = -row[d]
    basis = []
    for f in free:
        vec = [Fraction(int(c == f)) for c in range(d)]
        for row, p in zip(rows, pivots):
            vec[p] = -row[f]
        basis.append(tuple(vec))
    eqs = tuple(primitive_integer_row([row[d], *row[:d]]) for row in rows)
    return AffineSubspace(tuple(point), tuple(basis), eqs)


def _restrict(row, hull):
    """The inequality row in the coordinates of ``hull``, as a primitive integer row."""
    b = row_value(row, hull.point)
    a = [sum(ai * vi for ai, vi in zip(row[1:], v)) for v in hull.basis]
    return primitive_integer_row([b, *a])


class Polyhedron:
    """A convex polyhedron over Q, from an H- or a V-representation.

    Parameters
    ----------
    ieqs : sequence of rows, optional
        Inequalities ``(b, a_1, ..., a_d)`` meaning ``b + a·x >= 0``.
    eqns : sequence of rows, optional
        Equations ``(b, a_1, ..., a_d)`` meaning ``b + a·x = 0``.
    vertices, rays, lines : sequence of vectors, optional
        A V-representation (do not mix with ``ieqs``/``eqns``). As in Sage,
        rays or lines without vertices mean the origin is the only vertex.
    ambient_dim : int, optional
        Needed only when no row or vector tells the dimension.
    oracle : LPOracle, optional
        The feasibility oracle; defaults to :data:`~polyrelu.geometry.lp.default_oracle`.

    Notes
    -----
    Entries may be ints, fractions, decimal or ``"p/q"`` strings or floats
    (converted exactly).

    Raises
    ------
    GeometryError
        Mixed H and V data, or no way to tell the ambient dimension.
    ShapeError, InvalidNumberError
        Rows of different lengths, NaN or infinite entries.

    Examples
    --------
    >>> P = Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1), (1, -1, -1)])    # x, y >= 0, x + y <= 1
    >>> P.dimension(), P.vertices()
    (2, ((Fraction(0, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1)), (Fraction(1, 1), Fraction(0, 1))))
    >>> edge = Polyhedron(ieqs=P.inequalities, eqns=[(1, -1, -1)])   # the edge x + y = 1
    >>> edge.dimension(), edge.relative_interior_contains(["1/2", "1/2"]), edge.relative_interior_contains([1, 0])
    (1, True, False)
    >>> Q = Polyhedron(vertices=[(0, 0)], rays=[(1, 0), (0, 1)])     # the quadrant, from generators
    >>> Q.minimal_h_representation()
    (((0, 0, 1), (0, 1, 0)), ())
    >>> Polyhedron(ieqs=[(-1, 1), (0, -1)]).is_empty()               # x >= 1 and x <= 0
    True
    """

    _d: int
    _ieqs: tuple[IntegerRow, ...]
    _eqns: tuple[IntegerRow, ...]
    _vrep: tuple[FractionMatrix, tuple[IntegerRow, ...], tuple[IntegerRow, ...]] | None
    _minimal_h: tuple[tuple[IntegerRow, ...], tuple[IntegerRow, ...]] | None
    _decomposition: tuple[AffineSubspace | None, FractionVector | None, frozenset[int]] | None

    def __init__(
        self,
        ieqs: MatrixLike | None = None,
        eqns: MatrixLike | None = None,
        *,
        vertices: MatrixLike | None = None,
        rays: MatrixLike | None = None,
        lines: MatrixLike | None = None,
        ambient_dim: int | None = None,
        oracle: LPOracle | None = None,
    ) -> None:
        self._oracle = require_instance(oracle, LPOracle, "oracle", "Polyhedron", optional=True) or default_oracle
        require_int(ambient_dim, "ambient_dim", "Polyhedron", minimum=1, optional=True)
        given = {"ieqs": ieqs, "eqns": eqns, "vertices": vertices, "rays": rays, "lines": lines}
        matrices = {name: to_fraction_matrix(value if value is not None else [], name) for name, value in given.items()}
        h_given = ieqs is not None or eqns is not None
        v_given = vertices is not None or rays is not None or lines is not None
        if h_given and v_given:
            raise GeometryError("give either an H-representation (ieqs, eqns) or a V-representation (vertices, rays, lines), not both")
        self._vrep = None
        self._decomposition = None
        self._minimal_h = None
        if v_given:
            vert, ray, line = matrices["vertices"], matrices["rays"], matrices["lines"]
            d = self._ambient_dim_of([vert, ray, line], ambient_dim, offset=0)
            if not vert and (ray or line):
                vert = ((Fraction(0),) * d,)
            self._d = d
            self._generators = (vert, ray, line)
            self._ieqs, self._eqns = self._h_from_generators()
        else:
            ineq, eq = matrices["ieqs"], matrices["eqns"]
            self._d = self._ambient_dim_of([ineq, eq], ambient_dim, offset=1)
            self._ieqs = tuple(primitive_integer_row(r) for r in ineq)
            self._eqns = tuple(primitive_integer_row(r) for r in eq)

    @classmethod
    def _with_relative_interior(cls, ieqs, eqns, hull, point, oracle=None):
        """A polyhedron from primitive integer rows whose affine hull and a point are already known.

        ``hull`` must be the solution set of ``eqns`` and ``point`` must satisfy
        every inequality strictly (so none is an implicit equality). Callers that
        built the rows themselves (cell enumeration) skip the LP work this way.
        """
        P = cls.__new__(cls)
        P._oracle = oracle if oracle is not None else default_oracle
        P._d = len(point)
        P._ieqs, P._eqns = tuple(ieqs), tuple(eqns)
        P._vrep = P._minimal_h = None
        P._decomposition = (hull, tuple(point), frozenset())
        return P

    @staticmethod
    def _ambient_dim_of(matrices, ambient_dim, offset):
        lengths = {len(r) - offset for m in matrices for r in m}
        if ambient_dim is not None:
            lengths.add(ambient_dim)
        if not lengths:
            raise GeometryError("cannot tell the ambient dimension: pass ambient_dim=")
        if len(lengths) > 1:
            given = "" if ambient_dim is None else f" (with ambient_dim={ambient_dim})"
            raise ShapeError(f"rows and vectors disagree on the ambient dimension{given}: {sorted(lengths)}")
        d = lengths.pop()
        if d < 1:
            raise GeometryError(f"the ambient dimension must be at least 1, got {d}")
        return d

    # -- representations -------------------------------------------------------------
    @property
    def ambient_dim(self) -> int:
        """The dimension ``d`` of the ambient space ``Q^d``."""
        return self._d

    @property
    def inequalities(self) -> tuple[IntegerRow, ...]:
        """The inequality rows as given (scaled to primitive integers), possibly redundant."""
        return self._ieqs

    @property
    def equations(self) -> tuple[IntegerRow, ...]:
        """The equation rows as given (scaled to primitive integers), possibly redundant."""
        return self._eqns

    def _cdd_h_matrix(self):
        # The row 1 >= 0 keeps the matrix non-empty (cdd needs a row) and changes nothing.
        rows = [(1,) + (0,) * self._d, *self._ieqs, *self._eqns]
        lin = set(range(1 + len(self._ieqs), len(rows)))
        return cdd_gmp.matrix_from_array(rows, lin_set=lin, rep_type=cdd.RepType.INEQUALITY)

    def _h_from_generators(self):
        vert, ray, line = self._generators
        if not vert:
            return ((-1,) + (0,) * self._d,), ()
        rows = [(1, *v) for v in vert] + [(0, *r) for r in ray] + [(0, *l) for l in line]
        lin = set(range(len(vert) + len(ray), len(rows)))
        mat = cdd_gmp.matrix_from_array(rows, lin_set=lin, rep_type=cdd.RepType.GENERATOR)
        out = cdd_gmp.copy_inequalities(cdd_gmp.polyhedron_from_matrix(mat))
        ieqs = tuple(primitive_integer_row(r) for i, r in enumerate(out.array) if i not in out.lin_set)
        eqns = tuple(primitive_integer_row(r) for i, r in enumerate(out.array) if i in out.lin_set)
        return tuple(r for r in ieqs if any(r[1:])), eqns

    def vertices_rays_lines(self) -> tuple[FractionMatrix, tuple[IntegerRow, ...], tuple[IntegerRow, ...]]:
        """The minimal V-representation, by ``cdd.gmp`` double description (cached).

        Returns
        -------
        vertices : tuple of tuple of Fraction
        rays : tuple of tuple of int
            Primitive integer directions.
        lines : tuple of tuple of int
            Primitive integer directions, first non-zero entry positive. With
            lines present, vertices and rays are those of the section by the
            orthogonal complement of the lines, so the description is unique.
        """
        if self._vrep is None:
            if self.is_empty():
                self._vrep = ((), (), ())
            else:
                out = cdd_gmp.copy_generators(cdd_gmp.polyhedron_from_matrix(self._cdd_h_matrix()))
                vertices, rays, lines = [], [], []
                for i, row in enumerate(out.array):
                    if i in out.lin_set:
                        line = primitive_integer_row(row[1:])
                        sign = 1 if next(v for v in line if v) > 0 else -1
                        lines.append(tuple(sign * v for v in line))
                    elif row[0] == 0:
                        rays.append(primitive_integer_row(row[1:]))
                    else:
                        vertices.append(tuple(Fraction(v) / Fraction(row[0]) for v in row[1:]))
                if lines:
                    vertices, rays = _orthogonal_section(vertices, rays, lines)
                self._vrep = (tuple(sorted(vertices)), tuple(sorted(rays)), tuple(sorted(lines)))
        return self._vrep

    def vertices(self) -> FractionMatrix:
        """The vertices (see :meth:`vertices_rays_lines`)."""
        return self.vertices_rays_lines()[0]

    def rays(self) -> tuple[IntegerRow, ...]:
        """The extreme rays (see :meth:`vertices_rays_lines`)."""
        return self.vertices_rays_lines()[1]

    def lines(self) -> tuple[IntegerRow, ...]:
        """A basis of the lineality space (see :meth:`vertices_rays_lines`)."""
        return self.vertices_rays_lines()[2]

    def is_bounded(self) -> bool:
        """Whether the polyhedron is a polytope (no rays, no lines)."""
        _, rays, lines = self.vertices_rays_lines()
        return not rays and not lines

    def minimal_h_representation(self) -> tuple[tuple[IntegerRow, ...], tuple[IntegerRow, ...]]:
        """The irredundant H-representation, in a canonical form.

        Returns
        -------
        ieqs : tuple of tuple of int
            Facet-defining inequalities, reduced modulo the equations and sorted.
        eqns : tuple of tuple of int
            The equations of the affine hull in reduced row echelon form.

        Two polyhedra are equal exactly when these agree. The empty polyhedron
        gets ``(((-1, 0, ..., 0),), ())``.
        """
        if self._minimal_h is None:
            if self.is_empty():
                self._minimal_h = (((-1,) + (0,) * self._d,), ())
            else:
                hull = self.affine_hull()
                assert hull is not None  # the polyhedron is not empty
                mat = self._cdd_h_matrix()
                cdd_gmp.matrix_canonicalize(mat)
                ieqs = {
                    reduce_modulo(primitive_integer_row(r), hull.equations)
                    for i, r in enumerate(mat.array)
                    if i not in mat.lin_set
                }
                ieqs.discard(None)
                self._minimal_h = (tuple(sorted(ieqs)), hull.equations)
        return self._minimal_h

    def __eq__(self, other):
        if not isinstance(other, Polyhedron):
            return NotImplemented
        return self._d == other._d and self.minimal_h_representation() == other.minimal_h_representation()

    def __hash__(self):
        return hash((self._d, self.minimal_h_representation()))

    # -- dimension, hull and interior --------------------------------------------------
    def _decompose(self):
        """Affine hull, relative interior point and implicit equalities, all certified.

        Restrict to the affine hull of the known equations, ask the oracle whether
        the inequalities have an interior there; each "no interior" answer proves
        some inequalities to be equations, which shrink the hull. At most ``d``
        rounds; each decision is certified (see :mod:`polyrelu.geometry.lp`).
        """
        if self._decomposition is not None:
            return self._decomposition
        equations = list(self._eqns)
        implicit = set()
        while True:
            hull = _affine_subspace(equations, self._d)
            if hull is None:
                break
            restricted = [_restrict(r, hull) for r in self._ieqs]
            live = []
            for i, r in enumerate(restricted):
                if any(r[1:]):
                    live.append(i)
                elif r[0] < 0:
                    hull = None
                    break
                elif r[0] == 0:
                    implicit.add(i)
            if hull is None:
                break
            if not live or hull.dimension == 0:
                point = hull.point
                break
            answer = self._oracle.decide([restricted[i] for i in live])
            if answer.status is Feasibility.EMPTY:
                hull = None
                break
            if answer.status is Feasibility.INTERIOR:
                point = hull.lift(answer.point)
                break
            for j in answer.implicit_rows:
                implicit.add(live[j])
                equations.append(self._ieqs[live[j]])
        if hull is None:
            self._decomposition = (None, None, frozenset())
        else:
            self._decomposition = (hull, point, frozenset(implicit))
        return self._decomposition

    def is_empty(self) -> bool:
        """Whether the polyhedron has no point (exact)."""
        return self._decompose()[0] is None

    def dimension(self) -> int:
        """The dimension of the polyhedron, ``-1`` when empty (exact)."""
        hull = self._decompose()[0]
        return -1 if hull is None else hull.dimension

    def is_full_dimensional(self) -> bool:
        """Whether the dimension equals the ambient dimension."""
        return self.dimension() == self._d

    def affine_hull(self) -> AffineSubspace | None:
        """The affine hull as an :class:`AffineSubspace`, or ``None`` when empty."""
        return self._decompose()[0]

    def relative_interior_point(self) -> FractionVector | None:
        """An exact rational point of the relative interior, or ``None`` when empty."""
        return self._decompose()[1]

    def implicit_equalities(self) -> frozenset[int]:
        """Indices of the inequality rows that hold with equality on the whole polyhedron."""
        return self._decompose()[2]

    def contains(self, x: VectorLike) -> bool:
        """Whether the rational point ``x`` lies in the polyhedron (exact)."""
        x = to_fraction_vector(x, "x", self._d)
        return all(row_value(r, x) == 0 for r in self._eqns) and all(row_value(r, x) >= 0 for r in self._ieqs)

    def relative_interior_contains(self, x: VectorLike) -> bool:
        """Whether ``x`` lies in the relative interior (exact)."""
        if not self.contains(x) or self.is_empty():
            return False
        x = to_fraction_vector(x, "x", self._d)
        implicit = self.implicit_equalities()
        hull = self.affine_hull()
        assert hull is not None  # the polyhedron is not empty
        return hull.contains(x) and all(
            row_value(r, x) > 0 for i, r in enumerate(self._ieqs) if i not in implicit
        )

    # -- combinatorics ---------------------------------------------------------------
    def face_lattice(self) -> FaceLattice:
        """The lattice of non-empty faces, from exact vertex/ray-facet incidences.

        Returns
        -------
        FaceLattice
            Cell data are pairs ``(vertex indices, ray indices)`` into
            :meth:`vertices_rays_lines`; every face contains the lineality space.

        Examples
        --------
        >>> cube = Polyhedron(ieqs=[r for i in range(3) for r in
        ...     [tuple(int(j == i) for j in range(-1, 3)), tuple(1 if j == -1 else -int(j == i) for j in range(-1, 3))]])
        >>> L = cube.face_lattice()
        >>> L.f_vector(), L.euler_characteristic()
        ((8, 12, 6, 1), 1)
        """
        if self.is_empty():
            return FaceLattice([], [])
        vertices, rays, lines = self.vertices_rays_lines()
        facets, _ = self.minimal_h_representation()
        nv = len(vertices)
        tight = []
        for row in facets:
            on = {i for i, v in enumerate(vertices) if row_value(row, v) == 0}
            on |= {nv + i for i, r in enumerate(rays) if sum(a * x for a, x in zip(row[1:], r)) == 0}
            tight.append(frozenset(on))
        top = frozenset(range(nv + len(rays)))
        index = {top: 0}
        dims = [self.dimension()]
        covers = []
        layer = [top]
        while layer:
            below = []
            for face in layer:
                candidates = {face & t for t in tight if not face <= t}
                candidates = {c for c in candidates if any(g < nv for g in c)}
                for c in candidates:
                    if any(c < other for other in candidates):
                        continue
                    if c not in index:
                        index[c] = len(dims)
                        dims.append(dims[index[face]] - 1)
                        below.append(c)
                    covers.append((index[c], index[face]))
            layer = below
        data: list[tuple[tuple[int, ...], tuple[int, ...]] | None] = [None] * len(dims)
        for face, i in index.items():
            data[i] = (tuple(sorted(g for g in face if g < nv)), tuple(sorted(g - nv for g in face if g >= nv)))
        return FaceLattice(dims, covers, data=data)

    def __repr__(self):
        dim = self._decomposition[0].dimension if self._decomposition and self._decomposition[0] else None
        what = f"dimension {dim}" if dim is not None else "unknown dimension" if not self._decomposition else "empty"
        return (
            f"<Polyhedron in Q^{self._d}, {what}, "
            f"{len(self._ieqs)} inequalities, {len(self._eqns)} equations>"
        )


def _orthogonal_section(vertices, rays, lines):
    """Project generators onto the orthogonal complement of the lineality space (exact)."""
    d = len(lines[0])
    L = flint.fmpq_mat([list(l) for l in lines]).transpose()
    P = L * (L.transpose() * L).inv() * L.transpose()

    def project(x):
        xs = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator)] for v in map(Fraction, x)])
        y = xs - P * xs
        return [Fraction(int(y[i, 0].p), int(y[i, 0].q)) for i in range(d)]

    new_vertices = {tuple(project(v)) for v in vertices}
    new_rays = {primitive_integer_row(project(r)) for r in rays}
    new_rays.discard((0,) * d)
    return list(new_vertices), list(new_rays)


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
