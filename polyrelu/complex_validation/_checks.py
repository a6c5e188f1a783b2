"""The geometric checks of a complex document: exact proof that the stored cells are the canonical complex (internal).

:func:`check_document` runs them; the argument is in the package's docstring.
"""

import math
from collections import defaultdict

import flint

from ..errors import (
    ComplexFormatError,
)
from ..geometry import AffineSubspace, Polyhedron
from ..geometry.linalg import rank
from ..geometry.rational import integer_vector
from ..text import vector_text
from ._document import MODIFIED, TRUSTED, ComplexDocument, Refusal
from ._rows import ConstraintRows, Reduction, covering_from_signs, facet_rows, lineality_basis

__all__ = ["check_document"]


# -- the geometric checks ----------------------------------------------------------------
def check_document(document: ComplexDocument) -> None:
    """Prove exactly that the document's cells are the canonical complex of its network on its domain.

    See the module notes for what is checked and why it is enough; nothing
    here trusts a float or compares all pairs of cells.

    Raises
    ------
    ComplexFormatError
        The first inconsistency found, naming the cell and what is wrong;
        the message says the file was modified or corrupted.

    Examples
    --------
    >>> from polyrelu.complex import canonical_complex
    >>> from polyrelu.examples import bent_line_network
    >>> from polyrelu.complex_validation import read_document
    >>> data = canonical_complex(bent_line_network()).to_json(version=1)
    >>> check_document(read_document(data))
    >>> data["cells"][0]["vertices"] = [["0", "2"]]
    >>> check_document(read_document(data))
    Traceback (most recent call last):
    ...
    polyrelu.errors.ComplexFormatError: complex JSON: cell 0: vertex 0 (0, 2) is not in the closure of the cell's sign class: neuron (1, 1) is positive there, but the cell's sign is zero; the file was modified or corrupted; ...
    """
    try:
        _Checker(document).run()
    except Refusal as exc:
        raise ComplexFormatError(f"{document.source}: {exc.where}: {exc.what}; {MODIFIED}; {TRUSTED}") from None


def _homogeneous(point):
    """``(D, D x)`` for a rational point ``x``, ``D`` the least common denominator: signs of rows are kept."""
    numerators, denominator = integer_vector(point)
    return (denominator, *numerators)


def _dot(row, column):
    return sum(a * b for a, b in zip(row, column))


def _word(value):
    return "positive" if value > 0 else "negative" if value < 0 else "zero"


def _shown(vector):
    """A vector in a message: exact, long numbers abbreviated with their length (:func:`~polyrelu.text.vector_text`)."""
    return vector_text(vector)


class _Checker:
    """The checks of :func:`check_document`, in the order of the module notes."""

    def __init__(self, document):
        self.document = document
        net = document.network
        self.net = net
        self.n0 = net.architecture.input_dim
        domain_rows = document.domain_rows or ()
        self.n_domain = len(domain_rows)
        self.constraint_names = [f"domain facet {j}" for j in range(self.n_domain)]
        self.constraint_names += [f"neuron {n}" for n in net.architecture.hidden_neurons()]
        self.signs = [c.domain_signs + c.signs for c in document.cells]
        self.zeros = [tuple(k for k, v in enumerate(s) if v == 0) for s in self.signs]
        self.rows = ConstraintRows(net, domain_rows)
        self.reductions = {}  # by equations: constraint rows reduced modulo them

    def run(self):
        self.check_domain()
        self.check_sign_vectors()
        self.check_covering()
        self.check_regions()
        for cell in self.document.cells:
            self.check_cell(cell)

    # -- the complex as a whole -------------------------------------------------------------
    def check_domain(self):
        rows = self.document.domain_rows
        if rows is None:
            return
        domain = Polyhedron(ieqs=rows, ambient_dim=self.n0)
        if domain.is_empty():
            raise Refusal("domain", "is empty")
        if not domain.is_full_dimensional() or not domain.is_bounded():
            raise Refusal("domain", "is not a bounded full-dimensional polytope")
        if domain.minimal_h_representation() != (rows, ()):
            raise Refusal("domain", "its rows are not the sorted, irredundant, primitive facet rows of a polytope")

    def check_sign_vectors(self):
        seen = {}
        for cell, signs in zip(self.document.cells, self.signs):
            if signs in seen:
                raise Refusal(f"cell {cell.id}", f"has the same sign vector and domain signs as cell {seen[signs]}")
            seen[signs] = cell.id

    def check_covering(self):
        lattice = self.document.lattice
        stored = set(lattice.covering_relation())
        derived = set(covering_from_signs(self.signs, lattice.dimensions))
        if stored - derived:
            i, j = min(stored - derived)
            raise Refusal(
                f"cell {i}",
                f"is stored as a facet of cell {j}, but their sign vectors say it is not (a facet's signs agree "
                "with the cell's except where the facet's are 0)",
            )
        if derived - stored:
            i, j = min(derived - stored)
            raise Refusal(
                f"cell {i}", f"is a facet of cell {j} by their sign vectors, but the covering relation lacks [{i}, {j}]"
            )

    def check_regions(self):
        lattice = self.document.lattice
        if not lattice.cells(self.n0):
            raise Refusal("cells", f"there is no region (a cell of dimension {self.n0})")
        for i in lattice.cells(self.n0 - 1):
            on_boundary = 0 in self.document.cells[i].domain_signs
            expected = 1 if on_boundary else 2
            found = len(lattice.cofacets(i))
            if found != expected:
                where = "on the domain's boundary" if on_boundary else "inside the domain"
                raise Refusal(
                    f"cell {i}",
                    f"is a facet of {found} regions, but a cell of dimension {self.n0 - 1} {where} "
                    f"is a facet of {expected}",
                )

    # -- one cell ---------------------------------------------------------------------------
    def check_cell(self, cell):
        where = f"cell {cell.id}"
        rows, matrix = self.rows(cell.signs)
        signs = self.signs[cell.id]
        # generators as homogeneous integer columns: (D, D v) for a vertex v, (0, r) for a ray or line
        generators = [*map(_homogeneous, cell.vertices), *((0, *r) for r in cell.rays + cell.lines)]
        self.check_constraints(cell, where, matrix, signs, generators)
        hull = self.check_affine_hull(cell, where, rows)
        self.check_inequalities(cell, where, rows, signs)
        self.check_generators(cell, where, generators)
        self.check_same_polyhedron(cell, where, hull, generators)
        if cell.affine_map is not None and cell.affine_map != self.net.affine_map(cell.signs):
            raise Refusal(where, "its affine_map is not the network's affine map on the region")

    def check_constraints(self, cell, where, matrix, signs, generators):
        """Steps 1 and 3: the signs at the interior point, every generator in the closed sign class."""
        if matrix is None:
            return
        columns = [_homogeneous(cell.point), *generators]
        width, first_line = len(columns), len(columns) - len(cell.lines)
        column_matrix = flint.fmpz_mat(self.n0 + 1, width, [c[i] for i in range(self.n0 + 1) for c in columns])
        entries = (matrix * column_matrix).entries()
        for k, s in enumerate(signs):
            values = entries[k * width : (k + 1) * width]
            if s == 0:
                fine = not any(values)
            elif s > 0:
                fine = values[0] > 0 and min(values[:first_line]) >= 0 and not any(values[first_line:])
            else:
                fine = values[0] < 0 and max(values[:first_line]) <= 0 and not any(values[first_line:])
            if not fine:
                self.refuse_constraint(cell, where, k, s, values, first_line)

    def refuse_constraint(self, cell, where, k, s, values, first_line):
        name = self.constraint_names[k]
        if (values[0] > 0) - (values[0] < 0) != s:
            # a version-2 file stores no interior point: name the one rebuilt from its generators
            point = ("relative interior point" if self.document.version == 1 else
                     "relative interior point (the mean of its vertices plus the sum of its rays)") + " " + _shown(cell.point)
            if k < self.n_domain and values[0] < 0:
                raise Refusal(where, f"its {point} lies outside the domain ({name})")
            raise Refusal(
                where,
                f"its {point} does not have the cell's signs: {name} is {_word(values[0])} there, but the cell's sign "
                f"is {_word(s)}",
            )
        kinds = [("vertex", v) for v in cell.vertices] + [("ray", r) for r in cell.rays]
        kinds += [("line", l) for l in cell.lines]
        counters = defaultdict(int)
        for g, (kind, vector) in enumerate(kinds, start=1):
            number = counters[kind]
            counters[kind] += 1
            value = values[g]
            if g >= first_line or s == 0:
                bad = value != 0
            else:
                bad = s * value < 0
            if bad:
                what = "the closure of the cell's sign class" if k >= self.n_domain or s == 0 else "the domain"
                raise Refusal(
                    where,
                    f"{kind} {number} {_shown(vector)} is not in {what}: {name} is {_word(value)} there, "
                    f"but the cell's sign is {_word(s)}",
                )

    def check_affine_hull(self, cell, where, rows):
        """Step 2: the equations of the vanishing constraints, and the dimension they leave."""
        vanishing = [rows[k] for k in self.zeros[cell.id]]
        hull = AffineSubspace.from_equations(vanishing, self.n0)
        if hull.equations != cell.eqns:
            names = [self.constraint_names[k] for k in self.zeros[cell.id]]
            shown = ", ".join(names[:4]) + (", ..." if len(names) > 4 else "")
            raise Refusal(
                where,
                f"its eqns are not the reduced row echelon form of the constraints vanishing on it ({shown or 'none'})",
            )
        if hull.dimension != cell.dimension:
            raise Refusal(
                where, f"has dimension {cell.dimension}, but the constraints vanishing on it leave {hull.dimension}"
            )
        return hull

    def check_inequalities(self, cell, where, rows, signs):
        """Step 4: ``ieqs`` are the reduced rows of the constraints vanishing on its facets, sorted."""
        reduce = self.reductions.get(cell.eqns)
        if reduce is None:
            reduce = self.reductions[cell.eqns] = Reduction(cell.eqns)
        source = facet_rows(rows, signs, self.document.lattice.facets(cell.id), self.zeros, reduce)
        expected = tuple(sorted(source))
        if expected == cell.ieqs:
            return
        extra = [r for r in cell.ieqs if r not in source]
        if extra:
            raise Refusal(
                where,
                f"its inequality {_shown(extra[0])} is not the row of a constraint vanishing on one of its facets "
                "(reduced modulo its equations)",
            )
        missing = [r for r in expected if r not in cell.ieqs]
        if missing:
            k, f = source[missing[0]]
            raise Refusal(
                where,
                f"its inequalities miss {_shown(missing[0])}, the row of {self.constraint_names[k]}, which vanishes "
                f"on its facet cell {f}",
            )
        raise Refusal(where, "its inequalities are not sorted, or repeat one")

    def check_generators(self, cell, where, generators):
        """Step 5, first part: canonical form, and the dimension the generators span."""
        for kind, vectors in (("vertices", cell.vertices), ("rays", cell.rays), ("lines", cell.lines)):
            if any(a >= b for a, b in zip(vectors, vectors[1:])):
                raise Refusal(where, f"its {kind} are not sorted, or repeat one")
        for kind, vectors in (("ray", cell.rays), ("line", cell.lines)):
            for j, v in enumerate(vectors):
                if math.gcd(*v) != 1:
                    raise Refusal(where, f"its {kind} {j} {_shown(v)} is not a primitive integer vector")
        for j, line in enumerate(cell.lines):
            if next(v for v in line if v) < 0:
                raise Refusal(where, f"its line {j} {_shown(line)} does not start with a positive entry")
            for kind, vectors in (("vertex", cell.vertices), ("ray", cell.rays)):
                for i, v in enumerate(vectors):
                    if _dot(line, v):
                        raise Refusal(
                            where, f"its {kind} {i} is not orthogonal to its line {j}, as the stored section must be"
                        )
        spanned = rank(generators)
        if spanned != cell.dimension + 1:
            raise Refusal(where, f"has dimension {cell.dimension}, but its generators span dimension {spanned - 1}")
        if len(cell.lines) > 1 and rank(cell.lines) != len(cell.lines):
            raise Refusal(where, "its lines are not linearly independent")

    def check_same_polyhedron(self, cell, where, hull, generators):
        """Step 5, second part: the inequalities describe the polyhedron the generators span."""
        m = cell.dimension - len(cell.lines)
        if m >= 3:
            computed = Polyhedron.from_trusted(
                len(cell.point), h_representation=(cell.ieqs, cell.eqns), relative_interior_point=cell.point, affine_hull=hull
            ).vertices_rays_lines()
            same_lines = lineality_basis(computed[2]) == lineality_basis(cell.lines)
            if computed[:2] != (cell.vertices, cell.rays) or not same_lines:
                raise Refusal(
                    where,
                    "its inequalities and equations describe another polyhedron than its vertices, rays and lines "
                    f"(cdd.gmp finds {len(computed[0])} vertices, {len(computed[1])} rays, {len(computed[2])} lines)",
                )
            return
        vertices = generators[: len(cell.vertices)]
        rays = generators[len(cell.vertices) : len(cell.vertices) + len(cell.rays)]
        vertex_count, ray_count = [0] * len(vertices), [0] * len(rays)
        for a in cell.ieqs:
            on_vertices = [i for i, v in enumerate(vertices) if _dot(a, v) == 0]
            on_rays = [i for i, r in enumerate(rays) if _dot(a, r) == 0]
            if not on_vertices or len(on_vertices) + len(on_rays) < m:
                raise Refusal(
                    where,
                    f"its inequality {_shown(a)} does not define a facet of the polyhedron its generators span "
                    f"(tight at {len(on_vertices)} vertices and {len(on_rays)} rays)",
                )
            for i in on_vertices:
                vertex_count[i] += 1
            for i in on_rays:
                ray_count[i] += 1
        for kind, counts, needed in (("vertex", vertex_count, m), ("ray", ray_count, m - 1)):
            for i, count in enumerate(counts):
                if count < needed:
                    raise Refusal(
                        where,
                        f"its {kind} {i} lies on {count} of its inequalities; as a {kind} of a polyhedron of dimension "
                        f"{m} (modulo lines) it must lie on {needed}: the inequalities and the generators describe "
                        "different polyhedra",
                    )
