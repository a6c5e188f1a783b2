"""Timing shared by the benchmark scripts (run them from the repository root)."""

import time


def best_of(repeat, fn, clock=time.perf_counter):
    """``(seconds, value)``: the fastest of ``repeat`` calls of ``fn`` by ``clock`` (wall time unless told) and the last value it returned."""
    best, value = float("inf"), None
    for _ in range(repeat):
        start = clock()
        value = fn()
        best = min(best, clock() - start)
    return best, value


def best_cpu_of(repeat, fn):
    """:func:`best_of` in CPU time of this process."""
    return best_of(repeat, fn, time.process_time)
