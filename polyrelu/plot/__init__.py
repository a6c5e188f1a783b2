"""Pictures: canonical complexes in the plane, dependency graphs by layer, interactive pages.

- :func:`plot_complex` (:mod:`polyrelu.plot.complex`, matplotlib): a complex
  of a network with two inputs, regions filled by active-neuron count, output
  value or class (:mod:`polyrelu.plot.regions` says what a colour means),
  facets coloured by layer and weighted, axis labels, a legend of what is
  drawn and nothing else, a ``window`` to zoom.
- :func:`plot_dependency_graph` (:mod:`polyrelu.plot.dependency`): a
  :class:`~polyrelu.dependency.DependencyGraph`, one column per inferred layer,
  labels that do not overlap at any width, the longest layer-ordered chain in black.
- :func:`write_complex_html` (:mod:`polyrelu.plot.html`, Plotly, optional:
  ``pip install 'polyrelu[plot]'``): a self-contained interactive page of a
  complex in the plane or in 3-space, with the cell id, sign vector,
  dimension and ``f`` of each region on hover.
- :func:`check_figure_path`, :func:`check_html_path` check an output's path
  before any work, and :func:`save_figure` writes a figure atomically
  (:mod:`polyrelu.plot.files`).
"""

from .complex import plot_complex
from .dependency import plot_dependency_graph
from .files import check_figure_path, check_html_path, save_figure
from .html import write_complex_html
from .regions import FILLS

__all__ = [
    "plot_complex",
    "plot_dependency_graph",
    "write_complex_html",
    "check_figure_path",
    "check_html_path",
    "save_figure",
    "FILLS",
]
