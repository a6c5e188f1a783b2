"""polyrelu: exact polyhedral geometry of ReLU networks.

The public API lives here; subpackages :mod:`polyrelu.geometry` (exact
polyhedra, certified LP, face lattices) and :mod:`polyrelu.graphs` (igraph
helpers) know nothing about networks and can be used on their own.
"""

from .errors import (
    BackendUnavailableError,
    GeometryError,
    GraphError,
    GraphFormatError,
    InvalidNumberError,
    NetworkFormatError,
    PolyReluError,
    RecoveryError,
    ShapeError,
    SymmetryError,
)
from .complex import Box, CanonicalComplex, Cell, ComplexTooLargeError, canonical_complex
from .geometry import FaceLattice, Feasibility, LPOracle, Polyhedron
from .network import Architecture, ReLUNetwork, load_network, network_from_dict, network_to_dict, save_network
from .symmetry import FunctionComparison, canonical_form, difference_network, equivalent, permute, same_function, scale
from .genericity import GenericityReport, genericity
from .identifiability import (
    FunctionalDimension,
    IdentifiabilityReport,
    MinimalityReport,
    architecture_survey,
    batch_functional_dimension,
    float_functional_dimension,
    functional_dimension,
    identifiability_report,
    minimality_report,
    scaling_directions,
)
from .dependency import (
    CandidateHypersurfaces,
    DependencyGraph,
    DepthHierarchy,
    candidate_hypersurfaces,
    dependency_graph,
    depth_hierarchy,
    parameter_dependency_graph,
)
from .recovery import Kink, RecoveryResult, kink_data, line_kinks, network_oracle, recover_network
from .tropical import (
    BentHypersurface,
    BreakpointComplex,
    FacetWeight,
    WeightedComplex,
    bent_hypersurfaces,
    breakpoint_complex,
    tropical_weights,
)

__version__ = "0.1.0"

__all__ = [
    "Architecture",
    "ReLUNetwork",
    "load_network",
    "save_network",
    "network_to_dict",
    "network_from_dict",
    "scale",
    "permute",
    "canonical_form",
    "equivalent",
    "same_function",
    "difference_network",
    "FunctionComparison",
    "canonical_complex",
    "CanonicalComplex",
    "Cell",
    "Box",
    "tropical_weights",
    "bent_hypersurfaces",
    "breakpoint_complex",
    "BreakpointComplex",
    "BentHypersurface",
    "genericity",
    "GenericityReport",
    "functional_dimension",
    "batch_functional_dimension",
    "float_functional_dimension",
    "scaling_directions",
    "FunctionalDimension",
    "minimality_report",
    "identifiability_report",
    "architecture_survey",
    "IdentifiabilityReport",
    "MinimalityReport",
    "candidate_hypersurfaces",
    "CandidateHypersurfaces",
    "dependency_graph",
    "parameter_dependency_graph",
    "DependencyGraph",
    "depth_hierarchy",
    "DepthHierarchy",
    "WeightedComplex",
    "FacetWeight",
    "Polyhedron",
    "LPOracle",
    "Feasibility",
    "FaceLattice",
    "PolyReluError",
    "BackendUnavailableError",
    "InvalidNumberError",
    "ShapeError",
    "NetworkFormatError",
    "GeometryError",
    "SymmetryError",
    "GraphError",
    "GraphFormatError",
    "RecoveryError",
    "ComplexTooLargeError",
    "recover_network",
    "RecoveryResult",
    "network_oracle",
    "line_kinks",
    "kink_data",
    "Kink",
]
