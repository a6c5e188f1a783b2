"""The command line as a user runs it: the commands, their outputs, and one error contract.

Exit status: 0 success, 1 an input error or a limit, 2 a usage error, 70 a
bug, 130 interrupted (143 terminated: see test_outputs.py); every failure is
one line on stderr, with the traceback only under ``--debug``.
"""

import json
import os
import sys
from fractions import Fraction

import jsonschema
import pytest

import polyrelu.analysis
import polyrelu.complex
import polyrelu.identifiability
from polyrelu import CanonicalComplex, ReLUNetwork, canonical_complex, save_network
from polyrelu.cli import main, parse_domain
from polyrelu.complex import Box
from polyrelu.examples import bent_line_network
from polyrelu.schemas import schema, validate


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


def test_missing_network_file_is_an_input_error(tmp_path, capsys):
    code, _, err = run(capsys, "info", str(tmp_path / "nope.json"))
    assert code == 1 and "no such file" in err


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


# -- one error contract ------------------------------------------------------------------------------------


def one_line(err):
    assert err.count("\n") == 1 and err.endswith("\n"), f"not one line on stderr: {err!r}"
    assert "Traceback" not in err
    return err


@pytest.fixture
def net_file(tmp_path):
    path = tmp_path / "net.json"
    save_network(bent_line_network(), path)
    return path


@pytest.mark.parametrize(
    "argv, message",
    [
        (["complex", "{net}", "--bogus"], "unrecognized arguments: --bogus"),
        (["frobnicate"], "invalid choice: 'frobnicate'"),
        (["complex"], "the following arguments are required: network"),
        (["complex", "{net}", "--max-cells", "0"], "--max-cells 0: must be a positive integer"),
        (["complex", "{net}", "--max-cells", "many"], "invalid int value: 'many'"),
        (["complex", "{net}", "--domain", "box:1e999999999,2"], "the exponent 999999999 is beyond"),
        (["complex", "{net}", "--domain", "box:-1,1;0,1;0,1"], "bounds 3 coordinates; the network has 2 inputs"),
        (["complex", "{net}", "--domain", "box:-1,1,2"], "each coordinate needs LO,HI"),
        (["complex", "{net}", "-o", "{dir}/out.txt"], "'.txt' is not one of .json"),
        (["complex", "builtin:randn-2-5000-1"], "width 5000 is over 4096"),
        (["complex", "builtin:generic-2-2000-2000-1"], "4,010,001 parameters, over 2,000,000"),
        (["complex", "builtin:randn-2-0-1"], "width 0; every width must be at least 1"),
        (["complex", "builtin:generic-2-3000-1"], "too large for a built-in generic network"),
        (["complex", "builtin:randn-2-x-1"], "unknown built-in network"),
        (["complex", "builtin:randn-" + "9" * 5000 + "-1"], "unknown built-in network"),
        (["survey", "--depths", "x"], "argument --depths: 'x': expected positive integers"),
        (["survey", "--widths", "2,-3"], "argument --widths: '2,-3': expected positive integers"),
        (["survey", "--samples", "-1"], "--samples -1: must be a positive integer"),
        (["survey", "--widths", "9000"], "width 9000 is over 4096"),
        (["survey", "--seed", "-1"], "--seed -1: must be an integer >= 0"),
        (["survey", "--depths", "999999999"], "999999999 hidden layers, over 1000"),
        (["complex", "builtin:randn-2" + "-1" * 1001], "1001 layers, over 1000"),
        (["recover", "--from", "{net}", "--max-queries", "0"], "--max-queries 0: must be a positive integer"),
        (["recover", "--from", "{net}", "--float"], "--float needs a bounded domain"),
        (["analyze", "builtin:generic-4-3-1", "--plot", "{dir}/a.png"], "--plot draws networks with 2 or 3 inputs"),
    ],
)
def test_usage_errors_exit_2_with_one_line_saying_what_to_write(net_file, capsys, argv, message):
    argv = [a.format(net=net_file, dir=net_file.parent) for a in argv]
    code, _, err = run(capsys, *argv)
    assert code == 2
    assert one_line(err).startswith("polyrelu: error: ") and message in err


def test_malformed_network_file_is_an_input_error(tmp_path, capsys):
    path = tmp_path / "net.json"
    path.write_text('{"format": "polyrelu.network", "layers": [')
    code, out, err = run(capsys, "complex", str(path))
    assert code == 1 and out == ""
    assert one_line(err).startswith(f"polyrelu: error: {path}")


def test_debug_shows_the_traceback_then_the_same_line(tmp_path, capsys):
    path = tmp_path / "net.json"
    path.write_text("not json")
    code, _, plain = run(capsys, "info", str(path))
    debug_code, _, err = run(capsys, "--debug", "info", str(path))
    assert code == debug_code == 1
    assert err.startswith("Traceback (most recent call last):") and "NetworkFormatError" in err
    assert err.splitlines()[-1] == one_line(plain).rstrip("\n")


def test_a_bug_is_one_line_naming_it_and_asking_for_a_report(net_file, capsys, monkeypatch):
    def broken(*args, **kwargs):
        raise ValueError("an internal invariant failed")

    monkeypatch.setattr("polyrelu.cli.canonical_complex", broken)
    code, _, err = run(capsys, "complex", str(net_file))
    assert code == 70
    assert "ValueError: an internal invariant failed" in one_line(err)
    assert "bug in polyrelu" in err and "--debug" in err and "report" in err
    code, _, err = run(capsys, "--debug", "complex", str(net_file))
    assert code == 70 and "Traceback (most recent call last)" in err and "in broken" in err


def test_ctrl_c_in_process_exits_130_with_one_line(net_file, capsys, monkeypatch):
    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("polyrelu.cli.canonical_complex", interrupted)
    code, _, err = run(capsys, "complex", str(net_file))
    assert (code, err) == (130, "polyrelu: interrupted\n")


def test_too_large_complex_names_the_estimate_and_the_options(capsys):
    code, _, err = run(capsys, "complex", "builtin:randn-2-30-30-1", "--max-cells", "100")
    assert code == 1
    assert "layer 1 would bring the complex to 1,801 cells" in one_line(err) and "over max_cells=100" in err
    assert "--max-cells" in err and "--domain" in err


def test_max_cells_reaches_every_complex_of_the_network_in_analyze(capsys, monkeypatch):
    seen = []
    build = polyrelu.complex.canonical_complex

    def recording(net, domain=None, **kwargs):
        seen.append((net, kwargs.get("max_cells")))
        return build(net, domain, **kwargs)

    # every module that imported canonical_complex calls it by its own name: record the calls through each
    users = [m for name, m in sys.modules.items() if name.startswith("polyrelu") and getattr(m, "canonical_complex", None) is build]
    assert polyrelu.analysis in users and polyrelu.identifiability in users
    for module in users:
        monkeypatch.setattr(module, "canonical_complex", recording)
    code, _, _ = run(capsys, "analyze", "builtin:bent-line", "--no-inradius", "--max-cells", "4321")
    assert code == 0
    own = [cells for net, cells in seen if net == bent_line_network()]
    assert len(own) >= 3 and set(own) == {4321}  # the analysis, identifiability and minimality complexes


# -- output paths: checked first, written exactly where asked ----------------------------------------------

BAD_OUTPUTS = [
    ("complex", "-o", "missing/c.json"),
    ("complex", "-o", "c.graphml"),
    ("weights", "-o", "missing/w.json"),
    ("weights", "-o", "."),
    ("graph", "--json", "g.txt"),
    ("graph", "--graphml", "missing/g.graphml"),
    ("graph", "--plot", "g.jpg"),
    ("analyze", "--json", "missing/a.json"),
    ("analyze", "--plot", "a.gif"),
    ("recover", "-o", "r.txt"),
    ("complex", "-o", "net.json"),  # the input file itself
    ("recover", "-o", "net.json"),
]


@pytest.mark.parametrize("command, option, name", BAD_OUTPUTS)
def test_a_bad_output_path_fails_before_the_network_is_loaded(net_file, capsys, monkeypatch, command, option, name):
    monkeypatch.setattr("polyrelu.cli.load", lambda spec: pytest.fail("the network was loaded before the path was checked"))
    monkeypatch.setattr("polyrelu.cli.load_network", lambda spec: pytest.fail("the network was loaded"))
    source = ["--from", str(net_file)] if command == "recover" else [str(net_file)]
    before = sorted(os.listdir(net_file.parent))
    code, out, err = run(capsys, command, *source, option, str(net_file.parent / name))
    assert code == 2 and out == ""
    assert one_line(err).startswith("polyrelu: error: ")
    assert sorted(os.listdir(net_file.parent)) == before
    assert net_file.read_bytes() == open(net_file, "rb").read() and load_ok(net_file)


def load_ok(path):
    from polyrelu import load_network

    return load_network(path) == bent_line_network()


def test_plot_without_suffix_writes_exactly_that_path_as_png(tmp_path, capsys):
    code, out, _ = run(capsys, "graph", "builtin:bent-line", "--plot", str(tmp_path / "x"))
    assert code == 0 and f"written           {tmp_path / 'x'}" in out
    assert os.listdir(tmp_path) == ["x"]
    assert (tmp_path / "x").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# -- weights beyond the float range --------------------------------------------------------------------------


def test_weights_of_1e300_are_shown_as_inf_and_written_exactly(tmp_path, capsys):
    big = 1e300  # products of two such weights are beyond float64
    net = ReLUNetwork([[[big, 0], [0, big], [big, big]], [[big, big, -big]]], [[0, -big, big], [big]])
    path, out_path = tmp_path / "net.json", tmp_path / "w.json"
    save_network(net, path)
    code, out, err = run(capsys, "weights", str(path), "-o", str(out_path))
    assert code == 0 and err == ""
    rows = [line.split() for line in out.splitlines() if line.startswith("(1, ")]
    assert [row[-1] for row in rows] == ["inf", "inf", "-inf"]
    data = json.loads(out_path.read_text())
    validate(data, "complex")
    exact = {Fraction(w) for f in data["facet_weights"] for w in f["weight"]}
    assert Fraction(big) ** 2 in exact  # the exact weight, not a rounded one


def test_analyze_json_stays_valid_beyond_the_float_range(tmp_path, capsys):
    huge = Fraction(10) ** 400  # integer facet normals beyond float64 too
    net = ReLUNetwork([[[huge, 1], [1, -huge], [1, 1]], [[huge, 1, -1]]], [[0, 1, -1], [0]])
    path, out_path = tmp_path / "net.json", tmp_path / "a.json"
    save_network(net, path)
    code, out, err = run(capsys, "analyze", str(path), "--json", str(out_path))
    assert code == 0, err
    assert "conditioning        thinnest region" in out
    data = json.loads(out_path.read_text(), parse_constant=lambda name: pytest.fail(f"{name} is not JSON"))
    validate(data, "analysis")
    assert data["weights"]["max_abs_euclidean_weight"] is None and data["inradius"]["value"] > 0


def test_info_on_thirteen_twin_neurons_reports_without_the_canonical_form(tmp_path, capsys):
    # 297 bytes that made `info` allocate over 5.8 GB while it listed 13! orderings
    twins = {"format": "polyrelu.network", "version": 1,
             "layers": [{"weights": [[1, 1]] * 13, "biases": [0] * 13}, {"weights": [[1] * 13], "biases": [0]}]}
    path = tmp_path / "twins.json"
    path.write_text(json.dumps(twins))
    assert main(["info", str(path)]) == 0
    out = capsys.readouterr().out
    assert "2→13→1" in out and "canonical form      not computed: hidden layer 1 has 13 twin neurons" in out


@pytest.mark.parametrize("command", [[], ["demo"], ["info"], ["complex"], ["weights"], ["graph"], ["analyze"], ["recover"], ["survey"]])
def test_help_of_every_command(capsys, command):
    # a '%' in a help string made `polyrelu --help` an internal error (exit 70)
    assert main([*command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: polyrelu")


# -- the survey across depth: identifiability verdicts and recovery outcomes --------------------------------


def by_hand(arch, seed, max_seconds):
    """The verdict and the recovery outcome of one surveyed network, computed here without the CLI."""
    from polyrelu import equivalent, identifiability_report, network_oracle, recover_network, same_function

    net = ReLUNetwork.random(arch, seed=seed, kind="gaussian")
    result = recover_network(network_oracle(net), arch[0], seed=seed, max_seconds=max_seconds)
    if result.network is None:
        outcome = "undecided"
    elif equivalent(result.network, net):
        outcome = "trivially equivalent"
    else:
        outcome = "same function" if same_function(result.network, net).equal else "DIFFERENT FUNCTION"
    return identifiability_report(net).verdict, outcome


SURVEY = ["survey", "--recovery", "--input", "2", "--depths", "1,2", "--widths", "2", "--samples", "2", "--seed", "3"]


def table_rows(out):
    """The markdown table of ``out`` as ``{architecture: {column: entry}}``."""
    lines = [line for line in out.splitlines() if line.startswith("|")]
    header = [h.strip() for h in lines[0].strip("|").split("|")]
    rows = {}
    for line in lines[2:]:
        entries = [e.strip() for e in line.strip("|").split("|")]
        rows[entries[0]] = dict(zip(header, entries))
    return rows


def test_recovery_survey_counts_what_each_network_gives_by_hand(tmp_path, capsys):
    out_path = tmp_path / "survey.json"
    code, out, err = run(capsys, *SURVEY, "-o", str(out_path))
    assert code == 0, err
    rows = table_rows(out)
    assert set(rows) == {"2→2→1", "2→2→2→1"}
    records = json.loads(out_path.read_text())["networks"]
    assert [(r["architecture"], r["seed"]) for r in records] == [([2, 2, 1], 3), ([2, 2, 1], 4), ([2, 2, 2, 1], 3), ([2, 2, 2, 1], 4)]
    for arch in ((2, 2, 1), (2, 2, 2, 1)):
        expected = [by_hand(arch, seed, 60) for seed in (3, 4)]
        row = rows["→".join(map(str, arch))]
        assert row["networks"] == "2"
        for verdict in {v for v, _ in expected}:
            assert row[verdict] == str(sum(v == verdict for v, _ in expected))
        for outcome in ("trivially equivalent", "same function", "undecided", "DIFFERENT FUNCTION"):
            assert row[f"recovery: {outcome}"] == str(sum(o == outcome for _, o in expected))
        mine = [(r["verdict"], r["recovery"]) for r in records if tuple(r["architecture"]) == arch]
        assert mine == expected
    # every verdict column is one some network has, and each row's verdicts add up to its networks
    verdicts = {r["verdict"] for r in records}
    assert {h for h in next(iter(rows.values())) if h not in ("architecture", "networks") and not h.startswith("recovery")} == verdicts
    assert all(sum(int(row[v]) for v in verdicts) == 2 for row in rows.values())


def test_recovery_survey_is_reproducible_from_its_seed(tmp_path, capsys):
    paths = [tmp_path / "a.json", tmp_path / "b.json"]
    for path in paths:
        assert run(capsys, *SURVEY, "--depths", "1", "-o", str(path))[0] == 0
    first, second = ([{k: v for k, v in r.items() if k != "seconds"} for r in json.loads(p.read_text())["networks"]] for p in paths)
    assert first == second and len(first) == 2
    assert run(capsys, *SURVEY, "--depths", "1", "--seed", "4", "-o", str(paths[1]))[0] == 0
    shifted = json.loads(paths[1].read_text())["networks"]
    assert shifted[0]["seed"] == 4 and {k: v for k, v in shifted[0].items() if k != "seconds"} == first[1]


def test_a_recovered_network_computing_another_function_is_flagged_loudly(capsys, monkeypatch):
    import polyrelu.cli
    from polyrelu import recover_network

    def wrong(oracle, n0, **kwargs):
        result = recover_network(oracle, n0, **kwargs)
        shifted = ReLUNetwork(result.network.weights, [*result.network.biases[:-1], [result.network.biases[-1][0] + 1]])
        return type(result)(**{**result.__dict__, "network": shifted})

    monkeypatch.setattr(polyrelu.cli, "recover_network", wrong)
    code, out, err = run(capsys, *SURVEY, "--depths", "1", "--samples", "1")
    assert code == 70
    assert table_rows(out)["2→2→1"]["recovery: DIFFERENT FUNCTION"] == "**1**"
    assert "COMPUTE A DIFFERENT FUNCTION" in out and "2→2→1 seed 3" in out
    assert one_line(err).startswith("polyrelu: error: 1 recovered networks compute a different function")
