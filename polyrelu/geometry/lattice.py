"""Face lattices: graded posets of cells given by their covering relation.

:class:`FaceLattice` is a container, not an algorithm: it holds the cells of a
polyhedral complex (or of one polyhedron) with their dimensions and the
covering relation ``τ ⋖ σ`` ("τ is a facet of σ"), checks that the relation is
graded by dimension, and answers the combinatorial questions (faces, cofaces,
stars, f-vector, Euler characteristic). Its Hasse diagram is an igraph DAG.
The empty face is implicit: it is the bottom of every lattice and is not
stored as a cell.
"""

from __future__ import annotations

from collections.abc import Sequence, Set
from typing import TYPE_CHECKING, Any

from ..checks import describe, is_sequence, require_index, require_int, require_sequence
from ..errors import GeometryError, InvalidArgumentError
from ..graphs import igraph_to_networkx

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    import igraph
    import networkx as nx

__all__ = ["FaceLattice"]


class FaceLattice:
    """Cells ``0 .. n-1`` with dimensions and a covering relation.

    Parameters
    ----------
    dimensions : sequence of int
        ``dimensions[i]`` is the dimension of cell ``i`` (at least 0).
    covers : iterable of (int, int)
        Pairs ``(i, j)``: cell ``i`` is a facet of cell ``j``. Must satisfy
        ``dimensions[j] == dimensions[i] + 1``.
    data : sequence, optional
        One payload per cell (a sign vector, a vertex set, ...), kept as given.

    Raises
    ------
    GeometryError
        A cell index out of range, a negative dimension, a repeated pair, or a
        pair that does not raise the dimension by exactly one.

    Examples
    --------
    A triangle: three vertices, three edges, one 2-cell.

    >>> L = FaceLattice([0, 0, 0, 1, 1, 1, 2],
    ...                 [(0, 3), (1, 3), (1, 4), (2, 4), (2, 5), (0, 5), (3, 6), (4, 6), (5, 6)])
    >>> L.f_vector(), L.euler_characteristic()
    ((3, 3, 1), 1)
    >>> L.faces(3), L.cofaces(0)
    ((0, 1, 3), (0, 3, 5, 6))
    >>> L.hasse_diagram().is_dag()
    True
    """

    def __init__(
        self,
        dimensions: Sequence[int],
        covers: Sequence[tuple[int, int]] | Set[tuple[int, int]],
        data: Sequence[Any] | None = None,
    ) -> None:
        dimensions = require_sequence(dimensions, "dimensions", "FaceLattice")
        self._dims = tuple(
            d if type(d) is int else require_int(d, f"dimensions[{k}]", "FaceLattice") for k, d in enumerate(dimensions)
        )
        n = len(self._dims)
        if any(d < 0 for d in self._dims):
            raise GeometryError("FaceLattice: cell dimensions must be non-negative (the empty face is implicit)")
        down: list[list[int]] = [[] for _ in range(n)]
        up: list[list[int]] = [[] for _ in range(n)]
        seen = set()
        # a set of pairs is a relation too: its order does not matter here
        pairs = list(covers) if isinstance(covers, (set, frozenset)) else require_sequence(covers, "covers", "FaceLattice")
        for k, pair in enumerate(pairs):
            if type(pair) is not tuple and not (is_sequence(pair) and len(pair) == 2):
                raise InvalidArgumentError(f"FaceLattice: covers[{k}] must be a pair (i, j) of cell indices, got {describe(pair)}")
            if len(pair) != 2:
                raise InvalidArgumentError(f"FaceLattice: covers[{k}] must be a pair (i, j) of cell indices, got {len(pair)} entries")
            i, j = pair
            if type(i) is not int or type(j) is not int:
                i, j = (require_int(v, f"covers[{k}]", "FaceLattice") for v in pair)
            if not (0 <= i < n and 0 <= j < n):
                raise GeometryError(f"FaceLattice: covers[{k}] = ({i}, {j}) names a cell outside 0..{n - 1}")
            if self._dims[j] != self._dims[i] + 1:
                raise GeometryError(
                    f"FaceLattice: covers[{k}] = ({i}, {j}) is not graded: dimensions {self._dims[i]} and {self._dims[j]}"
                )
            if (i, j) in seen:
                raise GeometryError(f"FaceLattice: covers[{k}] = ({i}, {j}) is repeated")
            seen.add((i, j))
            down[j].append(i)
            up[i].append(j)
        self._down = tuple(tuple(sorted(c)) for c in down)
        self._up = tuple(tuple(sorted(c)) for c in up)
        data = require_sequence(data, "data", "FaceLattice", optional=True)
        if data is not None and len(data) != n:
            raise GeometryError(f"FaceLattice: data has {len(data)} entries for {n} cells")
        self._data = tuple(data) if data is not None else (None,) * n

    @classmethod
    def from_trusted(cls, dimensions: Sequence[int], facets: Sequence[Sequence[int]]) -> FaceLattice:
        """A lattice from every cell's facets, which the caller guarantees: nothing is checked.

        For polyrelu's own constructions (a complex of a few hundred thousand
        cells), which know the covering relation to be graded and without
        repeats: the checks of the constructor cost a microsecond per pair.

        Parameters
        ----------
        dimensions : sequence of int
            ``dimensions[i]`` is the dimension of cell ``i``.
        facets : sequence of sequences of int
            ``facets[j]``: the cells ``i`` with ``(i, j)`` in the covering
            relation, in any order.

        Returns
        -------
        FaceLattice
            Without data.

        Raises
        ------
        InvalidArgumentError
            ``dimensions`` or ``facets`` is not a sequence.
        GeometryError
            They have different lengths.

        Notes
        -----
        The caller guarantees what the constructor would check (indices in
        range, ``dimensions[j] == dimensions[i] + 1`` for every pair, no pair
        twice, non-negative dimensions); a lattice that breaks it answers
        wrongly. Build untrusted data with the constructor.

        Examples
        --------
        >>> L = FaceLattice.from_trusted([0, 0, 1], [(), (), (1, 0)])
        >>> L == FaceLattice([0, 0, 1], [(0, 2), (1, 2)]), L.cofacets(0)
        (True, (2,))
        """
        dimensions = require_sequence(dimensions, "dimensions", "FaceLattice.from_trusted")
        facets = require_sequence(facets, "facets", "FaceLattice.from_trusted")
        if len(facets) != len(dimensions):
            raise GeometryError(f"FaceLattice.from_trusted: facets has {len(facets)} entries for {len(dimensions)} dimensions")
        lattice = cls.__new__(cls)
        lattice._dims = tuple(dimensions)
        lattice._down = tuple(tuple(sorted(down)) for down in facets)
        up: list[list[int]] = [[] for _ in facets]
        for j, down in enumerate(lattice._down):  # j ascending: every list of cofacets comes out sorted
            for i in down:
                up[i].append(j)
        lattice._up = tuple(map(tuple, up))
        lattice._data = (None,) * len(facets)
        return lattice

    def __len__(self) -> int:
        return len(self._dims)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, FaceLattice):
            return NotImplemented
        return self._dims == other._dims and self._down == other._down and self._data == other._data

    def __repr__(self) -> str:
        return f"<FaceLattice with {len(self)} cells, f-vector {self.f_vector()}>"

    @property
    def dimensions(self) -> tuple[int, ...]:
        """The dimension of every cell, by cell index."""
        return self._dims

    def dimension(self, cell: int | None = None) -> int:
        """The dimension of ``cell``, or of the whole lattice (its largest cell) when omitted."""
        if cell is None:
            return max(self._dims, default=-1)
        return self._dims[self._index(cell, "FaceLattice.dimension")]

    def _index(self, cell: int, caller: str) -> int:
        """``cell`` checked to be a cell index (cheap when it is one: these are called in inner loops)."""
        if type(cell) is int and 0 <= cell < len(self._dims):
            return cell
        return require_index(cell, len(self._dims), "cell", caller)

    def data(self, cell: int) -> Any:
        """The payload stored with ``cell``."""
        return self._data[self._index(cell, "FaceLattice.data")]

    def cells(self, dim: int | None = None) -> tuple[int, ...]:
        """All cell indices, or those of dimension ``dim``."""
        require_int(dim, "dim", "FaceLattice.cells", minimum=0, optional=True)
        return tuple(i for i, d in enumerate(self._dims) if dim is None or d == dim)

    def maximal_cells(self) -> tuple[int, ...]:
        """Cells that are a facet of no other cell."""
        return tuple(i for i, up in enumerate(self._up) if not up)

    def covering_relation(self) -> tuple[tuple[int, int], ...]:
        """All pairs ``(i, j)`` with ``i`` a facet of ``j``, sorted."""
        return tuple(sorted((i, j) for j, down in enumerate(self._down) for i in down))

    def facets(self, cell: int) -> tuple[int, ...]:
        """The cells covered by ``cell`` (its faces of one dimension less)."""
        return self._down[self._index(cell, "FaceLattice.facets")]

    def cofacets(self, cell: int) -> tuple[int, ...]:
        """The cells covering ``cell``."""
        return self._up[self._index(cell, "FaceLattice.cofacets")]

    def _closure(self, cell: int, step: tuple[tuple[int, ...], ...]) -> tuple[int, ...]:
        seen = {cell}
        stack = [cell]
        while stack:
            for nxt in step[stack.pop()]:
                if nxt not in seen:
                    seen.add(nxt)
                    stack.append(nxt)
        return tuple(sorted(seen))

    def faces(self, cell: int) -> tuple[int, ...]:
        """Every cell ``τ <= cell``, including ``cell`` itself."""
        return self._closure(self._index(cell, "FaceLattice.faces"), self._down)

    def cofaces(self, cell: int) -> tuple[int, ...]:
        """Every cell ``σ >= cell``, including ``cell`` itself."""
        return self._closure(self._index(cell, "FaceLattice.cofaces"), self._up)

    def star(self, cell: int) -> tuple[int, ...]:
        """The closed star: every face of every coface of ``cell``."""
        cell = self._index(cell, "FaceLattice.star")
        return tuple(sorted({f for c in self.cofaces(cell) for f in self.faces(c)}))

    def f_vector(self) -> tuple[int, ...]:
        """``(f_0, ..., f_top)``: the number of cells of each dimension."""
        top = self.dimension()
        counts = [0] * (top + 1)
        for d in self._dims:
            counts[d] += 1
        return tuple(counts)

    def euler_characteristic(self) -> int:
        """``sum_k (-1)^k f_k`` over the non-empty cells.

        Notes
        -----
        For a polytope, or a complex covering a polytope, this is 1; for a
        complex of closed cells covering ``R^n`` it is ``(-1)^n`` (docs/design.md §2).
        """
        return sum((-1) ** d for d in self._dims)

    def hasse_diagram(self) -> igraph.Graph:
        """The Hasse diagram as a directed igraph graph, edges from face to coface.

        Vertex ``i`` is cell ``i``, with the integer attribute ``dim``.
        """
        import igraph

        g = igraph.Graph(n=len(self), edges=list(self.covering_relation()), directed=True)
        g.vs["dim"] = list(self._dims)
        return g

    def to_networkx(self) -> nx.DiGraph:
        """The Hasse diagram as a :class:`networkx.DiGraph` with node attribute ``dim``."""
        return igraph_to_networkx(self.hasse_diagram())
