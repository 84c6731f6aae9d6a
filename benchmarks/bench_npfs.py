"""Benchmark: NPFS(JMI) against BorutaPy on "which features are truly relevant".

Data: Ditzler et al.'s synthetic uniform data (:func:`fsel.datasets.make_npfs_uniform`),
``M = 1000`` samples, ``K = 250`` features iid U[0, 10], the first ``k* = 15`` relevant
(``y = 1`` iff their sum is ``<= 5 k*``), seed 0.

Side by side in one run:

* **fsel NPFS** -- ``NPFS(fsel.JMI(10), n_resamples=100, alpha=0.01)`` with
  ``n_jobs=1`` (CPU seconds of this process, ``time.process_time``, and wall seconds)
  and with ``n_jobs=2`` on joblib's process (loky) and thread backends (wall seconds;
  the speed-up is wall(n_jobs=1) / wall(n_jobs=2)). A warm-up fit (numba compilation,
  worker start) is done first and not timed.
* **BorutaPy** (``boruta`` on PyPI) -- ``BorutaPy(RandomForestClassifier(n_jobs=1,
  class_weight="balanced", max_depth=5), n_estimators="auto", random_state=0)``, the
  configuration of its README, CPU seconds on one core. If it is missing or crashes
  the row says so and the benchmark goes on.

For each method: seconds, the ratio to NPFS(n_jobs=1), true positives (relevant
features among the first 15) and false positives. ``--quick`` uses K=50, k*=5,
n_resamples=20 and Boruta ``max_iter=20``.

The machine is shared: wall times are noisy under contention; CPU seconds of the
single-process runs are the fairer comparison. Results go to
``benchmarks/results/npfs[_quick].{json,csv}``.

Run ``python benchmarks/run.py npfs [--quick]`` or ``python benchmarks/bench_npfs.py``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import sys
import time
import traceback
import warnings
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def _timed(fn: Any) -> tuple[Any, float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c0, time.perf_counter() - w0


def _score(selected: np.ndarray, n_relevant: int) -> tuple[int, int]:
    sel = set(np.asarray(selected).tolist())
    tp = len(sel & set(range(n_relevant)))
    return tp, len(sel) - tp


def run_npfs(X, y, k, n_boot, n_jobs, backend, k_star):
    import joblib

    import fsel

    def fit():
        with joblib.parallel_config(backend=backend):
            return fsel.NPFS(
                fsel.JMI(k), n_resamples=n_boot, alpha=0.01, n_jobs=n_jobs, random_state=0
            ).fit(X, y)

    fit()  # warm-up: compilation, worker start
    npfs, cpu, wall = _timed(fit)
    tp, fp = _score(npfs.relevant_features_, k_star)
    return {"cpu_s": cpu, "wall_s": wall, "tp": tp, "fp": fp, "n_selected": npfs.n_relevant_}


def run_boruta(X, y, k_star, max_iter):
    from boruta import BorutaPy
    from sklearn.ensemble import RandomForestClassifier

    rf = RandomForestClassifier(n_jobs=1, class_weight="balanced", max_depth=5)
    bor = BorutaPy(rf, n_estimators="auto", random_state=0, max_iter=max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, cpu, wall = _timed(lambda: bor.fit(X, y))
    sel = np.flatnonzero(bor.support_)
    tp, fp = _score(sel, k_star)
    tent = int(np.sum(bor.support_weak_))
    return {
        "cpu_s": cpu,
        "wall_s": wall,
        "tp": tp,
        "fp": fp,
        "n_selected": int(sel.size),
        "tentative": tent,
    }


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark, print the table and write the results files."""
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="bench_npfs", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true", help="K=50, k*=5, 20 bootstraps")
    p.add_argument("--skip-boruta", action="store_true")
    p.add_argument("--output", type=Path, default=None, help="output stem (no suffix)")
    _provenance.add_allow_dirty(p)
    args = p.parse_args(argv)
    git_state = _provenance.checked_state(
        p, args.output or RESULTS / ("npfs_quick" if args.quick else "npfs"), args.allow_dirty
    )
    for var in ("OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(var, "1")  # one core per process

    from fsel.datasets import make_npfs_uniform

    if args.quick:
        M, K, k_star, k, n_boot, max_iter = 1000, 50, 5, 10, 20, 20
    else:
        M, K, k_star, k, n_boot, max_iter = 1000, 250, 15, 10, 100, 100
    X, y, _ = make_npfs_uniform(M, K, k_star, random_state=0)
    rows: list[dict[str, Any]] = []

    def record(name, fn):
        try:
            r = fn()
            r["status"] = "ok"
        except Exception as exc:  # a crashing competitor is reported, not fatal
            traceback.print_exc()
            r = {"status": f"failed: {type(exc).__name__}: {exc}"[:200]}
        r["method"] = name
        rows.append(r)
        print(f"  done: {name} ({r['status']})", file=sys.stderr)

    record("fsel NPFS(JMI) n_jobs=1", lambda: run_npfs(X, y, k, n_boot, 1, "loky", k_star))
    record("fsel NPFS(JMI) n_jobs=2 loky", lambda: run_npfs(X, y, k, n_boot, 2, "loky", k_star))
    record(
        "fsel NPFS(JMI) n_jobs=2 threads",
        lambda: run_npfs(X, y, k, n_boot, 2, "threading", k_star),
    )
    if args.skip_boruta:
        rows.append({"method": "BorutaPy", "status": "skipped"})
    else:
        try:
            import boruta  # noqa: F401

            record("BorutaPy (RF depth 5, auto trees)", lambda: run_boruta(X, y, k_star, max_iter))
        except ImportError:
            rows.append({"method": "BorutaPy", "status": "not installed (pip install boruta)"})

    base = rows[0]
    for r in rows:
        if r.get("status") == "ok" and base.get("status") == "ok":
            r["cpu_ratio_vs_npfs1"] = r["cpu_s"] / base["cpu_s"]
            r["wall_ratio_vs_npfs1"] = r["wall_s"] / base["wall_s"]
            r["speedup_vs_npfs1"] = base["wall_s"] / r["wall_s"]

    print(
        f"\nNPFS vs BorutaPy: uniform data M={M}, K={K}, k*={k_star}; NPFS k={k}, "
        f"n={n_boot}, alpha=0.01 (shared machine: wall times are noisy)"
    )
    head = (
        f"{'method':38s} {'cpu s':>8s} {'wall s':>8s} {'cpu/npfs1':>9s} {'speedup':>8s} "
        f"{'TP':>4s} {'FP':>4s}"
    )
    print(head)
    print("-" * len(head))
    for r in rows:
        if r.get("status") != "ok":
            print(f"{r['method']:38s} {r['status']}")
            continue
        print(
            f"{r['method']:38s} {r['cpu_s']:8.2f} {r['wall_s']:8.2f} "
            f"{r['cpu_ratio_vs_npfs1']:9.2f} {r['speedup_vs_npfs1']:8.2f} "
            f"{r['tp']:4d} {r['fp']:4d}"
        )
    print("(CPU seconds of n_jobs=2 runs count this process only; compare their wall time.)")
    load = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"load average during the run: {load[0]:.1f} on {os.cpu_count()} cores")

    stem = args.output or RESULTS / ("npfs_quick" if args.quick else "npfs")
    stem.parent.mkdir(parents=True, exist_ok=True)
    meta = {
        "data": {"M": M, "K": K, "k_star": k_star, "seed": 0},
        "npfs": {"k": k, "n_bootstraps": n_boot, "alpha": 0.01},
        "boruta_max_iter": max_iter,
        "git": git_state,
        "python": platform.python_version(),
        "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "time": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }
    stem.with_suffix(".json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=2))
    keys = [
        "method",
        "status",
        "cpu_s",
        "wall_s",
        "cpu_ratio_vs_npfs1",
        "speedup_vs_npfs1",
        "tp",
        "fp",
        "n_selected",
        "tentative",
    ]
    with stem.with_suffix(".csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=keys, extrasaction="ignore")
        w.writeheader()
        w.writerows(rows)
    return 0


if __name__ == "__main__":
    sys.exit(main())
