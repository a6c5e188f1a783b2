"""Exact affine maps of every sign pattern of a network, in integers (internal).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from itertools import compress, repeat
from operator import lt

import flint

from ..geometry.rational import (
    IntegerRow,
)
from ..network import ReLUNetwork


class PatternMaps:
    """Exact affine maps of a network on activation patterns, in integers (internal API).

    For the computations that need them on every cell of a complex (tropical
    weights, the JSON writer). Through the network's integer layers
    ``c_l [b_l | W_l]`` (:meth:`ReLUNetwork.integer_layers`) every map comes
    out multiplied by a positive constant, and the maps of the output by the
    same one for every pattern, :attr:`scale`. A hidden layer's rows depend
    on the earlier layers' signs only: they are computed once per such prefix
    (python-flint matrices, kept), and a cell's output map is combined from
    its last hidden layer's rows. One neuron's gradient, and the output's
    derivative by its activation (:meth:`output_derivative`), are sums of
    ints over the active neurons of the layer before or after it.

    Attributes
    ----------
    scale : int
        The product of the layers' ``c_l``: the output map on a pattern is
        ``(A, c) = (A_num, c_num) / scale``.
    """

    def __init__(self, net: ReLUNetwork) -> None:
        layers = net.integer_layers()
        self.hidden = layers[:-1]
        output, c_out = layers[-1]
        self.output = [tuple(int(v) for v in row) for row in output.tolist()]
        self.widths = net.architecture.hidden_widths
        self.starts = [sum(self.widths[:l]) for l in range(len(self.widths) + 1)]  # of each layer's signs
        self.scale = math.prod(c for _, c in layers)
        self.constant = self.scale // c_out  # the constant 1 at the scale of the last hidden layer's outputs
        n = self.n = net.architecture.input_dim + 1
        self._maps: dict[tuple[bool, ...], flint.fmpz_mat] = {(): flint.fmpz_mat(n, n, [int(i == j) for i in range(n) for j in range(n)])}
        self._rows: dict[tuple[bool, ...], list[list[flint.fmpz]]] = {}  # a layer's rows by the earlier layers' flags
        self._by_signs: dict[tuple[int, ...], list[list[flint.fmpz]]] = {}  # the same, by the earlier layers' signs
        self._recent: list[tuple[Sequence[int], int, list[list[flint.fmpz]]]] = []  # the last two (kept: identity is safe)
        # the layers' rows (bias first) as ints, for the sums of one neuron's gradient or derivative at a time
        self._int_rows = [[tuple([int(v) for v in row]) for row in Wb.tolist()] for Wb, _ in layers]
        self._gradients: dict[tuple[int, ...], list[IntegerRow]] = {}  # a layer's gradients by the earlier signs
        self._derivatives: dict[tuple[int, ...], list[IntegerRow]] = {}  # a layer's derivatives by the later signs
        # where the other factor is fixed (layer 1's gradients, the output's weights): the products, by neuron
        self._gradient_products: dict[int, list[tuple[int, ...]]] = {}  # of layer 2
        self._derivative_products: dict[int, list[tuple[int, ...]]] = {}  # of the last layer but one

    def _map(self, flags: tuple[bool, ...], layer: int) -> flint.fmpz_mat:
        """The homogeneous map of the output of layers 1 to ``layer``, whose flags these are."""
        M = self._maps.get(flags)
        if M is None:
            start = self.starts[layer - 1]
            previous = self._map(flags[:start], layer - 1)
            Wb, c = self.hidden[layer - 1]
            entries = (Wb * previous).entries()
            n = previous.ncols()
            zero = flint.fmpz(0)
            kept = [previous[0, j] * c for j in range(n)]  # the constant 1, at the scale of this layer's rows
            for i, on in enumerate(flags[start:]):
                kept.extend(entries[i * n : (i + 1) * n] if on else [zero] * n)
            M = self._maps[flags] = flint.fmpz_mat(1 + len(flags) - start, n, kept)
        return M

    def _layer(self, signs: Sequence[int], layer: int) -> list[list[flint.fmpz]]:
        """The rows of :meth:`layer_rows`, as flint integers (converting them to ``int`` costs more than computing them)."""
        for seen, at, remembered in self._recent:  # the callers ask about one cell several times in a row
            if seen is signs and at == layer:
                return remembered
        prefix = tuple(signs[: self.starts[layer - 1]])  # the signs themselves: a cheaper key than the flags
        rows = self._by_signs.get(prefix)
        if rows is None:
            flags = tuple(map((0).__lt__, prefix))
            rows = self._rows.get(flags)
            if rows is None:
                rows = self._rows[flags] = (self.hidden[layer - 1][0] * self._map(flags, layer - 1)).tolist()
            self._by_signs[prefix] = rows
        self._recent = [(signs, layer, rows), self._recent[0]] if self._recent else [(signs, layer, rows)]
        return rows

    def layer_rows(self, signs: Sequence[int], layer: int) -> list[IntegerRow]:
        """Rows ``(g, G_1, ..., G_n0)`` of the pre-activations of hidden layer ``layer`` (from 1) on a sign vector.

        Row ``k`` is a positive multiple of ``z_k(x) = g + G·x`` on the closure
        of the cell of ``signs`` (only the earlier layers' signs matter).
        """
        return [tuple([int(v) for v in row]) for row in self._layer(signs, layer)]

    def gradient(self, signs: Sequence[int], layer: int, index: int) -> IntegerRow:
        """``G`` of row ``index`` of :meth:`layer_rows`: a positive multiple of that neuron's gradient there.

        The multiple is the product of the ``c`` of layers 1 to ``layer``: ``G``
        is the neuron's row of the integer layer times the earlier layers'
        gradients of its active inputs, a sum of ints for this neuron alone.
        """
        row = self._int_rows[layer - 1][index]
        if layer == 1:
            return row[1:]
        if layer == 2:  # sums of fixed products over the active neurons of layer 1, in C
            products = self._gradient_products.get(index)
            if products is None:
                products = self._gradient_products[index] = [
                    tuple([w * r[c] for w, r in zip(row[1:], self._int_rows[0])]) for c in range(1, self.n)
                ]
            active = signs[: self.starts[1]]
            return tuple([sum(compress(p, map(lt, repeat(0), active))) for p in products])
        earlier = self._layer_gradients(signs, layer - 1)
        start = self.starts[layer - 2]
        terms = [(row[j + 1], earlier[j]) for j, s in enumerate(signs[start : self.starts[layer - 1]]) if s > 0]
        return tuple([sum([w * g[c] for w, g in terms]) for c in range(self.n - 1)])

    def _layer_gradients(self, signs: Sequence[int], layer: int) -> list[IntegerRow]:
        """:meth:`gradient` of every neuron of a layer, kept by the earlier layers' signs."""
        if layer == 1:
            return [row[1:] for row in self._int_rows[0]]
        prefix = tuple(signs[: self.starts[layer - 1]])
        gradients = self._gradients.get(prefix)
        if gradients is None:
            gradients = self._gradients[prefix] = [self.gradient(signs, layer, i) for i in range(self.widths[layer - 1])]
        return gradients

    def output_derivative(self, signs: Sequence[int], layer: int, index: int) -> IntegerRow:
        """``d``: how the output's Jacobian changes when one neuron turns on, with :meth:`gradient`.

        For two sign vectors that differ at neuron ``(layer, index)`` only,
        active in ``after`` and not in ``before``,
        ``A_num(after) - A_num(before) = d ⊗ G``
        (:meth:`affine_map`, ``G`` the neuron's :meth:`gradient`): ``d`` is
        the derivative of the output by the neuron's activation through the
        later layers with their signs, times the product of their ``c``. It
        depends on the later layers' signs only (either vector's).
        """
        last = len(self.widths)
        if layer == last:
            return tuple([w[index + 1] for w in self.output])
        if layer == last - 1:  # sums of fixed products over the active neurons of the last layer, in C
            products = self._derivative_products.get(index)
            if products is None:
                products = self._derivative_products[index] = [
                    tuple([r[index + 1] * w[i + 1] for i, r in enumerate(self._int_rows[layer])]) for w in self.output
                ]
            active = signs[self.starts[layer] :]
            return tuple([sum(compress(p, map(lt, repeat(0), active))) for p in products])
        later = self._layer_derivatives(signs, layer + 1)
        rows = self._int_rows[layer]
        terms = [(rows[i][index + 1], later[i]) for i, s in enumerate(signs[self.starts[layer] : self.starts[layer + 1]]) if s > 0]
        return tuple([sum([w * d[o] for w, d in terms]) for o in range(len(self.output))])

    def _layer_derivatives(self, signs: Sequence[int], layer: int) -> list[IntegerRow]:
        """:meth:`output_derivative` of every neuron of a layer, kept by the later layers' signs."""
        suffix = tuple(signs[self.starts[layer] :])
        derivatives = self._derivatives.get(suffix)
        if derivatives is None:
            derivatives = self._derivatives[suffix] = [
                self.output_derivative(signs, layer, i) for i in range(self.widths[layer - 1])
            ]
        return derivatives

    def affine_map(self, signs: Sequence[int]) -> tuple[tuple[IntegerRow, ...], IntegerRow]:
        """``(A_num, c_num)``: ``scale`` times the output's affine map ``f(x) = A x + c`` on a sign vector."""
        if not self.widths:  # an affine network
            return tuple(row[1:] for row in self.output), tuple(row[0] for row in self.output)
        last = len(self.widths)
        rows = self._layer(signs, last)
        active = [i for i, s in enumerate(signs[self.starts[last - 1] :]) if s > 0]
        A, c = [], []
        for w in self.output:  # the last layer's active outputs, combined by the output layer
            combined = [int(sum([w[i + 1] * rows[i][j] for i in active])) for j in range(self.n)]
            c.append(w[0] * self.constant + combined[0])
            A.append(tuple(combined[1:]))
        return tuple(A), tuple(c)

    def jacobian_jump(self, before: Sequence[int], after: Sequence[int], changed: Sequence[int]) -> tuple[IntegerRow, ...] | None:
        """``A_num(after) - A_num(before)`` when the two sign vectors differ in the last hidden layer only.

        ``changed`` holds (at least) the neurons whose activity differs, as
        indices into the sign vectors. The jump is the changed neurons' rows
        times their output weights, signed: no cell's whole map is needed.
        None when the earlier layers' signs differ (then compare whole maps).
        """
        start = self.starts[-2] if self.widths else 0
        if not self.widths or before[:start] != after[:start]:
            return None
        recent = any(seen is after for seen, _, _ in self._recent)
        rows = self._layer(after if recent else before, len(self.widths))  # the same rows: their prefix is one
        terms = [(k - start, 1 if after[k] > 0 else -1) for k in changed if (before[k] > 0) != (after[k] > 0)]
        return tuple(
            tuple([int(sum([s * w[i + 1] * rows[i][j] for i, s in terms])) for j in range(1, self.n)]) for w in self.output
        )


def layer_rows(net, layer, prefix):
    """Integer rows ``(g, G)`` of the layer's pre-activations on cells with the given earlier signs."""
    rows = net.pre_activation_rows(prefix + (0,) * (net.architecture.num_hidden - len(prefix)))
    start = sum(net.architecture.hidden_widths[: layer - 1])
    return rows[start : start + net.architecture.hidden_widths[layer - 1]]
