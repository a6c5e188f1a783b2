"""Subdivision: cuts by values and by signs, the column-wise signs, the finite complex read at once."""

import random
from fractions import Fraction as F

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import affine_value, sign

from polyrelu.errors import GeometryError, InvalidArgumentError
from polyrelu.geometry import Subdivision


def homogeneous_value(row, vertex):
    """``D h(X / D)`` for the affine row ``h = (b, a)`` at the homogeneous vertex ``(D, X)`` (recession value if D = 0)."""
    D, *X = vertex
    return row[0] * D + sum(a * x for a, x in zip(row[1:], X))


def random_rows(rng, d, count):
    return [tuple(rng.randint(-4, 4) for _ in range(d + 1)) for _ in range(count)]


def snapshot(S):
    """Everything a subdivision holds, cell by cell, as plain data."""
    return (
        S.vertices,
        S.vertex_cell,
        [(c.dim, c.finite, c.facets, c.verts, c.signs) for c in S.cells],
        S.sign_matrix(range(len(S.cells))).tolist(),
    )


@settings(max_examples=30, deadline=None, derandomize=True)
@given(d=st.integers(1, 3), cuts=st.integers(1, 4), seed=st.integers(0, 10_000))
def test_cut_by_signs_is_cut_by_values(d, cuts, seed):
    rng = random.Random(seed)
    seed_rows = [tuple(int(i == j) for j in range(-1, d)) for i in range(d)]
    A, B = Subdivision.from_arrangement(seed_rows), Subdivision.from_arrangement(seed_rows)
    for row in random_rows(rng, d, cuts):
        values = [homogeneous_value(row, v) for v in A.vertices]
        A.cut(values)
        asked = []

        def exact(ends, row=row, asked=asked):
            asked.append(list(ends))
            return [homogeneous_value(row, B.vertices[i]) for i in ends]

        signs = [sign(homogeneous_value(row, v)) for v in B.vertices]
        crossed = {
            i
            for c in B.cells
            if c.dim == 1 and {signs[B.cells[f].verts[0]] for f in c.facets} == {1, -1}
            for f in c.facets
            for i in B.cells[f].verts
        }
        B.cut_by_signs(np.array(signs, dtype=np.int8) if seed % 2 else signs, exact)
        # asked once, for exactly the ends of the edges the function crosses
        assert len(asked) == 1 and asked[0] == sorted(crossed)
    assert snapshot(A) == snapshot(B)


def test_cut_by_signs_refuses_a_value_of_the_wrong_sign_and_changes_nothing_before():
    S = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
    row = (-1, 1, 1)
    signs = [sign(homogeneous_value(row, v)) for v in S.vertices]
    with pytest.raises(GeometryError, match="exact_values gives"):
        S.cut_by_signs(signs, lambda ends: [-homogeneous_value(row, S.vertices[i]) for i in ends])
    with pytest.raises(InvalidArgumentError, match=r"signs\[0\] must be -1, 0 or 1"):
        S.cut_by_signs([2] * len(S.vertices), lambda ends: [])


def test_signs_columns_read_through_the_cells_a_cut_made_them_from():
    rng = random.Random(3)
    S = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
    rows = random_rows(rng, 2, 5)
    for row in rows:
        S.cut([homogeneous_value(row, v) for v in S.vertices])
    matrix = S.sign_matrix(range(len(S.cells)))
    for cid, cell in enumerate(S.cells):
        assert cell.signs == S.cell_signs(cid) == tuple(matrix[cid].tolist())
    # a finite cell's signs are the signs of the seed rows and the cuts at any point inside it (its vertex mean)
    for cid in S.finite_cells():
        finite = [S.vertices[i] for i in S.cell_vertices(cid) if S.vertices[i][0]]
        ideal = [S.vertices[i] for i in S.cell_vertices(cid) if not S.vertices[i][0]]
        point = [sum(F(v[k + 1], v[0]) for v in finite) / len(finite) + sum(r[k + 1] for r in ideal) for k in range(2)]
        expected = [sign(affine_value(r, point)) for r in [(0, 1, 0), (0, 0, 1), *rows]]
        assert list(S.cell_signs(cid)) == expected


def test_finite_complex_is_the_finite_cells_read_at_once():
    rng = random.Random(5)
    S = Subdivision.from_arrangement([(1, 1, 0, 0), (0, 0, 1, 0), (0, 1, 1, 1)])
    for row in random_rows(rng, 3, 3):
        S.cut([homogeneous_value(row, v) for v in S.vertices])
    cells, dimensions, facets, vertices, signs = S.finite_complex()
    assert cells == S.finite_cells() == [c for c in range(len(S.cells)) if S.cells[c].finite]
    for i, c in enumerate(cells):
        assert dimensions[i] == S.cells[c].dim
        assert [cells[f] for f in facets[i]] == [f for f in S.cells[c].facets if S.cells[f].finite]
        assert list(vertices[i]) == S.cell_vertices(c)
        assert tuple(signs[i].tolist()) == S.cell_signs(c)
    assert S.finite_f_vector() == tuple(dimensions.count(k) for k in range(4))


def test_polytope_seed_signs_start_every_cells_signs():
    S = Subdivision.from_polytope([(0,), (1,)], [(0, [0], []), (0, [1], []), (1, [0, 1], [0, 1])], signs=[[0, 1], [1, 0], [1, 1]])
    S.cut([2 * x - D for D, x in S.vertices])
    by_point = {}
    for c in S.finite_cells():
        xs = [F(S.vertices[i][1], S.vertices[i][0]) for i in S.cell_vertices(c)]
        by_point[tuple(sorted(xs))] = S.cell_signs(c)
    assert by_point == {
        (F(0),): (0, 1, -1),
        (F(1),): (1, 0, 1),
        (F(1, 2),): (1, 1, 0),
        (F(0), F(1, 2)): (1, 1, -1),
        (F(1, 2), F(1)): (1, 1, 1),
    }


def test_a_cell_cut_again_and_again_is_split_right_after_its_old_vertex_sets_pile_up():
    # A convex 40-gon (the points (i, i^2)) sliced by x = 38.5, 37.5, ..., 0.5: every cut splits the part left of
    # it, with all its vertices, so the cells' outgrown vertex sets soon outnumber the current ones, and are dropped.
    m = 40
    faces = [(0, [i], []) for i in range(m)] + [(1, [i, (i + 1) % m], [i, (i + 1) % m]) for i in range(m)]
    S = Subdivision.from_polytope([(i, i * i) for i in range(m)], faces + [(2, list(range(m)), list(range(m, 2 * m)))])
    cuts = [(-(2 * i + 1), 2, 0) for i in range(m - 2, -1, -1)]  # 2x - (2i + 1): x = i + 1/2
    for row in cuts:
        S.cut([homogeneous_value(row, v) for v in S.vertices])
    k = len(cuts)
    assert S.finite_f_vector() == (m + 2 * k, m + 3 * k, 1 + k)  # each cut: two new vertices, three edges, one polygon
    for cid in S.finite_cells():
        finite = [S.vertices[i] for i in S.cell_vertices(cid)]
        point = [sum(F(v[j + 1], v[0]) for v in finite) / len(finite) for j in range(2)]
        assert list(S.cell_signs(cid)[-k:]) == [sign(affine_value(r, point)) for r in cuts]
