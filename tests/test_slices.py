"""Exact slices: the restricted network computes the full one, and its complex is the full complex cut by the slice.

The references are independent of the package's slice code: the full network
is evaluated entry by entry (:func:`reference.forward`) at ``origin + D t``
computed here in Fractions; the cells of a slice are found from the cells of
the *full* network's complex, each sign class pulled back to slice
coordinates here and decided non-empty by an exact ``cdd.gmp`` LP
(:func:`reference.sign_class_nonempty`). The command line ``polyrelu slice``
is run in-process, on good and on hostile point files.
"""

import itertools
import json
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from reference import (
    forward,
    pre_activation_rows,
    rank,
    sign_class_nonempty,
    sign_vector,
)

from polyrelu import (
    Box,
    CanonicalComplex,
    ReLUNetwork,
    Slice,
    canonical_complex,
    load_network,
    read_points,
    restrict,
    save_network,
    slice_through,
)
from polyrelu.cli import main
from polyrelu.errors import (
    GeometryError,
    InvalidNumberError,
    LimitExceededError,
    NetworkFormatError,
    ShapeError,
    UnsafeFileError,
    UsageError,
)

PNG = b"\x89PNG\r\n\x1a\n"


def gaussian_network(widths, seed):
    """He-initialised float weights and biases (converted exactly): long dyadic rationals, as in trained networks."""
    rng = np.random.default_rng(seed)
    Ws = [rng.normal(0, np.sqrt(2 / p), size=(n, p)) for p, n in zip(widths, widths[1:])]
    bs = [rng.normal(0, 0.1, size=n) for n in widths[1:]]
    return ReLUNetwork(Ws, bs)


def input_point(origin, directions, t):
    """``origin + D t`` in Fractions, written out here."""
    return tuple(
        Fraction(o) + sum((Fraction(tj) * Fraction(d[i]) for tj, d in zip(t, directions)), Fraction(0))
        for i, o in enumerate(origin)
    )


# -- restrict: the same function, exactly ----------------------------------------------------------------
@pytest.mark.parametrize(
    "widths, k, kind",
    [
        ((3, 4, 3, 1), 1, "integer"),
        ((3, 4, 3, 2), 2, "float"),
        ((5, 6, 2), 3, "integer"),
        ((16, 8, 4, 2), 2, "float"),
        ((64, 8, 4, 2), 3, "float"),
        ((64, 6, 1), 1, "integer"),
    ],
)
def test_restrict_agrees_with_the_full_network_at_random_slice_points(widths, k, kind):
    rng = np.random.default_rng(sum(widths) + k)
    n0 = widths[0]
    if kind == "integer":
        net = ReLUNetwork.random(widths, seed=k)
        origin = [Fraction(int(v), int(d)) for v, d in zip(rng.integers(-5, 6, n0), rng.integers(1, 4, n0))]
        directions = rng.integers(-3, 4, size=(k, n0)).tolist()
    else:
        net = gaussian_network(widths, seed=k)
        origin = rng.uniform(0, 1, n0).tolist()  # float origin, converted exactly
        directions = rng.normal(0, 1, size=(k, n0)).tolist()
    flat = restrict(net, origin, directions)
    assert flat.architecture.widths == (k, *widths[1:])
    weights = [[list(row) for row in W] for W in net.weights]
    biases = [list(b) for b in net.biases]
    for n in range(200):
        if n % 2:
            t = [Fraction(int(a), int(b)) for a, b in zip(rng.integers(-40, 41, k), rng.integers(1, 9, k))]
        else:
            t = rng.normal(0, 2, k).tolist()
        x = input_point(origin, directions, t)
        assert flat(t) == forward(weights, biases, x)
        assert flat.signs(t) == sign_vector(weights, biases, x)  # the same hidden neurons, the same signs


def test_restrict_keeps_every_layer_after_the_first():
    net = gaussian_network((10, 5, 4, 3), seed=1)
    flat = restrict(net, [0.5] * 10, [[1] + [0] * 9, [0, 1] + [0] * 8])
    assert flat.weights[1:] == net.weights[1:] and flat.biases[1:] == net.biases[1:]
    # a coordinate plane through the origin: W1's first two columns, b1 itself
    flat = restrict(net, [0] * 10, [[1] + [0] * 9, [0, 1] + [0] * 8])
    assert flat.weights[0] == tuple(row[:2] for row in net.weights[0]) and flat.biases[0] == net.biases[0]


@pytest.mark.parametrize(
    "origin, directions, error, message",
    [
        ([0, 0, 0], [], ShapeError, "0 directions; a slice has 1 to 3"),
        ([0, 0, 0], [[1, 0, 0]] * 4, ShapeError, "4 directions"),
        ([0, 0, 0], [[1, 0, 0], [2, 0, 0]], GeometryError, r"linearly dependent \(rank 1\)"),
        ([0, 0, 0], [[1, 0, 0], [0, 1, 0], [1, 1, 0]], GeometryError, r"linearly dependent \(rank 2\)"),
        ([0, 0, 0], [[0, 0, 0]], GeometryError, r"linearly dependent \(rank 0\)"),
        ([0, 0, 0], [[1, 0]], ShapeError, r"directions\[0\]: expected 3 entries, got 2"),
        ([0, 0], [[1, 0, 0]], ShapeError, "origin: expected 3 entries, got 2"),
        ([0, float("nan"), 0], [[1, 0, 0]], InvalidNumberError, r"origin\[1\]: nan is not a finite number"),
        ([0, 0, 0], [[1, float("inf"), 0]], InvalidNumberError, r"directions\[0\]\[1\]: inf is not a finite number"),
    ],
)
def test_restrict_refuses_bad_slices_by_name(origin, directions, error, message):
    net = ReLUNetwork.random((3, 2, 1), seed=0)
    with pytest.raises(error, match=message):
        restrict(net, origin, directions)


# -- the slice's complex is the full complex cut by the slice ------------------------------------------
def pulled_back(row, origin, directions):
    """The row ``c + a·x`` of x-space as a row of slice coordinates ``t`` (``x = origin + D t``)."""
    c, a = Fraction(row[0]), [Fraction(v) for v in row[1:]]
    return (c + sum(ai * Fraction(o) for ai, o in zip(a, origin)),
            *(sum(ai * Fraction(d[i]) for i, ai in enumerate(a)) for d in directions))


def slice_cells_from_full_complex(net, S):
    """``Counter((signs, dimension))`` of the cells of the full complex cut by the slice ``S`` within its box.

    The full complex is built on a box of input space that holds the image of
    the slice's box in its interior; each of its interior cells (a sign class
    ``s``) is pulled back to slice coordinates with the reference's rows and
    met with each relatively open face of the slice's box (one exact LP each).
    A non-empty meeting is one cell of the slice, of dimension ``k`` minus the
    rank of its equations.
    """
    k, n0 = S.dimension, net.architecture.input_dim
    lo, hi = Fraction(S.domain.lower), Fraction(S.domain.upper)
    corners = [input_point(S.origin, S.directions, t) for t in itertools.product((lo, hi), repeat=k)]
    box = Box([min(c[i] for c in corners) - 1 for i in range(n0)], [max(c[i] for c in corners) + 1 for i in range(n0)])
    K = canonical_complex(net, box)
    weights = [[list(row) for row in W] for W in net.weights]
    biases = [list(b) for b in net.biases]
    unit = [[Fraction(int(i == j)) for j in range(k)] for i in range(k)]
    found = Counter()
    for cell in K:
        if not all(cell.domain_signs):
            continue  # on the boundary of the big box, which the slice's box does not reach
        strict, equal = [], []
        for row, s in zip(pre_activation_rows(weights, biases, cell.signs), cell.signs):
            r = pulled_back(row, S.origin, S.directions)
            (equal if s == 0 else strict).append(r if s >= 0 else tuple(-v for v in r))
        # the open box a little larger than the slice's: it holds every face of the slice's box
        near = [(-lo + Fraction(1, 100), *e) for e in unit] + [(hi + Fraction(1, 100), *(-u for u in e)) for e in unit]
        if not sign_class_nonempty(k, strict + near, equal):
            continue  # misses the slice's box altogether: no face to try
        for face in itertools.product(("lo", "open", "hi"), repeat=k):
            face_strict, face_equal = [], []
            for e, where in zip(unit, face):
                lower, upper = (-lo, *e), (hi, *(-u for u in e))
                if where == "open":
                    face_strict += [lower, upper]
                else:
                    face_equal.append(lower if where == "lo" else upper)
            if sign_class_nonempty(k, strict + face_strict, equal + face_equal):
                found[cell.signs, k - rank([r[1:] for r in equal + face_equal])] += 1
    return found


@pytest.mark.parametrize(
    "widths, seed, count, margin",
    [((3, 6, 5, 1), 5, 3, "1/2"), ((4, 5, 4, 1), 6, 3, "1/2"), ((4, 4, 3, 1), 8, 4, "1/2"), ((3, 5, 3, 1), 7, 2, "3")],
)
def test_slice_complex_is_the_full_complex_cut_by_the_slice(widths, seed, count, margin):
    net = ReLUNetwork.random(widths, seed=seed)
    rng = np.random.default_rng(seed)
    # random rational points: a line, plane or 3-space in general position with respect to the integer hyperplanes
    points = [[Fraction(int(a), int(b)) for a, b in zip(rng.integers(-9, 10, widths[0]), rng.integers(1, 7, widths[0]))]
              for _ in range(count)]
    S = slice_through(net, points, margin=margin)
    K = S.complex()
    expected = slice_cells_from_full_complex(net, S)
    assert Counter((c.signs, c.dimension) for c in K) == expected
    assert K.f_vector() == tuple(sum(n for (_, d), n in expected.items() if d == dim) for dim in range(count))


def test_every_slice_cell_has_the_full_networks_sign_vector():
    net = gaussian_network((64, 8, 6, 2), seed=3)
    points = np.random.default_rng(3).uniform(0, 1, size=(3, 64))
    S = slice_through(net, points)
    K = S.complex()
    assert len(K.regions()) > 10
    weights = [[list(row) for row in W] for W in net.weights]
    biases = [list(b) for b in net.biases]
    for cell in K:
        t = cell.relative_interior_point()
        x = S.to_input(t)
        assert x == input_point(S.origin, S.directions, t)
        assert sign_vector(weights, biases, x) == cell.signs
    # the data points are where the slice says they are
    for p, q in zip(S.points, points):
        assert S.to_input(p) == tuple(Fraction(v) for v in q)


# -- slice_through -------------------------------------------------------------------------------------------
def test_slice_through_places_the_points_and_the_box():
    net = ReLUNetwork.random((4, 3, 1), seed=1)
    points = [[1, 2, 3, 4], [2, 2, 3, 4], [1, 0.5, 3, 4], [1, 2, 3, "7/2"]]
    S = slice_through(net, points)
    assert isinstance(S, Slice) and S.dimension == 3
    assert S.origin == (1, 2, 3, 4)
    assert S.directions == ((1, 0, 0, 0), (0, Fraction(-3, 2), 0, 0), (0, 0, 0, Fraction(-1, 2)))
    assert S.points == ((0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1))
    assert S.domain == Box(Fraction(-1, 4), Fraction(5, 4))
    assert slice_through(net, points[:2], margin=0).domain == Box(0, 1)
    assert slice_through(net, points[:3], margin=2.5).domain == Box(Fraction(-5, 2), Fraction(7, 2))
    assert all(S.to_input(p) == tuple(Fraction(v) for v in q) for p, q in zip(S.points, points))
    assert S.network == restrict(net, S.origin, S.directions)
    with pytest.raises(UsageError, match="margin must be >= 0"):
        slice_through(net, points, margin=-1)


@pytest.mark.parametrize(
    "points, error, message",
    [
        ([[0, 0, 0]], ShapeError, "1 points; a slice goes through 2 to 4"),
        ([[0, 0, 0]] * 5, ShapeError, "5 points"),
        ([[0, 0, 0], [1, 2, 3], [0, 0, 0]], GeometryError, "points 0 and 2 are the same point"),
        ([[0, 0, 0], [1, 2, 3], [2, 4, 6]], GeometryError, "the 3 points lie on a line"),
        ([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0]], GeometryError, "the 4 points lie on a plane"),
        ([[0, 0, 0], [1, 0]], ShapeError, r"points\[1\]: expected 3 entries"),
        ([[0, 0, 0], [1, float("nan"), 0]], InvalidNumberError, r"points\[1\]\[1\]: nan"),
    ],
)
def test_slice_through_refuses_points_without_a_slice(points, error, message):
    with pytest.raises(error, match=message):
        slice_through(ReLUNetwork.random((3, 2, 1), seed=0), points)


def test_slice_json_holds_the_slice_and_a_readable_complex(tmp_path):
    net = ReLUNetwork.random((5, 3, 2, 1), seed=4)
    S = slice_through(net, [[0, 1, 0, 0, 0], [1, 1, 0, 2, 0], [0, 0, "1/3", 0, 1]])
    K = S.complex()
    S.write_json(tmp_path / "slice.json", K)
    data = json.loads((tmp_path / "slice.json").read_text())
    assert (data["format"], data["version"]) == ("polyrelu.slice", 1)
    assert data["origin"] == ["0", "1", "0", "0", "0"]
    assert data["directions"] == [["1", "0", "0", "2", "0"], ["0", "-1", "1/3", "0", "1"]]
    assert data["points"] == [["0", "0"], ["1", "0"], ["0", "1"]]
    assert data["domain"] == {"lower": ["-1/4", "-1/4"], "upper": ["5/4", "5/4"]}
    assert CanonicalComplex.from_json(data["complex"]) == K
    assert data["complex"]["version"] == 2  # the compact complex format, unless version 1 is asked for
    S.write_json(tmp_path / "slice1.json", K, complex_version=1)
    data1 = json.loads((tmp_path / "slice1.json").read_text())
    assert data1["complex"]["version"] == 1 and CanonicalComplex.from_json(data1["complex"]) == K
    assert {k: v for k, v in data1.items() if k != "complex"} == {k: v for k, v in data.items() if k != "complex"}
    with pytest.raises(UsageError, match="complex_ is the complex of another network"):
        S.to_json(canonical_complex(net))


# -- read_points --------------------------------------------------------------------------------------------
class _Marker:
    """Unpickling this creates a file: a pickle that runs code when opened."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (str(self.path), "w"))


def test_read_points_reads_every_format_exactly(tmp_path):
    exact = [[Fraction(1, 3), Fraction(-2), Fraction(5, 4)], [Fraction(0), Fraction(1, 10), Fraction(7)]]
    floats = np.array([[0.1, -2.0, 1.25], [1e-300, 3.5, 7.0]])
    (tmp_path / "p.csv").write_text("1/3, -2, 1.25\n\n0,0.1,7e0\r\n")
    (tmp_path / "p.JSON").write_text(json.dumps([["1/3", -2, 1.25], [0, "0.1", 7]]))  # suffixes in any case
    np.save(tmp_path / "p.npy", floats)
    np.save(tmp_path / "f.npy", np.asfortranarray(floats))
    np.save(tmp_path / "i.npy", np.array([[1, 2, 3]], dtype=np.int16))
    assert read_points(tmp_path / "p.csv") == read_points(tmp_path / "p.JSON", width=3) == tuple(map(tuple, exact))
    as_floats = tuple(tuple(Fraction(v) for v in row) for row in floats.tolist())
    assert read_points(tmp_path / "p.npy", max_rows=2) == read_points(tmp_path / "f.npy") == as_floats
    assert read_points(tmp_path / "i.npy") == ((1, 2, 3),)
    longdouble = np.array([[np.longdouble(1) / 3]])
    np.save(tmp_path / "l.npy", longdouble)
    assert read_points(tmp_path / "l.npy") == ((Fraction(*longdouble[0, 0].as_integer_ratio()),),)


def test_read_points_refuses_hostile_files_before_reading_their_data(tmp_path):
    def refused(name, error, message, **kwargs):
        with pytest.raises(error, match=message):
            read_points(tmp_path / name, **kwargs)

    marker = tmp_path / "ran"
    np.save(tmp_path / "pickle.npy", np.array([[_Marker(marker)]], dtype=object), allow_pickle=True)
    refused("pickle.npy", UnsafeFileError, "holds Python objects")
    assert not marker.exists()  # never unpickled
    (tmp_path / "x.csv").write_text("1, 2\n3, abc\n")
    refused("x.csv", InvalidNumberError, "row 1, column 1: 'abc' is not a number")
    (tmp_path / "nan.csv").write_text("1, nan\n")
    refused("nan.csv", InvalidNumberError, "'nan' is not a finite number")
    (tmp_path / "nan.json").write_text("[[1, NaN]]")
    refused("nan.json", InvalidNumberError, r"row 0, column 1: nan is not a finite number")
    (tmp_path / "bool.json").write_text("[[1, true]]")
    refused("bool.json", InvalidNumberError, "True is not a number")
    (tmp_path / "object.json").write_text('{"points": [[1, 2]]}')
    refused("object.json", NetworkFormatError, "expected a JSON list of rows")
    (tmp_path / "flat.json").write_text("[1, 2]")
    refused("flat.json", ShapeError, "row 0 is int 1, not a list of numbers")
    (tmp_path / "ragged.csv").write_text("1, 2\n3\n")
    refused("ragged.csv", ShapeError, "row 1 has 1 entries, expected 2 [(]as many as the rows before")
    refused("ragged.csv", ShapeError, "row 0 has 2 entries, expected 3 [(]one per input", width=3)
    (tmp_path / "empty.csv").write_text("\n\n")
    refused("empty.csv", ShapeError, "no points")
    (tmp_path / "many.csv").write_text("1\n" * 10**5)
    refused("many.csv", ShapeError, "5 rows, more than the 4 points", max_rows=4)  # stops at the fifth row
    np.save(tmp_path / "many.npy", np.zeros((10**4, 3)))
    refused("many.npy", ShapeError, "10,000 rows, more than the 4 points", max_rows=4)
    np.save(tmp_path / "vector.npy", np.zeros(3))
    refused("vector.npy", ShapeError, r"shape \(3,\); expected a 2-D array")
    np.save(tmp_path / "bool.npy", np.zeros((2, 2), dtype=bool))
    refused("bool.npy", InvalidNumberError, "has dtype bool")
    np.save(tmp_path / "nan.npy", np.array([[0.0, np.inf]]))
    refused("nan.npy", InvalidNumberError, r"row 0, column 1: inf is not a finite number")
    data = (tmp_path / "nan.npy").read_bytes()
    (tmp_path / "short.npy").write_bytes(data[:-3])
    refused("short.npy", NetworkFormatError, "truncated or has trailing data")
    header = np.lib.format.header_data_from_array_1_0(np.zeros((2, 2)))
    header["shape"] = (10**12, 2)
    with open(tmp_path / "forged.npy", "wb") as fh:
        np.lib.format.write_array_header_1_0(fh, header)
    refused("forged.npy", LimitExceededError, "declares shape [(]1000000000000, 2[)]")
    (tmp_path / "text.npy").write_text("1, 2\n")
    refused("text.npy", NetworkFormatError, "is not a readable .npy array")
    (tmp_path / "p.txt").write_text("1, 2\n")
    refused("p.txt", NetworkFormatError, "unknown suffix '.txt'")
    refused("missing.csv", NetworkFormatError, "no such file")


# -- the command line -------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def network_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("slice") / "net.json"
    save_network(gaussian_network((6, 5, 4, 2), seed=2), path)
    return path


POINTS = [[0, 1, 0, 0.5, 0, 0], [1, 0, 0, 0, 0.25, 0], [0, 0, 1, 0, 0, -1]]  # dyadic: every format reads them alike


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_slice_summarises_writes_and_draws(tmp_path, capsys, network_file):
    np.save(tmp_path / "points.npy", np.array(POINTS))
    (tmp_path / "points.csv").write_text("\n".join(",".join(map(str, p)) for p in POINTS))
    (tmp_path / "points.json").write_text(json.dumps(POINTS))
    S = slice_through(load_network(network_file), POINTS)
    K = S.complex()
    active = [sum(1 for s in r.signs if s > 0) for r in K.regions()]
    for name in ("points.npy", "points.csv", "points.json"):
        code, out, err = run(capsys, "slice", network_file, "--through", tmp_path / name)
        assert (code, err) == (0, "")
        assert "a 2-dimensional slice" in out
        assert "domain              [-1/4, 5/4]^2 in slice coordinates (margin 1/4)" in out
        assert f"f-vector            {K.f_vector()}  ({len(K)} cells, {len(K.regions())} regions)" in out
        assert f"active neurons      {min(active)} to {max(active)} of 9 per region" in out
        assert "Euler char.         1  (expected 1)" in out
        assert f"point 2             in a region (cell {K.locate((0, 1)).id})" in out
    code, out, err = run(capsys, "slice", network_file, "--through", tmp_path / "points.npy", "--margin", "0.5",
                         "-o", tmp_path / "slice.json", "--plot", tmp_path / "slice.png")
    assert code == 0, err
    data = json.loads((tmp_path / "slice.json").read_text())
    wide = slice_through(load_network(network_file), POINTS, margin="1/2")
    assert data["domain"] == {"lower": ["-1/2", "-1/2"], "upper": ["3/2", "3/2"]}
    assert data["origin"] == ["0", "1", "0", "1/2", "0", "0"]
    assert CanonicalComplex.from_json(data["complex"]) == wide.complex()
    assert (tmp_path / "slice.png").read_bytes().startswith(PNG)


@pytest.mark.parametrize(
    "name, content, status, message",
    [
        ("nan.npy", np.array([[0.0] * 6, [np.nan] + [0.0] * 5, [1.0] * 6]), 1, "row 1, column 0: nan is not a finite number"),
        ("wide.npy", np.zeros((3, 7)), 1, "row 0 has 7 entries, expected 6 (one per input)"),
        ("many.npy", np.eye(6)[:5], 1, "5 rows, more than the 4 points allowed here"),
        ("pickle.npy", "pickle", 1, "holds Python objects (dtype object), which are stored as a pickle"),
        ("words.csv", "a,b,c,d,e,f\n1,2,3,4,5,6\n0,0,0,0,0,1\n", 1, "row 0, column 0: 'a' is not a number"),
        ("line.json", [[0] * 6, [1] * 6, [2] * 6], 1, "the 3 points lie on a line"),
        ("one.json", [[0] * 6], 1, "1 points; a slice goes through 2 to 4"),
        ("four.json", np.eye(6)[:4].tolist(), 2, "--plot draws 2-D slices, through 3 points"),
    ],
)
def test_cli_slice_refuses_hostile_points_and_writes_nothing(tmp_path, capsys, network_file, name, content, status, message):
    path = tmp_path / name
    if isinstance(content, np.ndarray):
        np.save(path, content)
    elif content == "pickle":
        np.save(path, np.array([[_Marker(tmp_path / "ran")] * 6] * 3, dtype=object), allow_pickle=True)
    elif isinstance(content, str):
        path.write_text(content)
    else:
        path.write_text(json.dumps(content))
    out_json, out_png = tmp_path / "out.json", tmp_path / "out.png"
    code, _, err = run(capsys, "slice", network_file, "--through", path, "-o", out_json, "--plot", out_png)
    assert code == status
    assert err.startswith("polyrelu: error: ") and message in err and err.count("\n") == 1
    assert str(path) in err or status == 2
    assert not out_json.exists() and not out_png.exists() and not (tmp_path / "ran").exists()


def test_cli_slice_checks_its_options_first(tmp_path, capsys, network_file):
    np.save(tmp_path / "points.npy", np.array(POINTS))
    for options, message in (
        (["--margin", "-1"], "--margin '-1': must be >= 0"),
        (["--margin", "wide"], "'wide' is not a number"),
        (["-o", tmp_path / "slice.txt"], "is not one of .json"),
        (["--plot", tmp_path / "slice.jpg"], "a figure is written as .png, .svg or .pdf"),
        (["-o", tmp_path / "points.npy"], "is not one of .json"),
        (["--plot", tmp_path / "points.npy"], "a figure is written as"),
    ):
        code, _, err = run(capsys, "slice", network_file, "--through", tmp_path / "points.npy", *options)
        assert code == 2 and message in err, (options, err)
    code, _, err = run(capsys, "slice", network_file)
    assert code == 2 and "--through" in err
