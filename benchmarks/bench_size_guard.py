"""Benchmark: the size guard's cell-count estimate against the true cell count.

Run from the repository root::

    .venv/bin/python benchmarks/bench_size_guard.py            # the whole grid (about 20 minutes on 2 cores)
    .venv/bin/python benchmarks/bench_size_guard.py --quick    # n0 = 2-4, widths 8-32

Shapes: the networks of ``benchmarks/bench_complex.py`` and the grid n0 = 2..6, hidden widths 8, 16, 32,
64, 1..3 hidden layers of equal width, output width 1; seed-0 Gaussian weights
(``polyrelu.examples.seeded_gaussian_network``), all on R^n0. For every shape:

* ``estimate_cells(net)``: the layers before the last are built, the last layer is estimated from
  exact counts inside sampled cells (the estimate ``canonical_complex`` refuses on);
* ``canonical_complex(net)`` with the default ``max_cells`` (1,000,000) when the estimate is at most
  ``--build-below`` or over the limit: built (the true count, and the ratio estimate / true), or refused
  and after how long. A shape whose true count exceeds 1.5 times the limit must be refused.

Prints a markdown table; exit status 1 if a ratio is outside [1/3, 3] or a shape over the limit is built.
"""

import argparse
import datetime
import platform
import sys
import time

from polyrelu import (
    ComplexTooLargeError,
    ReLUNetwork,
    canonical_complex,
    estimate_cells,
)
from polyrelu.examples import seeded_gaussian_network

LIMIT = 1_000_000


def grid(quick):
    shapes = [
        ("2→8→8→1", seeded_gaussian_network((2, 8, 8, 1))),
        ("3→8→8→1", seeded_gaussian_network((3, 8, 8, 1))),
        ("2→16→16→16→1", seeded_gaussian_network((2, 16, 16, 16, 1))),
        ("4→8→8→8→1 (int)", ReLUNetwork.random((4, 8, 8, 8, 1), kind="integer", seed=0)),
        ("10→10→10→1", seeded_gaussian_network((10, 10, 10, 1))),
    ]
    inputs, widths = ((2, 3, 4), (8, 16, 32)) if quick else ((2, 3, 4, 5, 6), (8, 16, 32, 64))
    for n0 in inputs:
        for depth in (1, 2, 3):
            for w in widths:
                arch = (n0, *[w] * depth, 1)
                shapes.append(("→".join(map(str, arch)), seeded_gaussian_network(arch)))
    return shapes


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--build-below", type=int, default=400_000, help="build the true complex up to this estimate")
    args = parser.parse_args(argv)
    print(f"# bench_size_guard, {datetime.date.today()}, Python {platform.python_version()}, {platform.machine()}")
    print("| network | estimate | true cells | estimate / true | estimate time | build time | canonical_complex (max_cells 1,000,000) |")
    print("|---|---|---|---|---|---|---|")
    ok = True
    ratios = []
    for name, net in grid(args.quick):
        start = time.perf_counter()
        try:
            estimate, lower, margin = estimate_cells(net, max_cells=LIMIT)
            shown = f"≥ {estimate:,}" if lower else f"{estimate:,} ± {margin:,}"
        except ComplexTooLargeError as exc:
            estimate, lower = exc.estimate, True
            shown = f"≥ {estimate:,} (an earlier layer)"
        t_estimate = time.perf_counter() - start
        true = ratio = t_build = None
        verdict = "-"
        if lower or estimate > LIMIT or estimate <= args.build_below:
            start = time.perf_counter()
            try:
                true = len(canonical_complex(net, max_cells=LIMIT))
                verdict = f"built, {true:,} cells"
                t_build = time.perf_counter() - start
            except ComplexTooLargeError as exc:
                verdict = f"refused after {time.perf_counter() - start:.2f} s (counted to {exc.estimate:,})"
        if true is not None:
            ratio = estimate / true
            ratios.append(ratio)
            if not lower and not 1 / 3 <= ratio <= 3:
                ok = False
            if true > 1.5 * LIMIT and verdict.startswith("built"):
                ok = False
        print(
            f"| {name} | {shown} | {f'{true:,}' if true is not None else '-'} | "
            f"{f'{ratio:.2f}' if ratio is not None else '-'} | {t_estimate:.2f} s | "
            f"{f'{t_build:.2f} s' if t_build is not None else '-'} | {verdict} |",
            flush=True,
        )
    if ratios:
        print(f"\nestimate / true over {len(ratios)} built shapes: min {min(ratios):.2f}, max {max(ratios):.2f}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
