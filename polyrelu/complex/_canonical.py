"""The :class:`CanonicalComplex` and its :class:`Cell` objects: queries, and the JSON document streamed cell by cell (internal module).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
from array import array
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ..atomic import atomic_write, check_output_path
from ..checks import (
    describe,
    require_bool,
    require_index,
    require_instance,
    require_int,
    require_path,
    require_str,
)
from ..complex_validation import (
    check_document,
    covering_from_signs,
    lineality_basis,
    read_document,
)
from ..domain import domain_polyhedron
from ..errors import (
    ComplexFormatError,
    GeometryError,
    InvalidArgumentError,
    ShapeError,
    UsageError,
)
from ..geometry import (
    FaceLattice,
    Polyhedron,
    default_oracle,
)
from ..geometry.rational import (
    FractionMatrix,
    FractionVector,
    IntegerRow,
    VectorLike,
    row_value,
    to_fraction_vector,
)
from ..graphs import igraph_to_networkx
from ..io import DEFAULT_LIMITS, Limits, network_to_dict
from ..network import ReLUNetwork
from ._json_v1 import cell_texts
from ._json_v2 import compact_cell_texts
from ._representations import CellGenerators, LatticeCell, row_text, sign

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    import cdd.gmp
    import igraph
    import networkx as nx


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """Suspend Python's cyclic garbage collector for the duration of a ``with`` block (internal API).

    A complex of a few hundred thousand cells is millions of small objects,
    allocated in one go and kept: every collection the allocations trigger
    walks all of them to find no garbage, which took about half of a large
    construction. The constructions make no reference cycles worth
    collecting early; the collector is back on (if it was on) when the block
    exits, normally or by an exception.

    Everything allocated in the block is then still in the youngest
    generation, and the first collection after it would walk it all to find
    nothing (a tenth of a build's time). It is moved to the oldest generation
    instead, as if it had survived collections (``gc.freeze`` then
    ``gc.unfreeze``), where full collections still see it, unless the
    process has frozen objects of its own, which ``gc.unfreeze`` would release.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if not gc.get_freeze_count():
                gc.freeze()
                gc.unfreeze()
            gc.enable()


class Cell:
    """One cell of the canonical complex: the closure of a sign class.

    Attributes
    ----------
    id : int
        Index in the complex (cells are ordered by dimension, then sign vector).
    dimension : int
    signs : tuple of int
        The sign vector ``s ∈ {-1, 0, 1}^H``, one entry per hidden neuron.
    domain_signs : tuple of int
        For a polytope domain, ``1`` (inside) or ``0`` (on) per domain facet; else ``()``.
    """

    __slots__ = ("id", "dimension", "signs", "domain_signs", "_complex", "_polyhedron")

    def __init__(
        self,
        id: int,
        dimension: int,
        signs: Sequence[int],
        domain_signs: Sequence[int],
        complex_: CanonicalComplex | None = None,
        polyhedron: Polyhedron | None = None,
    ) -> None:
        self.id = id
        self.dimension = dimension
        self.signs = tuple(signs)
        self.domain_signs = tuple(domain_signs)
        self._complex = complex_
        self._polyhedron = polyhedron

    @property
    def polyhedron(self) -> Polyhedron:
        """The closed cell as a :class:`~polyrelu.geometry.Polyhedron` (built on first use).

        Its inequalities are the signed pre-activation formulas valid on the
        cell, its equations those of the neurons that vanish on it; the
        minimal H- and the V-representation are computed on demand and cached.
        """
        if self._polyhedron is None:
            assert self._complex is not None  # only cells built with their complex come without a polyhedron
            self._polyhedron = self._complex._cell_polyhedron(self)
        return self._polyhedron

    @property
    def sign_string(self) -> str:
        """The sign vector as a string such as ``"+-0+"``."""
        return "".join("+" if s > 0 else "-" if s < 0 else "0" for s in self.signs)

    def relative_interior_point(self) -> FractionVector:
        """An exact point of the sign class itself."""
        point = self.polyhedron.relative_interior_point()
        assert point is not None  # a cell is never empty
        return point

    def __repr__(self):
        domain = f" domain {''.join('+' if s else '0' for s in self.domain_signs)}" if self.domain_signs else ""
        return f"<Cell {self.id}: dim {self.dimension}, signs {self.sign_string!r}{domain}>"

    def to_sage(self) -> Any:
        """The closed cell as a Sage ``Polyhedron`` over ``QQ``, exactly (:meth:`Polyhedron.to_sage
        <polyrelu.geometry.Polyhedron.to_sage>`; needs ``passagemath-polyhedra`` or Sage).

        Examples
        --------
        >>> from polyrelu import ReLUNetwork, canonical_complex
        >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]))
        >>> K.cell(0).to_sage().vertices_list(), sorted(K.regions()[0].to_sage().rays_list())
        ([[0, 0]], [[-1, 0], [0, -1]])
        """
        return self.polyhedron.to_sage()

    def to_cdd(self) -> cdd.gmp.Matrix:
        """The closed cell's H-representation as a ``cdd.gmp`` matrix (:meth:`Polyhedron.to_cdd
        <polyrelu.geometry.Polyhedron.to_cdd>`)."""
        return self.polyhedron.to_cdd()

    def to_polymake(self) -> str:
        """A polymake expression that builds the closed cell (:meth:`Polyhedron.to_polymake
        <polyrelu.geometry.Polyhedron.to_polymake>`).

        Examples
        --------
        >>> from polyrelu import ReLUNetwork, canonical_complex
        >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]))
        >>> K.regions()[0].to_polymake()
        'new Polytope<Rational>(INEQUALITIES=>[[0,-1,0],[0,0,-1]])'
        """
        return self.polyhedron.to_polymake()


def check_complex_of(complex_, network, domain, caller):
    """``complex_`` if it is the canonical complex of ``network`` on ``domain`` (None passes).

    For functions that take a network with its domain and, optionally, its
    complex already computed: a complex of another network, or on another
    domain, would silently give answers about something else.

    Raises
    ------
    InvalidArgumentError
        Not a :class:`CanonicalComplex`.
    UsageError
        The complex of another network, or on another domain.
    """
    if require_instance(complex_, CanonicalComplex, "complex_", caller, optional=True) is None:
        return None
    if complex_.network != network:
        raise UsageError(f"{caller}: complex_ is the complex of another network; compute it with canonical_complex(network)")
    if domain is not None:
        rows = domain_polyhedron(domain, network.architecture.input_dim, caller).minimal_h_representation()[0]
        if rows != complex_._domain_rows:
            raise UsageError(f"{caller}: complex_ was computed on another domain than domain; pass one of them only")
    return complex_


COMPLEX_FORMAT = "polyrelu.complex"


COMPLEX_VERSION = 2  # the version written by default; complex_validation.VERSIONS are the versions read and written


def _document_chunks(K: CanonicalComplex, version: int, extra: str = "") -> Iterator[str]:
    """The text of the complex JSON document of ``version``, in pieces; ``extra`` (``', "key": value, ...'``) goes
    before the closing brace."""
    net = K.network
    domain = "null" if K.domain is None else '{"ieqs": [' + ", ".join(map(row_text, K._domain_rows)) + "]}"
    neurons = [list(n) for n in net.architecture.hidden_neurons()]
    yield (
        f'{{"format": {json.dumps(COMPLEX_FORMAT)}, "version": {version}, '
        f'"network": {json.dumps(network_to_dict(net), allow_nan=False)}, "ambient_dim": {net.architecture.input_dim}, '
        f'"domain": {domain}, "neurons": {json.dumps(neurons)}, '
    )
    if version == 1:
        yield from cell_texts(K)
    else:
        yield from compact_cell_texts(K, K._sign_matrix())
    yield '"covering": [' + ", ".join(map("[%d, %d]".__mod__, K.lattice.covering_relation())) + "], "
    yield f'"f_vector": {json.dumps(list(K.f_vector()))}, "euler_characteristic": {K.euler_characteristic()}{extra}}}'


class CanonicalComplex:
    """The canonical polyhedral complex of a network: cells, face lattice, queries, export.

    Build it with :func:`canonical_complex`; read it back with :meth:`from_json`.
    """

    def __init__(
        self,
        network: ReLUNetwork,
        domain: Polyhedron | None,
        domain_rows: Sequence[IntegerRow],
        cells: Sequence[Cell],
        lattice: FaceLattice,
        elapsed: float | None = None,
    ) -> None:
        self.network = network
        self.domain = domain
        self._domain_rows = tuple(domain_rows)
        self._cells = tuple(cells)
        self.lattice = lattice
        self.elapsed = elapsed
        self._index: dict[tuple[tuple[int, ...], tuple[int, ...]], Cell] | None = None  # by signs: built by locate
        # lattice-built cells: (cell id, constraint signs) -> (vertices, rays, lines)
        self._generators: CellGenerators | None = None
        self._oracle = default_oracle
        self._signs: np.ndarray | None = None  # every cell's full sign vector (domain signs first), by id

    @classmethod
    def _assemble(cls, net, domain, domain_rows, found, oracle, elapsed):
        """The complex of the cells a construction found: ids by dimension, then sign vector."""
        n_domain = len(domain_rows)
        signs = found.signs
        keys = tuple(signs[:, j] for j in range(signs.shape[1] - 1, -1, -1)) + (np.asarray(found.dimensions),)
        order = np.lexsort(keys)  # the last key first: by dimension, then sign vector
        ids = list(range(len(order)))  # one int object per id, for the cells and the facets that name them
        K = cls.__new__(cls)
        polyhedra = found.polyhedra
        cells = [
            Cell(i, found.dimensions[old], row[n_domain:], row[:n_domain], K, polyhedra[old] if polyhedra else None)
            for i, old, row in zip(ids, order.tolist(), signs[order].tolist())
        ]
        dimensions = [c.dimension for c in cells]
        if found.facets is not None:
            new_id = [0] * len(order)
            for new, old in zip(ids, order.tolist()):
                new_id[old] = new
            lattice = FaceLattice.from_trusted(dimensions, [[new_id[f] for f in found.facets[old]] for old in order.tolist()])
        else:
            lattice = FaceLattice(dimensions, covering_from_signs([c.domain_signs + c.signs for c in cells], dimensions))
        K.__init__(net, domain, domain_rows, cells, lattice, elapsed)
        if found.generators is not None:
            K._generators = CellGenerators(found.generators, array("l", order.tolist()))
        K._signs = signs[order]
        K._oracle = oracle
        return K

    def _cell_polyhedron(self, cell):
        """The closed cell of a lattice-built complex (see :class:`LatticeCell`)."""
        assert self._generators is not None  # only lattice-built cells come without a polyhedron
        return LatticeCell(self, cell, self._generators(cell.id, cell.domain_signs + cell.signs)).polyhedron()

    def _sign_matrix(self) -> np.ndarray:
        """Every cell's full sign vector (domain signs first) as a row of ``int8``, by cell id."""
        if self._signs is None:
            rows = [c.domain_signs + c.signs for c in self._cells]
            self._signs = np.array(rows, dtype=np.int8).reshape(len(rows), len(self._domain_rows) + len(self._cells[0].signs))
        return self._signs

    # -- queries ---------------------------------------------------------------------
    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(self._cells)

    def __getitem__(self, i):
        return self._cells[i]

    def __repr__(self):
        where = "R^%d" % self.network.architecture.input_dim if self.domain is None else "a polytope"
        return f"<CanonicalComplex of {self.network.architecture} on {where}: f-vector {self.f_vector()}>"

    def __eq__(self, other):
        """Geometric equality: the same network, domain, cells and covering relation, whatever the ids.

        Two complexes are equal when their networks are equal, their domains
        are the same set (compared by canonical minimal H-representations),
        their cells are the same as a set of (sign vector, domain signs,
        dimension, exact polyhedron) and the covering relation joins the same
        cells. A polyhedron is compared by its minimal H-representation and
        its V-representation (vertices, rays, the span of the lines), so a
        complex read without checks from a file whose two representations
        disagree equals nothing built by polyrelu. Relative interior points
        are not compared: any point of a cell is one.

        Examples
        --------
        >>> from polyrelu import Box, canonical_complex
        >>> from polyrelu.examples import bent_line_network
        >>> K = canonical_complex(bent_line_network())
        >>> K == canonical_complex(bent_line_network(), method="lp")
        True
        >>> K == canonical_complex(bent_line_network(), Box(-2, 2))
        False
        """
        if not isinstance(other, CanonicalComplex):
            return NotImplemented
        if self is other:
            return True
        if self.network != other.network or self.f_vector() != other.f_vector():
            return False
        if (self.domain is None) != (other.domain is None):
            return False
        if self.domain is not None and self.domain.minimal_h_representation() != other.domain.minimal_h_representation():
            return False
        return self._combinatorics() == other._combinatorics() and self._geometry() == other._geometry()

    # Equality is geometric and costly, and the cells cache representations: not hashable.
    __hash__ = None  # type: ignore[assignment]  # the standard way to make a class unhashable

    def _combinatorics(self):
        """The cells by (domain signs, signs, dimension), and the covering relation between them, sorted."""
        keys = [(c.domain_signs, c.signs, c.dimension) for c in self._cells]
        return sorted(keys), sorted((keys[i], keys[j]) for i, j in self.lattice.covering_relation())

    def _geometry(self):
        """:meth:`_combinatorics` with each cell's exact polyhedron in canonical form."""
        keys = []
        for c in self._cells:
            vertices, rays, lines = c.polyhedron.vertices_rays_lines()
            generators = (tuple(sorted(vertices)), tuple(sorted(rays)), lineality_basis(lines))
            keys.append((c.domain_signs, c.signs, c.dimension, c.polyhedron.minimal_h_representation(), generators))
        return sorted(keys), sorted((keys[i], keys[j]) for i, j in self.lattice.covering_relation())

    def f_vector(self) -> tuple[int, ...]:
        """``(f_0, ..., f_n0)``: the number of cells of each dimension."""
        return self.lattice.f_vector()

    def euler_characteristic(self) -> int:
        """``sum_k (-1)^k f_k``: ``(-1)^n0`` on ``R^n0`` and ``1`` on a polytope domain."""
        return self.lattice.euler_characteristic()

    def cells(self, dim: int | None = None) -> tuple[Cell, ...]:
        """All cells, or those of dimension ``dim``."""
        require_int(dim, "dim", "CanonicalComplex.cells", minimum=0, optional=True)
        return tuple(c for c in self._cells if dim is None or c.dimension == dim)

    def regions(self) -> tuple[Cell, ...]:
        """The top-dimensional cells; ``f`` is affine on each."""
        return self.cells(self.network.architecture.input_dim)

    def cell(self, cell: Cell | int, *, name: str = "cell", caller: str = "CanonicalComplex.cell") -> Cell:
        """The :class:`Cell` given as a cell of this complex or as its id, checked.

        Parameters
        ----------
        cell : Cell or int
        name, caller : str
            The argument and the function that took it, for messages (functions
            that take a cell of a complex check it here).

        Raises
        ------
        InvalidArgumentError
            Neither a :class:`Cell` nor an integer.
        UsageError
            An id out of range, or a cell of another complex (different signs at that id).
        """
        require_str(name, "name", "CanonicalComplex.cell")
        require_str(caller, "caller", "CanonicalComplex.cell")
        if isinstance(cell, Cell):
            mine = self._cells[cell.id] if isinstance(cell.id, int) and 0 <= cell.id < len(self._cells) else None
            if mine is None or (mine.signs, mine.domain_signs) != (cell.signs, cell.domain_signs):
                raise UsageError(f"{caller}: {name} {cell!r} is not a cell of this complex")
            return mine
        if not isinstance(cell, (int, np.integer)) or isinstance(cell, bool):
            raise InvalidArgumentError(f"{caller}: {name} must be a Cell of this complex or its id, got {describe(cell)}")
        return self._cells[require_index(cell, len(self._cells), name, caller)]

    def faces(self, cell: Cell | int) -> tuple[Cell, ...]:
        """Every cell ``τ ≤ cell`` (including ``cell``)."""
        return tuple(self._cells[i] for i in self.lattice.faces(self.cell(cell, caller="CanonicalComplex.faces").id))

    def cofaces(self, cell: Cell | int) -> tuple[Cell, ...]:
        """Every cell ``σ ≥ cell`` (including ``cell``)."""
        return tuple(self._cells[i] for i in self.lattice.cofaces(self.cell(cell, caller="CanonicalComplex.cofaces").id))

    def star(self, cell: Cell | int) -> tuple[Cell, ...]:
        """The closed star of ``cell``: all faces of all its cofaces."""
        return tuple(self._cells[i] for i in self.lattice.star(self.cell(cell, caller="CanonicalComplex.star").id))

    def affine_map(self, cell: Cell | int) -> tuple[FractionMatrix, FractionVector]:
        """The exact affine map ``(A, c)`` of ``f`` on the closure of ``cell``."""
        return self.network.affine_map(self.cell(cell, caller="CanonicalComplex.affine_map").signs)

    def locate(self, x: VectorLike) -> Cell:
        """The cell whose relative interior contains ``x`` (exact).

        Raises
        ------
        GeometryError
            ``x`` lies outside the domain.
        """
        x = to_fraction_vector(x, "x", self.network.architecture.input_dim)
        domain_signs = []
        for j, row in enumerate(self._domain_rows):
            v = row_value(row, x)
            if v < 0:
                raise GeometryError(f"x = {tuple(map(str, x))} lies outside the domain (facet {j})")
            domain_signs.append(sign(v))
        if self._index is None:
            self._index = {(c.domain_signs, c.signs): c for c in self._cells}
        return self._index[(tuple(domain_signs), self.network.signs(x))]

    def bent_hypersurface(self, layer: int, index: int) -> tuple[Cell, ...]:
        """The cells of the bent hypersurface ``B_{layer,index}`` (docs/design.md §2).

        The facets whose sign at the neuron is ``0`` and whose two regions have
        ``+`` and ``-`` there, with all their faces. Empty for a neuron that
        never changes sign.
        """
        widths = self.network.architecture.hidden_widths
        caller = "CanonicalComplex.bent_hypersurface"
        layer, index = require_int(layer, "layer", caller), require_int(index, "index", caller)
        if not (1 <= layer <= len(widths)) or not (0 <= index < widths[layer - 1]):
            raise ShapeError(f"{caller}: no hidden neuron (layer, index) = ({layer}, {index}); the hidden widths are {widths}")
        k = sum(widths[: layer - 1]) + index
        n0 = self.network.architecture.input_dim
        members: set[int] = set()
        for facet in self.cells(n0 - 1):
            if facet.signs[k] != 0:
                continue
            sides = {self._cells[r].signs[k] for r in self.lattice.cofacets(facet.id)}
            if sides == {1, -1}:
                members.update(self.lattice.faces(facet.id))
        return tuple(self._cells[i] for i in sorted(members))

    def to_igraph(self) -> igraph.Graph:
        """The Hasse diagram as an igraph DAG with vertex attributes ``dim`` and ``signs``."""
        g = self.lattice.hasse_diagram()
        g.vs["signs"] = [c.sign_string for c in self._cells]
        return g

    def to_networkx(self) -> nx.DiGraph:
        """The Hasse diagram as a networkx DiGraph with node attributes ``dim`` and ``signs``."""
        return igraph_to_networkx(self.to_igraph())

    # -- interchange ---------------------------------------------------------------------
    def to_json(self, *, version: int = COMPLEX_VERSION) -> dict[str, Any]:
        """The complex as a JSON-ready dict; exact numbers are strings.

        Parameters
        ----------
        version : {2, 1}
            The format version. Version 2 (the default) is compact: every
            vertex and every extreme ray once, and per cell its dimension, its
            sign vector and the indices of its vertices and rays; a cell's
            interior point, minimal H-representation and affine map are left
            out, because the network and the sign vectors determine them
            (:meth:`from_json` rebuilds them). Version 1 writes all of them in
            every cell, with the cell's own vertices, rays and lines.

        Returns
        -------
        dict
            The document :meth:`write_json` writes, read back. The format is
            described in ``docs/formats.md``; its JSON Schema ships with the
            package (:func:`polyrelu.schemas.schema` ``("complex")``).

        Raises
        ------
        InvalidArgumentError, UsageError
            ``version`` is not 1 or 2.

        Examples
        --------
        >>> from polyrelu import canonical_complex
        >>> from polyrelu.examples import bent_line_network
        >>> K = canonical_complex(bent_line_network())
        >>> data = K.to_json()
        >>> data["version"], data["points"], data["directions"][0]
        (2, [['0', '0'], ['0', '1'], ['1', '0']], ['-1', '0'])
        >>> cells = data["cells"]
        >>> cells["dim"][4], cells["signs"][4], cells["vertices"][4], cells["rays"][4]
        (1, '-+0', [1], [0])
        >>> cell = K.to_json(version=1)["cells"][4]
        >>> cell["vertices"], cell["rays"], cell["eqns"], cell["ieqs"]
        ([['0', '1']], [['-1', '0']], [['-1', '0', '1']], [['0', '-1', '0']])
        """
        version = require_int(version, "version", "CanonicalComplex.to_json", minimum=1, maximum=2)
        with paused_gc():
            return json.loads("".join(_document_chunks(self, version)))

    def write_json(self, path: os.PathLike | str, *, version: int = COMPLEX_VERSION) -> None:
        """Write the JSON document of :meth:`to_json` to ``path``, streamed and atomically.

        The text goes to the file in pieces, without the document in memory,
        and is exactly what :func:`json.dump` writes for :meth:`to_json` of
        the same ``version`` (and a final newline). A failure leaves any
        previous file as it was.

        Parameters
        ----------
        path : path-like
        version : {2, 1}
            The format version (see :meth:`to_json`): 2, compact, by default.

        Raises
        ------
        OutputPathError
            ``path`` cannot be written.
        InvalidArgumentError, UsageError
            ``version`` is not 1 or 2.
        """
        caller = "CanonicalComplex.write_json"
        path = require_path(path, "path", caller)
        self._write_chunks(path, "", require_int(version, "version", caller, minimum=1, maximum=2))

    def _write_chunks(self, path, extra, version):
        """Write the document of ``version`` with ``extra`` keys (text, see :func:`_document_chunks`) to ``path``."""
        check_output_path(path)
        with paused_gc(), atomic_write(path) as fh:
            for chunk in _document_chunks(self, version, extra):
                fh.write(chunk)
            fh.write("\n")

    @classmethod
    def from_json(
        cls, data: dict[str, Any] | str | os.PathLike, *, trusted: bool = False, limits: Limits = DEFAULT_LIMITS
    ) -> CanonicalComplex:
        """Read a complex written by :meth:`to_json`, checking first that it is one.

        Parameters
        ----------
        data : dict, str or path-like
            The document, JSON text (starting with ``{``) or a file, read with
            its size and nesting bounded by ``limits``: format version 2 or 1
            (see :meth:`to_json`).
        trusted : bool
            Skip the geometric checks (for files you wrote yourself with
            polyrelu). The schema and the bookkeeping are checked either way.
        limits : Limits
            See :mod:`polyrelu.io.limits`.

        Returns
        -------
        CanonicalComplex
            Its cells keep the stored representations. Of a version-2
            document, what it leaves out (interior points, minimal
            H-representations) is rebuilt from the network, the signs and the
            covering relation first, exactly as version 1 stores it.

        Raises
        ------
        ComplexFormatError
            Not valid JSON; a version other than 1 and 2; fails the JSON
            Schema (the message gives the JSON path of the first error);
            lengths, ids ``0 .. n-1`` in order (version 1), arrays of one entry
            per cell and indices in range (version 2), the covering relation's
            grading, the f-vector or the Euler characteristic do not match the
            cells. Unless ``trusted``: any
            cell that is not exactly the closure of its sign class for the
            stored network (relative interior point, equations, inequalities,
            generators, dimension), a repeated sign vector, a covering
            relation other than the one the sign vectors give, a missing
            cell, an affine map that is not the network's, a domain that is
            not the irredundant description of a bounded full-dimensional
            polytope. The message names the cell and what is wrong.
        LimitExceededError
            A file, nesting or number beyond ``limits``.

        Notes
        -----
        The checks are exact and take time linear in the file (see
        :mod:`polyrelu.complex_validation` for what they prove): a file that
        passes is the canonical complex of its network on its domain, up to
        the numbering of the cells and the choice of relative interior points.

        Examples
        --------
        >>> from polyrelu import canonical_complex
        >>> from polyrelu.examples import bent_line_network
        >>> K = canonical_complex(bent_line_network())
        >>> CanonicalComplex.from_json(K.to_json()) == K
        True
        >>> data = K.to_json()
        >>> data["cells"]["vertices"][4] = [0]
        >>> CanonicalComplex.from_json(data)
        Traceback (most recent call last):
        ...
        polyrelu.errors.ComplexFormatError: complex JSON: cell 4: its relative interior point (the mean of its vertices plus the sum of its rays) (-1, 0) does not have the cell's signs: ...
        >>> data = K.to_json(version=1)
        >>> CanonicalComplex.from_json(data) == K
        True
        >>> data["cells"][3]["eqns"] = [["1", "1", "0"]]
        >>> CanonicalComplex.from_json(data)
        Traceback (most recent call last):
        ...
        polyrelu.errors.ComplexFormatError: complex JSON: cell 3: its eqns are not the reduced row echelon form ...
        >>> CanonicalComplex.from_json(data, trusted=True) == K
        False
        """
        caller = "CanonicalComplex.from_json"
        require_instance(data, (dict, str, os.PathLike), "data", caller)
        require_bool(trusted, "trusted", caller)
        require_instance(limits, Limits, "limits", caller)
        if isinstance(data, (str, os.PathLike)) and not str(data).lstrip().startswith(("{", "[")) and not os.path.isfile(data):
            raise ComplexFormatError(
                f"{caller}: data: no such file {str(data)[:200]!r}; pass the document, its JSON text or the path of a file"
            )
        document = read_document(data, limits)
        if not trusted:
            check_document(document)
        n0 = document.network.architecture.input_dim
        domain = None if document.domain_rows is None else Polyhedron(ieqs=document.domain_rows, ambient_dim=n0)
        cells = [
            Cell(c.id, c.dimension, c.signs, c.domain_signs, polyhedron=c.polyhedron()) for c in document.cells
        ]
        return cls(document.network, domain, document.domain_rows or (), cells, document.lattice)


# The package re-homes these classes to polyrelu.complex, and doctest skips the methods of a class whose module is
# not the one being searched: listing them here keeps their examples running (tests/test_docs.py checks it).
__test__ = {"CanonicalComplex": CanonicalComplex, "Cell": Cell}
