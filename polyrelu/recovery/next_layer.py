"""The next hidden layer when the first tracing leaves it open: traced again with the last layer oriented.

A hypersurface that crosses few regions leaves its formula undetermined while
the last layer's orientation is provisional. These stages trace it again:
with the orientation its layer-mates fixed (:func:`second_chance`), with
every orientation of a narrow layer (:func:`orientation_by_search`), or over
the skip features when no orientation fits because a last-layer neuron is
positive on the whole domain (:func:`stable_neurons_by_skip_traces`).

Glossary
--------
second chance
    Tracing again with the previous layer's orientation known: fewer unknowns.

What it leaves to others: the tracing (``tracing``), families (``families``,
``completion``), the orientation systems (``orientation``), the skip features
(``skip_features``), when to call them (``driver``).
"""

import itertools

from ..geometry.linalg import span_complement
from .completion import complete_families
from .control import StageFailed
from .families import fix_family, merge_families, on_pieces
from .first_layer import explained_by
from .orientation import apply_flips
from .skip_features import trace_over_skip_features
from .tracing import RANKED_WIDTH, drop_deeper, orientations_by_pieces, trace_neuron

__all__ = ["orientation_by_search", "second_chance", "stable_neurons_by_skip_traces"]


def second_chance(queries, partial, rows, pending, numerics, log):
    """More neurons of the layer just found, traced with the previous layer's orientation known.

    A hypersurface that crosses few regions may leave its formula a family
    over ``relu(ẑ_i)``, ``ẑ_i`` and ``1``; with the orientation fixed by its
    layer-mates only ``relu(z_i)`` and ``1`` remain, and fewer pieces do.
    What still stays free is a neuron's weight on a previous-layer neuron that
    is off wherever it vanishes (TPIC fails): such families are merged across
    the hypersurface's components and fixed by :func:`fix_family`; the free
    neurons are kept in ``partial.free`` for the output fit.
    """
    partial.rebuild(oriented=True)
    if complete_families(queries, partial, rows, pending, numerics, log):
        partial.rebuild(oriented=True)
    found = [partial.basis_vector(w, b) for w, b in rows]
    traced = []
    for bp in pending:
        if explained_by(partial, found + [c for c, *_ in traced], bp) or on_pieces(partial, traced, bp):
            continue
        result = trace_neuron(queries, partial, bp, numerics, log=log, fading=True)
        if result is not None:
            traced.append(result)
    traced = merge_families(partial, drop_deeper(queries, partial, traced, numerics, accepted=found, fading=True, log=log))
    layer = len(partial.layers)
    more = []
    for c, regions, span, pieces in traced:
        if span:
            c = fix_family(partial, span, regions, pieces)
            if c is None:
                continue
        if any(numerics.parallel(c, d) for d in found + [partial.basis_vector(w, b) for w, b in more]):
            continue
        if span:
            partial.free[layer, len(rows) + len(more)] = tuple(partial.basis_row(span[k]) for k in span_complement([c], span))
        more.append(partial.basis_row(c))
    return more


def stable_neurons_by_skip_traces(queries, partial, pending, numerics, log):
    """The next layer when no orientation of the last one lets its traces fit: a last-layer neuron may be positive everywhere.

    Such a neuron never bends ``f``, so no trace finds it, and the next layer
    reads the previous layer's outputs through it: its formulas lie outside
    the span of the last layer's features in every orientation, and
    :func:`orientation_by_search` finds none. Traced over the skip features
    instead (orientation-free, :func:`~polyrelu.recovery.skip_features.trace_over_skip_features`), the formulas
    show the orientation and the missing neurons. Returns the next layer's
    rows with its second chance (:func:`second_chance`), or None, after
    which the round ends (``partial`` is left with the skip features).
    """
    partial.rebuild()
    layer = len(partial.layers)
    try:
        rows = trace_over_skip_features(
            queries, partial, pending, numerics, StageFailed(f"no orientation of layer {layer} fits the next layer's traces"), log
        )
    except StageFailed:
        return None
    return rows + second_chance(queries, partial, rows, pending, numerics, log)


def orientation_by_search(queries, partial, pending, numerics, log):
    """The next layer when no breakpoint pins a formula before the last layer is oriented: try every orientation.

    Each orientation of a narrow last layer (at most
    ``numerics.orientation_search_width`` neurons) gets the oriented tracing of :func:`second_chance`; a wrong
    one makes the pieces' equations inconsistent. A layer of up to ``RANKED_WIDTH`` neurons gets every
    orientation too, ranked first without queries by the pieces its unoriented traces left undetermined
    (:func:`orientations_by_pieces`); a wider one none; a layer the caller gave only its own. The orientation that
    explains the most neurons is kept (the output fit checks it); among as many, the one kept least often in
    earlier rounds (``log["orientations"]``: a round that kept one and goes on did not end in a network, and
    the search would otherwise keep it again). None if none explains any.

    A search that tries every orientation remembers those whose neurons explain every pending breakpoint
    (``log["complete orientations"]``). When that was one orientation alone, the next round tries it first
    and stops there if it explains every breakpoint again (there is no other as good to turn to): a search
    of ``2^5`` orientations costs about a second per orientation, and a round that only added search lines
    mostly finds the same one (3→4→5→5→1, sample index 35: four rounds of 27 s, the same four neurons
    explaining every breakpoint each time). With two or more, every round searches them all, as above.
    """
    n, width = len(partial.layers[-1]), numerics.orientation_search_width
    original, layer = list(partial.layers[-1]), len(partial.layers)
    stage = f"searching the orientations of layer {layer}"
    if partial.is_known():  # the caller's orientation
        candidates = [(False,) * n]
    elif n <= width:
        candidates = list(itertools.product((False, True), repeat=n))
    elif width and n <= RANKED_WIDTH:  # every orientation, those that fit the pieces traced unoriented first
        partial.clock.stage = f"ranking the orientations of layer {layer} by the pieces traced"
        candidates = orientations_by_pieces(partial, log.get("pieces", {}).get(layer, ()), 1 << n)
        stage += f" (ranked by the {len(log.get('pieces', {}).get(layer, ()))} hypersurfaces traced unoriented)"
    else:
        if width:
            partial.clock.stage += f" (layer {layer} has {n} neurons, too many to search their 2^{n} orientations)"
        return None
    partial.clock.stage = stage
    best = ((0, 0), None, None, None)
    free = {key: v for key, v in partial.free.items() if key[0] != layer}
    # how often each oriented layer was kept in earlier rounds: none of them ended in a network
    kept = log.setdefault("orientations", {}).setdefault(layer, {})
    # the orientations whose neurons explained every pending breakpoint, in the last search that tried them all
    complete_before = log.setdefault("complete orientations", {}).get(layer, set())
    (alone,) = complete_before if len(complete_before) == 1 else (None,)
    if alone in candidates:
        candidates = [alone, *(flips for flips in candidates if flips != alone)]

    def attempt(start, start_free, flips):
        """Trace the next layer over ``start`` flipped: the neurons its completion moved, and whether its rows explain every pending breakpoint."""
        nonlocal best
        partial.clock.check()
        partial.layers[-1], partial.free = list(start), dict(start_free)
        apply_flips(partial, flips)
        tried = list(partial.layers[-1])
        rows = second_chance(queries, partial, [], pending, numerics, log)
        score = (len(rows), -kept.get(tuple(sorted(partial.layers[-1])), 0))
        if rows and score > best[0]:
            # the flipped layer as the next layer's traces completed it (:func:`~polyrelu.recovery.completion.complete_families`)
            best = (score, list(partial.layers[-1]), rows, dict(partial.free))
        neurons = [partial.basis_vector(w, b) for w, b in rows]
        explains = bool(rows) and all(explained_by(partial, neurons, bp) for bp in pending)
        return [j for j, (before, after) in enumerate(zip(tried, partial.layers[-1])) if before != after], explains

    complete = set()
    for flips in candidates:
        completed, explains = attempt(original, free, flips)
        if explains:
            complete.add(flips)
            if flips == alone:
                break  # the only one that explained everything last time does again: no other to turn to
        if completed:
            # a completed neuron is exact up to its sign: its member may have had the other orientation's signs
            # on its traced regions (2→5→5→5→1, seed 314238: both family neurons completed, one negated)
            done, done_free = list(partial.layers[-1]), dict(partial.free)
            for more in itertools.product((False, True), repeat=len(completed)):
                if any(more):
                    negated = dict(zip(completed, more))
                    if attempt(done, done_free, [negated.get(j, False) for j in range(n)])[1]:
                        complete.add(flips)
    else:
        log["complete orientations"][layer] = complete
    partial.layers[-1], partial.free = list(original), free
    if best[1] is None:
        return None
    _, partial.layers[-1], rows, partial.free = best
    key = tuple(sorted(partial.layers[-1]))
    kept[key] = kept.get(key, 0) + 1
    return rows
