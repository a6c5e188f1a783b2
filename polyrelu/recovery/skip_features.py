"""Tracing the next layer over the skip features, when no orientation of the last layer fits.

A last-layer neuron positive on the whole domain is never traced, yet the
next layer reads the layer before through it; over the skip features
(``relu(ẑ_i)`` of the last layer, ``relu(y_k)`` of the layer before, ``1``)
the next layer's formulas need no orientation, and the orientation and the
neurons positive everywhere are read from them
(:func:`~polyrelu.recovery.orientation.orient_with_stable_neurons`).

Glossary
--------
carrier
    A neuron ``relu(y_k) + 1`` that passes an output of the layer before on,
    positive on the whole domain (:func:`_previous_layer_carriers`).

What it leaves to others: the tracing itself (``tracing``), the orientation
(``orientation``), completing the families it records (``output``, ``completion``).
"""

from fractions import Fraction

from ..geometry.linalg import in_span, span_complement
from .families import on_pieces
from .first_layer import explained_by
from .orientation import orient_with_stable_neurons
from .tracing import drop_deeper, geometry_memo, trace_neuron

__all__ = ["trace_over_skip_features"]


def trace_over_skip_features(queries, partial, pending, numerics, failure, log):
    """The next layer's rows when no orientation of the last layer fits: traced again over the skip features.

    A last-layer neuron positive on the whole domain is never traced, but the
    next layer reads the previous layer's outputs through it
    (:func:`~polyrelu.recovery.orientation.orient_with_stable_neurons`, which
    also adds it); ``failure`` is raised again when that does not help.

    A hypersurface along which ``relu(ẑ_i)`` of a last-layer neuron ``i``
    vanishes everywhere (or, in the second attempt, ``relu(-ẑ_i)``) leaves the
    next neuron's weight on it free (a family, :func:`_unread_neurons`): the
    member without it is kept, ``i`` is oriented so that its output is the
    free function (what the next neuron reads of ``ẑ_i`` along its pieces is
    then in its skip part), and the free weight is recorded in
    ``partial.free`` for the output (or the layer after) to complete.
    Whether that orientation is the one the output reads is not
    known here, so the last layer then also gets the carriers of the layer
    before it (:func:`_previous_layer_carriers`), through which every
    orientation can be read.

    ``log`` is the round's: the traces share its memos of continuations and
    cuts, which do not depend on the features read
    (:func:`~polyrelu.recovery.tracing.geometry_memo`), and leave its
    statistics alone.
    """
    if len(partial.layers) < 2 or not partial.numerics.max_families:  # float mode completes no neuron from a fit
        raise failure
    known = len(partial.layers)
    partial.clock.stage = f"tracing layer-{known + 1} hypersurfaces over layers {known - 1}-{known}"
    partial.use_features(skip=True)
    memo = geometry_memo(log)
    traced = []
    for bp in pending:
        if explained_by(partial, [c for c, *_ in traced], bp) or on_pieces(partial, traced, bp):
            continue
        found = trace_neuron(queries, partial, bp, numerics, log=memo)
        if found is not None and found[0] is not None:
            traced.append(found)
    formulas, unread = [], []
    for c, _, span, _ in drop_deeper(queries, partial, traced, numerics, log=memo):
        neurons = _unread_neurons(partial, c, span)
        if neurons is not None and not any(numerics.parallel(c, d) for d in formulas):
            formulas.append(tuple(Fraction(v) for v in c))
            unread.append(neurons)
    if not formulas:
        raise failure
    # a free neuron is oriented so that its own output is the free function, relu(ẑ_i) or relu(-ẑ_i)
    fixed = {}
    for neurons in unread:
        for i, on in neurons:
            fixed.setdefault(i, on)
    rows = orient_with_stable_neurons(partial, formulas, failure, fixed=fixed)
    first = len(partial.layers[-1])  # where the carriers start
    if fixed:
        carriers = _previous_layer_carriers(partial)
        partial.layers[-1] = partial.layers[-1] + carriers
        rows = [(tuple(w) + (Fraction(0),) * len(carriers), b) for w, b in rows]
    width = len(partial.layers[-1])
    for j, neurons in enumerate(unread):
        if neurons:
            partial.free[known, j] = tuple(_free_direction(partial.layers[-1][i], i, fixed[i] != on, first, width) for i, on in neurons)
    return rows


def _previous_layer_carriers(partial):
    """One neuron ``relu(y_k) + 1`` per neuron ``y_k`` of the layer before the last, to join the last layer.

    Each is at least 1 on the whole domain, so it bends nothing and passes
    ``relu(y_k)`` on: with them the next layer and the output read any
    affine function of those outputs, ``relu(-ẑ_i) = relu(ẑ_i) - ẑ_i`` for
    every last-layer neuron included, whichever orientation the neurons
    that read ``ẑ_i`` only where it is off were given. The final pruning
    (:func:`~polyrelu.recovery.driver.without_needless_neurons`) deletes those nothing needs.
    """
    width = len(partial.layers[-2])
    return [(tuple(Fraction(int(k == i)) for k in range(width)), Fraction(1)) for i in range(width)]


def _unread_neurons(partial, c, span):
    """The last-layer neurons whose weight the family ``span`` leaves free around ``c``, as ``(i, on)``; None if more is free.

    A trace over the skip features is kept when its formula is unique, or
    unique but for the weights on last-layer outputs it cannot see: ``on``
    False when ``relu(ẑ_i)`` is zero along the whole hypersurface (the free
    direction is the column ``relu(ẑ_i)``), True when ``ẑ_i`` is positive
    along all of it (``relu(ẑ_i) = ẑ_i`` there, so the free direction is
    ``relu(ẑ_i) - ẑ_i = relu(-ẑ_i)``: the column minus ``ẑ_i``'s row over the
    ``relu(y_k)`` and ``1`` columns; 3→3→4→3→1, seed 766036, has a layer-3
    neuron along which a layer-2 neuron is on everywhere). A family free in
    other directions is not a neuron of the next layer over the last one.

    The second kind is kept only in the second attempt
    (``partial.on_families``): its member's skip part is not the neuron's
    until the output completes it, so orienting the layer adds neurons for
    it, and with them and the carriers the oriented second pass
    (:func:`~polyrelu.recovery.next_layer.second_chance`) pins nothing down. On
    2→5→4→4→1 (seed 78354) the layer grew from 4 to 11 and the two layer-3
    neurons that pass finds were lost (undecided, where the first attempt
    without the family recovers it in 7,406 queries).
    """
    if not span:
        return ()
    n = len(partial.layers[-1])
    directions = [span[k] for k in span_complement([c], span)]
    position = {col: p for p, col in enumerate(partial.basis)}
    found = []
    for i, (w, b) in enumerate(partial.layers[-1]):
        off = {i: 1}
        on = {i: 1, **{n + k: -v for k, v in enumerate(w)}, n + len(w): -b}
        for flag, columns in ((False, off), (True, on)) if partial.on_families else ((False, off),):
            if all(col in position for col, v in columns.items() if v):
                vector = [Fraction(0)] * len(partial.basis)
                for col, v in columns.items():
                    if v:
                        vector[position[col]] = Fraction(v)
                if in_span(vector, directions):
                    found.append((i, flag))
                    break
    # distinct neurons' vectors are independent (each alone has its relu(ẑ_i) column), so as many span the family
    return tuple(found) if len(found) == len(directions) else None


def _free_direction(row, i, negated, first, width):
    """The free direction ``relu(±z_i)`` over the last layer with the carriers from ``first``: ``(weights, bias)``.

    ``relu(z_i)`` (``negated`` False) is the unit weight on ``i``;
    ``relu(-z_i) = relu(z_i) - Σ_k w_k relu(y_k) - b`` with ``relu(y_k)`` =
    carrier ``k`` minus 1 (``row`` = ``(w, b)``, the oriented neuron ``z_i``
    over the layer before).
    """
    weights = [Fraction(int(k == i)) for k in range(width)]
    if not negated:
        return tuple(weights), Fraction(0)
    w, b = row
    for k, v in enumerate(w):
        weights[first + k] -= v
    return tuple(weights), sum(w, Fraction(0)) - b
