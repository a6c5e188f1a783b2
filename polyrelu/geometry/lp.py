"""Certified LP feasibility: is a polyhedron empty, full-dimensional, or flat?

One question decides almost every combinatorial step of polyrelu: given rows
``(b, a_1, ..., a_d)`` meaning ``b + a·x >= 0``, does the system have a strictly
interior point, no point at all, or points but no interior?  The answer comes
from the Chebyshev-type linear program ::

    maximize t   subject to   b_i + a_i·x - t·w_i >= 0,   t <= 1,

with ``w_i = ||a_i||_1`` (an integer, so the LP stays rational). It is always
feasible and bounded, and ``t* > 0``, ``t* = 0``, ``t* < 0`` mean interior,
no interior, empty.

The fast path solves it in floating point with pycddlib's float simplex and
accepts the answer only with an *exact certificate* checked in Python integers:

* interior: the float optimiser ``x`` is a dyadic rational; every row is
  checked strictly positive at ``x`` exactly;
* empty / no interior: the integer null space (python-flint) of the rows in
  the support of the float dual gives multipliers ``y >= 0`` with
  ``sum y_i a_i = 0``; then ``sum y_i b_i < 0`` is a Farkas certificate of
  emptiness, and ``sum y_i b_i = 0`` proves that every row with ``y_i > 0``
  holds with equality on the whole set. That alone does not exclude an empty
  set, so "no interior" also needs a point of the set: the vertex of the float
  LP's final basis, solved exactly (python-flint) and checked on every row.

When no certificate can be built the same LP is solved exactly with
``cdd.gmp``. :class:`LPOracle` counts which path decided each call.
"""

from __future__ import annotations

import enum
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from ..checks import require_choice
from ..errors import ShapeError, UsageError
from ._cdd import cdd, cdd_gmp
from .linalg import integer_nullspace, solve_nonsingular
from .rational import row_value, to_integer_rows

__all__ = ["Feasibility", "FeasibilityCertificate", "LPOracle", "default_oracle"]


class Feasibility(enum.Enum):
    """Outcome of a feasibility decision."""

    INTERIOR = "interior"
    """A point satisfies every non-constant row strictly: the set is full-dimensional."""
    NO_INTERIOR = "no-interior"
    """No point satisfies every row strictly; the certified rows vanish on the whole set."""
    EMPTY = "empty"
    """No point satisfies the rows."""


@dataclass(frozen=True)
class FeasibilityCertificate:
    """An exact, independently checkable answer of :class:`LPOracle`.

    Attributes
    ----------
    status : Feasibility
    point : tuple of Fraction or None
        For ``INTERIOR``: a point where every non-constant row is strictly positive.
        For ``NO_INTERIOR``: a point of the set (it proves the set is not empty).
    multipliers : dict of int to int or None
        For ``EMPTY`` and ``NO_INTERIOR``: positive integer multipliers ``y_i``
        (row index to value) with ``sum y_i a_i = 0`` and ``sum y_i b_i < 0``
        (Farkas) or ``= 0`` (the rows ``i`` are implicit equalities).
    decided_by : str
        ``"certified-float"``, ``"exact"`` (cdd.gmp) or ``"trivial"`` (no LP needed).
    """

    status: Feasibility
    point: tuple[Fraction, ...] | None = None
    multipliers: dict[int, int] | None = None
    decided_by: str = "exact"

    @property
    def implicit_rows(self) -> frozenset[int]:
        """Rows proven to hold with equality on the whole set (``NO_INTERIOR`` only)."""
        if self.status is not Feasibility.NO_INTERIOR:
            return frozenset()
        # the oracle gives every NO_INTERIOR certificate its multipliers
        return frozenset(self.multipliers)  # type: ignore[arg-type]

    def verify(self, rows: Sequence[Sequence[int]]) -> bool:
        """Check the certificate against ``rows`` in exact arithmetic.

        Returns ``True`` if the certificate proves its status. For an ``EMPTY``
        answer found by the exact LP without multipliers, returns ``True`` only
        if multipliers are present, so tests can insist on certificates.
        """
        rows = to_integer_rows(rows, "FeasibilityCertificate.verify: rows")
        if not rows:
            raise ShapeError("FeasibilityCertificate.verify: rows is empty; give the rows the certificate was made for")
        if self.point is not None and len(self.point) != len(rows[0]) - 1:
            raise ShapeError(
                f"FeasibilityCertificate.verify: rows live in Q^{len(rows[0]) - 1}, the certificate's point in Q^{len(self.point)}"
            )
        if self.multipliers and max(self.multipliers) >= len(rows):
            return False  # the multipliers name rows that are not there: not the rows it was made for
        if self.status is Feasibility.INTERIOR:
            x = self.point
            return all(
                row_value(r, x) > 0 for r in rows if any(r[1:])
            ) and all(r[0] >= 0 for r in rows if not any(r[1:]))
        if not self.multipliers or any(v <= 0 for v in self.multipliers.values()):
            return False
        if self.status is Feasibility.NO_INTERIOR and (
            self.point is None or any(row_value(r, self.point) < 0 for r in rows)
        ):
            return False
        d = len(rows[0]) - 1
        combo = [sum(y * rows[i][j] for i, y in self.multipliers.items()) for j in range(d + 1)]
        if any(combo[1:]):
            return False
        return combo[0] < 0 if self.status is Feasibility.EMPTY else combo[0] == 0


class LPOracle:
    """Decide emptiness and full-dimensionality of ``{x : b + A x >= 0}`` exactly.

    Parameters
    ----------
    method : {"certified", "exact"}
        ``"certified"`` (default): float LP plus exact certificate, exact LP as
        fallback. ``"exact"``: ``cdd.gmp`` only (the reference).

    Attributes
    ----------
    stats : collections.Counter
        How many calls each path decided: keys ``"certified-float"``,
        ``"exact"``, ``"trivial"``.

    Examples
    --------
    >>> oracle = LPOracle()
    >>> square = [(0, 1, 0), (0, 0, 1), (1, -1, 0), (1, 0, -1)]   # 0 <= x, y <= 1
    >>> oracle.decide(square).status
    <Feasibility.INTERIOR: 'interior'>
    >>> segment = square + [(0, 1, -1), (0, -1, 1)]                # ... and x == y
    >>> sorted(oracle.decide(segment).implicit_rows)
    [4, 5]
    >>> oracle.decide([(-1, 1), (0, -1)]).status                  # x >= 1 and x <= 0
    <Feasibility.EMPTY: 'empty'>
    >>> sum(oracle.stats.values())
    3
    """

    def __init__(self, method: Literal["certified", "exact"] = "certified") -> None:
        self.method = require_choice(method, ("certified", "exact"), "method", "LPOracle")
        self.stats: Counter[str] = Counter()

    def decide(self, rows: Sequence[Sequence[int]]) -> FeasibilityCertificate:
        """Classify the system ``b_i + a_i·x >= 0`` given by integer rows.

        Parameters
        ----------
        rows : sequence of tuples of int
            Each row is ``(b, a_1, ..., a_d)``; all rows have the same length
            ``d + 1 >= 2``. Rows whose linear part is zero are constants: they
            make the system empty when ``b < 0`` and are otherwise ignored.

        Returns
        -------
        FeasibilityCertificate
        """
        rows = to_integer_rows(rows, "LPOracle.decide: rows")
        if not rows:
            raise UsageError("LPOracle.decide: rows is empty; it needs at least one row to know the dimension")
        live = []
        for i, r in enumerate(rows):
            if any(r[1:]):
                live.append(i)
            elif r[0] < 0:
                return self._count(FeasibilityCertificate(Feasibility.EMPTY, multipliers={i: 1}, decided_by="trivial"))
        d = len(rows[0]) - 1
        if not live:
            return self._count(FeasibilityCertificate(Feasibility.INTERIOR, point=(Fraction(0),) * d, decided_by="trivial"))
        sub = [rows[i] for i in live]
        answer = self._certified_float(sub, d) if self.method == "certified" else None
        if answer is None:
            answer = self._exact(sub, d)
        if answer.multipliers:
            answer = FeasibilityCertificate(
                answer.status,
                point=answer.point,
                multipliers={live[i]: y for i, y in answer.multipliers.items()},
                decided_by=answer.decided_by,
            )
        return self._count(answer)

    def _count(self, answer):
        self.stats[answer.decided_by] += 1
        return answer

    # -- float screen ---------------------------------------------------------------
    def _float_solve(self, rows, d):
        """Float Chebyshev LP. Returns ``(x, dual)`` or ``None``; ``dual`` maps row to value."""
        lp_rows = []
        for r in rows:
            scale = max(abs(a) for a in r[1:])
            try:
                frow = [v / scale for v in r]
            except OverflowError:  # |b| / max|a_j| beyond the float range: leave it to cdd.gmp
                return None
            frow.append(-sum(abs(a) for a in frow[1:]))
            lp_rows.append(frow)
        lp_rows.append([1.0] + [0.0] * d + [-1.0])
        lp_rows.append([0.0] * (d + 1) + [1.0])
        lp = cdd.linprog_from_array(lp_rows, cdd.LPObjType.MAX)
        try:
            cdd.linprog_solve(lp)
        except RuntimeError:  # e.g. "Possibly an LP cycling occurs": the float LP gave up
            return None
        if lp.status != cdd.LPStatusType.OPTIMAL:
            return None
        return lp.primal_solution[:d], dict(lp.dual_solution)

    def _certified_float(self, rows, d):
        solved = self._float_solve(rows, d)
        if solved is None:
            return None
        x, dual = solved
        if all(math.isfinite(v) for v in x):
            point = _dyadic_interior_point(rows, x)
            if point is not None:
                return FeasibilityCertificate(Feasibility.INTERIOR, point=point, decided_by="certified-float")
        m = len(rows)
        top = max((v for i, v in dual.items() if i < m), default=0.0)
        support = sorted(i for i, v in dual.items() if i < m and v > 1e-12 * top)
        if not support or len(support) > d + 1:
            return None
        y = _one_sided_null_vector([rows[i][1:] for i in support], d)
        if y is None:
            return None
        yb = sum(yi * rows[i][0] for yi, i in zip(y, support))
        if yb > 0:
            return None
        multipliers = {i: yi for yi, i in zip(y, support) if yi > 0}
        if yb < 0:
            return FeasibilityCertificate(Feasibility.EMPTY, multipliers=multipliers, decided_by="certified-float")
        # yb == 0 proves the rows in the support are equalities on the set, but the
        # set may still be empty (a wrong float basis): insist on a point of it.
        point = _basic_point(rows, d, dual)
        if point is None:
            return None
        return FeasibilityCertificate(
            Feasibility.NO_INTERIOR, point=point, multipliers=multipliers, decided_by="certified-float"
        )

    # -- exact reference ---------------------------------------------------------------
    def _exact(self, rows, d):
        # Each row divided by a power of two near its largest |a_j|: the same LP,
        # but cdd.gmp runs 6-12x faster on such dyadic rows than on raw big integers.
        scales = [1 << max(abs(a) for a in r[1:]).bit_length() for r in rows]
        lp_rows = [[Fraction(v, s) for v in r] + [-Fraction(sum(abs(a) for a in r[1:]), s)] for r, s in zip(rows, scales)]
        lp_rows.append([1] + [0] * d + [-1])
        lp_rows.append([0] * (d + 1) + [1])
        lp = cdd_gmp.linprog_from_array(lp_rows, cdd.LPObjType.MAX)
        cdd_gmp.linprog_solve(lp)
        if lp.status != cdd.LPStatusType.OPTIMAL:  # pragma: no cover - the LP is always feasible and bounded
            raise RuntimeError(f"cdd.gmp returned status {lp.status!r} on a feasible bounded LP")
        t = lp.obj_value
        if t > 0:
            return FeasibilityCertificate(Feasibility.INTERIOR, point=tuple(lp.primal_solution[:d]), decided_by="exact")
        m = len(rows)
        y = {i: v / scales[i] for i, v in lp.dual_solution if i < m and v > 0}
        den = math.lcm(*(v.denominator for v in y.values())) if y else 1
        multipliers = {i: int(v * den) for i, v in y.items()}
        if t < 0:
            return FeasibilityCertificate(Feasibility.EMPTY, multipliers=multipliers, decided_by="exact")
        # t* = 0: the optimal x satisfies every row (b_i + a_i x >= w_i t* = 0).
        point = tuple(lp.primal_solution[:d])
        return FeasibilityCertificate(Feasibility.NO_INTERIOR, point=point, multipliers=multipliers, decided_by="exact")


def _dyadic_interior_point(rows, x):
    """Return ``x`` as fractions if every row is strictly positive there, else ``None``.

    The float ``x`` is a dyadic rational, so with ``x = X / D`` for a power of two
    ``D`` the check is an integer dot product per row.
    """
    ratios = [float(v).as_integer_ratio() for v in x]
    den = max(q for _, q in ratios)
    X = [p * (den // q) for p, q in ratios]
    for r in rows:
        s = r[0] * den
        for a, xi in zip(r[1:], X):
            s += a * xi
        if s <= 0:
            return None
    return tuple(Fraction(p, q) for p, q in ratios)


def _basic_point(rows, d, basis):
    """The ``x`` of the float LP's final basis, solved exactly, if it lies in the set.

    ``basis`` holds the LP rows of the basis: row ``i < len(rows)`` is tight,
    ``b_i + a_i·x - w_i t = 0``, and row ``len(rows)`` is ``t = 1``. Returns ``x``
    as fractions if ``b_i + a_i·x >= 0`` holds exactly for every row, else ``None``.
    """
    m = len(rows)
    eqs = []
    for i in basis:
        if i < m:
            r = rows[i]
            eqs.append((*r[1:], -sum(abs(a) for a in r[1:]), -r[0]))
        elif i == m:
            eqs.append((0,) * d + (1, 1))
    if len(eqs) != d + 1:
        return None
    solution = solve_nonsingular([e[:-1] for e in eqs], [[e[-1]] for e in eqs])
    if solution is None:
        return None
    x = [solution[j][0] for j in range(d)]
    den = math.lcm(*(v.denominator for v in x))
    X = [v.numerator * (den // v.denominator) for v in x]
    for r in rows:
        if r[0] * den + sum(a * xi for a, xi in zip(r[1:], X)) < 0:
            return None
    return tuple(x)


def _one_sided_null_vector(support_rows, d):
    """The integer vector ``y >= 0`` spanning the null space of ``A_S^T``, if unique.

    ``support_rows`` are the linear parts ``a_i`` of the rows in the dual support.
    Returns ``None`` unless the null space is one-dimensional and spanned by a
    vector of one sign.
    """
    basis = integer_nullspace([[row[j] for row in support_rows] for j in range(d)], len(support_rows))
    if len(basis) != 1:
        return None
    y = list(basis[0])
    if all(v <= 0 for v in y):
        y = [-v for v in y]
    if any(v < 0 for v in y):
        return None
    return y


default_oracle = LPOracle()
"""The oracle used by :class:`~polyrelu.geometry.Polyhedron` unless another is passed."""
