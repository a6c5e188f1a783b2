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

import itertools
from fractions import Fraction

from ..geometry.linalg import (
    fmpq_matrix,
    fraction_rows,
    pivot_columns,
    solve,
    span_complement,
)
from ..geometry.rational import row_value
from .control import StageFailed
from .numerics import vdot

__all__ = []

# orientations of the last layer tried when the output reads the layer before it past the last (2^n fits)
MAX_STABLE_FLIPS = 10


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

    ``fixed`` maps neurons to flips decided elsewhere (every neuron of a
    layer the caller gave keeps its sign); ``null`` are directions
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
    # a layer the caller gave is oriented as given (PartialNetwork.append_known_layers)
    fixed = {i: False for i in range(n)} if partial.is_known() else fixed or {}
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



def apply_flips(partial, flips, layer=-1):
    """Negate the neurons of hidden ``layer`` (the last by default) whose flip is true."""
    partial.layers[layer] = [(tuple(-v for v in w), -b) if flip else (w, b) for (w, b), flip in zip(partial.layers[layer], flips)]


def orient_with_stable_neurons(partial, vectors, failure, fixed=None):
    """Orient the last layer and add the neurons it needs that are positive on the whole domain; the rows read over it.

    :func:`stable_orientation`, applied (``fixed`` as there): the last layer
    is flipped and the neurons are appended to it.
    """
    flips, neurons, out = stable_orientation(partial, vectors, failure, fixed)
    apply_flips(partial, flips)
    partial.layers[-1] = partial.layers[-1] + neurons
    return out


def stable_orientation(partial, vectors, failure, fixed=None):
    """The last layer's flips and the neurons positive on the whole domain it needs; the rows read over it.

    A neuron ``s = Σ_k a_k relu(y_k) + b`` of the last known layer (``y`` the
    layer before it) that is positive on the whole domain never bends ``f``:
    no trace finds it, yet the next layer (or the output) reads ``v s``, a
    combination of the ``relu(y_k)`` that the last layer's features need not
    span, and no orientation fits (``failure``). ``vectors`` are formulas
    over the skip features (:meth:`~polyrelu.recovery.partial.PartialNetwork.use_features`):
    ``relu(ẑ_i)``, ``relu(y_k)`` and ``1``. With flips ``t``,
    ``relu(ẑ_i) = relu(z_i) + t_i ẑ_i`` moves ``t_i w_i ẑ_i`` (affine in the
    ``relu(y_k)``) into the skip part ``S_t`` of each vector, so every
    orientation is tried: the skip parts, modulo constants, span ``r``
    functions; each of ``r`` of them that is bounded below (or above) on the
    domain becomes a neuron ``±S + B``, ``B`` making it at least 1 on every
    region (decided exactly at the vertices and rays of each region). One
    unbounded on both sides becomes a pair ``relu(S)`` and ``relu(-S)``, read
    with opposite weights: ``relu(S) - relu(-S) = S`` on the whole domain,
    whatever neurons of the true network carried it (active only where the
    next layer is, say). The orientation needing the fewest pairs, then the
    fewest neurons, is kept.

    The weights read on the ``relu(y_k)`` are the true ones only up to what
    the domain cannot tell; the final check against the oracle decides. A
    layer the caller gave is complete: ``failure`` is raised again.

    Parameters
    ----------
    partial : PartialNetwork
        With skip features.
    vectors : list of tuple
        Coefficients over ``partial.basis``: the output's fits or the next
        layer's formulas.
    failure : StageFailed
        Why :func:`orient_layer` failed; raised again when this fails too.
    fixed : dict, optional
        Neuron -> flip, for neurons whose orientation is decided elsewhere
        (a family's side, :func:`~polyrelu.recovery.output._fit_with_families`).

    Returns
    -------
    flips : list of bool
    neurons : list of (w, b)
        The neurons to append to the last layer, over the layer before it.
    rows : list of (w, β)
        The rows over the last layer, flipped, with the added neurons.
    """
    n = len(partial.layers[-1])
    fixed = fixed or {}
    # float mode completes no neuron from a fit (a least-squares fit explains anything); a known layer is complete
    if partial.is_known() or not partial.skip or not partial.numerics.max_families or n - len(fixed) > MAX_STABLE_FLIPS:
        raise failure
    if any(i not in partial.basis for i in range(n)):
        raise failure
    regions = partial.complex.regions()
    relus = {R.id: partial.previous_relu(R) for R in regions}
    p = len(partial.layers[-2])
    fits = []
    for x in vectors:
        full = [Fraction(0)] * (n + p + 1)
        for k, v in zip(partial.basis, x):
            full[k] = v
        fits.append(full)

    # the function c + Σ u_k relu(y_k) is zero exactly when its affine maps vanish on a few regions' rows:
    # the rows where [relu(y_1) .. relu(y_p), 1] has full rank; every test below reads those rows only
    maps = [
        (*(Y[comp] for Y in relus[R.id]), Fraction(int(comp == 0))) for R in regions for comp in range(partial.n0 + 1)
    ]
    rows = [maps[r] for r in pivot_columns([[row[k] for row in maps] for k in range(p + 1)])]

    def function(u, c):
        return tuple(vdot(row, (*u, c)) for row in rows)

    constant = function((0,) * p, 1)
    layer = partial.layers[-1]
    best = None  # ((pairs, single neurons), singles, pairs, flips, skips): fewest pairs first
    for flips in itertools.product((0, 1), repeat=n):
        if any(flips[i] != flip for i, flip in fixed.items()):
            continue
        partial.clock.check()
        skips = []
        for full in fits:
            w = full[:n]
            u = tuple(full[n + k] + sum(w[i] * layer[i][0][k] for i in range(n) if flips[i]) for k in range(p))
            skips.append((u, full[-1] + sum(w[i] * layer[i][1] for i in range(n) if flips[i])))
        chosen = span_complement([constant], [function(*skip) for skip in skips])
        if best is not None and (0, len(chosen)) >= best[0]:
            continue
        singles, pairs = [], []
        for q in chosen:
            for sign in (1, -1):
                g = tuple(sign * v for v in skips[q][0])
                low = _minimum(partial, regions, relus, g)
                if low is not None:
                    singles.append((g, 1 - low))
                    break
            else:
                pairs.append(skips[q][0])
        cost = (len(pairs), len(singles))
        if best is None or cost < best[0]:
            best = (cost, singles, pairs, flips, skips)
            if not chosen:
                break
    if best is None:
        raise failure
    _, singles, pairs, flips, skips = best
    columns = [function(g, b) for g, b in singles] + [function(g, 0) for g in pairs] + [constant]
    out = []
    for full, skip in zip(fits, skips):
        x = solve([tuple(col[r] for col in columns) for r in range(len(constant))], function(*skip))
        if x is None:
            raise failure
        pair_weights = [v for a in x[len(singles) : -1] for v in (a, -a)]
        out.append((tuple(full[:n]) + tuple(x[: len(singles)]) + tuple(pair_weights), x[-1]))
    neurons = singles + [(tuple(sign * v for v in g), Fraction(0)) for g in pairs for sign in (1, -1)]
    return [bool(t) for t in flips], neurons, out


def _minimum(partial, regions, relus, g):
    """The least value of ``Σ g_k relu(y_k)`` on the regions, or None when it is unbounded below there."""
    low = None
    for R in regions:
        Y = relus[R.id]
        m = tuple(sum((gk * y[comp] for gk, y in zip(g, Y) if gk), Fraction(0)) for comp in range(partial.n0 + 1))
        poly = R.polyhedron
        if any(vdot(m[1:], r) < 0 for r in poly.rays()) or any(vdot(m[1:], line) for line in poly.lines()):
            return None
        values = [row_value(m, v) for v in poly.vertices()] or [row_value(m, R.relative_interior_point())]
        low = min(values) if low is None else min(low, *values)
    return low
