"""Identifiability settled from what recovery must see: exact second parameters, and the one-hidden-layer theorem.

The theorem of docs/theory.md: with one hidden layer, non-zero incoming and outgoing weights, pairwise distinct
hyperplanes that all cross the domain's interior, and no set of neurons whose flips cancel, every parameter
computing ``f`` is a permutation and positive scaling. The tests check it against a brute-force oracle: by the
proof, the only other candidates are flips of a set of neurons with the output bias adjusted, and
``same_function`` decides each of them exactly.
"""

import itertools
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyrelu import (
    Box,
    ReLUNetwork,
    canonical_complex,
    equivalent,
    identifiability_report,
    network_oracle,
    recover_network,
    same_function,
)
from polyrelu.examples import free_weight_network, generic_network
from polyrelu.identifiability._forced import two_hidden_layer_certificate
from polyrelu.identifiability._parameters import cancelling_subset

FORCED = "identifiable (recovery forced)"


def flipped(net, layer, subset):
    """``net`` with the neurons ``subset`` of hidden ``layer`` flipped, the next layer's bias adjusted (relu(z) = relu(-z) + z)."""
    Ws = [list(map(list, W)) for W in net.weights]
    bs = [list(b) for b in net.biases]
    for j in subset:
        Ws[layer - 1][j] = [-v for v in Ws[layer - 1][j]]
        bs[layer - 1][j] = -bs[layer - 1][j]
    bs[layer] = [b + sum(row[j] * net.biases[layer - 1][j] for j in subset) for b, row in zip(bs[layer], Ws[layer])]
    return ReLUNetwork(Ws, bs)


def keeps_f(net, other, domain=None):
    """Whether ``other`` computes ``net``'s function (``same_function``, exact)."""
    return bool(same_function(net, other, domain))


def flips_that_keep_f(net, layer=1, domain=None):
    """Every non-empty set of neurons of ``layer`` whose flip keeps ``f`` and is not a trivial symmetry (brute force).

    A flip can be a permutation: ``relu(x1)`` and ``relu(-x1)`` flipped together trade places.
    """
    n = net.architecture.hidden_widths[layer - 1]
    found = []
    for S in (S for k in range(1, n + 1) for S in itertools.combinations(range(n), k)):
        other = flipped(net, layer, S)
        if keeps_f(net, other, domain) and not equivalent(net, other):
            found.append(S)
    return found


def check_witness(net, report, domain=None):
    assert report.verdict == "not identifiable" and report.witness is not None
    assert report.witness.architecture == net.architecture
    assert same_function(net, report.witness, domain) and not equivalent(net, report.witness)


# -- identifiable (recovery forced) --------------------------------------------------------------------------


def test_three_concurrent_lines_are_identifiable_though_supertransversality_fails():
    net = ReLUNetwork([[[1, 0], [0, 1], [1, 1]], [[1, 2, 3]]], [[0, 0, 0], [0]])
    report = identifiability_report(net)
    assert not report.genericity.supertransversality.holds  # the theorem of Grillo & Montúfar does not apply
    assert report.verdict == FORCED and report.witness is None
    assert len(report.certificate) == 6 and "pairwise distinct" in report.certificate[4]
    assert flips_that_keep_f(net) == []  # the oracle: no other candidate computes f


def test_one_input_is_identifiable_when_no_flips_cancel():
    net = ReLUNetwork([[[1], [1], [-1]], [[1, 2, 5]]], [[0, -1, 2], [0]])  # breakpoints 0, 1, 2
    report = identifiability_report(net)
    assert not report.width_hypothesis and report.verdict == FORCED
    assert flips_that_keep_f(net) == []


def single_weight_perturbations(net, delta=Fraction(1, 7)):
    """``net`` with one weight or bias moved by ``delta``, for every parameter: none is a scaling direction."""
    for layer, (W, b) in enumerate(zip(net.weights, net.biases)):
        for i, row in enumerate(W):
            for j in range(len(row) + 1):
                Ws = [list(map(list, M)) for M in net.weights]
                bs = [list(v) for v in net.biases]
                if j < len(row):
                    Ws[layer][i][j] += delta
                else:
                    bs[layer][i] += delta
                yield (layer + 1, i, j), ReLUNetwork(Ws, bs)


@pytest.mark.parametrize("net", [
    ReLUNetwork([[[1, 0], [0, 1], [1, 1]], [[1, 2, 3]]], [[0, 0, 0], [0]]),
    ReLUNetwork([[[1], [1], [-1]], [[1, 2, 5]]], [[0, -1, 2], [0]]),
    ReLUNetwork([[[2], [1], [-3], [1]], [[1, 3, 2, 7]]], [[1, 0, -1, -2], [1]]),  # no subset of w·c sums to 0
])
def test_a_forced_verdict_survives_every_single_weight_perturbation(net):
    """If moving one parameter kept f, that parameter would be a second one, not trivially equivalent."""
    assert identifiability_report(net).verdict == FORCED
    kept = [where for where, moved in single_weight_perturbations(net) if keeps_f(net, moved)]
    assert kept == []


def test_cancelling_flips_give_an_exact_witness_and_no_certificate():
    # v·w over all three neurons: 1 + 2 - 3 = 0, so flipping all of them leaves an affine term the bias absorbs
    net = ReLUNetwork([[[1], [1], [-1]], [[1, 2, 3]]], [[0, -1, 2], [0]])
    report = identifiability_report(net)
    check_witness(net, report)
    assert "flipped" in report.evidence[-1] and report.certificate == ()
    assert flips_that_keep_f(net) == [(0, 1, 2)]


def test_parallel_lines_with_cancelling_flips_are_not_identifiable_though_the_four_conditions_hold():
    """relu(x1) + relu(1 - x1) + relu(x2) = relu(-x1) + relu(x1 - 1) + relu(x2) + 1."""
    net = ReLUNetwork([[[1, 0], [-1, 0], [0, 1]], [[1, 1, 1]]], [[0, 1, 0], [0]])
    report = identifiability_report(net)
    assert report.genericity.holds and report.width_hypothesis and report.functional_dimension.attains_bound
    check_witness(net, report)
    assert report.witness.biases[1] == (Fraction(1),)


def test_a_hyperplane_outside_the_domain_is_never_certified():
    net = ReLUNetwork([[[1, 0], [0, 1], [1, 1]], [[1, 2, 3]]], [[0, 0, 5], [0]])  # x1 + x2 + 5 > 0 on the box
    report = identifiability_report(net, Box(-1, 1))
    assert report.verdict != FORCED
    check_witness(net, report, Box(-1, 1))


def gaussian(widths, seed):
    """The N(0, 1) network of benchmarks/identifiability_open.py: weights, then biases, from ``default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    return ReLUNetwork([rng.standard_normal((b, a)) for a, b in zip(widths, widths[1:])],
                       [rng.standard_normal(b) for b in widths[1:]])


# three Gaussian networks with two hidden layers whose rank is D - H but which fail the four conditions
# (benchmarks/identifiability_open.py left them "locally identifiable")
TWO_LAYER_FORCED = [((2, 4, 5, 1), 851346), ((3, 5, 4, 1), 646876), ((3, 7, 3, 2), 744997)]
# and two whose last open family is closed by f's values, not by its pieces
CLOSED_BY_OUTPUT = [((2, 3, 3, 1), 96), ((3, 6, 7, 1), 59907)]


@pytest.mark.parametrize("widths, seed", TWO_LAYER_FORCED)
def test_two_hidden_layers_outside_the_conditions_are_recovery_forced(widths, seed):
    net = gaussian(widths, seed)
    report = identifiability_report(net)
    assert not report.genericity.holds  # the theorem of Grillo & Montúfar does not apply
    assert report.verdict == FORCED and report.witness is None
    assert "two hidden layers" in report.evidence[-1]
    assert "no set of at most" in report.certificate[3] and "one of θ's up to a factor" in report.certificate[-1]


@pytest.mark.parametrize("widths, seed", CLOSED_BY_OUTPUT)
def test_a_family_no_piece_closes_is_closed_by_the_output(widths, seed):
    net = gaussian(widths, seed)
    report = identifiability_report(net)
    assert report.verdict == FORCED and "whose open family f's values close" in report.certificate[-1]


@pytest.mark.parametrize("widths, seed", TWO_LAYER_FORCED + CLOSED_BY_OUTPUT)
def test_a_two_layer_forced_verdict_survives_every_single_weight_perturbation(widths, seed):
    net = gaussian(widths, seed)
    kept = [where for where, moved in single_weight_perturbations(net) if keeps_f(net, moved)]
    assert kept == []


def test_recovery_of_a_two_layer_forced_network_can_only_be_trivially_equivalent():
    """Any network of the architecture computing f is θ up to symmetry: recovery's answer must be, too."""
    net = gaussian((2, 4, 5, 1), 851346)
    result = recover_network(network_oracle(net), 2, seed=0, max_seconds=120)
    assert result.network is not None and same_function(net, result.network)
    assert equivalent(net, result.network)


def _two_layer_certificate(net):
    K = canonical_complex(net)
    return two_hidden_layer_certificate(K, [cancelling_subset(net, layer) for layer in (1, 2)])


def test_no_network_with_a_witness_gets_the_two_layer_certificate():
    """Two independent answers: the exact second parameters of the report, and the certificate."""
    verdicts = []
    for seed in range(24):
        widths = (2 + seed % 2, 3 + seed % 3, 2 + seed % 4, 1)
        net = gaussian(widths, seed)
        report = identifiability_report(net)
        holds, lines = _two_layer_certificate(net)
        verdicts.append((report.verdict, holds))
        if report.verdict == "not identifiable":
            check_witness(net, report)
            assert not holds, (widths, seed, lines)
        if report.verdict == FORCED:
            assert holds and report.certificate == lines
            assert not any(keeps_f(net, moved) for _, moved in single_weight_perturbations(net))
    assert any(v == "not identifiable" for v, _ in verdicts) and any(holds for _, holds in verdicts)


@pytest.mark.parametrize("widths, seed", [
    ((2, 8, 6, 1), 895366), ((3, 7, 3, 1), 215502), ((2, 6, 5, 1), 621212), ((2, 8, 7, 1), 523168),
    ((3, 6, 3, 1), 51), ((3, 6, 6, 1), 95), ((3, 6, 3, 1), 147),
])
def test_networks_with_a_witness_that_reach_the_second_layer_are_refused_there(widths, seed):
    """Gaussian networks whose first layer is forced, not their second (the last three: one open family, which
    f's values cannot close since its neuron is not positive beyond the open hyperplanes)."""
    net = gaussian(widths, seed)
    check_witness(net, identifiability_report(net))
    holds, lines = _two_layer_certificate(net)
    assert not holds and "no set of at most" in lines[-2]


def test_the_two_layer_certificate_names_what_fails():
    one_input = ReLUNetwork([[[1], [-1], [2]], [[1, 1, 0], [0, 1, -1]], [[1, 1]]], [[0, 1, -1], [0, 0], [0]])
    assert _two_layer_certificate(one_input) == (False, ("one input: the first layer is read at cells of codimension "
                                                        "2, and there are none",))
    assert _two_layer_certificate(gaussian((2, 3, 3, 3, 1), 0)) == (False, ("3 hidden layers: the argument covers two",))
    # a Gaussian 2→8→5→1 network: one first-layer line meets the second layer's bent lines only where other
    # first-layer lines pass too, so a set of lines without it covers every point where f's bends are not flat
    holds, lines = _two_layer_certificate(gaussian((2, 8, 5, 1), 683244))
    assert not holds and "the hyperplane of neuron 2 of layer 1 holds only 0" in lines[-1]
    # each later step refuses a Gaussian network of benchmarks/identifiability_open.py with an exact witness
    refused = {
        ((2, 7, 3, 2), 16347): "7 hyperplanes cover the 21 flats where f's bending locus is not a union of hyperplanes "
                               "without the hyperplane of neuron 0 of layer 1",
        ((2, 3, 8, 1), 324504): "neuron(s) [1] of layer 2 bend f on no hyperplane piece of their own",
        ((2, 6, 5, 1), 621212): "only 4 of the 5 second-layer neurons of another parameter are pinned",
        ((3, 7, 3, 1), 215502): "second-layer neurons whose family relu(±z_i) terms no piece of f excludes",
    }
    for (widths, seed), line in refused.items():
        net = gaussian(widths, seed)
        check_witness(net, identifiability_report(net))
        holds, lines = _two_layer_certificate(net)
        assert not holds and line in lines[-1], (widths, seed, lines[-1])
    # the flips of two second-layer neurons cancel (the network of the test on flips in the second layer)
    base = generic_network((2, 3, 2, 1), seed=6)
    W1, W2, W3 = base.weights
    b1, b2, b3 = base.biases
    net = ReLUNetwork([W1, [W2[0], [-v for v in W2[0]]], [[W3[0][0], W3[0][0]]]], [b1, [b2[0], b2[1]], b3])
    assert _two_layer_certificate(net) == (False, ("the flips of neurons [0, 1] of layer 2 cancel",))


@settings(max_examples=25, deadline=None)
@given(n0=st.integers(1, 2), width=st.integers(1, 4), data=st.data())
def test_the_verdict_agrees_with_the_brute_force_over_flips(n0, width, data):
    entry = st.integers(-2, 2)
    W1 = [[data.draw(entry) for _ in range(n0)] for _ in range(width)]
    b1 = [data.draw(entry) for _ in range(width)]
    v = [data.draw(entry) for _ in range(width)]
    net = ReLUNetwork([W1, [v]], [b1, [0]])
    report = identifiability_report(net)
    if report.verdict == "not identifiable":
        check_witness(net, report)
    if report.verdict == FORCED:
        assert flips_that_keep_f(net) == []
    elif flips_that_keep_f(net):
        assert report.verdict == "not identifiable"


# -- weights that no hypersurface and no output sees, flips in deeper layers -----------------------------------


def test_a_weight_into_a_neuron_off_wherever_its_source_is_on_moves_freely():
    net = free_weight_network(-1)
    report = identifiability_report(net)
    check_witness(net, report)
    assert "seen by no hypersurface and no output" in report.evidence[-1]
    moved = [(a, b) for a, b in zip(net.parameters(), report.witness.parameters()) if a != b]
    assert moved == [(-1, -2)]  # the weight from (1, 2) into (2, 0), lowered by 1


def test_flips_in_the_second_layer_are_absorbed_by_the_output_bias():
    base = generic_network((2, 3, 2, 1), seed=6)
    W1, W2, W3 = base.weights
    b1, b2, b3 = base.biases
    # the second neuron of layer 2 reads minus the first one's row; equal output weights make the flips cancel
    net = ReLUNetwork([W1, [W2[0], [-v for v in W2[0]]], [[W3[0][0], W3[0][0]]]], [b1, [b2[0], b2[1]], b3])
    report = identifiability_report(net)
    check_witness(net, report)
    assert flips_that_keep_f(net, 2) == [(0, 1)]


def test_a_generic_network_gets_no_new_witness():
    net = generic_network((2, 3, 2, 1), seed=2)
    report = identifiability_report(net)
    assert report.verdict == "identifiable (theorem conditions hold)"
    assert all(flips_that_keep_f(net, layer) == [] for layer in (1, 2))


# -- cancelling flips among many neurons ------------------------------------------------------------------------


def _wide_gaussian_with_a_cancelling_pair(width, seed=1):
    """relu(x1) + relu(1 - x1) + ``width - 2`` Gaussian neurons, all into one output with weight 1."""
    rng = np.random.default_rng(seed)
    W = [[1, 0], [-1, 0]] + rng.standard_normal((width - 2, 2)).tolist()
    b = [0, 1] + rng.standard_normal(width - 2).tolist()
    return ReLUNetwork([W, [[1] * width]], [b, [0]])


def test_a_cancelling_pair_among_twenty_neurons_is_found_though_the_four_conditions_hold():
    """The null space has 18 free columns, beyond the echelon search: the search over halves finds the pair."""
    net = _wide_gaussian_with_a_cancelling_pair(20)
    report = identifiability_report(net)
    assert report.genericity.holds and report.functional_dimension.attains_bound  # the theorem's conditions hold
    check_witness(net, report)
    assert "(1, 0), (1, 1) flipped" in report.evidence[-1]


def test_without_a_decided_flip_search_the_theorem_verdict_is_not_given():
    """Fifty neurons into two inputs and one output: the flip search is not made, so nothing beyond local."""
    net = _wide_gaussian_with_a_cancelling_pair(50, seed=3)
    net = ReLUNetwork([net.weights[0][2:], [[1] * 48]], [net.biases[0][2:], [0]])  # generic: no pair planted
    report = identifiability_report(net)
    assert report.genericity.holds and report.functional_dimension.attains_bound
    assert report.verdict == "locally identifiable (immersion)"
    assert any("were not searched for in layer(s) [1]" in line for line in report.evidence)


@settings(max_examples=30, deadline=None)
@given(n0=st.integers(1, 3), m=st.integers(1, 2), width=st.integers(2, 9), data=st.data())
def test_the_search_over_halves_agrees_with_the_echelon_search(n0, m, width, data):
    """Two independent exact methods on the same small layers: the same decision and the same smallest size."""
    from unittest import mock

    from polyrelu.identifiability import _parameters

    entry = st.integers(-2, 2)
    W1 = [[data.draw(entry) for _ in range(n0)] for _ in range(width)]
    V = [[data.draw(entry) for _ in range(width)] for _ in range(m)]
    net = ReLUNetwork([W1, V], [[0] * width, [0] * m])
    decided, by_echelon = _parameters.cancelling_subset(net, 1)
    with mock.patch.object(_parameters, "MAX_FREE_FLIPS", 0):  # every null space goes to the search over halves
        decided_halves, by_halves = _parameters.cancelling_subset(net, 1)
    assert decided and decided_halves
    assert (by_echelon is None) == (by_halves is None)
    if by_halves is not None:
        assert len(by_halves) == len(by_echelon)
        assert not any(
            sum(V[r][j] * W1[j][c] for j in by_halves) for r in range(m) for c in range(n0)
        )  # the found set cancels, exactly
        assert same_function(net, flipped(net, 1, by_halves))
