"""FaceLattice: validation of the covering relation, combinatorial queries, graph export."""

import igraph
import networkx as nx
import pytest
from reference import assert_same_graph

from polyrelu.errors import GeometryError
from polyrelu.geometry import FaceLattice
from polyrelu.graphs import igraph_to_networkx, networkx_to_igraph

# Two triangles abc, bcd glued along bc, plus a dangling edge from d to e.
#   vertices a=0 b=1 c=2 d=3            e=11
#   edges    ab=4 bc=5 ca=6 bd=7 cd=8   de=12
#   triangles abc=9 bcd=10
DIMS = [0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 0, 1]
VERTS = {0: "a", 1: "b", 2: "c", 3: "d", 11: "e"}
EDGES = {4: "ab", 5: "bc", 6: "ca", 7: "bd", 8: "cd", 12: "de"}
TRIANGLES = {9: "abc", 10: "bcd"}
NAMES = {**VERTS, **EDGES, **TRIANGLES}


def _covers():
    """The covering relation derived from the vertex sets: tau < sigma, one dimension apart."""
    out = []
    for i, s in NAMES.items():
        for j, t in NAMES.items():
            if DIMS[j] == DIMS[i] + 1 and set(s) < set(t):
                out.append((i, j))
    return out


COVERS = _covers()


def lattice():
    return FaceLattice(DIMS, COVERS, data=[NAMES[i] for i in range(len(DIMS))])


def by_name(cells):
    return sorted(NAMES[c] for c in cells)


def faces_by_sets(c):
    return sorted(n for n in NAMES.values() if set(n) <= set(NAMES[c]))


def cofaces_by_sets(c):
    return sorted(n for n in NAMES.values() if set(NAMES[c]) <= set(n))


def test_small_complex_queries():
    L = lattice()
    assert len(L) == 13 and len(COVERS) == 2 * 6 + 3 * 2
    assert L.f_vector() == (5, 6, 2)
    assert L.euler_characteristic() == 5 - 6 + 2 == 1  # a contractible complex
    assert L.dimension() == 2 and L.dimension(3) == 0 and L.dimension(12) == 1
    assert L.cells(1) == (4, 5, 6, 7, 8, 12) and L.cells() == tuple(range(13))
    assert set(L.covering_relation()) == set(COVERS)
    assert L.data(9) == "abc"
    # faces and cofaces agree with vertex-set inclusion, cell by cell
    for c in range(len(DIMS)):
        assert by_name(L.faces(c)) == faces_by_sets(c)
        assert by_name(L.cofaces(c)) == cofaces_by_sets(c)
        assert L.faces(c) == tuple(sorted(L.faces(c))) and c in L.faces(c) and c in L.cofaces(c)
    # a few by hand
    assert by_name(L.faces(9)) == sorted(["a", "b", "c", "ab", "bc", "ca", "abc"])
    assert by_name(L.cofaces(1)) == sorted(["b", "ab", "bc", "bd", "abc", "bcd"])
    assert L.facets(9) == (4, 5, 6) and L.cofacets(5) == (9, 10) and L.facets(0) == () and L.cofacets(9) == ()
    # closed stars
    assert by_name(L.star(0)) == sorted(["a", "b", "c", "ab", "bc", "ca", "abc"])
    assert by_name(L.star(5)) == sorted(["a", "b", "c", "d", "ab", "bc", "ca", "bd", "cd", "abc", "bcd"])
    assert by_name(L.star(3)) == sorted(["b", "c", "d", "e", "bc", "bd", "cd", "de", "bcd"])
    assert by_name(L.star(11)) == ["d", "de", "e"]
    # maximal cells: both triangles and the dangling edge
    assert L.maximal_cells() == (9, 10, 12)


def test_equality_ignores_cover_order_but_not_data():
    L = lattice()
    assert L == FaceLattice(DIMS, list(reversed(COVERS)), data=[NAMES[i] for i in range(len(DIMS))])
    assert L != FaceLattice(DIMS, COVERS)
    assert L != FaceLattice(DIMS, COVERS[1:], data=[NAMES[i] for i in range(len(DIMS))])


def test_empty_lattice():
    L = FaceLattice([], [])
    assert len(L) == 0 and L.f_vector() == () and L.dimension() == -1 and L.euler_characteristic() == 0
    assert L.maximal_cells() == () and L.hasse_diagram().vcount() == 0


@pytest.mark.parametrize(
    "dims, covers, match",
    [
        ([0, 2], [(0, 1)], "not graded"),  # skips a dimension
        ([1, 0], [(0, 1)], "not graded"),  # goes down
        ([0, 0], [(0, 1)], "not graded"),  # same dimension
        ([0, 1], [(0, 2)], "outside"),  # j out of range
        ([0, 1], [(2, 1)], "outside"),  # i out of range
        ([0, 1], [(-1, 1)], "outside"),  # negative index
        ([0, 1], [(0, 1), (0, 1)], "repeated"),
        ([-1, 0], [], "non-negative"),
    ],
)
def test_invalid_covers_raise(dims, covers, match):
    with pytest.raises(GeometryError, match=match):
        FaceLattice(dims, covers)


def test_data_length_must_match():
    with pytest.raises(GeometryError, match="data"):
        FaceLattice([0, 1], [(0, 1)], data=["only one"])


def test_hasse_diagram_is_a_dag_with_int_dims():
    g = lattice().hasse_diagram()
    assert g.is_directed() and g.is_dag()
    assert g.vcount() == len(DIMS) and set(g.get_edgelist()) == set(COVERS)
    assert g.vs["dim"] == DIMS and all(type(v) is int for v in g.vs["dim"])


def test_to_networkx_round_trip_keeps_attributes_and_types():
    L = lattice()
    G = L.to_networkx()
    assert isinstance(G, nx.DiGraph)
    assert sorted(G.nodes) == list(range(len(DIMS)))
    assert set(G.edges) == set(COVERS)
    for n, attrs in G.nodes(data=True):
        assert attrs == {"dim": DIMS[n]} and type(attrs["dim"]) is int
    assert nx.is_directed_acyclic_graph(G)

    g = networkx_to_igraph(G)
    assert "_nx_name" not in g.vs.attributes() and "_igraph_index" not in g.vs.attributes()
    assert "name" not in g.vs.attributes()  # nodes were already 0..n-1
    assert_same_graph(L.hasse_diagram(), g, edge_order=False)


def test_igraph_networkx_round_trip_with_mixed_attribute_types():
    g = igraph.Graph(n=4, edges=[(0, 1), (1, 2), (2, 3), (0, 3)], directed=True)
    g.vs["dim"] = [0, 1, 1, 2]
    g.vs["sign"] = ["+0", "-+", "0-", "++"]
    g.vs["volume"] = [0.5, 1.25, 2.0, -3.5]
    g.vs["pattern"] = [(1, 0), (0, 1), (1, 1), (0, 0)]
    g.es["weight"] = [1, 2, 3, 4]
    g["title"] = "complex"
    G = igraph_to_networkx(g)
    for _, attrs in G.nodes(data=True):
        assert "_igraph_index" not in attrs
    assert G.graph == {"title": "complex"}
    h = networkx_to_igraph(G)
    assert "_nx_name" not in h.vs.attributes() and "name" not in h.vs.attributes()
    assert_same_graph(g, h, edge_order=False)
    assert h["title"] == "complex"


def test_networkx_keys_that_are_not_indices_become_names():
    G = nx.DiGraph()
    G.add_node("x", dim=0)
    G.add_node("y", dim=1)
    G.add_edge("x", "y")
    g = networkx_to_igraph(G)
    assert g.vs["name"] == ["x", "y"] and g.vs["dim"] == [0, 1]
    assert "_nx_name" not in g.vs.attributes()
    assert g.get_edgelist() == [(0, 1)]


def test_from_trusted_is_the_checked_lattice():
    down = [[i for i, j in COVERS if j == k] for k in range(len(DIMS))]
    trusted = FaceLattice.from_trusted(DIMS, [list(reversed(d)) for d in down])  # any order of facets
    checked = FaceLattice(DIMS, COVERS)
    assert trusted == checked
    assert all(trusted.cofacets(c) == checked.cofacets(c) for c in range(len(DIMS)))
    assert trusted.covering_relation() == checked.covering_relation()
    with pytest.raises(GeometryError, match="facets has 2 entries"):
        FaceLattice.from_trusted([0, 0, 1], [(), ()])
