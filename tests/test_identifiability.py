"""Functional dimension (docs/design.md §6): exact rank of the parameter Jacobian, its bound and its kernel."""

import math
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import rank

from polyrelu import (
    GeometryError,
    ReLUNetwork,
    batch_functional_dimension,
    canonical_complex,
    float_functional_dimension,
    functional_dimension,
    permute,
    scale,
    scaling_directions,
)
from polyrelu.examples import (
    bottleneck_flip,
    bottleneck_network,
    generic_network,
    with_dead_neuron,
    with_invisible_neuron,
    with_neuron,
    with_stably_active_layer,
    with_twin_neuron,
)


def moved(net, direction, t):
    theta = [a + t * d for a, d in zip(net.parameters(), direction)]
    return ReLUNetwork.from_parameters(net.architecture, theta)


def derivative_of_maps(net, direction, pattern):
    """d/dt at t = 0 of the flattened (A, c) on a fixed pattern along a direction (no Jacobian code).

    On a fixed pattern the map is a polynomial in t of degree at most the number of layers, so its
    exact values at that many + 1 points determine it; the derivative comes from the Lagrange form:
    l_i'(0) = sum over k != i of prod over j != i, k of (0 - t_j), divided by prod over j != i of (t_i - t_j).
    """
    ts = [Fraction(k) for k in range(-1, len(net.layers))]
    values = []
    for t in ts:
        A, c = moved(net, direction, t).affine_map(pattern)
        values.append([v for row in A for v in row] + list(c))
    out = [Fraction(0)] * len(values[0])
    for i, ti in enumerate(ts):
        others = [tj for j, tj in enumerate(ts) if j != i]
        denominator = math.prod(ti - tj for tj in others)
        slope = sum(math.prod(-tj for tj in others if tj is not tk) for tk in others) / denominator
        for k, v in enumerate(values[i]):
            out[k] += v * slope
    return out


@pytest.mark.parametrize("arch", [(2, 2, 1), (3, 2, 3, 1), (2, 3, 2, 1), (2, 2, 2, 2, 1), (2, 3, 3, 2)])
def test_generic_examples_attain_d_minus_h(arch):
    net = generic_network(arch, seed=0)
    fd = functional_dimension(net)
    assert fd.rank == fd.bound == net.architecture.num_parameters - net.architecture.num_hidden
    assert fd.attains_bound and fd.kernel == () and fd.method == "exact"
    assert float_functional_dimension(net).rank == fd.rank


@settings(max_examples=30, deadline=None, derandomize=True, database=None)
@given(arch=st.sampled_from([(2, 3, 1), (2, 2, 2, 1), (3, 2, 2, 1), (2, 3, 2, 2), (1, 2, 2, 1)]), seed=st.integers(0, 10**6))
def test_rank_never_exceeds_the_bound_and_kernel_is_exact(arch, seed):
    net = ReLUNetwork.random(arch, seed=seed, kind="integer", bound=3)
    K = canonical_complex(net)
    fd = functional_dimension(net, complex_=K)
    # the scaling directions lie in the kernel, so the rank is at most D minus their rank (D - H when independent)
    assert fd.rank <= fd.num_parameters - rank(scaling_directions(net))
    # every kernel direction beyond scaling really leaves every region's affine map still (to first order)
    for direction in fd.kernel[:3]:
        for region in K.regions():
            assert not any(derivative_of_maps(net, direction, region.signs))


def test_scaling_directions_do_not_move_any_map():
    net = generic_network((2, 3, 2, 1), seed=1)
    K = canonical_complex(net)
    for direction in scaling_directions(net):
        for region in K.regions()[:5]:
            assert not any(derivative_of_maps(net, direction, region.signs))


def test_a_generic_direction_moves_the_maps():
    """The interpolation check can fail: a direction outside the kernel moves some map."""
    net = generic_network((2, 3, 2, 1), seed=1)
    K = canonical_complex(net)
    direction = [Fraction(k % 5 - 2) for k in range(net.architecture.num_parameters)]
    assert any(any(derivative_of_maps(net, direction, r.signs)) for r in K.regions())


def test_dead_neuron_kernel_is_its_free_weights():
    """Rank D - H of the live network; the kernel beyond scaling is spanned by the dead neuron's weights."""
    base = generic_network((2, 3, 2, 1), seed=2)
    W1, W2, W3 = (list(map(list, W)) for W in base.weights)
    b1, b2, b3 = (list(b) for b in base.biases)
    # a fourth first-layer neuron that is never active: zero weights, negative bias
    W1.append([0, 0]); b1.append(-1)
    for row in W2:
        row.append(Fraction(3, 2))
    net = ReLUNetwork([W1, W2, W3], [b1, b2, b3])
    fd = functional_dimension(net)
    assert fd.rank == functional_dimension(base).rank == base.architecture.functional_dimension_bound
    # its parameters: W1[3] (2), b1[3] (1), W2[:, 3] (2); one combination is its rescaling, 4 are left
    assert fd.bound - fd.rank == 4 and len(fd.kernel) == 4
    own = {6, 7, 11, 12 + 3, 12 + 4 + 3}
    assert {i for vec in fd.kernel for i, v in enumerate(vec) if v} <= own


def test_stably_active_layer_loses_exactly_the_extra_parameters():
    base = generic_network((2, 3, 2, 1), seed=6)
    deep = with_stably_active_layer(base, 1)
    shallow, fd = functional_dimension(base), functional_dimension(deep)
    assert shallow.attains_bound and fd.rank == shallow.rank < fd.bound
    assert len(fd.kernel) == fd.bound - fd.rank == 9
    K = canonical_complex(deep)
    for direction in fd.kernel:
        assert not any(derivative_of_maps(deep, direction, K.regions()[0].signs))


def test_rank_is_invariant_under_trivial_symmetries():
    net = ReLUNetwork.random((2, 3, 3, 1), seed=4, kind="integer", bound=3)
    twin = permute(scale(net, [[2, "1/3", 5], [7, 1, "2/5"]]), [[2, 0, 1], [1, 2, 0]])
    a, b = functional_dimension(net), functional_dimension(twin)
    assert a.rank == b.rank and len(a.kernel) == len(b.kernel)


def test_batch_rank_over_one_point_per_region_is_the_functional_dimension():
    net = generic_network((2, 3, 2, 1), seed=3)
    K = canonical_complex(net)
    points = [r.relative_interior_point() for r in K.regions()]
    assert batch_functional_dimension(net, points).rank == functional_dimension(net).rank
    assert batch_functional_dimension(net, points[:1]).rank <= 3


def test_batch_refuses_points_on_a_bent_hypersurface():
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    with pytest.raises(GeometryError, match=r"point 1 lies on the zero set of hidden neuron \(1, 0\)"):
        batch_functional_dimension(net, [[1, 1], [0, 5]])


def test_exact_and_float_ranks_agree_on_well_conditioned_networks():
    for seed in range(4):
        net = generic_network((2, 4, 3, 1), seed=seed)
        assert functional_dimension(net).rank == float_functional_dimension(net).rank


# -- minimality ---------------------------------------------------------------------------------


def test_generic_network_is_minimal_by_the_evidence():
    from polyrelu import minimality_report

    report = minimality_report(generic_network((2, 3, 2, 1), seed=1))
    assert report.removals == () and report.verdict == "minimal (evidence)"
    assert report.layer_sizes == (3, 2) and "no single neuron" in str(report)


@pytest.mark.parametrize(
    "layer,row,bias,out,how",
    [
        (2, [-1, -2, -1], -1, [5], "deleted"),  # dead: non-positive weights on relu outputs, negative bias
        (1, [1, -3], "1/5", [0, 0], "deleted"),  # invisible: zero outgoing weights
        (1, None, None, [1, -2], "merged into (1, 0)"),  # twin of neuron (1, 0), twice its row
    ],
)
def test_removable_neurons_are_found_with_a_proof(layer, row, bias, out, how):
    from polyrelu import minimality_report, same_function

    base = generic_network((2, 3, 2, 1), seed=4)
    if row is None:  # the twin: a positive multiple of neuron (1, 0)'s row and bias
        row = [2 * v for v in base.weights[0][0]]
        bias = 2 * base.biases[0][0]
    net = with_neuron(base, layer, row, bias, out)
    report = minimality_report(net)
    assert report.verdict == "not minimal"
    added = (layer, net.architecture.hidden_widths[layer - 1] - 1)
    found = {r.neuron: r for r in report.removals}
    assert added in found and found[added].how == how
    smaller = found[added].network
    assert smaller.architecture.widths == base.architecture.widths
    assert same_function(smaller, net) and found[added].proof.equal  # checked again, independently of the report
    if how == "deleted":
        assert smaller == base
    # nothing else is removable: the base network is minimal
    assert set(found) <= {added} | ({(1, 0)} if how.startswith("merged") else set())


def test_stably_active_layer_is_not_decided_by_single_neurons():
    from polyrelu import minimality_report

    deep = with_stably_active_layer(generic_network((2, 3, 2, 1), seed=6), 1)
    report = minimality_report(deep)
    assert report.removals == () and report.verdict == "undecided"
    assert report.layer_sizes == (3, 2) != report.widths


# -- identifiability report ---------------------------------------------------------------------


def _families():
    base = generic_network((2, 3, 2, 1), seed=6)
    return {
        "stably active layer": with_stably_active_layer(base, 1),
        "twin neurons": with_twin_neuron(base, 1, 0),
        "dead neuron": with_dead_neuron(base, 2),
        "invisible neuron": with_invisible_neuron(base, 1, [1, -3], "1/5"),
        "width-1 bottleneck": bottleneck_network(),
    }


@pytest.mark.parametrize("family", sorted(_families()))
def test_hidden_symmetry_families_are_not_identifiable_with_an_exact_witness(family):
    from polyrelu import equivalent, identifiability_report, same_function

    net = _families()[family]
    report = identifiability_report(net)
    assert report.verdict == "not identifiable"
    # the witness is re-checked here, exactly and independently of the report
    assert report.witness is not None and report.witness.architecture == net.architecture
    assert same_function(net, report.witness) and not equivalent(net, report.witness)
    assert report.witness.parameters() != net.parameters()
    assert report.to_json()["witness"]["format"] == "polyrelu.network"


@pytest.mark.parametrize("arch", [(2, 2, 1), (3, 2, 3, 1), (2, 3, 2, 1)])
def test_generic_networks_are_identifiable_by_the_theorem(arch):
    from polyrelu import identifiability_report

    report = identifiability_report(generic_network(arch, seed=2))
    assert report.verdict == "identifiable (theorem conditions hold)" and report.witness is None
    assert report.functional_dimension.attains_bound and report.genericity.holds
    assert "the identifiability theorem of Grillo & Montúfar applies" in str(report)


def test_full_rank_outside_the_theorem_is_local_identifiability():
    from polyrelu import identifiability_report
    from polyrelu.examples import bent_line_network

    report = identifiability_report(bent_line_network())  # a width-1 layer: the theorem does not apply
    assert not report.width_hypothesis and report.functional_dimension.attains_bound
    assert report.verdict == "locally identifiable (immersion)"


def test_a_neuron_affine_in_its_neighbours_is_absorbed_by_the_next_layer():
    """On the box [-1, 1]^2 three first-layer neurons are active everywhere and a3 = a1 + a2 + 80."""
    from polyrelu import Box, minimality_report, same_function

    net = ReLUNetwork([[[1, 0], [0, 1], [1, 1]], [[1, 2, 3]]], [[10, 10, 100], [0]])
    box = Box(-1, 1)
    report = minimality_report(net, box)
    assert report.verdict == "not minimal"
    absorbed = [r for r in report.removals if r.how.startswith("absorbed")]
    assert absorbed and all(same_function(r.network, net, box) for r in absorbed)
    assert not same_function(absorbed[0].network, net)  # on all of R^2 the relation fails


def test_bottleneck_flip_is_a_discrete_hidden_symmetry():
    from polyrelu import canonical_complex, equivalent, genericity, same_function

    net = bottleneck_network()
    flipped = bottleneck_flip(net)
    assert same_function(net, flipped) and not equivalent(net, flipped)
    assert flipped.weights[2][1] == (-net.weights[2][1][0],)  # the second neuron reads -t now
    report = genericity(canonical_complex(net))
    assert not report.tpic.holds  # behind a width-1 layer hypersurfaces are parallel level sets
    assert same_function(bottleneck_flip(flipped), net)


def test_free_weight_family_is_minimal_by_single_neurons_yet_not_identifiable():
    from polyrelu import (
        canonical_complex,
        equivalent,
        identifiability_report,
        minimality_report,
        same_function,
    )
    from polyrelu.examples import free_weight_network

    members = [free_weight_network(t) for t in (-1, "-1/3", -5)]
    for other in members[1:]:
        assert same_function(members[0], other) and not equivalent(members[0], other)
    net = members[0]
    assert minimality_report(net).removals == ()
    report = identifiability_report(net)
    assert report.verdict == "not identifiable" and same_function(net, report.witness)
    # the free weight W2[0][2] (after W1's 6 entries, b1's 3, W2[0][0..1]) moves nothing: a kernel direction
    position = 6 + 3 + 2
    assert net.parameters()[position] == -1
    unit = [Fraction(int(i == position)) for i in range(net.architecture.num_parameters)]
    K = canonical_complex(net)
    assert all(not any(derivative_of_maps(net, unit, r.signs)) for r in K.regions())
    with pytest.raises(GeometryError, match="t must be negative"):
        free_weight_network(1)
