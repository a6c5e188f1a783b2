"""The four genericity conditions of Grillo and Montúfar, checked exactly (docs/design.md §4).

Each condition is decided on the canonical complex and returns whether it holds
with exact witnesses: the offending cells, facets, regions or neuron pairs.

1. **Supertransversality**: every cell of codimension ``k`` lies in exactly
   ``k`` bent hypersurfaces.
2. **No cancellation**: a facet of a bent hypersurface ``B_z`` has non-zero
   weight unless some hidden layer after ``z``'s is entirely inactive on it.
3. **Transparency**: on every facet of a bent hypersurface ``B_z``, every hidden
   layer after ``z``'s has an active neuron (so nothing downstream hides ``z``).
4. **TPIC** (transversal pairwise intersection): for neurons ``z`` and ``z'``
   of consecutive hidden layers, ``B_z`` and ``B_z'`` meet, and their
   intersection is pure of codimension 2: no cell of lower codimension, and
   every cell of higher codimension lies on a codimension-2 cell of it (where a
   third hypersurface cuts the crossing, for ``n0 >= 3``).

On a polytope domain only cells off the domain's boundary are checked, since
the domain's facets are not bent hypersurfaces.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .checks import require_instance
from .complex import CanonicalComplex
from .tropical import (
    BentHypersurface,
    WeightedComplex,
    bent_hypersurfaces,
    require_hypersurfaces,
    require_weighted,
    tropical_weights,
)

__all__ = ["ConditionResult", "GenericityReport", "genericity"]


@dataclass(frozen=True)
class ConditionResult:
    """One condition: its name, whether it holds, and the witnesses when it does not."""

    name: str
    holds: bool
    witnesses: tuple[Any, ...]

    @property
    def title(self) -> str:
        """The name as text puts it first: in full (``"TPIC (transversal pairwise intersection)"``)."""
        return _TITLES.get(self.name, self.name)

    def __str__(self) -> str:
        if self.holds:
            return f"{self.title}: holds"
        return f"{self.title}: fails ({_count(len(self.witnesses), 'witness')}, e.g. {_witness_text(self.name, self.witnesses[0])})"


@dataclass(frozen=True)
class GenericityReport:
    """The four conditions of :func:`genericity` and the overall verdict."""

    supertransversality: ConditionResult
    no_cancellation: ConditionResult
    transparency: ConditionResult
    tpic: ConditionResult

    @property
    def conditions(self) -> tuple[ConditionResult, ...]:
        return (self.supertransversality, self.no_cancellation, self.transparency, self.tpic)

    @property
    def holds(self) -> bool:
        """Whether all four conditions hold."""
        return all(c.holds for c in self.conditions)

    def __str__(self) -> str:
        """One line per condition, then up to three of its witnesses in words, then the verdict."""
        lines = []
        for c in self.conditions:
            if c.holds:
                lines.append(f"{c.title}: holds")
                continue
            lines.append(f"{c.title}: fails ({_count(len(c.witnesses), 'witness')})")
            lines.extend(f"  {_witness_text(c.name, w)}" for w in c.witnesses[:_SHOWN])
            if len(c.witnesses) > _SHOWN:
                lines.append(f"  and {len(c.witnesses) - _SHOWN} more")
        lines.append("generic: " + ("yes, all four conditions hold" if self.holds else "no"))
        return "\n".join(lines)


_SHOWN = 3  # witnesses listed per failing condition in a report's text

_TITLES = {"TPIC": "TPIC (transversal pairwise intersection)"}


def _cells_text(cells: tuple[int, ...]) -> str:
    shown = ", ".join(map(str, cells[:_SHOWN]))
    return shown + (f" and {len(cells) - _SHOWN} more" if len(cells) > _SHOWN else "")


def _count(k: int, noun: str) -> str:
    return f"{k} {noun}" + ("" if k == 1 else "es" if noun.endswith("s") else "s")


def _tpic_words(z: tuple[int, int], z2: tuple[int, int], reason: str, cells: tuple[int, ...]) -> str:
    if reason == "disjoint":
        return f"the bent hypersurfaces of neurons {z} and {z2} never meet"
    return (f"the bent hypersurfaces of neurons {z} and {z2} meet in cells ({_cells_text(cells)}) that are not "
            "codimension-2 crossings")


def _witness_text(name: str, witness: Any) -> str:
    """One witness of the condition ``name`` in words.

    >>> _witness_text("TPIC", ((1, 0), (2, 1), "disjoint", ()))
    'the bent hypersurfaces of neurons (1, 0) and (2, 1) never meet'
    """
    words = _WITNESS_WORDS.get(name)
    return words(*witness) if words is not None else str(witness)


_WITNESS_WORDS: dict[str, Any] = {
    "supertransversality": lambda cell, codimension, count: (
        f"cell {cell}, of codimension {codimension}, lies on {count} bent hypersurfaces, not {codimension}"
    ),
    "no cancellation": lambda neuron, facet: (
        f"facet {facet} of neuron {neuron}'s bent hypersurface has weight 0, yet no later hidden layer is entirely "
        "inactive there"
    ),
    "transparency": lambda facet, neuron, layer: (
        f"hidden layer {layer} is entirely inactive on facet {facet} of neuron {neuron}'s bent hypersurface"
    ),
    "TPIC": _tpic_words,
}


def genericity(
    complex_: CanonicalComplex,
    weighted: WeightedComplex | None = None,
    hypersurfaces: Mapping[tuple[int, int], BentHypersurface] | None = None,
) -> GenericityReport:
    """Check the four genericity conditions exactly.

    Parameters
    ----------
    complex_ : CanonicalComplex
    weighted : WeightedComplex, optional
        Reused if already computed (:func:`~polyrelu.tropical.tropical_weights`).
    hypersurfaces : dict, optional
        Reused if already computed (:func:`~polyrelu.tropical.bent_hypersurfaces`).

    Returns
    -------
    GenericityReport
        Witnesses: supertransversality ``(cell, codimension, number of bent
        hypersurfaces containing it)``; no cancellation ``(neuron, facet)``;
        transparency ``(facet, neuron, layer)``: the facet of the neuron's
        hypersurface on which that later layer is entirely inactive; TPIC ``(neuron, neuron', reason, cells)``
        with reason ``"disjoint"`` or ``"codimension"``.

    Notes
    -----
    Transparency is checked on the facets of bent hypersurfaces, not on every
    region: a region where some layer is entirely inactive hides nothing unless
    an earlier neuron's hypersurface runs through it. The region form ("every
    layer has an active neuron in every region") fails for every network whose
    first layer has ``n0`` or fewer neurons, e.g. all of ``(2, 2, 1)``, whose
    generic members are identifiable; the facet form is what the recovery of
    hypersurfaces from ``f`` needs (docs/design.md §5).

    Examples
    --------
    Three lines in general position, the third one invisible in the output:

    >>> from polyrelu import ReLUNetwork, canonical_complex
    >>> net = ReLUNetwork([[[1, 0], [0, 1], [-1, -1]], [[1, 1, 0]]], [[0, 0, 1], [0]])
    >>> report = genericity(canonical_complex(net))
    >>> [c.holds for c in report.conditions], report.no_cancellation.witnesses[0][0]
    ([True, False, True, True], (1, 2))
    """
    K = require_instance(complex_, CanonicalComplex, "complex_", "genericity")
    require_weighted(weighted, K, "weighted", "genericity", optional=True)
    require_hypersurfaces(hypersurfaces, K, "hypersurfaces", "genericity")
    arch = K.network.architecture
    n0 = arch.input_dim
    neurons = arch.hidden_neurons()
    W = weighted if weighted is not None else tropical_weights(K)
    B = hypersurfaces if hypersurfaces is not None else bent_hypersurfaces(K, W)
    interior = [c for c in K if all(c.domain_signs)]
    containing: dict[int, list[tuple[int, int]]] = {}  # cell -> the neurons whose hypersurface holds it
    for z, b in B.items():
        for c in b.cells:
            containing.setdefault(c, []).append(z)

    supertransversal = tuple(
        (c.id, n0 - c.dimension, len(containing.get(c.id, ())))
        for c in interior
        if len(containing.get(c.id, ())) != n0 - c.dimension
    )

    layer_slices = []
    start = 0
    for width in arch.hidden_widths:
        layer_slices.append(slice(start, start + width))
        start += width
    cancelled = []
    for z, b in B.items():
        for f in b.facets:
            if f not in W.weights() or any(W.weight(f).weight):
                continue
            signs = K[f].signs
            blocked = any(all(s <= 0 for s in signs[sl]) for sl in layer_slices[z[0]:])
            if not blocked:
                cancelled.append((z, f))

    opaque = tuple(
        (f, z, l)
        for z, b in B.items()
        for f in b.facets
        if all(K[f].domain_signs)
        for l, sl in enumerate(layer_slices[z[0]:], start=z[0] + 1)
        if not any(s > 0 for s in K[f].signs[sl])
    )

    pairs: list[tuple[tuple[int, int], tuple[int, int], str, tuple[int, ...]]] = []
    for l in range(1, arch.depth):
        for z in (n for n in neurons if n[0] == l):
            for z2 in (n for n in neurons if n[0] == l + 1):
                common = {c for c in set(B[z].cells) & set(B[z2].cells) if all(K[c].domain_signs)}
                if not common:
                    pairs.append((z, z2, "disjoint", ()))
                    continue
                crossings = {c for c in common if K[c].dimension == n0 - 2}
                # lower cells are fine where the crossing is cut by a third hypersurface (n0 >= 3)
                bad = sorted(
                    c
                    for c in common
                    if K[c].dimension > n0 - 2 or (c not in crossings and not crossings & set(K.lattice.cofaces(c)))
                )
                if bad:
                    pairs.append((z, z2, "codimension", tuple(bad)))

    return GenericityReport(
        ConditionResult("supertransversality", not supertransversal, supertransversal),
        ConditionResult("no cancellation", not cancelled, tuple(cancelled)),
        ConditionResult("transparency", not opaque, opaque),
        ConditionResult("TPIC", not pairs, tuple(pairs)),
    )
