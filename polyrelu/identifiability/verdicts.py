"""Identifiability of a ReLU network's parameters: the evidence weighed into one verdict (docs/design.md §6).

:func:`identifiability_report` weighs the evidence (the width hypothesis, the
four genericity conditions, the functional dimension, an exact second
parameter computing ``f`` when one is found, and the checked assumptions of
the one-hidden-layer theorem of docs/theory.md) into one verdict.
:func:`theorem_applies` (whether Grillo and Montúfar's theorem applies) is
named internal API, also used by :mod:`polyrelu.identifiability.survey`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..checks import require_instance, require_int
from ..complex import canonical_complex
from ..domain import Box
from ..genericity import GenericityReport, genericity
from ..geometry import Polyhedron
from ..geometry.rational import MatrixLike
from ..io import network_to_dict
from ..network import ReLUNetwork
from ._forced import one_hidden_layer_certificate, two_hidden_layer_certificate
from ._parameters import MAX_FLIP_NEURONS, cancelling_subset
from ._witnesses import second_parameter
from .dimension import FunctionalDimension, functional_dimension

__all__ = ["IdentifiabilityReport", "identifiability_report"]


@dataclass(frozen=True)
class IdentifiabilityReport:
    """The result of :func:`identifiability_report`: the evidence and the verdict it supports.

    Attributes
    ----------
    verdict : str
        ``"identifiable (theorem conditions hold)"``, ``"identifiable (recovery forced)"``,
        ``"locally identifiable (immersion)"``, ``"not identifiable"`` or ``"undecided"``.
    evidence : tuple of str
        What the verdict rests on, one line each.
    width_hypothesis : bool
    genericity : GenericityReport
    functional_dimension : FunctionalDimension
    witness : ReLUNetwork or None
        For ``"not identifiable"``: a second parameter computing the same function
        (proved with :func:`~polyrelu.symmetry.same_function`) that is not obtained by
        permutations and positive scalings (:func:`~polyrelu.symmetry.equivalent` is False).
    certificate : tuple of str
        For ``"identifiable (recovery forced)"``: the assumptions of the
        one-hidden-layer theorem (docs/theory.md), each checked exactly on the
        network and its complex; empty otherwise.
    """

    verdict: str
    evidence: tuple[str, ...]
    width_hypothesis: bool
    genericity: GenericityReport
    functional_dimension: FunctionalDimension
    witness: ReLUNetwork | None = None
    certificate: tuple[str, ...] = ()

    def __str__(self):
        return "\n".join([f"verdict: {self.verdict}", *(f"  - {line}" for line in self.evidence)])

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the witness as a network JSON object)."""
        fd = self.functional_dimension
        return {
            "verdict": self.verdict,
            "evidence": list(self.evidence),
            "width_hypothesis": self.width_hypothesis,
            "genericity": {c.name: c.holds for c in self.genericity.conditions},
            "functional_dimension": {"rank": fd.rank, "bound": fd.bound, "method": fd.method},
            "witness": None if self.witness is None else network_to_dict(self.witness),
        }


def identifiability_report(
    network: ReLUNetwork, domain: Box | Polyhedron | MatrixLike | None = None, *, max_cells: int = 1_000_000
) -> IdentifiabilityReport:
    """Is ``θ`` determined by ``f`` up to permutations and positive scalings? With the evidence (docs/design.md §6).

    The verdicts, strongest evidence first:

    - ``"not identifiable"``: an exact witness, a second parameter with the same
      function that is not trivially equivalent. It is searched among the hidden
      symmetries single neurons show (never active, no outgoing weight, active
      everywhere, twins), among weights that no hypersurface and no output
      sees (into a neuron that is off wherever the weight's source is on),
      among neurons of one layer whose flips (``relu(z) = relu(−z) + z``) the
      next layer's biases absorb, and along the exact kernel directions beyond
      scaling, and accepted only when :func:`~polyrelu.symmetry.same_function`
      proves the functions equal and :func:`~polyrelu.symmetry.equivalent`
      says the parameters are not.
    - ``"identifiable (theorem conditions hold)"``: the width hypothesis and all
      four genericity conditions hold (the identifiability theorem of Grillo and
      Montúfar, *Most ReLU networks admit identifiable parameters*), and the
      functional dimension is ``D − H`` as the theorem implies.
    - ``"identifiable (recovery forced)"``: one or two hidden layers, and the
      assumptions of the matching theorem in docs/theory.md hold, each checked exactly
      (``certificate`` lists them): every parameter of the architecture that
      computes ``f`` on the domain is a permutation and positive scaling of ``θ``,
      since each step of recovering it from ``f`` is forced.
    - ``"locally identifiable (immersion)"``: the functional dimension is ``D − H``,
      so near ``θ`` the parameters modulo scaling map injectively to functions to
      first order; neither theorem applies, so this is all that is claimed.
    - ``"undecided"``: none of the above (e.g. the rank falls short but no exact
      second parameter was found along the kernel directions).

    ``max_cells`` bounds the network's canonical complex as in
    :func:`~polyrelu.complex.canonical_complex`.

    Returns
    -------
    IdentifiabilityReport

    Examples
    --------
    >>> from polyrelu import ReLUNetwork
    >>> from polyrelu.examples import generic_network
    >>> identifiability_report(generic_network((2, 3, 2, 1), seed=1)).verdict
    'identifiable (theorem conditions hold)'
    >>> dead = ReLUNetwork([[[1, 0], [0, 1], [0, 0]], [[1, 1, 1]]], [[0, 0, -1], [0]])
    >>> report = identifiability_report(dead)
    >>> report.verdict, report.witness is not None
    ('not identifiable', True)

    Three lines through one point: supertransversality fails, yet every
    parameter computing this ``f`` is trivially equivalent:

    >>> concurrent = ReLUNetwork([[[1, 0], [0, 1], [1, 1]], [[1, 2, 3]]], [[0, 0, 0], [0]])
    >>> report = identifiability_report(concurrent)
    >>> report.verdict, len(report.certificate)
    ('identifiable (recovery forced)', 6)

    A random network with two hidden layers that fails TPIC: the
    two-hidden-layer theorem of docs/theory.md applies instead:

    >>> deep = ReLUNetwork.random((2, 3, 3, 1), seed=6, kind="gaussian")
    >>> report = identifiability_report(deep)
    >>> report.genericity.holds, report.verdict
    (False, 'identifiable (recovery forced)')
    """
    require_instance(network, ReLUNetwork, "network", "identifiability_report")
    require_int(max_cells, "max_cells", "identifiability_report", minimum=1)
    arch = network.architecture
    K = canonical_complex(network, domain, max_cells=max_cells)
    generic = genericity(K)
    fd = functional_dimension(network, complex_=K)
    evidence = [
        "width hypothesis (n0 >= 2, hidden widths >= 2): " + ("holds" if arch.width_hypothesis else "fails"),
        "genericity: " + ", ".join(f"{c.name} {'holds' if c.holds else 'fails'}" for c in generic.conditions),
        f"functional dimension {fd.rank} of D - H = {fd.bound} (exact, certified)",
    ]
    flips = [cancelling_subset(network, l) for l in range(1, len(arch.hidden_widths) + 1)]
    witness = second_parameter(network, K, fd.kernel, domain, flips)
    if witness is not None:
        how, net2 = witness
        evidence.append(
            f"a second parameter ({how}) computes the same function on every region of a common refinement, "
            "and is not a permutation and scaling of θ"
        )
        return IdentifiabilityReport("not identifiable", tuple(evidence), arch.width_hypothesis, generic, fd, net2)
    # the four conditions do not exclude cancelling flips (docs/theory.md): the theorem's verdict needs their
    # absence decided in every layer, which the witness search above has shown wherever it could decide it
    unsearched = [l for l, (decided, _) in enumerate(flips, start=1) if not decided]
    if theorem_applies(arch, generic, fd) and not unsearched:
        verdict = "identifiable (theorem conditions hold)"
        evidence.append("the identifiability theorem of Grillo & Montúfar applies: the width hypothesis and the four "
                        "conditions hold")
        evidence.append("no set of neurons of one layer has flips that cancel (decided exactly in every layer)")
        return IdentifiabilityReport(verdict, tuple(evidence), arch.width_hypothesis, generic, fd)
    if unsearched:
        evidence.append(f"neurons whose flips cancel were not searched for in layer(s) {unsearched}: more than "
                        f"{MAX_FLIP_NEURONS} neurons there are involved in the null space of their outer products")
    depth = len(arch.hidden_widths)
    certificate = two_hidden_layer_certificate if depth == 2 else one_hidden_layer_certificate
    forced, checked = certificate(K, flips)
    if forced:
        layers = "two hidden layers" if depth == 2 else "one hidden layer"
        evidence.append(f"every step of recovering θ from f is forced (docs/theory.md, {layers}); checked: "
                        + "; ".join(checked))
        return IdentifiabilityReport("identifiable (recovery forced)", tuple(evidence), arch.width_hypothesis, generic,
                                     fd, certificate=checked)
    if fd.attains_bound:
        verdict = "locally identifiable (immersion)"
        evidence.append("rank D - H: to first order, only scalings keep f; the theorem's conditions do not all hold, "
                        "and the argument that recovery is forced does not apply (" + checked[-1] + ")")
    else:
        verdict = "undecided"
        evidence.append(
            f"the rank is {fd.bound - fd.rank} short of D - H, but no step along the {len(fd.kernel)} kernel "
            "directions gave an exact second parameter"
        )
    return IdentifiabilityReport(verdict, tuple(evidence), arch.width_hypothesis, generic, fd)


def theorem_applies(arch, generic, fd):
    """Whether Grillo and Montúfar's theorem applies (width hypothesis, four conditions), with the rank ``D − H`` it implies."""
    return arch.width_hypothesis and generic.holds and fd.attains_bound

