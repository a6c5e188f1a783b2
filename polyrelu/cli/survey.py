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

Both run their networks in parallel through
:func:`~polyrelu.parallel.parallel_map` (``n_jobs``, ``scheduler``;
docs/parallel.md), with the serial results; for recovery, apart from the
measured times and the networks whose time budget ran out
(:func:`time_budget_spent`).

Both are tables in markdown, and JSON documents (``"format":
"polyrelu.survey"``) with the raw records (:func:`survey_document`).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from functools import partial
from typing import Any

from ..atomic import write_json
from ..errors import UsageError
from ..identifiability import SurveyResult, architecture_survey, identifiability_report
from ..network import ReLUNetwork
from ..parallel import check_parallel_arguments, parallel_map
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
    "time_budget_spent",
    "survey_document",
    "survey_command",
    "check_survey_arguments",
    "SURVEY_MAX_SECONDS",
    "SURVEY_MAX_QUERIES",
]

FORMAT = "polyrelu.survey"
SURVEY_MAX_SECONDS = 60.0  # per network: a survey of a few hundred networks ends within hours at worst
SURVEY_MAX_QUERIES = 1_000_000  # per network: recover_network's default
VERSION = 1

RECOVERY_OUTCOMES = ("trivially equivalent", "same function", "undecided", "DIFFERENT FUNCTION")
"""How a recovered network compares with the original; the last is a bug in recovery."""

# how recover_network's reason starts when its time budget stopped it (tests/test_survey.py checks the wording)
_TIME_BUDGET_REASON = "the time budget (max_seconds="


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
    max_seconds: float | None = 60.0,
    progress: bool | None = None,
    *,
    max_queries: int = 1_000_000,
    n_jobs: int | None = None,
    scheduler: str | None = None,
) -> list[dict[str, Any]]:
    """Per random network: its identifiability verdict, and how recovery from its values alone compares with it.

    For each architecture and ``k < samples``, the network
    ``ReLUNetwork.random(arch, seed=seed + k, kind="gaussian")`` (the draws of
    :func:`~polyrelu.identifiability.architecture_survey`) gets
    :func:`~polyrelu.identifiability.identifiability_report` and
    ``recover_network(network_oracle(net), n0, seed=seed + k, max_queries=max_queries, max_seconds=max_seconds)``,
    compared with it by :func:`recovery_outcome`.

    The networks are independent tasks, run in parallel as
    :func:`~polyrelu.parallel.parallel_map` decides with ``n_jobs`` (``1``:
    serial; ``None``: every core once the survey is long enough) and
    ``scheduler`` (a Dask scheduler address); see docs/parallel.md. Each
    recovery has its own budgets, started when it starts. A record depends
    only on its architecture, its seed and the budgets, so any network or
    cell can be rerun alone, and records are the same whatever ``n_jobs`` and
    ``scheduler`` say, with two exceptions: ``seconds``, a measurement, and
    the networks whose recovery the time budget ``max_seconds`` stopped
    (:func:`time_budget_spent`), or that end near it, since how far a
    recovery gets in a given time depends on the machine and its load (two
    workers on two shared cores are each slower than one process). The query
    budget ``max_queries`` is deterministic.

    Parameters
    ----------
    architectures : sequence of tuple of int
        The architectures ``(n0, ..., 1)``, ``n0 >= 2``.
    samples : int
        Networks per architecture.
    seed : int
        The first seed: the networks of each architecture have seeds ``seed, seed + 1, ...``.
    max_seconds : float, optional
        Each recovery's time budget; None: none.
    progress : bool, optional
        False hides the progress bar over the networks; otherwise it shows when
        standard error is a terminal.
    max_queries : int
        Each recovery's budget of distinct oracle calls.
    n_jobs : int, optional
        As for :func:`~polyrelu.parallel.parallel_map`.
    scheduler : str, optional
        As for :func:`~polyrelu.parallel.parallel_map`.

    Returns
    -------
    list of dict
        One JSON-ready record per network, in survey order: ``architecture``,
        ``seed``, ``verdict``, ``generic``, ``rank``, ``bound`` (``D − H``),
        ``recovery`` (the outcome), ``queries``, ``seconds``,
        ``recovered_widths`` and ``reason`` (why undecided).

    Examples
    --------
    >>> [(r["seed"], r["recovery"]) for r in recovery_survey([(2, 2, 1)], samples=2, n_jobs=1)]
    [(0, 'trivially equivalent'), (1, 'trivially equivalent')]
    """
    caller = "recovery_survey"
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, caller)
    tasks = [(tuple(arch), s) for arch in architectures for s in range(seed, seed + samples)]
    names = [f"{'→'.join(map(str, arch))} seed {s}" for arch, s in tasks]
    return parallel_map(partial(_recovery_record, max_seconds, max_queries), tasks, n_jobs=n_jobs,
                        scheduler=scheduler, desc=None if progress is False else "networks", names=names)


def _recovery_record(max_seconds: float | None, max_queries: int, task: tuple[tuple[int, ...], int]) -> dict[str, Any]:
    """The record of one network of :func:`recovery_survey`: ``task`` is its architecture and seed."""
    arch, s = task
    net = ReLUNetwork.random(arch, seed=s, kind="gaussian")
    report = identifiability_report(net)
    result = recover_network(network_oracle(net), arch[0], seed=s, max_queries=max_queries, max_seconds=max_seconds,
                             progress=False)
    return {
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
    }


def time_budget_spent(record: dict[str, Any]) -> bool:
    """Whether the time budget stopped the recovery of a :func:`recovery_survey` record.

    Such a record's outcome depends on the machine's speed and load: another
    run, serial or parallel, may get further in the same time.

    Examples
    --------
    >>> time_budget_spent({"reason": "the time budget (max_seconds=1) is spent while tracing"})
    True
    >>> time_budget_spent({"reason": None})
    False
    """
    return (record.get("reason") or "").startswith(_TIME_BUDGET_REASON)


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
    max_queries = args.max_queries or SURVEY_MAX_QUERIES
    parameters["max_seconds"], parameters["max_queries"] = max_seconds, max_queries
    print(f"each recovered from its values alone, recover_network(network_oracle(net), {args.input}, seed=s, "
          f"max_queries={max_queries}, max_seconds={max_seconds:g}), and compared with it exactly\n")
    records = recovery_survey(architectures, args.samples, args.seed, max_seconds, max_queries=max_queries,
                              n_jobs=args.jobs, scheduler=args.scheduler)
    print(recovery_survey_table(records))
    timed_out = sum(map(time_budget_spent, records))
    if timed_out:
        print(f"\n{timed_out} of {len(records)} recoveries stopped at the time budget ({max_seconds:g} s): their "
              "outcomes depend on the machine's speed and load and may differ in another run, serial or parallel; "
              "the query budget (--max-queries) does not")
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
    if args.max_queries is not None and not args.recovery:
        raise UsageError("--max-queries is the query budget of each recovery: add --recovery")
