"""polyrelu: exact polyhedral geometry of ReLU networks.

The public API lives here, re-exported from the modules that define it:
networks and their files, trivial symmetries, the canonical polyhedral
complex, tropical weights and the breakpoint complex, decision complexes and
level sets with their exact homology, exact slices of networks of any input
size, the four genericity conditions, the dependency graph and depth
hierarchy, functional dimension, identifiability and minimality, recovery
from function values, the exact geometry they rest on, the check of a JSON
document against its schema (``validate``), and the error classes. Nothing
inside polyrelu imports this module (docs/design.md §7). The subpackages :mod:`polyrelu.geometry`
(exact rationals and linear algebra, certified LP, polyhedra, face lattices,
subdivisions) and :mod:`polyrelu.graphs` (igraph helpers) know nothing about
networks and can be used on their own.
"""

from ._version import __version__ as __version__  # the "as" marks a re-export
from .complex import (
    CanonicalComplex,
    Cell,
    CellEstimate,
    canonical_complex,
    estimate_cells,
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
from .domain import Box
from .errors import (
    AnalysisFormatError,
    BackendUnavailableError,
    ComplexFormatError,
    ComplexTooLargeError,
    DocumentFormatError,
    GeometryError,
    GraphError,
    GraphFormatError,
    InvalidArgumentError,
    InvalidNumberError,
    LimitExceededError,
    ModelMismatchError,
    NetworkFormatError,
    OutputPathError,
    PolyReluError,
    RecoveryError,
    ShapeError,
    SymmetryError,
    UnsafeFileError,
    UsageError,
)
from .genericity import GenericityReport, genericity
from .geometry import FaceLattice, Feasibility, LPOracle, Polyhedron
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
from .io import (
    Limits,
    load_network,
    network_from_dict,
    network_from_torch,
    network_to_dict,
    read_points,
    save_network,
)
from .network import Architecture, ReLUNetwork
from .recovery import (
    Breakpoint,
    RecoveryResult,
    breakpoint_data,
    line_breakpoints,
    network_oracle,
    recover_network,
)
from .schemas import validate
from .slices import Slice, restrict, slice_through
from .symmetry import (
    FunctionComparison,
    canonical_form,
    difference_network,
    equivalent,
    permute,
    same_function,
    scale,
)
from .topology import (
    DecisionComplex,
    Homology,
    LevelSets,
    Subcomplex,
    betti_numbers,
    closure,
    decision_complex,
    homology,
    homology_document,
    level_set,
    level_sets,
    sublevel_set,
)
from .tropical import (
    BentHypersurface,
    BreakpointComplex,
    FacetWeight,
    WeightedComplex,
    bent_hypersurfaces,
    breakpoint_complex,
    tropical_weights,
)

__all__ = [
    "Architecture",
    "ReLUNetwork",
    "load_network",
    "save_network",
    "network_to_dict",
    "network_from_dict",
    "network_from_torch",
    "Limits",
    "scale",
    "permute",
    "canonical_form",
    "equivalent",
    "same_function",
    "difference_network",
    "FunctionComparison",
    "canonical_complex",
    "estimate_cells",
    "CellEstimate",
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
    "UsageError",
    "InvalidArgumentError",
    "OutputPathError",
    "LimitExceededError",
    "UnsafeFileError",
    "ModelMismatchError",
    "ComplexFormatError",
    "AnalysisFormatError",
    "DocumentFormatError",
    "validate",
    "recover_network",
    "RecoveryResult",
    "network_oracle",
    "line_breakpoints",
    "breakpoint_data",
    "Breakpoint",
    "decision_complex",
    "DecisionComplex",
    "level_set",
    "sublevel_set",
    "level_sets",
    "LevelSets",
    "Subcomplex",
    "closure",
    "betti_numbers",
    "homology",
    "Homology",
    "homology_document",
    "restrict",
    "slice_through",
    "Slice",
    "read_points",
]
