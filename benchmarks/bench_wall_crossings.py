"""Benchmark: where a traced hypersurface meets a wall, in the plane: read off the wall's ends, against an exact feasibility problem.

Run from the repository root::

    .venv/bin/python benchmarks/bench_wall_crossings.py     # about 2 minutes

Six networks with ``n0 = 2`` of the three-hidden-layer sample of ``benchmarks/survey_recovery.py`` (indices 4,
14, 20, 23, 36, 59, all recovered) are recovered with ``max_seconds=120``, alternately with
``tracing.crossing_point`` as it is (in the plane: the segment, ray or line the wall is, read off its vertices and
directions) and with the BASELINE that decides every crossing by an exact feasibility problem, as every
dimension does; twice, in both orders, in this process, since the machine's speed drifts over hours. Prints
CPU seconds per run, the totals and their ratio; the queries and outcomes must agree.
"""

import datetime
import platform
import time

from survey_recovery import gaussian_network, three_hidden_cases

from polyrelu import network_oracle, recover_network
from polyrelu.geometry import Polyhedron
from polyrelu.recovery import tracing

INDICES = (4, 14, 20, 23, 36, 59)


def by_feasibility(poly, h, n0):
    """BASELINE: the crossing by an exact feasibility problem in every dimension."""
    cut = Polyhedron(ieqs=poly.inequalities, eqns=[*poly.equations, h], ambient_dim=n0)
    return None if cut.is_empty() or cut.dimension() != n0 - 2 else cut.relative_interior_point()


def main():
    print(f"# bench_wall_crossings, {datetime.date.today()}, Python {platform.python_version()}")
    variants = {"ends": tracing.crossing_point, "BASELINE feasibility": by_feasibility}
    cases = three_hidden_cases(60)
    total = dict.fromkeys(variants, 0.0)
    seen = {}
    print("| pass | network | variant | status | queries | CPU s |")
    print("|---|---|---|---|---|---|")
    for rep, order in enumerate((list(variants), list(reversed(variants)))):
        for index in INDICES:
            widths, seed = cases[index]
            for name in order:
                tracing.crossing_point = variants[name]
                start = time.process_time()
                result = recover_network(network_oracle(gaussian_network(widths, seed)), widths[0], max_seconds=120)
                took = time.process_time() - start
                total[name] += took
                # the variants decide every crossing alike: the same search, the same answer
                assert seen.setdefault(index, (result.status, result.queries)) == (result.status, result.queries)
                print(f"| {rep + 1} | {'→'.join(map(str, widths))} seed {seed} | {name} | {result.status} | "
                      f"{result.queries} | {took:.2f} |")
    tracing.crossing_point = variants["ends"]
    ends, baseline = total["ends"], total["BASELINE feasibility"]
    print(f"total CPU s: ends {ends:.1f}, BASELINE {baseline:.1f}; ratio {ends / baseline:.2f}")


if __name__ == "__main__":
    main()
