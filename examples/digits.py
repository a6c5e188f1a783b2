"""Showcase on real data: an MLP trained on handwritten digits, its exact decision regions on a plane through three test images.

What it does, end to end (docs/tutorial-digits.md explains each step):

1. Loads scikit-learn's bundled 8×8 digits (``load_digits``: 1,797 images, no
   download), scales the pixels ``0..16`` to ``k/16`` (exact in float32) and
   splits them 80/20 with a seeded permutation.
2. Trains a 64→32→32→10 ReLU MLP in PyTorch (float32 by default: see
   ``--dtype``), seeded and deterministic on one thread.
3. Saves its ``state_dict`` as ``model.pt`` and reads it back with
   :func:`polyrelu.io.pytorch.read_torch` (``weights_only=True``, checked
   against a float64 forward pass): every float32 parameter becomes the exact
   rational it is.
4. Slices the exact network through three test images of different predicted
   classes (a 0, a 6 and an 8 when the model gets them right): the plane
   ``x = a + t1 (b - a) + t2 (c - a)``, with ``a``, ``b``, ``c`` at ``(0, 0)``,
   ``(1, 0)``, ``(0, 1)`` and the box ``[-1, 2]^2`` around them (``--margin``).
5. Builds the slice's canonical complex and its decision complex, and prints
   every class region and the decision boundary with their f-vectors and
   exact Betti numbers.
6. Draws the plane coloured by predicted class, with the exact decision
   boundary, the edges of the linear regions and the three images, and
   writes a JSON summary.

Run it with polyrelu installed (the paths are relative to the working directory)::

    python examples/digits.py                    # 120 epochs, 10 to 20 s on 2 cores
    python examples/digits.py --quick --out demo-digits

It needs torch and scikit-learn (``pip install 'polyrelu[examples]'``).
Timings go to stderr, the results to stdout, the files to ``--out``.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

import polyrelu
from polyrelu.atomic import atomic_write, check_output_path, write_json
from polyrelu.io.pytorch import read_torch
from polyrelu.plot import check_figure_path, save_figure

try:
    import torch
    from sklearn.datasets import load_digits
except ImportError as exc:  # the one dependency a reader of this file is likely to lack
    sys.exit(f"examples/digits.py needs torch and scikit-learn ({exc}); install them with: pip install 'polyrelu[examples]'")

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = [
    "ARCHITECTURE",
    "WANTED_CLASSES",
    "Showcase",
    "load_data",
    "train_model",
    "pick_images",
    "exact_class",
    "draw_slice",
    "run",
    "main",
]

ARCHITECTURE = (64, 32, 32, 10)
# a 0, a 6 and an 8: round, round with a stroke, two loops; the first three of these that the model predicts
# correctly on the test split are sliced through
WANTED_CLASSES = (0, 6, 8, 3, 5, 9, 2, 4, 7, 1)
EPOCHS = 120
QUICK_EPOCHS = 15
BATCH = 64
LEARNING_RATE = 3e-3
TEST_FRACTION = 0.2
# The box of the slice reaches this far beyond the three images' triangle, as a fraction of its extent: [-1, 2]^2.
# Wider than slice_through's default (1/4, where only the three images' classes show), so that neighbouring classes
# and their boundaries show too; beyond the triangle's hull pixels leave [0, 1] (extrapolated images).
MARGIN = Fraction(1)
MODEL_FILE, FIGURE_FILE, SUMMARY_FILE = "model.pt", "slice.png", "summary.json"
POINT_NAMES = ("a", "b", "c")
POINT_MARKERS = ("o", "s", "^")

T = TypeVar("T")


@dataclass
class Showcase:
    """Everything one run makes, for the summary and for tests."""

    seed: int
    epochs: int
    dtype: str
    margin: Fraction
    X: np.ndarray
    y: np.ndarray
    train: np.ndarray
    test: np.ndarray
    model: Any
    accuracy: float
    net: polyrelu.ReLUNetwork
    images: tuple[int, ...]
    predicted: tuple[int, ...]
    slice: polyrelu.Slice
    complex: polyrelu.CanonicalComplex
    decision: polyrelu.DecisionComplex
    point_classes: tuple[int, ...]
    regions: dict[int, dict[str, Any]]
    boundary: dict[str, Any]
    axes: Any = None
    files: dict[str, Path] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)


def timed(seconds: dict[str, float], name: str, work: Callable[[], T]) -> T:
    """``work()``, its wall time recorded under ``name`` and printed to stderr."""
    start = time.perf_counter()
    result = work()
    seconds[name] = time.perf_counter() - start
    print(f"time  {name:<18} {seconds[name]:7.2f} s", file=sys.stderr)
    return result


def load_data(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The digits as float32 rows in ``[0, 1]`` (pixel ``k`` becomes ``k/16``, exact), labels, train and test indices.

    The split is a permutation from ``numpy.random.default_rng(seed)``: the
    first fifth is the test set.
    """
    digits = load_digits()
    X = (digits.data / 16).astype(np.float32)
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    cut = int(round(TEST_FRACTION * len(y)))
    return X, y, np.sort(order[cut:]), np.sort(order[:cut])


def train_model(X: np.ndarray, y: np.ndarray, train: np.ndarray, epochs: int, seed: int, dtype: str = "float32") -> Any:
    """A 64→32→32→10 ReLU MLP trained with Adam on cross-entropy, seeded and deterministic; returned in eval mode.

    One thread: the matrices are tiny, so threads only add overhead, and a fixed
    thread count keeps the float sums in the same order, hence the same model,
    on any machine with the same torch.
    """
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    torch_dtype = {"float32": torch.float32, "float64": torch.float64}[dtype]
    layers: list[Any] = []
    for fan_in, fan_out in zip(ARCHITECTURE, ARCHITECTURE[1:]):
        layers += [torch.nn.Linear(fan_in, fan_out, dtype=torch_dtype), torch.nn.ReLU()]
    model = torch.nn.Sequential(*layers[:-1])
    inputs = torch.tensor(X[train], dtype=torch_dtype)
    labels = torch.tensor(y[train])
    optimizer = torch.optim.Adam(model.parameters(), lr=LEARNING_RATE)
    batches = torch.Generator().manual_seed(seed)
    model.train()
    for _ in range(epochs):
        order = torch.randperm(len(labels), generator=batches)
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            optimizer.zero_grad()
            torch.nn.functional.cross_entropy(model(inputs[batch]), labels[batch]).backward()
            optimizer.step()
    return model.eval()


def predict(model: Any, X: np.ndarray) -> np.ndarray:
    """The model's predicted classes (float argmax) for the rows of ``X``."""
    dtype = next(model.parameters()).dtype
    with torch.no_grad():
        return model(torch.tensor(X, dtype=dtype)).argmax(dim=1).numpy()


def pick_images(y: np.ndarray, test: np.ndarray, predicted: np.ndarray, count: int = 3) -> tuple[int, ...]:
    """The first correctly predicted test image of each of the first ``count`` classes of :data:`WANTED_CLASSES` that have one.

    Raises
    ------
    RuntimeError
        Fewer than ``count`` classes have a correctly predicted test image (a
        model that did not learn).
    """
    chosen = []
    for c in WANTED_CLASSES:
        hits = [int(i) for i, p in zip(test, predicted) if y[i] == c and p == c]
        if hits:
            chosen.append(hits[0])
        if len(chosen) == count:
            return tuple(chosen)
    raise RuntimeError(
        f"only {len(chosen)} of the classes have a correctly predicted test image, {count} are needed; train longer"
    )


def exact_class(net: polyrelu.ReLUNetwork, x: Sequence[Any]) -> int:
    """The class the exact network predicts at ``x``: its unique largest output.

    Raises
    ------
    ValueError
        Two outputs tie for the largest (``x`` on the decision boundary).
    """
    outputs = net(x)
    top = max(outputs)
    winners = [c for c, v in enumerate(outputs) if v == top]
    if len(winners) > 1:
        raise ValueError(f"classes {winners} tie at this point: it lies on the decision boundary")
    return winners[0]


def _region_summary(X: polyrelu.Subcomplex) -> dict[str, Any]:
    return {
        "f_vector": list(X.f_vector()),
        "betti": list(polyrelu.betti_numbers(X)),
        "euler_characteristic": X.euler_characteristic(),
    }


def _polygon(cell: polyrelu.Cell) -> list[tuple[float, float]]:
    """The vertices of a bounded 2-cell in counterclockwise order, as floats for drawing only."""
    points = [(float(u), float(v)) for u, v in cell.polyhedron.vertices()]
    cx, cy = sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points)
    return sorted(points, key=lambda p: math.atan2(p[1] - cy, p[0] - cx))


def _segment(cell: polyrelu.Cell) -> list[tuple[float, float]]:
    """The two vertices of an edge, as floats for drawing only."""
    return [(float(u), float(v)) for u, v in cell.polyhedron.vertices()]


def _a(digit: int) -> str:
    """The digit with its article: a 6, an 8."""
    return f"{'an' if digit == 8 else 'a'} {digit}"


def draw_slice(show: Showcase) -> Axes:
    """The slice coloured by predicted class, the exact decision boundary, the linear regions' edges and the three images.

    Colours are matplotlib's ``tab10`` by class; only the classes that have a
    region in the picture get a legend entry. Exact vertices are converted to
    floats here, for drawing only.
    """
    import matplotlib

    matplotlib.use("Agg")  # a file is written, never a window opened
    import matplotlib.pyplot as plt
    from matplotlib.collections import LineCollection, PolyCollection
    from matplotlib.lines import Line2D
    from matplotlib.offsetbox import AnnotationBbox, OffsetImage
    from matplotlib.patches import Patch

    D, K, S = show.decision, show.complex, show.slice
    colours = plt.get_cmap("tab10")
    _, ax = plt.subplots(figsize=(7.5, 7))

    def pale(c: int) -> tuple[float, float, float]:
        # opaque and outlined in its own colour: translucent neighbours would leave seams along shared edges
        r, g, b = colours(c)[:3]
        return (r + 1) / 2, (g + 1) / 2, (b + 1) / 2

    # one collection per kind of thing drawn: a thousand separate patches cost seconds
    polygons, colours_of_polygons, tie_polygons, drawn_classes = [], [], [], set()
    for cell in D.complex.cells(2):
        label = D.label(cell)
        if len(label) == 1:
            (c,) = label
            drawn_classes.add(c)
            polygons.append(_polygon(cell))
            colours_of_polygons.append(pale(c))
        else:  # two outputs equal on a whole region: not generic, shown apart
            tie_polygons.append(_polygon(cell))
    ax.add_collection(PolyCollection(polygons, facecolors=colours_of_polygons, edgecolors=colours_of_polygons,
                                     linewidths=0.6))
    if tie_polygons:
        ax.add_collection(PolyCollection(tie_polygons, facecolors="white", edgecolors="0.3", hatch="//", linewidths=0))
    ax.add_collection(LineCollection([_segment(cell) for cell in K.cells(1)], colors="0.35", linewidths=0.4))
    ax.add_collection(LineCollection([_segment(cell) for cell in D.boundary().cells(1)], colors="black", linewidths=2))
    ax.fill(*zip(*[(float(u), float(v)) for u, v in S.points]), fill=False, edgecolor="black", linestyle="--", linewidth=1)
    for marker, t, i in zip(POINT_MARKERS, S.points, show.images):
        x, y = float(t[0]), float(t[1])
        ax.plot([x], [y], marker, color="white", markeredgecolor="black", markersize=10, markeredgewidth=1.5)
        picture = OffsetImage(show.X[i].reshape(8, 8), zoom=4, cmap="gray_r")
        ax.add_artist(AnnotationBbox(picture, (x, y), xybox=(-28, 28), boxcoords="offset points", pad=0.15))
    handles: list[Any] = [Patch(color=pale(c), label=f"predicted {c}") for c in sorted(drawn_classes)]
    if tie_polygons:
        handles.append(Patch(facecolor="white", edgecolor="0.3", hatch="//", label="two classes tie"))
    handles += [
        Line2D([], [], color="black", linewidth=2, label="decision boundary (exact)"),
        Line2D([], [], color="0.35", linewidth=0.4, label="edges of the linear regions"),
        Line2D([], [], color="black", linestyle="--", linewidth=1, label="mixtures of a, b, c (pixels in [0, 1])"),
    ]
    for name, marker, i in zip(POINT_NAMES, POINT_MARKERS, show.images):
        handles.append(
            Line2D([], [], marker=marker, linestyle="none", color="white", markeredgecolor="black",
                   label=f"{name}: test image {i}, {_a(show.y[i])}")
        )
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1), fontsize="small", borderaxespad=0)
    lower, upper = float(S.domain.lower), float(S.domain.upper)
    ax.set_xlim(lower, upper)
    ax.set_ylim(lower, upper)
    ax.set_aspect("equal")
    ax.set_xlabel("t1 (slice coordinate: x = a + t1 (b - a) + t2 (c - a))")
    ax.set_ylabel("t2 (slice coordinate)")
    arch = "→".join(map(str, ARCHITECTURE))
    first, second, third = (_a(show.y[i]) for i in show.images)
    ax.set_title(f"Predicted class of the {arch} digits MLP on the plane\n"
                 f"through test images of {first}, {second} and {third} (exact regions)")
    return ax


def run(out: os.PathLike | str, *, quick: bool = False, seed: int = 0, dtype: str = "float32",
        margin: Fraction | int | str = MARGIN, epochs: int | None = None, stdout: Any = None) -> Showcase:
    """The whole showcase: train, save, read back, slice, decide, compute homology, draw, summarise.

    Parameters
    ----------
    out : path
        The directory of the files written (created if missing): ``model.pt``,
        ``slice.png``, ``summary.json``.
    quick : bool
        Train for :data:`QUICK_EPOCHS` instead of :data:`EPOCHS`.
    seed : int
        Seeds the split, the initialisation and the batches.
    dtype : ``"float32"`` or ``"float64"``
        The model's parameters.
    margin : number
        Of the slice's box (:func:`polyrelu.slice_through`): ``[-margin, 1 + margin]^2``.
    epochs : int, optional
        Overrides ``quick``.
    stdout : file, optional
        Where the results are printed (``sys.stdout``).

    Raises
    ------
    polyrelu.errors.OutputPathError
        A file of ``out`` cannot be written; checked before training.
    """
    stdout = stdout or sys.stdout
    margin = Fraction(margin)
    if margin < 0:
        raise polyrelu.UsageError(f"--margin must be >= 0 (a fraction of the images' extent), not {margin}")
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise polyrelu.OutputPathError(f"{out}: is a file; --out names the directory the results go to")
    out.mkdir(parents=True, exist_ok=True)
    files = {"model": out / MODEL_FILE, "figure": out / FIGURE_FILE, "summary": out / SUMMARY_FILE}
    check_output_path(files["model"])
    check_output_path(files["summary"])
    check_figure_path(files["figure"])
    seconds: dict[str, float] = {}

    def say(what: str, text: str) -> None:
        print(f"{what:<15}{text}", file=stdout)

    epochs = epochs if epochs is not None else QUICK_EPOCHS if quick else EPOCHS
    X, y, train, test = timed(seconds, "loading the data", lambda: load_data(seed))
    say("data", f"load_digits: {len(y)} images of 8×8 pixels k/16; {len(train)} to train, {len(test)} to test (seed {seed})")
    model = timed(seconds, "training", lambda: train_model(X, y, train, epochs, seed, dtype))
    predicted_test = predict(model, X[test])
    accuracy = float(np.mean(predicted_test == y[test]))
    say("model", f"{'→'.join(map(str, ARCHITECTURE))} ReLU MLP, {dtype}, {epochs} epochs: test accuracy {accuracy:.1%}")

    def save_and_read() -> polyrelu.ReLUNetwork:
        with atomic_write(files["model"], "wb") as fh:
            torch.save(model.state_dict(), fh)
        return read_torch(files["model"])

    net = timed(seconds, "conversion", save_and_read)
    say("network", f"{files['model']} read back exactly: {net.architecture} (checked against a float64 forward pass)")
    images = pick_images(y, test, predicted_test)
    predicted = tuple(int(c) for c in predict(model, X[list(images)]))
    say("images", ", ".join(f"{n} = test image {i} ({_a(y[i])}, predicted {p})"
                             for n, i, p in zip(POINT_NAMES, images, predicted)))
    S = timed(seconds, "slice", lambda: polyrelu.slice_through(net, [X[i] for i in images], margin))
    K = timed(seconds, "slice complex", S.complex)
    lower, upper = S.domain.lower, S.domain.upper
    say("slice", f"the plane through a, b, c; box [{lower}, {upper}]^2; canonical complex f-vector {K.f_vector()}, "
                 f"{len(K.regions())} linear regions")
    D = timed(seconds, "decision complex", lambda: polyrelu.decision_complex(S.network, S.domain))
    say("decision", f"f-vector {D.complex.f_vector()}")

    def homology() -> tuple[dict[int, dict[str, Any]], dict[str, Any]]:
        regions = {c: _region_summary(R) for c in range(D.classes) if len(R := D.class_region(c))}
        return regions, _region_summary(D.boundary())

    regions, boundary = timed(seconds, "Betti numbers", homology)
    for c, r in regions.items():
        say(f"class {c}", f"f-vector {tuple(r['f_vector'])}  Betti {tuple(r['betti'])}  Euler char. {r['euler_characteristic']}")
    absent = [c for c in range(D.classes) if c not in regions]
    if absent:
        say("absent", f"classes {absent} are predicted nowhere in the box")
    say("boundary", f"f-vector {tuple(boundary['f_vector'])}  Betti {tuple(boundary['betti'])}  "
                    f"Euler char. {boundary['euler_characteristic']}")
    point_classes = tuple(exact_class(S.network, t) for t in S.points)
    say("points", ", ".join(f"{n} at {tuple(map(int, t))}: class {c} (exact)"
                             for n, t, c in zip(POINT_NAMES, S.points, point_classes)))
    show = Showcase(
        seed=seed, epochs=epochs, dtype=dtype, margin=margin, X=X, y=y, train=train, test=test, model=model, accuracy=accuracy,
        net=net, images=images, predicted=predicted, slice=S, complex=K, decision=D, point_classes=point_classes,
        regions=regions, boundary=boundary, files=files, seconds=seconds,
    )

    def figure() -> Any:
        ax = draw_slice(show)
        save_figure(ax, files["figure"])
        return ax

    show.axes = timed(seconds, "figure", figure)
    write_json(files["summary"], lambda: summary(show), indent=1)
    say("written", ", ".join(str(p) for p in files.values()))
    return show


def summary(show: Showcase) -> dict[str, Any]:
    """The JSON summary of a run: exact numbers as strings, timings in seconds."""
    S = show.slice
    return {
        "architecture": list(ARCHITECTURE),
        "seed": show.seed,
        "epochs": show.epochs,
        "dtype": show.dtype,
        "margin": str(show.margin),
        "torch": torch.__version__,
        "test_accuracy": show.accuracy,
        "images": [
            {"name": n, "test_image": i, "label": int(show.y[i]), "predicted": p, "slice_point": [str(v) for v in t],
             "exact_class": c}
            for n, i, p, t, c in zip(POINT_NAMES, show.images, show.predicted, S.points, show.point_classes)
        ],
        "domain": {"lower": str(S.domain.lower), "upper": str(S.domain.upper)},
        "slice_complex_f_vector": list(show.complex.f_vector()),
        "decision_complex_f_vector": list(show.decision.complex.f_vector()),
        "class_regions": {str(c): r for c, r in show.regions.items()},
        "boundary": show.boundary,
        "files": {k: str(v) for k, v in show.files.items()},
        "seconds": {k: round(v, 3) for k, v in show.seconds.items()},
    }


def main(argv: Sequence[str] | None = None) -> int:
    """The command line; returns the exit status (2 for a bad option or output path, 1 for a failed run)."""
    parser = argparse.ArgumentParser(prog="digits.py", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help=f"train {QUICK_EPOCHS} epochs instead of {EPOCHS} (make demo)")
    parser.add_argument("--out", default="digits-out",
                        help="directory of model.pt, slice.png, summary.json (default: digits-out)")
    parser.add_argument("--seed", type=int, default=0, help="seeds the split, the initialisation and the batches (default 0)")
    parser.add_argument("--dtype", choices=("float32", "float64"), default="float32",
                        help="the model's parameters (default float32: the shorter exact rationals)")
    parser.add_argument("--margin", default=str(MARGIN),
                        help=f"the slice's box is [-margin, 1 + margin]^2 in slice coordinates (default {MARGIN})")
    args = parser.parse_args(argv)
    try:
        margin = Fraction(args.margin)
    except (ValueError, ZeroDivisionError):
        print(f"digits.py: --margin {args.margin!r} is not a number; give one such as 1, 0.5 or 1/4", file=sys.stderr)
        return 2
    try:
        run(args.out, quick=args.quick, seed=args.seed, dtype=args.dtype, margin=margin)
    except polyrelu.UsageError as exc:
        print(f"digits.py: {exc}", file=sys.stderr)
        return 2
    except (polyrelu.PolyReluError, RuntimeError) as exc:  # the model does not convert, or did not learn
        print(f"digits.py: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
