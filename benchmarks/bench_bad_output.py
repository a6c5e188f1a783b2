"""Benchmark: how long ``polyrelu complex NET -o BAD`` takes to fail, for a tiny and for large networks.

Run from the repository root::

    .venv/bin/python benchmarks/bench_bad_output.py            # best of 20 in-process, 5 subprocess runs
    .venv/bin/python benchmarks/bench_bad_output.py --quick    # best of 5 and 2

The output path is in a directory that does not exist. The command line checks
every output path right after parsing its arguments, before the network is
loaded, so the time to the error must not depend on the network: the ratio
large/tiny must stay near 1. For scale, the last column is what the command
would have spent before writing had the path been good: loading the network,
and building its canonical complex (not for the large file, whose complex is
out of reach).

Networks (written to a temporary directory first):

- tiny: the worked example 2→2→1→1 (1 KB);
- slow complex: the seed-0 Gaussian 3→16→16→1, whose complex (about 60,000 cells) takes seconds;
- large file: the seed-0 Gaussian 2→1000→1000→1, a JSON file of about 43 MB that takes seconds to load.
"""

import argparse
import contextlib
import io
import os
import subprocess
import sys
import tempfile
import time

from _timing import best_of

from polyrelu import canonical_complex, load_network, save_network
from polyrelu.cli import main
from polyrelu.examples import bent_line_network, seeded_gaussian_network

NETWORKS = [
    ("tiny", lambda: bent_line_network(), True),
    ("slow complex", lambda: seeded_gaussian_network((3, 16, 16, 1)), True),
    ("large file", lambda: seeded_gaussian_network((2, 1000, 1000, 1)), False),
]


def in_process(path, bad):
    with contextlib.redirect_stderr(io.StringIO()) as err:
        code = main(["complex", path, "-o", bad])
    assert code == 2 and "does not exist" in err.getvalue(), err.getvalue()


def as_subprocess(path, bad):
    done = subprocess.run([sys.executable, "-m", "polyrelu", "complex", path, "-o", bad], capture_output=True, text=True)
    assert done.returncode == 2 and "does not exist" in done.stderr, done.stderr


def reference(path, build):
    """Seconds to load the network and (when ``build``) build its complex: the work a good path would wait for."""
    start = time.perf_counter()
    net = load_network(path)
    if build:
        canonical_complex(net)
    return time.perf_counter() - start


def run(repeat_in, repeat_sub):
    """One row per network; the networks take turns in every round, so that load on the machine hits all alike."""
    with tempfile.TemporaryDirectory() as tmp:
        bad = os.path.join(tmp, "no-such-directory", "out.json")
        files = []
        for name, make, build in NETWORKS:
            path = os.path.join(tmp, name.replace(" ", "-") + ".json")
            net = make()
            save_network(net, path)
            files.append((name, str(net.architecture), path, build))
        fastest = {name: [float("inf"), float("inf")] for name, *_ in files}
        for round_ in range(max(repeat_in, repeat_sub)):
            for name, _, path, _ in files:
                if round_ < repeat_in:
                    fastest[name][0] = min(fastest[name][0], best_of(1, lambda: in_process(path, bad))[0])
                if round_ < repeat_sub:
                    fastest[name][1] = min(fastest[name][1], best_of(1, lambda: as_subprocess(path, bad))[0])
        return [(name, arch, os.path.getsize(path), *fastest[name], reference(path, build), build)
                for name, arch, path, build in files]


def report(rows):
    print("| network | architecture | file | error in-process | error as subprocess | load (+ complex) with a good path |")
    print("|---|---|---:|---:|---:|---:|")
    for name, arch, size, t_in, t_sub, work, build in rows:
        shown = f"{size / 1e6:.1f} MB" if size > 1e5 else f"{size / 1e3:.1f} KB"
        print(f"| {name} | {arch} | {shown} | {t_in * 1e3:.2f} ms | {t_sub * 1e3:.0f} ms | "
              f"{work:.2f} s{'' if build else ' (load only)'} |")
    tiny = rows[0]
    for name, _, _, t_in, t_sub, work, _ in rows[1:]:
        print(f"| ratio {name} / tiny | | | {t_in / tiny[3]:.2f} | {t_sub / tiny[4]:.2f} | {work / tiny[5]:.0f} |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    options = parser.parse_args()
    report(run(5, 2) if options.quick else run(20, 5))
