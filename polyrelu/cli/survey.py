"""``polyrelu survey``: over random N(0, 1) networks, how often each verdict and each recovery outcome comes up.

Two surveys, over the architectures ``(n0, w, ..., w, 1)`` for the chosen
numbers of hidden layers and widths (:func:`survey_architectures`), each
with the networks ``ReLUNetwork.random(arch, seed=s, kind="gaussian")`` for
``s = seed, seed + 1, ...`` (standard normal weights and biases):

- the conditions (:func:`conditions_survey`, :func:`survey_table`): per
  architecture, % of networks passing the four genericity conditions, with
  functional dimension ``D − H``, and identifiable by the identifiability
  theorem (:func:`~polyrelu.identifiability.architecture_survey`);
- recovery (:func:`recovery_survey`, :func:`recovery_survey_table`): per
  network, its identifiability verdict and how the network recovered from
  its values alone compares with it (:func:`recovery_outcome`).

Both are tables in markdown, and JSON documents (``"format":
"polyrelu.survey"``) with the raw records (:func:`survey_document`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

from ..atomic import write_json
from ..errors import UsageError
from ..identifiability import SurveyResult, architecture_survey, identifiability_report
from ..network import ReLUNetwork
from ..parallel import check_parallel_arguments
from ..progress import progress_bar
from ..recovery import RecoveryResult, network_oracle, recover_network
from ..symmetry import equivalent, same_function
from .builtins import MAX_LAYERS, check_architecture
from .ending import CommandFailed, written

__all__ = [
    "RECOVERY_OUTCOMES",
    "FORMAT",
    "VERSION",
    "survey_architectures",
    "conditions_survey",
    "survey_table",
    "recovery_outcome",
    "recovery_survey",
    "recovery_survey_table",
    "survey_document",
    "survey_command",
    "check_survey_arguments",
    "SURVEY_MAX_SECONDS",
]

FORMAT = "polyrelu.survey"
SURVEY_MAX_SECONDS = 60.0  # per network: a survey of a few hundred networks ends within hours at worst
VERSION = 1

RECOVERY_OUTCOMES = ("trivially equivalent", "same function", "undecided", "DIFFERENT FUNCTION")
"""How a recovered network compares with the original; the last is a bug in recovery."""


def survey_architectures(input_dim: int, depths: Sequence[int], widths: Sequence[int]) -> list[tuple[int, ...]]:
    """The architectures ``(n0, w, ..., w, 1)``, depth by depth, then width by width.

    Examples
    --------
    >>> survey_architectures(2, [1, 2], [3])
    [(2, 3, 1), (2, 3, 3, 1)]
    """
    return [(input_dim, *[w] * depth, 1) for depth in depths for w in widths]


def conditions_survey(
    architectures: Sequence[tuple[int, ...]], samples: int, seed: int = 0, progress: bool | None = None,
    n_jobs: int | None = None, scheduler: str | None = None,
) -> list[SurveyResult]:
    """:func:`~polyrelu.identifiability.architecture_survey` of each architecture, with a progress bar over them.

    ``n_jobs`` and ``scheduler`` spread each architecture's draws over worker processes or a Dask cluster
    (:mod:`polyrelu.parallel`); the results are the serial ones.
    """
    return [architecture_survey(arch, samples, seed, n_jobs=n_jobs, scheduler=scheduler)
            for arch in progress_bar(architectures, desc="architectures", unit="arch", enabled=progress)]


def survey_table(results: Sequence[SurveyResult]) -> str:
    """A markdown table over depth × width: % generic / % rank D − H / % identifiable by the theorem.

    ``results`` are surveys of architectures ``(n0, w, ..., w, 1)``; rows are
    numbers of hidden layers, columns widths.

    Examples
    --------
    >>> print(survey_table(conditions_survey(survey_architectures(2, [1], [2, 3]), samples=2)))
    | hidden layers \\ width | 2 | 3 |
    |---|---|---|
    | 1 | 100% / 100% / 100% | 100% / 100% / 100% |
    """
    cells = {(r.architecture.depth, r.architecture.widths[1]): r.row() for r in results}
    depths = sorted({d for d, _ in cells})
    widths = sorted({w for _, w in cells})
    lines = ["| hidden layers \\ width | " + " | ".join(map(str, widths)) + " |", "|---" * (len(widths) + 1) + "|"]
    for depth in depths:
        lines.append(f"| {depth} | " + " | ".join(cells.get((depth, w), "-") for w in widths) + " |")
    return "\n".join(lines)


def recovery_outcome(original: ReLUNetwork, result: RecoveryResult) -> str:
    """How a recovery ``result`` compares with the ``original`` network behind its oracle, decided exactly.

    One of :data:`RECOVERY_OUTCOMES`: ``"undecided"`` when nothing was
    recovered; ``"trivially equivalent"`` when the recovered network is the
    original up to permutations and positive scalings of hidden neurons
    (:func:`~polyrelu.symmetry.equivalent`); ``"same function"`` when it is
    not, but :func:`~polyrelu.symmetry.same_function` proves both compute the
    same function on all of ``R^n0``; else ``"DIFFERENT FUNCTION"``: a bug in
    recovery, since a recovered network must compute the oracle's function.

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


def recovery_survey(
    architectures: Sequence[tuple[int, ...]],
    samples: int,
    seed: int = 0,
    max_seconds: float = 60.0,
    progress: bool | None = None,
) -> list[dict[str, Any]]:
    """Per random network: its identifiability verdict, and how recovery from its values alone compares with it.

    For each architecture and ``k < samples``, the network
    ``ReLUNetwork.random(arch, seed=seed + k, kind="gaussian")`` (the draws of
    :func:`~polyrelu.identifiability.architecture_survey`) gets
    :func:`~polyrelu.identifiability.identifiability_report` and
    ``recover_network(network_oracle(net), n0, seed=seed + k, max_seconds=max_seconds)``,
    compared with it by :func:`recovery_outcome`. A record depends only on its
    architecture, its seed and the time budget (a recovery that ends near the
    budget may end either way), so any network or cell can be rerun alone.

    Returns
    -------
    list of dict
        One JSON-ready record per network, in survey order: ``architecture``,
        ``seed``, ``verdict``, ``generic``, ``rank``, ``bound`` (``D − H``),
        ``recovery`` (the outcome), ``queries``, ``seconds``,
        ``recovered_widths`` and ``reason`` (why undecided).
    """
    records = []
    with progress_bar(total=len(architectures) * samples, desc="networks", unit="net", enabled=progress) as bar:
        for arch in architectures:
            for s in range(seed, seed + samples):
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


def recovery_survey_table(records: Sequence[dict[str, Any]]) -> str:
    """A markdown table, one row per architecture: networks per identifiability verdict, then per recovery outcome.

    The verdict columns are the verdicts the records hold, sorted, so that a
    new verdict shows up as a new column; the recovery columns are the four
    :data:`RECOVERY_OUTCOMES`, always, a non-zero count of different
    functions in bold.

    Examples
    --------
    >>> record = {"architecture": [2, 2, 1], "verdict": "undecided", "recovery": "undecided", "seconds": 1.5}
    >>> print(recovery_survey_table([record]))
    | architecture | networks | undecided | recovery: trivially equivalent | recovery: same function | recovery: undecided | recovery: DIFFERENT FUNCTION | recovery time, median / max |
    |---|---|---|---|---|---|---|---|
    | 2→2→1 | 1 | 1 | 0 | 0 | 1 | 0 | 1.5 s / 1.5 s |
    """
    verdicts = sorted({r["verdict"] for r in records})
    groups: dict[tuple[int, ...], list[dict[str, Any]]] = {}
    for r in records:
        groups.setdefault(tuple(r["architecture"]), []).append(r)
    lines = [
        "| architecture | networks | " + " | ".join(verdicts) + " | "
        + " | ".join(f"recovery: {o}" for o in RECOVERY_OUTCOMES) + " | recovery time, median / max |",
        "|---" * (len(verdicts) + len(RECOVERY_OUTCOMES) + 3) + "|",
    ]
    for arch, group in groups.items():
        counts = [str(sum(r["verdict"] == v for r in group)) for v in verdicts]
        counts += [str(sum(r["recovery"] == o for r in group)) for o in RECOVERY_OUTCOMES]
        if counts[-1] != "0":
            counts[-1] = f"**{counts[-1]}**"
        times = sorted(r["seconds"] for r in group)
        lines.append(f"| {'→'.join(map(str, arch))} | {len(group)} | " + " | ".join(counts)
                     + f" | {statistics.median(times):.1f} s / {times[-1]:.1f} s |")
    return "\n".join(lines)


def survey_document(
    parameters: dict[str, Any],
    results: Sequence[SurveyResult] = (),
    records: Sequence[dict[str, Any]] = (),
) -> dict[str, Any]:
    """The JSON document of a survey: its ``parameters`` (the command's options), then per architecture or per network.

    Examples
    --------
    >>> doc = survey_document({"samples": 2}, conditions_survey([(2, 2, 1)], samples=2))
    >>> doc["format"], doc["architectures"][0]["ranks"]
    ('polyrelu.survey', [7, 7])
    """
    document: dict[str, Any] = {"format": FORMAT, "version": VERSION, "parameters": parameters}
    if results:
        document["architectures"] = [
            {"architecture": list(r.architecture.widths), "samples": r.samples, "generic": r.generic,
             "full_rank": r.full_rank, "identifiable": r.identifiable, "ranks": list(r.ranks)}
            for r in results
        ]
    if records:
        document["networks"] = list(records)
    return document


def survey_command(args):
    """Run ``polyrelu survey``: the conditions survey, or with ``--recovery`` the verdicts and recovery outcomes."""
    architectures = survey_architectures(args.input, args.depths, args.widths)
    parameters = {"input": args.input, "depths": args.depths, "widths": args.widths, "samples": args.samples,
                  "seed": args.seed, "recovery": args.recovery}
    print(f"ReLUNetwork.random(arch, seed=s, kind=\"gaussian\") for s = {args.seed}..{args.seed + args.samples - 1}: "
          f"{args.samples} networks per architecture with standard normal weights and biases, on R^{args.input}")
    if not args.recovery:
        print("each cell: % generic (the four conditions hold) / % functional dimension D - H / "
              "% identifiable by the identifiability theorem (Grillo & Montúfar)\n")
        results = conditions_survey(architectures, args.samples, args.seed, n_jobs=args.jobs, scheduler=args.scheduler)
        print(survey_table(results))
        if args.output:
            write_json(args.output, lambda: survey_document(parameters, results=results), indent=1)
            print()
            written(args.output)
        return 0
    max_seconds = args.max_seconds or SURVEY_MAX_SECONDS
    parameters["max_seconds"] = max_seconds
    print(f"each recovered from its values alone, recover_network(network_oracle(net), {args.input}, seed=s, "
          f"max_seconds={max_seconds:g}), and compared with it exactly\n")
    records = recovery_survey(architectures, args.samples, args.seed, max_seconds)
    print(recovery_survey_table(records))
    if args.output:
        write_json(args.output, lambda: survey_document(parameters, records=records), indent=1)
        print()
        written(args.output)
    wrong = [f"{'→'.join(map(str, r['architecture']))} seed {r['seed']}" for r in records
             if r["recovery"] == "DIFFERENT FUNCTION"]
    if wrong:
        print(f"\n**{len(wrong)} RECOVERED NETWORKS COMPUTE A DIFFERENT FUNCTION** (a bug in recovery): {', '.join(wrong)}")
        raise CommandFailed(
            f"{len(wrong)} recovered networks compute a different function from the network behind the oracle "
            f"({', '.join(wrong)}): a bug in polyrelu; please report it", 70)
    return 0


def check_survey_arguments(args):
    """The deepest and widest architecture is the largest; recovery needs two inputs; its budget needs it."""
    deepest, widest = max(args.depths), max(args.widths)
    if deepest > MAX_LAYERS:
        raise UsageError(f"--depths: {deepest} hidden layers, over {MAX_LAYERS}; survey shallower networks")
    check_architecture((args.input, *[widest] * deepest, 1), f"survey architecture {args.input}-{widest}^{deepest}-1")
    if args.recovery and args.input < 2:
        raise UsageError(f"--recovery needs --input 2 or more: on a line ({args.input} input) breakpoints cannot be "
                         "attributed to layers")
    if args.max_seconds is not None and not args.recovery:
        raise UsageError("--max-seconds is the time budget of each recovery: add --recovery")
    if args.recovery and (args.jobs is not None or args.scheduler is not None):
        raise UsageError("--jobs and --scheduler spread the conditions survey; the recovery survey runs serially: "
                         "leave them out with --recovery")
    check_parallel_arguments(args.jobs, args.scheduler, "polyrelu survey --jobs/--scheduler")
