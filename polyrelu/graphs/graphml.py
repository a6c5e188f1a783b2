"""GraphML reading and writing for igraph graphs that keeps attribute types.

igraph's own GraphML writer stores every number as a double and refuses
lists; networkx's refuses lists too. Here each attribute gets one GraphML type
from its values: ``boolean``, ``long`` (Python ``int``), ``double``,
``string``, or, for anything else JSON can hold (lists, ``None``, mixed
values), a ``string`` holding JSON, marked by the extra key attribute
``polyrelu.json="true"``. :func:`read_graphml` undoes all of it, so a round
trip gives back equal attribute values of equal types (JSON lists come back as
lists). Files written here are valid GraphML that any reader accepts; such
readers see the JSON attributes as strings.
"""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING, Any

from ..atomic import atomic_write, check_output_path
from ..checks import require_igraph, require_path
from ..errors import GraphFormatError

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    import igraph

__all__ = ["write_graphml", "read_graphml"]

_NS = "http://graphml.graphdrawing.org/xmlns"
_JSON_FLAG = "polyrelu.json"
_DOMAINS = (("graph", "graph"), ("node", "vertex"), ("edge", "edge"))


def write_graphml(graph: igraph.Graph, path: os.PathLike | str) -> None:
    """Write an igraph graph to GraphML, keeping attribute types.

    Parameters
    ----------
    graph : igraph.Graph
    path : str or path-like

    Raises
    ------
    OutputPathError
        ``path`` cannot be written (checked before anything else).
    GraphFormatError
        An attribute value JSON cannot represent (the message names it).

    Notes
    -----
    The file is written atomically (:func:`~polyrelu.atomic.atomic_write`):
    after any failure the previous file at ``path`` is still there, unchanged.

    Examples
    --------
    >>> import igraph, tempfile, os
    >>> g = igraph.Graph(n=2, edges=[(0, 1)], directed=True)
    >>> g.vs["layer"] = [1, 2]; g.vs["facets"] = [[3, 4], [5]]; g.es["witness"] = [7]
    >>> path = os.path.join(tempfile.mkdtemp(), "g.graphml")
    >>> write_graphml(g, path)
    >>> h = read_graphml(path)
    >>> h.vs["layer"], h.vs["facets"], h.es["witness"], h.is_directed()
    ([1, 2], [[3, 4], [5]], [7], True)
    """
    require_igraph(graph, "graph", "write_graphml")
    check_output_path(path)
    ET.register_namespace("", _NS)
    root = ET.Element(f"{{{_NS}}}graphml")
    tables = {
        "graph": {k: [graph[k]] for k in graph.attributes()},
        "node": {k: graph.vs[k] for k in graph.vs.attributes()},
        "edge": {k: graph.es[k] for k in graph.es.attributes()},
    }
    keys = {}
    for domain, _ in _DOMAINS:
        for n, (name, values) in enumerate(sorted(tables[domain].items())):
            kind = _graphml_type(values)
            key_id = f"{domain[0]}{n}"
            element = ET.SubElement(root, f"{{{_NS}}}key", id=key_id, attrib={"for": domain})
            element.set("attr.name", name)
            element.set("attr.type", "string" if kind == "json" else kind)
            if kind == "json":
                element.set(_JSON_FLAG, "true")
            keys[domain, name] = (key_id, kind)
    g = ET.SubElement(root, f"{{{_NS}}}graph", id="G", edgedefault="directed" if graph.is_directed() else "undirected")

    def data(parent: ET.Element, domain: str, name: str, value: Any) -> None:
        key_id, kind = keys[domain, name]
        ET.SubElement(parent, f"{{{_NS}}}data", key=key_id).text = _encode(value, kind, name)

    for name, (value,) in sorted(tables["graph"].items()):
        data(g, "graph", name, value)
    for v in graph.vs:
        node = ET.SubElement(g, f"{{{_NS}}}node", id=f"n{v.index}")
        for name, value in sorted(v.attributes().items()):
            data(node, "node", name, value)
    for e in graph.es:
        edge = ET.SubElement(g, f"{{{_NS}}}edge", source=f"n{e.source}", target=f"n{e.target}")
        for name, value in sorted(e.attributes().items()):
            data(edge, "edge", name, value)
    with atomic_write(path, "wb") as fh:
        ET.ElementTree(root).write(fh, encoding="utf-8", xml_declaration=True)


def read_graphml(path: os.PathLike | str) -> igraph.Graph:
    """Read a GraphML file into an igraph graph, restoring attribute types.

    Files from other writers are read too: ``int``/``long`` become ``int``,
    ``float``/``double`` become ``float``, ``boolean`` becomes ``bool``; a
    missing value becomes the key's default, else ``None``. Node ids are kept
    in the vertex attribute ``id`` unless they are ``n0, n1, …`` in order.

    Raises
    ------
    GraphFormatError
        Not GraphML, a ``<key>`` without an id, a ``<data>`` with an undeclared key, a value that does not
        parse as its declared type, an edge to an unknown node, or more than
        one graph.
    """
    import igraph

    require_path(path, "path", "read_graphml")
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as exc:
        raise GraphFormatError(f"{path}: not a readable XML file ({exc})") from None
    if root.tag != f"{{{_NS}}}graphml":
        raise GraphFormatError(f"{path}: the root element is {root.tag!r}, not GraphML's <graphml>")
    # id -> (scope, attribute name, kind, default); the name defaults to the id, which every key must have
    keys: dict[str | None, tuple[str, Any, str, Any]] = {}
    for number, element in enumerate(root.findall(f"{{{_NS}}}key"), start=1):
        if not element.get("id"):
            raise GraphFormatError(f"{path}: <key> number {number} has no id; GraphML needs one on every <key>")
        kind = "json" if element.get(_JSON_FLAG) == "true" else element.get("attr.type", "string")
        if kind not in ("json", "boolean", "int", "long", "float", "double", "string"):
            raise GraphFormatError(f"{path}: key {element.get('id')!r} has unknown type {kind!r}")
        default = element.find(f"{{{_NS}}}default")
        keys[element.get("id")] = (
            element.get("for", "all"),
            element.get("attr.name", element.get("id")),
            kind,
            None if default is None else _decode(default.text, kind, path),
        )
    graphs = root.findall(f"{{{_NS}}}graph")
    if len(graphs) != 1:
        raise GraphFormatError(f"{path}: {len(graphs)} <graph> elements; polyrelu reads exactly one")
    (g_element,) = graphs
    directed = g_element.get("edgedefault", "directed") == "directed"

    def attributes(element: ET.Element, domain: str) -> dict[Any, Any]:
        values = {name: default for _, (scope, name, _, default) in keys.items() if scope in (domain, "all")}
        for d in element.findall(f"{{{_NS}}}data"):
            if d.get("key") not in keys:
                raise GraphFormatError(f"{path}: <data key={d.get('key')!r}> refers to no declared <key>")
            _, name, kind, _ = keys[d.get("key")]
            values[name] = _decode(d.text, kind, path)
        return values

    nodes = g_element.findall(f"{{{_NS}}}node")
    ids = [n.get("id") for n in nodes]
    index = {node_id: i for i, node_id in enumerate(ids)}
    edges = []
    for e in g_element.findall(f"{{{_NS}}}edge"):
        if e.get("source") not in index or e.get("target") not in index:
            raise GraphFormatError(f"{path}: edge {e.get('source')} → {e.get('target')} names an unknown node")
        edges.append(e)
    graph = igraph.Graph(n=len(nodes), edges=[(index[e.get("source")], index[e.get("target")]) for e in edges], directed=directed)
    for name, value in attributes(g_element, "graph").items():
        graph[name] = value
    for domain, elements, seq in (("node", nodes, graph.vs), ("edge", edges, graph.es)):
        table = [attributes(element, domain) for element in elements]
        declared = {name for scope, name, _, _ in keys.values() if scope in (domain, "all")}
        for name in sorted(declared | {name for row in table for name in row}):
            seq[name] = [row.get(name) for row in table]
    if ids != [f"n{i}" for i in range(len(ids))]:
        graph.vs["id"] = ids
    return graph


def _forbidden(c: str) -> bool:
    o = ord(c)
    return (o < 0x20 and c not in "\t\n") or 0xD800 <= o <= 0xDFFF or o in (0xFFFE, 0xFFFF)


def _graphml_type(values: list[Any]) -> str:
    kinds = {type(v) for v in values}
    if kinds == {str} and any("\r" in v for v in values):
        return "json"
    if kinds == {bool}:
        return "boolean"
    if kinds == {int}:
        return "long"
    if kinds <= {float, int} and float in kinds:
        return "double" if kinds == {float} else "json"
    if kinds == {str}:
        return "string"
    return "json"


def _encode(value: Any, kind: str, name: str) -> str:
    if kind == "string":
        # XML readers turn a raw carriage return into a newline; JSON escapes it. Characters XML 1.0 cannot
        # hold at all are refused here rather than producing a file no reader accepts.
        if any(_forbidden(c) for c in value):
            raise GraphFormatError(f"attribute {name!r}: {value!r} has a character XML 1.0 cannot hold")
        return value
    if kind == "boolean":
        return "true" if value else "false"
    if kind == "json":
        try:
            return json.dumps(value, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise GraphFormatError(f"attribute {name!r}: {value!r} cannot be written as JSON ({exc})") from None
    return repr(value) if kind == "double" else str(value)


def _decode(text: str | None, kind: str, path: os.PathLike | str) -> Any:
    text = "" if text is None else text
    try:
        if kind == "boolean":
            if text.strip().lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"{text!r} is not a boolean")
            return text.strip().lower() in ("true", "1")
        if kind in ("int", "long"):
            return int(text)
        if kind in ("float", "double"):
            return float(text)
        if kind == "json":
            return json.loads(text)
        return text
    except ValueError as exc:
        raise GraphFormatError(f"{path}: value {text!r} is not of its declared type {kind} ({exc})") from None
