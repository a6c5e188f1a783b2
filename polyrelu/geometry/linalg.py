"""Exact linear algebra over Q (and modulo a prime), in one place.

Every exact rank, echelon form, null space, linear solve and span test in
polyrelu is computed here: with python-flint's ``fmpq_mat``, ``fmpz_mat`` and
``nmod_mat`` inside, and rows of ints or :class:`~fractions.Fraction` at the
interface. Vectors and matrix rows are plain sequences; results are tuples
(or lists, where a caller fills them in) of Fractions or ints.

Which basis a function returns is part of its contract, because callers
read coordinates off it: :func:`nullspace` gives the reduced echelon basis
(one vector per free column), :func:`integer_nullspace` the fraction-free
integer basis of FLINT, :func:`echelon_basis` the non-zero rows of the
reduced row echelon form.

Some functions also work modulo a prime ``p`` (``modulus=p``),
:func:`modular_echelon` echelons a numpy array of residues modulo ``p`` (in
flint), :func:`modular_rank_profile` finds its rank and a non-singular minor
without leaving numpy (large arrays cost more to convert to flint than to
eliminate in float64), :func:`modular_rank_profiles` those of many small arrays
side by side, and :func:`residue` reduces a rational modulo ``p``: independence modulo ``p``
implies independence over Q, which is how a rank is certified cheaply
(:mod:`polyrelu.identifiability`).

These are internal helpers for polyrelu's own modules: arguments are not
checked beyond what the computation needs.
"""

import math
from fractions import Fraction
from typing import Any, NamedTuple, Optional, Sequence

import flint
import numpy as np

from ..parallel import one_blas_thread

__all__ = [
    "fmpq_matrix",
    "fraction_rows",
    "rank",
    "echelon_pivots",
    "modular_echelon",
    "RankProfile",
    "modular_rank_profile",
    "modular_rank_profiles",
    "reduced_echelon",
    "SolutionSpace",
    "solution_space",
    "solve",
    "solve_nonsingular",
    "nullspace",
    "integer_nullspace",
    "echelon_basis",
    "pivot_columns",
    "in_span",
    "span_complement",
    "project_orthogonal_to",
    "residue",
]

Rows = Sequence[Sequence]


def fmpq_matrix(rows: Rows) -> flint.fmpq_mat:
    """Rows of rationals (ints, Fractions) as a flint ``fmpq_mat``, exactly.

    Examples
    --------
    >>> fraction_rows(fmpq_matrix([[1, Fraction(1, 2)]]) * fmpq_matrix([[2], [4]]))
    [[Fraction(4, 1)]]
    """

    def q(v):
        if type(v) is int:
            return v
        v = Fraction(v)
        return flint.fmpq(v.numerator, v.denominator)

    return flint.fmpq_mat([[q(v) for v in row] for row in rows])


def fraction_rows(matrix: flint.fmpq_mat) -> list:
    """A flint ``fmpq_mat`` as a list of rows of :class:`~fractions.Fraction`.

    Examples
    --------
    >>> fraction_rows(flint.fmpq_mat([[1, flint.fmpq(-2, 3)]]))
    [[Fraction(1, 1), Fraction(-2, 3)]]
    """
    return [[Fraction(int(v.p), int(v.q)) for v in row] for row in matrix.tolist()]


def _integer_matrix(rows):
    """``rows`` as an ``fmpz_mat`` if every entry is an int, else None."""
    if all(type(v) is int for row in rows for v in row):
        return flint.fmpz_mat([list(row) for row in rows])
    return None


def rank(rows: Rows) -> int:
    """The rank over Q of a matrix given by its rows.

    Examples
    --------
    >>> rank([(1, 2, 3), (2, 4, 6)]), rank([(1, Fraction(1, 2)), (0, 1)]), rank([])
    (1, 2, 0)
    """
    if not rows or not len(rows[0]):
        return 0
    integral = _integer_matrix(rows)
    return (integral if integral is not None else fmpq_matrix(rows)).rank()


def echelon_pivots(echelon: flint.fmpq_mat, rank: int) -> list:
    """The pivot column of each of the first ``rank`` rows of a flint matrix in reduced row echelon form.

    Works for any flint matrix (``fmpq_mat``, ``nmod_mat``): pivots increase
    along the rows, so one scan reads only the entries up to each pivot.

    Examples
    --------
    >>> echelon, r = flint.fmpq_mat([[0, 2, 4], [0, 1, 3]]).rref()
    >>> echelon_pivots(echelon, r)
    [1, 2]
    """
    pivots, j = [], 0
    for i in range(rank):
        while not echelon[i, j]:
            j += 1
        pivots.append(j)
        j += 1
    return pivots


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


def reduced_echelon(rows: Rows, rhs: Sequence) -> Optional[tuple]:
    """The reduced row echelon form of ``[rows | rhs]`` over Q: ``(pivots, table)``, or None if inconsistent.

    Parameters
    ----------
    rows : sequence of sequences of int or Fraction
        The matrix ``A`` (``m`` rows of ``n`` entries).
    rhs : sequence of int or Fraction
        The right-hand side ``b`` (``m`` entries).

    Returns
    -------
    (pivots, table) or None
        ``table`` holds the non-zero rows of the echelon form of ``[A | b]``
        as lists of :class:`~fractions.Fraction`; ``pivots[r]`` is the column
        of row ``r``'s leading one. A solution sets the free unknowns and reads
        ``x[pivots[r]] = table[r][-1] - Σ_free table[r][j] x[j]``. None when
        ``A x = b`` has no solution.

    See also
    --------
    solution_space : the solutions themselves.

    Examples
    --------
    >>> pivots, table = reduced_echelon([[1, 1], [1, -1]], [3, 1])
    >>> pivots, [row[-1] for row in table]
    ([0, 1], [Fraction(2, 1), Fraction(1, 1)])
    >>> reduced_echelon([[1, 1], [2, 2]], [1, 3]) is None
    True
    """
    if not rows:
        return [], []
    n = len(rows[0])
    echelon, r = fmpq_matrix([[*row, t] for row, t in zip(rows, rhs)]).rref()
    pivots = echelon_pivots(echelon, r)
    if pivots and pivots[-1] == n:
        return None
    return pivots, fraction_rows(echelon)[:r]


class SolutionSpace(NamedTuple):
    """The solutions ``{x : A x = b}`` of a consistent linear system over Q, read off one echelon form.

    Attributes
    ----------
    point : tuple of Fraction
        The solution whose free unknowns (the non-pivot columns) are 0.
    basis : tuple of tuple of Fraction
        The reduced echelon basis of the null space of ``A``: for each free
        column ``f`` in increasing order, ``e_f - Σ_r table[r][f] e_{pivots[r]}``.
    pivots : tuple of int
        The pivot column of each row of ``echelon``.
    echelon : tuple of tuple of Fraction
        The non-zero rows of the reduced row echelon form of ``[A | b]``.
    """

    point: tuple
    basis: tuple
    pivots: tuple
    echelon: tuple


def solution_space(rows: Rows, rhs: Sequence, ncols: Optional[int] = None) -> Optional[SolutionSpace]:
    """All solutions of ``rows · x = rhs`` over Q, or None if there are none.

    Parameters
    ----------
    rows : sequence of sequences of int or Fraction
    rhs : sequence of int or Fraction
    ncols : int, optional
        The number of unknowns; needed only when ``rows`` is empty.

    Returns
    -------
    SolutionSpace or None

    Examples
    --------
    >>> space = solution_space([[1, 1, 0]], [2])                # x + y = 2 in Q^3
    >>> space.point, space.pivots
    ((Fraction(2, 1), Fraction(0, 1), Fraction(0, 1)), (0,))
    >>> [tuple(map(int, v)) for v in space.basis]
    [(-1, 1, 0), (0, 0, 1)]
    >>> solution_space([[1, 1], [1, 1]], [0, 1]) is None
    True
    """
    n = len(rows[0]) if rows else (ncols or 0)
    solved = reduced_echelon(rows, rhs)
    if solved is None:
        return None
    pivots, table = solved
    pivot_set = set(pivots)
    point = [Fraction(0)] * n
    for row, p in zip(table, pivots):
        point[p] = row[n]
    basis = []
    for f in range(n):
        if f in pivot_set:
            continue
        vec = [Fraction(int(c == f)) for c in range(n)]
        for row, p in zip(table, pivots):
            vec[p] = -row[f]
        basis.append(tuple(vec))
    return SolutionSpace(tuple(point), tuple(basis), tuple(pivots), tuple(map(tuple, table)))


def solve(rows: Rows, rhs: Sequence, ncols: Optional[int] = None) -> Optional[tuple]:
    """One solution of ``rows · x = rhs`` over Q (its free unknowns 0), or None if there is none.

    Examples
    --------
    >>> solve([[1, 1], [1, -1]], [3, 1])
    (Fraction(2, 1), Fraction(1, 1))
    >>> solve([[1, 2, 0]], [1])
    (Fraction(1, 1), Fraction(0, 1), Fraction(0, 1))
    """
    space = solution_space(rows, rhs, ncols)
    return None if space is None else space.point


def solve_nonsingular(rows: Rows, rhs: Rows) -> Optional[list]:
    """The unique solution ``X`` of ``A X = B`` for a square ``A``, or None when ``A`` is singular.

    Parameters
    ----------
    rows : sequence of sequences of int or Fraction
        The square matrix ``A``.
    rhs : sequence of sequences of int or Fraction
        The matrix ``B``, one row per row of ``A`` (a single column for one
        right-hand side).

    Returns
    -------
    list of list of Fraction or None
        The rows of ``X = A^{-1} B``. All-integer input is solved fraction-free
        (``fmpz_mat``).

    Examples
    --------
    >>> solve_nonsingular([[2, 0], [0, 4]], [[1], [1]])
    [[Fraction(1, 2)], [Fraction(1, 4)]]
    >>> solve_nonsingular([[1, 2], [2, 4]], [[1, 0], [0, 1]]) is None
    True
    """
    A, B = _integer_matrix(rows), _integer_matrix(rhs)
    if A is None or B is None:
        A, B = fmpq_matrix(rows), fmpq_matrix(rhs)
    try:
        return fraction_rows(A.solve(B))
    except ZeroDivisionError:  # flint's answer for a singular matrix
        return None


def nullspace(rows: Rows, ncols: int) -> tuple:
    """The reduced echelon basis of ``{x ∈ Q^ncols : rows · x = 0}``.

    One vector per free (non-pivot) column ``f`` of the reduced row echelon
    form, in increasing order: ``e_f - Σ_r table[r][f] e_{pivots[r]}``.

    Examples
    --------
    >>> [tuple(map(str, v)) for v in nullspace([[2, 1, 0]], 3)]
    [('-1/2', '1', '0'), ('0', '0', '1')]
    >>> nullspace([], 2)
    ((Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1)))
    """
    space = solution_space(rows, [0] * len(rows), ncols)
    assert space is not None  # a homogeneous system always has a solution
    return space.basis


def integer_nullspace(rows: Rows, ncols: int) -> tuple:
    """An integer basis of ``{x ∈ Q^ncols : rows · x = 0}``: FLINT's fraction-free one.

    Each row is first scaled to integers by the least common multiple of its
    denominators. Vector ``j`` is a non-zero integer multiple of
    ``nullspace(rows, ncols)[j]`` (the multiple may be negative, and the
    vector need not be primitive).

    Examples
    --------
    >>> integer_nullspace([[2, 1, 0]], 3)
    ((1, -2, 0), (0, 0, -2))
    >>> integer_nullspace([[Fraction(1, 2), Fraction(1, 3)]], 2)
    ((2, -3),)
    """
    if not rows:
        return tuple(tuple(int(i == j) for j in range(ncols)) for i in range(ncols))
    ints = []
    for row in rows:
        if all(type(v) is int for v in row):
            ints.append(list(row))
        else:
            den = math.lcm(*(Fraction(v).denominator for v in row))
            ints.append([int(Fraction(v) * den) for v in row])
    kernel, nullity = flint.fmpz_mat(ints).nullspace()
    return tuple(tuple(int(kernel[i, j]) for i in range(ncols)) for j in range(nullity))


def echelon_basis(vectors: Rows) -> tuple:
    """The basis of the span of ``vectors`` in reduced row echelon form (the same for every spanning set).

    Examples
    --------
    >>> echelon_basis([(1, 1, 0), (1, -1, 0)]) == echelon_basis([(0, 2, 0), (3, 0, 0), (1, 1, 0)])
    True
    >>> echelon_basis([(2, 4, 0)])
    ((Fraction(1, 1), Fraction(2, 1), Fraction(0, 1)),)
    """
    if not vectors:
        return ()
    echelon, r = fmpq_matrix(vectors).rref()
    return tuple(tuple(row) for row in fraction_rows(echelon)[:r])


def pivot_columns(rows: Rows, *, modulus: Optional[int] = None) -> list:
    """Indices of the earliest maximal set of linearly independent columns: the pivots of the echelon form.

    Column ``j`` is a pivot exactly when it is not a combination of the
    columns before it.

    Parameters
    ----------
    rows : sequence of sequences of int or Fraction
    modulus : int, optional
        A prime ``p``: decide independence over ``Z/p`` instead of Q (the
        entries must then be ints). Columns independent modulo ``p`` are
        independent over Q.

    Examples
    --------
    >>> pivot_columns([(1, 2, 0, 1), (0, 0, 1, 1)])
    [0, 2]
    >>> pivot_columns([(1, 3), (1, 1)]), pivot_columns([(1, 3), (1, 1)], modulus=2)
    ([0, 1], [0])
    """
    if not rows or not len(rows[0]):
        return []
    matrix: Any
    if modulus is None:
        matrix = fmpq_matrix(rows)
    else:
        matrix = flint.nmod_mat(len(rows), len(rows[0]), [v for row in rows for v in row], modulus)
    echelon, r = matrix.rref()
    return echelon_pivots(echelon, r)


def in_span(vector: Sequence, vectors: Rows) -> bool:
    """Whether ``vector`` is a linear combination of ``vectors`` (over Q).

    Examples
    --------
    >>> in_span((1, 1, 0), [(1, 0, 0), (0, 1, 0)]), in_span((0, 0, 1), [(1, 0, 0)]), in_span((0, 0), [])
    (True, False, True)
    """
    return rank([*vectors, vector]) == rank(vectors)


def span_complement(vectors: Rows, candidates: Rows, *, modulus: Optional[int] = None) -> list:
    """Indices of ``candidates`` that extend ``vectors`` to a basis of the span of both, chosen greedily in order.

    The chosen candidates span a complement of ``span(vectors)`` in
    ``span(vectors ∪ candidates)``: candidate ``k`` is chosen exactly when it
    is not in the span of ``vectors`` and the candidates before it.

    Parameters
    ----------
    vectors, candidates : sequences of vectors of one length
    modulus : int, optional
        A prime ``p``: decide independence over ``Z/p`` (integer entries), as
        in :func:`pivot_columns`.

    Examples
    --------
    >>> span_complement([(1, 0, 0)], [(2, 0, 0), (1, 1, 0), (0, 1, 0), (0, 0, 1)])
    [1, 3]
    """
    if not candidates:
        return []
    columns = [*vectors, *candidates]
    pivots = pivot_columns([[v[i] for v in columns] for i in range(len(columns[0]))], modulus=modulus)
    return [k - len(vectors) for k in pivots if k >= len(vectors)]


def project_orthogonal_to(vectors: Rows, basis: Rows) -> list:
    """The orthogonal projections of ``vectors`` onto the orthogonal complement of ``span(basis)``.

    ``basis`` must be linearly independent.

    Examples
    --------
    >>> project_orthogonal_to([(1, 2)], [(1, 1)])
    [(Fraction(-1, 2), Fraction(1, 2))]
    """
    L = fmpq_matrix(basis).transpose()
    P = L * (L.transpose() * L).inv() * L.transpose()
    projected = []
    for x in vectors:
        column = fmpq_matrix([[v] for v in x])
        projected.append(tuple(row[0] for row in fraction_rows(column - P * column)))
    return projected


def residue(value: int | Fraction, modulus: int) -> int:
    """A rational number modulo a prime, in ``0 .. modulus - 1`` (its denominator must be prime to it).

    Examples
    --------
    >>> residue(Fraction(1, 2), 7), residue(-3, 7)
    (4, 4)
    """
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
