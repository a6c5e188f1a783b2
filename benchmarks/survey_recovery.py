"""Survey: how often recovery succeeds on random N(0, 1) networks, which are usually not generic (docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/survey_recovery.py            # about 10 minutes on 2 cores

Forty architectures drawn as in the recovery tests (``n0 ∈ {2, 3}``, 1-3 hidden layers, widths 2-6,
``m ∈ {1, 2}``; ``default_rng(2026)``), each with weights and biases ``N(0, 1)`` from its own seed. Every
recovered network is compared with the original exactly, as ``polyrelu survey --recovery`` does
(:func:`polyrelu.cli.survey.recovery_outcome`): trivially equivalent, else the same function (checked by
``same_function`` on a common refinement). A different function would be a bug and is counted apart.
``polyrelu survey --recovery`` (docs/survey.md) surveys the architectures ``(n0, w, ..., w, 1)`` by depth instead.
"""

import collections
import datetime
import platform
import time

import numpy as np

from polyrelu import ReLUNetwork, network_oracle, recover_network
from polyrelu.cli.survey import RECOVERY_OUTCOMES, recovery_outcome


def cases(count=40, seed=2026):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n0, depth, m = int(rng.integers(2, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        widths = [n0] + [int(rng.integers(2, 7)) for _ in range(depth)] + [m]
        out.append((widths, int(rng.integers(0, 10**6))))
    return out


def main():
    print(f"# survey_recovery, {datetime.date.today()}, Python {platform.python_version()}")
    tally = collections.Counter()
    print("| widths | seed | result | queries | time |")
    print("|---|---|---|---|---|")
    for widths, seed in cases():
        rng = np.random.default_rng(seed)
        net = ReLUNetwork(
            [rng.standard_normal((b, a)) for a, b in zip(widths, widths[1:])], [rng.standard_normal(b) for b in widths[1:]]
        )
        start = time.perf_counter()
        result = recover_network(network_oracle(net), widths[0])
        took = time.perf_counter() - start
        verdict = recovery_outcome(net, result)
        tally[len(widths) - 2, verdict] += 1
        print(f"| {'→'.join(map(str, widths))} | {seed} | {verdict} | {result.queries} | {took:.1f} s |")
    print()
    print("| hidden layers | trivially equivalent | same function | undecided | different function |")
    print("|---|---|---|---|---|")
    for depth in (1, 2, 3):
        row = [tally[depth, v] for v in RECOVERY_OUTCOMES]
        print(f"| {depth} | " + " | ".join(map(str, row)) + " |")


if __name__ == "__main__":
    main()
