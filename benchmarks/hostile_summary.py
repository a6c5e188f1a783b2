"""Summary: the hostile-input corpus through load_network and every command that reads a network.

Run from the repository root::

    .venv/bin/python benchmarks/hostile_summary.py

The corpus (``tests/hostile/make_corpus.py``) is generated into a temporary
directory; every file goes through :func:`polyrelu.load_network` and through
``polyrelu info``, ``complex``, ``weights``, ``graph``, ``analyze`` and
``recover --from`` (in-process, :func:`polyrelu.cli.main`), and every regular
file as its own output (``complex NET -o NET``, a usage error). Prints markdown
tables: how many cases, and per outcome (the exception class of
``load_network``, the exit status of each command) how many cases had it;
then the bad outcomes, which must be 0: an exception that is not a
:class:`~polyrelu.errors.PolyReluError`, a traceback, a marker file (code from
a crafted file ran), an output file written by a failed command, stderr other
than one ``polyrelu: error: ...`` line for a failure, or an outcome other
than the one the corpus expects.
"""

import collections
import contextlib
import io
import sys
import tempfile
import time
from pathlib import Path

# the corpus lives with the tests
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from hostile.make_corpus import COMMANDS, command_line, make_corpus, markers  # noqa: E402

from polyrelu import PolyReluError, load_network  # noqa: E402
from polyrelu.cli import main  # noqa: E402

# `complex NET -o NET` on every regular file: the output path is the input, a usage error
SELF_OUTPUT = "complex NET -o NET"


def expected(case, command):
    codes = case.exit_codes[command]
    return codes if isinstance(codes, frozenset) else frozenset({codes})


def run():
    bad = []
    loads = collections.Counter()
    exits = {command: collections.Counter() for command in (*COMMANDS, SELF_OUTPUT)}
    with tempfile.TemporaryDirectory() as tmp:
        directory, out = Path(tmp) / "corpus", Path(tmp) / "out"
        out.mkdir()
        start = time.perf_counter()
        cases = make_corpus(directory)
        built = time.perf_counter() - start
        start = time.perf_counter()
        for case in cases:
            try:
                load_network(directory / case.name)
                outcome = None
            except PolyReluError as exc:
                outcome = type(exc)
            except Exception as exc:  # noqa: BLE001  a bug: counted, not raised
                outcome = type(exc)
                bad.append(f"{case.name}: load_network raised {type(exc).__name__}: {exc}")
            loads["loaded" if outcome is None else outcome.__name__] += 1
            if outcome is not case.load_error:
                bad.append(f"{case.name}: load_network gave {outcome}, expected {case.load_error}")
            for command in COMMANDS:
                output = out / f"{case.name}.{command}.json"
                stdout, stderr = io.StringIO(), io.StringIO()
                with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
                    code = main(command_line(command, directory / case.name, output))
                exits[command][code] += 1
                lines = stderr.getvalue().splitlines()
                where = f"{case.name} ({command}, exit {code})"
                if code not in expected(case, command):
                    bad.append(f"{where}: expected {sorted(expected(case, command))}")
                if "Traceback" in stdout.getvalue() + stderr.getvalue():
                    bad.append(f"{where}: a traceback")
                quiet = code == 0 or command in case.silent
                if (quiet and lines) or (not quiet and (len(lines) != 1 or not lines[0].startswith("polyrelu: error: "))):
                    bad.append(f"{where}: stderr {lines}")
                if code != 0 and output.exists():
                    bad.append(f"{where}: wrote {output.name}")
            path = directory / case.name
            if path.is_file() and not path.is_symlink():  # the output is the input: refused before reading
                before = path.read_bytes()
                with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                    code = main(["complex", str(path), "-o", str(path)])
                exits[SELF_OUTPUT][code] += 1
                if code != 2 or path.read_bytes() != before:
                    bad.append(f"{case.name} (complex -o itself, exit {code}): expected 2 and the file unchanged")
            if markers(directory):
                bad.append(f"{case.name}: code from the file ran: {markers(directory)}")
        swept = time.perf_counter() - start
    return cases, loads, exits, bad, built, swept


def main_summary():
    cases, loads, exits, bad, built, swept = run()
    print(f"{len(cases)} cases ({sum(c.bomb for c in cases)} bombs), built in {built:.1f} s, "
          f"swept through load_network and {len(COMMANDS)} commands in {swept:.1f} s\n")
    print("| load_network | cases |")
    print("|---|---:|")
    for outcome, count in sorted(loads.items(), key=lambda item: (-item[1], item[0])):
        print(f"| {outcome} | {count} |")
    codes = sorted({code for counter in exits.values() for code in counter})
    print("\n| command | " + " | ".join(f"exit {code}" for code in codes) + " |")
    print("|---|" + "---:|" * len(codes))
    for command, counter in exits.items():
        print(f"| {command} | " + " | ".join(str(counter.get(code, 0)) for code in codes) + " |")
    print(f"\nbad outcomes (other exceptions, tracebacks, marker files, outputs of failed commands, "
          f"stderr not one error line, unexpected outcomes): {len(bad)}")
    for line in bad:
        print(f"- {line}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main_summary())
