"""polyrelu imports one way: the layering declared in pyproject.toml, and no import cycles.

The layers are the ``layers`` contracts of ``[tool.importlinter]`` in
pyproject.toml, the one place they are declared: listed from the top, a layer
``"a : b"`` holding modules that may import each other. The checker here reads
every module under ``polyrelu/`` with :mod:`ast` and takes every import in it,
at module level and inside functions, absolute and relative; importing
``polyrelu.io.limits`` from outside ``polyrelu.io`` also runs
``polyrelu/io/__init__.py``, so it counts as importing ``polyrelu.io`` too.
It then reports, by file and line,

- a module without a layer (each contract's container must list the part of
  the module's name below it) and a layer naming no module;
- an import of a higher layer; a package's ``__init__`` sits above all of its
  own modules (so nothing inside polyrelu imports ``polyrelu`` itself);
- an import cycle between modules.

The checker's functions take module sources, so the tests below also run them
on the package with one import added and show that it is reported.
"""

import ast
import importlib.util
import itertools
from collections import namedtuple
from pathlib import Path

import networkx as nx
import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10: pytest itself depends on tomli there
    import tomli as tomllib

REPOSITORY = Path(__file__).resolve().parents[1]
PACKAGE = "polyrelu"

Import = namedtuple("Import", "importer line imported")
Layers = namedtuple("Layers", "container layers")  # layers: top first, each a tuple of names below container


# -- the checker -------------------------------------------------------------------------------------------
def package_sources(root=REPOSITORY / PACKAGE):
    """``{module name: (path, source, is_package)}`` for every ``.py`` file under ``root``."""
    sources = {}
    for path in sorted(root.rglob("*.py")):
        parts = path.relative_to(root.parent).with_suffix("").parts
        is_package = parts[-1] == "__init__"
        name = ".".join(parts[:-1] if is_package else parts)
        sources[name] = (path.relative_to(root.parent), path.read_text(encoding="utf-8"), is_package)
    return sources


def declared_layers(pyproject=REPOSITORY / "pyproject.toml"):
    """The ``layers`` contracts of ``[tool.importlinter]``, as :class:`Layers`."""
    contracts = tomllib.loads(pyproject.read_text(encoding="utf-8"))["tool"]["importlinter"]["contracts"]
    found = []
    for contract in contracts:
        if contract["type"] != "layers":
            continue
        assert len(contract["containers"]) == 1, "one container per layers contract"
        assert not any("|" in layer for layer in contract["layers"]), "independent layers ('|') are not used"
        layers = tuple(tuple(name.strip() for name in layer.split(":")) for layer in contract["layers"])
        found.append(Layers(contract["containers"][0], layers))
    return found


def imports(sources):
    """Every import of a polyrelu module in ``sources``, as :class:`Import` (inside functions too)."""
    found = set()
    for importer, (_, source, is_package) in sources.items():
        here = importer.split(".") if is_package else importer.split(".")[:-1]
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:  # relative: from the importer's package, one package up per extra dot
                    base = ".".join([*here[: len(here) - node.level + 1], *([node.module] if node.module else [])])
                # `from package import module` imports the module; `from module import name`, the module
                targets = [f"{base}.{alias.name}" for alias in node.names]
            else:
                continue
            for target in targets:
                parts = target.split(".")
                if parts[0] != PACKAGE:
                    continue
                while ".".join(parts) not in sources:  # a name in a module, or a module that does not exist
                    parts.pop()
                module = ".".join(parts)
                if module != importer:
                    found.add(Import(importer, node.lineno, module))
                # importing a module runs the __init__ of each package above it, but the importer's own
                # packages have already run by then
                for end in range(1, len(parts)):
                    package = ".".join(parts[:end])
                    if not (importer + ".").startswith(package + "."):
                        found.add(Import(importer, node.lineno, package))
    return sorted(found)


def _position(module, contract):
    """``(layer index, top first, or -1 for the container itself; the layer's names)``, or None if unassigned."""
    if module == contract.container:
        return -1, ()
    name = module[len(contract.container) + 1 :].split(".")[0]
    for index, layer in enumerate(contract.layers):
        if name in layer:
            return index, layer
    return None


def _describe(position, contract):
    index, layer = position
    return f"the package {contract.container} itself, above its modules" if index < 0 else f"layer '{' : '.join(layer)}'"


def _contains(container, module):
    return module == container or module.startswith(container + ".")


def layering_problems(sources, edges, contracts):
    """Modules without a layer, layers without a module, and imports of a higher layer; one line each."""
    problems = []
    for contract in contracts:
        for module in sources:
            if _contains(contract.container, module) and _position(module, contract) is None:
                problems.append(f"{sources[module][0]}: {module} has no layer in the contract of {contract.container} "
                                "in pyproject.toml [tool.importlinter]: add it where it belongs")
        for layer in contract.layers:
            for name in layer:
                if f"{contract.container}.{name}" not in sources:
                    problems.append(f"pyproject.toml: the layers of {contract.container} name {name}, which is not a module")
    for edge in edges:
        # the innermost container holding both modules decides
        holding = [c for c in contracts if _contains(c.container, edge.importer) and _contains(c.container, edge.imported)]
        if not holding:
            continue
        contract = max(holding, key=lambda c: len(c.container))
        importer, imported = _position(edge.importer, contract), _position(edge.imported, contract)
        if importer is None or imported is None:
            continue  # reported above
        if imported[0] < importer[0]:
            problems.append(f"{sources[edge.importer][0]}:{edge.line}: {edge.importer} ({_describe(importer, contract)}) "
                            f"imports {edge.imported} ({_describe(imported, contract)}), a higher layer")
    return problems


def import_cycles(sources, edges):
    """One cycle ``a → b → ... → a`` (file and line of each import) for each set of modules importing each other."""
    graph = nx.DiGraph()
    for edge in edges:
        if not graph.has_edge(edge.importer, edge.imported):  # the first line of several
            graph.add_edge(edge.importer, edge.imported, line=edge.line)
    cycles = []
    for component in sorted((c for c in nx.strongly_connected_components(graph) if len(c) > 1), key=min):
        first, inside = min(component), graph.subgraph(component)
        back = min((nx.shortest_path(inside, succ, first) for succ in sorted(inside.successors(first))), key=len)
        path = [first, *back]
        cycles.append("import cycle: " + "; ".join(
            f"{sources[a][0]}:{graph.edges[a, b]['line']} {a} → {b}" for a, b in itertools.pairwise(path)))
    return cycles


def check(sources, contracts):
    """Everything wrong with the imports of ``sources``: layering problems, then cycles."""
    edges = imports(sources)
    return layering_problems(sources, edges, contracts) + import_cycles(sources, edges)


# -- the package ------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sources():
    return package_sources()


@pytest.fixture(scope="module")
def contracts():
    return declared_layers()


def test_the_package_follows_its_declared_layering(sources, contracts):
    problems = check(sources, contracts)
    assert not problems, "\n".join(problems)


def test_the_layers_are_declared_for_the_package_and_for_recovery(contracts):
    assert [c.container for c in contracts] == ["polyrelu", "polyrelu.recovery", "polyrelu.topology", "polyrelu.identifiability"]
    top = [name for layer in contracts[0].layers for name in layer]
    assert top[:4] == ["__main__", "cli", "analysis", "report"] and "errors" in contracts[0].layers[-1]
    # the stages in the order they run, each importing only those before it (more may come in between)
    stages = [name for layer in contracts[1].layers for name in layer]
    order = ["driver", "output", "orientation", "tracing", "families", "first_layer", "partial", "breakpoints", "oracle", "numerics"]
    assert [s for s in stages if s in order] == order
    topology = [name for layer in contracts[2].layers for name in layer]
    assert topology == ["decision", "subcomplex", "_bounded", "_chains", "_elimination"]
    identifiability = [name for layer in contracts[3].layers for name in layer]
    assert identifiability[:2] == ["survey", "verdicts"] and identifiability[-1] == "_parameters"


def test_imports_are_read_everywhere_and_resolved(sources):
    edges = {(e.importer, e.imported) for e in imports(sources)}
    assert ("polyrelu.cli", "polyrelu.analysis") in edges  # module level, relative
    assert ("polyrelu.__main__", "polyrelu.cli") in edges  # absolute
    assert ("polyrelu.recovery.driver", "polyrelu.recovery.numerics") in edges
    # a submodule of another package: its package's __init__ runs too
    assert {("polyrelu.network", "polyrelu.geometry.rational"), ("polyrelu.network", "polyrelu.geometry")} <= edges
    # but not the importer's own packages
    assert ("polyrelu.io.files", "polyrelu.io") not in edges and ("polyrelu.io.files", "polyrelu") not in edges
    # inside a function, and `from package import module`
    synthetic = {"polyrelu": ("polyrelu/__init__.py", "", True),
                 "polyrelu.geometry": ("polyrelu/geometry/__init__.py", "", True),
                 "polyrelu.geometry.lattice": ("polyrelu/geometry/lattice.py", "", False),
                 "polyrelu.errors": ("polyrelu/errors.py", "", False),
                 "polyrelu.cli": ("polyrelu/cli.py", "def f():\n    from .geometry import lattice\n    from . import errors\n", False)}
    assert imports(synthetic) == [Import("polyrelu.cli", 2, "polyrelu.geometry"),
                                  Import("polyrelu.cli", 2, "polyrelu.geometry.lattice"),
                                  Import("polyrelu.cli", 3, "polyrelu.errors")]


# -- the checker fails where it must ---------------------------------------------------------------------
def with_line(sources, module, line):
    """``sources`` with ``line`` appended to ``module``'s source, and the line number it starts on."""
    path, source, is_package = sources[module]
    changed = dict(sources)
    changed[module] = (path, source.rstrip("\n") + "\n" + line + "\n", is_package)
    return changed, source.rstrip("\n").count("\n") + 2


@pytest.mark.parametrize("module, line, imported", [
    ("polyrelu.geometry.lattice", "def f():\n    from ..cli import main", "polyrelu.cli"),  # inside a function
    ("polyrelu.checks", "from .network import Architecture", "polyrelu.network"),
    ("polyrelu.network", "import polyrelu.io.limits", "polyrelu.io.limits"),  # absolute
    ("polyrelu.network", "from .io.limits import read_json", "polyrelu.io"),  # the package's __init__ runs
    ("polyrelu.recovery.numerics", "from .driver import recover_network", "polyrelu.recovery.driver"),
    ("polyrelu.recovery.oracle", "from . import breakpoints", "polyrelu.recovery.breakpoints"),
    ("polyrelu.cli", "from .. import __version__", "polyrelu"),  # the package itself is above everything
    ("polyrelu.analysis", "from .report import network_report\nfrom .cli import main", "polyrelu.cli"),
])
def test_an_upward_import_is_reported_with_its_file_and_line(sources, contracts, module, line, imported):
    changed, lineno = with_line(sources, module, line)
    lineno += line.count("\n")
    problems = check(changed, contracts)
    path = sources[module][0]
    assert any(p.startswith(f"{path}:{lineno}: {module} (") and f" imports {imported} (" in p and "a higher layer" in p
               for p in problems), problems


def test_an_import_within_a_layer_is_allowed_but_a_cycle_is_not(sources, contracts):
    # plot imports dependency (one layer); dependency importing plot closes the circle
    changed, lineno = with_line(sources, "polyrelu.dependency._graph", "def f():\n    from ..plot import save_figure")
    problems = check(changed, contracts)
    assert len(problems) == 1 and problems[0].startswith("import cycle: "), problems
    assert f"polyrelu/dependency/_graph.py:{lineno + 1} polyrelu.dependency._graph → polyrelu.plot" in problems[0]
    assert "polyrelu.plot.dependency → polyrelu.dependency" in problems[0]


def test_a_cycle_through_several_modules_is_reported(sources, contracts):
    # geometry.lattice imports graphs (one layer); graphs.dag importing geometry closes a circle of four modules
    changed, lineno = with_line(sources, "polyrelu.graphs.dag", "from ..geometry.lattice import FaceLattice")
    problems = check(changed, contracts)
    assert len(problems) == 1 and problems[0].startswith("import cycle: "), problems
    steps = problems[0].removeprefix("import cycle: ").split("; ")
    assert [step.split(" ", 1)[1] for step in steps] == [
        "polyrelu.geometry → polyrelu.geometry.lattice",
        "polyrelu.geometry.lattice → polyrelu.graphs",
        "polyrelu.graphs → polyrelu.graphs.dag",
        "polyrelu.graphs.dag → polyrelu.geometry",
    ]
    assert steps[-1].startswith(f"polyrelu/graphs/dag.py:{lineno} ")


def test_a_module_without_a_layer_is_reported(sources, contracts):
    changed = dict(sources)
    changed["polyrelu.newmodule"] = (Path("polyrelu/newmodule.py"), "from .errors import PolyReluError\n", False)
    changed["polyrelu.recovery.newstage"] = (Path("polyrelu/recovery/newstage.py"), "", False)
    problems = check(changed, contracts)
    assert sorted(problems) == [
        ("polyrelu/newmodule.py: polyrelu.newmodule has no layer in the contract of polyrelu in pyproject.toml "
        "[tool.importlinter]: add it where it belongs"),
        ("polyrelu/recovery/newstage.py: polyrelu.recovery.newstage has no layer in the contract of polyrelu.recovery "
        "in pyproject.toml [tool.importlinter]: add it where it belongs"),
    ]
    # a module inside a package that has a layer has that layer
    changed = dict(sources)
    changed["polyrelu.geometry.extra"] = (Path("polyrelu/geometry/extra.py"), "from ..errors import GeometryError\n", False)
    assert check(changed, contracts) == []


def test_a_layer_naming_no_module_is_reported(sources, contracts):
    changed = dict(sources)
    del changed["polyrelu.report"]
    problems = check(changed, contracts)
    assert "pyproject.toml: the layers of polyrelu name report, which is not a module" in problems


# -- import-linter reads the same contracts ----------------------------------------------------------------
def test_import_linter_keeps_the_same_contracts(capsys, monkeypatch):
    cli = pytest.importorskip("importlinter.cli")
    # the copy of polyrelu in this repository, not an installed one
    monkeypatch.syspath_prepend(str(REPOSITORY))
    assert Path(importlib.util.find_spec(PACKAGE).origin).is_relative_to(REPOSITORY)
    code = cli.lint_imports(config_filename=str(REPOSITORY / "pyproject.toml"), no_cache=True, no_logo=True)
    out = capsys.readouterr().out
    assert code == 0, out
    assert "5 kept, 0 broken" in out
