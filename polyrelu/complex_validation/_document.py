"""Reading a complex document: the schema, the bookkeeping, exact values, and the cells a compact document leaves out (internal).

:func:`read_document` turns a dict, JSON text or a path into a
:class:`ComplexDocument` of :class:`StoredCell` (see the package's
docstring); a version-2 document's cells are rebuilt (:class:`_Expansion`)
into exactly those version 1 stores. Refusals are raised inside as
:class:`Refusal` and turned into :class:`~polyrelu.errors.ComplexFormatError`
by the readers; :data:`MODIFIED` and :data:`TRUSTED` are the shared ends of
their messages.
"""

import os
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import flint

from ..errors import (
    ComplexFormatError,
    GeometryError,
    InvalidArgumentError,
    LimitExceededError,
    PolyReluError,
)
from ..geometry import FaceLattice, Polyhedron
from ..geometry.affine import echelon_equations
from ..geometry.rational import parse_int
from ..io import network_from_dict
from ..io.limits import DEFAULT_LIMITS, parse_json, read_json
from ..network import ReLUNetwork
from ..schemas import validate
from ._rows import ConstraintRows, Reduction, facet_rows

__all__ = ["StoredCell", "ComplexDocument", "Refusal", "read_document", "VERSIONS", "MODIFIED", "TRUSTED"]

MODIFIED = "the file was modified or corrupted"

TRUSTED = (
    "if you wrote it yourself with polyrelu and trust it, CanonicalComplex.from_json(..., trusted=True) "
    "reads it without these geometric checks"
)

_SIGNS = {"+": 1, "-": -1, "0": 0}

#: The versions of the complex format :func:`read_document` reads.
VERSIONS = (1, 2)

# Python's int() refuses more than 4,300 digits; longer literals go through parse_int (flint, bounded).
_SHORT_LITERAL = 4000


@dataclass(frozen=True)
class StoredCell:
    """One cell as a complex file stores it, in exact numbers.

    Attributes
    ----------
    id, dimension : int
    signs : tuple of int
        One of ``-1, 0, 1`` per hidden neuron.
    domain_signs : tuple of int
        ``1`` (inside) or ``0`` (on) per domain facet; ``()`` on ``R^n0``.
    point : tuple of Fraction
        The stored relative interior point.
    vertices : tuple of tuple of Fraction
    rays, lines : tuple of tuple of int
    ieqs, eqns : tuple of tuple of int
    affine_map : tuple or None
        ``(A, b)`` as tuples of Fractions on a region, else ``None``.
    """

    id: int
    dimension: int
    signs: tuple
    domain_signs: tuple
    point: tuple
    vertices: tuple
    rays: tuple
    lines: tuple
    ieqs: tuple
    eqns: tuple
    affine_map: tuple

    def polyhedron(self, oracle=None) -> Polyhedron:
        """The cell's closed polyhedron as stored: nothing is recomputed.

        The minimal H-representation is the stored ``ieqs`` and ``eqns``, the
        V-representation the stored generators, the relative interior point
        the stored one (see :meth:`Polyhedron.from_trusted
        <polyrelu.geometry.Polyhedron.from_trusted>`, whose guarantees the
        checks of :func:`check_document` prove); the affine hull solves the
        stored equations on first use.
        """
        minimal = (self.ieqs, self.eqns)
        return Polyhedron.from_trusted(
            len(self.point),
            h_representation=minimal,
            minimal_h_representation=minimal,
            vertices_rays_lines=(self.vertices, self.rays, self.lines),
            relative_interior_point=self.point,
            oracle=oracle,
        )


@dataclass(frozen=True)
class ComplexDocument:
    """A complex file in exact numbers, its schema and bookkeeping checked (see :func:`read_document`).

    Attributes
    ----------
    source : str
        The file name, or ``"complex JSON"``: the prefix of every message.
    network : ReLUNetwork
    domain_rows : tuple of tuple of int or None
        The domain's facet inequalities; ``None`` for ``R^n0``.
    cells : tuple of StoredCell
    lattice : FaceLattice
        The stored covering relation.
    version : int
        The format version: with 2, the cells' interior points and
        H-representations were rebuilt, not read.
    """

    source: str
    network: ReLUNetwork
    domain_rows: tuple
    cells: tuple
    lattice: FaceLattice
    version: int = 1


class Refusal(Exception):
    """What is wrong and where (a cell, a key); turned into a ComplexFormatError with the file name."""

    def __init__(self, where, what):
        super().__init__(where, what)
        self.where, self.what = where, what

# -- reading -----------------------------------------------------------------------------
def read_document(data, limits=DEFAULT_LIMITS) -> ComplexDocument:
    """A complex file (dict, JSON text or path) in exact numbers, after its schema and bookkeeping checks.

    Parameters
    ----------
    data : dict, str or path-like
        Text starting with ``{`` or ``[`` is JSON; any other string is a path.
    limits : Limits
        Bounds on the file's size and nesting (:mod:`polyrelu.io.limits`).

    Returns
    -------
    ComplexDocument

    Raises
    ------
    ComplexFormatError
        Not valid JSON, fails the schema (the message gives the JSON path),
        a vector or row of the wrong length, a sign string of the wrong
        length, ids not ``0 .. n-1`` in order, a covering pair that is not
        graded, an f-vector or Euler characteristic that does not match.
    LimitExceededError
        A file, nesting or number beyond ``limits``.
    InvalidArgumentError
        ``data`` is none of the above types.

    Examples
    --------
    >>> from polyrelu.complex import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> data = canonical_complex(bent_line_network()).to_json()
    >>> document = read_document(data)
    >>> len(document.cells), document.cells[0].vertices
    (19, ((Fraction(0, 1), Fraction(0, 1)),))
    >>> data["euler_characteristic"] = -1
    >>> read_document(data)
    Traceback (most recent call last):
    ...
    polyrelu.errors.ComplexFormatError: complex JSON: euler_characteristic: is -1, but the cells give 1; the file was modified or corrupted
    """
    data, source = _load(data, limits)
    if isinstance(data, dict) and data.get("format") == "polyrelu.complex" and data.get("version") not in VERSIONS:
        raise ComplexFormatError(
            f"{source}: version: {repr(data.get('version'))[:40]} is not a version of the complex format polyrelu reads "
            f"(it reads versions {' and '.join(map(str, VERSIONS))}); write the file again with this polyrelu"
        )
    validate(_schema_view(data), "complex", source)
    try:
        return _document(data, source)
    except Refusal as exc:
        raise ComplexFormatError(f"{source}: {exc.where}: {exc.what}; {MODIFIED}") from None
    except LimitExceededError as exc:
        raise LimitExceededError(f"{source}: {exc}") from None


def _schema_view(data):
    """What the schema checks: the document, but of a version-2 document's per-cell arrays only their first entries.

    and of its covering relation only the first pair. The schema's rules for
    those entries (an integer, a string of signs, a list of indices, a pair of
    ids) cost more through jsonschema than everything else; the reader checks
    every entry against the same rules itself (:func:`_compact_cells`),
    naming the cell or the pair.
    """
    if not isinstance(data, dict) or data.get("version") != 2:
        return data
    view = dict(data)
    cells, covering = data.get("cells"), data.get("covering")
    if isinstance(cells, dict) and all(isinstance(v, list) for v in cells.values()):
        view["cells"] = {key: column[:1] for key, column in cells.items()}
    if isinstance(covering, list):
        view["covering"] = covering[:1]
    return view


def _load(data, limits):
    if isinstance(data, os.PathLike) or (isinstance(data, str) and not data.lstrip().startswith(("{", "["))):
        path = Path(data)
        try:
            return read_json(path, limits), str(path)
        except LimitExceededError:
            raise
        except PolyReluError as exc:
            raise ComplexFormatError(str(exc)) from None
    if isinstance(data, str):
        try:
            return parse_json(data, "complex JSON", limits), "complex JSON"
        except LimitExceededError:
            raise
        except PolyReluError as exc:
            raise ComplexFormatError(str(exc)) from None
    if isinstance(data, dict):
        return data, "complex JSON"
    raise InvalidArgumentError(f"a complex is read from a dict, JSON text or a path, not {type(data).__name__}")


def _document(data, source):
    try:
        net = network_from_dict(data["network"], source=f"{source}: network")
    except LimitExceededError:
        raise
    except PolyReluError as exc:
        raise ComplexFormatError(f"{exc}; {MODIFIED}") from None
    arch = net.architecture
    n0 = arch.input_dim
    if data["ambient_dim"] != n0:
        raise Refusal("ambient_dim", f"is {data['ambient_dim']}, but the network's input dimension is {n0}")
    if [tuple(n) for n in data["neurons"]] != list(arch.hidden_neurons()):
        raise Refusal("neurons", "do not list the network's hidden neurons [layer, index], layer by layer")
    domain_rows = None
    if data["domain"] is not None:
        domain_rows = tuple(_integers(r, n0 + 1, f"domain.ieqs[{j}]") for j, r in enumerate(data["domain"]["ieqs"]))
    shape = (n0, arch.num_hidden, len(domain_rows or ()), arch.output_dim)
    if data["version"] == 1:
        cells = tuple(_cell(entry, i, shape) for i, entry in enumerate(data["cells"]))
        lattice = _lattice([c.dimension for c in cells], data["covering"])
    else:
        cells, lattice = _compact_cells(data, net, domain_rows, shape)
    f_vector, euler = lattice.f_vector(), lattice.euler_characteristic()
    if list(data["f_vector"]) != list(f_vector):
        raise Refusal("f_vector", f"is {data['f_vector']}, but the cells give {list(f_vector)}")
    if data["euler_characteristic"] != euler:
        raise Refusal("euler_characteristic", f"is {data['euler_characteristic']}, but the cells give {euler}")
    expected = 1 if domain_rows is not None else (-1) ** n0
    if euler != expected:
        where = "a polytope" if domain_rows is not None else f"R^{n0}"
        raise Refusal("cells", f"their Euler characteristic is {euler}, but a complex covering {where} has {expected}")
    return ComplexDocument(source, net, domain_rows, cells, lattice, data["version"])


def _lattice(dimensions, covering):
    try:
        return FaceLattice(dimensions, [(int(i), int(j)) for i, j in covering])
    except GeometryError as exc:
        raise Refusal("covering", str(exc)) from None


def _cell(entry, i, shape):
    n0, n_hidden, n_domain, n_out = shape
    where = f"cell {i}"
    if entry["id"] != i:
        raise Refusal(where, f"has id {entry['id']}; cells[i] must have id i (ids 0 .. n-1 in order)")
    if len(entry["signs"]) != n_hidden or len(entry["domain_signs"]) != n_domain:
        raise Refusal(
            where,
            f"has {len(entry['signs'])} signs and {len(entry['domain_signs'])} domain signs; "
            f"the network has {n_hidden} hidden neurons and the domain {n_domain} facets",
        )
    dimension = int(entry["dim"])
    if dimension > n0:
        raise Refusal(where, f"has dimension {dimension} in R^{n0}")
    affine_map = None
    if ("affine_map" in entry) != (dimension == n0):
        what = "has an affine_map but is not a region" if dimension < n0 else "is a region without an affine_map"
        raise Refusal(where, what)
    if dimension == n0:
        A, b = entry["affine_map"]["A"], entry["affine_map"]["b"]
        if len(A) != n_out:
            raise Refusal(where, f"affine_map.A has {len(A)} rows; the network has {n_out} outputs")
        affine_map = (
            tuple(_rationals(row, n0, f"{where} affine_map.A[{r}]") for r, row in enumerate(A)),
            _rationals(b, n_out, f"{where} affine_map.b"),
        )
    return StoredCell(
        id=i,
        dimension=dimension,
        signs=tuple(_SIGNS[ch] for ch in entry["signs"]),
        domain_signs=tuple(_SIGNS[ch] for ch in entry["domain_signs"]),
        point=_rationals(entry["relative_interior_point"], n0, f"{where} relative_interior_point"),
        vertices=tuple(_rationals(v, n0, f"{where} vertices[{j}]") for j, v in enumerate(entry["vertices"])),
        rays=tuple(_integers(r, n0, f"{where} rays[{j}]") for j, r in enumerate(entry["rays"])),
        lines=tuple(_integers(r, n0, f"{where} lines[{j}]") for j, r in enumerate(entry["lines"])),
        ieqs=tuple(_integers(r, n0 + 1, f"{where} ieqs[{j}]") for j, r in enumerate(entry["ieqs"])),
        eqns=tuple(_integers(r, n0 + 1, f"{where} eqns[{j}]") for j, r in enumerate(entry["eqns"])),
        affine_map=affine_map,
    )


def _compact_cells(data, net, domain_rows, shape):
    """Version 2: the parallel arrays' bookkeeping, then every cell as version 1 stores it (:class:`_Expansion`)."""
    n0, n_hidden, n_domain, _ = shape
    columns = data["cells"]
    dimensions = columns["dim"]
    n = len(dimensions)
    for key in ("signs", "domain_signs", "vertices", "rays"):
        if len(columns[key]) != n:
            raise Refusal(f"cells.{key}", f"has {len(columns[key])} entries, but cells.dim has {n}: one entry per cell")
    lines = tuple(_integers(r, n0, f"lines[{j}]") for j, r in enumerate(data["lines"]))
    lowest = len(lines)  # the dimension of the cells of points: the lineality space's
    for i, dimension in enumerate(dimensions):
        if type(dimension) is not int:
            raise Refusal(f"cell {i}", f"has dimension {str(dimension)[:40]}, not an integer")
        if not lowest <= dimension <= n0:
            raise Refusal(f"cell {i}", f"has dimension {dimension}; with {lowest} lines the cells have dimension {lowest} .. {n0}")
    count = dimensions.count(lowest)
    if len(data["points"]) != count:  # before any point is converted
        raise Refusal("points", f"there are {len(data['points'])}, but {count} cells of dimension {lowest}: one point each")
    points = tuple(_rationals(p, n0, f"points[{j}]") for j, p in enumerate(data["points"]))
    directions = tuple(_integers(r, n0, f"directions[{j}]") for j, r in enumerate(data["directions"]))
    if any(a >= b for a, b in zip(directions, directions[1:])):
        raise Refusal("directions", "are not sorted, or repeat one")
    seen = 0  # points[j] is the point of the j-th cell of the lowest dimension
    for i in range(n):  # indices in range before anything is built from them
        where = f"cell {i}"
        signs, domain_signs = columns["signs"][i], columns["domain_signs"][i]
        vertices, rays = columns["vertices"][i], columns["rays"][i]
        # the schema saw entry 0 of each column (see _schema_view): the rest, against the same rules
        if type(signs) is not str or signs.strip("+-0") or type(domain_signs) is not str or domain_signs.strip("+0"):
            raise Refusal(where, "its signs must be a string of '+', '-' and '0', its domain_signs one of '+' and '0'")
        if type(vertices) is not list or not vertices or type(rays) is not list:
            raise Refusal(where, "its vertices must be a non-empty list of indices into points, its rays a list of indices")
        if len(signs) != n_hidden or len(domain_signs) != n_domain:
            raise Refusal(
                where,
                f"has {len(signs)} signs and {len(domain_signs)} domain signs; "
                f"the network has {n_hidden} hidden neurons and the domain {n_domain} facets",
            )
        _check_indices(vertices, len(points), where, "vertices", "points")
        _check_indices(rays, len(directions), where, "rays", "directions")
        if dimensions[i] == lowest:  # the cell of the next point
            if vertices != [seen] or rays:
                raise Refusal(where, f"is the cell of points[{seen}]: its vertices must be [{seen}] and its rays []")
            seen += 1
    for pair in data["covering"]:
        if type(pair) is not list or len(pair) != 2 or not all(type(i) is int and i >= 0 for i in pair):
            raise Refusal("covering", f"{str(pair)[:60]} is not a pair [i, j] of cell ids")
    lattice = _lattice(dimensions, data["covering"])
    expansion = _Expansion(net, domain_rows or (), lattice, points, directions, lines, columns)
    return tuple(expansion.cell(i) for i in range(n)), lattice


def _check_indices(indices, bound, where, key, target):
    for j in indices:
        if type(j) is not int:
            raise Refusal(where, f"its {key} index {str(j)[:40]} is not an integer")
        if not 0 <= j < bound:
            raise Refusal(where, f"its {key} index {j} is out of range: there are {bound} {target}")
    if any(a >= b for a, b in zip(indices, indices[1:])):
        raise Refusal(where, f"its {key} indices are not sorted, or repeat one")


class _Expansion:
    """The cells of a version-2 document with what it leaves out, rebuilt as version 1 writes it.

    A cell's vertices and rays are the ``points`` and ``directions`` its
    indices name, sorted; its lines the document's ``lines``; its relative
    interior point the mean of its vertices plus the sum of its rays; its
    ``eqns`` the reduced row echelon form of the constraints vanishing on it
    and its ``ieqs`` the constraints vanishing on its facets, reduced modulo
    ``eqns`` (:func:`facet_rows`, as :func:`check_document` expects them);
    a region's affine map ``net.affine_map(signs)``.
    """

    def __init__(self, net, domain_rows, lattice, points, directions, lines, columns):
        self.net = net
        self.n0 = net.architecture.input_dim
        self.lattice = lattice
        self.points, self.directions, self.lines = points, directions, lines
        self.columns = columns
        self.rank = [0] * len(points)  # a point's place in the sorted order: cells list vertices sorted
        for r, j in enumerate(sorted(range(len(points)), key=points.__getitem__)):
            self.rank[j] = r
        self.flint_points = [[flint.fmpq(x.numerator, x.denominator) for x in p] for p in points]
        self.flint_directions = [[flint.fmpz(x) for x in r] for r in directions]
        self.signs = [
            tuple(_SIGNS[ch] for ch in d + s) for d, s in zip(columns["domain_signs"], columns["signs"])
        ]
        self.n_domain = len(domain_rows)
        self.zeros = [tuple(k for k, v in enumerate(s) if v == 0) for s in self.signs]
        self.rows = ConstraintRows(net, domain_rows)
        self.hulls = {}

    def cell(self, i):
        where = f"cell {i}"
        full = self.signs[i]
        signs = full[self.n_domain :]
        vertex_ids = sorted(self.columns["vertices"][i], key=self.rank.__getitem__)
        ray_ids = self.columns["rays"][i]
        total = self.flint_points[vertex_ids[0]]
        for j in vertex_ids[1:]:
            total = [a + b for a, b in zip(total, self.flint_points[j])]
        total = [a / len(vertex_ids) for a in total]
        for j in ray_ids:
            total = [a + b for a, b in zip(total, self.flint_directions[j])]
        rows, _ = self.rows(signs)
        vanishing = tuple(rows[k] for k in self.zeros[i])
        reduce = self.hulls.get(vanishing)
        if reduce is None:
            equations = echelon_equations(vanishing, self.n0)
            if equations is None:
                raise Refusal(where, "the constraints its signs make vanish have no common point: there is no such cell")
            reduce = self.hulls[vanishing] = Reduction(equations)
        eqns = reduce.eqns
        ieqs = tuple(sorted(facet_rows(rows, full, self.lattice.facets(i), self.zeros, reduce)))
        dimension = self.columns["dim"][i]
        return StoredCell(
            id=i,
            dimension=dimension,
            signs=signs,
            domain_signs=full[: self.n_domain],
            point=tuple(Fraction(int(x.p), int(x.q)) for x in total),
            vertices=tuple(self.points[j] for j in vertex_ids),
            rays=tuple(self.directions[j] for j in ray_ids),
            lines=self.lines,
            ieqs=ieqs,
            eqns=eqns,
            affine_map=self.net.affine_map(signs) if dimension == self.n0 else None,
        )

# The schema has already checked every literal's form (ASCII digits, no leading zeros, q >= 2).
def _integer(text):
    return int(text) if len(text) <= _SHORT_LITERAL else parse_int(text, "an integer")


def _rational(text):
    numerator, slash, denominator = text.partition("/")
    if not slash:
        return Fraction(_integer(text))
    p = _integer(numerator)
    value = Fraction(p, _integer(denominator))
    if value.numerator != p:
        raise ValueError(f"{text!r} is not in lowest terms")
    return value


def _integers(values, length, where):
    return _converted(values, length, where, _integer)


def _rationals(values, length, where):
    return _converted(values, length, where, _rational)


def _converted(values, length, where, convert):
    if len(values) != length:
        raise Refusal(where, f"has {len(values)} entries; expected {length}")
    try:
        return tuple(map(convert, values))
    except ValueError as exc:
        if isinstance(exc, LimitExceededError):
            raise LimitExceededError(f"{where}: {exc}") from None
        raise Refusal(where, str(exc)) from None
