"""Tests of polyrelu.network: architectures, exact evaluation, activation patterns, construction errors.

Expected values come from the naive ``Fraction`` forward pass of ``tests/reference.py``
(on the raw parameter lists, not on the network built from them), from hand
computations, or from the parameter-count table of the research notes
(paper-notes §10.1), never from the code under test.
"""

import math
import random
import re
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from reference import apply_affine, forward, pre_activations, raw_networks, sign, sign_vector

from polyrelu import (
    Architecture,
    InvalidArgumentError,
    InvalidNumberError,
    ReLUNetwork,
    ShapeError,
)

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


# -- strategies -----------------------------------------------------------------------------
small_ints = st.integers(-3, 3)
small_rationals = st.fractions(min_value=-4, max_value=4, max_denominator=6)
entries = st.one_of(small_ints, small_rationals)


def points(draw, n0, count):
    return [tuple(draw(small_rationals) for _ in range(n0)) for _ in range(count)]


# -- Architecture ---------------------------------------------------------------------------
# (architecture, D, H, width hypothesis) from paper-notes §10.1.
ARCH_TABLE = [
    ((2, 2, 1), 9, 2, True),
    ((2, 3, 1), 13, 3, True),
    ((3, 2, 1), 11, 2, True),
    ((3, 3, 1), 16, 3, True),
    ((2, 2, 2), 12, 2, True),
    ((2, 2, 2, 1), 15, 4, True),
    ((2, 3, 2, 1), 20, 5, True),
    ((3, 2, 3, 1), 21, 5, True),
    ((2, 2, 2, 2, 1), 21, 6, True),
    ((2, 2, 2, 2, 2, 1), 27, 8, True),
    ((1, 1, 1), 4, 1, False),
    ((1, 2, 1), 7, 2, False),
    ((1, 1, 1, 1), 6, 2, False),
    ((1, 2, 2, 1), 13, 4, False),
    ((2, 1, 1), 5, 1, False),
    ((2, 1, 2, 1), 10, 3, False),
    ((2, 2, 1, 1), 11, 3, False),
]


@pytest.mark.parametrize("widths, D, H, hypothesis", ARCH_TABLE)
def test_architecture_counts(widths, D, H, hypothesis):
    arch = Architecture(widths)
    assert arch.num_parameters == D
    assert arch.num_hidden == H
    assert arch.functional_dimension_bound == D - H
    assert arch.width_hypothesis is hypothesis
    assert arch.depth == len(widths) - 2
    assert arch.input_dim == widths[0] and arch.output_dim == widths[-1]
    assert arch.hidden_widths == widths[1:-1]
    assert arch.hidden_neurons() == tuple((l, i) for l, n in enumerate(widths[1:-1], 1) for i in range(n))
    # a network of that architecture has that many parameters
    assert len(ReLUNetwork.random(widths, seed=0).parameters()) == D


def test_architecture_depth_zero_and_numpy_widths():
    arch = Architecture((3, 2))
    assert (arch.depth, arch.num_parameters, arch.num_hidden, arch.width_hypothesis) == (0, 8, 0, True)
    assert Architecture(np.array([2, 3, 1])) == Architecture((2, 3, 1))
    assert Architecture([2, 3, 1]).widths == (2, 3, 1)


@pytest.mark.parametrize(
    "widths, fragment",
    [
        ((), "at least an input and an output"),
        ((3,), "at least an input and an output"),
        ((2, 0, 1), "hidden layer 1 is empty"),
        ((0, 2, 1), "input is empty"),
        ((2, 2, 0), "output is empty"),
        ((2, -1, 1), "hidden layer 1 is empty"),
        ((2, 2.0, 1), "width 1 is 2.0, not an integer"),
        ((2, "3", 1), "not an integer"),
        ((2, True, 1), "not an integer"),
        ((2, None, 1), "not an integer"),
    ],
)
def test_architecture_errors(widths, fragment):
    with pytest.raises(ShapeError, match=re.escape(fragment)):
        Architecture(widths)


@pytest.mark.parametrize("widths", [5, "231", {2: 1}, None])
def test_architecture_of_a_wrong_type(widths):
    with pytest.raises(InvalidArgumentError, match="Architecture: widths must be a sequence"):
        Architecture(widths)


# -- exact evaluation -----------------------------------------------------------------------
@SETTINGS
@given(data=st.data(), raw=raw_networks(values=entries))
def test_evaluation_matches_naive_forward_pass(data, raw):
    widths, Ws, bs = raw
    net = ReLUNetwork(Ws, bs)
    assert net.architecture.widths == widths
    for x in points(data.draw, widths[0], 4):
        y = net(x)
        assert all(type(v) is Fraction for v in y)
        assert tuple(y) == forward(Ws, bs, x)
        assert tuple(map(tuple, net.pre_activations(x))) == pre_activations(Ws, bs, x)
        # inputs given as "p/q" strings are read exactly as well
        assert net([f"{v.numerator}/{v.denominator}" for v in x]) == y


def test_evaluation_by_hand():
    # f(x) = relu(relu(x1) + relu(x2) - 1) - 2/3
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]], [[1]]], [[0, 0], [-1], ["-2/3"]])
    assert net([2, Fraction(1, 2)]) == (Fraction(3, 2) - Fraction(2, 3),)
    assert net([-5, "1/2"]) == (Fraction(-2, 3),)
    assert net(np.array([3, 4])) == (6 - Fraction(2, 3),)
    assert net.pre_activations([2, -1]) == ((2, -1), (1,))


def test_wide_and_narrow_layers_evaluate_alike():
    # layers up to 64 entries are multiplied in Python ints, larger ones by flint: both against the naive pass,
    # with float64 weights (denominators up to 2^52) and points with 30-digit denominators
    rng = np.random.default_rng(5)
    widths = (9, 12, 3, 11, 2)  # 12 × 10 and 11 × 4 entries go to flint, 3 × 13 and 2 × 12 to Python
    Ws = [rng.standard_normal((b, a)).tolist() for a, b in zip(widths, widths[1:])]
    bs = [rng.standard_normal(b).tolist() for b in widths[1:]]
    net = ReLUNetwork(Ws, bs)
    exact_Ws = [[[Fraction(v) for v in row] for row in W] for W in Ws]
    exact_bs = [[Fraction(v) for v in b] for b in bs]
    pick = random.Random(5)
    for _ in range(20):
        x = [Fraction(pick.randint(-(10**30), 10**30), pick.randint(1, 10**30)) for _ in range(widths[0])]
        assert net(x) == forward(exact_Ws, exact_bs, x)
        assert net.pre_activations(x) == pre_activations(exact_Ws, exact_bs, x)
        assert net.signs(x) == sign_vector(exact_Ws, exact_bs, x)


def test_float_inputs_are_converted_exactly():
    # f(x) = x1 + x2: 0.1 + 0.2 differs from 3/10 in exact arithmetic
    net = ReLUNetwork([[[1, 1]]], [[0]])
    exact = net([0.1, 0.2])
    assert exact == net([Fraction(0.1), Fraction(0.2)])
    assert exact == (Fraction(0.1) + Fraction(0.2),)
    assert exact != net([Fraction(1, 10), Fraction(2, 10)])
    assert net([Fraction(1, 10), Fraction(2, 10)]) == (Fraction(3, 10),)
    # numpy floats as well, and through a hidden layer
    deep = ReLUNetwork([[[1, 1]], [[3]]], [[0], [0]])
    assert deep(np.array([0.1, 0.2])) == (3 * (Fraction(0.1) + Fraction(0.2)),)
    assert deep([np.float32(0.1), 0]) == (3 * Fraction(float(np.float32(0.1))),)


def test_float_parameters_are_converted_exactly():
    net = ReLUNetwork([[[0.1, -0.25]], [[1e-3]]], [[0.3], [0]])
    assert net.weights[0][0] == (Fraction(0.1), Fraction(-1, 4))
    assert net.biases[0] == (Fraction(0.3),)
    assert net.weights[1][0][0] == Fraction(1e-3) != Fraction(1, 1000)
    assert net([1, 0]) == (Fraction(1e-3) * (Fraction(0.1) + Fraction(0.3)),)


@pytest.mark.parametrize(
    "x, error, fragment",
    [
        ([1], ShapeError, "x: expected 2 entries, got 1"),
        ([1, 2, 3], ShapeError, "x: expected 2 entries, got 3"),
        ([1, float("nan")], InvalidNumberError, "x[1]"),
        ([float("inf"), 1], InvalidNumberError, "x[0]"),
        ([1, "abc"], InvalidNumberError, "x[1]"),
        ([True, 1], InvalidNumberError, "x[0]"),
        ("12", ShapeError, "x"),
    ],
)
def test_bad_inputs(x, error, fragment):
    net = ReLUNetwork.random((2, 2, 1), seed=0)
    with pytest.raises(error, match=re.escape(fragment)):
        net(x)


# -- signs, affine maps, pre-activation maps ------------------------------------------------
def pattern_string(signs):
    return "".join("+" if s > 0 else "-" if s < 0 else "0" for s in signs)


@SETTINGS
@given(data=st.data(), raw=raw_networks(values=entries))
def test_signs_and_affine_map_at_points(data, raw):
    widths, Ws, bs = raw
    net = ReLUNetwork(Ws, bs)
    for x in points(data.draw, widths[0], 3):
        zs = pre_activations(Ws, bs, x)
        s = net.signs(x)
        assert s == tuple(sign(v) for z in zs for v in z)
        A, c = net.affine_map(s)
        assert len(A) == widths[-1] and all(len(row) == widths[0] for row in A) and len(c) == widths[-1]
        assert apply_affine(A, c, x) == forward(Ws, bs, x)
        # the same map from the three pattern notations
        assert net.affine_map(pattern_string(s)) == (A, c)
        assert net.affine_map(tuple(v > 0 for v in s)) == (A, c)
        assert net.affine_map(list(s)) == (A, c)
        # pre-activation maps reproduce every hidden pre-activation at x
        maps = net.pre_activation_maps(s)
        assert len(maps) == len(widths) - 2
        for (G, g), z in zip(maps, zs, strict=True):
            assert apply_affine(G, g, x) == z
        assert net.pre_activation_maps(pattern_string(s)) == maps


@SETTINGS
@given(data=st.data(), raw=raw_networks(min_depth=1, values=small_ints))
def test_points_with_zero_pre_activation(data, raw):
    """Points on a first-layer hyperplane, built on purpose, and the ambiguous flags there."""
    widths, Ws, bs = raw
    net = ReLUNetwork(Ws, bs)
    live_rows = [i for i, row in enumerate(Ws[0]) if any(row)]
    assume(live_rows)
    i = data.draw(st.sampled_from(live_rows))
    w = [Fraction(v) for v in Ws[0][i]]
    x0 = [Fraction(v) for v in points(data.draw, widths[0], 1)[0]]
    t = (sum(a * b for a, b in zip(w, x0)) + bs[0][i]) / sum(a * a for a in w)
    x = [a - t * b for a, b in zip(x0, w)]  # projection of x0 on the hyperplane z_{1,i} = 0
    zs = pre_activations(Ws, bs, x)
    assert zs[0][i] == 0
    s = net.signs(x)
    assert s[i] == 0
    assert s == tuple(sign(v) for z in zs for v in z)
    y = forward(Ws, bs, x)
    assert tuple(net(x)) == y
    assert apply_affine(*net.affine_map(s), x) == y
    # every pattern that agrees with s where s is non-zero gives the value f(x) at x
    zero_positions = [k for k, v in enumerate(s) if v == 0]
    for _ in range(3):
        choice = list(s)
        for k in zero_positions:
            choice[k] = data.draw(st.sampled_from([1, -1]))
        assert apply_affine(*net.affine_map(choice), x) == y
        for (G, g), z in zip(net.pre_activation_maps(choice), zs, strict=True):
            assert apply_affine(G, g, x) == z


def test_affine_map_is_constant_on_each_region():
    """One map per pattern; it gives f at every sampled point of that pattern's region."""
    rng = random.Random(7)
    for seed in range(6):
        net = ReLUNetwork.random((2, 3, 2, 1), seed=seed)
        Ws = [[list(r) for r in W] for W in net.weights]
        bs = [list(b) for b in net.biases]
        by_pattern = {}
        for _ in range(120):
            x = (Fraction(rng.randint(-40, 40), 7), Fraction(rng.randint(-40, 40), 9))
            by_pattern.setdefault(net.signs(x), []).append(x)
        assert len(by_pattern) >= 2
        for pattern, xs in by_pattern.items():
            A, c = net.affine_map(pattern)
            maps = net.pre_activation_maps(pattern)
            for x in xs:
                assert apply_affine(A, c, x) == forward(Ws, bs, x)
                for (G, g), z in zip(maps, pre_activations(Ws, bs, x), strict=True):
                    assert apply_affine(G, g, x) == z


def test_affine_map_by_hand():
    # f(x) = relu(relu(x1) + relu(x2) - 1)
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]], [[1]]], [[0, 0], [-1], [0]])
    assert net.affine_map("+-+") == (((1, 0),), (-1,))
    assert net.affine_map("+++") == (((1, 1),), (-1,))
    assert net.affine_map("++-") == (((0, 0),), (0,))
    assert net.affine_map((1, 1, 0)) == (((0, 0),), (0,))  # 0 counts as inactive
    assert net.affine_map([True, False, True]) == (((1, 0),), (-1,))
    maps = net.pre_activation_maps("+-+")
    assert maps == ((((1, 0), (0, 1)), (0, 0)), (((1, 0),), (-1,)))
    # the second layer's map only depends on the first layer's flags
    assert net.pre_activation_maps("+--") == maps


def test_depth_zero_network():
    net = ReLUNetwork([[[1, "1/2"], [0, -3]]], [[2, 0]])
    assert net.pre_activations([4, 2]) == ()
    assert net.signs([4, 2]) == ()
    assert net([4, 2]) == (7, -6)
    assert net.affine_map("") == (((1, Fraction(1, 2)), (0, -3)), (2, 0))
    assert net.affine_map(()) == net.affine_map("")
    assert net.pre_activation_maps("") == ()
    with pytest.raises(ShapeError):
        net.affine_map("+")


@pytest.mark.parametrize("pattern", ["++", "++++", "", (1, -1), (True,) * 4, "+-x", "+- "])
def test_bad_patterns(pattern):
    net = ReLUNetwork.random((2, 3, 1), seed=2)
    with pytest.raises(ShapeError):
        net.affine_map(pattern)
    with pytest.raises(ShapeError):
        net.pre_activation_maps(pattern)


def test_pattern_length_message():
    net = ReLUNetwork.random((2, 3, 2, 1), seed=2)
    with pytest.raises(ShapeError, match="expected 5 entries, one per hidden neuron; got 4"):
        net.affine_map("+-+-")
    assert net.architecture.split_hidden("+-0-+") == (("+", "-", "0"), ("-", "+"))


# -- parameters -----------------------------------------------------------------------------
def test_parameter_order_by_hand():
    net = ReLUNetwork([[[1, 2], [3, 4]], [[5, 6]]], [[7, 8], [9]])
    assert net.parameters() == tuple(Fraction(v) for v in (1, 2, 3, 4, 7, 8, 5, 6, 9))
    assert ReLUNetwork.from_parameters((2, 2, 1), range(1, 10)) == ReLUNetwork(
        [[[1, 2], [3, 4]], [[7, 8]]], [[5, 6], [9]]
    )
    assert net.layers == ((net.weights[0], net.biases[0]), (net.weights[1], net.biases[1]))
    assert net.weights[0] == ((1, 2), (3, 4)) and net.biases[1] == (9,)


@SETTINGS
@given(raw=raw_networks(values=entries))
def test_flat_parameters_round_trip(raw):
    widths, Ws, bs = raw
    net = ReLUNetwork(Ws, bs)
    theta = net.parameters()
    expected = [Fraction(v) for W, b in zip(Ws, bs) for v in [*(x for row in W for x in row), *b]]
    assert list(theta) == expected
    assert len(theta) == Architecture(widths).num_parameters
    again = ReLUNetwork.from_parameters(widths, theta)
    assert again == net and hash(again) == hash(net)
    assert ReLUNetwork.from_parameters(net.architecture, list(theta)) == net
    assert ReLUNetwork.from_layers(net.layers) == net


def test_from_parameters_wrong_length():
    with pytest.raises(ShapeError, match="expected 9 entries, got 8"):
        ReLUNetwork.from_parameters((2, 2, 1), range(8))
    with pytest.raises(InvalidNumberError, match=re.escape("parameters[3]")):
        ReLUNetwork.from_parameters((2, 2, 1), [0, 0, 0, float("nan"), 0, 0, 0, 0, 0])


def test_equality_and_hash():
    a = ReLUNetwork([[[1, 2]], [[3]]], [[0], [1]])
    b = ReLUNetwork([[["2/2", 2.0]], [[Fraction(6, 2)]]], [["0"], [1]], name="other name")
    c = ReLUNetwork([[[1, 2]], [[3]]], [[0], [2]])
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert a != "not a network"


@pytest.mark.parametrize("widths", [(2, 3, 1), (1, 1), (3, 2, 2, 2)])
def test_random_integer(widths):
    D = Architecture(widths).num_parameters
    a = ReLUNetwork.random(widths, seed=11)
    assert a == ReLUNetwork.random(widths, seed=11)
    assert a.architecture == Architecture(widths)
    assert all(v.denominator == 1 and -3 <= v <= 3 for v in a.parameters())
    wide = ReLUNetwork.random(widths, seed=11, bound=1)
    assert all(v in (-1, 0, 1) for v in wide.parameters())
    big = [ReLUNetwork.random(widths, seed=s, bound=50) for s in range(5)]
    values = {v for net in big for v in net.parameters()}
    assert all(v.denominator == 1 and -50 <= v <= 50 for v in values)
    assert len(values) > min(10, D)  # really drawn from the range
    assert len({net for net in big}) == 5  # different seeds, different networks


@pytest.mark.parametrize("widths", [(2, 3, 1), (3, 2, 2, 2)])
def test_random_gaussian(widths):
    D = Architecture(widths).num_parameters
    net = ReLUNetwork.random(widths, seed=5, kind="gaussian")
    assert net == ReLUNetwork.random(widths, seed=5, kind="gaussian")
    assert net != ReLUNetwork.random(widths, seed=6, kind="gaussian")
    theta = net.parameters()
    for v in theta:  # dyadic rationals
        d = v.denominator
        assert d & (d - 1) == 0
    assert any(v.denominator > 1 for v in theta)
    # documented: standard normal float64 draws of numpy's default_rng(seed), converted exactly
    draws = np.random.default_rng(5).standard_normal(D)
    assert [float(v) for v in theta] == draws.tolist()
    assert list(theta) == [Fraction(v) for v in draws.tolist()]
    assert all(math.isfinite(float(v)) for v in theta)


def test_random_bad_kind():
    with pytest.raises(ValueError, match="kind"):
        ReLUNetwork.random((2, 2, 1), kind="uniform")


# -- construction errors --------------------------------------------------------------------
def valid_layers():
    """A (2, 3, 2, 1) network as plain lists, to break one entry at a time."""
    Ws = [[[1, 2], [3, 4], [5, 6]], [[1, 0, -1], [2, 1, 0]], [[1, -1]]]
    bs = [[0, 1, 2], [-1, 1], [0]]
    return Ws, bs


BAD_VALUES = [float("nan"), float("inf"), -float("inf"), None, "abc", True, False, np.nan, object(), [1], 1j]


def _value_id(value):
    """A test id that is the same in every process (a bare object's repr holds its address)."""
    return "object()" if type(value) is object else repr(value)


@pytest.mark.parametrize("bad", BAD_VALUES, ids=_value_id)
def test_invalid_weight_entry_is_named(bad):
    Ws, bs = valid_layers()
    Ws[1][1][0] = bad
    with pytest.raises(InvalidNumberError, match=re.escape("layer 2 weights[1][0]: ")):
        ReLUNetwork(Ws, bs)


@pytest.mark.parametrize("bad", BAD_VALUES, ids=_value_id)
def test_invalid_bias_entry_is_named(bad):
    Ws, bs = valid_layers()
    bs[0][2] = bad
    with pytest.raises(InvalidNumberError, match=re.escape("layer 1 biases[2]: ")):
        ReLUNetwork(Ws, bs)


def test_invalid_entry_messages():
    Ws, bs = valid_layers()
    Ws[2][0][1] = float("nan")
    with pytest.raises(InvalidNumberError, match=re.escape("layer 3 weights[0][1]: nan is not a finite number")):
        ReLUNetwork(Ws, bs)
    Ws, bs = valid_layers()
    bs[1][0] = "abc"
    with pytest.raises(InvalidNumberError, match=re.escape("layer 2 biases[0]: 'abc' is not a number")):
        ReLUNetwork(Ws, bs)
    # numpy arrays of bools are rejected too
    Ws, bs = valid_layers()
    Ws[0] = np.ones((3, 2), dtype=bool)
    with pytest.raises(InvalidNumberError, match=re.escape("layer 1 weights[0][0]")):
        ReLUNetwork(Ws, bs)


def test_shape_errors_name_the_layer():
    Ws, bs = valid_layers()
    # columns of layer 2 do not match the rows of layer 1
    bad = [Ws[0], [[1, 0], [2, 1]], Ws[2]]
    with pytest.raises(ShapeError, match="layer 2: weights have 2 columns but layer 1 has 3 neurons"):
        ReLUNetwork(bad, bs)
    bad = [Ws[0], Ws[1], [[1, -1, 0]]]
    with pytest.raises(ShapeError, match="layer 3: weights have 3 columns but layer 2 has 2 neurons"):
        ReLUNetwork(bad, bs)
    # bias length
    with pytest.raises(ShapeError, match="layer 1: 3 weight rows but 2 biases"):
        ReLUNetwork(Ws, [[0, 1], bs[1], bs[2]])
    with pytest.raises(ShapeError, match="layer 3: 1 weight rows but 0 biases"):
        ReLUNetwork(Ws, [bs[0], bs[1], []])
    # number of weight matrices vs bias vectors
    with pytest.raises(ShapeError, match="3 weight matrices but 2 bias vectors"):
        ReLUNetwork(Ws, bs[:2])
    with pytest.raises(ShapeError, match="at least one"):
        ReLUNetwork([], [])
    # empty layers
    with pytest.raises(ShapeError, match="layer 2 is empty"):
        ReLUNetwork([Ws[0], [], Ws[2]], [bs[0], [], bs[2]])
    with pytest.raises(ShapeError, match="layer 1: the weight matrix has no columns"):
        ReLUNetwork([[[], [], []], Ws[1], Ws[2]], bs)
    # ragged rows
    with pytest.raises(ShapeError, match=re.escape("layer 1 weights[1]: expected 2 entries, got 1")):
        ReLUNetwork([[[1, 2], [3], [5, 6]], Ws[1], Ws[2]], bs)
    with pytest.raises(ShapeError, match=re.escape("layer 2 weights[1]: expected 3 entries, got 4")):
        ReLUNetwork([Ws[0], [[1, 0, -1], [2, 1, 0, 5]], Ws[2]], bs)
    # a scalar or a string where a row or a vector belongs
    with pytest.raises(ShapeError, match="layer 1 biases"):
        ReLUNetwork(Ws, [5, bs[1], bs[2]])
    with pytest.raises(ShapeError, match=re.escape("layer 2 weights")):
        ReLUNetwork([Ws[0], "abc", Ws[2]], bs)
    # numpy arrays of the wrong dimension
    with pytest.raises(ShapeError, match="layer 1 weights"):
        ReLUNetwork([np.zeros(2), np.zeros((1, 1))], [np.zeros(1), np.zeros(1)])


def test_numpy_parameters():
    W1 = np.array([[0.5, -1.0], [2.0, 0.25]], dtype=np.float32)
    W2 = np.array([[1, -1]], dtype=np.int64)
    net = ReLUNetwork([W1, W2], [np.array([0.0, 1.0]), np.array([3])])
    assert net.weights[0] == ((Fraction(1, 2), -1), (2, Fraction(1, 4)))
    assert net([2, 4]) == (forward([W1.tolist(), W2.tolist()], [[0.0, 1.0], [3]], [2, 4])[0],)
