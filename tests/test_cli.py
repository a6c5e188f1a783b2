"""The command line as a user runs it: the commands, their outputs, and one error contract.

Exit status: 0 success, 1 an input error or a limit, 2 a usage error, 70 a
bug, 130 interrupted (143 terminated: see test_outputs.py); every failure is
one line on stderr, with the traceback only under ``--debug``.
"""

import argparse
import json
import os
import re
import sys
from fractions import Fraction

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import polyrelu.analysis
import polyrelu.complex
import polyrelu.errors
import polyrelu.identifiability
from polyrelu import CanonicalComplex, ReLUNetwork, canonical_complex, save_network
from polyrelu.cli import EXIT_STATUS, build_parser, main, parse_domain
from polyrelu.complex import Box
from polyrelu.examples import bent_line_network
from polyrelu.schemas import schema, validate
from polyrelu.text import exact_numbers, number_text, scientific_text, vector_text


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
    assert f"f-vector            {expected.f_vector()}" in out
    assert "Euler char.         1  (expected 1)" in out
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
    assert "Euler char.         -1  (expected -1)" in out


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
        capsys, "graph", str(path), "-o", str(files["json"]), "--graphml", str(files["graphml"]),
        "--plot", str(files["png"]),
    )
    assert code == 0
    assert "layers              (3, 2) vertices per inferred layer" in out
    assert "parameter graph     equal" in out
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
        (["complex"], "the following arguments are required: NET"),
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
        (["recover", "{net}", "--max-queries", "0"], "--max-queries 0: must be a positive integer"),
        (["recover", "{net}", "--float"], "--float needs a bounded domain"),
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
    assert polyrelu.analysis in users and polyrelu.identifiability.verdicts in users
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
    ("graph", "-o", "g.txt"),
    ("graph", "--graphml", "missing/g.graphml"),
    ("graph", "--plot", "g.jpg"),
    ("analyze", "-o", "missing/a.json"),
    ("analyze", "--plot", "a.gif"),
    ("recover", "-o", "r.txt"),
    ("complex", "-o", "net.json"),  # the input file itself
    ("recover", "-o", "net.json"),
]


@pytest.mark.parametrize("command, option, name", BAD_OUTPUTS)
def test_a_bad_output_path_fails_before_the_network_is_loaded(net_file, capsys, monkeypatch, command, option, name):
    monkeypatch.setattr("polyrelu.cli.load", lambda spec: pytest.fail("the network was loaded before the path was checked"))
    monkeypatch.setattr("polyrelu.cli.builtins.load_network", lambda spec: pytest.fail("the network was loaded"))
    source = [str(net_file)]
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
    assert code == 0 and f"written             {tmp_path / 'x'}" in out
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
    code, out, err = run(capsys, "analyze", str(path), "-o", str(out_path))
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


# -- one grammar -------------------------------------------------------------------------------------------


def subcommands():
    """Every command's parser, by name, as `polyrelu` builds them."""
    (sub,) = [a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices


def test_the_commands_are_the_documented_ones():
    assert list(subcommands()) == ["demo", "builtins", "info", "complex", "slice", "decision", "weights", "graph", "analyze", "recover", "survey"]


@pytest.mark.parametrize("command", [[], *([name] for name in subcommands())])
@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_of_every_command(capsys, command, flag):
    # a '%' in a help string made `polyrelu --help` an internal error (exit 70)
    assert main([*command, flag]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"usage: polyrelu {command[0] if command else ''}".rstrip())


@pytest.mark.parametrize("name", list(subcommands()))
def test_every_option_of_every_command_says_what_it_does(name):
    for action in subcommands()[name]._actions:
        if action.help != argparse.SUPPRESS:  # the old spellings are hidden
            assert action.help and len(action.help) > 10, f"{name} {action.option_strings or action.dest}: no help"


def test_the_exit_statuses_are_listed_in_the_help(capsys):
    main(["--help"])
    out = capsys.readouterr().out
    for code, meaning in EXIT_STATUS.items():
        assert re.search(rf"^ +{code}  {re.escape(meaning)}$", out, re.M), code
    assert set(EXIT_STATUS) == {0, 1, 2, 70, 130, 141, 143}


def command_lines(tmp_path):
    """Each command on a cheap network, writing its main output to a file of the suffix it takes."""
    net = "builtin:generic-2-3-2-1"
    points = tmp_path / "points.json"
    points.write_text("[[0, 0], [1, 0], [0, 1]]")
    return {
        "demo": (["demo"], "net.json"),
        "builtins": (["builtins"], "builtins.json"),
        "info": (["info", net], "net.npz"),
        "complex": (["complex", net], "complex.json"),
        "slice": (["slice", net, "--through", str(points)], "slice.json"),
        "weights": (["weights", net], "weights.json"),
        "graph": (["graph", net], "graph.json"),
        "analyze": (["analyze", net, "--no-inradius"], "analysis.json"),
        "recover": (["recover", net], "recovered.json"),
        "survey": (["survey", "--depths", "1", "--widths", "2", "--samples", "1"], "survey.json"),
        "decision": (["decision", "builtin:randn-2-3-3", "--domain", "box:-1,1"], "decision.json"),
    }


def test_every_command_writes_its_main_output_with_o(tmp_path, capsys):
    from polyrelu import load_network
    from polyrelu.examples import generic_network

    lines = command_lines(tmp_path)
    assert set(lines) == set(subcommands())
    for name, (argv, file) in lines.items():
        path = tmp_path / file
        code, out, err = run(capsys, *argv, "-o", str(path))
        assert code == 0 and err == "", (name, err)
        assert f"written             {path}" in out
        if path.suffix == ".npz" or name in ("demo", "recover"):
            network = load_network(path)
            assert network == {"demo": bent_line_network(), "info": generic_network((2, 3, 2, 1), seed=1)}.get(name, network)
        else:
            data = json.loads(path.read_text())
            kind = {"weights": "complex", "graph": "dependency_graph", "analyze": "analysis", "decision": "decision_complex"}
            assert validate(data) == kind.get(name, name)  # every JSON document names its kind and has a schema
    assert json.loads((tmp_path / "survey.json").read_text())["architectures"][0]["ranks"] == [7]


def test_the_old_spellings_still_work(tmp_path, capsys):
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    assert run(capsys, "recover", "--from", "builtin:generic-2-3-2-1", "-o", str(old))[0] == 0
    assert run(capsys, "recover", "builtin:generic-2-3-2-1", "-o", str(new))[0] == 0
    assert old.read_text() == new.read_text()
    assert run(capsys, "recover", "--from=builtin:generic-2-3-2-1", "-o", str(old))[0] == 0
    assert old.read_text() == new.read_text()
    assert run(capsys, "graph", "builtin:bent-line", "--json", str(old))[0] == 0
    assert json.loads(old.read_text())["format"] == "polyrelu.dependency_graph"
    assert "--from" not in capsys.readouterr().out and main(["recover", "--help"]) == 0
    assert "--from" not in capsys.readouterr().out  # hidden: the help shows one spelling


def builtin_names(capsys):
    assert main(["builtins"]) == 0
    return [line.split()[0] for line in capsys.readouterr().out.splitlines() if line.startswith("builtin:")]


def test_builtins_lists_names_every_command_accepts(capsys, monkeypatch):
    import polyrelu.cli

    names = builtin_names(capsys)
    assert names[0] == "builtin:bent-line" and len(names) == 5
    for name in names:  # really loaded, and cheap commands really run on them
        assert polyrelu.cli.load(name).architecture.input_dim == 2
        assert main(["info", name]) == 0 and main(["complex", name, "--domain", "box:-1,1"]) == 0, name
    capsys.readouterr()
    seen = []

    def recording(spec, **kwargs):
        seen.append(spec)
        raise polyrelu.errors.UsageError("stop here")

    monkeypatch.setattr(polyrelu.cli, "load", recording)
    monkeypatch.setattr(polyrelu.cli.slicing, "load", recording)
    takes_a_network = [name for name, p in subcommands().items() if any(a.dest == "network" for a in p._actions)]
    assert takes_a_network == ["info", "complex", "slice", "decision", "weights", "graph", "analyze", "recover"]
    for command in takes_a_network:
        extra = ["--through", "points.csv"] if command == "slice" else []
        for name in names:
            assert main([command, name, *extra]) == 2 and seen[-1] == name


def test_quiet_prints_nothing_but_errors_and_still_writes(tmp_path, capsys):
    path = tmp_path / "c.json"
    for argv in (["--quiet", "complex", "builtin:bent-line", "-o", str(path)], ["complex", "builtin:bent-line", "-q", "-o", str(path)]):
        code, out, err = run(capsys, *argv)
        assert (code, out, err) == (0, "", "") and CanonicalComplex.from_json(str(path)) == canonical_complex(bent_line_network())
        path.unlink()
    code, out, err = run(capsys, "-q", "complex", "builtin:bent-line", "--domain", "box:1,0")
    assert code == 2 and out == "" and one_line(err).startswith("polyrelu: error: --domain")
    code, out, err = run(capsys, "-q", "recover", "builtin:randn-2-8-8-1", "--max-seconds", "0.01")
    assert (code, out, err) == (1, "", "")


def test_the_time_goes_to_stderr_on_a_terminal_only(capsys, monkeypatch):
    code, out, err = run(capsys, "complex", "builtin:bent-line")
    assert code == 0 and err == "" and not re.search(r"\d s\b", out)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    code, out, err = run(capsys, "complex", "builtin:bent-line")
    assert code == 0 and re.fullmatch(r"polyrelu complex: \d+\.\d\d s\n", err) and not re.search(r"\d s\b", out)


# -- readable text ----------------------------------------------------------------------------------------


def test_info_on_a_float_network_keeps_lines_short_unless_exact(tmp_path, capsys):
    from polyrelu import canonical_form
    from polyrelu.geometry.rational import fraction_to_json

    net = ReLUNetwork.random((12, 3, 2, 1), seed=5, kind="gaussian")  # float64 draws: 50-digit rationals
    path = tmp_path / "net.npz"
    save_network(net, path)
    code, out, _ = run(capsys, "info", str(path))
    assert code == 0
    assert max(map(len, out.splitlines())) <= 120
    assert "~: rounded to 3 significant digits" in out
    exact = [str(fraction_to_json(v)) for W, b in canonical_form(net).layers for row in W for v in (*row, *b)]
    long_ones = [e for e in exact if len(e) > 12]
    assert long_ones and not any(e in out for e in long_ones)
    code, out, _ = run(capsys, "info", str(path), "--exact")
    assert all(e in out for e in exact) and max(map(len, out.splitlines())) > 120
    assert "rounded" not in out


def test_weights_lists_witnesses_in_words(capsys):
    from polyrelu import genericity
    from polyrelu.cli import load

    code, out, _ = run(capsys, "weights", "builtin:randn-2-3-2-1")
    report = genericity(canonical_complex(load("builtin:randn-2-3-2-1")))
    assert code == 0 and not report.tpic.holds
    assert f"TPIC (transversal pairwise intersection): fails ({len(report.tpic.witnesses)} witnesses)" in out
    for z, z2, reason, cells in report.tpic.witnesses[:3]:
        assert reason == "disjoint" and f"  the bent hypersurfaces of neurons {z} and {z2} never meet\n" in out
    assert "'disjoint'" not in out and "((" not in out


def test_weights_are_sorted_numerically_and_columns_aligned(capsys):
    code, out, _ = run(capsys, "weights", "builtin:generic-2-12-2-1")
    assert code == 0
    rows = [re.match(r"(\(\d+, \d+\)) +(\d+) +(\d+) +(\d+)  (.*)$", line) for line in out.splitlines() if line.startswith("(")]
    assert len(rows) == 14 and rows[10].group(1) == "(1, 10)"
    assert len({row.end(2) for row in rows}) == 1 and len({row.start(5) for row in rows}) == 1  # aligned, neuron 10 too
    for row in rows:
        shown = row.group(5).split(" (")[0].replace("…, ", "").split(", ")
        values = [float(v) for v in shown]
        assert values == sorted(values) and len(set(values)) == len(values), row.group(0)
    assert any("distinct" in row.group(5) for row in rows)


@settings(max_examples=60, deadline=None)
@given(st.fractions(max_denominator=10**30).filter(bool), st.integers(-60, 60))
def test_scientific_text_is_the_value_rounded_to_three_digits(value, shift):
    value *= Fraction(10) ** shift
    text = scientific_text(value)
    mantissa, exponent = text.split("e")
    m = Fraction(mantissa)
    assert 1 <= abs(m) < 10 and len(mantissa.lstrip("-").replace(".", "")) == 3
    rounded = m * Fraction(10) ** int(exponent)
    assert abs(value - rounded) <= Fraction(10) ** (int(exponent) - 2) / 2  # half a unit in the last digit shown
    assert (rounded > 0) == (value > 0)


def test_long_numbers_are_abbreviated_with_their_length_and_exact_on_demand():
    x = Fraction(-7243, 100000) + Fraction(1, 10**30)
    digits = len(str(-x.numerator)) + len(str(x.denominator))
    assert number_text(x) == f"-7.24e-2 (exact: {digits} digits)" and digits == 60
    assert number_text(x, exact=True) == str(x) and vector_text([1, x]) == "(1, ~-7.24e-2)"
    with exact_numbers():
        assert number_text(x) == str(x) and vector_text([x]) == f"({x})"
    assert number_text(Fraction(-40503, 65536)) == "-40503/65536"  # short exact numbers stay exact


# -- the survey across depth: identifiability verdicts and recovery outcomes --------------------------------


def by_hand(arch, seed, max_seconds):
    """The verdict and the recovery outcome of one surveyed network, computed here without the CLI."""
    from polyrelu import (
        equivalent,
        identifiability_report,
        network_oracle,
        recover_network,
        same_function,
    )

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
    import polyrelu.cli.survey
    from polyrelu import recover_network

    def wrong(oracle, n0, **kwargs):
        result = recover_network(oracle, n0, **kwargs)
        shifted = ReLUNetwork(result.network.weights, [*result.network.biases[:-1], [result.network.biases[-1][0] + 1]])
        return type(result)(**{**result.__dict__, "network": shifted})

    monkeypatch.setattr(polyrelu.cli.survey, "recover_network", wrong)
    code, out, err = run(capsys, *SURVEY, "--depths", "1", "--samples", "1")
    assert code == 70
    assert table_rows(out)["2→2→1"]["recovery: DIFFERENT FUNCTION"] == "**1**"
    assert "COMPUTE A DIFFERENT FUNCTION" in out and "2→2→1 seed 3" in out
    assert one_line(err).startswith("polyrelu: error: 1 recovered networks compute a different function")


def test_survey_jobs_give_the_serial_table(capsys):
    argv = ["survey", "--depths", "1", "--widths", "2,3", "--samples", "3"]
    serial = run(capsys, *argv, "--jobs", "1")
    parallel = run(capsys, *argv, "--jobs", "2")
    assert serial[0] == parallel[0] == 0 and serial[1] == parallel[1]
    assert run(capsys, *argv, "--jobs", "0")[0] == 2


# -- drawings: --plot, --html, --window, --fill --------------------------------------------------------------


def test_complex_plot_and_html_with_window_title_from_the_file(tmp_path, capsys, monkeypatch):
    import polyrelu.cli as cli

    path = tmp_path / "mynet.json"
    save_network(ReLUNetwork(bent_line_network().weights, bent_line_network().biases), path)  # no name
    drawn = []
    real = cli.save_figure
    monkeypatch.setattr(cli, "save_figure", lambda ax, target: (drawn.append(ax), real(ax, target)))
    code, out, _ = run(capsys, "complex", str(path), "--plot", str(tmp_path / "c.png"), "--html",
                       str(tmp_path / "c.html"), "--window", "-1", "2", "-1/2", "3")
    assert code == 0 and f"written             {tmp_path / 'c.html'}" in out
    (ax,) = drawn
    assert ax.get_title() == "mynet: f-vector (3, 9, 7)"
    assert ax.get_xlim() == (-1.0, 2.0) and ax.get_ylim() == (-0.5, 3.0)
    page = (tmp_path / "c.html").read_text()
    assert page.count('"name":"cell ') == 7 and "mynet: f-vector (3, 9, 7)" in page


@pytest.mark.parametrize("argv, message", [
    (["complex", "builtin:bent-line", "--plot", "{dir}/c.png", "--window", "1", "0", "0", "1"], "XMIN = 1 is not below XMAX = 0"),
    (["complex", "builtin:bent-line", "--plot", "{dir}/c.png", "--window", "0", "1", "2", "x"], "the window is four numbers"),
    (["complex", "builtin:bent-line", "--window", "0", "1", "0", "1"], "add --plot FILE or --html FILE"),
    (["complex", "builtin:bent-line", "--html", "{dir}/c.htm"], "not one of .html"),
    (["complex", "builtin:bent-line", "--plot", "{dir}/c.png", "--fill", "class"], "--fill class needs a network with several outputs"),
    (["complex", "builtin:generic-2-3-2", "--html", "{dir}/c.html", "--fill", "output"], "--fill output colours by the value of a single output"),
    (["complex", "builtin:generic-4-3-1", "--html", "{dir}/c.html"], "--html shows complexes in 2 or 3 dimensions"),
    (["complex", "builtin:generic-3-3-1", "--plot", "{dir}/c.png"], "--plot draws networks with 2 inputs"),
    (["analyze", "builtin:generic-3-3-1", "--html", "{dir}/a.html", "--window", "0", "1", "0", "1"], "--window zooms a drawing of the plane"),
])
def test_bad_drawing_options_are_refused_before_any_work(tmp_path, capsys, argv, message):
    code, out, err = run(capsys, *[a.format(dir=tmp_path) for a in argv])
    assert code == 2 and message in err
    assert "f-vector" not in out and not list(tmp_path.iterdir())


def test_slice_html_in_3d_and_plot_in_slice_coordinates(tmp_path, capsys, monkeypatch):
    import polyrelu.cli.slicing as slicing

    points = tmp_path / "points.json"
    net = tmp_path / "net.json"
    save_network(ReLUNetwork.random((4, 3, 2), seed=1), net)
    points.write_text(json.dumps([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]]))
    code, out, _ = run(capsys, "slice", str(net), "--through", str(points), "--html", str(tmp_path / "s.html"),
                       "--fill", "class")
    assert code == 0 and "written             " + str(tmp_path / "s.html") in out
    page = (tmp_path / "s.html").read_text()
    assert '"type":"mesh3d"' in page and '"title":{"text":"t3"}' in page
    points.write_text(json.dumps([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]))
    drawn = []
    real = slicing.save_figure
    monkeypatch.setattr(slicing, "save_figure", lambda ax, target: (drawn.append(ax), real(ax, target)))
    code, _, _ = run(capsys, "slice", str(net), "--through", str(points), "--plot", str(tmp_path / "s.png"))
    assert code == 0 and (drawn[0].get_xlabel(), drawn[0].get_ylabel()) == ("t1", "t2")


# -- polyrelu decision --plot / --html: decision regions in the plane ----------------------------------------------


def three_classes(tmp_path):
    """f = (relu(x1), relu(x2), 1/2), saved as mynet.json without a name: class 2 near the origin's lower left."""
    path = tmp_path / "mynet.json"
    save_network(ReLUNetwork([[[1, 0], [0, 1]], [[1, 0], [0, 1], [0, 0]]], [[0, 0], [0, 0, Fraction(1, 2)]]), path)
    return path


def decision_figure(tmp_path, capsys, monkeypatch, *argv):
    import polyrelu.cli.decision as decision

    drawn = []
    real = decision.save_figure
    monkeypatch.setattr(decision, "save_figure", lambda ax, target: (drawn.append(ax), real(ax, target)))
    code, _, err = run(capsys, "decision", *argv, "--plot", str(tmp_path / "d.png"))
    assert code == 0, err
    assert (tmp_path / "d.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    (ax,) = drawn
    return ax


def fill_at(ax, point):
    """The fill colours of the regions drawn (zorder 0) that contain ``point``."""
    from matplotlib.collections import PolyCollection

    found = set()
    for collection in ax.collections:
        if isinstance(collection, PolyCollection) and collection.get_zorder() == 0:
            colours = collection.get_facecolors()
            for k, path in enumerate(collection.get_paths()):
                if path.contains_point(point):
                    found.add(tuple(colours[k % len(colours)]))
    return found


@pytest.mark.parametrize("window, classes", [
    (None, {0, 1, 2}),
    (("-1", "2", "-1", "2"), {0, 1, 2}),
    (("-2", "0", "-2", "0"), {2}),              # relu(x1) = relu(x2) = 0 < 1/2: one class, no boundary
    (("1", "3", "-3", "0"), {0}),
])
def test_decision_plot_fills_each_point_by_its_class_and_lists_only_the_classes_drawn(tmp_path, capsys, monkeypatch,
                                                                                      window, classes):
    from polyrelu.plot.regions import FillScale

    net_path = three_classes(tmp_path)
    ax = decision_figure(tmp_path, capsys, monkeypatch, str(net_path), *(["--window", *window] if window else []))
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [e for e in legend if e.startswith("class")] == [f"class {c}" for c in sorted(classes)]
    assert ("decision boundary" in legend) == (len(classes) > 1)
    assert ax.get_title() == "mynet: decision regions" and (ax.get_xlabel(), ax.get_ylabel()) == ("x1", "x2")
    f = polyrelu.cli.load(str(net_path))
    (x0, x1), (y0, y1) = ax.get_xlim(), ax.get_ylim()
    colour = FillScale("class", {}, "").class_colour
    # an exact oracle at points off the boundary: the colour drawn there is the colour of argmax f
    for i in range(1, 10):
        for j in range(1, 10):
            x = (Fraction(x0) + (Fraction(x1) - Fraction(x0)) * Fraction(i, 10) + Fraction(1, 97),
                 Fraction(y0) + (Fraction(y1) - Fraction(y0)) * Fraction(j, 10) + Fraction(1, 89))
            out = f(x)
            best = [c for c, v in enumerate(out) if v == max(out)]
            assert len(best) == 1 and best[0] in classes
            assert fill_at(ax, (float(x[0]), float(x[1]))) == {tuple(colour(best[0]))}


def test_decision_plot_and_html_of_a_slice_in_slice_coordinates(tmp_path, capsys, monkeypatch):
    net = tmp_path / "net.json"
    name = ReLUNetwork.random((4, 5, 3), seed=2).name
    save_network(ReLUNetwork.random((4, 5, 3), seed=2), net)
    points = tmp_path / "points.json"
    points.write_text(json.dumps([[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0]]))
    ax = decision_figure(tmp_path, capsys, monkeypatch, str(net), "--through", str(points), "--html",
                         str(tmp_path / "d.html"))
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("t1", "t2")
    title = f"{name}: decision regions on the slice through points.json"
    assert ax.get_title() == title
    page = (tmp_path / "d.html").read_text()
    assert '"title":{"text":"t2"}' in page and json.dumps(title) in page  # the page escapes the arrows
    # the page shows the network's own regions: those the boundary cuts are not one class's, so it may list fewer
    drawn = {t.get_text() for t in ax.get_legend().get_texts() if re.fullmatch(r"class \d+", t.get_text())}
    assert drawn and set(re.findall(r'"name":"(class \d+)"', page)) <= drawn


@pytest.mark.parametrize("argv, message", [
    (["--plot", "{dir}/d.png", "--window", "1", "0", "0", "1"], "XMIN = 1 is not below XMAX = 0"),
    (["--html", "{dir}/d.html", "--window", "0", "1", "1", "1"], "YMIN = 1 is not below YMAX = 1"),
    (["--window", "0", "1", "0", "1"], "add --plot FILE or --html FILE"),
    (["--plot", "{dir}/d.png", "--fill", "output"], "--fill output colours by the value of a single output"),
])
def test_bad_decision_drawing_options_exit_2_before_any_work(tmp_path, capsys, argv, message):
    net = three_classes(tmp_path)
    code, out, err = run(capsys, "decision", str(net), *[a.format(dir=tmp_path) for a in argv])
    assert code == 2 and message in err
    assert "decision complex" not in out and sorted(p.name for p in tmp_path.iterdir()) == ["mynet.json"]


@pytest.mark.parametrize("argv, message", [
    (["builtin:generic-3-3-2"], "decision regions in the plane"),
    (["builtin:bent-line", "--level", "0"], "--plot and --html draw the decision regions of a classifier"),
])
def test_decision_plot_needs_a_classifier_in_the_plane(tmp_path, capsys, argv, message):
    code, out, err = run(capsys, "decision", *argv, "--plot", str(tmp_path / "d.png"))
    assert code == 2 and message in err and "complex" not in out and not list(tmp_path.iterdir())


@pytest.mark.parametrize("domain", [[], ["--domain", "box:-2,2"]])
def test_complex_jobs_2_builds_in_pieces_and_writes_the_serial_output(tmp_path, capsys, monkeypatch, domain):
    import polyrelu.complex._pieces as pieces
    from polyrelu.examples import seeded_gaussian_network

    monkeypatch.setattr(pieces, "SPLIT_CELLS", 0)  # split even this small complex
    split = []
    real = pieces.parallel_map
    monkeypatch.setattr(pieces, "parallel_map", lambda function, tasks, **options: (
        split.append((len(tasks), options)), real(function, tasks, **options))[1])
    path = tmp_path / "net.json"
    save_network(seeded_gaussian_network((2, 5, 4, 1)), path)
    outputs = {}
    for jobs in ("1", "2"):
        code, out, err = run(capsys, "complex", str(path), *domain, "--jobs", jobs, "-o", str(tmp_path / f"{jobs}.json"))
        assert code == 0, err
        outputs[jobs] = (out.replace(str(tmp_path / f"{jobs}.json"), "FILE"), (tmp_path / f"{jobs}.json").read_bytes())
    assert len(split) == 1 and split[0][0] >= 2 and split[0][1].get("n_jobs") == 2  # --jobs 1 stayed serial
    assert outputs["1"] == outputs["2"]


def test_complex_jobs_and_scheduler_are_checked_before_any_work(capsys):
    code, out, err = run(capsys, "complex", "builtin:bent-line", "--jobs", "0")
    assert code == 2 and "--jobs 0" in err and not out
    code, out, err = run(capsys, "complex", "builtin:bent-line", "--scheduler", " ")
    assert code == 2 and "--scheduler" in err and not out


def test_decision_html_draws_the_decision_boundary_where_two_classes_tie(tmp_path, capsys):
    """The page's 'decision boundary' trace: every segment lies where two classes of f are maximal (exact values of
    f = (relu(x1), relu(x2), 1/2) at the segments' ends and midpoints), and a window with one class has none."""
    net = three_classes(tmp_path)
    f = polyrelu.cli.load(str(net))

    def boundary_segments(*window):
        page_path = tmp_path / "d.html"
        code, _, err = run(capsys, "decision", str(net), "--html", str(page_path), *(["--window", *window] if window else []))
        assert code == 0, err
        page = page_path.read_text()
        match = re.search(r'\{"hoverinfo":"skip","line":\{[^}]*\},"mode":"lines","name":"decision boundary",'
                          r'"x":(\[[^\]]*\]),"y":(\[[^\]]*\])', page)
        if match is None:
            assert '"name":"decision boundary"' not in page
            return []
        xs, ys = json.loads(match.group(1)), json.loads(match.group(2))
        points = list(zip(xs, ys))
        return [points[k:k + 2] for k in range(0, len(points), 3)]

    segments = boundary_segments()
    assert len(segments) >= 3  # x1 = x2 beyond (1/2, 1/2), and x1 = 1/2, x2 = 1/2 on the two sides
    for a, b in segments:
        for t in (0, Fraction(1, 2), 1):
            x = [Fraction(p) + t * (Fraction(q) - Fraction(p)) for p, q in zip(a, b)]
            values = sorted(f(x), reverse=True)
            assert values[0] == values[1]  # two classes tie on the whole segment
    assert boundary_segments("-2", "0", "-2", "0") == []  # class 2 alone: no boundary to draw
