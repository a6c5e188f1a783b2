"""Construction of the canonical complex: the lattice and LP methods, the size guard's estimate (internal).
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, NamedTuple

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
from ..geometry.rational import (
    IntegerRow,
    MatrixLike,
    row_value,
)
from ..network import ReLUNetwork
from ..parallel import check_parallel_arguments, one_blas_thread
from ..progress import progress_bar
from ..size_guard import (
    CellSample,
    Estimated,
    SizeGuard,
    arrangement_cells_bound,
    first_layer_cell_count,
)
from ._canonical import CanonicalComplex, paused_gc
from ._lattice import Found, lattice_cells, sign_matrix
from ._patterns import layer_rows
from ._pieces import lattice_cells_in_pieces
from ._representations import sign


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
    n_jobs: int | None = None,
    scheduler: str | None = None,
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
    n_jobs : int, optional
        Workers for a large complex (``method="lattice"``, two hidden layers
        or more): ``None`` (the default) this process only, unless a
        ``scheduler`` is given, whose workers then build the pieces; ``1``
        this process only; ``k > 1`` that many local processes; ``-1`` every
        core. Serial is the default, unlike elsewhere in polyrelu, because
        the pieces cost more than they save on two cores (0.74–0.95× the
        serial speed, measured on idle cores; see docs/parallel.md). See
        Notes and :func:`polyrelu.parallel.parallel_map`.
    scheduler : str, optional
        The address of a Dask scheduler whose workers build the pieces
        (else ``DASK_SCHEDULER_ADDRESS`` is read); ignored with ``n_jobs=1``.

    Returns
    -------
    CanonicalComplex
        The same whatever ``n_jobs`` and ``scheduler``: equal cells with equal
        ids, and the same JSON document, byte for byte.

    Raises
    ------
    GeometryError
        An empty, unbounded or wrong-dimensional domain.
    ComplexTooLargeError
        The estimated cell count exceeds ``max_cells`` (a piece's message
        starts with ``"piece i of k: "``).
    UsageError
        A bad ``n_jobs``, or a scheduler that cannot be reached.
    BackendUnavailableError
        A scheduler is given but Dask is not installed.

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

    Notes
    -----
    With more than one worker, a complex whose size guard estimate after
    the second hidden layer exceeds 50,000 cells
    (``polyrelu.complex._pieces.SPLIT_CELLS``) is built in pieces: the
    space is cut along a few first-layer hyperplanes into closed pieces,
    about twice as many as workers and balanced by the first layer's cells;
    each piece's cells are built in a worker and the pieces are merged by
    sign vector (docs/parallel.md). The cut adds no cell, since the pieces'
    boundaries are hyperplanes of the network. The size guard checks the
    first two layers on the whole complex, as a serial build does, and later
    layers piece by piece.
    """
    domain, domain_rows = _checked_arguments("canonical_complex", net, domain, method, max_cells)
    oracle = require_instance(oracle, LPOracle, "oracle", "canonical_complex", optional=True) or default_oracle
    if progress is not None:
        require_bool(progress, "progress", "canonical_complex")
    pieces_asked = n_jobs is not None or scheduler is not None
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, "canonical_complex")
    if not pieces_asked:
        n_jobs = 1
    bar = progress_bar(total=net.architecture.num_hidden, desc="neurons", enabled=progress)
    start = time.perf_counter()
    with paused_gc(), one_blas_thread():
        try:
            if method == "lattice":
                records = lattice_cells_in_pieces(net, domain, domain_rows, SizeGuard(max_cells), bar, n_jobs, scheduler, progress)
            else:
                records = _lp_cells(net, domain, domain_rows, oracle, SizeGuard(max_cells), bar)
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
    build = lattice_cells if method == "lattice" else _lp_cells
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
    return Found(
        [c.hull.dimension for c in cells],
        sign_matrix([c.signs for c in cells], n_domain + net.architecture.num_hidden),
        polyhedra=[
            Polyhedron.from_trusted(
                n0, h_representation=(c.strict, c.equations), relative_interior_point=c.point, affine_hull=c.hull, oracle=oracle
            )
            for c in cells
        ],
    )
