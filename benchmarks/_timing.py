"""Timing shared by the benchmark scripts (run them from the repository root)."""

import time


def best_of(repeat, fn):
    """``(seconds, value)``: the fastest of ``repeat`` calls of ``fn`` and the last value it returned."""
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        best = min(best, time.perf_counter() - start)
    return best, value


def best_cpu_of(repeat, fn):
    """``(seconds, value)``: the least CPU time of this process over ``repeat`` calls of ``fn``, and the last value."""
    best, value = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        value = fn()
        best = min(best, time.process_time() - start)
    return best, value
