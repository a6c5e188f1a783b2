"""One report of everything polyrelu knows about a network: ``polyrelu analyze`` (docs/design.md §6).

:func:`analyze` gathers the canonical complex, the tropical weights, the four
genericity conditions, the dependency graph and depth bound, the functional
dimension, and the identifiability and minimality verdicts, plus one float
conditioning diagnostic: the inradius of the thinnest region, from a
Chebyshev-centre program solved with cvxpy (off the exact path; it decides
nothing). :func:`slice_network` restricts a network to a plane, which is how
3-D inputs are drawn.
"""

from __future__ import annotations

import math

# cvxpy is imported where the thinnest region is measured, and matplotlib's backend and pyplot where a picture is
# drawn: every command of the CLI imports this module, and cvxpy would add to every start-up
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from .atomic import write_json
from .checks import (
    require_axes,
    require_bool,
    require_instance,
    require_int,
    require_real,
)
from .complex import CanonicalComplex, canonical_complex
from .dependency import (
    DependencyGraph,
    DepthHierarchy,
    dependency_graph,
    depth_hierarchy,
)
from .domain import Box
from .errors import GeometryError, ShapeError
from .genericity import GenericityReport, genericity
from .geometry import Polyhedron
from .geometry.rational import MatrixLike, RationalLike, VectorLike, to_fraction_vector
from .identifiability import (
    FunctionalDimension,
    IdentifiabilityReport,
    MinimalityReport,
    functional_dimension,
    identifiability_report,
    minimality_report,
)
from .io import network_to_dict
from .network import ReLUNetwork
from .parallel import check_parallel_arguments
from .plot import check_figure_path, plot_complex, save_figure
from .progress import progress_bar
from .report import network_report
from .slices import restrict
from .text import wrap
from .tropical import WeightedComplex, breakpoint_complex, tropical_weights

# igraph loads matplotlib.pyplot when it is imported (half a second): it and networkx are imported where a
# graph is made or converted, so that `import polyrelu` does not pay for them
if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["Analysis", "analyze", "slice_network", "thinnest_region"]

FORMAT = "polyrelu.analysis"
VERSION = 1


@dataclass
class Analysis:
    """The parts of :func:`analyze`, each the object its own function returns.

    Attributes
    ----------
    network, complex, weights, genericity, graph, depth, functional_dimension,
    identifiability, minimality
        As returned by the functions of the same names.
    inradius : (float, int) or None
        The thinnest region's inradius (float, within ``box``) and its cell id.
    box : Fraction
        Regions are clipped to ``[-box, box]^n0`` for the inradius (on ``R^n0``).
    """

    network: ReLUNetwork
    complex: CanonicalComplex
    weights: WeightedComplex
    genericity: GenericityReport
    graph: DependencyGraph
    depth: DepthHierarchy | None
    functional_dimension: FunctionalDimension
    identifiability: IdentifiabilityReport
    minimality: MinimalityReport
    inradius: tuple[float, int] | None = None
    box: Fraction | None = None
    timings: dict[str, float] = field(default_factory=dict)

    def __str__(self):
        K, W, G = self.complex, self.weights, self.graph
        facets = list(W.weights().values())
        visible = [f for f in facets if any(f.weight)]
        sizes = [max(abs(v) for v in f.euclidean_weight) for f in visible]
        # the labelled lines wrap under their text (20 columns in), within the 120 columns of all printed text
        labelled = [
            f"canonical complex   f-vector {K.f_vector()}, Euler characteristic {K.euler_characteristic()}, "
            f"{len(K.regions())} regions",
            f"tropical weights    {len(facets)} interior facets, {len(visible)} visible"
            + (f"; |Euclidean weight| from {min(sizes):.4g} to {max(sizes):.4g}" if sizes else ""),
            "genericity          " + "; ".join(str(c) for c in self.genericity.conditions),
            f"dependency graph    {len(G)} candidates, {len(G.candidates.unresolved)} unresolved cells, "
            f"{G.graph.ecount()} edges, layers {G.layer_sizes() if G.is_dag() else 'undefined (cycle)'}",
        ]
        lines = [network_report(self.network), "", *(part for line in labelled for part in wrap(line, 20))]
        if self.depth is not None:
            lines.extend("  " + line for line in str(self.depth).splitlines())
        lines.append(str(self.functional_dimension))
        lines.extend(str(self.identifiability).splitlines())
        lines.extend(str(self.minimality).splitlines())
        if self.inradius is not None:
            r, cell = self.inradius
            where = "" if self.complex.domain is not None else f" (regions clipped to [-{self.box}, {self.box}]^n0)"
            lines.append(f"conditioning        thinnest region {cell}: inradius {r:.4g}{where} (float, cvxpy)")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict, valid under the ``analysis`` schema (:func:`polyrelu.schemas.validate`)."""
        K, W = self.complex, self.weights
        facets = list(W.weights().values())
        visible = [f for f in facets if any(f.weight)]
        largest = max((max(abs(v) for v in f.euclidean_weight) for f in visible), default=0.0)
        fd = self.functional_dimension
        return {
            "format": FORMAT,
            "version": VERSION,
            "network": network_to_dict(self.network),
            "architecture": {
                "widths": list(self.network.architecture.widths),
                "parameters": self.network.architecture.num_parameters,
                "hidden_neurons": self.network.architecture.num_hidden,
                "width_hypothesis": self.network.architecture.width_hypothesis,
            },
            "complex": {
                "f_vector": list(K.f_vector()),
                "euler_characteristic": K.euler_characteristic(),
                "regions": len(K.regions()),
            },
            "weights": {
                "interior_facets": len(facets),
                "visible_facets": len(visible),
                # JSON has no infinity: a weight beyond the float range is written as null
                "max_abs_euclidean_weight": None if math.isinf(largest) else largest,
            },
            "genericity": {c.name: c.holds for c in self.genericity.conditions},
            "dependency_graph": self.graph.to_json(),
            "functional_dimension": {"rank": fd.rank, "bound": fd.bound, "method": fd.method,
                                     "kernel_beyond_scaling": len(fd.kernel)},
            "identifiability": self.identifiability.to_json(),
            "minimality": {
                "verdict": self.minimality.verdict,
                "removals": [{"neuron": list(r.neuron), "how": r.how} for r in self.minimality.removals],
            },
            "inradius": None if self.inradius is None else {"value": self.inradius[0], "region": self.inradius[1],
                                                            "box": None if self.box is None else str(self.box)},
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
        }

    def write_json(self, path: os.PathLike | str) -> None:
        """Write :meth:`to_json` to ``path``, atomically: the previous file survives any failure.

        Raises
        ------
        OutputPathError
            ``path`` cannot be written (checked before anything is computed).
        """
        write_json(path, self.to_json, indent=1)

    def plot(
        self,
        path: os.PathLike | str | None = None,
        ax: Axes | None = None,
        *,
        title: str | None = None,
        window: Sequence[RationalLike] | None = None,
        fill: str | None = "activation",
    ) -> Axes:
        """Draw the complex (2-D inputs; 3-D inputs as the slice ``x3 = 0``), hypersurfaces coloured by layer.

        Parameters
        ----------
        path : str or os.PathLike, optional
            Also write the figure here (see :func:`~polyrelu.plot.save_figure`;
            the path is checked before anything is drawn).
        ax : matplotlib Axes, optional
        title : str, optional
            Default: the network's name (its architecture when it has none).
        window : sequence of numbers, optional
            ``(xmin, xmax, ymin, ymax)`` or ``(lo, hi)``, as in
            :func:`~polyrelu.plot.plot_complex` (default: around most of the vertices).
        fill : {"activation", "output", "class"} or None
            What a region's colour means (:func:`~polyrelu.plot.plot_complex`).

        Raises
        ------
        OutputPathError
            ``path`` cannot be written or has a suffix other than .png, .svg, .pdf.
        ShapeError
            The network has neither 2 nor 3 inputs.
        """
        import matplotlib

        if path is not None:
            matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        if path is not None:
            check_figure_path(path)
        require_axes(ax, "ax", "Analysis.plot", optional=True)
        n0 = self.network.architecture.input_dim
        name = title if title is not None else self.network.name or f"a {self.network.architecture} network"
        if n0 == 2:
            K, W = self.complex, self.weights
        elif n0 == 3:
            flat = slice_network(self.network, [0, 0, 0], [1, 0, 0], [0, 1, 0])
            K = canonical_complex(flat)
            W, name = tropical_weights(K), f"{name}, slice x3 = 0"
        else:
            raise ShapeError(f"pictures are drawn for 2 or 3 inputs, not {n0}")
        if ax is None:
            _, ax = plt.subplots(figsize=(6, 6))
        plot_complex(K, W, ax=ax, title=name, window=window if window is not None else _window(K), fill=fill)
        if path is not None:
            save_figure(ax, path)
        return ax


def analyze(
    network: ReLUNetwork,
    domain: Box | Polyhedron | MatrixLike | None = None,
    inradius: bool = True,
    *,
    max_cells: int = 1_000_000,
    n_jobs: int | None = None,
    scheduler: str | None = None,
) -> Analysis:
    """Everything at once: complex, weights, genericity, dependency graph, functional dimension, verdicts.

    Parameters
    ----------
    network : ReLUNetwork
    domain : optional
        As for :func:`~polyrelu.complex.canonical_complex`.
    inradius : bool
        Also compute the thinnest region's inradius (cvxpy; float diagnostic).
    max_cells : int
        Refuse, before enumerating a layer, a canonical complex estimated to
        have more cells (as for :func:`~polyrelu.complex.canonical_complex`).
    n_jobs : int, optional
        Worker processes for the parts that split into independent tasks: the
        minimality checks, one per hidden neuron
        (:func:`~polyrelu.identifiability.minimality_report`), and the batches
        of regions of the functional dimension
        (:func:`~polyrelu.identifiability.functional_dimension`). As for
        :func:`~polyrelu.parallel.parallel_map`: ``1`` serial, ``None`` (the
        default) every core once the work is long enough. The analysis is the
        same for every choice, apart from its ``timings``.
    scheduler : str, optional
        The address of a Dask scheduler whose workers run those tasks (docs/parallel.md).

    Returns
    -------
    Analysis

    Raises
    ------
    ComplexTooLargeError
        The network's complex would have more than ``max_cells`` cells.
    UsageError
        A bad ``n_jobs``, or a scheduler that cannot be reached.

    Examples
    --------
    >>> from polyrelu.examples import generic_network
    >>> a = analyze(generic_network((2, 3, 2, 1), seed=1), inradius=False)
    >>> a.identifiability.verdict, a.functional_dimension.rank, a.depth.lower_bound
    ('identifiable (theorem conditions hold)', 15, 2)
    """
    require_instance(network, ReLUNetwork, "network", "analyze")
    inradius = require_bool(inradius, "inradius", "analyze")
    require_int(max_cells, "max_cells", "analyze", minimum=1)
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, "analyze")
    timings = {}

    def timed(name, fn):
        start = time.perf_counter()
        value = fn()
        timings[name] = time.perf_counter() - start
        return value

    K = timed("complex", lambda: canonical_complex(network, domain, max_cells=max_cells))
    W = timed("weights", lambda: tropical_weights(K))
    report = timed("genericity", lambda: genericity(K, weighted=W))
    G = timed("dependency graph", lambda: dependency_graph(breakpoint_complex(W)))
    H = depth_hierarchy(G) if G.is_dag() else None
    fd = timed("functional dimension",
               lambda: functional_dimension(network, complex_=K, n_jobs=n_jobs, scheduler=scheduler))
    ident = timed("identifiability", lambda: identifiability_report(network, domain, max_cells=max_cells))
    minimal = timed("minimality",
                    lambda: minimality_report(network, domain, max_cells=max_cells, n_jobs=n_jobs, scheduler=scheduler))
    thin, box = None, None
    if inradius:
        box = _clip_box(K)
        thin = timed("inradius", lambda: thinnest_region(K, box))
    return Analysis(network, K, W, report, G, H, fd, ident, minimal, thin, box, timings)


def _window(K):
    """A square window holding the central 80% of the vertices (a few far crossings would shrink the rest)."""
    if K.domain is not None:
        return None
    extent = sorted(max(abs(x) for x in c.polyhedron.vertices()[0]) for c in K.cells(0))
    if not extent:
        return None
    half = Fraction(math.ceil(2 * extent[int(0.8 * (len(extent) - 1))])) + 1
    return (-half, half)


def _clip_box(K):
    """A half-width ``R`` such that ``[-R, R]^n0`` holds every vertex with room to spare (None on a domain)."""
    if K.domain is not None:
        return None
    # every region's own vertices (on R^n0 with lines, there are no 0-cells, but each region has a vertex
    # on its section orthogonal to the lines), so the box meets every region
    coords = [abs(x) for r in K.regions() for v in r.polyhedron.vertices_rays_lines()[0] for x in v]
    return Fraction(2 * math.ceil(max(coords, default=0)) + 1)


def thinnest_region(complex_: CanonicalComplex, box: float | Fraction | None = None) -> tuple[float, int] | None:
    """``(inradius, region id)`` of the region with the smallest inscribed ball (a float diagnostic).

    Each region's Chebyshev centre program (maximize ``r`` with ``b + a·x − r|a| ≥ 0``
    for its facets, and for the box ``[-box, box]^n0`` when given) is solved with
    cvxpy. Nothing exact depends on it: thin regions flag networks whose
    geometry floats would get wrong.
    """
    import cvxpy as cp

    K = require_instance(complex_, CanonicalComplex, "complex_", "thinnest_region")
    require_real(box, "box", "thinnest_region", above=0, optional=True)
    n0 = K.network.architecture.input_dim
    best = None
    for region in progress_bar(K.regions(), desc="inradius"):
        ieqs, eqns = region.polyhedron.minimal_h_representation()
        rows = [_float_row(r) for r in ieqs]
        if any(r is not None and r[0] == -math.inf for r in rows):
            continue  # the region lies beyond the float range: floats cannot measure it
        # a facet beyond the float range on the far side is no constraint for floats
        rows = [r for r in rows if r is not None and r[0] != math.inf]
        if box is not None:
            for i in range(n0):
                for s in (1, -1):
                    rows.append((float(box), *(float(s if j == i else 0) for j in range(n0))))
        if not rows:
            continue
        M = np.array(rows)
        M /= np.linalg.norm(M[:, 1:], axis=1)[:, None]  # unit normals: the program is well scaled
        b, A = M[:, 0], M[:, 1:]
        x, r = cp.Variable(n0), cp.Variable()
        problem = cp.Problem(cp.Maximize(r), [b + A @ x - r >= 0])
        try:
            problem.solve()
        except cp.error.SolverError:
            continue  # a diagnostic: a region the solver cannot handle is left out
        if problem.status == cp.OPTIMAL and (best is None or r.value < best[0]):
            best = (float(r.value), region.id)
    return best


def _float_row(row):
    """An inequality ``b + a·x >= 0`` as floats, scaled exactly by ``max |a_i|`` first.

    The scaling keeps ``a`` within ``[-1, 1]`` however large the exact integers
    are; ``b`` becomes ``±inf`` when the facet lies beyond the float range, and
    a row without a normal (the empty polyhedron's) is None.
    """
    scale = max(abs(v) for v in row[1:])
    if not scale:
        return None
    scaled = [Fraction(v) / scale for v in row]
    try:
        b = float(scaled[0])
    except OverflowError:
        b = math.inf if scaled[0] > 0 else -math.inf
    return (b, *(float(v) for v in scaled[1:]))


def slice_network(network: ReLUNetwork, origin: VectorLike, u: VectorLike, v: VectorLike) -> ReLUNetwork:
    """The network restricted to the plane ``origin + s·u + t·v``: two inputs ``(s, t)``, exact.

    Only the first layer changes: ``W1 (origin + s u + t v) + b1``
    (:func:`~polyrelu.slices.restrict` with the directions ``u`` and ``v``).

    Raises
    ------
    GeometryError
        ``u`` and ``v`` are linearly dependent.

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> net = ReLUNetwork([[[1, 2, 3]], [[1]]], [[0], [0]])
    >>> flat = slice_network(net, [0, 0, 1], [1, 0, 0], [0, 1, 0])
    >>> flat.weights[0], flat.biases[0], flat([1, 1]) == net([1, 1, 1])
    (((Fraction(1, 1), Fraction(2, 1)),), (Fraction(3, 1),), True)
    """
    n0 = require_instance(network, ReLUNetwork, "network", "slice_network").architecture.input_dim
    origin, u, v = (to_fraction_vector(p, f"slice_network: {name}", n0) for p, name in ((origin, "origin"), (u, "u"), (v, "v")))
    try:
        return restrict(network, origin, [u, v])
    except GeometryError:  # restrict's message speaks of its own arguments
        raise GeometryError("slice_network: u and v are linearly dependent; give two independent directions") from None
