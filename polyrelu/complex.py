"""The canonical polyhedral complex of a ReLU network, as an exact face lattice.

The cells are the closures of the non-empty sign classes ``{x : s(x) = s}``
(DESIGN §2). They are built layer by layer and neuron by neuron: every cell
found so far is a relatively open polyhedron on which the next neuron's
pre-activation ``h`` is affine, and it is split into the parts where ``h`` is
positive, negative and zero. Every split is decided exactly:

* ``h`` constant on the cell's affine hull: its sign is read off;
* otherwise the sign of ``h`` at the cell's exact relative interior point
  shows one side non-empty, and one call to the certified LP oracle
  (:class:`~polyrelu.geometry.LPOracle`) decides the other side; the zero part
  is non-empty exactly when both sides are, and gets an exact interior point
  on the segment between the two sides' points.

A bounded polytope domain enters as a first "layer" of pseudo-neurons, its
facet inequalities, with signs ``+`` (inside) and ``0`` (on the facet) only, so
the domain's own faces refine the cells. The covering relation follows from
the sign vectors: ``τ ≤ σ`` exactly when ``s(τ)_k ∈ {s(σ)_k, 0}`` for every
``k``, because on ``τ`` every pre-activation agrees with the formula valid on
``σ`` (the neurons where they differ vanish on ``τ``).
"""

import itertools
import json
import math
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction

from tqdm import tqdm

from .errors import GeometryError, NetworkFormatError, PolyReluError, ShapeError
from .geometry import AffineSubspace, FaceLattice, Feasibility, Polyhedron, default_oracle
from .geometry.rational import primitive_integer_row, to_fraction, to_fraction_vector
from .network import ReLUNetwork, network_from_dict, network_to_dict

__all__ = ["Box", "Cell", "CanonicalComplex", "ComplexTooLargeError", "canonical_complex"]

COMPLEX_FORMAT = "polyrelu.complex"
COMPLEX_VERSION = 1


class ComplexTooLargeError(PolyReluError):
    """The complex would have more cells than allowed; the message gives the estimate."""


@dataclass(frozen=True)
class Box:
    """The box ``[lower, upper]^n`` (scalars) or ``prod_i [lower_i, upper_i]`` (vectors).

    Examples
    --------
    >>> Box(-1, 1).polyhedron(2).vertices()[0]
    (Fraction(-1, 1), Fraction(-1, 1))
    """

    lower: object
    upper: object

    def polyhedron(self, dim):
        """The box as a :class:`~polyrelu.geometry.Polyhedron` in ``Q^dim``."""
        lo, hi = (
            to_fraction_vector(v, name, dim) if hasattr(v, "__len__") and not isinstance(v, str) else (to_fraction(v, name),) * dim
            for v, name in ((self.lower, "box lower"), (self.upper, "box upper"))
        )
        for i, (a, b) in enumerate(zip(lo, hi)):
            if a >= b:
                raise GeometryError(f"box: lower[{i}] = {a} is not below upper[{i}] = {b}; the box would be flat or empty")
        rows = []
        for i in range(dim):
            unit = [0] * dim
            unit[i] = 1
            rows.append((-lo[i], *unit))
            rows.append((hi[i], *(-u for u in unit)))
        return Polyhedron(ieqs=rows)


@dataclass(frozen=True, eq=False)
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
    polyhedron : Polyhedron
        The closed cell; its minimal H- and V-representation are computed on demand and cached.
    """

    id: int
    dimension: int
    signs: tuple
    domain_signs: tuple
    polyhedron: Polyhedron

    @property
    def sign_string(self):
        """The sign vector as a string such as ``"+-0+"``."""
        return "".join("+" if s > 0 else "-" if s < 0 else "0" for s in self.signs)

    def relative_interior_point(self):
        """An exact point of the sign class itself."""
        return self.polyhedron.relative_interior_point()

    def __repr__(self):
        domain = f" domain {''.join('+' if s else '0' for s in self.domain_signs)}" if self.domain_signs else ""
        return f"<Cell {self.id}: dim {self.dimension}, signs {self.sign_string!r}{domain}>"


@dataclass
class _OpenCell:
    """A sign class during the enumeration: relatively open, with an exact interior point."""

    signs: tuple
    equations: tuple  # integer rows (x-space) vanishing on the cell
    strict: tuple  # integer rows (x-space) strictly positive on the cell
    hull: AffineSubspace
    point: tuple
    restricted: tuple = None  # ``strict`` in hull coordinates, non-constant rows only

    def restricted_rows(self):
        if self.restricted is None:
            rows = (self.hull.restrict(r) for r in self.strict)
            self.restricted = tuple(r for r in rows if any(r[1:]))
        return self.restricted


def _value(row, x):
    return row[0] + sum(a * xi for a, xi in zip(row[1:], x))


def _sign(v):
    return (v > 0) - (v < 0)


class _Splitter:
    """Splits open cells by affine functions with at most one certified LP per split."""

    def __init__(self, oracle):
        self.oracle = oracle

    def split(self, cell, row, allowed=(-1, 0, 1)):
        """The non-empty parts of ``cell`` where ``row`` is ``+``, ``-`` and ``0`` (in ``allowed``)."""
        h = cell.hull.restrict(row)
        if not any(h[1:]):
            s = _sign(h[0])
            return [self._child(cell, s, row, cell.point)] if s in allowed else []
        s0 = _sign(_value(row, cell.point))
        points = {}
        if s0 == 0:
            points = self._points_beside(cell, h)
        else:
            points[s0] = cell.point
            if -s0 in allowed or 0 in allowed:
                other = self._point_on_side(cell, h, -s0)
                if other is not None:
                    points[-s0] = other
        children = [self._child(cell, s, row, points[s]) for s in (1, -1) if s in points and s in allowed]
        if 0 in allowed and len(points) == 2:
            if s0 == 0:
                zero_point = cell.point
            else:
                p, q = points[1], points[-1]
                hp, hq = _value(row, p), _value(row, q)
                zero_point = tuple((hp * b - hq * a) / (hp - hq) for a, b in zip(p, q))
            children.append(self._child(cell, 0, row, zero_point))
        return children

    def _point_on_side(self, cell, h, side):
        """An exact point of the cell where the restricted row ``h`` has sign ``side``, or ``None``."""
        signed = tuple(side * v for v in h)
        answer = self.oracle.decide(list(cell.restricted_rows()) + [signed])
        if answer.status is not Feasibility.INTERIOR:
            return None
        return cell.hull.lift(answer.point)

    def _points_beside(self, cell, h):
        """Points on both sides of ``h = 0`` near the interior point, which lies on it.

        Step from the point along ``±grad h`` (in hull coordinates) by half the
        largest step that keeps every strict row positive: exact and LP-free.
        """
        u0 = cell.hull.coordinates(cell.point)
        result = {}
        for side in (1, -1):
            direction = [side * g for g in h[1:]]
            limit = None
            for r in cell.restricted_rows():
                slope = sum(a * d for a, d in zip(r[1:], direction))
                if slope < 0:
                    t = _value(r, u0) / -slope
                    limit = t if limit is None or t < limit else limit
            step = Fraction(1) if limit is None else limit / 2
            result[side] = cell.hull.lift([c + step * d for c, d in zip(u0, direction)])
        return result

    @staticmethod
    def _child(cell, s, row, point):
        if s == 0:
            equations = cell.equations + (row,)
            hull = AffineSubspace.from_equations(equations, len(point))
            return _OpenCell(cell.signs + (0,), equations, cell.strict, hull, point)
        signed = row if s > 0 else tuple(-v for v in row)
        restricted = None
        if cell.restricted is not None:
            r = cell.hull.restrict(signed)
            restricted = cell.restricted + ((r,) if any(r[1:]) else ())
        return _OpenCell(cell.signs + (s,), cell.equations, cell.strict + (signed,), cell.hull, point, restricted)


def _arrangement_cells_bound(k, d):
    """Number of cells of all dimensions of ``k`` affine hyperplanes in general position in ``R^d``."""
    return sum(
        math.comb(k, d - j) * sum(math.comb(k - (d - j), i) for i in range(j + 1)) for j in range(d + 1) if d - j <= k
    )


def canonical_complex(net, domain=None, *, max_cells=1_000_000, oracle=None, progress=None):
    """The canonical polyhedral complex of ``net`` on ``R^n0`` or a polytope domain.

    Parameters
    ----------
    net : ReLUNetwork
    domain : None, Box or Polyhedron
        ``None`` for all of ``R^n0`` (cells may be unbounded); otherwise a
        non-empty bounded polyhedron in ``Q^n0`` whose faces refine the cells.
    max_cells : int
        Refuse (before enumerating a layer) when the estimated number of cells exceeds this.
    oracle : LPOracle, optional
    progress : bool, optional
        Show a progress bar; by default only on a terminal, and only for runs over a second.

    Returns
    -------
    CanonicalComplex

    Raises
    ------
    GeometryError
        An empty, unbounded or wrong-dimensional domain.
    ComplexTooLargeError
        The estimated cell count exceeds ``max_cells``.

    Examples
    --------
    >>> from polyrelu.examples import bent_line_network
    >>> K = canonical_complex(bent_line_network())
    >>> K.f_vector(), K.euler_characteristic()
    ((3, 9, 7), 1)
    >>> K.locate([2, 3]).sign_string, K.locate([1, 0]).dimension
    ('+++', 0)
    >>> canonical_complex(bent_line_network(), Box(-2, 2)).euler_characteristic()
    1
    """
    if not isinstance(net, ReLUNetwork):
        raise TypeError(f"canonical_complex needs a ReLUNetwork, got {type(net).__name__}")
    oracle = oracle if oracle is not None else default_oracle
    n0 = net.architecture.input_dim
    domain = _domain_polyhedron(domain, n0)
    splitter = _Splitter(oracle)
    whole = AffineSubspace.from_equations((), n0)
    cells = [_OpenCell((), (), (), whole, (Fraction(0),) * n0, ())]
    domain_rows = ()
    if domain is not None:
        domain_rows = domain.minimal_h_representation()[0]
        for row in domain_rows:
            cells = [c for cell in cells for c in splitter.split(cell, row, allowed=(1, 0))]
    n_domain = len(domain_rows)
    arch = net.architecture
    start = time.perf_counter()
    bar = tqdm(
        total=arch.num_hidden,
        desc="neurons",
        delay=1.0,
        disable=None if progress is None else not progress,
        file=sys.stderr,
        leave=False,
    )
    for l, width in enumerate(arch.hidden_widths, start=1):
        estimate = _estimate_cells(len(cells), width, n0, l)
        if estimate > max_cells:
            bar.close()
            raise ComplexTooLargeError(
                f"layer {l} would bring the complex to about {estimate:,} cells (now {len(cells):,}), "
                f"over max_cells={max_cells:,}; pass a larger max_cells or a smaller domain"
            )
        prefix_end = n_domain + sum(arch.hidden_widths[: l - 1])
        maps = {}
        for i in range(width):
            new_cells = []
            for cell in cells:
                prefix = cell.signs[n_domain:prefix_end]
                if prefix not in maps:
                    maps[prefix] = _layer_rows(net, l, prefix)
                new_cells.extend(splitter.split(cell, maps[prefix][i]))
            cells = new_cells
            bar.update(1)
            bar.set_postfix(cells=len(cells))
    bar.close()
    elapsed = time.perf_counter() - start
    return CanonicalComplex._from_open_cells(net, domain, domain_rows, n_domain, cells, oracle, elapsed)


def _domain_polyhedron(domain, n0):
    if domain is None:
        return None
    if isinstance(domain, Box):
        return domain.polyhedron(n0)
    if not isinstance(domain, Polyhedron):
        raise GeometryError(f"domain must be None, a Box or a Polyhedron, not {type(domain).__name__}")
    if domain.ambient_dim != n0:
        raise GeometryError(f"the domain lives in Q^{domain.ambient_dim} but the network's input is Q^{n0}")
    if domain.is_empty():
        raise GeometryError("the domain is empty")
    if not domain.is_bounded():
        raise GeometryError("the domain is unbounded; pass domain=None for all of R^n0, or a polytope")
    if not domain.is_full_dimensional():
        raise GeometryError(f"the domain has dimension {domain.dimension()} < {n0}; pass a full-dimensional polytope")
    return domain


def _estimate_cells(current, width, n0, layer):
    """A rough estimate of the cell count after the next layer (for refusing hopeless runs).

    The first layer is an arrangement: at most ``_arrangement_cells_bound`` cells.
    A later layer cuts each cell by ``width`` bent hyperplanes, but a cell
    meets only a few of them; the growth factor used is the arrangement count
    divided by that of ``n0`` hyperplanes (the cells around one vertex).
    """
    bound = _arrangement_cells_bound(width, n0)
    if layer == 1:
        return max(current, 1) * bound if current < 3**n0 else current * max(1, bound // 3**n0)
    return current * max(1, bound // 3**n0)


def _layer_rows(net, layer, prefix):
    """Integer rows ``(g, G)`` of the layer's pre-activations on cells with the given earlier signs."""
    depth_signs = prefix + (0,) * (net.architecture.num_hidden - len(prefix))
    G, g = net.pre_activation_maps(depth_signs)[layer - 1]
    return [primitive_integer_row((gi, *Gi)) for Gi, gi in zip(G, g)]


class CanonicalComplex:
    """The canonical polyhedral complex of a network: cells, face lattice, queries, export.

    Build it with :func:`canonical_complex`; read it back with :meth:`from_json`.
    """

    def __init__(self, network, domain, domain_rows, cells, lattice, elapsed=None):
        self.network = network
        self.domain = domain
        self._domain_rows = tuple(domain_rows)
        self._cells = tuple(cells)
        self.lattice = lattice
        self.elapsed = elapsed
        self._index = {(c.domain_signs, c.signs): c for c in self._cells}

    @classmethod
    def _from_open_cells(cls, net, domain, domain_rows, n_domain, open_cells, oracle, elapsed):
        order = sorted(open_cells, key=lambda c: (c.hull.dimension, c.signs))
        cells = []
        for i, oc in enumerate(order):
            poly = Polyhedron._with_relative_interior(oc.strict, oc.equations, oc.hull, oc.point, oracle)
            cells.append(Cell(i, oc.hull.dimension, oc.signs[n_domain:], oc.signs[:n_domain], poly))
        lattice = FaceLattice([c.dimension for c in cells], _covering([c.domain_signs + c.signs for c in cells], cells))
        return cls(net, domain, domain_rows, cells, lattice, elapsed)

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
        if not isinstance(other, CanonicalComplex):
            return NotImplemented
        return (
            self.network == other.network
            and self._domain_rows == other._domain_rows
            and [(c.dimension, c.signs, c.domain_signs) for c in self]
            == [(c.dimension, c.signs, c.domain_signs) for c in other]
            and self.lattice.covering_relation() == other.lattice.covering_relation()
        )

    def f_vector(self):
        """``(f_0, ..., f_n0)``: the number of cells of each dimension."""
        return self.lattice.f_vector()

    def euler_characteristic(self):
        """``sum_k (-1)^k f_k``: ``(-1)^n0`` on ``R^n0`` and ``1`` on a polytope domain."""
        return self.lattice.euler_characteristic()

    def cells(self, dim=None):
        """All cells, or those of dimension ``dim``."""
        return tuple(c for c in self._cells if dim is None or c.dimension == dim)

    def regions(self):
        """The top-dimensional cells; ``f`` is affine on each."""
        return self.cells(self.network.architecture.input_dim)

    def _cell(self, cell):
        return self._cells[cell.id if isinstance(cell, Cell) else cell]

    def faces(self, cell):
        """Every cell ``τ ≤ cell`` (including ``cell``)."""
        return tuple(self._cells[i] for i in self.lattice.faces(self._cell(cell).id))

    def cofaces(self, cell):
        """Every cell ``σ ≥ cell`` (including ``cell``)."""
        return tuple(self._cells[i] for i in self.lattice.cofaces(self._cell(cell).id))

    def star(self, cell):
        """The closed star of ``cell``: all faces of all its cofaces."""
        return tuple(self._cells[i] for i in self.lattice.star(self._cell(cell).id))

    def affine_map(self, cell):
        """The exact affine map ``(A, c)`` of ``f`` on the closure of ``cell``."""
        return self.network.affine_map(self._cell(cell).signs)

    def locate(self, x):
        """The cell whose relative interior contains ``x`` (exact).

        Raises
        ------
        GeometryError
            ``x`` lies outside the domain.
        """
        x = to_fraction_vector(x, "x", self.network.architecture.input_dim)
        domain_signs = []
        for j, row in enumerate(self._domain_rows):
            v = _value(row, x)
            if v < 0:
                raise GeometryError(f"x = {tuple(map(str, x))} lies outside the domain (facet {j})")
            domain_signs.append(_sign(v))
        return self._index[(tuple(domain_signs), self.network.signs(x))]

    def bent_hypersurface(self, layer, index):
        """The cells of the bent hypersurface ``B_{layer,index}`` (DESIGN §2).

        The facets whose sign at the neuron is ``0`` and whose two regions have
        ``+`` and ``-`` there, with all their faces. Empty for a neuron that
        never changes sign.
        """
        widths = self.network.architecture.hidden_widths
        if not (1 <= layer <= len(widths)) or not (0 <= index < widths[layer - 1]):
            raise ShapeError(f"no hidden neuron ({layer}, {index}); the hidden widths are {widths}")
        k = sum(widths[: layer - 1]) + index
        n0 = self.network.architecture.input_dim
        members = set()
        for facet in self.cells(n0 - 1):
            if facet.signs[k] != 0:
                continue
            sides = {self._cells[r].signs[k] for r in self.lattice.cofacets(facet.id)}
            if sides == {1, -1}:
                members.update(self.lattice.faces(facet.id))
        return tuple(self._cells[i] for i in sorted(members))

    def to_igraph(self):
        """The Hasse diagram as an igraph DAG with vertex attributes ``dim`` and ``signs``."""
        g = self.lattice.hasse_diagram()
        g.vs["signs"] = [c.sign_string for c in self._cells]
        return g

    def to_networkx(self):
        """The Hasse diagram as a networkx DiGraph with node attributes ``dim`` and ``signs``."""
        from .graphs import igraph_to_networkx

        return igraph_to_networkx(self.to_igraph())

    # -- interchange ---------------------------------------------------------------------
    def to_json(self):
        """The complex as a JSON-ready dict (DESIGN §8); exact numbers are strings.

        Every cell carries its minimal H-representation and its V-representation
        (computed here with ``cdd.gmp`` if not yet cached).
        """
        def q(v):
            v = Fraction(v)
            return str(v.numerator) if v.denominator == 1 else f"{v.numerator}/{v.denominator}"

        def rows(rs):
            return [[q(v) for v in r] for r in rs]

        cells = []
        for c in self._cells:
            ieqs, eqns = c.polyhedron.minimal_h_representation()
            vertices, rays, lines = c.polyhedron.vertices_rays_lines()
            entry = {
                "id": c.id,
                "dim": c.dimension,
                "signs": c.sign_string,
                "domain_signs": "".join("+" if s else "0" for s in c.domain_signs),
                "relative_interior_point": [q(v) for v in c.relative_interior_point()],
                "vertices": rows(vertices),
                "rays": rows(rays),
                "lines": rows(lines),
                "ieqs": rows(ieqs),
                "eqns": rows(eqns),
            }
            if c.dimension == self.network.architecture.input_dim:
                A, b = self.affine_map(c)
                entry["affine_map"] = {"A": rows(A), "b": [q(v) for v in b]}
            cells.append(entry)
        return {
            "format": COMPLEX_FORMAT,
            "version": COMPLEX_VERSION,
            "network": network_to_dict(self.network),
            "ambient_dim": self.network.architecture.input_dim,
            "domain": None if self.domain is None else {"ieqs": rows(self._domain_rows)},
            "neurons": [list(n) for n in self.network.architecture.hidden_neurons()],
            "cells": cells,
            "covering": [list(p) for p in self.lattice.covering_relation()],
            "f_vector": list(self.f_vector()),
            "euler_characteristic": self.euler_characteristic(),
        }

    def write_json(self, path):
        """Write :meth:`to_json` to ``path``."""
        with open(path, "w") as fh:
            json.dump(self.to_json(), fh)
            fh.write("\n")

    @classmethod
    def from_json(cls, data):
        """Rebuild a complex from :meth:`to_json` output (a dict, JSON text or a path).

        Nothing is recomputed except consistency checks: the cells keep the
        exported H- and V-representations.

        Raises
        ------
        NetworkFormatError
            Not a polyrelu complex, another version, or inconsistent content.
        """
        if isinstance(data, str) and not data.lstrip().startswith("{"):
            with open(data) as fh:
                data = fh.read()
        if isinstance(data, str):
            try:
                data = json.loads(data)
            except json.JSONDecodeError as exc:
                raise NetworkFormatError(f"complex JSON: invalid at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
        if not isinstance(data, dict) or data.get("format") != COMPLEX_FORMAT:
            raise NetworkFormatError(f"not a polyrelu complex (format {data.get('format') if isinstance(data, dict) else None!r})")
        if data.get("version") != COMPLEX_VERSION:
            raise NetworkFormatError(f"unsupported complex version {data.get('version')!r}; expected {COMPLEX_VERSION}")
        try:
            net = network_from_dict(data["network"], source="complex network")
            n0 = net.architecture.input_dim
            domain_rows = tuple(primitive_integer_row([Fraction(v) for v in r]) for r in (data["domain"] or {}).get("ieqs", []))
            domain = Polyhedron(ieqs=domain_rows, ambient_dim=n0) if data["domain"] is not None else None
            cells = []
            for i, entry in enumerate(data["cells"]):
                if entry["id"] != i:
                    raise NetworkFormatError(f"complex JSON: cell {i} has id {entry['id']}")
                poly = Polyhedron(
                    ieqs=[[Fraction(v) for v in r] for r in entry["ieqs"]],
                    eqns=[[Fraction(v) for v in r] for r in entry["eqns"]],
                    ambient_dim=n0,
                )
                poly._vrep = (
                    tuple(tuple(Fraction(v) for v in r) for r in entry["vertices"]),
                    tuple(tuple(int(v) for v in r) for r in entry["rays"]),
                    tuple(tuple(int(v) for v in r) for r in entry["lines"]),
                )
                signs = tuple({"+": 1, "-": -1, "0": 0}[ch] for ch in entry["signs"])
                domain_signs = tuple(1 if ch == "+" else 0 for ch in entry["domain_signs"])
                cells.append(Cell(i, entry["dim"], signs, domain_signs, poly))
            lattice = FaceLattice([c.dimension for c in cells], [tuple(p) for p in data["covering"]])
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, PolyReluError):
                raise
            raise NetworkFormatError(f"complex JSON is malformed: {type(exc).__name__}: {exc}") from None
        return cls(net, domain, domain_rows, cells, lattice)


def _covering(signs, cells):
    """All pairs ``(τ, σ)`` with ``τ ⋖ σ``, from sign vectors: ``s(τ) ≤ s(σ)`` and one dimension up.

    The cofacets of ``τ`` differ from it only at its zeros. Few zeros: try
    every sign change there; many (a degenerate point where many neurons
    vanish): scan the cells one dimension up.
    """
    index = {s: i for i, s in enumerate(signs)}
    by_dim = defaultdict(list)
    for c in cells:
        by_dim[c.dimension].append(c.id)
    covers = []
    for c in cells:
        s = signs[c.id]
        zeros = [k for k, v in enumerate(s) if v == 0]
        up = c.dimension + 1
        if 3 ** len(zeros) <= 4 * len(by_dim[up]) + 64:
            for choice in itertools.product((-1, 0, 1), repeat=len(zeros)):
                if not any(choice):
                    continue
                t = list(s)
                for k, v in zip(zeros, choice):
                    t[k] = v
                j = index.get(tuple(t))
                if j is not None and cells[j].dimension == up:
                    covers.append((c.id, j))
        else:
            nonzero = [k for k, v in enumerate(s) if v != 0]
            for j in by_dim[up]:
                t = signs[j]
                if all(t[k] == s[k] for k in nonzero):
                    covers.append((c.id, j))
    return covers
