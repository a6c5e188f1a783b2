"""Candidate bent hypersurfaces, the dependency graph, layers and the depth hierarchy (docs/design.md §5).

From the breakpoint complex of ``f`` alone, these functions rebuild which
pieces of the bending locus belong to one neuron, which neuron bends along
which, the layer of each, and how deep any generic realization of ``f`` must be:

- :func:`candidate_hypersurfaces` groups breakpoint facets by continuation
  through codimension-2 cells: at a clean crossing the two facets on one
  hyperplane continue one hypersurface straight, the other two continue the
  one that bends; anything else is reported, not guessed. The connected
  pieces of one neuron's hypersurface are then joined by the neuron's
  formula (:func:`polyrelu.formulas.join_pieces`), with the evidence.
- :func:`dependency_graph` is the igraph DAG with an edge ``B' → B`` when ``B``
  bends where it crosses ``B'``, each edge carrying its witness cells;
  :func:`parameter_dependency_graph` is the same graph read off the parameters,
  for comparison.
- :func:`depth_hierarchy` finds the longest layer-ordered chain and the lower
  bound it certifies on the number of hidden layers of a generic realization.

A :class:`DependencyGraph` reads and writes JSON (schema
``dependency_graph``) and typed GraphML, and converts to networkx; it is drawn
by :func:`polyrelu.plot.plot_dependency_graph`. The graph algorithms
themselves (layerings, chains, GraphML) live in :mod:`polyrelu.graphs` and
work on any igraph DAG.
"""

from ._candidates import (
    CandidateHypersurface,
    CandidateHypersurfaces,
    Crossing,
    Unresolved,
    candidate_hypersurfaces,
)
from ._graph import (
    DependencyGraph,
    DepthHierarchy,
    dependency_graph,
    depth_hierarchy,
    parameter_dependency_graph,
)

__all__ = [
    "CandidateHypersurface",
    "Crossing",
    "Unresolved",
    "CandidateHypersurfaces",
    "candidate_hypersurfaces",
    "DependencyGraph",
    "dependency_graph",
    "parameter_dependency_graph",
    "DepthHierarchy",
    "depth_hierarchy",
]

# Users, pickles and error messages see the public names where they are imported from (as numpy's
# set_module does): polyrelu.dependency.DependencyGraph, not the private module that defines it.
for _public in (CandidateHypersurface, Crossing, Unresolved, CandidateHypersurfaces, candidate_hypersurfaces,
                DependencyGraph, dependency_graph, parameter_dependency_graph, DepthHierarchy, depth_hierarchy):
    _public.__module__ = __name__
del _public
