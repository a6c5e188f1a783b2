"""Trivial symmetries of ReLU networks, and exact equality of the functions networks compute.

Permuting the neurons of a hidden layer, or scaling neuron ``(l, i)`` by
``λ > 0`` (its incoming row and bias times ``λ``, its outgoing column divided
by ``λ``), never changes the function (docs/design.md §1). This module applies these
actions exactly and decides whether two networks differ only by them, through
a canonical representative of each orbit. :func:`same_function` decides the
weaker question, whether two networks (of any architectures with the same
input and output widths) compute the same function, from the affine maps of
their difference on a common refinement of their complexes.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass

from .checks import (
    describe,
    is_sequence,
    require_instance,
    require_int,
    require_sequence,
)
from .complex import canonical_complex
from .domain import Box
from .errors import ShapeError, SymmetryError
from .geometry import Polyhedron
from .geometry.rational import FractionVector, MatrixLike, RationalLike, to_fraction
from .network import ReLUNetwork

__all__ = ["scale", "permute", "canonical_form", "equivalent", "difference_network", "same_function", "FunctionComparison"]


def _check_layers(net, values, name, caller):
    """``values`` as one list per hidden layer of ``net``, one entry per neuron; else a ShapeError naming ``name``."""
    widths = net.architecture.hidden_widths
    values = require_sequence(values, name, caller)
    if len(values) != len(widths):
        raise ShapeError(f"{caller}: {name}: expected one entry per hidden layer ({len(widths)}), got {len(values)}")
    for l, v in enumerate(values):
        if not is_sequence(v):
            raise ShapeError(f"{caller}: {name}[{l}] is {describe(v)}; expected one sequence per hidden layer ({len(widths)} in all)")
    values = [list(v) for v in values]
    for l, (v, n) in enumerate(zip(values, widths), start=1):
        if len(v) != n:
            raise ShapeError(f"{caller}: {name}: hidden layer {l} has {n} neurons, got {len(v)} entries")
    return values


def scale(net: ReLUNetwork, factors: Sequence[Sequence[RationalLike]]) -> ReLUNetwork:
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
    require_instance(net, ReLUNetwork, "net", "scale")
    factors = _check_layers(net, factors, "factors", "scale")
    Ws = [list(list(r) for r in W) for W in net.weights]
    bs = [list(b) for b in net.biases]
    for l, layer in enumerate(factors):
        for i, lam in enumerate(layer):
            where = f"scale: factors[{l}][{i}] (the scale factor of neuron ({l + 1}, {i}))"
            lam = to_fraction(lam, where)
            if lam <= 0:
                raise SymmetryError(f"{where} is {lam}; it must be positive")
            Ws[l][i] = [v * lam for v in Ws[l][i]]
            bs[l][i] *= lam
            for row in Ws[l + 1]:
                row[i] /= lam
    return ReLUNetwork(Ws, bs, name=net.name)


def permute(net: ReLUNetwork, permutations: Sequence[Sequence[int]]) -> ReLUNetwork:
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
    require_instance(net, ReLUNetwork, "net", "permute")
    permutations = _check_layers(net, permutations, "permutations", "permute")
    Ws = [list(W) for W in net.weights]
    bs = [list(b) for b in net.biases]
    for l, perm in enumerate(permutations):
        integral = all(isinstance(p, numbers.Integral) and not isinstance(p, bool) for p in perm)
        if not integral or sorted(perm) != list(range(len(perm))):
            raise SymmetryError(f"permutations[{l}] = {perm} is not a permutation of 0..{len(perm) - 1}")
        _apply_permutation(Ws, bs, l, perm)
    return ReLUNetwork(Ws, bs, name=net.name)


def _apply_permutation(Ws, bs, l, perm):
    """Permute hidden layer ``l`` (0-based) in place: its rows and the next layer's columns."""
    Ws[l] = [Ws[l][p] for p in perm]
    bs[l] = [bs[l][p] for p in perm]
    Ws[l + 1] = [[row[p] for p in perm] for row in Ws[l + 1]]


def _scale_neuron(Ws, bs, l, i, lam):
    """Scale neuron ``(l + 1, i)`` (0-based layer ``l``) by ``lam`` in place."""
    Ws[l][i] = [v * lam for v in Ws[l][i]]
    bs[l][i] *= lam
    for row in Ws[l + 1]:
        row[i] /= lam


def _liveness(Ws, bs, depth):
    """Per hidden layer (0-based), which neurons are live.

    A neuron is live if its bias is non-zero or it has a non-zero weight from
    a live neuron (inputs are live). A neuron that is not live has
    pre-activation 0 everywhere. Liveness depends only on where the zero
    entries are, so scalings keep it and permutations move it along.
    """
    live, prev = [], None
    for l in range(depth):
        flags = [
            bool(bs[l][i]) or any(v and (prev is None or prev[k]) for k, v in enumerate(Ws[l][i]))
            for i in range(len(Ws[l]))
        ]
        live.append(flags)
        prev = flags
    return live


def _normalize_layer(Ws, bs, l, live):
    """Scale the live neurons of hidden layer ``l`` (0-based) in place.

    Each live neuron is scaled so that the first non-zero entry of its
    incoming row ``(Wl[i], bl[i])`` outside the columns of neurons that are
    not live is ``±1`` (with every neuron live, the rule of docs/design.md §1). The
    scales of neurons that are not live are fixed by :func:`_fix_not_live`
    once every layer is ordered.
    """
    prev = live[l - 1] if l else None
    for i in range(len(Ws[l])):
        if live[l][i]:
            pivot = next((v for k, v in enumerate(Ws[l][i]) if v and (prev is None or prev[k])), None) or bs[l][i]
            _scale_neuron(Ws, bs, l, i, 1 / abs(pivot))


def _fix_not_live(Ws, bs, depth, live):
    """Fix the scales of the neurons that are not live, in place, once all layers are ordered.

    Such a neuron has zero bias and non-zero weights only from neurons that
    are not live, so its scale is tied to the rest of the network through its
    outgoing column or through other such neurons. In rounds, every such
    neuron adjacent to a fixed neuron (live ones, the inputs, the outputs and
    those fixed in earlier rounds) is scaled so that its largest outgoing
    weight to fixed neurons, or else its largest incoming weight from fixed
    neurons, has absolute value 1. A group touching no fixed neuron is
    started at its first neuron in the canonical order: the group's common
    scale changes no parameter, and every order of the tied neurons is
    explored by :func:`canonical_form`.
    """
    todo = [(l, i) for l in range(depth) for i in range(len(Ws[l])) if not live[l][i]]
    fixed = set()

    def is_fixed(l, i):
        return l < 0 or l >= depth or live[l][i] or (l, i) in fixed

    while todo:
        scales = {}
        for l, i in todo:
            out = max((abs(row[i]) for j, row in enumerate(Ws[l + 1]) if is_fixed(l + 1, j)), default=0)
            inc = max((abs(v) for k, v in enumerate(Ws[l][i]) if is_fixed(l - 1, k)), default=0)
            if out or inc:
                scales[(l, i)] = out if out else 1 / inc
        if not scales:
            scales = {todo[0]: 1}
        for (l, i), lam in scales.items():
            _scale_neuron(Ws, bs, l, i, lam)
        fixed.update(scales)
        todo = [v for v in todo if v not in scales]


def _tie_groups(Ws, bs, l, live):
    """Hidden layer ``l``'s neurons sorted by incoming row, as groups of equal rows (ties).

    Every order of the layer that sorts its rows is one permutation per group.

    In columns of neurons that are not live only the sign of an entry enters
    the sort key (their scale is fixed only later), so rows equal elsewhere
    are ties.
    """
    prev = live[l - 1] if l else None
    keys = [
        (tuple(v if prev is None or prev[k] else (v > 0) - (v < 0) for k, v in enumerate(Ws[l][i])), bs[l][i])
        for i in range(len(Ws[l]))
    ]
    order = sorted(range(len(keys)), key=keys.__getitem__)
    return [list(g) for _, g in itertools.groupby(order, key=keys.__getitem__)]


def _orderings(groups):
    """Concatenations of one permutation per group, generated lazily.

    ``itertools.product`` would first materialise every permutation of every
    group (13 twins: 6 billion tuples); this yields them one at a time, so the
    caller's limit on explored orderings is reached before anything large exists.
    """
    if not groups:
        yield []
        return
    first, rest = groups[0], groups[1:]
    for head in itertools.permutations(first):
        for tail in _orderings(rest):
            yield [*head, *tail]


def canonical_form(net: ReLUNetwork, max_tie_orders: int = 100_000) -> ReLUNetwork:
    """The canonical representative of the network's trivial-symmetry orbit.

    Layer by layer from the input, each hidden neuron is scaled so that its
    incoming row ``(Wl[i], bl[i])`` has first non-zero entry ``±1``, then the
    layer's neurons are sorted lexicographically by that row (docs/design.md §1). Neurons with equal rows (twins) can be ordered in several
    ways; the one giving the lexicographically smallest parameter vector is
    chosen, so the result depends on the orbit only.

    Neurons whose pre-activation is 0 by construction (zero bias, non-zero
    weights only from such neurons, for example an all-zero incoming row) are
    the exception: their incoming row cannot fix their scale. Their columns
    are left out of the pivots of the next layer and enter its sort keys by
    sign only, and their scales are fixed through their outgoing weights once
    every layer is ordered (see ``_fix_not_live``).

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
    require_instance(net, ReLUNetwork, "net", "canonical_form")
    max_tie_orders = require_int(max_tie_orders, "max_tie_orders", "canonical_form", minimum=1)
    Ws = [[list(r) for r in W] for W in net.weights]
    bs = [list(b) for b in net.biases]
    depth = net.architecture.depth
    best = None
    explored = 0

    def search(Ws, bs, l):
        nonlocal best, explored
        Ws = [[list(r) for r in W] for W in Ws]
        bs = [list(b) for b in bs]
        live = _liveness(Ws, bs, depth)
        if l == depth:
            _fix_not_live(Ws, bs, depth, live)
            explored += 1
            if explored > max_tie_orders:
                raise SymmetryError(
                    f"more than {max_tie_orders} orderings of twin neurons; raise max_tie_orders to continue"
                )
            candidate = tuple(tuple(map(tuple, W)) for W in Ws), tuple(map(tuple, bs))
            if best is None or _flat(candidate) < _flat(best):
                best = candidate
            return
        _normalize_layer(Ws, bs, l, live)
        groups = _tie_groups(Ws, bs, l, live)
        # every ordering leads to at least one leaf: refuse before exploring a subtree that is too large
        orderings = math.prod(math.factorial(len(g)) for g in groups)
        if explored + orderings > max_tie_orders:
            twins = max(len(g) for g in groups)
            raise SymmetryError(
                f"hidden layer {l + 1} has {twins} twin neurons (equal incoming rows): {orderings:,} orderings "
                f"to compare, over max_tie_orders={max_tie_orders:,}; raise max_tie_orders, or merge the twins "
                "(they act as one neuron whose outgoing weights are their sum)"
            )
        for perm in _orderings(groups):
            Ws2 = list(Ws)
            bs2 = list(bs)
            _apply_permutation(Ws2, bs2, l, perm)
            search(Ws2, bs2, l + 1)

    search(Ws, bs, 0)
    assert best is not None  # every search reaches at least one leaf
    return ReLUNetwork(best[0], best[1], name=net.name)


def _flat(layers):
    Ws, bs = layers
    return tuple(v for W, b in zip(Ws, bs) for v in (*(x for row in W for x in row), *b))


def equivalent(a: ReLUNetwork, b: ReLUNetwork) -> bool:
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
    require_instance(a, ReLUNetwork, "a", "equivalent")
    require_instance(b, ReLUNetwork, "b", "equivalent")
    if a.architecture != b.architecture:
        return False
    return canonical_form(a) == canonical_form(b)


def difference_network(a: ReLUNetwork, b: ReLUNetwork) -> ReLUNetwork:
    """A network computing ``f_a − f_b`` exactly, whose cells refine those of both networks.

    Hidden layer ``l`` holds layer ``l`` of ``a`` and of ``b`` side by side (no
    weights between them). The shallower network's output ``y`` is carried
    through the extra layers as the pair ``relu(y), relu(−y)`` (then ``y =
    relu(y) − relu(−y)``), so both outputs reach the last layer, which
    subtracts them.

    Raises
    ------
    ShapeError
        Different input or output widths.

    Examples
    --------
    >>> shallow = ReLUNetwork([[[1]], [[1]]], [[0], [0]])                  # relu(x)
    >>> deep = ReLUNetwork([[[1]], [[2]], [["1/2"]]], [[0], [0], [0]])     # relu(2 relu(x)) / 2
    >>> d = difference_network(shallow, deep)
    >>> d.architecture.widths, d([3]), d([-1])
    ((1, 2, 3, 1), (Fraction(0, 1),), (Fraction(0, 1),))
    """
    require_instance(a, ReLUNetwork, "a", "difference_network")
    require_instance(b, ReLUNetwork, "b", "difference_network")
    if a.architecture.input_dim != b.architecture.input_dim:
        raise ShapeError(f"input widths differ: {a.architecture.input_dim} (a) and {b.architecture.input_dim} (b)")
    if a.architecture.output_dim != b.architecture.output_dim:
        raise ShapeError(f"output widths differ: {a.architecture.output_dim} (a) and {b.architecture.output_dim} (b)")
    depth = max(a.architecture.depth, b.architecture.depth)
    sides = [_padded_layers(net, depth) for net in (a, b)]
    Ws, bs = [], []
    for l in range(depth + 1):
        (Wa, ba), (Wb, bb) = sides[0][l], sides[1][l]
        if l == depth == 0:  # no hidden layer: both read the input
            Ws.append([[x - y for x, y in zip(ra, rb)] for ra, rb in zip(Wa, Wb)])
            bs.append([x - y for x, y in zip(ba, bb)])
        elif l == depth:  # the output: f_a - f_b
            Ws.append([list(ra) + [-v for v in rb] for ra, rb in zip(Wa, Wb)])
            bs.append([x - y for x, y in zip(ba, bb)])
        elif l == 0:  # both read the input
            Ws.append([list(r) for r in Wa] + [list(r) for r in Wb])
            bs.append(list(ba) + list(bb))
        else:
            cols_a, cols_b = len(Wa[0]), len(Wb[0])
            Ws.append([list(r) + [0] * cols_b for r in Wa] + [[0] * cols_a + list(r) for r in Wb])
            bs.append(list(ba) + list(bb))
    return ReLUNetwork(Ws, bs, name=f"difference of {a.name or 'a'} and {b.name or 'b'}")


def _padded_layers(net, depth):
    """The layers of ``net`` with its output carried through ``depth - L`` extra hidden layers."""
    layers = [(list(map(list, W)), list(b)) for W, b in net.layers]
    extra = depth - net.architecture.depth
    if extra == 0:
        return layers
    W_out, b_out = layers.pop()
    m = len(W_out)
    layers.append(([*W_out, *[[-v for v in r] for r in W_out]], [*b_out, *[-v for v in b_out]]))
    identity = [[int(i == j) for j in range(2 * m)] for i in range(2 * m)]
    layers.extend((identity, [0] * (2 * m)) for _ in range(extra - 1))
    layers.append(([[int(j == i) - int(j == i + m) for j in range(2 * m)] for i in range(m)], [0] * m))
    return layers


@dataclass(frozen=True)
class FunctionComparison:
    """The answer of :func:`same_function`: true or false, with a point where the functions differ."""

    equal: bool
    witness: FractionVector | None
    regions: int

    def __bool__(self) -> bool:
        return self.equal


def _where_nonzero(region, A, c, x):
    """A relative interior point of ``region`` where ``g(y) = A y + c`` (not zero on it) is not zero.

    The interior point ``x`` may be a zero of ``g`` (``-x1`` at the origin).
    Then some vertex ``v`` has ``g(v) != 0``, or some ray or line ``d`` has
    ``A d != 0``: otherwise ``g`` would vanish on the whole region. The
    midpoint of ``x`` and ``v``, or ``x + d`` (or ``x - d`` for a line), is
    in the relative interior too, and ``g`` is ``g(v) / 2`` or ``±A d`` there.
    """

    def g(y):
        return [sum(a * t for a, t in zip(row, y)) + k for row, k in zip(A, c)]

    if any(g(x)):
        return x
    vertices, rays, lines = region.vertices_rays_lines()
    for v in vertices:
        if any(g(v)):
            return tuple((p + q) / 2 for p, q in zip(x, v))
    for d in (*rays, *lines):
        if any(sum(a * t for a, t in zip(row, d)) for row in A):
            return tuple(p + q for p, q in zip(x, d))
    raise SymmetryError("a region's difference map is not zero but vanishes at its vertices, rays and lines")


def same_function(a: ReLUNetwork, b: ReLUNetwork, domain: Box | Polyhedron | MatrixLike | None = None) -> FunctionComparison:
    """Whether two networks compute the same function (on ``domain``, default all of ``R^n0``), exactly.

    On every region of the canonical complex of :func:`difference_network`
    both networks are affine, so ``f_a = f_b`` exactly when the difference's
    affine map vanishes on every region (and then everywhere, by continuity).

    Returns
    -------
    FunctionComparison
        Truthy when equal; otherwise ``witness`` is an interior point of a
        region where ``f_a(x) != f_b(x)``, checked by evaluating both.

    Examples
    --------
    >>> relu = ReLUNetwork([[[1]], [[1]]], [[0], [0]])
    >>> same_function(relu, ReLUNetwork([[[1]], [[2]], [["1/2"]]], [[0], [0], [0]])).equal
    True
    >>> answer = same_function(relu, ReLUNetwork([[[1]], [[1]]], [[-1], [0]]))
    >>> answer.equal, relu(answer.witness) != ReLUNetwork([[[1]], [[1]]], [[-1], [0]])(answer.witness)
    (False, True)
    """
    require_instance(a, ReLUNetwork, "a", "same_function")
    require_instance(b, ReLUNetwork, "b", "same_function")
    K = canonical_complex(difference_network(a, b), domain)
    regions = K.regions()
    for r in regions:
        A, c = K.affine_map(r)
        if any(v for row in A for v in row) or any(c):
            x = _where_nonzero(r.polyhedron, A, c, r.relative_interior_point())
            if a(x) == b(x):  # pragma: no cover - _where_nonzero's point has a non-zero difference
                raise SymmetryError(f"region {r.id}: non-zero difference map but equal values at {x}")
            return FunctionComparison(False, x, len(regions))
    return FunctionComparison(True, None, len(regions))
