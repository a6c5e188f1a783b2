"""``polyrelu demo``: a tour of the worked example ``relu(relu(x1) + relu(x2) - 1)`` and of a generic network.

What each part of polyrelu says about the example: its report, its trivial
symmetries, one cell of its canonical complex, the bent hypersurface of its
last hidden neuron with exact tropical weights, the four genericity
conditions, and the dependency graph read from the function alone.
"""

from __future__ import annotations

from fractions import Fraction

from .._version import __version__
from ..complex import canonical_complex
from ..dependency import dependency_graph, depth_hierarchy, parameter_dependency_graph
from ..domain import Box
from ..examples import bent_line_network, generic_network
from ..genericity import genericity
from ..report import network_report
from ..symmetry import equivalent, permute, scale
from ..text import number_text, vector_text
from ..tropical import breakpoint_complex, tropical_weights

__all__ = ["demo"]


def demo() -> None:
    """Print the tour: the worked example ``relu(relu(x1) + relu(x2) - 1)`` from every side, then a generic network."""
    net = bent_line_network()
    print(f"polyrelu {__version__} demo: the worked example f(x) = relu(relu(x1) + relu(x2) - 1)\n")
    print(network_report(net))
    print()
    twin = permute(scale(net, [[3, "1/2"], [5]]), [[1, 0], [0]])
    theta = list(net.parameters())
    theta[-1] += Fraction(1, 1000)
    perturbed = type(net).from_parameters(net.architecture, theta)
    x = [Fraction(3, 2), Fraction(1, 3)]
    print("trivial symmetries")
    print(f"  permuted + rescaled copy: f{vector_text(x)} = {vector_text(twin(x))} (original {vector_text(net(x))}), "
          f"equivalent: {equivalent(net, twin)}")
    print(f"  output bias + 1/1000:     equivalent: {equivalent(net, perturbed)}")
    print()
    K = canonical_complex(net)
    region = K.locate(x)
    vertices, rays, _ = region.polyhedron.vertices_rays_lines()
    A, c = K.affine_map(region)
    print(f"the cell of x = {vector_text(x)}: sign vector {region.sign_string}, dimension {region.dimension}")
    print(f"  vertices {[vector_text(v) for v in vertices]}, rays {list(rays)}")
    print(f"  f = {vector_text(A[0])}·x + {number_text(c[0])} there; relative interior point {vector_text(region.relative_interior_point())}")
    print()
    print(f"canonical polyhedral complex on R^2: f-vector {K.f_vector()}, "
          f"Euler characteristic {K.euler_characteristic()} (must be (-1)^2 = 1)")
    bent = K.bent_hypersurface(2, 0)
    pieces = [c for c in bent if c.dimension == 1]
    print(f"  bent hypersurface of neuron (2, 0): {len(pieces)} pieces")
    for c in pieces:
        v, r, _ = c.polyhedron.vertices_rays_lines()
        print(f"    signs {c.sign_string}: vertices {[vector_text(p) for p in v]}, rays {list(r)}")
    weights = tropical_weights(K)
    print("  facet weights (exact, relative to the primitive normal; Euclidean in brackets):")
    for c in K.cells(1):
        w = weights.weight(c)
        print(f"    signs {c.sign_string}: normal {w.normal}, weight {number_text(w.weight[0])} "
              f"[{w.euclidean_weight[0]:.4f}], neurons {list(w.neurons)}")
    balanced = all(not any(v for row in weights.balancing_defect(t) for v in row) for t in K.cells(0))
    print(f"  balancing at every vertex: {'exact zero' if balanced else 'FAILS'}")
    breakpoints = breakpoint_complex(weights)
    print(f"  breakpoint complex (f alone): f-vector {breakpoints.f_vector()}, "
          f"Euler characteristic {breakpoints.euler_characteristic()}")
    print("genericity: the four conditions of the identifiability theorem (docs/theory.md)")
    for line in str(genericity(K, weighted=weights)).splitlines():
        print(f"  {line}")
    boxed = canonical_complex(net, Box(-2, 2))
    print(f"  on the box [-2, 2]^2: f-vector {boxed.f_vector()}, Euler characteristic {boxed.euler_characteristic()}")
    _dependency(breakpoints)


def _dependency(breakpoints):
    """The dependency graphs of the worked example and of a generic network, from their functions alone."""
    G = dependency_graph(breakpoints)
    print("\ndependency graph from f alone (docs/theory.md):")
    print(f"  worked example: {len(G)} candidate pieces, {len(G.candidates.unresolved)} unresolved junctions "
          f"(at {', '.join(vector_text(breakpoints.closure(u.cell).vertices()[0]) for u in G.candidates.unresolved)}):")
    print("  " + str(depth_hierarchy(G)).replace("\n", "\n  "))
    net = generic_network((2, 3, 3, 2, 1), seed=1)
    K = canonical_complex(net)
    G = dependency_graph(breakpoint_complex(tropical_weights(K)))
    truth = parameter_dependency_graph(net, complex_=K)
    print(f"  {net.name}: genericity holds: {genericity(K).holds}; {len(G)} candidates, "
          f"{G.graph.ecount()} edges, layers {G.layer_sizes()}")
    print(f"  same graph as read off the parameters: {G.neuron_edges() == truth.neuron_edges()}")
    print("  " + str(depth_hierarchy(G)).replace("\n", "\n  "))
