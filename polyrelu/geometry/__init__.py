"""Exact polyhedral geometry over Q: certified LP, polyhedra, face lattices.

This subpackage knows nothing about neural networks, so other geometry code
can use it on its own.
"""

from .lattice import FaceLattice
from .lp import Feasibility, FeasibilityCertificate, LPOracle, default_oracle
from .polyhedron import AffineSubspace, Polyhedron
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
