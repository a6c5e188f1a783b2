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

from polyrelu import Box, ReLUNetwork, equivalent, identifiability_report, same_function
from polyrelu.examples import free_weight_network, generic_network

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


def test_two_hidden_layers_stay_locally_identifiable():
    # a Gaussian 3→7→3→2 network (benchmarks/identifiability_open.py) whose rank is D - H, outside both theorems
    rng = np.random.default_rng(744997)
    widths = [3, 7, 3, 2]
    net = ReLUNetwork([rng.standard_normal((b, a)) for a, b in zip(widths, widths[1:])],
                      [rng.standard_normal(b) for b in widths[1:]])
    report = identifiability_report(net)
    assert report.verdict == "locally identifiable (immersion)" and report.certificate == ()
    assert "2 hidden layers: the argument covers one" in report.evidence[-1]


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
