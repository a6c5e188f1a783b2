"""Outputs are never lost: every writer replaces its target atomically, also under Ctrl-C and SIGTERM.

In-process, each writer is made to fail in the middle of writing (``json.dump``,
``savefig`` or the XML writer write part of the file, then raise): the previous
file must be byte-for-byte intact and no temporary file may remain. Out of
process, ``python -m polyrelu`` is interrupted with SIGINT and SIGTERM while it
computes and while its temporary output file exists.
"""

import json
import os
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import igraph
import matplotlib
import pytest

from polyrelu import canonical_complex, tropical_weights
from polyrelu.analysis import analyze
from polyrelu.atomic import atomic_write
from polyrelu.cli import main
from polyrelu.dependency import dependency_graph
from polyrelu.errors import OutputPathError
from polyrelu.examples import bent_line_network, generic_network
from polyrelu.graphs import write_graphml
from polyrelu.plot import plot_dependency_graph, save_figure
from polyrelu.tropical import breakpoint_complex

matplotlib.use("Agg")

ROOT = Path(__file__).resolve().parents[1]
PREVIOUS = b'{"previous": "a good file written earlier"}\n'
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def previous(tmp_path):
    """``make(name)``: a file with known content in an otherwise empty directory."""

    def make(name):
        target = tmp_path / name
        target.write_bytes(PREVIOUS)
        return target

    return make


def assert_untouched(target):
    assert target.read_bytes() == PREVIOUS
    assert sorted(os.listdir(target.parent)) == [target.name], "a temporary file was left behind"


def fail_midway(fh, *_, **__):
    """Write part of the output, then fail as a full disk or a bug would."""
    fh.write(b"<partial" if "b" in getattr(fh, "mode", "") else "{partial")
    raise RuntimeError("failed in the middle of writing")


@pytest.fixture(scope="module")
def graph():
    net = generic_network((2, 3, 2, 1), seed=2)
    return dependency_graph(breakpoint_complex(tropical_weights(canonical_complex(net))))


def test_dependency_graph_json_survives_a_failing_write(graph, previous, monkeypatch):
    target = previous("g.json")
    monkeypatch.setattr(json, "dump", lambda obj, fh, **kw: fail_midway(fh))
    with pytest.raises(RuntimeError):
        graph.write_json(target)
    assert_untouched(target)


def test_dependency_graph_graphml_survives_a_failing_write(graph, previous, monkeypatch):
    target = previous("g.graphml")
    monkeypatch.setattr(ET.ElementTree, "write", lambda self, fh, **kw: fail_midway(fh))
    with pytest.raises(RuntimeError):
        graph.write_graphml(target)
    assert_untouched(target)
    with pytest.raises(RuntimeError):
        write_graphml(igraph.Graph(n=2, edges=[(0, 1)], directed=True), target)
    assert_untouched(target)


def test_figure_survives_a_failing_savefig(graph, previous, monkeypatch):
    from matplotlib.figure import Figure

    target = previous("g.png")
    monkeypatch.setattr(Figure, "savefig", lambda self, fh, **kw: fail_midway(fh))
    with pytest.raises(RuntimeError):
        save_figure(plot_dependency_graph(graph), target)
    assert_untouched(target)


@pytest.fixture(scope="module")
def analysis():
    return analyze(bent_line_network(), inradius=False)


def test_analysis_json_and_plot_survive_failing_writes(analysis, previous, monkeypatch):
    from matplotlib.figure import Figure

    target, picture = previous("a.json"), previous("a.png")
    with monkeypatch.context() as m:
        m.setattr(json, "dump", lambda obj, fh, **kw: fail_midway(fh))
        with pytest.raises(RuntimeError):
            analysis.write_json(target)
    assert target.read_bytes() == PREVIOUS
    monkeypatch.setattr(Figure, "savefig", lambda self, fh, **kw: fail_midway(fh))
    with pytest.raises(RuntimeError):
        analysis.plot(picture)
    assert picture.read_bytes() == PREVIOUS
    assert sorted(os.listdir(target.parent)) == ["a.json", "a.png"]


def test_weights_command_output_survives_a_failing_write(tmp_path, previous, monkeypatch, capsys):
    target = previous("w.json")
    monkeypatch.setattr(json, "dump", lambda obj, fh, **kw: fail_midway(fh))
    code = main(["weights", "builtin:bent-line", "-o", str(target)])
    err = capsys.readouterr().err
    assert code == 70  # a RuntimeError is not a PolyReluError: reported as a bug
    assert err.count("\n") == 1 and "RuntimeError: failed in the middle of writing" in err and "--debug" in err
    assert_untouched(target)


def test_writers_replace_the_previous_file_when_they_succeed(graph, analysis, previous):
    for name, write in [
        ("g.json", graph.write_json),
        ("g.graphml", graph.write_graphml),
        ("a.json", analysis.write_json),
    ]:
        target = previous(name)
        write(target)
        assert target.read_bytes() != PREVIOUS and target.stat().st_size > 100
    picture = previous("c.svg")
    analysis.plot(picture)
    assert picture.read_bytes().lstrip().startswith((b"<?xml", b"<svg"))
    assert sorted(os.listdir(picture.parent)) == ["a.json", "c.svg", "g.graphml", "g.json"]


@pytest.mark.parametrize("name", ["x", "x.png", "x.PNG", "x.svg", "x.pdf"])
def test_figure_format_comes_from_the_suffix_and_no_suffix_is_png(graph, tmp_path, name):
    save_figure(plot_dependency_graph(graph), tmp_path / name)
    assert os.listdir(tmp_path) == [name]  # exactly that path: no ".png" appended
    head = (tmp_path / name).read_bytes()[:64]
    expected = {"": PNG, ".png": PNG, ".svg": b"<?xml", ".pdf": b"%PDF"}[Path(name).suffix.lower()]
    assert head.startswith(expected)


def test_library_writers_check_the_path_before_any_work(graph, analysis, tmp_path, monkeypatch):
    monkeypatch.setattr(type(graph), "to_json", lambda self: pytest.fail("computed before the path was checked"))
    monkeypatch.setattr(type(analysis), "to_json", lambda self: pytest.fail("computed before the path was checked"))
    with pytest.raises(OutputPathError, match="does not exist"):
        graph.write_json(tmp_path / "missing" / "g.json")
    with pytest.raises(OutputPathError, match="is a directory"):
        analysis.write_json(tmp_path)
    monkeypatch.setattr("polyrelu.analysis.plot_complex", lambda *a, **k: pytest.fail("drawn before the path was checked"))
    with pytest.raises(OutputPathError, match=r"\.png, \.svg or \.pdf"):
        analysis.plot(tmp_path / "a.jpg")
    assert os.listdir(tmp_path) == []


# -- the command line interrupted ------------------------------------------------------------------------

# about 1 s of computing, then an export of several MB: time to catch both phases
SLOW_EXPORT = "builtin:randn-3-8-8-1"


def interrupt(tmp_path, command, signum, moment):
    """Run ``python -m polyrelu COMMAND SLOW_EXPORT -o prev.json`` and send ``signum`` at ``moment``.

    ``"compute"``: once the command has printed its first line (the network is
    loaded, the work begins). ``"write"``: as soon as the temporary output file
    appears next to prev.json.
    """
    target = tmp_path / "prev.json"
    target.write_bytes(PREVIOUS)
    proc = subprocess.Popen(
        [sys.executable, "-m", "polyrelu", command, SLOW_EXPORT, "-o", str(target)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        if moment == "compute":
            assert proc.stdout.readline().startswith(b"network"), "the command did not start"
        else:
            deadline = time.monotonic() + 60
            while not any(n.startswith(".prev.json.") and n.endswith(".tmp") for n in os.listdir(tmp_path)):
                assert proc.poll() is None, "the command ended without a temporary file: not written atomically"
                assert time.monotonic() < deadline
                time.sleep(0.002)
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err.decode()


@pytest.mark.parametrize(
    "command, signum, moment",
    [
        ("complex", signal.SIGINT, "compute"),
        ("complex", signal.SIGINT, "write"),
        ("complex", signal.SIGTERM, "compute"),
        ("complex", signal.SIGTERM, "write"),
        ("weights", signal.SIGINT, "write"),
        ("weights", signal.SIGTERM, "write"),
    ],
    ids=lambda value: value.name if isinstance(value, signal.Signals) else value,
)
def test_an_interrupted_command_leaves_the_previous_output_intact(tmp_path, command, signum, moment):
    code, err = interrupt(tmp_path, command, signum, moment)
    expected = {signal.SIGINT: (130, "polyrelu: interrupted"), signal.SIGTERM: (143, "polyrelu: terminated")}[signum]
    assert (code, err.splitlines()) == (expected[0], [expected[1]])
    assert_untouched(tmp_path / "prev.json")


def test_main_restores_the_sigterm_handler():
    before = signal.getsignal(signal.SIGTERM)
    assert main(["complex", "builtin:bent-line", "--domain", "box:1,0"]) == 2
    assert signal.getsignal(signal.SIGTERM) is before


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_an_interrupt_right_after_the_temporary_file_is_made_leaves_nothing_behind(tmp_path, monkeypatch, signum):
    """The window between creating the temporary file and knowing its name: the signal waits until it is known."""
    target = tmp_path / "out.json"
    target.write_text("previous")
    real_open = os.open

    def open_then_interrupted(path, *args, **kwargs):
        fd = real_open(path, *args, **kwargs)
        if str(path).startswith(str(tmp_path)):
            os.kill(os.getpid(), signum)  # the handler runs before the descriptor is returned
        return fd

    def interrupted(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", open_then_interrupted)
    previous_handler = signal.signal(signal.SIGTERM, interrupted)
    try:
        with pytest.raises(KeyboardInterrupt):
            with atomic_write(target) as fh:
                fh.write("new")
    finally:
        signal.signal(signal.SIGTERM, previous_handler)
    assert target.read_text() == "previous"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.json"]


def test_save_figure_writes_the_whole_figure_of_an_axes_in_a_subfigure(graph, tmp_path):
    import matplotlib.pyplot as plt

    figure = plt.figure()
    left, right = figure.subfigures(1, 2)
    ax = plot_dependency_graph(graph, ax=left.subplots())
    right.subplots().plot([0, 1], [1, 0])
    save_figure(ax, tmp_path / "both.png")
    assert (tmp_path / "both.png").read_bytes().startswith(PNG)
    assert figure.number not in plt.get_fignums()  # closed, as for an Axes of a plain figure
