"""A corpus of crafted network files, generated into a directory: what polyrelu must refuse, or read exactly.

:func:`make_corpus` writes every file and returns one :class:`Case` per file:
its name, what it is, what :func:`polyrelu.load_network` must do with it (the
exception class, or ``None`` when it must load) and the exit status of every
command of the command line that reads a network (:data:`COMMANDS`). Nothing
binary is committed: archives, pickles and PyTorch files are built here, and
every pickle that could run code would create a marker file
(:data:`MARKER_PREFIX`) in the directory, so a loader that executes it is
caught.

Families:

- JSON networks: truncated, a byte order mark, NaN and Infinity tokens, deep
  nesting, huge literals, non-ASCII digits, another format or version, unknown
  or repeated keys, a name that is not text, shapes that do not fit, weights
  of 1e300, 10^400 as a string, empty layers, 13 twin neurons in under 300
  bytes (their canonical form has 13! orderings), a 10→10→10→1 network whose
  complex the size guard refuses;
- NumPy archives: forged headers, a decompression bomb, a pickled object array,
  wrong member names, extended precision (read exactly), other dtypes;
- PyTorch files (when torch is installed): crafted pickles, a whole pickled
  module, a state dict with its layers out of order, sparse, complex and bool
  tensors, a TorchScript archive, a zip bomb member, the pre-1.6 format;
- the file system: a directory named ``x.json``, an empty file, a FIFO (where
  the platform has them), a symlink loop, a dangling symlink, an unknown suffix.

Run as a script, it writes the corpus into a directory and lists it::

    python tests/hostile/make_corpus.py /tmp/corpus
"""

import io
import json
import os
import pickle
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from polyrelu import (
    InvalidNumberError,
    LimitExceededError,
    NetworkFormatError,
    ShapeError,
    UnsafeFileError,
)

__all__ = ["COMMANDS", "MARKER_PREFIX", "RECOVER_QUERIES", "RECOVER_RESULT", "Case", "command_line", "make_corpus", "markers", "npy_bytes"]

# The commands that read a network, in the order they are run.
COMMANDS = ("info", "complex", "weights", "graph", "analyze", "recover")
# A crafted pickle that runs creates a file whose name starts with this, in the corpus directory.
MARKER_PREFIX = "MARKER-"
# The query budget of `recover`, which keeps it short on the networks of the corpus that load.
RECOVER_QUERIES = 2000
# What `recover` may answer for a network that loads: recovered (0) or undecided within the budget (1),
# a result on stdout either way, never an error.
RECOVER_RESULT = frozenset({0, 1})


@dataclass(frozen=True)
class Case:
    """One crafted file and what must happen to it.

    Attributes
    ----------
    name : str
        The file's name in the corpus directory.
    description : str
    load_error : type or None
        The exception class :func:`polyrelu.load_network` raises (exactly
        this class), or None when the file must load.
    exit_codes : dict
        Command (one of :data:`COMMANDS`) to its exit status: 1 for an input
        error, 2 for a usage error, 0 for success; or a frozenset of the
        statuses allowed (:data:`RECOVER_RESULT`).
    silent : frozenset
        Commands that end without an error line whatever their status:
        ``recover`` reports an undecided recovery on stdout (exit 1) and has
        nothing to say on stderr.
    bomb : bool
        A file that declares or expands to far more than it holds: memory and
        time must stay bounded.
    """

    name: str
    description: str
    load_error: type | None
    exit_codes: dict
    silent: frozenset = frozenset()
    bomb: bool = False


def command_line(command, path, output):
    """The arguments of ``polyrelu COMMAND`` on the network file ``path``, writing its result to ``output``."""
    path, output = str(path), str(output)
    return {
        "info": ["info", path],
        "complex": ["complex", path, "-o", output],
        "weights": ["weights", path, "-o", output],
        "graph": ["graph", path, "--json", output],
        "analyze": ["analyze", path, "--no-inradius", "--json", output],
        "recover": ["recover", "--from", path, "--max-queries", str(RECOVER_QUERIES), "-o", output],
    }[command]


def markers(directory):
    """Marker files in ``directory``: each one is proof that code from a crafted file ran."""
    return sorted(p.name for p in Path(directory).glob(MARKER_PREFIX + "*"))


def _refused(error, description, name, bomb=False):
    """A case every command refuses as an input error (exit 1), because the file does not load."""
    return Case(name, description, error, dict.fromkeys(COMMANDS, 1), bomb=bomb)


def _loads(name, description, **exit_codes):
    """A file that loads: every command succeeds unless ``exit_codes`` says otherwise; ``recover`` gives a result."""
    codes = {**dict.fromkeys(COMMANDS, 0), "recover": RECOVER_RESULT, **exit_codes}
    return Case(name, description, None, codes, silent=frozenset({"recover"}))


class _OpensAFile:
    """Unpickling this object creates ``marker``: a loader that runs code from a file gets caught."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        return (open, (self.marker, "w"))


# -- JSON -----------------------------------------------------------------------------------------
def _network_object(layers, **extra):
    return {"format": "polyrelu.network", "version": 1, "layers": layers, **extra}


GOOD_LAYERS = [{"weights": [[1, 2], [3, -4]], "biases": [0, 1]}, {"weights": [[1, -1]], "biases": ["1/2"]}]
GOOD_TEXT = json.dumps(_network_object(GOOD_LAYERS))


def _json_cases():
    text = GOOD_TEXT
    twins = [{"weights": [[k, 2 * k] for k in range(1, 14)], "biases": [-k for k in range(1, 14)]},
             {"weights": [[1] * 13], "biases": [0]}]
    rng = np.random.default_rng(0)
    wide = [{"weights": rng.integers(-9, 10, size=(n, p)).tolist(), "biases": rng.integers(-9, 10, size=n).tolist()}
            for p, n in ((10, 10), (10, 10), (10, 1))]
    return [
        (_refused(NetworkFormatError, "a network cut off in the middle", "truncated.json"), text[: len(text) // 2]),
        (_refused(NetworkFormatError, "a UTF-8 byte order mark before the JSON", "bom.json"), "\ufeff" + text),
        (_refused(InvalidNumberError, "a NaN token as a weight", "nan-token.json"), text.replace("[1, 2]", "[NaN, 2]")),
        (_refused(InvalidNumberError, "an -Infinity token as a bias", "infinity-token.json"), text.replace('"1/2"', "-Infinity")),
        (_refused(LimitExceededError, "arrays nested 100,000 deep", "deep-nesting.json", bomb=True), "[" * 100_000 + "]" * 100_000),
        (_refused(LimitExceededError, "a weight of 30,000 digits, a JSON integer", "huge-literal.json", bomb=True),
         text.replace("[1, 2]", "[1" + "0" * 30_000 + ", 2]")),
        (_refused(LimitExceededError, "an exponent of a billion, as a string", "huge-exponent.json", bomb=True),
         text.replace("[1, 2]", '["1e-999999999", 2]')),
        (_refused(InvalidNumberError, "Arabic-Indic digits in a string", "non-ascii-digits.json"),
         text.replace("[1, 2]", '["\\u0661/\\u0662", 2]')),
        (_refused(InvalidNumberError, "1e400, a JSON float literal beyond float64", "1e400-literal.json"),
         text.replace("[1, 2]", "[1e400, 2]")),
        (_refused(NetworkFormatError, "another format string", "wrong-format.json"),
         text.replace('"polyrelu.network"', '"keras.sequential"')),
        (_refused(NetworkFormatError, "version 2", "wrong-version.json"), text.replace('"version": 1', '"version": 2')),
        (_refused(NetworkFormatError, "version true (== 1 in Python)", "version-true.json"),
         text.replace('"version": 1', '"version": true')),
        (_refused(NetworkFormatError, "an activation key polyrelu would otherwise ignore", "unknown-keys.json"),
         json.dumps(_network_object(GOOD_LAYERS, activation="tanh"))),
        (_refused(ShapeError, "layer 2 reads 3 neurons, layer 1 has 2", "mismatched-shapes.json"),
         text.replace("[[1, -1]]", "[[1, -1, 5]]")),
        (_refused(ShapeError, "a layer with no neurons", "empty-layer.json"),
         json.dumps(_network_object([{"weights": [], "biases": []}, *GOOD_LAYERS[1:]]))),
        (_refused(NetworkFormatError, "no layers at all", "no-layers.json"), json.dumps(_network_object([]))),
        (_refused(NetworkFormatError, "a JSON array, not an object", "array.json"), "[1, 2, 3]"),
        (_refused(NetworkFormatError, "the JSON null", "null.json"), "null"),
        (_refused(InvalidNumberError, "true as a weight", "bool-weight.json"), text.replace("[1, 2]", "[true, 2]")),
        (_refused(NetworkFormatError, "a name that is a number", "name-number.json"),
         json.dumps(_network_object(GOOD_LAYERS, name=12))),
        (_refused(NetworkFormatError, "a name holding a lone surrogate, which no terminal can print", "surrogate-name.json"),
         json.dumps(_network_object(GOOD_LAYERS, name="\ud800 network"))),
        (_refused(NetworkFormatError, "two 'layers' keys: JSON readers differ on which one counts", "duplicate-keys.json"),
         text[:-1] + ', "layers": [{"weights": [[1, 2, 3]], "biases": [0]}]}'),
        (_loads("1e300-weights.json", "weights of ±1e300 and 1e-300: read exactly, every command succeeds"),
         text.replace("[1, 2]", "[1e300, 2]").replace("[3, -4]", "[-1e300, 1e-300]")),
        (_loads("10^400-string.json", "10^400 written as a string: read exactly"),
         text.replace("[1, 2]", '["1' + "0" * 400 + '", 2]')),
        # the canonical form (info, and the equivalence check of analyze) refuses the 13! orderings
        (_loads("13-twins.json", "13 twin neurons in under 300 bytes: their canonical form would compare 13! orderings "
                "(info reports without it; analyze's equivalence check refuses)", analyze=1),
         json.dumps(_network_object(twins), separators=(",", ":"))),
        (_loads("10-10-10-1.json", "hidden widths no larger than n0: the size guard refuses its complex",
                complex=1, weights=1, graph=1, analyze=1),
         json.dumps(_network_object(wide))),
    ]


# -- NumPy archives -------------------------------------------------------------------------------
def npy_bytes(array, **header):
    """An .npy member: the array's own header with ``header`` fields forged, then the array's bytes."""
    fields = np.lib.format.header_data_from_array_1_0(array)
    fields.update(header)
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, fields)
    return out.getvalue() + array.tobytes()


def _good_members():
    return {
        "W1.npy": npy_bytes(np.array([[1.0, 2.0], [3.0, -4.0]])),
        "b1.npy": npy_bytes(np.array([0.0, 1.0])),
        "W2.npy": npy_bytes(np.array([[1.0, -1.0]])),
        "b2.npy": npy_bytes(np.array([0.5])),
    }


def _zip(path, members, compression=zipfile.ZIP_STORED):
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def _npz_cases(directory):
    def archive(name, change=None, drop=(), compression=zipfile.ZIP_STORED):
        members = _good_members()
        members.update(change or {})
        for key in drop:
            del members[key]
        _zip(directory / name, members, compression)

    marker = directory / f"{MARKER_PREFIX}npz-object"
    pickled = io.BytesIO()
    np.lib.format.write_array(pickled, np.array([[_OpensAFile(marker)]], dtype=object), allow_pickle=True)
    archive("forged-header.npz", {"W1.npy": npy_bytes(np.ones(4), shape=(10**9,))})
    archive("header-size-mismatch.npz", {"W1.npy": npy_bytes(np.ones((2, 2)), shape=(2, 3))})
    archive("bomb.npz", {"W1.npy": npy_bytes(np.zeros((2048, 2048)))}, compression=zipfile.ZIP_DEFLATED)
    archive("object-array.npz", {"W1.npy": pickled.getvalue()})
    archive("member-without-suffix.npz", {"W1": _good_members()["W1.npy"]}, drop=("W1.npy",))
    archive("foreign-member.npz", {"foo.npy": npy_bytes(np.zeros(1))})
    archive("missing-member.npz", drop=("b2.npy",))
    archive("far-index.npz", {"W999999999.npy": _good_members()["W2.npy"]})
    archive("complex-dtype.npz", {"W1.npy": npy_bytes(np.ones((2, 2), dtype=complex))})
    archive("bool-dtype.npz", {"W1.npy": npy_bytes(np.ones((2, 2), dtype=bool))})
    archive("structured-dtype.npz", {"W1.npy": npy_bytes(np.zeros((2, 2), dtype=[("a", "<f8")]))})
    archive("nan-entry.npz", {"b1.npy": npy_bytes(np.array([0.0, np.nan]))})
    archive("longdouble.npz", {"W1.npy": npy_bytes(np.array([[1, 2], [3, -4]], dtype=np.longdouble) / 3)})
    archive("npy-version-3.npz", {"W1.npy": b"\x93NUMPY\x03\x00" + _good_members()["W1.npy"][8:]})
    np.save(directory / "single-array.npy", np.ones((2, 2)))
    os.replace(directory / "single-array.npy", directory / "single-array.npz")
    good = directory / "truncated.npz"
    archive(good.name)
    good.write_bytes(good.read_bytes()[:300])
    return [
        _refused(LimitExceededError, "an .npy header declaring 8 GB for 32 bytes", "forged-header.npz", bomb=True),
        _refused(NetworkFormatError, "a header that disagrees with the member's size", "header-size-mismatch.npz"),
        _refused(LimitExceededError, "32 MiB of zeros deflated to a few KiB", "bomb.npz", bomb=True),
        _refused(UnsafeFileError, "an object array: a pickle that would create a marker file", "object-array.npz"),
        _refused(NetworkFormatError, "a member W1 without .npy", "member-without-suffix.npz"),
        _refused(NetworkFormatError, "an array foo besides W1, b1, W2, b2", "foreign-member.npz"),
        _refused(NetworkFormatError, "b2 missing", "missing-member.npz"),
        _refused(NetworkFormatError, "a member W999999999", "far-index.npz"),
        _refused(InvalidNumberError, "complex weights", "complex-dtype.npz"),
        _refused(InvalidNumberError, "bool weights", "bool-dtype.npz"),
        _refused(InvalidNumberError, "a structured dtype", "structured-dtype.npz"),
        _refused(InvalidNumberError, "a NaN bias", "nan-entry.npz"),
        _loads("longdouble.npz", "extended precision weights (float128 where the platform has it): read exactly"),
        _refused(NetworkFormatError, "an .npy member of format version 3.0", "npy-version-3.npz"),
        _refused(NetworkFormatError, "a single .npy array named .npz", "single-array.npz"),
        _refused(NetworkFormatError, "an archive cut off at 300 bytes", "truncated.npz"),
    ]


# -- PyTorch --------------------------------------------------------------------------------------
def _torch_cases(directory):
    try:
        import torch
    except ImportError:
        return []
    torch.manual_seed(0)
    nn = torch.nn
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    state = model.state_dict()

    def marker(name):
        return directory / f"{MARKER_PREFIX}{name}"

    def with_weight(weight):
        return {"0.weight": weight, "0.bias": torch.zeros(2), "2.weight": torch.ones(1, 2), "2.bias": torch.zeros(1)}

    torch.save({"0.weight": torch.ones(1, 1), "0.bias": _OpensAFile(marker("torch-save.pt"))}, directory / "torch-save-payload.pt")
    (directory / "raw-pickle.pt").write_bytes(pickle.dumps(_OpensAFile(marker("raw-pickle.pt")), protocol=2))
    (directory / "raw-pickle-0.pth").write_bytes(pickle.dumps(_OpensAFile(marker("raw-pickle-0.pth")), protocol=0))
    _zip(directory / "crafted-data-pkl.pt", {
        "archive/data.pkl": pickle.dumps(_OpensAFile(marker("crafted-data-pkl.pt")), protocol=2),
        "archive/byteorder": "little",
        "archive/version": "3\n",
    })
    whole = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
    whole.payload = _OpensAFile(marker("whole-module.pt"))
    torch.save(whole, directory / "whole-module.pt")
    torch.save(dict(reversed(list(state.items()))), directory / "out-of-order.pt")
    torch.save(with_weight(torch.eye(2).to_sparse()), directory / "sparse.pt")
    torch.save(with_weight(torch.ones(2, 2, dtype=torch.complex64)), directory / "complex.pt")
    torch.save(with_weight(torch.ones(2, 2, dtype=torch.bool)), directory / "bool.pt")
    torch.save({**state, "0.weight": 0.5}, directory / "not-a-tensor.pt")
    with _quiet_deprecation():
        torch.jit.save(torch.jit.script(model), directory / "torchscript.pt")
    torch.save(state, directory / "legacy.pt", _use_new_zipfile_serialization=False)
    torch.save(state, directory / "state.pt")
    with zipfile.ZipFile(directory / "state.pt") as source, zipfile.ZipFile(directory / "zip-bomb.pt", "w") as target:
        for info in source.infolist():
            target.writestr(info, source.read(info))
        target.writestr("state/data/99", bytes(32 << 20), compress_type=zipfile.ZIP_DEFLATED)
    torch.save({"0.weight": torch.zeros(1).expand(10**5, 10**5), "0.bias": torch.zeros(2),
                "1.weight": torch.ones(1, 2), "1.bias": torch.zeros(1)}, directory / "expanded.pt")
    (directory / "empty.pt").write_bytes(b"")
    return [
        _refused(UnsafeFileError, "torch.save of a dict holding an object that creates a marker", "torch-save-payload.pt"),
        _refused(UnsafeFileError, "a bare pickle (protocol 2) that creates a marker", "raw-pickle.pt"),
        _refused(UnsafeFileError, "a bare pickle (protocol 0) that creates a marker", "raw-pickle-0.pth"),
        _refused(UnsafeFileError, "a zip archive whose data.pkl creates a marker", "crafted-data-pkl.pt"),
        _refused(UnsafeFileError, "a whole pickled nn.Sequential carrying a payload", "whole-module.pt"),
        _refused(ShapeError, "a state dict with its layers in reverse order", "out-of-order.pt"),
        _refused(NetworkFormatError, "a sparse weight tensor", "sparse.pt"),
        _refused(NetworkFormatError, "a complex weight tensor", "complex.pt"),
        _refused(NetworkFormatError, "a bool weight tensor", "bool.pt"),
        _refused(NetworkFormatError, "a weight that is a float, not a tensor", "not-a-tensor.pt"),
        _refused(UnsafeFileError, "a TorchScript archive (code)", "torchscript.pt"),
        _refused(UnsafeFileError, "the pre-1.6 format: a bare pickle", "legacy.pt"),
        _loads("state.pt", "a plain state dict: read exactly"),
        _refused(LimitExceededError, "a state dict plus a deflated member of 32 MiB of zeros", "zip-bomb.pt", bomb=True),
        _refused(LimitExceededError, "a stride-0 tensor of 10^10 entries in 4 bytes of storage", "expanded.pt", bomb=True),
        _refused(NetworkFormatError, "an empty .pt file", "empty.pt"),
    ]


class _quiet_deprecation:
    """torch 2.13 deprecates TorchScript; such files still exist, and the corpus needs one."""

    def __enter__(self):
        import warnings

        self._catch = warnings.catch_warnings()
        self._catch.__enter__()
        warnings.simplefilter("ignore", DeprecationWarning)

    def __exit__(self, *exc):
        return self._catch.__exit__(*exc)


# -- the file system ------------------------------------------------------------------------------
def _filesystem_cases(directory):
    cases = []
    (directory / "x.json").mkdir()
    cases.append(_refused(NetworkFormatError, "a directory named x.json", "x.json"))
    (directory / "empty.json").write_bytes(b"")
    cases.append(_refused(NetworkFormatError, "an empty file", "empty.json"))
    (directory / "binary.json").write_bytes(bytes(range(256)) * 4)
    cases.append(_refused(NetworkFormatError, "binary bytes with a .json suffix", "binary.json"))
    (directory / "network.txt").write_text(GOOD_TEXT)
    cases.append(_refused(NetworkFormatError, "a good network with the suffix .txt", "network.txt"))
    if hasattr(os, "mkfifo"):
        os.mkfifo(directory / "fifo.json")
        cases.append(_refused(NetworkFormatError, "a FIFO: opening it would block", "fifo.json"))
    try:
        os.symlink("loop-b.json", directory / "loop-a.json")
        os.symlink("loop-a.json", directory / "loop-b.json")
        os.symlink("no-such-file.json", directory / "dangling.json")
    except (OSError, NotImplementedError):  # no symlinks here (some Windows setups)
        return cases
    cases.append(_refused(NetworkFormatError, "a symlink loop", "loop-a.json"))
    cases.append(_refused(NetworkFormatError, "a symlink to nothing", "dangling.json"))
    return cases


def make_corpus(directory):
    """Write the corpus into ``directory`` (created if needed; it should be empty) and return its cases.

    Parameters
    ----------
    directory : str or os.PathLike

    Returns
    -------
    list of Case
        In a fixed order; every file named by a case exists in ``directory``.
    """
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    cases = []
    for case, text in _json_cases():
        (directory / case.name).write_text(text, encoding="utf-8")
        cases.append(case)
    cases += _npz_cases(directory)
    cases += _torch_cases(directory)
    cases += _filesystem_cases(directory)
    names = [c.name for c in cases]
    assert len(set(names)) == len(names), "two cases share a file"
    return cases


if __name__ == "__main__":
    for case in make_corpus(sys.argv[1] if len(sys.argv) > 1 else "corpus"):
        loads = "loads" if case.load_error is None else case.load_error.__name__
        print(f"{case.name:28} {loads:20} {case.description}")
