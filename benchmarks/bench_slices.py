"""Benchmark: exact slices of MNIST-sized networks (results in docs/benchmarks.md, "Exact slices").

Run from the repository root::

    .venv/bin/python benchmarks/bench_slices.py                  # 784→128→128→10 (about 20 s on 2 cores)
    .venv/bin/python benchmarks/bench_slices.py --large          # also 784→256→256→10: 350,000 cells, 10+ minutes, 14 GB
    .venv/bin/python benchmarks/bench_slices.py --large --only 256 --no-baseline   # its exact complex only
    .venv/bin/python benchmarks/bench_slices.py --profile        # also cProfile the exact complex of each slice

Networks: He-initialised float64 MLPs without torch, ``rng = np.random.default_rng(0)``, then layer by
layer ``W = rng.normal(0, sqrt(2 / fan_in), size=(out, in))`` with zero biases (converted exactly):
784→128→128→10 and 784→256→256→10. Three data points ``np.random.default_rng(0).uniform(0, 1, (3, 784))``.

For each network:

* ``slice_through(net, points, margin)``: the exact restriction to the plane through the points
  (origin the first point, directions the differences, so the points sit at (0, 0), (1, 0), (0, 1)),
  with the box [-1/2, 3/2]^2 (margin 1/2) for 784→128→128→10 and [-3, 4]^2 (margin 3) for
  784→256→256→10;
* ``S.complex()``: its canonical complex, exact (Euler characteristic 1 asserted, and the three
  data points located);
* the BASELINE, the simplest by-hand path: the restriction computed in float64 (``W1 @ D`` and
  ``W1 @ p0 + b1`` with numpy), converted exactly to a network, and its complex on the same box. It
  is not the slice of the network (float rounding moves every first-layer hyperplane a little), only
  a network with short numbers; the script reports whether its complex has the same sign vectors.

Prints the bit lengths of the exact first layer, times, cells and cells/s, the peak memory of the process,
and a markdown table. Exit status 1 if a check fails.
"""

import argparse
import cProfile
import io
import math
import pstats
import resource
import sys
import time
from fractions import Fraction

import numpy as np

from polyrelu import Box, ReLUNetwork, canonical_complex, slice_through

# name, widths, margin (the box is [-margin, 1 + margin]^2), only with --large
CASES = [
    ("784→128→128→10", (784, 128, 128, 10), Fraction(1, 2), False),
    ("784→256→256→10", (784, 256, 256, 10), Fraction(3), True),
]


def he_network(widths, seed=0):
    """Float64 weights N(0, 2 / fan_in), zero biases; also returned as numpy arrays for the baseline."""
    rng = np.random.default_rng(seed)
    Ws = [rng.normal(0, math.sqrt(2 / p), size=(n, p)) for p, n in zip(widths, widths[1:])]
    bs = [np.zeros(n) for n in widths[1:]]
    return ReLUNetwork(Ws, bs, name=f"He-initialised {'→'.join(map(str, widths))}"), Ws, bs


def timed(fn, profile=False):
    """``(CPU seconds, value)`` of one call, with a cProfile printout (top 15 by own time) when asked.

    CPU time of the process, not wall time: the benchmark machines are shared, and the work is single-threaded.
    """
    profiler = cProfile.Profile() if profile else None
    start = time.process_time()
    if profiler:
        profiler.enable()
    value = fn()
    if profiler:
        profiler.disable()
    elapsed = time.process_time() - start
    if profiler:
        out = io.StringIO()
        pstats.Stats(profiler, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())
    return elapsed, value


def peak_gb():
    """The process's peak resident memory so far, in GB (Linux reports kilobytes)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run only the networks whose name contains this")
    parser.add_argument("--profile", action="store_true", help="cProfile the exact complex of each slice")
    parser.add_argument("--large", action="store_true", help="also 784→256→256→10 on [-3, 4]^2 (10+ minutes, 14 GB)")
    parser.add_argument("--no-baseline", action="store_true", help="skip the float64 by-hand baseline")
    args = parser.parse_args()
    points = np.random.default_rng(0).uniform(0, 1, size=(3, 784))
    rows, failures = [], 0
    for name, widths, margin, large in CASES:
        if (args.only and args.only not in name) or (large and not args.large):
            continue
        print(f"== {name}, box [{-margin}, {1 + margin}]^2")
        net, Ws, bs = he_network(widths)
        t_restrict, S = timed(lambda: slice_through(net, points, margin=margin))
        W1 = S.network.weights[0]
        bits = max(max(abs(v.numerator).bit_length(), v.denominator.bit_length()) for row in W1 for v in row)
        print(f"slice_through        {t_restrict:.2f} s; first layer {W1[0][0].denominator.bit_length()}-bit "
              f"denominators, entries up to {bits} bits (numerator or denominator)")
        t_exact, K = timed(lambda: S.complex(), args.profile)
        located = [K.locate(p).dimension for p in S.points]
        ok = K.euler_characteristic() == 1 and located == [2, 2, 2]
        failures += not ok
        print(f"exact complex        {t_exact:.2f} s, {len(K):,} cells {K.f_vector()}, {len(K) / t_exact:,.0f} cells/s; "
              f"Euler characteristic {K.euler_characteristic()}, data points in cells of dimension {located}; "
              f"peak memory {peak_gb():.1f} GB" + ("" if ok else "  CHECK FAILED"))
        row = [name, f"[{-margin}, {1 + margin}]²", t_restrict, len(K), K.f_vector(), t_exact, None, None]
        if not args.no_baseline:
            signs = {c.signs for c in K}
            del K  # two complexes of this size need twice the memory

            def by_hand():
                D = np.stack([points[1] - points[0], points[2] - points[0]], axis=1)
                flat = ReLUNetwork([Ws[0] @ D, *Ws[1:]], [Ws[0] @ points[0] + bs[0], *bs[1:]])
                return canonical_complex(flat, Box(-margin, 1 + margin))

            t_float, F = timed(by_hand)
            row[6:] = t_float, {c.signs for c in F} == signs
            print(f"float64 by hand      {t_float:.2f} s, {len(F):,} cells {F.f_vector()}, {len(F) / t_float:,.0f} cells/s; "
                  f"same sign vectors as the exact slice: {row[7]}")
            del F
        print()
        rows.append(row)
    print("| network | box | slice_through | cells | f-vector | exact complex | cells/s | float64 by hand | same signs |")
    print("|---|---|---:|---:|---|---:|---:|---:|---|")
    for name, box, t_restrict, cells, f, t_exact, t_float, same in rows:
        by_hand = "-" if t_float is None else f"{t_float:.2f} s"
        same_text = "-" if same is None else "yes" if same else "no"
        print(f"| {name} | {box} | {t_restrict:.2f} s | {cells:,} | {f} | {t_exact:.2f} s | {cells / t_exact:,.0f} | "
              f"{by_hand} | {same_text} |")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
