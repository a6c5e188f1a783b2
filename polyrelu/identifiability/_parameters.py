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
import math
from fractions import Fraction

import numpy as np

from ..geometry.linalg import nullspace

__all__ = ["offsets", "positive_ratio", "cancelling_subset", "MAX_FREE_FLIPS", "MAX_FLIP_NEURONS"]

# cancelling_subset tries 2^k − 1 choices for a k-dimensional null space: up to 65,535
MAX_FREE_FLIPS = 16

# beyond that, a meet-in-the-middle search over the neurons the null space involves: 2^(n/2) sums per half
MAX_FLIP_NEURONS = 40

# a Mersenne prime: sums of two residues stay below 2^62, exact in uint64
_PRIME = (1 << 61) - 1


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
    outer product, flattened. With the null space's reduced echelon basis,
    each choice of 0/1 values at its ``k`` free columns fixes the vector, so
    the ``2^k − 1`` non-zero choices decide exactly whether ``S`` exists; when
    ``k`` exceeds :data:`MAX_FREE_FLIPS`, a meet-in-the-middle search over the
    ``n`` neurons the null space involves decides it instead (subset sums of
    each half, matched through a hash modulo a prime, every match checked in
    exact arithmetic), up to ``n =`` :data:`MAX_FLIP_NEURONS`. ``decided`` is
    False (and ``S`` None) beyond that. The smallest ``S`` found is returned.

    Examples
    --------
    ``relu(x1)`` and ``relu(1 − x1)`` feeding one output with weight 1: their
    flips cancel (``relu(−x1) + relu(x1 − 1) = relu(x1) + relu(1 − x1) − 1``),
    among 22 neurons, too many for the echelon search alone:

    >>> import numpy as np
    >>> from polyrelu import ReLUNetwork
    >>> rng = np.random.default_rng(1)
    >>> W = [[1, 0], [-1, 0]] + rng.integers(-9, 10, (20, 2)).tolist()
    >>> net = ReLUNetwork([W, [[1] * 22]], [[0, 1] + rng.integers(-9, 10, 20).tolist(), [0]])
    >>> cancelling_subset(net, 1)
    (True, (0, 1))
    """
    W, _ = network.layers[layer - 1]
    W_next, _ = network.layers[layer]
    n = len(W)
    rows = [[W_next[r][j] * W[j][c] for j in range(n)] for r in range(len(W_next)) for c in range(len(W[0]))]
    basis = nullspace(rows, n)
    if not basis:
        return True, None
    if len(basis) <= MAX_FREE_FLIPS:
        found = []
        for choice in itertools.product((0, 1), repeat=len(basis)):
            if not any(choice):
                continue
            x = [sum((vec[i] for vec, c in zip(basis, choice) if c), Fraction(0)) for i in range(n)]
            if all(v in (0, 1) for v in x):
                found.append(tuple(i for i, v in enumerate(x) if v == 1))
        return True, min(found, key=len) if found else None
    involved = [j for j in range(n) if any(vec[j] for vec in basis)]  # S lies in the null space: x_j = 0 elsewhere
    if len(involved) > MAX_FLIP_NEURONS:
        return False, None
    columns = [[row[j] for row in rows] for j in involved]
    return True, _cancelling_subset_by_halves(columns, involved)


def _cancelling_subset_by_halves(columns, names):
    """The smallest non-empty set of ``columns`` (rational vectors) summing to zero, as ``names``; or None.

    Meet in the middle: the subset sums of each half, hashed to one residue
    modulo a prime (a random linear form of the integer-scaled vectors), are
    matched by sorting; a true zero sum always matches, and every match is
    checked exactly, so hash collisions cost time, never correctness.
    """
    denominator = math.lcm(*(Fraction(v).denominator for col in columns for v in col))
    integer = [[int(Fraction(v) * denominator) for v in col] for col in columns]
    rng = np.random.default_rng(len(columns))
    form = [int(v) for v in rng.integers(1, _PRIME, size=len(integer[0]))]
    hashes = [sum(a * f for a, f in zip(col, form)) % _PRIME for col in integer]
    half = len(columns) // 2

    def subset_sums(values):  # entry m: the sum over the bits of m
        sums = np.zeros(1, dtype=np.uint64)
        for h in values:
            sums = np.concatenate([sums, (sums + np.uint64(h)) % np.uint64(_PRIME)])
        return sums

    left, right = subset_sums(hashes[:half]), subset_sums(hashes[half:])
    wanted = (np.uint64(_PRIME) - right) % np.uint64(_PRIME)
    order = np.argsort(left, kind="stable")
    sorted_left = left[order]
    lo, hi = np.searchsorted(sorted_left, wanted, "left"), np.searchsorted(sorted_left, wanted, "right")
    best = None
    for m_right in np.nonzero(hi > lo)[0].tolist():
        for m_left in order[lo[m_right] : hi[m_right]].tolist():
            members = [j for j in range(half) if m_left >> j & 1] + [half + j for j in range(len(columns) - half) if m_right >> j & 1]
            if not members or (best is not None and len(members) >= len(best)):
                continue
            if all(sum(integer[j][c] for j in members) == 0 for c in range(len(form))):
                best = members
    return None if best is None else tuple(names[j] for j in best)
