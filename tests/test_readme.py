"""The README's Python example runs as written and prints what its comments say."""

import contextlib
import io
import os
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_readme_example_runs_and_prints_what_it_promises(tmp_path):
    text = README.read_text()
    (block,) = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    out = io.StringIO()
    cwd = os.getcwd()
    os.chdir(tmp_path)  # the example writes net.json and deep.graphml
    try:
        with contextlib.redirect_stdout(out):
            exec(compile(block, str(README), "exec"), {})
    finally:
        os.chdir(cwd)
    lines = out.getvalue().splitlines()
    assert lines[0] == "2→2→1→1 11 3 8"
    assert lines[2] == "True True"
    assert lines[4] == "(3, 9, 7) 1 +++"
    assert lines[5] == "(3, 3, 2) 3"
    assert (tmp_path / "deep.graphml").stat().st_size > 0
