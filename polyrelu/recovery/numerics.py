"""The arithmetic of recovery: exact or float, one interface.

Recovery compares the oracle's answers, solves linear systems in them and
rounds measured hyperplanes to integer rows. How it does so depends on what
the oracle answers, and on nothing else:

- :class:`ExactNumerics`: exact rational answers; every comparison is
  equality of rationals, every system is solved exactly (flint, Fractions).
  The default.
- :class:`FloatNumerics`: floating-point answers (``float_oracle=True``);
  comparisons hold up to a relative tolerance, systems are solved by least
  squares and SVD, and measured rows are rationalised. Every multiple of the
  tolerance it uses is a named field of :class:`FloatTolerances`.

Both implement :class:`Numerics`; the stages (``breakpoints``, ``tracing``,
``families``, ``orientation``, ``output``) call its methods and never ask which
mode they are in. Also here: the vector helpers on tuples of rationals the
stages share (exact linear algebra itself is :mod:`polyrelu.geometry.linalg`).

Glossary
--------
tolerance
    Float mode: the relative error allowed in one answer of the oracle
    (chosen from the precision of its answers unless given,
    :data:`DEFAULT_TOLERANCES`). ``None`` in exact mode.
shrink
    The ratio between successive probe steps, relative to the scale of the
    search.
fit
    A solution ``x`` of stacked per-region blocks ``F x = t``: ``f``'s affine
    maps written in the feature columns of the layers known so far.

What it leaves to others: where to query (``breakpoints``, ``tracing``), what
the systems mean (``families``, ``orientation``, ``output``).
"""

import abc
import dataclasses
import math
from fractions import Fraction

import numpy as np

from ..checks import require_bool, require_real
from ..errors import RecoveryError, UsageError
from ..geometry.linalg import integer_nullspace, reduced_echelon
from ..geometry.rational import primitive_integer_row
from .control import MissedBreakpoint, StageFailed

__all__ = ["Numerics", "ExactNumerics", "FloatNumerics", "FloatTolerances", "DEFAULT_TOLERANCES", "numerics_for"]

# default tolerances of the float mode by the precision of the oracle's answers: about a thousand units in the
# last place for float32 (a layer's sums lose a few digits), and the earlier default for float64
DEFAULT_TOLERANCES = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}

# measured rows are rationalised with denominators up to this (after scaling to max-abs 1)
RATIONAL_DENOMINATOR = 1 << 30


def vsub(u, v):
    return tuple(a - b for a, b in zip(u, v))


def vadd(u, v):
    return tuple(a + b for a, b in zip(u, v))


def vscale(s, u):
    return tuple(s * a for a in u)


def vdot(u, v):
    return sum(a * b for a, b in zip(u, v))


def orthogonal_part(v, normal):
    """The part of ``v`` orthogonal to ``normal`` (exact): ``v`` projected onto the hyperplane ``normal^⊥``."""
    return vsub(v, vscale(vdot(v, normal) / vdot(normal, normal), normal))


def tangent_basis(normal):
    """Integer vectors spanning ``normal^⊥`` (exact)."""
    n = len(normal)
    p = next(i for i, v in enumerate(normal) if v != 0)
    basis = []
    for j in range(n):
        if j == p:
            continue
        u = [0] * n
        u[j] = normal[p]
        u[p] = -normal[j]
        basis.append(tuple(u))
    return basis


@dataclasses.dataclass(frozen=True)
class FloatTolerances:
    """How many tolerances each float decision allows (all relative to the values compared).

    The oracle's own answers are compared within one tolerance; what is
    computed from many answers carries the rounding of each, and deeper layers
    that of every layer before them, hence the larger multiples.
    """

    screening: float = 1e5  # a candidate's value against the oracle while searching (decisions use ``threshold``)
    parallel: float = 1e5  # two coefficient vectors describing one neuron
    on_hyperplane: float = 1e6  # a recovered formula against a measured breakpoint facet
    prediction: float = 1e6  # how far (relative to |x|) a predicted hypersurface point may miss the true one
    nullspace_gap: float = 1e5  # singular values counted as zero, relative to the largest
    vanishing: float = 1e3  # a combination of features that is zero on a region
    orientation_residual: float = 1e6  # the residual of the best 0/1 orientation
    orientation_margin: float = 10.0  # the runner-up orientation's residual must be more than this many times larger
    fit_residual: float = 1e5  # an output fit's residual on any region
    grazing: float = 1e4  # a predicted point this close to a region's boundary may be a rounding sliver


class Numerics(abc.ABC):
    """The interface of recovery's arithmetic (see the module docstring).

    Attributes
    ----------
    name : str
        ``"exact mode"`` or ``"float mode"``, for messages.
    tolerance : float or None
        Float mode: the relative tolerance; ``None`` in exact mode.
    shrink, min_width : Fraction
        Ratio of successive probe steps; the narrowest interval a breakpoint
        search may bisect to (relative to its end points).
    max_side_probe : Fraction or float
        The farthest a breakpoint search probes each side of a breakpoint it
        accepts (otherwise ``shrink²`` of the interval): two breakpoints
        closer than that pass for one. Exact mode caps it at ``2^-24`` so that
        a wide interval (a line through a point far out) does not merge
        breakpoints a unit apart; float mode does not (noise).
    continuation_attempts, continuation_shrink
        How often, and by what factor, the offset from a facet shrinks when a
        hypersurface is followed across it.
    orientation_search_width : int
        The widest layer whose orientations are searched one by one when no
        breakpoint pins the next layer's formula (0: never).
    max_families : int
        The most neurons whose formula the traced pieces leave undetermined
        (families) that the output fit resolves (0: none).
    measures_continuations : bool
        Whether a hypersurface's hyperplane beyond a facet is measured at the
        breakpoint found there (rounded answers) rather than computed exactly
        from the pencil through the facet.
    """

    tolerance = None

    @abc.abstractmethod
    def equal(self, u, v):
        """Whether two answers (or values computed from them) agree."""

    def zero(self, u):
        """Whether a vector computed from answers is zero."""
        return self.equal(u, (0,) * len(u))

    @abc.abstractmethod
    def rationalize_row(self, row):
        """A primitive integer row for the hyperplane ``row`` describes."""

    @abc.abstractmethod
    def close(self, u, v):
        """Whether a candidate's values ``v`` match the oracle's ``u`` well enough to stop searching near there."""

    @abc.abstractmethod
    def threshold(self, largest):
        """The largest deviation ``|f - g|`` a recovered network may show on the fresh points."""

    @abc.abstractmethod
    def parallel(self, u, v):
        """Whether two coefficient vectors describe the same neuron (equal up to a non-zero factor)."""

    @abc.abstractmethod
    def on_hyperplane(self, row, bp):
        """Whether the integer row ``row`` is the hyperplane of the breakpoint ``bp``."""

    @abc.abstractmethod
    def query_point(self, x):
        """The point as the oracle is asked it (rationals, or floats for a float model)."""

    def check_answer_entry(self, value, where):
        """Raise :class:`~polyrelu.errors.RecoveryError` if ``value`` (an entry of an answer, at ``where``) cannot be one here."""

    def adopt_precision(self, precision):
        """Told the precision of the oracle's first answer (``"float64"``, ``"float32"``, ...)."""

    @abc.abstractmethod
    def breakpoint_sides(self, t, eps, left, right):
        """How far from the breakpoint ``t`` the maps on its two sides may be measured."""

    @abc.abstractmethod
    def prediction_reach(self, point):
        """How far a hypersurface point predicted from recovered formulas may be from the true one (0: exact)."""

    @abc.abstractmethod
    def grazing_distance(self, point):
        """Within this distance of a region's boundary a predicted point is not trusted (0: everywhere trusted)."""

    @abc.abstractmethod
    def first_layer_row(self, c):
        """The coefficient vector ``(b, w)`` of a first-layer neuron as stored (a positive multiple of ``c``)."""

    @abc.abstractmethod
    def precondition(self, rows):
        """A change of coordinates for the traced formulas' unknowns, or None."""

    @abc.abstractmethod
    def nullspace(self, rows, ncols, precondition=None):
        """A basis of ``{c : rows · c = 0}`` (in ``c = P c'`` coordinates with a precondition ``P``)."""

    def narrowed_nullspace(self, null, rows, new, ncols, precondition=None):
        """:meth:`nullspace` of ``rows``, which end with the rows ``new``; ``null`` is that of the rows before (None: unknown)."""
        return self.nullspace(rows, ncols, precondition)

    @abc.abstractmethod
    def vanishes(self, value, c, F):
        """Whether ``value = F · c`` is zero (``F`` a region's feature rows)."""

    @abc.abstractmethod
    def fit(self, blocks, regions, locate=True):
        """A solution of the stacked blocks ``F x = t`` (one per region).

        If none: None, or with ``locate`` raise :class:`MissedBreakpoint` at a
        region that contradicts the others.
        """

    @abc.abstractmethod
    def orientation(self, rows, rhs, K, M, n, max_free, clock, layer):
        """The unknowns ``(β_1..β_K, λ_11..λ_KM, t_1..t_n)`` of the orientation system, with every ``t_i`` 0 or 1.

        Raises :class:`StageFailed` naming ``layer`` when no such solution is
        found or it is not determined.
        """


class ExactNumerics(Numerics):
    """Exact decisions: every comparison is equality of rationals, every system solved exactly."""

    name = "exact mode"
    shrink = Fraction(1, 1 << 12)
    min_width = Fraction(1, 1 << 80)
    max_side_probe = Fraction(1, 1 << 24)
    continuation_attempts = 6
    orientation_search_width = 4
    max_families = 10
    measures_continuations = False

    @property
    def continuation_shrink(self):
        return self.shrink

    def equal(self, u, v):
        return u == v

    def zero(self, u):
        return not any(u)

    def rationalize_row(self, row):
        return primitive_integer_row(row)

    def close(self, u, v):
        return u == v

    def threshold(self, largest):
        return 0

    def parallel(self, u, v):
        a, b = primitive_integer_row(u), primitive_integer_row(v)
        return a == b or a == tuple(-x for x in b)

    def on_hyperplane(self, row, bp):
        row = tuple(int(v) for v in row)
        return row == bp.row or row == tuple(-v for v in bp.row)

    def query_point(self, x):
        return x

    def check_answer_entry(self, value, where):
        if isinstance(value, float):
            raise RecoveryError(
                f"{where} is the float {value!r}; exact recovery needs exact values (int, Fraction, 'p/q'). "
                "For a floating-point model pass float_oracle=True."
            )

    def breakpoint_sides(self, t, eps, left, right):
        return t - eps, t + eps

    def prediction_reach(self, point):
        return 0

    def grazing_distance(self, point):
        return 0

    def first_layer_row(self, c):
        return c

    def precondition(self, rows):
        return None

    def nullspace(self, rows, ncols, precondition=None):
        # FLINT's fraction-free basis: small integers, which later sign and orientation systems keep small
        return [tuple(map(Fraction, v)) for v in integer_nullspace(rows, ncols)]

    def narrowed_nullspace(self, null, rows, new, ncols, precondition=None):
        # a traced piece that every member fits leaves the null space as it was: dot products, not a solve (most
        # pieces of a trace whose formula is already determined)
        # the basis vectors are integers (:meth:`nullspace`), so their numerators are the vectors, multiplied fast
        if null is not None and all(not sum(a * x.numerator for a, x in zip(row, v)) for row in new for v in null):
            return null
        return self.nullspace(rows, ncols)

    def vanishes(self, value, c, F):
        return not any(value)

    def fit(self, blocks, regions, locate=True):
        solved = reduced_echelon([r for F, _ in blocks for r in F], [v for _, t in blocks for v in t])
        if solved is None:
            if not locate:
                return None
            # the first region whose map contradicts those before it: f bends where no known neuron does
            lo, hi = 1, len(blocks)
            while lo < hi:
                mid = (lo + hi) // 2
                if reduced_echelon([r for F, _ in blocks[:mid] for r in F], [v for _, t in blocks[:mid] for v in t]) is None:
                    hi = mid
                else:
                    lo = mid + 1
            raise MissedBreakpoint.in_region(regions[lo - 1])
        pivots, table = solved
        x = [Fraction(0)] * len(blocks[0][0][0])
        for r, p in enumerate(pivots):
            x[p] = table[r][-1]
        return tuple(x)

    def orientation(self, rows, rhs, K, M, n, max_free, clock, layer):
        solved = reduced_echelon(rows, rhs)
        if solved is None:
            raise StageFailed(f"no orientation of layer {layer} explains the next layer's formulas")
        pivots, table = solved
        first_flip = K + K * M
        free = [j for j in range(first_flip + n) if j not in pivots]
        if any(j < K for j in free):
            raise StageFailed(f"the biases of layer {layer + 1} are undetermined")
        if len(free) > max_free:
            raise StageFailed(f"the orientation of layer {layer} is undetermined in {len(free)} neurons")
        flip_free = [j for j in free if j >= first_flip]
        for bits in range(1 << len(flip_free)):
            clock.check()
            x = [Fraction(0)] * (first_flip + n)
            for b, j in enumerate(flip_free):
                x[j] = Fraction((bits >> b) & 1)
            for r, p in enumerate(pivots):
                x[p] = table[r][-1] - sum(table[r][j] * x[j] for j in free)
            if all(v in (0, 1) for v in x[first_flip:]):
                return x
        raise StageFailed(f"no 0/1 orientation of layer {layer} fits the next layer's formulas")


class FloatNumerics(Numerics):
    """Float-oracle mode: comparisons up to a relative tolerance, least squares, rows rationalised.

    Parameters
    ----------
    tolerance : float or None
        The relative tolerance of one answer; None: chosen from the precision
        of the oracle's first answer (:data:`DEFAULT_TOLERANCES`).
    tolerances : FloatTolerances
        The multiples of ``tolerance`` each decision allows.
    """

    name = "float mode"
    shrink = Fraction(1, 1 << 6)
    min_width = Fraction(1, 1 << 30)
    max_side_probe = math.inf
    # float answers lose a breakpoint in noise on tiny segments: fewer, gentler shrinks
    continuation_attempts = 3
    continuation_shrink = Fraction(1, 8)
    # a wrong orientation's inconsistent pieces cannot be told from noise
    orientation_search_width = 0
    max_families = 0
    # through the pencil, the error of a rounded hyperplane would grow like 1/offset
    measures_continuations = True
    max_orientation_flips = 14  # every 0/1 orientation is scored at once: 2^n columns

    def __init__(self, tolerance=None, tolerances=FloatTolerances()):
        self.tolerance = tolerance
        self.tolerances = tolerances
        self.denominator = RATIONAL_DENOMINATOR

    def equal(self, u, v):
        scale = 1 + max((abs(float(a)) for a in (*u, *v)), default=0.0)
        return all(abs(float(a) - float(b)) <= self.tolerance * scale for a, b in zip(u, v))

    def rationalize_row(self, row):
        big = max(abs(float(v)) for v in row)
        if big == 0:
            return tuple(0 for _ in row)
        approx = [Fraction(float(v) / big).limit_denominator(self.denominator) for v in row]
        return primitive_integer_row(approx)

    def close(self, u, v):
        # screening for the search only (a point far off sends more search lines there): the recovered
        # parameters carry the rounding of every layer, so this is looser than :meth:`threshold`, which decides
        scale = 1 + max(abs(float(a)) for a in u)
        return all(abs(float(a) - float(b)) <= self.tolerances.screening * self.tolerance * scale for a, b in zip(u, v))

    def threshold(self, largest):
        """``tolerance · max(1, largest)``, ``largest`` the largest ``|f|`` on the fresh points (see :func:`recover_network`)."""
        return self.tolerance * max(1.0, float(largest))

    def parallel(self, u, v):
        a, b = np.array([float(x) for x in u]), np.array([float(x) for x in v])
        a, b = a / np.abs(a).max(), b / np.abs(b).max()
        return bool(min(np.abs(a - b).max(), np.abs(a + b).max()) <= self.tolerances.parallel * self.tolerance)

    def on_hyperplane(self, row, bp):
        a = np.array([float(v) for v in row])
        b = np.array([float(v) for v in bp.row])
        if not a[1:].any():
            return False
        a, b = a / np.abs(a[1:]).max(), b / np.abs(b[1:]).max()
        if a @ b < 0:
            a = -a
        value = abs(a[0] + a[1:] @ np.array([float(v) for v in bp.point]))
        size = 1 + max(abs(float(v)) for v in bp.point)
        allowed = self.tolerances.on_hyperplane * self.tolerance
        return bool(np.abs(a[1:] - b[1:]).max() <= allowed and value <= allowed * size)

    def query_point(self, x):
        return tuple(float(v) for v in x)

    def adopt_precision(self, precision):
        if self.tolerance is None:
            self.tolerance = DEFAULT_TOLERANCES[precision]

    def breakpoint_sides(self, t, eps, left, right):
        return left, right  # long steps against noise

    def prediction_reach(self, point):
        return (1 + max(abs(v) for v in point)) * Fraction(self.tolerance * self.tolerances.prediction)

    def grazing_distance(self, point):
        return self.tolerances.grazing * self.tolerance * (1 + max(abs(v) for v in point))

    def first_layer_row(self, c):
        return vscale(1 / max(abs(v) for v in c[1:]), c)  # unit rows keep later least-squares systems well scaled

    def precondition(self, rows):
        # traced formulas are solved in an orthonormal basis of the feature functions: the raw relu / linear
        # columns agree on many regions, and noisy equations would lose digits to that
        G = np.array([[float(v) for v in row] for row in rows])
        _, r = np.linalg.qr(G)
        return np.linalg.inv(r)

    def nullspace(self, rows, ncols, precondition=None):
        if not rows:
            return [tuple(Fraction(int(i == j)) for j in range(ncols)) for i in range(ncols)]
        M = np.array([[float(v) for v in r] for r in rows])
        P = np.eye(ncols) if precondition is None else precondition
        M = M @ P
        M /= np.maximum(np.abs(M).max(axis=1, keepdims=True), 1e-300)
        _, s, vt = np.linalg.svd(M)
        s = np.concatenate([s, np.zeros(ncols - len(s))])
        # the equations come from measured hyperplanes: their residual is far above the oracle's tolerance
        null = [P @ vt[i] for i in range(ncols) if s[i] <= self.tolerance * self.tolerances.nullspace_gap * s[0]]
        # scaled to max-abs 1, not to integers: these coefficients meet biases of size ~1 later
        return [tuple(Fraction(float(v) / np.abs(c).max()).limit_denominator(self.denominator) for v in c) for c in null]

    def vanishes(self, value, c, F):
        scale = max(abs(float(v)) for v in c) * max(abs(float(v)) for row in F for v in row)
        return max(abs(float(v)) for v in value) <= self.tolerances.vanishing * self.tolerance * scale

    def fit(self, blocks, regions, locate=True):
        M = np.array([[float(v) for v in r] for F, _ in blocks for r in F])
        y = np.array([float(v) for _, t in blocks for v in t])
        x, *_ = np.linalg.lstsq(M, y, rcond=None)
        per_region = np.abs(M @ x - y).reshape(len(blocks), -1).max(axis=1)
        scale = 1 + np.abs(y).max()
        worst = int(np.argmax(per_region))
        if per_region[worst] > self.tolerances.fit_residual * self.tolerance * scale:
            if not locate:
                return None
            raise MissedBreakpoint.in_region(regions[worst])
        return tuple(Fraction(float(v)) for v in x)

    def orientation(self, rows, rhs, K, M, n, max_free, clock, layer):
        # every 0/1 orientation scored by least squares at once; moves along a null space (M > 0) need exact mode
        if n > self.max_orientation_flips:
            raise StageFailed(f"{self.name} orients at most {self.max_orientation_flips} neurons per layer by search, not {n}")
        if M:
            raise StageFailed(f"{self.name} does not move the output's formula along its null space")
        A = np.array([[float(v) for v in r] for r in rows])
        y = np.array([float(v) for v in rhs])
        T = ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1).astype(float)  # every orientation, one per row
        B = A[:, :K]
        # for each t, the best biases solve B β = y - A_t t; score the residual
        pinv = np.linalg.pinv(B) if K else np.zeros((0, len(y)))
        R = y[:, None] - A[:, K:] @ T.T
        residual = R - B @ (pinv @ R)
        score = np.linalg.norm(residual, axis=0) / (1 + np.linalg.norm(y) + np.linalg.norm(A))
        order = np.argsort(score)
        best = int(order[0])
        # a discrete choice: the best orientation must fit and stand out from the next one
        runner_up = score[order[1]] if len(order) > 1 else np.inf
        if score[best] > self.tolerances.orientation_residual * self.tolerance or runner_up <= self.tolerances.orientation_margin * score[best]:
            raise StageFailed(f"no orientation stands out within the float tolerance (best residuals {score[best]:.2g}, {runner_up:.2g})")
        betas = pinv @ R[:, best]
        return [Fraction(float(b)) for b in betas] + [Fraction(int(v)) for v in T[best]]


def numerics_for(caller, float_oracle, tolerance):
    """The numerics of a recovery call: checks ``float_oracle`` and ``tolerance`` as :func:`recover_network` documents.

    Raises
    ------
    InvalidArgumentError
        ``float_oracle`` is not a bool, or ``tolerance`` not a real number.
    UsageError
        A tolerance given in exact mode, or one outside ``(0, 1)``.
    """
    if not require_bool(float_oracle, "float_oracle", caller):
        if tolerance is not None:
            raise UsageError(f"{caller}: tolerance applies to float oracles (float_oracle=True); exact recovery compares exactly")
        return ExactNumerics()
    if tolerance is not None and require_real(tolerance, "tolerance", caller, above=0) >= 1:
        raise UsageError(f"{caller}: tolerance must be a number in (0, 1), such as 1e-9 or 1e-4, not {tolerance!r}")
    return FloatNumerics(None if tolerance is None else float(tolerance))
