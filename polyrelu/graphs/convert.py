"""Conversions between igraph graphs and networkx graphs, without stray attributes.

igraph's own ``to_networkx`` adds an ``_igraph_index`` node attribute and
``from_networkx`` adds ``_nx_name``; the functions here drop them, so a round
trip gives back exactly the attributes the graph had.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..checks import require_igraph, require_instance

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    import igraph
    import networkx as nx

__all__ = ["igraph_to_networkx", "networkx_to_igraph"]


def igraph_to_networkx(graph: igraph.Graph) -> nx.Graph:
    """Convert an igraph graph to networkx; node ``i`` is igraph vertex ``i``.

    Parallel edges give a ``MultiDiGraph`` (``MultiGraph``), so none is lost.

    Examples
    --------
    >>> import igraph
    >>> g = igraph.Graph(n=2, edges=[(0, 1)], directed=True)
    >>> g.vs["dim"] = [0, 1]
    >>> G = igraph_to_networkx(g)
    >>> dict(G.nodes(data=True)), list(G.edges)
    ({0: {'dim': 0}, 1: {'dim': 1}}, [(0, 1)])
    """
    import networkx as nx

    require_igraph(graph, "graph", "igraph_to_networkx")
    if graph.has_multiple():
        out = nx.MultiDiGraph() if graph.is_directed() else nx.MultiGraph()
    else:
        out = nx.DiGraph() if graph.is_directed() else nx.Graph()
    out.graph.update({k: graph[k] for k in graph.attributes()})
    out.add_nodes_from((v.index, v.attributes()) for v in graph.vs)
    out.add_edges_from((e.source, e.target, e.attributes()) for e in graph.es)
    return out


def networkx_to_igraph(graph: nx.Graph) -> igraph.Graph:
    """Convert a networkx graph to igraph; nodes are numbered in iteration order.

    The original node keys are kept in the vertex attribute ``name`` only when
    they are not already ``0 .. n-1``.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.DiGraph([(0, 1)]); G.nodes[1]["dim"] = 1; G.nodes[0]["dim"] = 0
    >>> networkx_to_igraph(G).vs["dim"]
    [0, 1]
    """
    import igraph
    import networkx as nx

    require_instance(graph, nx.Graph, "graph", "networkx_to_igraph")
    nodes = list(graph.nodes)
    index = {v: i for i, v in enumerate(nodes)}
    g = igraph.Graph(n=len(nodes), directed=graph.is_directed())
    edges = list(graph.edges(data=True))  # (u, v, attrs), also for multigraphs
    g.add_edges([(index[u], index[v]) for u, v, _ in edges])
    keys = sorted({k for _, attrs in graph.nodes(data=True) for k in attrs})
    for k in keys:
        g.vs[k] = [graph.nodes[v].get(k) for v in nodes]
    for k in sorted({k for *_, attrs in edges for k in attrs}):
        g.es[k] = [attrs.get(k) for *_, attrs in edges]
    if nodes != list(range(len(nodes))):
        g.vs["name"] = nodes
    for k, v in graph.graph.items():
        g[k] = v
    return g
