"""Completing a layer's families from the next layer's traces: the product columns.

A neuron picked from a family (``families``) has the right signs but possibly
wrong weights along its free directions. Where it is on, the next layer reads
it with those weights, so the next layer's traces over the product columns
``[z_j on]·d_k`` (:meth:`~polyrelu.recovery.partial.PartialNetwork.use_features`)
show the missing steps as linear unknowns. This module reads them and
completes the layer.

Glossary
--------
step
    ``θ_k``: how far along its free direction ``d_k`` a family neuron moves
    to become the neuron the next layer reads.

What it leaves to others: the families themselves (``families``), the
tracing (``tracing``), when to complete (``driver``).
"""

from .first_layer import explained_by
from .tracing import drop_deeper, trace_neuron

__all__ = []


def complete_families(queries, partial, rows, pending, numerics, log):
    """Complete the last layer's neurons picked from families by the next layer's traces; whether any was.

    A neuron ``z_j`` picked from a family (:func:`~polyrelu.recovery.next_layer.second_chance`) has the
    right signs but possibly wrong weights along its free directions ``d_k``:
    the next layer reads ``v_j relu(z_j + Σ θ_k d_k)``. Traced over the
    product columns ``[z_j on]·d_k`` (:meth:`~polyrelu.recovery.partial.PartialNetwork.use_features`),
    a next-layer formula shows ``v_j`` and the products ``v_j θ_k`` as linear
    unknowns, each checked by :func:`~polyrelu.recovery.tracing.trace_neuron`
    on every region its prediction crosses. Every formula that reads ``z_j``
    (``v_j ≠ 0``) must give the same ``θ_k``; the neuron becomes
    ``z_j + Σ θ_k d_k`` and the directions so fixed leave ``partial.free``.
    Called with the last layer oriented; it leaves ``partial`` to be rebuilt.
    """
    last = len(partial.layers) - 1
    if not numerics.max_families or not any(layer == last for layer, _ in partial.free):
        return False
    partial.use_features(oriented=True, products=True)
    try:
        steps = _completing_steps(queries, partial, rows, pending, numerics, log)
    finally:
        partial.use_features(oriented=True)
    if not steps:
        return False
    partial.complete_families(last, steps)
    log.setdefault("completed", []).extend((last + 1, j, k) for j, k in sorted(steps))
    return True


def _completing_steps(queries, partial, rows, pending, numerics, log):
    """``{(j, k): θ_k}`` read from the next layer's traces over the product columns (:func:`complete_families`)."""
    n = len(partial.layers[-1])
    position = {col: j for j, col in enumerate(partial.basis)}
    found = [partial.basis_vector(w, b) for w, b in rows]
    traced = []
    for bp in pending:
        if explained_by(partial, found + [c for c, *_ in traced], bp):
            continue
        result = trace_neuron(queries, partial, bp, numerics, log=log)
        if result is not None and result[0] is not None and not result[2]:
            traced.append(result)
    formulas = [c for c, *_ in drop_deeper(queries, partial, traced, numerics)]
    steps = {}
    for column, (j, k, _) in enumerate(partial.products, start=n + 1):
        if column not in position or j not in position:
            continue
        if any(c[position[column]] for c in formulas if not c[position[j]]):
            continue  # a product with no weight on z_j: the column stands for something else
        ratios = {c[position[column]] / c[position[j]] for c in formulas if c[position[j]]}
        if len(ratios) == 1:
            steps[j, k] = ratios.pop()
    return steps
