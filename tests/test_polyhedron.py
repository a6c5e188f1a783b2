"""Polyhedron against cdd.gmp computed directly, against known shapes, and against itself (V <-> H).

The reference for dimension and emptiness is the double description of
``cdd.gmp`` (generators, then the affine rank of points, rays and lines,
computed in fractions); implicit equalities come from one exact
``cdd.gmp`` LP per row (``max row_i`` over the set is 0). Both live in
``tests/reference.py``; none of this goes through polyrelu's LP oracle.
"""

import itertools
import math
from fractions import Fraction

import cdd
import cdd.gmp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import (
    affine_value,
    dd_generators,
    dot,
    implicit_rows,
    in_convex_hull,
    polyhedron_dimension,
    rank,
)

from polyrelu.errors import GeometryError, InvalidNumberError, PolyReluError, ShapeError
from polyrelu.geometry import LPOracle, Polyhedron

PROFILE = dict(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)

F = Fraction


# --------------------------------------------------------------------------------------
# random H-representations
# --------------------------------------------------------------------------------------
def random_h(seed, d):
    """Small-integer ieqs/eqns around a random point; some empty, some flat, some unbounded."""
    rng = np.random.default_rng(seed)
    x0 = [F(int(rng.integers(-3, 4)), int(rng.integers(1, 3))) for _ in range(d)]

    def through(a, s):
        b = s - sum(F(int(ai)) * xi for ai, xi in zip(a, x0))
        den = b.denominator
        return (int(b * den), *(int(ai) * den for ai in a))

    def normal():
        while True:
            a = [int(v) for v in rng.integers(-3, 4, d)]
            if any(a):
                return a

    ieqs = [through(normal(), int(rng.integers(0, 4))) for _ in range(int(rng.integers(0, 2 * d + 4)))]
    if rng.random() < 0.5:  # bounded
        for j in range(d):
            e = [int(k == j) for k in range(d)]
            ieqs += [through(e, 2), through([-v for v in e], 2)]
    eqns = [through(normal(), 0) for _ in range(int(rng.integers(0, 3)) if rng.random() < 0.5 else 0)]
    u = rng.random()
    if u < 0.15:  # an implicit equality pair among the inequalities
        r = through(normal(), 0)
        ieqs += [r, tuple(-v for v in r)]
    elif u < 0.3:  # something that may well make it empty
        ieqs.append(tuple(int(v) for v in rng.integers(-4, 5, d + 1)))
        eqns.append(tuple(int(v) for v in rng.integers(-3, 4, d + 1)))
    elif u < 0.35:  # certainly empty
        ieqs.append((-1,) + (0,) * d)
    rng.shuffle(ieqs)
    return ieqs, eqns


@settings(max_examples=200, **PROFILE)
@given(d=st.sampled_from(range(1, 6)), seed=st.integers(0, 2**32 - 1))
def test_dimension_hull_and_interior_point_match_cdd_reference(d, seed):
    ieqs, eqns = random_h(seed, d)
    P = Polyhedron(ieqs=ieqs, eqns=eqns, ambient_dim=d)
    dim = polyhedron_dimension(ieqs, eqns, d)
    assert P.dimension() == dim
    assert P.is_empty() == (dim == -1)
    assert P.is_full_dimensional() == (dim == d)
    if dim == -1:
        assert P.relative_interior_point() is None and P.affine_hull() is None
        assert P.vertices_rays_lines() == ((), (), ())
        return
    hull = P.affine_hull()
    assert hull.dimension == dim
    implicit = implicit_rows(ieqs, eqns, d)
    assert P.implicit_equalities() == implicit
    # the relative interior point
    p = P.relative_interior_point()
    assert len(p) == d and all(isinstance(v, Fraction) for v in p)
    assert P.contains(p) and hull.contains(p) and P.relative_interior_contains(p)
    assert all(affine_value(r, p) == 0 for r in eqns)
    for i, r in enumerate(ieqs):
        if i in implicit:
            assert affine_value(r, p) == 0
        elif any(r[1:]):
            assert affine_value(r, p) > 0, f"row {i} is not implicit but tight at the interior point"
    # the hull is the affine hull: it holds every generator, and has the right dimension
    points, rays, lines = dd_generators(ieqs, eqns, d)
    assert all(hull.contains(q) for q in points)
    for v in rays + lines:
        assert all(dot(e[1:], v) == 0 for e in hull.equations)
    assert len(hull.equations) == d - dim
    assert all(hull.contains(hull.lift(u)) for u in [(0,) * dim, (1,) * dim])
    # generators: points are in P; with no lines, vertices are on the relative boundary when dim >= 1
    for q in points:
        assert P.contains(q)
        if not lines and dim >= 1:
            assert not P.relative_interior_contains(q)
    # a relative interior point built from the generators, and points pushed out of a facet
    if not lines:
        centre = tuple(sum(q[k] for q in points) / len(points) + sum(F(r[k]) for r in rays) for k in range(d))
        assert P.relative_interior_contains(centre)
        for i, r in enumerate(ieqs):
            if i in implicit or not any(r[1:]):
                continue
            norm2 = sum(F(a) ** 2 for a in r[1:])
            out = tuple(c - (affine_value(r, centre) + 1) / norm2 * a for c, a in zip(centre, r[1:]))
            assert affine_value(r, out) == -1
            assert not P.contains(out) and not P.relative_interior_contains(out)


def test_exact_oracle_gives_the_same_decomposition():
    for seed in range(40):
        for d in (2, 3):
            ieqs, eqns = random_h(seed, d)
            a = Polyhedron(ieqs=ieqs, eqns=eqns, ambient_dim=d)
            b = Polyhedron(ieqs=ieqs, eqns=eqns, ambient_dim=d, oracle=LPOracle("exact"))
            assert a.dimension() == b.dimension()
            assert a.implicit_equalities() == b.implicit_equalities()
            assert a.affine_hull() == b.affine_hull()
            assert a == b


# --------------------------------------------------------------------------------------
# known shapes
# --------------------------------------------------------------------------------------
def cube_ieqs(d, lo=0, hi=1):
    rows = []
    for i in range(d):
        e = [int(j == i) for j in range(d)]
        rows.append((-lo, *e))
        rows.append((hi, *(-v for v in e)))
    return rows


def simplex_ieqs(d):
    return [(0, *(int(j == i) for j in range(d))) for i in range(d)] + [(1, *(-1,) * d)]


def cross_vertices(d):
    out = []
    for i in range(d):
        for s in (1, -1):
            out.append(tuple(s * int(j == i) for j in range(d)))
    return out


def test_cube_vertices():
    for d in range(1, 5):
        P = Polyhedron(ieqs=cube_ieqs(d))
        assert P.vertices() == tuple(sorted(tuple(F(v) for v in t) for t in itertools.product((0, 1), repeat=d)))
        assert P.rays() == () and P.lines() == () and P.is_bounded()
        assert P.dimension() == d
        assert P.relative_interior_contains((F(1, 2),) * d)
        for v in P.vertices():
            assert P.contains(v) and not P.relative_interior_contains(v)


def test_simplex_vertices():
    for d in range(1, 6):
        P = Polyhedron(ieqs=simplex_ieqs(d))
        expected = [(F(0),) * d] + [tuple(F(int(j == i)) for j in range(d)) for i in range(d)]
        assert P.vertices() == tuple(sorted(expected))
        assert P.is_bounded() and P.dimension() == d


def test_quadrant():
    P = Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1)])
    assert P.vertices_rays_lines() == (((0, 0),), ((0, 1), (1, 0)), ())
    assert not P.is_bounded() and P.dimension() == 2
    assert P.face_lattice().f_vector() == (1, 2, 1)
    Q = Polyhedron(vertices=[(0, 0)], rays=[(1, 0), (0, 1)])
    assert P == Q and hash(P) == hash(Q)
    assert Polyhedron(rays=[(1, 0), (0, 3)]) == P  # rays only: the origin is the vertex


def test_half_plane_with_a_line():
    P = Polyhedron(ieqs=[(0, 0, 1)])  # y >= 0
    vertices, rays, lines = P.vertices_rays_lines()
    assert len(vertices) == 1 and vertices[0][1] == 0
    assert rays == ((0, 1),) and lines == ((1, 0),)
    assert P.dimension() == 2 and not P.is_bounded()
    assert P == Polyhedron(vertices=[(5, 0)], rays=[(3, 7)], lines=[(-2, 0)])
    L = P.face_lattice()
    assert L.f_vector() == (0, 1, 1)  # minimal faces are lines


def test_whole_space_and_empty():
    W = Polyhedron(ieqs=[], ambient_dim=3)
    vertices, rays, lines = W.vertices_rays_lines()
    assert len(vertices) == 1 and rays == ()
    assert rank(lines) == 3
    assert W.dimension() == 3 and W.minimal_h_representation() == ((), ())
    assert W == Polyhedron(ieqs=[(1, 0, 0, 0), (0, 0, 0, 0)])
    assert W == Polyhedron(lines=[(1, 0, 0), (0, 1, 0), (0, 0, 1)])
    assert W.relative_interior_contains((10**9, -3, F(1, 7)))

    for E in [
        Polyhedron(ieqs=[(-1, 1), (0, -1)]),
        Polyhedron(ieqs=[(-1, 0, 0)]),
        Polyhedron(eqns=[(1, 0, 0)]),
        Polyhedron(ieqs=cube_ieqs(2), eqns=[(-5, 1, 0)]),
        Polyhedron(vertices=[], ambient_dim=2),
    ]:
        assert E.is_empty() and E.dimension() == -1
        assert E.vertices_rays_lines() == ((), (), ())
        assert E.relative_interior_point() is None and E.affine_hull() is None
        assert not E.contains((0,) * E.ambient_dim) and not E.relative_interior_contains((0,) * E.ambient_dim)
        assert len(E.face_lattice()) == 0
        assert E == Polyhedron(ieqs=[(-1,) + (0,) * E.ambient_dim])
    assert Polyhedron(ieqs=[(-1, 0)]) != Polyhedron(ieqs=[(-1, 0, 0)])  # different ambient spaces


def test_lower_dimensional_known_shapes():
    # the diagonal edge of the unit square, given by an inequality pair (implicit) or an equation
    square = cube_ieqs(2)
    a = Polyhedron(ieqs=square + [(0, 1, -1), (0, -1, 1)])
    b = Polyhedron(ieqs=square, eqns=[(0, 2, -2)])
    c = Polyhedron(vertices=[(0, 0), (1, 1)])
    for P in (a, b, c):
        assert P.dimension() == 1
        assert P.vertices() == ((0, 0), (1, 1))
        assert P.relative_interior_contains((F(1, 3), F(1, 3)))
        assert not P.relative_interior_contains((0, 0)) and not P.relative_interior_contains((F(1, 3), F(1, 2)))
    assert a == b == c
    assert a.implicit_equalities() == {4, 5}
    # a single point as the intersection of three half-planes
    pt = Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1), (0, -1, -1)])
    assert pt.dimension() == 0 and pt.relative_interior_point() == (0, 0) and pt.vertices() == ((0, 0),)
    assert pt.relative_interior_contains((0, 0)) and pt.implicit_equalities() == {0, 1, 2}


# --------------------------------------------------------------------------------------
# V <-> H round trips, equality, minimal H-representation
# --------------------------------------------------------------------------------------
def random_points(seed, d, n, box=4):
    rng = np.random.default_rng(seed)
    return [tuple(int(v) for v in rng.integers(-box, box + 1, d)) for _ in range(n)]


@settings(max_examples=60, **PROFILE)
@given(d=st.sampled_from(range(1, 5)), seed=st.integers(0, 2**32 - 1), with_rays=st.booleans())
def test_v_to_h_to_v_round_trip(d, seed, with_rays):
    rng = np.random.default_rng(seed)
    pts = random_points(seed, d, int(rng.integers(1, 3 * d + 3)))
    rays = [r for r in random_points(seed + 1, d, int(rng.integers(1, 3)), box=2) if any(r)] if with_rays else []
    PV = Polyhedron(vertices=pts, rays=rays) if rays else Polyhedron(vertices=pts)
    PH = Polyhedron(ieqs=PV.inequalities, eqns=PV.equations, ambient_dim=d)
    assert PH == PV and hash(PH) == hash(PV)
    assert PH.vertices_rays_lines() == PV.vertices_rays_lines()
    assert PH.dimension() == PV.dimension() == rank([tuple(a - b for a, b in zip(p, pts[0])) for p in pts[1:]] + rays)
    vertices, out_rays, lines = PH.vertices_rays_lines()
    if not rays:
        # the vertices are exactly the input points that are not in the hull of the others
        assert not lines and not out_rays
        distinct = sorted(set(pts))
        extreme = [p for p in distinct if len(distinct) == 1 or not in_convex_hull(p, [q for q in distinct if q != p])]
        assert vertices == tuple(sorted(tuple(F(v) for v in p) for p in extreme))
    # every input generator is in the H-polyhedron
    assert all(PH.contains(p) for p in pts)
    for r in rays:
        assert all(dot(row[1:], r) >= 0 for row in PH.inequalities) and all(dot(e[1:], r) == 0 for e in PH.equations)
    # perturb one vertex outwards (away from the centroid): a different polyhedron, since a
    # vertex of a pointed polyhedron is no convex combination of two other points of it
    centre = tuple(sum(F(p[k]) for p in pts) / len(pts) for k in range(d))
    v = vertices[0]
    if not lines and v != centre:
        moved = tuple(a + F(1, 10) * (a - c) for a, c in zip(v, centre))
        assert not PH.contains(moved)
        kept = [p for p in pts if tuple(F(x) for x in p) != v]
        other = Polyhedron(vertices=[moved] + kept, rays=rays) if rays else Polyhedron(vertices=[moved] + kept)
        assert other != PH and other.contains(moved)
    # same set, redundant H-representation
    noisy = list(PV.inequalities)
    noisy += [tuple(3 * x for x in r) for r in PV.inequalities] + [(r[0] + 5, *r[1:]) for r in PV.inequalities]
    eqs = list(PV.equations) + [tuple(-x for x in e) for e in PV.equations]
    assert Polyhedron(ieqs=noisy, eqns=eqs, ambient_dim=d) == PV


def test_minimal_h_representation_removes_duplicates_and_redundancy():
    clean = cube_ieqs(3)
    noisy = clean + [clean[0], tuple(7 * v for v in clean[1])] + [(5, 1, 0, 0), (10, 1, 1, 1), (3, -1, -1, 0)]
    P = Polyhedron(ieqs=noisy)
    ieqs, eqns = P.minimal_h_representation()
    assert eqns == ()
    assert sorted(ieqs) == sorted(clean)
    assert P == Polyhedron(ieqs=clean)
    # a flat case: the square x + y + z = 1 cut out of the cube, equation given twice and scaled
    flat = Polyhedron(ieqs=clean, eqns=[(-1, 1, 1, 1), (-2, 2, 2, 2)])
    ieqs, eqns = flat.minimal_h_representation()
    assert eqns in {((-1, 1, 1, 1),), ((1, -1, -1, -1),)}
    assert flat.dimension() == 2 and len(ieqs) == 3  # the triangle with vertices e1, e2, e3
    assert flat.vertices() == ((0, 0, 1), (0, 1, 0), (1, 0, 0))
    # every minimal row is a facet: tight on affinely independent vertices spanning dim - 1
    for row in ieqs:
        tight = [v for v in flat.vertices() if affine_value(row, v) == 0]
        assert rank([tuple(a - b for a, b in zip(t, tight[0])) for t in tight[1:]]) == flat.dimension() - 1


@settings(max_examples=40, **PROFILE)
@given(d=st.sampled_from(range(2, 5)), seed=st.integers(0, 2**32 - 1))
def test_minimal_h_rows_are_facets(d, seed):
    rng = np.random.default_rng(seed)
    pts = random_points(seed, d, int(rng.integers(d + 1, 3 * d + 4)))
    P = Polyhedron(vertices=pts)
    ieqs, eqns = P.minimal_h_representation()
    dim = P.dimension()
    vertices = P.vertices()
    assert len(eqns) == d - dim
    for row in ieqs:
        assert all(affine_value(row, v) >= 0 for v in vertices)
        tight = [v for v in vertices if affine_value(row, v) == 0]
        assert tight and rank([tuple(a - b for a, b in zip(t, tight[0])) for t in tight[1:]]) == dim - 1
    assert len(set(ieqs)) == len(ieqs)
    # the number of facets agrees with cdd.gmp's own irredundant H-representation
    mat = cdd.gmp.matrix_from_array([(1, *p) for p in pts], rep_type=cdd.RepType.GENERATOR)
    H = cdd.gmp.copy_inequalities(cdd.gmp.polyhedron_from_matrix(mat))
    facets = [r for i, r in enumerate(H.array) if i not in H.lin_set and any(r[1:])]
    assert len(ieqs) == len(facets)


# --------------------------------------------------------------------------------------
# face lattices
# --------------------------------------------------------------------------------------
def check_lattice(P):
    """Mathematical properties every face lattice of a polytope has."""
    L = P.face_lattice()
    dims = L.dimensions
    vertices = P.vertices()
    assert L.dimension() == P.dimension()
    assert L.euler_characteristic() == 1
    f = L.f_vector()
    assert f[0] == len(vertices) and f[-1] == 1
    if P.dimension() >= 1:
        assert f[-2] == len(P.minimal_h_representation()[0])
    g = L.hasse_diagram()
    assert g.is_dag() and g.vs["dim"] == list(dims)
    for i, j in L.covering_relation():
        assert dims[j] == dims[i] + 1
        vi, vj = set(L.data(i)[0]), set(L.data(j)[0])
        assert vi < vj
    for c in L.cells():
        vs = L.data(c)[0]
        # a k-face has at least k + 1 vertices, affinely spanning dimension k
        pts = [vertices[i] for i in vs]
        assert rank([tuple(a - b for a, b in zip(p, pts[0])) for p in pts[1:]]) == dims[c]
        if dims[c] == 1:
            assert len(vs) == 2
    # diamond property: every interval of length 2 has exactly two middle elements
    # (for edges this is "two vertices"; the empty face is implicit)
    for j in L.cells():
        below2 = {k for i in L.facets(j) for k in L.facets(i)}
        for k in below2:
            middle = [i for i in L.facets(j) if k in L.facets(i)]
            assert len(middle) == 2
    return f


@pytest.mark.parametrize("d", [1, 2, 3, 4])
def test_cube_f_vector(d):
    f = check_lattice(Polyhedron(ieqs=cube_ieqs(d)))
    assert f == tuple(math.comb(d, k) * 2 ** (d - k) for k in range(d + 1))


@pytest.mark.parametrize("d", [1, 2, 3, 4, 5])
def test_simplex_f_vector(d):
    f = check_lattice(Polyhedron(ieqs=simplex_ieqs(d)))
    assert f == tuple(math.comb(d + 1, k + 1) for k in range(d + 1))


@pytest.mark.parametrize("d", [2, 3, 4])
def test_cross_polytope_f_vector(d):
    f = check_lattice(Polyhedron(vertices=cross_vertices(d)))
    assert f == tuple(2 ** (k + 1) * math.comb(d, k + 1) for k in range(d)) + (1,)


@settings(max_examples=40, **PROFILE)
@given(d=st.sampled_from(range(2, 5)), seed=st.integers(0, 2**32 - 1))
def test_random_polytope_face_lattice(d, seed):
    rng = np.random.default_rng(seed)
    pts = random_points(seed, d, int(rng.integers(d + 1, 2 * d + 5)))
    P = Polyhedron(vertices=pts)
    f = check_lattice(P)
    # edges agree with cdd.gmp's vertex adjacency (an independent double-description output)
    if P.dimension() == d and d >= 2:
        vertices = P.vertices()
        mat = cdd.gmp.matrix_from_array([(1, *v) for v in vertices], rep_type=cdd.RepType.GENERATOR)
        adjacency = cdd.gmp.copy_input_adjacency(cdd.gmp.polyhedron_from_matrix(mat))
        edges = sum(len(a) for a in adjacency) // 2
        assert f[1] == edges


def test_unbounded_face_lattice():
    # a pointed cone in R^3 with 4 extreme rays: apex, 4 rays, 4 two-faces, the cone
    cone = Polyhedron(rays=[(1, 0, 1), (0, 1, 1), (-1, 0, 1), (0, -1, 1)])
    L = cone.face_lattice()
    assert L.f_vector() == (1, 4, 4, 1)
    assert L.hasse_diagram().is_dag()
    for i, j in L.covering_relation():
        assert L.dimensions[j] == L.dimensions[i] + 1


# --------------------------------------------------------------------------------------
# bad input
# --------------------------------------------------------------------------------------
def test_mixing_h_and_v_is_rejected():
    with pytest.raises(GeometryError, match="not both"):
        Polyhedron(ieqs=[(0, 1)], vertices=[(0,)])
    with pytest.raises(GeometryError):
        Polyhedron(eqns=[(0, 1)], rays=[(1,)])


@pytest.mark.parametrize(
    "kwargs, where",
    [
        (dict(ieqs=[(0, 1, 0), (0, float("nan"), 1)]), r"ieqs\[1\]\[1\]"),
        (dict(ieqs=[(0, 1)], eqns=[(float("inf"), 1)]), r"eqns\[0\]\[0\]"),
        (dict(vertices=[(0, 0), (1, float("nan"))]), r"vertices\[1\]\[1\]"),
        (dict(vertices=[(0, 0)], rays=[("nan", 1)]), r"rays\[0\]\[0\]"),
        (dict(ieqs=[(0, None)]), r"ieqs\[0\]\[1\]"),
    ],
)
def test_invalid_numbers_name_the_entry(kwargs, where):
    with pytest.raises(InvalidNumberError, match=where):
        Polyhedron(**kwargs)


@pytest.mark.parametrize(
    "kwargs, where",
    [
        (dict(ieqs=[(0, 1, 0), (0, 1)]), r"ieqs\[1\]"),
        (dict(vertices=[(0, 0), (1, 2, 3)]), r"vertices\[1\]"),
        (dict(ieqs=[(0, 1, 0)], eqns=[(0, 1)]), r"ambient dimension"),
        (dict(vertices=[(0, 0)], rays=[(1,)]), r"ambient dimension"),
        (dict(ieqs=[(0, 1, 0)], ambient_dim=3), r"ambient dimension"),
    ],
)
def test_ragged_rows_raise_shape_error(kwargs, where):
    with pytest.raises(ShapeError, match=where):
        Polyhedron(**kwargs)


def test_other_bad_input():
    with pytest.raises(GeometryError, match="ambient_dim"):
        Polyhedron(ieqs=[])
    with pytest.raises(GeometryError):
        Polyhedron(ieqs=[(1,)])  # ambient dimension 0
    P = Polyhedron(ieqs=cube_ieqs(2))
    with pytest.raises(ShapeError, match="x"):
        P.contains((0, 0, 0))
    with pytest.raises(InvalidNumberError):
        P.contains((0, float("nan")))
    # every error is a PolyReluError and a ValueError
    for exc in (GeometryError, InvalidNumberError, ShapeError):
        assert issubclass(exc, PolyReluError) and issubclass(exc, ValueError)


def test_exact_input_conversion():
    # floats are converted exactly, strings accepted, and the set does not depend on the spelling
    a = Polyhedron(ieqs=[(0.5, -1), (0, 1)])
    b = Polyhedron(ieqs=[("1/2", -1), ("0", "1")])
    assert a == b and a.vertices() == ((0,), (F(1, 2),))
    c = Polyhedron(ieqs=[(0.1, -1), (0, 1)])  # 0.1 is a dyadic rational, not 1/10
    assert c.vertices()[1] == (F(0.1),) and c != Polyhedron(ieqs=[("1/10", -1), (0, 1)])


# --------------------------------------------------------------------------------------
# trusted construction
# --------------------------------------------------------------------------------------
def test_from_trusted_answers_from_what_it_was_given_and_computes_the_rest_on_demand():
    square = Polyhedron(vertices=[(0, 0), (0, 1), (1, 0), (1, 1)])
    calls = []

    def given(name, value):
        def compute():
            calls.append(name)
            return value

        return compute

    trusted = Polyhedron.from_trusted(
        2,
        h_representation=given("h", (square.inequalities, square.equations)),
        minimal_h_representation=given("minimal", square.minimal_h_representation()),
        relative_interior_point=given("point", (F(1, 3), F(1, 2))),
    )
    assert calls == []  # nothing is computed before it is asked for
    assert trusted.relative_interior_point() == (F(1, 3), F(1, 2)) and trusted.dimension() == 2
    assert trusted.vertices() == square.vertices()  # not given: double description of the given rows
    assert trusted == square and trusted.implicit_equalities() == frozenset()
    assert trusted.contains([1, 1]) and not trusted.contains([2, 0])
    assert sorted(calls) == ["h", "minimal", "point"]  # each callable once


def test_from_trusted_believes_contradicting_representations_as_documented():
    # the V-side says a triangle, the H-side a square: each query answers from the side it reads
    square = Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1), (1, -1, 0), (1, 0, -1)])
    triangle = Polyhedron(vertices=[(0, 0), (0, 1), (1, 0)])
    liar = Polyhedron.from_trusted(
        2, h_representation=(square.inequalities, ()), vertices_rays_lines=triangle.vertices_rays_lines()
    )
    assert liar.vertices() == triangle.vertices() and liar.contains([1, 1])
    assert liar == square and liar != triangle


@settings(max_examples=200, deadline=None, derandomize=True)
@given(
    d=st.integers(1, 5),
    rows=st.lists(st.lists(st.integers(-4, 4), min_size=6, max_size=6), max_size=6),
    repeat=st.booleans(),
)
def test_echelon_equations_are_the_affine_hulls_equations(d, rows, repeat):
    """The fraction-free echelon rows are those of AffineSubspace (flint's rref), inconsistency included."""
    from polyrelu.geometry import AffineSubspace
    from polyrelu.geometry.affine import echelon_equations

    rows = [tuple(r[: d + 1]) for r in rows]
    if repeat and rows:
        rows.append(tuple(-3 * v for v in rows[0]))  # a dependent row
    hull = AffineSubspace.from_equations(rows, d)
    assert echelon_equations(rows, d) == (None if hull is None else hull.equations)
