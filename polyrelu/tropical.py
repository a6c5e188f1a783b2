"""Tropical weights of the canonical complex: how much ``f`` bends on every facet.

For a facet ``σ`` between regions ``R-`` and ``R+``, continuity of ``f`` forces the
jump of its Jacobian to be rank one, ``J(R+) - J(R-) = w(σ) ⊗ ν`` (docs/design.md §3),
with ``ν`` the primitive integer normal of the facet's affine hull pointing
from ``R-`` into ``R+``. The weight ``w(σ) ∈ Q^m`` is exact; ``w(σ)·|ν|`` is the
Euclidean weight (a float, for display). Around every codimension-2 cell the
jumps met in one turn sum to zero (balancing); :meth:`WeightedComplex.balancing_defect`
computes that sum from the weights and normals, exactly.

Also here, from the weights: every hidden neuron's bent hypersurface
(:func:`bent_hypersurfaces`, :class:`BentHypersurface`: its facets and cells,
and where and along which earlier neurons it bends), and the breakpoint
complex of ``f`` alone (:func:`breakpoint_complex`, :class:`BreakpointComplex`:
regions joined across facets of weight zero, docs/design.md §5).
"""

from __future__ import annotations

import contextlib
import json
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from .checks import describe, require_index, require_instance, require_int, require_path
from .complex import CanonicalComplex, Cell, PatternMaps, paused_gc
from .errors import GeometryError, InvalidArgumentError, UsageError
from .geometry import FaceLattice, Polyhedron
from .geometry.rational import (
    FractionMatrix,
    FractionVector,
    IntegerRow,
    fraction_to_json,
    primitive_integer_row,
)

__all__ = [
    "FacetWeight",
    "WeightedComplex",
    "tropical_weights",
    "BentHypersurface",
    "bent_hypersurfaces",
    "BreakpointComplex",
    "breakpoint_complex",
]


@dataclass(frozen=True, slots=True)
class FacetWeight:
    """The weight of one facet of the canonical complex.

    Attributes
    ----------
    facet : int
        The facet's cell id.
    weight : tuple of Fraction
        ``w(σ) ∈ Q^m`` relative to the primitive integer normal.
    normal : tuple of int
        ``ν``: primitive, pointing from ``minus_region`` into ``plus_region``.
    minus_region, plus_region : int
        Cell ids of the two regions.
    neurons : tuple of (int, int)
        The hidden neurons that vanish on the facet and change sign across it
        (several only when their zero sets coincide there).
    """

    facet: int
    weight: FractionVector
    normal: tuple[int, ...]
    minus_region: int
    plus_region: int
    neurons: tuple[tuple[int, int], ...]

    @property
    def euclidean_weight(self) -> tuple[float, ...]:
        """``w(σ)·|ν|``, the weight relative to the unit normal (floats, for display).

        Computed from the exact ``w(σ)`` and ``|ν|²``, correctly rounded up to
        an ulp or two; an entry beyond the float range is ``±inf`` (never an
        ``OverflowError``), one below it ``0.0``.

        Examples
        --------
        >>> FacetWeight(0, (Fraction(10) ** 400, Fraction(1, 2)), (1, 1), 0, 1, ()).euclidean_weight
        (inf, 0.7071067811865476)
        """
        square = sum(v * v for v in self.normal)
        return tuple(_times_square_root(w, square) for w in self.weight)


def _times_square_root(value, square):
    """``value·√square`` as a float from the exact ``value`` (a rational) and ``square`` (an integer >= 0).

    ``value²·square`` is formed exactly and scaled by an even power of two into
    ``[1/4, 4)``, where ``float`` and ``sqrt`` are accurate; the power comes
    back with ``ldexp``, which overflows to ``inf`` instead of raising.
    """
    value = Fraction(value)
    if not value or not square:
        return 0.0
    num, den = value.numerator**2 * square, value.denominator**2
    shift = (num.bit_length() - den.bit_length()) // 2 * 2
    scaled = Fraction(num, den << shift) if shift >= 0 else Fraction(num << -shift, den)
    try:
        magnitude = math.ldexp(math.sqrt(float(scaled)), shift // 2)
    except OverflowError:
        magnitude = math.inf
    return magnitude if value > 0 else -magnitude


class WeightedComplex:
    """A canonical complex together with the weights of its facets.

    Build it with :func:`tropical_weights`.
    """

    def __init__(self, complex_: CanonicalComplex, weights: Mapping[int, FacetWeight]) -> None:
        self.complex = complex_
        self._weights = dict(weights)

    def __repr__(self):
        nonzero = sum(1 for w in self._weights.values() if any(w.weight))
        return f"<WeightedComplex: {len(self._weights)} interior facets, {nonzero} with non-zero weight>"

    def to_json(
        self, hypersurfaces: Mapping[tuple[int, int], BentHypersurface] | None = None, *, version: int = 2
    ) -> dict[str, Any]:
        """The complex's JSON plus ``facet_weights``, ``bent_hypersurfaces`` and ``breakpoint_complex``.

        The breakpoint complex's cells are listed with the canonical cells they join. ``version`` is the
        complex document's format version (:meth:`CanonicalComplex.to_json`: 2, compact, by default, or 1);
        the added keys are the same in both.

        Valid under the same schema, ``complex`` (:func:`polyrelu.schemas.validate`).
        """
        caller = "WeightedComplex.to_json"
        version = require_int(version, "version", caller, minimum=1, maximum=2)
        items = self._json_items(require_hypersurfaces(hypersurfaces, self.complex, "hypersurfaces", caller))
        data = self.complex.to_json(version=version)
        data.update(items)
        return data

    def write_json(
        self,
        path: os.PathLike | str,
        hypersurfaces: Mapping[tuple[int, int], BentHypersurface] | None = None,
        *,
        version: int = 2,
    ) -> None:
        """Write the document of :meth:`to_json` to ``path``, streamed and atomically.

        Exactly the text :func:`json.dump` writes for :meth:`to_json` of the
        same ``version`` (and a final newline), the complex's part written in
        pieces (:meth:`CanonicalComplex.write_json`).

        Raises
        ------
        OutputPathError
            ``path`` cannot be written.
        InvalidArgumentError, UsageError
            ``version`` is not 1 or 2.
        """
        caller = "WeightedComplex.write_json"
        path = require_path(path, "path", caller)
        version = require_int(version, "version", caller, minimum=1, maximum=2)
        items = self._json_items(require_hypersurfaces(hypersurfaces, self.complex, "hypersurfaces", caller))
        extra = "".join(f", {json.dumps(key)}: {json.dumps(value, allow_nan=False)}" for key, value in items)
        self.complex._write_chunks(path, extra, version)

    def _json_items(self, hypersurfaces):
        """The keys :meth:`to_json` adds to the complex's document, with their values."""

        def q(v):
            return str(fraction_to_json(v))

        facet_weights = [
            {
                "facet": w.facet,
                "weight": [q(v) for v in w.weight],
                "normal": [str(v) for v in w.normal],
                "minus_region": w.minus_region,
                "plus_region": w.plus_region,
                "neurons": [list(n) for n in w.neurons],
            }
            for _, w in sorted(self._weights.items())
        ]
        B = hypersurfaces if hypersurfaces is not None else bent_hypersurfaces(self.complex, self)
        bent = [
            {
                "neuron": list(b.neuron),
                "facets": list(b.facets),
                "cells": list(b.cells),
                "bends": [{"cell": t, "along": [list(n) for n in along]} for t, along in b.bends],
            }
            for b in B.values()
        ]
        breakpoints = breakpoint_complex(self)
        breakpoint_data = {
            "cells": [
                {"id": i, "dim": breakpoints.lattice.dimension(i), "members": list(breakpoints.members(i))}
                for i in range(len(breakpoints))
            ],
            "covering": [list(p) for p in breakpoints.lattice.covering_relation()],
            "f_vector": list(breakpoints.f_vector()),
            "euler_characteristic": breakpoints.euler_characteristic(),
        }
        return [("facet_weights", facet_weights), ("bent_hypersurfaces", bent), ("breakpoint_complex", breakpoint_data)]

    def weights(self) -> Mapping[int, FacetWeight]:
        """All facet weights, by facet id (facets on a domain's boundary have none), read-only."""
        return MappingProxyType(self._weights)

    def weight(self, facet: Cell | int) -> FacetWeight:
        """The :class:`FacetWeight` of a facet (a cell or its id)."""
        fid = self.complex.cell(facet, name="facet", caller="WeightedComplex.weight").id
        if fid not in self._weights:
            raise GeometryError(f"WeightedComplex.weight: facet {fid} is not an interior facet of the complex")
        return self._weights[fid]

    def balancing_defect(self, cell: Cell | int) -> FractionMatrix:
        """``Σ ±w(σ) ⊗ ν(σ)`` over one turn around a codimension-2 cell, as an ``m × n0`` matrix.

        The facets ``σ`` containing the cell and the regions between them form a
        cycle; each facet is crossed once, with sign ``+`` when the turn enters
        its ``plus_region``. For correct weights the sum is exactly zero.

        Raises
        ------
        GeometryError
            The cell is not of codimension 2, or lies on a domain's boundary.
        """
        K = self.complex
        tau = K.cell(cell, caller="WeightedComplex.balancing_defect")
        n0 = K.network.architecture.input_dim
        if tau.dimension != n0 - 2:
            raise GeometryError(f"cell {tau.id} has dimension {tau.dimension}, not n0 - 2 = {n0 - 2}")
        facets = [s for s in K.lattice.cofacets(tau.id)]
        if any(f not in self._weights for f in facets):
            raise GeometryError(f"cell {tau.id} lies on the domain's boundary; balancing is checked inside only")
        around: dict[int, list[int]] = {}  # region -> the facets through tau that bound it
        for f in facets:
            w = self._weights[f]
            for r in (w.minus_region, w.plus_region):
                around.setdefault(r, []).append(f)
        m = K.network.architecture.output_dim
        defect = [[Fraction(0)] * n0 for _ in range(m)]
        start = facets[0]
        region, facet = self._weights[start].minus_region, start
        for _ in range(len(facets)):
            w = self._weights[facet]
            sign = 1 if w.minus_region == region else -1
            region = w.plus_region if sign == 1 else w.minus_region
            for i in range(m):
                for j in range(n0):
                    defect[i][j] += sign * w.weight[i] * w.normal[j]
            nxt = [f for f in around[region] if f != facet]
            if len(nxt) != 1:
                raise GeometryError(f"region {region} meets {len(around[region])} facets through cell {tau.id}, not 2")
            facet = nxt[0]
        if facet != start:
            raise GeometryError(f"the facets around cell {tau.id} do not close up into one turn")
        return tuple(tuple(row) for row in defect)


def tropical_weights(complex_: CanonicalComplex) -> WeightedComplex:
    """The exact weight of every interior facet of a canonical complex (docs/design.md §3).

    Parameters
    ----------
    complex_ : CanonicalComplex

    Returns
    -------
    WeightedComplex

    Raises
    ------
    GeometryError
        A Jacobian jump that is not rank one (which continuity excludes: a bug).

    Examples
    --------
    The worked example ``f(x) = relu(relu(x1) + relu(x2) - 1)``: the middle piece
    of the bent line has weight 1 relative to the normal ``(1, 1)``, i.e.
    Euclidean weight ``√2``; the ray ``{x2 = 0, x1 < 1}`` is invisible.

    >>> from polyrelu import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> K = canonical_complex(bent_line_network())
    >>> W = tropical_weights(K)
    >>> segment = W.weight(K.locate(["1/2", "1/2"]))
    >>> segment.weight, segment.normal, round(segment.euclidean_weight[0], 6), segment.neurons
    ((Fraction(1, 1),), (1, 1), 1.414214, ((2, 0),))
    >>> W.weight(K.locate(["1/2", 0])).weight
    (Fraction(0, 1),)
    """
    K = require_instance(complex_, CanonicalComplex, "complex_", "tropical_weights")
    with paused_gc():
        return WeightedComplex(K, _facet_weights(K))


def _facet_weights(K):
    """The weight of every interior facet, in integer arithmetic from the cells' signs alone.

    The Jacobians come from :class:`~polyrelu.complex.PatternMaps` (scaled by
    one common constant, which the weights divide out). The facet's hyperplane
    is the zero set of a neuron ``k`` that separates its two regions: on a
    region ``R`` where ``z_k`` has sign ``σ ≠ 0``, its formula ``g + G·x``
    vanishes on the facet and has sign ``σ`` on ``R``, so ``G`` is normal to
    the facet and ``R`` lies on the side of ``σG``. No polyhedron is needed.

    Most facets separate regions whose signs differ at that neuron alone: their
    jump is the neuron's gradient times the output's derivative by it
    (:func:`_single_neuron_weight`, sums of ints for one neuron). Where several
    neurons change together, the jump is the difference of the regions' maps.
    """
    net = K.network
    n0 = net.architecture.input_dim
    neurons = net.architecture.hidden_neurons()
    position = [(l, i) for l, w in enumerate(net.architecture.hidden_widths, start=1) for i in range(w)]
    maps = PatternMaps(net)
    cells, cofacets = K.cells(), K.lattice.cofacets
    jacobians: dict[int, tuple[IntegerRow, ...]] = {}
    weights = {}
    for facet in K.cells(n0 - 1):
        regions = cofacets(facet.id)
        if len(regions) != 2:
            continue  # on the boundary of a polytope domain
        first, second = regions
        # The neurons vanishing on the facet (few: found by index, in C) include every neuron whose sign
        # differs between the regions; on a region where such a neuron does not vanish, its gradient is
        # normal to the facet and points to that region's side when multiplied by its sign there.
        s1, s2, zeros, k = cells[first].signs, cells[second].signs, [], -1
        with contextlib.suppress(ValueError):
            while True:
                k = facet.signs.index(0, k + 1)
                zeros.append(k)
        k = next((k for k in zeros if s1[k] != s2[k]), None)
        if k is None:
            raise GeometryError(f"facet {facet.id}: its regions have signs that differ where it does not vanish (not a complex of f?)")
        if s1[k] * s2[k] == -1 and s1[:k] == s2[:k] and s1[k + 1 :] == s2[k + 1 :]:
            weights[facet.id] = _single_neuron_weight(maps, facet.id, first, second, s2, k, neurons[k])
            continue
        region, sign = (second, s2[k]) if s2[k] else (first, s1[k])
        gradient = maps.gradient(cells[region].signs, *position[k])
        jump = maps.jacobian_jump(s1, s2, zeros)  # across a facet of the last layer: from its own neurons
        if jump is None:
            for r in regions:
                if r not in jacobians:
                    jacobians[r] = maps.affine_map(cells[r].signs)[0]
            jump = [[a - b for a, b in zip(ra, rb)] for ra, rb in zip(jacobians[second], jacobians[first])]
        jump = [list(r) for r in jump]
        # Continuity makes every row of the jump a multiple of the facet's normal: a non-zero row gives
        # it (and its orientation); with no jump, the normal of the hyperplane, first non-zero entry positive.
        row = next((r for r in jump if any(r)), None)
        normal = primitive_integer_row(row if row is not None else gradient)
        j = next(i for i, v in enumerate(normal) if v)
        if row is None and normal[j] < 0:
            normal = tuple([-v for v in normal])
        if any(g * normal[j] != v * gradient[j] for g, v in zip(gradient, normal)):
            raise GeometryError(f"the Jacobian jump across facet {facet.id} is not normal to it (f is not continuous?)")
        side = sign * gradient[j] * normal[j]  # > 0: the region lies on the side the normal points to
        minus, plus = first, second
        if (side > 0) != (region == second):
            minus, plus = second, first
            jump = [[-v for v in r] for r in jump]
        if any(r[i] * normal[j] != r[j] * normal[i] for r in jump for i in range(n0)):
            raise GeometryError(f"the Jacobian jump across facet {facet.id} is not rank one: {jump}")
        weight = tuple([Fraction(r[j], maps.scale * normal[j]) for r in jump])
        changing = tuple([neurons[k] for k in zeros if s1[k] * s2[k] == -1])
        weights[facet.id] = FacetWeight(facet.id, weight, normal, minus, plus, changing)
    return weights


def _single_neuron_weight(maps, facet, first, second, signs, k, neuron):
    """The weight of a facet whose regions' sign vectors differ at neuron ``k`` alone; ``signs``: the second's.

    Turning the neuron on changes the scaled Jacobian by ``d ⊗ G``
    (:meth:`PatternMaps.output_derivative`, :meth:`PatternMaps.gradient`):
    rank one, normal to the facet, whatever the other neurons do. With
    ``g = gcd(G)`` and the normal ``±G/g``, the weight is ``d·g/scale`` for
    either orientation (the plus region is where ``±z_k > 0``); the
    orientation is that of the first non-zero row of the jump from ``first``
    to ``second``, as for any facet, or with no jump the first non-zero entry
    of the normal positive.
    """
    gradient = maps.gradient(signs, *neuron)
    g = math.gcd(*gradient)
    if not g:
        raise GeometryError(f"facet {facet}: neuron {neuron} changes sign across it but is constant there (not a complex of f?)")
    d = maps.output_derivative(signs, *neuron)
    lead = next((v for v in d if v), 0) * signs[k]  # the jump's first non-zero row is lead·G
    orient = 1 if (lead or next(v for v in gradient if v)) > 0 else -1
    minus, plus = (first, second) if signs[k] == orient else (second, first)
    normal = tuple([orient * v // g for v in gradient])
    return FacetWeight(facet, tuple([Fraction(v * g, maps.scale) for v in d]), normal, minus, plus, (neuron,))


@dataclass(frozen=True)
class BentHypersurface:
    """The bent hypersurface ``B_z`` of one hidden neuron (docs/design.md §2).

    Attributes
    ----------
    neuron : (int, int)
        ``(layer, index)``.
    facets : tuple of int
        Facets whose sign at the neuron is 0 and whose two regions have ``+`` and ``-`` there.
    cells : tuple of int
        The facets and all their faces.
    bends : tuple of (int, tuple)
        Codimension-2 cells of ``B_z`` where it is not flat (its two facets there have
        different normals), each with the other neurons that vanish there and
        belong to earlier layers: those it bends along.
    """

    neuron: tuple[int, int]
    facets: tuple[int, ...]
    cells: tuple[int, ...]
    bends: tuple[tuple[int, tuple[tuple[int, int], ...]], ...]

    @property
    def is_empty(self) -> bool:
        return not self.facets


def bent_hypersurfaces(complex_: CanonicalComplex, weighted: WeightedComplex | None = None) -> dict[tuple[int, int], BentHypersurface]:
    """The bent hypersurface of every hidden neuron, with where and along what it bends.

    Parameters
    ----------
    complex_ : CanonicalComplex
    weighted : WeightedComplex, optional
        If given, the facets' normals are taken from its weights instead of
        being computed again from each facet's affine hull.

    Returns
    -------
    dict
        ``(layer, index) -> BentHypersurface``; empty ones for dead or
        always-active neurons and for neurons that vanish on a whole region.

    Examples
    --------
    >>> from polyrelu import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> K = canonical_complex(bent_line_network())
    >>> B = bent_hypersurfaces(K)[2, 0]
    >>> len(B.facets), [(K[t].polyhedron.vertices(), along) for t, along in B.bends]
    (3, [(((Fraction(0, 1), Fraction(1, 1)),), ((1, 0),)), (((Fraction(1, 1), Fraction(0, 1)),), ((1, 1),))])
    """
    K = require_instance(complex_, CanonicalComplex, "complex_", "bent_hypersurfaces")
    require_weighted(weighted, K, "weighted", "bent_hypersurfaces", optional=True)
    arch = K.network.architecture
    n0 = arch.input_dim
    neurons = arch.hidden_neurons()
    known = weighted.weights() if weighted is not None else {}
    out = {}
    for k, (layer, index) in enumerate(neurons):
        facets = tuple(c.id for c in K.bent_hypersurface(layer, index) if c.dimension == n0 - 1)
        cells = tuple(c.id for c in K.bent_hypersurface(layer, index))
        bends = []
        if n0 >= 2:
            members = set(facets)
            for t in cells:
                if K[t].dimension != n0 - 2:
                    continue
                through = [f for f in K.lattice.cofacets(t) if f in members]
                normals = {_line(K, f, known) for f in through}
                if len(normals) > 1:
                    along = tuple(
                        neurons[j] for j, s in enumerate(K[t].signs) if s == 0 and neurons[j][0] < layer
                    )
                    bends.append((t, along))
        out[layer, index] = BentHypersurface((layer, index), facets, cells, tuple(bends))
    return out


def require_weighted(value, complex_, name, caller, *, optional=False):
    """``value`` if it is the :class:`WeightedComplex` of ``complex_`` (or None when ``optional``).

    Raises
    ------
    InvalidArgumentError
        Not a WeightedComplex.
    UsageError
        The weights of another complex.
    """
    if require_instance(value, WeightedComplex, name, caller, optional=optional) is not None and value.complex is not complex_:
        raise UsageError(
            f"{caller}: {name} holds the weights of another complex; compute them with polyrelu.tropical_weights(complex_)"
        )
    return value


def require_hypersurfaces(value, complex_, name, caller):
    """``value`` if it maps every hidden neuron of ``complex_``'s network to a :class:`BentHypersurface` (None passes).

    Raises
    ------
    InvalidArgumentError
        Not a mapping, or a value that is not a BentHypersurface.
    UsageError
        The neurons are not those of the network (the hypersurfaces of another network).
    """
    if value is None:
        return None
    if not isinstance(value, Mapping):
        raise InvalidArgumentError(
            f"{caller}: {name} must be a dict of BentHypersurface by neuron, as polyrelu.bent_hypersurfaces(complex_) "
            f"returns, got {describe(value)}"
        )
    neurons = complex_.network.architecture.hidden_neurons()
    if set(value) != set(neurons):
        raise UsageError(f"{caller}: {name} must have one entry per hidden neuron {neurons}; compute it with polyrelu.bent_hypersurfaces(complex_)")
    odd = [v for v in value.values() if not isinstance(v, BentHypersurface)]
    if odd:
        raise InvalidArgumentError(f"{caller}: {name} must map neurons to BentHypersurface, got {describe(odd[0])}")
    return value


def _primitive_normal(facet):
    """The primitive integer normal of a facet's affine hull (one of its two orientations)."""
    (_, *normal), = facet.polyhedron.affine_hull().equations
    g = math.gcd(*normal)  # the equation row is primitive with its constant; the normal alone need not be
    return [v // g for v in normal]


def _line(K, facet, weights):
    """The facet's hyperplane direction: its primitive normal up to sign (from ``weights`` when there)."""
    normal = weights[facet].normal if facet in weights else _primitive_normal(K[facet])
    sign = 1 if next(v for v in normal if v) > 0 else -1
    return tuple(sign * v for v in normal)


class BreakpointComplex:
    """The weighted complex of ``f`` alone (docs/design.md §5), built by :func:`breakpoint_complex`.

    Its cells are classes of cells of the canonical complex: regions joined
    across facets where ``f`` does not bend, and the pieces of the bending
    locus joined across lower cells where nothing else happens. Everything it
    exposes depends on the function only, not on the parameters computing it.

    Attributes
    ----------
    lattice : FaceLattice
        Cells ``0 .. n-1``, with ``data(i)`` the ids of the canonical cells in class ``i``.
    """

    def __init__(self, weighted: WeightedComplex, classes: Sequence[tuple[int, ...]], lattice: FaceLattice) -> None:
        self.weighted = weighted
        self.complex = weighted.complex
        self._classes = classes
        self.lattice = lattice

    def __len__(self):
        return len(self._classes)

    def __repr__(self):
        return f"<BreakpointComplex: f-vector {self.f_vector()}>"

    def f_vector(self) -> tuple[int, ...]:
        return self.lattice.f_vector()

    def euler_characteristic(self) -> int:
        return self.lattice.euler_characteristic()

    def members(self, cell: int) -> tuple[int, ...]:
        """The canonical cells that make up a breakpoint cell."""
        return self._classes[self._index(cell, "BreakpointComplex.members")]

    def _index(self, cell, caller):
        if type(cell) is int and 0 <= cell < len(self._classes):  # cheap when it is one: called in loops
            return cell
        return require_index(cell, len(self._classes), "cell", caller)

    def closure(self, cell: int) -> Polyhedron:
        """The closed cell as a Polyhedron: the convex hull of its members' generators."""
        vertices, rays, lines = set(), set(), set()
        for c in self._classes[self._index(cell, "BreakpointComplex.closure")]:
            v, r, l = self.complex[c].polyhedron.vertices_rays_lines()
            vertices.update(v)
            rays.update(r)
            lines.update(l)
        return Polyhedron(vertices=sorted(vertices), rays=sorted(rays), lines=sorted(lines))

    def weight(self, cell: int) -> FractionVector:
        """The weight vector of a breakpoint facet (any member's; they agree)."""
        W = self.weighted.weights()
        weights = [W[c].weight for c in self._classes[self._index(cell, "BreakpointComplex.weight")] if c in W]
        if not weights:
            raise GeometryError(f"BreakpointComplex.weight: cell {cell} is not an interior facet; only those have a weight")
        return weights[0]

    @property
    def input_dim(self) -> int:
        return self.complex.network.architecture.input_dim

    def is_interior(self, cell: int) -> bool:
        """Whether the cell lies off the domain's boundary (always, on ``R^n0``)."""
        return all(all(self.complex[c].domain_signs) for c in self._classes[self._index(cell, "BreakpointComplex.is_interior")])

    def breakpoint_facets(self) -> tuple[int, ...]:
        """The cells of dimension ``n0 - 1`` where ``f`` bends: interior, non-zero weight."""
        n0 = self.input_dim
        W = self.weighted.weights()
        return tuple(
            i
            for i in self.lattice.cells(n0 - 1)
            if self.is_interior(i) and any(c in W and any(W[c].weight) for c in self._classes[i])
        )

    def hyperplane(self, cell: int) -> IntegerRow:
        """The affine hull of a breakpoint facet: a primitive integer row ``(b, a)``, ``{b + a·x = 0}``.

        Normalised so that the first non-zero entry of ``a`` is positive; two
        facets lie on one hyperplane exactly when their rows are equal.
        """
        n0 = self.input_dim
        cell = self._index(cell, "BreakpointComplex.hyperplane")
        if self.lattice.dimension(cell) != n0 - 1:
            raise GeometryError(f"breakpoint cell {cell} has dimension {self.lattice.dimension(cell)}, not n0 - 1")
        W = self.weighted.weights()
        member = next((c for c in self._classes[cell] if c in W), None)
        if member is None:  # a facet of the domain's boundary
            member = next(c for c in self._classes[cell] if self.complex[c].dimension == n0 - 1)
            (row,) = self.complex[member].polyhedron.affine_hull().equations
        else:
            normal = W[member].normal
            point = self.complex[member].polyhedron.vertices_rays_lines()[0][0]
            row = primitive_integer_row((-sum(n * x for n, x in zip(normal, point)), *normal))
        sign = 1 if next(v for v in row[1:] if v) > 0 else -1
        return tuple(sign * v for v in row)

    def neurons(self, cell: int) -> tuple[tuple[int, int], ...]:
        """The hidden neurons changing sign across a breakpoint facet: parameter data, for comparisons only."""
        W = self.weighted.weights()
        return tuple(sorted({z for c in self._classes[self._index(cell, "BreakpointComplex.neurons")] if c in W for z in W[c].neurons}))

    def canonical_form(self) -> tuple[tuple[Any, ...], tuple[tuple[int, int], ...]]:
        """A description that depends on ``f`` only: per cell, its dimension, canonical closure and data.

        Cells are sorted; regions carry their affine map, facets their weight up to
        the orientation of the normal; the covering relation refers to the sorted order.
        Two networks compute complexes with equal canonical forms when they compute
        the same function.
        """
        n0 = self.complex.network.architecture.input_dim
        keys = []
        for i in range(len(self)):
            dim = self.lattice.dimension(i)
            extra: tuple[Any, ...] = ()
            if dim == n0:
                extra = self.complex.affine_map(self._classes[i][0])
            elif dim == n0 - 1 and any(c in self.weighted.weights() for c in self._classes[i]):
                w = self.weight(i)
                extra = max(w, tuple(-v for v in w))  # the weight up to the normal's orientation
            keys.append((dim, self.closure(i).minimal_h_representation(), extra))
        order = sorted(range(len(self)), key=keys.__getitem__)
        rank = {old: new for new, old in enumerate(order)}
        covering = tuple(sorted((rank[a], rank[b]) for a, b in self.lattice.covering_relation()))
        return tuple(keys[i] for i in order), covering

    def __eq__(self, other):
        if not isinstance(other, BreakpointComplex):
            return NotImplemented
        return self.canonical_form() == other.canonical_form()


def breakpoint_complex(weighted: WeightedComplex) -> BreakpointComplex:
    """The breakpoint complex of ``f`` from a weighted canonical complex (docs/design.md §5).

    Regions are joined across facets of weight zero (``f`` keeps its affine map
    there). Then, from high dimension to low, a cell ``τ`` joins those of its
    cofacets that touch exactly the same joined regions (and domain facets) as
    ``τ`` does, when they all belong to one class (``τ`` lies inside it), or
    when they are all of one dimension more and on one affine subspace (two
    collinear pieces of a visible line through a crossing with an invisible
    one). Breakpoints and crossings stay cells.

    Parameters
    ----------
    weighted : WeightedComplex

    Returns
    -------
    BreakpointComplex

    Examples
    --------
    The worked example: the bent line and the two visible half-axes, four regions.

    >>> from polyrelu import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> B = breakpoint_complex(tropical_weights(canonical_complex(bent_line_network())))
    >>> B.f_vector(), B.euler_characteristic()
    ((2, 5, 4), 1)
    """
    W = require_instance(weighted, WeightedComplex, "weighted", "breakpoint_complex")
    K = W.complex
    n0 = K.network.architecture.input_dim
    parent = list(range(len(K)))
    class_dim = [c.dimension for c in K]  # at roots: the largest dimension in the class

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    def union(a, b):
        ra, rb = find(a), find(b)
        if ra != rb:
            root, child = min(ra, rb), max(ra, rb)
            parent[child] = root
            class_dim[root] = max(class_dim[root], class_dim[child])

    weights = W.weights()
    for f, w in weights.items():
        if not any(w.weight):
            union(w.minus_region, w.plus_region)
    regions = {r.id for r in K.regions()}
    touching = {}
    for c in K:
        joined = frozenset(find(r) for r in K.lattice.cofaces(c.id) if r in regions)
        touching[c.id] = (joined, c.domain_signs)
    for dim in range(n0 - 1, -1, -1):
        for tau in K.cells(dim):
            same = [s for s in K.lattice.cofacets(tau.id) if touching[s] == touching[tau.id]]
            if not same:
                continue
            classes = {find(s) for s in same}
            if len(classes) == 1:  # surrounded by one class: τ lies inside it
                union(tau.id, same[0])
            elif len({_hull(K[s]) for s in same}) == 1 and all(class_dim[c] == dim + 1 for c in classes):
                for s in same:
                    union(tau.id, s)
    groups: dict[int, list[int]] = {}
    for c in K:
        groups.setdefault(find(c.id), []).append(c.id)
    roots = sorted(groups)
    index = {r: i for i, r in enumerate(roots)}
    dims = [class_dim[r] for r in roots]
    covers = set()
    for a, b in K.lattice.covering_relation():
        ca, cb = index[find(a)], index[find(b)]
        if ca != cb and dims[cb] == dims[ca] + 1:
            covers.add((ca, cb))
    members = [tuple(groups[r]) for r in roots]
    return BreakpointComplex(W, members, FaceLattice(dims, sorted(covers), data=members))


def _hull(cell):
    return cell.polyhedron.affine_hull().equations
