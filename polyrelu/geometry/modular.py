"""Elimination modulo a prime: ranks, echelon forms and non-singular minors of numpy arrays of residues.

A rank modulo a prime ``p`` is a lower bound on the rank over Q (a minor that
is non-zero modulo ``p`` is non-zero), which is how
:mod:`polyrelu.identifiability` certifies ranks cheaply.
:func:`modular_echelon` echelons an array in flint; :func:`modular_rank_profile`
finds its rank, column rank profile and a non-singular minor without leaving
numpy (converting a large array to flint costs more than eliminating it in
float64 products, exact below ``2^52``); :func:`modular_rank_profiles` does
so for a stack of small arrays side by side; :func:`residue` reduces a
rational modulo ``p``.

These are internal helpers for polyrelu's own modules: arguments are not
checked beyond what the computation needs.
"""

from fractions import Fraction
from typing import Any, NamedTuple

import flint
import numpy as np

from ..parallel import one_blas_thread
from .linalg import echelon_pivots

__all__ = [
    "modular_echelon",
    "RankProfile",
    "modular_rank_profile",
    "modular_rank_profiles",
    "residue",
]


def modular_echelon(residues: Any, p: int) -> tuple[Any, int]:
    """``(echelon, rank)``: the reduced row echelon form modulo the prime ``p`` of a 2-D integer array.

    ``residues`` is a numpy array of integers in ``0 .. p - 1`` (large
    Jacobians are reduced modulo ``p`` in numpy first); ``echelon`` is a flint
    ``nmod_mat`` (read its pivots with :func:`echelon_pivots`), or None for an
    empty array.

    Examples
    --------
    >>> import numpy as np
    >>> echelon, r = modular_echelon(np.array([[1, 2], [2, 4]]), 7)
    >>> r, echelon_pivots(echelon, r)
    (1, [0])
    """
    if residues.size == 0:
        return None, 0
    return flint.nmod_mat(residues.shape[0], residues.shape[1], residues.ravel().tolist(), p).rref()


class RankProfile(NamedTuple):
    """The rank of a matrix modulo a prime and a non-singular minor of that size: ``rows × columns``.

    ``columns`` is the matrix's column rank profile (each column independent of
    the ones before it), ``rows`` in the order the elimination chose them.
    """

    rank: int
    rows: list
    columns: list


_PROFILE_PANEL = 64  # columns eliminated before the rest of the array is updated by one matrix product
_PROFILE_WIDE = 512  # panels of 128 columns while more than this many columns remain
_PROFILE_BASE = 8  # columns eliminated at once (one inverse) or one at a time; wider ranges are halved
_PROFILE_MODULUS = 2**22  # from it on, flint: see _PROFILE_EXACT for why float64 suffices below it
# Every float64 of the elimination stays at most 2^52 in absolute value: below 2^53 every integer is exact,
# and so is rint(x / p) p, at most |x| + p
_PROFILE_EXACT = 2**52


def _centered(x, p):
    """Reduce a float64 array of integers at most ``2^52`` in absolute value modulo ``p`` in place.

    ``x - rint(x / p) p``: zero exactly when ``p`` divides ``x``, and at most
    ``p / 2 + 1`` in absolute value (the computed quotient is within ``1 / p``
    of the true one, so it rounds to a neighbour of the nearest integer only
    when the true one is within ``1 / p`` of a half); the products and
    differences are exact. Not ``np.fmod``, whose time grows with the
    quotient's bits (it serves for arrays of a few entries).
    """
    quotient = x * (1.0 / p)
    np.rint(quotient, out=quotient)
    quotient *= p
    x -= quotient


def modular_rank_profile(residues: Any, p: int) -> RankProfile:
    """The rank modulo the prime ``p`` of a 2-D integer array, with the rows and columns of a non-singular minor.

    The same answer as the pivots of :func:`modular_echelon` (the columns)
    but without leaving numpy: a blocked elimination with row pivoting in
    float64, exact because every entry is an integer kept at most ``2^52``
    in absolute value (for ``p`` below ``2^22``; a larger prime takes two
    echelon forms in flint instead). Converting a large array to a flint
    matrix costs more than this whole elimination.

    Parameters
    ----------
    residues : numpy.ndarray
        Integers (any sign; they are reduced modulo ``p``), or a float64
        array of integers at most ``p`` in absolute value (used as they are,
        e.g. residues reduced in float64 by their caller).
    p : int
        A prime.

    Returns
    -------
    RankProfile
        ``rank``, then ``rows`` and ``columns`` (lists of indices, ``columns``
        increasing) on which ``residues`` has a non-singular minor modulo ``p``.

    Notes
    -----
    Columns are taken in panels of 64 (128 while more than 512 columns
    remain): each panel is eliminated by halves, down to 8 columns, and the
    columns after it are then updated by one matrix product, ``A22 -= W A12``
    with ``W = A21 A11⁻¹`` the multipliers of the panel's pivot rows (a Schur
    complement: no triangular factor is kept, only ``W``, and two halves'
    ``W`` combine by one product). 8 columns are eliminated at once when
    the next 8 rows are independent on them (one inverse modulo ``p``, in
    flint: the rule in a dense array), else one at a time. Rows that are 0
    in a panel's columns eliminated so far have multipliers 0 and are left
    alone, which makes sparse arrays cheap.

    Reductions modulo ``p`` are lazy, and this is why every float64 stays an
    exact integer. A reduced entry is at most ``p`` in absolute value (see
    ``_centered``; ``np.fmod`` for a few entries), and an entry is changed
    only by subtracting products of a reduced multiplier and a reduced
    pivot-row entry, one product per pivot, so each pivot since the entry
    was last reduced adds less than ``p²`` to it: its value, and every
    partial sum of a matrix product in any order (BLAS), stays below the
    bound. Reduced are: 8 columns before they are eliminated (to test for
    zeros), each column again before its zero test, multipliers and pivot
    rows before they multiply; the columns after a panel only when a
    running bound on them (``p``, plus ``p²`` per pivot since their last
    reduction, in Python integers), plus ``p²`` for each column of the
    panel to come, would pass ``2^52``: for ``p`` near ``2^20`` after about
    4,000 pivots, near ``2^22`` every 128 to 192.

    Examples
    --------
    >>> modular_rank_profile(np.array([[0, 2, 4], [0, 1, 2], [1, 0, 0]]), 7)
    RankProfile(rank=2, rows=[2, 1], columns=[0, 1])
    """
    A = np.asarray(residues)
    if A.dtype != np.float64 or p >= _PROFILE_MODULUS or (A.size and np.abs(A).max() > p):
        A = A.astype(np.int64)
        if A.size and (A.min() < 0 or A.max() >= p):  # residues usually come reduced: % is the slowest step
            A = A % p
    if p >= _PROFILE_MODULUS:  # float64 cannot hold the products: two echelon forms in flint
        echelon, rank = modular_echelon(A, p)
        columns = echelon_pivots(echelon, rank) if rank else []
        transposed, _ = modular_echelon(np.ascontiguousarray(A[:, columns].T), p)
        return RankProfile(rank, echelon_pivots(transposed, rank) if rank else [], columns)
    A = A.astype(np.float64, order="C")  # rows contiguous, whatever the input's layout
    with one_blas_thread():  # BLAS threads waiting for busy cores cost more than the products
        return _rank_profile(A, p)


def _rank_profile(A, p):
    """:func:`modular_rank_profile` of a float64 array of residues, overwritten."""
    m, n = A.shape
    order = np.arange(m)
    growth = p * p  # what one pivot adds at most to an entry (see the Notes of modular_rank_profile)
    bound = p  # on the entries of the columns not yet eliminated, in the rows not yet pivots
    products = np.empty(A.size)  # one buffer: a fresh temporary of this size per product costs page faults
    columns: list[int] = []
    r = 0
    c1 = 0
    while c1 < n and r < m:
        # wider panels while many columns remain: one update fewer of those columns (two passes over them,
        # the product and the difference) for a larger panel to eliminate (rows times width squared)
        c0, c1 = c1, min(c1 + (2 if n - c1 > _PROFILE_WIDE else 1) * _PROFILE_PANEL, n)
        if bound + (c1 - c0) * growth > _PROFILE_EXACT:  # the panel's own pivots could take entries past 2^52
            _centered(A[r:, c0:], p)
            bound = p
        panel = _Panel(A[r:, c0:c1], p)
        pivots = panel.eliminate(0, c1 - c0, 0)
        k, live = len(pivots), panel.live
        columns += [c0 + j for j in pivots]
        moved = np.flatnonzero(panel.rows != np.arange(m - r))
        if moved.size:  # the panel's row swaps, in the rows of the columns after it
            A[r + moved, c1:] = A[r + panel.rows[moved], c1:]
            order[r + moved] = order[r + panel.rows[moved]]
        if k and c1 < n and k < live:
            upper = A[r : r + k, c1:]
            _centered(upper, p)
            trailing = A[r + k : r + live, c1:]  # the rows after: 0 in the panel, their multipliers are 0
            product = products[: trailing.size].reshape(trailing.shape)
            np.matmul(panel.values[:k, k:live].T, upper, out=product)
            trailing -= product
            bound += k * growth
        r += k
    return RankProfile(r, order[:r].tolist(), columns)


def _inverse_modulo(matrix, p):
    """The inverse modulo ``p`` (entries ``0 .. p - 1``) of a small square float64 array of integers, or None."""
    size = matrix.shape[0]
    integers = flint.fmpz_mat(size, size, matrix.astype(np.int64).ravel().tolist())  # quicker than nmod_mat's
    try:
        inverse = flint.nmod_mat(integers, p).inv()
    except ZeroDivisionError:  # singular
        return None
    return np.fromiter(map(int, inverse.entries()), np.float64, size * size).reshape(size, size)


class _Panel:
    """Columns of an array being eliminated together (by :func:`modular_rank_profile`), transposed.

    ``values[j, i]`` is the entry in the panel's column ``j`` and the array's
    row ``rows[i]``; rows are swapped here and in ``rows`` only (the caller
    swaps the rest of the array afterwards). Rows from ``live`` on are 0 in
    every column eliminated so far: their multipliers are 0, and nothing
    changes them.
    """

    def __init__(self, columns, p):
        self.values = columns.T.copy()  # transposed: the array's columns are contiguous here
        self.p = p
        self.rows = np.arange(self.values.shape[1])
        self.live = 0

    def eliminate(self, c0, c1, r):
        """Eliminate the columns ``c0:c1`` from the row ``r`` on; their pivots.

        With ``k`` pivots: the rows ``r`` to ``r + k - 1`` are the pivot rows,
        ``values[c0 : c0 + k, r + k :]`` holds the multipliers ``W`` of the
        rows after them (reduced), and the entries of those rows in the
        columns after ``c1`` are updated by all but the pivots of ``c0:c1``
        (their caller applies those, with ``W``).
        """
        if c1 - c0 <= _PROFILE_BASE:
            return self._eliminate_columns(c0, c1, r)
        values, p = self.values, self.p
        middle = c0 + _PROFILE_BASE * -(-(c1 - c0) // (2 * _PROFILE_BASE))
        left = self.eliminate(c0, middle, r)
        k1 = len(left)
        if k1:  # the right half's rows after the left's pivots, less W times the pivot rows
            upper = values[middle:c1, r : r + k1]
            _centered(upper, p)
            values[middle:c1, r + k1 : self.live] -= upper @ values[c0 : c0 + k1, r + k1 : self.live]
        right = self.eliminate(middle, c1, r + k1)
        k2 = len(right)
        k, live = k1 + k2, self.live
        if k1 and k2:
            # the rows after both halves' pivots: the left's W less the right's W times the left's W in the
            # right's pivot rows (still reduced: only the right half has changed since)
            below = values[c0 : c0 + k1, r + k : live]
            below -= values[c0 : c0 + k1, r + k1 : r + k] @ values[middle : middle + k2, r + k : live]
            _centered(below, p)
        if k2 and c0 + k1 < middle:  # the left half had dependent columns: the multipliers kept contiguous
            values[c0 + k1 : c0 + k, r + k : live] = values[middle : middle + k2, r + k : live]
        return left + right

    def _eliminate_columns(self, c0, c1, r):
        """:meth:`eliminate` one column at a time (Gauss-Jordan on the multipliers)."""
        values, p = self.values, self.p
        _centered(values[c0:c1, r:], p)
        self.live += self._gather(c0, c1, self.live, values.shape[1])
        # rows 0 in these columns have multipliers 0: after the others, and left alone
        block = values[c0:c1, r : r + self._gather(c0, c1, r, self.live)]
        w = c1 - c0
        top = block[:, :w]
        if block.shape[1] >= w and (top.all() or top.any(axis=0).all() and top.any(axis=1).all()):
            # the next w rows have no zero row or column (always so in a dense array): if they are
            # independent on these columns, they are the pivot rows and W = A21 A11⁻¹ at once
            inverse = _inverse_modulo(block[:, :w], p)
            if inverse is not None:
                block[:, w:] = inverse @ block[:, w:]
                _centered(block[:, w:], p)
                return list(range(c0, c1))
        inverses = np.zeros(c1 - c0)  # 0 for a dependent column: its multipliers become 0
        pivots = []
        i = 0  # the next pivot row, in block
        for t in range(c1 - c0):
            if i == block.shape[1]:
                break
            column = block[t, i:]
            if i:  # the pivots before it have updated it since it was reduced
                _centered(column, p)
            if not column[0]:
                nonzero = np.flatnonzero(column)
                if not nonzero.size:
                    continue  # t depends on the columns before it
                self._swap([r + i, r + i + int(nonzero[0])])
            inverses[t] = pow(int(column[0]) % p, -1, p)
            # the pivot row over the pivot, reduced (few entries: fmod is quick); 0 in column t, which keeps its
            # entries: they are the multipliers times the pivot, divided once the block is done. The earlier
            # pivot columns get the same update as the later ones: Gauss-Jordan keeps their multipliers
            # relative to the pivot rows as they were when the block began
            pivot_row = np.fmod(block[:, i], p)
            pivot_row *= inverses[t]
            np.fmod(pivot_row, p, out=pivot_row)
            pivot_row[t] = 0
            block[:, i + 1 :] -= np.outer(pivot_row, column[1:])
            pivots.append(t)
            i += 1
        multipliers = block[:, i:]
        _centered(multipliers, p)
        multipliers *= inverses[:, None]
        _centered(multipliers, p)
        if len(pivots) < c1 - c0:
            multipliers[: len(pivots)] = multipliers[pivots]
        return [c0 + t for t in pivots]

    def _gather(self, c0, c1, start, end):
        """Move the rows ``start:end`` not 0 in the columns ``c0:c1`` (reduced) to the front there; their number."""
        nonzero = self.values[c0:c1, start:end].any(axis=0)
        s = int(np.count_nonzero(nonzero))
        incoming = start + s + np.flatnonzero(nonzero[s:])
        if incoming.size:
            self._swap(np.concatenate([incoming, start + np.flatnonzero(~nonzero[:s])]))
        return s

    def _swap(self, pairs):
        """Swap rows: the first half of the index list ``pairs`` with the second (reversed)."""
        swapped = pairs[::-1]
        self.values[:, pairs] = self.values[:, swapped]
        self.rows[pairs] = self.rows[swapped]


def residue(value: int | Fraction, modulus: int) -> int:
    """A rational number modulo a prime, in ``0 .. modulus - 1`` (its denominator must be prime to it).

    Examples
    --------
    >>> residue(Fraction(1, 2), 7), residue(-3, 7)
    (4, 4)
    """
    if type(value) is int:  # most residues are of integers: no Fraction to build
        return value % modulus
    value = Fraction(value)
    return int(value.numerator % modulus) * pow(int(value.denominator % modulus), -1, modulus) % modulus


def modular_rank_profiles(arrays: Any, p: int) -> list[RankProfile]:
    """:func:`modular_rank_profile` of every array of a stack (``k × m × n``), eliminated side by side.

    Column by column, every array of the stack takes its own pivot (its
    first row with a non-zero entry there among the rows not yet taken) and
    clears the column in the other rows: ``n`` steps of numpy operations on the
    whole stack. Many small arrays cost more to convert to flint one at a
    time (about 100 ns an entry) than this. Exact in float64 while ``n``
    updates of ``(p/2 + 1)²`` stay within ``2^52`` (``n < 2^14`` for the
    primes below ``2^20`` of :mod:`polyrelu.identifiability`); otherwise each
    array takes its own :func:`modular_rank_profile`.

    Parameters
    ----------
    arrays : numpy.ndarray
        Integers (any sign; they are reduced modulo ``p``), shape ``(k, m, n)``;
        rows of zeros pad arrays with fewer rows.
    p : int
        A prime.

    Returns
    -------
    list of RankProfile
        Per array, its rank modulo ``p``, the rows of a non-singular minor of
        that size (in the order the elimination chose them) and its column
        rank profile.

    Examples
    --------
    >>> [r.rank for r in modular_rank_profiles(np.array([[[1, 2], [2, 4]], [[1, 2], [3, 4]], [[0, 7], [0, 14]]]), 7)]
    [1, 2, 0]
    >>> modular_rank_profiles(np.array([[[0, 2, 4], [0, 1, 2], [1, 0, 0]]]), 7)
    [RankProfile(rank=2, rows=[2, 0], columns=[0, 1])]
    """
    k, m, n = np.shape(arrays)
    reduced = p // 2 + 1  # the largest residue _centered leaves, in absolute value
    if p >= _PROFILE_MODULUS or reduced + n * reduced**2 > _PROFILE_EXACT:
        return [modular_rank_profile(array, p) for array in arrays]
    A = (np.asarray(arrays, dtype=np.int64) % p).astype(np.float64)
    _centered(A, p)
    used = np.zeros((k, m), dtype=bool)  # the pivot rows so far: rows are marked, not moved
    stack = np.arange(k)
    pivots, found = np.zeros((n, k), dtype=np.int64), np.zeros((n, k), dtype=bool)
    for j in range(n):
        # only what is read is reduced: column j (the zero test, the multipliers) and the pivot rows; an entry
        # takes at most n updates of at most (p/2 + 1)^2 each before it is read: within 2^52 (checked above)
        column = A[:, :, j]
        _centered(column, p)
        candidate = (column != 0) & ~used
        found[j] = candidate.any(axis=1)
        if not found[j].any():
            continue
        pivots[j] = pivot = candidate.argmax(axis=1)  # row 0 for an array without a pivot: its multipliers are 0
        used[stack, pivot] |= found[j]
        pivot_rows = A[stack, pivot, j:]
        _centered(pivot_rows, p)
        # a few dozen inverses: Python's pow beats a vectorized exponentiation's dozens of passes
        inverses = np.array([pow(int(v) % p, -1, p) if v else 0 for v in (pivot_rows[:, 0] * found[j]).tolist()], dtype=np.float64)
        multipliers = column * inverses[:, None]
        _centered(multipliers, p)
        # the pivot rows (this one and the earlier ones) change too, but they are never read again: no mask
        A[:, :, j:] -= multipliers[:, :, None] * pivot_rows[:, None, :]
    return [RankProfile(int(found[:, a].sum()), pivots[found[:, a], a].tolist(), np.flatnonzero(found[:, a]).tolist())
            for a in range(k)]
