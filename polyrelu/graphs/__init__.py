"""igraph helpers for polyrelu: DAG layerings and chains, conversions, typed GraphML.

Like :mod:`polyrelu.geometry`, this subpackage knows nothing about neural
networks; it works on any igraph graph.
"""

from .convert import igraph_to_networkx, networkx_to_igraph
from .dag import (
    is_layering,
    longest_layered_chain,
    longest_path,
    longest_path_layers,
    topological_order,
)
from .graphml import read_graphml, write_graphml

__all__ = [
    "igraph_to_networkx",
    "networkx_to_igraph",
    "topological_order",
    "longest_path_layers",
    "longest_path",
    "longest_layered_chain",
    "is_layering",
    "write_graphml",
    "read_graphml",
]
