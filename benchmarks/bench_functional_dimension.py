"""Benchmark: exact functional dimension (results in docs/benchmarks.md; target: under 2 s on 2→16→16→16→1).

Run from the repository root::

    .venv/bin/python benchmarks/bench_functional_dimension.py            # about a minute on 2 cores
    .venv/bin/python benchmarks/bench_functional_dimension.py --no-baseline
    .venv/bin/python benchmarks/bench_functional_dimension.py --ratio   # FD time against the complex's build time

For each network (the seed-0 Gaussian recipe of the benchmarks: ``np.random.seed(0)``, then per layer
``W = randn(out, in)``, ``b = randn(out)``; and ``generic_network``, which passes the four genericity
conditions), on all of R^n0, with the canonical complex built once beforehand:

* ``functional_dimension`` (exact, certified both ways: below, the rank modulo a prime of random combinations
  of the Jacobian's rows; above, D - rank independent kernel vectors, the ones not known in advance verified
  against the Jacobian in integers),
  best of 3, with the complex given and with it built inside (the 2 s target);
* ``float_functional_dimension`` (float64 SVD rank, not certified);
* BASELINE (``--no-baseline`` skips it): the same integer Jacobian, built by polyrelu's code, and
  python-flint's exact ``fmpz_mat.rank`` on it (fraction-free elimination over the integers),
  with no certificate of its own beyond being exact arithmetic.

The three ranks must agree (exit status 1 otherwise). Ratios are against the baseline.

``--ratio`` instead times, for ``ReLUNetwork.random(arch, seed=0, kind="gaussian")`` on R^n0 with the five
architectures of RATIO_ARCHITECTURES, the build of ``canonical_complex`` and then ``functional_dimension``
on it (serial, ``n_jobs=1``), in CPU seconds of this process, the best of 3 calls each (the first call of
either pays one-time costs), and prints their ratio (target: at most 2).
"""

import argparse
import datetime
import platform
import sys

import flint
from _timing import best_cpu_of, best_of

from polyrelu import (
    ReLUNetwork,
    canonical_complex,
    float_functional_dimension,
    functional_dimension,
)
from polyrelu.examples import generic_network, seeded_gaussian_network
from polyrelu.identifiability._jacobian import integer_jacobian


def baseline_rank(net, K):
    J = integer_jacobian(net, [r.signs for r in K.regions()])
    return flint.fmpz_mat(J.shape[0], J.shape[1], J.ravel().tolist()).rank()


RATIO_ARCHITECTURES = [(2, 16, 16, 16, 1), (2, 32, 32, 1), (3, 16, 16, 1), (5, 8, 8, 1), (6, 8, 8, 1)]


def ratio_table():
    print("| network | regions | rank / D - H | complex build | functional dimension | FD / build |")
    print("|---|---|---|---|---|---|")
    for arch in RATIO_ARCHITECTURES:
        net = ReLUNetwork.random(arch, seed=0, kind="gaussian")
        # the least CPU time of 3 calls each: the first call of either pays one-time costs
        t_build, K = best_cpu_of(3, lambda: canonical_complex(net))
        t_fd, fd = best_cpu_of(3, lambda: functional_dimension(net, complex_=K, n_jobs=1))
        name = "→".join(map(str, arch))
        print(f"| {name} | {len(K.regions())} | {fd.rank} / {fd.bound} | {t_build:.3f} s | {t_fd:.3f} s | {t_fd / t_build:.2f} |",
              flush=True)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--no-baseline", action="store_true")
    parser.add_argument("--ratio", action="store_true", help="functional dimension against the complex's build time")
    args = parser.parse_args(argv)
    print(f"# bench_functional_dimension, {datetime.date.today()}, Python {platform.python_version()}")
    if args.ratio:
        return ratio_table()
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
