"""The flat parameter vector of a network, and proportional neuron rows.

This is an internal module of :mod:`polyrelu.identifiability`: :func:`offsets`
(where each layer's weights and biases sit in
:meth:`~polyrelu.network.ReLUNetwork.parameters`) and :func:`positive_ratio`
(a neuron's incoming row and bias as a positive multiple of another's) are its
named API, used by the stages above it.
"""

from __future__ import annotations

from fractions import Fraction

__all__ = ["offsets", "positive_ratio"]


def offsets(widths):
    """Per layer, the positions of ``W_l`` (row-major) and ``b_l`` in the flat parameter vector."""
    out, pos = [], 0
    for p, n in zip(widths, widths[1:]):
        out.append((pos, pos + n * p))
        pos += n * (p + 1)
    return out


def positive_ratio(row, other):
    """``λ > 0`` with ``row = λ · other`` (exact), or None."""
    pivot = next((k for k, v in enumerate(other) if v), None)
    if pivot is None or not row[pivot]:
        return None
    ratio = Fraction(row[pivot]) / Fraction(other[pivot])
    if ratio <= 0 or any(a != ratio * c for a, c in zip(row, other)):
        return None
    return ratio
