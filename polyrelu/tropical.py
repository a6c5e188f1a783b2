"""Tropical weights of the canonical complex: how much ``f`` bends on every facet.

For a facet ``σ`` between regions ``R-`` and ``R+``, continuity of ``f`` forces the
jump of its Jacobian to be rank one, ``J(R+) - J(R-) = w(σ) ⊗ ν`` (DESIGN §3),
with ``ν`` the primitive integer normal of the facet's affine hull pointing
from ``R-`` into ``R+``. The weight ``w(σ) ∈ Q^m`` is exact; ``w(σ)·|ν|`` is the
Euclidean weight (a float, for display). Around every codimension-2 cell the
jumps met in one turn sum to zero (balancing); :meth:`WeightedComplex.balancing_defect`
computes that sum from the weights and normals, exactly.
"""

import math
from dataclasses import dataclass
from fractions import Fraction

from .errors import GeometryError

__all__ = ["FacetWeight", "WeightedComplex", "tropical_weights", "BentHypersurface", "bent_hypersurfaces"]


@dataclass(frozen=True)
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
    weight: tuple
    normal: tuple
    minus_region: int
    plus_region: int
    neurons: tuple

    @property
    def euclidean_weight(self):
        """``w(σ)·|ν|``, the weight relative to the unit normal (floats, for display)."""
        norm = math.sqrt(sum(v * v for v in self.normal))
        return tuple(float(w) * norm for w in self.weight)


class WeightedComplex:
    """A canonical complex together with the weights of its facets.

    Build it with :func:`tropical_weights`.
    """

    def __init__(self, complex_, weights):
        self.complex = complex_
        self._weights = dict(weights)

    def __repr__(self):
        nonzero = sum(1 for w in self._weights.values() if any(w.weight))
        return f"<WeightedComplex: {len(self._weights)} interior facets, {nonzero} with non-zero weight>"

    def to_json(self, hypersurfaces=None):
        """The complex's JSON (:meth:`CanonicalComplex.to_json`) plus ``facet_weights`` and ``bent_hypersurfaces``.

        Validated by the same schema, ``docs/schema/complex.schema.json``.
        """
        from .geometry.rational import fraction_to_json

        def q(v):
            return str(fraction_to_json(v))

        data = self.complex.to_json()
        data["facet_weights"] = [
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
        B = hypersurfaces if hypersurfaces is not None else bent_hypersurfaces(self.complex)
        data["bent_hypersurfaces"] = [
            {
                "neuron": list(b.neuron),
                "facets": list(b.facets),
                "cells": list(b.cells),
                "bends": [{"cell": t, "along": [list(n) for n in along]} for t, along in b.bends],
            }
            for b in B.values()
        ]
        return data

    def weights(self):
        """All facet weights, by facet id (facets on a domain's boundary have none)."""
        return dict(self._weights)

    def weight(self, facet):
        """The :class:`FacetWeight` of a facet (a cell or its id)."""
        fid = facet if isinstance(facet, int) else facet.id
        if fid not in self._weights:
            raise GeometryError(f"cell {fid} is not an interior facet of the complex")
        return self._weights[fid]

    def balancing_defect(self, cell):
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
        tau = K[cell if isinstance(cell, int) else cell.id]
        n0 = K.network.architecture.input_dim
        if tau.dimension != n0 - 2:
            raise GeometryError(f"cell {tau.id} has dimension {tau.dimension}, not n0 - 2 = {n0 - 2}")
        facets = [s for s in K.lattice.cofacets(tau.id)]
        if any(f not in self._weights for f in facets):
            raise GeometryError(f"cell {tau.id} lies on the domain's boundary; balancing is checked inside only")
        around = {}  # region -> the facets through tau that bound it
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


def tropical_weights(complex_):
    """The exact weight of every interior facet of a canonical complex (DESIGN §3).

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
    K = complex_
    net = K.network
    n0 = net.architecture.input_dim
    neurons = net.architecture.hidden_neurons()
    jacobians = {}
    weights = {}
    for facet in K.cells(n0 - 1):
        regions = K.lattice.cofacets(facet.id)
        if len(regions) != 2:
            continue  # on the boundary of a polytope domain
        normal = _primitive_normal(facet)
        minus, plus = regions
        if _side(K[plus], normal, facet) < 0:
            minus, plus = plus, minus
        for r in (minus, plus):
            if r not in jacobians:
                jacobians[r] = K.affine_map(r)[0]
        jump = [[a - b for a, b in zip(ra, rb)] for ra, rb in zip(jacobians[plus], jacobians[minus])]
        j = next(i for i, v in enumerate(normal) if v)
        weight = tuple(row[j] / normal[j] for row in jump)
        if any(row[i] != w * normal[i] for row, w in zip(jump, weight) for i in range(n0)):
            raise GeometryError(f"the Jacobian jump across facet {facet.id} is not rank one: {jump}")
        changing = tuple(
            neurons[k]
            for k, s in enumerate(facet.signs)
            if s == 0 and {K[minus].signs[k], K[plus].signs[k]} == {1, -1}
        )
        weights[facet.id] = FacetWeight(facet.id, weight, tuple(normal), minus, plus, changing)
    return WeightedComplex(K, weights)


def _side(region, normal, facet):
    """The sign of ``ν·(p - q)`` for interior points ``p`` of the region and ``q`` of the facet."""
    p = region.relative_interior_point()
    q = facet.relative_interior_point()
    value = sum(n * (a - b) for n, a, b in zip(normal, p, q))
    return (value > 0) - (value < 0)


@dataclass(frozen=True)
class BentHypersurface:
    """The bent hypersurface ``B_z`` of one hidden neuron (DESIGN §2).

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

    neuron: tuple
    facets: tuple
    cells: tuple
    bends: tuple

    @property
    def is_empty(self):
        return not self.facets


def bent_hypersurfaces(complex_):
    """The bent hypersurface of every hidden neuron, with where and along what it bends.

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
    K = complex_
    arch = K.network.architecture
    n0 = arch.input_dim
    neurons = arch.hidden_neurons()
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
                normals = {_line_of(K[f]) for f in through}
                if len(normals) > 1:
                    along = tuple(
                        neurons[j] for j, s in enumerate(K[t].signs) if s == 0 and neurons[j][0] < layer
                    )
                    bends.append((t, along))
        out[layer, index] = BentHypersurface((layer, index), facets, cells, tuple(bends))
    return out


def _primitive_normal(facet):
    """The primitive integer normal of a facet's affine hull (one of its two orientations)."""
    (_, *normal), = facet.polyhedron.affine_hull().equations
    g = math.gcd(*normal)  # the equation row is primitive with its constant; the normal alone need not be
    return [v // g for v in normal]


def _line_of(facet):
    """The facet's hyperplane direction: its primitive normal up to sign."""
    normal = _primitive_normal(facet)
    sign = 1 if next(v for v in normal if v) > 0 else -1
    return tuple(sign * v for v in normal)
