"""Tests of the canonical polyhedral complex (docs/design.md §2, §8).

Everything here is checked against mathematics computed independently of
``polyrelu.complex``: pre-activation formulas and network values are
recomputed by ``tests/reference.py`` with ``Fraction`` arithmetic from ``net.weights``
and ``net.biases``; sign classes are decided there by exact ``cdd.gmp`` LPs;
face counts come from the hyperplane arrangement formulas; the exported
representations are re-read by SageMath (passagemath) when it is installed.
"""

import gc
import inspect
import itertools
import json
import math
import random
import re
from fractions import Fraction as F

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import (
    affine_value,
    apply_affine,
    brute_force_cells,
    closure_rows,
    euler_characteristic,
    forward,
    in_closure,
    pre_activation_rows,
    rank,
    sign_vector,
)

from polyrelu import (
    Box,
    CanonicalComplex,
    ComplexTooLargeError,
    GeometryError,
    InvalidArgumentError,
    NetworkFormatError,
    Polyhedron,
    ReLUNetwork,
    ShapeError,
    UsageError,
    canonical_complex,
    estimate_cells,
)
from polyrelu.examples import bent_line_network, seeded_gaussian_network
from polyrelu.schemas import schema as load_schema

# Construction methods to cross-check (the default one first); older code has only one.
METHODS = ["lattice", "lp"] if "method" in inspect.signature(canonical_complex).parameters else [None]

HYPOTHESIS = dict(derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])


# -----------------------------------------------------------------------------------------
# Checks every complex must pass
# -----------------------------------------------------------------------------------------
def check_counts(K, domain):
    """The Euler characteristic and the f-vector of a complex, against the cells and the topology.

    A complex covering R^n0 has Euler characteristic (-1)^n0 (cells are open, R^n0 is one
    open n0-cell); one covering a polytope has 1.
    """
    n0 = K.network.architecture.input_dim
    expected = (-1) ** n0 if domain is None else 1
    assert euler_characteristic(c.dimension for c in K) == expected, (K.network, domain, K.f_vector())
    assert K.euler_characteristic() == expected
    f = K.f_vector()
    assert len(f) == n0 + 1 and sum(f) == len(K)
    assert all(f[d] == sum(c.dimension == d for c in K) for d in range(n0 + 1))


def build(net, domain=None, **kw):
    """``canonical_complex`` plus :func:`check_counts`."""
    K = canonical_complex(net, domain, **kw)
    check_counts(K, domain)
    return K


# -----------------------------------------------------------------------------------------
# Networks
# -----------------------------------------------------------------------------------------
def net(*layers):
    """A network from ``(W, b)`` pairs, the last one the affine output."""
    return ReLUNetwork.from_layers(layers)


DEGENERATE = {
    # parallel first-layer hyperplanes x1 = 0, 1, -2 and one transversal line
    "parallel": net(([[1, 0], [1, 0], [-1, 0], [0, 1]], [0, -1, -2, 0]), ([[1, 1, 1, 1]], [0])),
    # three coincident hyperplanes (two orientations), a fourth line, then a second layer
    "coincident": net(
        ([[1, 1], [2, 2], [-1, -1], [1, -1]], [0, 0, 0, 1]),
        ([[1, 1, 0, -1], [1, -2, 0, 0]], [0, 0]),
        ([[1, 1]], [0]),
    ),
    # dead (0x - 1), vanishing everywhere (0x + 0), a line, always active (0x + 2)
    "zero rows": net(([[0, 0], [0, 0], [1, -1], [0, 0]], [-1, 0, 0, 2]), ([[1, 1, 1, 1]], [-1]), ([[1]], [0])),
    # five lines through the origin, then a second-layer neuron through it too
    "pencil": net(([[1, 0], [0, 1], [1, 1], [1, -1], [1, 2]], [0] * 5), ([[1, -1, 1, 0, 0]], [0]), ([[1]], [0])),
    # four planes through the origin in R^3, one more elsewhere, a second layer through the origin
    "pencil 3d": net(
        ([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, -1, 0]], [0, 0, 0, 0, 1]),
        ([[1, 1, -1, 0, 0]], [0]),
        ([[1]], [0]),
    ),
    # z3 = relu(x1) - relu(x2) vanishes on the negative quadrant; z4 = relu(x1) on a half-plane;
    # z5 = relu(z3) - relu(z4) in a third layer
    "vanishing": net(
        ([[1, 0], [0, 1]], [0, 0]),
        ([[1, -1], [1, 0]], [0, 0]),
        ([[1, -1]], [0]),
        ([[1]], [0]),
    ),
    # second-layer zero sets coincide with first-layer lines: relu(x1) - 1 = 0 is x1 = 1
    "bent onto first layer": net(
        ([[1, 0], [0, 1], [1, 0]], [0, 0, -1]),
        ([[1, 0, 0], [1, 1, -1], [0, 1, 0]], [-1, 0, 0]),
        ([[1, 1, 1]], [0]),
    ),
    # composition of identities: later neurons vanish on quadrants
    "identity stack": net(([[1, 0], [0, 1]], [0, 0]), ([[1, 0], [0, 1]], [0, 0]), ([[1, 0], [0, 1]], [0, 0]), ([[1, 1]], [0])),
    # relu(relu(x)) in R^1: the second neuron vanishes on x <= 0
    "relu relu 1d": net(([[1]], [0]), ([[1]], [0]), ([[1]], [0])),
    # every neuron dead: one region, all of R^3, described by lines only
    "all dead 3d": net(([[0, 0, 0], [0, 0, 0]], [-1, -2]), ([[1, 1]], [0])),
    # a rank-one first layer in R^3 (cells have a 2-dimensional lineality space)
    "rank one 3d": net(([[1, 2, -1], [-2, -4, 2], [1, 2, -1]], [0, 1, -3]), ([[1, 1, -1]], [1]), ([[1]], [0])),
    # no hidden layer at all: f is affine, one cell
    "affine 3d": net(([[1, 2, 3]], [4])),
    # degenerate R^4: a zero row, parallel hyperplanes and a vanishing second layer
    "degenerate 4d": net(
        ([[1, 0, 0, 0], [1, 0, 0, 0], [0, 0, 0, 0], [0, 1, 1, 0]], [0, -1, 0, 0]),
        ([[1, -1, 0, 0], [0, 0, 1, 1]], [0, 0]),
        ([[1, 1]], [0]),
    ),
}

RANDOM = {
    f"random {arch} seed={seed}": ReLUNetwork.random(arch, seed=seed, bound=2)
    for arch, seed in [
        ((1, 3, 2, 2, 1), 0),
        ((1, 4, 3, 1), 1),
        ((2, 4, 1), 0),
        ((2, 3, 3, 1), 0),
        ((2, 2, 2, 2, 1), 3),
        ((3, 3, 2, 1), 1),
        ((3, 2, 2, 2, 1), 4),
        ((4, 3, 2, 1), 0),
        ((4, 2, 2, 1, 1), 2),
    ]
}

NETWORKS = {"bent line": bent_line_network(), **DEGENERATE, **RANDOM}

_CACHE = {}


def complex_of(name, domain=None, method=None):
    """The complex of ``NETWORKS[name]``, built once, and :func:`check_counts` on every call.

    The checks run in every test that asks, not only in the one that happens to build the
    complex first: no test's assertions depend on the order the tests run in.
    """
    key = (name, domain, method)
    if key not in _CACHE:
        kw = {} if method is None else {"method": method}
        _CACHE[key] = canonical_complex(NETWORKS[name], domain, **kw)
    check_counts(_CACHE[key], domain)
    return _CACHE[key]


TRIANGLE = Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1), (1, -1, -1)])  # x, y >= 0, x + y <= 1: two edges on axes
SIMPLEX_3D = Polyhedron(ieqs=[(1, 1, 0, 0), (1, 0, 1, 0), (1, 0, 0, 1), (2, -1, -1, -1)])

DOMAIN_CASES = [
    ("bent line", Box(-2, 2)),
    ("bent line", Box((-1, "1/2"), (3, 1))),  # box edges through vertices and along x2 = 1
    ("bent line", TRIANGLE),
    ("pencil", Box(-1, 1)),
    ("coincident", TRIANGLE),
    ("zero rows", Box(0, 1)),
    ("vanishing", Box(-1, 1)),
    ("relu relu 1d", Box(-3, 2)),
    ("relu relu 1d", Box(0, 2)),  # the breakpoint is a domain vertex
    ("pencil 3d", SIMPLEX_3D),
    ("all dead 3d", Box(-1, 1)),
    ("random (3, 3, 2, 1) seed=1", SIMPLEX_3D),
    ("random (4, 3, 2, 1) seed=0", Box(-1, 1)),
]


# -----------------------------------------------------------------------------------------
# Euler characteristic
# -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(NETWORKS))
def test_euler_characteristic_whole_space(name):
    complex_of(name)


@pytest.mark.parametrize("name,domain", DOMAIN_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(DOMAIN_CASES)])
def test_euler_characteristic_polytope_domain(name, domain):
    K = complex_of(name, domain)
    assert all(c.polyhedron.is_bounded() for c in K)


def test_no_hidden_layer_is_one_region():
    """An affine network (depth 0): the whole space is one cell."""
    K = build(net(([[1, 2, 3]], [4])))
    assert K.f_vector() == (0, 0, 0, 1)
    assert K.regions()[0].polyhedron == Polyhedron(ieqs=[], ambient_dim=3)


def test_domain_cells_cover_domain_faces():
    """With no neuron cutting it, the complex on a polytope is the polytope's own face lattice."""
    K = complex_of("all dead 3d", Box(-1, 1))
    assert K.f_vector() == (8, 12, 6, 1)
    K = complex_of("pencil 3d", SIMPLEX_3D)
    assert K.f_vector()[0] > 4


# -----------------------------------------------------------------------------------------
# Hyperplane arrangements in general position
# -----------------------------------------------------------------------------------------
def general_position(rows, d):
    """Exact check: any m <= d normals are independent and any d + 1 hyperplanes have no common point."""
    for m in range(1, min(len(rows), d) + 1):
        for S in itertools.combinations(rows, m):
            if rank([r[1:] for r in S]) < m:
                return False
    for S in itertools.combinations(rows, d + 1):
        if rank(S) < d + 1:
            return False
    return True


def arrangement_f_vector(k, d):
    return tuple(
        math.comb(k, d - j) * sum(math.comb(k - d + j, i) for i in range(j + 1)) if d - j <= k else 0
        for j in range(d + 1)
    )


@pytest.mark.parametrize("d", [1, 2, 3, 4])
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5, 6, 7])
def test_general_position_arrangement_counts(d, k):
    rng = random.Random(1000 * d + k)
    while True:
        rows = [tuple(rng.randint(-4, 4) for _ in range(d + 1)) for _ in range(k)]
        if general_position(rows, d):
            break
    network = net(([r[1:] for r in rows], [r[0] for r in rows]), ([[1] * k], [0]))
    K = build(network)
    expected = arrangement_f_vector(k, d)
    assert K.f_vector() == expected
    assert len(K.regions()) == sum(math.comb(k, i) for i in range(d + 1))
    # hand-checked values of the formula itself
    assert arrangement_f_vector(2, 2) == (1, 4, 4) and arrangement_f_vector(3, 2) == (3, 9, 7)
    assert arrangement_f_vector(3, 3) == (1, 6, 12, 8) and arrangement_f_vector(1, 3) == (0, 0, 1, 2)


# -----------------------------------------------------------------------------------------
# Brute force: every sign vector by exact LP
# -----------------------------------------------------------------------------------------
def check_against_brute_force(network, K, domain_rows=()):
    expected = brute_force_cells(network.weights, network.biases, domain_rows)
    got = {(c.domain_signs, c.signs): c.dimension for c in K}
    assert len(got) == len(K), "two cells share a sign vector"
    assert got == expected
    n0 = network.architecture.input_dim
    assert K.f_vector() == tuple(sum(v == d for v in expected.values()) for d in range(n0 + 1))
    for c in K:
        # the cell's polyhedron is the closure of its sign class (formulas from this file)
        ieqs, eqns = closure_rows(network.weights, network.biases, c.signs, c.domain_signs, domain_rows)
        assert c.polyhedron == Polyhedron(ieqs=ieqs, eqns=eqns, ambient_dim=n0)
        assert c.polyhedron.dimension() == c.dimension


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name", list(NETWORKS))
def test_brute_force_whole_space(name, method):
    check_against_brute_force(NETWORKS[name], complex_of(name, method=method))


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("name,domain", DOMAIN_CASES[:8], ids=[f"{n}-{i}" for i, (n, _) in enumerate(DOMAIN_CASES[:8])])
def test_brute_force_polytope_domain(name, domain, method):
    K = complex_of(name, domain, method)
    rows = domain.polyhedron(NETWORKS[name].architecture.input_dim).minimal_h_representation()[0] if isinstance(
        domain, Box
    ) else domain.minimal_h_representation()[0]
    assert [tuple(r) for r in K._domain_rows] == [tuple(r) for r in rows]
    check_against_brute_force(NETWORKS[name], K, rows)


@st.composite
def small_networks(draw, max_hidden=6):
    n0 = draw(st.integers(1, 4))
    depth = draw(st.integers(1, 3))
    widths, left = [], max_hidden
    for l in range(depth):
        w = draw(st.integers(1, min(3, left - (depth - l - 1))))
        widths.append(w)
        left -= w
    arch = (n0, *widths, 1)
    D = sum(n * (p + 1) for p, n in zip(arch, arch[1:]))
    theta = draw(st.lists(st.integers(-2, 2), min_size=D, max_size=D))
    return ReLUNetwork.from_parameters(arch, theta)


@settings(max_examples=40, **HYPOTHESIS)
@given(small_networks())
def test_brute_force_random_small_networks(network):
    for method in METHODS:
        kw = {} if method is None else {"method": method}
        check_against_brute_force(network, build(network, **kw))


@settings(max_examples=10, **HYPOTHESIS)
@given(small_networks(max_hidden=4), st.integers(1, 3))
def test_brute_force_random_small_networks_in_box(network, half_width):
    n0 = network.architecture.input_dim
    domain = Box(-half_width, half_width)
    K = build(network, domain)
    check_against_brute_force(network, K, domain.polyhedron(n0).minimal_h_representation()[0])


def test_methods_agree():
    """The construction methods give the same complex (cells, dimensions, covering relation)."""
    if len(METHODS) < 2:
        pytest.skip("one construction method only")
    for name in ["bent line", "coincident", "vanishing", "random (3, 3, 2, 1) seed=1"]:
        Ks = [complex_of(name, method=m) for m in METHODS]
        assert all(K == Ks[0] for K in Ks)


# -----------------------------------------------------------------------------------------
# locate
# -----------------------------------------------------------------------------------------
def random_point(rng, n, scale=6):
    return tuple(F(rng.randint(-scale * 8, scale * 8), rng.randint(1, 8)) for _ in range(n))


def special_points(network, K, rng):
    """Points on purpose on hyperplanes, at vertices and on lower-dimensional cells."""
    n0 = network.architecture.input_dim
    points = [c.relative_interior_point() for c in K]
    for c in K:
        vertices, rays, _ = c.polyhedron.vertices_rays_lines()
        points.extend(vertices)
        points.extend(tuple(v + r for v, r in zip(vertices[0], ray)) for ray in rays)
        if c.dimension == 1 and len(vertices) == 2:
            points.append(tuple((2 * a + b) / 3 for a, b in zip(*vertices)))
    for row in pre_activation_rows(network.weights, network.biases, ())[: network.architecture.hidden_widths[0]]:
        normal = row[1:]
        if not any(normal):
            continue
        for _ in range(20):
            x = random_point(rng, n0)
            t = affine_value(row, x) / sum(a * a for a in normal)
            points.append(tuple(v - t * a for v, a in zip(x, normal)))
    return points


LOCATE_CASES = ["bent line", "pencil", "vanishing", "zero rows", "coincident", "relu relu 1d", "rank one 3d"]
LOCATE_CASES += ["random (2, 3, 3, 1) seed=0", "random (3, 3, 2, 1) seed=1", "random (4, 3, 2, 1) seed=0"]


@pytest.mark.parametrize("name", LOCATE_CASES)
def test_locate(name):
    network = NETWORKS[name]
    K = complex_of(name)
    n0 = network.architecture.input_dim
    rng = random.Random(name)
    closures = {c.id: closure_rows(network.weights, network.biases, c.signs) for c in K}
    special = special_points(network, K, rng)
    points = special + [random_point(rng, n0) for _ in range(1000)]
    for i, x in enumerate(points):
        c = K.locate(x)
        signs, value = sign_vector(network.weights, network.biases, x), forward(network.weights, network.biases, x)
        assert c.signs == signs
        assert c.polyhedron.relative_interior_contains(x)
        assert c.dimension == n0 - rank([r[1:] for r in closures[c.id][1]])
        if i < len(special) + 100:
            # x lies in the closure of exactly the cells above its own cell
            containing = {d.id for d in K if in_closure(closures[d.id], x)}
            assert containing == {d.id for d in K.cofaces(c)}
            for R in K.cofaces(c):
                if R.dimension == n0:
                    A, b = K.affine_map(R)
                    assert apply_affine(A, b, x) == value
    # the special points hit every cell
    assert {K.locate(x).id for x in special} == {c.id for c in K}


@pytest.mark.parametrize("name,domain", [DOMAIN_CASES[1], DOMAIN_CASES[2], DOMAIN_CASES[12]], ids=["box", "triangle", "box4d"])
def test_locate_in_polytope_domain(name, domain):
    network = NETWORKS[name]
    K = complex_of(name, domain)
    n0 = network.architecture.input_dim
    rows = K._domain_rows
    dom = Polyhedron(ieqs=rows, ambient_dim=n0)
    rng = random.Random(name)
    lo = [min(v[i] for v in dom.vertices()) for i in range(n0)]
    hi = [max(v[i] for v in dom.vertices()) for i in range(n0)]
    points = [c.relative_interior_point() for c in K] + [v for c in K for v in c.polyhedron.vertices()]
    while len(points) < 1000 + len(K):
        x = tuple(a + (b - a) * F(rng.randint(0, 24), 24) for a, b in zip(lo, hi))
        if dom.contains(x):
            points.append(x)
    for x in points:
        c = K.locate(x)
        assert c.signs == sign_vector(network.weights, network.biases, x)
        assert c.domain_signs == tuple(int(affine_value(r, x) > 0) for r in rows)
        assert c.polyhedron.relative_interior_contains(x)
    outside = tuple(h + 1 for h in hi)
    with pytest.raises(GeometryError):
        K.locate(outside)


# -----------------------------------------------------------------------------------------
# Structure of the complex
# -----------------------------------------------------------------------------------------
STRUCTURE_CASES = [(n, None) for n in NETWORKS] + DOMAIN_CASES


def _ids(cases):
    return [f"{n}-{'R^n' if d is None else i}" for i, (n, d) in enumerate(cases)]


@pytest.mark.parametrize("name", list(NETWORKS))
def test_codimension_one_cells_lie_in_two_regions(name):
    network = NETWORKS[name]
    K = complex_of(name)
    n0 = network.architecture.input_dim
    regions = K.regions()
    closures = {R.id: closure_rows(network.weights, network.biases, R.signs) for R in regions}
    # R^n0 is connected: with two regions or more, some two of them meet in a facet
    assert bool(K.cells(n0 - 1)) == (len(regions) > 1)
    for c in K.cells(n0 - 1):
        up = K.lattice.cofacets(c.id)
        assert len(up) == 2 and all(K[j].dimension == n0 for j in up)
        p = c.relative_interior_point()
        assert {R.id for R in regions if in_closure(closures[R.id], p)} == set(up)


def _faces_as_polyhedra(P):
    vertices, rays, lines = P.vertices_rays_lines()
    faces = set()
    L = P.face_lattice()
    for i in range(len(L)):
        vi, ri = L.data(i)
        Q = Polyhedron(
            vertices=[vertices[j] for j in vi], rays=[rays[j] for j in ri], lines=list(lines), ambient_dim=P.ambient_dim
        )
        assert Q.dimension() == L.dimension(i)
        faces.add(Q.minimal_h_representation())
    return faces


FACE_CASES = [case for case in STRUCTURE_CASES if case != DOMAIN_CASES[12]]


@pytest.mark.parametrize(
    "name,domain",
    FACE_CASES + [pytest.param(*DOMAIN_CASES[12], marks=pytest.mark.slow)],  # ~10 s; the 3-d simplex case is faster
    ids=_ids(FACE_CASES) + ["random 4d in a box"],
)
def test_faces_of_cells_are_cells(name, domain):
    """The faces of every cell's polyhedron are exactly the cells below it in the lattice."""
    K = complex_of(name, domain)
    by_h = {c.polyhedron.minimal_h_representation(): c.id for c in K}
    assert len(by_h) == len(K), "two cells with the same polyhedron"
    for c in K:
        faces = _faces_as_polyhedra(c.polyhedron)
        assert faces <= set(by_h), "a face of a cell is not a cell"
        assert {by_h[f] for f in faces} == {d.id for d in K.faces(c)}


@pytest.mark.parametrize("name,domain", STRUCTURE_CASES, ids=_ids(STRUCTURE_CASES))
def test_lattice_representations_agree_with_cdd(name, domain):
    """The lattice method's V-representation and minimal H-representation equal cdd.gmp's, cell by cell.

    cdd recomputes both from the cell's raw constraint rows by double description
    and canonicalization, which share nothing with the lattice code.
    """
    K = complex_of(name, domain)
    for cell in K:
        lattice_side = cell.polyhedron
        cdd_side = Polyhedron(ieqs=lattice_side.inequalities, eqns=lattice_side.equations, ambient_dim=lattice_side.ambient_dim)
        assert cdd_side.dimension() == cell.dimension
        assert lattice_side.vertices_rays_lines() == cdd_side.vertices_rays_lines()
        assert lattice_side.minimal_h_representation() == cdd_side.minimal_h_representation()
        assert cdd_side.relative_interior_contains(lattice_side.relative_interior_point())


@pytest.mark.parametrize("name,domain", STRUCTURE_CASES, ids=_ids(STRUCTURE_CASES))
def test_covering_relation_is_graded(name, domain):
    K = complex_of(name, domain)
    covering = K.lattice.covering_relation()
    assert bool(covering) == (len(K) > 1)  # a complex of several cells has a cell on the boundary of another
    for i, j in covering:
        tau, sigma = K[i], K[j]
        assert sigma.dimension == tau.dimension + 1
        # s(τ)_k ∈ {s(σ)_k, 0}, and τ is a proper part of the boundary of σ
        assert all(a in (b, 0) for a, b in zip(tau.signs + tau.domain_signs, sigma.signs + sigma.domain_signs))
        p = tau.relative_interior_point()
        assert sigma.polyhedron.contains(p) and not sigma.polyhedron.relative_interior_contains(p)
    g = K.to_igraph()
    assert g.is_dag() and g.ecount() == len(covering) and g.vcount() == len(K)
    assert list(g.vs["signs"]) == [c.sign_string for c in K]
    nxg = K.to_networkx()
    assert nxg.number_of_edges() == len(covering)
    # the lattice is graded: every maximal chain from a cell down to a minimal cell has length = dimension drop
    bottom = min(c.dimension for c in K)
    for c in K:
        if not K.lattice.facets(c.id):
            assert c.dimension == bottom


@pytest.mark.parametrize("name,domain", STRUCTURE_CASES, ids=_ids(STRUCTURE_CASES))
def test_vertices_are_zero_cells(name, domain):
    K = complex_of(name, domain)
    zero_cells = {c.relative_interior_point(): c.id for c in K.cells(0)}
    line_spaces = {c.polyhedron.lines() for c in K}
    assert len(line_spaces) == 1, "cells of a complex covering R^n share one lineality space"
    lines = line_spaces.pop()
    if lines:
        assert not zero_cells
        return
    assert zero_cells, "without lines every cell is pointed, so it has a vertex"
    all_vertices = set()
    for c in K:
        for v in c.polyhedron.vertices():
            assert v in zero_cells and K.locate(v).id == zero_cells[v]
            assert K[zero_cells[v]] in K.faces(c)
            all_vertices.add(v)
    assert all_vertices == set(zero_cells)


@pytest.mark.parametrize("name,domain", STRUCTURE_CASES, ids=_ids(STRUCTURE_CASES))
def test_relative_interior_point_has_the_cell_signs(name, domain):
    network = NETWORKS[name]
    K = complex_of(name, domain)
    for c in K:
        p = c.relative_interior_point()
        assert sign_vector(network.weights, network.biases, p) == c.signs
        assert c.polyhedron.relative_interior_contains(p)
        assert tuple(int(affine_value(r, p) > 0) for r in K._domain_rows) == c.domain_signs


def test_queries_on_bent_line():
    K = complex_of("bent line")
    assert K.f_vector() == (3, 9, 7)
    origin = K.locate([0, 0])
    assert origin.dimension == 0 and origin.sign_string == "00-"
    assert {c.sign_string for c in K.cofaces(origin) if c.dimension == 2} == {"---", "-+-", "+--", "++-"}
    region = K.locate([5, 5])
    assert set(K.faces(region)) >= {K.locate([1, 0]), K.locate([0, 1]), K.locate(["1/2", "1/2"])}
    assert len(K.faces(region)) == 1 + 3 + 2  # the region, 2 rays and a segment, 2 vertices
    assert set(K.star(origin)) == {f for c in K.cofaces(origin) for f in K.faces(c)}
    assert all(c.dimension == 2 for c in K.regions()) and len(K.regions()) == 7


# -----------------------------------------------------------------------------------------
# Affine maps
# -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name,domain", STRUCTURE_CASES, ids=_ids(STRUCTURE_CASES))
def test_affine_maps(name, domain):
    network = NETWORKS[name]
    K = complex_of(name, domain)
    exported = {c["id"]: c.get("affine_map") for c in _json_of(name, domain)["cells"]}
    for R in K.regions():
        A, b = K.affine_map(R)
        vertices, rays, _ = R.polyhedron.vertices_rays_lines()
        points = [R.relative_interior_point(), *vertices, *(tuple(v + r for v, r in zip(vertices[0], ray)) for ray in rays)]
        for x in points:  # f is affine on the closed region
            assert apply_affine(A, b, x) == forward(network.weights, network.biases, x)
        assert exported[R.id] == {"A": [[_q(v) for v in row] for row in A], "b": [_q(v) for v in b]}
    assert all(exported[c.id] is None for c in K if c.dimension < network.architecture.input_dim)


# -----------------------------------------------------------------------------------------
# Bent hypersurfaces
# -----------------------------------------------------------------------------------------
def _polys(cells):
    return {c.polyhedron for c in cells}


def test_bent_hypersurface_of_the_worked_example():
    K = complex_of("bent line")
    B = K.bent_hypersurface(2, 0)
    assert sorted(c.dimension for c in B) == [0, 0, 1, 1, 1]
    assert _polys(c for c in B if c.dimension == 1) == {
        Polyhedron(vertices=[(1, 0)], rays=[(0, -1)]),  # x1 = 1, x2 <= 0
        Polyhedron(vertices=[(1, 0), (0, 1)]),  # x1 + x2 = 1 between the two
        Polyhedron(vertices=[(0, 1)], rays=[(-1, 0)]),  # x2 = 1, x1 <= 0
    }
    assert {c.relative_interior_point() for c in B if c.dimension == 0} == {(1, 0), (0, 1)}
    assert all(c.signs[2] == 0 for c in B)
    # first layer: the axis x1 = 0, cut at (0, 0) and (0, 1)
    B1 = K.bent_hypersurface(1, 0)
    assert sorted(c.dimension for c in B1) == [0, 0, 1, 1, 1]
    assert all(c.polyhedron.minimal_h_representation()[1][0] == (0, 1, 0) for c in B1)


def test_bent_hypersurface_empty_where_a_neuron_never_changes_sign():
    K = complex_of("relu relu 1d")  # z2 = relu(x) >= 0 vanishes on x <= 0
    assert K.bent_hypersurface(2, 0) == ()
    assert [c.relative_interior_point() for c in K.bent_hypersurface(1, 0)] == [(0,)]
    Z = complex_of("zero rows")  # dead, vanishing everywhere, a line, always active
    assert Z.bent_hypersurface(1, 0) == () and Z.bent_hypersurface(1, 1) == () and Z.bent_hypersurface(1, 3) == ()
    assert len(Z.bent_hypersurface(1, 2)) >= 1
    V = complex_of("vanishing")
    # z = relu(x1) - relu(x2): only the ray x1 = x2 >= 0, not the boundary of the quadrant where z = 0
    assert _polys(V.bent_hypersurface(2, 0)) == {
        Polyhedron(vertices=[(0, 0)], rays=[(1, 1)]),
        Polyhedron(vertices=[(0, 0)]),
    }
    assert V.bent_hypersurface(2, 1) == ()  # relu(x1) never negative
    with pytest.raises(ShapeError):
        V.bent_hypersurface(4, 0)


@pytest.mark.parametrize("name", [n for n in NETWORKS if NETWORKS[n].architecture.input_dim >= 2])
def test_bent_hypersurfaces_by_definition(name):
    """A facet with z = 0 is bent iff the two regions around it have strict opposite signs of z."""
    network = NETWORKS[name]
    K = complex_of(name)
    n0 = network.architecture.input_dim
    regions = K.regions()
    closures = {R.id: closure_rows(network.weights, network.biases, R.signs) for R in regions}
    bent = set()
    for k, (l, i) in enumerate(network.architecture.hidden_neurons()):
        B = {c.id for c in K.bent_hypersurface(l, i)}
        expected = set()
        for facet in K.cells(n0 - 1):
            if facet.signs[k] != 0:
                continue
            p = facet.relative_interior_point()
            sides = {R.signs[k] for R in regions if in_closure(closures[R.id], p)}
            if sides == {1, -1}:
                expected |= {f.id for f in K.faces(facet)}
        assert B == expected
        assert all(K[j].signs[k] == 0 for j in B)
        bent |= B
    # every facet is bent: the first neuron whose sign differs between its two regions has the
    # same formula on both, so it is strictly positive on one and strictly negative on the other
    assert bent >= {c.id for c in K.cells(n0 - 1)}


# -----------------------------------------------------------------------------------------
# JSON
# -----------------------------------------------------------------------------------------
def _q(v):
    v = F(v)
    return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"


_JSON = {}


def _json_of(name, domain=None):
    """The complex's export as plain JSON data: a fresh copy on every call, so no test sees another's changes."""
    if (name, domain) not in _JSON:
        _JSON[(name, domain)] = json.dumps(complex_of(name, domain).to_json(version=1))
    return json.loads(_JSON[(name, domain)])


@pytest.fixture(scope="module")
def validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = load_schema("complex")
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema, format_checker=jsonschema.FormatChecker())


JSON_CASES = [(n, None) for n in ["bent line", "relu relu 1d", "pencil 3d", "degenerate 4d", "all dead 3d", "rank one 3d", "affine 3d"]]
JSON_CASES += [("affine 3d", Box(-1, 1))]
JSON_CASES += [(n, None) for n in RANDOM if "(3," in n or "(2, 3" in n] + DOMAIN_CASES[:3] + DOMAIN_CASES[9:11]


@pytest.mark.parametrize("name,domain", JSON_CASES, ids=_ids(JSON_CASES))
def test_json_validates_and_round_trips(name, domain, validator, tmp_path):
    K = complex_of(name, domain)
    data = _json_of(name, domain)
    errors = sorted(validator.iter_errors(data), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors[:5]]
    # content checks against the mathematics, not the writer
    n0 = K.network.architecture.input_dim
    assert data["ambient_dim"] == n0 and data["f_vector"] == list(K.f_vector())
    assert data["euler_characteristic"] == ((-1) ** n0 if domain is None else 1)
    assert [tuple(p) for p in data["neurons"]] == list(K.network.architecture.hidden_neurons())
    for entry, c in zip(data["cells"], K, strict=True):
        assert all(len(r) == n0 for k in ("vertices", "rays", "lines", "relative_interior_point") for r in (
            entry[k] if k != "relative_interior_point" else [entry[k]]))
        assert all(len(r) == n0 + 1 for k in ("ieqs", "eqns") for r in entry[k])
        assert len(entry["eqns"]) == n0 - entry["dim"]
        x = tuple(F(v) for v in entry["relative_interior_point"])
        assert sign_vector(K.network.weights, K.network.biases, x) == c.signs and entry["signs"] == c.sign_string
        for v in entry["vertices"]:
            v = tuple(F(t) for t in v)
            assert all(affine_value([F(t) for t in r], v) >= 0 for r in entry["ieqs"])
            assert all(affine_value([F(t) for t in r], v) == 0 for r in entry["eqns"])
    # round trips: dict, text, path (str and Path)
    text = json.dumps(data)
    path = tmp_path / "complex.json"
    K.write_json(path, version=1)
    for source in (data, text, str(path), path):
        K2 = CanonicalComplex.from_json(source)
        assert K2 == K
        assert K2.f_vector() == K.f_vector() and K2.euler_characteristic() == K.euler_characteristic()
        for a, b in zip(K, K2, strict=True):
            assert a.polyhedron == b.polyhedron
            assert a.polyhedron.vertices_rays_lines() == b.polyhedron.vertices_rays_lines()
    K2 = CanonicalComplex.from_json(text)
    again = K2.to_json(version=1)
    for e1, e2 in zip(again["cells"], data["cells"], strict=True):
        p = e1.pop("relative_interior_point")
        e2 = {k: v for k, v in e2.items() if k != "relative_interior_point"}
        assert e1 == e2
        assert sign_vector(K.network.weights, K.network.biases, [F(v) for v in p]) == K[e1["id"]].signs
    assert {k: v for k, v in again.items() if k != "cells"} == {k: v for k, v in data.items() if k != "cells"}
    assert all(K2.locate(c.relative_interior_point()).id == c.id for c in K)


def test_json_equality_can_fail():
    K = complex_of("bent line")
    assert K != complex_of("bent line", Box(-2, 2))
    assert K != complex_of("pencil")
    data = _json_of("bent line")
    data["covering"] = data["covering"][1:]
    assert CanonicalComplex.from_json(data, trusted=True) != K
    with pytest.raises(NetworkFormatError, match="covering relation lacks"):
        CanonicalComplex.from_json(data)


def _mutations():
    def setter(path, value):
        def mutate(d):
            obj = d
            for key in path[:-1]:
                obj = obj[key]
            obj[path[-1]] = value

        return mutate

    def deleter(path):
        def mutate(d):
            obj = d
            for key in path[:-1]:
                obj = obj[key]
            del obj[path[-1]]

        return mutate

    return {
        "float vertex": setter(("cells", 0, "vertices", 0, 0), 0.5),
        "decimal string": setter(("cells", 0, "vertices", 0, 0), "0.5"),
        "non-canonical fraction": setter(("cells", 0, "vertices", 0, 0), "2/1"),
        "zero denominator": setter(("cells", 0, "vertices", 0, 0), "1/0"),
        "fractional ray": setter(("cells", 5, "rays", 0, 0), "1/2"),
        "bad sign": setter(("cells", 0, "signs"), "0x-"),
        "bad domain sign": setter(("cells", 0, "domain_signs"), "-"),
        "extra top-level key": setter(("weights",), []),
        "extra cell key": setter(("cells", 0, "color"), "red"),
        "missing covering": deleter(("covering",)),
        "missing eqns": deleter(("cells", 0, "eqns")),
        "wrong format": setter(("format",), "polyrelu.network"),
        "wrong version": setter(("version",), 3),
        "version 2 with version 1 cells": setter(("version",), 2),
        "covering triple": setter(("covering", 0), [0, 1, 2]),
        "negative dim": setter(("cells", 0, "dim"), -1),
        "domain without ieqs": setter(("domain",), {}),
        "network extra key": setter(("network", "activation"), "tanh"),
        "affine map without b": setter(("cells", 12, "affine_map"), {"A": [["1", "0"]]}),
    }


@pytest.mark.parametrize("mutation", list(_mutations()))
def test_schema_rejects(mutation, validator):
    data = _json_of("bent line")
    assert validator.is_valid(data)
    _mutations()[mutation](data)
    assert not validator.is_valid(data)


def _cell(i, key, value):
    def mutate(d):
        d["cells"][i][key] = value
        return d

    return mutate


BAD_DOCUMENTS = {
    "invalid JSON text": lambda d: "{bad",
    "JSON array": lambda d: "[1, 2]",
    "a network": lambda d: json.dumps(d["network"]),
    "no format": lambda d: {"version": 1},
    "other version": lambda d: {**d, "version": 3},
    "version 2 with version 1 cells": lambda d: {**d, "version": 2},
    "missing cells": lambda d: {k: v for k, v in d.items() if k != "cells"},
    "missing network": lambda d: {k: v for k, v in d.items() if k != "network"},
    "cells not a list": lambda d: {**d, "cells": 5},
    "cell not an object": lambda d: {**d, "cells": [5]},
    "wrong id": _cell(0, "id", 3),
    "bad sign character": _cell(0, "signs", "0x-"),
    "short sign string": _cell(0, "signs", "0"),
    "bad number": _cell(0, "ieqs", [["nan", "1", "1"]]),
    "zero denominator": _cell(0, "ieqs", [["1/0", "1", "1"]]),
    "fractional ray": _cell(5, "rays", [["1/2", "1"]]),
    "short row": _cell(0, "eqns", [["1"]]),
    "short vertex": _cell(0, "vertices", [["1"]]),
    "negative dimension": _cell(0, "dim", -1),
    "dimension too large": _cell(0, "dim", 3),
    "ungraded covering": lambda d: {**d, "covering": [[0, 0]]},
    "covering out of range": lambda d: {**d, "covering": [[0, 100]]},
    "domain not an object": lambda d: {**d, "domain": 5},
    "domain rows of the wrong length": lambda d: {**d, "domain": {"ieqs": [["1", "1"]]}},
    "bad network layer": lambda d: (d["network"]["layers"][0].__setitem__("biases", [0]), d)[1],
}


@pytest.mark.parametrize("doc", list(BAD_DOCUMENTS))
def test_malformed_json_raises_network_format_error(doc):
    bad = BAD_DOCUMENTS[doc](_json_of("bent line"))
    with pytest.raises(NetworkFormatError):
        CanonicalComplex.from_json(bad)


# -----------------------------------------------------------------------------------------
# Sage cross-check
# -----------------------------------------------------------------------------------------
SAGE_CASES = [("bent line", None), ("pencil", None), ("vanishing", None), ("rank one 3d", None), ("all dead 3d", None)]
SAGE_CASES += [("pencil 3d", None), ("random (3, 3, 2, 1) seed=1", None), ("random (4, 2, 2, 1, 1) seed=2", None)]
SAGE_CASES += [DOMAIN_CASES[1], DOMAIN_CASES[2], DOMAIN_CASES[9]]


@pytest.mark.parametrize("name,domain", SAGE_CASES, ids=_ids(SAGE_CASES))
def test_sage_rebuilds_every_exported_cell(name, domain):
    pytest.importorskip("sage.all__sagemath_polyhedra")
    from sage.all__sagemath_polyhedra import QQ
    from sage.all__sagemath_polyhedra import Polyhedron as SagePolyhedron

    K = complex_of(name, domain)
    data = _json_of(name, domain)
    n = data["ambient_dim"]

    def rows(rs):
        return [[QQ(v) for v in r] for r in rs]

    unbounded = 0
    for entry, c in zip(data["cells"], K, strict=True):
        P_V = SagePolyhedron(
            vertices=rows(entry["vertices"]), rays=rows(entry["rays"]), lines=rows(entry["lines"]), base_ring=QQ, ambient_dim=n
        )
        P_H = SagePolyhedron(ieqs=rows(entry["ieqs"]), eqns=rows(entry["eqns"]), base_ring=QQ, ambient_dim=n)
        assert P_V == P_H, (name, entry["id"])
        assert P_V.dim() == P_H.dim() == entry["dim"] == c.dimension
        assert P_H.relative_interior_contains([QQ(v) for v in entry["relative_interior_point"]])
        # Sage counts the empty face first, then faces by dimension 0, 1, ..., with zeros
        # below the lineality dimension, as our face lattice (non-empty faces, from dimension 0)
        ours = c.polyhedron.face_lattice().f_vector()
        assert tuple(int(v) for v in P_H.f_vector()) == (1,) + tuple(ours)
        assert P_H.n_lines() == len(entry["lines"])
        if not entry["lines"]:
            assert {tuple(v) for v in P_H.vertices_list()} == {tuple(QQ(t) for t in v) for v in entry["vertices"]}
            assert P_H.n_rays() == len(entry["rays"])
            assert P_H.n_facets() == len(entry["ieqs"])
        unbounded += not P_H.is_compact()
    assert (unbounded > 0) == (domain is None)


# -----------------------------------------------------------------------------------------
# Bad input
# -----------------------------------------------------------------------------------------
BAD_DOMAINS = {
    "empty": Polyhedron(ieqs=[(-1, 1, 0), (0, -1, 0)]),  # x1 >= 1 and x1 <= 0
    "unbounded": Polyhedron(ieqs=[(0, 1, 0)]),
    "lower-dimensional": Polyhedron(ieqs=[(0, 1, 0), (1, -1, 0)], eqns=[(0, 0, 1)]),
    "wrong dimension": Polyhedron(ieqs=[(0, 1), (1, -1)]),
    "wrong dimension box": Box([0, 0, 0], [1, 1, 1]),
}


@pytest.mark.parametrize("which", list(BAD_DOMAINS))
def test_bad_domains(which):
    with pytest.raises(GeometryError):
        canonical_complex(bent_line_network(), BAD_DOMAINS[which])


def test_flat_box():
    with pytest.raises(GeometryError, match=re.escape("lower[1] = 0 is not below upper[1] = 0")):
        Box([0, 0], [1, 0])


def test_not_a_network_or_not_a_domain():
    with pytest.raises(InvalidArgumentError, match="canonical_complex: net must be a ReLUNetwork, got str '2-2-1'"):
        canonical_complex("2-2-1")
    with pytest.raises(InvalidArgumentError, match="canonical_complex: domain must be None, a Box, a Polyhedron"):
        canonical_complex(bent_line_network(), "box:-1,1")
    with pytest.raises(UsageError, match="max_cells"):
        canonical_complex(bent_line_network(), max_cells=0)


def test_too_large_default_max_cells():
    big = ReLUNetwork.random((4, 60, 60, 60, 1), seed=0)
    with pytest.raises(ComplexTooLargeError) as info:
        canonical_complex(big)
    assert info.value.estimate > 1_000_000 and f"{info.value.estimate:,}" in str(info.value)
    with pytest.raises(ComplexTooLargeError):
        canonical_complex(big, Box(-10, 10))


@pytest.mark.parametrize("max_cells", [10, 150, 1000])
def test_too_large_small_max_cells(max_cells):
    network = ReLUNetwork.random((2, 8, 8, 8, 1), seed=0)
    with pytest.raises(ComplexTooLargeError) as info:
        canonical_complex(network, max_cells=max_cells)
    assert info.value.estimate > max_cells
    assert f"{max_cells:,}" in str(info.value)


@pytest.mark.parametrize(
    "widths, domain, method",
    [
        ((2, 8, 8, 1), None, "lattice"),
        ((3, 8, 8, 1), None, "lattice"),
        ((2, 16, 16, 16, 1), None, "lattice"),
        ((3, 6, 6, 6, 1), None, "lattice"),
        ((2, 12, 12, 1), Box(-2, 2), "lattice"),
        # the reference method has its own sampler (splitting sampled open cells with LPs)
        ((2, 8, 8, 1), None, "lp"),
        ((2, 12, 12, 1), Box(-2, 2), "lp"),
    ],
    ids=str,
)
def test_cell_estimate_within_three_times_the_true_count(widths, domain, method):
    net = seeded_gaussian_network(widths)
    estimate, lower_bound, margin = estimate_cells(net, domain, method=method)
    true = len(canonical_complex(net, domain, method=method))
    assert not lower_bound
    assert true / 3 <= estimate <= 3 * true, (estimate, true)
    assert true <= estimate + 2 * margin  # the margin is a standard-error bound, not decoration


def test_first_layer_estimate_is_the_arrangement_count():
    # 20 lines in general position in the plane: 1 + 2·20 + 4·190 cells
    net = seeded_gaussian_network((2, 20, 1))
    assert estimate_cells(net) == (801, False, 0) and len(canonical_complex(net)) == 801
    # inside a box, only the crossings that fall inside count
    boxed, _, _ = estimate_cells(net, Box(-1, 1))
    true = len(canonical_complex(net, Box(-1, 1)))
    assert true / 3 <= boxed <= 3 * true and true < 801


def test_hidden_widths_at_most_the_input_width_are_refused_quickly():
    # the old growth factor was 1 when width <= n0: this ran past 120 s and 4 GB
    net = seeded_gaussian_network((10, 10, 10, 1))
    with pytest.raises(ComplexTooLargeError, match="layer 2") as info:
        canonical_complex(net)
    assert info.value.estimate > 1_000_000


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n0=st.integers(2, 3),
    widths=st.lists(st.integers(2, 6), min_size=1, max_size=3),
    seed=st.integers(0, 10**6),
)
def test_the_guard_refuses_exactly_when_the_estimate_is_over_the_limit(n0, widths, seed):
    net = ReLUNetwork.random((n0, *widths, 1), seed=seed, kind="gaussian")
    true = len(canonical_complex(net))
    estimate = estimate_cells(net).cells
    assert true / 3 <= estimate <= 3 * true
    assert len(canonical_complex(net, max_cells=3 * true)) == true  # never refused far below the limit
    if true >= 30:
        with pytest.raises(ComplexTooLargeError):
            canonical_complex(net, max_cells=true // 3)


def test_domain_given_as_inequality_rows():
    triangle = [(0, 1, 0), (0, 0, 1), (3, -1, -1)]  # x, y >= 0, x + y <= 3
    net = bent_line_network()
    K = canonical_complex(net, triangle)
    assert K == canonical_complex(net, Polyhedron(ieqs=triangle))
    assert K.euler_characteristic() == 1
    # the triangle's corners (0,0), (3,0), (0,3) and the bent line's vertices (1,0), (0,1) on its edges
    corners = {c.polyhedron.vertices()[0] for c in K.cells(0)}
    assert {(F(0), F(0)), (F(3), F(0)), (F(0), F(3)), (F(1), F(0)), (F(0), F(1))} == corners
    with pytest.raises(GeometryError, match="unbounded"):
        canonical_complex(net, [(0, 1, 0)])


def test_a_build_leaves_the_garbage_collector_as_it_found_it_with_its_objects_out_of_the_youngest_generation():
    net = ReLUNetwork.random((3, 8, 8, 1), seed=0, kind="gaussian")
    assert gc.isenabled()
    collections = []
    gc.collect()  # the youngest generation empty: the few allocations before the build starts trigger nothing
    gc.callbacks.append(record := lambda phase, info: collections.append(info["generation"]) if phase == "start" else None)
    try:
        K = canonical_complex(net)
    finally:
        gc.callbacks.remove(record)
    # none during the build, and none when it ends: its objects were moved out of the youngest generation
    assert len(K) > 1000 and collections == [] and gc.get_freeze_count() == 0 and gc.isenabled()
    gc.freeze()  # objects frozen by the caller stay frozen
    try:
        frozen = gc.get_freeze_count()
        canonical_complex(net)
        # still frozen (a few may have been freed since): a gc.unfreeze would have released all of them
        assert gc.get_freeze_count() > frozen // 2 and gc.isenabled()
    finally:
        gc.unfreeze()
    gc.disable()  # and a disabled collector stays disabled
    try:
        canonical_complex(net)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_the_guard_refuses_a_layer_just_past_the_limit():
    # a case where the sampled lower bound used to be truncated down to max_cells exactly and let the layer pass
    net = ReLUNetwork.random((3, 5, 3, 1), seed=1553, kind="gaussian")
    true = len(canonical_complex(net))
    with pytest.raises(ComplexTooLargeError):
        canonical_complex(net, max_cells=true // 3)


# -----------------------------------------------------------------------------------------
# Exact signs from floats, and exact maps from integers
# -----------------------------------------------------------------------------------------
def homogeneous_points(net, rng, count):
    """Integer homogeneous points ``(D, X)``: random ones at every scale, ideal ones, and the complex's vertices."""
    n0 = net.architecture.input_dim
    points = []
    for _ in range(count):
        scale = F(10) ** rng.randint(-30, 30)
        x = [F(rng.randint(-1000, 1000), 1000) * scale for _ in range(n0)]
        den = math.lcm(*(v.denominator for v in x))
        points.append((den, *(int(v * den) for v in x)))
        points.append((0, *(rng.randint(-5, 5) or 1 for _ in range(n0))))
    for c in canonical_complex(net).cells(0):
        (v,) = c.polyhedron.vertices()
        den = math.lcm(*(x.denominator for x in v))
        points.append((den, *(int(x * den) for x in v)))  # on the zero sets of n0 neurons: values that are 0
    return points


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("kind", ["gaussian", "integer"])
def test_float_screen_decides_only_signs_it_certifies(kind, seed):
    """Where the float value clears its error bound, its sign is the exact one; zeros are never decided."""
    from polyrelu.complex._screen import FloatScreen as _FloatScreen
    from polyrelu.complex._screen import IntegerNetwork as _IntegerNetwork

    net = ReLUNetwork.random((2, 4, 3, 1), seed=seed, kind=kind)
    rng = random.Random(seed)
    points = homogeneous_points(net, rng, 60)
    screen, exact = _FloatScreen(net), _IntegerNetwork(net)
    assert screen.usable
    decided = undecided = zeros = 0
    for layer in (1, 2):
        z, e = screen(points, layer)
        for point, floats, bounds, values in zip(points, z.tolist(), e.tolist(), exact(points, layer)):
            for f, b, v in zip(floats, bounds, values):
                if v == 0:
                    zeros += 1
                    assert not abs(f) > b, (point, f, b)
                elif abs(f) > b:
                    decided += 1
                    assert (f > 0) - (f < 0) == (v > 0) - (v < 0), (point, f, b, v)
                else:
                    undecided += 1
    assert zeros and decided > 10 * undecided  # the floats decide nearly every non-zero value


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["gaussian", "integer"])
@pytest.mark.parametrize("screened", [True, False])
def test_second_layer_values_from_the_first_layers_signs_are_the_forward_pass(kind, seed, screened):
    """The second layer's exact values, summed over the first layer's positive neurons, at points on its zero sets too."""
    from types import SimpleNamespace

    from polyrelu.complex._screen import FloatScreen as _FloatScreen
    from polyrelu.complex._screen import IntegerNetwork as _IntegerNetwork
    from polyrelu.complex._screen import LayerValues as _LayerValues

    net = ReLUNetwork.random((2, 7, 5, 1), seed=seed, kind=kind)  # 7 first-layer neurons: a block of 4 and one of 3
    points = homogeneous_points(net, random.Random(seed), 30)
    evaluate = _IntegerNetwork(net)
    screen = _FloatScreen(net) if screened else SimpleNamespace(usable=False)  # unscreened: every sign exact
    values = _LayerValues(SimpleNamespace(vertices=points), evaluate, screen, 2, 7)
    expected = evaluate(points, 2)
    for j in range(5):
        assert values.exact(j, range(len(points))) == [v[j] for v in expected]


def test_float_screen_leaves_a_tiny_value_to_exact_arithmetic():
    """A point 10^-40 off a zero set: the float value is within its bound, so exact arithmetic decides."""
    from polyrelu.complex._screen import FloatScreen as _FloatScreen

    net = ReLUNetwork([[[1, F(1, 3)]], [[1]]], [[F(-1, 7)], [0]])
    # on x + y/3 = 1/7 with x = 0, moved by 10^-40 in x: the exact value is 10^-40
    x = F(1, 10**40)
    y = 3 * (F(1, 7) - x) + 3 * x  # so that x + y/3 - 1/7 = x
    den = math.lcm(x.denominator, y.denominator)
    z, e = _FloatScreen(net)([(den, int(x * den), int(y * den))], 1)
    assert not abs(z[0, 0]) > e[0, 0]


def test_complexes_agree_with_and_without_the_float_screen():
    """Weights beyond the float screen's range turn it off: every sign is then exact, and the complex the same."""
    from polyrelu.complex._screen import FloatScreen as _FloatScreen

    base = ReLUNetwork.random((2, 3, 3, 1), seed=2)
    huge = F(2) ** 950
    # the same zero sets, the first neuron's row scaled by 2^950 and the next layer's column by 2^-950
    W1 = [[v * huge for v in base.weights[0][0]], *base.weights[0][1:]]
    b1 = [base.biases[0][0] * huge, *base.biases[0][1:]]
    W2 = [[row[0] / huge, *row[1:]] for row in base.weights[1]]
    scaled = ReLUNetwork([W1, W2, base.weights[2]], [b1, base.biases[1], base.biases[2]])
    assert _FloatScreen(base).usable and not _FloatScreen(scaled).usable
    K, L = canonical_complex(base), canonical_complex(scaled)
    assert [(c.signs, c.dimension) for c in K] == [(c.signs, c.dimension) for c in L]
    assert K.lattice.covering_relation() == L.lattice.covering_relation()
    assert L == canonical_complex(scaled, method="lp")


@pytest.mark.parametrize(
    ("weight", "usable"),
    [(F(2) ** 900, True), (F(2) ** 900 + F(1, 10**300), False), (F(1, 2**900), True), (F(1, 2**900 + 1), False),
     (-F(2) ** 900, True), (F(-3, 7), True), (0, True)],
)
def test_the_float_screen_is_used_exactly_for_weights_within_two_to_the_plus_minus_900(weight, usable):
    from polyrelu.complex._screen import FloatScreen as _FloatScreen

    assert _FloatScreen(ReLUNetwork([[[weight, 1]], [[1]]], [[0], [0]])).usable is usable


@pytest.mark.parametrize("shape", [(2, 3, 1), (3, 4, 3, 2), (2, 3, 2, 3, 1), (2, 1)])
def test_pattern_maps_are_the_networks_maps_in_integers(shape):
    from polyrelu.complex import PatternMaps
    from polyrelu.geometry import primitive_integer_row

    net = ReLUNetwork.random(shape, seed=7, kind="gaussian")
    maps = PatternMaps(net)
    widths = net.architecture.hidden_widths
    for c in canonical_complex(net):
        A, b = net.affine_map(c.signs)
        A_num, b_num = maps.affine_map(c.signs)
        assert [[F(v, maps.scale) for v in row] for row in A_num] == [list(row) for row in A]
        assert [F(v, maps.scale) for v in b_num] == list(b)
        rows = [row for layer in range(1, len(widths) + 1) for row in maps.layer_rows(c.signs, layer)]
        assert [primitive_integer_row(r) for r in rows] == list(net.pre_activation_rows(c.signs))
        for layer in range(1, len(widths) + 1):
            for index, row in enumerate(maps.layer_rows(c.signs, layer)):
                assert maps.gradient(c.signs, layer, index) == row[1:]
    K = canonical_complex(net)
    across = 0
    for facet in K.cells(net.architecture.input_dim - 1):
        if len(K.lattice.cofacets(facet.id)) != 2:
            continue
        a, b = (K[r].signs for r in K.lattice.cofacets(facet.id))
        zeros = [k for k, s in enumerate(facet.signs) if s == 0]
        jump = maps.jacobian_jump(a, b, zeros)
        if jump is not None:  # the regions differ in the last hidden layer only
            across += 1
            assert jump == tuple(tuple(y - x for x, y in zip(ra, rb)) for ra, rb in zip(maps.affine_map(a)[0], maps.affine_map(b)[0]))
    assert across or not widths
