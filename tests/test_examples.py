"""The digits showcase (examples/digits.py): its quick run completes and everything it reports is consistent.

One quick run (15 epochs on scikit-learn's bundled digits, a few seconds) is shared by the tests; each checks one
claim of the run against an independent computation: the network read back from the saved file is the torch
model, the three images lie in the regions of the classes the model predicts, the homology is consistent, the
figure shows what its legend says.
"""

from __future__ import annotations

import copy
import importlib.util
import io
import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
import tomllib
from packaging.requirements import Requirement

torch = pytest.importorskip("torch")
pytest.importorskip("sklearn")

import polyrelu  # noqa: E402
from polyrelu.io.pytorch import read_torch  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "digits.py"


def _load_example():
    spec = importlib.util.spec_from_file_location("polyrelu_example_digits", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    # dataclasses look their module up in sys.modules while the class is made; it leaves right after, because
    # Hypothesis mixes the literals of every loaded non-test module of the project into its draws, derandomized ones
    # included, and the example's would change what other tests' strategies draw
    sys.modules[spec.name] = module
    try:
        spec.loader.exec_module(module)
    finally:
        del sys.modules[spec.name]
    return module


digits = _load_example()


@pytest.fixture(scope="module")
def showcase(tmp_path_factory):
    out = tmp_path_factory.mktemp("digits")
    printed = io.StringIO()
    show = digits.run(out, quick=True, seed=0, stdout=printed)
    return show, printed.getvalue()


def test_quick_run_writes_the_model_the_figure_and_a_summary_that_agrees_with_the_run(showcase):
    show, printed = showcase
    assert show.epochs == digits.QUICK_EPOCHS
    # a model that learnt something: far above the 10% of guessing, also after a few epochs
    assert show.accuracy > 0.8
    assert show.files["figure"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads(show.files["summary"].read_text())
    assert summary["class_regions"] == {str(c): r for c, r in show.regions.items()}
    assert summary["boundary"] == show.boundary
    assert [im["test_image"] for im in summary["images"]] == list(show.images)
    assert summary["decision_complex_f_vector"] == list(show.decision.complex.f_vector())
    for c, region in show.regions.items():
        assert f"Betti {tuple(region['betti'])}" in next(line for line in printed.splitlines() if line.startswith(f"class {c} "))


def test_the_network_read_back_is_the_trained_model(showcase):
    show, _ = showcase
    net = read_torch(show.files["model"])
    assert net == show.net
    linears = [m for m in show.model if isinstance(m, torch.nn.Linear)]
    for W, b, layer in zip(net.weights, net.biases, linears):
        # every float32 parameter is the exact rational it stands for
        assert W == tuple(tuple(Fraction(float(v)) for v in row) for row in layer.weight.detach().tolist())
        assert b == tuple(Fraction(float(v)) for v in layer.bias.detach().tolist())
    X = show.X[show.test]
    exact = np.array([[float(v) for v in net(x)] for x in X])
    with torch.no_grad():
        same_precision = show.model(torch.tensor(X)).numpy()
        wider = copy.deepcopy(show.model).double()(torch.tensor(X, dtype=torch.float64)).numpy()
    # float32 arithmetic rounds; the float64 pass of the same (exactly widened) parameters is the exact value to 1e-12
    assert np.allclose(same_precision, exact, rtol=1e-4, atol=1e-4)
    assert np.allclose(wider, exact, rtol=1e-12, atol=1e-12)
    top_two = np.sort(exact, axis=1)[:, -2:]
    clear = top_two[:, 1] - top_two[:, 0] > 1e-3
    assert np.array_equal(same_precision.argmax(axis=1)[clear], exact.argmax(axis=1)[clear])


def test_the_three_images_lie_in_the_class_regions_of_their_predictions(showcase):
    show, _ = showcase
    S, D, net = show.slice, show.decision, show.net
    assert len(set(show.predicted)) == 3
    for t, i, predicted, reported in zip(S.points, show.images, show.predicted, show.point_classes):
        # the slice goes through the image itself, and the restricted network is the network there
        assert S.to_input(t) == tuple(Fraction(float(v)) for v in show.X[i])
        assert S.network(t) == net(S.to_input(t))
        assert digits.exact_class(S.network, t) == predicted == reported
        cell = D.complex.locate(t)
        assert D.label(cell) == frozenset({predicted})
        assert cell in D.class_region(predicted)
        assert all(cell not in D.class_region(c) for c in range(D.classes) if c != predicted)


def test_class_regions_cover_the_box_and_their_euler_characteristics_are_the_alternating_betti_sums(showcase):
    show, _ = showcase
    D = show.decision
    covered = set()
    for c in range(D.classes):
        region = D.class_region(c)
        if c not in show.regions:
            assert len(region) == 0
            continue
        covered |= {cell.id for cell in region}
        assert show.regions[c]["betti"] == list(polyrelu.betti_numbers(region))
    assert covered == {cell.id for cell in D.complex}
    for part in [*show.regions.values(), show.boundary]:
        betti = part["betti"]
        assert part["euler_characteristic"] == sum((-1) ** k * b for k, b in enumerate(betti))
        # alternating count of the cells: the same number by another road, on a bounded box
        assert part["euler_characteristic"] == sum((-1) ** k * n for k, n in enumerate(part["f_vector"]))
        assert betti[0] >= 1 and betti[-1] == 0  # non-empty, and nothing closes up in the plane
    # the boundary is where regions meet: a 1-dimensional subcomplex, with no region of its own
    assert show.boundary["f_vector"][2] == 0 and show.boundary["f_vector"][1] > 0


def test_the_figure_is_labelled_in_slice_coordinates_and_its_legend_lists_only_what_is_drawn(showcase):
    show, _ = showcase
    ax, D = show.axes, show.decision
    assert ax.get_xlabel().startswith("t1 (slice coordinate")
    assert ax.get_ylabel().startswith("t2 (slice coordinate")
    assert "64→32→32→10" in ax.get_title() and "exact" in ax.get_title()
    with_area = sorted({c for cell in D.complex.cells(2) for c in D.label(cell)})
    assert with_area == sorted(show.regions)
    legend = [text.get_text() for text in ax.get_legend().get_texts()]
    assert legend == [
        *(f"predicted {c}" for c in with_area),
        "decision boundary (exact)",
        "edges of the linear regions",
        "mixtures of a, b, c (pixels in [0, 1])",
        *(f"{name}: test image {i}, {'an' if show.y[i] == 8 else 'a'} {show.y[i]}"
          for name, i in zip("abc", show.images)),
    ]
    assert (ax.get_xlim(), ax.get_ylim()) == ((-1.0, 2.0), (-1.0, 2.0))


def test_training_is_seeded():
    X, y, train, test = digits.load_data(3)
    assert np.array_equal(test, digits.load_data(3)[3]) and not np.array_equal(test, digits.load_data(4)[3])
    assert len(set(train) & set(test)) == 0 and len(train) + len(test) == len(y)
    first, again, other = (digits.train_model(X, y, train[:200], 1, seed) for seed in (3, 3, 4))
    for a, b in zip(first.parameters(), again.parameters()):
        assert torch.equal(a, b)
    assert not all(torch.equal(a, c) for a, c in zip(first.parameters(), other.parameters()))


def test_the_images_are_the_first_correct_ones_of_the_wanted_classes_and_a_model_that_learnt_nothing_is_refused():
    y = np.array([6, 0, 8, 0, 3, 8, 6, 1])
    test = np.arange(len(y))
    assert digits.pick_images(y, test, y) == (1, 0, 2)
    wrong_six = np.where(y == 6, 5, y)
    assert digits.pick_images(y, test, wrong_six) == (1, 2, 4)  # no correct 6: the next wanted class, 3
    with pytest.raises(RuntimeError, match="only 1 of the classes"):
        digits.pick_images(y, test, np.full(len(y), 8))


@pytest.mark.parametrize("option", [["--out", "{file}"], ["--margin", "-1"], ["--margin", "wide"], ["--margin", "1/0"]])
def test_a_bad_option_exits_2_before_any_work(tmp_path, capsys, option):
    blocker = tmp_path / "taken"
    blocker.write_text("mine")
    out = ["--out", str(tmp_path / "out")] if option[0] != "--out" else []
    argv = ["--quick", *out, *(v.format(file=blocker) for v in option)]
    assert digits.main(argv) == 2
    assert capsys.readouterr().err.startswith("digits.py: ")
    assert blocker.read_text() == "mine"
    assert not (tmp_path / "out" / digits.MODEL_FILE).exists()


def test_the_examples_extra_brings_torch_and_scikit_learn_and_make_demo_installs_it_before_running_the_showcase():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    extra = [Requirement(r) for r in extras["examples"]]
    assert sorted(r.name for r in extra) == ["scikit-learn", "torch"]
    assert all([s.operator for s in r.specifier] == [">="] for r in extra)
    makefile = (ROOT / "Makefile").read_text()
    (prerequisite, recipe) = re.search(r"^demo: (\S+)\n((?:\t.*\n)+)", makefile, re.M).groups()
    assert "examples/digits.py --quick --out " in recipe
    install = re.search(rf"^{re.escape(prerequisite)}: .*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert re.search(r"pip install .*-e '\.\[(\w+,)*examples(,\w+)*\]'", install)
    # the tests of this file run under make test: its environment has the extra too
    testenv = re.search(r"^\$\(TESTENV\): .*\n((?:\t.*\n)+)", makefile, re.M).group(1)
    assert re.search(r"pip install .*-e '\.\[(\w+,)*examples(,\w+)*\]'", testenv)
