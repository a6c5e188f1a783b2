"""Trivial symmetries of ReLU networks: neuron permutations and positive scalings.

Permuting the neurons of a hidden layer, or scaling neuron ``(l, i)`` by
``λ > 0`` (its incoming row and bias times ``λ``, its outgoing column divided
by ``λ``), never changes the function (DESIGN §1). This module applies these
actions exactly and decides whether two networks differ only by them, through
a canonical representative of each orbit.
"""

import itertools
from fractions import Fraction

from .errors import ShapeError, SymmetryError
from .geometry.rational import to_fraction
from .network import ReLUNetwork

__all__ = ["scale", "permute", "canonical_form", "equivalent"]


def _check_layers(net, values, what):
    widths = net.architecture.hidden_widths
    values = [list(v) for v in values]
    if len(values) != len(widths):
        raise ShapeError(f"{what}: expected one entry per hidden layer ({len(widths)}), got {len(values)}")
    for l, (v, n) in enumerate(zip(values, widths), start=1):
        if len(v) != n:
            raise ShapeError(f"{what}: hidden layer {l} has {n} neurons, got {len(v)} entries")
    return values


def scale(net, factors):
    """Scale every hidden neuron by a positive rational factor.

    Parameters
    ----------
    net : ReLUNetwork
    factors : sequence of sequences
        ``factors[l-1][i] = λ > 0`` for neuron ``(l, i)``.

    Returns
    -------
    ReLUNetwork
        Row ``i`` of ``Wl`` and ``bl[i]`` multiplied by ``λ``, column ``i`` of
        ``W{l+1}`` divided by ``λ``; the same function.

    Raises
    ------
    SymmetryError
        A factor that is not positive.

    Examples
    --------
    >>> net = ReLUNetwork.random((2, 2, 1), seed=3)
    >>> scaled = scale(net, [[2, "1/3"]])
    >>> scaled([1, -2]) == net([1, -2]), scaled == net
    (True, False)
    """
    factors = _check_layers(net, factors, "scale factors")
    Ws = [list(list(r) for r in W) for W in net.weights]
    bs = [list(b) for b in net.biases]
    for l, layer in enumerate(factors):
        for i, lam in enumerate(layer):
            lam = to_fraction(lam, f"scale factor [{l}][{i}]")
            if lam <= 0:
                raise SymmetryError(f"scale factor for neuron ({l + 1}, {i}) is {lam}; it must be positive")
            Ws[l][i] = [v * lam for v in Ws[l][i]]
            bs[l][i] *= lam
            for row in Ws[l + 1]:
                row[i] /= lam
    return ReLUNetwork(Ws, bs, name=net.name)


def permute(net, permutations):
    """Reorder the neurons of every hidden layer.

    Parameters
    ----------
    net : ReLUNetwork
    permutations : sequence of sequences
        ``permutations[l-1][j]`` is the old index of the neuron that becomes
        neuron ``j`` of hidden layer ``l``.

    Raises
    ------
    SymmetryError
        An entry that is not a permutation of ``0 .. n_l - 1``.

    Examples
    --------
    >>> net = ReLUNetwork.random((2, 3, 1), seed=3)
    >>> swapped = permute(net, [[2, 0, 1]])
    >>> swapped.weights[0][0] == net.weights[0][2], swapped([1, 5]) == net([1, 5])
    (True, True)
    """
    permutations = _check_layers(net, permutations, "permutations")
    Ws = [list(W) for W in net.weights]
    bs = [list(b) for b in net.biases]
    for l, perm in enumerate(permutations):
        if sorted(perm) != list(range(len(perm))):
            raise SymmetryError(f"permutations[{l}] = {perm} is not a permutation of 0..{len(perm) - 1}")
        _apply_permutation(Ws, bs, l, perm)
    return ReLUNetwork(Ws, bs, name=net.name)


def _apply_permutation(Ws, bs, l, perm):
    """Permute hidden layer ``l`` (0-based) in place: its rows and the next layer's columns."""
    Ws[l] = [Ws[l][p] for p in perm]
    bs[l] = [bs[l][p] for p in perm]
    Ws[l + 1] = [[row[p] for p in perm] for row in Ws[l + 1]]


def _normalize_layer(Ws, bs, l):
    """Scale hidden layer ``l`` (0-based) in place so each ``(Wl[i], bl[i])`` starts with ±1.

    A neuron whose incoming row and bias are all zero is constant; its scale
    acts only on its outgoing column, so that column is scaled to largest
    absolute entry 1 instead (a choice that does not depend on the order of
    the next layer, which is not fixed yet).
    """
    for i in range(len(Ws[l])):
        pivot = next((v for v in (*Ws[l][i], bs[l][i]) if v), None)
        if pivot is not None:
            lam = 1 / abs(pivot)
        else:
            lam = max((abs(row[i]) for row in Ws[l + 1]), default=Fraction(0)) or Fraction(1)
        Ws[l][i] = [v * lam for v in Ws[l][i]]
        bs[l][i] *= lam
        for row in Ws[l + 1]:
            row[i] /= lam


def _sorted_orderings(Ws, bs, l):
    """Every order of hidden layer ``l`` that sorts its incoming rows, ties in all ways."""
    keys = [(tuple(Ws[l][i]), bs[l][i]) for i in range(len(Ws[l]))]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    groups = [list(g) for _, g in itertools.groupby(order, key=keys.__getitem__)]
    for choice in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [i for g in choice for i in g]


def canonical_form(net, max_tie_orders=100_000):
    """The canonical representative of the network's trivial-symmetry orbit.

    Layer by layer from the input, each hidden neuron is scaled so that its
    incoming row ``(Wl[i], bl[i])`` has first non-zero entry ``±1``, then the
    layer's neurons are sorted lexicographically by that row (DESIGN §1). Neurons with equal rows (twins) can be ordered in several
    ways; the one giving the lexicographically smallest parameter vector is
    chosen, so the result depends on the orbit only.

    Parameters
    ----------
    net : ReLUNetwork
    max_tie_orders : int
        Bound on the number of twin orderings explored.

    Raises
    ------
    SymmetryError
        More twin orderings than ``max_tie_orders``.

    Examples
    --------
    >>> net = ReLUNetwork([[[2, 0], [0, -3]], [[1, 1]]], [[4, 3], [0]])
    >>> canon = canonical_form(net)
    >>> canon.weights[0], canon.biases[0], canon.weights[1]
    (((Fraction(0, 1), Fraction(-1, 1)), (Fraction(1, 1), Fraction(0, 1))), (Fraction(1, 1), Fraction(2, 1)), ((Fraction(3, 1), Fraction(2, 1)),))
    """
    Ws = [[list(r) for r in W] for W in net.weights]
    bs = [list(b) for b in net.biases]
    depth = net.architecture.depth
    best = None
    explored = 0

    def search(Ws, bs, l):
        nonlocal best, explored
        if l == depth:
            explored += 1
            if explored > max_tie_orders:
                raise SymmetryError(
                    f"more than {max_tie_orders} orderings of twin neurons; raise max_tie_orders to continue"
                )
            candidate = tuple(tuple(map(tuple, W)) for W in Ws), tuple(map(tuple, bs))
            if best is None or _flat(candidate) < _flat(best):
                best = candidate
            return
        Ws = [[list(r) for r in W] for W in Ws]
        bs = [list(b) for b in bs]
        _normalize_layer(Ws, bs, l)
        for perm in _sorted_orderings(Ws, bs, l):
            Ws2 = list(Ws)
            bs2 = list(bs)
            _apply_permutation(Ws2, bs2, l, perm)
            search(Ws2, bs2, l + 1)

    search(Ws, bs, 0)
    return ReLUNetwork(best[0], best[1], name=net.name)


def _flat(layers):
    Ws, bs = layers
    return tuple(v for W, b in zip(Ws, bs) for v in (*(x for row in W for x in row), *b))


def equivalent(a, b):
    """Whether two networks differ only by permutations and positive scalings (exact).

    Examples
    --------
    >>> net = ReLUNetwork.random((2, 3, 2, 1), seed=5)
    >>> other = permute(scale(net, [[1, 2, 3], ["1/2", 7]]), [[1, 2, 0], [1, 0]])
    >>> equivalent(net, other)
    True
    >>> theta = list(net.parameters()); theta[0] += 1
    >>> equivalent(net, ReLUNetwork.from_parameters(net.architecture, theta))
    False
    """
    if a.architecture != b.architecture:
        return False
    return canonical_form(a) == canonical_form(b)
