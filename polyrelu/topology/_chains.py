"""Oriented cells and incidence numbers of a bounded polyhedral complex: its cellular chain complex.

Every cell of a canonical complex on a polytope domain is a polytope, so the
complex is a regular CW complex and its homology is that of its cellular
chain complex, whose boundary matrices :class:`CellularChains` computes
exactly.

Orientation convention. A ``k``-cell ``σ`` is oriented by an ordered basis
``O(σ)`` of the direction space of its affine hull: the reduced row echelon
basis of the differences of its vertices, which are its 0-dimensional faces
(the standard basis ``e_1, ..., e_n`` for a full-dimensional cell; nothing for
a vertex, which is oriented ``+``).
Its rows are the identity on the echelon's pivot columns ``P(σ)``, so the
coordinates in ``O(σ)`` of a vector of that space are its entries at
``P(σ)``. For a facet ``τ`` of ``σ`` the incidence number is

    ``[σ : τ] = sign det (u, O(τ))`` in the coordinates of ``O(σ)``,

with ``u = p(τ) - p(σ)`` for relative interior points ``p`` (the means of the
vertices): ``u`` leaves ``σ`` across ``τ``, and modulo the direction space of
``τ`` it is an outward normal, which is all the determinant sees. This is the
"outward normal first" orientation of a boundary (Stokes' convention); it
makes ``∂∂ = 0``, and the boundary of an edge from ``a`` to ``b`` is
``b - a``. The determinants are exact (FLINT over Q).

This is an internal module of :mod:`polyrelu.topology`; :class:`CellularChains`
is its named API, used by :mod:`polyrelu.topology.subcomplex`.
"""

from __future__ import annotations

import flint

from ..complex import CanonicalComplex
from ..errors import GeometryError
from ..geometry.linalg import echelon_pivots

__all__ = ["CellularChains"]


class CellularChains:
    """The cellular chain complex of a canonical complex on a polytope domain, cell by cell.

    Orientations, relative interior points and boundaries are computed on
    first use and kept, so subcomplexes of one complex share the work.

    Parameters
    ----------
    complex_ : CanonicalComplex
        A complex on a polytope domain (every cell bounded).

    Examples
    --------
    >>> from polyrelu import Box, ReLUNetwork, canonical_complex
    >>> K = canonical_complex(ReLUNetwork([[[1]], [[1]]], [[0], [0]]), Box(-1, 1))
    >>> [str(c.relative_interior_point()[0]) for c in K]    # vertices 1, -1, 0; edges [-1, 0], [0, 1]
    ['1', '-1', '0', '-1/2', '1/2']
    >>> chains = CellularChains(K)
    >>> chains.boundary(3), chains.boundary(4)   # both edges oriented by +e_1: end minus start
    ({1: -1, 2: 1}, {0: 1, 2: -1})
    """

    def __init__(self, complex_: CanonicalComplex) -> None:
        if complex_.domain is None:
            raise GeometryError("CellularChains: the complex is on all of R^n0; pass its bounded model (see _bounded)")
        self.complex = complex_
        self.ambient_dim = complex_.network.architecture.input_dim
        # exact rationals as flint's fmpq: several times faster than Fraction for these sums and determinants
        self._points: dict[int, tuple[flint.fmpq, ...]] = {}
        self._vertices: dict[int, frozenset[int]] = {}
        self._orientations: dict[int, tuple[tuple[tuple[flint.fmpq, ...], ...], tuple[int, ...]]] = {}
        self._boundaries: dict[int, dict[int, int]] = {}

    def vertices(self, cell: int) -> frozenset[int]:
        """The ids of the cell's vertices (its 0-dimensional faces), from the face lattice."""
        if cell not in self._vertices:
            facets = self.complex.lattice.facets(cell)
            self._vertices[cell] = frozenset([cell]) if not facets else frozenset().union(*map(self.vertices, facets))
        return self._vertices[cell]

    def point(self, cell: int) -> tuple[flint.fmpq, ...]:
        """A relative interior point of the cell: the mean of its vertices."""
        if cell not in self._points:
            if self.complex[cell].dimension == 0:
                (vertex,) = self.complex[cell].polyhedron.vertices()
                point = tuple(flint.fmpq(v.numerator, v.denominator) for v in vertex)
            else:
                vertices = [self.point(v) for v in self.vertices(cell)]
                point = tuple(sum(coordinate, flint.fmpq(0)) / len(vertices) for coordinate in zip(*vertices))
            self._points[cell] = point
        return self._points[cell]

    def orientation(self, cell: int) -> tuple[tuple[tuple[flint.fmpq, ...], ...], tuple[int, ...]]:
        """``(O, P)``: the cell's orienting basis (rows) and the columns on which it is the identity."""
        if cell not in self._orientations:
            k, n = self.complex[cell].dimension, self.ambient_dim
            if k == 0:
                orientation: tuple = ((), ())
            elif k == n:
                identity = tuple(tuple(flint.fmpq(int(i == j)) for j in range(n)) for i in range(n))
                orientation = (identity, tuple(range(n)))
            else:
                first, *others = (self.point(v) for v in sorted(self.vertices(cell)))
                differences = [[a - b for a, b in zip(v, first)] for v in others]
                if k == 1:  # an edge: its direction, scaled to 1 at its first non-zero entry
                    (d,) = differences
                    pivot = next(j for j, v in enumerate(d) if v)
                    orientation = ((tuple(v / d[pivot] for v in d),), (pivot,))
                else:
                    echelon, rank = flint.fmpq_mat(differences).rref()
                    assert rank == k  # the vertices of a k-polytope span its k-dimensional hull
                    basis = tuple(tuple(echelon[i, j] for j in range(n)) for i in range(k))
                    orientation = (basis, tuple(echelon_pivots(echelon, k)))
            self._orientations[cell] = orientation
        return self._orientations[cell]

    def incidence(self, cell: int, facet: int) -> int:
        """``[cell : facet]``, ``±1``, for a facet of the cell (see the module's orientation convention)."""
        _, pivots = self.orientation(cell)
        facet_basis, _ = self.orientation(facet)
        cell_point, facet_point = self.point(cell), self.point(facet)
        outward = [facet_point[j] - cell_point[j] for j in pivots]
        if len(pivots) == 1:  # an edge and one of its vertices: a 1 x 1 determinant
            determinant = outward[0]
        else:
            entries = outward + [row[j] for row in facet_basis for j in pivots]
            determinant = flint.fmpq_mat(len(pivots), len(pivots), entries).det()
        assert determinant != 0  # u leaves the facet's hull inside the cell's: never degenerate
        return 1 if determinant > 0 else -1

    def boundary(self, cell: int) -> dict[int, int]:
        """The boundary of the oriented cell: ``facet id -> [cell : facet]`` over its facets."""
        if cell not in self._boundaries:
            self._boundaries[cell] = {f: self.incidence(cell, f) for f in self.complex.lattice.facets(cell)}
        return self._boundaries[cell]
