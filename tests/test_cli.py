"""The command line: demo, info and complex, as a user runs them."""

import json
from fractions import Fraction

import jsonschema
import pytest

from polyrelu import CanonicalComplex, ReLUNetwork, canonical_complex, save_network
from polyrelu.cli import main, parse_domain
from polyrelu.complex import Box
from polyrelu.examples import bent_line_network
from polyrelu.schemas import schema


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_demo_reports_counts_hypothesis_and_canonical_form(capsys):
    code, out, err = run(capsys, "demo")
    assert code == 0
    assert "architecture        2→2→1→1" in out
    assert "parameters D        11" in out and "hidden neurons H    3" in out and "D - H               8" in out
    assert "width hypothesis    fails: hidden layer 2 has width 1" in out
    assert "layer 2 (hidden)  (1, 1) | -1" in out
    assert "equivalent: True" in out and "equivalent: False" in out
    assert "f-vector (3, 9, 7), Euler characteristic 1" in out
    assert "bent hypersurface of neuron (2, 0): 3 pieces" in out


def test_info_on_a_saved_network(tmp_path, capsys):
    net = ReLUNetwork.random((3, 2, 2, 1), seed=7)
    path = tmp_path / "net.json"
    save_network(net, path)
    code, out, _ = run(capsys, "info", str(path))
    arch = net.architecture
    assert code == 0
    assert f"parameters D        {arch.num_parameters}" in out
    assert f"D - H               {arch.num_parameters - arch.num_hidden}" in out
    assert "width hypothesis    holds" in out


def test_complex_command_writes_a_valid_equal_complex(tmp_path, capsys):
    net = ReLUNetwork.random((2, 3, 3, 1), seed=2)
    path, out_path = tmp_path / "net.json", tmp_path / "complex.json"
    save_network(net, path)
    code, out, err = run(capsys, "complex", str(path), "--domain", "box:-4,4", "-o", str(out_path))
    expected = canonical_complex(net, Box(-4, 4))
    assert code == 0
    assert f"f-vector          {expected.f_vector()}" in out
    assert "Euler char.       1  (expected 1)" in out
    assert "\r" not in err  # no progress bar when stderr is not a terminal
    data = json.loads(out_path.read_text())
    jsonschema.validate(data, schema("complex"))
    assert CanonicalComplex.from_json(str(out_path)) == expected


def test_complex_command_on_whole_space(tmp_path, capsys):
    net = ReLUNetwork.random((3, 2, 2, 1), seed=1)
    path = tmp_path / "net.json"
    save_network(net, path)
    code, out, _ = run(capsys, "complex", str(path))
    assert code == 0
    assert "Euler char.       -1  (expected -1)" in out


@pytest.mark.parametrize(
    "domain, message",
    [("box:1,0", "lower[0] = 1 is not below upper[0] = 0"), ("ball:1", "expected box:LO,HI"), ("box:a,b", "must be numbers")],
)
def test_complex_command_bad_domain_exits_2_with_message(tmp_path, capsys, domain, message):
    path = tmp_path / "net.json"
    save_network(bent_line_network(), path)
    code, out, err = run(capsys, "complex", str(path), "--domain", domain)
    assert code == 2
    assert message in err and "Traceback" not in err


def test_missing_network_file_exits_2(tmp_path, capsys):
    code, _, err = run(capsys, "info", str(tmp_path / "nope.json"))
    assert code == 2 and "no such file" in err


def test_parse_domain_per_coordinate_box():
    box = parse_domain("box:-1,1;0,1/2")
    assert box.lower == [Fraction(-1), Fraction(0)] and box.upper == [Fraction(1), Fraction(1, 2)]
    assert box.polyhedron(2).vertices()[-1] == (Fraction(1), Fraction(1, 2))


def test_weights_command_summarises_neurons_and_verdict(tmp_path, capsys):
    path = tmp_path / "net.json"
    save_network(ReLUNetwork.random((2, 5, 3, 1), seed=9, kind="gaussian"), path)
    out_path = tmp_path / "weighted.json"
    code, out, _ = run(capsys, "weights", str(path), "-o", str(out_path))
    assert code == 0
    data = json.loads(out_path.read_text())
    jsonschema.validate(data, schema("complex"))
    assert len(data["bent_hypersurfaces"]) == 8
    assert out.count("\n(1, ") == 5 and out.count("\n(2, ") == 3
    assert "generic: yes, all four conditions hold" in out


def test_weights_command_on_the_worked_example(tmp_path, capsys):
    path = tmp_path / "net.json"
    save_network(bent_line_network(), path)
    code, out, _ = run(capsys, "weights", str(path))
    row = next(line for line in out.splitlines() if line.startswith("(2, 0)"))
    assert row.split()[2:5] == ["3", "3", "2"]  # three facets, all visible, two bends
    assert "1.414" in row
    assert "transparency: fails" in out


def test_demo_shows_the_dependency_graph(capsys):
    _, out, _ = run(capsys, "demo")
    assert "2 unresolved junctions (at (0, 1), (1, 0))" in out
    assert "same graph as read off the parameters: True" in out
    assert "no generic realization of f has fewer than 3 hidden layers" in out


def test_graph_command_writes_json_graphml_and_plot(tmp_path, capsys):
    from polyrelu.dependency import DependencyGraph
    from polyrelu.examples import generic_network

    path = tmp_path / "net.json"
    save_network(generic_network((2, 3, 2, 1), seed=2), path)
    files = {k: tmp_path / f"g.{k}" for k in ("json", "graphml", "png")}
    code, out, _ = run(
        capsys, "graph", str(path), "--json", str(files["json"]), "--graphml", str(files["graphml"]),
        "--plot", str(files["png"]),
    )
    assert code == 0
    assert "layers            (3, 2) vertices per inferred layer" in out
    assert "parameter graph   equal" in out
    assert "fewer than 2 hidden layers" in out and "fewest a generic realization can have" in out
    with open(files["json"]) as fh:
        data = json.load(fh)
        jsonschema.validate(data, schema("dependency_graph"))
    graph = DependencyGraph.read_graphml(files["graphml"])
    assert graph.layer_sizes() == (3, 2) and len(data["vertices"]) == 5
    assert files["png"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and files["png"].stat().st_size > 5000


def test_graph_command_reports_junctions(tmp_path, capsys):
    path = tmp_path / "net.json"
    save_network(bent_line_network(), path)
    code, out, _ = run(capsys, "graph", str(path))
    assert code == 0
    assert out.count("  unresolved cell ") == 2 and "a junction" in out
    assert "the layering does not say which shallower realization" in out
