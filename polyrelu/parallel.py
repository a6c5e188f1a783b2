"""One executor for the embarrassingly parallel parts of polyrelu: local processes, or a Dask cluster.

:func:`parallel_map` runs a function over a list of tasks and returns the
results in task order. Surveys over random parameters and the per-neuron
checks of :func:`~polyrelu.identifiability.minimality_report` go through it.

- Locally, tasks run in worker processes of joblib's ``loky`` backend.
  ``n_jobs=None`` (the default) uses every core, but only when the work is
  worth it: tasks run in the calling process first, and the rest goes to the
  workers once the time the remaining tasks would take serially, estimated
  from the ones done, exceeds :data:`SERIAL_SECONDS` (starting the workers
  costs about a second). Small inputs therefore never pay for processes.
- On a cluster, tasks run on the workers of a Dask distributed scheduler,
  through joblib's ``dask`` backend, when a scheduler address is given (the
  ``scheduler`` argument, else the ``DASK_SCHEDULER_ADDRESS`` environment
  variable). This needs the optional ``dask`` extra (``pip install
  'polyrelu[dask]'``), and every worker needs polyrelu and its system
  libraries installed.
- ``n_jobs=1`` runs everything in the calling process: the reference run.

Results do not depend on where or in which order tasks ran: a task is a pure
function of its input (random draws take a seed derived from the caller's
seed and the task's index, see :func:`task_seeds`), results are merged in
task order, and an error raised by a task comes back as the same
:class:`~polyrelu.errors.PolyReluError` subclass whatever ran it, its message
prefixed with the task's name. Inside a worker, ``n_jobs=None`` means serial,
so nested calls do not start processes of their own.
"""

from __future__ import annotations

import copy
import os
import pickle
import time
import traceback
import warnings
from collections.abc import Callable, Generator, Iterator, Sequence
from contextlib import ExitStack, closing, contextmanager
from contextvars import ContextVar
from typing import TypeVar

import joblib
import numpy as np
from threadpoolctl import ThreadpoolController

from .checks import require_callable, require_int, require_sequence, require_str
from .errors import (
    BackendUnavailableError,
    InvalidArgumentError,
    PolyReluError,
    UsageError,
)
from .progress import progress_bar

__all__ = ["SERIAL_SECONDS", "SCHEDULER_VARIABLE", "parallel_map", "task_seeds", "worker_count", "check_parallel_arguments"]

SERIAL_SECONDS = 2.0
"""With ``n_jobs=None``: below this estimated serial time for the remaining tasks, they run in the calling process."""

SCHEDULER_VARIABLE = "DASK_SCHEDULER_ADDRESS"
"""The environment variable read for a Dask scheduler address when no ``scheduler`` argument is given."""

# seconds to wait for a Dask scheduler to answer before the address is declared unreachable
_CONNECT_SECONDS = 20

T = TypeVar("T")
R = TypeVar("R")

# set while a task runs, so that a parallel_map inside a task stays in its worker
_in_task: ContextVar[bool] = ContextVar("polyrelu_parallel_in_task", default=False)


_controller: ThreadpoolController | None = None  # made on first use: it inspects the loaded libraries


@contextmanager
def one_blas_thread() -> Iterator[None]:
    """Run BLAS on one thread for the duration of a ``with`` block (internal API).

    polyrelu's float screens multiply many small matrices (a few dozen points
    by a layer's weights). OpenBLAS splits each product over its threads, and
    on a busy machine the threads wait for cores: a 90 × 128 by 128 × 128
    product took 23 ms on two shared cores against 0.08 ms on one thread, so
    a 23,000-cell slice spent a third of its build in such waits. Parallel
    work in polyrelu is done by processes (:func:`parallel_map`), not by BLAS
    threads. The previous limits are restored when the block exits.
    """
    global _controller
    if _controller is None:
        _controller = ThreadpoolController()
    with _controller.limit(limits=1, user_api="blas"):
        yield


def check_parallel_arguments(n_jobs: object, scheduler: object, caller: str) -> tuple[int | None, str | None]:
    """``(n_jobs, scheduler)`` checked: ``n_jobs`` None, -1 or a positive int; ``scheduler`` None or an address.

    The argument check of every function that takes ``n_jobs`` and ``scheduler``
    (internal API).

    Raises
    ------
    InvalidArgumentError
        ``n_jobs`` is not an integer, or ``scheduler`` is not a string.
    UsageError
        ``n_jobs`` is 0 or below -1, or ``scheduler`` is empty.

    Examples
    --------
    >>> check_parallel_arguments(None, None, "architecture_survey")
    (None, None)
    >>> check_parallel_arguments(0, None, "architecture_survey")
    Traceback (most recent call last):
    ...
    polyrelu.errors.UsageError: architecture_survey: n_jobs must be -1 (every core), a positive integer or None, not 0
    """
    jobs: int | None = None
    if n_jobs is not None:
        jobs = require_int(n_jobs, "n_jobs", caller)
        if jobs == 0 or jobs < -1:
            raise UsageError(f"{caller}: n_jobs must be -1 (every core), a positive integer or None, not {jobs}")
    address: str | None = require_str(scheduler, "scheduler", caller, optional=True)
    if address is not None and not address.strip():
        raise UsageError(f"{caller}: scheduler must be the address of a Dask scheduler (e.g. tcp://host:8786), not empty")
    return jobs, address


def task_seeds(seed: int, count: int) -> list[int]:
    """Independent seeds for ``count`` tasks, derived from ``seed`` and each task's index.

    Task ``k`` gets a seed that depends on ``seed`` and ``k`` alone
    (:meth:`numpy.random.SeedSequence.spawn`), so a task draws the same numbers
    whichever worker runs it, and in whichever order tasks finish.

    Examples
    --------
    >>> seeds = task_seeds(0, 3)
    >>> seeds == task_seeds(0, 3), seeds[:2] == task_seeds(0, 2), len(set(seeds))
    (True, True, 3)
    """
    seed = require_int(seed, "seed", "task_seeds", minimum=0)
    count = require_int(count, "count", "task_seeds", minimum=0)
    return [int(child.generate_state(1, dtype=np.uint64)[0]) for child in np.random.SeedSequence(seed).spawn(count)]


def parallel_map(
    function: Callable[[T], R],
    tasks: Sequence[T],
    *,
    n_jobs: int | None = None,
    scheduler: str | None = None,
    desc: str | None = None,
    names: Sequence[str] | None = None,
) -> list[R]:
    """``[function(task) for task in tasks]``, run in parallel, results in task order.

    Parameters
    ----------
    function : callable
        Called once per task with the task as its only argument. When tasks
        may run elsewhere (``n_jobs != 1``) it must be picklable: a function
        defined at module level, or a :func:`functools.partial` of one with
        picklable arguments; a lambda or a function defined inside another
        is refused. It must not depend on state of the calling process beyond
        its arguments (a seed among them if it draws random numbers, see
        :func:`task_seeds`).
    tasks : sequence
        The tasks, each picklable when they may run elsewhere.
    n_jobs : int, optional
        ``1``: every task in the calling process. ``k > 1``: ``k`` local worker
        processes (``loky``), or at most ``k`` tasks at once on a cluster.
        ``-1``: every core. ``None`` (the default): every core, once the
        remaining work is estimated to take more than :data:`SERIAL_SECONDS`
        serially (see the module's docstring); serial inside a task.
    scheduler : str, optional
        Address of a Dask distributed scheduler (``tcp://host:8786``): tasks run
        on its workers. When None, the environment variable
        ``DASK_SCHEDULER_ADDRESS`` is read. Ignored when ``n_jobs=1``.
    desc : str, optional
        What a task is (``"draws"``): shows a progress bar over the tasks when
        the run is long (see :func:`~polyrelu.progress.progress_bar`).
    names : sequence of str, optional
        A name per task for error messages (``"neuron (1, 0)"``); ``"task k"`` by default.

    Returns
    -------
    list
        ``function(tasks[k])`` at position ``k``.

    Raises
    ------
    InvalidArgumentError
        ``function`` is not callable or, with ``n_jobs != 1``, cannot be
        pickled (a lambda, a closure); an argument of the wrong type.
    UsageError
        A bad ``n_jobs``, ``names`` of the wrong length, or a scheduler that
        cannot be reached.
    BackendUnavailableError
        A scheduler is given but Dask is not installed.
    PolyReluError
        Raised by a task: the same subclass, its message prefixed with the task's name.
    KeyboardInterrupt
        On Ctrl-C; local worker processes are terminated first (tasks already
        running on a Dask cluster finish there, their results discarded).

    Examples
    --------
    >>> from functools import partial
    >>> parallel_map(abs, [-2, 3, -5], n_jobs=1)
    [2, 3, 5]
    >>> parallel_map(partial(pow, 2), [1, 2, 10], n_jobs=1)
    [2, 4, 1024]
    >>> parallel_map(lambda x: x, [1], n_jobs=2)
    Traceback (most recent call last):
    ...
    polyrelu.errors.InvalidArgumentError: parallel_map: function <lambda> cannot be sent to worker processes (...); pass a function defined at module level (or a functools.partial of one), or n_jobs=1
    """
    caller = "parallel_map"
    require_callable(function, "function", caller)
    tasks = list(require_sequence(tasks, "tasks", caller))
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, caller)
    desc = require_str(desc, "desc", caller, optional=True)
    if names is None:
        names = [f"task {k}" for k in range(len(tasks))]
    else:
        names = [require_str(name, f"names[{k}]", caller) for k, name in enumerate(require_sequence(names, "names", caller))]
        if len(names) != len(tasks):
            raise UsageError(f"{caller}: names has {len(names)} entries for {len(tasks)} tasks; give one name per task")
    serial_only, forced, scheduler = _plan(n_jobs, scheduler)
    if not serial_only:
        # checked whether or not this input ends up in workers, so that a call does not fail on larger inputs only
        _require_picklable(function, caller)
    results: list[R] = []
    bar = progress_bar(total=len(tasks), desc=desc or "tasks", unit="task", enabled=None if desc else False)
    try:
        started = time.perf_counter()
        # the serial start: every task when serial; under n_jobs=None, until the rest looks long enough
        # (on one core, without a cluster, never)
        can_spread = not serial_only and (scheduler is not None or joblib.cpu_count() > 1)
        while len(results) < len(tasks) and not forced:
            done, left = len(results), len(tasks) - len(results)
            if can_spread and done and (time.perf_counter() - started) / done * left > SERIAL_SECONDS:
                break
            results.append(_run_task(function, names[done], tasks[done]))
            bar.update()
        k = len(results)
        if k < len(tasks):
            # closed on leaving, even through Ctrl-C here: that stops the workers
            with closing(_distributed(function, tasks[k:], names[k:], n_jobs, scheduler)) as outputs:
                for result in outputs:
                    results.append(result)
                    bar.update()
    finally:
        bar.close()
    return results


def worker_count(n_jobs: int | None = None, scheduler: str | None = None) -> int:
    """How many tasks :func:`parallel_map` would run at once with these arguments (internal API).

    ``1`` when it runs serially (``n_jobs=1``; ``n_jobs=None`` inside a task or
    on one core), the number of local worker processes, or ``-1`` for every
    worker of a Dask cluster. For callers that cut their work into as many
    batches as there are workers.

    Examples
    --------
    >>> worker_count(1), worker_count(3, None)
    (1, 3)
    """
    n_jobs, scheduler = check_parallel_arguments(n_jobs, scheduler, "worker_count")
    serial_only, _, scheduler = _plan(n_jobs, scheduler)
    if serial_only:
        return 1
    if scheduler is not None:
        return -1 if n_jobs is None else n_jobs
    return joblib.cpu_count() if n_jobs in (None, -1) else n_jobs


def _plan(n_jobs: int | None, scheduler: str | None) -> tuple[bool, bool, str | None]:
    """``(serial only, parallel from the first task, scheduler address)`` for checked arguments.

    Serial only: ``n_jobs=1``, or ``n_jobs=None`` inside a task. Parallel from the first task: ``n_jobs``
    or ``scheduler`` given. The address is ``scheduler``, else ``DASK_SCHEDULER_ADDRESS``, else None.
    """
    if n_jobs == 1 or (n_jobs is None and _in_task.get()):
        return True, False, None
    # n_jobs or a scheduler given by the caller: parallel now; otherwise parallel when it looks worth it
    forced = n_jobs is not None or scheduler is not None
    scheduler = scheduler or os.environ.get(SCHEDULER_VARIABLE) or None
    return False, forced, scheduler


def _require_picklable(function: Callable[..., object], caller: str) -> None:
    """Refuse a function that the standard pickle cannot send to another process by reference."""
    try:
        pickle.dumps(function)
    except (pickle.PicklingError, AttributeError, TypeError) as error:
        name = getattr(function, "__qualname__", None) or type(function).__name__
        raise InvalidArgumentError(
            f"{caller}: function {name} cannot be sent to worker processes ({error}); pass a function defined at "
            "module level (or a functools.partial of one), or n_jobs=1"
        ) from error


def _run_task(function: Callable[[T], R], name: str, task: T) -> R:
    """``function(task)``, marked as running inside a task; a PolyReluError comes back named after the task."""
    token = _in_task.set(True)
    try:
        return function(task)
    except PolyReluError as error:
        raise _named(error, name) from error
    finally:
        _in_task.reset(token)


def _named(error: PolyReluError, name: str) -> PolyReluError:
    """A copy of ``error`` (same class and attributes) whose message starts with the task's name."""
    named = copy.copy(error)
    message, *rest = error.args or ("",)
    named.args = (f"{name}: {message}", *rest)
    return named


class _RemoteTraceback(Exception):
    """The traceback of an exception raised in a worker, shown as the cause of the exception re-raised here."""


def _run_remote(function: Callable[[T], R], name: str, task: T) -> tuple[bool, object, str | None]:
    """``(True, result, None)``, or ``(False, exception, its traceback)``: a worker's task, failures returned as values.

    Returned rather than raised so that the caller raises the failure of the
    first task in task order, as a serial run would, not whichever failed first.
    """
    try:
        return True, _run_task(function, name, task), None
    except Exception as error:  # noqa: BLE001  (handed back to the caller, which raises it)
        return False, error, traceback.format_exc()


def _distributed(
    function: Callable[[T], R], tasks: Sequence[T], names: Sequence[str], n_jobs: int | None, scheduler: str | None
) -> Generator[R, None, None]:
    """The results of the tasks in order, computed by loky workers or on a Dask cluster."""
    with ExitStack() as stack:
        if scheduler is not None:
            stack.enter_context(_dask_backend(scheduler))
            workers = -1 if n_jobs is None else n_jobs
        else:
            stack.enter_context(joblib.parallel_config(backend="loky"))
            workers = min(joblib.cpu_count() if n_jobs in (None, -1) else n_jobs, len(tasks))
        outputs = joblib.Parallel(n_jobs=workers, return_as="generator")(
            joblib.delayed(_run_remote)(function, name, task) for name, task in zip(names, tasks)
        )
        try:
            for done, value, trace in outputs:
                if not done:
                    raise value from _RemoteTraceback(trace)
                yield value
        finally:
            # on Ctrl-C or a task's error: abort the remaining tasks and stop the workers now (joblib would
            # warn that tasks were cancelled: that is the point)
            with warnings.catch_warnings():
                warnings.filterwarnings("ignore", "[0-9]+ tasks which were still being processed", UserWarning)
                outputs.close()


@contextmanager
def _dask_backend(address: str) -> Iterator[None]:
    """joblib's ``dask`` backend on a client of the scheduler at ``address``, closed afterwards."""
    try:
        # optional and heavy: only a cluster run needs distributed
        from distributed import Client
        from distributed.comm import parse_address
        from distributed.comm.registry import get_backend
    except ImportError as error:
        raise BackendUnavailableError(
            f"parallel_map: a Dask scheduler was given ({address}) but dask.distributed is not installed; "
            "install it with `pip install 'polyrelu[dask]'`, or unset DASK_SCHEDULER_ADDRESS to run locally"
        ) from error
    problem = None
    try:
        # an unknown scheme is refused here: a client that fails on it cannot be closed, and hangs the exit
        get_backend(parse_address(address)[0])
        client = Client(address, timeout=_CONNECT_SECONDS, set_as_default=False)
    except (OSError, ValueError, TypeError) as error:
        # raised outside this block and not chained: the traceback would keep the half-built client alive
        # until the interpreter exits, where closing it hangs for a minute
        problem = str(error)
    if problem is not None:
        raise UsageError(
            f"parallel_map: cannot reach the Dask scheduler at {address!r} ({problem}); check the address and that "
            "the scheduler is running"
        )
    with client, joblib.parallel_config(backend="dask", client=client):
        yield
