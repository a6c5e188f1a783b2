"""Tests of network I/O: the JSON format of DESIGN §8, .npz archives and PyTorch models.

Expected values are written by hand here (JSON text, numpy arrays, torch
modules) or computed independently (float64 forward passes in torch).
"""

import json
import os
import re
from fractions import Fraction

import numpy as np
import pytest

from polyrelu import (
    InvalidNumberError,
    NetworkFormatError,
    OutputPathError,
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
    with pytest.raises(InvalidNumberError, match=re.escape("layer 1 weights[0][1]")):
        load_network(path)


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
        (lambda nn: nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 2), nn.ReLU()), "module 3 is ReLU"),
        (lambda nn: nn.Sequential(nn.Linear(2, 3, bias=False), nn.ReLU(), nn.Linear(3, 1)), "module 0"),
        (lambda nn: nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1, bias=False)), "module 2"),
        (lambda nn: nn.Sequential(nn.ReLU(), nn.Linear(2, 1)), "module 0 is ReLU"),
        (lambda nn: nn.Sequential(nn.Linear(2, 3), nn.Linear(3, 1)), "module 1 is Linear"),
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
