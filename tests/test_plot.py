"""Pictures: what is drawn matches the complex."""

import matplotlib

matplotlib.use("Agg")

import pytest

from polyrelu import (
    Box,
    GeometryError,
    ReLUNetwork,
    canonical_complex,
    tropical_weights,
)
from polyrelu.examples import bent_line_network
from polyrelu.plot import plot_complex


def test_edges_styles_follow_weights_and_layers():
    K = canonical_complex(bent_line_network())
    ax = plot_complex(K, window=(-3, 3))
    edges = ax.lines[:-1]  # the last line holds the vertex marks
    assert len(edges) == len(K.cells(1))
    dashed = [l for l in edges if l.get_linestyle() == "--"]
    W = tropical_weights(K)
    assert len(dashed) == sum(1 for w in W.weights().values() if not any(w.weight))
    # the segment of weight √2 is the thickest line
    widths = sorted(l.get_linewidth() for l in edges)
    assert widths[-1] > widths[-2]
    assert len(ax.lines[-1].get_xdata()) == len(K.cells(0))


def test_box_domain_draws_its_boundary_dotted():
    K = canonical_complex(ReLUNetwork.random((2, 3, 1), seed=1), Box(-2, 2))
    ax = plot_complex(K)
    dotted = [l for l in ax.lines if l.get_linestyle() == ":"]
    assert len(dotted) == sum(1 for c in K.cells(1) if 0 in c.domain_signs)


def test_only_two_inputs():
    with pytest.raises(GeometryError, match="2 inputs"):
        plot_complex(canonical_complex(ReLUNetwork.random((3, 2, 1), seed=0)))
