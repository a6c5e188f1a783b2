"""Subcomplexes of a canonical complex and their exact homology.

A :class:`Subcomplex` is a set of cells of a
:class:`~polyrelu.complex.CanonicalComplex` closed under taking faces (class
regions, decision boundaries, level and sublevel sets, the whole complex);
:func:`closure` makes one from any cells. :func:`betti_numbers` and
:func:`homology` compute the homology of its underlying space exactly, from
the cellular chain complex: over ``Z`` with torsion (:class:`Homology`), over
``Q``, or over ``GF(p)``.

On a polytope domain every cell is a polytope and the cells form a regular
CW complex. On all of ``R^n0`` the computation runs on the subcomplex's
bounded model, its part in a box that every cell meets, which has the same
homotopy type (:mod:`polyrelu.topology._bounded` gives the argument). The
cells are oriented by ordered bases of their affine hulls, and a facet's
incidence number is the sign of an exact determinant, outward normal first
(:mod:`polyrelu.topology._chains`). The ranks and invariant factors come from
exact sparse elimination on unit pivots followed by a Smith normal form of
the small remaining block (:mod:`polyrelu.topology._elimination`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence, Set
from typing import Any, NamedTuple, Union

import flint

from ..checks import describe, require_instance, require_int, require_sequence
from ..complex import CanonicalComplex, Cell
from ..errors import InvalidArgumentError, UsageError
from ._bounded import bounded_model
from ._elimination import integer_reduction, modular_rank

__all__ = ["Homology", "Subcomplex", "closure", "betti_numbers", "homology", "homology_document"]

HOMOLOGY_FORMAT = "polyrelu.homology"
HOMOLOGY_VERSION = 1

# the coefficients of betti_numbers: "Z" (free ranks), "Q", or a prime p for GF(p)
Field = Union[str, int]


class Homology(NamedTuple):
    """The integral homology groups ``H_0, ..., H_n`` of a subcomplex of a complex in ``R^n``.

    ``H_k ≅ Z^betti[k] ⊕ Z/torsion[k][0] ⊕ Z/torsion[k][1] ⊕ ...``

    Attributes
    ----------
    betti : tuple of int
        The free ranks (the Betti numbers over ``Q``).
    torsion : tuple of tuple of int
        Per degree, the torsion coefficients (invariant factors greater than
        1, each dividing the next).

    Examples
    --------
    >>> print(Homology((1, 2, 0), ((), (2,), ())))
    H_0 = Z, H_1 = Z^2 + Z/2, H_2 = 0
    """

    betti: tuple[int, ...]
    torsion: tuple[tuple[int, ...], ...]

    def __str__(self) -> str:
        def group(rank: int, torsion: tuple[int, ...]) -> str:
            parts = ([] if not rank else ["Z" if rank == 1 else f"Z^{rank}"]) + [f"Z/{t}" for t in torsion]
            return " + ".join(parts) or "0"

        return ", ".join(f"H_{k} = {group(r, t)}" for k, (r, t) in enumerate(zip(self.betti, self.torsion)))


class _Chains(NamedTuple):
    """The cellular chain complex of a subcomplex's bounded model: cells and boundary columns by dimension."""

    counts: tuple[int, ...]  # the number of cells of each dimension 0 .. n
    boundaries: tuple[tuple[dict[int, int], ...], ...]  # boundaries[k]: the columns of ∂_k (k >= 1), rows by index


class Subcomplex:
    """A set of cells of a canonical complex closed under taking faces, and its topology.

    Parameters
    ----------
    complex_ : CanonicalComplex
    cells : iterable of Cell or int
        The cells (or their ids); every face of every cell must be among them
        (:func:`closure` adds them).

    Raises
    ------
    InvalidArgumentError
        Not a complex, or ``cells`` not a collection of cells of it.
    UsageError
        A cell of another complex, an id out of range, or a face missing
        (the message names a cell and its missing facet).

    Notes
    -----
    The homology is that of the underlying space ``|X|``, the union of the
    closed cells. On all of ``R^n0`` it is computed on ``|X| ∩ B`` for a box
    ``B`` that every cell meets, which has the same homotopy type; so are
    :meth:`euler_characteristic` and the Betti numbers. The alternating count
    of the cells of ``X`` itself (:meth:`f_vector`) is the Euler
    characteristic only on a polytope domain: on ``R^n0`` it is the Euler
    characteristic with compact supports.

    Examples
    --------
    The complex of ``relu(x) + relu(y)`` on the square ``[-1, 1]^2`` and the
    closed cells where ``x <= 0`` (its two left regions, their faces):

    >>> from polyrelu import Box, ReLUNetwork, canonical_complex
    >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]), Box(-1, 1))
    >>> left = closure(K, [c for c in K.regions() if c.signs[0] < 0])
    >>> left.f_vector(), left.euler_characteristic(), left.betti_numbers()
    ((6, 7, 2), 1, (1, 0, 0))
    >>> boundary = Subcomplex(K, [c for c in K if 0 in c.domain_signs])   # the square's boundary
    >>> boundary.betti_numbers(), boundary.betti_numbers(field=2), str(boundary.homology())
    ((1, 1, 0), (1, 1, 0), 'H_0 = Z, H_1 = Z, H_2 = 0')
    >>> Subcomplex(K, [K.regions()[0]])
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: Subcomplex: cells is not closed under faces: cell ... has the facet ... not among them; pass closure(complex_, cells)
    """

    def __init__(self, complex_: CanonicalComplex, cells: Iterable[Cell | int]) -> None:
        self.complex = require_instance(complex_, CanonicalComplex, "complex_", "Subcomplex")
        ids = _cell_ids(complex_, cells, "Subcomplex")
        for c in sorted(ids):
            missing = next((f for f in complex_.lattice.facets(c) if f not in ids), None)
            if missing is not None:
                raise UsageError(
                    f"Subcomplex: cells is not closed under faces: cell {c} has the facet {missing} not among them; "
                    "pass closure(complex_, cells)"
                )
        self.cell_ids: frozenset[int] = frozenset(ids)
        self._chains: _Chains | None = None

    @classmethod
    def _trusted(cls, complex_: CanonicalComplex, ids: Iterable[int]) -> Subcomplex:
        """A subcomplex from ids known to be closed under faces (no checks)."""
        X = cls.__new__(cls)
        X.complex, X.cell_ids, X._chains = complex_, frozenset(ids), None
        return X

    def __len__(self) -> int:
        return len(self.cell_ids)

    def __iter__(self) -> Iterator[Cell]:
        return (self.complex[i] for i in sorted(self.cell_ids))

    def __contains__(self, cell: object) -> bool:
        if isinstance(cell, Cell):
            return cell.id in self.cell_ids and self.complex[cell.id] is cell
        return cell in self.cell_ids

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Subcomplex):
            return NotImplemented
        return self.complex is other.complex and self.cell_ids == other.cell_ids

    def __hash__(self) -> int:
        return hash((id(self.complex), self.cell_ids))

    def __or__(self, other: Subcomplex) -> Subcomplex:
        """The union, again closed under faces."""
        return Subcomplex._trusted(self.complex, self.cell_ids | self._same_complex(other, "|").cell_ids)

    def __and__(self, other: Subcomplex) -> Subcomplex:
        """The intersection, again closed under faces."""
        return Subcomplex._trusted(self.complex, self.cell_ids & self._same_complex(other, "&").cell_ids)

    def _same_complex(self, other: object, operator: str) -> Subcomplex:
        if not isinstance(other, Subcomplex):
            raise InvalidArgumentError(f"Subcomplex {operator}: the other operand must be a Subcomplex, got {describe(other)}")
        if other.complex is not self.complex:
            raise UsageError(f"Subcomplex {operator}: the subcomplexes belong to different complexes")
        return other

    def __repr__(self) -> str:
        return f"<Subcomplex of {len(self.cell_ids)} cells, f-vector {self.f_vector()}>"

    @property
    def ambient_dim(self) -> int:
        """``n0``: the dimension of the space the complex lives in."""
        return self.complex.network.architecture.input_dim

    def cells(self, dim: int | None = None) -> tuple[Cell, ...]:
        """The cells (in id order), or those of dimension ``dim``."""
        require_int(dim, "dim", "Subcomplex.cells", minimum=0, optional=True)
        return tuple(c for c in self if dim is None or c.dimension == dim)

    def dimension(self) -> int:
        """The largest dimension of a cell; -1 for the empty subcomplex."""
        return max((self.complex[i].dimension for i in self.cell_ids), default=-1)

    def f_vector(self) -> tuple[int, ...]:
        """``(f_0, ..., f_n0)``: the number of the subcomplex's own cells of each dimension."""
        counts = [0] * (self.ambient_dim + 1)
        for i in self.cell_ids:
            counts[self.complex[i].dimension] += 1
        return tuple(counts)

    def euler_characteristic(self) -> int:
        """The Euler characteristic of ``|X|``: the alternating count of the cells of its bounded model.

        On a polytope domain that is ``sum_k (-1)^k f_k`` of :meth:`f_vector`.
        """
        return sum((-1) ** k * n for k, n in enumerate(self._chain_complex().counts))

    def betti_numbers(self, field: Field = "Z") -> tuple[int, ...]:
        """The Betti numbers ``b_0, ..., b_n0`` of ``|X|``; see :func:`betti_numbers`."""
        return betti_numbers(self, field)

    def homology(self) -> Homology:
        """The integral homology of ``|X|`` with its torsion; see :func:`homology`."""
        return homology(self)

    def _chain_complex(self) -> _Chains:
        """The cellular chain complex of the bounded model (computed once)."""
        if self._chains is None:
            model = bounded_model(self.complex)
            complex_ = model.chains.complex
            if model.image is None:
                members: Sequence[int] = sorted(self.cell_ids)
            else:
                members = [i for i, image in enumerate(model.image) if image in self.cell_ids]
            by_dim: list[list[int]] = [[] for _ in range(self.ambient_dim + 1)]
            position = {}
            for c in members:
                cells = by_dim[complex_[c].dimension]
                position[c] = len(cells)
                cells.append(c)
            boundaries = tuple(
                tuple({position[f]: s for f, s in model.chains.boundary(c).items()} for c in by_dim[k])
                for k in range(1, self.ambient_dim + 1)
            )
            self._chains = _Chains(tuple(map(len, by_dim)), ((),) + boundaries)
        return self._chains


def _cell_ids(complex_: CanonicalComplex, cells: object, caller: str) -> set[int]:
    """The ids of ``cells`` (cells of ``complex_`` or ids), checked."""
    if isinstance(cells, (str, bytes)) or not isinstance(cells, (Sequence, Set, Iterator, range)) or isinstance(cells, dict):
        raise InvalidArgumentError(f"{caller}: cells must be a collection of cells or cell ids (a list or set), got {describe(cells)}")
    return {complex_.cell(c, name="cells", caller=caller).id for c in cells}


def closure(complex_: CanonicalComplex, cells: Iterable[Cell | int]) -> Subcomplex:
    """The smallest subcomplex holding ``cells``: the cells with all their faces.

    Parameters
    ----------
    complex_ : CanonicalComplex
    cells : iterable of Cell or int

    Returns
    -------
    Subcomplex

    Raises
    ------
    InvalidArgumentError, UsageError
        As :class:`Subcomplex` for cells that are not cells of ``complex_``.

    Examples
    --------
    >>> from polyrelu import ReLUNetwork, canonical_complex
    >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]))
    >>> X = closure(K, [K.regions()[0]])           # a closed quadrant: two rays and the origin
    >>> X.f_vector(), X.betti_numbers()
    ((1, 2, 1), (1, 0, 0))
    """
    require_instance(complex_, CanonicalComplex, "complex_", "closure")
    ids: set[int] = set()
    for c in _cell_ids(complex_, cells, "closure"):
        if c not in ids:
            ids.update(complex_.lattice.faces(c))
    return Subcomplex._trusted(complex_, ids)


def _subcomplex(X: object, caller: str, name: str = "X") -> Subcomplex:
    """``X`` as a subcomplex: a complex stands for all its cells."""
    if isinstance(X, CanonicalComplex):
        return Subcomplex._trusted(X, range(len(X)))
    return require_instance(X, (Subcomplex, CanonicalComplex), name, caller)


def _field(field: object, caller: str) -> int | None:
    """The characteristic of ``field``: 0 for ``"Z"`` and ``"Q"``, ``p`` for a prime ``p``."""
    if isinstance(field, str):
        if field not in ("Z", "Q"):
            raise UsageError(f"{caller}: field must be 'Z', 'Q' or a prime number p for GF(p), not {describe(field)}")
        return 0
    p = require_int(field, "field", caller, minimum=2)
    if not flint.fmpz(p).is_prime():
        raise UsageError(f"{caller}: field must be 'Z', 'Q' or a prime number p for GF(p); {p} is not prime")
    return p


def betti_numbers(X: Subcomplex | CanonicalComplex, field: Field = "Z") -> tuple[int, ...]:
    """The Betti numbers ``b_0, ..., b_n0`` of a subcomplex (or of a whole complex), exactly.

    Parameters
    ----------
    X : Subcomplex or CanonicalComplex
        A complex stands for all its cells.
    field : "Z", "Q" or int
        ``"Z"`` (the free ranks of the integral homology) and ``"Q"`` give
        the same numbers; a prime ``p`` gives the dimensions over ``GF(p)``,
        which exceed them where the integral homology has ``p``-torsion (in
        degree ``k`` or ``k - 1``).

    Returns
    -------
    tuple of int
        One number per degree ``0 .. n0`` (all zero for the empty subcomplex).

    Raises
    ------
    InvalidArgumentError
        ``X`` is neither; ``field`` is not a string or an integer.
    UsageError
        ``field`` is another string, or an integer that is not prime.
    ComplexTooLargeError
        ``X`` lies in a complex on ``R^n0`` whose bounded model (its
        canonical complex on a box) is too large to build.

    See also
    --------
    homology : with the torsion coefficients.

    Notes
    -----
    ``b_k = c_k - rank ∂_k - rank ∂_{k+1}``, with ``c_k`` the number of
    ``k``-cells of the bounded model (see :class:`Subcomplex`) and the ranks
    of the exact cellular boundary matrices.

    Examples
    --------
    >>> from polyrelu import Box, ReLUNetwork, canonical_complex
    >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]))
    >>> betti_numbers(K), betti_numbers(Subcomplex(K, K.cells(0)), field=2)
    ((1, 0, 0), (1, 0, 0))
    """
    X = _subcomplex(X, "betti_numbers")
    p = _field(field, "betti_numbers")
    if not p:
        return homology(X).betti
    chains = X._chain_complex()
    ranks = [0] + [modular_rank(columns, p) for columns in chains.boundaries[1:]] + [0]
    return tuple(c - ranks[k] - ranks[k + 1] for k, c in enumerate(chains.counts))


def homology(X: Subcomplex | CanonicalComplex) -> Homology:
    """The integral homology of a subcomplex (or of a whole complex): free ranks and torsion, exactly.

    Parameters
    ----------
    X : Subcomplex or CanonicalComplex

    Returns
    -------
    Homology
        ``H_k`` for ``k = 0 .. n0``.

    Raises
    ------
    InvalidArgumentError
        ``X`` is neither.
    ComplexTooLargeError
        As for :func:`betti_numbers`.

    Notes
    -----
    The free rank of ``H_k`` is ``c_k - rank ∂_k - rank ∂_{k+1}`` and its
    torsion the invariant factors greater than 1 of ``∂_{k+1}``.
    Subcomplexes of complexes in ``R^2`` and ``R^3`` have no torsion; the
    reduction (:mod:`polyrelu.topology._elimination`) finds it in any
    dimension.

    Examples
    --------
    >>> from polyrelu import Box, ReLUNetwork, canonical_complex
    >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]), Box(-1, 1))
    >>> homology(K)
    Homology(betti=(1, 0, 0), torsion=((), (), ()))
    """
    X = _subcomplex(X, "homology")
    chains = X._chain_complex()
    reductions = [integer_reduction(columns) for columns in chains.boundaries[1:]]
    ranks = [0] + [r.rank for r in reductions] + [0]
    torsion = [r.torsion for r in reductions] + [()]
    return Homology(
        tuple(c - ranks[k] - ranks[k + 1] for k, c in enumerate(chains.counts)),
        tuple(torsion),
    )


def homology_document(
    subcomplexes: Mapping[str, Subcomplex | CanonicalComplex], primes: Sequence[int] = (2,)
) -> dict[str, Any]:
    """Named subcomplexes with their exact homology, as a JSON-ready document (``"polyrelu.homology"``).

    Parameters
    ----------
    subcomplexes : mapping of str to Subcomplex or CanonicalComplex
        Names (``"class 0"``, ``"boundary"``, ...) and what they name, all
        in ``R^n0`` for one ``n0``; at least one.
    primes : sequence of int
        The primes ``p`` whose Betti numbers over ``GF(p)`` are given too.

    Returns
    -------
    dict
        ``format`` ``"polyrelu.homology"``, ``version`` 1, ``ambient_dim``
        (``n0``) and ``subcomplexes``: per name, in order, its ``name``,
        ``cells``, ``f_vector``, ``euler_characteristic``, ``betti`` (over
        ``Z``), ``torsion`` (per degree) and ``betti_gf`` (per prime, as a
        string key). Its JSON Schema is ``homology``
        (:func:`polyrelu.validate`).

    Raises
    ------
    InvalidArgumentError
        Not a mapping of names to subcomplexes, or ``primes`` not a sequence.
    UsageError
        No subcomplex, an empty name, subcomplexes in spaces of different
        dimensions, or a number in ``primes`` that is not prime.

    Examples
    --------
    >>> from polyrelu import Box, ReLUNetwork, canonical_complex
    >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]), Box(-1, 1))
    >>> edge = Subcomplex(K, [c for c in K if 0 in c.domain_signs])
    >>> document = homology_document({"square": K, "its boundary": edge})
    >>> document["subcomplexes"][1]
    {'name': 'its boundary', 'cells': 16, 'f_vector': [8, 8, 0], 'euler_characteristic': 0, 'betti': [1, 1, 0], 'torsion': [[], [], []], 'betti_gf': {'2': [1, 1, 0]}}
    """
    caller = "homology_document"
    if not isinstance(subcomplexes, Mapping):
        raise InvalidArgumentError(f"{caller}: subcomplexes must be a mapping of names to subcomplexes, got {describe(subcomplexes)}")
    if not subcomplexes:
        raise UsageError(f"{caller}: subcomplexes is empty; give at least one name and subcomplex")
    primes = [_prime(p, caller) for p in require_sequence(primes, "primes", caller)]
    entries, dimensions = [], set()
    for name, X in subcomplexes.items():
        if not isinstance(name, str) or not name:
            raise UsageError(f"{caller}: subcomplexes: the name {describe(name)} is not a non-empty string; name each subcomplex")
        X = _subcomplex(X, caller, f"subcomplexes[{name!r}]")
        dimensions.add(X.ambient_dim)
        H = homology(X)
        entries.append({
            "name": name,
            "cells": len(X),
            "f_vector": list(X.f_vector()),
            "euler_characteristic": X.euler_characteristic(),
            "betti": list(H.betti),
            "torsion": [list(t) for t in H.torsion],
            "betti_gf": {str(p): list(betti_numbers(X, p)) for p in primes},
        })
    if len(dimensions) > 1:
        raise UsageError(f"{caller}: the subcomplexes lie in spaces of dimensions {sorted(dimensions)}; give subcomplexes of one R^n0")
    return {"format": HOMOLOGY_FORMAT, "version": HOMOLOGY_VERSION, "ambient_dim": dimensions.pop(), "subcomplexes": entries}


def _prime(value: object, caller: str) -> int:
    """``value``, checked to be a prime (a field for :func:`betti_numbers`)."""
    p: int = require_int(value, "primes", caller, minimum=2)
    if not flint.fmpz(p).is_prime():
        raise UsageError(f"{caller}: primes: {p} is not prime; give primes p for the fields GF(p), such as 2 or 3")
    return p
