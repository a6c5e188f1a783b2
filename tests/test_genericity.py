"""The four genericity conditions (docs/design.md §4): each flagged with the right witness, generic networks pass."""

import pytest
from reference import pre_activations, sign

from polyrelu import GeometryError, ReLUNetwork, canonical_complex
from polyrelu.examples import bent_line_network, generic_network
from polyrelu.genericity import genericity
from polyrelu.tropical import bent_hypersurfaces


def holds(report):
    return [c.holds for c in report.conditions]


def test_three_lines_through_a_point_violate_only_supertransversality():
    # x1, x2 and -x1 - x2 all vanish at the origin; no region has all three negative
    net = ReLUNetwork([[[1, 0], [0, 1], [-1, -1]], [[1, 1, 1]]], [[0, 0, 0], [0]])
    K = canonical_complex(net)
    report = genericity(K)
    assert holds(report) == [False, True, True, True]
    origin = K.locate([0, 0])
    assert report.supertransversality.witnesses == ((origin.id, 2, 3),)


def test_invisible_neuron_violates_only_no_cancellation():
    net = ReLUNetwork([[[1, 0], [0, 1], [-1, -1]], [[1, 1, 0]]], [[0, 0, 1], [0]])
    K = canonical_complex(net)
    report = genericity(K)
    assert holds(report) == [True, False, True, True]
    witnesses = report.no_cancellation.witnesses
    assert {z for z, _ in witnesses} == {(1, 2)}
    # every facet of the line -x1 - x2 + 1 = 0 is a witness, and only those
    line = {c.id for c in K.bent_hypersurface(1, 2) if c.dimension == 1}
    assert {f for _, f in witnesses} == line


def test_layer_inactive_after_the_facet_excuses_a_zero_weight():
    # The second layer's only neuron is dead for x1 + x2 < 1 (relu(x1) + relu(x2) - 1 <= 0 there),
    # so zero weights on the axes near the origin are not cancellations.
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]], [[1]]], [[0, 0], [-1], [0]])
    report = genericity(canonical_complex(net))
    assert report.no_cancellation.holds
    assert not report.transparency.holds  # the same dead region is opaque


def test_one_hidden_layer_with_an_all_inactive_region_is_generic():
    # relu(x1) + relu(x2): both neurons are off in the third quadrant, but no hypersurface runs through it
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    assert genericity(canonical_complex(net)).holds


def test_bent_line_violates_only_transparency_on_the_hidden_axis_pieces():
    K = canonical_complex(bent_line_network())
    report = genericity(K)
    assert holds(report) == [True, True, False, True]
    # the second layer is off exactly where relu(x1) + relu(x2) < 1: the axis pieces below the bent line
    expected = {
        (c.id, (1, k), 2)
        for k in range(2)
        for c in K.bent_hypersurface(1, k)
        if c.dimension == 1 and sum(max(v, 0) for v in c.relative_interior_point()) < 1
    }
    assert set(report.transparency.witnesses) == expected and len(expected) == 4


def test_tpic_only_violation_on_a_gaussian_network():
    net = ReLUNetwork.random((2, 4, 4, 1), seed=2, kind="gaussian")
    K = canonical_complex(net)
    report = genericity(K)
    assert holds(report) == [True, True, True, False]
    B = bent_hypersurfaces(K)
    for z, z2, reason, cells in report.tpic.witnesses:
        assert z2[0] == z[0] + 1
        common = set(B[z].cells) & set(B[z2].cells)
        if reason == "disjoint":
            assert not common
        else:
            assert cells and all(K.network.architecture.input_dim - K[c].dimension != 2 for c in cells)


def test_a_generic_network_passes_all_four():
    net = ReLUNetwork.random((2, 5, 3, 1), seed=9, kind="gaussian")
    report = genericity(canonical_complex(net))
    assert report.holds and all(not c.witnesses for c in report.conditions)
    assert "generic: yes" in str(report)


@pytest.mark.parametrize("seed", range(8))
def test_supertransversality_and_no_cancellation_hold_for_gaussian_networks(seed):
    net = ReLUNetwork.random((2, 4, 4, 1), seed=seed, kind="gaussian")
    report = genericity(canonical_complex(net))
    assert report.supertransversality.holds and report.no_cancellation.holds


def test_witnessed_counts_match_an_independent_count():
    """For the violating pencil, count hypersurfaces through each vertex from the sign vectors directly."""
    net = ReLUNetwork([[[1, 0], [0, 1], [-1, -1], [1, -1]], [[1, 1, 1, 1]]], [[0, 0, 0, 0], [0]])
    K = canonical_complex(net)
    report = genericity(K)
    for cell, codim, count in report.supertransversality.witnesses:
        assert codim == 2 - K[cell].dimension
        assert count == sum(1 for s in K[cell].signs if s == 0)  # first-layer lines: every zero is a crossing line
    assert (K.locate([0, 0]).id, 2, 4) in report.supertransversality.witnesses


@pytest.mark.parametrize("seed", range(12))
def test_verdicts_agree_on_independently_built_complexes(seed):
    """Small-integer networks: the verdicts and witnesses are the same on the LP-built complex."""
    shape = [(2, 3, 3, 1), (2, 3, 2, 2), (3, 2, 3, 1)][seed % 3]
    net = ReLUNetwork.random(shape, seed=seed, kind="integer", bound=3)
    fast = genericity(canonical_complex(net))
    slow = genericity(canonical_complex(net, method="lp"))
    assert holds(fast) == holds(slow)
    assert fast == slow  # cells are numbered canonically, so the witnesses agree too


@pytest.mark.parametrize("seed", range(10))
def test_transparency_matches_signs_at_facet_points(seed):
    """Recompute the witnesses from exact sign vectors at one interior point of each facet."""
    net = ReLUNetwork.random((2, 3, 3, 1), seed=seed, kind="integer", bound=3)
    K = canonical_complex(net)
    opaque, facets = set(), 0
    for z, b in bent_hypersurfaces(K).items():
        for f in b.facets:
            layers = [[sign(v) for v in layer] for layer in pre_activations(net.weights, net.biases, K[f].relative_interior_point())]
            opaque |= {(f, z, l) for l, signs in enumerate(layers, start=1) if l > z[0] and 1 not in signs}
            facets += 1
    assert facets
    report = genericity(K).transparency
    assert set(report.witnesses) == opaque and report.holds == (not opaque)


def test_tpic_accepts_crossing_curves_cut_by_a_third_hypersurface_in_3d():
    """In R^3, B_z ∩ B_z' is a curve cut into edges by other hypersurfaces: the vertices are fine."""
    net = generic_network((3, 3, 3, 1), seed=0)
    K = canonical_complex(net)
    B = bent_hypersurfaces(K)
    report = genericity(K, hypersurfaces=B)
    assert report.tpic.holds
    cut = [
        c
        for z in B
        for z2 in B
        if z2[0] == z[0] + 1
        for c in set(B[z].cells) & set(B[z2].cells)
        if K[c].dimension == 0
    ]
    assert cut  # the situation the rule is about does occur here


@pytest.mark.parametrize(
    "arch", [(2, 2, 1), (3, 2, 1), (2, 2, 2, 1), (3, 3, 3, 1), (2, 2, 2, 2, 1), (2, 3, 2, 3, 2, 1), (2, 3, 3, 2)]
)
def test_generic_network_constructor_passes_all_four(arch):
    net = generic_network(arch, seed=3)
    assert net.architecture.widths == arch
    assert genericity(canonical_complex(net)).holds
    assert net == generic_network(arch, seed=3)  # reproducible


def test_generic_network_constructor_reaches_wide_deep_architectures():
    """Wide layers need the line-like proposals (paired ones nest their hypersurfaces): checked exactly."""
    net = generic_network((2, 10, 10, 10, 1), seed=0)
    assert net.architecture.widths == (2, 10, 10, 10, 1)
    assert genericity(canonical_complex(net)).holds


def test_generic_network_constructor_refuses_what_it_cannot_build():
    # behind a width-1 layer, every next hypersurface is a level set of the bottleneck neuron: no crossing
    with pytest.raises(GeometryError, match=r"no generic network .*TPIC"):
        generic_network((2, 1, 2, 1), max_attempts=3)


NARROW_THEN_WIDE = [(2, 2, 8, 2, 1), (2, 2, 16, 2, 1), (2, 2, 6, 6, 1), (3, 2, 6, 2, 1), (2, 3, 8, 3, 1)]
# the first three raised GeometryError before the linear program kept its margins; one seed of each other shape
NARROW_THEN_WIDE_FAST = [((2, 2, 8, 2, 1), 0), ((2, 2, 16, 2, 1), 0), ((2, 2, 6, 6, 1), 2), ((3, 2, 6, 2, 1), 0),
                         ((2, 3, 8, 3, 1), 0)]


@pytest.mark.parametrize(
    "arch,seed",
    NARROW_THEN_WIDE_FAST
    + [
        pytest.param(arch, seed, marks=pytest.mark.slow)
        for arch in NARROW_THEN_WIDE
        for seed in range(5)
        if (arch, seed) not in NARROW_THEN_WIDE_FAST
    ],
)
def test_generic_network_constructor_reaches_narrow_then_wide_shapes(arch, seed):
    """A narrow layer after a wide one must cross all of its bent hypersurfaces: the linear-program proposals get there."""
    net = generic_network(arch, seed=seed)
    assert net.architecture.widths == arch
    assert genericity(canonical_complex(net)).holds
