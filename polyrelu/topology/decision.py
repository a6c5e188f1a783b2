"""The decision complex of a classifier, and the level and sublevel sets of a network with one output.

A network ``f = (f_0, ..., f_{m-1})`` with ``m >= 2`` outputs classifies ``x``
by ``argmax_c f_c(x)``. Its decision complex (:func:`decision_complex`,
:class:`DecisionComplex`) refines the canonical complex so that the set of
maximal classes is the same on the relative interior of every cell; each
class region (where ``c`` is maximal) and the decision boundary (where two or
more classes tie) is then a subcomplex (:class:`~polyrelu.topology.subcomplex.Subcomplex`),
with exact cells and exact homology.

Construction. The tie network appends to the hidden layers of ``f`` one more
hidden layer whose neurons are the differences ``f_i - f_j``, ``i < j``
(pre-activation rows ``W_i - W_j`` and ``b_i - b_j`` of the output layer,
so exactly ``f_i - f_j``), and a zero output. Its canonical complex is the
refinement: on every cell of the canonical complex of ``f`` each difference
is affine, and the new layer cuts each cell by the zero sets of the
differences, nothing else. The sign of neuron ``(i, j)`` on a cell is the
sign of ``f_i - f_j`` on its relative interior, so the maximal classes of a
cell are read off its sign vector exactly: ``c`` is maximal when
``f_c - f_j >= 0`` for every ``j``. The complex may cut a class region more
finely than needed, where two classes that are not maximal there tie; such
cells still carry one class, and the subcomplexes are the same sets.

With one output the same construction with the neuron ``f - c`` gives the
level set ``f = c`` (:func:`level_set`: the cells where the neuron is ``0``)
and the sublevel set ``f <= c`` (:func:`sublevel_set`: ``-`` or ``0``).
Both are closed under faces: a face's sign is the cell's or ``0``. So is a
class region (the maximal classes of a face include the cell's, by
continuity) and the boundary.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from fractions import Fraction
from typing import Any, NamedTuple

from ..atomic import write_json
from ..checks import (
    require_bool,
    require_index,
    require_instance,
    require_int,
    require_path,
)
from ..complex import CanonicalComplex, Cell, canonical_complex
from ..domain import DomainLike, domain_polyhedron
from ..errors import ComplexFormatError, LimitExceededError, PolyReluError, UsageError
from ..geometry import Polyhedron
from ..geometry.rational import RationalLike, to_fraction
from ..io import network_from_dict, network_to_dict
from ..io.limits import DEFAULT_LIMITS, Limits, parse_json, read_json
from ..network import ReLUNetwork
from ..schemas import validate
from .subcomplex import Subcomplex

__all__ = ["DecisionComplex", "decision_complex", "level_set", "sublevel_set", "LevelSets", "level_sets"]

DECISION_FORMAT = "polyrelu.decision_complex"
DECISION_VERSION = 1


def _with_output_neurons(net: ReLUNetwork, rows: Sequence[Sequence[Fraction]], biases: Sequence[Fraction]) -> ReLUNetwork:
    """``net``'s hidden layers, then a hidden layer with the given rows on the output layer's input, then a zero output."""
    width = len(rows)
    return ReLUNetwork(
        list(net.weights[:-1]) + [list(rows), [[0] * width]],
        list(net.biases[:-1]) + [list(biases), [0]],
        name=net.name,
    )


def _tie_pairs(m: int) -> list[tuple[int, int]]:
    """The pairs ``(i, j)``, ``i < j < m``, in the order of the tie neurons."""
    return [(i, j) for i in range(m) for j in range(i + 1, m)]


def _tie_network(net: ReLUNetwork) -> ReLUNetwork:
    """``net``'s hidden layers, then the neurons ``f_i - f_j`` (``i < j``), then a zero output (see the module)."""
    W, b = net.weights[-1], net.biases[-1]
    pairs = _tie_pairs(net.architecture.output_dim)
    return _with_output_neurons(
        net, [[u - v for u, v in zip(W[i], W[j])] for i, j in pairs], [b[i] - b[j] for i, j in pairs]
    )


def _network_and_domain(source: object, domain: DomainLike, caller: str) -> tuple[ReLUNetwork, Polyhedron | None]:
    """The network and the domain polyhedron from a network (and ``domain``) or from its complex."""
    if isinstance(source, CanonicalComplex):
        if domain is not None:
            raise UsageError(f"{caller}: source is a complex, which fixes the domain; leave domain out")
        return source.network, source.domain
    net: ReLUNetwork = require_instance(source, (ReLUNetwork, CanonicalComplex), "source", caller)
    return net, domain_polyhedron(domain, net.architecture.input_dim, caller)


def _checked_budget(max_cells: int, progress: bool | None, caller: str) -> int:
    if progress is not None:
        require_bool(progress, "progress", caller)
    return require_int(max_cells, "max_cells", caller, minimum=1)


class DecisionComplex:
    """The decision complex of a classifier: cells with the set of maximal classes on each.

    Built by :func:`decision_complex`.

    Attributes
    ----------
    network : ReLUNetwork
        The classifier ``f`` (``m >= 2`` outputs).
    complex : CanonicalComplex
        The canonical complex of the tie network (see the module): a cell's
        ``signs`` are ``f``'s sign vector followed by the signs of
        ``f_i - f_j`` for the pairs in :attr:`pairs`.
    classes : int
        ``m``.
    pairs : tuple of (int, int)
        The tie neurons' pairs ``(i, j)``, ``i < j``, in order.
    labels : tuple of frozenset of int
        Per cell id, the classes maximal on its relative interior.
    """

    def __init__(self, network: ReLUNetwork, complex_: CanonicalComplex) -> None:
        self.network = network
        self.complex = complex_
        self.classes = network.architecture.output_dim
        self.pairs = tuple(_tie_pairs(self.classes))
        hidden = network.architecture.num_hidden
        self.labels = tuple(self._maximal_classes(c.signs[hidden:]) for c in complex_)

    def _maximal_classes(self, tie_signs: Sequence[int]) -> frozenset[int]:
        """The classes ``c`` with ``f_c - f_j >= 0`` for every ``j``, from the signs of ``f_i - f_j`` (``i < j``)."""
        beaten: set[int] = set()
        for (i, j), s in zip(self.pairs, tie_signs):
            if s > 0:
                beaten.add(j)
            elif s < 0:
                beaten.add(i)
        return frozenset(range(self.classes)) - beaten

    def __eq__(self, other: object) -> bool:
        """Equal classifiers and equal complexes (geometry, not cell ids); the labels follow from the signs."""
        if not isinstance(other, DecisionComplex):
            return NotImplemented
        return self.network == other.network and self.complex == other.complex

    __hash__ = None  # type: ignore[assignment]  # like complexes: equality is geometric, not by identity

    def __repr__(self) -> str:
        return f"<DecisionComplex of {self.network.architecture}: {self.classes} classes, f-vector {self.complex.f_vector()}>"

    def label(self, cell: Cell | int) -> frozenset[int]:
        """The classes maximal on the relative interior of ``cell`` (a cell of :attr:`complex` or its id)."""
        return self.labels[self.complex.cell(cell, caller="DecisionComplex.label").id]

    def class_region(self, c: int) -> Subcomplex:
        """The closed region of class ``c``: the cells where ``c`` is maximal (with the boundary cells).

        Raises
        ------
        UsageError
            No class ``c``.
        """
        c = require_index(c, self.classes, "c", "DecisionComplex.class_region", what="class")
        return Subcomplex(self.complex, [i for i, label in enumerate(self.labels) if c in label])

    def boundary(self, a: int | None = None, b: int | None = None) -> Subcomplex:
        """The decision boundary: cells where two or more classes are maximal.

        Parameters
        ----------
        a, b : int, optional
            With ``a``: only the boundary of class ``a``'s region (``a`` and
            another class maximal). With ``a`` and ``b``: only where both are
            maximal, the boundary between the two regions.

        Raises
        ------
        UsageError
            No such class, or ``a == b``.
        """
        caller = "DecisionComplex.boundary"
        wanted = {
            require_index(v, self.classes, name, caller, what="class") for v, name in ((a, "a"), (b, "b")) if v is not None
        }
        if a is not None and b is not None and a == b:
            raise UsageError(f"{caller}: a and b are both class {a}; give two different classes, or only a")
        return Subcomplex(self.complex, [i for i, label in enumerate(self.labels) if len(label) >= 2 and wanted <= label])

    def to_json(self, *, complex_version: int = 2) -> dict[str, Any]:
        """The decision complex as a JSON-ready dict: the labels alongside the tie network's complex JSON.

        Keys: ``format`` (``"polyrelu.decision_complex"``), ``version``,
        ``network`` (the classifier, in the network JSON format), ``classes``,
        ``pairs`` (the tie neurons), ``labels`` (per cell id, the sorted
        maximal classes) and ``complex`` (:meth:`CanonicalComplex.to_json` of
        :attr:`complex` in format version ``complex_version``, 2 or 1, which
        :meth:`CanonicalComplex.from_json` reads and checks).
        """
        complex_version = require_int(complex_version, "complex_version", "DecisionComplex.to_json", minimum=1, maximum=2)
        return {
            "format": DECISION_FORMAT,
            "version": DECISION_VERSION,
            "network": network_to_dict(self.network),
            "classes": self.classes,
            "pairs": [list(p) for p in self.pairs],
            "labels": [sorted(label) for label in self.labels],
            "complex": self.complex.to_json(version=complex_version),
        }

    def write_json(self, path: os.PathLike | str, *, complex_version: int = 2) -> None:
        """Write :meth:`to_json` to ``path`` (atomically: a failure leaves any previous file as it was)."""
        caller = "DecisionComplex.write_json"
        require_path(path, "path", caller)
        complex_version = require_int(complex_version, "complex_version", caller, minimum=1, maximum=2)
        write_json(path, lambda: self.to_json(complex_version=complex_version))

    @classmethod
    def from_json(
        cls, data: dict[str, Any] | str | os.PathLike, *, trusted: bool = False, limits: Limits = DEFAULT_LIMITS
    ) -> DecisionComplex:
        """Read a decision complex written by :meth:`to_json`, checking first that it is one.

        Parameters
        ----------
        data : dict, str or path-like
            The document, JSON text (starting with ``{``) or a file, read with
            its size and nesting bounded by ``limits``.
        trusted : bool
            Skip the geometric checks of the complex (for files you wrote
            yourself); everything else is checked either way.
        limits : Limits
            See :mod:`polyrelu.io.limits`; they bound the file, the network
            and every number.

        Returns
        -------
        DecisionComplex
            Its complex keeps the stored exact cells; the labels are read off
            their signs and must be the stored ones.

        Raises
        ------
        ComplexFormatError
            Not valid JSON; fails the schema (``decision_complex``; the
            message gives the JSON path); ``classes`` is not the classifier's
            number of outputs; ``pairs`` are not the pairs ``i < j`` in order;
            the complex fails :meth:`CanonicalComplex.from_json
            <polyrelu.complex.CanonicalComplex.from_json>` (wrong ids, a
            covering pair naming a missing cell, a cell that is not the
            closure of its sign class, ...), or its network is not the tie
            network of ``network``; ``labels`` do not have one entry per cell,
            or a label is not the set of classes maximal on its cell (a class
            out of range, say). The message names the field or the cell.
        LimitExceededError
            A file, nesting, network or number beyond ``limits``.

        Examples
        --------
        >>> D = decision_complex(ReLUNetwork([[[1, 0], [0, 1], [0, 0]]], [[0, 0, 0]]))
        >>> data = D.to_json()
        >>> DecisionComplex.from_json(data) == D
        True
        >>> data["labels"][0] = [0, 7]
        >>> DecisionComplex.from_json(data)
        Traceback (most recent call last):
        ...
        polyrelu.errors.ComplexFormatError: decision complex JSON: labels[0]: is [0, 7], but the classes maximal on cell 0 are [0, 1, 2]; the file was modified or corrupted
        """
        caller = "DecisionComplex.from_json"
        require_instance(data, (dict, str, os.PathLike), "data", caller)
        require_bool(trusted, "trusted", caller)
        require_instance(limits, Limits, "limits", caller)
        if isinstance(data, (str, os.PathLike)) and not str(data).lstrip().startswith(("{", "[")) and not os.path.isfile(data):
            raise ComplexFormatError(
                f"{caller}: data: no such file {str(data)[:200]!r}; pass the document, its JSON text or the path of a file"
            )
        document, source = _read_document(data, limits)
        validate(document, "decision_complex", source)

        def refuse(where: str, what: str) -> ComplexFormatError:
            return ComplexFormatError(f"{source}: {where}: {what}; the file was modified or corrupted")

        try:
            net = network_from_dict(document["network"], source=f"{source}: network", limits=limits)
            # sizes first: the pairs and labels are compared only once their lengths are known to fit
            m = net.architecture.output_dim
            if document["classes"] != m:
                raise refuse("classes", f"is {_shown(document['classes'])}, but the network has {m} outputs")
            if len(document["pairs"]) != m * (m - 1) // 2 or [tuple(p) for p in document["pairs"]] != _tie_pairs(m):
                raise refuse("pairs", f"are not the {m * (m - 1) // 2} pairs [i, j] with i < j < {m}, in order")
        except LimitExceededError as exc:
            raise LimitExceededError(f"{source}: {exc}") from None
        except ComplexFormatError:
            raise
        except PolyReluError as exc:  # a malformed network: a format error of this document
            raise ComplexFormatError(f"{exc}; the file was modified or corrupted") from None
        try:
            K = CanonicalComplex.from_json(document["complex"], trusted=trusted, limits=limits)
        except (ComplexFormatError, LimitExceededError) as exc:
            # the complex reader names a dict "complex JSON": say which file and field it is
            raise type(exc)(f"{source}: complex: {str(exc).removeprefix('complex JSON: ')}") from None
        ties = _tie_network(net)
        if (K.network.weights, K.network.biases) != (ties.weights, ties.biases):
            raise refuse("complex.network", "is not the tie network of network (its hidden layers, then f_i - f_j for i < j)")
        labels = document["labels"]
        if len(labels) != len(K):
            raise refuse("labels", f"has {len(labels)} entries, but the complex has {len(K)} cells")
        D = cls(net, K)
        for i, (stored, label) in enumerate(zip(labels, D.labels)):
            if stored != sorted(label):
                shown = _shown(stored)
                raise refuse(f"labels[{i}]", f"is {shown}, but the classes maximal on cell {i} are {sorted(label)}")
        return D


def _read_document(data: object, limits: Limits) -> tuple[Any, str]:
    """The parsed document and where it came from: a dict as given, JSON text parsed, a path read (bounded)."""
    if isinstance(data, dict):
        return data, "decision complex JSON"
    text = str(data)
    if isinstance(data, str) and text.lstrip().startswith(("{", "[")):
        reader, source = (lambda: parse_json(text, "decision complex JSON", limits)), "decision complex JSON"
    else:
        reader, source = (lambda: read_json(text, limits)), text
    try:
        return reader(), source
    except LimitExceededError:
        raise
    except PolyReluError as exc:  # not a file, not UTF-8, not JSON
        raise ComplexFormatError(str(exc)) from None


def _shown(value: object) -> str:
    """A stored value for a message, cut short: a hostile file may hold a huge one."""
    text = repr(value) if not isinstance(value, int) or value.bit_length() < 200 else f"an integer of {value.bit_length()} bits"
    return text if len(text) <= 80 else text[:77] + "..."


def decision_complex(
    source: ReLUNetwork | CanonicalComplex,
    domain: DomainLike = None,
    *,
    max_cells: int = 1_000_000,
    progress: bool | None = None,
) -> DecisionComplex:
    """The decision complex of a classifier with ``m >= 2`` outputs, exactly.

    Parameters
    ----------
    source : ReLUNetwork or CanonicalComplex
        The classifier, or its canonical complex (which gives the network
        and the domain; the decision complex is built anew, for the tie
        network).
    domain : None, Box, Polyhedron or sequence of rows
        As in :func:`~polyrelu.complex.canonical_complex`; only with a network.
    max_cells : int
        Refuse when the estimated number of cells exceeds this.
    progress : bool, optional
        Show a progress bar (by default only on a terminal, for long runs).

    Returns
    -------
    DecisionComplex

    Raises
    ------
    InvalidArgumentError
        ``source`` is neither a network nor a complex.
    UsageError
        A network with one output (use :func:`level_set` or
        :func:`sublevel_set`), or a complex with a ``domain``.
    GeometryError
        An empty, unbounded or wrong-dimensional domain.
    ComplexTooLargeError
        The estimated cell count exceeds ``max_cells``.

    Notes
    -----
    The cells are those of the canonical complex of the tie network (the
    module explains it): every cell of ``f``'s canonical complex is cut by
    the zero sets of the differences ``f_i - f_j``, so the maximal classes
    are constant on every relatively open cell and read off its signs.

    Examples
    --------
    Three classes ``f = (x, y, 0)``: three sectors meet at the origin.

    >>> from polyrelu import Box, ReLUNetwork
    >>> D = decision_complex(ReLUNetwork([[[1, 0], [0, 1], [0, 0]]], [[0, 0, 0]]))
    >>> sorted(sorted(D.label(c)) for c in D.complex.regions())
    [[0], [0], [1], [1], [2], [2]]
    >>> D.boundary().f_vector(), D.boundary().betti_numbers()      # three rays from the origin
    ((1, 3, 0), (1, 0, 0))
    >>> [D.class_region(c).betti_numbers() for c in range(3)]
    [(1, 0, 0), (1, 0, 0), (1, 0, 0)]
    >>> sorted(D.label(D.complex.locate([0, 0])))
    [0, 1, 2]
    """
    caller = "decision_complex"
    net, domain_ = _network_and_domain(source, domain, caller)
    max_cells = _checked_budget(max_cells, progress, caller)
    m = net.architecture.output_dim
    if m < 2:
        raise UsageError(
            f"{caller}: the network of source has one output, so there are no classes to decide; "
            "use level_set(net, c) or sublevel_set(net, c) for its level sets"
        )
    return DecisionComplex(net, canonical_complex(_tie_network(net), domain_, max_cells=max_cells, progress=progress))


def _threshold_complex(
    source: ReLUNetwork | CanonicalComplex,
    c: RationalLike,
    domain: DomainLike,
    max_cells: int,
    progress: bool | None,
    caller: str,
) -> CanonicalComplex:
    """The canonical complex of the network extended by the neuron ``f - c``."""
    net, domain_ = _network_and_domain(source, domain, caller)
    threshold = to_fraction(c, f"{caller}: c")
    budget = _checked_budget(max_cells, progress, caller)
    if net.architecture.output_dim != 1:
        raise UsageError(
            f"{caller}: the network of source has {net.architecture.output_dim} outputs; level sets are of a network with one "
            "output (for a classifier, use decision_complex)"
        )
    level = _with_output_neurons(net, [net.weights[-1][0]], [net.biases[-1][0] - threshold])
    return canonical_complex(level, domain_, max_cells=budget, progress=progress)


def level_set(
    source: ReLUNetwork | CanonicalComplex,
    c: RationalLike,
    domain: DomainLike = None,
    *,
    max_cells: int = 1_000_000,
    progress: bool | None = None,
) -> Subcomplex:
    """The level set ``{x : f(x) = c}`` of a network with one output, as a subcomplex.

    Parameters
    ----------
    source : ReLUNetwork or CanonicalComplex
        The network, or its canonical complex (which gives the domain).
    c : rational
        The level, exact (floats are converted exactly).
    domain, max_cells, progress
        As in :func:`decision_complex`.

    Returns
    -------
    Subcomplex
        Cells of the canonical complex of the network extended by the neuron
        ``f - c`` (its last sign): those where it vanishes.

    Raises
    ------
    InvalidArgumentError, UsageError, GeometryError, ComplexTooLargeError
        As for :func:`decision_complex`; a network with several outputs.
    InvalidNumberError
        ``c`` is not a finite number.

    Examples
    --------
    ``f = |x| + |y|`` (a network with four neurons): its level set 1 is a
    diamond, a circle.

    >>> from polyrelu import ReLUNetwork
    >>> f = ReLUNetwork([[[1, 0], [-1, 0], [0, 1], [0, -1]], [[1, 1, 1, 1]]], [[0, 0, 0, 0], [0]])
    >>> S = level_set(f, 1)
    >>> S.f_vector(), S.betti_numbers()
    ((4, 4, 0), (1, 1, 0))
    >>> level_set(f, 0).betti_numbers(), level_set(f, -1).betti_numbers()
    ((1, 0, 0), (0, 0, 0))
    """
    return _level_sets(_threshold_complex(source, c, domain, max_cells, progress, "level_set")).level


def sublevel_set(
    source: ReLUNetwork | CanonicalComplex,
    c: RationalLike,
    domain: DomainLike = None,
    *,
    max_cells: int = 1_000_000,
    progress: bool | None = None,
) -> Subcomplex:
    """The sublevel set ``{x : f(x) <= c}`` of a network with one output, as a subcomplex.

    Parameters and errors as for :func:`level_set`; the cells are those where
    the neuron ``f - c`` is ``-`` or ``0``. (For ``f >= c`` take the sublevel
    set of ``-f``, or :func:`level_sets`, which gives all three sets.)

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> f = ReLUNetwork([[[1, 0], [-1, 0], [0, 1], [0, -1]], [[1, 1, 1, 1]]], [[0, 0, 0, 0], [0]])
    >>> sublevel_set(f, 1).betti_numbers()          # the closed diamond
    (1, 0, 0)
    >>> minus_f = ReLUNetwork(f.weights[:-1] + ([[-1, -1, -1, -1]],), f.biases)
    >>> sublevel_set(minus_f, -1).betti_numbers()   # f >= 1: the plane minus an open diamond, a circle
    (1, 1, 0)
    """
    return _level_sets(_threshold_complex(source, c, domain, max_cells, progress, "sublevel_set")).sublevel


class LevelSets(NamedTuple):
    """The level, sublevel and superlevel sets of a network with one output at one level, in one complex.

    Attributes
    ----------
    level, sublevel, superlevel : Subcomplex
        ``f = c``, ``f <= c`` and ``f >= c``: the cells of :attr:`complex`
        where the neuron ``f - c`` (the last sign) is ``0``, ``-`` or ``0``,
        ``+`` or ``0``.
    complex : CanonicalComplex
        The canonical complex of the network extended by the neuron ``f - c``.
    """

    level: Subcomplex
    sublevel: Subcomplex
    superlevel: Subcomplex
    complex: CanonicalComplex


def _level_sets(K: CanonicalComplex) -> LevelSets:
    """The three sets, read off the last sign of the cells of the extended network's complex."""
    side = [cell.signs[-1] for cell in K]
    level, sublevel, superlevel = (
        Subcomplex._trusted(K, [i for i, s in enumerate(side) if s in signs]) for signs in ((0,), (-1, 0), (0, 1))
    )
    return LevelSets(level, sublevel, superlevel, K)


def level_sets(
    source: ReLUNetwork | CanonicalComplex,
    c: RationalLike,
    domain: DomainLike = None,
    *,
    max_cells: int = 1_000_000,
    progress: bool | None = None,
) -> LevelSets:
    """The level set ``f = c``, the sublevel set ``f <= c`` and the superlevel set ``f >= c``, from one complex.

    Parameters and errors as for :func:`level_set`, which builds the same
    complex for one of the sets. Each set is closed under faces (a face's
    sign of ``f - c`` is its cell's or ``0``).

    Returns
    -------
    LevelSets

    Examples
    --------
    ``f = |x| + |y|``, level 1: a circle, the closed diamond and the plane
    outside the open diamond; the two sets meet in the circle.

    >>> from polyrelu import ReLUNetwork
    >>> f = ReLUNetwork([[[1, 0], [-1, 0], [0, 1], [0, -1]], [[1, 1, 1, 1]]], [[0, 0, 0, 0], [0]])
    >>> L = level_sets(f, 1)
    >>> [X.betti_numbers() for X in (L.level, L.sublevel, L.superlevel)]
    [(1, 1, 0), (1, 0, 0), (1, 1, 0)]
    >>> L.sublevel & L.superlevel == L.level
    True
    """
    return _level_sets(_threshold_complex(source, c, domain, max_cells, progress, "level_sets"))
