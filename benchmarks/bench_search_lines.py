"""Benchmark: how many of f's breakpoints a search line finds, near the origin and far out (results in docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_search_lines.py

Recovery learns ``f`` from breakpoints on random lines ``p + t d`` (``line_breakpoints``). On all of ``R^n0``
the line's ends are pushed out until ``f`` is linear beyond them; a line through a point far out meets the
hyperplanes near that point at ``|t| ≈ |p| / |d|``, and recovery draws such points once a far breakpoint has
widened its search window.

* ``line_breakpoints`` (exact, from function values only);
* BASELINE, in the same process: the breakpoints of ``f`` on the same line from the parameters: the network
  restricted to the line (``restrict``, exact), the vertices of its canonical complex on ``R^1``, and those
  where the slopes on the two sides differ (exact evaluation).

Reported per network and scale ``s`` of the line's point (uniform on a grid in ``[-s, s]^n0``, random
direction, as recovery draws them): breakpoints found / breakpoints there (the recall, 1.00 when nothing is
missed), and lines that found none of theirs. Networks: the seed-0 Gaussian recipe of the benchmarks and two
networks of the three-hidden-layer survey sample.
"""

import datetime
import platform
import sys
from fractions import Fraction

import numpy as np
from survey_recovery import gaussian_network

from polyrelu import canonical_complex, line_breakpoints, network_oracle, restrict
from polyrelu.examples import seeded_gaussian_network
from polyrelu.recovery.sampling import random_direction, random_point

SCALES = [1, 2**10, 2**20, 2**30]
LINES = 8


def true_breakpoints(net, p, d):
    """The ``t`` where ``t ↦ net(p + t d)`` changes slope, from the parameters."""
    line = restrict(net, p, [d])
    ts = sorted(cell.relative_interior_point()[0] for cell in canonical_complex(line, progress=False).cells(0))
    found = []
    for k, t in enumerate(ts):
        left = ts[k - 1] if k else t - 1
        right = ts[k + 1] if k + 1 < len(ts) else t + 1
        a, b = (left + t) / 2, (t + right) / 2
        fa, ft, fb = line((a,))[0], line((t,))[0], line((b,))[0]
        if (ft - fa) / (t - a) != (fb - ft) / (b - t):
            found.append(t)
    return found


def main():
    print(f"# bench_search_lines, {datetime.date.today()}, Python {platform.python_version()}, {LINES} lines per scale")
    print("| network | scale of the point | breakpoints there (baseline) | found | recall | lines finding none |")
    print("|---|---|---|---|---|---|")
    networks = [
        ("Gaussian seed 0 2→6→6→6→1", seeded_gaussian_network((2, 6, 6, 6, 1))),
        ("Gaussian seed 0 3→6→6→6→1", seeded_gaussian_network((3, 6, 6, 6, 1))),
        ("survey #13 3→5→5→3→1", gaussian_network((3, 5, 5, 3, 1), 345100)),
        ("survey #19 2→3→5→6→1", gaussian_network((2, 3, 5, 6, 1), 548483)),
    ]
    for name, net in networks:
        oracle = network_oracle(net)
        n0 = net.architecture.input_dim
        for scale in SCALES:
            rng = np.random.default_rng(1)
            there = found = empty = 0
            for _ in range(LINES):
                p = random_point(rng, n0, None, None, Fraction(scale))
                d = random_direction(rng, n0)
                truth = true_breakpoints(net, p, d)
                got = line_breakpoints(oracle, p, d)
                if not set(got) <= set(truth):
                    sys.exit(f"{name}: a breakpoint found is not one of f's: {sorted(set(got) - set(truth))}")
                there += len(truth)
                found += len(got)
                empty += bool(truth) and not got
            print(f"| {name} | 2^{scale.bit_length() - 1} | {there} | {found} | {found / there:.2f} | {empty} of {LINES} |", flush=True)


if __name__ == "__main__":
    main()
