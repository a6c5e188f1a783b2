"""Benchmark: the canonical complex at scale (results in docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_scale.py                    # both tables (about 40 minutes on 2 cores)
    .venv/bin/python benchmarks/bench_scale.py --stages           # the stage table only (about 5 minutes)
    .venv/bin/python benchmarks/bench_scale.py --growth           # the cost-growth table only
    .venv/bin/python benchmarks/bench_scale.py --stages --before /path/to/old/checkout   # also the old code, same run
    .venv/bin/python benchmarks/bench_scale.py --read 3,16,16,1  # reading the complex file back, both versions

Networks: ``ReLUNetwork.random(arch, seed=0, kind="gaussian")`` (float64 draws, converted exactly), on R^n0.

**Stage table.** For 2→16→16→16→1, 2→32→32→1, 3→16→16→1, 5→8→8→1 and 6→8→8→1, each in a fresh
subprocess, after one run of every stage on a small network (first calls pay one-time costs):
``canonical_complex`` (the build), then ``tropical_weights``, then ``functional_dimension(net, complex_=K,
n_jobs=1)`` (exact), then ``write_json`` to a temporary file: the
compact version 2 of the complex format (the default), then version 1 (every cell with all its
representations; skipped above ``--v1-max-cells`` cells, 200,000: it writes gigabytes). With ``--repeat N`` the
build, the tropical weights and the functional dimension are timed N times each and the least CPU time is kept
(single runs of 0.1–0.2 s move by 10–20% on a shared machine). Each stage's CPU time is given as a ratio to the build's in the same process (wall times are printed
too: on a shared machine CPU time is the steadier measure). Workers run on one core (BLAS threads set to 1). Cells per second are per CPU second of the build.
Bytes per cell are the growth of the process's peak resident set size (``ru_maxrss``) over the build, divided
by the number of cells; with ``--tracemalloc`` they are tracemalloc's peak during the build instead (Python
allocations only, and about 3 times slower). ``--before DIR`` runs the same stages with the polyrelu package
found in DIR (an older checkout), in the same run, for a before/after comparison (an old package without
format versions writes version 1).

**Reading back.** ``--read A,B,...`` builds that network's complex, writes both versions, and times
``CanonicalComplex.from_json`` on each file, with ``trusted=True`` and with every check (CPU seconds).

**Cost-growth table.** For n0 = 2..6, 1..3 hidden layers and widths 8, 16, 32, 64, 128 (every hidden layer of
one width, one output): the build (cells, CPU seconds, cells per second, bytes per cell as above) and
``tropical_weights``. A configuration is skipped when the size guard's estimate (``estimate_cells``)
predicts more than ``--growth-seconds`` (60) seconds at the throughput measured so far, or more cells than
``canonical_complex``'s default ``max_cells`` (10^6); wider ones of the same depth and n0 are not tried once
one is skipped or takes longer than that.
The **exact baseline** is written here, independent of polyrelu's enumeration (it takes only the affine
formulas from ``ReLUNetwork.pre_activation_rows``): neuron by neuron, each of the three candidate children
(+, -, 0) of every current cell is decided by the Parma Polyhedra Library (passagemath-ppl, exact GMP
arithmetic) as a non-empty ``NNC_Polyhedron``: the cell's strict inequalities and equations plus the new
one. It runs with a budget (``--baseline-seconds``, 60 s) and is reported where it finishes; its f-vector
must equal polyrelu's (checked; the script exits with status 1 otherwise).
"""

import argparse
import datetime
import functools
import inspect
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
STAGE_NETWORKS = [(2, 16, 16, 16, 1), (2, 32, 32, 1), (3, 16, 16, 1), (5, 8, 8, 1), (6, 8, 8, 1)]
WIDTHS = (8, 16, 32, 64, 128)
MAX_CELLS = 1_000_000  # canonical_complex's default limit


def arrow(arch):
    return "→".join(map(str, arch))


# -- the workers (run in a subprocess each, so that memory is measured afresh) -----------------------
def peak_rss():
    """The process's peak resident set size so far, in bytes (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def warm_up():
    """Run every stage once on a small network: first calls pay one-time costs (imports, caches) not to be timed."""
    from polyrelu import ReLUNetwork, canonical_complex, functional_dimension, tropical_weights

    net = ReLUNetwork.random((2, 4, 4, 1), seed=1, kind="gaussian")
    K = canonical_complex(net, progress=False)
    tropical_weights(K)
    functional_dimension(net, complex_=K, n_jobs=1)
    with tempfile.TemporaryDirectory() as tmp:
        K.write_json(os.path.join(tmp, "warm.json"))
        if "version" in inspect.signature(K.write_json).parameters:
            K.write_json(os.path.join(tmp, "warm1.json"), version=1)


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    value = fn()
    return value, time.perf_counter() - w, time.process_time() - c


def fastest(repeat, fn):
    """``(value, wall, cpu)`` of the call of ``fn`` with the least CPU time among ``repeat`` calls (at least one)."""
    best = None
    for _ in range(max(1, repeat)):
        run = timed(fn)
        if best is None or run[2] < best[2]:
            best = run
    return best


def stage_worker(arch, trace, write, v1_max_cells, repeat):
    import tracemalloc

    from polyrelu import ReLUNetwork, canonical_complex, functional_dimension, tropical_weights

    net = ReLUNetwork.random(arch, seed=0, kind="gaussian")
    net.integer_layers()
    warm_up()
    before = peak_rss()
    if trace:
        tracemalloc.start()
    K, build_wall, build_cpu = timed(lambda: canonical_complex(net, progress=False))
    if trace:
        memory = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    else:
        memory = peak_rss() - before
    if repeat > 1:  # the memory is the first build's; its time the least of `repeat` builds
        _, build_wall, build_cpu = min([(K, build_wall, build_cpu), fastest(repeat - 1, lambda: canonical_complex(net, progress=False))],
                                       key=lambda run: run[2])
    out = {"cells": len(K), "f_vector": list(K.f_vector()), "build": [build_wall, build_cpu], "bytes_per_cell": memory / len(K)}
    _, wall, cpu = fastest(repeat, lambda: tropical_weights(K))
    out["weights"] = [wall, cpu]
    fd, wall, cpu = fastest(repeat, lambda: functional_dimension(net, complex_=K, n_jobs=1))
    out["functional_dimension"] = [wall, cpu, fd.rank]
    if write:
        versioned = "version" in inspect.signature(K.write_json).parameters
        for version in (2, 1) if versioned else (1,):
            if version == 1 and len(K) > v1_max_cells:
                continue
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "complex.json")
                _, wall, cpu = timed(lambda: K.write_json(path, version=version) if versioned else K.write_json(path))
                out[f"json_v{version}"] = [wall, cpu, os.path.getsize(path)]
    print(json.dumps(out))


def read_worker(arch):
    from polyrelu import CanonicalComplex, ReLUNetwork, canonical_complex

    K = canonical_complex(ReLUNetwork.random(arch, seed=0, kind="gaussian"), progress=False)
    warm_up()
    out = {"cells": len(K)}
    with tempfile.TemporaryDirectory() as tmp:
        for version in (2, 1):
            path = os.path.join(tmp, f"v{version}.json")
            _, _, write = timed(lambda: K.write_json(path, version=version))
            _, _, trusted = timed(lambda: CanonicalComplex.from_json(path, trusted=True))
            K2, _, checked = timed(lambda: CanonicalComplex.from_json(path))
            assert K2 == K
            out[f"v{version}"] = {"bytes": os.path.getsize(path), "write": write, "trusted": trusted, "checked": checked}
    print(json.dumps(out))


class PPLBaseline:
    """Neuron-by-neuron splitting, each candidate child decided by PPL: a non-empty NNC polyhedron."""

    def __init__(self, net):
        self.net = net
        self.n0 = net.architecture.input_dim
        self.widths = net.architecture.hidden_widths
        self.H = net.architecture.num_hidden
        self.rows = {}

    def row(self, k, signs):
        """The integer row of neuron ``k`` on cells whose earlier layers have the signs ``signs``."""
        start = 0
        for w in self.widths:
            if start + w > k:
                break
            start += w
        key = signs[:start]
        if key not in self.rows:
            self.rows[key] = self.net.pre_activation_rows(key + (0,) * (self.H - start))
        return self.rows[key][k]

    def run(self, budget):
        from ppl import Linear_Expression, NNC_Polyhedron

        start = time.perf_counter()
        cells = [((), NNC_Polyhedron(self.n0, "universe"))]
        for k in range(self.H):
            if time.perf_counter() - start > budget:
                return {"finished": False, "neurons": k, "cells": len(cells), "seconds": time.perf_counter() - start}
            new = []
            for signs, P in cells:
                b, *a = self.row(k, signs)
                e = Linear_Expression(a, b)
                for s, constraint in ((1, e > 0), (-1, e < 0), (0, e == 0)):
                    Q = NNC_Polyhedron(P)
                    Q.add_constraint(constraint)
                    if not Q.is_empty():
                        new.append((signs + (s,), Q))
            cells = new
        f = [0] * (self.n0 + 1)
        for _, P in cells:
            f[P.affine_dimension()] += 1
        return {"finished": True, "cells": len(cells), "f_vector": f, "seconds": time.perf_counter() - start}


def growth_worker(arch, baseline_budget):
    from polyrelu import (
        ComplexTooLargeError,
        ReLUNetwork,
        canonical_complex,
        tropical_weights,
    )

    net = ReLUNetwork.random(arch, seed=0, kind="gaussian")
    warm_up()
    before = peak_rss()
    try:
        K, wall, cpu = timed(lambda: canonical_complex(net, progress=False))
    except ComplexTooLargeError as refused:  # the build's own estimate is over max_cells
        print(json.dumps({"refused": refused.estimate}))
        return
    out = {"cells": len(K), "f_vector": list(K.f_vector()), "build": [wall, cpu], "bytes_per_cell": (peak_rss() - before) / len(K)}
    _, wall, cpu = timed(functools.partial(tropical_weights, K))
    out["weights"] = [wall, cpu]
    del K  # the baseline's memory is not measured, but it should not add to the complex's
    if baseline_budget > 0:
        out["baseline"] = PPLBaseline(net).run(baseline_budget)
    print(json.dumps(out))


def estimate_worker(arch):
    from polyrelu import ReLUNetwork, estimate_cells

    estimate = estimate_cells(ReLUNetwork.random(arch, seed=0, kind="gaussian"), max_cells=10**7)
    print(json.dumps({"cells": estimate.cells, "lower_bound": estimate.lower_bound}))


# -- the driver --------------------------------------------------------------------------------------
def run_worker(args, package_root=ROOT, timeout=None):
    """Run this script as a worker with polyrelu imported from ``package_root``; its JSON result or None."""
    # one core: numpy's BLAS would otherwise spread the float screen's products over threads
    env = dict(os.environ, PYTHONPATH=package_root, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    try:
        done = subprocess.run(
            [sys.executable, os.path.abspath(__file__), "--worker", *args], env=env, cwd=package_root,
            capture_output=True, text=True, timeout=timeout, check=False,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        print(f"  worker {args} failed:\n{done.stderr[-2000:]}", file=sys.stderr, flush=True)
        return None
    return json.loads(done.stdout.strip().splitlines()[-1])


def machine_note():
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=ROOT, check=False)
    dirty = subprocess.run(["git", "status", "--porcelain", "polyrelu"], capture_output=True, text=True, cwd=ROOT, check=False)
    commit, dirty = commit.stdout.strip(), dirty.stdout.strip()
    load = os.getloadavg()
    return (
        f"{datetime.datetime.now().isoformat(timespec='minutes')}, {platform.node()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, commit {commit}{' + uncommitted polyrelu/ changes' if dirty else ''}, "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


def seconds(x):
    return f"{x:.3f}" if x < 1 else f"{x:.2f}" if x < 100 else f"{x:.0f}"


def stage_table(args):
    roots = [("after", ROOT)] + ([("before", os.path.abspath(args.before))] if args.before else [])
    print("| network | code | cells | build CPU s (wall) | cells/s | bytes/cell | tropical weights CPU s (wall) | ÷ build "
          "| functional dimension CPU s (wall) | ÷ build "
          "| JSON v2 export CPU s (wall) | ÷ build | MB | JSON v1 export CPU s (wall) | ÷ build | MB |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for arch in STAGE_NETWORKS:
        for label, root in roots:
            # the old writer builds the whole document in memory: tens of GB at 10^5 cells, not run
            write = label == "after" or arch[0] < 5
            extra = (["--tracemalloc"] if args.tracemalloc else []) + ([] if write else ["--no-json"])
            extra += ["--v1-max-cells", str(args.v1_max_cells), "--repeat", str(args.repeat)]
            r = run_worker(["stages", ",".join(map(str, arch))] + extra, root)
            if r is None:
                print(f"| {arrow(arch)} | {label} | – | failed | | | | | | | |", flush=True)
                continue
            b, w, f = r["build"], r["weights"], r["functional_dimension"]
            json_cells = f"| {seconds(f[1])} ({seconds(f[0])}) | {f[1] / b[1]:.2f} "
            for version in (2, 1):
                j = r.get(f"json_v{version}")
                json_cells += f"| {seconds(j[1])} ({seconds(j[0])}) | {j[1] / b[1]:.2f} | {j[2] / 1e6:.1f} " if j else "| not run | | "
            json_cells += "|"
            print(
                f"| {arrow(arch)} | {label} | {r['cells']:,} | {seconds(b[1])} ({seconds(b[0])}) | {r['cells'] / b[1]:,.0f} "
                f"| {r['bytes_per_cell']:,.0f} | {seconds(w[1])} ({seconds(w[0])}) | {w[1] / b[1]:.2f} {json_cells}",
                flush=True,
            )


def read_table(arch):
    r = run_worker(["read", arch])
    if r is None:
        print(f"reading {arch}: failed")
        return
    print(f"reading the complex of {arrow(arch.split(','))} ({r['cells']:,} cells) back, CPU s:")
    print("| version | MB | write | from_json(trusted=True) | from_json (checked) |")
    print("|---|---|---|---|---|")
    for version in (2, 1):
        v = r[f"v{version}"]
        print(f"| {version} | {v['bytes'] / 1e6:.1f} | {seconds(v['write'])} | {seconds(v['trusted'])} | {seconds(v['checked'])} |")
    print(flush=True)


def growth_table(args):
    failures = []
    print("| n0 | hidden | cells | f-vector | build CPU s (wall) | cells/s | bytes/cell | weights ÷ build | PPL baseline s | baseline ÷ build |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rate = 50_000.0  # cells per CPU second, updated from every build
    for n0 in range(2, 7):
        for depth in (1, 2, 3):
            for width in WIDTHS:
                arch = (n0,) + (width,) * depth + (1,)
                estimate = run_worker(["estimate", ",".join(map(str, arch))], timeout=args.growth_seconds)
                predicted = None if estimate is None else estimate["cells"] / rate
                if predicted is None or predicted > args.growth_seconds or estimate["cells"] > MAX_CELLS:
                    why = "estimate timed out" if estimate is None else f"estimated {estimate['cells']:,} cells ≈ {predicted:.0f} s"
                    print(f"| {n0} | {depth}×{width} | skipped: {why} | | | | | | | |", flush=True)
                    break
                r = run_worker(["growth", ",".join(map(str, arch)), "--baseline-seconds", str(args.baseline_seconds)],
                               timeout=3 * args.growth_seconds + 2 * args.baseline_seconds)
                if r is None or "refused" in r:
                    what = "failed or timed out" if r is None else f"refused by the size guard: about {r['refused']:,} cells"
                    print(f"| {n0} | {depth}×{width} | {what} | | | | | | | |", flush=True)
                    break
                b = r["build"]
                rate = r["cells"] / b[1]
                base = r.get("baseline", {})
                if base.get("finished"):
                    base_cell = f"{seconds(base['seconds'])}"
                    ratio = f"{base['seconds'] / b[0]:.0f}×"
                    if base["f_vector"] != r["f_vector"]:
                        failures.append(f"{arrow(arch)}: PPL f-vector {base['f_vector']} != polyrelu {r['f_vector']}")
                else:
                    base_cell = f"> {seconds(base['seconds'])} (stopped at neuron {base['neurons']}, {base['cells']:,} cells)" if base else "–"
                    ratio = "–"
                print(
                    f"| {n0} | {depth}×{width} | {r['cells']:,} | {tuple(r['f_vector'])} | {seconds(b[1])} ({seconds(b[0])}) "
                    f"| {rate:,.0f} | {r['bytes_per_cell']:,.0f} | {r['weights'][1] / b[1]:.2f} | {base_cell} | {ratio} |",
                    flush=True,
                )
                if b[1] > args.growth_seconds:
                    break
    return failures


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stages", action="store_true", help="the stage table only")
    parser.add_argument("--growth", action="store_true", help="the cost-growth table only")
    parser.add_argument("--before", default=None, help="also run the stages with the polyrelu package of this checkout")
    parser.add_argument("--tracemalloc", action="store_true", help="stage memory from tracemalloc's peak (slower)")
    parser.add_argument("--growth-seconds", type=float, default=60.0, help="skip growth configurations predicted to take longer")
    parser.add_argument("--baseline-seconds", type=float, default=60.0, help="budget of the PPL baseline per configuration")
    parser.add_argument("--worker", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--no-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--v1-max-cells", type=int, default=200_000, help="write version 1 only up to this many cells")
    parser.add_argument("--read", default=None, metavar="A,B,...", help="time reading back the complex of this network")
    parser.add_argument("--repeat", type=int, default=1,
                        help="stage table: time the build, the tropical weights and the functional dimension this many "
                             "times each and keep the least CPU time (the JSON exports run once)")
    args = parser.parse_args(argv)
    if args.worker:
        kind, arch = args.worker[0], tuple(int(v) for v in args.worker[1].split(","))
        if kind == "stages":
            stage_worker(arch, args.tracemalloc, not args.no_json, args.v1_max_cells, args.repeat)
        elif kind == "read":
            read_worker(arch)
        elif kind == "growth":
            growth_worker(arch, args.baseline_seconds)
        else:
            estimate_worker(arch)
        return 0
    both = not (args.stages or args.growth or args.read)
    print("# bench_scale:", machine_note(), "\n", flush=True)
    failures = []
    if args.read:
        read_table(args.read)
    if args.stages or both:
        stage_table(args)
        print(flush=True)
    if args.growth or both:
        failures = growth_table(args)
    print("\n# end:", machine_note())
    if failures:
        print("FAILURES:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
