"""numerics"""

import math
import time
from fractions import Fraction

import flint
import numpy as np

from ..geometry.rational import primitive_integer_row, reduced_echelon

__all__ = []


class BudgetExhausted(Exception):
    """Raised inside recovery when ``max_queries`` distinct points have been asked."""


class StageFailed(Exception):
    """A step could not be carried out; the message is the reason reported as ``undecided``."""


class TimeSpent(Exception):
    """Raised inside recovery when ``max_seconds`` have passed; the message is the stage reached."""


class Clock:
    """The wall-clock budget of one recovery (``time.monotonic``) and the stage it has reached.

    Work loops call :meth:`check`; every oracle query does too
    (:class:`Queries`), so a search that never leaves one stage is still cut.
    ``stage`` names what recovery is doing, for the reason when time runs out.
    """

    def __init__(self, max_seconds=None):
        self.deadline = None if max_seconds is None else time.monotonic() + max_seconds
        self.stage = "starting"

    def check(self):
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise TimeSpent(self.stage)


def vsub(u, v):
    return tuple(a - b for a, b in zip(u, v))


def vadd(u, v):
    return tuple(a + b for a, b in zip(u, v))


def vscale(s, u):
    return tuple(s * a for a in u)


def vdot(u, v):
    return sum(a * b for a, b in zip(u, v))


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


class ExactNumerics:
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

    def on_hyperplane(self, row, bp):
        """Whether ``row`` (an integer row) is the breakpoint's hyperplane."""
        row = tuple(int(v) for v in row)
        return row == bp.row or row == tuple(-v for v in bp.row)


class FloatNumerics(ExactNumerics):
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
        # deeper formulas carry the rounding of every layer before them: looser than the oracle's tolerance
        return bool(np.abs(a[1:] - b[1:]).max() <= 1e6 * self.tolerance and value <= 1e6 * self.tolerance * size)


def nullspace(rows, ncols, numerics, precondition=None):
    """A basis of ``{c : rows · c = 0}`` (exact; SVD with a gap test in float mode, in ``c = P c'`` coordinates)."""
    if not rows:
        return [tuple(Fraction(int(i == j)) for j in range(ncols)) for i in range(ncols)]
    if isinstance(numerics, FloatNumerics):
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


def echelon_basis(vectors):
    """The reduced row echelon basis of the span of ``vectors`` (small entries, unlike an integer kernel's)."""
    _, table = reduced_echelon(vectors, [0] * len(vectors))
    return tuple(tuple(row[:-1]) for row in table)


def pivot_columns(rows):
    """Indices of a maximal set of linearly independent columns, earliest first."""
    solved = reduced_echelon(rows, [0] * len(rows))
    return solved[0]


def in_span(v, vectors):
    """Whether ``v`` is a linear combination of ``vectors``."""
    if not vectors:
        return not any(v)
    columns = lambda vs: [[u[r] for u in vs] for r in range(len(v))]  # noqa: E731
    return len(pivot_columns(columns([*vectors, v]))) == len(pivot_columns(columns(vectors)))


def span_complement(c, span):
    """Members of ``span`` that with ``c`` form a basis of it."""
    pivots = pivot_columns([[c[r], *(v[r] for v in span)] for r in range(len(c))])
    return [span[k - 1] for k in pivots if k]
