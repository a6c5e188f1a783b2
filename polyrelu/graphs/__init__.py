"""igraph helpers for polyrelu: conversions (and, later, DAG chains and layering).

Like :mod:`polyrelu.geometry`, this subpackage knows nothing about neural
networks; it works on any igraph graph.
"""

from .convert import igraph_to_networkx, networkx_to_igraph

__all__ = ["igraph_to_networkx", "networkx_to_igraph"]
