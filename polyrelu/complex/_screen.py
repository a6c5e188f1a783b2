"""Values of hidden neurons at the vertices of a subdivision: exact in integers, screened in floats (internal).

:class:`IntegerNetwork` evaluates the network exactly at homogeneous integer points, :class:`FloatScreen`
certifies signs from a float forward pass with a rigorous error bound, and :class:`LayerValues` serves one
layer's signs and exact values to the cuts as they need them.
"""

from __future__ import annotations

from typing import Any

import flint
import numpy as np


class IntegerNetwork:
    """Exact pre-activations at homogeneous integer points ``(D, X)``, in batches (python-flint).

    Uses the network's integer layers ``c_l [b_l | W_l]``: the value reported for
    neuron ``k`` at ``(D, X)`` is ``C_k D z_k(X / D)`` with a constant ``C_k > 0``;
    at an ideal point (``D = 0``) it is ``C_k`` times the recession value, i.e.
    the network with all biases set to zero evaluated at ``X``.
    """

    def __init__(self, net):
        self.layers = net.integer_layers()[:-1]
        self.rows = [[tuple(int(v) for v in row) for row in Wb.tolist()] for Wb, _ in self.layers]

    def _input_matrix(self, points, layer):
        """The homogeneous inputs of hidden layer ``layer`` at the points: a column per point, the constant first."""
        n = len(points)
        top = [p[0] for p in points]  # the constant 1 in homogeneous form, at each layer's scale
        M = flint.fmpz_mat([top] + [list(col) for col in zip(*(p[1:] for p in points))])
        zero = flint.fmpz(0)
        for Wb, c in self.layers[: layer - 1]:
            entries = (Wb * M).entries()
            top = [t * c for t in top]
            M = flint.fmpz_mat(1 + len(entries) // n, n, top + [v if v > 0 else zero for v in entries])
        return M

    def __call__(self, points, layer):
        """The values of the neurons of hidden layer ``layer`` (from 1) at each point, as one tuple per point."""
        if not points:
            return []
        n = len(points)
        entries = [int(v) for v in (self.layers[layer - 1][0] * self._input_matrix(points, layer)).entries()]
        width = len(entries) // n
        return [tuple(entries[r * n + j] for r in range(width)) for j in range(n)]

    def inputs(self, points, layer):
        """The homogeneous inputs of hidden layer ``layer`` at each point, a list of flint integers per point.

        The value of the layer's neuron ``j`` at a point is the dot product of
        ``rows[layer - 1][j]`` with the point's input (for the first layer,
        the point itself).
        """
        if not points:
            return []
        return self._input_matrix(points, layer).transpose().tolist()


class FloatScreen:
    """Certified signs of hidden pre-activations at homogeneous integer points, from floats with an error bound.

    The network runs in float64 at ``x = X / D`` (at an ideal point, at the
    direction ``X / max|X_i|`` with the biases dropped: the recession
    function), and alongside it a bound ``E`` on the error of every value. A
    value ``Z`` with ``|Z| > E`` has the sign of the exact one; the others are
    left undecided (``None``) for exact arithmetic.

    Notes
    -----
    With ``u = 2^-53``: every rational converted to float (a weight, a bias, a
    coordinate, each correctly rounded) is off by at most ``u`` relative; the
    input is off by at most ``e0 = 2u|x̂|``. For a layer with ``n`` inputs
    ``â`` off by at most ``e`` from the exact ``a``, the computed
    ``ẑ = fl(Ŵ â + t b̂)`` (any summation order, fused or not) differs from
    ``W a + t b`` by at most ``(γ_{n+1} + 3u)(|Ŵ||â| + t|b̂|) + (1 + 3u)|Ŵ| e``
    (``γ_k = ku / (1 - ku)``), and ReLU does not increase errors. Both sums
    are computed in floats too, with relative error at most ``γ_{n+1}``; the
    bound used, ``2((n + 5)u(|Ŵ||â| + t|b̂|) + |Ŵ| e) + η`` with ``η = 2^-1000``
    (for underflow), exceeds the true one by a wide margin. An overflow gives
    ``inf`` or ``nan``, which decides nothing. Weights beyond ``2^±900`` turn
    the screen off (:attr:`usable`): everything is then decided exactly.
    """

    _U = 2.0**-53
    _ETA = 2.0**-1000

    def __init__(self, net):
        self.layers = []
        # every non-zero weight and bias p/q within [2^-900, 2^900] in absolute value, in integers (a wide
        # layer has tens of thousands of them: Fractions compared and converted one by one cost a tenth of a slice)
        self.usable = all(
            abs(v.numerator) << 900 >= v.denominator and abs(v.numerator) <= v.denominator << 900
            for W, b in net.layers[:-1] for v in (*(w for row in W for w in row), *b) if v
        )
        if not self.usable:
            return
        for W, b in net.layers[:-1]:
            # p / q of two ints is correctly rounded, as float(Fraction) is
            Wf = np.array([[w.numerator / w.denominator for w in row] for row in W])
            bf = np.array([v.numerator / v.denominator for v in b])
            self.layers.append((Wf, bf, np.abs(Wf), np.abs(bf), (len(W[0]) + 5) * self._U))

    @staticmethod
    def _inputs(points):
        """``(x̂, t)``: float coordinates (``inf`` where too large for a float) and the bias factor of every point."""
        rows, t = [], []
        for D, *X in points:
            scale = D if D else max(abs(v) for v in X)
            try:
                rows.append([v / scale for v in X])  # int / int: correctly rounded
            except OverflowError:
                rows.append([np.inf] * len(X))
            t.append(1.0 if D else 0.0)
        return np.array(rows, dtype=float).reshape(len(points), -1), np.array(t)

    def __call__(self, points, layer):
        """``(Z, E)``: float values of the neurons of hidden layer ``layer`` at the points, and their error bounds."""
        with np.errstate(all="ignore"):  # an overflow becomes inf or nan, which certifies nothing
            a, t = self._inputs(points)
            t = t[:, None]
            e = 2 * self._U * np.abs(a) + self._ETA
            for l, (Wf, bf, Wa, ba, margin) in enumerate(self.layers[:layer], start=1):
                z = a @ Wf.T + t * bf
                e = 2 * (margin * (np.abs(a) @ Wa.T + t * ba) + e @ Wa.T) + self._ETA
                if l == layer:
                    return z, e
                a = np.maximum(z, 0.0)
        raise AssertionError("unreachable: layer is at most the number of hidden layers")


EVALUATE_ALL = 2048  # vertices up to which the size guard's first read evaluates them all
_BLOCK = 4  # first-layer neurons per table of partial sums in the second layer's exact values


class LayerValues:
    """The values of one hidden layer's neurons at the vertices of a subdivision, as the cuts need them.

    Signs are certified by :class:`FloatScreen` where it can, and computed
    exactly (:class:`IntegerNetwork`, in batches) where it cannot; exact
    values are computed only where asked for (the ends of crossed edges, the
    size guard's samples). The second layer's come from the first layer's
    signs at the vertex (certified by the floats where they can be), without
    the first layer's values; a deeper layer's, from its inputs at the
    vertex, which are kept. Indexing gives a vertex's exact values as a tuple
    indexed by neuron (earlier layers' entries are 0), as the size guard
    reads them.
    """

    def __init__(self, subdivision, evaluate, screen, layer, offset):
        self.subdivision = subdivision
        self.evaluate = evaluate
        self.screen = screen if screen.usable else None
        self.layer = layer
        self.offset = offset
        self.rows = evaluate.rows[layer - 1]
        self.columns: list[flint.fmpz_mat | None] = [None] * len(self.rows)  # each neuron's row as a column
        self.pad = (0,) * offset
        self.padded_values = {}  # vertex -> pad + the exact values of all the layer's neurons (read by the size guard)
        # vertex -> the layer's exact homogeneous input (the first layer's input is the vertex itself; unused at the second)
        self.inputs: Any = subdivision.vertices if layer == 1 else {}
        self.floats = self.bounds = None
        self.screened = 0  # vertices with float values so far (the arrays grow by doubling)

    def __len__(self):
        return len(self.subdivision.vertices)

    def __getitem__(self, i):
        if i not in self.padded_values:
            # The size guard reads the vertices of a few hundred sampled cells, one by one: with few
            # vertices, evaluating them all at once costs less than one call each; with many, far more.
            vertices = self.subdivision.vertices
            if len(vertices) <= EVALUATE_ALL:
                missing = [j for j in range(len(vertices)) if j not in self.padded_values]
            else:
                missing = [i]
            self.padded_values.update(zip(missing, self.padded([vertices[j] for j in missing])))
        return self.padded_values[i]

    def padded(self, points):
        """Exact values at points, every tuple indexed by neuron (earlier layers' entries are 0)."""
        return [self.pad + v for v in self.evaluate(points, self.layer)]

    def exact(self, j, indices):
        """Exact values of the layer's neuron ``j`` at the vertices ``indices`` (kept ones read, the others computed)."""
        known, k = self.padded_values, self.offset + j
        unknown = [i for i in indices if i not in known]
        if not unknown:
            return [known[i][k] for i in indices]
        computed = iter(self._second_layer_values(j, unknown) if self.layer == 2 else self._dot_values(j, unknown))
        return [known[i][k] if i in known else next(computed) for i in indices]

    def _dot_values(self, j, indices):
        """The values of neuron ``j`` at the vertices ``indices``: dot products with the layer's inputs there, kept."""
        inputs = self.inputs
        if self.layer > 1:
            missing = [i for i in indices if i not in inputs]
            if missing:
                vertices = self.subdivision.vertices
                inputs.update(zip(missing, self.evaluate.inputs([vertices[i] for i in missing], self.layer)))
        # the dot products with the neuron's row, all at once in flint: a wide layer's rows are long
        if self.columns[j] is None:
            self.columns[j] = flint.fmpz_mat([[v] for v in self.rows[j]])
        return [int(v) for v in (flint.fmpz_mat([list(inputs[i]) for i in indices]) * self.columns[j]).entries()]

    def _second_layer_values(self, j, indices):
        """The values of the second layer's neuron ``j`` at the vertices ``indices``, through the first layer's signs there.

        At a vertex ``v`` where the first layer's positive neurons are ``P``,
        the value is ``R(P)·v`` with ``R(P) = c b_j e_0 + Σ_{i ∈ P} w_ji r_i``
        (``r_i`` the first layer's integer rows, ``c`` their scale, ``(b_j, w_j)``
        the neuron's integer row), exactly as :class:`IntegerNetwork` computes
        it. The signs come from the float screen where it certifies them and
        from exact dot products elsewhere; ``R(P)`` is summed from tables of the
        partial sums over blocks of :data:`_BLOCK` neurons. No first-layer
        value is computed where a float certifies its sign.
        """
        vertices = self.subdivision.vertices
        points = [vertices[i] for i in indices]
        first, scale = self.evaluate.rows[0], self.evaluate.layers[0][1]
        width = len(first)
        positive = np.zeros((len(points), -(-width // _BLOCK) * _BLOCK), dtype=np.int64)
        if self.screen is not None:
            z, e = self.screen(points, 1)
            positive[:, :width] = z > e
            undecided = np.nonzero(~((z > e) | (z < -e)))  # nan (an overflow) included
        else:
            undecided = np.nonzero(np.ones((len(points), width), dtype=bool))
        for r, i in zip(*(a.tolist() for a in undecided)):
            positive[r, i] = sum(a * x for a, x in zip(first[i], points[r])) > 0
        masks = (positive.reshape(len(points), -1, _BLOCK) @ (1 << np.arange(_BLOCK))).tolist()
        row = self.rows[j]
        tables = []  # tables[c][block][mask]: coordinate c of the sum of w_ji r_i over the block's neurons in mask
        for c in range(len(first[0])):
            blocks = []
            for start in range(0, width, _BLOCK):
                table = [scale * row[0] if c == 0 and start == 0 else 0]
                terms = [row[1 + i] * first[i][c] for i in range(start, min(start + _BLOCK, width))]
                for mask in range(1, 1 << len(terms)):
                    low = mask & -mask
                    table.append(table[mask ^ low] + terms[low.bit_length() - 1])
                blocks.append(table)
            tables.append(blocks)
        getitem = list.__getitem__
        return [sum(sum(map(getitem, blocks, mask)) * x for blocks, x in zip(tables, point)) for point, mask in zip(points, masks)]

    def _screen_new_vertices(self):
        """Float values and error bounds of all the layer's neurons at the vertices not screened yet."""
        vertices = self.subdivision.vertices
        n = len(vertices)
        if self.screened < n:
            z, e = self.screen(vertices[self.screened :], self.layer)
            if self.floats is None or n > len(self.floats):
                capacity = max(n, 2 * (0 if self.floats is None else len(self.floats)))
                floats, bounds = np.empty((capacity, z.shape[1])), np.empty((capacity, z.shape[1]))
                if self.floats is not None:
                    floats[: self.screened], bounds[: self.screened] = self.floats[: self.screened], self.bounds[: self.screened]
                self.floats, self.bounds = floats, bounds
            self.floats[self.screened : n], self.bounds[self.screened : n] = z, e
            self.screened = n
        return n

    def signs(self, j):
        """The exact sign of the layer's neuron ``j`` at every vertex, as an ``int8`` array."""
        if self.screen is None:
            return np.array([(v > 0) - (v < 0) for v in self.exact(j, range(len(self.subdivision.vertices)))], dtype=np.int8)
        n = self._screen_new_vertices()
        z, e = self.floats[:n, j], self.bounds[:n, j]
        with np.errstate(invalid="ignore"):  # nan (an overflow) casts to anything: it is undecided below
            signs = np.sign(z).astype(np.int8)
        undecided = np.flatnonzero(~(np.abs(z) > e)).tolist()  # not decided by the floats (nan included)
        if undecided:
            signs[undecided] = [(v > 0) - (v < 0) for v in self.exact(j, undecided)]
        return signs

    def vertex_signs(self, i):
        """The exact signs of all the layer's neurons at vertex ``i``, a tuple indexed as ``self[i]``.

        What the size guard reads at its sampled cells: certified from the
        floats where they clear their bounds, so that exact values are
        computed only at the vertices where some sign is undecided.
        """
        if self.screen is None:
            return tuple((v > 0) - (v < 0) for v in self[i])
        self._screen_new_vertices()
        z, e = self.floats[i], self.bounds[i]
        with np.errstate(invalid="ignore"):
            signs = np.sign(z).astype(np.int8).tolist()
        undecided = np.flatnonzero(~(np.abs(z) > e)).tolist()
        if undecided:
            exact = self[i]
            for j in undecided:
                v = exact[self.offset + j]
                signs[j] = (v > 0) - (v < 0)
        return self.pad + tuple(signs)
