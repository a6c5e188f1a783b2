"""Benchmark: LPOracle() (certified float + exact fallback) vs LPOracle("exact") (cdd.gmp alone).

Run from the repository root::

    .venv/bin/python benchmarks/bench_lp.py            # 40 instances per (d, m), best of 3 timings
    .venv/bin/python benchmarks/bench_lp.py --quick    # 20 instances per (d, m), one timing each
    .venv/bin/python benchmarks/bench_lp.py --profile  # also cProfile the certified oracle at d=8

Instances: a point x0 ~ U[-1/2, 1/2]^d,
m hyperplanes with N(0, 1) normals and U(-1, 1) offsets, each oriented so that x0 is
strictly inside, plus the box [-1, 1]^d. Half the instances are full-dimensional, a
quarter empty (one extra hyperplane that misses the region, with its sign flipped: the
"neighbouring activation pattern" case) and a quarter lower-dimensional (an equality
pair a.x <= c, -a.x <= -c through x0). All data are float64 and are converted exactly
(Fraction(float)) and scaled to primitive integer rows, as for trained weights.

Both oracles decide every instance in the same run; their statuses must agree (the
script prints the number of mismatches, which must be 0, and exits non-zero otherwise).

A third column times cdd.gmp directly on the *same* Chebyshev LP as LPOracle("exact"),
but with each row divided by a power of two just above its largest |a_ij| (still exact
dyadic rationals). cdd.gmp solves in floats first and then verifies the basis exactly;
badly scaled integer rows defeat that float phase, so this column shows what cdd.gmp
costs when it is fed well-scaled data. Its status (the sign of t*) is checked as well.
"""

import argparse
import cProfile
import io
import math
import pstats
import statistics
import sys
import time
from fractions import Fraction

import cdd
import cdd.gmp
import numpy as np

from polyrelu.geometry import Feasibility, LPOracle
from polyrelu.geometry.rational import primitive_integer_row

DIMS = (2, 4, 8)
MS = (20, 100)


def float_min(rows, c):
    """min c.x over {b + A x >= 0} in floats (cdd float LP), used only to place the missing hyperplane."""
    lp = cdd.linprog_from_array([list(r) for r in rows] + [[0.0, *c]], cdd.LPObjType.MIN)
    cdd.linprog_solve(lp)
    assert lp.status == cdd.LPStatusType.OPTIMAL
    return lp.obj_value


def make_instance(rng, d, m, kind):
    """One region as float rows (b, a) meaning b + a.x >= 0, then exact primitive integer rows."""
    x0 = rng.uniform(-0.5, 0.5, d)
    frows = []
    for _ in range(m):
        a = rng.standard_normal(d)
        b = rng.uniform(-1.0, 1.0)
        s = 1.0 if b + a @ x0 > 0 else -1.0
        frows.append([s * b, *(s * a)])
    for j in range(d):
        e = np.zeros(d)
        e[j] = 1.0
        frows.append([1.0, *e])
        frows.append([1.0, *(-e)])
    if kind == "empty":
        # a hyperplane that misses the region (margin 1% .. 10% of ||a||), then flipped
        a = rng.standard_normal(d)
        low = float_min(frows, a)
        b = -low + rng.uniform(0.01, 0.1) * np.linalg.norm(a)  # b + a.x > 0 on the region
        frows.append([-b, *(-a)])
    elif kind == "lower":
        a = rng.standard_normal(d)
        c = float(a @ x0)
        frows.append([-c, *a])
        frows.append([c, *(-a)])
    order = rng.permutation(len(frows))
    return [primitive_integer_row([Fraction(float(v)) for v in frows[i]]) for i in order]


def gmp_scaled(rows):
    """The LPOracle Chebyshev LP (l1 weights), rows scaled by 2^-k, solved by cdd.gmp; status from t*."""
    d = len(rows[0]) - 1
    lp_rows = []
    for r in rows:
        scale = 2 ** max(abs(a) for a in r[1:]).bit_length()
        fr = [Fraction(v, scale) for v in r]
        lp_rows.append(fr + [-sum(abs(a) for a in fr[1:])])
    lp_rows.append([1] + [0] * d + [-1])
    lp_rows.append([0] * (d + 1) + [1])
    lp = cdd.gmp.linprog_from_array(lp_rows, cdd.LPObjType.MAX)
    cdd.gmp.linprog_solve(lp)
    assert lp.status == cdd.LPStatusType.OPTIMAL
    t = lp.obj_value
    return Feasibility.INTERIOR if t > 0 else Feasibility.NO_INTERIOR if t == 0 else Feasibility.EMPTY


def time_fn(fn, rows, repeat):
    best = math.inf
    out = None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn(rows)
        best = min(best, time.perf_counter() - t)
    return best, out


KINDS = ("full", "full", "empty", "lower")
EXPECTED = {"full": Feasibility.INTERIOR, "empty": Feasibility.EMPTY, "lower": Feasibility.NO_INTERIOR}


def run_config(d, m, n, repeat, seed):
    rng = np.random.default_rng([seed, d, m])
    certified, exact = LPOracle(), LPOracle("exact")
    t_cert, t_exact, t_scaled, mismatches, wrong, paths = [], [], [], 0, 0, {}
    by_kind = {}
    for k in range(n):
        kind = KINDS[k % len(KINDS)]
        rows = make_instance(rng, d, m, kind)
        before = dict(certified.stats)
        tc, cc = time_fn(certified.decide, rows, repeat)
        path = next(p for p in certified.stats if certified.stats[p] > before.get(p, 0))
        paths[path] = paths.get(path, 0) + 1
        te, ce = time_fn(exact.decide, rows, repeat)
        ts, status = time_fn(gmp_scaled, rows, repeat)
        if cc.status is not ce.status or status is not ce.status:
            mismatches += 1
        if ce.status is not EXPECTED[kind] or not cc.verify(rows) or not ce.verify(rows):
            wrong += 1
        t_cert.append(tc)
        t_exact.append(te)
        t_scaled.append(ts)
        by_kind.setdefault(kind, ([], []))
        by_kind[kind][0].append(tc)
        by_kind[kind][1].append(te)
    return dict(
        d=d,
        m=m,
        n=n,
        cert=statistics.median(t_cert),
        exact=statistics.median(t_exact),
        scaled=statistics.median(t_scaled),
        mismatches=mismatches,
        wrong=wrong,
        paths=paths,
        by_kind={k: (statistics.median(a), statistics.median(b)) for k, (a, b) in by_kind.items()},
    )


def profile_d8(n, seed):
    """Where does the certified oracle spend its time at d=8, m=100?"""
    rng = np.random.default_rng([seed, 8, 100, 1])
    instances = [make_instance(rng, 8, 100, KINDS[k % len(KINDS)]) for k in range(n)]
    oracle = LPOracle()
    prof = cProfile.Profile()
    prof.enable()
    for rows in instances:
        oracle.decide(rows)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(12)
    return out.getvalue()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="20 instances per config, one timing each")
    parser.add_argument("--profile", action="store_true", help="cProfile the certified oracle at d=8, m=100")
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args(argv)
    n, repeat = (20, 1) if args.quick else (40, 3)

    print(f"LP oracle benchmark: {n} instances per (d, m) (1/2 full, 1/4 empty, 1/4 lower-dim), "
          f"best of {repeat} per instance, median over instances; times in ms per call")
    print()
    print(
        "| d | m | rows | LPOracle() certified (ms) | LPOracle(\"exact\") cdd.gmp (ms) | exact / certified "
        "| cdd.gmp, rows / 2^k (ms) | that / certified | decided by float+certificate | by exact fallback "
        "| status mismatches |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    results = []
    for d in DIMS:
        for m in MS:
            r = run_config(d, m, n, repeat, args.seed)
            results.append(r)
            decided = sum(r["paths"].values())
            print(
                f"| {d} | {m} | {m + 2 * d}(+1/2) | {1e3 * r['cert']:.2f} | {1e3 * r['exact']:.2f} | "
                f"{r['exact'] / r['cert']:.1f}x | {1e3 * r['scaled']:.2f} | {r['scaled'] / r['cert']:.1f}x | "
                f"{r['paths'].get('certified-float', 0) / decided:.0%} | "
                f"{r['paths'].get('exact', 0) / decided:.0%} | {r['mismatches']} |",
                flush=True,
            )
    print()
    print("Medians by class, certified / exact (ms):")
    for r in results:
        parts = ", ".join(f"{k} {1e3 * a:.2f} / {1e3 * b:.2f}" for k, (a, b) in sorted(r["by_kind"].items()))
        print(f"  d={r['d']} m={r['m']}: {parts}")
    mismatches = sum(r["mismatches"] for r in results)
    wrong = sum(r["wrong"] for r in results)
    total = sum(r["n"] for r in results)
    print()
    print(f"status mismatches (certified vs exact vs scaled cdd.gmp): {mismatches} of {total}")
    print(f"status differs from construction or certificate fails to verify: {wrong} of {total}")
    d8 = [r for r in results if r["d"] == 8]
    worst = min(r["exact"] / r["cert"] for r in d8)
    worst_scaled = min(r["scaled"] / r["cert"] for r in d8)
    speedups = ", ".join("m={}: {:.1f}x".format(r["m"], r["exact"] / r["cert"]) for r in d8)
    print(f"speed-up over LPOracle('exact') at d=8: {speedups}; target >= 3x: {'met' if worst >= 3 else 'MISSED'}")
    speedups = ", ".join("m={}: {:.1f}x".format(r["m"], r["scaled"] / r["cert"]) for r in d8)
    print(f"speed-up over well-scaled cdd.gmp at d=8: {speedups}; >= 3x: {'yes' if worst_scaled >= 3 else 'NO'}")
    if args.profile or worst < 3 or worst_scaled < 3:
        print()
        print("cProfile of LPOracle() at d=8, m=100 (top functions by own time):")
        print(profile_d8(n, args.seed))
    return 0 if mismatches == 0 and wrong == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
