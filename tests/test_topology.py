"""Decision complexes, level sets and the exact homology of subcomplexes (polyrelu.topology).

The decision complex is checked against the network itself (exact forward passes at
relative interior points) and against an independent construction: every cell of the
canonical complex intersected with the polyhedra ``f_s = f_t, f_s >= f_j`` by cdd
directly. The homology is checked against the order complex of the face poset (the
barycentric subdivision, built from sign vectors alone, no orientation): over GF(2) by
the reference's bitmask elimination, and over Z with torsion by Sage's simplicial
homology when passagemath-graphs is installed. Known spaces (a box, a circle, an
annulus, the plane minus a diamond) pin the answers down; the torsion of the Smith
normal form code is checked on chain complexes of RP^2 and the Klein bottle and on
random integer matrices.
"""

import contextlib
import functools
import io
import itertools
import json
import re
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import (
    affine_value,
    closure_rows,
    dd_generators,
    forward,
    gf2_betti_numbers,
    order_complex,
    polygon_area,
    pre_activation_rows,
    rank,
    sign,
    sign_vector,
)

from polyrelu import (
    Box,
    CanonicalComplex,
    ReLUNetwork,
    Subcomplex,
    betti_numbers,
    canonical_complex,
    closure,
    decision_complex,
    homology,
    level_set,
    sublevel_set,
)
from polyrelu.errors import InvalidArgumentError, UsageError
from polyrelu.topology._bounded import bounded_model, clipping_box
from polyrelu.topology._chains import CellularChains
from polyrelu.topology._elimination import integer_reduction, modular_rank

SETTINGS = settings(max_examples=25, deadline=None)

ABS = [[1, 0], [-1, 0], [0, 1], [0, -1]]  # relu(x), relu(-x), relu(y), relu(-y): |x| + |y| in the next layer
# two classes: f_1 = 1 - |x| - |y| wins inside the diamond |x| + |y| < 1
DIAMOND_CLASSIFIER = ReLUNetwork([ABS, [[0, 0, 0, 0], [-1, -1, -1, -1]]], [[0] * 4, [0, 1]])
# f = | |x| + |y| - 2 |: f <= 1 is the annulus 1 <= |x| + |y| <= 3
ANNULUS = ReLUNetwork([ABS, [[1, 1, 1, 1], [-1, -1, -1, -1]], [[1, 1]]], [[0] * 4, [-2, 2], [0]])
MINUS_ANNULUS = ReLUNetwork([ABS, [[1, 1, 1, 1], [-1, -1, -1, -1]], [[-1, -1]]], [[0] * 4, [-2, 2], [0]])


# -- references -----------------------------------------------------------------------------------------
def full_signs(cell):
    return cell.domain_signs + cell.signs


def poset_simplices(X):
    """The order complex of the face poset of ``X``, from the cells' sign vectors only."""
    cells = [X.complex[i] for i in sorted(X.cell_ids)]
    return order_complex([(c.dimension, full_signs(c)) for c in cells])


def sage_homology(X):
    """``(betti, torsion)`` of the order complex of ``X``'s face poset by Sage, degrees ``0 .. n0``.

    With Sage's DHSW elimination: its default over Z (PARI's elementary divisors) drops free
    summands in this passagemath release (an annulus came out with ``H_1 = 0``), so the
    answer is also checked against the Euler characteristic of Sage's own f-vector.
    """
    pytest.importorskip("sage.all__sagemath_graphs")
    from sage.topology.simplicial_complex import SimplicialComplex

    n = X.ambient_dim
    betti, torsion = [0] * (n + 1), [()] * (n + 1)
    simplices = poset_simplices(X)
    if simplices:
        complex_ = SimplicialComplex([list(s) for s in simplices])
        for k, group in complex_.homology(reduced=False, algorithm="dhsw").items():
            invariants = [int(v) for v in group.invariants()]
            betti[k] = invariants.count(0)
            torsion[k] = tuple(sorted(v for v in invariants if v))
        assert sum((-1) ** k * b for k, b in enumerate(betti)) == complex_.euler_characteristic()
    return tuple(betti), tuple(torsion)


def exact_argmax(net, x):
    values = forward(net.weights, net.biases, x)
    best = max(values)
    return frozenset(c for c, v in enumerate(values) if v == best)


def cell_area(cell):
    return polygon_area(cell.polyhedron.vertices())


# -- the cases ------------------------------------------------------------------------------------------
@functools.cache
def decision(name):
    if name == "diamond/box":
        return decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2))
    if name == "diamond/plane":
        return decision_complex(DIAMOND_CLASSIFIER)
    # seeds where every class has a region in the box, and class regions or the boundary have several
    # components or a hole (random/box: class 1's region is an annulus, the boundary has a loop)
    if name == "random/box":
        return decision_complex(ReLUNetwork.random((2, 5, 3), seed=20, kind="gaussian"), Box(-3, 3))
    if name == "random/plane":
        return decision_complex(ReLUNetwork.random((2, 5, 3), seed=20, kind="gaussian"))
    if name == "deep/box":
        return decision_complex(ReLUNetwork.random((2, 4, 4, 3), seed=35, kind="gaussian"), Box(-2, 2))
    if name == "3d/box":
        return decision_complex(ReLUNetwork.random((3, 4, 3), seed=29, kind="gaussian"), Box(-2, 2))
    raise KeyError(name)


@functools.cache
def subcomplex(case):
    """A named subcomplex: ``"<decision case>:<part>"`` or a level / sublevel set."""
    source, _, part = case.partition(":")
    if source == "annulus":
        kind, c, where = part.split("/")
        net = MINUS_ANNULUS if kind == "superlevel" else ANNULUS
        build = level_set if kind == "level" else sublevel_set
        return build(net, Fraction(c), None if where == "plane" else Box(-4, 4))
    D = decision(source)
    if part == "all":
        return Subcomplex(D.complex, range(len(D.complex)))
    if part == "boundary":
        return D.boundary()
    kind, *classes = part.split("/")
    classes = [int(c) for c in classes]
    return D.class_region(*classes) if kind == "region" else D.boundary(*classes)


SAGE_CASES = [
    *(f"{d}:{p}" for d in ("diamond/box", "diamond/plane") for p in ("region/0", "region/1", "boundary", "all")),
    *(f"{d}:{p}" for d in ("random/box", "random/plane") for p in ("region/0", "region/1", "region/2", "boundary", "boundary/0/1")),
    *(f"deep/box:{p}" for p in ("region/0", "region/1", "region/2", "boundary/2")),
    *(f"3d/box:{p}" for p in ("region/0", "region/1", "region/2", "boundary", "all")),
    "annulus:sublevel/1/box",
    "annulus:level/1/box",
    "annulus:sublevel/3/box",
    "annulus:sublevel/1/plane",
    "annulus:level/1/plane",
    "annulus:superlevel/-1/plane",
    "annulus:superlevel/-3/plane",
]


# -- the decision complex -----------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["diamond/box", "random/box", "random/plane", "deep/box", "3d/box"])
def test_labels_are_the_maximal_classes_at_relative_interior_points(name):
    D = decision(name)
    n0 = D.network.architecture.input_dim
    for cell in D.complex:
        truth = exact_argmax(D.network, cell.relative_interior_point())
        assert D.label(cell) == truth, cell
        # generic networks: a region has one class, a cell with two or more lies on the boundary
        if cell.dimension == n0 and name != "diamond/box":
            assert len(truth) == 1, cell
    boundary = {c.id for c in D.complex if len(exact_argmax(D.network, c.relative_interior_point())) >= 2}
    assert D.boundary().cell_ids == boundary
    for c in range(D.classes):
        assert D.class_region(c).cell_ids == {i for i, label in enumerate(D.labels) if c in label}
        assert all(len(D.label(i)) >= 2 for i in D.boundary(c).cell_ids)


def test_a_cell_of_the_boundary_lies_where_two_classes_are_equal_and_maximal():
    D = decision("random/box")
    for cell in D.boundary(0, 1):
        values = forward(D.network.weights, D.network.biases, cell.relative_interior_point())
        assert values[0] == values[1] == max(values)


@pytest.mark.parametrize("name", ["diamond/box", "random/box", "deep/box"])
def test_the_class_regions_cover_the_domain(name):
    D = decision(name)
    union = functools.reduce(lambda X, Y: X | Y, (D.class_region(c) for c in range(D.classes)))
    assert union.cell_ids == set(range(len(D.complex)))
    box_area = polygon_area(D.complex.domain.vertices())
    assert sum(cell_area(r) for r in D.complex.regions()) == box_area
    # regions whose class is unique partition the box (the others have measure zero: none here)
    by_class = [sum(cell_area(D.complex[i]) for i in D.class_region(c).cell_ids if D.complex[i].dimension == 2) for c in range(D.classes)]
    assert sum(by_class) == box_area
    assert union.betti_numbers() == (1, 0, 0) and union.euler_characteristic() == 1


@st.composite
def small_classifiers(draw):
    """Integer networks 2 -> w (-> w') -> 3, degenerate ties allowed."""
    hidden = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
    widths = (2, *hidden, 3)
    values = st.integers(-2, 2)
    weights = [[[draw(values) for _ in range(p)] for _ in range(n)] for p, n in zip(widths, widths[1:])]
    biases = [[draw(values) for _ in range(n)] for n in widths[1:]]
    return ReLUNetwork(weights, biases)


def brute_force_labels(net, K):
    """``{(domain signs, signs, S): dim}`` over the cells τ of K and the sets S of classes maximal somewhere in τ.

    For each τ and S: the polyhedron ``cl τ ∩ {f_s = f_t, f_s >= f_j : s, t ∈ S, j ∉ S}`` (cdd),
    with ``f``'s affine rows on τ from the reference. The set ``{x ∈ relint τ : argmax f(x) = S}``
    is non-empty exactly when the polyhedron's relative interior point (the mean of its
    vertices) lies in it, and then the polyhedron is its closure, of the same dimension.
    Also the area of each class's part of each region.
    """
    m = net.architecture.output_dim
    H = net.architecture.num_hidden
    domain_rows = K.domain.minimal_h_representation()[0]
    weights, biases = list(net.weights), list(net.biases)
    found, areas = {}, [Fraction(0)] * m
    for tau in K:
        outputs = pre_activation_rows(weights + [[[0] * m]], biases + [[0]], tau.signs)[H : H + m]
        base = closure_rows(weights, biases, tau.signs, tau.domain_signs, domain_rows)
        for size in range(1, m + 1):
            for S in itertools.combinations(range(m), size):
                ieqs, eqns = list(base[0]), list(base[1])
                eqns += [tuple(a - b for a, b in zip(outputs[S[0]], outputs[t])) for t in S[1:]]
                ieqs += [tuple(a - b for a, b in zip(outputs[S[0]], outputs[j])) for j in range(m) if j not in S]
                points, rays, _ = dd_generators(ieqs, eqns, 2)
                if not points:
                    continue
                assert not rays  # a box domain
                x = tuple(sum(p[i] for p in points) / len(points) for i in range(2))
                domain_signs = tuple(sign(affine_value(row, x)) for row in domain_rows)
                if (domain_signs, sign_vector(weights, biases, x)) != (tau.domain_signs, tau.signs):
                    continue  # x lies on a face of τ: the set is empty in τ's relative interior
                if exact_argmax(net, x) != frozenset(S):
                    continue
                dim = rank([tuple(a - b for a, b in zip(p, points[0])) for p in points[1:]]) if len(points) > 1 else 0
                found[(tau.domain_signs, tau.signs, frozenset(S))] = dim
                if dim == 2 and size == 1:
                    areas[S[0]] += polygon_area(points)
    return found, areas


@SETTINGS
@given(small_classifiers())
def test_the_decision_complex_agrees_with_a_brute_force_construction(net):
    box = Box(-2, 2)
    K = canonical_complex(net, box)
    expected, expected_areas = brute_force_labels(net, K)
    D = decision_complex(K)
    H = net.architecture.num_hidden
    found = {}
    areas = [Fraction(0)] * 3
    for cell, label in zip(D.complex, D.labels):
        key = (cell.domain_signs, cell.signs[:H], label)
        found[key] = max(found.get(key, -1), cell.dimension)
        if cell.dimension == 2 and len(label) == 1:
            areas[next(iter(label))] += cell_area(cell)
    assert found == expected
    assert areas == expected_areas


def test_a_complex_gives_the_network_and_domain():
    net = ReLUNetwork.random((2, 3, 3), seed=2, kind="gaussian")
    K = canonical_complex(net, Box(-1, 1))
    D, E = decision_complex(K), decision_complex(net, Box(-1, 1))
    assert D.complex == E.complex and D.labels == E.labels and D.network == net
    with pytest.raises(UsageError, match="source is a complex"):
        decision_complex(K, Box(-1, 1))


def test_refusals():
    with pytest.raises(UsageError, match="one output"):
        decision_complex(ANNULUS)
    with pytest.raises(UsageError, match="2 outputs"):
        level_set(DIAMOND_CLASSIFIER, 0)
    D = decision("diamond/box")
    with pytest.raises(UsageError, match="two different classes"):
        D.boundary(1, 1)
    with pytest.raises(UsageError, match="class"):
        D.class_region(2)
    with pytest.raises(InvalidArgumentError, match="source"):
        sublevel_set("net.json", 0)


def test_json_export_holds_the_labels_beside_the_complex(tmp_path):
    D = decision("diamond/box")
    data = D.to_json()
    assert data["format"] == "polyrelu.decision_complex" and data["classes"] == 2 and data["pairs"] == [[0, 1]]
    assert data["labels"] == [sorted(label) for label in D.labels]
    assert CanonicalComplex.from_json(data["complex"]) == D.complex
    D.write_json(tmp_path / "decision.json")
    assert json.loads((tmp_path / "decision.json").read_text()) == json.loads(json.dumps(data))


# -- level and sublevel sets ----------------------------------------------------------------------------
@SETTINGS
@given(st.integers(0, 10**6), st.fractions(-3, 3, max_denominator=4), st.booleans())
def test_level_and_sublevel_sets_hold_exactly_the_cells_where_f_is_c_or_below(seed, c, bounded):
    net = ReLUNetwork.random((2, 3, 2, 1), seed=seed)
    domain = Box(-3, 3) if bounded else None
    level, sub = level_set(net, c, domain), sublevel_set(net, c, domain)
    assert level.complex is not sub.complex  # one complex each, built alike
    assert [c_.signs for c_ in level.complex] == [c_.signs for c_ in sub.complex]
    for cell in sub.complex:
        value = forward(net.weights, net.biases, cell.relative_interior_point())[0]
        assert (cell.id in sub.cell_ids) == (value <= c)
        assert (cell.id in level.cell_ids) == (value == c)


def test_an_annulus_and_its_level_circles():
    assert subcomplex("annulus:sublevel/1/box").betti_numbers() == (1, 1, 0)
    assert subcomplex("annulus:level/1/box").betti_numbers() == (2, 2, 0)  # |x|+|y| = 1 and = 3
    assert subcomplex("annulus:sublevel/3/box").betti_numbers() == (1, 0, 0)  # the diamond |x|+|y| <= 5, clipped
    assert subcomplex("annulus:sublevel/1/plane").betti_numbers() == (1, 1, 0)
    # f >= 1 on the plane: the diamond |x|+|y| <= 1 and the unbounded outside of |x|+|y| < 3
    assert subcomplex("annulus:superlevel/-1/plane").betti_numbers() == (2, 1, 0)
    assert sublevel_set(ANNULUS, -1).betti_numbers() == (0, 0, 0)  # empty


# -- homology: known spaces -----------------------------------------------------------------------------
def test_the_diamond_classifier():
    D = decision("diamond/box")
    assert D.class_region(1).betti_numbers() == (1, 0, 0)  # the closed diamond
    assert D.class_region(0).betti_numbers() == (1, 1, 0)  # the box minus the open diamond
    assert D.boundary().betti_numbers() == (1, 1, 0)  # the diamond's boundary: a circle
    assert D.boundary(1).homology().torsion == ((), (), ())
    P = decision("diamond/plane")
    assert P.class_region(0).betti_numbers() == (1, 1, 0)  # the plane minus the open diamond
    assert P.boundary().euler_characteristic() == 0 and P.class_region(1).euler_characteristic() == 1


@pytest.mark.parametrize("seed", [0, 1])
def test_a_box_and_the_plane_are_contractible(seed):
    net = ReLUNetwork.random((2, 4, 3, 1), seed=seed, kind="gaussian")
    assert homology(canonical_complex(net, Box(-1, 1))).betti == (1, 0, 0)
    assert betti_numbers(canonical_complex(net), field=2) == (1, 0, 0)
    assert betti_numbers(canonical_complex(ReLUNetwork.random((3, 3, 1), seed=seed, kind="gaussian"), Box(-1, 1))) == (1, 0, 0, 0)


@pytest.mark.parametrize("name", ["random/box", "deep/box", "3d/box", "diamond/box"])
def test_euler_characteristic_three_ways(name):
    D = decision(name)
    for X in [D.boundary(), *(D.class_region(c) for c in range(D.classes))]:
        b = X.betti_numbers()
        alternating_cells = sum((-1) ** k * f for k, f in enumerate(X.f_vector()))
        assert X.euler_characteristic() == alternating_cells == sum((-1) ** k * v for k, v in enumerate(b))


def test_the_boundary_of_the_box_is_a_sphere():
    K = canonical_complex(ReLUNetwork.random((3, 2, 1), seed=4, kind="gaussian"), Box(-1, 1))
    sphere = Subcomplex(K, [c for c in K if 0 in c.domain_signs])
    assert sphere.betti_numbers() == (1, 0, 1, 0) and sphere.euler_characteristic() == 2
    square = Subcomplex(canonical_complex(ANNULUS, Box(-4, 4)), [])
    assert square.betti_numbers() == (0, 0, 0) and len(square) == 0


def test_cells_with_a_lineality_space_and_the_line():
    # f_0 = |x|, f_1 = 1 on the plane: every cell contains a vertical line, the minimal cells are lines
    D = decision_complex(ReLUNetwork([[[1, 0], [-1, 0]], [[1, 1], [0, 0]]], [[0, 0], [0, 1]]))
    assert D.complex.f_vector() == (0, 3, 4) and clipping_box(D.complex).lower[0] < -1
    assert D.class_region(0).betti_numbers() == (2, 0, 0)  # two half-planes
    assert D.class_region(1).betti_numbers() == (1, 0, 0)  # the strip |x| <= 1
    assert D.boundary().homology().betti == (2, 0, 0)  # two lines
    for X in (D.class_region(0), D.boundary()):
        assert X.betti_numbers(field=2) == gf2_betti_numbers(poset_simplices(X), 2)
    # |x| - 1 on the line
    f = ReLUNetwork([[[1], [-1]], [[1, 1]]], [[0, 0], [-1]])
    assert sublevel_set(f, 0).betti_numbers() == (1, 0) and level_set(f, 0).betti_numbers() == (2, 0)
    assert sublevel_set(f, 0, Box(-3, 3)).betti_numbers() == (1, 0) and sublevel_set(f, 5, Box(-3, 3)).f_vector() == (3, 2)  # all of [-3, 3], cut at 0


# -- homology: independent references ------------------------------------------------------------------
@pytest.mark.parametrize("case", SAGE_CASES)
def test_betti_numbers_over_gf2_agree_with_the_order_complex(case):
    X = subcomplex(case)
    assert X.betti_numbers(field=2) == gf2_betti_numbers(poset_simplices(X), X.ambient_dim)
    # no torsion in subsets of R^2 and R^3: the same numbers over Q
    assert X.betti_numbers() == X.betti_numbers(field="Q") == X.betti_numbers(field=2) == X.betti_numbers(field=3)


@pytest.mark.parametrize("case", SAGE_CASES)
def test_homology_agrees_with_sage(case):
    X = subcomplex(case)
    assert (X.homology().betti, X.homology().torsion) == sage_homology(X)


@settings(max_examples=15, deadline=None)
@given(st.data())
def test_closures_of_random_cells_agree_with_the_order_complex(data):
    name = data.draw(st.sampled_from(["random/box", "random/plane", "3d/box"]))
    K = decision(name).complex
    cells = data.draw(st.sets(st.integers(0, len(K) - 1), max_size=12))
    X = closure(K, cells)
    assert X.cell_ids == {f for c in cells for f in K.lattice.faces(c)}
    expected = gf2_betti_numbers(poset_simplices(X), X.ambient_dim)
    assert X.betti_numbers(field=2) == X.homology().betti == expected


def test_the_homology_on_the_plane_is_that_on_any_box_holding_every_vertex():
    D = decision("random/plane")
    box = clipping_box(D.complex)
    assert all(all(lo < v < hi for v, lo, hi in zip(c.relative_interior_point(), box.lower, box.upper)) for c in D.complex.cells(0))
    wider = decision_complex(D.network, Box([v - 5 for v in box.lower], [v + 7 for v in box.upper]))
    for c in range(D.classes):
        assert D.class_region(c).homology() == wider.class_region(c).homology()
    assert D.boundary().homology() == wider.boundary().homology()


def test_the_bounded_model_covers_the_plane_part_in_the_box():
    D = decision("random/plane")
    model = bounded_model(D.complex)
    assert model is bounded_model(D.complex)  # built once
    # every cell of the model lies in the cell of the complex it is mapped to
    for cell, image in zip(model.chains.complex, model.image):
        assert D.complex.locate(cell.relative_interior_point()).id == image


# -- orientations ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["random/box", "deep/box", "3d/box"])
def test_the_boundary_of_a_boundary_is_zero(name):
    K = decision(name).complex
    chains = CellularChains(K)
    for sigma in K:
        total = {}
        for tau, s in chains.boundary(sigma.id).items():
            assert s in (1, -1)
            for rho, t in chains.boundary(tau).items():
                total[rho] = total.get(rho, 0) + s * t
        assert not any(total.values()), sigma


def test_regions_of_the_plane_are_bounded_counterclockwise():
    """Outward normal first: with ``e_1, e_2`` on a region, its boundary edges run counterclockwise."""
    K = decision("random/box").complex
    chains = CellularChains(K)
    for region in K.regions():
        center = chains.point(region.id)
        for edge, s in chains.boundary(region.id).items():
            (direction,), _ = chains.orientation(edge)
            middle = chains.point(edge)
            outward = (middle[0] - center[0], middle[1] - center[1])
            assert outward[0] * s * direction[1] - outward[1] * s * direction[0] > 0


# -- the integer elimination ----------------------------------------------------------------------------
def homology_of(boundaries, counts):
    """``(betti, torsion)`` from boundary matrices ``∂_1 .. ∂_n`` (sparse columns) and cell counts."""
    reductions = [integer_reduction(b) for b in boundaries]
    ranks = [0] + [r.rank for r in reductions] + [0]
    return (
        tuple(c - ranks[k] - ranks[k + 1] for k, c in enumerate(counts)),
        tuple(r.torsion for r in reductions) + ((),),
    )


def test_torsion_of_the_projective_plane_and_the_klein_bottle():
    # RP^2: one cell per dimension; the 2-cell's boundary runs twice along the loop a
    assert homology_of([[{}], [{0: 2}]], [1, 1, 1]) == ((1, 0, 0), ((), (2,), ()))
    # Klein bottle: one vertex, loops a and b, the 2-cell glued along a b a^-1 b
    assert homology_of([[{}, {}], [{1: 2}]], [1, 2, 1]) == ((1, 1, 0), ((), (2,), ()))
    assert [modular_rank(b, 2) for b in ([{}, {}], [{1: 2}])] == [0, 0]  # GF(2): b = (1, 2, 1)
    # a block that needs the Smith normal form after the unit pivots
    assert integer_reduction([{0: 1, 1: 1}, {0: 1, 1: 3, 2: 2}, {2: 4, 3: 6}]) == (3, (2, 2))  # minors: gcds 1, 2, 4


matrices = st.integers(1, 5).flatmap(
    lambda rows: st.lists(st.lists(st.integers(-4, 4), min_size=rows, max_size=rows), min_size=1, max_size=5)
)


def columns_of(matrix):
    return [{i: v for i, v in enumerate(column) if v} for column in matrix]


@settings(max_examples=40, deadline=None)
@given(matrices)
def test_integer_reduction_against_the_reference(matrix):
    """Rank over Q and modulo primes by the reference's Gauss-Jordan; the product of the factors by minors."""
    reduction = integer_reduction(columns_of(matrix))
    assert reduction.rank == rank(matrix)
    assert all(a and b % a == 0 for a, b in zip(reduction.torsion, reduction.torsion[1:]))
    for p in (2, 3, 5):
        assert modular_rank(columns_of(matrix), p) == rank(matrix, p)
        # the rank drops modulo p by the number of invariant factors p divides
        assert rank(matrix, p) == reduction.rank - sum(1 for d in reduction.torsion if d % p == 0)


@settings(max_examples=40, deadline=None)
@given(matrices)
def test_integer_reduction_agrees_with_sage(matrix):
    pytest.importorskip("sage.all__sagemath_modules")
    from sage.matrix.constructor import matrix as sage_matrix
    from sage.rings.integer_ring import ZZ

    divisors = [int(d) for d in sage_matrix(ZZ, matrix).elementary_divisors()]  # of the transpose: the same
    reduction = integer_reduction(columns_of(matrix))
    assert reduction == (sum(1 for d in divisors if d), tuple(d for d in divisors if d > 1))


# -- the documentation ----------------------------------------------------------------------------------
def test_the_topology_page_example_prints_what_it_promises():
    text = (Path(__file__).resolve().parents[1] / "docs" / "topology.md").read_text()
    code, printed = re.findall(r"```(?:python)?\n(.*?)```", text, flags=re.S)[:2]
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "topology.md", "exec"), {})
    assert out.getvalue() == printed
