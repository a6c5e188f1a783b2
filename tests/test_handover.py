"""Cells handed to Sage, pycddlib and polymake are the same polyhedra, exactly, and come back unchanged.

For every cell of small canonical complexes (2 and 3 inputs; on all of ``R^n0``, with unbounded cells and,
for a first layer narrower than the input, lines; and on a box, all bounded) and for degenerate polyhedra
(empty, a point given by pairs of opposite inequalities, all of ``Q^3``, a ray in ``Q^3``, huge entries),
the converted object is read back independently:

- Sage: its dimension, its vertices, rays and lines as Sage computes them (exact rationals), and its
  H-representation, each turned back into a polyrelu polyhedron, which must equal the original (``==``
  compares the canonical minimal H-representations);
- cdd: the matrix's rows are exact fractions, irredundant (``matrix_canonicalize`` drops none), give the
  right dimension (counted by cdd directly in ``tests/reference.py``) and generators that span the same
  polyhedron;
- polymake: the text parses back to the same rows.
"""

import ast
import re
import sys
from fractions import Fraction

import pytest
from reference import polyhedron_dimension

from polyrelu import (
    BackendUnavailableError,
    Box,
    Polyhedron,
    ReLUNetwork,
    canonical_complex,
)
from polyrelu.examples import generic_network
from polyrelu.geometry.rational import primitive_integer_row

sage = pytest.importorskip("sage.all__sagemath_polyhedra")
cdd = pytest.importorskip("cdd")
cdd_gmp = pytest.importorskip("cdd.gmp")


def complexes():
    """Small complexes whose cells cover bounded, unbounded and line-containing cells in 2 and 3 inputs."""
    tutorial = ReLUNetwork(
        [[["3/2", "3/2"], ["-3/2", "1/2"], [1, "1/2"]], [[1, "3/2", "3/2"], ["-1/2", -1, 1]], [[2, "-3/2"]]],
        [["3/2", "3/2", "1/2"], [-1, "3/2"], [0]],
    )
    narrow = ReLUNetwork([[[1, 1, 0], [0, 1, -1]], [[1, 1], [1, -2]], [[1, 1]]], [[0, 1], [-1, 0], [0]])
    return {
        "2 inputs on R^2": canonical_complex(tutorial),
        "2 inputs on a box": canonical_complex(tutorial, Box(-2, 2)),
        "3 inputs on R^3, lines": canonical_complex(narrow),
        "3 inputs on a box": canonical_complex(generic_network((3, 3, 1), seed=1), Box(-1, 1)),
    }


COMPLEXES = complexes()
CELLS = [(name, cell) for name, K in COMPLEXES.items() for cell in K.cells()]

DEGENERATE = {
    "empty": Polyhedron(ieqs=[(-1, 1, 0), (0, -1, 0)]),  # x >= 1 and x <= 0
    "a point from opposite inequalities": Polyhedron(
        ieqs=[(1, -1, 0, 0), (-1, 1, 0, 0), (2, 0, -1, 0), (-2, 0, 1, 0), (0, 0, 0, 1), (0, 0, 0, -1)]
    ),
    "all of Q^3": Polyhedron(ieqs=[], ambient_dim=3),
    "a ray in Q^3": Polyhedron(ieqs=[(0, 1, 0, 0)], eqns=[(0, 0, 1, 0), (0, 0, 0, 1)]),
    "a plane in Q^3": Polyhedron(eqns=[(1, 1, 2, 3)]),
    "a segment with huge entries": Polyhedron(vertices=[(Fraction(2**100, 3), 0), (0, Fraction(-1, 3**60))]),
    "a redundant triangle": Polyhedron(
        ieqs=[(0, 1, 0), (0, 0, 1), (1, -1, -1), (5, -1, -1), ("1/2", 1, 1), (0, 2, 0)]
    ),
}


def test_the_cells_cover_the_intended_kinds():
    kinds = {(c.polyhedron.is_bounded(), bool(c.polyhedron.lines()), c.polyhedron.ambient_dim) for _, c in CELLS}
    assert {(True, False, 2), (False, False, 2), (True, False, 3), (False, True, 3)} <= kinds
    assert {c.dimension for _, c in CELLS} == {0, 1, 2, 3}


def rational(x):
    """A Sage rational (or integer) as a Fraction, through its exact text."""
    return Fraction(str(x))


def from_sage_generators(S, d):
    return Polyhedron(
        vertices=[[rational(v) for v in p] for p in S.vertices_list()],
        rays=[[rational(v) for v in r] for r in S.rays_list()],
        lines=[[rational(v) for v in r] for r in S.lines_list()],
        ambient_dim=d,
    )


def check_sage(P):
    S = P.to_sage()
    d = P.ambient_dim
    assert S.ambient_dim() == d and str(S.base_ring()) == "Rational Field"
    assert S.dim() == P.dimension()
    if P.is_empty():
        assert S.is_empty()
        return
    vertices, rays, lines = P.vertices_rays_lines()
    assert len(S.lines_list()) == len(lines) and len(S.rays_list()) == len(rays)
    if not lines:  # with lines the vertices depend on the choice of a section; compare the polyhedra instead
        assert {tuple(rational(v) for v in p) for p in S.vertices_list()} == set(vertices)
        assert {primitive_integer_row([rational(v) for v in r]) for r in S.rays_list()} == set(rays)
    assert from_sage_generators(S, d) == P
    ieqs = [[rational(v) for v in h] for h in S.inequality_generator()]
    eqns = [[rational(v) for v in h] for h in S.equation_generator()]
    assert Polyhedron(ieqs=ieqs, eqns=eqns, ambient_dim=d) == P
    assert len(ieqs) == len(P.minimal_h_representation()[0]) and len(eqns) == len(P.minimal_h_representation()[1])


def check_cdd(P):
    M = P.to_cdd()
    d = P.ambient_dim
    assert M.rep_type == cdd.RepType.INEQUALITY
    assert all(type(v) is Fraction for row in M.array for v in row)
    rows = [tuple(row) for row in M.array]
    ieqs = [r for i, r in enumerate(rows) if i not in M.lin_set]
    eqns = [r for i, r in enumerate(rows) if i in M.lin_set]
    assert Polyhedron(ieqs=ieqs, eqns=eqns, ambient_dim=d) == P
    assert polyhedron_dimension(ieqs, eqns, d) == P.dimension()
    if P.is_empty():
        assert not cdd_gmp.copy_generators(cdd_gmp.polyhedron_from_matrix(M)).array
        return
    # irredundant: cdd's own canonical form keeps every row and every equation (all of Q^d: drops 1 >= 0)
    canonical = cdd_gmp.matrix_from_array(M.array, lin_set=M.lin_set, rep_type=M.rep_type)
    cdd_gmp.matrix_canonicalize(canonical)
    facets, equations = P.minimal_h_representation()
    assert (len(canonical.array), len(canonical.lin_set)) == (len(facets) + len(equations), len(equations))
    assert len(rows) == max(1, len(facets) + len(equations))
    generators = cdd_gmp.copy_generators(cdd_gmp.polyhedron_from_matrix(M))
    vertices, rays, lines = [], [], []
    for i, row in enumerate(generators.array):
        if i in generators.lin_set:
            lines.append(row[1:])
        elif row[0] == 0:
            rays.append(row[1:])
        else:
            vertices.append([v / row[0] for v in row[1:]])
    vertices = vertices or [(0,) * d]  # cdd lists no vertex for a cone: its apex is the origin
    assert Polyhedron(vertices=vertices, rays=rays, lines=lines, ambient_dim=d) == P
    if not P.lines():
        assert {tuple(v) for v in vertices} == set(P.vertices())
        assert {primitive_integer_row(r) for r in rays} == set(P.rays())


def check_polymake(P):
    text = P.to_polymake()
    match = re.fullmatch(r"new Polytope<Rational>\(INEQUALITIES=>(\[.*?\])(?:, EQUATIONS=>(\[.*\]))?\)", text)
    assert match, text
    ieqs = ast.literal_eval(match.group(1))
    eqns = ast.literal_eval(match.group(2)) if match.group(2) else []
    assert all(type(v) is int for row in ieqs + eqns for v in row)
    assert Polyhedron(ieqs=ieqs, eqns=eqns, ambient_dim=P.ambient_dim) == P
    facets, equations = P.minimal_h_representation()
    # the rows are the minimal H-representation's, with 1 >= 0 in place of no inequality at all
    assert (tuple(map(tuple, ieqs)), tuple(map(tuple, eqns))) == (facets or ((1,) + (0,) * P.ambient_dim,), equations)


@pytest.mark.parametrize("name", COMPLEXES)
def test_every_cell_goes_to_sage_and_back(name):
    for cell in COMPLEXES[name].cells():
        check_sage(cell.polyhedron)
        assert cell.to_sage() == cell.polyhedron.to_sage()


@pytest.mark.parametrize("name", COMPLEXES)
def test_every_cell_goes_to_cdd_and_back(name):
    for cell in COMPLEXES[name].cells():
        check_cdd(cell.polyhedron)
        assert cell.to_cdd().array == cell.polyhedron.to_cdd().array


@pytest.mark.parametrize("name", COMPLEXES)
def test_every_cell_goes_to_polymake_text_and_back(name):
    for cell in COMPLEXES[name].cells():
        check_polymake(cell.polyhedron)
        assert cell.to_polymake() == cell.polyhedron.to_polymake()


@pytest.mark.parametrize("name", DEGENERATE)
def test_degenerate_polyhedra_go_everywhere_and_back(name):
    P = DEGENERATE[name]
    check_sage(P)
    check_cdd(P)
    check_polymake(P)


def test_degenerate_cases_are_what_their_names_say():
    assert DEGENERATE["empty"].to_sage().is_empty()
    assert DEGENERATE["a point from opposite inequalities"].to_sage().vertices_list() == [[1, 2, 0]]
    assert len(DEGENERATE["all of Q^3"].to_sage().lines_list()) == 3
    assert DEGENERATE["a ray in Q^3"].to_sage().rays_list() == [[1, 0, 0]]
    huge = DEGENERATE["a segment with huge entries"].to_sage().vertices_list()
    assert sorted(tuple(map(rational, v)) for v in huge) == [(0, Fraction(-1, 3**60)), (Fraction(2**100, 3), 0)]
    assert len(DEGENERATE["a redundant triangle"].to_cdd().array) == 3


def test_to_sage_without_sage_names_the_package_to_install(monkeypatch):
    # a None entry in sys.modules makes the import fail, as on a machine without Sage
    monkeypatch.setitem(sys.modules, "sage.all__sagemath_polyhedra", None)
    monkeypatch.setitem(sys.modules, "sage.all", None)
    with pytest.raises(BackendUnavailableError, match="passagemath-polyhedra") as info:
        COMPLEXES["2 inputs on R^2"].cells()[0].to_sage()
    assert isinstance(info.value, ImportError)
