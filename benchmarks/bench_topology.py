"""Benchmark: decision complexes and exact homology (results in docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_topology.py           # about a minute on 2 cores
    .venv/bin/python benchmarks/bench_topology.py --quick   # the small network only

For each classifier (``ReLUNetwork.random(arch, seed=0, kind="gaussian")``: 2→16→16→3 and
2→32→32→10, on the box [-2, 2]^2; the small one on all of R^2 too) the stages are timed, each
the best of ``--repeat`` runs on fresh objects so that no cached orientation is reused:

* ``complex``: ``canonical_complex(net, domain)``, the baseline run in the same process;
* ``decision``: ``decision_complex(net, domain)`` (the canonical complex of the tie network);
* ``homology``: ``homology`` (over Z, with torsion) of every class region and of the decision
  boundary, on a decision complex already built (on R^2 this includes building the clipped model);
* ``GF(2)``: the same Betti numbers over GF(2).

Ratios to the complex's build time are printed, with the cell counts and the Betti numbers.
"""

import argparse
import datetime
import platform

from _timing import best_of

from polyrelu import (
    Box,
    ReLUNetwork,
    betti_numbers,
    canonical_complex,
    decision_complex,
    homology,
)


def parts(D):
    return [D.class_region(c) for c in range(D.classes)] + [D.boundary()]


def run(arch, domain, repeat):
    net = ReLUNetwork.random(arch, seed=0, kind="gaussian")
    t_complex, K = best_of(repeat, lambda: canonical_complex(net, domain))
    t_decision, D = best_of(repeat, lambda: decision_complex(net, domain))
    t_homology, groups = best_of(
        repeat, lambda: [homology(X) for X in parts(decision_complex(net, domain))]
    )
    t_homology -= t_decision
    t_gf2, betti2 = best_of(
        repeat, lambda: [betti_numbers(X, field=2) for X in parts(decision_complex(net, domain))]
    )
    t_gf2 -= t_decision
    assert betti2 == [g.betti for g in groups]  # no torsion in the plane
    return dict(net=net, K=K, D=D, groups=groups, complex=t_complex, decision=t_decision, homology=t_homology, gf2=t_gf2)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="the 2→16→16→3 network only")
    args = parser.parse_args()
    print(f"# {datetime.date.today()}, Python {platform.python_version()}, best of {args.repeat}")
    cases = [((2, 16, 16, 3), Box(-2, 2), "[-2, 2]^2"), ((2, 16, 16, 3), None, "R^2")]
    if not args.quick:
        cases.append(((2, 32, 32, 10), Box(-2, 2), "[-2, 2]^2"))
    print("| network | domain | complex cells | decision cells | complex | decision | homology | GF(2) |"
          " decision / complex | homology / complex | class regions' Betti numbers | boundary |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for arch, domain, where in cases:
        r = run(arch, domain, args.repeat)
        regions = ", ".join("".join(map(str, g.betti)) for g in r["groups"][:-1])
        print(
            f"| {'→'.join(map(str, arch))} | {where} | {len(r['K'])} | {len(r['D'].complex)} | {r['complex']:.3f} s |"
            f" {r['decision']:.3f} s | {r['homology']:.3f} s | {r['gf2']:.3f} s | {r['decision'] / r['complex']:.1f} |"
            f" {r['homology'] / r['complex']:.1f} | {regions} | {''.join(map(str, r['groups'][-1].betti))} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
