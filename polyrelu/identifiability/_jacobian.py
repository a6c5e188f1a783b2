"""The Jacobian of a network's affine pieces with respect to its parameters.

On a region ``R`` of the canonical complex, ``f(x) = A_R(θ) x + c_R(θ)`` with
``A_R``, ``c_R`` polynomial in the parameters ``θ``; :func:`jacobian` stacks
the derivatives of ``(c_R, A_R)`` over a list of activation patterns, in
floats, in integers or modulo a prime. This is an internal module of
:mod:`polyrelu.identifiability`: :func:`jacobian`, :func:`integer_layers` and
:func:`integer_jacobian` are its named API, used by
:mod:`polyrelu.identifiability.dimension` (and by reference computations).
"""

from __future__ import annotations

from collections.abc import Sequence

import flint
import numpy as np

from ..network import ReLUNetwork

__all__ = [
    "COMPRESSION_MODULUS",
    "jacobian",
    "jacobian_factors",
    "jacobian_columns",
    "distinct_rows",
    "compressed_jacobian",
    "sparse_compressed_columns",
    "nonzero_columns",
    "parameter_position",
    "integer_layers",
    "integer_jacobian",
]

# compressed_jacobian multiplies residues in float64, exactly: below 2^20 a product of two residues is below
# 2^40, and a sum of up to 2^12 of them stays below 2^52 (float64 holds every integer below 2^53)
COMPRESSION_MODULUS = 2**20
_TERMS = 2**12


def jacobian_factors(network, patterns, layers, modulus=None):
    """The factors ``(P, Q)`` of :func:`jacobian`: per layer, stacked over the patterns, each computed when first read.

    ``Q[l]`` (shape ``(R, n_l + 1, n0 + 1)``) is the homogeneous map from the
    input to layer ``l``'s input, ``P[l]`` (shape ``(R, m + 1, n_{l+1} + 1)``)
    the one from layer ``l``'s homogeneous pre-activation to the output, both
    with the pattern's masks (so ``P[l][:, :, 1 + i]`` vanishes where neuron
    ``i`` of layer ``l`` is inactive). ``Q[l]`` depends on the pattern of the
    layers before ``l`` only, ``P[l]`` on that of layer ``l`` and after.
    Arguments as for :func:`jacobian`. ``P`` and ``Q`` are sequences that
    compute ``Q[l]`` (with the ones before it) or ``P[l]`` (with the ones after
    it) when it is first indexed: exact maps of deep layers are products of
    large integers, and a caller often reads only some of them. ``Q.at(l,
    regions)`` and ``P.at(l, regions)`` give a map at some regions only,
    computed there alone unless the whole map is known already.
    """
    factors = _Factors(network, patterns, layers, modulus)
    return (_Maps(factors.output_map, factors.output_map_at, factors.L),
            _Maps(factors.input_map, factors.input_map_at, factors.L))


class _Maps:
    """A read-only sequence of per-layer maps, each computed by ``compute(l)`` when first indexed, or at some regions by ``at``."""

    def __init__(self, compute, compute_at, length):
        self.compute, self.compute_at, self.length = compute, compute_at, length

    def __len__(self):
        return self.length

    def __getitem__(self, l):
        if not 0 <= l < self.length:
            raise IndexError(l)
        return self.compute(l)

    def at(self, l, regions):
        """The map of layer ``l`` at the ``regions`` (indices) only."""
        if not 0 <= l < self.length:
            raise IndexError(l)
        return self.compute_at(l, np.asarray(regions))


class _Factors:
    """The chains of :func:`jacobian_factors`: ``Q`` from the input forward, ``P`` from the output back."""

    def __init__(self, network, patterns, layers, modulus):
        arch = network.architecture
        self.layers, self.modulus = layers, modulus
        self.widths = widths = arch.widths
        self.L = len(widths) - 1
        n0, m = widths[0], widths[-1]
        R = len(patterns)
        kind = layers[0].dtype
        self.signs = np.array(patterns, dtype=int).reshape(R, arch.num_hidden) > 0
        self.masks, k = [], 0
        for n in arch.hidden_widths:
            mask = np.ones((R, n + 1), dtype=kind)
            mask[:, 1:] = self.signs[:, k : k + n]
            self.masks.append(mask)
            k += n
        self.first_neuron = np.cumsum([0, *arch.hidden_widths]).tolist()
        self.Q = [np.broadcast_to(np.eye(n0 + 1, dtype=int).astype(kind), (R, n0 + 1, n0 + 1))]
        self.P = {self.L - 1: np.broadcast_to(np.eye(m + 1, dtype=int).astype(kind), (R, m + 1, m + 1))}

    def reduce(self, a):
        return a % self.modulus if self.modulus is not None else a

    # Q[l] depends on the pattern of the layers before l only and P[l] on that of layer l + 1 and after: each
    # product is taken once per distinct part of a pattern (exact entries are large integers), and only the mask
    # of layer l is applied per region

    def input_map(self, l):
        while len(self.Q) <= l:
            self.Q.append(self._input_step(self.Q[-1], len(self.Q) - 1, slice(None)))
        return self.Q[l]

    def input_map_at(self, l, regions):
        if l < len(self.Q):
            return self.Q[l][regions]
        return self._input_step(self.input_map_at(l - 1, regions), l - 1, regions)

    def _input_step(self, previous, k, regions):
        """``Q[k + 1]`` at ``regions`` (a slice or indices) from ``Q[k]`` there."""
        chosen, owner = distinct_rows(self.signs[regions, : self.first_neuron[k]])
        inputs = previous[chosen]  # (k, n_l + 1, n0 + 1): one product with the blocks side by side
        side_by_side = inputs.transpose(1, 0, 2).reshape(inputs.shape[1], -1)
        product = _matmul(self.layers[k], side_by_side).reshape(-1, len(chosen), self.widths[0] + 1).transpose(1, 0, 2)
        return self.reduce(product)[owner] * self.masks[k][regions, :, None]

    def output_map(self, l):
        while l not in self.P:
            k = min(self.P) - 1
            self.P[k] = self._output_step(self.P[k + 1], k, slice(None))
        return self.P[l]

    def output_map_at(self, l, regions):
        if l in self.P:
            return self.P[l][regions]
        return self._output_step(self.output_map_at(l + 1, regions), l, regions)

    def _output_step(self, following, k, regions):
        """``P[k]`` at ``regions`` (a slice or indices) from ``P[k + 1]`` there."""
        chosen, owner = distinct_rows(self.signs[regions, self.first_neuron[k + 1] :])
        outputs = following[chosen]  # (k, m + 1, n_{l+2} + 1): one product with the blocks stacked
        product = _matmul(outputs.reshape(-1, outputs.shape[2]), self.layers[k + 1]).reshape(len(chosen), self.widths[-1] + 1, -1)
        return self.reduce(product)[owner] * self.masks[k][regions, None, :]


def _matmul(a, b):
    """``a @ b`` for 2-D arrays; exact integers (object arrays) through flint, whose product runs in C."""
    if a.dtype != object:
        return a @ b
    product = flint.fmpz_mat(*a.shape, a.ravel().tolist()) * flint.fmpz_mat(*b.shape, b.ravel().tolist())
    return np.array([int(v) for v in product.entries()], dtype=object).reshape(a.shape[0], b.shape[1])


def distinct_rows(keys):
    """``(chosen, owner)``: one row index per distinct row of ``keys``, and each row's index into ``chosen``."""
    if keys.shape[1] == 0:
        return np.zeros(1, dtype=int), np.zeros(len(keys), dtype=int)
    if keys.dtype == bool:
        # a pattern's bits packed into bytes, compared as one opaque string: a 1-D unique, in the rows' lexicographic
        # order (the first column is each first byte's high bit), not np.unique's sort of rows
        packed = np.packbits(keys, axis=1)
        keys = packed.view(np.dtype((np.void, packed.shape[1]))).reshape(-1)
        _, chosen, owner = np.unique(keys, return_index=True, return_inverse=True)
    else:
        _, chosen, owner = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    return chosen, owner.reshape(-1)


def jacobian(network, patterns, layers, modulus=None):
    """The Jacobian of ``θ ↦ (c_R, A_R)`` over the patterns, in homogeneous form, as a numpy array.

    ``layers`` are the homogeneous layer matrices ``[[1, 0], [b, W]]`` (floats,
    or integers scaled by ``c_l`` as numpy object arrays). With ``Q_l`` the map
    of layer ``l``'s input and ``P_l`` the map from its pre-activation to the
    output (both with the pattern's masks, :func:`jacobian_factors`),
    ``∂M/∂H_l[i, j] = P_l[:, i] Q_l[j, :]``.
    Rows: pattern, output, then the constant and the ``n0`` slopes; columns: the
    parameters in the order of :meth:`ReLUNetwork.parameters`. With ``modulus``
    (int64 layers already reduced), every product is reduced modulo it.
    """
    arch = network.architecture
    widths = arch.widths
    n0, m = widths[0], widths[-1]
    R = len(patterns)
    if not R:
        return np.zeros((0, arch.num_parameters), dtype=layers[0].dtype)
    P, Q = jacobian_factors(network, patterns, layers, modulus)
    blocks = []
    for l in range(len(widths) - 1):
        rows = P[l][:, 1:, 1:]  # (R, m, n_l): no constant row, no constant column
        cols = np.transpose(Q[l], (0, 2, 1))  # (R, n0 + 1, n_{l-1} + 1)
        B = rows[:, :, None, :, None] * cols[:, None, :, None, :]  # (R, m, n0 + 1, n_l, n_{l-1} + 1)
        if modulus is not None:
            B %= modulus
        B = B.reshape(R * m * (n0 + 1), widths[l + 1], widths[l] + 1)
        # column j = 0 is the bias; the parameter vector has W_l row-major, then b_l
        blocks.append(B[:, :, 1:].reshape(len(B), -1))
        blocks.append(B[:, :, 0])
    return np.concatenate(blocks, axis=1)


def compressed_jacobian(J_mod, p, rows, seed=0, coefficients=None):
    """``S J`` modulo ``p`` for a random ``rows × N`` matrix ``S`` of residues: random combinations of ``J``'s rows.

    Any integer combination of ``J``'s rows lies in its row space, so the rank
    of ``S J`` modulo ``p`` is a lower bound on the rank of ``J`` over Q; for
    ``S`` uniform with at least ``rank J`` rows it equals the rank of ``J``
    modulo ``p`` with probability at least ``1 − 1 / (p − 1)``, and then
    ``S J`` has the same reduced echelon form modulo ``p`` as ``J``: a
    ``rows × D`` echelon form in place of one of ``N × D``. ``S J`` is one
    float64 matrix product per :data:`_TERMS` rows of ``J``, exact below
    :data:`COMPRESSION_MODULUS`.

    Parameters
    ----------
    J_mod : numpy.ndarray
        ``J`` modulo ``p`` (``N × D`` residues, e.g. :func:`jacobian` with a modulus).
    p : int
        A prime below :data:`COMPRESSION_MODULUS`.
    rows : int
        The rows of ``S`` (at least the rank expected).
    seed : int
        The seed of ``S``.
    coefficients : numpy.ndarray, optional
        ``S`` itself, or more columns of it (the first ``N`` are used): residues
        in float64, e.g. drawn once for many arrays of at most that many rows
        (each array's own combinations are still uniform).

    Returns
    -------
    numpy.ndarray
        ``rows × D`` int64 residues.
    """
    if not 1 < p < COMPRESSION_MODULUS:
        raise ValueError(f"compressed_jacobian needs a prime below 2^20 for exact float64 products, not {p}")
    rng = np.random.default_rng(seed)
    out = np.zeros((rows, J_mod.shape[1]))
    for a in range(0, len(J_mod), _TERMS):
        part = J_mod[a : a + _TERMS].astype(np.float64)
        S = np.floor(rng.random((rows, len(part))) * p) if coefficients is None else coefficients[:, a : a + len(part)]
        out += S @ part  # at most _TERMS products below 2^40 each, then the running sum is reduced
        # to a residue of at most 3p/2 in absolute value (the quotient off by one at worst), not by np.fmod, whose time
        # grows with the quotient's bits
        out -= np.rint(out * (1 / p)) * p
    return out.astype(np.int64) % p


def _deals(N, p, rows, seed):
    """The three deals of :func:`sparse_compressed_columns`: row ``order[t]`` enters combination ``t % rows`` with weight ``weights[t]``."""
    rng = np.random.default_rng(seed)
    return [(rng.permutation(N), rng.integers(1, p, N)) for _ in range(3)]


def sparse_compressed_columns(widths, factors, columns, p, rows, seed=0):
    """``S J[:, columns]`` modulo ``p`` for a sparse random ``S``, from the factors, without forming ``J``.

    Each row of ``J`` enters 3 of the ``rows`` combinations: three times over,
    ``J``'s ``N`` rows are shuffled (``rng.permutation(N)`` with
    ``rng = numpy.random.default_rng(seed)``), the ``t``-th of them dealt into
    combination ``t % rows`` (each gets ``⌈N / rows⌉`` or one fewer) with weight
    ``rng.integers(1, p, N)[t]``. As for :func:`compressed_jacobian`, the rank
    of the result modulo ``p`` is a lower bound on the rank of those columns
    (any combination of rows lies in the row space), whatever ``S`` is; no
    bound on the chance of falling short of it is claimed: a caller that needs
    the rank falls back to :func:`compressed_jacobian` when this one is short.

    Row ``n = (R, o, q)`` of ``J``
    has ``P_l[R, 1 + o, 1 + i] Q_l[R, j, q]`` in the column of parameter
    ``(l, i, j)``, so a combination ``s`` of rows is, on layer ``l``'s
    columns, ``Σ_n w_n P_l[R_n, 1 + o_n, 1 + ·]^T Q_l[R_n, ·, q_n]``: per
    combination, a product of two thin matrices (its rows ``n`` side by
    side), all combinations at once in one batched product. ``J`` itself
    (``N × len(columns)`` entries) is never formed.

    Parameters
    ----------
    widths : the network's widths
    factors : the factors ``(P, Q)`` of ``J`` modulo ``p`` (:func:`jacobian_factors` with ``modulus=p``)
    columns : sequence of int
    p, rows, seed : int
        ``p`` a prime below :data:`COMPRESSION_MODULUS` (products of two
        residues below ``2^40``, sums of :data:`_TERMS` of them exact in
        float64: a combination of more rows is reduced modulo ``p`` after
        each such sum), ``rows`` the number of combinations.

    Returns
    -------
    numpy.ndarray
        ``rows × len(columns)`` float64 integers congruent to ``S J[:, columns]``
        modulo ``p``, at most ``p / 2 + 1`` in absolute value (reduced as
        :func:`~polyrelu.geometry.modular.modular_rank_profile` takes them,
        without a pass through int64).
    """
    P, Q = factors
    R, m, n0 = len(P[0]), widths[-1], widths[0]
    N = R * m * (n0 + 1)
    if not 1 < p < COMPRESSION_MODULUS:
        raise ValueError(f"sparse_compressed_columns needs a prime below 2^20 for exact float64 products, not {p}")
    # every (row, combination, weight) of the three deals, grouped by combination, each group padded to one length
    deals = _deals(N, p, rows, seed)
    row = np.concatenate([order for order, _ in deals])
    weight = np.concatenate([weights for _, weights in deals])
    combination = np.concatenate([np.arange(N) % rows] * 3)
    by_combination = np.argsort(combination, kind="stable")
    row, weight, combination = row[by_combination], weight[by_combination], combination[by_combination]
    starts = np.searchsorted(combination, np.arange(rows))
    slot = np.arange(3 * N) - starts[combination]
    length = int(slot.max()) + 1
    region, output, coordinate = np.unravel_index(row, (R, m, n0 + 1))
    positions = np.array([parameter_position(widths, c) for c in columns]).reshape(-1, 3)
    out = np.empty((rows, len(columns)))
    for l in np.unique(positions[:, 0]).tolist():
        # left[s, t, i] = P_l[R, 1 + o, 1 + i], right[s, t, j] = Q_l[R, j, q] for the t-th row (R, o, q) dealt to s,
        # one of them times w: residues below 3/2 2^20 and 2^20 in absolute value, each product below 3/2 2^40
        # the weights go on the narrower factor (the input map on the first layer, the output's row on the last)
        factors_l = [P[l][region, 1 + output, 1:], Q[l][region, :, coordinate]]
        narrow = int(factors_l[1].shape[1] < factors_l[0].shape[1])
        weighted = factors_l[narrow] * weight[:, None].astype(np.float64)  # below 2^40
        factors_l[narrow] = weighted - np.rint(weighted * (1 / p)) * p  # below 3p/2 in absolute value
        left, right = np.zeros((rows, length, widths[l + 1])), np.zeros((rows, length, widths[l] + 1))
        left[combination, slot], right[combination, slot] = factors_l
        # at most _TERMS slots per product, each sum of products below 3/2 2^52, reduced before the next is added
        block = np.matmul(left[:, :_TERMS].transpose(0, 2, 1), right[:, :_TERMS])
        for a in range(_TERMS, length, _TERMS):
            block -= np.rint(block * (1 / p)) * p
            block += np.matmul(left[:, a : a + _TERMS].transpose(0, 2, 1), right[:, a : a + _TERMS])
        chosen = np.flatnonzero(positions[:, 0] == l)
        block = block.reshape(rows, -1)[:, positions[chosen, 1] * (widths[l] + 1) + positions[chosen, 2]]  # i (n_l + 1) + j
        out[:, chosen] = block - np.rint(block * (1 / p)) * p
    return out


def nonzero_columns(widths, factors):
    """Whether each column of :func:`jacobian` is non-zero, from the factors (a boolean array, one entry per column).

    Column ``(l, i, q)`` is ``P_l[:, o, i] Q_l[:, q, x]`` over the rows
    ``(r, o, x)``: non-zero exactly when some region has both a non-zero
    ``P_l[r, :, i]`` and a non-zero ``Q_l[r, q, :]``. With factors modulo a
    prime, ``True`` means non-zero modulo the prime, hence over the integers.
    """
    P, Q = factors
    out = []
    for l in range(len(widths) - 1):
        live = (P[l][:, 1:, 1:] != 0).any(axis=1).astype(np.float64)  # (R, n_l)
        moving = (Q[l] != 0).any(axis=2).astype(np.float64)  # (R, n_{l-1} + 1)
        both = (live.T @ moving) > 0  # (n_l, n_{l-1} + 1): counts of regions, exact in float64 (BLAS, not numpy's int loop)
        out.append(both[:, 1:].reshape(-1))
        out.append(both[:, 0])
    return np.concatenate(out)


def integer_layers(network):
    """Homogeneous layers ``[[c_l, 0], c_l [b_l | W_l]]`` scaled to integers (object arrays), and each layer's scale ``c_l``."""
    layers, scales = [], []
    for M, c in network.integer_layers():
        p = M.ncols() - 1
        layers.append(np.array([[c] + [0] * p] + [[int(v) for v in row] for row in M.tolist()], dtype=object))
        scales.append(c)
    return layers, scales


def integer_jacobian(network: ReLUNetwork, patterns: Sequence[Sequence[int]]) -> np.ndarray:
    """The Jacobian of ``θ ↦ (c_R(θ), A_R(θ))`` over the regions with these activation patterns, in integers (internal API).

    One row per entry of each region's affine map, one column per parameter;
    column ``j`` is the true column times a positive integer (the product of
    the other layers' integer scales), so the rank is that of the Jacobian
    (docs/design.md §6). For reference computations, e.g. a plain ``fmpz``
    rank to compare :func:`functional_dimension` with.

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> integer_jacobian(ReLUNetwork([[[1]], [[1]]], [[0], [0]]), [(1,)]).tolist()
    [[0, 1, 0, 1], [1, 0, 1, 0]]
    """
    layers, _ = integer_layers(network)
    return jacobian(network, patterns, layers)


def parameter_position(widths, column):
    """``(l, i, q)``: the parameter in ``column`` is entry ``q`` of neuron ``i``'s homogeneous row ``[b | W]`` in layer ``l``.

    ``q = 0`` is the bias, ``q = 1 + j`` the weight from input ``j`` of the
    layer; the inverse of the column order of :func:`jacobian`.
    """
    start = 0
    for l, (p, n) in enumerate(zip(widths, widths[1:])):
        if column < start + n * (p + 1):
            k = column - start
            return (l, k // p, 1 + k % p) if k < n * p else (l, k - n * p, 0)
        start += n * (p + 1)
    raise IndexError(column)


def jacobian_columns(widths, factors, columns):
    """The columns ``columns`` of :func:`jacobian`, from its factors (a 2-D array, one column each).

    Costs ``rows × len(columns)`` products, where the whole Jacobian costs ``rows × D``.
    """
    P, Q = factors
    if not len(columns):
        return np.zeros((0, 0))
    positions = np.array([parameter_position(widths, c) for c in columns]).reshape(-1, 3)
    R, m, n0 = len(P[0]), widths[-1], widths[0]
    out = np.empty((R * m * (n0 + 1), len(columns)), dtype=P[0].dtype)
    for l in np.unique(positions[:, 0]).tolist():  # the columns of one layer at once: P_l[:, i] Q_l[q, :]
        chosen = np.flatnonzero(positions[:, 0] == l)
        neurons, inputs = positions[chosen, 1], positions[chosen, 2]
        # (R, m, k) and (R, n0 + 1, k): the columns' axis innermost in both
        outputs = P[l][:, 1:, 1 + neurons]
        inputs_ = np.ascontiguousarray(Q[l].transpose(0, 2, 1))[:, :, inputs]
        block = (outputs[:, :, None, :] * inputs_[:, None, :, :]).reshape(-1, len(chosen))
        if chosen[-1] - chosen[0] == len(chosen) - 1:  # a run of columns (the usual case): a slice, not a scatter
            out[:, chosen[0] : chosen[-1] + 1] = block
        else:
            out[:, chosen] = block
    return out
