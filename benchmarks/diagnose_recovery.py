"""Diagnose recovery on the fixed three-hidden-layer sample: what ``f`` shows of each neuron, and where recovery stops.

Run from the repository root::

    .venv/bin/python benchmarks/diagnose_recovery.py 7 57            # indices into the sample (0-59)
    .venv/bin/python benchmarks/diagnose_recovery.py 57 --max-seconds 30 --json diagnosis.json

For each index of the sample of ``benchmarks/survey_recovery.py --three-hidden`` (the same 60 networks):
its widths and seed; per hidden neuron, on how many facets of the canonical complex its zero set lies and on
how many of those ``f`` bends (a non-zero tropical weight), and the fraction of 200,000 points uniform in
``[-50, 50]^n0`` where it is positive (a dead neuron shows 0, a stably active one 1); then recovery's outcome,
compared exactly as the survey does, the widths it found, its queries and CPU time, and its whole reason when
undecided. The analysis of the undecided networks in docs/recovery.md ("Three hidden layers: what stops the
rest") rests on these numbers. ``--json`` also writes them, atomically.
"""

import argparse
import collections

import numpy as np
from survey_recovery import gaussian_network, recover_case, three_hidden_cases

from polyrelu import canonical_complex, tropical_weights
from polyrelu.atomic import check_output_path, write_json
from polyrelu.errors import OutputPathError


def visible_facets(net, n0):
    """``{(layer, neuron): (facets where f bends, facets)}`` over the codimension-1 cells of the canonical complex."""
    complex_ = canonical_complex(net)
    weights = tropical_weights(complex_)
    total, bent = collections.Counter(), collections.Counter()
    for cell in complex_.cells(n0 - 1):
        weight = weights.weight(cell)
        if weight is None:
            continue
        for neuron in weight.neurons:
            total[neuron] += 1
            bent[neuron] += any(weight.weight)
    return {neuron: (bent[neuron], total[neuron]) for neuron in total}


def positive_fractions(net, n0, points=200_000, seed=0):
    """Per hidden layer, the fraction of uniform points in ``[-50, 50]^n0`` where each neuron is positive."""
    y = np.random.default_rng(seed).uniform(-50, 50, (points, n0))
    fractions = []
    for W, b in zip(net.weights[:-1], net.biases[:-1]):
        z = y @ np.array(W, dtype=float).T + np.array(b, dtype=float)
        fractions.append([float(v) for v in (z > 0).mean(axis=0)])
        y = np.maximum(z, 0)
    return fractions


def diagnose(index, max_seconds):
    widths, seed = three_hidden_cases(60)[index]
    net = gaussian_network(widths, seed)
    n0 = widths[0]
    facets = visible_facets(net, n0)
    fractions = positive_fractions(net, n0)
    outcome, queries, cpu, found, reason = recover_case((widths, seed), max_seconds)
    neurons = [
        {"layer": layer + 1, "neuron": j, "bent_facets": facets.get((layer + 1, j), (0, 0))[0],
         "facets": facets.get((layer + 1, j), (0, 0))[1], "positive": fractions[layer][j]}
        for layer, width in enumerate(widths[1:-1]) for j in range(width)
    ]
    return {"index": index, "widths": widths, "seed": seed, "neurons": neurons, "outcome": outcome,
            "widths_found": list(found), "queries": queries, "cpu_seconds": round(cpu, 2), "reason": reason}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("indices", type=int, nargs="+", metavar="INDEX", choices=range(60))
    parser.add_argument("--max-seconds", type=float, default=60)
    parser.add_argument("--json", metavar="PATH", help="also write the records here (atomically)")
    args = parser.parse_args()
    if args.json:
        try:
            check_output_path(args.json)  # a bad path fails before the work
        except OutputPathError as exc:
            parser.error(str(exc))
    records = []
    for index in args.indices:
        record = diagnose(index, args.max_seconds)
        records.append(record)
        print(f"# {index}: {'→'.join(map(str, record['widths']))}, seed {record['seed']}")
        print("| neuron | f bends on facets | positive on |")
        print("|---|---|---|")
        for n in record["neurons"]:
            print(f"| ({n['layer']}, {n['neuron']}) | {n['bent_facets']} of {n['facets']} | {100 * n['positive']:.1f} % |")
        print(f"{record['outcome']}, widths found {tuple(record['widths_found'])}, {record['queries']} queries, "
              f"{record['cpu_seconds']} CPU s")
        if record["reason"]:
            print(f"reason: {record['reason']}")
        print()
    if args.json:
        write_json(args.json, lambda: records, indent=1)


if __name__ == "__main__":
    main()
