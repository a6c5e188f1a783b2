"""The input domain of a network: all of ``R^n0``, a box, or a polytope.

Functions that take a network's input region accept a ``domain`` argument:
``None`` for all of ``R^n0``, a :class:`Box`, a :class:`~polyrelu.geometry.Polyhedron`
or inequality rows ``(b, a_1, ..., a_n0)`` meaning ``b + a·x >= 0``.
:func:`domain_polyhedron` (internal API) turns any of them into the one
thing the constructions use: a full-dimensional polytope in ``Q^n0`` (or
None), with an error naming what is wrong otherwise. ``DomainLike`` is the
type of such an argument.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Union

from .checks import describe, require_int
from .errors import GeometryError, InvalidArgumentError, InvalidNumberError, ShapeError
from .geometry import Polyhedron
from .geometry.rational import to_fraction, to_fraction_vector

__all__ = ["Box"]

# what a ``domain`` argument may be: all of R^n0 (None), a box, a polytope, or its inequality rows
DomainLike = Union["Box", Polyhedron, Sequence[Sequence[object]], None]


@dataclass(frozen=True)
class Box:
    """The box ``[lower, upper]^n`` (scalars) or ``prod_i [lower_i, upper_i]`` (vectors).

    Examples
    --------
    >>> Box(-1, 1).polyhedron(2).vertices()[0]
    (Fraction(-1, 1), Fraction(-1, 1))
    """

    # a number, or a vector of numbers (one per coordinate)
    lower: Any
    upper: Any

    def __post_init__(self) -> None:
        lo, hi = (_bound(v, name) for v, name in ((self.lower, "lower"), (self.upper, "upper")))
        if isinstance(lo, tuple) != isinstance(hi, tuple) or (isinstance(lo, tuple) and len(lo) != len(hi)):
            raise ShapeError(f"Box: lower and upper must both be numbers, or vectors of one length; got {self.lower!r} and {self.upper!r}")
        for i, (a, b) in enumerate(zip(*((lo, hi) if isinstance(lo, tuple) else ((lo,), (hi,))))):
            if a >= b:
                raise GeometryError(f"Box: lower[{i}] = {a} is not below upper[{i}] = {b}; the box would be flat or empty")

    def polyhedron(self, dim: int) -> Polyhedron:
        """The box as a :class:`~polyrelu.geometry.Polyhedron` in ``Q^dim``."""
        dim = require_int(dim, "dim", "Box.polyhedron", minimum=1)
        lo, hi = (
            to_fraction_vector(v, name, dim) if hasattr(v, "__len__") and not isinstance(v, str) else (to_fraction(v, name),) * dim
            for v, name in ((self.lower, "box lower"), (self.upper, "box upper"))
        )
        for i, (a, b) in enumerate(zip(lo, hi)):
            if a >= b:
                raise GeometryError(f"box: lower[{i}] = {a} is not below upper[{i}] = {b}; the box would be flat or empty")
        rows: list[tuple[Any, ...]] = []
        for i in range(dim):
            unit = [0] * dim
            unit[i] = 1
            rows.append((-lo[i], *unit))
            rows.append((hi[i], *(-u for u in unit)))
        return Polyhedron(ieqs=rows)


def _bound(value: Any, name: str) -> Any:
    """A bound of a :class:`Box`: a Fraction, or a tuple of them for a vector (Any: callers test which)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__len__"):
        return to_fraction(value, f"Box: {name}")
    return to_fraction_vector(value, f"Box: {name}")


def domain_polyhedron(domain: DomainLike, n0: int, caller: str | None = None) -> Polyhedron | None:
    """A ``domain`` argument as a full-dimensional polytope in ``Q^n0``, or None for ``R^n0`` (internal API).

    Parameters
    ----------
    domain : None, Box, Polyhedron or sequence of rows
        As the public functions take it.
    n0 : int
        The network's input dimension.
    caller : str, optional
        The public function that took ``domain``: messages start with it.

    Returns
    -------
    Polyhedron or None

    Raises
    ------
    GeometryError
        A domain that does not fit ``Q^n0``, or is empty, unbounded or not
        full-dimensional.
    InvalidArgumentError
        Not a domain at all.
    ShapeError, InvalidNumberError
        Malformed inequality rows (named by row).

    Examples
    --------
    >>> len(domain_polyhedron(Box(0, 1), 2).vertices()), domain_polyhedron(None, 2) is None
    (4, True)
    >>> domain_polyhedron([(0, 1)], 1, "f")
    Traceback (most recent call last):
    ...
    polyrelu.errors.GeometryError: f: the domain is unbounded; pass domain=None for all of R^n0, or a polytope
    """
    where = f"{caller}: " if caller else ""
    if domain is None:
        return None
    if isinstance(domain, Box):
        try:
            return domain.polyhedron(n0)
        except ShapeError as exc:
            raise GeometryError(f"{where}the box domain does not fit the network's input Q^{n0}: {exc}") from None
    if isinstance(domain, (list, tuple)):
        try:
            domain = Polyhedron(ieqs=domain, ambient_dim=n0)
        except (ShapeError, InvalidNumberError) as exc:  # named by row: say they are the domain's
            raise type(exc)(f"{where}domain rows (b, a1, ..., a{n0}): {exc}") from None
    if not isinstance(domain, Polyhedron):
        raise InvalidArgumentError(
            f"{where}domain must be None, a Box, a Polyhedron or inequality rows (b, a1, ..., an), got {describe(domain)}"
        )
    if domain.ambient_dim != n0:
        raise GeometryError(f"{where}the domain lives in Q^{domain.ambient_dim} but the network's input is Q^{n0}")
    if domain.is_empty():
        raise GeometryError(f"{where}the domain is empty")
    if not domain.is_bounded():
        raise GeometryError(f"{where}the domain is unbounded; pass domain=None for all of R^n0, or a polytope")
    if not domain.is_full_dimensional():
        raise GeometryError(f"{where}the domain has dimension {domain.dimension()} < {n0}; pass a full-dimensional polytope")
    return domain
