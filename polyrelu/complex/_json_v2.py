"""The compact complex JSON document, ``polyrelu.complex`` version 2, written in bulk (internal module).

Version 2 (docs/formats.md) stores what the network and the sign vectors do not determine: every vertex once
(``points``: the point of each cell of the lowest dimension, in cell order), every extreme ray once
(``directions``), the lineality space once (``lines``), and the cells as parallel arrays (``dim``, ``signs``,
``domain_signs``, and per cell the sorted indices of its vertices into ``points`` and of its rays into
``directions``). :func:`compact_cell_texts` gives the text of these keys. For a complex built on the face lattice
it reads the construction's vertex sets and vertex signs with NumPy and lets :func:`json.dumps` write the
arrays; any other complex (built by LP, read from a file) is read from its cells' polyhedra, to the same text.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..complex_validation import lineality_basis
from ..errors import GeometryError
from ._representations import LatticeGenerators, row_text

__all__ = ["compact_cell_texts"]

_CELLS_PER_CHUNK = 1 << 15  # cells whose index lists json.dumps writes at a time
_PAIRS_PER_CHUNK = 1 << 21  # (generator, generator) pairs the extremality test compares at a time


def compact_cell_texts(K: Any, signs: np.ndarray) -> Iterator[str]:
    """The text of the keys ``points`` to ``cells`` of the version-2 document of ``K``, in pieces.

    ``signs`` holds every cell's full sign vector (domain signs first), one
    row per cell id, as integers.
    """
    generators = K._generators
    if generators is not None and isinstance(generators.generators, LatticeGenerators):
        points, directions, lines, vertices, rays = _lattice_generators(K, generators.generators, generators.order, signs)
    else:
        points, directions, lines, vertices, rays = _polyhedron_generators(K)
    yield (
        '"points": [' + ", ".join(map(row_text, points)) + '], "directions": ['
        + ", ".join(map(row_text, directions)) + '], "lines": [' + ", ".join(map(row_text, lines)) + "], "
    )
    n_domain = len(K._domain_rows)
    yield (
        f'"cells": {{"dim": {json.dumps(list(K.lattice.dimensions))}, '
        f'"signs": {json.dumps(_sign_strings(signs[:, n_domain:], b"-0+", 1))}, '
        f'"domain_signs": {json.dumps(_sign_strings(signs[:, :n_domain], b"0+", 0))}, '
    )
    for key, lists, end in (("vertices", vertices, ", "), ("rays", rays, "}, ")):
        yield f'"{key}": ['
        for start in range(0, len(lists), _CELLS_PER_CHUNK):
            yield (", " if start else "") + json.dumps(lists[start : start + _CELLS_PER_CHUNK])[1:-1]
        yield "]" + end


def _sign_strings(signs, alphabet, offset):
    """One string per row of ``signs``: the character ``alphabet[s + offset]`` for each entry ``s``."""
    n, width = signs.shape
    text = np.frombuffer(alphabet, dtype=np.uint8)[signs.astype(np.intp) + offset].tobytes().decode("ascii")
    return [text[i : i + width] for i in range(0, n * width, width)] if width else [""] * n


def _lattice_generators(K, G, order, signs):
    """``(points, directions, lines, vertices, rays)`` of a lattice-built complex, from its construction's data.

    A cell's vertex set may hold generators that are not extreme for its
    closure; they are dropped by :meth:`LatticeGenerators.extreme`'s test,
    here for all cells at once (:func:`_dominated`).
    """
    n = len(K)
    dimensions = np.asarray(K.lattice.dimensions, dtype=np.int64)
    cell_sets = [G.vertex_sets[i] for i in order]
    counts = np.fromiter(map(len, cell_sets), dtype=np.int64, count=n)
    flat = np.fromiter(itertools.chain.from_iterable(cell_sets), dtype=np.int64, count=int(counts.sum()))
    starts = np.concatenate(([0], np.cumsum(counts)))
    finite = np.fromiter((v[0] != 0 for v in G.vertices), dtype=bool, count=len(G.vertices))
    live = np.packbits(signs != 0, axis=1, bitorder="little")
    zero_words = G.zero_masks()
    live = np.ascontiguousarray(np.pad(live, ((0, 0), (0, zero_words.shape[1] * 8 - live.shape[1])))).view("<u8")
    extreme = ~_dominated(zero_words, live, flat, counts, starts, finite[flat])
    # the points: the j-th cell of the lowest dimension (cell j: they come first) is the point of its only generator
    lowest = np.flatnonzero(dimensions == len(G.lines))
    point_of = np.full(len(G.vertices), -1, dtype=np.int64)
    point_of[flat[starts[lowest]]] = np.arange(len(lowest))
    points = [G.point(i) for i in flat[starts[lowest]].tolist()]
    ideal = extreme & ~finite[flat]
    used = np.unique(flat[ideal])
    directions = sorted({G.point(i) for i in used.tolist()})
    index = {row: j for j, row in enumerate(directions)}
    direction_of = np.full(len(G.vertices), -1, dtype=np.int64)
    direction_of[used] = [index[G.point(i)] for i in used.tolist()]
    cell_of = np.repeat(np.arange(n, dtype=np.int64), counts)
    vertex_entries = extreme & finite[flat]
    assert (point_of[flat[vertex_entries]] >= 0).all()  # every vertex of a cell is a cell of the lowest dimension
    vertices = _index_lists(cell_of[vertex_entries], point_of[flat[vertex_entries]], n, len(points))
    rays = _index_lists(cell_of[ideal], direction_of[flat[ideal]], n, len(directions))
    return points, directions, G.lines, vertices, rays


def _dominated(zero_words, live, flat, counts, starts, finite):
    """Per generator entry of a cell: does another generator of the cell (another ideal one, for an ideal
    generator) vanish on every live constraint it vanishes on? Then it is not extreme.

    The test of :meth:`LatticeGenerators.extreme`, on every pair of generators of every cell, a bounded number of
    pairs at a time.
    """
    dominated = np.zeros(len(flat), dtype=bool)
    pairs = np.cumsum(counts * counts)
    first = 0
    while first < len(counts):
        last = max(first + 1, int(np.searchsorted(pairs, (pairs[first - 1] if first else 0) + _PAIRS_PER_CHUNK, "right")))
        k = counts[first:last]
        entries = np.arange(starts[first], starts[last], dtype=np.int64)
        partners = np.repeat(k, k)  # each entry pairs with every entry of its cell
        a = np.repeat(entries, partners)
        cell_start = np.repeat(np.repeat(starts[first:last], k), partners)
        offsets = np.arange(len(a), dtype=np.int64) - np.repeat(np.cumsum(partners) - partners, partners)
        b = cell_start + offsets
        cell = np.repeat(np.repeat(np.arange(first, last, dtype=np.int64), k), partners)
        wanted = (a != b) & (finite[a] | ~finite[b])
        a, b, cell = a[wanted], b[wanted], cell[wanted]
        covered = ((zero_words[flat[a]] & live[cell] & ~zero_words[flat[b]]) == 0).all(axis=1)
        dominated[a[covered]] = True
        first = last
    return dominated


def _index_lists(cells, values, n, bound):
    """Per cell ``0 .. n-1``, the sorted ``values`` of its entries (``cells[e]`` is entry ``e``'s cell)."""
    keys = np.sort(cells * bound + values) if bound else cells
    flat = (keys - (keys // bound) * bound).tolist() if bound else []
    ends = np.cumsum(np.bincount(cells, minlength=n)).tolist()
    return [flat[s:e] for s, e in zip([0, *ends[:-1]], ends)]


def _polyhedron_generators(K):
    """``(points, directions, lines, vertices, rays)`` read from the cells' V-representations."""
    vreps = [c.polyhedron.vertices_rays_lines() for c in K._cells]
    lines = vreps[0][2]
    points = [vrep[0][0] for c, vrep in zip(K._cells, vreps) if c.dimension == len(lines)]
    point_index = {p: i for i, p in enumerate(points)}
    directions = sorted({r for vrep in vreps for r in vrep[1]})
    direction_index = {r: i for i, r in enumerate(directions)}
    vertices, rays = [], []
    for c, (cell_vertices, cell_rays, cell_lines) in zip(K._cells, vreps):
        if cell_lines != lines and lineality_basis(cell_lines) != lineality_basis(lines):
            raise GeometryError(f"cell {c.id} has another lineality space than cell 0: this is not a polyhedral complex")
        missing = [v for v in cell_vertices if v not in point_index]
        if missing:
            raise GeometryError(
                f"cell {c.id}: its vertex {tuple(map(str, missing[0]))} is not a cell of dimension {len(lines)}: "
                "this is not a polyhedral complex (read with trusted=True from a modified file?)"
            )
        vertices.append(sorted(point_index[v] for v in cell_vertices))
        rays.append(sorted(direction_index[r] for r in cell_rays))
    return points, directions, lines, vertices, rays
