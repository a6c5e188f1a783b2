"""The kernel half of functional_dimension's certificate: local, stable and paired kernels, sparse solves, fallback."""

import math
from fractions import Fraction

import flint
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyrelu.identifiability._kernel as kernel_module
import polyrelu.identifiability.dimension as dimension
from polyrelu import ReLUNetwork, canonical_complex, functional_dimension
from polyrelu.examples import seeded_gaussian_network
from polyrelu.identifiability._jacobian import (
    integer_jacobian,
    integer_layers,
    jacobian,
    jacobian_columns,
    jacobian_factors,
    parameter_position,
)
from polyrelu.identifiability._kernel import (
    local_kernel,
    paired_kernel,
    sparse_kernel,
    stable_kernel,
)

P = 268435399


def fmpz_rank(J):
    return flint.fmpz_mat(J.shape[0], J.shape[1], J.ravel().tolist()).rank() if J.size else 0


def column_scales(net):
    _, scales = integer_layers(net)
    total = math.prod(scales)
    widths = net.architecture.widths
    return [total // scales[l] for l, (p, n) in enumerate(zip(widths, widths[1:])) for _ in range(n * (p + 1))]


def moves_nothing(J, vector):
    """J · v == 0 exactly, for v given as {column: value}."""
    den = math.lcm(*(Fraction(v).denominator for v in vector.values()))
    dense = np.zeros(J.shape[1], dtype=object)
    for c, v in vector.items():
        dense[c] = int(Fraction(v) * den)
    return not any(J.dot(dense))


# rank 74 of D - H = 89: the whole kernel beyond scaling is local
DEFICIENT = seeded_gaussian_network((2, 8, 8, 1))
# rank 125 of D - H = 131: two kernel vectors are paired ones (neuron 1 of layer 2 with neuron 4, active on every
# region; from the echelon form they had supports of 17 and 108 pivots); a third (support 1 there) is the bias shift
# of neuron 4
MIXED = ReLUNetwork.random((2, 10, 10, 1), seed=0, kind="gaussian")


@pytest.mark.parametrize("net", [DEFICIENT, MIXED, ReLUNetwork.random((2, 6, 6, 6, 1), seed=0, kind="gaussian"),
                                 ReLUNetwork.random((3, 5, 5, 1), seed=3, kind="integer")])
def test_rank_and_kernel_match_a_plain_integer_computation(net):
    K = canonical_complex(net)
    patterns = [r.signs for r in K.regions()]
    J = integer_jacobian(net, patterns)
    fd = functional_dimension(net, complex_=K)
    assert fd.rank == fmpz_rank(J)
    # the returned directions are in parameter coordinates; J's columns carry the scales s: J_true k = J (k / s)
    scales = column_scales(net)
    for direction in fd.kernel:
        assert moves_nothing(J, {c: Fraction(v) / scales[c] for c, v in enumerate(direction) if v})


@settings(max_examples=20, deadline=None, derandomize=True, database=None)
@given(arch=st.sampled_from([(2, 3, 3, 1), (2, 4, 3, 2), (1, 3, 3, 1), (2, 3, 3, 3, 1)]), seed=st.integers(0, 10**6))
def test_local_kernel_vectors_are_exact_kernel_vectors(arch, seed):
    net = ReLUNetwork.random(arch, seed=seed, kind="integer", bound=2)
    patterns = [r.signs for r in canonical_complex(net).regions()]
    layers, _ = integer_layers(net)
    J = jacobian(net, patterns, layers)
    found = local_kernel(net, patterns, jacobian_factors(net, patterns, layers), P)
    for vector in found:
        assert vector and moves_nothing(J, vector)
    # each one lives on one neuron's incoming row and bias, or on one neuron's outgoing weights
    for vector in found:
        assert len(vector) <= max(arch) + 1


def test_local_kernel_finds_the_deficient_networks_lost_parameters():
    patterns = [r.signs for r in canonical_complex(DEFICIENT).regions()]
    layers, _ = integer_layers(DEFICIENT)
    found = local_kernel(DEFICIENT, patterns, jacobian_factors(DEFICIENT, patterns, layers), P)
    J = jacobian(DEFICIENT, patterns, layers)
    dense = [[int(Fraction(v[c])) if c in v else 0 for c in range(J.shape[1])] for v in found]
    assert found and flint.fmpz_mat(dense).rank() > 0


def test_a_stack_kernel_from_too_few_rows_is_refused_by_the_exact_check(monkeypatch):
    """As if the prime were unlucky: the rows chosen modulo p miss some of a stack's rank, so the null space of
    those rows is too large, and the check against every row of that stack must refuse it, while a stack checked
    in the same product whose rows do span it keeps its kernel."""
    rng = np.random.default_rng(5)
    random = rng.integers(-9, 10, (6, 3, 4)).tolist()  # 18 rows of rank 4: no kernel
    random[0][0] = [0, 0, 0, 0]
    spanned = [[random[0][1], random[0][2], random[0][1]]] * 2  # rank 2: a kernel of dimension 2
    blocks = np.array(random + spanned, dtype=object)
    residues = (blocks % P).astype(np.int64)
    full, short = (np.arange(6), [0, 1, 2, 3], None), (np.array([6, 7]), [0, 1, 2, 3], None)
    assert kernel_module._stack_kernels(blocks, residues, [full, short], P)[0] == []
    monkeypatch.setattr(kernel_module, "_spanning_rows", lambda residues, stacks, p: [[1, 2], [0, 1]])  # 2 of 4
    refused, found = kernel_module._stack_kernels(blocks, residues, [full, short], P)
    assert refused == [] and len(found) == 2
    for vector in found:
        assert math.gcd(*vector.values()) == 1
        for row in np.array(spanned, dtype=object).reshape(-1, 4).tolist():
            assert sum(row[c] * v for c, v in vector.items()) == 0
    # on kept columns only: the vectors are zero elsewhere
    monkeypatch.setattr(kernel_module, "_spanning_rows", lambda residues, stacks, p: [[0, 1]])
    (kept,) = kernel_module._stack_kernels(blocks, residues, [(np.array([6, 7]), [0, 1, 2], 2)], P)
    assert len(kept) == 1 and set(kept[0]) <= {0, 1, 2}


def test_spanning_rows_span_every_stack_modulo_p():
    rng = np.random.default_rng(2)
    low = rng.integers(-3, 4, (40, 3, 2)) @ rng.integers(-3, 4, (2, 6))  # blocks of rank at most 2, of 6 columns
    blocks = np.concatenate([low, rng.integers(-3, 4, (10, 3, 6))])
    residues = blocks % P
    stacks = [(np.arange(40), list(range(6)), 2), (np.arange(30, 45), [0, 2, 4, 5], 4), (np.arange(40), [1, 2], None),
              (np.arange(5), list(range(6)), 1)]  # the last one's bound is too low: all its rows decide
    for (chosen, keep, _), rows in zip(stacks, kernel_module._spanning_rows(residues, stacks, P)):
        M = residues[chosen][:, :, keep].reshape(-1, len(keep))
        assert flint.nmod_mat(M[rows].tolist(), P).rank() == len(rows) == flint.nmod_mat(M.tolist(), P).rank()


def test_sparse_kernel_refuses_a_support_that_cannot_hold_the_vector():
    net = DEFICIENT
    patterns = [r.signs for r in canonical_complex(net).regions()]
    layers, _ = integer_layers(net)
    J = jacobian(net, patterns, layers)
    J_mod = (J % P).astype(np.int64)
    factors = jacobian_factors(net, patterns, layers)
    column = next(j for j in range(J.shape[1]) if any(J[:, j]))
    # alone, a non-zero column is no kernel vector: the exact check must say so
    assert sparse_kernel(net.architecture.widths, factors, J_mod, [], [column], P, []) == [None]


def test_fallback_to_all_pivots_and_echelon_only_kernels_give_the_same_certificate(monkeypatch):
    expected = functional_dimension(MIXED)
    before = {net: functional_dimension(net) for net in (DEFICIENT, MIXED)}
    assert not expected.attains_bound
    real = dimension.sparse_kernel
    calls = []

    def first_solve_fails(widths, factors, J_mod, support, columns, p, rows):
        calls.append(len(support))
        solved = real(widths, factors, J_mod, support, columns, p, rows)
        return [None] if len(calls) == 1 else solved

    monkeypatch.setattr(dimension, "sparse_kernel", first_solve_fails)
    monkeypatch.setattr(dimension, "paired_kernel", lambda *args: [])  # its two vectors are then solved
    fallback = functional_dimension(MIXED)
    assert (fallback.rank, fallback.prime, len(fallback.kernel)) == (expected.rank, expected.prime, len(expected.kernel))
    assert len(calls) == 3 and calls[-1] > max(calls[:-1])  # two sparse solves, then one on all the pivots
    monkeypatch.setattr(dimension, "sparse_kernel", real)
    monkeypatch.setattr(dimension, "local_kernel", lambda *args: [])
    monkeypatch.setattr(dimension, "stable_kernel", lambda *args: [])
    for net in (DEFICIENT, MIXED):
        echelon_only, both = functional_dimension(net), before[net]
        assert (echelon_only.rank, echelon_only.prime, len(echelon_only.kernel)) == (both.rank, both.prime, len(both.kernel))


STABLE = ReLUNetwork([[[1, 0], [0, 1], [1, 1]], [[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[1, 1, 0], [0, 1, 1]], [[1, -1]]],
                     [[0, 0, -1], [10, 10, 10], [0, 0], [0]])  # layers 2 and 3 active on every region


# the Gaussian network takes 30 s; STABLE and the property test below cover stable kernel vectors in make test
@pytest.mark.parametrize("net", [STABLE, pytest.param(ReLUNetwork.random((2, 16, 16, 16, 1), seed=0, kind="gaussian"), marks=pytest.mark.slow)])
def test_stable_kernel_vectors_are_exact_kernel_vectors(net):
    # on the seed-0 Gaussian 2→16→16→16→1, neuron 1 of layer 2 is active on every region: its bias shift is
    # the kernel vector the local ones miss (before, it was solved from the echelon form, 337 entries)
    patterns = [r.signs for r in canonical_complex(net).regions()]
    layers, _ = integer_layers(net)
    J = jacobian(net, patterns, layers)
    found = stable_kernel(net, patterns, column_scales(net))
    assert found and all(moves_nothing(J, vector) for vector in found)
    fd = functional_dimension(net)
    assert fd.rank == fmpz_rank(J) and len(fd.kernel) == fd.bound - fd.rank


@settings(max_examples=15, deadline=None)
@given(st.sampled_from([(2, 3, 3, 1), (2, 2, 3, 2), (1, 3, 3, 2, 1)]), st.integers(0, 10**6), st.integers(4, 12))
def test_stable_kernel_vectors_are_kernel_vectors_of_the_reference_jacobian(arch, seed, lift):
    """The proposals are accepted by the identity in stable_kernel's notes, not by a product with J: here J decides.

    Small integer weights, and the biases of every layer after the first raised by ``lift``, so that whole sets
    of neurons are active on every region (shifts, mixings and null vectors of the next layer's columns)."""
    net = ReLUNetwork.random(arch, seed=seed, kind="integer", bound=1)
    layers = [(W, [b + (lift if l else 0) for b in biases]) for l, (W, biases) in enumerate(net.layers)]
    net = ReLUNetwork([W for W, _ in layers], [b for _, b in layers])
    patterns = [r.signs for r in canonical_complex(net).regions()]
    J = integer_jacobian(net, patterns)
    for vector in stable_kernel(net, patterns, column_scales(net)):
        assert moves_nothing(J, vector), vector


def test_stable_kernel_drops_a_proposal_that_fails_the_check(monkeypatch):
    import polyrelu.identifiability._kernel as kernel

    patterns = [r.signs for r in canonical_complex(STABLE).regions()]
    layers, _ = integer_layers(STABLE)
    J = jacobian(STABLE, patterns, layers)
    right = stable_kernel(STABLE, patterns, column_scales(STABLE))
    # (1, 1, 1) is no null vector of layer 3's columns [[1, 1, 0], [0, 1, 1]]: its 4 proposals must be dropped (the
    # output's weights (1, -1) happen to cancel what layer 3 would see, so J alone would take them: the check asks
    # more, that layer 3's pre-activations do not move); the patched null space also gives layer 3's pair none
    monkeypatch.setattr(kernel, "nullspace", lambda rows, n: [(Fraction(1),) * n] if n == 3 else [])
    wrong = stable_kernel(STABLE, patterns, column_scales(STABLE))
    assert all(moves_nothing(J, vector) for vector in wrong)
    # gone: the true null vector's 4 directions and layer 3's 4; none of the wrong ones came
    assert len(wrong) == len(right) - 8


# seed-0 Gaussian 2→32→32→1: rank 922 of D - H = 1121; the 13 kernel vectors beyond the local and stable ones move
# the incoming row of a second-layer neuron k (8, 10 or 16) and, against it, that of neuron 29 or 31, active on
# every region (before, solved from the echelon form: supports of 11 to 551 pivots, over 80 % of the time)
WIDE = ReLUNetwork.random((2, 32, 32, 1), seed=0, kind="gaussian")


@pytest.mark.parametrize("net, expected, rank", [(MIXED, 2, 125), (WIDE, 13, 922)])
def test_paired_kernel_vectors_are_exact_kernel_vectors_and_leave_nothing_to_solve(net, expected, rank, monkeypatch):
    patterns = [r.signs for r in canonical_complex(net).regions()]
    layers, _ = integer_layers(net)
    factors = jacobian_factors(net, patterns, layers)
    found = paired_kernel(net, patterns, factors, P)
    widths = net.architecture.widths
    assert len(found) == expected
    for vector in found:
        # J's columns on the vector's support, in integers, from the factors (all of J is large on WIDE)
        support = sorted(vector)
        assert moves_nothing(jacobian_columns(widths, factors, support), {k: vector[c] for k, c in enumerate(support)})
        # each lives on the incoming rows of two neurons of one layer
        assert len({parameter_position(widths, c)[:2] for c in vector}) == 2

    def no_solve(*args):
        raise AssertionError("a kernel vector was solved from the echelon form")

    monkeypatch.setattr(dimension, "sparse_kernel", no_solve)
    fd = functional_dimension(net)
    # MIXED: the rank of a plain fmpz computation (above); WIDE: the float SVD rank agrees (not computed here)
    assert (fd.rank, len(fd.kernel)) == (rank, fd.bound - rank)


@settings(max_examples=12, deadline=None)
@given(st.sampled_from([(2, 3, 3, 1), (3, 2, 3, 2), (2, 4, 1, 3, 1)]), st.integers(0, 10**6))
def test_jacobian_columns_are_exact_differences_of_the_affine_maps(arch, seed):
    """The Jacobian of ``θ ↦ (c_R, A_R)`` with the pattern held fixed, against an independent oracle.

    The map is affine in each single parameter, so its partial derivative is exactly the change when that
    parameter grows by 1. Column ``j`` of the integer Jacobian is that change times the product of the other
    layers' integer scales. Also: any choice of columns in any order (``jacobian_columns``) is the same,
    exactly and modulo a prime.
    """
    net = ReLUNetwork.random(arch, seed=seed, kind="gaussian")
    patterns = [r.signs for r in canonical_complex(net).regions()]
    layers, scales = integer_layers(net)
    J = integer_jacobian(net, patterns)
    theta = list(net.parameters())
    widths = net.architecture.widths
    column_scale = [math.prod(scales) // scales[l] for l, (p, n) in enumerate(zip(widths, widths[1:])) for _ in range(n * (p + 1))]

    def flat(network, signs):
        A, c = network.affine_map(signs)
        return [v for o in range(len(c)) for v in (c[o], *A[o])]

    for j in range(len(theta)):
        moved = ReLUNetwork.from_parameters(widths, theta[:j] + [theta[j] + 1] + theta[j + 1 :])
        expected = [(b - a) * column_scale[j] for s in patterns for a, b in zip(flat(net, s), flat(moved, s))]
        assert J[:, j].tolist() == expected, f"column {j}"
    columns = np.random.default_rng(seed).permutation(len(theta))[: len(theta) // 2 + 1].tolist()
    assert (jacobian_columns(widths, jacobian_factors(net, patterns, layers), columns) == J[:, columns]).all()
    reduced = [(L % P).astype(np.int64) for L in layers]
    modular = jacobian_columns(widths, jacobian_factors(net, patterns, reduced, modulus=P), columns) % P
    assert (modular == J[:, columns] % P).all()


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([3, 20, 61, 70]), st.sampled_from([1, 30, 500]))
def test_moves_is_the_exact_zero_pattern_of_the_product(seed, row_bits, vector_bits):
    """Rows of up to 61 bits go through the primes (more primes for larger vectors), larger ones through flint; half
    the products vanish by construction (vectors in the kernel of the first rows), the others must be told apart
    from 0 exactly, even when they are multiples of the primes' product's small factors."""
    rng = np.random.default_rng(seed)
    g = int(rng.integers(2, 12))
    bound = 2 ** (row_bits - 1)
    rows = np.array([[int(rng.integers(-(2**62), 2**62)) % (2 * bound) - bound for _ in range(g)] for _ in range(9)],
                    dtype=object)
    basis, nullity = flint.fmpz_mat(rows[:3].tolist()).nullspace()
    scale = 2 ** max(vector_bits - 20, 0) + 1
    vectors = [[int(basis[a, k]) * scale for a in range(g)] for k in range(nullity)]
    vectors += [[int(rng.integers(-(2**20), 2**20)) * scale + 1 for _ in range(g)] for _ in range(3)]
    # a product divisible by one of the primes: still not zero
    q = kernel_module._check_primes()[0]
    rows[8] = [q] + [0] * (g - 1)
    expected = np.array((flint.fmpz_mat(rows.tolist()) * flint.fmpz_mat([list(c) for c in zip(*vectors)])).tolist(),
                        dtype=object) != 0
    assert (kernel_module._moves(rows, vectors) == expected).all()
