"""Recovery of a network's parameters from function values alone.

The constructive side of identifiability (docs/design.md §5, §6): given only a black
box ``x ↦ f(x)`` and the input dimension, rebuild a network computing ``f``.
The algorithms here never see parameters; they query the oracle and do exact
rational arithmetic on the answers.

- :func:`line_breakpoints`: the breakpoints of ``f`` on a line, exactly: ``f`` is
  piecewise linear there, so two one-sided lines meet at the breakpoint.
- :func:`breakpoint_data`: the affine maps of ``f`` on both sides of a breakpoint,
  the breakpoint facet's hyperplane (primitive integer row) and its tropical
  weight (docs/design.md §3).
- :func:`recover_network`: layer by layer, from breakpoints on random lines to
  a network, with every neuron's formula solved exactly and the result checked
  against the oracle on every region of its own canonical complex and on
  fresh points spread over the query region;
- :func:`network_oracle`: a black box hiding a network, for tests and demos.

Floats may appear only in the float-oracle mode (``float_oracle=True``),
which is named as such, rationalises its answers and reports how far the
recovered network is from the oracle on fresh points.

One module per stage, each importing only the earlier ones (docs/design.md
§6): ``control`` (budgets and the signals between stages), ``numerics``
(exact or float arithmetic behind one interface), ``oracle`` (queries),
``breakpoints``, ``sampling`` (random points and the acceptance sample),
``partial`` (the layers so far), ``first_layer``, ``families``,
``tracing``, ``orientation``, ``output``, ``completion``, ``skip_features`` and ``driver``
(:func:`recover_network`). docs/recovery.md explains the algorithm.
"""

from .breakpoints import Breakpoint, breakpoint_data, line_breakpoints
from .driver import RecoveryResult, recover_network
from .oracle import network_oracle

__all__ = [
    "RecoveryResult",
    "Breakpoint",
    "network_oracle",
    "line_breakpoints",
    "breakpoint_data",
    "recover_network",
]
