"""Construction of the canonical complex: the lattice and LP methods, the size guard's estimate (internal).
"""

from __future__ import annotations

import functools
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, NamedTuple

import numpy as np

from ..checks import (
    require_bool,
    require_choice,
    require_instance,
    require_int,
)
from ..domain import Box, domain_polyhedron
from ..geometry import (
    AffineSubspace,
    Feasibility,
    LPOracle,
    Polyhedron,
    default_oracle,
)
from ..geometry.linalg import integer_nullspace, pivot_columns
from ..geometry.rational import (
    IntegerRow,
    MatrixLike,
    primitive_integer_row,
    row_value,
)
from ..geometry.subdivision import Subdivision
from ..network import ReLUNetwork
from ..parallel import one_blas_thread
from ..progress import progress_bar
from ..size_guard import (
    CellSample,
    Estimated,
    SizeGuard,
    arrangement_cells_bound,
    check_next_layer,
    first_layer_cell_count,
)
from ._canonical import CanonicalComplex, paused_gc
from ._patterns import layer_rows
from ._representations import LatticeGenerators, sign
from ._screen import EVALUATE_ALL, FloatScreen, IntegerNetwork, LayerValues


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


class _Splitter:
    """Splits open cells by affine functions with at most one certified LP per split."""

    def __init__(self, oracle):
        self.oracle = oracle

    def split(self, cell, row, allowed=(-1, 0, 1)):
        """The non-empty parts of ``cell`` where ``row`` is ``+``, ``-`` and ``0`` (in ``allowed``)."""
        h = cell.hull.restrict(row)
        if not any(h[1:]):
            s = sign(h[0])
            return [self._child(cell, s, row, cell.point)] if s in allowed else []
        s0 = sign(row_value(row, cell.point))
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
    with paused_gc(), one_blas_thread():
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
                maps[prefix] = layer_rows(net, l, prefix)
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
    evaluate, screen = IntegerNetwork(evaluated), FloatScreen(evaluated)
    current_layer = offset = 0
    for k in order[first:]:
        if layer_of[k] != current_layer:
            current_layer = layer_of[k]
            offset = sum(arch.hidden_widths[: current_layer - 1])
            values = LayerValues(subdivision, evaluate, screen, current_layer, offset)
            if current_layer > 1:
                neurons = [j for j in order if layer_of[j] == current_layer]
                check_next_layer(guard, subdivision, values, values.vertex_signs, values.padded, neurons, current_layer)
                if len(subdivision.vertices) > EVALUATE_ALL:  # the guard's values at a few vertices: not worth keeping
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

    Their V-representations are left to :class:`LatticeGenerators`, on demand,
    which keeps what it needs: the subdivision itself can go.
    """
    _, dimensions, facets, vertex_sets, signs = subdivision.finite_complex()
    network_order = list(range(n_seed)) + [n_seed + order.index(k) for k in range(len(order))]
    if order != sorted(order):
        signs = signs[:, network_order]
    vertex_signs = subdivision.sign_matrix(subdivision.vertex_cell)[:, network_order]
    generators = LatticeGenerators(subdivision.vertices, vertex_sets, vertex_signs, basis, lines)
    return _Found([d + len(lines) for d in dimensions], signs, facets=facets, generators=generators)
