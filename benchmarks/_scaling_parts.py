"""The scaling benchmark's timing helpers and its ReliefF part (of
``bench_scaling.py``, which runs them)."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from _scaling_floors import search_in_cache
from _scaling_report import N_FEATURES


def fit_scaling(
    label: str, fit: Any, threads: list[int], repeats: int, key: str = "same_selection"
) -> list[dict[str, Any]]:
    """``fit(t)`` (seconds, what it found) for every thread count, best of ``repeats``:
    the whole fit, its speed-up over the first count, and whether it found the same
    (``key``) as with the first, exactly."""
    out = []
    for t in threads:
        runs = [fit(t) for _ in range(repeats)]
        seconds = min(sec for sec, _ in runs)
        out.append({"threads": t, "fit_s": seconds, "found": runs[0][1]})
        print(f"{label}, {t:>2} threads: fit {seconds:.3f} s", flush=True)
    base_s, base_found = out[0]["fit_s"], out[0]["found"]
    for r in out:
        r["fit_speedup"] = base_s / r["fit_s"]
        r[key] = bool(np.array_equal(r.pop("found"), base_found))
    return out


def _timed_fit(est: Any, X: Any, y: Any, attr: str) -> tuple[float, np.ndarray]:
    t0 = time.perf_counter()
    est.fit(X, y)
    return time.perf_counter() - t0, np.asarray(getattr(est, attr))


def bench_relieff(rows: int, threads: list[int], repeats: int) -> list[dict[str, Any]]:
    """The whole fit, and within it the neighbour search (the references' streamed
    Manhattan search, threads over references) apart from the rest (validation,
    scaling, margins); next to them the search kernel's own rate with its data in
    cache (:func:`_scaling_floors.search_in_cache`)."""
    import fsel.kernels.neighbors as neighbors
    from fsel import ReliefF

    rng = np.random.default_rng(0)
    X = rng.normal(size=(rows, N_FEATURES))
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=rows) > 0).astype(np.int64)
    search = {"s": 0.0}
    searches: dict[int, float] = {}  # least search seconds by thread count
    stream = neighbors.manhattan_knn_rows

    def timed_search(*args: Any, **kwargs: Any) -> Any:
        t0 = time.perf_counter()
        try:
            return stream(*args, **kwargs)
        finally:
            search["s"] += time.perf_counter() - t0

    def fit(t: int) -> tuple[float, np.ndarray]:
        est = ReliefF(n_neighbors=10, sample_size=1000, random_state=0, n_jobs=t)
        search["s"] = 0.0
        seconds, found = _timed_fit(est, X, y, "feature_importances_")
        searches[t] = min(searches.get(t, float("inf")), search["s"])
        return seconds, found

    # a whole-size fit first: the first fit of a process maps its fresh pages (the
    # scaled and the class-sorted copies), which later fits reuse
    ReliefF(n_neighbors=10, sample_size=50, random_state=0).fit(X, y)
    label = f"ReliefF {rows:,} x {N_FEATURES}"
    neighbors.manhattan_knn_rows = timed_search
    try:
        out = fit_scaling(label, fit, threads, repeats, key="same_weights")
    finally:
        neighbors.manhattan_knn_rows = stream
    for r in out:
        r["search_s"] = searches.get(r["threads"], float("nan"))
        r.update(search_in_cache(r["threads"]))
    base = out[0]["cache_distances_per_s_per_thread"] if out else 1.0
    for r in out:
        r["cache_search_scaling"] = r["threads"] * r["cache_distances_per_s_per_thread"] / base
    return out
