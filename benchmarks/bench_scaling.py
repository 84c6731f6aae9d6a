"""Benchmark: how fsel scales with the cores of one machine (threads; Dask workers).

In memory, in this process, for ``n_jobs`` = 1, 2, 4, ... up to the machine's cores
(``--max-threads``):

* **JMI** -- ``JMI(20, discretize=None, n_jobs=t)`` on ``--rows`` x 100 ``uint8`` codes
  of 10 levels and a binary target, the table of :func:`bench_dask.make_chunk` (5
  informative columns, 10 noisy copies, the rest noise). Reported: the set-up (input
  validation, coding, relevance counts: everything before the first greedy step), the
  median greedy step, the whole fit, the speed-ups over one thread, and the step's
  throughput in row x feature cells per second per thread (each step counts every
  feature against the last pick). The selections must be identical for every ``t``.
  Next to the step, its memory-bandwidth floor: the time ``t`` threads take to read
  (sum, nothing counted) the bytes one step reads -- the packed pairs, the source
  row of the newest pick, the target codes and an odd last feature -- split by rows
  and in chunks as the step splits them (best of 3); ``step / read floor`` near 1
  says the step is bound by the machine's memory bandwidth, well above 1 by the
  counting. And next to the set-up's coding pass, the first touch of as many fresh
  bytes as the packed pairs it writes (one write per page, the same threads): on a
  virtual machine whose host maps every fresh page, that alone can be most of it.
* **ReliefF** -- ``ReliefF(n_neighbors=10, sample_size=1000, random_state=0,
  n_jobs=t)`` on ``--relief-rows`` x 100 standard-normal floats with a binary target:
  the whole fit (neighbour lists and margins of 1,000 reference rows) and its speed-up.
  The feature weights must be identical for every ``t``.
* **Sparse JMI** -- ``JMI(10, discretize=None, n_jobs=t)`` on a scipy.sparse table of
  ``--sparse-rows`` x 2,000 with 1% of its cells stored: the whole fit, its speed-up,
  identical picks (``--sparse-rows 0`` skips it).
* **CMI** -- ``CMI(4, discretize=None, n_jobs=t)`` on ``--cmi-rows`` rows of the JMI
  table: each step conditions on the joint of every pick so far (its codes made in
  threads, then counted); the whole fit, its speed-up, identical picks
  (``--cmi-rows 0`` skips it).
* **CMIM** -- ``CMIM(20, discretize=None, n_jobs=t)`` on ``--cmim-rows`` rows of the
  JMI table: Fleuret's lazy search, each term's rows split among the threads; the
  whole fit, its speed-up, identical picks (``--cmim-rows 0`` skips it).
* **Floats** -- ``JMI(10, n_jobs=t)`` with the default binning on ``--float-rows`` x
  100 heavy-tailed float64 columns: the quantile edges, the binning and the coding
  run in threads too; the whole fit, its speed-up, identical picks (``--float-rows
  0`` skips it).
* **Dask** (``--dask``, optional; needs ``dask.distributed``) -- the same JMI on a local
  cluster of 1, 2, 4, ... single-threaded worker processes, the table in row chunks
  persisted on the workers first: the whole fit.

Every configuration is timed after a warm-up fit (no compilation in the timings), best
of ``--repeats``. Run ``python benchmarks/bench_scaling.py --rows 20000000`` on a large
machine (under 3 minutes on 16 cores; ``--threads 1,4,16 --skip-relief`` for a
shorter run); ``--rows 2000000 --max-threads 2`` on a small one. Writes
``benchmarks/results/scaling.{json,md}`` (committed code only), naming the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import _provenance  # noqa: E402  (this checkout's fsel)
import numpy as np  # noqa: E402
from _scaling_floors import _read_bytes_compiled, count_in_cache, read_floor  # noqa: E402
from _scaling_parts import _timed_fit, bench_relieff, fit_scaling  # noqa: E402
from _scaling_report import N_FEATURES, _markdown, _ms  # noqa: E402
from bench_dask import make_chunk  # noqa: E402
from bench_memory import machine  # noqa: E402

K = 20


def thread_counts(max_threads: int) -> list[int]:
    """1, 2, 4, ... up to ``max_threads`` (which is always included).

    Examples
    --------
    >>> thread_counts(6)
    [1, 2, 4, 6]
    """
    out = [1]
    while out[-1] * 2 < max_threads:
        out.append(out[-1] * 2)
    if max_threads > 1:
        out.append(max_threads)
    return out


def topology() -> dict[str, Any]:
    """Sockets, physical cores and hardware threads per core (``/proc/cpuinfo``): a
    machine whose "cores" are hyper-threads scales a counting kernel less than its
    ``os.cpu_count`` suggests."""
    seen: set[tuple[str, str]] = set()
    cur: dict[str, str] = {}
    try:
        with open("/proc/cpuinfo") as f:
            for line in [*f, "\n"]:
                if not line.strip():
                    if "core id" in cur:
                        seen.add((cur.get("physical id", "0"), cur["core id"]))
                    cur = {}
                elif ":" in line:
                    key, _, val = line.partition(":")
                    cur[key.strip()] = val.strip()
    except OSError:
        return {}
    logical = os.cpu_count() or 1
    physical = len(seen) or None
    return {
        "logical_cpus": logical,
        "physical_cores": physical,
        "sockets": len({s for s, _ in seen}) or None,
        "threads_per_core": (logical // physical) if physical else None,
    }


def _timed_jmi(X: np.ndarray, y: np.ndarray, n_jobs: int, floor: bool = False) -> dict[str, Any]:
    """One JMI fit with every phase of its set-up and each step's end recorded: the
    validation of X and y, the coding of X, the table's preparation (labels, n log n
    table) and its relevance pass (which packs the feature pairs); per step, the
    threads' counting and the sums of their histograms (``PairStep.seconds``); with
    ``floor``, the step's memory-bandwidth floor on the fitted table
    (:func:`read_floor`)."""
    import fsel.selectors.information._fit as fit_module
    from fsel import JMI

    # the coding pass: integer input straight to packed pairs (_packed_codes), or, where
    # that path does not apply, the general coding (_discretize) after it

    marks: dict[str, Any] = {}
    original = fit_module.greedy_select

    def recorded(*args: Any, progress: Any = None, **kwargs: Any) -> Any:
        marks["setup_end"] = time.perf_counter()
        steps = marks.setdefault("steps", [])

        def step() -> None:
            steps.append(time.perf_counter())
            if progress is not None:
                progress()

        return original(*args, progress=step, **kwargs)

    original_table = fit_module.InformationTable
    original_code = fit_module._discretize
    original_validate = fit_module.InformationSelector._validate_fit_data

    class TimedTable(original_table):  # type: ignore[misc,valid-type]
        """The table, its construction and relevance pass timed (set-up breakdown)."""

        def __init__(self, *args: Any, **kwargs: Any) -> None:
            marks["table_start"] = time.perf_counter()
            marks["table"] = self
            super().__init__(*args, **kwargs)
            marks["table_end"] = time.perf_counter()

        def _init_relevance(self) -> None:
            marks["relevance_start"] = time.perf_counter()
            super()._init_relevance()
            marks["relevance_end"] = time.perf_counter()

    def timed_code(*args: Any, **kwargs: Any) -> Any:
        marks["code_start"] = time.perf_counter()
        try:
            return original_code(*args, **kwargs)
        finally:
            marks["code_end"] = time.perf_counter()

    def timed_validate(self: Any, *args: Any, **kwargs: Any) -> Any:
        marks["validate_start"] = time.perf_counter()
        try:
            return original_validate(self, *args, **kwargs)
        finally:
            marks["validate_end"] = time.perf_counter()

    original_packed = fit_module.InformationSelector._packed_codes

    def timed_packed(self: Any, *args: Any, **kwargs: Any) -> Any:
        marks["code_start"] = time.perf_counter()
        try:
            return original_packed(self, *args, **kwargs)
        finally:
            marks["code_end"] = time.perf_counter()

    fit_module.greedy_select = recorded
    fit_module.InformationTable = TimedTable
    fit_module._discretize = timed_code
    fit_module.InformationSelector._validate_fit_data = timed_validate
    fit_module.InformationSelector._packed_codes = timed_packed
    try:
        t0 = time.perf_counter()
        est = JMI(K, discretize=None, n_jobs=n_jobs).fit(X, y)
        t1 = time.perf_counter()
    finally:
        fit_module.greedy_select = original
        fit_module.InformationTable = original_table
        fit_module._discretize = original_code
        fit_module.InformationSelector._validate_fit_data = original_validate
        fit_module.InformationSelector._packed_codes = original_packed
    ends = [marks["setup_end"], *marks["steps"]]
    # the first step is the relevance pick (no counting); the others count all features
    steps = np.diff(ends)[1:] if len(ends) > 2 else np.diff(ends)
    breakdown = {}
    if "relevance_end" in marks and "code_end" in marks:
        breakdown = {
            "validate_s": marks["validate_end"] - t0,
            "code_s": marks["code_end"] - marks["code_start"],
            "between_s": marks["table_start"] - marks["code_end"],
            "table_prep_s": marks["relevance_start"] - marks["table_start"],
            "relevance_s": marks["relevance_end"] - marks["relevance_start"],
            "to_first_step_s": marks["setup_end"] - marks["relevance_end"],
        }
    step_parts = {}
    counter = getattr(marks.get("table"), "_step", None)
    if counter is not None and counter.seconds["calls"]:
        calls = counter.seconds["calls"]
        count_s = counter.seconds["count_s"] / calls
        sums_s = counter.seconds["sums_s"] / calls
        step_parts = {
            "count_s": count_s,
            "sums_s": sums_s,
            "rest_s": float(np.mean(steps)) - count_s - sums_s,
        }
    bandwidth = read_floor(marks.get("table"), n_jobs) if floor else {}
    return {
        **bandwidth,
        "setup_breakdown": breakdown,
        "step_breakdown": step_parts,
        "setup_s": marks["setup_end"] - t0,
        "step_s": float(statistics.median(steps)),
        "fit_s": t1 - t0,
        "selection": [int(j) for j in est.selection_order_],
    }


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The fastest fit, each time and each phase the least over the runs (a shared
    machine's interruptions only ever add time)."""
    best = min(runs, key=lambda r: r["fit_s"])
    out = {
        **best,
        "setup_s": min(r["setup_s"] for r in runs),
        "step_s": min(r["step_s"] for r in runs),
    }
    for key in ("setup_breakdown", "step_breakdown"):
        if all(r.get(key) for r in runs):
            out[key] = {name: min(r[key][name] for r in runs) for name in best[key]}
    for r in runs:  # the floor is measured on one run only
        for key in ("read_floor_s", "read_bytes", "read_gb_s", "touch_s", "touch_bytes"):
            if key in r:
                out[key] = r[key]
    return out


def karp_flatt(t1: float, tp: float, p: int) -> float:
    """The serial fraction ``e`` that Amdahl's law gives a phase timed ``t1`` on one
    thread and ``tp`` on ``p`` (the Karp-Flatt metric: ``tp = t1 (e + (1 - e) / p)``),
    clipped to ``[0, 1]``.

    Examples
    --------
    >>> round(karp_flatt(10.0, 5.5, 2), 3)  # 10% serial
    0.1
    """
    if p <= 1 or t1 <= 0:
        return float("nan")
    e = (tp / t1 - 1.0 / p) / (1.0 - 1.0 / p)
    return min(1.0, max(0.0, e))


def projection(out: list[dict[str, Any]], target: int = 16) -> dict[str, Any]:
    """Amdahl's projection to ``target`` threads of every phase, from its serial
    fraction measured between one thread and the most threads run (a projection,
    not a measurement: it ignores memory bandwidth and hyper-threads sharing a core)."""
    one, top = out[0], out[-1]
    p = top["threads"]
    if p <= 1:
        return {}
    phases = {"setup_s": (one["setup_s"], top["setup_s"]), "step_s": (one["step_s"], top["step_s"])}
    for key in ("setup_breakdown", "step_breakdown"):
        for name, v in (one.get(key) or {}).items():
            if name in (top.get(key) or {}):
                phases[f"{key.split('_')[0]}.{name}"] = (v, top[key][name])
    res = {}
    for name, (t1, tp) in phases.items():
        e = karp_flatt(t1, tp, p)
        res[name] = {
            "t1_s": t1,
            f"t{p}_s": tp,
            "serial_fraction": e,
            f"projected_t{target}_s": t1 * (e + (1 - e) / target) if e == e else None,
        }
    setup = res["setup_s"][f"projected_t{target}_s"]
    step = res["step_s"][f"projected_t{target}_s"]
    return {
        "measured_threads": p,
        "target_threads": target,
        "phases": res,
        f"projected_fit_t{target}_s": setup + (K - 1) * step,
    }


def bench_jmi(rows: int, threads: list[int], repeats: int) -> list[dict[str, Any]]:
    X, y8 = make_chunk(0, rows)
    y = y8.astype(np.int64)
    _timed_jmi(X[:20000], y[:20000], 2)  # compile / load every kernel
    _timed_jmi(X[:20000], y[:20000], 1)
    # one full-size fit first: a process's first touch of fresh memory (the code
    # matrix) can cost far more than the fit (a virtual machine's host maps its pages);
    # later fits reuse freed pages, so the first timed thread count is not penalised
    cold = _timed_jmi(X, y, threads[-1])
    print(f"JMI cold first fit ({threads[-1]} threads): {cold['fit_s']:.2f} s", flush=True)
    out = []
    for t in threads:
        r = _best([_timed_jmi(X, y, t, floor=i == 0) for i in range(repeats)])
        r["threads"] = t
        if "read_floor_s" in r and _read_bytes_compiled is not None:
            r.update(count_in_cache(t))
        out.append(r)
        print(
            f"JMI {rows:,} x {N_FEATURES}, {t:>2} threads: set-up {r['setup_s']:.2f} s, "
            f"step {r['step_s']:.3f} s, fit {r['fit_s']:.2f} s",
            flush=True,
        )
        if "read_floor_s" in r:
            print(
                f"    read floor {r['read_floor_s']:.3f} s ({r['read_gb_s']:.1f} GB/s): "
                f"step / read floor {r['step_s'] / r['read_floor_s']:.2f}; first touch of "
                f"{r['touch_bytes'] / 1e9:.2f} GB of fresh memory {r['touch_s']:.3f} s",
                flush=True,
            )
        if "cache_cells_per_s_per_thread" in r:
            rate = r["cache_cells_per_s_per_thread"]
            print(f"    counting in cache: {rate:.3g} cells/s per thread", flush=True)
        for key, what in (("setup_breakdown", "set-up"), ("step_breakdown", "mean step")):
            parts = r.get(key) or {}
            if parts:
                text = ", ".join(f"{name[:-2]} {v:.3f}" for name, v in parts.items())
                print(f"    {what} breakdown (s, fastest fit): {text}", flush=True)
    base = out[0]
    for r in out:
        r["fit_speedup"] = base["fit_s"] / r["fit_s"]
        r["step_speedup"] = base["step_s"] / r["step_s"]
        r["setup_speedup"] = base["setup_s"] / r["setup_s"]
        r["cells_per_s_per_thread"] = rows * N_FEATURES / r["step_s"] / r["threads"]
        r["same_selection"] = r["selection"] == base["selection"]
        if "read_floor_s" in r:
            r["step_over_floor"] = r["step_s"] / r["read_floor_s"]
        if "cache_cells_per_s_per_thread" in r and "cache_cells_per_s_per_thread" in base:
            one = base["cache_cells_per_s_per_thread"]
            r["cache_count_scaling"] = r["threads"] * r["cache_cells_per_s_per_thread"] / one
    out[0]["cold_first_fit_s"] = cold["fit_s"]
    return out


def bench_codes(name: str, k: int, rows: int, threads: list[int], repeats: int) -> list[dict]:
    """``name(k, discretize=None, n_jobs=t)`` on the JMI table (:func:`bench_dask.
    make_chunk`, ``rows`` x 100 codes): CMI (each step conditions on the joint of all
    picks, made in threads, then counted: its histograms grow with each pick) and
    CMIM (the lazy search: each term's rows split among the threads)."""
    import fsel

    cls = getattr(fsel, name)
    X, y8 = make_chunk(0, rows)
    y = y8.astype(np.int64)
    cls(3, discretize=None).fit(X[:20000], y[:20000])  # compile / load the kernels

    def fit(t: int) -> tuple[float, np.ndarray]:
        return _timed_fit(cls(k, discretize=None, n_jobs=t), X, y, "selection_order_")

    return fit_scaling(f"{name}({k}) {rows:,} x {N_FEATURES}", fit, threads, repeats)


def bench_floats(rows: int, threads: list[int], repeats: int) -> list[dict[str, Any]]:
    """``JMI(10, n_jobs=t)`` with the default binning on ``rows`` x 100 float64 columns
    (heavy-tailed: Student t with 2 degrees of freedom; a binary target from three of
    them): the quantile edges, the binning and the coding in threads, then the steps."""
    from fsel import JMI

    rng = np.random.default_rng(0)
    X = rng.standard_t(2, size=(rows, N_FEATURES))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=rows) > 0).astype(np.int64)
    JMI(3).fit(X[:20000], y[:20000])  # compile / load the kernels

    def fit(t: int) -> tuple[float, np.ndarray]:
        return _timed_fit(JMI(10, n_jobs=t), X, y, "selection_order_")

    return fit_scaling(f"JMI(10) on floats {rows:,} x {N_FEATURES}", fit, threads, repeats)


#: columns of the sparse table of :func:`bench_sparse`, and its share of stored entries
SPARSE_FEATURES = 2000
SPARSE_DENSITY = 0.01


def bench_sparse(rows: int, threads: list[int], repeats: int) -> list[dict[str, Any]]:
    """``JMI(10, discretize=None, n_jobs=t)`` on a scipy.sparse CSC table of ``rows`` x
    :data:`SPARSE_FEATURES` with :data:`SPARSE_DENSITY` of its cells stored (values 1
    to 3), a binary target that feature 0's presence shifts: the whole fit (coding
    every column's stored values, the counts from the non-zeros) and its speed-up; the
    picks must be identical for every ``t``."""
    import scipy.sparse as sp

    from fsel import JMI

    rng = np.random.default_rng(0)
    X = sp.random(
        rows,
        SPARSE_FEATURES,
        density=SPARSE_DENSITY,
        format="csc",
        random_state=0,
        data_rvs=lambda k: rng.integers(1, 4, k).astype(np.float64),
    )
    present = np.asarray((X[:, 0] != 0).todense()).ravel()
    y = (present ^ (rng.random(rows) < 0.3)).astype(np.int64)
    JMI(5, discretize=None).fit(X[:2000], y[:2000])  # compile / load the kernels

    def fit(t: int) -> tuple[float, np.ndarray]:
        return _timed_fit(JMI(10, discretize=None, n_jobs=t), X, y, "selection_order_")

    label = f"sparse JMI(10) {rows:,} x {SPARSE_FEATURES}"
    return fit_scaling(label, fit, threads, repeats)


def _step_marks(fit: Any) -> tuple[Any, float, list[float]]:
    """``fit()`` with the start of the greedy search and each pick recorded: the
    estimator, the start and the picks' times."""
    import fsel.selectors.information._fit as fit_module

    marks: dict[str, Any] = {"steps": []}
    original = fit_module.greedy_select

    def recorded(*args: Any, progress: Any = None, **kwargs: Any) -> Any:
        marks["start"] = time.perf_counter()

        def step() -> None:
            marks["steps"].append(time.perf_counter())
            if progress is not None:
                progress()

        return original(*args, progress=step, **kwargs)

    fit_module.greedy_select = recorded
    try:
        est = fit()
    finally:
        fit_module.greedy_select = original
    return est, marks["start"], marks["steps"]


def _worker_count_seconds(
    j: int, aj: int, width: int, ny: int, repeats: int, *blocks: Any
) -> float:
    """The median of ``repeats`` runs of a greedy step's counting call on the blocks of
    one worker (:func:`fsel.kernels.information_dask._hist_pair`, as the step runs it,
    block after block), timed on that worker (the median, as for the steps)."""
    from fsel.kernels.information_dask import _hist_pair

    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        for block in blocks:
            _hist_pair(block, j, aj, width, ny)
        times.append(time.perf_counter() - t0)
    return float(statistics.median(times))


def _empty_table(block: Any, shape: tuple) -> np.ndarray:
    """A no-op over a block: a zero count table of a step's shape (int32, as sent)."""
    return np.zeros(shape, dtype=np.int32)


def _empty_sum(block: Any, shape: tuple) -> np.ndarray:
    return np.zeros(shape, dtype=np.int32)


def _block_rows(block: Any) -> int:
    return int(block[0].shape[1])


def dask_step_ratio(client: Any, Xd: Any, yd: Any, repeats: int = 10) -> dict[str, Any]:
    """What a Dask greedy step costs against its floor, on a table built as a fit
    builds it: (ii) ``count_s``, the step's counting call on the blocks of one worker,
    alone on the cluster (each worker timed in turn; the largest: the step's critical
    path), (iii) ``roundtrip_s``, a reduction round trip with nothing to count (one
    no-op task per block returning an int32 table of a step's shape, gathered and
    summed on the client) and ``actor_roundtrip_s`` (the same through the per-worker
    actors the steps use)."""
    from fsel.kernels import _dask
    from fsel.kernels.information_dask import dask_information_table
    from fsel.utils.dask_table import check_dask_table

    data = check_dask_table(Xd, yd)
    table, _, _ = dask_information_table(data.blocks, data.y_blocks, data.discrete, strategy=None)
    j, aj, ny = 0, int(table.n_levels[0]), table.n_classes
    shape = (table.n_features, table.width, aj * ny)
    who = client.who_has(table.blocks)
    by_worker: dict[str, list[Any]] = {}
    for b in table.blocks:
        by_worker.setdefault(sorted(who[b.key])[0], []).append(b)
    args = (j, aj, table.width, ny, 7)

    def count(w: str) -> Any:
        return client.submit(_worker_count_seconds, *args, *by_worker[w], workers=[w], pure=False)

    per_worker = [count(w).result() for w in by_worker]  # one worker at a time
    together = client.gather([count(w) for w in by_worker])  # all workers at once
    trips = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        parts = client.map(_empty_table, table.blocks, shape=shape, pure=False)
        sum(client.gather(parts, direct=True))
        trips.append(time.perf_counter() - t0)
    actor_trips = []
    if table._actor_futures is not None:
        actors = client.gather(table._actor_futures)
        for _ in range(repeats):
            t0 = time.perf_counter()
            _dask.actor_sum(actors, _empty_sum, (shape,))
            actor_trips.append(time.perf_counter() - t0)
    out = {
        "blocks": len(table.blocks),
        "rows_per_worker": [
            sum(client.submit(_block_rows, b, pure=False).result() for b in bs)
            for bs in by_worker.values()
        ],
        "count_s": max(per_worker),
        "count_s_per_worker": per_worker,
        "count_together_s": max(together),
        "roundtrip_s": float(statistics.median(trips)),
        "actor_roundtrip_s": float(statistics.median(actor_trips)) if actor_trips else None,
    }
    del table
    return out


def bench_dask(
    rows: int,
    workers: list[int],
    chunk_rows: int,
    repeats: int = 1,
    paths: bool = True,
    threads: int = 1,
) -> list[dict[str, Any]]:
    """JMI on a local cluster of ``w`` worker processes of ``threads`` threads: the whole fit,
    its median greedy step and that step against its floor (:func:`dask_step_ratio`);
    ``paths``: also the step with every reduction on the futures path (one task per
    block through the scheduler, no actors)."""
    try:
        import dask.array as da
        from dask.distributed import Client, LocalCluster
    except ImportError as exc:  # optional part
        print(f"Dask skipped: {exc}")
        return [{"skipped": str(exc)}]
    from fsel import JMI
    from fsel.kernels import information_dask as kd

    X, y8 = make_chunk(0, rows)
    out = []
    for w in workers:
        with (
            LocalCluster(
                n_workers=w,
                threads_per_worker=threads,
                processes=True,
                dashboard_address=":0",
                memory_limit=0,
            ) as cluster,
            Client(cluster) as client,
        ):
            Xd = da.from_array(X, chunks=(chunk_rows, N_FEATURES)).persist()
            yd = da.from_array(y8.astype(np.int64), chunks=chunk_rows).persist()
            JMI(3, discretize=None).fit(Xd[:chunk_rows], yd[:chunk_rows])  # warm-up
            fits, steps = [], []
            for _ in range(repeats):
                t0 = time.perf_counter()
                est, _start, picks = _step_marks(partial(_fit_jmi, Xd, yd))
                fits.append(time.perf_counter() - t0)
                steps.extend(np.diff(picks))  # the first pick: relevance, no counting
            floor = dask_step_ratio(client, Xd, yd)
            futures_steps: list[float] = []
            if paths:
                real = kd.block_actors
                kd.block_actors = lambda *a: None
                try:
                    _, _, picks = _step_marks(partial(_fit_jmi, Xd, yd))
                finally:
                    kd.block_actors = real
                futures_steps = list(np.diff(picks))
        step = float(statistics.median(steps))
        r = {
            "workers": w,
            "threads_per_worker": threads,
            "fit_s": min(fits),
            "step_s": step,
            **floor,
            "futures_step_s": float(statistics.median(futures_steps)) if futures_steps else None,
            "selection": [int(j) for j in est.selection_order_],
        }
        r["ratio"] = step / (r["count_s"] + r["roundtrip_s"])
        r["together_ratio"] = step / (r["count_together_s"] + r["roundtrip_s"])
        if r["actor_roundtrip_s"] is not None:
            r["strict_ratio"] = step / (r["count_s"] + r["actor_roundtrip_s"])
        out.append(r)
        print(
            f"Dask JMI {rows:,} x {N_FEATURES}, {w:>2} workers x {threads} threads: fit "
            f"{r['fit_s']:.2f} s, step "
            f"{step * 1e3:.1f} ms; one worker's count {r['count_s'] * 1e3:.1f} ms + round "
            f"trip {r['roundtrip_s'] * 1e3:.1f} ms (actors "
            f"{_ms(r['actor_roundtrip_s'])}): ratio {r['ratio']:.2f}"
            + (f", strict {r['strict_ratio']:.2f}" if "strict_ratio" in r else "")
            + f"; every worker counting at once {r['count_together_s'] * 1e3:.1f} ms: "
            f"ratio {r['together_ratio']:.2f}"
            + (f"; futures path step {_ms(r['futures_step_s'])}" if paths else ""),
            flush=True,
        )
    for r in out:
        r["fit_speedup"] = out[0]["fit_s"] / r["fit_s"]
        r["same_selection"] = r["selection"] == out[0]["selection"]
    return out


def _fit_jmi(X: Any, y: Any) -> Any:
    from fsel import JMI

    return JMI(K, discretize=None).fit(X, y)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", type=int, default=2_000_000, help="JMI table rows")
    parser.add_argument("--relief-rows", type=int, default=100_000)
    parser.add_argument("--max-threads", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--threads", default=None, help="thread counts, e.g. 1,4,16 (default: 1, 2, 4, ...)"
    )
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--dask", action="store_true", help="also Dask worker processes")
    parser.add_argument(
        "--dask-only", action="store_true", help="only the Dask part (implies --dask)"
    )
    parser.add_argument(
        "--workers", default=None, help="Dask worker counts, e.g. 2,4 (default: as threads)"
    )
    parser.add_argument("--chunk-rows", type=int, default=1_000_000, help="Dask chunk rows")
    parser.add_argument("--skip-relief", action="store_true")
    parser.add_argument("--sparse-rows", type=int, default=200_000, help="0: no sparse part")
    parser.add_argument("--cmi-rows", type=int, default=2_000_000, help="0: no CMI part")
    parser.add_argument("--cmim-rows", type=int, default=2_000_000, help="0: no CMIM part")
    parser.add_argument("--float-rows", type=int, default=1_000_000, help="0: no float part")
    parser.add_argument("--worker-threads", type=int, default=1, help="threads per Dask worker")
    parser.add_argument("--note", default="", help="words naming the machine, in the header")
    parser.add_argument("--out", default=str(_provenance.RESULTS / "scaling"))
    _provenance.add_allow_dirty(parser)
    args = parser.parse_args(argv)
    state = _provenance.checked_state(parser, Path(args.out), args.allow_dirty)
    threads = (
        sorted({max(1, int(t)) for t in args.threads.split(",")})
        if args.threads
        else thread_counts(max(1, args.max_threads))
    )
    memory = not args.dask_only
    load_start = list(os.getloadavg())  # other work on a shared machine skews the times
    result: dict[str, Any] = {
        "machine": {**machine(), "topology": topology()},
        "git": state,
        "args": vars(args),
        "jmi": [],
        "relieff": [],
        "sparse": [],
        "cmi": [],
        "cmim": [],
        "floats": [],
    }

    def save() -> str:  # after every part: a run cut short keeps what it measured
        result["load_average"] = {"start": load_start, "end": list(os.getloadavg())}
        for r in result["jmi"]:
            r.pop("selection", None)
        Path(args.out).with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
        text = _markdown(result)
        Path(args.out).with_suffix(".md").write_text(text)
        return text

    parts = {
        "jmi": (memory, lambda: bench_jmi(args.rows, threads, args.repeats)),
        "relieff": (
            memory and not args.skip_relief,
            lambda: bench_relieff(args.relief_rows, threads, args.repeats),
        ),
        "sparse": (
            memory and bool(args.sparse_rows),
            lambda: bench_sparse(args.sparse_rows, threads, max(2, args.repeats)),
        ),
        "cmi": (
            memory and bool(args.cmi_rows),
            lambda: bench_codes("CMI", 4, args.cmi_rows, threads, args.repeats),
        ),
        "cmim": (
            memory and bool(args.cmim_rows),
            lambda: bench_codes("CMIM", 20, args.cmim_rows, threads, args.repeats),
        ),
        "floats": (
            memory and bool(args.float_rows),
            lambda: bench_floats(args.float_rows, threads, args.repeats),
        ),
    }
    for name, (wanted, run) in parts.items():
        if wanted:
            result[name] = run()
            if name == "jmi":
                result["projection"] = projection(result["jmi"]) if result["jmi"] else {}
            save()
    result.setdefault("projection", {})
    if args.dask or args.dask_only:
        workers = [int(w) for w in args.workers.split(",")] if args.workers else threads
        result["dask"] = bench_dask(
            args.rows,
            workers,
            args.chunk_rows,
            max(2, args.repeats),
            threads=args.worker_threads,
        )
    text = save()
    print(text)


if __name__ == "__main__":
    main()
