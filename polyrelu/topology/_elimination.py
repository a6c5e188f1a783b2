"""Exact ranks and invariant factors of sparse integer matrices: the linear algebra of homology.

A boundary matrix is given by its columns, each a mapping ``row -> nonzero
integer``. :func:`integer_reduction` finds its rank and its invariant factors
(the diagonal of its Smith normal form) other than 1; :func:`modular_rank` its
rank over ``Z/p``. Both are exact. Cellular boundary matrices are sparse with
entries ``±1``, so most of the work is elimination on unit pivots, which
keeps the integers small and changes neither the rank nor the Smith normal
form; what is left (usually nothing) is reduced by FLINT's Smith normal form.

This is an internal module of :mod:`polyrelu.topology`: :func:`integer_reduction`
and :func:`modular_rank` are its named API, used by
:mod:`polyrelu.topology.subcomplex`.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import NamedTuple

import flint

__all__ = ["IntegerReduction", "integer_reduction", "modular_rank"]

SparseColumn = Mapping[int, int]


class IntegerReduction(NamedTuple):
    """The rank of an integer matrix and its invariant factors other than 1.

    Attributes
    ----------
    rank : int
        The rank over Q (the number of nonzero invariant factors).
    torsion : tuple of int
        The invariant factors greater than 1, in increasing order (each
        divides the next): the torsion coefficients of the cokernel.
    """

    rank: int
    torsion: tuple[int, ...]


class _SparseMatrix:
    """Columns as dicts ``row -> entry`` with, per row, the set of columns holding it.

    ``modulus``: a prime ``p`` to compute over ``Z/p`` (entries kept in
    ``1 .. p-1``), or None for the integers.
    """

    def __init__(self, columns: Sequence[SparseColumn], modulus: int | None) -> None:
        self.modulus = modulus
        self.columns: dict[int, dict[int, int]] = {}
        self.rows: dict[int, set[int]] = {}
        for j, column in enumerate(columns):
            entries = {i: (v % modulus if modulus else v) for i, v in column.items()}
            entries = {i: v for i, v in entries.items() if v}
            if entries:
                self.columns[j] = entries
                for i in entries:
                    self.rows.setdefault(i, set()).add(j)

    def is_pivot(self, value: int) -> bool:
        """Whether an entry can be a pivot without changing the invariant factors: a unit."""
        return self.modulus is not None or value in (1, -1)

    def eliminate(self, i: int, j: int) -> list[int]:
        """Clear row ``i`` outside column ``j`` by column operations, then drop row ``i`` and column ``j``.

        The column operations add integer multiples of column ``j`` (whose
        entry at ``i`` is a unit) to other columns: unimodular, so neither the
        rank nor the Smith normal form changes. Afterwards row ``i`` is zero
        outside the pivot, so the row operations that clear column ``j`` touch
        nothing else, and the matrix is the pivot plus the rest. Returns the
        columns that changed.
        """
        pivot_column = self.columns.pop(j)
        for r in pivot_column:
            self.rows[r].discard(j)
        p = self.modulus
        inverse = pivot_column[i] if p is None else pow(pivot_column[i], -1, p)
        changed = []
        for c in list(self.rows[i]):
            column = self.columns[c]
            factor = column[i] * inverse
            for r, v in pivot_column.items():
                value = column.get(r, 0) - factor * v
                if p is not None:
                    value %= p
                if value:
                    if r not in column:
                        self.rows[r].add(c)
                    column[r] = value
                elif r in column:
                    del column[r]
                    self.rows[r].discard(c)
            if not column:
                del self.columns[c]
            else:
                changed.append(c)
        del self.rows[i]
        return changed

    def eliminate_pivots(self) -> int:
        """Eliminate pivots until none is left; the number eliminated.

        Columns are taken shortest first, and within a column the pivot whose
        row is shortest (a Markowitz-like order that keeps the fill-in small).
        A column without a pivot waits until an elimination changes it.
        """
        heap = [(len(c), j) for j, c in self.columns.items()]
        heapq.heapify(heap)
        eliminated = 0
        while heap:
            length, j = heapq.heappop(heap)
            column = self.columns.get(j)
            if column is None or len(column) != length:
                continue  # stale: the column went away or changed (and was pushed again)
            candidates = [i for i, v in column.items() if self.is_pivot(v)]
            if not candidates:
                continue
            i = min(candidates, key=lambda r: (len(self.rows[r]), r))
            for c in self.eliminate(i, j):
                heapq.heappush(heap, (len(self.columns[c]), c))
            eliminated += 1
        return eliminated


def integer_reduction(columns: Sequence[SparseColumn]) -> IntegerReduction:
    """The rank and the invariant factors other than 1 of a sparse integer matrix.

    Parameters
    ----------
    columns : sequence of mappings ``row -> int``
        The matrix by columns; rows are any hashable indices, zero entries
        may be left out.

    Returns
    -------
    IntegerReduction

    Notes
    -----
    Unit pivots are eliminated first (:class:`_SparseMatrix`); the remaining
    block, whose entries are all non-units, is put into Smith normal form by
    FLINT (``fmpz_mat.snf``).

    Examples
    --------
    The boundary of the 2-cell of the real projective plane winds twice
    around its 1-cell:

    >>> integer_reduction([{0: 2}])
    IntegerReduction(rank=1, torsion=(2,))
    >>> integer_reduction([{0: 1, 1: -1}, {1: 1, 2: -1}, {0: 1, 2: -1}])
    IntegerReduction(rank=2, torsion=())
    >>> integer_reduction([{0: 2, 1: 4}, {0: 6, 1: 8}])
    IntegerReduction(rank=2, torsion=(2, 4))
    """
    matrix = _SparseMatrix(columns, None)
    rank = matrix.eliminate_pivots()
    if not matrix.columns:
        return IntegerReduction(rank, ())
    row_index = {r: k for k, r in enumerate(r for r, held in matrix.rows.items() if held)}
    dense = flint.fmpz_mat(len(row_index), len(matrix.columns))
    for k, column in enumerate(matrix.columns.values()):
        for r, v in column.items():
            dense[row_index[r], k] = v
    snf = dense.snf()
    diagonal = [abs(int(snf[k, k])) for k in range(min(snf.nrows(), snf.ncols()))]
    factors = [d for d in diagonal if d]
    return IntegerReduction(rank + len(factors), tuple(sorted(d for d in factors if d > 1)))


def modular_rank(columns: Sequence[SparseColumn], p: int) -> int:
    """The rank over ``Z/p`` of a sparse integer matrix, for a prime ``p``.

    Examples
    --------
    >>> modular_rank([{0: 2}], 2), modular_rank([{0: 2}], 3)
    (0, 1)
    """
    return _SparseMatrix(columns, p).eliminate_pivots()
