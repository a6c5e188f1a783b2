"""Candidate bent hypersurfaces from the breakpoint complex, grouped by continuation and joined by formula (internal)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..checks import require_instance
from ..errors import GraphError
from ..formulas import JoinedPieces, PieceJoin, join_pieces
from ..geometry.rational import IntegerRow
from ..tropical import BreakpointComplex


@dataclass(frozen=True)
class CandidateHypersurface:
    """One candidate bent hypersurface: breakpoint facets joined by continuation.

    Attributes
    ----------
    id : int
        Index in :class:`CandidateHypersurfaces`.
    facets : tuple of int
        Cells of the breakpoint complex.
    hyperplane : tuple of int or None
        The primitive row ``(b, a)`` of ``{b + a·x = 0}`` when all facets lie on
        one hyperplane (a candidate first-layer neuron), else None.
    complete : bool
        False when some codimension-2 face of its facets could not be resolved,
        so the candidate may be a piece of a larger hypersurface.
    neurons : tuple of (int, int)
        The network's neurons that change sign across its facets; only for
        comparison with the parameters, empty when the network is not known.
    pieces : tuple of tuple of int
        The facets of each connected piece joined into it (one piece unless
        :func:`~polyrelu.formulas.join_pieces` joined several).
    evidence : PieceJoin or None
        When ``f`` shows the candidate to be one last-layer neuron's whole
        hypersurface (the formula, a point on each piece and the output
        column), or several pieces to be one earlier neuron's (the formula
        they share, a point on each piece).
    piece : str or None
        Why ``f`` cannot show that the candidate is a whole hypersurface rather than
        a piece of one (None for the candidates others bend along, and for those with evidence).
    """

    id: int
    facets: tuple[int, ...]
    hyperplane: IntegerRow | None
    complete: bool
    neurons: tuple[tuple[int, int], ...]
    pieces: tuple[tuple[int, ...], ...] = ()
    evidence: PieceJoin | None = None
    piece: str | None = None

    @property
    def neuron(self) -> tuple[int, int] | None:
        """The single neuron it maps to, or None when it maps to none or several."""
        return self.neurons[0] if len(self.neurons) == 1 else None


@dataclass(frozen=True)
class Crossing:
    """A resolved codimension-2 cell: candidates crossing there, and the one that bends (or None)."""

    cell: int
    candidates: tuple[int, ...]
    bending: int | None


@dataclass(frozen=True)
class Unresolved:
    """A codimension-2 cell where continuation is not determined, with the facets through it and why."""

    cell: int
    facets: tuple[int, ...]
    reason: str


class CandidateHypersurfaces:
    """The result of :func:`candidate_hypersurfaces`: a sequence of candidates plus the local evidence.

    Attributes
    ----------
    breakpoints : BreakpointComplex
    crossings : tuple of Crossing
    unresolved : tuple of Unresolved
    """

    def __init__(
        self,
        breakpoints: BreakpointComplex,
        candidates: Iterable[CandidateHypersurface],
        crossings: Iterable[Crossing],
        unresolved: Iterable[Unresolved],
    ) -> None:
        self.breakpoints = breakpoints
        self._candidates = tuple(candidates)
        self.crossings = tuple(crossings)
        self.unresolved = tuple(unresolved)

    def __len__(self):
        return len(self._candidates)

    def __iter__(self):
        return iter(self._candidates)

    def __getitem__(self, i):
        return self._candidates[i]

    def __repr__(self):
        return f"<CandidateHypersurfaces: {len(self)} candidates, {len(self.unresolved)} unresolved cells>"

    def of_facet(self, facet: int) -> CandidateHypersurface:
        """The candidate containing a breakpoint facet."""
        for c in self._candidates:
            if facet in c.facets:
                return c
        raise GraphError(f"breakpoint cell {facet} is not a breakpoint facet")


def candidate_hypersurfaces(breakpoints: BreakpointComplex) -> CandidateHypersurfaces:
    """Group the breakpoint facets into candidate bent hypersurfaces (docs/design.md §5).

    Only function data is used: the breakpoint complex's cells, their
    incidences and the affine hulls of its facets. Around every interior
    codimension-2 cell ``τ`` the facets and regions through ``τ`` form one
    turn; with ``2k`` facets in that cyclic order, facet ``i`` is opposite
    facet ``i + k``. Then:

    - every opposite pair lies on one hyperplane: hypersurfaces cross straight
      (same layer, or a later one crossing an earlier one that does not bend it);
      each pair is joined;
    - four facets, one opposite pair on a hyperplane and the other not: the
      first continues straight, the second bends there; both pairs are joined;
    - anything else (three facets, five, a turn that does not close, two
      bending pairs, six facets with a bend) is an :class:`Unresolved` cell and
      nothing is joined there.

    Parameters
    ----------
    breakpoints : BreakpointComplex

    Returns
    -------
    CandidateHypersurfaces
        Candidates ordered by their smallest facet.

    See also
    --------
    dependency_graph : the bending relation between the candidates.

    Examples
    --------
    The axes and two nested bent lines ``relu(x1) + relu(x2) = 1`` and ``= 4``
    (a generic network: one of the two second-layer neurons is always active):

    >>> from polyrelu import ReLUNetwork, canonical_complex, tropical_weights, breakpoint_complex
    >>> net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1], ["-1/2", "-1/2"]], [[1, 1]]], [[0, 0], [-1, 2], [0]])
    >>> C = candidate_hypersurfaces(breakpoint_complex(tropical_weights(canonical_complex(net))))
    >>> sorted((len(c.facets), c.hyperplane, c.neuron) for c in C)
    [(3, None, (2, 0)), (3, None, (2, 1)), (4, (0, 0, 1), (1, 1)), (4, (0, 1, 0), (1, 0))]
    >>> C.unresolved, sorted(x.bending is not None for x in C.crossings)  # the axes cross straight
    ((), [False, True, True, True, True])
    """
    B = require_instance(breakpoints, BreakpointComplex, "breakpoints", "candidate_hypersurfaces")
    n0 = B.input_dim
    facets = B.breakpoint_facets()
    is_facet = set(facets)
    planes = {f: B.hyperplane(f) for f in facets}
    parent = {f: f for f in facets}

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    local = []  # (cell, pairs, bending pair index or None)
    unresolved = []
    blocked = set()  # facets with an unresolved face
    if n0 >= 2:
        for tau in B.lattice.cells(n0 - 2):
            if not B.is_interior(tau):
                continue
            through = [f for f in B.lattice.cofacets(tau) if f in is_facet]
            if not through:
                continue
            order, reason = _turn(B, through)
            pairs, bending = None, None
            if order is not None:
                k = len(order) // 2
                if len(order) % 2:
                    reason = f"{len(order)} facets meet here, an odd number: a junction"
                else:
                    pairs = [(order[i], order[i + k]) for i in range(k)]
                    bent = [i for i, (a, b) in enumerate(pairs) if planes[a] != planes[b]]
                    if len(bent) == 1 and k == 2:
                        bending = bent[0]
                    elif bent:
                        reason = f"{len(bent)} of {k} opposite facet pairs bend here"
                        pairs = None
            if pairs is None:
                unresolved.append(Unresolved(tau, tuple(sorted(through)), reason))
                blocked.update(through)
                continue
            for a, b in pairs:
                parent[find(b)] = find(a)
            local.append((tau, pairs, bending))

    groups: dict[int, list[int]] = {}
    for f in facets:
        groups.setdefault(find(f), []).append(f)
    pieces = sorted((tuple(sorted(g)) for g in groups.values()), key=lambda g: g[0])
    of_piece = {f: i for i, g in enumerate(pieces) for f in g}
    bends = {(of_piece[a], of_piece[pairs[bending][0]]) for _, pairs, bending in local if bending is not None for a, _ in pairs}
    joins = _join(B, pieces, {(u, v) for u, v in bends if u != v}, unresolved)
    ordered = [tuple(sorted(f for i in j.members for f in pieces[i])) for j in joins]
    index = {f: i for i, g in enumerate(ordered) for f in g}
    known = getattr(B, "complex", None) is not None
    candidates = []
    for i, (group, join) in enumerate(zip(ordered, joins)):
        rows = {planes[f] for f in group}
        neurons = tuple(sorted({z for f in group for z in B.neurons(f)})) if known else ()
        hyperplane = next(iter(rows)) if len(rows) == 1 else None
        joined = tuple(pieces[p] for p in join.members)
        candidates.append(
            CandidateHypersurface(i, group, hyperplane, not blocked & set(group), neurons, joined, join.evidence, join.reason)
        )
    crossings = [
        Crossing(
            tau,
            tuple(sorted({index[a] for a, _ in pairs})),
            None if bending is None else index[pairs[bending][0]],
        )
        for tau, pairs, bending in local
    ]
    return CandidateHypersurfaces(B, candidates, crossings, unresolved)


def _join(B, pieces, bends, unresolved):
    """The pieces joined by :func:`~polyrelu.formulas.join_pieces`, or each alone with the reason it is not tried."""
    why = None
    if B.input_dim < 2:
        why = "with one input hypersurfaces are points: f does not show which points are one neuron's"
    elif unresolved:
        why = "continuation is unresolved at some cells, so the layering that tells pieces apart is not reliable"
    if why is None:
        return join_pieces(B, pieces, bends)
    sources = {u for u, _ in bends}
    return [JoinedPieces((i,), None, None if i in sources else why) for i in range(len(pieces))]


def _turn(B, through):
    """The facets through a codimension-2 cell in cyclic order, walking facet–region–facet; or (None, why)."""
    n0 = B.input_dim
    regions_of = {}
    for f in through:
        regions = [r for r in B.lattice.cofacets(f) if B.lattice.dimension(r) == n0]
        if len(set(regions)) != 2:
            return None, f"facet {f} does not separate two regions"
        regions_of[f] = regions
    touching = {}
    for f, regions in regions_of.items():
        for r in regions:
            touching.setdefault(r, []).append(f)
    if any(len(fs) != 2 for fs in touching.values()):
        return None, "a region meets the cell along other than two facets"
    order = [through[0]]
    region = regions_of[through[0]][1]
    while True:
        nxt = next(f for f in touching[region] if f != order[-1])
        if nxt == order[0]:
            break
        order.append(nxt)
        region = next(r for r in regions_of[nxt] if r != region)
    if len(order) != len(through):
        return None, "the facets through the cell form more than one turn"
    return order, None
