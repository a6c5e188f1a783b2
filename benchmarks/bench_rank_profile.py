"""Benchmark: ``polyrelu.geometry.modular.modular_rank_profile`` against its previous implementation.

Run from the repository root::

    PYTHONPATH=. .venv/bin/python benchmarks/bench_rank_profile.py            # about 10 s
    PYTHONPATH=. .venv/bin/python benchmarks/bench_rank_profile.py --repeat 15

Arrays, all modulo p = 1048573 (the prime of ``polyrelu.identifiability``):

* the two arrays ``functional_dimension`` hands to ``modular_rank_profile`` for
  ``ReLUNetwork.random((2, 32, 32, 1), seed=0, kind="gaussian")`` on R^2 (captured in this
  process: the transposed kernel residues, 1185 x 278, rank 263 and 99 % zeros; then the
  930 x 922 residues, of full column rank);
* a random 1000 x 1000 array of residues (full rank).

For each, the CPU time (``time.process_time``) of BASELINE (the implementation before the lazy
reductions, copied below as ``baseline_rank_profile``: a blocked LU with 32-column blocks, every
update reduced at once) and of the current ``modular_rank_profile``, best of ``--repeat`` (5)
calls each, alternated; and the ratio. The two must give the same rank and columns and a
non-singular minor (checked with flint; exit status 1 otherwise).
"""

import argparse
import sys

import flint
import numpy as np
from _timing import best_cpu_of

from polyrelu import ReLUNetwork, canonical_complex
from polyrelu.geometry import modular
from polyrelu.identifiability import dimension
from polyrelu.parallel import one_blas_thread

P = 1048573


# -- BASELINE: modular_rank_profile as it was, kept verbatim (float64 path only) -----------------------
BASELINE_BLOCK = 32


def baseline_centered(x, p):
    quotient = x * (1.0 / p)
    np.rint(quotient, out=quotient)
    quotient *= p
    x -= quotient


def baseline_rank_profile(residues, p):
    A = (np.asarray(residues, dtype=np.int64) % p).astype(np.float64)
    with one_blas_thread():
        return baseline_float_profile(A, p)


def baseline_float_profile(A, p):
    m, n = A.shape
    order = np.arange(m)
    columns = []
    r = 0
    for j0 in range(0, n, BASELINE_BLOCK):
        if r == m:
            break
        j1 = min(j0 + BASELINE_BLOCK, n)
        first, pivots = r, []
        for j in range(j0, j1):
            nonzero = np.flatnonzero(A[r:, j])
            if not nonzero.size:
                continue
            i = r + int(nonzero[0])
            if i != r:
                A[[r, i]] = A[[i, r]]
                order[[r, i]] = order[[i, r]]
            below = A[r + 1 :, j]
            below *= pow(int(A[r, j]) % p, -1, p)
            baseline_centered(below, p)
            if j + 1 < j1:
                rest = A[r + 1 :, j + 1 : j1]
                rest -= np.outer(below, A[r, j + 1 : j1])
                baseline_centered(rest, p)
            columns.append(j)
            pivots.append(j)
            r += 1
            if r == m:
                break
        k = len(pivots)
        if k and j1 < n:
            upper = A[first : first + k, j1:]
            for t in range(1, k):
                upper[t] -= A[first + t, pivots[:t]] @ upper[:t]
                baseline_centered(upper[t], p)
            if first + k < m:
                trailing = A[first + k :, j1:]
                trailing -= A[first + k :, pivots] @ upper
                baseline_centered(trailing, p)
    return modular.RankProfile(r, order[:r].tolist(), columns)


# -- the arrays ---------------------------------------------------------------------------------------
def functional_dimension_arrays():
    """The arrays functional_dimension gives modular_rank_profile for the 2-32-32-1 network, in order."""
    net = ReLUNetwork.random((2, 32, 32, 1), seed=0, kind="gaussian")
    complex_ = canonical_complex(net)
    seen = []

    def spy(residues, p):
        seen.append((np.array(residues), p))
        return modular.modular_rank_profile(residues, p)

    dimension.modular_rank_profile = spy
    try:
        dimension.functional_dimension(net, complex_=complex_, n_jobs=1)
    finally:
        dimension.modular_rank_profile = modular.modular_rank_profile
    assert all(p == P for _, p in seen), "functional_dimension changed its prime"
    return [a for a, _ in seen]


def same_answer(A, new, old):
    if (new.rank, new.columns) != (old.rank, old.columns):
        return False
    if not new.rank:
        return True
    minor = np.mod(np.asarray(A, dtype=np.int64)[np.ix_(new.rows, new.columns)], P)  # the sketch comes as float64
    return flint.nmod_mat(minor.tolist(), P).rank() == new.rank


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="calls per timing (best of), default 5")
    args = parser.parse_args(argv)
    arrays = functional_dimension_arrays()
    names = [f"functional_dimension {a.shape[0]} x {a.shape[1]}" for a in arrays]
    arrays.append(np.random.default_rng(0).integers(0, P, (1000, 1000)))
    names.append("random 1000 x 1000")
    print(f"modular_rank_profile modulo {P}: CPU seconds, best of {args.repeat}")
    print(f"{'array':<36} {'rank':>6} {'baseline':>10} {'new':>10} {'ratio':>7}")
    ok = True
    for name, A in zip(names, arrays):
        old_times, new_times = [], []
        for _ in range(args.repeat):  # alternated, so that a busy machine slows both alike
            old_time, old = best_cpu_of(1, lambda: baseline_rank_profile(A, P))
            new_time, new = best_cpu_of(1, lambda: modular.modular_rank_profile(A, P))
            old_times.append(old_time)
            new_times.append(new_time)
        agree = same_answer(A, new, old)
        ok &= agree
        old_best, new_best = min(old_times), min(new_times)
        print(
            f"{name:<36} {new.rank:>6} {old_best:>10.4f} {new_best:>10.4f} {old_best / new_best:>6.2f}x"
            + ("" if agree else "  DIFFERENT ANSWERS")
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
