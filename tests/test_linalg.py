"""polyrelu.geometry.linalg against an independent reference: schoolbook Gaussian elimination on Fractions.

The reference (:func:`reference.rref`, in tests/reference.py) is written out there, without
flint, over Q or modulo a prime. Every function of the module is compared
with what the reference says on random small matrices, most of them
rank-deficient (many zero entries and repeated rows), including the basis a
caller reads coordinates off.
"""

from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import kernel, rank, rref

from polyrelu.geometry import linalg, modular

PRIME = 7


# -- helpers ----------------------------------------------------------------------------------------
def times(A, x):
    return [sum(Fraction(a) * b for a, b in zip(row, x)) for row in A]


# -- strategies ------------------------------------------------------------------------------------
entries = st.one_of(
    st.just(0), st.just(0), st.integers(-3, 3), st.fractions(min_value=-3, max_value=3, max_denominator=4)
)


@st.composite
def matrices(draw, max_rows=5, max_cols=5, min_rows=0, cols=None, integer=False):
    ncols = draw(st.integers(1, max_cols)) if cols is None else cols
    value = st.integers(-3, 3) if integer else entries
    rows = draw(st.lists(st.lists(value, min_size=ncols, max_size=ncols), min_size=min_rows, max_size=max_rows))
    if rows and draw(st.booleans()):  # a repeated row or a combination makes rank deficiency common
        a, b = draw(st.sampled_from(rows)), draw(st.sampled_from(rows))
        rows.append([x + 2 * y for x, y in zip(a, b)])
    return rows, ncols


SETTINGS = settings(max_examples=150, deadline=None)


# -- the tests -------------------------------------------------------------------------------------
@SETTINGS
@given(matrices())
def test_rank_and_pivot_columns_match_the_reference(case):
    rows, ncols = case
    pivots, _ = rref(rows, ncols)
    assert linalg.rank(rows) == len(pivots)
    assert linalg.pivot_columns(rows) == pivots


@SETTINGS
@given(matrices(integer=True))
def test_pivot_columns_modulo_a_prime_match_the_reference(case):
    rows, ncols = case
    assert linalg.pivot_columns(rows, modulus=PRIME) == rref(rows, ncols, PRIME)[0]


@SETTINGS
@given(matrices(min_rows=1), st.data())
def test_reduced_echelon_and_solve_match_the_reference(case, data):
    rows, ncols = case
    rhs = data.draw(st.lists(entries, min_size=len(rows), max_size=len(rows)))
    pivots, R = rref([[*row, t] for row, t in zip(rows, rhs)], ncols + 1)
    consistent = not pivots or pivots[-1] != ncols
    solved = linalg.reduced_echelon(rows, rhs)
    x = linalg.solve(rows, rhs)
    if not consistent:
        assert solved is None and x is None and linalg.solution_space(rows, rhs) is None
        return
    assert solved == (pivots, R)
    assert times(rows, x) == [Fraction(t) for t in rhs]
    assert all(x[c] == 0 for c in range(ncols) if c not in pivots)  # the free unknowns are 0
    space = linalg.solution_space(rows, rhs)
    assert space.point == x and space.pivots == tuple(pivots) and space.echelon == tuple(map(tuple, R))
    assert list(space.basis) == kernel(rows, ncols)


@SETTINGS
@given(matrices())
def test_nullspace_is_the_reduced_echelon_basis(case):
    rows, ncols = case
    basis = linalg.nullspace(rows, ncols)
    assert list(basis) == kernel(rows, ncols)
    assert all(not any(times(rows, v)) for v in basis)


@SETTINGS
@given(matrices())
def test_integer_nullspace_is_a_multiple_of_the_echelon_basis_vector_by_vector(case):
    rows, ncols = case
    basis = linalg.integer_nullspace(rows, ncols)
    reference = kernel(rows, ncols)
    assert len(basis) == len(reference)
    for v, u in zip(basis, reference):
        assert all(type(a) is int for a in v)
        f = next(i for i, a in enumerate(u) if a)
        factor = Fraction(v[f]) / u[f]
        assert factor != 0 and all(a == factor * b for a, b in zip(v, u))


@SETTINGS
@given(matrices(min_rows=1))
def test_echelon_basis_spans_the_rows_and_is_canonical(case):
    rows, ncols = case
    basis = linalg.echelon_basis(rows)
    assert list(basis) == [tuple(r) for r in rref(rows, ncols)[1]]
    # another spanning set of the same space: the rows reversed, plus their sum
    other = [*reversed(rows), [sum(Fraction(r[c]) for r in rows) for c in range(ncols)]]
    assert linalg.echelon_basis(other) == basis


@SETTINGS
@given(matrices(), st.data())
def test_in_span_and_span_complement_match_greedy_rank_counts(case, data):
    vectors, n = case
    candidates = data.draw(matrices(cols=n))[0]
    for v in candidates:
        assert linalg.in_span(v, vectors) == (rank([*vectors, v]) == rank(vectors))
    chosen, basis = [], list(vectors)
    for k, v in enumerate(candidates):
        if rank([*basis, v]) > rank(basis):
            chosen.append(k)
            basis.append(v)
    assert linalg.span_complement(vectors, candidates) == chosen


@given(matrices())
def test_unit_columns_are_the_unit_vectors_whose_rank_count_stays(case):
    vectors, n = case
    units = [k for k in range(n) if rank([*vectors, [int(j == k) for j in range(n)]]) == rank(vectors)]
    assert linalg.unit_columns(vectors) == units


@SETTINGS
@given(matrices(integer=True), st.data())
def test_span_complement_modulo_a_prime_matches_greedy_rank_counts(case, data):
    vectors, n = case
    candidates = data.draw(matrices(cols=n, integer=True))[0]
    chosen, basis = [], list(vectors)
    for k, v in enumerate(candidates):
        if rank([*basis, v], PRIME) > rank(basis, PRIME):
            chosen.append(k)
            basis.append(v)
    assert linalg.span_complement(vectors, candidates, modulus=PRIME) == chosen


@SETTINGS
@given(st.integers(1, 4).flatmap(lambda n: matrices(min_rows=n, max_rows=n, cols=n)), st.data())
def test_solve_nonsingular_solves_or_reports_a_singular_matrix(case, data):
    rows, n = case
    rows = rows[:n]
    B = data.draw(st.lists(st.lists(entries, min_size=2, max_size=2), min_size=n, max_size=n))
    X = linalg.solve_nonsingular(rows, B)
    if rank(rows) < n:
        assert X is None
        return
    for j in range(2):
        assert times(rows, [X[i][j] for i in range(n)]) == [Fraction(B[i][j]) for i in range(n)]


@SETTINGS
@given(st.integers(1, 4).flatmap(lambda n: st.tuples(matrices(min_rows=1, cols=n), matrices(min_rows=1, cols=n))))
def test_projection_lands_orthogonal_to_the_span_and_differs_by_a_member(case):
    (basis, n), (vectors, _) = case
    basis = [basis[k] for k in linalg.span_complement([], basis)]  # independent, as required
    if not basis:
        return
    for x, y in zip(vectors, linalg.project_orthogonal_to(vectors, basis)):
        assert all(sum(Fraction(a) * b for a, b in zip(u, y)) == 0 for u in basis)
        assert linalg.in_span([Fraction(a) - b for a, b in zip(x, y)], basis)


@pytest.mark.parametrize("value", [Fraction(3, 5), -4, Fraction(-1, 6), 0])
def test_residue_is_the_value_modulo_the_prime(value):
    r = modular.residue(value, PRIME)
    assert 0 <= r < PRIME and (r * Fraction(value).denominator - Fraction(value).numerator) % PRIME == 0


def test_echelon_pivots_reads_a_modular_echelon_form():
    echelon, r = flint.nmod_mat(2, 4, [0, 3, 1, 2, 0, 6, 2, 1], PRIME).rref()
    assert linalg.echelon_pivots(echelon, r) == rref([[0, 3, 1, 2], [0, 6, 2, 1]], 4, PRIME)[0]


# -- the blocked rank profile modulo a prime ---------------------------------------------------------
@st.composite
def low_rank_arrays(draw):
    """Integer arrays up to 80 × 80 (so that several 32-column blocks are eliminated) of a chosen rank,
    with zero and repeated columns, entries of either sign and up to 10^12 (reduced modulo p first)."""
    seed, m, n = draw(st.integers(0, 2**32 - 1)), draw(st.integers(1, 80)), draw(st.integers(1, 80))
    r = draw(st.integers(0, min(m, n)))
    rng = np.random.default_rng(seed)
    A = rng.integers(-5, 6, (m, r)) @ rng.integers(-5, 6, (r, n)) if r else np.zeros((m, n), dtype=np.int64)
    if draw(st.booleans()):
        A[:, rng.integers(0, n, n // 3)] = 0
    if n > 1 and draw(st.booleans()):
        A[:, rng.integers(1, n)] = A[:, 0]
    if draw(st.booleans()):
        A = A * 10**12 + rng.integers(-1, 2, (m, n)) * 7
    return A


def assert_non_singular_minor(A, profile, p):
    """The profile's rows are distinct rows of ``A`` on which its columns have a non-singular minor modulo ``p``."""
    assert len(set(profile.rows)) == profile.rank and all(0 <= i < A.shape[0] for i in profile.rows)
    if profile.rank:
        minor = np.mod(A[np.ix_(profile.rows, profile.columns)], p)
        assert flint.nmod_mat(minor.tolist(), p).rank() == profile.rank


@settings(max_examples=60, deadline=None)
@given(st.lists(low_rank_arrays(), min_size=1, max_size=5), st.sampled_from([2, 7, 1048573, 4194301, 268435399]))
def test_modular_rank_profiles_side_by_side_are_each_arrays_profile(arrays, p):
    """Arrays of different shapes padded with zero rows and columns into one stack: each array's profile is the
    one :func:`modular_rank_profile` finds alone (rank and columns), its rows a non-singular minor."""
    m, n = max(A.shape[0] for A in arrays), max(A.shape[1] for A in arrays)
    stack = np.zeros((len(arrays), m, n), dtype=object)
    for k, A in enumerate(arrays):
        stack[k, : A.shape[0], : A.shape[1]] = A
    stack = stack % p
    for A, profile in zip(arrays, modular.modular_rank_profiles(stack.astype(np.int64), p)):
        alone = modular.modular_rank_profile(A, p)
        assert (profile.rank, profile.columns) == (alone.rank, alone.columns)
        assert_non_singular_minor(A, profile, p)


def test_modular_rank_profiles_of_many_columns_for_a_large_prime_stay_exact():
    """1,100 columns modulo a prime near 2^22: that many lazy updates of (p/2)^2 would pass 2^53, so the arrays go
    through modular_rank_profile one at a time (which reduces under its own bound): the same profiles."""
    p = 4194301
    rng = np.random.default_rng(3)
    arrays = np.stack([rng.integers(0, 5, (40, 3)) @ rng.integers(0, p, (3, 1100)) for _ in range(2)]) % p
    for A, profile in zip(arrays, modular.modular_rank_profiles(arrays, p)):
        alone = modular.modular_rank_profile(A, p)
        assert (profile.rank, profile.columns) == (alone.rank, alone.columns) == (3, alone.columns)


@settings(max_examples=150, deadline=None)
@given(low_rank_arrays(), st.sampled_from([2, 7, 1048573, 4194301, 268435399]))
def test_modular_rank_profile_is_the_echelon_forms_pivots_with_a_non_singular_minor(A, p):
    profile = modular.modular_rank_profile(A, p)
    pivots, _ = rref(A.tolist(), A.shape[1], p)
    assert profile.rank == len(pivots) and profile.columns == pivots
    # the same residues centred in float64, as the sketch gives them: taken as they are, the same profile
    centred = np.asarray(A % p, dtype=np.int64)
    centred = np.where(centred > p // 2, centred - p, centred).astype(np.float64)
    floated = modular.modular_rank_profile(centred, p)
    assert (floated.rank, floated.columns) == (profile.rank, profile.columns)
    assert_non_singular_minor(A, profile, p)


# -- large arrays: many panels and lazily reduced updates, against flint ---------------------------------
# modular_rank_profile reduces entries modulo p only where it reads them and lets the columns not yet
# eliminated absorb many products first (up to a bound of 2^52); these arrays have more columns than one
# 64-column panel, primes up to the largest the float64 path takes (4194301 < 2^22, where the fewest
# updates fit before a reduction), and entries of the largest magnitude a residue has, +-(p - 1) / 2.
LARGE_PRIMES = [7, 1048573, 4194301]


def flint_rank_profile(A, p):
    """``(rank, pivot columns)`` of an integer array modulo ``p``: flint's reduced row echelon form."""
    echelon, r = flint.nmod_mat(np.mod(A, p).tolist(), p).rref()
    rows = echelon.tolist()
    return r, [next(j for j, x in enumerate(rows[i]) if int(x)) for i in range(r)]


def assert_is_the_rank_profile(A, p):
    profile = modular.modular_rank_profile(A, p)
    assert (profile.rank, profile.columns) == flint_rank_profile(A, p)
    assert_non_singular_minor(A, profile, p)
    return profile


def product_of_rank(rng, m, n, r, p, dependent=()):
    """An m x n array of residues, a product of m x r and r x n: rank r (or less, by chance), with the
    columns ``dependent`` combinations of the columns before them."""
    Y = rng.integers(0, p, (r, n))
    for j in dependent:
        Y[:, j] = (Y[:, :j] @ rng.integers(0, 3, j)) % p
    return (rng.integers(0, p, (m, r)) @ Y) % p  # products of residues below 2^22 sum in int64


@pytest.mark.parametrize("p", LARGE_PRIMES)
@pytest.mark.parametrize(
    "m, n, r, dependent",
    [
        (400, 350, 300, [5, 64, 65, 200]),  # square-ish, rank-deficient: dependent columns inside panels
        (520, 130, 120, [0, 70]),  # tall (column 0 is 0: a dependent first column)
        (130, 520, 125, []),  # wide: the rows run out before the columns
        (700, 330, 320, [100, 329]),  # more than 300 columns: many updates accumulate
    ],
)
def test_modular_rank_profile_of_large_products_matches_flint(m, n, r, dependent, p):
    rng = np.random.default_rng(m * n + p)
    A = product_of_rank(rng, m, n, r, p, dependent)
    profile = assert_is_the_rank_profile(A, p)
    assert not set(dependent) & set(profile.columns)


@pytest.mark.parametrize("p", [1048573, 4194301])
def test_modular_rank_profile_with_entries_of_the_largest_magnitude_matches_flint(p):
    rng = np.random.default_rng(p)
    half = (p - 1) // 2
    signs = rng.choice([-1, 1], (330, 300))
    assert_is_the_rank_profile(half * signs, p)  # full rank, every entry +-(p - 1) / 2
    signs[:, 150:] = signs[:, :150] * -1  # the right half repeats the left one: rank 150
    assert modular.modular_rank_profile(half * signs, p).rank == 150
    assert_is_the_rank_profile(half * signs, p)
    assert modular.modular_rank_profile(np.full((200, 90), half), p) == (1, [0], [0])
    assert modular.modular_rank_profile(np.full((200, 90), -half), p) == (1, [0], [0])


def test_modular_rank_profile_of_a_sparse_array_matches_flint():
    # like the transposed kernel residues functional_dimension gives it: 1 to 3 non-zero entries per row,
    # so that most rows are 0 in a panel and pivots are found after row swaps
    p = 1048573
    rng = np.random.default_rng(3)
    A = np.zeros((1000, 260), dtype=np.int64)
    for i in range(1000):
        A[i, rng.choice(260, rng.integers(1, 4), replace=False)] = rng.integers(1, p, 1)
    A[:, 37] = A[:, 12]  # dependent columns
    A[:, 200] = 0
    assert_is_the_rank_profile(A, p)


def test_modular_rank_profile_reduces_before_sums_of_products_reach_2_to_the_53():
    # [[M, B], [C, D]], h = (p - 1) / 2: M = I plus ones below the diagonal in every eighth column, B = -h
    # except 0 in those columns' rows, C = h. Every row is non-zero in the first column of each group of
    # 8 columns (eliminated together), so no row moves and M's rows are the pivots; the C rows'
    # multipliers are all h and the pivot rows' entries over D all -h: eliminating M adds h^2 per pivot
    # (N minus one in 8 of them) to every entry of D, past 2^53 for p near 2^22. D is such that the Schur
    # complement D - C M^-1 B (M^-1 B is B) is 0 modulo p (rank N), and odd: an unreduced sum past 2^53
    # is not a float64.
    p, N = 4194301, 2405
    h = (p - 1) // 2
    starts = list(range(0, N, 8))
    d = (-(N - len(starts)) * h * h) % p
    assert (N - len(starts)) * h * h > 2**53 and d % 2 == 1
    A = np.zeros((N + 3, N + 3), dtype=np.int64)
    A[:N, :N] = np.eye(N, dtype=np.int64)
    A[:N, N:] = -h
    for c in starts:
        A[c + 1 : N, c] = 1
        A[c, N:] = 0
    A[N:, :N] = h
    A[N:, N:] = d
    profile = modular.modular_rank_profile(A, p)
    assert profile.rank == N and profile.columns == list(range(N))
    assert (
        sorted(profile.rows) == list(range(N))
        or flint.nmod_mat(np.mod(A[np.ix_(profile.rows, profile.columns)], p).tolist(), p).rank() == N
    )
