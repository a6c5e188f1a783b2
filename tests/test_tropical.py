"""Tropical weights of facets: exact values, balancing, invariance (docs/design.md §3)."""

import math
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from reference import forward, pre_activation_rows

from polyrelu import Box, GeometryError, ReLUNetwork, canonical_complex, permute, scale
from polyrelu.examples import bent_line_network
from polyrelu.tropical import tropical_weights


def random_network(n0, depth, m, seed, width=3):
    return ReLUNetwork.random((n0,) + (width,) * depth + (m,), seed=seed, kind="integer", bound=3)


def jacobian_by_evaluation(net, region):
    """The Jacobian of f on a region from exact values at its interior point and nearby points inside it.

    The values come from the reference forward pass, not from the package's evaluation.
    """
    p = region.relative_interior_point()
    n0 = len(p)
    base = forward(net.weights, net.biases, p)
    columns = []
    for j in range(n0):
        step = F(1)
        while True:
            q = tuple(v + (step if i == j else 0) for i, v in enumerate(p))
            if region.polyhedron.relative_interior_contains(q):
                break
            step /= 2
        columns.append([(a - b) / step for a, b in zip(forward(net.weights, net.biases, q), base)])
    return [[columns[j][i] for j in range(n0)] for i in range(len(base))]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    n0=st.integers(2, 4),
    depth=st.integers(1, 3),
    m=st.integers(1, 2),
    seed=st.integers(0, 10_000),
)
def test_balancing_is_exactly_zero_everywhere(n0, depth, m, seed):
    width = 3 if n0 < 4 else 2
    net = random_network(n0, depth, m, seed, width)
    K = canonical_complex(net)
    W = tropical_weights(K)
    zero = tuple(tuple(F(0) for _ in range(n0)) for _ in range(m))
    for tau in K.cells(n0 - 2):
        assert W.balancing_defect(tau) == zero


def test_balancing_inside_a_box_and_boundary_refused():
    net = random_network(2, 2, 1, seed=5)
    K = canonical_complex(net, Box(-2, 2))
    W = tropical_weights(K)
    inside = boundary = 0
    for tau in K.cells(0):
        if any(s == 0 for s in tau.domain_signs):
            boundary += 1
            with pytest.raises(GeometryError, match="boundary"):
                W.balancing_defect(tau)
        else:
            inside += 1
            assert W.balancing_defect(tau) == ((0, 0),)
    assert inside and boundary


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("shape", [(2, 3, 3, 1), (3, 3, 2, 2), (2, 2, 2, 2, 1)])
def test_weights_are_jacobian_jumps_from_evaluation(shape, seed):
    net = ReLUNetwork.random(shape, seed=seed, kind="integer", bound=3)
    K = canonical_complex(net)
    W = tropical_weights(K)
    assert W.weights()
    for fw in W.weights().values():
        jp = jacobian_by_evaluation(net, K[fw.plus_region])
        jm = jacobian_by_evaluation(net, K[fw.minus_region])
        for i, w in enumerate(fw.weight):
            assert [a - b for a, b in zip(jp[i], jm[i])] == [w * v for v in fw.normal]
        # the normal is primitive, normal to the facet, and points into the plus region
        assert math.gcd(*fw.normal) == 1
        facet = K[fw.facet]
        q = facet.relative_interior_point()
        for v in facet.polyhedron.vertices():
            assert sum(n * (a - b) for n, a, b in zip(fw.normal, v, q)) == 0
        p = K[fw.plus_region].relative_interior_point()
        assert sum(n * (a - b) for n, a, b in zip(fw.normal, p, q)) > 0


def test_worked_example():
    net = bent_line_network()
    K = canonical_complex(net)
    W = tropical_weights(K)
    by_point = lambda x: W.weight(K.locate(x))
    # the bent line of neuron (2, 0): ray x1 = 1, x2 < 0; segment x1 + x2 = 1; ray x2 = 1, x1 < 0
    pieces = [by_point([1, -3]), by_point(["1/2", "1/2"]), by_point([-3, 1])]
    assert [round(p.euclidean_weight[0], 12) for p in pieces] == [1, round(math.sqrt(2), 12), 1]
    assert all(p.neurons == ((2, 0),) for p in pieces)
    # visible parts of the axes have weight 1, the parts hidden by the second layer weight 0
    assert by_point([3, 0]).weight == (1,) and by_point([0, 3]).weight == (1,)
    assert by_point(["1/2", 0]).weight == (0,) and by_point([0, "1/2"]).weight == (0,)
    assert by_point([-3, 0]).weight == (0,) and by_point([0, -3]).weight == (0,)
    assert by_point([3, 0]).neurons == ((1, 1),) and by_point([0, 3]).neurons == ((1, 0),)
    # f is convex across every visible piece here (m = 1, positive weights)
    assert all(w.weight[0] >= 0 for w in W.weights().values())


def _weights_by_location(net):
    K = canonical_complex(net)
    W = tropical_weights(K)
    return K, {K[f].relative_interior_point(): w for f, w in W.weights().items()}


@pytest.mark.parametrize("seed", range(5))
def test_weights_invariant_under_trivial_symmetries(seed):
    net = ReLUNetwork.random((2, 3, 3, 1), seed=seed, kind="integer")
    other = permute(scale(net, [[2, F(1, 3), 5], [7, F(1, 2), 3]]), [[2, 0, 1], [1, 2, 0]])
    K, mine = _weights_by_location(net)
    K2 = canonical_complex(other)
    W2 = tropical_weights(K2)
    assert K2.f_vector() == K.f_vector()
    assert mine
    for point, w in mine.items():
        w2 = W2.weight(K2.locate(point))
        assert w2.normal == w.normal and w2.weight == w.weight


def test_weights_change_under_a_generic_perturbation():
    net = ReLUNetwork.random((2, 3, 3, 1), seed=11, kind="integer")
    theta = list(net.parameters())
    theta[-2] += F(1, 7)  # an output weight
    bumped = ReLUNetwork.from_parameters(net.architecture, theta)
    _, mine = _weights_by_location(net)
    K2 = canonical_complex(bumped)
    W2 = tropical_weights(K2)
    assert any(W2.weight(K2.locate(p)).weight != w.weight for p, w in mine.items())


def test_vector_valued_weights_for_two_outputs():
    net = ReLUNetwork([[[1, 0], [0, 1]], [[2, 0], [0, -3]]], [[0, 0], [0, 1]])
    K = canonical_complex(net)
    W = tropical_weights(K)
    assert W.weight(K.locate([0, 5])).weight in ((2, 0), (-2, 0))
    assert W.weight(K.locate([5, 0])).weight in ((0, -3), (0, 3))


def test_not_codimension_two_refused():
    K = canonical_complex(bent_line_network())
    W = tropical_weights(K)
    with pytest.raises(GeometryError, match="not n0 - 2"):
        W.balancing_defect(K.regions()[0])


@pytest.mark.parametrize("domain", [None, Box(-2, 2)])
def test_weights_json_validates_and_carries_exact_values(domain):
    import json

    import jsonschema

    from polyrelu.schemas import schema as load_schema

    schema = load_schema("complex")
    net = ReLUNetwork.random((2, 3, 2, 2), seed=4)
    K = canonical_complex(net, domain)
    W = tropical_weights(K)
    data = json.loads(json.dumps(W.to_json()))
    jsonschema.validate(data, schema)
    assert len(data["facet_weights"]) == len(W.weights()) > 0
    for entry in data["facet_weights"]:
        w = W.weight(entry["facet"])
        assert [F(v) for v in entry["weight"]] == list(w.weight)
        assert [int(v) for v in entry["normal"]] == list(w.normal)
    assert {tuple(b["neuron"]) for b in data["bent_hypersurfaces"]} == set(net.architecture.hidden_neurons())
    B = breakpoint_complex(W)
    assert data["breakpoint_complex"]["f_vector"] == list(B.f_vector())
    assert sorted(c for cell in data["breakpoint_complex"]["cells"] for c in cell["members"]) == list(range(len(K)))
    broken = dict(data, facet_weights=[dict(data["facet_weights"][0], weight=[1.5])])
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(broken, schema)


@pytest.mark.parametrize("seed", range(4))
def test_bent_hypersurfaces_follow_the_neurons_under_symmetries(seed):
    from polyrelu import bent_hypersurfaces

    net = ReLUNetwork.random((2, 3, 2, 1), seed=seed, kind="gaussian")
    perms = [[2, 0, 1], [1, 0]]
    other = permute(scale(net, [[3, F(1, 2), 7], [F(2, 3), 5]]), perms)
    K, K2 = canonical_complex(net), canonical_complex(other)
    B, B2 = bent_hypersurfaces(K), bent_hypersurfaces(K2)

    def points(Kx, b):
        return {Kx[f].relative_interior_point() for f in b.facets}

    for l, perm in enumerate(perms, start=1):
        for new, old in enumerate(perm):
            mine, theirs = B[l, old], B2[l, new]
            # the same facets (located by their points), and bends at the same places along the same neurons
            assert {K2.locate(p).id for p in points(K, mine)} == set(theirs.facets)
            bends = {K[t].polyhedron.vertices(): {(a, perms[a - 1].index(i)) for a, i in along} for t, along in mine.bends}
            assert bends == {K2[t].polyhedron.vertices(): set(along) for t, along in theirs.bends}


def test_bent_hypersurface_moves_under_a_perturbation():
    from polyrelu import bent_hypersurfaces

    net = ReLUNetwork.random((2, 3, 2, 1), seed=1, kind="gaussian")
    theta = list(net.parameters())
    theta[15] += F(1, 3)  # the biases of the second hidden layer: its bent lines shift
    theta[16] += F(1, 3)
    moved = ReLUNetwork.from_parameters(net.architecture, theta)
    B = bent_hypersurfaces(canonical_complex(net))
    B2 = bent_hypersurfaces(canonical_complex(moved))
    K, K2 = canonical_complex(net), canonical_complex(moved)
    assert any(b.bends for b in B.values())
    assert {K[t].polyhedron.vertices() for b in B.values() for t, _ in b.bends} != {
        K2[t].polyhedron.vertices() for b in B2.values() for t, _ in b.bends
    }


# -- the breakpoint complex (docs/design.md §5) -------------------------------------------------------------
from polyrelu.tropical import breakpoint_complex  # noqa: E402


def breakpoints(net, domain=None):
    return breakpoint_complex(tropical_weights(canonical_complex(net, domain)))


def test_breakpoint_complex_of_the_worked_example():
    B = breakpoints(bent_line_network())
    assert B.f_vector() == (2, 5, 4) and B.euler_characteristic() == 1
    edges = {B.closure(i).vertices_rays_lines()[:2] for i in B.lattice.cells(1)}
    expected = {
        (((F(1), F(0)),), ((0, -1),)),  # ray x1 = 1, x2 <= 0
        (((F(0), F(1)),), ((-1, 0),)),  # ray x2 = 1, x1 <= 0
        (((F(0), F(1)), (F(1), F(0))), ()),  # segment x1 + x2 = 1
        (((F(1), F(0)),), ((1, 0),)),  # visible ray x2 = 0, x1 >= 1
        (((F(0), F(1)),), ((0, 1),)),  # visible ray x1 = 0, x2 >= 1
    }
    assert edges == expected
    assert all(any(B.weight(i)) for i in B.lattice.cells(1))


@pytest.mark.parametrize("seed", range(5))
def test_breakpoint_complex_ignores_the_parameterization(seed):
    import random

    rng = random.Random(seed)
    net = ReLUNetwork.random((2, 3, 3, 1), seed=seed, kind="gaussian")
    factors = [[F(rng.randint(1, 9), rng.randint(1, 9)) for _ in range(3)] for _ in range(2)]
    perms = [rng.sample(range(3), 3) for _ in range(2)]
    other = permute(scale(net, factors), perms)
    assert breakpoints(net) == breakpoints(other)


@pytest.mark.parametrize("seed", range(4))
def test_an_invisible_neuron_leaves_the_breakpoint_complex_unchanged(seed):
    net = ReLUNetwork.random((2, 3, 2, 1), seed=seed, kind="gaussian")
    Ws = [list(map(list, W)) for W in net.weights]
    bs = [list(b) for b in net.biases]
    # add a first-layer neuron x1 - x2 + 1/3 whose outgoing weights are all zero
    Ws[0].append([F(1), F(-1)])
    bs[0].append(F(1, 3))
    Ws[1] = [row + [F(0)] for row in Ws[1]]
    padded = ReLUNetwork(Ws, bs)
    assert canonical_complex(padded).f_vector() != canonical_complex(net).f_vector()
    assert breakpoints(padded) == breakpoints(net)


def test_a_dead_neuron_leaves_the_breakpoint_complex_unchanged():
    net = ReLUNetwork.random((2, 3, 2, 1), seed=3, kind="gaussian")
    Ws = [list(map(list, W)) for W in net.weights]
    bs = [list(b) for b in net.biases]
    Ws[1].append([F(-1)] * 3)  # a second-layer neuron that never fires: -sum(relu) - 1 < 0
    bs[1].append(F(-1))
    Ws[2] = [row + [F(5)] for row in Ws[2]]
    assert breakpoints(ReLUNetwork(Ws, bs)) == breakpoints(net)


@pytest.mark.parametrize("seed", range(6))
def test_breakpoint_complex_is_a_complex_on_the_plane(seed):
    B = breakpoints(ReLUNetwork.random((2, 4, 3, 1), seed=seed, kind="gaussian"))
    assert B.euler_characteristic() == 1
    assert B.lattice.cells(1)
    for i in B.lattice.cells(1):
        assert any(B.weight(i))  # only bending facets survive


def test_breakpoint_complex_changes_with_the_function():
    net = ReLUNetwork.random((2, 3, 3, 1), seed=2, kind="gaussian")
    theta = list(net.parameters())
    theta[-2] += F(1, 5)
    assert breakpoints(net) != breakpoints(ReLUNetwork.from_parameters(net.architecture, theta))


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("shape", [(3, 3, 3, 1), (3, 4, 2, 2)])
def test_breakpoint_euler_characteristic_in_three_dimensions(shape, seed):
    net = ReLUNetwork.random(shape, seed=seed, kind="gaussian")
    assert breakpoints(net).euler_characteristic() == -1
    assert breakpoints(net, Box(-2, 2)).euler_characteristic() == 1


@pytest.mark.parametrize("seed", range(6))
def test_bends_from_weight_normals_equal_bends_from_affine_hulls(seed):
    """bent_hypersurfaces reads facet normals from the weights when given them; both ways agree."""
    from polyrelu.tropical import bent_hypersurfaces

    net = ReLUNetwork.random([(2, 3, 3, 1), (3, 3, 2, 1), (2, 4, 2, 2)][seed % 3], seed=seed, kind="integer", bound=3)
    K = canonical_complex(net)
    assert bent_hypersurfaces(K, tropical_weights(K)) == bent_hypersurfaces(K)


@settings(max_examples=200, deadline=None)
@given(
    st.fractions().filter(bool) | st.integers(1, 10**700).map(lambda n: F(n) * (-1) ** n) | st.integers(1, 10**700).map(lambda n: F(1, n)),
    st.lists(st.integers(-(10**400), 10**400), min_size=1, max_size=3).filter(any),
)
def test_euclidean_weight_is_accurate_and_never_overflows(weight, normal):
    """``w·|ν|`` against 60-digit decimal arithmetic: within an ulp or two, ±inf and 0.0 beyond the float range."""
    from decimal import Context, Decimal

    from polyrelu.tropical import FacetWeight

    (value,) = FacetWeight(0, (weight,), tuple(normal), 0, 1, ()).euclidean_weight
    ctx = Context(prec=60, Emax=10**6, Emin=-(10**6))
    exact = ctx.multiply(ctx.divide(Decimal(weight.numerator), Decimal(weight.denominator)),
                         ctx.sqrt(Decimal(sum(v * v for v in normal))))
    expected = float(exact)  # Decimal -> float rounds once, to ±inf or 0.0 beyond the range
    if math.isinf(expected):
        assert value == expected
    else:
        assert math.isclose(value, expected, rel_tol=4e-16, abs_tol=1e-300)


def weights_from_polyhedra(K):
    """Every interior facet's (weight, normal, minus, plus, neurons) as tropical_weights found them from polyhedra.

    The reference for the integer computation: Fraction Jacobians from ``affine_map``; the normal from the
    first non-zero row of the jump, or with no jump from the facet's affine hull (its echelon equation);
    the plus region on the side the normal points to, read off the region's generators.
    """
    n0 = K.network.architecture.input_dim
    neurons = K.network.architecture.hidden_neurons()
    out = {}
    for facet in K.cells(n0 - 1):
        regions = K.lattice.cofacets(facet.id)
        if len(regions) != 2:
            continue
        first, second = regions
        jacobian = {r: K.affine_map(r)[0] for r in regions}
        jump = [[a - b for a, b in zip(ra, rb)] for ra, rb in zip(jacobian[second], jacobian[first])]
        row = next((r for r in jump if any(r)), None)
        if row is None:
            ((_, *row),) = facet.polyhedron.affine_hull().equations
        scale = math.lcm(*(F(v).denominator for v in row))
        integers = [int(F(v) * scale) for v in row]
        normal = tuple(v // math.gcd(*integers) for v in integers)
        q = facet.polyhedron.vertices()[0]
        vertices, rays, _ = K[second].polyhedron.vertices_rays_lines()
        offsets = [sum(n * (a - b) for n, a, b in zip(normal, v, q)) for v in vertices]
        offsets += [sum(n * a for n, a in zip(normal, r)) for r in rays]
        minus, plus = (first, second) if next(v for v in offsets if v) > 0 else (second, first)
        if minus == second:
            jump = [[-v for v in r] for r in jump]
        j = next(i for i, v in enumerate(normal) if v)
        changing = tuple(neurons[k] for k, s in enumerate(facet.signs) if s == 0 and {K[minus].signs[k], K[plus].signs[k]} == {1, -1})
        out[facet.id] = (tuple(r[j] / normal[j] for r in jump), normal, minus, plus, changing)
    return out


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    n0=st.integers(2, 4),
    depth=st.integers(1, 3),
    m=st.integers(1, 2),
    kind=st.sampled_from(["integer", "gaussian"]),
    box=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_weights_are_those_found_from_polyhedra(n0, depth, m, kind, box, seed):
    """Exactly the weights, normals (and their orientation) and regions of the computation from polyhedra."""
    width = 3 if n0 < 4 else 2
    net = ReLUNetwork.random((n0,) + (width,) * depth + (m,), seed=seed, kind=kind)
    K = canonical_complex(net, Box(-2, 2) if box else None)
    found = {f: (w.weight, w.normal, w.minus_region, w.plus_region, w.neurons) for f, w in tropical_weights(K).weights().items()}
    assert found == weights_from_polyhedra(K)


def reference_jacobian(net, pattern):
    """The output's Jacobian on a sign vector, composed in Fractions by the reference (tests/reference.py)."""
    rows = pre_activation_rows(net.weights, net.biases, pattern)
    last = len(rows) - net.architecture.hidden_widths[-1]
    active = [rows[last + i][1:] if pattern[last + i] > 0 else (F(0),) * net.architecture.input_dim for i in range(len(rows) - last)]
    return [[sum((w * a[j] for w, a in zip(W, active)), F(0)) for j in range(net.architecture.input_dim)] for W in net.weights[-1]]


@settings(max_examples=60, deadline=None, derandomize=True)
@given(
    n0=st.integers(1, 3),
    widths=st.lists(st.integers(1, 4), min_size=1, max_size=4),
    m=st.integers(1, 2),
    kind=st.sampled_from(["integer", "gaussian"]),
    seed=st.integers(0, 10_000),
    data=st.data(),
)
def test_one_neuron_turning_on_changes_the_jacobian_by_its_derivative_times_its_gradient(n0, widths, m, kind, seed, data):
    """PatternMaps.gradient and output_derivative against the reference's Fraction maps, on any sign vector.

    The identity ``A(on) - A(off) = d ⊗ G / scale`` behind the weights of facets whose regions differ at one
    neuron; ``G`` must be the neuron's gradient times the product of the ``c`` of layers up to its own.
    """
    from polyrelu.complex import PatternMaps

    net = ReLUNetwork.random((n0, *widths, m), seed=seed, kind=kind)
    maps = PatternMaps(net)
    neurons = net.architecture.hidden_neurons()
    signs = tuple(data.draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=len(neurons), max_size=len(neurons))))
    for k, (layer, index) in enumerate(neurons):
        G, d = maps.gradient(signs, layer, index), maps.output_derivative(signs, layer, index)
        c = math.prod(c for _, c in net.integer_layers()[:layer])
        assert [F(v, c) for v in G] == list(pre_activation_rows(net.weights, net.biases, signs)[k][1:])
        on, off = (reference_jacobian(net, signs[:k] + (s,) + signs[k + 1 :]) for s in (1, -1))
        assert [[a - b for a, b in zip(ra, rb)] for ra, rb in zip(on, off)] == [[F(v * g, maps.scale) for g in G] for v in d]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    n0=st.integers(2, 3),
    widths=st.lists(st.integers(4, 6), min_size=1, max_size=3),
    m=st.integers(1, 2),
    invisible=st.booleans(),
    box=st.booleans(),
    seed=st.integers(0, 10_000),
)
def test_weights_of_wider_networks_are_those_found_from_polyhedra(n0, widths, m, invisible, box, seed):
    """Wider generic networks (almost every facet separates regions differing at one neuron) against polyhedra.

    With ``invisible``, the first neuron of the last hidden layer has no output weight and, with two hidden
    layers or more, the first neuron of the first layer none into the second: their facets have weight zero,
    and the orientation of their normals falls back to the hyperplane's.
    """
    net = ReLUNetwork.random((n0, *widths, m), seed=seed, kind="gaussian")
    if invisible:
        weights = [[list(row) for row in W] for W in net.weights]
        for row in weights[-1]:
            row[0] = 0
        if len(widths) >= 2:
            for row in weights[1]:
                row[0] = 0
        net = ReLUNetwork(weights, net.biases)
    K = canonical_complex(net, Box(-2, 2) if box else None)
    found = {f: (w.weight, w.normal, w.minus_region, w.plus_region, w.neurons) for f, w in tropical_weights(K).weights().items()}
    assert found == weights_from_polyhedra(K)
    if invisible and not box:  # the first neuron's line crosses the plane: facets of weight zero
        assert any(not any(w[0]) and w[4] == ((1, 0),) for w in found.values())
