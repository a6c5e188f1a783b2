"""The ``polyrelu`` command: ``demo``, ``builtins``, ``info``, ``complex``, ``slice``, ``decision``, ``weights``, ``graph``, ``analyze``, ``recover``, ``survey``.

One grammar for every command (docs/cli.md)::

    polyrelu [--quiet] [--debug] COMMAND [NET] [options] [-o FILE] [--plot FILE]

- ``NET``, the first argument, is a network file (.json, .npz, .pt, .pth)
  or a built-in name (``builtin:bent-line``, ``builtin:generic-2-3-3-2-1``,
  ...; ``polyrelu builtins`` lists them, :mod:`polyrelu.cli.builtins`).
- ``-o FILE`` / ``--output FILE`` writes the command's main result (JSON;
  a network file for ``demo``, ``info`` and ``recover``: .json or .npz),
  ``--plot FILE`` a figure (.png, .svg, .pdf; no suffix: a PNG at exactly that
  path), ``graph --graphml FILE`` the graph as GraphML. ``--json`` (``graph``,
  ``analyze``) and ``recover --from NET`` are the old spellings, still accepted.
- Results go to stdout; progress bars, and the time a command took, go to
  stderr when it is a terminal; ``-q`` / ``--quiet`` prints nothing but
  errors. ``--exact`` writes every rational in full (by default one longer
  than 12 characters is rounded to 3 significant digits, with its length:
  ``-7.24e-2 (exact: 61 digits)``; JSON outputs are exact always).

Before any work, every option is checked: numbers, ``--domain``, and every
output path: its directory must exist and be writable, it must not be a
directory or the input file, and its suffix must fit. Outputs are written
atomically: a failure or an interrupt leaves the previous file as it was.
Commands that build a canonical complex (``complex``, ``slice``, ``decision``, ``weights``,
``graph``, ``analyze``) refuse one estimated to exceed ``--max-cells`` (default
1,000,000); ``recover`` answers undecided instead.

Exit status (:data:`EXIT_STATUS`): 0 success; 1 an error in the input or the
computation (a malformed network file, a complex over ``--max-cells``, a
recovery that ends undecided); 2 a usage error (a bad option or output path);
70 a bug in polyrelu (an exception that is not a
:class:`~polyrelu.errors.PolyReluError`, or a survey's recovered network
computing another function); 130 interrupted (Ctrl-C); 143 terminated
(``SIGTERM``); 141 when the reader of stdout goes away (``polyrelu ... |
head``). Every failure is one line on stderr, ``polyrelu: error: ...``;
``--debug`` adds the traceback.

A new command is one function that adds its parser (``_add_<name>_parser``,
listed in :data:`_PARSERS`) and one that runs it (``_<name>add_command``).
"""

import argparse
import contextlib
import io
import os
import re
import signal
import sys
import threading
import time
import traceback

from .._version import __version__
from ..analysis import analyze
from ..atomic import check_output_path, write_json
from ..complex import canonical_complex
from ..dependency import dependency_graph, depth_hierarchy, parameter_dependency_graph
from ..errors import (
    ComplexTooLargeError,
    PolyReluError,
    UsageError,
)
from ..examples import bent_line_network
from ..genericity import genericity
from ..io import save_network
from ..network import ReLUNetwork
from ..plot import (
    check_figure_path,
    check_html_path,
    plot_complex,
    plot_dependency_graph,
    save_figure,
    write_complex_html,
)
from ..plot.html import require_plotly
from ..recovery import network_oracle, recover_network
from ..report import network_report
from ..slices import DEFAULT_MARGIN
from ..symmetry import equivalent, same_function
from ..text import columns, exact_numbers, wrap
from ..tropical import bent_hypersurfaces, breakpoint_complex, tropical_weights
from .builtins import (
    BUILTINS,
    MAX_LAYERS,
    MAX_PARAMETERS,
    MAX_WIDTH,
    load,
)
from .decision import check_decision_arguments, decision_command
from .demo import demo
from .drawing import add_plot, check_drawing, drawing, parse_window
from .ending import CommandFailed, written
from .options import (
    add_command,
    add_domain,
    add_exact,
    add_format_version,
    add_max_cells,
    add_network,
    add_old_json,
    add_output,
    add_parallel,
    add_quiet_and_debug,
    add_trust_pickle,
    domain_of,
    old_spellings,
    parse_domain,
    positive_list,
)
from .slicing import slice_command, slice_margin
from .survey import (
    SURVEY_MAX_QUERIES,
    SURVEY_MAX_SECONDS,
    check_survey_arguments,
    survey_command,
)

# matplotlib's backend is chosen where a picture is written (Agg: no display needed), not at import

__all__ = ["main", "build_parser", "load", "parse_domain", "EXIT_STATUS"]

EXIT_STATUS = {
    0: "success",
    1: "an input or computation error (a malformed file, a complex over --max-cells); an undecided recovery",
    2: "a usage error: an unknown option, a bad value, an output path that cannot be written",
    70: "a bug in polyrelu: please report it with the output of --debug",
    130: "interrupted (Ctrl-C)",
    141: "the reader of stdout went away (polyrelu ... | head)",
    143: "terminated (SIGTERM)",
}

_NETWORK_SUFFIXES = (".json", ".npz")  # what save_network writes


# -- the entry point ---------------------------------------------------------------------------------------


def main(argv=None):
    """Run the ``polyrelu`` command and return its exit status (see the module docstring).

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        A key of :data:`EXIT_STATUS`: 0 success; 1 an input error, a limit or
        an undecided recovery; 2 a usage error; 70 a bug in polyrelu; 130
        interrupted; 143 terminated; 141 a closed pipe on stdout. Failures
        print one line on stderr (with ``--debug``, the traceback first).
        Nothing is raised.

    Examples
    --------
    >>> main(["complex", "builtin:bent-line", "--domain", "box:1,0"])
    2
    """
    parser = build_parser()
    debug = False
    with _terminate_as_interrupt():
        try:
            args = parser.parse_args(old_spellings(sys.argv[1:] if argv is None else list(argv)))
            debug = args.debug
            _check_arguments(args)
            start = time.perf_counter()
            with _quiet(args.quiet), exact_numbers(getattr(args, "exact", False)):
                status = args.run(args) or 0
            if not args.quiet and sys.stderr.isatty():
                print(f"polyrelu {args.command}: {time.perf_counter() - start:.2f} s", file=sys.stderr)
            return status
        except SystemExit as exc:  # --help and --version
            return exc.code if isinstance(exc.code, int) else 0
        except _Terminated:
            return _fail("terminated", 143, debug)
        except KeyboardInterrupt:
            return _fail("interrupted", 130, debug)
        except CommandFailed as exc:
            return _fail(f"error: {exc}", exc.status, debug)
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


def build_parser():
    """The ``polyrelu`` argument parser: the global options, then one subparser per command (:data:`_PARSERS`).

    Examples
    --------
    >>> parser = build_parser()
    >>> args = parser.parse_args(["complex", "builtin:bent-line", "-o", "c.json"])
    >>> args.command, args.network, args.output
    ('complex', 'builtin:bent-line', 'c.json')
    """
    parser = _Parser(
        prog="polyrelu",
        description="Exact polyhedral geometry of ReLU networks.\n\nNET is a network file (.json, .npz, .pt, .pth) or a "
        "built-in name\n(polyrelu builtins lists them); polyrelu COMMAND --help tells more.",
        epilog="exit status:\n" + "\n".join(f"  {code:>3}  {meaning}" for code, meaning in EXIT_STATUS.items()),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"polyrelu {__version__}")
    add_quiet_and_debug(parser, False)
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND", title="commands")
    for add in _PARSERS:
        add(sub)
    for command in sub.choices.values():
        add_quiet_and_debug(command, argparse.SUPPRESS)
    return parser


# -- one function per command that adds its parser ---------------------------------------------------------


def _add_demo_parser(sub):
    p = add_command(sub, "demo", _demo_command,
                 "a tour of the worked example relu(relu(x1) + relu(x2) - 1) and of a generic network")
    add_output(p, "the worked example network (to try the other commands on a file)", _NETWORK_SUFFIXES)
    add_exact(p)


def _add_builtins_parser(sub):
    p = add_command(sub, "builtins", _builtins_command, "the built-in networks: names every command accepts as NET")
    add_output(p, "the list as JSON")


def _add_info_parser(sub):
    p = add_command(sub, "info", _info_command,
                 "architecture, parameter counts, width hypothesis and canonical form of a network")
    add_network(p)
    add_output(p, "the network as a polyrelu network file (converts .pt and .npz files)", _NETWORK_SUFFIXES)
    add_exact(p)
    add_trust_pickle(p)


def _add_complex_parser(sub):
    p = add_command(sub, "complex", _complex_command,
                 "the canonical polyhedral complex: f-vector, Euler characteristic; every cell as JSON")
    add_network(p)
    add_domain(p)
    add_output(p, "the complex as JSON (every vertex, every cell, the face lattice)")
    add_format_version(p)
    add_plot(p, "the complex (2 inputs)", html="the complex (2 or 3 inputs)")
    add_max_cells(p)
    add_parallel(p, "the pieces of a large complex (two hidden layers or more)",
                 default="this process only: on two cores the pieces cost more than they save")
    add_trust_pickle(p)


def _add_slice_parser(sub):
    p = add_command(sub, "slice", slice_command,
                 "the exact complex on the line, plane or 3-space through 2 to 4 data points (any input width)")
    add_network(p, "the network, of any input width")
    p.add_argument("--through", required=True, metavar="FILE",
                   help="the data points, one per row: .npy, .csv (numbers only) or .json (a list of rows); 2 to 4 points")
    p.add_argument("--margin", default=str(DEFAULT_MARGIN), metavar="M",
                   help=f"the box reaches M times the points' extent beyond them on each side (default {DEFAULT_MARGIN})")
    add_output(p, "the slice (origin, directions, points) and its complex as JSON")
    add_format_version(p)
    add_plot(p, "the complex of a 2-D slice (3 points) with the data points marked",
              html="the complex of a 2-D or 3-D slice (3 or 4 points)")
    add_max_cells(p)
    add_trust_pickle(p)


def _add_decision_parser(sub):
    p = add_command(sub, "decision", _decision_command,
                 "the decision complex of a classifier: class regions, boundary cells, their exact homology; "
                 "with --level, the level sets of a network with one output")
    add_network(p, "the classifier (2 or more outputs), or with --level a network with one output")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--domain", metavar="BOX",
                       help="the input region: box:LO,HI, or box:LO1,HI1;LO2,HI2;... per input (default: all of R^n0)")
    where.add_argument("--through", metavar="FILE",
                       help="work on the slice through 2 to 4 data points, one per row (.npy, .csv or .json), as "
                            "polyrelu slice does (for networks of any input width)")
    p.add_argument("--margin", metavar="M",
                   help=f"with --through: the box reaches M times the points' extent beyond them (default {DEFAULT_MARGIN})")
    p.add_argument("--level", metavar="C",
                   help="for a network with one output: the level set f = C, the sublevel set f <= C and the "
                        "superlevel set f >= C, with their homology (C a number such as 0 or 1/2)")
    add_output(p, "the decision complex (with --level: the complex cut by f = C) as JSON")
    add_format_version(p)
    p.add_argument("--homology", metavar="FILE",
                   help="write the Betti numbers and torsion of every class region and boundary (or level set) to "
                        "FILE (.json)")
    add_plot(p, "the decision regions of a classifier in the plane (2 inputs, or --through 3 points), the "
             "boundary in black", html="the network's complex in the plane, regions by class", fill="class")
    add_max_cells(p)
    add_exact(p)
    add_trust_pickle(p)


def _decision_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    decision_command(args, net, domain_of(args, net))


def _add_weights_parser(sub):
    p = add_command(sub, "weights", _weights_command,
                 "the tropical weights of every neuron's bent hypersurface, and the four genericity conditions")
    add_network(p)
    add_domain(p)
    add_output(p, "the complex with its weights and bent hypersurfaces as JSON")
    add_format_version(p)
    add_max_cells(p)
    add_trust_pickle(p)


def _add_graph_parser(sub):
    p = add_command(sub, "graph", _graph_command,
                 "from the function alone: candidate hypersurfaces, dependency graph, layers, a lower bound on depth")
    add_network(p)
    add_domain(p)
    add_output(p, "the dependency graph as JSON")
    add_old_json(p)
    p.add_argument("--graphml", metavar="FILE", help="write the dependency graph as GraphML (typed attributes) to FILE (.graphml)")
    add_plot(p, "the dependency graph, by layers")
    add_max_cells(p)
    add_trust_pickle(p)


def _add_analyze_parser(sub):
    p = add_command(sub, "analyze", _analyze_command,
                 "one report: complex, weights, genericity, dependency graph, functional dimension, "
                 "identifiability and minimality verdicts, conditioning")
    add_network(p)
    add_domain(p)
    add_output(p, "the analysis as JSON")
    add_old_json(p)
    add_plot(p, "the complex (2 inputs; 3 inputs: the slice x3 = 0)", html="the complex (2 or 3 inputs)")
    p.add_argument("--no-inradius", action="store_true",
                   help="skip the conditioning diagnostic (the thinnest region's inradius, by cvxpy)")
    add_max_cells(p)
    add_parallel(p, "the minimality checks (one per hidden neuron) and the functional dimension's batches")
    add_exact(p)
    add_trust_pickle(p)


def _add_recover_parser(sub):
    p = add_command(sub, "recover", _recover_command,
                 "rebuild a network from its function values alone (NET behind a black box), checked against it")
    add_network(p, "the network behind the black box")
    add_domain(p, "recover f on this box only")
    add_output(p, "the recovered network", _NETWORK_SUFFIXES)
    p.add_argument("--float", action="store_true",
                   help="float oracle: NET evaluated in floats (needs --domain; the deviation is reported)")
    p.add_argument("--tolerance", type=float, metavar="T",
                   help="with --float: relative tolerance; recovered only if max |f - g| <= T·max(1, max |f|) on fresh "
                        "points (default: from the oracle's floats, 1e-9 for float64)")
    p.add_argument("--max-queries", type=int, default=1_000_000, metavar="N",
                   help="ask the oracle at most N distinct points, then answer undecided (default 1,000,000)")
    p.add_argument("--max-seconds", type=float, metavar="S",
                   help="wall-clock budget: after S seconds answer undecided (default: none)")
    p.add_argument("--max-cells", type=int, default=1_000_000, metavar="N",
                   help="answer undecided when a complex recovery builds would have more than N cells (default 1,000,000)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the random search lines and check points: the same seed, the same run (default 0)")
    p.add_argument("--known-layers", type=int, default=0, metavar="K",
                   help="give recovery NET's first K hidden layers, as recover_network(known_layers=...) does: which "
                        "stage of an undecided recovery fails (default 0: none)")
    add_trust_pickle(p)


def _add_survey_parser(sub):
    p = add_command(sub, "survey", survey_command,
                 "over random N(0, 1) networks (n0, w, ..., w, 1): how often they are generic and identifiable, "
                 "and with --recovery how often recovery from their values succeeds")
    p.add_argument("--input", type=int, default=2, metavar="N0", help="input width n0 (default 2)")
    p.add_argument("--depths", default="1,2,3", type=positive_list, metavar="L,...",
                   help="numbers of hidden layers (default 1,2,3)")
    p.add_argument("--widths", default="2,3,4", type=positive_list, metavar="W,...",
                   help="hidden widths (default 2,3,4)")
    p.add_argument("--samples", type=int, default=20, metavar="N", help="random networks per architecture (default 20)")
    p.add_argument("--seed", type=int, default=0,
                   help="the networks of each architecture are ReLUNetwork.random(arch, seed=s, kind='gaussian') "
                        "for s = SEED, SEED+1, ... (default 0)")
    p.add_argument("--recovery", action="store_true",
                   help="one row per architecture: networks per identifiability verdict, and per outcome of recovering "
                        "each from its values alone (minutes)")
    p.add_argument("--max-seconds", type=float, metavar="S",
                   help=f"with --recovery: each recovery's time budget, after which it answers undecided "
                        f"(default {SURVEY_MAX_SECONDS:g}; an outcome it decides depends on the machine's speed)")
    p.add_argument("--max-queries", type=int, metavar="N",
                   help=f"with --recovery: each recovery's budget of distinct oracle calls, after which it answers "
                        f"undecided (default {SURVEY_MAX_QUERIES:,}; the same outcome on any machine)")
    add_parallel(p, "the networks (with --recovery) or the draws of each architecture")
    add_output(p, "the raw records, per architecture (per network with --recovery), as JSON")


# the commands in the order `polyrelu --help` lists them
_PARSERS = (
    _add_demo_parser,
    _add_builtins_parser,
    _add_info_parser,
    _add_complex_parser,
    _add_slice_parser,
    _add_decision_parser,
    _add_weights_parser,
    _add_graph_parser,
    _add_analyze_parser,
    _add_recover_parser,
    _add_survey_parser,
)


# -- the commands ------------------------------------------------------------------------------------------


def _demo_command(args):
    demo()
    if args.output:
        save_network(bent_line_network(), args.output)
        written(args.output)


def _builtins_command(args):
    print("built-in networks, for NET in every command (e.g. polyrelu info builtin:bent-line):\n")
    width = max(len(b.example) for b in BUILTINS) + 2
    for b in BUILTINS:
        what = f"{b.description}; any widths, input first: {b.pattern}" if b.family else b.description
        print("\n".join(wrap(f"{b.example:<{width}}{what}", indent=width)))
    print(f"\nbuilt-in networks have widths up to {MAX_WIDTH}, {MAX_LAYERS} layers and {MAX_PARAMETERS:,} parameters")
    if args.output:
        write_json(args.output, lambda: {
            "format": "polyrelu.builtins", "version": 1,
            "builtins": [{"name": b.pattern, "example": b.example, "description": b.description} for b in BUILTINS],
        }, indent=1)
        written(args.output)


def _info_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    print(network_report(net))
    if args.output:
        save_network(net, args.output)
        written(args.output)


def _complex_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = domain_of(args, net)
    n0 = net.architecture.input_dim
    # flushed before the work starts: the user sees what is being computed
    if args.plot and n0 != 2:
        raise UsageError(f"--plot draws networks with 2 inputs; this one has {n0} (polyrelu slice --plot draws a "
                         "plane through 3 points of any network)")
    check_drawing(args, n0, net.architecture.output_dim)
    print(f"network             {args.network}  ({net.architecture})")
    print(f"domain              {args.domain or f'R^{n0}'}", flush=True)
    K = canonical_complex(net, domain, max_cells=args.max_cells, n_jobs=args.jobs, scheduler=args.scheduler)
    expected = 1 if domain is not None else (-1) ** n0
    print(f"f-vector            {K.f_vector()}  ({len(K)} cells, {len(K.regions())} regions)")
    print(f"Euler char.         {K.euler_characteristic()}  (expected {expected})")
    if args.output:
        K.write_json(args.output, version=args.format_version)
        written(args.output)
    name, window, fill = drawing(args, net)
    title = f"{name}: f-vector {K.f_vector()}"
    if args.plot:
        import matplotlib  # only to draw: `import polyrelu` stays fast

        matplotlib.use("Agg")
        save_figure(plot_complex(K, window=window, title=title, fill=fill), args.plot)
        written(args.plot)
    if args.html:
        write_complex_html(K, args.html, window=window, title=title, fill=fill)
        written(args.html)


def _weights_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = domain_of(args, net)
    print(f"network             {args.network}  ({net.architecture})", flush=True)
    K = canonical_complex(net, domain, max_cells=args.max_cells)
    W = tropical_weights(K)
    B = bent_hypersurfaces(K, W)
    print(f"f-vector            {K.f_vector()}\n")
    rows = [("neuron", "facets", "visible", "bends", "Euclidean weights of its facets (floats for display; exact in -o)")]
    for z, b in B.items():
        ws = [W.weight(f) for f in b.facets if f in W.weights()]
        visible = sum(1 for w in ws if any(w.weight))
        rows.append((z, len(b.facets), visible, len(b.bends), _weights_text({w.euclidean_weight for w in ws})))
    for line in columns(rows, right=(1, 2, 3)):
        print(line)
    print("\ngenericity: the four conditions of the identifiability theorem (docs/theory.md)")
    print(genericity(K, weighted=W, hypersurfaces=B))
    if args.output:
        write_json(args.output, lambda: W.to_json(B, version=args.format_version))
        written(args.output)


def _weights_text(weights, shown=6):
    """Distinct Euclidean weights sorted numerically: all of them, or the smallest and largest few and how many."""
    texts = [f"{w[0]:.4g}" if len(w) == 1 else "(" + ", ".join(f"{v:.4g}" for v in w) + ")" for w in sorted(weights)]
    if len(texts) > shown:
        return ", ".join(texts[: shown // 2]) + ", …, " + ", ".join(texts[-(shown // 2):]) + f" ({len(texts)} distinct)"
    return ", ".join(texts) or "-"


def _graph_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = domain_of(args, net)
    print(f"network             {args.network}  ({net.architecture})", flush=True)
    K = canonical_complex(net, domain, max_cells=args.max_cells)
    W = tropical_weights(K)
    G = dependency_graph(breakpoint_complex(W))
    C = G.candidates
    print(f"candidates          {len(C)} candidate bent hypersurfaces from f alone "
          f"({sum(1 for c in C if c.hyperplane is not None)} flat), {len(C.crossings)} crossings")
    for u in C.unresolved:
        print(f"  unresolved cell {u.cell}: {u.reason} (facets {list(u.facets)})")
    print(f"edges               {G.graph.ecount()} (B' → B where B bends crossing B')")
    if not G.is_dag():
        print("layers              undefined: the bending relation has a cycle")
    else:
        print(f"layers              {G.layer_sizes()} vertices per inferred layer\n")
        neurons = G.neurons()
        rows = [("vertex", "layer", "facets", "neuron", "bends along")]
        for v, l in enumerate(G.layers()):
            along = sorted(e.source for e in G.graph.es.select(_target=v))
            rows.append((v, l, len(C[v].facets), neurons[v] or "-", ", ".join(map(str, along)) or "-"))
        for line in columns(rows, right=(0, 1, 2)):
            print(line)
        print()
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
            print(f"parameter graph     {verdict}")
        print(depth_hierarchy(G))
    if args.output:
        G.write_json(args.output)
        written(args.output)
    if args.graphml:
        G.write_graphml(args.graphml)
        written(args.graphml)
    if args.plot:
        import matplotlib  # only to draw: `import polyrelu` stays fast

        matplotlib.use("Agg")
        name = net.name or os.path.splitext(os.path.basename(args.network))[0]
        save_figure(plot_dependency_graph(G, title=f"dependency graph of {name}"), args.plot)
        written(args.plot)


def _analyze_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = domain_of(args, net)
    n0 = net.architecture.input_dim
    if args.plot and n0 not in (2, 3):
        raise UsageError(f"--plot draws networks with 2 or 3 inputs (3: the slice x3 = 0); this one has {n0}")
    check_drawing(args, n0, net.architecture.output_dim, plotted=2)
    result = analyze(net, domain, inradius=not args.no_inradius, max_cells=args.max_cells, n_jobs=args.jobs,
                     scheduler=args.scheduler)
    print(result)
    if args.output:
        result.write_json(args.output)
        written(args.output)
    name, window, fill = drawing(args, net)
    if args.plot:
        result.plot(args.plot, title=name, window=window, fill=fill)
        written(args.plot)
    if args.html:
        write_complex_html(result.complex, args.html, window=window, fill=fill,
                           title=f"{name}: f-vector {result.complex.f_vector()}")
        written(args.html)


def _recover_command(args):
    net = load(args.network, trust_pickle=args.trust_pickle)
    domain = domain_of(args, net)
    depth = len(net.architecture.hidden_widths)
    if args.known_layers > depth:
        raise UsageError(f"--known-layers {args.known_layers}: the network has {depth} hidden layer(s); give at most {depth}")
    known = ReLUNetwork(net.weights[: args.known_layers], net.biases[: args.known_layers]) if args.known_layers else None
    # the network is only wrapped in a black box: recovery sees function values, nothing else (but the known layers)
    oracle = network_oracle(net, float_output=args.float)
    result = recover_network(
        oracle, net.architecture.input_dim, domain=domain, max_queries=args.max_queries, seed=args.seed,
        float_oracle=args.float, tolerance=args.tolerance, max_seconds=args.max_seconds, max_cells=args.max_cells,
        known_layers=known,
    )
    print(result)
    print(f"  original           {net.architecture}")
    if known is not None:
        print(f"  given              its first {args.known_layers} hidden layer(s)")
    if result.network is not None:
        if args.float:
            print(f"  same function      within {result.max_deviation:.3g} on the fresh points (float oracle)")
        else:
            print(f"  trivially equivalent to the original: {'yes' if equivalent(result.network, net) else 'no'}")
            print(f"  same function as the original:        {'yes' if same_function(result.network, net, domain) else 'no'}")
        if args.output:
            save_network(result.network, args.output)
            written(args.output)
    return 0 if result else 1


# -- checking the command line before any work -------------------------------------------------------------


def _check_arguments(args):
    """Every option checked before any work: numbers, the domain, and the output paths.

    Output paths are checked before the network is loaded, so that a typo in
    ``-o`` costs milliseconds, not the computation.
    """
    for dest, lowest in (("max_cells", 1), ("max_queries", 1), ("samples", 1), ("input", 1), ("seed", 0), ("known_layers", 0)):
        value = getattr(args, dest, None)
        if value is not None and value < lowest:
            wanted = "a positive integer" if lowest else "an integer >= 0"
            raise UsageError(f"--{dest.replace('_', '-')} {value}: must be {wanted}")
    if args.command == "survey":
        check_survey_arguments(args)
    jobs = getattr(args, "jobs", None)
    if jobs is not None and (jobs == 0 or jobs < -1):
        raise UsageError(f"--jobs {jobs}: must be a positive number of worker processes (1 = serial) or -1 (every core)")
    if getattr(args, "scheduler", None) is not None and not args.scheduler.strip():
        raise UsageError("--scheduler: give the address of a Dask scheduler (e.g. tcp://host:8786), or leave it out")
    if args.command == "decision":
        check_decision_arguments(args, _inputs(args))
    for dest in ("tolerance", "max_seconds"):
        value = getattr(args, dest, None)
        if value is not None and not 0 < value < float("inf"):
            raise UsageError(f"--{dest.replace('_', '-')} {value}: must be a positive number")
    if getattr(args, "tolerance", None) is not None and not args.float:
        raise UsageError("--tolerance applies to the float oracle: add --float (exact recovery compares exactly)")
    if getattr(args, "margin", None) is not None:
        slice_margin(args.margin)
    if getattr(args, "domain", None):
        parse_domain(args.domain)
    elif getattr(args, "float", False):
        raise UsageError("--float needs a bounded domain: add --domain box:LO,HI (e.g. box:-8,8)")
    inputs = _inputs(args)
    if getattr(args, "output", None) is not None:
        check_output_path(args.output, suffixes=args.output_suffixes, inputs=inputs)
    if getattr(args, "graphml", None) is not None:
        check_output_path(args.graphml, suffixes=(".graphml",), inputs=inputs)
    if getattr(args, "plot", None) is not None:
        check_figure_path(args.plot, inputs=inputs)
    if getattr(args, "window", None) is not None:
        parse_window(args.window)
        if not (args.plot or args.html):
            raise UsageError("--window zooms a drawing: add --plot FILE or --html FILE")
    if getattr(args, "html", None) is not None:
        check_html_path(args.html, inputs=inputs)
        require_plotly()


def _inputs(args):
    """The files the command reads (its network file, its points): no output may overwrite them."""
    network = getattr(args, "network", None)
    inputs = [network] if network and not network.startswith("builtin:") else []
    return inputs + ([args.through] if getattr(args, "through", None) else [])


# -- how a command ends ------------------------------------------------------------------------------------


class _Parser(argparse.ArgumentParser):
    """argparse with its errors raised as :class:`UsageError` (one line, exit 2), not printed with the usage.

    A negative fraction such as ``-1/2`` is a value, like ``-1`` and ``-0.5``
    (``--window -1/2 1/2 0 1``), not an unknown option.
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = re.compile(r"^-\d+(/\d+)?$|^-\d*\.\d+$")

    def error(self, message):
        raise UsageError(f"{message} (see {self.prog} --help)")


class _Discard(io.TextIOBase):
    """A text stream that drops what is written to it (no file is opened)."""

    def writable(self):
        return True

    def write(self, text):
        return len(text)


@contextlib.contextmanager
def _quiet(quiet):
    """With ``quiet``, the command's stdout and stderr are discarded (main prints its errors after)."""
    if not quiet:
        yield
        return
    with contextlib.redirect_stdout(_Discard()), contextlib.redirect_stderr(_Discard()):
        yield


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
