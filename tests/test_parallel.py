"""The one n_jobs rule, thread pool, numba, sparse and memory-budget checks."""

from __future__ import annotations

import multiprocessing
import os
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsel.utils.parallel import (
    check_memory_budget,
    effective_n_jobs,
    is_sparse,
    numba_available,
    run_threads,
    spans,
    thread_map,
)

CPUS = os.cpu_count() or 1


def test_n_jobs_follows_joblib():
    joblib = pytest.importorskip("joblib")
    assert effective_n_jobs(None) == 1
    assert effective_n_jobs(1) == 1
    assert effective_n_jobs(7) == 7
    assert effective_n_jobs(-1) == CPUS
    assert effective_n_jobs(-2) == max(1, CPUS - 1)
    assert effective_n_jobs(-CPUS - 5) == 1
    with joblib.parallel_config(n_jobs=3):
        assert effective_n_jobs(None) == 3
        assert effective_n_jobs(2) == 2
    for bad in (0, 1.5, True, "2"):
        with pytest.raises(ValueError, match="n_jobs"):
            effective_n_jobs(bad)
    assert effective_n_jobs(np.int64(2)) == 2


def test_memory_budget_check():
    assert check_memory_budget(np.int64(5)) == 5
    with pytest.raises(TypeError, match="memory_budget"):
        check_memory_budget(1.0)
    with pytest.raises(TypeError, match="memory_budget"):
        check_memory_budget(True)
    with pytest.raises(ValueError, match="memory_budget"):
        check_memory_budget(0)


def test_numba_switch(monkeypatch):
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "1")
    assert numba_available() is False
    monkeypatch.setenv("FSEL_DISABLE_NUMBA", "0")
    assert numba_available() is (__import__("importlib").util.find_spec("numba") is not None)


def test_is_sparse():
    sp = pytest.importorskip("scipy.sparse")
    assert is_sparse(sp.csr_matrix(np.eye(2)))
    assert is_sparse(sp.csc_array(np.eye(2)))
    assert not is_sparse(np.eye(2))
    assert not is_sparse([[1.0]])


@given(st.integers(0, 50), st.integers(1, 9))
def test_spans_cover_in_order(n, parts):
    got = spans(n, parts)
    assert [i for a, b in got for i in range(a, b)] == list(range(n))
    assert all(b > a for a, b in got)
    assert len(got) == min(n, parts)


@settings(deadline=None, max_examples=30)
@given(st.integers(0, 40), st.integers(1, 5))
def test_thread_helpers_give_the_loop_result(k, n_jobs):
    assert thread_map(lambda a, b: (a, b), spans(k, n_jobs), n_jobs) == spans(k, n_jobs)
    out = np.zeros(k, dtype=np.int64)

    def fill(o, k0, k1):
        o[k0:k1] = np.arange(k0, k1) ** 2

    run_threads(fill, k, n_jobs, (out,))
    np.testing.assert_array_equal(out, np.arange(k) ** 2)


def test_thread_map_propagates_errors():
    def boom(a, b):
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        thread_map(boom, [(0, 1), (1, 2)], 2)


def test_thread_map_raises_the_first_failed_item_and_starts_no_more():
    started = []

    def fail_odd(i):
        started.append(i)
        if i % 2:
            time.sleep(0.01)
            raise ValueError(f"item {i}")
        time.sleep(0.05)
        return i

    with pytest.raises(ValueError, match="item 1"):
        thread_map(fail_odd, [(i,) for i in range(40)], 2)
    assert len(started) < 40  # stopped taking items after the failure


def _concurrency(n_items, n_threads, pause=0.02):
    """The most items ``thread_map`` ran at once."""
    lock = threading.Lock()
    now, most = [0], [0]

    def work(i):
        with lock:
            now[0] += 1
            most[0] = max(most[0], now[0])
        time.sleep(pause)
        with lock:
            now[0] -= 1
        return i

    assert thread_map(work, [(i,) for i in range(n_items)], n_threads) == list(range(n_items))
    return most[0]


def test_thread_map_never_runs_more_than_n_threads_at_once():
    assert _concurrency(12, 6) > 1  # the pool is now at least 5 threads
    assert _concurrency(12, 2) <= 2  # a smaller request is held to its number
    assert _concurrency(12, 1) == 1


def test_a_nested_thread_map_in_a_busy_pool_finishes(monkeypatch):
    # a pool of one thread, which runs an outer item that calls thread_map itself: the
    # inner call's pool task can never start (the only thread is busy with the outer
    # item), so the inner call must finish its items without waiting for that task
    import fsel.utils.parallel as parallel

    monkeypatch.setattr(parallel, "_POOL", {"pid": None, "executor": None, "size": 0})

    def inner(a):
        return a * a

    def outer(i):
        time.sleep(0.05)  # both threads hold an outer item before either goes inner
        return sum(thread_map(inner, [(a,) for a in range(i, i + 5)], 2))

    out = {}
    caller = threading.Thread(
        target=lambda: out.update(v=thread_map(outer, [(0,), (1,)], 2)), daemon=True
    )
    caller.start()
    caller.join(30)
    assert not caller.is_alive(), "nested thread_map dead-locked"
    assert out["v"] == [30, 55]


def test_nested_and_concurrent_thread_maps_finish():
    # items that call thread_map themselves, on more items than the pool has threads,
    # from several outside threads at once: every call drains its own items
    def square(a):
        time.sleep(0.002)
        return a * a

    def inner(i):
        time.sleep(0.002)
        return sum(thread_map(square, [(a,) for a in range(i, i + 5)], 4))

    expected = [sum(a * a for a in range(i, i + 5)) for i in range(8)]
    outs = {}

    def outer(name):
        outs[name] = thread_map(inner, [(i,) for i in range(8)], 3)

    callers = [threading.Thread(target=outer, args=(n,)) for n in range(4)]
    for c in callers:
        c.start()
    for c in callers:
        c.join(60)
    assert not any(c.is_alive() for c in callers)
    assert outs == {n: expected for n in range(4)}


def _child(queue):
    queue.put(thread_map(lambda a, b: a + b, [(1, 2), (3, 4), (5, 6)], 3))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # fork of a threaded process
def test_pool_survives_a_fork():
    """The thread pool is made again in a forked child (no hang)."""
    assert thread_map(lambda a, b: a * b, [(1, 2), (3, 4)], 2) == [2, 12]
    ctx = multiprocessing.get_context("fork")
    queue = ctx.Queue()
    proc = ctx.Process(target=_child, args=(queue,))
    proc.start()
    try:
        assert queue.get(timeout=60) == [3, 7, 11]
    finally:
        proc.join(60)
    assert proc.exitcode == 0


def test_threaded_row_passes_agree_with_numpy():
    # large enough (> 8 MiB) for two threads to be used
    from fsel.utils.parallel import any_nan, column_min_max, n_threads_for, take_rows

    rng = np.random.default_rng(0)
    X = rng.standard_normal((400_000, 3))
    assert n_threads_for(X.nbytes, 2) == 2
    order = rng.permutation(X.shape[0])
    np.testing.assert_array_equal(take_rows(X, order, 2), X[order])
    lo, hi = column_min_max(X, 2)
    np.testing.assert_array_equal(lo, X.min(axis=0))
    np.testing.assert_array_equal(hi, X.max(axis=0))
    assert not any_nan(X, 2)
    Y = X.copy()
    Y[-1, 2] = np.nan
    assert any_nan(Y, 2)
    assert not any_nan(np.zeros((5, 2), dtype=np.int64), 2)


def test_relieff_setup_threads_do_not_change_margins():
    # a table over the threading threshold: scaling, class-order gather and NaN scans
    # in threads must give the one-thread margins bit for bit
    from fsel import ReliefF

    rng = np.random.default_rng(3)
    X = rng.random((12_000, 100))
    y = (X[:, 0] + X[:, 1] > 1.0).astype(int)
    kw = {"n_neighbors": 5, "sample_size": 10, "random_state": 0}
    one = ReliefF(**kw, n_jobs=1).fit(X, y)
    two = ReliefF(**kw, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(two.margin_, one.margin_)


@pytest.mark.parametrize("case", ["finite", "nan", "inf", "all_nan_column"])
def test_finite_extremes_are_numpy_s_in_blocks_and_threads(case):
    """Row blocks (4 here) in threads: the same finiteness and the same per-column
    fmin/fmax as numpy's whole-array reductions."""
    from fsel.utils.parallel import finite_extremes

    rng = np.random.default_rng(1)
    X = rng.standard_cauchy((100_000, 20))
    if case == "nan":
        X[rng.random(X.shape) < 0.01] = np.nan
    elif case == "inf":
        X[77_777, 3] = -np.inf
    elif case == "all_nan_column":
        X[:, 5] = np.nan
    ok, lo, hi = finite_extremes(X, 4)
    assert ok == bool(np.isfinite(X).all())
    np.testing.assert_array_equal(lo, np.fmin.reduce(X, axis=0))
    np.testing.assert_array_equal(hi, np.fmax.reduce(X, axis=0))
