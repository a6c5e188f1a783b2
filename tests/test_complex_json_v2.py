"""The compact complex JSON document (``polyrelu.complex`` version 2): what it stores, what the reader rebuilds.

Version 2 leaves out what the network and the sign vectors determine (interior points, minimal
H-representations, affine maps); the reader rebuilds them, and they must be exactly version 1's. Each test
here compares with version 1 of the same complex, with the complex itself, or with cdd.gmp's double
description of the sign classes; hostile version-2 files must be refused naming the cell and the problem.
"""

import copy
import json
import math
import re
import tempfile
from fractions import Fraction as F
from pathlib import Path

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from reference import closure_rows, dd_generators
from referencing import Registry, Resource
from test_complex_json import NETWORKS, STORED_NETWORKS, small_networks

from polyrelu import (
    CanonicalComplex,
    ComplexFormatError,
    InvalidArgumentError,
    ReLUNetwork,
    UsageError,
    canonical_complex,
)
from polyrelu.cli import main
from polyrelu.complex_validation import read_document
from polyrelu.io import save_network
from polyrelu.schemas import SCHEMA_NAMES, schema, validate, validator
from polyrelu.tropical import tropical_weights

CASES = {**{f"NETWORKS {k}": (lambda v=v: v) for k, v in NETWORKS.items()}, **STORED_NETWORKS}
NAMES = sorted(CASES)
_CACHE = {}


def complex_and_documents(name):
    """The complex (built once), and fresh copies of its version-2 and version-1 documents."""
    if name not in _CACHE:
        net, domain = CASES[name]()
        K = canonical_complex(net, domain)
        _CACHE[name] = (K, json.dumps(K.to_json()), json.dumps(K.to_json(version=1)))
    K, v2, v1 = _CACHE[name]
    return K, json.loads(v2), json.loads(v1)


# -----------------------------------------------------------------------------------------
# Round trips, and the rebuilt version 1
# -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_version_2_round_trips_and_equals_the_complex_read_from_version_1(name, tmp_path):
    K, v2, v1 = complex_and_documents(name)
    assert v2["version"] == 2 and v1["version"] == 1
    path = tmp_path / "K.json"
    K.write_json(path)
    for source in (v2, json.dumps(v2), path):
        K2 = CanonicalComplex.from_json(source)
        assert K2 == K and K == K2
        assert K2 == CanonicalComplex.from_json(v1)
        assert K2.to_json() == v2
    assert CanonicalComplex.from_json(v2, trusted=True) == K


@pytest.mark.parametrize("name", NAMES)
def test_the_reader_rebuilds_exactly_the_version_1_cells(name):
    """Interior points, ieqs, eqns, generators and affine maps: the expansion of version 2 is version 1."""
    K, v2, v1 = complex_and_documents(name)
    expanded, stored = read_document(v2), read_document(v1)
    assert len(expanded.cells) == len(stored.cells) == len(K)
    for a, b in zip(expanded.cells, stored.cells, strict=True):
        assert a == b, f"cell {a.id}"
    assert expanded.lattice.covering_relation() == stored.lattice.covering_relation()
    # and the complex read from version 2 writes version 1 byte for byte as the original
    assert CanonicalComplex.from_json(v2).to_json(version=1) == v1


@pytest.mark.parametrize("method", ["lattice", "lp"])
@pytest.mark.parametrize("name", sorted(NETWORKS))
def test_the_bulk_writer_and_the_writer_from_the_polyhedra_agree(name, method):
    """A lattice-built complex is written from the construction's arrays; one read from a file, or built by LP,
    from its cells' polyhedra: the same document."""
    net, domain = NETWORKS[name]
    K, v2, v1 = complex_and_documents(f"NETWORKS {name}")
    assert CanonicalComplex.from_json(v1).to_json() == v2
    assert canonical_complex(net, domain, method=method).to_json() == v2


def _primitive(vector):
    scale = math.lcm(*(F(v).denominator for v in vector))
    ints = [int(F(v) * scale) for v in vector]
    g = math.gcd(*ints)
    return tuple(v // g for v in ints)


@pytest.mark.parametrize("name", NAMES)
def test_points_directions_and_indices_are_the_cells_generators_by_cdd(name):
    """Every cell's vertices and rays, by index, are what cdd.gmp finds for the closure of its sign class."""
    K, v2, _ = complex_and_documents(name)
    net = K.network
    n0 = net.architecture.input_dim
    points = [tuple(F(x) for x in p) for p in v2["points"]]
    directions = [tuple(int(x) for x in r) for r in v2["directions"]]
    assert len(set(points)) == len(points) and directions == sorted(set(directions))
    domain_rows = [tuple(int(x) for x in r) for r in v2["domain"]["ieqs"]] if v2["domain"] else []
    cells = v2["cells"]
    lowest = len(v2["lines"])
    assert cells["dim"] == [c.dimension for c in K] and cells["signs"] == [c.sign_string for c in K]
    assert cells["dim"][: len(points)] == [lowest] * len(points) and lowest not in cells["dim"][len(points) :]
    for i, c in enumerate(K):
        signs = [{"+": 1, "-": -1, "0": 0}[s] for s in cells["signs"][i]]
        domain_signs = [1 if s == "+" else 0 for s in cells["domain_signs"][i]]
        ieqs, eqns = closure_rows(net.weights, net.biases, signs, domain_signs, domain_rows)
        dd_points, dd_rays, dd_lines = dd_generators(ieqs, eqns, n0)
        assert len(dd_lines) == lowest
        if lowest == 0:  # with lines, cdd's points are of another section than the stored (orthogonal) one
            assert sorted(points[j] for j in cells["vertices"][i]) == sorted(dd_points), f"cell {i}"
            assert sorted(directions[j] for j in cells["rays"][i]) == sorted(map(_primitive, dd_rays)), f"cell {i}"
        else:
            assert (len(cells["vertices"][i]), len(cells["rays"][i])) == (len(dd_points), len(dd_rays))
        assert i >= len(points) or cells["vertices"][i] == [i]


@pytest.mark.parametrize("name", ["NETWORKS lines R^3", "integer_2_5_5_1_seed0", "bent_line_box"])
def test_the_streamed_text_is_json_dump_of_to_json_however_it_is_cut(name, tmp_path, monkeypatch):
    import polyrelu.complex._json_v2

    K, v2, _ = complex_and_documents(name)
    W = tropical_weights(K)
    for cells_per_chunk in (1, 3, 1 << 15):  # a json.dumps per cell, per few cells, all at once
        monkeypatch.setattr(polyrelu.complex._json_v2, "_CELLS_PER_CHUNK", cells_per_chunk)
        K.write_json(tmp_path / "K.json")
        assert (tmp_path / "K.json").read_text(encoding="utf-8") == json.dumps(v2) + "\n"
        W.write_json(tmp_path / "W.json")
        assert (tmp_path / "W.json").read_text(encoding="utf-8") == json.dumps(W.to_json()) + "\n"
    weighted = W.to_json()
    assert {k: v for k, v in weighted.items() if k in v2} == v2
    assert {k: v for k, v in weighted.items() if k not in v2} == {
        k: v for k, v in W.to_json(version=1).items() if k not in K.to_json(version=1)
    }
    validate(weighted, "complex")


@settings(max_examples=20, deadline=None, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_networks())
def test_version_2_round_trips_on_random_networks(case):
    net, domain = case
    K = canonical_complex(net, domain)
    v2, v1 = K.to_json(), K.to_json(version=1)
    K2 = CanonicalComplex.from_json(v2)
    assert K2 == K
    assert read_document(v2).cells == read_document(v1).cells
    assert CanonicalComplex.from_json(v1).to_json() == v2
    with tempfile.TemporaryDirectory() as tmp:
        K.write_json(Path(tmp) / "K.json")
        assert (Path(tmp) / "K.json").read_text(encoding="utf-8") == json.dumps(v2) + "\n"


def test_a_complex_numbered_otherwise_is_written_and_read_back():
    """Read from a version-1 file whose cells are numbered otherwise, a complex keeps its ids: the points follow."""
    K, _, v1 = complex_and_documents("integer_3_3_3_1_seed0_box")
    order = list(range(len(v1["cells"])))
    order.reverse()  # order[new] = old: the regions first, the points last
    new_id = {old: new for new, old in enumerate(order)}
    v1["cells"] = [dict(v1["cells"][old], id=new) for new, old in enumerate(order)]
    v1["covering"] = [[new_id[i], new_id[j]] for i, j in v1["covering"]]
    renumbered = CanonicalComplex.from_json(v1)
    v2 = renumbered.to_json()
    assert v2["cells"]["dim"][0] == 3 and v2["cells"]["dim"][-1] == 0
    assert v2["cells"]["vertices"][-1] == [len(v2["points"]) - 1]  # the last cell is the last of dimension 0
    assert CanonicalComplex.from_json(v2) == K
    assert read_document(v2).cells == read_document(renumbered.to_json(version=1)).cells


def test_the_version_is_checked():
    K, _, _ = complex_and_documents("NETWORKS bent line R^2")
    with pytest.raises(UsageError, match="version must be"):
        K.to_json(version=3)
    with pytest.raises(InvalidArgumentError):
        K.write_json("K.json", version="2")
    with pytest.raises(UsageError):
        tropical_weights(K).to_json(version=0)


# -----------------------------------------------------------------------------------------
# Hostile version-2 documents
# -----------------------------------------------------------------------------------------
def _region(d):
    """The id of the first region with at least three vertices."""
    n0 = d["ambient_dim"]
    return next(i for i, (dim, v) in enumerate(zip(d["cells"]["dim"], d["cells"]["vertices"])) if dim == n0 and len(v) >= 3)


def _set(column, value, cell=None):
    def change(d):
        i = _region(d) if cell is None else cell
        d["cells"][column][i] = value(d) if callable(value) else value
        return i
    return change


def _foreign_vertex(d):
    """A point that is not a vertex of the region, in its place."""
    cells = d["cells"]
    i = next(i for i, v in enumerate(cells["vertices"]) if cells["dim"][i] == d["ambient_dim"] and len(v) < len(d["points"]))
    mine = set(cells["vertices"][i])
    other = next(j for j in range(len(d["points"])) if j not in mine)
    d["cells"]["vertices"][i] = sorted(mine - {d["cells"]["vertices"][i][0]} | {other})
    return i


def _ragged(column):
    def change(d):
        d["cells"][column].pop()
    return change


def _moved_point(d):
    x = F(d["points"][0][0]) + F(1, 3)
    d["points"][0][0] = str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def _dropped_ray(d):
    i = next(i for i, r in enumerate(d["cells"]["rays"]) if d["cells"]["dim"][i] == d["ambient_dim"] and r)
    d["cells"]["rays"][i] = d["cells"]["rays"][i][1:]
    return i


def _extra_point(d):
    d["points"].append(list(d["points"][-1]))


def _unsorted_directions(d):
    d["directions"].reverse()


# name: (tampering on bent line R^2 (returns the cell it names, if any), the message after "cell i: " or in full,
#        refused also with trusted=True)
HOSTILE = {
    "vertex index out of range": (_set("vertices", lambda d: [0, 1, len(d["points"])]), r"its vertices index \d+ is out of range: there are \d+ points", True),
    "negative vertex index": (_set("vertices", [-1, 0, 1]), r"its vertices index -1 is out of range", True),
    "huge vertex index": (_set("vertices", [0, 1, 10**30]), r"its vertices index 10{30} is out of range", True),
    "ray index out of range": (_set("rays", lambda d: [len(d["directions"])]), r"its rays index \d+ is out of range: there are \d+ directions", True),
    "unsorted vertex indices": (_set("vertices", lambda d: sorted(d["cells"]["vertices"][_region(d)], reverse=True)), r"its vertices indices are not sorted, or repeat one", True),
    "repeated vertex index": (_set("vertices", lambda d: [d["cells"]["vertices"][_region(d)][0]] * 2), r"its vertices indices are not sorted", True),
    "float index": (_set("vertices", [0.0, 1]), r"its vertices index 0\.0 is not an integer", True),
    "boolean index": (_set("vertices", [True]), r"its vertices index True is not an integer", True),
    "vertices not a list": (_set("vertices", "0"), r"its vertices must be a non-empty list of indices", True),
    "no vertex": (_set("vertices", []), r"its vertices must be a non-empty list of indices", True),
    "signs not a string": (_set("signs", 5), r"its signs must be a string of", True),
    "bad sign character": (_set("signs", "+x-"), r"its signs must be a string of", True),
    "short sign string": (_set("signs", "+"), r"has 1 signs and 0 domain signs; the network has 3 hidden neurons", True),
    "float dimension": (_set("dim", 1.5), r"has dimension 1\.5, not an integer", True),
    "dimension too large": (_set("dim", 3), r"has dimension 3; with 0 lines the cells have dimension 0 \.\. 2", True),
    "a point's cell with another vertex": (_set("vertices", [1], cell=0), r"is the cell of points\[0\]: its vertices must be \[0\]", True),
    "a point's cell with a ray": (_set("rays", [0], cell=0), r"is the cell of points\[0\]: its vertices must be \[0\] and its rays \[\]", True),
    "a point without its cell": (_extra_point, r"points: there are 4, but 3 cells of dimension 0: one point each", True),
    "a cell of dimension 0 without a point": (lambda d: d["cells"]["dim"].__setitem__(3, 0), r"points: there are 3, but 4 cells of dimension 0: one point each", True),
    "ragged signs": (_ragged("signs"), r"cells\.signs: has \d+ entries, but cells\.dim has \d+: one entry per cell", True),
    "ragged vertices": (_ragged("vertices"), r"cells\.vertices: has \d+ entries, but cells\.dim has \d+", True),
    "unsorted directions": (_unsorted_directions, r"directions: are not sorted, or repeat one", True),
    "covering pair of text": (lambda d: d["covering"].append(["0", "3"]), r"covering: \['0', '3'\] is not a pair \[i, j\] of cell ids", True),
    "version 3": (lambda d: d.__setitem__("version", 3), r"version: 3 is not a version of the complex format polyrelu reads \(it reads versions 1 and 2\)", True),
    "a vertex not of the cell's sign class": (_foreign_vertex, r"(relative interior point .* does not have the cell's signs|vertex \d+ .* is not in the closure)", False),
    "a moved point": (_moved_point, r"(does not have the cell's signs|is not in the closure|eqns|dimension)", False),
    "a dropped ray": (_dropped_ray, r"(does not have the cell's signs|is not in the closure|inequalit|dimension|generators)", False),
}


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_version_2_documents_are_refused_naming_the_cell(kind):
    K, d, _ = complex_and_documents("NETWORKS bent line R^2")
    change, pattern, bookkeeping = HOSTILE[kind]
    cell = change(d)
    prefix = f"complex JSON: cell {cell}: " if cell is not None else "complex JSON: "
    with pytest.raises(ComplexFormatError) as info:
        CanonicalComplex.from_json(d)
    message = str(info.value)
    assert message.startswith(prefix), message
    assert re.search(pattern, message), message
    if bookkeeping:  # refused before any geometry: also when trusted
        with pytest.raises(ComplexFormatError):
            CanonicalComplex.from_json(d, trusted=True)
    else:  # a geometric change: read without checks, the complex is another one
        assert CanonicalComplex.from_json(d, trusted=True) != K


def test_entries_the_schema_refuses_are_refused_by_the_reader_wherever_they_are():
    """The reader validates only entry 0 of the per-cell arrays against the schema and checks the rest itself."""
    _, d, _ = complex_and_documents("bent_line_box")
    mutations = [
        ("vertices", [-1]), ("vertices", "1"), ("vertices", []), ("vertices", [[0]]), ("rays", None), ("rays", [-2]),
        ("signs", "+-x"), ("signs", 0), ("domain_signs", "-+"), ("domain_signs", ["+"]), ("dim", -1), ("dim", "1"),
    ]
    shipped = jsonschema.Draft202012Validator(
        schema("complex"),
        registry=Registry().with_resources((schema(n)["$id"], Resource.from_contents(schema(n))) for n in SCHEMA_NAMES),
    )
    for column, value in mutations:
        for i in (0, 7, len(d["cells"]["dim"]) - 1):
            bad = copy.deepcopy(d)
            bad["cells"][column][i] = value
            assert not shipped.is_valid(bad) and not validator("complex").is_valid(bad)
            with pytest.raises(ComplexFormatError, match=rf"(cell {i}: |at \$\.cells\.{column}\[0\])"):
                CanonicalComplex.from_json(bad, trusted=True)
    bad = copy.deepcopy(d)
    bad["covering"][-1] = [0, -1]
    assert not shipped.is_valid(bad)
    with pytest.raises(ComplexFormatError, match="covering"):
        CanonicalComplex.from_json(bad, trusted=True)


def test_a_cell_naming_too_many_vertices_is_refused_for_its_rebuilt_point_in_a_short_message():
    # every point of a float-weight complex given to one region: the first check to fail is a vertex outside the
    # region's closure or the mean of them all (thousands of digits) outside its sign class; a version-2 file
    # stores no interior point, so the message says which point it means, and long numbers are abbreviated
    K = canonical_complex(ReLUNetwork.random((2, 3, 3, 1), seed=3, kind="gaussian"))
    d = K.to_json()
    messages = []
    for region in (i for i, dim in enumerate(d["cells"]["dim"]) if dim == 2):
        bad = copy.deepcopy(d)
        bad["cells"]["vertices"][region] = list(range(len(d["points"])))
        with pytest.raises(ComplexFormatError, match=rf"cell {region}: (its relative interior point|vertex \d+ )") as info:
            CanonicalComplex.from_json(bad)
        messages.append(str(info.value))
    assert all(len(m) < 600 for m in messages)
    about_the_point = [m for m in messages if "relative interior point" in m]
    assert about_the_point and all("(the mean of its vertices plus the sum of its rays)" in m for m in about_the_point)


def test_the_inlined_validator_agrees_with_the_shipped_schema_on_version_2():
    registry = Registry().with_resources((schema(n)["$id"], Resource.from_contents(schema(n))) for n in SCHEMA_NAMES)
    shipped = jsonschema.Draft202012Validator(schema("complex"), registry=registry)
    documents = [complex_and_documents(name)[1] for name in ("NETWORKS lines R^3", "bent_line_box", "free_weight")]
    broken = copy.deepcopy(documents[0])
    broken["points"][0][0] = 0.5
    broken2 = copy.deepcopy(documents[1])
    del broken2["cells"]["rays"]
    broken3 = copy.deepcopy(documents[2])
    broken3["cells"]["ieqs"] = []
    documents += [broken, broken2, broken3]
    for document in documents:
        mine = sorted(e.json_path for e in validator("complex").iter_errors(document))
        assert mine == sorted(e.json_path for e in shipped.iter_errors(document))
    assert [shipped.is_valid(d) for d in documents] == [True, True, True, False, False, False]
    with pytest.raises(ComplexFormatError, match=r"at \$\.points\[0\]\[0\]: 0\.5 is not of type 'string'"):
        validate(broken, "complex")


# -----------------------------------------------------------------------------------------
# The command line
# -----------------------------------------------------------------------------------------
def test_the_command_line_writes_version_2_and_version_1_on_request(tmp_path, capsys):
    net = STORED_NETWORKS["integer_2_5_5_1_seed0"]()[0]
    K = canonical_complex(net)
    paths = {}
    for command in ("complex", "weights"):
        for version in (None, 1, 2):
            path = tmp_path / f"{command}{version}.json"
            extra = [] if version is None else ["--format-version", str(version)]
            save_network(net, tmp_path / "net.json")
            assert main([command, str(tmp_path / "net.json"), "-o", str(path), *extra]) == 0
            paths[command, version] = path
            document = json.loads(path.read_text())
            assert document["version"] == (version or 2)
            assert CanonicalComplex.from_json(path) == K
    capsys.readouterr()
    assert paths["complex", None].read_text() == paths["complex", 2].read_text() == json.dumps(K.to_json()) + "\n"
    assert json.loads(paths["complex", 1].read_text()) == K.to_json(version=1)
    assert main(["complex", str(tmp_path / "net.json"), "--format-version", "3"]) == 2
