"""Orienting a layer: which neurons of the last known layer to flip.

Traced formulas know a neuron only up to sign. With ``relu(-ẑ) = relu(ẑ) - ẑ``
the next layer's formulas (or the output's) read the same in either
orientation but with different biases and ``ẑ`` columns, so the flips ``t``
(0 or 1 per neuron) and the biases solve one linear system over every
region; the numerics solves it (:meth:`~polyrelu.recovery.numerics.Numerics.orientation`).

Glossary
--------
flip
    Replacing a neuron ``ẑ_i`` by ``-ẑ_i`` (and the next layer's weight on it
    by its negative).
coefficient split
    A formula's coefficients on ``relu(ẑ_i)`` (the next layer's weights) and
    on the other basis columns.

What it leaves to others: where the formulas come from (``tracing``,
``output``).
"""

from fractions import Fraction

from ..geometry.linalg import fmpq_matrix, fraction_rows
from .control import StageFailed

__all__ = []


def split_coefficients(partial, c):
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


def orient_layer(partial, vectors, max_free=16, fixed=None, null=()):
    """Orient the last known layer from the next layer's (or the output's) coefficient vectors.

    With ``ẑ_i`` the provisional orientation, ``relu(-ẑ) = relu(ẑ) - ẑ``: the
    next layer reads ``Σ w_i relu(ẑ_i) + ψ`` with ``ψ = β - Σ t_i w_i ẑ_i``
    where ``t_i = 1`` exactly for the neurons to flip. So ``t`` and the biases
    ``β`` solve a linear system over every region; ``t`` must be 0/1.

    ``fixed`` maps neurons to flips decided elsewhere; ``null`` are directions
    the vectors may move along (the output fit's null space, columns beyond
    the basis included), with coefficients ``λ`` solved for too: linear as
    long as they move ``w_i`` only of fixed neurons (:func:`~polyrelu.recovery.output._fit_with_families`).

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
        raise StageFailed(f"the output's formula is undetermined in a neuron of layer {len(partial.layers)}")
    parts = [split_coefficients(partial, c) for c in vectors]
    moves = [split_coefficients(partial, v) for v in null]
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
    x = partial.numerics.orientation(rows, rhs, K, M, n, max_free, partial.clock, len(partial.layers))
    first_flip = K + K * M
    flips = [v == 1 for v in x[first_flip:]]
    moved = [
        tuple(c[col] + sum(x[K + k * M + m] * null[m][col] for m in range(M)) for col in range(len(c)))
        for k, c in enumerate(vectors)
    ]
    return flips, [(tuple(split_coefficients(partial, c)[0]), x[k]) for k, c in enumerate(moved)], moved





def apply_flips(partial, flips):
    partial.layers[-1] = [(tuple(-v for v in w), -b) if flip else (w, b) for (w, b), flip in zip(partial.layers[-1], flips)]
