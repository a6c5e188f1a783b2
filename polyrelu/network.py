"""ReLU networks with exact rational parameters: architecture and evaluation.

A network of architecture ``(n0, n1, ..., nL, m)`` has ``L`` hidden ReLU layers
and an affine output layer (docs/design.md §1). Parameters are exact
:class:`~fractions.Fraction` values: floats are converted exactly (every float
is a dyadic rational), so every later decision (signs, cells, weights) is made
over Q. Reading and writing networks (JSON, NumPy ``.npz``, PyTorch) lives
in :mod:`polyrelu.io`.

Hidden neurons are named ``(layer, index)`` with ``layer`` in ``1 .. L`` and
``index`` from 0; sign vectors and activation patterns list them layer by
layer, ``H = n1 + ... + nL`` entries in all. :func:`require_architecture`
(internal API) reads an architecture argument for the functions that take one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

import flint
import numpy as np

from .checks import describe, require_choice, require_int, require_sequence, require_str
from .errors import InvalidNumberError, ShapeError, UsageError
from .geometry.rational import (
    FractionMatrix,
    FractionVector,
    IntegerRow,
    MatrixLike,
    RationalLike,
    VectorLike,
    primitive_integer_row,
    to_fraction,
    to_fraction_matrix,
    to_fraction_vector,
)

__all__ = ["Architecture", "ReLUNetwork"]

# layers with at most this many entries are evaluated by a Python loop over ints, larger ones by flint
_PYTHON_PRODUCT_ENTRIES = 64


@dataclass(frozen=True)
class Architecture:
    """Layer widths ``(n0, n1, ..., nL, m)`` of a ReLU network.

    Parameters
    ----------
    widths : sequence of int
        Input width, the hidden widths, then the output width. At least two
        entries; every width at least 1.

    Raises
    ------
    ShapeError
        Fewer than two widths, or a width below 1 (an empty layer).

    Examples
    --------
    >>> arch = Architecture((2, 3, 3, 1))
    >>> arch.depth, arch.num_parameters, arch.num_hidden, arch.functional_dimension_bound
    (2, 25, 6, 19)
    >>> arch.width_hypothesis, Architecture((2, 1, 1)).width_hypothesis
    (True, False)

    Notes
    -----
    ``D = sum_l n_l (n_{l-1} + 1)`` parameters and ``H = n1 + ... + nL`` hidden
    neurons; the functional dimension never exceeds ``D - H`` (one scaling
    direction per hidden neuron), and Grillo and Montúfar prove it is attained on
    an open set when ``n0 >= 2`` and every hidden width is ``>= 2`` (docs/design.md §6).
    """

    widths: tuple[int, ...]

    def __post_init__(self):
        widths = tuple(require_sequence(self.widths, "widths", "Architecture"))
        if len(widths) < 2:
            raise ShapeError(f"widths {widths}: an architecture needs at least an input and an output width")
        for i, w in enumerate(widths):
            if isinstance(w, bool) or not isinstance(w, (int, np.integer)):
                raise ShapeError(f"widths {widths}: width {i} is {w!r}, not an integer")
            if w < 1:
                what = "input" if i == 0 else "output" if i == len(widths) - 1 else f"hidden layer {i}"
                raise ShapeError(f"widths {widths}: the {what} is empty (width {w})")
        object.__setattr__(self, "widths", tuple(int(w) for w in widths))

    def __str__(self):
        return "→".join(map(str, self.widths))

    @property
    def input_dim(self) -> int:
        """``n0``."""
        return self.widths[0]

    @property
    def output_dim(self) -> int:
        """``m``."""
        return self.widths[-1]

    @property
    def hidden_widths(self) -> tuple[int, ...]:
        """``(n1, ..., nL)``."""
        return self.widths[1:-1]

    @property
    def depth(self) -> int:
        """The number ``L`` of hidden layers."""
        return len(self.widths) - 2

    @property
    def num_parameters(self) -> int:
        """``D``: weights and biases of all layers."""
        return sum(n * (p + 1) for p, n in zip(self.widths, self.widths[1:]))

    @property
    def num_hidden(self) -> int:
        """``H``: the number of hidden neurons."""
        return sum(self.hidden_widths)

    @property
    def functional_dimension_bound(self) -> int:
        """``D - H``, the largest possible functional dimension."""
        return self.num_parameters - self.num_hidden

    @property
    def width_hypothesis(self) -> bool:
        """Whether ``n0 >= 2`` and every hidden width is ``>= 2`` (the hypothesis of Grillo and Montúfar's identifiability theorem)."""
        return self.input_dim >= 2 and all(n >= 2 for n in self.hidden_widths)

    def split_hidden(self, values: Sequence[Any]) -> tuple[tuple[Any, ...], ...]:
        """Split a length-``H`` sequence (a sign vector, say) into per-layer tuples.

        Examples
        --------
        >>> Architecture((2, 2, 1, 1)).split_hidden("+-0")
        (('+', '-'), ('0',))
        """
        values = tuple(values if isinstance(values, str) else require_sequence(values, "values", "Architecture.split_hidden"))
        self._check_hidden_length(values, "values")
        out, start = [], 0
        for n in self.hidden_widths:
            out.append(values[start : start + n])
            start += n
        return tuple(out)

    def _check_hidden_length(self, values, name):
        if len(values) != self.num_hidden:
            raise ShapeError(f"{name}: expected {self.num_hidden} entries, one per hidden neuron; got {len(values)}")

    def hidden_neurons(self) -> tuple[tuple[int, int], ...]:
        """All hidden neurons ``(layer, index)`` in sign-vector order."""
        return tuple((l, i) for l, n in enumerate(self.hidden_widths, start=1) for i in range(n))


def require_architecture(value: object, name: str, caller: str) -> Architecture:
    """``value`` as an :class:`Architecture` (given as one, or as a sequence of widths).

    The argument check of every function that takes an architecture; an
    internal API (not in ``__all__``), next to the class it builds.

    Raises
    ------
    InvalidArgumentError
        Not an Architecture nor a sequence.
    ShapeError
        Widths that are not positive integers, or fewer than two.

    Examples
    --------
    >>> require_architecture([2, 3, 1], "architecture", "generic_network").widths
    (2, 3, 1)
    >>> require_architecture((2, 0, 1), "widths", "seeded_gaussian_network")
    Traceback (most recent call last):
    ...
    polyrelu.errors.ShapeError: seeded_gaussian_network: widths (2, 0, 1): the hidden layer 1 is empty (width 0)
    """
    if isinstance(value, Architecture):
        return value
    widths = require_sequence(value, name, caller)
    try:
        return Architecture(tuple(widths))
    except ShapeError as exc:  # Architecture names the widths; name the argument they came from too
        raise ShapeError(f"{caller}: {exc}" if name == "widths" else f"{caller}: {name}: {exc}") from None


def _split_homogeneous(Z):
    """``(G, g)`` as tuples of Fractions from a homogeneous flint matrix (its first row is the constant)."""
    width = Z.ncols()
    entries = [Fraction(int(q.p), int(q.q)) for q in Z.entries()]
    rows = [entries[i * width : (i + 1) * width] for i in range(1, Z.nrows())]
    return tuple(tuple(r[1:]) for r in rows), tuple(r[0] for r in rows)


def _pattern(pattern, architecture, caller):
    """Active flags per hidden layer from a sign vector, bools or a ``"+-0"`` string."""
    if isinstance(pattern, str):
        if any(ch not in "+-0" for ch in pattern):
            raise ShapeError(f"pattern {pattern!r}: use only the characters '+', '-' and '0'")
        flags = [ch == "+" for ch in pattern]
    else:
        flags = [
            v if isinstance(v, (bool, np.bool_)) else (v if type(v) is int else to_fraction(v, f"pattern[{i}]")) > 0
            for i, v in enumerate(require_sequence(pattern, "pattern", caller))
        ]
    architecture._check_hidden_length(flags, "pattern")
    return architecture.split_hidden(flags)


class ReLUNetwork:
    """A fully connected ReLU network with exact rational parameters.

    Parameters
    ----------
    weights : sequence of matrices
        ``W1, ..., W{L+1}``; ``Wl`` has ``nl`` rows and ``n(l-1)`` columns (the
        PyTorch ``Linear.weight`` layout). Entries: ints, fractions, decimal
        or ``"p/q"`` strings, or floats (converted exactly).
    biases : sequence of vectors
        ``b1, ..., b{L+1}``; ``bl`` has ``nl`` entries.
    name : str, optional
        A label for reports.

    Raises
    ------
    ShapeError
        Mismatched layer sizes, empty layers, a different number of weights and biases.
    InvalidNumberError
        NaN, infinite or non-numeric entries; the message names the layer and entry.

    Examples
    --------
    ``f(x) = relu(relu(x1) + relu(x2) - 1)``:

    >>> net = ReLUNetwork([[[1, 0], [0, 1]], [[1, 1]], [[1]]], [[0, 0], [-1], [0]])
    >>> str(net.architecture), net.architecture.num_parameters
    ('2→2→1→1', 11)
    >>> net([2, "1/2"]), net.signs([2, "-1/2"])
    ((Fraction(3, 2),), (1, -1, 1))
    >>> net.affine_map("+-+")     # f(x) = x1 - 1 where only x1 is active
    (((Fraction(1, 1), Fraction(0, 1)),), (Fraction(-1, 1),))
    """

    def __init__(
        self,
        weights: Sequence[MatrixLike] | np.ndarray,
        biases: Sequence[VectorLike] | np.ndarray,
        *,
        name: str | None = None,
    ) -> None:
        weights = [weights] if isinstance(weights, np.ndarray) else require_sequence(weights, "weights", "ReLUNetwork")
        biases = [biases] if isinstance(biases, np.ndarray) else require_sequence(biases, "biases", "ReLUNetwork")
        require_str(name, "name", "ReLUNetwork", optional=True)
        if not weights:
            raise ShapeError("weights: a network needs at least one (output) layer, got no weight matrix")
        if len(weights) != len(biases):
            raise ShapeError(
                f"{len(weights)} weight matrices but {len(biases)} bias vectors; weights and biases need one entry per layer"
            )
        Ws, bs = [], []
        prev = None
        for l, (W, b) in enumerate(zip(weights, biases), start=1):
            W = to_fraction_matrix(W, f"layer {l} weights")
            if not W:
                raise ShapeError(f"layer {l} is empty: its weight matrix has no rows")
            cols = len(W[0])
            if cols == 0:
                raise ShapeError(f"layer {l}: the weight matrix has no columns" + (" (empty input)" if l == 1 else ""))
            if prev is not None and cols != prev:
                raise ShapeError(f"layer {l}: weights have {cols} columns but layer {l - 1} has {prev} neurons")
            b = to_fraction_vector(b, f"layer {l} biases")
            if len(b) != len(W):
                raise ShapeError(f"layer {l}: {len(W)} weight rows but {len(b)} biases")
            Ws.append(W)
            bs.append(b)
            prev = len(W)
        self._weights = tuple(Ws)
        self._biases = tuple(bs)
        self.architecture = Architecture((len(Ws[0][0]),) + tuple(len(W) for W in Ws))
        self.name = name

    # -- construction --------------------------------------------------------------------
    @classmethod
    def from_layers(cls, layers: Sequence[tuple[MatrixLike, VectorLike]], *, name: str | None = None) -> ReLUNetwork:
        """Build from a sequence of ``(W, b)`` pairs."""
        layers = require_sequence(layers, "layers", "ReLUNetwork.from_layers")
        for l, layer in enumerate(layers):
            if isinstance(layer, (str, bytes)) or not isinstance(layer, (tuple, list)) or len(layer) != 2:
                raise ShapeError(f"ReLUNetwork.from_layers: layers[{l}] must be a pair (W, b), got {describe(layer)}")
        try:
            return cls([W for W, _ in layers], [b for _, b in layers], name=name)
        except (ShapeError, InvalidNumberError) as exc:  # named by layer: say where the layers came from
            raise type(exc)(f"ReLUNetwork.from_layers: layers: {exc}") from None

    @classmethod
    def from_parameters(
        cls, architecture: Architecture | Sequence[int], parameters: VectorLike, *, name: str | None = None
    ) -> ReLUNetwork:
        """Build from a flat parameter vector (the order of :meth:`parameters`).

        Examples
        --------
        >>> net = ReLUNetwork.random((2, 2, 1), seed=1)
        >>> ReLUNetwork.from_parameters(net.architecture, net.parameters()) == net
        True
        """
        arch = require_architecture(architecture, "architecture", "ReLUNetwork.from_parameters")
        theta = to_fraction_vector(parameters, "parameters", arch.num_parameters)
        Ws, bs, pos = [], [], 0
        for p, n in zip(arch.widths, arch.widths[1:]):
            Ws.append([theta[pos + i * p : pos + (i + 1) * p] for i in range(n)])
            pos += n * p
            bs.append(theta[pos : pos + n])
            pos += n
        return cls(Ws, bs, name=name)

    @classmethod
    def random(
        cls,
        architecture: Architecture | Sequence[int],
        seed: int = 0,
        kind: Literal["integer", "gaussian"] = "integer",
        bound: int = 3,
    ) -> ReLUNetwork:
        """A random network, reproducible from ``seed``.

        Parameters
        ----------
        architecture : Architecture or sequence of int
        seed : int
            Seed of :func:`numpy.random.default_rng`.
        kind : {"integer", "gaussian"}
            ``"integer"``: entries uniform in ``-bound .. bound``; ``"gaussian"``:
            standard normal float64 draws, converted exactly.
        bound : int
            Range of the integer entries.

        Examples
        --------
        >>> net = ReLUNetwork.random((2, 3, 1), seed=0)
        >>> net == ReLUNetwork.random((2, 3, 1), seed=0), {abs(v) <= 3 for v in net.parameters()}
        (True, {True})
        >>> ReLUNetwork.random((2, 3, 1), kind="gaussian").parameters()[0]
        Fraction(4529908614923329, 36028797018963968)
        """
        arch = require_architecture(architecture, "architecture", "ReLUNetwork.random")
        seed = require_int(seed, "seed", "ReLUNetwork.random", minimum=0)
        require_choice(kind, ("integer", "gaussian"), "kind", "ReLUNetwork.random")
        bound = require_int(bound, "bound", "ReLUNetwork.random", minimum=1)
        rng = np.random.default_rng(seed)
        if kind == "integer":
            theta = rng.integers(-bound, bound, size=arch.num_parameters, endpoint=True).tolist()
        else:
            theta = rng.standard_normal(arch.num_parameters).tolist()
        return cls.from_parameters(arch, theta, name=f"random {kind} {arch} seed={seed}")

    # -- parameters --------------------------------------------------------------------
    @property
    def weights(self) -> tuple[FractionMatrix, ...]:
        """``(W1, ..., W{L+1})`` as tuples of rows of fractions."""
        return self._weights

    @property
    def biases(self) -> tuple[FractionVector, ...]:
        """``(b1, ..., b{L+1})`` as tuples of fractions."""
        return self._biases

    @property
    def layers(self) -> tuple[tuple[FractionMatrix, FractionVector], ...]:
        """``((W1, b1), ..., (W{L+1}, b{L+1}))``."""
        return tuple(zip(self._weights, self._biases))

    def parameters(self) -> FractionVector:
        """The flat parameter vector ``θ``: ``W1`` row by row, ``b1``, ``W2``, ``b2``, ..."""
        return tuple(v for W, b in self.layers for v in (*(x for row in W for x in row), *b))

    def __eq__(self, other):
        if not isinstance(other, ReLUNetwork):
            return NotImplemented
        return self._weights == other._weights and self._biases == other._biases

    def __hash__(self):
        return hash((self._weights, self._biases))

    def __getstate__(self):
        # for worker processes (polyrelu.parallel): the flint caches and the products do not pickle, and are rebuilt on demand
        return {k: v for k, v in vars(self).items() if k not in ("_int_layers", "_hom_layers", "_products")}

    def __repr__(self):
        label = f" {self.name!r}" if self.name else ""
        return f"<ReLUNetwork{label} {self.architecture}>"

    # -- evaluation ----------------------------------------------------------------------
    def _input(self, x):
        return to_fraction_vector(x, "x", self.architecture.input_dim)

    def _forward(self, x):
        """Hidden pre-activations and the output as integer vectors over a common scale, per layer.

        Returns ``(hidden, out)``: ``hidden[l]`` is ``(values, scale)`` with
        ``z_{l+1}(x) = values / scale`` (Python ints), and ``out`` the same for
        ``f(x)``. The point is scaled to integers once and every layer
        multiplies by :meth:`integer_layers`' integer matrix, with no gcd per
        operation as rational arithmetic needs, and one division at the end.
        The values are the exact rationals.
        """
        x = self._input(x)
        scale = math.lcm(*(a.denominator for a in x))
        v = [scale] + [a.numerator * (scale // a.denominator) for a in x]
        hidden = []
        *inner, last = self._integer_products()
        for product, c in inner:
            values = product(v)
            scale *= c
            hidden.append((values, scale))
            v = [scale] + [q if q > 0 else 0 for q in values]
        product, c = last
        return hidden, (product(v), scale * c)

    def _integer_products(self):
        """:meth:`integer_layers` as functions ``v ↦ M_l v`` on lists of ints, with their scales (cached).

        Below about 64 entries a Python loop over ints beats building flint
        matrices for one product (measured: 23 µs against 24 µs at 8 × 9,
        46 against 33 at 12 × 13); larger layers use flint.
        """
        if not hasattr(self, "_products"):
            products = []
            for M, c in self.integer_layers():
                if M.nrows() * M.ncols() <= _PYTHON_PRODUCT_ENTRIES:
                    rows = [[int(M[i, j]) for j in range(M.ncols())] for i in range(M.nrows())]
                    products.append((lambda v, rows=rows: [sum(map(int.__mul__, row, v)) for row in rows], c))
                else:
                    products.append((lambda v, M=M: [int(q) for q in (M * flint.fmpz_mat(len(v), 1, v)).entries()], c))
            self._products = tuple(products)
        return self._products

    def pre_activations(self, x: VectorLike) -> tuple[FractionVector, ...]:
        """The exact pre-activations ``z_l(x)`` of every hidden layer, as a tuple of tuples."""
        hidden, _ = self._forward(x)
        return tuple(tuple(Fraction(q, scale) for q in z) for z, scale in hidden)

    def __call__(self, x: VectorLike) -> FractionVector:
        """``f(x)`` exactly, as a tuple of ``m`` fractions; float inputs are converted exactly."""
        _, (out, scale) = self._forward(x)
        return tuple(Fraction(q, scale) for q in out)

    def signs(self, x: VectorLike) -> tuple[int, ...]:
        """The sign vector ``s(x)`` in ``{-1, 0, 1}^H`` (docs/design.md §2)."""
        return tuple((q > 0) - (q < 0) for z, _ in self._forward(x)[0] for q in z)

    def _pattern_maps(self, pattern, caller):
        """Homogeneous pre-activation maps of every hidden layer and of the last hidden output (flint matrices).

        Composed in homogeneous coordinates with flint's rational matrices: the
        map of a layer's output is a ``(1 + n) × (1 + n0)`` matrix whose first
        row is the constant 1 and whose other rows are ``(g_i, G_i)``.
        """
        flags = _pattern(pattern, self.architecture, caller)
        n0 = self.architecture.input_dim
        A = flint.fmpq_mat(n0 + 1, n0 + 1, [int(i == j) for i in range(n0 + 1) for j in range(n0 + 1)])
        maps = []
        for L, active in zip(self._homogeneous_layers()[:-1], flags):
            Z = L * A
            maps.append(Z)
            entries = Z.entries()
            width = n0 + 1
            kept = list(entries[:width])
            for i, on in enumerate(active, start=1):
                kept.extend(entries[i * width : (i + 1) * width] if on else [0] * width)
            A = flint.fmpq_mat(Z.nrows(), width, kept)
        return tuple(maps), A

    def pre_activation_maps(self, pattern: str | Sequence[RationalLike | np.bool_]) -> tuple[tuple[FractionMatrix, FractionVector], ...]:
        """Affine formulas of every hidden pre-activation on an activation pattern.

        Parameters
        ----------
        pattern : str or sequence
            One entry per hidden neuron: a sign (``+``/positive = active,
            ``-``/``0``/non-positive = inactive) or a bool.

        Returns
        -------
        tuple
            Per hidden layer, a pair ``(G, g)`` with ``z_l(x) = G x + g`` on the
            closure of the pattern's cell (only earlier layers' flags matter).
        """
        return tuple(_split_homogeneous(Z) for Z in self._pattern_maps(pattern, "ReLUNetwork.pre_activation_maps")[0])

    def affine_map(self, pattern: str | Sequence[RationalLike | np.bool_]) -> tuple[FractionMatrix, FractionVector]:
        """The affine map ``f(x) = A x + c`` on the cell of an activation pattern.

        Returns
        -------
        A : tuple of tuple of Fraction
            ``m × n0``.
        c : tuple of Fraction
        """
        return _split_homogeneous(self._homogeneous_layers()[-1] * self._pattern_maps(pattern, "ReLUNetwork.affine_map")[1])

    def pre_activation_rows(self, pattern: str | Sequence[RationalLike | np.bool_]) -> tuple[IntegerRow, ...]:
        """Primitive integer rows ``(g, G_1, ..., G_n0)`` of every hidden pre-activation on a pattern.

        Row ``k`` is a positive multiple of ``z_k(x) = g + G·x`` on the closure of
        the pattern's cell (see :meth:`pre_activation_maps`), computed in integer
        arithmetic, so signs and zero sets are exact and cheap to evaluate.

        Examples
        --------
        >>> net = ReLUNetwork([[[1, 0], [0, 1]], [["1/2", "1/2"]], [[1]]], [[0, 0], [-1], [0]])
        >>> net.pre_activation_rows("+-+")
        ((0, 1, 0), (0, 0, 1), (-2, 1, 0))
        >>> deep = ReLUNetwork([[["1/3"]], [["1/5"]], [[7]], [[1]]], [[1], ["1/2"], [-1], [0]])
        >>> deep.pre_activation_rows("+++")      # x/3 + 1, x/15 + 7/10, 7x/15 + 39/10
        ((3, 1), (21, 2), (117, 14))
        """
        flags = [f for layer in _pattern(pattern, self.architecture, "ReLUNetwork.pre_activation_rows") for f in layer]
        n0 = self.architecture.input_dim
        A = flint.fmpz_mat(n0 + 1, n0 + 1, [int(i == j) for i in range(n0 + 1) for j in range(n0 + 1)])
        rows, k = [], 0
        for Wb, c in self.integer_layers()[:-1]:
            Z = Wb * A
            n = Z.nrows()
            entries = [int(v) for v in Z.entries()]
            width = n0 + 1
            kept = [int(A[0, j]) * c for j in range(width)]  # the constant 1, at the scale of this layer's rows
            for i in range(n):
                row = entries[i * width : (i + 1) * width]
                rows.append(primitive_integer_row(row))
                kept.extend(row if flags[k] else [0] * width)
                k += 1
            A = flint.fmpz_mat(n + 1, width, kept)
        return tuple(rows)

    def without_neuron(self, layer: int, index: int) -> ReLUNetwork:
        """The network with hidden neuron ``(layer, index)`` deleted: its row and its outgoing column dropped.

        The function changes unless the neuron never mattered (never active,
        no outgoing weight, or its hypersurface also another neuron's and its
        output taken up there); check with
        :func:`~polyrelu.symmetry.same_function`.

        Raises
        ------
        InvalidArgumentError
            ``layer`` or ``index`` not an integer.
        UsageError
            No such hidden neuron, or it is the only one of its layer.

        Examples
        --------
        >>> net = ReLUNetwork([[[1, 0], [0, 1], [0, 0]], [[1, 1, 5]]], [[0, 0, -1], [0]])
        >>> net.without_neuron(1, 2).architecture.widths
        (2, 2, 1)
        """
        caller = "ReLUNetwork.without_neuron"
        widths = self.architecture.hidden_widths
        layer = require_int(layer, "layer", caller, minimum=1, maximum=len(widths))
        index = require_int(index, "index", caller, minimum=0, maximum=widths[layer - 1] - 1)
        if widths[layer - 1] < 2:
            raise UsageError(f"{caller}: neuron ({layer}, {index}) is the only one of hidden layer {layer}; a layer cannot be emptied")
        Ws = [list(map(list, W)) for W in self.weights]
        bs = [list(b) for b in self.biases]
        del Ws[layer - 1][index]
        del bs[layer - 1][index]
        for row in Ws[layer]:
            del row[index]
        return ReLUNetwork(Ws, bs, name=f"{self.name or 'network'} without neuron ({layer}, {index})")

    def _homogeneous_layers(self):
        """Every layer as a flint rational matrix ``[[1, 0], [b, W]]`` (cached)."""
        if not hasattr(self, "_hom_layers"):
            layers = []
            for W, b in self.layers:
                p = len(W[0])
                rows = [[1] + [0] * p] + [[bi, *row] for row, bi in zip(W, b)]
                layers.append(flint.fmpq_mat([[flint.fmpq(v.numerator, v.denominator) if isinstance(v, Fraction) else v for v in r] for r in rows]))
            self._hom_layers = layers
        return self._hom_layers

    def integer_layers(self) -> tuple[tuple[flint.fmpz_mat, int], ...]:
        """Every layer, hidden and output, scaled to an integer matrix (internal API, cached).

        For exact evaluation in integers (cell construction, Jacobians): each
        layer's affine map is stored once as an integer matrix and a scale.

        Returns
        -------
        tuple of (flint.fmpz_mat, int)
            One pair ``(M_l, c_l)`` per layer ``l = 1, ..., L+1``: ``c_l`` is the
            least positive integer that clears the denominators of ``W_l`` and
            ``b_l``, and ``M_l = c_l [b_l | W_l]`` has one row per neuron of the
            layer (its bias first, then its incoming weights).

        Examples
        --------
        >>> ReLUNetwork([[["1/2", 1]], [[3]]], [["1/3"], [0]]).integer_layers()
        (([2, 3, 6], 6), ([0, 3], 1))
        """
        if not hasattr(self, "_int_layers"):
            layers = []
            for W, b in self.layers:
                c = math.lcm(*(v.denominator for row in W for v in row), *(v.denominator for v in b))
                layers.append((flint.fmpz_mat([[int(bi * c), *(int(v * c) for v in row)] for row, bi in zip(W, b)]), c))
            self._int_layers = tuple(layers)
        return self._int_layers
