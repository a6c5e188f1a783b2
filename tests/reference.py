"""Reference implementations the tests compare polyrelu with.

A reference implementation computes what a package function should compute, written again
so that it shares no code path with the package: ``Fraction`` arithmetic spelled out entry
by entry, exact LPs and double descriptions asked of ``cdd.gmp`` directly, enumeration by
brute force. It is meant to be simple enough to be obviously right, not fast: the tests
run it on small cases only. Nothing here imports polyrelu, so a bug in the package cannot
reach the answer it is checked against; networks are read through their exact weights
and biases only (nested sequences of numbers ``Fraction`` accepts).

What lives here, by subject:

* exact linear algebra: :func:`dot`, :func:`affine_value`, :func:`apply_affine`,
  :func:`rank`, :func:`euler_characteristic`;
* networks: :func:`pre_activations`, :func:`forward`, :func:`sign`, :func:`sign_vector`,
  and the hypothesis strategy :func:`raw_networks` that draws parameters as plain lists;
* cells of the canonical complex: :func:`pre_activation_rows`, :func:`sign_class_nonempty`,
  :func:`brute_force_cells`, :func:`closure_rows`, :func:`in_closure`;
* polyhedra: :func:`cdd_lp`, :func:`dd_generators`, :func:`polyhedron_dimension`,
  :func:`implicit_rows`, :func:`in_convex_hull`, :func:`polygon_area`;
* topology: :func:`order_complex` (the chains of a complex's face poset, from sign
  vectors) and :func:`gf2_betti_numbers` (simplicial homology over GF(2), no orientations);
* graphs: :func:`same_typed`, :func:`assert_same_graph`.

Test files import these as ``from reference import ...`` (pytest puts ``tests/`` on
``sys.path``, as it does for the ``hostile`` package). Helpers that build test cases, or
that check one file's answers in that file's own terms (LP certificates, tampered exports),
stay in their test files.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from fractions import Fraction

import cdd
import cdd.gmp
from hypothesis import strategies as st

__all__ = [
    "affine_value",
    "apply_affine",
    "assert_same_graph",
    "brute_force_cells",
    "cdd_lp",
    "closure_rows",
    "dd_generators",
    "dot",
    "euler_characteristic",
    "forward",
    "gf2_betti_numbers",
    "implicit_rows",
    "in_closure",
    "in_convex_hull",
    "order_complex",
    "polygon_area",
    "polyhedron_dimension",
    "pre_activation_rows",
    "pre_activations",
    "rank",
    "raw_networks",
    "same_typed",
    "sign",
    "sign_class_nonempty",
    "sign_vector",
]

Row = Sequence  # an affine row (c, a_1, ..., a_n), meaning c + a.x


# -----------------------------------------------------------------------------------------
# Exact linear algebra
# -----------------------------------------------------------------------------------------
def dot(a: Sequence, x: Sequence) -> Fraction:
    """``sum_i a_i x_i`` in exact arithmetic.

    Examples
    --------
    >>> dot([1, 2], ["1/2", 3])
    Fraction(13, 2)
    """
    return sum((Fraction(ai) * Fraction(xi) for ai, xi in zip(a, x, strict=True)), Fraction(0))


def affine_value(row: Row, x: Sequence) -> Fraction:
    """The value ``c + a.x`` of the affine row ``(c, a_1, ..., a_n)`` at ``x``.

    Examples
    --------
    >>> affine_value((1, 2, -1), (3, 4))
    Fraction(3, 1)
    """
    return Fraction(row[0]) + dot(row[1:], x)


def apply_affine(A: Sequence[Sequence], b: Sequence, x: Sequence) -> tuple[Fraction, ...]:
    """``A x + b`` as a tuple of Fractions, one entry per row of ``A``.

    Examples
    --------
    >>> apply_affine([[1, 0], [1, 1]], [0, -1], [2, 3])
    (Fraction(2, 1), Fraction(4, 1))
    """
    return tuple(dot(row, x) + Fraction(bi) for row, bi in zip(A, b, strict=True))


def rref(rows: Sequence[Sequence], ncols: int, p: int | None = None) -> tuple[list[int], list[list]]:
    """``(pivots, rows)``: the reduced row echelon form by Gauss-Jordan elimination, over Q or over Z/p.

    Independent of polyrelu's echelon forms (which use flint): plain row operations,
    the pivot the first non-zero entry of a column.

    Examples
    --------
    >>> rref([(2, 4), (1, 3)], 2)[0], rref([(2, 4)], 2)[1]
    ([0, 1], [[Fraction(1, 1), Fraction(2, 1)]])
    >>> rref([(1, 1), (1, 4)], 2, p=3)[0]
    [0]
    """
    if p is None:
        M = [[Fraction(v) for v in row] for row in rows]

        def inverse(v):
            return 1 / v
    else:
        M = [[Fraction(v).numerator * pow(Fraction(v).denominator, -1, p) % p for v in row] for row in rows]

        def inverse(v):
            return pow(v, -1, p)

    def normal(v):
        return v if p is None else v % p

    pivots, r = [], 0
    for c in range(ncols):
        k = next((i for i in range(r, len(M)) if M[i][c] != 0), None)
        if k is None:
            continue
        M[r], M[k] = M[k], M[r]
        scale = inverse(M[r][c])
        M[r] = [normal(v * scale) for v in M[r]]
        for i in range(len(M)):
            if i != r and M[i][c] != 0:
                factor = M[i][c]
                M[i] = [normal(a - factor * b) for a, b in zip(M[i], M[r])]
        pivots.append(c)
        r += 1
    return pivots, M[:r]


def rank(vectors: Iterable[Sequence], p: int | None = None) -> int:
    """The rank of a list of vectors over Q (or Z/p), by :func:`rref`.

    Examples
    --------
    >>> rank([(1, 2), (2, 4)]), rank([(1, 0), (0, 1), (1, 1)]), rank([])
    (1, 2, 0)
    """
    rows = [list(v) for v in vectors]
    return len(rref(rows, len(rows[0]) if rows else 0, p)[0])


def kernel(rows: Sequence[Sequence], ncols: int) -> list[tuple[Fraction, ...]]:
    """The reduced echelon basis of ``{x : rows · x = 0}``: ``e_f - Σ_r R[r][f] e_pivot(r)`` per free column ``f``.

    Examples
    --------
    >>> kernel([(1, 1)], 2)
    [(Fraction(-1, 1), Fraction(1, 1))]
    """
    pivots, R = rref(rows, ncols)
    basis = []
    for f in (c for c in range(ncols) if c not in pivots):
        vec = [Fraction(int(c == f)) for c in range(ncols)]
        for row, c in zip(R, pivots):
            vec[c] = -row[f]
        basis.append(tuple(vec))
    return basis


def solve(rows: Sequence[Sequence], rhs: Sequence) -> tuple[Fraction, ...] | None:
    """One exact solution of ``rows · x = rhs`` (free unknowns zero), or None when there is none.

    Examples
    --------
    >>> solve([(1, 1), (1, -1)], [2, 0]), solve([(1, 1), (1, 1)], [1, 2])
    ((Fraction(1, 1), Fraction(1, 1)), None)
    """
    ncols = len(rows[0])
    pivots, reduced = rref([[*r, b] for r, b in zip(rows, rhs)], ncols + 1)
    if ncols in pivots:
        return None
    x = [Fraction(0)] * ncols
    for row, c in zip(reduced, pivots):
        x[c] = row[-1]
    return tuple(x)


def euler_characteristic(dimensions: Iterable[int]) -> int:
    """``sum (-1)^dim`` over the cells of a complex, given their dimensions.

    Examples
    --------
    >>> euler_characteristic([0, 0, 1])  # a segment
    1
    """
    return sum((-1) ** d for d in dimensions)


# -----------------------------------------------------------------------------------------
# Networks
# -----------------------------------------------------------------------------------------
def sign(v) -> int:
    """``1``, ``-1`` or ``0``: the sign of a number."""
    return (v > 0) - (v < 0)


def pre_activations(weights: Sequence, biases: Sequence, x: Sequence) -> tuple[tuple[Fraction, ...], ...]:
    """The hidden pre-activations at ``x``, one tuple per hidden layer.

    Written entry by entry from the raw parameters (the last layer is the affine output and
    has no pre-activation here); no matrix code of the package is involved.

    Examples
    --------
    >>> pre_activations([[[1, 0], [0, 1]], [[1, 1]]], [[0, -1], [0]], [2, -3])
    ((Fraction(2, 1), Fraction(-4, 1)),)
    """
    a = [Fraction(v) for v in x]
    out = []
    for W, b in list(zip(weights, biases, strict=True))[:-1]:
        z = apply_affine(W, b, a)
        out.append(z)
        a = [max(v, Fraction(0)) for v in z]
    return tuple(out)


def forward(weights: Sequence, biases: Sequence, x: Sequence) -> tuple[Fraction, ...]:
    """The network's value ``f(x)``: ReLU after every layer but the last, in Fractions.

    Examples
    --------
    >>> forward([[[1, 0], [0, 1]], [[1, 1]], [[1]]], [[0, 0], [-1], [0]], [2, "1/2"])
    (Fraction(3, 2),)
    """
    hidden = pre_activations(weights, biases, x)
    a = [max(v, Fraction(0)) for v in hidden[-1]] if hidden else [Fraction(v) for v in x]
    return apply_affine(weights[-1], biases[-1], a)


def sign_vector(weights: Sequence, biases: Sequence, x: Sequence) -> tuple[int, ...]:
    """The signs of all hidden pre-activations at ``x``, layer by layer, as ``-1, 0, 1``.

    Examples
    --------
    >>> sign_vector([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]], [0, -1])
    (0, -1)
    """
    return tuple(sign(v) for layer in pre_activations(weights, biases, x) for v in layer)


@st.composite
def raw_networks(draw, min_depth=0, max_depth=3, max_width=4, values=st.integers(-3, 3)):
    """A hypothesis strategy: ``(widths, weights, biases)`` as plain nested lists.

    The parameters are drawn as the numbers ``values`` gives, so that a test can build a
    network from them and compare it with the reference functions above, which read the
    same lists: neither side goes through the other.
    """
    depth = draw(st.integers(min_depth, max_depth))
    widths = tuple(draw(st.lists(st.integers(1, max_width), min_size=depth + 2, max_size=depth + 2)))
    weights = [[[draw(values) for _ in range(p)] for _ in range(n)] for p, n in zip(widths, widths[1:])]
    biases = [[draw(values) for _ in range(n)] for n in widths[1:]]
    return widths, weights, biases


# -----------------------------------------------------------------------------------------
# Cells of the canonical complex, by brute force over sign vectors
# -----------------------------------------------------------------------------------------
def pre_activation_rows(weights: Sequence, biases: Sequence, pattern: Sequence[int]) -> list[tuple[Fraction, ...]]:
    """Affine rows ``(c, a_1, ..., a_n0)`` of every hidden pre-activation, valid on the sign class of ``pattern``.

    On the set of inputs with the sign vector ``pattern`` every neuron with sign ``+`` passes
    its pre-activation on and every other neuron passes 0, so each pre-activation is an
    affine function there; this composes those functions symbolically, row by row.
    ``pattern`` may be a prefix: the row of neuron ``k`` only reads the entries of earlier
    layers, and an entry that is missing counts as inactive.

    Examples
    --------
    >>> rows = pre_activation_rows([[[1, 0], [0, 1]], [[1, 1]], [[1]]], [[0, 0], [-1], [0]], (1, -1))
    >>> [tuple(map(int, r)) for r in rows]  # x1, x2, then relu(x1) + 0 - 1 where x1 > 0 > x2
    [(0, 1, 0), (0, 0, 1), (-1, 1, 0)]
    """
    n0 = len(weights[0][0])
    zero = (Fraction(0),) * (n0 + 1)
    post = [tuple(Fraction(int(c == i + 1)) for c in range(n0 + 1)) for i in range(n0)]  # a_0 = x
    rows, k = [], 0
    for W, b in list(zip(weights, biases, strict=True))[:-1]:
        layer = []
        for Wi, bi in zip(W, b):
            row = [sum((Fraction(w) * p[c] for w, p in zip(Wi, post)), Fraction(0)) for c in range(n0 + 1)]
            row[0] += Fraction(bi)
            layer.append(tuple(row))
        rows.extend(layer)
        post = [r if k + i < len(pattern) and pattern[k + i] > 0 else zero for i, r in enumerate(layer)]
        k += len(layer)
    return rows


def sign_class_nonempty(n: int, strict: Sequence[Row], equal: Sequence[Row]) -> bool:
    """Whether ``{x in Q^n : r(x) > 0 for r in strict, e(x) = 0 for e in equal}`` is non-empty.

    One exact LP with ``cdd.gmp``: maximise ``t`` subject to ``r(x) >= t``, ``t <= 1``,
    ``e(x) = 0``; the set is non-empty iff the LP is feasible with optimum ``t > 0``.
    """
    rows = [(1,) + (0,) * n + (-1,)]
    rows += [tuple(r) + (-1,) for r in strict]
    rows += [tuple(e) + (0,) for e in equal]
    mat = cdd.gmp.matrix_from_array(
        rows,
        lin_set=set(range(1 + len(strict), len(rows))),
        rep_type=cdd.RepType.INEQUALITY,
        obj_type=cdd.LPObjType.MAX,
        obj_func=(0,) * (n + 1) + (1,),
    )
    lp = cdd.gmp.linprog_from_matrix(mat)
    cdd.gmp.linprog_solve(lp)
    if lp.status == cdd.LPStatusType.INCONSISTENT:
        return False
    assert lp.status == cdd.LPStatusType.OPTIMAL, lp.status
    return lp.obj_value > 0


def brute_force_cells(weights: Sequence, biases: Sequence, domain_rows: Sequence[Row] = ()) -> dict:
    """Every non-empty sign class, by exact LP: ``{(domain_signs, signs): dimension}``.

    Walks all of ``{+,0}^(domain facets) x {+,-,0}^H`` depth first; a sign vector is
    skipped only when a prefix of it already has an empty class (every extension of an
    empty class is empty). The dimension of a non-empty class is ``n0`` minus the rank of
    its equations, since its strict inequalities cut an open subset of their solution set.
    Nothing of the package's cell construction is used: the rows come from
    :func:`pre_activation_rows`, emptiness from :func:`sign_class_nonempty`.

    Examples
    --------
    >>> cells = brute_force_cells([[[1]], [[1]]], [[0], [0]])  # relu(x) on the line
    >>> sorted(cells.items())
    [(((), (-1,)), 1), (((), (0,)), 0), (((), (1,)), 1)]
    """
    n0 = len(weights[0][0])
    H = sum(len(W) for W in weights[:-1])
    found = {}

    def visit(dom, signs, strict, equal):
        if not sign_class_nonempty(n0, strict, equal):
            return
        if len(dom) < len(domain_rows):
            row = domain_rows[len(dom)]
            visit(dom + (1,), signs, strict + [row], equal)
            visit(dom + (0,), signs, strict, equal + [row])
            return
        if len(signs) == H:
            found[(dom, signs)] = n0 - rank([e[1:] for e in equal])
            return
        row = pre_activation_rows(weights, biases, signs)[len(signs)]
        visit(dom, signs + (1,), strict + [row], equal)
        visit(dom, signs + (-1,), strict + [tuple(-v for v in row)], equal)
        visit(dom, signs + (0,), strict, equal + [row])

    visit((), (), [], [])
    return found


def closure_rows(weights, biases, signs, domain_signs=(), domain_rows=()) -> tuple[list, list]:
    """``(ieqs, eqns)`` of the closure of the sign class ``(domain_signs, signs)``.

    Each strict sign becomes a non-strict inequality and each zero an equation, on the
    rows of :func:`pre_activation_rows` and the domain's rows.
    """
    ieqs, eqns = [], []
    for row, s in zip(domain_rows, domain_signs, strict=True):
        (ieqs if s else eqns).append(tuple(row))
    for row, s in zip(pre_activation_rows(weights, biases, signs), signs, strict=True):
        if s == 0:
            eqns.append(row)
        else:
            ieqs.append(row if s > 0 else tuple(-v for v in row))
    return ieqs, eqns


def in_closure(rows: tuple[Sequence[Row], Sequence[Row]], x: Sequence) -> bool:
    """Whether ``x`` satisfies ``(ieqs, eqns)``: every ieq ``>= 0`` and every eqn ``= 0`` at ``x``."""
    ieqs, eqns = rows
    return all(affine_value(r, x) == 0 for r in eqns) and all(affine_value(r, x) >= 0 for r in ieqs)


# -----------------------------------------------------------------------------------------
# Polyhedra, by cdd.gmp directly
# -----------------------------------------------------------------------------------------
def cdd_lp(rows: Sequence[Row], objective: Row, sense=cdd.LPObjType.MAX):
    """The solved ``cdd.gmp`` LP ``optimise objective(x) subject to r(x) >= 0 for r in rows``.

    Exact (GMP rationals); read ``.status``, ``.obj_value`` and ``.primal_solution``.
    """
    lp = cdd.gmp.linprog_from_array([list(r) for r in rows] + [list(objective)], sense)
    cdd.gmp.linprog_solve(lp)
    return lp


def dd_generators(ieqs: Sequence[Row], eqns: Sequence[Row], d: int) -> tuple[list, list, list]:
    """``(points, rays, lines)`` of the H-polyhedron ``ieqs >= 0, eqns = 0`` in Q^d, by cdd.gmp's double description."""
    rows = [(1,) + (0,) * d] + [tuple(r) for r in ieqs] + [tuple(r) for r in eqns]
    lin = set(range(1 + len(ieqs), len(rows)))
    mat = cdd.gmp.matrix_from_array(rows, lin_set=lin, rep_type=cdd.RepType.INEQUALITY)
    gen = cdd.gmp.copy_generators(cdd.gmp.polyhedron_from_matrix(mat))
    points, rays, lines = [], [], []
    for i, g in enumerate(gen.array):
        if i in gen.lin_set:
            lines.append(tuple(g[1:]))
        elif g[0] == 0:
            rays.append(tuple(g[1:]))
        else:
            points.append(tuple(Fraction(v) / Fraction(g[0]) for v in g[1:]))
    return points, rays, lines


def polyhedron_dimension(ieqs: Sequence[Row], eqns: Sequence[Row], d: int) -> int:
    """The dimension of the H-polyhedron (-1 if empty): the affine rank of its :func:`dd_generators`."""
    points, rays, lines = dd_generators(ieqs, eqns, d)
    if not points:
        return -1
    p0 = points[0]
    vectors = [tuple(a - b for a, b in zip(p, p0)) for p in points[1:]] + rays + lines
    return rank(vectors) if vectors else 0


def implicit_rows(ieqs: Sequence[Row], eqns: Sequence[Row], d: int) -> set[int]:
    """Indices of the inequality rows that vanish on the whole (non-empty) polyhedron.

    One exact LP per row: ``max r(x)`` over the polyhedron is 0 exactly when ``r`` is an
    implicit equality (``cdd.gmp.implicit_linearity_rows`` is not used: it has missed
    implicit rows on large Gaussian instances).
    """
    constraints = [tuple(r) for r in ieqs] + [tuple(r) for r in eqns] + [tuple(-v for v in r) for r in eqns]
    constraints = constraints or [(1,) + (0,) * d]
    out = set()
    for i, r in enumerate(ieqs):
        lp = cdd_lp(constraints, r)
        if lp.status == cdd.LPStatusType.OPTIMAL and lp.obj_value == 0:
            out.add(i)
    return out


def in_convex_hull(p: Sequence, points: Sequence[Sequence]) -> bool:
    """Whether ``p`` is a convex combination of ``points`` (one exact cdd.gmp feasibility LP)."""
    n, d = len(points), len(p)
    # variables lambda_1..n >= 0, sum = 1, sum lambda_i q_i = p
    rows = [[0] + [int(i == j) for j in range(n)] for i in range(n)]
    rows.append([-1] + [1] * n)
    rows.append([1] + [-1] * n)
    for k in range(d):
        rows.append([-p[k]] + [q[k] for q in points])
        rows.append([p[k]] + [-q[k] for q in points])
    return cdd_lp(rows, [0] * (n + 1)).status == cdd.LPStatusType.OPTIMAL


def polygon_area(points: Sequence[Sequence]) -> Fraction:
    """The exact area of the convex hull of the vertices ``points`` of a convex polygon (any order).

    The vertices are ordered around their centroid by exact comparisons (half-plane,
    then the sign of a cross product), then the shoelace formula.

    Examples
    --------
    >>> polygon_area([(0, 0), (1, 1), (1, 0), (0, 1)]), polygon_area([(0, 0), (2, 0), (0, 1)])
    (Fraction(1, 1), Fraction(1, 1))
    """
    pts = [tuple(Fraction(v) for v in p) for p in points]
    cx = sum(p[0] for p in pts) / len(pts)
    cy = sum(p[1] for p in pts) / len(pts)

    def half(p):  # 0 for angles in [0, pi), 1 for [pi, 2 pi)
        dx, dy = p[0] - cx, p[1] - cy
        return 0 if dy > 0 or (dy == 0 and dx > 0) else 1

    def compare(p, q):
        if half(p) != half(q):
            return half(p) - half(q)
        cross = (p[0] - cx) * (q[1] - cy) - (p[1] - cy) * (q[0] - cx)
        return -1 if cross > 0 else 1 if cross < 0 else 0

    ring = sorted(pts, key=functools.cmp_to_key(compare))
    twice = sum(a[0] * b[1] - a[1] * b[0] for a, b in zip(ring, ring[1:] + ring[:1]))
    return abs(twice) / 2


# -----------------------------------------------------------------------------------------
# Topology: the order complex of a face poset, simplicial homology over GF(2)
# -----------------------------------------------------------------------------------------
def order_complex(cells: Sequence[tuple[int, Sequence[int]]]) -> list[tuple[int, ...]]:
    """Every chain ``c_0 < c_1 < ... < c_k`` of the face poset of a polyhedral complex, as a tuple of indices.

    ``cells[i] = (dimension, signs)``, the signs being a cell's full sign vector (its domain
    signs and its neuron signs): a cell ``τ`` is a face of ``σ`` exactly when every sign of
    ``τ`` is ``σ``'s or ``0``. The chains are the simplices of the order complex, the
    barycentric subdivision of the complex, which is homeomorphic to it when the cells are
    polytopes; it has the homotopy type of the union of the closed cells in any case (both
    are homotopy equivalent to the nerve of the cover by the maximal cells, whose non-empty
    intersections are cells). No orientation, no geometry.

    Examples
    --------
    >>> sorted(order_complex([(0, (0,)), (1, (1,)), (1, (-1,))]))   # the line cut at a point
    [(0,), (0, 1), (0, 2), (1,), (2,)]
    """
    below = {
        i: [j for j, (dj, tj) in enumerate(cells) if dj < di and all(t in (s, 0) for t, s in zip(tj, si, strict=True))]
        for i, (di, si) in enumerate(cells)
    }

    @functools.cache
    def ending_at(i):
        return [(i,)] + [chain + (i,) for j in below[i] for chain in ending_at(j)]

    return [chain for i in range(len(cells)) for chain in ending_at(i)]


def gf2_betti_numbers(simplices: Iterable[Sequence[int]], top: int) -> tuple[int, ...]:
    """The Betti numbers ``b_0, ..., b_top`` over GF(2) of the simplicial complex of all ``simplices``.

    ``b_k = n_k - rank d_k - rank d_(k+1)``, the boundary of a simplex being the sum of the
    simplices that drop one vertex (mod 2: no signs); ranks by Gaussian elimination on
    bitmask rows.

    Examples
    --------
    >>> gf2_betti_numbers([(0,), (1,), (2,), (0, 1), (1, 2), (0, 2)], 2)   # a triangle's boundary
    (1, 1, 0)
    """
    by_dim: list[dict[tuple, int]] = [{} for _ in range(top + 2)]
    for s in simplices:
        s = tuple(sorted(s))
        by_dim[len(s) - 1].setdefault(s, len(by_dim[len(s) - 1]))

    def rank(k):
        basis: dict[int, int] = {}
        for s in by_dim[k]:
            v = sum(1 << by_dim[k - 1][s[:i] + s[i + 1 :]] for i in range(len(s)))
            while v:
                h = v.bit_length() - 1
                if h not in basis:
                    basis[h] = v
                    break
                v ^= basis[h]
        return len(basis)

    ranks = [0] + [rank(k) for k in range(1, top + 2)]
    return tuple(len(by_dim[k]) - ranks[k] - ranks[k + 1] for k in range(top + 1))


# -----------------------------------------------------------------------------------------
# Graphs: equality of values and of their types
# -----------------------------------------------------------------------------------------
def same_typed(a, b) -> bool:
    """Equal values of identical types, elementwise through lists and dicts.

    ``1 == 1.0 == True`` in Python; a round trip that turns one into another is still a
    change, so the types are compared too.

    Examples
    --------
    >>> same_typed([1, {"a": 2.0}], [1, {"a": 2.0}]), same_typed([1], [1.0]), same_typed(True, 1)
    (True, False, False)
    """
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(same_typed(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same_typed(a[k], b[k]) for k in a)
    return a == b


def _edge_key(g, e) -> tuple[int, int]:
    return e.tuple if g.is_directed() else tuple(sorted(e.tuple))


def assert_same_graph(g, h, edge_order: bool = True) -> None:
    """Assert that two igraph graphs are the same, attribute values and their types included.

    Same vertex count, direction, graph/vertex/edge attribute names; graph and vertex
    attributes :func:`same_typed`. With ``edge_order`` the edge lists are equal as lists and
    each edge attribute is :func:`same_typed`; without it the edges are compared as a
    multiset, each edge of ``h`` matched to an edge of ``g`` with the same ends and
    :func:`same_typed` attributes (converters need not keep the edge order).
    """
    assert h.vcount() == g.vcount()
    assert h.is_directed() == g.is_directed()
    assert sorted(h.attributes()) == sorted(g.attributes())
    assert sorted(h.vs.attributes()) == sorted(g.vs.attributes())
    assert sorted(h.es.attributes()) == sorted(g.es.attributes())
    for k in g.attributes():
        assert same_typed(g[k], h[k]), k
    for k in g.vs.attributes():
        assert same_typed(g.vs[k], h.vs[k]), k
    if edge_order:
        assert h.get_edgelist() == g.get_edgelist()
        for k in g.es.attributes():
            assert same_typed(g.es[k], h.es[k]), k
        return

    def records(graph):
        return sorted((*_edge_key(graph, e), json.dumps(e.attributes(), sort_keys=True)) for e in graph.es)

    assert records(h) == records(g)
    # JSON text does not tell a tuple from a list: match every edge of h to one of g by type as well
    unmatched: dict[tuple[int, int], list] = {}
    for e in g.es:
        unmatched.setdefault(_edge_key(g, e), []).append(e.attributes())
    for e in h.es:
        candidates = unmatched[_edge_key(h, e)]
        match = next((i for i, attrs in enumerate(candidates) if same_typed(attrs, e.attributes())), None)
        assert match is not None, f"edge {e.tuple} of h: {e.attributes()} has no same-typed edge in g"
        candidates.pop(match)


def sparse_sketch(J_mod, p: int, rows: int, seed: int = 0):
    """``S J`` modulo ``p`` with the sparse ``S`` that ``sparse_compressed_columns`` documents, from ``J`` itself.

    Three deals: ``rng = numpy.random.default_rng(seed)``; each time
    ``order = rng.permutation(N)`` and ``weights = rng.integers(1, p, N)``, and
    row ``order[t]`` is added to combination ``t % rows`` times ``weights[t]``.
    Plain Python integers, one row at a time.
    """
    import numpy as np

    rng = np.random.default_rng(seed)
    N, D = J_mod.shape
    out = [[0] * D for _ in range(rows)]
    for _ in range(3):
        order, weights = rng.permutation(N), rng.integers(1, p, N)
        for t in range(N):
            target, row, w = out[t % rows], J_mod[order[t]].tolist(), int(weights[t])
            for j in range(D):
                target[j] += w * row[j]
    return np.array([[v % p for v in r] for r in out], dtype=np.int64).reshape(rows, D)
