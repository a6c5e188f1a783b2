"""Survey: which random N(0, 1) networks `identifiability_report` leaves at "locally identifiable", and why.

Run from the repository root::

    .venv/bin/python benchmarks/identifiability_open.py [--count 110] [--max-seconds 60] [-o records.json]

Networks drawn as in ``benchmarks/survey_recovery.py`` but wider: ``n0 ∈ {2, 3}``, 1-3 hidden layers,
widths 3-8, ``m ∈ {1, 2}`` (``default_rng(2027)``), each with weights and biases ``N(0, 1)`` from its own
seed. Each gets ``identifiability_report``; for the verdicts that stay open (``locally identifiable``)
the network is also recovered from its values alone, and the record says how recovery compares with it
(trivially equivalent / same function / undecided / different function, as ``polyrelu survey --recovery``),
with recovery's reason and the structure that leaves weights open: dead and stably active neurons, and
pairs of neurons in consecutive layers whose zero sets never meet (TPIC fails for them).
"""

import argparse
import collections
import datetime
import json
import platform
import time

import numpy as np

from polyrelu import (
    ReLUNetwork,
    canonical_complex,
    identifiability_report,
    network_oracle,
    recover_network,
)
from polyrelu.cli.survey import recovery_outcome


def cases(count, seed=2027):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n0, depth, m = int(rng.integers(2, 4)), int(rng.integers(1, 4)), int(rng.integers(1, 3))
        widths = [n0] + [int(rng.integers(3, 9)) for _ in range(depth)] + [m]
        out.append((widths, int(rng.integers(0, 10**6))))
    return out


def structure(net):
    """Dead / stably active neurons and non-crossing pairs of consecutive layers, from the canonical complex."""
    K = canonical_complex(net)
    neurons = net.architecture.hidden_neurons()
    signs = [r.signs for r in K.regions()]
    dead = [n for k, n in enumerate(neurons) if all(s[k] <= 0 for s in signs)]
    active = [n for k, n in enumerate(neurons) if all(s[k] > 0 for s in signs)]
    # a cell of codimension 2 on both zero sets: the two bent hypersurfaces cross (or touch)
    index = {n: k for k, n in enumerate(neurons)}
    meet = set()
    for cell in K.cells():
        zeros = [n for n in neurons if cell.signs[index[n]] == 0]
        for a in zeros:
            for b in zeros:
                if b[0] == a[0] + 1:
                    meet.add((a, b))
    apart = [(a, b) for a in neurons for b in neurons if b[0] == a[0] + 1 and (a, b) not in meet
             and a not in dead and b not in dead]
    return {"dead": dead, "stably_active": active, "never_meet": apart, "regions": len(signs)}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=110)
    parser.add_argument("--max-seconds", type=float, default=60.0)
    parser.add_argument("-o", "--output")
    args = parser.parse_args()
    print(f"# identifiability_open, {datetime.date.today()}, Python {platform.python_version()}")
    records, tally = [], collections.Counter()
    for widths, seed in cases(args.count):
        rng = np.random.default_rng(seed)
        net = ReLUNetwork(
            [rng.standard_normal((b, a)) for a, b in zip(widths, widths[1:])], [rng.standard_normal(b) for b in widths[1:]]
        )
        start = time.perf_counter()
        report = identifiability_report(net)
        record = {"widths": widths, "seed": seed, "verdict": report.verdict, "seconds": round(time.perf_counter() - start, 2)}
        tally[report.verdict] += 1
        if report.verdict.startswith("locally identifiable"):
            record["failing"] = [c.name for c in report.genericity.conditions if not c.holds]
            result = recover_network(network_oracle(net), widths[0], seed=seed, max_seconds=args.max_seconds)
            record.update(recovery=recovery_outcome(net, result), reason=result.reason,
                          recovered_widths=list(result.layer_widths), **structure(net))
        records.append(record)
        print(json.dumps(record, default=str), flush=True)
    print(dict(tally))
    if args.output:
        with open(args.output, "w") as f:
            json.dump(records, f, default=str, indent=1)


if __name__ == "__main__":
    main()
