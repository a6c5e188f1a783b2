"""The network recovered so far, and the features deeper formulas are written in.

A neuron of layer ``l + 1`` is an affine function of the outputs of layer
``l``; on one region of the complex of the layers known so far it is an
affine function of ``x``, whose coefficients are linear in the neuron's
unknown weights. :class:`PartialNetwork` holds the layers, their canonical
complex (docs/design.md §2) and these linear maps.

Glossary
--------
provisional orientation
    The last known layer's neurons are known up to sign (``ẑ_i`` or
    ``-ẑ_i``) until the next layer fixes them (``orientation``).
features
    On a region, the affine maps of ``relu(ẑ_i)``, ``ẑ_i`` and ``1``
    (``relu(z_i)`` and ``1`` once oriented): a next-layer formula is a vector
    of coefficients on them.
basis
    The feature columns that are linearly independent over all regions; a
    formula is written in those.
parallel equations
    The linear equations in a formula's coefficients saying its affine map on
    a region is a multiple of a measured hyperplane
    (:func:`polyrelu.formulas.parallel_equations`).
product columns
    ``[z_j on]·d_k`` for a last-layer neuron ``j`` picked from a family with
    free directions ``d_k``: a next-layer formula's coefficient on one is
    ``v_j θ_k``, its weight on ``relu(z_j)`` times the step along ``d_k``
    that completes the neuron (:meth:`PartialNetwork.use_features`).

What it leaves to others: finding the formulas (``tracing``, ``families``),
orienting the layer (``orientation``).
"""

import math
from fractions import Fraction

from ..complex import canonical_complex
from ..errors import GeometryError
from ..geometry.linalg import pivot_columns, solve
from ..network import ReLUNetwork
from .control import Clock
from .numerics import vadd, vscale

__all__ = []


def direction_map(relu, direction):
    """The affine map of ``Σ w_i relu(z_i) + b`` on a region, for a family's direction ``(w, b)``.

    ``relu`` holds the affine maps ``(constant, *linear)`` of the previous
    layer's ``relu(z_i)`` there (:meth:`PartialNetwork.previous_relu`).
    """
    w, b = direction
    a = (Fraction(b),) + (Fraction(0),) * (len(relu[0]) - 1)
    for v, m in zip(w, relu):
        if v:
            a = vadd(a, vscale(v, m))
    return a


def moved_neuron(row, moves):
    """A neuron ``(w, b)`` moved by ``Σ θ_k d_k``: ``moves`` are the pairs ``(θ_k, d_k)``, each ``d_k = (w_k, b_k)`` a family's direction."""
    w, b = row
    for t, (dw, db) in moves:
        w, b = vadd(w, vscale(t, dw)), b + t * db
    return w, b


class PartialNetwork:
    """Hidden layers recovered so far; the last one's orientation is provisional.

    ``layers[l]`` is a list of rows ``(w, b)`` in terms of the previous layer's
    outputs. A layer's neurons are fixed up to positive scaling once the next
    layer is known (:func:`~polyrelu.recovery.orientation.orient_layer`).
    """

    def __init__(self, n0, domain, numerics, clock=None, max_cells=1_000_000):
        self.n0 = n0
        self.domain = domain
        self.numerics = numerics
        self.clock = clock or Clock()
        self.max_cells = max_cells  # bound on the complexes built (:class:`~polyrelu.errors.ComplexTooLargeError`)
        self.layers = []
        self.net = None
        self.complex = None
        self._cell_keys = {}  # cell id -> cell_key, for the complex built last
        self._maps = {}  # region id -> the pre-activation maps of the network built last (pre_activation_maps)
        self._chosen = {}  # (oriented, skip, products) -> features, their basis and precondition on the complex built last
        self.oriented = False
        self.skip = False
        self.products = []
        self.free = {}  # (layer, neuron) -> a family's free directions (w, b) over the previous layer (:func:`~polyrelu.recovery.next_layer.second_chance`)
        self.known = 0  # leading layers the caller gave (append_known_layers): complete, their orientation final
        # skip traces free in relu(-ẑ_i) are kept as families too (skip_features._unread_neurons): second attempt only
        self.on_families = False

    def append_layer(self, rows):
        """Append a hidden layer, each row ``(w, b)`` scaled by a positive factor to max-norm 1.

        A neuron's scale is free (``relu(c z) = c relu(z)`` for ``c > 0``), and
        the next layer's rows absorb it. Exact solves return rows with a common
        denominator, so scales compound from layer to layer: on three hidden
        layers the third layer's weights had numerators of 16,000 bits where
        the same neurons scaled to max-norm 1 need about 160, and every
        evaluation, complex and solve after them paid for it. Scaling a row
        leaves its free directions (:attr:`free`) valid: a family is an affine
        set of rows, and the scale only moves its base point.
        """
        scaled = []
        for w, b in rows:
            top = max((abs(v) for v in (*w, b)), default=0)
            factor = Fraction(1) / top if top else 1
            scaled.append((vscale(factor, w), factor * b))
        self.layers.append(scaled)

    def append_known_layers(self, net):
        """Append every layer of ``net`` as a hidden layer the caller knows: complete, oriented, never changed.

        :meth:`append_layer` scales each row to max-norm 1, so a neuron's
        output shrinks by its row's largest entry; the next layer's weights on
        it grow by that factor and the layers compute the same pre-activations
        as ``net``, up to a positive factor per neuron.

        A neuron off on every region of the domain (dead) outputs 0 there, so
        it is left out with its column in the next layer: nothing after it
        could show a weight on it, and a recovered network has no such neuron
        either. A layer all of whose neurons are dead is kept whole.
        """
        grow = None
        for W, b in zip(net.weights, net.biases):
            rows = [(tuple(v * g for v, g in zip(w, grow)) if grow else tuple(w), beta) for w, beta in zip(W, b)]
            self.append_layer(rows)
            grow = [max(abs(v) for v in (*w, beta)) or 1 for w, beta in rows]
        self.rebuild()
        regions = self.complex.regions()
        start, kept = 0, None
        for l, layer in enumerate(self.layers):
            if kept is not None:
                self.layers[l] = [(tuple(w[i] for i in kept), b) for w, b in layer]
            alive = [i for i in range(len(layer)) if any(R.signs[start + i] > 0 for R in regions)]
            start += len(layer)
            kept = alive or range(len(layer))
            self.layers[l] = [self.layers[l][i] for i in kept]
        self.known = len(self.layers)

    def is_known(self, layer=-1):
        """Whether hidden layer ``layer`` (an index into :attr:`layers`) is one the caller gave (:meth:`append_known_layers`)."""
        return layer % len(self.layers) < self.known

    def rebuild(self, oriented=False):
        """Network, complex and feature basis of the layers so far.

        ``oriented``: the last layer's orientation is final, so a next-layer
        neuron is ``Σ w_i relu(z_i) + b`` and the features are ``relu(z_i)``
        and ``1`` only (fewer unknowns than with the ``ẑ_i`` columns).
        """

        self.oriented = oriented
        self.skip = False
        if not self.layers:
            self.net = self.complex = None
            return
        Ws = [[list(w) for w, _ in layer] for layer in self.layers] + [[[0] * len(self.layers[-1])]]
        bs = [[b for _, b in layer] for layer in self.layers] + [[0]]
        self.net = ReLUNetwork(Ws, bs)
        self.clock.check()
        self.complex = canonical_complex(self.net, self.domain, max_cells=self.max_cells, progress=False)
        self._cell_keys, self._maps, self._chosen = {}, {}, {}
        self.offset = sum(len(layer) for layer in self.layers[:-1])
        self.use_features(oriented)

    def use_features(self, oriented=False, skip=False, products=False):
        """Choose the features of next-layer formulas on the complex already built, and their basis.

        ``oriented``: ``relu(z_i)`` and ``1``. ``skip``: ``relu(ẑ_i)``, the
        outputs ``relu(y_k)`` of the layer before the last, and ``1``: a
        next-layer neuron that reads a last-layer neuron positive on the
        whole domain (which no trace finds) reads those outputs through it
        (:func:`~polyrelu.recovery.orientation.orient_with_stable_neurons`).
        The ``ẑ_i`` columns are affine in the ``relu(y_k)``, so they are left out.

        ``products`` (oriented only): also a column ``[z_j on]·d_k`` for each
        free direction ``d_k`` of each last-layer neuron ``j`` picked from a
        family (``free``). Where ``j`` is on, the next layer reads
        ``v_j (z_j + Σ θ_k d_k)`` with the completing steps ``θ_k``, so the
        products ``v_j θ_k`` are linear unknowns beside ``v_j``: the next
        layer's traces complete the family (``self.products`` lists the
        columns' ``(j, k, d_k)``, after the ``relu(z_i)`` and ``1`` columns).
        """
        self.oriented = oriented
        self.skip = skip
        last = len(self.layers) - 1
        self.products = [
            (j, k, d)
            for (layer, j), directions in sorted(self.free.items())
            if layer == last and last > 0
            for k, d in enumerate(directions)
        ] if products and oriented and not skip else []
        # the same features are chosen again and again on one complex (an orientation tried, then its completion)
        key = (oriented, skip, tuple(self.products))
        chosen = self._chosen.get(key)
        if chosen is None:
            self._features, self._integer_features, self._columns = {}, {}, {}
            regions = self.complex.regions()
            self.basis = pivot_columns([row for R in regions for row in self.features(R)])
            self.precondition = self.numerics.precondition([row for R in regions for row in self.reduced(R)])
            chosen = self._chosen[key] = (self._features, self._integer_features, self._columns, self.basis, self.precondition)
        self._features, self._integer_features, self._columns, self.basis, self.precondition = chosen

    def features(self, region):
        """The ``(n0 + 1) × (2 n_l + 1)`` matrix of ``relu(ẑ_i)``, ``ẑ_i`` and ``1`` on a region (affine coefficient columns).

        Oriented: ``relu(z_i)`` and ``1`` only; with ``skip`` features the
        previous layer's outputs replace the ``ẑ_i`` (:meth:`use_features`).
        """
        hit = self._features.get(region.id)
        if hit is None:
            G, g = self.pre_activation_maps(region)[len(self.layers) - 1]
            signs = region.signs[self.offset : self.offset + len(g)]
            lin = [(g[i], *G[i]) for i in range(len(g))]
            relu = [v if s > 0 else (0,) * (self.n0 + 1) for v, s in zip(lin, signs)]
            const = (1,) + (0,) * self.n0
            if self.skip:
                cols = relu + self.previous_relu(region) + [const]
            else:
                cols = relu + [const] if self.oriented else relu + lin + [const]
            if self.products:
                zero = (0,) * (self.n0 + 1)
                previous = self.previous_relu(region)
                cols = cols + [direction_map(previous, d) if signs[j] > 0 else zero for j, _, d in self.products]
            hit = [tuple(Fraction(col[r]) for col in cols) for r in range(self.n0 + 1)]
            self._features[region.id] = hit
        return hit

    def basis_vector(self, w, b):
        """The formula ``Σ w_i relu(z_i) + b`` over the oriented features as coefficients on :attr:`basis`.

        A column the basis leaves out is the combination of basis columns it
        equals on every region: with the carriers of
        :func:`~polyrelu.recovery.skip_features.trace_over_skip_features`
        (``relu(y_k) + 1``) and a neuron positive everywhere (affine in the
        ``relu(y_k)``) in the last layer, the constant is one.
        """
        c = [Fraction(0)] * len(self.basis)
        for column, v in enumerate((*w, b)):
            if v:
                for p, a in enumerate(self._column_in_basis(column)):
                    c[p] += v * a
        return tuple(c)

    def basis_row(self, c):
        """Coefficients ``c`` on the oriented features' :attr:`basis` as a row ``(w, b)`` over the last layer (0 on a column outside it)."""
        position = {col: p for p, col in enumerate(self.basis)}
        n = len(self.layers[-1])
        w = tuple(c[position[i]] if i in position else Fraction(0) for i in range(n))
        return w, (c[position[n]] if n in position else Fraction(0))

    def _column_in_basis(self, column):
        """Feature ``column`` as coefficients on :attr:`basis` (exact; it lies in their span on every region)."""
        hit = self._columns.get(column)
        if hit is None:
            if column in self.basis:
                hit = tuple(Fraction(int(p == column)) for p in self.basis)
            else:
                rows = [row for R in self.complex.regions() for row in self.features(R)]
                hit = solve([[row[p] for p in self.basis] for row in rows], [row[column] for row in rows])
            self._columns[column] = hit
        return hit

    def complete_families(self, layer, steps):
        """Move family neurons of hidden ``layer`` (0-based) along their free directions; the directions so fixed leave :attr:`free`.

        ``steps`` maps ``(j, k)`` to ``θ``: neuron ``j`` becomes ``z_j + Σ θ_k d_k``
        over its free directions ``d_k`` (``self.free[layer, j]``), however
        the steps were read (the next layer's traces, or the output).
        """
        rows = self.layers[layer]
        for j in sorted({j for j, _ in steps}):
            directions = self.free[layer, j]
            rows[j] = moved_neuron(rows[j], [(steps[j, k], d) for k, d in enumerate(directions) if (j, k) in steps])
            rest = tuple(d for k, d in enumerate(directions) if (j, k) not in steps)
            if rest:
                self.free[layer, j] = rest
            else:
                del self.free[layer, j]

    def pre_activation_maps(self, region):
        """The network's :meth:`~polyrelu.network.ReLUNetwork.pre_activation_maps` on a region, remembered until the next :meth:`rebuild`.

        Features are chosen again and again on one complex (every orientation
        tried, every completion, :meth:`use_features`), and composing the
        maps in rationals is most of what that costs.
        """
        hit = self._maps.get(region.id)
        if hit is None:
            hit = self._maps[region.id] = self.net.pre_activation_maps(region.signs)
        return hit

    def previous_relu(self, region):
        """``relu(y_k)`` of the layer ``y`` before the last on a region: affine maps ``(constant, *linear)``."""
        return self.layer_relu(region, len(self.layers) - 2)

    def layer_relu(self, region, layer):
        """``relu`` of hidden layer ``layer`` (0-based, known) on a region: affine maps ``(constant, *linear)``."""
        G, g = self.pre_activation_maps(region)[layer]
        offset = sum(len(known) for known in self.layers[:layer])
        zero = (Fraction(0),) * (self.n0 + 1)
        return [(g[i], *G[i]) if region.signs[offset + i] > 0 else zero for i in range(len(g))]

    def reduced(self, region):
        F = self.features(region)
        return [tuple(row[j] for j in self.basis) for row in F]

    def integer_features(self, region):
        """:meth:`features` times a positive integer that clears their denominators: for uses blind to a region's scale.

        That a formula's affine map is parallel to a hyperplane on the region
        (:func:`~polyrelu.formulas.parallel_equations`) says the same of any
        positive multiple of the features, and in integers the equations and
        their null spaces cost a fraction of what Fractions do.
        """
        hit = self._integer_features.get(region.id)
        if hit is None:
            F = self.features(region)
            scale = math.lcm(*(Fraction(v).denominator for row in F for v in row))
            hit = [tuple(int(v * scale) for v in row) for row in F]
            self._integer_features[region.id] = hit
        return hit

    def cell_key(self, cell):
        """The rows of a cell of the complex as sets, equations up to sign: the same for the same set whatever signs and ids the complex gives it.

        Remembered per cell of the complex (a trace asks for the same walls
        and regions again and again).
        """
        hit = self._cell_keys.get(cell.id)
        if hit is None:
            poly = cell.polyhedron
            equations = frozenset(
                tuple(row) if next(v for v in row if v) > 0 else tuple(-v for v in row) for row in poly.equations if any(row)
            )
            hit = self._cell_keys[cell.id] = (frozenset(tuple(row) for row in poly.inequalities), equations)
        return hit

    def equation_features(self, region):
        """:meth:`integer_features` on the basis columns: :meth:`reduced`, scaled."""
        return [tuple(row[j] for j in self.basis) for row in self.integer_features(region)]

    def locate(self, x):
        """The region whose interior holds ``x``, or None (on a known hypersurface or outside the domain)."""

        try:
            cell = self.complex.locate(x)
        except GeometryError:
            return None
        return cell if cell.dimension == self.n0 else None

    def explains(self, bp):
        """Whether a known neuron vanishes at the breakpoint with the breakpoint's hyperplane there."""
        if self.net is None:
            return False
        rows = self.net.pre_activation_rows(self.net.signs(bp.point))
        return any(self.numerics.on_hyperplane(row, bp) for row in rows)
