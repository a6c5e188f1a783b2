"""Exact polyhedral geometry over Q: certified LP, polyhedra, face lattices, subdivisions.

One module per family: :mod:`~polyrelu.geometry.rational` (numbers in as
exact fractions, primitive integer rows inside), :mod:`~polyrelu.geometry.linalg`
(exact ranks, echelon forms, null spaces and solves), :mod:`~polyrelu.geometry.modular`
(elimination modulo a prime), :mod:`~polyrelu.geometry.lp`
(the certified LP feasibility oracle), :mod:`~polyrelu.geometry.polyhedron`
(H- and V-representations coupled), :mod:`~polyrelu.geometry.lattice` (face
lattices) and :mod:`~polyrelu.geometry.subdivision` (complexes refined by cuts
decided at their vertices). This subpackage knows nothing about neural
networks, so other geometry code can use it on its own.
"""

from .affine import AffineSubspace
from .lattice import FaceLattice
from .lp import Feasibility, FeasibilityCertificate, LPOracle, default_oracle
from .polyhedron import Polyhedron
from .rational import (
    fraction_to_json,
    primitive_integer_row,
    to_fraction,
    to_fraction_matrix,
    to_fraction_vector,
)
from .subdivision import Subdivision

__all__ = [
    "AffineSubspace",
    "FaceLattice",
    "Feasibility",
    "FeasibilityCertificate",
    "LPOracle",
    "Polyhedron",
    "Subdivision",
    "default_oracle",
    "fraction_to_json",
    "primitive_integer_row",
    "to_fraction",
    "to_fraction_matrix",
    "to_fraction_vector",
]
