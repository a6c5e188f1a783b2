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
