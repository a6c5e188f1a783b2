"""The whole recovery: :func:`recover_network` and its :class:`RecoveryResult`.

Rounds of: breakpoints on random search lines (and far out on ``R^n0``),
first-layer hyperplanes, deeper layers traced one at a time and oriented, the
output layer fitted on every region; then the candidate is checked against
the oracle on fresh points (uniform, near the boundary, far out). A
candidate off somewhere sends more search lines there; one that agrees
everywhere checked is ``recovered``, everything else ``undecided`` with the
stage reached and why.

Glossary
--------
round
    One rebuild of every layer from the breakpoints found so far.
search line
    A random line (through a random point of the domain) searched for
    breakpoints by :func:`~polyrelu.recovery.breakpoints.line_breakpoints`'s
    machinery.
fresh points
    Points drawn independently of the search, on which the candidate must
    agree with the oracle (exactly, or within the float threshold).

What it leaves to others: every stage above.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..checks import require_bool, require_callable, require_instance, require_int, require_real
from ..domain import Box, DomainLike
from ..errors import ComplexTooLargeError, RecoveryError, ShapeError
from ..geometry import Polyhedron
from ..geometry.rational import to_fraction
from ..network import ReLUNetwork
from ..progress import progress_bar
from ..symmetry import canonical_form, same_function
from .breakpoints import domain_inequalities
from .completion import complete_families_at_breakpoints
from .control import BudgetExhausted, Clock, StageFailed, TimeSpent
from .first_layer import (
    explained_by,
    first_layer_hyperplane,
    hyperplanes_crossing,
    partly_bent_hyperplanes,
)
from .next_layer import orientation_by_search, second_chance, stable_neurons_by_skip_traces
from .numerics import numerics_for
from .oracle import Queries
from .orientation import apply_flips, orient_layer
from .output import MissedBreakpoint, fit_output
from .partial import PartialNetwork
from .sampling import (
    check_candidate,
    check_window,
    fresh_points,
    vertex_points,
)
from .search_lines import Explorer
from .skip_features import trace_over_skip_features
from .tracing import GEOMETRY_MEMOS, drop_deeper, trace_neuron

__all__ = ["RecoveryResult", "recover_network"]

# search lines near crossings of first-layer hyperplanes before a stalled attempt ends (Explorer.search_near_crossings)
CROSSING_LINES = 24


@dataclasses.dataclass(frozen=True)
class RecoveryResult:
    """The answer of :func:`recover_network`.

    Attributes
    ----------
    status : {"recovered", "undecided"}
        ``"recovered"``: ``network`` agrees with the oracle on ``n0 + 2``
        points of every region of its own canonical complex, and on fresh
        random points spread over the whole ``domain`` its largest deviation
        is at most ``threshold`` (zero in exact mode).
    network : ReLUNetwork or None
        The recovered network in canonical form (docs/design.md §1); None unless
        recovered.
    queries : int
        Distinct points at which the oracle was evaluated.
    reason : str or None
        Why recovery is ``"undecided"`` (which step or condition failed, the
        budget spent, or the deviation above the threshold).
    breakpoints : int
        Breakpoints located on search lines.
    lines : int
        Search lines used.
    layer_widths : tuple of int
        Hidden widths found.
    regions : int
        Regions of the recovered network's complex on which ``f`` was checked.
    rounds : int
        Rebuilds (a round ends early when ``f`` bends where the network so far does not).
    elapsed : float
        Seconds.
    max_deviation : float or None
        The largest ``|f(x) - g(x)|`` over the fresh check points of the last
        candidate network ``g`` (recovered or not); None if no candidate was checked.
    domain : Box or Polyhedron or None
        The query region: the polytope given; on all of ``R^n0``
        (``whole_space``) the box over which the fresh checks were spread
        uniformly (search lines run further, see ``docs/recovery.md``).
    whole_space : bool
        Whether recovery was asked for all of ``R^n0``.
    tolerance : float or None
        Float mode: the relative tolerance used (given, or chosen from the
        oracle's answers); None in exact mode.
    threshold : float or None
        The largest deviation accepted on the fresh points of the last
        candidate: ``tolerance · max(1, max |f|)`` there, ``0`` in exact mode.
    """

    status: str
    network: ReLUNetwork | None
    queries: int
    reason: str | None
    breakpoints: int
    lines: int
    layer_widths: tuple[int, ...]
    regions: int
    rounds: int
    elapsed: float
    max_deviation: float | None = None
    domain: Box | Polyhedron | None = None
    whole_space: bool = False
    tolerance: float | None = None
    threshold: float | None = None

    def __bool__(self) -> bool:
        return self.status == "recovered"

    def __str__(self) -> str:
        head = f"recovery: {self.status}" + (f" ({self.reason})" if self.reason else "")
        arch = str(self.network.architecture) if self.network is not None else "-"
        lines = [
            head,
            f"  network            {arch}",
            f"  domain             {_describe_domain(self.domain, self.whole_space)}",
            f"  queries            {self.queries}",
            f"  breakpoints found  {self.breakpoints} on {self.lines} lines",
            f"  regions checked    {self.regions}",
            f"  rounds             {self.rounds}",
            f"  time               {self.elapsed:.2f} s",
        ]
        if self.tolerance is not None:
            lines.append(f"  tolerance          {self.tolerance:.3g} (relative, float oracle)")
        if self.max_deviation is not None:
            accepted = "" if self.threshold is None else f" (at most {self.threshold:.3g} accepted)"
            lines.append(f"  max deviation      {self.max_deviation:.3g}{accepted}")
        return "\n".join(lines)


def _describe_domain(domain, whole_space=False):
    """``box:LO,HI`` (the command line's notation), a polytope's size, or all of ``R^n0`` with its check box."""
    if domain is None:
        return "-"
    if isinstance(domain, Box):
        bounds = [domain.lower, domain.upper]
        if all(hasattr(v, "__len__") and not isinstance(v, str) for v in bounds):
            text = "box:" + ";".join(f"{to_fraction(a, 'box')},{to_fraction(b, 'box')}" for a, b in zip(*bounds))
        else:
            text = "box:" + ",".join(str(to_fraction(v, "box")) for v in bounds)
    else:
        text = f"the polytope of {len(domain.inequalities)} inequalities"
    if whole_space:
        return f"all of R^n0: whole search lines; fresh checks uniform in {text} and out to 2^20 times as far"
    return text


def _rebuild(queries, explorer, domain, numerics, rng, bar, log, one_sided=False, max_cells=1_000_000, walk=False, known_layers=None):
    """One pass: layers from the breakpoints found so far, then the output layer. Returns (layers, output rows, regions, complex).

    ``walk``: first-layer hyperplanes may also be found by walking them
    (:func:`~polyrelu.recovery.first_layer.straight_hyperplane`); costly, so not
    in the first round, which most networks need no more than.
    ``known_layers``: the caller's first hidden layers as
    :meth:`~polyrelu.recovery.partial.PartialNetwork.append_known_layers`
    leaves them (scaled, dead neurons out), in place from the start.
    ``one_sided``: the second attempt, which also accepts first-layer
    hyperplanes bent on one side only and keeps the skip traces' families along
    which a last-layer neuron is on everywhere (``PartialNetwork.on_families``).
    """
    # continuations and cuts are facts about f and the geometry (tracing._cached_continuation, _cached_cut): the
    # next round's complex repeats most of this one's polyhedra; the orientations searched before are what a round
    # that did not end in a network already tried, and those that explained everything (next_layer.orientation_by_search)
    kept = {key: log[key] for key in (*GEOMETRY_MEMOS, "orientations", "complete orientations") if key in log}
    log.clear()
    log.update(kept)
    clock = queries.clock
    partial = PartialNetwork(explorer.n0, domain, numerics, clock, max_cells)
    partial.on_families = one_sided
    if known_layers:
        partial.layers = [list(layer) for layer in known_layers]
        partial.known = len(known_layers)
        log["widths"] = tuple(len(layer) for layer in partial.layers)
    pending = list(explorer.breakpoints)
    while True:
        known = len(partial.layers)
        clock.stage = f"building the complex of {_layers_text(known)}"
        partial.rebuild()
        explains = [partial.explains(k) for k in pending]
        explorer.explained.update((k.point, k.row) for k, yes in zip(pending, explains) if yes)
        pending = [k for k, yes in zip(pending, explains) if not yes]
        if not pending:
            break
        if complete_families_at_breakpoints(queries, partial, pending, numerics, log):
            continue  # rebuilt with the completed neurons: some breakpoints explained now
        traced = []
        failed = set()  # (region, hyperplane) pieces already traced in vain at this layer
        seeds = []  # a breakpoint on each first-layer hyperplane accepted
        clock.stage = "testing first-layer hyperplanes" if not known else f"tracing layer-{known + 1} hypersurfaces"
        for bp in pending:
            piece = (None if partial.net is None else getattr(partial.locate(bp.point), "id", None), bp.row)
            if piece in failed:
                continue
            if explained_by(partial, [c if partial.net is None else c[0] for c in traced], bp):
                continue
            if partial.net is None:
                # a hyperplane is walked for a first-layer neuron seen in part; a breakpoint the layers of an earlier
                # round explained lies on a neuron found, and walking it again and again (a deeper piece, refused)
                # took a third of a round (3→5→6→6→1, sample index 29); a walk made already is remembered
                key = (bp.point, bp.row)
                walks = walk and (key not in explorer.explained or key in explorer.walks)
                found = bp.row if first_layer_hyperplane(queries, bp, explorer, walks, one_sided) else None
                if found is not None:
                    seeds.append(bp)
            else:
                found = trace_neuron(queries, partial, bp, numerics, log=log)
            if found is not None:
                traced.append(found)
            else:
                failed.add(piece)
        if partial.net is None and walk:
            crossing = hyperplanes_crossing(queries, explorer, seeds, traced, one_sided)
            explorer.breakpoints += crossing
            traced += [bp.row for bp in crossing]
        if partial.net is None and one_sided:
            traced += partly_bent_hyperplanes(queries, explorer, traced, [k for k in pending if (None, k.row) in failed])
        if partial.net is not None:
            traced = [c for c, *_ in drop_deeper(queries, partial, traced, numerics, log=log)]
        traced = [tuple(Fraction(v) for v in c) for c in traced]
        # rounded formulas may miss that a breakpoint is explained: one neuron traced twice
        traced = [c for i, c in enumerate(traced) if not any(numerics.parallel(c, d) for d in traced[:i])]
        bar.update(len(traced))
        if not traced and partial.net is not None:
            guessed = orientation_by_search(queries, partial, pending, numerics, log)
            if not guessed and len(partial.layers) > 1:
                guessed = stable_neurons_by_skip_traces(queries, partial, pending, numerics, log)
            if guessed:
                partial.append_layer(guessed)
                log["widths"] = tuple(len(layer) for layer in partial.layers)
                log["families"] = sorted(partial.free)
                continue
        if not traced:
            raise MissedBreakpoint(pending[0].point, pending[0].row)
        if partial.net is None:
            traced = [numerics.first_layer_row(c) for c in traced]
            partial.append_layer([(tuple(c[1:]), c[0]) for c in traced])
            explorer.first_layer = traced
        else:
            clock.stage = f"orienting layer {known}"
            try:
                flips, rows, _ = orient_layer(partial, traced)
                apply_flips(partial, flips)
            except StageFailed as failure:
                rows = trace_over_skip_features(queries, partial, pending, numerics, failure, log)
            clock.stage = f"tracing layer-{known + 1} hypersurfaces with layer {known} oriented"
            partial.append_layer(rows + second_chance(queries, partial, rows, pending, numerics, log))
        log["widths"] = tuple(len(layer) for layer in partial.layers)
        log["families"] = sorted(partial.free)
    clock.stage = f"fitting the output layer on the complex of {_layers_text(len(partial.layers))}"
    rows, regions = fit_output(queries, partial, numerics)
    return partial.layers, rows, regions, partial.complex


def without_needless_neurons(net, domain, points=()):
    """The candidate with every hidden neuron deleted that it computes ``f`` without (each deletion exact).

    A piece of a deeper neuron's hypersurface that misses the neurons in
    between passes for a neuron of an earlier layer; the deeper neuron, traced
    later, covers it too, so the earlier copy is not needed. Each deletion is
    kept only when :func:`~polyrelu.symmetry.same_function` proves the smaller
    network equal to the candidate on the domain; one that differs at one of
    ``points`` (exact values) is refused without that proof. Deepest layers
    are tried last, first-layer neurons never (a hyperplane is never such a
    piece).
    """
    widths = net.architecture.hidden_widths
    for layer in range(2, len(widths) + 1):
        index = 0
        while index < net.architecture.hidden_widths[layer - 1] and net.architecture.hidden_widths[layer - 1] > 1:
            smaller = net.without_neuron(layer, index)
            if all(net(x) == smaller(x) for x in points) and same_function(net, smaller, domain):
                net = smaller
            else:
                index += 1
    return net


def _uncrossed_text(log):
    """Which known neurons the undetermined traces never cross, in words (TPIC fails for those pairs)."""
    parts = []
    for layer, counts in sorted(log.get("uncrossed", {}).items()):
        if counts:
            ranked = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
            named = ", ".join(f"({layer}, {i}) ({k} of them)" if n == 0 else f"({layer}, {i}) ({k})" for n, (i, k) in enumerate(ranked))
            parts.append(f"layer-{layer + 1} hypersurfaces never cross the zero sets of the recovered neurons {named}")
    if not parts:
        return ", as when a neuron's hypersurface misses one of the previous layer's (TPIC fails)"
    return ": " + "; ".join(parts) + ", so their weights on those neurons stay free (TPIC fails for those pairs)"


def _families_text(log, stage):
    """The neurons picked from families that nothing completes, in words: suspects when the next layer fits nothing.

    A member of a family (:func:`~polyrelu.recovery.next_layer.second_chance`) has the neuron's signs but
    not necessarily its weights on the previous layer's neurons it never
    crosses. The output fit completes a family of the last layer, and one
    of the layer before it where the output reads what its traces did not
    show; a wrong pick anywhere else makes the next layer's pieces
    inconsistent, and when the output fit fails it is a suspect too.
    """
    last = len(log.get("widths", ())) - (1 if stage.startswith("fitting the output") else 0)
    inner = [(layer + 1, i) for layer, i in log.get("families", ()) if layer < last]
    if not inner:
        return ""
    named = ", ".join(f"({layer}, {i})" for layer, i in inner)
    return (
        f"; the recovered neurons {named} were picked from families whose weights on neurons they never cross stay "
        "unknown: a wrong pick there leaves the next layer's formulas without a solution"
    )


def _along_text(row):
    """`` along the hyperplane ...``: where a stalled round saw ``f`` bend, in words (empty when not known).

    A first-layer neuron that ``f`` bends along on a small part only, missed
    by the first-layer tests, is then traced as a deeper neuron in vain: the
    row names it. Scaled to a largest normal entry of 1, like the point, to 4 digits.
    """
    if row is None:
        return ""
    scale = max(abs(v) for v in row[1:])
    return " along the hyperplane c + a·x = 0 with (c, a) = (" + ", ".join(f"{float(v / scale):.4g}" for v in row) + ")"


def _layers_text(count):
    """``"layer 1"``, ``"layers 1-3"``: the hidden layers known, for the stage of a recovery."""
    return "no layer" if count == 0 else "layer 1" if count == 1 else f"layers 1-{count}"


def _check_arguments(oracle, input_dim, max_queries, lines, seed, float_oracle, tolerance, max_rounds, checks, max_seconds, max_cells, progress):
    """The numerics of :func:`recover_network` from its checked arguments: wrong types are InvalidArgumentError, unusable values UsageError."""
    caller = "recover_network"
    require_callable(oracle, "oracle", caller)
    require_int(input_dim, "input_dim", caller, minimum=1)
    for name, value in (("max_queries", max_queries), ("max_rounds", max_rounds), ("checks", checks), ("max_cells", max_cells)):
        require_int(value, name, caller, minimum=1)
    require_int(lines, "lines", caller, minimum=1, optional=True)
    require_int(seed, "seed", caller, minimum=0)
    if progress is not None:
        require_bool(progress, "progress", caller)
    require_real(max_seconds, "max_seconds", caller, above=0, optional=True)
    return numerics_for(caller, float_oracle, tolerance)


def recover_network(
    oracle: Callable[[Sequence[Any]], Any],
    input_dim: int,
    *,
    domain: DomainLike = None,
    max_queries: int = 1_000_000,
    lines: int | None = None,
    seed: int = 0,
    float_oracle: bool = False,
    tolerance: float | None = None,
    max_rounds: int = 6,
    checks: int = 64,
    max_seconds: float | None = None,
    max_cells: int = 1_000_000,
    progress: bool | None = None,
    known_layers: ReLUNetwork | None = None,
) -> RecoveryResult:
    """Rebuild a ReLU network from function values alone.

    Breakpoints of ``f`` are located exactly on random lines
    (:func:`line_breakpoints`), each with its facet hyperplane (:func:`breakpoint_data`).
    Then, layer by layer:

    1. **first layer**: a breakpoint whose hyperplane is a breakpoint of ``f``
       at random far points too is a first-layer neuron;
    2. **deeper layers**: with the layers so far known exactly, their
       canonical complex is built, and a new breakpoint is traced across its
       regions (the far-side hyperplane through the crossing is found from
       one more breakpoint); on each region a next-layer neuron is
       ``Σ w_i relu(ẑ_i) + ψ``, so the pieces give linear equations, solved
       exactly and accepted when unique up to scale with two more pieces
       agreeing;
    3. **signs**: ``relu(-z) = relu(z) - z`` makes the orientation of a layer a
       0/1 solution of a linear system read from the next layer;
    4. **output layer**: an exact linear solve from ``f``'s affine maps on
       every region of the recovered complex, ``n0 + 2`` queries each (the
       extra one checks that ``f`` is affine there).

    A region where ``f`` is not affine, or a breakpoint no neuron explains,
    sends more search lines through that place and starts a new round.

    **Acceptance.** The candidate network ``g`` is then compared with ``f``
    on fresh random points spread over the whole query region: ``checks``
    points uniform in the domain, ``checks // 2`` within ``2^-10`` of its
    boundary and up to ``checks // 4`` next to its vertices (on all of
    ``R^n0``: uniform in a box four times the breakpoints' reach, and out to
    ``2^20`` times as far), and one inside each region of ``g``'s complex
    near each of its vertices and, on ``R^n0``, far out near each of its
    rays (:func:`~polyrelu.recovery.sampling.vertex_points`). It is ``"recovered"`` only if the largest
    deviation ``max |f(x) - g(x)|`` there is at most the threshold: ``0`` in
    exact mode (exact equality), ``tolerance · max(1, max |f(x)|)`` over the
    same points in float mode. The scale is ``max |f|``, not the spread
    ``max f - min f``: a float oracle's own rounding grows with the size of
    the values it returns, not with their spread, so no smaller deviation is
    meaningful; the ``1`` keeps a function near zero from asking for less
    than the rounding of hidden activations of size about 1. The looser
    internal comparisons of the search (``10^3`` to ``10^6`` times the
    tolerance) only steer it: a point off by more than those sends search
    lines there; they never accept a network.

    Parameters
    ----------
    oracle : callable
        ``x ↦ f(x)``: takes a tuple of ``n0`` Fractions (floats in float mode)
        and returns ``m`` numbers (a tuple, list, numpy array, torch tensor or
        a scalar). Exact mode needs exact values: ints, Fractions or ``"p/q"``
        strings.
    input_dim : int
        ``n0``; recovery needs ``n0 >= 2`` (on a line, breakpoints cannot be
        attributed to layers).
    domain : Box, Polyhedron or rows, optional
        Recover ``f`` on this polytope only; by default on all of ``R^n0``.
    max_queries : int
        Budget of distinct oracle calls; when spent the answer is ``undecided``.
    lines : int, optional
        Initial search lines (default ``2 n0 + 2``).
    seed : int
        Seed of the random lines and test points (reproducible).
    float_oracle : bool
        Float mode: comparisons up to ``tolerance`` (relative), hyperplanes
        rationalised; needs a bounded ``domain``.
    tolerance : float, optional
        Float mode only: the relative tolerance of the acceptance (see above)
        and the unit of the search's comparisons. By default chosen from the
        oracle's first answer (at the centre of the domain): ``1e-4`` for
        float32 answers (numpy or torch), ``1e-2`` for float16 or bfloat16,
        ``1e-9`` for float64 and Python floats. A given value wins.
    max_rounds : int
        Rebuilds allowed before giving up.
    checks : int
        Fresh random points, uniform over the domain, on which the result is
        compared with ``f`` (and half as many near its boundary; on
        ``R^n0`` as many far out). At least 1.
    max_seconds : float, optional
        Wall-clock budget (``time.monotonic``); when spent the answer is
        ``undecided`` with the stage reached. Checked at every oracle query
        and in the loops between them; one canonical complex is built
        without interruption, bounded by ``max_cells``. None: no limit.
    max_cells : int
        Bound on the estimated cells of each canonical complex recovery
        builds; a larger one makes the answer ``undecided``.
    progress : bool, optional
        A progress bar over neurons found; by default only on a terminal and
        after a second.
    known_layers : ReLUNetwork, optional
        The first hidden layers of ``f``'s network, when the caller knows them
        (a fixed feature extractor, or to find which stage of a recovery
        fails): a network on ``R^n0`` whose every layer, its last included,
        is taken as a hidden layer of ``f`` in this orientation. Recovery
        starts from them, never changes their neurons' signs and never adds
        neurons to them; the answer's hidden layers begin with them (up to
        positive scaling, and without the neurons ``f`` does not need).

    Returns
    -------
    RecoveryResult
        Truthy when recovered. Never a network whose deviation from ``f`` on
        a point checked exceeds the threshold: otherwise ``"undecided"`` with
        the reason, and ``max_deviation`` of the last candidate. ``domain``
        states the query region.

    Raises
    ------
    RecoveryError
        The oracle is not callable or answers something that is not a
        function value (wrong length, NaN, a float in exact mode).
    UsageError
        ``tolerance``, ``max_seconds``, ``max_cells`` or ``checks`` is not a
        usable value, or a tolerance is given in exact mode.
    InvalidArgumentError
        ``known_layers`` is not a ReLUNetwork.
    ShapeError
        ``known_layers`` does not take ``n0`` inputs.

    Examples
    --------
    >>> from polyrelu import ReLUNetwork, equivalent, network_oracle
    >>> from polyrelu.examples import generic_network
    >>> net = generic_network((2, 3, 2, 1), seed=1)
    >>> result = recover_network(network_oracle(net), 2)
    >>> result.status, result.layer_widths, equivalent(result.network, net)
    ('recovered', (3, 2), True)

    A float32 oracle gets the float32 tolerance, and the answer states the
    query region:

    >>> from polyrelu import Box
    >>> f32 = lambda x: np.float32(max(x[0] + x[1] - 1, 0) + 2 * max(x[0] - 2 * x[1], 0))
    >>> result = recover_network(f32, 2, domain=Box(-4, 4), float_oracle=True, max_seconds=5)
    >>> result.tolerance, result.domain
    (0.0001, Box(lower=-4, upper=4))
    >>> result.status == "undecided" or result.max_deviation <= result.threshold
    True

    Given its first layer (as the network ``x ↦ W1 x + b1``), the rest is
    recovered over it:

    >>> net = generic_network((2, 3, 2, 1), seed=1)
    >>> first = ReLUNetwork(net.weights[:1], net.biases[:1])
    >>> result = recover_network(network_oracle(net), 2, known_layers=first)
    >>> result.status, result.layer_widths, equivalent(result.network, net)
    ('recovered', (3, 2), True)

    Notes
    -----
    The query count is ``O(n0 · regions + breakpoints)``: see ``docs/recovery.md``
    for the bound the tests check. A black box can hide breakpoints between
    the points asked (a bump narrower than the gaps between them, a
    breakpoint beyond every query): what is certified is agreement at every
    point queried, which includes ``n0 + 2`` points in every region of the
    result and the fresh points over ``domain``.
    """
    numerics = _check_arguments(oracle, input_dim, max_queries, lines, seed, float_oracle, tolerance, max_rounds, checks, max_seconds, max_cells, progress)
    n0 = int(input_dim)
    require_instance(known_layers, ReLUNetwork, "known_layers", "recover_network", optional=True)
    if known_layers is not None and known_layers.architecture.input_dim != n0:
        raise ShapeError(
            f"recover_network: known_layers takes {known_layers.architecture.input_dim} inputs but input_dim is {n0}; "
            "give the first hidden layers of a network on R^input_dim"
        )
    domain_rows = domain_inequalities(domain, n0)
    if float_oracle and domain_rows is None:
        raise RecoveryError(
            "float_oracle=True needs a bounded domain (e.g. domain=Box(-4, 4)): rounded hyperplanes drift far from the origin"
        )
    clock = Clock(max_seconds)
    queries = Queries(oracle, n0, numerics, max_queries, clock)
    rng = np.random.default_rng(seed)
    checker = rng.spawn(1)[0]  # fresh points independent of the search
    explorer = Explorer(queries, n0, domain_rows, numerics, rng)
    started = time.perf_counter()
    rounds = 0
    log: dict[str, Any] = {}  # per round: undetermined traces, widths reached
    last: dict[str, Any] = {}  # the last candidate's check: deviation, threshold, round
    bar = progress_bar(desc="neurons", unit="neuron", enabled=progress)

    def result(status, network=None, reason=None, widths=(), regions=0):
        bar.close()
        if reason and log.get("undetermined"):
            reason += f"; {log['undetermined']} traced hypersurface(s) left their formula undetermined" + _uncrossed_text(log)
        if domain_rows is None:
            region = Box(-check_window(explorer.window), check_window(explorer.window))
        else:
            region = domain if isinstance(domain, (Box, Polyhedron)) else Polyhedron(ieqs=domain_rows, ambient_dim=n0)
        deviation = last.get("deviation")
        return RecoveryResult(
            status, network, queries.count, reason, len(explorer.breakpoints), explorer.lines, tuple(widths), regions, rounds,
            time.perf_counter() - started, None if deviation is None else float(deviation), region, domain_rows is None,
            numerics.tolerance, None if last.get("threshold") is None else float(last["threshold"]),
        )

    def off_by():
        return f"the last candidate network deviates from f by {float(last['deviation']):.3g} on {last['points']} fresh points, " + (
            "where exact recovery accepts none" if not float_oracle else
            f"over the {last['threshold']:.3g} accepted (tolerance {numerics.tolerance:g} × max(1, max |f|) there)"
        )

    def stage():
        return clock.stage + (f" (round {rounds})" if rounds else "")

    if n0 == 1:
        return result("undecided", reason="input dimension 1: breakpoints on a line cannot be attributed to layers (needs n0 >= 2)")
    try:
        if float_oracle:
            clock.stage = "asking the oracle at the centre of the domain"
            vertices = explorer.vertices
            # the first answer's precision sets the default tolerance (Numerics.adopt_precision)
            queries(tuple(sum(v[i] for v in vertices) / len(vertices) for i in range(n0)))
        clock.stage = "searching breakpoints on the first search lines"
        for _ in range(2 * n0 + 2 if lines is None else lines):
            explorer.search()
        reasons = []
        known = None
        if known_layers is not None:
            # scaled and without dead neurons once: every round starts from the same layers
            clock.stage = "building the complex of the known layers"
            start = PartialNetwork(n0, domain, numerics, clock, max_cells)
            start.append_known_layers(known_layers)
            known = start.layers
            # the search near crossings of first-layer hyperplanes needs them
            explorer.first_layer = [numerics.first_layer_row((b, *w)) for w, b in known[0]]
        # a first-layer hyperplane must bend far out on both sides; only if that fails, on one side suffices (with
        # known layers, the second attempt is only more rounds from the breakpoints found so far)
        for one_sided in (False, True):
            attempt, neurons, stalled, near_crossings = 0, 0, None, False
            try:
                while attempt < max_rounds:
                    attempt += 1
                    rounds += 1
                    try:
                        layers, out_rows, regions, cells = _rebuild(
                            queries, explorer, domain, numerics, rng, bar, log, one_sided, max_cells, one_sided or attempt > 1,
                            known,
                        )
                        Ws = [[list(w) for w, _ in layer] for layer in layers] + [[list(w) for w, _ in out_rows]]
                        bs = [[b for _, b in layer] for layer in layers] + [[b for _, b in out_rows]]
                        net = ReLUNetwork(Ws, bs, name="recovered")
                        clock.stage = "checking the candidate network on fresh points"
                        points = fresh_points(checker, n0, domain_rows, explorer.vertices, check_window(explorer.window), checks)
                        points += vertex_points(cells, check_window(explorer.window) * 2**10)
                        deviation, threshold, off = check_candidate(queries, net, points, numerics)
                        last.update(deviation=deviation, threshold=threshold, round=rounds, points=len(points))
                        if off:
                            raise MissedBreakpoint(off[0])
                        widths = [len(layer) for layer in layers]
                        if deviation > threshold:  # the search saw nothing amiss; more of it would rebuild the same
                            return result("undecided", reason=off_by(), widths=widths, regions=regions)
                        clock.stage = "deleting neurons the candidate does not need"
                        net = without_needless_neurons(net, domain, points)
                        widths = list(net.architecture.hidden_widths)
                        return result("recovered", canonical_form(net), widths=widths, regions=regions)
                    except StageFailed:
                        # no orientation or completion fits: most often a neuron the search lines have not met yet (a
                        # first-layer hyperplane bent on one side only, 2→3→4→5→1, sample index 1); more lines, and the
                        # next round, as after a missed breakpoint, unless this round added no neuron either
                        found = sum(log.get("widths", ()))
                        if attempt >= max_rounds or (attempt > 1 and found <= neurons):
                            raise
                        neurons = found
                        clock.stage = "searching breakpoints on more search lines"
                        for _ in range(2 * n0 + 2):
                            explorer.search()
                    except MissedBreakpoint as missed:
                        # a round that adds no neuron ends the attempt: more of the same search rarely helps
                        # and an undecided answer should come soon
                        found = sum(log.get("widths", ()))
                        if attempt > 1 and found <= neurons:
                            if not near_crossings and explorer.first_layer:
                                # one more round first, with lines where thin hypersurfaces hide
                                near_crossings = True
                                clock.stage = "searching breakpoints on lines near crossings of first-layer hyperplanes"
                                explorer.search_near_crossings(CROSSING_LINES)
                                continue
                            where = ", ".join(f"{float(v):.4g}" for v in missed.point)
                            stalled = (
                                f"round {rounds} added no neuron to the {found} of widths {log.get('widths', ())} found while "
                                f"{clock.stage}: f bends near x = ({where}){_along_text(missed.row)} where none of them does"
                                + _families_text(log, clock.stage)
                            )
                            break
                        neurons = found
                        clock.stage = "searching breakpoints on search lines through a point where f differs"
                        for _ in range(n0 + 1):
                            explorer.search(missed.point)
                        if missed.anchor is not None:
                            explorer.search_segment(missed.anchor, missed.point)
                        for _ in range(n0 + 1):
                            explorer.search()
                reason = stalled or f"f still bends where no recovered neuron does after {attempt} rounds"
                reasons.append(reason + (f"; {off_by()}" if last.get("round") == rounds else ""))
            except StageFailed as failure:
                reasons.append(str(failure))
        if len(set(reasons)) == 1:
            return result("undecided", reason=reasons[0])
        second = "in a second attempt" if known_layers is not None else "with one-sided first-layer hyperplanes"
        return result("undecided", reason=f"{reasons[0]} ({second}: {reasons[1]})")
    except BudgetExhausted:
        return result("undecided", reason=f"the query budget ({max_queries}) is spent while {stage()}")
    except TimeSpent:
        return result("undecided", reason=f"the time budget (max_seconds={max_seconds:g}) is spent while {stage()}")
    except ComplexTooLargeError as exc:
        return result("undecided", reason=f"a complex is too large while {stage()}: {exc}")
    except StageFailed as failure:
        return result("undecided", reason=str(failure))
