"""Recovery of a network's parameters from function values alone.

The constructive side of identifiability (docs/design.md §5, §6): given only a black
box ``x ↦ f(x)`` and the input dimension, rebuild a network computing ``f``.
The algorithms here never see parameters; they query the oracle and do exact
rational arithmetic on the answers.

- :func:`line_kinks`: the breakpoints of ``f`` on a line, exactly: ``f`` is
  piecewise linear there, so two one-sided lines meet at the kink.
- :func:`kink_data`: the affine maps of ``f`` on both sides of a breakpoint,
  the breakpoint facet's hyperplane (primitive integer row) and its tropical
  weight (docs/design.md §3).
- :func:`recover_network`: layer by layer, from breakpoints on random lines to
  a network, with every neuron's formula solved exactly and the result checked
  against the oracle on every region of its own canonical complex.

Floats may appear only in the float-oracle mode (``float_oracle=True``),
which is named as such, rationalises its answers and reports how far the
recovered network is from the oracle on fresh points.
"""

import dataclasses
import itertools
import math
import sys
import time
from fractions import Fraction

import flint
import numpy as np
from tqdm import tqdm

from .checks import require_bool, require_callable, require_instance, require_int, require_real, require_sequence
from .complex import Box, domain_polyhedron, canonical_complex
from .errors import ComplexTooLargeError, GeometryError, PolyReluError, RecoveryError, ShapeError, UsageError
from .geometry import Polyhedron
from .geometry.rational import fmpq_matrix, fraction_rows, primitive_integer_row, reduced_echelon, row_value, to_fraction, to_fraction_vector
from .network import ReLUNetwork
from .symmetry import canonical_form

__all__ = [
    "RecoveryResult",
    "Kink",
    "network_oracle",
    "line_kinks",
    "kink_data",
    "recover_network",
]


class _BudgetExhausted(Exception):
    """Raised inside recovery when ``max_queries`` distinct points have been asked."""


class _Failure(Exception):
    """A step could not be carried out; the message is the reason reported as ``undecided``."""


class _TimeSpent(Exception):
    """Raised inside recovery when ``max_seconds`` have passed; the message is the stage reached."""


class _Clock:
    """The wall-clock budget of one recovery (``time.monotonic``) and the stage it has reached.

    Work loops call :meth:`check`; every oracle query does too
    (:class:`_Queries`), so a search that never leaves one stage is still cut.
    ``stage`` names what recovery is doing, for the reason when time runs out.
    """

    def __init__(self, max_seconds=None):
        self.deadline = None if max_seconds is None else time.monotonic() + max_seconds
        self.stage = "starting"

    def check(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _TimeSpent(self.stage)


# ---------------------------------------------------------------------------- vectors
def _sub(u, v):
    return tuple(a - b for a, b in zip(u, v))


def _add(u, v):
    return tuple(a + b for a, b in zip(u, v))


def _mul(s, u):
    return tuple(s * a for a in u)


def _dot(u, v):
    return sum(a * b for a, b in zip(u, v))


def _tangent_basis(normal):
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


# ---------------------------------------------------------------------------- numerics
class _Exact:
    """Exact decisions: every comparison is equality of rationals."""

    shrink = Fraction(1, 1 << 12)  # step sizes relative to the scale of the search
    min_width = Fraction(1, 1 << 80)

    def equal(self, u, v):
        return u == v

    def zero(self, u):
        return not any(u)

    def rationalize_row(self, row):
        return primitive_integer_row(row)

    def close(self, u, v):
        """Whether a recovered network's values ``v`` match the oracle's ``u`` (exactly, here)."""
        return u == v

    def threshold(self, largest):
        """The largest deviation ``|f - g|`` a recovered network may show on the fresh points: none, here."""
        return 0

    def parallel(self, u, v):
        """Whether two coefficient vectors describe the same neuron (equal up to a non-zero factor)."""
        a, b = primitive_integer_row(u), primitive_integer_row(v)
        return a == b or a == tuple(-x for x in b)

    def on_hyperplane(self, row, kink):
        """Whether ``row`` (an integer row) is the kink's hyperplane."""
        row = tuple(int(v) for v in row)
        return row == kink.row or row == tuple(-v for v in kink.row)


class _Float(_Exact):
    """Float-oracle mode: comparisons up to a relative tolerance, rows rationalised."""

    shrink = Fraction(1, 1 << 6)
    min_width = Fraction(1, 1 << 30)

    def __init__(self, tolerance, denominator):
        self.tolerance = tolerance
        self.denominator = denominator

    def equal(self, u, v):
        scale = 1 + max((abs(float(a)) for a in (*u, *v)), default=0.0)
        return all(abs(float(a) - float(b)) <= self.tolerance * scale for a, b in zip(u, v))

    def zero(self, u):
        return self.equal(u, (0,) * len(u))

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
        return all(abs(float(a) - float(b)) <= 1e5 * self.tolerance * scale for a, b in zip(u, v))

    def threshold(self, largest):
        """``tolerance · max(1, largest)``, ``largest`` the largest ``|f|`` on the fresh points (see :func:`recover_network`)."""
        return self.tolerance * max(1.0, float(largest))

    def parallel(self, u, v):
        a, b = np.array([float(x) for x in u]), np.array([float(x) for x in v])
        a, b = a / np.abs(a).max(), b / np.abs(b).max()
        return bool(min(np.abs(a - b).max(), np.abs(a + b).max()) <= 1e5 * self.tolerance)

    def on_hyperplane(self, row, kink):
        a = np.array([float(v) for v in row])
        b = np.array([float(v) for v in kink.row])
        if not a[1:].any():
            return False
        a, b = a / np.abs(a[1:]).max(), b / np.abs(b[1:]).max()
        if a @ b < 0:
            a = -a
        value = abs(a[0] + a[1:] @ np.array([float(v) for v in kink.point]))
        size = 1 + max(abs(float(v)) for v in kink.point)
        # deeper formulas carry the rounding of every layer before them: looser than the oracle's tolerance
        return bool(np.abs(a[1:] - b[1:]).max() <= 1e6 * self.tolerance and value <= 1e6 * self.tolerance * size)


# ---------------------------------------------------------------------------- oracle
# default tolerances of the float-oracle mode by the precision of the oracle's answers: about a thousand units
# in the last place for float32 (a layer's sums lose a few digits), and the earlier default for float64
_DEFAULT_TOLERANCES = {"float64": 1e-9, "float32": 1e-4, "float16": 1e-2, "bfloat16": 1e-2}


def _answer_precision(value):
    """``"float64"``, ``"float32"``, ``"float16"`` or ``"bfloat16"``: the floats an oracle answers in.

    Read from the ``dtype`` of a numpy array or scalar or a torch tensor (or of
    the first entry of a list of them); Python floats and exact numbers count
    as ``"float64"``.
    """
    dtype = getattr(value, "dtype", None)
    if dtype is None and isinstance(value, (list, tuple)) and value:
        dtype = getattr(value[0], "dtype", None)
    name = str(dtype) if dtype is not None else ""
    return next((key for key in ("bfloat16", "float16", "float32") if name.endswith(key)), "float64")


class _Queries:
    """The oracle behind a cache, a counter, a budget and a clock; answers are checked and made exact.

    ``precision`` is that of the first answer (:func:`_answer_precision`).
    """

    def __init__(self, oracle, input_dim, numerics, max_queries, clock=None):
        if not callable(oracle):
            raise RecoveryError(f"the oracle must be callable (x -> f(x)), not {type(oracle).__name__}")
        self.oracle = oracle
        self.n0 = input_dim
        self.numerics = numerics
        self.max_queries = max_queries
        self.clock = clock or _Clock()
        self.cache = {}
        self.output_dim = None
        self.precision = None

    @property
    def count(self):
        return len(self.cache)

    def __call__(self, x):
        self.clock.check()
        x = tuple(x)
        hit = self.cache.get(x)
        if hit is not None:
            return hit
        if len(self.cache) >= self.max_queries:
            raise _BudgetExhausted
        floats = isinstance(self.numerics, _Float)
        value = self.oracle(tuple(float(v) for v in x) if floats else x)
        value = self._check(value, x, floats)
        self.cache[x] = value
        return value

    def _check(self, value, x, floats):
        where = f"the oracle's answer at x = ({', '.join(map(str, x))})"
        if self.precision is None:
            self.precision = _answer_precision(value)
        if isinstance(value, np.ndarray) or (hasattr(value, "dtype") and hasattr(value, "tolist")):
            value = np.asarray(value.tolist(), dtype=object).ravel().tolist()  # numpy arrays and scalars, torch tensors
        elif not isinstance(value, (list, tuple)):
            value = [value]
        if not value:
            raise RecoveryError(f"{where} is empty; f must return m >= 1 numbers")
        if self.output_dim is None:
            self.output_dim = len(value)
        elif len(value) != self.output_dim:
            raise RecoveryError(f"{where} has {len(value)} entries, earlier answers had {self.output_dim}")
        out = []
        for i, v in enumerate(value):
            if hasattr(v, "item") and not isinstance(v, (int, Fraction)):
                v = v.item()  # numpy and torch scalars
            if isinstance(v, float) and not math.isfinite(v):
                raise RecoveryError(f"{where}: entry {i} is {v!r}, not a finite number")
            if not floats and isinstance(v, float):
                raise RecoveryError(
                    f"{where}: entry {i} is the float {v!r}; exact recovery needs exact values (int, Fraction, 'p/q'). "
                    "For a floating-point model pass float_oracle=True."
                )
            try:
                out.append(to_fraction(v, f"{where}, entry {i}"))
            except PolyReluError as exc:
                raise RecoveryError(str(exc)) from None
        return tuple(out)


def network_oracle(net, float_output=False):
    """A black box for ``net``: a closure ``x ↦ net(x)`` that hides the network.

    Parameters
    ----------
    net : ReLUNetwork
    float_output : bool
        Return floats (a model evaluated in floating point), for the
        float-oracle mode of :func:`recover_network`.

    Returns
    -------
    callable
        Maps a sequence of ``n0`` numbers to a tuple of ``m`` values.

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> f = network_oracle(ReLUNetwork([[[1, -1]], [[2]]], [[0], [1]]))
    >>> f((3, 1)), network_oracle(ReLUNetwork([[[1, -1]], [[2]]], [[0], [1]]), float_output=True)((3, 1))
    ((Fraction(5, 1),), (5.0,))
    """
    require_instance(net, ReLUNetwork, "net", "network_oracle")
    if require_bool(float_output, "float_output", "network_oracle"):
        return lambda x: tuple(float(v) for v in net(x))
    return lambda x: net(x)


# ---------------------------------------------------------------------------- kinks on a line
def _intersection(ga, sa, a, gb, sb, b, numerics):
    """The parameter where the lines ``ga + sa (t - a)`` and ``gb + sb (t - b)`` meet, or None."""
    ds = _sub(sa, sb)
    k = max(range(len(ds)), key=lambda i: abs(ds[i]))
    if ds[k] == 0:
        return None
    t = (gb[k] - sb[k] * b - ga[k] + sa[k] * a) / ds[k]
    if not numerics.equal(_add(ga, _mul(t - a, sa)), _add(gb, _mul(t - b, sb))):
        return None
    return t


# bisection splits off-centre: kinks of structured functions sit at simple fractions of simple intervals,
# and a kink exactly at a split point would be invisible from both halves
_SPLIT = Fraction(53, 128)


def _segment_kinks(g, a, b, numerics):
    """Kinks of the piecewise-linear ``g`` on ``[a, b]``: ``(t, left slope, right slope, t0, t1)`` with ``g`` linear on ``[t0, t]`` and ``[t, t1]``.

    An interval is accepted as linear when the slopes at both ends agree and
    ``g`` is on that line at the midpoint and the far end; it holds one kink
    ``t`` when the two end lines meet at ``t`` and ``g`` is on the left line at
    ``(a + t)/2`` and ``t``, on the right line at ``(t + b)/2``. Otherwise it is
    bisected. A black box can hide kinks that cancel between sample points;
    these checks make that a coincidence of exact rationals.
    """
    found = []
    stack = [(a, b)]
    while stack:
        a, b = stack.pop()
        width = b - a
        if width <= numerics.min_width * (1 + abs(a) + abs(b)):
            raise _Failure(f"could not separate the kinks of f near t = {float(a):.6g} on a search line")
        h = width * numerics.shrink
        ga, gb = g(a), g(b)
        sa = _mul(1 / h, _sub(g(a + h), ga))
        sb = _mul(1 / h, _sub(gb, g(b - h)))
        mid = a + width * _SPLIT
        if numerics.equal(sa, sb):
            line = lambda t: _add(ga, _mul(t - a, sa))  # noqa: E731
            if numerics.equal(g(mid), line(mid)) and numerics.equal(gb, line(b)):
                continue
        else:
            t = _intersection(ga, sa, a, gb, sb, b, numerics)
            if t is not None and a + h < t < b - h:
                # the end lines can also meet left of two close kinks (then g(t) is on both by construction):
                # g must leave the left line right after t
                left, right, eps = (a + t) / 2, (t + b) / 2, h * numerics.shrink
                if (
                    numerics.equal(g(t), _add(ga, _mul(t - a, sa)))
                    and numerics.equal(g(left), _add(ga, _mul(left - a, sa)))
                    and numerics.equal(g(right), _add(gb, _mul(right - b, sb)))
                    and numerics.equal(g(t - eps), _add(ga, _mul(t - eps - a, sa)))
                    and numerics.equal(g(t + eps), _add(gb, _mul(t + eps - b, sb)))
                ):
                    # how far the side maps may reach: float answers want long steps against noise
                    reach = (left, right) if isinstance(numerics, _Float) else (t - eps, t + eps)
                    found.append((t, sa, sb, *reach))
                    continue
        stack.extend([(mid, b), (a, mid)])
    return sorted(found, key=lambda k: k[0])


def _line_range(point, direction, domain_rows):
    """``[t0, t1]`` with ``point + t·direction`` in the polytope ``domain_rows`` (exact), or None if empty."""
    lo, hi = None, None
    for row in domain_rows:
        base = row_value(row, point)
        rate = _dot(row[1:], direction)
        if rate == 0:
            if base < 0:
                return None
            continue
        t = -base / rate
        if rate > 0:
            lo = t if lo is None else max(lo, t)
        else:
            hi = t if hi is None else min(hi, t)
    if lo is None or hi is None or lo >= hi:
        return None
    return lo, hi


def _line_kinks(queries, point, direction, domain_rows, numerics, reach=16):
    """Kinks of ``f`` on a line (or its segment inside the domain): see :func:`line_kinks`."""
    g = lambda t: queries(_add(point, _mul(t, direction)))  # noqa: E731
    if domain_rows is not None:
        span = _line_range(point, direction, domain_rows)
        if span is None:
            return []
        return _segment_kinks(g, *span, numerics)
    T = Fraction(reach)
    while T < 2**64:
        # beyond ±T f must be linear: the slope just outside T continues to 2T and 64T
        linear = True
        for side in (1, -1):
            t0, t1, t2 = side * T, 2 * side * T, 64 * side * T
            step = side * T * numerics.shrink
            s0 = _mul(1 / step, _sub(g(t0 + step), g(t0)))
            s1 = _mul(1 / (t2 - t1), _sub(g(t2), g(t1)))
            s01 = _mul(1 / (t1 - t0), _sub(g(t1), g(t0)))
            if not (numerics.equal(s0, s1) and numerics.equal(s0, s01)):
                linear = False
        if linear:
            # a little beyond ±T on both sides: a kink exactly at ±T is an end point of the tail checks
            return _segment_kinks(g, -T * Fraction(97, 96), T * Fraction(97, 96), numerics)
        T *= 64
    raise _Failure("f keeps bending beyond 2^64 along a search line")


def line_kinks(oracle, point, direction, *, domain=None, float_oracle=False):
    """The breakpoints of ``f`` on the line ``point + t·direction``, exactly.

    Parameters
    ----------
    oracle : callable
        ``x ↦ f(x)`` with exact values (see :func:`recover_network`).
    point, direction : sequence of numbers
    domain : Box, Polyhedron or rows, optional
        Search only the segment inside this polytope; by default the whole
        line, whose ends are found by doubling until ``f`` is linear beyond.
    float_oracle : bool
        Tolerant comparisons for a floating-point oracle.

    Returns
    -------
    list of Fraction
        The parameters ``t`` of the kinks, increasing.

    Examples
    --------
    ``f(x) = |x1| + relu(x2 - 1)`` on the line ``(t, t)``:

    >>> from polyrelu import ReLUNetwork
    >>> net = ReLUNetwork([[[1, 0], [-1, 0], [0, 1]], [[1, 1, 1]]], [[0, 0, -1], [0]])
    >>> line_kinks(network_oracle(net), (0, 0), (1, 1))
    [Fraction(0, 1), Fraction(1, 1)]
    """
    point, direction = _line_arguments("line_kinks", oracle, point, direction, float_oracle)
    numerics = _Float(1e-9, 1 << 24) if float_oracle else _Exact()
    queries = _Queries(oracle, len(point), numerics, math.inf)
    rows = _domain_rows(domain, len(point))
    try:
        return [t for t, *_ in _line_kinks(queries, point, direction, rows, numerics)]
    except _Failure as exc:
        raise RecoveryError(str(exc)) from None


def _line_arguments(caller, oracle, point, direction, float_oracle):
    """The checked arguments of a search along one line: exact point and non-zero direction of one length."""
    require_callable(oracle, "oracle", caller)
    require_bool(float_oracle, "float_oracle", caller)
    point = to_fraction_vector(require_sequence(point, "point", caller), f"{caller}: point")
    direction = to_fraction_vector(require_sequence(direction, "direction", caller), f"{caller}: direction")
    if len(point) != len(direction):
        raise ShapeError(f"{caller}: point has {len(point)} coordinates but direction has {len(direction)}; give both in Q^n0")
    if not point:
        raise ShapeError(f"{caller}: point is empty; give one coordinate per input")
    if not any(direction):
        raise UsageError(f"{caller}: direction is zero; give a non-zero direction")
    return point, direction


# ---------------------------------------------------------------------------- local data at a kink
@dataclasses.dataclass(frozen=True)
class Kink:
    """A point on a breakpoint facet of ``f`` with the exact local data there (docs/design.md §3).

    Attributes
    ----------
    point : tuple of Fraction
    row : tuple of int
        Primitive integer row ``(c, ν)``: the facet's affine hull is ``c + ν·x = 0``.
    jump : tuple of Fraction
        The tropical weight ``w`` with ``J_+ - J_- = w ⊗ ν``, ``+`` the side ``c + ν·x > 0``.
    plus, minus : tuple
        The affine maps ``(A, c)`` of ``f`` on the two sides.
    """

    point: tuple
    row: tuple
    jump: tuple
    plus: tuple
    minus: tuple


def _side_map(queries, base, eta, n0, numerics):
    """The affine map of ``f`` near ``base`` from ``n0 + 2`` values (one to check affinity), or None."""
    f0 = queries(base)
    cols = []
    for j in range(n0):
        x = list(base)
        x[j] += eta
        cols.append(_mul(1 / eta, _sub(queries(x), f0)))
    A = tuple(tuple(col[i] for col in cols) for i in range(len(f0)))
    c = tuple(f0[i] - _dot(A[i], base) for i in range(len(f0)))
    probe = tuple(v - eta / (j + 2) for j, v in enumerate(base))
    predicted = tuple(_dot(A[i], probe) + c[i] for i in range(len(f0)))
    if not numerics.equal(queries(probe), predicted):
        return None
    return A, c


def _kink_from_maps(point, left, right, direction, numerics):
    """The :class:`Kink` at ``point`` from the maps on both sides, or None when they are not a facet's."""
    (Al, cl), (Ar, cr) = left, right
    J = [_sub(r, l) for r, l in zip(Ar, Al)]
    k = max(range(len(J)), key=lambda i: max(abs(v) for v in J[i]))
    if numerics.zero(J[k]):
        return None
    jrow = J[k]
    # rank one: every row of the jump is a multiple of the largest
    p = max(range(len(jrow)), key=lambda j: abs(jrow[j]))
    weights = [Ji[p] / jrow[p] for Ji in J]
    if not all(numerics.equal(Ji, _mul(w, jrow)) for Ji, w in zip(J, weights)):
        return None
    value_l = tuple(_dot(a, point) + c for a, c in zip(Al, cl))
    value_r = tuple(_dot(a, point) + c for a, c in zip(Ar, cr))
    if not numerics.equal(value_l, value_r):
        return None
    row = numerics.rationalize_row((-_dot(jrow, point), *jrow))
    if _dot(row[1:], direction) < 0:
        row = tuple(-v for v in row)
    normal = row[1:]
    q = next(j for j, v in enumerate(normal) if v != 0)
    jump = tuple(J[i][q] / normal[q] for i in range(len(J)))
    return Kink(tuple(point), row, jump, (Ar, cr), (Al, cl))


def _kink_at(queries, point, step, n0, numerics):
    """The :class:`Kink` at ``point``, a kink of ``f`` on the line ``point + t·step``, with ``step`` inside both linear pieces."""
    eta = max(abs(v) for v in step) * numerics.shrink
    for _ in range(3):
        left = _side_map(queries, _sub(point, step), eta, n0, numerics)
        right = _side_map(queries, _add(point, step), eta, n0, numerics)
        if left is not None and right is not None:
            kink = _kink_from_maps(point, left, right, step, numerics)
            if kink is not None:
                return kink
        eta *= numerics.shrink
    return None


def kink_data(oracle, point, direction, *, float_oracle=False):
    """The :class:`Kink` (facet hyperplane, weight, side maps) at a breakpoint found on a line.

    Parameters
    ----------
    oracle : callable
    point : sequence of numbers
        A kink of ``f`` on the line through it with ``direction``, e.g. from
        :func:`line_kinks`.
    direction : sequence of numbers
        The step to each side: ``f`` must be linear from ``point`` to
        ``point ± direction`` (the two linear pieces reach that far).

    Returns
    -------
    Kink

    Raises
    ------
    RecoveryError
        The maps on the two sides do not differ by a rank-one jump that is
        continuous at ``point`` (not a single breakpoint facet there).

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> f = network_oracle(ReLUNetwork([[[1, -2]], [[3]]], [[1], [0]]))
    >>> k = kink_data(f, (1, 1), ("1/8", 0))
    >>> k.row, k.jump
    ((1, 1, -2), (Fraction(3, 1),))
    """
    point, step = _line_arguments("kink_data", oracle, point, direction, float_oracle)
    numerics = _Float(1e-9, 1 << 24) if float_oracle else _Exact()
    queries = _Queries(oracle, len(point), numerics, math.inf)
    kink = _kink_at(queries, point, step, len(point), numerics)
    if kink is None:
        raise RecoveryError(f"f has no single breakpoint facet through {tuple(map(str, point))} along {tuple(map(str, step))}")
    return kink


def _is_kink_along(queries, point, row, numerics, radius=None):
    """Whether ``f`` bends at ``point`` across the hyperplane ``row`` and nowhere else nearby (finite differences, exact).

    Returns the point (in float mode the kink found near it), or None.

    The probes stay within ``2·radius`` (max-norm) of ``point``; by default
    tiny and not growing with ``|point|``: far out, hypersurfaces run parallel
    or converge at distances that do not grow with it.
    """
    normal = row[1:]
    near_other = radius is not None  # the caller knows of another hypersurface close by
    if radius is None:
        radius = min(max(1, max(abs(v) for v in point)) * numerics.shrink**3, numerics.shrink**2)
    eta = radius / max(abs(v) for v in normal)
    if isinstance(numerics, _Float):
        # a rounded prediction misses the hypersurface by more than the probes reach: find the kink nearby first
        unit = _mul(Fraction(1) / max(abs(v) for v in normal), normal)
        reach = (1 + max(abs(v) for v in point)) * Fraction(numerics.tolerance * 1e6)
        if near_other:
            reach = min(reach, 8 * radius)
        g = lambda t: queries(_add(point, _mul(t, unit)))  # noqa: E731
        near = _segment_kinks(g, -reach, reach, numerics)
        if not near:
            return None
        point = _add(point, _mul(min((k[0] for k in near), key=abs), unit))  # the nearest: others are neighbours
        eta = min(radius, reach) / 4 / max(abs(v) for v in normal)
    nu = _mul(eta, normal)
    f0 = queries(point)
    fp, fpp = queries(_add(point, nu)), queries(_add(point, _mul(2, nu)))
    fm, fmm = queries(_sub(point, nu)), queries(_sub(point, _mul(2, nu)))
    if not (numerics.equal(_sub(fpp, fp), _sub(fp, f0)) and numerics.equal(_sub(f0, fm), _sub(fm, fmm))):
        return None
    if numerics.equal(_sub(fp, f0), _sub(f0, fm)):
        return None
    scale = eta * max(abs(v) for v in normal)
    for u in _tangent_basis(normal):
        step = _mul(scale / max(abs(v) for v in u), u)
        if not numerics.equal(_add(queries(_add(point, step)), queries(_sub(point, step))), _mul(2, f0)):
            return None
    return point


def _domain_rows(domain, n0):

    poly = domain_polyhedron(domain, n0)
    return None if poly is None else tuple(tuple(r) for r in poly.inequalities)


# ---------------------------------------------------------------------------- exact linear algebra
def _nullspace(rows, ncols, numerics, precondition=None):
    """A basis of ``{c : rows · c = 0}`` (exact; SVD with a gap test in float mode, in ``c = P c'`` coordinates)."""
    if not rows:
        return [tuple(Fraction(int(i == j)) for j in range(ncols)) for i in range(ncols)]
    if isinstance(numerics, _Float):
        M = np.array([[float(v) for v in r] for r in rows])
        P = np.eye(ncols) if precondition is None else precondition
        M = M @ P
        M /= np.maximum(np.abs(M).max(axis=1, keepdims=True), 1e-300)
        _, s, vt = np.linalg.svd(M)
        s = np.concatenate([s, np.zeros(ncols - len(s))])
        # the equations come from measured hyperplanes: their residual is far above the oracle's tolerance
        null = [P @ vt[i] for i in range(ncols) if s[i] <= numerics.tolerance * 1e5 * s[0]]
        # scaled to max-abs 1, not to integers: these coefficients meet biases of size ~1 later
        return [tuple(Fraction(float(v) / np.abs(c).max()).limit_denominator(numerics.denominator) for v in c) for c in null]
    ints = []
    for r in rows:
        den = math.lcm(*(Fraction(v).denominator for v in r))
        ints.append([int(Fraction(v) * den) for v in r])
    kernel, nullity = flint.fmpz_mat(ints).nullspace()
    return [tuple(Fraction(int(kernel[i, j])) for i in range(ncols)) for j in range(nullity)]


def _echelon_basis(vectors):
    """The reduced row echelon basis of the span of ``vectors`` (small entries, unlike an integer kernel's)."""
    _, table = reduced_echelon(vectors, [0] * len(vectors))
    return tuple(tuple(row[:-1]) for row in table)


def _pivot_columns(rows):
    """Indices of a maximal set of linearly independent columns, earliest first."""
    solved = reduced_echelon(rows, [0] * len(rows))
    return solved[0]


# ---------------------------------------------------------------------------- the network so far
class _Partial:
    """Hidden layers recovered so far; the last one's orientation is provisional.

    ``layers[l]`` is a list of rows ``(w, b)`` in terms of the previous layer's
    outputs. A layer's neurons are fixed up to positive scaling once the next
    layer is known (:func:`_orient`).
    """

    def __init__(self, n0, domain, numerics, clock=None, max_cells=1_000_000):
        self.n0 = n0
        self.domain = domain
        self.numerics = numerics
        self.clock = clock or _Clock()
        self.max_cells = max_cells  # bound on the complexes built (:class:`~polyrelu.errors.ComplexTooLargeError`)
        self.layers = []
        self.net = None
        self.complex = None
        self.oriented = False
        self.free = {}  # (layer, neuron) -> a family's free directions (w, b) over the previous layer (:func:`_second_chance`)

    def rebuild(self, oriented=False):
        """Network, complex and feature basis of the layers so far.

        ``oriented``: the last layer's orientation is final, so a next-layer
        neuron is ``Σ w_i relu(z_i) + b`` and the features are ``relu(z_i)``
        and ``1`` only (fewer unknowns than with the ``ẑ_i`` columns).
        """

        self.oriented = oriented

        if not self.layers:
            self.net = self.complex = None
            return
        Ws = [[list(w) for w, _ in layer] for layer in self.layers] + [[[0] * len(self.layers[-1])]]
        bs = [[b for _, b in layer] for layer in self.layers] + [[0]]
        self.net = ReLUNetwork(Ws, bs)
        self.clock.check()
        self.complex = canonical_complex(self.net, self.domain, max_cells=self.max_cells, progress=False)
        self.offset = sum(len(layer) for layer in self.layers[:-1])
        self._features = {}
        regions = self.complex.regions()
        self.basis = _pivot_columns([row for R in regions for row in self.features(R)])
        self.precondition = None
        if isinstance(self.numerics, _Float):
            # traced formulas are solved in an orthonormal basis of the feature functions: the raw
            # relu / linear columns agree on many regions, and noisy equations would lose digits to that
            G = np.array([[float(v) for v in row] for R in regions for row in self.reduced(R)])
            _, r = np.linalg.qr(G)
            self.precondition = np.linalg.inv(r)

    def features(self, region):
        """The ``(n0 + 1) × (2 n_l + 1)`` matrix of ``relu(ẑ_i)``, ``ẑ_i`` and ``1`` on a region (affine coefficient columns)."""
        hit = self._features.get(region.id)
        if hit is None:
            G, g = self.net.pre_activation_maps(region.signs)[len(self.layers) - 1]
            signs = region.signs[self.offset : self.offset + len(g)]
            lin = [(g[i], *G[i]) for i in range(len(g))]
            relu = [v if s > 0 else (0,) * (self.n0 + 1) for v, s in zip(lin, signs)]
            const = (1,) + (0,) * self.n0
            cols = relu + [const] if self.oriented else relu + lin + [const]
            hit = [tuple(Fraction(col[r]) for col in cols) for r in range(self.n0 + 1)]
            self._features[region.id] = hit
        return hit

    def reduced(self, region):
        F = self.features(region)
        return [tuple(row[j] for j in self.basis) for row in F]

    def locate(self, x):
        """The region whose interior holds ``x``, or None (on a known hypersurface or outside the domain)."""

        try:
            cell = self.complex.locate(x)
        except GeometryError:
            return None
        return cell if cell.dimension == self.n0 else None

    def explains(self, kink):
        """Whether a known neuron vanishes at the kink with the kink's hyperplane there."""
        if self.net is None:
            return False
        rows = self.net.pre_activation_rows(self.net.signs(kink.point))
        return any(self.numerics.on_hyperplane(row, kink) for row in rows)


def _parallel_equations(F, h):
    """Rows in the unknowns ``c`` saying that the affine function ``F c`` is a multiple of ``h``."""
    p = max(range(len(h)), key=lambda i: abs(h[i]))
    return [tuple(h[p] * a - h[q] * b for a, b in zip(F[q], F[p])) for q in range(len(h)) if q != p]


# ---------------------------------------------------------------------------- one more layer
def _continue_across(queries, partial, facet, region, h, numerics):
    """The hyperplane of a hypersurface beyond ``facet`` in ``region``, given its hyperplane ``h`` on the near side.

    Both hyperplanes contain ``h ∩ aff(facet)``, so the far one is ``h + μ·wall``:
    one kink on a short segment parallel to ``∇h`` just inside ``region``
    fixes ``μ``, and the normal is then checked at that kink.
    """
    n0 = partial.n0
    poly = facet.polyhedron
    wall = poly.equations[0]
    cut = Polyhedron(ieqs=poly.inequalities, eqns=[*poly.equations, h], ambient_dim=n0)
    if cut.is_empty() or cut.dimension() != n0 - 2:
        return None
    q = cut.relative_interior_point()
    normal = tuple(Fraction(v) for v in wall[1:])
    grad = tuple(Fraction(v) for v in h[1:])
    # search along the wall (the part of ∇h parallel to it), a little way into ``region``
    along = _sub(grad, _mul(_dot(grad, normal) / _dot(normal, normal), normal))
    normal = _mul(1 / max(abs(v) for v in normal), normal)
    along = _mul(1 / max(abs(v) for v in along), along)
    offset = (1 + max(abs(v) for v in q)) * numerics.shrink
    # float answers lose the kink in noise on tiny segments: fewer, gentler shrinks
    attempts, factor = (3, Fraction(1, 8)) if isinstance(numerics, _Float) else (6, numerics.shrink)
    for _ in range(attempts):
        centre = next((c for c in (_add(q, _mul(offset, normal)), _sub(q, _mul(offset, normal))) if partial.locate(c) is region), None)
        if centre is not None:
            for length in (64, 8, 1):
                step = _mul(length * offset, along)
                if not all(partial.locate(e) is region for e in (_sub(centre, step), _add(centre, step))):
                    continue
                g = lambda s: queries(_add(centre, _mul(s, step)))  # noqa: E731
                found = _segment_kinks(g, Fraction(-1), Fraction(1), numerics)
                if len(found) > 1:
                    continue  # another hypersurface crosses the segment too: a shorter one
                if not found:
                    break
                t, _, _, t0, t1 = found[0]
                y = _add(centre, _mul(t, step))
                if isinstance(numerics, _Float):
                    # through the pencil, the error of h would grow like 1/offset: measure the facet instead
                    measured = _kink_at(queries, y, _mul(min(t - t0, t1 - t) / 2, step), n0, numerics)
                    if measured is None:
                        continue
                    h2 = measured.row
                else:
                    mu = -row_value(h, y) / row_value(wall, y)
                    h2 = primitive_integer_row(_add(h, _mul(mu, wall)))
                if any(h2[1:]) and _is_kink_along(queries, y, h2, numerics, offset * numerics.shrink):
                    return h2
                # the one kink was another hypersurface's, the continuation crossing beyond the segment
        offset *= factor
    return None


def _trace(queries, partial, kink, numerics, extra=1, log=None):
    """A neuron of the next layer through ``kink``: ``(formula, regions crossed, span, pieces)``, or None.

    Breadth-first over the regions of the known complex that the hypersurface
    crosses; each piece gives ``n0`` linear equations. Accepted when the
    solution is unique up to scale and ``extra`` further pieces agree with it;
    then ``span`` is empty. ``pieces`` maps each traced region to the
    hyperplane found there, all oriented alike (the neuron is a positive
    multiple of each on its region, or a negative one of all).

    With the previous layer oriented (exact mode), the pieces of a hypersurface
    that stays where some neurons of the previous layer are off, or crosses few
    regions, cannot show all of its weights (TPIC fails). Then the whole
    connected piece is traced and ``span`` is a basis of the formulas that fit
    every piece: a *family*, fixed later by the signs it must have
    (:func:`_fix_family`) and by the output (:func:`_fit_with_families`). When
    only columns that vanish on every piece stay free, ``formula`` is the
    member without them; it predicts the hypersurface exactly where those
    columns vanish, so another connected component is reached there and
    traced too. Otherwise ``formula`` is None.
    ``log["undetermined"]`` counts traces whose pieces leave a family of formulas.
    """
    start = partial.locate(kink.point)
    if start is None:
        return None
    lattice = partial.complex.lattice
    cells = partial.complex
    equations = _parallel_equations(partial.reduced(start), kink.row)
    queue = [(start, kink.row)]
    seen = {start.id}
    pieces = {start.id: kink.row}
    agreeing = 0
    cap = 3 * len(partial.basis) + 2 * extra + 4
    whole = partial.oriented and not isinstance(numerics, _Float)
    while True:
        while queue and (whole or len(seen) < cap):
            region, h = queue.pop(0)
            for f in lattice.facets(region.id):
                facet = cells[f]
                beyond = [cells[r] for r in lattice.cofacets(f) if r != region.id]
                if len(beyond) != 1 or beyond[0].id in seen or beyond[0].dimension != partial.n0:
                    continue
                h2 = _continue_across(queries, partial, facet, beyond[0], h, numerics)
                if h2 is None:
                    continue
                seen.add(beyond[0].id)
                pieces[beyond[0].id] = h2
                equations += _parallel_equations(partial.reduced(beyond[0]), h2)
                null = _nullspace(equations, len(partial.basis), numerics, partial.precondition)
                if not null:
                    return None
                if len(null) == 1 and not _vanishes_somewhere(partial, null[0], seen, numerics):
                    agreeing += 1
                    if agreeing >= extra:
                        checked = _bends_everywhere(queries, partial, null[0], seen, numerics)
                        if checked is None:
                            return None
                        crossed, measured = checked
                        if measured:  # float mode: refit on every region crossed, the noise averages out
                            for region_, row in measured:
                                equations += _parallel_equations(partial.reduced(region_), row)
                            refit = _nullspace(equations, len(partial.basis), numerics, partial.precondition)
                            if len(refit) == 1:
                                return refit[0], crossed, (), pieces
                        return null[0], crossed, (), pieces
                queue.append((beyond[0], h2))
        family = _family(partial, equations, pieces) if whole and not queue else None
        if family is None:
            break
        c, free, span = family
        if c is None:
            return None, set(seen), span, pieces
        checked = _bends_everywhere(queries, partial, c, seen, numerics, free=free)
        if checked is None:
            return None
        crossed = checked[0]
        if crossed == seen:
            return c, crossed, span, pieces
        orientation = _lambda(partial, c, start.id, pieces[start.id])
        for rid in sorted(crossed - seen):  # another component, where the family's prediction is exact
            row = tuple(orientation * _dot(F_row, c) for F_row in partial.reduced(cells[rid]))
            seen.add(rid)
            pieces[rid] = row
            equations += _parallel_equations(partial.reduced(cells[rid]), row)
            queue.append((cells[rid], row))
    if log is not None and equations and len(_nullspace(equations, len(partial.basis), numerics, partial.precondition)) > 1:
        log["undetermined"] = log.get("undetermined", 0) + 1
    return None


def _family(partial, equations, pieces):
    """``(formula, free, span)``: the formulas fitting every traced piece, when more than one does.

    ``span`` is a basis of them; ``free`` the columns that vanish on every
    piece. When the family is one formula plus those columns, ``formula`` is
    its member with zero ``free`` coefficients, else None. None when a member
    vanishes identically on a piece, or the equations leave only one formula.
    """
    cells = partial.complex
    blocks = [partial.reduced(cells[rid]) for rid in pieces]
    free = tuple(k for k in range(len(partial.basis)) if not any(F_row[k] for F in blocks for F_row in F))
    span = _nullspace(equations, len(partial.basis), partial.numerics)
    if len(span) < 2:
        return None
    span = _echelon_basis(span)
    c = None
    if len(span) == 1 + len(free):
        combination = _nullspace([[v[k] for v in span] for k in free], len(span), partial.numerics)
        if len(combination) != 1:
            return None
        c = tuple(sum(a * v[k] for a, v in zip(combination[0], span)) for k in range(len(partial.basis)))
        if _vanishes_somewhere(partial, c, pieces, partial.numerics):
            return None
    return c, free, span


def _lambda(partial, c, region_id, h):
    """The factor ``λ`` with ``F c = λ h`` on a traced region (``c`` fits its piece)."""
    row = [_dot(F_row, c) for F_row in partial.reduced(partial.complex[region_id])]
    p = max(range(len(h)), key=lambda i: abs(h[i]))
    return row[p] / h[p]


def _vanishes_somewhere(partial, c, regions, numerics):
    """Whether the formula ``c`` is identically zero on one of ``regions``.

    The parallelity equations hold trivially there (``0`` is parallel to every
    hyperplane), e.g. for ``relu(ẑ) - ẑ`` on the side where ``ẑ > 0``: a
    spurious solution, not a neuron's hypersurface.
    """
    cells = partial.complex
    for rid in regions:
        F = partial.reduced(cells[rid])
        value = [_dot(row, c) for row in F]
        if isinstance(numerics, _Float):
            scale = max(abs(float(v)) for v in c) * max(abs(float(v)) for row in F for v in row)
            if max(abs(float(v)) for v in value) <= 1e3 * numerics.tolerance * scale:
                return True
        elif not any(value):
            return True
    return False


def _bends_everywhere(queries, partial, c, traced, numerics, free=()):
    """The regions where ``f`` bends on the predicted zero set of ``c``: all it crosses, or None.

    Agreement on the traced regions is not enough: a deeper neuron is a
    next-layer-like formula wherever the neurons in between keep their signs.
    Its prediction fails where they change, so every crossing is checked.
    For a family (:func:`_trace`) only the regions where its ``free`` columns
    vanish have a prediction.
    """
    n0 = partial.n0
    crossed = set(traced)
    measured = []  # float mode: (region, hyperplane measured at the kink found near the prediction)
    for region in partial.complex.regions():
        partial.clock.check()
        if region.id in traced:
            continue
        F = partial.reduced(region)
        if any(F_row[k] for F_row in F for k in free):
            continue
        row = tuple(_dot(F_row, c) for F_row in F)
        if not any(row[1:]):
            continue
        poly = region.polyhedron
        cut = Polyhedron(ieqs=poly.inequalities, eqns=[*poly.equations, row], ambient_dim=n0)
        if cut.is_empty() or cut.dimension() != n0 - 1:
            continue
        y = cut.relative_interior_point()
        found = _is_kink_along(queries, y, numerics.rationalize_row(row), numerics)
        if found is None:
            if isinstance(numerics, _Float) and _near_boundary(poly, y, 1e4 * numerics.tolerance * (1 + max(abs(v) for v in y))):
                continue  # a rounded prediction grazing the region: a sliver the true hypersurface misses
            return None
        crossed.add(region.id)
        if isinstance(numerics, _Float) and partial.locate(found) is region:
            normal = numerics.rationalize_row(row)[1:]
            step = _mul((1 + max(abs(v) for v in found)) * numerics.shrink**2 / max(abs(v) for v in normal), normal)
            kink = _kink_at(queries, found, step, n0, numerics)
            if kink is not None:
                measured.append((region, kink.row))
    return crossed, measured


def _near_boundary(poly, y, distance):
    """Whether ``y`` is within ``distance`` (Euclidean, floats) of a facet hyperplane of ``poly``."""
    for row in poly.inequalities:
        norm = math.sqrt(sum(float(v) ** 2 for v in row[1:]))
        if norm and abs(float(row_value(row, y))) / norm < distance:
            return True
    return False


def _bends_at(queries, partial, a, b, numerics):
    """Whether candidate ``a``'s hypersurface bends where it crosses candidate ``b``'s (docs/design.md §5).

    Neurons of one layer cross straight; a deeper one bends at the neurons it
    reads. On each region both cross, ``f`` must bend along ``a``'s hyperplane
    on both sides of ``b``'s, close to the crossing.
    """
    (ca, regions_a), (cb, regions_b) = a[:2], b[:2]
    if ca is None or cb is None:
        return False
    n0 = partial.n0
    cells = partial.complex
    for rid in regions_a & regions_b:
        region = cells[rid]
        F = partial.reduced(region)
        ra = tuple(_dot(row, ca) for row in F)
        rb = tuple(_dot(row, cb) for row in F)
        poly = region.polyhedron
        cut = Polyhedron(ieqs=poly.inequalities, eqns=[*poly.equations, ra, rb], ambient_dim=n0)
        if cut.is_empty() or cut.dimension() != n0 - 2:
            continue
        q = cut.relative_interior_point()
        ga, gb = ra[1:], rb[1:]
        u = _sub(gb, _mul(_dot(gb, ga) / _dot(ga, ga), ga))
        u = _mul(1 / max(abs(v) for v in u), u)
        offset = (1 + max(abs(v) for v in q)) * numerics.shrink
        for _ in range(6):
            sides = (_add(q, _mul(offset, u)), _sub(q, _mul(offset, u)))
            if all(partial.locate(y) is region for y in sides):
                row = numerics.rationalize_row(ra)
                return not all(_is_kink_along(queries, y, row, numerics, offset * numerics.shrink) for y in sides)
            offset *= numerics.shrink
    return False


def _drop_deeper(queries, partial, candidates, numerics):
    """The candidates that bend at no other candidate (a deeper neuron taken for one of this layer)."""
    return [
        a for i, a in enumerate(candidates)
        if not any(j != i and _bends_at(queries, partial, a, b, numerics) for j, b in enumerate(candidates))
    ]


def _hyperplane_neuron(queries, kink, window, numerics, domain_rows, one_sided=False):
    """Whether the kink's hyperplane is a first-layer neuron: ``f`` bends along it far away on every side too.

    A deeper neuron's hypersurface bends where it crosses an earlier one, so
    its flat pieces end; the checks go out along ``±`` each tangent direction
    to ``r``, 8 and 64 times ``r`` with ``r = window + 2 |kink|`` (past the
    origin, for a breakpoint found far out); in a polytope domain to 1/8,
    1/2 and 7/8 of the way to its boundary.

    ``one_sided``: enough that ``f`` bends at all checks on one side of each
    tangent direction. A first-layer neuron whose downstream neurons are all
    off on one side leaves no breakpoint there; so does a deeper neuron's
    unbounded last piece, which is why this alone never decides
    (:func:`_partly_bent_hyperplanes`).
    """
    checked = 0
    radius = window + 2 * max(abs(v) for v in kink.point)
    for u in _tangent_basis(kink.row[1:]):
        u = _mul(Fraction(1, max(abs(v) for v in u)), u)
        if domain_rows is None:
            sides = [[side * r for r in (radius, 8 * radius, 64 * radius)] for side in (1, -1)]
        else:
            lo, hi = _line_range(kink.point, u, domain_rows)
            sides = [[end * Fraction(k, 8) for k in (1, 4, 7)] for end in (lo, hi)]
        bent = [all(_is_kink_along(queries, _add(kink.point, _mul(t, u)), kink.row, numerics) for t in steps) for steps in sides]
        if not (any(bent) if one_sided else all(bent)):
            return False
        checked += 1
    return checked > 0


def _partly_bent_hyperplanes(queries, explorer, accepted, kinks):
    """First-layer neurons on whose hyperplane ``f`` bends only in part (its downstream neurons off elsewhere).

    Such a hyperplane fails :func:`_hyperplane_neuron` on one side. So does a
    deeper neuron's unbounded last piece, but that one bends wherever it
    crosses a first-layer hyperplane it reads: a one-sided hyperplane that
    runs straight across an accepted first-layer hyperplane is accepted too,
    and so on while more are.
    """
    numerics = explorer.numerics
    candidates = [k for k in kinks if _hyperplane_neuron(queries, k, explorer.window, numerics, explorer.rows, one_sided=True)]
    found = []
    grew = True
    while grew:
        grew = False
        for kink in candidates:
            if any(numerics.on_hyperplane(row, kink) for row in [*accepted, *found]):
                continue
            if any(_straight_across(queries, kink, row, numerics) for row in [*accepted, *found]):
                found.append(kink.row)
                grew = True
    return found


def _straight_across(queries, kink, row, numerics):
    """Whether ``f`` bends on the kink's hyperplane on both sides of hyperplane ``row``, close to where they cross."""
    h = kink.row
    gh, gl = [Fraction(v) for v in h[1:]], [Fraction(v) for v in row[1:]]
    u = _sub(gl, _mul(_dot(gl, gh) / _dot(gh, gh), gh))  # across ``row``, within ``h``
    if not any(u):
        return False
    # the crossing nearest the kink, along u: h stays 0 and row becomes 0
    q = _add(kink.point, _mul(-row_value(row, kink.point) / _dot(gl, u), u))
    u = _mul(1 / max(abs(v) for v in u), u)
    eps = (1 + max(abs(v) for v in q)) * numerics.shrink
    return all(_is_kink_along(queries, y, h, numerics, eps * numerics.shrink) for y in (_add(q, _mul(eps, u)), _sub(q, _mul(eps, u))))


def _explained_by(partial, neurons, kink):
    """Whether one of the freshly traced ``neurons`` vanishes at the kink with its hyperplane."""
    numerics = partial.numerics
    neurons = [c for c in neurons if c is not None]
    if partial.net is None:
        return any(numerics.on_hyperplane(numerics.rationalize_row(c), kink) for c in neurons)
    region = partial.locate(kink.point)
    if region is None:
        return False
    return any(
        numerics.on_hyperplane(numerics.rationalize_row([_dot(F_row, c) for F_row in partial.reduced(region)]), kink)
        for c in neurons
    )


# ---------------------------------------------------------------------------- orientation and output
def _split_coefficients(partial, c):
    """``(w, rest)``: the ``relu(ẑ_i)`` coefficients and the other basis coefficients of ``c``."""
    n = len(partial.layers[-1])
    w = [Fraction(0)] * n
    rest = {}
    for j, col in enumerate(partial.basis):
        if col < n:
            w[col] = c[j]
        else:
            rest[col] = c[j]
    return w, rest


def _orient(partial, vectors, max_free=16, fixed=None, null=()):
    """Orient the last known layer from the next layer's (or the output's) coefficient vectors.

    With ``ẑ_i`` the provisional orientation, ``relu(-ẑ) = relu(ẑ) - ẑ``: the
    next layer reads ``Σ w_i relu(ẑ_i) + ψ`` with ``ψ = β - Σ t_i w_i ẑ_i``
    where ``t_i = 1`` exactly for the neurons to flip. So ``t`` and the biases
    ``β`` solve a linear system over every region; ``t`` must be 0/1.

    ``fixed`` maps neurons to flips decided elsewhere; ``null`` are directions
    the vectors may move along (the output fit's null space, columns beyond
    the basis included), with coefficients ``λ`` solved for too: linear as
    long as they move ``w_i`` only of fixed neurons (:func:`_fit_with_families`).

    Returns
    -------
    flips : list of bool
    rows : list of (w, β)
        The next layer's rows in the oriented terms.
    vectors : list of tuple
        The vectors moved along ``null``.
    """
    n = len(partial.layers[-1])
    K, M = len(vectors), len(null)
    fixed = fixed or {}
    if any(v[j] for v in null for j, col in enumerate(partial.basis) if col < n and col not in fixed):
        raise _Failure(f"the output's formula is undetermined in a neuron of layer {len(partial.layers)}")
    parts = [_split_coefficients(partial, c) for c in vectors]
    moves = [_split_coefficients(partial, v) for v in null]
    width = 2 * n + 1  # feature columns: relu(ẑ_i), ẑ_i, 1

    def psi_vector(w, rest):
        # the vector's ψ in feature columns, with the fixed flips' ``- t_i w_i ẑ_i`` moved into it
        v = [Fraction(0)] * width
        for col, x in rest.items():
            v[col] = x
        for i, flip in fixed.items():
            v[n + i] += flip * w[i]
        return v

    psis = fmpq_matrix(zip(*(psi_vector(w, rest) for w, rest in parts + moves)))
    # unknowns (β_1..β_K, λ_11..λ_KM, t_1..t_n): biases first, so that the echelon form leaves flips free, never biases
    rows, rhs, seen = [], [], set()
    for region in partial.complex.regions():
        F = partial.features(region)
        values = fraction_rows(fmpq_matrix(F) * psis)
        for k, (w, _) in enumerate(parts):
            for comp in range(partial.n0 + 1):
                psi = values[comp][k]
                lam = [values[comp][K + m] for m in range(M)]
                row = (
                    tuple(Fraction(-1 if (kk == k and comp == 0) else 0) for kk in range(K))
                    + tuple(lam[m] if kk == k else Fraction(0) for kk in range(K) for m in range(M))
                    + tuple(Fraction(0) if i in fixed else w[i] * F[comp][n + i] for i in range(n))
                )
                key = (row, -psi)
                if key not in seen:
                    seen.add(key)
                    rows.append(row)
                    rhs.append(-psi)
    for j, flip in fixed.items():
        rows.append(tuple(Fraction(int(col == K + K * M + j)) for col in range(K + K * M + n)))
        rhs.append(Fraction(int(flip)))
    if isinstance(partial.numerics, _Float):
        flips, betas = _orient_float(rows, rhs, K, n, partial.numerics)
        return flips, [(tuple(w), beta) for (w, _), beta in zip(parts, betas)], vectors
    solved = reduced_echelon(rows, rhs)
    if solved is None:
        raise _Failure(f"no orientation of layer {len(partial.layers)} explains the next layer's formulas")
    pivots, table = solved
    first_flip = K + K * M
    free = [j for j in range(first_flip + n) if j not in pivots]
    if any(j < K for j in free):
        raise _Failure(f"the biases of layer {len(partial.layers) + 1} are undetermined")
    if len(free) > max_free:
        raise _Failure(f"the orientation of layer {len(partial.layers)} is undetermined in {len(free)} neurons")
    flip_free = [j for j in free if j >= first_flip]
    for bits in range(1 << len(flip_free)):
        partial.clock.check()
        x = [Fraction(0)] * (first_flip + n)
        for b, j in enumerate(flip_free):
            x[j] = Fraction((bits >> b) & 1)
        for r, p in enumerate(pivots):
            x[p] = table[r][-1] - sum(table[r][j] * x[j] for j in free)
        if all(v in (0, 1) for v in x[first_flip:]):
            flips = [v == 1 for v in x[first_flip:]]
            moved = [
                tuple(c[col] + sum(x[K + k * M + m] * null[m][col] for m in range(M)) for col in range(len(c)))
                for k, c in enumerate(vectors)
            ]
            return flips, [(tuple(_split_coefficients(partial, c)[0]), x[k]) for k, c in enumerate(moved)], moved
    raise _Failure(f"no 0/1 orientation of layer {len(partial.layers)} fits the next layer's formulas")


def _orient_float(rows, rhs, K, n, numerics, max_flips=14):
    """Float mode of :func:`_orient`: every 0/1 orientation scored by least squares at once (``n <= max_flips``)."""
    if n > max_flips:
        raise _Failure(f"float mode orients at most {max_flips} neurons per layer by search, not {n}")
    M = np.array([[float(v) for v in r] for r in rows])
    y = np.array([float(v) for v in rhs])
    T = ((np.arange(1 << n)[:, None] >> np.arange(n)) & 1).astype(float)  # every orientation, one per row
    B = M[:, :K]
    # for each t, the best biases solve B β = y - M_t t; score the residual
    pinv = np.linalg.pinv(B) if K else np.zeros((0, len(y)))
    R = y[:, None] - M[:, K:] @ T.T
    residual = R - B @ (pinv @ R)
    score = np.linalg.norm(residual, axis=0) / (1 + np.linalg.norm(y) + np.linalg.norm(M))
    order = np.argsort(score)
    best = int(order[0])
    # a discrete choice: the best orientation must fit and stand out from the next one
    runner_up = score[order[1]] if len(order) > 1 else np.inf
    if score[best] > 1e6 * numerics.tolerance or runner_up < 10 * score[best]:
        raise _Failure(f"no orientation stands out within the float tolerance (best residuals {score[best]:.2g}, {runner_up:.2g})")
    betas = pinv @ R[:, best]
    return [bool(v) for v in T[best]], [Fraction(float(b)) for b in betas]


def _apply_flips(partial, flips):
    partial.layers[-1] = [(tuple(-v for v in w), -b) if flip else (w, b) for (w, b), flip in zip(partial.layers[-1], flips)]


class _Missed(Exception):
    """``f`` disagrees with the network so far near ``point``: explore there."""

    def __init__(self, point):
        self.point = point


def _region_map(queries, partial, region, numerics):
    """``f``'s affine map on a region from ``n0 + 2`` points inside it (one checks affinity)."""
    n0 = partial.n0
    x = region.relative_interior_point() if partial.complex is not None else (Fraction(0),) * n0
    eta = (1 + max(abs(v) for v in x)) * numerics.shrink
    if partial.complex is not None:
        # a probe moves a row by at most ||a||_1 · eta: stay inside however thin the region is where x lies
        room = [row_value(row, x) / sum(abs(v) for v in row[1:]) for row in region.polyhedron.inequalities if any(row[1:])]
        eta = min([eta, *(r / 2 for r in room if r > 0)])
    for _ in range(12):
        probes = [x] + [tuple(v + (eta if i == j else 0) for i, v in enumerate(x)) for j in range(n0)]
        probes.append(tuple(v - eta / (j + 2) for j, v in enumerate(x)))
        if partial.complex is None or all(partial.locate(p) is region for p in probes):
            break
        eta *= numerics.shrink
    else:
        raise _Failure(f"could not place probe points inside region {region.id}")
    found = _side_map(queries, x, eta, n0, numerics)
    if found is None:
        raise _Missed(x)
    return found


def _least_squares_fit(blocks, regions, numerics):
    """Float mode of the output fit: least squares, each region's residual within the tolerance."""
    M = np.array([[float(v) for v in r] for F, _ in blocks for r in F])
    y = np.array([float(v) for _, t in blocks for v in t])
    x, *_ = np.linalg.lstsq(M, y, rcond=None)
    per_region = np.abs(M @ x - y).reshape(len(blocks), -1).max(axis=1)
    scale = 1 + np.abs(y).max()
    worst = int(np.argmax(per_region))
    if per_region[worst] > 1e5 * numerics.tolerance * scale:
        raise _Missed(regions[worst].relative_interior_point())
    return tuple(Fraction(float(v)) for v in x)


def _fit_output(queries, partial, numerics):
    """The output layer (and the last hidden layer's orientation) from ``f`` on every region; regions checked."""
    regions = partial.complex.regions() if partial.complex is not None else [None]
    maps = {None if R is None else R.id: _region_map(queries, partial, R, numerics) for R in regions}
    m = queries.output_dim
    if partial.net is None:
        A, c = maps[None]
        return [(tuple(A[j]), c[j]) for j in range(m)], 1
    targets = [[(maps[R.id][1][j], *maps[R.id][0][j]) for R in regions] for j in range(m)]
    families, relus = _output_families(partial, regions)
    if families:
        return _fit_with_families(partial, regions, targets, families, relus), len(regions)
    vectors = []
    for j in range(m):
        blocks = [(partial.reduced(R), t) for R, t in zip(regions, targets[j])]
        if isinstance(numerics, _Float):
            vectors.append(_least_squares_fit(blocks, regions, numerics))
        else:
            vectors.append(_exact_fit(blocks, regions))
    flips, rows, _ = _orient(partial, vectors)
    _apply_flips(partial, flips)
    return rows, len(regions)


def _exact_fit(blocks, regions, locate=True):
    """A solution of the stacked blocks ``F x = t``; if none, None, or with ``locate`` ``_Missed`` at the first contradicting region."""
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
        raise _Missed(regions[lo - 1].relative_interior_point())
    pivots, table = solved
    x = [Fraction(0)] * len(blocks[0][0][0])
    for r, p in enumerate(pivots):
        x[p] = table[r][-1]
    return tuple(x)


def _previous_relu(partial, region):
    """``relu(z_i)`` of the previous layer's neurons on a region of the last layer's complex (affine maps)."""
    last = len(partial.layers) - 1
    width = len(partial.layers[-2])
    G, g = partial.net.pre_activation_maps(region.signs)[last - 1]
    zero = (Fraction(0),) * (partial.n0 + 1)
    return [(g[i], *G[i]) if region.signs[partial.offset - width + i] > 0 else zero for i in range(width)]


def _direction_map(relu, direction):
    """The affine map of ``Σ w_i relu(z_i) + b`` for a direction ``(w, b)`` of a family."""
    w, b = direction
    a = (Fraction(b),) + (Fraction(0),) * (len(relu[0]) - 1)
    for v, m in zip(w, relu):
        if v:
            a = _add(a, _mul(v, m))
    return a


def _output_families(partial, regions):
    """Per family neuron ``j`` of the last layer: ``{(k, side): {region: map}}`` of ``[j on side]·d_k``, non-zero ones.

    ``d_k`` are the family's free directions (``partial.free``); ``side`` 0 is
    where the provisional ``ẑ_j > 0``, 1 where it is not. Also returns the
    previous layer's ``relu(z_i)`` on every region (:func:`_previous_relu`),
    which :func:`_corrected_layer` needs again.
    """
    last = len(partial.layers) - 1
    free = {j: dirs for (l, j), dirs in partial.free.items() if l == last}
    families = {}
    relus = {R.id: _previous_relu(partial, R) for R in regions} if free else {}
    for R in regions if free else ():
        relu = relus[R.id]
        for j, directions in free.items():
            side = 0 if R.signs[partial.offset + j] > 0 else 1
            for k, d in enumerate(directions):
                a = _direction_map(relu, d)
                if any(a):
                    families.setdefault(j, {}).setdefault((k, side), {})[R.id] = a
    return families, relus


def _fit_with_families(partial, regions, targets, families, relus, max_families=10):
    """The output fit when last-layer neurons are families (:func:`_trace`).

    Where family ``j`` is active the output reads ``v_j (z_j + Σ Δ_k d_k)``
    with the free directions ``d_k``: columns ``[j on]·d_k`` whose
    coefficients ``u_k = v_j Δ_k`` are linear. Each orientation of the
    families chooses the side of those columns; it must agree with
    :func:`_orient`, the ``u`` must be rank one across outputs, and the
    corrected neurons must keep their signs on every region
    (:func:`_corrected_layer`, which also re-chooses the directions the output
    never sees).
    """
    if isinstance(partial.numerics, _Float):
        raise _Failure("float mode does not recover neurons whose hypersurface misses a previous-layer neuron (TPIC fails)")
    if len(families) > max_families:
        raise _Failure(f"{len(families)} neurons whose hypersurface misses a previous-layer neuron: at most {max_families} are oriented by search")
    zero = (Fraction(0),) * (partial.n0 + 1)
    order = sorted(families)
    first, fitted = None, False
    for sides in itertools.product((0, 1), repeat=len(order)):
        partial.clock.check()
        side = dict(zip(order, sides))
        cols = [(j, k) for j in order for (k, s) in sorted(families[j]) if s == side[j]]
        vectors = []
        for target in targets:
            blocks = [
                ([(*F_row, *(families[j][k, side[j]].get(R.id, zero)[r] for j, k in cols)) for r, F_row in enumerate(partial.reduced(R))], t)
                for R, t in zip(regions, target)
            ]
            x = _exact_fit(blocks, regions, locate=False)
            if x is None:
                first = first or blocks
                break
            vectors.append(x)
        else:
            fitted = True
            # the columns can be dependent (a family active almost everywhere): the orientation picks the solution
            null = _nullspace([row for F, _ in blocks for row in F], len(vectors[0]), partial.numerics)
            try:
                flips, rows, moved = _orient(partial, vectors, fixed=side, null=null)
            except _Failure:
                continue
            products = [v[len(partial.basis) :] for v in moved]
            corrected = _corrected_layer(partial, regions, relus, flips, rows, products, cols)
            if corrected is not None:
                partial.layers[-1], rows = corrected
                return rows
    if not fitted:
        _exact_fit(first, regions)  # raises _Missed where f bends beyond the known neurons
    raise _Failure("no orientation of the neurons whose hypersurface misses a previous-layer neuron fits f")


def _corrected_layer(partial, regions, relus, flips, rows, products, cols):
    """The last layer and output rows with the families completed, or None.

    After the flips the output reads ``[j on]·(v_j r_j + Σ u_k d_k)`` for a
    family ``j`` with row ``r_j``: so the neuron is ``±(r_j + Σ (u_k / v_j) d_k)``,
    the sign the one that is positive where ``j`` is on (then ``v_j`` changes
    sign too). ``u / v`` must agree across outputs, and the signs hold on
    every region, with the directions the output never sees chosen to make
    them hold (:func:`_solve_rows`).
    """
    delta = {}
    for (j, k), u in zip(cols, zip(*products)):
        for v_out, u_out in zip((w[j] for w, _ in rows), u):
            if v_out == 0:
                if u_out:
                    return None
            elif delta.setdefault((j, k), u_out / v_out) != u_out / v_out:
                return None
    layer = [(tuple(-v for v in w), -b) if flip else (w, b) for (w, b), flip in zip(partial.layers[-1], flips)]
    rows = list(rows)
    last = len(partial.layers) - 1
    for (l, j), directions in partial.free.items():
        if l != last:
            continue
        w, b = layer[j]
        for k, (dw, db) in enumerate(directions):
            if (j, k) in delta:
                w, b = _add(w, _mul(delta[j, k], dw)), b + delta[j, k] * db
        rest = [d for k, d in enumerate(directions) if (j, k) not in delta]
        pieces = [
            (R, 1 if (R.signs[partial.offset + j] > 0) != flips[j] else -1, _direction_map(relus[R.id], (w, b)),
             [_direction_map(relus[R.id], d) for d in rest])
            for R in regions
        ]
        for sign in (1, -1):
            ieqs, eqns, strict = set(), set(), set()
            for R, on, base, moves in pieces:
                _sign_rows(R, on, [_mul(sign, base), *moves], ieqs, eqns, strict)
            t = _solve_rows(ieqs, eqns, strict, len(rest))
            if t is not None:
                break
        else:
            return None
        w, b = _mul(sign, w), sign * b
        for x, (dw, db) in zip(t, rest):
            w, b = _add(w, _mul(x, dw)), b + x * db
        layer[j] = (tuple(w), b)
        rows = [(tuple(sign * v if i == j else v for i, v in enumerate(w_out)), beta) for w_out, beta in rows]
    return layer, rows


# ---------------------------------------------------------------------------- the whole recovery
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
    kinks : int
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
    network: object
    queries: int
    reason: object
    kinks: int
    lines: int
    layer_widths: tuple
    regions: int
    rounds: int
    elapsed: float
    max_deviation: object = None
    domain: object = None
    whole_space: bool = False
    tolerance: object = None
    threshold: object = None

    def __bool__(self):
        return self.status == "recovered"

    def __str__(self):
        head = f"recovery: {self.status}" + (f" ({self.reason})" if self.reason else "")
        arch = str(self.network.architecture) if self.network is not None else "-"
        lines = [
            head,
            f"  network            {arch}",
            f"  domain             {_describe_domain(self.domain, self.whole_space)}",
            f"  queries            {self.queries}",
            f"  breakpoints found  {self.kinks} on {self.lines} lines",
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


def _random_point(rng, n0, domain_rows, vertices, window):
    if domain_rows is None:
        return tuple(Fraction(int(rng.integers(-1024, 1025)), 1024) * window for _ in range(n0))
    weights = [Fraction(int(v) + 1) for v in rng.integers(0, 64, size=len(vertices))]
    total = sum(weights)
    return tuple(sum(w * v[i] for w, v in zip(weights, vertices)) / total for i in range(n0))


def _uniform_point(rng, lower, upper):
    """A point uniform (on a grid of 2^20 steps per side) in the box ``prod [lower_i, upper_i]``."""
    steps = 1 << 20
    return tuple(a + (b - a) * Fraction(int(rng.integers(0, steps + 1)), steps) for a, b in zip(lower, upper))


def _jittered_points(rng, lower, upper, count):
    """``count`` points in a box, each uniform in its own cell of a ``k^n`` grid (``k^n <= count``), the rest uniform.

    Stratified sampling: as uniform as independent points, but no part of the
    box larger than a grid cell is left out.
    """
    n = len(lower)
    k = max(1, int(count ** (1 / n) + 1e-9)) if n else 1
    points = []
    for cell in itertools.product(range(k), repeat=n):
        start = tuple(a + (b - a) * Fraction(c, k) for a, b, c in zip(lower, upper, cell))
        stop = tuple(a + (b - a) * Fraction(c + 1, k) for a, b, c in zip(lower, upper, cell))
        points.append(_uniform_point(rng, start, stop))
    return points + [_uniform_point(rng, lower, upper) for _ in range(count - len(points))]


def _points_on_box_surface(rng, n0, radius, count):
    """About ``count`` points on the surface of ``[-radius, radius]^n0``: a stratified sample of each facet, so of every direction."""
    per_facet = max(1, count // (2 * n0))
    points = []
    for axis in range(n0):
        for side in (-radius, radius):
            for y in _jittered_points(rng, (-radius,) * (n0 - 1), (radius,) * (n0 - 1), per_facet):
                points.append((*y[:axis], side, *y[axis:]))
    return points


def _check_window(window):
    """The half-width of the box of fresh checks on ``R^n0``: a power of two at least four times the search window."""
    return Fraction(2) ** max(0, math.ceil(math.log2(4 * window)))


def _fresh_points(rng, n0, domain_rows, vertices, window, count):
    """Points to check a candidate network on: ``count`` spread uniformly over the query region, more near its edges.

    In a polytope: ``count`` points uniform in it (a stratified sample of the
    box of its vertices, :func:`_jittered_points`, the points outside
    replaced by uniform ones inside; random convex combinations of the
    vertices where a thin polytope rejects too many), ``count // 2`` within
    ``2^-10`` of the boundary (near the ends of random chords through uniform
    points, exactly on it for some), and up to ``count // 4`` vertices (at
    random), each moved ``2^-10`` of the way towards the centroid. On all of
    ``R^n0`` (no ``domain_rows``): ``count`` points stratified in
    ``[-window, window]^n0``, and ``count`` far out, stratified over the
    surfaces of the boxes ``2^10`` and ``2^20`` times as large: ``f`` may
    differ from a candidate only in a thin cone far out (5% of the directions
    in a test case), which every direction class of the sample meets.
    """
    if domain_rows is None:
        near = _jittered_points(rng, (-window,) * n0, (window,) * n0, count)
        far = [p for r in (1 << 10, 1 << 20) for p in _points_on_box_surface(rng, n0, window * r, count // 2)]
        return near + far
    lower = tuple(min(v[i] for v in vertices) for i in range(n0))
    upper = tuple(max(v[i] for v in vertices) for i in range(n0))

    def inside(x):
        return all(row_value(row, x) >= 0 for row in domain_rows)

    def uniform():
        for _ in range(64):
            x = _uniform_point(rng, lower, upper)
            if inside(x):
                return x
        return _random_point(rng, n0, domain_rows, vertices, 1)

    points = [x if inside(x) else uniform() for x in _jittered_points(rng, lower, upper, count)]
    while len(points) < count + count // 2:
        x, d = uniform(), _random_direction(rng, n0)
        span = _line_range(x, d, domain_rows)
        if span is None:
            continue
        lo, hi = span
        gap = (hi - lo) * Fraction(int(rng.integers(0, 1025)), 1 << 20)
        points.append(_add(x, _mul(hi - gap if rng.integers(0, 2) else lo + gap, d)))
    centroid = tuple(sum(v[i] for v in vertices) / len(vertices) for i in range(n0))
    corners = rng.permutation(len(vertices))[: count // 4]
    points += [_add(vertices[k], _mul(Fraction(1, 1024), _sub(centroid, vertices[k]))) for k in corners]
    return points


def _check_candidate(queries, net, points, numerics):
    """``(deviation, threshold, off)``: ``max |f - g|`` over ``points``, the most accepted, the points off by more than the search's screening.

    Every point is evaluated, so that the deviation is known even when the
    search goes on (``off`` non-empty: :meth:`_Exact.close` fails there).
    """
    deviation, largest, off = Fraction(0), Fraction(0), []
    for x in points:
        fx, gx = queries(x), net(x)
        if not numerics.close(fx, gx):
            off.append(x)
        deviation = max(deviation, max(abs(a - b) for a, b in zip(fx, gx)))
        largest = max(largest, max(abs(a) for a in fx))
    return deviation, numerics.threshold(largest), off


def _random_direction(rng, n0):
    while True:
        d = tuple(Fraction(int(v), 64) for v in rng.integers(-64, 65, size=n0))
        if any(d):
            return d


class _Explorer:
    """Search lines and the breakpoints found on them."""

    def __init__(self, queries, n0, domain_rows, numerics, rng):
        self.queries = queries
        self.n0 = n0
        self.rows = domain_rows
        self.numerics = numerics
        self.rng = rng
        self.kinks = []
        self.lines = 0
        self.window = Fraction(1)
        self.vertices = None
        if domain_rows is not None:
            self.vertices = Polyhedron(ieqs=domain_rows, ambient_dim=n0).vertices()

    def search(self, point=None, far=False):
        """One random line, through ``point`` if given; ``far``: through a point ``2^20`` windows out.

        A line far out crosses the unbounded regions only, seeing directions
        near lines miss: a thin cone where ``f`` is not constant, far out.
        Its breakpoints do not widen the window of the near lines.
        """
        scale = self.window * (1 << 20 if far and self.rows is None else 1)
        p = point if point is not None else _random_point(self.rng, self.n0, self.rows, self.vertices, scale)
        d = _random_direction(self.rng, self.n0)
        self.lines += 1
        for t, _, _, a, b in _line_kinks(self.queries, p, d, self.rows, self.numerics):
            step = _mul(min(t - a, b - t) / 2, d)
            point = _add(p, _mul(t, d))
            kink = _kink_at(self.queries, point, step, self.n0, self.numerics)
            if kink is not None and _is_kink_along(self.queries, point, kink.row, self.numerics):
                self.kinks.append(kink)
                if not far:
                    self.window = max(self.window, 2 * max(abs(v) for v in kink.point))


def _rebuild(queries, explorer, domain, numerics, rng, bar, log, one_sided=False, max_cells=1_000_000):
    """One pass: layers from the breakpoints found so far, then the output layer. Returns (layers, output rows, regions)."""
    log.clear()
    clock = queries.clock
    partial = _Partial(explorer.n0, domain, numerics, clock, max_cells)
    pending = list(explorer.kinks)
    while True:
        known = len(partial.layers)
        clock.stage = f"building the complex of {_layers_text(known)}"
        partial.rebuild()
        pending = [k for k in pending if not partial.explains(k)]
        if not pending:
            break
        traced = []
        failed = set()  # (region, hyperplane) pieces already traced in vain at this layer
        clock.stage = "testing first-layer hyperplanes" if not known else f"tracing layer-{known + 1} hypersurfaces"
        for kink in pending:
            piece = (None if partial.net is None else getattr(partial.locate(kink.point), "id", None), kink.row)
            if piece in failed:
                continue
            if _explained_by(partial, [c if partial.net is None else c[0] for c in traced], kink):
                continue
            if partial.net is None:
                found = kink.row if _hyperplane_neuron(queries, kink, explorer.window, numerics, explorer.rows) else None
            else:
                found = _trace(queries, partial, kink, numerics, log=log)
            if found is not None:
                traced.append(found)
            else:
                failed.add(piece)
        if partial.net is None and one_sided:
            traced += _partly_bent_hyperplanes(queries, explorer, traced, [k for k in pending if (None, k.row) in failed])
        if partial.net is not None:
            traced = [c for c, *_ in _drop_deeper(queries, partial, traced, numerics)]
        traced = [tuple(Fraction(v) for v in c) for c in traced]
        # rounded formulas may miss that a breakpoint is explained: one neuron traced twice
        traced = [c for i, c in enumerate(traced) if not any(numerics.parallel(c, d) for d in traced[:i])]
        bar.update(len(traced))
        if not traced and partial.net is not None:
            guessed = _orientation_by_search(queries, partial, pending, numerics, log)
            if guessed:
                partial.layers.append(guessed)
                continue
        if not traced:
            raise _Missed(pending[0].point)
        if partial.net is None:
            if isinstance(numerics, _Float):  # unit rows keep later least-squares systems well scaled
                traced = [_mul(1 / max(abs(v) for v in c[1:]), c) for c in traced]
            partial.layers.append([(tuple(c[1:]), c[0]) for c in traced])
        else:
            clock.stage = f"orienting layer {known}"
            flips, rows, _ = _orient(partial, traced)
            _apply_flips(partial, flips)
            clock.stage = f"tracing layer-{known + 1} hypersurfaces with layer {known} oriented"
            partial.layers.append(rows + _second_chance(queries, partial, rows, pending, numerics, log))
    clock.stage = f"fitting the output layer on the complex of {_layers_text(len(partial.layers))}"
    rows, regions = _fit_output(queries, partial, numerics)
    return partial.layers, rows, regions


def _layers_text(count):
    """``"layer 1"``, ``"layers 1-3"``: the hidden layers known, for the stage of a recovery."""
    return "no layer" if count == 0 else "layer 1" if count == 1 else f"layers 1-{count}"


def _second_chance(queries, partial, rows, pending, numerics, log):
    """More neurons of the layer just found, traced with the previous layer's orientation known.

    A hypersurface that crosses few regions may leave its formula a family
    over ``relu(ẑ_i)``, ``ẑ_i`` and ``1``; with the orientation fixed by its
    layer-mates only ``relu(z_i)`` and ``1`` remain, and fewer pieces do.
    What still stays free is a neuron's weight on a previous-layer neuron that
    is off wherever it vanishes (TPIC fails): such families are merged across
    the hypersurface's components and fixed by :func:`_fix_family`; the free
    neurons are kept in ``partial.free`` for the output fit.
    """
    partial.rebuild(oriented=True)
    n = len(partial.layers[-1])
    position = {col: j for j, col in enumerate(partial.basis)}
    if any(i not in position for i in range(n)) or n not in position:
        return []
    def vector(w, b):
        c = [Fraction(0)] * len(partial.basis)
        for i, v in enumerate(w):
            c[position[i]] = v
        c[position[n]] = b
        return tuple(c)
    found = [vector(w, b) for w, b in rows]
    traced = []
    for kink in pending:
        if _explained_by(partial, found + [c for c, *_ in traced], kink) or _on_pieces(partial, traced, kink):
            continue
        result = _trace(queries, partial, kink, numerics, log=log)
        if result is not None:
            traced.append(result)
    traced = _merge_families(partial, _drop_deeper(queries, partial, traced, numerics))
    layer = len(partial.layers)
    more = []
    for c, regions, span, pieces in traced:
        if span:
            c = _fix_family(partial, span, regions, pieces)
            if c is None:
                continue
        if any(numerics.parallel(c, d) for d in found + [vector(w, b) for w, b in more]):
            continue
        if span:
            partial.free[layer, len(rows) + len(more)] = tuple(
                (tuple(d[position[i]] for i in range(n)), d[position[n]]) for d in _complement(c, span)
            )
        more.append((tuple(c[position[i]] for i in range(n)), c[position[n]]))
    return more


def _on_pieces(partial, traced, kink):
    """Whether the kink lies on a piece already traced (a family predicts nothing beyond its pieces)."""
    region = partial.locate(kink.point)
    return region is not None and any(
        region.id in pieces and partial.numerics.on_hyperplane(pieces[region.id], kink) for *_, pieces in traced
    )


def _orientation_by_search(queries, partial, pending, numerics, log, max_width=4):
    """The next layer when no breakpoint pins a formula before the last layer is oriented: try every orientation.

    Each orientation of a narrow last layer (at most ``max_width`` neurons,
    exact mode) gets the oriented tracing of :func:`_second_chance`; a wrong
    one makes the pieces' equations inconsistent. The orientation that
    explains the most neurons is kept (the output fit checks it); None if
    none explains any.
    """
    n = len(partial.layers[-1])
    if n > max_width or isinstance(numerics, _Float):
        return None
    original, layer = list(partial.layers[-1]), len(partial.layers)
    partial.clock.stage = f"searching the orientations of layer {layer}"
    best = (0, None, None, None)
    for flips in itertools.product((False, True), repeat=n):
        partial.clock.check()
        partial.layers[-1] = list(original)
        _apply_flips(partial, flips)
        for key in [key for key in partial.free if key[0] == layer]:
            del partial.free[key]
        rows = _second_chance(queries, partial, [], pending, numerics, log)
        if len(rows) > best[0]:
            best = (len(rows), flips, rows, {key: v for key, v in partial.free.items() if key[0] == layer})
    partial.layers[-1] = list(original)
    if best[1] is None:
        return None
    _, flips, rows, free = best
    _apply_flips(partial, flips)
    partial.free.update(free)
    return rows


def _merge_families(partial, traced):
    """Pieces of one neuron traced apart, merged: two families whose spans share a formula (:func:`_common_formula`)."""
    merged = list(traced)
    for a in range(len(merged)):
        b = a + 1
        while b < len(merged):
            joint = _common_formula(partial, merged[a], merged[b])
            if joint is None:
                b += 1
            else:
                merged[a] = joint
                del merged[b]
                b = a + 1
    return merged


def _common_formula(partial, A, B):
    """The traces ``A`` and ``B`` as one neuron, or None.

    Both families contain the unit columns that vanish on all their pieces.
    Families of different neurons share nothing more when their dimensions
    leave room (``dim A + dim B - shared units <= columns``), so one more
    common direction is the neuron: determined up to the shared units. The
    pieces of ``B`` are re-oriented to agree with ``A``'s.
    """
    (ca, ra, sa, pa), (cb, rb, sb, pb) = A, B
    if not (sa or sb):
        return None
    sa, sb = sa or (ca,), sb or (cb,)
    ncols = len(sa[0])
    null = _nullspace([[v[r] for v in sa] + [-v[r] for v in sb] for r in range(ncols)], len(sa) + len(sb), partial.numerics)
    common = [tuple(sum(x * v[r] for x, v in zip(z, sa)) for r in range(ncols)) for z in null]
    unit = lambda k: tuple(int(j == k) for j in range(ncols))  # noqa: E731
    units = [k for k in range(ncols) if _in_span(unit(k), sa) and _in_span(unit(k), sb)]
    if len(common) != 1 + len(units) or len(sa) + len(sb) - len(units) > ncols:
        return None
    w = next(v for v in common if not _in_span(v, [unit(k) for k in units]))
    w = tuple(Fraction(0) if k in units else v for k, v in enumerate(w))
    lam_a = [_lambda(partial, w, rid, h) for rid, h in pa.items()]
    lam_b = [_lambda(partial, w, rid, h) for rid, h in pb.items()]
    if any(v == 0 for v in lam_a + lam_b):
        return None
    flip = -1 if (lam_a[0] > 0) != (lam_b[0] > 0) else 1
    pieces = {**pa, **{rid: tuple(flip * v for v in h) for rid, h in pb.items()}}
    return w, ra | rb, (_echelon_basis(common) if units else ()), pieces


def _in_span(v, vectors):
    """Whether ``v`` is a linear combination of ``vectors``."""
    if not vectors:
        return not any(v)
    columns = lambda vs: [[u[r] for u in vs] for r in range(len(v))]  # noqa: E731
    return len(_pivot_columns(columns([*vectors, v]))) == len(_pivot_columns(columns(vectors)))


def _complement(c, span):
    """Members of ``span`` that with ``c`` form a basis of it."""
    pivots = _pivot_columns([[c[r], *(v[r] for v in span)] for r in range(len(c))])
    return [span[k - 1] for k in pivots if k]


def _fix_family(partial, span, traced, pieces):
    """A member of the family ``span`` with the neuron's sign on every region, or None.

    The hypersurface crosses exactly the ``traced`` regions, where every
    member fits the piece: the member must be a positive multiple of the
    oriented ``pieces``. On every other region the neuron keeps one sign,
    read where it borders a traced region and carried across the walls
    between untraced ones; the member must have that sign there
    (:func:`_sign_rows`). On regions the free columns miss this checks that
    the trace was complete.
    """
    cells = partial.complex
    n0 = partial.n0
    maps = {R.id: [tuple(_dot(F_row, v) for F_row in partial.reduced(R)) for v in span] for R in cells.regions()}
    sign, neighbours = {}, {}
    for facet in cells.cells(n0 - 1):
        pair = [r for r in cells.lattice.cofacets(facet.id) if cells[r].dimension == n0]
        if len(pair) != 2:
            continue
        a, b = pair
        if a not in traced and b not in traced:
            neighbours.setdefault(a, []).append(b)
            neighbours.setdefault(b, []).append(a)
        elif (a in traced) != (b in traced):
            inside, outside = (a, b) if a in traced else (b, a)
            v = row_value(pieces[inside], facet.relative_interior_point())
            s = (v > 0) - (v < 0)
            if s == 0 or sign.setdefault(outside, s) != s:
                return None
    queue = list(sign)
    while queue:
        r = queue.pop()
        for q in neighbours.get(r, ()):
            if q not in sign:
                sign[q] = sign[r]
                queue.append(q)
            elif sign[q] != sign[r]:
                return None
    ieqs, eqns, strict = set(), set(), set()
    for R in cells.regions():
        if R.id in pieces:
            h = pieces[R.id]
            p = max(range(len(h)), key=lambda i: abs(h[i]))
            strict.add((0, *(m[p] * (1 if h[p] > 0 else -1) for m in maps[R.id])))
        elif R.id in sign:
            _sign_rows(R, sign[R.id], [(0,) * (n0 + 1), *maps[R.id]], ieqs, eqns, strict)
        else:
            return None
    alpha = _solve_rows(ieqs, eqns, strict, len(span), homogeneous=True)
    if alpha is None:
        return None
    c = tuple(sum(a * v[k] for a, v in zip(alpha, span)) for k in range(len(span[0])))
    return _mul(1 / max(abs(v) for v in c), c)


def _sign_rows(region, s, maps, ieqs, eqns, strict):
    """Rows in ``t`` saying ``s·(a + Σ t_k g_k) > 0`` inside ``region`` (``maps = [a, g_1, ...]``), added to the sets.

    Non-negative at every vertex and along every ray, zero along every line,
    and positive at one interior point means positive on the interior.
    """
    poly = region.polyhedron
    for v in poly.vertices():
        ieqs.add(tuple(s * row_value(m, v) for m in maps))
    for r in poly.rays():
        ieqs.add(tuple(s * _dot(m[1:], r) for m in maps))
    for line in poly.lines():
        eqns.add(tuple(_dot(m[1:], line) for m in maps))
    x = region.relative_interior_point()
    strict.add(tuple(s * row_value(m, x) for m in maps))


def _solve_rows(ieqs, eqns, strict, nvars, homogeneous=False):
    """A point ``t`` with ``ieqs >= 0``, ``eqns = 0``, ``strict > 0`` (rows ``(const, coefficients)``), small when possible; or None.

    Exact: one feasibility problem, then its relative interior point rounded
    to small denominators if that still satisfies every row. ``homogeneous``
    rows describe a cone, and ``t`` is scaled to max-norm 1 first.
    """
    def satisfies(t):
        return (
            all(row_value(r, t) >= 0 for r in ieqs)
            and all(row_value(r, t) == 0 for r in eqns)
            and all(row_value(r, t) > 0 for r in strict)
        )

    zero = (Fraction(0),) * nvars
    if not homogeneous and satisfies(zero):
        return zero
    active = [r for r in (*ieqs, *strict) if any(r[1:])]
    if any(not any(r[1:]) and r[0] < 0 for r in ieqs) or any(not any(r[1:]) and r[0] <= 0 for r in strict):
        return None
    poly = Polyhedron(ieqs=active, eqns=[r for r in eqns if any(r[1:])], ambient_dim=nvars)
    if poly.is_empty():
        return None
    t = poly.relative_interior_point()
    if homogeneous and any(t):
        t = _mul(1 / max(abs(v) for v in t), t)
    for denominator in (1, 2, 4, 8, 16, 64, 256, 1 << 12, 1 << 16, 1 << 24):
        rounded = tuple(Fraction(v).limit_denominator(denominator) for v in t)
        if satisfies(rounded):
            return rounded
    return t if satisfies(t) else None


def _check_arguments(oracle, input_dim, max_queries, lines, seed, float_oracle, tolerance, max_rounds, checks, max_seconds, max_cells, progress):
    """The arguments of :func:`recover_network`: wrong types are InvalidArgumentError, unusable values UsageError."""
    caller = "recover_network"
    require_callable(oracle, "oracle", caller)
    require_int(input_dim, "input_dim", caller, minimum=1)
    for name, value in (("max_queries", max_queries), ("max_rounds", max_rounds), ("checks", checks), ("max_cells", max_cells)):
        require_int(value, name, caller, minimum=1)
    require_int(lines, "lines", caller, minimum=1, optional=True)
    require_int(seed, "seed", caller, minimum=0)
    require_bool(float_oracle, "float_oracle", caller)
    if progress is not None:
        require_bool(progress, "progress", caller)
    require_real(max_seconds, "max_seconds", caller, above=0, optional=True)
    if tolerance is not None:
        if not float_oracle:
            raise UsageError(f"{caller}: tolerance applies to float oracles (float_oracle=True); exact recovery compares exactly")
        if require_real(tolerance, "tolerance", caller, above=0) >= 1:
            raise UsageError(f"{caller}: tolerance must be a number in (0, 1), such as 1e-9 or 1e-4, not {tolerance!r}")


def recover_network(
    oracle,
    input_dim,
    *,
    domain=None,
    max_queries=1_000_000,
    lines=None,
    seed=0,
    float_oracle=False,
    tolerance=None,
    max_rounds=6,
    checks=64,
    max_seconds=None,
    max_cells=1_000_000,
    progress=None,
):
    """Rebuild a ReLU network from function values alone.

    Breakpoints of ``f`` are located exactly on random lines
    (:func:`line_kinks`), each with its facet hyperplane (:func:`kink_data`).
    Then, layer by layer:

    1. **first layer**: a breakpoint whose hyperplane is a breakpoint of ``f``
       at random far points too is a first-layer neuron;
    2. **deeper layers**: with the layers so far known exactly, their
       canonical complex is built, and a new breakpoint is traced across its
       regions (the far-side hyperplane through the crossing is found from
       one more kink); on each region a next-layer neuron is
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
    ``2^20`` times as far). It is ``"recovered"`` only if the largest
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

    Examples
    --------
    >>> from polyrelu import ReLUNetwork, equivalent
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

    Notes
    -----
    The query count is ``O(n0 · regions + kinks)``: see ``docs/recovery.md``
    for the bound the tests check. A black box can hide breakpoints between
    the points asked (a bump narrower than the gaps between them, a
    breakpoint beyond every query): what is certified is agreement at every
    point queried, which includes ``n0 + 2`` points in every region of the
    result and the fresh points over ``domain``.
    """
    _check_arguments(oracle, input_dim, max_queries, lines, seed, float_oracle, tolerance, max_rounds, checks, max_seconds, max_cells, progress)
    n0 = int(input_dim)
    numerics = _Float(tolerance, 1 << 30) if float_oracle else _Exact()
    domain_rows = _domain_rows(domain, n0)
    if float_oracle and domain_rows is None:
        raise RecoveryError(
            "float_oracle=True needs a bounded domain (e.g. domain=Box(-4, 4)): rounded hyperplanes drift far from the origin"
        )
    clock = _Clock(max_seconds)
    queries = _Queries(oracle, n0, numerics, max_queries, clock)
    rng = np.random.default_rng(seed)
    checker = rng.spawn(1)[0]  # fresh points independent of the search
    explorer = _Explorer(queries, n0, domain_rows, numerics, rng)
    started = time.perf_counter()
    rounds = 0
    log = {}
    last = {}  # the last candidate's check: deviation, threshold, round
    bar = tqdm(desc="neurons", unit="neuron", delay=1.0, disable=None if progress is None else not progress, file=sys.stderr, leave=False)

    def result(status, network=None, reason=None, widths=(), regions=0):
        bar.close()
        if reason and log.get("undetermined"):
            reason += (
                f"; {log['undetermined']} traced hypersurface(s) left their formula undetermined, as when a"
                " neuron's hypersurface misses one of the previous layer's (TPIC fails)"
            )
        if domain_rows is None:
            region = Box(-_check_window(explorer.window), _check_window(explorer.window))
        else:
            region = domain if isinstance(domain, (Box, Polyhedron)) else Polyhedron(ieqs=domain_rows, ambient_dim=n0)
        deviation = last.get("deviation")
        return RecoveryResult(
            status, network, queries.count, reason, len(explorer.kinks), explorer.lines, tuple(widths), regions, rounds,
            time.perf_counter() - started, None if deviation is None else float(deviation), region, domain_rows is None,
            numerics.tolerance if float_oracle else None, None if last.get("threshold") is None else float(last["threshold"]),
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
            queries(tuple(sum(v[i] for v in vertices) / len(vertices) for i in range(n0)))
            if tolerance is None:  # the precision of the oracle's answers sets the default
                numerics.tolerance = _DEFAULT_TOLERANCES[queries.precision]
        clock.stage = "searching breakpoints on the first search lines"
        for _ in range(2 * n0 + 2 if lines is None else lines):
            explorer.search()
        for _ in range(n0 + 1 if domain_rows is None else 0):
            explorer.search(far=True)
        reasons = []
        # a first-layer hyperplane must bend far out on both sides; only if that fails, on one side suffices
        for one_sided in (False, True):
            attempt = 0
            try:
                while attempt < max_rounds:
                    attempt += 1
                    rounds += 1
                    try:
                        layers, out_rows, regions = _rebuild(
                            queries, explorer, domain, numerics, rng, bar, log, one_sided, max_cells
                        )
                        Ws = [[list(w) for w, _ in layer] for layer in layers] + [[list(w) for w, _ in out_rows]]
                        bs = [[b for _, b in layer] for layer in layers] + [[b for _, b in out_rows]]
                        net = ReLUNetwork(Ws, bs, name="recovered")
                        clock.stage = "checking the candidate network on fresh points"
                        points = _fresh_points(checker, n0, domain_rows, explorer.vertices, _check_window(explorer.window), checks)
                        deviation, threshold, off = _check_candidate(queries, net, points, numerics)
                        last.update(deviation=deviation, threshold=threshold, round=rounds, points=len(points))
                        if off:
                            raise _Missed(off[0])
                        widths = [len(layer) for layer in layers]
                        if deviation > threshold:  # the search saw nothing amiss; more of it would rebuild the same
                            return result("undecided", reason=off_by(), widths=widths, regions=regions)
                        return result("recovered", canonical_form(net), widths=widths, regions=regions)
                    except _Missed as missed:
                        clock.stage = "searching breakpoints on search lines through a point where f differs"
                        for _ in range(n0 + 1):
                            explorer.search(missed.point)
                        for _ in range(n0 + 1):
                            explorer.search()
                reason = f"f still bends where no recovered neuron does after {attempt} rounds"
                reasons.append(reason + (f"; {off_by()}" if last.get("round") == rounds else ""))
            except _Failure as failure:
                reasons.append(str(failure))
        return result("undecided", reason=reasons[0] if reasons[0] == reasons[1] else f"{reasons[0]} (with one-sided first-layer hyperplanes: {reasons[1]})")
    except _BudgetExhausted:
        return result("undecided", reason=f"the query budget ({max_queries}) is spent while {stage()}")
    except _TimeSpent:
        return result("undecided", reason=f"the time budget (max_seconds={max_seconds:g}) is spent while {stage()}")
    except ComplexTooLargeError as exc:
        return result("undecided", reason=f"a complex is too large while {stage()}: {exc}")
    except _Failure as failure:
        return result("undecided", reason=str(failure))
