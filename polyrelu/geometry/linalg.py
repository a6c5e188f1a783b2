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

Some functions also work modulo a prime ``p`` (``modulus=p``): independence
modulo ``p`` implies independence over Q. Elimination of numpy arrays of
residues modulo a prime lives in :mod:`polyrelu.geometry.modular`.

These are internal helpers for polyrelu's own modules: arguments are not
checked beyond what the computation needs.
"""

import math
from fractions import Fraction
from typing import Any, NamedTuple, Optional, Sequence

import flint

__all__ = [
    "fmpq_matrix",
    "fraction_rows",
    "rank",
    "echelon_pivots",
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
    "unit_columns",
    "span_complement",
    "project_orthogonal_to",
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
        kind = type(v)
        if kind is int:
            return v
        if kind is not Fraction:  # Fraction(Fraction) copies: most entries are Fractions already
            v = Fraction(v)
        return flint.fmpq(v.numerator, v.denominator)

    return flint.fmpq_mat([[q(v) for v in row] for row in rows])


def fraction_rows(matrix: flint.fmpq_mat, count: Optional[int] = None) -> list:
    """A flint ``fmpq_mat`` as a list of rows of :class:`~fractions.Fraction` (its first ``count`` rows if given).

    Examples
    --------
    >>> fraction_rows(flint.fmpq_mat([[1, flint.fmpq(-2, 3)]]))
    [[Fraction(1, 1), Fraction(-2, 3)]]
    """
    rows = matrix.tolist() if count is None else [[matrix[i, j] for j in range(matrix.ncols())] for i in range(count)]
    return [[Fraction(int(v.p), int(v.q)) for v in row] for row in rows]


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
    return pivots, fraction_rows(echelon, r)


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
            # numerator and denominator read directly: no Fraction built per entry (this runs on every traced piece)
            row = [v if isinstance(v, (int, Fraction)) else Fraction(v) for v in row]
            den = math.lcm(*(v.denominator for v in row))
            ints.append([v.numerator * (den // v.denominator) for v in row])
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
    return tuple(tuple(row) for row in fraction_rows(echelon, r))


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


def unit_columns(vectors: Rows) -> list:
    """Indices ``k`` whose unit vector ``e_k`` lies in the span of ``vectors`` (over Q), from one echelon form.

    A combination of the reduced echelon rows equal to ``e_k`` has the
    coefficients of ``e_k`` on the pivot columns, so it is the row with pivot
    ``k`` alone: ``e_k`` is in the span exactly when that row is ``e_k``.

    Examples
    --------
    >>> unit_columns([(1, 1, 0), (0, 0, 1)]), unit_columns([(1, 0, 0), (1, 1, 0)]), unit_columns([])
    ([2], [0, 1], [])
    """
    return sorted(next(k for k, v in enumerate(row) if v) for row in echelon_basis(vectors) if sum(1 for v in row if v) == 1)


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
