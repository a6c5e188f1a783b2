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

import functools
import math
from fractions import Fraction

import flint
import numpy as np

from ..geometry.linalg import echelon_pivots, nullspace, solve_nonsingular
from ..geometry.modular import modular_echelon, modular_rank_profile, modular_rank_profiles
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
        exact, residues = _blocks(lambda regions, l=l: Q.at(l, regions).transpose(0, 2, 1),
                                  modular and (lambda l=l: modular[1][l].transpose(0, 2, 1)), chosen, p)
        live = ~silent[l]
        columns = [[b_off + i] + [w_off + i * widths[l] + j for j in range(widths[l])] for i in range(widths[l + 1])]
        found += _block_kernels(exact, residues, [np.unique(owner[live[:, i]]) for i in range(widths[l + 1])], columns, p,
                                zero_columns)
        # outgoing weights of the neurons of hidden layer l - 1: P_l depends on the pattern of layer l and later; a
        # neuron's row of Q_l is its pre-activation's affine map, not zero where the neuron is active (it is positive
        # there), and zero (masked) elsewhere
        chosen, owner = distinct_rows(signs[:, first_neuron[l] :])
        exact, residues = _blocks(lambda regions, l=l: P.at(l, regions)[:, 1:, 1:],
                                  modular and (lambda l=l: modular[0][l][:, 1:, 1:]), chosen, p)
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


def _blocks(exact_at, modular_per_region, chosen, p):
    """``(exact, residues)``: a function giving the blocks ``chosen`` of the exact factor (``exact_at(chosen)``,
    computed once, when first called), and their residues modulo ``p``, from the modular factor if given (then the
    exact one is read only if a stack needs its exact kernel)."""
    cache = []

    def exact():
        if not cache:
            cache.append(exact_at(chosen))
        return cache[0]

    if modular_per_region is not None:
        return exact, modular_per_region()[chosen].astype(np.int64)
    return exact, (exact() % p).astype(np.int64)


def _block_kernels(exact, residues, members, columns, p, zero_columns=frozenset()):
    """The exact kernels of the stacked blocks ``members[i]`` over ``columns[i]``, for every ``i`` (:func:`_stack_kernels`).

    Most stacks have full rank: a lower bound on each one's rank modulo ``p``
    comes first, for all of them (:func:`_screened_ranks`), and only the
    stacks it leaves short of full rank are solved, from the exact blocks
    ``exact()`` (read only then). The zero columns are left out of every
    stack: they add nothing to its rank.
    """
    stacks, kept_columns = [], []
    for chosen, block_columns, rank in zip(members, columns, _screened_ranks(residues, members, p)):
        keep = [k for k, c in enumerate(block_columns) if c not in zero_columns]
        if keep and rank != len(keep):
            stacks.append((chosen, keep, rank))
            kept_columns.append(block_columns)
    if not stacks:
        return []
    kernels = _stack_kernels(exact(), residues, stacks, p)
    return [{block_columns[k]: v for k, v in vector.items()} for block_columns, vectors in zip(kept_columns, kernels)
            for vector in vectors]


def _stack_kernels(blocks, residues, stacks, p):
    """The exact kernel of each stack of blocks, verified; empty for a stack of full rank.

    Parameters
    ----------
    blocks : numpy.ndarray
        ``count × h × g`` exact integers (an object array); ``residues`` the
        same modulo ``p``.
    stacks : list of (chosen, keep, rank)
        The blocks ``chosen`` stacked (``h`` rows each), on the columns
        ``keep`` (positions in ``0 .. g − 1``); ``rank`` a lower bound on
        the stack's rank modulo ``p`` (:func:`_screened_ranks`), or None.

    Returns
    -------
    list of list of dict
        Per stack, its kernel vectors as ``{position: int}`` (non-zero
        entries), primitive. The rank modulo ``p`` tells how many rows span
        the stack (:func:`_spanning_rows`), the exact null space of those rows
        is taken in flint, and every vector of every stack is checked
        against every row of its stack in integers, in one product with all
        the blocks' rows: a stack whose rows modulo ``p`` fell short of its
        rank over Q (an unlucky prime) has a null space too large, fails the
        check and gives nothing.
    """
    _, h, g = blocks.shape
    kernels, vectors, owner = [[] for _ in stacks], [], []
    for s, ((chosen, keep, _), rows) in enumerate(zip(stacks, _spanning_rows(residues, stacks, p))):
        if not rows or len(rows) == len(keep):
            continue  # full rank, or zero columns modulo p (their unit vectors are found elsewhere if exact)
        rows = np.asarray(rows)  # row k of the stack is row k % h of its block k // h
        basis, nullity = flint.fmpz_mat(blocks[np.asarray(chosen)[rows // h], rows % h][:, keep].tolist()).nullspace()
        for k in range(nullity):
            # fraction-free null vectors carry minors' worth of digits (up to 1,800 bits on 2→16→16→16→1) that a
            # common factor accounts for: divided out, most have entries of a few bits, and every product is cheaper
            vector = [int(basis[a, k]) for a in range(len(keep))]
            content = math.gcd(*vector)
            full = [0] * g
            for position, v in zip(keep, vector):
                full[position] = v // content
            vectors.append(full)
            owner.append(s)
    if not vectors:
        return kernels
    # every row of all the blocks at once: the stacks share most of their blocks
    moved = _moves(blocks.reshape(-1, g), vectors).reshape(len(blocks), -1, len(vectors))
    owner = np.array(owner)
    for s, (chosen, _, _) in enumerate(stacks):
        mine = np.flatnonzero(owner == s)
        if len(mine) and not moved[chosen][:, :, mine].any():
            kernels[s] = [{k: v for k, v in enumerate(vectors[t]) if v} for t in mine.tolist()]
    return kernels


def _moves(rows, vectors):
    """``rows · vector != 0`` for every row and vector, exactly: a boolean array ``len(rows) × len(vectors)``.

    ``rows`` is an object array of integers (``N × g``), each vector a list
    of ``g`` integers. Where the rows fit in 62 bits, the products are taken
    modulo primes ``q`` below ``2^20`` in float64 (exact: ``g < 2^11``
    products of residues below ``2^21`` in absolute value), for each vector until the primes' product
    exceeds ``2 max|row| ‖v‖₁``: a dot product that vanishes modulo all of
    them is then 0, since its absolute value is at most ``max|row| ‖v‖₁``
    (the Chinese remainder theorem, in the symmetric range). The vectors
    that would need more primes than :func:`_check_primes` has, or rows too
    large, take one product in flint, whose entries are read back one by
    one (ten times slower).
    """
    try:
        A = rows.astype(np.int64)
        largest = max(int(A.max()), -int(A.min()), 1) if A.size else 1
    except OverflowError:
        largest = 2**62
    needed = [2 * largest * sum(abs(v) for v in vector) for vector in vectors]
    if largest >= 2**62 or rows.shape[1] >= 2**11:
        needed = [math.inf] * len(vectors)
    moved = np.zeros((len(rows), len(vectors)), dtype=bool)
    modulus = 1
    if math.inf not in needed:
        # A = high 2^31 + low, both below 2^31 in absolute value: A modulo q in float64 without int64 divisions
        high, low = (A >> 31).astype(np.float64), (A & (2**31 - 1)).astype(np.float64)
    for q in _check_primes():
        pending = [k for k, bound in enumerate(needed) if modulus <= bound < math.inf]
        if not pending:
            break
        A_q = high * (2**31 % q) + low  # below 2^52
        A_q -= np.rint(A_q * (1 / q)) * q  # a residue (off by a multiple of q only where the quotient misrounds)
        V = np.array([[v % q for v in vectors[k]] for k in pending], dtype=np.float64).T
        image = A_q @ V  # below g 2^41 < 2^53: exact
        # zero exactly when q divides it: then the quotient is an integer, rounded exactly; otherwise any remainder is
        # non-zero
        moved[:, pending] |= image - np.rint(image * (1 / q)) * q != 0
        modulus *= q
    rest = [k for k, bound in enumerate(needed) if bound >= modulus]
    if rest:
        product = flint.fmpz_mat(rows.tolist()) * flint.fmpz_mat([[vectors[k][a] for k in rest] for a in range(rows.shape[1])])
        moved[:, rest] = np.array(product.tolist(), dtype=object) != 0
    return moved


@functools.cache
def _check_primes():
    """The 64 largest primes below ``2^20`` (:func:`_moves`' moduli, 1,279 bits together), largest first."""
    primes, n = [], 2**20 - 1
    while len(primes) < 64:
        if flint.fmpz(n).is_prime():
            primes.append(n)
        n -= 2
    return tuple(primes)


def _spanning_rows(residues, stacks, p):
    """Per stack (as for :func:`_stack_kernels`), rows of its residues independent modulo ``p`` that span them modulo ``p``.

    Row ``k`` is row ``k`` of ``residues[chosen][:, :, keep]`` stacked. With
    a rank lower bound ``r``, ``4 r + 16`` random rows that do not vanish are
    tried first, all the stacks side by side
    (:func:`~polyrelu.geometry.modular.modular_rank_profiles`), then all the
    rows that do not vanish of the stacks whose sample fell short of ``r``; a
    stack with no bound has all its rows reduced (:func:`independent_rows`).
    """
    stacked = [residues[chosen][:, :, keep].reshape(-1, len(keep)) for chosen, keep, _ in stacks]
    live = [np.flatnonzero(M_mod.any(axis=1)) for M_mod in stacked]
    rows = {}
    for sample_size in (lambda r, n: 4 * r + 16, lambda r, n: n):
        samples = {s: np.sort(live[s][np.random.default_rng(0).permutation(len(live[s]))[: sample_size(rank, len(live[s]))]])
                   for s, (_, keep, rank) in enumerate(stacks) if s not in rows and rank is not None and rank < len(keep)}
        if not samples:
            break
        padded = np.zeros((len(samples), max(map(len, samples.values())), residues.shape[2]), dtype=np.int64)
        for t, (s, sample) in enumerate(samples.items()):
            padded[t, : len(sample), : stacked[s].shape[1]] = stacked[s][sample]  # zero rows and columns: same profile
        for (s, sample), profile in zip(samples.items(), modular_rank_profiles(padded, p)):
            if profile.rank == stacks[s][2] or len(sample) == len(live[s]):
                rows[s] = sorted(sample[profile.rows].tolist())
    return [rows[s] if s in rows else independent_rows(M_mod, None, p) for s, M_mod in enumerate(stacked)]


def _screened_ranks(residues, members, p):
    """Per ``i``, the rank modulo ``p`` of ``g + 4`` random combinations of the rows of the blocks ``members[i]``.

    Each is a lower bound on the rank modulo ``p`` of those stacked blocks
    (combinations of rows stay in the row space), and with probability at
    least ``1 − 1/(p − 1)`` equal to it. One product per stack
    (:func:`~polyrelu.identifiability._jacobian.compressed_jacobian` of its
    rows), then one elimination of all the ``(g + 4) × g`` combinations side
    by side (:func:`~polyrelu.geometry.modular.modular_rank_profiles`). None each when
    ``p`` is too large for exact float64 products: then each stack is reduced
    whole.
    """
    count, h, g = residues.shape
    if p >= COMPRESSION_MODULUS or not members:
        return [None] * len(members)
    # one draw of coefficients for all the stacks: each stack's own are still uniform and independent
    coefficients = np.floor(np.random.default_rng(0).random((g + 4, h * max(map(len, members)))) * p)
    sketches = np.array([compressed_jacobian(residues[chosen].reshape(-1, g), p, g + 4, coefficients=coefficients)
                         for chosen in members])
    return [profile.rank for profile in modular_rank_profiles(sketches, p)]


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


def paired_kernel(network, patterns, factors, p, modular=None):
    """Exact kernel vectors of ``J`` on the incoming rows of a neuron and of a neuron active on every region, verified.

    Parameters
    ----------
    network : ReLUNetwork
    patterns : sequence of activation patterns (the rows of ``J``)
    factors : the exact factors ``(P, Q)`` of ``J`` (as for :func:`local_kernel`)
    p : int
        A prime, to find the rows that decide each block's rank.
    modular : the factors of ``J`` modulo ``p``, optional
        The blocks' residues are read off them (as for :func:`local_kernel`).

    Returns
    -------
    list of dict
        Each vector as ``{column: int}`` in ``J``'s coordinates (its
        non-zero entries). ``J v = 0`` on every region follows from two
        checks made in integers, by the identity in the Notes; a proposal
        that fails them is not made.

    Notes
    -----
    In hidden layer ``l``, let ``a`` be the first neuron active on every
    region and ``k`` another neuron, with effects ``p_k(R) = P_l[R, :, k]``
    and ``p_a(R)`` on the output. With ``c = p_k(R_0) / p_a(R_0) = n / d``
    on the first region ``R_0`` where both are non-zero, ``J``'s columns of
    the vector ``d u`` on ``k``'s incoming row and ``−n u`` on ``a``'s are,
    on region ``R``, ``(u · Q_l[R]) ⊗ (d p_k(R) − n p_a(R))``. The second
    factor is zero exactly where ``p_k(R) p_a(R_0) = p_k(R_0) p_a(R)``,
    tested in integers (``P_l`` depends on the pattern of layer ``l`` and
    after only: once per distinct such pattern); the first is zero on the
    other regions when ``u`` is in the kernel of their blocks ``Q_l[R]`` (a
    block per distinct pattern of the earlier layers), which
    :func:`_stack_kernels` checks on every row of those blocks. Both checks
    hold, so ``J v = 0`` on every region: no product with the Jacobian is
    needed. The inputs of layer ``l`` that vanish on those regions are left
    out of ``u``: their unit vectors give outgoing local vectors already
    (``e_k − c e_a`` moves nothing where they move). These are the
    directions that the local and stable ones miss on, e.g., the seed-0
    Gaussian 2→32→32→1 network (13 of its 199 beyond scaling).
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
        later, later_owner = distinct_rows(signs[:, first_neuron[l] :])
        effects = P.at(l, later)[:, 1:, 1:]  # per distinct pattern of layer l and after
        live = (effects != 0).any(axis=1)[later_owner]
        chosen, owner = distinct_rows(signs[:, : first_neuron[l]])
        exact, residues = _blocks(lambda regions, l=l: factors[1].at(l, regions).transpose(0, 2, 1),
                                  modular and (lambda l=l: modular[1][l].transpose(0, 2, 1)), chosen, p)
        # the inputs non-zero modulo p on each block: non-zero, and u is sought on them only (a column that vanishes
        # modulo p only is left out: a vector fewer, never a wrong one, since the check reads every column)
        moves = (residues != 0).any(axis=1)
        p_a = effects[:, :, a]
        candidates = []  # (k, n, d, regions where k and a differ, inputs that move there)
        for k in range(widths[l + 1]):
            both = np.flatnonzero(live[:, k] & live[:, a])
            if k == a or not len(both):
                continue
            p_k = effects[:, :, k]
            r0 = int(later_owner[both[0]])
            o0 = int(np.flatnonzero(p_a[r0] != 0)[0])
            agree = (p_k * p_a[r0, o0] == p_a * p_k[r0, o0]).all(axis=1)
            differ = np.unique(owner[~agree[later_owner]])
            moving = np.flatnonzero(moves[differ].any(axis=0))
            if len(differ) and len(moving):  # else k and a agree everywhere, or u's inputs vanish where they differ
                ratio = Fraction(int(p_k[r0, o0]), int(p_a[r0, o0]))
                candidates.append((k, ratio.numerator, ratio.denominator, differ, moving))
        # full rank on the inputs that move (the others are zero there) leaves no vector
        ranks = _screened_ranks(residues, [differ for *_, differ, _ in candidates], p)
        candidates = [(c, rank) for c, rank in zip(candidates, ranks) if rank != len(c[4])]
        if not candidates:
            continue  # the exact blocks are not read
        w_off, b_off = positions[l]
        columns = [[b_off + i] + [w_off + i * widths[l] + j for j in range(widths[l])] for i in range(widths[l + 1])]
        stacks = [(differ, moving.tolist(), rank) for (*_, differ, moving), rank in candidates]
        for ((k, n, d, *_), _), kernel in zip(candidates, _stack_kernels(exact(), residues, stacks, p)):
            for u in kernel:
                # d u on k's row and −n u on a's: integer entries (no residue of 1/0 modulo p)
                vector = {columns[k][q]: v * d for q, v in u.items()}
                vector.update({columns[a][q]: -v * n for q, v in u.items()})
                found.append(vector)
    return found


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
