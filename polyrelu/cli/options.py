"""Options several ``polyrelu`` commands share, and the ``--domain`` argument.

Each ``add_*`` function adds one option (or a group) to a command's parser,
with its help text, so that every command spells and explains it the same
way; :func:`parse_domain` and :func:`domain_of` read ``--domain``.
"""

from __future__ import annotations

import argparse
import inspect

from ..complex import canonical_complex
from ..domain import Box
from ..errors import InvalidNumberError, LimitExceededError, UsageError
from ..geometry.rational import parse_number

__all__ = [
    "DEFAULT_MAX_CELLS", "add_command", "add_quiet_and_debug", "add_network", "add_domain", "add_output",
    "add_old_json", "add_exact", "add_trust_pickle", "add_parallel", "add_max_cells", "positive_list",
    "old_spellings", "parse_domain", "domain_of",
]

DEFAULT_MAX_CELLS = inspect.signature(canonical_complex).parameters["max_cells"].default


def add_command(sub, name, run, summary):
    """A subparser for ``name`` that runs ``run(args)`` (:func:`build_parser` adds ``--quiet`` and ``--debug``)."""
    parser = sub.add_parser(name, help=summary, description=summary[0].upper() + summary[1:] + ".")
    parser.set_defaults(run=run, output_suffixes=(".json",))
    return parser


def add_quiet_and_debug(parser, default):
    # after the command their default is SUPPRESS: otherwise it would overwrite `polyrelu --quiet COMMAND`
    parser.add_argument("-q", "--quiet", action="store_true", default=default,
                        help="print nothing but errors (no report, no progress, no timing)")
    parser.add_argument("--debug", action="store_true", default=default, help="show the traceback of an error")


def add_network(parser, what="the network"):
    parser.add_argument("network", metavar="NET",
                        help=f"{what}: a file (.json, .npz, .pt, .pth) or a built-in name (polyrelu builtins lists them)")


def add_domain(parser, what="the input region"):
    parser.add_argument("--domain", metavar="BOX",
                        help=f"{what}: box:LO,HI, or box:LO1,HI1;LO2,HI2;... per input (default: all of R^n0)")


def add_output(parser, what, suffixes=(".json",)):
    parser.add_argument("-o", "--output", metavar="FILE", help=f"write {what} to FILE ({' or '.join(suffixes)})")
    parser.set_defaults(output_suffixes=suffixes)


def add_format_version(parser):
    parser.add_argument("--format-version", type=int, choices=(1, 2), default=2,
                        help="the complex JSON format of -o: 2 (default), compact (every vertex once, the cells as "
                             "arrays of indices); 1, every cell with its own exact H- and V-representation")


def add_old_json(parser):
    parser.add_argument("--json", dest="output", help=argparse.SUPPRESS)  # the old spelling of -o, still accepted


def add_exact(parser):
    parser.add_argument("--exact", action="store_true",
                        help="write every rational in full (default: longer than 12 characters, rounded to 3 "
                             "significant digits with the length of its exact form)")


def add_trust_pickle(parser):
    parser.add_argument(
        "--trust-pickle", action="store_true",
        help="open a .pt/.pth file that needs full unpickling (a whole saved model): this RUNS CODE from the file; "
        "only for files you made yourself",
    )


def add_parallel(parser, what, default="every core once the work is long enough"):
    parser.add_argument("--jobs", type=int, metavar="N",
                        help=f"worker processes for {what} (1 = serial, -1 = every core; default: {default}; "
                             "the results are the serial ones, docs/parallel.md)")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help=f"run {what} on the workers of this Dask scheduler, e.g. tcp://host:8786 "
                             "(default: $DASK_SCHEDULER_ADDRESS; docs/parallel.md)")


def add_max_cells(parser):
    parser.add_argument(
        "--max-cells", type=int, default=DEFAULT_MAX_CELLS, metavar="N",
        help=f"refuse a canonical complex estimated to have more cells (default {DEFAULT_MAX_CELLS:,})",
    )


def positive_list(text):
    """``"1,2,3"`` as ``[1, 2, 3]``: positive integers joined by commas (an argparse ``type``)."""
    parts = text.split(",")
    if not all(p.strip().isascii() and p.strip().isdigit() and len(p.strip()) < 10 and int(p) > 0 for p in parts):
        raise argparse.ArgumentTypeError(f"{text!r}: expected positive integers joined by commas, e.g. 1,2,3")
    return [int(p) for p in parts]


def old_spellings(argv):
    """``recover --from NET`` as ``recover NET``: the old spelling of the network, still accepted."""
    if "recover" not in argv:
        return argv
    command = argv.index("recover")
    return argv[: command + 1] + [a.removeprefix("--from=") for a in argv[command + 1:] if a != "--from"]


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


def domain_of(args, net):
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


