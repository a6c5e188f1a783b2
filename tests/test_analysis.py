"""polyrelu analyze: one report, JSON against its schema, pictures in 2-D and 3-D (sliced)."""

import json

import jsonschema
import pytest

from polyrelu import ReLUNetwork, save_network
from polyrelu.analysis import analyze, slice_network, thinnest_region
from polyrelu.cli import main
from polyrelu.errors import UsageError
from polyrelu.examples import generic_network
from polyrelu.schemas import validator


def validate(data):
    validator("analysis").validate(data)


def test_analyze_json_validates_and_plot_is_written(tmp_path, capsys):
    path = tmp_path / "net.json"
    save_network(generic_network((2, 3, 2, 1), seed=1), path)
    out_json, out_png = tmp_path / "a.json", tmp_path / "a.png"
    assert main(["analyze", str(path), "--json", str(out_json), "--plot", str(out_png)]) == 0
    text = capsys.readouterr().out
    assert "verdict: identifiable (theorem conditions hold)" in text and "minimality: minimal (evidence)" in text
    data = json.loads(out_json.read_text())
    validate(data)
    assert data["functional_dimension"]["rank"] == data["functional_dimension"]["bound"] == 15
    assert data["dependency_graph"]["depth_hierarchy"]["lower_bound"] == 2
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out_png.stat().st_size > 10_000


def test_schema_rejects_a_wrong_verdict(tmp_path):
    data = analyze(generic_network((2, 2, 1), seed=0), inradius=False).to_json()
    validate(data)
    data["identifiability"]["verdict"] = "probably fine"
    with pytest.raises(jsonschema.ValidationError):
        validate(data)


def test_builtin_networks_and_a_not_identifiable_report(capsys):
    assert main(["analyze", "builtin:bent-line", "--no-inradius"]) == 0
    text = capsys.readouterr().out
    assert "width hypothesis    fails" in text and "verdict: locally identifiable (immersion)" in text
    assert main(["analyze", "builtin:nonsense"]) == 2
    assert "unknown built-in network" in capsys.readouterr().err


def test_three_inputs_are_drawn_as_a_slice(tmp_path):
    net = generic_network((3, 3, 2, 1), seed=0)
    flat = slice_network(net, [0, 0, 0], [1, 0, 0], [0, 1, 0])
    for x in ([1, 2], [-3, "1/2"], [0, 0]):
        assert flat(x) == net([*x, 0])
    path = tmp_path / "slice.png"
    analyze(net, inradius=False).plot(path)
    assert path.stat().st_size > 10_000


def test_thinnest_region_is_the_smallest_inscribed_ball():
    """Four regions of the axes clipped to a box: the inradius is half the box, for every region."""
    from polyrelu import canonical_complex

    K = canonical_complex(ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]]], [[0, 0], [0]]))
    r, region = thinnest_region(K, box=4)
    assert abs(r - 2) < 1e-6 and region in {c.id for c in K.regions()}
    # a thin strip: x1 in [0, 1/10]
    strip = canonical_complex(ReLUNetwork([[[1, 0], [-1, 0]], [[1, 1]]], [[0, "1/10"], [0]]))
    r, _ = thinnest_region(strip, box=4)
    assert abs(r - 0.05) < 1e-6


def test_inradius_is_positive_when_every_cell_has_lines():
    """4 inputs, 3 first-layer neurons: every cell contains a line, there are no 0-cells."""
    net = ReLUNetwork.random((4, 3, 2, 1), seed=1, kind="integer")
    result = analyze(net)
    assert not result.complex.cells(0)
    assert result.inradius[0] > 0


# -- n_jobs and scheduler: the serial analysis whatever runs it -------------------------------------------
# twins (1, 0) and (1, 1), a dead neuron (1, 3), a second hidden layer: removals, and a rank short of D - H
REDUNDANT = ReLUNetwork(
    [[[1, 0], [2, 0], [0, 1], [0, 0], [1, 1]], [[1, -1, 1, 1, 2], [1, 1, 0, 1, 1]], [[1, 2]]],
    [[0, 0, 0, -1, 0], [0, 1], [0]],
)


def without_timings(analysis):
    return {**analysis.to_json(), "timings": None}


def test_analyze_with_2_jobs_is_the_serial_analysis():
    serial = analyze(REDUNDANT, inradius=False, n_jobs=1)
    # the parallel stages have something to get wrong: three removals in neuron order, kernel directions
    assert [r.neuron for r in serial.minimality.removals] == [(1, 0), (1, 1), (1, 3)]
    assert serial.functional_dimension.kernel and not serial.functional_dimension.attains_bound
    parallel = analyze(REDUNDANT, inradius=False, n_jobs=2)
    assert without_timings(parallel) == without_timings(serial) and str(parallel) == str(serial)
    assert parallel.functional_dimension == serial.functional_dimension
    assert parallel.minimality == serial.minimality


def test_analyze_refuses_bad_parallel_arguments():
    with pytest.raises(UsageError, match=r"^analyze: n_jobs must be -1 \(every core\), a positive integer or None, not 0"):
        analyze(REDUNDANT, n_jobs=0)
    with pytest.raises(UsageError, match="scheduler must be the address of a Dask scheduler"):
        analyze(REDUNDANT, scheduler="")


def test_analyze_command_with_jobs_prints_and_writes_the_serial_analysis(tmp_path, capsys):
    outputs = []
    for jobs in ("1", "2"):
        path = tmp_path / f"analysis-{jobs}.json"
        assert main(["analyze", "builtin:free-weight", "--no-inradius", "--jobs", jobs, "-o", str(path)]) == 0
        out = capsys.readouterr().out
        data = json.loads(path.read_text())
        validate(data)
        outputs.append((out.replace(str(path), "FILE"), {**data, "timings": None}))
    assert outputs[0] == outputs[1]
    assert "minimality" in outputs[0][0]


def test_analyze_command_refuses_a_bad_jobs_value_and_documents_the_options(capsys):
    for argv, message in (
        (["--jobs", "0"], "--jobs 0: must be a positive number of worker processes (1 = serial) or -1 (every core)"),
        (["--jobs", "x"], "argument --jobs: invalid int value: 'x'"),
        (["--scheduler", ""], "--scheduler: give the address of a Dask scheduler"),
    ):
        assert main(["analyze", "builtin:bent-line", *argv]) == 2
        captured = capsys.readouterr()
        assert captured.err.startswith("polyrelu: error: ") and message in captured.err and not captured.out
    assert main(["analyze", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "--jobs N" in text and "--scheduler ADDRESS" in text and "minimality checks" in text


def test_the_analysis_text_keeps_within_120_columns():
    """The genericity line names TPIC in full: it wraps under its label instead of running past 120 columns."""
    text = str(analyze(generic_network((2, 3, 2), seed=0), inradius=False))
    assert "TPIC (transversal pairwise" in text
    assert max(map(len, text.splitlines())) <= 120
    assert any(line.startswith(" " * 20) and "intersection" in line for line in text.splitlines())
