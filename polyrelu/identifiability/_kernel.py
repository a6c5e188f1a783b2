"""Exact kernel vectors of the parameter Jacobian that need no large linear solve.

The upper bound of :func:`~polyrelu.identifiability.functional_dimension`'s
certificate is a set of independent exact kernel vectors of the Jacobian
``J``. Besides the scaling directions, most of them live on few parameters:

- *local* ones (:func:`local_kernel`), supported on one neuron's incoming row
  and bias, or on one neuron's outgoing weights. On the regions where neuron
  ``i`` of layer ``l`` is live, ``J``'s columns of its incoming row are
  ``P_l[:, i] Q_l[q, :]``, so ``u`` (over that row) is a kernel vector exactly
  when ``u · Q_l[:, x] = 0`` on those regions: a system with one block of
  ``n0 + 1`` rows per distinct pattern of the earlier layers, not per region.
  Outgoing weights likewise, with the roles of ``P`` and ``Q`` exchanged. This
  is where a neuron active only where few inputs of its layer vary loses
  parameters;
- *stable* ones (:func:`stable_kernel`), from a set ``A`` of neurons of one
  layer active on every region: there relu is the identity on ``A``, so the
  layer acts linearly on them. Moving neuron ``a``'s incoming row along
  neuron ``c``'s (``c ≠ a`` in ``A``) and taking ``a``'s share off ``c``'s
  outgoing column (the ``|A|² − |A|`` mixings), raising ``a``'s bias and
  taking the shift off the next layer's biases (``|A|`` of them), and moving
  the incoming rows of ``A`` along a null vector of the next layer's columns
  on ``A`` (``(|A| − rank) × (n_{l−1} + 1)`` of them) do not move ``f``;
- *paired* ones (:func:`paired_kernel`), on the incoming rows of two neurons
  ``k`` and ``a`` of one layer whose effects on the output agree up to a
  factor ``c`` on most regions (``P_l[:, :, k] = c P_l[:, :, a]``), e.g.
  ``a`` active on every region and the output right after: moving ``k``'s
  row by ``u`` and ``a``'s by ``−c u`` moves nothing where they agree, so
  ``u`` need only annihilate ``Q_l`` on the regions where they do not (where
  ``k`` is inactive, for that ``a``): a local system again, one block per
  distinct pattern of the earlier layers;
- *sparse* ones (:func:`sparse_kernel`): the kernel vector of a free column of
  the reduced echelon form modulo ``p`` is supported on that column and the
  pivots whose rows have a non-zero entry there; it is solved exactly on that
  support alone.

Every vector is checked exactly (integer arithmetic) against all the rows of
``J`` it could meet before it is returned. This is an internal module of
:mod:`polyrelu.identifiability`: :func:`local_kernel`, :func:`stable_kernel`,
:func:`paired_kernel`, :func:`sparse_kernel` and :func:`independent_rows` are its
named API, used by
:mod:`polyrelu.identifiability.dimension`.
"""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import numpy as np

from ..geometry.linalg import (
    echelon_pivots,
    modular_echelon,
    modular_rank_profile,
    nullspace,
    solve_nonsingular,
)
from ._jacobian import (
    COMPRESSION_MODULUS,
    compressed_jacobian,
    distinct_rows,
    jacobian_columns,
)
from ._parameters import offsets

__all__ = ["local_kernel", "stable_kernel", "paired_kernel", "sparse_kernel", "independent_rows"]


def local_kernel(network, patterns, factors, p, zero_columns=frozenset(), modular=None):
    """Exact kernel vectors of ``J`` supported on one neuron's incoming row and bias, or on its outgoing weights.

    Parameters
    ----------
    network : ReLUNetwork
    patterns : sequence of activation patterns (the rows of ``J``)
    factors : the exact (integer) factors ``(P, Q)`` of ``J`` over the patterns
        (:func:`~polyrelu.identifiability._jacobian.jacobian_factors`)
    p : int
        A prime, to find the rows that decide each block's rank.
    modular : the factors of ``J`` modulo ``p``, optional
        The blocks' residues are read off them, so that an exact factor is
        computed only for a layer with a stack short of full rank (without
        them, every exact block is reduced modulo ``p``).
    zero_columns : set of int
        Columns of ``J`` known to vanish (checked exactly by the caller): left
        out of every block, since a block's kernel is their unit vectors plus
        the kernel of its other columns, and most deficient blocks owe their
        whole kernel to them.

    Returns
    -------
    list of dict
        Each vector as ``{column: int}`` (its non-zero entries), verified
        against every row of ``J`` in integers; none of them a unit vector of
        ``zero_columns``. Blocks whose rank modulo ``p`` is full (on the
        columns kept) are skipped: their exact rank is full too.
    """
    P, Q = factors
    arch = network.architecture
    widths, L = arch.widths, len(arch.widths) - 1
    positions = offsets(widths)
    signs = np.array(patterns, dtype=int).reshape(len(patterns), arch.num_hidden) > 0
    first_neuron = np.cumsum([0, *arch.hidden_widths]).tolist()
    silent = _silent_neurons(network, signs)
    found = []
    for l in range(1, L):
        w_off, b_off = positions[l]
        # incoming rows of layer l's neurons: Q_l depends on the pattern of the earlier layers only. A row moves the
        # output on R unless P_l[R, :, 1 + i] = 0, which the patterns certify (inactive, or read by silent neurons
        # only); where they cannot, R is kept: a row too many only makes the stack's kernel smaller, never wrong
        chosen, owner = distinct_rows(signs[:, : first_neuron[l]])
        exact, residues = _blocks(lambda l=l: Q[l].transpose(0, 2, 1), modular and (lambda l=l: modular[1][l].transpose(0, 2, 1)),
                                  chosen, p)
        live = ~silent[l]
        columns = [[b_off + i] + [w_off + i * widths[l] + j for j in range(widths[l])] for i in range(widths[l + 1])]
        found += _block_kernels(exact, residues, [np.unique(owner[live[:, i]]) for i in range(widths[l + 1])], columns, p,
                                zero_columns)
        # outgoing weights of the neurons of hidden layer l - 1: P_l depends on the pattern of layer l and later; a
        # neuron's row of Q_l is its pre-activation's affine map, not zero where the neuron is active (it is positive
        # there), and zero (masked) elsewhere
        chosen, owner = distinct_rows(signs[:, first_neuron[l] :])
        exact, residues = _blocks(lambda l=l: P[l][:, 1:, 1:], modular and (lambda l=l: modular[0][l][:, 1:, 1:]), chosen, p)
        live = signs[:, first_neuron[l - 1] : first_neuron[l]]
        columns = [[w_off + i * widths[l] + j for i in range(widths[l + 1])] for j in range(widths[l])]
        found += _block_kernels(exact, residues, [np.unique(owner[live[:, j]]) for j in range(widths[l])], columns, p,
                                zero_columns)
    return found


def _silent_neurons(network, signs):
    """Per layer ``l``, ``silent[l][R, i]``: ``P_l[R, :, 1 + i] = 0`` for certain, from the patterns and the weights' zeros.

    The output layer's neurons are never silent; a hidden neuron is silent
    on ``R`` if it is inactive there, or every neuron of the next layer that
    reads it with a non-zero weight is silent there (``P_l`` is ``P_{l+1}``
    times the next layer's weights, masked by this layer's pattern).
    """
    widths = network.architecture.widths
    L = len(widths) - 1
    first_neuron = np.cumsum([0, *widths[1:-1]]).tolist()
    silent = [None] * L
    silent[L - 1] = np.zeros((len(signs), widths[-1]), dtype=bool)
    for l in range(L - 2, -1, -1):
        reads = np.array([[v != 0 for v in row] for row in network.layers[l + 1][0]], dtype=np.int64)
        heard = ((~silent[l + 1]).astype(np.int64) @ reads) > 0
        silent[l] = ~(signs[:, first_neuron[l] : first_neuron[l + 1]] & heard)
    return silent


def _blocks(exact_per_region, modular_per_region, chosen, p):
    """``(exact, residues)``: a function giving the blocks ``chosen`` of the exact factor (computed once, when first
    called), and their residues modulo ``p``, from the modular factor if given (then the exact one is read only if
    a stack needs its exact kernel)."""
    cache = []

    def exact():
        if not cache:
            cache.append(exact_per_region()[chosen])
        return cache[0]

    if modular_per_region is not None:
        return exact, modular_per_region()[chosen].astype(np.int64)
    return exact, (exact() % p).astype(np.int64)


def _distinct_blocks(per_region, keys, p):
    """``(blocks, residues, owner)``: ``per_region``'s blocks once per distinct row of ``keys``, modulo ``p``, and each region's block."""
    chosen, owner = distinct_rows(keys)
    blocks = per_region[chosen]
    return blocks, (blocks % p).astype(np.int64), owner


def _incoming_blocks(factors, earlier_signs, l, p):
    """The blocks ``Q_l[R]^T`` of the incoming rows of hidden layer ``l`` (:func:`_distinct_blocks`), and ``live``.

    ``Q_l`` depends on the pattern of the earlier layers (``earlier_signs``)
    only; ``live[R, i]`` says whether neuron ``i``'s incoming row moves the
    output on region ``R`` (``P_l[R, :, i] ≠ 0``).
    """
    P, Q = factors
    blocks, residues, owner = _distinct_blocks(Q[l].transpose(0, 2, 1), earlier_signs, p)
    return blocks, residues, owner, (P[l][:, 1:, 1:] != 0).any(axis=1)


def _block_kernels(exact, residues, members, columns, p, zero_columns=frozenset()):
    """The exact kernels of the stacked blocks ``members[i]`` over ``columns[i]``, for every ``i`` (:func:`_block_kernel`).

    Most stacks have full rank: a lower bound on each one's rank modulo ``p``
    comes first, for all of them from one product of the ``residues``
    (:func:`_screened_ranks`), and only the stacks it leaves short of full
    rank are solved, from the exact blocks ``exact()`` (read only then).
    """
    found, every_row = [], None
    for chosen, block_columns, rank in zip(members, columns, _screened_ranks(residues, members, p)):
        keep = [k for k, c in enumerate(block_columns) if c not in zero_columns]
        if rank != len(keep):  # the zero columns add nothing to the rank
            if every_row is None:  # the stacks share their blocks: converted to flint once, if ever
                every_row = _ExactRows(exact())
            found += _block_kernel(exact(), residues, chosen, block_columns, p, rank, every_row, keep)
    return found


class _ExactRows:
    """The rows of all the blocks (``count × h × g``, exact integers) as one flint matrix, built when first asked for.

    A stack's kernel vectors are checked against every row of all the blocks
    at once in flint (a product in C), and the stack's own rows read off
    that: converting each stack's rows to flint apart cost more than the
    checks when the stacks share most of their blocks.
    """

    def __init__(self, blocks):
        self.blocks, self.matrix = blocks, None

    def vanishes(self, chosen, vectors):
        """Whether every row of the blocks ``chosen`` is orthogonal to every one of the integer ``vectors``."""
        if self.matrix is None:
            self.matrix = flint.fmpz_mat(self.blocks.reshape(-1, self.blocks.shape[2]).tolist())
        product = self.matrix * flint.fmpz_mat([list(column) for column in zip(*vectors)])
        moved = np.array([bool(v) for v in product.entries()]).reshape(self.blocks.shape[0], -1)
        return not moved[chosen].any()


def _screened_ranks(residues, members, p):
    """Per ``i``, the rank modulo ``p`` of ``g + 4`` random combinations of the rows of the blocks ``members[i]``.

    Each is a lower bound on the rank modulo ``p`` of those stacked blocks
    (combinations of rows stay in the row space), and with probability at
    least ``1 − 1/(p − 1)`` equal to it. The combinations of all the stacks
    are one product (:func:`~polyrelu.identifiability._jacobian.compressed_jacobian`
    of the blocks' rows, side by side once per stack with the rows of the
    other blocks set to zero), in groups of stacks of at most about 2^22
    entries. None each when ``p`` is too large for its exact float64 products:
    then each stack is reduced whole.
    """
    count, h, g = residues.shape
    if p >= COMPRESSION_MODULUS or not members:
        return [None] * len(members)
    membership = np.zeros((count, len(members)), dtype=np.int64)
    for i, chosen in enumerate(members):
        membership[chosen, i] = 1
    group = max(1, 2**22 // (count * h * g))
    ranks = []
    for start in range(0, len(members), group):
        part = membership[:, start : start + group]
        side_by_side = (residues[:, :, None, :] * part[:, None, :, None]).reshape(count * h, -1)
        stacks = compressed_jacobian(side_by_side, p, g + 4)
        ranks += [modular_echelon(stacks[:, k * g : (k + 1) * g], p)[1] for k in range(part.shape[1])]
    return ranks


def stable_kernel(network, patterns, column_scale):
    """Exact kernel vectors of ``J`` from the sets of neurons active on every region, proved and checked.

    Parameters
    ----------
    network : ReLUNetwork
    patterns : sequence of activation patterns (the rows of ``J``)
    column_scale : sequence of int
        ``J``'s column scales: ``J = J_true · diag(column_scale)``.

    Returns
    -------
    list of dict
        Each vector as ``{column: Fraction}`` in ``J``'s coordinates (its
        non-zero entries). Each is a kernel vector by the identity in the
        Notes, whose one premise that depends on the numbers, ``V N = 0``, is
        checked exactly: a proposal that fails it is dropped (theory
        proposes, the check decides).

    Notes
    -----
    For a set ``A`` of neurons of hidden layer ``l`` active on every pattern,
    with ``h_a = H_l[a, :] z̃`` (``z̃`` the homogeneous output of layer
    ``l − 1``) and ``V = H_{l+1}[:, 1 + A]``, the next layer reads
    ``V h_A``. To first order: ``H_l[a, :] += H_l[c, :]`` adds ``h_c`` to
    ``h_a``, which ``H_{l+1}[:, 1 + c] −= H_{l+1}[:, 1 + a]`` takes off;
    ``H_l[a, 0] += 1`` adds 1, which ``H_{l+1}[:, 0] −= H_{l+1}[:, 1 + a]``
    takes off; and ``H_l[A, q] += N`` with ``V N = 0`` adds nothing the next
    layer sees. On every pattern (the activation pattern held fixed, as in
    ``J``), the pre-activations of layer ``l + 1`` then do not move to first
    order, as functions of ``x``: they are the only way the parameters of
    layers ``l`` and ``l + 1`` reach the output, so ``J k = 0`` on every row.
    The identities are exact algebra given that every neuron of ``A`` is
    active on every pattern (read off the patterns) and ``V N = 0`` (checked
    in rationals). Checking ``J k = 0`` itself would need ``J``'s exact
    factors of the layers around ``l``, whose products of large integers cost
    more than the rest of these kernels.
    """
    arch = network.architecture
    widths, L = arch.widths, len(arch.widths) - 1
    positions = offsets(widths)
    signs = np.array(patterns, dtype=int).reshape(len(patterns), arch.num_hidden) > 0
    first_neuron = np.cumsum([0, *arch.hidden_widths]).tolist()
    proposals = []
    for l in range(1, L):
        stable = np.flatnonzero(signs[:, first_neuron[l - 1] : first_neuron[l]].all(axis=0)).tolist()
        if not stable:
            continue
        W, b = network.layers[l - 1]
        W_next = network.layers[l][0]
        w_off, b_off = positions[l - 1]
        next_w_off, next_b_off = positions[l]
        inputs, n = widths[l - 1], widths[l]

        def incoming(a, q, w_off=w_off, b_off=b_off, inputs=inputs):
            return b_off + a if q == 0 else w_off + a * inputs + q - 1

        rows_of = [[b[c], *W[c]] for c in range(n)]
        for a in stable:
            shift = {incoming(a, 0): Fraction(1)}
            shift.update({next_b_off + r: -Fraction(W_next[r][a]) for r in range(widths[l + 1]) if W_next[r][a]})
            proposals.append(shift)
            for c in stable:
                if c != a:
                    mixing = {incoming(a, q): Fraction(v) for q, v in enumerate(rows_of[c]) if v}
                    mixing.update({next_w_off + r * n + c: -Fraction(W_next[r][a]) for r in range(widths[l + 1]) if W_next[r][a]})
                    proposals.append(mixing)
        V = [[W_next[r][a] for a in stable] for r in range(widths[l + 1])]
        for null in nullspace(V, len(stable)):
            if any(sum(Fraction(v) * x for v, x in zip(row, null)) for row in V):
                continue  # not V N = 0: the next layer would see the change
            for q in range(inputs + 1):
                proposals.append({incoming(a, q): Fraction(v) for a, v in zip(stable, null) if v})
    return [{c: v / column_scale[c] for c, v in vector.items()} for vector in proposals]


def paired_kernel(network, patterns, factors, p):
    """Exact kernel vectors of ``J`` on the incoming rows of a neuron and of a neuron active on every region, verified.

    Parameters
    ----------
    network : ReLUNetwork
    patterns : sequence of activation patterns (the rows of ``J``)
    factors : the exact factors ``(P, Q)`` of ``J`` (as for :func:`local_kernel`)
    p : int
        A prime, to find the rows that decide each block's rank.

    Returns
    -------
    list of dict
        Each vector as ``{column: int}`` in ``J``'s coordinates (its
        non-zero entries), with ``J v = 0`` checked on every region in
        integers from the factors; a proposal that fails the check is
        dropped (the construction proposes, the check decides).

    Notes
    -----
    In hidden layer ``l``, let ``a`` be the first neuron active on every
    region and ``k`` another neuron, with effects ``p_k(R) = P_l[R, :, k]``
    and ``p_a(R)`` on the output. With ``c = p_k(R_0) / p_a(R_0)`` on the
    first region ``R_0`` where both are non-zero, ``J``'s columns of the
    vector ``u`` on ``k``'s incoming row and ``−c u`` on ``a``'s are, on
    region ``R``, ``(u · Q_l[R]) ⊗ (p_k(R) − c p_a(R))``: zero where
    ``p_k(R) = c p_a(R)`` (everywhere ``k`` is live when the output layer
    comes next; tested exactly in integers), and where it is not, zero
    exactly when ``u · Q_l[R] = 0``, a block of rows per distinct pattern of
    the earlier layers, as for :func:`local_kernel`, whose exact kernel is
    checked on every such block. The inputs of layer ``l`` that vanish on
    those regions are left out of ``u``: their unit vectors give outgoing
    local vectors already (``e_k − c e_a`` moves nothing where they move).
    These are the directions that the local and stable ones miss on, e.g.,
    the seed-0 Gaussian 2→32→32→1 network (13 of its 199 beyond scaling).
    """
    P = factors[0]
    arch = network.architecture
    widths, L = arch.widths, len(arch.widths) - 1
    positions = offsets(widths)
    signs = np.array(patterns, dtype=int).reshape(len(patterns), arch.num_hidden) > 0
    first_neuron = np.cumsum([0, *arch.hidden_widths]).tolist()
    found = []
    # the incoming rows of hidden layer l (the first one's Q_0 is the identity: no block there has a kernel)
    for l in range(1, L - 1):
        stable = np.flatnonzero(signs[:, first_neuron[l] : first_neuron[l + 1]].all(axis=0))
        if not len(stable):
            continue
        a = int(stable[0])
        effects = P[l][:, 1:, 1:]
        w_off, b_off = positions[l]
        blocks, residues, owner, live = _incoming_blocks(factors, signs[:, : first_neuron[l]], l, p)
        p_a = effects[:, :, a]
        proposals = []  # (k, u on k's row, −c u on a's row), each over [bias, inputs]
        for k in range(widths[l + 1]):
            p_k = effects[:, :, k]
            both = np.flatnonzero(live[:, k] & live[:, a])
            if k == a or not len(both):
                continue
            r0, o0 = int(both[0]), int(np.flatnonzero(p_a[both[0]] != 0)[0])
            # exact, in integers: p_k(R) p_a(R0) == p_k(R0) p_a(R) on every output
            agree = (p_k * p_a[r0, o0] == p_a * p_k[r0, o0]).all(axis=1)
            differ = np.unique(owner[~agree])
            moving = np.flatnonzero((blocks[differ] != 0).any(axis=(0, 1)))
            if not len(differ) or not len(moving):
                continue  # k and a agree everywhere, or all of u's inputs vanish where they differ
            # u on k's row and −c u on a's, scaled by c's denominator: integer entries (no residue of 1/0 modulo p)
            ratio = Fraction(int(p_k[r0, o0]), int(p_a[r0, o0]))
            block = np.ix_(differ, np.arange(blocks.shape[1]), moving)
            for u in _block_kernel(blocks[block], residues[block], np.arange(len(differ)), moving.tolist(), p):
                on_k = {q: v * ratio.denominator for q, v in u.items()}
                proposals.append((k, on_k, {q: -v * ratio.numerator for q, v in u.items()}))
        if not proposals:
            continue
        image = _IncomingImage(effects, blocks, owner)
        columns = [[b_off + i] + [w_off + i * widths[l] + j for j in range(widths[l])] for i in range(widths[l + 1])]
        for k, on_k, on_a in proposals:
            if image.vanishes({k: on_k, a: on_a}):
                vector = {columns[k][q]: v for q, v in on_k.items()}
                vector.update({columns[a][q]: v for q, v in on_a.items()})
                found.append(vector)
    return found


class _IncomingImage:
    """``J v`` for vectors ``v`` on the incoming rows of one layer's neurons, from the exact factors, in integers.

    On region ``R``, ``J v = Σ_i P_l[R, :, i] ⊗ (v_i · Q_l[R])`` over the
    neurons ``i`` that ``v`` moves (``v_i`` over ``[bias, inputs]``):
    ``effects`` is ``P_l[:, 1:, 1:]``, ``blocks`` holds ``Q_l[R]^T`` once per
    distinct pattern of the earlier layers and ``owner`` maps each region to
    its block.
    """

    def __init__(self, effects, blocks, owner):
        self.effects, self.owner, self.shape = effects, owner, blocks.shape
        self.matrix = flint.fmpz_mat([[int(v) for v in row] for row in blocks.reshape(-1, blocks.shape[2])])

    def vanishes(self, rows):
        """Whether ``J v = 0`` on every region, for ``v`` given as ``{neuron: {entry: value}}`` (exact rationals)."""
        neurons = list(rows)
        den = math.lcm(*(Fraction(v).denominator for row in rows.values() for v in row.values()))
        U = flint.fmpz_mat([[int(Fraction(rows[i].get(q, 0)) * den) for i in neurons] for q in range(self.shape[2])])
        moved = np.array([int(v) for v in (self.matrix * U).entries()], dtype=object)
        moved = moved.reshape(self.shape[0], self.shape[1], len(neurons))[self.owner]  # per region: v_i · Q_l[R]
        image = sum(self.effects[:, :, i][:, :, None] * moved[:, None, :, s] for s, i in enumerate(neurons))
        return not image.any()


def _block_kernel(blocks, residues, chosen, columns, p, rank=None, every_row=None, keep=None):
    """The exact kernel of the stacked blocks ``chosen`` (rows over ``columns``), verified; empty if its rank is full.

    ``residues`` are the blocks modulo ``p``; ``rank``, if given, a lower bound on the stack's rank modulo ``p``
    (:func:`_screened_ranks`). Without it, the rank modulo ``p`` is read off a few random combinations of the rows
    first (full rank modulo ``p`` is full rank over Q: most blocks stop there). The rank tells how many
    independent rows to pick from a small sample, and the exact kernel of those rows is checked on all
    (through ``every_row``, an :class:`_ExactRows` of ``blocks``, if given). With ``keep`` (positions in
    ``columns``), only those columns: the kernel on them, extended by zeros.
    """
    if keep is None:
        keep = list(range(len(columns)))
    g = len(keep)
    if not g:
        return []
    M_mod = residues[chosen][:, :, keep].reshape(-1, g)
    if rank is None and p < COMPRESSION_MODULUS and len(M_mod) > g + 8:
        _, rank = modular_echelon(compressed_jacobian(M_mod, p, g + 4), p)
    if rank == g:
        return []
    # None if the sample fell short of the rank (or no rank is known): then all rows decide
    rows = independent_rows(M_mod, rank, p) if rank is not None else None
    if rows is None:
        rows = independent_rows(M_mod, None, p)
    if len(rows) == g:
        return []
    if not rows:
        return []  # zero columns (modulo p): unit vectors, found elsewhere if exact
    M = blocks[chosen][:, :, keep].reshape(-1, g)  # exact integers (the exact factors are object arrays)
    basis, nullity = flint.fmpz_mat(M[rows].tolist()).nullspace()
    # fraction-free null vectors carry minors' worth of digits (up to 1,800 bits on 2→16→16→16→1) that a common
    # factor accounts for: divided out, most have entries of a few bits, and every product with them is cheaper
    vectors = [[int(basis[a, k]) for a in range(g)] for k in range(nullity)]
    vectors = [[v // content for v in vector] for vector, content in ((vector, math.gcd(*vector)) for vector in vectors)]
    if every_row is not None:
        padded = [[0] * len(columns) for _ in vectors]
        for vector, full in zip(vectors, padded):
            for k, v in zip(keep, vector):
                full[k] = v
        checked = every_row.vanishes(chosen, padded)
    else:
        checked = (flint.fmpz_mat(M.tolist()) * flint.fmpz_mat([list(col) for col in zip(*vectors)])).is_zero()
    if not checked:
        return []  # an unlucky prime: the rows chosen modulo p did not have the block's rank
    return [{columns[k]: v for k, v in zip(keep, vec) if v} for vec in vectors]


def independent_rows(M, r, p):
    """Rows of ``M`` (entries already reduced modulo ``p``) independent modulo ``p``, spanning its row space modulo ``p``.

    With ``r`` given (the expected rank), ``r`` rows are sought on a random
    sample first, and None is returned if the rank modulo ``p`` is lower.
    """
    if r is None:
        return sorted(modular_rank_profile(M, p).rows)
    # rows that vanish on these columns cannot help; the support of a kernel vector often meets few rows
    live = np.flatnonzero(M.any(axis=1))
    order = live[np.random.default_rng(0).permutation(len(live))]
    for size in (min(len(live), 2 * r + 8), len(live)):
        rows = np.sort(order[:size])
        echelon, rank = modular_echelon(M[rows].T, p)  # a small array: flint's echelon form beats the numpy loop
        if rank == r:
            return [int(rows[j]) for j in echelon_pivots(echelon, r)]
        if size == len(live):
            break
    return None


def sparse_kernel(widths, factors, J_mod, support, columns, p, rows):
    """The kernel vectors of ``J`` equal to ``e_c`` on the ``columns`` and supported on ``support`` otherwise, exact.

    Parameters
    ----------
    widths : the network's widths
    factors : the exact factors of ``J`` (as for :func:`local_kernel`)
    J_mod : ``J`` modulo ``p`` (a numpy array of residues)
    support : list of int
        Columns of ``J`` independent modulo ``p``, such that each column in
        ``columns`` is modulo ``p`` a combination of them (pivots of an echelon
        form, or those of them with a non-zero entry in the column's echelon
        column).
    columns : list of int
    p : int
    rows : list of int
        Rows of ``J`` independent modulo ``p`` on a set of columns holding
        ``support`` (e.g. ``rank`` rows on all the pivots): the square
        system is chosen among them.

    Returns
    -------
    list of (dict or None)
        Per column ``c``, the vector ``{column: Fraction}`` (its non-zero
        entries) with ``J k = 0`` checked on every row in integers, or None
        when that check fails (``c`` is not a combination of ``support`` over
        Q, or the prime was unlucky) or no ``len(support)`` rows of ``J`` are
        independent modulo ``p`` on ``support``.
    """
    exact = jacobian_columns(widths, factors, [*support, *columns])
    if support:
        chosen = independent_rows(J_mod[np.ix_(rows, support)], len(support), p)
        if chosen is None:
            return [None] * len(columns)
        rows = [rows[k] for k in chosen]
        # the square system is invertible modulo p, hence over Q
        solution = solve_nonsingular(exact[rows, : len(support)].tolist(), (-exact[rows, len(support) :]).tolist())
    else:
        solution = []
    out = []
    for a, column in enumerate(columns):
        vector = {c: row[a] for c, row in zip(support, solution) if row[a]}
        vector[column] = Fraction(1)
        den = math.lcm(*(v.denominator for v in vector.values()))
        used = [k for k, c in enumerate(support) if c in vector] + [len(support) + a]
        integral = np.array([int(vector[c] * den) for c in support if c in vector] + [den], dtype=object)
        # the certificate: J k = 0 on every row, in integers
        out.append(None if any(exact[:, used].dot(integral)) else vector)
    return out
