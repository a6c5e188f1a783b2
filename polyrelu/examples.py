"""Networks with known geometry and known hidden symmetries, for documentation, demos and tests.

Each constructor returns a :class:`~polyrelu.network.ReLUNetwork` whose
properties are stated in its docstring and checked by the package itself
(the doctests run :func:`~polyrelu.symmetry.same_function` and the reports).

- :func:`bent_line_network`: the worked example ``relu(relu(x1) + relu(x2) - 1)``;
- :func:`generic_network`: passes the four genericity conditions (identifiable
  by Grillo and Montúfar's identifiability theorem when the width hypothesis holds);
- :func:`seeded_gaussian_network`: the seed-0 Gaussian recipe of the
  benchmarks (usually not generic);
- :func:`with_neuron`: one more neuron in a hidden layer, as given;
- hidden-symmetry constructions that keep a network's function and add
  parameters it does not determine: :func:`with_dead_neuron`,
  :func:`with_invisible_neuron`, :func:`with_twin_neuron`,
  :func:`with_stably_active_layer`; and a width-1 bottleneck with a discrete
  hidden symmetry, :func:`bottleneck_network` and :func:`bottleneck_flip`;
- :func:`free_weight_network`: no single neuron can go, yet one weight moves
  freely without changing ``f`` (in the spirit of Grillo and Montúfar's Proposition 5.23;
  our construction, not the paper's).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import numpy as np
from scipy.optimize import linprog

from .checks import require_instance, require_int
from .complex import canonical_complex
from .errors import GeometryError, ShapeError, UsageError
from .genericity import genericity
from .geometry.rational import RationalLike, VectorLike, to_fraction, to_fraction_vector
from .network import Architecture, ReLUNetwork, require_architecture

__all__ = [
    "bent_line_network",
    "generic_network",
    "seeded_gaussian_network",
    "with_neuron",
    "with_dead_neuron",
    "with_invisible_neuron",
    "with_twin_neuron",
    "with_stably_active_layer",
    "bottleneck_network",
    "bottleneck_flip",
    "free_weight_network",
]


def bent_line_network() -> ReLUNetwork:
    """``f(x) = relu(relu(x1) + relu(x2) - 1)``, architecture ``2→2→1→1``.

    The two first-layer neurons cut the plane along the axes; the second-layer
    neuron's zero set is a line that bends where it crosses them: the ray
    ``x1 = 1, x2 <= 0``, the segment ``x1 + x2 = 1`` and the ray
    ``x2 = 1, x1 <= 0`` (the worked example of Grillo and Montúfar, pictured in docs/theory.md).

    Examples
    --------
    >>> net = bent_line_network()
    >>> net([2, 3]), net([-5, "1/2"]), net([1, -4])
    ((Fraction(4, 1),), (Fraction(0, 1),), (Fraction(0, 1),))
    """
    return ReLUNetwork(
        [[[1, 0], [0, 1]], [[1, 1]], [[1]]],
        [[0, 0], [-1], [0]],
        name="relu(relu(x1) + relu(x2) - 1)",
    )


def seeded_gaussian_network(widths: Architecture | Sequence[int]) -> ReLUNetwork:
    """The benchmark recipe (docs/benchmarks.md): ``np.random.seed(0)``, then per layer ``W = randn(out, in)``, ``b = randn(out)``.

    Float64 draws, converted exactly. Random networks like these are usually
    not generic (see :func:`generic_network`).

    Examples
    --------
    >>> net = seeded_gaussian_network((2, 8, 8, 1))
    >>> net.name, float(net.weights[0][0][0])
    ('seed-0 randn 2→8→8→1', 1.764052345967664)
    """
    sizes = require_architecture(widths, "widths", "seeded_gaussian_network").widths
    state = np.random.get_state()
    np.random.seed(0)
    try:
        Ws, bs = [], []
        for n_in, n_out in zip(sizes, sizes[1:]):
            Ws.append(np.random.randn(n_out, n_in))
            bs.append(np.random.randn(n_out))
    finally:
        np.random.set_state(state)  # leave the caller's global stream as it was
    return ReLUNetwork(Ws, bs, name=f"seed-0 randn {'→'.join(map(str, sizes))}")


def generic_network(
    architecture: Architecture | Sequence[int], seed: int = 0, max_attempts: int = 100, bits: int = 16
) -> ReLUNetwork:
    """A network that passes all four genericity conditions, checked exactly.

    Random Gaussian parameters rarely do on ``R^n0`` once there are two hidden
    layers (TPIC asks every pair of hypersurfaces of consecutive layers to
    cross). This constructor draws them on purpose; the first proposals are
    built as below, later ones alternate with line-like proposals
    (:func:`_line_like_proposal`), which reach wide layers such as
    ``2→16→16→16→1``, and after twenty tries with proposals whose neurons are
    made to cross every earlier zero set by a small linear program
    (:func:`_crossing_lp_proposal`), for narrow-then-wide shapes such as
    ``2→2→8→2→1``:

    - first layer: Gaussian hyperplanes through random points near the origin;
    - deeper hidden layers, in pairs ``z = w·a + b`` and ``z' = w'·a + b'`` with
      ``w > 0``, ``-w < w' < 0`` and ``b + b' > 0``: then ``z + z' > 0`` on the
      whole input space (``a >= 0``), so one of the pair is active everywhere
      (transparency);
    - each bias is chosen so that ``-b`` lies strictly inside the range of
      ``w·a`` over sampled points of every zero set of the previous layer, so
      the new hypersurface crosses each of them (TPIC).

    The sampling is float screening; the result is accepted only when
    :func:`~polyrelu.genericity.genericity` says all four conditions hold, on
    the exact canonical complex. Entries are dyadic rationals with ``bits``
    fractional bits.

    Parameters
    ----------
    architecture : Architecture or sequence of int
    seed : int
        Reproducible: the same seed gives the same network.
    max_attempts : int
        Proposals tried before giving up.
    bits : int
        Parameters are rounded to multiples of ``2**-bits``.

    Returns
    -------
    ReLUNetwork

    Raises
    ------
    GeometryError
        No proposal passed within ``max_attempts`` (e.g. behind a width-1
        hidden layer, whose next hypersurfaces are level sets of the
        bottleneck neuron and never cross it); the message says which
        conditions failed.

    Examples
    --------
    >>> from polyrelu import canonical_complex, genericity
    >>> net = generic_network((2, 3, 3, 1), seed=1)
    >>> genericity(canonical_complex(net)).holds
    True
    """
    caller = "generic_network"
    arch = require_architecture(architecture, "architecture", caller)
    seed = require_int(seed, "seed", caller, minimum=0)
    max_attempts = require_int(max_attempts, "max_attempts", caller, minimum=1)
    bits = require_int(bits, "bits", caller, minimum=0)
    rng = np.random.default_rng(seed)
    failures: dict[str, int] = {}  # why a proposal failed -> how often
    for attempt in range(max_attempts):
        # after a few tries, alternate with line-like proposals, which scale to wide layers
        if attempt >= 20 and attempt % 2:  # shapes the two others miss, e.g. narrow then wide
            layers = _crossing_lp_proposal(arch.widths, rng)
        elif attempt >= 4 and attempt % 2 == 0:
            layers = _line_like_proposal(arch.widths, rng)
        else:
            layers = _paired_proposal(arch.widths, rng)
        if layers is None:
            failures["no crossing bias found"] = failures.get("no crossing bias found", 0) + 1
            continue
        scale = 2**bits
        net = ReLUNetwork(
            [[[Fraction(round(v * scale), scale) for v in row] for row in W] for W, _ in layers],
            [[Fraction(round(v * scale), scale) for v in b] for _, b in layers],
            name=f"generic {arch} seed={seed}",
        )
        report = genericity(canonical_complex(net))
        if report.holds:
            return net
        for c in report.conditions:
            if not c.holds:
                failures[c.name] = failures.get(c.name, 0) + 1
    summary = ", ".join(f"{k}: {v}" for k, v in sorted(failures.items()))
    raise GeometryError(
        f"no generic network for architecture {arch} in {max_attempts} attempts ({summary}); "
        "try another seed or more attempts (n0 >= 2 and hidden widths >= 2 are needed)"
    )


def _layered_proposal(widths, rng, hidden_layer, samples=64):
    """A float proposal ``[(W, b), ...]`` for :func:`generic_network`, or None.

    Gaussian first-layer hyperplanes through points near the origin and a
    Gaussian output layer; every other hidden layer is
    ``hidden_layer(images, n, m, rng)``, given the previous layer's outputs at
    sampled points of each earlier zero set (or None when it finds none).
    """
    n0 = widths[0]
    layers = []
    for l in range(1, len(widths)):
        n, m = widths[l], widths[l - 1]
        if l == len(widths) - 1:
            layers.append(_random_layer(rng, n, m))
            break
        if l == 1:
            layers.append(_first_layer(rng, n, m))
            continue
        zero_sets = [P for P in _zero_set_samples(layers, n0, rng, samples) if len(P)]
        if len(zero_sets) < m:
            return None
        layer = hidden_layer([_forward(layers, P) for P in zero_sets], n, m, rng)
        if layer is None:
            return None
        layers.append(layer)
    return layers


def _paired_proposal(widths, rng):
    """Pairs ``z``, ``z'`` with ``z + z' > 0``, biases chosen inside the ranges of the zero sets."""
    return _layered_proposal(widths, rng, _paired_layer)


def _paired_layer(images, n, m, rng):
    """One hidden layer of :func:`_paired_proposal`, or None."""

    levels = (0.1, 0.02, 0.0)
    tails = levels + tuple(1 - q for q in levels)

    def crossing_bias(w, floor=-np.inf, top=1.0):
        # every quantile of every zero set in one call each: this runs thousands of times when no bias fits
        quantiles = np.array([np.quantile(A @ w, tails) for A in images])
        lows, highs = quantiles[:, : len(levels)].max(axis=0), quantiles[:, len(levels) :].min(axis=0)
        # inside the middle of every range if possible; wide layers need the tails too
        for lo, hi in zip(lows, highs):
            lo_b, hi_b = max(-hi, floor), -lo
            if lo_b < hi_b:
                return rng.uniform(hi_b - top * (hi_b - lo_b), hi_b)
        return None

    W, b = np.zeros((n, m)), np.zeros(n)
    for i in range(0, n, 2):
        for attempt in range(50):
            # positive weights first; mixed signs (whose level sets weave across nested curves) later
            w = rng.uniform(0.2, 1.0, m) if attempt < 10 else rng.standard_normal(m) + 0.5
            # a level low in the ranges leaves the partner (whose bias must exceed -bias) room to cross too
            bias = crossing_bias(w, top=1.0 if i + 1 == n else 0.34)
            if bias is None:
                continue
            if i + 1 == n:
                break
            w2 = -w + np.abs(w) * rng.uniform(0.05, 0.5, m)  # w + w2 >= 0, so z + z' > 0 on a >= 0
            bias2 = crossing_bias(w2, floor=-bias)
            if bias2 is not None:
                break
        else:
            return None
        W[i], b[i] = w, bias
        if i + 1 < n:
            W[i + 1], b[i + 1] = w2, bias2
    return W, b


def _line_like_proposal(widths, rng, spread=0.5):
    """One float proposal whose bent hypersurfaces are nearly straight lines through a central region.

    Every hidden layer is made of pairs ``z``, ``z' = -ρ z + c`` (``c > 0``), so
    ``relu(z) - relu(z')`` is nearly ``z``: a later neuron taking random signed
    combinations of such differences is nearly a random affine function of
    ``x``, bending (slightly) where it crosses the earlier hypersurfaces. Its
    bias puts its zero set through a random point near the origin, so
    hypersurfaces of consecutive layers cross there (TPIC), and ``z + z' > 0``
    keeps one of each pair active (transparency).
    """
    n0 = widths[0]
    layers = []

    def post(x):
        return _forward(layers, x)

    def direction(w, centre):
        """The unit gradient of ``x ↦ w·post(x)`` at ``centre`` (central differences; floats screen only)."""
        h = 1e-6
        g = np.array([(w @ post((centre + h * e)[None, :])[0] - w @ post((centre - h * e)[None, :])[0]) / (2 * h)
                      for e in np.eye(n0)])
        return g / (np.linalg.norm(g) or 1.0)

    previous = []  # unit directions of the previous layer's lines
    for l in range(1, len(widths)):
        n, m = widths[l], widths[l - 1]
        if l == len(widths) - 1:
            layers.append(_random_layer(rng, n, m))
            break
        W, b = np.zeros((n, m)), np.zeros(n)
        directions = []
        # points on the previous layer's zero sets: a new neuron must take both signs on each (TPIC, screened)
        images = [post(P) for P in _zero_set_samples(layers, n0, rng, 64) if len(P)] if layers else []
        for i in range(0, n, 2):
            for _ in range(50):  # a line far from parallel to the previous layer's crosses all of them nearby
                centre = rng.standard_normal(n0) * spread
                if l == 1:
                    w = rng.standard_normal(m)
                else:  # signed differences of the previous pairs, an odd last neuron alone
                    alpha = rng.standard_normal((m + 1) // 2)
                    w = np.zeros(m)
                    w[0::2] = alpha[: len(w[0::2])]
                    w[1::2] = -alpha[: len(w[1::2])]
                d = direction(w, centre)
                bias = -(w @ post(centre[None, :])[0])
                crosses = all((A @ w + bias).min() < 0 < (A @ w + bias).max() for A in images)
                if crosses and all(abs(d @ e) < 0.995 for e in previous):
                    break
            directions.append(d)
            W[i], b[i] = w, bias
            if i + 1 < n:
                ratio, offset = rng.uniform(0.8, 1.25), rng.uniform(0.2, 0.6) * (abs(b[i]) + np.abs(w).sum())
                W[i + 1] = -ratio * w + (np.abs(w) * rng.uniform(0.0, 0.02, m) if l > 1 else 0)
                b[i + 1] = -ratio * b[i] + offset
        layers.append((W, b))
        previous = directions
    return layers


def _crossing_lp_proposal(widths, rng):
    """One float proposal where each new neuron is *made* to change sign on every earlier zero set.

    For each zero set of the previous layer two sampled points are picked, and
    a small linear program (scipy's HiGHS) finds weights and a bias with the
    neuron positive at one and negative at the other, for all zero sets at
    once (TPIC, screened), with the largest margin ``t`` that weights in
    ``[-1, 1]`` allow. The margin matters: the neuron is then moved off that
    vertex to a random point of the LP's polytope where every margin is still
    at least ``t / 2`` (so nothing lines up by construction, and the crossings
    survive), and rescaled to margin 1. The partner ``z' = -z + δ·a + c`` with
    ``δ >= 0`` and ``δ·a + c <= 1/2`` at the positive points crosses the zero
    sets too, and ``z + z' > 0`` keeps one of the pair active (transparency).
    """
    return _layered_proposal(widths, rng, _crossing_lp_layer)


def _crossing_lp_layer(images, n, m, rng, tries=20):
    """One hidden layer of :func:`_crossing_lp_proposal`, or None."""
    W, b = np.zeros((n, m)), np.zeros(n)
    for i in range(0, n, 2):
        for _ in range(tries):
            direction = rng.standard_normal(m)  # one for all zero sets, so the sides are consistent
            # z > 0 at the far end of each zero set, z < 0 at the other (its images extreme along direction)
            P = np.array([A[np.argmax(A @ direction)] for A in images])
            Q = np.array([A[np.argmin(A @ direction)] for A in images])
            ones = np.ones((len(images), 1))
            # variables (w, bias, t): z >= t on P, z <= -t on Q, t as large as |w| <= 1 allows
            A_ub = np.block([[-P, -ones, ones], [Q, ones, ones]])
            bounds = [(-1, 1)] * m + [(None, None), (0, None)]
            best = linprog(np.append(np.zeros(m + 1), -1.0), A_ub=A_ub, b_ub=np.zeros(len(A_ub)),
                           bounds=bounds, method="highs")
            # a margin that is round-off against the images' scale: the two sides are not separable
            if best.status != 0 or best.x[-1] <= 1e-6 * max(1.0, np.abs(P).max()):
                continue
            # a vertex is special (entries at bounds, tight constraints): move to a random point between it
            # and the vertex of a random objective with half the margin, so every margin stays >= t / 2
            t = best.x[-1]
            other = linprog(np.append(rng.standard_normal(m + 1), 0.0), A_ub=A_ub, b_ub=np.zeros(len(A_ub)),
                            bounds=bounds[:-1] + [(t / 2, t / 2)], method="highs")
            if other.status == 0:
                break
        else:
            return None
        x = best.x + rng.uniform(0.2, 0.8) * (other.x - best.x)
        # rescaled so the margin at the sampled points is at least 1 (rounding to dyadics stays well inside)
        w, bias = x[:m] * 2 / t, x[m] * 2 / t
        W[i], b[i] = w, bias
        if i + 1 < n:
            # z' = -z + δ·a + c > 0 where z <= -1; where z >= 1, δ·a + c <= 1/2 keeps z' <= -1/2
            c = rng.uniform(0.1, 0.25)
            delta = np.abs(w) * rng.uniform(0.0, 1.0, m)
            delta *= 0.25 / max((P @ delta).max(), 0.25)
            W[i + 1], b[i + 1] = -w + delta, -bias + c
    return W, b


def _forward(layers, x):
    """Float post-activations of points ``x`` (rows) through the given layers."""
    a = x
    for W, b in layers:
        a = np.maximum(a @ W.T + b, 0)
    return a


def _random_layer(rng, n, m):
    """Gaussian weights and biases (the output layer of every proposal)."""
    return rng.standard_normal((n, m)), rng.standard_normal(n)


def _first_layer(rng, n, m):
    """Gaussian hyperplanes through random points near the origin."""
    W = rng.standard_normal((n, m))
    return W, -(W * rng.standard_normal((n, m)) * 0.5).sum(axis=1)


def _zero_set_samples(layers, n0, rng, samples):
    """Float points on the zero set of each neuron of the last of ``layers`` (bisection on random segments)."""

    def pre(x):
        W, b = layers[-1]
        return _forward(layers[:-1], x) @ W.T + b

    def draw():
        return np.concatenate([rng.standard_normal((samples, n0)) * s for s in (0.5, 2.0, 8.0)])

    start, end = draw(), draw()
    v_start, v_end = pre(start), pre(end)
    out = []
    for j in range(layers[-1][0].shape[0]):
        crossing = v_start[:, j] * v_end[:, j] < 0
        a, b = start[crossing], end[crossing]
        sign_a = np.sign(v_start[crossing, j])
        for _ in range(40):
            mid = (a + b) / 2
            same = np.sign(pre(mid)[:, j]) == sign_a
            a = np.where(same[:, None], mid, a)
            b = np.where(same[:, None], b, mid)
        out.append((a + b) / 2)
    return out


def with_neuron(network: ReLUNetwork, layer: int, row: VectorLike, bias: RationalLike, outgoing: VectorLike) -> ReLUNetwork:
    """``network`` with one more neuron at the end of hidden ``layer``: incoming ``row``/``bias``, ``outgoing`` weights.

    Examples
    --------
    >>> with_neuron(bent_line_network(), 1, [1, 1], 0, [0]).architecture.widths
    (2, 3, 1, 1)
    """
    return _with_neuron(network, layer, row, bias, outgoing, "with_neuron")


def _hidden_layer(network, layer, caller, name="layer"):
    """``layer`` as a hidden layer number ``1 .. L`` of ``network`` (both checked)."""
    depth = require_instance(network, ReLUNetwork, "network", caller).architecture.depth
    if not depth:
        raise UsageError(f"{caller}: the network has no hidden layer")
    return require_int(layer, name, caller, minimum=1, maximum=depth)


def _with_neuron(network, layer, row, bias, outgoing, caller):
    layer = _hidden_layer(network, layer, caller)
    widths = network.architecture.widths
    row = to_fraction_vector(row, f"{caller}: row", widths[layer - 1])
    bias = to_fraction(bias, f"{caller}: bias")
    outgoing = to_fraction_vector(outgoing, f"{caller}: outgoing", widths[layer + 1])
    Ws = [list(map(list, W)) for W in network.weights]
    bs = [list(b) for b in network.biases]
    Ws[layer - 1].append(list(row))
    bs[layer - 1].append(bias)
    for r, w in zip(Ws[layer], outgoing):
        r.append(w)
    return ReLUNetwork(Ws, bs, name=f"{network.name or 'network'} + neuron in layer {layer}")


def with_dead_neuron(network: ReLUNetwork, layer: int, outgoing: VectorLike | None = None) -> ReLUNetwork:
    """Add a neuron to hidden ``layer`` that is never active; same function, more parameters.

    In layer 1 its weights are zero and its bias ``-1``; deeper, it reads
    non-negative inputs with weights ``-1`` and bias ``-1``. Its outgoing weights
    (default all ``1``) never matter.

    Examples
    --------
    >>> from polyrelu import identifiability_report, same_function
    >>> net = generic_network((2, 3, 2, 1), seed=1)
    >>> dead = with_dead_neuron(net, 2)
    >>> bool(same_function(net, dead)), identifiability_report(dead).verdict
    (True, 'not identifiable')
    """
    layer = _hidden_layer(network, layer, "with_dead_neuron")
    width = network.architecture.widths[layer - 1]
    row = [0] * width if layer == 1 else [-1] * width
    out = outgoing if outgoing is not None else [1] * network.architecture.widths[layer + 1]
    return _with_neuron(network, layer, row, -1, out, "with_dead_neuron")


def with_invisible_neuron(network: ReLUNetwork, layer: int, row: VectorLike, bias: RationalLike) -> ReLUNetwork:
    """Add a neuron to hidden ``layer`` with the given incoming weights and zero outgoing weights.

    Its bent hypersurface exists but ``f`` cannot see it.

    Examples
    --------
    >>> from polyrelu import same_function
    >>> net = generic_network((2, 3, 2, 1), seed=1)
    >>> bool(same_function(net, with_invisible_neuron(net, 1, [1, -3], "1/5")))
    True
    """
    layer = _hidden_layer(network, layer, "with_invisible_neuron")
    return _with_neuron(network, layer, row, bias, [0] * network.architecture.widths[layer + 1], "with_invisible_neuron")


def with_twin_neuron(
    network: ReLUNetwork, layer: int, index: int, ratio: RationalLike = 2, share: RationalLike = "1/2"
) -> ReLUNetwork:
    """Split neuron ``(layer, index)`` into itself and a twin whose incoming row is ``ratio`` times its own.

    ``relu(λ z) = λ relu(z)`` for ``λ > 0``, so the pair acts as one neuron:
    the twin takes ``share`` of the outgoing weights (divided by ``ratio``),
    the original keeps the rest. Any other split computes the same function:
    a continuous hidden symmetry.

    Examples
    --------
    >>> from polyrelu import minimality_report, same_function
    >>> net = generic_network((2, 3, 2, 1), seed=1)
    >>> twin = with_twin_neuron(net, 1, 0)
    >>> bool(same_function(net, twin)), minimality_report(twin).verdict
    (True, 'not minimal')
    """
    caller = "with_twin_neuron"
    layer = _hidden_layer(network, layer, caller)
    index = require_int(index, "index", caller, minimum=0, maximum=network.architecture.widths[layer] - 1)
    ratio, share = to_fraction(ratio, f"{caller}: ratio"), to_fraction(share, f"{caller}: share")
    if ratio <= 0:
        raise GeometryError(f"{caller}: the twin's ratio must be positive, not {ratio}")
    W, b = network.layers[layer - 1]
    W_next = network.layers[layer][0]
    kept = [w * (1 - share) for w in (row[index] for row in W_next)]
    grown = with_neuron(network, layer, [ratio * v for v in W[index]], ratio * b[index],
                        [w * share / ratio for w in (row[index] for row in W_next)])
    Ws = [list(map(list, M)) for M in grown.weights]
    for row, w in zip(Ws[layer], kept):
        row[index] = w
    return ReLUNetwork(Ws, grown.biases, name=f"{network.name or 'network'} + twin of ({layer}, {index})")


def with_stably_active_layer(network: ReLUNetwork, after: int, shift: RationalLike = 1) -> ReLUNetwork:
    """Insert an identity layer after hidden layer ``after``, kept active by a positive bias ``shift``.

    The new layer computes ``a + shift > 0`` from the previous layer's
    outputs ``a >= 0``, so every neuron in it is active everywhere; the next
    layer's biases take the shift off again. One hidden layer deeper, same
    function: the dependency graph sees through it (its longest chain stays
    as it was).

    Examples
    --------
    >>> from polyrelu import same_function
    >>> net = generic_network((2, 3, 2, 1), seed=1)
    >>> deep = with_stably_active_layer(net, 1)
    >>> deep.architecture.widths, bool(same_function(net, deep))
    ((2, 3, 3, 2, 1), True)
    """
    caller = "with_stably_active_layer"
    after = _hidden_layer(network, after, caller, "after")
    shift = to_fraction(shift, f"{caller}: shift")
    if shift <= 0:
        raise GeometryError(f"{caller}: the shift must be positive to keep the layer active, not {shift}")
    n = network.architecture.widths[after]
    Ws = [list(map(list, W)) for W in network.weights]
    bs = [list(b) for b in network.biases]
    identity = [[Fraction(int(i == j)) for j in range(n)] for i in range(n)]
    next_b = [b - shift * sum(row) for b, row in zip(bs[after], Ws[after])]
    Ws.insert(after, identity)
    bs.insert(after, [shift] * n)
    bs[after + 1] = next_b
    return ReLUNetwork(Ws, bs, name=f"{network.name or 'network'} + stably active layer after {after}")


def bottleneck_network() -> ReLUNetwork:
    """A ``2→2→1→2→1`` network through a width-1 layer, with a discrete hidden symmetry.

    The bottleneck ``t = relu(relu(x1) + relu(x2) - 1)`` feeds two neurons:
    ``relu(t + 1)`` is active for every ``t >= 0`` (so it is ``t + 1``), and
    ``relu(t - 2)`` bends at ``t = 2``. Since ``relu(u) = relu(-u) + u`` and the
    first neuron supplies ``u = t - 2`` as an affine function of its output,
    the second neuron can be flipped: :func:`bottleneck_flip` gives parameters
    that compute the same function and are not a permutation and scaling of
    these. Behind a width-1 layer every next hypersurface is a level set of the
    bottleneck neuron, so TPIC fails and Grillo and Montúfar's identifiability theorem does not apply.

    Examples
    --------
    >>> from polyrelu import equivalent, same_function
    >>> net = bottleneck_network()
    >>> bool(same_function(net, bottleneck_flip(net))), equivalent(net, bottleneck_flip(net))
    (True, False)
    """
    return ReLUNetwork(
        [[[1, 0], [0, 1]], [[1, 1]], [[1], [1]], [[1, 3]]],
        [[0, 0], [-1], [1, -2], [0]],
        name="width-1 bottleneck",
    )


def bottleneck_flip(network: ReLUNetwork) -> ReLUNetwork:
    """The bottleneck network with its second post-bottleneck neuron flipped (same function).

    ``v relu(w t + b) = v relu(-w t - b) + v (w t + b)``, and the always-active
    first neuron ``relu(w' t + b') = w' t + b'`` absorbs the affine term: its
    output weight grows by ``v w / w'``, the output bias by ``v (b - w b' / w')``.
    """
    widths = require_instance(network, ReLUNetwork, "network", "bottleneck_flip").architecture.widths
    if len(widths) != 5 or widths[2:] != (1, 2, 1):
        raise ShapeError(
            f"bottleneck_flip: network must have the architecture n0→n1→1→2→1 of bottleneck_network(), not {'→'.join(map(str, widths))}"
        )
    Ws = [list(map(list, W)) for W in network.weights]
    bs = [list(b) for b in network.biases]
    (w_on,), (w,) = Ws[2]
    if not w_on:
        raise GeometryError("bottleneck_flip: network's first post-bottleneck neuron has weight 0; it cannot absorb the flip")
    b_on, b = bs[2]
    v = Ws[3][0][1]
    Ws[2][1] = [-w]
    bs[2][1] = -b
    Ws[3][0][0] += v * Fraction(w) / w_on
    bs[3][0] += v * (b - Fraction(w) * b_on / w_on)
    return ReLUNetwork(Ws, bs, name=f"{network.name or 'network'}, second neuron flipped")


def free_weight_network(t: RationalLike = -1) -> ReLUNetwork:
    """A ``2→3→2→1`` network with a weight ``t`` that can take any negative value without changing ``f``.

    Layer 1: ``a1 = relu(x1)``, ``a2 = relu(x2)``, ``a3 = relu(-x2 - 1)``. Layer 2:
    ``z = relu(-a1 + a2 - 1 + t a3)`` and ``y = relu(a2 + a3 - 2)``; ``f = z + y``.
    Where ``a3 > 0`` (``x2 < -1``) the rest of ``z``'s input is at most ``-1``,
    so for ``t <= 0`` the term ``t a3`` never switches ``z`` on: every ``t < 0``
    gives the same function, a continuous symmetry of the affine map into layer
    2 (the output layer of the first-layer subnetwork). No single neuron can be
    deleted, merged into a twin or absorbed: each of the five is used. This
    is our construction in the spirit of Grillo and Montúfar's Proposition 5.23, not
    the paper's own example.

    Examples
    --------
    >>> from polyrelu import equivalent, minimality_report, same_function
    >>> a, b = free_weight_network(-1), free_weight_network("-1/3")
    >>> bool(same_function(a, b)), equivalent(a, b), minimality_report(a).removals
    (True, False, ())
    """
    t = to_fraction(t, "free_weight_network: t")
    if t >= 0:
        raise GeometryError(f"t must be negative (for t > 0 the weight switches z on where x2 < -1), not {t}")
    return ReLUNetwork(
        [[[1, 0], [0, 1], [0, -1]], [[-1, 1, t], [0, 1, 1]], [[1, 1]]],
        [[0, 0, -1], [-1, -2], [0]],
        name=f"free weight t={t}",
    )
