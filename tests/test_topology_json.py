"""Decision complexes and homology as JSON: exact round trips, hostile documents, and ``polyrelu decision``.

The round trip must give back the same complex cell by cell (signs, labels,
class regions, boundary cells) and the same Betti numbers; a document that
was tampered with must be refused with a polyrelu error naming what is
wrong, or (for a change that does not alter the complex, such as another
relative interior point) read as the same decision complex.
"""

import copy
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyrelu import (
    Box,
    DecisionComplex,
    ReLUNetwork,
    Subcomplex,
    decision_complex,
    homology_document,
    level_sets,
    save_network,
    sublevel_set,
    validate,
)
from polyrelu.cli import main
from polyrelu.errors import (
    ComplexFormatError,
    LimitExceededError,
    PolyReluError,
    UsageError,
)
from polyrelu.io import Limits

ABS = [[1, 0], [-1, 0], [0, 1], [0, -1]]
# two classes: f_1 = 1 - |x| - |y| wins inside the diamond |x| + |y| < 1
DIAMOND_CLASSIFIER = ReLUNetwork([ABS, [[0, 0, 0, 0], [-1, -1, -1, -1]]], [[0] * 4, [0, 1]])
SECTORS = ReLUNetwork([[[1, 0], [0, 1], [0, 0]]], [[0, 0, 0]])  # f = (x, y, 0): three sectors
CASES = {
    "diamond on a box": (DIAMOND_CLASSIFIER, Box(-2, 2)),
    "diamond on the plane": (DIAMOND_CLASSIFIER, None),
    "sectors on the plane": (SECTORS, None),
    "random 2-4-3 on a box": (ReLUNetwork.random((2, 4, 3), seed=3), Box(-2, 2)),
    "random 1-3-3 on the line": (ReLUNetwork.random((1, 3, 3), seed=1), None),
}


def subcomplexes(D):
    return [D.class_region(c) for c in range(D.classes)] + [D.boundary()] + [
        D.boundary(a, b) for a, b in D.pairs
    ]


@pytest.mark.parametrize("name", CASES)
def test_a_decision_complex_read_back_is_the_same_cell_by_cell(name, tmp_path):
    D = decision_complex(*CASES[name])
    path = tmp_path / "D.json"
    D.write_json(path)
    for data in (D.to_json(), json.dumps(D.to_json()), path):
        E = DecisionComplex.from_json(data)
        assert E == D and E.network == D.network and E.pairs == D.pairs and E.classes == D.classes
        assert len(E.complex) == len(D.complex)
        for c, d in zip(E.complex, D.complex):
            assert (c.signs, c.domain_signs, c.dimension) == (d.signs, d.domain_signs, d.dimension)
            assert c.polyhedron == d.polyhedron
            assert E.label(c.id) == D.label(d.id)
        for X, Y in zip(subcomplexes(E), subcomplexes(D)):
            assert X.cell_ids == Y.cell_ids
            assert X.homology() == Y.homology() and X.betti_numbers(2) == Y.betti_numbers(2)
    assert DecisionComplex.from_json(path, trusted=True) == D
    # exact: every number a string, and the strings are the complex's own
    assert json.loads(path.read_text())["complex"] == D.complex.to_json()


def test_equality_tells_decision_complexes_apart():
    D = decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2))
    assert D == decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2))
    assert D != decision_complex(DIAMOND_CLASSIFIER, Box(-3, 3))
    assert D != decision_complex(ReLUNetwork(DIAMOND_CLASSIFIER.weights, [[0] * 4, [0, 2]]), Box(-2, 2))
    with pytest.raises(TypeError):
        hash(D)


def _set(path, value):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        node[path[-1]] = value
    return change


def _delete(path):
    def change(data):
        node = data
        for key in path[:-1]:
            node = node[key]
        del node[path[-1]]
    return change


HOSTILE = {
    "a class out of range": (_set(("labels", 0), [0, 7]), ComplexFormatError, r"labels\[0\]: is \[0, 7\], but the classes maximal on cell 0 are \[0\]"),
    "a negative class": (_set(("labels", 2), [-1]), ComplexFormatError, r"at \$\.labels\[2\]\[0\]"),
    "a label too few": (lambda d: d["labels"].pop(), ComplexFormatError, r"labels: has 40 entries, but the complex has 41 cells"),
    "a huge number of classes": (_set(("classes",), 10**80), ComplexFormatError, r"classes: is an integer of 266 bits, but the network has 2 outputs"),
    "classes as text": (_set(("classes",), "2"), ComplexFormatError, r"at \$\.classes: '2' is not of type 'integer'"),
    "pairs reversed": (_set(("pairs", 0), [1, 0]), ComplexFormatError, r"at \$\.pairs\[0\]\[1\]: 0 is less than the minimum of 1"),
    "a pair twice": (_set(("pairs",), [[0, 1], [0, 1]]), ComplexFormatError, r"pairs: are not the 1 pairs \[i, j\] with i < j < 2"),
    "no pairs key": (_delete(("pairs",)), ComplexFormatError, r"'pairs' is a required property"),
    "an unknown key": (_set(("colour",), "red"), ComplexFormatError, r"Additional properties are not allowed \('colour'"),
    "another format": (_set(("format",), "polyrelu.decision"), ComplexFormatError, r"at \$\.format: 'polyrelu.decision_complex' was expected"),
    "a vertex index out of range": (
        _set(("complex", "cells", "vertices", 3), [10**6]), ComplexFormatError, r"complex: cell 3: its vertices index 1000000 is out of range"),
    "a covering pair naming a missing cell": (
        lambda d: d["complex"]["covering"].append([0, 10**6]), ComplexFormatError, r"complex: covering"),
    "a cell's signs changed": (_set(("complex", "cells", "signs", 0), "+++++"), ComplexFormatError, r"complex: "),
    "the classifier changed": (
        _set(("network", "layers", 1, "biases", 1), "2"), ComplexFormatError, r"complex\.network: is not the tie network of network"),
    "a number of 30,000 digits": (
        _set(("complex", "points", 0, 0), "1" + "0" * 30_000), LimitExceededError, r"digits"),
    "a float in the network": (_set(("network", "layers", 0, "biases", 0), 0.5), ComplexFormatError, r"complex\.network: is not the tie network"),
}


@pytest.fixture(scope="module")
def diamond():
    D = decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2))
    return D, D.to_json()


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_documents_are_refused_by_name(name, diamond):
    D, data = diamond
    change, error, message = HOSTILE[name]
    bad = copy.deepcopy(data)
    change(bad)
    with pytest.raises(error, match=message):
        DecisionComplex.from_json(bad)
    assert DecisionComplex.from_json(data) == D  # the original is untouched


def test_sizes_are_checked_before_reading(tmp_path, diamond):
    _, data = diamond
    path = tmp_path / "D.json"
    path.write_text(json.dumps(data))
    with pytest.raises(LimitExceededError, match="over the limit"):
        DecisionComplex.from_json(path, limits=Limits(max_file_bytes=1000))
    with pytest.raises(LimitExceededError, match="nested 200 levels deep"):
        DecisionComplex.from_json("[" * 200 + "]" * 200)
    with pytest.raises(LimitExceededError, match=r"network.*over the limit"):
        DecisionComplex.from_json(data, limits=Limits(max_parameters=5))
    with pytest.raises(ComplexFormatError, match="invalid JSON"):
        DecisionComplex.from_json('{"format": ')
    with pytest.raises(ComplexFormatError, match="data: no such file"):
        DecisionComplex.from_json(tmp_path / "missing.json")


HOSTILE_VALUES = st.sampled_from([None, -1, 0, 3, 10**40, 1.5, "x", "1/0", "-0", [], {}, [[0]], "+"])


def _leaves(node, path=()):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _leaves(v, (*path, k))
    elif isinstance(node, list) and node:
        for i, v in enumerate(node):
            yield from _leaves(v, (*path, i))
    else:
        yield path


@pytest.fixture(scope="module")
def sectors():
    D = decision_complex(SECTORS)
    data = D.to_json()
    return D, data, list(_leaves(data))


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_any_mutated_document_is_refused_or_is_the_same_decision_complex(sectors, data):
    D, document, leaves = sectors
    bad = copy.deepcopy(document)
    for _ in range(data.draw(st.integers(1, 2))):
        path = data.draw(st.sampled_from(leaves))
        change = _set(path, data.draw(HOSTILE_VALUES)) if data.draw(st.booleans()) else _delete(path)
        try:
            change(bad)
        except (KeyError, IndexError, TypeError):  # the first change removed or replaced what the second reaches
            pass
    try:
        E = DecisionComplex.from_json(bad)
    except PolyReluError as exc:
        assert str(exc) and len(str(exc)) < 2000  # one readable message, not a dump of the document
    else:
        assert E == D  # a harmless change, such as a relative interior point moved within its cell


# -- homology documents ---------------------------------------------------------------------------------
def test_the_homology_document_holds_each_subcomplexs_exact_homology():
    D = decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2))
    parts = {"class 0": D.class_region(0), "class 1": D.class_region(1), "boundary": D.boundary(), "all": D.complex}
    document = homology_document(parts, primes=(2, 3))
    assert validate(document) == "homology"
    assert [e["name"] for e in document["subcomplexes"]] == list(parts)
    assert document["ambient_dim"] == 2
    for entry, X in zip(document["subcomplexes"], parts.values()):
        X = X if isinstance(X, Subcomplex) else Subcomplex(X, range(len(X)))
        H = X.homology()
        assert entry["betti"] == list(H.betti) and entry["torsion"] == [list(t) for t in H.torsion]
        assert entry["betti_gf"] == {"2": list(X.betti_numbers(2)), "3": list(X.betti_numbers(3))}
        assert entry["f_vector"] == list(X.f_vector()) and entry["cells"] == len(X)
    # the annulus (class 0 on the box) and the circle (the boundary)
    assert document["subcomplexes"][0]["betti"] == [1, 1, 0] and document["subcomplexes"][2]["betti"] == [1, 1, 0]


def test_homology_document_refusals():
    D = decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2))
    line = decision_complex(ReLUNetwork.random((1, 2, 2), seed=0))
    with pytest.raises(UsageError, match="empty"):
        homology_document({})
    with pytest.raises(UsageError, match="dimensions \\[1, 2\\]"):
        homology_document({"plane": D.boundary(), "line": line.boundary()})
    with pytest.raises(UsageError, match="primes: 4 is not prime"):
        homology_document({"b": D.boundary()}, primes=[4])
    with pytest.raises(UsageError, match="name"):
        homology_document({"": D.boundary()})


def test_level_sets_share_one_complex_and_agree_with_sublevel_set():
    f = ReLUNetwork([ABS, [[1, 1, 1, 1]]], [[0] * 4, [0]])  # |x| + |y|
    L = level_sets(f, 1, Box(-2, 2))
    assert L.level.complex is L.sublevel.complex is L.superlevel.complex is L.complex
    assert (L.sublevel & L.superlevel) == L.level and len(L.sublevel | L.superlevel) == len(L.complex)
    assert L.sublevel.cell_ids == sublevel_set(f, 1, Box(-2, 2)).cell_ids  # the same complex, built the same way
    assert [X.betti_numbers() for X in L[:3]] == [(1, 1, 0), (1, 0, 0), (1, 1, 0)]


# -- polyrelu decision ---------------------------------------------------------------------------------
def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def classifier_file(tmp_path):
    path = tmp_path / "diamond.json"
    save_network(DIAMOND_CLASSIFIER, path)
    return path


def test_cli_decision_prints_the_regions_the_boundary_and_their_homology(tmp_path, capsys, classifier_file):
    out_file, homology_file = tmp_path / "D.json", tmp_path / "H.json"
    code, out, err = run(capsys, "decision", classifier_file, "--domain", "box:-2,2", "-o", out_file, "--homology", homology_file)
    assert code == 0 and err == ""
    lines = out.splitlines()
    # class 0: the box minus the open diamond, an annulus (4 regions); class 1: the diamond, a disk (4 regions)
    assert any(line.split()[:3] == ["0", "4", str(len(decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2)).class_region(0)))]
               for line in lines)
    assert any(line.split()[:1] == ["1"] and "(1, 0, 0)" in line for line in lines)
    assert any(line.split()[:3] == ["0|1", "8", "(4,"] for line in lines)  # the diamond: 4 vertices, 4 edges
    assert any(line.split() == ["all", "8", "(4,", "4,", "0)", "(1,", "1,", "0)", "-", "(1,", "1,", "0)"] for line in lines)
    D = DecisionComplex.from_json(out_file)
    assert D == decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2))
    document = json.loads(homology_file.read_text())
    assert validate(document) == "homology"
    assert {e["name"]: e["betti"] for e in document["subcomplexes"]} == {
        "class 0": [1, 1, 0], "class 1": [1, 0, 0], "boundary": [1, 1, 0], "boundary 0|1": [1, 1, 0]}


def test_cli_decision_on_a_slice_and_on_level_sets(tmp_path, capsys):
    net = ReLUNetwork.random((4, 5, 3), seed=2)
    net_file, points = tmp_path / "net.json", tmp_path / "points.csv"
    save_network(net, net_file)
    points.write_text("0,0,0,0\n1,0,1,0\n0,2,0,-1\n")
    code, out, err = run(capsys, "decision", net_file, "--through", points, "--margin", "1", "-o", tmp_path / "D.json")
    assert code == 0 and err == "" and "a 2-dimensional slice" in out and "[-1, 2]^2" in out
    D = DecisionComplex.from_json(tmp_path / "D.json")
    assert D.complex.domain == Box(-1, 2).polyhedron(2) and D.classes == 3
    one = tmp_path / "one.json"
    save_network(ReLUNetwork([ABS, [[1, 1, 1, 1]]], [[0] * 4, [0]]), one)  # |x| + |y|
    code, out, err = run(capsys, "decision", one, "--level", "1", "--homology", tmp_path / "L.json", "-o", tmp_path / "K.json")
    assert code == 0 and err == ""
    assert any(line.split()[:4] == ["level", "set", "f", "="] and "(1, 1, 0)" in line for line in out.splitlines())
    document = json.loads((tmp_path / "L.json").read_text())
    assert validate(document) == "homology"
    assert [e["betti"] for e in document["subcomplexes"]] == [[1, 1, 0], [1, 0, 0], [1, 1, 0]]
    assert validate(json.loads((tmp_path / "K.json").read_text())) == "complex"


@pytest.mark.parametrize("version", [1, 2])
def test_cli_decision_writes_the_complex_format_asked_for_and_reads_both(tmp_path, capsys, classifier_file, version):
    out_file = tmp_path / "D.json"
    code, _, err = run(capsys, "decision", classifier_file, "--domain", "box:-2,2", "-o", out_file,
                       "--format-version", version)
    assert code == 0 and err == ""
    document = json.loads(out_file.read_text())
    assert document["complex"]["version"] == version and validate(document) == "decision_complex"
    assert DecisionComplex.from_json(out_file) == decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2))
    one = tmp_path / "one.json"
    save_network(ReLUNetwork([ABS, [[1, 1, 1, 1]]], [[0] * 4, [0]]), one)  # |x| + |y|, its complex cut by f = 1
    code, _, err = run(capsys, "decision", one, "--level", "1", "-o", tmp_path / "K.json", "--format-version", version)
    assert code == 0 and err == "" and json.loads((tmp_path / "K.json").read_text())["version"] == version
    with pytest.raises(UsageError, match="complex_version"):
        decision_complex(DIAMOND_CLASSIFIER, Box(-2, 2)).to_json(complex_version=3)


@pytest.mark.parametrize("argv, message", [
    (["--level", "1/2"], "--level is for a network with one output; .* leave out --level"),
    (["--margin", "1"], "--margin sets the box of a slice: add --through FILE"),
    (["--level", "abc"], "--level 'abc'.*the level is a number such as 0"),
    (["--domain", "box:-1,1", "--through", "p.csv"], "argument --through: not allowed with argument --domain"),
    (["--homology", "{tmp}/h.txt"], "the suffix '.txt' is not one of .json"),
    (["-o", "{tmp}/same.json", "--homology", "{tmp}/same.json"], "-o and --homology both name"),
    (["--frobnicate"], "unrecognized arguments: --frobnicate .see polyrelu --help"),
])
def test_cli_decision_refuses_wrong_arguments_with_exit_status_2(tmp_path, capsys, classifier_file, argv, message):
    argv = [a.format(tmp=tmp_path) for a in argv]
    code, out, err = run(capsys, "decision", classifier_file, *argv)
    assert code == 2 and out == ""
    assert err.startswith("polyrelu: error: ") and len(err.splitlines()) == 1
    assert pytest.importorskip("re").search(message, err), err
    assert not list(tmp_path.glob("*.json*"))[1:]  # nothing written beside the network file


def test_cli_decision_one_output_without_level_says_what_to_do(capsys):
    code, out, err = run(capsys, "decision", "builtin:bent-line")
    assert code == 2 and "has one output, so there are no classes to decide: add --level C" in err


def test_cli_decision_help(capsys):
    code, out, _ = run(capsys, "decision", "--help")
    assert code == 0
    for option in ("--domain", "--through", "--margin", "--level", "--output", "--homology", "--max-cells", "--exact", "--quiet"):
        assert option in out
    assert "decision" in run(capsys, "--help")[1]
