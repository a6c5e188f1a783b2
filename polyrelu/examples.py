"""Small networks with known geometry, used in documentation, demos and tests.

Each constructor returns a :class:`~polyrelu.network.ReLUNetwork` whose
properties are stated in its docstring and checked by the test suite.
"""

from .network import ReLUNetwork

__all__ = ["bent_line_network"]


def bent_line_network():
    """``f(x) = relu(relu(x1) + relu(x2) - 1)``, architecture ``2→2→1→1``.

    The two first-layer neurons cut the plane along the axes; the second-layer
    neuron's zero set is a line that bends where it crosses them: the ray
    ``x1 = 1, x2 <= 0``, the segment ``x1 + x2 = 1`` and the ray
    ``x2 = 1, x1 <= 0`` (the worked example of the seed paper, DESIGN §3).

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
