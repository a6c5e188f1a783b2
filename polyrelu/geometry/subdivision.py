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
from collections.abc import Sequence
from itertools import product
from typing import Any

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


class _SubCell:
    """One cell: its dimension, whether it is finite, its facets, its vertices and its signs.

    ``verts`` holds the indices of the vertices (finite and ideal) of the cell's
    closure, ascending; ``signs`` one byte per cut (and per seed sign): 1, 0,
    or 255 for -1, read as signed bytes by :meth:`Subdivision.cell_signs`.
    """

    __slots__ = ("dim", "finite", "facets", "verts", "signs")

    def __init__(self, dim: int, finite: bool, facets: tuple[int, ...], verts: tuple[int, ...], signs: bytearray) -> None:
        self.dim = dim
        self.finite = finite
        self.facets = facets
        self.verts = verts
        self.signs = signs


# a sign as the byte stored in _SubCell.signs, by the vertex code of cut (0: zero, 1: positive, 2: negative)
_SIGN_BYTE = (0, 1, 255)


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


def _check_carry(carry: Any, n_vertices: int) -> int:
    """The length of the tuples in ``carry``, if it is a list of ``n_vertices`` tuples of one length.

    Their entries are checked where they are used (at the ends of the cut edges).
    """
    if not isinstance(carry, list):
        raise InvalidArgumentError(f"Subdivision.cut: carry must be a list of tuples of int, one per vertex, got {describe(carry)}")
    if len(carry) != n_vertices:
        raise ShapeError(f"Subdivision.cut: carry has {len(carry)} entries for {n_vertices} vertices")
    width = len(carry[0]) if carry and type(carry[0]) is tuple else -1
    if not all(type(row) is tuple and len(row) == width for row in carry):
        i = next(i for i, row in enumerate(carry) if type(row) is not tuple or len(row) != width)
        raise ShapeError(f"Subdivision.cut: carry[{i}] must be a tuple of ints like carry[0], got {describe(carry[i])}")
    return width


def _interpolated(p: tuple[int, ...], q: tuple[int, ...], a: int, b: int, g: int) -> tuple[int, ...]:
    """``(a p + b q) / g``, exactly; ``p`` and ``q`` are checked to hold ints."""
    if not all(type(v) is int for v in p + q):
        raise InvalidArgumentError(f"Subdivision.cut: carry must hold ints, got {describe(p)} and {describe(q)}")
    return tuple([(a * x + b * y) // g for x, y in zip(p, q)])


class Subdivision:
    """A pointed polyhedral complex with ideal vertices, refined by exact cuts.

    Build it with :meth:`from_polytope` or :meth:`from_arrangement`, then call
    :meth:`cut` once per function.

    Attributes
    ----------
    vertices : list of tuple of int
        Homogeneous primitive integer coordinates ``(D, X_1, ..., X_d)``,
        ``D > 0`` for a point ``X / D``, ``D = 0`` for a direction ``X``.
    vertex_cell : list of int
        The cell id of every vertex.

    Examples
    --------
    The plane cut by ``x = 0`` and ``y = 0``, then by ``x + y - 1``:

    >>> S = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
    >>> S.finite_f_vector()
    (1, 4, 4)
    >>> S.cut([sum(X) - D for D, *X in S.vertices])
    >>> S.finite_f_vector()
    (3, 9, 7)
    """

    def __init__(self, d: int) -> None:
        self.d = require_int(d, "d", "Subdivision", minimum=1)
        self.cells: list[_SubCell] = []
        self.vertices: list[IntegerRow] = []
        self.vertex_cell: list[int] = []

    def _add_vertex(self, coords: IntegerRow, finite: bool) -> int:
        cid = len(self.cells)
        index = len(self.vertices)
        self.vertices.append(coords)
        self.vertex_cell.append(cid)
        self.cells.append(_SubCell(0, finite, (), (index,), bytearray()))
        return cid

    # -- initial complexes -----------------------------------------------------------
    @classmethod
    def from_polytope(cls, vertices: MatrixLike, faces: Sequence[tuple[int, Sequence[int], Sequence[int]]]) -> Subdivision:
        """The face lattice of a polytope.

        Parameters
        ----------
        vertices : sequence of tuple of Fraction
            The polytope's vertices.
        faces : sequence of (int, sequence of int, sequence of int)
            Every non-empty face: ``(dimension, vertex indices, facet face indices)``;
            the 0-dimensional faces must come first, in the order of ``vertices``.
        """
        caller = "Subdivision.from_polytope"
        vertices = to_fraction_matrix(vertices, f"{caller}: vertices")
        if not vertices or not vertices[0]:
            raise ShapeError(f"{caller}: vertices is empty; a polytope has at least one vertex in Q^d, d >= 1")
        faces = _checked_faces(faces, len(vertices), caller)
        d = len(vertices[0])
        S = cls(d)
        for v in vertices:
            den = math.lcm(*(x.denominator for x in v))
            S._add_vertex(primitive_integer_row((den, *(int(x * den) for x in v))), True)
        for dim, vidx, facets in faces[len(vertices):]:
            S.cells.append(_SubCell(dim, True, tuple(facets), tuple(sorted(set(vidx))), bytearray()))
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
        for s in sorted(product((-1, 0, 1), repeat=d), key=lambda s: sum(map(abs, s))):
            nnz = [i for i in range(d) if s[i]]
            signs = bytearray(v & 255 for v in s)
            if not nnz:
                S.cells[origin].signs = signs
                continue
            below = [tuple(0 if i == j else s[i] for i in range(d)) for j in nnz]
            if len(nnz) == 1:
                S.cells[infinite[s]].signs = signs
            else:
                verts = set()
                for b in below:
                    verts.update(S.cells[infinite[b]].verts)
                infinite[s] = len(S.cells)
                S.cells.append(_SubCell(len(nnz) - 1, False, tuple(infinite[b] for b in below), tuple(sorted(verts)), signs))
            verts = set(S.cells[origin].verts + S.cells[infinite[s]].verts)
            for b in below:
                verts.update(S.cells[finite[b]].verts)
            finite[s] = len(S.cells)
            S.cells.append(
                _SubCell(len(nnz), True, tuple(finite[b] for b in below) + (infinite[s],), tuple(sorted(verts)), bytearray(signs))
            )
        return S

    # -- the cut ---------------------------------------------------------------------------
    def cut(self, values: Sequence[int], carry: list[tuple[int, ...]] | None = None) -> None:
        """Refine every cell by the sign of a function given by its values at the vertices.

        Parameters
        ----------
        values : sequence of int
            ``values[i]`` is the function at vertex ``i`` in homogeneous form:
            ``D h(X / D)`` at a finite vertex ``(D, X)``, the recession value
            ``lim h(tX) / t`` at an ideal one (a common positive factor is
            allowed, a per-vertex one is not: new vertices interpolate these
            values). The function must be affine on every cell.
        carry : list of tuple of int, optional
            The values of further functions at the vertices, a tuple per
            vertex, in the same homogeneous form, each affine on every cell
            (and integral on integer points, such as an integer combination
            of the coordinates). The cut appends their exact values at the
            vertices it creates (interpolated along the cut edges), so that
            they can cut next.

        Raises
        ------
        ShapeError
            ``values`` or ``carry`` does not have one entry per vertex, or
            ``carry`` holds tuples of different lengths.
        InvalidArgumentError
            An entry that is not an integer.
        GeometryError
            The values are not those of a function affine on every cell.

        Notes
        -----
        Every cell's ``signs`` gets one more entry. New vertices are appended
        to :attr:`vertices`; the function vanishes on them.
        """
        values = require_sequence(values, "values", "Subdivision.cut")
        if len(values) != len(self.vertices):
            raise ShapeError(f"Subdivision.cut: values has {len(values)} entries for {len(self.vertices)} vertices")
        if not all(type(v) is int for v in values):
            values = [require_int(v, f"values[{i}]", "Subdivision.cut") for i, v in enumerate(values)]
        if carry is not None:
            _check_carry(carry, len(self.vertices))
        # every vertex's code: 1 positive, 2 negative, 0 zero; a cell's codes or-ed together are 3 when it is cut
        code = [1 if v > 0 else 2 if v < 0 else 0 for v in values]
        split = []
        for cid, cell in enumerate(self.cells):  # the hot loop: every cell, every cut
            seen = 0
            for i in cell.verts:
                seen |= code[i]
            if seen == 3:
                split.append(cid)
            else:
                cell.signs.append(_SIGN_BYTE[seen])
        split.sort(key=lambda c: self.cells[c].dim)
        # Vertices of the parts: the parent's vertices on the part's closed side, plus the vertices
        # created on the parent's cut edges. Old vertices where the function vanishes are rare (not in
        # general position): they are looked for only when there are any.
        zeros = 0 in code
        pieces: dict[int, tuple[int, int, int]] = {}  # cut cell -> its (plus, minus, zero) parts
        new: dict[int, tuple[int, ...]] = {}  # cut cell -> the vertices created on it, ascending
        for cid in split:
            pieces[cid], new[cid] = self._split_cell(cid, values, code, zeros, pieces, new, carry)

    def _split_cell(
        self,
        cid: int,
        values: Sequence[int],
        code: list[int],
        zeros: bool,
        pieces: dict[int, tuple[int, int, int]],
        new: dict[int, tuple[int, ...]],
        carry: list[tuple[int, ...]] | None,
    ) -> tuple[tuple[int, int, int], tuple[int, ...]]:
        cells = self.cells
        cell = cells[cid]
        signs = cell.signs
        if cell.dim == 1:
            a, b = cell.facets
            ia, ib = cells[a].verts[0], cells[b].verts[0]
            if code[ia] == 2:
                a, b, ia, ib = b, a, ib, ia  # a: the positive end, b: the negative end
            va, vb = values[ia], values[ib]
            # where the function vanishes on the edge: -vb·A + va·B (va > 0 > vb), made primitive
            coords = tuple([-vb * x + va * y for x, y in zip(self.vertices[ia], self.vertices[ib])])
            g = math.gcd(*coords)
            coords = tuple([x // g for x in coords])
            if carry is not None:  # exact: g divides every integral linear function of the coordinates
                carry.append(_interpolated(carry[ia], carry[ib], -vb, va, g))
            zero = self._add_vertex(coords, coords[0] > 0)
            cells[zero].signs = signs + b"\x00"
            created: tuple[int, ...] = cells[zero].verts
            plus_facets: tuple[int, ...] = (a, zero)
            minus_facets: tuple[int, ...] = (b, zero)
        else:
            plus, minus, zero_facets = [], [], []
            vanishing: set[int] = set()  # codimension-2 faces on the zero set
            made: set[int] = set()
            for f in cell.facets:
                piece = pieces.get(f)
                if piece is not None:
                    plus.append(piece[0])
                    minus.append(piece[1])
                    zero_facets.append(piece[2])
                    made.update(new[f])
                    continue
                facet = cells[f]
                sign = facet.signs[-1]
                if sign == 0:  # impossible for an affine function: the facet would bound a one-sided cell
                    raise GeometryError(
                        f"Subdivision.cut: cell {cid} has both signs but its facet {f} lies on the zero set: "
                        "values are not those of a function affine on every cell"
                    )
                (plus if sign == 1 else minus).append(f)
                if zeros and any(code[i] == 0 for i in facet.verts):
                    vanishing.update(g for g in facet.facets if g not in pieces and cells[g].signs[-1] == 0)
            created = tuple(sorted(made))
            zero = len(cells)
            zero_facets.extend(sorted(vanishing))
            on = tuple([i for i in cell.verts if code[i] == 0]) if zeros else ()
            cells.append(_SubCell(cell.dim - 1, cell.finite, tuple(zero_facets), on + created, signs + b"\x00"))
            plus.append(zero)
            minus.append(zero)
            plus_facets, minus_facets = tuple(plus), tuple(minus)
        minus_part = len(cells)
        cells.append(
            _SubCell(cell.dim, cell.finite, minus_facets, tuple([i for i in cell.verts if code[i] != 1]) + created, signs + b"\xff")
        )
        cell.facets = plus_facets
        cell.verts = tuple([i for i in cell.verts if code[i] != 2]) + created
        signs.append(1)
        return (cid, minus_part, zero), created

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
        cid = require_index(cid, len(self.cells), "cid", "Subdivision.closure")
        members, stack = {cid}, [cid]
        while stack:
            for f in self.cells[stack.pop()].facets:
                if f not in members:
                    members.add(f)
                    stack.append(f)
        vertex_map = self.cell_vertices(cid)
        bit = {old: new for new, old in enumerate(vertex_map)}
        order = sorted(members, key=lambda c: self.cells[c].dim)
        new_id = {old: new for new, old in enumerate(order)}
        copy = Subdivision(self.d)
        copy.vertices = [self.vertices[i] for i in vertex_map]
        for old in order:
            cell = self.cells[old]
            verts = tuple(sorted(bit[i] for i in cell.verts))
            copy.cells.append(_SubCell(cell.dim, cell.finite, tuple(new_id[f] for f in cell.facets), verts, bytearray((old == cid,))))
        copy.vertex_cell = [new_id[self.vertex_cell[i]] for i in vertex_map]
        return copy, vertex_map

    # -- reading -----------------------------------------------------------------------------
    def finite_cells(self) -> list[int]:
        """Ids of the cells of the complex itself (not at infinity)."""
        return [c for c, cell in enumerate(self.cells) if cell.finite]

    def finite_f_vector(self) -> tuple[int, ...]:
        """The f-vector of the finite cells."""
        dims = [self.cells[c].dim for c in self.finite_cells()]
        return tuple(dims.count(k) for k in range(max(dims) + 1))

    def cell_vertices(self, cid: int) -> list[int]:
        """The vertex indices (finite and ideal) of a cell's closure."""
        if type(cid) is not int or not 0 <= cid < len(self.cells):  # called in inner loops: checked cheaply
            cid = require_index(cid, len(self.cells), "cid", "Subdivision.cell_vertices")
        return list(self.cells[cid].verts)

    def cell_signs(self, cid: int) -> tuple[int, ...]:
        """A cell's signs: its seed signs, then one per :meth:`cut` (``1``, ``0`` or ``-1``).

        A part of a cut cell keeps the cell's signs before the cut, so the
        signs tell which cell of every earlier stage a cell lies in.
        """
        if type(cid) is not int or not 0 <= cid < len(self.cells):
            cid = require_index(cid, len(self.cells), "cid", "Subdivision.cell_signs")
        return tuple(v - 256 if v > 127 else v for v in self.cells[cid].signs)
