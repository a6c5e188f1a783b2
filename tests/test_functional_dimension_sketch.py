"""functional_dimension's kernel-first certificate: the sparse sketch, the kernel pivots, the batched block screen."""

import math
from fractions import Fraction

import numpy as np
import pytest
import reference
from hypothesis import given, settings
from hypothesis import strategies as st

import polyrelu.identifiability.dimension as dimension
from polyrelu import ReLUNetwork, canonical_complex, functional_dimension
from polyrelu.identifiability._jacobian import (
    distinct_rows,
    integer_jacobian,
    integer_layers,
    jacobian_columns,
    jacobian_factors,
    sparse_compressed_columns,
)
from polyrelu.identifiability._kernel import _screened_ranks

P = 1048573


def reference_rank_of(net):
    patterns = [r.signs for r in canonical_complex(net).regions()]
    J = integer_jacobian(net, patterns)
    return reference.rank(J.tolist()) if J.size else 0, J


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(arch=st.sampled_from([(2, 3, 3, 1), (1, 3, 3, 1), (2, 4, 2, 2), (2, 2, 2, 2, 1)]), seed=st.integers(0, 10**6),
       bound=st.sampled_from([1, 2]))
def test_rank_is_the_reference_rank_and_the_kernel_moves_nothing(arch, seed, bound):
    # entries in -1..1 give dead neurons, neurons active everywhere and zero weights: rank-deficient networks
    net = ReLUNetwork.random(arch, seed=seed, kind="integer", bound=bound)
    expected, J = reference_rank_of(net)
    fd = functional_dimension(net)
    assert fd.rank == expected
    _, scales = integer_layers(net)
    total, widths = math.prod(scales), arch
    column_scale = [total // scales[l] for l, (p, n) in enumerate(zip(widths, widths[1:])) for _ in range(n * (p + 1))]
    for direction in fd.kernel:
        in_J = [Fraction(v) / c for v, c in zip(direction, column_scale)]
        assert not any(sum(int(a) * v for a, v in zip(row, in_J) if v) for row in J.tolist())
    # the directions with the scaling ones: independent, D - rank of them when the scaling ones are
    scaling = dimension.scaling_directions(net)
    if reference.rank(scaling) == len(scaling):
        assert reference.rank([*scaling, *fd.kernel]) == len(scaling) + len(fd.kernel) == fd.num_parameters - fd.rank


@pytest.mark.parametrize("arch, seed", [((2, 8, 8, 1), 0), ((2, 10, 10, 1), 0), ((3, 5, 5, 1), 3)])
def test_an_unlucky_lower_bound_falls_back_to_the_echelon_form_with_the_same_result(arch, seed, monkeypatch):
    net = ReLUNetwork.random(arch, seed=seed, kind="gaussian")
    expected = functional_dimension(net)
    # the sparse sketch always short: the dense sketch's echelon form decides, and nothing is left to solve
    monkeypatch.setattr(dimension, "_independent_columns", lambda *args: False)
    assert functional_dimension(net) == expected


@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(arch=st.sampled_from([(2, 3, 3, 1), (3, 4, 2, 2), (1, 5, 3, 3), (2, 3, 2, 3, 1)]), seed=st.integers(0, 10**6),
       fraction=st.floats(0.1, 1.0), extra=st.integers(1, 12))
def test_the_sketch_from_the_factors_is_the_sketch_of_the_jacobians_columns(arch, seed, fraction, extra):
    """The sketch of the documented deals (the reference forms J's columns and adds its rows one by one), a true
    image of the columns' rows."""
    net = ReLUNetwork.random(arch, seed=seed, kind="gaussian")
    patterns = [r.signs for r in canonical_complex(net).regions()]
    layers, _ = integer_layers(net)
    factors = jacobian_factors(net, patterns, [(L % P).astype(np.int64) for L in layers], modulus=P)
    D = net.architecture.num_parameters
    rng = np.random.default_rng(seed)
    columns = rng.permutation(D)[: max(1, int(fraction * D))].tolist()  # any subset, in any order
    N = len(patterns) * arch[-1] * (arch[0] + 1)
    rows = max(1, min(N - 1, len(columns) + extra))
    J = jacobian_columns(arch, factors, columns) % P
    S = sparse_compressed_columns(arch, factors, columns, P, rows, seed=seed)
    assert S.shape == (rows, len(columns)) and (S == np.rint(S)).all() and np.abs(S).max(initial=0) <= P // 2 + 1
    S = S.astype(np.int64) % P
    assert (S == reference.sparse_sketch(J, P, rows, seed=seed)).all()
    # every combination lies in the columns' row space modulo p: stacking them adds nothing
    true_rank = reference.rank(J.tolist(), p=P)
    assert reference.rank([*J.tolist(), *S.tolist()], p=P) == true_rank >= reference.rank(S.tolist(), p=P)


def test_the_sparse_sketch_refuses_a_prime_its_float_sums_cannot_hold():
    net = ReLUNetwork.random((2, 3, 1), seed=0, kind="gaussian")
    patterns = [r.signs for r in canonical_complex(net).regions()]
    layers, _ = integer_layers(net)
    q = 268435399
    factors = jacobian_factors(net, patterns, [(L % q).astype(np.int64) for L in layers], modulus=q)
    with pytest.raises(ValueError, match="below 2\\^20"):
        sparse_compressed_columns((2, 3, 1), factors, [0, 1], q, 2)


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(count=st.integers(1, 12), h=st.integers(1, 3), g=st.integers(1, 6), members=st.integers(1, 5),
       seed=st.integers(0, 10**6))
def test_the_batched_block_screen_bounds_each_stacks_rank_from_below(count, h, g, members, seed):
    rng = np.random.default_rng(seed)
    # low-rank blocks, so that many stacks fall short of full rank
    residues = (rng.integers(0, 5, (count, h, 2)) @ rng.integers(0, 5, (2, g))) % P
    chosen = [np.flatnonzero(rng.random(count) < 0.5) for _ in range(members)]
    ranks = _screened_ranks(residues, chosen, P)
    for stack_blocks, rank in zip(chosen, ranks):
        rows = residues[stack_blocks].reshape(-1, g).tolist()
        true_rank = reference.rank(rows, p=P) if rows else 0
        assert rank <= true_rank  # a lower bound, always
        assert rank == true_rank  # and with these seeds the bound is attained
    assert _screened_ranks(residues, chosen, 268435399) == [None] * members  # too large a prime: no screen


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(vectors=st.integers(1, 8), D=st.integers(1, 10), seed=st.integers(0, 10**6))
def test_kernel_pivots_choose_greedily_and_give_a_non_singular_minor(vectors, D, seed):
    rng = np.random.default_rng(seed)
    residues = rng.integers(0, 3, (vectors, D)) * (rng.random((vectors, D)) < 0.5)
    if vectors > 1:
        residues[-1] = residues[0]  # a repeated row is never chosen twice
    chosen, pivots = dimension._kernel_pivots(residues, P)
    rows = residues.tolist()
    # greedy: row k is chosen exactly when it is not in the span of the rows before it
    expected = [k for k in range(vectors) if reference.rank(rows[: k + 1], p=P) > reference.rank(rows[:k], p=P)]
    assert chosen == expected
    assert len(pivots) == len(chosen)
    minor = [[rows[k][j] for j in sorted(pivots)] for k in chosen]
    assert reference.rank(minor, p=P) == len(chosen)


@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(arch=st.sampled_from([(2, 3, 3, 1), (1, 3, 3, 2), (2, 2, 3, 2, 1)]), seed=st.integers(0, 10**6))
def test_columns_certified_by_the_patterns_alone_are_zero_columns(arch, seed):
    # entries in -1..1: dead and rarely active neurons, so that many columns are certified
    net = ReLUNetwork.random(arch, seed=seed, kind="integer", bound=1)
    patterns = [r.signs for r in canonical_complex(net).regions()]
    if not patterns:
        return
    J = integer_jacobian(net, patterns)
    certified = dimension._never_active_columns(arch, patterns, range(J.shape[1]))
    assert all(not J[:, c].any() for c in certified)
    # and it is not vacuous: a column whose masks never meet is found (the first layer's bias of a dead neuron)
    signs = np.array(patterns).reshape(len(patterns), -1) > 0
    dead = [i for i in range(arch[1]) if not signs[:, i].any()]
    if dead and len(arch) > 2:
        bias_of_dead = arch[0] * arch[1] + dead[0]
        assert bias_of_dead in certified


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 40), st.integers(1, 80), st.integers(0, 5))
def test_distinct_rows_of_patterns_are_the_first_of_each_distinct_row_in_sorted_order(seed, rows, columns, copies):
    """Packed bits against numpy's unique of rows: the same first occurrences, in the same (lexicographic) order."""
    rng = np.random.default_rng(seed)
    keys = rng.random((rows, columns)) < rng.random()
    keys = np.concatenate([keys] + [keys[rng.permutation(rows)[: rows // 2]] for _ in range(copies)])
    chosen, owner = distinct_rows(keys)
    _, first, inverse = np.unique(keys.astype(np.int8), axis=0, return_index=True, return_inverse=True)
    assert chosen.tolist() == first.tolist() and owner.tolist() == inverse.reshape(-1).tolist()
    assert (keys[chosen][owner] == keys).all()


@pytest.mark.parametrize("rows", [1, 2, 3])
def test_a_sketch_combining_more_rows_than_float64_sums_hold_is_still_exact(rows):
    """Factors whose residues are all near p: every product is near 2^40, and a combination of 6,000 or more rows sums
    past 2^53 unless it is reduced on the way (before, most entries came out wrong)."""
    widths, R = (2, 3, 2), 3000
    rng = np.random.default_rng(1)

    def near_p(shape):
        return rng.integers(P - 2**10, P, shape)

    factors = ([near_p((R, 3, 4)), near_p((R, 3, 3))], [near_p((R, 3, 3)), near_p((R, 4, 3))])
    columns = list(range(3 * 3 + 2 * 4))
    J = jacobian_columns(widths, factors, columns) % P
    S = sparse_compressed_columns(widths, factors, columns, P, rows)
    assert (S.astype(np.int64) % P == reference.sparse_sketch(J, P, rows, seed=0)).all()


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([(2, 3, 3, 1), (3, 2, 3, 2), (2, 4, 1, 3, 1), (2, 3, 2, 2, 2)]), st.integers(0, 10**6),
       st.sampled_from([None, P]))
def test_factors_at_some_regions_are_the_whole_factors_there(arch, seed, modulus):
    """``at`` computes a map at some regions alone (its own distinct patterns and masks there): the same entries
    as the whole map, exact and modulo a prime, before and after the whole map is known."""
    net = ReLUNetwork.random(arch, seed=seed, kind="gaussian")
    patterns = [r.signs for r in canonical_complex(net).regions()]
    layers, _ = integer_layers(net)
    if modulus:
        layers = [(L % modulus).astype(np.int64) for L in layers]
    regions = np.random.default_rng(seed).permutation(len(patterns))[: max(1, len(patterns) // 3)]
    alone = jacobian_factors(net, patterns, layers, modulus)
    whole = jacobian_factors(net, patterns, layers, modulus)
    for l in range(len(arch) - 1):
        for part, full in zip(alone, whole):
            assert (part.at(l, regions) == full[l][regions]).all()
            assert (full.at(l, regions) == full[l][regions]).all()
