"""The canonical polyhedral complex of a ReLU network, as an exact face lattice.

:func:`canonical_complex` builds it; a :class:`CanonicalComplex` holds its
cells (:class:`Cell`: sign vector, dimension, exact polyhedron) with the
covering relation, and answers questions about them (faces, cofaces and stars,
:meth:`~CanonicalComplex.locate`, affine maps of ``f``, bent hypersurfaces,
the Hasse diagram in igraph or networkx) and writes and reads the complex JSON
format (written cell by cell, streamed to the file; the checks of a file are in
:mod:`polyrelu.complex_validation`). :class:`PatternMaps` gives the exact maps
of every cell in integers, for the computations over all of them.
:func:`estimate_cells` is the size guard's estimate (:mod:`polyrelu.size_guard`)
on its own; the ``domain`` argument is read by :mod:`polyrelu.domain`, where
:class:`~polyrelu.domain.Box` lives.

The cells are the closures of the non-empty sign classes ``{x : s(x) = s}``
(docs/design.md §2). They are built layer by layer and neuron by neuron: on
every cell found so far the next neuron's pre-activation ``h`` is affine, and
the cell splits into the parts where ``h`` is positive, negative and zero.
Two methods build the same complex, and the tests check that they agree:

* ``method="lattice"`` (the default) never solves an LP. The complex is kept
  as a face lattice whose unbounded cells are closed up by ideal vertices
  (directions at infinity), so the sign of ``h`` on a cell is read off its
  signs at the cell's vertices: certified from a float evaluation with a
  rigorous error bound where it clears the bound, computed in integers
  otherwise; a cell seeing both signs splits combinatorially and a cut edge
  gets the vertex where ``h`` vanishes, from ``h``'s exact values at its ends
  (:class:`~polyrelu.geometry.Subdivision`).
* ``method="lp"`` splits relatively open cells: the sign of ``h`` at the
  cell's exact relative interior point shows one side non-empty, and one call
  to the certified LP oracle (:class:`~polyrelu.geometry.LPOracle`) decides
  the other; the zero part is non-empty exactly when both sides are.

A bounded polytope domain enters as a first "layer" of pseudo-neurons, its
facet inequalities, with signs ``+`` (inside) and ``0`` (on the facet) only, so
the domain's own faces refine the cells. The covering relation follows from
the sign vectors: ``τ ≤ σ`` exactly when ``s(τ)_k ∈ {s(σ)_k, 0}`` for every
``k``, because on ``τ`` every pre-activation agrees with the formula valid on
``σ`` (the neurons where they differ vanish on ``τ``).
"""

from __future__ import annotations

import contextlib
import functools
import gc
import json
import math
import os
import time
from array import array
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import flint
import numpy as np

from .atomic import atomic_write, check_output_path
from .checks import (
    describe,
    require_bool,
    require_choice,
    require_index,
    require_instance,
    require_int,
    require_path,
    require_str,
)
from .complex_validation import (
    check_document,
    covering_from_signs,
    lineality_basis,
    read_document,
)
from .domain import Box, domain_polyhedron  # noqa: F401  (Box: still importable from here, and the doctests use it)
from .errors import (
    ComplexFormatError,
    GeometryError,
    InvalidArgumentError,
    ShapeError,
    UsageError,
)
from .geometry import (
    AffineSubspace,
    FaceLattice,
    Feasibility,
    LPOracle,
    Polyhedron,
    default_oracle,
)
from .geometry.linalg import integer_nullspace, pivot_columns
from .geometry.polyhedron import echelon_equations, reduce_modulo
from .geometry.rational import (
    FractionMatrix,
    FractionVector,
    IntegerRow,
    MatrixLike,
    VectorLike,
    int_text,
    integer_vector,
    primitive_integer_row,
    row_value,
    to_fraction_vector,
)
from .geometry.subdivision import Subdivision
from .graphs import igraph_to_networkx
from .io import DEFAULT_LIMITS, Limits, network_to_dict
from .network import ReLUNetwork
from .progress import progress_bar
from .size_guard import (
    CellSample,
    Estimated,
    SizeGuard,
    arrangement_cells_bound,
    check_next_layer,
    first_layer_cell_count,
)

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    import igraph
    import networkx as nx

__all__ = ["Cell", "CanonicalComplex", "CellEstimate", "canonical_complex", "estimate_cells"]

COMPLEX_FORMAT = "polyrelu.complex"
COMPLEX_VERSION = 1


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Suspend Python's cyclic garbage collector for the duration of a ``with`` block (internal API).

    A complex of a few hundred thousand cells is millions of small objects,
    allocated in one go and kept: every collection the allocations trigger
    walks all of them to find no garbage, which took about half of a large
    construction. The constructions make no reference cycles worth
    collecting early; the collector is back on (if it was on) when the block
    exits, normally or by an exception.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


class Cell:
    """One cell of the canonical complex: the closure of a sign class.

    Attributes
    ----------
    id : int
        Index in the complex (cells are ordered by dimension, then sign vector).
    dimension : int
    signs : tuple of int
        The sign vector ``s ∈ {-1, 0, 1}^H``, one entry per hidden neuron.
    domain_signs : tuple of int
        For a polytope domain, ``1`` (inside) or ``0`` (on) per domain facet; else ``()``.
    """

    __slots__ = ("id", "dimension", "signs", "domain_signs", "_complex", "_polyhedron")

    def __init__(
        self,
        id: int,
        dimension: int,
        signs: Sequence[int],
        domain_signs: Sequence[int],
        complex_: CanonicalComplex | None = None,
        polyhedron: Polyhedron | None = None,
    ) -> None:
        self.id = id
        self.dimension = dimension
        self.signs = tuple(signs)
        self.domain_signs = tuple(domain_signs)
        self._complex = complex_
        self._polyhedron = polyhedron

    @property
    def polyhedron(self) -> Polyhedron:
        """The closed cell as a :class:`~polyrelu.geometry.Polyhedron` (built on first use).

        Its inequalities are the signed pre-activation formulas valid on the
        cell, its equations those of the neurons that vanish on it; the
        minimal H- and the V-representation are computed on demand and cached.
        """
        if self._polyhedron is None:
            assert self._complex is not None  # only cells built with their complex come without a polyhedron
            self._polyhedron = self._complex._cell_polyhedron(self)
        return self._polyhedron

    @property
    def sign_string(self) -> str:
        """The sign vector as a string such as ``"+-0+"``."""
        return "".join("+" if s > 0 else "-" if s < 0 else "0" for s in self.signs)

    def relative_interior_point(self) -> FractionVector:
        """An exact point of the sign class itself."""
        point = self.polyhedron.relative_interior_point()
        assert point is not None  # a cell is never empty
        return point

    def __repr__(self):
        domain = f" domain {''.join('+' if s else '0' for s in self.domain_signs)}" if self.domain_signs else ""
        return f"<Cell {self.id}: dim {self.dimension}, signs {self.sign_string!r}{domain}>"


@dataclass
class _OpenCell:
    """A sign class during the enumeration: relatively open, with an exact interior point."""

    signs: tuple
    equations: tuple  # integer rows (x-space) vanishing on the cell
    strict: tuple  # integer rows (x-space) strictly positive on the cell
    hull: AffineSubspace
    point: tuple
    restricted: tuple | None = None  # ``strict`` in hull coordinates, non-constant rows only

    def restricted_rows(self):
        if self.restricted is None:
            rows = (self.hull.restrict(r) for r in self.strict)
            self.restricted = tuple(r for r in rows if any(r[1:]))
        return self.restricted


def _sign(v):
    return (v > 0) - (v < 0)


class _Splitter:
    """Splits open cells by affine functions with at most one certified LP per split."""

    def __init__(self, oracle):
        self.oracle = oracle

    def split(self, cell, row, allowed=(-1, 0, 1)):
        """The non-empty parts of ``cell`` where ``row`` is ``+``, ``-`` and ``0`` (in ``allowed``)."""
        h = cell.hull.restrict(row)
        if not any(h[1:]):
            s = _sign(h[0])
            return [self._child(cell, s, row, cell.point)] if s in allowed else []
        s0 = _sign(row_value(row, cell.point))
        points = {}
        if s0 == 0:
            points = self._points_beside(cell, h)
        else:
            points[s0] = cell.point
            if -s0 in allowed or 0 in allowed:
                other = self._point_on_side(cell, h, -s0)
                if other is not None:
                    points[-s0] = other
        children = [self._child(cell, s, row, points[s]) for s in (1, -1) if s in points and s in allowed]
        if 0 in allowed and len(points) == 2:
            if s0 == 0:
                zero_point = cell.point
            else:
                p, q = points[1], points[-1]
                hp, hq = row_value(row, p), row_value(row, q)
                zero_point = tuple((hp * b - hq * a) / (hp - hq) for a, b in zip(p, q))
            children.append(self._child(cell, 0, row, zero_point))
        return children

    def _point_on_side(self, cell, h, side):
        """An exact point of the cell where the restricted row ``h`` has sign ``side``, or ``None``."""
        signed = tuple(side * v for v in h)
        answer = self.oracle.decide(list(cell.restricted_rows()) + [signed])
        if answer.status is not Feasibility.INTERIOR:
            return None
        return cell.hull.lift(answer.point)

    def _points_beside(self, cell, h):
        """Points on both sides of ``h = 0`` near the interior point, which lies on it.

        Step from the point along ``±grad h`` (in hull coordinates) by half the
        largest step that keeps every strict row positive: exact and LP-free.
        """
        u0 = cell.hull.coordinates(cell.point)
        result = {}
        for side in (1, -1):
            direction = [side * g for g in h[1:]]
            limit = None
            for r in cell.restricted_rows():
                slope = sum(a * d for a, d in zip(r[1:], direction))
                if slope < 0:
                    t = row_value(r, u0) / -slope
                    limit = t if limit is None or t < limit else limit
            step = Fraction(1) if limit is None else limit / 2
            result[side] = cell.hull.lift([c + step * d for c, d in zip(u0, direction)])
        return result

    @staticmethod
    def _child(cell, s, row, point):
        if s == 0:
            equations = cell.equations + (row,)
            hull = AffineSubspace.from_equations(equations, len(point))
            return _OpenCell(cell.signs + (0,), equations, cell.strict, hull, point)
        signed = row if s > 0 else tuple(-v for v in row)
        restricted = None
        if cell.restricted is not None:
            r = cell.hull.restrict(signed)
            restricted = cell.restricted + ((r,) if any(r[1:]) else ())
        return _OpenCell(cell.signs + (s,), cell.equations, cell.strict + (signed,), cell.hull, point, restricted)


def canonical_complex(
    net: ReLUNetwork,
    domain: Box | Polyhedron | MatrixLike | None = None,
    *,
    method: Literal["lattice", "lp"] = "lattice",
    max_cells: int = 1_000_000,
    oracle: LPOracle | None = None,
    progress: bool | None = None,
) -> CanonicalComplex:
    """The canonical polyhedral complex of ``net`` on ``R^n0`` or a polytope domain.

    Parameters
    ----------
    net : ReLUNetwork
    domain : None, Box, Polyhedron or sequence of rows
        ``None`` for all of ``R^n0`` (cells may be unbounded); otherwise a
        full-dimensional polytope in ``Q^n0`` whose faces refine the cells,
        given as a Box, a Polyhedron or inequality rows ``(b, a_1, ..., a_n0)``
        meaning ``b + a·x >= 0``.
    method : {"lattice", "lp"}
        ``"lattice"`` (default): cut a face lattice neuron by neuron, every
        decision read off exact values at its vertices (no LP at all).
        ``"lp"``: split relatively open cells with one certified LP per
        undecided split; slower, independent of the first, kept as reference.
    max_cells : int
        Refuse (before enumerating a layer) when the estimated number of cells exceeds this.
    oracle : LPOracle, optional
    progress : bool, optional
        Show a progress bar; by default only on a terminal, and only for runs over a second.

    Returns
    -------
    CanonicalComplex

    Raises
    ------
    GeometryError
        An empty, unbounded or wrong-dimensional domain.
    ComplexTooLargeError
        The estimated cell count exceeds ``max_cells``.

    Examples
    --------
    >>> from polyrelu.examples import bent_line_network
    >>> K = canonical_complex(bent_line_network())
    >>> K.f_vector(), K.euler_characteristic()
    ((3, 9, 7), 1)
    >>> K.locate([2, 3]).sign_string, K.locate([1, 0]).dimension
    ('+++', 0)
    >>> canonical_complex(bent_line_network(), Box(-2, 2)).euler_characteristic()
    1
    """
    domain, domain_rows = _checked_arguments("canonical_complex", net, domain, method, max_cells)
    oracle = require_instance(oracle, LPOracle, "oracle", "canonical_complex", optional=True) or default_oracle
    if progress is not None:
        require_bool(progress, "progress", "canonical_complex")
    bar = progress_bar(total=net.architecture.num_hidden, desc="neurons", enabled=progress)
    start = time.perf_counter()
    with paused_gc():
        try:
            build = _lattice_cells if method == "lattice" else _lp_cells
            records = build(net, domain, domain_rows, oracle, SizeGuard(max_cells), bar)
        finally:
            bar.close()
        elapsed = time.perf_counter() - start
        return CanonicalComplex._assemble(net, domain, domain_rows, records, oracle, elapsed)


class CellEstimate(NamedTuple):
    """What :func:`estimate_cells` found.

    Attributes
    ----------
    cells : int
        The estimated number of cells.
    lower_bound : bool
        The count stopped at ``10 * max_cells``: ``cells`` is only a lower bound.
    margin : int
        Twice the estimated standard error of the sampling (0 when every cell
        was counted): the true count is very likely below ``cells + margin``,
        which is what :func:`canonical_complex` compares with ``max_cells``.
    """

    cells: int
    lower_bound: bool
    margin: int


def estimate_cells(
    net: ReLUNetwork, domain: Box | Polyhedron | MatrixLike | None = None, *, method: Literal["lattice", "lp"] = "lattice", max_cells: int = 1_000_000
) -> CellEstimate:
    """Estimate the number of cells of ``canonical_complex(net, domain)`` without building its last layer.

    The layers before the last are built (as :func:`canonical_complex` would,
    refused beyond ``max_cells``); the last layer's cuts are counted exactly
    inside a random sample of the cells so far, per dimension, and scaled up.
    This is the estimate :func:`canonical_complex` uses to refuse a layer
    before enumerating it.

    Parameters
    ----------
    net : ReLUNetwork
    domain : None, Box, Polyhedron or sequence of rows
        As in :func:`canonical_complex`.
    method : {"lattice", "lp"}
        The construction whose estimate is wanted.
    max_cells : int
        Limit for the layers that are built; the last layer's count stops at
        ``10 * max_cells``.

    Returns
    -------
    CellEstimate
        The estimated number of cells, whether it is only a lower bound, and
        the sampling margin.

    Raises
    ------
    ComplexTooLargeError
        An earlier layer already exceeds ``max_cells``.

    Examples
    --------
    >>> from polyrelu.examples import seeded_gaussian_network
    >>> net = seeded_gaussian_network((3, 8, 8, 1))
    >>> estimate = estimate_cells(net)
    >>> len(canonical_complex(net)), estimate.lower_bound
    (4063, False)
    >>> 4063 / 3 <= estimate.cells <= 3 * 4063
    True

    Notes
    -----
    On ``R^n0`` the first layer is a hyperplane arrangement, whose cell count
    ``sum_i 2^i C(width, i)`` (``i`` up to the rank of ``W1``) is exact for
    hyperplanes in general position. Later layers are affine on every cell
    of the complex so far, so the cells a layer makes inside one cell are
    those of a hyperplane arrangement restricted to it; their total is a sum
    over cells, estimated by stratified sampling. Measured accuracy: see the
    benchmarks page.
    """
    domain, domain_rows = _checked_arguments("estimate_cells", net, domain, method, max_cells)
    if not net.architecture.depth:
        return CellEstimate(1 if domain is None else len(domain.face_lattice()), False, 0)
    build = _lattice_cells if method == "lattice" else _lp_cells
    bar = progress_bar(desc="neurons", enabled=False)
    try:
        build(net, domain, domain_rows, default_oracle, SizeGuard(max_cells, stop_at=net.architecture.depth), bar)
    except Estimated as done:
        return CellEstimate(done.count.value, done.count.lower_bound, done.count.margin)
    raise RuntimeError("estimate_cells: the construction never reached its last layer")


def _checked_arguments(
    caller: str, net: ReLUNetwork, domain: Any, method: str, max_cells: int
) -> tuple[Polyhedron | None, tuple[IntegerRow, ...]]:
    """Validate the common arguments of the constructions; the domain as a polyhedron and its facet rows."""
    require_instance(net, ReLUNetwork, "net", caller)
    require_choice(method, ("lattice", "lp"), "method", caller)
    require_int(max_cells, "max_cells", caller, minimum=1)
    domain = domain_polyhedron(domain, net.architecture.input_dim, caller)
    return domain, (domain.minimal_h_representation()[0] if domain is not None else ())


class _Found(NamedTuple):
    """What a construction method found, one entry per cell in its own order, before ids are assigned."""

    dimensions: list[int]
    signs: np.ndarray  # int8, a row per cell: domain signs, then neuron signs in network order
    facets: list[tuple[int, ...]] | None = None  # indices into these lists, when the method knows them
    polyhedra: list[Polyhedron] | None = None
    generators: Callable[[int, tuple[int, ...]], Any] | None = None  # (index, signs) -> (vertices, rays, lines), when known


def _sign_matrix(rows, width):
    """Sign vectors as an int8 matrix with ``width`` columns (also when there is no row or no column)."""
    return np.array(rows, dtype=np.int8).reshape(len(rows), width)


def _lp_cells(net, domain, domain_rows, oracle, guard, bar):
    """Cells by splitting with one certified LP per undecided split (the reference method)."""
    n0 = net.architecture.input_dim
    splitter = _Splitter(oracle)
    cells = [_OpenCell((), (), (), AffineSubspace.from_equations((), n0), (Fraction(0),) * n0, ())]
    for row in domain_rows:
        cells = [c for cell in cells for c in splitter.split(cell, row, allowed=(1, 0))]
    n_domain = len(domain_rows)
    widths = net.architecture.hidden_widths
    for l, width in enumerate(widths, start=1):
        prefix_end = n_domain + sum(widths[: l - 1])
        maps = {}

        def rows_of(cell):
            prefix = cell.signs[n_domain:prefix_end]
            if prefix not in maps:
                maps[prefix] = _layer_rows(net, l, prefix)
            return maps[prefix]

        def count_inside(cell, cap):
            parts, rows = [cell], rows_of(cell)
            for row in rows:
                parts = [c for part in parts for c in splitter.split(part, row)]
                if len(parts) >= cap:
                    break
            return len(parts)

        def estimate(cap):
            if l == 1:
                return first_layer_cell_count(net, domain_rows, cap)
            by_dim = defaultdict(list)
            for cell in cells:
                by_dim[cell.hull.dimension,].append(cell)
            return CellSample(by_dim).estimate(count_inside, cap)

        guard.check(l, len(cells), len(cells) * arrangement_cells_bound(width + len(domain_rows) * (l == 1), n0), estimate)
        for i in range(width):
            new_cells = []
            for cell in cells:
                new_cells.extend(splitter.split(cell, rows_of(cell)[i]))
            cells = new_cells
            bar.update(1)
            bar.set_postfix(cells=len(cells))
    return _Found(
        [c.hull.dimension for c in cells],
        _sign_matrix([c.signs for c in cells], n_domain + net.architecture.num_hidden),
        polyhedra=[
            Polyhedron.from_trusted(
                n0, h_representation=(c.strict, c.equations), relative_interior_point=c.point, affine_hull=c.hull, oracle=oracle
            )
            for c in cells
        ],
    )


class _IntegerNetwork:
    """Exact pre-activations at homogeneous integer points ``(D, X)``, in batches (python-flint).

    Uses the network's integer layers ``c_l [b_l | W_l]``: the value reported for
    neuron ``k`` at ``(D, X)`` is ``C_k D z_k(X / D)`` with a constant ``C_k > 0``;
    at an ideal point (``D = 0``) it is ``C_k`` times the recession value, i.e.
    the network with all biases set to zero evaluated at ``X``.
    """

    def __init__(self, net):
        self.layers = net.integer_layers()[:-1]
        self.rows = [[tuple(int(v) for v in row) for row in Wb.tolist()] for Wb, _ in self.layers]

    def _input_matrix(self, points, layer):
        """The homogeneous inputs of hidden layer ``layer`` at the points: a column per point, the constant first."""
        n = len(points)
        top = [p[0] for p in points]  # the constant 1 in homogeneous form, at each layer's scale
        M = flint.fmpz_mat([top] + [list(col) for col in zip(*(p[1:] for p in points))])
        zero = flint.fmpz(0)
        for Wb, c in self.layers[: layer - 1]:
            entries = (Wb * M).entries()
            top = [t * c for t in top]
            M = flint.fmpz_mat(1 + len(entries) // n, n, top + [v if v > 0 else zero for v in entries])
        return M

    def __call__(self, points, layer):
        """The values of the neurons of hidden layer ``layer`` (from 1) at each point, as one tuple per point."""
        if not points:
            return []
        n = len(points)
        entries = [int(v) for v in (self.layers[layer - 1][0] * self._input_matrix(points, layer)).entries()]
        width = len(entries) // n
        return [tuple(entries[r * n + j] for r in range(width)) for j in range(n)]

    def inputs(self, points, layer):
        """The homogeneous inputs of hidden layer ``layer`` at each point, a list of flint integers per point.

        The value of the layer's neuron ``j`` at a point is the dot product of
        ``rows[layer - 1][j]`` with the point's input (for the first layer,
        the point itself).
        """
        if not points:
            return []
        return self._input_matrix(points, layer).transpose().tolist()


class _FloatScreen:
    """Certified signs of hidden pre-activations at homogeneous integer points, from floats with an error bound.

    The network runs in float64 at ``x = X / D`` (at an ideal point, at the
    direction ``X / max|X_i|`` with the biases dropped: the recession
    function), and alongside it a bound ``E`` on the error of every value. A
    value ``Z`` with ``|Z| > E`` has the sign of the exact one; the others are
    left undecided (``None``) for exact arithmetic.

    Notes
    -----
    With ``u = 2^-53``: every rational converted to float (a weight, a bias, a
    coordinate, each correctly rounded) is off by at most ``u`` relative; the
    input is off by at most ``e0 = 2u|x̂|``. For a layer with ``n`` inputs
    ``â`` off by at most ``e`` from the exact ``a``, the computed
    ``ẑ = fl(Ŵ â + t b̂)`` (any summation order, fused or not) differs from
    ``W a + t b`` by at most ``(γ_{n+1} + 3u)(|Ŵ||â| + t|b̂|) + (1 + 3u)|Ŵ| e``
    (``γ_k = ku / (1 - ku)``), and ReLU does not increase errors. Both sums
    are computed in floats too, with relative error at most ``γ_{n+1}``; the
    bound used, ``2((n + 5)u(|Ŵ||â| + t|b̂|) + |Ŵ| e) + η`` with ``η = 2^-1000``
    (for underflow), exceeds the true one by a wide margin. An overflow gives
    ``inf`` or ``nan``, which decides nothing. Weights beyond ``2^±900`` turn
    the screen off (:attr:`usable`): everything is then decided exactly.
    """

    _U = 2.0**-53
    _ETA = 2.0**-1000

    def __init__(self, net):
        self.layers = []
        magnitudes = [abs(v) for W, b in net.layers[:-1] for v in (*(w for row in W for w in row), *b) if v]
        self.usable = not magnitudes or (2.0**-900 <= min(magnitudes) and max(magnitudes) <= 2.0**900)
        if not self.usable:
            return
        for W, b in net.layers[:-1]:
            Wf = np.array([[float(w) for w in row] for row in W])
            bf = np.array([float(v) for v in b])
            self.layers.append((Wf, bf, np.abs(Wf), np.abs(bf), (len(W[0]) + 5) * self._U))

    @staticmethod
    def _inputs(points):
        """``(x̂, t)``: float coordinates (``inf`` where too large for a float) and the bias factor of every point."""
        rows, t = [], []
        for D, *X in points:
            scale = D if D else max(abs(v) for v in X)
            try:
                rows.append([v / scale for v in X])  # int / int: correctly rounded
            except OverflowError:
                rows.append([np.inf] * len(X))
            t.append(1.0 if D else 0.0)
        return np.array(rows, dtype=float).reshape(len(points), -1), np.array(t)

    def __call__(self, points, layer):
        """``(Z, E)``: float values of the neurons of hidden layer ``layer`` at the points, and their error bounds."""
        with np.errstate(all="ignore"):  # an overflow becomes inf or nan, which certifies nothing
            a, t = self._inputs(points)
            t = t[:, None]
            e = 2 * self._U * np.abs(a) + self._ETA
            for l, (Wf, bf, Wa, ba, margin) in enumerate(self.layers[:layer], start=1):
                z = a @ Wf.T + t * bf
                e = 2 * (margin * (np.abs(a) @ Wa.T + t * ba) + e @ Wa.T) + self._ETA
                if l == layer:
                    return z, e
                a = np.maximum(z, 0.0)
        raise AssertionError("unreachable: layer is at most the number of hidden layers")


_EVALUATE_ALL = 2048  # vertices up to which the size guard's first read evaluates them all


class _LayerValues:
    """The values of one hidden layer's neurons at the vertices of a subdivision, as the cuts need them.

    Signs are certified by :class:`_FloatScreen` where it can, and computed
    exactly (:class:`_IntegerNetwork`, in batches) where it cannot; exact
    values are computed only where asked for (the ends of crossed edges, the
    size guard's samples) and kept. Indexing gives a vertex's exact values as
    a tuple indexed by neuron (earlier layers' entries are 0), as the size
    guard reads them.
    """

    def __init__(self, subdivision, evaluate, screen, layer, offset):
        self.subdivision = subdivision
        self.evaluate = evaluate
        self.screen = screen if screen.usable else None
        self.layer = layer
        self.offset = offset
        self.rows = evaluate.rows[layer - 1]
        self.columns: list[flint.fmpz_mat | None] = [None] * len(self.rows)  # each neuron's row as a column
        self.pad = (0,) * offset
        self.padded_values = {}  # vertex -> pad + the exact values of all the layer's neurons (read by the size guard)
        # vertex -> the layer's exact homogeneous input (the first layer's input is the vertex itself)
        self.inputs: Any = subdivision.vertices if layer == 1 else {}
        self.floats = self.bounds = None
        self.screened = 0  # vertices with float values so far (the arrays grow by doubling)

    def __len__(self):
        return len(self.subdivision.vertices)

    def __getitem__(self, i):
        if i not in self.padded_values:
            # The size guard reads the vertices of a few hundred sampled cells, one by one: with few
            # vertices, evaluating them all at once costs less than one call each; with many, far more.
            vertices = self.subdivision.vertices
            if len(vertices) <= _EVALUATE_ALL:
                missing = [j for j in range(len(vertices)) if j not in self.padded_values]
            else:
                missing = [i]
            self.padded_values.update(zip(missing, self.padded([vertices[j] for j in missing])))
        return self.padded_values[i]

    def padded(self, points):
        """Exact values at points, every tuple indexed by neuron (earlier layers' entries are 0)."""
        return [self.pad + v for v in self.evaluate(points, self.layer)]

    def exact(self, j, indices):
        """Exact values of the layer's neuron ``j`` at the vertices ``indices``: one dot product each, inputs kept."""
        known, inputs = self.padded_values, self.inputs
        if self.layer > 1:
            missing = [i for i in indices if i not in inputs and i not in known]
            if missing:
                vertices = self.subdivision.vertices
                inputs.update(zip(missing, self.evaluate.inputs([vertices[i] for i in missing], self.layer)))
        k = self.offset + j
        unknown = [i for i in indices if i not in known]
        if not unknown:
            return [known[i][k] for i in indices]
        # the dot products with the neuron's row, all at once in flint: a wide layer's rows are long
        if self.columns[j] is None:
            self.columns[j] = flint.fmpz_mat([[v] for v in self.rows[j]])
        products = iter(int(v) for v in (flint.fmpz_mat([list(inputs[i]) for i in unknown]) * self.columns[j]).entries())
        return [known[i][k] if i in known else next(products) for i in indices]

    def signs(self, j):
        """The exact sign of the layer's neuron ``j`` at every vertex, as an ``int8`` array."""
        vertices = self.subdivision.vertices
        if self.screen is None:
            return np.array([(v > 0) - (v < 0) for v in self.exact(j, range(len(vertices)))], dtype=np.int8)
        n = len(vertices)
        if self.screened < n:
            z, e = self.screen(vertices[self.screened :], self.layer)
            if self.floats is None or n > len(self.floats):
                capacity = max(n, 2 * (0 if self.floats is None else len(self.floats)))
                floats, bounds = np.empty((capacity, z.shape[1])), np.empty((capacity, z.shape[1]))
                if self.floats is not None:
                    floats[: self.screened], bounds[: self.screened] = self.floats[: self.screened], self.bounds[: self.screened]
                self.floats, self.bounds = floats, bounds
            self.floats[self.screened : n], self.bounds[self.screened : n] = z, e
            self.screened = n
        z, e = self.floats[:n, j], self.bounds[:n, j]
        with np.errstate(invalid="ignore"):  # nan (an overflow) casts to anything: it is undecided below
            signs = np.sign(z).astype(np.int8)
        undecided = np.flatnonzero(~(np.abs(z) > e)).tolist()  # not decided by the floats (nan included)
        if undecided:
            signs[undecided] = [(v > 0) - (v < 0) for v in self.exact(j, undecided)]
        return signs


def _lattice_cells(net, domain, domain_rows, oracle, guard, bar):
    """Cells by cutting a face lattice neuron by neuron, decided at its (ideal) vertices.

    On ``R^n0`` the first layer's kernel ``L`` (common to all cells) is split
    off: the computation runs in ``rowspace(W1)``, seeded with the arrangement of
    a basis of first-layer hyperplanes, and cells are lifted back with ``L``
    as lines. On a polytope domain it is seeded with the domain's face lattice.
    """
    arch = net.architecture
    n0 = arch.input_dim
    W1, b1 = net.weights[0], net.biases[0]
    lines = ()
    order = list(range(arch.num_hidden))
    if not arch.depth and domain is None:  # an affine network: net.weights[0] is the output layer, no neuron cuts
        return _constant_network_cells(net, n0, tuple(sorted(tuple(int(i == j) for j in range(n0)) for i in range(n0))))
    if domain is not None:
        basis = None
        if arch.depth:
            guard.check(
                1, 0, arrangement_cells_bound(arch.hidden_widths[0] + len(domain_rows), n0),
                functools.partial(first_layer_cell_count, net, domain_rows),
            )
        subdivision, seed_signs = _polytope_seed(domain, domain_rows)
        evaluated = net
    else:
        independent, basis, lines = _first_layer_basis(W1, n0)
        if not independent:
            return _constant_network_cells(net, n0, lines)
        r = len(independent)
        # before the seed, which alone has 3^r cells
        guard.check(1, 0, arrangement_cells_bound(arch.hidden_widths[0], r), functools.partial(first_layer_cell_count, net, ()))
        W1r = [tuple(sum((w * b[m] for m, w in enumerate(row)), Fraction(0)) for b in basis) for row in W1]
        evaluated = ReLUNetwork((W1r,) + net.weights[1:], net.biases)
        subdivision = Subdivision.from_arrangement([primitive_integer_row((b1[i], *W1r[i])) for i in independent])
        order = independent + [k for k in order if k not in independent]
        seed_signs = 0
        bar.update(r)
    first = len(independent) if domain is None else 0
    layer_of = [l for l, w in enumerate(arch.hidden_widths, start=1) for _ in range(w)]
    evaluate, screen = _IntegerNetwork(evaluated), _FloatScreen(evaluated)
    current_layer = offset = 0
    for k in order[first:]:
        if layer_of[k] != current_layer:
            current_layer = layer_of[k]
            offset = sum(arch.hidden_widths[: current_layer - 1])
            values = _LayerValues(subdivision, evaluate, screen, current_layer, offset)
            if current_layer > 1:
                neurons = [j for j in order if layer_of[j] == current_layer]
                check_next_layer(guard, subdivision, values, values.padded, neurons, current_layer)
                if len(subdivision.vertices) > _EVALUATE_ALL:  # the guard's values at a few vertices: not worth keeping
                    values.padded_values.clear()
        subdivision.cut_by_signs(values.signs(k - offset), functools.partial(values.exact, k - offset))
        bar.update(1)
    if domain is None and arch.depth and len(subdivision.finite_cells()) == 0:
        raise RuntimeError("lattice enumeration lost every cell")
    return _found_in_subdivision(subdivision, order, seed_signs, basis, lines)


def _first_layer_basis(W1, n0):
    """Independent first-layer rows (greedy, in order), a basis of their span, and ``ker W1``.

    Returns ``(indices, basis, lines)``: ``basis`` holds the chosen rows, whose
    span (the row space) carries the computation; ``lines`` is a primitive
    integer basis of ``ker W1``.
    """
    rows = [primitive_integer_row(row) for row in W1]
    independent = pivot_columns(list(zip(*rows)))
    basis = tuple(tuple(Fraction(v) for v in W1[i]) for i in independent)
    lines = []
    for vec in integer_nullspace(rows, n0):
        vec = primitive_integer_row(vec)
        sign = 1 if next(v for v in vec if v) > 0 else -1
        lines.append(tuple(sign * v for v in vec))
    return independent, basis, tuple(sorted(lines))


def _polytope_seed(domain, domain_rows):
    lattice = domain.face_lattice()
    vertices = domain.vertices()
    order = sorted(range(len(lattice)), key=lambda c: (lattice.dimension(c), lattice.data(c)[0]))
    new_id = {c: i for i, c in enumerate(order)}
    faces = [(lattice.dimension(c), lattice.data(c)[0], [new_id[f] for f in lattice.facets(c)]) for c in order]
    signs = [[0 if all(row_value(row, vertices[i]) == 0 for i in vidx) else 1 for row in domain_rows] for _, vidx, _ in faces]
    return Subdivision.from_polytope(vertices, faces, signs), len(domain_rows)


def _constant_network_cells(net, n0, lines):
    """``W1 = 0``: every neuron is constant, the whole space is one cell."""
    vrep = (((Fraction(0),) * n0,), (), lines)
    signs = net.signs((0,) * n0)
    return _Found([n0], _sign_matrix([signs], len(signs)), facets=[()], generators=lambda *_: vrep)


def _found_in_subdivision(subdivision, order, n_seed, basis, lines):
    """The finite cells of a finished subdivision, with signs in network order.

    Their V-representations are left to :class:`_LatticeGenerators`, on demand,
    which keeps what it needs: the subdivision itself can go.
    """
    _, dimensions, facets, vertex_sets, signs = subdivision.finite_complex()
    network_order = list(range(n_seed)) + [n_seed + order.index(k) for k in range(len(order))]
    if order != sorted(order):
        signs = signs[:, network_order]
    vertex_signs = subdivision.sign_matrix(subdivision.vertex_cell)[:, network_order]
    generators = _LatticeGenerators(subdivision.vertices, vertex_sets, vertex_signs, basis, lines)
    return _Found([d + len(lines) for d in dimensions], signs, facets=facets, generators=generators)


class _LatticeGenerators:
    """Minimal V-representations of the cells of a finished subdivision, lifted to ``Q^n0``.

    A generator ``v`` of a cell ``σ`` is kept only if it is extreme. The smallest
    face of ``cl σ`` containing ``v`` is where every constraint of ``σ`` that
    vanishes at ``v`` vanishes; ``v`` is a vertex (an extreme ray) exactly when
    no other generator (other ideal generator) of ``σ`` lies on that face: a
    test on bitmasks of the constraints that vanish at each vertex (a vertex
    is a cell of its own: they are its zero signs).
    """

    def __init__(self, vertices, vertex_sets, vertex_signs, basis, lines):
        self.vertices = vertices  # homogeneous integer coordinates
        self.vertex_sets = vertex_sets  # by cell: the vertices of its closure
        self.vertex_signs = vertex_signs  # by vertex: the signs of the constraints there, in network order
        self.basis = basis
        self.lines = lines
        self.zero_sets = None
        self.points = {}
        self.texts = self.ranks = self.flint_points = self.lines_text = self.integer_basis = None

    def _point(self, i):
        """Vertex ``i`` in ``Q^n0``: a point (Fractions), or a ray (a primitive integer row) if ideal."""
        if i not in self.points:
            D, *X = self.vertices[i]
            if self.basis is not None:  # lift from the row space's coordinates: X·B, B = basis / denominator
                if self.integer_basis is None:
                    self.integer_basis = integer_vector([v for b in self.basis for v in b])
                entries, denominator = self.integer_basis
                n = len(self.basis[0])
                X = [sum([x * entries[m * n + j] for m, x in enumerate(X)]) for j in range(n)]
                D *= denominator
            self.points[i] = tuple([Fraction(x, D) for x in X]) if D else primitive_integer_row(X)
        return self.points[i]

    def extreme(self, index, signs):
        """``(finite, ideal)``: the vertices of cell ``index`` that are extreme generators of its closure."""
        if self.zero_sets is None:
            bits = np.packbits(self.vertex_signs == 0, axis=1, bitorder="little")
            self.zero_sets = [int.from_bytes(row.tobytes(), "little") for row in bits]
            self.vertex_signs = None
        live = 0  # the constraints that do not vanish on the cell
        for j, s in enumerate(signs):
            if s:
                live |= 1 << j
        zero_sets, vertices, cell = self.zero_sets, self.vertices, self.vertex_sets[index]
        if len(cell) == 1:
            return (list(cell), []) if vertices[cell[0]][0] else ([], list(cell))
        # on which of the cell's constraints each generator lies; a generator is extreme when no other one
        # (no other ideal one, for a ray) lies on all of its own: each test is one mask, the count in C
        faces = [zero_sets[i] & live for i in cell]
        ideal_faces = [f for i, f in zip(cell, faces) if not vertices[i][0]]
        finite, ideal = [], []
        for i, face in zip(cell, faces):
            if vertices[i][0]:
                if [f & face for f in faces].count(face) == 1:
                    finite.append(i)
            elif [f & face for f in ideal_faces].count(face) == 1:
                ideal.append(i)
        return finite, ideal

    def __call__(self, index, signs):
        """The V-representation of cell ``index``, whose constraints have the signs ``signs``."""
        finite, ideal = self.extreme(index, signs)
        return tuple(sorted(map(self._point, finite))), tuple(sorted(map(self._point, ideal))), self.lines

    def json_texts(self, index, signs):
        """The JSON texts of cell ``index``'s relative interior point, vertices, rays and lines.

        Exactly as :class:`_LatticeCell` and the JSON writer's general path
        would write them, but every vertex formatted once for the whole
        complex, its place in the sorted order known once, and the interior
        point (the mean of the vertices plus the sum of the rays) summed in
        flint rationals: its coordinates are long (the vertices' denominators
        multiply), and normalising and printing them is most of the work.
        """
        if self.texts is None:
            self._prepare_texts()
        finite, ideal = self.extreme(index, signs)
        finite.sort(key=self.ranks.__getitem__)
        ideal.sort(key=self.ranks.__getitem__)
        texts, flint_points = self.texts, self.flint_points
        total = flint_points[finite[0]]
        for i in finite[1:]:
            total = [a + b for a, b in zip(total, flint_points[i])]
        total = [a / len(finite) for a in total]
        for i in ideal:
            total = [a + b for a, b in zip(total, flint_points[i])]
        point = '["' + '", "'.join(map(str, total)) + '"]'
        vertices = "[" + ", ".join([texts[i] for i in finite]) + "]"
        rays = "[" + ", ".join([texts[i] for i in ideal]) + "]"
        return point, vertices, rays, self.lines_text

    def _prepare_texts(self):
        """Every vertex's JSON text, its rank in the sorted order, and (finite) its point over a common denominator."""
        points = [self._point(i) for i in range(len(self.vertices))]
        finite = [i for i in range(len(points)) if self.vertices[i][0] > 0]
        ideal = [i for i in range(len(points)) if not self.vertices[i][0]]
        self.ranks = [0] * len(points)
        for group in (finite, ideal):
            for rank, i in enumerate(sorted(group, key=points.__getitem__)):
                self.ranks[i] = rank
        self.texts = [_row_text(p) for p in points]
        self.flint_points = [[flint.fmpq(x.numerator, x.denominator) if type(x) is Fraction else flint.fmpq(x) for x in p] for p in points]
        self.lines_text = "[" + ", ".join(map(_row_text, self.lines)) + "]"


def _number_text(value):
    """The JSON text of an exact number (an int or a Fraction) as the complex format writes it: a string."""
    if type(value) is int or value.denominator == 1:
        return f'"{int_text(int(value))}"'
    return f'"{int_text(value.numerator)}/{int_text(value.denominator)}"'


def _row_text(row):
    """The JSON text of a row of exact numbers (ints or Fractions), as :func:`json.dumps` writes their strings."""
    return "[" + ", ".join([_number_text(v) for v in row]) + "]"


class _CellGenerators:
    """A construction's V-representations by cell id (``order[id]`` is the cell's index in the construction)."""

    def __init__(self, generators, order):
        self.generators = generators
        self.order = order

    def __call__(self, cid, signs):
        return self.generators(self.order[cid], signs)

    def json_texts(self, cid, signs):
        """The generators' JSON texts (see :meth:`_LatticeGenerators.json_texts`), or None if they cannot tell."""
        texts = getattr(self.generators, "json_texts", None)
        return None if texts is None else texts(self.order[cid], signs)


def check_complex_of(complex_, network, domain, caller):
    """``complex_`` if it is the canonical complex of ``network`` on ``domain`` (None passes).

    For functions that take a network with its domain and, optionally, its
    complex already computed: a complex of another network, or on another
    domain, would silently give answers about something else.

    Raises
    ------
    InvalidArgumentError
        Not a :class:`CanonicalComplex`.
    UsageError
        The complex of another network, or on another domain.
    """
    if require_instance(complex_, CanonicalComplex, "complex_", caller, optional=True) is None:
        return None
    if complex_.network != network:
        raise UsageError(f"{caller}: complex_ is the complex of another network; compute it with canonical_complex(network)")
    if domain is not None:
        rows = domain_polyhedron(domain, network.architecture.input_dim, caller).minimal_h_representation()[0]
        if rows != complex_._domain_rows:
            raise UsageError(f"{caller}: complex_ was computed on another domain than domain; pass one of them only")
    return complex_


class PatternMaps:
    """Exact affine maps of a network on activation patterns, in integers (internal API).

    For the computations that need them on every cell of a complex (tropical
    weights, the JSON writer). Through the network's integer layers
    ``c_l [b_l | W_l]`` (:meth:`ReLUNetwork.integer_layers`) every map comes
    out multiplied by a positive constant, and the maps of the output by the
    same one for every pattern, :attr:`scale`. A hidden layer's rows depend
    on the earlier layers' signs only: they are computed once per such prefix
    (python-flint matrices, kept), and a cell's output map is combined from
    its last hidden layer's rows.

    Attributes
    ----------
    scale : int
        The product of the layers' ``c_l``: the output map on a pattern is
        ``(A, c) = (A_num, c_num) / scale``.
    """

    def __init__(self, net: ReLUNetwork) -> None:
        layers = net.integer_layers()
        self.hidden = layers[:-1]
        output, c_out = layers[-1]
        self.output = [tuple(int(v) for v in row) for row in output.tolist()]
        self.widths = net.architecture.hidden_widths
        self.starts = [sum(self.widths[:l]) for l in range(len(self.widths) + 1)]  # of each layer's signs
        self.scale = math.prod(c for _, c in layers)
        self.constant = self.scale // c_out  # the constant 1 at the scale of the last hidden layer's outputs
        n = self.n = net.architecture.input_dim + 1
        self._maps: dict[tuple[bool, ...], flint.fmpz_mat] = {(): flint.fmpz_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])}
        self._rows: dict[tuple[bool, ...], list[list[flint.fmpz]]] = {}  # a layer's rows by the earlier layers' flags
        self._by_signs: dict[tuple[int, ...], list[list[flint.fmpz]]] = {}  # the same, by the earlier layers' signs
        self._recent: list[tuple[Sequence[int], int, list[list[flint.fmpz]]]] = []  # the last two (kept: identity is safe)

    def _map(self, flags: tuple[bool, ...], layer: int) -> flint.fmpz_mat:
        """The homogeneous map of the output of layers 1 to ``layer``, whose flags these are."""
        M = self._maps.get(flags)
        if M is None:
            start = self.starts[layer - 1]
            previous = self._map(flags[:start], layer - 1)
            Wb, c = self.hidden[layer - 1]
            entries = (Wb * previous).entries()
            n = previous.ncols()
            zero = flint.fmpz(0)
            kept = [previous[0, j] * c for j in range(n)]  # the constant 1, at the scale of this layer's rows
            for i, on in enumerate(flags[start:]):
                kept.extend(entries[i * n : (i + 1) * n] if on else [zero] * n)
            M = self._maps[flags] = flint.fmpz_mat(1 + len(flags) - start, n, kept)
        return M

    def _layer(self, signs: Sequence[int], layer: int) -> list[list[flint.fmpz]]:
        """The rows of :meth:`layer_rows`, as flint integers (converting them to ``int`` costs more than computing them)."""
        for seen, at, remembered in self._recent:  # the callers ask about one cell several times in a row
            if seen is signs and at == layer:
                return remembered
        prefix = tuple(signs[: self.starts[layer - 1]])  # the signs themselves: a cheaper key than the flags
        rows = self._by_signs.get(prefix)
        if rows is None:
            flags = tuple(map((0).__lt__, prefix))
            rows = self._rows.get(flags)
            if rows is None:
                rows = self._rows[flags] = (self.hidden[layer - 1][0] * self._map(flags, layer - 1)).tolist()
            self._by_signs[prefix] = rows
        self._recent = [(signs, layer, rows), self._recent[0]] if self._recent else [(signs, layer, rows)]
        return rows

    def layer_rows(self, signs: Sequence[int], layer: int) -> list[IntegerRow]:
        """Rows ``(g, G_1, ..., G_n0)`` of the pre-activations of hidden layer ``layer`` (from 1) on a sign vector.

        Row ``k`` is a positive multiple of ``z_k(x) = g + G·x`` on the closure
        of the cell of ``signs`` (only the earlier layers' signs matter).
        """
        return [tuple([int(v) for v in row]) for row in self._layer(signs, layer)]

    def gradient(self, signs: Sequence[int], layer: int, index: int) -> IntegerRow:
        """``G`` of row ``index`` of :meth:`layer_rows`: a positive multiple of that neuron's gradient there."""
        return tuple([int(v) for v in self._layer(signs, layer)[index][1:]])

    def affine_map(self, signs: Sequence[int]) -> tuple[tuple[IntegerRow, ...], IntegerRow]:
        """``(A_num, c_num)``: ``scale`` times the output's affine map ``f(x) = A x + c`` on a sign vector."""
        if not self.widths:  # an affine network
            return tuple(row[1:] for row in self.output), tuple(row[0] for row in self.output)
        last = len(self.widths)
        rows = self._layer(signs, last)
        active = [i for i, s in enumerate(signs[self.starts[last - 1] :]) if s > 0]
        A, c = [], []
        for w in self.output:  # the last layer's active outputs, combined by the output layer
            combined = [int(sum([w[i + 1] * rows[i][j] for i in active])) for j in range(self.n)]
            c.append(w[0] * self.constant + combined[0])
            A.append(tuple(combined[1:]))
        return tuple(A), tuple(c)

    def jacobian_jump(self, before: Sequence[int], after: Sequence[int], changed: Sequence[int]) -> tuple[IntegerRow, ...] | None:
        """``A_num(after) - A_num(before)`` when the two sign vectors differ in the last hidden layer only.

        ``changed`` holds (at least) the neurons whose activity differs, as
        indices into the sign vectors. The jump is the changed neurons' rows
        times their output weights, signed: no cell's whole map is needed.
        None when the earlier layers' signs differ (then compare whole maps).
        """
        start = self.starts[-2] if self.widths else 0
        if not self.widths or before[:start] != after[:start]:
            return None
        recent = any(seen is after for seen, _, _ in self._recent)
        rows = self._layer(after if recent else before, len(self.widths))  # the same rows: their prefix is one
        terms = [(k - start, 1 if after[k] > 0 else -1) for k in changed if (before[k] > 0) != (after[k] > 0)]
        return tuple(
            tuple([int(sum([s * w[i + 1] * rows[i][j] for i, s in terms])) for j in range(1, self.n)]) for w in self.output
        )


def _layer_rows(net, layer, prefix):
    """Integer rows ``(g, G)`` of the layer's pre-activations on cells with the given earlier signs."""
    rows = net.pre_activation_rows(prefix + (0,) * (net.architecture.num_hidden - len(prefix)))
    start = sum(net.architecture.hidden_widths[: layer - 1])
    return rows[start : start + net.architecture.hidden_widths[layer - 1]]


class _LatticeCell:
    """The closure of a cell of a lattice-built complex, both representations from the lattice.

    The V-representation (extreme generators) is known at once. The H-side is
    built on first use: inequalities are the signed formulas of the non-zero
    constraints (domain facets, then neurons), equations those of the zero
    ones; the facets of the polyhedron are the constraints that vanish on some
    lattice facet of the cell; a positive combination of all generators is a
    relative interior point. :meth:`polyhedron` hands these to
    :meth:`Polyhedron.from_trusted`, which asks for each on first use.
    """

    def __init__(self, complex_, cell, vrep):
        self.complex = complex_
        self.cell = cell
        self.d = complex_.network.architecture.input_dim
        self.vrep = vrep
        self.rows = self.hull = None

    def polyhedron(self):
        return Polyhedron.from_trusted(
            self.d,
            h_representation=lambda: self.constraint_rows()[:2],
            minimal_h_representation=self.minimal_h_representation,
            # a callable is taken as computed, unchecked: the subdivision's generators are canonical already, and
            # the value check of every vertex would cost a fifth of tropical_weights on a large complex
            vertices_rays_lines=lambda: self.vrep,
            relative_interior_point=self.relative_interior_point,
            affine_hull=self.affine_hull,
            oracle=self.complex._oracle,
        )

    def constraint_rows(self):
        """``(ieqs, eqns, row_of)``: ``row_of[j]`` is the inequality of constraint ``j`` (non-zero sign)."""
        if self.rows is None:
            cell = self.cell
            ieqs, eqns, row_of = [], [], {}
            constraints = list(zip(self.complex._domain_rows, cell.domain_signs))
            constraints.extend(zip(self.complex.network.pre_activation_rows(cell.signs), cell.signs))
            for j, (row, s) in enumerate(constraints):
                if s == 0:
                    if any(row):
                        eqns.append(row)
                else:
                    row_of[j] = len(ieqs)
                    ieqs.append(row if s > 0 else tuple(-v for v in row))
            self.rows = (tuple(ieqs), tuple(eqns), row_of)
        return self.rows

    def affine_hull(self):
        if self.hull is None:
            self.hull = AffineSubspace.from_equations(self.constraint_rows()[1], self.d)
        return self.hull

    def relative_interior_point(self):
        # A positive combination of all generators of a polyhedron lies in its relative interior:
        # no H-representation needed.
        vertices, rays, _ = self.vrep
        n = len(vertices)
        return tuple(sum((v[i] for v in vertices), Fraction(0)) / n + sum(r[i] for r in rays) for i in range(self.d))

    def minimal_h_representation(self):
        ieqs, _, row_of = self.constraint_rows()
        hull = self.affine_hull()
        full = self.cell.domain_signs + self.cell.signs
        facet_rows = set()
        for f in self.complex.lattice.facets(self.cell.id):
            facet = self.complex[f]
            for j, v in enumerate(facet.domain_signs + facet.signs):
                if v == 0 and full[j] != 0:
                    facet_rows.add(reduce_modulo(ieqs[row_of[j]], hull.equations))
        facet_rows.discard(None)
        return (tuple(sorted(facet_rows)), hull.equations)


_CHUNK = 1 << 20  # characters of cells the JSON writer writes at a time
_SIGN_TEXT = {1: "+", -1: "-", 0: "0"}
_DOMAIN_SIGN_TEXT = {1: "+", 0: "0"}


class _DocumentWriter:
    """The complex JSON document (docs/formats.md) as text, cell by cell: :meth:`CanonicalComplex.to_json` streamed.

    The text is exactly what :func:`json.dump` writes for the document. A
    lattice-built cell is written from the face lattice: its generators and
    interior point by :meth:`_LatticeGenerators.json_texts`, its minimal
    H-representation as :class:`_LatticeCell` finds it (the constraints that
    vanish on a lattice facet, reduced modulo the affine hull) in integer
    arithmetic, with the constraint rows, the hulls and the rows' texts kept
    for the cells that share them. Any other cell (built by LP, read from a
    file) is written from its polyhedron, where everything is known already.
    """

    def __init__(self, K):
        self.K = K
        net = K.network
        self.n0 = net.architecture.input_dim
        self.n_domain = len(K._domain_rows)
        self.neurons = net.architecture.hidden_neurons()
        self.maps = PatternMaps(net)
        self.rows: dict[tuple[int, tuple[bool, ...]], list[IntegerRow]] = {}  # (layer, earlier flags) -> primitive rows
        # the hull of a set of zero rows: its equations, their pivots, their text, and rows reduced modulo it
        self.hulls: dict[tuple[IntegerRow, ...], tuple[tuple[IntegerRow, ...], list[int], str, dict]] = {}
        self.zero_columns: np.ndarray | None = None
        self.zero_starts: list[int] = []

    def chunks(self, extra: str = "") -> Iterator[str]:
        """The document's text in pieces; ``extra`` (``', "key": value, ...'``) goes before the closing brace."""
        K, net = self.K, self.K.network
        domain = "null" if K.domain is None else '{"ieqs": [' + ", ".join(map(_row_text, K._domain_rows)) + "]}"
        yield (
            f'{{"format": {json.dumps(COMPLEX_FORMAT)}, "version": {json.dumps(COMPLEX_VERSION)}, '
            f'"network": {json.dumps(network_to_dict(net), allow_nan=False)}, "ambient_dim": {self.n0}, '
            f'"domain": {domain}, "neurons": {json.dumps([list(n) for n in self.neurons])}, "cells": ['
        )
        batch: list[str] = []
        size, separator = 0, ""
        for c in K._cells:  # a megabyte of text at a time: few writes, little memory
            text = self.cell_text(c)
            batch.append(text)
            size += len(text)
            if size > _CHUNK:
                yield separator + ", ".join(batch)
                batch.clear()
                size, separator = 0, ", "
        if batch:
            yield separator + ", ".join(batch)
        yield '], "covering": [' + ", ".join(map("[%d, %d]".__mod__, K.lattice.covering_relation())) + "], "
        yield f'"f_vector": {json.dumps(list(K.f_vector()))}, "euler_characteristic": {K.euler_characteristic()}{extra}}}'

    def cell_text(self, c: Cell) -> str:
        K = self.K
        signs = c.domain_signs + c.signs
        texts = K._generators.json_texts(c.id, signs) if c._polyhedron is None and K._generators is not None else None
        if texts is not None:
            point, vertices, rays, lines = texts
            ieqs, eqns = self._minimal_h_texts(c, signs)
        else:
            P = c.polyhedron
            hrep, vrep = P.minimal_h_representation(), P.vertices_rays_lines()
            point = _row_text(c.relative_interior_point())
            vertices, rays, lines, ieqs, eqns = ("[" + ", ".join(map(_row_text, rows)) + "]" for rows in (*vrep, *hrep))
        text = (
            f'{{"id": {c.id}, "dim": {c.dimension}, "signs": "{"".join(map(_SIGN_TEXT.__getitem__, c.signs))}", '
            f'"domain_signs": "{"".join(map(_DOMAIN_SIGN_TEXT.__getitem__, c.domain_signs))}", '
            f'"relative_interior_point": {point}, "vertices": {vertices}, "rays": {rays}, "lines": {lines}, '
            f'"ieqs": {ieqs}, "eqns": {eqns}'
        )
        if c.dimension == self.n0:
            A, b = self.maps.affine_map(c.signs)
            scale = self.maps.scale
            A_text = ", ".join(_row_text([Fraction(v, scale) for v in row]) for row in A)
            text += f', "affine_map": {{"A": [{A_text}], "b": {_row_text([Fraction(v, scale) for v in b])}}}'
        return text + "}"

    def _zeros(self, cid):
        """The constraints (domain facets, then neurons) that vanish on cell ``cid``."""
        if self.zero_columns is None:  # for all cells at once: their zero signs' positions, cell by cell
            signs = np.array([c.domain_signs + c.signs for c in self.K._cells], dtype=np.int8).reshape(len(self.K), -1)
            cells, self.zero_columns = np.nonzero(signs == 0)
            self.zero_starts = np.searchsorted(cells, np.arange(len(self.K) + 1)).tolist()
        return self.zero_columns[self.zero_starts[cid] : self.zero_starts[cid + 1]].tolist()

    def _rows_of(self, signs):
        """A function giving the primitive row of constraint ``j`` (domain facets, then neurons) on the cell of ``signs``."""
        by_layer: dict[int, list[IntegerRow]] = {}
        n_domain, domain_rows, neurons = self.n_domain, self.K._domain_rows, self.neurons

        def row(j):
            if j < n_domain:
                return domain_rows[j]
            layer, index = neurons[j - n_domain]
            rows = by_layer.get(layer)
            if rows is None:
                key = (layer, tuple(map((0).__lt__, signs[n_domain : n_domain + self.maps.starts[layer - 1]])))
                rows = self.rows.get(key)
                if rows is None:
                    rows = self.rows[key] = [primitive_integer_row(r) for r in self.maps.layer_rows(signs[n_domain:], layer)]
                by_layer[layer] = rows
            return rows[index]

        return row

    def _minimal_h_texts(self, c, signs):
        """The texts of the cell's minimal H-representation: as :meth:`_LatticeCell.minimal_h_representation` finds it."""
        row_of = self._rows_of(signs)
        zeros = self._zeros(c.id)
        on = tuple([row for row in map(row_of, zeros) if any(row)])
        hull = None if c.dimension == 0 else self.hulls.get(on)  # a vertex is the only cell of its hull
        if hull is None:
            if c.dimension == 0:  # x_i = p_i / q_i: the echelon rows at once
                (point,), _, _ = self.K._generators(c.id, signs)
                equations = tuple((-x.numerator, *(x.denominator if j == i else 0 for j in range(self.n0))) for i, x in enumerate(point))
            else:
                equations = echelon_equations(on, self.n0)
            assert equations is not None  # a cell's equations have the cell as solutions
            pivots = [next(i for i in range(1, len(e)) if e[i]) for e in equations]
            hull = (equations, pivots, "[" + ", ".join(map(_row_text, equations)) + "]", {})
            if c.dimension:
                self.hulls[on] = hull
        equations, pivots, eqns_text, reduced = hull
        facet_rows = set()
        zero_set = set(zeros)
        for f in self.K.lattice.facets(c.id):
            for j in self._zeros(f):
                if j in zero_set:
                    continue
                row = row_of(j)
                if signs[j] < 0:
                    row = tuple([-v for v in row])
                if equations:  # reduce modulo the hull, as reduce_modulo (times eq[p] > 0); cells of one hull share rows
                    result = reduced.get(row, False)
                    if result is False:
                        result = row
                        for eq, p in zip(equations, pivots):
                            if result[p]:
                                a, b = eq[p], result[p]
                                result = [a * x - b * e for x, e in zip(result, eq)]
                        if any(result[1:]):
                            g = math.gcd(*result)
                            result = tuple([x // g for x in result]) if g > 1 else tuple(result)
                        else:
                            result = None
                        reduced[row] = result
                    row = result
                elif not any(row[1:]):
                    row = None  # constant: no facet
                if row is not None:
                    facet_rows.add(row)
        return "[" + ", ".join(map(_row_text, sorted(facet_rows))) + "]", eqns_text


def _positions(values, value):
    """The indices of ``value`` in the tuple ``values`` (found by ``tuple.index``, in C)."""
    found, k = [], -1
    with contextlib.suppress(ValueError):
        while True:
            k = values.index(value, k + 1)
            found.append(k)
    return found


class CanonicalComplex:
    """The canonical polyhedral complex of a network: cells, face lattice, queries, export.

    Build it with :func:`canonical_complex`; read it back with :meth:`from_json`.
    """

    def __init__(
        self,
        network: ReLUNetwork,
        domain: Polyhedron | None,
        domain_rows: Sequence[IntegerRow],
        cells: Sequence[Cell],
        lattice: FaceLattice,
        elapsed: float | None = None,
    ) -> None:
        self.network = network
        self.domain = domain
        self._domain_rows = tuple(domain_rows)
        self._cells = tuple(cells)
        self.lattice = lattice
        self.elapsed = elapsed
        self._index: dict[tuple[tuple[int, ...], tuple[int, ...]], Cell] | None = None  # by signs: built by locate
        # lattice-built cells: (cell id, constraint signs) -> (vertices, rays, lines)
        self._generators: _CellGenerators | None = None
        self._oracle = default_oracle

    @classmethod
    def _assemble(cls, net, domain, domain_rows, found, oracle, elapsed):
        """The complex of the cells a construction found: ids by dimension, then sign vector."""
        n_domain = len(domain_rows)
        signs = found.signs
        keys = tuple(signs[:, j] for j in range(signs.shape[1] - 1, -1, -1)) + (np.asarray(found.dimensions),)
        order = np.lexsort(keys)  # the last key first: by dimension, then sign vector
        ids = list(range(len(order)))  # one int object per id, for the cells and the facets that name them
        K = cls.__new__(cls)
        polyhedra = found.polyhedra
        cells = [
            Cell(i, found.dimensions[old], row[n_domain:], row[:n_domain], K, polyhedra[old] if polyhedra else None)
            for i, old, row in zip(ids, order.tolist(), signs[order].tolist())
        ]
        dimensions = [c.dimension for c in cells]
        if found.facets is not None:
            new_id = [0] * len(order)
            for new, old in zip(ids, order.tolist()):
                new_id[old] = new
            lattice = FaceLattice.from_trusted(dimensions, [[new_id[f] for f in found.facets[old]] for old in order.tolist()])
        else:
            lattice = FaceLattice(dimensions, covering_from_signs([c.domain_signs + c.signs for c in cells], dimensions))
        K.__init__(net, domain, domain_rows, cells, lattice, elapsed)
        if found.generators is not None:
            K._generators = _CellGenerators(found.generators, array("l", order.tolist()))
        K._oracle = oracle
        return K

    def _cell_polyhedron(self, cell):
        """The closed cell of a lattice-built complex (see :class:`_LatticeCell`)."""
        assert self._generators is not None  # only lattice-built cells come without a polyhedron
        return _LatticeCell(self, cell, self._generators(cell.id, cell.domain_signs + cell.signs)).polyhedron()

    # -- queries ---------------------------------------------------------------------
    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __getitem__(self, i):
        return self._cells[i]

    def __repr__(self):
        where = "R^%d" % self.network.architecture.input_dim if self.domain is None else "a polytope"
        return f"<CanonicalComplex of {self.network.architecture} on {where}: f-vector {self.f_vector()}>"

    def __eq__(self, other):
        """Geometric equality: the same network, domain, cells and covering relation, whatever the ids.

        Two complexes are equal when their networks are equal, their domains
        are the same set (compared by canonical minimal H-representations),
        their cells are the same as a set of (sign vector, domain signs,
        dimension, exact polyhedron) and the covering relation joins the same
        cells. A polyhedron is compared by its minimal H-representation and
        its V-representation (vertices, rays, the span of the lines), so a
        complex read without checks from a file whose two representations
        disagree equals nothing built by polyrelu. Relative interior points
        are not compared: any point of a cell is one.

        Examples
        --------
        >>> from polyrelu.examples import bent_line_network
        >>> K = canonical_complex(bent_line_network())
        >>> K == canonical_complex(bent_line_network(), method="lp")
        True
        >>> K == canonical_complex(bent_line_network(), Box(-2, 2))
        False
        """
        if not isinstance(other, CanonicalComplex):
            return NotImplemented
        if self is other:
            return True
        if self.network != other.network or self.f_vector() != other.f_vector():
            return False
        if (self.domain is None) != (other.domain is None):
            return False
        if self.domain is not None and self.domain.minimal_h_representation() != other.domain.minimal_h_representation():
            return False
        return self._combinatorics() == other._combinatorics() and self._geometry() == other._geometry()

    # Equality is geometric and costly, and the cells cache representations: not hashable.
    __hash__ = None  # type: ignore[assignment]  # the standard way to make a class unhashable

    def _combinatorics(self):
        """The cells by (domain signs, signs, dimension), and the covering relation between them, sorted."""
        keys = [(c.domain_signs, c.signs, c.dimension) for c in self._cells]
        return sorted(keys), sorted((keys[i], keys[j]) for i, j in self.lattice.covering_relation())

    def _geometry(self):
        """:meth:`_combinatorics` with each cell's exact polyhedron in canonical form."""
        keys = []
        for c in self._cells:
            vertices, rays, lines = c.polyhedron.vertices_rays_lines()
            generators = (tuple(sorted(vertices)), tuple(sorted(rays)), lineality_basis(lines))
            keys.append((c.domain_signs, c.signs, c.dimension, c.polyhedron.minimal_h_representation(), generators))
        return sorted(keys), sorted((keys[i], keys[j]) for i, j in self.lattice.covering_relation())

    def f_vector(self) -> tuple[int, ...]:
        """``(f_0, ..., f_n0)``: the number of cells of each dimension."""
        return self.lattice.f_vector()

    def euler_characteristic(self) -> int:
        """``sum_k (-1)^k f_k``: ``(-1)^n0`` on ``R^n0`` and ``1`` on a polytope domain."""
        return self.lattice.euler_characteristic()

    def cells(self, dim: int | None = None) -> tuple[Cell, ...]:
        """All cells, or those of dimension ``dim``."""
        require_int(dim, "dim", "CanonicalComplex.cells", minimum=0, optional=True)
        return tuple(c for c in self._cells if dim is None or c.dimension == dim)

    def regions(self) -> tuple[Cell, ...]:
        """The top-dimensional cells; ``f`` is affine on each."""
        return self.cells(self.network.architecture.input_dim)

    def cell(self, cell: Cell | int, *, name: str = "cell", caller: str = "CanonicalComplex.cell") -> Cell:
        """The :class:`Cell` given as a cell of this complex or as its id, checked.

        Parameters
        ----------
        cell : Cell or int
        name, caller : str
            The argument and the function that took it, for messages (functions
            that take a cell of a complex check it here).

        Raises
        ------
        InvalidArgumentError
            Neither a :class:`Cell` nor an integer.
        UsageError
            An id out of range, or a cell of another complex (different signs at that id).
        """
        require_str(name, "name", "CanonicalComplex.cell")
        require_str(caller, "caller", "CanonicalComplex.cell")
        if isinstance(cell, Cell):
            mine = self._cells[cell.id] if isinstance(cell.id, int) and 0 <= cell.id < len(self._cells) else None
            if mine is None or (mine.signs, mine.domain_signs) != (cell.signs, cell.domain_signs):
                raise UsageError(f"{caller}: {name} {cell!r} is not a cell of this complex")
            return mine
        if not isinstance(cell, (int, np.integer)) or isinstance(cell, bool):
            raise InvalidArgumentError(f"{caller}: {name} must be a Cell of this complex or its id, got {describe(cell)}")
        return self._cells[require_index(cell, len(self._cells), name, caller)]

    def faces(self, cell: Cell | int) -> tuple[Cell, ...]:
        """Every cell ``τ ≤ cell`` (including ``cell``)."""
        return tuple(self._cells[i] for i in self.lattice.faces(self.cell(cell, caller="CanonicalComplex.faces").id))

    def cofaces(self, cell: Cell | int) -> tuple[Cell, ...]:
        """Every cell ``σ ≥ cell`` (including ``cell``)."""
        return tuple(self._cells[i] for i in self.lattice.cofaces(self.cell(cell, caller="CanonicalComplex.cofaces").id))

    def star(self, cell: Cell | int) -> tuple[Cell, ...]:
        """The closed star of ``cell``: all faces of all its cofaces."""
        return tuple(self._cells[i] for i in self.lattice.star(self.cell(cell, caller="CanonicalComplex.star").id))

    def affine_map(self, cell: Cell | int) -> tuple[FractionMatrix, FractionVector]:
        """The exact affine map ``(A, c)`` of ``f`` on the closure of ``cell``."""
        return self.network.affine_map(self.cell(cell, caller="CanonicalComplex.affine_map").signs)

    def locate(self, x: VectorLike) -> Cell:
        """The cell whose relative interior contains ``x`` (exact).

        Raises
        ------
        GeometryError
            ``x`` lies outside the domain.
        """
        x = to_fraction_vector(x, "x", self.network.architecture.input_dim)
        domain_signs = []
        for j, row in enumerate(self._domain_rows):
            v = row_value(row, x)
            if v < 0:
                raise GeometryError(f"x = {tuple(map(str, x))} lies outside the domain (facet {j})")
            domain_signs.append(_sign(v))
        if self._index is None:
            self._index = {(c.domain_signs, c.signs): c for c in self._cells}
        return self._index[(tuple(domain_signs), self.network.signs(x))]

    def bent_hypersurface(self, layer: int, index: int) -> tuple[Cell, ...]:
        """The cells of the bent hypersurface ``B_{layer,index}`` (docs/design.md §2).

        The facets whose sign at the neuron is ``0`` and whose two regions have
        ``+`` and ``-`` there, with all their faces. Empty for a neuron that
        never changes sign.
        """
        widths = self.network.architecture.hidden_widths
        caller = "CanonicalComplex.bent_hypersurface"
        layer, index = require_int(layer, "layer", caller), require_int(index, "index", caller)
        if not (1 <= layer <= len(widths)) or not (0 <= index < widths[layer - 1]):
            raise ShapeError(f"{caller}: no hidden neuron (layer, index) = ({layer}, {index}); the hidden widths are {widths}")
        k = sum(widths[: layer - 1]) + index
        n0 = self.network.architecture.input_dim
        members: set[int] = set()
        for facet in self.cells(n0 - 1):
            if facet.signs[k] != 0:
                continue
            sides = {self._cells[r].signs[k] for r in self.lattice.cofacets(facet.id)}
            if sides == {1, -1}:
                members.update(self.lattice.faces(facet.id))
        return tuple(self._cells[i] for i in sorted(members))

    def to_igraph(self) -> igraph.Graph:
        """The Hasse diagram as an igraph DAG with vertex attributes ``dim`` and ``signs``."""
        g = self.lattice.hasse_diagram()
        g.vs["signs"] = [c.sign_string for c in self._cells]
        return g

    def to_networkx(self) -> nx.DiGraph:
        """The Hasse diagram as a networkx DiGraph with node attributes ``dim`` and ``signs``."""
        return igraph_to_networkx(self.to_igraph())

    # -- interchange ---------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """The complex as a JSON-ready dict; exact numbers are strings.

        Every cell carries its minimal H-representation and its V-representation
        (from the face lattice for a complex built by :func:`canonical_complex`).
        The format is described in ``docs/formats.md``; its JSON Schema ships
        with the package (:func:`polyrelu.schemas.schema` ``("complex")``).
        The dict is the document :meth:`write_json` writes, read back.
        """
        with paused_gc():
            return json.loads("".join(_DocumentWriter(self).chunks()))

    def write_json(self, path: os.PathLike | str) -> None:
        """Write the JSON document of :meth:`to_json` to ``path``, streamed and atomically.

        The text goes to the file cell by cell, without the document in
        memory, and is exactly what :func:`json.dump` writes for
        :meth:`to_json` (and a final newline). A failure leaves any previous
        file as it was.

        Raises
        ------
        OutputPathError
            ``path`` cannot be written.
        """
        self._write_chunks(require_path(path, "path", "CanonicalComplex.write_json"), "")

    def _write_chunks(self, path, extra):
        """Write the document with ``extra`` keys (text, see :meth:`_DocumentWriter.chunks`) to ``path``."""
        check_output_path(path)
        with paused_gc(), atomic_write(path) as fh:
            for chunk in _DocumentWriter(self).chunks(extra):
                fh.write(chunk)
            fh.write("\n")

    @classmethod
    def from_json(
        cls, data: dict[str, Any] | str | os.PathLike, *, trusted: bool = False, limits: Limits = DEFAULT_LIMITS
    ) -> CanonicalComplex:
        """Read a complex written by :meth:`to_json`, checking first that it is one.

        Parameters
        ----------
        data : dict, str or path-like
            The document, JSON text (starting with ``{``) or a file, read with
            its size and nesting bounded by ``limits``.
        trusted : bool
            Skip the geometric checks (for files you wrote yourself with
            polyrelu). The schema and the bookkeeping are checked either way.
        limits : Limits
            See :mod:`polyrelu.io.limits`.

        Returns
        -------
        CanonicalComplex
            Its cells keep the stored representations; nothing is recomputed.

        Raises
        ------
        ComplexFormatError
            Not valid JSON; fails the JSON Schema (the message gives the JSON
            path of the first error); lengths, ids ``0 .. n-1`` in order, the
            covering relation's grading, the f-vector or the Euler
            characteristic do not match the cells. Unless ``trusted``: any
            cell that is not exactly the closure of its sign class for the
            stored network (relative interior point, equations, inequalities,
            generators, dimension), a repeated sign vector, a covering
            relation other than the one the sign vectors give, a missing
            cell, an affine map that is not the network's, a domain that is
            not the irredundant description of a bounded full-dimensional
            polytope. The message names the cell and what is wrong.
        LimitExceededError
            A file, nesting or number beyond ``limits``.

        Notes
        -----
        The checks are exact and take time linear in the file (see
        :mod:`polyrelu.complex_validation` for what they prove): a file that
        passes is the canonical complex of its network on its domain, up to
        the numbering of the cells and the choice of relative interior points.

        Examples
        --------
        >>> from polyrelu.examples import bent_line_network
        >>> K = canonical_complex(bent_line_network())
        >>> data = K.to_json()
        >>> CanonicalComplex.from_json(data) == K
        True
        >>> data["cells"][3]["eqns"] = [["1", "1", "0"]]
        >>> CanonicalComplex.from_json(data)
        Traceback (most recent call last):
        ...
        polyrelu.errors.ComplexFormatError: complex JSON: cell 3: its eqns are not the reduced row echelon form ...
        >>> CanonicalComplex.from_json(data, trusted=True) == K
        False
        """
        caller = "CanonicalComplex.from_json"
        require_instance(data, (dict, str, os.PathLike), "data", caller)
        require_bool(trusted, "trusted", caller)
        require_instance(limits, Limits, "limits", caller)
        if isinstance(data, (str, os.PathLike)) and not str(data).lstrip().startswith(("{", "[")) and not os.path.isfile(data):
            raise ComplexFormatError(
                f"{caller}: data: no such file {str(data)[:200]!r}; pass the document, its JSON text or the path of a file"
            )
        document = read_document(data, limits)
        if not trusted:
            check_document(document)
        n0 = document.network.architecture.input_dim
        domain = None if document.domain_rows is None else Polyhedron(ieqs=document.domain_rows, ambient_dim=n0)
        cells = [
            Cell(c.id, c.dimension, c.signs, c.domain_signs, polyhedron=c.polyhedron()) for c in document.cells
        ]
        return cls(document.network, domain, document.domain_rows or (), cells, document.lattice)
