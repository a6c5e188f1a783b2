"""Benchmark: candidate hypersurfaces, dependency graph and depth hierarchy (results in docs/benchmarks.md).

Run from the repository root::

    .venv/bin/python benchmarks/bench_dependency.py           # about a minute on 2 cores
    .venv/bin/python benchmarks/bench_dependency.py --quick   # the small networks only

For each network, on R^n0, the stages of ``polyrelu graph`` are timed one by one (best of
``--repeat`` runs on fresh objects, so no cache is reused): the canonical complex, the tropical
weights, the breakpoint complex, ``candidate_hypersurfaces``, ``dependency_graph`` and
``depth_hierarchy``. Two ratios are printed against baselines run in the same process:

* ``f-side / complex``: the three function-side stages (candidates + graph + chain) over the
  canonical complex's build time: what reading the graph off ``f`` adds once the complex exists;
* ``f-side / param``: the same over ``parameter_dependency_graph`` on the already built complex
  (the ground truth read off the parameters: bent hypersurfaces and their bends).

Networks: the seed-0 Gaussian recipe of the benchmarks (``np.random.seed(0)``, then per layer ``W = randn(out, in)``,
``b = randn(out)``) for 2→8→8→1, 3→8→8→1 and 2→16→16→16→1, and ``generic_network`` (which passes
the four genericity conditions) for 2→6→6→6→1 and 3→4→4→4→1. For the generic ones the graph read
from ``f`` is checked against the parameter graph (exit status 1 if it differs).

``--widths-from-f COUNT`` instead reads the layer sizes off ``f`` for COUNT networks ``generic_network(arch,
seed=s)`` per depth 3 and 4, ``s = 100 depth + k`` (``n0 ∈ {2, 3}``, widths 2-6, one output; ``default_rng(s)``
draws ``arch``) and counts
how often they equal the true visible widths (neurons whose bent hypersurface has a facet), and how many
candidates of an earlier layer join several pieces.

Then the chain search of :mod:`polyrelu.graphs` alone on random layered DAGs (``--dag-layers``
layers of ``--dag-width`` vertices, each edge between consecutive layers present with probability
1/2, plus skip edges), against networkx's ``dag_longest_path`` on the subgraph of
consecutive-layer edges (the same answer by another implementation; its length is asserted equal).
"""

import argparse
import datetime
import platform
import sys
import time

import igraph
import networkx as nx
import numpy as np
from _timing import best_of

from polyrelu import (
    PolyReluError,
    breakpoint_complex,
    candidate_hypersurfaces,
    canonical_complex,
    dependency_graph,
    depth_hierarchy,
    parameter_dependency_graph,
    tropical_weights,
)
from polyrelu.examples import generic_network, seeded_gaussian_network
from polyrelu.graphs import longest_layered_chain
from polyrelu.tropical import bent_hypersurfaces


def stages(net, repeat):
    t_complex, K = best_of(repeat, lambda: canonical_complex(net))
    t_weights, W = best_of(repeat, lambda: tropical_weights(canonical_complex(net)))
    t_weights -= t_complex
    t_break, B = best_of(repeat, lambda: breakpoint_complex(W))
    t_cand, C = best_of(repeat, lambda: candidate_hypersurfaces(breakpoint_complex(W)))
    t_cand -= t_break
    t_graph, G = best_of(repeat, lambda: dependency_graph(B, C))
    t_chain, H = best_of(repeat, lambda: depth_hierarchy(G) if G.is_dag() else None)
    t_param, P = best_of(repeat, lambda: parameter_dependency_graph(net, complex_=canonical_complex(net)))
    t_param -= t_complex
    return dict(
        K=K, C=C, G=G, H=H, P=P, complex=t_complex, weights=t_weights, breakpoints=t_break,
        candidates=max(t_cand, 0.0), graph=t_graph, chain=t_chain, param=max(t_param, 1e-9),
    )


def dag_bench(layers, width, seed):
    rng = np.random.default_rng(seed)
    index = lambda l, i: l * width + i  # noqa: E731
    edges = set()
    for l in range(layers - 1):
        for i in range(width):
            for j in range(width):
                if rng.random() < 0.5:
                    edges.add((index(l, i), index(l + 1, j)))
                if l + 2 < layers and rng.random() < 0.1:
                    edges.add((index(l, i), index(l + 2, j)))
    g = igraph.Graph(n=layers * width, edges=sorted(edges), directed=True)
    g.vs["layer"] = [v // width + 1 for v in range(g.vcount())]
    t_ours, chain = best_of(3, lambda: longest_layered_chain(g))
    D = nx.DiGraph()
    D.add_nodes_from(range(g.vcount()))

    def networkx_chain():
        D.remove_edges_from(list(D.edges))
        D.add_edges_from((u, v) for u, v in edges if v // width == u // width + 1)
        return nx.dag_longest_path(D)

    t_nx, path = best_of(3, networkx_chain)
    assert len(chain) == len(path), (len(chain), len(path))
    return g.vcount(), g.ecount(), len(chain), t_ours, t_nx


def widths_from_f(count):
    print("| hidden layers | networks | layer sizes from f = visible widths | earlier-layer candidates joined from pieces | time |")
    print("|---|---|---|---|---|")
    for depth in (3, 4):
        right = joined = 0
        start = time.process_time()
        for k in range(count):
            seed = 100 * depth + k
            rng = np.random.default_rng(seed)
            arch = (int(rng.integers(2, 4)), *[int(rng.integers(2, 7)) for _ in range(depth)], 1)
            net = generic_network(arch, seed=seed)
            K = canonical_complex(net)
            try:
                G = dependency_graph(breakpoint_complex(tropical_weights(K)))
            except PolyReluError as error:  # counted as a wrong answer, and shown
                print(f"{arch} seed {seed}: {type(error).__name__}: {str(error)[:100]}", flush=True)
                continue
            B = bent_hypersurfaces(K)
            visible = tuple(sum(1 for (l, _), b in B.items() if b.facets and l == layer) for layer in range(1, depth + 1))
            right += G.is_dag() and G.layer_sizes() == visible
            joined += sum(1 for c in getattr(G, "candidates", ()) if len(getattr(c, "pieces", ())) > 1 and c.neuron
                          and c.neuron[0] < depth)
        print(f"| {depth} | {count} | {right} | {joined} | {time.process_time() - start:.0f} s |", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--dag-layers", type=int, default=40)
    parser.add_argument("--dag-width", type=int, default=50)
    parser.add_argument("--widths-from-f", type=int, default=None, metavar="COUNT")
    args = parser.parse_args(argv)
    print(f"# bench_dependency, {datetime.date.today()}, Python {platform.python_version()}, {platform.machine()}")
    if args.widths_from_f is not None:
        widths_from_f(args.widths_from_f)
        return 0
    nets = [seeded_gaussian_network((2, 8, 8, 1)), seeded_gaussian_network((3, 8, 8, 1)), generic_network((2, 6, 6, 6, 1), seed=0)]
    if not args.quick:
        nets += [seeded_gaussian_network((2, 16, 16, 16, 1)), generic_network((3, 4, 4, 4, 1), seed=0)]
    ok = True
    print("| network | cells | candidates (unresolved) | edges | layers | chain | complex | weights | "
          "breakpoints | candidates | graph | chain search | f-side / complex | f-side / param |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for net in nets:
        r = stages(net, args.repeat)
        G, C, H = r["G"], r["C"], r["H"]
        f_side = r["candidates"] + r["graph"] + r["chain"]
        if net.name.startswith("generic"):
            same = G.neuron_edges() == r["P"].neuron_edges() and H.lower_bound == net.architecture.depth
            ok &= same
        print(
            f"| {net.name} | {len(r['K'])} | {len(C)} ({len(C.unresolved)}) | {G.graph.ecount()} | "
            f"{G.layer_sizes() if G.is_dag() else 'cycle'} | {H.lower_bound if H else '-'} | "
            f"{r['complex']:.3f} s | {r['weights']:.3f} s | {r['breakpoints']:.3f} s | {r['candidates']:.4f} s | "
            f"{r['graph']:.4f} s | {r['chain']:.4f} s | {f_side / r['complex']:.2f} | {f_side / r['param']:.3f} |"
        )
    n, m, k, t_ours, t_nx = dag_bench(args.dag_layers, args.dag_width, seed=0)
    print(f"\nlayered chain on a random DAG ({n} vertices, {m} edges, chain {k}): polyrelu.graphs "
          f"{t_ours * 1e3:.1f} ms, networkx dag_longest_path on consecutive-layer edges {t_nx * 1e3:.1f} ms "
          f"(ratio {t_ours / t_nx:.2f})")
    if not ok:
        print("FAILED: a generic network's graph read from f differs from the parameter graph")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
