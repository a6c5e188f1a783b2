"""Each stage of recovery on its own (docs/design.md §6): numerics, oracle, breakpoints, partial, first_layer,
families, tracing, orientation, output.

tests/test_recovery.py checks recovery end to end; here every stage gets inputs whose answer is known from the
network that made them (its canonical complex, tropical weights, layers and flips), or from an independent exact
computation written in this file (Fraction Gaussian elimination, polyhedra), so that a wrong stage fails here
by name.
"""

import itertools
import math
import time
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from reference import dot, rank, solve

import polyrelu.recovery.completion as completion
import polyrelu.recovery.next_layer as next_layer
import polyrelu.recovery.tracing as tracing
from polyrelu import (
    Box,
    RecoveryError,
    ReLUNetwork,
    canonical_complex,
    line_breakpoints,
    network_oracle,
    same_function,
    tropical_weights,
)
from polyrelu.errors import InvalidArgumentError, UsageError
from polyrelu.examples import generic_network
from polyrelu.formulas import parallel_equations
from polyrelu.geometry import Polyhedron
from polyrelu.geometry.rational import primitive_integer_row, row_value
from polyrelu.recovery.breakpoints import (
    breakpoint_at,
    breakpoint_data,
    breakpoints_on_line,
    domain_inequalities,
    is_breakpoint_along,
    line_range,
    segment_breakpoints,
)
from polyrelu.recovery.completion import complete_families, complete_families_at_breakpoints
from polyrelu.recovery.control import (
    BudgetExhausted,
    Clock,
    MissedBreakpoint,
    StageFailed,
    TimeSpent,
)
from polyrelu.recovery.driver import _along_text, _families_text
from polyrelu.recovery.families import (
    fix_family,
    formula_family,
    merge_families,
    sign_rows,
    solve_rows,
)
from polyrelu.recovery.first_layer import (
    crossing_hyperplanes,
    explained_by,
    first_layer_hyperplane,
    hyperplane_neuron,
    hyperplanes_crossing,
    partly_bent_hyperplanes,
    straight_hyperplane,
    walk_hyperplane,
)
from polyrelu.recovery.next_layer import orientation_by_search, second_chance
from polyrelu.recovery.numerics import (
    ExactNumerics,
    FloatNumerics,
    Numerics,
    numerics_for,
    vadd,
    vscale,
)
from polyrelu.recovery.oracle import Queries, answer_precision
from polyrelu.recovery.orientation import apply_flips, orient_layer
from polyrelu.recovery.output import _families_kept_by_signs, _output_families, fit_output
from polyrelu.recovery.partial import PartialNetwork, direction_map
from polyrelu.recovery.search_lines import Explorer
from polyrelu.recovery.tracing import (
    UNSEEN,
    _bends_at,
    _continue_across,
    _cut_point,
    crossing_point,
    drop_deeper,
    orientations_by_pieces,
    trace_neuron,
)

FAST = settings(max_examples=30, deadline=None, derandomize=True, database=None)


# ---------------------------------------------------------------------------------------------------------------
# helpers (exact linear algebra comes from tests/reference.py: independent of the package's)


def relu(v):
    return max(v, 0)


def proportional(u, v):
    """The factor ``λ != 0`` with ``u = λ v`` (vectors of Fractions), or None."""
    k = next((i for i, b in enumerate(v) if b != 0), None)
    if k is None or u[k] == 0:
        return None
    lam = Fraction(u[k]) / v[k]
    return lam if all(a == lam * b for a, b in zip(u, v)) else None


def turned(row, p):
    """The row of the line through ``p`` whose normal is the row's turned by 45 degrees (never parallel to it)."""
    normal = (row[1] + row[2], row[2] - row[1])
    return (-dot(normal, p), *normal)


def layer_rows(net, l):
    """Layer ``l`` of ``net`` as PartialNetwork rows ``(w, b)``."""
    return [(tuple(w), b) for w, b in zip(net.weights[l], net.biases[l])]


def flipped(rows, flips):
    return [(tuple(-v for v in w), -b) if f else (w, b) for (w, b), f in zip(rows, flips)]


def partial_with(layers, numerics=None, oriented=False):
    partial = PartialNetwork(len(layers[0][0][0]), None, numerics or ExactNumerics())
    partial.layers.extend(list(layer) for layer in layers)
    partial.rebuild(oriented=oriented)
    return partial


def hidden_values(layers, x):
    """Pre-activations of every layer of ``layers`` at ``x``, computed directly."""
    out, h = [], [Fraction(v) for v in x]
    for layer in layers:
        z = [dot(w, h) + b for w, b in layer]
        out.append(z)
        h = [relu(v) for v in z]
    return out


def exact_queries(net, max_queries=math.inf):
    return Queries(network_oracle(net), net.architecture.input_dim, ExactNumerics(), max_queries)


# a generic 2 -> 3 -> 3 -> 1 network: every stage below can be checked against its exact geometry
NET = generic_network((2, 3, 3, 1), seed=0)
COMPLEX = canonical_complex(NET)
WEIGHTS = tropical_weights(COMPLEX)


def _facet_step(K, net, fw):
    """A relative interior point of a facet and a step along its normal that stays in the two regions."""
    p = K[fw.facet].relative_interior_point()
    plus, minus = K[fw.plus_region].signs, K[fw.minus_region].signs
    for e in range(4, 64):
        step = tuple(Fraction(v, 2**e) for v in fw.normal)
        if all(net.signs([a + Fraction(k, 2) * b for a, b in zip(p, step)]) == plus for k in range(1, 5)) and all(
            net.signs([a - Fraction(k, 2) * b for a, b in zip(p, step)]) == minus for k in range(1, 5)
        ):
            return p, step
    raise AssertionError(f"no step from facet {fw.facet} into both its regions")


def _facet_breakpoints():
    queries = exact_queries(NET)
    out = []
    for fw in WEIGHTS.weights().values():
        p, step = _facet_step(COMPLEX, NET, fw)
        out.append((fw, p, step, breakpoint_at(queries, p, step, 2, ExactNumerics())))
    return out


FACET_BREAKPOINTS = _facet_breakpoints()


# ---------------------------------------------------------------------------------------------------------------
# numerics


def test_both_numerics_implement_the_whole_interface():
    abstract = sorted(Numerics.__abstractmethods__)
    assert {"equal", "nullspace", "fit", "orientation", "rationalize_row"} <= set(abstract)
    attributes = ["name", "shrink", "min_width", "continuation_attempts", "continuation_shrink",
                  "orientation_search_width", "max_families", "measures_continuations"]
    for cls in (ExactNumerics, FloatNumerics):
        missing = [name for name in abstract if name not in vars(cls)]
        assert not missing, f"{cls.__name__} leaves {missing} to the interface, which only declares them"
        numerics = cls()
        for name in attributes:
            assert getattr(numerics, name) is not None, (cls.__name__, name)
        assert 0 < numerics.shrink < 1 and 0 < numerics.continuation_shrink < 1 and 0 < numerics.min_width < 1


small_matrices = st.integers(1, 5).flatmap(
    lambda ncols: st.tuples(st.just(ncols), st.lists(st.lists(st.integers(-3, 3), min_size=ncols, max_size=ncols), max_size=5))
)


@FAST
@given(small_matrices)
def test_exact_nullspace_is_the_kernel(case):
    ncols, rows = case
    basis = ExactNumerics().nullspace(rows, ncols)
    assert len(basis) == ncols - rank(rows)
    assert all(len(c) == ncols for c in basis)
    assert all(dot(r, c) == 0 for r in rows for c in basis)
    assert rank(basis) == len(basis)  # independent, so a basis of the kernel (dimension counted above)


@FAST
@given(small_matrices, st.data())
def test_narrowed_nullspace_is_the_kernel_of_all_rows(case, data):
    """Rows added to a system whose null space is known: exact mode keeps the basis when every new row vanishes
    on it (a trace's agreeing pieces), else solves again; either way the kernel of all the rows."""
    ncols, rows = case
    k = data.draw(st.integers(0, len(rows)))
    old, new = rows[:k], rows[k:]
    N = ExactNumerics()
    before = N.nullspace(old, ncols)
    basis = N.narrowed_nullspace(before, rows, new, ncols)
    assert len(basis) == ncols - rank(rows) and rank(basis) == len(basis)
    assert all(dot(r, c) == 0 for r in rows for c in basis)
    if all(dot(r, c) == 0 for r in new for c in before):
        assert basis is before
    assert N.narrowed_nullspace(None, rows, new, ncols) == N.nullspace(rows, ncols)
    assert FloatNumerics(1e-9).narrowed_nullspace(None, rows, new, ncols) == FloatNumerics(1e-9).nullspace(rows, ncols)


@FAST
@given(small_matrices)
def test_float_nullspace_spans_the_exact_kernel(case):
    ncols, rows = case
    r = rank(rows)
    if r:
        # well conditioned: the non-zero singular values (of the rows scaled to max-abs 1, as nullspace scales
        # them) far above the null-space gap of 1e-9 · 1e5
        M = np.array([row for row in rows if any(row)], dtype=float)
        s = np.linalg.svd(M / np.abs(M).max(axis=1, keepdims=True), compute_uv=False)
        assume(s[r - 1] >= 1e-2 * s[0])
    exact = ExactNumerics().nullspace(rows, ncols)
    measured = FloatNumerics(1e-9).nullspace(rows, ncols)
    assert len(measured) == len(exact)
    if not exact:
        return
    Q1 = np.linalg.qr(np.array(exact, dtype=float).T)[0]
    Q2 = np.linalg.qr(np.array(measured, dtype=float).T)[0]
    cosines = np.linalg.svd(Q1.T @ Q2, compute_uv=False)  # of the principal angles between the two spaces
    assert cosines.min() > 1 - 1e-9


class FakeRegion:
    """What :meth:`Numerics.fit` needs of a region: where to explore when its block contradicts the others."""

    def __init__(self, k):
        self.k = k

    def relative_interior_point(self):
        return (Fraction(self.k), Fraction(-self.k))

    @property
    def polyhedron(self):
        return Polyhedron(vertices=[self.relative_interior_point()])


def _blocks(seed, nregions=8, ncols=3, n0=2):
    rng = np.random.default_rng(seed)
    x = tuple(Fraction(int(v), 8) for v in rng.integers(-40, 40, size=ncols))
    blocks = []
    for _ in range(nregions):
        while True:
            F = [tuple(Fraction(int(v)) for v in rng.integers(-5, 6, size=ncols)) for _ in range(n0 + 1)]
            if rank(F) == ncols:  # every block alone determines x: a corrupted block is the first contradiction
                break
        blocks.append((F, tuple(dot(row, x) for row in F)))
    return x, blocks


@pytest.mark.parametrize("seed", range(3))
def test_fit_solves_consistent_blocks_and_locates_a_contradicting_region(seed):
    x, blocks = _blocks(seed)
    regions = [FakeRegion(k) for k in range(len(blocks))]
    assert ExactNumerics().fit(blocks, regions) == x
    measured = FloatNumerics(1e-9).fit(blocks, regions)
    assert max(abs(float(a - b)) for a, b in zip(measured, x)) < 1e-9 * (1 + max(abs(float(v)) for v in x))
    # an underdetermined consistent system: some solution
    few = [(F[:1], t[:1]) for F, t in blocks[:2]]
    solution = ExactNumerics().fit(few, regions[:2])
    assert all(dot(F[0], solution) == t[0] for F, t in few)
    for bad in (3, 6):
        F, t = blocks[bad]
        corrupted = list(blocks)
        corrupted[bad] = (F, (t[0] + 1, *t[1:]))
        for numerics in (ExactNumerics(), FloatNumerics(1e-9)):
            with pytest.raises(MissedBreakpoint) as caught:
                numerics.fit(corrupted, regions)
            assert caught.value.point == regions[bad].relative_interior_point(), numerics.name
            assert numerics.fit(corrupted, regions, locate=False) is None


def _orientation_system(seed, K=2, n=4, extra_rows=4):
    rng = np.random.default_rng(seed)
    beta = [Fraction(int(v), 4) for v in rng.integers(-20, 20, size=K)]
    t = [Fraction(int(v)) for v in rng.integers(0, 2, size=n)]
    while True:
        rows = [tuple(Fraction(int(v)) for v in rng.integers(-4, 5, size=K + n)) for _ in range(K + n + extra_rows)]
        if rank(rows) == K + n:
            break
    return beta + t, rows, [dot(r, beta + t) for r in rows]


@pytest.mark.parametrize("seed", range(4))
def test_orientation_recovers_planted_flips_and_biases(seed):
    x, rows, rhs = _orientation_system(seed)
    assert list(ExactNumerics().orientation(rows, rhs, 2, 0, 4, 16, Clock(), 1)) == x
    measured = FloatNumerics(1e-9).orientation(rows, rhs, 2, 0, 4, 16, Clock(), 1)
    assert measured[2:] == x[2:]  # the flips exactly
    assert all(abs(float(a - b)) < 1e-9 for a, b in zip(measured[:2], x[:2]))


def test_exact_orientation_uses_the_0_1_condition_and_refuses_what_it_cannot_decide():
    N = ExactNumerics()
    # β = 3/2 and t1 + 2 t2 = 2: linear algebra leaves t2 free, only t = (0, 1) is 0/1
    rows = [(1, 0, 0), (0, 1, 2)]
    assert list(N.orientation(rows, [Fraction(3, 2), 2], 1, 0, 2, 16, Clock(), 1)) == [Fraction(3, 2), 0, 1]
    with pytest.raises(StageFailed, match="no 0/1 orientation of layer 1"):
        N.orientation(rows, [Fraction(3, 2), 4], 1, 0, 2, 16, Clock(), 1)  # t1 + 2 t2 = 4: t = (4, 0) or (2, 1)
    with pytest.raises(StageFailed, match="no orientation of layer 1"):
        N.orientation([*rows, (0, 1, 2)], [Fraction(3, 2), 2, 3], 1, 0, 2, 16, Clock(), 1)  # inconsistent
    with pytest.raises(StageFailed, match="biases of layer 2 are undetermined"):
        N.orientation([(0, 1, 0), (0, 0, 1)], [0, 1], 1, 0, 2, 16, Clock(), 1)
    with pytest.raises(StageFailed, match="undetermined in 2 neurons"):
        N.orientation([(1, 0, 0)], [1], 1, 0, 2, 1, Clock(), 1)  # max_free = 1


def test_float_orientation_refuses_what_it_does_not_search():
    F = FloatNumerics(1e-9)
    with pytest.raises(StageFailed, match="at most 14"):
        F.orientation([(1,) + (0,) * 15], [0], 1, 0, 15, 16, Clock(), 1)
    with pytest.raises(StageFailed, match="null space"):
        F.orientation([(1, 0, 0)], [0], 1, 1, 1, 16, Clock(), 1)
    # β = 1 and t1 - t2 = 1/2: no 0/1 orientation fits
    with pytest.raises(StageFailed, match="stands out"):
        F.orientation([(1, 0, 0), (0, 1, -1)], [1, 0.5], 1, 0, 2, 16, Clock(), 1)


def test_float_orientation_refuses_a_tie():
    # β = 1 and t1 - t2 = 0: t = (0, 0) and (1, 1) fit equally well, no orientation stands out
    with pytest.raises(StageFailed, match="stands out"):
        FloatNumerics(1e-9).orientation([(1, 0, 0), (0, 1, -1)], [1, 0], 1, 0, 2, 16, Clock(), 1)


def test_numerics_for_checks_the_tolerance_and_picks_the_mode():
    assert isinstance(numerics_for("f", False, None), ExactNumerics)
    assert numerics_for("f", False, None).tolerance is None
    with pytest.raises(UsageError, match="float oracles"):
        numerics_for("f", False, 1e-6)
    for bad in (0, -1e-3, 1, 2.5, float("nan"), float("inf")):
        with pytest.raises(UsageError):
            numerics_for("f", True, bad)
    with pytest.raises(InvalidArgumentError):
        numerics_for("f", True, "1e-6")
    with pytest.raises(InvalidArgumentError):
        numerics_for("f", 1, None)
    chosen = numerics_for("f", True, 1e-6)
    assert isinstance(chosen, FloatNumerics) and chosen.tolerance == 1e-6
    assert numerics_for("f", True, None).tolerance is None  # until the first answer


class FakeTensor:
    """A tensor of some dtype, as torch answers: ``dtype`` and ``tolist``."""

    def __init__(self, values, dtype):
        self.values, self.dtype = values, dtype

    def tolist(self):
        return list(self.values)


@pytest.mark.parametrize(
    "answer, tolerance",
    [
        (lambda x: np.float32(x[0] + 2 * x[1]), 1e-4),
        (lambda x: np.array([x[0], x[1]], dtype=np.float16), 1e-2),
        (lambda x: FakeTensor([x[0] - x[1]], "torch.bfloat16"), 1e-2),
        (lambda x: float(x[0]), 1e-9),
        (lambda x: [np.float64(x[0])], 1e-9),
    ],
    ids=["numpy float32", "numpy float16 array", "torch-like bfloat16", "python float", "list of float64"],
)
def test_float_tolerance_follows_the_first_answers_precision(answer, tolerance):
    numerics = numerics_for("f", True, None)
    queries = Queries(answer, 2, numerics, 10)
    queries((Fraction(1, 2), Fraction(3)))
    assert numerics.tolerance == tolerance
    chosen = FloatNumerics(1e-6)
    Queries(answer, 2, chosen, 10)((1, 2))
    assert chosen.tolerance == 1e-6  # a given tolerance wins


def test_answer_precision_reads_the_dtype():
    assert answer_precision(np.float32(1)) == "float32"
    assert answer_precision(np.zeros(2, dtype=np.float16)) == "float16"
    assert answer_precision([np.float32(1), np.float32(2)]) == "float32"
    assert answer_precision(FakeTensor([1.0], "torch.bfloat16")) == "bfloat16"
    assert answer_precision(1.5) == answer_precision(Fraction(1, 3)) == answer_precision((1, 2)) == "float64"


# ---------------------------------------------------------------------------------------------------------------
# oracle


def test_queries_cache_count_and_budget():
    asked = []

    def oracle(x):
        asked.append(x)
        return (x[0] + x[1],)

    queries = Queries(oracle, 2, ExactNumerics(), max_queries=3)
    assert queries((1, 2)) == (3,)
    assert queries([Fraction(1), Fraction(2)]) == (3,)  # the same point, not asked again
    assert len(asked) == 1 and queries.count == 1
    queries((0, 0))
    queries((0, 1))
    assert queries.count == 3
    with pytest.raises(BudgetExhausted):
        queries((5, 5))
    assert len(asked) == 3 and queries((0, 1)) == (1,)  # a cached point is free after the budget is spent
    assert queries.output_dim == 1


def test_queries_stop_at_the_deadline():
    clock = Clock(3600)
    queries = Queries(lambda x: (0,), 2, ExactNumerics(), 10, clock)
    queries((0, 0))
    clock.deadline = time.monotonic() - 1  # expired
    clock.stage = "tracing layer-2 hypersurfaces"
    with pytest.raises(TimeSpent, match="tracing layer-2"):
        queries((1, 1))
    assert Clock().deadline is None


def test_float_mode_asks_floats_and_makes_answers_exact():
    seen = []

    def oracle(x):
        seen.append(x)
        return np.array([0.1, -2.5])

    queries = Queries(oracle, 2, FloatNumerics(1e-9), 5)
    assert queries((Fraction(1, 3), 2)) == (Fraction(0.1), Fraction(-5, 2))
    assert all(type(v) is float for v in seen[0]) and seen[0][0] == 1 / 3
    exact = Queries(lambda x: ("1/3", Fraction(2, 7), 4), 1, ExactNumerics(), 5)
    assert exact((Fraction(1, 3),)) == (Fraction(1, 3), Fraction(2, 7), Fraction(4))


@pytest.mark.parametrize(
    "answers, numerics, message",
    [
        ([(float("nan"),)], FloatNumerics(1e-9), "not a finite number"),
        ([(float("inf"), 1.0)], FloatNumerics(1e-9), "not a finite number"),
        ([(1.5,)], ExactNumerics(), "exact recovery needs exact values"),
        ([(1, 2), (1, 2, 3)], ExactNumerics(), "3 entries, earlier answers had 2"),
        ([()], ExactNumerics(), "empty"),
        ([("one",)], ExactNumerics(), "entry 0"),
    ],
    ids=["nan", "inf", "float in exact mode", "changing length", "empty", "not a number"],
)
def test_queries_refuse_what_is_not_a_function_value(answers, numerics, message):
    it = iter(answers)
    queries = Queries(lambda x: next(it), 1, numerics, 10)
    with pytest.raises(RecoveryError, match=message):
        for k in range(len(answers)):
            queries((k,))


def test_queries_take_points_with_more_digits_than_str_shows():
    # a trace's points gain digits region by region; str() of an integer stops at 4,300 digits, and the message
    # naming the point was once built for every query, so such a point ended recovery with a bare ValueError
    big = 10**5000
    x = (Fraction(big + 1, big), Fraction(-big, 3))
    queries = Queries(lambda y: (y[0] + y[1],), 2, ExactNumerics(), 10)
    assert queries(x) == (x[0] + x[1],)
    refusing = Queries(lambda y: (1.5,), 2, ExactNumerics(), 10)
    with pytest.raises(RecoveryError, match=r"x ≈ \(1, -inf\).*exact recovery needs exact values"):
        refusing(x)


def test_queries_refuse_a_non_callable_oracle():
    with pytest.raises(RecoveryError, match="callable"):
        Queries([1, 2], 2, ExactNumerics(), 10)


# ---------------------------------------------------------------------------------------------------------------
# breakpoints

# denominators up to 12 keep the breakpoints off the bisection's split points of [-3, 5] (dyadic with
# denominator 16 or more): see test_segment_breakpoints_at_a_split_point
rationals = st.integers(1, 12).flatmap(lambda q: st.integers(-3 * q + 1, 5 * q - 1).map(lambda p: Fraction(p, q)))


@FAST
@given(
    st.lists(st.tuples(rationals, st.integers(-3, 3), st.integers(-3, 3)), min_size=1, max_size=5),
    st.integers(-3, 3),
    st.integers(-3, 3),
)
def test_segment_breakpoints_are_the_bends_of_a_sum_of_relus(terms, slope, offset):
    def g(t):
        return (
            sum(a * relu(t - c) for c, a, _ in terms) + slope * t + offset,
            sum(b * relu(t - c) for c, _, b in terms),
        )

    def slopes(t, side):  # the slope of g just left (side -1) or right (side 1) of t
        active = [(a, b) for c, a, b in terms if (c < t if side < 0 else c <= t)]
        return (slope + sum(a for a, _ in active), sum(b for _, b in active))

    a, b = Fraction(-3), Fraction(5)
    bends = sorted({c for c, _, _ in terms if slopes(c, -1) != slopes(c, 1)})
    found = segment_breakpoints(g, a, b, ExactNumerics())
    assert [k[0] for k in found] == bends
    for k, (t, left, right, t0, t1) in enumerate(found):
        assert left == slopes(t, -1) and right == slopes(t, 1)
        # g is linear on [t0, t] and [t, t1]: no other breakpoint there
        assert a <= t0 < t < t1 <= b
        assert k == 0 or found[k - 1][0] <= t0
        assert k == len(found) - 1 or t1 <= found[k + 1][0]


def test_segment_breakpoints_at_a_split_point():
    split = Fraction(-4) + 8 * Fraction(53, 128)
    found = segment_breakpoints(lambda t: (relu(t - split) + relu(t - 2),), Fraction(-4), Fraction(4), ExactNumerics())
    assert [k[0] for k in found] == [split, 2]


one_layer_networks = st.integers(1, 4).flatmap(
    lambda k: st.tuples(
        st.lists(st.lists(st.integers(-3, 3), min_size=2, max_size=2), min_size=k, max_size=k),
        st.lists(st.integers(-4, 4), min_size=k, max_size=k),
        st.lists(st.lists(st.integers(-2, 2), min_size=k, max_size=k), min_size=2, max_size=2),
    )
)


@FAST
@given(
    one_layer_networks,
    st.tuples(st.integers(-3, 3), st.integers(-3, 3)),
    st.tuples(st.integers(-3, 3), st.integers(-3, 3)).filter(any),
)
def test_breakpoints_on_a_whole_line_are_where_visible_neurons_change_sign(params, point, direction):
    W, b, V = params
    net = ReLUNetwork([W, V], [b, [0, 0]])
    # along the line neuron i is relu(z_i + s_i t): it bends at -z_i / s_i by v_i |s_i|
    jumps = {}
    for i, (w, bias) in enumerate(zip(W, b)):
        s = dot(w, direction)
        if s:
            t = -(dot(w, point) + bias) / s
            jumps[t] = tuple(jumps.get(t, (0, 0))[j] + V[j][i] * abs(s) for j in range(2))
    expected = sorted(t for t, jump in jumps.items() if any(jump))  # denominators <= 18, off the split points
    found = breakpoints_on_line(exact_queries(net), point, direction, None, ExactNumerics())
    assert [k[0] for k in found] == expected


def test_breakpoint_at_a_facet_gives_its_hyperplane_maps_and_weight():
    for fw, p, step, bp in FACET_BREAKPOINTS:
        if not any(fw.weight):
            assert bp is None
            continue
        assert bp is not None, fw.facet
        # the facet's affine hull, as a primitive row oriented along the step
        hull = primitive_integer_row(COMPLEX[fw.facet].polyhedron.equations[0])
        assert bp.row in (hull, tuple(-v for v in hull))
        assert row_value(bp.row, [a + b for a, b in zip(p, step)]) > 0
        # the side maps are f's affine maps on the two regions, + the side the row is positive on
        assert bp.plus == COMPLEX.affine_map(fw.plus_region if dot(step, fw.normal) > 0 else fw.minus_region)
        assert bp.minus == COMPLEX.affine_map(fw.minus_region if dot(step, fw.normal) > 0 else fw.plus_region)
        # J+ - J- = jump ⊗ ν with ν the primitive integer normal (the row's normal over its gcd)
        normal = [Fraction(v, math.gcd(*bp.row[1:])) for v in bp.row[1:]]
        assert all(
            [a - b for a, b in zip(Ap, Am)] == [w * v for v in normal] for Ap, Am, w in zip(bp.plus[0], bp.minus[0], bp.jump)
        )
    assert sum(bp is not None for *_, bp in FACET_BREAKPOINTS) >= 30


def test_breakpoint_at_in_float_mode_measures_the_facets_hyperplane():
    F = FloatNumerics(1e-9)
    queries = Queries(network_oracle(NET, float_output=True), 2, F, math.inf)
    for fw, p, step, exact in FACET_BREAKPOINTS:
        bp = breakpoint_at(queries, p, step, 2, F)
        assert bp is not None, fw.facet
        assert F.on_hyperplane(exact.row, bp) and not F.on_hyperplane(turned(exact.row, p), bp)
        # J+ - J- = jump ⊗ ν for the measured row's primitive normal ν, within the tolerance
        true_jump = [[a - b for a, b in zip(Ap, Am)] for Ap, Am in zip(exact.plus[0], exact.minus[0])]
        divisor = math.gcd(*bp.row[1:])
        measured = [[float(w * v / divisor) for v in bp.row[1:]] for w in bp.jump]
        assert np.allclose(measured, np.array(true_jump, dtype=float), rtol=1e-6, atol=1e-9 * float(max(abs(v) for row in true_jump for v in row)))


def test_breakpoint_jump_is_the_tropical_weight():
    for fw, _, _, bp in FACET_BREAKPOINTS:
        if bp is not None:
            assert bp.jump == fw.weight, fw.facet


def test_is_breakpoint_along_a_first_layer_hyperplane_and_not_elsewhere():
    queries = exact_queries(NET)
    N = ExactNumerics()
    checked = 0
    for fw, p, _, bp in FACET_BREAKPOINTS:
        if bp is None or fw.neurons[0][0] != 1:
            continue
        assert is_breakpoint_along(queries, p, bp.row, N) == p
        # a hyperplane through p at another angle: f does not bend across it alone
        assert is_breakpoint_along(queries, p, turned(bp.row, p), N) is None
        checked += 1
    assert checked >= 10
    for region in COMPLEX.regions():
        x = region.relative_interior_point()
        assert is_breakpoint_along(queries, x, (0, 1, 0), N) is None


@FAST
@given(st.tuples(st.integers(-8, 8), st.integers(-8, 8)).filter(any), st.tuples(st.integers(-7, 7), st.integers(-7, 7)))
def test_line_range_ends_on_the_domain_boundary(direction, inside):
    rows = domain_inequalities(Box(-1, 2), 2)
    point = tuple(Fraction(v, 8) for v in inside)  # inside the box
    lo, hi = line_range(point, direction, rows)
    assert lo < 0 < hi
    for t in (lo, hi):
        x = [a + t * d for a, d in zip(point, direction)]
        assert all(row_value(r, x) >= 0 for r in rows) and any(row_value(r, x) == 0 for r in rows)
    assert line_range((Fraction(3), Fraction(3)), (1, 0), rows) is None  # a line missing the box
    assert domain_inequalities(None, 2) is None


# ---------------------------------------------------------------------------------------------------------------
# partial


@pytest.mark.parametrize("depth, oriented", [(1, False), (1, True), (2, False), (2, True)])
def test_features_are_the_known_layers_affine_maps(depth, oriented):
    layers = [layer_rows(NET, l) for l in range(depth)]
    partial = partial_with(layers, oriented=oriented)
    n = len(layers[-1])
    width = n + 1 if oriented else 2 * n + 1
    rng = np.random.default_rng(depth)
    coefficients = [tuple(Fraction(int(v), 4) for v in rng.integers(-12, 13, size=width)) for _ in range(3)]
    for region in partial.complex.regions():
        x = region.relative_interior_point()
        z = hidden_values(layers, x)[-1]
        F = partial.features(region)
        assert len(F) == 3 and all(len(row) == width for row in F)
        for c in coefficients:
            direct = sum(ci * relu(zi) for ci, zi in zip(c, z)) + c[-1]
            if not oriented:
                direct += sum(ci * zi for ci, zi in zip(c[n:], z))
            affine = [dot(row, c) for row in F]
            assert affine[0] + dot(affine[1:], x) == direct
    # in integers for scale-blind uses: a positive integer multiple of each region's features
    for region in partial.complex.regions():
        F, G = partial.features(region), partial.integer_features(region)
        assert all(type(v) is int for row in G for v in row)
        scale = {Fraction(g) / f for row_f, row_g in zip(F, G) for f, g in zip(row_f, row_g) if f}
        assert len(scale) == 1 and scale.pop() > 0 and all(not g for row_f, row_g in zip(F, G) for f, g in zip(row_f, row_g) if not f)
        assert partial.equation_features(region) == [tuple(row[j] for j in partial.basis) for row in G]
    # the basis columns are independent over all regions and span every feature column
    stacked = [row for R in partial.complex.regions() for row in partial.features(R)]
    basis_columns = [[row[j] for row in stacked] for j in partial.basis]
    assert rank(basis_columns) == len(partial.basis) == rank([[row[j] for row in stacked] for j in range(width)])


def test_features_chosen_again_on_one_complex_are_the_first_choice_and_a_rebuild_forgets_them():
    # a layer-2 family of _family_net(-2): the product columns are a third choice of features on the same complex
    net, partial, _ = _picked_family()
    partial.rebuild(oriented=True)
    first = (list(partial.basis), {R.id: partial.features(R) for R in partial.complex.regions()})
    partial.use_features(oriented=True, products=True)
    assert len(partial.products) == 1 and len(partial.basis) > len(first[0])
    partial.use_features(oriented=True)
    assert (partial.basis, {R.id: partial.features(R) for R in partial.complex.regions()}) == first
    # flipped and rebuilt: the maps are the new network's, not remembered from the old one
    apply_flips(partial, [True, False])
    partial.rebuild(oriented=True)
    for R in partial.complex.regions():
        assert partial.pre_activation_maps(R) == partial.net.pre_activation_maps(R.signs)
        x = R.relative_interior_point()
        z = hidden_values(partial.layers, x)[-1]
        F = partial.features(R)  # column 0: relu of the flipped neuron
        assert F[0][0] + dot([row[0] for row in F[1:]], x) == relu(z[0])


@FAST
@given(
    st.lists(st.lists(st.integers(-3, 3), min_size=4, max_size=4), min_size=3, max_size=3),
    st.lists(st.integers(-3, 3), min_size=4, max_size=4),
    st.lists(st.integers(-3, 3), min_size=4, max_size=4),
    st.integers(-2, 2),
    st.booleans(),
)
def test_parallel_equations_hold_exactly_for_multiples_of_h(F, c0, c, lam, on_h):
    h = tuple(dot(row, c0) for row in F)
    assume(any(h))
    # c is either a point where F c = lam · h or an arbitrary one
    if on_h:
        c = tuple(lam * v for v in c0)
    Fc = tuple(dot(row, c) for row in F)
    rows = parallel_equations(F, h)
    assert len(rows) == len(h) - 1
    assert all(dot(r, c) == 0 for r in rows) == (rank([Fc, h]) <= 1)


def test_partial_network_explains_the_breakpoints_of_its_neurons_only():
    partial = partial_with([layer_rows(NET, 0)])
    for fw, p, _, bp in FACET_BREAKPOINTS:
        if bp is not None:
            first_layer = fw.neurons[0][0] == 1
            assert partial.explains(bp) == first_layer, fw.facet
            assert (partial.locate(p) is None) == first_layer  # on a known hyperplane, or inside a region
    some = next(bp for *_, bp in FACET_BREAKPOINTS if bp is not None)
    assert not PartialNetwork(2, None, ExactNumerics()).explains(some)  # no layer known


# ---------------------------------------------------------------------------------------------------------------
# first_layer


def test_hyperplane_neuron_accepts_first_layer_hyperplanes_only():
    queries = exact_queries(NET)
    verdicts = {}
    for fw, _, _, bp in FACET_BREAKPOINTS:
        if bp is None:
            continue
        (layer, _), = fw.neurons
        accepted = hyperplane_neuron(queries, bp, Fraction(1), ExactNumerics(), None)
        assert accepted == (layer == 1), (fw.facet, fw.neurons)
        verdicts.setdefault(layer, set()).add(accepted)
    assert verdicts == {1: {True}, 2: {False}}


def test_hyperplane_neuron_one_sided_accepts_a_partly_bent_hyperplane_and_a_last_piece_alike():
    # f = relu(relu(x1) - relu(x2)): f bends along x1 = 0 only where x2 < 0 (downstream off where x2 > 0), and
    # along the layer-2 ray x1 = x2 > 0, unbounded one way only: one-sided acceptance cannot tell them apart
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, -1]], [[1]]], [[0, 0], [0], [0]])
    queries = exact_queries(net)
    N = ExactNumerics()
    first = breakpoint_at(queries, (Fraction(0), Fraction(-1)), (Fraction(1, 4), Fraction(0)), 2, N)
    ray = breakpoint_at(queries, (Fraction(1), Fraction(1)), (Fraction(1, 4), Fraction(-1, 4)), 2, N)
    assert first.row in ((0, 1, 0), (0, -1, 0)) and ray.row in ((0, 1, -1), (0, -1, 1))
    for bp in (first, ray):
        assert not hyperplane_neuron(queries, bp, Fraction(1), N, None)
        assert hyperplane_neuron(queries, bp, Fraction(1), N, None, one_sided=True)


# ---------------------------------------------------------------------------------------------------------------
# families

SQUARE = canonical_complex(ReLUNetwork([[[1, 0], [0, 1], [1, 1]], [[1, 1, 1]]], [[0, 0, -1], [0]]))


@FAST
@given(
    st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2), st.integers(-2, 2)), min_size=3, max_size=3),
    st.tuples(st.integers(-2, 2), st.integers(-2, 2)),
    st.sampled_from([1, -1]),
)
def test_sign_rows_hold_exactly_when_the_function_has_the_sign(maps, t, s):
    for region in SQUARE.regions():
        ieqs, eqns, strict = set(), set(), set()
        sign_rows(region, s, maps, ieqs, eqns, strict)
        holds = (
            all(row_value(r, t) >= 0 for r in ieqs) and all(row_value(r, t) == 0 for r in eqns) and all(row_value(r, t) > 0 for r in strict)
        )
        phi = tuple(a + t[0] * g + t[1] * h for a, g, h in zip(*maps))
        # s·phi > 0 on the open region iff {x in the region : s·phi(x) <= 0} has no interior
        bad = Polyhedron(ieqs=[*region.polyhedron.inequalities, tuple(-s * v for v in phi)], ambient_dim=2)
        assert holds == (bad.dimension() < 2), (region.id, phi)


def _rows_through(point, coefficients, slacks):
    return {(s - dot(a, point), *a) for a, s in zip(coefficients, slacks)}


@FAST
@given(
    st.integers(1, 3).flatmap(
        lambda n: st.tuples(
            st.lists(st.builds(Fraction, st.integers(-6, 6), st.integers(1, 4)), min_size=n, max_size=n),
            st.lists(st.tuples(st.lists(st.integers(-3, 3), min_size=n, max_size=n), st.integers(0, 2)), max_size=5),
            st.lists(st.lists(st.integers(-3, 3), min_size=n, max_size=n), max_size=2),
            st.lists(st.tuples(st.lists(st.integers(-3, 3), min_size=n, max_size=n), st.integers(1, 2)), max_size=3),
        )
    )
)
def test_solve_rows_finds_a_point_of_a_feasible_system_and_none_otherwise(case):
    point, ieq_rows, eqn_rows, strict_rows = case
    n = len(point)
    ieqs = _rows_through(point, [a for a, _ in ieq_rows], [s for _, s in ieq_rows])
    eqns = _rows_through(point, eqn_rows, [0] * len(eqn_rows))
    strict = _rows_through(point, [a for a, _ in strict_rows], [s for _, s in strict_rows])

    def satisfies(t):
        return all(row_value(r, t) >= 0 for r in ieqs) and all(row_value(r, t) == 0 for r in eqns) and all(row_value(r, t) > 0 for r in strict)

    assert satisfies(point)  # feasible by construction
    t = solve_rows(ieqs, eqns, strict, n)
    assert t is not None and len(t) == n and satisfies(t)
    # 1 + Σ t >= 0 and, strictly, its negation: infeasible (though the closed polyhedron is not empty)
    row = (1, *(1,) * n)
    assert solve_rows(ieqs | {row}, eqns, strict | {tuple(-v for v in row)}, n) is None
    # an empty polyhedron: x_1 >= 1 and x_1 <= 0
    unit = tuple(int(i == 0) for i in range(n))
    assert solve_rows(ieqs | {(-1, *unit), (0, *(-v for v in unit))}, eqns, strict, n) is None


@FAST
@given(st.lists(st.integers(-5, 5), min_size=2, max_size=3).filter(any), st.lists(st.lists(st.integers(-3, 3), min_size=3, max_size=3), min_size=1, max_size=4))
def test_solve_rows_homogeneous_returns_a_unit_point_of_the_cone(direction, coefficients):
    n = len(direction)
    strict = set()
    for a in coefficients:
        a = a[:n]
        v = dot(a, direction)
        if v:
            strict.add((0, *(x if v > 0 else -x for x in a)))  # a·t > 0 (or < 0) holds at ``direction``
    assume(strict)
    t = solve_rows(set(), set(), strict, n, homogeneous=True)
    assert t is not None and max(abs(v) for v in t) == 1
    assert all(row_value(r, t) > 0 for r in strict)


# ---------------------------------------------------------------------------------------------------------------
# tracing


def _true_formula_features(net, j, flips=None):
    """Neuron ``j`` of layer 2 on the unoriented features (relu(ẑ_i), ẑ_i, 1) of layer 1 flipped by ``flips``."""
    W, b = net.weights[1][j], net.biases[1][j]
    n = len(W)
    flips = flips or [False] * n
    # relu(z) = relu(-ẑ) = relu(ẑ) - ẑ for a flipped neuron ẑ = -z
    return tuple(W) + tuple(-w if f else 0 for w, f in zip(W, flips)) + (b,)


def _in_basis(partial, c_features):
    """The basis coordinates of a feature-column vector (exactly, over all regions)."""
    regions = partial.complex.regions()
    rows = [row for R in regions for row in partial.reduced(R)]
    rhs = [dot(row, c_features) for R in regions for row in partial.features(R)]
    x = solve(rows, rhs)
    assert x is not None
    return x


def test_trace_neuron_finds_a_second_layer_neuron_up_to_a_factor():
    partial = partial_with([layer_rows(NET, 0)])
    queries = exact_queries(NET)
    regions = partial.complex.regions()
    started = {}
    for fw, _, _, bp in FACET_BREAKPOINTS:
        if bp is not None and fw.neurons[0][0] == 2:
            started.setdefault(fw.neurons[0][1], bp)
    assert sorted(started) == [0, 1, 2]
    for j, bp in started.items():
        c, crossed, span, pieces = trace_neuron(queries, partial, bp, ExactNumerics())
        assert span == ()
        true = _true_formula_features(NET, j)
        found = [dot(row, c) for R in regions for row in partial.reduced(R)]
        wanted = [dot(row, true) for R in regions for row in partial.features(R)]
        assert proportional(found, wanted) is not None, j
        # the regions crossed: those in which the neuron's zero set has a piece of dimension n0 - 1
        expected = set()
        for R in regions:
            zero = tuple(dot(row, true) for row in partial.features(R))
            cut = Polyhedron(ieqs=R.polyhedron.inequalities, eqns=[zero], ambient_dim=2)
            if any(zero[1:]) and cut.dimension() == 1:
                expected.add(R.id)
        assert crossed == expected
        # each piece is the neuron's hyperplane on its region, all oriented alike
        factors = [proportional(h, [dot(row, true) for row in partial.features(partial.complex[rid])]) for rid, h in pieces.items()]
        assert None not in factors and len({f > 0 for f in factors}) == 1
        assert set(pieces) <= crossed


def test_drop_deeper_drops_a_formula_that_bends_at_another():
    # layer 1: x1, x2; layer 2: x1 - 1 and x2; layer 3: z = relu(x1 - 1) + x2 - 2 (which bends at x1 = 1)
    # and relu(x1 - 1) + 5 (always on, so that f bends along x1 = 1 everywhere); f = relu(z) + relu(...)
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 1], [1, 0]], [[1, 1]]], [[0, 0], [-1, 0], [-2, 5], [0]])
    partial = partial_with([[((1, 0), 0), ((0, 1), 0)]])
    assert partial.basis == [0, 1, 2, 3, 4]  # relu(x1), relu(x2), x1, x2, 1
    quadrant = partial.locate((Fraction(1), Fraction(2)))
    deeper = ((0, 1, 0, 0, -2), {quadrant.id})  # x2 - 2: the layer-3 neuron left of x1 = 1
    neuron = ((1, 0, 0, 0, -1), {quadrant.id})  # x1 - 1: the layer-2 neuron it crosses at (1, 2)
    queries = exact_queries(net)
    assert drop_deeper(queries, partial, [neuron, deeper], ExactNumerics()) == [neuron]
    assert drop_deeper(queries, partial, [deeper, neuron], ExactNumerics()) == [neuron]
    # the true continuation of the layer-3 hypersurface right of x1 = 1 (x1 + x2 - 3) bends at x1 = 1 too
    right = ((1, 1, 0, 0, -3), {quadrant.id})
    assert drop_deeper(queries, partial, [neuron, right], ExactNumerics()) == [neuron]


def _kinked_oracle(x):
    # relu(min(x1 - 1, x1 - x2 - 6)): zero on x1 = 1 below x2 = -5, then on x1 = x2 + 6, which meets x2 = 0 at
    # x1 = 6; a deeper neuron's hypersurface, bending at x2 = -5, a zero set the layer-1 complex lacks
    x1, x2 = (Fraction(v) for v in x)
    return (max(Fraction(0), min(x1 - 1, x1 - x2 - 6)),)


def _wall_beyond(partial, bp):
    """The wall that the hyperplane of ``bp``'s piece meets, and the region beyond it."""
    region = partial.locate(bp.point)
    facet = next(
        partial.complex[f] for f in partial.complex.lattice.facets(region.id)
        if crossing_point(partial.complex[f].polyhedron, bp.row, 2) is not None
    )
    return facet, next(partial.complex[r] for r in partial.complex.lattice.cofacets(facet.id) if r != region.id)


def test_trace_neuron_refuses_a_family_whose_hypersurface_leaves_a_region_unseen():
    # oriented layer 1 (x1, x2): in the quadrant x1 > 0 > x2 the piece x1 = 1 fits every formula
    # a relu(x1) + b relu(x2) + c with a = -c, so alone it would be a family; where x1 = 1 meets x2 = 0,
    # f does not bend beyond, because the hypersurface bent inside the quadrant, which no neuron of layer 2 does
    partial = partial_with([[((1, 0), 0), ((0, 1), 0)]], oriented=True)
    queries = Queries(_kinked_oracle, 2, ExactNumerics(), math.inf)
    bp = breakpoint_data(_kinked_oracle, (1, -10), (Fraction(1, 2), 0))
    assert bp.row == (-1, 1, 0)
    facet, beyond = _wall_beyond(partial, bp)
    assert _continue_across(queries, partial, facet, beyond, bp.row, ExactNumerics()) == UNSEEN
    assert trace_neuron(queries, partial, bp, ExactNumerics()) is None
    # where the hypersurface crosses the wall straight (x1 = 1 all the way up), the piece beyond pins the formula
    straight = lambda x: (max(Fraction(0), Fraction(x[0]) - 1),)  # noqa: E731
    c, crossed, span, pieces = trace_neuron(Queries(straight, 2, ExactNumerics(), math.inf), partial, bp, ExactNumerics())
    assert span == () and len(pieces) == 2
    assert proportional([dot(row, c) for R in partial.complex.regions() for row in partial.reduced(R)],
                        [dot(row, (1, 0, -1)) for R in partial.complex.regions() for row in partial.features(R)]) is not None


def test_continue_across_takes_breakpoints_too_close_to_separate_for_no_continuation():
    # beyond the wall x2 = 0 f bends on x1 = 1 and on x1 = 1 + 10^-40: no segment separates them, which once
    # ended the whole recovery (a StageFailed out of the search); now it is one more segment that does not tell
    eps = Fraction(1, 10**40)

    def close(x):
        x1, x2 = (Fraction(v) for v in x)
        return (max(Fraction(0), x1 - 1) + min(max(Fraction(0), x1 - 1 - eps), max(Fraction(0), x2)),)

    partial = partial_with([[((1, 0), 0), ((0, 1), 0)]], oriented=True)
    queries = Queries(close, 2, ExactNumerics(), math.inf)
    bp = breakpoint_data(close, (1, -10), (Fraction(1, 2), 0))
    assert bp.row == (-1, 1, 0)
    facet, beyond = _wall_beyond(partial, bp)
    with pytest.raises(StageFailed):  # what the search meets there
        segment_breakpoints(lambda t: queries((1 + t, Fraction(1, 1000))), Fraction(-1, 4), Fraction(1, 4), ExactNumerics())
    assert _continue_across(queries, partial, facet, beyond, bp.row, ExactNumerics()) is None


def test_continue_across_does_not_call_a_shallow_crossing_unseen():
    # f bends on x1 - 32 x2 = 5 below x2 = 0 and on x1 - 128 x2 = 5 above: the hypersurface meets the wall x2 = 0
    # at (5, 0) at an angle atan(1/32), and beyond it crosses the segment searched (offset above the wall) 128
    # offsets from its centre, past its ends. Not finding it there says nothing: None, not UNSEEN
    def shallow(x):
        x1, x2 = (Fraction(v) for v in x)
        return (max(Fraction(0), x1 - 5 - (32 if x2 < 0 else 128) * x2),)

    partial = partial_with([[((1, 0), 0), ((0, 1), 0)]], oriented=True)
    queries = Queries(shallow, 2, ExactNumerics(), math.inf)
    bp = breakpoint_data(shallow, (3, Fraction(-1, 16)), (Fraction(1, 8), 0))
    assert bp.row == (-5, 1, -32)
    region = partial.locate(bp.point)
    facet = next(
        partial.complex[f] for f in partial.complex.lattice.facets(region.id)
        if tuple(partial.complex[f].polyhedron.equations[0][1:]) in ((0, 1), (0, -1))
    )
    beyond = next(partial.complex[r] for r in partial.complex.lattice.cofacets(facet.id) if r != region.id)
    assert _continue_across(queries, partial, facet, beyond, bp.row, ExactNumerics()) is None


def test_continue_across_finds_a_continuation_hugging_the_wall():
    # f = relu(g), g = 5 - x1 + 100 x2 below the wall x2 = 0 and 5 - x1 + 10^6 x2 above: the hypersurface meets
    # the wall at (5, 0) at an angle atan(1/100) and runs on at atan(10^-6). The segment parallel to the wall
    # meets the continuation about 1,500 from (5, 0), far past its ends; the search across the wall's side,
    # further and further along it, finds it (beyond, the row 5 - x1 + 10^6 x2)
    def hugging(x):
        x1, x2 = (Fraction(v) for v in x)
        return (max(Fraction(0), 5 - x1 + (100 if x2 < 0 else 10**6) * x2),)

    partial = partial_with([[((1, 0), 0), ((0, 1), 0)]], oriented=True)
    queries = Queries(hugging, 2, ExactNumerics(), math.inf)
    bp = breakpoint_data(hugging, (3, Fraction(-1, 50)), (Fraction(1, 8), 0))
    assert proportional(bp.row, (5, -1, 100))
    region = partial.locate(bp.point)
    facet = next(
        partial.complex[f] for f in partial.complex.lattice.facets(region.id)
        if tuple(partial.complex[f].polyhedron.equations[0][1:]) in ((0, 1), (0, -1))
    )
    beyond = next(partial.complex[r] for r in partial.complex.lattice.cofacets(facet.id) if r != region.id)
    assert _continue_across(queries, partial, facet, beyond, bp.row, ExactNumerics()) is None  # not asked to look
    found = _continue_across(queries, partial, facet, beyond, bp.row, ExactNumerics(), hugging=True)
    assert found not in (None, UNSEEN) and proportional(found, (5, -1, 10**6))
    # where the hypersurface ends at the wall (f = relu(min(g, -x2)), zero above it), the search across finds
    # nothing and makes nothing up
    def stops(x):
        x1, x2 = (Fraction(v) for v in x)
        return (max(Fraction(0), min(5 - x1 + 100 * x2, -x2)),)

    queries = Queries(stops, 2, ExactNumerics(), math.inf)
    assert _continue_across(queries, partial, facet, beyond, bp.row, ExactNumerics(), hugging=True) is None


def _fading_oracle():
    """``f = relu(relu(x1 - 1) - relu(x2 + 1/2))``: ``x1 = 1`` fades above ``x2 = -1/2``.

    ``f`` bends along ``x1 = 1`` below ``x2 = -1/2`` only; above, on the
    downstream zero set ``x1 = 3/2 + x2`` alone, which does not pass through
    ``(1, 0)``.
    """
    def f(x):
        x1, x2 = (Fraction(v) for v in x)
        return (max(Fraction(0), max(Fraction(0), x1 - 1) - max(Fraction(0), x2 + Fraction(1, 2))),)
    return f


def test_a_family_trace_that_fades_is_kept_with_fading_and_its_faded_regions_keep_no_sign():
    # x1 = 1 below the wall x2 = 0 leaves the weight on relu(x2) (off there) free: a family. Beyond the wall f
    # never bends on it again. Without fading that is a deeper neuron's trace ending: refused; with it, the family,
    # the region beyond crossed without a piece
    partial = partial_with([[((1, 0), 1000), ((0, 1), 0)]], oriented=True)
    oracle = _fading_oracle()
    queries = Queries(oracle, 2, ExactNumerics(), math.inf)
    bp = breakpoint_data(oracle, (1, -10), (Fraction(1, 2), 0))
    assert trace_neuron(queries, partial, bp, ExactNumerics()) is None
    c, crossed, span, pieces = trace_neuron(queries, partial, bp, ExactNumerics(), fading=True)
    below, above = partial.locate(bp.point), partial.locate((Fraction(1), Fraction(10)))
    assert crossed == {below.id, above.id} and set(pieces) == {below.id} and len(span) == 2
    assert proportional(c, (1, 0, -1001))
    # any weight on relu(x2) keeps the neuron's signs where they are known: a member is picked
    member = fix_family(partial, span, crossed, pieces)
    assert member is not None and proportional(_affine_on(partial, below, member), pieces[below.id]) > 0


def test_drop_deeper_drops_a_formula_that_bends_at_an_accepted_one():
    # the network of the test above: the layer-2 neuron x1 - 1 accepted by an earlier pass, the layer-3 one traced now
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 1], [1, 0]], [[1, 1]]], [[0, 0], [-1, 0], [-2, 5], [0]])
    partial = partial_with([[((1, 0), 0), ((0, 1), 0)]])
    quadrant = partial.locate((Fraction(1), Fraction(2)))
    deeper = ((0, 1, 0, 0, -2), {quadrant.id})
    neuron = (1, 0, 0, 0, -1)
    queries = exact_queries(net)
    assert drop_deeper(queries, partial, [deeper], ExactNumerics(), accepted=[neuron]) == []
    assert drop_deeper(queries, partial, [deeper], ExactNumerics()) == [deeper]  # alone, nothing shows it bends
    # the accepted formula is never dropped, and a candidate of its layer that crosses it straight stays
    other = ((0, 1, 0, 0, -2), {quadrant.id})
    straight = ReLUNetwork([[[1, 0], [0, 1]], [[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [-1, -2], [0]])
    assert drop_deeper(exact_queries(straight), partial, [other], ExactNumerics(), accepted=[neuron]) == [other]


def test_drop_deeper_judges_a_family_only_where_its_formula_predicts():
    # oriented layer 1 (x1, x2), the neuron z = relu(x2) - 1 - 2 relu(x1) traced in the quadrant x1 < 0 < x2 only:
    # its piece x2 = 1 leaves the weight on relu(x1) (off there) free, a family relu(x2) - 1 + t relu(x1).
    # The member with t = 0 predicts x2 = 1 in x1 > 0 too, where f bends on x2 = 1 + 2 x1 instead; the
    # family predicts nothing there, so that is no fading: the candidate stays (it was dropped as a
    # neuron that fades at no deeper one: 2→3→4→4→1, seed 963484, lost the piece of a layer-3 neuron so)
    net = ReLUNetwork([[[1, 0], [0, 1]], [[-2, 1]], [[1]]], [[0, 0], [-1], [0]])
    partial = partial_with([[((1, 0), 0), ((0, 1), 0)]], oriented=True)
    assert partial.basis == [0, 1, 2]  # relu(x1), relu(x2), 1
    left = partial.locate((Fraction(-1), Fraction(2)))
    family = ((0, 1, -1), {left.id}, ((1, 0, 0), (0, 1, -1)), {left.id: (-1, 0, 1)})
    queries = exact_queries(net)
    assert drop_deeper(queries, partial, [family], ExactNumerics(), fading=True) == [family]
    # the same formula given as determined predicts x2 = 1 beyond x1 = 0, where f is flat: it fades at nothing
    determined = ((0, 1, -1), {left.id}, (), {left.id: (-1, 0, 1)})
    assert drop_deeper(queries, partial, [determined], ExactNumerics(), fading=True) == []


def _fading_oracle_at_a_crossing(bend):
    """``f = relu(D) + relu(E)``, ``D = x2 + bend·relu(x1)``, ``E = -x2 - 100 + relu(x1)``: ``X = x1`` read by both.

    ``f`` bends along ``x1 = 0`` where ``D > 0`` or ``E > 0``: above ``(0, 0)``,
    where ``D`` crosses it, and below ``x2 = -100``; between, ``X`` fades.
    ``D`` runs along ``x2 = 0`` left of ``X`` and along ``x2 = -bend·x1`` right
    of it.
    """
    def f(x):
        x1, x2 = (Fraction(v) for v in x)
        r = max(Fraction(0), x1)
        return (max(Fraction(0), x2 + bend * r) + max(Fraction(0), -x2 - 100 + r),)
    return Queries(f, 2, ExactNumerics(), math.inf)


def test_drop_deeper_keeps_a_neuron_that_fades_where_a_deeper_one_bends_at_it():
    # three rays of f from (0, 0): up (X, visible), left (D), up-right (D beyond X, bend -1). Read as X straight
    # and fading below, D bending at X: the ray up-right is across X from D's ray and on X's side of D's line,
    # which X bending at D cannot explain. Both were dropped as bending at each other
    partial = partial_with([[((1, 0), 100), ((0, 1), 100)]], oriented=True)
    assert partial.basis == [0, 1, 2]  # relu(x1 + 100), relu(x2 + 100), 1
    region = partial.locate((Fraction(0), Fraction(0)))
    neuron = ((1, 0, -100), {region.id}, (), {})  # x1 = 0
    deeper = ((0, 1, -100), {region.id}, (), {})  # x2 = 0: D's piece left of X
    queries = _fading_oracle_at_a_crossing(-1)
    assert not _bends_at(queries, partial, neuron, deeper, ExactNumerics())
    assert _bends_at(queries, partial, deeper, neuron, ExactNumerics())
    assert drop_deeper(queries, partial, [neuron, deeper], ExactNumerics(), fading=True) == [neuron]
    assert drop_deeper(queries, partial, [deeper, neuron], ExactNumerics(), fading=True) == [neuron]
    # D bent the other way (down-right, bend 1): D straight and fading right of X, X bending at it down-right,
    # fits the same three rays; the crossing decides nothing and each candidate bends at the other
    queries = _fading_oracle_at_a_crossing(1)
    assert _bends_at(queries, partial, neuron, deeper, ExactNumerics())
    assert _bends_at(queries, partial, deeper, neuron, ExactNumerics())
    assert drop_deeper(queries, partial, [neuron, deeper], ExactNumerics(), fading=True) == []
    # X fading on both sides of a crossing shows nothing there; with no other crossing it counts as a bend
    below = ((0, 1, -99), {region.id}, (), {})  # x2 = -1
    assert _bends_at(_fading_oracle_at_a_crossing(-1), partial, neuron, below, ExactNumerics())


def test_drop_deeper_keeps_two_neurons_crossing_at_a_small_angle_far_out():
    # layer 2: x2 - 1000 and x2 - 1000 + (x1 - 1000)/4096, crossing at (1000, 1000) at an angle below 2·shrink;
    # f = relu(a) + 2 relu(b) bends along both everywhere. Probes as far from the crossing as the sides of it
    # crossed the other hypersurface, and both neurons were dropped as deeper
    eps = Fraction(1, 4096)
    net = ReLUNetwork(
        [[[1, 0], [0, 1]], [[0, 1], [eps, 1]], [[1, 2]]], [[0, 0], [-1000, -1000 - 1000 * eps], [0]]
    )
    partial = partial_with([[((1, 0), 0), ((0, 1), 0)]])
    assert ExactNumerics().shrink > eps / 2
    quadrant = partial.locate((Fraction(1), Fraction(2)))
    a = ((0, 1, 0, 0, -1000), {quadrant.id})
    b = ((eps, 1, 0, 0, -1000 - 1000 * eps), {quadrant.id})
    assert drop_deeper(exact_queries(net), partial, [a, b], ExactNumerics()) == [a, b]


# ---------------------------------------------------------------------------------------------------------------
# orientation


@pytest.mark.parametrize("numerics", [ExactNumerics(), FloatNumerics(1e-9)], ids=lambda N: N.name)
def test_orient_layer_finds_the_planted_flips(numerics):
    truth = layer_rows(NET, 0)
    next_layer = layer_rows(NET, 1)
    for planted in [(False, False, False), (True, False, False), (False, True, True), (True, True, True)]:
        partial = partial_with([flipped(truth, planted)], numerics)
        vectors = [_in_basis(partial, _true_formula_features(NET, j, planted)) for j in range(3)]
        flips, rows, moved = orient_layer(partial, vectors)
        assert tuple(flips) == planted
        assert moved == vectors
        for (w, beta), (w_true, b_true) in zip(rows, next_layer):
            assert tuple(w) == tuple(w_true)
            assert abs(float(beta - b_true)) <= (0 if numerics.tolerance is None else 1e-9)
        apply_flips(partial, flips)
        assert partial.layers[-1] == truth


def test_apply_flips_negates_the_flipped_rows():
    partial = partial_with([layer_rows(NET, 0)])
    original = list(partial.layers[-1])
    apply_flips(partial, [True, False, True])
    assert partial.layers[-1] == [(tuple(-v for v in original[0][0]), -original[0][1]), original[1], (tuple(-v for v in original[2][0]), -original[2][1])]


# ---------------------------------------------------------------------------------------------------------------
# output

NET2 = generic_network((2, 3, 3, 2), seed=1)


def test_fit_output_with_the_true_hidden_layers_gives_the_network():
    planted = (True, False, True)
    partial = partial_with([layer_rows(NET2, 0), flipped(layer_rows(NET2, 1), planted)])
    rows, regions = fit_output(exact_queries(NET2), partial, ExactNumerics())
    assert regions == len(partial.complex.regions())
    assert partial.layers[-1] == layer_rows(NET2, 1)  # the flips undone
    assert rows == layer_rows(NET2, 2)
    layers = partial.layers + [rows]
    rebuilt = ReLUNetwork([[list(w) for w, _ in layer] for layer in layers], [[b for _, b in layer] for layer in layers])
    assert same_function(rebuilt, NET2).equal


def test_fit_output_sends_the_search_where_a_neuron_is_missing():
    partial = partial_with([layer_rows(NET2, 0), layer_rows(NET2, 1)[1:]])
    with pytest.raises(MissedBreakpoint) as caught:
        fit_output(exact_queries(NET2), partial, ExactNumerics())
    assert partial.locate(caught.value.point) is not None  # inside a region of the network so far


# ---------------------------------------------------------------------------------------------------------------
# first_layer: explained_by, partly_bent_hyperplanes


def test_explained_by_matches_each_breakpoint_to_its_own_neuron():
    # no layer known: first-layer rows (const, a_1, a_2), a breakpoint explained by its own hyperplane only
    empty = PartialNetwork(2, None, ExactNumerics())
    first_rows = [(b, *w) for w, b in layer_rows(NET, 0)]
    # one layer known: the layer-2 neurons' true formulas in basis coordinates
    partial = partial_with([layer_rows(NET, 0)])
    formulas = [_in_basis(partial, _true_formula_features(NET, j)) for j in range(3)]
    seen = set()
    for fw, _, _, bp in FACET_BREAKPOINTS:
        if bp is None:
            continue
        (layer, j), = fw.neurons
        seen.add(layer)
        if layer == 1:
            for i, row in enumerate(first_rows):
                assert explained_by(empty, [None, tuple(3 * v for v in row)], bp) == (i == j), (fw.facet, i)
            assert explained_by(empty, first_rows, bp)
            # on a known hyperplane: inside no region of the partial network, so no next-layer formula explains it
            assert not explained_by(partial, formulas, bp)
        else:
            for k, c in enumerate(formulas):
                assert explained_by(partial, [None, tuple(-2 * v for v in c)], bp) == (k == j), (fw.facet, k)
            assert not explained_by(empty, first_rows, bp)
        assert not explained_by(partial, [], bp) and not explained_by(empty, [None], bp)
    assert seen == {1, 2}


class StandInExplorer:
    """What :func:`partly_bent_hyperplanes` reads of the driver's explorer: numerics, window, domain rows."""

    def __init__(self, numerics, window=Fraction(1), rows=None):
        self.numerics, self.window, self.rows = numerics, window, rows


def test_partly_bent_hyperplanes_accepts_a_one_sided_hyperplane_crossing_an_accepted_one():
    # f = relu(2 relu(x2) + 1) + relu(relu(x1) - relu(x2 - 1)): f bends along x2 = 0 everywhere; along x1 = 0
    # only where x2 < 1 (a first-layer neuron whose downstream neuron is off beyond), crossing x2 = 0 straight;
    # along the ray x1 = x2 - 1 > 0 (a layer-2 neuron's unbounded last piece), which ends at x1 = 0 and so bends
    # on neither side of x2 = 0 where its line crosses it
    net = ReLUNetwork([[[0, 1], [1, 0], [0, 1]], [[2, 0, 0], [0, 1, -1]], [[1, 1]]], [[0, 0, -1], [1, 0], [0]])
    queries = exact_queries(net)
    N = ExactNumerics()
    x1 = breakpoint_at(queries, (Fraction(0), Fraction(-1)), (Fraction(1, 4), Fraction(0)), 2, N)
    x2 = breakpoint_at(queries, (Fraction(-1), Fraction(0)), (Fraction(0), Fraction(1, 4)), 2, N)
    ray = breakpoint_at(queries, (Fraction(1), Fraction(2)), (Fraction(1, 4), Fraction(-1, 4)), 2, N)
    assert proportional(x1.row, (0, 1, 0)) and proportional(x2.row, (0, 0, 1)) and proportional(ray.row, (1, 1, -1))
    assert hyperplane_neuron(queries, x2, Fraction(1), N, None)
    for bp in (x1, ray):
        assert not hyperplane_neuron(queries, bp, Fraction(1), N, None)
    explorer = StandInExplorer(N)
    found = partly_bent_hyperplanes(queries, explorer, [x2.row], [x1, ray, x2])
    assert found == [x1.row]  # not the ray (it bends on one side of x2 = 0 only), not x2 = 0 again
    assert partly_bent_hyperplanes(queries, explorer, [x2.row], [ray]) == []
    assert partly_bent_hyperplanes(queries, explorer, [], [x1, ray]) == []  # nothing accepted to cross


# x1, x2, x1 + 2 x2 + 8, x1 - x2; y1 = relu(x1) + relu(x2) + (relu(x1 + 2 x2 + 8) + relu(x1 - x2)) / 16 - 1,
# y2 = -relu(x1) + (relu(x2) + relu(x1 + 2 x2 + 8)) / 8 + 2 relu(x1 - x2) - 21; f = relu(y1) + relu(y2). Every
# layer-2 neuron reads every first-layer one. y1 has a long flat piece 17 x1 - x2 = 16 (0 < x1, x2 < -4.5): it
# runs straight across y2's piece x1 - 2 x2 = 21 (one layer, both straight) at (1/3, -31/3) and bends at x1 = 0
FLAT = ReLUNetwork(
    [[[1, 0], [0, 1], [1, 2], [1, -1]], [[1, 1, Fraction(1, 16), Fraction(1, 16)], [-1, Fraction(1, 8), Fraction(1, 8), 2]], [[1, 1]]],
    [[0, 0, 8, 0], [-1, -21], [0]],
)


def _flat_breakpoint(queries, point, step):
    return breakpoint_at(queries, tuple(map(Fraction, point)), tuple(map(Fraction, step)), 2, ExactNumerics())


def test_straight_hyperplane_refuses_a_flat_piece_that_runs_straight_across_a_crossing():
    queries = exact_queries(FLAT)
    N = ExactNumerics()
    flat = _flat_breakpoint(queries, (Fraction(6, 17), -10), (Fraction(1, 8), 0))
    assert proportional(flat.row, (-16, 17, -1))
    # f bends along the piece on both sides of y2's crossing: "straight across" alone would take it for a first-layer one
    for x2 in (-12, -8):
        assert is_breakpoint_along(queries, (Fraction(16 + x2, 17), Fraction(x2)), flat.row, N) is not None
    for one_sided in (False, True):
        assert not straight_hyperplane(queries, flat, Fraction(32), N, None, one_sided)
    # the walk along it sees the bend at x1 = 0 (a second hypersurface leaving that crossing on one side)
    assert walk_hyperplane(queries, flat, (1, 17), Fraction(32), N, None) is None
    # first-layer hyperplanes pass: x2 = 0, visible only where y1 > 0 (so hyperplane_neuron refuses it), and
    # x1 + 2 x2 = -8, visible everywhere
    partial = _flat_breakpoint(queries, (70, 0), (0, Fraction(1, 8)))
    whole = _flat_breakpoint(queries, (Fraction(28, 3), Fraction(-26, 3)), (Fraction(1, 8), 0))
    assert proportional(partial.row, (0, 0, 1)) and proportional(whole.row, (8, 1, 2))
    assert not hyperplane_neuron(queries, partial, Fraction(32), N, None)
    assert straight_hyperplane(queries, partial, Fraction(32), N, None)
    assert straight_hyperplane(queries, whole, Fraction(32), N, None)


def test_a_hyperplane_a_walk_leaves_is_not_walked_again_from_another_breakpoint():
    # f leaving the flat piece's hyperplane is a fact about the hyperplane: a second breakpoint on the same piece
    # is refused from the walks' memo without a query; a walk that could not separate breakpoints decides nothing
    queries = exact_queries(FLAT)
    N = ExactNumerics()
    flat = _flat_breakpoint(queries, (Fraction(6, 17), -10), (Fraction(1, 8), 0))
    other = _flat_breakpoint(queries, (Fraction(8, 17), -8), (Fraction(1, 8), 0))
    assert proportional(other.row, flat.row) and other.point != flat.point
    memo = {}
    assert not straight_hyperplane(queries, flat, Fraction(32), N, None, memo=memo)
    asked = queries.count
    assert not straight_hyperplane(queries, other, Fraction(32), N, None, memo=memo)
    assert queries.count == asked
    # without the memo the same answer costs a walk
    assert not straight_hyperplane(queries, other, Fraction(32), N, None, memo={}) and queries.count > asked


def _walking_explorer():
    explorer = StandInExplorer(ExactNumerics(), Fraction(32))
    explorer.walks = {}
    return explorer


def test_a_walk_that_ends_where_a_piece_bends_proposes_the_hyperplane_through_there_and_the_piece_stays_refused():
    # f = relu(relu(x1) + relu(x2) - 1) + relu(relu(x1)): y = relu(x1) + relu(x2) - 1 vanishes on x1 + x2 = 1
    # (x1, x2 > 0), x2 = 1 (x1 < 0) and x1 = 1 (x2 < 0). The walk along the first piece ends where it bends at
    # x1 = 0; what runs straight through that crossing is proposed: x1 = 0 (the first-layer neuron y reads
    # there), which passes; y's unbounded piece x2 = 1 bends there and is neither proposed nor accepted
    net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1], [1, 0]], [[1, 1]]], [[0, 0], [-1, 0], [0]])
    queries = exact_queries(net)
    explorer = _walking_explorer()
    piece = _flat_breakpoint(queries, (Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 8), Fraction(1, 8)))
    assert proportional(piece.row, (-1, 1, 1))
    assert not first_layer_hyperplane(queries, piece, explorer, walk=True)
    numerics = explorer.numerics
    assert crossing_hyperplanes(queries, [], [piece.row], numerics, explorer.walks) == []  # ends only when asked
    proposed = crossing_hyperplanes(queries, [], [piece.row], numerics, explorer.walks, ends=True)
    assert len(proposed) == 1 and proportional(proposed[0].row, (0, 1, 0))
    assert first_layer_hyperplane(queries, proposed[0], explorer, walk=True)
    last = _flat_breakpoint(queries, (-1, 1), (0, Fraction(1, 8)))
    assert proportional(last.row, (1, 0, -1))
    for one_sided in (False, True):
        assert not first_layer_hyperplane(queries, last, explorer, walk=True, one_sided=one_sided)
    assert crossing_hyperplanes(queries, [], [piece.row, (0, 1, 0)], numerics, explorer.walks, ends=True) == []


def test_hyperplanes_crossing_an_accepted_one_are_first_layer_hyperplanes_seen_on_a_bounded_part_only():
    # f = relu(1 - |x1| - |x2|) (|v| = relu(v) + relu(-v)): f bends along x1 = 0 and x2 = 0 on a bounded segment
    # only, so neither is bent far out, not even on one side. Walking x1 = 0 meets x2 = 0 straight across at the
    # origin (proposed and accepted) and the layer-2 zero set |x1| + |x2| = 1 at its corners (bent: not proposed)
    net = ReLUNetwork([[[1, 0], [-1, 0], [0, 1], [0, -1]], [[-1, -1, -1, -1]], [[1]]], [[0, 0, 0, 0], [1], [0]])
    queries = exact_queries(net)
    explorer = _walking_explorer()
    accepted = _flat_breakpoint(queries, (0, Fraction(1, 3)), (Fraction(1, 8), 0))
    assert proportional(accepted.row, (0, 1, 0))
    assert first_layer_hyperplane(queries, accepted, explorer, walk=True)
    found = hyperplanes_crossing(queries, explorer, [accepted], [accepted.row])
    assert len(found) == 1 and proportional(found[0].row, (0, 0, 1))
    for one_sided in (False, True):
        assert not hyperplane_neuron(queries, found[0], explorer.window, explorer.numerics, None, one_sided=one_sided)
    assert hyperplanes_crossing(queries, explorer, [accepted, *found], [accepted.row, found[0].row]) == []


# ---------------------------------------------------------------------------------------------------------------
# families: formula_family, fix_family, merge_families on a network where TPIC fails


def _family_net(w):
    """Layer 1: x1, x2, x1 - 2. Layer 2: y1 = relu(x1) + relu(x2)/2 + w relu(x1 - 2) - 1 and
    y2 = relu(x2) - relu(x1)/3 + relu(x1 - 2) - 1/2; f = relu(y1) + relu(y2).

    y1 vanishes on x1 = 1 (x2 < 0), x1 + x2/2 = 1 (x2 > 0, x1 > 0) and x2 = 2 (x1 < 0): where x1 - 2 is off, so
    that component cannot show w (TPIC fails). For w = 1 it is the whole zero set; for w = -2 a second component
    x1 = 3 + relu(x2)/2 lies where x1 - 2 is on.
    """
    h = Fraction(1, 2)
    return ReLUNetwork([[[1, 0], [0, 1], [1, 0]], [[1, h, w], [Fraction(-1, 3), 1, 1]], [[1, 1]]], [[0, 0, -2], [-1, -h], [0]])


def _family_case(w):
    net = _family_net(w)
    partial = partial_with([layer_rows(net, 0)], oriented=True)
    assert partial.basis == [0, 1, 2, 3]  # relu(z_1), relu(z_2), relu(z_3), 1
    queries = exact_queries(net)
    N = ExactNumerics()

    def trace_from(point, step=(Fraction(1, 4), Fraction(0))):
        bp = breakpoint_at(queries, tuple(Fraction(v) for v in point), step, 2, N)
        return trace_neuron(queries, partial, bp, N)

    true = [tuple(w_) + (b,) for w_, b in layer_rows(net, 1)]  # the layer-2 formulas in basis coordinates
    return net, partial, trace_from, true


def net_layers(net):
    return [layer_rows(net, l) for l in range(len(net.weights))]


def _affine_on(partial, region, c):
    return tuple(dot(row, c) for row in partial.reduced(region))


def _piece_equations(partial, pieces):
    return [row for rid, h in pieces.items() for row in parallel_equations(partial.reduced(partial.complex[rid]), h)]


@pytest.mark.parametrize("w", [1, -2])
def test_a_trace_where_tpic_fails_leaves_a_family_containing_the_neuron(w):
    net, partial, trace_from, true = _family_case(w)
    c, crossed, span, pieces = trace_from((1, -1))
    assert len(span) == 2 and rank(span) == 2
    assert rank([*span, true[0]]) == 2  # the true neuron, whatever w, is in the family
    assert rank([*span, true[1]]) == 3  # the other neuron is not
    assert rank([*span, (0, 0, 1, 0)]) == 2  # the weight on relu(x1 - 2) is free
    # c: the member without the free column, proportional to y1 with w = 0
    assert c[2] == 0 and proportional(c, (1, Fraction(1, 2), 0, -1)) is not None
    # the component of the zero set in x1 < 2: the regions of that strip and of x1 < 0 that it crosses
    inside = {R.id for R in partial.complex.regions() if R.relative_interior_point()[0] < 2}
    assert crossed == set(pieces) and crossed < inside
    for rid, h in pieces.items():
        assert proportional(h, _affine_on(partial, partial.complex[rid], true[0])) is not None
    # formula_family on the same pieces: the same span, the free column the one member vanishing on every piece
    c2, vanishing, span2 = formula_family(partial, _piece_equations(partial, pieces), pieces)
    assert vanishing == ((0, 0, 1, 0),) and proportional(c2, c) is not None and rank([*span2, *span]) == 2


def _picked_family(with_y2=True):
    """``_family_net(-2)`` over its first layer with y1 picked from its family at ``w = 0`` (free: ``relu(x1 - 2)``)."""
    net = _family_net(-2)
    y1, y2 = layer_rows(net, 1)
    picked = ((Fraction(1), Fraction(1, 2), Fraction(0)), Fraction(-1))
    partial = partial_with([layer_rows(net, 0), [picked, y2] if with_y2 else [picked]])
    partial.free[1, 0] = (((Fraction(0), Fraction(0), Fraction(1)), Fraction(0)),)
    return net, partial, y1


def test_a_breakpoint_on_a_family_neurons_far_component_completes_it():
    # y1's second component x1 = 3 + relu(x2)/2 lies where x1 - 2 is on: the member w = 0 misses it, the breakpoint
    # of f at (4, 2) is unexplained, and on its region (all three layer-1 neurons on) only the member with w = -2
    # vanishes along it
    net, partial, y1 = _picked_family()
    queries, N = exact_queries(net), ExactNumerics()
    bp = breakpoint_at(queries, (Fraction(4), Fraction(2)), (Fraction(1, 64), Fraction(0)), 2, N)
    assert not partial.explains(bp)
    log = {}
    assert complete_families_at_breakpoints(queries, partial, [bp], N, log)
    assert partial.layers[1][0] == y1 and not partial.free and log["completed"] == [(2, 0, 0)]
    partial.rebuild()
    assert partial.explains(bp)


def test_a_hyperplane_where_the_members_span_few_maps_completes_nothing(monkeypatch):
    # without y2 in the partial network its breakpoint at (15/4, -1) is unexplained; on its region (x1 > 2, x2 < 0)
    # the previous layer's maps span only (1, x1), so a member (w = -11/7) vanishes along y2's line there too:
    # no evidence, whatever f does elsewhere
    net, partial, _ = _picked_family(with_y2=False)
    queries, N = exact_queries(net), ExactNumerics()
    bp = breakpoint_at(queries, (Fraction(15, 4), Fraction(-1)), (Fraction(1, 64), Fraction(0)), 2, N)
    region = partial.locate(bp.point)
    relu = partial.previous_relu(region)
    base, move = direction_map(relu, partial.layers[1][0]), direction_map(relu, partial.free[1, 0][0])
    fitted = solve([[move[i], -bp.row[i]] for i in range(3)], [-v for v in base])
    assert fitted is not None and fitted[0] == Fraction(-11, 7)  # the equations alone would complete it
    monkeypatch.setattr(completion, "_bends_elsewhere", lambda *args: True)
    before, free = list(partial.layers[1]), dict(partial.free)
    assert not complete_families_at_breakpoints(queries, partial, [bp], N, {})
    assert partial.layers[1] == before and partial.free == free


def test_a_completion_is_kept_only_where_f_bends_along_its_moved_zero_set():
    net, partial, _ = _picked_family()
    queries, N = exact_queries(net), ExactNumerics()
    bp = breakpoint_at(queries, (Fraction(4), Fraction(2)), (Fraction(1, 64), Fraction(0)), 2, N)
    region, directions = partial.locate(bp.point), partial.free[1, 0]
    assert completion._bends_elsewhere(queries, partial, 0, directions, (Fraction(-2),), region, N)
    for wrong in (Fraction(-11, 7), Fraction(-3), Fraction(1)):
        assert not completion._bends_elsewhere(queries, partial, 0, directions, (wrong,), region, N)


@pytest.mark.parametrize("w", [1, -2])
def test_an_undetermined_trace_logs_the_neurons_its_hypersurface_never_crosses(w):
    # before orientation a trace does not settle for a family: it fails, and the log says which layer-1 zero
    # sets the traced pieces never cross (their weights stay free). y1's component through (1, -1) lies where
    # x1 - 2 < 0 whatever w, and crosses x1 = 0 and x2 = 0
    net = _family_net(w)
    partial = partial_with([layer_rows(net, 0)])
    queries = exact_queries(net)
    N = ExactNumerics()
    bp = breakpoint_at(queries, (Fraction(1), Fraction(-1)), (Fraction(1, 4), Fraction(0)), 2, N)
    log = {}
    assert trace_neuron(queries, partial, bp, N, log=log) is None
    assert log["undetermined"] == 1 and dict(log["uncrossed"][1]) == {2: 1}
    # y2 crosses all three: traced, nothing logged
    bp2 = breakpoint_at(queries, (Fraction(-1), Fraction(1, 2)), (Fraction(0), Fraction(1, 4)), 2, N)
    log = {}
    assert trace_neuron(queries, partial, bp2, N, log=log) is not None
    assert not {"undetermined", "uncrossed", "pieces"} & set(log)


@pytest.mark.parametrize("flips", [(False,) * 3, (True, False, False), (False, True, True), (True,) * 3])
def test_orientations_by_pieces_puts_the_planted_flips_first(flips):
    # y2 crosses all three zero sets of layer 1, so its pieces contradict every wrong orientation; y1's
    # component through (1, -1) is undetermined unoriented (it never crosses x1 - 2 = 0): the log keeps its pieces
    net = _family_net(1)
    partial = partial_with([flipped(layer_rows(net, 0), flips)])
    queries = exact_queries(net)
    N = ExactNumerics()
    y2 = breakpoint_at(queries, (Fraction(-1), Fraction(1, 2)), (Fraction(0), Fraction(1, 4)), 2, N)
    pieces_y2 = trace_neuron(queries, partial, y2, N)[3]
    y1 = breakpoint_at(queries, (Fraction(1), Fraction(-1)), (Fraction(1, 4), Fraction(0)), 2, N)
    log = {}
    assert trace_neuron(queries, partial, y1, N, log=log) is None
    (pieces_y1,) = log["pieces"][1]
    assert orientations_by_pieces(partial, [pieces_y1, pieces_y2], 8)[0] == flips
    assert orientations_by_pieces(partial, [pieces_y2], 1) == [flips]
    assert sorted(orientations_by_pieces(partial, [pieces_y1], 8)) == sorted(itertools.product((False, True), repeat=3))
    # nothing to rank: every orientation, none left out
    assert sorted(orientations_by_pieces(partial, [], 8)) == sorted(itertools.product((False, True), repeat=3))


def test_continuations_are_remembered_by_geometry_across_flipped_rebuilds():
    # the same hypersurface traced again after flipping the layer (other signs, other cell ids, the same cells)
    # asks the oracle nothing new: the continuations come from the log
    net = _family_net(1)
    N = ExactNumerics()
    queries = exact_queries(net)
    log, asked, found, cuts = {}, [], [], []
    for flips in [(False, False, False), (True, False, True)]:
        partial = partial_with([flipped(layer_rows(net, 0), flips)])
        bp = breakpoint_at(queries, (Fraction(-1), Fraction(1, 2)), (Fraction(0), Fraction(1, 4)), 2, N)
        before = queries.count
        c, crossed, span, pieces = trace_neuron(queries, partial, bp, N, log=log)
        asked.append(queries.count - before)
        found.append(sorted(tuple(R.relative_interior_point()) for R in map(partial.complex.__getitem__, crossed)))
        cuts.append(len(log["cuts"]))
        assert span == () and c is not None
    assert found[0] == found[1] and asked[0] > 0 and asked[1] == 0
    # the prediction's cuts of the regions too: none computed again
    assert cuts[0] > 0 and cuts[1] == cuts[0]
    # and what is remembered changes nothing: without a log, the same formula on the same regions
    alone, crossed_alone, *_ = trace_neuron(queries, partial, bp, N)
    assert proportional(alone, c) and crossed_alone == crossed


small_points = st.tuples(st.integers(-4, 4), st.integers(-4, 4))


@FAST
@given(small_points, small_points, st.sampled_from(["segment", "ray", "line"]), st.tuples(*[st.integers(-3, 3)] * 3))
def test_crossing_point_on_an_edge_is_the_exact_cut(a, b, kind, h):
    """In the plane a facet is a segment, a ray or a line: where ``h`` vanishes on it, read off its vertices and
    directions, is what the exact feasibility problem of higher dimensions finds (the same point, or none
    when ``h`` misses the facet or contains it)."""
    assume(a != b)
    d = (b[0] - a[0], b[1] - a[1])
    if kind == "segment":
        edge = Polyhedron(vertices=[a, b])
    elif kind == "ray":
        edge = Polyhedron(vertices=[a], rays=[d])
    else:
        edge = Polyhedron(vertices=[a], lines=[d])
    cut = Polyhedron(ieqs=edge.inequalities, eqns=[*edge.equations, h], ambient_dim=2)
    expected = None if cut.is_empty() or cut.dimension() != 0 else cut.relative_interior_point()
    assert crossing_point(edge, h, 2) == expected


@FAST
@given(
    st.lists(small_points, min_size=1, max_size=5, unique=True),
    st.sampled_from([((), ()), (((1, 0),), ()), (((1, 1), (0, -1)), ()), ((), ((0, 1),))]),
    st.tuples(*[st.integers(-3, 3)] * 3),
    st.booleans(),
)
@example([(0, 0), (1, 0), (0, 1)], ((), ()), (0, 0, 1), False)  # along an edge, the triangle above it
@example([(0, 0), (1, 0), (0, 1)], ((), ()), (0, 0, -1), False)  # the same edge, the triangle below the row
@example([(1, 0), (1, 1), (2, 0)], (((-1, 0),), ()), (0, 1, 0), False)  # positive at the vertices, crossed along a ray
@example([(1, 0), (1, 1), (2, 0)], ((), ((1, 0),)), (0, 1, 0), False)  # positive at the vertices, crossed along a line
def test_a_cut_read_off_the_generators_is_the_exact_cut(points, directions, h, through_two_points):
    """Where a row vanishes on a polygon (bounded or not, with a line or without): a row of one strict sign on its
    generators misses it; every other row is decided by the exact feasibility problem, so the answer, the cut's
    relative interior point or None, is exactly the direct one. Rows through two of the points touch the polygon
    along an edge, through a vertex or across it, where the strict signs matter."""
    if through_two_points and len(points) > 1:
        p, q = points[:2]
        h = (p[0] * q[1] - p[1] * q[0], p[1] - q[1], q[0] - p[0])
    assume(any(h[1:]))
    rays, lines = directions
    P = Polyhedron(vertices=points, rays=rays, lines=lines)
    assume(P.dimension() == 2)
    cut = Polyhedron(ieqs=P.inequalities, eqns=[h], ambient_dim=2)
    expected = None if cut.is_empty() or cut.dimension() != 1 else cut.relative_interior_point()
    assert _cut_point(P, [h], 1) == expected
    # two rows: the cut is a point, or nothing
    g = (1, 1, 0)
    both = Polyhedron(ieqs=P.inequalities, eqns=[h, g], ambient_dim=2)
    expected = None if both.is_empty() or both.dimension() != 0 else both.relative_interior_point()
    assert _cut_point(P, [h, g], 0) == expected


def test_formula_family_names_the_member_when_features_coincide_on_every_piece_and_none_when_determined():
    net, partial, trace_from, true = _family_case(-2)
    # the component x1 = 3 + relu(x2)/2 lies where x1 and x1 - 2 are both on: relu(z_1) - relu(z_3) = 2 there,
    # so that combination vanishes on every piece (no single column does) and the neuron is known up to it
    c, crossed, span, pieces = trace_from((3, -1))
    assert len(span) == 2 and rank([*span, true[0]]) == 2
    assert all(partial.complex[rid].relative_interior_point()[0] > 2 for rid in pieces)
    vanishing = (1, 0, -1, -2)
    assert rank([*span, vanishing]) == 2
    # the member reduced by it: zero where it has its pivot, the true neuron minus it
    assert c[0] == 0 and proportional(c, [a - b for a, b in zip(true[0], vanishing)]) is not None
    assert crossed == set(pieces)  # it vanishes nowhere else, so there is nothing more to predict
    family = formula_family(partial, _piece_equations(partial, pieces), pieces)
    assert family[1] == ((1, 0, -1, -2),) and proportional(family[0], c) is not None and rank([*family[2], *span]) == 2
    # y2 crosses enough regions to be determined: one formula, no family
    c2, crossed2, span2, pieces2 = trace_from((-1, Fraction(1, 2)), (Fraction(0), Fraction(1, 4)))
    assert span2 == () and proportional(c2, true[1]) is not None
    assert formula_family(partial, _piece_equations(partial, pieces2), pieces2) is None


def _sign_disagreements(net, partial, crossed, member):
    """The regions where ``member`` does not have the sign of the network's neuron 1 of layer 2 (up to one
    orientation for all regions): a multiple of it where its zero set crosses, else of its sign throughout."""
    true = tuple(net.weights[1][0]) + (net.biases[1][0],)
    bad, orientation = set(), {}
    for R in partial.complex.regions():
        phi = _affine_on(partial, R, member)
        if R.id in crossed:
            lam = proportional(phi, _affine_on(partial, R, true))
            if lam is None:
                bad.add(R.id)
            else:
                orientation[R.id] = lam > 0
            continue
        # the neuron keeps one sign here: the member must have it at the interior point (exact evaluation against
        # the network's pre-activation) and on the whole region ({x in R : ±member(x) <= 0} has no interior)
        x = R.relative_interior_point()
        y1 = hidden_values(net_layers(net), x)[1][0]
        value = phi[0] + dot(phi[1:], x)
        assert y1 != 0, R.id
        t = (value > 0) - (value < 0)
        region_bad = Polyhedron(ieqs=[*R.polyhedron.inequalities, tuple(-t * v for v in phi)], ambient_dim=2)
        if t == 0 or region_bad.dimension() == 2:
            bad.add(R.id)
        else:
            orientation[R.id] = (value > 0) == (y1 > 0)
    if len(set(orientation.values())) > 1:
        minority = min((True, False), key=lambda o: sum(v == o for v in orientation.values()))
        bad |= {rid for rid, o in orientation.items() if o == minority}
    return bad


def test_fix_family_picks_a_member_with_the_neurons_sign_on_every_region():
    net, partial, trace_from, _ = _family_case(1)
    c, crossed, span, pieces = trace_from((1, -1))
    member = fix_family(partial, span, crossed, pieces)
    assert member is not None and rank([*span, member]) == 2 and max(abs(v) for v in member) == 1
    factors = {proportional(_affine_on(partial, partial.complex[rid], member), h) for rid, h in pieces.items()}
    assert None not in factors and all(f > 0 for f in factors)  # a positive multiple of every oriented piece
    assert _sign_disagreements(net, partial, crossed, member) == set()
    # the check can fail: members with weight -5 or -2 on relu(x1 - 2) (the latter y1 of the w = -2 network, with a
    # second component in x1 > 2) change sign where the neuron does not
    for k in (-5, -2):
        wrong = tuple(v if i != 2 else k * member[0] for i, v in enumerate(member))
        assert _sign_disagreements(net, partial, crossed, wrong), k
    # a trace said to miss a region it crosses: the signs carried around contradict, no member
    missing = min(crossed)
    assert fix_family(partial, span, crossed - {missing}, {rid: h for rid, h in pieces.items() if rid != missing}) is None
    # said to fade there (crossed, no piece), the regions reached from it keep no sign: a member fitting every piece
    faded = fix_family(partial, span, crossed, {rid: h for rid, h in pieces.items() if rid != missing})
    assert faded is not None
    assert all(proportional(_affine_on(partial, partial.complex[rid], faded), h) > 0 for rid, h in pieces.items() if rid != missing)


def _deep_family_net(w, reads=1):
    """:func:`_family_net` with a third hidden layer ``u = reads relu(y1) + relu(y2) - 4``; ``f = relu(u)``.

    ``y1``'s zero set misses ``x1 = 2`` (its weight ``w`` on ``relu(x1 - 2)`` is free for its own pieces),
    but ``y1`` is on where ``x1 > 2``, and ``u``'s zero set runs through there: the layer-3 pieces show ``w``.
    """
    h = Fraction(1, 2)
    return ReLUNetwork(
        [[[1, 0], [0, 1], [1, 0]], [[1, h, w], [Fraction(-1, 3), 1, 1]], [[reads, 1]], [[1]]],
        [[0, 0, -2], [-1, -h], [-4], [0]],
    )


def _zero_set_breakpoints(net, queries, layer=2, neuron=0):
    """Breakpoints of ``f`` on the zero set of ``net``'s neuron ``(layer + 1, neuron)``, on five horizontal lines (exact bisection)."""
    layers = net_layers(net)[: layer + 1]
    value = lambda x1, x2: hidden_values(layers, (x1, x2))[layer][neuron]  # noqa: E731
    found = []
    for x2 in (-3, -1, 1, 3, 6):
        grid = [Fraction(k, 4) + Fraction(1, 7) for k in range(-80, 81)]  # off the zero set
        for a, b in zip(grid, grid[1:]):
            if (value(a, x2) > 0) != (value(b, x2) > 0):
                for _ in range(30):  # down to where the neuron is affine, then its root exactly
                    m = (a + b) / 2
                    a, b = (m, b) if (value(m, x2) > 0) == (value(a, x2) > 0) else (a, m)
                root = a - value(a, x2) * (b - a) / (value(b, x2) - value(a, x2))
                assert value(root, x2) == 0
                bp = breakpoint_at(queries, (root, Fraction(x2)), (Fraction(1, 1 << 40), Fraction(0)), 2, ExactNumerics())
                if bp is not None:
                    found.append(bp)
    return found


@pytest.mark.parametrize("w", [1, 3, Fraction(1, 2)])
def test_the_next_layers_traces_complete_a_middle_layer_family(w):
    # layers 1-2 known, y1 picked from its family with the wrong weight 0 on relu(x1 - 2); the traces of the
    # layer-3 neuron over the product column [y1 on]·relu(x1 - 2) read v·w beside v: y1 becomes the true neuron
    net, member = _deep_family_net(w), _deep_family_net(0)
    queries = exact_queries(net)
    pending = _zero_set_breakpoints(net, queries)
    assert len(pending) >= 4
    partial = partial_with([layer_rows(member, 0), layer_rows(member, 1)], oriented=True)
    partial.free[1, 0] = (((0, 0, 1), 0),)
    log = {}
    assert complete_families(queries, partial, [], pending, ExactNumerics(), log)
    assert partial.layers[-1] == layer_rows(net, 1)  # exactly, not up to scale: the step is measured in y1's own units
    assert partial.free == {} and log["completed"] == [(2, 0, 0)]
    assert partial.products == [] and partial.basis == [0, 1, 2]  # the features are plain again


def test_a_family_the_next_layer_does_not_read_stays_open():
    # u reads relu(y2) only: nothing in the next layer's traces shows y1's free weight
    net, member = _deep_family_net(3, reads=0), _deep_family_net(0, reads=0)
    queries = exact_queries(net)
    partial = partial_with([layer_rows(member, 0), layer_rows(member, 1)], oriented=True)
    partial.free[1, 0] = (((0, 0, 1), 0),)
    log = {}
    assert not complete_families(queries, partial, [], _zero_set_breakpoints(net, queries), ExactNumerics(), log)
    assert partial.layers[-1] == layer_rows(member, 1) and partial.free == {(1, 0): (((0, 0, 1), 0),)}
    assert "completed" not in log


def _deep_family_net_reading_a_far_neuron(w):
    """:func:`_deep_family_net` with ``y3 = relu(x1) - 10`` beside ``y1, y2``, and two layer-3 neurons.

    ``u = relu(y1) + relu(y2) + relu(y3) - 4`` and ``u' = 2 relu(y1) + relu(y2) + relu(y3) - 11/2``, ``f = relu(u) +
    relu(u')``. Both are positive wherever ``x1 > 10`` (``relu(y1) >= 9`` there for ``w >= 0``), so neither
    zero set meets ``y3``'s on side: their pieces leave their weights on ``relu(y3)`` free, families; ``f``
    bends along ``x1 = 10``, where they read ``y3``.
    """
    h = Fraction(1, 2)
    return ReLUNetwork(
        [[[1, 0], [0, 1], [1, 0]], [[1, h, w], [Fraction(-1, 3), 1, 1], [1, 0, 0]], [[1, 1, 1], [2, 1, 1]], [[1, 1]]],
        [[0, 0, -2], [-1, -h, -10], [-4, Fraction(-11, 2)], [0]],
    )


@pytest.mark.parametrize("w", [1, 3, Fraction(1, 2)])
def test_next_layer_traces_that_are_families_still_complete_a_middle_layer_family(w):
    # as above, but every trace of u and u' leaves its weight on relu(y3) free: the formulas fitting its pieces
    # are a plane of them, and across it the weights on relu(y1) and on [y1 on]·relu(x1 - 2) keep the ratio w
    net, member = _deep_family_net_reading_a_far_neuron(w), _deep_family_net_reading_a_far_neuron(0)
    queries = exact_queries(net)
    on = {neuron: [bp for bp in _zero_set_breakpoints(net, queries, neuron=neuron) if bp.point[0] < 10] for neuron in (0, 1)}
    assert all(len(found) >= 3 for found in on.values())
    partial = partial_with([layer_rows(member, 0), layer_rows(member, 1)], oriented=True)
    partial.free[1, 0] = (((0, 0, 1), 0),)
    partial.use_features(oriented=True, products=True)
    traces = [trace_neuron(queries, partial, bp, ExactNumerics()) for found in on.values() for bp in found]
    assert all(t is not None and len(t[2]) == 2 for t in traces)  # families, every one: no formula is determined
    partial.use_features(oriented=True)
    for pending, completes in ((on[0], False), (on[0] + on[1], True)):
        log = {}
        # one neuron's family alone is not evidence enough; two neurons' families that agree are
        assert complete_families(queries, partial, [], pending, ExactNumerics(), log) is completes
        partial.use_features(oriented=True)
    assert partial.layers[-1] == layer_rows(net, 1)
    assert partial.free == {} and log["completed"] == [(2, 0, 0)]


@pytest.mark.parametrize(
    "traces, step",
    [
        ([[(2, 6, 0), (0, 0, 1)]], None),  # a family: the weight on relu(y3) free, the ratio fixed; alone, not enough
        ([[(2, 6, 0), (0, 0, 1)], [(1, 3, 0, 1), (0, 0, 1)]], Fraction(3)),  # two families: two subspaces
        ([[(2, 6, 0), (0, 0, 1)], [(1, 3, 1), (0, 0, 2)]], None),  # one subspace written twice is one family
        ([[(2, 6, 0), (0, 1, 0)], [(2, 6, 1)]], Fraction(3)),  # a family that moves the ratio says nothing; a formula does
        ([[(2, 6, 0), (0, 0, 1)], [(1, 3, 5)]], Fraction(3)),  # a family and a formula agree
        ([[(2, 6, 0), (0, 0, 1)], [(1, 4, 5)]], None),  # they disagree
        ([[(2, 6, 0), (0, 0, 1)], [(1, 3, 0), (0, 1, 7)], [(1, 4, 5)]], None),
        ([[(1, 3, 5)], [(0, 5, 0), (0, 0, 1)]], None),  # a trace with the column but no weight on z_j
        ([[(0, 0, 1)]], None),  # a family that says nothing of either
    ],
)
def test_the_completing_step_is_read_only_where_every_formula_fitting_the_pieces_agrees(monkeypatch, traces, step):
    # the traces over the product columns, given as spans in the coordinates (relu(y1), [y1 on]·relu(x1 - 2),
    # relu(y3), relu(y2))
    partial = partial_with([layer_rows(_deep_family_net_reading_a_far_neuron(0), l) for l in (0, 1)], oriented=True)
    partial.free[1, 0] = (((0, 0, 1), 0),)
    partial.use_features(oriented=True, products=True)
    position = {col: p for p, col in enumerate(partial.basis)}
    columns = (0, 4, 2, 1)  # z_0, the product column after z_0..z_2 and 1, z_2, z_1
    assert len(partial.products) == 1 and 4 in position

    def vector(entries):
        v = [Fraction(0)] * len(partial.basis)
        for col, x in zip(columns, entries):
            v[position[col]] = Fraction(x)
        return tuple(v)

    results = iter([(None, set(), tuple(vector(e) for e in span), {}) if len(span) > 1 else (vector(span[0]), set(), (), {}) for span in traces])
    monkeypatch.setattr(completion, "explained_by", lambda *args: False)
    monkeypatch.setattr(completion, "trace_neuron", lambda *args, **kwargs: next(results))
    monkeypatch.setattr(completion, "drop_deeper", lambda queries, partial, traced, numerics, log=None: traced)
    steps = completion._completing_steps(None, partial, [], [None] * len(traces), ExactNumerics(), {})
    assert steps == ({} if step is None else {(0, 0): step})


def _output_family_net(w, reads=1):
    """:func:`_family_net` with a third hidden layer ``u = reads relu(y1) + relu(y2) - 1/2``; ``f = relu(u)``.

    ``relu(y1) >= 1`` where ``x1 > 2``, so ``u`` is on there and its zero set runs elsewhere: no layer-3 piece
    shows ``y1``'s weight ``w`` on ``relu(x1 - 2)``; only ``f`` does, where ``x1 > 2`` (if ``u`` reads ``y1``).
    """
    h = Fraction(1, 2)
    return ReLUNetwork(
        [[[1, 0], [0, 1], [1, 0]], [[1, h, w], [Fraction(-1, 3), 1, 1]], [[reads, 1]], [[1]]],
        [[0, 0, -2], [-1, -h], [-h], [0]],
    )


@pytest.mark.parametrize("w", [1, 3, Fraction(1, 2)])
@pytest.mark.parametrize("flip", [False, True])
def test_the_output_fit_completes_a_family_of_the_layer_before_the_last(w, flip):
    # layers 1-3 known, y1 picked from its family with the wrong weight 0, u possibly with the wrong sign: the
    # plain output fit fails (f reads y1's true weight where x1 > 2), the fit over the products [u on]·[y1 on]·
    # relu(x1 - 2) reads v·w beside v, and y1 becomes the true neuron; the output then fits exactly
    net, member = _output_family_net(w), _output_family_net(0)
    partial = partial_with([layer_rows(member, 0), layer_rows(member, 1), flipped(layer_rows(member, 2), [flip])])
    partial.free[1, 0] = (((0, 0, 1), 0),)
    rows, _ = fit_output(exact_queries(net), partial, ExactNumerics())
    assert partial.layers[1] == layer_rows(net, 1) and partial.free == {}
    assert partial.layers[2] == layer_rows(net, 2) and rows == layer_rows(net, 3)


def test_a_family_nothing_reads_stays_open():
    # u reads relu(y2) only: f never shows y1's free weight, the output fits with y1 as picked
    net, member = _output_family_net(3, reads=0), _output_family_net(0, reads=0)
    partial = partial_with([layer_rows(member, 0), layer_rows(member, 1), layer_rows(member, 2)])
    partial.free[1, 0] = (((0, 0, 1), 0),)
    rows, _ = fit_output(exact_queries(net), partial, ExactNumerics())
    assert partial.layers[1] == layer_rows(member, 1) and partial.free == {(1, 0): (((0, 0, 1), 0),)}
    assert rows == layer_rows(net, 3)


def _stable_reader_net(w, outputs=1):
    """:func:`_output_family_net`'s layers 1-2 with a third layer-2 neuron ``s = relu(x1 - 2) + relu(x2) + 1``
    (positive everywhere), read by the output: ``f = relu(y1) + relu(y2) + 2 s`` (and ``f - s`` with two outputs).

    ``y1`` is on wherever ``x1 > 2``, so ``[y1 on]·relu(x1 - 2) = relu(x1 - 2)``, which ``s`` reads too: the
    output cannot tell ``y1``'s weight ``w`` on ``relu(x1 - 2)`` from ``s``'s.
    """
    h = Fraction(1, 2)
    out = [[1, 1, 2], [1, 1, 1]][:outputs]
    return ReLUNetwork(
        [[[1, 0], [0, 1], [1, 0]], [[1, h, w], [Fraction(-1, 3), 1, 1], [0, 1, 1]], out],
        [[0, 0, -2], [-1, -h, 1], [0] * outputs],
    )


def _family_fit_inputs(net, partial):
    """What :func:`fit_output` hands its stages: the regions, the output's maps on them, the family columns."""
    regions = partial.complex.regions()
    targets = []
    for j in range(net.architecture.output_dim):
        maps = [net.affine_map(net.signs(R.relative_interior_point())) for R in regions]
        targets.append([(c[j], *A[j]) for A, c in maps])
    return (regions, targets, *_output_families(partial, regions))


@pytest.mark.parametrize("w", [3, Fraction(-1, 2)])
def test_families_the_output_leaves_free_are_completed_keeping_their_signs(w):
    # layers 1-2 without the stable s, y1 picked with the wrong weight 0: every solution of the output's fit over
    # the skip features and [y1 on]·relu(x1 - 2) explains f, and one keeping y1's signs is a network computing f
    net, member = _stable_reader_net(w), _stable_reader_net(0)
    partial = partial_with([layer_rows(member, 0), layer_rows(member, 1)[:2]])
    partial.free[1, 0] = (((0, 0, 1), 0),)
    regions, targets, families, relus = _family_fit_inputs(net, partial)
    assert _families_kept_by_signs(partial, regions, targets, families, relus)
    assert partial.free == {}
    (w1, b1), y2 = partial.layers[1]
    assert w1[:2] == (1, Fraction(1, 2)) and b1 == -1 and y2 == layer_rows(net, 1)[1]
    layers = [partial.layers[0], [(w1, b1)]]
    for R in regions:  # the completed neuron keeps the signs y1 had on every region (strictly inside, weakly at vertices)
        on = 1 if R.signs[3] > 0 else -1
        assert on * hidden_values(layers, R.relative_interior_point())[1][0] > 0
        assert all(on * hidden_values(layers, v)[1][0] >= 0 for v in R.polyhedron.vertices())
    partial.rebuild()
    rows, _ = fit_output(exact_queries(net), partial, ExactNumerics())
    found = ReLUNetwork(
        [[list(v) for v, _ in layer] for layer in [*partial.layers, rows]], [[b for _, b in layer] for layer in [*partial.layers, rows]]
    )
    assert same_function(found, net).equal


def test_families_completed_by_their_signs_need_one_output():
    # with two outputs each would have to give the same step (bilinear): nothing is completed, nothing changed
    net, member = _stable_reader_net(3, outputs=2), _stable_reader_net(0, outputs=2)
    partial = partial_with([layer_rows(member, 0), layer_rows(member, 1)[:2]])
    partial.free[1, 0] = (((0, 0, 1), 0),)
    before = list(partial.layers[1])
    assert not _families_kept_by_signs(partial, *_family_fit_inputs(net, partial))
    assert partial.layers[1] == before and partial.free == {(1, 0): (((0, 0, 1), 0),)}


@pytest.mark.parametrize("flips", [(False, False), (True, False), (True, True)])
def test_the_orientation_search_keeps_the_layer_its_traces_completed(flips):
    # layer 2 unoriented (provisional signs ``flips``), y1 a wrong family member: the search finds the orientation
    # under which the layer-3 traces fit, and returns with y1 completed and oriented
    net, member = _deep_family_net(3), _deep_family_net(0)
    queries = exact_queries(net)
    partial = partial_with([layer_rows(member, 0), flipped(layer_rows(member, 1), flips)])
    partial.free[1, 0] = (((0, 0, 1), 0),)
    log = {}
    rows = orientation_by_search(queries, partial, _zero_set_breakpoints(net, queries), ExactNumerics(), log)
    assert partial.layers[-1] == layer_rows(net, 1) and partial.free == {}
    assert len(rows) == 1 and proportional((*rows[0][0], rows[0][1]), (1, 1, -4)) is not None


def test_an_orientation_alone_in_explaining_every_breakpoint_is_tried_first_next_round_and_ends_the_search(monkeypatch):
    # u reads y1 and y2: only the true orientation of layer 2 lets u's traces fit. The first search tries all four
    # and remembers it; the next round (more breakpoints, same layer) tries it first and stops there
    net = _deep_family_net(3)
    queries = exact_queries(net)
    pending = _zero_set_breakpoints(net, queries)
    partial = partial_with([layer_rows(net, 0), layer_rows(net, 1)])
    attempts = []
    monkeypatch.setattr(next_layer, "second_chance", lambda *a, **k: attempts.append(a[1].layers[-1][:]) or second_chance(*a, **k))
    log, found = {}, []
    for breakpoints in (pending[: len(pending) // 2], pending):
        attempts.clear()
        partial.layers[-1], partial.free = flipped(layer_rows(net, 1), (True, False)), {}
        partial.rebuild()
        rows = orientation_by_search(queries, partial, breakpoints, ExactNumerics(), log)
        found.append((len(attempts), list(partial.layers[-1]), rows))
    (first, layer_first, rows_first), (second, layer_second, rows_second) = found
    assert first == 4 and second == 1
    assert layer_first == layer_second == layer_rows(net, 1) and len(rows_first) == len(rows_second) == 1
    assert proportional((*rows_second[0][0], rows_second[0][1]), (1, 1, -4)) is not None
    assert log["complete orientations"][2] == {(True, False)}


def test_the_orientation_search_turns_to_another_as_good_when_the_one_kept_led_nowhere():
    # u reads y2 only: y1's sign changes no trace, so both of its signs explain u. A round that kept one and goes
    # on (log["orientations"]) gets the other next time, then the first again
    net = _deep_family_net(3, reads=0)
    queries = exact_queries(net)
    pending = _zero_set_breakpoints(net, queries)
    partial = partial_with([layer_rows(net, 0), layer_rows(net, 1)])
    log, kept = {}, []
    for _ in range(3):
        partial.layers[-1], partial.free = layer_rows(net, 1), {}
        partial.rebuild()
        rows = orientation_by_search(queries, partial, pending, ExactNumerics(), log)
        assert len(rows) == 1 and rows[0][1] == -4 * rows[0][0][1]  # u / 4 (its weight on y1 left to the family)
        kept.append(list(partial.layers[-1]))
    y1, y2 = layer_rows(net, 1)
    assert [k[1] for k in kept] == [y2] * 3
    assert {kept[0][0], kept[1][0]} == {y1, flipped([y1], [True])[0]} and kept[2] == kept[0]
    assert sorted(log["orientations"][2].values()) == [1, 2]
    assert len(log["complete orientations"][2]) == 2  # both explain every breakpoint: each round searches them all


def test_merge_families_joins_two_components_of_one_neuron_only():
    net, partial, trace_from, true = _family_case(-2)
    near, far = trace_from((1, -1)), trace_from((3, -1))
    other = trace_from((-1, Fraction(1, 2)), (Fraction(0), Fraction(1, 4)))
    assert near[2] and far[2] and other[2] == ()
    merged = merge_families(partial, [near, far])
    assert len(merged) == 1
    c, regions, span, pieces = merged[0]
    assert span == () and proportional(c, true[0]) is not None  # the common formula is the neuron, w = -2
    assert regions == near[1] | far[1] and set(pieces) == set(near[3]) | set(far[3])
    factors = {proportional(h, _affine_on(partial, partial.complex[rid], true[0])) for rid, h in pieces.items()}
    assert None not in factors and len({f > 0 for f in factors}) == 1  # the pieces oriented alike
    # a family and another neuron's trace share no formula: nothing merged, order kept
    assert merge_families(partial, [near, other]) == [near, other]
    assert merge_families(partial, [other, far]) == [other, far]
    three = merge_families(partial, [near, other, far])
    assert len(three) == 2 and three[1] == other and proportional(three[0][0], true[0]) is not None


# ---------------------------------------------------------------------------------------------------------------
# orientation with flips decided elsewhere


@pytest.mark.parametrize("numerics", [ExactNumerics(), FloatNumerics(1e-9)], ids=lambda N: N.name)
def test_orient_layer_respects_fixed_flips_and_recovers_the_rest(numerics):
    truth = layer_rows(NET, 0)
    next_layer = layer_rows(NET, 1)
    for planted in [(True, False, False), (False, True, True)]:
        partial = partial_with([flipped(truth, planted)], numerics)
        vectors = [_in_basis(partial, _true_formula_features(NET, j, planted)) for j in range(3)]
        for fixed in ({0: planted[0]}, {1: planted[1], 2: planted[2]}, dict(enumerate(planted))):
            flips, rows, moved = orient_layer(partial, vectors, fixed=fixed)
            assert tuple(flips) == planted, fixed
            assert moved == vectors
            for (w, beta), (w_true, b_true) in zip(rows, next_layer):
                assert tuple(w) == tuple(w_true)
                assert abs(float(beta - b_true)) <= (0 if numerics.tolerance is None else 1e-9)
        # a fixed flip that contradicts the formulas: no orientation fits
        with pytest.raises(StageFailed):
            orient_layer(partial, vectors, fixed={0: not planted[0]})


def test_a_stalled_round_names_the_hyperplane_f_bends_along():
    # the row of the breakpoint no neuron explains, scaled to a largest normal entry of 1 (the same hyperplane)
    net = ReLUNetwork([[[1, 0], [-1, 0], [0, 1], [0, -1]], [[-1, -1, -1, -1]], [[1]]], [[0, 0, 0, 0], [1], [0]])
    bp = _flat_breakpoint(exact_queries(net), (Fraction(1, 2), Fraction(1, 2)), (Fraction(1, 8), 0))
    assert proportional(bp.row, (1, -1, -1))  # the layer-2 zero set's piece x1 + x2 = 1
    assert _along_text(bp.row) in (" along the hyperplane c + a·x = 0 with (c, a) = (1, -1, -1)",
                                   " along the hyperplane c + a·x = 0 with (c, a) = (-1, 1, 1)")
    assert _along_text((-6, 4, 8)) == " along the hyperplane c + a·x = 0 with (c, a) = (-0.75, 0.5, 1)"
    assert _along_text(None) == ""


def test_a_stalled_round_names_the_family_picks_nothing_completes():
    # families of the last layer are completed by the output fit, so only while the next layer is traced are
    # they suspects; a family below the last layer always is (the log's keys are 0-based layers)
    log = {"families": [(1, 4), (1, 5), (2, 0)], "widths": (5, 8, 2)}
    assert "neurons (2, 4), (2, 5) were picked from families" in _families_text(log, "fitting the output layer on layers 1-3")
    assert "neurons (2, 4), (2, 5), (3, 0) were picked" in _families_text(log, "tracing layer-4 hypersurfaces")
    assert _families_text({"families": [(1, 4)], "widths": (5, 8)}, "fitting the output layer on layers 1-2") == ""
    assert _families_text({"widths": (5, 8)}, "tracing layer-3 hypersurfaces") == ""


def test_straight_hyperplane_finds_the_partly_visible_first_layer_of_a_deep_random_network():
    # network 7 of the fixed sample of 3-hidden-layer N(0, 1) networks (2-3-4-3-1, seed 226333): first-layer
    # neuron 0 is never visible, 1 and 2 only on part of their lines, so hyperplane_neuron accepts none of them
    # and recovery found no first layer; the walk accepts 2 (and 1 with one_sided), never a deeper neuron
    widths = [2, 3, 4, 3, 1]
    rng = np.random.default_rng(226333)
    net = ReLUNetwork([rng.standard_normal((b, a)) for a, b in itertools.pairwise(widths)], [rng.standard_normal(b) for b in widths[1:]])
    queries, N = exact_queries(net), ExactNumerics()

    def neuron_at(x):
        h = list(x)
        for layer, (W, b) in enumerate(zip(net.weights[:-1], net.biases[:-1])):
            z = [sum(Fraction(w) * v for w, v in zip(row, h)) + Fraction(c) for row, c in zip(W, b)]
            if 0 in z:
                return layer + 1, z.index(0)
            h = [max(v, 0) for v in z]

    breakpoints = []
    for a, b, c, e in np.random.default_rng(1).integers(-16, 17, size=(8, 4)):
        p, d = (Fraction(int(a)), Fraction(int(b))), (Fraction(int(c)), Fraction(int(e) or 1))
        for t, _, _, lo, hi in breakpoints_on_line(queries, p, d, None, N):
            bp = breakpoint_at(queries, vadd(p, vscale(t, d)), vscale(min(t - lo, hi - t) / 2, d), 2, N)
            if bp is not None:
                breakpoints.append(bp)
    window = 2 * max(max(abs(v) for v in bp.point) for bp in breakpoints)
    memo = {}
    verdicts = {}
    for bp in breakpoints:
        verdicts.setdefault(neuron_at(bp.point), set()).add(
            (
                hyperplane_neuron(queries, bp, window, N, None),
                straight_hyperplane(queries, bp, window, N, None, memo=memo),
                straight_hyperplane(queries, bp, window, N, None, True, memo),
            )
        )
    assert verdicts[1, 2] == {(False, True, True)} and verdicts[1, 1] == {(False, False, True)}
    assert all(v == {(False, False, False)} for neuron, v in verdicts.items() if neuron[0] > 1) and len(verdicts) > 2


def test_lines_near_a_crossing_meet_a_neuron_hidden_around_it():
    """A layer-2 neuron positive only on the diamond ``|x| + |y| < 1/64`` around the crossing of ``x = 0`` and ``y = 0``.

    ``f`` bends on the diamond's boundary, which a random line through a window of 64 meets about once in a
    few thousand. One line of :meth:`Explorer.search_near_crossings` through the crossing of the two
    first-layer hyperplanes finds breakpoints on it, exactly on ``|x| + |y| = 1/64``.
    """
    net = ReLUNetwork(
        [[[1, 0], [-1, 0], [0, 1], [0, -1]], [[-1, -1, -1, -1], [1, 0, 2, 0]], [[1, 1]]],
        [[0, 0, 0, 0], [Fraction(1, 64), 0], [0]],
    )
    explorer = Explorer(exact_queries(net), 2, None, ExactNumerics(), np.random.default_rng(0))
    explorer.window = Fraction(64)
    explorer.first_layer = [(0, 1, 0), (0, 0, 1)]
    explorer.search_near_crossings(1)
    assert explorer.lines == 1
    on_diamond = [bp for bp in explorer.breakpoints if abs(bp.point[0]) + abs(bp.point[1]) == Fraction(1, 64)]
    assert len(on_diamond) == 2
    # parallel hyperplanes have no crossing: no line
    explorer.first_layer = [(0, 1, 0), (1, 1, 0)]
    explorer.search_near_crossings(3)
    assert explorer.lines == 1
    # three crossings, five lines: every pair in turn, two of them twice
    explorer.first_layer = [(0, 1, 0), (0, 0, 1), (1, 1, 1)]
    explorer.search_near_crossings(5)
    assert explorer.lines == 6


def test_random_lines_meet_a_bounded_hypersurface_however_wide_the_window():
    """``f = relu(|x| + |y| - 1)``: ``f`` bends on the diamond ``|x| + |y| = 1`` and on the axes outside it.

    With the window at ``2^20`` (as after one far breakpoint), lines through points uniform at that scale
    meet the diamond about once in ``10^6``; a point's scale is a power of two drawn uniformly up to the
    window, so a few lines in a hundred pass near the origin. Lines drawn at scale ``2^k > 1`` must not
    widen the window: it stays at ``2^20`` although they find breakpoints far out on the axes.
    """
    net = ReLUNetwork([[[1, 0], [-1, 0], [0, 1], [0, -1]], [[1, 1, 1, 1]], [[1]]], [[0, 0, 0, 0], [-1], [0]])
    explorer = Explorer(exact_queries(net), 2, None, ExactNumerics(), np.random.default_rng(0))
    explorer.window = Fraction(2**20)
    for _ in range(100):
        explorer.search()
    assert explorer.lines == 100
    points = [bp.point for bp in explorer.breakpoints]
    assert any(abs(x) + abs(y) == 1 for x, y in points)
    # every breakpoint found is one of f's: on the diamond, or on an axis outside it
    assert all(abs(x) + abs(y) == 1 or (x * y == 0 and abs(x) + abs(y) > 1) for x, y in points)
    assert max(max(abs(x), abs(y)) for x, y in points) > 2**10 and explorer.window == 2**20
    # a line through a point far out finds the breakpoints it crosses (its tails start past |p| / |d|)
    far = (Fraction(2**40), Fraction(1, 3))
    assert line_breakpoints(network_oracle(net), far, (-1, 0)) == [2**40 - Fraction(2, 3), 2**40 + Fraction(2, 3)]


def test_a_segment_far_out_separates_breakpoints_relative_to_their_distance_from_its_start():
    """``f = relu(x - 10^5) + relu(x - 10^5 - 1)`` on the segment from the origin to ``(10^33, 3)``.

    The two breakpoints lie 1 apart at distance ``10^5``: a search of the whole line through the far end
    resolves ``2^-80`` of its length (about ``10^9`` here) and cannot separate them;
    :meth:`Explorer.search_segment`'s pieces, doubling in length from the start, find both, with their exact
    hyperplanes, and leave the window alone.
    """
    net = ReLUNetwork([[[1, 0], [1, 0]], [[1, 1]]], [[-(10**5), -(10**5) - 1], [0]])
    start, end = (Fraction(0), Fraction(0)), (Fraction(10**33), Fraction(3))
    with pytest.raises(StageFailed):
        breakpoints_on_line(exact_queries(net), end, end, None, ExactNumerics())
    explorer = Explorer(exact_queries(net), 2, None, ExactNumerics(), np.random.default_rng(0))
    explorer.search_segment(start, end)
    rows = sorted(primitive_integer_row(bp.row) for bp in explorer.breakpoints)
    assert rows == [(-(10**5) - 1, 1, 0), (-(10**5), 1, 0)]
    assert explorer.window == 1 and explorer.lines == 0


class FarRegion:
    """A region of a complex as :meth:`MissedBreakpoint.in_region` reads it: its polyhedron and interior point."""

    def __init__(self, polyhedron, point):
        self.polyhedron, self.point = polyhedron, point

    def relative_interior_point(self):
        return self.point


def test_a_missed_region_far_out_is_explored_from_a_point_near_its_vertex():
    """A thin wedge from the vertex ``(1, 1000)`` between the directions ``(1, 1000)`` and ``(1, 1001)``, its
    interior point at ``10^33``: the anchor lies inside the wedge, at max-distance 1 from the vertex on the
    segment to the interior point. A bounded region's interior point is close enough: no anchor."""
    wedge = Polyhedron(ieqs=[(0, -1000, 1), (-1, 1001, -1)], ambient_dim=2)
    assert wedge.vertices() == ((1, 1000),)
    point = (Fraction(10**30) * 2, Fraction(10**30) * 2001)
    assert wedge.relative_interior_contains(point)
    missed = MissedBreakpoint.in_region(FarRegion(wedge, point))
    assert missed.point == point and wedge.relative_interior_contains(missed.anchor)
    step = tuple(a - v for a, v in zip(missed.anchor, (1, 1000)))
    assert max(abs(v) for v in step) == 1 and step[0] * (point[1] - 1000) == step[1] * (point[0] - 1)
    square = Polyhedron(vertices=[(0, 0), (0, 1), (1, 0), (1, 1)])
    assert MissedBreakpoint.in_region(FarRegion(square, (Fraction(1, 2), Fraction(1, 2)))).anchor is None


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.fractions(min_value=-(10**40), max_value=10**40, max_denominator=10**30), min_size=3, max_size=3),
        min_size=1,
        max_size=4,
    )
)
def test_an_appended_layer_has_each_row_scaled_positively_to_max_norm_1(rows):
    """``PartialNetwork.append_layer``: a neuron's scale is free, so rows are kept at max-norm 1 (small numbers).

    Each row stays a positive multiple of the row given (so ``relu`` of it is the same neuron, scaled), its
    largest entry in absolute value is 1, and a zero row stays zero.
    """
    partial = PartialNetwork(2, None, ExactNumerics())
    partial.append_layer([(tuple(r[:2]), r[2]) for r in rows])
    for r, (w, b) in zip(rows, partial.layers[-1]):
        scaled = (*w, b)
        if not any(r):
            assert scaled == tuple(r)
            continue
        assert max(abs(v) for v in scaled) == 1 and all(isinstance(v, Fraction) for v in scaled)
        ratios = {v / u for u, v in zip(r, scaled) if u}
        assert len(ratios) == 1 and ratios.pop() > 0
        assert all(v == 0 for u, v in zip(r, scaled) if not u)


def test_known_layers_keep_the_pre_activations_up_to_a_positive_factor_and_leave_dead_neurons_out():
    """append_known_layers scales rows to max-norm 1 and compensates in the next layer; a neuron off on the whole
    domain goes, with its column in the next layer; the layers' orientation is final (orient_layer fixes it)."""
    # layer 1: two neurons and one off everywhere (z = -1); layer 2 reads all three, with large weights
    known = ReLUNetwork([[[3, -1], [1, 4], [0, 0]], [[5, 7, 9], [-2, 3, 11]]], [[1, -2, -1], [1, -6]])
    partial = PartialNetwork(2, None, ExactNumerics())
    partial.append_known_layers(known)
    assert partial.known == 2 and [len(layer) for layer in partial.layers] == [2, 2]
    assert all(max(abs(v) for v in (*w, b)) == 1 for layer in partial.layers for w, b in layer)
    points = [(Fraction(k, 3), Fraction(5 - 2 * k, 7)) for k in range(-6, 7)]
    mine = [hidden_values(partial.layers, x) for x in points]
    theirs = [(known.pre_activations(x)[0][:2], known(x)) for x in points]
    # layer 1 shrinks by its rows' largest entries 3 and 4; layer 2 reads (15, 28 | 1) and (-6, 12 | -6), so 28 and 12
    for layer, factors in enumerate(([3, 4], [28, 12])):
        for j, factor in enumerate(factors):
            assert all(t[layer][j] == factor * m[layer][j] for m, t in zip(mine, theirs))
    # a next-layer formula reading relu(-z_1) = relu(z_1) - z_1: only flipping neuron 1 explains it
    assert {1, 3} <= set(partial.basis)  # relu(z_1) and z_1 (columns n + i are the z_i)
    reads_flipped = tuple(Fraction({1: 1, 3: -1}.get(col, 0)) for col in partial.basis)
    with pytest.raises(StageFailed, match="no orientation of layer 2"):
        orient_layer(partial, [reads_flipped])
    partial.known = 1
    assert orient_layer(partial, [reads_flipped])[0] == [False, True]


@pytest.mark.parametrize(
    "first, answer, searched_again",
    [
        # a row found without hugging the wall is the row with it; UNSEEN is UNSEEN either way
        (False, (1, 2, 3), False),
        (False, tracing.UNSEEN, False),
        (True, tracing.UNSEEN, False),
        # nothing found while hugging: nothing without it; nothing found without it leaves the wall to search
        (True, None, False),
        (False, None, True),
        # a row found while hugging may lie along the wall, where the search without it does not look
        (True, (1, 2, 3), True),
    ],
)
def test_a_continuation_with_and_without_hugging_the_wall_is_searched_once_where_one_answers_for_both(
    monkeypatch, first, answer, searched_again
):
    searches = []

    def continuation(queries, partial, facet, region, h, numerics, hugging=False):
        searches.append(hugging)
        return answer

    class Cells:
        cell_key = staticmethod(lambda cell: cell)

    monkeypatch.setattr(tracing, "_continue_across", continuation)
    log = {}
    assert tracing._cached_continuation(None, Cells, "facet", "region", (0, 1, 0), None, log, hugging=first) == answer
    tracing._cached_continuation(None, Cells, "facet", "region", (0, 1, 0), None, log, hugging=not first)
    assert searches == ([first, not first] if searched_again else [first])
