"""Every JSON document polyrelu writes has a schema, names its kind, and validates; corrupted ones are refused.

The documents come from the Python writers and from the command line. For
each kind, three corruptions (a field of the wrong type, a required field
removed, an unknown kind in ``format``) must be refused with polyrelu's error
for that kind, naming where the document fails.
"""

import copy
import json

import pytest

from polyrelu import (
    Box,
    ReLUNetwork,
    canonical_complex,
    decision_complex,
    homology_document,
    network_to_dict,
    slice_through,
    validate,
)
from polyrelu.analysis import analyze
from polyrelu.cli import main
from polyrelu.cli.survey import conditions_survey, recovery_survey, survey_document
from polyrelu.dependency import dependency_graph
from polyrelu.errors import (
    AnalysisFormatError,
    ComplexFormatError,
    DocumentFormatError,
    GraphFormatError,
    NetworkFormatError,
)
from polyrelu.examples import bent_line_network
from polyrelu.schemas import FORMATS, SCHEMA_NAMES, schema
from polyrelu.tropical import breakpoint_complex, tropical_weights

ERRORS = {
    "analysis": AnalysisFormatError,
    "builtins": DocumentFormatError,
    "complex": ComplexFormatError,
    "decision_complex": ComplexFormatError,
    "dependency_graph": GraphFormatError,
    "homology": DocumentFormatError,
    "network": NetworkFormatError,
    "slice": ComplexFormatError,
    "survey": DocumentFormatError,
}
CLASSIFIER = ReLUNetwork([[[1, 0], [0, 1], [0, 0]]], [[0, 0, 0]])


@pytest.fixture(scope="module")
def documents():
    """Per kind, the documents the Python writers produce (more than one where a writer has variants)."""
    net = bent_line_network()
    K = canonical_complex(net)
    W = tropical_weights(K)
    D = decision_complex(CLASSIFIER, Box(-1, 1))
    S = slice_through(ReLUNetwork.random((3, 4, 2), seed=1), [[0, 0, 0], [1, 2, 0], [0, 1, 1]])
    return {
        "network": [network_to_dict(net)],
        "complex": [K.to_json(), canonical_complex(net, Box(-1, 2)).to_json(), W.to_json()],
        "dependency_graph": [dependency_graph(breakpoint_complex(W)).to_json()],
        "analysis": [analyze(net, inradius=False).to_json()],
        "slice": [S.to_json(), slice_through(net, [[0, 0], [1, 1]]).to_json()],
        "decision_complex": [D.to_json(), decision_complex(CLASSIFIER).to_json()],
        "homology": [homology_document({"class 0": D.class_region(0), "boundary": D.boundary()}, primes=(2, 3))],
        "survey": [
            survey_document({"samples": 1}, results=conditions_survey([(2, 2, 1)], samples=1, progress=False)),
            survey_document({"recovery": True, "max_seconds": 20.0},
                            records=recovery_survey([(2, 2, 1)], 1, max_seconds=20.0, progress=False)),
        ],
    }


def test_every_kind_has_a_schema_and_a_format_tag():
    assert set(ERRORS) == set(SCHEMA_NAMES)
    assert FORMATS == {f"polyrelu.{kind}": kind for kind in SCHEMA_NAMES}


def test_every_document_of_the_python_writers_validates_by_its_format(documents):
    for kind, docs in documents.items():
        for document in docs:
            assert document["format"] == f"polyrelu.{kind}"
            assert validate(document) == kind
            assert validate(json.loads(json.dumps(document))) == kind  # what a file holds


def test_every_json_document_of_the_command_line_validates(tmp_path, capsys):
    net = tmp_path / "net.json"
    main(["demo", "-o", str(net)])
    points = tmp_path / "points.csv"
    points.write_text("0,0\n1,0\n0,1\n")
    runs = {
        "builtins": ["builtins"],
        "complex": ["complex", str(net)],
        "slice": ["slice", str(net), "--through", str(points)],
        "decision_complex": ["decision", "builtin:randn-2-3-3", "--domain", "box:-1,1", "--homology", str(tmp_path / "h.json")],
        "dependency_graph": ["graph", str(net)],
        "analysis": ["analyze", str(net), "--no-inradius"],
        "survey": ["survey", "--depths", "1", "--widths", "2", "--samples", "1"],
    }
    for kind, argv in runs.items():
        path = tmp_path / f"{kind}.json"
        assert main([*argv, "-o", str(path)]) == 0, capsys.readouterr().err
        assert validate(json.loads(path.read_text()), source=str(path)) == kind
    assert validate(json.loads((tmp_path / "h.json").read_text())) == "homology"
    assert main(["decision", str(net), "--level", "1/2", "--homology", str(tmp_path / "level.json")]) == 0
    assert validate(json.loads((tmp_path / "level.json").read_text())) == "homology"


def _first_required(document, kind):
    return next(key for key in schema(kind).get("required", ["format"]) if key not in ("format", "version"))


@pytest.mark.parametrize("kind", sorted(set(SCHEMA_NAMES) - {"builtins"}))
def test_corrupted_documents_are_refused_with_the_kinds_error(documents, kind):
    document = documents[kind][0]
    error = ERRORS[kind]
    wrong_type = copy.deepcopy(document)
    wrong_type["version"] = "1"
    with pytest.raises(error, match=r"X\.json: at \$\.version: (1 was expected|'1' is not one of \[1, 2\])"):
        validate(wrong_type, source="X.json")
    missing = copy.deepcopy(document)
    key = _first_required(document, kind) if kind != "network" else "layers"
    del missing[key]
    with pytest.raises(error, match=rf"at \$: '{key}' is a required property"):
        validate(missing)
    with pytest.raises(error):
        validate(missing, kind)
    unknown = copy.deepcopy(document)
    unknown["format"] = f"polyrelu.{kind}2"
    with pytest.raises(DocumentFormatError, match=rf"at \$\.format: 'polyrelu\.{kind}2' is not one of polyrelu's formats"):
        validate(unknown)
    extra = copy.deepcopy(document)
    extra["comment"] = "not part of the format"
    with pytest.raises(error, match="Additional properties are not allowed"):
        validate(extra)


def test_builtins_and_nested_corruptions_are_refused_where_they_are(documents, tmp_path, capsys):
    path = tmp_path / "b.json"
    assert main(["builtins", "-o", str(path)]) == 0
    document = json.loads(path.read_text())
    document["builtins"][1]["example"] = "bent-line"
    with pytest.raises(DocumentFormatError, match=r"at \$\.builtins\[1\]\.example: 'bent-line' does not match"):
        validate(document)
    survey = copy.deepcopy(documents["survey"][1])
    survey["networks"][0]["recovery"] = "recovered"
    with pytest.raises(DocumentFormatError, match=r"at \$\.networks\[0\]\.recovery: 'recovered' is not one of"):
        validate(survey)
    homology = copy.deepcopy(documents["homology"][0])
    homology["subcomplexes"][0]["betti"][0] = -1
    with pytest.raises(DocumentFormatError, match=r"at \$\.subcomplexes\[0\]\.betti\[0\]: -1 is less than the minimum of 0"):
        validate(homology)
    sliced = copy.deepcopy(documents["slice"][0])
    sliced["directions"][0][0] = 0.5
    with pytest.raises(ComplexFormatError, match=r"at \$\.directions\[0\]\[0\]: 0\.5 is not of type 'string'"):
        validate(sliced)
    decision = copy.deepcopy(documents["decision_complex"][0])
    decision["complex"]["cells"]["signs"][0] = "x"
    with pytest.raises(ComplexFormatError, match=r"at \$\.complex\.cells\.signs\[0\]"):
        validate(decision)


@pytest.mark.parametrize("value, error", [
    (1_000_000, None),
    (1, None),
    ("1000000", r"at \$\.parameters\.max_queries: '1000000' is not of type 'integer'"),
    (2.5, r"at \$\.parameters\.max_queries: 2\.5 is not of type 'integer'"),
    (0, r"at \$\.parameters\.max_queries: 0 is less than the minimum of 1"),
])
def test_the_recovery_surveys_query_budget_is_described(documents, value, error):
    survey = copy.deepcopy(documents["survey"][1])
    survey["parameters"]["max_queries"] = value
    if error is None:
        assert validate(survey) == "survey"
    else:
        with pytest.raises(DocumentFormatError, match=error):
            validate(survey)


def test_the_recovery_survey_of_the_command_line_validates_with_its_query_budget(tmp_path, capsys):
    path = tmp_path / "survey.json"
    assert main(["-q", "survey", "--recovery", "--depths", "1", "--widths", "2", "--samples", "1",
                 "--max-queries", "5000", "-o", str(path)]) == 0
    document = json.loads(path.read_text())
    assert document["parameters"]["max_queries"] == 5000 and validate(document) == "survey"
