"""Neuron formulas read from the breakpoint complex, and pieces of one hypersurface joined by them.

A neuron of layer ``l + 1`` is an affine function of the outputs of layer
``l``. Written over the *features* ``relu(ẑ_i)``, ``ẑ_i`` and ``1`` of the
layer-``l`` neurons ``ẑ_i`` (each known up to a non-zero factor, whose sign
the features do not need: ``relu(-z) = relu(z) - z``), its coefficients
satisfy linear equations on every breakpoint facet of its hypersurface: there
its affine map is a multiple of the facet's hyperplane
(:func:`parallel_equations`). Recovery writes the same equations from
measured pieces; here they come from the breakpoint complex of ``f``.

:func:`join_pieces` uses this to join the connected pieces of one neuron's
bent hypersurface, which continuation through crossings cannot join: the
earlier neurons are read layer by layer as functions of ``x``, every piece
that no other candidate bends along (a candidate of the last hidden layer,
or a piece of one) gets its formula over the outputs of the layer before,
and a determined formula predicts its zero set everywhere: the pieces lying
on it are the same neuron's. A last-layer neuron bends ``f`` along the whole
of its zero set, so the prediction is checked on every cell of the complex,
and the tropical weight on every facet of the joined pieces must be one output
column times the formula's gradient. Pieces of an earlier neuron are joined
when their formulas agree, and a piece that no later neuron crosses joins the
earlier neuron whose zero set holds it.

Glossary
--------
features
    At a point ``x`` off the earlier zero sets, the ``(n0 + 1) × (2 n + 1)``
    matrix of the affine maps of ``relu(ẑ_i)``, ``ẑ_i`` and ``1`` (columns;
    rows: the constant and the ``n0`` linear coefficients). Before the first
    layer the features are ``1, x_1, ..., x_n0`` (the identity matrix).
basis
    The feature columns independent over all regions; formulas are solved in
    them.
internal candidate
    One along which another candidate bends: a neuron of an earlier layer
    (under the genericity conditions hypersurfaces of one layer cross those of
    the next and bend there).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import flint

from .errors import GeometryError
from .geometry.linalg import (
    echelon_basis,
    fmpq_matrix,
    fraction_rows,
    in_span,
    nullspace,
    pivot_columns,
    unit_columns,
)
from .geometry.rational import row_value
from .tropical import BreakpointComplex

__all__ = ["parallel_equations", "shared_formula", "PieceJoin", "JoinedPieces", "join_pieces"]

Row = tuple[Fraction, ...]
Matrix = list[Row]


def parallel_equations(F: Sequence[Sequence], h: Sequence) -> list[tuple]:
    """Rows in the unknowns ``c`` saying that the affine function ``F c`` is a multiple of ``h``.

    Examples
    --------
    ``c`` with ``c_0 + c_1 x`` a multiple of ``1 - 2x`` on the identity features:

    >>> parallel_equations([(1, 0), (0, 1)], (1, -2))
    [(-2, -1)]
    """
    p = max(range(len(h)), key=lambda i: abs(h[i]))
    return [tuple(h[p] * a - h[q] * b for a, b in zip(F[q], F[p])) for q in range(len(h)) if q != p]


def shared_formula(
    sa: Sequence[Sequence], sb: Sequence[Sequence], solve: Callable[[list, int], Sequence[Sequence]] = nullspace
) -> tuple[tuple, list[tuple], list[int]] | None:
    """The one formula two families of formulas share beyond their common unit columns; or None.

    ``sa`` and ``sb`` span the formulas fitting two sets of pieces. Both
    contain the unit columns that vanish on all their pieces. Families of
    different neurons share nothing more when their dimensions leave room
    (``dim A + dim B - shared units <= columns``), so one more common
    direction is one neuron: determined up to the shared units.

    Parameters
    ----------
    sa, sb : sequences of vectors
        Bases of the two families (vectors of equal length).
    solve : callable, optional
        ``solve(rows, ncols)``: a basis of the null space (exact by default).

    Returns
    -------
    (w, common, units) or None
        ``w`` the shared formula with zero ``units`` coefficients, ``common``
        a basis of the intersection of the spans, ``units`` the unit columns in both.

    Examples
    --------
    Both families hold the unit column 3 and the formula ``(1, 1, 0, 0)``:

    >>> w, common, units = shared_formula([(1, 1, 0, 0), (0, 0, 0, 1)], [(1, 1, 0, 5), (0, 0, 1, 0), (0, 0, 0, 1)])
    >>> [str(v) for v in w], units
    (['1', '1', '0', '0'], [3])

    Beyond the shared unit column nothing is common:

    >>> shared_formula([(1, 0, 0, 0), (0, 0, 0, 1)], [(1, 1, 0, 0), (0, 0, 0, 1)]) is None
    True
    """
    ncols = len(sa[0])
    null = solve([[v[r] for v in sa] + [-v[r] for v in sb] for r in range(ncols)], len(sa) + len(sb))
    if not null:  # most pairs of different neurons' families: nothing common, not even a unit column
        return None
    units = sorted(set(unit_columns(sa)) & set(unit_columns(sb)))
    # bases: one common direction per null vector
    if len(null) != 1 + len(units) or len(sa) + len(sb) - len(units) > ncols:
        return None
    common = [tuple(sum(x * v[r] for x, v in zip(z, sa)) for r in range(ncols)) for z in null]
    # the common direction beyond the units: a member non-zero off them
    w = next(v for v in common if any(v[k] for k in range(ncols) if k not in units))
    return tuple(Fraction(0) if k in units else v for k, v in enumerate(w)), common, units


@dataclass(frozen=True)
class PieceJoin:
    """The evidence that the breakpoint facets of some pieces belong to one neuron.

    Attributes
    ----------
    feature_layer : int
        The formula is over the outputs of this layer (candidates of the
        dependency graph's layer ``feature_layer``; 0: over ``x``).
    formula : tuple of Fraction
        Coefficients on the features ``relu(ẑ_i)``, ``ẑ_i`` (``i`` in the
        candidates of ``feature_layer``, ordered by id), ``1``; over ``x``,
        the row ``(b, a)`` of ``b + a·x``.
    pieces : tuple of tuple of int
        The breakpoint facets of each connected piece joined.
    points : tuple of tuple of Fraction
        On each piece, a point where the formula vanishes with the piece's hyperplane as its zero set.
    column : tuple of Fraction
        For a neuron of the last hidden layer, the output column read on every
        facet of every piece (its weight over the formula's gradient there):
        the same on all, up to the formula's scale. Empty for a neuron of an
        earlier layer, whose pieces are joined by their formula alone.
    """

    feature_layer: int
    formula: tuple[Fraction, ...]
    pieces: tuple[tuple[int, ...], ...]
    points: tuple[tuple[Fraction, ...], ...]
    column: tuple[Fraction, ...]


@dataclass(frozen=True)
class JoinedPieces:
    """One outcome of :func:`join_pieces`: the pieces (indices) taken as one hypersurface.

    ``evidence`` is set when ``f`` shows them to be one last-layer neuron's whole hypersurface, or
    several pieces to be one earlier neuron's; ``reason`` says why not when the candidate may still be a
    piece (None for internal candidates).
    """

    members: tuple[int, ...]
    evidence: PieceJoin | None
    reason: str | None


class _EarlierNeurons:
    """The internal candidates, layer by layer, as functions of ``x``: each a formula over the features of the one before."""

    def __init__(self, n0: int) -> None:
        self.n0 = n0
        self.layers: list[list[tuple[Fraction, ...]]] = []
        self._columns: list[flint.fmpq_mat] = []  # per layer: its formulas as columns
        # point -> the features of layers 0, 1, ... there (flint, exact), and the last as Fractions
        self._cache: dict[tuple[Fraction, ...], list[flint.fmpq_mat]] = {}
        self._last: dict[tuple[Fraction, ...], Matrix] = {}

    def add_layer(self, formulas: list[tuple[Fraction, ...]]) -> None:
        self.layers.append(formulas)
        self._columns.append(fmpq_matrix(list(zip(*formulas))))
        self._last.clear()

    def width(self) -> int:
        return 2 * len(self.layers[-1]) + 1 if self.layers else self.n0 + 1

    def features(self, x: Sequence[Fraction]) -> Matrix:
        """The features of the last layer at ``x``; GeometryError when an earlier neuron vanishes at ``x``."""
        key = tuple(x)
        hit = self._last.get(key)
        if hit is not None:
            return hit
        vanishing = self.vanishing(x)
        if vanishing is not None:
            raise GeometryError(f"an earlier neuron vanishes at {tuple(str(v) for v in x)}")
        F = [tuple(row) for row in fraction_rows(self._cache[key][-1])]
        self._last[key] = F
        return F

    def vanishing(self, x: Sequence[Fraction]) -> tuple[int, int, Row] | None:
        """The first earlier neuron that vanishes at ``x``: ``(layer, index, its affine map (b, a) there)``; or None."""
        key = tuple(x)
        n0 = self.n0
        done = self._cache.setdefault(key, [fmpq_matrix([[int(r == j) for j in range(n0 + 1)] for r in range(n0 + 1)])])
        point = fmpq_matrix([[1, *x]])
        while len(done) <= len(self.layers):
            maps = done[-1] * self._columns[len(done) - 1]  # column i: the affine map of neuron i
            values = (point * maps).tolist()[0]
            zero = next((i for i, v in enumerate(values) if v == 0), None)
            if zero is not None:
                return len(done), zero, tuple(row[zero] for row in fraction_rows(maps))
            rows = maps.tolist()
            done.append(
                flint.fmpq_mat(
                    [[m if v > 0 else 0 for m, v in zip(row, values)] + row + [int(r == 0)] for r, row in enumerate(rows)]
                )
            )
        return None

def _affine_map(F: Matrix, c: Sequence[Fraction]) -> Row:
    return tuple(sum((a * b for a, b in zip(row, c)), Fraction(0)) for row in F)


def _is_nonzero_multiple(m: Sequence[Fraction], h: Sequence) -> bool:
    p = max(range(len(h)), key=lambda i: abs(h[i]))
    return any(m) and all(m[q] * h[p] == m[p] * h[q] for q in range(len(h)))


class _Reader:
    """Points of the breakpoint complex's cells and the formulas written at them."""

    def __init__(self, B: BreakpointComplex, neurons: _EarlierNeurons) -> None:
        self.B = B
        self.neurons = neurons
        self._points: dict[int, tuple[Fraction, ...]] = {}
        self._generators: dict[int, tuple] = {}

    def point(self, cell: int) -> tuple[Fraction, ...]:
        """A point inside the cell: inside one of its members of its dimension."""
        if cell not in self._points:
            dim = self.B.lattice.dimension(cell)
            member = next(self.B.complex[c] for c in self.B.members(cell) if self.B.complex[c].dimension == dim)
            self._points[cell] = tuple(Fraction(v) for v in member.relative_interior_point())
        return self._points[cell]

    def generators(self, cell: int):
        """Vertices, rays and lines of the cell's closure."""
        if cell not in self._generators:
            self._generators[cell] = self.B.closure(cell).vertices_rays_lines()
        return self._generators[cell]

    def vanishes_on(self, g: Sequence[Fraction], facet: int) -> bool:
        """Whether the facet lies on ``{g = 0}``: ``g``'s affine map there a non-zero multiple of its hyperplane.

        False on an earlier neuron's zero set (the facet is an earlier candidate's, and under the
        genericity conditions no other neuron vanishes along it).
        """
        try:
            F = self.neurons.features(self.point(facet))
        except GeometryError:
            return False
        return _is_nonzero_multiple(_affine_map(F, g), self.B.hyperplane(facet))

    def earlier_neuron_on(self, facets: Iterable[int]) -> tuple[int, int] | None:
        """``(layer, index)`` of the earlier neuron whose zero set holds every facet given (its map a multiple of each
        facet's hyperplane there); None if there is no such neuron."""
        found = set()
        for f in facets:
            vanishing = self.neurons.vanishing(self.point(f))
            if vanishing is None or not _is_nonzero_multiple(vanishing[2], self.B.hyperplane(f)):
                return None
            found.add(vanishing[:2])
        return found.pop() if len(found) == 1 else None

    def basis(self) -> list[int]:
        n0 = self.B.input_dim
        rows = [row for R in self.B.lattice.cells(n0) for row in self.neurons.features(self.point(R))]
        return pivot_columns(rows)

    def space(self, facets: Iterable[int], basis: list[int]) -> tuple[tuple, list[Matrix]]:
        """A basis (in ``basis`` columns) of the formulas fitting every facet, and the features at each."""
        equations = []
        blocks = []
        for f in facets:
            F = self.neurons.features(self.point(f))
            reduced = [tuple(row[j] for j in basis) for row in F]
            blocks.append(reduced)
            equations += parallel_equations(reduced, self.B.hyperplane(f))
        return nullspace(equations, len(basis)), blocks

    def formula(self, facets: Iterable[int], basis: list[int]) -> tuple[tuple[Fraction, ...] | None, str]:
        """The formula over the full feature columns, unique up to scale; or (None, why)."""
        return self.formula_of(*self.space(facets, basis), basis)

    def formula_of(self, null, blocks, basis: list[int]) -> tuple[tuple[Fraction, ...] | None, str]:
        """:meth:`formula` from the :meth:`space` of the facets, already computed."""
        if len(null) != 1:
            return None, f"its facets leave {len(null)} independent formulas" if null else "no formula fits all its facets"
        if any(not any(_affine_map(F, null[0])) for F in blocks):
            return None, "the only formula that fits vanishes identically beside one of its facets"
        return self.full(null[0], basis), ""

    def full(self, c: Sequence[Fraction], basis: list[int]) -> tuple[Fraction, ...]:
        """``c`` on all feature columns (zero off the basis), scaled to max-norm 1."""
        full = [Fraction(0)] * self.neurons.width()
        for j, v in zip(basis, c):
            full[j] = Fraction(v)
        scale = max(abs(v) for v in full)
        return tuple(v / scale for v in full)


def _longest_path(n: int, edges: set[tuple[int, int]]) -> list[int] | None:
    """Layers by longest paths (1 for sources); None on a cycle."""
    preds: dict[int, list[int]] = {}
    for u, v in edges:
        preds.setdefault(v, []).append(u)
    layer: dict[int, int] = {}
    state: dict[int, int] = {}
    for start in range(n):
        stack = [start]
        while stack:
            v = stack[-1]
            if v in layer:
                stack.pop()
                continue
            state[v] = 1
            waiting = [u for u in preds.get(v, ()) if u not in layer]
            if any(state.get(u) == 1 for u in waiting):
                return None
            if waiting:
                stack.extend(waiting)
                continue
            layer[v] = 1 + max((layer[u] for u in preds.get(v, ())), default=0)
            stack.pop()
    return [layer[v] for v in range(n)]


def join_pieces(
    breakpoints: BreakpointComplex, pieces: Sequence[Sequence[int]], edges: Iterable[tuple[int, int]]
) -> list[JoinedPieces]:
    """Join the pieces of one neuron's hypersurface, from ``f`` alone.

    Parameters
    ----------
    breakpoints : BreakpointComplex
    pieces : sequence of sequences of int
        Breakpoint facets grouped by continuation (connected pieces).
    edges : iterable of (int, int)
        ``(u, v)`` when piece ``v`` bends where it crosses piece ``u``.

    Returns
    -------
    list of JoinedPieces
        A partition of the pieces, ordered by their smallest facet. Pieces
        along which others bend are internal candidates, joined when their
        formulas are proportional; a piece along which none bends joins the
        earlier neuron whose zero set holds it, else the pieces of a
        last-layer neuron are joined where a determined formula's zero set
        holds them all; anything else is left alone with the reason.

    Notes
    -----
    Layers are longest-path layers. Internal candidates of layer ``k`` are
    written over the features of layer ``k - 1`` (over ``x`` for ``k = 1``);
    those with proportional formulas are one neuron (only twins, which a
    generic network has not, share a formula), and one whose facets leave a
    family of formulas joins the one determined neuron of its layer in that
    family; otherwise nothing is joined (the reason says which). An earlier
    neuron's zero set can be partly invisible (where every later neuron is
    off), so its pieces are joined by formula alone, without predicting
    where ``f`` bends. A piece no other piece bends along lies on an earlier
    neuron's zero set when that neuron vanishes inside each of its facets with
    the facet's hyperplane: it is a piece of that neuron, which no later
    neuron crosses there. Any other piece ``Q`` no other piece bends along gets its formula
    ``g`` over the last internal layer; every such piece whose facets all lie
    on ``{g = 0}`` (``g``'s affine map there a non-zero multiple of the
    facet's hyperplane) joins it. The join stands when ``{g = 0}`` meets the
    interior of no region and no other facet (a last-layer neuron ``z = κ g``
    bends ``f`` along all of its zero set) and every facet's weight is
    ``|λ|·v`` for one column ``v``, where ``∇g = λ ν`` with ``ν`` the facet's
    normal (the jump of ``f``'s Jacobian across ``{z = 0}`` is ``v ⊗ ∇z``).
    Two different neurons of a generic network share no facet, so the pieces
    joined are one neuron's.

    Examples
    --------
    >>> from polyrelu import canonical_complex, tropical_weights, breakpoint_complex
    >>> from polyrelu.examples import generic_network
    >>> B = breakpoint_complex(tropical_weights(canonical_complex(generic_network((2, 2, 1), seed=0))))

    Two crossing lines, given as four separate facets: each line's two halves
    lie on one formula over ``x``, and nothing else does:

    >>> [(j.members, j.evidence.feature_layer, j.reason) for j in join_pieces(B, [[f] for f in B.breakpoint_facets()], [])]
    [((0, 3), 0, None), ((1, 2), 0, None)]
    """
    n0 = breakpoints.input_dim
    n = len(pieces)
    edges = set(edges)
    layers = _longest_path(n, edges)
    internal = {u for u, _ in edges}
    sinks = [i for i in range(n) if i not in internal]

    def alone(reason_of):
        out = [JoinedPieces((i,), None, reason_of(i)) for i in range(n)]
        return sorted(out, key=lambda j: min(pieces[j.members[0]]))

    if layers is None:
        return alone(lambda i: None if i in internal else "the bending relation has a cycle: f is not generic")
    neurons = _EarlierNeurons(n0)
    reader = _Reader(breakpoints, neurons)
    top = max((layers[i] for i in internal), default=0)
    earlier: list[list[tuple[list[int], tuple[Fraction, ...]]]] = []  # per layer: (pieces, formula) per neuron
    try:
        for k in range(1, top + 1):
            members = sorted(i for i in internal if layers[i] == k)
            basis = reader.basis()
            layer = _internal_neurons(reader, basis, members, pieces, k)
            if isinstance(layer, str):
                return alone(lambda j: None if j in internal else layer)
            neurons.add_layer([g for _, g in layer])
            earlier.append(layer)
        basis = reader.basis()
    except GeometryError as error:
        reason = f"an earlier neuron vanishes inside a cell: {error}"
        return alone(lambda j: None if j in internal else reason)

    taken: set[int] = set()
    for q in sinks:  # a piece no candidate bends along, on an earlier neuron's zero set: a piece of that neuron
        holder = reader.earlier_neuron_on(pieces[q])
        if holder is not None:
            earlier[holder[0] - 1][holder[1]][0].append(q)
            taken.add(q)
    groups: list[JoinedPieces] = []
    for k, layer in enumerate(earlier, start=1):
        for members_of, formula in layer:
            together = tuple(sorted(members_of))
            points = tuple(reader.point(pieces[p][0]) for p in together)
            evidence = PieceJoin(k - 1, formula, tuple(tuple(pieces[p]) for p in together), points, ()) if len(together) > 1 else None
            groups.append(JoinedPieces(together, evidence, None))

    reasons: dict[int, str] = {}
    facets_all = breakpoints.breakpoint_facets()
    for q in sorted(sinks, key=lambda i: (-len(pieces[i]), min(pieces[i]))):
        if q in taken:
            continue
        try:
            g, why = reader.formula(pieces[q], basis)
        except GeometryError as exc:
            g, why = None, str(exc)
        if g is None:
            reasons[q] = f"no formula over layer {top}'s outputs: {why}"
            continue
        on = {f for f in facets_all if reader.vanishes_on(g, f)}
        joined = [p for p in sinks if p not in taken and set(pieces[p]) <= on]
        covered = {f for p in joined for f in pieces[p]}
        column, problem = _checked_prediction(breakpoints, reader, g, on - covered, covered)
        if problem is not None:
            reasons[q] = f"its formula over layer {top}'s outputs {problem}"
            continue
        assert column is not None
        points = tuple(next(reader.point(f) for f in pieces[p]) for p in joined)
        evidence = PieceJoin(top, g, tuple(tuple(pieces[p]) for p in joined), points, column)
        groups.append(JoinedPieces(tuple(joined), evidence, None))
        taken.update(joined)
    groups += _join_families(breakpoints, reader, basis, top, [p for p in sinks if p not in taken], pieces, taken)
    for p in sinks:
        if p not in taken:
            groups.append(JoinedPieces((p,), None, reasons.get(p, "no determined formula's zero set holds it")))
    return sorted(groups, key=lambda j: min(f for i in j.members for f in pieces[i]))


def _internal_neurons(reader, basis, members, pieces, k):
    """The neurons of layer ``k`` among its internal pieces: ``[(pieces joined, formula)]``, or why they are not determined.

    A piece whose facets leave one formula (up to scale) is that neuron's;
    pieces with proportional formulas lie on the zero set of one function,
    so they are one neuron's (two neurons with proportional formulas would be
    twins, which a generic network does not have). A piece whose facets leave
    a family of formulas joins the one determined neuron whose formula lies in
    the family; with none or several, the layer is not determined. Joining
    matters beyond the count: a neuron counted twice gives the next layer two
    proportional features, and the next layer's formulas would all be families.
    """
    determined: list[tuple[list[int], tuple[Fraction, ...]]] = []
    families = []
    for i in members:
        null, blocks = reader.space(pieces[i], basis)
        if len(null) > 1:
            families.append((i, null))
            continue
        c, why = reader.formula_of(null, blocks, basis)
        if c is None:
            return f"the formula of candidate {i} (layer {k}) over layer {k - 1}'s outputs is not determined: {why}"
        same = next((group for group in determined if _is_nonzero_multiple(c, group[1])), None)
        if same is None:
            determined.append(([i], c))
        else:
            same[0].append(i)
    left = []
    for i, null in families:
        fits = [group for group in determined if in_span([group[1][j] for j in basis], null)]
        if len(fits) > 1:
            return (f"the formula of candidate {i} (layer {k}) over layer {k - 1}'s outputs is not determined: its facets "
                    f"leave {len(null)} independent formulas, which {len(fits)} determined neurons of its layer fit")
        if fits:
            fits[0][0].append(i)
        else:
            left.append((i, null))
    # families that fit no determined neuron: two of them whose spans share exactly one formula are one neuron's
    while left:
        i, null = left.pop(0)
        shared = [(j, shared_formula(null, other)) for j, other in left]
        shared = [(j, found) for j, found in shared if found is not None and not found[2]]
        if len(shared) != 1:
            return (f"the formula of candidate {i} (layer {k}) over layer {k - 1}'s outputs is not determined: its facets "
                    f"leave {len(null)} independent formulas, and no other piece of its layer fixes one of them")
        j, (w, _, _) = shared[0]
        left = [(m, other) for m, other in left if m != j]
        determined.append(([i, j], reader.full(w, basis)))
    return sorted(determined, key=lambda group: min(group[0]))


def _join_families(B, reader, basis, top, left, pieces, taken):
    """Pieces whose formulas are families, joined two by two where the spans share one formula (:func:`shared_formula`).

    The formula is then known up to the unit columns that vanish on all the
    pieces, so its zero set is predicted, and checked, only where they vanish.
    """
    spans = {}
    for p in left:
        try:
            null, _ = reader.space(pieces[p], basis)
        except GeometryError:  # an earlier formula vanishes inside a facet of it: not one neuron's formula to read
            continue
        if len(null) > 1:
            spans[p] = null
    groups = []
    order = sorted(spans, key=lambda i: min(pieces[i]))
    for a in order:
        if a in taken:
            continue
        members, span, formula, units = [a], spans[a], None, []
        for b in order:
            if b in taken or b in members:
                continue
            shared = shared_formula(span, spans[b])
            if shared is None:
                continue
            w, common, units_ab = shared
            facets = [f for p in (*members, b) for f in pieces[p]]
            if not all(reader.vanishes_on(reader.full(w, basis), f) for f in facets):
                continue
            members.append(b)
            span, formula, units = (echelon_basis(common) if units_ab else (w,)), w, units_ab
        if formula is None:
            continue
        g = reader.full(formula, basis)
        covered = {f for p in members for f in pieces[p]}
        free = [basis[k] for k in units]

        def exact(cell):  # the unit columns vanish at the cell: the formula's prediction holds there
            try:
                return not any(row[j] for row in reader.neurons.features(reader.point(cell)) for j in free)
            except GeometryError:
                return False

        on = {f for f in B.breakpoint_facets() if reader.vanishes_on(g, f) and exact(f)}
        column, problem = _checked_prediction(B, reader, g, on - covered, covered, where=exact)
        if problem is not None:
            continue
        assert column is not None
        points = tuple(reader.point(pieces[p][0]) for p in members)
        groups.append(JoinedPieces(tuple(sorted(members)), PieceJoin(top, g, tuple(tuple(pieces[p]) for p in members), points, column), None))
        taken.update(members)
    return groups


def _checked_prediction(B: BreakpointComplex, reader: _Reader, g, stray: set[int], covered: set[int], where=lambda cell: True):
    """``(column, None)`` when ``{g = 0}`` is exactly the ``covered`` facets and one output column fits; else ``(None, why)``."""
    try:
        problem = _prediction_problem(B, reader, g, stray, where)
        if problem is not None:
            return None, problem
        return _output_column(B, reader, g, sorted(covered))
    except GeometryError as error:  # the earlier layers' formulas are not f's neurons': nothing to join on
        return None, f"cannot be evaluated: {error}"


def _prediction_problem(B: BreakpointComplex, reader: _Reader, g, stray: set[int], where=lambda cell: True) -> str | None:
    """Why ``{g = 0}`` is not exactly the facets given: a stray facet on it, or a region it cuts (among ``where``); else None."""
    if stray:
        return f"vanishes on facets {sorted(stray)} of other candidates"
    for R in B.lattice.cells(B.input_dim):
        if not where(R):
            continue
        m = _affine_map(reader.neurons.features(reader.point(R)), g)
        if not any(m[1:]):
            if m[0] == 0:
                return f"vanishes identically on region {R}"
            continue
        # g takes both signs inside the region iff it does at its generators (a line with a slope: both)
        vertices, rays, lines = reader.generators(R)
        values = [row_value(m, v) for v in vertices] + [row_value((0, *m[1:]), r) for r in rays]
        both = any(row_value((0, *m[1:]), line) for line in lines)
        if both or (any(v > 0 for v in values) and any(v < 0 for v in values)):
            return f"predicts a bend inside region {R}, where f is affine"
    return None


def _output_column(B: BreakpointComplex, reader: _Reader, g, facets: Sequence[int]):
    """The column ``w / |λ|`` shared by every facet, or (None, why)."""
    weights = B.weighted.weights()
    column = None
    for f in facets:
        member = next(c for c in B.members(f) if c in weights)
        w, normal = weights[member].weight, weights[member].normal
        m = _affine_map(reader.neurons.features(reader.point(f)), g)
        p = max(range(n := len(normal)), key=lambda i: abs(normal[i]))
        lam = abs(m[1 + p] / normal[p])
        assert n == len(m) - 1
        here = tuple(Fraction(v) / lam for v in w)
        if column is None:
            column = here
        elif here != column:
            return None, f"reads output column {tuple(map(str, here))} on facet {f} but {tuple(map(str, column))} before"
    return column, None
