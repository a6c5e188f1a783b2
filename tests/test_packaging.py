"""What a new user installs is complete and says one thing: the built distributions, the metadata, the citation.

The package is built as a user's pip builds it: from a copy of the files that
go into it, first the source archive, then the wheel from that archive
(without build isolation, so offline; the backend is in the test extra). The
wheel must hold every module, the type marker and the JSON Schemas (whose
references must resolve from the wheel's files alone), the license, and
metadata whose version is the package's own. The version is written once;
CITATION.cff and docs/citing.md must agree with it and with the paper the
repository cites. ``polyrelu.validate`` must accept every document the package
writes and refuse a broken one by its JSON path.

The slow test installs the wheel with plain pip into a fresh virtual
environment (no system site packages; dependencies from the package index) and
runs the README's example there; ``make install-check`` runs it, and CI after
the tests.
"""

import ast
import json
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from referencing import Registry, Resource
from referencing.exceptions import Unresolvable
from referencing.jsonschema import DRAFT202012

import polyrelu as pr
from polyrelu.cli import main
from polyrelu.examples import bent_line_network, generic_network

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
# what a distribution is built from: the files pyproject.toml names, and the package
SOURCES = ["pyproject.toml", "README.md", "LICENSE", "polyrelu"]
SCHEMA_FILES = sorted(p.name for p in (ROOT / "polyrelu" / "schemas").glob("*.schema.json"))
MODULES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "polyrelu").rglob("*.py"))


def run(args, cwd, timeout=600):
    result = subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, f"{args}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """(sdist, wheel): the source archive built from a copy of the sources, the wheel built from that archive."""
    base = tmp_path_factory.mktemp("build")
    src = base / "src"
    src.mkdir()
    for name in SOURCES:
        if (ROOT / name).is_dir():
            shutil.copytree(ROOT / name, src / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(ROOT / name, src / name)
    # what `python -m build --sdist --no-isolation` calls
    run([sys.executable, "-c", "from setuptools import build_meta; build_meta.build_sdist('../dist')"], cwd=src)
    (sdist,) = (base / "dist").glob("polyrelu-*.tar.gz")
    run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-w", str(base / "wheels"), str(sdist)], cwd=base)
    (wheel,) = (base / "wheels").glob("polyrelu-*.whl")
    return sdist, wheel


def metadata(wheel):
    with zipfile.ZipFile(wheel) as z:
        (name,) = [n for n in z.namelist() if n.endswith(".dist-info/METADATA")]
        text = z.read(name).decode()
    header = text.split("\n\n", 1)[0]
    fields = {}
    for line in header.splitlines():
        key, _, value = line.partition(": ")
        fields.setdefault(key, []).append(value)
    return fields


# -----------------------------------------------------------------------------------------
# The built distributions
# -----------------------------------------------------------------------------------------
def test_the_source_archive_holds_everything_a_wheel_is_built_from(dist):
    sdist, _ = dist
    with tarfile.open(sdist) as tar:
        names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
    assert {"pyproject.toml", "README.md", "LICENSE", "polyrelu/py.typed"} <= names
    assert {f"polyrelu/schemas/{f}" for f in SCHEMA_FILES} <= names
    assert set(MODULES) <= names


def test_the_wheel_ships_every_module_the_type_marker_the_schemas_and_the_license(dist):
    _, wheel = dist
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        license_text = [z.read(n).decode() for n in names if n.endswith(".dist-info/licenses/LICENSE")]
    assert set(MODULES) <= names
    assert "polyrelu/py.typed" in names
    assert {n for n in names if n.endswith(".schema.json")} == {f"polyrelu/schemas/{f}" for f in SCHEMA_FILES}
    assert len(SCHEMA_FILES) == len(pr.schemas.SCHEMA_NAMES) == 9
    assert license_text == [(ROOT / "LICENSE").read_text()]
    # nothing but the package and its metadata: no tests, docs or build leftovers
    assert {n.split("/", 1)[0] for n in names} == {"polyrelu", wheel.name.split("-py3")[0] + ".dist-info"}


def test_the_wheels_metadata_has_the_packages_version_license_and_requirements(dist):
    _, wheel = dist
    fields = metadata(wheel)
    assert fields["Name"] == ["polyrelu"]
    assert fields["Version"] == [pr.__version__]
    assert wheel.name == f"polyrelu-{pr.__version__}-py3-none-any.whl"
    assert fields["License-Expression"] == ["BSD-3-Clause"]
    assert fields["License-File"] == ["LICENSE"]
    assert fields["Requires-Python"] == [">=3.10"]
    requirements = [Requirement(r) for r in fields["Requires-Dist"]]
    runtime = {r.name for r in requirements if r.marker is None}
    assert {"pycddlib", "jsonschema", "referencing", "python-flint", "numpy"} <= runtime
    assert "torch" not in runtime
    torches = [r for r in requirements if r.name == "torch"]
    # the torch extra, and the examples extra whose showcase trains with torch
    assert sorted(str(r.marker) for r in torches) == ['extra == "examples"', 'extra == "torch"']
    assert all([s.operator for s in r.specifier] == [">="] for r in torches)
    with zipfile.ZipFile(wheel) as z:
        (entry_points,) = [z.read(n).decode() for n in z.namelist() if n.endswith("entry_points.txt")]
    assert "polyrelu = polyrelu.cli:main" in entry_points


def test_the_schemas_in_the_wheel_resolve_every_reference_among_themselves(dist, tmp_path):
    """Only the wheel's own files are registered; a reference to anything else would have to be fetched, and fails."""
    _, wheel = dist
    with zipfile.ZipFile(wheel) as z:
        schemas = [json.loads(z.read(n)) for n in z.namelist() if n.endswith(".schema.json")]

    def no_network(uri):
        raise LookupError(f"would fetch {uri}")

    registry = Registry(retrieve=no_network).with_resources(
        (s["$id"], Resource.from_contents(s, default_specification=DRAFT202012)) for s in schemas
    )
    looked_up = 0
    for s in schemas:
        resolver = registry.resolver(base_uri=s["$id"])
        for ref in _refs(s):
            assert resolver.lookup(ref).contents is not None
            looked_up += 1
    assert looked_up > 20
    with pytest.raises(Unresolvable):  # the guard itself works: an outside reference is not fetched
        registry.resolver(base_uri=schemas[0]["$id"]).lookup("https://example.org/other.schema.json")


def _refs(node):
    if isinstance(node, dict):
        if isinstance(node.get("$ref"), str):
            yield node["$ref"]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


# -----------------------------------------------------------------------------------------
# The ingredients: build system, version, license, requirements
# -----------------------------------------------------------------------------------------
def test_package_data_globs_match_the_files_they_are_meant_to_ship():
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    assert data == {"polyrelu": ["py.typed"], "polyrelu.schemas": ["*.schema.json"]}
    for package, globs in data.items():
        folder = ROOT.joinpath(*package.split("."))
        for glob in globs:
            assert list(folder.glob(glob)), f"{package}: {glob} matches nothing"
    assert SCHEMA_FILES == sorted(f"{name}.schema.json" for name in pr.schemas.SCHEMA_NAMES)


def test_the_build_backend_reads_spdx_licenses():
    (requirement,) = [Requirement(r) for r in PYPROJECT["build-system"]["requires"]]
    assert requirement.name == "setuptools" and not requirement.specifier.contains("76.9")
    assert requirement.specifier.contains("77.0")
    assert PYPROJECT["build-system"]["build-backend"] == "setuptools.build_meta"
    test_extra = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["test"]]
    assert any(r.name == "setuptools" and r.specifier == requirement.specifier for r in test_extra)


def test_the_version_is_written_once_in_polyrelu_version():
    project = PYPROJECT["project"]
    assert "version" not in project and project["dynamic"] == ["version"]
    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "polyrelu._version.__version__"}
    # setuptools reads the attribute from the file's text; it must be a plain string literal there
    tree = ast.parse((ROOT / "polyrelu" / "_version.py").read_text())
    (literal,) = [
        node.value.value for node in tree.body
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["__version__"]
    ]
    assert literal == pr.__version__ and re.fullmatch(r"\d+\.\d+\.\d+", literal)
    elsewhere = [p for p in (ROOT / "polyrelu").rglob("*.py") if "__version__ =" in p.read_text() and p.name != "_version.py"]
    assert elsewhere == []


def test_the_command_line_reports_the_same_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"polyrelu {pr.__version__}"


def test_the_license_is_bsd_3_clause_of_the_polyrelu_developers():
    text = (ROOT / "LICENSE").read_text()
    assert text.startswith("BSD 3-Clause License\n")
    assert re.search(r"^Copyright \(c\) \d{4}, the polyrelu developers$", text, re.M)
    assert "Neither the name of the copyright holder" in text  # the third clause
    assert PYPROJECT["project"]["license"] == "BSD-3-Clause"
    assert PYPROJECT["project"]["license-files"] == ["LICENSE"]


def test_requirements_have_lower_bounds_and_torch_is_optional():
    dependencies = [Requirement(r) for r in PYPROJECT["project"]["dependencies"]]
    assert "torch" not in {r.name for r in dependencies}
    for r in dependencies:
        assert any(s.operator == ">=" for s in r.specifier), f"{r}: no lower bound"
        assert all(s.operator != "==" for s in r.specifier), f"{r}: pinned"
    (torch,) = [Requirement(r) for r in PYPROJECT["project"]["optional-dependencies"]["torch"]]
    assert torch.name == "torch" and [s.operator for s in torch.specifier] == [">="]


# -----------------------------------------------------------------------------------------
# Citation and changes
# -----------------------------------------------------------------------------------------
CFF_KEYS = {
    "abstract", "authors", "cff-version", "commit", "contact", "date-released", "doi", "identifiers", "keywords",
    "license", "license-url", "message", "preferred-citation", "references", "repository", "repository-artifact",
    "repository-code", "title", "type", "url", "version",
}


def test_citation_cff_is_cff_1_2_for_the_software_with_the_paper_in_its_references():
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    assert {"cff-version", "message", "title", "authors"} <= set(cff) <= CFF_KEYS
    assert cff["cff-version"] == "1.2.0" and cff["type"] == "software"
    assert cff["version"] == pr.__version__ and cff["license"] == PYPROJECT["project"]["license"]
    assert cff["authors"] and all("name" in a or "family-names" in a for a in cff["authors"])
    (paper,) = cff["references"]
    assert {"type", "title", "authors"} <= set(paper)
    assert [a["family-names"] for a in paper["authors"]] == ["Grillo", "Montúfar"]
    # the title the repository cites the seed paper by
    cited = re.search(r"Grillo & Montúfar, \*([^*]+)\*", (ROOT / "docs" / "theory.md").read_text()).group(1)
    assert paper["title"].lower() == cited.lower()
    assert isinstance(paper["year"], int) and re.fullmatch(r"https://arxiv\.org/abs/\d{4}\.\d{5}", paper["url"])


def test_the_citing_page_gives_bibtex_that_agrees_with_citation_cff():
    yaml = pytest.importorskip("yaml")
    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    blocks = re.findall(r"```bibtex\n(.*?)```", (ROOT / "docs" / "citing.md").read_text(), flags=re.S)
    entries = {}
    for block in blocks:
        assert block.count("{") == block.count("}")
        (kind, key), = re.findall(r"^@(\w+)\{([\w-]+),", block, flags=re.M)
        entries[kind] = dict(re.findall(r"^\s+([\w]+)\s*=\s*\{(.*)\},?$", block, flags=re.M))
    paper, software = entries["misc"], entries["software"]
    assert paper["eprint"] == cff["references"][0]["url"].rsplit("/", 1)[1]
    assert paper["archivePrefix"] == "arXiv" and paper["year"] == str(cff["references"][0]["year"])
    assert software["version"] == pr.__version__ == cff["version"]
    assert software["license"] == cff["license"]


def test_the_changelog_follows_keep_a_changelog():
    text = (ROOT / "CHANGELOG.md").read_text()
    assert text.startswith("# Changelog\n") and "https://keepachangelog.com/" in text
    versions = re.findall(r"^## (.*)$", text, flags=re.M)
    assert versions[0] == "[Unreleased]"
    assert all(re.fullmatch(r"\[\d+\.\d+\.\d+\] - \d{4}-\d{2}-\d{2}", v) for v in versions[1:])
    kinds = re.findall(r"^### (.*)$", text, flags=re.M)
    assert kinds and set(kinds) <= {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_install_page_is_in_the_site_and_names_each_systems_packages():
    nav = (ROOT / "mkdocs.yml").read_text()
    assert "install.md" in nav and "citing.md" in nav
    page = (ROOT / "docs" / "install.md").read_text()
    for packages in ("libcdd-dev libgmp-dev", "cddlib-devel gmp-devel", "conda-forge cddlib gmp", "brew install cddlib gmp"):
        assert packages in page
    # the fix the package's own error message gives must be the one the page gives
    assert "--no-binary pycddlib" in page and "import cdd.gmp" in page


# -----------------------------------------------------------------------------------------
# polyrelu.validate on every document the package writes
# -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    """kind → list of documents, each written to a file by the package and read back as JSON."""
    tmp = tmp_path_factory.mktemp("documents")
    net, deep = bent_line_network(), generic_network((2, 3, 2, 1), seed=1)
    named = pr.ReLUNetwork(net.weights, net.biases, name="bent line")
    written = {"network": [], "complex": [], "dependency_graph": [], "analysis": []}
    for i, n in enumerate((net, named, deep)):
        pr.save_network(n, tmp / f"net{i}.json")
        written["network"].append(tmp / f"net{i}.json")
    K = pr.canonical_complex(deep)
    K.write_json(tmp / "complex.json")
    written["complex"].append(tmp / "complex.json")
    assert main(["weights", str(tmp / "net2.json"), "-o", str(tmp / "weights.json")]) == 0
    written["complex"].append(tmp / "weights.json")
    W = pr.tropical_weights(K)
    pr.dependency_graph(pr.breakpoint_complex(W)).write_json(tmp / "graph.json")
    pr.parameter_dependency_graph(deep).write_json(tmp / "parameter_graph.json")
    written["dependency_graph"] += [tmp / "graph.json", tmp / "parameter_graph.json"]
    assert main(["analyze", str(tmp / "net0.json"), "--json", str(tmp / "analysis.json")]) == 0
    written["analysis"].append(tmp / "analysis.json")
    assert main(["recover", "--from", str(tmp / "net2.json"), "-o", str(tmp / "recovered.json")]) == 0
    written["network"].append(tmp / "recovered.json")
    classifier = pr.ReLUNetwork([[[1, 0], [0, 1], [0, 0]]], [[0, 0, 0]])
    pr.save_network(classifier, tmp / "classifier.json")
    assert main(["decision", str(tmp / "classifier.json"), "-o", str(tmp / "decision.json"),
                 "--homology", str(tmp / "homology.json")]) == 0
    (tmp / "points.csv").write_text("0,0\n1,0\n0,1\n")
    assert main(["slice", str(tmp / "net0.json"), "--through", str(tmp / "points.csv"), "-o", str(tmp / "slice.json")]) == 0
    assert main(["survey", "--depths", "1", "--widths", "2", "--samples", "1", "-o", str(tmp / "survey.json")]) == 0
    assert main(["builtins", "-o", str(tmp / "builtins.json")]) == 0
    written.update({kind: [tmp / f"{kind.split('_')[0]}.json"] for kind in ("decision_complex", "homology", "slice", "survey", "builtins")})
    return {kind: [json.loads(path.read_text()) for path in paths] for kind, paths in written.items()}


def test_validate_tells_the_kind_of_every_document_the_package_writes_and_accepts_it(documents):
    assert set(documents) == set(pr.schemas.SCHEMA_NAMES)
    for kind, docs in documents.items():
        for doc in docs:
            assert pr.validate(doc) == kind
            assert pr.validate(doc, kind, source="file.json") == kind
    assert any("facet_weights" in doc for doc in documents["complex"])  # a weighted complex is a complex too
    assert any(doc.get("name") == "bent line" for doc in documents["network"])


BROKEN = {
    # kind: (a change to one entry, the JSON path the message must name, the error class)
    "network": (lambda d: d["layers"][1]["weights"][0].__setitem__(0, "1.5.3"), "$.layers[1].weights[0][0]", pr.NetworkFormatError),
    "complex": (lambda d: d["cells"]["dim"].__setitem__(2, "2"), "$.cells.dim[2]", pr.ComplexFormatError),
    "dependency_graph": (lambda d: d["vertices"][0].__setitem__("facets", []), "$.vertices[0].facets", pr.GraphFormatError),
    "analysis": (lambda d: d["architecture"].__setitem__("parameters", -1), "$.architecture.parameters", pr.AnalysisFormatError),
}


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_validate_refuses_a_broken_document_naming_the_path(documents, kind):
    change, path, error = BROKEN[kind]
    doc = json.loads(json.dumps(documents[kind][0]))
    change(doc)
    for given in (None, kind):
        with pytest.raises(error) as raised:
            pr.validate(doc, given, source="doc.json")
        assert str(raised.value).startswith(f"doc.json: at {path}: ")
        assert f"polyrelu's {kind} schema" in str(raised.value)
        assert isinstance(raised.value, pr.DocumentFormatError) and isinstance(raised.value, ValueError)


def test_validate_refuses_a_document_of_another_kind_or_of_none(documents):
    network = documents["network"][0]
    with pytest.raises(pr.ComplexFormatError, match=r"^complex JSON: at \$"):
        pr.validate(network, "complex")  # asked for a complex, given a network
    with pytest.raises(pr.NetworkFormatError, match=r"at \$\.format: 'polyrelu\.network' was expected"):
        pr.validate({**network, "format": "polyrelu.complex"}, "network")
    cases = [
        ({k: v for k, v in network.items() if k != "format"}, r"at \$: no 'format' field"),
        ({**network, "format": "polyrelu.graph"}, r"at \$\.format: 'polyrelu\.graph' is not one of polyrelu's formats"),
        ({**network, "format": 1}, r"at \$\.format: int 1 is not one of polyrelu's formats"),
        ([network], r"at \$: a polyrelu document is a JSON object, got list"),
    ]
    for doc, message in cases:
        with pytest.raises(pr.DocumentFormatError, match=message) as raised:
            pr.validate(doc, source="x.json")
        assert type(raised.value) is pr.DocumentFormatError and str(raised.value).startswith("x.json: ")
        assert "pass kind=" in str(raised.value)
    with pytest.raises(pr.UsageError, match="validate: kind must be"):
        pr.validate(network, "graph")


# -----------------------------------------------------------------------------------------
# A fresh virtual environment: plain pip, the wheel, the README's example
# -----------------------------------------------------------------------------------------
@pytest.mark.slow
def test_a_fresh_virtual_environment_installs_the_wheel_and_runs_the_readme_example(dist, tmp_path):
    """Needs the package index (or pip's configured mirror) for the dependencies; make install-check runs it."""
    _, wheel = dist
    venv = tmp_path / "venv"
    run([sys.executable, "-m", "venv", str(venv)], cwd=tmp_path)  # no system site packages
    python = venv / "bin" / "python"
    run([str(python), "-m", "pip", "install", "-q", str(wheel)], cwd=tmp_path, timeout=1800)
    installed = run([str(python), "-c", "import importlib.metadata as m, polyrelu, cdd.gmp; "
                     "print(m.version('polyrelu'), polyrelu.__version__, polyrelu.__file__)"], cwd=tmp_path).split()
    assert installed[:2] == [pr.__version__, pr.__version__]
    assert Path(installed[2]).is_relative_to(venv)  # the installed package, not the sources
    assert run([str(venv / "bin" / "polyrelu"), "--version"], cwd=tmp_path).strip() == f"polyrelu {pr.__version__}"
    (example,) = re.findall(r"```python\n(.*?)```", (ROOT / "README.md").read_text(), flags=re.S)
    (tmp_path / "example.py").write_text(example)
    lines = run([str(python), "example.py"], cwd=tmp_path).splitlines()
    assert lines[0] == "2→2→1→1 11 3 8" and lines[2] == "True True"
    assert lines[4] == "(3, 9, 7) 1 +++" and lines[5] == "(3, 3, 2) 3"
    # the schemas resolve from the installed files: an analysis refers to two other schemas
    check = ("import polyrelu as pr, json; from polyrelu.analysis import analyze; "
             "print(pr.validate(json.loads(json.dumps(analyze(pr.load_network('net.json')).to_json()))))")
    assert run([str(python), "-c", check], cwd=tmp_path).strip() == "analysis"
