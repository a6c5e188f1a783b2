"""The flat parameter vector of a network, and relations between its neurons' rows.

This is an internal module of :mod:`polyrelu.identifiability`: :func:`offsets`
(where each layer's weights and biases sit in
:meth:`~polyrelu.network.ReLUNetwork.parameters`), :func:`positive_ratio`
(a neuron's incoming row and bias as a positive multiple of another's) and
:func:`cancelling_subset` (neurons of one layer whose flips the next layer's
biases can absorb) are its named API, used by the stages above it.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

from ..geometry.linalg import nullspace

__all__ = ["offsets", "positive_ratio", "cancelling_subset", "MAX_FREE_FLIPS"]

# cancelling_subset tries 2^k − 1 choices for a k-dimensional null space: up to 65,535
MAX_FREE_FLIPS = 16


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


def cancelling_subset(network, layer):
    """Neurons ``S`` of hidden layer ``layer`` with ``Σ_{j∈S} W_{l+1}[:, j] W_l[j, :] = 0``: ``(decided, S or None)``.

    Flipping a neuron (``relu(z) = relu(−z) + z``) leaves the next layer a term
    ``W_{l+1}[:, j] z_j``, affine in layer ``l − 1``'s outputs with linear part
    ``W_{l+1}[:, j] W_l[j, :]``. For the neurons of ``S`` together these linear
    parts cancel, so the next layer's biases absorb the rest exactly. ``S`` is a
    0/1 vector in the null space of the matrix whose column ``j`` is that
    outer product, flattened; with the null space's reduced echelon basis,
    each choice of 0/1 values at its ``k`` free columns fixes the vector, so
    the ``2^k − 1`` non-zero choices decide exactly whether ``S`` exists.
    ``decided`` is False (and ``S`` None) when ``k`` exceeds
    :data:`MAX_FREE_FLIPS`. The smallest ``S`` found is returned.
    """
    W, _ = network.layers[layer - 1]
    W_next, _ = network.layers[layer]
    n = len(W)
    rows = [[W_next[r][j] * W[j][c] for j in range(n)] for r in range(len(W_next)) for c in range(len(W[0]))]
    basis = nullspace(rows, n)
    if not basis:
        return True, None
    if len(basis) > MAX_FREE_FLIPS:
        return False, None
    found = []
    for choice in itertools.product((0, 1), repeat=len(basis)):
        if not any(choice):
            continue
        x = [sum((vec[i] for vec, c in zip(basis, choice) if c), Fraction(0)) for i in range(n)]
        if all(v in (0, 1) for v in x):
            found.append(tuple(i for i, v in enumerate(x) if v == 1))
    return True, min(found, key=len) if found else None
