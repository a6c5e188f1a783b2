"""Hypothesis strategies for hostile network files: malformed JSON documents, ``.npz`` archives, state dicts.

Each strategy draws what is written to a file, starting from a valid network
and damaging it in the ways files get damaged or forged: values replaced by
any JSON value, keys dropped or added, text truncated or spliced with tokens
(``NaN``, a byte order mark, brackets, huge literals, other scripts' digits),
archive members renamed, dropped or added, dtypes and ``.npy`` headers
forged, state-dict entries reordered, renamed, of other tensor kinds. Many
draws stay valid. The property tests in ``tests/test_hostile.py`` write each
draw to a file, load it with :func:`polyrelu.load_network`, and check that the
result is exactly what the file says (by an independent reading: Python's
``json`` and ``Fraction``, NumPy's ``.npy`` reader, the tensors themselves)
or a :class:`~polyrelu.errors.PolyReluError`, never another exception.
"""

import io
import json
import zipfile
from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

__all__ = [
    "network_json_texts",
    "json_network_reference",
    "npz_archives",
    "write_npz_archive",
    "npz_reference",
    "TENSOR_KINDS",
    "state_dict_specs",
    "build_state_dict",
    "state_dict_reference",
    "replace_at",
]

# -- JSON --------------------------------------------------------------------------------------------
# Exact numbers in every spelling the format allows.
NUMBERS = st.one_of(
    st.integers(-(10**6), 10**6),
    st.fractions(max_denominator=1000, min_value=-1000, max_value=1000).map(lambda q: f"{q.numerator}/{q.denominator}"),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6),
    st.decimals(allow_nan=False, allow_infinity=False, min_value=-1000, max_value=1000, places=3).map(str),
)
TEXT = st.text(max_size=6)  # lone surrogates included: json.dumps writes them as "\ud800"
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**30), 10**30) | st.floats() | TEXT,
    lambda children: st.lists(children, max_size=3) | st.dictionaries(TEXT, children, max_size=3),
    max_leaves=6,
)
# What a damaged file may hold at any place of its text.
TOKENS = st.sampled_from(
    ["NaN", "Infinity", "-Infinity", "[", "]", "{", "}", ",", ":", '"', "\ufeff", "1e999", "-0", "1" + "0" * 40,
     "\u0663", "true", "null", "\x00", "\\u0000", " ", "\n", "/", "0x10", "1_000", "+1", ".5", "5."]
)


@st.composite
def _network_objects(draw):
    widths = draw(st.lists(st.integers(1, 3), min_size=2, max_size=4))
    layers = [
        {"weights": [[draw(NUMBERS) for _ in range(p)] for _ in range(n)], "biases": [draw(NUMBERS) for _ in range(n)]}
        for p, n in zip(widths, widths[1:])
    ]
    obj = {"format": "polyrelu.network", "version": 1, "layers": layers}
    if draw(st.booleans()):
        obj["name"] = draw(TEXT)
    return obj


def _paths(obj, prefix=()):
    """Every place in a JSON value, as a tuple of keys and indices."""
    yield prefix
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _paths(value, (*prefix, i))


def replace_at(obj, path, value):
    """A copy of a JSON object with the value at ``path`` (keys and indices) replaced."""
    if not path:
        return value
    head, *rest = path
    copy = dict(obj) if isinstance(obj, dict) else list(obj)
    copy[head] = replace_at(obj[head], rest, value)
    return copy


@st.composite
def _damaged_object(draw, obj):
    path = draw(st.sampled_from(list(_paths(obj))))
    kind = draw(st.sampled_from(["replace", "drop", "add", "unwrap", "wrap"]))
    target = obj
    for key in path:
        target = target[key]
    if kind == "replace":
        return replace_at(obj, path, draw(JSON_VALUES | NUMBERS))
    if kind == "drop" and isinstance(target, (dict, list)) and target:
        keys = list(target) if isinstance(target, dict) else list(range(len(target)))
        key = draw(st.sampled_from(keys))
        copy = dict(target) if isinstance(target, dict) else list(target)
        del copy[key]
        return replace_at(obj, path, copy)
    if kind == "add" and isinstance(target, dict):
        return replace_at(obj, path, {**target, draw(TEXT | st.sampled_from(["activation", "layers", "Version"])): draw(JSON_VALUES)})
    if kind == "unwrap" and isinstance(target, list) and target:
        return replace_at(obj, path, target[0])
    return replace_at(obj, path, [target])


@st.composite
def _damaged_text(draw, text):
    at = draw(st.integers(0, len(text)))
    kind = draw(st.sampled_from(["truncate", "insert", "bom", "replace"]))
    if kind == "truncate":
        return text[:at]
    if kind == "bom":
        return "\ufeff" + text
    token = draw(TOKENS)
    if kind == "insert":
        return text[:at] + token + text[at:]
    return text[:at] + token + text[at + 1 :]


@st.composite
def network_json_texts(draw):
    """The text of a network JSON file: valid, or damaged in its structure and then in its characters."""
    obj = draw(_network_objects())
    for _ in range(draw(st.integers(0, 2))):
        obj = draw(_damaged_object(obj))
    text = json.dumps(obj, ensure_ascii=draw(st.booleans()), indent=draw(st.sampled_from([None, 1])))
    for _ in range(draw(st.integers(0, 2))):
        text = draw(_damaged_text(text))
    return text


def json_network_reference(text):
    """What a network JSON text says, read independently of polyrelu: ``(weights, biases, name)`` with exact entries.

    Only for a text polyrelu accepted: Python's ``json`` parses it and
    ``Fraction`` reads each entry (integers, floats exactly, ``"p/q"`` and
    decimal strings).
    """
    obj = json.loads(text)
    exact = [
        ([[Fraction(v) for v in row] for row in layer["weights"]], [Fraction(v) for v in layer["biases"]])
        for layer in obj["layers"]
    ]
    return [w for w, _ in exact], [b for _, b in exact], obj.get("name")


# -- NumPy archives -----------------------------------------------------------------------------------
DTYPES = ["<f8", "<f4", "<f2", ">f8", "<i8", "<i4", "<i1", "<u1", "<u8", "|b1", "<c8", "g", "<M8[s]", "V8", "O"]


def _npy(array, header):
    """An ``.npy`` member: the array's header with ``header`` fields forged, then the array's bytes."""
    fields = np.lib.format.header_data_from_array_1_0(array)
    fields.update(header)
    out = io.BytesIO()
    np.lib.format.write_array_header_1_0(out, fields)
    return out.getvalue() + (array.tobytes() if array.dtype.kind != "O" else b"")


@st.composite
def _array(draw, shape):
    dtype = np.dtype("<f8" if draw(st.integers(0, 3)) else draw(st.sampled_from(DTYPES)))
    values = draw(st.lists(st.floats(width=64) | st.integers(-100, 100), min_size=int(np.prod(shape)), max_size=int(np.prod(shape))))
    with np.errstate(all="ignore"):
        if dtype.kind in "iub":
            values = [int(min(max(v, -100), 100)) if np.isfinite(v) else 0 for v in values]
        if dtype.kind == "M":
            return np.zeros(shape, dtype=dtype)
        if dtype.kind == "V":
            return np.zeros(shape, dtype=[("a", "<f8")])
        if dtype.kind == "O":
            return np.zeros(shape, dtype=object)
        return np.array(values, dtype=np.float64 if dtype.kind in "fc" else np.int64).astype(dtype).reshape(shape)


@st.composite
def npz_archives(draw):
    """``(members, compression)``: ``.npy`` member bytes by name, for a zip archive written with that compression."""
    widths = draw(st.lists(st.integers(1, 3), min_size=2, max_size=3))
    members = {}
    small_shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)
    for l, (p, n) in enumerate(zip(widths, widths[1:]), start=1):
        for name, shape in ((f"W{l}", (n, p)), (f"b{l}", (n,))):
            if not draw(st.integers(0, 7)):
                shape = draw(small_shapes)
            array = draw(_array(shape))
            header = draw(st.sampled_from([{}, {}, {}, {"fortran_order": True}, {"shape": (10**9,)}, {"descr": "<f4"}])) if draw(
                st.integers(0, 5)
            ) == 0 else {}
            if not draw(st.integers(0, 7)):
                header = {"shape": draw(small_shapes)}
            members[f"{name}.npy"] = _npy(array, header)
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["drop", "rename", "add"]))
        names = list(members)
        if kind == "drop" and names:
            del members[draw(st.sampled_from(names))]
        elif kind == "rename" and names:
            old = draw(st.sampled_from(names))
            members[draw(st.sampled_from(["W0.npy", "W01.npy", "W1", "w1.npy", "W1.NPY", "foo.npy", "b9.npy"]))] = members.pop(old)
        else:
            members[draw(st.sampled_from(["W3.npy", "b3.npy", "x.npy", "W1.npy"]))] = _npy(draw(_array((1,))), {})
    compression = draw(st.sampled_from([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED]))
    return members, compression


def write_npz_archive(path, members, compression):
    """Write ``members`` as a zip archive (the ``.npz`` container)."""
    with zipfile.ZipFile(path, "w", compression=compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)


def npz_reference(path):
    """What an ``.npz`` file says, read by NumPy (never unpickling): ``(weights, biases)`` with exact entries."""
    with np.load(path, allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    count = len(arrays) // 2
    assert all(a.dtype.kind in "iuf" for a in arrays.values()), "an array that is not integers or floats was accepted"
    return [_exact(arrays[f"W{l}"]) for l in range(1, count + 1)], [_exact(arrays[f"b{l}"]) for l in range(1, count + 1)]


def _exact(array):
    def one(v):
        return Fraction(int(v)) if array.dtype.kind in "iu" else Fraction(*v.as_integer_ratio())

    return [[one(v) for v in row] for row in array] if array.ndim == 2 else [one(v) for v in array]


# -- state dicts --------------------------------------------------------------------------------------
TENSOR_KINDS = ("float32", "float64", "float16", "bfloat16", "int64", "int8", "bool", "complex64", "sparse", "expanded")


@st.composite
def state_dict_specs(draw):
    """A state dict as ``[(key, kind, shape, values)]`` in file order; :func:`build_state_dict` makes the tensors."""
    widths = draw(st.lists(st.integers(1, 3), min_size=2, max_size=4))
    prefixes = draw(st.sampled_from([["0", "2", "4"], ["fc1", "fc2", "fc3"], ["net.0", "net.2", "net.4"], ["input", "hidden", "output"]]))
    entries = []
    for prefix, (p, n) in zip(prefixes, zip(widths, widths[1:])):
        for part, shape in (("weight", (n, p)), ("bias", (n,))):
            kind = "float32" if draw(st.integers(0, 3)) else draw(st.sampled_from(TENSOR_KINDS))
            if not draw(st.integers(0, 9)):
                shape = draw(st.lists(st.integers(0, 3), max_size=3).map(tuple))
            count = int(np.prod(shape))
            values = draw(st.lists(st.floats(-1e6, 1e6) | st.sampled_from([0.0, 1.0, -1.0]), min_size=count, max_size=count))
            entries.append((f"{prefix}.{part}", kind, shape, values))
    for _ in range(draw(st.integers(0, 2))):
        kind = draw(st.sampled_from(["shuffle", "reverse", "rename", "drop", "duplicate", "swap"]))
        if kind == "shuffle":
            entries = draw(st.permutations(entries))
        elif kind == "reverse":
            entries = entries[::-1]
        elif kind == "rename" and entries:
            i = draw(st.integers(0, len(entries) - 1))
            key = draw(st.sampled_from(["running_mean", "0.weight_orig", "weight", ".bias", "x.y.z", "0.Weight"]))
            entries[i] = (key, *entries[i][1:])
        elif kind == "drop" and entries:
            del entries[draw(st.integers(0, len(entries) - 1))]
        elif kind == "duplicate" and entries:
            entries.append(draw(st.sampled_from(entries)))
        elif kind == "swap" and len(entries) >= 2:
            entries[0], entries[1] = entries[1], entries[0]
    return entries


def build_state_dict(spec, torch):
    """The state dict of a spec: a dict of tensors in the spec's order (a later duplicate key moves nothing)."""
    state = {}
    for key, kind, shape, values in spec:
        base = torch.tensor(values, dtype=torch.float64).reshape(shape)
        if kind == "sparse":
            tensor = base.to_sparse()
        elif kind == "expanded":
            tensor = torch.zeros(1, dtype=torch.float64).expand(shape) if shape else base
        elif kind == "complex64":
            tensor = base.to(torch.complex64)
        elif kind == "bool":
            tensor = base != 0
        elif kind.startswith("int"):
            tensor = base.clamp(-100, 100).to(getattr(torch, kind))
        else:
            tensor = base.to(getattr(torch, kind))
        state[key] = tensor
    return state


def state_dict_reference(state, torch):
    """What a state dict says, read independently: ``(weights, biases)`` of its layers in file order, exactly.

    Layers are the key prefixes in order of first appearance; every tensor
    must be a dense float or integer tensor (float64 holds float16, bfloat16
    and float32 exactly).
    """
    groups = {}
    for key, tensor in state.items():
        prefix, _, part = key.rpartition(".")
        assert part in ("weight", "bias"), f"entry {key!r} was accepted"
        assert tensor.layout == torch.strided and not tensor.is_complex() and tensor.dtype != torch.bool, f"{key} was accepted"
        groups.setdefault(prefix, {})[part] = tensor
    exact = []
    for group in groups.values():
        pair = []
        for part in ("weight", "bias"):
            t = group[part]
            values = t.tolist() if not t.is_floating_point() else t.double().tolist()
            pair.append([[Fraction(v) for v in row] for row in values] if t.dim() == 2 else [Fraction(v) for v in values])
        exact.append(pair)
    return [w for w, _ in exact], [b for _, b in exact]
