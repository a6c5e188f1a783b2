"""orientation"""

from fractions import Fraction

import numpy as np

from ..geometry.rational import fmpq_matrix, fraction_rows, reduced_echelon
from .numerics import FloatNumerics, StageFailed

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
    if isinstance(partial.numerics, FloatNumerics):
        flips, betas = _orient_float(rows, rhs, K, n, partial.numerics)
        return flips, [(tuple(w), beta) for (w, _), beta in zip(parts, betas)], vectors
    solved = reduced_echelon(rows, rhs)
    if solved is None:
        raise StageFailed(f"no orientation of layer {len(partial.layers)} explains the next layer's formulas")
    pivots, table = solved
    first_flip = K + K * M
    free = [j for j in range(first_flip + n) if j not in pivots]
    if any(j < K for j in free):
        raise StageFailed(f"the biases of layer {len(partial.layers) + 1} are undetermined")
    if len(free) > max_free:
        raise StageFailed(f"the orientation of layer {len(partial.layers)} is undetermined in {len(free)} neurons")
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
            return flips, [(tuple(split_coefficients(partial, c)[0]), x[k]) for k, c in enumerate(moved)], moved
    raise StageFailed(f"no 0/1 orientation of layer {len(partial.layers)} fits the next layer's formulas")


def _orient_float(rows, rhs, K, n, numerics, max_flips=14):
    """Float mode of :func:`orient_layer`: every 0/1 orientation scored by least squares at once (``n <= max_flips``)."""
    if n > max_flips:
        raise StageFailed(f"float mode orients at most {max_flips} neurons per layer by search, not {n}")
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
        raise StageFailed(f"no orientation stands out within the float tolerance (best residuals {score[best]:.2g}, {runner_up:.2g})")
    betas = pinv @ R[:, best]
    return [bool(v) for v in T[best]], [Fraction(float(b)) for b in betas]


def apply_flips(partial, flips):
    partial.layers[-1] = [(tuple(-v for v in w), -b) if flip else (w, b) for (w, b), flip in zip(partial.layers[-1], flips)]
