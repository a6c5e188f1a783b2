"""Command-line interface: ``polyrelu demo``, ``info``, ``complex``, ``weights``, ``graph``, ``analyze``, ``recover``, ``survey``.

``NET`` is a network file (.json, .npz, .pt, .pth) or a built-in example,
``builtin:bent-line``, ``builtin:generic-A-B-...`` (e.g. ``builtin:generic-2-3-3-2-1``,
:func:`~polyrelu.examples.generic_network` with seed 1) or ``builtin:randn-A-B-...``
(the seed-0 Gaussian benchmark recipe, :func:`~polyrelu.examples.seeded_gaussian_network`);
built-in networks have at most 1000 layers of width at most 4096 and 2,000,000 parameters.

Before any work, every option is checked: numbers, ``--domain``, and every
output path (``-o``, ``--json``, ``--graphml``, ``--plot``): its directory must
exist and be writable, it must not be a directory or the input file, and its
suffix must fit (``.json``; ``.json`` or ``.npz`` for ``recover -o``;
``.graphml``; ``.png``/``.svg``/``.pdf`` or none, which writes a PNG to
exactly that path). Outputs are written atomically: a failure or an
interrupt leaves the previous file as it was. Commands that build a
canonical complex (``complex``, ``weights``, ``graph``, ``analyze``) refuse
one estimated to exceed ``--max-cells`` (default 1,000,000); ``recover``
answers undecided instead.

Exit status: 0 success (``recover``: 1 when recovery fails); 1 an error in the
input or a limit (a malformed network file, a complex over ``--max-cells``);
2 a usage error (a bad option value or output path; argparse's errors too);
70 a bug in polyrelu (an exception that is not a
:class:`~polyrelu.errors.PolyReluError`); 130 interrupted (Ctrl-C); 143
terminated (``SIGTERM``); 141 when the reader of standard output goes away
(``polyrelu ... | head``). Every failure is one line on stderr,
``polyrelu: error: ...``; ``polyrelu --debug COMMAND ...`` adds the traceback.
"""

import argparse
import contextlib
import inspect
import os
import signal
import statistics
import sys
import threading
import time
import traceback
from fractions import Fraction

from ._version import __version__
from .analysis import analyze
from .atomic import check_output_path, write_json
from .complex import canonical_complex
from .dependency import dependency_graph, depth_hierarchy, parameter_dependency_graph
from .domain import Box
from .errors import (
    ComplexTooLargeError,
    InvalidNumberError,
    LimitExceededError,
    PolyReluError,
    UsageError,
)
from .examples import bent_line_network, generic_network, seeded_gaussian_network
from .genericity import genericity
from .geometry.rational import parse_number
from .identifiability import architecture_survey, identifiability_report
from .io import load_network, save_network
from .network import ReLUNetwork
from .plot import check_figure_path, plot_dependency_graph, save_figure
from .progress import progress_bar
from .recovery import network_oracle, recover_network
from .report import network_report, number_text, vector_text
from .symmetry import equivalent, permute, same_function, scale
from .tropical import bent_hypersurfaces, breakpoint_complex, tropical_weights

# matplotlib's backend is chosen where a picture is written (Agg: no display needed), not at import

__all__ = [
    "main",
    "load",
    "parse_domain",
    "survey_table",
    "RECOVERY_OUTCOMES",
    "recovery_outcome",
    "survey_architectures",
    "recovery_survey",
    "recovery_survey_table",
]

# Built-in names are typed, not read from a file: absurd sizes are refused before anything is allocated.
_BUILTIN_MAX_WIDTH = 4096
_BUILTIN_MAX_LAYERS = 1000
_BUILTIN_MAX_PARAMETERS = 2_000_000
_DEFAULT_MAX_CELLS = inspect.signature(canonical_complex).parameters["max_cells"].default
_NETWORK_SUFFIXES = (".json", ".npz")  # what save_network writes
_SURVEY_MAX_SECONDS = 60.0  # per network: a survey of a few hundred networks ends within hours at worst


def _demo():
    net = bent_line_network()
    print(f"polyrelu {__version__} demo: the worked example f(x) = relu(relu(x1) + relu(x2) - 1)\n")
    print(network_report(net))
    print()
    twin = permute(scale(net, [[3, "1/2"], [5]]), [[1, 0], [0]])
    theta = list(net.parameters())
    theta[-1] += Fraction(1, 1000)
    perturbed = type(net).from_parameters(net.architecture, theta)
    x = [Fraction(3, 2), Fraction(1, 3)]
    print("trivial symmetries")
    print(f"  permuted + rescaled copy: f{vector_text(x)} = {vector_text(twin(x))} (original {vector_text(net(x))}), "
          f"equivalent: {equivalent(net, twin)}")
    print(f"  output bias + 1/1000:     equivalent: {equivalent(net, perturbed)}")
    print()
    K = canonical_complex(net)
    region = K.locate(x)
    vertices, rays, _ = region.polyhedron.vertices_rays_lines()
    A, c = K.affine_map(region)
    print(f"the cell of x = {vector_text(x)}: sign vector {region.sign_string}, dimension {region.dimension}")
    print(f"  vertices {[vector_text(v) for v in vertices]}, rays {list(rays)}")
    print(f"  f = {vector_text(A[0])}·x + {number_text(c[0])} there; relative interior point {vector_text(region.relative_interior_point())}")
    print()
    print(f"canonical polyhedral complex on R^2: f-vector {K.f_vector()}, "
          f"Euler characteristic {K.euler_characteristic()} (must be (-1)^2 = 1)")
    bent = K.bent_hypersurface(2, 0)
    pieces = [c for c in bent if c.dimension == 1]
    print(f"  bent hypersurface of neuron (2, 0): {len(pieces)} pieces")
    for c in pieces:
        v, r, _ = c.polyhedron.vertices_rays_lines()
        print(f"    signs {c.sign_string}: vertices {[vector_text(p) for p in v]}, rays {list(r)}")
    weights = tropical_weights(K)
    print("  facet weights (exact, relative to the primitive normal; Euclidean in brackets):")
    for c in K.cells(1):
        w = weights.weight(c)
        print(f"    signs {c.sign_string}: normal {w.normal}, weight {number_text(w.weight[0])} "
              f"[{w.euclidean_weight[0]:.4f}], neurons {list(w.neurons)}")
    balanced = all(not any(v for row in weights.balancing_defect(t) for v in row) for t in K.cells(0))
    print(f"  balancing at every vertex: {'exact zero' if balanced else 'FAILS'}")
    breakpoints = breakpoint_complex(weights)
    print(f"  breakpoint complex (f alone): f-vector {breakpoints.f_vector()}, "
          f"Euler characteristic {breakpoints.euler_characteristic()}")
    print("genericity (docs/design.md §4):")
    for line in str(genericity(K, weighted=weights)).splitlines():
        print(f"  {line}")
    boxed = canonical_complex(net, Box(-2, 2))
    print(f"  on the box [-2, 2]^2: f-vector {boxed.f_vector()}, Euler characteristic {boxed.euler_characteristic()}")
    _demo_dependency(breakpoints)


def _demo_dependency(breakpoints):
    G = dependency_graph(breakpoints)
    print("\ndependency graph from f alone (docs/design.md §5):")
    print(f"  worked example: {len(G)} candidate pieces, {len(G.candidates.unresolved)} unresolved junctions "
          f"(at {', '.join(vector_text(breakpoints.closure(u.cell).vertices()[0]) for u in G.candidates.unresolved)}):")
    print("  " + str(depth_hierarchy(G)).replace("\n", "\n  "))
    net = generic_network((2, 3, 3, 2, 1), seed=1)
    K = canonical_complex(net)
    G = dependency_graph(breakpoint_complex(tropical_weights(K)))
    truth = parameter_dependency_graph(net, complex_=K)
    print(f"  {net.name}: genericity holds: {genericity(K).holds}; {len(G)} candidates, "
          f"{G.graph.ecount()} edges, layers {G.layer_sizes()}")
    print(f"  same graph as read off the parameters: {G.neuron_edges() == truth.neuron_edges()}")
    print("  " + str(depth_hierarchy(G)).replace("\n", "\n  "))


def parse_domain(text):
    """Parse ``box:LO,HI`` (or ``box:LO1,HI1;LO2,HI2;...`` per coordinate) into a :class:`Box`.

    Raises
    ------
    UsageError
        Not of that form, a bound that is not a number (or has too many
        digits), or a lower bound not below its upper bound.

    Examples
    --------
    >>> parse_domain("box:-10,10")
    Box(lower=Fraction(-10, 1), upper=Fraction(10, 1))
    >>> parse_domain("box:1,0")
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: --domain 'box:1,0': lower[0] = 1 is not below upper[0] = 0; write box:LO,HI with LO < HI, e.g. box:-10,10
    """
    kind, _, spec = text.partition(":")
    if kind != "box" or not spec:
        raise UsageError(f"--domain {text!r}: expected box:LO,HI or box:LO1,HI1;LO2,HI2;... (e.g. box:-10,10)")
    pairs = []
    for i, part in enumerate(spec.split(";")):
        bounds = part.split(",")
        if len(bounds) != 2:
            raise UsageError(f"--domain {text!r}: each coordinate needs LO,HI (e.g. box:-1,1;0,2 in two dimensions)")
        try:
            lo, hi = (parse_number(v, f"--domain {text!r}") for v in bounds)
        except (InvalidNumberError, LimitExceededError) as exc:
            raise UsageError(f"{exc}; the bounds must be numbers such as -10, 1/2 or 0.25") from None
        if lo >= hi:
            raise UsageError(
                f"--domain {text!r}: lower[{i}] = {lo} is not below upper[{i}] = {hi}; write box:LO,HI with LO < HI, e.g. box:-10,10"
            )
        pairs.append((lo, hi))
    if len(pairs) == 1:
        return Box(*pairs[0])
    return Box([p[0] for p in pairs], [p[1] for p in pairs])


def _domain(args, net):
    """The ``--domain`` of ``args`` for ``net`` (None for all of ``R^n0``); a per-coordinate box must fit ``n0``."""
    if not args.domain:
        return None
    box = parse_domain(args.domain)
    n0 = net.architecture.input_dim
    if isinstance(box.lower, list) and len(box.lower) != n0:
        raise UsageError(
            f"--domain {args.domain!r} bounds {len(box.lower)} coordinates; the network has {n0} inputs "
            "(give one LO,HI for all, or one per input)"
        )
    return box


def _complex_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = _domain(args, net)
    n0 = net.architecture.input_dim
    # flushed before the work starts: the user sees what is being computed
    print(f"network           {args.network}  ({net.architecture})")
    print(f"domain            {args.domain or f'R^{n0}'}", flush=True)
    start = time.perf_counter()
    K = canonical_complex(net, domain, max_cells=args.max_cells, progress=None)
    elapsed = time.perf_counter() - start
    expected = 1 if domain is not None else (-1) ** n0
    print(f"f-vector          {K.f_vector()}  ({len(K)} cells, {len(K.regions())} regions)")
    print(f"Euler char.       {K.euler_characteristic()}  (expected {expected})")
    print(f"time              {elapsed:.3f} s")
    if args.output:
        K.write_json(args.output)
        print(f"written           {args.output}")


def _weights_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = _domain(args, net)
    print(f"network           {args.network}  ({net.architecture})", flush=True)
    K = canonical_complex(net, domain, max_cells=args.max_cells)
    W = tropical_weights(K)
    B = bent_hypersurfaces(K, W)
    print(f"f-vector          {K.f_vector()}")
    print("neuron     facets  visible  bends  Euclidean weights of its facets (floats for display; exact in the API)")
    for (layer, index), b in B.items():
        ws = [W.weight(f) for f in b.facets if f in W.weights()]
        visible = sum(1 for w in ws if any(w.weight))
        shown = sorted({", ".join(f"{v:.4g}" for v in w.euclidean_weight) for w in ws})
        print(f"({layer}, {index})  {len(b.facets):>9}  {visible:>7}  {len(b.bends):>5}  {'; '.join(shown) or '-'}")
    print(genericity(K, weighted=W, hypersurfaces=B))
    if args.output:
        write_json(args.output, lambda: W.to_json(B))
        print(f"written           {args.output}")


def load(spec, *, trust_pickle=False):
    """A network from a file or a built-in example name (``builtin:bent-line``, ``builtin:generic-2-3-1``, ``builtin:randn-2-8-8-1``).

    Raises
    ------
    UsageError
        An unknown built-in name, or a built-in network over 4096 wide, 1000
        layers deep or 2,000,000 parameters (refused before anything is allocated).
    NetworkFormatError
        See :func:`~polyrelu.io.load_network`; ``trust_pickle`` is passed on to it.

    Examples
    --------
    >>> load("builtin:generic-2-3-2-1").architecture.widths
    (2, 3, 2, 1)
    >>> load("builtin:randn-2-8-8-1").name
    'seed-0 randn 2→8→8→1'
    >>> load("builtin:randn-2-100000-1")
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: builtin:randn-2-100000-1: width 100000 is over 4096, the largest a built-in network may have; save a network file to go beyond
    """
    if not spec.startswith("builtin:"):
        return load_network(spec, trust_pickle=trust_pickle)
    name = spec.partition(":")[2]
    if name == "bent-line":
        return bent_line_network()
    kind, _, rest = name.partition("-")
    parts = rest.split("-")
    if kind in ("generic", "randn") and len(parts) >= 2 and all(p.isascii() and p.isdigit() and len(p) < 10 for p in parts):
        widths = tuple(int(p) for p in parts)
        _check_architecture(widths, spec)
        if kind == "randn":
            return seeded_gaussian_network(widths)
        try:
            return generic_network(widths, seed=1)
        except ComplexTooLargeError as exc:  # raised while checking genericity: --max-cells does not reach there
            raise UsageError(
                f"{spec}: too large for a built-in generic network, whose genericity is checked on its complex ({exc}); "
                f"choose smaller widths, or builtin:randn-{rest}"
            ) from None
    raise UsageError(
        f"unknown built-in network {spec!r}: use builtin:bent-line, builtin:generic-2-3-2-1 or builtin:randn-2-8-8-1 "
        "(widths are positive integers joined by '-', input first)"
    )


def _check_architecture(widths, what):
    """Refuse widths outside ``1 .. 4096``, over 1000 layers or 2,000,000 parameters, before anything is allocated."""
    if len(widths) - 1 > _BUILTIN_MAX_LAYERS:
        raise UsageError(f"{what}: {len(widths) - 1} layers, over {_BUILTIN_MAX_LAYERS} for a built-in network")
    for w in widths:
        if w < 1:
            raise UsageError(f"{what}: width {w}; every width must be at least 1")
        if w > _BUILTIN_MAX_WIDTH:
            raise UsageError(
                f"{what}: width {w} is over {_BUILTIN_MAX_WIDTH}, the largest a built-in network may have; "
                "save a network file to go beyond"
            )
    parameters = sum((a + 1) * b for a, b in zip(widths, widths[1:]))
    if parameters > _BUILTIN_MAX_PARAMETERS:
        raise UsageError(
            f"{what}: {parameters:,} parameters, over {_BUILTIN_MAX_PARAMETERS:,} for a built-in network; "
            "save a network file to go beyond"
        )


def _analyze_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = _domain(args, net)
    n0 = net.architecture.input_dim
    if args.plot and n0 not in (2, 3):
        raise UsageError(f"--plot draws networks with 2 or 3 inputs (3: the slice x3 = 0); this one has {n0}")
    result = analyze(net, domain, inradius=not args.no_inradius, max_cells=args.max_cells)
    print(result)
    if args.json:
        result.write_json(args.json)
        print(f"written             {args.json}")
    if args.plot:
        result.plot(args.plot)
        print(f"written             {args.plot}")


def _recover_command(args):
    net = load(args.source, trust_pickle=args.trust_pickle)
    domain = parse_domain(args.domain) if args.domain else None
    # the network is only wrapped in a black box: recovery sees function values, nothing else
    oracle = network_oracle(net, float_output=args.float)
    result = recover_network(
        oracle, net.architecture.input_dim, domain=domain, max_queries=args.max_queries, seed=args.seed,
        float_oracle=args.float, tolerance=args.tolerance, max_seconds=args.max_seconds, max_cells=args.max_cells,
    )
    print(result)
    print(f"  original           {net.architecture}")
    if result.network is not None:
        if args.float:
            print(f"  same function      within {result.max_deviation:.3g} on the fresh points (float oracle)")
        else:
            print(f"  trivially equivalent to the original: {'yes' if equivalent(result.network, net) else 'no'}")
            print(f"  same function as the original:        {'yes' if same_function(result.network, net, domain) else 'no'}")
        if args.output:
            save_network(result.network, args.output)
            print(f"written             {args.output}")
    return 0 if result else 1


def survey_table(input_dim, depths, widths, samples, seed=0, results=None):
    """A markdown table over depth × width: % generic / % rank D − H / % identifiable by the theorem.

    Each cell surveys the architecture ``(n0, w, ..., w, 1)`` with ``depth``
    hidden layers of width ``w`` (:func:`~polyrelu.identifiability.architecture_survey`);
    ``results`` maps ``(depth, w)`` to surveys already made.
    """
    if results is None:
        results = {(d, w): architecture_survey((input_dim, *[w] * d, 1), samples, seed) for d in depths for w in widths}
    lines = ["| hidden layers \\ width | " + " | ".join(str(w) for w in widths) + " |",
             "|---" * (len(widths) + 1) + "|"]
    for depth in depths:
        lines.append(f"| {depth} | " + " | ".join(results[depth, w].row() for w in widths) + " |")
    return "\n".join(lines)


RECOVERY_OUTCOMES = ("trivially equivalent", "same function", "undecided", "DIFFERENT FUNCTION")


def recovery_outcome(original, result):
    """How a recovery ``result`` compares with the ``original`` network behind its oracle, decided exactly.

    One of :data:`RECOVERY_OUTCOMES`: ``"undecided"`` when nothing was
    recovered; ``"trivially equivalent"`` when the recovered network is the
    original up to permutations and positive scalings of hidden neurons
    (:func:`~polyrelu.symmetry.equivalent`); ``"same function"`` when it is
    not, but :func:`~polyrelu.symmetry.same_function` proves both compute the
    same function on all of ``R^n0``; else ``"DIFFERENT FUNCTION"``, a bug in
    recovery (a recovered network must compute the oracle's function).

    Examples
    --------
    >>> from polyrelu.examples import generic_network
    >>> net = generic_network((2, 3, 2, 1), seed=1)
    >>> recovery_outcome(net, recover_network(network_oracle(net), 2))
    'trivially equivalent'
    """
    if result.network is None:
        return "undecided"
    if equivalent(result.network, original):
        return "trivially equivalent"
    return "same function" if same_function(result.network, original) else "DIFFERENT FUNCTION"


def survey_architectures(input_dim, depths, widths):
    """The surveyed architectures ``(n0, w, ..., w, 1)``, depth by depth, then width by width."""
    return [(input_dim, *[w] * depth, 1) for depth in depths for w in widths]


def recovery_survey(architectures, samples, seed=0, max_seconds=60.0, progress=None):
    """Per random network: its identifiability verdict and how recovery from its values alone compares.

    For each architecture and ``k < samples``, the network
    ``ReLUNetwork.random(arch, seed=seed + k, kind="gaussian")`` (standard
    normal weights and biases, the draws of
    :func:`~polyrelu.identifiability.architecture_survey`) gets
    :func:`~polyrelu.identifiability.identifiability_report` and
    ``recover_network(network_oracle(net), n0, seed=seed + k, max_seconds=max_seconds)``,
    compared with it by :func:`recovery_outcome`. Every record depends only on
    the architecture, the seed and the time budget (a run near the budget may
    end either way), so a cell can be rerun alone.

    Returns
    -------
    list of dict
        One JSON-ready record per network, in survey order.
    """
    records = []
    with progress_bar(total=len(architectures) * samples, desc="networks", unit="net", enabled=progress) as bar:
        for arch in architectures:
            for k in range(samples):
                s = seed + k
                net = ReLUNetwork.random(arch, seed=s, kind="gaussian")
                report = identifiability_report(net)
                result = recover_network(network_oracle(net), arch[0], seed=s, max_seconds=max_seconds, progress=False)
                records.append({
                    "architecture": list(arch),
                    "seed": s,
                    "verdict": report.verdict,
                    "generic": report.genericity.holds,
                    "rank": report.functional_dimension.rank,
                    "bound": report.functional_dimension.bound,
                    "recovery": recovery_outcome(net, result),
                    "queries": result.queries,
                    "seconds": round(result.elapsed, 3),
                    "recovered_widths": list(result.layer_widths),
                    "reason": result.reason,
                })
                bar.update()
    return records


def recovery_survey_table(records):
    """A markdown table, one row per architecture: networks per identifiability verdict, then per recovery outcome.

    The verdict columns are the verdicts the records hold (sorted), so a new
    verdict shows up as a new column; the recovery columns are
    :data:`RECOVERY_OUTCOMES`, always all four.
    """
    verdicts = sorted({r["verdict"] for r in records})
    rows = {}
    for r in records:
        rows.setdefault(tuple(r["architecture"]), []).append(r)
    lines = [
        "| architecture | networks | " + " | ".join(verdicts) + " | "
        + " | ".join(f"recovery: {o}" for o in RECOVERY_OUTCOMES) + " | recovery time, median / max |",
        "|---" * (len(verdicts) + len(RECOVERY_OUTCOMES) + 3) + "|",
    ]
    for arch, group in rows.items():
        counts = [sum(r["verdict"] == v for r in group) for v in verdicts]
        counts += [sum(r["recovery"] == o for r in group) for o in RECOVERY_OUTCOMES]
        times = sorted(r["seconds"] for r in group)
        shown = [str(c) for c in counts]
        if counts[-1]:
            shown[-1] = f"**{counts[-1]}**"
        lines.append(f"| {'→'.join(map(str, arch))} | {len(group)} | " + " | ".join(shown)
                     + f" | {statistics.median(times):.1f} s / {times[-1]:.1f} s |")
    return "\n".join(lines)


def _survey_command(args):
    architectures = survey_architectures(args.input, args.depths, args.widths)
    draws = (f"ReLUNetwork.random(arch, seed=s, kind=\"gaussian\") for s = {args.seed}..{args.seed + args.samples - 1}: "
             f"standard normal weights and biases, {args.samples} per architecture")
    parameters = {"input": args.input, "depths": args.depths, "widths": args.widths, "samples": args.samples,
                  "seed": args.seed, "recovery": args.recovery}
    if not args.recovery:
        print(f"{draws}; input width {args.input}, output width 1; each cell: % generic (the four conditions hold) / "
              "% functional dimension D - H / % identifiable by the identifiability theorem\n")
        results = {}
        for arch in progress_bar(architectures, desc="architectures", unit="arch"):
            results[len(arch) - 2, arch[1]] = architecture_survey(arch, args.samples, args.seed)
        print(survey_table(args.input, args.depths, args.widths, args.samples, args.seed, results))
        if args.output:
            write_json(args.output, lambda: {
                "format": "polyrelu.survey", "version": 1, "parameters": parameters,
                "architectures": [{"architecture": list(r.architecture.widths), "samples": r.samples, "generic": r.generic,
                                   "full_rank": r.full_rank, "identifiable": r.identifiable, "ranks": list(r.ranks)}
                                  for r in results.values()],
            }, indent=1)
            print(f"\nwritten  {args.output}")
        return 0
    max_seconds = args.max_seconds or _SURVEY_MAX_SECONDS
    parameters["max_seconds"] = max_seconds
    print(f"{draws}; each recovered from its values alone (recover_network(network_oracle(net), n0, seed=s, "
          f"max_seconds={max_seconds:g})) and compared with it exactly\n")
    records = recovery_survey(architectures, args.samples, args.seed, max_seconds)
    print(recovery_survey_table(records))
    if args.output:
        write_json(args.output, lambda: {"format": "polyrelu.survey", "version": 1, "parameters": parameters,
                                         "networks": records}, indent=1)
        print(f"\nwritten  {args.output}")
    wrong = [r for r in records if r["recovery"] == "DIFFERENT FUNCTION"]
    if wrong:
        print(f"\n**{len(wrong)} RECOVERED NETWORKS COMPUTE A DIFFERENT FUNCTION** (a bug in recovery): "
              + ", ".join(f"{'→'.join(map(str, r['architecture']))} seed {r['seed']}" for r in wrong))
        return _fail(f"error: {len(wrong)} recovered networks compute a different function from the network behind "
                     "the oracle: a bug in polyrelu; please report it with the architectures and seeds above", 70, False)
    return 0


def _graph_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = _domain(args, net)
    print(f"network           {args.network}  ({net.architecture})", flush=True)
    start = time.perf_counter()
    K = canonical_complex(net, domain, max_cells=args.max_cells)
    W = tropical_weights(K)
    G = dependency_graph(breakpoint_complex(W))
    elapsed = time.perf_counter() - start
    C = G.candidates
    print(f"candidates        {len(C)} candidate bent hypersurfaces from f alone "
          f"({sum(1 for c in C if c.hyperplane is not None)} flat), {len(C.crossings)} crossings")
    for u in C.unresolved:
        print(f"  unresolved cell {u.cell}: {u.reason} (facets {list(u.facets)})")
    print(f"edges             {G.graph.ecount()} (B' → B where B bends crossing B')")
    if not G.is_dag():
        print("layers            undefined: the bending relation has a cycle")
    else:
        print(f"layers            {G.layer_sizes()} vertices per inferred layer")
        print("vertex  layer  facets  neuron    bends along")
        neurons = G.neurons()
        for v, l in enumerate(G.layers()):
            along = sorted(e.source for e in G.graph.es.select(_target=v))
            z = neurons[v]
            print(f"{v:>6}  {l:>5}  {len(C[v].facets):>6}  {str(z) if z else '-':<8}  {along or '-'}")
        truth = parameter_dependency_graph(net, domain, complex_=K)
        if all(z is not None for z in neurons.values()):
            same_edges = G.neuron_edges() == truth.neuron_edges()
            lower = sum(1 for z, l in zip(neurons.values(), G.layers()) if z[0] != l)
            split = len(neurons) - len(set(neurons.values()))
            if same_edges and not lower and not split:
                verdict = "equal (same edges between neurons, same layers)"
            elif same_edges:
                verdict = (f"same edges between neurons once the extra pieces of disconnected hypersurfaces ({split}) "
                           f"are merged; pieces in a lower layer than their neuron: {lower}")
            else:
                verdict = "DIFFERENT edges between neurons"
            print(f"parameter graph   {verdict}")
        print(depth_hierarchy(G))
    print(f"time              {elapsed:.3f} s")
    if args.json:
        G.write_json(args.json)
        print(f"written           {args.json}")
    if args.graphml:
        G.write_graphml(args.graphml)
        print(f"written           {args.graphml}")
    if args.plot:
        import matplotlib

        matplotlib.use("Agg")
        save_figure(plot_dependency_graph(G, title=f"dependency graph of {net.name or args.network}"), args.plot)
        print(f"written           {args.plot}")


def main(argv=None):
    """Run the ``polyrelu`` command and return its exit status (see the module docstring).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 success; 1 an input error or a limit; 2 a usage error; 70 a bug in
        polyrelu; 130 interrupted; 143 terminated; 141 a closed pipe on
        stdout. Failures print one line on
        stderr (with ``--debug``, the traceback first). Nothing is raised.

    Examples
    --------
    >>> main(["complex", "builtin:bent-line", "--domain", "box:1,0"])
    2
    """
    parser = _Parser(prog="polyrelu", description="Exact polyhedral geometry of ReLU networks.")
    parser.add_argument("--version", action="version", version=f"polyrelu {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an error (give it before the command)")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="report on the built-in example network")
    info = sub.add_parser("info", help="architecture, parameter counts and canonical form of a network file")
    _add_trust_pickle(info)
    info.add_argument("network", help="a .json, .npz, .pt or .pth network file")
    cx = sub.add_parser("complex", help="the canonical polyhedral complex: f-vector, Euler characteristic, JSON")
    _add_trust_pickle(cx)
    cx.add_argument("network", help="a .json, .npz, .pt or .pth network file")
    cx.add_argument("--domain", help="box:LO,HI (default: all of R^n0)")
    cx.add_argument("-o", "--output", help="write the complex as JSON here")
    _add_max_cells(cx)
    wt = sub.add_parser("weights", help="tropical weights per neuron and the genericity verdict")
    _add_trust_pickle(wt)
    wt.add_argument("network", help="a .json, .npz, .pt or .pth network file")
    wt.add_argument("--domain", help="box:LO,HI (default: all of R^n0)")
    wt.add_argument("-o", "--output", help="write the complex with weights and bent hypersurfaces as JSON here")
    _add_max_cells(wt)
    gr = sub.add_parser("graph", help="candidate hypersurfaces, dependency graph, layers and depth lower bound")
    _add_trust_pickle(gr)
    gr.add_argument("network", help="a .json, .npz, .pt or .pth network file")
    gr.add_argument("--domain", help="box:LO,HI (default: all of R^n0)")
    gr.add_argument("--json", help="write the graph as JSON here")
    gr.add_argument("--graphml", help="write the graph as GraphML (typed attributes) here")
    gr.add_argument("--plot", help="draw the graph by layers into this image file")
    _add_max_cells(gr)
    an = sub.add_parser("analyze", help="one report: complex, weights, genericity, graph, functional dimension, verdicts")
    _add_trust_pickle(an)
    an.add_argument("network", help="a network file, or builtin:bent-line / builtin:generic-2-3-3-2-1")
    an.add_argument("--domain", help="box:LO,HI (default: all of R^n0)")
    _add_max_cells(an)
    an.add_argument("--json", help="write the analysis as JSON here")
    an.add_argument("--plot", help="draw the complex (2-D, or the slice x3 = 0 in 3-D) into this image file")
    an.add_argument("--no-inradius", action="store_true", help="skip the cvxpy conditioning diagnostic")
    rc = sub.add_parser("recover", help="rebuild the network from function values alone (a black-box oracle)")
    _add_trust_pickle(rc)
    rc.add_argument("--from", dest="source", required=True, help="the network behind the oracle: a file or builtin:generic-2-3-2-1")
    rc.add_argument("-o", "--output", help="write the recovered network as JSON here")
    rc.add_argument("--domain", help="box:LO,HI (default: all of R^n0)")
    rc.add_argument("--float", action="store_true", help="float oracle: the network evaluated in floats (needs --domain; deviation reported)")
    rc.add_argument("--tolerance", type=float, metavar="T",
                    help="with --float: relative tolerance; recovered only if max |f - g| <= T·max(1, max |f|) on fresh "
                         "points (default: from the oracle's floats, 1e-9 for float64)")
    rc.add_argument("--max-queries", type=int, default=1_000_000, metavar="N",
                    help="ask the oracle at most N distinct points, then answer undecided (default 1,000,000)")
    rc.add_argument("--max-seconds", type=float, metavar="S", help="wall-clock budget: after S seconds answer undecided (default: none)")
    rc.add_argument("--max-cells", type=int, default=1_000_000, metavar="N",
                    help="answer undecided when a complex recovery builds would have more than N cells (default 1,000,000)")
    rc.add_argument("--seed", type=int, default=0, help="seed of the random search lines and check points (default 0)")
    sv = sub.add_parser("survey", help="over random parameters: %% generic, %% rank D - H, %% identifiable (depth × width)")
    sv.add_argument("--input", type=int, default=2, help="input width n0 (default 2)")
    sv.add_argument("--depths", default="1,2,3", type=_positive_list, help="numbers of hidden layers, e.g. 1,2,3")
    sv.add_argument("--widths", default="2,3,4", type=_positive_list, help="hidden widths, e.g. 2,3,4")
    sv.add_argument("--samples", type=int, default=20, metavar="N", help="random networks per architecture (default 20)")
    sv.add_argument("--seed", type=int, default=0, metavar="S",
                    help="the networks of each architecture have seeds S, S+1, ... (default 0)")
    sv.add_argument("--recovery", action="store_true",
                    help="per architecture: networks per identifiability verdict, and each network recovered from its "
                         "values alone, compared with it (minutes)")
    sv.add_argument("--max-seconds", type=float, metavar="S",
                    help=f"with --recovery: time budget of each recovery, after which it answers undecided "
                         f"(default {_SURVEY_MAX_SECONDS:g})")
    sv.add_argument("-o", "--output", help="write the raw records (per network with --recovery) as JSON here")
    debug = False
    with _terminate_as_interrupt():
        try:
            args = parser.parse_args(argv)
            debug = args.debug
            _check_arguments(args)
            start = time.perf_counter()
            status = _COMMANDS[args.command](args) or 0
            print(f"\n({time.perf_counter() - start:.2f} s)")
            return status
        except SystemExit as exc:  # --help and --version
            return exc.code if isinstance(exc.code, int) else 0
        except _Terminated:
            return _fail("terminated", 143, debug)
        except KeyboardInterrupt:
            return _fail("interrupted", 130, debug)
        except ComplexTooLargeError as exc:
            message = f"error: {exc}"
            if hasattr(args, "max_cells"):  # the command has the option: say how to use it
                larger = f"--max-cells {exc.estimate + exc.margin}" if exc.estimate else "a larger --max-cells"
                message += f" (on the command line: {larger}, or a bounded --domain box:LO,HI)"
            return _fail(message, 1, debug)
        except UsageError as exc:
            return _fail(f"error: {exc}", 2, debug)
        except PolyReluError as exc:
            return _fail(f"error: {exc}", 1, debug)
        except BrokenPipeError:  # the reader of stdout went away (`polyrelu ... | head`): nothing to say
            _silence_stdout()
            return 141
        except OSError as exc:  # the operating system refused: a full disk, a vanished directory
            return _fail(f"error: {exc}", 1, debug)
        except Exception as exc:
            return _fail(
                f"internal error: {type(exc).__name__}: {exc} — a bug in polyrelu, not in your input; "
                "rerun with --debug (polyrelu --debug ...) to see the traceback and please report it",
                70,
                debug,
            )


_COMMANDS = {
    "demo": lambda args: _demo(),
    "info": lambda args: print(network_report(load(args.network, trust_pickle=args.trust_pickle))),
    "complex": _complex_command,
    "weights": _weights_command,
    "graph": _graph_command,
    "analyze": _analyze_command,
    "recover": _recover_command,
    "survey": _survey_command,
}


class _Parser(argparse.ArgumentParser):
    """argparse with its errors raised as :class:`UsageError` (one line, exit 2), not printed with the usage."""

    def error(self, message):
        raise UsageError(f"{message} (see {self.prog} --help)")


def _add_trust_pickle(parser):
    parser.add_argument(
        "--trust-pickle", action="store_true",
        help="open a .pt/.pth file that needs full unpickling (a whole saved model): this RUNS CODE from the file; "
        "only for files you made yourself",
    )


def _add_max_cells(parser):
    parser.add_argument(
        "--max-cells", type=int, default=_DEFAULT_MAX_CELLS, metavar="N",
        help=f"refuse a canonical complex estimated to have more cells (default {_DEFAULT_MAX_CELLS:,})",
    )


def _positive_list(text):
    """``"1,2,3"`` as ``[1, 2, 3]``: positive integers joined by commas (an argparse ``type``)."""
    parts = text.split(",")
    if not all(p.strip().isascii() and p.strip().isdigit() and len(p.strip()) < 10 and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive integers joined by commas, e.g. 1,2,3")
    return [int(p) for p in parts]


def _check_arguments(args):
    """Every option checked before any work: numbers, the domain, and the output paths.

    Output paths are checked before the network is loaded, so that a typo in
    ``-o`` costs milliseconds, not the computation.
    """
    for dest, lowest in (("max_cells", 1), ("max_queries", 1), ("samples", 1), ("input", 1), ("seed", 0)):
        value = getattr(args, dest, None)
        if value is not None and value < lowest:
            wanted = "a positive integer" if lowest else "an integer >= 0"
            raise UsageError(f"--{dest.replace('_', '-')} {value}: must be {wanted}")
    if args.command == "survey":  # the deepest and widest architecture is the largest
        deepest, widest = max(args.depths), max(args.widths)
        if deepest > _BUILTIN_MAX_LAYERS:
            raise UsageError(f"--depths: {deepest} hidden layers, over {_BUILTIN_MAX_LAYERS}; survey shallower networks")
        _check_architecture((args.input, *[widest] * deepest, 1), f"survey architecture {args.input}-{widest}^{deepest}-1")
        if args.recovery and args.input < 2:
            raise UsageError(f"--recovery needs --input 2 or more: on a line ({args.input} input) breakpoints cannot be "
                             "attributed to layers")
        if args.max_seconds is not None and not args.recovery:
            raise UsageError("--max-seconds is the time budget of each recovery: add --recovery")
    for dest in ("tolerance", "max_seconds"):
        value = getattr(args, dest, None)
        if value is not None and not 0 < value < float("inf"):
            raise UsageError(f"--{dest.replace('_', '-')} {value}: must be a positive number")
    if getattr(args, "tolerance", None) is not None and not args.float:
        raise UsageError("--tolerance applies to the float oracle: add --float (exact recovery compares exactly)")
    if getattr(args, "domain", None):
        parse_domain(args.domain)
    elif getattr(args, "float", False):
        raise UsageError("--float needs a bounded domain: add --domain box:LO,HI (e.g. box:-8,8)")
    sources = (getattr(args, "network", None), getattr(args, "source", None))
    inputs = [spec for spec in sources if spec and not spec.startswith("builtin:")]
    outputs = (
        ("output", _NETWORK_SUFFIXES if args.command == "recover" else (".json",)),
        ("json", (".json",)),
        ("graphml", (".graphml",)),
    )
    for dest, suffixes in outputs:
        path = getattr(args, dest, None)
        if path is not None:
            check_output_path(path, suffixes=suffixes, inputs=inputs)
    if getattr(args, "plot", None) is not None:
        check_figure_path(args.plot, inputs=inputs)


class _Terminated(KeyboardInterrupt):
    """``SIGTERM``, raised like Ctrl-C so that the same cleanup runs (atomic writes remove their temporary files)."""


def _raise_terminated(signum, frame):
    raise _Terminated


@contextlib.contextmanager
def _terminate_as_interrupt():
    """Within the block, ``SIGTERM`` raises :class:`_Terminated`; the previous handler is restored after."""
    if threading.current_thread() is not threading.main_thread():
        yield  # only the main thread may set signal handlers; SIGTERM keeps its default there
        return
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous if previous is not None else signal.SIG_DFL)


def _fail(message, status, debug):
    """Print ``polyrelu: <message>`` as one line on stderr (after the traceback with ``--debug``); return ``status``."""
    if debug:
        traceback.print_exc()
    print("polyrelu: " + " ".join(message.split()), file=sys.stderr)
    return status


def _silence_stdout():
    """Point stdout at the null device, so that flushing at exit does not fail again on the closed pipe."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


if __name__ == "__main__":
    sys.exit(main())
