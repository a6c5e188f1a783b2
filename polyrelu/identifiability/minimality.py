"""Minimality: which hidden neurons of a ReLU network can go without changing its function (docs/design.md §6).

:func:`minimality_report` looks for hidden neurons that can go without
changing ``f`` (deleted, merged into a twin, or absorbed by the next layer),
each removal proved exactly by :func:`~polyrelu.symmetry.same_function`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from ..checks import require_instance, require_int
from ..complex import canonical_complex
from ..dependency import dependency_graph
from ..domain import Box
from ..geometry import Polyhedron
from ..geometry.linalg import solve
from ..geometry.rational import MatrixLike
from ..network import ReLUNetwork
from ..parallel import check_parallel_arguments, parallel_map
from ..symmetry import FunctionComparison, same_function
from ..tropical import breakpoint_complex, tropical_weights
from ._parameters import positive_ratio

__all__ = ["Removal", "MinimalityReport", "minimality_report"]


@dataclass(frozen=True)
class Removal:
    """A way to compute ``f`` with one hidden neuron fewer, proved by :func:`~polyrelu.symmetry.same_function`.

    Attributes
    ----------
    neuron : (int, int)
        The neuron taken out.
    how : str
        ``"deleted"`` (its row and outgoing column dropped) or ``"merged into (l, i)"``
        (a positive multiple of that neuron's incoming row: its outgoing column is
        added there, scaled).
    network : ReLUNetwork
        The smaller network.
    proof : FunctionComparison
        The exact comparison (equal, on every region of a common refinement).
    """

    neuron: tuple[int, int]
    how: str
    network: ReLUNetwork
    proof: FunctionComparison


@dataclass(frozen=True)
class MinimalityReport:
    """The result of :func:`minimality_report`.

    Attributes
    ----------
    removals : tuple of Removal
        Every single-neuron removal found, each proved exact.
    layer_sizes : tuple of int or None
        Candidate bent hypersurfaces per inferred layer of ``f``'s dependency
        graph (None when it has a cycle or unresolved cells).
    widths : tuple of int
        The network's hidden widths.
    """

    removals: tuple[Removal, ...]
    layer_sizes: tuple[int, ...] | None
    widths: tuple[int, ...]

    @property
    def verdict(self) -> str:
        """``"not minimal"`` (a removal is proved), ``"minimal (evidence)"`` or ``"undecided"``."""
        if self.removals:
            return "not minimal"
        if self.layer_sizes is not None and tuple(self.layer_sizes) == tuple(self.widths):
            return "minimal (evidence)"
        return "undecided"

    def __str__(self):
        lines = [f"minimality: {self.verdict}"]
        for r in self.removals:
            lines.append(f"  neuron {r.neuron} can be {r.how}: same function on {r.proof.regions} regions (exact)")
        if not self.removals:
            lines.append("  no single neuron can be deleted, merged into a twin or absorbed (each checked exactly)")
            lines.append(f"  hidden widths {self.widths}; candidate hypersurfaces per inferred layer of f: {self.layer_sizes}")
        return "\n".join(lines)


def minimality_report(
    network: ReLUNetwork,
    domain: Box | Polyhedron | MatrixLike | None = None,
    *,
    max_cells: int = 1_000_000,
    n_jobs: int | None = None,
    scheduler: str | None = None,
) -> MinimalityReport:
    """Which hidden neurons can go without changing ``f``, each with an exact proof (docs/design.md §6).

    Tries, for every hidden neuron, (a) deleting it (dead neurons, neurons
    whose outgoing weights vanish, neurons invisible on the domain), (b) letting
    the next layer absorb it when its output is an affine combination of the
    other outputs of its layer on every region (exact linear algebra; e.g. a
    neuron active everywhere beside neurons that span its formula), and (c)
    merging it into a *twin*: a neuron of the same layer whose incoming row and
    bias are a positive multiple of its own (then ``relu(λ z) = λ relu(z)``).
    Every candidate smaller network is accepted only if
    :func:`~polyrelu.symmetry.same_function` proves it equal on the domain.
    Without a removal, the evidence of minimality is the dependency graph of
    ``f``: as many candidate bent hypersurfaces per inferred layer as neurons.
    ``max_cells`` bounds the network's canonical complex as in
    :func:`~polyrelu.complex.canonical_complex`.

    The neurons are checked independently, in parallel as
    :func:`~polyrelu.parallel.parallel_map` decides with ``n_jobs`` and
    ``scheduler`` (docs/parallel.md); the report is the same for every choice.

    Returns
    -------
    MinimalityReport

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> twins = ReLUNetwork([[[1, 0], [2, 0], [0, 1]], [[1, 1, 1]]], [[0, 0, 0], [0]])
    >>> report = minimality_report(twins)
    >>> report.verdict, [(r.neuron, r.how) for r in report.removals]
    ('not minimal', [((1, 0), 'merged into (1, 1)'), ((1, 1), 'merged into (1, 0)')])
    >>> report.removals[0].network.architecture.widths
    (2, 2, 1)
    """
    caller = "minimality_report"
    require_instance(network, ReLUNetwork, "network", caller)
    require_int(max_cells, "max_cells", caller, minimum=1)
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, caller)
    arch = network.architecture
    K = canonical_complex(network, domain, max_cells=max_cells)
    # a layer cannot be emptied
    neurons = [(layer, index) for layer, index in arch.hidden_neurons() if arch.hidden_widths[layer - 1] >= 2]
    patterns = tuple(region.signs for region in K.regions())
    found = parallel_map(partial(_removal, network, patterns, domain), neurons, n_jobs=n_jobs, scheduler=scheduler,
                         desc="neurons", names=[f"neuron {neuron}" for neuron in neurons])
    removals = [removal for removal in found if removal is not None]
    sizes = None
    if not removals:
        G = dependency_graph(breakpoint_complex(tropical_weights(K)))
        # dependency_graph always keeps the candidates it grouped
        if G.is_dag() and not G.candidates.unresolved:  # type: ignore[union-attr]
            sizes = G.layer_sizes()
    return MinimalityReport(tuple(removals), sizes, arch.hidden_widths)


def _removal(network, patterns, domain, neuron):
    """The first removal of ``neuron`` that :func:`same_function` proves (deleted, merged, absorbed), or None.

    One task of :func:`minimality_report`; ``patterns`` are the sign vectors of
    the regions of the network's canonical complex on the domain.
    """
    layer, index = neuron
    options = [("deleted", _without(network, layer, index, None, 0))]
    W, b = network.layers[layer - 1]
    own = (b[index], *W[index])
    for other in range(network.architecture.hidden_widths[layer - 1]):
        ratio = positive_ratio(own, (b[other], *W[other])) if other != index else None
        if ratio is not None:
            options.append((f"merged into ({layer}, {other})", _without(network, layer, index, other, ratio)))
    relation = _affine_relation(network, patterns, layer, index)
    if relation is not None:  # the most general explanation, tried last
        options.append(("absorbed by the next layer (its output is affine in the others')",
                        _absorbed(network, layer, index, *relation)))
    for how, smaller in options:
        proof = same_function(network, smaller, domain)
        if proof:
            return Removal(neuron, how, smaller, proof)
    return None


def _affine_relation(network, patterns, layer, index):
    """``(α, β)`` with ``a_index = Σ_{i≠index} α_i a_i + β`` for the layer's outputs on every region, or None.

    Each region fixes every output's affine formula (``relu`` of an active
    pre-activation, or 0), so the relation is a linear system over Q with
    ``n0 + 1`` equations per region, solved exactly.
    """
    n0 = network.architecture.input_dim
    others = [i for i in range(network.architecture.hidden_widths[layer - 1]) if i != index]
    start = sum(network.architecture.hidden_widths[: layer - 1])
    rows, rhs = [], []
    for signs in patterns:
        G, g = network.pre_activation_maps(signs)[layer - 1]
        on = signs[start : start + len(g)]

        def output(i):
            return (g[i], *G[i]) if on[i] > 0 else (0,) * (n0 + 1)

        target = output(index)
        for c in range(n0 + 1):
            rows.append([output(i)[c] for i in others] + [int(c == 0)])
            rhs.append(target[c])
    solution = solve(rows, rhs)
    if solution is None:
        return None  # inconsistent: 0 = 1
    alpha = {i: solution[k] for k, i in enumerate(others)}
    return alpha, solution[-1]


def _absorbed(network, layer, index, alpha, beta):
    """The network without ``(layer, index)``, its output ``Σ α_i a_i + β`` taken up by the next layer."""
    Ws = [list(map(list, W)) for W in network.weights]
    bs = [list(b) for b in network.biases]
    for row, bias_index in zip(Ws[layer], range(len(bs[layer]))):
        w = row[index]
        for i, a in alpha.items():
            row[i] += w * a
        bs[layer][bias_index] += w * beta
    return ReLUNetwork(Ws, bs, name=network.name).without_neuron(layer, index)



def _without(network, layer, index, twin, ratio):
    """The network without neuron ``(layer, index)``; its outgoing column goes, times ``ratio``, to ``twin``."""
    if twin is not None:
        Ws = [list(map(list, W)) for W in network.weights]
        for row in Ws[layer]:
            row[twin] += ratio * row[index]  # relu(λ z) = λ relu(z) for the twin's z
        network = ReLUNetwork(Ws, network.biases, name=network.name)
    return network.without_neuron(layer, index)
