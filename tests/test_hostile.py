"""Hostile input, swept: every crafted file through load_network and every command that reads a network.

The corpus (``tests/hostile/make_corpus.py``) is generated into a temporary
directory: malformed and foreign JSON, forged and bomb archives, crafted
pickles, odd tensors, file-system oddities. For each file:

- :func:`polyrelu.load_network` raises exactly the expected
  :class:`~polyrelu.errors.PolyReluError` subclass, or loads;
- each command (``info``, ``complex``, ``weights``, ``graph``, ``analyze``,
  ``recover --from``), run in-process through :func:`polyrelu.cli.main`, exits
  with the expected status, prints no traceback and at most one line on
  stderr (exactly one, ``polyrelu: error: ...``, when it fails with an
  error), and creates no output file when it fails;
- no marker file appears, ever: no crafted pickle ran;
- for the bombs (forged sizes, decompression bombs, stride-0 tensors) the
  peak of traced memory stays below :data:`BOMB_BYTES`;
- pointing the output at the input itself is a usage error (exit 2) found
  before the file is read, and the file is left as it was.

Then property tests with the strategies of ``tests/hostile/strategies.py``:
any network JSON text, ``.npz`` archive or state dict either loads to exactly
what it says, or is refused with a PolyReluError, never another exception.
Individual cases with their messages are tested in ``tests/test_io.py`` and
``tests/test_cli.py``; this is the systematic sweep.
"""

import tracemalloc
import zipfile

import pytest
from hostile.make_corpus import (
    COMMANDS,
    RECOVER_RESULT,
    command_line,
    make_corpus,
    markers,
)
from hostile.strategies import (
    build_state_dict,
    json_network_reference,
    network_json_texts,
    npz_archives,
    npz_reference,
    state_dict_reference,
    state_dict_specs,
    write_npz_archive,
)
from hypothesis import HealthCheck, event, find, given, settings

from polyrelu import PolyReluError, load_network
from polyrelu.cli import main

# Peak traced memory allowed while refusing a bomb: the files declare gigabytes.
BOMB_BYTES = 16 << 20
PROPERTY = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    directory = tmp_path_factory.mktemp("corpus")
    return directory, make_corpus(directory)


def traced(function, *args):
    """``(result or exception, peak traced bytes)`` of a call; numpy reports its buffers to tracemalloc."""
    tracemalloc.start()
    try:
        try:
            result = function(*args)
        except Exception as exc:  # noqa: BLE001  returned for the caller's assertions
            result = exc
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_corpus_covers_every_family(corpus):
    directory, cases = corpus
    suffixes = {case.name.rsplit(".", 1)[-1] for case in cases}
    assert {"json", "npz", "pt", "pth", "txt"} <= suffixes
    assert sum(case.bomb for case in cases) >= 4 and sum(case.load_error is None for case in cases) >= 5
    assert all((directory / case.name).is_symlink() or (directory / case.name).exists() for case in cases)
    assert markers(directory) == []


def side_effects(where, case, peak, directory):
    """What a hostile file must never cause, whatever the outcome: memory beyond the bomb bound, code run."""
    found = []
    if case.bomb and peak > BOMB_BYTES:
        found.append(f"{where}: {peak:,} bytes traced while refusing a bomb")
    if markers(directory):
        found.append(f"{where}: code from the file ran: {markers(directory)}")
    return found


def test_load_network_refuses_each_case_with_its_error_or_loads_it(corpus):
    directory, cases = corpus
    failures = []
    for case in cases:
        result, peak = traced(load_network, directory / case.name)
        got = type(result) if isinstance(result, Exception) else None
        if got is not case.load_error:
            failures.append(f"{case.name}: expected {getattr(case.load_error, '__name__', 'a network')}, got {got or result!r}: {result}")
        elif got is not None and str(directory) not in str(result) and case.name not in str(result):
            failures.append(f"{case.name}: the message does not name the file: {result}")
        failures += side_effects(case.name, case, peak, directory)
    assert not failures, "\n".join(failures)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_on_every_case(corpus, tmp_path, capsys, command):
    directory, cases = corpus
    failures = []
    for case in cases:
        output = tmp_path / f"{case.name}.out.json"
        argv = command_line(command, directory / case.name, output)
        # tracing slows every allocation down: only for the bombs, whose memory is the point
        code, peak = traced(main, argv) if case.bomb else (main(argv), 0)
        out, err = capsys.readouterr()
        lines = err.splitlines()
        expected = case.exit_codes[command]
        where = f"{case.name} ({command}, exit {code})"
        if code not in (expected if isinstance(expected, frozenset) else {expected}):
            failures.append(f"{where}: expected exit {expected}; stderr: {err.strip()[:300]}")
        if "Traceback" in err + out:
            failures.append(f"{where}: a traceback")
        if code == 0 or command in case.silent:
            if lines:
                failures.append(f"{where}: stderr should be empty: {lines}")
        elif len(lines) != 1 or not lines[0].startswith("polyrelu: error: "):
            failures.append(f"{where}: expected one line 'polyrelu: error: ...' on stderr, got {lines}")
        if code != 0 and output.exists():
            failures.append(f"{where}: an output file was written by a failed command")
        failures += side_effects(where, case, peak, directory)
    assert not failures, "\n".join(failures)


def test_recover_on_a_loaded_network_gives_a_result_not_an_error(corpus):
    _, cases = corpus
    loaded = [case for case in cases if case.load_error is None]
    assert loaded and all(case.exit_codes["recover"] == RECOVER_RESULT and "recover" in case.silent for case in loaded)


def test_an_output_path_that_is_the_input_is_a_usage_error_before_reading(corpus, capsys):
    directory, cases = corpus
    failures = []
    regular = [c for c in cases if (directory / c.name).is_file() and not (directory / c.name).is_symlink()]
    assert len(regular) > 40
    for case in regular:
        path = directory / case.name
        before = path.read_bytes()
        code = main(["complex", str(path), "-o", str(path)])
        err = capsys.readouterr().err
        # a .json input is refused as the output itself; others first for their suffix (-o writes JSON)
        reason = "is the input file" if path.suffix == ".json" else "is not one of .json"
        if code != 2 or reason not in err or path.read_bytes() != before:
            failures.append(f"{case.name}: exit {code}, {err.strip()[:200]}")
    assert not failures, "\n".join(failures)
    assert markers(directory) == []


# -- properties -----------------------------------------------------------------------------------------
@PROPERTY
@given(text=network_json_texts())
def test_any_network_json_loads_as_written_or_is_refused(tmp_path, text):
    path = tmp_path / "net.json"
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    try:
        net = load_network(path)
    except PolyReluError as exc:
        event(f"refused: {type(exc).__name__}")
        return
    event("loaded")
    weights, biases, name = json_network_reference(text)
    assert [list(map(list, W)) for W in net.weights] == weights
    assert [list(b) for b in net.biases] == biases
    assert net.name == name


@PROPERTY
@given(archive=npz_archives())
def test_any_npz_loads_as_written_or_is_refused(tmp_path, archive):
    members, compression = archive
    path = tmp_path / "net.npz"
    write_npz_archive(path, members, compression)
    try:
        net = load_network(path)
    except PolyReluError as exc:
        event(f"refused: {type(exc).__name__}")
        return
    event("loaded")
    weights, biases = npz_reference(path)
    assert [list(map(list, W)) for W in net.weights] == weights
    assert [list(b) for b in net.biases] == biases


@settings(PROPERTY, max_examples=60)
@given(spec=state_dict_specs())
def test_any_state_dict_loads_as_written_or_is_refused(tmp_path, spec):
    torch = pytest.importorskip("torch")
    state = build_state_dict(spec, torch)
    path = tmp_path / "state.pt"
    torch.save(state, path)
    try:
        net = load_network(path)
    except PolyReluError as exc:
        event(f"refused: {type(exc).__name__}")
        return
    event("loaded")
    weights, biases = state_dict_reference(state, torch)
    assert [list(map(list, W)) for W in net.weights] == weights
    assert [list(b) for b in net.biases] == biases


def test_the_strategies_draw_valid_files_too(tmp_path):
    """A property that never sees a valid file would pass by refusing everything: each strategy can draw one.

    ``find`` searches until a draw loads (a fixed number of draws could miss by chance: Hypothesis also mixes
    literals of the package's source into its draws, so any edit of the package moves them).
    """

    def loads(path):
        try:
            load_network(path)
        except PolyReluError:
            return False
        return True

    def json_loads(text):
        path = tmp_path / "d.json"
        path.write_bytes(text.encode("utf-8", "surrogatepass"))
        return loads(path)

    def npz_loads(archive):
        path = tmp_path / "d.npz"
        write_npz_archive(path, *archive)
        assert zipfile.is_zipfile(path)
        return loads(path)

    search = settings(max_examples=2000, deadline=None, database=None, derandomize=True)
    find(network_json_texts(), json_loads, settings=search)
    find(npz_archives(), npz_loads, settings=search)
