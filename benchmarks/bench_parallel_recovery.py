"""Benchmark: the recovery survey and ``analyze``, serial and on 2 local worker processes (docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_parallel_recovery.py            # a few minutes on 2 cores
    .venv/bin/python benchmarks/bench_parallel_recovery.py --samples 2

Timed, each with ``n_jobs=1`` (the calling process only: the baseline) and ``n_jobs=2`` (2 loky worker
processes; started by an untimed call first, so that their start-up is not counted):

* the recovery survey of ``polyrelu survey --recovery --depths 2,3 --widths 3,4 --samples 5``:
  :func:`polyrelu.cli.survey.recovery_survey` over 2→3→3→1, 2→4→4→1, 2→3→3→3→1 and 2→4→4→4→1, five
  Gaussian networks each (seeds 0..4), each with its identifiability report and its recovery from values;
* :func:`polyrelu.analysis.analyze` of ``builtin:randn-2-16-16-1`` (the seed-0 Gaussian network), without
  the inradius.

The load average is printed before and after, and the CPU time of this process and its workers
(psutil, as in ``bench_parallel.py``). Every parallel run must give the serial result (exit status 1
otherwise): the survey's records apart from their measured ``seconds``, on the networks whose recovery
the time budget stopped in neither run (those are listed), and the analysis apart from its ``timings``.
"""

import argparse
import datetime
import os
import platform
import sys

from bench_parallel import load, timed

from polyrelu.analysis import analyze
from polyrelu.cli.survey import recovery_survey, survey_architectures, time_budget_spent
from polyrelu.examples import seeded_gaussian_network
from polyrelu.parallel import parallel_map


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=5)
    parser.add_argument("--analyze", default="2,16,16,1", help="the architecture of the analysed network")
    args = parser.parse_args(argv)
    architectures = survey_architectures(2, [2, 3], [3, 4])
    net = seeded_gaussian_network(tuple(int(w) for w in args.analyze.split(",")))

    def survey(n_jobs):
        return recovery_survey(architectures, args.samples, 0, 60.0, progress=False, n_jobs=n_jobs)

    def analysis(n_jobs):
        return analyze(net, inradius=False, n_jobs=n_jobs).to_json()

    print(f"# bench_parallel_recovery, {datetime.date.today()}, Python {platform.python_version()}, "
          f"{os.cpu_count()} cores")
    parallel_map(abs, [-1, -2], n_jobs=2)  # start the 2 workers outside the timings
    ok = True
    rows = []
    for label, run, same in (
        (f"recovery survey, {len(architectures) * args.samples} networks", survey,
         _same_records),
        (f"analyze {net.architecture}", analysis,
         lambda a, b: {**a, "timings": None} == {**b, "timings": None}),
    ):
        print(f"load average (1, 5, 15 min) before {label}: {load()}")
        t1, cpu1, serial = timed(lambda run=run: run(1))
        t2, cpu2, parallel = timed(lambda run=run: run(2))
        print(f"load average after: {load()}")
        if not same(serial, parallel):
            ok = False
            print(f"FAILED: {label}: the parallel run differs from the serial one")
        rows.append((label, t1, cpu1, t2, cpu2))
        if label.startswith("recovery"):
            stopped = [f"{r['architecture']} seed {r['seed']}" for r in serial + parallel if time_budget_spent(r)]
            print(f"recoveries stopped by the time budget: {', '.join(stopped) or 'none'}")
            slowest = max(serial, key=lambda r: r["seconds"])
            print(f"slowest recovery (serial run): {slowest['architecture']} seed {slowest['seed']}, "
                  f"{slowest['seconds']} s")
        else:
            print(f"analysis timings, serial: {serial['timings']}\n                 2 jobs: {parallel['timings']}")
    print("\n| run | 1 job: time, CPU | 2 jobs: time, CPU | speed-up | CPU(2) / CPU(1) |")
    print("|---|---|---|---|---|")
    for label, t1, cpu1, t2, cpu2 in rows:
        print(f"| {label} | {t1:.1f} s, {cpu1:.1f} s | {t2:.1f} s, {cpu2:.1f} s | {t1 / t2:.2f}× | {cpu2 / cpu1:.2f} |")
    return 0 if ok else 1


def _same_records(serial, parallel):
    """The same networks in the same order, and the same records apart from ``seconds`` where neither run hit
    the time budget (a recovery stopped by it in one run may get further in the other)."""
    if [(r["architecture"], r["seed"]) for r in serial] != [(r["architecture"], r["seed"]) for r in parallel]:
        return False
    pairs = [(a, b) for a, b in zip(serial, parallel) if not (time_budget_spent(a) or time_budget_spent(b))]
    print(f"records compared (no time budget hit in either run): {len(pairs)} of {len(serial)}")
    return all({**a, "seconds": None} == {**b, "seconds": None} for a, b in pairs)


if __name__ == "__main__":
    sys.exit(main())
