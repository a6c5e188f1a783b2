"""polyrelu.parallel: parallel runs give the serial results, in task order, locally and on a Dask cluster.

The task functions are defined at module level so that worker processes can
import them. Worker processes are real (loky, and a Dask LocalCluster of two
processes); the file takes about half a minute on two cores.
"""

import os
import signal
import threading
import time
from fractions import Fraction

import numpy as np
import pytest

from polyrelu import (
    ReLUNetwork,
    architecture_survey,
    canonical_complex,
    functional_dimension,
    genericity,
    minimality_report,
)
from polyrelu.analysis import analyze
from polyrelu.cli.survey import recovery_survey, time_budget_spent
from polyrelu.errors import (
    ComplexTooLargeError,
    InvalidArgumentError,
    ShapeError,
    UsageError,
)
from polyrelu.examples import generic_network, seeded_gaussian_network
from polyrelu.parallel import SCHEDULER_VARIABLE, parallel_map, task_seeds

psutil = pytest.importorskip("psutil")
distributed = pytest.importorskip("distributed")

# twins (1, 0) and (1, 1), a dead neuron (1, 3), and a second hidden layer
REDUNDANT = ReLUNetwork(
    [[[1, 0], [2, 0], [0, 1], [0, 0], [1, 1]], [[1, -1, 1, 1, 2], [1, 1, 0, 1, 1]], [[1, 2]]],
    [[0, 0, 0, -1, 0], [0, 1], [0]],
)


# rank 74 of D - H = 89 on 136 regions: the kernel beyond scaling comes from the echelon form
DEFICIENT = seeded_gaussian_network((2, 8, 8, 1))


# -- task functions (module level: workers import them) -------------------------------------------
def _draws(task):
    """Four numbers from the task's own seed; task ``k`` finishes only after task ``k + 1`` did."""
    k, seed, folder, last = task
    if folder is not None and k < last:
        deadline = time.monotonic() + 120
        while not os.path.exists(os.path.join(folder, f"done-{k + 1}")):
            if time.monotonic() > deadline:
                raise RuntimeError(f"task {k + 1} never finished")
            time.sleep(0.02)
    values = np.random.default_rng(seed).integers(0, 2**62, size=4).tolist()
    if folder is not None:
        open(os.path.join(folder, f"done-{k}"), "w").close()
    return values


def _fail_on_three(k):
    if k == 3:
        raise ComplexTooLargeError("the complex would have about 500 cells", estimate=500, margin=7)
    return k


def _bad_shape(k):
    time.sleep(1.0 if k == 0 else 0)  # task 1 fails first
    raise ShapeError(f"layer {k} is empty")


def _pid_after(seconds):
    time.sleep(seconds)
    return os.getpid()


def _in_dask_worker(_):
    try:
        distributed.get_worker()
    except ValueError:
        return False
    return True


def _running(pid):
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _sleep_forever(folder):
    open(os.path.join(folder, f"pid-{os.getpid()}"), "w").close()
    time.sleep(600)


# -- surveys and minimality: the same results whatever runs them ----------------------------------
def test_survey_is_the_serial_survey_for_1_2_and_4_jobs():
    arch, samples = (2, 3, 1), 8
    nets = [ReLUNetwork.random(arch, seed=k, kind="integer") for k in range(samples)]
    ranks = tuple(functional_dimension(net).rank for net in nets)
    assert len(set(ranks)) > 1  # the order of the ranks is tested, not only their multiset
    serial = architecture_survey(arch, samples, kind="integer", n_jobs=1)
    assert serial.ranks == ranks
    assert serial.generic == sum(genericity(canonical_complex(net)).holds for net in nets)
    for n_jobs in (2, 4):
        assert architecture_survey(arch, samples, kind="integer", n_jobs=n_jobs) == serial


def test_minimality_report_is_the_serial_report_for_1_2_and_4_jobs():
    serial = minimality_report(REDUNDANT, n_jobs=1)
    assert [(r.neuron, r.how) for r in serial.removals] == [
        ((1, 0), "merged into (1, 1)"),
        ((1, 1), "merged into (1, 0)"),
        ((1, 3), "deleted"),
    ]
    for n_jobs in (2, 4):
        report = minimality_report(REDUNDANT, n_jobs=n_jobs)
        assert report == serial
        # the smaller networks came back from the workers usable: they compute f
        for removal in report.removals:
            assert removal.network(["1/2", 3]) == REDUNDANT(["1/2", 3])


def test_functional_dimension_from_batches_of_regions_is_the_serial_one():
    # batches of regions reduced apart, then together: the same rank, prime and exact kernel directions.
    # The generic network's rank D - H is read from the merged echelon form alone; for the others the merged
    # form gives the kernel candidates, so a wrong merge would show as another prime or another kernel.
    generic = generic_network((2, 5, 4, 1), seed=0)
    for net in (DEFICIENT, REDUNDANT, generic):
        serial = functional_dimension(net, n_jobs=1)
        assert serial.attains_bound == (net is generic) and bool(serial.kernel) == (net is not generic)
        for n_jobs in (2, 4):
            assert functional_dimension(net, n_jobs=n_jobs) == serial


def _without_seconds(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def test_a_dask_cluster_gives_the_serial_results(monkeypatch):
    survey = architecture_survey((2, 3, 1), 6, kind="integer", n_jobs=1)
    report = minimality_report(REDUNDANT, n_jobs=1)
    rank = functional_dimension(DEFICIENT, n_jobs=1)
    recoveries = recovery_survey([(2, 2, 1), (2, 2, 2, 1)], 2, n_jobs=1, progress=False)
    assert not any(map(time_budget_spent, recoveries))  # else the cluster's records might differ
    analysis = {**analyze(REDUNDANT, inradius=False, n_jobs=1).to_json(), "timings": None}
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        address = cluster.scheduler_address
        assert parallel_map(_in_dask_worker, range(3), scheduler=address) == [True] * 3
        assert architecture_survey((2, 3, 1), 6, kind="integer", scheduler=address) == survey
        assert minimality_report(REDUNDANT, scheduler=address) == report
        assert functional_dimension(DEFICIENT, scheduler=address) == rank
        assert _without_seconds(recovery_survey([(2, 2, 1), (2, 2, 2, 1)], 2, scheduler=address, progress=False)) \
            == _without_seconds(recoveries)
        assert {**analyze(REDUNDANT, inradius=False, scheduler=address).to_json(), "timings": None} == analysis
        # the environment variable: the serial start runs the first task here, the rest go to the cluster
        monkeypatch.setenv(SCHEDULER_VARIABLE, address)
        assert parallel_map(_in_dask_worker, range(3), n_jobs=1) == [False] * 3
        seen = parallel_map(_pid_after, [1.5, 0, 0])
        assert seen[0] == os.getpid() and os.getpid() not in seen[1:]


# -- determinism, scheduling, errors --------------------------------------------------------------
def test_task_seeds_make_results_independent_of_jobs_and_completion_order(tmp_path):
    seeds = task_seeds(2024, 4)
    expected = [np.random.default_rng(seed).integers(0, 2**62, size=4).tolist() for seed in seeds]
    assert len({tuple(v) for v in expected}) == 4
    assert parallel_map(_draws, [(k, s, None, 3) for k, s in enumerate(seeds)], n_jobs=1) == expected
    assert parallel_map(_draws, [(k, s, None, 3) for k, s in enumerate(seeds)], n_jobs=2) == expected
    # four workers, and each task waits for the next one: they complete in reverse order
    folder = str(tmp_path)
    assert parallel_map(_draws, [(k, s, folder, 3) for k, s in enumerate(seeds)], n_jobs=4) == expected
    assert sorted(os.listdir(folder)) == [f"done-{k}" for k in range(4)]


def test_small_inputs_stay_in_the_calling_process_and_long_ones_go_to_workers():
    assert parallel_map(_pid_after, [0.01] * 5) == [os.getpid()] * 5
    # the first task alone runs here; its time says the other two would take 3 s serially
    pids = parallel_map(_pid_after, [1.5, 1.5, 1.5])
    assert pids[0] == os.getpid() and os.getpid() not in pids[1:]


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_a_task_error_comes_back_as_its_class_naming_the_task(n_jobs):
    with pytest.raises(ComplexTooLargeError, match=r"^item 3: the complex would have about 500 cells$") as info:
        parallel_map(_fail_on_three, range(6), n_jobs=n_jobs, names=[f"item {k}" for k in range(6)])
    assert (info.value.estimate, info.value.margin) == (500, 7)
    # two failures: the first in task order is raised, as in a serial run, with the worker's traceback as its cause
    with pytest.raises(ShapeError, match=r"^task 0: layer 0 is empty$") as info:
        parallel_map(_bad_shape, [0, 1], n_jobs=n_jobs)
    assert n_jobs == 1 or "_bad_shape" in str(info.value.__cause__)


def test_a_lambda_or_a_closure_is_refused_with_several_jobs():
    def local(x):
        return x

    for function in (lambda x: x, local):
        with pytest.raises(InvalidArgumentError, match="module level"):
            parallel_map(function, [1, 2], n_jobs=2)
        with pytest.raises(InvalidArgumentError, match="module level"):
            parallel_map(function, [1, 2])  # n_jobs=None may use workers: refused whatever the input's size
        assert parallel_map(function, [Fraction(1, 2), 2], n_jobs=1) == [Fraction(1, 2), 2]


def test_ctrl_c_stops_the_workers(tmp_path):
    folder = str(tmp_path)

    def interrupt_when_both_run():
        deadline = time.monotonic() + 120
        while len(os.listdir(folder)) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGINT)

    timer = threading.Thread(target=interrupt_when_both_run, daemon=True)
    timer.start()
    with pytest.raises(KeyboardInterrupt):
        parallel_map(_sleep_forever, [folder] * 4, n_jobs=2)
    timer.join()
    workers = [int(name.removeprefix("pid-")) for name in os.listdir(folder)]
    assert len(workers) == 2 and os.getpid() not in workers
    deadline = time.monotonic() + 60
    while any(map(_running, workers)) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(map(_running, workers)), "worker processes still running after Ctrl-C"
    # the pool is usable again
    assert parallel_map(abs, [-1, -2], n_jobs=2) == [1, 2]


def test_a_scheduler_address_that_cannot_be_used_is_a_usage_error():
    with pytest.raises(UsageError, match="no-such-scheme://x.*unknown address scheme"):
        parallel_map(abs, [1, 2], scheduler="no-such-scheme://x")
    with pytest.raises(UsageError, match="scheduler must be the address of a Dask scheduler"):
        architecture_survey((2, 2, 1), 2, scheduler=" ")
