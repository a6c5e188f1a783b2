"""The black box recovery asks: queries behind a cache, a budget and a clock.

Recovery sees ``f`` only through :class:`Queries`: every point asked once
(cached), counted against ``max_queries``, checked against the time budget,
and every answer checked (a finite number per output, the same number of
outputs each time) and made an exact rational.

Glossary
--------
oracle
    A callable ``x ↦ f(x)``; :func:`network_oracle` makes one from a network
    while hiding it.
query
    One distinct point at which the oracle is asked; ``RecoveryResult.queries``
    counts them.
precision
    The floats an oracle answers in (``"float64"``, ``"float32"``, ...), read
    from its first answer; it sets the default tolerance of the float mode.

What it leaves to others: how answers are compared (``numerics``), where to
ask (``breakpoints`` and the later stages).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import numpy as np

from ..checks import require_bool, require_instance
from ..errors import PolyReluError, RecoveryError
from ..geometry.rational import to_fraction
from ..network import ReLUNetwork
from .control import BudgetExhausted, Clock

__all__ = ["network_oracle"]


def answer_precision(value):
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


def point_key(x):
    """A cache key for a point of fractions: its numerators and denominators (internal API).

    Hashing a :class:`~fractions.Fraction` takes a modular inverse of its
    denominator (about 7 µs for the denominators recovery's points carry);
    a tuple of ints hashes in a fraction of that, and equal points give
    equal keys since fractions are kept in lowest terms.
    """
    return tuple(getattr(a, "numerator", a) for a in x) + tuple(getattr(a, "denominator", 1) for a in x)


class Queries:
    """The oracle behind a cache, a counter, a budget and a clock; answers are checked and made exact.

    ``precision`` is that of the first answer (:func:`answer_precision`).
    """

    def __init__(self, oracle, input_dim, numerics, max_queries, clock=None):
        if not callable(oracle):
            raise RecoveryError(f"the oracle must be callable (x -> f(x)), not {type(oracle).__name__}")
        self.oracle = oracle
        self.n0 = input_dim
        self.numerics = numerics
        self.max_queries = max_queries
        self.clock = clock or Clock()
        self.cache = {}
        self.output_dim = None
        self.precision = None

    @property
    def count(self):
        return len(self.cache)

    def __call__(self, x):
        self.clock.check()
        x = tuple(x)
        key = point_key(x)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        if len(self.cache) >= self.max_queries:
            raise BudgetExhausted
        value = self._check(self.oracle(self.numerics.query_point(x)), x)
        self.cache[key] = value
        return value

    def _check(self, value, x):
        where = f"the oracle's answer at x ≈ ({_point_text(x)})"
        if self.precision is None:
            self.precision = answer_precision(value)
            self.numerics.adopt_precision(self.precision)
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
            self.numerics.check_answer_entry(v, f"{where}: entry {i}")
            try:
                out.append(to_fraction(v, f"{where}, entry {i}"))
            except PolyReluError as exc:
                raise RecoveryError(str(exc)) from None
        return tuple(out)


def _point_text(x):
    """A query point for messages, 6 digits a coordinate: exact ones can have more digits than ``str`` shows (4,300)."""

    def coordinate(v):
        try:
            return f"{float(v):.6g}"
        except OverflowError:  # beyond the float range
            return "-inf" if v < 0 else "inf"

    return ", ".join(coordinate(v) for v in x)


def network_oracle(net: ReLUNetwork, float_output: bool = False) -> Callable[[Sequence[Any]], tuple]:
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
