"""Second parameters computing the same function as a network's, not trivially equivalent to it.

This is an internal module of :mod:`polyrelu.identifiability`:
:func:`second_parameter` is its named API, used by
:mod:`polyrelu.identifiability.verdicts` for the verdict ``"not identifiable"``.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from ..network import ReLUNetwork
from ..symmetry import equivalent, same_function
from ._parameters import positive_ratio

__all__ = ["second_parameter"]


def second_parameter(network, K, kernel, domain, flips):
    """``(how, network')`` computing the same function, not trivially equivalent; or None.

    ``flips[l - 1]`` is :func:`~polyrelu.identifiability._parameters.cancelling_subset` of hidden layer ``l``,
    computed once by the caller, which needs it too.

    Candidates, each checked exactly: the hidden symmetries that single neurons
    show on the complex (a neuron never active: double its outgoing weights; a
    neuron whose outgoing weights vanish: shift its bias; a neuron active on
    every region: raise its bias and take the shift off the next layer's biases;
    twins: move outgoing weight from one to the other); then a weight that
    neither a hypersurface nor the output sees (from neuron ``i`` into a neuron
    ``j`` of the next layer that is off on every region where ``i`` is on:
    lowering it keeps ``j`` off there and changes nothing elsewhere); then
    neurons of one layer whose flips the next layer's biases absorb
    (``flips``); then
    steps ``θ + t·k`` along the exact kernel directions beyond scaling.
    """
    def attempts():
        arch = network.architecture
        signs = [r.signs for r in K.regions()]
        for k, (l, i) in enumerate(arch.hidden_neurons()):
            Ws = [list(map(list, W)) for W in network.weights]
            bs = [list(b) for b in network.biases]
            if all(s[k] <= 0 for s in signs):
                for row in Ws[l]:
                    row[i] *= 2
                yield f"neuron {(l, i)} is never active: its outgoing weights doubled", Ws, bs
            elif not any(row[i] for row in Ws[l]):
                bs[l - 1][i] -= 1
                yield f"neuron {(l, i)} has no outgoing weight: its bias lowered by 1", Ws, bs
            elif all(s[k] > 0 for s in signs):
                bs[l - 1][i] += 1
                bs[l] = [b - row[i] for b, row in zip(bs[l], Ws[l])]
                yield f"neuron {(l, i)} is active on every region: its bias raised by 1, the next layer compensates", Ws, bs
            W, b = network.layers[l - 1]
            for j in range(arch.hidden_widths[l - 1]):
                ratio = positive_ratio((b[i], *W[i]), (b[j], *W[j])) if j != i else None
                if ratio is not None:
                    Ws2 = [list(map(list, W_)) for W_ in network.weights]
                    for row in Ws2[l]:
                        row[i] += 1
                        row[j] -= ratio
                    yield f"neurons {(l, i)} and {(l, j)} are twins: outgoing weight moved between them", Ws2, bs
        index = {neuron: k for k, neuron in enumerate(arch.hidden_neurons())}
        for l in range(2, len(arch.hidden_widths) + 1):
            for j, i in itertools.product(range(arch.hidden_widths[l - 1]), range(arch.hidden_widths[l - 2])):
                on = [s for s in signs if s[index[l - 1, i]] > 0]
                if on and all(s[index[l, j]] <= 0 for s in on):
                    Ws = [list(map(list, W)) for W in network.weights]
                    Ws[l - 1][j][i] -= 1
                    yield (f"the weight from {(l - 1, i)} into {(l, j)} is seen by no hypersurface and no output "
                           f"({(l, j)} is off wherever {(l - 1, i)} is on): lowered by 1"), Ws, network.biases
        for l, (_, flipped) in enumerate(flips, start=1):
            if flipped:
                Ws = [list(map(list, W)) for W in network.weights]
                bs = [list(b) for b in network.biases]
                for j in flipped:
                    Ws[l - 1][j] = [-v for v in Ws[l - 1][j]]
                    bs[l - 1][j] = -bs[l - 1][j]
                bs[l] = [b + sum(row[j] * network.biases[l - 1][j] for j in flipped) for b, row in zip(bs[l], Ws[l])]
                neurons = ", ".join(str((l, j)) for j in flipped)
                yield (f"neurons {neurons} flipped (relu(z) = relu(-z) + z): their linear parts cancel in the next layer, "
                       "whose biases take up the rest"), Ws, bs
        theta = network.parameters()
        for n, direction in enumerate(kernel):
            for step in (Fraction(1, 64), Fraction(-1, 64), Fraction(1, 4096)):
                moved = ReLUNetwork.from_parameters(network.architecture, [a + step * d for a, d in zip(theta, direction)])
                yield f"θ + {step}·k{n}, k{n} an exact kernel direction beyond scaling", moved.weights, moved.biases

    for how, Ws, bs in attempts():
        other = ReLUNetwork(Ws, bs, name=f"{network.name or 'network'}, {how}")
        if same_function(network, other, domain) and not equivalent(network, other):
            return how, other
    return None
