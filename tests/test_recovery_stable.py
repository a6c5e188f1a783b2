"""Recovery of networks with hidden neurons positive on the whole domain (stably active).

Such a neuron never bends ``f``, so no trace finds it, yet the next layer (or the output) reads the layer before
it through it. Recovery adds one (``polyrelu.recovery.orientation.orient_with_stable_neurons``): the weights are
read from a fit over the previous layer's outputs, the bias is chosen to keep it positive on every region. Each
case here was undecided before ("no 0/1 orientation of layer 2 fits", or a stalled output fit); the answers are
checked exactly with ``same_function``.
"""

import collections
import itertools
from fractions import Fraction

import numpy as np
import pytest

from polyrelu import (
    ReLUNetwork,
    canonical_complex,
    network_oracle,
    recover_network,
    same_function,
)
from polyrelu.examples import generic_network
from polyrelu.geometry.rational import row_value
from polyrelu.recovery import driver, next_layer, orientation, skip_features, tracing
from polyrelu.recovery.control import StageFailed
from polyrelu.recovery.numerics import ExactNumerics
from polyrelu.recovery.oracle import Queries
from polyrelu.recovery.output import fit_output
from polyrelu.recovery.partial import PartialNetwork


def with_stable_neuron(net, layer):
    """``net`` with one more neuron in hidden ``layer`` (1-based): ``1 + Σ relu(y_k)/(k + 2)``, positive everywhere.

    The next layer reads it with weights ``±3/2``, so ``f`` changes.
    """
    Ws = [[list(row) for row in W] for W in net.weights]
    bs = [list(b) for b in net.biases]
    Ws[layer - 1].append([Fraction(1, k + 2) for k in range(len(Ws[layer - 1][0]))])
    bs[layer - 1].append(Fraction(1))
    for k, row in enumerate(Ws[layer]):
        row.append(Fraction(3, 2) * (1 if k % 2 == 0 else -1))
    return ReLUNetwork(Ws, bs)


def gaussian_network(widths, seed):
    """A random N(0, 1) network as the deep sample draws it (``benchmarks/survey_recovery.py``)."""
    rng = np.random.default_rng(seed)
    return ReLUNetwork(
        [rng.standard_normal((b, a)) for a, b in itertools.pairwise(widths)], [rng.standard_normal(b) for b in widths[1:]]
    )


def stably_active(net):
    """The hidden neurons ``(layer, index)`` positive on every region of the canonical complex."""
    regions = canonical_complex(net).regions()
    widths = net.architecture.hidden_widths
    found, offset = [], 0
    for layer, width in enumerate(widths, start=1):
        found += [(layer, j) for j in range(width) if all(R.signs[offset + j] > 0 for R in regions)]
        offset += width
    return found


def skip_fits(net, partial):
    """The fits of ``net``'s output over ``partial``'s skip features on every region (exact)."""
    regions = partial.complex.regions()
    fits = []
    for j in range(net.architecture.output_dim):
        blocks = []
        for R in regions:
            A, c = net.affine_map(net.signs(R.relative_interior_point()))
            blocks.append((partial.reduced(R), (c[j], *A[j])))
        fits.append(ExactNumerics().fit(blocks, regions, locate=False))
    return fits


def rebuilt_network(layers):
    return ReLUNetwork([[list(w) for w, _ in layer] for layer in layers], [[b for _, b in layer] for layer in layers])


def test_the_output_fit_adds_one_neuron_for_a_rank_one_skip():
    """The output layer on the true first layer and the last layer without its stable neuron, two flips planted.

    Both outputs read the stable neuron (weights 3/2 and -3/2): one neuron is added, positive (at least 1) at
    every vertex of every region, and the network computes ``f`` exactly.
    """
    net = with_stable_neuron(generic_network((2, 3, 3, 2), seed=1), 2)
    rows = [[(tuple(w), b) for w, b in zip(W, bias)] for W, bias in zip(net.weights, net.biases)]
    last = [(tuple(-v for v in w), -b) if i in (0, 2) else (w, b) for i, (w, b) in enumerate(rows[1][:-1])]
    partial = PartialNetwork(2, None, ExactNumerics())
    partial.layers.extend([rows[0], last])
    partial.rebuild()
    queries = Queries(network_oracle(net), 2, ExactNumerics(), 10**6)
    out, _ = fit_output(queries, partial, ExactNumerics())
    assert len(partial.layers[-1]) == 4 and len(out) == 2
    assert same_function(rebuilt_network(partial.layers + [out]), net).equal
    added = partial.layers[-1][-1]
    first = [(w, b) for w, b in rows[0]]
    for R in canonical_complex(ReLUNetwork([[list(w) for w, _ in first]], [[b for _, b in first]])).regions():
        for v in R.polyhedron.vertices():
            y = [max(row_value((b, *w), v), 0) for w, b in first]
            assert sum(a * h for a, h in zip(added[0], y)) + added[1] >= 1


@pytest.mark.parametrize("fixed", [{0: True}, {0: True, 1: False}, {1: True, 2: True}])
def test_the_stable_orientation_keeps_the_flips_fixed_elsewhere(fixed):
    """A family's side fixes its flip (``docs/recovery.md``): the orientation honours it, and still computes ``f``.

    With a stable neuron the orientation is no longer forced (it absorbs the flip terms), so any fixed flips
    can be met; the rows over the flipped layer and the added neuron reproduce the output's fit on every region.
    """
    net = with_stable_neuron(generic_network((2, 3, 3, 2), seed=1), 2)
    rows = [[(tuple(w), b) for w, b in zip(W, bias)] for W, bias in zip(net.weights, net.biases)]
    partial = PartialNetwork(2, None, ExactNumerics())
    partial.layers.extend([rows[0], rows[1][:-1]])
    partial.rebuild()
    partial.use_features(skip=True)
    flips, neurons, out = orientation.stable_orientation(partial, skip_fits(net, partial), StageFailed("no fit"), fixed=fixed)
    assert all(flips[i] == flip for i, flip in fixed.items())
    orientation.apply_flips(partial, flips)
    assert same_function(rebuilt_network([partial.layers[0], partial.layers[1] + neurons, out]), net).equal


@pytest.mark.parametrize(
    "architecture, seed",
    [((2, 3, 2, 1), 1), ((2, 3, 3, 1), 2)],
)
def test_a_stable_last_layer_neuron_is_added(architecture, seed):
    net = with_stable_neuron(generic_network(architecture, seed=seed), 2)
    assert stably_active(net) == [(2, len(net.weights[1]) - 1)]
    result = recover_network(network_oracle(net), 2, max_seconds=60)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)
    # the neuron read by the output only is there, positive on the whole plane
    assert [layer for layer, _ in stably_active(result.network)] == [2]


def test_a_stable_middle_layer_neuron_gives_the_same_function():
    net = with_stable_neuron(generic_network((2, 3, 3, 2, 1), seed=3), 2)
    result = recover_network(network_oracle(net), 2, max_seconds=60)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)


def test_a_wrong_bias_for_the_added_neuron_is_caught(monkeypatch):
    """The bias is a choice (any value keeping the neuron positive computes ``f``): a wrong one must never pass.

    With the least value of the skip part over the domain reported 100 too high, the added neuron is negative
    on part of the plane, so the candidate differs from ``f`` there; only the final check against the oracle
    can see that, and the answer must not be a different function.
    """
    net = with_stable_neuron(generic_network((2, 3, 2, 1), seed=1), 2)
    minimum = orientation._minimum

    def too_high(*args):
        low = minimum(*args)
        return None if low is None else low + 100

    monkeypatch.setattr(orientation, "_minimum", too_high)
    result = recover_network(network_oracle(net), 2, max_seconds=60)
    assert result.status == "undecided"
    assert result.network is None


@pytest.mark.slow
def test_a_random_network_of_the_deep_sample_with_a_stable_last_layer_neuron():
    """A random N(0, 1) 3→6→3→4→1 network whose fourth layer-3 neuron is positive everywhere: undecided before."""
    net = gaussian_network((3, 6, 3, 4, 1), 447701)
    assert stably_active(net) == [(3, 3)]
    result = recover_network(network_oracle(net), 3, max_seconds=120)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)


def test_a_stable_middle_layer_neuron_found_when_the_orientation_search_explains_nothing():
    """A random N(0, 1) 3→5→4→3→1 network (the deep sample's seed 105219) whose layer-2 neuron 0 is positive everywhere.

    No layer-3 formula is pinned down before layer 2 is oriented, and every orientation the search tries leaves
    the layer-3 traces inconsistent (they read layer 1 past layer 2): the search explains no neuron. Tracing
    over the skip features, which need no orientation, finds the neuron; before, recovery stalled there.
    """
    net = gaussian_network((3, 5, 4, 3, 1), 105219)
    assert (2, 0) in stably_active(net)
    result = recover_network(network_oracle(net), 3, max_seconds=120)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)
    assert [layer for layer, _ in stably_active(result.network)].count(2) >= 1


def test_a_stable_last_layer_neuron_beside_families_is_added():
    """A random N(0, 1) 2→5→3→4→1 network (the deep sample's seed 358750): layer-3 neuron 0 positive everywhere.

    The traced layer-3 neurons are families (their hypersurfaces miss some layer-2 zero sets), so the output
    must complete them; it also reads the positive neuron past the features. Either fit alone fails ("no
    orientation of the neurons whose hypersurface misses a previous-layer neuron fits f", undecided before);
    fitted together over the skip features and the families' columns, the network comes back.
    """
    net = gaussian_network((2, 5, 3, 4, 1), 358750)
    assert (3, 0) in stably_active(net)
    result = recover_network(network_oracle(net), 2, max_seconds=120)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)


def test_a_neuron_read_only_by_stable_neurons_is_oriented_by_the_output():
    """A random N(0, 1) 2→4→3→3→1 network (the deep sample's seed 904704): layer-3 neurons 0 and 1 positive everywhere.

    The one traced layer-3 neuron gives layer-2 neuron 1 no weight, so its orientation was chosen freely when
    layer 2 was oriented; the stable neurons read it, and the output fit over the skip features explains ``f``
    only in its true orientation (undecided before: "f bends ... where none of them does" while fitting the
    output). The output fit now tries the flips of such unread neurons.
    """
    net = gaussian_network((2, 4, 3, 3, 1), 904704)
    assert {(3, 0), (3, 1)} <= set(stably_active(net))
    result = recover_network(network_oracle(net), 2, max_seconds=120)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)


def test_a_family_over_the_skip_features_is_completed_through_carriers():
    """A random N(0, 1) 2→3→3→3→1 network (the deep sample's seed 657541): layer-2 neuron 2 and layer-3 neurons 0, 2 positive everywhere.

    The one visible layer-3 neuron lives where layer-2 neuron 0 is on, which recovery holds flipped: over the skip
    features its pieces leave the coefficient on that neuron free (a family), and the output reads the neuron in
    its true orientation and the stable layer-2 neuron through the stable layer-3 ones. Undecided before ("no
    orientation of layer 2 fits", then "f bends ... where none of them does"); with the family kept and the
    carriers of layer 1 in layer 2, the same function.
    """
    net = gaussian_network((2, 3, 3, 3, 1), 657541)
    assert {(2, 2), (3, 0), (3, 2)} <= set(stably_active(net))
    result = recover_network(network_oracle(net), 2, max_seconds=120)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)
    assert any(layer == 2 for layer, _ in stably_active(result.network))  # a carrier or a stable neuron passes layer 1 on


def test_a_family_free_where_a_last_layer_neuron_is_on_everywhere_is_kept():
    """A random N(0, 1) 3→3→4→3→1 network (the deep sample's seed 766036): layer-2 neuron 3 positive everywhere.

    Layer 3 is traced over the skip features. Along a layer-3 hypersurface where a layer-2 neuron is on
    everywhere, the pieces leave the weight on ``relu(-ẑ) = relu(ẑ) - ẑ`` free, not the weight on ``relu(ẑ)``;
    only families of the second kind were kept, so that layer-3 neuron was dropped (undecided, widths (3, 6, 2),
    "f bends ... where none of them does" while tracing layer 4). Kept in the second attempt, with the free
    direction written over the carriers of layer 1, the output completes it.
    """
    net = gaussian_network((3, 3, 4, 3, 1), 766036)
    assert (2, 3) in stably_active(net)
    result = recover_network(network_oracle(net), 3, max_seconds=120)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)
    assert result.layer_widths[-1] == 3


def test_a_family_free_where_a_neuron_is_on_everywhere_waits_for_the_second_attempt():
    """2→5→4→4→1 (the deep sample's seed 78354): such a family, kept at once, costs two layer-3 neurons.

    Its member's skip part is not the neuron's, so orienting layer 2 added three neurons for it (4 → 6, then 11
    with the carriers), and the oriented second pass over them pinned down none of the two layer-3 neurons it
    finds without the family: undecided after 119,495 queries, widths (5, 11, 2). The first attempt leaves the
    family out and recovers the network with its true widths.
    """
    net = gaussian_network((2, 5, 4, 4, 1), 78354)
    assert stably_active(net)
    result = recover_network(network_oracle(net), 2, max_seconds=120)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)
    assert result.layer_widths == (5, 4, 4)
    assert result.queries < 20_000  # the first attempt's: the second starts after the first has stalled


def test_a_formula_over_dependent_oriented_features_is_carried_by_the_basis():
    """``basis_vector`` writes a row over ``relu(z_i)`` and ``1`` on the feature basis, even where ``1`` is not in it.

    Layer 2 gets the carriers ``relu(y_k) + 1`` of layer 1 and a neuron positive everywhere,
    ``Σ_k relu(y_k)/(k + 2) + 1``: with them the constant is a combination of other columns and the pivot
    basis leaves it out (the oriented second pass gave up there and traced nothing). The coefficients on the
    basis must give the row's function on every region of the complex.
    """
    net = generic_network((2, 3, 3, 2), seed=1)
    first = [(tuple(w), b) for w, b in zip(net.weights[0], net.biases[0])]
    carriers = [(tuple(Fraction(int(k == i)) for k in range(3)), Fraction(1)) for i in range(3)]
    stable = (tuple(Fraction(1, k + 2) for k in range(3)), Fraction(1))
    partial = PartialNetwork(2, None, ExactNumerics())
    partial.layers.extend([first, [(tuple(w), b) for w, b in zip(net.weights[1], net.biases[1])] + [stable] + carriers])
    partial.rebuild(oriented=True)
    n = len(partial.layers[-1])
    assert n not in partial.basis  # the constant is carried by the carriers and the stable neuron
    rng = np.random.default_rng(5)
    for _ in range(5):
        w = tuple(Fraction(int(v)) for v in rng.integers(-3, 4, n))
        b = Fraction(int(rng.integers(-3, 4)))
        c = partial.basis_vector(w, b)
        for R in partial.complex.regions():
            rows = partial.features(R)
            assert [sum(c[p] * row[col] for p, col in enumerate(partial.basis)) for row in rows] == [
                sum(v * row[col] for col, v in enumerate((*w, b))) for row in rows
            ]


def with_passed_difference(net):
    """``net`` with two more neurons in hidden layer 2, ``relu(g)`` and ``relu(-g)`` for ``g = relu(y_0) - relu(y_1)``.

    The next layer reads them with weights ``3/2`` and ``-3/2``: ``3/2 g`` itself, which never bends ``f`` and
    is unbounded on both sides, so no single neuron positive on the whole plane can carry it.
    """
    Ws = [[list(row) for row in W] for W in net.weights]
    bs = [list(b) for b in net.biases]
    g = [Fraction(1), Fraction(-1)] + [Fraction(0)] * (len(Ws[0]) - 2)
    Ws[1] += [g, [-v for v in g]]
    bs[1] += [Fraction(0), Fraction(0)]
    for row in Ws[2]:
        row += [Fraction(3, 2), Fraction(-3, 2)]
    return ReLUNetwork(Ws, bs)


def test_a_skip_unbounded_on_both_sides_is_carried_by_a_pair_of_neurons():
    """``relu(g) - relu(-g) = g``: the orientation adds the pair when neither ``g`` nor ``-g`` is bounded below.

    Before the pair, every orientation failed here ("no fit"). The rows read the pair with opposite weights,
    and the network computes ``f`` exactly.
    """
    net = with_passed_difference(generic_network((2, 3, 3, 2), seed=1))
    rows = [[(tuple(w), b) for w, b in zip(W, bias)] for W, bias in zip(net.weights, net.biases)]
    partial = PartialNetwork(2, None, ExactNumerics())
    partial.layers.extend([rows[0], rows[1][:-2]])
    partial.rebuild()
    partial.use_features(skip=True)
    regions = partial.complex.regions()
    relus = {R.id: partial.previous_relu(R) for R in regions}
    g = (Fraction(1), Fraction(-1), Fraction(0))
    for sign in (1, -1):
        assert orientation._minimum(partial, regions, relus, tuple(sign * v for v in g)) is None
    flips, neurons, out = orientation.stable_orientation(partial, skip_fits(net, partial), StageFailed("no fit"))
    assert len(neurons) == 2 and neurons[0] == (tuple(-v for v in neurons[1][0]), 0) == (neurons[0][0], neurons[1][1])
    assert all(w[-2] == -w[-1] != 0 for w, _ in out)
    orientation.apply_flips(partial, flips)
    assert same_function(rebuilt_network([partial.layers[0], partial.layers[1] + neurons, out]), net).equal


@pytest.mark.parametrize(
    "architecture, seed",
    [((2, 3, 3, 1), 0), ((2, 3, 3, 1), 1), ((2, 3, 3, 2), 0), ((2, 3, 2, 1), 0), ((3, 3, 3, 1), 0)],
)
def test_a_network_reading_a_difference_past_a_layer_is_recovered(architecture, seed):
    """The next layer reads ``relu(y_0) - relu(y_1)`` through layer 2 (two neurons that never bend ``f``).

    Each case was undecided before the pair ("no 0/1 orientation of layer 2 fits the next layer's formulas",
    "no orientation of layer 2 explains ...", or a stalled output fit); now the same function, checked exactly.
    """
    net = with_passed_difference(generic_network(architecture, seed=seed))
    result = recover_network(network_oracle(net), architecture[0], max_seconds=60)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net).equal


def test_traces_over_the_skip_features_reuse_the_continuations_found_before(monkeypatch):
    # a continuation beyond a wall is a fact about f and the geometry, remembered by the sets the facet and region
    # are: the traces over the skip features cross the walls the oriented traces crossed before, and recomputed every
    # continuation while they kept no memo (3→5→6→6→1 of the deep sample, seed 888395: 18,728 of its 27,947
    # continuations, 6,333 of them distinct)
    computed, skip_traced = collections.Counter(), []
    real_continuation, real_skip = tracing._continue_across, skip_features.trace_over_skip_features

    def continuation(queries, partial, facet, region, h, numerics, hugging=False):
        computed[partial.cell_key(facet), partial.cell_key(region), tuple(h), hugging] += 1
        return real_continuation(queries, partial, facet, region, h, numerics, hugging)

    def skip_traces(*args, **kwargs):
        skip_traced.append(len(computed))
        return real_skip(*args, **kwargs)

    monkeypatch.setattr(tracing, "_continue_across", continuation)
    monkeypatch.setattr(next_layer, "trace_over_skip_features", skip_traces)
    monkeypatch.setattr(driver, "trace_over_skip_features", skip_traces)
    net = gaussian_network((2, 3, 3, 3, 1), 657541)  # a family over the skip features, as above
    result = recover_network(network_oracle(net), 2, max_seconds=120)
    assert result.status == "recovered", result.reason
    assert same_function(result.network, net)
    assert skip_traced and skip_traced[0] > 0  # traced over the skip features, after continuations were found
    assert max(computed.values()) == 1  # each computed once, whichever features the trace read
