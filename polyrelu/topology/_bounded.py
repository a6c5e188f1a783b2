"""The bounded model of a canonical complex: polytopes for cells, the same homotopy type for every subcomplex.

A complex on a polytope domain is its own model: every cell is a polytope.
A complex ``K`` on all of ``R^n0`` has unbounded cells, which are not cells of
a CW complex; its model is the canonical complex ``K_B`` of the same network
on a box ``B`` (:func:`clipping_box`) whose interior holds a point of every
minimal cell of ``K`` (its vertices; affine subspaces when the cells have a
common lineality space). A subcomplex ``X`` of ``K`` (a set of cells closed
under faces) is modelled by the cells of ``K_B`` whose relative interiors lie
in cells of ``X``.

Why this is right:

1. The model of ``X`` covers ``|X| ∩ B`` exactly. A point of ``B`` lies in the
   relative interior of one cell of ``K_B``, whose neuron signs are the
   point's, so they name the cell of ``K`` whose relative interior holds it.
   A face of a cell with signs ``s`` has signs in ``{s_k, 0}``: it lies in a
   face of the cell of ``K``, so the model of ``X`` is closed under faces.
2. ``|X| ∩ B`` is homotopy equivalent to ``|X|``. Cover ``|X|`` by its cells
   and ``|X| ∩ B`` by their intersections with ``B``: closed convex sets,
   finitely many. A non-empty intersection of cells of a polyhedral complex
   is a cell (their common face); it contains a minimal cell, so it meets
   ``B``. Hence both covers have the same nerve, and every non-empty
   intersection in either cover is convex, hence contractible. By the nerve
   theorem (a finite cover of a triangulable space by closed subspaces with
   contractible non-empty intersections; Björner, *Topological methods*,
   Thm. 10.6) both spaces are homotopy equivalent to that nerve.

So the homology and the Euler characteristic of ``|X|`` are those of its
model, a finite regular CW complex. Only "every cell of ``K`` meets ``B``" is
used; the box is taken with a margin of at least 1 around the minimal cells'
points so that no vertex of ``K`` lies on its boundary.

This is an internal module of :mod:`polyrelu.topology`: :class:`BoundedModel`,
:func:`bounded_model` and :func:`clipping_box` are its named API.
"""

from __future__ import annotations

import math
import weakref
from typing import NamedTuple, cast

from ..complex import CanonicalComplex, canonical_complex
from ..domain import Box
from ._chains import CellularChains

__all__ = ["BoundedModel", "bounded_model", "clipping_box"]


class BoundedModel(NamedTuple):
    """A complex's bounded model.

    Attributes
    ----------
    chains : CellularChains
        The cellular chain complex of the model (``chains.complex`` is the
        model's complex).
    image : tuple of int, or None
        ``image[i]``: the id of the cell of the original complex whose
        relative interior holds that of the model's cell ``i``; None when the
        model is the complex itself.
    box : Box or None
        The clipping box, None for a complex on a polytope domain.
    """

    chains: CellularChains
    image: tuple[int, ...] | None
    box: Box | None


# Models by id of their complex, dropped when the complex is collected. A model of a bounded complex
# reaches it only through a weak proxy: a strong reference from this global table would keep it alive.
_MODELS: dict[int, BoundedModel] = {}


def bounded_model(complex_: CanonicalComplex) -> BoundedModel:
    """The bounded model of ``complex_`` (built once per complex and kept while the complex lives).

    Examples
    --------
    >>> from polyrelu import ReLUNetwork, canonical_complex
    >>> K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]))
    >>> K.f_vector(), bounded_model(K).box
    ((1, 4, 4), Box(lower=(-1, -1), upper=(1, 1)))
    >>> bounded_model(K).chains.complex.f_vector()   # the four quadrants cut by the box [-1, 1]^2
    (9, 12, 4)
    """
    key = id(complex_)
    model = _MODELS.get(key)
    if model is None:
        if complex_.domain is not None:
            model = BoundedModel(CellularChains(cast(CanonicalComplex, weakref.proxy(complex_))), None, None)
        else:
            box = clipping_box(complex_)
            clipped = canonical_complex(complex_.network, box, max_cells=max(10**6, 10 * len(complex_)), progress=False)
            by_signs = {c.signs: c.id for c in complex_}
            model = BoundedModel(CellularChains(clipped), tuple(by_signs[c.signs] for c in clipped), box)
        _MODELS[key] = model
        weakref.finalize(complex_, _MODELS.pop, key, None)
    return model


def clipping_box(complex_: CanonicalComplex) -> Box:
    """An integer box whose interior holds a point of every minimal cell, with margin 1.

    The minimal cells are those without facets: the vertices, or the affine
    subspaces that are the smallest cells of a complex whose cells have a
    lineality space. The point of one is the first point of its
    V-representation (a cell is never empty, so it has one).
    """
    points = [c.polyhedron.vertices()[0] for c in complex_ if not complex_.lattice.facets(c.id)]
    lower = tuple(math.floor(min(coordinate)) - 1 for coordinate in zip(*points))
    upper = tuple(math.ceil(max(coordinate)) + 1 for coordinate in zip(*points))
    return Box(lower, upper)
