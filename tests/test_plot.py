"""Pictures: what is drawn matches the complex, and says what it shows (labels, legend, colour bar, title)."""

import json
import re
import sys
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402  (after the backend is chosen)
import pytest  # noqa: E402
from matplotlib.colors import to_rgba  # noqa: E402

from polyrelu import (  # noqa: E402
    BackendUnavailableError,
    Box,
    DependencyGraph,
    GeometryError,
    ReLUNetwork,
    UsageError,
    canonical_complex,
    slice_through,
    tropical_weights,
)
from polyrelu.errors import InvalidArgumentError  # noqa: E402
from polyrelu.examples import bent_line_network  # noqa: E402
from polyrelu.plot import plot_complex, plot_dependency_graph, write_complex_html  # noqa: E402
from polyrelu.plot.complex import DOMAIN_BOUNDARY, VERTICES, WEIGHT_ZERO  # noqa: E402


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


# -- what the figure says: labels, legend, colours, window, title --------------------------------------------

def legend_labels(ax):
    legend = ax.get_legend()
    return set() if legend is None else {t.get_text() for t in legend.get_texts()}


def drawn_labels(ax):
    """The legend entries that the drawn lines and fills call for, read off the artists themselves."""
    tab10 = [to_rgba(c) for c in plt.get_cmap("tab10").colors]
    wanted = set()
    for line in ax.lines:
        if line.get_linestyle() == "None":
            wanted.add(VERTICES)
        elif line.get_linestyle() == ":":
            wanted.add(DOMAIN_BOUNDARY)
        else:
            wanted.add(f"layer {tab10.index(to_rgba(line.get_color())) + 1}")
            if line.get_linestyle() == "--":
                wanted.add(WEIGHT_ZERO)
    return wanted


@pytest.mark.parametrize("K", [
    canonical_complex(bent_line_network()),                                  # zero weights, no domain
    canonical_complex(ReLUNetwork.random((2, 3, 1), seed=1), Box(-2, 2)),    # a domain boundary, no zero weight
    canonical_complex(ReLUNetwork.random((2, 3, 2, 1), seed=4)),
], ids=["bent-line", "box", "two-layers"])
def test_legend_lists_exactly_what_is_drawn_and_axes_are_labelled(K):
    ax = plot_complex(K)
    assert legend_labels(ax) == drawn_labels(ax)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x1", "x2")
    ax = plot_complex(K, axis_labels=("t1", "t2"), fill=None)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("t1", "t2")
    assert not ax.collections and len(ax.figure.axes) == 1  # no fill, no colour bar
    plt.close("all")


def test_no_boundary_or_zero_weight_entry_when_none_is_drawn():
    K = canonical_complex(ReLUNetwork.random((2, 3, 1), seed=1))
    ax = plot_complex(K)
    assert not any(l.get_linestyle() in (":", "--") for l in ax.lines)
    assert DOMAIN_BOUNDARY not in legend_labels(ax) and WEIGHT_ZERO not in legend_labels(ax)
    plt.close("all")


def polygons(ax):
    return [p.vertices for c in ax.collections for p in c.get_paths()]


def test_window_is_honoured_and_an_empty_one_refused():
    K = canonical_complex(bent_line_network())
    ax = plot_complex(K, window=("-1/2", 2, -1, 3))
    assert ax.get_xlim() == (-0.5, 2.0) and ax.get_ylim() == (-1.0, 3.0)
    points = [p for polygon in polygons(ax) for p in polygon]
    assert points and all(-0.5 - 1e-9 <= x <= 2 + 1e-9 and -1 - 1e-9 <= y <= 3 + 1e-9 for x, y in points)
    # the regions tile the window: their areas add up to its area
    area = sum(abs(sum(x0 * y1 - x1 * y0 for (x0, y0), (x1, y1) in zip(p[:-1], p[1:]))) / 2 for p in polygons(ax))
    assert area == pytest.approx(2.5 * 4)
    for bad in [(0, 1, 2, 2), (1, 0, 0, 1), (3, 3)]:
        with pytest.raises(UsageError, match="window .* is empty .*give XMIN < XMAX"):
            plot_complex(K, window=bad)
    with pytest.raises(InvalidArgumentError, match="window must be"):
        plot_complex(K, window=(0, 1, 2))
    plt.close("all")


def test_colour_bar_says_what_the_fill_means():
    K = canonical_complex(ReLUNetwork.random((2, 4, 1), seed=2))
    ax = plot_complex(K, fill="activation")
    bar = ax.figure.axes[1]
    assert bar.get_ylabel() == "active neurons (of 4)"
    counts = sorted({sum(1 for s in r.signs if s > 0) for r in K.regions()})
    assert [round(t) for t in bar.get_yticks()] == list(range(counts[0], counts[-1] + 1))
    # one colour per count: regions with the same count share it, others do not
    assert len({tuple(c) for c in ax.collections[0].get_facecolors()}) == len(counts)
    ax = plot_complex(K, fill="output")
    assert ax.figure.axes[1].get_ylabel() == "f at the centre of the region (as drawn)"
    with pytest.raises(UsageError, match="fill='class' needs a network with several outputs"):
        plot_complex(K, fill="class")
    with pytest.raises(UsageError, match="fill must be 'activation' or 'output' or 'class'"):
        plot_complex(K, fill="colour")
    plt.close("all")


def test_class_fill_is_exact_and_its_legend_names_the_classes_drawn():
    net = ReLUNetwork.random((2, 5, 3), seed=3)
    K = canonical_complex(net, Box(-3, 3))
    ax = plot_complex(K, fill="class")
    assert ax.figure.axes == [ax]  # classes have a legend, not a colour bar
    coloured, *hatched = ax.collections
    classes = set()
    tab10 = plt.get_cmap("tab10")
    for path, colour in zip(coloured.get_paths(), coloured.get_facecolors()):
        # the one class maximal on the region: at points all over the polygon, f's argmax is it
        c = min(range(10), key=lambda k: sum(abs(0.5 + 0.5 * a - b) for a, b in zip(tab10(k)[:3], colour[:3])))
        classes.add(c)
        vertices = path.vertices[:-1]
        for w in vertices:
            x = [Fraction(0.9 * a + 0.1 * b).limit_denominator(10**6) for a, b in zip(w, vertices.mean(axis=0))]
            out = net(x)
            assert out[c] == max(out)
    assert {f"class {c}" for c in classes} == {l for l in legend_labels(ax) if l.startswith("class")}
    # a hatched region is cut by the decision boundary: two of its points have different classes
    if hatched:
        assert "cut by the decision boundary" in legend_labels(ax)
        path = hatched[0].get_paths()[0]
        tops = set()
        for w in path.vertices[:-1]:
            x = [Fraction(0.9 * a + 0.1 * b).limit_denominator(10**6) for a, b in zip(w, path.vertices[:-1].mean(axis=0))]
            out = net(x)
            tops.add(out.index(max(out)))
        assert len(tops) > 1
    plt.close("all")


def test_title_from_the_network_name_never_just_network():
    named = ReLUNetwork.random((2, 3, 1), seed=1)
    assert plot_complex(canonical_complex(named)).get_title().startswith(named.name + ": f-vector")
    anonymous = ReLUNetwork(named.weights, named.biases)
    title = plot_complex(canonical_complex(anonymous)).get_title()
    assert "2→3→1" in title and not title.startswith("network")
    plt.close("all")


# -- dependency graphs: labels that never overlap ----------------------------------------------------------


def layered_graph(width, depth=3):
    """A parameter dependency graph with ``depth`` layers of ``width`` neurons and many edges."""
    vertices = [
        {"id": l * width + i, "facets": [], "layer": l + 1, "neuron": [l + 1, i], "complete": i % 4 != 1, "flat": False}
        for l in range(depth) for i in range(width)
    ]
    edges = [
        {"source": l * width + i, "target": (l + 1) * width + j, "witness": 0, "witnesses": [0]}
        for l in range(depth - 1) for i in range(width) for j in range(width) if (i + j) % 3 == 0
    ]
    return DependencyGraph.from_json({"format": "polyrelu.dependency_graph", "version": 1, "kind": "parameter",
                                      "input_dim": 2, "vertices": vertices, "edges": edges})


@pytest.mark.parametrize("width", [16, 32])
def test_dependency_graph_labels_do_not_overlap(width):
    ax = plot_dependency_graph(layered_graph(width))
    renderer = ax.figure.canvas.get_renderer()
    ax.figure.draw(renderer)
    boxes = [t.get_bbox_patch().get_window_extent(renderer) for t in ax.texts]
    assert len(boxes) == 3 * width
    assert {t.get_text() for t in ax.texts} == {f"({l}, {i})" for l in (1, 2, 3) for i in range(width)}
    for k, a in enumerate(boxes):
        for b in boxes[k + 1:]:
            assert not a.overlaps(b)
    # columns are layers: the labels of layer l share one x
    xs = {int(t.get_text()[1]): set() for t in ax.texts}
    for t in ax.texts:
        xs[int(t.get_text()[1])].add(t.get_position()[0])
    assert all(len(v) == 1 for v in xs.values()) and ax.get_xlabel() == "layer"
    # in a small axes the font shrinks instead
    _, small = plt.subplots(figsize=(3, 3))
    plot_dependency_graph(layered_graph(width), ax=small)
    assert max(t.get_fontsize() for t in small.texts) < max(t.get_fontsize() for t in ax.texts)
    plt.close("all")


# -- interactive pages ----------------------------------------------------------------------------------------


def page_traces(path):
    """The traces of a Plotly page: the JSON array given to Plotly.newPlot."""
    text = path.read_text()
    start = re.search(r'Plotly\.newPlot\(\s*"[^"]+",\s*', text).end()
    traces, _ = json.JSONDecoder().raw_decode(text, start)
    return traces


def signed_volume(trace):
    p = list(zip(trace["x"], trace["y"], trace["z"]))
    total = 0.0
    for a, b, c in zip(trace["i"], trace["j"], trace["k"]):
        (x0, y0, z0), (x1, y1, z1), (x2, y2, z2) = p[a], p[b], p[c]
        total += (x0 * (y1 * z2 - y2 * z1) - y0 * (x1 * z2 - x2 * z1) + z0 * (x1 * y2 - x2 * y1)) / 6
    return total


def test_html_page_of_a_plane_complex(tmp_path):
    K = canonical_complex(bent_line_network())
    write_complex_html(K, tmp_path / "K.html", window=(-1, 2, -1, 2))
    traces = page_traces(tmp_path / "K.html")
    cells = [t for t in traces if t.get("name", "").startswith("cell ")]
    assert len(cells) == len(K.regions())  # every region meets this window
    for t in cells:
        region = K.cell(int(t["name"].split()[1]))
        signs = "".join("+" if s > 0 else "-" for s in region.signs)
        assert f"signs {signs}" in t["text"] and "(dimension 2)" in t["text"]
        assert f"{sum(1 for s in region.signs if s > 0)} active neurons" in t["text"]
    # the filled polygons tile the window
    area = sum(abs(sum(x0 * y1 - x1 * y0 for x0, y0, x1, y1 in zip(t["x"], t["y"], t["x"][1:], t["y"][1:]))) / 2
               for t in cells)
    assert area == pytest.approx(9)
    bar = [t for t in traces if t.get("marker", {}).get("showscale")]
    assert len(bar) == 1 and bar[0]["marker"]["colorbar"]["title"]["text"] == "active neurons (of 3)"
    assert [t["name"] for t in traces if t.get("name") == "edges"] == ["edges"]


def test_html_page_of_a_3d_slice_has_closed_region_meshes(tmp_path):
    net = ReLUNetwork.random((4, 4, 1), seed=5)
    S = slice_through(net, [[0, 0, 0, 0], [1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0]])
    K = S.complex()
    write_complex_html(K, tmp_path / "S.html", fill="output", axis_labels=("t1", "t2", "t3"))
    traces = page_traces(tmp_path / "S.html")
    cells = [t for t in traces if t["type"] == "mesh3d"]
    assert len(cells) == len(K.regions())
    # each region's mesh is its closed, consistently oriented boundary: the volumes fill the slice's box
    box = 1
    for lo, hi in zip(S.domain.lower if isinstance(S.domain.lower, list) else [S.domain.lower] * 3,
                      S.domain.upper if isinstance(S.domain.upper, list) else [S.domain.upper] * 3):
        box *= float(hi - lo)
    assert sum(abs(signed_volume(t)) for t in cells) == pytest.approx(box)
    assert all("f = " in t["text"] for t in cells)


def test_html_needs_plotly_and_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "plotly", None)
    monkeypatch.setitem(sys.modules, "plotly.graph_objects", None)
    with pytest.raises(BackendUnavailableError, match=re.escape("pip install 'polyrelu[plot]'")):
        write_complex_html(canonical_complex(bent_line_network()), tmp_path / "K.html")
    assert not (tmp_path / "K.html").exists()
