"""Redraw every image in docs/img with polyrelu's current plot functions (seeded networks: the same images each run).

Run from the repository root (``make docs-images`` does)::

    .venv/bin/python benchmarks/make_doc_images.py                          # all four, under a minute on 2 cores
    .venv/bin/python benchmarks/make_doc_images.py complexes dependency     # only these

The images and the pages that show them:

* ``complexes.png`` (docs/theory.md, Cells): :func:`polyrelu.plot.plot_complex` of the worked example
  ``relu(relu(x1) + relu(x2) - 1)`` and of ``generic_network((2, 5, 3, 1), seed=0)``, side by side;
* ``dependency.png`` (docs/theory.md, dependency graph): the complex of
  ``generic_network((2, 3, 3, 2, 1), seed=1)`` and its dependency graph from ``f`` alone
  (:func:`polyrelu.plot.plot_dependency_graph`, as ``polyrelu graph NET --plot`` draws it);
* ``digits-slice.png`` and ``digits-slice-quick.png`` (docs/tutorial-digits.md): the figure of
  ``examples/digits.py`` (seed 0) after 120 and after 15 epochs (needs torch and scikit-learn:
  ``pip install 'polyrelu[examples]'``).

Each image is written atomically (:func:`polyrelu.plot.save_figure`); the run prints what it wrote.
"""

import argparse
import importlib.util
import io
import sys
import tempfile
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, never a window
import matplotlib.pyplot as plt

from polyrelu import canonical_complex
from polyrelu.atomic import atomic_write
from polyrelu.dependency import dependency_graph
from polyrelu.examples import bent_line_network, generic_network
from polyrelu.plot import plot_complex, plot_dependency_graph, save_figure
from polyrelu.tropical import breakpoint_complex, tropical_weights

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "docs" / "img"


def complexes(path: Path) -> None:
    """The worked example and a generic 2→5→3→1 network, each filled by its active neurons."""
    _, (left, right) = plt.subplots(1, 2, figsize=(12, 6.5))
    plot_complex(canonical_complex(bent_line_network()), ax=left, title="relu(relu(x1) + relu(x2) − 1)")
    K = canonical_complex(generic_network((2, 5, 3, 1), seed=0))
    plot_complex(K, ax=right, title=f"generic 2→5→3→1, seed 0: {K.f_vector()}")
    save_figure(left, path)


def dependency(path: Path) -> None:
    """The complex of generic_network((2, 3, 3, 2, 1), seed=1) and its dependency graph from f alone."""
    net = generic_network((2, 3, 3, 2, 1), seed=1)
    K = canonical_complex(net)
    graph = dependency_graph(breakpoint_complex(tropical_weights(K)))
    _, (left, right) = plt.subplots(1, 2, figsize=(13, 6.5), gridspec_kw={"width_ratios": [1.1, 1]})
    plot_complex(K, ax=left, title=f"generic 2→3→3→2→1 (seed 1): f-vector {K.f_vector()}")
    plot_dependency_graph(graph, ax=right, title="its dependency graph, from f alone")
    save_figure(left, path)


def _digits_module():
    spec = importlib.util.spec_from_file_location("digits", ROOT / "examples" / "digits.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["digits"] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def digits(path: Path, quick: bool) -> None:
    """The figure examples/digits.py draws (seed 0), after 120 epochs or, quick, after 15."""
    with tempfile.TemporaryDirectory() as out:
        show = _digits_module().run(out, quick=quick, seed=0, stdout=io.StringIO())
        with atomic_write(path, "wb") as fh:
            fh.write(Path(show.files["figure"]).read_bytes())


DRAWINGS = {
    "complexes": complexes,
    "dependency": dependency,
    "digits-slice": lambda path: digits(path, quick=False),
    "digits-slice-quick": lambda path: digits(path, quick=True),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("images", nargs="*", metavar="IMAGE",
                        help=f"the images to redraw (default: all of {', '.join(DRAWINGS)})")
    args = parser.parse_args(argv)
    unknown = [name for name in args.images if name not in DRAWINGS]
    if unknown:
        parser.error(f"no image {', '.join(unknown)}: choose among {', '.join(DRAWINGS)}")
    for name in args.images or DRAWINGS:
        path = IMAGES / f"{name}.png"
        DRAWINGS[name](path)
        print(f"written {path.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
