"""Longest paths, layerings and layer-ordered chains in directed acyclic igraph graphs.

The depth-hierarchy checker of polyrelu (docs/design.md §5) needs two things from a
DAG: the *longest-path layering*, where a vertex's layer is one more than the
number of edges of the longest directed path ending in it, and the longest
*layer-ordered chain*: a directed path ``v1 → … → vk`` whose vertices have
consecutive layers ``l, l + 1, …, l + k - 1`` (one vertex per layer). Both are
computed in one pass over a topological order, in ``O(V + E)``.

Nothing here knows about neural networks: any igraph DAG works, with the layer
taken from a vertex attribute or from the longest-path layering.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ..checks import describe, require_igraph, require_sequence
from ..errors import GraphError

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    import igraph

__all__ = [
    "topological_order",
    "longest_path_layers",
    "longest_path",
    "longest_layered_chain",
    "is_layering",
]


def topological_order(graph: igraph.Graph) -> list[int]:
    """The vertices in topological order, smallest index first among the available ones.

    Raises
    ------
    GraphError
        The graph is undirected or has a directed cycle; the message names one.

    Examples
    --------
    >>> import igraph
    >>> topological_order(igraph.Graph(n=3, edges=[(2, 0), (0, 1)], directed=True))
    [2, 0, 1]
    """
    require_igraph(graph, "graph", "topological_order")
    if not graph.is_directed():
        raise GraphError("the graph is undirected; layerings need a directed acyclic graph")
    indegree = graph.indegree()
    ready = [v for v, d in enumerate(indegree) if d == 0]
    heapq.heapify(ready)
    order = []
    successors = graph.get_adjlist(mode="out")
    while ready:
        v = heapq.heappop(ready)
        order.append(v)
        for w in successors[v]:
            indegree[w] -= 1
            if indegree[w] == 0:
                heapq.heappush(ready, w)
    if len(order) != graph.vcount():
        cycle = _a_cycle(graph, set(range(graph.vcount())) - set(order))
        raise GraphError(f"the graph has a directed cycle {' → '.join(map(str, cycle))}; it is not a DAG")
    return order


def _a_cycle(graph: igraph.Graph, candidates: set[int]) -> list[int]:
    """One directed cycle among ``candidates`` (vertices left over by Kahn's algorithm).

    The left-over vertices are the cycles and everything downstream of them,
    so walk backwards: every left-over vertex has a left-over predecessor.
    """
    predecessors = graph.get_adjlist(mode="in")
    v = min(candidates)
    seen: dict[int, int] = {}
    path: list[int] = []
    while v not in seen:
        seen[v] = len(path)
        path.append(v)
        v = next(u for u in predecessors[v] if u in candidates)
    cycle = path[seen[v] :] + [v]
    return cycle[::-1]


def longest_path_layers(graph: igraph.Graph) -> list[int]:
    """``1 +`` the number of edges of the longest directed path ending in each vertex.

    Sources get layer 1; every edge goes from a lower to a higher layer, and
    every vertex of layer ``l > 1`` has a predecessor in layer ``l - 1``.

    Returns
    -------
    list of int
        Indexed by vertex.

    Raises
    ------
    GraphError
        The graph is not a DAG.

    Examples
    --------
    An edge may skip a layer; the layer is set by the longest way in:

    >>> import igraph
    >>> g = igraph.Graph(n=4, edges=[(0, 1), (1, 2), (0, 2), (3, 2)], directed=True)
    >>> longest_path_layers(g)
    [1, 2, 3, 1]
    """
    require_igraph(graph, "graph", "longest_path_layers")
    layers = [1] * graph.vcount()
    successors = graph.get_adjlist(mode="out")
    for v in topological_order(graph):
        for w in successors[v]:
            layers[w] = max(layers[w], layers[v] + 1)
    return layers


def longest_path(graph: igraph.Graph) -> list[int]:
    """A longest directed path, as a list of vertices (among ties, the smallest read from the end).

    Examples
    --------
    >>> import igraph
    >>> longest_path(igraph.Graph(n=4, edges=[(0, 1), (1, 2), (0, 2), (3, 2)], directed=True))
    [0, 1, 2]
    >>> longest_path(igraph.Graph(directed=True))
    []
    """
    require_igraph(graph, "graph", "longest_path")
    return _best_chain(graph, lambda u, v: True)


def longest_layered_chain(graph: igraph.Graph, layer: str | Sequence[int] = "layer") -> list[int]:
    """A longest directed path whose vertices have consecutive layers, one vertex per layer.

    Parameters
    ----------
    graph : igraph.Graph
        A DAG.
    layer : str or sequence of int
        The vertex attribute holding each vertex's layer, or the layers themselves.

    Returns
    -------
    list of int
        Vertices ``v1, …, vk`` with an edge ``vi → vi+1`` and
        ``layer(vi+1) = layer(vi) + 1``; among longest chains, the one that is
        smallest as a sequence of vertex indices read from the end. Empty for
        an empty graph.

    Raises
    ------
    GraphError
        The graph is not a DAG, or lacks the layer attribute, or an edge goes
        from a higher to a lower or equal layer.

    See also
    --------
    longest_path_layers : with this layering, the longest layered chain is a longest path.

    Examples
    --------
    The edge ``0 → 2`` skips layer 2, so it cannot be part of a chain:

    >>> import igraph
    >>> g = igraph.Graph(n=4, edges=[(0, 2), (1, 3), (3, 2)], directed=True)
    >>> g.vs["layer"] = [1, 1, 3, 2]
    >>> longest_layered_chain(g)
    [1, 3, 2]
    """
    layers = _layers_of(graph, layer, "longest_layered_chain")
    if not is_layering(graph, layers):
        bad = next(e.tuple for e in graph.es if layers[e.source] >= layers[e.target])
        raise GraphError(f"edge {bad[0]} → {bad[1]} does not go up in layer ({layers[bad[0]]} → {layers[bad[1]]})")
    return _best_chain(graph, lambda u, v: layers[v] == layers[u] + 1)


def is_layering(graph: igraph.Graph, layer: str | Sequence[int] = "layer") -> bool:
    """Whether every edge goes from a lower to a strictly higher layer.

    Examples
    --------
    >>> import igraph
    >>> is_layering(igraph.Graph(n=2, edges=[(0, 1)], directed=True), [1, 1])
    False
    """
    layers = _layers_of(graph, layer, "is_layering")
    return all(layers[e.source] < layers[e.target] for e in graph.es)


def _layers_of(graph: igraph.Graph, layer: str | Sequence[int], caller: str) -> list[int]:
    """The layer of every vertex: ``layer`` is a vertex attribute's name or the layers themselves (checked)."""
    require_igraph(graph, "graph", caller)
    if isinstance(layer, str):
        if layer not in graph.vs.attributes():
            raise GraphError(f"{caller}: the graph has no vertex attribute layer={layer!r}; pass the layers or set it")
        layers = graph.vs[layer]
    else:
        layers = require_sequence(layer, "layer", caller)
    if len(layers) != graph.vcount():
        raise GraphError(f"{caller}: {len(layers)} layers given for {graph.vcount()} vertices (layer={describe(layer)})")
    odd = [l for l in layers if not isinstance(l, int) or isinstance(l, bool)]
    if odd:
        raise GraphError(f"{caller}: layer: the layers must be integers, got {describe(odd[0])}")
    return layers


def _best_chain(graph: igraph.Graph, allowed: Callable[[int, int], bool]) -> list[int]:
    """Dynamic programming over a topological order: the longest path using only allowed edges."""
    best: dict[int, tuple[int, list[int]]] = {}  # v -> (length, path ending in v, reversed for the tie-break)
    predecessors = graph.get_adjlist(mode="in")
    for v in topological_order(graph):
        options = [best[u] for u in predecessors[v] if allowed(u, v)]
        if options:
            length, path = max(options, key=lambda item: (item[0], [-x for x in reversed(item[1])]))
            best[v] = (length + 1, path + [v])
        else:
            best[v] = (1, [v])
    if not best:
        return []
    return max(best.values(), key=lambda item: (item[0], [-x for x in reversed(item[1])]))[1]
