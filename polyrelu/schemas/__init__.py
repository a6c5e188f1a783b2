"""The JSON Schemas of polyrelu's documents, shipped inside the package, and a validator.

Every JSON document polyrelu writes has a schema (JSON Schema draft
2020-12), one file each in this directory, and a polyrelu error for
documents that fail it:

- ``network``: ``save_network`` / ``network_to_dict`` (and ``polyrelu recover -o``);
  refused with ``NetworkFormatError``.
- ``complex``: ``CanonicalComplex.to_json`` (and ``WeightedComplex.to_json``,
  which adds weights); refused with ``ComplexFormatError``.
- ``dependency_graph``: ``DependencyGraph.to_json``; refused with ``GraphFormatError``.
- ``analysis``: ``polyrelu analyze --json``; refused with ``AnalysisFormatError``.
- ``decision_complex``: ``DecisionComplex.to_json`` (``polyrelu decision -o``) and
  ``slice``: ``Slice.to_json`` (``polyrelu slice -o``), which hold a complex;
  refused with ``ComplexFormatError``.
- ``homology``: ``polyrelu.topology.homology_document`` (``polyrelu decision
  --homology``), ``survey`` (``polyrelu survey -o``) and ``builtins``
  (``polyrelu builtins -o``); refused with ``DocumentFormatError``.

Each document names its kind in its ``format`` field (``"polyrelu.network"``
and so on), so :func:`validate` (``polyrelu.validate``) finds the schema by
itself; a document without such a field is refused with
``DocumentFormatError``, the base of all these errors.

Every schema has an ``$id`` under ``https://polyrelu.invalid/schema/`` (the
``.invalid`` domain never resolves), and every ``$ref`` names one of these
files (``network``, ``analysis``, ``decision_complex`` and ``slice`` refer to
definitions of ``complex``, ``analysis`` to ``dependency_graph`` as well). :func:`validator`
registers all of them with a :class:`referencing.Registry`, so references
resolve from the package alone: nothing is ever fetched from the network.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
from importlib import resources
from typing import Any, Literal, TypeAlias, cast

import jsonschema
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from ..checks import describe, require_choice, require_str
from ..errors import (
    AnalysisFormatError,
    ComplexFormatError,
    DocumentFormatError,
    GraphFormatError,
    NetworkFormatError,
)

__all__ = ["DocumentKind", "SCHEMA_NAMES", "FORMATS", "schema", "validator", "validate"]

#: The kinds of document that have a schema (the ``kind`` argument of :func:`validate`).
DocumentKind: TypeAlias = Literal[
    "analysis", "builtins", "complex", "decision_complex", "dependency_graph", "homology", "network", "slice", "survey"
]

SCHEMA_NAMES: tuple[DocumentKind, ...] = (
    "analysis", "builtins", "complex", "decision_complex", "dependency_graph", "homology", "network", "slice", "survey"
)

#: The ``format`` field of each kind of document, as its writer sets it.
FORMATS: dict[str, DocumentKind] = {f"polyrelu.{name}": name for name in SCHEMA_NAMES}

_ERRORS: dict[str, type[DocumentFormatError]] = {
    "analysis": AnalysisFormatError,
    "builtins": DocumentFormatError,
    "complex": ComplexFormatError,
    "decision_complex": ComplexFormatError,
    "dependency_graph": GraphFormatError,
    "homology": DocumentFormatError,
    "network": NetworkFormatError,
    "slice": ComplexFormatError,
    "survey": DocumentFormatError,
}

# Longest part of jsonschema's message kept: it quotes the offending value, which may be a whole cell.
_MESSAGE_CHARS = 240
# Keywords that only annotate: a $ref with nothing else beside them can be replaced by its target.
_ANNOTATIONS = {"description", "title", "$comment", "examples", "default"}


def _check_name(name: str, caller: str) -> None:
    require_choice(name, SCHEMA_NAMES, "name", caller)


@functools.cache
def _load(name: str) -> dict[str, Any]:
    return json.loads((resources.files(__package__) / f"{name}.schema.json").read_text(encoding="utf-8"))


def schema(name: DocumentKind) -> dict[str, Any]:
    """The JSON Schema of a polyrelu document, as a fresh dict.

    Parameters
    ----------
    name : str
        One of :data:`SCHEMA_NAMES`.

    Returns
    -------
    dict
        The schema; its ``$ref`` to another file resolve through :func:`validator`.

    Raises
    ------
    UsageError
        No schema of that name.

    Examples
    --------
    >>> schema("complex")["$id"]
    'https://polyrelu.invalid/schema/complex.schema.json'
    >>> schema("analysis")["properties"]["dependency_graph"]
    {'$ref': 'dependency_graph.schema.json'}
    >>> schema("network")["$ref"]
    'complex.schema.json#/$defs/network'
    """
    _check_name(name, "schema")
    return copy.deepcopy(_load(name))


@functools.cache
def _registry() -> Registry:
    resources_ = [Resource.from_contents(_load(name), default_specification=DRAFT202012) for name in SCHEMA_NAMES]
    # every shipped schema has an $id (see the module docstring), so id() is never None here
    return Registry().with_resources((cast(str, resource.id()), resource) for resource in resources_).crawl()


def _inline_local_refs(node: Any, defs: dict[str, Any]) -> Any:
    """``node`` with every ``#/$defs/...`` reference replaced by its definition (the definitions do not recurse).

    jsonschema resolves a ``$ref`` again at every instance it visits; a complex
    file has hundreds of thousands of numbers, each behind two references, and
    inlining halves the time to validate it. A ``$ref`` with only annotations
    beside it becomes its target; with other keywords, ``allOf`` keeps the
    meaning exactly.
    """
    if isinstance(node, list):
        return [_inline_local_refs(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: v if k == "$defs" else _inline_local_refs(v, defs) for k, v in node.items()}
    ref = node.get("$ref")
    if not (isinstance(ref, str) and ref.startswith("#/$defs/")):
        return node
    target = _inline_local_refs(defs[ref[len("#/$defs/") :]], defs)
    rest = {k: v for k, v in node.items() if k != "$ref"}
    return {**target, **rest} if set(rest) <= _ANNOTATIONS else {"allOf": [target], **rest}


def validator(name: DocumentKind) -> jsonschema.Draft202012Validator:
    """A :class:`jsonschema.Draft202012Validator` for one document, every ``$ref`` resolved offline.

    Use it to list every error (``iter_errors``) or to ask ``is_valid``;
    :func:`validate` raises polyrelu's own error for the first one.

    Raises
    ------
    UsageError
        No schema of that name.

    Examples
    --------
    >>> validator("dependency_graph").is_valid({"format": "polyrelu.dependency_graph"})
    False
    """
    _check_name(name, "validator")
    return _validator(name)


@functools.cache
def _validator(name: str) -> jsonschema.Draft202012Validator:
    schema_ = _load(name)
    return jsonschema.Draft202012Validator(_inline_local_refs(schema_, schema_.get("$defs", {})), registry=_registry())


def _kind_of(data: Any, where: str) -> DocumentKind:
    """The kind a document names in its ``format`` field; DocumentFormatError if it names none."""
    formats = ", ".join(repr(f) for f in FORMATS)
    hint = f"polyrelu's documents say {formats}; pass kind= to validate against one schema"
    if not isinstance(data, dict):
        raise DocumentFormatError(f"{where}: at $: a polyrelu document is a JSON object, got {describe(data)}; {hint}")
    if "format" not in data:
        raise DocumentFormatError(f"{where}: at $: no 'format' field, so the kind of document is unknown; {hint}")
    fmt = data["format"]
    if not (isinstance(fmt, str) and fmt in FORMATS):
        shown = repr(fmt) if isinstance(fmt, str) and len(fmt) <= 80 else describe(fmt)
        raise DocumentFormatError(f"{where}: at $.format: {shown} is not one of polyrelu's formats; {hint}")
    return FORMATS[fmt]


def validate(data: Any, kind: DocumentKind | None = None, source: str | None = None) -> DocumentKind:
    """Check a parsed JSON document against its schema; raise polyrelu's error naming where it fails.

    Parameters
    ----------
    data : object
        The document, as :func:`json.loads` returns it.
    kind : str, optional
        The schema to check against, one of :data:`SCHEMA_NAMES`. By default, the one the document names in
        its ``format`` field (``"polyrelu.complex"`` is a ``complex``).
    source : str, optional
        Where the document came from (a file name), for the message.

    Returns
    -------
    str
        The kind of document checked: ``kind``, or the one found in ``format``.

    Raises
    ------
    NetworkFormatError, ComplexFormatError, GraphFormatError, AnalysisFormatError
        For ``network``; ``complex``, ``decision_complex`` and ``slice``;
        ``dependency_graph``; ``analysis`` documents: the message gives the
        JSON path of the first error (``$.cells[3].dim``) and what is wrong
        there. All are :class:`~polyrelu.errors.DocumentFormatError`, which
        ``homology``, ``survey`` and ``builtins`` documents raise themselves.
    DocumentFormatError
        ``kind`` not given and the document names no polyrelu format: not an
        object, no ``format`` field, or a format polyrelu does not write
        (the message says ``at $.format``).
    UsageError
        ``kind`` is not one of :data:`SCHEMA_NAMES`.

    See also
    --------
    validator : every error at once (``iter_errors``), or a yes/no answer.
    polyrelu.load_network, polyrelu.CanonicalComplex.from_json : readers that
        also check what a schema cannot (shapes, digits, exact geometry).

    Notes
    -----
    A schema checks the structure of a document, not its meaning: a network
    whose rows have the wrong length, or a complex whose cells are not those
    of its network, passes here and is refused by its reader.

    Examples
    --------
    >>> from polyrelu.complex import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> data = canonical_complex(bent_line_network()).to_json()
    >>> validate(data)
    'complex'
    >>> validate(data["network"])
    'network'
    >>> data["points"][0][0] = "1.5.3"
    >>> validate(data, "complex", source="K.json")
    Traceback (most recent call last):
    ...
    polyrelu.errors.ComplexFormatError: K.json: at $.points[0][0]: '1.5.3' does not match ...
    >>> validate({"format": "polyrelu.graph"})
    Traceback (most recent call last):
    ...
    polyrelu.errors.DocumentFormatError: document: at $.format: 'polyrelu.graph' is not one of polyrelu's formats; ...
    """
    require_str(source, "source", "validate", optional=True)
    if kind is None:
        kind = _kind_of(data, source or "document")
    else:
        require_choice(kind, SCHEMA_NAMES, "kind", "validate")
    error = best_match(itertools.islice(validator(kind).iter_errors(data), 1))
    if error is None:
        return kind
    message = error.message if len(error.message) <= _MESSAGE_CHARS else error.message[: _MESSAGE_CHARS - 3] + "..."
    raise _ERRORS[kind](
        f"{source or f'{kind} JSON'}: at {error.json_path}: {message}; the document does not follow "
        f"polyrelu's {kind} schema (polyrelu/schemas/{kind}.schema.json)"
    )
