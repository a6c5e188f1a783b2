"""Representations of cells found by the construction, read from the face lattice (internal).

:class:`LatticeGenerators` holds the V-representations the lattice construction found, :class:`CellGenerators`
a cell's generators, :class:`LatticeCell` the minimal H-representation of a cell read off the face lattice in
integer arithmetic; :func:`row_text` formats an integer row as the JSON document writes it.
"""

from __future__ import annotations

from fractions import Fraction

import flint
import numpy as np

from ..geometry import (
    AffineSubspace,
    Polyhedron,
)
from ..geometry.affine import reduce_modulo
from ..geometry.rational import (
    int_text,
    integer_vector,
    primitive_integer_row,
)


class LatticeGenerators:
    """Minimal V-representations of the cells of a finished subdivision, lifted to ``Q^n0``.

    A generator ``v`` of a cell ``σ`` is kept only if it is extreme. The smallest
    face of ``cl σ`` containing ``v`` is where every constraint of ``σ`` that
    vanishes at ``v`` vanishes; ``v`` is a vertex (an extreme ray) exactly when
    no other generator (other ideal generator) of ``σ`` lies on that face: a
    test on bitmasks of the constraints that vanish at each vertex (a vertex
    is a cell of its own: they are its zero signs).
    """

    def __init__(self, vertices, vertex_sets, vertex_signs, basis, lines):
        self.vertices = vertices  # homogeneous integer coordinates
        self.vertex_sets = vertex_sets  # by cell: the vertices of its closure
        self.vertex_signs = vertex_signs  # by vertex: the signs of the constraints there, in network order
        self.basis = basis
        self.lines = lines
        self.zero_sets = self.zero_words = None
        self.points = {}
        self.texts = self.ranks = self.flint_points = self.lines_text = self.integer_basis = None

    def point(self, i):
        """Vertex ``i`` in ``Q^n0``: a point (Fractions), or a ray (a primitive integer row) if ideal."""
        if i not in self.points:
            D, *X = self.vertices[i]
            if self.basis is not None:  # lift from the row space's coordinates: X·B, B = basis / denominator
                if self.integer_basis is None:
                    self.integer_basis = integer_vector([v for b in self.basis for v in b])
                entries, denominator = self.integer_basis
                n = len(self.basis[0])
                X = [sum([x * entries[m * n + j] for m, x in enumerate(X)]) for j in range(n)]
                D *= denominator
            self.points[i] = tuple([Fraction(x, D) for x in X]) if D else primitive_integer_row(X)
        return self.points[i]

    def extreme(self, index, signs):
        """``(finite, ideal)``: the vertices of cell ``index`` that are extreme generators of its closure."""
        if self.zero_sets is None:
            self.zero_sets = [int.from_bytes(row.tobytes(), "little") for row in self.zero_masks()]
        live = 0  # the constraints that do not vanish on the cell
        for j, s in enumerate(signs):
            if s:
                live |= 1 << j
        zero_sets, vertices, cell = self.zero_sets, self.vertices, self.vertex_sets[index]
        if len(cell) == 1:
            return (list(cell), []) if vertices[cell[0]][0] else ([], list(cell))
        # on which of the cell's constraints each generator lies; a generator is extreme when no other one
        # (no other ideal one, for a ray) lies on all of its own: each test is one mask, the count in C
        faces = [zero_sets[i] & live for i in cell]
        ideal_faces = [f for i, f in zip(cell, faces) if not vertices[i][0]]
        finite, ideal = [], []
        for i, face in zip(cell, faces):
            if vertices[i][0]:
                if [f & face for f in faces].count(face) == 1:
                    finite.append(i)
            elif [f & face for f in ideal_faces].count(face) == 1:
                ideal.append(i)
        return finite, ideal

    def zero_masks(self):
        """By vertex, the constraints that vanish there as a bitmask: ``uint64`` words, bit ``j`` of the row for constraint ``j``."""
        if self.zero_words is None:
            bits = np.packbits(self.vertex_signs == 0, axis=1, bitorder="little")
            padding = -bits.shape[1] % 8
            if padding or not bits.shape[1]:  # whole words, and at least one (a network without constraints)
                bits = np.pad(bits, ((0, 0), (0, padding or 8)))
            self.zero_words = np.ascontiguousarray(bits).view("<u8")
            self.vertex_signs = None
        return self.zero_words

    def __call__(self, index, signs):
        """The V-representation of cell ``index``, whose constraints have the signs ``signs``."""
        finite, ideal = self.extreme(index, signs)
        return tuple(sorted(map(self.point, finite))), tuple(sorted(map(self.point, ideal))), self.lines

    def json_texts(self, index, signs):
        """The JSON texts of cell ``index``'s relative interior point, vertices, rays and lines.

        Exactly as :class:`LatticeCell` and the JSON writer's general path
        would write them, but every vertex formatted once for the whole
        complex, its place in the sorted order known once, and the interior
        point (the mean of the vertices plus the sum of the rays) summed in
        flint rationals: its coordinates are long (the vertices' denominators
        multiply), and normalising and printing them is most of the work.
        """
        if self.texts is None:
            self._prepare_texts()
        finite, ideal = self.extreme(index, signs)
        finite.sort(key=self.ranks.__getitem__)
        ideal.sort(key=self.ranks.__getitem__)
        texts, flint_points = self.texts, self.flint_points
        total = flint_points[finite[0]]
        for i in finite[1:]:
            total = [a + b for a, b in zip(total, flint_points[i])]
        total = [a / len(finite) for a in total]
        for i in ideal:
            total = [a + b for a, b in zip(total, flint_points[i])]
        point = '["' + '", "'.join(map(str, total)) + '"]'
        vertices = "[" + ", ".join([texts[i] for i in finite]) + "]"
        rays = "[" + ", ".join([texts[i] for i in ideal]) + "]"
        return point, vertices, rays, self.lines_text

    def _prepare_texts(self):
        """Every vertex's JSON text, its rank in the sorted order, and (finite) its point over a common denominator."""
        points = [self.point(i) for i in range(len(self.vertices))]
        finite = [i for i in range(len(points)) if self.vertices[i][0] > 0]
        ideal = [i for i in range(len(points)) if not self.vertices[i][0]]
        self.ranks = [0] * len(points)
        for group in (finite, ideal):
            for rank, i in enumerate(sorted(group, key=points.__getitem__)):
                self.ranks[i] = rank
        self.texts = [row_text(p) for p in points]
        self.flint_points = [[flint.fmpq(x.numerator, x.denominator) if type(x) is Fraction else flint.fmpq(x) for x in p] for p in points]
        self.lines_text = "[" + ", ".join(map(row_text, self.lines)) + "]"


def _number_text(value):
    """The JSON text of an exact number (an int or a Fraction) as the complex format writes it: a string."""
    if type(value) is int or value.denominator == 1:
        return f'"{int_text(int(value))}"'
    return f'"{int_text(value.numerator)}/{int_text(value.denominator)}"'


def row_text(row):
    """The JSON text of a row of exact numbers (ints or Fractions), as :func:`json.dumps` writes their strings."""
    return "[" + ", ".join([_number_text(v) for v in row]) + "]"


class CellGenerators:
    """A construction's V-representations by cell id (``order[id]`` is the cell's index in the construction)."""

    def __init__(self, generators, order):
        self.generators = generators
        self.order = order

    def __call__(self, cid, signs):
        return self.generators(self.order[cid], signs)

    def json_texts(self, cid, signs):
        """The generators' JSON texts (see :meth:`LatticeGenerators.json_texts`), or None if they cannot tell."""
        texts = getattr(self.generators, "json_texts", None)
        return None if texts is None else texts(self.order[cid], signs)


class LatticeCell:
    """The closure of a cell of a lattice-built complex, both representations from the lattice.

    The V-representation (extreme generators) is known at once. The H-side is
    built on first use: inequalities are the signed formulas of the non-zero
    constraints (domain facets, then neurons), equations those of the zero
    ones; the facets of the polyhedron are the constraints that vanish on some
    lattice facet of the cell; a positive combination of all generators is a
    relative interior point. :meth:`polyhedron` hands these to
    :meth:`Polyhedron.from_trusted`, which asks for each on first use.
    """

    def __init__(self, complex_, cell, vrep):
        self.complex = complex_
        self.cell = cell
        self.d = complex_.network.architecture.input_dim
        self.vrep = vrep
        self.rows = self.hull = None

    def polyhedron(self):
        return Polyhedron.from_trusted(
            self.d,
            h_representation=lambda: self.constraint_rows()[:2],
            minimal_h_representation=self.minimal_h_representation,
            # a callable is taken as computed, unchecked: the subdivision's generators are canonical already, and
            # the value check of every vertex would cost a fifth of tropical_weights on a large complex
            vertices_rays_lines=lambda: self.vrep,
            relative_interior_point=self.relative_interior_point,
            affine_hull=self.affine_hull,
            oracle=self.complex._oracle,
        )

    def constraint_rows(self):
        """``(ieqs, eqns, row_of)``: ``row_of[j]`` is the inequality of constraint ``j`` (non-zero sign)."""
        if self.rows is None:
            cell = self.cell
            ieqs, eqns, row_of = [], [], {}
            constraints = list(zip(self.complex._domain_rows, cell.domain_signs))
            constraints.extend(zip(self.complex.network.pre_activation_rows(cell.signs), cell.signs))
            for j, (row, s) in enumerate(constraints):
                if s == 0:
                    if any(row):
                        eqns.append(row)
                else:
                    row_of[j] = len(ieqs)
                    ieqs.append(row if s > 0 else tuple(-v for v in row))
            self.rows = (tuple(ieqs), tuple(eqns), row_of)
        return self.rows

    def affine_hull(self):
        if self.hull is None:
            self.hull = AffineSubspace.from_equations(self.constraint_rows()[1], self.d)
        return self.hull

    def relative_interior_point(self):
        # A positive combination of all generators of a polyhedron lies in its relative interior:
        # no H-representation needed.
        vertices, rays, _ = self.vrep
        n = len(vertices)
        return tuple(sum((v[i] for v in vertices), Fraction(0)) / n + sum(r[i] for r in rays) for i in range(self.d))

    def minimal_h_representation(self):
        ieqs, _, row_of = self.constraint_rows()
        hull = self.affine_hull()
        full = self.cell.domain_signs + self.cell.signs
        facet_rows = set()
        for f in self.complex.lattice.facets(self.cell.id):
            facet = self.complex[f]
            for j, v in enumerate(facet.domain_signs + facet.signs):
                if v == 0 and full[j] != 0:
                    facet_rows.add(reduce_modulo(ieqs[row_of[j]], hull.equations))
        facet_rows.discard(None)
        return (tuple(sorted(facet_rows)), hull.equations)


def sign(v):
    return (v > 0) - (v < 0)
