"""The certificate that every parameter computing ``f`` is trivially equivalent, for one hidden layer.

For ``f(x) = Σ_j v_j relu(w_j · x + b_j) + c`` on a full-dimensional domain
``D``, recovery's steps are forced, not chosen, when the assumptions below
hold: ``f`` bends exactly on the hyperplanes ``H_j`` inside ``D``, so any
parameter of the architecture computing ``f`` has one neuron on each of them;
the jump of ``f``'s Jacobian across ``H_j`` fixes that neuron's outgoing
weight up to the neuron's scale; a neuron of the other parameter that faces
the other way (``relu(z) = relu(−z) + z``) leaves an affine term that must
vanish, which the last assumption forbids. docs/theory.md states the theorem
and its proof.

This is an internal module of :mod:`polyrelu.identifiability`:
:func:`one_hidden_layer_certificate` is its named API, used by
:mod:`polyrelu.identifiability.verdicts` for the verdict
``"identifiable (recovery forced)"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from ..complex import CanonicalComplex
from ._parameters import MAX_FLIP_NEURONS

__all__ = ["one_hidden_layer_certificate"]


def one_hidden_layer_certificate(
    K: CanonicalComplex, flips: Sequence[tuple[bool, tuple[int, ...] | None]]
) -> tuple[bool, tuple[str, ...]]:
    """Whether the one-hidden-layer theorem of docs/theory.md applies to ``K``'s network: ``(holds, checked lines)``.

    Each assumption is checked exactly on the network and its canonical
    complex ``K`` on the domain; the lines say what was checked, in order, and
    end at the first assumption that fails (then ``holds`` is False). ``flips``
    holds :func:`~polyrelu.identifiability._parameters.cancelling_subset` of
    each hidden layer, computed once by the caller.
    """
    network = K.network
    arch = network.architecture
    if len(arch.hidden_widths) != 1:
        return False, (f"{len(arch.hidden_widths)} hidden layers: the argument covers one",)
    (W, b), (V, _) = network.layers
    n = len(W)
    checked: list[str] = []

    def fails(line):
        return False, (*checked, line)

    regions = [r.signs for r in K.regions()]
    if not regions:
        return fails("the domain has no region of full dimension")
    checked.append(f"one hidden layer; the domain is full-dimensional ({len(regions)} regions)")
    zero_rows = [j for j in range(n) if not any(W[j])]
    if zero_rows:
        return fails(f"neuron(s) {zero_rows} of layer 1 have no incoming weight")
    checked.append("every hidden neuron has a non-zero incoming weight")
    silent = [j for j in range(n) if not any(row[j] for row in V)]
    if silent:
        return fails(f"neuron(s) {silent} of layer 1 have no outgoing weight")
    checked.append("every hidden neuron has a non-zero outgoing weight")
    unseen = [j for j in range(n) if not (any(s[j] > 0 for s in regions) and any(s[j] < 0 for s in regions))]
    if unseen:
        return fails(f"the hyperplane(s) of neuron(s) {unseen} do not cross the domain's interior")
    checked.append("every neuron's hyperplane crosses the domain's interior (regions on both sides)")
    for j in range(n):
        for k in range(j):
            if _proportional((b[j], *W[j]), (b[k], *W[k])):
                return fails(f"neurons {k} and {j} have the same hyperplane")
    checked.append("the hyperplanes are pairwise distinct")
    decided, flipped = flips[0]
    if not decided:
        return fails(f"the search for neurons whose flips cancel involves more than {MAX_FLIP_NEURONS} neurons; not decided")
    if flipped:
        return fails(f"the flips of neurons {list(flipped)} cancel: Σ v_j w_j^T = 0 over them")
    checked.append("no non-empty set of neurons has Σ v_j w_j^T = 0 (decided exactly over the null space)")
    return True, tuple(checked)


def _proportional(row, other):
    """Whether ``row = λ · other`` for some ``λ ≠ 0`` (both rows non-zero)."""
    pivot = next(k for k, v in enumerate(other) if v)
    ratio = Fraction(row[pivot]) / Fraction(other[pivot])
    return ratio != 0 and all(a == ratio * c for a, c in zip(row, other))
