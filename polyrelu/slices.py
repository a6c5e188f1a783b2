"""Exact slices: a network of any input size restricted to a line, plane or 3-space through its inputs.

The canonical complex of a network on ``R^784`` cannot be built, but its
intersection with a low-dimensional affine subspace can, and exactly.
:func:`restrict` gives the network ``t ↦ net(origin + D t)`` on ``R^k``
(``k = 1, 2, 3`` independent directions, the columns of ``D``): only the
first layer changes, composed with the affine map in exact rationals.
:func:`slice_through` chooses the subspace through 2 to 4 data points and a
box around them, and returns a :class:`Slice`, whose
:meth:`~Slice.complex` is the canonical complex of the slice.

The restricted network has the same hidden neurons as the full one, with the
same pre-activations at corresponding points, so every cell of a slice's
complex keeps the full network's sign vector: it is the intersection of the
slice with one cell of the full complex (and with a face of the slice's box).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import flint

from .atomic import write_json
from .checks import require_instance, require_int, require_path, require_sequence
from .complex import CanonicalComplex, canonical_complex, check_complex_of
from .domain import Box
from .errors import GeometryError, ShapeError, UsageError
from .geometry import LPOracle
from .geometry.linalg import rank
from .geometry.rational import (
    FractionMatrix,
    FractionVector,
    MatrixLike,
    RationalLike,
    VectorLike,
    fraction_to_json,
    to_fraction,
    to_fraction_matrix,
    to_fraction_vector,
)
from .network import ReLUNetwork

__all__ = ["Slice", "restrict", "slice_through", "DEFAULT_MARGIN", "MAX_SLICE_DIMENSION"]

SLICE_FORMAT = "polyrelu.slice"
SLICE_VERSION = 1

# Slices are for looking at a network: a line, a plane or a 3-space. The complex of a k-dimensional slice
# through a wide network grows like (cells per neuron)^k, and beyond 3 it can no longer be drawn.
MAX_SLICE_DIMENSION = 3
# How far the default domain of slice_through reaches beyond the points' bounding box, on each side, as a
# fraction of the box's extent: enough to see the cells around the outermost points.
DEFAULT_MARGIN = Fraction(1, 4)


def restrict(net: ReLUNetwork, origin: VectorLike, directions: MatrixLike) -> ReLUNetwork:
    """The network ``t ↦ net(origin + D t)`` on ``R^k``, exact, where ``D`` has the ``directions`` as columns.

    Parameters
    ----------
    net : ReLUNetwork
        A network with ``n0`` inputs.
    origin : sequence of numbers
        A point of ``R^n0``: where ``t = 0`` lands. Floats are converted exactly.
    directions : sequence of 1 to 3 vectors
        Linearly independent vectors of ``R^n0`` (checked exactly): where the
        unit vectors of ``R^k`` point. They need not be orthogonal or of unit length.

    Returns
    -------
    ReLUNetwork
        Architecture ``(k, n1, ..., m)``. Its first layer is ``W1 D`` with bias
        ``W1 origin + b1``, computed in exact integer arithmetic; the other
        layers are ``net``'s.

    Raises
    ------
    ShapeError
        No direction or more than 3, or a vector of another length than ``n0``.
    GeometryError
        Linearly dependent directions (a repeated or a zero direction, say).
    InvalidNumberError
        A NaN, infinite or non-numeric entry, named by position.
    InvalidArgumentError
        ``net`` is not a :class:`~polyrelu.network.ReLUNetwork`, ``directions`` not a sequence.

    Examples
    --------
    >>> net = ReLUNetwork([[[1, 2, 3], [0, 1, -1]], [[1, 1]]], [[0, 1], [0]])
    >>> line = restrict(net, [0, 0, 1], [[1, "1/2", 0]])
    >>> line.architecture.widths, line.weights[0], line.biases[0]
    ((1, 2, 1), ((Fraction(2, 1),), (Fraction(1, 2),)), (Fraction(3, 1), Fraction(0, 1)))
    >>> line([4]) == net([4, 2, 1]), line.signs([4]) == net.signs([4, 2, 1])
    (True, True)
    >>> restrict(net, [0, 0, 0], [[1, 0, 0], [2, 0, 0]])
    Traceback (most recent call last):
    ...
    polyrelu.errors.GeometryError: restrict: directions: the 2 directions are linearly dependent (rank 1); give independent directions

    Notes
    -----
    The hidden neurons are the full network's, with the same pre-activations:
    ``restrict(net, o, D).pre_activations(t) == net.pre_activations(o + D t)``.
    So the restricted network's sign vectors are the full network's, and its
    canonical complex is the full complex intersected with the subspace.
    """
    caller = "restrict"
    require_instance(net, ReLUNetwork, "net", caller)
    n0 = net.architecture.input_dim
    origin = to_fraction_vector(origin, f"{caller}: origin", n0)
    D = _directions(directions, n0, caller)
    return _restricted(net, origin, D)


def _directions(directions: MatrixLike, n0: int, caller: str) -> FractionMatrix:
    """``directions`` as 1 to 3 exact, linearly independent vectors of ``Q^n0``."""
    count = len(require_sequence(directions, "directions", caller))
    if not 1 <= count <= MAX_SLICE_DIMENSION:
        raise ShapeError(
            f"{caller}: directions: {count} directions; a slice has 1 to {MAX_SLICE_DIMENSION} "
            "(a line, a plane or a 3-space), one vector of R^n0 each"
        )
    D = to_fraction_matrix(directions, f"{caller}: directions", shape=(count, n0))
    r = rank(D)
    if r < count:
        raise GeometryError(
            f"{caller}: directions: the {count} directions are linearly dependent (rank {r}); give independent directions"
        )
    return D


def _restricted(net: ReLUNetwork, origin: FractionVector, D: FractionMatrix) -> ReLUNetwork:
    """:func:`restrict` on checked arguments: ``[b1 | W1]`` times ``[[1, 0], [origin, D]]``, in integers."""
    k, n0 = len(D), len(origin)
    # c [b1 | W1] is an integer matrix, and so is e [[1, 0], [origin, D]]: one flint product, one denominator
    M, c = net.integer_layers()[0]
    e = math.lcm(*(v.denominator for v in origin), *(v.denominator for d in D for v in d))
    homogeneous = [e, *[0] * k]
    for i in range(n0):
        homogeneous.append(int(origin[i] * e))
        homogeneous.extend(int(d[i] * e) for d in D)
    entries = [int(v) for v in (M * flint.fmpz_mat(n0 + 1, k + 1, homogeneous)).entries()]
    scale = c * e
    rows = [entries[i : i + k + 1] for i in range(0, len(entries), k + 1)]
    W1 = [[Fraction(v, scale) for v in row[1:]] for row in rows]
    b1 = [Fraction(row[0], scale) for row in rows]
    name = f"{net.name or 'network'} restricted to a {k}-dimensional slice"
    return ReLUNetwork([W1, *net.weights[1:]], [b1, *net.biases[1:]], name=name)


@dataclass(frozen=True)
class Slice:
    """A network restricted to the affine hull of data points, with a box around them: what :func:`slice_through` returns.

    Attributes
    ----------
    network : ReLUNetwork
        ``t ↦ net(origin + D t)`` on ``R^k`` (:func:`restrict`), ``D`` with
        ``directions`` as columns.
    origin : tuple of Fraction
        The first data point, in input space.
    directions : tuple of tuple of Fraction
        ``p_i - p_0`` for the other data points, in input space.
    points : tuple of tuple of Fraction
        The data points in slice coordinates: the origin of ``R^k`` and its
        unit vectors.
    domain : Box
        The box of the slice's complex, in slice coordinates.
    """

    network: ReLUNetwork
    origin: FractionVector
    directions: FractionMatrix
    points: FractionMatrix
    domain: Box

    @property
    def dimension(self) -> int:
        """``k``, the dimension of the slice."""
        return len(self.directions)

    def to_input(self, t: VectorLike) -> FractionVector:
        """The input-space point ``origin + D t`` of the slice coordinates ``t``, exact.

        Examples
        --------
        >>> s = slice_through(ReLUNetwork([[[1, 1, 1]], [[1]]], [[0], [0]]), [[0, 0, 0], [1, 2, 3], [0, 0, 1]])
        >>> s.to_input(["1/2", 1])
        (Fraction(1, 2), Fraction(1, 1), Fraction(5, 2))
        """
        t = to_fraction_vector(t, "Slice.to_input: t", self.dimension)
        return tuple(o + sum((tj * d[i] for tj, d in zip(t, self.directions)), Fraction(0)) for i, o in enumerate(self.origin))

    def complex(
        self,
        *,
        method: Literal["lattice", "lp"] = "lattice",
        max_cells: int = 1_000_000,
        oracle: LPOracle | None = None,
        progress: bool | None = None,
    ) -> CanonicalComplex:
        """The canonical complex of the slice on its :attr:`domain`.

        The arguments are those of :func:`~polyrelu.complex.canonical_complex`.
        Every cell's sign vector is the full network's at the cell's points
        (mapped to input space with :meth:`to_input`).

        Raises
        ------
        ComplexTooLargeError
            More than ``max_cells`` cells are estimated.

        Examples
        --------
        >>> net = ReLUNetwork.random((5, 4, 3, 1), seed=2)
        >>> s = slice_through(net, [[0, 0, 0, 0, 0], [1, 0, 2, 0, 1], [0, 3, 0, 1, -1]])
        >>> K = s.complex()
        >>> K.euler_characteristic()
        1
        >>> region = K.regions()[0]
        >>> net.signs(s.to_input(region.relative_interior_point())) == region.signs
        True
        """
        return canonical_complex(
            self.network, self.domain, method=method, max_cells=max_cells, oracle=oracle, progress=progress
        )

    def to_json(self, complex_: CanonicalComplex | None = None, *, complex_version: int = 2) -> dict[str, Any]:
        """The slice and its complex as a JSON-ready dict; exact numbers are strings.

        Parameters
        ----------
        complex_ : CanonicalComplex, optional
            :meth:`complex`, if already computed (computed here otherwise).
        complex_version : {2, 1}
            The format version of the embedded complex document
            (:meth:`~polyrelu.complex.CanonicalComplex.to_json`).

        Returns
        -------
        dict
            ``format`` ``"polyrelu.slice"``, ``version`` 1, ``origin``,
            ``directions``, ``points`` (slice coordinates), ``domain``
            (``lower`` and ``upper`` per coordinate) and ``complex``, the
            complex JSON document of the restricted network
            (:meth:`~polyrelu.complex.CanonicalComplex.to_json`; read it back
            with :meth:`~polyrelu.complex.CanonicalComplex.from_json`).

        Raises
        ------
        UsageError
            ``complex_`` is the complex of another network or domain.
        """
        caller = "Slice.to_json"
        complex_version = require_int(complex_version, "complex_version", caller, minimum=1, maximum=2)
        K = check_complex_of(complex_, self.network, self.domain, caller) or self.complex()

        def vector(values: Sequence[RationalLike]) -> list[str]:
            return [str(fraction_to_json(v)) for v in values]

        lower, upper = (
            vector(v if isinstance(v, (tuple, list)) else (v,) * self.dimension) for v in (self.domain.lower, self.domain.upper)
        )
        return {
            "format": SLICE_FORMAT,
            "version": SLICE_VERSION,
            "origin": vector(self.origin),
            "directions": [vector(d) for d in self.directions],
            "points": [vector(p) for p in self.points],
            "domain": {"lower": lower, "upper": upper},
            "complex": K.to_json(version=complex_version),
        }

    def write_json(self, path: os.PathLike | str, complex_: CanonicalComplex | None = None, *, complex_version: int = 2) -> None:
        """Write :meth:`to_json` to ``path``, atomically (checked before anything is computed).

        Raises
        ------
        OutputPathError
            ``path`` cannot be written.
        UsageError
            ``complex_`` is the complex of another network or domain.
        """
        caller = "Slice.write_json"
        require_path(path, "path", caller)
        complex_version = require_int(complex_version, "complex_version", caller, minimum=1, maximum=2)
        check_complex_of(complex_, self.network, self.domain, caller)
        write_json(path, lambda: self.to_json(complex_, complex_version=complex_version))


def slice_through(net: ReLUNetwork, points: MatrixLike, margin: RationalLike = DEFAULT_MARGIN) -> Slice:
    """The slice of ``net`` through 2 to 4 data points: their affine hull, with a box around them.

    Parameters
    ----------
    net : ReLUNetwork
    points : sequence of 2 to 4 points of ``R^n0``
        Affinely independent (checked exactly): two distinct points, three
        not on a line, four not in a plane. Floats are converted exactly.
    margin : number
        How far the domain reaches beyond the points' bounding box on each
        side, as a fraction of its extent (``>= 0``; default ``1/4``).

    Returns
    -------
    Slice
        Of dimension ``k = len(points) - 1``. Its origin is the first point
        and its directions are ``p_i - p_0``, so the points sit at the origin
        and the unit vectors of ``R^k``, and the domain is the box
        ``[-margin, 1 + margin]^k``.

    Raises
    ------
    ShapeError
        Fewer than 2 or more than 4 points, or points of another length than ``n0``.
    GeometryError
        Points that are not affinely independent: a repeated point, three on a
        line, four in a plane.
    UsageError
        A negative margin.
    InvalidNumberError
        A NaN, infinite or non-numeric entry, named by position.

    Examples
    --------
    >>> net = ReLUNetwork([[[1, -1, 2], [1, 2, 0]], [[1, -1]]], [["-1/2", -1], [0]])
    >>> s = slice_through(net, [[0, 0, 0], [1, 0, 0], [0, 1, 1]])
    >>> s.dimension, s.points, s.domain
    (2, ((Fraction(0, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1))), Box(lower=Fraction(-1, 4), upper=Fraction(5, 4)))
    >>> s.network.weights[0], s.network.biases[0]       # the lines t1 + t2 = 1/2 and t1 + 2 t2 = 1
    (((Fraction(1, 1), Fraction(1, 1)), (Fraction(1, 1), Fraction(2, 1))), (Fraction(-1, 2), Fraction(-1, 1)))
    >>> s.complex().f_vector()     # they cross inside the box: 4 regions
    (9, 12, 4)
    >>> slice_through(net, [[0, 0, 0], [1, 1, 1], [2, 2, 2]])
    Traceback (most recent call last):
    ...
    polyrelu.errors.GeometryError: slice_through: points: the 3 points lie on a line; give points whose affine hull has dimension 2 (no three on a line, no four in a plane)

    Notes
    -----
    Why the differences ``p_i - p_0`` as directions, not an orthonormal basis:
    normalising needs square roots, which are not rational; an exact
    Gram–Schmidt (orthogonal, not normalised) would give directions with
    longer numbers than the points themselves, and every cell of the complex
    would pay for them. The differences are exact, as short as the data, and
    put the points where they are easy to read; the slice's complex is the
    same up to an affine change of coordinates whatever basis is chosen. The
    price: lengths and angles in slice coordinates are not those of input
    space (a picture of the slice is skewed when the differences are far from
    orthogonal or of different lengths).
    """
    caller = "slice_through"
    require_instance(net, ReLUNetwork, "net", caller)
    n0 = net.architecture.input_dim
    count = len(require_sequence(points, "points", caller))
    if not 2 <= count <= MAX_SLICE_DIMENSION + 1:
        raise ShapeError(
            f"{caller}: points: {count} points; a slice goes through 2 to {MAX_SLICE_DIMENSION + 1} "
            "(a line, a plane or a 3-space)"
        )
    P = to_fraction_matrix(points, f"{caller}: points", shape=(count, n0))
    margin = to_fraction(margin, f"{caller}: margin")
    if margin < 0:
        raise UsageError(f"{caller}: margin must be >= 0 (a fraction of the points' extent), not {margin}")
    origin = P[0]
    D = tuple(tuple(a - b for a, b in zip(p, origin)) for p in P[1:])
    r = rank(D)
    if r < len(D):
        repeated = next(((i, j) for j in range(count) for i in range(j) if P[i] == P[j]), None)
        found = (
            f"points {repeated[0]} and {repeated[1]} are the same point" if repeated is not None
            else f"the {count} points lie on a {('point', 'line', 'plane')[r]}"
        )
        raise GeometryError(
            f"{caller}: points: {found}; give points whose affine hull has dimension {count - 1} "
            "(no three on a line, no four in a plane)"
        )
    k = len(D)
    unit = tuple(tuple(Fraction(int(i == j)) for j in range(k)) for i in range(k))
    return Slice(
        network=_restricted(net, origin, D),
        origin=origin,
        directions=D,
        points=((Fraction(0),) * k, *unit),
        domain=Box(-margin, 1 + margin),
    )
