"""Benchmark: the nearest-neighbour information estimator (``mi_estimator="knn"``).

Data: ``N`` rows of ``K`` continuous columns (standard normal, seed 0); class labels
``y = 1[x0 + sin(2 x1) + x2 x3 + 0.5 e > 0]`` (the first four columns relevant).

Rows, in one run:

* **JMI(20) knn** -- ``fsel.JMI(20, mi_estimator="knn", n_jobs=J)`` on ``10,000 x 200``
  (the target: under 60 s on 2 cores with numba), for ``J = 1`` and ``2``: wall seconds
  and CPU seconds of this process (all threads);
* **MIM knn** and scikit-learn's ``mutual_info_classif(n_neighbors=3)`` on the same
  table (MIM is one relevance term per column, what scikit-learn computes): seconds,
  the ratio fsel / scikit-learn, and the largest difference of their values (bits);
* the relevant columns among JMI's first 20 picks.

A warm-up fit on a small table (numba compilation) is not timed. The machine is shared
with other jobs: wall times are noisy under contention, CPU seconds less so; the load
average at the start and end is recorded. ``--quick``: ``2,000 x 50``, JMI(10).
Results: ``benchmarks/results/knn_mi[_quick].{json,md}``.

Run ``python benchmarks/run.py knn_mi [--quick]`` or ``python benchmarks/bench_knn_mi.py``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time
from pathlib import Path
from typing import Any

import _provenance  # first: this checkout's src/ is the fsel measured
import numpy as np

HERE = Path(__file__).resolve().parent
RESULTS = HERE / "results"


def _timed(fn: Any) -> tuple[Any, float, float]:
    c0, w0 = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - w0, time.process_time() - c0


def _data(n: int, d: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, d))
    signal = X[:, 0] + np.sin(2 * X[:, 1]) + X[:, 2] * X[:, 3] + 0.5 * rng.normal(size=n)
    return X, (signal > 0).astype(int)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench_knn_mi", description=__doc__.split("\n")[0])
    p.add_argument("--quick", action="store_true")
    p.add_argument("--output", type=Path, default=None, help="output stem (no suffix)")
    _provenance.add_allow_dirty(p)
    args = p.parse_args(argv)
    stem = Path(args.output or RESULTS / ("knn_mi_quick" if args.quick else "knn_mi"))
    state = _provenance.checked_state(p, stem, args.allow_dirty)

    from sklearn.feature_selection import mutual_info_classif

    import fsel
    from fsel.kernels._counting import numba_enabled

    n, d, k = (2000, 50, 10) if args.quick else (10_000, 200, 20)
    X, y = _data(n, d)
    fsel.JMI(3, mi_estimator="knn", n_jobs=2).fit(X[:300, :6], y[:300])  # compile
    load0 = os.getloadavg()
    rows: list[dict[str, Any]] = []
    picks = None
    for jobs in (1, 2):
        sel, wall, cpu = _timed(lambda j=jobs: fsel.JMI(k, mi_estimator="knn", n_jobs=j).fit(X, y))
        picks = sel.selection_order_.tolist()
        rows.append({"what": f"JMI({k}) knn", "n_jobs": jobs, "wall_s": wall, "cpu_s": cpu})
    mim, wall_m, cpu_m = _timed(lambda: fsel.MIM(d, mi_estimator="knn").fit(X, y))
    ref, wall_s, cpu_s = _timed(lambda: mutual_info_classif(X, y, n_neighbors=3, random_state=0))
    rows.append({"what": "MIM knn", "n_jobs": 1, "wall_s": wall_m, "cpu_s": cpu_m})
    rows.append(
        {"what": "sklearn mutual_info_classif", "n_jobs": 1, "wall_s": wall_s, "cpu_s": cpu_s}
    )
    load1 = os.getloadavg()
    diff = float(np.max(np.abs(mim.relevance_ - ref / np.log(2))))
    result = {
        "benchmark": "knn_mi",
        "quick": args.quick,
        "n_samples": n,
        "n_features": d,
        "k": k,
        "numba": numba_enabled(),
        "machine": f"{platform.node()} {platform.machine()} {os.cpu_count()} cpus",
        "loadavg_start": load0,
        "loadavg_end": load1,
        "git": state,
        "rows": rows,
        "mim_over_sklearn_wall": wall_m / wall_s,
        "mim_over_sklearn_cpu": cpu_m / cpu_s,
        "max_abs_diff_bits_vs_sklearn": diff,
        "jmi_picks": picks,
        "relevant_in_jmi_picks": len(set(picks or []) & {0, 1, 2, 3}),
    }
    stem.parent.mkdir(parents=True, exist_ok=True)
    stem.with_suffix(".json").write_text(json.dumps(result, indent=2) + "\n")
    lines = [
        f"# knn mutual information: {n} x {d}, JMI({k})",
        "",
        f"Machine: {result['machine']}, shared (load average {load0[0]:.1f} at the start, "
        f"{load1[0]:.1f} at the end); numba: {result['numba']}; "
        f"commit {state.get('head', '')[:10]}.",
        "",
        "| what | n_jobs | wall s | CPU s |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {r['what']} | {r['n_jobs']} | {r['wall_s']:.2f} | {r['cpu_s']:.2f} |" for r in rows
    ]
    lines += [
        "",
        f"MIM knn / scikit-learn mutual_info_classif: {result['mim_over_sklearn_wall']:.2f}x wall, "
        f"{result['mim_over_sklearn_cpu']:.2f}x CPU; largest value difference {diff:.2e} bits.",
        f"Relevant columns (0-3) among JMI's picks: {result['relevant_in_jmi_picks']} of 4.",
        "",
    ]
    stem.with_suffix(".md").write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
