"""The floors of benchmarks/bench_scaling.py's greedy step: what the same threads
take to read the bytes a step reads (the memory-bandwidth floor), to touch as many
fresh bytes as the coding pass writes, and to count with the step's kernel on tables in
their cores' caches (the cores' own limit). Imported by bench_scaling.py.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np


def _read_bytes(P, src, y, last, i0, i1):
    """The sum of every byte a greedy step's thread reads over the rows ``i0 <= i <
    i1``: ``sum_i src[i] + y[i] + last[i] + sum_q P[q, i]`` (``y`` or ``last`` may be
    empty), in chunks of 32,768 rows as :func:`fsel.kernels._numba_counting.
    pair_counts_z` reads them (the chunk's source and target bytes, then each pair's
    segment): the memory traffic of a step with nothing counted."""
    chunk = 1 << 15
    total = np.uint64(0)
    for c0 in range(i0, i1, chunk):
        c1 = min(c0 + chunk, i1)
        s = np.uint64(0)
        for r in range(c0, c1):
            s += src[r]
        if y.size:
            for r in range(c0, c1):
                s += y[r]
        if last.size:
            for r in range(c0, c1):
                s += last[r]
        for q in range(P.shape[0]):
            row = P[q, c0:c1]
            for r in range(c1 - c0):
                s += row[r]
        total += s
    return total


def _touch_pages(a, i0, i1):
    """One write per 4 KiB page of ``a[i0:i1]`` (``a[i] = 1`` for ``i = i0, i0 +
    4096, ...``): the first touch of fresh memory, with nothing else done."""
    for i in range(i0, i1, 4096):
        a[i] = 1


try:  # the floors need numba (so does the step they are the floors of)
    import numba as _numba

    _read_bytes_compiled = _numba.njit(nogil=True, cache=False)(_read_bytes)
    _touch_pages_compiled = _numba.njit(nogil=True, cache=False)(_touch_pages)
except ImportError:  # pragma: no cover - depends on the environment
    _read_bytes_compiled = _touch_pages_compiled = None


def read_floor(table: Any, n_jobs: int, repeats: int = 3) -> dict[str, Any]:
    """The memory-bandwidth floor of a greedy step on ``table`` (an information table
    whose steps ran through :class:`fsel.kernels.pair_step.PairStep`): the least time,
    over ``repeats``, of ``n_jobs`` threads (the step's pool, the step's row split)
    reading the bytes one step reads (:func:`_read_bytes`); empty where the table has
    no such counter or numba is missing."""
    from fsel.kernels.pair_step import _MIN_ROWS_PER_THREAD
    from fsel.utils.parallel import spans, thread_map

    step = getattr(table, "_step", None)
    if step is None or _read_bytes_compiled is None:
        return {}
    P, last = step.P, step.last
    src, y = P[0], table._y_small()
    n = P.shape[1]
    parts = spans(n, min(n_jobs, max(1, n // _MIN_ROWS_PER_THREAD)))
    _read_bytes_compiled(P, src, y, last, 0, min(n, 1000))  # compile outside the timing
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        thread_map(lambda a, b: _read_bytes_compiled(P, src, y, last, a, b), parts, len(parts))
        best = min(best, time.perf_counter() - t0)
    nbytes = P.nbytes + src.nbytes + y.nbytes + last.nbytes
    # the coding pass writes P into fresh memory: the first touch of as many fresh
    # bytes by the same threads (once; a virtual machine's host may map each page)
    fresh = np.empty(P.nbytes, np.uint8)
    _touch_pages_compiled(fresh, 0, min(fresh.size, 1))
    t0 = time.perf_counter()
    thread_map(
        lambda a, b: _touch_pages_compiled(fresh, a, b), spans(fresh.size, len(parts)), len(parts)
    )
    touch_s = time.perf_counter() - t0
    return {
        "read_floor_s": best,
        "read_bytes": int(nbytes),
        "read_gb_s": nbytes / best / 1e9,
        "touch_s": touch_s,
        "touch_bytes": int(P.nbytes),
    }


def count_in_cache(n_jobs: int, pairs: int = 4, passes: int = 1000) -> dict[str, Any]:
    """The step's counting kernel (``pair_counts_z``) with nothing from memory: each
    of ``n_jobs`` threads, all at once, counts ``passes`` times its own table of
    ``pairs`` packed pairs x 32,768 rows (128 KiB, in its core's cache) against a
    20-value ``z``, the step's chunk. Reported: row x feature cells (two features a
    pair) per second per thread, best of 3. Where this rate falls with the threads
    as the step's does, the step's slowdown is the cores' (a lower all-core clock,
    two hardware threads sharing a core), not memory's."""
    from fsel.kernels import _numba_counting as kernels

    rows, a, nz = 1 << 15, 10, 20
    rng = np.random.default_rng(0)
    tables = []
    for _ in range(n_jobs):
        P = rng.integers(0, a * a, size=(pairs, rows)).astype(np.uint8)
        src = rng.integers(0, a * a, size=rows).astype(np.uint8)
        y = rng.integers(0, 2, size=rows).astype(np.uint8)
        zlut = ((np.arange(256) % a) * 2).astype(np.uint8)
        H = np.empty((pairs, a * a * nz), np.int32)
        tables.append((P, src, zlut, y, H))
    empty = np.zeros(0, np.uint8)
    none = np.zeros(0, np.int32)

    def run(t: int) -> None:
        P, src, zlut, y, H = tables[t]
        for _ in range(passes):
            kernels.pair_counts_z(P, src, zlut, y, nz, empty, 0, rows, H, none)

    best = _all_threads_at_once(run, n_jobs)
    cells = 2 * pairs * rows * passes
    return {"cache_count_s": best, "cache_cells_per_s_per_thread": cells / best}


def search_in_cache(n_jobs: int, rows: int = 1024, refs: int = 64, passes: int = 40) -> dict:
    """ReliefF's neighbour search (the streamed Manhattan kernel,
    ``manhattan_knn_stream``) with nothing from memory: each of ``n_jobs`` threads, all
    at once, searches ``passes`` times its own ``rows`` x 100 floats (800 KiB, in its
    core's cache) for the 10 nearest of two classes to ``refs`` references. Reported:
    row x reference distances per second per thread, best of 3. Where this rate falls
    with the threads as ReliefF's fit does, the cores are the limit (a lower all-core
    clock for vector work, hardware threads sharing a core), not the code's split."""
    from fsel.kernels import _numba_distances as kernels
    from fsel.kernels.neighbors import tie_tolerance

    rng = np.random.default_rng(0)
    tables = []
    for _ in range(n_jobs):
        X = rng.normal(size=(rows, 100))
        y = (rng.random(rows) < 0.5).astype(np.intp)
        selfs = np.arange(refs, dtype=np.intp)
        tables.append((np.ascontiguousarray(X[:refs]), selfs, X, y))

    def run(t: int) -> None:
        R, selfs, X, y = tables[t]
        eps = tie_tolerance(X.shape[1])
        for _ in range(passes):
            idx = np.full((refs, 2, 10), -1, dtype=np.intp)
            dist = np.full((refs, 2, 10), np.inf)
            kernels.manhattan_knn_stream(R, selfs, X, y, 10, eps, idx, dist)

    best = _all_threads_at_once(run, n_jobs)
    return {"cache_search_s": best, "cache_distances_per_s_per_thread": rows * refs * passes / best}


def _all_threads_at_once(run: Any, n_jobs: int) -> float:
    """The least seconds, of 3, of ``run(t)`` for ``t < n_jobs`` on ``n_jobs`` threads
    at once (``run(0)`` first, untimed: the kernel compiled or loaded)."""
    from fsel.utils.parallel import thread_map

    run(0)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        thread_map(run, [(t,) for t in range(n_jobs)], n_jobs)
        best = min(best, time.perf_counter() - t0)
    return best
