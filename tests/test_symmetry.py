"""Tests of polyrelu.symmetry: scalings, permutations, canonical forms, trivial equivalence.

The function is checked with the naive ``Fraction`` forward pass of ``tests/reference.py``; the
actions are checked entry by entry against their definition (docs/design.md §1).
"""

import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import forward, raw_networks

from polyrelu import (
    InvalidNumberError,
    ReLUNetwork,
    ShapeError,
    SymmetryError,
    canonical_form,
    equivalent,
    permute,
    scale,
)
from polyrelu.geometry import Polyhedron
from polyrelu.symmetry import _where_nonzero

SETTINGS = settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
F = Fraction


small_ints = st.integers(-3, 3)
rationals = st.fractions(min_value=-4, max_value=4, max_denominator=5)
sparse = st.sampled_from([0, 0, 0, 0, 1, -1, 2, -3])  # many zeros: dead neurons, twins
positive = st.fractions(min_value=F(1, 9), max_value=20, max_denominator=9)


def networks(values=st.one_of(small_ints, rationals), min_depth=1, max_depth=3, max_width=4):
    return raw_networks(min_depth, max_depth, max_width, values).map(lambda raw: ReLUNetwork(raw[1], raw[2]))


@st.composite
def symmetries(draw, net):
    hidden = net.architecture.hidden_widths
    factors = [[draw(positive) for _ in range(n)] for n in hidden]
    perms = [list(draw(st.permutations(range(n)))) for n in hidden]
    return factors, perms


@st.composite
def points(draw, n0, count=5):
    return [tuple(draw(rationals) for _ in range(n0)) for _ in range(count)]


def same_function(a, b, xs):
    return all(forward(a.weights, a.biases, x) == forward(b.weights, b.biases, x) for x in xs)


# -- the actions ----------------------------------------------------------------------------
@SETTINGS
@given(data=st.data(), net=networks())
def test_scale_and_permute_follow_their_definition(data, net):
    factors, perms = data.draw(symmetries(net))
    scaled = scale(net, factors)
    L = net.architecture.depth
    for l in range(L + 1):
        for i, row in enumerate(scaled.weights[l]):
            lam = factors[l][i] if l < L else 1
            for j, v in enumerate(row):
                mu = factors[l - 1][j] if l > 0 else 1
                assert v == net.weights[l][i][j] * lam / mu
            assert scaled.biases[l][i] == net.biases[l][i] * lam
    permuted = permute(net, perms)
    for l in range(L + 1):
        rows = perms[l] if l < L else range(len(net.weights[l]))
        for i, old_i in enumerate(rows):
            for j, v in enumerate(permuted.weights[l][i]):
                old_j = perms[l - 1][j] if l > 0 else j
                assert v == net.weights[l][old_i][old_j]
            assert permuted.biases[l][i] == net.biases[l][old_i]


@SETTINGS
@given(data=st.data(), net=networks())
def test_scale_and_permute_preserve_the_function(data, net):
    factors, perms = data.draw(symmetries(net))
    xs = data.draw(points(net.architecture.input_dim))
    scaled = scale(net, factors)
    permuted = permute(net, perms)
    both = permute(scale(net, factors), perms)
    for other in (scaled, permuted, both):
        assert other.architecture == net.architecture
        assert same_function(net, other, xs)
        assert all(other(x) == net(x) for x in xs)


@SETTINGS
@given(data=st.data(), net=networks())
def test_equivalent_under_scaling_and_permutation(data, net):
    factors, perms = data.draw(symmetries(net))
    other = permute(scale(net, factors), perms)
    assert equivalent(net, other)
    assert equivalent(other, net)
    c = canonical_form(net)
    assert canonical_form(other) == c
    assert canonical_form(c) == c  # idempotent
    assert equivalent(c, net)
    # the canonical form is in the orbit: the same function
    assert same_function(c, net, data.draw(points(net.architecture.input_dim)))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), net=networks(values=sparse, max_depth=3))
def test_equivalent_with_many_zeros(data, net):
    """Sparse networks: dead neurons (zero rows), neurons fed only by dead ones, twins."""
    factors, perms = data.draw(symmetries(net))
    other = permute(scale(net, factors), perms)
    c = canonical_form(net)
    assert canonical_form(other) == c
    assert canonical_form(c) == c
    assert same_function(c, net, data.draw(points(net.architecture.input_dim)))


def live_columns(net):
    """Per hidden layer, which neurons can be non-zero somewhere (independent recomputation)."""
    live, prev = [], None
    for W, b in net.layers[:-1]:
        flags = [b[i] != 0 or any(v != 0 and (prev is None or prev[k]) for k, v in enumerate(W[i])) for i in range(len(W))]
        live.append(flags)
        prev = flags
    return live


@SETTINGS
@given(net=networks())
def test_canonical_form_is_normalized_and_sorted(net):
    """docs/design.md §1: first non-zero incoming entry ±1, then rows sorted, layer by layer.

    Columns of neurons whose pre-activation is identically zero carry no
    information about the scale and are skipped by the pivot rule.
    """
    c = canonical_form(net)
    live = live_columns(c)
    for l, (W, b) in enumerate(c.layers[:-1]):
        prev = live[l - 1] if l else [True] * len(W[0])
        for i, row in enumerate(W):
            if live[l][i]:
                pivot = next(v for v in [*(v for k, v in enumerate(row) if prev[k]), b[i]] if v != 0)
                assert abs(pivot) == 1
        if all(prev):
            keys = [(tuple(row), b[i]) for i, row in enumerate(W)]
            assert keys == sorted(keys)


def test_canonical_form_by_hand():
    # neurons: 2*relu(x1 + 2) scaled to 1, -3*relu(-x2 - 1) scaled to 1; then sorted
    net = ReLUNetwork([[[2, 0], [0, -3]], [[1, 1]]], [[4, 3], [0]])
    c = canonical_form(net)
    assert c.weights[0] == ((0, -1), (1, 0))
    assert c.biases[0] == (1, 2)
    assert c.weights[1] == ((3, 2),)
    assert c.biases[1] == (0,)


# -- perturbations --------------------------------------------------------------------------
@SETTINGS
@given(data=st.data(), net=networks())
def test_perturbation_that_changes_the_function_is_not_equivalent(data, net):
    xs = data.draw(points(net.architecture.input_dim, count=12))
    theta = list(net.parameters())
    k = data.draw(st.integers(0, len(theta) - 1))
    theta[k] += 1
    changed = ReLUNetwork.from_parameters(net.architecture, theta)
    if not same_function(net, changed, xs):  # trivially equivalent networks compute the same function
        assert not equivalent(net, changed)
        factors, perms = data.draw(symmetries(net))
        assert not equivalent(permute(scale(net, factors), perms), changed)
    # the output bias always changes the function
    theta = list(net.parameters())
    theta[-1] += F(1, 7)
    assert not equivalent(net, ReLUNetwork.from_parameters(net.architecture, theta))


def test_weight_of_a_live_neuron_changes_the_orbit():
    net = ReLUNetwork([[[1, 2], [3, -1], [0, 1]], [[1, 1, -2]]], [[0, 1, -1], [0]])
    theta = list(net.parameters())
    theta[0] += 1  # first weight of neuron (1, 0), whose incoming row is non-zero
    other = ReLUNetwork.from_parameters(net.architecture, theta)
    assert other([1, 0]) != net([1, 0])
    assert not equivalent(net, other)
    assert not equivalent(net, permute(scale(other, [[2, 3, 5]]), [[2, 0, 1]]))


# -- twins and dead neurons -----------------------------------------------------------------
def twin_net():
    # neurons 0 and 1 have the same incoming row; their outgoing weights differ
    return ReLUNetwork([[[1, -2], [1, -2], [0, 3]], [[5, -1, 2], [1, 4, 0]]], [[1, 1, -1], [0, 0]])


def test_twins():
    net = twin_net()
    copies = [
        permute(net, [[1, 0, 2]]),
        scale(net, [[2, F(1, 3), 5]]),
        permute(scale(net, [[7, 7, F(1, 2)]]), [[2, 1, 0]]),
        scale(permute(net, [[1, 2, 0]]), [[F(3, 4), 11, 1]]),
    ]
    for other in copies:
        assert equivalent(net, other)
        assert canonical_form(other) == canonical_form(net)
    # swapping only the outgoing weights of the twins is the permutation (0 1)
    swapped = ReLUNetwork(
        net.weights[:1] + ([[row[1], row[0], row[2]] for row in net.weights[1]],), net.biases
    )
    assert swapped == permute(net, [[1, 0, 2]])
    assert equivalent(net, swapped)
    # twins' outgoing weights can be redistributed without changing the function,
    # but that is not a trivial symmetry
    redistributed = ReLUNetwork(net.weights[:1] + ([[4, 0, 2], [2, 3, 0]],), net.biases)
    xs = [(F(a), F(b)) for a in range(-3, 4) for b in range(-3, 4)]
    assert same_function(net, redistributed, xs)
    assert not equivalent(net, redistributed)


def test_twins_in_a_deeper_layer():
    net = ReLUNetwork(
        [[[1, 0], [0, 1]], [[1, -1], [2, -2], [1, 1]], [[1, 2, 3]]],  # (2,0) and (2,1) are twins up to scale
        [[0, 0], [1, 2, 0], [0]],
    )
    other = permute(scale(net, [[3, F(1, 2)], [F(1, 5), 4, 2]]), [[1, 0], [1, 2, 0]])
    assert equivalent(net, other)
    changed = ReLUNetwork(net.weights[:2] + ([[2, 1, 3]],), net.biases)  # 1*r + 2*(2r) vs 2*r + 1*(2r)
    assert not equivalent(net, changed)


def test_dead_neurons_in_the_last_hidden_layer():
    # neurons 0 and 2 have all-zero incoming rows and biases; their outgoing columns differ
    net = ReLUNetwork([[[0, 0], [1, 2], [0, 0]], [[1, 1, 3], [2, 0, -1]]], [[0, 1, 0], [0, 1]])
    for factors, perm in [([[2, 1, 1]], [0, 1, 2]), ([[F(1, 3), 5, 7]], [2, 1, 0]), ([[1, 1, 9]], [1, 2, 0])]:
        other = permute(scale(net, factors), [perm])
        assert equivalent(net, other)
        assert canonical_form(other) == canonical_form(net)
    # a dead neuron's column is only defined up to a positive factor: (1, 2) and (1, 3) differ
    other = ReLUNetwork([[[0, 0], [1, 2], [0, 0]], [[1, 1, 3], [3, 0, -1]]], [[0, 1, 0], [0, 1]])
    assert not equivalent(net, other)
    # and the sign of a dead column is kept
    flipped = ReLUNetwork([[[0, 0], [1, 2], [0, 0]], [[-1, 1, 3], [-2, 0, -1]]], [[0, 1, 0], [0, 1]])
    assert not equivalent(net, flipped)


def test_dead_neurons_feeding_hidden_layers():
    """Dead neurons before another hidden layer: their scale is tied to that layer's scale."""
    net = ReLUNetwork([[[0, 0], [1, 2]], [[3, 1], [5, -1]], [[1, 1]]], [[0, 1], [1, 2], [0]])
    for factors in ([[1, 1], [2, 1]], [[1, 1], [1, 3]], [[4, 1], [F(1, 2), 7]], [[F(1, 9), 2], [5, F(1, 5)]]):
        other = scale(net, factors)
        assert equivalent(net, other)
        assert equivalent(net, permute(other, [[1, 0], [1, 0]]))
    # a neuron fed only by a dead neuron (zero pre-activation too), whose own scale is set by the output
    net = ReLUNetwork(
        [[[0, 0], [-2, 0]], [[3, 0], [0, 0], [-1, 0]], [[1, 2, 3]]],
        [[0, 0], [1, 0, 0], [0]],
    )
    for factors in ([[5, 1], [1, 1, 2]], [[1, 3], [2, 7, F(1, 4)]], [[F(2, 3), 1], [1, 1, 1]]):
        assert equivalent(net, scale(net, factors))
        assert equivalent(net, permute(scale(net, factors), [[1, 0], [2, 0, 1]]))


def test_many_twins_bound():
    net = ReLUNetwork([[[1, 1]] * 5, [[1, 2, 3, 4, 5]]], [[0] * 5, [0]])
    assert equivalent(net, permute(net, [[4, 3, 2, 1, 0]]))
    with pytest.raises(SymmetryError, match="max_tie_orders"):
        canonical_form(net, max_tie_orders=10)
    assert canonical_form(net, max_tie_orders=120) == canonical_form(net)


def test_thirteen_twins_refused_before_any_ordering_exists():
    # 13! orderings: generating them (as itertools.product did) allocated gigabytes first
    import tracemalloc

    net = ReLUNetwork([[[1, 1]] * 13, [list(range(1, 14))]], [[0] * 13, [0]])
    tracemalloc.start()
    try:
        with pytest.raises(SymmetryError, match=r"13 twin neurons.*6,227,020,800 orderings"):
            canonical_form(net)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 10_000_000


def test_twin_orderings_explored_in_every_layer():
    # 3 twins in layer 1 and 3 in layer 2: 36 leaves; the limit counts leaves across layers
    net = ReLUNetwork([[[1, 0]] * 3, [[1, 2, 3]] * 3, [[1, 1, 1]]], [[0] * 3, [0] * 3, [0]])
    with pytest.raises(SymmetryError):
        canonical_form(net, max_tie_orders=30)
    assert canonical_form(net, max_tie_orders=36) == canonical_form(permute(net, [[2, 0, 1], [1, 2, 0]]), max_tie_orders=36)


def test_depth_zero():
    net = ReLUNetwork([[[1, 2]]], [[3]])
    assert canonical_form(net) == net
    assert equivalent(net, scale(net, []))
    assert equivalent(net, permute(net, []))
    assert not equivalent(net, ReLUNetwork([[[1, 2]]], [[4]]))


# -- errors ---------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [0, -1, F(-1, 2), "0", "-3/4", 0.0, -1e-300])
def test_non_positive_scale_factor(bad):
    net = ReLUNetwork.random((2, 3, 2, 1), seed=1)
    with pytest.raises(SymmetryError, match="must be positive"):
        scale(net, [[1, 1, 1], [1, bad]])
    with pytest.raises(SymmetryError, match=re.escape("neuron (1, 2)")):
        scale(net, [[1, 1, bad], [1, 1]])


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), None, "abc", True])
def test_non_numeric_scale_factor(bad):
    net = ReLUNetwork.random((2, 3, 1), seed=1)
    with pytest.raises(InvalidNumberError, match="scale factor"):
        scale(net, [[1, bad, 1]])


@pytest.mark.parametrize(
    "perm", [[0, 0, 1], [0, 1, 3], [1, 2, -1], [0.0, 1.0, 2.0], [True, False, 2], ["0", "1", "2"]]
)
def test_not_a_permutation(perm):
    net = ReLUNetwork.random((2, 3, 2, 1), seed=1)
    with pytest.raises(SymmetryError, match="not a permutation"):
        permute(net, [perm, [0, 1]])


def test_numpy_permutations_and_factors_are_accepted():
    net = ReLUNetwork.random((2, 3, 2, 1), seed=1)
    assert permute(net, [np.array([2, 0, 1]), (1, 0)]) == permute(net, [[2, 0, 1], [1, 0]])
    assert scale(net, [np.array([1, 2, 3]), [np.int64(4), "1/2"]]) == scale(net, [[1, 2, 3], [4, F(1, 2)]])


@pytest.mark.parametrize(
    "values, fragment",
    [
        ([[1, 1, 1]], "expected one entry per hidden layer (2), got 1"),
        ([[1, 1, 1], [1, 1], [1]], "expected one entry per hidden layer (2), got 3"),
        ([[1, 1], [1, 1]], "hidden layer 1 has 3 neurons, got 2 entries"),
        ([[1, 1, 1], [1, 1, 1]], "hidden layer 2 has 2 neurons, got 3 entries"),
        ([1, 1], "one sequence per hidden layer"),
        ([], "expected one entry per hidden layer (2), got 0"),
    ],
)
def test_wrong_shapes(values, fragment):
    net = ReLUNetwork.random((2, 3, 2, 1), seed=1)
    with pytest.raises(ShapeError, match=re.escape(fragment)):
        scale(net, values)
    perm_values = [list(range(len(v))) if isinstance(v, list) else v for v in values]
    with pytest.raises(ShapeError):
        permute(net, perm_values)


def test_different_architectures_are_not_equivalent():
    a = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    b = ReLUNetwork([[[1, 0], [0, 1], [0, 0]], [[1, 1, 0]]], [[0, 0, 0], [0]])  # same function, extra dead neuron
    assert a([3, 4]) == b([3, 4])
    assert not equivalent(a, b)
    assert not equivalent(b, a)
    c = ReLUNetwork([[[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0, 0], [0]])  # one layer deeper
    assert c([3, 4]) == a([3, 4])
    assert not equivalent(a, c)
    assert not equivalent(ReLUNetwork([[[1]]], [[0]]), ReLUNetwork([[[1, 0]]], [[0]]))


# -- same_function: equality of functions, not of parameters -------------------------------------


@pytest.mark.parametrize("seed", range(6))
def test_difference_network_computes_the_difference(seed):
    from polyrelu import difference_network

    rng = np.random.default_rng(seed)
    a = ReLUNetwork.random((2, 3, 2, 2), seed=seed, kind="integer", bound=3)
    b = ReLUNetwork.random((2, 2, 3, 2, 2)[: 2 + seed % 3] + (2,), seed=seed + 50, kind="integer", bound=3)
    d = difference_network(a, b)
    for _ in range(30):
        x = [Fraction(int(v), 3) for v in rng.integers(-20, 20, 2)]
        assert d(x) == tuple(p - q for p, q in zip(a(x), b(x)))


def test_same_function_sees_through_hidden_symmetries():
    from polyrelu import same_function
    from polyrelu.examples import (
        generic_network,
        with_dead_neuron,
        with_invisible_neuron,
        with_stably_active_layer,
    )

    base = generic_network((2, 3, 2, 1), seed=4)
    twin = permute(scale(base, [[2, "1/3", 5], [7, "2/5"]]), [[2, 0, 1], [1, 0]])
    dead = with_dead_neuron(base, 2)
    invisible = with_invisible_neuron(base, 1, [1, -3], "1/5")
    deeper = with_stably_active_layer(base, 1)
    for other in (twin, dead, invisible, deeper):
        answer = same_function(base, other)
        assert answer and answer.witness is None and answer.regions > 0
        assert not equivalent(base, other) or other is twin


@pytest.mark.parametrize("position", [0, 5, -1])
def test_same_function_finds_a_witness_where_functions_differ(position):
    """A generic network: every neuron is visible, so any change of one parameter changes f."""
    from polyrelu import same_function
    from polyrelu.examples import generic_network

    net = generic_network((2, 3, 2, 1), seed=5)
    theta = list(net.parameters())
    theta[position] += Fraction(1, 100)
    other = ReLUNetwork.from_parameters(net.architecture, theta)
    answer = same_function(net, other)
    assert not answer and net(answer.witness) != other(answer.witness)


def test_same_function_on_a_domain():
    from polyrelu import Box, same_function

    far = ReLUNetwork([[[1, 0]], [[1]]], [[-10], [0]])   # relu(x1 - 10): zero on [-1, 1]^2
    zero = ReLUNetwork([[[1, 0]], [[0]]], [[0], [0]])
    assert same_function(far, zero, Box(-1, 1))
    outside = same_function(far, zero)
    assert not outside and outside.witness[0] > 10


def test_same_function_refuses_different_shapes():
    from polyrelu import ShapeError, same_function

    with pytest.raises(ShapeError, match="input widths differ"):
        same_function(ReLUNetwork.random((2, 2, 1)), ReLUNetwork.random((3, 2, 1)))
    with pytest.raises(ShapeError, match="output widths differ"):
        same_function(ReLUNetwork.random((2, 2, 1)), ReLUNetwork.random((2, 2, 2)))


def test_same_function_without_hidden_layers():
    from polyrelu import same_function

    affine = ReLUNetwork([[[1, 2]]], [[3]])
    assert same_function(affine, ReLUNetwork([[[1, 2]]], [[3]]))
    assert not same_function(affine, ReLUNetwork([[[1, 2]]], [[4]]))
    relu = ReLUNetwork([[[1, 2]], [[1]]], [[3], [0]])  # relu of the same affine map: equal where it is >= 0
    answer = same_function(affine, relu)
    assert not answer and affine(answer.witness)[0] < 0


@pytest.mark.parametrize(
    "ieqs, eqns, d, A, c, x",
    [
        ([(1, 1), (1, -1)], [], 1, [[1]], [0], (0,)),  # -1 <= x <= 1, difference x, interior point 0
        ([(0, 0, 1)], [], 2, [[1, 0]], [0], (0, 1)),  # half-plane x2 >= 0, difference x1: only a line moves off 0
        ([(0, 1, 0)], [(0, 0, 1)], 2, [[0, 0], [1, 1]], [0, -1], (1, 0)),  # ray x1 >= 0 on x2 = 0, two outputs
    ],
)
def test_a_witness_is_found_where_the_difference_is_not_zero(ieqs, eqns, d, A, c, x):
    """The difference map may vanish at the region's interior point; the witness is moved to where it does not."""
    P = Polyhedron(ieqs=ieqs, eqns=eqns, ambient_dim=d)
    assert P.relative_interior_contains(x)
    y = _where_nonzero(P, A, c, x)
    assert P.relative_interior_contains(y)
    assert any(sum(a * t for a, t in zip(row, y)) + k for row, k in zip(A, c))
