"""The canonical polyhedral complex of a ReLU network, as an exact face lattice.

:func:`canonical_complex` builds it; a :class:`CanonicalComplex` holds its
cells (:class:`Cell`: sign vector, dimension, exact polyhedron) with the
covering relation, and answers questions about them (faces, cofaces and stars,
:meth:`~CanonicalComplex.locate`, affine maps of ``f``, bent hypersurfaces,
the Hasse diagram in igraph or networkx) and writes and reads the complex JSON
format (the checks of a file are in :mod:`polyrelu.complex_validation`).
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
  exact values at the cell's vertices, computed for all vertices at once in
  integer arithmetic; a cell seeing both signs splits combinatorially and a
  cut edge gets the vertex where ``h`` vanishes
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

import functools
import os
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import flint
import numpy as np

from .atomic import write_json
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
from .geometry.polyhedron import reduce_modulo
from .geometry.rational import (
    FractionMatrix,
    FractionVector,
    IntegerRow,
    MatrixLike,
    VectorLike,
    fraction_to_json,
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
    import cdd.gmp
    import igraph
    import networkx as nx

__all__ = ["Cell", "CanonicalComplex", "CellEstimate", "canonical_complex", "estimate_cells"]

COMPLEX_FORMAT = "polyrelu.complex"
COMPLEX_VERSION = 1


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

    def to_sage(self) -> Any:
        """The closed cell as a Sage ``Polyhedron`` over ``QQ``, exactly (:meth:`Polyhedron.to_sage
        <polyrelu.geometry.Polyhedron.to_sage>`; needs ``passagemath-polyhedra`` or Sage).

        Examples
        --------
        >>> from polyrelu import ReLUNetwork
        >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]))
        >>> K.cell(0).to_sage().vertices_list(), sorted(K.regions()[0].to_sage().rays_list())
        ([[0, 0]], [[-1, 0], [0, -1]])
        """
        return self.polyhedron.to_sage()

    def to_cdd(self) -> cdd.gmp.Matrix:
        """The closed cell's H-representation as a ``cdd.gmp`` matrix (:meth:`Polyhedron.to_cdd
        <polyrelu.geometry.Polyhedron.to_cdd>`)."""
        return self.polyhedron.to_cdd()

    def to_polymake(self) -> str:
        """A polymake expression that builds the closed cell (:meth:`Polyhedron.to_polymake
        <polyrelu.geometry.Polyhedron.to_polymake>`).

        Examples
        --------
        >>> from polyrelu import ReLUNetwork
        >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]))
        >>> K.regions()[0].to_polymake()
        'new Polytope<Rational>(INEQUALITIES=>[[0,-1,0],[0,0,-1]])'
        """
        return self.polyhedron.to_polymake()


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


@dataclass
class _CellRecord:
    """What a construction method found about one cell, before ids are assigned."""

    dimension: int
    signs: tuple  # domain signs, then neuron signs in network order
    polyhedron: Polyhedron | None = None
    facets: list | None = None  # indices into the record list, when the method knows them
    generators: Callable[[], Any] | None = None  # a callable giving (vertices, rays, lines), when the method knows them


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
    return [
        _CellRecord(
            c.hull.dimension,
            c.signs,
            polyhedron=Polyhedron.from_trusted(
                n0, h_representation=(c.strict, c.equations), relative_interior_point=c.point, affine_hull=c.hull, oracle=oracle
            ),
        )
        for c in cells
    ]


class _IntegerNetwork:
    """Exact pre-activations at homogeneous integer points ``(D, X)``, in batches (python-flint).

    Uses the network's integer layers ``c_l [b_l | W_l]``: the value reported for
    neuron ``k`` at ``(D, X)`` is ``C_k D z_k(X / D)`` with a constant ``C_k > 0``;
    at an ideal point (``D = 0``) it is ``C_k`` times the recession value, i.e.
    the network with all biases set to zero evaluated at ``X``.
    """

    def __init__(self, net):
        self.layers = net.integer_layers()[:-1]

    def __call__(self, points):
        """All hidden pre-activation values at each point, as one tuple per point."""
        if not points:
            return []
        n = len(points)
        top = [p[0] for p in points]  # the constant 1 in homogeneous form, at each layer's scale
        M = flint.fmpz_mat([top] + [list(col) for col in zip(*(p[1:] for p in points))])
        columns = []
        for Wb, c in self.layers:
            entries = [int(v) for v in (Wb * M).entries()]
            columns.append(entries)
            top = [t * c for t in top]
            M = flint.fmpz_mat(1 + len(entries) // n, n, top + [v if v > 0 else 0 for v in entries])
        return [tuple(col[r * n + j] for col in columns for r in range(len(col) // n)) for j in range(n)]


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
        evaluate = _IntegerNetwork(net)
    else:
        independent, basis, lines = _first_layer_basis(W1, n0)
        if not independent:
            return _constant_network_cells(net, n0, lines)
        r = len(independent)
        # before the seed, which alone has 3^r cells
        guard.check(1, 0, arrangement_cells_bound(arch.hidden_widths[0], r), functools.partial(first_layer_cell_count, net, ()))
        W1r = [tuple(sum((w * b[m] for m, w in enumerate(row)), Fraction(0)) for b in basis) for row in W1]
        evaluate = _IntegerNetwork(ReLUNetwork((W1r,) + net.weights[1:], net.biases))
        subdivision = Subdivision.from_arrangement([primitive_integer_row((b1[i], *W1r[i])) for i in independent])
        order = independent + [k for k in order if k not in independent]
        seed_signs = 0
        bar.update(r)
    values = evaluate(subdivision.vertices)
    first = len(independent) if domain is None else 0
    layer_of = [l for l, w in enumerate(arch.hidden_widths, start=1) for _ in range(w)]
    current_layer = None
    for k in order[first:]:
        if len(values) < len(subdivision.vertices):
            values.extend(evaluate(subdivision.vertices[len(values):]))
        if layer_of[k] != current_layer:
            current_layer = layer_of[k]
            if current_layer > 1:
                neurons = [j for j in order if layer_of[j] == current_layer]
                check_next_layer(guard, subdivision, values, evaluate, neurons, current_layer)
        subdivision.cut([v[k] for v in values])
        bar.update(1)
    if domain is None and arch.depth and len(subdivision.finite_cells()) == 0:
        raise RuntimeError("lattice enumeration lost every cell")
    if len(values) < len(subdivision.vertices):
        values.extend(evaluate(subdivision.vertices[len(values):]))
    return _records_from_subdivision(subdivision, values, order, seed_signs, basis, lines)


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
    subdivision = Subdivision.from_polytope(vertices, faces)
    for cid, (_, vidx, _) in enumerate(faces):
        subdivision.cells[cid].signs = [
            0 if all(row_value(row, vertices[i]) == 0 for i in vidx) else 1 for row in domain_rows
        ]
    return subdivision, len(domain_rows)


def _constant_network_cells(net, n0, lines):
    """``W1 = 0``: every neuron is constant, the whole space is one cell."""
    vrep = (((Fraction(0),) * n0,), (), lines)
    return [_CellRecord(n0, net.signs((0,) * n0), facets=[], generators=lambda: vrep)]


def _records_from_subdivision(subdivision, values, order, n_seed, basis, lines):
    """The finite cells of a finished subdivision, with signs in network order.

    Their V-representations are left to :class:`_LatticeGenerators`, on demand.
    """
    position = [n_seed + order.index(k) for k in range(len(order))]
    identity = order == sorted(order)
    finite = subdivision.finite_cells()
    index = {c: i for i, c in enumerate(finite)}
    generators = _LatticeGenerators(subdivision, values, position, basis, lines)
    records = []
    for c in finite:
        cell = subdivision.cells[c]
        signs = tuple(cell.signs) if identity else tuple(cell.signs[:n_seed]) + tuple(cell.signs[p] for p in position)
        facets = [index[f] for f in cell.facets if f in index]
        records.append(_CellRecord(cell.dim + len(lines), signs, facets=facets, generators=functools.partial(generators, c)))
    return records


class _LatticeGenerators:
    """Minimal V-representations of the cells of a finished subdivision, lifted to ``Q^n0``.

    A generator ``v`` of a cell ``σ`` is kept only if it is extreme. The smallest
    face of ``cl σ`` containing ``v`` is where every constraint of ``σ`` that
    vanishes at ``v`` vanishes; ``v`` is a vertex (an extreme ray) exactly when
    no other generator (other ideal generator) of ``σ`` lies on that face: a
    test on bitmasks of the vertices where each constraint vanishes.
    """

    def __init__(self, subdivision, values, position, basis, lines):
        self.subdivision = subdivision
        self.values = values
        self.position = position
        self.basis = basis
        self.lines = lines
        self.zero_masks = None
        self.points = {}

    def _prepare(self):
        sub = self.subdivision
        n_constraints = len(sub.cells[0].signs)
        self.zero_masks = [0] * n_constraints
        self.zeros = []
        n_seed = n_constraints - len(self.position)
        for i, (vals, cid) in enumerate(zip(self.values, sub.vertex_cell)):
            here = [j for j, sgn in enumerate(sub.cells[cid].signs[:n_seed]) if sgn == 0]
            here += [self.position[k] for k, v in enumerate(vals) if v == 0]
            for j in here:
                self.zero_masks[j] |= 1 << i
            self.zeros.append(here)
        self.ideal_bits = sum(1 << i for i, v in enumerate(sub.vertices) if not v[0])

    def _lift(self, vec):
        if self.basis is None:
            return tuple(vec)
        return tuple(sum((v * b[i] for v, b in zip(vec, self.basis)), Fraction(0)) for i in range(len(self.basis[0])))

    def _point(self, i):
        if i not in self.points:
            D, *X = self.subdivision.vertices[i]
            self.points[i] = self._lift([Fraction(x, D) for x in X]) if D else primitive_integer_row(self._lift(X))
        return self.points[i]

    def __call__(self, cid):
        if self.zero_masks is None:
            self._prepare()
        cell = self.subdivision.cells[cid]
        vertices, rays = [], []
        for i in self.subdivision.cell_vertices(cid):
            finite = self.subdivision.vertices[i][0] > 0
            face = cell.vmask if finite else cell.vmask & self.ideal_bits
            for j in self.zeros[i]:
                if cell.signs[j] != 0:
                    face &= self.zero_masks[j]
            if face == 1 << i:
                (vertices if finite else rays).append(self._point(i))
        return tuple(sorted(vertices)), tuple(sorted(rays)), self.lines


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
        self._index = {(c.domain_signs, c.signs): c for c in self._cells}
        self._generators: dict[int, Callable[[], Any]] = {}
        self._oracle = default_oracle

    @classmethod
    def _assemble(cls, net, domain, domain_rows, records, oracle, elapsed):
        n_domain = len(domain_rows)
        order = sorted(range(len(records)), key=lambda i: (records[i].dimension, records[i].signs))
        new_id = {old: new for new, old in enumerate(order)}
        K = cls.__new__(cls)
        cells = [
            Cell(i, records[old].dimension, records[old].signs[n_domain:], records[old].signs[:n_domain], K, records[old].polyhedron)
            for i, old in enumerate(order)
        ]
        if all(r.facets is not None for r in records):
            covers = [(new_id[f], new_id[old]) for old in order for f in records[old].facets]
        else:
            covers = covering_from_signs([c.domain_signs + c.signs for c in cells], [c.dimension for c in cells])
        K.__init__(net, domain, domain_rows, cells, FaceLattice([c.dimension for c in cells], covers), elapsed)
        K._generators = {new_id[i]: r.generators for i, r in enumerate(records) if r.generators is not None}
        K._oracle = oracle
        return K

    def _cell_polyhedron(self, cell):
        """The closed cell of a lattice-built complex (see :class:`_LatticeCell`)."""
        return _LatticeCell(self, cell, self._generators[cell.id]()).polyhedron()

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
        (computed here with ``cdd.gmp`` if not yet cached). The format is
        described in ``docs/formats.md``; its JSON Schema ships with the package
        (:func:`polyrelu.schemas.schema` ``("complex")``).
        """
        def q(v):
            return str(fraction_to_json(v))

        def rows(rs):
            return [[q(v) for v in r] for r in rs]

        cells = []
        for c in self._cells:
            ieqs, eqns = c.polyhedron.minimal_h_representation()
            vertices, rays, lines = c.polyhedron.vertices_rays_lines()
            entry = {
                "id": c.id,
                "dim": c.dimension,
                "signs": c.sign_string,
                "domain_signs": "".join("+" if s else "0" for s in c.domain_signs),
                "relative_interior_point": [q(v) for v in c.relative_interior_point()],
                "vertices": rows(vertices),
                "rays": rows(rays),
                "lines": rows(lines),
                "ieqs": rows(ieqs),
                "eqns": rows(eqns),
            }
            if c.dimension == self.network.architecture.input_dim:
                A, b = self.affine_map(c)
                entry["affine_map"] = {"A": rows(A), "b": [q(v) for v in b]}
            cells.append(entry)
        return {
            "format": COMPLEX_FORMAT,
            "version": COMPLEX_VERSION,
            "network": network_to_dict(self.network),
            "ambient_dim": self.network.architecture.input_dim,
            "domain": None if self.domain is None else {"ieqs": rows(self._domain_rows)},
            "neurons": [list(n) for n in self.network.architecture.hidden_neurons()],
            "cells": cells,
            "covering": [list(p) for p in self.lattice.covering_relation()],
            "f_vector": list(self.f_vector()),
            "euler_characteristic": self.euler_characteristic(),
        }

    def write_json(self, path: os.PathLike | str) -> None:
        """Write :meth:`to_json` to ``path`` (atomically: a failure leaves any previous file as it was)."""
        write_json(require_path(path, "path", "CanonicalComplex.write_json"), self.to_json)

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
