"""The plain-text report of a network: what ``polyrelu info`` prints.

:func:`network_report` is what ``polyrelu info`` prints and what
:class:`~polyrelu.analysis.Analysis` starts its text with: the architecture,
the parameter counts, the width hypothesis and the canonical form. Numbers
are written by :mod:`polyrelu.text`: exact, long ones rounded unless within
:func:`~polyrelu.text.exact_numbers`; lines stay within 120 characters, a
number's digits aside.

This is an internal API: its names are not exported from :mod:`polyrelu`.
"""

from .errors import SymmetryError
from .symmetry import canonical_form
from .text import entry_text, is_long, vector_text, wrap, written_in_full

__all__ = ["network_report"]

_LABEL = 20  # the width of the labels on the left


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
    theorem = "the identifiability theorem of Grillo & Montúfar"
    head = [
        ("network", net.name or "(unnamed)"),
        ("architecture", f"{arch}  (input {arch.input_dim}, hidden {arch.hidden_widths}, "
                         f"output {arch.output_dim}; depth L = {arch.depth})"),
        ("parameters D", arch.num_parameters),
        ("hidden neurons H", arch.num_hidden),
        ("D - H", f"{arch.functional_dimension_bound}  (upper bound on the functional dimension)"),
        ("width hypothesis", f"holds (n0 >= 2 and every hidden width >= 2, as {theorem} asks)" if arch.width_hypothesis
         else "fails: " + "; ".join(narrow) + f" ({theorem} asks n0 >= 2 and hidden widths >= 2)"),
    ]
    lines = [line for label, text in head for line in wrap(f"{label:<{_LABEL}}{text}", indent=_LABEL)]
    try:
        canon = canonical_form(net)
    except SymmetryError as exc:  # the rest of the report stands without it
        lines.append(f"canonical form      not computed: {exc}")
        return "\n".join(lines)
    lines.append("canonical form      (rows scaled to a leading ±1, neurons sorted; row | bias)")
    rounded = False
    for l, (W, b) in enumerate(canon.layers, start=1):
        kind = "output" if l == len(canon.layers) else "hidden"
        for i, (row, bias) in enumerate(zip(W, b)):
            label = f"  layer {l} ({kind})" if i == 0 else ""
            rounded = rounded or any(map(is_long, (*row, bias)))
            lines.extend(wrap(f"{label:<{_LABEL}}{vector_text(row)} | {entry_text(bias)}", indent=_LABEL + 1))
    if rounded and not written_in_full():
        lines.append(f"{'':<{_LABEL}}~: rounded to 3 significant digits (in full: --exact, or the JSON output)")
    return "\n".join(lines)

