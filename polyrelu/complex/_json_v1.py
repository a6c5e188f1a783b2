"""The cells of the complex JSON document, version 1: every cell written out in full (internal module).

Version 1 (docs/formats.md) stores each cell's sign vector, relative interior
point, V- and minimal H-representation and, for a region, its affine map.
:func:`cell_texts` gives the text of the document's ``cells`` key, exactly as
:func:`json.dump` writes it; the rest of the document is common to both
versions (:mod:`polyrelu.complex._canonical`).
"""

from __future__ import annotations

from collections.abc import Iterator
from fractions import Fraction
from typing import Any

import numpy as np

from ..complex_validation import reduced_row
from ..geometry.affine import echelon_equations
from ..geometry.rational import IntegerRow, primitive_integer_row
from ._patterns import PatternMaps
from ._representations import row_text

__all__ = ["cell_texts"]

_CHUNK = 1 << 20  # characters of cells the JSON writer writes at a time


_SIGN_TEXT = {1: "+", -1: "-", 0: "0"}


_DOMAIN_SIGN_TEXT = {1: "+", 0: "0"}




def cell_texts(K: Any) -> Iterator[str]:
    """The text of the ``cells`` key of the version-1 document of the complex ``K`` and its separator, in pieces."""
    return _CellWriter(K).chunks()


class _CellWriter:
    """The cells of the version-1 complex JSON document (docs/formats.md) as text, cell by cell.

    The text is exactly what :func:`json.dump` writes for them. A
    lattice-built cell is written from the face lattice: its generators and
    interior point by :meth:`LatticeGenerators.json_texts`, its minimal
    H-representation as :class:`LatticeCell` finds it (the constraints that
    vanish on a lattice facet, reduced modulo the affine hull) in integer
    arithmetic, with the constraint rows, the hulls and the rows' texts kept
    for the cells that share them. Any other cell (built by LP, read from a
    file) is written from its polyhedron, where everything is known already.
    """

    def __init__(self, K):
        self.K = K
        net = K.network
        self.n0 = net.architecture.input_dim
        self.n_domain = len(K._domain_rows)
        self.neurons = net.architecture.hidden_neurons()
        self.maps = PatternMaps(net)
        self.rows: dict[tuple[int, tuple[bool, ...]], list[IntegerRow]] = {}  # (layer, earlier flags) -> primitive rows
        # the hull of a set of zero rows: its equations, their pivots, their text, and rows reduced modulo it
        self.hulls: dict[tuple[IntegerRow, ...], tuple[tuple[IntegerRow, ...], list[int], str, dict]] = {}
        self.zero_columns: np.ndarray | None = None
        self.zero_starts: list[int] = []

    def chunks(self) -> Iterator[str]:
        """The text of the document's ``cells``, in pieces."""
        K = self.K
        yield '"cells": ['
        batch: list[str] = []
        size, separator = 0, ""
        for c in K._cells:  # a megabyte of text at a time: few writes, little memory
            text = self.cell_text(c)
            batch.append(text)
            size += len(text)
            if size > _CHUNK:
                yield separator + ", ".join(batch)
                batch.clear()
                size, separator = 0, ", "
        if batch:
            yield separator + ", ".join(batch)
        yield "], "

    def cell_text(self, c) -> str:
        K = self.K
        signs = c.domain_signs + c.signs
        texts = K._generators.json_texts(c.id, signs) if c._polyhedron is None and K._generators is not None else None
        if texts is not None:
            point, vertices, rays, lines = texts
            ieqs, eqns = self._minimal_h_texts(c, signs)
        else:
            P = c.polyhedron
            hrep, vrep = P.minimal_h_representation(), P.vertices_rays_lines()
            point = row_text(c.relative_interior_point())
            vertices, rays, lines, ieqs, eqns = ("[" + ", ".join(map(row_text, rows)) + "]" for rows in (*vrep, *hrep))
        text = (
            f'{{"id": {c.id}, "dim": {c.dimension}, "signs": "{"".join(map(_SIGN_TEXT.__getitem__, c.signs))}", '
            f'"domain_signs": "{"".join(map(_DOMAIN_SIGN_TEXT.__getitem__, c.domain_signs))}", '
            f'"relative_interior_point": {point}, "vertices": {vertices}, "rays": {rays}, "lines": {lines}, '
            f'"ieqs": {ieqs}, "eqns": {eqns}'
        )
        if c.dimension == self.n0:
            A, b = self.maps.affine_map(c.signs)
            scale = self.maps.scale
            A_text = ", ".join(row_text([Fraction(v, scale) for v in row]) for row in A)
            text += f', "affine_map": {{"A": [{A_text}], "b": {row_text([Fraction(v, scale) for v in b])}}}'
        return text + "}"

    def _zeros(self, cid):
        """The constraints (domain facets, then neurons) that vanish on cell ``cid``."""
        if self.zero_columns is None:  # for all cells at once: their zero signs' positions, cell by cell
            cells, self.zero_columns = np.nonzero(self.K._sign_matrix() == 0)
            self.zero_starts = np.searchsorted(cells, np.arange(len(self.K) + 1)).tolist()
        return self.zero_columns[self.zero_starts[cid] : self.zero_starts[cid + 1]].tolist()

    def _rows_of(self, signs):
        """A function giving the primitive row of constraint ``j`` (domain facets, then neurons) on the cell of ``signs``."""
        by_layer: dict[int, list[IntegerRow]] = {}
        n_domain, domain_rows, neurons = self.n_domain, self.K._domain_rows, self.neurons

        def row(j):
            if j < n_domain:
                return domain_rows[j]
            layer, index = neurons[j - n_domain]
            rows = by_layer.get(layer)
            if rows is None:
                key = (layer, tuple(map((0).__lt__, signs[n_domain : n_domain + self.maps.starts[layer - 1]])))
                rows = self.rows.get(key)
                if rows is None:
                    rows = self.rows[key] = [primitive_integer_row(r) for r in self.maps.layer_rows(signs[n_domain:], layer)]
                by_layer[layer] = rows
            return rows[index]

        return row

    def _minimal_h_texts(self, c, signs):
        """The texts of the cell's minimal H-representation: as :meth:`LatticeCell.minimal_h_representation` finds it."""
        row_of = self._rows_of(signs)
        zeros = self._zeros(c.id)
        on = tuple([row for row in map(row_of, zeros) if any(row)])
        hull = None if c.dimension == 0 else self.hulls.get(on)  # a vertex is the only cell of its hull
        if hull is None:
            if c.dimension == 0:  # x_i = p_i / q_i: the echelon rows at once
                (point,), _, _ = self.K._generators(c.id, signs)
                equations = tuple((-x.numerator, *(x.denominator if j == i else 0 for j in range(self.n0))) for i, x in enumerate(point))
            else:
                equations = echelon_equations(on, self.n0)
            assert equations is not None  # a cell's equations have the cell as solutions
            pivots = [next(i for i in range(1, len(e)) if e[i]) for e in equations]
            hull = (equations, pivots, "[" + ", ".join(map(row_text, equations)) + "]", {})
            if c.dimension:
                self.hulls[on] = hull
        equations, pivots, eqns_text, reduced = hull
        facet_rows = set()
        zero_set = set(zeros)
        for f in self.K.lattice.facets(c.id):
            for j in self._zeros(f):
                if j in zero_set:
                    continue
                row = row_of(j)
                if signs[j] < 0:
                    row = tuple([-v for v in row])
                if equations:  # reduce modulo the hull; cells of one hull share rows
                    result = reduced.get(row, False)
                    if result is False:
                        result = reduced[row] = reduced_row(row, equations, pivots)
                    row = result
                elif not any(row[1:]):
                    row = None  # constant: no facet
                if row is not None:
                    facet_rows.add(row)
        return "[" + ", ".join(map(row_text, sorted(facet_rows))) + "]", eqns_text
