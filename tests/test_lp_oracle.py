"""LPOracle against an independent exact reference built directly on ``cdd.gmp``.

Every instance is checked three ways:

* the oracle's status must equal the status of :func:`reference`, which uses
  two exact ``cdd.gmp`` LPs of its own (a pure feasibility LP and a Chebyshev
  LP with unit weights) and checks their primal points itself;
* the certificate must prove that status, checked here in exact arithmetic
  (not only through ``cert.verify``): a strictly interior point, a Farkas
  combination, or a point of the set plus multipliers whose rows are implicit
  equalities according to a third exact ``cdd.gmp`` LP;
* where the construction fixes the answer (an interior point is known, a
  Farkas combination was planted, an equality pair passes through a known
  point) the reference must agree with the construction.

Instances come from hypothesis (derandomized, no example database) in dimension
1..8 with small integers, large integers and float64 Gaussians converted
exactly with ``Fraction(float)`` and scaled to primitive integer rows.
``cdd.gmp.implicit_linearity_rows`` is deliberately not used: with libcdd 094m
it returned a strict subset of the implicit equalities on a 52-bit Gaussian
instance at d=8 (see ``test_reference_implicit_rows_are_complete_where_cdd_rows_call_is_not``).
"""

import math
from fractions import Fraction

import cdd
import cdd.gmp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import affine_value, cdd_lp, dot, implicit_rows

from polyrelu.geometry import Feasibility, LPOracle

INTERIOR, NO_INTERIOR, EMPTY = Feasibility.INTERIOR, Feasibility.NO_INTERIOR, Feasibility.EMPTY
OPTIMAL = cdd.LPStatusType.OPTIMAL
INCONSISTENT = cdd.LPStatusType.INCONSISTENT

PROFILE = dict(
    derandomize=True,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)


# --------------------------------------------------------------------------------------
# exact helpers (independent of polyrelu)
# --------------------------------------------------------------------------------------
def primitive(row):
    """Scale a rational row by a positive factor to coprime integers."""
    row = [Fraction(v) for v in row]
    den = math.lcm(*(v.denominator for v in row))
    ints = [int(v * den) for v in row]
    g = math.gcd(*ints)
    return tuple(v // g for v in ints) if g > 1 else tuple(ints)


def is_zero_row(row):
    return not any(row[1:])


# --------------------------------------------------------------------------------------
# the reference
# --------------------------------------------------------------------------------------
def reference(rows):
    """Exact status of ``{x : b + a.x >= 0}`` from cdd.gmp, self-checked.

    Zero rows are constants: ``b < 0`` makes the set empty, ``b >= 0`` is
    ignored (it cannot be strict, and the oracle documents that it ignores it).
    """
    d = len(rows[0]) - 1
    if any(is_zero_row(r) and r[0] < 0 for r in rows):
        return EMPTY
    live = [tuple(r) for r in rows if not is_zero_row(r)]
    if not live:
        return INTERIOR
    # Each row divided by a power of two (the same set): libcdd 094m's GMP LP cycles and then crashes on
    # some rows of 150+ bit integers (degenerate, d=5, kind="large", seed=120), but not on these.
    live = [tuple(Fraction(v, 1 << max(abs(a) for a in r[1:]).bit_length()) for v in r) for r in live]
    feas = cdd_lp(live, [0] * (d + 1))
    assert feas.status in (OPTIMAL, INCONSISTENT), feas.status
    if feas.status == OPTIMAL:
        x = feas.primal_solution
        assert all(affine_value(r, x) >= 0 for r in live), "reference: cdd.gmp feasible point violates a row"
    # maximize t  s.t.  b_i + a_i.x - t >= 0,  1 - t >= 0  (unit weights, unlike the oracle)
    cheb_rows = [(*r, -1) for r in live] + [(1,) + (0,) * d + (-1,)]
    cheb = cdd_lp(cheb_rows, (0,) * (d + 1) + (1,))
    assert cheb.status == OPTIMAL, cheb.status
    t = cheb.obj_value
    assert (t >= 0) == (feas.status == OPTIMAL), "reference: the two cdd.gmp LPs disagree"
    if t > 0:
        x = cheb.primal_solution[:d]
        assert all(affine_value(r, x) > 0 for r in live), "reference: cdd.gmp interior point is not interior"
        return INTERIOR
    return NO_INTERIOR if t == 0 else EMPTY


def reference_all_implicit(rows, indices):
    """Whether every row in ``indices`` vanishes on the (non-empty) set: max sum of them is 0."""
    d = len(rows[0]) - 1
    live = [tuple(r) for r in rows if not is_zero_row(r)]
    objective = [sum(rows[i][j] for i in indices) for j in range(d + 1)]
    lp = cdd_lp(live, objective)
    return lp.status == OPTIMAL and lp.obj_value == 0


def reference_implicit_set(rows):
    """All implicit equalities among the rows that are not zero rows, one exact LP per row (small instances only)."""
    live = [i for i, r in enumerate(rows) if not is_zero_row(r)]
    d = len(rows[0]) - 1
    return {live[j] for j in implicit_rows([rows[i] for i in live], (), d)}


# --------------------------------------------------------------------------------------
# checking one answer
# --------------------------------------------------------------------------------------
def check_certificate(cert, rows, expected):
    d = len(rows[0]) - 1
    assert cert.status is expected, f"oracle says {cert.status}, reference says {expected}"
    assert cert.verify(rows), f"certificate does not verify: {cert}"
    if cert.status is INTERIOR:
        x = cert.point
        assert x is not None and len(x) == d
        assert all(affine_value(r, x) > 0 for r in rows if not is_zero_row(r))
        return
    y = cert.multipliers
    assert y, "EMPTY / NO_INTERIOR needs multipliers"
    assert all(isinstance(v, int) and v > 0 for v in y.values())
    assert all(0 <= i < len(rows) for i in y)
    combo = [sum(v * rows[i][j] for i, v in y.items()) for j in range(d + 1)]
    assert not any(combo[1:]), "sum y_i a_i != 0"
    if cert.status is EMPTY:
        assert combo[0] < 0, "sum y_i b_i must be negative for a Farkas certificate"
        return
    assert combo[0] == 0
    x = cert.point
    assert x is not None and len(x) == d and all(affine_value(r, x) >= 0 for r in rows), "no point of the set"
    assert all(not is_zero_row(rows[i]) for i in y)
    assert reference_all_implicit(rows, list(y)), f"rows {sorted(y)} are not all implicit equalities"


def run_both(rows, label=None):
    expected = reference(rows)
    if label is not None:
        if label == "nonempty":
            assert expected is not EMPTY
        else:
            assert expected is label, f"construction says {label}, reference says {expected}"
    for method in ("certified", "exact"):
        oracle = LPOracle(method) if method == "exact" else LPOracle()
        cert = oracle.decide(rows)
        check_certificate(cert, rows, expected)
        assert sum(oracle.stats.values()) == 1 and oracle.stats[cert.decided_by] == 1
        allowed = {"exact", "trivial"} if method == "exact" else {"exact", "trivial", "certified-float"}
        assert cert.decided_by in allowed
    return expected


# --------------------------------------------------------------------------------------
# instance generators
# --------------------------------------------------------------------------------------
class Gen:
    """Random rational data of one magnitude class, from a numpy Generator."""

    def __init__(self, rng, d, kind):
        self.rng, self.d, self.kind = rng, d, kind
        self.bits = int(rng.choice([24, 64, 128])) if kind == "large" else 0

    def scalar(self, lo=-1.0, hi=1.0):
        r = self.rng
        if self.kind == "small":
            return Fraction(int(r.integers(-4, 5)), int(r.integers(1, 4)))
        if self.kind == "large":
            return Fraction(int(r.integers(-(2**62), 2**62)) << max(0, self.bits - 62), 2 ** (self.bits - 2))
        return Fraction(float(r.uniform(lo, hi)))

    def point(self):
        if self.kind == "gaussian":
            return tuple(Fraction(float(v)) for v in self.rng.uniform(-0.5, 0.5, self.d))
        return tuple(self.scalar() for _ in range(self.d))

    def normal(self):
        r = self.rng
        while True:
            if self.kind == "small":
                a = [int(v) for v in r.integers(-3, 4, self.d)]
            elif self.kind == "large":
                shift = max(0, self.bits - 62)
                a = [int(v) << shift | int(r.integers(0, 2**20)) for v in r.integers(-(2**62), 2**62, self.d)]
                a = [v if r.random() < 0.8 else 0 for v in a]
            else:
                a = [Fraction(float(v)) for v in r.standard_normal(self.d)]
            if any(a):
                return tuple(Fraction(v) for v in a)

    def slack(self):
        r = self.rng
        if self.kind == "small":
            return Fraction(int(r.integers(1, 6)), int(r.integers(1, 3)))
        if self.kind == "large":
            return Fraction(int(r.integers(1, 2**62)), 2 ** int(r.integers(40, 70)))
        return Fraction(float(r.uniform(0.01, 1.0)))

    def tiny(self):
        """A positive number far below float resolution relative to the data."""
        return Fraction(1, 2 ** int(self.rng.integers(60, 200)))

    def row(self, a, x0, s):
        """Primitive integer row with ``b + a.x0 = s`` (up to the positive scaling)."""
        return primitive([s - dot(a, x0), *a])

    def box(self, x0, half):
        rows = []
        for j in range(self.d):
            e = [Fraction(int(k == j)) for k in range(self.d)]
            rows.append(self.row(tuple(e), x0, half))
            rows.append(self.row(tuple(-v for v in e), x0, half))
        return rows


def _rng(seed):
    return np.random.default_rng(seed)


def _sizes(rng, d, kind):
    hi = {"small": 3 * d + 6, "large": 2 * d + 5, "gaussian": 2 * d + 4}[kind]
    return int(rng.integers(1, hi))


def build_full(seed, d, kind):
    rng = _rng(seed)
    g = Gen(rng, d, kind)
    x0 = g.point()
    rows = [g.row(g.normal(), x0, g.slack()) for _ in range(_sizes(rng, d, kind))]
    variant = int(rng.integers(0, 3))
    if variant >= 1:
        rows += g.box(x0, Fraction(1) if kind != "large" else g.slack())
    if variant == 2:  # a thin slab around x0, thinner than float resolution
        a, e = g.normal(), g.tiny()
        rows += [g.row(a, x0, e), g.row(tuple(-v for v in a), x0, e)]
    rng.shuffle(rows)
    return [tuple(r) for r in rows], INTERIOR


def build_empty(seed, d, kind):
    rng = _rng(seed)
    g = Gen(rng, d, kind)
    x0 = g.point()
    rows = [g.row(g.normal(), x0, g.slack()) for _ in range(_sizes(rng, d, kind))]
    variant = int(rng.integers(0, 4))
    if variant == 0:  # plant a Farkas combination of k rows
        k = int(rng.integers(1, min(d + 1, len(rows)) + 1))
        idx = rng.choice(len(rows), size=k, replace=False)
        if kind == "gaussian":
            ys = [Fraction(float(rng.uniform(0.1, 2))) for _ in idx]
        else:
            ys = [Fraction(int(rng.integers(1, 6))) for _ in idx]
        combo = [sum(y * rows[i][j] for y, i in zip(ys, idx)) for j in range(d + 1)]
        e = g.tiny() if rng.random() < 0.5 else Fraction(int(rng.integers(1, 4)))
        new = [-c for c in combo]
        new[0] -= e
        rows.append(primitive(new))
    elif variant == 1:  # a flipped hyperplane beyond the box: the "neighbouring pattern" case
        half = Fraction(1)
        rows += g.box(x0, half)
        a = g.normal()
        top = dot(a, x0) + half * sum(abs(v) for v in a)
        e = g.tiny() if rng.random() < 0.5 else g.slack()
        rows.append(primitive([-(top + e), *a]))  # a.x >= top + e
    elif variant == 2:  # a slab of negative width, by a margin below float resolution
        a, e = g.normal(), g.tiny()
        rows += [g.row(a, x0, -e), g.row(tuple(-v for v in a), x0, 0)]
    else:  # an equality pair plus a conflict thinner than float resolution (a degenerate optimum)
        a, c, e = g.normal(), g.normal(), g.tiny()
        rows += [g.row(a, x0, 0), g.row(tuple(-v for v in a), x0, 0)]
        rows += [g.row(c, x0, -e), g.row(tuple(-v for v in c), x0, 0)]
    rng.shuffle(rows)
    return [tuple(r) for r in rows], EMPTY


def build_lower(seed, d, kind):
    rng = _rng(seed)
    g = Gen(rng, d, kind)
    x0 = g.point()
    rows = [g.row(g.normal(), x0, g.slack()) for _ in range(_sizes(rng, d, kind))]
    if rng.random() < 0.7:
        rows += g.box(x0, Fraction(1))
    variant = int(rng.integers(0, 3))
    if variant == 0:  # k equality pairs a.x <= c, -a.x <= -c through x0
        for _ in range(int(rng.integers(1, d + 1))):
            r = g.row(g.normal(), x0, 0)
            rows += [r, tuple(-v for v in r)]
    elif variant == 1:  # k rows through x0 and minus a positive combination of them
        k = int(rng.integers(1, d + 1))
        tight = [g.row(g.normal(), x0, 0) for _ in range(k)]
        ys = [int(rng.integers(1, 5)) for _ in tight]
        rows += tight + [primitive([-sum(y * r[j] for y, r in zip(ys, tight)) for j in range(d + 1)])]
    else:  # a thin slab collapsed to zero width, with rows scaled differently
        a = g.normal()
        r = g.row(a, x0, 0)
        rows += [r, tuple(-3 * v for v in r)]
    rng.shuffle(rows)
    return [tuple(r) for r in rows], NO_INTERIOR


def build_unbounded(seed, d, kind):
    rng = _rng(seed)
    g = Gen(rng, d, kind)
    x0 = g.point()
    c = g.normal()
    variant = int(rng.integers(0, 5))

    def cone_row():
        a = g.normal()
        if dot(a, c) == 0:
            a = tuple(ai + ci for ai, ci in zip(a, c))
        if dot(a, c) < 0:
            a = tuple(-v for v in a)
        return a

    if variant == 0:  # a pointed-or-not cone with apex x0, containing x0 + s c
        rows = [g.row(cone_row(), x0, 0) for _ in range(int(rng.integers(1, 2 * d + 2)))]
        return [tuple(r) for r in rows], INTERIOR
    if variant == 1:  # one half-space, or a few with a common interior
        rows = [g.row(g.normal(), x0, g.slack()) for _ in range(int(rng.integers(1, 3)))]
        return [tuple(r) for r in rows], INTERIOR
    if variant == 2:  # an unbounded slab
        a = g.normal()
        rows = [g.row(a, x0, g.slack()), g.row(tuple(-v for v in a), x0, g.slack())]
        return [tuple(r) for r in rows], INTERIOR
    if variant == 3:  # a cone cut by a hyperplane that contains its direction c: flat, unbounded
        if d == 1:
            return [(0, 1), (0, -1)], NO_INTERIOR
        rows = [g.row(cone_row(), x0, 0) for _ in range(int(rng.integers(1, 2 * d + 1)))]
        a = (0,) * d
        while not any(a):  # a normal orthogonal to c, so the direction c stays in the hyperplane
            a = g.normal()
            a = tuple(ai - dot(a, c) / dot(c, c) * ci for ai, ci in zip(a, c))
        r = g.row(a, x0, 0)
        rows += [r, tuple(-v for v in r)]
        rng.shuffle(rows)
        return [tuple(r) for r in rows], NO_INTERIOR
    # two opposite half-spaces that miss each other, plus unbounded clutter
    a = g.normal()
    e = g.tiny() if rng.random() < 0.5 else g.slack()
    rows = [g.row(a, x0, -e), g.row(tuple(-v for v in a), x0, 0)]
    rows += [g.row(cone_row(), x0, g.slack()) for _ in range(int(rng.integers(0, d + 1)))]
    rng.shuffle(rows)
    return [tuple(r) for r in rows], EMPTY


def build_degenerate(seed, d, kind):
    rng = _rng(seed)
    g = Gen(rng, d, kind)
    variant = int(rng.integers(0, 3))
    if variant == 0:  # many rows through one point x1 (a cone at x1): non-empty, any dimension
        x1 = g.point()
        rows = [g.row(g.normal(), x1, 0) for _ in range(int(rng.integers(d + 1, 3 * d + 4)))]
        label = "nonempty"
    else:
        base = [build_full, build_empty, build_lower, build_unbounded][int(rng.integers(0, 4))]
        rows, label = base(int(rng.integers(0, 2**32)), d, kind)
        rows = list(rows)
    extra = []
    for r in rows:
        u = rng.random()
        if u < 0.2:
            extra.append(r)  # exact duplicate
        elif u < 0.35:
            k = int(rng.integers(2, 7))
            extra.append(tuple(k * v for v in r))  # positive multiple, not primitive
        elif u < 0.5:
            extra.append((r[0] + int(rng.integers(1, 4)) * max(1, abs(r[0])), *r[1:]))  # parallel, looser
    rows += extra
    rows += [(int(rng.integers(0, 3)),) + (0,) * d for _ in range(int(rng.integers(0, 3)))]  # 0 <= b
    if rng.random() < 0.15:
        rows.append((-int(rng.integers(1, 3)),) + (0,) * d)  # b < 0: empty at once
        label = EMPTY
    rng.shuffle(rows)
    if not rows:
        rows = [(0,) * (d + 1)]
    return [tuple(r) for r in rows], label


BUILDERS = {
    "full": build_full,
    "empty": build_empty,
    "lower": build_lower,
    "unbounded": build_unbounded,
    "degenerate": build_degenerate,
}

# Examples per class; 5 x 440 = 2200 instances, each decided by both oracles.
EXAMPLES = 440

KINDS = st.sampled_from(["small", "small", "large", "gaussian"])
DIMS = st.sampled_from(range(1, 9))


@pytest.mark.parametrize("cls", sorted(BUILDERS))
@settings(max_examples=EXAMPLES, **PROFILE)
@given(d=DIMS, kind=KINDS, seed=st.integers(0, 2**32 - 1))
def test_oracle_agrees_with_cdd_gmp_reference(cls, d, kind, seed):
    rows, label = BUILDERS[cls](seed, d, kind)
    run_both(rows, label)


# --------------------------------------------------------------------------------------
# hand-made cases: the corners the generators might miss
# --------------------------------------------------------------------------------------
def _pair(row):
    return [tuple(row), tuple(-v for v in row)]


HAND_CASES = {
    # zero rows
    "only 0 >= 0": ([(0, 0, 0)], INTERIOR),
    "only 1 >= 0": ([(1, 0)], INTERIOR),
    "-1 >= 0": ([(-1, 0, 0), (0, 1, 0)], EMPTY),
    "zero rows around a square": ([(0, 0, 0), (0, 1, 0), (3, 0, 0), (1, -1, 0), (0, 0, 1), (1, 0, -1)], INTERIOR),
    # d = 1
    "point in R": ([(0, 1), (0, -1)], NO_INTERIOR),
    "segment in R": ([(0, 1), (1, -1)], INTERIOR),
    "x >= 1, x <= 0": ([(-1, 1), (0, -1)], EMPTY),
    "ray in R": ([(5, 1)], INTERIOR),
    # equality pair plus a conflict far below float resolution: used to come back NO_INTERIOR
    "pair + thin conflict 1e-17": (
        [(0, 1, 0), (0, -1, 0), (-1, 0, 1), (99999999999999999, 0, -100000000000000000)],
        EMPTY,
    ),
    "pair + thin conflict 2^-200": (
        _pair((0, 1, 0)) + [(-(2**200), 0, 2**200), (2**200 - 1, 0, -(2**200))],
        EMPTY,
    ),
    # |b| / max|a| beyond the float range: used to raise OverflowError
    "huge offset, interior": ([(10**400, 1, 0), (0, 0, 1)], INTERIOR),
    "huge offset, empty": ([(-(10**400), 1), (0, -1)], EMPTY),
    "huge offset, flat": ([(10**400, 1, 0), (0, 0, 1), (0, 0, -1)], NO_INTERIOR),
    "huge coefficients": (_pair((3 * 10**300, 7 * 10**300, -(10**300))) + [(10**300, 1, 1)], NO_INTERIOR),
    # many rows through one point: a pointed cone, a line, a point
    "octant cone, 3 duplicated": ([(0, 1, 0, 0), (0, 0, 1, 0), (0, 0, 0, 1), (0, 1, 0, 0), (0, 2, 0, 0)], INTERIOR),
    "all rows through 0, only 0": ([(0, 1, 0), (0, 0, 1), (0, -1, -1)], NO_INTERIOR),
    "line x = y": ([(0, 1, -1), (0, -1, 1)], NO_INTERIOR),
    "parallel rows": ([(0, 1, 0), (5, 1, 0), (7, 1, 0), (1, -1, 0), (1, -1, 0)], INTERIOR),
    "whole space by a half-space": ([(1, 1, 1, 1, 1, 1, 1, 1, 1)], INTERIOR),
}


@pytest.mark.parametrize("name", sorted(HAND_CASES))
def test_hand_made_cases(name):
    rows, label = HAND_CASES[name]
    assert run_both(rows, label) is label


def test_reference_implicit_rows_are_complete_where_cdd_rows_call_is_not():
    """Pins why the reference does not use cdd.gmp.implicit_linearity_rows.

    A Gaussian instance (d=8, 20 hyperplanes, box, one equality pair through x0):
    both rows of the pair vanish on the set, and the oracle's NO_INTERIOR
    multipliers use both. The per-row LP reference finds both. (With libcdd 094m,
    ``implicit_linearity_rows`` returns only one of them here; that is not asserted.)
    """
    rng = np.random.default_rng(0)
    rows = None
    for d, m in [(2, 20), (4, 30), (8, 20)]:
        g = Gen(rng, d, "gaussian")
        x0 = tuple(Fraction(float(v)) for v in rng.uniform(-0.5, 0.5, d))
        rows = []
        for _ in range(m):
            a = tuple(Fraction(float(v)) for v in rng.standard_normal(d))
            rows.append(g.row(a, x0, Fraction(float(rng.uniform(0, 1)))))
        rows += g.box(x0, Fraction(1))
        r = g.row(rows[0][1:], x0, 0)
        rows[0] = r
        rows.append(tuple(-v for v in r))
    last = len(rows) - 1
    implicit = reference_implicit_set(rows)
    assert implicit == {0, last}
    for oracle in (LPOracle(), LPOracle("exact")):
        cert = oracle.decide(rows)
        check_certificate(cert, rows, NO_INTERIOR)
        assert set(cert.multipliers) == {0, last}


# --------------------------------------------------------------------------------------
# forcing the float path to fail: the exact fallback must decide, and be counted
# --------------------------------------------------------------------------------------
FALLBACK_CASES = {
    "interior": ([(0, 1, 0), (0, 0, 1), (1, -1, 0), (1, 0, -1)], INTERIOR),
    "empty": ([(0, 1, 0), (0, -1, 0), (-1, 0, 1), (0, 0, -1)], EMPTY),  # x = 0, y >= 1, y <= 0
    "no interior": ([(0, 1, 0), (0, 0, 1), (2, -1, 0), (2, 0, -1), (-1, 1, 0), (1, -1, 0)], NO_INTERIOR),
}

BOGUS = {
    # the float LP "fails"
    "none": lambda rows, d: None,
    # a point outside the set, and a dual on the first two rows
    "outside point": lambda rows, d: ([-7.0] * d, {0: 1.0, 1: 1.0}),
    # no usable point, and a dual whose null vector is a genuine equality pair (rows 0, 1 of
    # the "empty" case): before the fix this made the oracle answer NO_INTERIOR on an empty set
    "nan point, pair dual": lambda rows, d: ([float("nan")] * d, {0: 0.5, 1: 0.5}),
    # an infinite point and a dual on every row (too large a support)
    "inf point, full dual": lambda rows, d: ([float("inf")] * d, {i: 1.0 for i in range(len(rows))}),
    # a dual with mixed signs
    "mixed-sign dual": lambda rows, d: ([float("nan")] * d, {0: 1.0, 2: -1.0}),
}


@pytest.mark.parametrize("bogus", sorted(BOGUS))
@pytest.mark.parametrize("case", sorted(FALLBACK_CASES))
def test_bogus_float_solver_falls_back_to_exact(monkeypatch, case, bogus):
    rows, expected = FALLBACK_CASES[case]
    assert reference(rows) is expected

    honest = LPOracle()
    cert = honest.decide(rows)
    check_certificate(cert, rows, expected)
    assert honest.stats == {"certified-float": 1}

    monkeypatch.setattr(LPOracle, "_float_solve", lambda self, r, d: BOGUS[bogus](r, d))
    oracle = LPOracle()
    cert = oracle.decide(rows)
    check_certificate(cert, rows, expected)
    assert cert.decided_by == "exact"
    assert oracle.stats == {"exact": 1}


def test_bogus_but_valid_farkas_dual_is_accepted(monkeypatch):
    """Certificates, not the float solver, decide: a garbage point with the right dual support is fine."""
    rows = [(0, 1, 0), (0, -1, 0), (-1, 0, 1), (99999999999999999, 0, -100000000000000000)]
    monkeypatch.setattr(LPOracle, "_float_solve", lambda self, r, d: ([float("nan")] * d, {2: 1.0, 3: 1.0}))
    oracle = LPOracle()
    cert = oracle.decide(rows)
    check_certificate(cert, rows, EMPTY)
    assert oracle.stats == {"certified-float": 1}


def _garbage_solver(seed):
    rng = np.random.default_rng(seed)

    def solve(self, rows, d):
        x = [float(v) for v in rng.normal(0, 3, d)] if rng.random() < 0.5 else [float("nan")] * d
        k = int(rng.integers(1, min(len(rows), d + 2) + 1))
        support = rng.choice(len(rows), size=k, replace=False)
        return x, {int(i): float(rng.uniform(0.1, 1.0)) for i in support}

    return solve


@settings(max_examples=150, **PROFILE)
@given(
    cls=st.sampled_from(sorted(BUILDERS)),
    d=st.integers(1, 5),
    seed=st.integers(0, 2**32 - 1),
)
def test_adversarial_float_solver_never_changes_the_answer(cls, d, seed):
    """Whatever the float LP returns, a certified answer is a correct answer."""
    rows, _ = BUILDERS[cls](seed, d, "small")
    expected = reference(rows)
    oracle = LPOracle()
    original = LPOracle._float_solve
    LPOracle._float_solve = _garbage_solver(seed)
    try:
        cert = oracle.decide(rows)
    finally:
        LPOracle._float_solve = original
    check_certificate(cert, rows, expected)


def test_certified_path_decides_most_benchmark_like_instances():
    """On float64-Gaussian regions (as in lp.md) the float path, not cdd.gmp, should decide."""
    oracle = LPOracle()
    nontrivial = 0
    for seed in range(30):
        for build in (build_full, build_empty, build_lower):
            rows, _ = build(seed, 4, "gaussian")
            cert = oracle.decide(rows)
            nontrivial += cert.decided_by != "trivial"
    assert nontrivial > 0 and oracle.stats["certified-float"] >= 0.9 * nontrivial, oracle.stats


def test_rejects_empty_input_and_bad_method():
    with pytest.raises(ValueError):
        LPOracle().decide([])
    with pytest.raises(ValueError):
        LPOracle("float")


def test_instance_on_which_raw_cdd_gmp_cycles_is_decided():
    """libcdd 094m's GMP LP cycles ("max number 7000 of pivots") and then segfaults on these raw
    150-bit rows; the oracle's exact path (dyadic-scaled rows) and the reference (scaled too) decide them."""
    rows, label = BUILDERS["degenerate"](120, 5, "large")
    assert max(abs(v) for r in rows for v in r).bit_length() > 150
    run_both(rows, label)
    for mode in ("certified", "exact"):
        certificate = LPOracle(mode).decide(rows)
        assert certificate.verify(rows) and certificate.status == reference(rows)
