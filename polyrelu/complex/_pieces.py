"""The canonical complex built in pieces on parallel workers, and merged into the serial result (internal).

:func:`lattice_cells_in_pieces` is the lattice construction of
:func:`~polyrelu.complex.canonical_complex` when workers are available
(``n_jobs``, ``scheduler``, see :mod:`polyrelu.parallel`). When the complex is
large (the size guard's estimate after the second hidden layer exceeds
:data:`SPLIT_CELLS`), the input space is cut by a few first-layer neurons
``h_1, ..., h_k`` into the closed pieces ``{x : p_i h_i(x) >= 0}``, one per
sign pattern ``p`` that some first-layer region has. Each piece is built in a
worker, from the network and the piece's description alone: the seed, the
cuts by the splitting neurons, then only the cells of the piece
(:meth:`~polyrelu.geometry.Subdivision.subcomplex`), cut by every other neuron.

Why this is the serial complex, cell for cell: the splitting neurons are
neurons of the network, so every cell of the canonical complex has constant
signs on them and lies in every piece whose pattern its signs agree with
(``0`` agreeing with both), and in no other. A piece's complex is therefore
exactly the subcomplex of those cells: its boundary is made of first-layer
hyperplanes, which the complex has anyway, and creates no cell of its own.
Cells on the pieces' common boundaries (a splitting neuron's sign ``0``) are
built in several pieces; each cell is kept from one of them (the first
pattern its signs agree with). Vertices are identified by their primitive
homogeneous integer coordinates, which depend on the point alone, and cells
by their sign vectors; the facets of a cell are the same in every piece that
has it, since a piece has all faces of its cells. The merged cells go through
the same assembly as a serial build's (ids by dimension, then sign vector),
so the complex, its ids and its JSON document are the serial ones.

The size guard checks the first two layers on the whole complex, as the
serial build does (the same refusals); from the third layer on each piece is
checked on its own against ``max_cells``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import chain
from typing import Any, NamedTuple

import numpy as np

from ..geometry import Polyhedron
from ..geometry.rational import IntegerRow
from ..network import ReLUNetwork
from ..parallel import one_blas_thread, parallel_map, worker_count
from ..progress import progress_bar
from ..size_guard import SizeGuard, arrangement_cells_bound
from ._canonical import paused_gc
from ._lattice import Found, LatticeRun, lattice_cells
from ._representations import LatticeGenerators

__all__ = ["SPLIT_CELLS", "lattice_cells_in_pieces", "build_piece"]

SPLIT_CELLS = 50_000
"""Above this estimated number of cells, a complex is built in pieces when more than one worker is available.

The estimate is the size guard's after the second hidden layer (the whole
complex for a network of two hidden layers; a lower bound for deeper ones).
Below it, a parallel build gains less than starting and feeding the workers
costs. Tests lower it (monkeypatch) to split small networks.
"""


class PieceTask(NamedTuple):
    """What a worker needs to build one piece: the network and the piece's description, nothing built."""

    net: ReLUNetwork
    domain_rows: tuple[tuple[int, ...], ...] | None  # None on R^n0
    splitters: tuple[int, ...]  # first-layer neurons (their indices in the layer) cutting the space
    patterns: tuple[tuple[int, ...], ...]  # every piece's signs on them, in piece order
    piece: int  # this piece's pattern (an index into patterns)
    max_cells: int


class PieceCells(NamedTuple):
    """A piece's cells, compact: arrays and integer tuples only, to be sent back from a worker.

    ``signs`` has a row per finite cell of the piece (domain signs, then
    neurons in network order); the cells the piece keeps (``owned``) come with
    their dimension (in the subdivision's coordinates), their facets (rows of
    ``signs``) and their vertices (indices into ``vertices``, homogeneous
    primitive integer coordinates, with their signs in ``vertex_signs``), both
    as flat arrays cut at ``*_starts``.
    """

    signs: np.ndarray
    owned: np.ndarray
    dimensions: np.ndarray
    facet_starts: np.ndarray
    facet_cells: np.ndarray
    vertex_starts: np.ndarray
    vertex_indices: np.ndarray
    vertices: list[tuple[int, ...]]
    vertex_signs: np.ndarray


class _SplitProbe(SizeGuard):
    """A guard that refuses nothing: it records whether the layer takes the complex past ``max_cells``."""

    def __init__(self, max_cells: int) -> None:
        super().__init__(max_cells)
        self.large = False

    def check(self, layer: int, cells: int, bound: int, estimate: Any) -> None:
        # with the threshold as the cap, the sampled count stops as soon as it is sure to pass it
        self.large = bound > self.max_cells and estimate(self.max_cells).value > self.max_cells


class _LaterLayersGuard(SizeGuard):
    """A piece's size guard: the first two layers were checked on the whole complex already."""

    def check(self, layer: int, cells: int, bound: int, estimate: Any) -> None:
        if layer > 2:
            super().check(layer, cells, bound, estimate)


def lattice_cells_in_pieces(
    net: ReLUNetwork,
    domain: Polyhedron | None,
    domain_rows: Sequence[IntegerRow],
    guard: SizeGuard,
    bar: Any,
    n_jobs: int | None,
    scheduler: str | None,
    progress: bool | None,
) -> Found:
    """The lattice construction, in pieces on parallel workers when the complex is large (see the module).

    Otherwise, and always for a network of one hidden layer, the serial
    construction (:func:`~._lattice.lattice_cells`), which it continues from
    the first layer when it had to build that to decide.
    """
    workers = worker_count(n_jobs, scheduler)
    widths = net.architecture.hidden_widths
    if workers == 1 or len(widths) < 2 or _cells_bound(net, domain_rows) <= SPLIT_CELLS:
        return lattice_cells(net, domain, domain_rows, None, guard, bar)
    run = LatticeRun(net, domain, domain_rows, guard, bar)
    if run.found is not None:
        return run.found
    while run.next_layer() == 1:
        run.cut_next()
    probe = _SplitProbe(SPLIT_CELLS)
    run.start_layer(probe)  # the serial guard's check of layer 2, then the probe's
    plan = _split(run, widths[0], 2 * workers if workers > 0 else 8) if probe.large else None
    if plan is None:
        run.finish()
        return run.result()
    splitters, patterns = plan
    bar.close()
    rows = tuple(domain_rows) if domain is not None else None
    tasks = [PieceTask(net, rows, splitters, patterns, i, guard.max_cells) for i in range(len(patterns))]
    pieces = parallel_map(
        build_piece,
        tasks,
        n_jobs=-1 if n_jobs is None else n_jobs,  # the estimate says it is worth it: no serial start
        scheduler=scheduler,
        desc=None if progress is False else "pieces",
        names=[f"piece {i + 1} of {len(tasks)}" for i in range(len(tasks))],
    )
    columns = [run.n_seed + k for k in splitters]
    return _merge(pieces, columns, run.basis, run.lines)


def _cells_bound(net: ReLUNetwork, domain_rows: Sequence[IntegerRow]) -> int:
    """An upper bound on the number of cells: each layer an arrangement in general position inside every cell so far."""
    n0, widths = net.architecture.input_dim, net.architecture.hidden_widths
    bound = arrangement_cells_bound(widths[0] + len(domain_rows), n0)
    for width in widths[1:]:
        bound *= arrangement_cells_bound(width, n0)
    return bound


def _split(run: LatticeRun, width: int, wanted: int) -> tuple[tuple[int, ...], tuple[tuple[int, ...], ...]] | None:
    """``(splitters, patterns)``: first-layer neurons cutting the space into ``wanted`` or more balanced pieces.

    Greedily, the neuron whose cut leaves the heaviest piece lightest, the
    weight of a piece being the number of first-layer cells in it (boundary
    cells count in every piece that has them: they are built there). Only
    neurons with both signs on the first layer's cells, and only cuts that
    make more pieces, are taken. None when no neuron cuts.
    """
    subdivision = run.subdivision
    cells = subdivision.finite_cells()
    signs = subdivision.sign_matrix(cells)
    regions = np.array([subdivision.cells[c].dim == subdivision.d for c in cells])
    column = {k: signs[:, run.column(k)] for k in range(width)}
    candidates = [k for k in range(width) if (column[k] > 0).any() and (column[k] < 0).any()]
    chosen: list[int] = []
    patterns: list[tuple[int, ...]] = [()]
    while len(patterns) < wanted:
        best = None
        for k in candidates:
            if k in chosen:
                continue
            T = signs[:, [run.column(j) for j in chosen + [k]]]
            found = sorted(set(map(tuple, T[regions].tolist())))
            if len(found) <= len(patterns):
                continue
            heaviest = max(int(((T == p) | (T == 0)).all(axis=1).sum()) for p in found)
            if best is None or (heaviest, -len(found)) < best[0]:
                best = ((heaviest, -len(found)), k, found)
        if best is None:
            break
        chosen.append(best[1])
        patterns = best[2]
    if len(patterns) < 2:
        return None
    return tuple(chosen), tuple(patterns)


def build_piece(task: PieceTask) -> PieceCells:
    """Build one piece of the complex (in a worker): seed, splitting cuts, the piece's cells only, the other cuts.

    Raises
    ------
    ComplexTooLargeError
        A layer from the third on would take the piece past ``max_cells``.
    """
    net = task.net
    domain = None if task.domain_rows is None else Polyhedron(ieqs=task.domain_rows, ambient_dim=net.architecture.input_dim)
    with paused_gc(), one_blas_thread():
        bar = progress_bar(desc="neurons", enabled=False)
        run = LatticeRun(net, domain, task.domain_rows or (), _LaterLayersGuard(task.max_cells), bar, first=task.splitters)
        last = max(run.order.index(k) for k in task.splitters)
        while run.position <= last:
            run.cut_next()
        subdivision = run.subdivision
        every = subdivision.sign_matrix(range(len(subdivision.cells)))[:, [run.column(k) for k in task.splitters]]
        pattern = np.array(task.patterns[task.piece], dtype=np.int8)
        run.restrict(np.flatnonzero(((every == pattern) | (every == 0)).all(axis=1)).tolist())
        run.finish()
        return _piece_cells(run, task)


def _piece_cells(run: LatticeRun, task: PieceTask) -> PieceCells:
    """The finished piece as :class:`PieceCells`: every finite cell's signs, the rest for the cells it keeps."""
    subdivision = run.subdivision
    _, dimensions, facets, vertex_sets, signs = subdivision.finite_complex()
    order = run.network_order()
    signs = signs[:, order]
    on_splitters = signs[:, [run.n_seed + k for k in task.splitters]]
    owner = np.full(len(signs), -1)
    for i in range(len(task.patterns) - 1, -1, -1):  # the first pattern a cell agrees with keeps it
        pattern = np.array(task.patterns[i], dtype=np.int8)
        owner[((on_splitters == pattern) | (on_splitters == 0)).all(axis=1)] = i
    owned = owner == task.piece
    kept = np.flatnonzero(owned).tolist()
    used = sorted({i for c in kept for i in vertex_sets[c]})
    local = {old: new for new, old in enumerate(used)}
    vertex_signs = subdivision.sign_matrix([subdivision.vertex_cell[i] for i in used])[:, order]
    facet_starts, facet_cells = _flat([facets[c] for c in kept])
    vertex_starts, vertex_indices = _flat([[local[i] for i in vertex_sets[c]] for c in kept])
    return PieceCells(
        signs,
        owned,
        np.array([dimensions[c] for c in kept], dtype=np.int8),
        facet_starts,
        facet_cells,
        vertex_starts,
        vertex_indices,
        [subdivision.vertices[i] for i in used],
        vertex_signs,
    )


def _flat(lists: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Lists of integers as ``(starts, flat)``: list ``i`` is ``flat[starts[i]:starts[i + 1]]``."""
    starts = np.zeros(len(lists) + 1, dtype=np.int64)
    np.cumsum([len(x) for x in lists], out=starts[1:])
    return starts, np.fromiter(chain.from_iterable(lists), dtype=np.int32, count=int(starts[-1]))


def _merge(pieces: Sequence[PieceCells], columns: list[int], basis: Any, lines: tuple[IntegerRow, ...]) -> Found:
    """The pieces' kept cells as one :class:`Found`: facets found by sign vector, vertices by coordinates.

    ``columns``: the splitting neurons' columns in the sign rows; a cell with a
    zero there may be kept by another piece than one naming it as a facet.
    """
    kept = [piece.signs[piece.owned] for piece in pieces]
    offsets = np.cumsum([0] + [len(k) for k in kept]).tolist()
    boundary: dict[bytes, int] = {}  # sign vector -> position, for the kept cells on the pieces' common boundaries
    for offset, signs in zip(offsets, kept):
        for i in np.flatnonzero((signs[:, columns] == 0).any(axis=1)).tolist():
            boundary[signs[i].tobytes()] = offset + i
    facets: list[tuple[int, ...]] = []
    vertex_sets: list[tuple[int, ...]] = []
    vertices: list[tuple[int, ...]] = []
    where: dict[tuple[int, ...], int] = {}  # coordinates -> index in vertices
    new_vertices: list[list[int]] = []  # by piece: its vertices first seen there
    for offset, piece in zip(offsets, pieces):
        position = np.full(len(piece.signs), -1, dtype=np.int64)
        position[piece.owned] = np.arange(offset, offset + int(piece.owned.sum()))
        needed = np.unique(piece.facet_cells)
        for i in needed[position[needed] < 0].tolist():
            position[i] = boundary[piece.signs[i].tobytes()]
        facets.extend(_split_flat(position[piece.facet_cells].tolist(), piece.facet_starts))
        index = np.empty(len(piece.vertices), dtype=np.int64)
        first_seen: list[int] = []
        for j, v in enumerate(piece.vertices):
            g = where.get(v)
            if g is None:
                g = where[v] = len(vertices)
                vertices.append(v)
                first_seen.append(j)
            index[j] = g
        new_vertices.append(first_seen)
        vertex_sets.extend(_split_flat(index[piece.vertex_indices].tolist(), piece.vertex_starts))
    n = pieces[0].signs.shape[1]
    vertex_signs = np.concatenate([piece.vertex_signs[seen] for piece, seen in zip(pieces, new_vertices)]).reshape(-1, n)
    dimensions = (np.concatenate([piece.dimensions for piece in pieces]).astype(np.int64) + len(lines)).tolist()
    generators = LatticeGenerators(vertices, vertex_sets, vertex_signs, basis, lines)
    return Found(dimensions, np.concatenate(kept), facets=facets, generators=generators)


def _split_flat(flat: list[int], starts: np.ndarray) -> list[tuple[int, ...]]:
    """The tuples ``flat[starts[i]:starts[i + 1]]``."""
    bounds = starts.tolist()
    return [tuple(flat[a:b]) for a, b in zip(bounds, bounds[1:])]

