"""The plain-text report of a network, and exact numbers written the way the reports write them.

:func:`network_report` is what ``polyrelu info`` prints and what
:class:`~polyrelu.analysis.Analysis` starts its text with: the architecture,
the parameter counts, the width hypothesis and the canonical form.
:func:`number_text` and :func:`vector_text` write exact numbers as in every
text polyrelu prints (integers, ``p/q``; never a float).

This is an internal API: its names are not exported from :mod:`polyrelu`.
"""

from .errors import SymmetryError
from .geometry.rational import fraction_to_json
from .symmetry import canonical_form

__all__ = ["network_report", "number_text", "vector_text"]


def number_text(value) -> str:
    """An exact number as text: an integer, or ``p/q``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> number_text(Fraction(4, 2)), number_text(Fraction(-1, 3))
    ('2', '-1/3')
    """
    return str(fraction_to_json(value))


def vector_text(values) -> str:
    """Exact numbers as a parenthesized tuple, ``(1, -1/3)``.

    Examples
    --------
    >>> from fractions import Fraction
    >>> vector_text([1, Fraction(-1, 3)])
    '(1, -1/3)'
    """
    return "(" + ", ".join(number_text(v) for v in values) + ")"


def network_report(net) -> str:
    """A plain-text report: architecture, parameter counts, hypothesis, canonical form.

    Parameters
    ----------
    net : ReLUNetwork

    Returns
    -------
    str
        One line per item; the canonical form one line per neuron (``row | bias``),
        or a line saying why it was not computed.

    Examples
    --------
    >>> from polyrelu.examples import bent_line_network
    >>> print(network_report(bent_line_network()).splitlines()[1])
    architecture        2→2→1→1  (input 2, hidden (2, 1), output 1; depth L = 2)
    """
    arch = net.architecture
    narrow = [f"hidden layer {l} has width {n}" for l, n in enumerate(arch.hidden_widths, 1) if n < 2]
    if arch.input_dim < 2:
        narrow.insert(0, f"input width is {arch.input_dim}")
    lines = [
        f"network             {net.name or '(unnamed)'}",
        f"architecture        {arch}  (input {arch.input_dim}, hidden {arch.hidden_widths}, "
        f"output {arch.output_dim}; depth L = {arch.depth})",
        f"parameters D        {arch.num_parameters}",
        f"hidden neurons H    {arch.num_hidden}",
        f"D - H               {arch.functional_dimension_bound}  (upper bound on the functional dimension)",
        "width hypothesis    "
        + ("holds (n0 >= 2, every hidden width >= 2)" if arch.width_hypothesis else "fails: " + "; ".join(narrow)),
    ]
    try:
        canon = canonical_form(net)
    except SymmetryError as exc:  # the rest of the report stands without it
        lines.append(f"canonical form      not computed: {exc}")
        return "\n".join(lines)
    lines.append("canonical form      (rows scaled to a leading ±1, neurons sorted; row | bias)")
    for l, (W, b) in enumerate(canon.layers, start=1):
        kind = "output" if l == len(canon.layers) else "hidden"
        for i, (row, bias) in enumerate(zip(W, b)):
            label = f"  layer {l} ({kind})" if i == 0 else ""
            lines.append(f"{label:<20}{vector_text(row)} | {number_text(bias)}")
    return "\n".join(lines)
