"""The canonical polyhedral complex of a ReLU network, as an exact face lattice.

:func:`canonical_complex` builds it; a :class:`CanonicalComplex` holds its
cells (:class:`Cell`: sign vector, dimension, exact polyhedron) with the
covering relation, and answers questions about them (faces, cofaces and stars,
:meth:`~CanonicalComplex.locate`, affine maps of ``f``, bent hypersurfaces,
the Hasse diagram in igraph or networkx) and writes and reads the complex JSON
format (written cell by cell, streamed to the file; the checks of a file are in
:mod:`polyrelu.complex_validation`). :class:`PatternMaps` gives the exact maps
of every cell in integers, for the computations over all of them.
:func:`estimate_cells` is the size guard's estimate (:mod:`polyrelu.size_guard`)
on its own; the ``domain`` argument is read by :mod:`polyrelu.domain`, where
:class:`~polyrelu.domain.Box` lives.

The cells are the closures of the non-empty sign classes ``{x : s(x) = s}``
(docs/design.md §2). They are built layer by layer and neuron by neuron: on
every cell found so far the next neuron's pre-activation ``h`` is affine, and
the cell splits into the parts where ``h`` is positive, negative and zero.
Two methods build the same complex, and the tests check that they agree:

* ``method="lattice"`` (the default) never solves an LP. The complex is kept
  as a face lattice whose unbounded cells are closed up by ideal vertices
  (directions at infinity), so the sign of ``h`` on a cell is read off its
  signs at the cell's vertices: certified from a float evaluation with a
  rigorous error bound where it clears the bound, computed in integers
  otherwise; a cell seeing both signs splits combinatorially and a cut edge
  gets the vertex where ``h`` vanishes, from ``h``'s exact values at its ends
  (:class:`~polyrelu.geometry.Subdivision`).
* ``method="lp"`` splits relatively open cells: the sign of ``h`` at the
  cell's exact relative interior point shows one side non-empty, and one call
  to the certified LP oracle (:class:`~polyrelu.geometry.LPOracle`) decides
  the other; the zero part is non-empty exactly when both sides are.

A bounded polytope domain enters as a first "layer" of pseudo-neurons, its
facet inequalities, with signs ``+`` (inside) and ``0`` (on the facet) only, so
the domain's own faces refine the cells. The covering relation follows from
the sign vectors: ``τ ≤ σ`` exactly when ``s(τ)_k ∈ {s(σ)_k, 0}`` for every
``k``, because on ``τ`` every pre-activation agrees with the formula valid on
``σ`` (the neurons where they differ vanish on ``τ``).
"""

from ..domain import Box  # noqa: F401  (still importable from here, and the doctests use it)
from ._build import CellEstimate, canonical_complex, estimate_cells
from ._canonical import CanonicalComplex, Cell

# internal API for the modules built on the complex (re-exported, not in __all__)
from ._canonical import check_complex_of as check_complex_of
from ._canonical import paused_gc as paused_gc
from ._patterns import PatternMaps as PatternMaps

__all__ = ["Cell", "CanonicalComplex", "CellEstimate", "canonical_complex", "estimate_cells"]

# Users, pickles and error messages see the public names where they are imported from (as numpy's
# set_module does): polyrelu.complex.CanonicalComplex, not the private module that defines it.
for _public in (Cell, CanonicalComplex, CellEstimate, canonical_complex, estimate_cells):
    _public.__module__ = __name__
del _public
