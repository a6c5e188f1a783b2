"""Functional dimension, identifiability and minimality of a ReLU network's parameters (docs/design.md §6).

On a region ``R`` of the canonical complex, ``f(x) = A_R(θ) x + c_R(θ)`` with
``A_R``, ``c_R`` polynomial in the parameters ``θ``. The functional dimension at
``θ`` is the rank of the Jacobian of ``θ ↦ (A_R(θ), c_R(θ))_R`` over all
regions; it is at most ``D − H`` (#parameters − #hidden neurons), because
rescaling a neuron's incoming and outgoing weights does not move ``f``.

The rank is decided exactly, with a certificate both ways:

- a lower bound ``r``: the rank of the integer-scaled Jacobian modulo a prime
  (a minor that is non-zero modulo ``p`` is non-zero over the integers);
- the matching upper bound: ``D − r`` kernel vectors, independent modulo the
  prime (hence over Q). The ``H`` scaling directions are kernel vectors by the
  positive homogeneity of relu (independent when no hidden neuron's incoming
  row and bias all vanish, since each moves its own neuron's incoming row),
  so ``r = D − H`` then needs nothing more; otherwise the
  unit vectors of zero columns join them, and the few missing ones are solved
  exactly from an ``r × r`` subsystem and checked against the whole Jacobian
  in integer arithmetic.

:func:`float_functional_dimension` is the float fast path (SVD rank), named as
such and never the default.

:func:`minimality_report` looks for hidden neurons that can go without
changing ``f`` (deleted, merged into a twin, or absorbed by the next layer),
each removal proved exactly.

:func:`identifiability_report` weighs the evidence (the width hypothesis, the
four genericity conditions, the functional dimension, and an exact second
parameter computing ``f`` when one is found) into one verdict, and
:func:`architecture_survey` counts over random parameters how often the
conditions hold, the rank is ``D − H`` and the theorem applies.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import Any, Literal

import numpy as np

from .checks import (
    require_bool,
    require_choice,
    require_instance,
    require_int,
    require_real,
    require_sequence,
)
from .complex import CanonicalComplex, canonical_complex, check_complex_of
from .dependency import dependency_graph
from .domain import Box
from .errors import GeometryError
from .genericity import GenericityReport, genericity
from .geometry import Polyhedron
from .geometry.linalg import (
    echelon_pivots,
    modular_echelon,
    pivot_columns,
    residue,
    solve,
    solve_nonsingular,
    span_complement,
)
from .geometry.rational import FractionVector, MatrixLike, to_fraction_vector
from .io import network_to_dict
from .network import Architecture, ReLUNetwork, require_architecture
from .parallel import (
    SERIAL_SECONDS,
    check_parallel_arguments,
    parallel_map,
    worker_count,
)
from .symmetry import FunctionComparison, equivalent, same_function
from .tropical import breakpoint_complex, tropical_weights

__all__ = [
    "FunctionalDimension",
    "functional_dimension",
    "batch_functional_dimension",
    "float_functional_dimension",
    "scaling_directions",
    "Removal",
    "MinimalityReport",
    "minimality_report",
    "IdentifiabilityReport",
    "identifiability_report",
    "SurveyResult",
    "architecture_survey",
]

_PRIMES = (2**62 - 57, 2**61 - 1, 2**63 - 25)
# entry operations per second of flint's reduced echelon form modulo a small prime (measured: a 3672 × 609
# Jacobian of rank 444 in 1.4 s, one thread), to tell when functional_dimension is long enough for workers
_ECHELON_RATE = 1e9
# below 2^28, products of two residues summed over up to 127 terms stay inside int64
_SMALL_PRIMES = (268435399, 268435367, 268435361)


@dataclass(frozen=True)
class FunctionalDimension:
    """The rank of the parameter Jacobian and what it rests on.

    Attributes
    ----------
    rank : int
        The functional dimension (batch functional dimension for given points).
    bound : int
        ``D − H``.
    num_parameters, num_hidden : int
        ``D`` and ``H``.
    patterns : int
        Activation patterns (regions) whose maps were differentiated.
    method : str
        ``"exact"`` (certified both ways) or ``"float"`` (SVD rank, not certified).
    prime : int or None
        The prime of the lower-bound certificate (exact method).
    kernel : tuple of tuple of Fraction
        Exact directions in parameter space (in the order of
        :meth:`~polyrelu.network.ReLUNetwork.parameters`) that do not move
        ``f`` to first order and are not combinations of the scaling
        directions; ``D − H − rank`` of them when the scaling directions are
        independent. Empty when the rank attains the bound.
    """

    rank: int
    bound: int
    num_parameters: int
    num_hidden: int
    patterns: int
    method: str
    prime: int | None = None
    kernel: tuple[FractionVector, ...] = ()

    @property
    def attains_bound(self) -> bool:
        """Whether the rank equals ``D − H``."""
        return self.rank == self.bound

    def __str__(self):
        head = (
            f"functional dimension {self.rank} of D - H = {self.bound} "
            f"(D = {self.num_parameters}, H = {self.num_hidden}; {self.patterns} activation patterns, {self.method})"
        )
        if self.attains_bound:
            return head + ": the bound is attained"
        return head + f": {self.bound - self.rank} short, {len(self.kernel)} kernel directions beyond scaling"


def functional_dimension(
    network: ReLUNetwork,
    domain: Box | Polyhedron | MatrixLike | None = None,
    complex_: CanonicalComplex | None = None,
    kernel: bool = True,
    *,
    n_jobs: int | None = None,
    scheduler: str | None = None,
) -> FunctionalDimension:
    """The exact functional dimension of a network at its parameters (docs/design.md §6).

    Parameters
    ----------
    network : ReLUNetwork
    domain : optional
        As for :func:`~polyrelu.complex.canonical_complex`; regions outside it do not count.
    complex_ : CanonicalComplex, optional
        Reused if already computed.
    kernel : bool
        Also return the exact kernel directions beyond scaling when the rank falls short.
    n_jobs : int, optional
        Worker processes for the rank modulo a prime, as in
        :func:`~polyrelu.parallel.parallel_map`: batches of regions are reduced
        apart and their echelon forms together. ``None`` (the default) does so
        only when reducing the whole Jacobian would take more than about 2 s;
        ``1`` never. The result is the same for every choice.
    scheduler : str, optional
        The address of a Dask scheduler whose workers reduce the batches (docs/parallel.md).

    Returns
    -------
    FunctionalDimension

    Raises
    ------
    GeometryError
        No certificate could be completed with any of the primes tried (not
        expected to happen; the message says so rather than guessing).

    Examples
    --------
    ``relu(x1) + relu(x2)``: 9 parameters, 2 hidden neurons, rank 7. A dead
    neuron drops the rank: its two incoming weights, bias and outgoing weight move
    freely, one combination of them is its rescaling, three are left:

    >>> from polyrelu import ReLUNetwork
    >>> functional_dimension(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])).rank
    7
    >>> dead = ReLUNetwork([[[1, 0], [0, 1], [0, 0]], [[1, 1, 1]]], [[0, 0, -1], [0]])
    >>> fd = functional_dimension(dead)
    >>> fd.rank, fd.bound, len(fd.kernel)
    (7, 10, 3)
    """
    require_instance(network, ReLUNetwork, "network", "functional_dimension")
    kernel = require_bool(kernel, "kernel", "functional_dimension")
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, "functional_dimension")
    check_complex_of(complex_, network, domain, "functional_dimension")
    K = complex_ if complex_ is not None else canonical_complex(network, domain)
    patterns = [r.signs for r in K.regions()]
    return _certified_rank(network, patterns, kernel, n_jobs, scheduler)


def batch_functional_dimension(network: ReLUNetwork, points: MatrixLike, kernel: bool = False) -> FunctionalDimension:
    """The exact rank of the Jacobian of ``θ ↦ (f_θ(z))_z`` on the affine pieces at the given points.

    Each point must be *parametrically smooth*: no hidden pre-activation
    vanishes there, so the activation pattern is locally constant in ``θ``.
    The rank counts the pieces' full affine maps ``(A, c)`` at the points'
    patterns (repeated patterns count once), which is the batch functional
    dimension of a batch holding ``n0 + 1`` affinely independent points in
    each of those pieces.

    Raises
    ------
    GeometryError
        A point where some hidden pre-activation is zero (its index is named).

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    >>> batch_functional_dimension(net, [[1, 1]]).rank  # one affine piece: 3 numbers
    3
    >>> batch_functional_dimension(net, [[1, 1], [-1, 1], [1, -1], [-1, -1]]).rank
    7
    """
    caller = "batch_functional_dimension"
    require_instance(network, ReLUNetwork, "network", caller)
    kernel = require_bool(kernel, "kernel", caller)
    n0 = network.architecture.input_dim
    points = [to_fraction_vector(x, f"{caller}: points[{k}]", n0) for k, x in enumerate(require_sequence(points, "points", caller))]
    patterns = []
    for k, x in enumerate(points):
        signs = network.signs(x)
        if 0 in signs:
            raise GeometryError(
                f"point {k} lies on the zero set of hidden neuron {network.architecture.hidden_neurons()[signs.index(0)]}; "
                "batch functional dimension needs points where no hidden pre-activation vanishes"
            )
        if signs not in patterns:
            patterns.append(signs)
    return _certified_rank(network, patterns, kernel)


def float_functional_dimension(
    network: ReLUNetwork, domain: Box | Polyhedron | MatrixLike | None = None, complex_: CanonicalComplex | None = None, rtol: float | None = None
) -> FunctionalDimension:
    """The functional dimension by a float SVD rank: fast, not certified (named as such).

    ``rtol`` is relative to the largest singular value (numpy's default
    ``max(shape) · eps`` when None). On well-conditioned networks it agrees
    with :func:`functional_dimension`.
    """
    require_instance(network, ReLUNetwork, "network", "float_functional_dimension")
    rtol = require_real(rtol, "rtol", "float_functional_dimension", minimum=0, optional=True)
    check_complex_of(complex_, network, domain, "float_functional_dimension")
    K = complex_ if complex_ is not None else canonical_complex(network, domain)
    patterns = [r.signs for r in K.regions()]
    layers = [np.array([[1.0] + [0.0] * len(W[0])] + [[float(bi), *map(float, row)] for row, bi in zip(W, b)])
              for W, b in network.layers]
    J = _jacobian(network, patterns, layers)
    if J.size == 0:
        rank = 0
    else:
        sv = np.linalg.svd(J, compute_uv=False)
        tol = (rtol if rtol is not None else max(J.shape) * np.finfo(float).eps) * sv[0]
        rank = int(np.sum(sv > tol))
    arch = network.architecture
    return FunctionalDimension(rank, arch.functional_dimension_bound, arch.num_parameters, arch.num_hidden,
                               len(patterns), "float")


def scaling_directions(network: ReLUNetwork) -> tuple[FractionVector, ...]:
    """The ``H`` tangent directions of the positive rescalings, one per hidden neuron, exact.

    For neuron ``(l, i)``: ``+`` its incoming row and bias, ``−`` its outgoing
    column (the derivative at ``λ = 1`` of scaling it by ``λ``). Coordinates in
    the order of :meth:`~polyrelu.network.ReLUNetwork.parameters`.
    """
    arch = require_instance(network, ReLUNetwork, "network", "scaling_directions").architecture
    offsets = _offsets(arch.widths)
    out = []
    for l, n in enumerate(arch.hidden_widths, start=1):
        W, b = network.layers[l - 1]
        W_next = network.layers[l][0]
        p = arch.widths[l - 1]
        for i in range(n):
            vec = [Fraction(0)] * arch.num_parameters
            w_off, b_off = offsets[l - 1]
            for j in range(p):
                vec[w_off + i * p + j] = W[i][j]
            vec[b_off + i] = b[i]
            nw_off, _ = offsets[l]
            for r in range(arch.widths[l + 1]):
                vec[nw_off + r * n + i] = -W_next[r][i]
            out.append(tuple(vec))
    return tuple(out)


# -- the Jacobian -----------------------------------------------------------------------------


def _offsets(widths):
    """Per layer, the positions of ``W_l`` (row-major) and ``b_l`` in the flat parameter vector."""
    out, pos = [], 0
    for p, n in zip(widths, widths[1:]):
        out.append((pos, pos + n * p))
        pos += n * (p + 1)
    return out


def _jacobian(network, patterns, layers, modulus=None):
    """The Jacobian of ``θ ↦ (c_R, A_R)`` over the patterns, in homogeneous form, as a numpy array.

    ``layers`` are the homogeneous layer matrices ``[[1, 0], [b, W]]`` (floats,
    or integers scaled by ``c_l`` as numpy object arrays). With ``Q_l`` the map
    of layer ``l``'s input and ``P_l`` the map from its pre-activation to the
    output (both with the pattern's masks), ``∂M/∂H_l[i, j] = P_l[:, i] Q_l[j, :]``.
    Rows: pattern, output, then the constant and the ``n0`` slopes; columns: the
    parameters in the order of :meth:`ReLUNetwork.parameters`. With ``modulus``
    (int64 layers already reduced), every product is reduced modulo it.
    """
    def reduce(a):
        return a % modulus if modulus is not None else a

    arch = network.architecture
    widths = arch.widths
    L = len(widths) - 1
    n0, m = widths[0], widths[-1]
    R = len(patterns)
    kind = layers[0].dtype
    signs = np.array(patterns, dtype=int).reshape(R, arch.num_hidden) > 0
    masks, k = [], 0
    for n in arch.hidden_widths:
        mask = np.ones((R, n + 1), dtype=kind)
        mask[:, 1:] = signs[:, k : k + n]
        masks.append(mask)
        k += n
    Q = [np.broadcast_to(np.eye(n0 + 1, dtype=int).astype(kind), (R, n0 + 1, n0 + 1))]
    for l in range(L - 1):
        Q.append(reduce(np.matmul(layers[l], Q[-1])) * masks[l][:, :, None])
    P = [None] * L
    P[L - 1] = np.broadcast_to(np.eye(m + 1, dtype=int).astype(kind), (R, m + 1, m + 1))
    for l in range(L - 2, -1, -1):
        P[l] = reduce(np.matmul(P[l + 1], layers[l + 1])) * masks[l][:, None, :]
    blocks = []
    for l in range(L):
        rows = P[l][:, 1:, 1:]  # (R, m, n_l): no constant row, no constant column
        cols = np.transpose(Q[l], (0, 2, 1))  # (R, n0 + 1, n_{l-1} + 1)
        B = reduce(rows[:, :, None, :, None] * cols[:, None, :, None, :])  # (R, m, n0 + 1, n_l, n_{l-1} + 1)
        B = B.reshape(R * m * (n0 + 1), widths[l + 1], widths[l] + 1)
        # column j = 0 is the bias; the parameter vector has W_l row-major, then b_l
        blocks.append(B[:, :, 1:].reshape(len(B), -1))
        blocks.append(B[:, :, 0])
    return np.concatenate(blocks, axis=1) if R else np.zeros((0, arch.num_parameters), dtype=kind)


def _integer_layers(network):
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
    layers, _ = _integer_layers(network)
    return _jacobian(network, patterns, layers)


def _certified_rank(network, patterns, want_kernel, n_jobs=1, scheduler=None):
    arch = network.architecture
    D, H = arch.num_parameters, arch.num_hidden
    layers, scales = _integer_layers(network)
    # J = J_true · diag(s): the column of a layer-l parameter carries the product of the other layers' scales
    total = math.prod(scales)
    column_scale = [total // scales[l] for l, (p, n) in enumerate(zip(arch.widths, arch.widths[1:])) for _ in range(n * (p + 1))]
    scaling = scaling_directions(network)
    # each scaling direction moves its own neuron's incoming row: independent unless such a row is zero
    independent_scaling = all(any(row) or bias for W, b in network.layers[:-1] for row, bias in zip(W, b))
    exact = {}

    def exact_jacobian(residues=None):  # only when the kernel must be found: the generic case needs residues alone
        if "J" not in exact:
            J = _jacobian(network, patterns, layers)
            exact["J"] = J
            # the parameters that move something; a column non-zero modulo a prime is non-zero
            maybe_zero = range(D) if residues is None else [j for j in range(D) if not residues[:, j].any()]
            zero = {j for j in maybe_zero if not (J.size and any(J[:, j]))}
            exact["nonzero"] = [j for j in range(D) if j not in zero]
        return exact["J"], exact["nonzero"]

    small = max(arch.widths) + 1 <= 127
    rows = len(patterns) * arch.output_dim * (arch.input_dim + 1)
    batches = min(_echelon_batches(rows, D, n_jobs, scheduler), len(patterns)) if small else 1
    for p in _SMALL_PRIMES if small else _PRIMES:
        reduced = [(Lz % p).astype(np.int64) for Lz in layers] if small else None
        if batches > 1:
            # the row space of J is the sum of those of its batches of regions, and a reduced echelon form
            # depends on the row space alone: the same echelon form as from J itself, without J
            cut = np.linspace(0, len(patterns), batches + 1).astype(int).tolist()
            parts = parallel_map(partial(_echelon_rows, network, reduced, p), [patterns[a:b] for a, b in zip(cut, cut[1:])],
                                 n_jobs=n_jobs, scheduler=scheduler, names=[f"regions {a} to {b - 1}" for a, b in zip(cut, cut[1:])])
            J_mod = np.concatenate(parts)
        elif small:
            J_mod = _jacobian(network, patterns, reduced, modulus=p)
        else:
            J_mod = (exact_jacobian()[0] % p).astype(np.uint64)
        columns = [j for j in range(D) if J_mod[:, j].any()]
        # one echelon form of the non-zero columns gives the rank and, if needed, the kernel
        echelon, rank = modular_echelon(J_mod[:, columns], p)
        if rank == D - H and independent_scaling:
            return FunctionalDimension(rank, D - H, D, H, len(patterns), "exact", p)
        if batches > 1:  # the certificate reads rows of J itself
            J_mod = _jacobian(network, patterns, reduced, modulus=p)
        J, nonzero = exact_jacobian(J_mod)
        if nonzero != columns:  # a column that vanishes modulo p only: take the echelon form of the true ones
            echelon, rank = modular_echelon(J_mod[:, nonzero], p)
        # the scaling directions in J's coordinates, modulo p: kernel vectors by the positive homogeneity of relu
        known = [[residue(Fraction(v) / c, p) if v else 0 for v, c in zip(vec, column_scale)] for vec in scaling]
        found = _exact_kernel(J, nonzero, J_mod[:, nonzero], echelon, rank, p, known)
        if found is None:
            continue  # an unlucky prime: the rank modulo p was below the rank over Q
        extra = ()
        if want_kernel:
            # the found vectors that extend a basis of span(known), by independence modulo p
            residues = [[residue(v, p) if v else 0 for v in vec] for vec in found]
            beyond = [found[k] for k in span_complement(known, residues, modulus=p)]
            extra = tuple(tuple(v * c if v else v for v, c in zip(vec, column_scale)) for vec in beyond)
        return FunctionalDimension(rank, D - H, D, H, len(patterns), "exact", p, extra)
    raise GeometryError(f"no rank certificate for {network.name or 'the network'} with the primes tried")


def _echelon_batches(rows, D, n_jobs, scheduler):
    """How many batches of regions :func:`_certified_rank` reduces apart: 1 (all of ``J`` at once) when serial.

    Reducing ``k`` batches of ``J``'s ``rows`` rows (``D`` columns) costs about
    ``rows · D · r / k`` each, then ``k r · D · r`` to reduce their ``k r`` rows
    together (``r ≤ D`` the rank): ``k ≈ √(rows / D)`` is best, at most one
    batch per worker. Under ``n_jobs=None``, only when reducing ``J`` at once
    would take more than :data:`~polyrelu.parallel.SERIAL_SECONDS`.
    """
    workers = worker_count(n_jobs, scheduler)
    seconds = rows * D * min(rows, D) / _ECHELON_RATE
    if workers == 1 or (n_jobs is None and scheduler is None and seconds <= SERIAL_SECONDS):
        return 1
    batches = max(2, round(math.sqrt(rows / D)))
    return min(batches, workers) if workers > 0 else batches


def _echelon_rows(network, reduced_layers, p, patterns):
    """The non-zero rows of the reduced echelon form modulo ``p`` of the Jacobian over these patterns (a task)."""
    J_mod = _jacobian(network, patterns, reduced_layers, modulus=p)
    echelon, rank = modular_echelon(J_mod, p)
    D = J_mod.shape[1]
    if not rank:
        return np.zeros((0, D), dtype=np.int64)
    return np.array([int(v) for v in echelon.entries()[: rank * D]], dtype=np.int64).reshape(rank, D)


def _independent_prefix(vectors, p, D):
    """Indices of the first maximal subsequence of ``vectors`` (residues modulo ``p``) that is independent.

    Independence modulo ``p`` implies independence over Q.
    """
    return pivot_columns([[vec[i] for vec in vectors] for i in range(D)], modulus=p) if vectors else []


def _exact_kernel(J, nonzero, J_mod, echelon, rank, p, known):
    """Kernel vectors of ``J`` beyond the ``known`` ones, exact and verified, completing a kernel basis; or None.

    The kernel has dimension at least ``D − rank`` over Q. Zero columns give
    unit vectors; the ``known`` vectors (the scaling directions) are kernel
    vectors by theory. The rest come from the echelon form modulo ``p`` of the
    non-zero columns: free columns whose kernel vectors modulo ``p`` are
    independent of those found so far are solved for exactly, from ``rank``
    rows independent modulo ``p``, and accepted only if ``J k = 0`` holds for
    every row in integers. Independence modulo ``p`` implies it over Q, so
    ``D − rank`` independent exact kernel vectors prove the rank is at most
    ``rank``. Returns the new vectors (unit vectors first).
    """
    D = J.shape[1]
    zero, one = Fraction(0), Fraction(1)
    units = [[one if i == j else zero for i in range(D)] for j in range(D) if j not in set(nonzero)]
    need = D - rank
    current = [list(vec) for vec in known] + [[int(i == j) for i in range(D)] for j in range(D) if j not in set(nonzero)]
    have = len(_independent_prefix(current, p, D))
    found = list(units)
    if have < need and nonzero:
        r = rank
        pivot_pos = echelon_pivots(echelon, r)
        pivots = [nonzero[j] for j in pivot_pos]
        free_pos = [j for j in range(len(nonzero)) if j not in set(pivot_pos)]
        # kernel vectors modulo p straight from the echelon form: e_n - sum over pivot rows of R[i, n] e_pivot
        candidates = []
        for j in free_pos:
            vec = [0] * D
            vec[nonzero[j]] = 1
            for i, c in enumerate(pivots):
                vec[c] = (-int(echelon[i, j])) % p
            candidates.append(vec)
        independent = _independent_prefix(current + candidates, p, D)
        chosen = [nonzero[free_pos[k - len(current)]] for k in independent if k >= len(current)]
        if have + len(chosen) < need:
            return None
        chosen = chosen[: need - have]
        rows = _independent_rows(J_mod[:, pivot_pos], r, p)
        if rows is None:
            return None
        # A is invertible modulo p, hence over Q
        solution = solve_nonsingular(J[np.ix_(rows, pivots)].tolist(), (-J[np.ix_(rows, chosen)]).tolist())
        solved = []
        for a, n in enumerate(chosen):
            vec = [Fraction(0)] * D
            vec[n] = Fraction(1)
            for b, c in enumerate(pivots):
                vec[c] = solution[b][a]
            solved.append(vec)
        # the certificate: J k = 0 for every row, in integers, on the vector's support
        for vec in solved:
            den = math.lcm(*(v.denominator for v in vec))
            support = [i for i, v in enumerate(vec) if v]
            values = np.array([int(vec[i] * den) for i in support], dtype=object)
            if any(J[:, support].dot(values)):
                return None
        found.extend(solved)
    elif have < need:
        return None
    return found


def _independent_rows(M, r, p):
    """``r`` rows of ``M`` (``r`` columns, entries already reduced modulo ``p``) independent modulo ``p``.

    Tried on a random sample of rows first.
    """
    n = M.shape[0]
    order = np.random.default_rng(0).permutation(n)
    for size in (min(n, 2 * r + 8), n):
        rows = sorted(order[:size].tolist())
        T = M[rows].T
        echelon, rank = modular_echelon(T, p)
        if rank == r:
            return [rows[j] for j in echelon_pivots(echelon, r)]
    return None


# -- minimality ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Removal:
    """A way to compute ``f`` with one hidden neuron fewer, proved by :func:`~polyrelu.symmetry.same_function`.

    Attributes
    ----------
    neuron : (int, int)
        The neuron taken out.
    how : str
        ``"deleted"`` (its row and outgoing column dropped) or ``"merged into (l, i)"``
        (a positive multiple of that neuron's incoming row: its outgoing column is
        added there, scaled).
    network : ReLUNetwork
        The smaller network.
    proof : FunctionComparison
        The exact comparison (equal, on every region of a common refinement).
    """

    neuron: tuple[int, int]
    how: str
    network: ReLUNetwork
    proof: FunctionComparison


@dataclass(frozen=True)
class MinimalityReport:
    """The result of :func:`minimality_report`.

    Attributes
    ----------
    removals : tuple of Removal
        Every single-neuron removal found, each proved exact.
    layer_sizes : tuple of int or None
        Candidate bent hypersurfaces per inferred layer of ``f``'s dependency
        graph (None when it has a cycle or unresolved cells).
    widths : tuple of int
        The network's hidden widths.
    """

    removals: tuple[Removal, ...]
    layer_sizes: tuple[int, ...] | None
    widths: tuple[int, ...]

    @property
    def verdict(self) -> str:
        """``"not minimal"`` (a removal is proved), ``"minimal (evidence)"`` or ``"undecided"``."""
        if self.removals:
            return "not minimal"
        if self.layer_sizes is not None and tuple(self.layer_sizes) == tuple(self.widths):
            return "minimal (evidence)"
        return "undecided"

    def __str__(self):
        lines = [f"minimality: {self.verdict}"]
        for r in self.removals:
            lines.append(f"  neuron {r.neuron} can be {r.how}: same function on {r.proof.regions} regions (exact)")
        if not self.removals:
            lines.append("  no single neuron can be deleted, merged into a twin or absorbed (each checked exactly)")
            lines.append(f"  hidden widths {self.widths}; candidate hypersurfaces per inferred layer of f: {self.layer_sizes}")
        return "\n".join(lines)


def minimality_report(
    network: ReLUNetwork,
    domain: Box | Polyhedron | MatrixLike | None = None,
    *,
    max_cells: int = 1_000_000,
    n_jobs: int | None = None,
    scheduler: str | None = None,
) -> MinimalityReport:
    """Which hidden neurons can go without changing ``f``, each with an exact proof (docs/design.md §6).

    Tries, for every hidden neuron, (a) deleting it (dead neurons, neurons
    whose outgoing weights vanish, neurons invisible on the domain), (b) letting
    the next layer absorb it when its output is an affine combination of the
    other outputs of its layer on every region (exact linear algebra; e.g. a
    neuron active everywhere beside neurons that span its formula), and (c)
    merging it into a *twin*: a neuron of the same layer whose incoming row and
    bias are a positive multiple of its own (then ``relu(λ z) = λ relu(z)``).
    Every candidate smaller network is accepted only if
    :func:`~polyrelu.symmetry.same_function` proves it equal on the domain.
    Without a removal, the evidence of minimality is the dependency graph of
    ``f``: as many candidate bent hypersurfaces per inferred layer as neurons.
    ``max_cells`` bounds the network's canonical complex as in
    :func:`~polyrelu.complex.canonical_complex`.

    The neurons are checked independently, in parallel as
    :func:`~polyrelu.parallel.parallel_map` decides with ``n_jobs`` and
    ``scheduler`` (docs/parallel.md); the report is the same for every choice.

    Returns
    -------
    MinimalityReport

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> twins = ReLUNetwork([[[1, 0], [2, 0], [0, 1]], [[1, 1, 1]]], [[0, 0, 0], [0]])
    >>> report = minimality_report(twins)
    >>> report.verdict, [(r.neuron, r.how) for r in report.removals]
    ('not minimal', [((1, 0), 'merged into (1, 1)'), ((1, 1), 'merged into (1, 0)')])
    >>> report.removals[0].network.architecture.widths
    (2, 2, 1)
    """
    caller = "minimality_report"
    require_instance(network, ReLUNetwork, "network", caller)
    require_int(max_cells, "max_cells", caller, minimum=1)
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, caller)
    arch = network.architecture
    K = canonical_complex(network, domain, max_cells=max_cells)
    # a layer cannot be emptied
    neurons = [(layer, index) for layer, index in arch.hidden_neurons() if arch.hidden_widths[layer - 1] >= 2]
    patterns = tuple(region.signs for region in K.regions())
    found = parallel_map(partial(_removal, network, patterns, domain), neurons, n_jobs=n_jobs, scheduler=scheduler,
                         desc="neurons", names=[f"neuron {neuron}" for neuron in neurons])
    removals = [removal for removal in found if removal is not None]
    sizes = None
    if not removals:
        G = dependency_graph(breakpoint_complex(tropical_weights(K)))
        # dependency_graph always keeps the candidates it grouped
        if G.is_dag() and not G.candidates.unresolved:  # type: ignore[union-attr]
            sizes = G.layer_sizes()
    return MinimalityReport(tuple(removals), sizes, arch.hidden_widths)


def _removal(network, patterns, domain, neuron):
    """The first removal of ``neuron`` that :func:`same_function` proves (deleted, merged, absorbed), or None.

    One task of :func:`minimality_report`; ``patterns`` are the sign vectors of
    the regions of the network's canonical complex on the domain.
    """
    layer, index = neuron
    options = [("deleted", _without(network, layer, index, None, 0))]
    W, b = network.layers[layer - 1]
    own = (b[index], *W[index])
    for other in range(network.architecture.hidden_widths[layer - 1]):
        ratio = _positive_ratio(own, (b[other], *W[other])) if other != index else None
        if ratio is not None:
            options.append((f"merged into ({layer}, {other})", _without(network, layer, index, other, ratio)))
    relation = _affine_relation(network, patterns, layer, index)
    if relation is not None:  # the most general explanation, tried last
        options.append(("absorbed by the next layer (its output is affine in the others')",
                        _absorbed(network, layer, index, *relation)))
    for how, smaller in options:
        proof = same_function(network, smaller, domain)
        if proof:
            return Removal(neuron, how, smaller, proof)
    return None


def _affine_relation(network, patterns, layer, index):
    """``(α, β)`` with ``a_index = Σ_{i≠index} α_i a_i + β`` for the layer's outputs on every region, or None.

    Each region fixes every output's affine formula (``relu`` of an active
    pre-activation, or 0), so the relation is a linear system over Q with
    ``n0 + 1`` equations per region, solved exactly.
    """
    n0 = network.architecture.input_dim
    others = [i for i in range(network.architecture.hidden_widths[layer - 1]) if i != index]
    start = sum(network.architecture.hidden_widths[: layer - 1])
    rows, rhs = [], []
    for signs in patterns:
        G, g = network.pre_activation_maps(signs)[layer - 1]
        on = signs[start : start + len(g)]

        def output(i):
            return (g[i], *G[i]) if on[i] > 0 else (0,) * (n0 + 1)

        target = output(index)
        for c in range(n0 + 1):
            rows.append([output(i)[c] for i in others] + [int(c == 0)])
            rhs.append(target[c])
    solution = solve(rows, rhs)
    if solution is None:
        return None  # inconsistent: 0 = 1
    alpha = {i: solution[k] for k, i in enumerate(others)}
    return alpha, solution[-1]


def _absorbed(network, layer, index, alpha, beta):
    """The network without ``(layer, index)``, its output ``Σ α_i a_i + β`` taken up by the next layer."""
    Ws = [list(map(list, W)) for W in network.weights]
    bs = [list(b) for b in network.biases]
    for row, bias_index in zip(Ws[layer], range(len(bs[layer]))):
        w = row[index]
        for i, a in alpha.items():
            row[i] += w * a
        bs[layer][bias_index] += w * beta
    return ReLUNetwork(Ws, bs, name=network.name).without_neuron(layer, index)


def _positive_ratio(row, other):
    """``λ > 0`` with ``row = λ · other`` (exact), or None."""
    pivot = next((k for k, v in enumerate(other) if v), None)
    if pivot is None or not row[pivot]:
        return None
    ratio = Fraction(row[pivot]) / Fraction(other[pivot])
    if ratio <= 0 or any(a != ratio * c for a, c in zip(row, other)):
        return None
    return ratio


def _without(network, layer, index, twin, ratio):
    """The network without neuron ``(layer, index)``; its outgoing column goes, times ``ratio``, to ``twin``."""
    if twin is not None:
        Ws = [list(map(list, W)) for W in network.weights]
        for row in Ws[layer]:
            row[twin] += ratio * row[index]  # relu(λ z) = λ relu(z) for the twin's z
        network = ReLUNetwork(Ws, network.biases, name=network.name)
    return network.without_neuron(layer, index)


# -- identifiability ----------------------------------------------------------------------------


@dataclass(frozen=True)
class IdentifiabilityReport:
    """The result of :func:`identifiability_report`: the evidence and the verdict it supports.

    Attributes
    ----------
    verdict : str
        ``"identifiable (theorem conditions hold)"``, ``"locally identifiable (immersion)"``,
        ``"not identifiable"`` or ``"undecided"``.
    evidence : tuple of str
        What the verdict rests on, one line each.
    width_hypothesis : bool
    genericity : GenericityReport
    functional_dimension : FunctionalDimension
    witness : ReLUNetwork or None
        For ``"not identifiable"``: a second parameter computing the same function
        (proved with :func:`~polyrelu.symmetry.same_function`) that is not obtained by
        permutations and positive scalings (:func:`~polyrelu.symmetry.equivalent` is False).
    """

    verdict: str
    evidence: tuple[str, ...]
    width_hypothesis: bool
    genericity: GenericityReport
    functional_dimension: FunctionalDimension
    witness: ReLUNetwork | None = None

    def __str__(self):
        return "\n".join([f"verdict: {self.verdict}", *(f"  - {line}" for line in self.evidence)])

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the witness as a network JSON object)."""
        fd = self.functional_dimension
        return {
            "verdict": self.verdict,
            "evidence": list(self.evidence),
            "width_hypothesis": self.width_hypothesis,
            "genericity": {c.name: c.holds for c in self.genericity.conditions},
            "functional_dimension": {"rank": fd.rank, "bound": fd.bound, "method": fd.method},
            "witness": None if self.witness is None else network_to_dict(self.witness),
        }


def identifiability_report(
    network: ReLUNetwork, domain: Box | Polyhedron | MatrixLike | None = None, *, max_cells: int = 1_000_000
) -> IdentifiabilityReport:
    """Is ``θ`` determined by ``f`` up to permutations and positive scalings? With the evidence (docs/design.md §6).

    The verdicts, strongest evidence first:

    - ``"not identifiable"``: an exact witness, a second parameter with the same
      function that is not trivially equivalent. It is searched among the hidden
      symmetries single neurons show (never active, no outgoing weight, active
      everywhere, twins) and along the exact kernel directions beyond scaling,
      and accepted only when :func:`~polyrelu.symmetry.same_function` proves the
      functions equal and :func:`~polyrelu.symmetry.equivalent` says the
      parameters are not.
    - ``"identifiable (theorem conditions hold)"``: the width hypothesis and all four
      genericity conditions hold (the seed paper's theorem), and the functional
      dimension is ``D − H`` as the theorem implies.
    - ``"locally identifiable (immersion)"``: the functional dimension is ``D − H``,
      so near ``θ`` the parameters modulo scaling map injectively to functions to
      first order; the conditions of the theorem do not all hold.
    - ``"undecided"``: none of the above (e.g. the rank falls short but no exact
      second parameter was found along the kernel directions).

    ``max_cells`` bounds the network's canonical complex as in
    :func:`~polyrelu.complex.canonical_complex`.

    Returns
    -------
    IdentifiabilityReport

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> from polyrelu.examples import generic_network
    >>> identifiability_report(generic_network((2, 3, 2, 1), seed=1)).verdict
    'identifiable (theorem conditions hold)'
    >>> dead = ReLUNetwork([[[1, 0], [0, 1], [0, 0]], [[1, 1, 1]]], [[0, 0, -1], [0]])
    >>> report = identifiability_report(dead)
    >>> report.verdict, report.witness is not None
    ('not identifiable', True)
    """
    require_instance(network, ReLUNetwork, "network", "identifiability_report")
    require_int(max_cells, "max_cells", "identifiability_report", minimum=1)
    arch = network.architecture
    K = canonical_complex(network, domain, max_cells=max_cells)
    generic = genericity(K)
    fd = functional_dimension(network, complex_=K)
    evidence = [
        "width hypothesis (n0 >= 2, hidden widths >= 2): " + ("holds" if arch.width_hypothesis else "fails"),
        "genericity: " + ", ".join(f"{c.name} {'holds' if c.holds else 'fails'}" for c in generic.conditions),
        f"functional dimension {fd.rank} of D - H = {fd.bound} (exact, certified)",
    ]
    witness = _second_parameter(network, K, fd.kernel, domain)
    if witness is not None:
        how, net2 = witness
        evidence.append(
            f"a second parameter ({how}) computes the same function on every region of a common refinement, "
            "and is not a permutation and scaling of θ"
        )
        return IdentifiabilityReport("not identifiable", tuple(evidence), arch.width_hypothesis, generic, fd, net2)
    if _theorem_applies(arch, generic, fd):
        verdict = "identifiable (theorem conditions hold)"
        evidence.append("the seed theorem applies: width hypothesis and the four conditions hold")
    elif fd.attains_bound:
        verdict = "locally identifiable (immersion)"
        evidence.append("rank D - H: to first order, only scalings keep f; the theorem's conditions do not all hold")
    else:
        verdict = "undecided"
        evidence.append(
            f"the rank is {fd.bound - fd.rank} short of D - H, but no step along the {len(fd.kernel)} kernel "
            "directions gave an exact second parameter"
        )
    return IdentifiabilityReport(verdict, tuple(evidence), arch.width_hypothesis, generic, fd)


def _theorem_applies(arch, generic, fd):
    """The seed theorem's conditions, and the rank ``D − H`` it implies (a consistency check)."""
    return arch.width_hypothesis and generic.holds and fd.attains_bound


@dataclass(frozen=True)
class SurveyResult:
    """Fractions over random parameters of one architecture (see :func:`architecture_survey`)."""

    architecture: Architecture
    samples: int
    generic: int
    full_rank: int
    identifiable: int
    ranks: tuple[int, ...]

    def row(self) -> str:
        """``generic / full rank / identifiable`` as percentages, for tables."""
        pct = lambda k: f"{100 * k / self.samples:.0f}%"  # noqa: E731
        return f"{pct(self.generic)} / {pct(self.full_rank)} / {pct(self.identifiable)}"


def architecture_survey(
    architecture: Architecture | Sequence[int],
    samples: int = 20,
    seed: int = 0,
    kind: Literal["gaussian", "integer"] = "gaussian",
    *,
    n_jobs: int | None = None,
    scheduler: str | None = None,
) -> SurveyResult:
    """Over random parameters: how often the four conditions hold, the rank is ``D − H``, the theorem applies.

    Parameters are :meth:`~polyrelu.network.ReLUNetwork.random` draws with seeds
    ``seed, seed + 1, ...``. "Identifiable" counts the draws for which
    :func:`identifiability_report` would say ``"identifiable (theorem
    conditions hold)"``; the exact functional dimension of every draw is kept in
    ``ranks``.

    The draws are independent tasks, each with its own seed, run in parallel as
    :func:`~polyrelu.parallel.parallel_map` decides with ``n_jobs`` (``1``:
    serial; ``None``: every core once the survey is long enough) and
    ``scheduler`` (a Dask scheduler address); the result is the same for every
    choice (docs/parallel.md).

    Examples
    --------
    >>> result = architecture_survey((2, 2, 1), samples=5)
    >>> result.samples, result.ranks
    (5, (7, 7, 7, 7, 7))
    """
    caller = "architecture_survey"
    arch = require_architecture(architecture, "architecture", caller)
    samples = require_int(samples, "samples", caller, minimum=1)
    seed = require_int(seed, "seed", caller, minimum=0)
    require_choice(kind, ("gaussian", "integer"), "kind", caller)
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, caller)
    seeds = [seed + k for k in range(samples)]
    draws = parallel_map(partial(_survey_draw, arch, kind), seeds, n_jobs=n_jobs, scheduler=scheduler,
                         desc="draws", names=[f"draw {k} (seed {s})" for k, s in enumerate(seeds)])
    generic, full, theorem, ranks = zip(*draws)
    return SurveyResult(arch, samples, sum(generic), sum(full), sum(theorem), ranks)


def _survey_draw(arch, kind, seed):
    """One draw of :func:`architecture_survey`: (conditions hold, rank ``D − H``, theorem applies, rank)."""
    net = ReLUNetwork.random(arch, seed=seed, kind=kind)
    K = canonical_complex(net)
    report = genericity(K)
    fd = functional_dimension(net, complex_=K, kernel=False)
    return report.holds, fd.attains_bound, _theorem_applies(arch, report, fd), fd.rank


def _second_parameter(network, K, kernel, domain):
    """``(how, network')`` computing the same function, not trivially equivalent; or None.

    Candidates, each checked exactly: the hidden symmetries that single neurons
    show on the complex (a neuron never active: double its outgoing weights; a
    neuron whose outgoing weights vanish: shift its bias; a neuron active on
    every region: raise its bias and take the shift off the next layer's biases;
    twins: move outgoing weight from one to the other), then steps ``θ + t·k``
    along the exact kernel directions beyond scaling.
    """
    def attempts():
        arch = network.architecture
        signs = [r.signs for r in K.regions()]
        for k, (l, i) in enumerate(arch.hidden_neurons()):
            Ws = [list(map(list, W)) for W in network.weights]
            bs = [list(b) for b in network.biases]
            if all(s[k] <= 0 for s in signs):
                for row in Ws[l]:
                    row[i] *= 2
                yield f"neuron {(l, i)} is never active: its outgoing weights doubled", Ws, bs
            elif not any(row[i] for row in Ws[l]):
                bs[l - 1][i] -= 1
                yield f"neuron {(l, i)} has no outgoing weight: its bias lowered by 1", Ws, bs
            elif all(s[k] > 0 for s in signs):
                bs[l - 1][i] += 1
                bs[l] = [b - row[i] for b, row in zip(bs[l], Ws[l])]
                yield f"neuron {(l, i)} is active on every region: its bias raised by 1, the next layer compensates", Ws, bs
            W, b = network.layers[l - 1]
            for j in range(arch.hidden_widths[l - 1]):
                ratio = _positive_ratio((b[i], *W[i]), (b[j], *W[j])) if j != i else None
                if ratio is not None:
                    Ws2 = [list(map(list, W_)) for W_ in network.weights]
                    for row in Ws2[l]:
                        row[i] += 1
                        row[j] -= ratio
                    yield f"neurons {(l, i)} and {(l, j)} are twins: outgoing weight moved between them", Ws2, bs
        theta = network.parameters()
        for n, direction in enumerate(kernel):
            for step in (Fraction(1, 64), Fraction(-1, 64), Fraction(1, 4096)):
                moved = ReLUNetwork.from_parameters(network.architecture, [a + step * d for a, d in zip(theta, direction)])
                yield f"θ + {step}·k{n}, k{n} an exact kernel direction beyond scaling", moved.weights, moved.biases

    for how, Ws, bs in attempts():
        other = ReLUNetwork(Ws, bs, name=f"{network.name or 'network'}, {how}")
        if same_function(network, other, domain) and not equivalent(network, other):
            return how, other
    return None
