"""Benchmark: JMI (k=20) in memory against Dask with the data on 2 worker processes.

Data (:func:`make_chunk`): ``n_rows x 100`` integer codes ``0..9`` (uint8) generated chunk
by chunk from ``(seed, chunk index)``, so the Dask side never materialises the table in
one process: columns 0-4 are informative (``y = 1`` iff their sum plus Gaussian noise
exceeds 22.5), columns 5-14 noisy copies of them (20 % of the entries redrawn), the
rest noise.

Each size runs, side by side in one run, in two fresh subprocesses:

* **in memory** -- the chunks are written into one ``uint8`` array, then
  ``fsel.JMI(20, discretize=None, n_jobs=J).fit(X, y)`` (J = 1 and 2), timed after a
  warm-up fit on a small slice (numba compiled);
* **dask** -- a ``distributed.LocalCluster`` of 2 worker processes (1 thread each); the
  lazily generated ``dask.array`` is persisted on the workers first (not timed: "data
  already on the cluster"), then, after a warm-up fit on the first 1,250 rows of every
  chunk (so every worker process has imported fsel and loaded the compiled kernels, as
  the in-memory process has), ``fsel.JMI(20, discretize=None).fit(X, y)`` is timed.
  Reported: the client's peak Python allocations during one fit (``tracemalloc``, a
  fit of its own) and its peak RSS, and each worker's peak RSS.

Both sides time ``--fits`` fits (default 3) in their process and report the median,
split the same way: the setup (up to the first greedy step: validation, codes and
relevance; on Dask one pass of per-worker stats, the encoding on the workers and one
reduction) and the greedy steps' time per step (``pair_terms`` calls). The rounds
(``--repeats``) interleave fresh processes of every side; the ratio is per round.

The selections of the two sides must be identical (checked; the run fails otherwise).

``--relief M`` adds, per size, ``fsel.ReliefF(n_neighbors=10, sample_size=M,
random_state=0)`` (Manhattan, the table as float64) in memory (``n_jobs=2``) and on
the same kind of cluster (the table persisted on the workers first, not timed); the
two margins must agree to 1e-12 (checked; top-5 features in ``order``). One side:
``python benchmarks/bench_dask.py --worker relief|relief-memory N M``.

Run ``python benchmarks/run.py dask [--quick] [--sizes 1000000,5000000]``; results go
to ``benchmarks/results/dask[_quick].{json,md}``.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

HERE = Path(__file__).resolve().parent
N_FEATURES = 100
K = 20
CHUNK_ROWS = 250_000
SEED = 0


def make_chunk(i: int, rows: int, d: int = N_FEATURES, seed: int = SEED) -> tuple:
    """Chunk ``i`` of the benchmark table: ``(X uint8 (rows, d), y int8 (rows,))``."""
    rng = np.random.default_rng([seed, i])
    X = rng.integers(0, 10, size=(rows, d), dtype=np.uint8)
    e = np.rint(rng.normal(0.0, 3.0, rows))
    y = (X[:, :5].sum(axis=1, dtype=np.int64) + e > 22.5).astype(np.int8)
    for r in range(10):
        redraw = rng.random(rows) < 0.2
        col = X[:, r % 5].copy()
        col[redraw] = rng.integers(0, 10, int(redraw.sum()), dtype=np.uint8)
        X[:, 5 + r] = col
    return X, y


def _bounds(n: int) -> list[tuple[int, int]]:
    return [(b, min(b + CHUNK_ROWS, n)) for b in range(0, n, CHUNK_ROWS)]


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


# ----------------------------------------------------------------------------- workers


def _timed_fits(fit: Any, table_cls: Any, n_fits: int) -> tuple[Any, dict[str, Any]]:
    """``fit()`` ``n_fits`` times, each split into its setup (up to the first greedy
    step: validation, codes, relevance) and its greedy steps (``table_cls.pair_terms``
    calls, from the first one's start to the last one's end, per step): the medians
    and every fit's numbers. Both sides are split the same way."""
    calls: list[tuple[float, float]] = []
    real = table_cls.pair_terms

    def timed(self: Any, *a: Any, **kw: Any) -> Any:
        t = time.perf_counter()
        out = real(self, *a, **kw)
        calls.append((t, time.perf_counter()))
        return out

    table_cls.pair_terms = timed
    fits, setups, steps = [], [], []
    try:
        for _ in range(n_fits):
            gc.collect()  # the previous fit's tables released (on Dask: their blocks too)
            time.sleep(0.2)
            calls.clear()
            t0 = time.perf_counter()
            sel = fit()
            fits.append(time.perf_counter() - t0)
            if calls:
                setups.append(calls[0][0] - t0)
                steps.append((calls[-1][1] - calls[0][0]) / len(calls))
    finally:
        table_cls.pair_terms = real
    return sel, {
        "seconds": float(np.median(fits)),
        "fit_seconds": fits,
        "setup_seconds": float(np.median(setups)) if setups else None,
        "step_seconds_mean": float(np.median(steps)) if steps else None,
        "setup_seconds_all": setups,
        "n_steps": len(calls),
    }


def run_memory(n: int, n_jobs: int, n_fits: int = 1) -> dict[str, Any]:
    import fsel
    from fsel.kernels.information import InformationTable

    X = np.empty((n, N_FEATURES), dtype=np.uint8)
    y = np.empty(n, dtype=np.int8)
    for i, (b0, b1) in enumerate(_bounds(n)):
        X[b0:b1], y[b0:b1] = make_chunk(i, b1 - b0)
    fsel.JMI(3, discretize=None, n_jobs=n_jobs).fit(X[:5000], y[:5000])  # compile
    before = _rss_mb()
    sel, timing = _timed_fits(
        lambda: fsel.JMI(K, discretize=None, n_jobs=n_jobs).fit(X, y), InformationTable, n_fits
    )
    return {
        "side": f"memory n_jobs={n_jobs}",
        **timing,
        "order": sel.selection_order_.tolist(),
        "client_peak_rss_mb": _rss_mb(),
        "rss_before_fit_mb": before,
        "data_mb": X.nbytes / 2**20,
    }


def _lazy_table(n: int, dtype: Any = np.uint8) -> tuple[Any, Any]:
    """The benchmark table as lazy dask arrays, one task per chunk (never in one process)."""
    import dask
    import dask.array as da

    bounds = _bounds(n)
    xs = [
        da.from_delayed(
            dask.delayed(lambda i, r: make_chunk(i, r)[0].astype(dtype))(i, b1 - b0),
            (b1 - b0, N_FEATURES),
            dtype,
        )
        for i, (b0, b1) in enumerate(bounds)
    ]
    ys = [
        da.from_delayed(
            dask.delayed(lambda i, r: make_chunk(i, r)[1])(i, b1 - b0), (b1 - b0,), np.int8
        )
        for i, (b0, b1) in enumerate(bounds)
    ]
    return da.concatenate(xs), da.concatenate(ys)


def _warm_up_slice(X: Any, y: Any, n: int, rows: int) -> tuple[Any, Any]:
    """The first ``rows`` rows of every chunk (C-contiguous views, each on its chunk's
    worker): a warm-up fit on them imports fsel and loads the compiled kernels in every
    worker process, not only in the one holding the first chunk."""
    import dask.array as da

    starts = [b0 for b0, _ in _bounds(n)]
    return (
        da.concatenate([X[b : b + rows] for b in starts]),
        da.concatenate([y[b : b + rows] for b in starts]),
    )


def _cluster(n_workers: int) -> Any:
    import distributed

    return distributed.LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=":0",
        memory_limit=0,
    )


def run_dask(n: int, n_workers: int, n_fits: int = 1) -> dict[str, Any]:
    import tracemalloc

    import distributed

    import fsel
    from fsel.kernels import information_dask as kd

    bounds = _bounds(n)
    X, y = _lazy_table(n)
    with (
        _cluster(n_workers) as cluster,
        distributed.Client(cluster) as client,
    ):
        t0 = time.perf_counter()
        X, y = client.persist([X, y])
        distributed.wait([X, y])
        persist_s = time.perf_counter() - t0
        fsel.JMI(3, discretize=None).fit(*_warm_up_slice(X, y, n, 1250))  # on every worker
        tracemalloc.start()  # the client's allocations during one fit
        try:
            fsel.JMI(K, discretize=None).fit(X, y)
            _, peak = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        # the workers' peak over the warm-up and that one fit
        workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
        sel, timing = _timed_fits(
            lambda: fsel.JMI(K, discretize=None).fit(X, y), kd.DaskInformationTable, n_fits
        )
    return {
        "side": f"dask {n_workers} workers",
        **timing,
        "n_chunks": len(bounds),
        "persist_seconds": persist_s,
        "order": sel.selection_order_.tolist(),
        "client_fit_tracemalloc_peak_mb": peak / 2**20,
        "client_peak_rss_mb": _rss_mb(),
        "worker_peak_rss_mb": sorted(workers.values()),
        "data_mb": n * N_FEATURES / 2**20,
    }


RELIEF_K = 10


def run_relief_dask(n: int, m: int, n_workers: int = 2) -> dict[str, Any]:
    """``fsel.ReliefF(n_neighbors=10, sample_size=m, random_state=0)`` fitted on the
    lazily generated table as a float64 dask array, persisted on the workers first
    (not timed); the fit runs :func:`fsel.kernels.relief_dask.relieff_margin_dask`."""
    import distributed

    import fsel

    X, y = _lazy_table(n, np.float64)
    with (
        _cluster(n_workers) as cluster,
        distributed.Client(cluster) as client,
    ):
        X, y = client.persist([X, y])
        distributed.wait([X, y])
        fsel.ReliefF(sample_size=20, random_state=0).fit(*_warm_up_slice(X, y, n, 500))
        est = fsel.ReliefF(n_neighbors=RELIEF_K, sample_size=m, random_state=0)
        t0 = time.perf_counter()
        est.fit(X, y)
        took = time.perf_counter() - t0
        workers = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0)
    return {
        "side": f"dask ReliefF m={m} {n_workers} workers",
        "seconds": took,
        "order": est.selection_order_[:5].tolist(),
        "margin": est.margin_.tolist(),
        "client_peak_rss_mb": _rss_mb(),
        "worker_peak_rss_mb": sorted(workers.values()),
        "data_mb": n * N_FEATURES * 8 / 2**20,
    }


def run_relief_memory(n: int, m: int, n_jobs: int = 2) -> dict[str, Any]:
    """The same ReliefF fit in memory (the table built chunk by chunk as float64)."""
    import fsel

    X = np.empty((n, N_FEATURES), dtype=np.float64)
    y = np.empty(n, dtype=np.int8)
    for i, (b0, b1) in enumerate(_bounds(n)):
        X[b0:b1], y[b0:b1] = make_chunk(i, b1 - b0)
    fsel.ReliefF(sample_size=20, random_state=0).fit(X[:2000], y[:2000])  # compile
    est = fsel.ReliefF(n_neighbors=RELIEF_K, sample_size=m, random_state=0, n_jobs=n_jobs)
    t0 = time.perf_counter()
    est.fit(X, y)
    took = time.perf_counter() - t0
    return {
        "side": f"memory ReliefF m={m} n_jobs={n_jobs}",
        "seconds": took,
        "order": est.selection_order_[:5].tolist(),
        "margin": est.margin_.tolist(),
        "client_peak_rss_mb": _rss_mb(),
        "data_mb": X.nbytes / 2**20,
    }


def _subprocess(kind: str, n: int, arg: int, timeout: float, fits: int = 1) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--worker", kind, str(n), str(arg), "--fits", str(fits)]
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"side": kind, "status": f"timeout after {timeout:.0f} s"}
    if r.returncode != 0:
        return {"side": kind, "status": "failed", "stderr": r.stderr[-2000:]}
    return json.loads(r.stdout.strip().splitlines()[-1]) | {"status": "ok"}


def _fmt(x: Any, spec: str = ".1f") -> str:
    return "-" if x is None else format(x, spec)


def markdown(rows: list[dict], meta: dict) -> str:
    relief_only = all("ReliefF" in r.get("side", "") for r in rows)
    title = (
        f"ReliefF k={RELIEF_K}, n x {N_FEATURES} float64"
        if relief_only
        else f"JMI k={K}, n x {N_FEATURES} uint8 codes"
    )
    out = [
        f"# Dask benchmark: {title}",
        "",
        f"git `{meta['git']['head'][:10]}` (src dirty: {meta['git']['src_dirty']}), "
        f"{meta['cpus']} CPUs, load average at start {meta['load_start']}, "
        f"python {meta['python']}; every JMI side: the median of {meta.get('fits', 1)} "
        "timed fits in one fresh process (setup: up to the first greedy step; s/step: "
        "the greedy steps' time per step), rounds interleaved",
        "",
        "| rows | side | status | fit s | ratio to memory n_jobs=2 | setup s | s/step | "
        "client peak RSS MB | client fit allocs MB | worker peak RSS MB | data MB |",
        "|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    ratios: dict[int, list[float]] = {}
    for r in rows:
        ref = next(
            (
                x
                for x in rows
                if x["n"] == r["n"]
                and x.get("round", 0) == r.get("round", 0)
                and x.get("side") == "memory n_jobs=2"
                and "seconds" in x
            ),
            None,
        )
        ratio = r["seconds"] / ref["seconds"] if ref and "seconds" in r else None
        if ratio is not None and r.get("side", "").startswith("dask"):
            ratios.setdefault(r["n"], []).append(ratio)
        out.append(
            f"| {r['n']:,} | {r['side']} | {r.get('status')} | {_fmt(r.get('seconds'))} | "
            f"{_fmt(ratio, '.2f')} | {_fmt(r.get('setup_seconds'))} | "
            f"{_fmt(r.get('step_seconds_mean'), '.2f')} | "
            f"{_fmt(r.get('client_peak_rss_mb'), '.0f')} | "
            f"{_fmt(r.get('client_fit_tracemalloc_peak_mb'), '.1f')} | "
            f"{', '.join(_fmt(w, '.0f') for w in r.get('worker_peak_rss_mb', [])) or '-'} | "
            f"{_fmt(r.get('data_mb'), '.0f')} |"
        )
    if any(len(v) > 1 for v in ratios.values()):
        out.append("")
        out += [
            f"* {n:,} rows: Dask / in memory (n_jobs=2) per round "
            f"{', '.join(f'{v:.2f}' for v in vs)}; median {float(np.median(vs)):.2f}"
            for n, vs in ratios.items()
        ]
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000000,5000000,20000000")
    parser.add_argument("--quick", action="store_true", help="one size: 1,000,000 rows")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=1800.0)
    parser.add_argument(
        "--repeats", type=int, default=1, help="interleaved rounds of every side per size"
    )
    parser.add_argument(
        "--relief", type=int, default=0, metavar="M", help="also ReliefF on Dask, M references"
    )
    parser.add_argument(
        "--sides", default="memory,dask", help="which sides to run (memory, dask or both)"
    )
    parser.add_argument(
        "--fits",
        type=int,
        default=3,
        help="timed fits per process (JMI sides); the median is reported, the rounds "
        "interleave fresh processes of each side",
    )
    parser.add_argument("--name", default=None, help="results file name (default: dask)")
    parser.add_argument(
        "--output", type=Path, default=None, help="output stem (no suffix); overrides --name"
    )
    _provenance.add_allow_dirty(parser)
    parser.add_argument("--worker", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        kind, n, arg = args.worker[0], int(args.worker[1]), int(args.worker[2])
        if kind == "relief":
            res = run_relief_dask(n, arg)
        elif kind == "relief-memory":
            res = run_relief_memory(n, arg)
        else:
            fits = args.fits
            res = run_memory(n, arg, fits) if kind == "memory" else run_dask(n, arg, fits)
        print(json.dumps(res))
        return 0
    sizes = [1_000_000] if args.quick else [int(s) for s in args.sizes.split(",")]
    name = args.name or ("dask_quick" if args.quick else "dask")
    stem = args.output or HERE / "results" / name
    meta = {
        "git": _provenance.checked_state(
            parser, stem, args.allow_dirty, "benchmarks/bench_dask.py"
        ),
        "cpus": os.cpu_count(),
        "load_start": os.getloadavg()[0],
        "python": platform.python_version(),
        "sizes": sizes,
        "repeats": args.repeats,
        "fits": args.fits,
    }
    rows: list[dict] = []
    failed = False
    for n in sizes:
        sides = args.sides.split(",")
        runs = [("memory", 1), ("memory", 2)] if "memory" in sides else []
        runs += [("dask", args.workers)] if "dask" in sides else []
        for kind, arg, rep in [(k, a, r) for r in range(args.repeats) for k, a in runs]:
            res = _subprocess(kind, n, arg, args.timeout, args.fits) | {"n": n, "round": rep}
            rows.append(res)
            print(json.dumps({k: v for k, v in res.items() if k != "order"}), flush=True)
        if args.relief:
            pair = []
            for kind in ("relief-memory", "relief"):
                res = _subprocess(kind, n, args.relief, args.timeout) | {"n": n}
                rows.append(res)
                pair.append(res)
                print(json.dumps({k: v for k, v in res.items() if k != "margin"}), flush=True)
            if all("margin" in r for r in pair) and not np.allclose(
                pair[0]["margin"], pair[1]["margin"], rtol=0, atol=1e-12
            ):
                print(f"ReliefF margins differ at n={n}", file=sys.stderr)
                failed = True
        orders = {
            json.dumps(r.get("order"))
            for r in rows
            if r["n"] == n and "order" in r and "ReliefF" not in r.get("side", "")
        }
        if len(orders) > 1:
            print(f"selections differ at n={n}: {orders}", file=sys.stderr)
            failed = True
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    md = markdown(rows, meta)
    stem.with_suffix(".md").write_text(md)
    print(md)
    return 1 if failed or any(r.get("status") != "ok" for r in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
