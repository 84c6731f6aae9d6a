"""The one place that decides threads, numba, sparseness and memory budgets.

Every kernel and selector asks these helpers instead of deciding for itself:

* :func:`effective_n_jobs` - joblib's rule for ``n_jobs``: ``None`` means 1 unless a
  ``joblib.parallel_config(n_jobs=...)`` context says otherwise, ``-1`` means every
  core, a negative ``n`` means ``cpus + 1 + n`` (never fewer than 1), ``0`` is refused.
* :func:`numba_available` - numba can be imported and ``FSEL_DISABLE_NUMBA`` is unset
  or ``0`` (the environment variable is read on every call, the import tried once).
* :func:`run_threads` / :func:`thread_map` - the one thread pool: the compiled kernels
  release the GIL, so threads (not processes) share the code matrix without copies.
* :func:`is_sparse` - a scipy.sparse matrix or array (scipy is never imported here).
* :func:`check_memory_budget` - a positive int of bytes, one error message everywhere.

Nothing here imports scikit-learn, numba or scipy at import time; joblib is imported
only inside :func:`effective_n_jobs`.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from numbers import Integral
from typing import Any

__all__ = [
    "any_nan",
    "check_memory_budget",
    "column_min_max",
    "effective_n_jobs",
    "finite_extremes",
    "is_sparse",
    "n_threads_for",
    "numba_available",
    "run_threads",
    "spans",
    "take_rows",
    "thread_map",
]


def effective_n_jobs(n_jobs: Any = None) -> int:
    """Threads to use for ``n_jobs``, by joblib's rule.

    ``None`` gives 1, or the ``n_jobs`` of an enclosing ``joblib.parallel_config``
    context; ``-1`` gives every core; a negative ``n`` gives ``cpus + 1 + n`` (at least
    1); a positive ``n`` gives ``n``. ``0``, booleans and non-integers are refused.

    Examples
    --------
    >>> effective_n_jobs(3)
    3
    >>> effective_n_jobs(None)
    1
    >>> effective_n_jobs(-1) == (os.cpu_count() or 1)
    True
    """
    if n_jobs is not None and (
        isinstance(n_jobs, bool) or not isinstance(n_jobs, Integral) or n_jobs == 0
    ):
        raise ValueError(f"n_jobs must be a non-zero int or None, got {n_jobs!r}")
    if n_jobs is not None and n_jobs > 0:
        return int(n_jobs)
    from joblib import effective_n_jobs as _joblib_effective_n_jobs

    return max(1, int(_joblib_effective_n_jobs(None if n_jobs is None else int(n_jobs))))


def numba_available() -> bool:
    """True when numba can be imported and ``FSEL_DISABLE_NUMBA`` is unset or ``0``.

    Examples
    --------
    >>> isinstance(numba_available(), bool)
    True
    """
    if os.environ.get("FSEL_DISABLE_NUMBA", "").strip() not in ("", "0"):
        return False
    return _numba_importable()


@lru_cache(maxsize=1)
def _numba_importable() -> bool:
    try:
        import numba  # noqa: F401
    except ImportError:  # pragma: no cover - depends on the environment
        return False
    return True


def is_sparse(X: Any) -> bool:
    """Whether ``X`` is a scipy.sparse matrix or array (scipy is looked up only if it
    is already loaded: nothing sparse can exist otherwise).

    Examples
    --------
    >>> import numpy as np
    >>> is_sparse(np.eye(2))
    False
    """
    sp = sys.modules.get("scipy.sparse")
    return sp is not None and bool(sp.issparse(X))


def check_memory_budget(memory_budget: Any, name: str = "memory_budget") -> int:
    """``memory_budget`` as an int of bytes; ``TypeError`` for a non-integer (booleans
    included), ``ValueError`` for zero or a negative number.

    Examples
    --------
    >>> check_memory_budget(2**20)
    1048576
    """
    if isinstance(memory_budget, bool) or not isinstance(memory_budget, Integral):
        raise TypeError(f"{name} must be an int (bytes), got {memory_budget!r}")
    if memory_budget <= 0:
        raise ValueError(f"{name} must be a positive number of bytes, got {memory_budget}")
    return int(memory_budget)


def spans(n: int, parts: int) -> list[tuple[int, int]]:
    """``0..n`` cut into at most ``parts`` contiguous, nearly equal, non-empty spans.

    Examples
    --------
    >>> spans(10, 3)
    [(0, 3), (3, 6), (6, 10)]
    >>> spans(2, 4)
    [(0, 1), (1, 2)]
    """
    parts = max(1, min(int(parts), int(n)))
    if n <= 0:
        return []
    bounds = [n * i // parts for i in range(parts + 1)]
    return [(bounds[i], bounds[i + 1]) for i in range(parts)]


def thread_map(fn: Callable[..., Any], items: Sequence[Any], n_threads: int) -> list[Any]:
    """``[fn(*item) for item in items]`` in up to ``n_threads`` threads, results in
    item order (one thread or one item: a plain loop). Exceptions propagate.

    The calling thread takes items too, with at most ``n_threads - 1`` threads of a
    pool that lives as long as the process (made again in a forked child), so a call
    starts no thread once the pool is large enough. The threads take the items in
    turn (a thread slowed by other work on its core takes fewer). A call never waits
    for a pool thread that has not started on its items: the calling thread finishes
    them itself, so calls from inside ``fn`` (nested) cannot dead-lock, and calls from
    several threads at once share the pool. After an error no new item is started;
    the error of the first failed item is raised once the started ones are done.

    Examples
    --------
    >>> thread_map(lambda a, b: b - a, [(0, 3), (3, 5)], 2)
    [3, 2]
    """
    items = list(items)
    n = min(int(n_threads), len(items))
    if n <= 1:
        return [fn(*item) for item in items]
    results: list[Any] = [None] * len(items)
    errors: dict[int, BaseException] = {}
    lock = threading.Lock()
    state = {"next": 0, "failed": False}

    def runner() -> None:
        while True:
            with lock:
                i = state["next"]
                if i >= len(items) or state["failed"]:
                    return
                state["next"] = i + 1
            try:
                results[i] = fn(*items[i])
            except BaseException as exc:  # re-raised in the caller below
                with lock:
                    errors[i] = exc
                    state["failed"] = True
                return

    pool = _pool(n - 1)
    futures = []
    for _ in range(n - 1):
        try:
            futures.append(pool.submit(runner))
        except RuntimeError:  # the pool was replaced by a larger one meanwhile
            break
    runner()
    for f in futures:
        if not f.cancel():  # started: wait for its item(s); not started: never will
            f.result()
    if errors:
        raise errors[min(errors)]
    return results


_POOL_LOCK = threading.Lock()
_POOL: dict[str, Any] = {"pid": None, "executor": None, "size": 0}


def _pool(size: int) -> Any:
    """The process's thread pool, with at least ``size`` threads (a larger one replaces
    it; a forked child makes its own: the parent's threads do not exist there)."""
    from concurrent.futures import ThreadPoolExecutor

    pid = os.getpid()
    with _POOL_LOCK:
        if _POOL["pid"] != pid:
            _POOL.update(pid=pid, executor=None, size=0)
        if _POOL["size"] < size:
            old = _POOL["executor"]
            _POOL.update(
                executor=ThreadPoolExecutor(max_workers=size, thread_name_prefix="fsel"),
                size=size,
            )
            if old is not None:
                old.shutdown(wait=False)  # its threads end once idle
        return _POOL["executor"]


def run_threads(kernel: Callable[..., Any], k: int, n_jobs: int, args: tuple) -> None:
    """Run ``kernel(*args, k0, k1)`` over the blocks ``[k0, k1)`` of ``0..k-1``, in
    ``n_jobs`` threads when there are at least two items per thread (the compiled
    kernels release the GIL and write disjoint outputs).

    Examples
    --------
    >>> out = [0] * 6
    >>> def fill(out, k0, k1):
    ...     for i in range(k0, k1):
    ...         out[i] = i * i
    >>> run_threads(fill, 6, 2, (out,))
    >>> out
    [0, 1, 4, 9, 16, 25]
    """
    if n_jobs <= 1 or k < 2 * n_jobs:
        kernel(*args, 0, k)
        return
    thread_map(lambda a, b: kernel(*args, a, b), spans(k, n_jobs), n_jobs)


def take_rows(Z: Any, order: Any, n_jobs: int) -> Any:
    """``Z[order]`` for a 2-D ndarray, the rows gathered in ``n_jobs`` threads (row
    blocks of the result; numpy's indexing releases the GIL): the same array as the
    one-thread ``Z[order]``. Other inputs (sparse matrices): ``Z[order]``.

    Examples
    --------
    >>> import numpy as np
    >>> take_rows(np.arange(6).reshape(3, 2), np.array([2, 0, 1]), 2).tolist()
    [[4, 5], [0, 1], [2, 3]]
    """
    import numpy as np

    if not isinstance(Z, np.ndarray) or Z.ndim != 2 or n_threads_for(Z.nbytes, n_jobs) <= 1:
        return Z[order]
    order = np.asarray(order)
    out = np.empty((order.size, Z.shape[1]), dtype=Z.dtype)

    def gather(a: int, b: int) -> None:
        np.take(Z, order[a:b], axis=0, out=out[a:b], mode="clip")  # valid indices

    thread_map(gather, spans(order.size, 4 * n_jobs), n_jobs)
    return out


def n_threads_for(nbytes: int, n_jobs: int, per_thread: int = 1 << 22) -> int:
    """Threads worth starting for a pass over ``nbytes`` bytes: ``n_jobs``, fewer
    when each thread would get under ``per_thread`` bytes (4 MiB).

    Examples
    --------
    >>> n_threads_for(1 << 30, 16), n_threads_for(1 << 10, 16)
    (16, 1)
    """
    return max(1, min(int(n_jobs), int(nbytes) // per_thread))


def any_nan(values: Any, n_jobs: int) -> bool:
    """``bool(np.isnan(values).any())`` for a 2-D ndarray, row blocks in ``n_jobs``
    threads and no full-size mask (numpy's ufuncs release the GIL).

    Examples
    --------
    >>> import numpy as np
    >>> any_nan(np.array([[0.0, 1.0], [np.nan, 2.0]]), 2), any_nan(np.zeros((3, 2)), 2)
    (True, False)
    """
    import numpy as np

    values = np.asarray(values)
    if values.ndim != 2 or values.dtype.kind not in "fc":
        return bool(np.isnan(values).any()) if values.dtype.kind in "fc" else False
    rows = max(1, (1 << 22) // max(values.itemsize * values.shape[1], 1))
    blocks = [(a, min(a + rows, values.shape[0])) for a in range(0, values.shape[0], rows)]

    def check(a: int, b: int) -> bool:
        return bool(np.isnan(values[a:b]).any())

    return any(thread_map(check, blocks, n_threads_for(values.nbytes, n_jobs)))


def column_min_max(values: Any, n_jobs: int) -> tuple[Any, Any]:
    """``(values.min(axis=0), values.max(axis=0))`` of a 2-D ndarray, row blocks in
    ``n_jobs`` threads, then the extremes of the blocks' extremes: the same numbers
    (a minimum does not depend on the order it is taken in; only the sign of a zero
    extreme may differ when both ``0.0`` and ``-0.0`` occur).

    Examples
    --------
    >>> import numpy as np
    >>> lo, hi = column_min_max(np.array([[3.0, -1.0], [1.0, 5.0], [2.0, 0.0]]), 2)
    >>> lo.tolist(), hi.tolist()
    ([1.0, -1.0], [3.0, 5.0])
    """
    import numpy as np

    threads = n_threads_for(values.nbytes, n_jobs)
    if threads <= 1 or values.ndim != 2 or values.shape[0] < 2:
        return values.min(axis=0), values.max(axis=0)
    parts = spans(values.shape[0], 4 * threads)
    pairs = thread_map(
        lambda a, b: (values[a:b].min(axis=0), values[a:b].max(axis=0)), parts, threads
    )
    return np.min([p[0] for p in pairs], axis=0), np.max([p[1] for p in pairs], axis=0)


def finite_extremes(values: Any, n_jobs: int) -> tuple[bool, Any, Any]:
    """Whether every value of a 2-D float ndarray is finite, and each column's
    smallest and largest value not NaN (``np.fmin``/``np.fmax`` along the rows; NaN
    where a column is all NaN): one pass of row blocks in ``n_jobs`` threads, no
    full-size mask. The same extremes as the one-thread reductions (the sign of a zero
    extreme aside).

    Examples
    --------
    >>> import numpy as np
    >>> ok, lo, hi = finite_extremes(np.array([[3.0, np.nan], [1.0, 5.0], [2.0, 0.0]]), 2)
    >>> ok, lo.tolist(), hi.tolist()
    (False, [1.0, 0.0], [3.0, 5.0])
    """
    import numpy as np

    rows = max(1, (1 << 22) // max(values.itemsize * values.shape[1], 1))
    blocks = [(a, min(a + rows, values.shape[0])) for a in range(0, values.shape[0], rows)]

    def scan(a: int, b: int) -> tuple[bool, Any, Any]:
        block = values[a:b]
        return bool(np.isfinite(block).all()), np.fmin.reduce(block), np.fmax.reduce(block)

    parts = thread_map(scan, blocks, n_threads_for(values.nbytes, n_jobs))
    lo = np.fmin.reduce([p[1] for p in parts])
    hi = np.fmax.reduce([p[2] for p in parts])
    return all(p[0] for p in parts), lo, hi
