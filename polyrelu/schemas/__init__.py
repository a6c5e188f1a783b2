"""The JSON Schemas of polyrelu's documents, shipped inside the package, and a validator.

Three documents have a schema (JSON Schema draft 2020-12), one file each in
this directory, and a polyrelu error for documents that fail it:

- ``complex``: ``CanonicalComplex.to_json`` (and ``WeightedComplex.to_json``,
  which adds weights); refused with ``ComplexFormatError``.
- ``dependency_graph``: ``DependencyGraph.to_json``; refused with ``GraphFormatError``.
- ``analysis``: ``polyrelu analyze --json``; refused with ``AnalysisFormatError``.

Every schema has an ``$id`` under ``https://polyrelu.invalid/schema/`` (the
``.invalid`` domain never resolves), and every ``$ref`` names one of these
files (``analysis`` refers to ``dependency_graph`` and to the network
definition of ``complex``). :func:`validator` registers all three with a
:class:`referencing.Registry`, so references resolve from the package alone:
nothing is ever fetched from the network.
"""

from __future__ import annotations

import copy
import functools
import itertools
import json
from importlib import resources
from typing import Any, Literal, cast

import jsonschema
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

from ..checks import require_choice, require_str
from ..errors import AnalysisFormatError, ComplexFormatError, GraphFormatError

__all__ = ["SCHEMA_NAMES", "schema", "validator", "validate"]

SCHEMA_NAMES = ("analysis", "complex", "dependency_graph")

_ERRORS = {"analysis": AnalysisFormatError, "complex": ComplexFormatError, "dependency_graph": GraphFormatError}

# Longest part of jsonschema's message kept: it quotes the offending value, which may be a whole cell.
_MESSAGE_CHARS = 240
# Keywords that only annotate: a $ref with nothing else beside them can be replaced by its target.
_ANNOTATIONS = {"description", "title", "$comment", "examples", "default"}


def _check_name(name: str, caller: str) -> None:
    require_choice(name, SCHEMA_NAMES, "name", caller)


@functools.cache
def _load(name: str) -> dict[str, Any]:
    return json.loads((resources.files(__package__) / f"{name}.schema.json").read_text(encoding="utf-8"))


def schema(name: Literal["analysis", "complex", "dependency_graph"]) -> dict[str, Any]:
    """The JSON Schema of a polyrelu document, as a fresh dict.

    Parameters
    ----------
    name : {"analysis", "complex", "dependency_graph"}

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


def validator(name: Literal["analysis", "complex", "dependency_graph"]) -> jsonschema.Draft202012Validator:
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


def validate(data: Any, name: Literal["analysis", "complex", "dependency_graph"], source: str | None = None) -> None:
    """Check a parsed JSON document against its schema; raise polyrelu's error naming where it fails.

    Parameters
    ----------
    data : object
        The document, as :func:`json.loads` returns it.
    name : {"analysis", "complex", "dependency_graph"}
    source : str, optional
        Where the document came from (a file name), for the message.

    Raises
    ------
    ComplexFormatError, GraphFormatError, AnalysisFormatError
        For ``complex``, ``dependency_graph`` and ``analysis`` documents: the
        message gives the JSON path of the first error (``$.cells[3].dim``)
        and what is wrong there.
    UsageError
        No schema of that name.

    Examples
    --------
    >>> from polyrelu.complex import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> data = canonical_complex(bent_line_network()).to_json()
    >>> validate(data, "complex")
    >>> data["cells"][0]["vertices"][0][0] = "1.5.3"
    >>> validate(data, "complex", source="K.json")
    Traceback (most recent call last):
    ...
    polyrelu.errors.ComplexFormatError: K.json: at $.cells[0].vertices[0][0]: '1.5.3' does not match ...
    """
    _check_name(name, "validate")
    require_str(source, "source", "validate", optional=True)
    error = best_match(itertools.islice(validator(name).iter_errors(data), 1))
    if error is None:
        return
    message = error.message if len(error.message) <= _MESSAGE_CHARS else error.message[: _MESSAGE_CHARS - 3] + "..."
    raise _ERRORS[name](
        f"{source or f'{name} JSON'}: at {error.json_path}: {message}; the document does not follow "
        f"polyrelu's {name} schema (polyrelu/schemas/{name}.schema.json)"
    )
