"""Benchmark: recovering a network from function values alone (results in docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_recovery.py          # a few minutes on 2 cores
    .venv/bin/python benchmarks/bench_recovery.py --deep   # three hidden layers, 10 minutes at most each

Networks: the seed-0 Gaussian recipe of the benchmarks (``np.random.seed(0)``, then per layer ``W = randn(out, in)``,
``b = randn(out)``) for 2→8→8→1 and 3→8→8→1, and ``generic_network`` of the same shapes (seed 0),
which passes the four genericity conditions. ``--deep``: 2→6→6→6→1 and 3→6→6→6→1 of the same Gaussian
recipe, with a time budget of ``max_seconds=600`` each.

* exact recovery on all of R^n0 from a closure over exact evaluation: status, queries, regions of
  the recovered complex, queries per region, time, and whether the result is trivially equivalent
  to the original (exact) or at least the same function;
* BASELINE, in the same process: building the canonical complex and the tropical weights from the
  parameters (what knowing the weights costs); the ratio is recovery time / baseline time;
* float-oracle recovery of a PyTorch float64 ``nn.Sequential`` holding the generic network, on a box
  twice the size of the complex's vertex set: the largest deviation from the model on fresh points.
"""

import datetime
import platform
import sys
import time

from _timing import best_of

from polyrelu import (
    Box,
    canonical_complex,
    equivalent,
    network_oracle,
    recover_network,
    same_function,
    tropical_weights,
)
from polyrelu.examples import generic_network, seeded_gaussian_network


def torch_oracle(net):
    """A PyTorch float64 model of ``net`` and a black box over it (floats in, floats out)."""
    import torch

    layers = []
    for l, (W, b) in enumerate(net.layers):
        linear = torch.nn.Linear(len(W[0]), len(W), dtype=torch.float64)
        with torch.no_grad():
            linear.weight.copy_(torch.tensor([[float(v) for v in row] for row in W], dtype=torch.float64))
            linear.bias.copy_(torch.tensor([float(v) for v in b], dtype=torch.float64))
        layers.append(linear)
        if l < len(net.layers) - 1:
            layers.append(torch.nn.ReLU())
    model = torch.nn.Sequential(*layers)

    def oracle(x):
        with torch.no_grad():
            return model(torch.tensor(x, dtype=torch.float64)).tolist()

    return oracle


def main(deep=False):
    print(f"# bench_recovery{' --deep' if deep else ''}, {datetime.date.today()}, Python {platform.python_version()}")
    if deep:
        nets = [seeded_gaussian_network((2, 6, 6, 6, 1)), seeded_gaussian_network((3, 6, 6, 6, 1))]
    else:
        nets = [
            seeded_gaussian_network((2, 8, 8, 1)),
            seeded_gaussian_network((3, 8, 8, 1)),
            generic_network((2, 8, 8, 1), seed=0),
            generic_network((3, 8, 8, 1), seed=0),
        ]
    print("| network | status | queries | regions | queries / region | recovery | baseline (complex + weights) | ratio | result |")
    print("|---|---|---|---|---|---|---|---|---|")
    for net in nets:
        base, _ = best_of(3, lambda: tropical_weights(canonical_complex(net)))
        start = time.perf_counter()
        result = recover_network(network_oracle(net), net.architecture.input_dim, max_seconds=600 if deep else None)
        took = time.perf_counter() - start
        if result.network is None:
            verdict = f"undecided: {result.reason}"
        elif equivalent(result.network, net):
            verdict = "trivially equivalent"
        else:
            verdict = "same function" if same_function(result.network, net) else "DIFFERENT FUNCTION"
        per_region = f"{result.queries / result.regions:.0f}" if result.regions else "-"
        print(
            f"| {net.name or net.architecture} | {result.status} | {result.queries} | {result.regions} | {per_region} "
            f"| {took:.2f} s | {base:.3f} s | {took / base:.0f}× | {verdict} |"
        )
    if deep:
        return
    print()
    print("| PyTorch float64 model | box | status | queries | recovery | max deviation on fresh points |")
    print("|---|---|---|---|---|---|")
    for net in nets[2:]:
        K = canonical_complex(net)
        reach = max(max(abs(float(v)) for v in c.relative_interior_point()) for c in K.cells(0))
        box = Box(-(2 * reach + 1), 2 * reach + 1)
        start = time.perf_counter()
        result = recover_network(torch_oracle(net), net.architecture.input_dim, float_oracle=True, domain=box)
        took = time.perf_counter() - start
        deviation = f"{result.max_deviation:.2g}" if result.max_deviation is not None else f"- ({result.reason})"
        print(f"| {net.name} | [±{2 * reach + 1:.0f}] | {result.status} | {result.queries} | {took:.2f} s | {deviation} |")


if __name__ == "__main__":
    main(deep="--deep" in sys.argv[1:])
