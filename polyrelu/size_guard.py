"""The size guard of the canonical complex: how many cells a layer will make, before it is cut.

:func:`~polyrelu.complex.canonical_complex` asks a :class:`SizeGuard`
before each layer whether the complex could grow past ``max_cells``, and
refuses the layer with :class:`~polyrelu.errors.ComplexTooLargeError` (the
estimate in the message) when it could. The estimates:

* the first layer is a hyperplane arrangement: its cell count on ``R^n0`` is
  :func:`arrangement_cells_bound` with the rank of ``W1`` (exact for
  hyperplanes in general position); inside a polytope, the number of flats
  meeting it is sampled (:func:`first_layer_cell_count`);
* a later layer is affine on every current cell, so inside a cell it is an
  arrangement of hyperplanes; the cells it makes are counted exactly inside a
  two-phase sample of the current cells, on copies of their closures
  (:func:`check_next_layer`, :class:`CellSample`), with a margin of twice the
  standard error.

See ``docs/design.md`` §2 and the measured accuracy in ``docs/benchmarks.md``.
"""

import itertools
import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

from .errors import ComplexTooLargeError
from .geometry import Polyhedron
from .geometry.linalg import rank
from .geometry.rational import primitive_integer_row

__all__ = [
    "ESTIMATE_SAMPLES",
    "arrangement_cells_bound",
    "Count",
    "SizeGuard",
    "Estimated",
    "CellSample",
    "check_next_layer",
    "first_layer_cell_count",
]

# Cells sampled per dimension when the size of the next layer's complex is estimated.
ESTIMATE_SAMPLES = 24


def arrangement_cells_bound(k, d):
    """Number of cells of all dimensions of ``k`` affine hyperplanes in general position in ``R^d``.

    Each flat, the intersection of ``d - j`` of the hyperplanes, is cut by
    the other ``k - (d - j)`` into ``sum_{i <= j} C(k - (d - j), i)`` regions
    of dimension ``j``. For hyperplanes not in general position it is an
    upper bound.

    Examples
    --------
    >>> arrangement_cells_bound(2, 2), arrangement_cells_bound(20, 2)   # 2 lines: 9 cells; 20 lines: 1 + 2·20 + 4·190
    (9, 801)
    """
    return sum(
        math.comb(k, d - j) * sum(math.comb(k - (d - j), i) for i in range(j + 1)) for j in range(d + 1) if d - j <= k
    )


@dataclass(frozen=True)
class Count:
    """A cell count: exact, estimated with a margin (twice the standard error), or a lower bound."""

    value: int
    lower_bound: bool
    margin: int = 0


class SizeGuard:
    """Before each layer: could the complex grow past ``max_cells``?

    ``check`` gets a cheap upper bound and a callable computing the sampled
    estimate (a :class:`Count`); the estimate is computed only when the bound
    exceeds the limit, and the layer is refused when the estimate plus its
    margin does: a sampling error must not let a layer far over the limit
    through. A guard made with ``stop_at`` computes the estimate at that
    layer whatever the bound, and stops the construction there (see
    :func:`estimate_cells`).
    """

    def __init__(self, max_cells, stop_at=None):
        self.max_cells = max_cells
        self.stop_at = stop_at

    def check(self, layer, cells, bound, estimate):
        if layer == self.stop_at:
            raise Estimated(estimate(10 * self.max_cells))
        if bound <= self.max_cells:
            return
        count = estimate(self.max_cells)
        if count.value + count.margin > self.max_cells:
            raise _too_large(layer, count, cells, self.max_cells)


class Estimated(Exception):
    """Stops a construction at the layer a :class:`SizeGuard` was asked to estimate."""

    def __init__(self, count):
        super().__init__(count)
        self.count = count


def _too_large(layer, count, cells, max_cells):
    """The refusal of a layer, with the estimate (and its margin) in the message."""
    if count.lower_bound:
        about = f"at least {count.value:,} cells"
    elif count.margin:
        about = f"about {count.value:,} cells (up to {count.value + count.margin:,} within the sampling error)"
    else:
        about = f"{count.value:,} cells"
    return ComplexTooLargeError(
        f"layer {layer} would bring the complex to {about} (now {cells:,}), over max_cells={max_cells:,}; "
        "pass a larger max_cells (--max-cells) or a smaller domain",
        count.value,
        0 if count.lower_bound else count.margin,
    )


class CellSample:
    """A two-phase sample of the current cells, to estimate how many cells a cut makes inside them.

    Every cell of the next complex lies in the relative interior of exactly
    one current cell, so the total is a sum over current cells, estimated
    stratum by stratum (``strata`` maps keys whose first entry is the
    dimension to lists of cells; points are never cut).

    Counts are right-skewed (a few large cells take dozens of hypersurfaces),
    so each stratum is sampled in two phases. First, up to
    ``8 * ESTIMATE_SAMPLES`` cells get a cheap ``size(cell) -> (u, exact)``:
    an upper bound ``u`` on their count, or the count itself when ``exact``
    (without ``size``, ``u = 1``). Then (:meth:`estimate`)
    ``ESTIMATE_SAMPLES`` of the others are drawn with probability
    proportional to ``u`` and counted exactly, and ``sum(u) * mean(count / u)``
    estimates their total: the Hansen-Hurwitz estimator, unbiased, and exact
    when counts are proportional to ``u``.
    """

    def __init__(self, strata, size=None, seed=0):
        self.rng = np.random.default_rng(seed)
        self.strata = []  # (scale, [exactly known counts], [(cell, u)]) per stratum
        self.points = 0
        for key in sorted(strata):
            cells = strata[key]
            if key[0] == 0:
                self.points += len(cells)
                continue
            if not cells:
                continue
            first = cells
            if len(cells) > 8 * ESTIMATE_SAMPLES:
                first = [cells[i] for i in self.rng.choice(len(cells), 8 * ESTIMATE_SAMPLES, replace=False)]
            known, rest = [], []
            for cell in first:
                u, exact = size(cell) if size is not None else (1, False)
                if exact:
                    known.append(u)
                else:
                    rest.append((cell, u))
            self.strata.append((len(cells) / len(first), known, rest))

    def upper(self):
        """The first phase's estimate of an upper bound on the count (no cell is counted)."""
        return self.points + sum(scale * (sum(known) + sum(u for _, u in rest)) for scale, known, rest in self.strata)

    def estimate(self, count_inside, max_cells):
        """The estimated count (:class:`Count`).

        ``count_inside(cell, cap)`` counts exactly what the cut makes inside
        ``cell``, and may stop at ``cap``. Counting stops once the estimate is
        sure to exceed ``max_cells``: it is then returned as a lower bound.

        The margin is twice the estimated standard error: of the second phase
        (the spread of ``count / probability`` over the draws) and of the first
        (the spread, over the first-phase cells, of their counts, known or
        predicted as ``u`` times the stratum's mean ratio of count to ``u``).
        """
        total, variance = float(self.points), 0.0
        counts = {}
        for scale, known, rest in self.strata:
            if len(rest) <= ESTIMATE_SAMPLES:
                draws = [(i, 1.0) for i in range(len(rest))]
            else:
                weights = np.array([u for _, u in rest], dtype=float)
                picked = self.rng.choice(len(rest), ESTIMATE_SAMPLES, p=weights / weights.sum())
                draws = [(i, weights.sum() / (weights[i] * ESTIMATE_SAMPLES)) for i in picked]
            budget = (max_cells - total) / scale - sum(known)  # what this stratum may add before the limit is passed
            partial = 0.0
            for i, factor in draws:
                if i not in counts:  # a cell drawn twice is counted once
                    counts[i] = count_inside(rest[i][0], math.ceil((budget - partial) / factor) + 1)
                partial += factor * counts[i]
                if partial > budget:
                    # past the limit: rounded up, since a count truncated down to max_cells would pass the guard
                    return Count(math.ceil(total + scale * (sum(known) + partial)), True)
            variance += scale**2 * _draw_variance(draws, counts) + _first_phase_variance(scale, known, rest, partial)
            counts.clear()
            total += scale * (sum(known) + partial)
        return Count(int(round(total)), False, int(2 * math.sqrt(variance)))


def _draw_variance(draws, counts):
    """The variance of the Hansen-Hurwitz total over ``draws`` (zero when every cell was counted)."""
    if len(draws) < 2 or all(factor == 1.0 for _, factor in draws):
        return 0.0
    values = np.array([factor * counts[i] * len(draws) for i, factor in draws])
    return float(values.var(ddof=1) / len(draws))


def _first_phase_variance(scale, known, rest, rest_total):
    """The variance from scaling the first-phase cells up to the whole stratum (simple random sampling)."""
    n = len(known) + len(rest)
    if scale <= 1 or n < 2:
        return 0.0
    sizes = np.array([u for _, u in rest], dtype=float)
    ratio = rest_total / sizes.sum() if len(rest) else 0.0
    values = np.concatenate([np.array(known, dtype=float), sizes * ratio])
    population = scale * n
    return float(population**2 * (1 - 1 / scale) * values.var(ddof=1) / n)


def check_next_layer(guard, subdivision, values, signs, evaluate, neurons, layer):
    """Ask the guard whether the layer's cuts may bring the subdivision past its limit.

    Every neuron of the layer is affine on every current cell, so what the
    layer makes inside a cell is an arrangement of at most ``len(neurons)``
    hyperplanes: the arrangement bound settles small cases at once, otherwise
    the cut is counted exactly inside a sample of cells
    (:class:`CellSample`), on a copy of each sampled cell's closure.
    ``values[i]`` are the exact values at vertex ``i`` (indexed by neuron),
    ``signs(i)`` their signs, which the first phase reads (cheaper when they
    are certified from floats).
    """
    finite = subdivision.finite_cells()
    by_dim = defaultdict(list)
    for c in finite:
        by_dim[subdivision.cells[c].dim,].append(c)
    bound = sum(len(cells) * arrangement_cells_bound(len(neurons), dim) for (dim,), cells in by_dim.items())

    def size(cid):
        # hyperplanes crossing the cell: both signs at its vertices; one splits it in three
        positive = negative = 0
        for i in subdivision.cell_vertices(cid):
            row = signs(i)
            for bit, k in enumerate(neurons):
                if row[k] > 0:
                    positive |= 1 << bit
                elif row[k] < 0:
                    negative |= 1 << bit
        crossing = bin(positive & negative).count("1")
        if crossing <= 1:
            return 1 + 2 * crossing, True
        return arrangement_cells_bound(crossing, subdivision.cells[cid].dim), False

    def count_inside(cid, cap):
        local, vertex_map = subdivision.closure(cid)
        local_values = [values[i] for i in vertex_map]
        inside = 1
        for k in neurons:
            if len(local_values) < len(local.vertices):
                local_values.extend(evaluate(local.vertices[len(local_values):]))
            local.cut([v[k] for v in local_values])
            inside = int((local.sign_matrix(local.finite_cells())[:, 0] == 1).sum())
            if inside >= cap:
                break
        return inside

    sample = None

    def estimate(cap):
        return sample.estimate(count_inside, cap)

    if bound > guard.max_cells or layer == guard.stop_at:
        sample = CellSample(by_dim, size)
        # the first phase alone clears most layers far below the limit: skip the exact counts then
        bound = min(bound, 2 * sample.upper())
    guard.check(layer, len(finite), bound, estimate)


def first_layer_cell_count(net, domain_rows, cap):
    """The first layer's arrangement: its cell count on ``R^n0``, estimated inside a polytope domain.

    For hyperplanes in general position, the arrangement cut out of a convex
    set has ``sum_i 2^i N_i`` relatively open cells, ``N_i`` being the number
    of ``i``-element subsets of hyperplanes whose intersection meets the set
    (``N_0 = 1``). On ``R^n0``, ``N_i = C(width, i)`` up to the rank of ``W1``
    (:func:`arrangement_cells_bound`, exact for hyperplanes in general
    position). Inside a polytope, ``N_i`` is estimated from random subsets,
    each decided by an exact emptiness test; the polytope's own faces add a
    few cells more. ``cap`` is unused: the count costs the same either way.

    Returns
    -------
    Count
        Never only a lower bound; its margin is twice the standard error of
        the sampled ``N_i``.
    """
    width, n0 = net.architecture.hidden_widths[0], net.architecture.input_dim
    rows = [primitive_integer_row((b, *W)) for W, b in zip(net.weights[0], net.biases[0])]
    if not domain_rows:
        return Count(arrangement_cells_bound(width, rank([r[1:] for r in rows])), False)
    rng = np.random.default_rng(0)
    estimate, variance = 1.0, 0.0
    for i in range(1, n0 + 1):
        subsets = math.comb(width, i)
        if subsets <= ESTIMATE_SAMPLES:
            chosen = list(itertools.combinations(range(width), i))
        else:
            chosen = [rng.choice(width, i, replace=False) for _ in range(ESTIMATE_SAMPLES)]
        hits = sum(not Polyhedron(ieqs=domain_rows, eqns=[rows[j] for j in c], ambient_dim=n0).is_empty() for c in chosen)
        share = hits / len(chosen)
        estimate += 2**i * subsets * share
        if subsets > len(chosen):
            variance += (2**i * subsets) ** 2 * share * (1 - share) / len(chosen)
    return Count(int(round(estimate)), False, int(2 * math.sqrt(variance)))
