"""The lattice construction of the canonical complex, cut by cut: :class:`LatticeRun` (internal).

:func:`lattice_cells` runs it to the end in one process; :mod:`._pieces` runs
it on closed pieces of the first layer's complex in worker processes. What a
construction found is a :class:`Found`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from fractions import Fraction
from typing import Any, NamedTuple

import numpy as np

from ..geometry.linalg import integer_nullspace, pivot_columns
from ..geometry.rational import primitive_integer_row, row_value
from ..geometry.subdivision import Subdivision
from ..network import ReLUNetwork
from ..size_guard import (
    arrangement_cells_bound,
    check_next_layer,
    first_layer_cell_count,
)
from ._representations import LatticeGenerators
from ._screen import EVALUATE_ALL, FloatScreen, IntegerNetwork, LayerValues


class Found(NamedTuple):
    """What a construction method found, one entry per cell in its own order, before ids are assigned."""

    dimensions: list[int]
    signs: np.ndarray  # int8, a row per cell: domain signs, then neuron signs in network order
    facets: list[tuple[int, ...]] | None = None  # indices into these lists, when the method knows them
    polyhedra: list[Any] | None = None
    generators: Callable[[int, tuple[int, ...]], Any] | None = None  # (index, signs) -> (vertices, rays, lines), when known


def sign_matrix(rows, width):
    """Sign vectors as an int8 matrix with ``width`` columns (also when there is no row or no column)."""
    return np.array(rows, dtype=np.int8).reshape(len(rows), width)


class LatticeRun:
    """The lattice construction between two cuts: a face lattice cut neuron by neuron, decided at its (ideal) vertices.

    On ``R^n0`` the first layer's kernel ``L`` (common to all cells) is split
    off: the computation runs in ``rowspace(W1)``, seeded with the arrangement of
    a basis of first-layer hyperplanes, and cells are lifted back with ``L``
    as lines. On a polytope domain it is seeded with the domain's face lattice.
    The neurons are cut in :attr:`order`: the seeded ones, then ``first`` (some
    first-layer neurons to cut at once), then the others in network order. The
    order changes nothing in the result: every cell is cut from its own
    vertices, and a new vertex's primitive coordinates depend on the point
    alone. :attr:`found` is set at once when there is nothing to cut (an
    affine or constant network on ``R^n0``).

    Before each layer from the second on, ``guard`` (a :class:`~polyrelu.size_guard.SizeGuard`)
    is asked whether the layer may bring the complex past its limit.
    """

    def __init__(self, net, domain, domain_rows, guard, bar, first=()):
        arch = net.architecture
        n0 = arch.input_dim
        W1, b1 = net.weights[0], net.biases[0]
        self.guard, self.bar = guard, bar
        self.basis, self.lines = None, ()
        self.found: Found | None = None
        order = list(range(arch.num_hidden))
        seeded = 0
        if not arch.depth and domain is None:  # an affine network: net.weights[0] is the output layer, no neuron cuts
            self.found = _constant_network_cells(net, n0, tuple(sorted(tuple(int(i == j) for j in range(n0)) for i in range(n0))))
            return
        if domain is not None:
            if arch.depth:
                guard.check(
                    1, 0, arrangement_cells_bound(arch.hidden_widths[0] + len(domain_rows), n0),
                    functools.partial(first_layer_cell_count, net, domain_rows),
                )
            self.subdivision, self.n_seed = _polytope_seed(domain, domain_rows)
            evaluated = net
        else:
            independent, self.basis, self.lines = _first_layer_basis(W1, n0)
            if not independent:
                self.found = _constant_network_cells(net, n0, self.lines)
                return
            seeded = len(independent)
            # before the seed, which alone has 3^r cells
            guard.check(1, 0, arrangement_cells_bound(arch.hidden_widths[0], seeded), functools.partial(first_layer_cell_count, net, ()))
            W1r = [tuple(sum((w * b[m] for m, w in enumerate(row)), Fraction(0)) for b in self.basis) for row in W1]
            evaluated = ReLUNetwork((W1r,) + net.weights[1:], net.biases)
            self.subdivision = Subdivision.from_arrangement([primitive_integer_row((b1[i], *W1r[i])) for i in independent])
            order = independent + [k for k in order if k not in independent]
            self.n_seed = 0
            bar.update(seeded)
        early = [k for k in first if k not in order[:seeded]]
        self.order = order[:seeded] + early + [k for k in order[seeded:] if k not in early]
        self.position = seeded  # the next neuron to cut is order[position]
        self.layer_of = [l for l, w in enumerate(arch.hidden_widths, start=1) for _ in range(w)]
        self.widths = arch.hidden_widths
        self.evaluate, self.screen = IntegerNetwork(evaluated), FloatScreen(evaluated)
        self.layer = 0  # the layer whose values are ready
        self.values: LayerValues | None = None
        self.domain = domain

    def column(self, k):
        """The column of neuron ``k``'s signs in :attr:`subdivision`'s sign matrix (after the seed's)."""
        return self.n_seed + self.order.index(k)

    def next_layer(self):
        """The layer of the next neuron to cut, or None when every neuron is cut."""
        return self.layer_of[self.order[self.position]] if self.position < len(self.order) else None

    def start_layer(self, probe=None):
        """Get the next neuron's layer ready: its values, and from the second layer on, the guard's check.

        ``probe``, a guard too, is asked after ``guard`` (it may only look).
        """
        layer = self.next_layer()
        offset = sum(self.widths[: layer - 1])
        values = self.values = LayerValues(self.subdivision, self.evaluate, self.screen, layer, offset)
        self.layer = layer
        if layer > 1:
            neurons = [j for j in self.order if self.layer_of[j] == layer]
            for guard in (self.guard,) if probe is None else (self.guard, probe):
                check_next_layer(guard, self.subdivision, values, values.vertex_signs, values.padded, neurons, layer)
            if len(self.subdivision.vertices) > EVALUATE_ALL:  # the guard's values at a few vertices: not worth keeping
                values.padded_values.clear()

    def cut_next(self):
        """Cut by the next neuron (getting its layer ready first if needed)."""
        if self.next_layer() != self.layer:
            self.start_layer()
        k = self.order[self.position]
        offset = self.values.offset
        self.subdivision.cut_by_signs(self.values.signs(k - offset), functools.partial(self.values.exact, k - offset))
        self.position += 1
        self.bar.update(1)

    def finish(self):
        """Cut by every neuron left."""
        while self.position < len(self.order):
            self.cut_next()

    def restrict(self, cells):
        """Keep only the subdivision's cells ``cells`` and their faces (:meth:`Subdivision.subcomplex`)."""
        self.subdivision = self.subdivision.subcomplex(cells)
        self.layer, self.values = 0, None  # the values are by vertex index: read afresh

    def network_order(self):
        """The subdivision's sign columns, seed first, permuted to the network's order of neurons."""
        return list(range(self.n_seed)) + [self.column(k) for k in range(len(self.order))]

    def result(self):
        """What the finished construction found (:class:`Found`).

        The V-representations are left to :class:`LatticeGenerators`, on
        demand, which keeps what it needs: the subdivision itself can go.
        """
        if self.found is not None:
            return self.found
        subdivision = self.subdivision
        if self.domain is None and self.widths and len(subdivision.finite_cells()) == 0:
            raise RuntimeError("lattice enumeration lost every cell")
        _, dimensions, facets, vertex_sets, signs = subdivision.finite_complex()
        network_order = self.network_order()
        if network_order != sorted(network_order):
            signs = signs[:, network_order]
        vertex_signs = subdivision.sign_matrix(subdivision.vertex_cell)[:, network_order]
        generators = LatticeGenerators(subdivision.vertices, vertex_sets, vertex_signs, self.basis, self.lines)
        return Found([d + len(self.lines) for d in dimensions], signs, facets=facets, generators=generators)


def lattice_cells(net, domain, domain_rows, oracle, guard, bar):
    """Cells by cutting a face lattice neuron by neuron, in one process (:class:`LatticeRun` to the end)."""
    run = LatticeRun(net, domain, domain_rows, guard, bar)
    if run.found is None:
        run.finish()
    return run.result()


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
    return Found([n0], sign_matrix([signs], len(signs)), facets=[()], generators=lambda *_: vrep)
