"""The exact functional dimension of a ReLU network at its parameters (docs/design.md §6).

On a region ``R`` of the canonical complex, ``f(x) = A_R(θ) x + c_R(θ)`` with
``A_R``, ``c_R`` polynomial in the parameters ``θ``. The functional dimension at
``θ`` is the rank of the Jacobian of ``θ ↦ (A_R(θ), c_R(θ))_R`` over all
regions; it is at most ``D − H`` (#parameters − #hidden neurons), because
rescaling a neuron's incoming and outgoing weights does not move ``f``.

The rank is decided exactly, with a certificate both ways, the upper bound
first:

- the upper bound ``u = D − k``: ``k`` kernel vectors, independent modulo a
  prime (hence over Q). The ``H`` scaling directions are kernel vectors by the
  positive homogeneity of relu; the unit vectors of zero columns, local
  vectors, those of neurons active on every region and paired ones
  (:mod:`~polyrelu.identifiability._kernel`) join them, each checked against
  the Jacobian in integers;
- the matching lower bound: the ``k`` vectors are fixed by their entries on
  ``k`` pivot columns, so the rank is ``u`` exactly when the other ``u``
  columns of the integer-scaled Jacobian are independent, which the rank
  modulo the prime of combinations of their rows certifies (a minor that is
  non-zero modulo ``p`` is non-zero over the integers, and combinations of
  rows stay in the row space). When that falls short, the echelon form modulo
  the prime of dense random combinations of all the rows gives the rank, and
  the kernel vectors still missing are solved exactly on their support in it.

:func:`float_functional_dimension` is the float fast path (SVD rank), named as
such and never the default.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

import numpy as np

from ..checks import require_bool, require_instance, require_real, require_sequence
from ..complex import CanonicalComplex, canonical_complex, check_complex_of
from ..domain import Box
from ..errors import GeometryError
from ..geometry import Polyhedron
from ..geometry.linalg import echelon_pivots, pivot_columns
from ..geometry.modular import modular_echelon, modular_rank_profile, residue
from ..geometry.rational import FractionVector, MatrixLike, to_fraction_vector
from ..network import ReLUNetwork
from ..parallel import (
    SERIAL_SECONDS,
    check_parallel_arguments,
    one_blas_thread,
    parallel_map,
    worker_count,
)
from ._jacobian import (
    compressed_jacobian,
    integer_layers,
    jacobian,
    jacobian_columns,
    jacobian_factors,
    nonzero_columns,
    parameter_position,
    sparse_compressed_columns,
)
from ._kernel import (
    independent_rows,
    local_kernel,
    paired_kernel,
    sparse_kernel,
    stable_kernel,
)
from ._parameters import offsets

__all__ = [
    "FunctionalDimension",
    "functional_dimension",
    "batch_functional_dimension",
    "float_functional_dimension",
    "scaling_directions",
]

# below 2^20, as compressed_jacobian's exact float64 products need
_PRIMES = (1048573, 1048571, 1048559)
# rows × columns × min(rows, columns) per second of flint's reduced echelon form modulo a small prime
# (measured: a 5952 × 1185 Jacobian of rank 922 in 1.7 s, one thread on a loaded machine), to tell when
# functional_dimension is long enough for workers
_ECHELON_RATE = 5e9


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
    J = jacobian(network, patterns, layers)
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
    theta = network.parameters()
    out = []
    for incoming, outgoing in _scaling_positions(arch.widths):
        vec = [Fraction(0)] * arch.num_parameters
        for j in incoming:
            vec[j] = theta[j]
        for j in outgoing:
            vec[j] = -theta[j]
        out.append(tuple(vec))
    return tuple(out)


def _scaling_positions(widths):
    """Per hidden neuron, in order: the positions of its incoming row and bias, and of its outgoing weights."""
    positions = offsets(widths)
    out = []
    for l, n in enumerate(widths[1:-1], start=1):
        p = widths[l - 1]
        (w_off, b_off), (nw_off, _) = positions[l - 1], positions[l]
        for i in range(n):
            out.append(([w_off + i * p + j for j in range(p)] + [b_off + i], [nw_off + r * n + i for r in range(widths[l + 1])]))
    return out


# -- the certificate ----------------------------------------------------------------------------


@one_blas_thread()  # many small products, and the complex is built so too: parallel work is done by processes
def _certified_rank(network, patterns, want_kernel, n_jobs=1, scheduler=None):
    arch = network.architecture
    widths = arch.widths
    D, H = arch.num_parameters, arch.num_hidden
    layers, scales = integer_layers(network)
    # J = J_true · diag(s): the column of a layer-l parameter carries the product of the other layers' scales
    total = math.prod(scales)
    column_scale = [total // scales[l] for l, (p, n) in enumerate(zip(widths, widths[1:])) for _ in range(n * (p + 1))]
    # the patterns as one array, once: every stage reads them as an array, and converting tuples costs more than a stage
    patterns = np.array(patterns, dtype=np.int8).reshape(len(patterns), H)
    factors = jacobian_factors(network, patterns, layers) if len(patterns) else None  # exact, for every prime

    rows = len(patterns) * arch.output_dim * (arch.input_dim + 1)
    batches = min(_echelon_batches(rows, D, n_jobs, scheduler), len(patterns))
    for p in _PRIMES:
        if total % p == 0:
            continue  # a column scale vanishes modulo p
        reduced = [(Lz % p).astype(np.int64) for Lz in layers]
        modular = jacobian_factors(network, patterns, reduced, modulus=p) if len(patterns) else None
        compressed = None  # rows spanning J's row space modulo p, from the workers' echelon forms
        if batches > 1:
            # the row space of J is the sum of those of its batches of regions, and a reduced echelon form
            # depends on the row space alone: the same echelon form as from J itself, without J
            cut = np.linspace(0, len(patterns), batches + 1).astype(int).tolist()
            parts = parallel_map(partial(_echelon_rows, network, reduced, p), [patterns[a:b] for a, b in zip(cut, cut[1:])],
                                 n_jobs=n_jobs, scheduler=scheduler, names=[f"regions {a} to {b - 1}" for a, b in zip(cut, cut[1:])])
            compressed = np.concatenate(parts)
        # the upper bound first: kernel vectors known by theory (the scaling directions, residues modulo p) and
        # exact verified ones, of which the independent ones modulo p (hence over Q) bound the rank by D − their number
        # θ_j / c_j = (c_l θ_j) / Π_l c_l: the integer layers' entries over the product of the scales, modulo p (W_l
        # row-major, then b_l, as the parameters)
        theta = np.concatenate([part for Lz in reduced for part in (Lz[1:, 1:].ravel(), Lz[1:, 0])]) * pow(total % p, -1, p) % p
        known = np.zeros((H, D), dtype=np.int64)
        for k, (incoming, outgoing) in enumerate(_scaling_positions(widths)):
            known[k, incoming] = theta[incoming]
            known[k, outgoing] = (p - theta[outgoing]) % p
        found = _kernel_families(network, patterns, factors, modular, column_scale, p)
        residues = np.concatenate([known, _residue_rows(found, D, p)])
        chosen, pivots = _kernel_pivots(residues, p)
        independent = len(chosen)
        # the lower bound: the kernel vectors are fixed by their entries on the pivots, so J has rank D − independent
        # exactly when its other columns are independent; the rank modulo p of combinations of their rows decides
        outside = [j for j in range(D) if j not in pivots]
        if _independent_columns(network, patterns, modular, compressed, outside, p):
            rank = len(outside)
        else:
            # an unlucky sketch, or kernel vectors the families miss: J's echelon form modulo p, and the kernel
            # vectors still missing solved from it
            rows_modulo_p = partial(jacobian, network, patterns, reduced, modulus=p)
            if compressed is None and len(patterns):
                J_mod = rows_modulo_p()
                rows_modulo_p = partial(np.asarray, J_mod)
                sketch_rows = max(1, min(len(J_mod), D - independent))  # the rank is at most that
                compressed = compressed_jacobian(J_mod, p, sketch_rows) if len(J_mod) > sketch_rows else J_mod
            echelon, rank = modular_echelon(compressed, p) if compressed is not None else (None, 0)
            solved = _missing_kernel(network, factors, rows_modulo_p, found, residues, echelon, rank, p)
            if solved is None:
                continue  # an unlucky prime or sketch: the rank modulo p was below the rank over Q
            found = solved
        extra = ()
        if want_kernel and found:
            # the found vectors that extend a basis of span(known), chosen greedily in order by independence modulo p
            # (all of them when all the vectors are independent, as found above)
            if len(found) + H > len(residues):  # the fallback added vectors: choose again
                chosen, _ = _kernel_pivots(np.concatenate([known, _residue_rows(found, D, p)]), p)
            beyond = [found[k - H] for k in chosen if k >= H]
            extra = tuple(_dense_direction(vec, column_scale) for vec in beyond)
        return FunctionalDimension(rank, D - H, D, H, len(patterns), "exact", p, extra)
    raise GeometryError(f"no rank certificate for {network.name or 'the network'} with the primes tried")


def _dense_direction(vector, column_scale):
    """A kernel vector of ``J`` given as ``{column: value}``, as a parameter direction: every entry, times its column's scale."""
    out = [Fraction(0)] * len(column_scale)
    for j, v in vector.items():
        out[j] = Fraction(v) * column_scale[j]
    return tuple(out)


def _kernel_pivots(residues, p):
    """``(rows, pivots)``: the rows independent of the rows before them modulo ``p``, and columns on which they have a non-singular minor.

    One elimination of the transpose: its column rank profile is the greedy
    choice of rows, the rows it pivots on are the columns.
    """
    profile = modular_rank_profile(residues.T, p)
    return profile.columns, set(profile.rows)


def _residue_rows(vectors, D, p):
    """The vectors given as ``{column: value}`` (ints or Fractions), as rows of residues modulo ``p``."""
    out = np.zeros((len(vectors), D), dtype=np.int64)
    for k, vector in enumerate(vectors):
        for j, v in vector.items():
            out[k, j] = residue(v, p)
    return out


def _kernel_families(network, patterns, factors, modular, column_scale, p):
    """Exact kernel vectors of ``J`` known without a large solve, as ``{column: value}``: unit vectors of zero columns first.

    The zero columns (parameters that move nothing), the local vectors
    (:func:`~polyrelu.identifiability._kernel.local_kernel`), those of
    the neurons active on every region
    (:func:`~polyrelu.identifiability._kernel.stable_kernel`) and the paired
    ones (:func:`~polyrelu.identifiability._kernel.paired_kernel`), each
    checked exactly.
    """
    D = len(column_scale)
    if not len(patterns):
        return [{j: 1} for j in range(D)]
    widths = network.architecture.widths
    # a column non-zero modulo a prime is non-zero
    maybe_zero = [j for j, moves in enumerate(nonzero_columns(widths, modular)) if not moves]
    inactive = _never_active_columns(widths, patterns, maybe_zero)
    rest = [j for j in maybe_zero if j not in inactive]
    zero = sorted(inactive | {j for j, column in zip(rest, jacobian_columns(widths, factors, rest).T) if not any(column)})
    found = [{j: 1} for j in zero]
    found += local_kernel(network, patterns, factors, p, frozenset(zero), modular)
    found += stable_kernel(network, patterns, column_scale)
    found += paired_kernel(network, patterns, factors, p, modular)
    # the same direction comes from several families (a weight that moves nothing is a local vector of the neuron
    # it feeds and of the neuron it reads): the first of each is kept, which the greedy choices below would take
    distinct, seen = [], set()
    for vector in found:
        first = Fraction(vector[min(vector)])
        key = tuple((c, Fraction(v) / first) for c, v in sorted(vector.items()))
        if key not in seen:
            seen.add(key)
            distinct.append(vector)
    return distinct


def _never_active_columns(widths, patterns, columns):
    """The ``columns`` of ``J`` that vanish because no region has both the parameter's neuron and its input active.

    Column ``(l, i, q)`` of :func:`~polyrelu.identifiability._jacobian.jacobian`
    is ``P_l[:, :, 1 + i] ⊗ Q_l[q, :]``, and the factors carry the masks:
    ``P_l[R, :, 1 + i]`` is zero where neuron ``i`` of hidden layer ``l + 1`` is
    inactive, ``Q_l[R, q, :]`` where neuron ``q − 1`` of hidden layer ``l`` is
    (the output layer's neurons and the constant ``q = 0`` are never masked).
    A column whose two masks never hold together is zero exactly, from the
    activation patterns alone; the others need the factors.
    """
    L = len(widths) - 1
    signs = np.array(patterns, dtype=int).reshape(len(patterns), -1) > 0
    first_neuron = np.cumsum([0, *widths[1:-1]]).tolist()
    always = np.ones(len(patterns), dtype=bool)
    out = set()
    for c in columns:
        l, i, q = parameter_position(widths, c)
        reader = signs[:, first_neuron[l] + i] if l < L - 1 else always
        source = signs[:, first_neuron[l - 1] + q - 1] if l >= 1 and q >= 1 else always
        if not (reader & source).any():
            out.add(c)
    return out


def _independent_columns(network, patterns, modular, compressed, columns, p):
    """Whether ``J``'s ``columns`` have full rank modulo ``p``, by the rank of combinations of their rows.

    The combinations: ``compressed`` (rows spanning ``J``'s row space) if
    given, else a sparse sketch of ``J``'s columns modulo ``p``
    (:func:`~polyrelu.identifiability._jacobian.sparse_compressed_columns`, a
    few more rows than columns, from the factors without forming ``J``). Either is a true image of ``J``: True
    certifies that the columns are independent over Q.
    """
    if not columns:
        return True
    if not len(patterns):
        return False
    if compressed is None:
        widths = network.architecture.widths
        if len(patterns) * widths[-1] * (widths[0] + 1) > len(columns) + 8:
            compressed = sparse_compressed_columns(widths, modular, columns, p, len(columns) + 8)
        else:
            compressed = jacobian_columns(widths, modular, columns) % p
    else:
        compressed = compressed[:, columns]
    return len(compressed) >= len(columns) and modular_rank_profile(compressed, p).rank == len(columns)


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
    J_mod = jacobian(network, patterns, reduced_layers, modulus=p)
    echelon, rank = modular_echelon(J_mod, p)
    D = J_mod.shape[1]
    if not rank:
        return np.zeros((0, D), dtype=np.int64)
    return np.array([int(v) for v in echelon.entries()[: rank * D]], dtype=np.int64).reshape(rank, D)


def _missing_kernel(network, factors, rows_modulo_p, found, residues, echelon, rank, p):
    """The kernel vectors ``found``, completed to a kernel basis of ``J`` from its echelon form modulo ``p``; or None.

    ``echelon`` is the reduced echelon form modulo ``p`` of combinations of
    ``J``'s rows (``rank`` rows); when it has ``J``'s rank modulo ``p`` it is
    ``J``'s own echelon form, and a kernel vector modulo ``p`` is determined
    by its entries on the *free* coordinates (the non-pivot columns).
    ``residues`` are those of the known kernel vectors (the scaling directions,
    kernel vectors by theory) and then of ``found`` (exact and verified). If
    their projections onto the free coordinates fall short of rank
    ``D − rank`` modulo ``p``, each missing free coordinate ``c`` gets the
    kernel vector equal to ``e_c`` on the free coordinates, solved exactly on
    its support in the echelon form (all pivots if that fails) from rows of
    ``J`` modulo ``p`` (``rows_modulo_p()``, built only then) and verified
    against every row of ``J`` in integers
    (:func:`~polyrelu.identifiability._kernel.sparse_kernel`). All together
    they have rank ``D − rank`` modulo ``p``, hence over Q: the rank of ``J``
    is at most ``rank``. Returns ``found`` with the new vectors after it, or
    None.
    """
    widths = network.architecture.widths
    D = residues.shape[1]
    pivots = echelon_pivots(echelon, rank) if rank else []
    pivot_set = set(pivots)
    free = [j for j in range(D) if j not in pivot_set]
    covered = set(pivot_columns(residues[:, free].tolist(), modulus=p)) if len(residues) and free else set()
    missing = [free[k] for k in range(len(free)) if k not in covered]
    if not missing:
        return found
    if factors is None:
        return None  # no regions: every column is zero and has its unit vector
    found = list(found)
    J_mod = rows_modulo_p()
    supports = [[c for i, c in enumerate(pivots) if int(echelon[i, column])] for column in missing]
    # rows independent modulo p on the pivots the supports meet: every square system is chosen among them
    union = sorted({c for support in supports for c in support})
    rows = independent_rows(J_mod[:, union], None, p) if union else []
    failed = []
    for column, support in zip(missing, supports):
        (vector,) = sparse_kernel(widths, factors, J_mod, support, [column], p, rows)
        if vector is None:
            failed.append(column)
        else:
            found.append(vector)
    if failed:
        solved = sparse_kernel(widths, factors, J_mod, pivots, failed, p, independent_rows(J_mod[:, pivots], None, p))
        if any(vector is None for vector in solved):
            return None
        found.extend(solved)
    return found
