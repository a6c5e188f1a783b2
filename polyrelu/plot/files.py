"""Where figures go: checking a figure's or an HTML page's path before any work, and writing a figure atomically."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..atomic import atomic_write, check_output_path
from ..checks import require_axes, require_path, require_sequence
from ..errors import OutputPathError

# matplotlib is imported where a figure is written (its callers choose the backend first); at module level
# only the Axes type of the signatures is needed
if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["check_figure_path", "check_html_path", "save_figure", "FIGURE_FORMATS"]

# the suffixes a figure may have and the matplotlib format each asks for
FIGURE_FORMATS = {".png": "png", ".svg": "svg", ".pdf": "pdf", "": "png"}


def _checked_inputs(inputs: Sequence[os.PathLike | str | None], caller: str) -> list[os.PathLike | str]:
    return [require_path(s, "inputs", caller) for s in require_sequence(inputs, "inputs", caller) if s is not None]


def check_figure_path(path: os.PathLike | str, inputs: Sequence[os.PathLike | str | None] = ()) -> str:
    """Check that a figure can be written to ``path`` and return its image format.

    The format comes from the suffix: ``.png``, ``.svg`` or ``.pdf`` (any
    case); a path without a suffix is a PNG written to exactly that path.

    Parameters
    ----------
    path : str or os.PathLike
    inputs : sequence of str or os.PathLike
        Files the caller reads: the figure must not overwrite one of them.

    Returns
    -------
    str
        ``"png"``, ``"svg"`` or ``"pdf"``.

    Raises
    ------
    OutputPathError
        Another suffix, or a path :func:`~polyrelu.atomic.check_output_path` refuses.

    See also
    --------
    check_html_path : the same for an interactive page.

    Examples
    --------
    >>> check_figure_path("complex.SVG"), check_figure_path("complex")
    ('svg', 'png')
    >>> check_figure_path("complex.jpg")
    Traceback (most recent call last):
    ...
    polyrelu.errors.OutputPathError: complex.jpg: a figure is written as .png, .svg or .pdf (or PNG with no suffix), not '.jpg'; rename the file
    """
    require_path(path, "path", "check_figure_path")
    inputs = _checked_inputs(inputs, "check_figure_path")
    suffix = Path(path).suffix.lower()
    if suffix not in FIGURE_FORMATS:
        raise OutputPathError(
            f"{path}: a figure is written as .png, .svg or .pdf (or PNG with no suffix), not {suffix!r}; rename the file"
        )
    check_output_path(path, inputs=inputs)
    return FIGURE_FORMATS[suffix]


def check_html_path(path: os.PathLike | str, inputs: Sequence[os.PathLike | str | None] = ()) -> None:
    """Check that an interactive page (:func:`~polyrelu.plot.write_complex_html`) can be written to ``path``.

    Parameters
    ----------
    path : str or os.PathLike
        Must end in ``.html`` (any case).
    inputs : sequence of str or os.PathLike
        Files the caller reads: the page must not overwrite one of them.

    Raises
    ------
    OutputPathError
        Another suffix, or a path :func:`~polyrelu.atomic.check_output_path` refuses.

    Examples
    --------
    >>> check_html_path("complex.html")
    >>> check_html_path("complex.png")
    Traceback (most recent call last):
    ...
    polyrelu.errors.OutputPathError: complex.png: the suffix '.png' is not one of .html; name the file accordingly
    """
    require_path(path, "path", "check_html_path")
    check_output_path(path, suffixes=(".html",), inputs=_checked_inputs(inputs, "check_html_path"))


def save_figure(ax: Axes, path: os.PathLike | str) -> None:
    """Write the figure of ``ax`` to ``path`` and close it.

    The format is the one :func:`check_figure_path` reads off the suffix (PNG
    when there is none), and the file is written atomically
    (:func:`~polyrelu.atomic.atomic_write`): after any failure the previous
    file at ``path`` is still there, unchanged.

    Raises
    ------
    OutputPathError
        See :func:`check_figure_path`.
    """
    import matplotlib.pyplot as plt
    from matplotlib.figure import Figure

    require_axes(ax, "ax", "save_figure")
    # the whole figure, also when ax lies in a subfigure (whose .figure is that subfigure)
    figure = ax.figure if isinstance(ax.figure, Figure) else ax.figure.figure
    try:
        image_format = check_figure_path(path)
        with atomic_write(path, "wb") as fh:
            figure.savefig(fh, format=image_format, dpi=120, bbox_inches="tight")
    finally:
        plt.close(figure)
