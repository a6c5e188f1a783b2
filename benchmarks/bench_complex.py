"""Benchmark: the canonical polyhedral complex (results and targets in docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_complex.py            # everything (about 5 minutes on 2 cores)
    .venv/bin/python benchmarks/bench_complex.py --quick    # skip the slowest items (about 2 minutes)
    .venv/bin/python benchmarks/bench_complex.py --profile  # also cProfile lattice + V-reps on 3→8→8→1

Networks: for 2→8→8→1, 3→8→8→1 and 2→16→16→16→1, ``np.random.seed(0)`` and then,
layer by layer in order, ``W = np.random.randn(out, in)``, ``b = np.random.randn(out)`` (float64,
converted exactly); and ``ReLUNetwork.random((4, 8, 8, 8, 1), kind="integer", seed=0)``. All on
R^n0 (no domain).

For each network:

* ``canonical_complex(net)`` (method "lattice"), then, separately, the V-representation of every
  cell (``for c in K: c.polyhedron.vertices_rays_lines()``); best of 3 when a run takes under
  ``--repeat-below`` seconds, one run otherwise. Cells, f-vector and Euler characteristic (asserted
  to be (-1)^n0) are reported with cells/s and the total "lattice + all V-reps".
* A BASELINE written here, independent of polyrelu's enumeration code (it only uses
  ``net.pre_activation_maps`` for the affine formulas): neuron-by-neuron splitting where each of
  the three candidate children (+, -, 0 for the next neuron) of each current cell is decided by ONE
  exact ``cdd.gmp`` LP: maximize t subject to s_k z_k(x) - t >= 0 for the cell's non-zero signs,
  z_k(x) = 0 (two inequalities) for its zero signs, t <= 1; the child exists iff the LP is
  feasible with t* > 0. A cell's dimension is n0 - rank of its zero-sign rows. Each formula row is
  divided by a power of two near its largest entry (exact; the fastest of the representations tried:
  raw fractions 0.61 ms/LP, primitive integers 0.95, power-of-two scaled 0.53 on 2→8→8→1). Its
  f-vector must equal the lattice method's (asserted). The baseline runs within a time budget
  (``--baseline-budget``, 300 s per network): it stops at a layer boundary when the next layer's
  predicted cost (its exact LP count, known from the finished complex, times the last measured
  time per LP) would exceed the budget. A partial run is checked against the lattice complex of the
  network truncated to the same layers, and the full baseline time is EXTRAPOLATED: the measured
  layers plus, for each remaining layer, the exact number of LPs the baseline would solve there
  (3 per cell before each neuron, counted from the finished complex) times the mean time of an LP of
  that layer, measured on ``--lp-samples`` random (cell, neuron) pairs of the layer (LP time only,
  so a lower estimate of what the baseline would take).
* polyrelu's ``method="lp"`` (certified-LP splitting) as a second reference, on the smaller nets.

Prints a markdown table (and details above it). Exit status 1 if any check fails.
"""

import argparse
import cProfile
import datetime
import importlib.metadata
import io
import math
import os
import platform
import pstats
import subprocess
import sys
import time
from fractions import Fraction

import cdd
import cdd.gmp
import flint
import numpy as np

from polyrelu import ReLUNetwork, canonical_complex
from polyrelu.examples import seeded_gaussian_network

# --- networks -----------------------------------------------------------------------------




# name, builder, target seconds for lattice + all V-reps (None: no target), run method="lp"?
NETWORKS = [
    ("2→8→8→1", lambda: seeded_gaussian_network((2, 8, 8, 1)), None, True),
    ("3→8→8→1", lambda: seeded_gaussian_network((3, 8, 8, 1)), 0.5, True),
    ("2→16→16→16→1", lambda: seeded_gaussian_network((2, 16, 16, 16, 1)), 1.0, True),
    ("4→8→8→8→1 (int)", lambda: ReLUNetwork.random((4, 8, 8, 8, 1), kind="integer", seed=0), 60.0, False),
]


def truncated(net, layers):
    """The network keeping the first ``layers`` hidden layers (output: one zero neuron)."""
    Ws = list(net.weights[:layers]) + [[[0] * net.architecture.hidden_widths[layers - 1]]]
    bs = list(net.biases[:layers]) + [[0]]
    return ReLUNetwork(Ws, bs)


# --- the baseline ---------------------------------------------------------------------------


def _pow2_scaled(row):
    """``row`` divided by a power of two near its largest |entry| (exact; keeps cdd.gmp's numbers small)."""
    m = max((abs(v) for v in row), default=0)
    if m == 0:
        return tuple(Fraction(0) for _ in row)
    e = math.frexp(m.numerator / m.denominator)[1]
    scale = Fraction(2) ** e
    return tuple(v / scale for v in row)


class Baseline:
    """Neuron-by-neuron splitting, one exact cdd.gmp LP per candidate child cell.

    A cell is ``(signs, inequalities, equations)`` with rows ``(b, a_1..a_n0)`` meaning
    ``b + a.x > 0`` (strict on the open sign class) and ``b + a.x = 0``.
    """

    def __init__(self, net):
        self.net = net
        self.n0 = net.architecture.input_dim
        self.widths = net.architecture.hidden_widths
        self.H = net.architecture.num_hidden
        self._rows = {}
        self.lps = 0

    def layer_rows(self, layer, prefix):
        """Rows of layer ``layer``'s pre-activations on cells whose earlier-layer signs are ``prefix``."""
        key = (layer, prefix)
        if key not in self._rows:
            pattern = prefix + (0,) * (self.H - len(prefix))
            G, g = self.net.pre_activation_maps(pattern)[layer - 1]
            self._rows[key] = [_pow2_scaled((gi, *Gi)) for Gi, gi in zip(G, g)]
        return self._rows[key]

    def exists(self, ineqs, eqns):
        """Max t s.t. r(x) - t >= 0 (r in ineqs), r(x) = 0 (r in eqns), t <= 1: non-empty iff t* > 0."""
        n = self.n0
        array = [[*r, -1] for r in ineqs]
        for r in eqns:
            array.append([*r, 0])
            array.append([-v for v in r] + [0])
        array.append([1] + [0] * n + [-1])
        array.append([0] + [0] * n + [1])  # objective: maximize t
        lp = cdd.gmp.linprog_from_array(array, cdd.LPObjType.MAX)
        cdd.gmp.linprog_solve(lp)
        self.lps += 1
        if lp.status == cdd.LPStatusType.OPTIMAL:
            return lp.obj_value > 0
        if lp.status == cdd.LPStatusType.INCONSISTENT:
            return False
        raise RuntimeError(f"baseline LP: unexpected status {lp.status!r}")

    def run(self, planned_lps_per_layer, budget):
        """Split layer by layer within ``budget`` seconds (predicted); returns a result dict."""
        cells = [((), (), ())]
        start = time.perf_counter()
        per_layer = []
        offset = 0
        for l, width in enumerate(self.widths, start=1):
            if per_layer:
                tau = per_layer[-1]["seconds"] / per_layer[-1]["lps"]
                predicted = planned_lps_per_layer[l - 1] * tau
                if time.perf_counter() - start + predicted > budget:
                    break
            t0, lps0 = time.perf_counter(), self.lps
            for i in range(width):
                new = []
                for signs, ineqs, eqns in cells:
                    row = self.layer_rows(l, signs[:offset])[i]
                    for s in (1, -1):
                        signed = row if s > 0 else tuple(-v for v in row)
                        if self.exists(ineqs + (signed,), eqns):
                            new.append((signs + (s,), ineqs + (signed,), eqns))
                    if self.exists(ineqs, eqns + (row,)):
                        new.append((signs + (0,), ineqs, eqns + (row,)))
                cells = new
            per_layer.append({"layer": l, "seconds": time.perf_counter() - t0, "lps": self.lps - lps0, "cells": len(cells)})
            offset += width
        f = [0] * (self.n0 + 1)
        for _, _, eqns in cells:
            rank = flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) for v in r[1:]] for r in eqns]).rank() if eqns else 0
            f[self.n0 - rank] += 1
        return {
            "layers": len(per_layer),
            "seconds": time.perf_counter() - start,
            "lps": self.lps,
            "per_layer": per_layer,
            "f_vector": tuple(f),
            "cells": len(cells),
        }


def planned_lps(K):
    """Exact LP counts per layer of the baseline: 3 per (cell before neuron k, neuron k).

    The cells before neuron k are the non-empty sign classes of the first k-1 neurons, i.e. the
    distinct length-(k-1) prefixes of the final sign vectors.
    """
    signs = [c.signs for c in K]
    widths = K.network.architecture.hidden_widths
    out, k = [], 0
    for width in widths:
        total = 0
        for _ in range(width):
            total += 3 * len({s[:k] for s in signs})
            k += 1
        out.append(total)
    return out


def sampled_lp_seconds(baseline, K, layer, samples, seed=0):
    """Mean seconds per baseline LP in ``layer``, on random (cell before neuron k, neuron k) pairs.

    For the extrapolation of a baseline run that stopped early: for a random neuron k of the
    layer and a uniformly random non-empty sign class of the first k-1 neurons, build that cell's
    rows as the baseline would and time its three candidate LPs (LP time only).
    """
    rng = np.random.default_rng(seed)
    widths = K.network.architecture.hidden_widths
    offsets = [sum(widths[:l]) for l in range(len(widths))]
    layer_of = [(l, i) for l, w in enumerate(widths, start=1) for i in range(w)]
    signs = [c.signs for c in K]
    classes = {}
    seconds, lps = 0.0, 0
    for _ in range(samples):
        i = int(rng.integers(widths[layer - 1]))
        k = offsets[layer - 1] + i
        if k not in classes:
            classes[k] = sorted({s[:k] for s in signs})
        prefix = classes[k][int(rng.integers(len(classes[k])))]
        ineqs, eqns = [], []
        for j, sj in enumerate(prefix):
            lj, ij = layer_of[j]
            row = baseline.layer_rows(lj, prefix[: offsets[lj - 1]])[ij]
            if sj == 0:
                eqns.append(row)
            else:
                ineqs.append(row if sj > 0 else tuple(-v for v in row))
        row = baseline.layer_rows(layer, prefix[: offsets[layer - 1]])[i]
        ineqs, eqns = tuple(ineqs), tuple(eqns)
        t0 = time.perf_counter()
        baseline.exists(ineqs + (row,), eqns)
        baseline.exists(ineqs + (tuple(-v for v in row),), eqns)
        baseline.exists(ineqs, eqns + (row,))
        seconds += time.perf_counter() - t0
        lps += 3
    return seconds / lps


# --- polyrelu timings -------------------------------------------------------------------------


def time_lattice(net, repeat_below, max_runs, vreps=True):
    """Best-of timings of canonical_complex and of materializing every V-representation."""
    runs = []
    K = None
    while len(runs) < max_runs:
        c0, t0 = time.process_time(), time.perf_counter()
        K = canonical_complex(net, progress=False)
        t1 = time.perf_counter()
        if vreps:
            for c in K:
                c.polyhedron.vertices_rays_lines()
        t2, c2 = time.perf_counter(), time.process_time()
        runs.append((t1 - t0, t2 - t1 if vreps else None, c2 - c0))
        if (t2 - t0) >= repeat_below:
            break
    lattice = min(r[0] for r in runs)
    vrep = min(r[1] for r in runs) if vreps else None
    total = min(r[0] + r[1] for r in runs) if vreps else None
    cpu = min(r[2] for r in runs)
    return K, lattice, vrep, total, len(runs), cpu


def fmt_s(x):
    if x is None:
        return "–"
    if x < 1:
        return f"{x:.3f}"
    if x < 100:
        return f"{x:.2f}"
    return f"{x:.0f}"


def fmt_rate(n, s):
    return "–" if not s else f"{n / s:,.0f}"


def machine_note():
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "polyrelu"], capture_output=True, text=True).stdout.strip()
    except OSError:
        commit, dirty = "?", ""
    import hashlib

    import polyrelu

    root = os.path.dirname(polyrelu.__file__)
    digest = hashlib.sha256()
    for dirpath, _, files in sorted(os.walk(root)):
        for f in sorted(files):
            if f.endswith(".py"):
                with open(os.path.join(dirpath, f), "rb") as fh:
                    digest.update(f.encode() + b"\0" + fh.read())
    load = os.getloadavg()
    return (
        f"{datetime.datetime.now().isoformat(timespec='minutes')}, {platform.node()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, pycddlib {importlib.metadata.version('pycddlib')}, "
        f"commit {commit}{' + uncommitted polyrelu/ changes' if dirty else ''} (polyrelu/*.py sha256 {digest.hexdigest()[:12]}), "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}"
    )


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one timing per item, baseline budget 60 s, no method='lp'",
    )
    parser.add_argument("--no-vreps", action="store_true", help="time the lattice only (no V-representations)")
    parser.add_argument("--baseline-budget", type=float, default=None, help="seconds per network (default 300; 60 with --quick)")
    parser.add_argument("--repeat-below", type=float, default=20.0, help="best of 3 only for runs shorter than this (s)")
    parser.add_argument("--lp-samples", type=int, default=400, help="cells sampled per layer to extrapolate a stopped baseline")
    parser.add_argument("--only", default=None, help="run only networks whose name contains this string")
    parser.add_argument("--profile", action="store_true", help="cProfile lattice + V-reps on 3→8→8→1, print hot spots")
    args = parser.parse_args(argv)
    budget = args.baseline_budget if args.baseline_budget is not None else (60.0 if args.quick else 300.0)
    max_runs = 1 if args.quick else 3

    print("# bench_complex:", machine_note())
    print(f"# baseline budget {budget:.0f} s per network; best of {max_runs} below {args.repeat_below:.0f} s\n", flush=True)
    failures = []
    rows = []
    for name, build, target, run_lp in NETWORKS:
        if args.only and args.only not in name:
            continue
        net = build()
        n0 = net.architecture.input_dim
        vreps = not args.no_vreps
        print(f"## {name}", flush=True)
        K, lattice, vrep, total, runs, cpu = time_lattice(net, args.repeat_below, max_runs, vreps=vreps)
        fv = K.f_vector()
        chi = K.euler_characteristic()
        print(f"  lattice {fmt_s(lattice)} s, V-reps {fmt_s(vrep)} s, total {fmt_s(total)} s "
              f"(CPU {fmt_s(cpu)} s; {runs} run(s)); "
              f"{len(K)} cells, f-vector {fv}, χ = {chi}", flush=True)
        if chi != (-1) ** n0:
            failures.append(f"{name}: Euler characteristic {chi} != (-1)^{n0}")
            print("  FAIL:", failures[-1], flush=True)

        # method="lp" (polyrelu's certified-LP splitting)
        lp_time = None
        if run_lp and not args.quick:
            t0 = time.perf_counter()
            K_lp = canonical_complex(net, method="lp", progress=False)
            lp_time = time.perf_counter() - t0
            print(f"  method='lp': {fmt_s(lp_time)} s, f-vector {K_lp.f_vector()}", flush=True)
            if K_lp.f_vector() != fv:
                failures.append(f"{name}: method='lp' f-vector {K_lp.f_vector()} != lattice {fv}")
                print("  FAIL:", failures[-1], flush=True)

        # baseline
        plan = planned_lps(K)
        c0 = time.process_time()
        base = Baseline(net).run(plan, budget)
        base_cpu = time.process_time() - c0
        L = net.architecture.depth
        for pl in base["per_layer"]:
            print(f"  baseline layer {pl['layer']}: {pl['lps']} LPs in {fmt_s(pl['seconds'])} s "
                  f"({1e3 * pl['seconds'] / pl['lps']:.2f} ms/LP), {pl['cells']} cells", flush=True)
        if base["layers"] == L:
            base_full, base_note = base["seconds"], "measured"
            if base["f_vector"] != fv:
                failures.append(f"{name}: baseline f-vector {base['f_vector']} != lattice {fv}")
                print("  FAIL:", failures[-1], flush=True)
            ref_total = total
            partial = ""
        else:
            # check the partial run against the lattice complex of the truncated network
            Kt, lat_t, vrep_t, total_t, _, _ = time_lattice(truncated(net, base["layers"]), args.repeat_below, max_runs)
            if base["f_vector"] != Kt.f_vector():
                failures.append(f"{name}: baseline (layers 1..{base['layers']}) f-vector {base['f_vector']} != lattice {Kt.f_vector()}")
                print("  FAIL:", failures[-1], flush=True)
            base_full = base["seconds"]
            taus = []
            for l in range(base["layers"] + 1, L + 1):
                tau = sampled_lp_seconds(Baseline(net), K, l, args.lp_samples)
                taus.append(f"layer {l}: {plan[l - 1]:,} LPs × {1e3 * tau:.2f} ms")
                base_full += plan[l - 1] * tau
            base_note = (f"extrapolated: layers 1..{base['layers']} measured, then {'; '.join(taus)} "
                         f"(LP time sampled on {3 * args.lp_samples} LPs per layer; a lower estimate)")
            partial = (f"layers 1..{base['layers']}: baseline {fmt_s(base['seconds'])} s vs lattice+V-reps "
                       f"{fmt_s(total_t)} s = {base['seconds'] / total_t:.0f}×")
            print(f"  baseline partial, {partial}; f-vector {base['f_vector']} (lattice on the truncated net: {Kt.f_vector()})", flush=True)
            print(f"  baseline full ≈ {fmt_s(base_full)} s, {base_note}", flush=True)
            ref_total = total
        ratio_total = base_full / ref_total if ref_total else None
        ratio_lattice = base_full / lattice
        print(f"  baseline run: {fmt_s(base['seconds'])} s wall, {fmt_s(base_cpu)} s CPU")
        print(f"  baseline {fmt_s(base_full)} s ({base_note}); ratio baseline / (lattice + V-reps) = "
              f"{'–' if ratio_total is None else f'{ratio_total:.1f}×'}, baseline / lattice only = {ratio_lattice:.0f}×\n", flush=True)

        met = []
        if target is not None and total is not None:
            met.append(f"{fmt_s(total)} < {target:g} s: {'yes' if total < target else 'NO'}")
        elif target is not None:
            met.append(f"lattice only {fmt_s(lattice)} < {target:g} s: {'yes' if lattice < target else 'NO'} (V-reps skipped)")
        if ratio_total is not None:
            met.append(f"≥20×: {'yes' if ratio_total >= 20 else 'NO'}")
        rows.append((
            name, len(K), fv, chi, lattice, vrep, total,
            fmt_rate(len(K), lattice) + " / " + fmt_rate(len(K), total),
            base_full, base_note, partial, ratio_total, ratio_lattice, lp_time, "; ".join(met), cpu, base_cpu, base["layers"] == L,
        ))

    print("| network | cells | f-vector | χ | lattice (s) | all V-reps (s) | lattice + V-reps (s) [CPU] | cells/s (lattice / total) "
          "| baseline (s) [CPU] | baseline / (lattice+V-reps) | baseline / lattice | method='lp' (s) | targets |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for (name, n, fv, chi, lat, vrep, total, rate, bfull, bnote, partial, rt, rl, lpt, met, cpu, bcpu, bfull_ran) in rows:
        bcell = f"{fmt_s(bfull)} [{fmt_s(bcpu)}]" if bfull_ran else f"≈ {fmt_s(bfull)} ({bnote}; {partial})"
        tcell = f"{fmt_s(total)} [{fmt_s(cpu)}]" if total is not None else f"– (lattice CPU {fmt_s(cpu)})"
        print(f"| {name} | {n:,} | {tuple(fv)} | {chi} | {fmt_s(lat)} | {fmt_s(vrep)} | {tcell} | {rate} "
              f"| {bcell} | {'–' if rt is None else f'{rt:.1f}×'} | {rl:.0f}× | {fmt_s(lpt)} | {met} |")
    print()
    print("# end:", machine_note())

    if args.profile:
        net = NETWORKS[1][1]()
        pr = cProfile.Profile()
        pr.enable()
        K = canonical_complex(net, progress=False)
        for c in K:
            c.polyhedron.vertices_rays_lines()
        pr.disable()
        out = io.StringIO()
        pstats.Stats(pr, stream=out).sort_stats("cumulative").print_stats(25)
        pstats.Stats(pr, stream=out).sort_stats("tottime").print_stats(15)
        print(out.getvalue())

    if failures:
        print("FAILURES:\n  " + "\n  ".join(failures))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
