"""Survey: how often recovery succeeds on random N(0, 1) networks, which are usually not generic (docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/survey_recovery.py --jobs 2   # at most max_seconds per network

Forty architectures drawn as in the recovery tests (``n0 ∈ {2, 3}``, 1-3 hidden layers, widths 2-6,
``m ∈ {1, 2}``; ``default_rng(2026)``), each with weights and biases ``N(0, 1)`` from its own seed, recovered
with ``max_seconds`` (``--max-seconds``, default 60) in ``--jobs`` processes. Every
recovered network is compared with the original exactly, as ``polyrelu survey --recovery`` does
(:func:`polyrelu.cli.survey.recovery_outcome`): trivially equivalent, else the same function (checked by
``same_function`` on a common refinement). A different function would be a bug and is counted apart.
``polyrelu survey --recovery`` (docs/survey.md) surveys the architectures ``(n0, w, ..., w, 1)`` by depth instead.

``--three-hidden [COUNT]`` instead surveys COUNT (default 60) networks with three hidden layers, ``n0 ∈ {2, 3}``,
widths 3-6, one output (``default_rng(2026)``), each recovered with ``max_seconds`` (``--max-seconds``, default
60) in ``--jobs`` processes: the recovered fraction (the same function, checked exactly) against the 80 % asked of
deep recovery, the undecided reasons by stage, and any different function. With ``--known-layers K`` each network's
first K hidden layers are given to recovery (``recover_network(..., known_layers=...)``), oriented: which stage the
undecided networks fail in.

``--small [COUNT]`` recovers COUNT (default 120) networks ``ReLUNetwork.random(arch, seed=k, kind="gaussian")``,
``k = 0..COUNT-1``, the architectures cycling through eight small ones (2-3 inputs, 2-3 hidden layers, widths 2-4),
each with ``seed=k`` and ``max_seconds`` (pass ``--max-seconds 20``): the outcome counts, and each different
function by name.
"""

import argparse
import collections
import datetime
import functools
import platform
import time

import numpy as np

from polyrelu import ReLUNetwork, network_oracle, recover_network
from polyrelu.cli.survey import RECOVERY_OUTCOMES, recovery_outcome
from polyrelu.parallel import parallel_map


def gaussian_network(widths, seed):
    """The survey's recipe: every weight and bias N(0, 1) from ``np.random.default_rng(seed)``, layer by layer."""
    rng = np.random.default_rng(seed)
    return ReLUNetwork(
        [rng.standard_normal((b, a)) for a, b in zip(widths, widths[1:])], [rng.standard_normal(b) for b in widths[1:]]
    )


def cases(count=40, seed=2026):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n0, depth, m = int(rng.integers(2, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        widths = [n0] + [int(rng.integers(2, 7)) for _ in range(depth)] + [m]
        out.append((widths, int(rng.integers(0, 10**6))))
    return out


def main(max_seconds, jobs):
    print(f"# survey_recovery, {datetime.date.today()}, Python {platform.python_version()}, "
          f"max_seconds={max_seconds}, {jobs} process(es)")
    survey = cases()
    start = time.perf_counter()
    rows = parallel_map(functools.partial(recover_case, max_seconds=max_seconds), survey, n_jobs=jobs)
    wall = time.perf_counter() - start
    tally = collections.Counter()
    print("| widths | seed | result | queries | CPU s |")
    print("|---|---|---|---|---|")
    for (widths, seed), (verdict, queries, took, _, _) in zip(survey, rows):
        tally[len(widths) - 2, verdict] += 1
        print(f"| {'→'.join(map(str, widths))} | {seed} | {verdict} | {queries} | {took:.1f} |")
    print()
    print("| hidden layers | trivially equivalent | same function | undecided | different function |")
    print("|---|---|---|---|---|")
    for depth in (1, 2, 3):
        row = [tally[depth, v] for v in RECOVERY_OUTCOMES]
        print(f"| {depth} | " + " | ".join(map(str, row)) + " |")
    print(f"wall {wall:.0f} s")


def three_hidden_cases(count=60, seed=2026):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n0 = int(rng.integers(2, 4))
        widths = [n0] + [int(rng.integers(3, 7)) for _ in range(3)] + [1]
        out.append((widths, int(rng.integers(0, 10**6))))
    return out


def recover_case(case, max_seconds, known_layers=0):
    widths, seed = case
    net = gaussian_network(widths, seed)
    known = ReLUNetwork(net.weights[:known_layers], net.biases[:known_layers]) if known_layers else None
    start = time.process_time()
    result = recover_network(network_oracle(net), widths[0], max_seconds=max_seconds, known_layers=known)
    took = time.process_time() - start
    return recovery_outcome(net, result), result.queries, took, result.layer_widths, result.reason or ""


def stage_of(reason):
    """The kind of undecided answer, for the tally."""
    for key, kind in (
        ("testing first-layer hyperplanes", "first layer"),
        ("orientation", "orientation"),
        ("tracing layer", "tracing"),
        ("time budget", "time budget"),
        ("fitting the output layer", "output fit"),
    ):
        if key in reason:
            return kind
    return "other"


def three_hidden(count, max_seconds, jobs, known_layers=0):
    cases = three_hidden_cases(count)
    print(f"# survey_recovery --three-hidden {count}, {datetime.date.today()}, Python {platform.python_version()}, "
          f"max_seconds={max_seconds}, {jobs} process(es), the first {known_layers} hidden layer(s) given")
    start = time.perf_counter()
    rows = parallel_map(functools.partial(recover_case, max_seconds=max_seconds, known_layers=known_layers), cases, n_jobs=jobs)
    wall = time.perf_counter() - start
    print("| # | widths | seed | outcome | widths found | queries | CPU s | undecided at |")
    print("|---|---|---|---|---|---|---|---|")
    tally, stages = collections.Counter(), collections.Counter()
    for k, ((widths, seed), (verdict, queries, took, found, reason)) in enumerate(zip(cases, rows)):
        tally[verdict] += 1
        where = stage_of(reason) if verdict == "undecided" else ""
        if where:
            stages[where] += 1
        print(f"| {k} | {'→'.join(map(str, widths))} | {seed} | {verdict} | {found or ''} | {queries} | {took:.1f} | {where} |")
    recovered = tally["trivially equivalent"] + tally["same function"]
    print()
    print(f"recovered (same function) {recovered} of {count} ({100 * recovered / count:.0f} %; asked: 80 %), "
          + ", ".join(f"{v}: {tally[v]}" for v in RECOVERY_OUTCOMES) + f"; wall {wall:.0f} s")
    print("undecided by stage: " + ", ".join(f"{k} {v}" for k, v in stages.most_common()))


SMALL_ARCHITECTURES = [(2, 3, 3, 3, 1), (2, 3, 3, 1), (2, 2, 3, 2, 1), (2, 4, 3, 3, 1), (2, 3, 4, 3, 1), (3, 3, 3, 3, 1), (2, 4, 4, 1), (3, 4, 4, 1)]


def recover_small(case, max_seconds):
    arch, seed = case
    net = ReLUNetwork.random(arch, seed=seed, kind="gaussian")
    result = recover_network(network_oracle(net), arch[0], seed=seed, max_seconds=max_seconds)
    return recovery_outcome(net, result), result.layer_widths


def small(count, max_seconds, jobs):
    """Many small networks: how often recovery answers, and whether it ever answers a different function."""
    cases = [(SMALL_ARCHITECTURES[k % len(SMALL_ARCHITECTURES)], k) for k in range(count)]
    print(f"# survey_recovery --small {count}, {datetime.date.today()}, max_seconds={max_seconds}, {jobs} process(es)")
    rows = parallel_map(functools.partial(recover_small, max_seconds=max_seconds), cases, n_jobs=jobs)
    tally = collections.Counter(verdict for verdict, _ in rows)
    for (arch, seed), (verdict, found) in zip(cases, rows):
        if verdict == "DIFFERENT FUNCTION":
            print(f"DIFFERENT FUNCTION: {'→'.join(map(str, arch))} seed {seed}, widths found {found}")
    print(", ".join(f"{v}: {tally[v]}" for v in RECOVERY_OUTCOMES))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--three-hidden", type=int, nargs="?", const=60, default=None, metavar="COUNT")
    parser.add_argument("--small", type=int, nargs="?", const=120, default=None, metavar="COUNT")
    parser.add_argument("--max-seconds", type=float, default=60)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--known-layers", type=int, default=0, metavar="K", help="--three-hidden: give the first K hidden layers")
    args = parser.parse_args()
    if args.small is not None:
        small(args.small, args.max_seconds, args.jobs)
    elif args.three_hidden is not None:
        three_hidden(args.three_hidden, args.max_seconds, args.jobs, args.known_layers)
    else:
        main(args.max_seconds, args.jobs)
