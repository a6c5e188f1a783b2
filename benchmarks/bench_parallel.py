"""Benchmark: a survey of 200 random networks, serial, on 2 local worker processes and on a 2-worker Dask cluster.

Run from the repository root (results in docs/benchmarks.md)::

    .venv/bin/python benchmarks/bench_parallel.py              # about a minute on 2 cores
    .venv/bin/python benchmarks/bench_parallel.py --samples 40 # shorter

``architecture_survey((3, 4, 4, 1), samples=200)`` (Gaussian draws, seeds 0..199) is timed

* with ``n_jobs=1`` (the calling process only: the baseline);
* with ``n_jobs=2`` twice: the first run includes starting the loky worker processes (each imports
  polyrelu), the second reuses them;
* with the default ``n_jobs=None`` (the first draw in the calling process, the rest on every core);
* on a ``distributed.LocalCluster`` of 2 worker processes with one thread each, through its scheduler
  address (the cluster's start is timed apart; the first survey there includes the workers' imports).

The machine's load average is printed before and after: the speed-up on 2 cores is bounded by the
cores the other processes leave free. The CPU time of this process and its children (psutil) shows
what parallelism costs apart from the load: start-up, pickling, scheduling. Every run must give the
serial result (exit status 1 otherwise).
"""

import argparse
import datetime
import os
import platform
import sys
import time

import psutil

from polyrelu import architecture_survey


def cpu_seconds():
    """CPU time of this process and of its children so far (the worker processes live on between runs)."""
    total = 0.0
    me = psutil.Process()
    for process in [me, *me.children(recursive=True)]:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def timed(fn):
    """``(wall seconds, CPU seconds of this process and its children, value)``."""
    start, cpu = time.perf_counter(), cpu_seconds()
    value = fn()
    return time.perf_counter() - start, cpu_seconds() - cpu, value


def load():
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=200)
    parser.add_argument("--architecture", default="3,4,4,1")
    args = parser.parse_args(argv)
    arch = tuple(int(w) for w in args.architecture.split(","))

    def survey(**parallel):
        return architecture_survey(arch, samples=args.samples, kind="gaussian", **parallel)

    print(f"# bench_parallel, {datetime.date.today()}, Python {platform.python_version()}, {os.cpu_count()} cores")
    print(f"load average (1, 5, 15 min) before: {load()}")
    rows = []
    t_serial, cpu_serial, serial = timed(lambda: survey(n_jobs=1))
    rows.append(("serial (n_jobs=1)", t_serial, cpu_serial, serial))
    for label in ("2 local processes, workers started", "2 local processes, workers reused"):
        rows.append((label, *timed(lambda: survey(n_jobs=2))))
    rows.append(("default (n_jobs=None), workers reused", *timed(lambda: survey())))
    # optional: only this part needs dask.distributed
    from distributed import LocalCluster

    t_start, _, cluster = timed(lambda: LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None))
    with cluster:
        for label in ("Dask LocalCluster, 2 workers, first survey", "Dask LocalCluster, 2 workers, again"):
            rows.append((label, *timed(lambda: survey(scheduler=cluster.scheduler_address))))
    print(f"load average after: {load()}")
    print(f"\nsurvey of {args.samples} networks {'→'.join(map(str, arch))}: {serial.row()} (generic / full rank / identifiable)\n")
    print("| run | time | speed-up over serial | CPU time, workers included | CPU / serial CPU |")
    print("|---|---|---|---|---|")
    ok = True
    for label, seconds, cpu, result in rows:
        ok &= result == serial
        print(f"| {label} | {seconds:.1f} s | {t_serial / seconds:.2f}× | {cpu:.1f} s | {cpu / cpu_serial:.2f} |")
    print(f"\nDask LocalCluster start: {t_start:.1f} s")
    if not ok:
        print("FAILED: a parallel survey differs from the serial one")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
