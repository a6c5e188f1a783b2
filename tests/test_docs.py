"""The documentation does not rot: the README's and the quick start's examples run, the site builds cleanly,
and the tutorial, FAQ and hand-over pages run as doctests with the outputs they show."""

import contextlib
import doctest
import io
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


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


def test_quickstart_example_runs_and_prints_what_it_promises(tmp_path):
    (block,) = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "quickstart.md").read_text(), flags=re.S)
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(block, "quickstart.md", "exec"), {})
    lines = out.getvalue().splitlines()
    assert lines[1] == "(3, 2) 2"
    assert lines[3:] == ["identifiable (theorem conditions hold)", "True", "not identifiable"]


def test_recovery_page_examples_run_and_print_what_they_promise():
    """The page's blocks run in order, in one namespace (the known-layers example uses the first's network)."""
    blocks = re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "recovery.md").read_text(), flags=re.S)
    assert len(blocks) == 2
    out, namespace = io.StringIO(), {}
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(compile(block, "recovery.md", "exec"), namespace)
    lines = out.getvalue().splitlines()
    status, queries, widths = lines[0].split(" ", 2)
    assert (status, widths) == ("recovered", "(3, 2)") and int(queries) > 0
    assert lines[1:] == ["True", "recovered (3, 2)"]


def test_documentation_site_builds_without_warnings(tmp_path):
    import subprocess
    import sys

    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, capture_output=True, text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "WARNING" not in result.stderr
    assert (tmp_path / "site" / "api" / "index.html").read_text().count("functional_dimension") > 3


# -- pages whose examples are doctests: every `>>>` line runs, with the output shown ---------------------------
def run_doctests(page):
    result = doctest.testfile(
        str(ROOT / "docs" / page), module_relative=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.attempted > 0, f"{page} has no doctest"
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in docs/{page} failed (printed above)"


def test_tutorial_page_runs_as_shown():
    pytest.importorskip("torch")
    run_doctests("tutorial.md")


def test_faq_page_runs_as_shown():
    run_doctests("faq.md")


def test_handover_page_runs_as_shown():
    pytest.importorskip("sage.all__sagemath_polyhedra")
    pytest.importorskip("plotly")
    run_doctests("handover.md")


def _public_classes():
    import importlib
    import inspect
    import pkgutil

    import polyrelu

    found = {}
    for info in pkgutil.walk_packages(polyrelu.__path__, "polyrelu."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if inspect.isclass(obj) and obj.__module__.startswith("polyrelu"):
                found[obj.__module__, obj.__qualname__] = obj
    return sorted(found.items())


def test_examples_of_re_homed_classes_run_under_make_test():
    """doctest skips the methods of a class whose ``__module__`` is not the module it searches; the package
    re-homes subpackage classes (``polyrelu.complex.CanonicalComplex`` is defined in ``_canonical``), so their
    methods' examples run only through the defining module's ``__test__``. A class added without that entry
    would let its examples rot unseen."""
    import inspect

    checked = 0
    for (home, qualname), cls in _public_classes():
        methods = [
            getattr(m, "__func__", getattr(m, "fget", m)) for m in vars(cls).values()
        ]
        # generated methods (dataclasses, namedtuples) have no examples of ours
        defining = {
            f.__globals__["__name__"] for f in methods if inspect.isfunction(f) and f.__globals__["__name__"].startswith("polyrelu")
        }
        examples = [t for t in doctest.DocTestFinder().find(cls, qualname, module=False) if t.examples]
        if not examples or defining <= {home}:
            continue
        checked += 1
        for module_name in defining - {home}:
            module = __import__(module_name, fromlist=["__test__"])
            assert cls in getattr(module, "__test__", {}).values(), (
                f"{home}.{qualname}: its examples are in {module_name}, which does not list it in __test__"
            )
    assert checked >= 3  # CanonicalComplex, Cell, DependencyGraph at least
