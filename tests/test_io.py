"""Tests of network I/O (polyrelu.io): network JSON, .npz archives and PyTorch models and files.

Expected values are written by hand here (JSON text, numpy arrays, torch
modules) or computed independently (float64 forward passes in torch).
Hostile files (pickles that run code, forged headers, decompression bombs)
are all built inside the tests; none is committed.
"""

import json
import os
import pickle
import re
import tracemalloc
import zipfile
from fractions import Fraction

import numpy as np
import pytest
from hostile.make_corpus import npy_bytes
from hostile.strategies import replace_at
from hypothesis import given, settings
from hypothesis import strategies as st

from polyrelu import (
    InvalidArgumentError,
    InvalidNumberError,
    LimitExceededError,
    Limits,
    ModelMismatchError,
    NetworkFormatError,
    OutputPathError,
    PolyReluError,
    ReLUNetwork,
    ShapeError,
    UnsafeFileError,
    load_network,
    network_from_dict,
    network_from_torch,
    network_to_dict,
    save_network,
)

F = Fraction


def rational_net():
    return ReLUNetwork(
        [[[F(1, 3), -2], [F(-5, 7), F(1, 2)], [0, 3]], [[F(22, 9), -1, F(1, 10**20)]]],
        [[F(-1, 3), 0, F(7, 2)], [F(10**30 + 1, 3)]],
        name="thirds",
    )


def dyadic_net():
    return ReLUNetwork(
        [[[0.5, -1.25], [3, 0.1]], [[2, -0.375]], [[1], [-4]]],
        [[0, 2.5], [-1], [0.0625, 7]],
    )


def write(path, text):
    path.write_text(text)
    return path


def net_json(layers, **extra):
    obj = {"format": "polyrelu.network", "version": 1, "layers": layers}
    obj.update(extra)
    return json.dumps(obj)


GOOD_LAYERS = [{"weights": [[1, 2], [3, 4]], "biases": [0, 1]}, {"weights": [[1, -1]], "biases": [2]}]


# -- JSON -----------------------------------------------------------------------------------
def test_json_round_trip_is_exact(tmp_path):
    net = rational_net()
    path = tmp_path / "net.json"
    save_network(net, path)
    text = path.read_text()
    obj = json.loads(text)  # plain JSON, readable by anyone
    assert obj["format"] == "polyrelu.network" and obj["version"] == 1
    assert obj["layers"][0]["weights"][0] == ["1/3", -2]
    assert obj["layers"][0]["biases"] == ["-1/3", 0, "7/2"]
    assert obj["layers"][1]["weights"][0][2] == "1/100000000000000000000"
    assert obj["layers"][1]["biases"] == [f"{10**30 + 1}/3"]
    assert obj.get("name") == "thirds"
    assert '"1/3"' in text
    back = load_network(path)
    assert back == net
    assert back.weights[0][0][0] == F(1, 3)
    assert back.name == "thirds"
    # str paths work too, and saving again gives the same file
    save_network(back, str(tmp_path / "again.json"))
    assert (tmp_path / "again.json").read_text() == text


def test_dict_round_trip():
    net = rational_net()
    obj = network_to_dict(net)
    assert obj["format"] == "polyrelu.network" and obj["version"] == 1
    assert [len(layer["weights"]) for layer in obj["layers"]] == [3, 1]
    assert obj["layers"][0]["weights"][1] == ["-5/7", "1/2"]
    assert network_from_dict(obj) == net
    # through JSON text
    assert network_from_dict(json.loads(json.dumps(obj))) == net
    # integers stay JSON integers
    assert network_to_dict(ReLUNetwork([[[2, -3]]], [[0]]))["layers"] == [{"weights": [[2, -3]], "biases": [0]}]


def test_json_numbers_in_every_spelling(tmp_path):
    text = """{
      "format": "polyrelu.network", "version": 1,
      "layers": [
        {"weights": [[1, 0.1, "0.1", "-2/6", "1e-3", " 5 ", -0.5, 12345678901234567890123]],
         "biases": ["3"]},
        {"weights": [[2.5]], "biases": [-7]}
      ]
    }"""
    net = load_network(write(tmp_path / "spellings.json", text))
    assert net.weights[0][0] == (
        F(1),
        F(0.1),  # a JSON float is read exactly: 0.1 is the dyadic 3602879701896397/2**55
        F(1, 10),  # a decimal string is the decimal
        F(-1, 3),
        F(1, 1000),
        F(5),
        F(-1, 2),
        F(12345678901234567890123),
    )
    assert net.weights[0][0][1] == F(3602879701896397, 2**55) != F(1, 10)
    assert net.biases == ((F(3),), (F(-7),))
    assert net.weights[1] == ((F(5, 2),),)


def test_json_from_dict_accepts_the_same_spellings():
    obj = {"format": "polyrelu.network", "version": 1,
           "layers": [{"weights": [["1/2", 0.25]], "biases": ["0.3"]}], "name": "n"}
    net = network_from_dict(obj)
    assert net.weights[0][0] == (F(1, 2), F(1, 4)) and net.biases[0] == (F(3, 10),)
    assert net.name == "n"


# -- bad JSON -------------------------------------------------------------------------------
@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_json_nan_and_infinity_tokens(tmp_path, token):
    path = write(tmp_path / "bad.json", net_json(GOOD_LAYERS).replace('"biases": [2]', f'"biases": [{token}]'))
    assert token in path.read_text()
    with pytest.raises(InvalidNumberError, match=re.escape("layer 2 biases[0]")) as info:
        load_network(path)
    assert str(path) in str(info.value)
    assert "not a finite number" in str(info.value)


def test_json_overflowing_float_is_named(tmp_path):
    path = write(tmp_path / "big.json", net_json([{"weights": [[1, 1e999]], "biases": [0]}]).replace("Infinity", "1e999"))
    assert "1e999" in path.read_text()
    with pytest.raises(InvalidNumberError, match="1e999 is outside the float64 range; write it as a string"):
        load_network(path)


def test_json_underflowing_float_is_refused_not_read_as_zero(tmp_path):
    path = write(tmp_path / "tiny.json", net_json([{"weights": [[1, 2]], "biases": [0]}]).replace("2]]", "1e-400]]"))
    with pytest.raises(InvalidNumberError, match="1e-400 is outside the float64 range"):
        load_network(path)
    exact = write(tmp_path / "exact.json", net_json([{"weights": [[1, "1e-400"]], "biases": ["0.0e-400"]}]))
    assert load_network(exact).weights[0][0][1] == F(1, 10**400)


@pytest.mark.parametrize("bad", ['"abc"', "null", "true", "[1]", '{"a": 1}', '"1/0"', '""'])
def test_json_non_numeric_entry_is_named(tmp_path, bad):
    layers = json.loads(json.dumps(GOOD_LAYERS))
    layers[0]["weights"][0][1] = json.loads(bad)
    path = write(tmp_path / "entry.json", net_json(layers))
    with pytest.raises((InvalidNumberError, ShapeError), match=re.escape("layer 1 weights[0][1]")):
        load_network(path)


def test_json_non_numeric_bias_is_named(tmp_path):
    layers = json.loads(json.dumps(GOOD_LAYERS))
    layers[1]["biases"][0] = "two"
    with pytest.raises(InvalidNumberError, match=re.escape("layer 2 biases[0]: 'two' is not a number")):
        load_network(write(tmp_path / "b.json", net_json(layers)))


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('{"format": "something.else", "version": 1, "layers": []}', "not a polyrelu network"),
        ('{"format": "polyrelu.complex", "version": 1, "layers": []}', "'polyrelu.complex'"),
        ('{"version": 1, "layers": []}', "format is None"),
        ('[{"weights": [[1]], "biases": [0]}]', "expected a JSON object, got list"),
        ('"polyrelu.network"', "expected a JSON object"),
        ("42", "expected a JSON object"),
        ('{"format": "polyrelu.network", "version": 2, "layers": []}', "unsupported version 2"),
        ('{"format": "polyrelu.network", "version": "1", "layers": []}', "unsupported version '1'"),
        ('{"format": "polyrelu.network", "layers": []}', "unsupported version None"),
        ('{"format": "polyrelu.network", "version": 1}', "'layers' must be a non-empty list"),
        ('{"format": "polyrelu.network", "version": 1, "layers": []}', "'layers' must be a non-empty list"),
        ('{"format": "polyrelu.network", "version": 1, "layers": {"weights": [[1]]}}', "'layers'"),
        (net_json([GOOD_LAYERS[0], {"weights": [[1, -1]]}]), "layer 2 must be an object with 'weights' and 'biases'"),
        (net_json([{"biases": [0]}]), "layer 1 must be an object"),
        (net_json([[[1, 2]], [0]]), "layer 1 must be an object"),
        (net_json([{"weights": [1, 2], "biases": [0]}]), "layer 1 weights must be a list of rows"),
        (net_json([{"weights": [[1, 2]], "biases": 0}]), "layer 1 biases must be a list"),
    ],
)
def test_json_foreign_or_malformed(tmp_path, text, fragment):
    path = write(tmp_path / "net.json", text)
    with pytest.raises(NetworkFormatError, match=re.escape(fragment)) as info:
        load_network(path)
    assert str(path) in str(info.value)
    # the same object given as a dict
    with pytest.raises(NetworkFormatError, match=re.escape(fragment)):
        network_from_dict(json.loads(text))


def test_json_shape_mismatch_between_layers(tmp_path):
    layers = [{"weights": [[1, 2], [3, 4]], "biases": [0, 1]}, {"weights": [[1, -1, 5]], "biases": [2]}]
    with pytest.raises(ShapeError, match="layer 2: weights have 3 columns but layer 1 has 2 neurons"):
        load_network(write(tmp_path / "shape.json", net_json(layers)))
    layers = [{"weights": [[1, 2], [3, 4]], "biases": [0]}, {"weights": [[1, -1]], "biases": [2]}]
    with pytest.raises(ShapeError, match="layer 1: 2 weight rows but 1 biases"):
        load_network(write(tmp_path / "bias.json", net_json(layers)))
    layers = [{"weights": [[1, 2], [3]], "biases": [0, 0]}, {"weights": [[1, -1]], "biases": [2]}]
    with pytest.raises(ShapeError, match=re.escape("layer 1 weights[1]")):
        load_network(write(tmp_path / "ragged.json", net_json(layers)))
    layers = [{"weights": [], "biases": []}]
    with pytest.raises(ShapeError, match="layer 1 is empty"):
        load_network(write(tmp_path / "empty.json", net_json(layers)))


def test_truncated_json_reports_line_and_column(tmp_path):
    good = tmp_path / "good.json"
    save_network(rational_net(), good)
    text = good.read_text()
    cut = text[: len(text) // 2]
    path = write(tmp_path / "cut.json", cut)
    with pytest.raises(NetworkFormatError, match=r"invalid JSON at line \d+ column \d+") as info:
        load_network(path)
    assert str(path) in str(info.value)
    line = int(re.search(r"line (\d+)", str(info.value)).group(1))
    assert line == cut.count("\n") + 1  # the error is at the end of what is there
    with pytest.raises(NetworkFormatError, match="invalid JSON at line 1 column 1"):
        load_network(write(tmp_path / "empty.json", ""))
    with pytest.raises(NetworkFormatError, match="invalid JSON at line 2 column"):
        load_network(write(tmp_path / "trailing.json", '{"format": "polyrelu.network",\n "version": 1,, }'))


def test_binary_file_with_json_suffix(tmp_path):
    path = tmp_path / "image.json"
    path.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe\x00\x80")
    with pytest.raises(NetworkFormatError) as info:
        load_network(path)
    assert str(path) in str(info.value)
    # an .npz archive renamed to .json
    npz = tmp_path / "arrays.npz"
    np.savez(npz, W1=np.ones((1, 1)), b1=np.zeros(1))
    renamed = tmp_path / "arrays.json"
    renamed.write_bytes(npz.read_bytes())
    with pytest.raises(NetworkFormatError, match=re.escape(str(renamed))):
        load_network(renamed)


def test_missing_file_and_directories(tmp_path):
    with pytest.raises(NetworkFormatError, match="no such file") as info:
        load_network(tmp_path / "absent.json")
    assert "absent.json" in str(info.value)
    (tmp_path / "dir.json").mkdir()
    with pytest.raises(NetworkFormatError, match="dir.json: not a regular file"):
        load_network(tmp_path / "dir.json")
    with pytest.raises(NetworkFormatError, match="no such file"):
        load_network(tmp_path / "absent.npz")


def test_unknown_suffix(tmp_path):
    path = write(tmp_path / "net.txt", net_json(GOOD_LAYERS))
    with pytest.raises(NetworkFormatError, match=r"unknown suffix '\.txt'"):
        load_network(path)
    with pytest.raises(NetworkFormatError, match="unknown suffix"):
        load_network(write(tmp_path / "net", net_json(GOOD_LAYERS)))
    with pytest.raises(OutputPathError, match=r"net\.yaml: the suffix '\.yaml' is not one of \.json, \.npz"):
        save_network(rational_net(), tmp_path / "net.yaml")
    assert not (tmp_path / "net.yaml").exists()
    # the suffix is case-insensitive when reading
    upper = write(tmp_path / "NET.JSON", net_json(GOOD_LAYERS))
    assert load_network(upper) == network_from_dict(json.loads(net_json(GOOD_LAYERS)))


def snapshot(path):
    st = path.stat()
    return path.read_bytes(), st.st_mtime_ns, st.st_size


def test_failed_load_changes_nothing(tmp_path):
    cases = {
        "nan.json": net_json(GOOD_LAYERS).replace('"biases": [2]', '"biases": [NaN]'),
        "version.json": net_json(GOOD_LAYERS, version=2),
        "shape.json": net_json([GOOD_LAYERS[0], {"weights": [[1]], "biases": [0]}]),
        "cut.json": net_json(GOOD_LAYERS)[:30],
    }
    for name, text in cases.items():
        path = write(tmp_path / name, text)
        before = snapshot(path)
        listing = sorted(os.listdir(tmp_path))
        result = "unset"
        with pytest.raises((NetworkFormatError, InvalidNumberError, ShapeError)):
            result = load_network(path)
        assert result == "unset"  # nothing half-loaded was handed back
        assert snapshot(path) == before
        assert sorted(os.listdir(tmp_path)) == listing


def test_failed_save_leaves_the_target_alone(tmp_path):
    target = tmp_path / "net.npz"
    save_network(dyadic_net(), target)
    before = snapshot(target)
    with pytest.raises(NetworkFormatError):
        save_network(rational_net(), target)
    assert snapshot(target) == before
    assert load_network(target) == dyadic_net()
    absent = tmp_path / "never.npz"
    with pytest.raises(NetworkFormatError):
        save_network(rational_net(), absent)
    assert not absent.exists()


# -- .npz -----------------------------------------------------------------------------------
def test_npz_round_trip(tmp_path):
    net = dyadic_net()
    path = tmp_path / "net.npz"
    save_network(net, path)
    with np.load(path) as archive:
        assert sorted(archive.files) == ["W1", "W2", "W3", "b1", "b2", "b3"]
        assert archive["W1"].dtype == np.float64
        assert archive["W1"].tolist() == [[0.5, -1.25], [3.0, 0.1]]
        assert archive["W3"].shape == (2, 1)
        assert archive["b3"].tolist() == [0.0625, 7.0]
    back = load_network(path)
    assert back == net
    assert back.weights[0][1][1] == F(0.1)


def test_npz_written_by_numpy(tmp_path):
    path = tmp_path / "hand.npz"
    np.savez(path, W1=np.array([[1, -2]], dtype=np.int32), b1=np.array([3], dtype=np.int64),
             W2=np.array([[0.5]], dtype=np.float32), b2=np.array([0.25]))
    net = load_network(path)
    assert net.weights == (((1, -2),), ((F(1, 2),),))
    assert net.biases == ((3,), (F(1, 4),))
    assert net([1, 1]) == (F(1, 4) + F(1, 2) * 2,)
    # layers beyond 9 are ordered numerically
    arrays = {}
    for l in range(1, 12):
        arrays[f"W{l}"] = np.full((1, 1), float(l))
        arrays[f"b{l}"] = np.zeros(1)
    np.savez(tmp_path / "deep.npz", **arrays)
    deep = load_network(tmp_path / "deep.npz")
    assert deep.architecture.depth == 10
    assert [W[0][0] for W in deep.weights] == list(range(1, 12))


def test_npz_refuses_inexact_parameters(tmp_path):
    with pytest.raises(NetworkFormatError, match=r"W1 has entries float64 cannot hold exactly; save as \.json"):
        save_network(rational_net(), tmp_path / "thirds.npz")
    net = ReLUNetwork([[[1]], [[2]]], [[0], [F(1, 3)]])
    with pytest.raises(NetworkFormatError, match="b2"):
        save_network(net, tmp_path / "b2.npz")
    big = ReLUNetwork([[[1]], [[10**400]]], [[0], [0]])
    with pytest.raises(NetworkFormatError, match="W2"):
        save_network(big, tmp_path / "big.npz")
    exact_big = ReLUNetwork([[[2**80]]], [[0]])
    save_network(exact_big, tmp_path / "ok.npz")
    assert load_network(tmp_path / "ok.npz") == exact_big
    assert not (tmp_path / "thirds.npz").exists()


def test_npz_bad_archives(tmp_path):
    good = {"W1": np.ones((2, 2)), "b1": np.zeros(2), "W2": np.ones((1, 2)), "b2": np.zeros(1)}

    def archive(name, **arrays):
        path = tmp_path / name
        np.savez(path, **arrays)
        return path

    missing = dict(good)
    del missing["b2"]
    with pytest.raises(NetworkFormatError, match=re.escape("missing arrays ['b2']")):
        load_network(archive("missing.npz", **missing))
    with pytest.raises(NetworkFormatError, match=re.escape("unexpected arrays ['foo']")):
        load_network(archive("extra.npz", **good, foo=np.zeros(3)))
    with pytest.raises(NetworkFormatError, match="no arrays W1"):
        load_network(archive("none.npz"))
    gap = {k: v for k, v in good.items()}
    gap["W3"], gap["b3"] = np.ones((1, 1)), np.zeros(1)
    del gap["W2"]
    with pytest.raises(NetworkFormatError, match=re.escape("missing arrays ['W2']")):
        load_network(archive("gap.npz", **gap))

    obj = dict(good, W1=np.array([[1, "a"], [2, 3]], dtype=object))
    with pytest.raises(NetworkFormatError, match="W1") as info:
        load_network(archive("object.npz", **obj))
    assert "object.npz" in str(info.value)

    nan = dict(good)
    nan["W2"] = np.array([[1.0, np.nan]])
    with pytest.raises(InvalidNumberError, match=re.escape("layer 2 weights[0][1]: nan is not a finite number")):
        load_network(archive("nan.npz", **nan))
    inf = dict(good, b1=np.array([0.0, -np.inf]))
    with pytest.raises(InvalidNumberError, match=re.escape("layer 1 biases[1]")):
        load_network(archive("inf.npz", **inf))

    with pytest.raises(InvalidNumberError, match="array W1 has dtype bool"):
        load_network(archive("bool.npz", **dict(good, W1=np.ones((2, 2), dtype=bool))))
    with pytest.raises(InvalidNumberError, match="array b2 has dtype"):
        load_network(archive("complex.npz", **dict(good, b2=np.array([1 + 2j]))))
    with pytest.raises(InvalidNumberError, match="array b1 has dtype <U"):
        load_network(archive("text.npz", **dict(good, b1=np.array(["0", "1"]))))

    with pytest.raises(ShapeError, match="layer 2: weights have 3 columns but layer 1 has 2 neurons"):
        load_network(archive("shape.npz", **dict(good, W2=np.ones((1, 3)))))
    with pytest.raises(ShapeError, match="layer 1 weights: expected a matrix"):
        load_network(archive("vector.npz", **dict(good, W1=np.ones(2))))


def test_npz_not_an_archive(tmp_path):
    path = write(tmp_path / "text.npz", "W1 = [[1]]")
    with pytest.raises(NetworkFormatError, match="not a NumPy .npz archive"):
        load_network(path)
    single = tmp_path / "single.npy"
    np.save(single, np.ones((2, 2)))
    renamed = tmp_path / "single.npz"
    renamed.write_bytes(single.read_bytes())
    with pytest.raises(NetworkFormatError, match="single array"):
        load_network(renamed)


# -- PyTorch --------------------------------------------------------------------------------
@pytest.fixture
def torch():
    return pytest.importorskip("torch")


def make_model(torch, seed=0):
    torch.manual_seed(seed)
    nn = torch.nn
    return nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2), nn.ReLU(), nn.Linear(2, 1))


def assert_matches_model(net, model, torch):
    linears = [m for m in model if isinstance(m, torch.nn.Linear)]
    assert len(net.layers) == len(linears)
    for (W, b), lin in zip(net.layers, linears):
        weight = lin.weight.detach()
        assert weight.dtype == torch.float32
        assert [list(row) for row in W] == [[F(v) for v in row] for row in weight.tolist()]
        assert list(b) == [F(v) for v in lin.bias.detach().tolist()]


def test_from_torch_is_exact(torch):
    model = make_model(torch)
    net = network_from_torch(model)
    assert net.architecture.widths == (2, 3, 2, 1)
    assert_matches_model(net, model, torch)
    # float32 entries need at most 24 significant bits: the fractions are dyadic
    assert all(v.denominator & (v.denominator - 1) == 0 for v in net.parameters())
    assert any(v.denominator > 2**20 for v in net.parameters())

    double = make_model(torch).double()
    xs = [(0.3, -1.7), (2.0, 0.5), (-0.25, -0.75), (1e-3, 4.0), (-3.0, 2.5), (0.0, 0.0)]
    with torch.no_grad():
        expected = double(torch.tensor(xs, dtype=torch.float64)).tolist()
    for x, (y_torch,) in zip(xs, expected):
        (y,) = net(x)
        assert float(y) == pytest.approx(y_torch, rel=1e-6, abs=1e-12)


def test_from_torch_float64_and_single_linear(torch):
    nn = torch.nn
    torch.manual_seed(3)
    lin = nn.Linear(3, 2).double()
    with torch.no_grad():
        lin.weight[0, 0] = 0.1  # a float64 that float32 cannot hold
    net = network_from_torch(lin)
    assert net.architecture.widths == (3, 2)
    assert net.weights[0][0][0] == F(0.1)
    seq = network_from_torch(nn.Sequential(lin))
    assert seq == net


def test_torch_files(torch, tmp_path):
    model = make_model(torch, seed=1)
    expected = network_from_torch(model)
    assert_matches_model(expected, model, torch)

    whole = tmp_path / "model.pt"
    torch.save(model, whole)
    with pytest.raises(UnsafeFileError):
        load_network(whole)
    assert load_network(whole, trust_pickle=True) == expected

    state = tmp_path / "state.pt"
    torch.save(model.state_dict(), state)
    assert load_network(state) == expected

    pth = tmp_path / "state.pth"
    torch.save(model.state_dict(), pth)
    assert load_network(pth) == expected

    # a wider model: layer keys 10 and more are ordered numerically, not as text
    nn = torch.nn
    torch.manual_seed(2)
    mods = []
    for _ in range(6):
        mods += [nn.Linear(2, 2), nn.ReLU()]
    mods.append(nn.Linear(2, 1))
    deep = nn.Sequential(*mods)
    torch.save(deep.state_dict(), tmp_path / "deep.pt")
    assert load_network(tmp_path / "deep.pt") == network_from_torch(deep)
    assert network_from_torch(deep).architecture.depth == 6


@pytest.mark.parametrize(
    "build, fragment",
    [
        (lambda nn: nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1)), "module 1 is Tanh"),
        (
            lambda nn: nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2), nn.ReLU()),
            "module 3 (ReLU) is a ReLU after the last affine layer",
        ),
        (lambda nn: nn.Sequential(nn.ReLU(), nn.Linear(2, 1)), "module 0 (ReLU) applies ReLU to the input"),
        (lambda nn: nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Tanh(), nn.Linear(3, 1)), "module 2 is Tanh"),
    ],
)
def test_from_torch_rejects_other_models(torch, tmp_path, build, fragment):
    model = build(torch.nn)
    with pytest.raises(NetworkFormatError, match=re.escape(fragment)):
        network_from_torch(model)
    path = tmp_path / "model.pt"
    torch.save(model, path)
    with pytest.raises(UnsafeFileError):  # a whole pickled model is never unpickled by default
        load_network(path)
    with pytest.raises(NetworkFormatError, match=re.escape(fragment)):
        load_network(path, trust_pickle=True)


def test_torch_state_dict_without_bias(torch, tmp_path):
    nn = torch.nn
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1, bias=False))
    path = tmp_path / "state.pt"
    torch.save(model.state_dict(), path)
    with pytest.raises(NetworkFormatError, match="layer '2' needs both weight and bias"):
        load_network(path)


def test_torch_files_of_other_content(torch, tmp_path):
    tensor = tmp_path / "tensor.pt"
    torch.save(torch.ones(3), tensor)
    with pytest.raises(NetworkFormatError, match="holds a Tensor"):
        load_network(tensor)
    odd = tmp_path / "odd.pt"
    torch.save({"0.weight": torch.ones(1, 1), "0.running_mean": torch.ones(1)}, odd)
    with pytest.raises(NetworkFormatError, match="unexpected entry '0.running_mean'"):
        load_network(odd)
    empty = tmp_path / "empty.pt"
    torch.save({}, empty)
    with pytest.raises(NetworkFormatError, match="no layers"):
        load_network(empty)
    garbage = write(tmp_path / "garbage.pt", "this is not a torch file")
    with pytest.raises(NetworkFormatError, match="torch cannot read it"):
        load_network(garbage)


# -- hostile input: network JSON ------------------------------------------------------------
@pytest.mark.parametrize("version", ["true", "1.0", '"1"', "2", "null", "[1]"])
def test_json_version_must_be_the_integer_1(tmp_path, version):
    path = write(tmp_path / "v.json", net_json(GOOD_LAYERS).replace('"version": 1', f'"version": {version}'))
    assert f'"version": {version}' in path.read_text()
    with pytest.raises(NetworkFormatError, match="unsupported version .* reads version 1") as info:
        load_network(path)
    assert str(path) in str(info.value)
    # True == 1 and 1.0 == 1 in Python: the dict API is just as strict
    with pytest.raises(NetworkFormatError, match="unsupported version"):
        network_from_dict(json.loads(path.read_text()))


@pytest.mark.parametrize("fmt", ['["polyrelu.network"]', '"polyrelu.network "', '"POLYRELU.NETWORK"', "1"])
def test_json_format_must_be_the_exact_string(tmp_path, fmt):
    path = write(tmp_path / "f.json", net_json(GOOD_LAYERS).replace('"polyrelu.network"', fmt))
    with pytest.raises(NetworkFormatError, match="not a polyrelu network"):
        load_network(path)


def test_json_unknown_keys_are_refused_by_name(tmp_path):
    # an ignored "activation" would be read as a ReLU network without a word
    path = write(tmp_path / "top.json", net_json(GOOD_LAYERS, activation="tanh"))
    with pytest.raises(NetworkFormatError, match=re.escape("unknown keys ['activation']")):
        load_network(path)
    layers = json.loads(json.dumps(GOOD_LAYERS))
    layers[1]["activation"] = "identity"
    with pytest.raises(NetworkFormatError, match=re.escape("layer 2 has unknown keys ['activation']")):
        load_network(write(tmp_path / "layer.json", net_json(layers)))
    with pytest.raises(NetworkFormatError, match="'name' must be a string"):
        load_network(write(tmp_path / "name.json", net_json(GOOD_LAYERS, name=["x"])))
    # the keys polyrelu writes are all accepted
    assert load_network(write(tmp_path / "ok.json", net_json(GOOD_LAYERS, name="n"))).name == "n"


def test_json_numbers_with_other_digits_or_unbounded_size(tmp_path):
    def entry(value):
        layers = json.loads(json.dumps(GOOD_LAYERS))
        layers[0]["weights"][1][0] = value
        return write(tmp_path / "n.json", net_json(layers))

    # Arabic-Indic digits: Python's int() and Fraction() would accept them
    assert int("١٢") == 12
    with pytest.raises(InvalidNumberError, match=re.escape("layer 1 weights[1][0]")) as info:
        load_network(entry("١٢"))
    assert "0-9" in str(info.value) or "ASCII" in str(info.value)
    with pytest.raises(LimitExceededError, match=re.escape("layer 1 weights[1][0]")):
        load_network(entry("1e-999999999"))  # a billion-digit denominator, refused before it is built
    with pytest.raises(LimitExceededError, match="30,000 digits"):
        load_network(entry("7" * 30_000))
    # the same number as a JSON integer literal is refused while parsing
    path = write(tmp_path / "literal.json", net_json(GOOD_LAYERS).replace('"biases": [2]', '"biases": [' + "7" * 30_000 + "]"))
    with pytest.raises(LimitExceededError, match="digits") as info:
        load_network(path)
    assert str(path) in str(info.value)
    # non-ASCII digits are not JSON number literals at all
    with pytest.raises(NetworkFormatError, match="invalid JSON"):
        load_network(write(tmp_path / "arabic.json", net_json(GOOD_LAYERS).replace('"biases": [2]', '"biases": [١٢]')))


def test_json_nested_deeply_is_refused_before_parsing(tmp_path):
    path = write(tmp_path / "deep.json", '{"format": "polyrelu.network", "version": 1, "layers": ' + "[" * 10**5 + "]" * 10**5 + "}")
    with pytest.raises(LimitExceededError, match="nested 100,001 levels deep|nested 100001 levels deep") as info:
        load_network(path)
    assert str(path) in str(info.value)


def test_json_declared_shapes_are_checked_before_entries_are_converted(tmp_path):
    layers = json.loads(json.dumps(GOOD_LAYERS))
    layers[0]["weights"][0][0] = "not a number"
    path = write(tmp_path / "big.json", net_json(layers))
    # 9 parameters: over a limit of 8, refused before the bad entry is reached
    with pytest.raises(LimitExceededError, match="9 weights and biases, over the limit of 8") as info:
        load_network(path, limits=Limits(max_parameters=8))
    assert "max_parameters" in str(info.value)
    with pytest.raises(LimitExceededError, match="width 2, over the limit of 1"):
        load_network(path, limits=Limits(max_width=1))
    with pytest.raises(LimitExceededError, match="over the limit of 10"):
        load_network(path, limits=Limits(max_file_bytes=10))
    with pytest.raises(InvalidNumberError, match=re.escape("layer 1 weights[0][0]")):
        load_network(path)
    with pytest.raises(LimitExceededError, match="over the limit of 8"):
        network_from_dict(json.loads(path.read_text()), source="dict", limits=Limits(max_parameters=8))


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=6),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
    max_leaves=12,
)


def json_paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from json_paths(value, prefix + (key,))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from json_paths(value, prefix + (i,))


NETWORK_OBJECT = json.loads(net_json(GOOD_LAYERS, name="n"))
NETWORK_PATHS = list(json_paths(NETWORK_OBJECT))


@settings(max_examples=300, deadline=None)
@given(where=st.sampled_from(NETWORK_PATHS), value=JSON_VALUES)
def test_any_json_value_anywhere_gives_a_network_or_a_polyrelu_error(where, value):
    obj = replace_at(NETWORK_OBJECT, where, value)
    try:
        net = network_from_dict(obj)
    except PolyReluError as exc:
        assert str(exc).startswith("network: ")  # the message says where
        return
    # accepted: then it is exactly what the object says
    def exact(v):
        return F(v.strip()) if isinstance(v, str) else F(v)

    assert net.weights == tuple(tuple(tuple(map(exact, row)) for row in layer["weights"]) for layer in obj["layers"])
    assert net.biases == tuple(tuple(map(exact, layer["biases"])) for layer in obj["layers"])
    assert net.name == obj.get("name")


# -- hostile input: .npz --------------------------------------------------------------------
def zip_archive(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def good_members():
    return {
        "W1.npy": npy_bytes(np.ones((2, 2))),
        "b1.npy": npy_bytes(np.zeros(2)),
        "W2.npy": npy_bytes(np.ones((1, 2))),
        "b2.npy": npy_bytes(np.zeros(1)),
    }


def peak_allocation(function, *args, **kwargs):
    """``(exception or result, peak bytes)`` of a call, numpy's buffers included (numpy reports them to tracemalloc)."""
    tracemalloc.start()
    try:
        try:
            result = function(*args, **kwargs)
        except Exception as exc:  # returned for the caller's assertions
            result = exc
        return result, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_npz_hand_built_archive_loads(tmp_path):
    # the builder below is a faithful .npz writer: its unforged archive loads
    net = load_network(zip_archive(tmp_path / "good.npz", good_members()))
    assert net.architecture.widths == (2, 2, 1)


def test_npz_forged_header_is_refused_before_allocation(tmp_path):
    members = good_members()
    members["W1.npy"] = npy_bytes(np.ones(4), shape=(10**9,))  # 32 real bytes, 8 GB declared
    path = zip_archive(tmp_path / "forged.npz", members)
    assert path.stat().st_size < 2000
    error, peak = peak_allocation(load_network, path)
    assert isinstance(error, LimitExceededError), error
    assert "array W1 declares shape (1000000000,)" in str(error) and str(path) in str(error)
    assert peak < 2**20
    # a header that disagrees with the member's size, within the limits
    members["W1.npy"] = npy_bytes(np.ones((2, 2)), shape=(2, 3))
    with pytest.raises(NetworkFormatError, match="array W1 declares 160 bytes, but its header describes 176"):
        load_network(zip_archive(tmp_path / "short.npz", members))
    # shapes that do not fit are refused from the headers, before any data is read
    members = good_members()
    members["b1.npy"] = npy_bytes(np.zeros(3))
    with pytest.raises(ShapeError, match="layer 1: 2 weight rows but 3 biases"):
        load_network(zip_archive(tmp_path / "fit.npz", members))


def test_npz_decompression_bomb_is_refused_from_the_directory(tmp_path):
    members = good_members()
    members["W1.npy"] = npy_bytes(np.zeros((1024, 1024)))  # 8 MiB of zeros deflate to about 8 KiB
    members["W2.npy"] = npy_bytes(np.zeros((1, 1024)))
    path = zip_archive(tmp_path / "bomb.npz", members, compression=zipfile.ZIP_DEFLATED)
    assert path.stat().st_size < 100_000
    error, peak = peak_allocation(load_network, path)
    assert isinstance(error, LimitExceededError), error
    assert "member 'W1.npy'" in str(error) and "compression ratio" in str(error)
    assert peak < 2**20  # nothing was decompressed
    # a compressed archive of ordinary weights loads (np.savez_compressed)
    rng = np.random.default_rng(0)
    arrays = {"W1": rng.standard_normal((300, 300)), "b1": rng.standard_normal(300), "W2": rng.standard_normal((1, 300)), "b2": np.zeros(1)}
    np.savez_compressed(tmp_path / "fine.npz", **arrays)
    assert load_network(tmp_path / "fine.npz").architecture.widths == (300, 300, 1)


def test_npz_limits_on_members_widths_and_parameters(tmp_path):
    path = zip_archive(tmp_path / "net.npz", good_members())
    with pytest.raises(LimitExceededError, match="member 'W1.npy' declares 160 bytes uncompressed"):
        load_network(path, limits=Limits(max_array_bytes=100))
    with pytest.raises(LimitExceededError, match="9 weights and biases"):
        load_network(path, limits=Limits(max_parameters=8))
    with pytest.raises(LimitExceededError, match="width 2"):
        load_network(path, limits=Limits(max_width=1))


def test_npz_member_names_must_be_exact(tmp_path):
    members = good_members()
    members["W1"] = members.pop("W1.npy")  # a member numpy would expose as "W1" too
    with pytest.raises(NetworkFormatError, match=re.escape("unexpected arrays ['W1']")):
        load_network(zip_archive(tmp_path / "bare.npz", members))
    members = good_members()
    members["W01.npy"] = members.pop("W1.npy")
    with pytest.raises(NetworkFormatError, match=re.escape("unexpected arrays ['W01']")):
        load_network(zip_archive(tmp_path / "zero.npz", members))
    members = good_members()
    members["W999999999.npy"] = members["W2.npy"]
    error, peak = peak_allocation(load_network, zip_archive(tmp_path / "far.npz", members))
    assert isinstance(error, NetworkFormatError) and "missing arrays ['W3', 'b3'," in str(error)
    assert peak < 2**20  # the missing names are not all listed
    dup = tmp_path / "dup.npz"
    zip_archive(dup, good_members())
    with pytest.warns(UserWarning, match="Duplicate name"), zipfile.ZipFile(dup, "a") as archive:
        archive.writestr("W1.npy", npy_bytes(np.full((2, 2), 5.0)))
    with pytest.raises(NetworkFormatError, match="two members named 'W1.npy'"):
        load_network(dup)


def test_npz_extended_precision_is_read_exactly(tmp_path):
    if np.finfo(np.longdouble).nmant <= 52:
        pytest.skip("longdouble is float64 on this platform")
    third = np.longdouble(1) / np.longdouble(3)
    W1 = np.array([[third, np.longdouble(1) + np.longdouble(2) ** -60]], dtype=np.longdouble)
    path = tmp_path / "ld.npz"
    np.savez(path, W1=W1, b1=np.array([third], dtype=np.longdouble))
    net = load_network(path)
    expected = F(*third.as_integer_ratio())
    assert net.weights[0][0][0] == expected != F(float(third))
    assert net.weights[0][0][1] == 1 + F(1, 2**60)
    assert net.biases[0][0] == expected
    np.savez(path, W1=np.array([[np.longdouble("nan")]], dtype=np.longdouble), b1=np.zeros(1, dtype=np.longdouble))
    with pytest.raises(InvalidNumberError, match=re.escape("layer 1 weights[0][0]: nan is not a finite number")):
        load_network(path)


def test_npz_other_dtypes_are_refused_by_name(tmp_path):
    def archive(name, W1):
        path = tmp_path / name
        np.savez(path, W1=W1, b1=np.zeros(1))
        return path

    marker = tmp_path / "MARKER"
    objects = np.array([[OpensAFile(marker)]], dtype=object)
    with pytest.raises(UnsafeFileError, match="array W1 holds Python objects"):
        load_network(archive("object.npz", objects))
    assert not marker.exists()
    with pytest.raises(InvalidNumberError, match=re.escape("array W1 has dtype [('a', '<f8')]")):
        load_network(archive("structured.npz", np.zeros((1, 1), dtype=[("a", "<f8")])))
    with pytest.raises(InvalidNumberError, match="array W1 has dtype datetime64"):
        load_network(archive("date.npz", np.zeros((1, 1), dtype="datetime64[s]")))
    members = {"W1.npy": npy_bytes(np.zeros((1, 1)), descr=[("", "<f8", (1000,))]), "b1.npy": npy_bytes(np.zeros(1))}
    with pytest.raises((InvalidNumberError, NetworkFormatError), match="W1"):
        load_network(zip_archive(tmp_path / "subarray.npz", members))
    # float16 and big-endian float64 are read exactly
    path = tmp_path / "half.npz"
    np.savez(path, W1=np.array([[0.1]], dtype=np.float16), b1=np.array([0.1], dtype=">f8"))
    net = load_network(path)
    assert net.weights[0][0][0] == F(float(np.float16(0.1))) and net.biases[0][0] == F(0.1)


# -- hostile input: pickles -----------------------------------------------------------------
class OpensAFile:
    """Unpickling this object creates ``marker``: proof that a loader executed code from a file."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


def crafted_file(torch, kind, path, marker):
    """A file that runs ``open(marker, "w")`` when unpickled the unsafe way; returns how to do that."""
    payload = OpensAFile(marker)
    if kind == "torch.save":
        torch.save({"0.weight": torch.ones(1, 1), "0.bias": payload}, path)
        return lambda: torch.load(path, weights_only=False)
    if kind in ("raw pickle", "raw pickle protocol 0"):
        path.write_bytes(pickle.dumps(payload, protocol=0 if kind.endswith("0") else pickle.HIGHEST_PROTOCOL))
        return lambda: pickle.loads(path.read_bytes())
    if kind == "zip with a crafted data.pkl":
        zip_archive(path, {"model/data.pkl": pickle.dumps(payload, protocol=2), "model/byteorder": "little", "model/version": "3\n"})
        return lambda: torch.load(path, weights_only=False)
    if kind == "whole module":
        model = torch.nn.Sequential(torch.nn.Linear(1, 1))
        model.payload = payload  # unpickled with the module
        torch.save(model, path)
        return lambda: torch.load(path, weights_only=False)
    raise AssertionError(kind)


@pytest.mark.parametrize("kind", ["torch.save", "raw pickle", "raw pickle protocol 0", "zip with a crafted data.pkl", "whole module"])
@pytest.mark.parametrize("suffix", [".pt", ".pth"])
def test_crafted_pickles_never_run(torch, tmp_path, kind, suffix):
    # the payload is live: unpickled the unsafe way, it creates its marker
    control = tmp_path / "CONTROL"
    run_unsafely = crafted_file(torch, kind, tmp_path / f"control{suffix}", control)
    try:
        run_unsafely()
    except Exception:  # the object it builds need not be a valid anything
        pass
    assert control.exists()

    marker = tmp_path / "MARKER"
    path = tmp_path / f"crafted{suffix}"
    crafted_file(torch, kind, path, marker)
    with pytest.raises(UnsafeFileError) as info:
        load_network(path)
    assert not marker.exists()
    message = str(info.value)
    assert str(path) in message
    assert "weights_only=False" in message and 'torch.save(model.state_dict(), "model_state.pt")' in message


def test_torchscript_and_legacy_files_are_refused(torch, tmp_path):
    model = make_model(torch, seed=5)
    expected = network_from_torch(model)
    scripted = tmp_path / "scripted.pt"
    with pytest.warns(DeprecationWarning):  # torch 2.13 deprecates TorchScript; such files still exist
        torch.jit.save(torch.jit.script(model), scripted)
    with pytest.raises(UnsafeFileError, match="TorchScript"):
        load_network(scripted)
    # the format before torch 1.6: a bare pickle whose sizes cannot be checked before torch allocates them
    legacy = tmp_path / "legacy.pt"
    torch.save(model.state_dict(), legacy, _use_new_zipfile_serialization=False)
    assert not zipfile.is_zipfile(legacy)
    with pytest.raises(UnsafeFileError, match="before 1.6"):
        load_network(legacy)
    assert load_network(legacy, trust_pickle=True) == expected


def test_trust_pickle_is_documented_as_running_code():
    assert "executes any code the file contains" in " ".join(load_network.__doc__.split())


def test_zip_members_of_a_torch_file_are_checked_before_torch_load(torch, tmp_path):
    model = make_model(torch, seed=6)
    good = tmp_path / "state.pt"
    torch.save(model.state_dict(), good)
    with pytest.raises(LimitExceededError, match="declares .* bytes uncompressed, over the limit of 16"):
        load_network(good, limits=Limits(max_array_bytes=16))
    with pytest.raises(LimitExceededError, match="over the limit of 100"):
        load_network(good, limits=Limits(max_file_bytes=100))
    # the same archive with a deflated 8 MiB member of zeros added
    bomb = tmp_path / "bomb.pt"
    with zipfile.ZipFile(good) as source, zipfile.ZipFile(bomb, "w") as target:
        for info in source.infolist():
            target.writestr(info, source.read(info))
        target.writestr("state/data/99", bytes(8 << 20), compress_type=zipfile.ZIP_DEFLATED)
    assert bomb.stat().st_size < 100_000
    with pytest.raises(LimitExceededError, match="compression ratio"):
        load_network(bomb)


# -- PyTorch: layer order and the check against the model ----------------------------------
class InputHiddenOutput:
    """Modules whose alphabetical order (hidden, input, output) is not their forward order."""

    @staticmethod
    def build(torch, seed=0, widths=(3, 3, 3, 2), backwards=False):
        nn = torch.nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                torch.manual_seed(seed)
                names = ("output", "hidden", "input") if backwards else ("input", "hidden", "output")
                shapes = {"input": (widths[0], widths[1]), "hidden": (widths[1], widths[2]), "output": (widths[2], widths[3])}
                for name in names:
                    setattr(self, name, nn.Linear(*shapes[name]))

            def forward(self, x):
                return self.output(torch.relu(self.hidden(torch.relu(self.input(x)))))

        return Model()


def assert_network_is_model(net, model, torch, layer_names):
    """Parameters equal, exactly, to the named Linear layers; values equal to the float64 forward pass."""
    for (W, b), name in zip(net.layers, layer_names, strict=True):
        linear = getattr(model, name)
        assert [list(row) for row in W] == [[F(v) for v in row] for row in linear.weight.detach().tolist()]
        assert list(b) == [F(v) for v in linear.bias.detach().tolist()]
    xs = np.random.default_rng(123).standard_normal((100, net.architecture.input_dim)) * 3
    with torch.no_grad():
        ys = model.double()(torch.from_numpy(xs)).numpy()
        model.float()
    for x, y in zip(xs, ys):
        assert [float(v) for v in net(x)] == pytest.approx(list(y), rel=1e-12, abs=1e-12)


def test_layers_named_input_hidden_output_keep_forward_order(torch, tmp_path):
    model = InputHiddenOutput.build(torch)
    assert sorted(name for name, _ in model.named_children()) == ["hidden", "input", "output"]
    net = network_from_torch(model)
    assert_network_is_model(net, model, torch, ["input", "hidden", "output"])
    state = model.state_dict()
    assert list(state) == ["input.weight", "input.bias", "hidden.weight", "hidden.bias", "output.weight", "output.bias"]
    assert network_from_torch(state) == net
    path = tmp_path / "state.pt"
    torch.save(state, path)
    assert load_network(path) == net


def test_modules_registered_out_of_forward_order_are_read_in_forward_order(torch):
    # torch.fx traces forward: the order of registration does not matter
    square = InputHiddenOutput.build(torch, seed=1, widths=(3, 3, 3, 3), backwards=True)
    assert [name for name, _ in square.named_children()] == ["output", "hidden", "input"]
    assert_network_is_model(network_from_torch(square), square, torch, ["input", "hidden", "output"])
    oblong = InputHiddenOutput.build(torch, seed=1, widths=(2, 4, 3, 1), backwards=True)
    assert network_from_torch(oblong).architecture.widths == (2, 4, 3, 1)
    # its state dict is in registration order, and the shapes say so
    with pytest.raises(ShapeError, match="layer 2 \\('hidden'\\): weights have 4 columns but layer 1 \\('output'\\) has 1 neurons"):
        network_from_torch(oblong.state_dict())


class Untraceable:
    """A model whose forward torch.fx cannot trace (control flow on a tensor): read in registration order."""

    @staticmethod
    def build(torch, inner):
        class Model(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.inner = inner

            def forward(self, x):
                if x.sum() > float("inf"):  # never true, but torch.fx cannot know
                    return -x
                return self.inner(x)

        return Model()


def test_untraceable_modules_are_read_in_registration_order_and_checked(torch):
    model = Untraceable.build(torch, make_model(torch, seed=4))
    with pytest.raises(torch.fx.proxy.TraceError):
        torch.fx.symbolic_trace(model)
    assert network_from_torch(model) == network_from_torch(make_model(torch, seed=4))
    square = Untraceable.build(torch, InputHiddenOutput.build(torch, seed=1, widths=(3, 3, 3, 3), backwards=True))
    with pytest.raises(ModelMismatchError, match="test point") as info:
        network_from_torch(square)
    assert "registration order" in str(info.value) and "torch.fx cannot trace" in str(info.value)
    # layers whose shapes do not chain in registration order
    oblong = Untraceable.build(torch, InputHiddenOutput.build(torch, seed=1, widths=(2, 4, 3, 1), backwards=True))
    with pytest.raises(ModelMismatchError, match="forward order"):
        network_from_torch(oblong)
    # without a trace, only Linear and ReLU modules are read
    nn = torch.nn
    with pytest.raises(NetworkFormatError, match="torch.fx cannot trace .* module inner.1 is Dropout"):
        network_from_torch(Untraceable.build(torch, nn.Sequential(nn.Linear(2, 2), nn.Dropout(), nn.Linear(2, 1)).eval()))


def test_general_modules_with_functional_or_shared_relu(torch):
    nn = torch.nn

    class Functional(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(7)
            self.fc1, self.fc2, self.fc3 = nn.Linear(2, 4), nn.Linear(4, 3), nn.Linear(3, 1)

        def forward(self, x):
            return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))

    class SharedReLU(Functional):
        def __init__(self):
            super().__init__()
            self.act = nn.ReLU()

        def forward(self, x):
            return self.fc3(self.act(self.fc2(self.act(self.fc1(x)))))

    class Nested(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(8)
            self.body = nn.Sequential(nn.Linear(2, 3), nn.ReLU())
            self.head = nn.Linear(3, 2)

        def forward(self, x):
            return self.head(self.body(x))

    for model, names in ((Functional(), ["fc1", "fc2", "fc3"]), (SharedReLU(), ["fc1", "fc2", "fc3"])):
        assert_network_is_model(network_from_torch(model), model, torch, names)
    nested = Nested()
    net = network_from_torch(nested)
    assert net.weights[0] == tuple(tuple(F(v) for v in row) for row in nested.body[0].weight.tolist())
    assert net.architecture.widths == (2, 3, 2)
    # one ReLU module used twice in a Sequential
    relu = nn.ReLU()
    seq = nn.Sequential(nn.Linear(2, 2), relu, nn.Linear(2, 2), relu, nn.Linear(2, 1))
    assert network_from_torch(seq).architecture.widths == (2, 2, 2, 1)


def test_models_that_compute_something_else_are_refused(torch):
    nn = torch.nn

    class Skip(nn.Module):
        def __init__(self):
            super().__init__()
            torch.manual_seed(9)
            self.fc1, self.fc2 = nn.Linear(3, 3), nn.Linear(3, 3)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x))) + x

    class Leaky(Skip):
        def forward(self, x):
            return self.fc2(torch.nn.functional.leaky_relu(self.fc1(x), 0.01))

    class Broken(Skip):
        def forward(self, x):
            raise RuntimeError("no forward here")

    class Pair(Skip):
        def forward(self, x):
            return self.fc1(x), self.fc2(x)

    with pytest.raises(NetworkFormatError, match="forward calls the operator \\+ .* a skip connection"):
        network_from_torch(Skip())
    with pytest.raises(NetworkFormatError, match="forward calls torch.nn.functional.leaky_relu"):
        network_from_torch(Leaky())
    with pytest.raises(ModelMismatchError, match="forward pass fails .* no forward here"):
        network_from_torch(Broken())
    with pytest.raises(NetworkFormatError, match="forward returns a tuple"):
        network_from_torch(Pair())
    # what torch.fx does not see, the check does: a hook that changes the output
    hooked = nn.Linear(3, 1)
    hooked.register_forward_hook(lambda module, inputs, output: -output)
    with pytest.raises(ModelMismatchError, match="test point .* output"):
        network_from_torch(nn.Sequential(nn.Linear(3, 3), nn.ReLU(), hooked))


def test_the_check_tolerates_float64_rounding_only(torch):
    nn = torch.nn
    torch.manual_seed(10)
    # wide, deep, float16 and bfloat16: the check must not raise on honest models
    wide = nn.Sequential(nn.Linear(40, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 3))
    assert network_from_torch(wide).architecture.widths == (40, 64, 64, 64, 3)
    half = make_model(torch, seed=11).half()
    net = network_from_torch(half)
    assert net.weights[0][0][0] == F(half[0].weight[0, 0].item())
    brain = make_model(torch, seed=12).to(torch.bfloat16)
    assert network_from_torch(brain).weights[1][0][0] == F(brain[2].weight[0, 0].item())
    # a change of one unit in the last place of one float64 weight is caught
    model = make_model(torch, seed=13).double()
    state = model.state_dict()
    net = network_from_torch(state)

    # the forward hook of the model itself is outside what torch.fx traces
    nudged = make_model(torch, seed=13).double()
    nudged.register_forward_hook(lambda module, inputs, output: output * (1 + 2**-30))
    with pytest.raises(ModelMismatchError, match="beyond float64 rounding"):
        network_from_torch(nudged)
    assert net == network_from_torch(model)


def test_the_state_dict_check_catches_a_wrong_conversion(torch, monkeypatch):
    # a reference pass that transposes: the converted (correct) network no longer matches it
    state = {"0.weight": torch.tensor([[1.0, 2.0], [3.0, -4.0]]), "0.bias": torch.zeros(2),
             "2.weight": torch.tensor([[1.0, -1.0]]), "2.bias": torch.zeros(1)}
    assert network_from_torch(state).weights[0] == ((1, 2), (3, -4))
    monkeypatch.setattr(torch.nn.functional, "linear", lambda x, W, b: x @ W + b if W.shape[0] == W.shape[1] else x @ W.T + b)
    with pytest.raises(ModelMismatchError, match="bug in polyrelu"):
        network_from_torch(state)


def test_state_dict_prefixes_keep_first_appearance_order(torch, tmp_path):
    from collections import OrderedDict

    torch.manual_seed(14)
    a, b, c = torch.randn(3, 2), torch.randn(3, 3), torch.randn(1, 3)
    za, zb, zc = torch.randn(3), torch.randn(3), torch.randn(1)
    nested = OrderedDict([("net.10.weight", a), ("net.10.bias", za), ("net.2.weight", b), ("net.2.bias", zb),
                          ("net.0.weight", c), ("net.0.bias", zc)])
    interleaved = OrderedDict([("zeta.weight", a), ("alpha.weight", b), ("alpha.bias", zb), ("zeta.bias", za),
                               ("mid.weight", c), ("mid.bias", zc)])
    expected = ReLUNetwork([a.double().numpy(), b.double().numpy(), c.double().numpy()],
                           [za.double().numpy(), zb.double().numpy(), zc.double().numpy()])
    for state in (nested, interleaved):
        assert network_from_torch(state) == expected
        path = tmp_path / "state.pt"
        torch.save(state, path)
        assert load_network(path) == expected
    # the _metadata attribute of state_dict() (module versions) holds no parameter and is ignored
    nested._metadata = OrderedDict([("", {"version": 1}), ("net", {"version": 99})])
    assert network_from_torch(nested) == expected
    with pytest.raises(NetworkFormatError, match="unexpected entry '_metadata'"):
        network_from_torch({**nested, "_metadata": torch.zeros(1)})
    with pytest.raises(NetworkFormatError, match="unexpected entry 'net.0.version'"):
        network_from_torch({**nested, "net.0.version": torch.ones(1)})


@pytest.mark.parametrize(
    "layer", ["Tanh", "LeakyReLU", "GELU", "Sigmoid", "ReLU6", "Softplus", "ELU", "Hardtanh", "PReLU", "MaxPool1d"]
)
def test_other_modules_are_refused_by_name(torch, layer):
    nn = torch.nn
    module = getattr(nn, layer)(1) if layer == "MaxPool1d" else getattr(nn, layer)()
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), module, nn.Linear(3, 1))
    with pytest.raises(NetworkFormatError, match=f"module 2 is {layer}, which polyrelu does not read; polyrelu reads"):
        network_from_torch(model)

    class General(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1, self.act, self.fc2 = nn.Linear(2, 3), module, nn.Linear(3, 1)

        def forward(self, x):
            return self.fc2(self.act(self.fc1(x)))

    with pytest.raises(NetworkFormatError, match=f"module act is {layer}"):
        network_from_torch(General())


def test_tensors_that_are_not_plain_numbers_are_refused_by_name(torch, tmp_path):
    nn = torch.nn

    def state(weight):
        return {"0.weight": weight, "0.bias": torch.zeros(2), "2.weight": torch.ones(1, 2), "2.bias": torch.zeros(1)}

    cases = {
        "sparse": torch.eye(2).to_sparse(),
        "meta device": torch.ones(2, 2, device="meta"),
        "complex": torch.ones(2, 2, dtype=torch.complex64),
        "bool": torch.ones(2, 2, dtype=torch.bool),
        "float8_e4m3fn": torch.ones(2, 2).to(torch.float8_e4m3fn),
    }
    for fragment, weight in cases.items():
        with pytest.raises(NetworkFormatError, match=re.escape(fragment)) as info:
            network_from_torch(state(weight))
        assert "entry '0.weight'" in str(info.value)
        path = tmp_path / "odd.pt"
        torch.save(state(weight), path)
        with pytest.raises(NetworkFormatError, match=re.escape(fragment)):
            load_network(path)
    with pytest.warns(UserWarning):  # torch deprecates quantized tensors
        quantized = torch.quantize_per_tensor(torch.ones(2, 2), 0.5, 0, torch.qint8)
    with pytest.raises(NetworkFormatError, match="quantized"):
        network_from_torch(state(quantized))
    with pytest.raises(NetworkFormatError, match="meta device"):
        network_from_torch(nn.Linear(2, 3, device="meta"))
    with pytest.raises(NetworkFormatError, match="'0.bias' is a float, not a tensor"):
        network_from_torch({"0.weight": torch.ones(1, 1), "0.bias": 0.5})
    # integer entries are exact
    exact = network_from_torch(state(torch.tensor([[2**62 + 1, -3], [0, 7]], dtype=torch.int64)))
    assert exact.weights[0] == ((2**62 + 1, -3), (0, 7))


def test_tensor_sizes_are_checked_before_conversion(torch, tmp_path):
    # a stride-0 view: 4 bytes of storage, 40 GB if converted
    huge = torch.zeros(1).expand(10**5, 10**5)
    state = {"0.weight": huge, "0.bias": torch.zeros(1).expand(10**5), "1.weight": torch.ones(1, 10**5), "1.bias": torch.zeros(1)}
    error, peak = peak_allocation(network_from_torch, state)
    assert isinstance(error, LimitExceededError), error
    assert "entry '0.weight' declares shape (100000, 100000)" in str(error)
    assert peak < 2**20
    path = tmp_path / "expanded.pt"
    torch.save({"0.weight": huge, "0.bias": torch.zeros(2), "1.weight": torch.ones(1, 2), "1.bias": torch.zeros(1)}, path)
    assert path.stat().st_size < 10_000
    with pytest.raises(LimitExceededError, match="declares shape \\(100000, 100000\\)"):
        load_network(path)
    model = make_model(torch)
    with pytest.raises(LimitExceededError, match="width 3, over the limit of 2"):
        network_from_torch(model, limits=Limits(max_width=2))
    with pytest.raises(LimitExceededError, match="20 weights and biases, over the limit of 19"):
        network_from_torch(model, limits=Limits(max_parameters=19))


# -- arguments ---------------------------------------------------------------------------------
def test_wrong_argument_types(tmp_path, torch):
    path = tmp_path / "net.json"
    save_network(rational_net(), path)
    for call in (
        lambda: load_network(42),
        lambda: load_network(""),
        lambda: load_network(path, trust_pickle="yes"),
        lambda: load_network(path, limits={"max_depth": 3}),
        lambda: network_from_dict(network_to_dict(rational_net()), source=3),
        lambda: network_from_dict(network_to_dict(rational_net()), limits=5),
        lambda: network_to_dict("net.json"),
        lambda: save_network("net", tmp_path / "x.json"),
        lambda: network_from_torch("model.pt"),
        lambda: network_from_torch(make_model(torch), limits=None),
    ):
        with pytest.raises(InvalidArgumentError):
            call()
    with pytest.raises(TypeError):  # the extras are keyword-only
        load_network(path, True)
    with pytest.raises(TypeError):
        network_from_dict(network_to_dict(rational_net()), "source")
    with pytest.raises(OutputPathError, match="does not exist"):
        save_network(rational_net(), tmp_path / "no" / "net.json")
