"""Every public callable refuses a wrong argument with a PolyReluError that names the argument.

The public API is every name in ``__all__`` of :mod:`polyrelu` and of the
modules documented in ``docs/api.md``: functions, class constructors, and the
public methods and classmethods that take arguments. :data:`API` has one
entry per callable: a valid call, and for each argument the kind of value it
takes. The tests check that

- the entries are exactly the public callables (a new public name fails
  :func:`test_every_public_callable_has_an_entry` until it gets an entry or an
  exemption with its reason), and each entry lists exactly the parameters of
  its signature;
- the valid call succeeds;
- replacing any one argument by a wrong value of its kind (``None`` where
  required, ``object()``, a string where a network is expected, a float or
  ``True`` where a count is expected, a dict, a list of the wrong depth, an
  index out of range, ...) raises a :class:`~polyrelu.errors.PolyReluError`,
  never a ``TypeError``, ``AttributeError``, ``IndexError``, ``KeyError`` or
  ``RecursionError`` from inside, and never succeeds; and its message names
  the argument.
"""

import importlib
import inspect
import re
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import matplotlib
import pytest

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)

from polyrelu import (  # noqa: E402  # noqa: E402
    Architecture,
    Box,
    FaceLattice,
    Limits,
    LPOracle,
    Polyhedron,
    PolyReluError,
    ReLUNetwork,
    analysis,
    canonical_complex,
    dependency,
    errors,
    examples,
    geometry,
    graphs,
    identifiability,
    io,
    plot,
    recovery,
    schemas,
    slices,
    symmetry,
    topology,
    tropical,
)
from polyrelu.checks import describe  # noqa: E402
from polyrelu.geometry import AffineSubspace, Subdivision  # noqa: E402

# modules shadowed in the package's namespace by a function of the same name
complex_module = importlib.import_module("polyrelu.complex")
genericity = importlib.import_module("polyrelu.genericity")

REPOSITORY = Path(__file__).resolve().parents[1]
# the modules whose __all__ is public: polyrelu itself and those documented in docs/api.md
MODULES = ["polyrelu", *re.findall(r"^::: (\S+)", (REPOSITORY / "docs" / "api.md").read_text(), re.M)]

# Under way elsewhere: these are validated after the recovery/complex-JSON work lands. Their entries
# below are ready: once the work lands, check each entry against the new signature and remove it from here.

_RESULT = "a result the package builds and returns; its constructor is not meant to be called by users"
EXEMPT = {
    **{f"polyrelu.errors.{name}": "an exception class" for name in errors.__all__},
    "polyrelu.symmetry.FunctionComparison": _RESULT,
    "polyrelu.complex.CanonicalComplex": "built by canonical_complex or CanonicalComplex.from_json, which check its parts",
    "polyrelu.complex.Cell": "the cells of a CanonicalComplex, built with it",
    "polyrelu.tropical.WeightedComplex": "built by tropical_weights",
    "polyrelu.tropical.FacetWeight": _RESULT,
    "polyrelu.tropical.BentHypersurface": _RESULT,
    "polyrelu.tropical.BreakpointComplex": "built by breakpoint_complex",
    "polyrelu.genericity.GenericityReport": _RESULT,
    "polyrelu.genericity.ConditionResult": _RESULT,
    "polyrelu.identifiability.dimension.FunctionalDimension": _RESULT,
    "polyrelu.identifiability.verdicts.IdentifiabilityReport": _RESULT,
    "polyrelu.identifiability.minimality.MinimalityReport": _RESULT,
    "polyrelu.identifiability.minimality.Removal": _RESULT,
    "polyrelu.identifiability.survey.SurveyResult": _RESULT,
    "polyrelu.dependency.CandidateHypersurfaces": "built by candidate_hypersurfaces",
    "polyrelu.dependency.CandidateHypersurface": _RESULT,
    "polyrelu.dependency.Crossing": _RESULT,
    "polyrelu.dependency.Unresolved": _RESULT,
    "polyrelu.dependency.DependencyGraph": (
        "built by dependency_graph, parameter_dependency_graph and the readers; the constructor wraps their igraph graph"
    ),
    "polyrelu.dependency.DepthHierarchy": _RESULT,
    "polyrelu.recovery.driver.RecoveryResult": _RESULT,
    "polyrelu.complex.CellEstimate": _RESULT,
    "polyrelu.recovery.breakpoints.Breakpoint": _RESULT,
    "polyrelu.analysis.Analysis": "built by analyze",
    "polyrelu.slices.Slice": "built by slice_through, which checks its parts",
    "polyrelu.geometry.lp.Feasibility": "an enumeration; its members are used, never constructed",
    "polyrelu.geometry.lp.FeasibilityCertificate": "returned by LPOracle.decide",
    "polyrelu.geometry.affine.AffineSubspace": "returned by Polyhedron.affine_hull and AffineSubspace.from_equations",
    "polyrelu.topology.decision.DecisionComplex": "built by decision_complex",
    "polyrelu.topology.subcomplex.Homology": _RESULT,
    "polyrelu.topology.decision.LevelSets": _RESULT,
}


# -- enumerating the public callables ---------------------------------------------------------
def qualified_name(target):
    """``module.qualname`` of a function, class or bound method (a method is named after its class's module)."""
    owner = getattr(target, "__self__", None)
    target = getattr(target, "__func__", target)
    module = target.__module__ if owner is None else (owner if isinstance(owner, type) else type(owner)).__module__
    return f"{module}.{target.__qualname__}"


def parameters(target):
    """The names of the parameters a caller passes (no ``self``, ``*args`` or ``**kwargs``)."""
    return [
        p.name
        for p in inspect.signature(target).parameters.values()
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and p.name not in ("self", "cls")
    ]


def public_callables():
    """Qualified name → callable: functions, classes (their constructors), and methods taking arguments."""
    found = {}
    for module_name in MODULES:
        module = importlib.import_module(module_name)
        for attribute in module.__all__:
            obj = getattr(module, attribute)
            if isinstance(obj, type):
                found[qualified_name(obj)] = obj
                for name, member in vars(obj).items():
                    if (name.startswith("_") and name != "__call__") or isinstance(member, property):
                        continue
                    function = getattr(member, "__func__", member)
                    if inspect.isfunction(function) and parameters(function):
                        found[f"{qualified_name(obj)}.{name}"] = function
            elif inspect.isfunction(obj):
                found[qualified_name(obj)] = obj
    return found


# -- the kinds of arguments and their wrong values -----------------------------------------------
class Fx(str):
    """A value from the fixtures, by name (resolved when a case runs)."""


def resolve(value, fx):
    return getattr(fx, value) if isinstance(value, Fx) else value


NAN = float("nan")
NETWORK = (None, object(), "net.json", 3, {}, [[1, 2]], Fx("K"))
COMPLEX = (None, object(), "complex.json", 3, {}, Fx("net"), Fx("W"))
OTHER_COMPLEX = (*COMPLEX, Fx("other_K"))  # with a network: its complex, not another network's
WEIGHTED = (None, object(), "weights", 3, Fx("K"), Fx("other_W"))
BREAKPOINTS = (None, object(), 3, Fx("W"), Fx("K"))
CANDIDATES = (None, object(), 3, [], Fx("B"))
DEPENDENCY_GRAPH = (None, object(), 3, "graph", Fx("B"), Fx("ig"))
IGRAPH = (None, object(), 3, "graph", Fx("nx"), Fx("G"))
NXGRAPH = (None, object(), 3, "graph", Fx("ig"))
COUNT = (None, "3", 2.5, 3.0, True, object(), [3], Fraction(3), 0, -1)
FORMAT_VERSION = (None, "2", 2.0, True, object(), 0, 3)  # the complex JSON format's versions are 1 and 2
NATURAL = (None, "0", 0.5, True, object(), [], -1)  # an integer >= 0
FLAG = (None, "False", "yes", 1, 0.0, object(), [])
NUMBER = (None, object(), "abc", [], {}, True, NAN, 1j, "1/0")
POSITIVE = (*NUMBER, 0, -1)
NEGATIVE = (*NUMBER, 0, 1)
VECTOR = (None, object(), "1,2", 5, {}, {0: 1, 1: 2}, {1, 2}, [[1, 2]], [None, 1], [1], [1, 2, 3])  # in Q^2
ROW = (None, object(), "1,1,1", 5, {}, [[1, 2, 3]], [None, 1, 1], [1, 1])  # an affine row on Q^2
MATRIX = (None, object(), "rows", 5, {}, [1, 2], [[[1, 2]]], [[1, "x"]], [[1, 2], [1]])
INTEGER_ROWS = (None, object(), "rows", 3, {}, [1, 2], [[0.5, 1, 1]], [[True, 1, 1]], [[1, 2, 3], [1]], [], [[1]])
PATTERN = (None, object(), 5, {}, "+x+", "++", ["+", "-", "+"], [[1], [1], [1]])  # three hidden neurons
PATH = (None, 3, object(), "", [], b"file.json")
DOMAIN = (object(), "box:-1,1", 3, {}, [[1]], [[1, "x", 0]], Fx("net"), Box([0, 0, 0], [1, 1, 1]))
CELL = (None, "0", 1.5, True, object(), -1, 10**6, [0])
LATTICE_CELL = (None, "0", 1.5, True, object(), -1, 10**6, [0], Fx("cell"))
HIDDEN_LAYER = (None, "1", 1.5, True, object(), 0, 99)
NEURON_INDEX = (None, "0", 0.5, True, object(), -1, 99)
AXES = (object(), 3, "ax")
CALLABLE = (None, object(), 3, "f")
LIMITS = (None, {}, 5, "limits", object())
ORACLE = (object(), 3, "exact")
TEXT = (None, 3, b"text", object(), [])
LABEL = (None, 3, object(), [], b"label")
OPTIONAL_TEXT = (3, object(), [], b"label")
WINDOW = (object(), 3, "(-1, 1)", [1], [1, 2, 3], ["a", 1], [2, 1], [0, 1, 1, 1], [0, 1, 2, 1, 0, 1])
FILL = (3, object(), "colour", [], b"class")
WIDTHS = (None, object(), "2,3,1", 3, {}, [2.5, 1], [True, 1], [[2], [1]], [2], [2, 0, 1])
JSON_DATA = (None, 3, "text", object(), [])
LAYERING = (None, 3, object(), {}, [1.5, 1], "no such attribute")
CHOICE = (None, 3, object(), "no such choice", b"bytes")
SOURCE = (None, object(), "net.json", 3, {}, [[1, 2]], Fx("W"))  # a network or its complex
CLASS = ("0", 1.5, True, object(), [], -1, 3)  # a class of a classifier with three outputs
FIELD = (None, object(), "GF(2)", b"Z", [], 1.5, True, 1, 4)
SUBCOMPLEX = (None, object(), 3, "X", Fx("net"), Fx("D"), [0])
JOBS = ("2", 2.5, True, object(), [2], Fraction(2), 0, -2)  # None (the default), -1 or a positive integer
SCHEDULER = (3, object(), [], b"tcp://127.0.0.1:8786", "", "  ")  # None (the default) or an address


# -- fixtures -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fx(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("api")
    net = examples.bent_line_network()
    K = canonical_complex(net)
    W = tropical.tropical_weights(K)
    B = tropical.breakpoint_complex(W)
    C = dependency.candidate_hypersurfaces(B)
    G = dependency.dependency_graph(B, C)
    other = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]])
    other_K = canonical_complex(other)
    classifier = ReLUNetwork([[[1, 0], [0, 1], [0, 0]]], [[0, 0, 0]])
    D = topology.decision_complex(classifier)
    square = [(0, 1, 0), (0, 0, 1), (1, -1, 0), (1, 0, -1)]
    triangle = Polyhedron(ieqs=[(0, 1, 0), (0, 0, 1), (1, -1, -1)])
    io.save_network(net, tmp / "net.json")
    G.write_json(tmp / "graph.json")
    G.write_graphml(tmp / "graph.graphml")
    (tmp / "points.csv").write_text("0, 0\n1, 0\n0, 1\n")
    return SimpleNamespace(
        tmp=tmp,
        net=net,
        other=other,
        K=K,
        W=W,
        B=B,
        C=C,
        G=G,
        H=dependency.depth_hierarchy(G),
        ig=G.graph,
        nx=G.to_networkx(),
        other_K=other_K,
        other_W=tropical.tropical_weights(other_K),
        cell=K.cells(0)[0],
        other_cell=other_K.cells(0)[0],
        facet=K.cells(1)[0],
        breakpoint_facet=B.breakpoint_facets()[0],
        square=square,
        certificate=LPOracle().decide(square),
        triangle=triangle,
        hull=triangle.affine_hull(),
        lattice=triangle.face_lattice(),
        analysis=analysis.analyze(net, inradius=False),
        ax=plt.subplots()[1],
        classifier=classifier,
        D=D,
        X=D.boundary(),
        slice=slices.slice_through(net, [[0, 0], [1, 0], [0, 1]]),
    )


def new_axes():
    return plt.subplots()[1]


def arrangement():
    return Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])


def torch_model():
    torch = pytest.importorskip("torch")
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))


BENT_LINE_WEIGHTS = [[[1, 0], [0, 1]], [[1, 1]], [[1]]]
BENT_LINE_BIASES = [[0, 0], [-1], [0]]

# qualified name -> fixtures -> (callable, {argument: (valid value, wrong values)})
API = {
    # -- polyrelu.network
    "polyrelu.network.Architecture": lambda fx: (Architecture, dict(widths=((2, 3, 1), WIDTHS))),
    "polyrelu.network.Architecture.split_hidden": lambda fx: (
        fx.net.architecture.split_hidden,
        dict(values=("+-0", (None, object(), 3, "++", [1], {}, {1, 2, 3}))),
    ),
    "polyrelu.network.ReLUNetwork": lambda fx: (
        ReLUNetwork,
        dict(
            weights=(BENT_LINE_WEIGHTS, (None, object(), "weights", 3, {}, [], [[1, 2]], [[[["1"]]]])),
            biases=(BENT_LINE_BIASES, (None, object(), "biases", 3, {}, [], [1, 2, 3], [[[0]], [[1]], [[0]]])),
            name=("f", OPTIONAL_TEXT),
        ),
    ),
    "polyrelu.network.ReLUNetwork.from_layers": lambda fx: (
        ReLUNetwork.from_layers,
        dict(
            layers=(fx.net.layers, (None, object(), 3, "layers", {}, [[1, 2]], [([[1]],)], [1, 2])),
            name=(None, OPTIONAL_TEXT),
        ),
    ),
    "polyrelu.network.ReLUNetwork.from_parameters": lambda fx: (
        ReLUNetwork.from_parameters,
        dict(
            architecture=(fx.net.architecture, WIDTHS),
            parameters=(fx.net.parameters(), (None, object(), "1,2", 3, {}, [1, 2], [[1]] * 11, [None] * 11)),
            name=(None, OPTIONAL_TEXT),
        ),
    ),
    "polyrelu.network.ReLUNetwork.random": lambda fx: (
        ReLUNetwork.random,
        dict(architecture=((2, 2, 1), WIDTHS), seed=(0, NATURAL), kind=("integer", CHOICE), bound=(3, COUNT)),
    ),
    "polyrelu.network.ReLUNetwork.__call__": lambda fx: (fx.net.__call__, dict(x=([1, 2], VECTOR))),
    "polyrelu.network.ReLUNetwork.pre_activations": lambda fx: (fx.net.pre_activations, dict(x=([1, 2], VECTOR))),
    "polyrelu.network.ReLUNetwork.signs": lambda fx: (fx.net.signs, dict(x=([1, 2], VECTOR))),
    "polyrelu.network.ReLUNetwork.pre_activation_maps": lambda fx: (
        fx.net.pre_activation_maps,
        dict(pattern=("+-+", PATTERN)),
    ),
    "polyrelu.network.ReLUNetwork.affine_map": lambda fx: (fx.net.affine_map, dict(pattern=("+-+", PATTERN))),
    "polyrelu.network.ReLUNetwork.without_neuron": lambda fx: (
        fx.net.without_neuron,
        dict(layer=(1, HIDDEN_LAYER), index=(0, (None, "0", 1.5, True, object(), -1, 99))),
    ),
    "polyrelu.network.ReLUNetwork.pre_activation_rows": lambda fx: (
        fx.net.pre_activation_rows,
        dict(pattern=([1, -1, 1], PATTERN)),
    ),
    # -- polyrelu.io
    "polyrelu.io.files.load_network": lambda fx: (
        io.load_network,
        dict(path=(fx.tmp / "net.json", PATH), trust_pickle=(False, FLAG), limits=(io.DEFAULT_LIMITS, LIMITS)),
    ),
    "polyrelu.io.files.save_network": lambda fx: (
        io.save_network,
        dict(net=(fx.net, NETWORK), path=(fx.tmp / "saved.json", PATH)),
    ),
    "polyrelu.io.network_json.network_to_dict": lambda fx: (io.network_to_dict, dict(net=(fx.net, NETWORK))),
    "polyrelu.io.network_json.network_from_dict": lambda fx: (
        io.network_from_dict,
        dict(
            obj=(io.network_to_dict(fx.net), JSON_DATA),
            source=("obj", LABEL),  # messages start with the source: here, the argument's name
            limits=(io.DEFAULT_LIMITS, LIMITS),
        ),
    ),
    "polyrelu.io.pytorch.network_from_torch": lambda fx: (
        io.network_from_torch,
        dict(
            model=(torch_model(), (None, object(), "model.pt", 3, [1])),
            input_shape=(None, (object(), "2", 2, (), [0], (2.5,), (True,), {2: 1})),
            limits=(io.DEFAULT_LIMITS, LIMITS),
        ),
    ),
    "polyrelu.io.limits.Limits": lambda fx: (
        Limits,
        {name: (10**6, COUNT) for name in ("max_file_bytes", "max_depth", "max_parameters", "max_width", "max_array_bytes")},
    ),
    "polyrelu.io.limits.read_json": lambda fx: (
        io.read_json,
        dict(path=(fx.tmp / "net.json", PATH), limits=(io.DEFAULT_LIMITS, LIMITS)),
    ),
    "polyrelu.io.limits.parse_json": lambda fx: (
        io.parse_json,
        dict(text=('{"a": [1]}', TEXT), source=("text", LABEL), limits=(io.DEFAULT_LIMITS, LIMITS)),
    ),
    "polyrelu.io.limits.json_depth": lambda fx: (io.json_depth, dict(text=("[[1]]", TEXT))),
    "polyrelu.io.limits.check_file_size": lambda fx: (
        io.check_file_size,
        dict(path=(fx.tmp / "net.json", PATH), limits=(io.DEFAULT_LIMITS, LIMITS)),
    ),
    "polyrelu.io.points.read_points": lambda fx: (
        io.read_points,
        dict(
            path=(fx.tmp / "points.csv", PATH),
            width=(2, ("2", 2.5, True, object(), 0, -1)),
            max_rows=(3, ("3", 2.5, True, object(), 0, -1)),
            limits=(io.DEFAULT_LIMITS, LIMITS),
        ),
    ),
    # -- polyrelu.symmetry
    "polyrelu.symmetry.scale": lambda fx: (
        symmetry.scale,
        dict(
            net=(fx.net, NETWORK),
            factors=(
                [[2, "1/3"], [5]],
                (None, object(), 3, "ab", {}, [[1, 2]], [[1, "x"], [1]], [[1, 2, 3], [1]], [[1, 2], [0]], [[1, 2], 1]),
            ),
        ),
    ),
    "polyrelu.symmetry.permute": lambda fx: (
        symmetry.permute,
        dict(
            net=(fx.net, NETWORK),
            permutations=(
                [[1, 0], [0]],
                (None, object(), 3, "01", {}, [[0, 0], [0]], [[0.0, 1.0], [0]], [[True, False], [0]], [[1, 0]], [[1, 0], 0]),
            ),
        ),
    ),
    "polyrelu.symmetry.canonical_form": lambda fx: (
        symmetry.canonical_form,
        dict(net=(fx.net, NETWORK), max_tie_orders=(1000, COUNT)),
    ),
    "polyrelu.symmetry.equivalent": lambda fx: (symmetry.equivalent, dict(a=(fx.net, NETWORK), b=(fx.net, NETWORK))),
    "polyrelu.symmetry.same_function": lambda fx: (
        symmetry.same_function,
        dict(a=(fx.net, NETWORK), b=(fx.net, NETWORK), domain=(None, DOMAIN)),
    ),
    "polyrelu.symmetry.difference_network": lambda fx: (
        symmetry.difference_network,
        dict(a=(fx.net, NETWORK), b=(fx.net, NETWORK)),
    ),
    # -- polyrelu.complex
    "polyrelu.complex.canonical_complex": lambda fx: (
        canonical_complex,
        dict(
            net=(fx.net, NETWORK),
            domain=(None, DOMAIN),
            method=("lattice", CHOICE),
            max_cells=(1000, COUNT),
            oracle=(None, ORACLE),
            progress=(False, (object(), "no", 1, [])),
            n_jobs=(1, JOBS),
            scheduler=(None, SCHEDULER),
        ),
    ),
    "polyrelu.complex.estimate_cells": lambda fx: (
        complex_module.estimate_cells,
        dict(net=(fx.net, NETWORK), domain=(None, DOMAIN), method=("lattice", CHOICE), max_cells=(1000, COUNT)),
    ),
    "polyrelu.complex.CanonicalComplex.cells": lambda fx: (
        fx.K.cells,
        dict(dim=(1, ("1", 1.5, True, object(), [], -1))),
    ),
    "polyrelu.complex.CanonicalComplex.faces": lambda fx: (fx.K.faces, dict(cell=(fx.facet, CELL))),
    "polyrelu.complex.CanonicalComplex.cofaces": lambda fx: (fx.K.cofaces, dict(cell=(3, CELL))),
    "polyrelu.complex.CanonicalComplex.star": lambda fx: (fx.K.star, dict(cell=(fx.cell, CELL))),
    "polyrelu.complex.CanonicalComplex.affine_map": lambda fx: (fx.K.affine_map, dict(cell=(fx.K.regions()[0], CELL))),
    "polyrelu.complex.CanonicalComplex.locate": lambda fx: (fx.K.locate, dict(x=([1, 2], VECTOR))),
    "polyrelu.complex.CanonicalComplex.cell": lambda fx: (
        fx.K.cell,
        dict(cell=(fx.cell, (*CELL, Fx("other_cell"))), name=("cell", LABEL), caller=("CanonicalComplex.cell", LABEL)),
    ),
    "polyrelu.complex.CanonicalComplex.bent_hypersurface": lambda fx: (
        fx.K.bent_hypersurface,
        dict(layer=(2, HIDDEN_LAYER), index=(0, NEURON_INDEX)),
    ),
    "polyrelu.complex.CanonicalComplex.write_json": lambda fx: (
        fx.K.write_json,
        dict(path=(fx.tmp / "complex.json", PATH), version=(2, FORMAT_VERSION)),
    ),
    "polyrelu.complex.CanonicalComplex.to_json": lambda fx: (fx.K.to_json, dict(version=(1, FORMAT_VERSION))),
    "polyrelu.complex.CanonicalComplex.from_json": lambda fx: (
        complex_module.CanonicalComplex.from_json,
        dict(data=(fx.K.to_json(), JSON_DATA), trusted=(False, FLAG), limits=(io.DEFAULT_LIMITS, LIMITS)),
    ),
    "polyrelu.domain.Box": lambda fx: (
        Box,
        dict(lower=(-1, (None, object(), "abc", {}, [[1]], True, NAN)), upper=(1, (None, object(), "abc", {}, [[1]], True, NAN, -2))),
    ),
    "polyrelu.domain.Box.polyhedron": lambda fx: (Box(-1, 1).polyhedron, dict(dim=(2, COUNT))),
    # -- polyrelu.slices
    "polyrelu.slices.restrict": lambda fx: (
        slices.restrict,
        dict(
            net=(fx.net, NETWORK),
            origin=([0, "1/2"], VECTOR),
            directions=(
                [[1, 2]],
                (None, object(), "dirs", 3, {}, [], [1, 0], [[1, 0]] * 4, [[1, 2, 3]], [[1, "x"]], [[NAN, 1]],
                 [[1, 0], [2, 0]], [[0, 0]]),
            ),
        ),
    ),
    "polyrelu.slices.slice_through": lambda fx: (
        slices.slice_through,
        dict(
            net=(fx.net, NETWORK),
            points=(
                [[0, 0], [1, 0], [0, 1]],
                (None, object(), "points", 3, {}, [[0, 0]], [[0, 0], [1, 0], [0, 1], [1, 1], [2, 2]], [[0, 0], [0, 0]],
                 [[0, 0], [1, 1], [2, 2]], [[0, 0], [1, "x"]], [[0, 0], [1, NAN]], [[0, 0, 0], [1, 0, 0]], [[0, 0], [1]]),
            ),
            margin=("1/4", (*NUMBER, -1)),
        ),
    ),
    "polyrelu.slices.Slice.to_input": lambda fx: (fx.slice.to_input, dict(t=([1, 2], VECTOR))),
    "polyrelu.slices.Slice.complex": lambda fx: (
        fx.slice.complex,
        dict(method=("lattice", CHOICE), max_cells=(1000, COUNT), oracle=(None, ORACLE), progress=(False, (object(), "no", 1, []))),
    ),
    "polyrelu.slices.Slice.to_json": lambda fx: (
        fx.slice.to_json,
        dict(complex_=(None, (object(), 3, "complex", Fx("K"), Fx("other_K"))), complex_version=(1, FORMAT_VERSION)),
    ),
    "polyrelu.slices.Slice.write_json": lambda fx: (
        fx.slice.write_json,
        dict(path=(fx.tmp / "slice.json", PATH), complex_=(None, (object(), 3, "complex", Fx("K"), Fx("other_K"))),
             complex_version=(2, FORMAT_VERSION)),
    ),
    # -- polyrelu.tropical
    "polyrelu.tropical.tropical_weights": lambda fx: (tropical.tropical_weights, dict(complex_=(fx.K, COMPLEX))),
    "polyrelu.tropical.bent_hypersurfaces": lambda fx: (
        tropical.bent_hypersurfaces,
        dict(complex_=(fx.K, COMPLEX), weighted=(None, WEIGHTED)),
    ),
    "polyrelu.tropical.breakpoint_complex": lambda fx: (tropical.breakpoint_complex, dict(weighted=(fx.W, WEIGHTED[:-1]))),
    "polyrelu.tropical.WeightedComplex.to_json": lambda fx: (
        fx.W.to_json,
        dict(hypersurfaces=(None, (object(), 3, [], {"a": 1}, {})), version=(2, FORMAT_VERSION)),
    ),
    "polyrelu.tropical.WeightedComplex.write_json": lambda fx: (
        fx.W.write_json,
        dict(
            path=(fx.tmp / "weighted.json", PATH),
            hypersurfaces=(None, (object(), 3, [], {"a": 1}, {})),
            version=(1, FORMAT_VERSION),
        ),
    ),
    "polyrelu.tropical.WeightedComplex.weight": lambda fx: (fx.W.weight, dict(facet=(fx.facet, (*CELL, Fx("cell"))))),
    "polyrelu.tropical.WeightedComplex.balancing_defect": lambda fx: (
        fx.W.balancing_defect,
        dict(cell=(fx.cell, (*CELL, Fx("facet")))),
    ),
    **{
        f"polyrelu.tropical.BreakpointComplex.{method}": (
            lambda fx, method=method: (getattr(fx.B, method), dict(cell=(fx.breakpoint_facet, LATTICE_CELL)))
        )
        for method in ("members", "closure", "weight", "is_interior", "hyperplane", "neurons")
    },
    # -- polyrelu.topology
    "polyrelu.topology.decision.decision_complex": lambda fx: (
        topology.decision_complex,
        dict(
            source=(fx.classifier, (*SOURCE, Fx("net"))),
            domain=(None, DOMAIN),
            max_cells=(1000, COUNT),
            progress=(False, (object(), "no", 1, [])),
        ),
    ),
    **{
        f"polyrelu.topology.decision.{name}": (
            lambda fx, name=name: (
                getattr(topology, name),
                dict(
                    source=(fx.net, (*SOURCE, Fx("classifier"))),
                    c=(1, NUMBER),
                    domain=(None, DOMAIN),
                    max_cells=(1000, COUNT),
                    progress=(False, (object(), "no", 1, [])),
                ),
            )
        )
        for name in ("level_set", "sublevel_set", "level_sets")
    },
    "polyrelu.topology.decision.DecisionComplex.label": lambda fx: (fx.D.label, dict(cell=(0, CELL))),
    "polyrelu.topology.decision.DecisionComplex.class_region": lambda fx: (
        fx.D.class_region,
        dict(c=(0, (None, *CLASS))),
    ),
    "polyrelu.topology.decision.DecisionComplex.boundary": lambda fx: (
        fx.D.boundary,
        dict(a=(0, CLASS), b=(None, CLASS)),
    ),
    "polyrelu.topology.decision.DecisionComplex.to_json": lambda fx: (fx.D.to_json, dict(complex_version=(1, FORMAT_VERSION))),
    "polyrelu.topology.decision.DecisionComplex.write_json": lambda fx: (
        fx.D.write_json,
        dict(path=(fx.tmp / "decision.json", PATH), complex_version=(1, FORMAT_VERSION)),
    ),
    "polyrelu.topology.decision.DecisionComplex.from_json": lambda fx: (
        topology.DecisionComplex.from_json,
        dict(data=(fx.D.to_json(), JSON_DATA), trusted=(False, FLAG), limits=(io.DEFAULT_LIMITS, LIMITS)),
    ),
    "polyrelu.topology.subcomplex.homology_document": lambda fx: (
        topology.homology_document,
        dict(
            subcomplexes=({"boundary": fx.X}, (None, object(), 3, "X", {}, [fx.X], {"": fx.X}, {1: fx.X}, {"X": object()}, {"X": fx.X, "Y": fx.net})),
            primes=((2, 3), (None, object(), "2", 2, [4], [1], [1.5], [True], ["2"])),
        ),
    ),
    "polyrelu.topology.subcomplex.Subcomplex": lambda fx: (
        topology.Subcomplex,
        dict(
            complex_=(fx.K, COMPLEX),
            cells=(list(fx.K.cells(0)), (None, object(), "cells", 3, {}, [10**6], [-1], [1.5], [fx.K.regions()[0]], [Fx("other_cell")])),
        ),
    ),
    "polyrelu.topology.subcomplex.Subcomplex.cells": lambda fx: (fx.X.cells, dict(dim=(1, ("1", 1.5, True, object(), [], -1)))),
    "polyrelu.topology.subcomplex.Subcomplex.betti_numbers": lambda fx: (fx.X.betti_numbers, dict(field=("Z", FIELD))),
    "polyrelu.topology.subcomplex.closure": lambda fx: (
        topology.closure,
        dict(
            complex_=(fx.K, COMPLEX),
            cells=([fx.K.regions()[0]], (None, object(), "cells", 3, {}, [10**6], [-1], [1.5], [Fx("other_cell")])),
        ),
    ),
    "polyrelu.topology.subcomplex.betti_numbers": lambda fx: (
        topology.betti_numbers,
        dict(X=(fx.X, SUBCOMPLEX), field=(2, FIELD)),
    ),
    "polyrelu.topology.subcomplex.homology": lambda fx: (topology.homology, dict(X=(fx.K, SUBCOMPLEX))),
    # -- polyrelu.genericity
    "polyrelu.genericity.genericity": lambda fx: (
        genericity.genericity,
        dict(complex_=(fx.K, COMPLEX), weighted=(None, WEIGHTED), hypersurfaces=(None, (object(), 3, [], {"a": 1}, {}))),
    ),
    # -- polyrelu.identifiability
    "polyrelu.identifiability.dimension.functional_dimension": lambda fx: (
        identifiability.functional_dimension,
        dict(
            network=(fx.net, NETWORK), domain=(None, DOMAIN), complex_=(None, OTHER_COMPLEX), kernel=(True, FLAG),
            n_jobs=(1, JOBS), scheduler=(None, SCHEDULER),
        ),
    ),
    "polyrelu.identifiability.dimension.batch_functional_dimension": lambda fx: (
        identifiability.batch_functional_dimension,
        dict(
            network=(fx.net, NETWORK),
            points=([[2, 3], [-1, -2]], (None, object(), 3, "12", {}, [1, 2], [[1]], [[None, 1]])),
            kernel=(False, FLAG),
        ),
    ),
    "polyrelu.identifiability.dimension.float_functional_dimension": lambda fx: (
        identifiability.float_functional_dimension,
        dict(
            network=(fx.net, NETWORK),
            domain=(None, DOMAIN),
            complex_=(None, OTHER_COMPLEX),
            rtol=(None, (object(), "1e-9", [], True, -1.0, NAN)),
        ),
    ),
    "polyrelu.identifiability.dimension.scaling_directions": lambda fx: (
        identifiability.scaling_directions,
        dict(network=(fx.net, NETWORK)),
    ),
    "polyrelu.identifiability.minimality.minimality_report": lambda fx: (
        identifiability.minimality_report,
        dict(
            network=(fx.net, NETWORK), domain=(None, DOMAIN), max_cells=(1000, COUNT), n_jobs=(1, JOBS),
            scheduler=(None, SCHEDULER),
        ),
    ),
    "polyrelu.identifiability.verdicts.identifiability_report": lambda fx: (
        identifiability.identifiability_report,
        dict(network=(fx.net, NETWORK), domain=(None, DOMAIN), max_cells=(1000, COUNT)),
    ),
    "polyrelu.identifiability.survey.architecture_survey": lambda fx: (
        identifiability.architecture_survey,
        dict(
            architecture=((2, 1, 1), WIDTHS), samples=(1, COUNT), seed=(0, NATURAL), kind=("gaussian", CHOICE),
            n_jobs=(1, JOBS), scheduler=(None, SCHEDULER),
        ),
    ),
    # -- polyrelu.dependency
    "polyrelu.dependency.candidate_hypersurfaces": lambda fx: (
        dependency.candidate_hypersurfaces,
        dict(breakpoints=(fx.B, BREAKPOINTS)),
    ),
    "polyrelu.dependency.CandidateHypersurfaces.of_facet": lambda fx: (
        fx.C.of_facet,
        dict(facet=(fx.breakpoint_facet, (None, "0", 1.5, True, object(), -1, 10**6))),
    ),
    "polyrelu.dependency.dependency_graph": lambda fx: (
        dependency.dependency_graph,
        dict(breakpoints=(fx.B, BREAKPOINTS), candidates=(None, CANDIDATES)),
    ),
    "polyrelu.dependency.parameter_dependency_graph": lambda fx: (
        dependency.parameter_dependency_graph,
        dict(network=(fx.net, NETWORK), domain=(None, DOMAIN), complex_=(None, OTHER_COMPLEX)),
    ),
    "polyrelu.dependency.DependencyGraph.is_isomorphic": lambda fx: (
        fx.G.is_isomorphic,
        dict(other=(fx.G, DEPENDENCY_GRAPH)),
    ),
    "polyrelu.dependency.DependencyGraph.from_json": lambda fx: (
        dependency.DependencyGraph.from_json,
        dict(data=(fx.G.to_json(), JSON_DATA)),
    ),
    "polyrelu.dependency.DependencyGraph.write_json": lambda fx: (fx.G.write_json, dict(path=(fx.tmp / "g.json", PATH))),
    "polyrelu.dependency.DependencyGraph.read_json": lambda fx: (
        dependency.DependencyGraph.read_json,
        dict(path=(fx.tmp / "graph.json", PATH), limits=(io.DEFAULT_LIMITS, LIMITS)),
    ),
    "polyrelu.dependency.DependencyGraph.write_graphml": lambda fx: (
        fx.G.write_graphml,
        dict(path=(fx.tmp / "g.graphml", PATH)),
    ),
    "polyrelu.dependency.DependencyGraph.read_graphml": lambda fx: (
        dependency.DependencyGraph.read_graphml,
        dict(path=(fx.tmp / "graph.graphml", PATH)),
    ),
    "polyrelu.dependency.depth_hierarchy": lambda fx: (
        dependency.depth_hierarchy,
        dict(graph=(fx.G, (None, object(), 3, "graph", Fx("B"), Fx("nx"))), layer=("layer", LAYERING)),
    ),
    "polyrelu.dependency.DepthHierarchy.verify": lambda fx: (fx.H.verify, dict(candidates=(fx.C, CANDIDATES))),
    # -- polyrelu.analysis
    "polyrelu.analysis.analyze": lambda fx: (
        analysis.analyze,
        dict(network=(fx.net, NETWORK), domain=(None, DOMAIN), inradius=(False, FLAG), max_cells=(1000, COUNT),
             n_jobs=(1, JOBS), scheduler=(None, SCHEDULER)),
    ),
    "polyrelu.analysis.Analysis.write_json": lambda fx: (
        fx.analysis.write_json,
        dict(path=(fx.tmp / "analysis.json", PATH)),
    ),
    "polyrelu.analysis.Analysis.plot": lambda fx: (
        fx.analysis.plot,
        dict(
            path=(None, (3, object(), "", [], b"file.png")),
            ax=(new_axes(), AXES),
            title=(None, OPTIONAL_TEXT),
            window=(None, WINDOW),
            fill=("activation", FILL),
        ),
    ),
    "polyrelu.analysis.slice_network": lambda fx: (
        analysis.slice_network,
        dict(network=(fx.net, NETWORK), origin=([0, 0], VECTOR), u=([1, 0], VECTOR), v=([0, 1], VECTOR)),
    ),
    "polyrelu.analysis.thinnest_region": lambda fx: (
        analysis.thinnest_region,
        dict(complex_=(fx.K, COMPLEX), box=(3, (object(), "abc", [], True, NAN, 0, -1))),
    ),
    # -- polyrelu.examples
    "polyrelu.examples.bent_line_network": lambda fx: (examples.bent_line_network, {}),
    "polyrelu.examples.bottleneck_network": lambda fx: (examples.bottleneck_network, {}),
    "polyrelu.examples.generic_network": lambda fx: (
        examples.generic_network,
        dict(architecture=((2, 2, 1), WIDTHS), seed=(0, NATURAL), max_attempts=(5, COUNT), bits=(16, NATURAL)),
    ),
    "polyrelu.examples.seeded_gaussian_network": lambda fx: (
        examples.seeded_gaussian_network,
        dict(widths=((2, 2, 1), WIDTHS)),
    ),
    "polyrelu.examples.with_neuron": lambda fx: (
        examples.with_neuron,
        dict(
            network=(fx.net, NETWORK),
            layer=(1, HIDDEN_LAYER),
            row=([1, 1], VECTOR),
            bias=(0, NUMBER),
            outgoing=([0], (None, object(), "0", 5, {}, [[0]], [None], [0, 0])),
        ),
    ),
    "polyrelu.examples.with_dead_neuron": lambda fx: (
        examples.with_dead_neuron,
        dict(network=(fx.net, NETWORK), layer=(1, HIDDEN_LAYER), outgoing=(None, (object(), "0", 5, {}, [[0]], [None], [0, 0]))),
    ),
    "polyrelu.examples.with_invisible_neuron": lambda fx: (
        examples.with_invisible_neuron,
        dict(network=(fx.net, NETWORK), layer=(1, HIDDEN_LAYER), row=([1, -3], VECTOR), bias=("1/5", NUMBER)),
    ),
    "polyrelu.examples.with_twin_neuron": lambda fx: (
        examples.with_twin_neuron,
        dict(
            network=(fx.net, NETWORK),
            layer=(1, HIDDEN_LAYER),
            index=(0, NEURON_INDEX),
            ratio=(2, POSITIVE),
            share=("1/2", NUMBER),
        ),
    ),
    "polyrelu.examples.with_stably_active_layer": lambda fx: (
        examples.with_stably_active_layer,
        dict(network=(fx.net, NETWORK), after=(1, HIDDEN_LAYER), shift=(1, POSITIVE)),
    ),
    "polyrelu.examples.bottleneck_flip": lambda fx: (
        examples.bottleneck_flip,
        dict(network=(examples.bottleneck_network(), NETWORK + (Fx("net"),))),
    ),
    "polyrelu.examples.free_weight_network": lambda fx: (examples.free_weight_network, dict(t=(-1, NEGATIVE))),
    # -- polyrelu.plot
    "polyrelu.plot.complex.plot_complex": lambda fx: (
        plot.plot_complex,
        dict(
            complex_=(fx.K, COMPLEX),
            weights=(None, WEIGHTED),
            ax=(fx.ax, AXES),
            margin=("1/2", NUMBER),
            window=(None, WINDOW),
            title=(None, OPTIONAL_TEXT),
            fill=("activation", FILL),
            axis_labels=(("t1", "t2"), (None, 3, object(), ["x1"], ["x1", 2], ("a", "b", "c"))),
        ),
    ),
    "polyrelu.plot.html.write_complex_html": lambda fx: (
        plot.write_complex_html,
        dict(
            complex_=(fx.K, COMPLEX),
            path=(fx.tmp / "complex.html", PATH),
            fill=("output", FILL),
            window=(None, WINDOW),
            margin=("1/2", NUMBER),
            title=(None, OPTIONAL_TEXT),
            axis_labels=(None, (3, object(), ["x1"], ["x1", 2], ("a", "b", "c"))),
            boundary=(None, (3, object(), "edges", [object()], [3])),
        ),
    ),
    "polyrelu.plot.files.check_html_path": lambda fx: (
        plot.check_html_path,
        dict(path=(fx.tmp / "complex.html", PATH), inputs=((), (None, 3, object(), [3]))),
    ),
    "polyrelu.plot.dependency.plot_dependency_graph": lambda fx: (
        plot.plot_dependency_graph,
        dict(graph=(fx.G, DEPENDENCY_GRAPH), ax=(fx.ax, AXES), highlight_chain=(True, FLAG), title=(None, OPTIONAL_TEXT)),
    ),
    "polyrelu.plot.files.check_figure_path": lambda fx: (
        plot.check_figure_path,
        dict(path=(fx.tmp / "figure.png", PATH), inputs=((), (None, 3, object(), "net.json", [3]))),
    ),
    "polyrelu.plot.files.save_figure": lambda fx: (
        plot.save_figure,
        dict(ax=(new_axes(), (None, *AXES)), path=(fx.tmp / "figure.png", PATH)),
    ),
    # -- polyrelu.geometry
    "polyrelu.geometry.polyhedron.Polyhedron": lambda fx: (
        Polyhedron,
        dict(
            ieqs=(fx.square, MATRIX[1:]),
            eqns=(None, MATRIX[1:]),
            vertices=(None, MATRIX[1:]),
            rays=(None, MATRIX[1:]),
            lines=(None, MATRIX[1:]),
            ambient_dim=(None, ("2", 2.5, True, object(), 0, -1, 3)),
            oracle=(None, ORACLE),
        ),
    ),
    "polyrelu.geometry.polyhedron.Polyhedron.from_trusted": lambda fx: (
        Polyhedron.from_trusted,
        dict(
            ambient_dim=(2, COUNT),
            h_representation=((fx.square, ()), (None, object(), 3, "rows", [fx.square], [[(1, "x", 0)], []], [[(1, 2)], []])),
            minimal_h_representation=(None, (object(), 3, "rows", [fx.square], [[(1, 0.5, 0)], []])),
            vertices_rays_lines=(None, (object(), 3, "xy", [[(0, 0)]], [[(0, "0")], [], []], [[(0, 0)], [(0.5, 1)], []])),
            relative_interior_point=(None, (object(), 3, "xy", [1], [0.5, 0.5], (1, 2, 3))),
            affine_hull=(None, (object(), 3, "hull", [1, 2], Fx("triangle"))),
            oracle=(None, ORACLE),
        ),
    ),
    "polyrelu.geometry.polyhedron.Polyhedron.contains": lambda fx: (fx.triangle.contains, dict(x=([0, 0], VECTOR))),
    "polyrelu.geometry.polyhedron.Polyhedron.relative_interior_contains": lambda fx: (
        fx.triangle.relative_interior_contains,
        dict(x=(["1/4", "1/4"], VECTOR)),
    ),
    "polyrelu.geometry.affine.AffineSubspace.contains": lambda fx: (fx.hull.contains, dict(x=([1, 2], VECTOR))),
    "polyrelu.geometry.affine.AffineSubspace.coordinates": lambda fx: (fx.hull.coordinates, dict(x=([1, 2], VECTOR))),
    "polyrelu.geometry.affine.AffineSubspace.lift": lambda fx: (fx.hull.lift, dict(u=([1, 2], VECTOR))),
    "polyrelu.geometry.affine.AffineSubspace.restrict": lambda fx: (fx.hull.restrict, dict(row=((1, 1, 1), ROW))),
    "polyrelu.geometry.affine.AffineSubspace.from_equations": lambda fx: (
        AffineSubspace.from_equations,
        dict(equations=([(1, -1, -1)], INTEGER_ROWS[:-2]), ambient_dim=(2, COUNT)),
    ),
    "polyrelu.geometry.lp.LPOracle": lambda fx: (LPOracle, dict(method=("exact", CHOICE))),
    "polyrelu.geometry.lp.LPOracle.decide": lambda fx: (LPOracle().decide, dict(rows=(fx.square, INTEGER_ROWS))),
    "polyrelu.geometry.lp.FeasibilityCertificate.verify": lambda fx: (
        fx.certificate.verify,
        dict(rows=(fx.square, INTEGER_ROWS)),
    ),
    "polyrelu.geometry.lattice.FaceLattice": lambda fx: (
        FaceLattice,
        dict(
            dimensions=([0, 0, 1], (None, object(), 3, "001", {}, [0.5, 0, 1], [True, 0, 1], [-1, 0, 1])),
            covers=([(0, 2), (1, 2)], (None, object(), 3, "02", {}, [(0,)], [("a", 2)], [(0.0, 2)], [(0, 5)], [(2, 0)])),
            data=(None, (3, object(), "abc", [1])),
        ),
    ),
    **{
        f"polyrelu.geometry.lattice.FaceLattice.{method}": (
            lambda fx, method=method: (getattr(fx.lattice, method), dict(cell=(1, LATTICE_CELL)))
        )
        for method in ("data", "facets", "cofacets", "faces", "cofaces", "star")
    },
    "polyrelu.geometry.lattice.FaceLattice.dimension": lambda fx: (fx.lattice.dimension, dict(cell=(1, LATTICE_CELL[1:]))),
    "polyrelu.geometry.lattice.FaceLattice.cells": lambda fx: (fx.lattice.cells, dict(dim=(1, ("1", 1.5, True, object(), [], -1)))),
    "polyrelu.geometry.lattice.FaceLattice.from_trusted": lambda fx: (
        FaceLattice.from_trusted,
        dict(
            dimensions=([0, 0, 1], (None, object(), 3, "012", [0, 0])),
            facets=([(), (), (0, 1)], (None, object(), 3, "facets", [(), ()])),
        ),
    ),
    "polyrelu.geometry.subdivision.Subdivision": lambda fx: (Subdivision, dict(d=(2, COUNT))),
    "polyrelu.geometry.subdivision.Subdivision.from_arrangement": lambda fx: (
        Subdivision.from_arrangement,
        dict(rows=([(0, 1, 0), (0, 0, 1)], (*INTEGER_ROWS, [(0, 1, 0), (0, 2, 0)]))),
    ),
    "polyrelu.geometry.subdivision.Subdivision.from_polytope": lambda fx: (
        Subdivision.from_polytope,
        dict(
            vertices=([(0, 0), (1, 0)], (None, object(), 3, "xy", {}, [], [1, 2], [[None, 0], [1, 0]])),
            faces=(
                [(0, [0], []), (0, [1], []), (1, [0, 1], [0, 1])],
                (None, object(), 3, "faces", {}, [1, 2], [(0, [0], [])], [(0, [0], []), (0, [1], []), ("1", [0, 1], [0, 1])],
                 [(0, [0], []), (0, [1], []), (1, [0, 7], [0, 1])], [(0, [0], []), (0, [1], []), (1, [0, 1], [0, 9])]),
            ),
            signs=([[0], [0], [1]], (object(), 3, "signs", {}, [[0], [0]], [[0], [0], [1, 1]], [[0], [0], [2]], [[0], [0], ["1"]])),
        ),
    ),
    "polyrelu.geometry.subdivision.Subdivision.cut": lambda fx: (
        arrangement().cut,
        dict(values=([sum(X) - D for D, *X in arrangement().vertices], (None, object(), 3, "1", {}, [1], [[1]] * 5, [0.5] * 5))),
    ),
    "polyrelu.geometry.subdivision.Subdivision.cut_by_signs": lambda fx: (
        arrangement().cut_by_signs,
        dict(
            signs=([(v > 0) - (v < 0) for v in (sum(X) - D for D, *X in arrangement().vertices)],
                   (None, object(), 3, "1", {}, [1], [2] * 5, [0.5] * 5, [True] * 5)),
            exact_values=(lambda ends: [sum(arrangement().vertices[i][1:]) - arrangement().vertices[i][0] for i in ends],
                          (None, object(), 3, "f", lambda ends: [1] * len(ends), lambda ends: [0.5] * len(ends), lambda ends: [])),
        ),
    ),
    "polyrelu.geometry.subdivision.Subdivision.cell_signs": lambda fx: (arrangement().cell_signs, dict(cid=(0, CELL))),
    "polyrelu.geometry.subdivision.Subdivision.sign_matrix": lambda fx: (
        arrangement().sign_matrix,
        dict(cids=([0, 1], (None, object(), 3, "01", {}, [10**6], [-1], [[0], [1, 2]]))),
    ),
    "polyrelu.geometry.subdivision.Subdivision.closure": lambda fx: (arrangement().closure, dict(cid=(0, CELL))),
    "polyrelu.geometry.subdivision.Subdivision.subcomplex": lambda fx: (
        arrangement().subcomplex,
        dict(cids=([0, 1], (None, object(), 3, "01", {}, [10**6], [-1], [[0], [1, 2]], [0.5]))),
    ),
    "polyrelu.geometry.subdivision.Subdivision.cell_vertices": lambda fx: (arrangement().cell_vertices, dict(cid=(0, CELL))),
    "polyrelu.geometry.rational.to_fraction": lambda fx: (
        geometry.to_fraction,
        dict(value=("1/2", NUMBER), where=("value", LABEL)),
    ),
    "polyrelu.geometry.rational.to_fraction_vector": lambda fx: (
        geometry.to_fraction_vector,
        dict(values=([1, 2], VECTOR), where=("values", LABEL), length=(2, ("2", 2.5, True, object(), -1))),
    ),
    "polyrelu.geometry.rational.to_fraction_matrix": lambda fx: (
        geometry.to_fraction_matrix,
        dict(rows=([[1, 2]], MATRIX), where=("rows", LABEL), shape=(None, (3, "1x2", object(), [1], [1.5, 2], [True, 2], [-1, 2]))),
    ),
    "polyrelu.geometry.rational.fraction_to_json": lambda fx: (geometry.fraction_to_json, dict(value=(Fraction(1, 3), NUMBER))),
    "polyrelu.geometry.rational.primitive_integer_row": lambda fx: (
        geometry.primitive_integer_row,
        dict(row=([1, "1/2"], (None, object(), "123", 3, {}, [[1]], [None], [NAN]))),
    ),
    # -- polyrelu.graphs
    **{
        f"polyrelu.graphs.dag.{name}": (lambda fx, name=name: (getattr(graphs, name), dict(graph=(fx.ig, IGRAPH))))
        for name in ("topological_order", "longest_path_layers", "longest_path")
    },
    **{
        f"polyrelu.graphs.dag.{name}": (
            lambda fx, name=name: (getattr(graphs, name), dict(graph=(fx.ig, IGRAPH), layer=("layer", LAYERING)))
        )
        for name in ("longest_layered_chain", "is_layering")
    },
    "polyrelu.graphs.graphml.write_graphml": lambda fx: (
        graphs.write_graphml,
        dict(graph=(fx.ig, IGRAPH), path=(fx.tmp / "written.graphml", PATH)),
    ),
    "polyrelu.graphs.graphml.read_graphml": lambda fx: (graphs.read_graphml, dict(path=(fx.tmp / "graph.graphml", PATH))),
    "polyrelu.graphs.convert.igraph_to_networkx": lambda fx: (graphs.igraph_to_networkx, dict(graph=(fx.ig, IGRAPH))),
    "polyrelu.graphs.convert.networkx_to_igraph": lambda fx: (graphs.networkx_to_igraph, dict(graph=(fx.nx, NXGRAPH))),
    # -- polyrelu.schemas
    "polyrelu.schemas.schema": lambda fx: (schemas.schema, dict(name=("complex", CHOICE))),
    "polyrelu.schemas.validator": lambda fx: (schemas.validator, dict(name=("complex", (*CHOICE, [], {})))),
    "polyrelu.schemas.validate": lambda fx: (
        schemas.validate,
        # any parsed JSON is a document to judge: a wrong one is refused by the schema, not by its type
        dict(data=(fx.K.to_json(), ()), kind=("complex", CHOICE[1:]), source=(None, OPTIONAL_TEXT)),  # kind=None: detected
    ),
    # -- polyrelu.recovery
    "polyrelu.recovery.oracle.network_oracle": lambda fx: (
        recovery.network_oracle,
        dict(net=(fx.net, NETWORK), float_output=(False, FLAG)),
    ),
    "polyrelu.recovery.breakpoints.line_breakpoints": lambda fx: (
        recovery.line_breakpoints,
        dict(
            oracle=(recovery.network_oracle(fx.net), CALLABLE),
            point=([0, 0], VECTOR),
            direction=([1, 1], VECTOR),
            domain=(None, DOMAIN),
            float_oracle=(False, FLAG),
            tolerance=(None, (object(), "1e-9", [], True, NAN, -1.0, 1e-9)),  # exact mode refuses any tolerance
        ),
    ),
    "polyrelu.recovery.breakpoints.breakpoint_data": lambda fx: (
        recovery.breakpoint_data,
        dict(
            oracle=(recovery.network_oracle(fx.net), CALLABLE),
            point=(["1/2", "1/2"], VECTOR),
            direction=(["1/8", "1/8"], VECTOR),
            float_oracle=(False, FLAG),
            tolerance=(None, (object(), "1e-9", [], True, NAN, -1.0, 1e-9)),  # exact mode refuses any tolerance
        ),
    ),
    "polyrelu.recovery.driver.recover_network": lambda fx: (
        recovery.recover_network,
        dict(
            oracle=(recovery.network_oracle(fx.other), CALLABLE),
            input_dim=(2, COUNT),
            domain=(None, DOMAIN),
            max_queries=(10**5, COUNT),
            lines=(None, COUNT[1:]),
            seed=(0, NATURAL),
            float_oracle=(False, FLAG),
            tolerance=(None, (object(), "1e-9", [], True, NAN, -1.0, 1e-9)),  # exact mode refuses any tolerance
            max_rounds=(6, COUNT),
            checks=(32, COUNT),
            max_seconds=(None, (object(), "1", [], True, NAN, -1.0, 0)),
            max_cells=(10**6, COUNT),
            progress=(False, (object(), "no", 1, [])),
            known_layers=(None, (object(), "net.json", [], 1)),
        ),
    ),
}


# -- the tests ------------------------------------------------------------------------------------
def test_the_modules_are_those_documented():
    assert MODULES[0] == "polyrelu" and "polyrelu.io" in MODULES and "polyrelu.geometry" in MODULES
    for name in MODULES:
        assert importlib.import_module(name).__all__, name


def test_every_public_callable_has_an_entry():
    public = set(public_callables())
    missing = sorted(public - set(API) - set(EXEMPT))
    assert not missing, f"public callables without an entry in API (or a reason in EXEMPT): {missing}"
    stale = sorted((set(API) | set(EXEMPT)) - public)
    assert not stale, f"entries for names that are not public callables: {stale}"
    assert not set(API) & set(EXEMPT)


@pytest.mark.parametrize("name", sorted(API))
def test_entry_is_a_valid_call(fx, name):
    target, arguments = API[name](fx)
    assert qualified_name(target) == name
    assert sorted(arguments) == sorted(parameters(target)), "the entry must list every parameter"
    target(**{arg: resolve(valid, fx) for arg, (valid, _) in arguments.items()})


@pytest.mark.parametrize("name", sorted(API))
def test_wrong_arguments_are_refused_by_name(fx, name):
    target, arguments = API[name](fx)
    defaults = {p.name: p.default for p in inspect.signature(target).parameters.values()}
    failures = []
    for arg, (_, wrong_values) in arguments.items():
        for wrong in wrong_values:
            if wrong is None and defaults.get(arg, inspect.Parameter.empty) is None:
                continue  # None is the documented default
            target, arguments = API[name](fx)  # fresh objects: a call must not see an earlier one's state
            call = {a: resolve(valid, fx) for a, (valid, _) in arguments.items()}
            call[arg] = resolve(wrong, fx)
            shown = f"{arg}={describe(call[arg])}"
            try:
                target(**call)
            except PolyReluError as exc:
                if not re.search(rf"(?<![\w.]){re.escape(arg)}(?!\w)", str(exc)):
                    failures.append(f"{shown}: the message does not name {arg!r}: {type(exc).__name__}: {exc}")
            except Exception as exc:  # noqa: BLE001  (what the test is looking for)
                failures.append(f"{shown}: {type(exc).__name__}: {exc}")
            else:
                failures.append(f"{shown}: accepted")
    assert not failures, f"{name}:\n" + "\n".join(failures)
