"""Refining a polyhedral complex by cuts, decided by exact values at its vertices.

A :class:`Subdivision` is a pointed polyhedral complex in ``Q^d`` kept as a
face lattice together with its 0-cells. Unbounded cells are closed up by
*ideal vertices*: directions at infinity, stored like points in homogeneous
integer coordinates ``(D, X)`` with ``D = 0`` (a finite vertex has ``D > 0``
and sits at ``X / D``). The closure of every cell is then the positive hull of
its vertices, finite and ideal, so an affine function's sign pattern on a cell
is read off its values at the cell's vertices; no LP is needed.

:meth:`Subdivision.cut` refines every cell by the sign of a function that is
affine on each cell (in homogeneous coordinates: linear on the cone over each
cell), given by its exact integer values at the vertices (at an ideal vertex:
the value of its recession function). A cell whose vertices see both signs
splits into its ``+``, ``-`` and ``0`` parts; their facets follow from the
facets' parts (a cut cell's zero part is bounded by the zero parts of its
facets and by the codimension-2 faces on which the function vanishes), and a
new vertex appears on every cut edge, where the values interpolate to zero.

Nothing here knows about neural networks: callers supply the values.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterator, Sequence
from itertools import chain, product
from typing import Any

import numpy as np

from ..checks import describe, is_sequence, require_index, require_int, require_sequence
from ..errors import GeometryError, InvalidArgumentError, ShapeError
from .linalg import solve_nonsingular
from .rational import (
    IntegerRow,
    MatrixLike,
    primitive_integer_row,
    to_fraction_matrix,
    to_integer_rows,
)

__all__ = ["Subdivision"]

# The codes of a vertex's sign in a cut (1 positive, 2 negative, 0 zero): or-ed over a cell's vertices
# they give 3 exactly when the cell is cut. A sign is stored as a byte, -1 as 255 (two's complement).
_CODE = {1: 1, -1: 2, 0: 0}
# the stored sign of a cell by its or-ed code; a cut cell (3) keeps its id as its positive part
_SIGN_BYTE = np.array([0, 1, 255, 1], dtype=np.uint8)


class SubdivisionCell:
    """One cell of a :class:`Subdivision`, as :attr:`Subdivision.cells` shows it (read only).

    Attributes
    ----------
    dim : int
    finite : bool
        False for a cell at infinity.
    facets : tuple of int
    verts : tuple of int
        The vertices of its closure, ascending.
    signs : tuple of int
        :meth:`Subdivision.cell_signs`, computed when read.
    """

    __slots__ = ("_cid", "_subdivision")

    def __init__(self, subdivision: Subdivision, cid: int) -> None:
        self._subdivision = subdivision
        self._cid = cid

    dim = property(lambda self: self._subdivision._dim[self._cid])
    finite = property(lambda self: bool(self._subdivision._finite[self._cid]))
    facets = property(lambda self: self._subdivision._facets[self._cid])
    verts = property(lambda self: self._subdivision._verts[self._cid])
    signs = property(lambda self: self._subdivision.cell_signs(self._cid))

    def __repr__(self) -> str:
        return f"SubdivisionCell(dim={self.dim}, finite={self.finite}, facets={self.facets}, verts={self.verts}, signs={self.signs})"


def _checked_values(values: Any, ends: list[int], code: list[int], caller: str) -> dict[int, int]:
    """``{vertex: value}`` for the vertices ``ends``, if ``values`` are integers with the signs coded in ``code``."""
    values = require_sequence(values, "exact_values(...)", caller)
    if len(values) != len(ends):
        raise ShapeError(f"{caller}: exact_values returned {len(values)} values for {len(ends)} vertices")
    out = {}
    for i, v in zip(ends, values):
        if type(v) is not int:
            v = require_int(v, f"exact_values(...)'s value at vertex {i}", caller)
        if (1 if v > 0 else 2 if v < 0 else 0) != code[i]:
            raise GeometryError(f"{caller}: exact_values gives {v} at vertex {i}, whose sign is not the one in signs")
        out[i] = v
    return out


def _checked_faces(faces: Sequence[Any], n_vertices: int, caller: str) -> list[tuple[int, list[int], list[int]]]:
    """The faces of :meth:`Subdivision.from_polytope` as ``(dim, vertex indices, facet indices)``, checked.

    The first ``n_vertices`` faces are the vertices, in order; a face's facets
    are earlier faces.
    """
    faces = require_sequence(faces, "faces", caller)
    if len(faces) < n_vertices:
        raise ShapeError(f"{caller}: faces has {len(faces)} entries; the {n_vertices} vertices come first")
    out = []
    for k, face in enumerate(faces):
        if not is_sequence(face) or len(face := list(face)) != 3:
            raise InvalidArgumentError(f"{caller}: faces[{k}] must be (dimension, vertex indices, facet indices), got {describe(face)}")
        dim = require_int(face[0], f"faces[{k}] dimension", caller, minimum=0)
        vertices = [require_index(i, n_vertices, f"faces[{k}] vertex", caller, what="vertex") for i in require_sequence(face[1], f"faces[{k}]", caller)]
        facets = [require_index(f, k, f"faces[{k}] facet", caller, what="face") for f in require_sequence(face[2], f"faces[{k}]", caller)]
        if k < n_vertices and (dim, vertices, facets) != (0, [k], []):
            raise GeometryError(f"{caller}: faces[{k}] must be vertex {k}, (0, [{k}], []): the vertices come first, in order")
        out.append((dim, vertices, facets))
    return out


class _Cells(Sequence[SubdivisionCell]):
    """The cells of a subdivision, read one at a time (a view: see :attr:`Subdivision.cells`)."""

    def __init__(self, subdivision: Subdivision) -> None:
        self._subdivision = subdivision

    def __len__(self) -> int:
        return len(self._subdivision._dim)

    def __getitem__(self, cid: Any) -> Any:
        S = self._subdivision
        if type(cid) is not int or not 0 <= cid < len(S._dim):
            cid = require_index(cid, len(S._dim), "cid", "Subdivision.cells")
        return SubdivisionCell(S, cid)

    def __iter__(self) -> Iterator[SubdivisionCell]:
        return (self[c] for c in range(len(self)))


class Subdivision:
    """A pointed polyhedral complex with ideal vertices, refined by exact cuts.

    Build it with :meth:`from_polytope` or :meth:`from_arrangement`, then call
    :meth:`cut` (or :meth:`cut_by_signs`) once per function.

    Attributes
    ----------
    vertices : list of tuple of int
        Homogeneous primitive integer coordinates ``(D, X_1, ..., X_d)``,
        ``D > 0`` for a point ``X / D``, ``D = 0`` for a direction ``X``.
    vertex_cell : list of int
        The cell id of every vertex.

    Notes
    -----
    The cells are kept column-wise, for speed and memory at a few hundred
    thousand cells: their dimensions, facets and vertex sets in flat lists,
    and their signs as one column of bytes per sign (a cell made by a cut
    reads the columns before it from the cell it was cut from). A cut tests
    every cell in one vectorised pass over the vertex sets; only the cells it
    splits are handled one by one.

    Examples
    --------
    The plane cut by ``x = 0`` and ``y = 0``, then by ``x + y - 1``:

    >>> S = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
    >>> S.finite_f_vector()
    (1, 4, 4)
    >>> S.cut([sum(X) - D for D, *X in S.vertices])
    >>> S.finite_f_vector()
    (3, 9, 7)
    >>> S.vertices.index((1, 1, 0))     # the vertex the cut made at (1, 0), on the axis y = 0
    6
    >>> S.cells[S.vertex_cell[6]]
    SubdivisionCell(dim=0, finite=True, facets=(), verts=(6,), signs=(1, 0, 0))
    """

    def __init__(self, d: int) -> None:
        self.d = require_int(d, "d", "Subdivision", minimum=1)
        self.vertices: list[IntegerRow] = []
        self.vertex_cell: list[int] = []
        self._dim = array("b")
        self._finite = bytearray()
        self._facets: list[tuple[int, ...]] = []
        self._verts: list[tuple[int, ...]] = []  # the vertices of every cell's closure, ascending
        # The vertex sets again, flat, for the cut's vectorised pass: every version of a cell's set is appended
        # (a cut cell keeps its id and gets a new set), and _segment[c] is the index in _starts of cell c's
        # current one; stale versions are read and ignored until they outnumber the current ones (a cell cut
        # again and again, which a network's complex rarely has: 1.6-1.8 times the current ones at most).
        self._flat = array("i")  # 4 bytes an entry: a complex with 2^31 vertices would not fit in memory anyway
        self._starts = array("q")  # where every version starts in _flat, ascending
        self._segment = array("q")
        self._live = 0  # the entries of the current versions
        self._parent = array("q")  # the cell a cut made this one from (-1 for the first cells)
        self._columns: list[bytearray] = []  # one per sign: the sign bytes of the cells that existed then

    @property
    def cells(self) -> Sequence[SubdivisionCell]:
        """Every cell (finite or at infinity) by id: dimension, facets, vertices, signs (a read-only view)."""
        return _Cells(self)

    def _add_cell(self, dim: int, finite: bool, facets: tuple[int, ...], verts: tuple[int, ...], parent: int) -> int:
        cid = len(self._dim)
        self._dim.append(dim)
        self._finite.append(finite)
        self._facets.append(facets)
        self._verts.append(verts)
        self._segment.append(len(self._starts))
        self._starts.append(len(self._flat))
        self._flat.extend(verts)
        self._live += len(verts)
        self._parent.append(parent)
        return cid

    def _add_vertex(self, coords: IntegerRow, finite: bool, parent: int = -1) -> int:
        cid = self._add_cell(0, finite, (), (len(self.vertices),), parent)
        self.vertices.append(coords)
        self.vertex_cell.append(cid)
        return cid

    def _add_signs(self, signs: Sequence[Sequence[int]]) -> None:
        """Seed columns: ``signs[c]`` holds the signs of cell ``c``, for every cell there is."""
        for j in range(len(signs[0]) if signs else 0):
            self._columns.append(bytearray(s[j] & 255 for s in signs))

    # -- initial complexes -----------------------------------------------------------
    @classmethod
    def from_polytope(
        cls,
        vertices: MatrixLike,
        faces: Sequence[tuple[int, Sequence[int], Sequence[int]]],
        signs: Sequence[Sequence[int]] | None = None,
    ) -> Subdivision:
        """The face lattice of a polytope.

        Parameters
        ----------
        vertices : sequence of tuple of Fraction
            The polytope's vertices.
        faces : sequence of (int, sequence of int, sequence of int)
            Every non-empty face: ``(dimension, vertex indices, facet face indices)``;
            the 0-dimensional faces must come first, in the order of ``vertices``.
        signs : sequence of sequences of int, optional
            Seed signs (``-1``, ``0`` or ``1``) of every face, as many for
            each (which facet inequalities vanish on it, say): they start
            every cell's signs.

        Examples
        --------
        >>> S = Subdivision.from_polytope([(0,), (1,)], [(0, [0], []), (0, [1], []), (1, [0, 1], [0, 1])], signs=[[0], [0], [1]])
        >>> S.cut([2 * X - D for D, X in S.vertices])                  # at x = 1/2
        >>> [S.cell_signs(c) for c in S.finite_cells()]
        [(0, -1), (0, 1), (1, 1), (1, 0), (1, -1)]
        """
        caller = "Subdivision.from_polytope"
        vertices = to_fraction_matrix(vertices, f"{caller}: vertices")
        if not vertices or not vertices[0]:
            raise ShapeError(f"{caller}: vertices is empty; a polytope has at least one vertex in Q^d, d >= 1")
        faces = _checked_faces(faces, len(vertices), caller)
        seed = _checked_signs(signs, len(faces), caller)
        d = len(vertices[0])
        S = cls(d)
        for v in vertices:
            den = math.lcm(*(x.denominator for x in v))
            S._add_vertex(primitive_integer_row((den, *(int(x * den) for x in v))), True)
        for dim, vidx, facets in faces[len(vertices):]:
            S._add_cell(dim, True, tuple(facets), tuple(sorted(set(vidx))), -1)
        S._add_signs(seed)
        return S

    @classmethod
    def from_arrangement(cls, rows: Sequence[Sequence[int]]) -> Subdivision:
        """The arrangement of ``d`` linearly independent affine hyperplanes in ``Q^d``.

        Parameters
        ----------
        rows : sequence of ``d`` integer rows ``(b, a_1, ..., a_d)``
            The functions ``b + a·x``; their linear parts must be independent.

        Notes
        -----
        In the coordinates ``u_i = b_i + a_i·x`` this is the coordinate
        arrangement: a cell for every sign vector ``s ∈ {-,0,+}^d``, the
        vertex where all ``u_i`` vanish, and ideal vertices ``±`` the columns
        of ``A^{-1}``. Every cell's ``signs`` start with ``s``.
        """
        caller = "Subdivision.from_arrangement"
        rows = to_integer_rows(rows, f"{caller}: rows")
        d = len(rows)
        if not d or len(rows[0]) != d + 1:
            raise ShapeError(f"{caller}: rows must be d rows (b, a_1, ..., a_d) in Q^d, got {d} rows of {len(rows[0]) if d else 0} entries")
        inv = solve_nonsingular([r[1:] for r in rows], [[int(i == j) for j in range(d)] for i in range(d)])
        if inv is None:
            raise GeometryError(f"{caller}: the linear parts of rows are not linearly independent")
        point = [-sum(inv[i][j] * rows[j][0] for j in range(d)) for i in range(d)]
        S = cls(d)
        den = math.lcm(*(x.denominator for x in point))
        origin = S._add_vertex(primitive_integer_row((den, *(int(x * den) for x in point))), True)
        ideal = {}
        for j in range(d):
            col = [inv[i][j] for i in range(d)]
            cden = math.lcm(*(x.denominator for x in col))
            for sgn in (1, -1):
                ideal[j, sgn] = S._add_vertex(primitive_integer_row((0, *(sgn * int(x * cden) for x in col))), False)
        finite, infinite = {(0,) * d: origin}, {}
        for j in range(d):
            for sgn in (1, -1):
                s = tuple(sgn if i == j else 0 for i in range(d))
                infinite[s] = ideal[j, sgn]
        seed = {origin: (0,) * d}  # cell -> its sign vector s
        for j in range(d):
            for sgn in (1, -1):
                seed[ideal[j, sgn]] = tuple(sgn if i == j else 0 for i in range(d))
        for s in sorted(product((-1, 0, 1), repeat=d), key=lambda s: sum(map(abs, s))):
            nnz = [i for i in range(d) if s[i]]
            if not nnz:
                continue
            below = [tuple(0 if i == j else s[i] for i in range(d)) for j in nnz]
            if len(nnz) > 1:
                verts: set[int] = set()
                for b in below:
                    verts.update(S._verts[infinite[b]])
                infinite[s] = S._add_cell(len(nnz) - 1, False, tuple(infinite[b] for b in below), tuple(sorted(verts)), -1)
                seed[infinite[s]] = s
            verts = set(S._verts[origin] + S._verts[infinite[s]])
            for b in below:
                verts.update(S._verts[finite[b]])
            finite[s] = S._add_cell(len(nnz), True, tuple(finite[b] for b in below) + (infinite[s],), tuple(sorted(verts)), -1)
            seed[finite[s]] = s
        S._add_signs([seed[c] for c in range(len(seed))])
        return S

    # -- the cut ---------------------------------------------------------------------------
    def cut(self, values: Sequence[int]) -> None:
        """Refine every cell by the sign of a function given by its values at the vertices.

        Parameters
        ----------
        values : sequence of int
            ``values[i]`` is the function at vertex ``i`` in homogeneous form:
            ``D h(X / D)`` at a finite vertex ``(D, X)``, the recession value
            ``lim h(tX) / t`` at an ideal one (a common positive factor is
            allowed, a per-vertex one is not: new vertices interpolate these
            values). The function must be affine on every cell.

        Raises
        ------
        ShapeError
            ``values`` does not have one entry per vertex.
        InvalidArgumentError
            An entry that is not an integer.
        GeometryError
            The values are not those of a function affine on every cell.

        Notes
        -----
        Every cell's signs get one more entry (:meth:`cell_signs`). New
        vertices are appended to :attr:`vertices`; the function vanishes on them.

        See also
        --------
        cut_by_signs : the same cut from the signs, with exact values asked only where needed.
        """
        values = require_sequence(values, "values", "Subdivision.cut")
        if len(values) != len(self.vertices):
            raise ShapeError(f"Subdivision.cut: values has {len(values)} entries for {len(self.vertices)} vertices")
        if not all(type(v) is int for v in values):
            values = [require_int(v, f"values[{i}]", "Subdivision.cut") for i, v in enumerate(values)]
        code = np.array([1 if v > 0 else 2 if v < 0 else 0 for v in values], dtype=np.uint8)
        self._cut(code, lambda indices: [values[i] for i in indices])

    def cut_by_signs(self, signs: Sequence[int], exact_values: Callable[[list[int]], Sequence[int]]) -> None:
        """:meth:`cut` by a function known by its exact signs at the vertices; its values asked only where needed.

        Only the ends of the edges the function crosses need its exact value
        (the new vertex interpolates them): a caller that can certify signs
        more cheaply than it computes values (a float evaluation with an
        error bound, say) saves the values everywhere else.

        Parameters
        ----------
        signs : sequence of int or numpy.ndarray
            The exact sign (``-1``, ``0`` or ``1``) of the function at every
            vertex (an integer array is read at once).
        exact_values : callable
            Called once, with the sorted list of the vertices at the ends of
            the crossed edges; returns the function's values there, in the
            homogeneous form :meth:`cut` takes.

        Raises
        ------
        ShapeError
            ``signs`` does not have one entry per vertex, or ``exact_values``
            returned another number of values.
        InvalidArgumentError
            A sign that is not ``-1``, ``0`` or ``1``, or a value that is not an integer.
        GeometryError
            A value whose sign is not the one given, or values that are not
            those of a function affine on every cell.

        Examples
        --------
        >>> S = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
        >>> h = lambda vertex: sum(vertex[1:]) - vertex[0]    # x + y - 1, homogeneous
        >>> S.cut_by_signs([(h(v) > 0) - (h(v) < 0) for v in S.vertices], lambda ends: [h(S.vertices[i]) for i in ends])
        >>> S.finite_f_vector()
        (3, 9, 7)
        """
        caller = "Subdivision.cut_by_signs"
        if isinstance(signs, np.ndarray) and signs.ndim == 1 and signs.dtype.kind == "i":
            array = signs
        else:
            signs = require_sequence(signs, "signs", caller)
            bad = next((i for i, s in enumerate(signs) if type(s) is not int or s not in _CODE), None)
            if bad is not None:
                raise InvalidArgumentError(f"{caller}: signs[{bad}] must be -1, 0 or 1, got {describe(signs[bad])}")
            array = np.array(signs, dtype=np.int8)
        if len(array) != len(self.vertices):
            raise ShapeError(f"{caller}: signs has {len(array)} entries for {len(self.vertices)} vertices")
        if len(array) and (array.min() < -1 or array.max() > 1):
            bad = int(np.flatnonzero((array < -1) | (array > 1))[0])
            raise InvalidArgumentError(f"{caller}: signs[{bad}] must be -1, 0 or 1, got {array[bad]}")
        if not callable(exact_values):
            raise InvalidArgumentError(f"{caller}: exact_values must be a callable taking a list of vertex indices, got {describe(exact_values)}")
        self._cut(np.where(array > 0, 1, np.where(array < 0, 2, 0)).astype(np.uint8), exact_values, caller)

    def _cut(self, codes: np.ndarray, exact_values: Callable[[list[int]], Sequence[int]], caller: str = "Subdivision.cut") -> None:
        """The cut by the vertices' codes, with the exact values at the ends of the crossed edges."""
        if len(self._flat) > 2 * self._live:
            self._compact()
        # every cell's code or-ed over its vertices, in one pass over all the vertex sets (stale versions too)
        flat = np.frombuffer(self._flat, dtype=np.intc)
        seen = np.bitwise_or.reduceat(codes[flat], np.frombuffer(self._starts, dtype=np.int64))[np.frombuffer(self._segment, dtype=np.int64)]
        del flat  # the arrays grow again in the split: no view of them may be left
        column = bytearray(_SIGN_BYTE[seen].tobytes())
        split = np.flatnonzero(seen == 3)
        split = split[np.argsort(np.frombuffer(self._dim, dtype=np.int8)[split], kind="stable")].tolist()
        dims, facets, verts = self._dim, self._facets, self._verts
        ends = sorted({i for c in split if dims[c] == 1 for f in facets[c] for i in verts[f]})
        code = codes.tolist()
        values = _checked_values(exact_values(ends), ends, code, caller)
        self._columns.append(column)
        self._split(split, values, code, column)

    def _compact(self) -> None:
        """Drop the stale versions from the flat vertex sets: every cell's current one, in the order of the cells."""
        self._flat = array("i", chain.from_iterable(self._verts))
        sizes = np.fromiter(map(len, self._verts), dtype=np.int64, count=len(self._verts))
        starts = np.zeros(len(sizes), dtype=np.int64)
        np.cumsum(sizes[:-1], out=starts[1:])
        self._starts = array("q", starts.tobytes())
        self._segment = array("q", np.arange(len(sizes), dtype=np.int64).tobytes())

    def _split(self, split: list[int], values: dict[int, int], code: list[int], column: bytearray) -> None:
        """Split the cells ``split`` (by dimension, so that a cell's facets come before it); new cells' signs go to ``column``.

        A part's vertices are the cell's vertices on the part's closed side and
        the vertices made on the cell's cut edges; its facets, the facets' parts
        on its side (and, for the zero part, the codimension-2 faces on which
        the function vanishes). Old vertices where it vanishes are rare (not in
        general position): they are looked for only when there are any.
        """
        dims, finites, facets, verts, parents = self._dim, self._finite, self._facets, self._verts, self._parent
        flat, starts, segment = self._flat, self._starts, self._segment
        vertices, vertex_cell = self.vertices, self.vertex_cell
        live = self._live
        zeros = 0 in code
        parts: dict[int, tuple[int, int, int, tuple[int, ...]]] = {}  # cut cell -> (plus, minus, zero, vertices made on it)
        for cid in split:  # the hot loop: every cut cell; the appends are _add_cell's, inline
            dim, finite, old = dims[cid], finites[cid], verts[cid]
            if dim == 1:
                a, b = facets[cid]
                ia, ib = verts[a][0], verts[b][0]
                if code[ia] == 2:
                    a, b, ia, ib = b, a, ib, ia  # a: the positive end, b: the negative end
                va, vb = values[ia], values[ib]
                # where the function vanishes on the edge: -vb·A + va·B (va > 0 > vb), made primitive
                coords = [-vb * x + va * y for x, y in zip(vertices[ia], vertices[ib])]
                g = math.gcd(*coords)
                zero = len(dims)
                created: tuple[int, ...] = (len(vertices),)
                vertex_cell.append(zero)
                vertices.append(tuple([x // g for x in coords]))
                plus_facets: tuple[int, ...] = (a, zero)
                minus_facets: tuple[int, ...] = (b, zero)
                finite = coords[0] > 0  # the new vertex (at infinity on an edge at infinity)
                dims.append(0)
                finites.append(finite)
                facets.append(())
                verts.append(created)
                segment.append(len(starts))
                starts.append(len(flat))
                flat.extend(created)
                live += 1
                parents.append(cid)
                column.append(0)
                finite = finites[cid]
            else:
                plus, minus, below = [], [], []
                vanishing: set[int] = set()  # codimension-2 faces on the zero set
                made: set[int] = set()
                for f in facets[cid]:
                    piece = parts.get(f)
                    if piece is not None:
                        plus.append(piece[0])
                        minus.append(piece[1])
                        below.append(piece[2])
                        made.update(piece[3])
                        continue
                    sign = column[f]
                    if sign == 0:  # impossible for an affine function: the facet would bound a one-sided cell
                        raise GeometryError(
                            f"Subdivision.cut: cell {cid} has both signs but its facet {f} lies on the zero set: "
                            "values are not those of a function affine on every cell"
                        )
                    (plus if sign == 1 else minus).append(f)
                    if zeros and any(code[i] == 0 for i in verts[f]):
                        vanishing.update(g for g in facets[f] if g not in parts and column[g] == 0)
                created = tuple(sorted(made))
                if vanishing:
                    below.extend(sorted(vanishing))
                zero = len(dims)
                dims.append(dim - 1)
                finites.append(finite)
                facets.append(tuple(below))
                on = (tuple([i for i in old if code[i] == 0]) + created) if zeros else created
                verts.append(on)
                segment.append(len(starts))
                starts.append(len(flat))
                flat.extend(on)
                live += len(on)
                parents.append(cid)
                column.append(0)
                plus.append(zero)
                minus.append(zero)
                plus_facets, minus_facets = tuple(plus), tuple(minus)
            minus_part = len(dims)
            dims.append(dim)
            finites.append(finite)
            facets.append(minus_facets)
            side = tuple([i for i in old if code[i] != 1]) + created
            verts.append(side)
            segment.append(len(starts))
            starts.append(len(flat))
            flat.extend(side)
            live += len(side)
            parents.append(cid)
            column.append(255)
            facets[cid] = plus_facets
            side = tuple([i for i in old if code[i] != 2]) + created
            verts[cid] = side
            segment[cid] = len(starts)
            starts.append(len(flat))
            flat.extend(side)
            live += len(side) - len(old)
            parts[cid] = (cid, minus_part, zero, created)
        self._live = live

    # -- local copies -----------------------------------------------------------------------
    def closure(self, cid: int) -> tuple[Subdivision, list[int]]:
        """The closure of one cell as a subdivision of its own, with a map back to these vertices.

        The copy holds the cell and all its faces (at infinity included); every
        copied cell's ``signs`` is ``[1]`` for ``cid`` itself and ``[0]`` for its
        proper faces. After cuts, the cells in the relative interior of ``cid``
        are exactly those whose ``signs`` start with 1, since :meth:`cut` keeps a
        parent's signs as the prefix of its parts' signs. Used to count what a
        cut would create inside one cell without cutting the whole complex.

        Returns
        -------
        Subdivision
        list of int
            ``vertex_map[i]``: the index in :attr:`vertices` of the copy's vertex ``i``.

        Examples
        --------
        >>> S = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
        >>> quadrant = next(c for c in S.finite_cells() if S.cell_signs(c) == (1, 1))
        >>> Q, vertex_map = S.closure(quadrant)
        >>> len(Q.cells), Q.finite_f_vector()
        (7, (1, 2, 1))
        >>> Q.cut([sum(X) - D for D, *X in (S.vertices[i] for i in vertex_map)])
        >>> sum(1 for c in Q.finite_cells() if Q.cell_signs(c)[0] == 1)
        3
        """
        cid = require_index(cid, len(self._dim), "cid", "Subdivision.closure")
        members, stack = {cid}, [cid]
        while stack:
            for f in self._facets[stack.pop()]:
                if f not in members:
                    members.add(f)
                    stack.append(f)
        vertex_map = self.cell_vertices(cid)
        local = {old: new for new, old in enumerate(vertex_map)}
        order = sorted(members, key=lambda c: self._dim[c])
        new_id = {old: new for new, old in enumerate(order)}
        copy = Subdivision(self.d)
        copy.vertices = [self.vertices[i] for i in vertex_map]
        for old in order:
            verts = tuple(sorted(local[i] for i in self._verts[old]))
            copy._add_cell(self._dim[old], bool(self._finite[old]), tuple(new_id[f] for f in self._facets[old]), verts, -1)
        copy._columns.append(bytearray(old == cid for old in order))
        copy.vertex_cell = [new_id[self.vertex_cell[i]] for i in vertex_map]
        return copy, vertex_map

    def subcomplex(self, cids: Sequence[int]) -> Subdivision:
        """The cells ``cids`` with all their faces (at infinity included), as a subdivision of its own.

        The copy keeps every copied cell's signs and the order of the cells and
        of the vertices (renumbered from 0). A cut refines each cell from its
        own vertices alone, so cutting the copy makes exactly the cells that
        cutting this subdivision makes inside the copied ones: a construction
        can be run on a closed piece of a complex only.

        Raises
        ------
        InvalidArgumentError
            A cell id that is not an integer.
        UsageError
            A cell id out of range.

        Examples
        --------
        >>> S = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
        >>> quadrant = next(c for c in S.finite_cells() if S.cell_signs(c) == (1, 1))
        >>> Q = S.subcomplex([quadrant])
        >>> Q.finite_f_vector(), sorted(Q.cell_signs(c) for c in Q.finite_cells())
        ((1, 2, 1), [(0, 0), (0, 1), (1, 0), (1, 1)])
        >>> Q.cut([sum(X) - D for D, *X in Q.vertices])     # x + y = 1 crosses the quadrant
        >>> Q.finite_f_vector()
        (3, 5, 2)
        """
        cids = require_sequence(cids, "cids", "Subdivision.subcomplex")
        stack = [require_index(c, len(self._dim), f"cids[{k}]", "Subdivision.subcomplex") for k, c in enumerate(cids)]
        members = set(stack)
        while stack:
            for f in self._facets[stack.pop()]:
                if f not in members:
                    members.add(f)
                    stack.append(f)
        order = sorted(members)
        kept = sorted({i for c in order for i in self._verts[c]})
        new_id = {old: new for new, old in enumerate(order)}
        local = {old: new for new, old in enumerate(kept)}
        copy = Subdivision(self.d)
        copy.vertices = [self.vertices[i] for i in kept]
        for old in order:
            facets = tuple(new_id[f] for f in self._facets[old])
            copy._add_cell(self._dim[old], bool(self._finite[old]), facets, tuple(local[i] for i in self._verts[old]), -1)
        copy.vertex_cell = [new_id[self.vertex_cell[i]] for i in kept]
        signs = self.sign_matrix(order).view(np.uint8)
        copy._columns = [bytearray(signs[:, j].tobytes()) for j in range(signs.shape[1])]
        return copy

    # -- reading -----------------------------------------------------------------------------
    def finite_cells(self) -> list[int]:
        """Ids of the cells of the complex itself (not at infinity)."""
        return [c for c, finite in enumerate(self._finite) if finite]

    def finite_f_vector(self) -> tuple[int, ...]:
        """The f-vector of the finite cells."""
        dims = [self._dim[c] for c in self.finite_cells()]
        return tuple(dims.count(k) for k in range(max(dims) + 1))

    def cell_vertices(self, cid: int) -> list[int]:
        """The vertex indices (finite and ideal) of a cell's closure, ascending."""
        if type(cid) is not int or not 0 <= cid < len(self._dim):  # called in inner loops: checked cheaply
            cid = require_index(cid, len(self._dim), "cid", "Subdivision.cell_vertices")
        return list(self._verts[cid])

    def cell_signs(self, cid: int) -> tuple[int, ...]:
        """A cell's signs: its seed signs, then one per cut (``1``, ``0`` or ``-1``).

        A part of a cut cell keeps the cell's signs before the cut, so the
        signs tell which cell of every earlier stage a cell lies in.
        """
        if type(cid) is not int or not 0 <= cid < len(self._dim):
            cid = require_index(cid, len(self._dim), "cid", "Subdivision.cell_signs")
        out = []
        for column in reversed(self._columns):
            while cid >= len(column):  # made after this column: read the cell it was cut from
                cid = self._parent[cid]
            out.append(column[cid])
        return tuple(v - 256 if v > 127 else v for v in reversed(out))

    def sign_matrix(self, cids: Sequence[int]) -> np.ndarray:
        """The signs of many cells at once: an ``int8`` array, a row per cell (as :meth:`cell_signs`).

        Examples
        --------
        >>> S = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
        >>> S.cut([sum(X) - D for D, *X in S.vertices])
        >>> S.sign_matrix([0, S.vertex_cell[6]]).tolist()     # the origin, the vertex at (1, 0)
        [[0, 0, -1], [1, 0, 0]]
        """
        caller = "Subdivision.sign_matrix"
        cids = require_sequence(cids, "cids", caller)
        if not (isinstance(cids, np.ndarray) and cids.ndim == 1 and cids.dtype.kind in "iu"):
            bad = next((i for i, c in enumerate(cids) if type(c) is not int), None)
            if bad is not None:
                require_int(cids[bad], f"cids[{bad}]", caller)  # raises unless it is a NumPy integer
        ids = np.array(cids, dtype=np.intp).reshape(-1)
        if len(ids) and (ids.min() < 0 or ids.max() >= len(self._dim)):
            bad = int(np.flatnonzero((ids < 0) | (ids >= len(self._dim)))[0])
            raise ShapeError(f"{caller}: cids[{bad}] = {ids[bad]} is no cell; the cell ids are 0 .. {len(self._dim) - 1}")
        parent = np.frombuffer(self._parent, dtype=np.int64) if len(self._parent) else np.zeros(0, dtype=np.int64)
        out = np.empty((len(ids), len(self._columns)), dtype=np.uint8)
        ancestor = ids.copy()
        for j in range(len(self._columns) - 1, -1, -1):
            column = np.frombuffer(bytes(self._columns[j]), dtype=np.uint8)
            later = ancestor >= len(column)
            while later.any():  # made after this column: read the cell it was cut from
                ancestor[later] = parent[ancestor[later]]
                later = ancestor >= len(column)
            out[:, j] = column[ancestor]
        del parent  # the array('q') may grow again once no view of it is left
        return out.view(np.int8)

    def finite_complex(self) -> tuple[list[int], list[int], list[tuple[int, ...]], list[tuple[int, ...]], np.ndarray]:
        """The finite cells as a complex of their own, read at once.

        Returns
        -------
        cells : list of int
            Their ids, ascending (:meth:`finite_cells`).
        dimensions : list of int
        facets : list of tuple of int
            Every cell's finite facets, as positions in ``cells``.
        vertices : list of tuple of int
            Every cell's vertices (:meth:`cell_vertices`, as tuples).
        signs : numpy.ndarray
            :meth:`sign_matrix` of ``cells``.

        Examples
        --------
        >>> S = Subdivision.from_arrangement([(0, 1)])     # the point 0 on the line, and its two sides
        >>> cells, dimensions, facets, vertices, signs = S.finite_complex()
        >>> dimensions, facets, vertices, signs.tolist()
        ([0, 1, 1], [(), (0,), (0,)], [(0,), (0, 2), (0, 1)], [[0], [-1], [1]])
        """
        cells = self.finite_cells()
        position = [-1] * len(self._dim)
        for i, c in enumerate(cells):
            position[c] = i
        facets = [tuple(position[f] for f in self._facets[c] if position[f] >= 0) for c in cells]
        return cells, [self._dim[c] for c in cells], facets, [self._verts[c] for c in cells], self.sign_matrix(cells)


def _checked_signs(signs: Any, n_faces: int, caller: str) -> list[tuple[int, ...]]:
    """Seed signs of :meth:`Subdivision.from_polytope`: one tuple of -1, 0, 1 per face, all of one length."""
    if signs is None:
        return []
    signs = require_sequence(signs, "signs", caller)
    if len(signs) != n_faces:
        raise ShapeError(f"{caller}: signs has {len(signs)} entries for {n_faces} faces")
    out: list[tuple[int, ...]] = []
    for k, row in enumerate(signs):
        row = tuple(require_sequence(row, f"signs[{k}]", caller))
        if out and len(row) != len(out[0]):
            raise ShapeError(f"{caller}: signs[{k}] has {len(row)} entries, signs[0] {len(out[0])}")
        if not all(type(v) is int and v in _CODE for v in row):
            raise InvalidArgumentError(f"{caller}: signs[{k}] must hold -1, 0 or 1, got {describe(row)}")
        out.append(row)
    return out
