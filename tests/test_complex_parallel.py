"""canonical_complex in pieces on parallel workers: the serial complex, ids and JSON document included.

The split is forced on small networks by lowering ``polyrelu.complex._pieces.SPLIT_CELLS`` (the estimated
size above which a complex is split), and observed through the number of pieces handed to ``parallel_map``.
Worker processes are real (loky; a Dask LocalCluster once).
"""

import pytest

import polyrelu.complex._pieces as pieces
from polyrelu import Box, ReLUNetwork, canonical_complex
from polyrelu.errors import ComplexTooLargeError, UsageError
from polyrelu.examples import seeded_gaussian_network
from polyrelu.geometry import Subdivision

# a dead neuron (1, 3): constant -1, never a splitting neuron
DEAD = ReLUNetwork(
    [[[1, 0], [2, -1], [0, 1], [0, 0], [1, 1]], [[1, -1, 1, 1, 2], [1, 1, 0, 1, -1]], [[1, 2]]],
    [[0, 1, 0, -1, -1], [0, 1], [0]],
)
# first-layer hyperplanes x = 0 (twice, once reversed) and x = 1/2: parallel and coinciding
PARALLEL = ReLUNetwork(
    [[[1, 0], [-1, 0], [2, 0], [0, 1]], [[1, 1, -1, 1], [1, -2, 1, 1]], [[1, -1]]],
    [[0, 0, -1, 0], [-1, 1], [0]],
)
# W1 of rank 1 in R^3: the cells have two lines, the pieces are slabs
SLABS = ReLUNetwork([[[1, 2, 0], [2, 4, 0]], [[1, -1], [2, 1]], [[1, 1]]], [[0, 1], [1, -1], [0]])

NETWORKS = {
    "2-5-4-1": seeded_gaussian_network((2, 5, 4, 1)),
    "3-6-5-1": seeded_gaussian_network((3, 6, 5, 1)),
    "2-4-3-3-1": seeded_gaussian_network((2, 4, 3, 3, 1)),
    "dead neuron": DEAD,
    "parallel hyperplanes": PARALLEL,
    "rank one": SLABS,
}


@pytest.fixture
def forced(monkeypatch):
    """Split every complex; the list of the numbers of pieces handed to parallel_map, call by call."""
    monkeypatch.setattr(pieces, "SPLIT_CELLS", 0)
    return _spy(monkeypatch)


def _spy(monkeypatch):
    calls = []
    real = pieces.parallel_map

    def spy(function, tasks, **options):
        calls.append(len(tasks))
        return real(function, tasks, **options)

    monkeypatch.setattr(pieces, "parallel_map", spy)
    return calls


def _same(K, L, tmp_path):
    """K and L are the same complex: equal, the same cells under the same ids, the same JSON bytes."""
    assert K == L
    assert [(c.id, c.dimension, c.signs, c.domain_signs) for c in K] == [(c.id, c.dimension, c.signs, c.domain_signs) for c in L]
    assert K.lattice.covering_relation() == L.lattice.covering_relation()
    assert K.f_vector() == L.f_vector()
    K.write_json(tmp_path / "serial.json")
    L.write_json(tmp_path / "pieces.json")
    assert (tmp_path / "serial.json").read_bytes() == (tmp_path / "pieces.json").read_bytes()


@pytest.mark.parametrize("domain", [None, "box"])
@pytest.mark.parametrize("name", list(NETWORKS))
def test_pieces_make_the_serial_complex(name, domain, forced, tmp_path):
    net = NETWORKS[name]
    box = Box(-2, 2) if domain else None
    serial = canonical_complex(net, box, n_jobs=1)
    parallel = canonical_complex(net, box, n_jobs=2)
    assert forced == [forced[0]] and forced[0] >= 2  # built in pieces (not the serial fallback)
    _same(serial, parallel, tmp_path)


def test_small_complexes_and_one_job_stay_serial(monkeypatch, tmp_path):
    calls = _spy(monkeypatch)
    net = NETWORKS["3-6-5-1"]
    serial = canonical_complex(net, n_jobs=1)
    _same(serial, canonical_complex(net, n_jobs=2), tmp_path)  # far below SPLIT_CELLS
    monkeypatch.setattr(pieces, "SPLIT_CELLS", 0)
    canonical_complex(net, n_jobs=1)
    canonical_complex(net, method="lp", n_jobs=2)  # only the lattice method splits
    canonical_complex(ReLUNetwork.random((2, 6, 1), seed=0), n_jobs=2)  # one hidden layer: its arrangement
    assert calls == []
    canonical_complex(net, n_jobs=2)
    assert len(calls) == 1


def test_the_default_builds_serially_even_with_a_scheduler_in_the_environment(forced, monkeypatch):
    """Pieces are slower on two cores (docs/parallel.md): they are built only when asked for."""
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://127.0.0.1:1")  # never contacted
    net = NETWORKS["3-6-5-1"]
    assert canonical_complex(net) == canonical_complex(net, n_jobs=1)
    assert forced == []
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS")
    canonical_complex(net, n_jobs=2)
    assert len(forced) == 1


def test_the_size_guard_refuses_as_in_a_serial_build(forced):
    net = seeded_gaussian_network((3, 8, 8, 1))  # 4063 cells; the first layer alone has a few hundred
    messages = []
    for n_jobs in (1, 2):
        with pytest.raises(ComplexTooLargeError) as info:
            canonical_complex(net, max_cells=2000, n_jobs=n_jobs)
        messages.append(str(info.value))
    assert messages[0] == messages[1] and messages[0].startswith("layer 2 would bring the complex to")
    assert forced == []  # refused before any piece was sent


def test_a_piece_refuses_a_later_layer_naming_itself(forced):
    # 531 cells, 55 after two layers: the third layer is refused in the serial build, and in a piece here
    net = seeded_gaussian_network((2, 3, 3, 30, 1))
    with pytest.raises(ComplexTooLargeError, match=r"^layer 3 would bring the complex to"):
        canonical_complex(net, max_cells=200, n_jobs=1)
    with pytest.raises(ComplexTooLargeError, match=r"^piece \d of \d: layer 3 would bring the complex to"):
        canonical_complex(net, max_cells=200, n_jobs=2)


def test_bad_parallel_arguments_are_refused():
    net = NETWORKS["2-5-4-1"]
    with pytest.raises(UsageError, match="canonical_complex: n_jobs must be"):
        canonical_complex(net, n_jobs=0)
    with pytest.raises(UsageError, match="canonical_complex: scheduler must be the address"):
        canonical_complex(net, scheduler=" ")


def test_a_cut_subcomplex_is_the_cut_complex_restricted():
    # the quadrant x >= 0, y >= 0 of the axes' arrangement, cut by two lines, against the whole plane cut
    whole = Subdivision.from_arrangement([(0, 1, 0), (0, 0, 1)])
    quadrant = [c for c in range(len(whole.cells)) if all(s >= 0 for s in whole.cell_signs(c))]
    part = whole.subcomplex(quadrant)
    for row in [(-1, 1, 1), (0, 1, -2)]:
        for S in (whole, part):
            S.cut([sum(a * x for a, x in zip(row, vertex)) for vertex in S.vertices])

    def cells(S, keep):
        return sorted(
            (S.cells[c].dim, S.cell_signs(c), tuple(sorted(S.vertices[i] for i in S.cell_vertices(c))))
            for c in S.finite_cells()
            if keep(S.cell_signs(c))
        )

    inside = cells(whole, lambda s: s[0] >= 0 and s[1] >= 0)
    assert cells(part, lambda s: True) == inside
    assert part.finite_f_vector() == (4, 8, 4)  # vertices 0, (1, 0), (0, 1), (2/3, 1/3); the lines cross inside


def test_a_dask_cluster_builds_the_pieces(forced, tmp_path):
    distributed = pytest.importorskip("distributed")
    net = NETWORKS["3-6-5-1"]
    serial = canonical_complex(net, Box(-2, 2), n_jobs=1)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        parallel = canonical_complex(net, Box(-2, 2), scheduler=cluster.scheduler_address)
    assert len(forced) == 1
    _same(serial, parallel, tmp_path)
