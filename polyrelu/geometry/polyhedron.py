"""Exact convex polyhedra over the rationals, in the style of Sage's ``Polyhedron``.

A :class:`Polyhedron` couples its two descriptions: given by inequalities and
equations (H-representation) it computes vertices, rays and lines
(V-representation) lazily with the double-description method of ``cdd.gmp``,
and the other way round.  Dimension, affine hull and a relative interior point
come from :class:`~polyrelu.geometry.lp.LPOracle`: each step is a certified
float LP or an exact one, never a float guess.

Conventions follow Sage and cdd: an inequality row ``(b, a_1, ..., a_d)``
means ``b + a·x >= 0`` and an equation row means ``b + a·x = 0``.

:meth:`Polyhedron.from_trusted` takes representations a construction has
already derived (the cells of a complex) and recomputes nothing. Affine hulls
are :class:`~polyrelu.geometry.affine.AffineSubspace` objects.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..checks import describe, require_instance, require_int
from ..errors import (
    BackendUnavailableError,
    GeometryError,
    InvalidArgumentError,
    InvalidNumberError,
    ShapeError,
)
from ._cdd import cdd, cdd_gmp
from .affine import AffineSubspace, affine_subspace, reduce_modulo, restrict_row
from .lattice import FaceLattice
from .linalg import project_orthogonal_to
from .lp import Feasibility, LPOracle, default_oracle
from .rational import (
    FractionMatrix,
    FractionVector,
    IntegerRow,
    MatrixLike,
    VectorLike,
    primitive_integer_row,
    row_value,
    to_fraction_matrix,
    to_fraction_vector,
)

__all__ = ["Polyhedron"]


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
        oracle = require_instance(oracle, LPOracle, "oracle", "Polyhedron", optional=True)
        require_int(ambient_dim, "ambient_dim", "Polyhedron", minimum=1, optional=True)
        given = {"ieqs": ieqs, "eqns": eqns, "vertices": vertices, "rays": rays, "lines": lines}
        matrices = {name: to_fraction_matrix(value if value is not None else [], name) for name, value in given.items()}
        h_given = ieqs is not None or eqns is not None
        v_given = vertices is not None or rays is not None or lines is not None
        if h_given and v_given:
            raise GeometryError("give either an H-representation (ieqs, eqns) or a V-representation (vertices, rays, lines), not both")
        if v_given:
            vert, ray, line = matrices["vertices"], matrices["rays"], matrices["lines"]
            d = self._ambient_dim_of([vert, ray, line], ambient_dim, offset=0)
            if not vert and (ray or line):
                vert = ((Fraction(0),) * d,)
            self._start(d, oracle)
            self._h = _h_from_generators(vert, ray, line, d)
        else:
            ineq, eq = matrices["ieqs"], matrices["eqns"]
            self._start(self._ambient_dim_of([ineq, eq], ambient_dim, offset=1), oracle)
            self._h = (tuple(primitive_integer_row(r) for r in ineq), tuple(primitive_integer_row(r) for r in eq))

    def _start(self, d, oracle):
        """Empty caches: each representation is computed on first use (or was given, see :meth:`from_trusted`)."""
        self._d = d
        self._oracle = oracle if oracle is not None else default_oracle
        self._h = None  # (ieqs, eqns) as given, or a callable giving them
        self._vrep = self._minimal_h = self._decomposition = None
        self._known_point = self._known_hull = None  # from_trusted: a relative interior point, the affine hull

    @classmethod
    def from_trusted(
        cls,
        ambient_dim: int,
        *,
        h_representation: Any,
        minimal_h_representation: Any = None,
        vertices_rays_lines: Any = None,
        relative_interior_point: Any = None,
        affine_hull: Any = None,
        oracle: LPOracle | None = None,
    ) -> Polyhedron:
        """A polyhedron from representations its caller has derived and guarantees: nothing is recomputed.

        For polyrelu's own constructions (the cells of a complex, a complex
        file after its checks), which know a cell's representations already
        and skip the double description and the LPs this way. Each argument
        pre-fills the answer of the method of the same name; it may be given
        as a value, or as a callable without arguments that computes it on
        first use (and only then).

        Parameters
        ----------
        ambient_dim : int
            The dimension ``d`` of the ambient space ``Q^d``.
        h_representation : pair, or callable returning one
            ``(ieqs, eqns)``: primitive integer rows ``(b, a_1, ..., a_d)``
            describing the polyhedron (:attr:`inequalities`, :attr:`equations`).
        minimal_h_representation : pair, or callable returning one, optional
            The canonical irredundant form, exactly as
            :meth:`minimal_h_representation` returns it.
        vertices_rays_lines : triple, or callable returning one, optional
            The canonical minimal V-representation, exactly as
            :meth:`vertices_rays_lines` returns it.
        relative_interior_point : vector, or callable returning one, optional
            A point satisfying every equation, and every inequality of
            ``h_representation`` strictly (so none of them is an implicit
            equality).
        affine_hull : AffineSubspace, or callable returning one, optional
            The solution set of the equations; computed from them if needed
            and not given. Used only with ``relative_interior_point``.
        oracle : LPOracle, optional

        Returns
        -------
        Polyhedron

        Raises
        ------
        InvalidArgumentError, ShapeError, InvalidNumberError
            A value given directly is not of the documented kind and shape
            (rows of ints of length ``d + 1``, vectors of ints or Fractions of
            length ``d``). Values computed by a callable are not checked.

        Notes
        -----
        The caller guarantees that every representation given describes one
        and the same polyhedron, in the canonical form stated. Nothing checks
        it: if they disagree, each method answers from the representation it
        reads (``vertices()`` from the V-side, ``contains`` from the
        inequalities, ``==`` from the minimal H-representation), so the
        polyhedron contradicts itself and equals nothing built from either
        representation alone. Read untrusted data with the ordinary
        constructor, or check it first (as :meth:`CanonicalComplex.from_json
        <polyrelu.complex.CanonicalComplex.from_json>` does).

        Examples
        --------
        >>> square = Polyhedron.from_trusted(
        ...     2, h_representation=([(0, 1, 0), (0, 0, 1), (1, -1, 0), (1, 0, -1)], []),
        ...     relative_interior_point=(Fraction(1, 2), Fraction(1, 2)))
        >>> square.dimension(), square.relative_interior_point()
        (2, (Fraction(1, 2), Fraction(1, 2)))
        >>> square == Polyhedron(vertices=[(0, 0), (0, 1), (1, 0), (1, 1)])
        True
        """
        caller = "Polyhedron.from_trusted"
        d = require_int(ambient_dim, "ambient_dim", caller, minimum=1)
        oracle = require_instance(oracle, LPOracle, "oracle", caller, optional=True)
        if h_representation is None:
            raise InvalidArgumentError(f"{caller}: h_representation is required: pass (ieqs, eqns), or a callable giving them")
        P = cls.__new__(cls)
        P._start(d, oracle)
        P._h = _trusted(h_representation, "h_representation", caller, lambda v: _h_pair(v, "h_representation", d))
        P._minimal_h = _trusted(
            minimal_h_representation, "minimal_h_representation", caller, lambda v: _h_pair(v, "minimal_h_representation", d)
        )
        P._vrep = _trusted(vertices_rays_lines, "vertices_rays_lines", caller, lambda v: _v_triple(v, d))
        P._known_point = _trusted(
            relative_interior_point, "relative_interior_point", caller,
            lambda v: _trusted_vectors((v,), "relative_interior_point", d, integer=False)[0],
        )
        P._known_hull = _trusted(affine_hull, "affine_hull", caller, lambda v: _hull_in(v, d), kinds=AffineSubspace)
        return P

    def _resolved(self, attribute):
        """The cached value of ``attribute``, computed first if :meth:`from_trusted` left a callable there."""
        value = getattr(self, attribute)
        if callable(value):
            value = value()
            setattr(self, attribute, value)
        return value

    _ieqs = property(lambda self: self._resolved("_h")[0])
    _eqns = property(lambda self: self._resolved("_h")[1])

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
        if self._resolved("_vrep") is None:
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
        if self._resolved("_minimal_h") is None:
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
        if self._known_point is not None:
            hull = self._resolved("_known_hull") or affine_subspace(list(self._eqns), self._d)
            self._decomposition = (hull, tuple(self._resolved("_known_point")), frozenset())
            return self._decomposition
        equations = list(self._eqns)
        implicit = set()
        while True:
            hull = affine_subspace(equations, self._d)
            if hull is None:
                break
            restricted = [restrict_row(r, hull) for r in self._ieqs]
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

    # -- hand-over to other systems --------------------------------------------------
    def to_sage(self) -> Any:
        """The polyhedron as a Sage ``Polyhedron`` over ``QQ``, exactly.

        Built from :meth:`minimal_h_representation` (integer rows, so nothing
        is rounded); Sage computes its own V-representation. Sage is imported
        on first use: the modular distribution ``passagemath-polyhedra`` is
        enough, a full Sage installation works too.

        Returns
        -------
        sage.geometry.polyhedron.base.Polyhedron_base
            A polyhedron in ``QQ^d`` with the same points (the empty one when
            this polyhedron is empty).

        Raises
        ------
        BackendUnavailableError
            Sage cannot be imported: ``pip install passagemath-polyhedra``.

        See also
        --------
        to_cdd, to_polymake

        Examples
        --------
        >>> P = Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1)], eqns=[(-1, 1, 1)])     # x, y >= 0 on x + y = 1
        >>> S = P.to_sage()
        >>> S.dim(), sorted(S.vertices_list()), S.base_ring()
        (1, [[0, 1], [1, 0]], Rational Field)
        >>> Polyhedron(ieqs=[(0, 2, 0)], ambient_dim=2).to_sage().lines_list()   # x >= 0: a half-plane
        [[0, 1]]
        """
        sage_polyhedron, rationals = _sage_polyhedron_constructor()
        ieqs, eqns = self.minimal_h_representation()
        return sage_polyhedron(
            ieqs=[list(r) for r in ieqs], eqns=[list(r) for r in eqns], base_ring=rationals, ambient_dim=self._d
        )

    def to_cdd(self) -> cdd_gmp.Matrix:
        """The H-representation as a pycddlib ``cdd.gmp`` matrix, with exact fractions.

        The rows are :meth:`minimal_h_representation`'s, inequalities first,
        then the equations, whose indices form the matrix's ``lin_set``
        (``rep_type`` is ``cdd.RepType.INEQUALITY``). Pass it to
        ``cdd.gmp.polyhedron_from_matrix`` for the generators
        (``cdd.gmp.copy_generators``), adjacencies and incidences. All of
        ``Q^d`` gets the single row ``1 >= 0``.

        Returns
        -------
        cdd.gmp.Matrix

        See also
        --------
        to_sage, to_polymake

        Examples
        --------
        >>> import cdd, cdd.gmp
        >>> M = Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1)], eqns=[(-1, 1, 1)]).to_cdd()
        >>> M.lin_set, M.rep_type == cdd.RepType.INEQUALITY      # y >= 0, 1 - y >= 0 on x + y = 1
        ({2}, True)
        >>> M.array
        [[Fraction(0, 1), Fraction(0, 1), Fraction(1, 1)], [Fraction(1, 1), Fraction(0, 1), Fraction(-1, 1)],
         [Fraction(-1, 1), Fraction(1, 1), Fraction(1, 1)]]
        >>> sorted(map(list, cdd.gmp.copy_generators(cdd.gmp.polyhedron_from_matrix(M)).array))
        [[Fraction(1, 1), Fraction(0, 1), Fraction(1, 1)], [Fraction(1, 1), Fraction(1, 1), Fraction(0, 1)]]
        """
        ieqs, eqns = self.minimal_h_representation()
        if not ieqs and not eqns:  # all of Q^d: cdd needs a row, and 1 >= 0 changes nothing
            ieqs = ((1,) + (0,) * self._d,)
        return cdd_gmp.matrix_from_array(
            [*ieqs, *eqns], lin_set=set(range(len(ieqs), len(ieqs) + len(eqns))), rep_type=cdd.RepType.INEQUALITY
        )

    def to_polymake(self) -> str:
        """A polymake expression that builds the polyhedron: ``new Polytope<Rational>(INEQUALITIES=>..., EQUATIONS=>...)``.

        The rows are :meth:`minimal_h_representation`'s, integers in the
        convention polymake shares with cdd and Sage (``b + a·x >= 0``, the
        constant first); ``EQUATIONS`` is left out when there is none, and
        ``INEQUALITIES`` holds the row ``1 >= 0`` when there is no other (all of
        ``Q^d``, an affine subspace). In the polymake shell,
        ``$cell = <the text>;`` gives the cell (unbounded ones included:
        polymake reads the H-representation homogeneously).

        Returns
        -------
        str

        See also
        --------
        to_sage, to_cdd

        Examples
        --------
        >>> Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1)], eqns=[(-1, 1, 1)]).to_polymake()
        'new Polytope<Rational>(INEQUALITIES=>[[0,0,1],[1,0,-1]], EQUATIONS=>[[-1,1,1]])'
        >>> Polyhedron(ieqs=[], ambient_dim=2).to_polymake()      # the whole plane
        'new Polytope<Rational>(INEQUALITIES=>[[1,0,0]])'
        """
        ieqs, eqns = self.minimal_h_representation()
        # polymake reads the dimension off INEQUALITIES: never leave it empty (1 >= 0 changes nothing)
        properties = [f"INEQUALITIES=>{_perl_matrix(ieqs or ((1,) + (0,) * self._d,))}"]
        if eqns:
            properties.append(f"EQUATIONS=>{_perl_matrix(eqns)}")
        return f"new Polytope<Rational>({', '.join(properties)})"

    def __repr__(self):
        dim = self._decomposition[0].dimension if self._decomposition and self._decomposition[0] else None
        what = f"dimension {dim}" if dim is not None else "unknown dimension" if not self._decomposition else "empty"
        return (
            f"<Polyhedron in Q^{self._d}, {what}, "
            f"{len(self._ieqs)} inequalities, {len(self._eqns)} equations>"
        )


def _sage_polyhedron_constructor():
    """Sage's ``Polyhedron`` constructor and ``QQ``, with a clear error when Sage is missing."""
    # Sage is large and optional: imported on first use only. The modular passagemath distribution
    # has its own entry module; a full Sage installation has sage.all.
    try:
        from sage.all__sagemath_polyhedra import QQ, Polyhedron
    except ImportError:
        try:
            from sage.all import QQ, Polyhedron
        except ImportError as exc:
            raise BackendUnavailableError(
                f"Polyhedron.to_sage needs Sage, which cannot be imported ({exc}): "
                "install the modular distribution with 'pip install passagemath-polyhedra', or run in Sage"
            ) from exc
    return Polyhedron, QQ


def _perl_matrix(rows):
    """Integer rows as a Perl array of arrays, as polymake reads them: ``[[0,0,1],[1,0,-1]]``."""
    return "[" + ",".join("[" + ",".join(map(str, r)) + "]" for r in rows) + "]"


def _h_from_generators(vertices, rays, lines, d):
    """An H-representation ``(ieqs, eqns)`` of the polyhedron the generators span (``cdd.gmp``)."""
    if not vertices:
        return ((-1,) + (0,) * d,), ()
    rows = [(1, *v) for v in vertices] + [(0, *r) for r in rays] + [(0, *l) for l in lines]
    lin = set(range(len(vertices) + len(rays), len(rows)))
    mat = cdd_gmp.matrix_from_array(rows, lin_set=lin, rep_type=cdd.RepType.GENERATOR)
    out = cdd_gmp.copy_inequalities(cdd_gmp.polyhedron_from_matrix(mat))
    ieqs = tuple(primitive_integer_row(r) for i, r in enumerate(out.array) if i not in out.lin_set)
    eqns = tuple(primitive_integer_row(r) for i, r in enumerate(out.array) if i in out.lin_set)
    return tuple(r for r in ieqs if any(r[1:])), eqns


def _trusted(value, name, caller, check, kinds=(tuple, list)):
    """A :meth:`Polyhedron.from_trusted` argument: None, a callable (unchecked), or a value checked by ``check``."""
    if value is None or callable(value):
        return value
    if not isinstance(value, kinds):
        raise InvalidArgumentError(f"{caller}: {name} must be a value as documented, or a callable giving it; got {describe(value)}")
    return check(value)


def _trusted_vectors(vectors, name, length, integer):
    """``vectors`` as a tuple of tuples, if each has ``length`` entries, all ints (or ints and Fractions)."""
    caller = "Polyhedron.from_trusted"
    if type(vectors) not in (tuple, list):
        raise InvalidArgumentError(f"{caller}: {name} must be a sequence of vectors, got {describe(vectors)}")
    kinds = (int,) if integer else (int, Fraction)
    out = []
    for i, v in enumerate(vectors):
        if type(v) not in (tuple, list) or len(v) != length:
            raise ShapeError(f"{caller}: {name}[{i}] must be a vector of {length} entries, got {describe(v)}")
        if not all(type(x) in kinds for x in v):
            what = "integers" if integer else "exact rationals (int or Fraction)"
            raise InvalidNumberError(f"{caller}: {name}[{i}] must hold {what}, got {describe(v)}")
        out.append(tuple(v))
    return tuple(out)


def _h_pair(value, name, d):
    if len(value) != 2:
        raise ShapeError(f"Polyhedron.from_trusted: {name} must be a pair (ieqs, eqns), got {len(value)} entries")
    return tuple(_trusted_vectors(rows, f"{name}[{k}]", d + 1, integer=True) for k, rows in enumerate(value))


def _v_triple(value, d):
    if len(value) != 3:
        raise ShapeError(f"Polyhedron.from_trusted: vertices_rays_lines must be a triple (vertices, rays, lines), got {len(value)} entries")
    return tuple(
        _trusted_vectors(vectors, f"vertices_rays_lines[{k}]", d, integer=k > 0) for k, vectors in enumerate(value)
    )


def _hull_in(hull, d):
    if len(hull.point) != d:
        raise InvalidArgumentError(f"Polyhedron.from_trusted: affine_hull must be an AffineSubspace of Q^{d}, got {describe(hull)}")
    return hull


def _orthogonal_section(vertices, rays, lines):
    """Project generators onto the orthogonal complement of the lineality space (exact)."""
    d = len(lines[0])
    new_vertices = set(project_orthogonal_to(vertices, lines))
    new_rays = {primitive_integer_row(r) for r in project_orthogonal_to(rays, lines)}
    new_rays.discard((0,) * d)
    return list(new_vertices), list(new_rays)


