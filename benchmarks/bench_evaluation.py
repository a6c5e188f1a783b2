"""Benchmark: exact evaluation of a network at the points recovery asks about (results in docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_evaluation.py

Recovery's black box, in the tests, the survey and the benchmarks, is ``ReLUNetwork.__call__``: exact evaluation
at points of fractions with large denominators (lines through breakpoints, probes at a shrinking scale). It
was a quarter of recovery's time on a three-hidden-layer network.

* ``ReLUNetwork.__call__``: the point scaled to integers once, each layer an integer product
  (``ReLUNetwork.integer_layers``), one division at the end;
* BASELINE, in the same process: the same forward pass with flint's rational matrices (``fmpq_mat``), one
  product per layer with a gcd per operation;
* the query cache's key: the tuple of numerators and denominators against hashing the tuple of fractions.

Networks: the seed-0 Gaussian recipe (float64 weights, exact as fractions with denominators up to 2^52) and
``generic_network`` (small rationals) of the shapes recovery meets. Points: 2,000 per network, each coordinate
a fraction with a 40-digit denominator, as recovery's probes carry after a few halvings.
"""

import datetime
import platform
import random
import sys
from fractions import Fraction

import flint
from _timing import best_cpu_of

from polyrelu.examples import generic_network, seeded_gaussian_network
from polyrelu.recovery.oracle import point_key

SHAPES = [(2, 8, 8, 1), (3, 4, 6, 6, 1), (2, 6, 6, 6, 1), (3, 6, 6, 6, 1)]
POINTS = 2000


def rational_forward(net):
    """The baseline: ``x ↦ f(x)`` with one flint rational matrix ``[[1, 0], [b, W]]`` per layer."""
    layers = []
    for W, b in net.layers:
        rows = [[1] + [0] * len(W[0])] + [[bi, *row] for row, bi in zip(W, b)]
        layers.append(flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in map(Fraction, r)] for r in rows]))

    def forward(x):
        v = flint.fmpq_mat(len(x) + 1, 1, [1] + [flint.fmpq(a.numerator, a.denominator) for a in x])
        for L in layers[:-1]:
            z = L * v
            v = flint.fmpq_mat(z.nrows(), 1, [1] + [q if q > 0 else 0 for q in (z[i, 0] for i in range(1, z.nrows()))])
        out = layers[-1] * v
        return tuple(Fraction(int(out[i, 0].p), int(out[i, 0].q)) for i in range(1, out.nrows()))

    return forward


def main():
    rng = random.Random(0)
    print(f"# bench_evaluation, {datetime.date.today()}, Python {platform.python_version()}, {POINTS} points per network, best of 3 (CPU)")
    print("| network | rational flint (baseline) | integer products | ratio | fraction-tuple hash | integer key | ratio |")
    print("|---|---|---|---|---|---|---|")
    for make, label in [(seeded_gaussian_network, "Gaussian seed 0"), (lambda s: generic_network(s, seed=0), "generic seed 0")]:
        for shape in SHAPES:
            net = make(shape)
            n0 = shape[0]
            points = [tuple(Fraction(rng.randint(-(10**40), 10**40), rng.randint(1, 10**40)) for _ in range(n0)) for _ in range(POINTS)]
            baseline = rational_forward(net)
            t_base, expected = best_cpu_of(3, lambda: [baseline(x) for x in points])
            t_new, got = best_cpu_of(3, lambda: [net(x) for x in points])
            if got != expected:
                sys.exit(f"{label} {shape}: the two evaluations disagree")
            t_hash, _ = best_cpu_of(3, lambda: [hash(x) for x in points])
            t_key, _ = best_cpu_of(3, lambda: [hash(point_key(x)) for x in points])
            arrows = "→".join(map(str, shape))
            print(
                f"| {label} {arrows} | {t_base * 1e6 / POINTS:.0f} µs | {t_new * 1e6 / POINTS:.0f} µs | {t_base / t_new:.2f}× "
                f"| {t_hash * 1e6 / POINTS:.1f} µs | {t_key * 1e6 / POINTS:.1f} µs | {t_hash / t_key:.1f}× |"
            )


if __name__ == "__main__":
    main()
