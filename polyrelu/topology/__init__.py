"""Topology of a network's complexes: decision complexes, level sets and exact homology.

- :mod:`~polyrelu.topology.subcomplex`: :class:`Subcomplex` (cells closed under
  faces), :func:`closure`, and the exact homology of any subcomplex
  (:func:`betti_numbers` over ``Z``, ``Q`` or ``GF(p)``, :func:`homology` with
  torsion, :class:`Homology`, and :func:`homology_document`, their JSON).
- :mod:`~polyrelu.topology.decision`: the decision complex of a classifier
  (:func:`decision_complex`, :class:`DecisionComplex`: class regions and the
  boundaries between classes as subcomplexes), and the level and sublevel
  sets of a network with one output (:func:`level_set`, :func:`sublevel_set`,
  and all three sets at once, :func:`level_sets`).

Internal stages, each importing only the ones after it: ``_bounded`` (the
bounded model of a complex on ``R^n0``), ``_chains`` (orientations and
incidence numbers) and ``_elimination`` (exact ranks and Smith normal forms).
docs/topology.md explains the constructions.
"""

from .decision import (
    DecisionComplex,
    LevelSets,
    decision_complex,
    level_set,
    level_sets,
    sublevel_set,
)
from .subcomplex import (
    Homology,
    Subcomplex,
    betti_numbers,
    closure,
    homology,
    homology_document,
)

__all__ = [
    "DecisionComplex",
    "decision_complex",
    "level_set",
    "sublevel_set",
    "level_sets",
    "LevelSets",
    "Subcomplex",
    "closure",
    "betti_numbers",
    "homology",
    "Homology",
    "homology_document",
]
