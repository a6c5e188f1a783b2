"""Benchmark: the canonical complex built serially and in pieces on 2 workers (results in docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_complex_parallel.py                 # 5→8→8→1 and 6→8→8→1
    .venv/bin/python benchmarks/bench_complex_parallel.py --arch 5,8,8,1  # one network

Networks: ``ReLUNetwork.random(arch, seed=0, kind="gaussian")`` on R^n0 (120,417 and 340,293 cells). For each,
``canonical_complex(net, n_jobs=1)`` and ``canonical_complex(net, n_jobs=2)`` alternate, ``--repeats`` times
each, after one split build of a small network (the loky workers start there and are reused). Every parallel
complex is checked to have the serial one's cells, ids and covering relation (the script exits with status 1 otherwise). Printed per run: wall
time, CPU time of this process and of its worker processes (psutil, children included), and the 1-minute load
average at the end of the run: on a shared machine the wall times measure the cores the other jobs left free.
"""

import argparse
import os
import sys
import time

import psutil

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import polyrelu.complex._pieces as pieces  # noqa: E402  (from this checkout)
from polyrelu import ReLUNetwork, canonical_complex  # noqa: E402

NETWORKS = [(5, 8, 8, 1), (6, 8, 8, 1)]


def cpu_seconds():
    """CPU time of this process and of every live child process (the loky workers)."""
    me = psutil.Process()
    total = sum(me.cpu_times()[:2])
    for child in me.children(recursive=True):
        try:
            total += sum(child.cpu_times()[:2])
        except psutil.NoSuchProcess:
            pass
    return total


def cells(K):
    """Every cell's id, dimension and signs (the combinatorial check: the geometric ``==`` takes minutes here)."""
    return [(c.id, c.dimension, c.signs) for c in K]


def timed(net, n_jobs):
    start, cpu = time.perf_counter(), cpu_seconds()
    K = canonical_complex(net, n_jobs=n_jobs)
    return K, time.perf_counter() - start, cpu_seconds() - cpu, os.getloadavg()[0]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", action="append", help="an architecture such as 5,8,8,1 (repeatable)")
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args(argv)
    archs = [tuple(map(int, a.split(","))) for a in args.arch] if args.arch else NETWORKS
    # start the workers on a small split build, so that the runs below reuse them
    threshold, pieces.SPLIT_CELLS = pieces.SPLIT_CELLS, 0
    canonical_complex(ReLUNetwork.random((3, 6, 6, 1), seed=0, kind="gaussian"), n_jobs=2)
    pieces.SPLIT_CELLS = threshold
    print(f"cores: {psutil.cpu_count()}, SPLIT_CELLS: {pieces.SPLIT_CELLS:,}")
    print("| network | cells | run | serial wall | 2 jobs wall | speed-up | serial CPU | 2 jobs CPU (workers incl.) | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    failed = False
    for arch in archs:
        net = ReLUNetwork.random(arch, seed=0, kind="gaussian")
        for run in range(1, args.repeats + 1):
            serial, t1, c1, _ = timed(net, 1)
            parallel, t2, c2, load = timed(net, 2)
            if cells(parallel) != cells(serial) or parallel.lattice.covering_relation() != serial.lattice.covering_relation():
                print(f"{arch}: the parallel complex differs from the serial one", file=sys.stderr)
                failed = True
            print(
                f"| {'→'.join(map(str, arch))} | {len(serial):,} | {run} | {t1:.2f} s | {t2:.2f} s | {t1 / t2:.2f}× "
                f"| {c1:.2f} s | {c2:.2f} s | {load:.1f} |",
                flush=True,
            )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
