"""The dependency graph of the candidates (and of the parameters), with its JSON and GraphML forms, and the
depth hierarchy: the longest layer-ordered chain and the depth bound it certifies (internal).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..atomic import write_json
from ..checks import describe, require_igraph, require_instance, require_path
from ..complex import CanonicalComplex, canonical_complex, check_complex_of
from ..domain import Box
from ..errors import (
    GraphError,
    GraphFormatError,
    NetworkFormatError,
    PolyReluError,
    UsageError,
)
from ..formulas import PieceJoin
from ..geometry import Polyhedron
from ..geometry.rational import MatrixLike, parse_number
from ..graphs import (
    igraph_to_networkx,
    longest_layered_chain,
    longest_path_layers,
    read_graphml,
    write_graphml,
)
from ..io.limits import DEFAULT_LIMITS, Limits, read_json
from ..network import ReLUNetwork
from ..tropical import BreakpointComplex, bent_hypersurfaces, tropical_weights
from ._candidates import CandidateHypersurfaces, candidate_hypersurfaces

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    import igraph
    import networkx as nx

FORMAT = "polyrelu.dependency_graph"


VERSION = 1


class DependencyGraph:
    """The dependency graph of the candidate bent hypersurfaces, an igraph DAG (docs/design.md §5).

    Attributes
    ----------
    graph : igraph.Graph
        Directed. Vertex attributes: ``facets`` (list of cell ids), ``layer``
        (int, the longest-path layer; None if the graph has a cycle),
        ``neuron`` (``[layer, index]`` of the network's neuron, or None when
        unknown or not a single one), ``complete`` (bool) and ``flat`` (bool,
        the candidate lies on one hyperplane); for graphs built from ``f``
        also ``pieces`` (the facets of each connected piece joined into the
        candidate), ``piece`` (why ``f`` cannot show the candidate to be a whole
        hypersurface, or None) and ``evidence`` (the join's evidence in JSON
        form, or None; :meth:`piece_joins` gives it as
        :class:`~polyrelu.formulas.PieceJoin`). Edge attributes: ``witness``
        (the smallest witness cell) and ``witnesses`` (all cells where the
        target bends crossing the source). Graph attributes: ``kind``
        (``"breakpoint"`` or ``"parameter"``) and ``input_dim``.
    candidates : CandidateHypersurfaces or None
        The grouping it was built from (None for parameter graphs and graphs read from files).
    network_depth : int or None
        The number of hidden layers of the network, when known.
    """

    def __init__(
        self,
        graph: igraph.Graph,
        candidates: CandidateHypersurfaces | None = None,
        network_depth: int | None = None,
        output_dim: int | None = None,
    ) -> None:
        self.graph = graph
        self.candidates = candidates
        self.network_depth = network_depth
        self.output_dim = output_dim

    def __repr__(self):
        return (
            f"<DependencyGraph ({self.graph['kind']}): {self.graph.vcount()} hypersurfaces, "
            f"{self.graph.ecount()} edges, layers {self.layer_sizes() if self.is_dag() else 'undefined (cycle)'}>"
        )

    def __len__(self):
        return self.graph.vcount()

    def is_dag(self) -> bool:
        return self.graph.is_dag()

    def layers(self) -> list[int]:
        """The layer of each vertex: 1 + the number of edges of the longest path ending in it.

        Raises
        ------
        GraphError
            The graph has a directed cycle (then the candidates are not
            hypersurfaces of one network; the message names the cycle).
        """
        return longest_path_layers(self.graph)

    def layer_sizes(self) -> tuple[int, ...]:
        """How many vertices each layer has, layer 1 first."""
        layers = self.layers()
        return tuple(layers.count(l) for l in range(1, max(layers, default=0) + 1))

    def neurons(self) -> dict[int, tuple[int, ...] | None]:
        """Vertex → the network's neuron ``(layer, index)``, or None (no network, or not exactly one)."""
        return {v.index: None if v["neuron"] is None else tuple(v["neuron"]) for v in self.graph.vs}

    def edges(self) -> list[tuple[int, int, Any]]:
        """The edges as ``(source, target, witness)`` triples, sorted."""
        return sorted((e.source, e.target, e["witness"]) for e in self.graph.es)

    def neuron_edges(self) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
        """The edges as pairs of neurons, without repeats (for comparison with :func:`parameter_dependency_graph`).

        Several vertices map to one neuron when pieces of its bent hypersurface
        could not be joined (a disconnected hypersurface of an earlier layer, or
        unresolved cells); this view merges them.

        Raises
        ------
        GraphError
            A vertex does not map to exactly one neuron.
        """
        neurons = self.neurons()
        if any(z is None for z in neurons.values()):
            raise GraphError("some vertices do not map to exactly one neuron; compare graphs with is_isomorphic")
        # every vertex maps to one neuron here (checked above)
        return sorted({(neurons[e.source], neurons[e.target]) for e in self.graph.es})  # type: ignore[misc]

    def is_isomorphic(self, other: DependencyGraph) -> bool:
        """Whether the two graphs are isomorphic as DAGs with layers (neuron labels ignored)."""
        require_instance(other, DependencyGraph, "other", "DependencyGraph.is_isomorphic")
        if self.graph.vcount() != other.graph.vcount() or self.graph.ecount() != other.graph.ecount():
            return False
        if not (self.is_dag() and other.is_dag()):
            return self.graph.isomorphic(other.graph)
        return self.graph.isomorphic_vf2(other.graph, color1=self.layers(), color2=other.layers())

    def piece_joins(self) -> dict[int, PieceJoin]:
        """Vertex → the evidence that ``f`` makes its pieces one neuron's hypersurface, where there is such evidence.

        Available on graphs built from ``f`` and on their JSON and GraphML
        forms read back (the evidence travels with the graph).

        Examples
        --------
        A last-layer neuron whose bent hypersurface falls into two pieces,
        joined by one formula over the first layer's outputs:

        >>> from polyrelu import canonical_complex, tropical_weights, breakpoint_complex
        >>> from polyrelu.examples import generic_network
        >>> net = generic_network((2, 3, 2, 2, 1), seed=22)
        >>> G = dependency_graph(breakpoint_complex(tropical_weights(canonical_complex(net))))
        >>> [(v, len(join.pieces), join.feature_layer) for v, join in G.piece_joins().items() if len(join.pieces) > 1]
        [(2, 2, 2)]
        >>> G2 = DependencyGraph.from_json(G.to_json())
        >>> G2.piece_joins() == G.piece_joins()
        True
        """
        if "evidence" not in self.graph.vs.attributes():
            return {}
        return {
            v.index: _join_from_json(v["evidence"], v["pieces"])
            for v in self.graph.vs
            if v["evidence"] is not None
        }

    # -- export ---------------------------------------------------------------------------
    def to_networkx(self) -> nx.DiGraph:
        """A ``networkx.DiGraph`` with the same attributes (node ``i`` is vertex ``i``)."""
        return igraph_to_networkx(self.graph)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict, valid under the ``dependency_graph`` schema (:func:`polyrelu.schemas.validate`)."""
        g = self.graph
        data = {
            "format": FORMAT,
            "version": VERSION,
            "kind": g["kind"],
            "input_dim": g["input_dim"],
            "network_depth": self.network_depth,
            "output_dim": self.output_dim,
            "vertices": [
                {
                    "id": v.index,
                    "facets": list(v["facets"]),
                    "layer": v["layer"],
                    "neuron": v["neuron"],
                    "complete": v["complete"],
                    "flat": v["flat"],
                    **({"visible": v["visible"]} if "visible" in g.vs.attributes() else {}),
                    **({key: v[key] for key in _JOIN_ATTRIBUTES} if "pieces" in g.vs.attributes() else {}),
                }
                for v in g.vs
            ],
            "edges": [
                {"source": e.source, "target": e.target, "witness": e["witness"], "witnesses": list(e["witnesses"])}
                for e in g.es
            ],
        }
        if self.candidates is not None:
            data["unresolved"] = [
                {"cell": u.cell, "facets": list(u.facets), "reason": u.reason} for u in self.candidates.unresolved
            ]
        if self.is_dag():
            data["depth_hierarchy"] = depth_hierarchy(self).to_json()
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> DependencyGraph:
        """Rebuild from :meth:`to_json` output (without the breakpoint complex).

        Raises
        ------
        GraphFormatError
            Not a polyrelu dependency graph, another version, or malformed.
        """
        if not isinstance(data, dict):
            raise GraphFormatError(f"DependencyGraph.from_json: data must be a {FORMAT} document (a dict), got {describe(data)}")
        if data.get("format") != FORMAT:
            raise GraphFormatError(f"not a {FORMAT} document (format = {data.get('format')!r})")
        if data.get("version") != VERSION:
            raise GraphFormatError(f"{FORMAT} version {data.get('version')!r} is not supported; this polyrelu reads {VERSION}")
        try:
            vertices = sorted(data["vertices"], key=lambda v: v["id"])
            if [v["id"] for v in vertices] != list(range(len(vertices))):
                raise GraphFormatError("vertex ids must be 0 .. n-1")
            graph = _make_graph(
                data["kind"],
                data["input_dim"],
                [
                    (list(v["facets"]), v["neuron"], bool(v["complete"]), bool(v["flat"]))
                    for v in vertices
                ],
                {(e["source"], e["target"]): list(e["witnesses"]) for e in data["edges"]},
            )
            if data["kind"] == "parameter":  # true layers, not the longest-path ones
                graph.vs["layer"] = [v["layer"] for v in vertices]
            if all("visible" in v for v in vertices) and vertices:
                graph.vs["visible"] = [bool(v["visible"]) for v in vertices]
            if any(key in v for v in vertices for key in _JOIN_ATTRIBUTES):
                _set_join_attributes(graph, [{key: v.get(key) for key in _JOIN_ATTRIBUTES} for v in vertices])
        except (KeyError, TypeError) as exc:
            raise GraphFormatError(f"malformed {FORMAT} document: missing or wrong field {exc}") from None
        return cls(graph, network_depth=data.get("network_depth"), output_dim=data.get("output_dim"))

    def write_json(self, path: os.PathLike | str) -> None:
        """Write :meth:`to_json` to ``path``, atomically: the previous file survives any failure.

        Raises
        ------
        OutputPathError
            ``path`` cannot be written (checked before anything is computed).
        """
        write_json(path, self.to_json, indent=1)

    @classmethod
    def read_json(cls, path: os.PathLike | str, limits: Limits = DEFAULT_LIMITS) -> DependencyGraph:
        """Read a graph written by :meth:`write_json`; the file's size and nesting are checked first.

        Raises
        ------
        GraphFormatError
            No such file, invalid JSON, or not a polyrelu dependency graph.
        LimitExceededError
            The file is over a limit of ``limits``.
        """
        require_path(path, "path", "DependencyGraph.read_json")
        require_instance(limits, Limits, "limits", "DependencyGraph.read_json")
        try:
            data = read_json(path, limits)
        except NetworkFormatError as exc:
            raise GraphFormatError(str(exc)) from None
        return cls.from_json(data)

    def write_graphml(self, path: os.PathLike | str) -> None:
        """GraphML with typed attributes (see :func:`polyrelu.graphs.write_graphml`), written atomically."""
        write_graphml(self.graph, path)

    @classmethod
    def read_graphml(cls, path: os.PathLike | str) -> DependencyGraph:
        """Read a graph written by :meth:`write_graphml`.

        Raises
        ------
        GraphFormatError
            The file is not a polyrelu dependency graph (no ``kind``, or vertex attributes missing).
        """
        graph = read_graphml(path)
        missing = {"facets", "layer", "neuron", "complete", "flat"} - set(graph.vs.attributes())
        if graph.vcount() and missing or "kind" not in graph.attributes():
            raise GraphFormatError(f"{path}: not a polyrelu dependency graph (missing {sorted(missing) or ['kind']})")
        if set(_JOIN_ATTRIBUTES) & set(graph.vs.attributes()):
            _set_join_attributes(graph, [{key: v.attributes().get(key) for key in _JOIN_ATTRIBUTES} for v in graph.vs], path)
        return cls(graph)


def _make_graph(kind, input_dim, vertices, edges):
    """An igraph DAG from ``[(facets, neuron, complete, flat)]`` and ``{(u, v): witnesses}``."""
    import igraph

    pairs = sorted(edges)
    g = igraph.Graph(n=len(vertices), edges=pairs, directed=True)
    g["kind"] = kind
    g["input_dim"] = input_dim
    g.vs["facets"] = [list(f) for f, *_ in vertices]
    g.vs["neuron"] = [None if z is None else list(z) for _, z, *_ in vertices]
    g.vs["complete"] = [c for *_, c, _ in vertices]
    g.vs["flat"] = [f for *_, f in vertices]
    g.es["witnesses"] = [sorted(edges[p]) for p in pairs]
    g.es["witness"] = [min(edges[p]) for p in pairs]
    g.vs["layer"] = longest_path_layers(g) if g.is_dag() else [None] * len(vertices)
    return g


_JOIN_ATTRIBUTES = ("pieces", "piece", "evidence")


def _join_to_json(join: PieceJoin) -> dict[str, Any]:
    """A :class:`PieceJoin` as JSON (rationals as ``"p/q"`` strings); its pieces are the vertex's own."""
    return {
        "feature_layer": join.feature_layer,
        "formula": [str(v) for v in join.formula],
        "points": [[str(v) for v in point] for point in join.points],
        "column": [str(v) for v in join.column],
    }


def _rational(text, where):
    """The exact rational of a ``"p/q"`` string in lowest terms (the document's own spelling), else GraphFormatError."""
    if type(text) is not str:
        raise GraphFormatError(f"{where}: {describe(text)} is not a rational string such as '3/4'")
    try:
        value = parse_number(text, where)
    except PolyReluError as exc:
        raise GraphFormatError(str(exc)) from None
    if str(value) != text:
        raise GraphFormatError(f"{where}: {text[:40]!r} is not written as polyrelu writes it ('p/q' in lowest terms)")
    return value


def _join_from_json(data, pieces, where="evidence"):
    """The :class:`PieceJoin` of a vertex's ``evidence`` and ``pieces`` (already checked by :func:`_set_join_attributes`)."""
    return PieceJoin(
        data["feature_layer"],
        tuple(_rational(v, f"{where}.formula") for v in data["formula"]),
        tuple(tuple(p) for p in pieces),
        tuple(tuple(_rational(v, f"{where}.points") for v in point) for point in data["points"]),
        tuple(_rational(v, f"{where}.column") for v in data["column"]),
    )


def _set_join_attributes(graph, rows, source="document"):
    """Check the ``pieces``/``piece``/``evidence`` of every vertex read from a file, then set them on ``graph``."""
    n0 = graph["input_dim"]
    for i, (row, facets) in enumerate(zip(rows, graph.vs["facets"])):
        where = f"{source}: vertex {i}"
        pieces, piece, evidence = (row[key] for key in _JOIN_ATTRIBUTES)
        if not (isinstance(pieces, list) and pieces and all(isinstance(p, list) and p for p in pieces)) or sorted(
            f for p in pieces for f in p
        ) != sorted(facets):
            raise GraphFormatError(f"{where}: 'pieces' must split the vertex's facets into non-empty lists")
        if piece is not None and type(piece) is not str:
            raise GraphFormatError(f"{where}: 'piece' must be a string or null, got {describe(piece)}")
        if evidence is None:
            continue
        if not isinstance(evidence, dict) or set(evidence) != {"feature_layer", "formula", "points", "column"}:
            raise GraphFormatError(f"{where}: 'evidence' must be null or have feature_layer, formula, points and column")
        if type(evidence["feature_layer"]) is not int or evidence["feature_layer"] < 0:
            raise GraphFormatError(f"{where}: evidence.feature_layer must be an integer >= 0")
        points = evidence["points"]
        if not isinstance(points, list) or len(points) != len(pieces) or not all(isinstance(p, list) and len(p) == n0 for p in points):
            raise GraphFormatError(f"{where}: evidence.points must give one point of R^{n0} on each of the {len(pieces)} pieces")
        if not (isinstance(evidence["formula"], list) and evidence["formula"] and isinstance(evidence["column"], list)):
            raise GraphFormatError(f"{where}: evidence.formula must be a non-empty list of rationals, evidence.column a list")
        _join_from_json(evidence, pieces, f"{where}: evidence")  # every number in the document's own spelling
    for key in _JOIN_ATTRIBUTES:
        graph.vs[key] = [row[key] for row in rows]


def dependency_graph(breakpoints: BreakpointComplex, candidates: CandidateHypersurfaces | None = None) -> DependencyGraph:
    """The dependency graph of ``f``: candidates, and ``B' → B`` when ``B`` bends where it crosses ``B'``.

    Parameters
    ----------
    breakpoints : BreakpointComplex
    candidates : CandidateHypersurfaces, optional
        Reused if already computed.

    Returns
    -------
    DependencyGraph
        With ``neuron`` attributes filled in when the breakpoint complex was
        computed from a network (for comparison only: nothing else uses them).

    Examples
    --------
    A generic 2→3→2→1 network: three lines, two bent hypersurfaces bending along
    them; the graph read from ``f`` is the one read from the parameters:

    >>> from polyrelu import canonical_complex, tropical_weights, breakpoint_complex
    >>> from polyrelu.examples import generic_network
    >>> net = generic_network((2, 3, 2, 1), seed=0)
    >>> G = dependency_graph(breakpoint_complex(tropical_weights(canonical_complex(net))))
    >>> G.layer_sizes(), G.neuron_edges() == parameter_dependency_graph(net).neuron_edges()
    ((3, 2), True)
    """
    require_instance(breakpoints, BreakpointComplex, "breakpoints", "dependency_graph")
    require_instance(candidates, CandidateHypersurfaces, "candidates", "dependency_graph", optional=True)
    if candidates is not None and candidates.breakpoints is not breakpoints:
        raise UsageError(
            "dependency_graph: candidates were grouped from another breakpoint complex; "
            "compute them with polyrelu.candidate_hypersurfaces(breakpoints)"
        )
    C = candidates if candidates is not None else candidate_hypersurfaces(breakpoints)
    edges: dict[tuple[int, int], list[int]] = {}
    for x in C.crossings:
        if x.bending is None:
            continue
        for source in x.candidates:
            if source != x.bending:
                edges.setdefault((source, x.bending), []).append(x.cell)
    known = getattr(breakpoints, "complex", None) is not None
    graph = _make_graph(
        "breakpoint",
        breakpoints.input_dim,
        [(c.facets, c.neuron if known else None, c.complete, c.hyperplane is not None) for c in C],
        edges,
    )
    graph.vs["pieces"] = [[list(p) for p in c.pieces] for c in C]
    graph.vs["piece"] = [c.piece for c in C]
    graph.vs["evidence"] = [None if c.evidence is None else _join_to_json(c.evidence) for c in C]
    arch = breakpoints.complex.network.architecture if known else None
    return DependencyGraph(
        graph, C, network_depth=arch.depth if arch else None, output_dim=arch.output_dim if arch else None
    )


def parameter_dependency_graph(
    network: ReLUNetwork, domain: Box | Polyhedron | MatrixLike | None = None, complex_: CanonicalComplex | None = None
) -> DependencyGraph:
    """The ground-truth dependency graph, read off the parameters.

    One vertex per neuron with a non-empty bent hypersurface, with its true
    layer; an edge ``z' → z`` when ``B_z`` bends at a cell where ``z'`` (of an
    earlier layer) vanishes, witnessed by those cells of the canonical complex.

    Parameters
    ----------
    network : ReLUNetwork
    domain : optional
        As for :func:`~polyrelu.complex.canonical_complex`.
    complex_ : CanonicalComplex, optional
        Reused if already computed.

    Returns
    -------
    DependencyGraph
        Of kind ``"parameter"``: ``facets`` are canonical cell ids, ``layer`` is
        the true layer, and the extra vertex attribute ``visible`` says whether
        some facet of the hypersurface has a non-zero weight.
    """
    require_instance(network, ReLUNetwork, "network", "parameter_dependency_graph")
    check_complex_of(complex_, network, domain, "parameter_dependency_graph")
    K = complex_ if complex_ is not None else canonical_complex(network, domain)
    weighted = tropical_weights(K)
    W = weighted.weights()
    B = {z: b for z, b in bent_hypersurfaces(K, weighted).items() if b.facets}
    neurons = sorted(B)
    index = {z: i for i, z in enumerate(neurons)}
    edges: dict[tuple[int, int], list[int]] = {}
    for z in neurons:
        for cell, along in B[z].bends:
            for earlier in along:
                if earlier in index:
                    edges.setdefault((index[earlier], index[z]), []).append(cell)
    graph = _make_graph("parameter", network.architecture.input_dim, [(B[z].facets, z, True, z[0] == 1) for z in neurons], edges)
    graph.vs["layer"] = [z[0] for z in neurons]
    graph.vs["visible"] = [any(f in W and any(W[f].weight) for f in B[z].facets) for z in neurons]
    return DependencyGraph(graph, network_depth=network.architecture.depth, output_dim=network.architecture.output_dim)


@dataclass(frozen=True)
class DepthHierarchy:
    """The longest layer-ordered chain of a dependency graph and what it certifies (docs/design.md §5).

    Attributes
    ----------
    chain : tuple of int
        Vertices ``v1 → … → vk``, one per layer, consecutive layers.
    certificate : tuple of (int, int, int)
        For each chain edge, ``(source, target, witness cell)``: a cell where
        the target bends crossing the source.
    lower_bound : int
        ``k``: no generic realization of ``f`` has fewer hidden layers.
    layer_sizes : tuple of int
        Vertices per layer: the widths of the realization the layering points to.
    network_depth : int or None
        Hidden layers of the network that computed ``f``, when known.
    neurons : tuple
        The network's neuron behind each chain vertex, when known.
    incomplete : int
        Vertices that are pieces cut off at unresolved cells: the layering,
        and so anything beyond the lower bound, is then not reliable.
    input_dim : int or None
        ``n0``; with ``n0 = 1`` hypersurfaces are points that never cross, so
        the graph has no edges by dimension, not by evidence.
    """

    chain: tuple[int, ...]
    certificate: tuple[tuple[int, int, int | None], ...]
    lower_bound: int
    layer_sizes: tuple[int, ...]
    network_depth: int | None
    neurons: tuple[Any, ...]
    incomplete: int = 0
    input_dim: int | None = None

    @property
    def verdict(self) -> str:
        """One of ``"depth attained"``, ``"shallower realization suggested"``,
        ``"undetermined"`` (shorter chain, but some candidates are incomplete),
        ``"inconsistent"`` (longer than the network's depth) or ``"no network"``."""
        if self.network_depth is None:
            return "no network"
        if self.lower_bound == self.network_depth:
            return "depth attained"
        if self.lower_bound > self.network_depth:
            return "inconsistent"
        blind = self.incomplete or (self.input_dim is not None and self.input_dim < 2)
        return "undetermined" if blind else "shallower realization suggested"

    def __str__(self):
        k = self.lower_bound
        chain = " → ".join(
            f"{v}{'' if z is None else f' {tuple(z)}'}" for v, z in zip(self.chain, self.neurons or [None] * k)
        )
        lines = [
            f"longest layer-ordered chain ({_count(k, 'vertex', 'vertices')}): {chain or 'none'}",
            f"no generic realization of f has fewer than {_count(k, 'hidden layer')}",
        ]
        if self.verdict == "depth attained":
            lines.append(f"the network's {self.network_depth} hidden layers are the fewest a generic realization can have")
        elif self.verdict == "shallower realization suggested":
            lines.append(
                f"the network has {_count(self.network_depth, 'hidden layer')} but the chain only {k}: the layering "
                f"points to a realization with {_count(len(self.layer_sizes), 'hidden layer')} of widths {self.layer_sizes}"
            )
        elif self.verdict == "undetermined" and not self.incomplete:
            lines.append(
                f"the network has {_count(self.network_depth, 'hidden layer')}; with one input, hypersurfaces are "
                "points and never cross, so f shows no bending relation to layer by"
            )
        elif self.verdict == "undetermined":
            lines.append(
                f"the network has {_count(self.network_depth, 'hidden layer')} and the chain {k}, but "
                f"{_count(self.incomplete, 'candidate')} stop at unresolved cells (f is not generic): "
                "the layering does not say which shallower realization, if any, exists"
            )
        elif self.verdict == "inconsistent":
            lines.append(
                f"the chain is longer than the network's {self.network_depth} hidden layers: the candidates are not "
                "the network's hypersurfaces (check genericity)"
            )
        return "\n".join(lines)

    def verify(self, candidates: CandidateHypersurfaces) -> list[tuple[int, int, int | None, str]]:
        """Re-check every certificate step on the breakpoint complex; return the failures (empty if sound).

        For a step ``(u, v, cell)``: exactly four breakpoint facets meet at the
        cell, two of candidate ``u`` on one hyperplane (``u`` goes straight
        through) and two of candidate ``v`` on two different hyperplanes
        (``v`` bends there). Uses only the breakpoint complex.

        Parameters
        ----------
        candidates : CandidateHypersurfaces
            The grouping the graph was built from (``DependencyGraph.candidates``).
        """
        B = require_instance(candidates, CandidateHypersurfaces, "candidates", "DepthHierarchy.verify").breakpoints
        is_facet = set(B.breakpoint_facets())
        failures = []
        for u, v, cell in self.certificate:
            through = [f for f in B.lattice.cofacets(cell) if f in is_facet]
            of_u = [f for f in through if f in candidates[u].facets]
            of_v = [f for f in through if f in candidates[v].facets]
            if len(through) != 4 or len(of_u) != 2 or len(of_v) != 2:
                failures.append((u, v, cell, f"{len(through)} facets meet, {len(of_u)} of {u} and {len(of_v)} of {v}"))
            elif B.hyperplane(of_u[0]) != B.hyperplane(of_u[1]):
                failures.append((u, v, cell, f"{u} does not go straight through"))
            elif B.hyperplane(of_v[0]) == B.hyperplane(of_v[1]):
                failures.append((u, v, cell, f"{v} does not bend"))
        return failures

    def to_json(self) -> dict[str, Any]:
        return {
            "chain": list(self.chain),
            "certificate": [list(c) for c in self.certificate],
            "lower_bound": self.lower_bound,
            "layer_sizes": list(self.layer_sizes),
            "network_depth": self.network_depth,
            "incomplete": self.incomplete,
            "verdict": self.verdict,
        }


def _count(n, noun, plural=None):
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


def depth_hierarchy(graph: DependencyGraph | igraph.Graph, layer: str | Sequence[int] = "layer") -> DepthHierarchy:
    """The longest layer-ordered chain, its certificate and the depth lower bound (docs/design.md §5).

    Parameters
    ----------
    graph : DependencyGraph or igraph.Graph
        A DAG. A :class:`DependencyGraph` is layered by longest paths (for a
        parameter graph too, whose ``layer`` attribute holds the true layers).
        For a bare igraph graph, ``layer`` names the vertex attribute holding
        the layers (or gives them) and the witness is read from the edge
        attribute ``witness`` when present.
    layer : str or sequence of int

    Returns
    -------
    DepthHierarchy

    Raises
    ------
    GraphError
        The graph has a cycle, or an edge that does not go up in layer.

    Examples
    --------
    >>> from polyrelu.examples import generic_network
    >>> H = depth_hierarchy(parameter_dependency_graph(generic_network((2, 2, 2, 2, 1), seed=0)))
    >>> H.lower_bound, H.verdict, [z for z in H.neurons]
    (3, 'depth attained', [(1, 0), (2, 0), (3, 0)])
    """
    require_igraph(graph, "graph", "depth_hierarchy", also=(DependencyGraph,))
    layers: str | Sequence[int]
    if isinstance(graph, DependencyGraph):
        if not (isinstance(layer, str) and layer == "layer"):
            raise UsageError(
                f"depth_hierarchy: layer is for a bare igraph graph; a DependencyGraph is layered by longest paths, "
                f"leave layer out (got {describe(layer)})"
            )
        # the longest-path layering for both kinds: a parameter graph's true layers may leave a layer
        # empty (a stably active one), and the chain is about what the bending relation certifies
        g, depth = graph.graph, graph.network_depth
        layers = graph.layers()
    else:
        g, depth = graph, None
        layers = g.vs[layer] if isinstance(layer, str) and layer in g.vs.attributes() else layer
    chain = longest_layered_chain(g, layers)
    has_witness = "witness" in g.es.attributes()
    certificate = tuple(
        (u, v, g.es[g.get_eid(u, v)]["witness"] if has_witness else None) for u, v in zip(chain, chain[1:])
    )
    neurons: tuple[Any, ...] = ()
    if "neuron" in g.vs.attributes():
        neurons = tuple(None if g.vs[v]["neuron"] is None else tuple(g.vs[v]["neuron"]) for v in chain)
    # layers are integers here: longest_layered_chain refused a missing attribute and anything else
    sizes = tuple(list(layers).count(l) for l in range(1, max(layers, default=0) + 1))  # type: ignore[operator]
    incomplete = sum(1 for c in g.vs["complete"] if not c) if "complete" in g.vs.attributes() else 0
    input_dim = g["input_dim"] if "input_dim" in g.attributes() else None
    return DepthHierarchy(tuple(chain), certificate, len(chain), sizes, depth, neurons, incomplete, input_dim)


# The package re-homes these classes to polyrelu.dependency, and doctest skips the methods of a class whose module is
# not the one being searched: listing them here keeps their examples running (tests/test_docs.py checks it).
__test__ = {"DependencyGraph": DependencyGraph, "DepthHierarchy": DepthHierarchy}
