"""Benchmark: exact functional dimension (results in docs/benchmarks.md; target: under 2 s on 2→16→16→16→1).

Run from the repository root::

    .venv/bin/python benchmarks/bench_functional_dimension.py            # about a minute on 2 cores
    .venv/bin/python benchmarks/bench_functional_dimension.py --no-baseline

For each network (the seed-0 Gaussian recipe of the benchmarks: ``np.random.seed(0)``, then per layer
``W = randn(out, in)``, ``b = randn(out)``; and ``generic_network``, which passes the four genericity
conditions), on all of R^n0, with the canonical complex built once beforehand:

* ``functional_dimension`` (exact, certified both ways: rank modulo a prime below; above, D - rank
  independent kernel vectors, the ones not known in advance verified against the whole Jacobian),
  best of 3, with the complex given and with it built inside (the 2 s target);
* ``float_functional_dimension`` (float64 SVD rank, not certified);
* BASELINE (``--no-baseline`` skips it): the same integer Jacobian, built by polyrelu's code, and
  python-flint's exact ``fmpz_mat.rank`` on it (fraction-free elimination over the integers),
  with no certificate of its own beyond being exact arithmetic.

The three ranks must agree (exit status 1 otherwise). Ratios are against the baseline.
"""

import argparse
import datetime
import platform
import sys

import flint
from _timing import best_of

from polyrelu import canonical_complex, float_functional_dimension, functional_dimension
from polyrelu.examples import generic_network, seeded_gaussian_network
from polyrelu.identifiability._jacobian import integer_jacobian


def baseline_rank(net, K):
    J = integer_jacobian(net, [r.signs for r in K.regions()])
    return flint.fmpz_mat(J.shape[0], J.shape[1], J.ravel().tolist()).rank()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-baseline", action="store_true")
    args = parser.parse_args(argv)
    print(f"# bench_functional_dimension, {datetime.date.today()}, Python {platform.python_version()}")
    nets = [
        seeded_gaussian_network((2, 8, 8, 1)),
        generic_network((2, 6, 6, 6, 1), seed=0),
        generic_network((3, 4, 4, 4, 1), seed=0),
        seeded_gaussian_network((2, 16, 16, 16, 1)),
        generic_network((2, 16, 16, 16, 1), seed=0),
    ]
    ok = True
    print("| network | regions | D - H | rank | exact | exact, complex included | float | baseline fmpz rank | exact / baseline |")
    print("|---|---|---|---|---|---|---|---|---|")
    for net in nets:
        K = canonical_complex(net)
        t_exact, fd = best_of(3, lambda: functional_dimension(net, complex_=K))
        t_total, _ = best_of(3, lambda: functional_dimension(net))
        t_float, ff = best_of(1, lambda: float_functional_dimension(net, complex_=K))
        if args.no_baseline:
            t_base, base = float("nan"), fd.rank
        else:
            t_base, base = best_of(1, lambda: baseline_rank(net, K))
        ok &= fd.rank == ff.rank == base
        print(
            f"| {net.name} | {len(K.regions())} | {fd.bound} | {fd.rank} | {t_exact:.2f} s | {t_total:.2f} s | {t_float:.2f} s | "
            f"{t_base:.2f} s | {t_exact / t_base:.2f} |"
        )
    if not ok:
        print("FAILED: the exact, float and baseline ranks differ")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
