"""Reading complex files that may have been tampered with: the schema, the geometric checks, and ``==``.

Every export here is of a complex computed by polyrelu, then changed the way a
careless edit or a hostile file would change it. ``from_json`` must refuse
every change with ``ComplexFormatError``; ``trusted=True`` skips the geometric
checks, and then ``==`` (geometry, not ids) must see the change instead.
"""

import copy
import gzip
import json
import random
import tempfile
from fractions import Fraction as F
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from reference import euler_characteristic
from referencing import Registry, Resource

from polyrelu import (
    AnalysisFormatError,
    Box,
    CanonicalComplex,
    ComplexFormatError,
    GraphFormatError,
    LimitExceededError,
    ReLUNetwork,
    UsageError,
    canonical_complex,
)
from polyrelu.examples import (
    bent_line_network,
    free_weight_network,
    seeded_gaussian_network,
    with_dead_neuron,
)
from polyrelu.geometry.rational import fraction_to_json
from polyrelu.io import Limits, network_to_dict
from polyrelu.schemas import SCHEMA_NAMES, schema, validate, validator
from polyrelu.tropical import tropical_weights

ROOT = Path(__file__).resolve().parent.parent

# Small complexes of every kind the checks distinguish: R^n0 (unbounded cells, rays) and a box
# (polytopes, domain signs); 2-D (polygons: incidence counts decide) and 3-D (cdd.gmp decides);
# lines (a first layer with a kernel).
NETWORKS = {
    "bent line R^2": (bent_line_network(), None),
    "bent line box": (bent_line_network(), Box(-2, 2)),
    "3-D R^3": (ReLUNetwork([[[1, 0, 0], [0, 1, 0], [0, 0, 1]], [[1, 1, -1]]], [[0, 0, 0], [0]]), None),
    "3-D box": (ReLUNetwork([[[1, 1, 0], [0, 1, -1]], [[1, -1]]], [[0, "1/2"], [0]]), Box(-1, 1)),
    "lines R^3": (ReLUNetwork([[[1, 0, 0], [0, 1, 0]], [[1, -1]]], [[0, 0], [0]]), None),
}
UNBOUNDED = ["bent line R^2", "3-D R^3", "lines R^3"]
BOXES = ["bent line box", "3-D box"]
ALL = list(NETWORKS)

_CACHE = {}


def complex_and_export(name):
    """The complex (built once) and its export as plain JSON data, a fresh copy on every call.

    A test may change the data it gets: no other test sees the change, whatever the order.
    """
    if name not in _CACHE:
        net, domain = NETWORKS[name]
        K = canonical_complex(net, domain)
        _CACHE[name] = (K, json.dumps(K.to_json(version=1)))
    K, text = _CACHE[name]
    return K, json.loads(text)


# -----------------------------------------------------------------------------------------
# Tampering: each function changes a copy of an export in place
# -----------------------------------------------------------------------------------------
def first(data, predicate):
    return next(c for c in data["cells"] if predicate(c))


def region(data):
    return first(data, lambda c: c["dim"] == data["ambient_dim"])


def shifted(text, delta):
    return str(F(text) + delta).replace(" ", "")


def recount(data):
    """Patch f-vector and Euler characteristic to the cells, so that only the geometry is wrong."""
    top = max(c["dim"] for c in data["cells"])
    data["f_vector"] = [sum(c["dim"] == d for c in data["cells"]) for d in range(top + 1)]
    data["euler_characteristic"] = euler_characteristic(c["dim"] for c in data["cells"])


def drop_incidence(data):
    data["covering"].pop(len(data["covering"]) // 2)


def add_incidence(data):
    pairs = {tuple(p) for p in data["covering"]}
    cells = data["cells"]
    graded = ((a["id"], b["id"]) for a in cells for b in cells if b["dim"] == a["dim"] + 1)
    data["covering"].append(list(next(pair for pair in graded if pair not in pairs)))


def move_vertex(data):
    cell = region(data)
    cell["vertices"][0][0] = shifted(cell["vertices"][0][0], F(1, 7))


def move_ray(data):
    cell = first(data, lambda c: c["rays"] and c["dim"] == data["ambient_dim"])
    ray = [int(v) for v in cell["rays"][0]]
    ray[0] += 1 if ray[0] >= 0 else -1
    cell["rays"][0] = [str(v) for v in ray]


def drop_vertex(data):
    cell = max((c for c in data["cells"] if len(c["vertices"]) >= 2), key=lambda c: c["dim"])
    cell["vertices"].pop()


def duplicate_sign_vector(data):
    a, b = next(pair for d in range(4) if len(pair := [c for c in data["cells"] if c["dim"] == d][:2]) == 2)
    b["signs"], b["domain_signs"] = a["signs"], a["domain_signs"]


def flip_sign(data):
    cell = region(data)
    k = next(k for k, ch in enumerate(cell["signs"]) if ch != "0")
    cell["signs"] = cell["signs"][:k] + ("-" if cell["signs"][k] == "+" else "+") + cell["signs"][k + 1 :]


def wrong_dimension(data):
    cell = first(data, lambda c: c["dim"] == 1)
    cell["dim"] = 2


def change_ieq(data):
    cell = first(data, lambda c: c["ieqs"] and c["dim"] == data["ambient_dim"])
    cell["ieqs"][0][0] = str(int(cell["ieqs"][0][0]) + 1)


def drop_ieq(data):
    cell = first(data, lambda c: len(c["ieqs"]) >= 2 and c["dim"] == data["ambient_dim"])
    cell["ieqs"].pop(0)


def add_redundant_ieq(data):
    cell = first(data, lambda c: c["ieqs"] and c["dim"] == data["ambient_dim"])
    row = cell["ieqs"][0]
    cell["ieqs"] = sorted(cell["ieqs"] + [[str(int(row[0]) + 1), *row[1:]]], key=lambda r: [int(v) for v in r])


def change_eqn(data):
    cell = first(data, lambda c: c["eqns"])
    cell["eqns"][0][0] = str(int(cell["eqns"][0][0]) + 1)


def move_interior_point(data):
    cell = region(data)
    cell["relative_interior_point"] = [shifted(v, 1000) for v in cell["relative_interior_point"]]


def change_affine_map(data):
    region(data)["affine_map"]["b"][0] = shifted(region(data)["affine_map"]["b"][0], 1)


def change_weight(data):
    layer = data["network"]["layers"][0]
    layer["weights"][0][0] = str(F(layer["weights"][0][0]) + 1)


def change_domain_row(data):
    row = data["domain"]["ieqs"][0]
    row[0] = str(int(row[0]) + 1)


def remove_cell(data):
    gone = region(data)["id"]
    data["cells"] = [c for c in data["cells"] if c["id"] != gone]
    for c in data["cells"]:
        c["id"] -= c["id"] > gone
    data["covering"] = [[i - (i > gone), j - (j > gone)] for i, j in data["covering"] if gone not in (i, j)]
    recount(data)


def remove_region_and_boundary_facet(data):
    """The region and its facet on the domain's boundary: the Euler characteristic does not change."""
    n0 = data["ambient_dim"]
    facets = {}
    for i, j in data["covering"]:
        facets.setdefault(j, []).append(i)
    cells = data["cells"]
    regions = [c["id"] for c in cells if c["dim"] == n0]
    sigma, tau = next((r, f) for r in regions for f in facets[r] if "0" in cells[f]["domain_signs"])
    gone = {sigma, tau}
    new_id = {}
    for c in cells:
        if c["id"] not in gone:
            new_id[c["id"]] = len(new_id)
    data["cells"] = [c for c in cells if c["id"] not in gone]
    for c in data["cells"]:
        c["id"] = new_id[c["id"]]
    data["covering"] = [[new_id[i], new_id[j]] for i, j in data["covering"] if i not in gone and j not in gone]
    recount(data)


def add_redundant_domain_row(data):
    n0 = data["ambient_dim"]
    data["domain"]["ieqs"].append(["10", "1"] + ["0"] * (n0 - 1))  # x1 >= -10
    for c in data["cells"]:
        c["domain_signs"] += "+"


def add_cell(data):
    extra = copy.deepcopy(data["cells"][0])
    extra["id"] = len(data["cells"])
    extra["signs"] = "0" * len(extra["signs"])
    data["cells"].append(extra)
    recount(data)


def permute_ids(data):
    data["cells"][0]["id"], data["cells"][1]["id"] = 1, 0


def swap_cells_keep_covering(data):
    cells = data["cells"]
    j = next(i for i, c in enumerate(cells) if c["dim"] != cells[0]["dim"])
    cells[0], cells[j] = cells[j], cells[0]
    cells[0]["id"], cells[j]["id"] = 0, j


def edit_f_vector(data):
    data["f_vector"][0] += 1


def edit_euler(data):
    data["euler_characteristic"] += 2


def bad_number(data):
    region(data)["vertices"][0][0] = "1.5.3"


def missing_key(data):
    del region(data)["eqns"]


def float_number(data):
    region(data)["relative_interior_point"][0] = 0.5


def scale_ray(data):
    cell = first(data, lambda c: c["rays"])
    cell["rays"][0] = [str(2 * int(v)) for v in cell["rays"][0]]


def change_line(data):
    cell = first(data, lambda c: c["lines"])
    cell["lines"][0] = ["1", "0", "1"]


TAMPERINGS = {
    "dropped incidence": (drop_incidence, ALL),
    "added incidence": (add_incidence, ALL),
    "moved vertex": (move_vertex, ALL),
    "moved ray": (move_ray, UNBOUNDED),
    "dropped vertex": (drop_vertex, ["bent line R^2", "bent line box", "3-D box"]),
    "duplicate sign vector": (duplicate_sign_vector, ALL),
    "flipped sign": (flip_sign, ALL),
    "wrong dimension": (wrong_dimension, ALL),
    "changed ieq": (change_ieq, ALL),
    "dropped ieq": (drop_ieq, ALL),
    "added redundant ieq": (add_redundant_ieq, ALL),
    "changed eqn": (change_eqn, ALL),
    "moved relative interior point": (move_interior_point, ALL),
    "changed affine map": (change_affine_map, ALL),
    "changed network weight": (change_weight, ALL),
    "changed domain row": (change_domain_row, BOXES),
    "removed cell, f-vector and Euler patched": (remove_cell, ALL),
    "added cell, f-vector and Euler patched": (add_cell, ALL),
    "removed region and its facet on the boundary": (remove_region_and_boundary_facet, BOXES),
    "redundant domain row": (add_redundant_domain_row, BOXES),
    "ids permuted": (permute_ids, ALL),
    "cells swapped, covering kept": (swap_cells_keep_covering, ALL),
    "f-vector edited": (edit_f_vector, ALL),
    "Euler characteristic edited": (edit_euler, ALL),
    "number 1.5.3": (bad_number, ALL),
    "missing key": (missing_key, ALL),
    "float instead of an exact string": (float_number, ALL),
    "ray not primitive": (scale_ray, UNBOUNDED),
    "changed line": (change_line, ["lines R^3"]),
}
# A relative interior point is not part of the geometry (any point of the cell is one) and affine
# maps are recomputed from the network: a complex read without checks keeps neither as geometry.
NOT_GEOMETRY = {"moved relative interior point", "changed affine map"}

CASES = [(kind, name) for kind, (_, names) in TAMPERINGS.items() for name in names]


def tampered(kind, name):
    _, data = complex_and_export(name)
    TAMPERINGS[kind][0](data)
    assert data != complex_and_export(name)[1], "the tampering changed nothing"
    return data


# -----------------------------------------------------------------------------------------
# Round trips
# -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", ALL)
def test_untampered_export_round_trips_to_an_equal_complex(name, tmp_path):
    K, data = complex_and_export(name)
    path = tmp_path / "K.json"
    K.write_json(path, version=1)
    for source in (copy.deepcopy(data), json.dumps(data), path, str(path)):
        K2 = CanonicalComplex.from_json(source)
        assert K2 == K and K == K2
        assert K2.to_json(version=1) == data
    assert CanonicalComplex.from_json(data, trusted=True) == K


@pytest.mark.parametrize("name", ALL)
def test_equality_ignores_a_consistent_renumbering(name):
    K, data = complex_and_export(name)
    order = list(range(len(data["cells"])))
    random.Random(len(order)).shuffle(order)  # order[new] = old
    new_id = {old: new for new, old in enumerate(order)}
    data["cells"] = [data["cells"][old] for old in order]
    for new, cell in enumerate(data["cells"]):
        cell["id"] = new
    data["covering"] = [[new_id[i], new_id[j]] for i, j in data["covering"]]
    K2 = CanonicalComplex.from_json(data)  # with every check
    assert [c.signs for c in K2] != [c.signs for c in K]
    assert K2 == K
    # the renumbered covering relation still joins the same cells
    assert {(K2[i].signs, K2[j].signs) for i, j in K2.lattice.covering_relation()} == {
        (K[i].signs, K[j].signs) for i, j in K.lattice.covering_relation()
    }


def test_equality_compares_networks_domains_and_cells():
    K, _ = complex_and_export("bent line R^2")
    assert K == canonical_complex(bent_line_network(), method="lp")
    assert K != complex_and_export("bent line box")[0]
    assert K != canonical_complex(bent_line_network(), Box(-3, 3))
    assert K != canonical_complex(ReLUNetwork(bent_line_network().weights, [[0, 0], [-1], [1]]))
    with pytest.raises(TypeError):
        hash(K)


# -----------------------------------------------------------------------------------------
# Tampering is refused, and seen by == when the checks are skipped
# -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind,name", CASES, ids=[f"{k}-{n}" for k, n in CASES])
def test_tampering_is_refused(kind, name):
    data = tampered(kind, name)
    with pytest.raises(ComplexFormatError, match="modified or corrupted|schema") as info:
        CanonicalComplex.from_json(data)
    assert str(info.value).startswith("complex JSON: ")


GEOMETRY_CASES = [(kind, name) for kind, name in CASES if kind not in NOT_GEOMETRY]


@pytest.mark.parametrize("kind,name", GEOMETRY_CASES, ids=[f"{k}-{n}" for k, n in GEOMETRY_CASES])
def test_equality_sees_tampering_read_without_checks(kind, name):
    K, _ = complex_and_export(name)
    data = tampered(kind, name)
    try:
        K2 = CanonicalComplex.from_json(data, trusted=True)
    except ComplexFormatError:
        return  # the schema or the bookkeeping refuse it even when trusted
    assert K2 != K and K != K2


@pytest.mark.parametrize("kind", sorted(NOT_GEOMETRY))
def test_fields_outside_the_geometry_are_refused_by_the_checks_only(kind):
    K, _ = complex_and_export("bent line R^2")
    data = tampered(kind, "bent line R^2")
    assert CanonicalComplex.from_json(data, trusted=True) == K
    with pytest.raises(ComplexFormatError):
        CanonicalComplex.from_json(data)


def test_messages_name_the_cell_and_what_is_wrong():
    cases = {
        "moved vertex": r"cell \d+: vertex 0 \(.*\) is not in the closure of the cell's sign class",
        "moved relative interior point": r"cell \d+: its relative interior point .* does not have the cell's signs",
        "duplicate sign vector": r"cell \d+: has the same sign vector and domain signs as cell \d+",
        "dropped incidence": r"cell \d+: is a facet of cell \d+ by their sign vectors, but the covering relation lacks",
        "changed affine map": r"cell \d+: its affine_map is not the network's affine map",
        "removed cell, f-vector and Euler patched": r"Euler characteristic is 0, but a complex covering R\^2 has 1",
        "number 1.5.3": r"at \$\.cells\[\d+\]\.vertices\[0\]\[0\]: '1\.5\.3' does not match",
    }
    for kind, pattern in cases.items():
        with pytest.raises(ComplexFormatError, match=pattern):
            CanonicalComplex.from_json(tampered(kind, "bent line R^2"))


def test_a_shrunken_region_with_consistent_representations_is_refused():
    """Both representations of one region changed together: only the network can tell."""
    K, data = complex_and_export("bent line box")
    cell = next(c for c in data["cells"] if c["dim"] == 2 and len(c["vertices"]) == 4)
    shrunk = canonical_complex(bent_line_network(), Box(-1, 1))  # the same region cut down by a smaller box
    small = next(c for c in shrunk.to_json(version=1)["cells"] if c["signs"] == cell["signs"] and c["dim"] == 2)
    for key in ("vertices", "ieqs", "relative_interior_point"):
        cell[key] = small[key]
    with pytest.raises(ComplexFormatError, match=f"cell {cell['id']}: "):
        CanonicalComplex.from_json(data)
    assert CanonicalComplex.from_json(data, trusted=True) != K


def test_trusted_still_checks_the_schema_and_the_bookkeeping():
    for kind in ("number 1.5.3", "missing key", "f-vector edited", "ids permuted"):
        with pytest.raises(ComplexFormatError):
            CanonicalComplex.from_json(tampered(kind, "bent line R^2"), trusted=True)


def test_file_limits_apply(tmp_path):
    K, _ = complex_and_export("bent line R^2")
    path = tmp_path / "K.json"
    K.write_json(path)
    with pytest.raises(LimitExceededError, match="max_file_bytes"):
        CanonicalComplex.from_json(path, limits=Limits(max_file_bytes=100))
    with pytest.raises(ComplexFormatError, match="no such file"):
        CanonicalComplex.from_json(tmp_path / "missing.json")


# -----------------------------------------------------------------------------------------
# Random tampering
# -----------------------------------------------------------------------------------------
CELL_FIELDS = ["dim", "signs", "domain_signs", "relative_interior_point", "vertices", "rays", "lines", "ieqs", "eqns"]
DELTAS = [F(1), F(-1), F(1, 2), F(-3, 7), F(5)]


@st.composite
def random_tampering(draw):
    name = draw(st.sampled_from(ALL))
    data = complex_and_export(name)[1]
    cell = draw(st.sampled_from(data["cells"]))
    field = draw(st.sampled_from(CELL_FIELDS + (["affine_map"] if "affine_map" in cell else [])))
    value = cell[field]
    if field == "dim":
        cell["dim"] = value + draw(st.sampled_from([-1, 1]))
    elif field in ("signs", "domain_signs"):
        if value:
            k = draw(st.integers(0, len(value) - 1))
            alphabet = "+-0" if field == "signs" else "+0"
            cell[field] = value[:k] + draw(st.sampled_from(alphabet)) + value[k + 1 :]
    elif field == "relative_interior_point":
        k = draw(st.integers(0, len(value) - 1))
        value[k] = shifted(value[k], draw(st.sampled_from(DELTAS)))
    elif field == "affine_map":
        b = value["b"]
        b[0] = shifted(b[0], draw(st.sampled_from(DELTAS)))
    elif value:  # a list of vectors or rows
        action = draw(st.sampled_from(["change", "drop", "repeat"]))
        i = draw(st.integers(0, len(value) - 1))
        if action == "drop":
            value.pop(i)
        elif action == "repeat":
            value.insert(i, list(value[i]))
        else:
            k = draw(st.integers(0, len(value[i]) - 1))
            exact = field == "vertices"
            delta = draw(st.sampled_from(DELTAS if exact else [F(1), F(-1), F(2)]))
            value[i][k] = shifted(value[i][k], delta)
    return name, data


@settings(max_examples=60, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_tampering())
def test_random_tampering_is_refused_or_changes_nothing(case):
    name, data = case
    K, original = complex_and_export(name)
    try:
        K2 = CanonicalComplex.from_json(data)
    except ComplexFormatError:
        return
    # accepted: then it is the same complex (a no-op, or another point of the same cell)
    assert K2 == K
    assert {k: v for k, v in data.items() if k != "cells"} == {k: v for k, v in original.items() if k != "cells"}


# -----------------------------------------------------------------------------------------
# The schemas ship inside the package and resolve offline
# -----------------------------------------------------------------------------------------
def _refs(node):
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for v in node.values():
            yield from _refs(v)
    elif isinstance(node, list):
        for v in node:
            yield from _refs(v)


def test_schemas_have_ids_and_every_reference_resolves_from_the_package():
    schemas = {name: schema(name) for name in SCHEMA_NAMES}
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    cross = 0
    for name, s in schemas.items():
        assert s["$id"] == f"https://polyrelu.invalid/schema/{name}.schema.json"
        jsonschema.Draft202012Validator.check_schema(s)
        resolver = registry.resolver(base_uri=s["$id"])
        for ref in _refs(s):
            assert resolver.lookup(ref).contents is not None  # raises Unresolvable otherwise
            cross += not ref.startswith("#")
    assert cross >= 3  # analysis refers to dependency_graph and to complex's network, network to complex's network


def test_schema_returns_a_fresh_copy_and_refuses_unknown_names():
    s = schema("complex")
    s["properties"]["format"]["const"] = "something else"
    assert schema("complex")["properties"]["format"]["const"] == "polyrelu.complex"
    with pytest.raises(UsageError, match="schema: name must be 'analysis' or 'builtins' or .* or 'survey', not 'graph'"):
        schema("graph")
    with pytest.raises(UsageError):
        validate({}, "complex.schema.json")


def test_validate_raises_polyrelus_error_with_the_json_path():
    _, data = complex_and_export("bent line R^2")
    validate(data, "complex")
    bad = copy.deepcopy(data)
    bad["cells"][3]["eqns"][0][1] = 1
    with pytest.raises(ComplexFormatError, match=r"K\.json: at \$\.cells\[3\]\.eqns\[0\]\[1\]: 1 is not of type 'string'"):
        validate(bad, "complex", source="K.json")
    with pytest.raises(GraphFormatError, match=r"at \$: 'vertices' is a required property"):
        validate({"format": "polyrelu.dependency_graph", "version": 1, "kind": "breakpoint", "input_dim": 2,
                  "edges": []}, "dependency_graph")
    with pytest.raises(AnalysisFormatError, match=r"analysis JSON: at \$: '\w+' is a required property"):
        validate({"format": "polyrelu.analysis"}, "analysis")


def test_inlined_validator_agrees_with_the_schema_as_shipped():
    """validator() inlines local references for speed; it must accept and refuse exactly the same documents."""
    schemas = {name: schema(name) for name in SCHEMA_NAMES}
    registry = Registry().with_resources((s["$id"], Resource.from_contents(s)) for s in schemas.values())
    shipped = jsonschema.Draft202012Validator(schemas["complex"], registry=registry)
    documents = [complex_and_export(name)[1] for name in ALL]
    kinds = ("number 1.5.3", "missing key", "float instead of an exact string")
    documents += [tampered(kind, "bent line R^2") for kind in kinds]
    broken = copy.deepcopy(documents[0])
    broken["cells"][0]["affine_map"] = {"A": [["1", "0"]]}
    documents.append(broken)
    for document in documents:
        assert validator("complex").is_valid(document) == shipped.is_valid(document)
        mine = sorted(e.json_path for e in validator("complex").iter_errors(document))
        assert mine == sorted(e.json_path for e in shipped.iter_errors(document))
    assert sum(not shipped.is_valid(d) for d in documents) == 4


def test_schemas_are_package_data_and_jsonschema_a_dependency():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert project["tool"]["setuptools"]["package-data"]["polyrelu.schemas"] == ["*.schema.json"]
    assert any(d.replace(" ", "").startswith("jsonschema>=4.18") for d in project["project"]["dependencies"])
    shipped = sorted(p.name for p in (ROOT / "polyrelu" / "schemas").glob("*.schema.json"))
    assert shipped == sorted(f"{name}.schema.json" for name in SCHEMA_NAMES)
    assert not (ROOT / "docs" / "schema").exists()


# -----------------------------------------------------------------------------------------
# The streamed export: the document of before, byte for byte
# -----------------------------------------------------------------------------------------
# Exports written by polyrelu before write_json was streamed (tests/data/complex_exports, the complex's and
# the weighted complex's document of each): the networks, on R^n0 or a box, with rays, lines, boxes,
# integer and float weights, a dead neuron.
STORED = ROOT / "tests" / "data" / "complex_exports"
STORED_NETWORKS = {
    "bent_line_plane": lambda: (bent_line_network(), None),
    "bent_line_box": lambda: (bent_line_network(), Box(-2, 2)),
    "identity_3d": lambda: (NETWORKS["3-D R^3"][0], None),
    "two_neurons_3d_box": lambda: NETWORKS["3-D box"],
    "lines_3d": lambda: NETWORKS["lines R^3"],
    "integer_4_2_3_1_seed1": lambda: (ReLUNetwork.random((4, 2, 3, 1), seed=1), None),
    "integer_2_4_4_1_seed0_box": lambda: (ReLUNetwork.random((2, 4, 4, 1), seed=0), Box(-2, 3)),
    "integer_3_3_3_1_seed0_box": lambda: (ReLUNetwork.random((3, 3, 3, 1), seed=0), Box(-1, 2)),
    "integer_4_3_3_1_seed1": lambda: (ReLUNetwork.random((4, 3, 3, 1), seed=1), None),
    "integer_2_5_5_1_seed0": lambda: (ReLUNetwork.random((2, 5, 5, 1), seed=0), None),
    "free_weight": lambda: (free_weight_network(), None),
    "gaussian_2_4_1": lambda: (seeded_gaussian_network((2, 4, 1)), None),
    "gaussian_2_4_4_1_dead": lambda: (with_dead_neuron(seeded_gaussian_network((2, 4, 4, 1)), 1), None),
}


def polyhedra_export(K):
    """The document as the writer built it before it was streamed: from every cell's polyhedron, as a dict.

    Kept as the reference the streamed writer is checked against: it asks each cell's polyhedron for its
    representations (for a lattice-built cell, through its own code: facets reduced with Fractions, hulls
    solved by flint, generators as Fractions), where the writer works in integers and text.
    """

    def q(v):
        return str(fraction_to_json(v))

    def rows(rs):
        return [[q(v) for v in r] for r in rs]

    cells = []
    for c in K:
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
        if c.dimension == K.network.architecture.input_dim:
            A, b = K.affine_map(c)
            entry["affine_map"] = {"A": rows(A), "b": [q(v) for v in b]}
        cells.append(entry)
    return {
        "format": "polyrelu.complex",
        "version": 1,
        "network": network_to_dict(K.network),
        "ambient_dim": K.network.architecture.input_dim,
        "domain": None if K.domain is None else {"ieqs": rows(K.domain.minimal_h_representation()[0])},
        "neurons": [list(n) for n in K.network.architecture.hidden_neurons()],
        "cells": cells,
        "covering": [list(p) for p in K.lattice.covering_relation()],
        "f_vector": list(K.f_vector()),
        "euler_characteristic": K.euler_characteristic(),
    }


def dumped(document):
    """The text write_json writes for a document (json.dump's, and a newline)."""
    return json.dumps(document, allow_nan=False) + "\n"


@pytest.mark.parametrize("name", sorted(STORED_NETWORKS))
def test_streamed_exports_equal_the_exports_of_before_byte_for_byte(name, tmp_path):
    net, domain = STORED_NETWORKS[name]()
    K = canonical_complex(net, domain)
    W = tropical_weights(K)
    K.write_json(tmp_path / "complex.json", version=1)
    W.write_json(tmp_path / "weighted.json", version=1)
    written = {}
    for kind in ("complex", "weighted"):
        with gzip.open(STORED / f"{name}.{kind}.json.gz", "rt", encoding="utf-8") as fh:
            before = fh.read()
        written[kind] = (tmp_path / f"{kind}.json").read_text(encoding="utf-8")
        assert written[kind] == before, f"{name}: the {kind} export differs from the one before streaming"
    validate(json.loads(written["weighted"]), "complex")
    assert K.to_json(version=1) == json.loads(written["complex"])
    assert dumped(W.to_json(version=1)) == written["weighted"]


@pytest.mark.parametrize("chunk", [0, 3000, 1 << 20])
def test_the_export_is_the_same_however_it_is_cut_into_writes(chunk, tmp_path, monkeypatch):
    import polyrelu.complex._json_v1

    monkeypatch.setattr(polyrelu.complex._json_v1, "_CHUNK", chunk)  # a write per cell, per few cells, all at once
    net, domain = STORED_NETWORKS["integer_2_5_5_1_seed0"]()
    canonical_complex(net, domain).write_json(tmp_path / "K.json", version=1)
    with gzip.open(STORED / "integer_2_5_5_1_seed0.complex.json.gz", "rt", encoding="utf-8") as fh:
        assert (tmp_path / "K.json").read_text(encoding="utf-8") == fh.read()


@pytest.mark.parametrize("method", ["lattice", "lp"])
@pytest.mark.parametrize("name", ALL)
def test_streamed_export_equals_the_export_from_the_polyhedra(name, method, tmp_path):
    net, domain = NETWORKS[name]
    K = canonical_complex(net, domain, method=method)
    K.write_json(tmp_path / "K.json", version=1)
    assert (tmp_path / "K.json").read_text(encoding="utf-8") == dumped(polyhedra_export(K))


@st.composite
def small_networks(draw):
    n0 = draw(st.integers(2, 3))
    widths = draw(st.lists(st.integers(1, 3), min_size=1, max_size=2))
    net = ReLUNetwork.random((n0, *widths, 1), seed=draw(st.integers(0, 10_000)), kind=draw(st.sampled_from(["integer", "gaussian"])))
    return net, draw(st.sampled_from([None, Box(-1, 2)]))


@settings(max_examples=25, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_networks())
def test_streamed_export_equals_the_export_from_the_polyhedra_on_random_networks(case):
    net, domain = case
    K = canonical_complex(net, domain)
    W = tropical_weights(K)
    reference = polyhedra_export(K)
    weighted = dict(reference, **{k: v for k, v in W.to_json(version=1).items() if k not in reference})
    with tempfile.TemporaryDirectory() as tmp:
        K.write_json(Path(tmp) / "K.json", version=1)
        W.write_json(Path(tmp) / "W.json", version=1)
        assert (Path(tmp) / "K.json").read_text(encoding="utf-8") == dumped(reference)
        assert (Path(tmp) / "W.json").read_text(encoding="utf-8") == dumped(weighted)
