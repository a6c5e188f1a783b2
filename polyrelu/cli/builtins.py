"""The built-in networks, which every command accepts by name, and :func:`load`, which reads every command's network.

``polyrelu builtins`` lists :data:`BUILTINS`: three fixed networks of
:mod:`polyrelu.examples` (``builtin:bent-line``, ``builtin:bottleneck``,
``builtin:free-weight``) and two families that take any widths, input first
(``builtin:generic-2-3-3-2-1``, ``builtin:randn-2-8-8-1``). Built-in names are
typed, not read from a file, so absurd sizes are refused before anything is
allocated: at most 1000 layers of width at most 4096 and 2,000,000 parameters
(:func:`check_architecture`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ..errors import ComplexTooLargeError, UsageError
from ..examples import (
    bent_line_network,
    bottleneck_network,
    free_weight_network,
    generic_network,
    seeded_gaussian_network,
)
from ..io import load_network
from ..network import ReLUNetwork

__all__ = ["Builtin", "BUILTINS", "MAX_WIDTH", "MAX_LAYERS", "MAX_PARAMETERS", "load", "check_architecture"]

MAX_WIDTH = 4096
MAX_LAYERS = 1000
MAX_PARAMETERS = 2_000_000


@dataclass(frozen=True)
class Builtin:
    """A built-in network, or a family of them (``builtin:generic-A-B-...``), with a name every command accepts.

    Attributes
    ----------
    name : str
        ``bent-line``; for a family its prefix, ``generic``, which widths follow.
    example : str
        A full name that loads (``builtin:generic-2-3-3-2-1``).
    description : str
    make : callable
        No argument; for a family, the widths.
    family : bool
    """

    name: str
    example: str
    description: str
    make: Callable[..., ReLUNetwork]
    family: bool = False

    @property
    def pattern(self) -> str:
        """``builtin:bent-line``, or ``builtin:generic-A-B-...`` for a family."""
        return f"builtin:{self.name}" + ("-A-B-..." if self.family else "")


BUILTINS = (
    Builtin("bent-line", "builtin:bent-line",
            "relu(relu(x1) + relu(x2) - 1), 2→2→1→1: the worked example of docs/theory.md", bent_line_network),
    Builtin("bottleneck", "builtin:bottleneck",
            "2→2→1→2→1 through a width-1 layer: a flipped copy computes the same function (not identifiable)",
            bottleneck_network),
    Builtin("free-weight", "builtin:free-weight",
            "2→3→2→1 with a weight that moves freely without changing the function", free_weight_network),
    Builtin("generic", "builtin:generic-2-3-3-2-1",
            "passes the four genericity conditions (generic_network, seed 1)",
            lambda widths: generic_network(widths, seed=1), family=True),
    Builtin("randn", "builtin:randn-2-8-8-1",
            "the seed-0 Gaussian recipe of the benchmarks (seeded_gaussian_network)",
            seeded_gaussian_network, family=True),
)


def load(spec: str, *, trust_pickle: bool = False) -> ReLUNetwork:
    """A network from a file or a built-in name (``builtin:bent-line``, ``builtin:generic-2-3-1``, ``builtin:randn-2-8-8-1``).

    Raises
    ------
    UsageError
        An unknown built-in name, or a built-in network over 4096 wide, 1000
        layers deep or 2,000,000 parameters (refused before anything is allocated).
    NetworkFormatError
        See :func:`~polyrelu.io.load_network`; ``trust_pickle`` is passed on to it.

    Examples
    --------
    >>> load("builtin:generic-2-3-2-1").architecture.widths
    (2, 3, 2, 1)
    >>> load("builtin:randn-2-8-8-1").name
    'seed-0 randn 2→8→8→1'
    >>> load("builtin:randn-2-100000-1")
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: builtin:randn-2-100000-1: width 100000 is over 4096, the largest a built-in network may have; save a network file to go beyond
    """
    if not spec.startswith("builtin:"):
        return load_network(spec, trust_pickle=trust_pickle)
    name = spec.partition(":")[2]
    prefix, _, rest = name.partition("-")
    for builtin in BUILTINS:
        if not builtin.family and name == builtin.name:
            return builtin.make()
        if builtin.family and prefix == builtin.name:
            parts = rest.split("-")
            if len(parts) < 2 or not all(p.isascii() and p.isdigit() and len(p) < 10 for p in parts):
                break
            widths = tuple(int(p) for p in parts)
            check_architecture(widths, spec)
            try:
                return builtin.make(widths)
            except ComplexTooLargeError as exc:  # raised while checking genericity: --max-cells does not reach there
                raise UsageError(
                    f"{spec}: too large for a built-in generic network, whose genericity is checked on its complex "
                    f"({exc}); choose smaller widths, or builtin:randn-{rest}"
                ) from None
    raise UsageError(
        f"unknown built-in network {spec!r}: `polyrelu builtins` lists them, e.g. builtin:bent-line, "
        "builtin:generic-2-3-2-1 or builtin:randn-2-8-8-1 (widths are positive integers joined by '-', input first)"
    )


def check_architecture(widths: Sequence[int], what: str) -> None:
    """Refuse widths outside ``1 .. 4096``, over 1000 layers or 2,000,000 parameters, before anything is allocated.

    Raises
    ------
    UsageError
        The message starts with ``what`` and says which limit.

    Examples
    --------
    >>> check_architecture((2, 0, 1), "builtin:randn-2-0-1")
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: builtin:randn-2-0-1: width 0; every width must be at least 1
    """
    if len(widths) - 1 > MAX_LAYERS:
        raise UsageError(f"{what}: {len(widths) - 1} layers, over {MAX_LAYERS} for a built-in network")
    for w in widths:
        if w < 1:
            raise UsageError(f"{what}: width {w}; every width must be at least 1")
        if w > MAX_WIDTH:
            raise UsageError(
                f"{what}: width {w} is over {MAX_WIDTH}, the largest a built-in network may have; "
                "save a network file to go beyond"
            )
    parameters = sum((a + 1) * b for a, b in zip(widths, widths[1:]))
    if parameters > MAX_PARAMETERS:
        raise UsageError(
            f"{what}: {parameters:,} parameters, over {MAX_PARAMETERS:,} for a built-in network; "
            "save a network file to go beyond"
        )
